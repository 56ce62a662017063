/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Pairing: e(G1, G2) and e(aG1, bG2) byte for byte against @noble/curves
 * (tests/bls12_381/vectors/pairing.txt), multi-pairings against noble's pairingBatch and
 * against the product of single pairings, bilinearity on random points, the
 * degenerate inputs (infinity, n = 0), the Miller loop / final exponentiation split,
 * prepared G2 points, and groth16_pairing_check on a constructed true equation and on
 * each way of breaking it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bls_vectors.h"

static void g1_mul_gen(g1_affine_t *r, const scalar_t *k) {
  g1_affine_t g;
  g1_jac_t j;
  g1_generator(&g);
  g1_jac_from_affine(&j, &g);
  g1_jac_mul(&j, &j, k);
  g1_jac_to_affine(r, &j);
}

static void g2_mul_gen(g2_affine_t *r, const scalar_t *k) {
  g2_affine_t g;
  g2_jac_t j;
  g2_generator(&g);
  g2_jac_from_affine(&j, &g);
  g2_jac_mul(&j, &j, k);
  g2_jac_to_affine(r, &j);
}

static void g1_mul_aff(g1_affine_t *r, const g1_affine_t *p, const fr_t *k) {
  scalar_t s;
  g1_jac_t j;
  fr_to_scalar(&s, k);
  g1_jac_from_affine(&j, p);
  g1_jac_mul(&j, &j, &s);
  g1_jac_to_affine(r, &j);
}

static void g2_mul_aff(g2_affine_t *r, const g2_affine_t *p, const fr_t *k) {
  scalar_t s;
  g2_jac_t j;
  fr_to_scalar(&s, k);
  g2_jac_from_affine(&j, p);
  g2_jac_mul(&j, &j, &s);
  g2_jac_to_affine(r, &j);
}

static void fp12_pow_fr(fp12_t *r, const fp12_t *a, const fr_t *e) {
  scalar_t s;
  fr_to_scalar(&s, e);
  fp12_pow(r, a, s.l, 4);
}

static void expect_gt(const vec_file *vf, int tok, const fp12_t *got, const char *what) {
  uint8_t want[576], enc[576];
  vec_hex(vf, tok, want, 576);
  fp12_to_bytes(enc, got);
  if (memcmp(enc, want, 576) != 0) {
    char g[1153], w[1153];
    hex_of(g, enc, 576);
    hex_of(w, want, 576);
    ck_abort_msg("%s: %s differs from noble\n  got  %s\n  want %s", vec_where(vf), what, g, w);
  }
}

START_TEST(pairing_against_noble) {
  vec_file vf;
  unsigned ngen = 0, npair = 0, nmulti = 0;
  fp12_t gt;
  g1_affine_t g1;
  g2_affine_t g2;
  g1_generator(&g1);
  g2_generator(&g2);
  bls_pairing(&gt, &g1, &g2);
  vec_open(&vf, "pairing.txt");
  while (vec_next(&vf)) {
    if (vec_is(&vf, 0, "gen")) {
      expect_gt(&vf, 1, &gt, "e(G1, G2)");
      ngen++;
    } else if (vec_is(&vf, 0, "pair")) {
      scalar_t a, b;
      g1_affine_t p;
      g2_affine_t q;
      fp12_t f;
      vec_scalar(&vf, 1, &a);
      vec_scalar(&vf, 2, &b);
      g1_mul_gen(&p, &a);
      g2_mul_gen(&q, &b);
      bls_pairing(&f, &p, &q);
      expect_gt(&vf, 3, &f, "e(a G1, b G2)");
      /* the same through the Miller loop and the final exponentiation */
      fp12_t m;
      bls_miller_loop(&m, &p, &q);
      bls_final_exp(&f, &m);
      expect_gt(&vf, 3, &f, "final_exp(miller_loop(a G1, b G2))");
      /* and through a prepared G2 point */
      g2_prepared_t *prep = malloc(sizeof *prep);
      ck_assert_ptr_nonnull(prep);
      g2_prepare(prep, &q);
      const g2_prepared_t *qs[1] = {prep};
      bls_multi_miller_loop(&m, &p, qs, 1);
      bls_final_exp(&f, &m);
      expect_gt(&vf, 3, &f, "prepared Miller loop");
      free(prep);
      npair++;
    } else if (vec_is(&vf, 0, "multi")) {
      size_t n = vec_uint(&vf, 1);
      g1_affine_t *ps = calloc(n, sizeof *ps);
      g2_affine_t *qs = calloc(n, sizeof *qs);
      ck_assert_ptr_nonnull(ps);
      ck_assert_ptr_nonnull(qs);
      fp12_t prod, f;
      fp12_set_one(&prod);
      for (size_t i = 0; i < n; i++) {
        scalar_t a, b;
        vec_scalar(&vf, (int)(2 + 2 * i), &a);
        vec_scalar(&vf, (int)(3 + 2 * i), &b);
        g1_mul_gen(&ps[i], &a);
        g2_mul_gen(&qs[i], &b);
        bls_pairing(&f, &ps[i], &qs[i]);
        fp12_mul(&prod, &prod, &f);
      }
      bls_multi_pairing(&f, ps, qs, n);
      expect_gt(&vf, (int)(2 + 2 * n), &f, "multi_pairing");
      expect_gt(&vf, (int)(2 + 2 * n), &prod, "product of single pairings");
      free(ps);
      free(qs);
      nmulti++;
    } else {
      ck_abort_msg("%s: unknown op %s", vec_where(&vf), vf.tok[0]);
    }
  }
  vec_close(&vf);
  ck_assert_uint_eq(ngen, 1);
  ck_assert_uint_ge(npair, 5);
  ck_assert_uint_ge(nmulti, 3);
}
END_TEST

