#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Runs on the GPU machine (the `device` tool) from the repository root:
#   make -C _build dist && mkdir -p .dist && cp _build/sealprov-*.tar.gz .dist/
#   device run, carry ['.dist', '.deb']:  sh dev/gpu-check.sh [quick|full|child]
# Builds the release tarball there (no libtool/libinih/check on that machine: see
# dev/device-env.sh), runs the test suite (the GPU tests run for real), then a demo on
# every GPU with the timeline and nvidia-smi utilisation, and the same demo with
# fault injection on the last GPU (the build has --enable-fault-injection). Logs go to
# $OUT.
set -u
mode=${1:-full}
top=$(pwd)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
. dev/device-env.sh
nvidia-smi -L | tee "$OUT/gpus.txt"
ngpu=$(nvidia-smi -L | grep -c '^GPU')
rm -rf /tmp/sp && mkdir -p /tmp/sp && tar xzf .dist/sealprov-*.tar.gz -C /tmp/sp
cd /tmp/sp/sealprov-* || exit 1
src=$(pwd)
# device code for this machine's GPUs only (configure's default builds every architecture)
gpu_archs=$(sh "$top/dev/gpu-archs.sh")
( ./configure --with-cuda ${gpu_archs:+--with-cuda-arch=$gpu_archs} --enable-fault-injection --enable-werror && make -j"$(nproc)" ) > "$OUT/build.log" 2>&1 \
  || { tail -50 "$OUT/build.log"; exit 1; }
echo "build ok"
run_checks() {
  make -j8 check ${1:+TESTS="$1"} > "$OUT/check.log" 2>&1; echo "make check rc=$?"
  grep -E '^(PASS|FAIL|SKIP|ERROR)' "$OUT/check.log"
  for f in tests/cuda/*.log; do cp "$f" "$OUT/" 2>/dev/null; done
}
[ "$mode" = full ] && run_checks
# child: only the per-proof child's checks ([provider] unseen_gpus, libsealprov_c2)
if [ "$mode" = child ]; then
  run_checks "tests/cuda/child_gpu.sh tests/tools/unseen_cli.sh tests/runtime/test_child"
  exit 0
fi
ini=/tmp/sp/gpus.ini; : > "$ini"
i=0; while [ $i -lt "$ngpu" ]; do printf '[gpu%d]\ntype = cuda\ndevice = %d\n\n' $i $i >> "$ini"; i=$((i+1)); done
cli="$src/tools/sealprov --plugin $src/plugin/.libs/sealprov.so"
$cli devices --wide -c "$ini" | tee "$OUT/devices.txt"
nvidia-smi dmon -s u -d 1 > "$OUT/dmon.txt" 2>&1 & dmon=$!
SEALPROV_TIMELINE="$OUT/timeline.txt" SEALPROV_STATS="$OUT/stats.txt" $cli demo -c "$ini" ${DEMO_ARGS:-} 2>&1 | tee "$OUT/demo.txt"
kill $dmon 2>/dev/null
if [ "$ngpu" -gt 1 ]; then
  last=$((ngpu - 1))
  cp "$ini" /tmp/sp/fault.ini
  printf '[testing]\ninject_device = gpu%d\ninject = fail_kernel\n' $last >> /tmp/sp/fault.ini
  SEALPROV_TIMELINE="$OUT/timeline-fault.txt" SEALPROV_STATS="$OUT/stats-fault.txt" \
    $cli demo -c /tmp/sp/fault.ini ${DEMO_ARGS:-} 2>&1 | tee "$OUT/demo-fault.txt"
fi
# quick: the multi-GPU demos first, then the GPU and module tests that fit.
[ "$mode" = quick ] && run_checks "tests/cuda/test_cuda_engine tests/abi/test_groth16_module tests/runtime/test_pool"
