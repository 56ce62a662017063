/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* engine_cuda.c -- the CUDA engine behind engine.h: one partition proved on one GPU.
 * This file holds the engine's operations and their orchestration; staging.c,
 * residency.c and pipeline.c the rest (engine_internal.h lists them).
 *
 * Plain C11 on top of the C boundary of the kernels (sp_gpu.h): srs.h uses C11
 * atomics, which C++ does not have, and nothing here needs C++.
 *
 * Device state lives in the engine's device handle: one sp_gpu context (two streams,
 * memory pool, NTT tables), created by the first worker thread that binds (after
 * cudaSetDevice + cudaGetDevice confirmed the ordinal) and destroyed by the last one
 * that unbinds, so every CUDA call that touches it runs on a thread bound to this
 * device.
 *
 * Data movement:
 *  - chunked staging (pinned_staging = auto / chunked, the default): prepare (no device
 *    lock) takes a device buffer for the whole partition (one per worker, kept across
 *    tasks; land_take: only with room next to the parameter set and an execute's
 *    working memory) and carries the assignment (a, b, c, inputs, aux, density bitmaps)
 *    into it through a few pinned chunks of the process-wide pool (hostmem.h): the host
 *    fills chunk k + 1 with t->cpu_threads threads while chunk k travels on the
 *    buffer's own transfer stream (sp_gpu_xfer). The chunks go back to the pool when
 *    the partition is on the device, so the module's host memory for staging is the
 *    chunks, whatever the partition size; under [provider] host_memory_limit a prepare
 *    waits for a chunk another one gives back. execute then copies device to device.
 *  - whole-partition staging (pinned_staging = whole or a size, the earlier default):
 *    prepare copies the assignment with t->cpu_threads threads into a pinned staging
 *    buffer taken from a per-device pool (at most one buffer per worker, reused across
 *    tasks, grown when a partition needs more, within the pinned_staging budget and
 *    host_memory_limit).
 *    In either mode, when staging is off or its memory cannot be had, execute reads the
 *    host's pageable memory as before: never a failure.
 *  - execute runs under a plan of its device memory (plan.c), chosen first from what
 *    the device has for it (memory_limit or the card's free memory, less what stays
 *    resident): how many vectors of the domain at once, when the rest of the
 *    assignment travels, how the MSMs take their points. Its uploads (upload.c) run on
 *    a thread and a transfer stream of their own, in the order they are needed,
 *    ordered against the compute stream by events: a, b and c one after another
 *    (decoding a while b and c travel), the inputs, aux and bitmaps during the H
 *    pipeline or after it.
 *  - Parameter points of each sp_srs stay resident on the device while the memory
 *    budget allows (evicted by srs_evict). Otherwise they are streamed: every MSM /
 *    batch addition runs over chunks of points that travel through a ring of device
 *    buffers (tail.c), the next chunks uploading while one is processed, from the
 *    host's copy through a bounded ring of page-locked chunks (never the whole set
 *    page-locked); the partial sums are added on the host (the MSM is linear in the
 *    points).
 *  - An out-of-memory in execute frees what the attempt held, waits briefly and retries
 *    with parameter streaming in smaller chunks and a smaller plan before it reports
 *    DEVICE_MEMORY.
 *
 * Lifetimes: every transfer out of a staging buffer completes before execute returns
 * (the uploads are drained and both streams synchronised on every exit), so release
 * may hand the staging buffer to the next task. Device memory is allocated and freed in
 * the compute stream's order; an upload waits for an event recorded after its buffer's
 * allocation (or last use), and the uploads have landed before any free.
 *
 * execute() runs with the device lock held: H pipeline and MSMs on the device, the
 * final few point operations (Horner over the window sums, A/B/C assembly,
 * compression) on the host with the CPU library. The group elements are those of
 * sp_groth16_prove, so with the same r and s the 192 bytes are identical.
 */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/engine_internal.h" /* first: sp_gpu.h before <math.h> */
#include "base/util.h"               /* SP_TRY_GOTO */
#include "base/log.h"
#include "groth16/groth16.h"
#include "util/cuda_api.h" /* sp_cuda_enumerate */

