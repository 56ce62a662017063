/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Fr, Fp, Fp2, Fp6, Fp12 against @noble/curves (tests/bls12_381/vectors/{fr,fp,fp2,fp12}.txt),
 * plus the conversions and helpers the vectors do not reach (range checks, blst limbs,
 * batch inversion, byte encodings, aliasing of outputs and inputs).
 *
 * Every vector case is checked; the first mismatches are printed with the file line,
 * the operation and both values, then the test fails with the mismatch count, so one
 * run shows how widespread a bug is. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bls_vectors.h"

#define MAX_PRINTED 8

typedef struct {
  unsigned cases, fails;
} tally;

static void mismatch(tally *t, const vec_file *vf, const char *what, const uint8_t *got,
                     const uint8_t *want, size_t len) {
  t->fails++;
  if (t->fails > MAX_PRINTED) return;
  char *g = malloc(2 * len + 1), *w = malloc(2 * len + 1);
  ck_assert_ptr_nonnull(g);
  ck_assert_ptr_nonnull(w);
  hex_of(g, got, len);
  hex_of(w, want, len);
  fprintf(stderr, "%s: %s mismatch\n  got  %s\n  want %s\n", vec_where(vf), what, g, w);
  free(g);
  free(w);
}

static void expect_bytes(tally *t, const vec_file *vf, const char *what, const uint8_t *got,
                         const uint8_t *want, size_t len) {
  t->cases++;
  if (memcmp(got, want, len) != 0) mismatch(t, vf, what, got, want, len);
}

static void expect_true(tally *t, const vec_file *vf, const char *what, bool ok) {
  t->cases++;
  if (!ok) {
    t->fails++;
    if (t->fails <= MAX_PRINTED) fprintf(stderr, "%s: %s failed\n", vec_where(vf), what);
  }
}

/* ------------------------------------------------------------------ encoders */
static void fr_bytes(uint8_t out[32], const fr_t *a) { fr_to_be32(out, a); }
static void fp_bytes(uint8_t out[48], const fp_t *a) { fp_to_be48(out, a); }
static void fp2_bytes(uint8_t out[96], const fp2_t *a) {
  fp_to_be48(out, &a->c0);
  fp_to_be48(out + 48, &a->c1);
}
static void fp6_bytes(uint8_t out[288], const fp6_t *a) {
  fp2_bytes(out, &a->c0);
  fp2_bytes(out + 96, &a->c1);
  fp2_bytes(out + 192, &a->c2);
}
/* Our own encoding in the documented order, independent of fp12_to_bytes, which is
 * itself checked against it below. */
static void fp12_bytes(uint8_t out[576], const fp12_t *a) {
  fp6_bytes(out, &a->c0);
  fp6_bytes(out + 288, &a->c1);
}

/* Compare an Fr result with token i of the current line. */
static void want_fr(tally *t, const vec_file *vf, int i, const char *what, const fr_t *got) {
  uint8_t g[32], w[32];
  fr_bytes(g, got);
  vec_hex(vf, i, w, 32);
  expect_bytes(t, vf, what, g, w, 32);
}
static void want_fp(tally *t, const vec_file *vf, int i, const char *what, const fp_t *got) {
  uint8_t g[48], w[48];
  fp_bytes(g, got);
  vec_hex(vf, i, w, 48);
  expect_bytes(t, vf, what, g, w, 48);
}
static void want_fp2(tally *t, const vec_file *vf, int i, const char *what, const fp2_t *got) {
  uint8_t g[96], w[96];
  fp2_bytes(g, got);
  vec_hex(vf, i, w, 96);
  expect_bytes(t, vf, what, g, w, 96);
}
static void want_fp6(tally *t, const vec_file *vf, int i, const char *what, const fp6_t *got) {
  uint8_t g[288], w[288];
  fp6_bytes(g, got);
  vec_hex(vf, i, w, 288);
  expect_bytes(t, vf, what, g, w, 288);
}
static void want_fp12(tally *t, const vec_file *vf, int i, const char *what, const fp12_t *got) {
  uint8_t g[576], w[576];
  fp12_bytes(g, got);
  vec_hex(vf, i, w, 576);
  expect_bytes(t, vf, what, g, w, 576);
}

