# SPDX-License-Identifier: Apache-2.0 OR MIT
# tools -- the `sealprov` CLI (docs/design.md, "The CLI"). Two parts:
#
# The host library, tools/libsealprov_host.la: main.c and the host commands (devices,
# check-config, prove, verify, demo) and what they share. It reaches the module only
# through include/sealprov.h and dlopen: it is compiled without the module's include
# paths, and tests/tools/host_symbols.sh checks that none of its objects refers to a
# symbol of the module's libraries, and to the kit only for the input files and
# synthetic data it names.
#
# The developer commands (setup, inspect, wtns, and the snarkjs modes of prove and
# verify), linked into the second program, sealprov-kit, with the kit and the module's
# libraries. main.c reaches them through weak references. The benchmark commands
# (bench, soak, stress) are the third program's, bench/sealprov-bench (bench/local.mk).
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
# commands as `sealprov-kit` (installed in $(pkglibexecdir); in a build tree, next to
# sealprov), which links them with the kit and the module's libraries. The static
# libraries give a program only the objects it refers to: host_symbols.sh checks what
# `sealprov` holds.
bin_PROGRAMS += tools/sealprov
tools_sealprov_SOURCES =
tools_sealprov_LDADD = tools/libsealprov_host.la $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)

pkglibexec_PROGRAMS += tools/sealprov-kit
tools_sealprov_kit_SOURCES = \
  tools/cmd_setup.c tools/inspect.h tools/cmd_inspect.c tools/inspect_binary.c \
  tools/inspect_text.c tools/witness.c tools/cmd_snarkjs.c tools/snarkjs_json.h \
  tools/snarkjs_json.c
tools_sealprov_kit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tools_sealprov_kit_LDADD = tools/libsealprov_host.la $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
