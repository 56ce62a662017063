/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* tail.c -- the MSMs and batch additions of a partition (engine_internal.h), with the
 * device lock held: H's, then (or interleaved with it) those of L, A, B G1 and B G2,
 * each over chunks of its points. A resident set's points are read where they are (H in
 * one piece, with its fixed-base table); a streamed set's points come through the
 * plan's ring of device buffers (slots), the next chunks uploading (upload.c) while the
 * current one is summed, so the upload and the MSM overlap and the device holds a few
 * chunks of points, never a vector. L, A and B split their scalars chunk by chunk
 * (0 dropped, 1 to the batch addition, the rest to the bucket MSM), from the decoded
 * aux and the indices the density bitmaps give, so no vector of A's or B's scalars is
 * ever made whole. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/engine_internal.h" /* first: sp_gpu.h before <math.h> */
#include "base/util.h"               /* SP_TRY_GOTO */
#include "msm/msm.h"
#include "prep/prep.h"

static int bad_scalar(const char *what, uint64_t idx, uint32_t enc, char *err, size_t errlen) {
  snprintf(err, errlen, "%s[%llu] is not a valid %s scalar (value >= r)", what,
           (unsigned long long)idx,
           enc == SEALPROV_SCALAR_MONTGOMERY ? "Montgomery" : "canonical little-endian");
  return SEALPROV_ERR_ASSIGNMENT;
}

uint64_t cuda_msm_cap(const xctx *x) {
  if (!x->pool_cap) return 0;
  uint64_t in_use = sp_gpu_memory_in_use(x->g), slack = 1u << 20;
  /* 1: as little as the MSM can (one window a batch); the plan made room for that */
  return x->pool_cap > in_use + slack ? x->pool_cap - in_use - slack : 1;
}

int cuda_tail_prep(xctx *x, part_t *p, char *err, size_t errlen) {
  sp_gpu *g = x->g;
  const sp_srs *srs = p->t->srs;
  const uint32_t enc = p->t->scalar_encoding;
  SP_TRY(cuda_up_wait(x->up, p->rest_req, &x->tm->upload_ms, err, errlen));
  cuda_stage_mark ts = cuda_stage_in(SP_STAGE_DECODE);
  uint64_t bad = UINT64_MAX;
  SP_TRY(sp_gpu_decode_scalars(g, p->inp, p->ninp, enc, false, &bad, err, errlen));
  if (bad != UINT64_MAX) return bad_scalar("inp_assignment", bad, enc, err, errlen);
  SP_TRY(sp_gpu_decode_scalars(g, p->aux, p->naux, enc, false, &bad, err, errlen));
  if (bad != UINT64_MAX) return bad_scalar("aux_assignment", bad, enc, err, errlen);
  /* A: every input, then the aux variables in A; B: inputs in B, then aux in B */
  const size_t na = srs->a_len > p->ninp ? srs->a_len - p->ninp : 0;
  size_t n_a = 0, n_ba = 0;
  SP_TRY(sp_gpu_alloc(g, (void **)&p->idx_a, na * 4, err, errlen));
  SP_TRY(sp_gpu_alloc(g, (void **)&p->idx_b, srs->b_g1_len * 4, err, errlen));
  SP_TRY(sp_gpu_compact(g, p->aux, p->bm[0], p->naux, NULL, p->idx_a, &n_a, err, errlen));
  SP_TRY(sp_gpu_compact(g, p->inp, p->bm[1], p->ninp, NULL, p->idx_b, &p->n_bi, err, errlen));
  if (p->n_bi <= srs->b_g1_len)
    SP_TRY(
        sp_gpu_compact(g, p->aux, p->bm[2], p->naux, NULL, p->idx_b + p->n_bi, &n_ba, err, errlen));
  if (p->ninp + n_a != srs->a_len || p->n_bi + n_ba != srs->b_g1_len) {
    snprintf(err, errlen, "internal: density filtering gave %zu A / %zu B scalars, want %zu / %zu",
             p->ninp + n_a, p->n_bi + n_ba, srs->a_len, srs->b_g1_len);
    return SEALPROV_ERR_INTERNAL;
  }
  for (int k = 0; k < 3; k++) {
    sp_gpu_free(g, p->bm[k], p->bmb[k]);
    p->bm[k] = NULL;
  }
  cuda_stage_out(ts, &x->tm->decode_ms);
  return SEALPROV_OK;
}

/* ---- one chunk ---------------------------------------------------------------------- */

/* An item: points [p0, p1) of vector vec, on the device at dev (resident, or the
 * set's prefix kept there), or streamed through the ring (dev NULL). */
typedef struct ring_item {
  int vec;
  size_t p0, p1;
  const void *dev;
} ring_item;