static void finish(const char *file, const tally *t, unsigned min_cases) {
  fprintf(stderr, "%s: %u checks, %u mismatches\n", file, t->cases, t->fails);
  ck_assert_msg(t->fails == 0, "%s: %u of %u checks disagree with @noble/curves", file, t->fails,
                t->cases);
  ck_assert_msg(t->cases >= min_cases, "%s: only %u checks ran, expected >= %u", file, t->cases,
                min_cases);
}

/* ------------------------------------------------------------------ Fr */
START_TEST(fr_against_noble) {
  vec_file vf;
  vec_pool pool;
  tally t = {0, 0};
  vec_open(&vf, "fr.txt");
  pool_init(&pool, sizeof(fr_t));
  while (vec_next(&vf)) {
    fr_t r, x;
    if (vec_is(&vf, 0, "v")) {
      vec_fr(&vf, 1, pool_push(&pool));
    } else if (vec_is(&vf, 0, "add") || vec_is(&vf, 0, "sub") || vec_is(&vf, 0, "mul")) {
      const fr_t *a = pool_at(&pool, &vf, 1), *b = pool_at(&pool, &vf, 2);
      void (*op)(fr_t *, const fr_t *, const fr_t *) = vec_is(&vf, 0, "add")   ? fr_add
                                                       : vec_is(&vf, 0, "sub") ? fr_sub
                                                                               : fr_mul;
      op(&r, a, b);
      want_fr(&t, &vf, 3, vf.tok[0], &r);
      x = *a; /* output aliasing the first input */
      op(&x, &x, b);
      want_fr(&t, &vf, 3, "aliased", &x);
      x = *b; /* and the second */
      op(&x, a, &x);
      want_fr(&t, &vf, 3, "aliased2", &x);
    } else if (vec_is(&vf, 0, "sqr")) {
      const fr_t *a = pool_at(&pool, &vf, 1);
      fr_sqr(&r, a);
      want_fr(&t, &vf, 2, "sqr", &r);
      fr_mul(&r, a, a);
      want_fr(&t, &vf, 2, "mul(a,a)", &r);
    } else if (vec_is(&vf, 0, "neg")) {
      fr_neg(&r, pool_at(&pool, &vf, 1));
      want_fr(&t, &vf, 2, "neg", &r);
    } else if (vec_is(&vf, 0, "inv")) {
      const fr_t *a = pool_at(&pool, &vf, 1);
      bool ok = fr_inv(&r, a);
      if (vec_is(&vf, 2, "none")) {
        expect_true(&t, &vf, "inv(0) returns false and 0", !ok && fr_is_zero(&r));
      } else {
        expect_true(&t, &vf, "inv returns true", ok);
        want_fr(&t, &vf, 2, "inv", &r);
      }
    } else if (vec_is(&vf, 0, "pow")) {
      const fr_t *a = pool_at(&pool, &vf, 1);
      scalar_t e;
      vec_scalar(&vf, 2, &e);
      fr_pow(&r, a, e.l, 4);
      want_fr(&t, &vf, 3, "pow", &r);
      if (e.l[1] == 0 && e.l[2] == 0 && e.l[3] == 0) {
        fr_pow_u64(&r, a, e.l[0]);
        want_fr(&t, &vf, 3, "pow_u64", &r);
      }
    } else if (vec_is(&vf, 0, "wide")) {
      uint8_t wide[64];
      vec_hex(&vf, 1, wide, 64);
      fr_from_bytes_wide(&r, wide);
      want_fr(&t, &vf, 2, "from_bytes_wide", &r);
    } else if (vec_is(&vf, 0, "root")) {
      fr_root_of_unity(&r, (unsigned)vec_uint(&vf, 1));
      want_fr(&t, &vf, 2, "root_of_unity", &r);
    } else {
      ck_abort_msg("%s: unknown op %s", vec_where(&vf), vf.tok[0]);
    }
  }
  vec_close(&vf);
  pool_free(&pool);
  finish("fr.txt", &t, 1000);
}
END_TEST

