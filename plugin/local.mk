# The provider module: internals in a convenience library (tests and the CLI link
# it), and the loadable module that exports exactly one symbol.
noinst_LTLIBRARIES += plugin/libsealprov_core.la
plugin_libsealprov_core_la_CPPFLAGS = $(AM_CPPFLAGS) $(INIH_CFLAGS) $(CUDA_CFLAGS)
plugin_libsealprov_core_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
plugin_libsealprov_core_la_SOURCES = \
  plugin/engine.h \
  plugin/internal.h \
  plugin/log.h \
  plugin/log.c \
  plugin/util.h \
  plugin/util.c \
  plugin/sp_sched.h \
  plugin/sched.c \
  plugin/pool.c \
  plugin/hostmem.h \
  plugin/hostmem.c \
  plugin/module.c
# NUMA nodes, PCIe links and worker placement from sysfs (pool.c binds with it)
plugin_libsealprov_core_la_SOURCES += plugin/topo.h plugin/topo.c
# snarkjs interop: .zkey reader and its CPU prover (sealprov prove --zkey)
plugin_libsealprov_core_la_SOURCES += plugin/zkey.h plugin/zkey.c

pkglib_LTLIBRARIES += plugin/sealprov.la
plugin_sealprov_la_SOURCES =
plugin_sealprov_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
  -export-symbols-regex '^sealprov_provider_init$$' -no-undefined
plugin_sealprov_la_LIBADD = $(SP_INTERNAL_LIBS) $(SP_EXTERNAL_LIBS)
# dummy C++ source so libtool links with the C++ driver when CUDA objects are in.
