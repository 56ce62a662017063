/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* staging.c -- the CUDA engine's prepare (engine_internal.h): a partition carried to the
 * device before execute takes the device lock -- chunked through the provider's pool of
 * pinned chunks into a device buffer of its own (the default), or into a pinned
 * whole-partition buffer -- and the early upload of a by a prepare that finds the
 * device idle. engine_cuda.c's comment tells the whole data movement. */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/engine_internal.h" /* first: sp_gpu.h before <math.h> */
#include "base/util.h"               /* SP_TRY_GOTO */
#include "groth16/groth16.h"

/* ---- the provider's chunk pool (chunked staging) ----------------------------------
 * One pool for every device of the provider (hostmem.h: sp_hostmem_pool_hold): pinned
 * memory is allocated portable (sp_gpu_host_alloc), so a chunk serves any device. Held
 * from a device's first bind to its last unbind (no partition is staged then). */
static void *chunk_alloc(size_t bytes, void *user) {
  void *p = NULL;
  char e[256];
  return sp_gpu_host_alloc(*(const int *)user, &p, bytes, e, sizeof e) == SEALPROV_OK ? p : NULL;
}
static void chunk_free(void *p, void *user) { sp_gpu_host_free(*(const int *)user, p); }

void cuda_chunk_pool_hold(cuda_dev *d) {
  /* the first holder's size makes the pool: every device of a provider has the same
   * ([provider] staging_chunk_size) */
  (void)sp_hostmem_pool_hold(d->hm, d->chunk_bytes, chunk_alloc, chunk_free);
  d->pool_held = true; /* a NULL pool: chunked staging then stages without chunks */
}

void cuda_chunk_pool_drop(cuda_dev *d) {
  if (!d->pool_held) return;
  int ordinal = d->ordinal;
  sp_hostmem_pool_drop(d->hm, &ordinal);
  d->pool_held = false;
}

/* Segments of the assignment in staging order, with their offsets in the buffer. */
static size_t stage_layout(const sealprov_assignment *asg, copy_seg seg[8], uint8_t *base) {
  const void *src[8] = {asg->a,
                        asg->b,
                        asg->c,
                        asg->inp_assignment,
                        asg->aux_assignment,
                        asg->a_aux_density,
                        asg->b_inp_density,
                        asg->b_aux_density};
  size_t len[8] = {(size_t)asg->abc_size * 32,       (size_t)asg->abc_size * 32,
                   (size_t)asg->abc_size * 32,       (size_t)asg->inp_size * 32,
                   (size_t)asg->aux_size * 32,       bitmap_bytes(asg->a_aux_bit_len),
                   bitmap_bytes(asg->b_inp_bit_len), bitmap_bytes(asg->b_aux_bit_len)};
  for (int i = 0; i < 3; i++)
    if (!src[i]) len[i] = 0; /* a witness-only partition: a, b, c are made on the device */
  size_t off = 0;
  for (int i = 0; i < 8; i++) {
    seg[i].dst = base ? base + off : NULL;
    seg[i].src = src[i];
    seg[i].n = src[i] ? len[i] : 0;
    off = align_up(off + seg[i].n, SP_STAGE_ALIGN);
  }
  return off;
}

typedef struct copy_ctx {
  const copy_seg *seg;
  int nseg;
} copy_ctx;

/* bls_range_fn: copies bytes [begin, end) of the concatenated segments. */
static void copy_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  const copy_ctx *c = vctx;
  size_t base = 0;
  for (int i = 0; i < c->nseg && base < end; i++) {
    size_t s0 = base, s1 = base + c->seg[i].n;
    base = s1;
    size_t lo = begin > s0 ? begin : s0, hi = end < s1 ? end : s1;
    if (lo < hi)
      memcpy((uint8_t *)c->seg[i].dst + (lo - s0), (const uint8_t *)c->seg[i].src + (lo - s0),
             hi - lo);
  }
}

/* Copies the segments with up to nthreads threads (equal byte ranges; a thread that
 * cannot be started leaves its range to the calling thread: bls_parallel_for). */
void cuda_parallel_copy(const copy_seg *seg, int nseg, unsigned nthreads) {
  size_t total = 0;
  for (int i = 0; i < nseg; i++) total += seg[i].n;
  if (nthreads < 1) nthreads = 1;
  /* below ~8 MiB per thread, starting threads costs more than it saves */
  while (nthreads > 1 && total / nthreads < ((size_t)8 << 20)) nthreads--;
  copy_ctx c = {seg, nseg};
  (void)bls_parallel_for(total, nthreads, copy_range, &c);
}

