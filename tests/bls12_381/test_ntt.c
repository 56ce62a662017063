/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* NTT over Fr: against @noble/curves' FFT (tests/bls12_381/vectors/ntt.txt), against a direct
 * O(n^2) DFT for small sizes, against direct evaluation at sampled points for large
 * ones, inverse round trips for every size up to 2^16, coset variants at g * omega^i,
 * several thread counts (which must not change a single bit), concurrent calls, and
 * refusal of impossible sizes. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bls_vectors.h"

static const unsigned THREAD_COUNTS[] = {1, 2, 3, 4};
#define NTHREAD_COUNTS (sizeof THREAD_COUNTS / sizeof THREAD_COUNTS[0])

static fr_t *alloc_fr(size_t n) {
  fr_t *p = malloc(n * sizeof *p);
  ck_assert_ptr_nonnull(p);
  return p;
}

static void random_vec(test_rng *rng, fr_t *a, size_t n) {
  for (size_t i = 0; i < n; i++) rng_fr(rng, &a[i]);
}

/* sum_j a[j] x^j (Horner) */
static void poly_eval(fr_t *r, const fr_t *a, size_t n, const fr_t *x) {
  fr_t acc = FR_ZERO;
  for (size_t j = n; j-- > 0;) {
    fr_mul(&acc, &acc, x);
    fr_add(&acc, &acc, &a[j]);
  }
  *r = acc;
}

/* The point where output i of the (coset) transform is evaluated: shift * omega^i. */
static void eval_point(fr_t *x, unsigned log_n, size_t i, bool coset) {
  fr_t w;
  fr_root_of_unity(&w, log_n);
  fr_pow_u64(x, &w, i);
  if (coset) {
    fr_t g;
    fr_coset_generator(&g);
    fr_mul(x, x, &g);
  }
}

static void expect_vec_eq(const fr_t *got, const fr_t *want, size_t n, const char *what,
                          unsigned log_n, unsigned threads) {
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(fr_eq(&got[i], &want[i]), "%s log_n=%u threads=%u: index %zu differs", what,
                  log_n, threads, i);
}

/* ------------------------------------------------------------------ noble */
START_TEST(ntt_against_noble) {
  vec_file vf;
  unsigned cases = 0;
  vec_open(&vf, "ntt.txt");
  while (vec_next(&vf)) {
    unsigned log_n = (unsigned)vec_uint(&vf, 1);
    size_t n = (size_t)1 << log_n;
    ck_assert_msg(vf.ntok == (int)(2 + 2 * n), "%s: expected %zu values", vec_where(&vf), 2 * n);
    fr_t *in = alloc_fr(n), *want = alloc_fr(n), *a = alloc_fr(n);
    for (size_t i = 0; i < n; i++) {
      vec_fr(&vf, (int)(2 + i), &in[i]);
      vec_fr(&vf, (int)(2 + n + i), &want[i]);
    }
    bool (*fn)(fr_t *, unsigned, unsigned) = vec_is(&vf, 0, "fwd")    ? ntt_forward
                                             : vec_is(&vf, 0, "inv")  ? ntt_inverse
                                             : vec_is(&vf, 0, "cfwd") ? ntt_coset_forward
                                             : vec_is(&vf, 0, "cinv") ? ntt_coset_inverse
                                                                      : NULL;
    ck_assert_msg(fn != NULL, "%s: unknown op %s", vec_where(&vf), vf.tok[0]);
    for (size_t t = 0; t < NTHREAD_COUNTS; t++) {
      memcpy(a, in, n * sizeof *a);
      ck_assert(fn(a, log_n, THREAD_COUNTS[t]));
      for (size_t i = 0; i < n; i++)
        ck_assert_msg(fr_eq(&a[i], &want[i]), "%s: %s threads=%u index %zu differs from noble",
                      vec_where(&vf), vf.tok[0], THREAD_COUNTS[t], i);
      cases++;
    }
    free(in);
    free(want);
    free(a);
  }
  vec_close(&vf);
  ck_assert_uint_ge(cases, 24 * NTHREAD_COUNTS);
}
END_TEST

