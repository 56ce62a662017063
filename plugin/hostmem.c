/* hostmem.c -- the module's host-memory accountant, its host-wide cap and the shared
 * chunk pool (hostmem.h). One mutex for all of it: the calls are a few per partition. */
#include "hostmem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sealprov.h"

static pthread_mutex_t hm_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hm_cv = PTHREAD_COND_INITIALIZER;
static sp_hostmem_stats hm; /* under hm_mu */

/* ---- the accountant (hm_mu held) ---------------------------------------------------- */

static void count_add(uint32_t dev, uint64_t bytes) {
  hm.total += bytes;
  if (hm.total > hm.peak) hm.peak = hm.total;
  if (dev == SP_HOSTMEM_SHARED) {
    hm.shared += bytes;
  } else if (dev < SP_HOSTMEM_DEVICES) {
    hm.dev[dev] += bytes;
    if (hm.dev[dev] > hm.dev_peak[dev]) hm.dev_peak[dev] = hm.dev[dev];
  }
}

static void count_sub(uint32_t dev, uint64_t bytes) {
  hm.total -= bytes < hm.total ? bytes : hm.total;
  if (dev == SP_HOSTMEM_SHARED)
    hm.shared -= bytes < hm.shared ? bytes : hm.shared;
  else if (dev < SP_HOSTMEM_DEVICES)
    hm.dev[dev] -= bytes < hm.dev[dev] ? bytes : hm.dev[dev];
}

static bool fits(uint64_t bytes) {
  return hm.limit == 0 || (bytes <= hm.limit && hm.total <= hm.limit - bytes);
}

void sp_hostmem_set_limit(uint64_t bytes) {
  pthread_mutex_lock(&hm_mu);
  hm.limit = bytes;
  pthread_cond_broadcast(&hm_cv); /* a raised cap may let a waiting taker allocate */
  pthread_mutex_unlock(&hm_mu);
}

uint64_t sp_hostmem_limit(void) {
  pthread_mutex_lock(&hm_mu);
  uint64_t v = hm.limit;
  pthread_mutex_unlock(&hm_mu);
  return v;
}

bool sp_hostmem_try_reserve(uint32_t dev, uint64_t bytes) {
  pthread_mutex_lock(&hm_mu);
  bool ok = fits(bytes);
  if (ok)
    count_add(dev, bytes);
  else
    hm.refusals++;
  pthread_mutex_unlock(&hm_mu);
  return ok;
}

void sp_hostmem_add(uint32_t dev, uint64_t bytes) {
  pthread_mutex_lock(&hm_mu);
  count_add(dev, bytes);
  pthread_mutex_unlock(&hm_mu);
}

void sp_hostmem_release(uint32_t dev, uint64_t bytes) {
  pthread_mutex_lock(&hm_mu);
  count_sub(dev, bytes);
  pthread_cond_broadcast(&hm_cv);
  pthread_mutex_unlock(&hm_mu);
}

void sp_hostmem_get(sp_hostmem_stats *out) {
  pthread_mutex_lock(&hm_mu);
  *out = hm;
  pthread_mutex_unlock(&hm_mu);
}

void sp_hostmem_reset_peak(void) {
  pthread_mutex_lock(&hm_mu);
  hm.peak = hm.total;
  memcpy(hm.dev_peak, hm.dev, sizeof hm.dev_peak);
  pthread_mutex_unlock(&hm_mu);
}

/* ---- the chunk pool --------------------------------------------------------------- */

#define POOL_MAX_CHUNKS 1024 /* 128 GiB of 128 MiB chunks: a sanity bound, not a policy */

struct sp_chunk_pool {
  size_t chunk_bytes;
  sp_chunk_alloc_fn alloc;
  sp_chunk_free_fn free_fn;
  void *idle[POOL_MAX_CHUNKS];
  unsigned nidle, nchunks, held, waiting;
};

