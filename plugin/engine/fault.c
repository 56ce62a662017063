/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fault.c -- the fault-injection engine (fault.h). Built only with configure
 * --enable-fault-injection. */
#include <config.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h" /* sp_now_ms */
#include "engine/fault.h"

/* One wrapped device. Its engine table is its own: the wrapped engine's name and
 * which optional members it has must show through (the scheduler's messages name the
 * engine; a missing prepare means no prepare event on the timeline). */
typedef struct fault_dev {
  sp_engine_ops ops;
  const sp_engine_ops *inner;
  void *dev;
  unsigned index;
  char section[64];
  uint32_t inject;  /* SP_INJECT_* */
  uint32_t count;   /* inject on this many partitions, 0 = every one */
  atomic_uint left; /* of count */
} fault_dev;

/* What prepare decided for one attempt, and the wrapped engine's own prep. */
typedef struct fault_prep {
  uint32_t faults;
  void *prep;
} fault_prep;

/* The faults of the next attempt: all of them while the budget lasts (the budget is
 * counted per attempt, as a retried partition is another task for the device). */
static uint32_t take_faults(fault_dev *f) {
  if (f->count == 0) return f->inject;
  unsigned left = atomic_load(&f->left);
  while (left > 0)
    if (atomic_compare_exchange_weak(&f->left, &left, left - 1)) return f->inject;
  return 0;
}

static int fault_device_open(const sp_device_cfg *cfg, void **dev, char *err, size_t errlen) {
  (void)cfg;
  (void)dev;
  snprintf(err, errlen, "the fault engine opens its devices through sp_fault_open");
  return SEALPROV_ERR_INTERNAL;
}

static void fault_device_close(void *dev) {
  fault_dev *f = dev;
  if (f->inner->device_close != NULL) f->inner->device_close(f->dev);
  free(f);
}

static int fault_worker_bind(void *dev, unsigned worker, int *confirmed_ordinal, char *err,
                             size_t errlen) {
  fault_dev *f = dev;
  return f->inner->worker_bind(f->dev, worker, confirmed_ordinal, err, errlen);
}

static void fault_worker_unbind(void *dev, unsigned worker) {
  fault_dev *f = dev;
  if (f->inner->worker_unbind != NULL) f->inner->worker_unbind(f->dev, worker);
}

static int fault_prepare(void *dev, const sp_task *t, void **prep, char *err, size_t errlen) {
  fault_dev *f = dev;
  *prep = NULL;
  fault_prep *p = calloc(1, sizeof *p);
  if (p == NULL) {
    snprintf(err, errlen, "%s device %u [%s]: out of host memory", f->inner->name, f->index,
             f->section);
    return SEALPROV_ERR_NO_MEMORY;
  }
  p->faults = take_faults(f);
  *prep = p;
  return f->inner->prepare != NULL ? f->inner->prepare(f->dev, t, &p->prep, err, errlen)
                                   : SEALPROV_OK;
}

static int fault_execute(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                         size_t errlen) {
  fault_dev *f = dev;
  fault_prep *p = prep;
  uint32_t faults = p != NULL ? p->faults : take_faults(f);
  if (faults & SP_INJECT_FAIL_KERNEL) {
    snprintf(err, errlen, "%s device %u [%s]: injected kernel failure (job %llu partition %u)",
             f->inner->name, f->index, f->section, (unsigned long long)t->job_id, t->partition);
    return SEALPROV_ERR_DEVICE;
  }
  if ((faults & SP_INJECT_OOM) && f->inner->fault_oom != NULL) f->inner->fault_oom(f->dev, 1);
  double t0 = sp_now_ms();
  int st = f->inner->execute(f->dev, t, p != NULL ? p->prep : NULL, proof, err, errlen);
  if (faults & SP_INJECT_SLOW) {
    /* the rest of a slower card's time, the device lock held as a kernel would hold it */
    long long ns = (long long)((sp_now_ms() - t0) * (SP_INJECT_SLOW_FACTOR - 1) * 1e6);
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (nanosleep(&ts, &ts) != 0) {
    }
  }
  if (st == SEALPROV_OK && (faults & SP_INJECT_CORRUPT_PROOF))
    proof[191] ^= 0x01; /* C's last byte: the self-check must catch it */
  return st;
}

static void fault_release(void *dev, void *prep) {
  fault_dev *f = dev;
  fault_prep *p = prep;
  if (p == NULL) return;
  if (p->prep != NULL && f->inner->release != NULL) f->inner->release(f->dev, p->prep);
  free(p);
}

static void fault_srs_evict(void *dev, const struct sp_srs *srs) {
  fault_dev *f = dev;
  f->inner->srs_evict(f->dev, srs);
}

static uint64_t fault_memory_in_use(void *dev) {
  fault_dev *f = dev;
  return f->inner->memory_in_use(f->dev);
}

static uint64_t fault_host_memory_in_use(void *dev) {
  fault_dev *f = dev;
  return f->inner->host_memory_in_use(f->dev);
}

static void fault_cs_evict(void *dev, const struct sp_cs *cs) {
  fault_dev *f = dev;
  f->inner->cs_evict(f->dev, cs);
}

static uint64_t fault_transfer_bytes(void *dev) {
  fault_dev *f = dev;
  return f->inner->transfer_bytes(f->dev);
}

static void fault_device_code(void *dev, char *out, size_t len) {
  fault_dev *f = dev;
  f->inner->device_code(f->dev, out, len);
}

static void fault_capacity(void *dev, const sp_partition_shape *shape, sp_capacity *out) {
  fault_dev *f = dev;
  f->inner->capacity(f->dev, shape, out);
}

static double fault_setup_seconds(void *dev) {
  fault_dev *f = dev;
  return f->inner->setup_seconds(f->dev);
}

int sp_fault_open(const sp_engine_ops *inner, const sp_device_cfg *cfg, const sp_engine_ops **ops,
                  void **dev, char *err, size_t errlen) {
  fault_dev *f = calloc(1, sizeof *f);
  if (f == NULL) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  int st = inner->device_open(cfg, &f->dev, err, errlen);
  if (st != SEALPROV_OK) {
    free(f);
    return st;
  }
  f->inner = inner;
  f->index = cfg->index;
  snprintf(f->section, sizeof f->section, "%s", cfg->section);
  f->inject = cfg->inject;
  f->count = cfg->inject_count;
  atomic_init(&f->left, cfg->inject_count);
  f->ops = (sp_engine_ops){
      .name = inner->name,
      .device_open = fault_device_open,
      .device_close = fault_device_close,
      .worker_bind = fault_worker_bind,
      .worker_unbind = fault_worker_unbind,
      .prepare = fault_prepare,
      .execute = fault_execute,
      .release = fault_release,
      .srs_evict = inner->srs_evict != NULL ? fault_srs_evict : NULL,
      .memory_in_use = inner->memory_in_use != NULL ? fault_memory_in_use : NULL,
      .host_memory_in_use = inner->host_memory_in_use != NULL ? fault_host_memory_in_use : NULL,
      .cs_evict = inner->cs_evict != NULL ? fault_cs_evict : NULL,
      .device_code = inner->device_code != NULL ? fault_device_code : NULL,
      .transfer_bytes = inner->transfer_bytes != NULL ? fault_transfer_bytes : NULL,
      .capacity = inner->capacity != NULL ? fault_capacity : NULL,
      .setup_seconds = inner->setup_seconds != NULL ? fault_setup_seconds : NULL,
  };
  *ops = &f->ops;
  *dev = f;
  return SEALPROV_OK;
}
