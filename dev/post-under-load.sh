#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/post-under-load.sh [OUTDIR] -- on the GPU machine: a WinningPoSt's latency from
# submit to proof through libsealprov_c2's split API (generate_groth16_proofs_start_c
# with gpu_mtx and gpu_index, finalize_groth16_proof_c: the calls of Curio's cuzk)
# while a stream of PoRep partitions runs on the same GPU through the same API, next to
# its latency on the idle GPU, and the stream's partitions/s with and without the PoSts.
# It runs tests/compat/c2_post_load (its head says what it does) in one process:
#   1. a sealing-shaped PoRep set of domain 2^SIZE (0.97 x 2^SIZE constraints, 328
#      public inputs besides ONE: dev/fullsize.sh's circuit) and a WinningPoSt-shaped
#      set (372,790 constraints with the input constraints, 68 inputs with ONE, 2^19),
#      INSECURE setups with the points on the GPU, written to DIR (2^27: 49.2 GB); one
#      witness of each in memory (the PoRep one on a thread of its own while the files
#      are written)
#   2. create_SRS of both on a provider of one [gpu0] (CUDA ordinal ORDINAL), with
#      validation records in DIR/records
#   3. MODE=cuzk (default): 2 GPU workers sharing one mutex from create_gpu_mutex, one
#      PoRep partition a call, each PoSt first in the host's queue (cuzk's ordering);
#      MODE=jobs: 2 threads calling start with jobs of 10 partitions, each PoSt started
#      at once on its own thread (a host without a queue: the module's order, FIFO)
#   4. warm-up; POSTS PoSts on the idle GPU; the stream, then POSTS PoSts once BEFORE of
#      its partitions are proved, GAP_MS apart; the stream alone; every proof verified
# Output: OUTDIR/post-under-load.json (also on stdout), the log OUTDIR/post-under-load.log,
# whose last line is the summary (also on stderr).
#
# The program: BUILD, a build tree of the release tarball (on the GPU machine, carry .dist
# and .deb: B=$(sh dev/device-build.sh) && BUILD=$B sh dev/post-under-load.sh "$OUT"),
# else this tree's _build (a --with-cuda build).
# Time on an H200 at SIZE=27, expected from docs/PERFORMANCE.md's figures (not run yet):
# circuit 20 s, the setup (84 s) and the PoRep witness (88 s) side by side, the checked
# load 18 s, then one to two minutes of proofs: about 3.5 minutes in all; SIZE=25 about
# 1. The script stops it at TOTAL. A second run finds DIR's files of the first
# (DIR/porep.made) and saves the setup.
# Settable: SIZE (log2 of the PoRep domain, 10..27, default 27), DIR (default
# /tmp/sp-post), ORDINAL (0), MODE (cuzk|jobs), WORKERS (2), PARTITIONS (jobs: 10),
# POSTS (5), BEFORE (2), GAP_MS (1000), TOTAL (seconds, default 540), FULLSIZE=DIR2 (take
# DIR2/full.params and full.vk of dev/fullsize.sh KEEP=1 of the same SIZE instead of
# making the PoRep set), ARGS (more options for the program), DEVICE=cpu (a CPU device
# and a CPU setup: the dry run `make check` makes at tiny sizes).
set -u
out=${1:-${OUT:-/tmp/sp-post-out}}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
size=${SIZE:-27}
dir=${DIR:-/tmp/sp-post}
ordinal=${ORDINAL:-0}
device=${DEVICE:-cuda}
mkdir -p "$out" "$dir" || exit 2
case $size in 1[0-9] | 2[0-7]) ;; *) echo "post-under-load.sh: SIZE=$size: 10..27" >&2; exit 2 ;; esac
case $device in cuda | cpu) ;; *) echo "post-under-load.sh: DEVICE=$device: cuda or cpu" >&2; exit 2 ;; esac

# the build (dev/device-env.sh: the libraries carried in .deb/, which the module needs)
[ -d .deb ] && . dev/device-env.sh
build=${BUILD:-$top/_build}
for f in tests/compat/c2_post_load plugin/.libs/sealprov.so; do
  [ -e "$build/$f" ] || {
    echo "post-under-load.sh: $build/$f not built: set BUILD (B=\$(sh dev/device-build.sh))" >&2
    exit 2
  }
done

# disk for the PoRep file, unless there is one: ~49.2 GB at 2^27, half per step down
if [ -z "${FULLSIZE:-}" ] && [ ! -f "$dir/porep.made" ]; then
  need=$(awk -v k="$size" 'BEGIN { printf "%d", 49.2 * 2 ^ (k - 27) + 1 }')
  have=$(df -P -B1G "$dir" | awk 'NR == 2 { print $4 }')
  if [ "$have" -lt "$need" ]; then
    echo "post-under-load.sh: $dir has $have GB free, the 2^$size parameters need about $need GB (an earlier run's files, e.g. /tmp/sp-fullsize?)" >&2
    exit 1
  fi
fi

{
  printf '[provider]\nparams_validation_cache = %s/records\n' "$dir"
  if [ "$device" = cpu ]; then
    printf '[cpu0]\ntype = cpu\nworkers = 2\n'
  else
    printf '[gpu0]\ntype = cuda\ndevice = %s\n' "$ordinal"
  fi
} >"$out/post-under-load.ini"
gi=$ordinal # cuzk passes the GPU's CUDA ordinal; on a CPU table it is the device's index
[ "$device" = cpu ] && gi=0
set -- --dir "$dir" --porep-log "$size" --gpu-index "$gi" --mode "${MODE:-cuzk}" \
  --workers "${WORKERS:-2}" --partitions "${PARTITIONS:-10}" --posts "${POSTS:-5}" \
  --before "${BEFORE:-2}" --gap-ms "${GAP_MS:-1000}"
if [ "$device" = cuda ]; then
  set -- "$@" --setup-gpu "$ordinal"
  command -v nvidia-smi >/dev/null 2>&1 &&
    nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader >"$out/gpus.txt" 2>&1
fi
[ -n "${FULLSIZE:-}" ] && set -- "$@" --porep-params "$FULLSIZE/full.params" --porep-vk "$FULLSIZE/full.vk"
# shellcheck disable=SC2086 # ARGS: more options, split on spaces
[ -n "${ARGS:-}" ] && set -- "$@" $ARGS

t0=$(date +%s)
SEALPROV_PLUGIN="$build/plugin/.libs/sealprov.so" SEALPROV_CONFIG="$out/post-under-load.ini" \
  timeout "${TOTAL:-540}" "$build/tests/compat/c2_post_load" "$@" \
  >"$out/post-under-load.json" 2>"$out/post-under-load.log"
rc=$?
cat "$out/post-under-load.json"
if [ $rc -eq 0 ]; then
  tail -1 "$out/post-under-load.log" >&2
else
  tail -20 "$out/post-under-load.log" >&2
fi
echo "post-under-load.sh: exit $rc after $(($(date +%s) - t0)) s; log $out/post-under-load.log" >&2
exit $rc
