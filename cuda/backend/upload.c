/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* upload.c -- every host -> device copy of an execute (engine_internal.h, "uploads"):
 * the partition's vectors and the parameter points of a streamed set. A thread of the
 * execute's own (bound to the device for its life) takes the copies in the order they
 * were queued and sends them on a transfer stream of the device (sp_gpu_xfer): sources
 * that are page-locked or on the device go by DMA as they are; the host's pageable
 * memory goes through a bounded ring of page-locked chunks of the provider's pool
 * (hostmem.h), which a team of copy threads fills while the previous chunks travel. So
 * nothing is ever page-locked whole (a 2^27 parameter set is 47 GB; its partitions
 * 16.6 GB), the module's host memory for uploads is the ring's chunks, and the thread
 * that runs the kernels never waits in a memcpy.
 *
 * Ordering: a copy into a device buffer that was used before waits (on the transfer
 * stream) for an event the caller recorded on the compute stream after that use; the
 * compute stream waits for an event recorded after the copy (cuda_up_wait) before it
 * reads the buffer. The events of finished copies are reused once the caller has
 * waited for them; nothing is reused earlier. */
#include <config.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/engine_internal.h" /* first: sp_gpu.h before <math.h> */
#include "base/util.h"

#define UP_QUEUE 16
/* Pieces the copy team takes one at a time: small enough that 8 threads finish a
 * 128 MiB chunk together, large enough that taking one costs nothing. */
#define UP_PIECE ((size_t)2 << 20)
#define UP_TEAM_MAX 64

typedef struct up_req {
  void *dst;
  const void *src;
  size_t bytes;
  int kind;
  sp_gpu_event *after;
} up_req;

/* The copy team: one job (dst, src, len) at a time, taken in UP_PIECE pieces by the
 * filler thread and the team's threads alike. */
typedef struct up_team {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  uint64_t gen; /* job number: a thread works on each job once */
  uint8_t *dst;
  const uint8_t *src;
  size_t len, pieces;
  atomic_size_t next;
  unsigned active; /* team threads still on the job */
  bool quit;
  unsigned nthreads;
  pthread_t th[UP_TEAM_MAX];
} up_team;

struct cuda_up {
  cuda_dev *d;
  sp_gpu_xfer *x;
  void *ch[SP_XFER_SLOTS];
  unsigned nch;
  size_t cb;
  uint64_t sub; /* chunks sent so far: chunk slot = sub % nch */
  pthread_t filler;
  bool filler_started, ring_made;
  unsigned threads;
  up_team team;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  up_req q[UP_QUEUE];
  uint64_t pushed, taken, issued, consumed;
  bool closing, failed;
  int st;
  char err[256];
  uint64_t pcie_bytes;
  double copy_ms; /* filler time in host copies (all threads together count once) */
};

static void team_run_pieces(up_team *t) {
  for (;;) {
    size_t k = atomic_fetch_add(&t->next, 1);
    if (k >= t->pieces) return;
    size_t off = k * UP_PIECE, n = t->len - off < UP_PIECE ? t->len - off : UP_PIECE;
    memcpy(t->dst + off, t->src + off, n);
  }
}

static void *team_main(void *arg) {
  up_team *t = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&t->mu);
  for (;;) {
    while (!t->quit && t->gen == seen) pthread_cond_wait(&t->go, &t->mu);
    if (t->quit) break;
    seen = t->gen;
    pthread_mutex_unlock(&t->mu);
    team_run_pieces(t);
    pthread_mutex_lock(&t->mu);
    if (--t->active == 0) pthread_cond_broadcast(&t->done);
  }
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

