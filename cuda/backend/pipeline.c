/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* pipeline.c -- one partition on a CUDA device (engine_internal.h), with the device lock
 * held: decoding and the a*b = c check, the H pipeline, the MSMs and batch additions of
 * L, A and B (over chunks of points when the set is streamed), witness-only a, b, c on
 * the device, and the assembly on the host. */
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
#include "ntt/ntt.h"
#include "msm/msm.h"
#include "prep/prep.h"

/* ---- one partition ---------------------------------------------------------------- */

static int bad_scalar(const char *what, uint64_t idx, uint32_t enc, char *err, size_t errlen) {
  snprintf(err, errlen, "%s[%llu] is not a valid %s scalar (value >= r)", what,
           (unsigned long long)idx,
           enc == SEALPROV_SCALAR_MONTGOMERY ? "Montgomery" : "canonical little-endian");
  return SEALPROV_ERR_ASSIGNMENT;
}

typedef struct split_t {
  uint64_t *ones;
  void *rest;
  uint32_t *idx;
  size_t n, n_rest;
} split_t;

static void split_free(sp_gpu *g, split_t *s) {
  size_t words = (s->n + 63) / 64;
  sp_gpu_free(g, s->ones, words * 8);
  sp_gpu_free(g, s->rest, s->n * 32);
  sp_gpu_free(g, s->idx, s->n * 4);
  memset(s, 0, sizeof *s);
}

static int split_make(sp_gpu *g, split_t *s, const void *d_scalars, size_t n, char *err,
                      size_t errlen) {
  memset(s, 0, sizeof *s);
  s->n = n;
  int st = sp_gpu_alloc(g, (void **)&s->ones, ((n + 63) / 64) * 8, err, errlen);
  if (!st) st = sp_gpu_alloc(g, &s->rest, n * 32, err, errlen);
  if (!st) st = sp_gpu_alloc(g, (void **)&s->idx, n * 4, err, errlen);
  if (!st) st = sp_gpu_split01(g, d_scalars, n, s->ones, s->rest, s->idx, &s->n_rest, err, errlen);
  return st;
}

/* One execute attempt's plan and counters. */
/* Work on one chunk [p0, p1) of a point vector whose points for that range are at
 * d_points (chunk k of nchunks). */
typedef int (*chunk_fn)(xctx *x, void *ctx, const void *d_points, size_t k, size_t p0, size_t p1,
                        char *err, size_t errlen);

/* The bounce buffer (pinned, 2 slots of slot_bytes) for vectors that are not
 * registered; NULL when it cannot be had (uploads then come from pageable memory). */
static uint8_t *get_bounce(xctx *x, size_t slot_bytes) {
  cuda_dev *d = x->d;
  if (d->bounce && d->bounce_cap >= 2 * slot_bytes) return d->bounce;
  char e[256];
  void *p = NULL;
  if (!sp_hostmem_try_reserve(d->hm, d->index, 2 * slot_bytes)) return NULL; /* host_memory_limit */
  if (sp_gpu_host_alloc(d->ordinal, &p, 2 * slot_bytes, e, sizeof e) != SEALPROV_OK) {
    sp_hostmem_release(d->hm, d->index, 2 * slot_bytes);
    return NULL;
  }
  /* the old buffer's last transfers were waited for at the end of its stream_points */
  if (d->bounce) {
    sp_gpu_host_free(d->ordinal, d->bounce);
    sp_hostmem_release(d->hm, d->index, d->bounce_cap);
  }
  pthread_mutex_lock(&d->mu);
  d->bounce = p;
  d->bounce_cap = 2 * slot_bytes;
  pthread_mutex_unlock(&d->mu);
  return d->bounce;
}

/* Runs fn over the chunks of a point vector: resident (one chunk, no transfer) or
 * streamed from host memory with two device buffers, chunk k + 1 uploading on the copy
 * stream while chunk k is processed on the compute stream. */
