# SPDX-License-Identifier: Apache-2.0 OR MIT
# compat -- libsealprov_c2: the supraseal-c2 C entry points (create_SRS, ...,
# generate_groth16_proofs_c, Curio's split API) on top of the vtable, for hosts that
# link supraseal-c2 today (docs/integration.md). Installed next to the module; it
# dlopens the module like any host and exports only the supraseal-c2 names.
pkglib_LTLIBRARIES += compat/libsealprov_c2.la
include_HEADERS += compat/sealprov_c2.h
compat_libsealprov_c2_la_SOURCES = compat/c2.c compat/c2_internal.h compat/c2_provider.c \
  compat/sealprov_c2.h compat/c2_map.c compat/c2_map.h compat/c2_convert.c
compat_libsealprov_c2_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/compat \
  -DSP_C2_DEFAULT_PLUGIN='"$(pkglibdir)/sealprov.so"' \
  -DSP_C2_DEFAULT_CONFIG='"$(sysconfdir)/sealprov/sealprov.ini"'
# -fno-optimize-sibling-calls: generate_groth16_proofs_c is defined with Curio's 8
# parameters but also called with 6; no tail call may reuse the stack slots of
# arguments 7 and 8, which then belong to the caller (compat/c2.c).
compat_libsealprov_c2_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -fno-optimize-sibling-calls
# The BLS12-381 code (proof decompression, the conversions of c2_convert.c) is linked in
# and stays hidden: the regex below is the whole exported interface, the supraseal-c2
# names and sealprov's two conversions (tests/compat/c2_symbols.sh checks it).
compat_libsealprov_c2_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -no-undefined \
  -export-symbols-regex '^(create_SRS|evict_SRS|drop_SRS|clone_SRS|generate_groth16_proofs_c|generate_groth16_proofs_start_c|finalize_groth16_proof_c|destroy_pending_proof|create_gpu_mutex|destroy_gpu_mutex|sealprov_c2_fr_from_canonical|sealprov_c2_proof_compress)$$'
compat_libsealprov_c2_la_LIBADD = plugin/bls12_381/libbls12_381.la $(DL_LIBS) $(PTHREAD_LIBS)
# pkg-config --libs sealprov-c2: -L and -rpath to the module directory, -lsealprov_c2
pkgconfig_DATA += compat/sealprov-c2.pc
EXTRA_DIST += compat/sealprov-c2.pc.in
# The supraseal-c2 crate's replacement build script, which links the crate's extern
# functions to this library (docs/integration.md); installed for the Curio and Lotus
# builds that copy it (pkg-config --variable=build_rs sealprov-c2). Compiled and run by
# tests/compat/c2_rust.sh.
c2rustdir = $(pkgdatadir)/supraseal-c2
dist_c2rust_DATA = compat/rust/build.rs
EXTRA_DIST += docs/integration.md
