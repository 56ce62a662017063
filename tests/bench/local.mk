# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/bench -- the measuring apparatus (bench/): each command's output shape and
# options at tiny sizes (no timing is judged), and the GPU machines' script dry on CPU
# devices. None runs with configure --disable-benchmarks.
if BENCHMARKS
# `sealprov bench cpu` runs and prints every figure it promises.
TESTS += tests/bench/bench_smoke.sh
# `sealprov bench load`: a JSON object per mode, the modes, runs and usage errors
TESTS += tests/bench/test_bench_load.sh
# `sealprov stress`: concurrent jobs from 4 host threads, every proof verified
TESTS += tests/bench/test_stress.sh
# `sealprov soak` (issue 22 item 10): the GPU soak's plan at 2^8 on two CPU devices; its
# host threads, sampler and close/open cycles under the sanitizers too (~1 min each).
TESTS += tests/bench/soak_plan.sh
SAN_TESTS += tests/bench/soak_plan.sh
# dev/gpu-throughput.sh --dry-run on CPU devices (stress and bench gpu)
TESTS += tests/bench/gpu_throughput_dry.sh
# The proof types' shapes (bench/shapes.c): every figure consistent, --shape's values
check_PROGRAMS += tests/bench/test_shapes
TESTS += tests/bench/test_shapes tests/bench/bench_gpu_shape.sh
tests_bench_test_shapes_SOURCES = tests/bench/test_shapes.c bench/shapes.c bench/shapes.h
tests_bench_test_shapes_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
# What `bench gpu --trace` makes of a trace (bench/trace_stats.c), on synthetic records:
# stages, busy and idle times, gaps, top kernels, the CSV
check_PROGRAMS += tests/bench/test_trace_stats
TESTS += tests/bench/test_trace_stats
tests_bench_test_trace_stats_SOURCES = tests/bench/test_trace_stats.c bench/trace_stats.c \
  bench/trace_stats.h
tests_bench_test_trace_stats_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
tests_bench_test_trace_stats_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_bench_test_trace_stats_LDADD = $(CHECK_LIBS)
# --trace FILE's checks before any GPU work (an unwritable file, the help)
TESTS += tests/bench/bench_gpu_trace.sh
if HAVE_CUDA
# --trace's side of CUPTI (bench/trace_cupti.c) on stubs: windows, stages, names, CSV
check_PROGRAMS += tests/bench/test_trace_cupti
TESTS += tests/bench/test_trace_cupti
tests_bench_test_trace_cupti_SOURCES = tests/bench/test_trace_cupti.c bench/trace_stats.c
tests_bench_test_trace_cupti_CPPFLAGS = $(bench_sealprov_bench_CPPFLAGS)
tests_bench_test_trace_cupti_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_bench_test_trace_cupti_LDADD = $(CHECK_LIBS) $(DL_LIBS) $(PTHREAD_LIBS) -lstdc++
endif
endif
EXTRA_DIST += tests/bench/bench_smoke.sh tests/bench/test_bench_load.sh tests/bench/test_stress.sh \
  tests/bench/soak_plan.sh tests/bench/gpu_throughput_dry.sh tests/bench/bench_gpu_shape.sh \
  tests/bench/bench_gpu_trace.sh
# dev/gpu-throughput.sh (the multi-GPU machines' script, issue 18) runs from the release
# tarball, so it is distributed with what it uses.
EXTRA_DIST += dev/gpu-throughput.sh dev/timeline-summary.awk dev/device-env.sh \
  dev/device-build.sh dev/gpu-archs.sh dev/proof-types.sh dev/profile-partition.sh
