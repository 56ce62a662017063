/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* probe.c -- what benchmarks and tests read of a CUDA engine device, and the test
 * build's knobs (probe.h): per-stage timings, the host-memory footprint, the plan's
 * arithmetic, and the switches of cuda_knobs. A library of its own, never linked into
 * sealprov.so. */
#include <config.h>

#include <pthread.h>
#include <string.h>

#include "backend/engine_internal.h" /* first: sp_gpu.h before <math.h> */
#include "backend/probe.h"

void sp_engine_cuda_last_timings(void *dev, sp_cuda_timings *out) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  *out = d->last;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_host_memory(void *dev, sp_cuda_host_memory *out) { cuda_host_memory(dev, out); }

sp_hostmem *sp_engine_cuda_hostmem(void *dev) { return ((cuda_dev *)dev)->hm; }

uint64_t sp_engine_cuda_trim_chunks(void *dev) {
  cuda_dev *d = dev;
  int ordinal = d->ordinal;
  sp_chunk_pool *pool = sp_hostmem_pool(d->hm);
  return pool ? sp_chunk_pool_trim(pool, &ordinal) : 0;
}

unsigned sp_engine_cuda_plan_tiers(void) { return cuda_plan_tiers(); }

uint64_t sp_engine_cuda_plan_need(void *dev, const sp_task *t, bool resident, unsigned tier) {
  cuda_dev *d = dev;
  cuda_plan_in in;
  cuda_plan_input(t->srs, t->asg, resident, false, d->sm_count, &in);
  pthread_mutex_lock(&d->mu);
  const cuda_knobs k = cuda_knobs_of(d);
  pthread_mutex_unlock(&d->mu);
  in.no_check_buf = k.no_check_buffer;
  in.chunk = k.stream_chunk;
  return cuda_plan_need(&in, tier);
}

int sp_engine_cuda_plan_shape(const sp_partition_shape *sh, bool resident, int sm_count,
                              uint64_t budget, unsigned *tier) {
  cuda_plan_in in;
  cuda_plan p;
  cuda_plan_input_shape(sh, resident, sm_count, &in);
  int st = cuda_plan_choose(&in, budget, &p);
  *tier = p.tier;
  return st;
}

uint64_t sp_engine_cuda_plan_shape_need(const sp_partition_shape *sh, bool resident, int sm_count,
                                        unsigned tier) {
  cuda_plan_in in;
  cuda_plan_input_shape(sh, resident, sm_count, &in);
  return cuda_plan_need(&in, tier);
}

uint64_t sp_engine_cuda_transfer_bytes(void *dev) { return sp_engine_cuda.transfer_bytes(dev); }

#ifdef SP_FAULT_INJECTION
void sp_engine_cuda_set_staging(void *dev, int mode) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  if (mode >= SP_STAGING_OFF && mode <= SP_STAGING_CHUNKED) d->stage_mode = mode;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_early(void *dev, int mode) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  d->knobs.early_mode = mode >= SP_EARLY_OFF && mode <= SP_EARLY_ALL ? mode : SP_EARLY_ALL;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_early_delay(void *dev, unsigned us) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  d->knobs.early_delay_us = us;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_tables(void *dev, int mode) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  d->knobs.tables_mode = mode == SP_TABLES_OFF || mode == SP_TABLES_FORCE ? mode : SP_TABLES_AUTO;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_check_buffer(void *dev, bool allow) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  d->knobs.no_check_buffer = !allow;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_streaming(void *dev, bool force_stream, size_t chunk_points) {
  cuda_dev *d = dev;
  /* chunks are whole bitmap words: batch additions index the ones bitmap from p0 / 64 */
  if (chunk_points && chunk_points < 64) chunk_points = 64;
  chunk_points -= chunk_points % 64;
  pthread_mutex_lock(&d->mu);
  d->knobs.force_stream = force_stream;
  d->knobs.stream_chunk = chunk_points; /* 0: SP_STREAM_CHUNK_DEFAULT */
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_plan(void *dev, int tier) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  d->knobs.force_tier = tier >= 0 && (unsigned)tier < cuda_plan_tiers() ? tier : -1;
  pthread_mutex_unlock(&d->mu);
}
#endif