static const size_t oom_ladder[SP_OOM_RETRIES] = {(size_t)1 << 24, (size_t)1 << 22,
                                                  (size_t)1 << 20};

static int stage_mode_of(uint64_t cfg) {
  return cfg == SP_PINNED_STAGING_OFF                   ? STAGE_OFF
         : cfg == 0 || cfg == SP_PINNED_STAGING_CHUNKED ? STAGE_CHUNKED
                                                        : STAGE_WHOLE;
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static int cuda_device_open(const struct sp_device_cfg *cfg, void **dev, char *err, size_t errlen) {
  /* No CUDA call here: this runs on the provider's thread, whose current device must
   * not change. */
  if (!cfg || cfg->ordinal < 0) {
    snprintf(err, errlen, "cuda device %s: no resolved ordinal", cfg ? cfg->section : "(null)");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  cuda_dev *d = calloc(1, sizeof *d);
  if (!d) {
    snprintf(err, errlen, "cuda device [%s]: out of host memory", cfg->section);
    return SEALPROV_ERR_NO_MEMORY;
  }
  d->index = cfg->index;
  d->hm = cfg->hostmem;
  if (!d->hm) {
    if (sp_hostmem_create(0, &d->own_hm) != SEALPROV_OK) {
      free(d);
      snprintf(err, errlen, "cuda device [%s]: out of host memory", cfg->section);
      return SEALPROV_ERR_NO_MEMORY;
    }
    d->hm = d->own_hm;
  }
  snprintf(d->section, sizeof d->section, "%s", cfg->section);
  d->ordinal = cfg->ordinal;
  snprintf(d->name, sizeof d->name, "%s", cfg->name);
  d->cc_major = cfg->cc_major;
  d->cc_minor = cfg->cc_minor;
  d->memory_limit = cfg->memory_limit;
  d->total_memory = cfg->total_memory;
  d->sm_count = cfg->sm_count;
  d->pinned_cfg = cfg->pinned_staging;
  d->stage_mode = stage_mode_of(cfg->pinned_staging);
  /* chunked staging: [provider] staging_chunk_size and the section's staging_chunks,
   * checked by runtime/ini.c; a table made in memory (tests, benchmarks) may leave them 0 */
  d->chunks_per_stage = cfg->staging_chunks && cfg->staging_chunks <= SP_STAGING_CHUNKS_MAX
                            ? cfg->staging_chunks
                            : SP_STAGING_CHUNKS_DEFAULT;
  d->chunk_bytes = cfg->staging_chunk_bytes >= SP_STAGING_CHUNK_BYTES_MIN &&
                           cfg->staging_chunk_bytes <= SP_STAGING_CHUNK_BYTES_MAX
                       ? (size_t)cfg->staging_chunk_bytes
                       : (size_t)SP_STAGING_CHUNK_BYTES_DEFAULT;
  d->workers = cfg->workers ? cfg->workers : 2;
  if (d->workers > SP_MAX_WORKERS) d->workers = SP_MAX_WORKERS;
  d->precompute_cfg = cfg->msm_precompute;
#ifdef SP_FAULT_INJECTION
  d->knobs = (cuda_knobs)CUDA_KNOBS_DEFAULT;
#endif
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->cv, NULL);
  *dev = d;
  return SEALPROV_OK;
}

static void cuda_device_close(void *dev) {
  cuda_dev *d = dev;
  if (!d) return;
  /* Workers destroyed the context and freed the pinned buffers when the last one
   * unbound; if a worker never got that far (failed bind), nothing was created. */
  pthread_mutex_destroy(&d->mu);
  pthread_cond_destroy(&d->cv);
  sp_hostmem_destroy(d->own_hm);
  free(d);
}

/* pinned_staging = auto: half of the host's physical memory, shared equally among the
 * GPUs this process sees (a 2^27 partition stages 16.7 GB per worker). */
static uint64_t auto_pinned_budget(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psz <= 0) return 0;
  int n = sp_gpu_device_count();
  if (n < 1) n = 1;
  return (uint64_t)pages * (uint64_t)psz / 2 / (uint64_t)n;
}

