# SPDX-License-Identifier: Apache-2.0 OR MIT
# tools -- the `sealprov` CLI's host (docs/design.md, "The CLI"): the host library,
# tools/libsealprov_host.la, main.c and the host commands (devices, check-config, prove,
# verify, demo) and what they share. It reaches the module only through
# include/sealprov.h and dlopen: it is compiled without the module's include paths, and
# tests/tools/host_symbols.sh checks that none of its objects refers to a symbol of the
# module's libraries, and to the kit only for the input files and synthetic data it
# names.
#
# The developer commands (setup, inspect, wtns, the snarkjs modes of prove and verify)
# are the kit's, kit/cli/sealprov-kit (kit/local.mk); the benchmark commands (bench,
# soak, stress) are bench/sealprov-bench's (bench/local.mk). main.c reaches both through
# weak references.
noinst_LTLIBRARIES += tools/libsealprov_host.la
tools_libsealprov_host_la_SOURCES = \
  tools/cli.h tools/main.c tools/cli_base.c tools/opts.c tools/json_read.h tools/json_read.c \
  tools/files.c tools/output.c \
  tools/host.c tools/g16_util.h tools/g16_util.c tools/g16_prove.c tools/witness.h \
  tools/prove_witness.c tools/cmd_devices.c tools/cmd_prove.c tools/cmd_verify.c \
  tools/cmd_demo.c
# include/, the kit's headers (its file formats) and tools/: no plugin/ or cuda/ header.
# (bench/local.mk compiles soak and stress, host commands too, with the same.)
SP_HOST_CPPFLAGS = -I$(top_builddir) -I$(top_srcdir)/include \
  -I$(top_srcdir)/kit -I$(top_srcdir)/tools \
  -DSP_PKGLIBDIR='"$(pkglibdir)"' -DSP_SYSCONFDIR='"$(sysconfdir)"' \
  -DSP_DEFAULT_PLUGIN='"$(pkglibdir)/sealprov.so"' \
  -DSP_DEFAULT_CONFIG='"$(sysconfdir)/sealprov/sealprov.ini"' \
  -DSP_SRCDIR='"$(abs_top_srcdir)"' -DSP_PKGLIBEXECDIR='"$(pkglibexecdir)"'
tools_libsealprov_host_la_CPPFLAGS = $(SP_HOST_CPPFLAGS)

# Programs apart, so that no process that dlopens the module for a host command carries
# a second copy of it: `sealprov` is the host library alone (its developer-command
# entries and modes are weak references that stay empty) and re-executes the developer
# commands as `sealprov-kit` (kit/local.mk) and the benchmark commands as
# `sealprov-bench` (bench/local.mk). The static libraries give a program only the
# objects it refers to: host_symbols.sh checks what `sealprov` holds.
bin_PROGRAMS += tools/sealprov
tools_sealprov_SOURCES =
tools_sealprov_LDADD = tools/libsealprov_host.la $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