/* ------------------------------------------------------------------ Fp */
START_TEST(fp_against_noble) {
  vec_file vf;
  vec_pool pool;
  tally t = {0, 0};
  vec_open(&vf, "fp.txt");
  pool_init(&pool, sizeof(fp_t));
  while (vec_next(&vf)) {
    fp_t r, x;
    if (vec_is(&vf, 0, "v")) {
      vec_fp(&vf, 1, pool_push(&pool));
    } else if (vec_is(&vf, 0, "add") || vec_is(&vf, 0, "sub") || vec_is(&vf, 0, "mul")) {
      const fp_t *a = pool_at(&pool, &vf, 1), *b = pool_at(&pool, &vf, 2);
      void (*op)(fp_t *, const fp_t *, const fp_t *) = vec_is(&vf, 0, "add")   ? fp_add
                                                       : vec_is(&vf, 0, "sub") ? fp_sub
                                                                               : fp_mul;
      op(&r, a, b);
      want_fp(&t, &vf, 3, vf.tok[0], &r);
      x = *a;
      op(&x, &x, b);
      want_fp(&t, &vf, 3, "aliased", &x);
      x = *b;
      op(&x, a, &x);
      want_fp(&t, &vf, 3, "aliased2", &x);
      if (vec_is(&vf, 0, "add") && fp_eq(a, b)) {
        fp_dbl(&r, a);
        want_fp(&t, &vf, 3, "dbl", &r);
      }
    } else if (vec_is(&vf, 0, "sqr")) {
      const fp_t *a = pool_at(&pool, &vf, 1);
      fp_sqr(&r, a);
      want_fp(&t, &vf, 2, "sqr", &r);
      fp_add(&x, a, a);
      fp_dbl(&r, a);
      expect_true(&t, &vf, "dbl == add(a,a)", fp_eq(&x, &r));
    } else if (vec_is(&vf, 0, "neg")) {
      fp_neg(&r, pool_at(&pool, &vf, 1));
      want_fp(&t, &vf, 2, "neg", &r);
    } else if (vec_is(&vf, 0, "inv")) {
      bool ok = fp_inv(&r, pool_at(&pool, &vf, 1));
      if (vec_is(&vf, 2, "none")) {
        expect_true(&t, &vf, "inv(0) returns false and 0", !ok && fp_is_zero(&r));
      } else {
        expect_true(&t, &vf, "inv returns true", ok);
        want_fp(&t, &vf, 2, "inv", &r);
      }
    } else if (vec_is(&vf, 0, "sqrt")) {
      const fp_t *a = pool_at(&pool, &vf, 1);
      bool ok = fp_sqrt(&r, a);
      if (vec_is(&vf, 2, "none")) {
        expect_true(&t, &vf, "sqrt of a non-residue returns false", !ok);
      } else {
        fp_t want, neg;
        vec_fp(&vf, 2, &want);
        fp_neg(&neg, &want);
        expect_true(&t, &vf, "sqrt returns true", ok);
        /* noble picks one root; either sign is a correct square root */
        expect_true(&t, &vf, "sqrt = +-noble's root", fp_eq(&r, &want) || fp_eq(&r, &neg));
        fp_sqr(&x, &r);
        expect_true(&t, &vf, "sqrt(a)^2 == a", fp_eq(&x, a));
      }
    } else if (vec_is(&vf, 0, "pow")) {
      uint8_t eb[48];
      uint64_t e[6];
      vec_hex(&vf, 2, eb, 48);
      for (int k = 0; k < 6; k++) {
        e[k] = 0;
        for (int j = 0; j < 8; j++) e[k] = e[k] << 8 | eb[48 - 8 * (k + 1) + j];
      }
      fp_pow(&r, pool_at(&pool, &vf, 1), e, 6);
      want_fp(&t, &vf, 3, "pow", &r);
    } else if (vec_is(&vf, 0, "largest")) {
      bool want = vec_uint(&vf, 2) == 1;
      expect_true(&t, &vf, "is_lexicographically_largest",
                  fp_is_lexicographically_largest(pool_at(&pool, &vf, 1)) == want);
    } else {
      ck_abort_msg("%s: unknown op %s", vec_where(&vf), vf.tok[0]);
    }
  }
  vec_close(&vf);
  pool_free(&pool);
  finish("fp.txt", &t, 1000);
}
END_TEST