/* Among a worker pool's n free slots (under d->mu): the smallest buffer of at least
 * need bytes, taken (busy); else NULL, with *empty the first slot without a buffer and
 * *largest the largest free buffer (the candidates to make or regrow one). */
static stage_buf *slot_pick(stage_buf *slots, unsigned n, size_t need, stage_buf **empty,
                            stage_buf **largest) {
  stage_buf *fit = NULL;
  for (unsigned i = 0; i < n; i++) {
    stage_buf *b = &slots[i];
    if (b->busy) continue;
    if (b->p && b->cap >= need && (!fit || b->cap < fit->cap)) fit = b;
    if (!b->p && !*empty) *empty = b;
    if (b->p && (!*largest || b->cap > (*largest)->cap)) *largest = b;
  }
  if (fit) fit->busy = true;
  return fit;
}

/* A staging buffer of at least need bytes from the device's pool, or NULL (pageable
 * path) when staging is off, over budget, every slot is busy, or pinned memory cannot
 * be had. Never an error. */
static stage_buf *stage_take(cuda_dev *d, size_t need) {
  pthread_mutex_lock(&d->mu);
  if (d->pinned_budget == 0) {
    pthread_mutex_unlock(&d->mu);
    return NULL;
  }
  stage_buf *empty = NULL, *largest = NULL;
  stage_buf *fit = slot_pick(d->stage, d->workers, need, &empty, &largest);
  if (fit) {
    pthread_mutex_unlock(&d->mu);
    return fit;
  }
  size_t want = align_up(need, SP_STAGE_ROUND);
  /* a new buffer in an empty slot (one per worker), or else the largest free buffer
   * grown (its old memory goes), within the budget */
  stage_buf *grow = NULL;
  if (empty && d->pinned_bytes + want <= d->pinned_budget)
    grow = empty;
  else if (largest && d->pinned_bytes - largest->cap + want <= d->pinned_budget)
    grow = largest;
  /* the host-wide cap (host_memory_limit): a whole-partition buffer cannot wait for
   * room (it is kept across tasks), so over the cap the partition is uploaded from
   * the host's memory instead */
  if (grow && !sp_hostmem_try_reserve(d->hm, d->index, want)) grow = NULL;
  if (!grow) {
    pthread_mutex_unlock(&d->mu);
    return NULL;
  }
  void *old = grow->p;
  if (old) sp_hostmem_release(d->hm, d->index, grow->cap);
  d->pinned_bytes = d->pinned_bytes - grow->cap + want; /* reserved while allocating */
  grow->busy = true;
  grow->p = NULL;
  grow->cap = 0;
  pthread_mutex_unlock(&d->mu);
  /* Outside the lock: page-locking gigabytes takes a while. (cudaFreeHost may wait for
   * the device; growth happens only for the first, or a larger, partition.) */
  if (old) sp_gpu_host_free(d->ordinal, old);
  void *p = NULL;
  char e[256];
  int st = sp_gpu_host_alloc(d->ordinal, &p, want, e, sizeof e);
  pthread_mutex_lock(&d->mu);
  if (st) {
    d->pinned_bytes -= want;
    grow->busy = false;
    pthread_mutex_unlock(&d->mu);
    sp_hostmem_release(d->hm, d->index, want);
    return NULL;
  }
  grow->p = p;
  grow->cap = want;
  pthread_mutex_unlock(&d->mu);
  return grow;
}

static void stage_give_back(cuda_dev *d, stage_buf *b) {
  if (!b) return;
  pthread_mutex_lock(&d->mu);
  b->busy = false;
  pthread_mutex_unlock(&d->mu);
}

/* Chunked staging's device buffer for a partition of `need` bytes (a, b, c, inputs,
 * aux, bitmaps), or NULL when the device has no room for it next to the parameter set
 * (resident, or to be made so) and the working memory of an execute with an early
 * upload (work_bytes of five vectors), within memory_limit or else the card's memory
 * (the context pool's cache is counted as free: the pool gives it back when an
 * allocation needs it). One per worker, kept across tasks, grown when a partition
 * needs more. Never an error: without it the partition is uploaded from the host's
 * memory in execute. */
