/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* MSM (msm_g1, msm_g2) and batch addition (batch_add_g1, batch_add_g2) against the
 * naive sum, for sizes 0 .. 2^12 and several thread counts.
 *
 * The inputs are chosen to hit the paths a Pippenger implementation gets wrong:
 * scalars 0 and 1 (fast paths), r - 1, small values, all-ones windows (signed digit
 * carries), the largest top limb; points at infinity, the same point repeated, a
 * point next to its negation. The reference is sum_i k_i P_i computed with plain
 * double-and-add scalar multiplications (g*_jac_mul, checked against noble by
 * test_curves); one set of products serves every size as prefix sums. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bls_vectors.h"

#define MAX_N 4096u

static const size_t SIZES[] = {0,   1,   2,    3,    4,    5,    7,    8,    9,
                               15,  16,  31,   33,   64,   100,  127,  255,  256,
                               257, 511, 1000, 1024, 2047, 2048, 3001, 4095, 4096};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])
static const unsigned THREADS[] = {1, 2, 3, 4, 0, 8};
#define NTHREADS (sizeof THREADS / sizeof THREADS[0])

/* Scalars with the edge values at fixed indices and random values elsewhere. */
static void make_scalars(scalar_t *s, size_t n, test_rng *rng) {
  for (size_t i = 0; i < n; i++) {
    memset(&s[i], 0, sizeof s[i]);
    switch (i % 16) {
      case 0: /* random */
      case 5:
      case 9:
      case 13:
      case 14: rng_scalar(rng, &s[i]); break;
      case 1: /* zero */
      case 7: break;
      case 2: /* one */
      case 11: s[i].l[0] = 1; break;
      case 3: /* r - 1 */
        memcpy(s[i].l, BLS_R, sizeof s[i].l);
        s[i].l[0] -= 1;
        break;
      case 4: /* small */ s[i].l[0] = 2 + rng_u64(rng) % 30; break;
      case 6: /* all-ones low bits: every signed window carries */
        s[i].l[0] = ~(uint64_t)0;
        s[i].l[1] = ~(uint64_t)0;
        s[i].l[2] = ~(uint64_t)0;
        s[i].l[3] = 0x3fffffffffffffffULL;
        break;
      case 8: /* the largest top limb below r */
        memcpy(s[i].l, BLS_R, sizeof s[i].l);
        s[i].l[0] = 0;
        break;
      case 10: /* a single high bit */ s[i].l[3] = 1ULL << 62; break;
      case 12: /* 2^k - 1 for a random k < 64, then 2^64 */
        s[i].l[0] = (rng_u64(rng) % 2) ? (1ULL << (rng_u64(rng) % 64)) - 1 : 0;
        s[i].l[1] = s[i].l[0] == 0 ? 1 : 0;
        break;
      case 15: /* random 128-bit */
        s[i].l[0] = rng_u64(rng);
        s[i].l[1] = rng_u64(rng);
        break;
    }
  }
}

/* Bitmap with every pattern: full words, empty words, random words, a ragged end. */
static void make_bitmap(uint64_t *bm, size_t words, test_rng *rng) {
  for (size_t w = 0; w < words; w++) {
    switch (w % 5) {
      case 0: bm[w] = ~(uint64_t)0; break;
      case 1: bm[w] = 0; break;
      case 2: bm[w] = rng_u64(rng); break;
      case 3: bm[w] = rng_u64(rng) & rng_u64(rng); break; /* sparse */
      default: bm[w] = 0x8000000000000001ULL; break;      /* first and last bit */
    }
  }
}