static int stream_points(xctx *x, int vec, const void *resident, const void *host, size_t npts,
                         size_t psize, chunk_fn fn, void *ctx, char *err, size_t errlen) {
  if (npts == 0) return SEALPROV_OK;
  if (resident) return fn(x, ctx, resident, 0, 0, npts, err, errlen);
  sp_gpu *g = x->g;
  sp_gpu_event **ev = x->d->ev;
  const size_t chunk = x->chunk < npts ? x->chunk : npts;
  const size_t nchunks = (npts + chunk - 1) / chunk, cbytes = chunk * psize;
  const bool registered = x->reg && x->reg->usable[vec];
  uint8_t *bounce = NULL;
  if (!registered) bounce = get_bounce(x, cbytes);
  void *buf[2] = {NULL, NULL};
  int st = SEALPROV_OK;
  SP_TRY_GOTO(sp_gpu_alloc(g, &buf[0], cbytes, err, errlen), st, out);
  if (nchunks > 1) SP_TRY_GOTO(sp_gpu_alloc(g, &buf[1], cbytes, err, errlen), st, out);
  /* the buffers exist once the compute stream got here: the copy stream waits for it */
  SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_FREED0], SP_STREAM_COMPUTE, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_FREED1], SP_STREAM_COMPUTE, err, errlen), st, out);
  for (size_t k = 0; k <= nchunks; k++) {
    /* step k: issue the upload of chunk k, then process chunk k - 1, so that chunk k
     * travels on the copy stream while chunk k - 1 is computed */
    size_t j = k;
    if (j < nchunks) {
      size_t slot = j & 1, p0 = j * chunk, p1 = p0 + chunk < npts ? p0 + chunk : npts;
      size_t bytes = (p1 - p0) * psize;
      const uint8_t *src = (const uint8_t *)host + p0 * psize;
      SP_TRY_GOTO(sp_gpu_stream_wait(g, SP_STREAM_COPY, ev[EV_FREED0 + slot], err, errlen), st,
                  out);
      if (bounce) {
        /* the slot's previous upload (chunk j - 2) must have left it */
        double t0 = sp_now_ms();
        SP_TRY_GOTO(sp_gpu_event_sync(g, ev[EV_LOADED0 + slot], err, errlen), st, out);
        copy_seg s = {bounce + slot * cbytes, src, bytes};
        cuda_parallel_copy(&s, 1, x->cpu_threads);
        x->tm->upload_ms += sp_now_ms() - t0;
        src = bounce + slot * cbytes;
      }
      double t0 = sp_now_ms(); /* pageable: the host waits inside the call */
      SP_TRY_GOTO(sp_gpu_upload_async(g, buf[slot], src, bytes, err, errlen), st, out);
      x->tm->upload_ms += sp_now_ms() - t0;
      SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_LOADED0 + slot], SP_STREAM_COPY, err, errlen), st,
                  out);
    }
    if (k == 0) continue;
    size_t c = k - 1, slot = c & 1, p0 = c * chunk, p1 = p0 + chunk < npts ? p0 + chunk : npts;
    double t0 = sp_now_ms();
    SP_TRY_GOTO(sp_gpu_event_sync(g, ev[EV_LOADED0 + slot], err, errlen), st, out);
    x->tm->upload_ms += sp_now_ms() - t0;
    SP_TRY_GOTO(sp_gpu_stream_wait(g, SP_STREAM_COMPUTE, ev[EV_LOADED0 + slot], err, errlen), st,
                out);
    SP_TRY_GOTO(fn(x, ctx, buf[slot], c, p0, p1, err, errlen), st, out);
    SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_FREED0 + slot], SP_STREAM_COMPUTE, err, errlen), st,
                out);
  }
out : {
  /* nothing the copy stream still does may outlive the buffers (or the bounce) */
  char e2[128];
  int st2 = sp_gpu_join_copy(g, e2, sizeof e2);
  if (bounce) {
    int st3 = sp_gpu_sync_all(g, e2, sizeof e2);
    if (!st2) st2 = st3;
  }
  if (st2 && !st) {
    snprintf(err, errlen, "%s", e2);
    st = st2;
  }
}
  sp_gpu_free(g, buf[0], cbytes);
  sp_gpu_free(g, buf[1], cbytes);
  return st;
}

/* H MSM chunk: resident points take the bit-reversed scalars as they are; streamed
 * chunks take the natural-order scalars of their range. */
typedef struct h_ctx {
  const void *scalars;
  unsigned logm;
  bool bitrev;
  const sp_msm_table *tab; /* resident h's fixed-base table, in use; NULL: none */
  g1_jac_t acc;
} h_ctx;

static int h_chunk(xctx *x, void *vctx, const void *d_points, size_t k, size_t p0, size_t p1,
                   char *err, size_t errlen) {
  (void)k;
  h_ctx *c = vctx;
  sp_msm_args a;
  memset(&a, 0, sizeof a);
  a.d_points = d_points;
  a.n = p1 - p0;
  if (c->bitrev) {
    a.d_scalars = c->scalars;
    a.flags = SP_MSM_BITREV_POINTS;
    a.log_bitrev = c->logm;
    a.table = c->tab;
  } else {
    a.d_scalars = (const uint8_t *)c->scalars + p0 * 32;
  }
  g1_jac_t part;
  int st = sp_gpu_msm_g1_dev(x->g, &part, &a, err, errlen);
  if (!st) g1_jac_add(&c->acc, &c->acc, &part);
  return st;
}

/* L / A / B chunk: batch addition of the ones in [p0, p1) (bitmap words from p0 / 64:
 * chunks are multiples of 64 points) and Pippenger over the compacted scalars whose
 * point index falls in [p0, p1) (bounds[k] .. bounds[k + 1]: compaction keeps order). */
typedef struct split_ctx {
  const split_t *s;
  const size_t *bounds;
  bool g2;
  g1_jac_t acc1;
  g2_jac_t acc2;
  double *ba_ms, *msm_ms;
} split_ctx;

