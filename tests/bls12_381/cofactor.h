/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cofactor.h -- points on the BLS12-381 curves with every cofactor component, for the
 * subgroup tests (tests/bls12_381/test_curves.c on the CPU, tests/cuda/test_cuda_checks.c on
 * the GPU). Plain C on the CPU library: no libcheck, so both suites can use it.
 *
 * #E(Fp) = h1 r with h1 = 3 * 11^2 * 10177^2 * 859267^2 * 52437899^2, and
 * #E'(Fp2) = h2 r with h2 = 13^2 * 23^2 * 2713 * 11953 * 262069 * Q2 (Q2 a 448-bit
 * prime). For each prime power q^k of the cofactor, T = [(h r) / q^k] R for a random
 * curve point R has order dividing q^k; the cases are such T alone, P + T with P in
 * the subgroup, sums over several primes, random curve points, points in the subgroup
 * and infinity, and for G1 the eigenvectors of phi on E[q] for the primes q = 1 mod 3
 * (where phi has eigenvalues in F_q). Each case says whether it lies in the subgroup;
 * the generator checks its own work ([q^k] T == O, T != O). */
#ifndef SEALPROV_TESTS_COFACTOR_H
#define SEALPROV_TESTS_COFACTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bls12_381/bls12_381.h"

/* A source of random 64-bit words (the suites' own generators). */
typedef uint64_t (*cof_rng_fn)(void *state);

typedef struct cof_g1_case {
  g1_affine_t p;
  bool in_subgroup; /* by construction */
  char what[64];
} cof_g1_case;

typedef struct cof_g2_case {
  g2_affine_t p;
  bool in_subgroup;
  char what[64];
} cof_g2_case;

/* Enough room for every case of one call. */
#define COF_MAX_CASES 96

/* Fills out[] (COF_MAX_CASES entries) and returns the number of cases, or -1 with err
 * filled when the construction failed its own checks. */
int cof_cases_g1(cof_g1_case *out, cof_rng_fn rnd, void *state, char *err, size_t errlen);
int cof_cases_g2(cof_g2_case *out, cof_rng_fn rnd, void *state, char *err, size_t errlen);

/* The definition: [r] P == O (infinity: true). */
bool cof_g1_by_definition(const g1_affine_t *p);
bool cof_g2_by_definition(const g2_affine_t *p);

#endif
