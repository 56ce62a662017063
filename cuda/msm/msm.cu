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
 */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "gpu_internal.cuh"

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
 * G1 inlines the mixed addition (variant 4 of cuda/NOTES.md v2, v3 and v5, measured
 * fastest against the other caps and forms; the losers went in v13, their figures stay
 * in the notes). G2 calls it (an inlined one was slower: cuda/NOTES.md v6, v14); its
 * cap gives 168 registers and ~240 bytes of spills in the addition instead of 208
 * registers and 2 blocks: the multiplier pipe 79 -> 84 % busy, G2 MSM 2^24 -5 %
 * (cuda/NOTES.md v16). */
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
 * lg - 3 up to a cap, and from 2^big_lg points a larger window that saves a window.
 * Measured on the H200 (cuda/NOTES.md, v3), G1 c = 20 / 21 / 22: 2^24 118 / 125 /
 * 135 ms, 2^25 229 / 233 / 238, 2^26 455 / 454 / 433, 2^27 892 / 901 / 844; G2 2^22
 * c = 17 / 18: 175 / 182 ms. */
static unsigned choose_window(size_t n, unsigned max_window, unsigned big_lg, unsigned big_window) {
  unsigned lg = ilog2_floor(n ? n : 1);
  if (lg >= big_lg) return big_window;
  unsigned c = lg > 3 ? lg - 3 : 2;
  if (c < 2) c = 2;
  if (c > max_window) c = max_window;
  return c;
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
  if (a->n > 0x7fffffffu) {
    snprintf(err, errlen, "MSM of %zu points: more than 2^31 - 1", a->n);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const size_t n = a->n;
  const unsigned c =
      a->window_bits ? a->window_bits : choose_window(n, H::max_window, H::big_lg, H::big_window);
  if (c < 2 || c > 24) {
    snprintf(err, errlen, "MSM window of %u bits outside 2..24", c);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const unsigned nwin = (256 + c - 1) / c, nb = 1u << (c - 1);
  /* Windows per batch: keep the sort buffers (16 bytes per pair) near 4 GiB. */
  size_t per_win = 16 * n;
  unsigned wb = (unsigned)((4ull << 30) / per_win);
  if (wb < 1) wb = 1;
  if (wb > nwin) wb = nwin;
  const size_t T = (size_t)wb * n;
  /* Chunk length: enough threads to fill the card, not more records than needed. */
  size_t target = (size_t)g->sm_count * 1024;
  unsigned L = (unsigned)pow2_floor(T / (target ? target : 1));
  if (L < 8) L = 8;
  if (L > 256) L = 256;
  const unsigned L1 = 16;
  const size_t nch0 = (T + L - 1) / L;
  const size_t recA = 2 * nch0, recB = 2 * ((recA + L1 - 1) / L1);
  unsigned S = pow2_floor(65536 / wb);
  if (S > nb) S = nb;

  uint32_t *keys = NULL, *vals = NULL, *keys2 = NULL, *vals2 = NULL, *rkA = NULL, *rkB = NULL;
  X *buckets = NULL, *rpA = NULL, *rpB = NULL, *part = NULL;
  void *temp = NULL;
  size_t temp_bytes = 0;
  typename H::xyzz *wsum = NULL;
  int st = SEALPROV_OK;
  sp_prof prof;
  memset(&prof, 0, sizeof prof);
  SP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, keys, keys2, vals, vals2, (int)n,
                                                0, (int)c, g->stream));
  wsum = (typename H::xyzz *)malloc(nwin * sizeof *wsum);
  if (!wsum) {
    snprintf(err, errlen, "MSM: out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&keys, T * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&vals, T * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&keys2, T * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&vals2, T * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, &temp, temp_bytes, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&buckets, (size_t)wb * nb * sizeof(X), err, errlen), st,
              done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&rkA, recA * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&rpA, recA * sizeof(X), err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&rkB, recB * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&rpB, recB * sizeof(X), err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&part, (size_t)wb * S * sizeof(X), err, errlen), st, done);

  prof_init(&prof, g);
  for (unsigned w0 = 0; w0 < nwin; w0 += wb) {
    unsigned w1 = w0 + wb < nwin ? w0 + wb : nwin, nw = w1 - w0;
    size_t Tb = (size_t)nw * n;
    prof_mark(&prof, 0);
    k_msm_digits<false><<<sp_blocks(n, 256), 256, 0, g->stream>>>(
        (const spc_fr *)a->d_scalars, n, c, w0, w1, keys, vals, a->d_index, a->index_base,
        a->log_bitrev, a->flags);
    SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
    prof_mark(&prof, 1);
    for (unsigned w = 0; w < nw; w++) {
      size_t off = (size_t)w * n;
      SP_CUDA_CHECK_GOTO(
          cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys + off, keys2 + off, vals + off,
                                          vals2 + off, (int)n, 0, (int)c, g->stream),
          st, done);
    }
    SP_CUDA_CHECK_GOTO(cudaMemsetAsync(buckets, 0, (size_t)nw * nb * sizeof(X), g->stream), st,
                       done);
    size_t nch = (Tb + L - 1) / L;
    prof_mark(&prof, 2);
    SP_CUDA_CHECK_GOTO(launch_accum0<F>(g, keys2, vals2, n, Tb, c,
                                        (const spc_affine<F> *)a->d_points, buckets, L, rkA, rpA),
                       st, done);
    prof_mark(&prof, 3);
    uint32_t *ik = rkA, *ok = rkB;
    X *ip = rpA, *op = rpB;
    while (nch > 1) {
      size_t Tr = 2 * nch;
      nch = (Tr + L1 - 1) / L1;
      k_msm_accumN<F><<<sp_blocks(nch, 128), 128, 0, g->stream>>>(ik, ip, Tr, buckets, L1, ok, op);
      SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
      uint32_t *tk = ik;
      ik = ok;
      ok = tk;
      X *tp = ip;
      ip = op;
      op = tp;
    }
    prof_mark(&prof, 4);
    k_msm_bucket_reduce<F>
        <<<sp_blocks((size_t)nw * S, 64), 64, 0, g->stream>>>(buckets, nw, nb, S, part);
    SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
    SP_TRY_GOTO(reduce_windows<F>(g, part, nw, S, err, errlen), st, done);
    prof_mark(&prof, 5);
    prof_batch_end(&prof);
    SP_CUDA_CHECK_GOTO(cudaMemcpy2DAsync(wsum + w0, sizeof(X), part, (size_t)S * sizeof(X),
                                         sizeof(X), nw, cudaMemcpyDeviceToHost, g->stream),
                       st, done);
  }
  SP_CUDA_CHECK_GOTO(cudaStreamSynchronize(g->stream), st, done);
  prof_done(&prof, sizeof(F) == sizeof(spc_fp) ? "msm_g1" : "msm_g2", n, c, wb);
  for (unsigned w = nwin; w-- > 0;) {
    for (unsigned k = 0; k < c; k++) H::dbl(&total, &total);
    H::add(&total, &total, &wsum[w]);
  }
  H::to_jac(out, &total);
