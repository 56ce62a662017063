/* subgroup.cuh -- the device side of the G1 / G2 subgroup tests (subgroup.cu: the
 * checker of decoded points; load.cu: the direct load's decode-and-check). See
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

/* dbl-2008-s-1 (ec.cuh's dbl) inlined, operands by value: variant 1 of the kernels.
 * ec.cuh's dbl is a call taking a reference (variant 0, the default), whose operands go
 * through the stack; 63 of the 68 operations of a multiplication by |x| are doublings.
 * Measured on the H200 (cuda/NOTES.md v7), variant 1 is not faster: G1 3.1M points
 * 155.2 against 148.8 ms, G2 1.05M 87.3 against 86.9 ms (and G2 spills). */
template <class F>
__device__ __forceinline__ spc_xyzz<F> sg_dbl_inl(spc_xyzz<F> p) {
  if (p.is_inf()) return p;
  F u = F::dbl(p.y);
  F v = F::sqr(u);
  F w = F::mul(u, v);
  F s = F::mul(p.x, v);
  F x2 = F::sqr(p.x);
  F m = F::add(F::dbl(x2), x2);
  spc_xyzz<F> r;
  r.x = F::sub(F::sqr(m), F::dbl(s));
  r.y = F::mul_sub_mul(m, F::sub(s, r.x), w, p.y);
  r.zz = F::mul(v, p.zz);
  r.zzz = F::mul(w, p.zzz);
  return r;
}
template <class F, int V>
__device__ __forceinline__ spc_xyzz<F> sg_dbl(const spc_xyzz<F> &p) {
  return V ? sg_dbl_inl<F>(p) : spc_xyzz<F>::dbl(p);
}

/* [|x|] of an XYZZ point (not an affine one: the second multiplication of G1). */
template <class F, int V>
__device__ __forceinline__ spc_xyzz<F> sg_mul_absx(const spc_xyzz<F> &p) {
  spc_xyzz<F> acc = p; /* bit 63 */
#pragma unroll 1
  for (int bit = 62; bit >= 0; bit--) {
    acc = sg_dbl<F, V>(acc);
    if ((SP_SG_ABS_X >> bit) & 1u) acc = spc_xyzz<F>::add(acc, p);
  }
  return acc;
}
template <class F, int V>
__device__ __forceinline__ spc_xyzz<F> sg_mul_absx_affine(const spc_affine<F> &p) {
  spc_xyzz<F> acc = spc_xyzz<F>::from_affine(p);
#pragma unroll 1
  for (int bit = 62; bit >= 0; bit--) {
    acc = sg_dbl<F, V>(acc);
    if ((SP_SG_ABS_X >> bit) & 1u) acc = spc_xyzz<F>::add_affine(acc, p);
  }
  return acc;
}


/* ---- variant 2: Jacobian coordinates (x = X/Z^2, y = Y/Z^3) ----------------------------
 * dbl-2009-l (a = 0): 1M + 5S a doubling against XYZZ's 6M + 3S, and three coordinates
 * instead of four; 63 of the 68 operations of a multiplication by |x| are doublings.
 * Infinity is Z = 0 (a doubling keeps it). The additions (madd-2007-bl, add-2007-bl)
 * are made complete by hand: an operand at infinity returns the other, P == Q (H = r =
 * 0) doubles, P == -Q (H = 0, r != 0) gives Z3 = 0 by the formula itself. The final
 * comparison [|x|]... == -endo(P) is done projectively (no inversion, no addition). */
template <class F>
struct sg_jac {
  F x, y, z;
};

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
  r.y = F::sub(F::mul(e, F::sub(d, r.x)), c8);
  r.z = F::dbl(F::mul(p.y, p.z));
  return r;
}

/* The doubling as a call, operands by value (variant 5): the call boundary bounds the
 * registers live across the loop (msm.cu's by-value calls, cuda/NOTES.md v6). */
template <class F>
__device__ __noinline__ sg_jac<F> sg_jdbl_call(sg_jac<F> p) {
  return sg_jdbl<F>(p);
}
template <class F, bool CALL>
__device__ __forceinline__ sg_jac<F> sg_jdbl2(const sg_jac<F> &p) {
  return CALL ? sg_jdbl_call<F>(p) : sg_jdbl<F>(p);
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
  F u2 = F::mul(qx, z1z1);
  F s2 = F::mul(qy, F::mul(p.z, z1z1));
  F h = F::sub(u2, p.x);
  F rr = F::dbl(F::sub(s2, p.y));
  if (h.is_zero() && rr.is_zero()) return sg_jdbl<F>(p);
  F hh = F::sqr(h);
  F i = F::dbl(F::dbl(hh));
  F j = F::mul(h, i);
  F v = F::mul(p.x, i);
  sg_jac<F> r;
  r.x = F::sub(F::sub(F::sqr(rr), j), F::dbl(v));
  r.y = F::sub(F::mul(rr, F::sub(v, r.x)), F::dbl(F::mul(p.y, j)));
  r.z = F::sub(F::sub(F::sqr(F::add(p.z, h)), z1z1), hh);
  return r;
}