START_TEST(pairing_bilinear_on_random_points) {
  test_rng rng;
  rng_seed(&rng, 700);
  for (int it = 0; it < 4; it++) {
    scalar_t sp, sq;
    fr_t a, b, ab;
    g1_affine_t p, ap;
    g2_affine_t q, bq;
    fp12_t e_pq, e_apbq, want, e_apq, e_paq;
    rng_scalar(&rng, &sp);
    rng_scalar(&rng, &sq);
    g1_mul_gen(&p, &sp);
    g2_mul_gen(&q, &sq);
    rng_fr(&rng, &a);
    rng_fr(&rng, &b);
    g1_mul_aff(&ap, &p, &a);
    g2_mul_aff(&bq, &q, &b);
    bls_pairing(&e_pq, &p, &q);
    bls_pairing(&e_apbq, &ap, &bq);
    fr_mul(&ab, &a, &b);
    fp12_pow_fr(&want, &e_pq, &ab);
    ck_assert_msg(fp12_eq(&e_apbq, &want), "e(aP, bQ) != e(P, Q)^(ab), iteration %d", it);
    /* e(aP, Q) == e(P, aQ) */
    g2_affine_t aq;
    g2_mul_aff(&aq, &q, &a);
    bls_pairing(&e_apq, &ap, &q);
    bls_pairing(&e_paq, &p, &aq);
    ck_assert(fp12_eq(&e_apq, &e_paq));
    /* e(P, Q) e(-P, Q) == 1 */
    g1_affine_t np;
    g1_affine_neg(&np, &p);
    bls_pairing(&want, &np, &q);
    fp12_mul(&want, &want, &e_pq);
    ck_assert(fp12_is_one(&want));
    /* non-degenerate, and of order r */
    ck_assert(!fp12_is_one(&e_pq));
    fp12_pow(&want, &e_pq, BLS_R, 4);
    ck_assert(fp12_is_one(&want));
  }
}
END_TEST

START_TEST(pairing_degenerate_inputs) {
  g1_affine_t g1, inf1;
  g2_affine_t g2, inf2;
  fp12_t f;
  g1_generator(&g1);
  g2_generator(&g2);
  g1_affine_set_inf(&inf1);
  g2_affine_set_inf(&inf2);
  bls_pairing(&f, &inf1, &g2);
  ck_assert(fp12_is_one(&f));
  bls_pairing(&f, &g1, &inf2);
  ck_assert(fp12_is_one(&f));
  bls_pairing(&f, &inf1, &inf2);
  ck_assert(fp12_is_one(&f));
  bls_multi_pairing(&f, NULL, NULL, 0);
  ck_assert(fp12_is_one(&f));
  /* infinity entries in a multi-pairing contribute 1 */
  g1_affine_t ps[4] = {g1, inf1, g1, g1};
  g2_affine_t qs[4] = {g2, g2, inf2, g2};
  fp12_t single, sq;
  bls_pairing(&single, &g1, &g2);
  fp12_sqr(&sq, &single);
  bls_multi_pairing(&f, ps, qs, 4);
  ck_assert(fp12_eq(&f, &sq));
  /* prepared infinity */
  g2_prepared_t *prep = malloc(2 * sizeof *prep);
  ck_assert_ptr_nonnull(prep);
  g2_prepare(&prep[0], &inf2);
  ck_assert(prep[0].infinity);
  g2_prepare(&prep[1], &g2);
  ck_assert(!prep[1].infinity);
  const g2_prepared_t *pq[2] = {&prep[0], &prep[1]};
  g1_affine_t pp[2] = {g1, g1};
  fp12_t m;
  bls_multi_miller_loop(&m, pp, pq, 2);
  bls_final_exp(&f, &m);
  ck_assert(fp12_eq(&f, &single));
  free(prep);
}
END_TEST