/* ------------------------------------------------------------------ direct DFT */
START_TEST(ntt_matches_direct_dft) {
  test_rng rng;
  rng_seed(&rng, 100);
  for (unsigned log_n = 1; log_n <= 9; log_n++) {
    size_t n = (size_t)1 << log_n;
    fr_t *coef = alloc_fr(n), *want = alloc_fr(n), *cwant = alloc_fr(n), *a = alloc_fr(n);
    random_vec(&rng, coef, n);
    for (size_t i = 0; i < n; i++) {
      fr_t x;
      eval_point(&x, log_n, i, false);
      poly_eval(&want[i], coef, n, &x);
      eval_point(&x, log_n, i, true);
      poly_eval(&cwant[i], coef, n, &x);
    }
    for (size_t t = 0; t < NTHREAD_COUNTS; t++) {
      unsigned th = THREAD_COUNTS[t];
      memcpy(a, coef, n * sizeof *a);
      ck_assert(ntt_forward(a, log_n, th));
      expect_vec_eq(a, want, n, "forward vs DFT", log_n, th);
      ck_assert(ntt_inverse(a, log_n, th));
      expect_vec_eq(a, coef, n, "inverse(forward)", log_n, th);

      memcpy(a, coef, n * sizeof *a);
      ck_assert(ntt_coset_forward(a, log_n, th));
      expect_vec_eq(a, cwant, n, "coset forward vs evaluation at g*omega^i", log_n, th);
      ck_assert(ntt_coset_inverse(a, log_n, th));
      expect_vec_eq(a, coef, n, "coset inverse(coset forward)", log_n, th);

      /* inverse applied to evaluations gives the coefficients */
      memcpy(a, want, n * sizeof *a);
      ck_assert(ntt_inverse(a, log_n, th));
      expect_vec_eq(a, coef, n, "inverse vs coefficients", log_n, th);
      memcpy(a, cwant, n * sizeof *a);
      ck_assert(ntt_coset_inverse(a, log_n, th));
      expect_vec_eq(a, coef, n, "coset inverse vs coefficients", log_n, th);
    }
    free(coef);
    free(want);
    free(cwant);
    free(a);
  }
}
END_TEST

/* Structured inputs whose transforms are known in closed form. */
START_TEST(ntt_structured_inputs) {
  unsigned log_n = 13;
  size_t n = (size_t)1 << log_n;
  fr_t *a = alloc_fr(n);
  /* delta at 0 -> all ones */
  for (size_t i = 0; i < n; i++) a[i] = FR_ZERO;
  a[0] = FR_ONE;
  ck_assert(ntt_forward(a, log_n, 2));
  for (size_t i = 0; i < n; i++) ck_assert_msg(fr_is_one(&a[i]), "delta transform index %zu", i);
  /* all ones -> n at 0, zero elsewhere */
  ck_assert(ntt_forward(a, log_n, 2));
  fr_t nn;
  fr_from_u64(&nn, n);
  ck_assert(fr_eq(&a[0], &nn));
  for (size_t i = 1; i < n; i++)
    ck_assert_msg(fr_is_zero(&a[i]), "constant transform index %zu", i);
  /* X -> omega^i */
  for (size_t i = 0; i < n; i++) a[i] = FR_ZERO;
  a[1] = FR_ONE;
  ck_assert(ntt_forward(a, log_n, 3));
  fr_t w, x = FR_ONE;
  fr_root_of_unity(&w, log_n);
  for (size_t i = 0; i < n; i++) {
    ck_assert_msg(fr_eq(&a[i], &x), "X transform index %zu", i);
    fr_mul(&x, &x, &w);
  }
  free(a);
}
END_TEST

/* ------------------------------------------------------------------ large sizes */
START_TEST(ntt_round_trips_to_2_16) {
  test_rng rng;
  rng_seed(&rng, 200);
  for (unsigned log_n = 1; log_n <= 16; log_n++) {
    size_t n = (size_t)1 << log_n;
    fr_t *orig = alloc_fr(n), *a = alloc_fr(n);
    random_vec(&rng, orig, n);
    unsigned th = THREAD_COUNTS[log_n % NTHREAD_COUNTS];
    memcpy(a, orig, n * sizeof *a);
    ck_assert(ntt_forward(a, log_n, th));
    /* spot-check forward outputs against direct evaluation (O(n) each) */
    for (int s = 0; s < 4; s++) {
      size_t i = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)(rng_u64(&rng) & (n - 1));
      fr_t x, want;
      eval_point(&x, log_n, i, false);
      poly_eval(&want, orig, n, &x);
      ck_assert_msg(fr_eq(&a[i], &want), "forward log_n=%u index %zu vs direct evaluation", log_n,
                    i);
    }
    ck_assert(ntt_inverse(a, log_n, th));
    expect_vec_eq(a, orig, n, "inverse(forward)", log_n, th);

    ck_assert(ntt_coset_forward(a, log_n, th));
    for (int s = 0; s < 4; s++) {
      size_t i = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)(rng_u64(&rng) & (n - 1));
      fr_t x, want;
      eval_point(&x, log_n, i, true);
      poly_eval(&want, orig, n, &x);
      ck_assert_msg(fr_eq(&a[i], &want), "coset forward log_n=%u index %zu vs direct evaluation",
                    log_n, i);
    }
    ck_assert(ntt_coset_inverse(a, log_n, th));
    expect_vec_eq(a, orig, n, "coset inverse(coset forward)", log_n, th);

    /* the other order: inverse first */
    ck_assert(ntt_inverse(a, log_n, th));
    ck_assert(ntt_forward(a, log_n, th));
    expect_vec_eq(a, orig, n, "forward(inverse)", log_n, th);
    free(orig);
    free(a);
  }
}
END_TEST

