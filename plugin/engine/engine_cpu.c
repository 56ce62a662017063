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
  uint64_t memory_limit; /* the section's memory_limit: the memory it may prove in */
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
    d->memory_limit = cfg->memory_limit;
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

/* The memory sp_groth16_prove holds at its two peaks (groth16/prove.c): the H step's
 * a, b and c (32 bytes a scalar each, domain-sized) with the NTT's twiddles (half a
 * domain), then the L, A and B step's inputs, aux and the A and B scalars with the
 * split's bitmaps. Not counted: the MSMs' buckets (a few MiB per thread). The points
 * are the parameter set's host copy, shared by every device, so resident and streamed
 * are the same. A CPU device proves in host memory: it is bounded only by the
 * section's memory_limit, which lets tests and CI stand CPU devices in for small GPUs. */
static void cpu_capacity(void *dev, const sp_partition_shape *sh, sp_capacity *out) {
  const cpu_device *d = dev;
  const uint64_t m = UINT64_C(1) << sh->log_domain;
  const uint64_t h_step = 3 * 32 * m + 16 * m;
  const uint64_t scalars = sh->inp_size + sh->aux_size + sh->a_len + sh->b_g1_len;
  const uint64_t lab_step = 32 * scalars + (sh->aux_size + sh->a_len + sh->b_g1_len) / 8;
  memset(out, 0, sizeof *out);
  out->available = d->memory_limit ? d->memory_limit : SP_CAPACITY_UNBOUNDED;
  out->by_limit = d->memory_limit != 0;
  out->resident = out->streamed = h_step > lab_step ? h_step : lab_step;
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
    .capacity = cpu_capacity,
};

const sp_backend sp_backend_cpu = {
    .type = SP_DEVICE_CPU,
    .name = "cpu",
    .ops = &sp_engine_cpu,
};
