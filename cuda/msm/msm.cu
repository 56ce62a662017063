/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* msm.cu -- Pippenger MSM and batch addition for G1 and G2 on the GPU.
 *
 * Per window of c bits every scalar gets a signed digit d in [-2^(c-1), 2^(c-1)]
 * (the carry goes to the next window; ceil(256/c) windows leave the top one free of
 * carries since r < 2^255). Pairs (|d|, point index | sign << 31) are sorted by |d|
 * with CUB's radix sort, so each bucket's points are one run of the sorted array.
 *
 * Bucket accumulation is load balanced whatever the distribution of digits (sealing
 * scalars repeat a lot): thread t sums the fixed chunk [tL, tL + L) of the sorted
 * array. A run entirely inside a chunk is a whole bucket and is written directly; a
 * run cut by a chunk boundary leaves its pieces in two records per chunk (head, tail),
 * which are again sorted by bucket, so the same procedure runs on the records, level
 * after level, until one chunk holds everything. No atomics, no dependence on bucket
 * sizes, and the sum order is fixed (results are exact anyway).
 *
 * Window reduction: each window's 2^(c-1) buckets are split in S segments; a thread
 * computes its segment's sum of (b - lo + 1) B_b with the running-sum trick and adds
 * lo * (sum B_b) by double-and-add; segments are summed pairwise on the GPU. The
 * host combines the per-window sums (ceil(256/c) points) by Horner with the CPU
 * library: a few hundred doublings, microseconds.
 *
 * The fixed-base MSM (tables of copies of points that stay on the device) is
 * msm_table.cuh, part of this file's translation unit.
 */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "gpu_internal.cuh"
#include "msm.h"

#define SP_KEY_NONE 0xffffffffu

/* Host side of each curve: the CPU library's XYZZ for the final Horner step. */
struct sp_host_g1 {
  typedef spc_fp F;
  typedef g1_xyzz_t xyzz;
  typedef g1_jac_t jac;
  typedef g1_affine_t affine;
  static const unsigned max_window = 20;
  static const unsigned big_lg = 26, big_window = 22;
  static void set_inf(xyzz *r) { g1_xyzz_set_inf(r); }
  static void dbl(xyzz *r, const xyzz *a) { g1_xyzz_dbl(r, a); }
  static void add(xyzz *r, const xyzz *a, const xyzz *b) { g1_xyzz_add(r, a, b); }
  static void to_jac(jac *r, const xyzz *a) { g1_xyzz_to_jac(r, a); }
};
struct sp_host_g2 {
  typedef spc_fp2 F;
  typedef g2_xyzz_t xyzz;
  typedef g2_jac_t jac;
  typedef g2_affine_t affine;
  static const unsigned max_window = 17;
  static const unsigned big_lg = 64, big_window = 17;
  static void set_inf(xyzz *r) { g2_xyzz_set_inf(r); }
  static void dbl(xyzz *r, const xyzz *a) { g2_xyzz_dbl(r, a); }
  static void add(xyzz *r, const xyzz *a, const xyzz *b) { g2_xyzz_add(r, a, b); }
  static void to_jac(jac *r, const xyzz *a) { g2_xyzz_to_jac(r, a); }
};

/* ---- kernels ------------------------------------------------------------------------- */

__device__ __forceinline__ uint32_t sp_brev32(uint32_t x, unsigned bits) {
  return bits ? __brev(x) >> (32 - bits) : 0;
}

/* Signed digits of windows [w0, w1) for every scalar. Zero digits get key 0, which
 * sorts first and is skipped by the accumulation. TAB (msm_tab, a fixed-base table):
 * the value also names the copy of the point, window w - wg0 of the group that starts
 * at window wg0, as copy << shift (tests/cuda/msm_table_model.py models this). */
template <bool TAB = false>
__global__ void k_msm_digits(const spc_fr *scalars, size_t n, unsigned c, unsigned w0, unsigned w1,
                             uint32_t *keys, uint32_t *vals, const uint32_t *index,
                             uint32_t index_base, unsigned bitrev_log, unsigned flags,
                             unsigned wg0 = 0, unsigned shift = 0) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_fr s = scalars[i];
  uint32_t pidx =
      index ? index[i] - index_base
            : ((flags & SP_MSM_BITREV_POINTS) ? sp_brev32((uint32_t)i, bitrev_log) : (uint32_t)i);
  const uint32_t mask = (1u << c) - 1, half = 1u << (c - 1);
  uint32_t carry = 0;
  for (unsigned w = 0; w < w1; w++) {
    unsigned bit = w * c, word = bit >> 5, sh = bit & 31;
    uint32_t v = 0;
    if (word < 8) {
      v = s.v[word] >> sh;
      if (sh + c > 32 && word + 1 < 8) v |= s.v[word + 1] << (32 - sh);
    }
    v &= mask;
    uint32_t d = v + carry, neg = 0;
    if (d > half) {
      d = (1u << c) - d;
      neg = 1;
      carry = 1;
    } else {
      carry = 0;
    }
    if (w >= w0) {
      size_t o = (size_t)(w - w0) * n + i;
      keys[o] = d;
      vals[o] = pidx | (neg << 31) | (TAB ? (w - wg0) << shift : 0u);
    }
  }
}

