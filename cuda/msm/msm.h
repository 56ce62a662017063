/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* msm.h -- the MSMs' C API (msm.cu): Pippenger MSMs of G1 and G2 over device points,
 * with or without a fixed-base table, and batch addition by bitmap. Conventions as
 * util/sp_gpu.h. */
#ifndef SEALPROV_CUDA_MSM_H
#define SEALPROV_CUDA_MSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sp_gpu.h" /* sp_gpu, the statuses and conventions of the kernels' C API */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fixed-base MSM: precomputed copies of device-resident points (msm_table.cuh) ---
 * For points that stay on the device (a resident parameter vector), copies T_j =
 * 2^(c j) P, j = 1 .. copies - 1, let one bucket set serve `copies` windows of c bits:
 * an MSM over the table reduces ceil(W / copies) bucket sets instead of W = ceil(256 /
 * c), which makes larger windows (fewer windows, fewer point additions) pay. The result
 * is exact, as every MSM here (cuda/DESIGN.md, "MSM"). */
typedef struct sp_msm_table {
  const void *d_points; /* copy 0: the points themselves (not owned by the table) */
  void *d_ext;          /* copies 1 .. copies - 1, npoints each, in order (owned) */
  size_t npoints;
  uint64_t ext_bytes; /* device bytes of d_ext */
  unsigned window;    /* c: copy j is 2^(c j) times copy 0 */
  unsigned copies;    /* >= 2, at most ceil(256 / c) */
  unsigned shift;     /* ceil(log2 npoints): sort values hold copy << shift | index */
  bool g2;
} sp_msm_table;
/* Device bytes of a table's copies (copies - 1 of npoints points); 0 for copies < 2. */
uint64_t sp_gpu_msm_table_bytes(bool g2, size_t npoints, unsigned copies);
/* The window and number of copies (>= 2) for a table of npoints points within budget
 * bytes, by msm.cu's cost model (constants fitted on an H200), for MSMs
 * over all of its points; *copies = *window = 0 when no table is predicted at least 3 %
 * faster than today's path, or none fits the budget. force: the fastest table that fits,
 * whatever its gain. *gain (may be NULL): the predicted fraction of time saved. Pure
 * host code (no device call). */
void sp_gpu_msm_plan(bool g2, size_t npoints, uint64_t budget, bool force, unsigned *window,
                     unsigned *copies, double *gain);
/* Builds the table of npoints device points d_points (g1_affine_t, or g2_affine_t when
 * g2) on the compute stream and waits for it. The copies live in memory of their own
 * (cudaMalloc, outside the context's pool and memory_limit, as
 * sp_gpu_alloc_upload_persistent: the caller counts it); d_points must stay allocated
 * and unchanged while the table is used. window 2..24, copies 2..ceil(256 / window),
 * npoints 1..2^31 - 1 with copies * 2^ceil(log2 npoints) <= 2^31. Returns OK, DEVICE,
 * DEVICE_MEMORY (the copies do not fit), INVALID_ARGUMENT; *out is zeroed on failure. */
int sp_gpu_msm_table_make(sp_gpu *g, bool g2, const void *d_points, size_t npoints, unsigned window,
                          unsigned copies, sp_msm_table *out, char *err, size_t errlen);
/* Frees a table's copies (any thread: as sp_gpu_free_persistent) and zeroes *t. */
void sp_gpu_msm_table_free(int ordinal, sp_msm_table *t);

/* Pippenger MSM, out = sum scalars[i] * points[map(i)]. Scalars are canonical
 * (scalar_t, < r); 0 contributes nothing; infinity points are allowed.
 *   flags SP_MSM_BITREV_POINTS: map(i) = bitrev_{log2 npoints_pow2}(i) (H MSM);
 *   d_index != NULL: map(i) = d_index[i] - index_base (compacted scalars; index_base
 *   lets a chunk of the point vector, starting at point index_base, be passed as
 *   d_points together with the matching range of the compacted scalars).
 *   table != NULL: the points are the table's (d_points is not read; every map(i) must
 *   be below table->npoints) and the window is the table's (window_bits 0 or equal).
 * window_bits 0 = choose. The result is exact (compare with msm_g1 / msm_g2). */
#define SP_MSM_BITREV_POINTS 0x1u
typedef struct sp_msm_args {
  const void *d_points;    /* device g1_affine_t / g2_affine_t */
  const void *d_scalars;   /* device scalar_t, n of them */
  const uint32_t *d_index; /* optional point index per scalar */
  size_t n;
  unsigned flags;
  unsigned log_bitrev;       /* for SP_MSM_BITREV_POINTS */
  unsigned window_bits;      /* 0 = automatic */
  uint32_t index_base;       /* subtracted from d_index[i] (0 = none) */
  const sp_msm_table *table; /* fixed-base table of the points, or NULL */
  unsigned table_batch;      /* tests: windows per sort batch over a table (0 = by
                                 memory), so that small MSMs take the large ones' path
                                 where a bucket set spans several batches */
  uint64_t scratch_cap;      /* device bytes the MSM may allocate (0: no cap): fewer
                                 windows per sort batch until its buffers fit, down to
                                 one (not for a table) */
} sp_msm_args;
int sp_gpu_msm_g1_dev(sp_gpu *g, g1_jac_t *out, const sp_msm_args *a, char *err, size_t errlen);
int sp_gpu_msm_g2_dev(sp_gpu *g, g2_jac_t *out, const sp_msm_args *a, char *err, size_t errlen);
/* Device bytes an MSM of n scalars (automatic window, no table) allocates: with wb
 * windows per sort batch (wb 0: as many as sp_msm_args.scratch_cap = cap allows, 0
 * for none), on a device of sm_count multiprocessors (0: unknown, the most). Pure host
 * code, for memory plans; CUB's sort temporaries estimated from above. */
uint64_t sp_gpu_msm_scratch_bytes(bool g2, size_t n, unsigned wb, int sm_count, uint64_t cap);
/* Device bytes a batch addition of n points allocates (pure host code). */
uint64_t sp_gpu_batch_add_scratch_bytes(bool g2, size_t n);

/* out = sum of the points whose bit is set in bitmap (bit i in word i/64), as
 * batch_add_g1 / batch_add_g2, on device points and bitmap. */
int sp_gpu_batch_add_g1_dev(sp_gpu *g, g1_jac_t *out, const void *d_points,
                            const uint64_t *d_bitmap, size_t n, char *err, size_t errlen);
int sp_gpu_batch_add_g2_dev(sp_gpu *g, g2_jac_t *out, const void *d_points,
                            const uint64_t *d_bitmap, size_t n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
