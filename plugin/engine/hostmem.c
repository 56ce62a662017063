/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* hostmem.c -- a provider's host-memory accountant, its cap and its chunk pools
 * (hostmem.h). One mutex per accountant guards it and its pools: the calls are a few
 * per partition. */
#include "engine/hostmem.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "sealprov.h"

struct sp_hostmem {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* a chunk came back, the cap rose, memory was released */
  sp_hostmem_stats st;
  /* the provider's staging pool (sp_hostmem_pool_hold) */
  sp_chunk_pool *pool;
  unsigned pool_holders;
};

#define POOL_MAX_CHUNKS 1024 /* 128 GiB of 128 MiB chunks: a sanity bound, not a policy */

struct sp_chunk_pool {
  sp_hostmem *hm;
  size_t chunk_bytes;
  sp_chunk_alloc_fn alloc;
  sp_chunk_free_fn free_fn;
  void *idle[POOL_MAX_CHUNKS];
  unsigned nidle, nchunks, held, waiting;
};

int sp_hostmem_create(uint64_t limit, sp_hostmem **out) {
  *out = NULL;
  sp_hostmem *hm = calloc(1, sizeof *hm);
  if (hm == NULL) return SEALPROV_ERR_NO_MEMORY;
  pthread_mutex_init(&hm->mu, NULL);
  pthread_cond_init(&hm->cv, NULL);
  hm->st.limit = limit;
  *out = hm;
  return SEALPROV_OK;
}

void sp_hostmem_destroy(sp_hostmem *hm) {
  if (hm == NULL) return;
  if (hm->pool != NULL) {
    /* A holder never dropped it: its chunks may still be in use, and only a holder can
     * free them (pinned memory needs its device). Keep both rather than free memory
     * someone may still touch. */
    sp_log(SEALPROV_LOG_ERROR,
           "internal: host-memory accountant released with its chunk pool "
           "still held by %u device(s): both are kept",
           hm->pool_holders);
    return;
  }
  if (hm->st.total != 0)
    sp_log(SEALPROV_LOG_ERROR,
           "internal: host-memory accountant freed with %" PRIu64
           " bytes still counted (a missing release)",
           hm->st.total);
  pthread_mutex_destroy(&hm->mu);
  pthread_cond_destroy(&hm->cv);
  free(hm);
}

/* ---- the accountant (hm->mu held) ---------------------------------------------------- */

static void count_add(sp_hostmem *hm, uint32_t dev, uint64_t bytes) {
  sp_hostmem_stats *s = &hm->st;
  s->total += bytes;
  if (s->total > s->peak) s->peak = s->total;
  if (dev == SP_HOSTMEM_SHARED) {
    s->shared += bytes;
  } else if (dev < SP_HOSTMEM_DEVICES) {
    s->dev[dev] += bytes;
    if (s->dev[dev] > s->dev_peak[dev]) s->dev_peak[dev] = s->dev[dev];
  }
}

/* Subtracts bytes from *v; false (and *v = 0) when *v held less: a double release. */
static bool sub_checked(uint64_t *v, uint64_t bytes) {
  if (bytes <= *v) {
    *v -= bytes;
    return true;
  }
  *v = 0;
  return false;
}

/* Returns false on a release of more than was held (counted in release_errors; the
 * caller logs it once it has dropped the lock). */
static bool count_sub(sp_hostmem *hm, uint32_t dev, uint64_t bytes) {
  sp_hostmem_stats *s = &hm->st;
  bool ok = sub_checked(&s->total, bytes);
  if (dev == SP_HOSTMEM_SHARED)
    ok = sub_checked(&s->shared, bytes) && ok;
  else if (dev < SP_HOSTMEM_DEVICES)
    ok = sub_checked(&s->dev[dev], bytes) && ok;
  if (!ok) s->release_errors++;
  return ok;
}

static void log_release_error(uint32_t dev, uint64_t bytes) {
  if (dev == SP_HOSTMEM_SHARED)
    sp_log(SEALPROV_LOG_ERROR,
           "internal: %" PRIu64
           " bytes of idle staging chunks released, more than were counted "
           "(a double release)",
           bytes);
  else
    sp_log(SEALPROV_LOG_ERROR,
           "internal: %" PRIu64 " bytes of host memory released for device %" PRIu32
           ", more than were counted for it (a double release)",
           bytes, dev);
}

