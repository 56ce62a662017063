# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/engine -- plugin/engine/: the host-memory accountant and the fault-injection
# engine that the INI's [testing] section drives.
if HAVE_CHECK
# The host-memory accountant, its cap and the shared chunk pool (plugin/engine/hostmem.c).
check_PROGRAMS += tests/engine/test_hostmem
TESTS += tests/engine/test_hostmem
SAN_TESTS += tests/engine/test_hostmem
tests_engine_test_hostmem_SOURCES = tests/engine/test_hostmem.c
tests_engine_test_hostmem_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_engine_test_hostmem_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
endif

# [testing] fault injection on CPU devices with real proofs (plugin/engine/fault.c);
# it runs the module's threads, so it runs under the sanitizers too.
TESTS += tests/engine/fault_injection.sh
SAN_TESTS += tests/engine/fault_injection.sh
EXTRA_DIST += tests/engine/fault_injection.sh
