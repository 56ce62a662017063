/* Private to plugin/bls12_381: inline cores of the Fp and Fr arithmetic.
 *
 * The public fp_* / fr_* functions are thin wrappers around these. They live in a
 * header so that the towers (fp2.c, fp12.c), the pairing and the hot loops of the
 * curve/MSM/NTT code can inline Montgomery multiplication instead of paying a call
 * per field operation (a 6-limb multiplication is only ~100 instructions, so the
 * call overhead is measurable).
 *
 * Montgomery multiplication is CIOS (Koc, Acar, Kaliski 1996, "Analyzing and
 * comparing Montgomery multiplication algorithms") with the "no final carry"
 * simplification: both moduli leave the top bit of their top limb clear (p < 2^381,
 * r < 2^255), so the running sum fits N limbs plus the two carries A and C and the
 * extra carry word of textbook CIOS is never needed. Inputs must be reduced (< modulus);
 * outputs are reduced.
 */
#ifndef SEALPROV_BLS12_381_FIELD_IMPL_H
#define SEALPROV_BLS12_381_FIELD_IMPL_H

#include "bls12_381.h"

typedef unsigned __int128 bls_u128;

/* -p^-1 mod 2^64 and -r^-1 mod 2^64 (python3: (-pow(m, -1, 2**64)) % 2**64). */
#define FP_INV64 0x89f3fffcfffcfffdULL
#define FR_INV64 0xfffffffeffffffffULL

/* The moduli as limb macros so that they become immediates in the inlined code. */
#define FP_P0 0xb9feffffffffaaabULL
#define FP_P1 0x1eabfffeb153ffffULL
#define FP_P2 0x6730d2a0f6b0f624ULL
#define FP_P3 0x64774b84f38512bfULL
#define FP_P4 0x4b1ba7b6434bacd7ULL
#define FP_P5 0x1a0111ea397fe69aULL

#define FR_R0 0xffffffff00000001ULL
#define FR_R1 0x53bda402fffe5bfeULL
#define FR_R2 0x3339d80809a1d805ULL
#define FR_R3 0x73eda753299d7d48ULL

/* ---------------------------------------------------------------- Fp (6 limbs) */

/* r = t - p if t >= p, else t (t < 2p). */
static inline void fp_reduce_once_i(uint64_t r[6], const uint64_t t[6]) {
  static const uint64_t P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
  uint64_t d[6];
  uint64_t borrow = 0;
  for (int i = 0; i < 6; i++) {
    bls_u128 s = (bls_u128)t[i] - P[i] - borrow;
    d[i] = (uint64_t)s;
    borrow = (uint64_t)(s >> 64) & 1;
  }
  /* borrow set: t < p, keep t. Branch-free select; the compiler makes cmovs. */
  uint64_t mask = 0 - borrow;
  for (int i = 0; i < 6; i++)
    r[i] = (t[i] & mask) | (d[i] & ~mask);
}

static inline void fp_add_i(fp_t *r, const fp_t *a, const fp_t *b) {
  uint64_t t[6];
  uint64_t carry = 0;
  /* a + b < 2p < 2^382: no carry out of the top limb. */
  for (int i = 0; i < 6; i++) {
    bls_u128 s = (bls_u128)a->l[i] + b->l[i] + carry;
    t[i] = (uint64_t)s;
    carry = (uint64_t)(s >> 64);
  }
  fp_reduce_once_i(r->l, t);
}

static inline void fp_sub_i(fp_t *r, const fp_t *a, const fp_t *b) {
  static const uint64_t P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
  uint64_t t[6];
  uint64_t borrow = 0;
  for (int i = 0; i < 6; i++) {
    bls_u128 s = (bls_u128)a->l[i] - b->l[i] - borrow;
    t[i] = (uint64_t)s;
    borrow = (uint64_t)(s >> 64) & 1;
  }
  /* On borrow the true result is t + p (mod 2^384). */
  uint64_t mask = 0 - borrow;
  uint64_t carry = 0;
  for (int i = 0; i < 6; i++) {
    bls_u128 s = (bls_u128)t[i] + (P[i] & mask) + carry;
    r->l[i] = (uint64_t)s;
    carry = (uint64_t)(s >> 64);
  }
}

static inline bool fp_is_zero_i(const fp_t *a) {
  return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}

static inline void fp_neg_i(fp_t *r, const fp_t *a) {
  static const uint64_t P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
  /* p - a, except that -0 must stay 0 (not p, which is unreduced). */
  uint64_t mask = fp_is_zero_i(a) ? 0 : ~(uint64_t)0;
  uint64_t borrow = 0;
  for (int i = 0; i < 6; i++) {
    bls_u128 s = (bls_u128)P[i] - a->l[i] - borrow;
    r->l[i] = (uint64_t)s & mask;
    borrow = (uint64_t)(s >> 64) & 1;
  }
}

static inline void fp_dbl_i(fp_t *r, const fp_t *a) { fp_add_i(r, a, a); }

