# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/bls12_381 -- the BLS12-381 CPU library (plugin/bls12_381) against @noble/curves.
#
# The vectors under tests/bls12_381/vectors/ are produced by tests/oracle/gen_vectors.mjs
# (@noble/curves pinned in tests/oracle/package-lock.json) and committed, so `make
# check` needs neither node nor npm. `make regen-vectors` rebuilds them.
BLS_VECTOR_FILES = \
  tests/bls12_381/vectors/fr.txt \
  tests/bls12_381/vectors/fp.txt \
  tests/bls12_381/vectors/fp2.txt \
  tests/bls12_381/vectors/fp12.txt \
  tests/bls12_381/vectors/g1.txt \
  tests/bls12_381/vectors/g2.txt \
  tests/bls12_381/vectors/pairing.txt \
  tests/bls12_381/vectors/ntt.txt
EXTRA_DIST += $(BLS_VECTOR_FILES) \
  tests/oracle/package.json \
  tests/oracle/package-lock.json \
  tests/oracle/gen_vectors.mjs

if HAVE_CHECK
# Vector reader and test randomness shared by the suites.
check_LTLIBRARIES += tests/bls12_381/libblstest.la
tests_bls12_381_libblstest_la_SOURCES = tests/bls12_381/bls_vectors.c tests/bls12_381/bls_vectors.h
tests_bls12_381_libblstest_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) \
  -DBLS_VECTORS_SRCDIR='"$(abs_top_srcdir)/tests/bls12_381/vectors"'

BLS_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
BLS_TEST_LDADD = tests/bls12_381/libblstest.la plugin/bls12_381/libbls12_381.la $(CHECK_LIBS) \
  $(PTHREAD_LIBS) -lm

BLS_TESTS = tests/bls12_381/test_fields tests/bls12_381/test_curves tests/bls12_381/test_pairing \
  tests/bls12_381/test_msm tests/bls12_381/test_ntt
check_PROGRAMS += $(BLS_TESTS)
TESTS += $(BLS_TESTS)
SAN_TESTS += $(BLS_TESTS)

tests_bls12_381_test_fields_SOURCES = tests/bls12_381/test_fields.c
tests_bls12_381_test_fields_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls12_381_test_fields_LDADD = $(BLS_TEST_LDADD)

tests_bls12_381_test_curves_SOURCES = tests/bls12_381/test_curves.c tests/bls12_381/cofactor.c tests/bls12_381/cofactor.h
tests_bls12_381_test_curves_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls12_381_test_curves_LDADD = $(BLS_TEST_LDADD)

tests_bls12_381_test_pairing_SOURCES = tests/bls12_381/test_pairing.c
tests_bls12_381_test_pairing_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls12_381_test_pairing_LDADD = $(BLS_TEST_LDADD)

tests_bls12_381_test_msm_SOURCES = tests/bls12_381/test_msm.c
tests_bls12_381_test_msm_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls12_381_test_msm_LDADD = $(BLS_TEST_LDADD)

tests_bls12_381_test_ntt_SOURCES = tests/bls12_381/test_ntt.c
tests_bls12_381_test_ntt_CFLAGS = $(BLS_TEST_CFLAGS)
tests_bls12_381_test_ntt_LDADD = $(BLS_TEST_LDADD)
endif

# Regenerate the committed vectors with the pinned @noble/curves (needs node + npm and
# network access for `npm ci`; not part of `make check`).
regen-vectors:
	@test -n "$(NODE)" || { echo "regen-vectors: node not found by configure" >&2; exit 1; }
	cd $(top_srcdir)/tests/oracle && npm ci --no-audit --no-fund && \
	  $(NODE) gen_vectors.mjs ../bls12_381/vectors
.PHONY: regen-vectors
