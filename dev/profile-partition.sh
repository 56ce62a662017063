#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/profile-partition.sh [OUTDIR] -- on the GPU machine: a profile of one sealing-shaped
# 2^SIZE partition and of a short stream of them, from CUPTI's records of every kernel,
# copy, memset and CUDA wait (`sealprov bench gpu --trace`, bench/trace_cupti.c). For the
# partition's execute and for the stream, a table of each engine stage's host time,
# kernel time, GPU busy time, PCIe copies and waits, then the GPU's busy share, idle gaps
# (the largest with the stages on either side) and the kernels by time
# (docs/PERFORMANCE.md, "A partition on the GPU", says what each column is).
#
# One `bench gpu` run on synthetic parameters made on the GPU (no 47 GB file): the
# partition once after its warm-up (--repeat 1, parameters resident with the engine's
# table), then a stream of one job of PARTS partitions through the module's scheduler
# (2 workers, after a warm-up job).
#   BUILD    a build tree, as dev/device-build.sh prints; on the GPU machine (carry .dist
#            and .deb):  B=$(sh dev/device-build.sh) && BUILD=$B sh dev/profile-partition.sh "$OUT"
#   SIZE     log2 of the domain (27); PARTS: the stream's partitions (4; 0: no stream);
#            ORDINAL: the GPU (0)
# OUTDIR (default $OUT, else /tmp/sp-profile) gets profile.txt (the command, the bench's
# lines and the tables: also printed), trace.csv.gz (a row per record and per stage a
# thread was in: window, kind, start_ns and end_ns from the window's start, device,
# stream or thread, stage, bytes, copy direction, kernel name), stderr.txt and gpus.txt.
# Time on an H200: about 35 s to make each of the two synthetic sets, a few seconds of
# warm-up each, the traced runs about 8 s: some 2 minutes.
set -u
out=${1:-${OUT:-/tmp/sp-profile}}
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/_build}
size=${SIZE:-27}
parts=${PARTS:-4}
ordinal=${ORDINAL:-0}
mkdir -p "$out" || exit 1
if [ ! -x "$build/tools/sealprov" ]; then
  echo "profile-partition.sh: no $build/tools/sealprov: set BUILD (B=\$(sh dev/device-build.sh)) or build _build --with-cuda" >&2
  exit 2
fi
command -v nvidia-smi >/dev/null 2>&1 &&
  nvidia-smi --query-gpu=index,name,memory.total,clocks.sm,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current \
    --format=csv,noheader > "$out/gpus.txt" 2>&1
set -- "$build/tools/sealprov" bench gpu --device "$ordinal" --msm-g1 none --msm-g2 none \
  --ntt none --partition "$size" --repeat 1 --trace "$out/trace.csv"
[ "$parts" -gt 0 ] &&
  set -- "$@" --throughput "$size" --gpus 1 --ordinals "$ordinal" --jobs 1 --partitions "$parts"
echo "profile-partition.sh: $*" > "$out/profile.txt"
t0=$(date +%s)
"$@" > "$out/stdout.txt" 2> "$out/stderr.txt"
rc=$?
cat "$out/stdout.txt" >> "$out/profile.txt"
rm -f "$out/stdout.txt"
echo "profile-partition.sh: exit $rc after $(($(date +%s) - t0)) s" >> "$out/profile.txt"
cat "$out/profile.txt"
[ -s "$out/trace.csv" ] && gzip -f "$out/trace.csv"
if [ "$rc" -ne 0 ]; then
  echo "profile-partition.sh: the bench failed; the end of its stderr:" >&2
  tail -5 "$out/stderr.txt" >&2
fi
exit "$rc"