/* ------------------------------------------------------------------ Fp2 */
START_TEST(fp2_against_noble) {
  vec_file vf;
  vec_pool pool;
  tally t = {0, 0};
  vec_open(&vf, "fp2.txt");
  pool_init(&pool, sizeof(fp2_t));
  while (vec_next(&vf)) {
    fp2_t r, x;
    if (vec_is(&vf, 0, "v")) {
      vec_fp2(&vf, 1, pool_push(&pool));
    } else if (vec_is(&vf, 0, "add") || vec_is(&vf, 0, "sub") || vec_is(&vf, 0, "mul")) {
      const fp2_t *a = pool_at(&pool, &vf, 1), *b = pool_at(&pool, &vf, 2);
      void (*op)(fp2_t *, const fp2_t *, const fp2_t *) = vec_is(&vf, 0, "add")   ? fp2_add
                                                          : vec_is(&vf, 0, "sub") ? fp2_sub
                                                                                  : fp2_mul;
      op(&r, a, b);
      want_fp2(&t, &vf, 3, vf.tok[0], &r);
      x = *a;
      op(&x, &x, b);
      want_fp2(&t, &vf, 3, "aliased", &x);
      x = *b;
      op(&x, a, &x);
      want_fp2(&t, &vf, 3, "aliased2", &x);
      if (vec_is(&vf, 0, "mul") && fp_is_zero(&b->c1)) {
        fp2_mul_fp(&r, a, &b->c0);
        want_fp2(&t, &vf, 3, "mul_fp", &r);
      }
    } else if (vec_is(&vf, 0, "sqr")) {
      const fp2_t *a = pool_at(&pool, &vf, 1);
      fp2_sqr(&r, a);
      want_fp2(&t, &vf, 2, "sqr", &r);
      x = *a;
      fp2_sqr(&x, &x);
      want_fp2(&t, &vf, 2, "sqr aliased", &x);
      fp2_dbl(&r, a);
      fp2_add(&x, a, a);
      expect_true(&t, &vf, "dbl == add(a,a)", fp2_eq(&r, &x));
    } else if (vec_is(&vf, 0, "neg")) {
      fp2_neg(&r, pool_at(&pool, &vf, 1));
      want_fp2(&t, &vf, 2, "neg", &r);
    } else if (vec_is(&vf, 0, "conj")) {
      fp2_conj(&r, pool_at(&pool, &vf, 1));
      want_fp2(&t, &vf, 2, "conj", &r);
    } else if (vec_is(&vf, 0, "mulnr")) {
      fp2_mul_by_nonresidue(&r, pool_at(&pool, &vf, 1));
      want_fp2(&t, &vf, 2, "mul_by_nonresidue", &r);
    } else if (vec_is(&vf, 0, "frob")) {
      fp2_frobenius(&r, pool_at(&pool, &vf, 1), (unsigned)vec_uint(&vf, 2));
      want_fp2(&t, &vf, 3, "frobenius", &r);
    } else if (vec_is(&vf, 0, "inv")) {
      const fp2_t *a = pool_at(&pool, &vf, 1);
      bool ok = fp2_inv(&r, a);
      if (vec_is(&vf, 2, "none")) {
        expect_true(&t, &vf, "inv(0) returns false", !ok);
      } else {
        expect_true(&t, &vf, "inv returns true", ok);
        want_fp2(&t, &vf, 2, "inv", &r);
      }
    } else if (vec_is(&vf, 0, "sqrt")) {
      const fp2_t *a = pool_at(&pool, &vf, 1);
      bool ok = fp2_sqrt(&r, a);
      if (vec_is(&vf, 2, "none")) {
        expect_true(&t, &vf, "sqrt of a non-residue returns false", !ok);
      } else {
        fp2_t want, neg;
        vec_fp2(&vf, 2, &want);
        fp2_neg(&neg, &want);
        expect_true(&t, &vf, "sqrt returns true", ok);
        expect_true(&t, &vf, "sqrt = +-noble's root", fp2_eq(&r, &want) || fp2_eq(&r, &neg));
        fp2_sqr(&x, &r);
        expect_true(&t, &vf, "sqrt(a)^2 == a", fp2_eq(&x, a));
      }
    } else if (vec_is(&vf, 0, "largest")) {
      bool want = vec_uint(&vf, 2) == 1;
      expect_true(&t, &vf, "fp2_is_lexicographically_largest",
                  fp2_is_lexicographically_largest(pool_at(&pool, &vf, 1)) == want);
    } else {
      ck_abort_msg("%s: unknown op %s", vec_where(&vf), vf.tok[0]);
    }
  }
  vec_close(&vf);
  pool_free(&pool);
  finish("fp2.txt", &t, 1000);
}
END_TEST