int sp_chunk_pool_create(size_t chunk_bytes, sp_chunk_alloc_fn alloc, sp_chunk_free_fn free_fn,
                         sp_chunk_pool **out) {
  *out = NULL;
  if (chunk_bytes == 0 || !alloc || !free_fn) return SEALPROV_ERR_INVALID_ARGUMENT;
  sp_chunk_pool *p = calloc(1, sizeof *p);
  if (!p) return SEALPROV_ERR_NO_MEMORY;
  p->chunk_bytes = chunk_bytes;
  p->alloc = alloc;
  p->free_fn = free_fn;
  *out = p;
  return SEALPROV_OK;
}

size_t sp_chunk_pool_chunk_bytes(const sp_chunk_pool *p) { return p->chunk_bytes; }

uint64_t sp_chunk_pool_trim(sp_chunk_pool *p, void *user) {
  void *gone[POOL_MAX_CHUNKS];
  pthread_mutex_lock(&hm_mu);
  unsigned n = p->nidle;
  memcpy(gone, p->idle, n * sizeof *gone);
  p->nidle = 0;
  p->nchunks -= n;
  count_sub(SP_HOSTMEM_SHARED, (uint64_t)n * p->chunk_bytes);
  pthread_cond_broadcast(&hm_cv); /* room under the cap for other memory */
  pthread_mutex_unlock(&hm_mu);
  for (unsigned i = 0; i < n; i++) p->free_fn(gone[i], user);
  return (uint64_t)n * p->chunk_bytes;
}

void sp_chunk_pool_destroy(sp_chunk_pool *p, void *user) {
  if (!p) return;
  (void)sp_chunk_pool_trim(p, user);
  free(p);
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
  bool w = false;
  double t0 = 0;
  unsigned n = 0;
  const uint64_t cb = p->chunk_bytes;
  pthread_mutex_lock(&hm_mu);
  for (;;) {
    while (n < want && p->nidle > 0) {
      chunks[n++] = p->idle[--p->nidle];
      p->held++;
      count_sub(SP_HOSTMEM_SHARED, cb);
      count_add(dev, cb);
    }
    bool alloc_failed = false;
    while (n < want && p->nchunks < POOL_MAX_CHUNKS && fits(cb)) {
      /* reserved while allocating (outside the lock: page-locking takes a while) */
      count_add(dev, cb);
      p->nchunks++;
      p->held++;
      pthread_mutex_unlock(&hm_mu);
      void *c = p->alloc(cb, user);
      pthread_mutex_lock(&hm_mu);
      if (!c) {
        count_sub(dev, cb);
        p->nchunks--;
        p->held--;
        pthread_cond_broadcast(&hm_cv);
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
      hm.waits++;
    }
    p->waiting++;
    pthread_cond_wait(&hm_cv, &hm_mu);
    p->waiting--;
  }
  if (w) hm.wait_s += mono_s() - t0;
  pthread_mutex_unlock(&hm_mu);
  if (waited) *waited = w;
  return n;
}

void sp_chunk_pool_give(sp_chunk_pool *p, uint32_t dev, unsigned n, void *const *chunks) {
  pthread_mutex_lock(&hm_mu);
  for (unsigned i = 0; i < n; i++) {
    if (!chunks[i]) continue;
    p->idle[p->nidle++] = chunks[i];
    p->held--;
    count_sub(dev, p->chunk_bytes);
    count_add(SP_HOSTMEM_SHARED, p->chunk_bytes);
  }
  pthread_cond_broadcast(&hm_cv);
  pthread_mutex_unlock(&hm_mu);
}

void sp_chunk_pool_get(const sp_chunk_pool *p, sp_chunk_pool_stats *out) {
  pthread_mutex_lock(&hm_mu);
  out->chunks = p->nchunks;
  out->idle = p->nidle;
  out->held = p->held;
  out->waiting = p->waiting;
  pthread_mutex_unlock(&hm_mu);
}