static int h_chunk(xctx *x, part_t *p, const void *d_points, size_t p0, size_t p1, char *err,
                   size_t errlen) {
  sp_msm_args a;
  memset(&a, 0, sizeof a);
  a.d_points = d_points;
  a.n = p1 - p0;
  /* H's coefficients are bit-reversed for the resident points in one piece, in natural
   * order for chunks (pipeline.c, part_h) */
  if (x->res && p0 == 0 && p1 == p->t->srs->h_len) {
    pthread_mutex_lock(&x->d->mu);
    bool use = cuda_knobs_of(x->d).tables_mode != SP_TABLES_OFF;
    pthread_mutex_unlock(&x->d->mu);
    a.d_scalars = p->abc[0];
    a.flags = SP_MSM_BITREV_POINTS;
    a.log_bitrev = p->t->srs->log_domain;
    a.table = use && x->res->tab_h.copies ? &x->res->tab_h : NULL;
    x->tm->tables_used = a.table != NULL;
    if (a.table) {
      x->tm->table_window = a.table->window;
      x->tm->table_copies = a.table->copies;
    }
  } else {
    a.d_scalars = (const uint8_t *)p->abc[0] + p0 * 32;
  }
  a.scratch_cap = cuda_msm_cap(x);
  cuda_stage_mark t0 = cuda_stage_in(SP_STAGE_H_MSM);
  g1_jac_t part;
  int st = sp_gpu_msm_g1_dev(x->g, &part, &a, err, errlen);
  if (!st) g1_jac_add(&p->h_acc, &p->h_acc, &part);
  cuda_stage_out(t0, &x->tm->h_msm_ms);
  return st;
}

/* The scalars of L's, A's or B's points [p0, p1) into sc, or a view of aux (L). */
static int tail_scalars(xctx *x, part_t *p, int vec, size_t p0, size_t p1, void *sc,
                        const void **out, char *err, size_t errlen) {
  sp_gpu *g = x->g;
  if (vec == V_L) {
    *out = (const uint8_t *)p->aux + p0 * 32;
    return SEALPROV_OK;
  }
  *out = sc;
  /* A: inputs [0, ninp) as they are, then aux at idx_a; B: inputs at idx_b[0, n_bi),
   * then aux at idx_b[n_bi, ...) */
  const size_t split = vec == V_A ? p->ninp : p->n_bi;
  size_t mid = p1 < split ? p1 : split > p0 ? split : p0;
  uint8_t *o = sc;
  if (mid > p0) {
    if (vec == V_A)
      SP_TRY(sp_gpu_copy(g, o, (const uint8_t *)p->inp + p0 * 32, (mid - p0) * 32, err, errlen));
    else
      SP_TRY(sp_gpu_gather(g, o, p->inp, p->idx_b + p0, mid - p0, err, errlen));
  }
  if (p1 > mid) {
    const uint32_t *idx = vec == V_A ? p->idx_a + (mid - p->ninp) : p->idx_b + mid;
    SP_TRY(sp_gpu_gather(g, o + (mid - p0) * 32, p->aux, idx, p1 - mid, err, errlen));
  }
  return SEALPROV_OK;
}

/* L, A or B on points [p0, p1) at d_points: batch addition of the scalars equal to 1,
 * Pippenger over the others (their indices relative to p0). */
