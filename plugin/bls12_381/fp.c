/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Fp, the 381-bit base field of BLS12-381: Montgomery form, R = 2^384, 6 limbs.
 *
 * The arithmetic cores are inline in field_impl.h; this file holds the constants,
 * the exported wrappers, exponentiation, inversion, square root and conversions.
 *
 * Every constant below was computed with python3 from
 *   p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
 * and printed as little-endian 64-bit limbs: [(x >> (64*i)) & (2**64-1) for i in range(6)].
 */
#include <string.h>

#include "field_impl.h"

#ifdef BLS_ADX_PATH
#include <cpuid.h>

/* Read by fp_mul_i / fr_mul_i (field_impl.h). Written once, by the constructor,
 * before any thread of the host can call into this library (tests/bls12_381/test_fields
 * clears it itself to run its suite on the portable path too). */
int bls_cpu_has_adx = 0;

__attribute__((constructor)) static void bls_detect_adx(void) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return;
  bls_cpu_has_adx = ((ebx >> 8) & 1u) && ((ebx >> 19) & 1u); /* BMI2 and ADX */
}
#endif

const uint64_t BLS_P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};

const fp_t BLS_FP_ZERO = {{0, 0, 0, 0, 0, 0}};

/* R mod p = 2**384 % p. */
const fp_t FP_ONE = {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                      0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}};

/* R^2 mod p = 2**768 % p: Montgomery-multiplying a canonical value by it enters
 * Montgomery form. */
static const fp_t FP_R2 = {{0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
                            0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL}};

/* R^3 mod p = 2**1152 % p: turns the plain inverse (aR)^-1 into Montgomery a^-1 R. */
static const fp_t FP_R3 = {{0xed48ac6bd94ca1e0ULL, 0x315f831e03a7adf8ULL, 0x9a53352a615e29ddULL,
                            0x34c04e5e921e1761ULL, 0x2512d43565724728ULL, 0x0aa6346091755d4dULL}};

/* p - 2 (Fermat inverse exponent). */
static const uint64_t FP_P_MINUS_2[6] = {0xb9feffffffffaaa9ULL, 0x1eabfffeb153ffffULL,
                                         0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
                                         0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};

/* (p + 1) / 4: since p = 3 mod 4, a^((p+1)/4) is a square root of a when one exists. */
static const uint64_t FP_P_PLUS_1_DIV_4[6] = {0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL,
                                              0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL,
                                              0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL};

/* (p - 1) / 2: the zcash sign threshold (largest value that is not "lexicographically
 * largest"). */
static const uint64_t FP_P_MINUS_1_DIV_2[6] = {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL,
                                               0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL,
                                               0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};

void fp_add(fp_t *r, const fp_t *a, const fp_t *b) { fp_add_i(r, a, b); }
void fp_sub(fp_t *r, const fp_t *a, const fp_t *b) { fp_sub_i(r, a, b); }
void fp_dbl(fp_t *r, const fp_t *a) { fp_dbl_i(r, a); }
void fp_neg(fp_t *r, const fp_t *a) { fp_neg_i(r, a); }
void fp_mul(fp_t *r, const fp_t *a, const fp_t *b) { fp_mul_i(r, a, b); }
void fp_sqr(fp_t *r, const fp_t *a) { fp_sqr_i(r, a); }
bool fp_is_zero(const fp_t *a) { return fp_is_zero_i(a); }
bool fp_is_one(const fp_t *a) { return fp_eq_i(a, &FP_ONE); }
bool fp_eq(const fp_t *a, const fp_t *b) { return fp_eq_i(a, b); }

