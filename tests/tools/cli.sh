#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The `sealprov` CLI as a reference host: devices, check-config, dispatch and usage.
set -eu
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
sealprov=${top_builddir:?}/tools/sealprov
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$tmp/three.ini" <<'INI'
[provider]
log_level = warn
[c0]
type = cpu
[c1]
type = cpu
workers = 2
[c2]
type = cpu
INI

# devices: one row per section, in INI order; by default the columns that fit 80
# characters, with --wide every column.
out=$("$sealprov" --plugin "$SEALPROV_PLUGIN" devices -c "$tmp/three.ini")
echo "$out"
echo "$out" | head -1 | grep -q '^index  *section  *type  *name  *pci  *ordinal  *workers  *state$' \
  || fail "header"
[ "$(echo "$out" | sed 1d | awk '{ print $1 ":" $2 ":" $3 }' | tr '\n' ' ')" = "0:c0:cpu 1:c1:cpu 2:c2:cpu " ] \
  || fail "rows"
echo "$out" | grep -q '^1  *c1  *cpu  *CPU  *-  *-  *2 ready$' || fail "workers/state of c1"
[ "$(echo "$out" | awk 'length > 80' | wc -l)" -eq 0 ] || fail "devices: a line is wider than 80 columns"
"$sealprov" devices -c "$tmp/three.ini" --wide > "$tmp/wide.out" || fail "devices --wide"
head -1 "$tmp/wide.out" | grep -q '^index  *section  *type  *name  *uuid  *pci  *numa  *cpus  *pcie  *ordinal  *confirmed  *workers  *cc  *code  *2^k r/s  *state$' \
  || { cat "$tmp/wide.out"; fail "devices --wide: header"; }
grep -q '^1  *c1  *cpu .* 2  *-  *-  *any  *ready$' "$tmp/wide.out" || fail "devices --wide: workers/state of c1"

# $SEALPROV_PLUGIN is the default module; --plugin after the command works too.
"$sealprov" devices -c "$tmp/three.ini" > "$tmp/env.out" || fail "env default"
[ "$(cat "$tmp/env.out")" = "$out" ] || fail "env default differs from --plugin"
"$sealprov" devices --plugin "$SEALPROV_PLUGIN" -c "$tmp/three.ini" --json > "$tmp/json.out"
cat "$tmp/json.out"
grep -q '"devices": \[{"index": 0, "section": "c0", "type": "cpu"' "$tmp/json.out" || fail "json"
grep -q '"section": "c2"' "$tmp/json.out" || fail "json c2"

# The sample configuration names CPU devices only and works on any machine.
"$sealprov" devices -c "$top_srcdir/conf/sealprov.ini" > "$tmp/sample.out" || fail "sample config"
cat "$tmp/sample.out"
sed 1d "$tmp/sample.out" | grep -q ' cpu ' || fail "sample config lists no cpu device"

# check-config: 0 and the table for a good file; 1 with file:line for a bad one.
"$sealprov" check-config "$tmp/three.ini" > "$tmp/check.out" || fail "check-config good"
grep -q "three.ini: OK, 3 devices$" "$tmp/check.out" || fail "check-config summary"
[ "$(awk 'length > 80' "$tmp/check.out" | wc -l)" -eq 0 ] || fail "check-config: a line is wider than 80 columns"
"$sealprov" check-config --wide "$tmp/three.ini" | grep -q '^index  *section .* uuid .* confirmed ' || fail "check-config --wide"
printf '[provider]\nmax_jobs = 4\n[c0]\ntype = gpu-ish\n' > "$tmp/bad.ini"
rc=0
"$sealprov" check-config "$tmp/bad.ini" > "$tmp/bad.out" 2>&1 || rc=$?
cat "$tmp/bad.out"
[ "$rc" -eq 1 ] || fail "check-config bad: exit $rc, expected 1"
grep -q "bad.ini:4" "$tmp/bad.out" || fail "check-config message lacks file:line"
rc=0; "$sealprov" check-config "$tmp/missing.ini" 2> "$tmp/missing.out" || rc=$?
cat "$tmp/missing.out"
# a file that is not there is said once, as such, with how to name another (issue 25)
[ "$rc" -eq 1 ] && grep -q "^sealprov check-config: error: the configuration $tmp/missing.ini (given on the command line): not found; name one with -c INI or SEALPROV_CONFIG=INI\$" "$tmp/missing.out" \
  || fail "missing file"
