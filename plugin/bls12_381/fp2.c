/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Fp2 = Fp[u] / (u^2 + 1), elements c0 + c1 u.
 *
 * Constants were computed with python3 from p (see fp.c); exponents are canonical
 * little-endian 64-bit limbs.
 */
#include "field_impl.h"

const fp2_t FP2_ZERO = {{{0, 0, 0, 0, 0, 0}}, {{0, 0, 0, 0, 0, 0}}};
/* c0 = Montgomery 1 (2**384 % p), c1 = 0. */
const fp2_t FP2_ONE = {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                         0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
                       {{0, 0, 0, 0, 0, 0}}};

/* (p - 3) / 4 and (p - 1) / 2, for the square root below. */
static const uint64_t P_MINUS_3_DIV_4[6] = {0xee7fbfffffffeaaaULL, 0x07aaffffac54ffffULL,
                                            0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL,
                                            0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL};
static const uint64_t P_MINUS_1_DIV_2[6] = {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL,
                                            0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL,
                                            0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  fp_add_i(&r->c0, &a->c0, &b->c0);
  fp_add_i(&r->c1, &a->c1, &b->c1);
}

void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  fp_sub_i(&r->c0, &a->c0, &b->c0);
  fp_sub_i(&r->c1, &a->c1, &b->c1);
}

void fp2_dbl(fp2_t *r, const fp2_t *a) {
  fp_add_i(&r->c0, &a->c0, &a->c0);
  fp_add_i(&r->c1, &a->c1, &a->c1);
}

void fp2_neg(fp2_t *r, const fp2_t *a) {
  fp_neg_i(&r->c0, &a->c0);
  fp_neg_i(&r->c1, &a->c1);
}

void fp2_conj(fp2_t *r, const fp2_t *a) {
  r->c0 = a->c0;
  fp_neg_i(&r->c1, &a->c1);
}

void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  /* Karatsuba: three Fp multiplications instead of four. */
  fp_t t0, t1, s0, s1, m;
  fp_mul_i(&t0, &a->c0, &b->c0);
  fp_mul_i(&t1, &a->c1, &b->c1);
  fp_add_i(&s0, &a->c0, &a->c1);
  fp_add_i(&s1, &b->c0, &b->c1);
  fp_mul_i(&m, &s0, &s1);
  fp_sub_i(&r->c0, &t0, &t1); /* u^2 = -1 */
  fp_sub_i(&m, &m, &t0);
  fp_sub_i(&r->c1, &m, &t1);
}

void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b) {
  fp_mul_i(&r->c0, &a->c0, b);
  fp_mul_i(&r->c1, &a->c1, b);
}

void fp2_sqr(fp2_t *r, const fp2_t *a) {
  /* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: two multiplications. */
  fp_t s, d, m;
  fp_add_i(&s, &a->c0, &a->c1);
  fp_sub_i(&d, &a->c0, &a->c1);
  fp_mul_i(&m, &a->c0, &a->c1);
  fp_mul_i(&r->c0, &s, &d);
  fp_add_i(&r->c1, &m, &m);
}

void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a) {
  /* (c0 + c1 u)(1 + u) = (c0 - c1) + (c0 + c1) u */
  fp_t t0;
  fp_sub_i(&t0, &a->c0, &a->c1);
  fp_add_i(&r->c1, &a->c0, &a->c1);
  r->c0 = t0;
}

bool fp2_inv(fp2_t *r, const fp2_t *a) {
  /* 1 / (c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2): one Fp inversion. */
  fp_t n0, n1, inv;
  fp_sqr_i(&n0, &a->c0);
  fp_sqr_i(&n1, &a->c1);
  fp_add_i(&n0, &n0, &n1);
  if (!fp_inv(&inv, &n0)) {
    *r = FP2_ZERO;
    return false;
  }
  fp_mul_i(&r->c0, &a->c0, &inv);
  fp_mul_i(&n1, &a->c1, &inv);
  fp_neg_i(&r->c1, &n1);
  return true;
}