static bool fits(const sp_hostmem *hm, uint64_t bytes) {
  uint64_t limit = hm->st.limit;
  return limit == 0 || (bytes <= limit && hm->st.total <= limit - bytes);
}

void sp_hostmem_set_limit(sp_hostmem *hm, uint64_t bytes) {
  pthread_mutex_lock(&hm->mu);
  hm->st.limit = bytes;
  pthread_cond_broadcast(&hm->cv); /* a raised cap may let a waiting taker allocate */
  pthread_mutex_unlock(&hm->mu);
}

uint64_t sp_hostmem_limit(sp_hostmem *hm) {
  pthread_mutex_lock(&hm->mu);
  uint64_t v = hm->st.limit;
  pthread_mutex_unlock(&hm->mu);
  return v;
}

bool sp_hostmem_try_reserve(sp_hostmem *hm, uint32_t dev, uint64_t bytes) {
  pthread_mutex_lock(&hm->mu);
  bool ok = fits(hm, bytes);
  if (ok)
    count_add(hm, dev, bytes);
  else
    hm->st.refusals++;
  pthread_mutex_unlock(&hm->mu);
  return ok;
}

void sp_hostmem_add(sp_hostmem *hm, uint32_t dev, uint64_t bytes) {
  pthread_mutex_lock(&hm->mu);
  count_add(hm, dev, bytes);
  pthread_mutex_unlock(&hm->mu);
}

void sp_hostmem_release(sp_hostmem *hm, uint32_t dev, uint64_t bytes) {
  pthread_mutex_lock(&hm->mu);
  bool ok = count_sub(hm, dev, bytes);
  pthread_cond_broadcast(&hm->cv);
  pthread_mutex_unlock(&hm->mu);
  if (!ok) log_release_error(dev, bytes);
}

void sp_hostmem_get(sp_hostmem *hm, sp_hostmem_stats *out) {
  pthread_mutex_lock(&hm->mu);
  *out = hm->st;
  pthread_mutex_unlock(&hm->mu);
}

void sp_hostmem_reset_peak(sp_hostmem *hm) {
  pthread_mutex_lock(&hm->mu);
  hm->st.peak = hm->st.total;
  memcpy(hm->st.dev_peak, hm->st.dev, sizeof hm->st.dev_peak);
  pthread_mutex_unlock(&hm->mu);
}

/* ---- chunk pools --------------------------------------------------------------------- */

int sp_chunk_pool_create(sp_hostmem *hm, size_t chunk_bytes, sp_chunk_alloc_fn alloc,
                         sp_chunk_free_fn free_fn, sp_chunk_pool **out) {
  *out = NULL;
  if (hm == NULL || chunk_bytes == 0 || !alloc || !free_fn) return SEALPROV_ERR_INVALID_ARGUMENT;
  sp_chunk_pool *p = calloc(1, sizeof *p);
  if (!p) return SEALPROV_ERR_NO_MEMORY;
  p->hm = hm;
  p->chunk_bytes = chunk_bytes;
  p->alloc = alloc;
  p->free_fn = free_fn;
  *out = p;
  return SEALPROV_OK;
}

size_t sp_chunk_pool_chunk_bytes(const sp_chunk_pool *p) { return p->chunk_bytes; }

uint64_t sp_chunk_pool_trim(sp_chunk_pool *p, void *user) {
  void *gone[POOL_MAX_CHUNKS];
  sp_hostmem *hm = p->hm;
  pthread_mutex_lock(&hm->mu);
  unsigned n = p->nidle;
  memcpy(gone, p->idle, n * sizeof *gone);
  p->nidle = 0;
  p->nchunks -= n;
  bool ok = count_sub(hm, SP_HOSTMEM_SHARED, (uint64_t)n * p->chunk_bytes);
  pthread_cond_broadcast(&hm->cv); /* room under the cap for other memory */
  pthread_mutex_unlock(&hm->mu);
  if (!ok) log_release_error(SP_HOSTMEM_SHARED, (uint64_t)n * p->chunk_bytes);
  for (unsigned i = 0; i < n; i++) p->free_fn(gone[i], user);
  return (uint64_t)n * p->chunk_bytes;
}

void sp_chunk_pool_destroy(sp_chunk_pool *p, void *user) {
  if (!p) return;
  (void)sp_chunk_pool_trim(p, user);
  free(p);
}

