#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/loader_gpu.sh [BUILD] [K] -- the direct load on a GPU machine: its
# tests (tests/cuda/test_cuda_load: device bytes == host decode, bad files give the host
# loader's messages, proofs equal), the subgroup kernels against the CPU
# (test_cuda_checks), then at 2^K (default 24): a GPU setup, the direct load with every
# check and one proof verified (fullsize), and the same file loaded again directly and
# through the host path (A/B, same build). The module has one subgroup kernel a group
# (docs/PERFORMANCE.md, "Decisions", says which forms lost).
# BUILD: a CUDA build directory (default: dev/device-build.sh's, built when not given).
# Logs under $OUT when it is set.
set -o pipefail
k=${2:-24}
out=${OUT:-/tmp}
dir=${DIR:-/tmp/sp-loader-$k}
cd "$(dirname "$0")/.."
b=${1:-}
[ -n "$b" ] || b=$(OUT=$out sh dev/device-build.sh) || exit 1
t=$b/tests/cuda
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
rc=0
echo "== test_cuda_load"
SP_TEST_CPU_THREADS=16 "$t/test_cuda_load" >"$out/test_cuda_load.log" 2>&1 || rc=1
grep -E "FAIL|direct load|checks," "$out/test_cuda_load.log" | tail -20
mkdir -p "$dir"
run() { # run NAME ARGS...
  local name=$1
  shift
  echo "== 2^$k $name"
  "$t/fullsize" --dir "$dir" --log "$k" --threads 16 --keep "$@" \
    >"$out/f$k-$name.log" 2>&1 || rc=1
  grep -E "^setup|^load|^partition|proofs verify|FAIL" "$out/f$k-$name.log"
}
run direct --partitions 1
run direct-again --partitions 0 --reuse
run host --partitions 0 --reuse --load host
echo "== test_cuda_checks"
"$t/test_cuda_checks" >"$out/test_cuda_checks.log" 2>&1 || rc=1
grep -E "FAIL|checks," "$out/test_cuda_checks.log" | tail -8
[ -n "$KEEP" ] || rm -rf "$dir"
exit $rc
