#!/bin/sh
# The ABI example of docs/abi.md (docs/examples/minimal_host.c, built by make check)
# against the built module with a CPU-only INI.
set -eu
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
host=${top_builddir:?}/tests/module/minimal_host
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$tmp/cpu.ini" <<'INI'
[cpu0]
type = cpu
[cpu1]
type = cpu
workers = 2
INI
out=$("$host" "$SEALPROV_PLUGIN" "$tmp/cpu.ini")
echo "$out"
echo "$out" | grep -q '^module [0-9][^ ]*, ABI 1\.' || fail "version line"
echo "$out" | grep -q "^device 0 \[cpu0\] cpu '.*' ordinal -1 confirmed -1 workers 1 ready$" || fail "cpu0"
echo "$out" | grep -q "^device 1 \[cpu1\] cpu '.*' ordinal -1 confirmed -1 workers 2 ready$" || fail "cpu1"
echo "$out" | grep -q '^stats: [0-9]* bytes, first line: # HELP sealprov_' || fail "stats"

printf '[cpu0]\ntype = cpu\nworkers = none\n' > "$tmp/bad.ini"
rc=0; "$host" "$SEALPROV_PLUGIN" "$tmp/bad.ini" 2> "$tmp/err" || rc=$?
cat "$tmp/err"
[ "$rc" -eq 1 ] && grep -q '^open: configuration error: .*bad.ini:3' "$tmp/err" || fail "bad INI"
rc=0; "$host" 2>/dev/null || rc=$?; [ "$rc" -eq 2 ] || fail "usage"
echo "minimal_host: all checks passed"
