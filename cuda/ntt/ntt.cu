/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* ntt.cu -- NTT over Fr on the GPU.
 *
 * A transform of size N = 2^log_n runs as a few passes of b <= 10 radix-2 stages each,
 * fused in shared memory. Pass i works on the sub-blocks of size m = 2^(log_n - t0)
 * (t0 = bits done by earlier passes) and splits m = 2^b * 2^L: for every column lo
 * (L bits) a 2^b-point DIF along the b bits above it (natural in, bit-reversed out),
 * then the twiddle omega_m^(lo * k) with k = bitrev_b(position). This is the
 * four-step decomposition X[k1 + 2^b k2] = sum_lo omega_S^(lo k2) omega_m^(lo k1)
 * (sum_j x[j, lo] omega_R^(j k1)); applied recursively it leaves the whole output in
 * bit-reversed order, so a DIF transform is natural in, bit-reversed out.
 * The DIT kernel is the transpose of that network (passes reversed, twiddles first,
 * butterflies transposed): bit-reversed in, natural out, which is what the H pipeline
 * needs after an inverse DIF, with no permutation pass in between. The natural-order
 * API (as the CPU ntt_*) adds one bit-reversal permutation.
 *
 * Roots come from the CPU library (fr_root_of_unity, fr_coset_generator), so the
 * device uses exactly the CPU's omega and g. omega^e is read as hi[e >> split] *
 * lo[e & mask] (two small tables per size: two loads and one product instead of a
 * 2^27-entry table), except the twiddles of the middle pass of a three-pass
 * transform: their exponents stay below 2^(logn - t0), so one direct table holds them.
 * The natural-order API's bit reversal trades tiles of 16 x 16 elements.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"
#include "ntt.h"

#define SP_NTT_MAX_PASS_BITS 10u
#define SP_NTT_BLOCK_ELEMS 1024u

/* Scale modes for the first (pre) or last (post) pass. */
enum { SP_SCALE_NONE = 0, SP_SCALE_C = 1, SP_SCALE_C_GPOW = 2, SP_SCALE_C_GPOW_REV = 3 };

struct sp_ntt_pass_args {
  spc_fr *data;
  const spc_fr *hi, *lo, *small;
  const spc_fr *mid; /* direct twiddles omega^(x << t0) for this pass, or NULL */
  unsigned split, slog;
  unsigned logn, t0, b;
  int pre, post;
  spc_fr pre_c, post_c;
  const spc_fr *pre_ghi, *pre_glo, *post_ghi, *post_glo;
};

__device__ __forceinline__ spc_fr sp_ldg_fr(const spc_fr *p) {
  const uint4 *q = (const uint4 *)p;
  uint4 a = __ldg(q), b = __ldg(q + 1);
  spc_fr r;
  r.v[0] = a.x;
  r.v[1] = a.y;
  r.v[2] = a.z;
  r.v[3] = a.w;
  r.v[4] = b.x;
  r.v[5] = b.y;
  r.v[6] = b.z;
  r.v[7] = b.w;
  return r;
}

__device__ __forceinline__ spc_fr sp_pow_tab(const spc_fr *hi, const spc_fr *lo, unsigned split,
                                             uint32_t e) {
  return spc_fr::mul(sp_ldg_fr(hi + (e >> split)), sp_ldg_fr(lo + (e & ((1u << split) - 1))));
}

__device__ __forceinline__ uint32_t sp_brev(uint32_t x, unsigned bits) {
  return bits ? __brev(x) >> (32 - bits) : 0;
}

/* x times its scale: c (SP_SCALE_C), or c g^e with e the position or its bit reversal,
 * where the caller passes a ghi with c folded in (sp_ntt_tab.coset_hi, or g's own table
 * when c = 1): one product forms the scale and one applies it. */
__device__ __forceinline__ spc_fr sp_scale(spc_fr x, int mode, const spc_fr &c, const spc_fr *ghi,
                                           const spc_fr *glo, size_t idx, unsigned logn) {
  spc_fr f = c;
  if (mode >= SP_SCALE_C_GPOW) {
    uint32_t e = mode == SP_SCALE_C_GPOW ? (uint32_t)idx : sp_brev((uint32_t)idx, logn);
    f = sp_pow_tab(ghi, glo, SP_COSET_SPLIT, e);
  }
  return spc_fr::mul(x, f);
}

/* The twiddle omega_m^(lo * k), k = bitrev_b(j), between two passes: one load from
 * the direct table when the pass has one (the middle pass of a three-pass transform:
 * lo * k < 2^(logn - t0)), else a product of two table entries. */
__device__ __forceinline__ spc_fr sp_twiddle(const sp_ntt_pass_args &a, size_t lo, unsigned j,
                                             unsigned b) {
  uint32_t x = (uint32_t)(lo * sp_brev(j, b));
  if (a.mid) return sp_ldg_fr(a.mid + x);
  return sp_pow_tab(a.hi, a.lo, a.split, x << a.t0);
}