/* ------------------------------------------------------------------ Fp6 / Fp12 */
START_TEST(fp12_against_noble) {
  vec_file vf;
  vec_pool pool6, pool;
  tally t6 = {0, 0}, t = {0, 0};
  vec_open(&vf, "fp12.txt");
  pool_init(&pool6, sizeof(fp6_t));
  pool_init(&pool, sizeof(fp12_t));
  while (vec_next(&vf)) {
    fp6_t r6, x6;
    fp12_t r, x;
    if (vec_is(&vf, 0, "v6")) {
      vec_fp6(&vf, 1, pool_push(&pool6));
    } else if (vec_is(&vf, 0, "mul6")) {
      const fp6_t *a = pool_at(&pool6, &vf, 1), *b = pool_at(&pool6, &vf, 2);
      fp6_mul(&r6, a, b);
      want_fp6(&t6, &vf, 3, "fp6_mul", &r6);
      x6 = *a;
      fp6_mul(&x6, &x6, b);
      want_fp6(&t6, &vf, 3, "fp6_mul aliased", &x6);
    } else if (vec_is(&vf, 0, "sqr6")) {
      fp6_sqr(&r6, pool_at(&pool6, &vf, 1));
      want_fp6(&t6, &vf, 2, "fp6_sqr", &r6);
    } else if (vec_is(&vf, 0, "inv6")) {
      bool ok = fp6_inv(&r6, pool_at(&pool6, &vf, 1));
      expect_true(&t6, &vf, "fp6_inv returns true", ok);
      want_fp6(&t6, &vf, 2, "fp6_inv", &r6);
    } else if (vec_is(&vf, 0, "mulnr6")) {
      fp6_mul_by_nonresidue(&r6, pool_at(&pool6, &vf, 1));
      want_fp6(&t6, &vf, 2, "fp6_mul_by_nonresidue", &r6);
    } else if (vec_is(&vf, 0, "frob6")) {
      fp6_frobenius(&r6, pool_at(&pool6, &vf, 1), (unsigned)vec_uint(&vf, 2));
      want_fp6(&t6, &vf, 3, "fp6_frobenius", &r6);
    } else if (vec_is(&vf, 0, "v")) {
      fp12_t *e = pool_push(&pool);
      vec_fp12(&vf, 1, e);
      /* the public encoding must agree with the documented order */
      uint8_t want[576], got[576];
      vec_hex(&vf, 1, want, 576);
      fp12_to_bytes(got, e);
      expect_bytes(&t, &vf, "fp12_to_bytes", got, want, 576);
      expect_true(&t, &vf, "fp12_from_bytes", fp12_from_bytes(&x, want) && fp12_eq(&x, e));
    } else if (vec_is(&vf, 0, "mul")) {
      const fp12_t *a = pool_at(&pool, &vf, 1), *b = pool_at(&pool, &vf, 2);
      fp12_mul(&r, a, b);
      want_fp12(&t, &vf, 3, "mul", &r);
      x = *a;
      fp12_mul(&x, &x, b);
      want_fp12(&t, &vf, 3, "mul aliased", &x);
      x = *b;
      fp12_mul(&x, a, &x);
      want_fp12(&t, &vf, 3, "mul aliased2", &x);
    } else if (vec_is(&vf, 0, "sqr")) {
      const fp12_t *a = pool_at(&pool, &vf, 1);
      fp12_sqr(&r, a);
      want_fp12(&t, &vf, 2, "sqr", &r);
      x = *a;
      fp12_sqr(&x, &x);
      want_fp12(&t, &vf, 2, "sqr aliased", &x);
    } else if (vec_is(&vf, 0, "inv")) {
      const fp12_t *a = pool_at(&pool, &vf, 1);
      bool ok = fp12_inv(&r, a);
      expect_true(&t, &vf, "inv returns true", ok);
      want_fp12(&t, &vf, 2, "inv", &r);
      fp12_mul(&x, &r, a);
      expect_true(&t, &vf, "a * inv(a) is one", fp12_is_one(&x));
    } else if (vec_is(&vf, 0, "conj")) {
      fp12_conj(&r, pool_at(&pool, &vf, 1));
      want_fp12(&t, &vf, 2, "conj", &r);
    } else if (vec_is(&vf, 0, "frob")) {
      fp12_frobenius(&r, pool_at(&pool, &vf, 1), (unsigned)vec_uint(&vf, 2));
      want_fp12(&t, &vf, 3, "frobenius", &r);
    } else if (vec_is(&vf, 0, "pow")) {
      scalar_t e;
      vec_scalar(&vf, 2, &e);
      fp12_pow(&r, pool_at(&pool, &vf, 1), e.l, 4);
      want_fp12(&t, &vf, 3, "pow", &r);
    } else {
      ck_abort_msg("%s: unknown op %s", vec_where(&vf), vf.tok[0]);
    }
  }
  vec_close(&vf);
  pool_free(&pool6);
  pool_free(&pool);
  finish("fp12.txt (Fp6)", &t6, 100);
  finish("fp12.txt (Fp12)", &t, 1000);
}
END_TEST