static int cuda_worker_bind(void *dev, unsigned worker, int *confirmed_ordinal, char *err,
                            size_t errlen) {
  cuda_dev *d = dev;
  int confirmed = -1;
  int st = sp_gpu_bind(d->ordinal, &confirmed, err, errlen);
  if (confirmed_ordinal) *confirmed_ordinal = confirmed;
  if (st) {
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", err);
    snprintf(err, errlen, "cuda device [%s] worker %u: %s", d->section, worker, tmp);
    return st;
  }
  pthread_mutex_lock(&d->mu);
  if (!d->gpu) {
    /* Before any kernel: a GPU this build has no code for is refused here, at open,
     * with the configure option that adds it, never by a kernel in a job. */
    st = cuda_code_check(d, err, errlen);
    if (!st) st = sp_gpu_create(d->ordinal, d->memory_limit, &d->gpu, err, errlen);
    for (int i = 0; !st && i < EV_COUNT; i++)
      st = sp_gpu_event_create(d->gpu, &d->ev[i], err, errlen);
    if (st && d->gpu) {
      for (int i = 0; i < EV_COUNT; i++) {
        sp_gpu_event_destroy(d->gpu, d->ev[i]);
        d->ev[i] = NULL;
      }
      sp_gpu_destroy(d->gpu);
      d->gpu = NULL;
    }
    if (!st) {
      char name[8];
      uint64_t mem = 0;
      int sm = 0;
      sp_gpu_describe(d->gpu, name, sizeof name, &sm, &mem);
      /* written only where enumeration did not say (tests, benchmarks): capacity reads
       * it without the lock */
      if (d->sm_count <= 0) d->sm_count = sm;
      /* whole-partition staging: the configured budget, or auto (half the host's
       * memory shared among the GPUs) for `whole` and for a test build's switch of a
       * chunked device to whole (probe.h) */
      d->pinned_budget = d->pinned_cfg == SP_PINNED_STAGING_OFF ? 0
                         : d->pinned_cfg && d->pinned_cfg < SP_PINNED_STAGING_CHUNKED
                             ? d->pinned_cfg
                             : auto_pinned_budget();
      cuda_chunk_pool_hold(d);
    }
  }
  if (!st) d->bound++;
  pthread_mutex_unlock(&d->mu);
  return st;
}

static void cuda_worker_unbind(void *dev, unsigned worker) {
  (void)worker;
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  if (d->bound > 0 && --d->bound == 0 && d->gpu) {
    /* last worker of this device: this thread is bound to it, so device memory, pinned
     * buffers and the streams can go here */
    char e[64];
    (void)sp_gpu_sync_all(d->gpu, e, sizeof e);
    cuda_drop_all(d);
    sp_gpu_destroy(d->gpu);
    d->gpu = NULL;
    cuda_chunk_pool_drop(d);
  }
  pthread_mutex_unlock(&d->mu);
}

/* May run on any thread (the one dropping the last reference): the frees switch to
 * this device and back, so that thread's binding is unchanged. The set has no users,
 * so no transfer reads its device copy or its registered memory. */
static void cuda_srs_evict(void *dev, const struct sp_srs *srs) { cuda_drop_resident(dev, srs); }

/* Drops this device's copy of cs (the system is being freed: no task uses it). Any
 * thread: the free switches devices and back. */
static void cuda_cs_evict(void *dev, const struct sp_cs *cs) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  cuda_cs_res **pp = &d->cs_res;
  while (*pp && (*pp)->cs != cs) pp = &(*pp)->next;
  cuda_cs_res *c = *pp;
  if (c) *pp = c->next;
  pthread_mutex_unlock(&d->mu);
  if (!c) return;
  sp_gpu_cs_free(c->g);
  free(c);
}

