#!/bin/sh
# gpu-throughput.sh OUTDIR [SIZE...] -- issue 6 item 6 on a GPU machine: partitions per
# second for a stream of 10-partition jobs at 2^24 and 2^27 constraints on 1 GPU and on
# 2 GPUs, through the module's scheduler (`sealprov bench gpu --throughput`, built
# without autotools by tests/cuda/standalone.sh, which the GPU machine can run).
# From the top of the source tree, on the 2-GPU machine (`device` tool, nvidia-h200-x2):
#   sh dev/gpu-throughput.sh "$OUT" 24        # builds (minutes on a fresh machine), 2^24
#   sh dev/gpu-throughput.sh "$OUT" 27        # 2^27 (~47 GB of synthetic parameters)
# SIZE defaults to "24 27". Per size, in OUTDIR:
#   throughput-SIZE.json  the benchmark's JSON (also printed at the end)
#   throughput-SIZE.log   its progress and the scheduler's log (device mapping at open)
#   dmon-SIZE.txt         `nvidia-smi dmon -s um` while it ran (utilisation, memory)
#   build.log             the standalone build
# Settable through the environment:
#   BIN          build directory (default _build-tp: git ignores it, so a machine that
#                stays warm keeps its objects between calls)
#   BUILD=0      use "$BIN/bench_gpu" as it is (e.g. carried from another machine) when
#                it runs there; otherwise it is rebuilt anyway
#   KEEP_BIN=1   also copy the built bench_gpu into OUTDIR (to carry it to a later,
#                fresh machine with BUILD=0 instead of rebuilding there)
#   GPUS         GPU counts to run (default 1,2); ORDINALS which GPUs (default 0,1,...)
#   JOBS24, JOBS27, JOBS  timed jobs per size after the warm-up (defaults 3, 1, 2)
#   PARTITIONS   partitions per job (default 10); WORKERS per GPU (default 2)
#   WARMUP       warm-up job partitions (default: one per worker)
#   PINNED       the engine's staging per GPU: auto (default, = chunked) | chunked | whole | off |
#                bytes[K|M|G], or a comma list (each stream once per mode, same data)
#   TOTAL        seconds this call may take in all (default 580: under a 10-minute
#                limit); each size gets what is left, minus 10 s to write up
# Synthetic parameters are random points, not a setup: proofs cannot verify and are
# not self-checked (tests/cuda/test_cuda_engine checks real setups).
set -u
out=${1:?usage: sh dev/gpu-throughput.sh OUTDIR [SIZE...]}
shift
sizes=${*:-24 27}
start=$(date +%s)
total=${TOTAL:-580}
bin=${BIN:-_build-tp}
mkdir -p "$out"

if [ "${BUILD:-1}" = 0 ] && "$bin/bench_gpu" --help > /dev/null 2>&1; then
  echo "== using $bin/bench_gpu as it is (BUILD=0)"
else
  echo "== build ($bin)"
  NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)} \
    sh tests/cuda/standalone.sh "$bin" > "$out/build.log" 2>&1 \
    || { tail -40 "$out/build.log"; echo "build failed"; exit 1; }
  echo "build ok after $(( $(date +%s) - start )) s"
fi
[ "${KEEP_BIN:-0}" = 1 ] && cp "$bin/bench_gpu" "$out/"
nvidia-smi -L 2>/dev/null | tee "$out/gpus.txt"
free -g 2>/dev/null | tee "$out/memory.txt"

rc_all=0
for n in $sizes; do
  case $n in
    24) jobs=${JOBS24:-3} ;;
    27) jobs=${JOBS27:-1} ;;
    *) jobs=${JOBS:-2} ;;
  esac
  left=$(( total - ($(date +%s) - start) - 10 ))
  if [ "$left" -lt 30 ]; then
    echo "== 2^$n: skipped, only $left s left of TOTAL=$total"
    rc_all=1
    continue
  fi
  set -- "$bin/bench_gpu" --json --throughput "$n" --gpus "${GPUS:-1,2}" --jobs "$jobs" \
    --partitions "${PARTITIONS:-10}" --workers "${WORKERS:-2}"
  [ -n "${WARMUP:-}" ] && set -- "$@" --warmup "$WARMUP"
  [ -n "${ORDINALS:-}" ] && set -- "$@" --ordinals "$ORDINALS"
  [ -n "${PINNED:-}" ] && set -- "$@" --pinned-staging "$PINNED"
  echo "== 2^$n: $* (limit $left s)"
  dmon=
  if command -v nvidia-smi > /dev/null 2>&1; then
    nvidia-smi dmon -s um -d 1 > "$out/dmon-$n.txt" 2>&1 &
    dmon=$!
  fi
  s0=$(date +%s)
  # stderr (progress) goes to the log and to this call's output as it happens
  { timeout "$left" "$@" > "$out/throughput-$n.json"; echo $? > "$out/rc-$n"; } 2>&1 \
    | tee "$out/throughput-$n.log"
  rc=$(cat "$out/rc-$n")
  [ -n "$dmon" ] && kill "$dmon" 2>/dev/null
  echo "== 2^$n: rc=$rc after $(( $(date +%s) - s0 )) s"
  [ "$rc" = 124 ] && echo "   stopped by the time limit: lower JOBS$n or run the size alone"
  [ "$rc" = 0 ] || rc_all=1
  cat "$out/throughput-$n.json"
  # one line per run and device, for reading the call's output at a glance
  command -v python3 > /dev/null 2>&1 && python3 - "$out/throughput-$n.json" <<'PY' || true
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit("summary: %s does not parse (%s)" % (sys.argv[1], e))
for r in d.get("results", []):
    if r.get("op") != "throughput":
        continue
    print("2^%d on %d GPU(s): %d partitions in %.2f s = %.4f/s, %s x 1 GPU; steady %.4f/s, "
          "%s x" % (r["log_n"], r["gpus"], r["partitions"], r["seconds"], r["partitions_per_s"],
                    r["ratio_to_1_gpu"], r["steady_partitions_per_s"], r["steady_ratio_to_1_gpu"]))
    for v in r["devices"]:
        print("   device %d (ordinal %d): %d partitions, busy %.1f %%, idle between partitions "
              "%.2f %%, max gap %.1f ms, execute %.0f ms, prepare %.0f ms, resident %s" % (
                  v["device"], v["ordinal"], v["partitions"], 100 * v["busy_fraction"],
                  100 * v["idle_between_partitions_fraction"], v["max_idle_gap_ms"],
                  v["execute_median_ms"], v["prepare_median_ms"], v["params_resident"]))
PY
done
exit $rc_all