done:
  sp_gpu_free(g, keys, T * 4);
  sp_gpu_free(g, vals, T * 4);
  sp_gpu_free(g, keys2, T * 4);
  sp_gpu_free(g, vals2, T * 4);
  sp_gpu_free(g, temp, temp_bytes);
  sp_gpu_free(g, buckets, (size_t)wb * nb * sizeof(X));
  sp_gpu_free(g, rkA, recA * 4);
  sp_gpu_free(g, rpA, recA * sizeof(X));
  sp_gpu_free(g, rkB, recB * 4);
  sp_gpu_free(g, rpB, recB * sizeof(X));
  sp_gpu_free(g, part, (size_t)wb * S * sizeof(X));
  free(wsum);
  return st;
}

/* ---- fixed-base MSM: precomputed copies of the points -------------------------------
 * A table of copies T_j = 2^(c j) P, j < k, for points that stay on the device lets one
 * bucket set take k windows: window w of a scalar adds its digit's multiple of
 * T_(w mod k) to bucket set w div k, since d 2^(c w) P = d 2^(c (w - j)) T_j. The MSM
 * then reduces ceil(W / k) bucket sets instead of W = ceil(256 / c), so a larger c
 * (fewer windows, fewer additions) pays; the group sums are combined by Horner with
 * c k doublings (tests/cuda/msm_table_model.py checks this arithmetic exactly;
 * cuda/NOTES.md v11 has the cost model below and its measurements). */

