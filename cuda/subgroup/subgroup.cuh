/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* subgroup.cuh -- the device side of the G1 / G2 subgroup tests (subgroup.cu: the
 * checker of decoded points; points.cu: the direct load's decode-and-check). See
 * subgroup.cu for the tests and the measurements. */
#ifndef SEALPROV_CUDA_SUBGROUP_CUH
#define SEALPROV_CUDA_SUBGROUP_CUH

#include "gpu_internal.cuh" /* ff.cuh, ec.cuh, sp_blocks */

#include <string.h>

#define SP_SG_ABS_X 0xd201000000010000ull

/* Montgomery constants, the CPU's (g1.c: G1_B, G1_BETA; g2.c: PSI_X_C1, PSI_Y). */
static const uint64_t SG_B4[6] = {0xaa270000000cfff3ull, 0x53cc0032fc34000aull,
                                  0x478fe97a6b0a807full, 0xb1d37ebee6ba24d7ull,
                                  0x8ec9733bbf78ab2full, 0x09d645513d83de7eull};
static const uint64_t SG_BETA[6] = {0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull,
                                    0x16a8ca3ac61577f7ull, 0xc26a2ff874fd029bull,
                                    0x3636b76660701c6eull, 0x051ba4ab241b6160ull};
static const uint64_t SG_PSI_X_C1[6] = {0x890dc9e4867545c3ull, 0x2af322533285a5d5ull,
                                        0x50880866309b7e2cull, 0xa20d1b8c7e881024ull,
                                        0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull};
static const uint64_t SG_PSI_Y[12] = {
    0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull, 0x92ad2afd19103e18ull,
    0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull, 0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull,
    0x2f088dd86b4ebef1ull, 0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull};

struct sg_consts {
  spc_fp b4, beta, psi_x_c1;
  spc_fp2 psi_y;
};

/* ---- Jacobian coordinates (x = X/Z^2, y = Y/Z^3) -------------------------------------
 * The chains are double-and-add over |x| = 0xd201000000010000 (six bits set): 63
 * doublings and 5 additions a multiplication, from the affine point for the first and
 * from the Jacobian [|x|] P for G1's second. Infinity is Z = 0 (a doubling keeps it).
 * The additions (madd-2007-bl, add-2007-bl) are made complete by hand: an operand at
 * infinity returns the other, P == Q (H = r = 0) doubles, P == -Q (H = 0, r != 0) gives
 * Z3 = 0 by the formula itself. The final comparison [|x|]... == -endo(P) is
 * projective (no inversion, no addition). E(Fp) and E'(Fp2) have odd order, so no
 * doubling meets a point of order 2. */
template <class F>
struct sg_jac {
  F x, y, z;
};

/* The chains' products: G2's with ff.cuh's lazy Fp2 reduction (two reductions a
 * product instead of three: the G2 checker 66.2 -> 60.6 ms for 2^20 points on the
 * H200), G1's ff.cuh's Fp product. */
__device__ __forceinline__ spc_fp sg_mul(const spc_fp &a, const spc_fp &b) {
  return spc_fp::mul(a, b);
}
__device__ __forceinline__ spc_fp2 sg_mul(const spc_fp2 &a, const spc_fp2 &b) {
  return spc_fp2::mul_lazy(a, b);
}

/* dbl-2009-l (a = 0): 2M + 5S and seven reductions. G2's doubling (over Fp2), and the
 * P == Q case of the complete additions below (rare: not worth G1's form). */
template <class F>
__device__ __forceinline__ sg_jac<F> sg_jdbl(sg_jac<F> p) {
  F a = F::sqr(p.x);
  F b = F::sqr(p.y);
  F c = F::sqr(b);
  F d = F::sub(F::sub(F::sqr(F::add(p.x, b)), a), c);
  d = F::dbl(d);
  F e = F::add(F::dbl(a), a);
  F f = F::sqr(e);
  sg_jac<F> r;
  r.x = F::sub(f, F::dbl(d));
  F c8 = F::dbl(F::dbl(F::dbl(c)));
  r.y = F::sub(sg_mul(e, F::sub(d, r.x)), c8);
  r.z = F::dbl(sg_mul(p.y, p.z));
  return r;
}

/* ---- G1's doubling with six reductions ------------------------------------------------
 * The same point as dbl-2009-l, coordinate for coordinate (every value is reduced
 * below p, so the Montgomery words are equal too):
 *   A = X^2, B = Y^2, D = 4 X B, E = 3 A, X3 = E^2 - 2 D,
 *   Y3 = E (D - X3) - 8 B^2   (one reduction: sg_y3),   Z3 = 2 Y Z.
 * dbl-2009-l reduces C = B^2 on its own and gets D from (X + B)^2 - A - C; here C is
 * never reduced: its square goes unreduced into Y3's reduction, and D is one product.
 * Products: 3 squarings, 2 multiplications and one y3 (a product and a square into one
 * reduction) against 5 squarings and 2 multiplications; wide multiplies per doubling,
 * by the SASS counts of the product (277) and the square (208): 1594 -> ~1530. */

/* (e * dx - 8 b^2) / 2^384 mod p with one reduction. Bounds: e * dx < p^2 and
 * 8 b^2 < 8 p^2 < 2^765, so the shifted square fits 24 words; the difference lies in
 * (-8 p^2, p^2); when negative, p * 2^384 is added, leaving it in (p 2^384 - 8 p^2,
 * p 2^384), positive because 8 p < 2^384 (p < 2^381); redc takes t < p 2^384 and
 * returns a value below p. */
/* As a call, operands by value (as ff.cuh's Fp products: one copy of the code). */
static __device__ __noinline__ spc_fp sg_y3(spc_fp e, spc_fp dx, spc_fp b) {
  uint32_t t[24], u[24];
  spc_fp::mul_wide(t, e, dx);
  spc_fp::sqr_wide(u, b);
#pragma unroll
  for (int k = 23; k > 0; k--) u[k] = __funnelshift_l(u[k - 1], u[k], 3);
  u[0] <<= 3;
  spc_fp::wide_add_p_hi(t, spc_fp::wide_sub(t, u)); /* negative: + p * 2^384 */
  return spc_fp::redc(t);
}

/* G1's doubling: the products as ff.cuh's calls (measured faster than dbl-2009-l and
 * than this doubling as one call with its products inlined, at three register caps). */
__device__ __forceinline__ sg_jac<spc_fp> sg_jdbl6(const sg_jac<spc_fp> &p) {
  spc_fp a = spc_fp::sqr(p.x);
  spc_fp b = spc_fp::sqr(p.y);
  spc_fp d = spc_fp::mul(p.x, b);
  d = spc_fp::dbl(spc_fp::dbl(d));
  spc_fp e = spc_fp::add(spc_fp::dbl(a), a);
  sg_jac<spc_fp> r;
  r.x = spc_fp::sub(spc_fp::sqr(e), spc_fp::dbl(d));
  spc_fp dx = spc_fp::sub(d, r.x);
  r.y = sg_y3(e, dx, b);
  r.z = spc_fp::dbl(spc_fp::mul(p.y, p.z));
  return r;
}

/* The chains' doubling: G1's with six reductions, G2's dbl-2009-l. */
__device__ __forceinline__ sg_jac<spc_fp> sg_dbl(const sg_jac<spc_fp> &p) { return sg_jdbl6(p); }
__device__ __forceinline__ sg_jac<spc_fp2> sg_dbl(const sg_jac<spc_fp2> &p) {
  return sg_jdbl<spc_fp2>(p);
}

/* p + (qx, qy), the affine point not infinity. */
template <class F>
__device__ __forceinline__ sg_jac<F> sg_jmadd(sg_jac<F> p, const F &qx, const F &qy) {
  if (p.z.is_zero()) {
    sg_jac<F> r;
    r.x = qx;
    r.y = qy;
    r.z = F::one();
    return r;
  }
  F z1z1 = F::sqr(p.z);
  F u2 = sg_mul(qx, z1z1);
  F s2 = sg_mul(qy, sg_mul(p.z, z1z1));
  F h = F::sub(u2, p.x);
  F rr = F::dbl(F::sub(s2, p.y));
  if (h.is_zero() && rr.is_zero()) return sg_jdbl<F>(p);
  F hh = F::sqr(h);
  F i = F::dbl(F::dbl(hh));
  F j = sg_mul(h, i);
  F v = sg_mul(p.x, i);
  sg_jac<F> r;
  r.x = F::sub(F::sub(F::sqr(rr), j), F::dbl(v));
  r.y = F::sub(sg_mul(rr, F::sub(v, r.x)), F::dbl(sg_mul(p.y, j)));
  r.z = F::sub(F::sub(F::sqr(F::add(p.z, h)), z1z1), hh);
  return r;
}

/* p + q, both Jacobian. */
template <class F>
__device__ __forceinline__ sg_jac<F> sg_jadd(sg_jac<F> p, sg_jac<F> q) {
  if (p.z.is_zero()) return q;
  if (q.z.is_zero()) return p;
  F z1z1 = F::sqr(p.z), z2z2 = F::sqr(q.z);
  F u1 = sg_mul(p.x, z2z2), u2 = sg_mul(q.x, z1z1);
  F s1 = sg_mul(p.y, sg_mul(q.z, z2z2)), s2 = sg_mul(q.y, sg_mul(p.z, z1z1));
  F h = F::sub(u2, u1);
  F rr = F::dbl(F::sub(s2, s1));
  if (h.is_zero() && rr.is_zero()) return sg_jdbl<F>(p);
  F i = F::sqr(F::dbl(h));
  F j = sg_mul(h, i);
  F v = sg_mul(u1, i);
  sg_jac<F> r;
  r.x = F::sub(F::sub(F::sqr(rr), j), F::dbl(v));
  r.y = F::sub(sg_mul(rr, F::sub(v, r.x)), F::dbl(sg_mul(s1, j)));
  r.z = sg_mul(F::sub(F::sub(F::sqr(F::add(p.z, q.z)), z1z1), z2z2), h);
  return r;
}

/* [|x|] (qx, qy) for an affine point not infinity. */
template <class F>
__device__ __forceinline__ sg_jac<F> sg_jmul_absx_affine(const F &qx, const F &qy) {
  sg_jac<F> acc;
  acc.x = qx;
  acc.y = qy;
  acc.z = F::one();
#pragma unroll 1
  for (int bit = 62; bit >= 0; bit--) {
    acc = sg_dbl(acc);
    if ((SP_SG_ABS_X >> bit) & 1u) acc = sg_jmadd<F>(acc, qx, qy);
  }
  return acc;
}
template <class F>
__device__ __forceinline__ sg_jac<F> sg_jmul_absx(const sg_jac<F> &q) {
  sg_jac<F> acc = q;
#pragma unroll 1
  for (int bit = 62; bit >= 0; bit--) {
    acc = sg_dbl(acc);
    if ((SP_SG_ABS_X >> bit) & 1u) acc = sg_jadd<F>(acc, q);
  }
  return acc;
}

/* t == -(ex, ey) for an affine (ex, ey) not infinity: X == ex Z^2 and Y == -ey Z^3. */
template <class F>
__device__ __forceinline__ bool sg_jeq_neg(const sg_jac<F> &t, const F &ex, const F &ey) {
  if (t.z.is_zero()) return false;
  F zz = F::sqr(t.z);
  if (!sg_mul(ex, zz).eq(t.x)) return false;
  F zzz = sg_mul(zz, t.z);
  return F::add(sg_mul(ey, zzz), t.y).is_zero();
}

/* ---- one point: on the curve and in the subgroup (the CPU's tests) -------------------- */

__device__ __forceinline__ bool sg_ok_g1(const spc_g1_affine &p, const sg_consts &k) {
  spc_fp rhs = spc_fp::add(spc_fp::mul(spc_fp::sqr(p.x), p.x), k.b4);
  if (!spc_fp::sqr(p.y).eq(rhs)) return false;
  spc_fp bx = spc_fp::mul(p.x, k.beta);
  sg_jac<spc_fp> t = sg_jmul_absx<spc_fp>(sg_jmul_absx_affine<spc_fp>(p.x, p.y)); /* [x^2] P */
  return sg_jeq_neg<spc_fp>(t, bx, p.y);
}

static __device__ __forceinline__ bool sg_ok_g2(const spc_g2_affine &p, const sg_consts &k) {
  spc_fp2 b;
  b.c0 = k.b4;
  b.c1 = k.b4;
  spc_fp2 rhs = spc_fp2::add(spc_fp2::mul_lazy(spc_fp2::sqr(p.x), p.x), b);
  if (!spc_fp2::sqr(p.y).eq(rhs)) return false;
  /* psi: conj(x) * (0 + c1 u) = (x.c1 c1) + (x.c0 c1) u; conj(y) * PSI_Y */
  spc_g2_affine psi;
  psi.x.c0 = spc_fp::mul(p.x.c1, k.psi_x_c1);
  psi.x.c1 = spc_fp::mul(p.x.c0, k.psi_x_c1);
  spc_fp2 cy;
  cy.c0 = p.y.c0;
  cy.c1 = spc_fp::neg(p.y.c1);
  psi.y = spc_fp2::mul_lazy(cy, k.psi_y);
  return sg_jeq_neg<spc_fp2>(sg_jmul_absx_affine<spc_fp2>(p.x, p.y), psi.x, psi.y);
}

static inline sg_consts sg_make_consts() {
  sg_consts k;
  memcpy(&k.b4, SG_B4, sizeof k.b4);
  memcpy(&k.beta, SG_BETA, sizeof k.beta);
  memcpy(&k.psi_x_c1, SG_PSI_X_C1, sizeof k.psi_x_c1);
  memcpy(&k.psi_y, SG_PSI_Y, sizeof k.psi_y);
  return k;
}

/* ---- kernels: one thread a point; the lowest failing index (base + i) by atomicMin;
 * infinity (x = y = 0, the layout of a rejected point) passes, as on the CPU */
/* G1: blocks of 128 threads, registers capped for 4 blocks a multiprocessor (ptxas,
 * sm_90: 128 registers, ~470 B stack, ~1.4 KB of spill stores, outside the doubling
 * loop). Measured fastest on the H200 against dbl-2009-l and against the doubling as
 * one call at 2, 3 or 4 blocks: 156.9 ms for 2^22 G1 points. */
static __global__ void __launch_bounds__(128, 4)
    k_subgroup_g1(const spc_g1_affine *pts, size_t n, size_t base, sg_consts k,
                  unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_g1_affine p = pts[i];
  if (p.is_inf()) return;
  if (!sg_ok_g1(p, k)) atomicMin(bad, (unsigned long long)(base + i));
}

/* G2: blocks of 64, Jacobian, the registers uncapped */
static __global__ void k_subgroup_g2(const spc_g2_affine *pts, size_t n, size_t base, sg_consts k,
                                     unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_g2_affine p = pts[i];
  if (p.is_inf()) return;
  if (!sg_ok_g2(p, k)) atomicMin(bad, (unsigned long long)(base + i));
}

/* Launches the check of n decoded points at pts (device memory) on stream st. */
static inline void sg_launch(bool g2, const void *pts, size_t n, size_t base, const sg_consts &k,
                             unsigned long long *bad, cudaStream_t st) {
  if (n == 0) return;
  if (g2)
    k_subgroup_g2<<<sp_blocks(n, 64), 64, 0, st>>>((const spc_g2_affine *)pts, n, base, k, bad);
  else
    k_subgroup_g1<<<sp_blocks(n, 128), 128, 0, st>>>((const spc_g1_affine *)pts, n, base, k, bad);
}

#endif