/* BF butterflies per thread and stage: BF > 1 gives each thread independent products
 * to interleave (the carry chains of one product are serial). */
template <bool DIT, int BF, int MINB, bool R4>
__global__ void __launch_bounds__(SP_NTT_BLOCK_ELEMS / 2 / BF, MINB)
    k_ntt_pass(sp_ntt_pass_args a) {
  /* one 32-bit word plane per limb: conflict-free for consecutive indices */
  __shared__ uint32_t sh[8][SP_NTT_BLOCK_ELEMS];
  const unsigned b = a.b, G = 1u << b, L = a.logn - a.t0 - b;
  const unsigned E = blockDim.x * 2 * BF, C = E >> b, logC = __ffs(C) - 1;
  const size_t g0 = (size_t)blockIdx.x * C;
  const size_t lomask = ((size_t)1 << L) - 1;

  for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
    /* consecutive threads take consecutive addresses: along lo when the columns are
     * adjacent, along j when L == 0 (groups are contiguous) */
    unsigned c, j;
    if (L >= logC) {
      c = e & (C - 1);
      j = e >> logC;
    } else {
      c = e >> b;
      j = e & (G - 1);
    }
    size_t grp = g0 + c, lo = grp & lomask, hi = grp >> L;
    size_t idx = (hi << (L + b)) | ((size_t)j << L) | lo;
    spc_fr x = sp_ldg_fr(a.data + idx);
    if (a.pre) x = sp_scale(x, a.pre, a.pre_c, a.pre_ghi, a.pre_glo, idx, a.logn);
    if (DIT && L && lo) x = spc_fr::mul(x, sp_twiddle(a, lo, j, b));
    unsigned s = c * G + j;
#pragma unroll
    for (int w = 0; w < 8; w++) sh[w][s] = x.v[w];
  }
  __syncthreads();

  unsigned st0 = 0;
  if (R4 && BF == 2 && b >= 2) {
    /* Two stages per shared-memory round trip (radix 4): each thread takes the four
     * elements e0..e3 that two consecutive stages combine, so the block reads and
     * writes shared memory and waits at a barrier half as often. The products and
     * twiddles are exactly those of the two radix-2 stages. DIF pairs the halves
     * (h, h/2) going down, DIT (h, 2h) going up; an odd stage count leaves one
     * radix-2 stage (the last one) to the loop below. */
    const unsigned u = threadIdx.x, c = u >> (b - 2), v = u & ((G >> 2) - 1);
    for (; st0 + 1 < b; st0 += 2) {
      if (!DIT && b - 1 - st0 == 2) break; /* the split step below */
      spc_fr e[4];
      unsigned idx[4];
      if (DIT) {
        const unsigned lh = st0, h = 1u << lh, x = v & (h - 1);
        const unsigned i0 = c * G + ((v >> lh) << (lh + 2)) + x;
        idx[0] = i0;
        idx[1] = i0 + h;
        idx[2] = i0 + 2 * h;
        idx[3] = i0 + 3 * h;
#pragma unroll
        for (int k = 0; k < 4; k++)
#pragma unroll
          for (int w = 0; w < 8; w++) e[k].v[w] = sh[w][idx[k]];
        if (h > 1) {
          spc_fr tw = sp_ldg_fr(a.small + (x << (a.slog - 1 - lh)));
          e[1] = spc_fr::mul(e[1], tw);
          e[3] = spc_fr::mul(e[3], tw);
        }
        spc_fr s0 = spc_fr::add(e[0], e[1]), s1 = spc_fr::sub(e[0], e[1]);
        spc_fr s2 = spc_fr::add(e[2], e[3]), s3 = spc_fr::sub(e[2], e[3]);
        /* the first step (h = 1) has x = 0: t2's twiddle is 1, no product */
        spc_fr t2 = s2;
        if (h > 1) t2 = spc_fr::mul(s2, sp_ldg_fr(a.small + (x << (a.slog - 2 - lh))));
        spc_fr t3 = spc_fr::mul(s3, sp_ldg_fr(a.small + ((x + h) << (a.slog - 2 - lh))));
        e[0] = spc_fr::add(s0, t2);
        e[2] = spc_fr::sub(s0, t2);
        e[1] = spc_fr::add(s1, t3);
        e[3] = spc_fr::sub(s1, t3);
      } else {
        const unsigned lh = b - 1 - st0, h = 1u << lh, hh = h >> 1, x = v & (hh - 1);
        const unsigned i0 = c * G + ((v >> (lh - 1)) << (lh + 1)) + x;
        idx[0] = i0;
        idx[1] = i0 + hh;
        idx[2] = i0 + h;
        idx[3] = i0 + h + hh;
#pragma unroll
        for (int k = 0; k < 4; k++)
#pragma unroll
          for (int w = 0; w < 8; w++) e[k].v[w] = sh[w][idx[k]];
        spc_fr s0 = spc_fr::add(e[0], e[2]), s2 = spc_fr::sub(e[0], e[2]);
        spc_fr s1 = spc_fr::add(e[1], e[3]), s3 = spc_fr::sub(e[1], e[3]);
        /* the last step of an even stage count (hh = 1) has x = 0: s2's twiddle is 1 */
        if (hh > 1) s2 = spc_fr::mul(s2, sp_ldg_fr(a.small + (x << (a.slog - 1 - lh))));
        s3 = spc_fr::mul(s3, sp_ldg_fr(a.small + ((x + hh) << (a.slog - 1 - lh))));
        e[0] = spc_fr::add(s0, s1);
        e[1] = spc_fr::sub(s0, s1);
        e[2] = spc_fr::add(s2, s3);
        e[3] = spc_fr::sub(s2, s3);
        if (hh > 1) {
          spc_fr tw = sp_ldg_fr(a.small + (x << (a.slog - lh)));
          e[1] = spc_fr::mul(e[1], tw);
          e[3] = spc_fr::mul(e[3], tw);
        }
      }
#pragma unroll
      for (int k = 0; k < 4; k++)
#pragma unroll
        for (int w = 0; w < 8; w++) sh[w][idx[k]] = e[k].v[w];
      __syncthreads();
    }
    if (!DIT && st0 + 1 < b) {
      /* The DIF step with h = 4, hh = 2 (the last radix-4 step of an odd stage count).
       * Where x = 0 the twiddles of s2, e1 and e3 are omega^0 = 1: three of four
       * products change nothing, and here that is half the butterflies. So x is taken
       * from the top bit of v (any order of a step's butterflies is valid): x = 0 in
       * whole warps (b >= 8 puts 32 consecutive v on one x), which skip them. Apart
       * from the loop above, whose body keeps its registers. */
      const unsigned x = v >> (b - 3), i0 = c * G + ((v & ((G >> 3) - 1)) << 3) + x;
      spc_fr e[4];
#pragma unroll
      for (int k = 0; k < 4; k++)
#pragma unroll
        for (int w = 0; w < 8; w++) e[k].v[w] = sh[w][i0 + 2 * k];
      spc_fr s0 = spc_fr::add(e[0], e[2]), s2 = spc_fr::sub(e[0], e[2]);
      spc_fr s1 = spc_fr::add(e[1], e[3]), s3 = spc_fr::sub(e[1], e[3]);
      s3 = spc_fr::mul(s3, sp_ldg_fr(a.small + ((x + 2) << (a.slog - 3))));
      e[0] = spc_fr::add(s0, s1);
      e[1] = spc_fr::sub(s0, s1);
      if (x) {
        s2 = spc_fr::mul(s2, sp_ldg_fr(a.small + (1u << (a.slog - 3))));
        spc_fr tw = sp_ldg_fr(a.small + (1u << (a.slog - 2)));
        e[1] = spc_fr::mul(e[1], tw);
        e[2] = spc_fr::add(s2, s3);
        e[3] = spc_fr::mul(spc_fr::sub(s2, s3), tw);
      } else {
        e[2] = spc_fr::add(s2, s3);
        e[3] = spc_fr::sub(s2, s3);
      }
#pragma unroll
      for (int k = 0; k < 4; k++)
#pragma unroll
        for (int w = 0; w < 8; w++) sh[w][i0 + 2 * k] = e[k].v[w];
      __syncthreads();
      st0 += 2;
    }
  }
  for (unsigned st = st0; st < b; st++) {
    const unsigned lh = DIT ? st : b - 1 - st; /* log2 of the half size */
    const unsigned h = 1u << lh;
    spc_fr x[BF], y[BF];
    unsigned i0[BF];
#pragma unroll
    for (int k = 0; k < BF; k++) {
      const unsigned u = threadIdx.x + k * blockDim.x;
      const unsigned c = u >> (b - 1), v = u & ((G >> 1) - 1);
      i0[k] = c * G + ((v >> lh) << (lh + 1)) + (v & (h - 1));
#pragma unroll
      for (int w = 0; w < 8; w++) {
        x[k].v[w] = sh[w][i0[k]];
        y[k].v[w] = sh[w][i0[k] + h];
      }
      spc_fr tw = h > 1 ? sp_ldg_fr(a.small + ((v & (h - 1)) << (a.slog - 1 - lh))) : spc_fr();
      if (DIT) {
        if (h > 1) y[k] = spc_fr::mul(y[k], tw);
        spc_fr s0 = spc_fr::add(x[k], y[k]), s1 = spc_fr::sub(x[k], y[k]);
        x[k] = s0;
        y[k] = s1;
      } else {
        spc_fr s0 = spc_fr::add(x[k], y[k]), s1 = spc_fr::sub(x[k], y[k]);
        if (h > 1) s1 = spc_fr::mul(s1, tw);
        x[k] = s0;
        y[k] = s1;
      }
    }
#pragma unroll
    for (int k = 0; k < BF; k++)
#pragma unroll
      for (int w = 0; w < 8; w++) {
        sh[w][i0[k]] = x[k].v[w];
        sh[w][i0[k] + h] = y[k].v[w];
      }
    __syncthreads();
  }

  for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
    unsigned c2, j;
    if (L >= logC) {
      c2 = e & (C - 1);
      j = e >> logC;
    } else {
      c2 = e >> b;
      j = e & (G - 1);
    }
    size_t grp = g0 + c2, lo = grp & lomask, hi = grp >> L;
    size_t idx = (hi << (L + b)) | ((size_t)j << L) | lo;
    unsigned s = c2 * G + j;
    spc_fr x;