/* ------------------------------------------------------------------ conversions */
static void be_of_limbs(uint8_t *out, const uint64_t *limbs, size_t n) {
  for (size_t k = 0; k < n; k++)
    for (size_t j = 0; j < 8; j++) out[8 * n - 1 - (8 * k + j)] = (uint8_t)(limbs[k] >> (8 * j));
}

START_TEST(fr_range_checks) {
  uint64_t lim[4];
  uint8_t be[32], le[32];
  fr_t x;
  /* r itself, r + 1 and 2^256 - 1 are not canonical; r - 1 is */
  memcpy(lim, BLS_R, sizeof lim);
  ck_assert(!fr_from_canonical(&x, lim));
  ck_assert(!fr_from_blst_mont(&x, lim));
  be_of_limbs(be, lim, 4);
  ck_assert(!fr_from_be32(&x, be));
  for (int i = 0; i < 32; i++) le[i] = be[31 - i];
  ck_assert(!fr_from_le32(&x, le));
  scalar_t s;
  memcpy(s.l, lim, sizeof lim);
  ck_assert(!fr_from_scalar(&x, &s));
  lim[0] += 1;
  ck_assert(!fr_from_canonical(&x, lim));
  memset(be, 0xff, sizeof be);
  ck_assert(!fr_from_be32(&x, be));
  ck_assert(!fr_from_le32(&x, be));

  memcpy(lim, BLS_R, sizeof lim);
  lim[0] -= 1; /* r - 1 = -1 */
  ck_assert(fr_from_canonical(&x, lim));
  fr_t minus_one;
  fr_neg(&minus_one, &FR_ONE);
  ck_assert(fr_eq(&x, &minus_one));
  uint64_t back[4];
  fr_to_canonical(back, &x);
  ck_assert_mem_eq(back, lim, sizeof lim);

  /* blst limbs are the Montgomery representation: copying ours back must round-trip */
  fr_t y;
  ck_assert(fr_from_blst_mont(&y, x.l));
  ck_assert(fr_eq(&y, &x));
  /* LE and BE encodings of the same value */
  test_rng rng;
  rng_seed(&rng, 11);
  for (int n = 0; n < 200; n++) {
    fr_t a, b;
    rng_fr(&rng, &a);
    fr_to_le32(le, &a);
    fr_to_be32(be, &a);
    for (int i = 0; i < 32; i++) ck_assert_uint_eq(le[i], be[31 - i]);
    ck_assert(fr_from_le32(&b, le) && fr_eq(&a, &b));
    ck_assert(fr_from_be32(&b, be) && fr_eq(&a, &b));
    fr_to_scalar(&s, &a);
    ck_assert(fr_from_scalar(&b, &s) && fr_eq(&a, &b));
    ck_assert_mem_eq(s.l, le, 32); /* scalar_t is the LE value (x86-64 is little-endian) */
  }
  fr_from_u64(&x, 0);
  ck_assert(fr_is_zero(&x));
  fr_from_u64(&x, 1);
  ck_assert(fr_is_one(&x));
  fr_coset_generator(&x);
  fr_from_u64(&y, 7);
  ck_assert(fr_eq(&x, &y));
}
END_TEST

