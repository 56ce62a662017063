/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* snarkjs_h.c -- snarkjs's H (its .zkey convention, zkey.h: sp_groth16_h_snarkjs), for
 * the .zkey prover of the developer kit. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "bls12_381/bls12_381.h"
#include "zkey.h"

/* snarkjs (ffjavascript) takes its roots of unity from the smallest quadratic
 * non-residue q of Fr: w_32 = q^t with r - 1 = 2^32 t, w_k = w_32^(2^(32-k)). Our
 * library's come from 7 (fr_root_of_unity). Both are generators of the same cyclic
 * group of order 2^32, so snarkjs's 2^k-th root is ours to an odd power K; the
 * evaluation at snarkjs's w^i is ours at index K i mod 2^k, and our NTTs serve with an
 * index permutation. */
static void snarkjs_root(fr_t *w, unsigned log_n) {
  /* r - 1 = 2^32 t; (r - 1) / 2 = 2^31 t */
  uint64_t t[4], half[4];
  for (int i = 0; i < 4; i++) {
    t[i] = BLS_R[i];
    half[i] = BLS_R[i];
  }
  t[0] -= 1; /* r is odd: no borrow */
  half[0] -= 1;
  for (int i = 0; i < 4; i++) /* half = (r - 1) >> 1 */
    half[i] = half[i] >> 1 | (i < 3 ? half[i + 1] << 63 : 0);
  for (int i = 0; i < 4; i++) /* t = (r - 1) >> 32 */
    t[i] = t[i] >> 32 | (i < 3 ? t[i + 1] << 32 : 0);
  fr_t q, e, minus_one;
  fr_neg(&minus_one, &FR_ONE);
  for (uint64_t cand = 2;; cand++) { /* Euler's criterion; q = 5 for BLS12-381 */
    fr_from_u64(&q, cand);
    fr_pow(&e, &q, half, 4);
    if (fr_eq(&e, &minus_one)) break;
  }
  fr_pow(w, &q, t, 4);
  for (unsigned i = log_n; i < 32; i++) fr_sqr(w, w);
}

/* K with g^K = h in a cyclic group of order 2^m (g a generator): bit by bit. */
static bool dlog_2adic(uint64_t *k_out, const fr_t *g, const fr_t *h, unsigned m) {
  fr_t ginv;
  if (!fr_inv(&ginv, g)) return false;
  uint64_t k = 0;
  for (unsigned i = 0; i < m; i++) {
    fr_t t;
    fr_pow_u64(&t, &ginv, k);
    fr_mul(&t, &t, h); /* order divides 2^(m - i) */
    for (unsigned j = 0; j + 1 + i < m; j++) fr_sqr(&t, &t);
    if (!fr_is_one(&t)) k |= UINT64_C(1) << i;
  }
  fr_t chk;
  fr_pow_u64(&chk, g, k);
  *k_out = k;
  return fr_eq(&chk, h);
}

typedef struct snarkjs_ctx {
  fr_t *a, *b, *c;
  const fr_t *b_in;
  scalar_t *h;
} snarkjs_ctx;

static void snarkjs_ab_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  snarkjs_ctx *x = vctx;
  for (size_t i = begin; i < end; i++) fr_mul(&x->c[i], &x->a[i], &x->b_in[i]);
}

static void snarkjs_h_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  snarkjs_ctx *x = vctx;
  for (size_t i = begin; i < end; i++) {
    fr_t t;
    fr_mul(&t, &x->a[i], &x->b[i]);
    fr_sub(&t, &t, &x->c[i]);
    fr_to_scalar(&x->h[i], &t);
  }
}

/* One vector: evaluations on snarkjs's domain (natural order) -> evaluations on its
 * odd coset, in place. tmp: n scratch elements. */
static bool snarkjs_to_odd(fr_t *v, fr_t *tmp, unsigned log_n, uint64_t k, const fr_t *shift,
                           unsigned nthreads) {
  size_t n = (size_t)1 << log_n;
  uint64_t mask = (uint64_t)n - 1;
  for (size_t i = 0; i < n; i++) tmp[(k * i) & mask] = v[i];
  if (!ntt_inverse(tmp, log_n, nthreads)) return false;
  fr_t p = FR_ONE;
  for (size_t i = 0; i < n; i++) {
    fr_mul(&tmp[i], &tmp[i], &p);
    fr_mul(&p, &p, shift);
  }
  if (!ntt_forward(tmp, log_n, nthreads)) return false;
  for (size_t i = 0; i < n; i++) v[i] = tmp[(k * i) & mask];
  return true;
}

int sp_groth16_h_snarkjs(fr_t *a, fr_t *b, unsigned log_n, unsigned nthreads, scalar_t *h,
                         char *err, size_t errlen) {
  if (!a || !b || !h) {
    sp_set_err(err, errlen, "NULL argument to the snarkjs H computation");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (log_n < 1 || log_n > 28) {
    sp_set_err(err, errlen, "snarkjs domain of 2^%u points: sealprov's NTT takes 2^1 to 2^28",
               log_n);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  size_t n = (size_t)1 << log_n;
  /* W: snarkjs's primitive 2n-th root, the step of its odd coset; K: W = g^K with g our
   * 2n-th root, so snarkjs's n-th root W^2 is ours (g^2) to the power K mod n. */
  fr_t w2n, g2n;
  uint64_t big_k;
  snarkjs_root(&w2n, log_n + 1);
  fr_root_of_unity(&g2n, log_n + 1);
  if (!dlog_2adic(&big_k, &g2n, &w2n, log_n + 1) || (big_k & 1) == 0) {
    sp_set_err(err, errlen,
               "internal: snarkjs's root of unity of order 2^%u is not an odd "
               "power of ours",
               log_n + 1);
    return SEALPROV_ERR_INTERNAL;
  }
  uint64_t k = big_k & ((uint64_t)n - 1);
  fr_t *c = malloc(n * sizeof(fr_t)), *tmp = malloc(n * sizeof(fr_t));
  int rc = SEALPROV_OK;
  if (!c || !tmp) {
    sp_set_err(err, errlen, "out of memory for the snarkjs H vectors (2 x %zu scalars)", n);
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  /* snarkjs takes c as the pointwise product a.b on the domain (not C z). */
  snarkjs_ctx x = {.a = a, .b = b, .c = c, .b_in = b, .h = h};
  if (!bls_parallel_for(n, nthreads, snarkjs_ab_range, &x)) {
    sp_set_err(err, errlen, "out of memory starting threads for a.b");
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  fr_t *vs[3] = {a, b, c};
  static const char *names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; i++)
    if (!snarkjs_to_odd(vs[i], tmp, log_n, k, &w2n, nthreads)) {
      sp_set_err(err, errlen, "out of memory in the NTT of %s (2^%u points)", names[i], log_n);
      rc = SEALPROV_ERR_NO_MEMORY;
      goto out;
    }
  if (!bls_parallel_for(n, nthreads, snarkjs_h_range, &x)) {
    sp_set_err(err, errlen, "out of memory starting threads for the snarkjs h scalars");
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
out:
  free(c);
  free(tmp);
  return rc;
}