/* p + q, both Jacobian. */
template <class F>
__device__ __forceinline__ sg_jac<F> sg_jadd(sg_jac<F> p, sg_jac<F> q) {
  if (p.z.is_zero()) return q;
  if (q.z.is_zero()) return p;
  F z1z1 = F::sqr(p.z), z2z2 = F::sqr(q.z);
  F u1 = F::mul(p.x, z2z2), u2 = F::mul(q.x, z1z1);
  F s1 = F::mul(p.y, F::mul(q.z, z2z2)), s2 = F::mul(q.y, F::mul(p.z, z1z1));
  F h = F::sub(u2, u1);
  F rr = F::dbl(F::sub(s2, s1));
  if (h.is_zero() && rr.is_zero()) return sg_jdbl<F>(p);
  F i = F::sqr(F::dbl(h));
  F j = F::mul(h, i);
  F v = F::mul(u1, i);
  sg_jac<F> r;
  r.x = F::sub(F::sub(F::sqr(rr), j), F::dbl(v));
  r.y = F::sub(F::mul(rr, F::sub(v, r.x)), F::dbl(F::mul(s1, j)));
  r.z = F::mul(F::sub(F::sub(F::sqr(F::add(p.z, q.z)), z1z1), z2z2), h);
  return r;
}

/* [|x|] (qx, qy) for an affine point not infinity. */
template <class F, bool CALL = false>
__device__ __forceinline__ sg_jac<F> sg_jmul_absx_affine(const F &qx, const F &qy) {
  sg_jac<F> acc;
  acc.x = qx;
  acc.y = qy;
  acc.z = F::one();
#pragma unroll 1
  for (int bit = 62; bit >= 0; bit--) {
    acc = sg_jdbl2<F, CALL>(acc);
    if ((SP_SG_ABS_X >> bit) & 1u) acc = sg_jmadd<F>(acc, qx, qy);
  }
  return acc;
}
template <class F, bool CALL = false>
__device__ __forceinline__ sg_jac<F> sg_jmul_absx(const sg_jac<F> &q) {
  sg_jac<F> acc = q;
#pragma unroll 1
  for (int bit = 62; bit >= 0; bit--) {
    acc = sg_jdbl2<F, CALL>(acc);
    if ((SP_SG_ABS_X >> bit) & 1u) acc = sg_jadd<F>(acc, q);
  }
  return acc;
}

/* t == -(ex, ey) for an affine (ex, ey) not infinity: X == ex Z^2 and Y == -ey Z^3. */
template <class F>
__device__ __forceinline__ bool sg_jeq_neg(const sg_jac<F> &t, const F &ex, const F &ey) {
  if (t.z.is_zero()) return false;
  F zz = F::sqr(t.z);
  if (!F::mul(ex, zz).eq(t.x)) return false;
  F zzz = F::mul(zz, t.z);
  return F::add(F::mul(ey, zzz), t.y).is_zero();
}

/* ---- one point: on the curve and in the subgroup (the CPU's tests) -------------------- */

/* variant V: 0 = ec.cuh's XYZZ doubling call, 1 = XYZZ inlined, 2 = Jacobian */
template <int V>
__device__ __forceinline__ bool sg_ok_g1(const spc_g1_affine &p, const sg_consts &k) {
  spc_fp rhs = spc_fp::add(spc_fp::mul(spc_fp::sqr(p.x), p.x), k.b4);
  if (!spc_fp::sqr(p.y).eq(rhs)) return false;
  spc_fp bx = spc_fp::mul(p.x, k.beta);
  if (V == 2 || V == 5) {
    sg_jac<spc_fp> t = sg_jmul_absx<spc_fp, V == 5>(
        sg_jmul_absx_affine<spc_fp, V == 5>(p.x, p.y)); /* [x^2] P */
    return sg_jeq_neg<spc_fp>(t, bx, p.y);
  }
  spc_g1_xyzz t = sg_mul_absx<spc_fp, V>(sg_mul_absx_affine<spc_fp, V>(p)); /* [x^2] P */
  spc_g1_affine phi;
  phi.x = bx;
  phi.y = p.y;
  return spc_g1_xyzz::add_affine(t, phi).is_inf();
}

