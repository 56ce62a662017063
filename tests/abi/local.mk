# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/abi -- the built module as a host sees it: through dlopen and the table
# (plugin/abi/), its exported symbols, the ABI example of docs/abi.md, several
# providers in one process, the soak, and the catalogue of bad inputs.
if HAVE_CHECK
# The built module through dlopen ($SEALPROV_PLUGIN from AM_TESTS_ENVIRONMENT). Links
# nothing of the module.
check_PROGRAMS += tests/abi/test_dlopen
TESTS += tests/abi/test_dlopen
SAN_TESTS += tests/abi/test_dlopen
tests_abi_test_dlopen_SOURCES = tests/abi/test_dlopen.c
tests_abi_test_dlopen_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_abi_test_dlopen_LDADD = $(CHECK_LIBS) $(DL_LIBS) $(PTHREAD_LIBS)

# Proving through the dlopen'ed module on two CPU devices (also under ASan/TSan: stale
# handles never touch freed memory).
check_PROGRAMS += tests/abi/test_groth16_module
TESTS += tests/abi/test_groth16_module
SAN_TESTS += tests/abi/test_groth16_module
tests_abi_test_groth16_module_SOURCES = tests/abi/test_groth16_module.c
tests_abi_test_groth16_module_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_abi_test_groth16_module_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
EXTRA_tests_abi_test_groth16_module_DEPENDENCIES = plugin/sealprov.la

# Several providers in one process through the module's vtable: locks never held
# across device work, calls racing close(), one submit/prove validation, per-provider
# host memory (issue 22).
check_PROGRAMS += tests/abi/test_providers
TESTS += tests/abi/test_providers
SAN_TESTS += tests/abi/test_providers
tests_abi_test_providers_SOURCES = tests/abi/test_providers.c tests/runtime/test_engine.c \
  tests/runtime/test_engine.h
tests_abi_test_providers_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_abi_test_providers_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)

# Soak (issue 13): 1,000 jobs from 4 host threads through the dlopen'ed module, with
# cancels, bad partitions, priorities and a close() under load (fewer jobs under the
# sanitizers; SEALPROV_SOAK_JOBS overrides). Links the internals only to write its
# test parameters and read .spa files; the jobs go through the vtable.
check_PROGRAMS += tests/abi/test_soak
TESTS += tests/abi/test_soak
SAN_TESTS += tests/abi/test_soak
tests_abi_test_soak_SOURCES = tests/abi/test_soak.c
tests_abi_test_soak_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_abi_test_soak_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
EXTRA_tests_abi_test_soak_DEPENDENCIES = plugin/sealprov.la

# The catalogue of bad inputs (docs/errors.md is its --markdown output): each case runs
# in a child process, through the dlopen'ed module, the CLI or the dlopen'ed
# libsealprov_c2's conversions (so a crash is a failed case, not a dead suite). Links
# the internals only to make its fixture files.
check_PROGRAMS += tests/abi/test_bad_inputs
TESTS += tests/abi/test_bad_inputs
SAN_TESTS += tests/abi/test_bad_inputs
tests_abi_test_bad_inputs_SOURCES = tests/abi/test_bad_inputs.c
tests_abi_test_bad_inputs_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/compat
tests_abi_test_bad_inputs_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
EXTRA_tests_abi_test_bad_inputs_DEPENDENCIES = plugin/sealprov.la tools/sealprov$(EXEEXT) \
  compat/libsealprov_c2.la
endif
EXTRA_DIST += docs/errors.md dev/soak.sh

# Exported symbols (nm -D), no environment writes in the module's sources, and the ABI
# example of docs/abi.md run against the module (its threads with real proofs: under
# the sanitizers too).
TESTS += tests/abi/exported_symbols.sh tests/abi/no_env_writes.sh tests/abi/minimal_host.sh
SAN_TESTS += tests/abi/minimal_host.sh
EXTRA_DIST += tests/abi/exported_symbols.sh tests/abi/no_env_writes.sh tests/abi/minimal_host.sh \
  docs/abi.md
check_PROGRAMS += tests/abi/minimal_host
tests_abi_minimal_host_SOURCES = docs/examples/minimal_host.c
tests_abi_minimal_host_LDADD = $(DL_LIBS)

# A module of ABI 1.1 whose devices() writes the older, smaller entries
# (tests/tools/topo_cli.sh).
check_LTLIBRARIES += tests/abi/old_module.la
tests_abi_old_module_la_SOURCES = tests/abi/old_module.c
tests_abi_old_module_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
