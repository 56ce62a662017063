/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* gpu_internal.cuh -- what the .cu files of cuda/ share: the context struct, the two
 * CUDA check macros, launch helpers. Not part of any C interface. */
#ifndef SEALPROV_CUDA_GPU_INTERNAL_CUH
#define SEALPROV_CUDA_GPU_INTERNAL_CUH

/* configure's: SP_FAULT_INJECTION decides the context's layout, so every .cu file
 * sees it */
#include <config.h>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdint.h>

#include "sp_gpu.h"
#include "util.h" /* SP_TRY_GOTO */
#include "ff.cuh"
#include "ec.cuh"

/* Status for a CUDA error: allocation failures are the scheduler's "out of memory"
 * (it retries smaller or elsewhere), everything else a device failure. */
static inline int sp_cuda_status(cudaError_t e) {
  return e == cudaErrorMemoryAllocation ? SEALPROV_ERR_DEVICE_MEMORY : SEALPROV_ERR_DEVICE;
}

/* Both macros write "file:line: call: error string" into err/errlen (which must be in
 * scope) and read cudaGetLastError() to clear a non-sticky error, so the next call on
 * this thread does not see a stale one. A sticky error (illegal address, ...) cannot
 * be cleared: the context is lost and the scheduler quarantines the device. */