static int split_chunk(xctx *x, void *vctx, const void *d_points, size_t k, size_t p0, size_t p1,
                       char *err, size_t errlen) {
  split_ctx *c = vctx;
  const split_t *s = c->s;
  sp_gpu *g = x->g;
  double t0 = sp_now_ms();
  int st;
  if (c->g2) {
    g2_jac_t part;
    st = sp_gpu_batch_add_g2_dev(g, &part, d_points, s->ones + p0 / 64, p1 - p0, err, errlen);
    if (st) return st;
    g2_jac_add(&c->acc2, &c->acc2, &part);
  } else {
    g1_jac_t part;
    st = sp_gpu_batch_add_g1_dev(g, &part, d_points, s->ones + p0 / 64, p1 - p0, err, errlen);
    if (st) return st;
    g1_jac_add(&c->acc1, &c->acc1, &part);
  }
  double t1 = sp_now_ms();
  size_t lo = c->bounds[k], hi = c->bounds[k + 1];
  if (hi > lo) {
    sp_msm_args a;
    memset(&a, 0, sizeof a);
    a.d_points = d_points;
    a.d_scalars = (const uint8_t *)s->rest + lo * 32;
    a.d_index = s->idx + lo;
    a.index_base = (uint32_t)p0;
    a.n = hi - lo;
    if (c->g2) {
      g2_jac_t part;
      st = sp_gpu_msm_g2_dev(g, &part, &a, err, errlen);
      if (st) return st;
      g2_jac_add(&c->acc2, &c->acc2, &part);
    } else {
      g1_jac_t part;
      st = sp_gpu_msm_g1_dev(g, &part, &a, err, errlen);
      if (st) return st;
      g1_jac_add(&c->acc1, &c->acc1, &part);
    }
  }
  if (c->ba_ms) *c->ba_ms += t1 - t0;
  *c->msm_ms += sp_now_ms() - (c->ba_ms ? t1 : t0);
  return SEALPROV_OK;
}

/* sum over one split and one point vector: batch addition of the ones + Pippenger over
 * the rest, resident or streamed */
static int msm_split(xctx *x, int vec, const void *resident, const void *host, size_t npts,
                     const split_t *s, bool g2, g1_jac_t *out1, g2_jac_t *out2, double *ba_ms,
                     double *msm_ms, char *err, size_t errlen) {
  split_ctx c;
  memset(&c, 0, sizeof c);
  c.s = s;
  c.g2 = g2;
  c.ba_ms = ba_ms;
  c.msm_ms = msm_ms;
  g1_jac_set_inf(&c.acc1);
  g2_jac_set_inf(&c.acc2);
  size_t nb = resident ? 1 : (npts + x->chunk - 1) / x->chunk;
  size_t *bounds = malloc((nb + 1) * sizeof *bounds);
  if (!bounds) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  c.bounds = bounds;
  int st = SEALPROV_OK;
  if (resident || npts == 0) {
    bounds[0] = 0;
    bounds[1] = s->n_rest;
  } else {
    st = sp_gpu_lower_bounds(x->g, s->idx, s->n_rest, x->chunk, npts, nb + 1, bounds, err, errlen);
  }
  if (!st)
    st = stream_points(x, vec, resident, host, npts, g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t),
                       split_chunk, &c, err, errlen);
  free(bounds);
  if (out1) *out1 = c.acc1;
  if (out2) *out2 = c.acc2;
  return st;
}

/* Host waits for a copy-stream event (the time counts as upload_ms), and the compute
 * stream is ordered after it. */
static int wait_copy(xctx *x, int e, char *err, size_t errlen) {
  double t0 = sp_now_ms();
  int st = sp_gpu_event_sync(x->g, x->d->ev[e], err, errlen);
  if (!st) st = sp_gpu_stream_wait(x->g, SP_STREAM_COMPUTE, x->d->ev[e], err, errlen);
  x->tm->upload_ms += sp_now_ms() - t0;
  return st;
}

/* One partition's device buffers, results and sizes (prove_partition frees the
 * buffers on every path). */
typedef struct part_t {
  const sp_task *t;
  const cuda_prep *src;
  size_t m, nabc, ninp, naux, vbytes, bmb[3];
  void *abc[3], *inp, *aux, *as, *bs;
  uint64_t *bm[3];
  bool rest_sent;      /* inp, aux and bitmaps already queued (witness-only) */
  sp_cs_eval *host_ev; /* witness-only fallback: a, b, c made on the host */
  split_t sp_l, sp_a, sp_b;
  h_ctx hc;
  g1_jac_t l_acc, a_acc, b1_acc;
  g2_jac_t b2_acc;
} part_t;

/* Frees the scalar buffers of L, A and B (inputs, aux, their A / B compactions, the
 * density bitmaps): once they are split, and on every path out of prove_partition. */