/* Copies len bytes with the team and the calling thread; returns when all are done. */
static void team_copy(up_team *t, void *dst, const void *src, size_t len) {
  if (t->nthreads == 0 || len <= UP_PIECE) {
    memcpy(dst, src, len);
    return;
  }
  pthread_mutex_lock(&t->mu);
  t->dst = dst;
  t->src = src;
  t->len = len;
  t->pieces = (len + UP_PIECE - 1) / UP_PIECE;
  atomic_store(&t->next, 0);
  t->active = t->nthreads;
  t->gen++;
  pthread_cond_broadcast(&t->go);
  pthread_mutex_unlock(&t->mu);
  team_run_pieces(t);
  pthread_mutex_lock(&t->mu);
  while (t->active > 0) pthread_cond_wait(&t->done, &t->mu);
  pthread_mutex_unlock(&t->mu);
}

static void team_start(up_team *t, unsigned helpers) {
  pthread_mutex_init(&t->mu, NULL);
  pthread_cond_init(&t->go, NULL);
  pthread_cond_init(&t->done, NULL);
  t->nthreads = 0;
  if (helpers > UP_TEAM_MAX) helpers = UP_TEAM_MAX;
  /* a thread that cannot be started leaves its pieces to the others */
  for (unsigned i = 0; i < helpers; i++)
    if (pthread_create(&t->th[t->nthreads], NULL, team_main, t) == 0) t->nthreads++;
}

static void team_stop(up_team *t) {
  pthread_mutex_lock(&t->mu);
  t->quit = true;
  pthread_cond_broadcast(&t->go);
  pthread_mutex_unlock(&t->mu);
  for (unsigned i = 0; i < t->nthreads; i++) pthread_join(t->th[i], NULL);
  pthread_mutex_destroy(&t->mu);
  pthread_cond_destroy(&t->go);
  pthread_cond_destroy(&t->done);
}

/* The ring's chunks and the copy team, at the first copy from pageable memory (a
 * partition staged on the device with resident parameters needs neither): twice a
 * staging's chunks (one set filled while the other travels), at most UP_RING_BYTES
 * (two chunks at least); none to be had (host_memory_limit, pinned memory refused):
 * pageable copies. */
#define UP_RING_BYTES ((uint64_t)2 << 30)
static void up_ring(cuda_up *u) {
  if (u->ring_made) return;
  u->ring_made = true;
  cuda_dev *d = u->d;
  sp_chunk_pool *pool = sp_hostmem_pool(d->hm);
  if (pool) {
    const size_t cb = sp_chunk_pool_chunk_bytes(pool);
    unsigned want = 2 * d->chunks_per_stage;
    if (want > SP_XFER_SLOTS) want = SP_XFER_SLOTS;
    while (want > 2 && (uint64_t)want * cb > UP_RING_BYTES) want--;
    int ordinal = d->ordinal;
    bool waited = false;
    u->nch = sp_chunk_pool_take(pool, d->index, want, u->ch, &ordinal, &waited);
    u->cb = sp_chunk_pool_chunk_bytes(pool);
  }
  if (u->nch) team_start(&u->team, u->threads > 1 ? u->threads - 1 : 0);
}

/* One request on the transfer stream, then its event (slot r % SP_UP_EVENTS). */
static int up_send(cuda_up *u, const up_req *rq, uint64_t r, char *err, size_t errlen) {
  if (rq->after) SP_TRY(sp_gpu_xfer_wait_event(u->x, rq->after, err, errlen));
  if (rq->kind == UP_HOST && rq->bytes) up_ring(u);
  if (rq->kind == UP_HOST && u->nch > 0) {
    for (size_t off = 0; off < rq->bytes; off += u->cb, u->sub++) {
      unsigned slot = (unsigned)(u->sub % u->nch);
      size_t len = rq->bytes - off < u->cb ? rq->bytes - off : u->cb;
      /* the chunk's previous copy has left it */
      SP_TRY(sp_gpu_xfer_wait(u->x, slot, err, errlen));
      double t0 = sp_now_ms();
      team_copy(&u->team, u->ch[slot], (const uint8_t *)rq->src + off, len);
      u->copy_ms += sp_now_ms() - t0;
      SP_TRY(sp_gpu_xfer_send(u->x, slot, (uint8_t *)rq->dst + off, u->ch[slot], len, err, errlen));
    }
  } else if (rq->bytes) {
    /* page-locked or device memory: one DMA; pageable without chunks: the driver
     * stages it and this thread waits in the call (not the kernels' thread) */
    unsigned slot = u->nch ? (unsigned)(u->sub % u->nch) : 0;
    SP_TRY(sp_gpu_xfer_send(u->x, slot, rq->dst, rq->src, rq->bytes, err, errlen));
  }
  return sp_gpu_xfer_record(u->x, u->d->ev[EV_UP0 + r % SP_UP_EVENTS], err, errlen);
}