static stage_buf *land_take(cuda_dev *d, size_t need, const sp_srs *srs, size_t vbytes) {
  pthread_mutex_lock(&d->mu);
  stage_buf *empty = NULL, *largest = NULL;
  stage_buf *fit = slot_pick(d->land, d->workers, need, &empty, &largest);
  if (fit) {
    pthread_mutex_unlock(&d->mu);
    return fit;
  }
  stage_buf *grow = empty ? empty : largest;
  size_t want = align_up(need, SP_STAGE_ROUND);
  uint64_t cap = d->memory_limit, free_b = 0, total_b = 0;
  if (!cap && d->gpu && sp_gpu_mem_info(d->gpu, &free_b, &total_b) == SEALPROV_OK) cap = total_b;
  uint64_t other = d->land_bytes - (grow && grow->p ? grow->cap : 0);
  uint64_t params = cuda_find_resident(d, srs) ? 0 : cuda_srs_bytes(srs);
  uint64_t after = other + want + cuda_resident_bytes(d) + params + work_bytes(vbytes, 5);
  if (!grow || !cap || after > cap) {
    pthread_mutex_unlock(&d->mu);
    return NULL;
  }
  void *old = grow->p;
  d->land_bytes = other + want;
  grow->busy = true;
  grow->p = NULL;
  grow->cap = 0;
  pthread_mutex_unlock(&d->mu);
  char e[256];
  if (old) sp_gpu_free_persistent(d->ordinal, old);
  void *p = NULL;
  int st = sp_gpu_dev_alloc(d->ordinal, &p, want, e, sizeof e);
  if (!st && !grow->x) st = sp_gpu_xfer_create(d->ordinal, &grow->x, e, sizeof e);
  pthread_mutex_lock(&d->mu);
  if (st) {
    if (p) sp_gpu_free_persistent(d->ordinal, p);
    d->land_bytes -= want;
    grow->busy = false;
    pthread_mutex_unlock(&d->mu);
    return NULL;
  }
  grow->p = p;
  grow->cap = want;
  pthread_mutex_unlock(&d->mu);
  return grow;
}

/* Copies the segments (host sources, device destinations in b) to the device through
 * chunks of the shared pool: the host fills chunk k + 1 (with nthreads threads) while
 * chunk k travels on b's transfer stream. A segment never shares a chunk with
 * another (destinations are not contiguous). Without a chunk (host_memory_limit, or
 * pinned memory refused) the segments go straight from the host's memory. Returns when
 * every byte is on the device. *waited: the pool made it wait for a chunk. */
static int chunked_upload(cuda_dev *d, stage_buf *b, const copy_seg *seg, int nseg,
                          unsigned nthreads, bool *waited, char *err, size_t errlen) {
  void *ch[16] = {NULL};
  unsigned n = 0;
  *waited = false;
  sp_chunk_pool *pool = sp_hostmem_pool(d->hm);
  int ordinal = d->ordinal;
  if (pool) n = sp_chunk_pool_take(pool, d->index, d->chunks_per_stage, ch, &ordinal, waited);
  if (n > SP_XFER_SLOTS) n = SP_XFER_SLOTS;
  int st = SEALPROV_OK;
  if (n == 0) {
    for (int i = 0; !st && i < nseg; i++)
      st = sp_gpu_xfer_send(b->x, 0, seg[i].dst, seg[i].src, seg[i].n, err, errlen);
  } else {
    const size_t cb = sp_chunk_pool_chunk_bytes(pool);
    unsigned k = 0;
    for (int i = 0; !st && i < nseg; i++)
      for (size_t off = 0; !st && off < seg[i].n; off += cb, k++) {
        unsigned slot = k % n;
        size_t len = seg[i].n - off < cb ? seg[i].n - off : cb;
        if (k >= n) st = sp_gpu_xfer_wait(b->x, slot, err, errlen); /* chunk k - n has left */
        if (st) break;
        copy_seg c = {ch[slot], (const uint8_t *)seg[i].src + off, len};
        cuda_parallel_copy(&c, 1, nthreads);
        st = sp_gpu_xfer_send(b->x, slot, (uint8_t *)seg[i].dst + off, ch[slot], len, err, errlen);
      }
  }
  char e2[256];
  int st2 = sp_gpu_xfer_finish(b->x, st ? e2 : err, st ? sizeof e2 : errlen);
  if (!st) st = st2;
  if (n) sp_chunk_pool_give(pool, d->index, n, ch);
  return st;
}

