/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Reading the @noble/curves vectors of tests/bls12_381/vectors/ (made by
 * tests/oracle/gen_vectors.mjs; the format is described at the top of that script and
 * in each file's header). Test-only helpers: on a malformed file they fail the
 * running Check test with the file name and line, they never return garbage. */
#ifndef SEALPROV_TESTS_BLS_VECTORS_H
#define SEALPROV_TESTS_BLS_VECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bls12_381/bls12_381.h"

#define VEC_MAX_TOKENS 300

typedef struct {
  FILE *f;
  char path[4096];
  char *line; /* current line (tokens point into it) */
  size_t cap;
  unsigned lineno;
  int ntok;
  char *tok[VEC_MAX_TOKENS];
} vec_file;

/* Directory of the vectors: $BLS_VECTORS_DIR, else $top_srcdir/tests/bls12_381/vectors
 * (exported by the test harness), else the source directory known at build time. */
const char *vec_dir(void);
/* Opens name inside vec_dir(); fails the current test if it cannot. */
void vec_open(vec_file *vf, const char *name);
/* Next non-comment line split into tokens; false at end of file. */
bool vec_next(vec_file *vf);
void vec_close(vec_file *vf);
/* "file:line" of the current line, for messages. */
const char *vec_where(const vec_file *vf);

/* Token parsers; each fails the test (naming the line) on a malformed token. */
void vec_hex(const vec_file *vf, int i, uint8_t *out, size_t len);
size_t vec_hex_any(const vec_file *vf, int i, uint8_t *out, size_t cap); /* "-" = empty */
unsigned long vec_uint(const vec_file *vf, int i);
bool vec_is(const vec_file *vf, int i, const char *s);

void vec_fr(const vec_file *vf, int i, fr_t *r); /* 64 hex digits, canonical */
void vec_scalar(const vec_file *vf, int i, scalar_t *r);
void vec_fp(const vec_file *vf, int i, fp_t *r);   /* 96 hex digits */
void vec_fp2(const vec_file *vf, int i, fp2_t *r); /* c0 c1 */
void vec_fp6(const vec_file *vf, int i, fp6_t *r);
void vec_fp12(const vec_file *vf, int i, fp12_t *r); /* fp12_to_bytes order */

/* Hex of an element for failure messages (static buffer per call site is enough:
 * messages are formatted before the next call). */
void hex_of(char *out, const uint8_t *in, size_t len);

/* Growable pools of field elements indexed by the order of the "v" lines. */
typedef struct {
  void *items;
  size_t size, n, cap;
} vec_pool;
void pool_init(vec_pool *p, size_t elem_size);
void *pool_push(vec_pool *p);
/* Element I named by token i; fails the test if out of range. */
const void *pool_at(const vec_pool *p, const vec_file *vf, int i);
void pool_free(vec_pool *p);

/* Deterministic test randomness (xoshiro256**), seeded explicitly. */
typedef struct {
  uint64_t s[4];
} test_rng;
void rng_seed(test_rng *r, uint64_t seed);
uint64_t rng_u64(test_rng *r);
void rng_fr(test_rng *r, fr_t *out);
void rng_scalar(test_rng *r, scalar_t *out);

#endif