void cuda_host_memory(void *dev, sp_cuda_host_memory *out) {
  cuda_dev *d = dev;
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&d->mu);
  for (unsigned i = 0; i < SP_MAX_WORKERS; i++)
    if (d->stage[i].p) {
      out->staging_bytes += d->stage[i].cap;
      out->staging_buffers++;
    }
  out->staging_budget = d->pinned_budget;
  out->stage_mode = d->stage_mode;
  for (unsigned i = 0; i < SP_MAX_WORKERS; i++)
    if (d->land[i].p) out->landing_buffers++;
  out->landing_bytes = d->land_bytes;
  pthread_mutex_unlock(&d->mu);
  sp_hostmem_stats hs;
  sp_hostmem_get(d->hm, &hs);
  if (d->index < SP_HOSTMEM_DEVICES) {
    out->module_bytes = hs.dev[d->index];
    out->module_peak_bytes = hs.dev_peak[d->index];
  }
}

static uint64_t cuda_host_memory_in_use(void *dev) {
  sp_cuda_host_memory h;
  cuda_host_memory(dev, &h);
  return h.staging_bytes;
}

static uint64_t cuda_transfer_bytes(void *dev) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  uint64_t n = d->pcie_bytes;
  pthread_mutex_unlock(&d->mu);
  return n;
}

static uint64_t cuda_memory_in_use(void *dev) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  /* with the chunked staging's device buffers (cudaMalloc, outside the pool) */
  uint64_t n = (d->gpu ? sp_gpu_memory_in_use(d->gpu) : 0) + cuda_resident_bytes(d) + d->land_bytes;
  pthread_mutex_unlock(&d->mu);
  return n;
}