static void part_free_inputs(sp_gpu *g, part_t *p) {
  const sp_srs *srs = p->t->srs;
  sp_gpu_free(g, p->inp, p->ninp * 32);
  sp_gpu_free(g, p->aux, p->naux * 32);
  sp_gpu_free(g, p->as, srs->a_len * 32);
  sp_gpu_free(g, p->bs, srs->b_g1_len * 32);
  for (int k = 0; k < 3; k++) {
    sp_gpu_free(g, p->bm[k], p->bmb[k]);
    p->bm[k] = NULL;
  }
  p->inp = p->aux = p->as = p->bs = NULL;
}

/* inp, aux and the density bitmaps onto the copy stream, then EV_REST (queued: from
 * pageable memory the host waits in these calls). */
static int upload_rest(xctx *x, part_t *p, char *err, size_t errlen) {
  sp_gpu *g = x->g;
  double tu = sp_now_ms();
  int st = sp_gpu_upload_async(g, p->inp, p->src->inp, p->ninp * 32, err, errlen);
  if (!st) st = sp_gpu_upload_async(g, p->aux, p->src->aux, p->naux * 32, err, errlen);
  for (int k = 0; !st && k < 3; k++)
    if (p->src->bm[k]) st = sp_gpu_upload_async(g, p->bm[k], p->src->bm[k], p->bmb[k], err, errlen);
  if (!st) st = sp_gpu_event_record(g, x->d->ev[EV_REST], SP_STREAM_COPY, err, errlen);
  x->tm->upload_ms += sp_now_ms() - tu;
  return st;
}

/* Frees the early-upload buffer, whoever it was for (device lock held: an out-of-memory
 * retry, a handoff that failed, an orphan). Its copy may still be in flight, queued by
 * a prepare: the free, ordered on the compute stream, comes after the copy stream's
 * pending work. That partition then uploads its a itself. */
void cuda_early_drop(cuda_dev *d) {
  pthread_mutex_lock(&d->mu);
  void *buf = d->early_buf;
  size_t bytes = d->early_bytes;
  d->early_buf = NULL;
  d->early_owner = NULL;
  pthread_mutex_unlock(&d->mu);
  if (!buf) return;
  char e[128];
  (void)sp_gpu_join_copy(d->gpu, e, sizeof e);
  sp_gpu_free(d->gpu, buf, bytes);
}

/* Start of execute (device lock held): takes this partition's early-uploaded a, sent
 * by the previous execute or by its own prepare, and frees an orphaned one. */
void *cuda_early_take(cuda_dev *d, const cuda_prep *prep) {
  void *mine = NULL;
  bool orphan;
  pthread_mutex_lock(&d->mu);
  if (prep && d->early_want == prep) d->early_want = NULL; /* executing: too late */
  if (d->early_buf && prep && d->early_owner == prep) {    /* made with prep->vbytes */
    mine = d->early_buf;
    d->early_buf = NULL;
    d->early_owner = NULL;
  }
  orphan = d->early_buf && !d->early_owner;
  pthread_mutex_unlock(&d->mu);
  if (orphan) cuda_early_drop(d);
  return mine;
}

/* Early upload: a vector buffer this partition is done with (b's once a*b is formed,
 * a's after the H MSM) becomes the next partition's a if one is staged and waiting for
 * this device (cuda_dev.early_want), and that a is sent into it now on the copy stream,
 * where it travels during the rest of this partition's work. Two chances, because the
 * next partition's prepare (~0.3 s at 2^27) may not be done by the first. Only with
 * resident parameters and room for one more vector (early_room: the buffer is held
 * until the next execute). Otherwise the buffer is freed. */
static int early_handoff(xctx *x, part_t *p, void **pbuf, char *err, size_t errlen) {
  cuda_dev *d = x->d;
  sp_gpu *g = x->g;
  void *buf = *pbuf;
  const void *src = NULL;
  size_t nbytes = 0;
  pthread_mutex_lock(&d->mu);
  cuda_prep *w = d->early_want;
  if (x->res && w && w->vbytes == p->vbytes && !d->early_buf && cuda_early_room(d, p->vbytes)) {
    d->early_want = NULL;
    d->early_buf = buf;
    d->early_bytes = p->vbytes;
    d->early_owner = w;
    src = w->abc[0];
    nbytes = w->a_bytes;
  }
  pthread_mutex_unlock(&d->mu);
  *pbuf = NULL;
  if (!src) {
    sp_gpu_free(g, buf, p->vbytes);
    return SEALPROV_OK;
  }
  /* w cannot be released meanwhile: its worker waits for the device lock we hold. The
   * copy waits for the compute stream's last use of the buffer; execute's final sync
   * completes it. */
  int st = sp_gpu_event_record(g, d->ev[EV_EARLY], SP_STREAM_COMPUTE, err, errlen);
  if (!st) st = sp_gpu_stream_wait(g, SP_STREAM_COPY, d->ev[EV_EARLY], err, errlen);
  if (!st) st = sp_gpu_upload_async(g, buf, src, nbytes, err, errlen);
  if (st) cuda_early_drop(d); /* not sent: w uploads its a itself */
  return st;
}

