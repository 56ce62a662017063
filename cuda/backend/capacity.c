/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* capacity.c -- the CUDA engine's model of the device memory one partition needs
 * (engine.h: sp_capacity), in one function, cuda_capacity_model, that follows the
 * engine's working-memory plan as it stands; when the plan changes, this file changes
 * with it. Pure arithmetic: no device call, nothing of a device's state but what the
 * caller passes (engine_cuda.c fills `available` from memory_limit and the GPU's size).
 *
 * What the plan is today (pipeline.c, residency.c, msm.cu):
 *  - resident: residency.c keeps a set on the device only with room for its points,
 *    three domain-sized vectors and SP_SCRATCH_RESERVE (10 GiB) next to them;
 *  - tables (msm_precompute = auto): a fixed-base table of h is made only within what
 *    memory_limit leaves after the points, each worker's partition buffer of chunked
 *    staging (four vectors), an execute's working memory with an early upload (five
 *    vectors and the reserve) and a margin of 1 GiB; the smallest table is one more copy
 *    of h, and msm.cu's cost model must predict a gain for it;
 *  - streamed: the points come in chunks; the out-of-memory retries go down to 2^20
 *    points a chunk, so the least a partition proves in is its peak at that rung: the
 *    largest of (1) a, b and c with the inputs, aux and density bitmaps on the device,
 *    (2) the H MSM: a's buffer, inputs and aux, two chunks of h and the MSM's sort
 *    buffers and buckets, (3) the L/A/B preparation: inputs and aux, the A and B
 *    scalars and the three 0/1 splits (ones bitmap, scalars, indexes), (4) an L/A/B MSM:
 *    the splits, two chunks of its points and the MSM's own memory. The optional
 *    buffers (the a*b = c check's product, the early upload, chunked staging's device
 *    buffer) are taken only with room, so they are left out.
 * Measured against it on the H200 (a 2^24 sealing-shaped job, 17.6 M aux): proved
 * streamed with memory_limit = 3GiB and failed every attempt at 2GiB (the first
 * allocations, step 1, pass 2 GiB); the model asks about 2.8 GiB. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "backend/engine_internal.h" /* first: sp_gpu.h before <math.h> */

/* The smallest chunk of the retry ladder (engine_cuda.c's oom_ladder). */
#define CAP_STREAM_CHUNK ((uint64_t)1 << 20)
/* Pool allocations outside the partition's own: NTT twiddle tables, CUB's temporaries,
 * the pool's rounding. */
#define CAP_CONTEXT ((uint64_t)256 << 20)
/* residency.c's SP_TABLE_MARGIN and staging.c's rounding of a worker's buffer */
#define CAP_TABLE_MARGIN ((uint64_t)1 << 30)
#define CAP_LAND_ROUND ((uint64_t)64 << 20)

static uint64_t pow2_floor(uint64_t n) { return n ? UINT64_C(1) << (63 - __builtin_clzll(n)) : 1; }

/* Device memory msm.cu's bucket MSM (msm_dev) allocates for n points: sort keys and
 * values twice for a batch of windows (near 4 GiB at most), CUB's temporaries, the
 * batch's buckets, the run records and partial sums. Its window choice and sizes. */
static uint64_t msm_bytes(uint64_t n, bool g2, unsigned sm_count) {
  if (n == 0) return 0;
  const unsigned max_window = g2 ? 17 : 20, big_lg = g2 ? 64 : 26, big_window = g2 ? 17 : 22;
  const unsigned lg = 63 - (unsigned)__builtin_clzll(n);
  unsigned c = lg >= big_lg ? big_window : lg > 3 ? lg - 3 : 2;
  if (c < 2) c = 2;
  if (lg < big_lg && c > max_window) c = max_window;
  const uint64_t nwin = (256 + c - 1) / c, nb = UINT64_C(1) << (c - 1);
  uint64_t wb = (UINT64_C(4) << 30) / (16 * n);
  if (wb < 1) wb = 1;
  if (wb > nwin) wb = nwin;
  const uint64_t T = wb * n, X = g2 ? 4 * 96 : 4 * 48; /* an XYZZ point */
  uint64_t L = pow2_floor(T / ((uint64_t)(sm_count ? sm_count : 132) * 1024));
  if (L < 8) L = 8;
  if (L > 256) L = 256;
  const uint64_t recA = 2 * ((T + L - 1) / L), recB = 2 * ((recA + 15) / 16);
  uint64_t S = pow2_floor(65536 / wb);
  if (S > nb) S = nb;
  return 16 * T + 8 * n + (1 << 20) + wb * nb * X + (recA + recB) * (4 + X) + wb * S * X;
}

