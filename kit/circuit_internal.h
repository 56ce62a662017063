/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* circuit_internal.h -- what the kit's circuit files share: the deterministic
 * randomness, the R1CS as the generator builds it (circuit.c), the INSECURE setup reads
 * it (params.c) and `sealprov setup` writes it as a .r1cs (setup.c). Not for the
 * kit's users: circuit.h is their interface. */
#ifndef SEALPROV_KIT_CIRCUIT_INTERNAL_H
#define SEALPROV_KIT_CIRCUIT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bls12_381/bls12_381.h"
#include "circuit.h"

/* ---- deterministic randomness (xoshiro256**, seeded by splitmix64) --------------- */

typedef struct rng {
  uint64_t s[4];
} rng;

static inline uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Independent streams from one seed: the circuit, the toxic waste and each partition's
 * witness never share random numbers. */
static inline void rng_init(rng *r, uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(rng *r) {
  uint64_t *s = r->s;
  uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return out;
}

static inline uint64_t rng_below(rng *r, uint64_t n) { return rng_next(r) % n; }

static inline void rng_fr(rng *r, fr_t *out) {
  uint8_t wide[64];
  for (int i = 0; i < 8; i++) {
    uint64_t v = rng_next(r);
    for (int k = 0; k < 8; k++) wide[8 * i + k] = (uint8_t)(v >> (8 * k));
  }
  fr_from_bytes_wide(out, wide);
}

static inline void rng_fr_nonzero(rng *r, fr_t *out) {
  do rng_fr(r, out);
  while (fr_is_zero(out));
}

/* ---- the R1CS --------------------------------------------------------------------- */

typedef struct term {
  uint32_t var;   /* inputs 0..inp_size-1, then aux */
  uint32_t coeff; /* index into the coefficient table */
} term;

enum { FREE_NONE = 0, FREE_BIT = 1, FREE_FIELD = 2 };
#define NO_VAR UINT32_MAX

/* One constraint <A,z> * <B,z> = <C,z>. Witness generation assigns free_var a random
 * value first, then solves out_var (which occurs only in C, with coefficient
 * out_coeff) from the rest. */
typedef struct row {
  uint64_t start; /* first term: na A terms, nb B terms, nc C terms (out excluded) */
  uint8_t na, nb, nc;
  uint8_t free_kind;
  uint32_t free_var;
  uint32_t out_var;
  uint32_t out_coeff;
} row;

struct sp_circuit {
  sp_shape shape;
  uint64_t n_rows; /* circuit constraints; input constraints follow */
  uint64_t inp_size, aux_size;
  row *rows;
  term *terms;
  uint64_t nterms, cap_terms;
  fr_t *coeffs, *coeff_inv;
  uint32_t ncoeffs, cap_coeffs;
  uint8_t *is_bit;   /* per aux variable */
  uint64_t *bitmaps; /* a_aux | b_inp | b_aux, each ceil(len/64) words */
  uint64_t *a_aux, *b_inp, *b_aux;
  uint64_t a_aux_pop, b_inp_pop, b_aux_pop, bit_vars;
  unsigned log_domain;
};

/* path + ".tmpPID" opened for writing (*tmp_out: its name, malloc'd), or NULL: a file
 * is written under that name and renamed over path once complete. */
FILE *sp_kit_open_tmp(const char *path, char **tmp_out);

#endif