void cuda_prep_sources_pageable(cuda_prep *p, const sealprov_assignment *asg) {
  p->buf = NULL;
  p->abc[0] = asg->a;
  p->abc[1] = asg->b;
  p->abc[2] = asg->c;
  p->inp = asg->inp_assignment;
  p->aux = asg->aux_assignment;
  p->bm[0] = asg->a_aux_density;
  p->bm[1] = asg->b_inp_density;
  p->bm[2] = asg->b_aux_density;
}

/* Room for an early upload (under d->mu): residency (get_resident) admitted a set with
 * room for three vectors of working memory; holding a fourth between partitions needs
 * that much more, within memory_limit or else the device's memory. Without it the
 * partition uploads a in execute as before. */
bool cuda_early_room(cuda_dev *d, size_t vbytes) {
  uint64_t cap = d->memory_limit;
  if (!cap) {
    uint64_t free_b = 0;
    if (sp_gpu_mem_info(d->gpu, &free_b, &cap) != SEALPROV_OK) return false;
  }
  return cuda_resident_bytes(d) + work_bytes(vbytes, 4) <= cap;
}

/* prepare's early upload (cuda_dev.executing): on an idle device, with the set
 * resident, a's device buffer is taken and its copy queued now. True if queued. Any
 * failure only means execute uploads a itself. */
static bool early_from_prepare(cuda_dev *d, cuda_prep *p, const sp_srs *srs) {
  pthread_mutex_lock(&d->mu);
  const cuda_knobs k = cuda_knobs_of(d);
  bool go = cuda_find_resident(d, srs) && !k.force_stream && k.early_mode == SP_EARLY_ALL &&
            d->gpu && p->a_bytes && !d->executing && !d->uploading && !d->early_buf &&
            !d->early_want && cuda_early_room(d, p->vbytes);
  if (go) d->uploading = true;
  const unsigned delay_us = k.early_delay_us;
  pthread_mutex_unlock(&d->mu);
  if (!go) return false;
  sp_gpu *g = d->gpu;
  void *buf = NULL;
  char e[256];
  int st = sp_gpu_alloc(g, &buf, p->vbytes, e, sizeof e);
  /* the copy stream waits for the allocation, which is ordered on the compute stream */
  if (!st) st = sp_gpu_event_record(g, d->ev[EV_EARLY], SP_STREAM_COMPUTE, e, sizeof e);
  if (!st) st = sp_gpu_stream_wait(g, SP_STREAM_COPY, d->ev[EV_EARLY], e, sizeof e);
  if (!st) st = sp_gpu_stream_delay(g, SP_STREAM_COPY, delay_us, e, sizeof e);
  if (!st) st = sp_gpu_upload_async(g, buf, p->abc[0], p->a_bytes, e, sizeof e);
  if (st && buf) { /* nothing to keep: the next execute synchronises before reusing it */
    sp_gpu_free(g, buf, p->vbytes);
    buf = NULL;
  }
  pthread_mutex_lock(&d->mu);
  if (buf) {
    d->early_buf = buf;
    d->early_bytes = p->vbytes;
    d->early_owner = p;
    if (!p->land) { /* from page-locked staging; a landing buffer's copy stays on the device */
      p->pcie_bytes += p->a_bytes;
      d->pcie_bytes += p->a_bytes;
    }
  }
  d->uploading = false;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
  return buf != NULL;
}