static int cuda_execute(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                        size_t errlen) {
  cuda_dev *d = dev;
  if (!d->gpu) {
    snprintf(err, errlen, "cuda device %u [%s]: execute on a device with no bound worker", d->index,
             d->section);
    return SEALPROV_ERR_DEVICE;
  }
  /* prep is NULL when the caller skipped prepare: check here what prepare checks (under
   * the lock only then: at 2^27 the density popcounts are milliseconds), and read the
   * host's memory directly */
  cuda_prep pageable;
  const cuda_prep *src = prep;
  sp_task tw;                 /* a witness-only partition: the witness prepare staged... */
  const sp_cs *gpu_cs = NULL; /* ... and a, b, c computed on the device */
  if (t->cs != NULL) {
    if (!src || !src->gpu_cs) {
      snprintf(err, errlen,
               "cuda device %u [%s]: witness-only partition %u of job %llu reached "
               "execute without prepare's staging",
               d->index, d->section, t->partition, (unsigned long long)t->job_id);
      return SEALPROV_ERR_INTERNAL;
    }
    gpu_cs = t->cs;
    tw = *t;
    tw.asg = &src->wasg;
    t = &tw;
  }
  if (!src) {
    int st = sp_groth16_check_assignment(t->srs, t->asg, err, errlen);
    if (st) return st;
    memset(&pageable, 0, sizeof pageable);
    cuda_prep_sources_pageable(&pageable, t->asg);
    src = &pageable;
  }
  sp_cuda_timings tm;
  memset(&tm, 0, sizeof tm);
  tm.prepare_ms = src->prepare_ms;
  tm.staged = src->buf != NULL || src->land != NULL;
  tm.staged_on_device = src->land != NULL;
  tm.pcie_bytes = src->pcie_bytes; /* prepare's staging and a's early upload */
  pthread_mutex_lock(&d->mu);
  /* No prepare may use the context from here on (early_from_prepare). */
  while (d->uploading) pthread_cond_wait(&d->cv, &d->mu);
  d->executing = true;
  pthread_mutex_unlock(&d->mu);
  bool injected_oom = false; /* the fault engine's, not the device's (fault.h) */
#ifdef SP_FAULT_INJECTION
  if (d->fault_oom) { /* this partition's first allocations */
    sp_gpu_inject_oom(d->gpu, d->fault_oom);
    d->fault_oom = 0;
    injected_oom = true;
  }
#endif
  /* Sent by the previous execute, or by this partition's prepare on an idle device. */
  void *early_a = cuda_early_take(d, prep);
  char msg[512] = "";
  double t0 = sp_now_ms();
  int st = SEALPROV_OK;
  unsigned tier = 0; /* the plan of the last attempt */
  for (unsigned rung = 0;; rung++) {
    xctx x;
    memset(&x, 0, sizeof x);
    x.d = d;
    x.g = d->gpu;
    x.cpu_threads = t->cpu_threads;
    /* a set with no host copy stays resident whatever happens (never streamed) */
    x.allow_resident = rung == 0 || t->srs->device_only;
    /* a retry streams in the rung's chunks, under the next smaller plan */
    x.chunk_cap = rung == 0 ? 0 : oom_ladder[rung - 1];
    x.min_tier = rung == 0 ? 0 : tier + 1;
    x.tm = &tm;
    x.early_a = rung == 0 ? early_a : NULL; /* prove_partition frees it on every path */
    x.cs = gpu_cs;
    st = cuda_prove_partition(&x, t, src, proof, msg, sizeof msg);
    tier = x.plan.tier;
    /* Nothing may stay in flight: the staging buffer goes back to the pool after
     * execute, and a retry reuses the device memory. */
    char e2[128];
    int st2 = sp_gpu_sync_all(d->gpu, e2, sizeof e2);
    if (st == SEALPROV_OK && st2 != SEALPROV_OK) {
      snprintf(msg, sizeof msg, "%s", e2);
      st = st2;
    }
    if (st != SEALPROV_ERR_DEVICE_MEMORY || rung == SP_OOM_RETRIES) break;
    /* A set with no host copy keeps its points; its fixed-base table may go, and the
     * partition runs again without it. */
    bool table_dropped = t->srs->device_only && cuda_drop_table(d, t->srs);
    if (t->srs->device_only && !table_dropped) {
      /* The retry ladder drops the resident copy to stream it: impossible without a
       * host copy. Say so (docs/abi.md: a direct-loaded set never streams). */
      char m2[512];
      snprintf(m2, sizeof m2,
               "out of device memory with the parameters resident (loaded straight onto the "
               "device: no host copy to stream from, so no retry with streaming): %s",
               msg);
      snprintf(msg, sizeof msg, "%s", m2);
      break;
    }
    /* Out of memory: what the attempt held is freed (stream-ordered, synchronised
     * above); the resident copy of this set goes too (the retry streams it), the pool
     * gives its cache back, and after a short wait the next rung runs. */
    if (!t->srs->device_only) {
      /* a table that was there when memory really ran out (not the tests' injected
       * failure) is not made again on this device: the retry of every later partition
       * would pay for it */
      pthread_mutex_lock(&d->mu);
      cuda_resident *had = cuda_find_resident(d, t->srs);
      if (had && had->tab_h.copies && !d->tables_oom && !injected_oom) {
        d->tables_oom = true;
        sp_log(SEALPROV_LOG_WARN,
               "cuda device %u [%s]: out of device memory with a fixed-base table resident: no "
               "more tables on this device (msm_precompute)",
               d->index, d->section);
      }
      pthread_mutex_unlock(&d->mu);
      cuda_drop_resident(d, t->srs);
    }
    cuda_early_drop(d);
    sp_gpu_trim(d->gpu);
    sleep_ms(SP_OOM_WAIT_MS);
    tm.oom_retries++;
    /* stage timings of the failed attempt would mislead: keep only what was moved */
    double keep_prep = tm.prepare_ms, keep_srs = tm.srs_upload_ms, keep_tab = tm.precompute_ms;
    bool staged = tm.staged;
    unsigned retries = tm.oom_retries;
    uint64_t pcie = tm.pcie_bytes;
    memset(&tm, 0, sizeof tm);
    tm.prepare_ms = keep_prep;
    tm.srs_upload_ms = keep_srs;
    tm.precompute_ms = keep_tab;
    tm.staged = staged;
    tm.oom_retries = retries;
    tm.pcie_bytes = pcie;
  }
#ifdef SP_FAULT_INJECTION
  sp_gpu_inject_oom(d->gpu, 0);
#endif
  tm.total_ms = sp_now_ms() - t0;
  pthread_mutex_lock(&d->mu);
  d->executing = false;
  pthread_mutex_unlock(&d->mu);
  if (st) {
    if (st == SEALPROV_ERR_DEVICE_MEMORY && tm.oom_retries)
      snprintf(err, errlen,
               "cuda device %u [%s] (ordinal %d), job %llu partition %u: out of memory after %u "
               "retries with streamed parameters down to %zu-point chunks: %s",
               d->index, d->section, d->ordinal, (unsigned long long)t->job_id, t->partition,
               tm.oom_retries, (size_t)tm.stream_chunk, msg);
    else
      snprintf(err, errlen, "cuda device %u [%s] (ordinal %d), job %llu partition %u: %s", d->index,
               d->section, d->ordinal, (unsigned long long)t->job_id, t->partition, msg);
    return st;
  }
  pthread_mutex_lock(&d->mu);
  d->last = tm;
  pthread_mutex_unlock(&d->mu);
  return SEALPROV_OK;
}

