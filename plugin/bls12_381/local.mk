# SPDX-License-Identifier: Apache-2.0 OR MIT
# BLS12-381 CPU library (convenience library linked into the module, tests, CLI).
noinst_LTLIBRARIES += plugin/bls12_381/libbls12_381.la
plugin_bls12_381_libbls12_381_la_CFLAGS = $(AM_CFLAGS) -O3
plugin_bls12_381_libbls12_381_la_SOURCES = \
  plugin/bls12_381/bls12_381.h \
  plugin/bls12_381/field_impl.h \
  plugin/bls12_381/fp.c \
  plugin/bls12_381/fr.c \
  plugin/bls12_381/fp2.c \
  plugin/bls12_381/fp12.c \
  plugin/bls12_381/pairing.c \
  plugin/bls12_381/curve_impl.h \
  plugin/bls12_381/g1.c \
  plugin/bls12_381/g2.c \
  plugin/bls12_381/serialize.c \
  plugin/bls12_381/msm_impl.h \
  plugin/bls12_381/msm.c \
  plugin/bls12_381/parallel.c \
  plugin/bls12_381/ntt.c
