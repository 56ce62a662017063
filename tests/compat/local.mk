# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/compat -- libsealprov_c2: a host declared like the supraseal-c2 callers (upstream,
# current Curio's 8-argument calls and split API, the 7-argument form) proves a
# 10-partition job on CPU devices and compares with the vtable; handles passed again
# after they ended; its exported symbols; bad input and a missing module/INI; the same
# through the crates' Rust declarations (c2_rust.sh, plain rustc).
check_PROGRAMS += tests/compat/c2_host
tests_compat_c2_host_SOURCES = tests/compat/c2_host.c tests/compat/c2_curio.c \
  tests/compat/c2_curio7.c tests/compat/c2_host.h
tests_compat_c2_host_LDADD = compat/libsealprov_c2.la $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
TESTS += tests/compat/c2_symbols.sh tests/compat/c2.sh tests/compat/c2_rust.sh
# one create_SRS per fresh process (c2_load; also dev/validated-load.sh's program): the
# parameters validated once, the record used by the next processes
check_PROGRAMS += tests/compat/c2_load
tests_compat_c2_load_SOURCES = tests/compat/c2_load.c
tests_compat_c2_load_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/compat
tests_compat_c2_load_LDADD = compat/libsealprov_c2.la
TESTS += tests/compat/c2_validated.sh
# One child of Curio's default path, timed (c2_child; dev/ffiselect-child.sh runs it per
# proof type on a GPU): the script on CPU devices at a tiny size, every proof verified
# and the table's fields there.
check_PROGRAMS += tests/compat/c2_child
tests_compat_c2_child_SOURCES = tests/compat/c2_child.c tests/compat/c2_child_make.c \
  tests/compat/c2_child.h tests/compat/c2_kit_witness.c tests/compat/c2_kit_witness.h \
  bench/shapes.c bench/shapes.h
tests_compat_c2_child_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/compat -I$(top_srcdir)/bench
tests_compat_c2_child_LDADD = compat/libsealprov_c2.la $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
TESTS += tests/compat/c2_child.sh
EXTRA_DIST += tests/compat/c2_child.sh dev/ffiselect-child.sh
# A WinningPoSt's latency through the split API while a PoRep stream runs on the same
# device, as Curio's cuzk calls it (c2_post_load; dev/post-under-load.sh runs it on a GPU):
# on CPU devices at tiny sizes, every proof verified and the report's fields there.
check_PROGRAMS += tests/compat/c2_post_load
tests_compat_c2_post_load_SOURCES = tests/compat/c2_post_load.c tests/compat/c2_post_inputs.c \
  tests/compat/c2_post_stream.c tests/compat/c2_post_load.h tests/compat/c2_kit_witness.c \
  tests/compat/c2_kit_witness.h
tests_compat_c2_post_load_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/compat
tests_compat_c2_post_load_LDADD = compat/libsealprov_c2.la $(SP_KIT_LIBS) $(SP_EXTERNAL_LIBS)
TESTS += tests/compat/c2_post_load.sh
EXTRA_DIST += tests/compat/c2_post_load.sh dev/post-under-load.sh
# one copy of the parameters per host: two children at once, one image made and mapped
TESTS += tests/compat/c2_shared_image.sh
# gpu_index -> device_mask on CUDA, mixed and CPU-only device tables (no module needed).
check_PROGRAMS += tests/compat/test_c2_map
TESTS += tests/compat/test_c2_map
tests_compat_test_c2_map_SOURCES = tests/compat/test_c2_map.c compat/c2_map.c compat/c2_map.h
tests_compat_test_c2_map_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/compat
tests_compat_test_c2_map_LDADD = $(DL_LIBS)
SAN_TESTS += tests/compat/c2.sh tests/compat/c2_rust.sh
EXTRA_DIST += tests/compat/c2_symbols.sh tests/compat/c2.sh tests/compat/c2_rust.sh \
  tests/compat/c2_validated.sh tests/compat/c2_shared_image.sh \
  tests/compat/rust_host.rs
# The C host of docs/integration.md, section 8 (docs/examples/c2_prove.c, the page's
# program to the byte): proves a partition through the library and sealprov's two
# conversions (c2_example.sh); the conversions on their own (test_c2_convert).
check_PROGRAMS += tests/compat/c2_prove tests/compat/test_c2_convert
tests_compat_c2_prove_SOURCES = docs/examples/c2_prove.c
tests_compat_c2_prove_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/compat
tests_compat_c2_prove_LDADD = compat/libsealprov_c2.la
tests_compat_test_c2_convert_SOURCES = tests/compat/test_c2_convert.c
tests_compat_test_c2_convert_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/compat
tests_compat_test_c2_convert_LDADD = compat/libsealprov_c2.la plugin/bls12_381/libbls12_381.la
TESTS += tests/compat/test_c2_convert tests/compat/c2_example.sh
SAN_TESTS += tests/compat/test_c2_convert tests/compat/c2_example.sh
EXTRA_DIST += tests/compat/c2_example.sh