static uint64_t max2(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* A partition's peak of pool memory with its points in chunks of `chunk` (streamed), or
 * resident (chunk 0: each MSM over all of its points, no chunk buffers): steps (1) to
 * (4) above. */
static uint64_t peak_bytes(const sp_partition_shape *sh, uint64_t chunk, unsigned sm_count) {
  const uint64_t v = UINT64_C(32) << sh->log_domain;
  const uint64_t g1 = sizeof(g1_affine_t), g2 = sizeof(g2_affine_t);
  const uint64_t bm = ((sh->aux_size + 63) / 64 * 8) * 2 + (sh->inp_size + 63) / 64 * 8;
  const uint64_t rest = 32 * (sh->inp_size + sh->aux_size) + bm; /* inputs, aux, bitmaps */
  const uint64_t nl = sh->aux_size, na = sh->a_len, nb = sh->b_g1_len;
  const uint64_t splits =
      (nl + 63) / 64 * 8 + 36 * nl + (na + 63) / 64 * 8 + 36 * na + (nb + 63) / 64 * 8 + 36 * nb;
  const uint64_t lens[5] = {sh->h_len, nl, na, nb, sh->b_g2_len};
  uint64_t need = 3 * v + rest;                      /* (1) */
  need = max2(need, rest + 32 * (na + nb) + splits); /* (3) */
  for (int i = 0; i < 5; i++) {                      /* (2) and (4) */
    const bool is_g2 = i == 4;
    const uint64_t n = chunk && lens[i] > chunk ? chunk : lens[i];
    const uint64_t bufs = chunk ? 2 * n * (is_g2 ? g2 : g1) : 0;
    const uint64_t held = i == 0 ? v + rest : splits;
    need = max2(need, held + bufs + msm_bytes(n, is_g2, sm_count));
  }
  return need + CAP_CONTEXT;
}

void cuda_capacity_model(const sp_partition_shape *sh, unsigned workers, unsigned sm_count,
                         uint64_t precompute_cfg, sp_capacity *out) {
  const uint64_t v = UINT64_C(32) << sh->log_domain; /* one domain-sized vector */
  const uint64_t points = (sh->h_len + sh->l_len + sh->a_len + sh->b_g1_len) * sizeof(g1_affine_t) +
                          sh->b_g2_len * sizeof(g2_affine_t);
  /* residency's rule, or the partition's own peak where that is more */
  out->resident = points + max2(3 * v + SP_SCRATCH_RESERVE, peak_bytes(sh, 0, sm_count));
  /* the points streamed at the last rung of the retry ladder */
  out->streamed = peak_bytes(sh, CAP_STREAM_CHUNK, sm_count);
  /* the smallest table the cost model gains with, within the budget residency.c gives */
  out->tables = 0;
  if (precompute_cfg == SP_MSM_PRECOMPUTE_OFF || sh->h_len == 0) return;
  const uint64_t smallest = sp_gpu_msm_table_bytes(false, (size_t)sh->h_len, 2);
  unsigned c = 0, k = 0;
  sp_gpu_msm_plan(false, (size_t)sh->h_len, precompute_cfg ? precompute_cfg : smallest, false, &c,
                  &k, NULL);
  if (k < 2) return;
  const uint64_t table = sp_gpu_msm_table_bytes(false, (size_t)sh->h_len, k);
  out->tables = precompute_cfg ? out->resident + table
                               : points + (uint64_t)workers * (4 * v + CAP_LAND_ROUND) + 5 * v +
                                     SP_SCRATCH_RESERVE + CAP_TABLE_MARGIN + table;
}