#pragma unroll
    for (int w = 0; w < 8; w++) x.v[w] = sh[w][s];
    if (!DIT && L && lo) x = spc_fr::mul(x, sp_twiddle(a, lo, j, b));
    if (a.post) x = sp_scale(x, a.post, a.post_c, a.post_ghi, a.post_glo, idx, a.logn);
    a.data[idx] = x;
  }
}

/* One swap per thread: transforms below 2^8, which have no 16 x 16 tiles for the form
 * below. */
__global__ void k_bitrev(spc_fr *d, unsigned logn, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  size_t j = (size_t)(__brevll((unsigned long long)i) >> (64 - logn));
  if (i < j) {
    spc_fr x = d[i], y = d[j];
    d[i] = y;
    d[j] = x;
  }
}

/* In-place bit reversal in tiles: index i = (a << (logn - 4)) | (m << 4) | c maps to
 * (brev4(c) << (logn - 4)) | (brev(m) << 4) | brev4(a), so the 16 x 16 tile of middle
 * bits m and the tile of brev(m) trade places, transposed. A block loads both tiles
 * (rows of 16 consecutive elements: 512-byte reads), then writes each into the other's
 * place (again whole rows); m == brev(m) is one tile transposed into itself. Rows are
 * padded to 17 elements so the column reads spread over the banks. */