[ "$(wc -l < "$tmp/missing.out")" -eq 1 ] || fail "missing file: more than the one line"
grep -q "input/output" "$tmp/missing.out" && fail "missing file: reported as an I/O error"
# check-config takes -c like every other command, and the default like them too.
"$sealprov" check-config -c "$tmp/three.ini" > "$tmp/checkc.out" || fail "check-config -c"
grep -q "three.ini: OK, 3 devices" "$tmp/checkc.out" || fail "check-config -c summary"
rc=0; "$sealprov" check-config -c "$tmp/three.ini" "$tmp/bad.ini" > /dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "check-config with -c and an operand: $rc"
# From a build tree, without -c or $SEALPROV_CONFIG: the sample of its sources, as the
# module of the tree is used (not the install prefix's sysconfdir).
env -u SEALPROV_CONFIG "$sealprov" check-config > "$tmp/tree_ini.out" 2>&1 || { cat "$tmp/tree_ini.out"; fail "check-config in the build tree"; }
grep -q "^$(cd "$top_srcdir" && pwd -P)/conf/sealprov.ini: OK" "$tmp/tree_ini.out" \
  || { cat "$tmp/tree_ini.out"; fail "the build tree's sample INI was not the one used"; }
env -u SEALPROV_CONFIG "$sealprov" devices --json > "$tmp/tree_dev.out" || fail "devices in the build tree"
grep -q "\"config\": \"$(cd "$top_srcdir" && pwd -P)/conf/sealprov.ini\"" "$tmp/tree_dev.out" || fail "devices: the build tree's INI"
SEALPROV_CONFIG="$tmp/three.ini" "$sealprov" devices > "$tmp/envini.out" || fail "SEALPROV_CONFIG"
[ "$(sed 1d "$tmp/envini.out" | wc -l)" -eq 3 ] || fail "SEALPROV_CONFIG not used"
rc=0; SEALPROV_CONFIG="$tmp/gone.ini" "$sealprov" devices 2> "$tmp/envgone.out" || rc=$?
[ "$rc" -eq 1 ] && grep -q "the configuration $tmp/gone.ini (from \$SEALPROV_CONFIG): not found" "$tmp/envgone.out" \
  || { cat "$tmp/envgone.out"; fail "SEALPROV_CONFIG naming a missing file"; }

# Usage errors exit 2; a module that is not there exits 1 and says where it looked.
rc=0; "$sealprov" check-config --no-such-option >/dev/null 2>&1 || rc=$?; [ "$rc" -eq 2 ] || fail "check-config unknown option: $rc"
rc=0; "$sealprov" no-such-command >/dev/null 2>&1 || rc=$?; [ "$rc" -eq 2 ] || fail "unknown command: $rc"
rc=0; "$sealprov" > "$tmp/usage.out" 2>&1 || rc=$?; [ "$rc" -eq 2 ] || fail "no command: $rc"
grep -q '^  devices ' "$tmp/usage.out" && grep -q '^  check-config ' "$tmp/usage.out" || fail "usage lists commands"
"$sealprov" --help | grep -q '^usage: sealprov' || fail "--help"
"$sealprov" --version | grep -q '^sealprov [0-9]' || fail "--version"
rc=0; "$sealprov" --plugin "$tmp/none.so" devices -c "$tmp/three.ini" 2> "$tmp/noplugin.out" || rc=$?
cat "$tmp/noplugin.out"
[ "$rc" -eq 1 ] && grep -q "^sealprov devices: error: cannot load the module $tmp/none.so (given with --plugin): not found" "$tmp/noplugin.out" \
  || fail "missing module"
grep -q "looked in: $tmp/none.so" "$tmp/noplugin.out" || fail "missing module: where it looked"
grep -q -- "--plugin PATH or SEALPROV_PLUGIN=PATH" "$tmp/noplugin.out" || fail "missing module: how to name it"
tail -1 "$tmp/noplugin.out" | grep -q "^sealprov devices: error: " || fail "missing module: the error is not the last line"

# Without --plugin or $SEALPROV_PLUGIN, the CLI of a build tree finds the module of that
# tree (../plugin/.libs/sealprov.so next to it), not the install prefix.
env -u SEALPROV_PLUGIN "$sealprov" devices -c "$tmp/three.ini" --json > "$tmp/tree.out" || fail "build-tree module"
grep -q "\"module\": \"$(cd "$top_builddir" && pwd -P)/plugin/.libs/sealprov.so\"" "$tmp/tree.out" \
  || { cat "$tmp/tree.out"; fail "the build tree's module was not the one loaded"; }
# A copy of the program outside any build tree looks in the install prefix and says so.
cp "$sealprov" "$tmp/sealprov-copy"
rc=0; env -u SEALPROV_PLUGIN "$tmp/sealprov-copy" devices -c "$tmp/three.ini" 2> "$tmp/copy.out" || rc=$?
cat "$tmp/copy.out"
if [ "$rc" -eq 1 ]; then
  grep -q "(the installed default)" "$tmp/copy.out" && grep -q "SEALPROV_PLUGIN=PATH" "$tmp/copy.out" \
    || fail "no module in the prefix: message"
else
  echo "note: a module is installed in the prefix; the not-found message was not exercised"
fi

