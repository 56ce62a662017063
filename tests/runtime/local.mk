# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/runtime -- plugin/runtime/: the INI device table and device resolution, the
# scheduler and pool on virtual devices (the recording test engine of test_engine.c),
# placement by memory and speed, per-job device choice, NUMA placement against fake
# sysfs trees, proof types with deadlines.
if HAVE_CHECK
RUNTIME_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
RUNTIME_TEST_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)

# The INI (plugin/runtime/ini.c, ini_values.c) and device resolution (resolve.c).
# Fixtures are written by the test into a temporary directory.
check_PROGRAMS += tests/runtime/test_config
TESTS += tests/runtime/test_config
SAN_TESTS += tests/runtime/test_config
tests_runtime_test_config_SOURCES = tests/runtime/test_config.c
tests_runtime_test_config_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_runtime_test_config_LDADD = $(RUNTIME_TEST_LDADD)

# One copy of the parameters per host ([provider] params_shared_image: runtime/
# params_image.c): made by the first load, mapped by other processes (fork), every change
# of the file and every forged, foreign or untrusted image sent back to the file, a
# read-only or full folder no error. CPU devices, a 250-constraint set.
check_PROGRAMS += tests/runtime/test_params_image
TESTS += tests/runtime/test_params_image
SAN_TESTS += tests/runtime/test_params_image
tests_runtime_test_params_image_SOURCES = tests/runtime/test_params_image.c tests/common/log_capture.h
tests_runtime_test_params_image_CFLAGS = $(RUNTIME_TEST_CFLAGS) $(XXHASH_CFLAGS)
tests_runtime_test_params_image_LDADD = $(RUNTIME_TEST_LDADD)

# Scheduler/pool suite: an in-memory sp_config and the recording test engine.
check_PROGRAMS += tests/runtime/test_pool
TESTS += tests/runtime/test_pool
SAN_TESTS += tests/runtime/test_pool
tests_runtime_test_pool_SOURCES = tests/runtime/test_pool.c tests/runtime/test_engine.c \
  tests/runtime/test_engine.h
tests_runtime_test_pool_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_runtime_test_pool_LDADD = $(RUNTIME_TEST_LDADD)

# One INI for a whole host, read by children that each see some GPUs through
# CUDA_VISIBLE_DEVICES ([provider] unseen_gpus): made-up GPU lists, the test engine.
check_PROGRAMS += tests/runtime/test_child
TESTS += tests/runtime/test_child
SAN_TESTS += tests/runtime/test_child
tests_runtime_test_child_SOURCES = tests/runtime/test_child.c tests/runtime/test_engine.c \
  tests/runtime/test_engine.h
tests_runtime_test_child_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_runtime_test_child_LDADD = $(RUNTIME_TEST_LDADD)

# Placement by memory and speed (plugin/runtime/placement.c) on virtual devices.
check_PROGRAMS += tests/runtime/test_placement
TESTS += tests/runtime/test_placement
SAN_TESTS += tests/runtime/test_placement
tests_runtime_test_placement_SOURCES = tests/runtime/test_placement.c tests/runtime/test_engine.c \
  tests/runtime/test_engine.h
tests_runtime_test_placement_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_runtime_test_placement_LDADD = $(RUNTIME_TEST_LDADD)

# Per-job device choice (sealprov_job.device_mask, ABI 1.2) on virtual devices (through
# the CLI: tests/tools/prove_device.sh).
check_PROGRAMS += tests/runtime/test_affinity
TESTS += tests/runtime/test_affinity
SAN_TESTS += tests/runtime/test_affinity
tests_runtime_test_affinity_SOURCES = tests/runtime/test_affinity.c tests/runtime/test_engine.c \
  tests/runtime/test_engine.h
tests_runtime_test_affinity_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_runtime_test_affinity_LDADD = $(RUNTIME_TEST_LDADD)

# Proof types with deadlines (issue 25 item 2): a 126-partition NI-PoRep job and a
# 10-partition PoRep job on two CPU devices, WindowPoSt and WinningPoSt jobs that start
# at the next partition boundary, the module holding no more partitions than workers.
check_PROGRAMS += tests/runtime/test_deadlines
TESTS += tests/runtime/test_deadlines
SAN_TESTS += tests/runtime/test_deadlines
tests_runtime_test_deadlines_SOURCES = tests/runtime/test_deadlines.c
tests_runtime_test_deadlines_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_runtime_test_deadlines_LDADD = $(RUNTIME_TEST_LDADD)
EXTRA_tests_runtime_test_deadlines_DEPENDENCIES = plugin/sealprov.la

# NUMA topology and placement (plugin/runtime/topo.c, pool.c) on CPU devices against
# fake sysfs trees that tests/runtime/fake_sysfs.sh writes (2 nodes, 4 GPUs); the CLI's
# view of the same is tests/tools/topo_cli.sh.
check_PROGRAMS += tests/runtime/test_topo
TESTS += tests/runtime/test_topo
SAN_TESTS += tests/runtime/test_topo
tests_runtime_test_topo_SOURCES = tests/runtime/test_topo.c
tests_runtime_test_topo_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_runtime_test_topo_LDADD = $(RUNTIME_TEST_LDADD)
endif
EXTRA_DIST += tests/runtime/fake_sysfs.sh
# test_deadlines' GPU counterpart (bench gpu --urgent-after on 2^27 partitions), run by
# hand on a GPU
EXTRA_DIST += dev/deadline-latency.sh