/* The engine's operations as stages (util/stage.h): what a trace sees of prepare, and
 * of execute between its named stages. */
static int cuda_prepare_op(void *dev, const sp_task *t, void **prep, char *err, size_t errlen) {
  cuda_stage_mark m = cuda_stage_in(SP_STAGE_PREPARE);
  int st = cuda_prepare(dev, t, prep, err, errlen);
  cuda_stage_out(m, NULL);
  return st;
}
static int cuda_execute_op(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                           size_t errlen) {
  cuda_stage_mark m = cuda_stage_in(SP_STAGE_EXECUTE);
  int st = cuda_execute(dev, t, prep, proof, err, errlen);
  cuda_stage_out(m, NULL);
  return st;
}

#ifdef SP_FAULT_INJECTION
static void cuda_fault_oom(void *dev, unsigned n) { ((cuda_dev *)dev)->fault_oom = n; }
#endif

/* Device memory the driver and the CUDA context keep of a GPU's total (the module's
 * allocations never get it): what a device without memory_limit proves in is the rest. */
#define SP_CUDA_DRIVER_RESERVE ((uint64_t)1 << 30)

/* sp_engine_ops.capacity: capacity.c's answer, within memory_limit or the GPU's memory
 * (the smaller of the two: a limit above the card does not make it larger). */
static void cuda_capacity(void *dev, const sp_partition_shape *shape, sp_capacity *out) {
  const cuda_dev *d = dev;
  memset(out, 0, sizeof *out);
  cuda_capacity_model(shape, d->workers, d->sm_count > 0 ? (unsigned)d->sm_count : 0,
                      d->precompute_cfg, out);
  uint64_t card = d->total_memory > SP_CUDA_DRIVER_RESERVE
                      ? d->total_memory - SP_CUDA_DRIVER_RESERVE
                      : SP_CAPACITY_UNBOUNDED;
  out->by_limit = d->memory_limit && d->memory_limit < card;
  out->available = out->by_limit ? d->memory_limit : card;
}

/* sp_engine_ops.setup_seconds: the last execute's upload of a parameter set and its
 * fixed-base table (device lock held: d->last is the execute's that just returned). */
static double cuda_setup_seconds(void *dev) {
  const cuda_dev *d = dev;
  return (d->last.srs_upload_ms + d->last.precompute_ms) / 1e3;
}

const sp_engine_ops sp_engine_cuda = {
    .name = "cuda",
    .device_open = cuda_device_open,
    .device_close = cuda_device_close,
    .worker_bind = cuda_worker_bind,
    .worker_unbind = cuda_worker_unbind,
    .prepare = cuda_prepare_op,
    .execute = cuda_execute_op,
    .release = cuda_release,
    .srs_evict = cuda_srs_evict,
    .memory_in_use = cuda_memory_in_use,
    .host_memory_in_use = cuda_host_memory_in_use,
    .cs_evict = cuda_cs_evict,
    .transfer_bytes = cuda_transfer_bytes,
#ifdef SP_FAULT_INJECTION
    .fault_oom = cuda_fault_oom,
#endif
    .device_code = cuda_device_code,
    .capacity = cuda_capacity,
    .setup_seconds = cuda_setup_seconds,
};

const sp_backend sp_backend_cuda = {
    .type = SP_DEVICE_CUDA,
    .name = "cuda",
    .ops = &sp_engine_cuda,
    .enumerate = sp_cuda_enumerate,
    .load = sp_cuda_load_params,
};