/* H: decode and transform a, b, c as each arrives, a*b - c, the H MSM. The rest of
 * the assignment is queued for upload once a, b and c are transformed: it travels
 * during the H MSM. */
static int part_h(xctx *x, part_t *p, char *err, size_t errlen) {
  static const char *names[3] = {"a", "b", "c"};
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const sp_srs *srs = p->t->srs;
  const unsigned logm = srs->log_domain;
  double ts;
  int st = SEALPROV_OK;
  /* The a*b = c pre-check before any transform: with room for one more buffer of nabc
   * rows, it collects a*b there as a and b arrive, so a and b are still transformed
   * while the next vector travels; without room, all three are decoded first and
   * checked, and the transforms follow (the overlap is lost). */
  void *ab = NULL;
  if (p->nabc && cuda_check_room(x->d, p->vbytes)) {
    char e2[256];
    if (sp_gpu_alloc(g, &ab, p->nabc * 32, e2, sizeof e2) != SEALPROV_OK) ab = NULL;
  }
  for (int k = 0; k < 3; k++) {
    SP_TRY_GOTO(wait_copy(x, EV_A + k, err, errlen), st, out);
    ts = sp_now_ms();
    if (p->nabc < p->m)
      SP_TRY_GOTO(
          sp_gpu_zero(g, (uint8_t *)p->abc[k] + p->nabc * 32, (p->m - p->nabc) * 32, err, errlen),
          st, out);
    uint64_t bad = UINT64_MAX;
    SP_TRY_GOTO(sp_gpu_decode_scalars(g, p->abc[k], p->nabc, p->t->scalar_encoding, true, &bad, err,
                                      errlen),
                st, out);
    if (bad != UINT64_MAX) {
      st = bad_scalar(names[k], bad, p->t->scalar_encoding, err, errlen);
      goto out;
    }
    if (ab && k == 0)
      SP_TRY_GOTO(sp_gpu_copy(g, ab, p->abc[0], p->nabc * 32, err, errlen), st, out);
    if (ab && k == 1)
      SP_TRY_GOTO(sp_gpu_fr_mul_vec(g, ab, ab, p->abc[1], p->nabc, err, errlen), st, out);
    tm->decode_ms += sp_now_ms() - ts;
    if (k == 2 || !ab) continue;
    /* queued behind the decode: the GPU transforms this vector while the host waits
     * for the next one's copy */
    ts = sp_now_ms();
    SP_TRY_GOTO(sp_gpu_h_coset(g, p->abc[k], logm, err, errlen), st, out);
    tm->h_ntt_ms += sp_now_ms() - ts;
  }
  ts = sp_now_ms();
  {
    uint64_t row = UINT64_MAX;
    SP_TRY_GOTO(
        ab ? sp_gpu_check_rows(g, ab, NULL, p->abc[2], p->nabc, &row, err, errlen)
           : sp_gpu_check_rows(g, p->abc[0], p->abc[1], p->abc[2], p->nabc, &row, err, errlen),
        st, out);
    if (row != UINT64_MAX) {
      snprintf(err, errlen,
               "the assignment does not satisfy the circuit: a[i]*b[i] != c[i] at row %llu "
               "(first failing row; abc_size %zu)",
               (unsigned long long)row, p->nabc);
      st = SEALPROV_ERR_ASSIGNMENT;
      goto out;
    }
  }
  tm->decode_ms += sp_now_ms() - ts;
  ts = sp_now_ms();
  if (!ab) {
    SP_TRY(sp_gpu_h_coset(g, p->abc[0], logm, err, errlen));
    SP_TRY(sp_gpu_h_coset(g, p->abc[1], logm, err, errlen));
  }
  sp_gpu_free(g, ab, p->nabc * 32);
  ab = NULL;
  SP_TRY(sp_gpu_h_coeffs(g, p->abc[2], logm, err, errlen));
  tm->h_ntt_ms += sp_now_ms() - ts;
  ts = sp_now_ms();
  SP_TRY(sp_gpu_h_finish(g, p->abc[0], p->abc[1], p->abc[2], logm, err, errlen));
  sp_gpu_free(g, p->abc[2], p->vbytes);
  p->abc[2] = NULL;
  SP_TRY(sp_gpu_fr_from_mont(g, p->abc[0], p->m, err, errlen));
  if (x->res == NULL) SP_TRY(sp_gpu_bitrev_dev(g, p->abc[0], logm, err, errlen));
  if (!p->rest_sent) SP_TRY(upload_rest(x, p, err, errlen));
  SP_TRY(early_handoff(x, p, &p->abc[1], err, errlen)); /* b's buffer: freed or handed over */
  SP_TRY(sp_gpu_sync(g, err, errlen));
  tm->h_ntt_ms += sp_now_ms() - ts;

  ts = sp_now_ms();
  p->hc.scalars = p->abc[0];
  p->hc.logm = logm;
  p->hc.bitrev = x->res != NULL;
  pthread_mutex_lock(&x->d->mu);
  bool use = x->d->tables_mode != SP_TABLES_OFF;
  pthread_mutex_unlock(&x->d->mu);
  p->hc.tab = use && x->res && x->res->tab_h.copies ? &x->res->tab_h : NULL;
  tm->tables_used = p->hc.tab != NULL;
  if (p->hc.tab) {
    tm->table_window = p->hc.tab->window;
    tm->table_copies = p->hc.tab->copies;
  }
  /* coefficient m-1 sits at position m-1 in either order and is left out: h_len = m-1 */
  st = stream_points(x, V_H, x->res ? x->res->h : NULL, srs->h, srs->h_len, sizeof(g1_affine_t),
                     h_chunk, &p->hc, err, errlen);
  if (!st) st = early_handoff(x, p, &p->abc[0], err, errlen); /* freed or handed over */
  tm->h_msm_ms += sp_now_ms() - ts;
  return st;
out:
  sp_gpu_free(g, ab, p->nabc * 32);
  return st;
}