static void *filler_main(void *arg) {
  cuda_up *u = arg;
  char err[256] = "";
  int confirmed = -1;
  /* this thread works for one device only, for its whole life (design rule 2) */
  int st = sp_gpu_bind(u->d->ordinal, &confirmed, err, sizeof err);
  /* a trace tells this thread's copies from the stages that wait for them */
  const unsigned prev = sp_gpu_stage_set(SP_STAGE_TRANSFER);
  for (;;) {
    pthread_mutex_lock(&u->mu);
    while (!u->failed && u->taken == u->pushed && !u->closing) pthread_cond_wait(&u->cv, &u->mu);
    /* the event of request r is free once the caller waited for request r - EVENTS */
    while (!u->failed && u->taken < u->pushed && u->taken >= u->consumed + SP_UP_EVENTS)
      pthread_cond_wait(&u->cv, &u->mu);
    if (u->failed || u->taken == u->pushed) { /* failed, or closing with nothing left */
      pthread_mutex_unlock(&u->mu);
      break;
    }
    uint64_t r = u->taken;
    up_req rq = u->q[r % UP_QUEUE];
    pthread_mutex_unlock(&u->mu);
    if (!st) st = up_send(u, &rq, r, err, sizeof err);
    pthread_mutex_lock(&u->mu);
    u->taken++;
    if (st) {
      u->failed = true;
      u->st = st;
      snprintf(u->err, sizeof u->err, "uploading %zu bytes: %s", rq.bytes, err);
    } else {
      u->issued = r + 1;
      if (rq.kind != UP_DEVICE) u->pcie_bytes += rq.bytes;
    }
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
  }
  (void)sp_gpu_stage_set(prev);
  return NULL;
}

int cuda_up_open(cuda_dev *d, unsigned threads, cuda_up **out, char *err, size_t errlen) {
  *out = NULL;
  if (!d->up_x) SP_TRY(sp_gpu_xfer_create(d->ordinal, &d->up_x, err, errlen));
  cuda_up *u = calloc(1, sizeof *u);
  if (!u) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  u->d = d;
  u->x = d->up_x;
  pthread_mutex_init(&u->mu, NULL);
  pthread_cond_init(&u->cv, NULL);
  u->threads = threads;
  if (pthread_create(&u->filler, NULL, filler_main, u) != 0) {
    cuda_up_close(u, NULL, 0);
    snprintf(err, errlen, "cannot start the upload thread");
    return SEALPROV_ERR_NO_MEMORY;
  }
  u->filler_started = true;
  *out = u;
  return SEALPROV_OK;
}

int cuda_up_push(cuda_up *u, void *dst, const void *src, size_t bytes, int kind,
                 sp_gpu_event *after, uint64_t *req, char *err, size_t errlen) {
  pthread_mutex_lock(&u->mu);
  while (!u->failed && u->pushed - u->taken >= UP_QUEUE) pthread_cond_wait(&u->cv, &u->mu);
  if (u->failed) {
    snprintf(err, errlen, "%s", u->err);
    int st = u->st;
    pthread_mutex_unlock(&u->mu);
    return st;
  }
  u->q[u->pushed % UP_QUEUE] = (up_req){dst, src, bytes, kind, after};
  *req = u->pushed++;
  pthread_cond_broadcast(&u->cv);
  pthread_mutex_unlock(&u->mu);
  return SEALPROV_OK;
}

