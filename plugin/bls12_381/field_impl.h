/* SPDX-License-Identifier: Apache-2.0 OR MIT */
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

/* Add/subtract with carry. On x86-64 the intrinsics become plain adc/sbb chains;
 * gcc turns the equivalent __int128 arithmetic into zero-extend/add/adc sequences
 * with spills, which made fp_add cost a quarter of fp_mul. */
#if defined(__x86_64__)
#include <immintrin.h>
static inline uint64_t bls_addc(uint64_t a, uint64_t b, unsigned char *carry) {
  unsigned long long out;
  *carry = _addcarry_u64(*carry, a, b, &out);
  return out;
}
static inline uint64_t bls_subb(uint64_t a, uint64_t b, unsigned char *borrow) {
  unsigned long long out;
  *borrow = _subborrow_u64(*borrow, a, b, &out);
  return out;
}
#else
static inline uint64_t bls_addc(uint64_t a, uint64_t b, unsigned char *carry) {
  bls_u128 s = (bls_u128)a + b + *carry;
  *carry = (unsigned char)(s >> 64);
  return (uint64_t)s;
}
static inline uint64_t bls_subb(uint64_t a, uint64_t b, unsigned char *borrow) {
  bls_u128 s = (bls_u128)a - b - *borrow;
  *borrow = (unsigned char)((s >> 64) & 1);
  return (uint64_t)s;
}
#endif

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

/* x86-64 with BMI2 + ADX: Montgomery multiplication in inline assembly.
 *
 * Same CIOS algorithm as the C code below, but mulx leaves the flags alone and
 * adcx / adox run two independent carry chains (low and high halves of the
 * partial products), and the running sum stays in seven registers whose roles
 * rotate by one limb per round instead of being shifted. On the EPYC build host
 * this is ~1.4x the throughput of the __int128 code that gcc produces.
 *
 * bls_cpu_has_adx is set by a constructor in fp.c from CPUID (leaf 7: EBX bit 8
 * BMI2, bit 19 ADX); it stays 0 (portable C path) on CPUs without them and before the
 * constructor has run. tests/bls12_381/test_fields runs its suite on both paths (it clears the
 * flag for the second run; the module reads no environment variable for it). Build with
 * -DSEALPROV_BLS_NO_ASM to drop the assembly altogether. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(SEALPROV_BLS_NO_ASM)
#define BLS_ADX_PATH 1
extern int bls_cpu_has_adx;

/* The assembly reads a, b and the modulus through pointers. With optimization the
 * reads are declared as memory inputs; without it (-O0) gcc would give each of
 * those its own register and run out, so a "memory" clobber says the same thing. */
#ifdef __OPTIMIZE__
#define BLS_ASM_MEM_IN(a, b, m, n)                                    \
  , "m"(*(const uint64_t(*)[n])(a)), "m"(*(const uint64_t(*)[n])(b)), \
      "m"(*(const uint64_t(*)[n])(m))
#define BLS_ASM_CLOBBERS "rax", "rdx", "cc"
#else
#define BLS_ASM_MEM_IN(a, b, m, n)
#define BLS_ASM_CLOBBERS "rax", "rdx", "cc", "memory"
#endif

/* t[LO] += lo(x * rdx), t[HI] += hi(x * rdx), on the OF and CF chains. */
#define BLS_MULX_STEP(SRC, OFF, LO_T, HI_T) \
  "mulxq " OFF "(%[" SRC                    \
  "]), %%rax, %[hi]\n\t"                    \
  "adoxq %%rax, %[" LO_T                    \
  "]\n\t"                                   \
  "adcxq %[hi], %[" HI_T "]\n\t"

/* One CIOS round for 6 limbs: (T0..T5, A) = (T0..T5) + a * b[BOFF/8], then
 * + m * p with m = T0 * inv, after which T0 is 0 and (T1..T5, A) is the state. */