static int tail_chunk(xctx *x, part_t *p, int vec, const void *d_points, size_t p0, size_t p1,
                      char *err, size_t errlen) {
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const bool g2 = vec == V_B2;
  const size_t q = p1 - p0, words = (q + 63) / 64;
  void *sc = NULL, *rest = NULL;
  uint64_t *ones = NULL;
  uint32_t *ridx = NULL;
  size_t nr = 0;
  const void *scalars = NULL;
  int st = SEALPROV_OK;
  cuda_stage_mark ts = cuda_stage_in(SP_STAGE_DECODE);
  if (vec != V_L) SP_TRY_GOTO(sp_gpu_alloc(g, &sc, q * 32, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&ones, words * 8, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, &rest, q * 32, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&ridx, q * 4, err, errlen), st, out);
  SP_TRY_GOTO(tail_scalars(x, p, vec, p0, p1, sc, &scalars, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_split01(g, scalars, q, ones, rest, ridx, &nr, err, errlen), st, out);
  sp_gpu_free(g, sc, q * 32); /* the split has what it needs */
  sc = NULL;
  cuda_stage_out(ts, &tm->decode_ms);
  ts = cuda_stage_in(g2 ? SP_STAGE_G2 : SP_STAGE_BATCH_ADD);
  if (g2) {
    g2_jac_t part;
    SP_TRY_GOTO(sp_gpu_batch_add_g2_dev(g, &part, d_points, ones, q, err, errlen), st, out);
    g2_jac_add(&p->b2_acc, &p->b2_acc, &part);
  } else {
    g1_jac_t part, *acc = vec == V_L ? &p->l_acc : vec == V_A ? &p->a_acc : &p->b1_acc;
    SP_TRY_GOTO(sp_gpu_batch_add_g1_dev(g, &part, d_points, ones, q, err, errlen), st, out);
    g1_jac_add(acc, acc, &part);
    cuda_stage_out(ts, &tm->batch_add_ms);
    ts = cuda_stage_in(SP_STAGE_TAIL_MSM);
  }
  if (nr) {
    sp_msm_args a;
    memset(&a, 0, sizeof a);
    a.d_points = d_points;
    a.d_scalars = rest;
    a.d_index = ridx;
    a.n = nr;
    a.scratch_cap = cuda_msm_cap(x);
    if (g2) {
      g2_jac_t part;
      SP_TRY_GOTO(sp_gpu_msm_g2_dev(g, &part, &a, err, errlen), st, out);
      g2_jac_add(&p->b2_acc, &p->b2_acc, &part);
    } else {
      g1_jac_t part, *acc = vec == V_L ? &p->l_acc : vec == V_A ? &p->a_acc : &p->b1_acc;
      SP_TRY_GOTO(sp_gpu_msm_g1_dev(g, &part, &a, err, errlen), st, out);
      g1_jac_add(acc, acc, &part);
    }
  }
  cuda_stage_out(ts, g2 ? &tm->g2_ms : &tm->tail_msm_ms);
out:
  sp_gpu_free(g, sc, q * 32);
  sp_gpu_free(g, ones, words * 8);
  sp_gpu_free(g, rest, q * 32);
  sp_gpu_free(g, ridx, q * 4);
  return st;
}

/* ---- the items and the ring ----------------------------------------------------------- */

static size_t vec_len(const sp_srs *s, int vec) {
  return vec == V_H ? s->h_len : vec == V_L ? s->l_len : vec == V_A ? s->a_len : s->b_g1_len;
}

static size_t vec_psize(int vec) { return vec == V_B2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t); }

/* Points per item of vec (plan.c; 0: one piece). */
static size_t item_points(const xctx *x, int vec) {
  return cuda_plan_item_points(&x->plan, x->res != NULL, vec);
}

/* The interleaved order: an H chunk's MSM (compute-bound) covers the upload of about
 * two L, A or B chunks (their MSMs wait for their points), so the next item is H's
 * when the ones so far leave the copy engine ahead of the GPU, else the others'. Cost
 * per point in ns on the H200 (docs/PERFORMANCE.md's 2^27 stages): H 5.3 compute, the
 * others 1.0 (G1) and 4.4 (G2); a G1 point's upload 2.6, G2's 5.2 (~37 GB/s through
 * the host's copy), none for points kept on the device. Only the order depends on
 * them. */
static void interleave(const ring_item *h, size_t nh, const ring_item *t, size_t nt,
                       ring_item *out) {
  double bal = 0;
  size_t i = 0, j = 0, k = 0;
  while (i < nh || j < nt) {
    bool take_h = i < nh && (bal <= 0 || j == nt);
    const ring_item *it = take_h ? &h[i++] : &t[j++];
    double n = (double)(it->p1 - it->p0);
    double comp = it->vec == V_H ? 5.3 : it->vec == V_B2 ? 4.4 : 1.0;
    double up = it->dev ? 0 : it->vec == V_B2 ? 5.2 : 2.6;
    bal += n * (comp - up);
    out[k++] = *it;
  }
}

static int run_item(xctx *x, part_t *p, const ring_item *it, const void *d_points, char *err,
                    size_t errlen) {
  return it->vec == V_H ? h_chunk(x, p, d_points, it->p0, it->p1, err, errlen)
                        : tail_chunk(x, p, it->vec, d_points, it->p0, it->p1, err, errlen);
}

static const void *host_points(const sp_srs *s, int vec) {
  const void *p[V_COUNT];
  size_t bytes[V_COUNT];
  cuda_srs_vectors(s, p, bytes);
  return p[vec];
}
static const void *dev_points(const cuda_resident *r, int vec) {
  return vec == V_H ? r->h : vec == V_L ? r->l : vec == V_A ? r->a : vec == V_B1 ? r->b1 : r->b2;
}

/* The items through the ring: R device buffers for the streamed ones; streamed item q
 * (counting streamed items only) uploads into slot q mod R once streamed item q - R was
 * summed there (the slot's event), up to R streamed items ahead. Items on the device
 * run where they are, in their turn. */