template <class X>
__device__ __forceinline__ void sp_emit(uint32_t k, const X &acc, bool cross_start, bool cross_end,
                                        X *buckets, uint32_t *rkey, X *rpt, size_t t) {
  if (!cross_start && !cross_end) {
    buckets[k] = acc;
  } else if (cross_start) {
    rkey[2 * t] = k;
    rpt[2 * t] = acc;
    if (cross_end) { /* the chunk is one piece of a longer run: keep the chain unbroken */
      rkey[2 * t + 1] = k;
      rpt[2 * t + 1] = X::inf();
    }
  } else {
    rkey[2 * t + 1] = k;
    rpt[2 * t + 1] = acc;
  }
}

/* Level 0: sorted (digit, point) pairs of a window batch -> buckets and records.
 * Both groups capped for SP_ACC_MINB blocks of SP_ACC_THREADS per SM (168 registers).
 * G1 inlines the mixed addition (measured fastest against the other register caps and
 * against the addition as a call). G2 calls it (inlined, it was slower); its cap gives
 * 168 registers and ~240 bytes of spills in the addition instead of 208 registers and 2
 * blocks: G2 MSM 2^24 -5 % on the H200 (cuda/DESIGN.md, "MSM"). */
#define SP_ACC_THREADS 128
#define SP_ACC_MINB 3
template <class F>
struct sp_acc_inl {
  static const bool value = false;
};
template <>
struct sp_acc_inl<spc_fp> {
  static const bool value = true;
};
/* Where a value's point lives. Plain: points[v]. With a fixed-base table (TAB, msm_tab)
 * v = copy << shift | index: copy 0 is the point vector itself, copy j >= 1 is 2^(c j)
 * times it, at ext + (j - 1) * stride. */
template <class F, bool TAB>
__device__ __forceinline__ spc_affine<F> sp_point(const spc_affine<F> *points,
                                                  const spc_affine<F> *ext, size_t stride,
                                                  unsigned shift, uint32_t v) {
  if (!TAB) return points[v];
  uint32_t j = v >> shift, i = v & ((1u << shift) - 1);
  return j ? ext[(size_t)(j - 1) * stride + i] : points[i];
}

/* TAB: one bucket set for every window of the batch (the copies carry the windows'
 * weights). */
template <class F, bool TAB = false>
__global__ void __launch_bounds__(SP_ACC_THREADS, SP_ACC_MINB)
    k_msm_accum0(const uint32_t *keys, const uint32_t *vals, size_t n, size_t T, unsigned c,
                 const spc_affine<F> *points, spc_xyzz<F> *buckets, unsigned L, uint32_t *rkey,
                 spc_xyzz<F> *rpt, const spc_affine<F> *ext = NULL, size_t stride = 0,
                 unsigned shift = 0) {
  typedef spc_xyzz<F> X;
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t start = t * L;
  if (start >= T) return;
  size_t end = start + L < T ? start + L : T;
  rkey[2 * t] = SP_KEY_NONE;
  rkey[2 * t + 1] = SP_KEY_NONE;
#define SP_CK(pos)                \
  (keys[pos] == 0 ? SP_KEY_NONE   \
   : TAB          ? keys[pos] - 1 \
                  : ((uint32_t)((pos) / n) << (c - 1)) | (keys[pos] - 1))
  const uint32_t kprev = start > 0 ? SP_CK(start - 1) : SP_KEY_NONE;
  const uint32_t knext = end < T ? SP_CK(end) : SP_KEY_NONE;
  uint32_t cur = SP_KEY_NONE;
  size_t run_start = start;
  X acc = X::inf();
  for (size_t pos = start; pos < end; pos++) {
    uint32_t k = SP_CK(pos);
    if (k != cur) {
      if (cur != SP_KEY_NONE)
        sp_emit(cur, acc, run_start == start && kprev == cur, false, buckets, rkey, rpt, t);
      cur = k;
      run_start = pos;
      acc = X::inf();
    }
    if (k != SP_KEY_NONE) {
      uint32_t v = vals[pos];
      spc_affine<F> p = sp_point<F, TAB>(points, ext, stride, shift, v & 0x7fffffffu);
      if (v >> 31) p.y = F::neg(p.y); /* -0 = 0: infinity stays infinity */
      acc = sp_acc_inl<F>::value ? X::add_affine_inl(acc, p) : X::add_affine(acc, p);
    }
  }
  if (cur != SP_KEY_NONE)
    sp_emit(cur, acc, run_start == start && kprev == cur, knext == cur, buckets, rkey, rpt, t);
#undef SP_CK
}