sp_chunk_pool *sp_hostmem_pool_hold(sp_hostmem *hm, size_t chunk_bytes, sp_chunk_alloc_fn alloc,
                                    sp_chunk_free_fn free_fn) {
  pthread_mutex_lock(&hm->mu);
  if (hm->pool == NULL && hm->pool_holders == 0) {
    sp_chunk_pool *p = NULL;
    /* hm->mu is not taken by create: it only allocates */
    if (sp_chunk_pool_create(hm, chunk_bytes, alloc, free_fn, &p) == SEALPROV_OK) hm->pool = p;
  }
  hm->pool_holders++;
  sp_chunk_pool *p = hm->pool;
  pthread_mutex_unlock(&hm->mu);
  return p;
}

void sp_hostmem_pool_drop(sp_hostmem *hm, void *user) {
  sp_chunk_pool *gone = NULL;
  pthread_mutex_lock(&hm->mu);
  if (hm->pool_holders > 0 && --hm->pool_holders == 0) {
    gone = hm->pool;
    hm->pool = NULL;
  }
  pthread_mutex_unlock(&hm->mu);
  sp_chunk_pool_destroy(gone, user);
}

sp_chunk_pool *sp_hostmem_pool(sp_hostmem *hm) {
  pthread_mutex_lock(&hm->mu);
  sp_chunk_pool *p = hm->pool;
  pthread_mutex_unlock(&hm->mu);
  return p;
}

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

unsigned sp_chunk_pool_take(sp_chunk_pool *p, uint32_t dev, unsigned want, void **chunks,
                            void *user, bool *waited) {
  if (want > 16) want = 16;
  if (want == 0) want = 1;
  sp_hostmem *hm = p->hm;
  bool w = false;
  double t0 = 0;
  unsigned n = 0;
  const uint64_t cb = p->chunk_bytes;
  pthread_mutex_lock(&hm->mu);
  for (;;) {
    while (n < want && p->nidle > 0) {
      chunks[n++] = p->idle[--p->nidle];
      p->held++;
      (void)count_sub(hm, SP_HOSTMEM_SHARED, cb); /* an idle chunk is always counted */
      count_add(hm, dev, cb);
    }
    bool alloc_failed = false;
    while (n < want && p->nchunks < POOL_MAX_CHUNKS && fits(hm, cb)) {
      /* reserved while allocating (outside the lock: page-locking takes a while) */
      count_add(hm, dev, cb);
      p->nchunks++;
      p->held++;
      pthread_mutex_unlock(&hm->mu);
      void *c = p->alloc(cb, user);
      pthread_mutex_lock(&hm->mu);
      if (!c) {
        (void)count_sub(hm, dev, cb); /* what was just added */
        p->nchunks--;
        p->held--;
        pthread_cond_broadcast(&hm->cv);
        alloc_failed = true;
        break;
      }
      chunks[n++] = c;
    }
    if (n > 0 || alloc_failed || p->held == 0) break;
    /* nothing free, no room, and others hold chunks that come back when their
     * partition is staged: wait for one */
    if (!w) {
      w = true;
      t0 = mono_s();
      hm->st.waits++;
    }
    p->waiting++;
    pthread_cond_wait(&hm->cv, &hm->mu);
    p->waiting--;
  }
  if (w) hm->st.wait_s += mono_s() - t0;
  pthread_mutex_unlock(&hm->mu);
  if (waited) *waited = w;
  return n;
}

void sp_chunk_pool_give(sp_chunk_pool *p, uint32_t dev, unsigned n, void *const *chunks) {
  sp_hostmem *hm = p->hm;
  bool ok = true;
  uint64_t bad = 0;
  pthread_mutex_lock(&hm->mu);
  for (unsigned i = 0; i < n; i++) {
    if (!chunks[i]) continue;
    p->idle[p->nidle++] = chunks[i];
    p->held--;
    if (!count_sub(hm, dev, p->chunk_bytes)) {
      ok = false;
      bad += p->chunk_bytes;
    }
    count_add(hm, SP_HOSTMEM_SHARED, p->chunk_bytes);
  }
  pthread_cond_broadcast(&hm->cv);
  pthread_mutex_unlock(&hm->mu);
  if (!ok) log_release_error(dev, bad);
}

void sp_chunk_pool_get(const sp_chunk_pool *p, sp_chunk_pool_stats *out) {
  sp_hostmem *hm = p->hm;
  pthread_mutex_lock(&hm->mu);
  out->chunks = p->nchunks;
  out->idle = p->nidle;
  out->held = p->held;
  out->waiting = p->waiting;
  pthread_mutex_unlock(&hm->mu);
}