static int ring_run(xctx *x, part_t *p, const ring_item *it, size_t n, char *err, size_t errlen) {
  sp_gpu *g = x->g;
  sp_gpu_event **ev = x->d->ev;
  const unsigned R = x->plan.ring < 1 ? 1 : x->plan.ring > SP_RING_MAX ? SP_RING_MAX : x->plan.ring;
  const size_t sbytes = (size_t)cuda_plan_slot_bytes(&x->plan);
  void *slot[SP_RING_MAX] = {NULL};
  uint64_t *req = calloc(n ? n : 1, sizeof *req);
  if (!req) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  size_t nstr = 0;
  for (size_t i = 0; i < n; i++) nstr += it[i].dev == NULL;
  int st = SEALPROV_OK;
  const unsigned nslots = nstr < R ? (unsigned)nstr : R;
  for (unsigned s = 0; s < nslots; s++) {
    SP_TRY_GOTO(sp_gpu_alloc(g, &slot[s], sbytes, err, errlen), st, out);
    /* the slot exists once the compute stream got here: its first upload waits */
    SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_SLOT0 + s], SP_STREAM_COMPUTE, err, errlen), st, out);
  }
  size_t next = 0, pushed = 0, done = 0; /* items scanned; streamed ones queued, summed */
  for (size_t i = 0; i < n; i++) {
    for (; next < n && pushed < done + nslots; next++) {
      const ring_item *q = &it[next];
      if (q->dev) continue;
      const size_t ps = vec_psize(q->vec);
      const unsigned s = (unsigned)(pushed++ % nslots);
      SP_TRY_GOTO(
          cuda_up_push(x->up, slot[s], (const uint8_t *)host_points(p->t->srs, q->vec) + q->p0 * ps,
                       (q->p1 - q->p0) * ps, UP_HOST, ev[EV_SLOT0 + s], &req[next], err, errlen),
          st, out);
    }
    if (it[i].dev) {
      SP_TRY_GOTO(run_item(x, p, &it[i], it[i].dev, err, errlen), st, out);
      continue;
    }
    const unsigned s = (unsigned)(done % nslots);
    SP_TRY_GOTO(cuda_up_wait(x->up, req[i], &x->tm->upload_ms, err, errlen), st, out);
    SP_TRY_GOTO(run_item(x, p, &it[i], slot[s], err, errlen), st, out);
    SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_SLOT0 + s], SP_STREAM_COMPUTE, err, errlen), st, out);
    done++;
  }
out:
  if (st) {
    /* uploads still queued into the slots land before the slots are freed */
    char e2[128];
    (void)cuda_up_drain(x->up, e2, sizeof e2);
  }
  for (unsigned s = 0; s < nslots; s++) sp_gpu_free(g, slot[s], sbytes);
  free(req);
  return st;
}

/* Vector v's items into out (NULL: only counted): its points on the device first (all
 * of a resident set's; a streamed set's kept prefix), then the streamed rest, in
 * pieces of item_points (0: one piece). */
static size_t vec_items(const xctx *x, const sp_srs *srs, int v, ring_item *out) {
  const size_t n = vec_len(srs, v), per = item_points(x, v), ps = vec_psize(v);
  const size_t on = x->res ? n : x->pre ? x->pre->n[v] : 0;
  const uint8_t *base = x->res ? dev_points(x->res, v) : x->pre ? x->pre->pts[v] : NULL;
  size_t k = 0;
  for (size_t p0 = 0; p0 < n;) {
    size_t end = p0 < on ? on : n, p1 = per && p0 + per < end ? p0 + per : end;
    if (out) out[k] = (ring_item){v, p0, p1, p0 < on ? base + p0 * ps : NULL};
    k++;
    p0 = p1;
  }
  return k;
}

int cuda_msm_run(xctx *x, part_t *p, bool with_h, bool with_tail, char *err, size_t errlen) {
  const sp_srs *srs = p->t->srs;
  size_t total = 0;
  for (int v = 0; v < V_COUNT; v++)
    if (v == V_H ? with_h : with_tail) total += vec_items(x, srs, v, NULL);
  ring_item *h = calloc(total + 1, sizeof *h), *t = calloc(total + 1, sizeof *t),
            *all = calloc(total + 1, sizeof *all);
  int st = SEALPROV_OK;
  if (!h || !t || !all) {
    snprintf(err, errlen, "out of host memory");
    st = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  size_t nh = with_h ? vec_items(x, srs, V_H, h) : 0, nt = 0;
  for (int v = V_L; with_tail && v < V_COUNT; v++) nt += vec_items(x, srs, v, t + nt);
  if (x->res == NULL && x->plan.interleave) {
    interleave(h, nh, t, nt, all);
  } else {
    memcpy(all, h, nh * sizeof *h);
    memcpy(all + nh, t, nt * sizeof *t);
  }
  st = ring_run(x, p, all, nh + nt, err, errlen);
out:
  free(h);
  free(t);
  free(all);
  return st;
}
