/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* probe.h -- what benchmarks and tests read of a CUDA engine device, and the knobs a
 * test build turns (probe.c). dev is an engine device handle of sp_engine_cuda
 * (engine.h). A library of its own (cuda/libsealprov_cuda_probe.la), linked by bench/
 * and tests/ only: none of it is in sealprov.so (tests/tree/kit_symbols.sh). The knobs
 * exist only in a build with configure --enable-fault-injection (SP_FAULT_INJECTION),
 * as the engine's paths they select do; a production module has the defaults alone. */
#ifndef SEALPROV_CUDA_BACKEND_PROBE_H
#define SEALPROV_CUDA_BACKEND_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/engine_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what a device reports ---- */

/* Timings of the last execute() on this engine device handle (dev of engine.h). */
void sp_engine_cuda_last_timings(void *dev, sp_cuda_timings *out);

/* What the device holds page-locked now, and the module's host memory for it. */
void sp_engine_cuda_host_memory(void *dev, sp_cuda_host_memory *out);

/* The host-memory accountant the device counts in (hostmem.h): the provider's, or the
 * device's own when it was opened without one (tests, benchmarks set caps and read
 * peaks through it). */
struct sp_hostmem;
struct sp_hostmem *sp_engine_cuda_hostmem(void *dev);
/* Frees the idle chunks of the provider's staging pool (tests: a later prepare has
 * to allocate, or do without, its chunks); returns the bytes freed. */
uint64_t sp_engine_cuda_trim_chunks(void *dev);

/* The memory plan (cuda/backend/plan.c): its number of candidates ("tiers", 0 needs
 * the most memory); the device bytes tier `tier` needs for task t's sizes on this
 * (bound) device, with the set resident or streamed. */
unsigned sp_engine_cuda_plan_tiers(void);
uint64_t sp_engine_cuda_plan_need(void *dev, const sp_task *t, bool resident, unsigned tier);
/* The plan for a partition of shape sh (engine.h; as the capacity sees it, no
 * device needed) with `budget` bytes: OK and the tier it takes, else DEVICE_MEMORY (no
 * tier fits). And the need of one tier. */
int sp_engine_cuda_plan_shape(const sp_partition_shape *sh, bool resident, int sm_count,
                              uint64_t budget, unsigned *tier);
uint64_t sp_engine_cuda_plan_shape_need(const sp_partition_shape *sh, bool resident, int sm_count,
                                        unsigned tier);
/* Bytes copied from the host to this device so far (sp_engine_ops.transfer_bytes). */
uint64_t sp_engine_cuda_transfer_bytes(void *dev);

#ifdef SP_FAULT_INJECTION
/* ---- a test build's knobs: call between tasks ----
 * Each reaches a path of the engine that its default does not take on a small set or a
 * large GPU, so that tests prove through it and benchmarks of a test build compare it
 * on the same data. The INI reaches what a provider chooses: pinned_staging (the
 * staging mode), memory_limit (streaming, and the plan's tier, when the set does not
 * fit), msm_precompute (tables or none). */

/* The staging mode (SP_STAGING_*) of the next tasks, as pinned_staging would set it. */
void sp_engine_cuda_set_staging(void *dev, int mode);

/* force_stream streams the parameter points even when the set would fit on the device;
 * chunk_points sets the points per chunk (rounded down to a multiple of 64, at least
 * 64; 0 = the default 2^24). */
void sp_engine_cuda_set_streaming(void *dev, bool force_stream, size_t chunk_points);

/* The early-upload mode (SP_EARLY_*) of the next tasks. */
void sp_engine_cuda_set_early(void *dev, int mode);

/* The early upload of a (by a prepare, or by the execute before) starts on the device
 * only us microseconds after it is queued, so that the execute that uses it meets it
 * still travelling (0: at once, the default). */
void sp_engine_cuda_set_early_delay(void *dev, unsigned us);

/* The fixed-base table mode (SP_TABLES_*) of the next tasks. */
void sp_engine_cuda_set_tables(void *dev, int mode);

/* The a*b = c pre-check of execute (pipeline.c, part_h) collects a*b in a buffer of
 * one more vector while a and b are transformed, when the device has room for it;
 * allow false makes it take the path without that buffer. */
void sp_engine_cuda_set_check_buffer(void *dev, bool allow);

/* A tier of the plan the next tasks must take whatever the budget (-1: the plan
 * chooses, the default). */
void sp_engine_cuda_set_plan(void *dev, int tier);
#endif

#ifdef __cplusplus
}
#endif
#endif