static inline int sp_cuda_failed(cudaError_t e, const char *file, int line, const char *call,
                                 char *err, size_t errlen) {
  (void)cudaGetLastError();
  snprintf(err, errlen, "%s:%d: %s: %s", file, line, call, cudaGetErrorString(e));
  return sp_cuda_status(e);
}
#define SP_CUDA_CHECK(call)                                                 \
  do {                                                                      \
    cudaError_t sp_e_ = (call);                                             \
    if (sp_e_ != cudaSuccess)                                               \
      return sp_cuda_failed(sp_e_, __FILE__, __LINE__, #call, err, errlen); \
  } while (0)

/* Goto form: sets `status` (an int in scope) and jumps to label. */
#define SP_CUDA_CHECK_GOTO(call, status, label)                                 \
  do {                                                                          \
    cudaError_t sp_e_ = (call);                                                 \
    if (sp_e_ != cudaSuccess) {                                                 \
      (status) = sp_cuda_failed(sp_e_, __FILE__, __LINE__, #call, err, errlen); \
      goto label;                                                               \
    }                                                                           \
  } while (0)

/* After a kernel launch: launch configuration errors show up here. */
#define SP_CUDA_LAUNCH_CHECK() SP_CUDA_CHECK(cudaGetLastError())
#define SP_CUDA_LAUNCH_CHECK_GOTO(status, label) \
  SP_CUDA_CHECK_GOTO(cudaGetLastError(), status, label)

/* NTT tables for one size 2^log_n (forward and inverse roots). omega^e for e < 2^log_n
 * is hi[e >> split] * lo[e & (2^split - 1)]; small[x] = omega_{2^slog}^x, x < 2^(slog-1)
 * with omega_{2^slog} = omega^(2^(log_n - slog)). */
struct sp_ntt_tab {
  spc_fr *hi, *lo, *small;
  unsigned split, slog;
  size_t nhi, nlo, nsmall;
  /* Direct twiddles for the middle pass of a three-pass transform: mid[x] =
   * omega^(x << mid_t0), x < nmid (2^18 entries, 8 MiB, at 2^27); NULL otherwise. */
  spc_fr *mid;
  unsigned mid_t0;
  size_t nmid;
  /* The coset scales of the inverse transforms with their constant folded in (in the
   * inverse table only): c g^e = coset_hi[k][e >> SP_COSET_SPLIT] * glo[e & mask], so
   * a scale costs one product to form and one to apply instead of three;
   * coset_hi[k][i] = c_k (b_k^(2^SP_COSET_SPLIT))^i, i < ncoset. k = SP_COSET_G_N: c =
   * 1/n, b = g; SP_COSET_GINV_N: 1/n, g^-1; SP_COSET_GINV_NZ: 1/(n Z(g)), g^-1. */
  spc_fr *coset_hi[3];
  size_t ncoset;
};
enum { SP_COSET_G_N = 0, SP_COSET_GINV_N = 1, SP_COSET_GINV_NZ = 2 };

#define SP_COSET_SPLIT 14u /* g^e = ghi[e >> 14] * glo[e & 16383], e < 2^28 */

/* Phase profiles (msm.cu: each MSM's phases; ntt.cu: the bit reversal; subgroup.cu: each
 * check) exist only in measuring builds, configured with NVCCFLAGS=-DSP_GPU_PROFILE
 * (dev/device-build.sh PROFILE=1), where SP_GPU_PROFILE=1 in the environment turns them
 * on, a line each on stderr. A product's sealprov.so never has them: the module writes
 * nothing to stderr and logs only through the host's callback (docs/design.md rule 12;
 * tests/tree/no_tuning_env.sh checks the library). */
#ifdef SP_GPU_PROFILE
#include <stdlib.h>
static inline bool sp_gpu_profile_env(void) {
  const char *p = getenv("SP_GPU_PROFILE");
  return p && p[0] == '1' && !p[1];
}
#endif

struct sp_gpu {
  int ordinal;
  cudaStream_t stream;
  cudaMemPool_t pool;
  uint64_t memory_limit;
  uint64_t in_use;
  uint64_t held; /* the engine's device memory outside the pool (sp_gpu_set_held) */
  uint64_t peak; /* highest in_use since sp_gpu_reset_peak */
  int sm_count;
  /* Phase timings on stderr (SP_GPU_PROFILE above): set at creation in a profile build
   * only; always false in sealprov.so. */
  bool profile;
  /* NTT tables by log_n, [0] forward, [1] inverse; built on first use */
  sp_ntt_tab ntt[29][2];
  /* coset powers g^e, e < 2^28, and the low half of g^-e (its high halves are per size,
   * with constants folded in: sp_ntt_tab.coset_hi) */
  spc_fr *g_hi, *g_lo, *ginv_lo;
  /* Host -> device transfers that overlap with compute (sp_gpu_upload_async), and the
   * event sp_gpu_join_copy records on it. */
  cudaStream_t copy_stream;
  cudaEvent_t join_ev;
#ifdef SP_FAULT_INJECTION
  /* A test build's fault engine: this many more sp_gpu_alloc calls fail as out of
   * memory (sp_gpu_inject_oom). */
  unsigned inject_oom;
#endif
  unsigned alloc_retries; /* allocations that succeeded only after a trim */
};

/* Tables for a size (built on first use). */
int sp_gpu_ntt_tables(sp_gpu *g, unsigned log_n, const sp_ntt_tab **fwd, const sp_ntt_tab **inv,
                      char *err, size_t errlen);
void sp_gpu_ntt_tables_free(sp_gpu *g);

static inline unsigned sp_blocks(size_t n, unsigned threads) {
  return (unsigned)((n + threads - 1) / threads);
}

/* Field inversions shared by the kernels of gpu.cu and setup.cu. */
/* a^(p-2): Fermat inversion (a != 0). p - 2 as 32-bit words. */
__device__ __forceinline__ spc_fp sp_fp_inv(const spc_fp &a) {
  spc_fp r = spc_fp::one();
  for (int w = 11; w >= 0; w--) {
    uint32_t e = SPC_FP_P[w] - (w == 0 ? 2u : 0u);
    for (int bit = 31; bit >= 0; bit--) {
      r = spc_fp::sqr(r);
      if ((e >> bit) & 1u) r = spc_fp::mul(r, a);
    }
  }
  return r;
}
__device__ __forceinline__ spc_fp sp_inv(const spc_fp &a) { return sp_fp_inv(a); }
__device__ __forceinline__ spc_fp2 sp_inv(const spc_fp2 &a) {
  /* 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2) */
  spc_fp t = sp_fp_inv(spc_fp::add(spc_fp::sqr(a.c0), spc_fp::sqr(a.c1)));
  spc_fp2 r;
  r.c0 = spc_fp::mul(a.c0, t);
  r.c1 = spc_fp::neg(spc_fp::mul(a.c1, t));
  return r;
}

/* A chunk of cnt <= CH points that a thread makes one by one (make(i), XYZZ), brought to
 * affine with one inversion: Montgomery's trick over the ZZZ coordinates of the points
 * that are not infinity (1/z = ZZ/ZZZ). put(i, inf, x, y) gets point i, from the last to
 * the first; x = y = 0 for infinity. The MSM's tables (msm_table.cuh) and the kit's
 * setup and test points (kit/gpu/) make their points this way. */
template <class F, unsigned CH, class Make, class Put>
__device__ __forceinline__ void sp_chunk_to_affine(unsigned cnt, Make make, Put put) {
  spc_xyzz<F> pts[CH];
  F pref[CH];
  F run = F::one();
  for (unsigned i = 0; i < cnt; i++) {
    pts[i] = make(i);
    if (!pts[i].is_inf()) run = F::mul(run, pts[i].zzz);
    pref[i] = run; /* product of the non-infinity ZZZ up to i */
  }
  F inv = sp_inv(run);
  for (unsigned i = cnt; i-- > 0;) {
    bool inf = pts[i].is_inf();
    F x = F::zero(), y = F::zero();
    if (!inf) {
      F izzz = i ? F::mul(inv, pref[i - 1]) : inv;
      inv = F::mul(inv, pts[i].zzz);
      F iz = F::mul(pts[i].zz, izzz); /* ZZ/ZZZ = 1/z */
      F izz = F::sqr(iz);
      x = F::mul(pts[i].x, izz);
      y = F::mul(pts[i].y, izzz);
    }
    put(i, inf, x, y);
  }
}

/* sp_chunk_to_affine with point i stored at out[i] (infinity as (0, 0)). */
template <class F, unsigned CH, class Make>
__device__ __forceinline__ void sp_chunk_to_affine_at(unsigned cnt, Make make, spc_affine<F> *out) {
  sp_chunk_to_affine<F, CH>(cnt, make, [&](unsigned i, bool, const F &x, const F &y) {
    spc_affine<F> r;
    r.x = x;
    r.y = y;
    out[i] = r;
  });
}

#endif