# help: the list, a command's own usage, an unknown command.
"$sealprov" help > "$tmp/help.out" || fail "help"
grep -q '^  inspect ' "$tmp/help.out" && grep -q '^  help ' "$tmp/help.out" || fail "help lists commands"
"$sealprov" help devices | grep -q '^usage: sealprov devices' || fail "help devices"
"$sealprov" help check-config | grep -q -- '--json' || fail "help check-config"
rc=0; "$sealprov" help no-such-command 2> "$tmp/help2.out" >/dev/null || rc=$?
[ "$rc" -eq 2 ] && grep -q "^sealprov help: error: unknown command 'no-such-command'" "$tmp/help2.out" \
  || fail "help of an unknown command"
rc=0; "$sealprov" no-such-command 2> "$tmp/unk.out" >/dev/null || rc=$?
# one line: the error, and where the list is
[ "$(cat "$tmp/unk.out")" = "sealprov: error: unknown command 'no-such-command'; \`sealprov help\` lists the commands" ] \
  || { cat "$tmp/unk.out"; fail "unknown command message"; }
# the same for a command's usage errors: the error, and which help shows the usage, not
# the usage itself
rc=0; "$sealprov" devices --bogus 2> "$tmp/unkopt.out" >/dev/null || rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$tmp/unkopt.out")" = "sealprov devices: error: unknown option '--bogus' (\`sealprov help devices\` shows the usage)" ] \
  || { cat "$tmp/unkopt.out"; fail "unknown option: one line"; }
rc=0; "$sealprov" devices -c 2> "$tmp/noval.out" >/dev/null || rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$tmp/noval.out")" = "sealprov devices: error: -c needs a value (\`sealprov help devices\` shows the usage)" ] \
  || { cat "$tmp/noval.out"; fail "option without its value"; }
rc=0; "$sealprov" bench cpu --bogus 2> "$tmp/unk2.out" >/dev/null || rc=$?
[ "$rc" -eq 2 ] && grep -q "^sealprov bench cpu: error: unknown option '--bogus' (\`sealprov help bench cpu\` shows the usage)\$" "$tmp/unk2.out" \
  || { cat "$tmp/unk2.out"; fail "a two-word command's usage error"; }
# The shared options are the same after every command: -q, -v, --progress, --plugin.
"$sealprov" check-config "$tmp/three.ini" -q > "$tmp/q.out" || fail "check-config -q"
[ ! -s "$tmp/q.out" ] || fail "check-config -q printed a table"
"$sealprov" devices -c "$tmp/three.ini" -v 2> "$tmp/v.err" >/dev/null || fail "devices -v"
grep -q '^sealprov: \[module info\] ' "$tmp/v.err" || fail "-v after the command: no module info lines"
"$sealprov" devices --help | grep -q 'Global options, before or after the command' || fail "--help: the global options"

# check-config --json: one object whether the file is accepted or not.
"$sealprov" check-config --json "$tmp/three.ini" > "$tmp/cj.out" || fail "check-config --json good"
cat "$tmp/cj.out"
grep -q '^{"ok": true, "module": ' "$tmp/cj.out" && grep -q '"section": "c2"' "$tmp/cj.out" \
  || fail "check-config --json content"
rc=0; "$sealprov" check-config --json "$tmp/bad.ini" > "$tmp/cjb.out" 2> "$tmp/cjb.err" || rc=$?
cat "$tmp/cjb.out" "$tmp/cjb.err"
[ "$rc" -eq 1 ] || fail "check-config --json bad: exit $rc"
grep -q '^{"ok": false, .*"status": "configuration error", "error": ".*bad.ini:4: \[c0\] type = \\"gpu-ish\\"' "$tmp/cjb.out" \
  || fail "check-config --json refusal"
grep -q '^sealprov check-config: error: open ' "$tmp/cjb.err" || fail "check-config --json: message on stderr"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' "$tmp/cj.out" "$tmp/cjb.out" "$tmp/json.out" \
    || fail "check-config / devices --json is not valid JSON"
fi
# Messages are valid UTF-8 whatever bytes an argument or file name holds.
bad=$(printf 'x\377y')
rc=0; "$sealprov" check-config "$tmp/$bad.ini" 2> "$tmp/utf8.out" || rc=$?
cat "$tmp/utf8.out"
[ "$rc" -eq 1 ] && grep -q 'x\\xFFy.ini' "$tmp/utf8.out" || fail "a non-UTF-8 file name is not shown as \\xFF"
if command -v iconv >/dev/null 2>&1; then
  iconv -f UTF-8 -t UTF-8 "$tmp/utf8.out" >/dev/null 2>&1 || fail "a message is not valid UTF-8"
  "$sealprov" check-config --json "$tmp/$bad.ini" > "$tmp/utf8.json" 2>/dev/null || true
  iconv -f UTF-8 -t UTF-8 "$tmp/utf8.json" >/dev/null 2>&1 || fail "check-config --json is not valid UTF-8"
  grep -q 'x\\u00ffy.ini' "$tmp/utf8.json" || fail "JSON: the byte is not escaped as \\u00ff"
fi
echo "cli: all checks passed"