#define SP_BR_T 4u
#define SP_BR_W (1u << SP_BR_T)
__global__ void __launch_bounds__(SP_BR_W *SP_BR_W) k_bitrev_tiled(spc_fr *d, unsigned logn) {
  __shared__ uint4 sh[2][SP_BR_W][SP_BR_W + 1][2];
  const unsigned mbits = logn - 2 * SP_BR_T;
  const size_t m = blockIdx.x, mr = mbits ? (__brevll((unsigned long long)m) >> (64 - mbits)) : 0;
  if (mr < m) return; /* the pair is handled by block mr */
  const unsigned t = threadIdx.x, r = t >> SP_BR_T, c = t & (SP_BR_W - 1);
  const unsigned sh_hi = logn - SP_BR_T;
  const size_t i0 = ((size_t)r << sh_hi) | (m << SP_BR_T) | c;
  const size_t i1 = ((size_t)r << sh_hi) | (mr << SP_BR_T) | c;
  const uint4 *p0 = (const uint4 *)(d + i0), *p1 = (const uint4 *)(d + i1);
  sh[0][r][c][0] = p0[0];
  sh[0][r][c][1] = p0[1];
  if (mr != m) {
    sh[1][r][c][0] = p1[0];
    sh[1][r][c][1] = p1[1];
  }
  __syncthreads();
  /* position (r, c) of tile mr receives element (brev c, brev r) of tile m, and the
   * other way round */
  const unsigned br = __brev(r) >> (32 - SP_BR_T), bc = __brev(c) >> (32 - SP_BR_T);
  uint4 *q1 = (uint4 *)(d + i1);
  q1[0] = sh[0][bc][br][0];
  q1[1] = sh[0][bc][br][1];
  if (mr != m) {
    uint4 *q0 = (uint4 *)(d + i0);
    q0[0] = sh[1][bc][br][0];
    q0[1] = sh[1][bc][br][1];
  }
}

/* a = a * b (evaluations on the coset; 1/Z(g) rides in the inverse transform's scale) */
__global__ void k_h_mul(spc_fr *a, const spc_fr *b, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = spc_fr::mul(a[i], b[i]);
}

/* a = a - c (coefficients, both bit-reversed) */
__global__ void k_h_sub(spc_fr *a, const spc_fr *c, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = spc_fr::sub(a[i], c[i]);
}

/* ---- tables ------------------------------------------------------------------------- */

static void inv_n(fr_t *out, unsigned logn) {
  fr_t n;
  fr_from_u64(&n, (uint64_t)1 << logn);
  fr_inv(out, &n);
}

