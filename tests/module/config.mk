# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/module/config.mk -- Check suite for plugin/runtime/ini.c (INI parsing, device
# resolution). Fixtures are written by the test into a temporary directory.
if HAVE_CHECK
check_PROGRAMS += tests/module/test_config
TESTS += tests/module/test_config
SAN_TESTS += tests/module/test_config
tests_module_test_config_SOURCES = tests/module/test_config.c
tests_module_test_config_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_config_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
endif
