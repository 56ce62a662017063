#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# standalone.sh OUTDIR -- builds the GPU test programs and the GPU benchmark without
# autotools, for machines that have nvcc and gcc but not libtool, libcheck or libinih
# (the GPU test machine). Objects are rebuilt only when a source or header is newer.
#   OUTDIR/test_cuda_kernels [--full] [--big=24,27]   kernels against the CPU library
#   OUTDIR/test_cuda_engine [--full]    whole partitions against sp_groth16_prove
#   OUTDIR/test_cuda_checks [--setup-max=18]  subgroup and a*b = c checks, GPU setup
#   OUTDIR/test_cuda_spmv [--max=K] [--bench=24,26]  GPU a, b, c of witness-only proving vs the CPU
#   OUTDIR/test_cuda_load               the direct load against the host load
#   OUTDIR/fullsize --dir D [--log K]   GPU setup -> checked load -> proofs (dev/fullsize.sh)
#   OUTDIR/bench_load [--progress] ...  `sealprov bench load` without the rest of the CLI
#   OUTDIR/bench_gpu --json ...         `sealprov bench gpu` without the rest of the CLI
#                                       (--throughput runs the module's scheduler:
#                                       plugin/runtime/ sched.c, queue.c, jobs.c, reports.c,
#                                       pool.c; the device table is built in memory, so
#                                       config.c and libinih are not needed)
# Run from the top of the source tree. NVCC, CUDA_ARCH (default 90) and NVFLAGS (extra
# nvcc flags, e.g. -DSPC_SQR_AS_MUL for an A/B build) may be set. These programs are the
# test kit, not the module: they are built with the phase profiles (-DSP_GPU_PROFILE,
# cuda/util/gpu_internal.cuh), which SP_GPU_PROFILE=1 in the environment turns on: a line
# on stderr per MSM (digits, sort, accumulation, bucket reduction), per natural-order NTT
# (the bit reversal) and per subgroup check. sealprov.so has no profiles.
set -e
out=${1:-.gpu}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
arch=${CUDA_ARCH:-90}
mkdir -p "$out/obj" "$out/gen"
# what configure's config.h would say for these programs: a CUDA build with fault
# injection (test_cuda_engine faults the device through the fault engine)
cat > "$out/gen/config.h.new" <<EOF_CONFIG
#define HAVE_CUDA 1
#define HAVE_PTHREAD_SETNAME_NP 1
#define SP_FAULT_INJECTION 1
#define PACKAGE_VERSION "standalone"
#define SP_CUDA_ARCHS "$arch"
#define SP_CUDA_PTX_ARCH 0
EOF_CONFIG
cmp -s "$out/gen/config.h.new" "$out/gen/config.h" 2>/dev/null || mv "$out/gen/config.h.new" "$out/gen/config.h"
rm -f "$out/gen/config.h.new"
# the include roots of the build (cuda/local.mk SP_NVCC_FLAGS, Makefile.am AM_CPPFLAGS)
inc="-I$out/gen -Iinclude -Iplugin -Icuda -Ikit"
NV="$nvcc -gencode arch=compute_$arch,code=sm_$arch -O3 -std=c++17 -DSP_GPU_PROFILE ${NVFLAGS:-} $inc \
 -Iplugin/base \
 -Icuda/util -Icuda/ff -Icuda/ec -Icuda/subgroup -Icuda/spmv \
 --expt-relaxed-constexpr -lineinfo -Xcompiler -fvisibility=hidden"
CC="gcc -std=gnu11 -O2 -pthread -D_GNU_SOURCE $inc \
 -Itools -Ibench -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
cuh="cuda/ff/ff.cuh cuda/ec/ec.cuh cuda/util/gpu_internal.cuh cuda/subgroup/subgroup.cuh cuda/util/sp_gpu.h cuda/util/cuda_api.h plugin/bls12_381/bls12_381.h"

newer() { # newer TARGET DEP... : true if TARGET is missing or older than a DEP
  t=$1; shift
  [ -f "$t" ] || return 0
  for d in "$@"; do [ "$d" -nt "$t" ] && return 0; done
  return 1
}