/* Level >= 1: records (bucket, partial sum) -> buckets and fewer records. */
template <class F>
__global__ void k_msm_accumN(const uint32_t *ikey, const spc_xyzz<F> *ipt, size_t T,
                             spc_xyzz<F> *buckets, unsigned L, uint32_t *rkey, spc_xyzz<F> *rpt) {
  typedef spc_xyzz<F> X;
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t start = t * L;
  if (start >= T) return;
  size_t end = start + L < T ? start + L : T;
  rkey[2 * t] = SP_KEY_NONE;
  rkey[2 * t + 1] = SP_KEY_NONE;
  const uint32_t kprev = start > 0 ? ikey[start - 1] : SP_KEY_NONE;
  const uint32_t knext = end < T ? ikey[end] : SP_KEY_NONE;
  uint32_t cur = SP_KEY_NONE;
  size_t run_start = start;
  X acc = X::inf();
  for (size_t pos = start; pos < end; pos++) {
    uint32_t k = ikey[pos];
    if (k != cur) {
      if (cur != SP_KEY_NONE)
        sp_emit(cur, acc, run_start == start && kprev == cur, false, buckets, rkey, rpt, t);
      cur = k;
      run_start = pos;
      acc = X::inf();
    }
    if (k != SP_KEY_NONE) acc = X::add(acc, ipt[pos]);
  }
  if (cur != SP_KEY_NONE)
    sp_emit(cur, acc, run_start == start && kprev == cur, knext == cur, buckets, rkey, rpt, t);
}

template <class X>
__device__ X sp_mul_u32(const X &p, uint32_t k) {
  X r = X::inf();
  for (int bit = 31 - __clz(k); bit >= 0; bit--) {
    r = X::dbl(r);
    if ((k >> bit) & 1u) r = X::add(r, p);
  }
  return r;
}

/* out[w*S + s] = sum_{b in segment s} (b + 1) B_b of window w. */
template <class F>
__global__ void k_msm_bucket_reduce(const spc_xyzz<F> *buckets, unsigned nwin, unsigned nb,
                                    unsigned S, spc_xyzz<F> *out) {
  typedef spc_xyzz<F> X;
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)nwin * S) return;
  unsigned w = (unsigned)(t / S), s = (unsigned)(t % S), Z = nb / S, lo = s * Z;
  const X *B = buckets + (size_t)w * nb;
  X run = X::inf(), acc = X::inf();
  for (unsigned b = lo + Z; b-- > lo;) {
    run = X::add(run, B[b]);
    acc = X::add(acc, run);
  }
  if (lo) acc = X::add(acc, sp_mul_u32(run, lo));
  out[t] = acc;
}

/* p[w*S + i] += p[w*S + i + half], i < half, for every window w. */
template <class F>
__global__ void k_reduce_pairs(spc_xyzz<F> *p, unsigned nwin, unsigned S, unsigned half) {
  typedef spc_xyzz<F> X;
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (size_t)nwin * half) return;
  unsigned w = (unsigned)(t / half), i = (unsigned)(t % half);
  X *q = p + (size_t)w * S;
  q[i] = X::add(q[i], q[i + half]);
}

/* a[b] += d[b], b < nb: a later sort batch of a bucket set (msm_tab) into the set. (An
 * addition in the accumulation's bucket writes instead cost its hot loop 200 bytes of
 * register spills, ptxas -v.) */
template <class F>
__global__ void k_bucket_merge(spc_xyzz<F> *a, const spc_xyzz<F> *d, size_t nb) {
  typedef spc_xyzz<F> X;
  size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nb) a[b] = X::add(a[b], d[b]);
}

/* Batch addition: partial sums over chunks of 64 points selected by the bitmap. */
template <class F>
__global__ void k_batch_add(const spc_affine<F> *pts, const uint64_t *bitmap, size_t n,
                            spc_xyzz<F> *out) {
  /* One bitmap word (64 points) per thread, visiting only its set bits: a warp runs
   * as many additions as its fullest word has bits (about 34 of 64 at the 42 %
   * density of the ones in a sealing partition), where a loop over all 64 positions
   * made every lane wait through every position any lane had set. */
  typedef spc_xyzz<F> X;
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t start = t * 64;
  if (start >= n) return;
  uint64_t w = bitmap[t];
  if (n - start < 64) w &= (1ull << (n - start)) - 1; /* bits past n are not ours */
  X acc = X::inf();
  while (w) {
    unsigned b = (unsigned)__ffsll((long long)w) - 1;
    w &= w - 1;
    acc = X::add_affine(acc, pts[start + b]);
  }
  out[t] = acc;
}