/* 1/(n Z(g)) with Z(x) = x^n - 1, which is g^n - 1 everywhere on the coset g<omega> */
static void inv_n_z(fr_t *out, unsigned logn) {
  fr_t gen, z, zinv, ninv;
  fr_coset_generator(&gen);
  fr_pow_u64(&z, &gen, (uint64_t)1 << logn);
  fr_sub(&z, &z, &FR_ONE);
  fr_inv(&zinv, &z);
  inv_n(&ninv, logn);
  fr_mul(out, &zinv, &ninv);
}

static void fr_to_spc(spc_fr *d, const fr_t *s) { memcpy(d, s, sizeof *d); }

static int upload_table(sp_gpu *g, spc_fr **d, const fr_t *h, size_t n, char *err, size_t errlen) {
  int st = sp_gpu_alloc(g, (void **)d, n * sizeof(spc_fr), err, errlen);
  if (st) return st;
  st = sp_gpu_upload(g, *d, h, n * sizeof(fr_t), err, errlen);
  return st;
}

/* out[e] = base^e, e < n */
static void pow_table(fr_t *out, const fr_t *base, size_t n) {
  fr_t acc = FR_ONE;
  for (size_t e = 0; e < n; e++) {
    out[e] = acc;
    fr_mul(&acc, &acc, base);
  }
}

/* *w = omega^(2^s); returns w */
static const fr_t *root_pow2(fr_t *w, const fr_t *omega, unsigned s) {
  *w = *omega;
  for (unsigned i = 0; i < s; i++) fr_sqr(w, w);
  return w;
}

/* The pass schedule of a 2^logn transform: pass i does bits[i] stages after t0s[i]
 * bits; returns the number of passes (at most 3 up to 2^28). */
static unsigned pass_plan(unsigned logn, unsigned bits[4], unsigned t0s[4]) {
  unsigned npass = (logn + SP_NTT_MAX_PASS_BITS - 1) / SP_NTT_MAX_PASS_BITS, acc = 0;
  for (unsigned i = 0; i < npass; i++) {
    bits[i] = logn / npass + (i < logn % npass ? 1u : 0u);
    t0s[i] = acc;
    acc += bits[i];
  }
  return npass;
}

static int build_tab(sp_gpu *g, sp_ntt_tab *t, unsigned log_n, const fr_t *omega, char *err,
                     size_t errlen) {
  t->split = log_n / 2;
  t->slog = log_n < SP_NTT_MAX_PASS_BITS ? log_n : SP_NTT_MAX_PASS_BITS;
  size_t nlo = (size_t)1 << t->split, nhi = (size_t)1 << (log_n - t->split);
  size_t nsmall = (size_t)1 << (t->slog - 1);
  /* the middle pass's twiddles of a three-pass transform: omega^((lo * k) << t0),
   * lo * k < 2^(log_n - t0) */
  unsigned bits[4], t0s[4];
  size_t nmid = 0;
  if (pass_plan(log_n, bits, t0s) == 3) {
    t->mid_t0 = t0s[1];
    nmid = (size_t)1 << (log_n - t0s[1]);
  }
  fr_t *buf = (fr_t *)malloc((nlo + nhi + nsmall + nmid) * sizeof(fr_t));
  if (!buf) {
    snprintf(err, errlen, "NTT tables 2^%u: out of host memory", log_n);
    return SEALPROV_ERR_NO_MEMORY;
  }
  t->nlo = nlo;
  t->nhi = nhi;
  t->nsmall = nsmall;
  t->nmid = nmid;
  fr_t *hi = buf + nlo, *small = hi + nhi, *mid = small + nsmall;
  fr_t w;
  pow_table(buf, omega, nlo);
  pow_table(hi, root_pow2(&w, omega, t->split), nhi);
  pow_table(small, root_pow2(&w, omega, log_n - t->slog), nsmall);
  if (nmid) pow_table(mid, root_pow2(&w, omega, t->mid_t0), nmid);
  int st = upload_table(g, &t->lo, buf, nlo, err, errlen);
  if (!st) st = upload_table(g, &t->hi, hi, nhi, err, errlen);
  if (!st) st = upload_table(g, &t->small, small, nsmall, err, errlen);
  if (!st && nmid) st = upload_table(g, &t->mid, mid, nmid, err, errlen);
  if (!st) st = sp_gpu_sync(g, err, errlen); /* buf is freed next */
  free(buf);
  return st;
}

/* The inverse table's coset_hi[k] (gpu_internal.cuh): c_k (b_k^(2^SP_COSET_SPLIT))^i for
 * the exponents below 2^log_n. */
