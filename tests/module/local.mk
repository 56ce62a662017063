# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/module -- the provider module: scheduler and pool on virtual devices, the
# built module through dlopen, its exported symbols, the CLI, and the ABI example.
if HAVE_CHECK
# Scheduler/pool suite: an in-memory sp_config and the recording test engine.
check_PROGRAMS += tests/module/test_pool
TESTS += tests/module/test_pool
SAN_TESTS += tests/module/test_pool
tests_module_test_pool_SOURCES = tests/module/test_pool.c tests/module/test_engine.c \
  tests/module/test_engine.h
tests_module_test_pool_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_pool_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)

# Per-job device choice (sealprov_job.device_mask, ABI 1.2) on virtual devices.
check_PROGRAMS += tests/module/test_affinity
TESTS += tests/module/test_affinity
SAN_TESTS += tests/module/test_affinity
tests_module_test_affinity_SOURCES = tests/module/test_affinity.c tests/module/test_engine.c \
  tests/module/test_engine.h
tests_module_test_affinity_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_affinity_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
# ... and through the CLI: sealprov prove --device on three CPU devices.
TESTS += tests/module/prove_device.sh
EXTRA_DIST += tests/module/prove_device.sh
# The host-memory accountant, its cap and the shared chunk pool (plugin/engine/hostmem.c).
check_PROGRAMS += tests/module/test_hostmem
TESTS += tests/module/test_hostmem
SAN_TESTS += tests/module/test_hostmem
tests_module_test_hostmem_SOURCES = tests/module/test_hostmem.c
tests_module_test_hostmem_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_hostmem_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)

# Several providers in one process through the module's vtable: locks never held
# across device work, calls racing close(), one submit/prove validation, per-provider
# host memory (issue 22).
check_PROGRAMS += tests/module/test_providers
TESTS += tests/module/test_providers
SAN_TESTS += tests/module/test_providers
tests_module_test_providers_SOURCES = tests/module/test_providers.c tests/module/test_engine.c \
  tests/module/test_engine.h
tests_module_test_providers_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_providers_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)

# The built module through dlopen, as a host sees it ($SEALPROV_PLUGIN from
# AM_TESTS_ENVIRONMENT). Links nothing of the module.
check_PROGRAMS += tests/module/test_dlopen
TESTS += tests/module/test_dlopen
SAN_TESTS += tests/module/test_dlopen
tests_module_test_dlopen_SOURCES = tests/module/test_dlopen.c
tests_module_test_dlopen_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_dlopen_LDADD = $(CHECK_LIBS) $(DL_LIBS) $(PTHREAD_LIBS)

# Soak (issue 13): 1,000 jobs from 4 host threads through the dlopen'ed module, with
# cancels, bad partitions, priorities and a close() under load (fewer jobs under the
# sanitizers; SEALPROV_SOAK_JOBS overrides). Links the internals only to write its
# test parameters and read .spa files; the jobs go through the vtable.
check_PROGRAMS += tests/module/test_soak
TESTS += tests/module/test_soak
SAN_TESTS += tests/module/test_soak
tests_module_test_soak_SOURCES = tests/module/test_soak.c
tests_module_test_soak_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_soak_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
EXTRA_tests_module_test_soak_DEPENDENCIES = plugin/sealprov.la

# Proof types with deadlines (issue 25 item 2): a 126-partition NI-PoRep job and a
# 10-partition PoRep job on two CPU devices, WindowPoSt and WinningPoSt jobs that start
# at the next partition boundary, the module holding no more partitions than workers.
check_PROGRAMS += tests/module/test_deadlines
TESTS += tests/module/test_deadlines
SAN_TESTS += tests/module/test_deadlines
tests_module_test_deadlines_SOURCES = tests/module/test_deadlines.c
tests_module_test_deadlines_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_deadlines_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
EXTRA_tests_module_test_deadlines_DEPENDENCIES = plugin/sealprov.la
# its GPU counterpart (bench gpu --urgent-after on 2^27 partitions), run by hand on a GPU
EXTRA_DIST += dev/deadline-latency.sh