/* ---- host drivers ------------------------------------------------------------------- */

/* The accumulation kernel, in its one form per group (k_msm_accum0). */
template <class F>
static cudaError_t launch_accum0(sp_gpu *g, const uint32_t *keys, const uint32_t *vals, size_t n,
                                 size_t T, unsigned c, const spc_affine<F> *points,
                                 spc_xyzz<F> *buckets, unsigned L, uint32_t *rkey,
                                 spc_xyzz<F> *rpt) {
  size_t nch = (T + L - 1) / L;
  k_msm_accum0<F><<<sp_blocks(nch, SP_ACC_THREADS), SP_ACC_THREADS, 0, g->stream>>>(
      keys, vals, n, T, c, points, buckets, L, rkey, rpt);
  return cudaGetLastError();
}

/* The accumulation over a table (msm_tab), in launch_accum0's forms. T is passed as n:
 * the keys carry no window, so n is not read. */
template <class F>
static cudaError_t launch_accum_tab(sp_gpu *g, const uint32_t *keys, const uint32_t *vals, size_t T,
                                    unsigned c, const sp_msm_table *tb, spc_xyzz<F> *buckets,
                                    unsigned L, uint32_t *rkey, spc_xyzz<F> *rpt) {
  size_t nch = (T + L - 1) / L;
  k_msm_accum0<F, true><<<sp_blocks(nch, SP_ACC_THREADS), SP_ACC_THREADS, 0, g->stream>>>(
      keys, vals, T, T, c, (const spc_affine<F> *)tb->d_points, buckets, L, rkey, rpt,
      (const spc_affine<F> *)tb->d_ext, tb->npoints, tb->shift);
  return cudaGetLastError();
}

/* Phase timings of one MSM: events at the phase boundaries of every window batch,
 * summed over batches, one line on stderr per MSM. Only in a profile build of the test
 * kit (gpu_internal.cuh, SP_GPU_PROFILE); in sealprov.so these are empty. */
#define SP_PROF_MARKS 6
#ifdef SP_GPU_PROFILE
struct sp_prof {
  bool on;
  cudaEvent_t ev[SP_PROF_MARKS];
  double ms[SP_PROF_MARKS];
  cudaStream_t s;
};
static void prof_init(sp_prof *p, sp_gpu *g) {
  memset(p, 0, sizeof *p);
  p->on = g->profile;
  p->s = g->stream;
  for (int i = 0; p->on && i < SP_PROF_MARKS; i++)
    if (cudaEventCreate(&p->ev[i]) != cudaSuccess) p->on = false;
  (void)cudaGetLastError();
}
static void prof_mark(sp_prof *p, int i) {
  if (p->on) cudaEventRecord(p->ev[i], p->s);
}
static void prof_batch_end(sp_prof *p) {
  if (!p->on) return;
  cudaEventSynchronize(p->ev[SP_PROF_MARKS - 1]);
  for (int i = 1; i < SP_PROF_MARKS; i++) {
    float ms = 0;
    cudaEventElapsedTime(&ms, p->ev[i - 1], p->ev[i]);
    p->ms[i] += ms;
  }
  (void)cudaGetLastError();
}
static void prof_done(sp_prof *p, const char *what, size_t n, unsigned c, unsigned wb) {
  if (!p->on) return;
  fprintf(stderr,
          "profile %s n=%zu c=%u windows/batch=%u: digits %.2f sort %.2f accum0 %.2f accumN %.2f "
          "buckets %.2f ms\n",
          what, n, c, wb, p->ms[1], p->ms[2], p->ms[3], p->ms[4], p->ms[5]);
  for (int i = 0; i < SP_PROF_MARKS; i++) cudaEventDestroy(p->ev[i]);
  (void)cudaGetLastError();
}
#else
struct sp_prof {};
static inline void prof_init(sp_prof *, sp_gpu *) {}
static inline void prof_mark(sp_prof *, int) {}
static inline void prof_batch_end(sp_prof *) {}
static inline void prof_done(sp_prof *, const char *, size_t, unsigned, unsigned) {}
#endif

static unsigned ilog2_floor(size_t n) {
  unsigned r = 0;
  while (n >>= 1) r++;
  return r;
}

static unsigned pow2_floor(size_t n) { return n ? 1u << ilog2_floor(n) : 1u; }

/* Sums S partial points of each of nwin windows (S a power of two) in place; the
 * result of window w is at p[w*S]. */
template <class F>
static int reduce_windows(sp_gpu *g, spc_xyzz<F> *p, unsigned nwin, unsigned S, char *err,
                          size_t errlen) {
  for (unsigned half = S / 2; half >= 1; half /= 2) {
    size_t threads = (size_t)nwin * half;
    k_reduce_pairs<F><<<sp_blocks(threads, 64), 64, 0, g->stream>>>(p, nwin, S, half);
    SP_CUDA_LAUNCH_CHECK();
  }
  return SEALPROV_OK;
}

