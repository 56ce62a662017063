# tools -- the `sealprov` CLI: a reference host that loads the module with dlopen.
# Other parts add their commands' sources in their own fragments
# (tools_sealprov_SOURCES += tools/cmd_x.c, included after this one) and one line
# in tools/main.c's table.
bin_PROGRAMS += tools/sealprov
tools_sealprov_SOURCES = tools/main.c tools/cli.h tools/host.c tools/json.c tools/cmd_devices.c \
  tools/bench_cpu.c tools/bench_cpu.h
tools_sealprov_CPPFLAGS = $(AM_CPPFLAGS) \
  -DSP_PKGLIBDIR='"$(pkglibdir)"' -DSP_SYSCONFDIR='"$(sysconfdir)"' \
  -DSP_DEFAULT_PLUGIN='"$(pkglibdir)/sealprov.so"' \
  -DSP_DEFAULT_CONFIG='"$(sysconfdir)/sealprov/sealprov.ini"'
# The Groth16 commands (setup, bench) use module internals directly; the module
# itself is only ever reached through dlopen.
tools_sealprov_LDADD = $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
