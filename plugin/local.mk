# The provider module: internals in a convenience library (tests and the CLI link
# it), and the loadable module that exports exactly one symbol.
noinst_LTLIBRARIES += plugin/libsealprov_core.la
plugin_libsealprov_core_la_CPPFLAGS = $(AM_CPPFLAGS) $(INIH_CFLAGS) $(CUDA_CFLAGS)
plugin_libsealprov_core_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
plugin_libsealprov_core_la_SOURCES = \
  plugin/engine/engine.h \
  plugin/engine/device.h \
  plugin/engine/backends.c \
  plugin/base/thread.h \
  plugin/base/thread.c \
  plugin/runtime/load.h \
  plugin/runtime/load.c \
  plugin/formats/srs_devcopy.h \
  plugin/abi/module.h \
  plugin/base/log.h \
  plugin/base/log.c \
  plugin/base/util.h \
  plugin/base/util.c \
  plugin/runtime/sp_sched.h \
  plugin/runtime/sched.c \
  plugin/runtime/pool.c \
  plugin/engine/hostmem.h \
  plugin/engine/hostmem.c \
  plugin/abi/module.c
# NUMA nodes, PCIe links and worker placement from sysfs (pool.c binds with it)
plugin_libsealprov_core_la_SOURCES += plugin/runtime/topo.h plugin/runtime/topo.c
# snarkjs interop: .zkey reader and its CPU prover (sealprov prove --zkey)
plugin_libsealprov_core_la_SOURCES += kit/zkey.h kit/zkey.c

pkglib_LTLIBRARIES += plugin/sealprov.la
plugin_sealprov_la_SOURCES =
plugin_sealprov_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
  -export-symbols-regex '^sealprov_provider_init$$' -no-undefined
plugin_sealprov_la_LIBADD = $(SP_INTERNAL_LIBS) $(SP_EXTERNAL_LIBS)
# dummy C++ source so libtool links with the C++ driver when CUDA objects are in.
