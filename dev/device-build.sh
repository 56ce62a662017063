#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/device-build.sh [TARBALL] -- on the GPU machine: builds a release tarball with the
# GPU test programs and the benchmarks, and prints the build directory (the only line
# on stdout; progress on stderr, the build's output in $OUT/build.log). That machine has
# nvcc and gcc but no network, libtool, libinih or Check: the tarball carries the
# generated build files (configure, Makefile.in, config.h.in, build-aux/ with libtool's
# ltmain.sh), and dev/device-env.sh unpacks the Debian packages carried in .deb/ for
# the rest. There is no second build system: what runs there is what automake builds.
#
# Here, from the repository root (any configured build makes the same tarball):
#   make -C _build dist && rm -rf .dist && mkdir .dist && cp _build/sealprov-*.tar.gz .dist/
# There (the device tool's run, carry [".dist", ".deb"]), e.g.:
#   B=$(sh dev/device-build.sh) && "$B/tools/sealprov" bench gpu --quick
#
# It unpacks .dist/sealprov-*.tar.gz (or TARBALL) into $WORK (default /tmp/sp-dev),
# configures it --with-cuda for the GPUs nvidia-smi lists (dev/gpu-archs.sh; 90 when it
# lists none) and --enable-fault-injection, runs make -j$(nproc), then builds the test
# programs without running any (make check TESTS=). In the build directory:
#   tools/sealprov bench gpu ...        the CUDA engine's benchmark (bench/sealprov-bench)
#   tools/sealprov bench load ...       parameter loading; the other commands as anywhere
#   tests/cuda/test_cuda_kernels ...    the GPU test programs, to run with their options
#   tests/cuda/fullsize ...             the full-size run (dev/fullsize.sh)
#   make check                          the whole suite, the GPU tests for real
# A later call on the same machine finds the build and only brings it up to date.
#   PROFILE=1    a measuring build in $WORK-profile: the kernels with their phase
#                profiles (-DSP_GPU_PROFILE), which SP_GPU_PROFILE=1 in the environment
#                prints on stderr (each MSM's phases, the NTT's bit reversal, each
#                subgroup check). Its module writes to stderr: it is no product
#                (tests/tree/no_tuning_env.sh fails on it).
#   NVCCFLAGS    more nvcc flags for the .cu files (an A/B build: -DSPC_SQR_AS_MUL).
#   CUDA_ARCH    the architectures (default: those of the GPUs nvidia-smi lists).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/out}
mkdir -p "$out" || exit 1
nvflags=${NVCCFLAGS:-}
work=${WORK:-/tmp/sp-dev}
if [ "${PROFILE:-0}" = 1 ]; then
  work=$work-profile
  nvflags="-DSP_GPU_PROFILE${nvflags:+ $nvflags}"
fi
tarball=${1:-}
if [ -z "$tarball" ]; then
  tarball=$(ls "$top"/.dist/sealprov-*.tar.gz 2>/dev/null | head -1)
  [ -n "$tarball" ] || {
    echo "device-build.sh: no tarball: carry .dist/ (make dist, see the head of this script) or name one" >&2
    exit 2
  }
fi
# libinih, libxxhash, Check and subunit from .deb/ when this machine has none of its own
cd "$top" || exit 1
if [ -d /tmp/sp-prefix/usr ] || [ -d .deb ]; then . dev/device-env.sh; fi
t0=$(date +%s)
src=$(ls -d "$work"/sealprov-* 2>/dev/null | head -1)
stamp=$(cksum <"$tarball" | cut -d' ' -f1)
if [ -z "$src" ] || [ ! -f "$src/config.status" ] || [ "$(cat "$work/tarball.cksum" 2>/dev/null)" != "$stamp" ]; then
  echo "device-build.sh: unpacking $tarball into $work" >&2
  rm -rf "$work" && mkdir -p "$work" && tar xzf "$tarball" -C "$work" || exit 1
  src=$(ls -d "$work"/sealprov-* | head -1)
  archs=${CUDA_ARCH:-$(sh "$top/dev/gpu-archs.sh" 2>/dev/null)}
  echo "device-build.sh: configure --with-cuda-arch=${archs:-90} --enable-fault-injection" >&2
  (cd "$src" && ./configure --with-cuda --with-cuda-arch="${archs:-90}" --enable-fault-injection \
    ${nvflags:+NVCCFLAGS="$nvflags"}) >"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log" >&2; echo "device-build.sh: configure failed" >&2; exit 1; }
  echo "$stamp" >"$work/tarball.cksum"
fi
echo "device-build.sh: make -j$(nproc) in $src" >&2
(cd "$src" && make -j"$(nproc)" && make -j"$(nproc)" check TESTS=) >>"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log" >&2; echo "device-build.sh: make failed" >&2; exit 1; }
echo "device-build.sh: built in $(($(date +%s) - t0)) s" >&2
echo "$src"
