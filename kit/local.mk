# SPDX-License-Identifier: Apache-2.0 OR MIT
# kit/ -- the developer kit: never linked into sealprov.so (tests/tree/kit_symbols.sh
# checks it), linked by tools/ and tests/ only, first in SP_KIT_LIBS (Makefile.am). The
# synthetic circuits and their INSECURE setup (CPU, and GPU in a CUDA build), the .spa
# assignment files, .wtns witness files, snarkjs .zkey proving; in a CUDA build also the
# conveniences on host arrays, the self-test kernels, the benchmark data and the CUDA
# engine's probes and knobs of the GPU tests and `sealprov bench gpu`.
noinst_LTLIBRARIES += kit/libsealprov_kit.la
kit_libsealprov_kit_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
kit_libsealprov_kit_la_SOURCES = \
  kit/circuit.h \
  kit/circuit_internal.h \
  kit/circuit.c \
  kit/params.c \
  kit/setup.c \
  kit/spa.h \
  kit/spa.c \
  kit/wtns.h \
  kit/wtns.c \
  kit/zkey.h \
  kit/zkey.c \
  kit/snarkjs_h.c
if HAVE_CUDA
kit_libsealprov_kit_la_SOURCES += \
  kit/gpu/sp_cuda_setup.h \
  kit/gpu/setup.cu \
  kit/gpu/gpu_kit.h \
  kit/gpu/gpu_host.c \
  kit/gpu/selftest.cu
endif

# kit/cli -- the developer commands (docs/design.md, "The CLI"): setup, inspect, wtns and
# the snarkjs modes of prove and verify, in their own program, sealprov-kit (installed in
# $(pkglibexecdir); in a build tree, here), which `sealprov` hands these command lines
# to. They make what a module does not and call its internals directly (inspect --check
# runs the module's readers), so they link the kit and the module's libraries; they use
# the CLI's parser, messages and host (tools/), which the kit itself does not.
pkglibexec_PROGRAMS += kit/cli/sealprov-kit
kit_cli_sealprov_kit_SOURCES = \
  kit/cli/cmd_setup.c kit/cli/inspect.h kit/cli/cmd_inspect.c kit/cli/inspect_binary.c \
  kit/cli/inspect_text.c kit/cli/cmd_wtns.c kit/cli/cmd_snarkjs.c kit/cli/snarkjs_json.h \
  kit/cli/snarkjs_json.c
kit_cli_sealprov_kit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
kit_cli_sealprov_kit_LDADD = tools/libsealprov_host.la $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
