/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Fr, the 255-bit scalar field of BLS12-381 (the group order r): Montgomery form,
 * R = 2^256, 4 limbs.
 *
 * The arithmetic cores are inline in field_impl.h. Every constant below was computed
 * with python3 from
 *   r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
 * and printed as little-endian 64-bit limbs: [(x >> (64*i)) & (2**64-1) for i in range(4)].
 */
#include <string.h>

#include "field_impl.h"

const uint64_t BLS_R[4] = {FR_R0, FR_R1, FR_R2, FR_R3};

const fr_t FR_ZERO = {{0, 0, 0, 0}};

/* R mod r = 2**256 % r. */
const fr_t FR_ONE = {
    {0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL}};

/* R^2 mod r = 2**512 % r (enter Montgomery form). */
static const fr_t FR_RR = {
    {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL, 0x0748d9d99f59ff11ULL}};

/* R^3 mod r = 2**768 % r: mont_mul(h, R^3) = h * 2^256 * R, used by the wide reduction. */
static const fr_t FR_RRR = {
    {0xc62c1807439b73afULL, 0x1b3e0d188cf06990ULL, 0x73d13c71c7b5f418ULL, 0x6e2a5bb9c8db33e9ULL}};

/* r - 2 (Fermat inverse exponent). */
static const uint64_t FR_R_MINUS_2[4] = {0xfffffffeffffffffULL, 0x53bda402fffe5bfeULL,
                                         0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

/* Montgomery form of 7^((r-1) / 2^32) mod r, a primitive 2^32-th root of unity
 * (r - 1 = 2^32 * odd; python3: w = pow(7, (r-1) >> 32, r);
 * assert pow(w, 2**32, r) == 1 and pow(w, 2**31, r) != 1; then w * 2**256 % r).
 * Canonical value: 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b. */
static const fr_t FR_ROOT_2_32 = {
    {0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL, 0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL}};

/* Montgomery form of 7 (7 * 2**256 % r). */
static const fr_t FR_SEVEN = {
    {0x0000000efffffff1ULL, 0x17e363d300189c0fULL, 0xff9c57876f8457b0ULL, 0x351332208fc5a8c4ULL}};

void fr_add(fr_t *r, const fr_t *a, const fr_t *b) { fr_add_i(r, a, b); }
void fr_sub(fr_t *r, const fr_t *a, const fr_t *b) { fr_sub_i(r, a, b); }
void fr_dbl(fr_t *r, const fr_t *a) { fr_add_i(r, a, a); }
void fr_neg(fr_t *r, const fr_t *a) { fr_neg_i(r, a); }
void fr_mul(fr_t *r, const fr_t *a, const fr_t *b) { fr_mul_i(r, a, b); }
void fr_sqr(fr_t *r, const fr_t *a) { fr_mul_i(r, a, a); }
bool fr_is_zero(const fr_t *a) { return fr_is_zero_i(a); }
bool fr_is_one(const fr_t *a) { return fr_eq_i(a, &FR_ONE); }
bool fr_eq(const fr_t *a, const fr_t *b) { return fr_eq_i(a, b); }

/* Is the canonical 4-limb integer a < r? */
static bool lt_r(const uint64_t a[4]) {
  for (int i = 3; i >= 0; i--) {
    if (a[i] != BLS_R[i]) return a[i] < BLS_R[i];
  }
  return false;
}

/* Fixed 4-bit windows, most significant first (see fp_pow). */
void fr_pow(fr_t *r, const fr_t *a, const uint64_t *e, size_t nlimbs) {
  fr_t table[16];
  table[0] = FR_ONE;
  table[1] = *a;
  for (int i = 2; i < 16; i++) fr_mul_i(&table[i], &table[i - 1], a);
  fr_t acc = FR_ONE;
  bool started = false;
  for (size_t li = nlimbs; li-- > 0;) {
    for (int shift = 60; shift >= 0; shift -= 4) {
      unsigned w = (unsigned)(e[li] >> shift) & 15u;
      if (started) {
        fr_mul_i(&acc, &acc, &acc);
        fr_mul_i(&acc, &acc, &acc);
        fr_mul_i(&acc, &acc, &acc);
        fr_mul_i(&acc, &acc, &acc);
      }
      if (w != 0) {
        if (started) {
          fr_mul_i(&acc, &acc, &table[w]);
        } else {
          acc = table[w];
          started = true;
        }
      }
    }
  }
  *r = acc;
}

void fr_pow_u64(fr_t *r, const fr_t *a, uint64_t e) { fr_pow(r, a, &e, 1); }

bool fr_inv(fr_t *r, const fr_t *a) {
  if (fr_is_zero_i(a)) {
    *r = FR_ZERO;
    return false;
  }
  /* As fp_inv: binary extended Euclid on aR, times R^3, verified; Fermat fallback. */
  fr_t x, check;
  bls_binary_inv_n(x.l, a->l, BLS_R, 4);
  fr_mul_i(&x, &x, &FR_RRR);
  fr_mul_i(&check, &x, a);
  if (!fr_eq_i(&check, &FR_ONE)) fr_pow(&x, a, FR_R_MINUS_2, 4);
  *r = x;
  return true;
}

void fr_from_u64(fr_t *r, uint64_t v) {
  fr_t t = {{v, 0, 0, 0}};
  fr_mul_i(r, &t, &FR_RR);
}

bool fr_from_canonical(fr_t *r, const uint64_t in[4]) {
  if (!lt_r(in)) return false;
  fr_t t;
  memcpy(t.l, in, sizeof t.l);
  fr_mul_i(r, &t, &FR_RR);
  return true;
}

void fr_to_canonical(uint64_t out[4], const fr_t *a) {
  static const fr_t one_plain = {{1, 0, 0, 0}};
  fr_t t;
  fr_mul_i(&t, a, &one_plain);
  memcpy(out, t.l, sizeof t.l);
}

bool fr_from_scalar(fr_t *r, const scalar_t *s) { return fr_from_canonical(r, s->l); }

void fr_to_scalar(scalar_t *out, const fr_t *a) { fr_to_canonical(out->l, a); }

static void load_le32(uint64_t limbs[4], const uint8_t in[32]) {
  for (int i = 0; i < 4; i++) {
    uint64_t v = 0;
    for (int j = 7; j >= 0; j--) v = (v << 8) | in[i * 8 + j];
    limbs[i] = v;
  }
}

bool fr_from_le32(fr_t *r, const uint8_t in[32]) {
  uint64_t limbs[4];
  load_le32(limbs, in);
  return fr_from_canonical(r, limbs);
}

void fr_to_le32(uint8_t out[32], const fr_t *a) {
  uint64_t limbs[4];
  fr_to_canonical(limbs, a);
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 8; j++) out[i * 8 + j] = (uint8_t)(limbs[i] >> (8 * j));
  }
}