#define BLS_FP_ROUND(BOFF, T0, T1, T2, T3, T4, T5, A) \
  "movq " BOFF "(%[b]), %%rdx\n\t"                                                     \
  "xorl %%eax, %%eax\n\t" /* clears CF and OF */                                       \
  BLS_MULX_STEP("a", "0", T0, T1) BLS_MULX_STEP("a", "8", T1, T2)                      \
  BLS_MULX_STEP("a", "16", T2, T3) BLS_MULX_STEP("a", "24", T3, T4)                    \
  BLS_MULX_STEP("a", "32", T4, T5)                                                     \
  "mulxq 40(%[a]), %%rax, %[" A "]\n\t"                                                \
  "adoxq %%rax, %[" T5 "]\n\t"                                                         \
  "movl $0, %%eax\n\t" /* mov keeps the flags */                                       \
  "adcxq %%rax, %[" A "]\n\t"                                                          \
  "adoxq %%rax, %[" A "]\n\t"                                                          \
  "movq %[" T0 "], %%rdx\n\t"                                                          \
  "imulq %[inv], %%rdx\n\t"                                                            \
  "xorl %%eax, %%eax\n\t"                                                              \
  BLS_MULX_STEP("p", "0", T0, T1) BLS_MULX_STEP("p", "8", T1, T2)                      \
  BLS_MULX_STEP("p", "16", T2, T3) BLS_MULX_STEP("p", "24", T3, T4)                    \
  BLS_MULX_STEP("p", "32", T4, T5) BLS_MULX_STEP("p", "40", T5, A)                     \
  "movl $0, %%eax\n\t"                                                                 \
  "adoxq %%rax, %[" A "]\n\t"

/* t = a * b * 2^-384 mod p, t < 2p (the caller reduces once). */
static inline void fp_mont_mul_adx(uint64_t t[6], const fp_t *a, const fp_t *b) {
  static const uint64_t P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
  static const uint64_t INV = FP_INV64;
  uint64_t r0, r1, r2, r3, r4, r5, r6, hi;
  __asm__(
      "xorl %k[r0], %k[r0]\n\t"
      "xorl %k[r1], %k[r1]\n\t"
      "xorl %k[r2], %k[r2]\n\t"
      "xorl %k[r3], %k[r3]\n\t"
      "xorl %k[r4], %k[r4]\n\t"
      "xorl %k[r5], %k[r5]\n\t" BLS_FP_ROUND("0", "r0", "r1", "r2", "r3", "r4", "r5", "r6")
          BLS_FP_ROUND("8", "r1", "r2", "r3", "r4", "r5", "r6", "r0")
              BLS_FP_ROUND("16", "r2", "r3", "r4", "r5", "r6", "r0", "r1")
                  BLS_FP_ROUND("24", "r3", "r4", "r5", "r6", "r0", "r1", "r2")
                      BLS_FP_ROUND("32", "r4", "r5", "r6", "r0", "r1", "r2", "r3")
                          BLS_FP_ROUND("40", "r5", "r6", "r0", "r1", "r2", "r3", "r4")
      : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4),
        [r5] "=&r"(r5), [r6] "=&r"(r6), [hi] "=&r"(hi)
      : [a] "r"(a->l), [b] "r"(b->l), [p] "r"(P), [inv] "m"(INV)BLS_ASM_MEM_IN(a->l, b->l, P, 6)
      : BLS_ASM_CLOBBERS);
  t[0] = r6;
  t[1] = r0;
  t[2] = r1;
  t[3] = r2;
  t[4] = r3;
  t[5] = r4;
}

