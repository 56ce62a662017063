#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# gpu-budget.sh check|bench|stream [OUTDIR] -- a partition under a device memory budget
# (`memory_limit` standing in for a smaller card) on one GPU: the CUDA engine's memory
# plan (cuda/backend/plan.c) and its streaming through a bounded ring of page-locked
# chunks (cuda/backend/upload.c, tail.c).
#   check   the GPU tests: test_cuda_engine --full (every size proved under the exact
#           need of each plan tier, and with a prefix of the set kept on the device,
#           against the CPU engine's proof bytes) and test_cuda_kernels (the MSM under a
#           scratch cap, the two-vector H). Both print "N checks, 0 failures".
#   bench   `bench gpu` of a sealing-shaped 2^SIZE partition (default 27) on synthetic
#           parameters made on the GPU (no 47 GB file, no .spa), tables off and on, with
#           no limit and under each of LIMITS (default 24G,16G,12G), on the same data:
#           the execute times, the plan, the device peak, the module's host memory peak
#           and the bytes sent to the device per partition, as JSON in OUTDIR/bench.json
#           and one line per result on stdout.
#   stream  the same partition with no limit and the set streamed (--stream): the cost of
#           streaming alone, for the bytes-per-second figure of the copy.
# The programs: BUILD (a build tree, as dev/device-build.sh prints: on the GPU machine,
# carry .dist and .deb and run  B=$(sh dev/device-build.sh) && BUILD=$B sh dev/gpu-budget.sh
# check "$OUT"), else this tree's _build (a --with-cuda build): BUILD/tools/sealprov
# bench gpu and BUILD/tests/cuda/. Time on an H200: check a few minutes; bench about
# 35 s to make the parameters, then some 2 s a run (4 runs a variant, 2 variants, 4
# limits). Settable: SIZE, LIMITS, REPEAT (3), THREADS (8, as with 2 workers on 16 CPUs),
# ORDINAL (0), PLAN (a tier of the plan instead of the engine's choice: bench gpu --plan;
# e.g. LIMITS=24G PLAN=3 keeps more of the set on the device for fewer vectors at once),
# TAG (file name, default the mode).
set -u
mode=${1:-bench}
out=${2:-${OUT:-/tmp/sp-budget}}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
size=${SIZE:-27}
limits=${LIMITS:-24G,16G,12G}
repeat=${REPEAT:-3}
threads=${THREADS:-8}
ordinal=${ORDINAL:-0}
build=${BUILD:-$top/_build}
if [ ! -x "$build/tools/sealprov" ]; then
  echo "gpu-budget.sh: no $build/tools/sealprov: set BUILD (B=\$(sh dev/device-build.sh)) or build _build --with-cuda" >&2
  exit 2
fi
set -- "$build/tools/sealprov" bench gpu
tests=$build/tests/cuda
command -v nvidia-smi >/dev/null 2>&1 &&
  nvidia-smi --query-gpu=index,name,memory.total,pcie.link.gen.current,pcie.link.width.current \
    --format=csv,noheader > "$out/gpus.txt" 2>&1
# one line per partition result of the JSON: limit, tables, plan, times, peaks, bytes
summary() {
  tr -d '\n' < "$1" | sed 's/{"op"/\n{"op"/g' | grep '"op": "partition"' | awk '
    function get(k,   s) {
      if (!match($0, "\"" k "\": \"?[^,\"}]*")) return "?"
      s = substr($0, RSTART, RLENGTH); sub(/^[^:]*: "?/, "", s); return s
    }
    { printf "limit %s tables %s: execute median %s ms (min %s), streamed %s, oom retries %s, " \
        "tier %s (needs %s), device peak %s, module host peak %s, prefix %s, pcie %s bytes\n",
        get("memory_limit_bytes"), get("precompute"), get("median_ms"), get("min_ms"),
        get("streamed"), get("oom_retries"), get("plan_tier"), get("plan_need_bytes"),
        get("device_peak_bytes"), get("module_host_peak_bytes"), get("resident_prefix_bytes"),
        get("pcie_bytes") }'
}
case "$mode" in
  check)
    rc=0
    "$tests/test_cuda_engine" --full > "$out/test_cuda_engine.log" 2>&1 || rc=1
    tail -1 "$out/test_cuda_engine.log"
    grep -E '^FAIL|budget|prefix' "$out/test_cuda_engine.log" | head -60
    "$tests/test_cuda_kernels" > "$out/test_cuda_kernels.log" 2>&1 || rc=1
    tail -1 "$out/test_cuda_kernels.log"
    grep -E '^FAIL' "$out/test_cuda_kernels.log" | head -20
    exit $rc
    ;;
  bench | stream)
    if [ "$mode" = bench ] && [ -n "${PLAN:-}" ]; then
      extra="--memory-limit $limits --plan $PLAN"
    elif [ "$mode" = bench ]; then
      extra="--memory-limit none,$limits"
    else
      extra="--stream"
    fi
    tag=${TAG:-$mode}
    "$@" --json --device "$ordinal" --msm-g1 none --msm-g2 none --ntt none --partition "$size" \
      --repeat "$repeat" --threads "$threads" --precompute off,on $extra \
      > "$out/$tag.json" 2> "$out/$tag.log"
    rc=$?
    summary "$out/$tag.json" | tee "$out/$tag.txt"
    [ $rc -eq 0 ] || tail -5 "$out/$tag.log"
    exit $rc
    ;;
  *)
    echo "usage: gpu-budget.sh check|bench|stream [OUTDIR]" >&2
    exit 2
    ;;
esac
