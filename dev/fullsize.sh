#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/fullsize.sh [K] [DIR] -- a full-size run on a GPU machine: a 2^K
# sealing-shaped circuit (default K = 27: 130 M constraints, a ~47 GB .params), its
# INSECURE setup with every point computed on the GPU and written to DIR/full.params
# and DIR/full.vk (streamed: one block of points in host memory at a time), srs_load of
# that file with every check (decoding, on-curve, not infinity, subgroup on the GPU; by
# default the direct load: decoded and checked on the GPU into the engine's resident
# copy, no host copy of the proving vectors; it prints load time, GB/s, points/s and
# the host's peak RSS during the load),
# then 3 partitions made in memory (the disk holds the parameters, not the 16 GiB
# assignments), each proved by the CUDA engine, self-checked, and verified again with
# the verifying key read back from DIR/full.vk. Logs under $OUT when it is set.
#   MEMORY_LIMIT=none,24G,16G,12G: each partition proved once per value on a device with
#   that memory_limit (the set streamed from the host copy: needs LOAD=host)
#   PARTS=3 (0: load only) THREADS=16 KEEP=1 (keep the files) REUSE=1 (take DIR's files
#   of an earlier KEEP=1 run instead of a new setup) LOAD=direct|host BUILD=DIR (a CUDA
#   build directory; default: dev/device-build.sh's, built or brought up to date first)
# Needs: a CUDA build (on the GPU machine: dev/device-build.sh), a device, and free disk for the
# file (2^24: ~6 GB; 2^27: ~47 GB) and host memory for the circuit, the loaded
# parameters and one partition (2^27: ~100 GB).
set -eo pipefail
k=${1:-27}
dir=${2:-/tmp/sp-fullsize}
log=${OUT:-/tmp}/fullsize-$k.log
cd "$(dirname "$0")/.."
build=${BUILD:-$(sh dev/device-build.sh)}
mkdir -p "$dir"
set -- --dir "$dir" --log "$k" --partitions "${PARTS:-3}"
[ -n "$THREADS" ] && set -- "$@" --threads "$THREADS"
[ -n "$KEEP" ] && set -- "$@" --keep
[ -n "$REUSE" ] && set -- "$@" --reuse
[ -n "$LOAD" ] && set -- "$@" --load "$LOAD"
[ -n "$MEMORY_LIMIT" ] && set -- "$@" --memory-limit "$MEMORY_LIMIT"
echo "fullsize 2^$k in $dir; log $log"
df -h "$dir" | tail -1
"$build/tests/cuda/fullsize" "$@" 2>&1 | tee "$log"
