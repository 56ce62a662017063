# kit/ -- the developer kit: never linked into sealprov.so (tests/module/kit_symbols.sh
# checks it), linked by tools/ and tests/ only, first in SP_KIT_LIBS (Makefile.am). The
# synthetic circuits and their INSECURE setup (CPU, and GPU in a CUDA build), the .spa
# assignment files, snarkjs .zkey proving.
noinst_LTLIBRARIES += kit/libsealprov_kit.la
kit_libsealprov_kit_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
kit_libsealprov_kit_la_SOURCES = \
  kit/circuit.h \
  kit/circuit.c \
  kit/spa.h \
  kit/spa.c \
  kit/zkey.h \
  kit/zkey.c
if HAVE_CUDA
kit_libsealprov_kit_la_SOURCES += \
  kit/gpu/sp_cuda_setup.h \
  kit/gpu/setup.cu
endif
