/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* engine_probe.h -- the developer kit's probes and knobs of the CUDA engine
 * (engine_probe.c), for the GPU tests and `sealprov bench gpu`; dev is an engine device
 * handle of sp_engine_cuda (engine.h). Not in sealprov.so. */
#ifndef SEALPROV_KIT_GPU_ENGINE_PROBE_H
#define SEALPROV_KIT_GPU_ENGINE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/engine_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Timings of the last execute() on this engine device handle (dev of engine.h). */
void sp_engine_cuda_last_timings(void *dev, sp_cuda_timings *out);

/* What the device holds page-locked now, and the module's host memory for it. */
void sp_engine_cuda_host_memory(void *dev, sp_cuda_host_memory *out);

/* The staging mode (SP_STAGING_*) of the next tasks. */
void sp_engine_cuda_set_staging(void *dev, int mode);

/* The host-memory accountant the device counts in (hostmem.h): the provider's, or the
 * device's own when it was opened without one (tests, benchmarks set caps and read
 * peaks through it). */
struct sp_hostmem;
struct sp_hostmem *sp_engine_cuda_hostmem(void *dev);
/* Frees the idle chunks of the provider's staging pool (tests: a later prepare has
 * to allocate, or do without, its chunks); returns the bytes freed. */
uint64_t sp_engine_cuda_trim_chunks(void *dev);

/* Tests and benchmarks: force_stream streams the parameter points even when the set
 * would fit on the device; chunk_points sets the points per chunk (rounded down to a
 * multiple of 64, at least 64; 0 = the default 2^24). Call between tasks. */
void sp_engine_cuda_set_streaming(void *dev, bool force_stream, size_t chunk_points);

/* The early-upload mode (SP_EARLY_*) of the next tasks. */
void sp_engine_cuda_set_early(void *dev, int mode);

/* Tests: the early upload of a (by a prepare, or by the execute before) starts on the
 * device only us microseconds after it is queued, so that the execute that uses it
 * meets it still travelling (0: at once, the default). */
void sp_engine_cuda_set_early_delay(void *dev, unsigned us);

/* The fixed-base table mode (SP_TABLES_*) of the next tasks. */
void sp_engine_cuda_set_tables(void *dev, int mode);

/* Witness-only partitions (a, b, c from the constraint system): on the device (the
 * default), or with host true by the host's SpMV in prepare, as before the GPU's SpMV
 * (A/B runs). Call between tasks. */
void sp_engine_cuda_set_cs_host(void *dev, bool host);

/* The a*b = c pre-check of execute (pipeline.c, part_h) collects a*b in a buffer of
 * one more vector while a and b are transformed, when the device has room for it;
 * allow false makes it take the path without that buffer (tests). */
void sp_engine_cuda_set_check_buffer(void *dev, bool allow);

/* The memory plan (cuda/backend/plan.c): its number of candidates ("tiers", 0 needs
 * the most memory); the device bytes tier `tier` needs for task t's sizes on this
 * (bound) device, with the set resident or streamed; and a tier the next tasks must
 * take whatever the budget (-1: the plan chooses, the default). */
unsigned sp_engine_cuda_plan_tiers(void);
uint64_t sp_engine_cuda_plan_need(void *dev, const sp_task *t, bool resident, unsigned tier);
void sp_engine_cuda_set_plan(void *dev, int tier);
/* The plan for a partition of shape sh (engine.h; as the capacity sees it, no
 * device needed) with `budget` bytes: OK and the tier it takes, else DEVICE_MEMORY (no
 * tier fits). And the need of one tier. */
int sp_engine_cuda_plan_shape(const sp_partition_shape *sh, bool resident, int sm_count,
                              uint64_t budget, unsigned *tier);
uint64_t sp_engine_cuda_plan_shape_need(const sp_partition_shape *sh, bool resident, int sm_count,
                                        unsigned tier);
/* Bytes copied from the host to this device so far (sp_engine_ops.transfer_bytes). */
uint64_t sp_engine_cuda_transfer_bytes(void *dev);

#ifdef __cplusplus
}
#endif
#endif
