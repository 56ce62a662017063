# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/snarkjs: snarkjs interop against snarkjs and circom themselves (npm packages
# pinned by tests/snarkjs/package-lock.json, installed with `npm ci` there; the test
# skips, 77, without them): `sealprov prove --zkey` proofs verified by snarkjs and
# byte-equal to snarkjs's with zero blinding, snarkjs's proofs verified by `sealprov
# verify` with verification_key.json, and precise errors for bad keys and witnesses.
TESTS += tests/snarkjs/test_snarkjs.sh
# docs/snarkjs.md's recipe, run as written (the same pinned packages; skips without them)
TESTS += tests/snarkjs/recipe.sh
EXTRA_DIST += tests/snarkjs/test_snarkjs.sh tests/snarkjs/recipe.sh tests/snarkjs/prove_zero_rs.mjs \
  tests/snarkjs/package.json tests/snarkjs/package-lock.json \
  tests/snarkjs/circuits/mul.circom tests/snarkjs/circuits/chain.circom \
  tests/snarkjs/circuits/multi.circom

# the same code without node: snarkjs's H against a direct evaluation, the decimal
# numbers of its JSON, and the .zkey reader on keys built by the test
if HAVE_CHECK
check_PROGRAMS += tests/snarkjs/test_zkey
TESTS += tests/snarkjs/test_zkey
SAN_TESTS += tests/snarkjs/test_zkey
tests_snarkjs_test_zkey_SOURCES = tests/snarkjs/test_zkey.c
tests_snarkjs_test_zkey_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_snarkjs_test_zkey_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
endif
