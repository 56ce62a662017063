/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* stage.h -- the named stages of a partition on a CUDA device (what `sealprov bench gpu`
 * prints for each), and the hook through which a tracer learns which one the calling
 * thread is in. The engine announces each stage as it enters and leaves it
 * (cuda/backend/engine_internal.h, cuda_stage_in and cuda_stage_out); the hook is NULL
 * unless `sealprov bench gpu --trace` set it (bench/trace_cupti.c), which tags every
 * kernel, copy and wait the thread starts meanwhile with the stage.
 *
 * A pointer rather than code built only into a measuring build: the GPU machine's one
 * build (dev/device-build.sh) then traces the very module it measures, with no second
 * build of every kernel, and a NULL test at the few dozen stage boundaries of a
 * partition that takes a second costs nothing measurable. Nothing in sealprov.so sets
 * it (the symbol is not exported), so a provider's module never calls out. */
#ifndef SEALPROV_CUDA_STAGE_H
#define SEALPROV_CUDA_STAGE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The stages; the names `bench gpu` prints are bench/trace_cupti.c's. NONE: the thread
 * is in no engine call. Never renumbered within a run: a trace names them by number. */
typedef enum sp_gpu_stage_id {
  SP_STAGE_NONE = 0,
  SP_STAGE_PREPARE,   /* prepare: the assignment staged */
  SP_STAGE_EXECUTE,   /* execute, between the stages below: the plan, syncs, frees */
  SP_STAGE_PARAMS,    /* parameter points made resident, their tables, a streamed prefix */
  SP_STAGE_UPLOAD,    /* execute waiting for its host -> device copies (and queueing them) */
  SP_STAGE_TRANSFER,  /* the copies themselves, issued by execute's upload thread */
  SP_STAGE_DECODE,    /* scalar decoding, the a*b = c check, density filtering, 0/1 split */
  SP_STAGE_H_NTT,     /* the H polynomial: the NTTs and a*b - c */
  SP_STAGE_H_MSM,     /* the H MSM */
  SP_STAGE_BATCH_ADD, /* sums of the G1 points whose scalar is 1 */
  SP_STAGE_TAIL_MSM,  /* the L, A and B G1 MSMs */
  SP_STAGE_G2,        /* B G2: batch addition and MSM */
  SP_STAGE_SPMV,      /* witness-only a, b, c */
  SP_STAGE_HOST,      /* the proof assembled on the host */
  SP_STAGE_EARLY,     /* the next partition's a sent early */
  SP_STAGE_COUNT
} sp_gpu_stage_id;

/* Makes `stage` the calling thread's current one and returns the one it replaces. */
typedef unsigned (*sp_gpu_stage_fn)(unsigned stage);
extern sp_gpu_stage_fn sp_gpu_stage_hook;

static inline unsigned sp_gpu_stage_set(unsigned stage) {
  return sp_gpu_stage_hook ? sp_gpu_stage_hook(stage) : SP_STAGE_NONE;
}

#ifdef __cplusplus
}
#endif
#endif
