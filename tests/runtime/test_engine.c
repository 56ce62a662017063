/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_engine.c -- the recording engine of test_engine.h. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "test_engine.h"

te_control te = {
    .gate_mu = PTHREAD_MUTEX_INITIALIZER,
    .gate_cv = PTHREAD_COND_INITIALIZER,
    .rec_mu = PTHREAD_MUTEX_INITIALIZER,
};

typedef struct te_dev {
  unsigned index;
  sp_device_type type;
  int ordinal;
} te_dev;

typedef struct te_prep {
  uint32_t partition;
  uint64_t job;
} te_prep;

/* The device this thread bound to (NULL before worker_bind): proves that every call
 * on a device runs on one of its own bound workers. */
static _Thread_local const te_dev *tl_bound;

static void sleep_us(unsigned us) {
  if (us == 0) return;
  struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

void te_reset(void) {
  for (unsigned i = 0; i < SP_MAX_DEVICES; i++) {
    atomic_store(&te.mode[i], TE_OK);
    atomic_store(&te.fail_left[i], -1);
    atomic_store(&te.in_execute[i], 0);
    atomic_store(&te.max_in_execute[i], 0);
    atomic_store(&te.device_us[i], 0);
    atomic_store(&te.memory[i], 0);
  }
  atomic_store(&te.execute_us, 0);
  atomic_store(&te.prepare_us, 0);
  atomic_store(&te.violations, 0);
  atomic_store(&te.order, 0);
  atomic_store(&te.opens, 0);
  atomic_store(&te.closes, 0);
  atomic_store(&te.binds, 0);
  atomic_store(&te.unbinds, 0);
  atomic_store(&te.prepares, 0);
  atomic_store(&te.releases, 0);
  atomic_store(&te.executes, 0);
  atomic_store(&te.srs_evicts, 0);
  for (unsigned i = 0; i < TE_MAX_BAD; i++) atomic_store(&te.bad_witness[i], NULL);
  pthread_mutex_lock(&te.gate_mu);
  te.gate_closed = false;
  te.gate_waiting = 0;
  pthread_mutex_unlock(&te.gate_mu);
  pthread_mutex_lock(&te.rec_mu);
  te.nrec = 0;
  pthread_mutex_unlock(&te.rec_mu);
}

void te_set_mode(unsigned device, enum te_mode mode, int count) {
  atomic_store(&te.fail_left[device], count);
  atomic_store(&te.mode[device], (int)mode);
}

void te_gate_close(void) {
  pthread_mutex_lock(&te.gate_mu);
  te.gate_closed = true;
  pthread_mutex_unlock(&te.gate_mu);
}

void te_gate_open(void) {
  pthread_mutex_lock(&te.gate_mu);
  te.gate_closed = false;
  pthread_cond_broadcast(&te.gate_cv);
  pthread_mutex_unlock(&te.gate_mu);
}

bool te_gate_wait_blocked(unsigned n) {
  for (int i = 0; i < 10000; i++) {
    pthread_mutex_lock(&te.gate_mu);
    unsigned w = te.gate_waiting;
    pthread_mutex_unlock(&te.gate_mu);
    if (w >= n) return true;
    sleep_us(1000);
  }
  return false;
}

void te_expected_proof(const sealprov_assignment *asg, uint8_t out[192]) {
  uint64_t x = (uint64_t)(uintptr_t)asg * UINT64_C(0x9e3779b97f4a7c15) + 1;
  for (unsigned i = 0; i < 192; i++) {
    x ^= x >> 29;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    out[i] = (uint8_t)(x >> 56);
  }
}

int te_verify(const sp_srs *srs, const sealprov_assignment *asg, uint32_t enc,
              const uint8_t proof[192], bool *valid, char *err, size_t errlen) {
  (void)srs;
  (void)enc;
  uint8_t want[192];
  te_expected_proof(asg, want);
  *valid = memcmp(want, proof, 192) == 0;
  for (unsigned i = 0; i < TE_MAX_BAD; i++)
    if (atomic_load(&te.bad_witness[i]) == asg) *valid = false;
  if (!*valid) snprintf(err, errlen, "test proof mismatch");
  return SEALPROV_OK;
}

void te_clear_bad_witnesses(void) {
  for (unsigned i = 0; i < TE_MAX_BAD; i++) atomic_store(&te.bad_witness[i], NULL);
}

void te_mark_bad_witness(const sealprov_assignment *asg) {
  for (unsigned i = 0; i < TE_MAX_BAD; i++) {
    const sealprov_assignment *none = NULL;
    if (atomic_compare_exchange_strong(&te.bad_witness[i], &none, asg)) return;
  }
}

int te_violations(void) { return atomic_load(&te.violations); }

unsigned te_records_of(uint64_t job, te_record *out, unsigned cap) {
  unsigned n = 0;
  pthread_mutex_lock(&te.rec_mu);
  for (unsigned i = 0; i < te.nrec && n < cap; i++)
    if (te.rec[i].job == job) out[n++] = te.rec[i];
  pthread_mutex_unlock(&te.rec_mu);
  return n;
}

/* Consumes one failure of the device's mode; TE_OK when the budget is spent. */
static int take_mode(unsigned d) {
  int mode = atomic_load(&te.mode[d]);
  if (mode == TE_OK) return TE_OK;
  int left = atomic_load(&te.fail_left[d]);
  while (left > 0) {
    if (atomic_compare_exchange_weak(&te.fail_left[d], &left, left - 1)) return mode;
  }
  return left < 0 ? mode : TE_OK;
}

static int te_device_open(const sp_device_cfg *cfg, void **dev, char *err, size_t errlen) {
  if (atomic_load(&te.mode[cfg->index]) == TE_FAIL_OPEN) {
    snprintf(err, errlen, "injected open failure");
    return SEALPROV_ERR_DEVICE;
  }
  te_dev *d = calloc(1, sizeof *d);
  if (d == NULL) return SEALPROV_ERR_NO_MEMORY;
  d->index = cfg->index;
  d->type = cfg->type;
  d->ordinal = cfg->ordinal;
  atomic_fetch_add(&te.opens, 1);
  *dev = d;
  return SEALPROV_OK;
}

static void te_device_close(void *dev) {
  atomic_fetch_add(&te.closes, 1);
  free(dev);
}

static int te_worker_bind(void *dev, unsigned worker, int *confirmed, char *err, size_t errlen) {
  te_dev *d = dev;
  int mode = atomic_load(&te.mode[d->index]);
  if (mode == TE_FAIL_BIND && worker == 0) {
    snprintf(err, errlen, "injected bind failure");
    return SEALPROV_ERR_DEVICE;
  }
  if (tl_bound != NULL) atomic_fetch_add(&te.violations, 1); /* bound twice */
  tl_bound = d;
  *confirmed =
      d->type == SP_DEVICE_CUDA ? d->ordinal + (mode == TE_WRONG_ORDINAL && worker == 1) : -1;
  atomic_fetch_add(&te.binds, 1);
  return SEALPROV_OK;
}

static void te_worker_unbind(void *dev, unsigned worker) {
  (void)worker;
  if (tl_bound != dev) atomic_fetch_add(&te.violations, 1);
  tl_bound = NULL;
  atomic_fetch_add(&te.unbinds, 1);
}

static int te_prepare(void *dev, const sp_task *t, void **prep, char *err, size_t errlen) {
  te_dev *d = dev;
  if (tl_bound != d) atomic_fetch_add(&te.violations, 1);
  atomic_fetch_add(&te.prepares, 1);
  if (atomic_load(&te.mode[d->index]) == TE_FAIL_INPUT) {
    snprintf(err, errlen, "injected bad input");
    return SEALPROV_ERR_ASSIGNMENT;
  }
  sleep_us(atomic_load(&te.prepare_us));
  te_prep *p = malloc(sizeof *p);
  if (p == NULL) return SEALPROV_ERR_NO_MEMORY;
  p->partition = t->partition;
  p->job = t->job_id;
  *prep = p;
  return SEALPROV_OK;
}

static void te_release(void *dev, void *prep) {
  (void)dev;
  atomic_fetch_add(&te.releases, 1);
  free(prep);
}

static int te_execute(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                      size_t errlen) {
  te_dev *d = dev;
  const te_prep *p = prep;
  if (tl_bound != d || p == NULL || p->partition != t->partition || p->job != t->job_id)
    atomic_fetch_add(&te.violations, 1);
  int inside = atomic_fetch_add(&te.in_execute[d->index], 1) + 1;
  int seen = atomic_load(&te.max_in_execute[d->index]);
  while (inside > seen &&
         !atomic_compare_exchange_weak(&te.max_in_execute[d->index], &seen, inside)) {
  }
  if (inside > 1) atomic_fetch_add(&te.violations, 1);
  atomic_fetch_add(&te.executes, 1);

  pthread_mutex_lock(&te.gate_mu);
  if (te.gate_closed) {
    te.gate_waiting++;
    while (te.gate_closed) pthread_cond_wait(&te.gate_cv, &te.gate_mu);
    te.gate_waiting--;
  }
  pthread_mutex_unlock(&te.gate_mu);
  sleep_us(atomic_load(&te.execute_us) + atomic_load(&te.device_us[d->index]));

  int st = SEALPROV_OK;
  te_expected_proof(t->asg, proof);
  int mode = take_mode(d->index);
  if (mode == TE_FAIL_DEVICE) {
    snprintf(err, errlen, "injected kernel failure on test device %u", d->index);
    st = SEALPROV_ERR_DEVICE;
  } else if (mode == TE_FAIL_MEMORY) {
    snprintf(err, errlen, "injected out of memory on test device %u", d->index);
    st = SEALPROV_ERR_DEVICE_MEMORY;
  } else if (mode == TE_CORRUPT) {
    proof[17] ^= 0x40;
  }

  pthread_mutex_lock(&te.rec_mu);
  if (te.nrec < TE_MAX_RECORDS) {
    te_record *r = &te.rec[te.nrec++];
    r->job = t->job_id;
    r->partition = t->partition;
    r->device = (int)d->index;
    r->bound_device = tl_bound ? (int)tl_bound->index : -1;
    r->order = atomic_fetch_add(&te.order, 1);
    r->failed = st != SEALPROV_OK;
    r->r = t->r;
    r->s = t->s;
  }
  pthread_mutex_unlock(&te.rec_mu);
  atomic_fetch_sub(&te.in_execute[d->index], 1);
  return st;
}

static uint64_t te_memory_in_use(void *dev) {
  const te_dev *d = dev;
  return 1000u + d->index; /* a recognisable per-device figure for the stats test */
}

/* Counts evictions; called under the device lock, like every engine's. */
static void te_srs_evict(void *dev, const struct sp_srs *srs) {
  (void)dev;
  (void)srs;
  atomic_fetch_add(&te.srs_evicts, 1);
}

static void te_capacity(void *dev, const sp_partition_shape *shape, sp_capacity *out) {
  const te_dev *d = dev;
  uint64_t mem = atomic_load(&te.memory[d->index]);
  memset(out, 0, sizeof *out);
  out->available = mem ? mem : SP_CAPACITY_UNBOUNDED;
  out->by_limit = mem != 0; /* as a memory_limit */
  out->resident = out->streamed = (uint64_t)TE_BYTES_PER_POINT << shape->log_domain;
}

const sp_engine_ops te_engine = {
    .name = "test",
    .device_open = te_device_open,
    .device_close = te_device_close,
    .worker_bind = te_worker_bind,
    .worker_unbind = te_worker_unbind,
    .prepare = te_prepare,
    .execute = te_execute,
    .release = te_release,
    .srs_evict = te_srs_evict,
    .memory_in_use = te_memory_in_use,
    .capacity = te_capacity,
};

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[1 << 16];

void te_log_append(void *user, int level, const char *msg) {
  (void)user;
  (void)level;
  pthread_mutex_lock(&log_mu);
  size_t n = strlen(log_text);
  if (n + strlen(msg) + 2 < sizeof log_text) {
    strcat(log_text, msg);
    strcat(log_text, "\n");
  }
  pthread_mutex_unlock(&log_mu);
}

void te_log_clear(void) {
  pthread_mutex_lock(&log_mu);
  log_text[0] = '\0';
  pthread_mutex_unlock(&log_mu);
}

void te_log_capture(void) {
  te_log_clear();
  sealprov_host h = {sizeof h, SEALPROV_LOG_DEBUG, te_log_append, NULL};
  sp_log_set_host(&h);
}

bool te_log_has(const char *needle) {
  pthread_mutex_lock(&log_mu);
  bool r = strstr(log_text, needle) != NULL;
  pthread_mutex_unlock(&log_mu);
  return r;
}