/* Choice of window: fewer windows mean fewer point additions and less sorting, more
 * buckets mean a longer window reduction (about 2 * 2^(c-1) additions per window).
 * lg - 3 up to a cap, and from 2^big_lg points a larger window that saves a window:
 * on the H200 G1's c = 22 pays from 2^26 points (433 against 455 ms at c = 20); G2's
 * cap, 17, is the fastest window at the size of a partition's B G2 MSM (~2^22). */
static unsigned choose_window(size_t n, unsigned max_window, unsigned big_lg, unsigned big_window) {
  unsigned lg = ilog2_floor(n ? n : 1);
  if (lg >= big_lg) return big_window;
  unsigned c = lg > 3 ? lg - 3 : 2;
  if (c < 2) c = 2;
  if (c > max_window) c = max_window;
  return c;
}

/* One MSM's device buffers for n scalars, window c and wb windows per sort batch: the
 * pairs (keys and values, twice: 16 bytes per pair of a batch of T = wb n), CUB's sort
 * temporaries (temp), the batch's buckets, the accumulation's records (two levels of
 * two per chunk of L pairs) and the window reduction's partial sums (S per window).
 * msm_dev allocates exactly these; sp_gpu_msm_scratch_bytes reports them to the
 * engine's memory plan. */
#define MSM_L1 16u
struct msm_layout {
  unsigned wb, L, S;
  size_t T, recA, recB;
  uint64_t bytes;
};

static void msm_layout_for(msm_layout *ly, size_t n, unsigned c, unsigned wb, size_t xsize,
                           size_t temp_bytes, int sm_count) {
  const unsigned nb = 1u << (c - 1);
  ly->wb = wb;
  ly->T = (size_t)wb * n;
  /* Chunk length: enough threads to fill the card, not more records than needed (no
   * SM count known: the shortest chunk, the most records). */
  size_t target = sm_count > 0 ? (size_t)sm_count * 1024 : 0;
  unsigned L = target ? (unsigned)pow2_floor(ly->T / target) : 8;
  if (L < 8) L = 8;
  if (L > 256) L = 256;
  ly->L = L;
  const size_t nch0 = (ly->T + L - 1) / L;
  ly->recA = 2 * nch0;
  ly->recB = 2 * ((ly->recA + MSM_L1 - 1) / MSM_L1);
  unsigned S = pow2_floor(65536 / wb);
  if (S > nb) S = nb;
  ly->S = S;
  ly->bytes = 16 * (uint64_t)ly->T + temp_bytes + (uint64_t)wb * nb * xsize +
              (uint64_t)(ly->recA + ly->recB) * (4 + xsize) + (uint64_t)wb * S * xsize;
}

/* Windows per batch: the sort buffers (16 bytes per pair) near 4 GiB; under a scratch
 * cap (the engine's plan for a device with little memory) fewer, down to one. Fewer
 * windows per batch cost little: every window is sorted and accumulated alone anyway,
 * only the digit pass and the launches repeat per batch. */
static void msm_plan_batches(msm_layout *ly, size_t n, unsigned c, size_t xsize, size_t temp_bytes,
                             int sm_count, uint64_t cap) {
  const unsigned nwin = (256 + c - 1) / c;
  unsigned wb = (unsigned)((4ull << 30) / (16 * (uint64_t)n));
  if (wb < 1) wb = 1;
  if (wb > nwin) wb = nwin;
  msm_layout_for(ly, n, c, wb, xsize, temp_bytes, sm_count);
  while (cap && ly->bytes > cap && wb > 1)
    msm_layout_for(ly, n, c, --wb, xsize, temp_bytes, sm_count);
}

/* CUB's radix sort of n pairs (not in place): the other keys and values (8 bytes a
 * pair) and its pass histograms and look-back tiles (under n / 4 bytes at every size
 * measured), rounded up; the MSM asks CUB itself, this is for plans made without a
 * device call. */
static uint64_t sort_temp_estimate(size_t n) { return 8 * (uint64_t)n + n / 2 + (2u << 20); }

extern "C" uint64_t sp_gpu_msm_scratch_bytes(bool g2, size_t n, unsigned wb, int sm_count,
                                             uint64_t cap) {
  if (n == 0) return 0;
  const size_t xsize = g2 ? sizeof(spc_xyzz<spc_fp2>) : sizeof(spc_xyzz<spc_fp>);
  const unsigned c =
      g2 ? choose_window(n, sp_host_g2::max_window, sp_host_g2::big_lg, sp_host_g2::big_window)
         : choose_window(n, sp_host_g1::max_window, sp_host_g1::big_lg, sp_host_g1::big_window);
  const unsigned nwin = (256 + c - 1) / c;
  msm_layout ly;
  if (wb) {
    msm_layout_for(&ly, n, c, wb < nwin ? wb : nwin, xsize, sort_temp_estimate(n), sm_count);
  } else {
    msm_plan_batches(&ly, n, c, xsize, sort_temp_estimate(n), sm_count, cap);
  }
  /* and the host-side window sums' copy target: nothing on the device */
  return ly.bytes;
}

