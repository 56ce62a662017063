# SPDX-License-Identifier: Apache-2.0 OR MIT
# CUDA engine (built when configure finds a working nvcc). .cu files go through
# libtool with cuda/nvcc-libtool.sh so they become PIC objects of the module.
EXTRA_DIST += cuda/nvcc-libtool.sh
# -I$(top_builddir) first: configure's config.h. libtool eats a bare
# -Xcompiler, hence the -Xcompiler=FLAG form.
# The kernels name their headers bare ("gpu_internal.cuh", "util.h"): one -I per folder
# they reach (tests/tree/layers.sh resolves names the same way).
SP_NVCC_FLAGS = $(NVCC_GENCODE) -O3 -std=c++17 -I$(top_builddir) -I$(top_srcdir)/include \
  -I$(top_srcdir)/plugin -I$(top_srcdir)/cuda -I$(top_srcdir)/kit -I$(top_srcdir)/plugin/base \
  -I$(top_srcdir)/cuda/util -I$(top_srcdir)/cuda/ff -I$(top_srcdir)/cuda/ec \
  -I$(top_srcdir)/cuda/subgroup -I$(top_srcdir)/cuda/spmv \
  -DHAVE_CONFIG_H -Xcompiler=-fvisibility=hidden --expt-relaxed-constexpr -lineinfo
AM_V_NVCC = $(am__v_NVCC_$(V))
am__v_NVCC_ = $(am__v_NVCC_$(AM_DEFAULT_VERBOSITY))
am__v_NVCC_0 = @echo "  NVCC    " $@;
am__v_NVCC_1 =
SUFFIXES = .cu .lo
# NVCCFLAGS (configure or make): the user's nvcc flags, last.
.cu.lo:
	$(AM_V_NVCC)$(LIBTOOL) --quiet --tag=CC --mode=compile $(SHELL) $(top_srcdir)/cuda/nvcc-libtool.sh \
	  $(NVCC) $(SP_NVCC_FLAGS) $(NVCCFLAGS) -c -o $@ $<

if HAVE_CUDA
# The CUDA backend: its engine (C11 on top of the kernels' C boundary sp_gpu.h; srs.h's
# C11 atomics have no C++ equivalent) and the kernels, in folders by domain.
noinst_LTLIBRARIES += cuda/libsealprov_cuda.la
cuda_libsealprov_cuda_la_CPPFLAGS = $(SP_PLUGIN_CPPFLAGS) -I$(top_srcdir)/cuda $(CUDA_CFLAGS)
cuda_libsealprov_cuda_la_CFLAGS = $(SP_PLUGIN_CFLAGS)
cuda_libsealprov_cuda_la_SOURCES = \
  cuda/backend/engine_cuda.h \
  cuda/backend/engine_internal.h \
  cuda/backend/engine_cuda.c \
  cuda/backend/staging.c \
  cuda/backend/residency.c \
  cuda/backend/plan.c \
  cuda/backend/pipeline.c \
  cuda/backend/tail.c \
  cuda/backend/upload.c \
  cuda/backend/load_service.c \
  cuda/backend/code.c \
  cuda/backend/capacity.c \
  cuda/ff/ff.cuh \
  cuda/ec/ec.cuh \
  cuda/util/gpu_internal.cuh \
  cuda/util/sp_gpu.h \
  cuda/util/cuda_api.h \
  cuda/util/stage.h \
  cuda/util/stage.c \
  cuda/msm/msm.h \
  cuda/ntt/ntt.h \
  cuda/prep/prep.h \
  cuda/subgroup/subgroup.h \
  cuda/points/points.h \
  cuda/util/gpu.cu \
  cuda/util/cuda_devices.cu \
  cuda/ntt/ntt.cu \
  cuda/msm/msm.cu \
  cuda/msm/msm_table.cuh \
  cuda/prep/decode.cu \
  cuda/subgroup/subgroup.cuh \
  cuda/subgroup/subgroup.cu \
  cuda/points/points.cu \
  cuda/spmv/spmv.h \
  cuda/spmv/spmv.cu
# What benchmarks and tests read of a device, and the test build's knobs (probe.h): a
# library of its own, in SP_KIT_LIBS (Makefile.am), never in sealprov.so.
noinst_LTLIBRARIES += cuda/libsealprov_cuda_probe.la
cuda_libsealprov_cuda_probe_la_CPPFLAGS = $(cuda_libsealprov_cuda_la_CPPFLAGS)
cuda_libsealprov_cuda_probe_la_CFLAGS = $(SP_PLUGIN_CFLAGS)
cuda_libsealprov_cuda_probe_la_SOURCES = cuda/backend/probe.h cuda/backend/probe.c
# The .cu objects come from the suffix rule above, which tracks no dependencies: after a
# reconfigure with another --with-cuda-arch they would keep the old list's device code
# (tests/cuda/fatbin_archs.sh caught that; config.h holds the list, SP_CUDA_ARCHS), and
# after a change to a shared device header the old kernels. So each depends on config.h
# and on every header the kernels share.
SP_CUDA_SHARED_DEPS = $(top_srcdir)/cuda/ff/ff.cuh $(top_srcdir)/cuda/ec/ec.cuh \
  $(top_srcdir)/cuda/util/gpu_internal.cuh $(top_srcdir)/cuda/subgroup/subgroup.cuh \
  $(top_srcdir)/cuda/util/sp_gpu.h $(top_srcdir)/cuda/util/cuda_api.h \
  $(top_srcdir)/cuda/msm/msm.h $(top_srcdir)/cuda/ntt/ntt.h $(top_srcdir)/cuda/prep/prep.h \
  $(top_srcdir)/cuda/subgroup/subgroup.h $(top_srcdir)/cuda/points/points.h \
  $(top_srcdir)/cuda/spmv/spmv.h $(top_srcdir)/plugin/bls12_381/bls12_381.h
cuda/msm/msm.lo: $(top_srcdir)/cuda/msm/msm_table.cuh
cuda/util/gpu.lo cuda/util/cuda_devices.lo cuda/ntt/ntt.lo cuda/msm/msm.lo cuda/prep/decode.lo \
  cuda/subgroup/subgroup.lo cuda/points/points.lo cuda/spmv/spmv.lo kit/gpu/setup.lo \
  kit/gpu/selftest.lo: $(top_builddir)/config.h $(SP_CUDA_SHARED_DEPS)
endif
EXTRA_DIST += cuda/DESIGN.md
