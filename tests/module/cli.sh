#!/bin/sh
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

# devices: one row per section, in INI order, with the columns the issue names.
out=$("$sealprov" --plugin "$SEALPROV_PLUGIN" devices -c "$tmp/three.ini")
echo "$out"
echo "$out" | head -1 | grep -q '^index  *section  *type  *name  *uuid  *pci  *numa  *cpus  *pcie  *ordinal  *confirmed  *workers  *cc  *code  *state$' \
  || fail "header"
[ "$(echo "$out" | sed 1d | awk '{ print $1 ":" $2 ":" $3 }' | tr '\n' ' ')" = "0:c0:cpu 1:c1:cpu 2:c2:cpu " ] \
  || fail "rows"
echo "$out" | grep -q '^1  *c1  *cpu .* 2  *-  *-  *ready$' || fail "workers/state of c1"

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
grep -q "three.ini: OK, 3 device(s)" "$tmp/check.out" || fail "check-config summary"
printf '[provider]\nmax_jobs = 4\n[c0]\ntype = gpu-ish\n' > "$tmp/bad.ini"
rc=0
"$sealprov" check-config "$tmp/bad.ini" > "$tmp/bad.out" 2>&1 || rc=$?
cat "$tmp/bad.out"
[ "$rc" -eq 1 ] || fail "check-config bad: exit $rc, expected 1"
grep -q "bad.ini:4" "$tmp/bad.out" || fail "check-config message lacks file:line"
rc=0; "$sealprov" check-config "$tmp/missing.ini" 2> "$tmp/missing.out" || rc=$?
[ "$rc" -eq 1 ] && grep -q "missing.ini" "$tmp/missing.out" || fail "missing file"

# Usage errors exit 2; a module that is not there exits 1 and says where it looked.
rc=0; "$sealprov" check-config >/dev/null 2>&1 || rc=$?; [ "$rc" -eq 2 ] || fail "check-config without file: $rc"
rc=0; "$sealprov" no-such-command >/dev/null 2>&1 || rc=$?; [ "$rc" -eq 2 ] || fail "unknown command: $rc"
rc=0; "$sealprov" > "$tmp/usage.out" 2>&1 || rc=$?; [ "$rc" -eq 2 ] || fail "no command: $rc"
grep -q '^  devices ' "$tmp/usage.out" && grep -q '^  check-config ' "$tmp/usage.out" || fail "usage lists commands"
"$sealprov" --help | grep -q '^usage: sealprov' || fail "--help"
"$sealprov" --version | grep -q '^sealprov [0-9]' || fail "--version"
rc=0; "$sealprov" --plugin "$tmp/none.so" devices -c "$tmp/three.ini" 2> "$tmp/noplugin.out" || rc=$?
cat "$tmp/noplugin.out"
[ "$rc" -eq 1 ] && grep -q "^sealprov devices: error: cannot load the module $tmp/none.so (given with --plugin)" "$tmp/noplugin.out" \
  || fail "missing module"
grep -q "looked in: $tmp/none.so" "$tmp/noplugin.out" || fail "missing module: where it looked"
grep -q -- "--plugin PATH or SEALPROV_PLUGIN=PATH" "$tmp/noplugin.out" || fail "missing module: how to name it"

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
grep -q "^sealprov: error: unknown command 'no-such-command'; \`sealprov help\` lists the commands" "$tmp/unk.out" \
  || { cat "$tmp/unk.out"; fail "unknown command message"; }

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
