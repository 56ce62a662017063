# SPDX-License-Identifier: Apache-2.0 OR MIT
# plugin/ -- what ships in sealprov.so, one convenience library per layer (docs/design.md,
# "Layers"). Each library calls only into the ones after it in SP_INTERNAL_LIBS
# (Makefile.am), so programs link them once, in that order, with nothing linked twice.
# Shipped C code sees only include/ and plugin/: a header of cuda/ or kit/ is not on its
# include path (tests/tree/layers.sh checks the finer rule, layer by layer).
SP_PLUGIN_CPPFLAGS = -I$(top_builddir) -I$(top_srcdir)/include -I$(top_srcdir)/plugin
SP_PLUGIN_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden

# abi/ + runtime/: the exported entry point and vtable, the INI, the scheduler, the
# worker pool, topology, the parameter-load orchestration.
noinst_LTLIBRARIES += plugin/libsealprov_runtime.la
plugin_libsealprov_runtime_la_CPPFLAGS = $(SP_PLUGIN_CPPFLAGS) $(INIH_CFLAGS)
plugin_libsealprov_runtime_la_CFLAGS = $(SP_PLUGIN_CFLAGS)
plugin_libsealprov_runtime_la_SOURCES = \
  plugin/abi/module.h \
  plugin/abi/module.c \
  plugin/runtime/device_table.h \
  plugin/runtime/ini_internal.h \
  plugin/runtime/ini.c \
  plugin/runtime/ini_values.c \
  plugin/runtime/resolve.c \
  plugin/runtime/sp_sched.h \
  plugin/runtime/sched_internal.h \
  plugin/runtime/sched.c \
  plugin/runtime/queue.c \
  plugin/runtime/jobs.c \
  plugin/runtime/placement.c \
  plugin/runtime/reports.c \
  plugin/runtime/pool.c \
  plugin/runtime/topo.h \
  plugin/runtime/topo.c \
  plugin/runtime/params.h \
  plugin/runtime/params.c \
  plugin/runtime/params_image.h \
  plugin/runtime/params_image.c

# engine/backends.c: which device kinds this build has (the one HAVE_CUDA), and how the
# runtime opens a device on its engine (wrapped in the fault engine when [testing] asks
# for faults in a fault-injection build); between the runtime and the backends.
noinst_LTLIBRARIES += plugin/libsealprov_backends.la
plugin_libsealprov_backends_la_CPPFLAGS = $(SP_PLUGIN_CPPFLAGS)
plugin_libsealprov_backends_la_CFLAGS = $(SP_PLUGIN_CFLAGS)
plugin_libsealprov_backends_la_SOURCES = plugin/engine/backends.c plugin/engine/fault.h
# configure --enable-fault-injection: the engine [testing] wraps around a device's own.
if FAULT_INJECTION
plugin_libsealprov_backends_la_SOURCES += plugin/engine/fault.c
endif

# engine/: the interface, the CPU engine, the host-memory accountant engines count in.
noinst_LTLIBRARIES += plugin/libsealprov_engine.la
plugin_libsealprov_engine_la_CPPFLAGS = $(SP_PLUGIN_CPPFLAGS)
plugin_libsealprov_engine_la_CFLAGS = $(SP_PLUGIN_CFLAGS)
plugin_libsealprov_engine_la_SOURCES = \
  plugin/engine/engine.h \
  plugin/engine/device.h \
  plugin/engine/engine_cpu.c \
  plugin/engine/capacity.c \
  plugin/engine/hostmem.h \
  plugin/engine/hostmem.c

# groth16/ + formats/: one partition on the CPU, checks, verification, witness-only
# evaluation; the files the vtable reads (.params and parameters.json, .r1cs), the
# .params files' digests and validation records (libxxhash).
noinst_LTLIBRARIES += plugin/libsealprov_groth16.la
plugin_libsealprov_groth16_la_CPPFLAGS = $(SP_PLUGIN_CPPFLAGS) $(XXHASH_CFLAGS)
plugin_libsealprov_groth16_la_CFLAGS = $(SP_PLUGIN_CFLAGS)
plugin_libsealprov_groth16_la_SOURCES = \
  plugin/groth16/groth16.h \
  plugin/groth16/checks.c \
  plugin/groth16/prove.c \
  plugin/groth16/verify.c \
  plugin/groth16/cs_eval.h \
  plugin/groth16/cs_eval.c \
  plugin/formats/srs.h \
  plugin/formats/srs_devcopy.h \
  plugin/formats/srs_internal.h \
  plugin/formats/srs.c \
  plugin/formats/srs_set.c \
  plugin/formats/points.c \
  plugin/formats/manifest.c \
  plugin/formats/fdigest.h \
  plugin/formats/fdigest.c \
  plugin/formats/vrecord.h \
  plugin/formats/vrecord.c \
  plugin/formats/shimage.h \
  plugin/formats/shimage.c \
  plugin/formats/blake2b.h \
  plugin/formats/blake2b.c \
  plugin/formats/iden3.h \
  plugin/formats/iden3.c \
  plugin/formats/cs.h \
  plugin/formats/r1cs.c

# base/: logging through the host, status names, files, threads, small helpers.
noinst_LTLIBRARIES += plugin/libsealprov_base.la
plugin_libsealprov_base_la_CPPFLAGS = $(SP_PLUGIN_CPPFLAGS)
plugin_libsealprov_base_la_CFLAGS = $(SP_PLUGIN_CFLAGS)
plugin_libsealprov_base_la_SOURCES = \
  plugin/base/log.h \
  plugin/base/log.c \
  plugin/base/util.h \
  plugin/base/util.c \
  plugin/base/handle_set.h \
  plugin/base/thread.h \
  plugin/base/thread.c

# The loadable module: every library above (never the kit), one exported symbol.
pkglib_LTLIBRARIES += plugin/sealprov.la
plugin_sealprov_la_SOURCES =
plugin_sealprov_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
  -export-symbols-regex '^sealprov_provider_init$$' -no-undefined
plugin_sealprov_la_LIBADD = $(SP_INTERNAL_LIBS) $(SP_EXTERNAL_LIBS)