objs=""
for src in cuda/util/gpu.cu cuda/ntt/ntt.cu cuda/msm/msm.cu cuda/prep/prove.cu cuda/util/cuda_devices.cu \
           cuda/subgroup/subgroup.cu cuda/load/load.cu kit/gpu/setup.cu kit/gpu/selftest.cu cuda/spmv/spmv.cu; do
  f=$(basename "$src" .cu)
  o="$out/obj/cu_$f.o" # cu_: the CPU library has msm.c and ntt.c too
  # in parallel: seven nvcc runs one after the other take minutes of device time
  if newer "$o" "$src" $cuh cuda/*/*.h kit/circuit.h; then
    echo "NVCC $src"; $NV -c "$src" -o "$o" & pids="${pids:-} $!"
  fi
  objs="$objs $o"
done
for p in ${pids:-}; do wait "$p" || { echo "nvcc failed"; exit 1; }; done
for f in plugin/bls12_381/*.c plugin/groth16/checks.c plugin/groth16/prove.c plugin/groth16/verify.c plugin/formats/srs.c plugin/formats/points.c plugin/formats/manifest.c kit/circuit.c kit/spa.c kit/gpu/gpu_host.c kit/gpu/engine_probe.c \
         plugin/base/util.c plugin/base/log.c plugin/engine/hostmem.c plugin/runtime/sched.c plugin/runtime/queue.c plugin/runtime/jobs.c \
         plugin/runtime/reports.c plugin/runtime/pool.c \
         plugin/runtime/topo.c plugin/formats/blake2b.c plugin/formats/iden3.c plugin/formats/r1cs.c plugin/groth16/cs_eval.c plugin/base/thread.c \
         plugin/engine/backends.c plugin/engine/engine_cpu.c plugin/engine/fault.c \
         cuda/backend/engine_cuda.c cuda/backend/staging.c cuda/backend/residency.c \
         cuda/backend/pipeline.c cuda/backend/load_service.c cuda/backend/code.c bench/bench_gpu.c tools/cli_base.c tools/opts.c tests/cuda/test_cuda_kernels.c \
         tests/cuda/test_cuda_engine.c tests/cuda/test_cuda_checks.c tests/cuda/test_cuda_spmv.c tests/cuda/test_cuda_load.c \
         tests/cuda/fullsize_main.c tests/cuda/bench_gpu_main.c tests/bls/cofactor.c \
         bench/cmd_bench.c tools/g16_util.c tests/cuda/bench_load_main.c; do
  o="$out/obj/$(basename "$f" .c).o"
  if newer "$o" "$f" plugin/bls12_381/*.h plugin/*/*.h cuda/*/*.h kit/*.h kit/gpu/*.h include/sealprov.h \
       "$out/gen/config.h"; then
    echo "CC   $f"; $CC -c "$f" -o "$o"
  fi
done
lib="$objs"
for f in plugin/bls12_381/*.c plugin/groth16/checks.c plugin/groth16/prove.c plugin/groth16/verify.c plugin/formats/srs.c plugin/formats/points.c plugin/formats/manifest.c kit/circuit.c kit/spa.c kit/gpu/gpu_host.c kit/gpu/engine_probe.c \
         plugin/base/util.c plugin/base/log.c plugin/base/thread.c plugin/engine/hostmem.c \
         plugin/engine/backends.c plugin/engine/engine_cpu.c plugin/engine/fault.c \
         cuda/backend/engine_cuda.c cuda/backend/staging.c cuda/backend/residency.c \
         cuda/backend/pipeline.c cuda/backend/load_service.c cuda/backend/code.c plugin/formats/blake2b.c plugin/formats/iden3.c plugin/formats/r1cs.c plugin/groth16/cs_eval.c; do
  lib="$lib $out/obj/$(basename "$f" .c).o"
done
# the scheduler, for bench_gpu --throughput only
sched="$out/obj/sched.o $out/obj/queue.o $out/obj/jobs.o $out/obj/reports.o $out/obj/pool.o $out/obj/topo.o"
link() { echo "LINK $1"; $nvcc -o "$out/$1" "$out/obj/$2.o" $3 $lib -lpthread; }
link test_cuda_kernels test_cuda_kernels
link test_cuda_engine test_cuda_engine
link test_cuda_checks test_cuda_checks "$out/obj/cofactor.o"
link test_cuda_spmv test_cuda_spmv
link test_cuda_load test_cuda_load
link fullsize fullsize_main
link bench_gpu bench_gpu_main "$out/obj/bench_gpu.o $out/obj/cli_base.o $out/obj/opts.o $sched"
link bench_load bench_load_main "$out/obj/cmd_bench.o $out/obj/g16_util.o $out/obj/cli_base.o $out/obj/opts.o"