/* L, A, B: inputs and aux (canonical), density filtering, 0/1 split, then batch
 * addition of the ones and Pippenger over the rest for each vector. */
static int part_aux(xctx *x, part_t *p, char *err, size_t errlen) {
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const sp_srs *srs = p->t->srs;
  const uint32_t enc = p->t->scalar_encoding;
  const size_t ninp = p->ninp, naux = p->naux;
  size_t n_a = 0, n_bi = 0, n_ba = 0;
  SP_TRY(wait_copy(x, EV_REST, err, errlen));
  double ts = sp_now_ms();
  uint64_t bad = UINT64_MAX;
  SP_TRY(sp_gpu_decode_scalars(g, p->inp, ninp, enc, false, &bad, err, errlen));
  if (bad != UINT64_MAX) return bad_scalar("inp_assignment", bad, enc, err, errlen);
  SP_TRY(sp_gpu_decode_scalars(g, p->aux, naux, enc, false, &bad, err, errlen));
  if (bad != UINT64_MAX) return bad_scalar("aux_assignment", bad, enc, err, errlen);
  SP_TRY(sp_gpu_alloc(g, &p->as, srs->a_len * 32, err, errlen));
  SP_TRY(sp_gpu_alloc(g, &p->bs, srs->b_g1_len * 32, err, errlen));
  /* A: every input, then the aux variables in A; B: inputs in B, then aux in B */
  if (ninp) SP_TRY(sp_gpu_copy(g, p->as, p->inp, ninp * 32, err, errlen));
  SP_TRY(sp_gpu_compact(g, p->aux, p->bm[0], naux, (uint8_t *)p->as + ninp * 32, NULL, &n_a, err,
                        errlen));
  SP_TRY(sp_gpu_compact(g, p->inp, p->bm[1], ninp, p->bs, NULL, &n_bi, err, errlen));
  SP_TRY(sp_gpu_compact(g, p->aux, p->bm[2], naux, (uint8_t *)p->bs + n_bi * 32, NULL, &n_ba, err,
                        errlen));
  if (ninp + n_a != srs->a_len || n_bi + n_ba != srs->b_g1_len) {
    snprintf(err, errlen, "internal: density filtering gave %zu A / %zu B scalars, want %zu / %zu",
             ninp + n_a, n_bi + n_ba, srs->a_len, srs->b_g1_len);
    return SEALPROV_ERR_INTERNAL;
  }
  SP_TRY(split_make(g, &p->sp_l, p->aux, naux, err, errlen));
  SP_TRY(split_make(g, &p->sp_a, p->as, srs->a_len, err, errlen));
  SP_TRY(split_make(g, &p->sp_b, p->bs, srs->b_g1_len, err, errlen));
  part_free_inputs(g, p);
  tm->decode_ms += sp_now_ms() - ts;

  const cuda_resident *r = x->res;
  SP_TRY(msm_split(x, V_L, r ? r->l : NULL, srs->l, srs->l_len, &p->sp_l, false, &p->l_acc, NULL,
                   &tm->batch_add_ms, &tm->tail_msm_ms, err, errlen));
  SP_TRY(msm_split(x, V_A, r ? r->a : NULL, srs->a, srs->a_len, &p->sp_a, false, &p->a_acc, NULL,
                   &tm->batch_add_ms, &tm->tail_msm_ms, err, errlen));
  SP_TRY(msm_split(x, V_B1, r ? r->b1 : NULL, srs->b_g1, srs->b_g1_len, &p->sp_b, false, &p->b1_acc,
                   NULL, &tm->batch_add_ms, &tm->tail_msm_ms, err, errlen));
  return msm_split(x, V_B2, r ? r->b2 : NULL, srs->b_g2, srs->b_g2_len, &p->sp_b, true, NULL,
                   &p->b2_acc, NULL, &tm->g2_ms, err, errlen);
}

