/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Fp6 = Fp2[v] / (v^3 - (u + 1)) and Fp12 = Fp6[w] / (w^2 - v): the BLS12-381 tower
 * (same as zkcrypto, blst and noble), elements c0 + c1 v + c2 v^2 and c0 + c1 w.
 *
 * Frobenius coefficients: with xi = u + 1 and v^3 = xi, w^6 = xi,
 *   (v)^(p^k)   = xi^((p^k - 1) / 3) v,        (v^2)^(p^k) = xi^(2 (p^k - 1) / 3) v^2,
 *   (w)^(p^k)   = xi^((p^k - 1) / 6) w.
 * They were computed with python3 (exact Fp2 arithmetic over the integers, p as in
 * fp.c: pow2((1, 1), (p**k - 1) // 3) etc.) and are stored in Montgomery form
 * (value * 2**384 % p). The self-check in the tests compares the maps with plain
 * exponentiation by p^k.
 */
#include "field_impl.h"

static const fp2_t FP6_FROB_C1[6] = {
    /* k = 0: xi^((p^0 - 1) / 3) */
    {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 1: xi^((p^1 - 1) / 3) */
    {{{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}},
     {{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}}},
    /* k = 2: xi^((p^2 - 1) / 3) */
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 3: xi^((p^3 - 1) / 3) */
    {{{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}},
     {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}}},
    /* k = 4: xi^((p^4 - 1) / 3) */
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 5: xi^((p^5 - 1) / 3) */
    {{{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}},
     {{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}}},
};
static const fp2_t FP6_FROB_C2[6] = {
    /* k = 0: xi^(2 (p^0 - 1) / 3) */
    {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 1: xi^(2 (p^1 - 1) / 3) */
    {{{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
       0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 2: xi^(2 (p^2 - 1) / 3) */
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 3: xi^(2 (p^3 - 1) / 3) */
    {{{0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL,
       0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 4: xi^(2 (p^4 - 1) / 3) */
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 5: xi^(2 (p^5 - 1) / 3) */
    {{{0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL, 0xd5c13cc6f1ca4721ULL,
       0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
};
static const fp2_t FP12_FROB_C1[12] = {
    /* k = 0: xi^((p^0 - 1) / 6) */
    {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 1: xi^((p^1 - 1) / 6) */
    {{{0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL, 0xa35baecab2dc29eeULL,
       0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL}},
     {{0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL, 0xc11b9cba40a8e8d0ULL,
       0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL}}},
    /* k = 2: xi^((p^2 - 1) / 6) */
    {{{0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL, 0xd5c13cc6f1ca4721ULL,
       0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 3: xi^((p^3 - 1) / 6) */
    {{{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
       0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
     {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
       0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}},
    /* k = 4: xi^((p^4 - 1) / 6) */
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 5: xi^((p^5 - 1) / 6) */
    {{{0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL, 0xef517c3266341429ULL,
       0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL}},
     {{0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL, 0x7525cf528d50fe95ULL,
       0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL}}},
    /* k = 6: xi^((p^6 - 1) / 6) */
    {{{0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL,
       0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 7: xi^((p^7 - 1) / 6) */
    {{{0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL, 0xc11b9cba40a8e8d0ULL,
       0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL}},
     {{0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL, 0xa35baecab2dc29eeULL,
       0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL}}},
    /* k = 8: xi^((p^8 - 1) / 6) */
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 9: xi^((p^9 - 1) / 6) */
    {{{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
       0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}},
     {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
       0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}}},
    /* k = 10: xi^((p^10 - 1) / 6) */
    {{{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
       0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
     {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
       0x0000000000000000ULL, 0x0000000000000000ULL}}},
    /* k = 11: xi^((p^11 - 1) / 6) */
    {{{0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL, 0x7525cf528d50fe95ULL,
       0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL}},
     {{0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL, 0xef517c3266341429ULL,
       0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL}}},
};

/* ------------------------------------------------------------------------ Fp6 */

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b) {
  fp2_add(&r->c0, &a->c0, &b->c0);
  fp2_add(&r->c1, &a->c1, &b->c1);
  fp2_add(&r->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b) {
  fp2_sub(&r->c0, &a->c0, &b->c0);
  fp2_sub(&r->c1, &a->c1, &b->c1);
  fp2_sub(&r->c2, &a->c2, &b->c2);
}

void fp6_neg(fp6_t *r, const fp6_t *a) {
  fp2_neg(&r->c0, &a->c0);
  fp2_neg(&r->c1, &a->c1);
  fp2_neg(&r->c2, &a->c2);
}

void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b) {
  /* Karatsuba over the three coefficients (Devegili, O hEigeartaigh, Scott, Dahab,
   * "Multiplication and squaring on pairing-friendly fields", eprint 2006/471):
   * six Fp2 multiplications instead of nine. v^3 = xi folds the v^3, v^4 terms. */
  fp2_t aa, bb, cc, t, s0, s1, c0, c1, c2;
  fp2_mul(&aa, &a->c0, &b->c0);
  fp2_mul(&bb, &a->c1, &b->c1);
  fp2_mul(&cc, &a->c2, &b->c2);

  /* c0 = aa + xi ((a1 + a2)(b1 + b2) - bb - cc) */
  fp2_add(&s0, &a->c1, &a->c2);
  fp2_add(&s1, &b->c1, &b->c2);
  fp2_mul(&t, &s0, &s1);
  fp2_sub(&t, &t, &bb);
  fp2_sub(&t, &t, &cc);
  fp2_mul_by_nonresidue(&t, &t);
  fp2_add(&c0, &t, &aa);

  /* c1 = (a0 + a1)(b0 + b1) - aa - bb + xi cc */
  fp2_add(&s0, &a->c0, &a->c1);
  fp2_add(&s1, &b->c0, &b->c1);
  fp2_mul(&t, &s0, &s1);
  fp2_sub(&t, &t, &aa);
  fp2_sub(&t, &t, &bb);
  fp2_mul_by_nonresidue(&s0, &cc);
  fp2_add(&c1, &t, &s0);

  /* c2 = (a0 + a2)(b0 + b2) - aa - cc + bb */
  fp2_add(&s0, &a->c0, &a->c2);
  fp2_add(&s1, &b->c0, &b->c2);
  fp2_mul(&t, &s0, &s1);
  fp2_sub(&t, &t, &aa);
  fp2_sub(&t, &t, &cc);
  fp2_add(&c2, &t, &bb);

  r->c0 = c0;
  r->c1 = c1;
  r->c2 = c2;
}

void fp6_sqr(fp6_t *r, const fp6_t *a) {
  /* CH-SQR2 from the same paper: three Fp2 squarings and two products. */
  fp2_t s0, s1, s2, s3, s4, t;
  fp2_sqr(&s0, &a->c0);
  fp2_mul(&t, &a->c0, &a->c1);
  fp2_dbl(&s1, &t);
  fp2_sub(&t, &a->c0, &a->c1);
  fp2_add(&t, &t, &a->c2);
  fp2_sqr(&s2, &t);
  fp2_mul(&t, &a->c1, &a->c2);
  fp2_dbl(&s3, &t);
  fp2_sqr(&s4, &a->c2);

  /* c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4 */
  fp2_t c0, c1, c2;
  fp2_mul_by_nonresidue(&t, &s3);
  fp2_add(&c0, &s0, &t);
  fp2_mul_by_nonresidue(&t, &s4);
  fp2_add(&c1, &s1, &t);
  fp2_add(&c2, &s1, &s2);
  fp2_add(&c2, &c2, &s3);
  fp2_sub(&c2, &c2, &s0);
  fp2_sub(&c2, &c2, &s4);
  r->c0 = c0;
  r->c1 = c1;
  r->c2 = c2;
}

void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a) {
  /* (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2 */
  fp2_t t;
  fp2_mul_by_nonresidue(&t, &a->c2);
  r->c2 = a->c1;
  r->c1 = a->c0;
  r->c0 = t;
}

bool fp6_inv(fp6_t *r, const fp6_t *a) {
  /* Adjugate over Fp2 (the v-multiplication matrix is circulant up to xi):
   *   t0 = a0^2 - xi a1 a2,  t1 = xi a2^2 - a0 a1,  t2 = a1^2 - a0 a2,
   *   N  = a0 t0 + xi (a2 t1 + a1 t2),   a^-1 = (t0 + t1 v + t2 v^2) / N. */
  fp2_t t0, t1, t2, x, n;
  fp2_sqr(&t0, &a->c0);
  fp2_mul(&x, &a->c1, &a->c2);
  fp2_mul_by_nonresidue(&x, &x);
  fp2_sub(&t0, &t0, &x);

  fp2_sqr(&t1, &a->c2);
  fp2_mul_by_nonresidue(&t1, &t1);
  fp2_mul(&x, &a->c0, &a->c1);
  fp2_sub(&t1, &t1, &x);

  fp2_sqr(&t2, &a->c1);
  fp2_mul(&x, &a->c0, &a->c2);
  fp2_sub(&t2, &t2, &x);

  fp2_mul(&n, &a->c2, &t1);
  fp2_mul(&x, &a->c1, &t2);
  fp2_add(&n, &n, &x);
  fp2_mul_by_nonresidue(&n, &n);
  fp2_mul(&x, &a->c0, &t0);
  fp2_add(&n, &n, &x);

  if (!fp2_inv(&n, &n)) {
    r->c0 = FP2_ZERO;
    r->c1 = FP2_ZERO;
    r->c2 = FP2_ZERO;
    return false;
  }
  fp2_mul(&r->c0, &t0, &n);
  fp2_mul(&r->c1, &t1, &n);
  fp2_mul(&r->c2, &t2, &n);
  return true;
}

void fp6_frobenius(fp6_t *r, const fp6_t *a, unsigned power) {
  unsigned k = power % 6; /* Frobenius has order 6 on Fp6 */
  fp2_frobenius(&r->c0, &a->c0, k);
  fp2_frobenius(&r->c1, &a->c1, k);
  fp2_frobenius(&r->c2, &a->c2, k);
  fp2_mul(&r->c1, &r->c1, &FP6_FROB_C1[k]);
  fp2_mul(&r->c2, &r->c2, &FP6_FROB_C2[k]);
}

bool fp6_is_zero(const fp6_t *a) {
  return fp2_is_zero(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

bool fp6_eq(const fp6_t *a, const fp6_t *b) {
  return fp2_eq(&a->c0, &b->c0) && fp2_eq(&a->c1, &b->c1) && fp2_eq(&a->c2, &b->c2);
}

/* ----------------------------------------------------------------------- Fp12 */

/* c0 = (1, 0, 0), c1 = 0; the Fp coefficient is Montgomery 1 (2**384 % p). */
#define FP_MONT_ONE                                                                               \
  {                                                                                               \
    {                                                                                             \
      0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL, \
          0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL                                            \
    }                                                                                             \
  }
#define FP_Z             \
  {                      \
    { 0, 0, 0, 0, 0, 0 } \
  }
const fp12_t FP12_ONE = {{{FP_MONT_ONE, FP_Z}, {FP_Z, FP_Z}, {FP_Z, FP_Z}},
                         {{FP_Z, FP_Z}, {FP_Z, FP_Z}, {FP_Z, FP_Z}}};

void fp12_set_one(fp12_t *r) { *r = FP12_ONE; }

void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b) {
  fp6_add(&r->c0, &a->c0, &b->c0);
  fp6_add(&r->c1, &a->c1, &b->c1);
}

void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b) {
  fp6_sub(&r->c0, &a->c0, &b->c0);
  fp6_sub(&r->c1, &a->c1, &b->c1);
}

void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b) {
  /* Karatsuba: aa = a0 b0, bb = a1 b1, c1 = (a0 + a1)(b0 + b1) - aa - bb,
   * c0 = aa + v bb (w^2 = v). */
  fp6_t aa, bb, s0, s1;
  fp6_mul(&aa, &a->c0, &b->c0);
  fp6_mul(&bb, &a->c1, &b->c1);
  fp6_add(&s0, &a->c0, &a->c1);
  fp6_add(&s1, &b->c0, &b->c1);
  fp6_mul(&s0, &s0, &s1);
  fp6_sub(&s0, &s0, &aa);
  fp6_sub(&r->c1, &s0, &bb);
  fp6_mul_by_nonresidue(&bb, &bb);
  fp6_add(&r->c0, &aa, &bb);
}

void fp12_sqr(fp12_t *r, const fp12_t *a) {
  /* Complex squaring: ab = a0 a1,
   * c0 = (a0 + a1)(a0 + v a1) - ab - v ab, c1 = 2 ab: two Fp6 products. */
  fp6_t ab, s, t;
  fp6_mul(&ab, &a->c0, &a->c1);
  fp6_add(&s, &a->c0, &a->c1);
  fp6_mul_by_nonresidue(&t, &a->c1);
  fp6_add(&t, &t, &a->c0);
  fp6_mul(&s, &s, &t);
  fp6_sub(&s, &s, &ab);
  fp6_mul_by_nonresidue(&t, &ab);
  fp6_sub(&r->c0, &s, &t);
  fp6_add(&r->c1, &ab, &ab);
}

bool fp12_inv(fp12_t *r, const fp12_t *a) {
  /* 1 / (a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2) */
  fp6_t t0, t1;
  fp6_sqr(&t0, &a->c0);
  fp6_sqr(&t1, &a->c1);
  fp6_mul_by_nonresidue(&t1, &t1);
  fp6_sub(&t0, &t0, &t1);
  if (!fp6_inv(&t0, &t0)) {
    r->c0 = t0; /* zero from fp6_inv */
    r->c1 = t0;
    return false;
  }
  fp6_mul(&r->c0, &a->c0, &t0);
  fp6_mul(&t1, &a->c1, &t0);
  fp6_neg(&r->c1, &t1);
  return true;
}

void fp12_conj(fp12_t *r, const fp12_t *a) {
  /* x -> x^(p^6): w^(p^6) = -w. On the cyclotomic subgroup this is the inverse. */
  r->c0 = a->c0;
  fp6_neg(&r->c1, &a->c1);
}

void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned power) {
  unsigned k = power % 12;
  fp6_frobenius(&r->c0, &a->c0, k);
  fp6_frobenius(&r->c1, &a->c1, k);
  fp2_mul(&r->c1.c0, &r->c1.c0, &FP12_FROB_C1[k]);
  fp2_mul(&r->c1.c1, &r->c1.c1, &FP12_FROB_C1[k]);
  fp2_mul(&r->c1.c2, &r->c1.c2, &FP12_FROB_C1[k]);
}

void fp12_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t nlimbs) {
  /* Plain square-and-multiply, most significant bit first; the pairing uses its own
   * cyclotomic exponentiation, this one serves tests and general use. */
  fp12_t acc = FP12_ONE;
  fp12_t base = *a; /* a may alias r */
  bool started = false;
  for (size_t li = nlimbs; li-- > 0;) {
    for (int bit = 63; bit >= 0; bit--) {
      if (started) fp12_sqr(&acc, &acc);
      if ((e[li] >> bit) & 1) {
        if (started) {
          fp12_mul(&acc, &acc, &base);
        } else {
          acc = base;
          started = true;
        }
      }
    }
  }
  *r = acc;
}

bool fp12_eq(const fp12_t *a, const fp12_t *b) {
  return fp6_eq(&a->c0, &b->c0) && fp6_eq(&a->c1, &b->c1);
}

bool fp12_is_one(const fp12_t *a) { return fp12_eq(a, &FP12_ONE); }

/* The twelve Fp coefficients in the serialization order of the header:
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1. */
static fp2_t *fp12_pair(fp12_t *a, unsigned i) {
  fp6_t *h = i < 6 ? &a->c0 : &a->c1;
  unsigned j = (i % 6) / 2;
  return j == 0 ? &h->c0 : j == 1 ? &h->c1 : &h->c2;
}

void fp12_to_bytes(uint8_t out[576], const fp12_t *a) {
  fp12_t t = *a; /* a mutable copy lets one accessor serve both directions */
  for (unsigned i = 0; i < 12; i++) {
    fp2_t *q = fp12_pair(&t, i);
    fp_to_be48(out + 48 * i, (i & 1) ? &q->c1 : &q->c0);
  }
}

bool fp12_from_bytes(fp12_t *r, const uint8_t in[576]) {
  fp12_t t;
  for (unsigned i = 0; i < 12; i++) {
    fp2_t *q = fp12_pair(&t, i);
    if (!fp_from_be48((i & 1) ? &q->c1 : &q->c0, in + 48 * i))
      return false; /* a coefficient >= p */
  }
  *r = t;
  return true;
}