/* Copy j from copy j - 1: out[i] = 2^c in[i]. SP_TAB_CHUNK points per thread, c
 * doublings each (XYZZ), then one inversion per chunk (Montgomery's trick over ZZZ,
 * as k_gen_points). Infinity stays infinity; no other point doubles to it (odd
 * cofactors: no point of order 2 on either curve). */
#define SP_TAB_CHUNK 32
template <class F>
__global__ void k_msm_table_step(const spc_affine<F> *in, spc_affine<F> *out, size_t n,
                                 unsigned c) {
  typedef spc_xyzz<F> X;
  size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * SP_TAB_CHUNK;
  if (first >= n) return;
  unsigned cnt = n - first < SP_TAB_CHUNK ? (unsigned)(n - first) : SP_TAB_CHUNK;
  X pts[SP_TAB_CHUNK];
  F pref[SP_TAB_CHUNK];
  F run = F::one();
  for (unsigned i = 0; i < cnt; i++) {
    spc_affine<F> p = in[first + i];
    X a = p.is_inf() ? X::inf() : X::dbl_affine(p);
    for (unsigned b = 1; b < c; b++) a = X::dbl(a);
    pts[i] = a;
    if (!a.is_inf()) run = F::mul(run, a.zzz);
    pref[i] = run; /* product of the non-infinity ZZZ up to i */
  }
  F inv = sp_inv(run);
  for (unsigned i = cnt; i-- > 0;) {
    spc_affine<F> r;
    if (pts[i].is_inf()) {
      r.x = F::zero();
      r.y = F::zero();
    } else {
      F izzz = i ? F::mul(inv, pref[i - 1]) : inv;
      inv = F::mul(inv, pts[i].zzz);
      F iz = F::mul(pts[i].zz, izzz); /* ZZ/ZZZ = 1/z */
      F izz = F::sqr(iz);
      r.x = F::mul(pts[i].x, izz);
      r.y = F::mul(pts[i].y, izzz);
    }
    out[first + i] = r;
  }
}

static unsigned table_shift(size_t npoints) {
  unsigned sl = 0;
  while (sl < 63 && ((size_t)1 << sl) < npoints) sl++;
  return sl;
}

extern "C" uint64_t sp_gpu_msm_table_bytes(bool g2, size_t npoints, unsigned copies) {
  size_t psz = g2 ? sizeof(spc_g2_affine) : sizeof(spc_g1_affine);
  return copies > 1 ? (uint64_t)(copies - 1) * npoints * psz : 0;
}