# The catalogue of bad inputs (docs/errors.md is its --markdown output): each case runs
# in a child process, through the dlopen'ed module or the CLI (so a crash is a failed
# case, not a dead suite). Links the internals only to make its fixture files.
check_PROGRAMS += tests/module/test_bad_inputs
TESTS += tests/module/test_bad_inputs
SAN_TESTS += tests/module/test_bad_inputs
tests_module_test_bad_inputs_SOURCES = tests/module/test_bad_inputs.c
tests_module_test_bad_inputs_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
EXTRA_tests_module_test_bad_inputs_DEPENDENCIES = plugin/sealprov.la tools/sealprov$(EXEEXT)
endif
EXTRA_DIST += docs/errors.md dev/soak.sh

# The house (docs/design.md, "Layers"): no symbol of the developer kit or of bench/ in
# sealprov.so (nm, every symbol), no #include of a higher layer's header in plugin/,
# cuda/, kit/, tools/, bench/, and no file of the product folders over 800 lines. No
# tuning by environment variables and no stdout/stderr writes in the module (its
# sources and sealprov.so).
TESTS += tests/module/kit_symbols.sh tests/module/layers.sh tests/module/file_lengths.sh \
  tests/module/no_tuning_env.sh
EXTRA_DIST += tests/module/kit_symbols.sh tests/module/layers.sh tests/module/file_lengths.sh \
  tests/module/no_tuning_env.sh

# Shell tests: exported symbols (nm -D), no environment writes in the module's
# sources, the CLI, the ABI example of docs/abi.md run against the module, and
# [testing] fault injection on CPU devices with real proofs.
TESTS += tests/module/exported_symbols.sh tests/module/no_env_writes.sh \
  tests/module/cli.sh tests/module/minimal_host.sh tests/module/fault_injection.sh
# The two that run the module's threads with real proofs also run under the sanitizers.
SAN_TESTS += tests/module/minimal_host.sh tests/module/fault_injection.sh
EXTRA_DIST += tests/module/exported_symbols.sh tests/module/no_env_writes.sh \
  tests/module/cli.sh tests/module/minimal_host.sh tests/module/fault_injection.sh docs/abi.md
check_PROGRAMS += tests/module/minimal_host
tests_module_minimal_host_SOURCES = docs/examples/minimal_host.c
tests_module_minimal_host_LDADD = $(DL_LIBS)

# NUMA topology and placement (plugin/runtime/topo.c, pool.c) on CPU devices against fake sysfs
# trees that tests/module/fake_sysfs.sh writes (2 nodes, 4 GPUs); the CLI's view of the
# same (topo_cli.sh).
if HAVE_CHECK
check_PROGRAMS += tests/module/test_topo
TESTS += tests/module/test_topo
SAN_TESTS += tests/module/test_topo
tests_module_test_topo_SOURCES = tests/module/test_topo.c
tests_module_test_topo_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_topo_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
endif
TESTS += tests/module/topo_cli.sh
# `sealprov soak` (issue 22 item 10): the GPU soak's plan at 2^8 on two CPU devices; its
# host threads, sampler and close/open cycles under the sanitizers too (~1 min each).
if BENCHMARKS
TESTS += tests/module/soak_plan.sh
SAN_TESTS += tests/module/soak_plan.sh
endif
EXTRA_DIST += tests/module/soak_plan.sh
EXTRA_DIST += tests/module/fake_sysfs.sh tests/module/topo_cli.sh
# A module of ABI 1.1 whose devices() writes the older, smaller entries (topo_cli.sh).
check_LTLIBRARIES += tests/module/old_module.la
tests_module_old_module_la_SOURCES = tests/module/old_module.c
tests_module_old_module_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
# dev/gpu-throughput.sh (the multi-GPU machines' script, issue 18) runs from the release
# tarball, so it is distributed with what it uses; its --dry-run on CPU devices (stress
# and bench gpu: sealprov-bench) is a test.
if BENCHMARKS
TESTS += tests/module/gpu_throughput_dry.sh
endif
EXTRA_DIST += tests/module/gpu_throughput_dry.sh dev/gpu-throughput.sh \
  dev/timeline-summary.awk dev/device-env.sh dev/device-build.sh dev/gpu-archs.sh