/* One CIOS round for 4 limbs (Fr), as above. */
#define BLS_FR_ROUND(BOFF, T0, T1, T2, T3, A) \
  "movq " BOFF "(%[b]), %%rdx\n\t"                                                     \
  "xorl %%eax, %%eax\n\t"                                                              \
  BLS_MULX_STEP("a", "0", T0, T1) BLS_MULX_STEP("a", "8", T1, T2)                      \
  BLS_MULX_STEP("a", "16", T2, T3)                                                     \
  "mulxq 24(%[a]), %%rax, %[" A "]\n\t"                                                \
  "adoxq %%rax, %[" T3 "]\n\t"                                                         \
  "movl $0, %%eax\n\t"                                                                 \
  "adcxq %%rax, %[" A "]\n\t"                                                          \
  "adoxq %%rax, %[" A "]\n\t"                                                          \
  "movq %[" T0 "], %%rdx\n\t"                                                          \
  "imulq %[inv], %%rdx\n\t"                                                            \
  "xorl %%eax, %%eax\n\t"                                                              \
  BLS_MULX_STEP("p", "0", T0, T1) BLS_MULX_STEP("p", "8", T1, T2)                      \
  BLS_MULX_STEP("p", "16", T2, T3) BLS_MULX_STEP("p", "24", T3, A)                     \
  "movl $0, %%eax\n\t"                                                                 \
  "adoxq %%rax, %[" A "]\n\t"

static inline void fr_mont_mul_adx(uint64_t t[4], const fr_t *a, const fr_t *b) {
  static const uint64_t M[4] = {FR_R0, FR_R1, FR_R2, FR_R3};
  static const uint64_t INV = FR_INV64;
  uint64_t r0, r1, r2, r3, r4, hi;
  __asm__(
      "xorl %k[r0], %k[r0]\n\t"
      "xorl %k[r1], %k[r1]\n\t"
      "xorl %k[r2], %k[r2]\n\t"
      "xorl %k[r3], %k[r3]\n\t" BLS_FR_ROUND("0", "r0", "r1", "r2", "r3", "r4") BLS_FR_ROUND(
          "8", "r1", "r2", "r3", "r4", "r0") BLS_FR_ROUND("16", "r2", "r3", "r4", "r0", "r1")
          BLS_FR_ROUND("24", "r3", "r4", "r0", "r1", "r2")
      :
      [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4), [hi] "=&r"(hi)
      : [a] "r"(a->l), [b] "r"(b->l), [p] "r"(M), [inv] "m"(INV)BLS_ASM_MEM_IN(a->l, b->l, M, 4)
      : BLS_ASM_CLOBBERS);
  t[0] = r4;
  t[1] = r0;
  t[2] = r1;
  t[3] = r2;
}
#endif /* BLS_ADX_PATH */

/* ---------------------------------------------------------------- Fp (6 limbs) */

/* r = t - p if t >= p, else t (t < 2p). */
static inline void fp_reduce_once_i(uint64_t r[6], const uint64_t t[6]) {
  static const uint64_t P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
  uint64_t d[6];
  unsigned char borrow = 0;
  for (int i = 0; i < 6; i++) d[i] = bls_subb(t[i], P[i], &borrow);
  /* borrow set: t < p, keep t. Branch-free select; the compiler makes cmovs. */
  uint64_t mask = 0 - (uint64_t)borrow;
  for (int i = 0; i < 6; i++) r[i] = (t[i] & mask) | (d[i] & ~mask);
}

static inline void fp_add_i(fp_t *r, const fp_t *a, const fp_t *b) {
  uint64_t t[6];
  unsigned char carry = 0;
  /* a + b < 2p < 2^382: no carry out of the top limb. */
  for (int i = 0; i < 6; i++) t[i] = bls_addc(a->l[i], b->l[i], &carry);
  fp_reduce_once_i(r->l, t);
}

static inline void fp_sub_i(fp_t *r, const fp_t *a, const fp_t *b) {
  static const uint64_t P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
  uint64_t t[6];
  unsigned char borrow = 0;
  for (int i = 0; i < 6; i++) t[i] = bls_subb(a->l[i], b->l[i], &borrow);
  /* On borrow the true result is t + p (mod 2^384). */
  uint64_t mask = 0 - (uint64_t)borrow;
  unsigned char carry = 0;
  for (int i = 0; i < 6; i++) r->l[i] = bls_addc(t[i], P[i] & mask, &carry);
}

