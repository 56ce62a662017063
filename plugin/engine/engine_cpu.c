/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* engine_cpu.c -- the CPU engine: N virtual devices, each proving whole partitions with
 * the BLS12-381 CPU library. It is the reference the CUDA engine must match byte for
 * byte, it runs CI's scheduler tests, and it proves on hosts without GPUs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cs.h"
#include "groth16/cs_eval.h"
#include "engine/device.h"
#include "engine/engine.h"
#include "groth16/groth16.h"
#include "formats/srs.h"

typedef struct cpu_device {
  unsigned index;
  char section[64];
} cpu_device;

static int cpu_device_open(const struct sp_device_cfg *cfg, void **dev, char *err, size_t errlen) {
  cpu_device *d = calloc(1, sizeof *d);
  if (!d) {
    snprintf(err, errlen, "out of memory opening cpu device");
    return SEALPROV_ERR_NO_MEMORY;
  }
  if (cfg) {
    d->index = cfg->index;
    snprintf(d->section, sizeof d->section, "%s", cfg->section);
  }
  *dev = d;
  return SEALPROV_OK;
}

static void cpu_device_close(void *dev) { free(dev); }

static int cpu_worker_bind(void *dev, unsigned worker, int *confirmed_ordinal, char *err,
                           size_t errlen) {
  (void)dev;
  (void)worker;
  (void)err;
  (void)errlen;
  /* nothing to bind: a CPU device is a share of the host's threads */
  if (confirmed_ordinal) *confirmed_ordinal = -1;
  return SEALPROV_OK;
}

static void cpu_worker_unbind(void *dev, unsigned worker) {
  (void)dev;
  (void)worker;
}

/* The input checks, before the device (here: its share of host threads) is taken:
 * a witness that does not satisfy its constraints is the input's fault, named by
 * its first failing row, and is never charged to the device. */
static int cpu_prepare(void *dev, const sp_task *t, void **prep, char *err, size_t errlen) {
  (void)dev;
  *prep = NULL;
  if (t->cs == NULL)
    return sp_groth16_check_rows(t->asg, t->scalar_encoding, t->cpu_threads, err, errlen);
  /* A witness-only partition: a, b, c = A z, B z, C z first (owned by prep), then the
   * same row check, which names the first constraint the witness does not satisfy. */
  sp_cs_eval *e = NULL;
  int st = sp_cs_evaluate(t->cs, t->asg, t->scalar_encoding, t->cpu_threads, &e, err, errlen);
  if (st != SEALPROV_OK) return st;
  *prep = e;
  return sp_groth16_check_rows(&e->asg, t->scalar_encoding, t->cpu_threads, err, errlen);
}

static void cpu_release(void *dev, void *prep) {
  (void)dev;
  sp_cs_eval_free(prep);
}

static int cpu_execute(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                       size_t errlen) {
  cpu_device *d = dev;
  /* witness-only partitions prove the assignment prepare computed */
  const sealprov_assignment *asg = prep != NULL ? &((const sp_cs_eval *)prep)->asg : t->asg;
  if (t->cs != NULL && prep == NULL) {
    snprintf(err, errlen,
             "cpu device %u [%s]: witness-only partition %u of job %llu reached "
             "execute without prepare's a, b, c",
             d->index, d->section, t->partition, (unsigned long long)t->job_id);
    return SEALPROV_ERR_INTERNAL;
  }
  return sp_groth16_prove(t->srs, asg, t->scalar_encoding, &t->r, &t->s, t->cpu_threads, proof, err,
                          errlen);
}

const sp_engine_ops sp_engine_cpu = {
    .name = "cpu",
    .device_open = cpu_device_open,
    .device_close = cpu_device_close,
    .worker_bind = cpu_worker_bind,
    .worker_unbind = cpu_worker_unbind,
    .prepare = cpu_prepare,
    .execute = cpu_execute,
    .release = cpu_release,
    .srs_evict = NULL,
    .memory_in_use = NULL,
};

const sp_backend sp_backend_cpu = {
    .type = SP_DEVICE_CPU,
    .name = "cpu",
    .ops = &sp_engine_cpu,
};
