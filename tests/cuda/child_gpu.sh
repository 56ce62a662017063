#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# child_gpu.sh -- a sealing daemon's per-proof child on a real GPU: started with
# CUDA_VISIBLE_DEVICES=0, it reads one INI written for the whole host, by UUID, that
# names this GPU and a second one the machine does not have.
#   - with [provider] unseen_gpus = skip: check-config and devices show the GPU bound
#     (ordinal 0, confirmed 0) and the absent one skipped; the child's calls through
#     libsealprov_c2 (create_SRS, one 6-argument generate_groth16_proofs_c) give the
#     proofs a CPU device gives for the same r and s, and verify; create_SRS's INFO
#     line names the module and this GPU; `sealprov prove --zero-rs` on the GPU writes
#     the same bytes as on the CPU;
#   - without it: open fails naming the absent GPU (check-config, and create_SRS).
# Exits 77 (SKIP) when this process sees no GPU.
set -u
: "${top_builddir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
SP="$top_builddir/tools/sealprov"
HOST="$top_builddir/tests/compat/c2_host"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
test -x "$HOST" || { echo "SKIP: $HOST not built"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_childgpu_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { # FILE TEXT
  grep -qF -- "$2" "$1" || { cat "$1"; fail "no \"$2\" in $(basename "$1")"; }
}
export CUDA_VISIBLE_DEVICES=0

# the GPU this child sees, as the module reports it
printf '[provider]\nlog_level = warn\n[g]\ntype = cuda\ndevice = 0\n' >"$T/probe.ini"
if ! "$SP" devices --json -c "$T/probe.ini" >"$T/probe.json" 2>"$T/probe.err"; then
  if grep -q "sees no GPU\|has no CUDA engine" "$T/probe.err"; then
    echo "SKIP: no GPU visible with CUDA_VISIBLE_DEVICES=0"
    exit 77
  fi
  cat "$T/probe.err"
  echo "FAIL: sealprov devices with device = 0"
  exit 1
fi
REAL=$(sed -n 's/.*"uuid": "\(GPU-[0-9a-f-]*\)".*/\1/p' "$T/probe.json")
[ -n "$REAL" ] || { cat "$T/probe.json"; echo "FAIL: no UUID in devices --json"; exit 1; }
ABSENT=GPU-5ea1b0c5-0000-4000-8000-00000000abcd
echo "this GPU: $REAL; the absent one: $ABSENT"

body() {
  printf '[gpuAbsent]\ntype = cuda\ndevice = uuid=%s\n' "$ABSENT"
  printf '[gpuReal]\ntype = cuda\ndevice = uuid=%s\n' "$REAL"
}
{ printf '[provider]\nunseen_gpus = skip\n'; body; } >"$T/host.ini"
body >"$T/plain.ini"
printf '[provider]\nlog_level = warn\n[cpu0]\ntype = cpu\n[cpu1]\ntype = cpu\n' >"$T/cpu.ini"

"$SP" check-config -c "$T/host.ini" >"$T/check.out" 2>&1 || fail "check-config with skip"
cat "$T/check.out"
has "$T/check.out" "host.ini: OK, 1 device, 1 section skipped"
has "$T/check.out" "skipped [gpuAbsent] device = uuid=$ABSENT: this process does not see that GPU (CUDA_VISIBLE_DEVICES=0"
"$SP" devices --json -c "$T/host.ini" >"$T/devices.json" 2>&1 || fail "devices --json"
has "$T/devices.json" "{\"index\": 0, \"section\": \"gpuReal\", \"type\": \"cuda\""
has "$T/devices.json" "\"uuid\": \"$REAL\""
has "$T/devices.json" '"ordinal": 0, "confirmed_ordinal": 0'
has "$T/devices.json" "\"skipped\": [{\"section\": \"gpuAbsent\", \"selector\": \"uuid=$ABSENT\"}]"

# the child's calls, as Curio's `curio ffi` makes them through upstream's crate
"$SP" setup --constraints 4000 --inputs 4 --partitions 10 --seed 33 --out "$T/p" >"$T/setup.out" 2>&1 ||
  { cat "$T/setup.out"; echo "FAIL: sealprov setup"; exit 1; }
SEALPROV_CONFIG="$T/host.ini" SEALPROV_C2_REF_CONFIG="$T/cpu.ini" SEALPROV_C2_LOG_LEVEL=info \
  "$HOST" --child "$T/p" >"$T/child.out" 2>"$T/child.err" ||
  { cat "$T/child.out" "$T/child.err"; fail "c2_host --child on the GPU"; }
cat "$T/child.out"
grep '^sealprov_c2: create_SRS \|skipped \[' "$T/child.err"
has "$T/child.err" "1 device(s): [gpuReal] cuda ordinal 0"
has "$T/child.err" "$REAL"
has "$T/child.err" "skipped [gpuAbsent]"

# the same partitions through the CLI, r = s = 0: the GPU's bytes are the CPU's
spa=$(ls "$T/p"/partition-*.spa)
# shellcheck disable=SC2086
"$SP" prove -c "$T/host.ini" --zero-rs --params "$T/p/circuit.params" --out "$T/gpu.proofs" $spa \
  >"$T/prove.out" 2>&1 || { cat "$T/prove.out"; fail "prove on the GPU"; }
# shellcheck disable=SC2086
"$SP" prove -c "$T/cpu.ini" --zero-rs --params "$T/p/circuit.params" --out "$T/cpu.proofs" $spa \
  >"$T/prove-cpu.out" 2>&1 || { cat "$T/prove-cpu.out"; fail "prove on the CPU"; }
cmp "$T/gpu.proofs" "$T/cpu.proofs" || fail "the GPU's proofs differ from the CPU's"

# without unseen_gpus = skip (error, the default) the same INI fails at open
"$SP" check-config -c "$T/plain.ini" >"$T/plain.out" 2>&1 && fail "check-config without skip passed"
has "$T/plain.out" "[gpuAbsent] device = \"uuid=$ABSENT\": GPU not present"
SEALPROV_CONFIG="$T/plain.ini" "$HOST" --load-error "$T/p/circuit.params" "GPU not present" ||
  fail "create_SRS without skip did not fail with \"GPU not present\""

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "a child with CUDA_VISIBLE_DEVICES=0 proved on $REAL and skipped the absent GPU"