static inline bool fp_is_zero_i(const fp_t *a) {
  return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}

static inline void fp_neg_i(fp_t *r, const fp_t *a) {
  static const uint64_t P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
  /* p - a, except that -0 must stay 0 (not p, which is unreduced). */
  uint64_t mask = fp_is_zero_i(a) ? 0 : ~(uint64_t)0;
  unsigned char borrow = 0;
  for (int i = 0; i < 6; i++) r->l[i] = bls_subb(P[i], a->l[i], &borrow) & mask;
}

static inline void fp_dbl_i(fp_t *r, const fp_t *a) { fp_add_i(r, a, a); }

static inline void fp_mul_i(fp_t *r, const fp_t *a, const fp_t *b) {
  static const uint64_t P[6] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5};
  uint64_t t[6] = {0, 0, 0, 0, 0, 0};
#ifdef BLS_ADX_PATH
  if (__builtin_expect(bls_cpu_has_adx, 1)) {
    fp_mont_mul_adx(t, a, b);
    fp_reduce_once_i(r->l, t);
    return;
  }
#endif
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++) {
    uint64_t bi = b->l[i];
    bls_u128 s = (bls_u128)a->l[0] * bi + t[0];
    uint64_t A = (uint64_t)(s >> 64);
    uint64_t t0 = (uint64_t)s;
    uint64_t m = t0 * FP_INV64;
    bls_u128 c = (bls_u128)m * P[0] + t0; /* low word is 0 by choice of m */
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
  return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) | (a->l[3] ^ b->l[3]) |
          (a->l[4] ^ b->l[4]) | (a->l[5] ^ b->l[5])) == 0;
}

/* ---------------------------------------------------------------- Fr (4 limbs) */

static inline void fr_reduce_once_i(uint64_t r[4], const uint64_t t[4]) {
  static const uint64_t M[4] = {FR_R0, FR_R1, FR_R2, FR_R3};
  uint64_t d[4];
  unsigned char borrow = 0;
  for (int i = 0; i < 4; i++) d[i] = bls_subb(t[i], M[i], &borrow);
  uint64_t mask = 0 - (uint64_t)borrow;
  for (int i = 0; i < 4; i++) r[i] = (t[i] & mask) | (d[i] & ~mask);
}

static inline void fr_add_i(fr_t *r, const fr_t *a, const fr_t *b) {
  uint64_t t[4];
  unsigned char carry = 0;
  /* a + b < 2r < 2^256: no carry out. */
  for (int i = 0; i < 4; i++) t[i] = bls_addc(a->l[i], b->l[i], &carry);
  fr_reduce_once_i(r->l, t);
}

static inline void fr_sub_i(fr_t *r, const fr_t *a, const fr_t *b) {
  static const uint64_t M[4] = {FR_R0, FR_R1, FR_R2, FR_R3};
  uint64_t t[4];
  unsigned char borrow = 0;
  for (int i = 0; i < 4; i++) t[i] = bls_subb(a->l[i], b->l[i], &borrow);
  uint64_t mask = 0 - (uint64_t)borrow;
  unsigned char carry = 0;
  for (int i = 0; i < 4; i++) r->l[i] = bls_addc(t[i], M[i] & mask, &carry);
}

static inline bool fr_is_zero_i(const fr_t *a) {
  return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}

static inline void fr_neg_i(fr_t *r, const fr_t *a) {
  static const uint64_t M[4] = {FR_R0, FR_R1, FR_R2, FR_R3};
  uint64_t mask = fr_is_zero_i(a) ? 0 : ~(uint64_t)0;
  unsigned char borrow = 0;
  for (int i = 0; i < 4; i++) r->l[i] = bls_subb(M[i], a->l[i], &borrow) & mask;
}