#define MSM_TESTS(G)                                                                        \
  /* Points: a random walk (cheap to generate) with infinity, repeats and negations */      \
  /* spliced in at fixed indices. */                                                        \
  static G##_affine_t *G##_make_points(size_t n, test_rng *rng) {                           \
    G##_affine_t g;                                                                         \
    G##_jac_t gj, cur, steps[8];                                                            \
    G##_generator(&g);                                                                      \
    G##_jac_from_affine(&gj, &g);                                                           \
    for (int k = 0; k < 8; k++) {                                                           \
      scalar_t s;                                                                           \
      rng_scalar(rng, &s);                                                                  \
      G##_jac_mul(&steps[k], &gj, &s);                                                      \
    }                                                                                       \
    cur = steps[0];                                                                         \
    G##_jac_t *jac = malloc(n * sizeof *jac);                                               \
    G##_affine_t *pts = malloc(n * sizeof *pts);                                            \
    ck_assert_ptr_nonnull(jac);                                                             \
    ck_assert_ptr_nonnull(pts);                                                             \
    for (size_t i = 0; i < n; i++) {                                                        \
      G##_jac_add(&cur, &cur, &steps[(i * 5 + i / 8) % 8]);                                 \
      jac[i] = cur;                                                                         \
    }                                                                                       \
    G##_jac_batch_to_affine(pts, jac, n);                                                   \
    free(jac);                                                                              \
    for (size_t i = 0; i < n; i++) {                                                        \
      if (i % 23 == 4)                                                                      \
        G##_affine_set_inf(&pts[i]);                                                        \
      else if (i % 23 == 9 && i >= 3)                                                       \
        pts[i] = pts[i - 3]; /* repeated point */                                           \
      else if (i % 23 == 15 && i >= 1)                                                      \
        G##_affine_neg(&pts[i], &pts[i - 1]); /* P then -P */                               \
    }                                                                                       \
    return pts;                                                                             \
  }                                                                                         \
                                                                                            \
  START_TEST(G##_msm_vs_naive) {                                                            \
    test_rng rng;                                                                           \
    rng_seed(&rng, 900);                                                                    \
    G##_affine_t *pts = G##_make_points(MAX_N, &rng);                                       \
    scalar_t *sc = malloc(MAX_N * sizeof *sc);                                              \
    G##_jac_t *prefix = malloc((MAX_N + 1) * sizeof *prefix);                               \
    ck_assert_ptr_nonnull(sc);                                                              \
    ck_assert_ptr_nonnull(prefix);                                                          \
    make_scalars(sc, MAX_N, &rng);                                                          \
    /* prefix[n] = sum_{i < n} sc[i] * pts[i] */                                            \
    G##_jac_set_inf(&prefix[0]);                                                            \
    for (size_t i = 0; i < MAX_N; i++) {                                                    \
      G##_jac_t t;                                                                          \
      G##_jac_from_affine(&t, &pts[i]);                                                     \
      G##_jac_mul(&t, &t, &sc[i]);                                                          \
      G##_jac_add(&prefix[i + 1], &prefix[i], &t);                                          \
    }                                                                                       \
    for (size_t si = 0; si < NSIZES; si++) {                                                \
      size_t n = SIZES[si];                                                                 \
      /* every thread count for small sizes, a rotating pair for the large ones */          \
      for (size_t ti = 0; ti < NTHREADS; ti++) {                                            \
        if (n > 300 && ti != si % NTHREADS && ti != (si + 1) % NTHREADS) continue;          \
        G##_jac_t out;                                                                      \
        ck_assert(msm_##G(&out, n ? pts : NULL, n ? sc : NULL, n, THREADS[ti]));            \
        ck_assert_msg(G##_jac_eq(&out, &prefix[n]),                                         \
                      "msm_" #G                                                             \
                      " n=%zu threads=%u differs "                                          \
                      "from the naive sum",                                                 \
                      n, THREADS[ti]);                                                      \
      }                                                                                     \
    }                                                                                       \
    /* all scalars 0, all scalars 1, all points infinity */                                 \
    size_t n = 300;                                                                         \
    scalar_t *z = calloc(n, sizeof *z);                                                     \
    ck_assert_ptr_nonnull(z);                                                               \
    G##_jac_t out, want;                                                                    \
    ck_assert(msm_##G(&out, pts, z, n, 2));                                                 \
    ck_assert(G##_jac_is_inf(&out));                                                        \
    G##_jac_set_inf(&want);                                                                 \
    for (size_t i = 0; i < n; i++) {                                                        \
      z[i].l[0] = 1;                                                                        \
      G##_jac_add_affine(&want, &want, &pts[i]);                                            \
    }                                                                                       \
    ck_assert(msm_##G(&out, pts, z, n, 2));                                                 \
    ck_assert_msg(G##_jac_eq(&out, &want), "msm_" #G " with all scalars 1");                \
    G##_affine_t *infs = calloc(n, sizeof *infs);                                           \
    ck_assert_ptr_nonnull(infs);                                                            \
    for (size_t i = 0; i < n; i++) G##_affine_set_inf(&infs[i]);                            \
    ck_assert(msm_##G(&out, infs, sc, n, 3));                                               \
    ck_assert(G##_jac_is_inf(&out));                                                        \
    /* one point repeated n times with random scalars: sum(k_i) * P */                      \
    fr_t total = FR_ZERO;                                                                   \
    for (size_t i = 0; i < n; i++) {                                                        \
      fr_t k;                                                                               \
      infs[i] = pts[1];                                                                     \
      ck_assert(fr_from_scalar(&k, &sc[i]));                                                \
      fr_add(&total, &total, &k);                                                           \
    }                                                                                       \
    scalar_t ts;                                                                            \
    fr_to_scalar(&ts, &total);                                                              \
    G##_jac_from_affine(&want, &pts[1]);                                                    \
    G##_jac_mul(&want, &want, &ts);                                                         \
    ck_assert(msm_##G(&out, infs, sc, n, 4));                                               \
    ck_assert_msg(G##_jac_eq(&out, &want), "msm_" #G " of one repeated point");             \
    free(infs);                                                                             \
    free(z);                                                                                \
    free(pts);                                                                              \
    free(sc);                                                                               \
    free(prefix);                                                                           \
  }                                                                                         \
  END_TEST                                                                                  \
                                                                                            \
  START_TEST(G##_batch_add_vs_naive) {                                                      \
    test_rng rng;                                                                           \
    rng_seed(&rng, 1000);                                                                   \
    G##_affine_t *pts = G##_make_points(MAX_N, &rng);                                       \
    size_t words = (MAX_N + 63) / 64;                                                       \
    uint64_t *bm = malloc(words * sizeof *bm);                                              \
    G##_jac_t *prefix = malloc((MAX_N + 1) * sizeof *prefix);                               \
    ck_assert_ptr_nonnull(bm);                                                              \
    ck_assert_ptr_nonnull(prefix);                                                          \
    make_bitmap(bm, words, &rng);                                                           \
    G##_jac_set_inf(&prefix[0]);                                                            \
    for (size_t i = 0; i < MAX_N; i++) {                                                    \
      if ((bm[i / 64] >> (i % 64)) & 1)                                                     \
        G##_jac_add_affine(&prefix[i + 1], &prefix[i], &pts[i]);                            \
      else                                                                                  \
        prefix[i + 1] = prefix[i];                                                          \
    }                                                                                       \
    for (size_t si = 0; si < NSIZES; si++) {                                                \
      size_t n = SIZES[si];                                                                 \
      for (size_t ti = 0; ti < NTHREADS; ti++) {                                            \
        G##_jac_t out;                                                                      \
        /* bits beyond n are set in the bitmap (ragged end): they must be ignored */        \
        ck_assert(batch_add_##G(&out, n ? pts : NULL, n ? bm : NULL, n, THREADS[ti]));      \
        ck_assert_msg(G##_jac_eq(&out, &prefix[n]), "batch_add_" #G " n=%zu threads=%u", n, \
                      THREADS[ti]);                                                         \
      }                                                                                     \
    }                                                                                       \
    /* empty bitmap, full bitmap */                                                         \
    G##_jac_t out, want;                                                                    \
    memset(bm, 0, words * sizeof *bm);                                                      \
    ck_assert(batch_add_##G(&out, pts, bm, MAX_N, 2));                                      \
    ck_assert(G##_jac_is_inf(&out));                                                        \
    memset(bm, 0xff, words * sizeof *bm);                                                   \
    G##_jac_set_inf(&want);                                                                 \
    for (size_t i = 0; i < 1000; i++) G##_jac_add_affine(&want, &want, &pts[i]);            \
    ck_assert(batch_add_##G(&out, pts, bm, 1000, 3));                                       \
    ck_assert(G##_jac_eq(&out, &want));                                                     \
    free(pts);                                                                              \
    free(bm);                                                                               \
    free(prefix);                                                                           \
  }                                                                                         \
  END_TEST

MSM_TESTS(g1)
MSM_TESTS(g2)

static Suite *msm_suite(void) {
  Suite *s = suite_create("msm");
  TCase *tc = tcase_create("msm");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, g1_msm_vs_naive);
  tcase_add_test(tc, g2_msm_vs_naive);
  suite_add_tcase(s, tc);
  TCase *tb = tcase_create("batch_add");
  tcase_set_timeout(tb, 60);
  tcase_add_test(tb, g1_batch_add_vs_naive);
  tcase_add_test(tb, g2_batch_add_vs_naive);
  suite_add_tcase(s, tb);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(msm_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
