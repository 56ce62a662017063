#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# go_example.sh -- the Go host of examples/go (cgo + include/sealprov.h, dlopen of the
# module): built offline with the Go toolchain when it is installed (skip otherwise),
# then run on parameters and partitions made by `sealprov setup`: it must prove them
# on two CPU devices and verify every proof, refuse proofs against another circuit's
# key, and report a bad module path cleanly.
set -u
: "${top_srcdir:?run through make check}"
: "${top_builddir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
command -v go >/dev/null 2>&1 || { echo "SKIP: go is not installed (apt-get install golang-go)"; exit 77; }
if command -v ldd >/dev/null 2>&1 && ldd "$SEALPROV_PLUGIN" 2>/dev/null | grep -q 'lib[at]san'; then
  echo "SKIP: the module is built with a sanitizer runtime, which a Go program cannot load"
  exit 77
fi
SP=$top_builddir/tools/sealprov
mkdir -p "$top_builddir/tests/examples"
T=$(mktemp -d "$top_builddir/tests/examples/go.XXXXXX") || exit 1
# the Go build cache has read-only files; make them writable before removing
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Offline and self-contained: no modules (only "C" and the standard library), caches
# inside the build tree, no toolchain download, no proxy.
export GOCACHE="$T/gocache" GOPATH="$T/gopath" GO111MODULE=off GOFLAGS= GOPROXY=off \
  GOTOOLCHAIN=local CGO_ENABLED=1
go version
(cd "$top_srcdir/examples/go" && go vet . && go build -o "$T/sealprov-go-example" .) \
  || { echo "FAIL: go build of examples/go"; exit 1; }

cat >"$T/two.ini" <<INI
[provider]
log_level = warn
[cpu0]
type = cpu
[cpu1]
type = cpu
INI
"$SP" setup --constraints 600 --inputs 4 --partitions 3 --seed 11 --out "$T/s" >/dev/null 2>&1 \
  || { echo "FAIL: sealprov setup"; exit 1; }
"$SP" setup --constraints 600 --inputs 4 --partitions 1 --seed 12 --out "$T/o" >/dev/null 2>&1 \
  || { echo "FAIL: sealprov setup (other circuit)"; exit 1; }

EX=$T/sealprov-go-example
"$EX" "$SEALPROV_PLUGIN" "$T/two.ini" "$T/s/circuit.params" "$T/s/circuit.vk" \
  "$T/s/partition-00.spa" "$T/s/partition-01.spa" "$T/s/partition-02.spa" >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ "$rc" -eq 0 ] || fail "the example failed: exit $rc"
grep -q '^module [0-9][^ ]*, ABI 1\.' "$T/out" || fail "version line"
grep -q '^device 1 \[cpu1\] ' "$T/out" || fail "device list"
for i in 0 1 2; do
  grep -q "^partition $i: success, device [01], attempts 1, " "$T/out" || fail "partition $i result"
  grep -q "^proof $i: [0-9a-f]\{32\}\.\.\. valid$" "$T/out" || fail "proof $i does not verify"
done
grep -q '^3 of 3 proofs verify$' "$T/out" || fail "summary"

# The same proofs checked against another circuit's key: not valid, exit 1.
"$EX" "$SEALPROV_PLUGIN" "$T/two.ini" "$T/s/circuit.params" "$T/o/circuit.vk" \
  "$T/s/partition-00.spa" >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ "$rc" -eq 1 ] && grep -q '^proof 0: .* INVALID$' "$T/out" || fail "a proof verified against another key"

# A module that is not there, a partition that does not fit the parameters, bad usage.
rc=0; "$EX" "$T/none.so" "$T/two.ini" "$T/s/circuit.params" "$T/s/circuit.vk" "$T/s/partition-00.spa" \
  >"$T/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "^error: dlopen $T/none.so" "$T/out" || { cat "$T/out"; fail "missing module"; }
rc=0; "$EX" "$SEALPROV_PLUGIN" "$T/two.ini" "$T/o/circuit.params" "$T/o/circuit.vk" "$T/s/partition-00.spa" \
  >"$T/out" 2>&1 || rc=$?
cat "$T/out"
[ "$rc" -eq 1 ] && grep -q '^error: prove: ' "$T/out" || fail "a partition of another circuit was not refused"
grep -q '^partition 0: success' "$T/out" && fail "a refused partition was called a success"
rc=0; "$EX" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "usage: exit $rc"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "go example: all checks passed"
