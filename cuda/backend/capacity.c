/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* capacity.c -- the CUDA engine's answer to what one partition needs on a device
 * (engine.h: sp_capacity), read off the memory plan (plan.c) so that the scheduler's
 * refusal up front and the plan an execute chooses never disagree. Pure arithmetic: no
 * device call, nothing of a device's state but what the caller passes (engine_cuda.c
 * fills `available` from memory_limit and the GPU's size).
 *  - streamed: the need of the plan's last candidate (the least a partition of this
 *    shape runs in) with the points streamed. An execute under a memory_limit of that
 *    many bytes chooses that candidate or a larger one, and nothing of the engine's
 *    outside the pool takes from it: residency, chunked staging's device buffer, an
 *    early upload and the system's device copy are all made only with 10 GiB or more
 *    to spare (SP_SCRATCH_RESERVE), and the points kept on the device only from what
 *    the plan leaves. From the second partition on the NTT tables the plan counts are
 *    already in the pool: the plan then finds no candidate within what is left and
 *    takes the last, which allocates nothing more than the first time.
 *  - resident: the points, and the larger of residency.c's room next to them (three
 *    domain-sized vectors and SP_SCRATCH_RESERVE) and the first candidate's need with
 *    the points resident: the fastest way, as a device with that much runs it.
 *  - tables: the smallest fixed-base table msm.cu's cost model gains with, within the
 *    budget residency.c's table_budget gives (or msm_precompute's bytes).
 * The shape has no constraint count: the plan's inputs take the domain's size, which
 * bounds it (the domain holds the constraints and one row per input); it changes the
 * need only below 2^7 constraints, where a pre-check chunk would hold them all. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "backend/engine_internal.h" /* first: sp_gpu.h before <math.h> */

/* residency.c's SP_TABLE_MARGIN and staging.c's rounding of a worker's buffer */
#define CAP_TABLE_MARGIN ((uint64_t)1 << 30)
#define CAP_LAND_ROUND ((uint64_t)64 << 20)

static uint64_t max2(uint64_t a, uint64_t b) { return a > b ? a : b; }

void cuda_plan_input_shape(const sp_partition_shape *sh, bool resident, int sm_count,
                           cuda_plan_in *in) {
  memset(in, 0, sizeof *in);
  in->log_domain = sh->log_domain;
  in->nabc = (size_t)1 << sh->log_domain;
  in->ninp = (size_t)sh->inp_size;
  in->naux = (size_t)sh->aux_size;
  in->h_len = (size_t)sh->h_len;
  in->l_len = (size_t)sh->l_len;
  in->a_len = (size_t)sh->a_len;
  in->b_len = (size_t)sh->b_g1_len;
  /* the assignment's density bitmaps: a over aux, b over inputs and over aux */
  in->bm_bytes = 2 * bitmap_bytes(sh->aux_size) + bitmap_bytes(sh->inp_size);
  in->resident = resident;
  in->sm_count = sm_count;
}

void cuda_capacity_model(const sp_partition_shape *sh, unsigned workers, unsigned sm_count,
                         uint64_t precompute_cfg, sp_capacity *out) {
  const uint64_t v = UINT64_C(32) << sh->log_domain; /* one domain-sized vector */
  const uint64_t points = (sh->h_len + sh->l_len + sh->a_len + sh->b_g1_len) * sizeof(g1_affine_t) +
                          sh->b_g2_len * sizeof(g2_affine_t);
  cuda_plan_in in;
  cuda_plan_input_shape(sh, true, (int)sm_count, &in);
  out->resident = points + max2(work_bytes((size_t)v, 3), cuda_plan_need(&in, 0));
  cuda_plan_input_shape(sh, false, (int)sm_count, &in);
  out->streamed = cuda_plan_need(&in, cuda_plan_tiers() - 1);
  out->tables = 0;
  if (precompute_cfg == SP_MSM_PRECOMPUTE_OFF || sh->h_len == 0) return;
  const uint64_t smallest = sp_gpu_msm_table_bytes(false, (size_t)sh->h_len, 2);
  unsigned c = 0, k = 0;
  sp_gpu_msm_plan(false, (size_t)sh->h_len, precompute_cfg ? precompute_cfg : smallest, false, &c,
                  &k, NULL);
  if (k < 2) return;
  const uint64_t table = sp_gpu_msm_table_bytes(false, (size_t)sh->h_len, k);
  out->tables = precompute_cfg ? out->resident + table
                               : points + (uint64_t)workers * (4 * v + CAP_LAND_ROUND) +
                                     work_bytes((size_t)v, 5) + CAP_TABLE_MARGIN + table;
}