extern "C" uint64_t sp_gpu_batch_add_scratch_bytes(bool g2, size_t n) {
  if (n == 0) return 0;
  const size_t xsize = g2 ? sizeof(spc_xyzz<spc_fp2>) : sizeof(spc_xyzz<spc_fp>);
  size_t nt = (n + 63) / 64;
  size_t S = pow2_floor(nt);
  if (S < nt) S *= 2;
  return (uint64_t)S * xsize;
}

/* The buffers both MSMs (msm_dev, msm_tab) sort and accumulate with: T pairs (keys and
 * values, twice), CUB's temporaries, the accumulation's two levels of records (recA,
 * recB) and the partial sums of the window reduction (nparts). The buckets, which the
 * two lay out differently, are the caller's, allocated between the sort's buffers and
 * the records (msm_sort_alloc, then msm_rec_alloc). */
template <class X>
struct msm_scratch {
  uint32_t *keys, *vals, *keys2, *vals2, *rkA, *rkB;
  X *rpA, *rpB, *part;
  void *temp;
  size_t T, temp_bytes, recA, recB, nparts;
};

template <class X>
static int msm_sort_alloc(sp_gpu *g, msm_scratch<X> *s, char *err, size_t errlen) {
  SP_TRY(sp_gpu_alloc(g, (void **)&s->keys, s->T * 4, err, errlen));
  SP_TRY(sp_gpu_alloc(g, (void **)&s->vals, s->T * 4, err, errlen));
  SP_TRY(sp_gpu_alloc(g, (void **)&s->keys2, s->T * 4, err, errlen));
  SP_TRY(sp_gpu_alloc(g, (void **)&s->vals2, s->T * 4, err, errlen));
  return sp_gpu_alloc(g, &s->temp, s->temp_bytes, err, errlen);
}

template <class X>
static int msm_rec_alloc(sp_gpu *g, msm_scratch<X> *s, char *err, size_t errlen) {
  SP_TRY(sp_gpu_alloc(g, (void **)&s->rkA, s->recA * 4, err, errlen));
  SP_TRY(sp_gpu_alloc(g, (void **)&s->rpA, s->recA * sizeof(X), err, errlen));
  SP_TRY(sp_gpu_alloc(g, (void **)&s->rkB, s->recB * 4, err, errlen));
  SP_TRY(sp_gpu_alloc(g, (void **)&s->rpB, s->recB * sizeof(X), err, errlen));
  return sp_gpu_alloc(g, (void **)&s->part, s->nparts * sizeof(X), err, errlen);
}

template <class X>
static void msm_scratch_free(sp_gpu *g, msm_scratch<X> *s) {
  sp_gpu_free(g, s->keys, s->T * 4);
  sp_gpu_free(g, s->vals, s->T * 4);
  sp_gpu_free(g, s->keys2, s->T * 4);
  sp_gpu_free(g, s->vals2, s->T * 4);
  sp_gpu_free(g, s->temp, s->temp_bytes);
  sp_gpu_free(g, s->rkA, s->recA * 4);
  sp_gpu_free(g, s->rpA, s->recA * sizeof(X));
  sp_gpu_free(g, s->rkB, s->recB * 4);
  sp_gpu_free(g, s->rpB, s->recB * sizeof(X));
  sp_gpu_free(g, s->part, s->nparts * sizeof(X));
}

/* After the first accumulation pass (nch chunks, two records each): the records, MSM_L1
 * at a time, level by level into buckets, until no record is left (k_msm_accumN). */
template <class F>
static int accum_levels(sp_gpu *g, msm_scratch<spc_xyzz<F>> *s, size_t nch, spc_xyzz<F> *buckets,
                        char *err, size_t errlen) {
  uint32_t *ik = s->rkA, *ok = s->rkB;
  spc_xyzz<F> *ip = s->rpA, *op = s->rpB;
  while (nch > 1) {
    size_t Tr = 2 * nch;
    nch = (Tr + MSM_L1 - 1) / MSM_L1;
    k_msm_accumN<F>
        <<<sp_blocks(nch, 128), 128, 0, g->stream>>>(ik, ip, Tr, buckets, MSM_L1, ok, op);
    SP_CUDA_LAUNCH_CHECK();
    uint32_t *tk = ik;
    ik = ok;
    ok = tk;
    spc_xyzz<F> *tp = ip;
    ip = op;
    op = tp;
  }
  return SEALPROV_OK;
}

