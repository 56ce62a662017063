#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# go_example.sh -- the Go host of examples/go (cgo + include/sealprov.h, dlopen of the
# module), built and run with the two lines its header shows, exactly as written there
# (the placeholders of the second filled in), when the Go toolchain is installed (skip
# otherwise): it must prove partitions made by `sealprov setup` on two CPU devices and
# verify every proof, refuse proofs against another circuit's key, and report a bad
# module path cleanly.
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

# The header's two lines: the build (run from the top of the repository) and the run
# (from where the build left the shell), both indented by a tab after "//" (the sed
# patterns below hold a literal tab).
src=$top_srcdir/examples/go/main.go
build_line=$(sed -n 's|^//	\(.*go build.*\)$|\1|p' "$src")
run_line=$(sed -n 's|^//	\(\./sealprov-go-example .*\)$|\1|p' "$src")
[ "$(printf '%s\n' "$build_line" | grep -c .)" -eq 1 ] ||
  { echo "FAIL: no single build line (//<tab>... go build ...) in $src: '$build_line'"; exit 1; }
[ "$(printf '%s\n' "$run_line" | grep -c .)" -eq 1 ] ||
  { echo "FAIL: no single run line (//<tab>./sealprov-go-example ...) in $src"; exit 1; }

# The build line runs in a copy of the files it reads, laid out as in the repository
# (the source tree is read-only under make distcheck). The environment is a user's
# (module mode, whatever go.mod says), except that caches stay in the build tree and
# nothing may be downloaded: no proxy, no toolchain switch.
mkdir -p "$T/repo/examples/go" "$T/repo/include"
cp "$top_srcdir/examples/go/main.go" "$top_srcdir/examples/go/go.mod" "$T/repo/examples/go/" &&
  cp "$top_srcdir/include/sealprov.h" "$T/repo/include/" || { echo "FAIL: copy"; exit 1; }
unset GO111MODULE GOFLAGS CGO_ENABLED CGO_LDFLAGS GOWORK
export GOCACHE="$T/gocache" GOPATH="$T/gopath" GOPROXY=off GOTOOLCHAIN=local
go version
echo "build line: $build_line"
(cd "$T/repo" && sh -ec "$build_line") || { echo "FAIL: the build line of $src"; exit 1; }
(cd "$T/repo/examples/go" && go vet .) || fail "go vet of examples/go"
EX=$T/repo/examples/go/sealprov-go-example
test -x "$EX" || { echo "FAIL: the build line made no $EX"; exit 1; }

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

# The run line with its placeholders filled in, from where the build line left the shell.
filled=$(printf '%s\n' "$run_line" | sed -e "s|MODULE\\.so|$SEALPROV_PLUGIN|" \
  -e "s|CONFIG\\.ini|$T/two.ini|" -e "s|CIRCUIT\\.params|$T/s/circuit.params|" \
  -e "s|CIRCUIT\\.vk|$T/s/circuit.vk|" \
  -e "s|PARTITION\\.spa\\.\\.\\.|$T/s/partition-00.spa $T/s/partition-01.spa $T/s/partition-02.spa|")
echo "run line: $filled"
case $filled in *MODULE.so* | *CONFIG.ini* | *CIRCUIT.* | *PARTITION.spa*) echo "FAIL: a placeholder left in: $filled"; exit 1 ;; esac
(cd "$T/repo/examples/go" && sh -c "$filled") >"$T/out" 2>&1
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
