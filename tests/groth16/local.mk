# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/groth16 -- plugin/groth16/: proving and verification on the CPU, against the
# @noble/curves oracle too, and witness-only proving (a, b, c from .r1cs and .wtns).
if HAVE_CHECK
G16_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
G16_TEST_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/groth16/test_groth16 tests/groth16/test_groth16_oracle
TESTS += tests/groth16/test_groth16 tests/groth16/test_groth16_oracle

tests_groth16_test_groth16_SOURCES = tests/groth16/test_groth16.c
tests_groth16_test_groth16_CFLAGS = $(G16_TEST_CFLAGS)
tests_groth16_test_groth16_LDADD = $(G16_TEST_LDADD)

tests_groth16_test_groth16_oracle_SOURCES = tests/groth16/test_groth16_oracle.c
tests_groth16_test_groth16_oracle_CFLAGS = $(G16_TEST_CFLAGS)
tests_groth16_test_groth16_oracle_LDADD = $(G16_TEST_LDADD)

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