/* The sum of 2^(bits i) sums[i] over i < count, into total (Horner, from the last). */
template <class H>
static void horner(typename H::xyzz *total, const typename H::xyzz *sums, unsigned count,
                   unsigned bits) {
  for (unsigned i = count; i-- > 0;) {
    for (unsigned d = 0; d < bits; d++) H::dbl(total, total);
    H::add(total, total, &sums[i]);
  }
}

/* What both MSMs refuse of a->n: more points than CUB's int item counts hold. */
static int msm_n_check(size_t n, char *err, size_t errlen) {
  if (n <= 0x7fffffffu) return SEALPROV_OK;
  snprintf(err, errlen, "MSM of %zu points: more than 2^31 - 1", n);
  return SEALPROV_ERR_INVALID_ARGUMENT;
}

/* Windows w0..w1 of the MSM without a table, one batch: the digits, each window's sort,
 * the accumulation into the batch's bucket sets and their reduction to one sum per
 * window, copied to wsum (host, asynchronously on g's stream). */
template <class F>
static int dev_batch(sp_gpu *g, msm_scratch<spc_xyzz<F>> *s, const sp_msm_args *a, unsigned c,
                     unsigned w0, unsigned w1, spc_xyzz<F> *buckets, unsigned L, unsigned S,
                     void *wsum, sp_prof *prof, char *err, size_t errlen) {
  typedef spc_xyzz<F> X;
  const size_t n = a->n;
  const unsigned nw = w1 - w0, nb = 1u << (c - 1);
  const size_t Tb = (size_t)nw * n;
  prof_mark(prof, 0);
  k_msm_digits<false><<<sp_blocks(n, 256), 256, 0, g->stream>>>(
      (const spc_fr *)a->d_scalars, n, c, w0, w1, s->keys, s->vals, a->d_index, a->index_base,
      a->log_bitrev, a->flags);
  SP_CUDA_LAUNCH_CHECK();
  prof_mark(prof, 1);
  for (unsigned w = 0; w < nw; w++) {
    size_t off = (size_t)w * n;
    SP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(s->temp, s->temp_bytes, s->keys + off,
                                                  s->keys2 + off, s->vals + off, s->vals2 + off,
                                                  (int)n, 0, (int)c, g->stream));
  }
  SP_CUDA_CHECK(cudaMemsetAsync(buckets, 0, (size_t)nw * nb * sizeof(X), g->stream));
  prof_mark(prof, 2);
  SP_CUDA_CHECK(launch_accum0<F>(g, s->keys2, s->vals2, n, Tb, c,
                                 (const spc_affine<F> *)a->d_points, buckets, L, s->rkA, s->rpA));
  prof_mark(prof, 3);
  SP_TRY(accum_levels<F>(g, s, (Tb + L - 1) / L, buckets, err, errlen));
  prof_mark(prof, 4);
  k_msm_bucket_reduce<F>
      <<<sp_blocks((size_t)nw * S, 64), 64, 0, g->stream>>>(buckets, nw, nb, S, s->part);
  SP_CUDA_LAUNCH_CHECK();
  SP_TRY(reduce_windows<F>(g, s->part, nw, S, err, errlen));
  prof_mark(prof, 5);
  prof_batch_end(prof);
  SP_CUDA_CHECK(cudaMemcpy2DAsync(wsum, sizeof(X), s->part, (size_t)S * sizeof(X), sizeof(X), nw,
                                  cudaMemcpyDeviceToHost, g->stream));
  return SEALPROV_OK;
}

template <class H>
static int msm_tab(sp_gpu *g, typename H::jac *out, const sp_msm_args *a, char *err, size_t errlen);

