# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/formats -- plugin/formats/: the .params/.vk/.spa readers (truncation, files
# changing during a load, the parameter cache, parameters.json, BLAKE2b, the
# subgroup-checker hook and the direct load's sink, with the CPU decoder), and a .params
# file validated once (fdigest.c, vrecord.c and a provider's loads with their records).
if HAVE_CHECK
check_PROGRAMS += tests/formats/test_loader
TESTS += tests/formats/test_loader
tests_formats_test_loader_SOURCES = tests/formats/test_loader.c
tests_formats_test_loader_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_formats_test_loader_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)

# a .params file validated once: the keyed file digest, the loader's skipped checks, the
# record store and its trust rules, a provider's loads with records
check_PROGRAMS += tests/formats/test_validated
TESTS += tests/formats/test_validated
tests_formats_test_validated_SOURCES = tests/formats/test_validated.c
tests_formats_test_validated_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(XXHASH_CFLAGS)
tests_formats_test_validated_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
endif