static inline void fr_mul_i(fr_t *r, const fr_t *a, const fr_t *b) {
  static const uint64_t M[4] = {FR_R0, FR_R1, FR_R2, FR_R3};
  uint64_t t[4] = {0, 0, 0, 0};
#ifdef BLS_ADX_PATH
  if (__builtin_expect(bls_cpu_has_adx, 1)) {
    fr_mont_mul_adx(t, a, b);
    fr_reduce_once_i(r->l, t);
    return;
  }
#endif
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
  return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) | (a->l[3] ^ b->l[3])) ==
         0;
}

/* ------------------------------------------------------- binary inversion */

/* out = a^-1 mod m for 0 < a < m, m odd, n <= 6 limbs, all plain integers (no
 * Montgomery factor). Binary extended Euclid (Hankerson, Menezes, Vanstone, "Guide to
 * Elliptic Curve Cryptography", algorithm 2.22): invariants x1 a = u, x2 a = v (mod m).
 * Variable time, about 2 * bits iterations of shifts and subtractions: several times
 * faster than Fermat's a^(m-2). Callers verify the result with one multiplication. */
static inline int bls_cmp_n(const uint64_t *a, const uint64_t *b, int n) {
  for (int i = n - 1; i >= 0; i--) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

static inline bool bls_is_one_n(const uint64_t *a, int n) {
  uint64_t acc = a[0] ^ 1;
  for (int i = 1; i < n; i++) acc |= a[i];
  return acc == 0;
}

/* x = x / 2 mod m (x < m): add m first when x is odd; m < 2^(64n - 1) so x + m
 * fits in n limbs. */
static inline void bls_half_mod_n(uint64_t *x, const uint64_t *m, int n) {
  if (x[0] & 1) {
    unsigned char c = 0;
    for (int i = 0; i < n; i++) x[i] = bls_addc(x[i], m[i], &c);
  }
  for (int i = 0; i < n - 1; i++) x[i] = (x[i] >> 1) | (x[i + 1] << 63);
  x[n - 1] >>= 1;
}

/* x = x - y mod m (x, y < m) */
static inline void bls_sub_mod_n(uint64_t *x, const uint64_t *y, const uint64_t *m, int n) {
  unsigned char b = 0;
  for (int i = 0; i < n; i++) x[i] = bls_subb(x[i], y[i], &b);
  if (b) {
    unsigned char c = 0;
    for (int i = 0; i < n; i++) x[i] = bls_addc(x[i], m[i], &c);
  }
}

static inline void bls_binary_inv_n(uint64_t *out, const uint64_t *a, const uint64_t *m, int n) {
  uint64_t u[6], v[6], x1[6], x2[6];
  for (int i = 0; i < n; i++) {
    u[i] = a[i];
    v[i] = m[i];
    x1[i] = 0;
    x2[i] = 0;
  }
  x1[0] = 1;
  while (!bls_is_one_n(u, n) && !bls_is_one_n(v, n)) {
    while ((u[0] & 1) == 0) {
      for (int i = 0; i < n - 1; i++) u[i] = (u[i] >> 1) | (u[i + 1] << 63);
      u[n - 1] >>= 1;
      bls_half_mod_n(x1, m, n);
    }
    while ((v[0] & 1) == 0) {
      for (int i = 0; i < n - 1; i++) v[i] = (v[i] >> 1) | (v[i + 1] << 63);
      v[n - 1] >>= 1;
      bls_half_mod_n(x2, m, n);
    }
    /* both odd now; the larger loses the smaller (gcd(a, m) = 1 keeps both > 0) */
    unsigned char b = 0;
    if (bls_cmp_n(u, v, n) >= 0) {
      for (int i = 0; i < n; i++) u[i] = bls_subb(u[i], v[i], &b);
      bls_sub_mod_n(x1, x2, m, n);
    } else {
      for (int i = 0; i < n; i++) v[i] = bls_subb(v[i], u[i], &b);
      bls_sub_mod_n(x2, x1, m, n);
    }
  }
  const uint64_t *res = bls_is_one_n(u, n) ? x1 : x2;
  for (int i = 0; i < n; i++) out[i] = res[i];
}

#endif /* SEALPROV_BLS12_381_FIELD_IMPL_H */