/* Compare two canonical 6-limb integers: -1, 0, 1. */
static int cmp6(const uint64_t a[6], const uint64_t b[6]) {
  for (int i = 5; i >= 0; i--) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

/* Fixed 4-bit windows, most significant first: 4 squarings per window plus at most
 * one multiplication from a 16-entry table. For a 381-bit exponent that is ~380
 * squarings and ~95 multiplications, against ~190 for plain square-and-multiply. */
void fp_pow(fp_t *r, const fp_t *a, const uint64_t *e, size_t nlimbs) {
  fp_t table[16];
  table[0] = FP_ONE;
  table[1] = *a;
  for (int i = 2; i < 16; i++) fp_mul_i(&table[i], &table[i - 1], a);
  fp_t acc = FP_ONE;
  bool started = false;
  for (size_t li = nlimbs; li-- > 0;) {
    for (int shift = 60; shift >= 0; shift -= 4) {
      unsigned w = (unsigned)(e[li] >> shift) & 15u;
      if (started) {
        fp_sqr_i(&acc, &acc);
        fp_sqr_i(&acc, &acc);
        fp_sqr_i(&acc, &acc);
        fp_sqr_i(&acc, &acc);
      }
      if (w != 0) {
        if (started) {
          fp_mul_i(&acc, &acc, &table[w]);
        } else {
          acc = table[w];
          started = true;
        }
      }
    }
  }
  *r = acc;
}

bool fp_inv(fp_t *r, const fp_t *a) {
  if (fp_is_zero_i(a)) {
    *r = BLS_FP_ZERO;
    return false;
  }
  /* Binary extended Euclid on the stored integer aR gives (aR)^-1; one Montgomery
   * multiplication by R^3 makes it a^-1 R. One more multiplication checks it; Fermat
   * (a^(p-2), ~5x slower) is the fallback that a correct build never takes. */
  fp_t x, check;
  bls_binary_inv_n(x.l, a->l, BLS_P, 6);
  fp_mul_i(&x, &x, &FP_R3);
  fp_mul_i(&check, &x, a);
  if (!fp_eq_i(&check, &FP_ONE)) fp_pow(&x, a, FP_P_MINUS_2, 6);
  *r = x;
  return true;
}

bool fp_sqrt(fp_t *r, const fp_t *a) {
  fp_t s, check;
  fp_pow(&s, a, FP_P_PLUS_1_DIV_4, 6);
  /* The exponentiation yields a root only for squares; verify rather than compute the
   * Legendre symbol separately (same cost, and it also proves the result). */
  fp_sqr_i(&check, &s);
  if (!fp_eq_i(&check, a)) return false;
  *r = s;
  return true;
}

void fp_from_u64(fp_t *r, uint64_t v) {
  fp_t t = {{v, 0, 0, 0, 0, 0}};
  fp_mul_i(r, &t, &FP_R2);
}

bool fp_from_canonical(fp_t *r, const uint64_t in[6]) {
  if (cmp6(in, BLS_P) >= 0) return false;
  fp_t t;
  memcpy(t.l, in, sizeof t.l);
  fp_mul_i(r, &t, &FP_R2);
  return true;
}

void fp_to_canonical(uint64_t out[6], const fp_t *a) {
  /* Montgomery-multiplying by plain 1 divides by R. */
  static const fp_t one_plain = {{1, 0, 0, 0, 0, 0}};
  fp_t t;
  fp_mul_i(&t, a, &one_plain);
  memcpy(out, t.l, sizeof t.l);
}

bool fp_from_be48(fp_t *r, const uint8_t in[48]) {
  uint64_t limbs[6];
  for (int i = 0; i < 6; i++) {
    uint64_t v = 0;
    /* limb i (least significant first) is bytes 40-8i .. 47-8i, most significant
     * byte first. */
    for (int j = 0; j < 8; j++) v = (v << 8) | in[(5 - i) * 8 + j];
    limbs[i] = v;
  }
  return fp_from_canonical(r, limbs);
}

void fp_to_be48(uint8_t out[48], const fp_t *a) {
  uint64_t limbs[6];
  fp_to_canonical(limbs, a);
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 8; j++) out[(5 - i) * 8 + j] = (uint8_t)(limbs[i] >> (56 - 8 * j));
  }
}

bool fp_from_le48(fp_t *r, const uint8_t in[48]) {
  uint64_t limbs[6];
  for (int i = 0; i < 6; i++) {
    uint64_t v = 0;
    for (int j = 7; j >= 0; j--) v = (v << 8) | in[i * 8 + j];
    limbs[i] = v;
  }
  return fp_from_canonical(r, limbs);
}

void fp_to_le48(uint8_t out[48], const fp_t *a) {
  uint64_t limbs[6];
  fp_to_canonical(limbs, a);
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 8; j++) out[i * 8 + j] = (uint8_t)(limbs[i] >> (8 * j));
  }
}

bool fp_from_blst_mont(fp_t *r, const uint64_t in[6]) {
  /* Same R as blst, so the limbs are already our representation; only a value >= p
   * (corrupt or foreign data) has to be refused. */
  if (cmp6(in, BLS_P) >= 0) return false;
  memcpy(r->l, in, sizeof r->l);
  return true;
}

bool fp_is_lexicographically_largest(const fp_t *a) {
  uint64_t c[6];
  fp_to_canonical(c, a);
  return cmp6(c, FP_P_MINUS_1_DIV_2) > 0;
}
