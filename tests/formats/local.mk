# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/formats -- plugin/formats/: the .params/.vk/.spa readers (truncation, files
# changing during a load, the parameter cache, parameters.json, BLAKE2b, the
# subgroup-checker hook and the direct load's sink, with the CPU decoder), and a .params
# file validated once (fdigest.c, vrecord.c and a provider's loads with their records),
# and the shared image of a parameter set (shimage.c).
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
tests_formats_test_validated_SOURCES = tests/formats/test_validated.c tests/common/log_capture.h
tests_formats_test_validated_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(XXHASH_CFLAGS)
tests_formats_test_validated_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)

# the shared image of a parameter set (shimage.c): made once, mapped by another
# process, refused when untrusted, stale, truncated or damaged, and a full folder
check_PROGRAMS += tests/formats/test_shimage
TESTS += tests/formats/test_shimage
tests_formats_test_shimage_SOURCES = tests/formats/test_shimage.c
tests_formats_test_shimage_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_formats_test_shimage_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
endif