template <int V>
__device__ __forceinline__ bool sg_ok_g2(const spc_g2_affine &p, const sg_consts &k) {
  spc_fp2 b;
  b.c0 = k.b4;
  b.c1 = k.b4;
  spc_fp2 rhs = spc_fp2::add(spc_fp2::mul(spc_fp2::sqr(p.x), p.x), b);
  if (!spc_fp2::sqr(p.y).eq(rhs)) return false;
  /* psi: conj(x) * (0 + c1 u) = (x.c1 c1) + (x.c0 c1) u; conj(y) * PSI_Y */
  spc_g2_affine psi;
  psi.x.c0 = spc_fp::mul(p.x.c1, k.psi_x_c1);
  psi.x.c1 = spc_fp::mul(p.x.c0, k.psi_x_c1);
  spc_fp2 cy;
  cy.c0 = p.y.c0;
  cy.c1 = spc_fp::neg(p.y.c1);
  psi.y = spc_fp2::mul(cy, k.psi_y);
  if (V == 2 || V == 5)
    return sg_jeq_neg<spc_fp2>(sg_jmul_absx_affine<spc_fp2, V == 5>(p.x, p.y), psi.x, psi.y);
  spc_g2_xyzz t = sg_mul_absx_affine<spc_fp2, V>(p);
  return spc_g2_xyzz::add_affine(t, psi).is_inf();
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
/* G1 variants 3 and 4: variant 2 with its registers capped for 3 and 4 blocks of 128
 * threads per multiprocessor (variant 2 takes 238 registers: 2 blocks). */
template <int V>
__global__ void __launch_bounds__(128, V == 3 ? 3 : V == 4 ? 4 : 1)
    k_subgroup_g1(const spc_g1_affine *pts, size_t n, size_t base, sg_consts k,
                  unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_g1_affine p = pts[i];
  if (p.is_inf()) return;
  if (!sg_ok_g1<(V == 3 || V == 4 ? 2 : V)>(p, k)) atomicMin(bad, (unsigned long long)(base + i));
}

template <int V>
__global__ void k_subgroup_g2(const spc_g2_affine *pts, size_t n, size_t base, sg_consts k,
                              unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_g2_affine p = pts[i];
  if (p.is_inf()) return;
  if (!sg_ok_g2<(V == 3 || V == 4 ? 2 : V)>(p, k)) atomicMin(bad, (unsigned long long)(base + i));
}

/* Variant of the kernels: SP_GPU_SG_VARIANT (0 to 5) or SP_SG_DEFAULT_VARIANT: 0 XYZZ
 * with ec.cuh's doubling call, 1 XYZZ inlined, 2 Jacobian inlined, 3 and 4 = 2 capped for
 * 3 and 4 blocks of 128 (G1 only: G2 runs 2), 5 Jacobian with the doubling a call. */
#ifndef SP_SG_DEFAULT_VARIANT
/* 4: the direct load of a 2^23 file took 1.53 s against 1.82-1.85 s with variant 0 on
 * the H200 (cuda/NOTES.md v8) */
#define SP_SG_DEFAULT_VARIANT 4
#endif
static inline int sg_variant_env(const char *v) {
  return v && v[0] >= '0' && v[0] <= '5' && !v[1] ? v[0] - '0' : SP_SG_DEFAULT_VARIANT;
}

/* Launches the check of n decoded points at pts (device memory) on stream st. */
static inline void sg_launch(bool g2, int variant, const void *pts, size_t n, size_t base,
                             const sg_consts &k, unsigned long long *bad, cudaStream_t st) {
  const spc_g2_affine *p2 = (const spc_g2_affine *)pts;
  const spc_g1_affine *p1 = (const spc_g1_affine *)pts;
  if (n == 0) return;
  if (g2 && variant == 5)
    k_subgroup_g2<5><<<sp_blocks(n, 64), 64, 0, st>>>(p2, n, base, k, bad);
  else if (g2 && variant >= 2)
    k_subgroup_g2<2><<<sp_blocks(n, 64), 64, 0, st>>>(p2, n, base, k, bad);
  else if (g2 && variant == 1)
    k_subgroup_g2<1><<<sp_blocks(n, 64), 64, 0, st>>>(p2, n, base, k, bad);
  else if (g2)
    k_subgroup_g2<0><<<sp_blocks(n, 64), 64, 0, st>>>(p2, n, base, k, bad);
  else if (variant == 5)
    k_subgroup_g1<5><<<sp_blocks(n, 128), 128, 0, st>>>(p1, n, base, k, bad);
  else if (variant == 4)
    k_subgroup_g1<4><<<sp_blocks(n, 128), 128, 0, st>>>(p1, n, base, k, bad);
  else if (variant == 3)
    k_subgroup_g1<3><<<sp_blocks(n, 128), 128, 0, st>>>(p1, n, base, k, bad);
  else if (variant == 2)
    k_subgroup_g1<2><<<sp_blocks(n, 128), 128, 0, st>>>(p1, n, base, k, bad);
  else if (variant == 1)
    k_subgroup_g1<1><<<sp_blocks(n, 128), 128, 0, st>>>(p1, n, base, k, bad);
  else
    k_subgroup_g1<0><<<sp_blocks(n, 128), 128, 0, st>>>(p1, n, base, k, bad);
}

#endif
