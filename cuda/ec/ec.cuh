/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* ec.cuh -- G1 and G2 points on the GPU: affine and XYZZ (x = X/ZZ, y = Y/ZZZ).
 *
 * Layouts equal the CPU library's g1_affine_t / g2_affine_t / g1_xyzz_t / g2_xyzz_t,
 * so results copy back to the host as they are. Affine infinity is x = y = 0 and
 * XYZZ infinity is ZZ = 0 (CPU conventions). One template serves G1 (over Fp) and
 * G2 (over Fp2); both curves have a = 0.
 *
 * Formulas: add-2008-s, madd-2008-s, dbl-2008-s-1, mdbl-2008-s-1 (EFD, "xyzz" for
 * short Weierstrass curves). All additions here are complete: they detect P == Q
 * (doubling) and P == -Q (infinity), because bucket sums meet both.
 */
#ifndef SEALPROV_CUDA_EC_CUH
#define SEALPROV_CUDA_EC_CUH

#include "ff.cuh"

template <class F>
struct spc_affine {
  F x, y;
  __device__ __forceinline__ bool is_inf() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct spc_xyzz {
  F x, y, zz, zzz;

  __device__ __forceinline__ static spc_xyzz inf() {
    spc_xyzz r;
    r.x = F::zero();
    r.y = F::zero();
    r.zz = F::zero();
    r.zzz = F::zero();
    return r;
  }
  __device__ __forceinline__ bool is_inf() const { return zz.is_zero(); }

  __device__ __forceinline__ static spc_xyzz from_affine(const spc_affine<F> &p) {
    if (p.is_inf()) return inf();
    spc_xyzz r;
    r.x = p.x;
    r.y = p.y;
    r.zz = F::one();
    r.zzz = F::one();
    return r;
  }

  __device__ __forceinline__ static spc_xyzz neg(const spc_xyzz &p) {
    spc_xyzz r = p;
    r.y = F::neg(p.y);
    return r;
  }

  /* dbl-2008-s-1 with a = 0. The three general operations are not inlined: each is
   * about 10 field products (30 for G2), so a call costs little, and inlining them at
   * every use made the G2 kernels too large for the register file and for the
   * compiler. */
  __device__ __noinline__ static spc_xyzz dbl(const spc_xyzz &p) {
    if (p.is_inf()) return p;
    F u = F::dbl(p.y);
    F v = F::sqr(u);
    F w = F::mul(u, v);
    F s = F::mul(p.x, v);
    F x2 = F::sqr(p.x);
    F m = F::add(F::dbl(x2), x2);
    spc_xyzz r;
    r.x = F::sub(F::sqr(m), F::dbl(s));
    r.y = F::mul_sub_mul(m, F::sub(s, r.x), w, p.y);
    r.zz = F::mul(v, p.zz);
    r.zzz = F::mul(w, p.zzz);
    return r;
  }

  /* mdbl-2008-s-1: doubling an affine point (not infinity). */
  __device__ __forceinline__ static spc_xyzz dbl_affine(const spc_affine<F> &p) {
    F u = F::dbl(p.y);
    F v = F::sqr(u);
    F w = F::mul(u, v);
    F s = F::mul(p.x, v);
    F x2 = F::sqr(p.x);
    F m = F::add(F::dbl(x2), x2);
    spc_xyzz r;
    r.x = F::sub(F::sqr(m), F::dbl(s));
    r.y = F::mul_sub_mul(m, F::sub(s, r.x), w, p.y);
    r.zz = v;
    r.zzz = w;
    return r;
  }

  /* madd-2008-s: p + q with q affine; complete. add_affine_inl is the same code for
   * the one hot loop that may want it inlined (the bucket accumulation). */
  __device__ __noinline__ static spc_xyzz add_affine(const spc_xyzz &p, const spc_affine<F> &q) {
    return add_affine_inl(p, q);
  }
  __device__ __forceinline__ static spc_xyzz add_affine_inl(const spc_xyzz &p,
                                                            const spc_affine<F> &q) {
    if (q.is_inf()) return p;
    if (p.is_inf()) return from_affine(q);
    F u2 = F::mul(q.x, p.zz);
    F s2 = F::mul(q.y, p.zzz);
    F pp_ = F::sub(u2, p.x);
    F rr = F::sub(s2, p.y);
    if (pp_.is_zero()) {
      if (rr.is_zero()) return dbl_affine(q);
      return inf();
    }
    F pp = F::sqr(pp_);
    F ppp = F::mul(pp_, pp);
    F qq = F::mul(p.x, pp);
    spc_xyzz r;
    r.x = F::sub(F::sub(F::sqr(rr), ppp), F::dbl(qq));
    r.y = F::mul_sub_mul(rr, F::sub(qq, r.x), p.y, ppp);
    r.zz = F::mul(p.zz, pp);
    r.zzz = F::mul(p.zzz, ppp);
    return r;
  }

  /* p - q with q affine. */
  __device__ __forceinline__ static spc_xyzz sub_affine(const spc_xyzz &p, const spc_affine<F> &q) {
    spc_affine<F> nq;
    nq.x = q.x;
    nq.y = q.is_inf() ? q.y : F::neg(q.y);
    return add_affine(p, nq);
  }

  /* add-2008-s; complete. */
  __device__ __noinline__ static spc_xyzz add(const spc_xyzz &p, const spc_xyzz &q) {
    if (q.is_inf()) return p;
    if (p.is_inf()) return q;
    F u1 = F::mul(p.x, q.zz);
    F u2 = F::mul(q.x, p.zz);
    F s1 = F::mul(p.y, q.zzz);
    F s2 = F::mul(q.y, p.zzz);
    F pp_ = F::sub(u2, u1);
    F rr = F::sub(s2, s1);
    if (pp_.is_zero()) {
      if (rr.is_zero()) return dbl(p);
      return inf();
    }
    F pp = F::sqr(pp_);
    F ppp = F::mul(pp_, pp);
    F qq = F::mul(u1, pp);
    spc_xyzz r;
    r.x = F::sub(F::sub(F::sqr(rr), ppp), F::dbl(qq));
    r.y = F::mul_sub_mul(rr, F::sub(qq, r.x), s1, ppp);
    r.zz = F::mul(F::mul(p.zz, q.zz), pp);
    r.zzz = F::mul(F::mul(p.zzz, q.zzz), ppp);
    return r;
  }
};

typedef spc_affine<spc_fp> spc_g1_affine;
typedef spc_xyzz<spc_fp> spc_g1_xyzz;
typedef spc_affine<spc_fp2> spc_g2_affine;
typedef spc_xyzz<spc_fp2> spc_g2_xyzz;

#endif
