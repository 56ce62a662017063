# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/fuzz -- libFuzzer harnesses (docs/fuzzing.md) and their checked-in corpora.
#
# Every build: each harness is also linked with replay.c (a plain main()) and
# tests/fuzz/replay_corpora.sh runs it over its seed corpus in `make check` (and under
# ASan+UBSan and TSan in `dev/run test-san`), so every seed and every crash input ever
# added to tests/fuzz/corpus/NAME/ stays a regression test.
# ./configure --enable-fuzzing (clang with libFuzzer, --without-cuda): `make` also
# builds tests/fuzz/fuzz_NAME, the libFuzzer binaries; `dev/run fuzz` runs them.
# The harnesses (one name each): ini params vk spa point proof r1cs wtns zkey snarkjs
# manifest. The same list is in replay_corpora.sh, run.sh and dev/run's fuzz target.
FUZZ_VK_CPPFLAGS = -DFUZZ_VK_PATH='"$(abs_top_srcdir)/tests/fuzz/corpus/vk/setup64.vk"'
FUZZ_COMMON_SOURCES = tests/fuzz/fuzz_common.h tests/fuzz/iden3_walk.h
FUZZ_LIBS = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)

check_PROGRAMS += tests/fuzz/replay_ini tests/fuzz/replay_params tests/fuzz/replay_vk \
  tests/fuzz/replay_spa tests/fuzz/replay_point tests/fuzz/replay_proof \
  tests/fuzz/replay_r1cs tests/fuzz/replay_wtns tests/fuzz/replay_zkey
tests_fuzz_replay_ini_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_ini.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_ini_LDADD = $(FUZZ_LIBS)
tests_fuzz_replay_params_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_params.c \
  $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_params_LDADD = $(FUZZ_LIBS)
tests_fuzz_replay_vk_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_vk.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_vk_LDADD = $(FUZZ_LIBS)
tests_fuzz_replay_spa_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_spa.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_spa_LDADD = $(FUZZ_LIBS)
tests_fuzz_replay_point_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_point.c \
  $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_point_LDADD = $(FUZZ_LIBS)
tests_fuzz_replay_proof_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_proof.c \
  $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_proof_CPPFLAGS = $(AM_CPPFLAGS) $(FUZZ_VK_CPPFLAGS)
tests_fuzz_replay_proof_LDADD = $(FUZZ_LIBS)
tests_fuzz_replay_r1cs_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_r1cs.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_r1cs_LDADD = $(FUZZ_LIBS)
tests_fuzz_replay_wtns_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_wtns.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_wtns_LDADD = $(FUZZ_LIBS)
tests_fuzz_replay_zkey_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_zkey.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_zkey_LDADD = $(FUZZ_LIBS)

TESTS += tests/fuzz/replay_corpora.sh
SAN_TESTS += tests/fuzz/replay_corpora.sh
# fuzz_vk.c includes fuzz_params.c; the corpora and dictionaries travel as folders.
EXTRA_DIST += tests/fuzz/replay_corpora.sh tests/fuzz/run.sh tests/fuzz/corpus tests/fuzz/dict \
  tests/fuzz/coverage-ignore.txt tests/fuzz/.gitattributes docs/fuzzing.md

if FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz_ini tests/fuzz/fuzz_params tests/fuzz/fuzz_vk \
  tests/fuzz/fuzz_spa tests/fuzz/fuzz_point tests/fuzz/fuzz_proof tests/fuzz/fuzz_r1cs \
  tests/fuzz/fuzz_wtns tests/fuzz/fuzz_zkey
tests_fuzz_fuzz_ini_SOURCES = tests/fuzz/fuzz_ini.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_ini_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_ini_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_params_SOURCES = tests/fuzz/fuzz_params.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_params_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_params_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_vk_SOURCES = tests/fuzz/fuzz_vk.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_vk_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_vk_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_spa_SOURCES = tests/fuzz/fuzz_spa.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_spa_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_spa_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_point_SOURCES = tests/fuzz/fuzz_point.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_point_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_point_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_proof_SOURCES = tests/fuzz/fuzz_proof.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_proof_CPPFLAGS = $(AM_CPPFLAGS) $(FUZZ_VK_CPPFLAGS)
tests_fuzz_fuzz_proof_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_proof_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_r1cs_SOURCES = tests/fuzz/fuzz_r1cs.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_r1cs_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_r1cs_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_wtns_SOURCES = tests/fuzz/fuzz_wtns.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_wtns_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_wtns_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_zkey_SOURCES = tests/fuzz/fuzz_zkey.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_zkey_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_zkey_LDADD = $(FUZZ_LIBS)
endif

# INI messages are valid UTF-8 (issue 13 item 4): escapes, cuts, paths.
if HAVE_CHECK
check_PROGRAMS += tests/fuzz/test_config_utf8
TESTS += tests/fuzz/test_config_utf8
SAN_TESTS += tests/fuzz/test_config_utf8
tests_fuzz_test_config_utf8_SOURCES = tests/fuzz/test_config_utf8.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_test_config_utf8_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_fuzz_test_config_utf8_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
endif

# The JSON readers: snarkjs's verification_key.json / proof.json / public.json
# (kit/cli/snarkjs_json.c, linked into the harness) and parameters.json (plugin/formats/srs.c,
# reached through sp_srs_load_ex with a manifest; the .vk it checks is FUZZ_VK_PATH).
FUZZ_SNARKJS_SOURCES = tests/fuzz/fuzz_snarkjs.c kit/cli/snarkjs_json.c kit/cli/snarkjs_json.h \
  tools/json_read.c tools/json_read.h tools/cli_base.c \
  $(FUZZ_COMMON_SOURCES)
# the CLI's messages and JSON reader (tools/), which snarkjs_json.c uses
FUZZ_SNARKJS_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
check_PROGRAMS += tests/fuzz/replay_snarkjs tests/fuzz/replay_manifest
tests_fuzz_replay_snarkjs_SOURCES = tests/fuzz/replay.c $(FUZZ_SNARKJS_SOURCES)
tests_fuzz_replay_snarkjs_CPPFLAGS = $(FUZZ_SNARKJS_CPPFLAGS)
tests_fuzz_replay_snarkjs_LDADD = $(FUZZ_LIBS)
tests_fuzz_replay_manifest_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_manifest.c \
  $(FUZZ_COMMON_SOURCES)
tests_fuzz_replay_manifest_CPPFLAGS = $(AM_CPPFLAGS) $(FUZZ_VK_CPPFLAGS)
tests_fuzz_replay_manifest_LDADD = $(FUZZ_LIBS)
if FUZZING
noinst_PROGRAMS += tests/fuzz/fuzz_snarkjs tests/fuzz/fuzz_manifest
tests_fuzz_fuzz_snarkjs_SOURCES = $(FUZZ_SNARKJS_SOURCES)
tests_fuzz_fuzz_snarkjs_CPPFLAGS = $(FUZZ_SNARKJS_CPPFLAGS)
tests_fuzz_fuzz_snarkjs_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_snarkjs_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_manifest_SOURCES = tests/fuzz/fuzz_manifest.c $(FUZZ_COMMON_SOURCES)
tests_fuzz_fuzz_manifest_CPPFLAGS = $(AM_CPPFLAGS) $(FUZZ_VK_CPPFLAGS)
tests_fuzz_fuzz_manifest_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_manifest_LDADD = $(FUZZ_LIBS)
endif