static int build_coset_scaled(sp_gpu *g, sp_ntt_tab *t, unsigned log_n, char *err, size_t errlen) {
  const size_t n = log_n > SP_COSET_SPLIT ? (size_t)1 << (log_n - SP_COSET_SPLIT) : 1;
  fr_t *buf = (fr_t *)malloc(3 * n * sizeof(fr_t));
  if (!buf) {
    snprintf(err, errlen, "NTT coset tables 2^%u: out of host memory", log_n);
    return SEALPROV_ERR_NO_MEMORY;
  }
  fr_t gen, ginv, c[3], b[3];
  fr_coset_generator(&gen);
  fr_inv(&ginv, &gen);
  fr_pow_u64(&b[SP_COSET_G_N], &gen, (uint64_t)1 << SP_COSET_SPLIT);
  fr_pow_u64(&b[SP_COSET_GINV_N], &ginv, (uint64_t)1 << SP_COSET_SPLIT);
  b[SP_COSET_GINV_NZ] = b[SP_COSET_GINV_N];
  inv_n(&c[SP_COSET_G_N], log_n);
  c[SP_COSET_GINV_N] = c[SP_COSET_G_N];
  inv_n_z(&c[SP_COSET_GINV_NZ], log_n);
  for (int k = 0; k < 3; k++) {
    fr_t acc = c[k];
    for (size_t i = 0; i < n; i++) {
      buf[k * n + i] = acc;
      fr_mul(&acc, &acc, &b[k]);
    }
  }
  t->ncoset = n;
  int st = SEALPROV_OK;
  for (int k = 0; !st && k < 3; k++)
    st = upload_table(g, &t->coset_hi[k], buf + k * n, n, err, errlen);
  if (!st) st = sp_gpu_sync(g, err, errlen); /* buf is freed next */
  free(buf);
  return st;
}

static void free_tab(sp_gpu *g, sp_ntt_tab *t) {
  sp_gpu_free(g, t->lo, t->nlo * sizeof(spc_fr));
  sp_gpu_free(g, t->hi, t->nhi * sizeof(spc_fr));
  sp_gpu_free(g, t->small, t->nsmall * sizeof(spc_fr));
  sp_gpu_free(g, t->mid, t->nmid * sizeof(spc_fr));
  for (int k = 0; k < 3; k++) sp_gpu_free(g, t->coset_hi[k], t->ncoset * sizeof(spc_fr));
  memset(t, 0, sizeof *t);
}

void sp_gpu_ntt_tables_free(sp_gpu *g) {
  for (unsigned i = 0; i < 29; i++)
    for (int k = 0; k < 2; k++) free_tab(g, &g->ntt[i][k]);
}

/* g^e = g_hi[e >> 14] g_lo[e & 16383] and the low half of g^-e, ginv_lo (the high halves
 * of g^-e come with their constants folded in, sp_ntt_tab.coset_hi) */
