/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* BLS12-381 on the CPU: fields, towers, curves, serialization, pairing, NTT, MSM.
 *
 * Plain C11 (with unsigned __int128), no third-party crypto. This library is the
 * reference that the CUDA engine is tested against, so exactness beats speed;
 * constant time is NOT a goal (nothing here handles long-term secrets except the
 * insecure test setup).
 *
 * Conventions that every file of this folder follows:
 *  - Fp elements: 6 x 64-bit limbs, little-endian limb order, Montgomery form with
 *    R = 2^384. This is exactly blst's layout, so blst/blstrs memory can be copied.
 *  - Fr elements: 4 x 64-bit limbs, Montgomery form with R = 2^256 (blst's layout).
 *  - scalar_t: a canonical (NOT Montgomery) Fr value, 4 little-endian limbs, < r.
 *    MSMs take scalar_t because Pippenger needs the plain bits.
 *  - Affine points: infinity is encoded as x = y = 0 (as in blst). (0,0) is not on
 *    either curve, so there is no ambiguity. Affine arrays have blst's layout
 *    (G1 96 bytes, G2 192 bytes), so they can be uploaded to a GPU as they are.
 *  - Jacobian: (X, Y, Z) with x = X/Z^2, y = Y/Z^3; infinity has Z = 0.
 *  - XYZZ: (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity ZZ = 0.
 *  - Output pointers may alias inputs unless a function says otherwise.
 *  - Functions are thread-safe (no hidden mutable state) except where noted.
 */
#ifndef SEALPROV_BLS12_381_H
#define SEALPROV_BLS12_381_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Fields                                                                    */
/* ======================================================================== */

typedef struct {
  uint64_t l[6];
} fp_t; /* Montgomery, R = 2^384 */
typedef struct {
  uint64_t l[4];
} fr_t; /* Montgomery, R = 2^256 */
typedef struct {
  uint64_t l[4];
} scalar_t; /* canonical Fr value, little-endian limbs */

typedef struct {
  fp_t c0, c1;
} fp2_t; /* c0 + c1 u, u^2 = -1 */
typedef struct {
  fp2_t c0, c1, c2;
} fp6_t; /* c0 + c1 v + c2 v^2, v^3 = u + 1 */
typedef struct {
  fp6_t c0, c1;
} fp12_t; /* c0 + c1 w, w^2 = v */

/* Moduli as canonical little-endian limbs. */
extern const uint64_t BLS_P[6]; /* base field modulus p */
extern const uint64_t BLS_R[4]; /* scalar field modulus r (group order) */

/* ---- Fp ---- */
/* Not FP_ZERO: <math.h> defines that name (fpclassify). */
extern const fp_t BLS_FP_ZERO;
extern const fp_t FP_ONE; /* Montgomery form of 1 */
void fp_add(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sub(fp_t *r, const fp_t *a, const fp_t *b);
void fp_dbl(fp_t *r, const fp_t *a);
void fp_neg(fp_t *r, const fp_t *a);
void fp_mul(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sqr(fp_t *r, const fp_t *a);
bool fp_inv(fp_t *r, const fp_t *a);  /* false (r = 0) if a == 0 */
bool fp_sqrt(fp_t *r, const fp_t *a); /* false if a is not a square */
/* r = a^e, e given as little-endian 64-bit limbs (canonical integer). */
void fp_pow(fp_t *r, const fp_t *a, const uint64_t *e, size_t nlimbs);
bool fp_is_zero(const fp_t *a);
bool fp_is_one(const fp_t *a);
bool fp_eq(const fp_t *a, const fp_t *b);
void fp_from_u64(fp_t *r, uint64_t v);
/* Canonical integer <-> Montgomery. from_* return false if the value is >= p. */
bool fp_from_canonical(fp_t *r, const uint64_t in[6]);
void fp_to_canonical(uint64_t out[6], const fp_t *a);
bool fp_from_be48(fp_t *r, const uint8_t in[48]);
void fp_to_be48(uint8_t out[48], const fp_t *a);
bool fp_from_le48(fp_t *r, const uint8_t in[48]);
void fp_to_le48(uint8_t out[48], const fp_t *a);
/* blst Montgomery limbs (same R): a range-checked copy. */
bool fp_from_blst_mont(fp_t *r, const uint64_t in[6]);
/* true if the canonical value of a is > (p-1)/2 (the zcash "sign" bit). */
bool fp_is_lexicographically_largest(const fp_t *a);

/* ---- Fr ---- */
extern const fr_t FR_ZERO;
extern const fr_t FR_ONE;
void fr_add(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sub(fr_t *r, const fr_t *a, const fr_t *b);
void fr_dbl(fr_t *r, const fr_t *a);
void fr_neg(fr_t *r, const fr_t *a);
void fr_mul(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sqr(fr_t *r, const fr_t *a);
bool fr_inv(fr_t *r, const fr_t *a); /* false (r = 0) if a == 0 */
void fr_pow(fr_t *r, const fr_t *a, const uint64_t *e, size_t nlimbs);
void fr_pow_u64(fr_t *r, const fr_t *a, uint64_t e);
bool fr_is_zero(const fr_t *a);
bool fr_is_one(const fr_t *a);
bool fr_eq(const fr_t *a, const fr_t *b);
void fr_from_u64(fr_t *r, uint64_t v);
bool fr_from_canonical(fr_t *r, const uint64_t in[4]); /* false if >= r */
void fr_to_canonical(uint64_t out[4], const fr_t *a);
bool fr_from_scalar(fr_t *r, const scalar_t *s); /* false if >= r */
void fr_to_scalar(scalar_t *out, const fr_t *a);
bool fr_from_le32(fr_t *r, const uint8_t in[32]); /* false if >= r */
void fr_to_le32(uint8_t out[32], const fr_t *a);
bool fr_from_be32(fr_t *r, const uint8_t in[32]);
void fr_to_be32(uint8_t out[32], const fr_t *a);
bool fr_from_blst_mont(fr_t *r, const uint64_t in[4]); /* range-checked copy */
/* Uniform-ish element from 64 random bytes (little-endian, reduced mod r). */
void fr_from_bytes_wide(fr_t *r, const uint8_t in[64]);
/* Batch inversion (Montgomery's trick); zero inputs map to zero. out may == in. */
void fr_batch_inv(fr_t *out, const fr_t *in, size_t n);
/* Primitive 2^log_n-th root of unity, log_n <= 32 (two-adicity of r). */
void fr_root_of_unity(fr_t *r, unsigned log_n);
/* Multiplicative generator used for cosets: 7. */
void fr_coset_generator(fr_t *r);

/* ---- Fp2 ---- */
extern const fp2_t FP2_ZERO;
extern const fp2_t FP2_ONE;
void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_dbl(fp2_t *r, const fp2_t *a);
void fp2_neg(fp2_t *r, const fp2_t *a);
void fp2_conj(fp2_t *r, const fp2_t *a);
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b);
void fp2_sqr(fp2_t *r, const fp2_t *a);
void fp2_mul_by_nonresidue(fp2_t *r, const fp2_t *a); /* times (u + 1) */
bool fp2_inv(fp2_t *r, const fp2_t *a);
bool fp2_sqrt(fp2_t *r, const fp2_t *a);
void fp2_frobenius(fp2_t *r, const fp2_t *a, unsigned power);
bool fp2_is_zero(const fp2_t *a);
bool fp2_eq(const fp2_t *a, const fp2_t *b);
/* zcash sign rule for Fp2: compare c1, or c0 when c1 == 0. */
bool fp2_is_lexicographically_largest(const fp2_t *a);

/* ---- Fp6, Fp12 ---- */
void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_neg(fp6_t *r, const fp6_t *a);
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sqr(fp6_t *r, const fp6_t *a);
void fp6_mul_by_nonresidue(fp6_t *r, const fp6_t *a); /* times v */
bool fp6_inv(fp6_t *r, const fp6_t *a);
void fp6_frobenius(fp6_t *r, const fp6_t *a, unsigned power);
bool fp6_is_zero(const fp6_t *a);
bool fp6_eq(const fp6_t *a, const fp6_t *b);

extern const fp12_t FP12_ONE;
void fp12_set_one(fp12_t *r);
void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sqr(fp12_t *r, const fp12_t *a);
bool fp12_inv(fp12_t *r, const fp12_t *a);
void fp12_conj(fp12_t *r, const fp12_t *a);
void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned power);
void fp12_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, size_t nlimbs);
bool fp12_eq(const fp12_t *a, const fp12_t *b);
bool fp12_is_one(const fp12_t *a);
/* 576 bytes: the 12 Fp coefficients big-endian, in the order
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1,
 * c1.c0.c0, c1.c0.c1, c1.c1.c0, c1.c1.c1, c1.c2.c0, c1.c2.c1. */
void fp12_to_bytes(uint8_t out[576], const fp12_t *a);
bool fp12_from_bytes(fp12_t *r, const uint8_t in[576]);

/* ======================================================================== */
/* Curves: G1 over Fp (y^2 = x^3 + 4), G2 over Fp2 (y^2 = x^3 + 4(u + 1))    */
/* ======================================================================== */

typedef struct {
  fp_t x, y;
} g1_affine_t;
typedef struct {
  fp_t x, y, z;
} g1_jac_t;
typedef struct {
  fp_t x, y, zz, zzz;
} g1_xyzz_t;
typedef struct {
  fp2_t x, y;
} g2_affine_t;
typedef struct {
  fp2_t x, y, z;
} g2_jac_t;
typedef struct {
  fp2_t x, y, zz, zzz;
} g2_xyzz_t;

/* The same set of functions exists for G1 (g1_*) and G2 (g2_*). */
void g1_generator(g1_affine_t *r);
void g1_affine_set_inf(g1_affine_t *r);
bool g1_affine_is_inf(const g1_affine_t *p);
bool g1_affine_eq(const g1_affine_t *a, const g1_affine_t *b);
void g1_affine_neg(g1_affine_t *r, const g1_affine_t *p);
bool g1_affine_on_curve(const g1_affine_t *p);    /* infinity -> true */
bool g1_affine_in_subgroup(const g1_affine_t *p); /* fast endomorphism check; false if off-curve */
void g1_jac_set_inf(g1_jac_t *r);
bool g1_jac_is_inf(const g1_jac_t *p);
void g1_jac_from_affine(g1_jac_t *r, const g1_affine_t *p);
void g1_jac_to_affine(g1_affine_t *r, const g1_jac_t *p);
void g1_jac_batch_to_affine(g1_affine_t *out, const g1_jac_t *in, size_t n); /* one inversion */
bool g1_jac_eq(const g1_jac_t *a, const g1_jac_t *b);
void g1_jac_neg(g1_jac_t *r, const g1_jac_t *p);
void g1_jac_dbl(g1_jac_t *r, const g1_jac_t *p);
void g1_jac_add(g1_jac_t *r, const g1_jac_t *a,
                const g1_jac_t *b); /* complete: handles P==Q, inf */
void g1_jac_add_affine(g1_jac_t *r, const g1_jac_t *a, const g1_affine_t *b); /* mixed, complete */
void g1_jac_mul(g1_jac_t *r, const g1_jac_t *p, const scalar_t *k);
void g1_jac_mul_limbs(g1_jac_t *r, const g1_jac_t *p, const uint64_t *k, size_t nlimbs);
void g1_xyzz_set_inf(g1_xyzz_t *r);
bool g1_xyzz_is_inf(const g1_xyzz_t *p);
void g1_xyzz_from_affine(g1_xyzz_t *r, const g1_affine_t *p);
void g1_xyzz_to_jac(g1_jac_t *r, const g1_xyzz_t *p);
void g1_xyzz_dbl(g1_xyzz_t *r, const g1_xyzz_t *p);
void g1_xyzz_add(g1_xyzz_t *r, const g1_xyzz_t *a, const g1_xyzz_t *b);          /* complete */
void g1_xyzz_add_affine(g1_xyzz_t *r, const g1_xyzz_t *a, const g1_affine_t *b); /* complete */
void g1_xyzz_neg(g1_xyzz_t *r, const g1_xyzz_t *p);

void g2_generator(g2_affine_t *r);
void g2_affine_set_inf(g2_affine_t *r);
bool g2_affine_is_inf(const g2_affine_t *p);
bool g2_affine_eq(const g2_affine_t *a, const g2_affine_t *b);
void g2_affine_neg(g2_affine_t *r, const g2_affine_t *p);
bool g2_affine_on_curve(const g2_affine_t *p);
bool g2_affine_in_subgroup(const g2_affine_t *p); /* fast psi check */
void g2_jac_set_inf(g2_jac_t *r);
bool g2_jac_is_inf(const g2_jac_t *p);
void g2_jac_from_affine(g2_jac_t *r, const g2_affine_t *p);
void g2_jac_to_affine(g2_affine_t *r, const g2_jac_t *p);
void g2_jac_batch_to_affine(g2_affine_t *out, const g2_jac_t *in, size_t n);
bool g2_jac_eq(const g2_jac_t *a, const g2_jac_t *b);
void g2_jac_neg(g2_jac_t *r, const g2_jac_t *p);
void g2_jac_dbl(g2_jac_t *r, const g2_jac_t *p);
void g2_jac_add(g2_jac_t *r, const g2_jac_t *a, const g2_jac_t *b);
void g2_jac_add_affine(g2_jac_t *r, const g2_jac_t *a, const g2_affine_t *b);
void g2_jac_mul(g2_jac_t *r, const g2_jac_t *p, const scalar_t *k);
void g2_jac_mul_limbs(g2_jac_t *r, const g2_jac_t *p, const uint64_t *k, size_t nlimbs);
void g2_xyzz_set_inf(g2_xyzz_t *r);
bool g2_xyzz_is_inf(const g2_xyzz_t *p);
void g2_xyzz_from_affine(g2_xyzz_t *r, const g2_affine_t *p);
void g2_xyzz_to_jac(g2_jac_t *r, const g2_xyzz_t *p);
void g2_xyzz_dbl(g2_xyzz_t *r, const g2_xyzz_t *p);
void g2_xyzz_add(g2_xyzz_t *r, const g2_xyzz_t *a, const g2_xyzz_t *b);
void g2_xyzz_add_affine(g2_xyzz_t *r, const g2_xyzz_t *a, const g2_affine_t *b);
void g2_xyzz_neg(g2_xyzz_t *r, const g2_xyzz_t *p);

/* ======================================================================== */
/* Serialization (zcash / bellperson format)                                  */
/* ======================================================================== */
/* G1: 96 bytes uncompressed / 48 compressed; G2: 192 / 96. Fp big-endian, G2 x as
 * x.c1 then x.c0 (same for y). Top bits of the first byte: 0x80 compressed,
 * 0x40 infinity, 0x20 sign of y (compressed only; lexicographically largest). */
typedef enum bls_err {
  BLS_OK = 0,
  BLS_ERR_LENGTH,       /* not 48/96 (G1) or 96/192 (G2) bytes */
  BLS_ERR_FLAGS,        /* compression flag does not match the length, sign bit on an
                             uncompressed or infinity point, infinity with non-zero bytes */
  BLS_ERR_NONCANONICAL, /* a coordinate >= p */
  BLS_ERR_NOT_ON_CURVE, /* also: compressed x with no matching y */
  BLS_ERR_NOT_IN_SUBGROUP,
} bls_err;
const char *bls_err_str(bls_err e);

#define BLS_DECODE_SUBGROUP_CHECK 1u

void g1_serialize(uint8_t out[96], const g1_affine_t *p);
void g1_compress(uint8_t out[48], const g1_affine_t *p);
/* len 96 -> uncompressed, 48 -> compressed, anything else BLS_ERR_LENGTH. Infinity
 * decodes to the infinity point (callers that forbid it check afterwards). */
bls_err g1_deserialize(g1_affine_t *r, const uint8_t *in, size_t len, unsigned flags);
void g2_serialize(uint8_t out[192], const g2_affine_t *p);
void g2_compress(uint8_t out[96], const g2_affine_t *p);
bls_err g2_deserialize(g2_affine_t *r, const uint8_t *in, size_t len, unsigned flags);

/* ======================================================================== */
/* Pairing                                                                    */
/* ======================================================================== */

/* Precomputed line coefficients of a G2 point for repeated Miller loops. */
typedef struct {
  fp2_t coeffs[68][3];
  bool infinity;
} g2_prepared_t;

void g2_prepare(g2_prepared_t *r, const g2_affine_t *q);
void bls_miller_loop(fp12_t *f, const g1_affine_t *p, const g2_affine_t *q);
/* f = prod_i MillerLoop(ps[i], qs[i]) (no final exponentiation). */
void bls_multi_miller_loop(fp12_t *f, const g1_affine_t *ps, const g2_prepared_t *const *qs,
                           size_t n);
void bls_final_exp(fp12_t *r, const fp12_t *f);
void bls_pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q);
/* prod_i e(ps[i], qs[i]) with one final exponentiation. */
void bls_multi_pairing(fp12_t *r, const g1_affine_t *ps, const g2_affine_t *qs, size_t n);

/* Groth16 verifying key prepared for the check
 *   e(A, B) == e(alpha, beta) * e(X, gamma) * e(C, delta),
 * X = sum_i inputs[i] * ic[i] (inputs[0] = 1). */
typedef struct {
  fp12_t alpha_beta;       /* e(alpha_g1, beta_g2) */
  g2_prepared_t neg_gamma; /* -gamma_g2 */
  g2_prepared_t neg_delta; /* -delta_g2 */
} groth16_pvk_t;
void groth16_prepare_vk(groth16_pvk_t *pvk, const g1_affine_t *alpha_g1, const g2_affine_t *beta_g2,
                        const g2_affine_t *gamma_g2, const g2_affine_t *delta_g2);
/* x is the accumulated public-input point X (callers do the ic MSM). */
bool groth16_pairing_check(const groth16_pvk_t *pvk, const g1_affine_t *a, const g2_affine_t *b,
                           const g1_affine_t *c, const g1_affine_t *x);

/* ======================================================================== */
/* NTT over Fr                                                                */
/* ======================================================================== */
/* In place, natural order in and out, size 2^log_n with 1 <= log_n <= 28.
 * ntt_forward:   coefficients -> evaluations at omega^i.
 * ntt_inverse:   evaluations -> coefficients (includes the 1/n scaling).
 * coset forms use the generator g = 7:
 * ntt_coset_forward: coefficients -> evaluations at g * omega^i
 *                    (a_i scaled by g^i, then ntt_forward).
 * ntt_coset_inverse: evaluations at g * omega^i -> coefficients
 *                    (ntt_inverse, then a_i scaled by g^-i).
 * nthreads == 0 means one thread. Returns false (data untouched) when log_n is out of
 * range or memory runs out. */
bool ntt_forward(fr_t *a, unsigned log_n, unsigned nthreads);
bool ntt_inverse(fr_t *a, unsigned log_n, unsigned nthreads);
bool ntt_coset_forward(fr_t *a, unsigned log_n, unsigned nthreads);
bool ntt_coset_inverse(fr_t *a, unsigned log_n, unsigned nthreads);

/* ======================================================================== */
/* MSM and batch addition                                                     */
/* ======================================================================== */
/* out = sum_i scalars[i] * points[i] (scalars are taken as plain 256-bit integers, so an
 * unreduced value still gives the right multiple). Pippenger with signed windows and XYZZ
 * buckets; scalars 0 are skipped, scalars 1 are added directly; infinity points
 * are allowed. nthreads == 0 means one thread. Returns false only on allocation
 * failure (out is then set to infinity). */
bool msm_g1(g1_jac_t *out, const g1_affine_t *points, const scalar_t *scalars, size_t n,
            unsigned nthreads);
bool msm_g2(g2_jac_t *out, const g2_affine_t *points, const scalar_t *scalars, size_t n,
            unsigned nthreads);
/* out = sum of points[i] for which bit i of bitmap is set (bit i in word i/64,
 * position i%64). */
bool batch_add_g1(g1_jac_t *out, const g1_affine_t *points, const uint64_t *bitmap, size_t n,
                  unsigned nthreads);
bool batch_add_g2(g2_jac_t *out, const g2_affine_t *points, const uint64_t *bitmap, size_t n,
                  unsigned nthreads);

/* Runs fn(ctx, begin, end) over [0, n) split into at most nthreads contiguous
 * chunks on pthreads (the calling thread takes one chunk). Every chunk runs exactly
 * once even when a thread cannot be created (the caller runs it instead); the return
 * is false in that case, for callers that want to log it, but the work is complete. */
typedef void (*bls_range_fn)(void *ctx, size_t begin, size_t end, unsigned chunk);
bool bls_parallel_for(size_t n, unsigned nthreads, bls_range_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* SEALPROV_BLS12_381_H */