START_TEST(ntt_thread_counts_agree) {
  /* 2^15 and 2^16 run the blocked and the whole-array stages with up to 7 threads;
   * odd thread counts give unequal chunks. */
  test_rng rng;
  rng_seed(&rng, 300);
  for (unsigned log_n = 15; log_n <= 16; log_n++) {
    size_t n = (size_t)1 << log_n;
    fr_t *orig = alloc_fr(n), *ref = alloc_fr(n), *a = alloc_fr(n);
    random_vec(&rng, orig, n);
    memcpy(ref, orig, n * sizeof *ref);
    ck_assert(ntt_coset_forward(ref, log_n, 1));
    unsigned counts[] = {0, 2, 3, 5, 7, 16};
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
      memcpy(a, orig, n * sizeof *a);
      ck_assert(ntt_coset_forward(a, log_n, counts[t]));
      ck_assert_msg(memcmp(a, ref, n * sizeof *a) == 0, "log_n=%u threads=%u differs", log_n,
                    counts[t]);
    }
    free(orig);
    free(ref);
    free(a);
  }
}
END_TEST

typedef struct {
  fr_t *a;
  unsigned log_n;
  bool ok;
} concurrent_job;

static void *concurrent_main(void *arg) {
  concurrent_job *j = arg;
  j->ok = ntt_forward(j->a, j->log_n, 2) && ntt_coset_inverse(j->a, j->log_n, 2);
  return NULL;
}

START_TEST(ntt_concurrent_calls) {
  /* No shared state: four simultaneous transforms give the sequential result. */
  unsigned log_n = 14;
  size_t n = (size_t)1 << log_n;
  test_rng rng;
  rng_seed(&rng, 400);
  fr_t *orig = alloc_fr(n), *ref = alloc_fr(n);
  random_vec(&rng, orig, n);
  memcpy(ref, orig, n * sizeof *ref);
  ck_assert(ntt_forward(ref, log_n, 1) && ntt_coset_inverse(ref, log_n, 1));
  concurrent_job jobs[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    jobs[i].a = alloc_fr(n);
    memcpy(jobs[i].a, orig, n * sizeof *orig);
    jobs[i].log_n = log_n;
    ck_assert_int_eq(pthread_create(&th[i], NULL, concurrent_main, &jobs[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    ck_assert(jobs[i].ok);
    ck_assert_msg(memcmp(jobs[i].a, ref, n * sizeof *ref) == 0, "concurrent call %d differs", i);
    free(jobs[i].a);
  }
  free(orig);
  free(ref);
}
END_TEST

START_TEST(ntt_rejects_bad_sizes) {
  fr_t a[4] = {FR_ONE, FR_ONE, FR_ZERO, FR_ONE}, b[4];
  memcpy(b, a, sizeof a);
  ck_assert(!ntt_forward(a, 0, 1));
  ck_assert(!ntt_inverse(a, 0, 1));
  ck_assert(!ntt_coset_forward(a, 29, 1));
  ck_assert(!ntt_coset_inverse(a, 40, 1));
  ck_assert_mem_eq(a, b, sizeof a); /* untouched */
}
END_TEST

static Suite *ntt_suite(void) {
  Suite *s = suite_create("ntt");
  TCase *tc = tcase_create("correctness");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, ntt_against_noble);
  tcase_add_test(tc, ntt_matches_direct_dft);
  tcase_add_test(tc, ntt_structured_inputs);
  tcase_add_test(tc, ntt_rejects_bad_sizes);
  suite_add_tcase(s, tc);
  TCase *big = tcase_create("large");
  tcase_set_timeout(big, 120);
  tcase_add_test(big, ntt_round_trips_to_2_16);
  tcase_add_test(big, ntt_thread_counts_agree);
  tcase_add_test(big, ntt_concurrent_calls);
  suite_add_tcase(s, big);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(ntt_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