static inline void fp_mul_i(fp_t *r, const fp_t *a, const fp_t *b) {
  static const uint64_t P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
  uint64_t t[6] = {0, 0, 0, 0, 0, 0};
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++) {
    uint64_t bi = b->l[i];
    bls_u128 s = (bls_u128)a->l[0] * bi + t[0];
    uint64_t A = (uint64_t)(s >> 64);
    uint64_t t0 = (uint64_t)s;
    uint64_t m = t0 * FP_INV64;
    bls_u128 c = (bls_u128)m * P[0] + t0;   /* low word is 0 by choice of m */
    uint64_t C = (uint64_t)(c >> 64);
#pragma GCC unroll 5
    for (int j = 1; j < 6; j++) {
      s = (bls_u128)a->l[j] * bi + t[j] + A;
      A = (uint64_t)(s >> 64);
      c = (bls_u128)m * P[j] + (uint64_t)s + C;
      C = (uint64_t)(c >> 64);
      t[j - 1] = (uint64_t)c;
    }
    t[5] = C + A;
  }
  fp_reduce_once_i(r->l, t);
}

static inline void fp_sqr_i(fp_t *r, const fp_t *a) { fp_mul_i(r, a, a); }

static inline bool fp_eq_i(const fp_t *a, const fp_t *b) {
  return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) |
          (a->l[3] ^ b->l[3]) | (a->l[4] ^ b->l[4]) | (a->l[5] ^ b->l[5])) == 0;
}

/* ---------------------------------------------------------------- Fr (4 limbs) */

static inline void fr_reduce_once_i(uint64_t r[4], const uint64_t t[4]) {
  static const uint64_t M[4] = {FR_R0, FR_R1, FR_R2, FR_R3};
  uint64_t d[4];
  uint64_t borrow = 0;
  for (int i = 0; i < 4; i++) {
    bls_u128 s = (bls_u128)t[i] - M[i] - borrow;
    d[i] = (uint64_t)s;
    borrow = (uint64_t)(s >> 64) & 1;
  }
  uint64_t mask = 0 - borrow;
  for (int i = 0; i < 4; i++)
    r[i] = (t[i] & mask) | (d[i] & ~mask);
}

static inline void fr_add_i(fr_t *r, const fr_t *a, const fr_t *b) {
  uint64_t t[4];
  uint64_t carry = 0;
  /* a + b < 2r < 2^256: no carry out. */
  for (int i = 0; i < 4; i++) {
    bls_u128 s = (bls_u128)a->l[i] + b->l[i] + carry;
    t[i] = (uint64_t)s;
    carry = (uint64_t)(s >> 64);
  }
  fr_reduce_once_i(r->l, t);
}

static inline void fr_sub_i(fr_t *r, const fr_t *a, const fr_t *b) {
  static const uint64_t M[4] = {FR_R0, FR_R1, FR_R2, FR_R3};
  uint64_t t[4];
  uint64_t borrow = 0;
  for (int i = 0; i < 4; i++) {
    bls_u128 s = (bls_u128)a->l[i] - b->l[i] - borrow;
    t[i] = (uint64_t)s;
    borrow = (uint64_t)(s >> 64) & 1;
  }
  uint64_t mask = 0 - borrow;
  uint64_t carry = 0;
  for (int i = 0; i < 4; i++) {
    bls_u128 s = (bls_u128)t[i] + (M[i] & mask) + carry;
    r->l[i] = (uint64_t)s;
    carry = (uint64_t)(s >> 64);
  }
}

static inline bool fr_is_zero_i(const fr_t *a) {
  return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}

static inline void fr_neg_i(fr_t *r, const fr_t *a) {
  static const uint64_t M[4] = {FR_R0, FR_R1, FR_R2, FR_R3};
  uint64_t mask = fr_is_zero_i(a) ? 0 : ~(uint64_t)0;
  uint64_t borrow = 0;
  for (int i = 0; i < 4; i++) {
    bls_u128 s = (bls_u128)M[i] - a->l[i] - borrow;
    r->l[i] = (uint64_t)s & mask;
    borrow = (uint64_t)(s >> 64) & 1;
  }
}

static inline void fr_mul_i(fr_t *r, const fr_t *a, const fr_t *b) {
  static const uint64_t M[4] = {FR_R0, FR_R1, FR_R2, FR_R3};
  uint64_t t[4] = {0, 0, 0, 0};
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) {
    uint64_t bi = b->l[i];
    bls_u128 s = (bls_u128)a->l[0] * bi + t[0];
    uint64_t A = (uint64_t)(s >> 64);
    uint64_t t0 = (uint64_t)s;
    uint64_t m = t0 * FR_INV64;
    bls_u128 c = (bls_u128)m * M[0] + t0;
    uint64_t C = (uint64_t)(c >> 64);
#pragma GCC unroll 3
    for (int j = 1; j < 4; j++) {
      s = (bls_u128)a->l[j] * bi + t[j] + A;
      A = (uint64_t)(s >> 64);
      c = (bls_u128)m * M[j] + (uint64_t)s + C;
      C = (uint64_t)(c >> 64);
      t[j - 1] = (uint64_t)c;
    }
    t[3] = C + A;
  }
  fr_reduce_once_i(r->l, t);
}

static inline bool fr_eq_i(const fr_t *a, const fr_t *b) {
  return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) |
          (a->l[3] ^ b->l[3])) == 0;
}

#endif /* SEALPROV_BLS12_381_FIELD_IMPL_H */
