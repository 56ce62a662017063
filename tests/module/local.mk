# tests/module -- the provider module: scheduler and pool on virtual devices, the
# built module through dlopen, its exported symbols, the CLI, and the ABI example.
if HAVE_CHECK
# Scheduler/pool suite: an in-memory sp_config and the recording test engine.
check_PROGRAMS += tests/module/test_pool
TESTS += tests/module/test_pool
SAN_TESTS += tests/module/test_pool
tests_module_test_pool_SOURCES = tests/module/test_pool.c tests/module/test_engine.c \
  tests/module/test_engine.h
tests_module_test_pool_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_module_test_pool_LDADD = $(SP_INTERNAL_LIBS) $(SP_EXTERNAL_LIBS) $(CHECK_LIBS)
endif