/* The device copy of cs on d, made now if it fits next to everything resident and an
 * execute's working memory; NULL (and OK) when it does not (the caller then computes
 * a, b, c on the host). Device lock held. */
static int get_cs_resident(cuda_dev *d, const sp_cs *cs, size_t vbytes, sp_gpu_cs **out, char *err,
                           size_t errlen) {
  *out = NULL;
  pthread_mutex_lock(&d->mu);
  cuda_cs_res *c = d->cs_res;
  while (c && c->cs != cs) c = c->next;
  uint64_t in_use = sp_gpu_memory_in_use(d->gpu) + cuda_resident_bytes(d) + d->land_bytes;
  pthread_mutex_unlock(&d->mu);
  if (c) {
    *out = c->g;
    return SEALPROV_OK;
  }
  uint64_t nnz = cs->off[3 * cs->n_rows];
  uint64_t need = (3 * cs->n_rows + 1) * 8 + nnz * 8 + (uint64_t)cs->ncoeffs * 32;
  if (!cuda_room_for_copy(d, in_use, need, work_bytes(vbytes, 4))) return SEALPROV_OK;
  c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  sp_gpu_cs_desc desc = {.path = cs->path,
                         .n_rows = cs->n_rows,
                         .abc_size = cs->abc_size,
                         .inp_size = cs->inp_size,
                         .aux_size = cs->aux_size,
                         .off = cs->off,
                         .var = cs->var,
                         .cix = cs->cix,
                         .coeffs = cs->coeffs,
                         .ncoeffs = cs->ncoeffs};
  int st = sp_gpu_cs_upload(d->gpu, &desc, &c->g, &c->bytes, err, errlen);
  if (st) {
    free(c);
    /* not enough memory after all: the host computes a, b, c. Other errors are faults. */
    return st == SEALPROV_ERR_DEVICE_MEMORY ? SEALPROV_OK : st;
  }
  c->cs = cs;
  pthread_mutex_lock(&d->mu);
  c->next = d->cs_res;
  d->cs_res = c;
  pthread_mutex_unlock(&d->mu);
  *out = c->g;
  return SEALPROV_OK;
}

/* A witness-only partition's a, b, c into p->abc[] (events EV_A..EV_C recorded after
 * them): the witness (with the bitmaps) is uploaded first, range-checked, and the
 * three products run on the device; when the system does not fit there, on the host
 * (sp_cs_evaluate) and uploaded like a full assignment. */
static int cs_abc(xctx *x, part_t *p, char *err, size_t errlen) {
  cuda_dev *d = x->d;
  sp_gpu *g = x->g;
  const sp_task *t = p->t;
  const uint32_t enc = t->scalar_encoding;
  sp_gpu_cs *dc = NULL;
  SP_TRY(get_cs_resident(d, x->cs, p->vbytes, &dc, err, errlen));
  double ts = sp_now_ms();
  if (!dc) {
    sealprov_assignment w = *t->asg; /* the witness: inputs and aux */
    SP_TRY(sp_cs_evaluate(x->cs, &w, enc, x->cpu_threads, &p->host_ev, err, errlen));
    sp_hostmem_add(d->hm, d->index, (uint64_t)p->host_ev->asg.abc_size * 32 * 3);
    for (int k = 0; k < 3; k++) {
      const void *h = k == 0 ? p->host_ev->asg.a : k == 1 ? p->host_ev->asg.b : p->host_ev->asg.c;
      SP_TRY(sp_gpu_upload_async(g, p->abc[k], h, p->nabc * 32, err, errlen));
      SP_TRY(sp_gpu_event_record(g, d->ev[EV_A + k], SP_STREAM_COPY, err, errlen));
    }
    x->tm->spmv_ms += sp_now_ms() - ts;
    return SEALPROV_OK;
  }
  x->tm->spmv_on_gpu = true;
  SP_TRY(upload_rest(x, p, err, errlen));
  p->rest_sent = true;
  SP_TRY(wait_copy(x, EV_REST, err, errlen));
  ts = sp_now_ms();
  uint64_t bad = UINT64_MAX;
  SP_TRY(sp_gpu_cs_check_witness(g, dc, p->inp, p->aux, &bad, err, errlen));
  if (bad != UINT64_MAX)
    return bad < p->ninp ? bad_scalar("inp_assignment", bad, enc, err, errlen)
                         : bad_scalar("aux_assignment", bad - p->ninp, enc, err, errlen);
  SP_TRY(sp_gpu_cs_eval(g, dc, p->inp, p->aux, p->abc[0], p->abc[1], p->abc[2], err, errlen));
  SP_TRY(sp_gpu_sync(g, err, errlen)); /* for the stage's time; the next step waits anyway */
  for (int k = 0; k < 3; k++)
    SP_TRY(sp_gpu_event_record(g, d->ev[EV_A + k], SP_STREAM_COMPUTE, err, errlen));
  x->tm->spmv_ms += sp_now_ms() - ts;
  return SEALPROV_OK;
}