START_TEST(fp_range_checks) {
  uint64_t lim[6];
  uint8_t be[48], le[48];
  fp_t x, y;
  memcpy(lim, BLS_P, sizeof lim);
  ck_assert(!fp_from_canonical(&x, lim));
  ck_assert(!fp_from_blst_mont(&x, lim));
  be_of_limbs(be, lim, 6);
  ck_assert(!fp_from_be48(&x, be));
  for (int i = 0; i < 48; i++) le[i] = be[47 - i];
  ck_assert(!fp_from_le48(&x, le));
  memset(be, 0xff, sizeof be);
  ck_assert(!fp_from_be48(&x, be));
  lim[0] -= 1;
  ck_assert(fp_from_canonical(&x, lim));
  fp_neg(&y, &FP_ONE);
  ck_assert(fp_eq(&x, &y));
  ck_assert(fp_is_lexicographically_largest(&x));
  ck_assert(!fp_is_lexicographically_largest(&BLS_FP_ZERO));
  test_rng rng;
  rng_seed(&rng, 12);
  for (int n = 0; n < 200; n++) {
    uint64_t c[6];
    for (int k = 0; k < 6; k++) c[k] = rng_u64(&rng);
    c[5] &= 0x0fffffffffffffffULL; /* < 2^380 < p */
    ck_assert(fp_from_canonical(&x, c));
    uint64_t back[6];
    fp_to_canonical(back, &x);
    ck_assert_mem_eq(back, c, sizeof c);
    fp_to_be48(be, &x);
    fp_to_le48(le, &x);
    for (int i = 0; i < 48; i++) ck_assert_uint_eq(le[i], be[47 - i]);
    ck_assert(fp_from_le48(&y, le) && fp_eq(&x, &y));
    ck_assert(fp_from_blst_mont(&y, x.l) && fp_eq(&x, &y));
  }
  fp_from_u64(&x, 1);
  ck_assert(fp_is_one(&x));
  fp_from_u64(&x, 0);
  ck_assert(fp_is_zero(&x));
  ck_assert(fp_is_zero(&BLS_FP_ZERO));
  /* pow with an empty or zero exponent is 1 */
  fp_from_u64(&x, 12345);
  uint64_t zero = 0;
  fp_pow(&y, &x, &zero, 1);
  ck_assert(fp_is_one(&y));
}
END_TEST