static int coset_tables(sp_gpu *g, char *err, size_t errlen) {
  if (g->g_hi) return SEALPROV_OK;
  const size_t n = (size_t)1 << SP_COSET_SPLIT;
  fr_t *buf = (fr_t *)malloc(3 * n * sizeof(fr_t));
  if (!buf) {
    snprintf(err, errlen, "coset tables: out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  fr_t gen, ginv, gh;
  fr_coset_generator(&gen);
  fr_inv(&ginv, &gen);
  fr_pow_u64(&gh, &gen, n);
  pow_table(buf, &gen, n);
  pow_table(buf + n, &gh, n);
  pow_table(buf + 2 * n, &ginv, n);
  int st = upload_table(g, &g->g_lo, buf, n, err, errlen);
  if (!st) st = upload_table(g, &g->g_hi, buf + n, n, err, errlen);
  if (!st) st = upload_table(g, &g->ginv_lo, buf + 2 * n, n, err, errlen);
  if (!st) st = sp_gpu_sync(g, err, errlen);
  free(buf);
  return st;
}

int sp_gpu_ntt_tables(sp_gpu *g, unsigned log_n, const sp_ntt_tab **fwd, const sp_ntt_tab **inv,
                      char *err, size_t errlen) {
  if (log_n < 1 || log_n > 28) {
    snprintf(err, errlen, "NTT size 2^%u out of range 2^1..2^28", log_n);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  int st = coset_tables(g, err, errlen);
  if (st) return st;
  if (!g->ntt[log_n][0].lo) {
    fr_t w, wi;
    fr_root_of_unity(&w, log_n);
    fr_inv(&wi, &w);
    st = build_tab(g, &g->ntt[log_n][0], log_n, &w, err, errlen);
    if (!st) st = build_tab(g, &g->ntt[log_n][1], log_n, &wi, err, errlen);
    if (!st) st = build_coset_scaled(g, &g->ntt[log_n][1], log_n, err, errlen);
    if (st) {
      free_tab(g, &g->ntt[log_n][0]);
      free_tab(g, &g->ntt[log_n][1]);
      return st;
    }
  }
  *fwd = &g->ntt[log_n][0];
  *inv = &g->ntt[log_n][1];
  return SEALPROV_OK;
}

/* ---- drivers ------------------------------------------------------------------------- */

struct sp_scale_spec {
  int mode;
  fr_t c;
  const spc_fr *ghi, *glo;
};

static int run_passes(sp_gpu *g, spc_fr *d, unsigned logn, const sp_ntt_tab *t, bool dit,
                      const sp_scale_spec *pre, const sp_scale_spec *post, char *err,
                      size_t errlen) {
  unsigned bits[4], t0s[4];
  const unsigned npass = pass_plan(logn, bits, t0s);
  size_t n = (size_t)1 << logn;
  unsigned E = n < SP_NTT_BLOCK_ELEMS ? (unsigned)n : SP_NTT_BLOCK_ELEMS;
  for (unsigned k = 0; k < npass; k++) {
    unsigned i = dit ? npass - 1 - k : k;
    sp_ntt_pass_args a;
    memset(&a, 0, sizeof a);
    a.data = d;
    a.hi = t->hi;
    a.lo = t->lo;
    a.small = t->small;
    a.split = t->split;
    a.slog = t->slog;
    a.logn = logn;
    a.t0 = t0s[i];
    a.b = bits[i];
    if (t->mid && a.t0 == t->mid_t0) a.mid = t->mid;
    if (k == 0 && pre && pre->mode) {
      a.pre = pre->mode;
      fr_to_spc(&a.pre_c, &pre->c);
      a.pre_ghi = pre->ghi;
      a.pre_glo = pre->glo;
    }
    if (k == npass - 1 && post && post->mode) {
      a.post = post->mode;
      fr_to_spc(&a.post_c, &post->c);
      a.post_ghi = post->ghi;
      a.post_glo = post->glo;
    }
    /* 2 butterflies per thread, radix-4 stages in shared memory, registers capped for
     * 4 blocks per SM (measured fastest against 1, 2 and 4 butterflies a thread and radix
     * 2, capped or not). BF = 2 needs at least 4 elements per block: a 2-element
     * transform takes the 1-butterfly form. */
    const int bf = E >= 4 ? 2 : 1;
    unsigned blocks = (unsigned)(n / E), threads = E / 2 / (unsigned)bf;
#define SP_NTT_LAUNCH(D)                                                \
  do {                                                                  \
    if (bf == 2)                                                        \
      k_ntt_pass<D, 2, 4, true><<<blocks, threads, 0, g->stream>>>(a);  \
    else                                                                \
      k_ntt_pass<D, 1, 1, false><<<blocks, threads, 0, g->stream>>>(a); \
  } while (0)
    if (dit)
      SP_NTT_LAUNCH(true);
    else
      SP_NTT_LAUNCH(false);
#undef SP_NTT_LAUNCH
    SP_CUDA_LAUNCH_CHECK();
  }
  return SEALPROV_OK;
}

static int bitrev(sp_gpu *g, spc_fr *d, unsigned logn, char *err, size_t errlen) {
  size_t n = (size_t)1 << logn;
  if (logn >= 2 * SP_BR_T)
    k_bitrev_tiled<<<(unsigned)(n >> (2 * SP_BR_T)), SP_BR_W * SP_BR_W, 0, g->stream>>>(d, logn);
  else
    k_bitrev<<<sp_blocks(n, 256), 256, 0, g->stream>>>(d, logn, n);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}

extern "C" int sp_gpu_ntt_dev(sp_gpu *g, void *d_a, unsigned log_n, sp_ntt_kind kind, char *err,
                              size_t errlen) {
  const sp_ntt_tab *fwd, *inv;
  int st = sp_gpu_ntt_tables(g, log_n, &fwd, &inv, err, errlen);
  if (st) return st;
  spc_fr *d = (spc_fr *)d_a;
  sp_scale_spec sc;
  memset(&sc, 0, sizeof sc);
  switch (kind) {
    case SP_NTT_FORWARD: st = run_passes(g, d, log_n, fwd, false, NULL, NULL, err, errlen); break;
    case SP_NTT_INVERSE:
      sc.mode = SP_SCALE_C;
      inv_n(&sc.c, log_n);
      st = run_passes(g, d, log_n, inv, false, NULL, &sc, err, errlen);
      break;
    case SP_NTT_COSET_FORWARD: /* c = 1: g's own table */
      sc.mode = SP_SCALE_C_GPOW;
      sc.ghi = g->g_hi;
      sc.glo = g->g_lo;
      st = run_passes(g, d, log_n, fwd, false, &sc, NULL, err, errlen);
      break;
    case SP_NTT_COSET_INVERSE:
      /* after the DIF, position p holds coefficient bitrev(p): scale by g^-bitrev(p) */
      sc.mode = SP_SCALE_C_GPOW_REV;
      sc.ghi = inv->coset_hi[SP_COSET_GINV_N]; /* c = 1/n folded in */
      sc.glo = g->ginv_lo;
      st = run_passes(g, d, log_n, inv, false, NULL, &sc, err, errlen);
      break;
    default:
      snprintf(err, errlen, "unknown NTT kind %d", (int)kind);
      return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (st) return st;
#ifndef SP_GPU_PROFILE
  return bitrev(g, d, log_n, err, errlen);
#else
  if (!g->profile) return bitrev(g, d, log_n, err, errlen);
  /* a profile build (gpu_internal.cuh): the permutation timed apart (stderr) */
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0, g->stream);
  st = bitrev(g, d, log_n, err, errlen);
  cudaEventRecord(e1, g->stream);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  fprintf(stderr, "profile ntt 2^%u kind %d: bit reversal %.3f ms\n", log_n, (int)kind, ms);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  (void)cudaGetLastError();
  return st;
#endif
}

/* Evaluations on the domain -> evaluations on the coset g*omega^i, natural order in and
 * out, with no permutation: inverse DIF (bit-reversed coefficients, scaled by
 * g^k / n), then DIT (bit-reversed in, natural out). */
static int to_coset_evals(sp_gpu *g, spc_fr *d, unsigned logn, const sp_ntt_tab *fwd,
                          const sp_ntt_tab *inv, char *err, size_t errlen) {
  sp_scale_spec sc;
  memset(&sc, 0, sizeof sc);
  sc.mode = SP_SCALE_C_GPOW_REV;
  sc.ghi = inv->coset_hi[SP_COSET_G_N]; /* c = 1/n folded in */
  sc.glo = g->g_lo;
  int st = run_passes(g, d, logn, inv, false, NULL, &sc, err, errlen);
  if (st) return st;
  return run_passes(g, d, logn, fwd, true, NULL, NULL, err, errlen);
}

extern "C" int sp_gpu_h_coset(sp_gpu *g, void *d_v, unsigned log_n, char *err, size_t errlen) {
  const sp_ntt_tab *fwd, *inv;
  int st = sp_gpu_ntt_tables(g, log_n, &fwd, &inv, err, errlen);
  if (st) return st;
  return to_coset_evals(g, (spc_fr *)d_v, log_n, fwd, inv, err, errlen);
}

/* H = (A B - C) / Z has degree < n, so the inverse coset transform of its coset values
 * gives its coefficients exactly, and that transform is linear: H = icoset(A B) / Z(g)
 * - icoset(C) / Z(g). C has degree < n too, so icoset(C on the coset) is C's own
 * coefficients, which the plain inverse NTT of c gives: c needs one transform, not
 * two. */
extern "C" int sp_gpu_h_coeffs(sp_gpu *g, void *d_c, unsigned log_n, char *err, size_t errlen) {
  const sp_ntt_tab *fwd, *inv;
  int st = sp_gpu_ntt_tables(g, log_n, &fwd, &inv, err, errlen);
  if (st) return st;
  sp_scale_spec sc;
  memset(&sc, 0, sizeof sc);
  sc.mode = SP_SCALE_C;
  inv_n_z(&sc.c, log_n);
  return run_passes(g, (spc_fr *)d_c, log_n, inv, false, NULL, &sc, err, errlen);
}

extern "C" int sp_gpu_h_finish(sp_gpu *g, void *d_a, const void *d_b, const void *d_c,
                               unsigned log_n, char *err, size_t errlen) {
  const sp_ntt_tab *fwd, *inv;
  int st = sp_gpu_ntt_tables(g, log_n, &fwd, &inv, err, errlen);
  if (st) return st;
  size_t n = (size_t)1 << log_n;
  spc_fr *a = (spc_fr *)d_a;
  if (d_b) { /* NULL: a holds the products already (two vectors at a time) */
    k_h_mul<<<sp_blocks(n, 256), 256, 0, g->stream>>>(a, (const spc_fr *)d_b, n);
    SP_CUDA_LAUNCH_CHECK();
  }
  sp_scale_spec sc;
  memset(&sc, 0, sizeof sc);
  sc.mode = SP_SCALE_C_GPOW_REV;
  sc.ghi = inv->coset_hi[SP_COSET_GINV_NZ]; /* c = 1/(n Z(g)) folded in */
  sc.glo = g->ginv_lo;
  st = run_passes(g, a, log_n, inv, false, NULL, &sc, err, errlen);
  if (st) return st;
  k_h_sub<<<sp_blocks(n, 256), 256, 0, g->stream>>>(a, (const spc_fr *)d_c, n);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}

/* Appended for the CUDA engine's parameter streaming: the natural-order permutation of
 * an array the H pipeline left bit-reversed (streamed H MSMs take the points in
 * contiguous chunks, so the scalars must be in the points' order). */
extern "C" int sp_gpu_bitrev_dev(sp_gpu *g, void *d, unsigned log_n, char *err, size_t errlen) {
  if (log_n < 1 || log_n > 28) {
    snprintf(err, errlen, "bit reversal of 2^%u elements out of range 2^1..2^28", log_n);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  return bitrev(g, (spc_fr *)d, log_n, err, errlen);
}
