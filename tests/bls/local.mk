# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/bls -- the BLS12-381 CPU library against @noble/curves, and the CPU benchmark.
#
# The vectors under tests/bls/vectors/ are produced by tests/oracle/gen_vectors.mjs
# (@noble/curves pinned in tests/oracle/package-lock.json) and committed, so `make
# check` needs neither node nor npm. `make regen-vectors` rebuilds them.
BLS_VECTOR_FILES = \
  tests/bls/vectors/fr.txt \
  tests/bls/vectors/fp.txt \
  tests/bls/vectors/fp2.txt \
  tests/bls/vectors/fp12.txt \
  tests/bls/vectors/g1.txt \
  tests/bls/vectors/g2.txt \
  tests/bls/vectors/pairing.txt \
  tests/bls/vectors/ntt.txt
EXTRA_DIST += $(BLS_VECTOR_FILES) \
  tests/oracle/package.json \
  tests/oracle/package-lock.json \
  tests/oracle/gen_vectors.mjs

if HAVE_CHECK
# Vector reader and test randomness shared by the suites.
check_LTLIBRARIES += tests/bls/libblstest.la
tests_bls_libblstest_la_SOURCES = tests/bls/bls_vectors.c tests/bls/bls_vectors.h
tests_bls_libblstest_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
  -DBLS_VECTORS_SRCDIR='"$(abs_top_srcdir)/tests/bls/vectors"'

BLS_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
BLS_TEST_LDADD = tests/bls/libblstest.la plugin/bls12_381/libbls12_381.la $(CHECK_LIBS) \
  $(PTHREAD_LIBS) -lm

BLS_TESTS = tests/bls/test_fields tests/bls/test_curves tests/bls/test_pairing \
  tests/bls/test_msm tests/bls/test_ntt
check_PROGRAMS += $(BLS_TESTS)
TESTS += $(BLS_TESTS)
SAN_TESTS += $(BLS_TESTS)

tests_bls_test_fields_SOURCES = tests/bls/test_fields.c
tests_bls_test_fields_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls_test_fields_LDADD = $(BLS_TEST_LDADD)

tests_bls_test_curves_SOURCES = tests/bls/test_curves.c tests/bls/cofactor.c tests/bls/cofactor.h
tests_bls_test_curves_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls_test_curves_LDADD = $(BLS_TEST_LDADD)

tests_bls_test_pairing_SOURCES = tests/bls/test_pairing.c
tests_bls_test_pairing_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls_test_pairing_LDADD = $(BLS_TEST_LDADD)

tests_bls_test_msm_SOURCES = tests/bls/test_msm.c
tests_bls_test_msm_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls_test_msm_LDADD = $(BLS_TEST_LDADD)

tests_bls_test_ntt_SOURCES = tests/bls/test_ntt.c
tests_bls_test_ntt_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls_test_ntt_LDADD = $(BLS_TEST_LDADD)
endif

# Regenerate the committed vectors with the pinned @noble/curves (needs node + npm and
# network access for `npm ci`; not part of `make check`).
regen-vectors:
	@test -n "$(NODE)" || { echo "regen-vectors: node not found by configure" >&2; exit 1; }
	cd $(top_srcdir)/tests/oracle && npm ci --no-audit --no-fund && \
	  $(NODE) gen_vectors.mjs ../bls/vectors
.PHONY: regen-vectors

# `sealprov bench cpu` (bench/bench_cpu.c) runs and prints every figure it promises.
if BENCHMARKS
TESTS += tests/bls/bench_smoke.sh
endif
EXTRA_DIST += tests/bls/bench_smoke.sh