int cuda_up_wait(cuda_up *u, uint64_t req, double *waited_ms, char *err, size_t errlen) {
  cuda_stage_mark m = cuda_stage_in(SP_STAGE_UPLOAD);
  pthread_mutex_lock(&u->mu);
  while (!u->failed && u->issued <= req && req >= u->consumed) pthread_cond_wait(&u->cv, &u->mu);
  int st = u->failed ? u->st : SEALPROV_OK;
  if (st) snprintf(err, errlen, "%s", u->err);
  /* the compute stream already waits for a later request: the transfer stream runs in
   * order, so this one is done before that one */
  bool implied = req < u->consumed;
  pthread_mutex_unlock(&u->mu);
  if (st || implied) {
    cuda_stage_out(m, waited_ms);
    return st;
  }
  /* the event cannot be recorded again before consumed passes req (filler_main). The
   * host waits for the copy itself: every caller's next step waits for work queued
   * behind it, and so the wait is the upload's, not that step's. */
  sp_gpu_event *ev = u->d->ev[EV_UP0 + req % SP_UP_EVENTS];
  st = sp_gpu_stream_wait(u->d->gpu, SP_STREAM_COMPUTE, ev, err, errlen);
  if (!st) st = sp_gpu_event_sync(u->d->gpu, ev, err, errlen);
  pthread_mutex_lock(&u->mu);
  if (req + 1 > u->consumed) u->consumed = req + 1;
  pthread_cond_broadcast(&u->cv);
  pthread_mutex_unlock(&u->mu);
  cuda_stage_out(m, waited_ms);
  return st;
}

int cuda_up_drain(cuda_up *u, char *err, size_t errlen) {
  pthread_mutex_lock(&u->mu);
  /* every request queued so far is sent (the caller waits for none of them: their
   * events may stay in use, nothing else is queued meanwhile) */
  while (!u->failed && u->taken < u->pushed) {
    if (u->taken >= u->consumed + SP_UP_EVENTS) u->consumed = u->taken - SP_UP_EVENTS + 1;
    pthread_cond_broadcast(&u->cv);
    pthread_cond_wait(&u->cv, &u->mu);
  }
  int st = u->failed ? u->st : SEALPROV_OK;
  if (st && err) snprintf(err, errlen, "%s", u->err);
  pthread_mutex_unlock(&u->mu);
  char e2[256];
  int st2 = sp_gpu_xfer_finish(u->x, e2, sizeof e2);
  if (!st && st2) {
    st = st2;
    if (err) snprintf(err, errlen, "%s", e2);
  }
  return st;
}

int cuda_up_close(cuda_up *u, char *err, size_t errlen) {
  if (!u) return SEALPROV_OK;
  int st = SEALPROV_OK;
  if (u->filler_started) {
    char e[256] = "";
    st = cuda_up_drain(u, e, sizeof e);
    pthread_mutex_lock(&u->mu);
    u->closing = true;
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
    pthread_join(u->filler, NULL);
    if (st && err) snprintf(err, errlen, "%s", e);
  }
  if (u->nch) {
    team_stop(&u->team);
    sp_chunk_pool_give(sp_hostmem_pool(u->d->hm), u->d->index, u->nch, u->ch);
  }
  pthread_mutex_lock(&u->d->mu);
  u->d->pcie_bytes += u->pcie_bytes;
  pthread_mutex_unlock(&u->d->mu);
  pthread_mutex_destroy(&u->mu);
  pthread_cond_destroy(&u->cv);
  free(u);
  return st;
}

uint64_t cuda_up_pcie_bytes(cuda_up *u) {
  pthread_mutex_lock(&u->mu);
  uint64_t n = u->pcie_bytes;
  pthread_mutex_unlock(&u->mu);
  return n;
}
