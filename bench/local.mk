# SPDX-License-Identifier: Apache-2.0 OR MIT
# bench -- the measuring apparatus, apart from the product (docs/design.md, "The CLI"):
# `sealprov bench` (Groth16 partitions, `load`, `cpu`, `gpu`, `witness`), `sealprov soak`
# and `sealprov stress`, all in one program, sealprov-bench (installed in
# $(pkglibexecdir) next to sealprov-kit; in a build tree, here). `sealprov` hands it
# these command lines unchanged, as it hands the developer commands to sealprov-kit.
# Built by default; `configure --disable-benchmarks` leaves it out (packagers), and the
# tests of these commands with it.
if BENCHMARKS
# stress and soak are host commands: they drive the module they measure through dlopen
# and its table only, so they are compiled as the host library is (tools/local.mk: no
# plugin/ or cuda/ header) and tests/tools/host_symbols.sh reads their objects too.
noinst_LTLIBRARIES += bench/libsealprov_bench_host.la
bench_libsealprov_bench_host_la_SOURCES = bench/cmd_stress.c bench/soak.h bench/cmd_soak.c \
  bench/soak_jobs.c bench/soak_phases.c bench/soak_report.c bench/bench.h bench/proc.c
bench_libsealprov_bench_host_la_CPPFLAGS = $(SP_HOST_CPPFLAGS)

# The benchmarks proper time the module's internals in process (bench times prove.c
# without the scheduler, bench gpu --throughput runs the scheduler), so the program
# links the kit and the module's libraries; bench witness also loads the module with
# dlopen, to compare witness-only jobs through the table with full assignments.
pkglibexec_PROGRAMS += bench/sealprov-bench
bench_sealprov_bench_SOURCES = bench/bench.h bench/bench_cpu.c bench/cmd_bench.c \
  bench/bench_load.c bench/bench_witness.c bench/shapes.h bench/shapes.c
if HAVE_CUDA
bench_sealprov_bench_SOURCES += bench/bench_gpu.h bench/bench_gpu.c bench/bench_gpu_partition.c \
  bench/bench_gpu_throughput.c bench/bench_gpu_timeline.c bench/bench_gpu_shapes.c \
  bench/bench_gpu_opts.c bench/trace_cupti.c bench/trace_stats.h bench/trace_stats.c
endif
# $(CUDA_CFLAGS): trace_cupti.c checks its CUPTI record layouts against the toolkit's
# cupti_activity.h where there is one (it needs none: libcupti is opened at run time).
bench_sealprov_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/bench \
  $(CUDA_CFLAGS)
# main.c (tools/) names every command through a weak reference, and a weak reference
# takes no object out of a static library: -u takes stress's and soak's.
bench_sealprov_bench_LDFLAGS = -Wl,-u,cmd_stress -Wl,-u,cmd_soak
bench_sealprov_bench_LDADD = bench/libsealprov_bench_host.la tools/libsealprov_host.la \
  $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
endif