bool fr_from_be32(fr_t *r, const uint8_t in[32]) {
  uint64_t limbs[4];
  for (int i = 0; i < 4; i++) {
    uint64_t v = 0;
    /* limb i (least significant first) is bytes 24-8i .. 31-8i, most significant first. */
    for (int j = 0; j < 8; j++) v = (v << 8) | in[(3 - i) * 8 + j];
    limbs[i] = v;
  }
  return fr_from_canonical(r, limbs);
}

void fr_to_be32(uint8_t out[32], const fr_t *a) {
  uint64_t limbs[4];
  fr_to_canonical(limbs, a);
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 8; j++) out[(3 - i) * 8 + j] = (uint8_t)(limbs[i] >> (56 - 8 * j));
  }
}

bool fr_from_blst_mont(fr_t *r, const uint64_t in[4]) {
  if (!lt_r(in)) return false;
  memcpy(r->l, in, sizeof r->l);
  return true;
}

/* Reduce an arbitrary 256-bit integer below r. 2^256 < 3r, so at most two
 * subtractions are needed. */
static void reduce_256(fr_t *x) {
  for (int k = 0; k < 2; k++) {
    if (lt_r(x->l)) return;
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
      bls_u128 s = (bls_u128)x->l[i] - BLS_R[i] - borrow;
      x->l[i] = (uint64_t)s;
      borrow = (uint64_t)(s >> 64) & 1;
    }
  }
}

void fr_from_bytes_wide(fr_t *r, const uint8_t in[64]) {
  /* value = lo + hi * 2^256. Reduce each half below r, then
   * mont(lo, R^2) = lo * R and mont(hi, R^3) = hi * 2^256 * R, whose sum is the
   * Montgomery form of value mod r (same construction as zkcrypto's from_bytes_wide). */
  fr_t lo, hi;
  load_le32(lo.l, in);
  load_le32(hi.l, in + 32);
  reduce_256(&lo);
  reduce_256(&hi);
  fr_mul_i(&lo, &lo, &FR_RR);
  fr_mul_i(&hi, &hi, &FR_RRR);
  fr_add_i(r, &lo, &hi);
}

/* Montgomery's trick over chunks of a fixed size, so that no heap allocation is
 * needed (the function cannot report failure) and out may alias in. One inversion
 * per chunk costs about as much as ~300 multiplications, ~20 % over 3 * 512. */
#define FR_BATCH_CHUNK 512

void fr_batch_inv(fr_t *out, const fr_t *in, size_t n) {
  fr_t prefix[FR_BATCH_CHUNK];
  for (size_t base = 0; base < n; base += FR_BATCH_CHUNK) {
    size_t m = n - base < FR_BATCH_CHUNK ? n - base : FR_BATCH_CHUNK;
    /* prefix[i] = product of the non-zero in[base .. base+i]. */
    fr_t acc = FR_ONE;
    for (size_t i = 0; i < m; i++) {
      if (!fr_is_zero_i(&in[base + i])) fr_mul_i(&acc, &acc, &in[base + i]);
      prefix[i] = acc;
    }
    fr_t inv;
    fr_inv(&inv, &acc); /* acc is a product of non-zero values: never zero */
    for (size_t i = m; i-- > 0;) {
      fr_t x = in[base + i]; /* read before out[base+i] may overwrite it */
      if (fr_is_zero_i(&x)) {
        out[base + i] = FR_ZERO;
        continue;
      }
      const fr_t *before = i > 0 ? &prefix[i - 1] : &FR_ONE;
      fr_mul_i(&out[base + i], &inv, before);
      fr_mul_i(&inv, &inv, &x);
    }
  }
}

void fr_root_of_unity(fr_t *r, unsigned log_n) {
  /* The 2^log_n-th primitive root is the 2^32-th one squared 32 - log_n times.
   * log_n > 32 has no root; clamp to 32 rather than loop on garbage (documented as
   * log_n <= 32 in the header). */
  if (log_n > 32) log_n = 32;
  fr_t w = FR_ROOT_2_32;
  for (unsigned i = log_n; i < 32; i++) fr_mul_i(&w, &w, &w);
  *r = w;
}

void fr_coset_generator(fr_t *r) { *r = FR_SEVEN; }