extern "C" int sp_gpu_msm_table_make(sp_gpu *g, bool g2, const void *d_points, size_t npoints,
                                     unsigned window, unsigned copies, sp_msm_table *out, char *err,
                                     size_t errlen) {
  memset(out, 0, sizeof *out);
  const unsigned c = window;
  if (c < 2 || c > 24 || copies < 2 || copies > (256 + c - 1) / c) {
    snprintf(err, errlen, "MSM table: window %u and %u copies (want 2..24 and 2..%u)", c, copies,
             c >= 2 ? (256 + c - 1) / c : 0);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const unsigned shift = table_shift(npoints);
  if (npoints == 0 || npoints > 0x7fffffffu || ((uint64_t)copies << shift) > (1ull << 31)) {
    snprintf(err, errlen, "MSM table: %zu points in %u copies do not fit the 31-bit point index",
             npoints, copies);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const size_t psz = g2 ? sizeof(spc_g2_affine) : sizeof(spc_g1_affine);
  const size_t bytes = (size_t)sp_gpu_msm_table_bytes(g2, npoints, copies);
  void *ext = NULL;
  /* long-lived, beside the parameter points: cudaMalloc outside the pool (the engine
   * counts it), as sp_gpu_alloc_upload_persistent */
  SP_CUDA_CHECK(cudaMalloc(&ext, bytes));
  int st = SEALPROV_OK;
  size_t threads = (npoints + SP_TAB_CHUNK - 1) / SP_TAB_CHUNK;
  for (unsigned j = 1; j < copies; j++) {
    const uint8_t *in =
        j == 1 ? (const uint8_t *)d_points : (uint8_t *)ext + (j - 2) * npoints * psz;
    uint8_t *o = (uint8_t *)ext + (j - 1) * npoints * psz;
    if (g2)
      k_msm_table_step<spc_fp2><<<sp_blocks(threads, 64), 64, 0, g->stream>>>(
          (const spc_g2_affine *)in, (spc_g2_affine *)o, npoints, c);
    else
      k_msm_table_step<spc_fp><<<sp_blocks(threads, 128), 128, 0, g->stream>>>(
          (const spc_g1_affine *)in, (spc_g1_affine *)o, npoints, c);
    SP_CUDA_LAUNCH_CHECK_GOTO(st, fail);
  }
  SP_CUDA_CHECK_GOTO(cudaStreamSynchronize(g->stream), st, fail);
  out->d_points = d_points;
  out->d_ext = ext;
  out->npoints = npoints;
  out->ext_bytes = bytes;
  out->window = c;
  out->copies = copies;
  out->shift = shift;
  out->g2 = g2;
  return SEALPROV_OK;
fail:
  cudaStreamSynchronize(g->stream);
  cudaFree(ext);
  (void)cudaGetLastError();
  return st;
}

extern "C" void sp_gpu_msm_table_free(int ordinal, sp_msm_table *t) {
  if (!t) return;
  if (t->d_ext) sp_gpu_free_persistent(ordinal, t->d_ext);
  memset(t, 0, sizeof *t);
}

/* Cost model of one MSM of n points (seconds on the H200 of cuda/NOTES.md v11): W
 * windows of c bits, k copies (1: today's path, W bucket sets), wb windows per sort
 * batch. Per pair (point x window): the bucket accumulation's mixed addition, plus
 * digits, sort and record levels; per bucket of every set: the reduction (two full
 * additions); per batch after the first of a table's bucket set: one full addition per
 * bucket (the runs added into the set). Fitted to the phase times of v6 (2^27 H MSM)
 * and the G1 2^24 / 2^26 and G2 2^24 medians of v6. */
static double msm_model(bool g2, size_t n, unsigned c, unsigned k, unsigned wb) {
  const double t_add = g2 ? 1.30e-9 : 0.382e-9, t_pair = 0.0346e-9;
  const double t_bucket = g2 ? 4.0e-9 : 1.3e-9, t_merge = t_bucket / 2;
  const unsigned W = (256 + c - 1) / c;
  if (k > W) k = W;
  const double nb = (double)(1u << (c - 1));
  double t = (double)W * n * (t_add + t_pair * (c > 24 ? 4.0 / 3 : 1.0));
  if (k <= 1) return t + W * nb * t_bucket;
  unsigned G = (W + k - 1) / k;
  t += G * nb * t_bucket;
  for (unsigned gi = 0; gi < G; gi++) {
    unsigned nw = W - gi * k < k ? W - gi * k : k;
    t += (double)((nw + wb - 1) / wb - 1) * nb * t_merge;
  }
  return t;
}

/* Windows per sort batch: the sort buffers (16 bytes per pair) near 4 GiB. */
static unsigned batch_windows(size_t n) {
  size_t wb = ((size_t)4 << 30) / (16 * (n ? n : 1));
  return wb < 1 ? 1 : wb > 128 ? 128 : (unsigned)wb;
}

extern "C" void sp_gpu_msm_plan(bool g2, size_t npoints, uint64_t budget, bool force,
                                unsigned *window, unsigned *copies, double *gain) {
  const unsigned max_window = g2 ? sp_host_g2::max_window : sp_host_g1::max_window;
  const unsigned big_lg = g2 ? sp_host_g2::big_lg : sp_host_g1::big_lg;
  const unsigned big_window = g2 ? sp_host_g2::big_window : sp_host_g1::big_window;
  const size_t n = npoints ? npoints : 1;
  const unsigned c0 = choose_window(n, max_window, big_lg, big_window);
  const unsigned wb = batch_windows(n);
  const double today = msm_model(g2, n, c0, 1, wb);
  double best = 0;
  unsigned bc = 0, bk = 0;
  const unsigned shift = table_shift(n);
  for (unsigned c = 8; c <= 24; c++) {
    const unsigned W = (256 + c - 1) / c;
    for (unsigned k = 2; k <= W; k++) {
      if (sp_gpu_msm_table_bytes(g2, n, k) > budget || ((uint64_t)k << shift) > (1ull << 31)) break;
      double t = msm_model(g2, n, c, k, wb);
      if (!bk || t < best) best = t, bc = c, bk = k;
    }
  }
  double g = bk ? 1.0 - best / today : 0;
  /* a table must be predicted 3 % faster (the model's constants are one GPU's), and the
   * MSM large enough that kernel launches, which the model leaves out, do not rule */
  if (!bk || (!force && (g < 0.03 || n < ((size_t)1 << 16)))) bc = bk = 0;
  *window = bc;
  *copies = bk;
  if (gain) *gain = bk ? g : 0;
}

/* The MSM over a fixed-base table (a->table; a->d_points is not read). Bucket set by
 * bucket set (group of `copies` windows): the windows' digits are sorted together in
 * batches of at most wb windows (the sort buffers' bound of today's path) and
 * accumulated, the first batch into the set, later ones into a second array that is
 * then added into it (k_bucket_merge); the set is reduced on the GPU, and the host
 * combines the group sums by Horner. */
template <class H>
static int msm_tab(sp_gpu *g, typename H::jac *out, const sp_msm_args *a, char *err,
                   size_t errlen) {
  typedef typename H::F F;
  typedef spc_xyzz<F> X;
  const sp_msm_table *tb = a->table;
  const bool g2 = sizeof(F) != sizeof(spc_fp);
  typename H::xyzz total;
  H::set_inf(&total);
  if (tb->g2 != g2 || tb->copies < 2 || tb->window < 2 || tb->window > 24 || !tb->d_points ||
      !tb->d_ext || (a->window_bits && a->window_bits != tb->window)) {
    snprintf(err, errlen, "MSM: the table (%s, window %u, %u copies) does not fit this %s MSM%s",
             tb->g2 ? "G2" : "G1", tb->window, tb->copies, g2 ? "G2" : "G1",
             a->window_bits && a->window_bits != tb->window ? " (another window asked)" : "");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (a->n == 0) {
    H::to_jac(out, &total);
    return SEALPROV_OK;
  }
  if (a->n > 0x7fffffffu) {
    snprintf(err, errlen, "MSM of %zu points: more than 2^31 - 1", a->n);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const size_t n = a->n;
  const unsigned c = tb->window, W = (256 + c - 1) / c;
  const unsigned k = tb->copies < W ? tb->copies : W, G = (W + k - 1) / k, nb = 1u << (c - 1);
  unsigned wb = a->table_batch ? a->table_batch : batch_windows(n);
  if (wb > k) wb = k;
  while ((size_t)wb * n > 0x7fffffffu && wb > 1) wb--; /* one sort: int items */
  const size_t T = (size_t)wb * n;
  size_t target = (size_t)g->sm_count * 1024;
  unsigned L = (unsigned)pow2_floor(T / (target ? target : 1));
  if (L < 8) L = 8;
  if (L > 256) L = 256;
  const unsigned L1 = 16;
  const size_t nch0 = (T + L - 1) / L;
  const size_t recA = 2 * nch0, recB = 2 * ((recA + L1 - 1) / L1);
  unsigned S = 65536;
  if (S > nb) S = nb;

  uint32_t *keys = NULL, *vals = NULL, *keys2 = NULL, *vals2 = NULL, *rkA = NULL, *rkB = NULL;
  X *buckets = NULL, *bk2 = NULL, *rpA = NULL, *rpB = NULL, *part = NULL;
  const size_t bk2_n = k > wb ? nb : 0; /* a set of more than one batch */
  void *temp = NULL;
  size_t temp_bytes = 0;
  typename H::xyzz *gsum = NULL;
  int st = SEALPROV_OK;
  sp_prof prof;
  memset(&prof, 0, sizeof prof);
  {
    cub::DoubleBuffer<uint32_t> dk(keys, keys2), dv(vals, vals2);
    SP_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, dk, dv, (int)T, 0, (int)c, g->stream));
  }
  gsum = (typename H::xyzz *)malloc(G * sizeof *gsum);
  if (!gsum) {
    snprintf(err, errlen, "MSM: out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&keys, T * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&vals, T * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&keys2, T * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&vals2, T * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, &temp, temp_bytes, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&buckets, (size_t)nb * sizeof(X), err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&bk2, bk2_n * sizeof(X), err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&rkA, recA * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&rpA, recA * sizeof(X), err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&rkB, recB * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&rpB, recB * sizeof(X), err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&part, (size_t)S * sizeof(X), err, errlen), st, done);

  prof_init(&prof, g);
  for (unsigned gi = 0; gi < G; gi++) {
    const unsigned wg0 = gi * k, wg1 = wg0 + k < W ? wg0 + k : W;
    SP_CUDA_CHECK_GOTO(cudaMemsetAsync(buckets, 0, (size_t)nb * sizeof(X), g->stream), st, done);
    for (unsigned w0 = wg0; w0 < wg1; w0 += wb) {
      const unsigned w1 = w0 + wb < wg1 ? w0 + wb : wg1;
      const size_t Tb = (size_t)(w1 - w0) * n;
      X *dst = w0 > wg0 ? bk2 : buckets; /* bk2 is added into the set below */
      if (dst == bk2)
        SP_CUDA_CHECK_GOTO(cudaMemsetAsync(bk2, 0, (size_t)nb * sizeof(X), g->stream), st, done);
      prof_mark(&prof, 0);
      k_msm_digits<true><<<sp_blocks(n, 256), 256, 0, g->stream>>>(
          (const spc_fr *)a->d_scalars, n, c, w0, w1, keys, vals, a->d_index, a->index_base,
          a->log_bitrev, a->flags, wg0, tb->shift);
      SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
      prof_mark(&prof, 1);
      cub::DoubleBuffer<uint32_t> dk(keys, keys2), dv(vals, vals2);
      SP_CUDA_CHECK_GOTO(
          cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk, dv, (int)Tb, 0, (int)c, g->stream),
          st, done);
      size_t nch = (Tb + L - 1) / L;
      prof_mark(&prof, 2);
      SP_CUDA_CHECK_GOTO(
          launch_accum_tab<F>(g, dk.Current(), dv.Current(), Tb, c, tb, dst, L, rkA, rpA), st,
          done);
      prof_mark(&prof, 3);
      uint32_t *ik = rkA, *ok = rkB;
      X *ip = rpA, *op = rpB;
      while (nch > 1) {
        size_t Tr = 2 * nch;
        nch = (Tr + L1 - 1) / L1;
        k_msm_accumN<F><<<sp_blocks(nch, 128), 128, 0, g->stream>>>(ik, ip, Tr, dst, L1, ok, op);
        SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
        uint32_t *tk = ik;
        ik = ok;
        ok = tk;
        X *tp = ip;
        ip = op;
        op = tp;
      }
      if (dst == bk2) {
        k_bucket_merge<F><<<sp_blocks(nb, 64), 64, 0, g->stream>>>(buckets, bk2, nb);
        SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
      }
      prof_mark(&prof, 4);
      if (w1 == wg1) {
        /* the set is complete: its sum of (b + 1) B_b, as one window of today's path */
        k_msm_bucket_reduce<F><<<sp_blocks(S, 64), 64, 0, g->stream>>>(buckets, 1, nb, S, part);
        SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
        SP_TRY_GOTO(reduce_windows<F>(g, part, 1, S, err, errlen), st, done);
      }
      prof_mark(&prof, 5);
      prof_batch_end(&prof);
    }
    static_assert(sizeof(X) == sizeof(typename H::xyzz), "device and host XYZZ layouts differ");
    SP_CUDA_CHECK_GOTO(
        cudaMemcpyAsync(gsum + gi, part, sizeof(X), cudaMemcpyDeviceToHost, g->stream), st, done);
  }
  SP_CUDA_CHECK_GOTO(cudaStreamSynchronize(g->stream), st, done);
  prof_done(&prof, g2 ? "msm_g2_table" : "msm_g1_table", n, c, wb);
  for (unsigned gi = G; gi-- > 0;) {
    for (unsigned d = 0; d < c * k; d++) H::dbl(&total, &total);
    H::add(&total, &total, &gsum[gi]);
  }
  H::to_jac(out, &total);
done:
  sp_gpu_free(g, keys, T * 4);
  sp_gpu_free(g, vals, T * 4);
  sp_gpu_free(g, keys2, T * 4);
  sp_gpu_free(g, vals2, T * 4);
  sp_gpu_free(g, temp, temp_bytes);
  sp_gpu_free(g, buckets, (size_t)nb * sizeof(X));
  sp_gpu_free(g, bk2, bk2_n * sizeof(X));
  sp_gpu_free(g, rkA, recA * 4);
  sp_gpu_free(g, rpA, recA * sizeof(X));
  sp_gpu_free(g, rkB, recB * 4);
  sp_gpu_free(g, rpB, recB * sizeof(X));
  sp_gpu_free(g, part, (size_t)S * sizeof(X));
  free(gsum);
  return st;
}

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