template <class H>
static int msm_dev(sp_gpu *g, typename H::jac *out, const sp_msm_args *a, char *err,
                   size_t errlen) {
  if (a->table) return msm_tab<H>(g, out, a, err, errlen);
  typedef typename H::F F;
  typedef spc_xyzz<F> X;
  typename H::xyzz total;
  H::set_inf(&total);
  if (a->n == 0) {
    H::to_jac(out, &total);
    return SEALPROV_OK;
  }
  SP_TRY(msm_n_check(a->n, err, errlen));
  const size_t n = a->n;
  const unsigned c =
      a->window_bits ? a->window_bits : choose_window(n, H::max_window, H::big_lg, H::big_window);
  if (c < 2 || c > 24) {
    snprintf(err, errlen, "MSM window of %u bits outside 2..24", c);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const unsigned nwin = (256 + c - 1) / c, nb = 1u << (c - 1);
  msm_scratch<X> s;
  memset(&s, 0, sizeof s);
  SP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, s.temp_bytes, (uint32_t *)NULL,
                                                (uint32_t *)NULL, (uint32_t *)NULL,
                                                (uint32_t *)NULL, (int)n, 0, (int)c, g->stream));
  msm_layout ly;
  msm_plan_batches(&ly, n, c, sizeof(X), s.temp_bytes, g->sm_count, a->scratch_cap);
  const unsigned wb = ly.wb, L = ly.L, S = ly.S;
  s.T = ly.T;
  s.recA = ly.recA;
  s.recB = ly.recB;
  s.nparts = (size_t)wb * S;

  X *buckets = NULL;
  typename H::xyzz *wsum = NULL;
  int st = SEALPROV_OK;
  sp_prof prof;
  memset(&prof, 0, sizeof prof);
  wsum = (typename H::xyzz *)malloc(nwin * sizeof *wsum);
  if (!wsum) {
    snprintf(err, errlen, "MSM: out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  SP_TRY_GOTO(msm_sort_alloc(g, &s, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&buckets, (size_t)wb * nb * sizeof(X), err, errlen), st,
              done);
  SP_TRY_GOTO(msm_rec_alloc(g, &s, err, errlen), st, done);

  prof_init(&prof, g);
  for (unsigned w0 = 0; w0 < nwin; w0 += wb) {
    unsigned w1 = w0 + wb < nwin ? w0 + wb : nwin;
    SP_TRY_GOTO(dev_batch<F>(g, &s, a, c, w0, w1, buckets, L, S, wsum + w0, &prof, err, errlen), st,
                done);
  }
  SP_CUDA_CHECK_GOTO(cudaStreamSynchronize(g->stream), st, done);
  prof_done(&prof, sizeof(F) == sizeof(spc_fp) ? "msm_g1" : "msm_g2", n, c, wb);
  horner<H>(&total, wsum, nwin, c);
  H::to_jac(out, &total);
done:
  msm_scratch_free(g, &s);
  sp_gpu_free(g, buckets, (size_t)wb * nb * sizeof(X));
  free(wsum);
  return st;
}

/* The fixed-base MSM: its tables, its plan and msm_tab. */
#include "msm_table.cuh"

template <class H>
static int batch_add_dev(sp_gpu *g, typename H::jac *out, const void *d_points,
                         const uint64_t *d_bitmap, size_t n, char *err, size_t errlen) {
  typedef typename H::F F;
  typedef spc_xyzz<F> X;
  typename H::xyzz r;
  H::set_inf(&r);
  if (n == 0) {
    H::to_jac(out, &r);
    return SEALPROV_OK;
  }
  const unsigned K = 64; /* one bitmap word per thread (k_batch_add) */
  size_t nt = (n + K - 1) / K;
  unsigned S = pow2_floor(nt);
  if (S < nt) S *= 2;
  X *part = NULL;
  int st = SEALPROV_OK;
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&part, (size_t)S * sizeof(X), err, errlen), st, done);
  SP_CUDA_CHECK_GOTO(cudaMemsetAsync(part, 0, (size_t)S * sizeof(X), g->stream), st, done);
  k_batch_add<F>
      <<<sp_blocks(nt, 64), 64, 0, g->stream>>>((const spc_affine<F> *)d_points, d_bitmap, n, part);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  SP_TRY_GOTO(reduce_windows<F>(g, part, 1, S, err, errlen), st, done);
  static_assert(sizeof(X) == sizeof(typename H::xyzz), "device and host XYZZ layouts differ");
  SP_TRY_GOTO(sp_gpu_download(g, &r, part, sizeof(X), err, errlen), st, done);
  H::to_jac(out, &r);
done:
  sp_gpu_free(g, part, (size_t)S * sizeof(X));
  return st;
}

extern "C" int sp_gpu_msm_g1_dev(sp_gpu *g, g1_jac_t *out, const sp_msm_args *a, char *err,
                                 size_t errlen) {
  return msm_dev<sp_host_g1>(g, out, a, err, errlen);
}
extern "C" int sp_gpu_msm_g2_dev(sp_gpu *g, g2_jac_t *out, const sp_msm_args *a, char *err,
                                 size_t errlen) {
  return msm_dev<sp_host_g2>(g, out, a, err, errlen);
}

extern "C" int sp_gpu_batch_add_g1_dev(sp_gpu *g, g1_jac_t *out, const void *d_points,
                                       const uint64_t *d_bitmap, size_t n, char *err,
                                       size_t errlen) {
  return batch_add_dev<sp_host_g1>(g, out, d_points, d_bitmap, n, err, errlen);
}
extern "C" int sp_gpu_batch_add_g2_dev(sp_gpu *g, g2_jac_t *out, const void *d_points,
                                       const uint64_t *d_bitmap, size_t n, char *err,
                                       size_t errlen) {
  return batch_add_dev<sp_host_g2>(g, out, d_points, d_bitmap, n, err, errlen);
}
