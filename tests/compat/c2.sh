#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# c2.sh -- libsealprov_c2 through a supraseal-c2-style caller (c2_host): a 10-partition
# job made by `sealprov setup`, proved on two CPU devices through the upstream and
# current Curio entry points (the split API included), every proof equal to the
# vtable's and verified; bad input, and handles passed again after they ended, give
# error structs; a missing module or INI is reported through create_SRS. The Rust
# callers are tests/compat/c2_rust.sh.
set -u
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
SP="$top_builddir/tools/sealprov"
HOST="$top_builddir/tests/compat/c2_host"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
test -x "$HOST" || { echo "SKIP: $HOST not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_c2_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$T/two.ini" <<INI
[provider]
log_level = warn
[cpu0]
type = cpu
threads = 1
[cpu1]
type = cpu
threads = 1
INI

"$SP" setup --constraints 300 --inputs 4 --partitions 10 --seed 11 --out "$T/p" >"$T/setup.out" 2>&1 ||
  { cat "$T/setup.out"; echo "FAIL: sealprov setup"; exit 1; }

SEALPROV_CONFIG="$T/two.ini" "$HOST" "$T/p" || fail "c2_host (see above)"

# callers on four threads against a queue of one job: every call waits for room
cat >"$T/one.ini" <<INI
[provider]
log_level = warn
max_jobs = 1
[cpu0]
type = cpu
threads = 1
[cpu1]
type = cpu
threads = 1
INI
SEALPROV_CONFIG="$T/one.ini" "$HOST" --concurrent "$T/p" || fail "c2_host --concurrent (see above)"

# Curio's gpu_index (SEALPROV_C2_ARGS=8: the host passes 8 arguments). The INI has no
# CUDA devices, so gpu_index is the index in the device table; the library's info lines
# say where every partition of each job ran.
SEALPROV_C2_ARGS=8 SEALPROV_C2_LOG_LEVEL=info SEALPROV_CONFIG="$T/two.ini" \
  "$HOST" --pin "$T/p" >"$T/pin.out" 2>"$T/pin.err" ||
  { cat "$T/pin.out" "$T/pin.err"; fail "c2_host --pin"; }
ran() { # LOG FN GPU_INDEX DEVICES: every job of FN with that gpu_index ran its 10
        # partitions on DEVICES
  lines=$(grep "^sealprov_c2: $2: job [0-9]*: gpu_index $3 -> " "$1")
  [ -n "$lines" ] || { fail "no $2 job with gpu_index $3 in the library's log"; return; }
  echo "$lines" | grep -v "10 partition(s) ran on device(s) $4\$" &&
    fail "$2: gpu_index $3: a job ran elsewhere than on device(s) $4"
  return 0
}
ran "$T/pin.err" generate_groth16_proofs_c 0 0
ran "$T/pin.err" generate_groth16_proofs_c 1 1
grep -q '^sealprov_c2: generate_groth16_proofs_c: job [0-9]*: gpu_index 0 -> device 0 \[cpu0\] (no CUDA devices: gpu_index is the table index)' "$T/pin.err" ||
  fail "gpu_index 0 was not mapped to device 0 [cpu0]"
grep -q '^sealprov_c2: generate_groth16_proofs_c: job [0-9]*: gpu_index -1 -> any device: 10 partition(s) ran on device(s) [01]' "$T/pin.err" ||
  fail "gpu_index -1 did not run on any device"
# 0 and 1 twice each (with and without a mutex), the two threads, and once after the errors
[ "$(grep -c 'generate_groth16_proofs_c: .*gpu_index [01] -> device' "$T/pin.err")" -eq 7 ] ||
  { grep 'sealprov_c2:' "$T/pin.err"; fail "expected 7 pinned jobs in the library's log"; }
printf '%s\n' "$(grep -c 'ran on device' "$T/pin.err") jobs logged by the library"

# The split API's gpu_index is always read (every released Curio passes it), with
# SEALPROV_C2_ARGS unset; its jobs are logged when finalize ends them.
SEALPROV_C2_LOG_LEVEL=info SEALPROV_CONFIG="$T/two.ini" \
  "$HOST" --pin-split "$T/p" >"$T/split.out" 2>"$T/split.err" ||
  { cat "$T/split.out" "$T/split.err"; fail "c2_host --pin-split"; }
ran "$T/split.err" finalize_groth16_proof_c 0 0
ran "$T/split.err" finalize_groth16_proof_c 1 1
grep -q '^sealprov_c2: finalize_groth16_proof_c: job [0-9]*: gpu_index -1 -> any device: 10 partition(s) ran on device(s) [01]' "$T/split.err" ||
  fail "split API: gpu_index -1 did not run on any device"

# A daemon's per-proof child (create_SRS, one 6-argument call). With
# SEALPROV_C2_LOG_LEVEL=info, create_SRS says once who proves: sealprov's version, the
# module and library files, every device; at the default level it says nothing.
SEALPROV_C2_LOG_LEVEL=info SEALPROV_CONFIG="$T/two.ini" \
  "$HOST" --child "$T/p" >"$T/child.out" 2>"$T/child.err" ||
  { cat "$T/child.out" "$T/child.err"; fail "c2_host --child"; }
who=$(grep '^sealprov_c2: create_SRS ' "$T/child.err")
echo "$who"
echo "$who" | grep -q "^sealprov_c2: create_SRS $T/p/circuit.params: sealprov [0-9][^ ]* (module $SEALPROV_PLUGIN; libsealprov_c2 [0-9][^ ]* /[^ ]*/libsealprov_c2\.so[.0-9]*), 2 device(s): \[cpu0\] cpu; \[cpu1\] cpu\$" ||
  { cat "$T/child.err"; fail "create_SRS did not log who proves (version, module, devices)"; }
[ "$(echo "$who" | wc -l)" -eq 1 ] || fail "create_SRS logged who proves more than once"
SEALPROV_CONFIG="$T/two.ini" "$HOST" --child "$T/p" >"$T/child.out" 2>"$T/child.err" ||
  { cat "$T/child.out" "$T/child.err"; fail "c2_host --child (log level warn)"; }
grep -q 'create_SRS' "$T/child.err" && { cat "$T/child.err"; fail "create_SRS logged at warn"; }

# Handles passed again after they ended (a dropped SRS, a destroyed mutex, a finished
# pending proof) and evict/clone racing drop: error structs or ignored calls with a
# warning, never a read of freed memory (dev/run test-san runs this under ASan, TSan).
SEALPROV_CONFIG="$T/two.ini" "$HOST" --stale "$T/p" >"$T/stale.out" 2>"$T/stale.err" ||
  { cat "$T/stale.out" "$T/stale.err"; fail "c2_host --stale"; }
cat "$T/stale.out"
for w in "drop_SRS: .* is not a live SRS (dropped twice?): ignored" \
         "evict_SRS: .* is not a live SRS (dropped already?): ignored" \
         "clone_SRS: .* is not a live SRS (dropped already?): an empty SRS returned" \
         "destroy_gpu_mutex: .* is not a mutex from create_gpu_mutex (destroyed twice?): ignored" \
         "destroy_pending_proof: .* is not a pending proof (finalized or destroyed already?): ignored"; do
  grep -q "^sealprov_c2: $w" "$T/stale.err" || { cat "$T/stale.err"; fail "no warning '$w'"; }
done

# a wrong SEALPROV_C2_ARGS: reported at load and by every synchronous call
SEALPROV_C2_ARGS=9 SEALPROV_CONFIG="$T/two.ini" \
  "$HOST" --sync-error "$T/p/circuit.params" "SEALPROV_C2_ARGS = '9' is not 6" 2>"$T/args.err" ||
  { cat "$T/args.err"; fail "SEALPROV_C2_ARGS=9"; }
grep -q "^sealprov_c2: load: SEALPROV_C2_ARGS = '9' is not 6" "$T/args.err" ||
  { cat "$T/args.err"; fail "SEALPROV_C2_ARGS=9 not reported at load"; }

# the module and the INI come from the environment; a wrong one is an error struct
SEALPROV_PLUGIN="$T/none.so" SEALPROV_CONFIG="$T/two.ini" \
  "$HOST" --load-error "$T/p/circuit.params" "SEALPROV_PLUGIN" || fail "missing module"
SEALPROV_CONFIG="$T/none.ini" \
  "$HOST" --load-error "$T/p/circuit.params" "SEALPROV_CONFIG" || fail "missing INI"
printf '[cpu0]\ntype = cpu\nworkers = none\n' >"$T/bad.ini"
SEALPROV_CONFIG="$T/bad.ini" \
  "$HOST" --load-error "$T/p/circuit.params" "bad.ini:3" || fail "bad INI"

# SEALPROV_C2_OPEN_AT_LOAD=1 opens the provider when the library loads (before main):
# a bad INI is reported from there; a good one opens quietly and serves the calls.
SEALPROV_C2_OPEN_AT_LOAD=1 SEALPROV_CONFIG="$T/bad.ini" \
  "$HOST" --load-error "$T/p/circuit.params" "bad.ini:3" 2>"$T/load.err" || fail "open at load, bad INI"
grep -q '^sealprov_c2: load: cannot open the sealprov provider .*bad.ini:3' "$T/load.err" ||
  { cat "$T/load.err"; fail "SEALPROV_C2_OPEN_AT_LOAD=1 did not open the provider at load"; }
SEALPROV_C2_OPEN_AT_LOAD=1 SEALPROV_CONFIG="$T/two.ini" \
  "$HOST" --load-error "$T/p/no-such.params" "no-such.params" >"$T/load.out" 2>&1 ||
  { cat "$T/load.out"; fail "SEALPROV_C2_OPEN_AT_LOAD=1 with a good INI"; }
grep -q 'sealprov_c2: load:' "$T/load.out" &&
  { cat "$T/load.out"; fail "SEALPROV_C2_OPEN_AT_LOAD=1 failed with a good INI"; }

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all libsealprov_c2 checks passed"
