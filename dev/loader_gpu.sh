#!/bin/bash
# dev/loader_gpu.sh [BUILD] [K] -- the direct load (issue 14) on a GPU machine: its
# tests (tests/cuda/test_cuda_load: device bytes == host decode, bad files give the host
# loader's messages, proofs equal), the subgroup kernels against the CPU with variant 2
# (test_cuda_checks), then at 2^K (default 24): a GPU setup, the direct load with every
# check and one proof verified (fullsize), and the same file loaded again with the
# other subgroup kernel variant and through the host path (A/B, same process build).
# BUILD: tests/cuda/standalone.sh's output folder (default .gpu; built when missing).
# Logs under $OUT when it is set.
set -o pipefail
b=${1:-.gpu}
k=${2:-24}
out=${OUT:-/tmp}
dir=${DIR:-/tmp/sp-loader-$k}
cd "$(dirname "$0")/.."
[ -x "$b/test_cuda_load" ] || sh tests/cuda/standalone.sh "$b" >"$out/build.log" 2>&1 || {
  echo "build failed"; tail -20 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
rc=0
echo "== test_cuda_load"
SP_TEST_CPU_THREADS=16 "$b/test_cuda_load" >"$out/test_cuda_load.log" 2>&1 || rc=1
grep -E "FAIL|direct load|checks," "$out/test_cuda_load.log" | tail -20
mkdir -p "$dir"
run() { # run NAME VARIANT ARGS...
  local name=$1 v=$2
  shift 2
  echo "== 2^$k $name (subgroup variant $v)"
  SP_GPU_SG_VARIANT=$v "$b/fullsize" --dir "$dir" --log "$k" --threads 16 --keep "$@" \
    >"$out/f$k-$name.log" 2>&1 || rc=1
  grep -E "^setup|^load|^partition|proofs verify|FAIL" "$out/f$k-$name.log"
}
run direct-v2 2 --partitions 1
run direct-v0 0 --partitions 0 --reuse
run host-v2 2 --partitions 0 --reuse --load host
echo "== test_cuda_checks, subgroup variant 2"
SP_GPU_SG_VARIANT=2 "$b/test_cuda_checks" >"$out/test_cuda_checks_v2.log" 2>&1 || rc=1
grep -E "FAIL|checks," "$out/test_cuda_checks_v2.log" | tail -8
[ -n "$KEEP" ] || rm -rf "$dir"
exit $rc