START_TEST(fr_batch_inversion) {
  test_rng rng;
  rng_seed(&rng, 13);
  size_t sizes[] = {0, 1, 2, 7, 100, 1000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    fr_t *in = calloc(n + 1, sizeof *in), *out = calloc(n + 1, sizeof *out);
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    for (size_t i = 0; i < n; i++) {
      if (i % 5 == 3)
        in[i] = FR_ZERO; /* zeros map to zero and must not poison the others */
      else
        rng_fr(&rng, &in[i]);
    }
    fr_batch_inv(out, in, n);
    for (size_t i = 0; i < n; i++) {
      fr_t want;
      fr_inv(&want, &in[i]);
      ck_assert_msg(fr_eq(&out[i], &want), "batch_inv n=%zu index %zu", n, i);
    }
    fr_batch_inv(in, in, n); /* in place */
    for (size_t i = 0; i < n; i++)
      ck_assert_msg(fr_eq(&out[i], &in[i]), "batch_inv in place n=%zu index %zu", n, i);
    free(in);
    free(out);
  }
}
END_TEST

START_TEST(fp12_bytes_rejects_noncanonical) {
  uint8_t b[576];
  fp12_to_bytes(b, &FP12_ONE);
  fp12_t x;
  ck_assert(fp12_from_bytes(&x, b) && fp12_is_one(&x));
  fp12_set_one(&x);
  ck_assert(fp12_eq(&x, &FP12_ONE));
  for (int coef = 0; coef < 12; coef++) {
    uint8_t c[576];
    memcpy(c, b, sizeof c);
    be_of_limbs(c + 48 * coef, BLS_P, 6);
    ck_assert_msg(!fp12_from_bytes(&x, c), "coefficient %d = p accepted", coef);
  }
  /* Fp12 add/sub/conj consistency on random elements */
  test_rng rng;
  rng_seed(&rng, 14);
  fp12_t a, s, d;
  uint8_t buf[576];
  for (int i = 0; i < 12; i++) {
    uint64_t c[6];
    for (int k = 0; k < 6; k++) c[k] = rng_u64(&rng);
    c[5] &= 0x0fffffffffffffffULL;
    fp_t v;
    ck_assert(fp_from_canonical(&v, c));
    fp_to_be48(buf + 48 * i, &v);
  }
  ck_assert(fp12_from_bytes(&a, buf));
  fp12_add(&s, &a, &a);
  fp12_sub(&d, &s, &a);
  ck_assert(fp12_eq(&d, &a));
  fp12_conj(&d, &a);
  fp12_conj(&d, &d);
  ck_assert(fp12_eq(&d, &a));
}
END_TEST

static Suite *fields_suite(void) {
  Suite *s = suite_create("fields");
  TCase *tc = tcase_create("noble");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, fr_against_noble);
  tcase_add_test(tc, fp_against_noble);
  tcase_add_test(tc, fp2_against_noble);
  tcase_add_test(tc, fp12_against_noble);
  suite_add_tcase(s, tc);
  TCase *tc2 = tcase_create("conversions");
  tcase_set_timeout(tc2, 30);
  tcase_add_test(tc2, fr_range_checks);
  tcase_add_test(tc2, fp_range_checks);
  tcase_add_test(tc2, fr_batch_inversion);
  tcase_add_test(tc2, fp12_bytes_rejects_noncanonical);
  suite_add_tcase(s, tc2);
  return s;
}

/* The field library's x86-64 products have two paths (field_impl.h): mulx/adcx/adox
 * assembly where the CPU has BMI2 and ADX (the flag below, set from CPUID before main),
 * and portable C. The suite runs on the path this CPU takes, then again on the portable
 * one, so that a machine with ADX (the CI's) checks both. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(SEALPROV_BLS_NO_ASM)
extern int bls_cpu_has_adx;
#define FIELDS_TWO_PATHS 1
#endif

static int run_suite(void) {
  SRunner *sr = srunner_create(fields_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed;
}

int main(void) {
  int failed = run_suite();
#ifdef FIELDS_TWO_PATHS
  if (bls_cpu_has_adx) {
    printf("again on the portable path (the run above took the ADX assembly)\n");
    bls_cpu_has_adx = 0;
    failed += run_suite();
  } else {
    printf("this CPU has no BMI2/ADX: the run above took the portable path only\n");
  }
#endif
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