/* Fixed 4-bit windows, most significant first (as fp_pow): ~380 squarings and ~95
 * multiplications for a 381-bit exponent. Used by the square root, i.e. by every G2
 * decompression. */
static void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *e, size_t nlimbs) {
  fp2_t table[16];
  table[0] = FP2_ONE;
  table[1] = *a;
  for (int i = 2; i < 16; i++) fp2_mul(&table[i], &table[i - 1], a);
  fp2_t acc = FP2_ONE;
  bool started = false;
  for (size_t li = nlimbs; li-- > 0;) {
    for (int shift = 60; shift >= 0; shift -= 4) {
      unsigned w = (unsigned)(e[li] >> shift) & 15u;
      if (started) {
        for (int k = 0; k < 4; k++) fp2_sqr(&acc, &acc);
      }
      if (w != 0) {
        if (started) {
          fp2_mul(&acc, &acc, &table[w]);
        } else {
          acc = table[w];
          started = true;
        }
      }
    }
  }
  *r = acc;
}

bool fp2_sqrt(fp2_t *r, const fp2_t *a) {
  /* Algorithm 9 of Adj and Rodriguez-Henriquez, "Square root computation over even
   * extension fields" (eprint 2012/685), for p = 3 mod 4:
   *   a1 = a^((p-3)/4), alpha = a1^2 a = a^((p-1)/2), a0 = alpha^p alpha = N(a)^((p-1)/2)
   *   a0 == -1      -> not a square
   *   x0 = a1 a     (= a^((p+1)/4))
   *   alpha == -1   -> x = u x0
   *   otherwise     -> x = (1 + alpha)^((p-1)/2) x0
   * The result is squared back and compared, so a slip anywhere cannot return a
   * wrong root. */
  fp2_t a1, alpha, a0, x0, x, minus_one, check;
  fp2_pow(&a1, a, P_MINUS_3_DIV_4, 6);
  fp2_sqr(&alpha, &a1);
  fp2_mul(&alpha, &alpha, a);
  fp2_conj(&a0, &alpha); /* alpha^p is the conjugate */
  fp2_mul(&a0, &a0, &alpha);
  fp2_neg(&minus_one, &FP2_ONE);
  if (fp2_eq(&a0, &minus_one)) return false;
  fp2_mul(&x0, &a1, a);
  if (fp2_eq(&alpha, &minus_one)) {
    /* u (c0 + c1 u) = -c1 + c0 u */
    fp_neg_i(&x.c0, &x0.c1);
    x.c1 = x0.c0;
  } else {
    fp2_t b;
    fp2_add(&b, &alpha, &FP2_ONE);
    fp2_pow(&b, &b, P_MINUS_1_DIV_2, 6);
    fp2_mul(&x, &b, &x0);
  }
  fp2_sqr(&check, &x);
  if (!fp2_eq(&check, a)) return false;
  *r = x;
  return true;
}

void fp2_frobenius(fp2_t *r, const fp2_t *a, unsigned power) {
  /* x -> x^p is conjugation (u^p = -u since p = 3 mod 4); it has order 2. */
  if (power & 1)
    fp2_conj(r, a);
  else
    *r = *a;
}

bool fp2_is_zero(const fp2_t *a) { return fp_is_zero_i(&a->c0) && fp_is_zero_i(&a->c1); }

bool fp2_eq(const fp2_t *a, const fp2_t *b) {
  return fp_eq_i(&a->c0, &b->c0) && fp_eq_i(&a->c1, &b->c1);
}

bool fp2_is_lexicographically_largest(const fp2_t *a) {
  /* zcash / IETF rule: the imaginary part decides unless it is zero. */
  if (!fp_is_zero_i(&a->c1)) return fp_is_lexicographically_largest(&a->c1);
  return fp_is_lexicographically_largest(&a->c0);
}
