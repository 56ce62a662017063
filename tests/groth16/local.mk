# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/groth16: .spa / .params / .vk files, proving and verification on the CPU, the
# @noble/curves oracle, and proving through the dlopen'ed module on two CPU devices.
if HAVE_CHECK
G16_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
G16_TEST_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/groth16/test_groth16 tests/groth16/test_groth16_oracle \
  tests/groth16/test_groth16_module
TESTS += tests/groth16/test_groth16 tests/groth16/test_groth16_oracle \
  tests/groth16/test_groth16_module

tests_groth16_test_groth16_SOURCES = tests/groth16/test_groth16.c
tests_groth16_test_groth16_CFLAGS = $(G16_TEST_CFLAGS)
tests_groth16_test_groth16_LDADD = $(G16_TEST_LDADD)

# the .params/.vk/.spa readers: truncation, files changing during a load, the
# parameter cache, parameters.json, BLAKE2b, the subgroup-checker hook
check_PROGRAMS += tests/groth16/test_loader
TESTS += tests/groth16/test_loader
tests_groth16_test_loader_SOURCES = tests/groth16/test_loader.c
tests_groth16_test_loader_CFLAGS = $(G16_TEST_CFLAGS)
tests_groth16_test_loader_LDADD = $(G16_TEST_LDADD)

tests_groth16_test_groth16_oracle_SOURCES = tests/groth16/test_groth16_oracle.c
tests_groth16_test_groth16_oracle_CFLAGS = $(G16_TEST_CFLAGS)
tests_groth16_test_groth16_oracle_LDADD = $(G16_TEST_LDADD)

# loads the built module (SEALPROV_PLUGIN), so it must exist first
# (also under ASan/TSan: it checks that stale handles never touch freed memory)
SAN_TESTS += tests/groth16/test_groth16_module
tests_groth16_test_groth16_module_SOURCES = tests/groth16/test_groth16_module.c
tests_groth16_test_groth16_module_CFLAGS = $(G16_TEST_CFLAGS)
tests_groth16_test_groth16_module_LDADD = $(G16_TEST_LDADD)
EXTRA_tests_groth16_test_groth16_module_DEPENDENCIES = plugin/sealprov.la

# witness-only proving: .r1cs / .wtns files, the CPU sparse products, and jobs that name
# a constraint system through the dlopen'ed module (byte-equal to full assignments)
check_PROGRAMS += tests/groth16/test_cs
TESTS += tests/groth16/test_cs
SAN_TESTS += tests/groth16/test_cs
tests_groth16_test_cs_SOURCES = tests/groth16/test_cs.c
tests_groth16_test_cs_CFLAGS = $(G16_TEST_CFLAGS)
tests_groth16_test_cs_LDADD = $(G16_TEST_LDADD)
EXTRA_tests_groth16_test_cs_DEPENDENCIES = plugin/sealprov.la
endif

EXTRA_DIST += tests/oracle/verify_groth16.mjs

# the CLI's Groth16 commands, end to end (needs only the built tools/sealprov)
TESTS += tests/groth16/test_cli.sh
EXTRA_DIST += tests/groth16/test_cli.sh

# `sealprov inspect`: every kind of file the project makes or reads, told by its content
TESTS += tests/groth16/test_inspect.sh
EXTRA_DIST += tests/groth16/test_inspect.sh

# `sealprov bench load`: its output shape and options on a small file (no timings judged)
if BENCHMARKS
TESTS += tests/groth16/test_bench_load.sh
endif
EXTRA_DIST += tests/groth16/test_bench_load.sh

# witness-only proving from the CLI: setup's circuit.r1cs, `wtns`, `prove --r1cs`
TESTS += tests/groth16/test_witness_cli.sh
EXTRA_DIST += tests/groth16/test_witness_cli.sh

# `sealprov stress`: concurrent jobs from 4 host threads, every proof verified
if BENCHMARKS
TESTS += tests/groth16/test_stress.sh
endif
EXTRA_DIST += tests/groth16/test_stress.sh