/* A Groth16 verification equation that holds by construction:
 *   a b = alpha beta + x gamma + c delta   (in the exponent)
 * with A = a G1, B = b G2, alpha G1, beta G2, gamma G2, delta G2, X = x G1, C = c G1. */
START_TEST(groth16_check_true_and_false) {
  test_rng rng;
  rng_seed(&rng, 800);
  fr_t a, b, al, be, ga, de, x, c, t, u;
  rng_fr(&rng, &a);
  rng_fr(&rng, &b);
  rng_fr(&rng, &al);
  rng_fr(&rng, &be);
  rng_fr(&rng, &ga);
  rng_fr(&rng, &de);
  rng_fr(&rng, &x);
  /* c = (a b - alpha beta - x gamma) / delta */
  fr_mul(&c, &a, &b);
  fr_mul(&t, &al, &be);
  fr_sub(&c, &c, &t);
  fr_mul(&t, &x, &ga);
  fr_sub(&c, &c, &t);
  ck_assert(fr_inv(&u, &de));
  fr_mul(&c, &c, &u);

  g1_affine_t g1, A, alpha, X, C;
  g2_affine_t g2, B, beta, gamma, delta;
  g1_generator(&g1);
  g2_generator(&g2);
  g1_mul_aff(&A, &g1, &a);
  g1_mul_aff(&alpha, &g1, &al);
  g1_mul_aff(&X, &g1, &x);
  g1_mul_aff(&C, &g1, &c);
  g2_mul_aff(&B, &g2, &b);
  g2_mul_aff(&beta, &g2, &be);
  g2_mul_aff(&gamma, &g2, &ga);
  g2_mul_aff(&delta, &g2, &de);

  groth16_pvk_t *pvk = malloc(sizeof *pvk);
  ck_assert_ptr_nonnull(pvk);
  groth16_prepare_vk(pvk, &alpha, &beta, &gamma, &delta);
  fp12_t ab;
  bls_pairing(&ab, &alpha, &beta);
  ck_assert(fp12_eq(&pvk->alpha_beta, &ab));
  ck_assert(groth16_pairing_check(pvk, &A, &B, &C, &X));

  /* break each element in turn: every one must make the check fail */
  g1_affine_t A2, C2, X2;
  g2_affine_t B2;
  g1_jac_t j;
  g1_jac_from_affine(&j, &C);
  g1_jac_add_affine(&j, &j, &g1);
  g1_jac_to_affine(&C2, &j);
  ck_assert(!groth16_pairing_check(pvk, &A, &B, &C2, &X));
  g1_jac_from_affine(&j, &A);
  g1_jac_add_affine(&j, &j, &g1);
  g1_jac_to_affine(&A2, &j);
  ck_assert(!groth16_pairing_check(pvk, &A2, &B, &C, &X));
  g1_jac_from_affine(&j, &X);
  g1_jac_add_affine(&j, &j, &g1);
  g1_jac_to_affine(&X2, &j);
  ck_assert(!groth16_pairing_check(pvk, &A, &B, &C, &X2));
  g2_affine_neg(&B2, &B);
  ck_assert(!groth16_pairing_check(pvk, &A, &B2, &C, &X));
  /* swapped roles (C for X) and an all-infinity proof */
  ck_assert(!groth16_pairing_check(pvk, &A, &B, &X, &C));
  g1_affine_t inf1;
  g2_affine_t inf2;
  g1_affine_set_inf(&inf1);
  g2_affine_set_inf(&inf2);
  ck_assert(!groth16_pairing_check(pvk, &inf1, &inf2, &inf1, &inf1));
  /* a different verifying key (gamma and delta swapped) rejects the proof */
  groth16_prepare_vk(pvk, &alpha, &beta, &delta, &gamma);
  ck_assert(!groth16_pairing_check(pvk, &A, &B, &C, &X));
  free(pvk);
}
END_TEST

static Suite *pairing_suite(void) {
  Suite *s = suite_create("pairing");
  TCase *tc = tcase_create("pairing");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, pairing_against_noble);
  tcase_add_test(tc, pairing_bilinear_on_random_points);
  tcase_add_test(tc, pairing_degenerate_inputs);
  tcase_add_test(tc, groth16_check_true_and_false);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(pairing_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
