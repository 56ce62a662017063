/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_zkey.c -- the snarkjs pieces that need no node: snarkjs's H against a direct
 * evaluation, the decimal conversions of its JSON numbers, and the .zkey reader on
 * keys built here (a valid one, every truncation of it, bn128's prime, bad entries).
 * test_snarkjs.sh checks the same code against snarkjs itself. */
#include "bls12_381/bls12_381.h"
#include "groth16/groth16.h"
#include "sealprov.h"
#include "zkey.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERRLEN 1024

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd64(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void rnd_fr(fr_t *v) {
  uint8_t b[64];
  for (int i = 0; i < 64; i++) b[i] = (uint8_t)rnd64();
  fr_from_bytes_wide(v, b);
}

/* ---- snarkjs's H, directly ------------------------------------------------------------ */

/* snarkjs's primitive 2^k-th root, from 5 (its smallest quadratic non-residue) */
static void root5(fr_t *w, unsigned k) {
  uint64_t t[4];
  memcpy(t, BLS_R, sizeof t);
  t[0] -= 1;
  for (int i = 0; i < 4; i++) t[i] = t[i] >> 32 | (i < 3 ? t[i + 1] << 32 : 0);
  fr_t five;
  fr_from_u64(&five, 5);
  fr_pow(w, &five, t, 4);
  for (unsigned i = k; i < 32; i++) fr_sqr(w, w);
}

/* value at x of the polynomial that takes v[i] at w^i, i < n (O(n^2)) */
static void interp_eval(fr_t *out, const fr_t *v, size_t n, const fr_t *w, const fr_t *x) {
  /* coefficients p_k = 1/n sum_i v_i w^(-ik), then sum_k p_k x^k */
  fr_t winv, ninv, nn, acc = FR_ZERO, xk = FR_ONE;
  fr_inv(&winv, w);
  fr_from_u64(&nn, n);
  fr_inv(&ninv, &nn);
  for (size_t k = 0; k < n; k++) {
    fr_t pk = FR_ZERO, step, cur = FR_ONE;
    fr_pow_u64(&step, &winv, k);
    for (size_t i = 0; i < n; i++) {
      fr_t t;
      fr_mul(&t, &v[i], &cur);
      fr_add(&pk, &pk, &t);
      fr_mul(&cur, &cur, &step);
    }
    fr_mul(&pk, &pk, &ninv);
    fr_t t;
    fr_mul(&t, &pk, &xk);
    fr_add(&acc, &acc, &t);
    fr_mul(&xk, &xk, x);
  }
  *out = acc;
}

START_TEST(h_matches_direct_evaluation) {
  for (unsigned log_n = 1; log_n <= 5; log_n++) {
    size_t n = (size_t)1 << log_n;
    fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *a0 = malloc(n * sizeof *a0),
         *b0 = malloc(n * sizeof *b0), *c0 = malloc(n * sizeof *c0);
    scalar_t *h = malloc(n * sizeof *h);
    ck_assert(a && b && a0 && b0 && c0 && h);
    for (size_t i = 0; i < n; i++) {
      rnd_fr(&a0[i]);
      rnd_fr(&b0[i]);
      fr_mul(&c0[i], &a0[i], &b0[i]);
      a[i] = a0[i];
      b[i] = b0[i];
    }
    char err[ERRLEN] = "";
    ck_assert_msg(sp_groth16_h_snarkjs(a, b, log_n, 2, h, err, sizeof err) == SEALPROV_OK, "%s",
                  err);
    fr_t wn, w2n;
    root5(&wn, log_n);
    root5(&w2n, log_n + 1);
    for (size_t j = 0; j < n; j++) {
      fr_t x, ea, eb, ec, want;
      fr_pow_u64(&x, &w2n, 2 * j + 1);
      interp_eval(&ea, a0, n, &wn, &x);
      interp_eval(&eb, b0, n, &wn, &x);
      interp_eval(&ec, c0, n, &wn, &x);
      fr_mul(&want, &ea, &eb);
      fr_sub(&want, &want, &ec);
      scalar_t ws;
      fr_to_scalar(&ws, &want);
      ck_assert_msg(memcmp(&ws, &h[j], sizeof ws) == 0, "2^%u: h[%zu] differs", log_n, j);
    }
    free(a), free(b), free(a0), free(b0), free(c0), free(h);
  }
}
END_TEST

START_TEST(h_refuses_bad_sizes) {
  fr_t a[2], b[2];
  scalar_t h[2];
  char err[ERRLEN] = "";
  ck_assert_int_eq(sp_groth16_h_snarkjs(a, b, 0, 1, h, err, sizeof err),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(err, "2^0") != NULL);
  ck_assert_int_eq(sp_groth16_h_snarkjs(a, b, 29, 1, h, err, sizeof err),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sp_groth16_h_snarkjs(NULL, b, 1, 1, h, err, sizeof err),
                   SEALPROV_ERR_INVALID_ARGUMENT);
}
END_TEST

/* ---- decimal strings ------------------------------------------------------------------ */

START_TEST(decimal_round_trip) {
  char s[8 * 20 + 1];
  uint64_t zero[6] = {0}, back[6];
  sp_dec_from_limbs(s, zero, 6);
  ck_assert_str_eq(s, "0");
  uint64_t two64[2] = {0, 1};
  sp_dec_from_limbs(s, two64, 2);
  ck_assert_str_eq(s, "18446744073709551616");
  for (int it = 0; it < 200; it++) {
    uint64_t l[6];
    for (int i = 0; i < 6; i++) l[i] = it % 3 == 0 && i > 2 ? 0 : rnd64();
    sp_dec_from_limbs(s, l, 6);
    ck_assert(s[0] != '0' || s[1] == 0);
    ck_assert(sp_dec_to_limbs(back, 6, s));
    ck_assert(memcmp(l, back, sizeof l) == 0);
  }
  /* r - 1 in decimal (BLS12-381's scalar field) */
  uint64_t rm1[4];
  memcpy(rm1, BLS_R, sizeof rm1);
  rm1[0] -= 1;
  sp_dec_from_limbs(s, rm1, 4);
  ck_assert_str_eq(s,
                   "52435875175126190479447740508185965837690552500527637822603658699938581184512");
  ck_assert(!sp_dec_to_limbs(back, 6, ""));
  ck_assert(!sp_dec_to_limbs(back, 6, "12a"));
  ck_assert(!sp_dec_to_limbs(back, 6, "-1"));
  ck_assert(!sp_dec_to_limbs(back, 1, "18446744073709551616")); /* 2^64 */
  ck_assert(sp_dec_to_limbs(back, 1, "18446744073709551615"));
  ck_assert(back[0] == UINT64_MAX);
}
END_TEST

/* ---- .zkey files built here ----------------------------------------------------------- */

typedef struct buf {
  uint8_t *p;
  size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    ck_assert(b->p != NULL);
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void put32(buf *b, uint32_t v) {
  uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  put(b, x, 4);
}
static void put64(buf *b, uint64_t v) {
  put32(b, (uint32_t)v);
  put32(b, (uint32_t)(v >> 32));
}
static void put_fp(buf *b, const fp_t *v) /* Montgomery limbs, little-endian */
{
  for (int i = 0; i < 6; i++) put64(b, v->l[i]);
}
static void put_g1(buf *b) {
  g1_affine_t g;
  g1_generator(&g);
  put_fp(b, &g.x);
  put_fp(b, &g.y);
}
static void put_g2(buf *b) {
  g2_affine_t g;
  g2_generator(&g);
  put_fp(b, &g.x.c0);
  put_fp(b, &g.x.c1);
  put_fp(b, &g.y.c0);
  put_fp(b, &g.y.c1);
}
static void section(buf *f, uint32_t type, const buf *content) {
  put32(f, type);
  put64(f, content->n);
  put(f, content->p, content->n);
}

/* nVars 3, nPublic 1, domain 4; how: 0 valid, 1 bn128 header, 2 a coefficient's signal
 * past nVars. */
static buf make_zkey(int how) {
  buf f = {0}, s = {0};
  put(&f, "zkey", 4);
  put32(&f, 1);
  put32(&f, 10);
  put32(&s, 1);
  section(&f, 1, &s);
  s.n = 0;
  if (how == 1) {
    static const uint8_t bn_q[32] = {0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c,
                                     0x8d, 0xca, 0x71, 0x68, 0x91, 0x6a, 0x81, 0x97,
                                     0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8,
                                     0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
    put32(&s, 32);
    put(&s, bn_q, 32);
  } else {
    put32(&s, 48);
    for (int i = 0; i < 6; i++) put64(&s, BLS_P[i]);
  }
  put32(&s, 32);
  for (int i = 0; i < 4; i++) put64(&s, BLS_R[i]);
  put32(&s, 3); /* nVars */
  put32(&s, 1); /* nPublic */
  put32(&s, 4); /* domainSize */
  put_g1(&s);   /* alpha1 */
  put_g1(&s);   /* beta1 */
  put_g2(&s);   /* beta2 */
  put_g2(&s);   /* gamma2 */
  put_g1(&s);   /* delta1 */
  put_g2(&s);   /* delta2 */
  section(&f, 2, &s);
  s.n = 0;
  put32(&s, 2);
  uint32_t ent[2][3] = {{0, 0, 2}, {1, 0, how == 2 ? 3u : 0u}};
  for (int i = 0; i < 2; i++) {
    put32(&s, ent[i][0]);
    put32(&s, ent[i][1]);
    put32(&s, ent[i][2]);
    put64(&s, 5);
    put64(&s, 0);
    put64(&s, 0);
    put64(&s, 0);
  }
  section(&f, 4, &s);
  unsigned counts[] = {0, 0, 0, 2, 0, 3, 3, 3, 1, 4};
  for (unsigned t = 3; t <= 9; t++) {
    if (t == 4) continue;
    s.n = 0;
    for (unsigned i = 0; i < counts[t]; i++) t == 7 ? put_g2(&s) : put_g1(&s);
    section(&f, t, &s);
  }
  s.n = 0;
  put32(&s, 0);
  section(&f, 10, &s);
  free(s.p);
  return f;
}

static char tmp_path[128];

static void write_file(const uint8_t *p, size_t n) {
  FILE *f = fopen(tmp_path, "wb");
  ck_assert(f != NULL);
  ck_assert(n == 0 || fwrite(p, 1, n, f) == n);
  ck_assert(fclose(f) == 0);
}

static void setup_tmp(void) {
  snprintf(tmp_path, sizeof tmp_path, "%s/sp_test_zkey_%ld.zkey",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
}

START_TEST(zkey_valid_loads_and_proves) {
  setup_tmp();
  buf f = make_zkey(0);
  write_file(f.p, f.n);
  sp_zkey *zk = NULL;
  char err[ERRLEN] = "";
  ck_assert_msg(sp_zkey_load(tmp_path, true, 2, &zk, err, sizeof err) == SEALPROV_OK, "%s", err);
  ck_assert_uint_eq(zk->n_vars, 3);
  ck_assert_uint_eq(zk->n_public, 1);
  ck_assert_uint_eq(zk->domain_size, 4);
  ck_assert_uint_eq(zk->log_n, 2);
  ck_assert_uint_eq(zk->n_coefs, 2);
  ck_assert_uint_eq(zk->vk.ic_len, 2);
  /* the stored 5 stands for 5 R^-2: check the decoding */
  fr_t want, rr;
  fr_from_u64(&want, 5);
  fr_t r_inv_raw = {{1, 0, 0, 0}};
  fr_mul(&rr, &want, &r_inv_raw);
  fr_mul(&rr, &rr, &r_inv_raw);
  ck_assert(fr_eq(&zk->coefs[0].value, &rr));
  /* a witness of 2 values for 3 signals: ASSIGNMENT naming both counts */
  uint8_t w[3 * 32] = {1};
  fr_t zero = FR_ZERO;
  sp_zkey_proof pr;
  ck_assert_int_eq(sp_zkey_prove(zk, w, 2, "w.wtns", &zero, &zero, 1, &pr, err, sizeof err),
                   SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "w.wtns has 2 values") && strstr(err, "nVars 3"), "%s", err);
  /* value 0 must be ONE */
  w[0] = 2;
  ck_assert_int_eq(sp_zkey_prove(zk, w, 3, "w.wtns", &zero, &zero, 1, &pr, err, sizeof err),
                   SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "value 0") != NULL, "%s", err);
  w[0] = 1;
  ck_assert_msg(
      sp_zkey_prove(zk, w, 3, "w.wtns", &zero, &zero, 1, &pr, err, sizeof err) == SEALPROV_OK, "%s",
      err);
  sp_zkey_free(zk);
  unlink(tmp_path);
  free(f.p);
}
END_TEST

START_TEST(zkey_every_truncation_is_refused) {
  setup_tmp();
  buf f = make_zkey(0);
  for (size_t len = 0; len < f.n; len++) {
    write_file(f.p, len);
    sp_zkey *zk = NULL;
    char err[ERRLEN] = "";
    int rc = sp_zkey_load(tmp_path, true, 1, &zk, err, sizeof err);
    ck_assert_msg(rc == SEALPROV_ERR_PARAMS, "length %zu: status %d (%s)", len, rc, err);
    ck_assert(zk == NULL);
    ck_assert_msg(strstr(err, tmp_path) != NULL, "length %zu: message lacks the path: %s", len,
                  err);
  }
  unlink(tmp_path);
  free(f.p);
}
END_TEST

START_TEST(zkey_bn128_is_unsupported) {
  setup_tmp();
  buf f = make_zkey(1);
  write_file(f.p, f.n);
  sp_zkey *zk = NULL;
  char err[ERRLEN] = "";
  ck_assert_int_eq(sp_zkey_load(tmp_path, true, 1, &zk, err, sizeof err), SEALPROV_ERR_UNSUPPORTED);
  ck_assert_msg(
      strstr(err, "bn128") &&
          strstr(err, "0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47"),
      "%s", err);
  unlink(tmp_path);
  free(f.p);
}
END_TEST

START_TEST(zkey_bad_coefficient_is_named) {
  setup_tmp();
  buf f = make_zkey(2);
  write_file(f.p, f.n);
  sp_zkey *zk = NULL;
  char err[ERRLEN] = "";
  ck_assert_int_eq(sp_zkey_load(tmp_path, true, 1, &zk, err, sizeof err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(
      strstr(err, "section 4 (coefficients): entry 1") && strstr(err, "signal is not below nVars"),
      "%s", err);
  /* bad magic */
  f.p[0] = 'Z';
  write_file(f.p, f.n);
  ck_assert_int_eq(sp_zkey_load(tmp_path, true, 1, &zk, err, sizeof err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "not a snarkjs .zkey file") != NULL, "%s", err);
  unlink(tmp_path);
  free(f.p);
}
END_TEST

static Suite *zkey_suite(void) {
  Suite *s = suite_create("zkey");
  TCase *tc = tcase_create("snarkjs");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, h_matches_direct_evaluation);
  tcase_add_test(tc, h_refuses_bad_sizes);
  tcase_add_test(tc, decimal_round_trip);
  tcase_add_test(tc, zkey_valid_loads_and_proves);
  tcase_add_test(tc, zkey_every_truncation_is_refused);
  tcase_add_test(tc, zkey_bn128_is_unsupported);
  tcase_add_test(tc, zkey_bad_coefficient_is_named);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(zkey_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