int cuda_prove_partition(xctx *x, const sp_task *t, const cuda_prep *src, uint8_t proof[192],
                         char *err, size_t errlen) {
  cuda_dev *d = x->d;
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const sp_srs *srs = t->srs;
  const sealprov_assignment *asg = t->asg;
  int st = SEALPROV_OK;
  part_t *p = calloc(1, sizeof *p);
  if (!p) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  p->t = t;
  p->src = src;
  p->m = (size_t)1 << srs->log_domain;
  p->nabc = (size_t)asg->abc_size;
  p->ninp = (size_t)asg->inp_size;
  p->naux = (size_t)asg->aux_size;
  p->vbytes = p->m * sizeof(fr_t);
  p->bmb[0] = bitmap_bytes(asg->a_aux_bit_len);
  p->bmb[1] = bitmap_bytes(asg->b_inp_bit_len);
  p->bmb[2] = bitmap_bytes(asg->b_aux_bit_len);
  g1_jac_set_inf(&p->hc.acc);
  double ts;
  if (x->early_a) { /* a is on the device already (early upload): this partition's now */
    p->abc[0] = x->early_a;
    x->early_a = NULL;
    tm->a_early = true;
  }

  x->res = NULL;
  x->reg = NULL;
  if (x->allow_resident)
    SP_TRY_GOTO(cuda_get_resident(d, srs, &x->res, &tm->srs_upload_ms, err, errlen), st, out);
  if (x->res) SP_TRY_GOTO(cuda_make_tables(d, x->res, srs, tm, err, errlen), st, out);
  if (x->res) tm->precompute_bytes = x->res->tab_bytes;
  if (!x->res)
    SP_TRY_GOTO(cuda_get_hostreg(d, srs, &x->reg, &tm->srs_upload_ms, err, errlen), st, out);
  tm->streamed = x->res == NULL;
  tm->stream_chunk = x->res ? 0 : x->chunk;

  /* ---- transfers: every device buffer first, then the copies on the copy stream ---- */
  ts = sp_now_ms();
  for (int k = 0; k < 3; k++)
    if (!p->abc[k]) SP_TRY_GOTO(sp_gpu_alloc(g, &p->abc[k], p->vbytes, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, &p->inp, p->ninp * 32, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, &p->aux, p->naux * 32, err, errlen), st, out);
  for (int k = 0; k < 3; k++)
    SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&p->bm[k], p->bmb[k], err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_event_record(g, d->ev[EV_ALLOC], SP_STREAM_COMPUTE, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_stream_wait(g, SP_STREAM_COPY, d->ev[EV_ALLOC], err, errlen), st, out);
  if (x->cs) {
    tm->upload_ms += sp_now_ms() - ts;
    SP_TRY_GOTO(cs_abc(x, p, err, errlen), st, out);
  } else {
    for (int k = 0; k < 3; k++) {
      if (k > 0 || !tm->a_early)
        SP_TRY_GOTO(sp_gpu_upload_async(g, p->abc[k], src->abc[k], p->nabc * 32, err, errlen), st,
                    out);
      SP_TRY_GOTO(sp_gpu_event_record(g, d->ev[EV_A + k], SP_STREAM_COPY, err, errlen), st, out);
    }
    tm->upload_ms += sp_now_ms() - ts; /* pageable sources: the host waited in the calls */
  }

  /* H first: b and c travel while a is decoded and transformed, the rest of the
   * assignment during the H MSM. (L, A, B first, with a, b and c travelling during
   * their MSMs, measured the same.) */
  SP_TRY_GOTO(part_h(x, p, err, errlen), st, out);
  SP_TRY_GOTO(part_aux(x, p, err, errlen), st, out);

  ts = sp_now_ms();
  sp_groth16_assemble(srs, &t->r, &t->s, &p->hc.acc, &p->l_acc, &p->a_acc, &p->b1_acc, &p->b2_acc,
                      proof);
  tm->host_ms += sp_now_ms() - ts;
out : {
  /* frees below run on the compute stream: order them after every pending copy */
  char e2[128];
  (void)sp_gpu_join_copy(g, e2, sizeof e2);
}
  for (int k = 0; k < 3; k++) sp_gpu_free(g, p->abc[k], p->vbytes);
  part_free_inputs(g, p);
  if (p->host_ev) { /* its copies are complete: prove_partition's callers sync both streams */
    char e3[128];
    (void)sp_gpu_sync_all(g, e3, sizeof e3);
    sp_hostmem_release(d->hm, d->index, (uint64_t)p->host_ev->asg.abc_size * 32 * 3);
    sp_cs_eval_free(p->host_ev);
  }
  split_free(g, &p->sp_l);
  split_free(g, &p->sp_a);
  split_free(g, &p->sp_b);
  free(p);
  return st;
}