int cuda_prepare(void *dev, const sp_task *t, void **prep, char *err, size_t errlen) {
  cuda_dev *d = dev;
  *prep = NULL;
  double t0 = sp_now_ms();
  /* A witness-only partition: only the witness is staged and execute computes a, b, c
   * on the device (the system's sizes and densities were checked against the
   * parameters at submit, sp_cs_check_partition; a system the device has no room for
   * is evaluated by the host's SpMV there, pipeline.c). */
  sp_task tw;
  sealprov_assignment wasg;
  bool gpu_cs = t->cs != NULL;
  if (gpu_cs) {
    sp_cs_assignment_of(t->cs, t->asg, &wasg);
    tw = *t;
    tw.asg = &wasg;
    t = &tw;
  }
  /* Host-only work, outside the device lock: the size and density checks... */
  int st = gpu_cs ? SEALPROV_OK : sp_groth16_check_assignment(t->srs, t->asg, err, errlen);
  /* The public inputs (input 0 is ONE, every scalar below r) are checked here; the
   * rows a[i]*b[i] == c[i] are checked on the device in execute, before any MSM
   * (sp_gpu_check_rows: a check of 2^27 rows on the host would cost more than
   * prepare's whole budget). */
  if (!st) st = sp_groth16_check_inputs(t->asg, t->scalar_encoding, err, errlen);
  cuda_prep *p = st ? NULL : calloc(1, sizeof *p);
  if (!p) {
    if (st) return st;
    snprintf(err, errlen, "cuda device [%s]: out of host memory", d->section);
    return SEALPROV_ERR_NO_MEMORY;
  }
  p->gpu_cs = gpu_cs;
  if (gpu_cs) p->wasg = wasg;
  /* ...and the copy into staging, so that execute's uploads are DMA at full rate (or
   * device-to-device copies) and overlap with compute. */
  copy_seg seg[8];
  size_t need = stage_layout(t->asg, seg, NULL);
  pthread_mutex_lock(&d->mu);
  const int mode = d->stage_mode;
  pthread_mutex_unlock(&d->mu);
  p->vbytes = ((size_t)1 << t->srs->log_domain) * 32;
  p->a_bytes = seg[0].n;
  stage_buf *b = NULL;
  if (mode == STAGE_CHUNKED) {
    /* Chunked: the whole partition goes to a device buffer of its own now, through
     * a few pinned chunks (the module's host memory stays at the chunks); execute
     * copies it device to device. */
    stage_buf *l = land_take(d, need, t->srs, p->vbytes);
    if (l) {
      stage_layout(t->asg, seg, l->p);
      bool waited = false;
      st = chunked_upload(d, l, seg, 8, t->cpu_threads, &waited, err, errlen);
      if (st) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s", err);
        snprintf(err, errlen, "cuda device %u [%s]: chunked staging of job %llu partition %u: %s",
                 d->index, d->section, (unsigned long long)t->job_id, t->partition, tmp);
        stage_give_back(d, l);
        free(p);
        return st;
      }
      p->land = l;
      for (int i = 0; i < 8; i++) p->pcie_bytes += seg[i].n;
      pthread_mutex_lock(&d->mu);
      d->pcie_bytes += p->pcie_bytes;
      pthread_mutex_unlock(&d->mu);
      p->abc[0] = seg[0].dst;
      p->abc[1] = seg[1].dst;
      p->abc[2] = seg[2].dst;
      p->inp = seg[3].dst;
      p->aux = seg[4].dst;
      for (int i = 0; i < 3; i++) p->bm[i] = seg[5 + i].n ? seg[5 + i].dst : NULL;
    } else {
      cuda_prep_sources_pageable(p, t->asg);
    }
  } else if (mode == STAGE_WHOLE) {
    b = stage_take(d, need);
  }
  bool sent = false;
  if (p->land) {
    sent = early_from_prepare(d, p, t->srs);
  } else if (b) {
    stage_layout(t->asg, seg, b->p);
    p->buf = b;
    p->abc[0] = seg[0].dst;
    p->abc[1] = seg[1].dst;
    p->abc[2] = seg[2].dst;
    p->inp = seg[3].dst;
    p->aux = seg[4].dst;
    for (int i = 0; i < 3; i++) p->bm[i] = seg[5 + i].n ? seg[5 + i].dst : NULL;
    /* a first: on an idle device its copy starts now and travels while the rest is
     * staged */
    cuda_parallel_copy(seg, 1, t->cpu_threads);
    sent = early_from_prepare(d, p, t->srs);
    cuda_parallel_copy(seg + 1, 7, t->cpu_threads);
  } else if (!p->land) {
    cuda_prep_sources_pageable(p, t->asg);
  }
  /* Staged (pinned or on the device: the copy can run asynchronously), not sent above,
   * and nothing else waiting: ask for an early upload of a by the execute that is
   * running. Last in prepare: once asked, p lives until its execute. */
  if ((b || p->land) && p->a_bytes && !sent) {
    pthread_mutex_lock(&d->mu);
    if (cuda_knobs_of(d).early_mode != SP_EARLY_OFF && !d->early_want && !d->early_owner)
      d->early_want = p;
    pthread_mutex_unlock(&d->mu);
  }
  p->prepare_ms = sp_now_ms() - t0;
  *prep = p;
  return SEALPROV_OK;
}

void cuda_release(void *dev, void *prep) {
  cuda_prep *p = prep;
  if (!p) return;
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  if (d->early_want == p) d->early_want = NULL;
  if (d->early_owner == p) d->early_owner = NULL; /* orphaned: the next execute frees it */
  pthread_mutex_unlock(&d->mu);
  /* execute synchronised both streams before returning: no DMA reads the buffer. */
  stage_give_back(dev, p->buf);
  stage_give_back(dev, p->land);
  free(p);
}
