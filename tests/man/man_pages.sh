#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# man_pages.sh -- the man pages render without warnings, and document every command of
# the CLI's dispatcher (tools/main.c) and every INI key the parser knows
# (plugin/runtime/ini.c's key tables), so neither can grow without its page.
set -u
: "${top_srcdir:?run through make check}"
: "${top_builddir:?run through make check}"
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_man_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

command -v groff >/dev/null 2>&1 || { echo "SKIP: groff is not installed (apt-get install groff-base)"; exit 77; }
page1=$top_builddir/man/sealprov.1
page5=$top_builddir/man/sealprov.ini.5
for p in "$page1" "$page5"; do
  test -s "$p" || { echo "FAIL: $p was not built"; exit 1; }
  grep -q '@[a-zA-Z_]*@' "$p" && fail "$p: a placeholder was not substituted: $(grep -o '@[a-zA-Z_]*@' "$p" | head -1)"
  # groff's warnings (-ww) are errors here: a page that renders with them is broken.
  groff -man -Tutf8 -ww -z "$p" 2>"$T/warn" || fail "$p: groff failed"
  test -s "$T/warn" && { fail "$p: groff warnings"; cat "$T/warn"; }
  if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man -l "$p" >"$T/man.txt" 2>"$T/man.err" || { fail "man -l $p"; cat "$T/man.err"; }
    test -s "$T/man.txt" || fail "man -l $p printed nothing"
  fi
done

# Long lines: nothing is hyphenated or wrapped, so names are found whole.
render() { groff -man -Tutf8 -P-cbu -rLL=1000n "$1" 2>/dev/null; }
render "$page1" >"$T/1.txt"
render "$page5" >"$T/5.txt"
grep -q '^NAME' "$T/1.txt" && grep -q '^EXIT STATUS' "$T/1.txt" && grep -q '^ENVIRONMENT' "$T/1.txt" \
  || fail "sealprov(1) lacks NAME, EXIT STATUS or ENVIRONMENT"
for v in SEALPROV_PLUGIN SEALPROV_CONFIG SEALPROV_TIMELINE SEALPROV_STATS; do
  grep -q "^       $v\$" "$T/1.txt" || fail "sealprov(1): environment variable $v is not documented"
done

# Commands: the table of tools/main.c, {"name", NULL or "sub", ...}.
sed -n 's/^ *{"\([a-z-]*\)", *\(NULL\|"\([a-z-]*\)"\),.*/\1 \3/p' "$top_srcdir/tools/main.c" \
  | sed 's/ *$//' >"$T/commands"
n=$(wc -l <"$T/commands")
[ "$n" -ge 10 ] || fail "found only $n commands in tools/main.c (the table's shape changed?)"
while read -r cmd; do
  # a subsection of its own: "   NAME" at the left margin of COMMANDS
  grep -q "^   $cmd\$" "$T/1.txt" || fail "sealprov(1) has no subsection for the command '$cmd'"
done <"$T/commands"

# INI keys: the *_keys[] tables of plugin/runtime/ini.c.
awk '/static const char \*const [a-z_]*_keys\[/ { on = 1 } on { print } on && /};/ { on = 0 }' \
  "$top_srcdir/plugin/runtime/ini.c" | grep -o '"[a-z_]*"' | tr -d '"' | sort -u >"$T/keys"
n=$(wc -l <"$T/keys")
[ "$n" -ge 15 ] || fail "found only $n INI keys in plugin/runtime/ini.c (the tables' shape changed?)"
while read -r key; do
  grep -q "^       $key = " "$T/5.txt" || fail "sealprov.ini(5) has no entry for the key '$key'"
done <"$T/keys"
for s in '\[provider\]' 'DEVICE SECTIONS' '\[testing\]'; do
  grep -q "^$s" "$T/5.txt" || fail "sealprov.ini(5) lacks the section $s"
done

# The examples name the INI where this build installs it (configure's sysconfdir, as the
# CLI's default: `sealprov prove --help` says it), never a fixed /etc path (issue 25).
ini=$("$top_builddir/tools/sealprov" prove --help 2>/dev/null | tr -s ' \n' '  ' \
  | sed -n 's|.*its sources, else \([^ ]*/sealprov/sealprov\.ini\)).*|\1|p')
if [ -z "$ini" ]; then
  fail "sealprov prove --help does not name the installed INI (its wording changed?)"
else
  grep -q -- "sealprov check-config -c $ini\$" "$T/1.txt" \
    || fail "sealprov(1) EXAMPLES do not use the configured INI $ini"
  grep -q "^       $ini" "$T/5.txt" || grep -q " $ini" "$T/5.txt" \
    || fail "sealprov.ini(5) does not name the configured INI $ini"
  grep -n '/etc/sealprov' "$T/1.txt" "$T/5.txt" | grep -v -F "$ini" | sed 's/^/  /' >"$T/etc"
  [ -s "$T/etc" ] && { fail "a man page names an INI path other than the configured $ini:"; cat "$T/etc"; }
fi

echo "commands checked: $(tr '\n' ',' <"$T/commands")"
echo "keys checked: $(tr '\n' ' ' <"$T/keys")"
if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "man pages: all checks passed"
