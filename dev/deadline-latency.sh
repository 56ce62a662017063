#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# deadline-latency.sh [OUTDIR] -- an urgent job's wait on one GPU (the H200 of the
# `device` tool): how long a high-priority one-partition job (a WinningPoSt) waits when it is
# submitted during a stream of 2^27 PoRep partitions. It runs `bench gpu --throughput
# --urgent-after`: the module's scheduler and CUDA engine (plugin/runtime/ sched.c,
# queue.c, pool.c; cuda/) on an in-memory device table of one GPU with 2 workers, the
# synthetic 2^27 parameter set made on the GPU (no 47 GB file), a warm-up job, then one
# job of PARTITIONS partitions at priority 0 and, once URGENT_AFTER of them are done, a
# one-partition job at priority 100. Output: the benchmark's JSON (OUTDIR/deadline.json,
# also on stdout), whose "urgent" object has queued_to_start_ms (a worker took it: the
# next partition boundary), queued_to_execute_ms (it had the GPU), queued_to_done_ms,
# stream_execute_median_ms and start_within_one_execute; the log is OUTDIR/deadline.log.
# The same question through the module loaded by dlopen, with a real 2^27 setup:
# `sealprov soak --big-urgent-after K` (dev/soak.sh gpu-long big runs it).
#
# Time: about 70 s on an H200 (35 s to make the synthetic parameters, a warm-up of two
# partitions that uploads them, 6 partitions of ~1.5 s); the script stops it at TOTAL.
#
# The program: BENCH (a command line), else BUILD/tools/sealprov bench gpu (a --with-cuda
# build; BUILD default _build). On the GPU machine, from the release tarball in .dist/
# and the packages in .deb/ (dev/device-build.sh says how; its build takes minutes):
#   BUILD=$(sh dev/device-build.sh) sh dev/deadline-latency.sh "$OUT"
# Settable: SIZE (log2, default 27), PARTITIONS (6), URGENT_AFTER (2), WORKERS (2),
# ORDINAL (0), TOTAL (seconds, default 200).
set -u
out=${1:-${OUT:-/tmp/sp-deadline}}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
size=${SIZE:-27}
parts=${PARTITIONS:-6}
after=${URGENT_AFTER:-2}
workers=${WORKERS:-2}
ordinal=${ORDINAL:-0}
total=${TOTAL:-200}
if [ -n "${BENCH:-}" ]; then
  set -- $BENCH
elif [ -x "${BUILD:-$top/_build}/tools/sealprov" ]; then
  set -- "${BUILD:-$top/_build}/tools/sealprov" bench gpu
else
  echo "deadline-latency.sh: no benchmark: set BUILD to a --with-cuda build (dev/device-build.sh) or BENCH" >&2
  exit 2
fi
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv,noheader > "$out/gpus.txt" 2>&1
t0=$(date +%s)
timeout "$total" "$@" --json --throughput "$size" --gpus 1 --ordinals "$ordinal" --jobs 1 \
  --partitions "$parts" --workers "$workers" --urgent-after "$after" \
  > "$out/deadline.json" 2> "$out/deadline.log"
rc=$?
cat "$out/deadline.json"
echo
echo "deadline-latency.sh: exit $rc after $(( $(date +%s) - t0 )) s; log $out/deadline.log" >&2
[ $rc -eq 0 ] || tail -20 "$out/deadline.log" >&2
exit $rc
