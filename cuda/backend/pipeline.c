/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* pipeline.c -- one partition on a CUDA device (engine_internal.h), with the device lock
 * held, under the plan chosen for it (plan.c): the uploads of the assignment, decoding
 * and the a*b = c check, the H polynomial (three vectors of the domain at once, or two),
 * then the MSMs (tail.c), witness-only a, b, c on the device, and the assembly on the
 * host. */
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

static int bad_scalar(const char *what, uint64_t idx, uint32_t enc, char *err, size_t errlen) {
  snprintf(err, errlen, "%s[%llu] is not a valid %s scalar (value >= r)", what,
           (unsigned long long)idx,
           enc == SEALPROV_SCALAR_MONTGOMERY ? "Montgomery" : "canonical little-endian");
  return SEALPROV_ERR_ASSIGNMENT;
}

/* Where vector k (a, b, c) of the assignment is read from, and what kind of memory. */
static const void *abc_src(const part_t *p, int k, int *kind) {
  if (p->host_ev) {
    *kind = UP_HOST;
    const sealprov_assignment *h = &p->host_ev->asg;
    return k == 0 ? h->a : k == 1 ? h->b : h->c;
  }
  *kind = p->src_kind;
  return p->src->abc[k];
}

int cuda_queue_rest(xctx *x, part_t *p, char *err, size_t errlen) {
  if (p->rest_queued) return SEALPROV_OK;
  sp_gpu *g = x->g;
  SP_TRY(sp_gpu_alloc(g, &p->inp, p->ninp * 32, err, errlen));
  SP_TRY(sp_gpu_alloc(g, &p->aux, p->naux * 32, err, errlen));
  for (int k = 0; k < 3; k++) SP_TRY(sp_gpu_alloc(g, (void **)&p->bm[k], p->bmb[k], err, errlen));
  SP_TRY(sp_gpu_event_record(g, x->d->ev[EV_ALLOC], SP_STREAM_COMPUTE, err, errlen));
  const void *src[5] = {p->src->inp, p->src->aux, p->src->bm[0], p->src->bm[1], p->src->bm[2]};
  void *dst[5] = {p->inp, p->aux, p->bm[0], p->bm[1], p->bm[2]};
  const size_t n[5] = {p->ninp * 32, p->naux * 32, p->bmb[0], p->bmb[1], p->bmb[2]};
  for (int i = 0; i < 5; i++)
    if (src[i] && n[i])
      SP_TRY(cuda_up_push(x->up, dst[i], src[i], n[i], p->src_kind, x->d->ev[EV_ALLOC],
                          &p->rest_req, err, errlen));
  /* nothing to send (all empty): an empty request marks the point */
  if (!p->ninp && !p->naux)
    SP_TRY(cuda_up_push(x->up, p->inp, NULL, 0, UP_DEVICE, NULL, &p->rest_req, err, errlen));
  p->rest_queued = true;
  return SEALPROV_OK;
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
static int early_handoff_in(xctx *x, part_t *p, void **pbuf, char *err, size_t errlen) {
  cuda_dev *d = x->d;
  sp_gpu *g = x->g;
  void *buf = *pbuf;
  const void *src = NULL;
  size_t nbytes = 0;
  pthread_mutex_lock(&d->mu);
  const unsigned delay_us = cuda_knobs_of(d).early_delay_us;
  cuda_prep *w = d->early_want;
  if (x->res && w && w->vbytes == p->vbytes && !d->early_buf && cuda_early_room(d, p->vbytes)) {
    d->early_want = NULL;
    d->early_buf = buf;
    d->early_bytes = p->vbytes;
    d->early_owner = w;
    src = w->abc[0];
    nbytes = w->a_bytes;
    if (!w->land) { /* from w's page-locked staging: w's bytes over PCIe */
      w->pcie_bytes += nbytes;
      d->pcie_bytes += nbytes;
    }
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
  if (!st) st = sp_gpu_stream_delay(g, SP_STREAM_COPY, delay_us, err, errlen);
  if (!st) st = sp_gpu_upload_async(g, buf, src, nbytes, err, errlen);
  if (st) cuda_early_drop(d); /* not sent: w uploads its a itself */
  return st;
}

/* The same as a stage of its own: a trace tells its copy from this partition's. */
static int early_handoff(xctx *x, part_t *p, void **pbuf, char *err, size_t errlen) {
  cuda_stage_mark m = cuda_stage_in(SP_STAGE_EARLY);
  int st = early_handoff_in(x, p, pbuf, err, errlen);
  cuda_stage_out(m, NULL);
  return st;
}

/* Decodes vector k (a, b or c) of abc_size rows in buf, its domain's rest zero: the
 * values in Montgomery form, a value >= r named. */
static int decode_vec(xctx *x, part_t *p, int k, void *buf, char *err, size_t errlen) {
  static const char *names[3] = {"a", "b", "c"};
  sp_gpu *g = x->g;
  if (p->nabc < p->m)
    SP_TRY(sp_gpu_zero(g, (uint8_t *)buf + p->nabc * 32, (p->m - p->nabc) * 32, err, errlen));
  uint64_t bad = UINT64_MAX;
  SP_TRY(sp_gpu_decode_scalars(g, buf, p->nabc, p->t->scalar_encoding, true, &bad, err, errlen));
  return bad == UINT64_MAX ? SEALPROV_OK
                           : bad_scalar(names[k], bad, p->t->scalar_encoding, err, errlen);
}

static int bad_row(uint64_t row, size_t nabc, char *err, size_t errlen) {
  snprintf(err, errlen,
           "the assignment does not satisfy the circuit: a[i]*b[i] != c[i] at row %llu "
           "(first failing row; abc_size %zu)",
           (unsigned long long)row, nabc);
  return SEALPROV_ERR_ASSIGNMENT;
}

/* Queues the uploads of the first upto of a (an empty request when it came early), b
 * and c into abc[] (allocated, EV_ALLOC recorded after). */
static int queue_abc(xctx *x, part_t *p, int upto, uint64_t req[3], char *err, size_t errlen) {
  for (int k = 0; k < upto; k++) {
    int kind;
    const void *s = abc_src(p, k, &kind);
    if (k == 0 && x->tm->a_early) s = NULL; /* on the device already: an empty request */
    SP_TRY(cuda_up_push(x->up, p->abc[k], s, s ? p->nabc * 32 : 0, kind, x->d->ev[EV_ALLOC],
                        &req[k], err, errlen));
  }
  return SEALPROV_OK;
}

/* H with the three vectors on the device: decode and transform a, b, c as each arrives.
 * The a*b = c pre-check before any transform: with the plan's buffer of abc_size rows,
 * a*b collects there as a and b arrive, so a and b are transformed while the next
 * vector travels; without it all three are decoded first and checked, and the
 * transforms follow. abc_ready: a, b, c were made on the device (witness-only); else
 * req[] are their uploads (queue_abc). Each stage waits for its own work before the
 * next begins (a launch's gap on the GPU): the host then waits for a vector's copy
 * only for what the transform before it did not hide, and a stage's time is its own,
 * not the wait for the stage queued before it. */
static int part_h3(xctx *x, part_t *p, bool abc_ready, const uint64_t req[3], char *err,
                   size_t errlen) {
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const unsigned logm = p->t->srs->log_domain;
  void *ab = NULL;
  int st = SEALPROV_OK;
  cuda_stage_mark ts;
  if (p->nabc && x->plan.check_buf) SP_TRY(sp_gpu_alloc(g, &ab, p->nabc * 32, err, errlen));
  for (int k = 0; k < 3; k++) {
    if (!abc_ready) SP_TRY_GOTO(cuda_up_wait(x->up, req[k], &tm->upload_ms, err, errlen), st, out);
    ts = cuda_stage_in(SP_STAGE_DECODE);
    SP_TRY_GOTO(decode_vec(x, p, k, p->abc[k], err, errlen), st, out);
    if (ab && k == 0)
      SP_TRY_GOTO(sp_gpu_copy(g, ab, p->abc[0], p->nabc * 32, err, errlen), st, out);
    if (ab && k == 1)
      SP_TRY_GOTO(sp_gpu_fr_mul_vec(g, ab, ab, p->abc[1], p->nabc, err, errlen), st, out);
    if (ab && k < 2) SP_TRY_GOTO(sp_gpu_sync(g, err, errlen), st, out);
    cuda_stage_out(ts, &tm->decode_ms);
    if (k == 2 || !ab) continue;
    /* the GPU transforms this vector while the next one travels */
    ts = cuda_stage_in(SP_STAGE_H_NTT);
    SP_TRY_GOTO(sp_gpu_h_coset(g, p->abc[k], logm, err, errlen), st, out);
    SP_TRY_GOTO(sp_gpu_sync(g, err, errlen), st, out);
    cuda_stage_out(ts, &tm->h_ntt_ms);
  }
  ts = cuda_stage_in(SP_STAGE_DECODE);
  uint64_t row = UINT64_MAX;
  SP_TRY_GOTO(
      ab ? sp_gpu_check_rows(g, ab, NULL, p->abc[2], p->nabc, &row, err, errlen)
         : sp_gpu_check_rows(g, p->abc[0], p->abc[1], p->abc[2], p->nabc, &row, err, errlen),
      st, out);
  if (row != UINT64_MAX) {
    st = bad_row(row, p->nabc, err, errlen);
    goto out;
  }
  cuda_stage_out(ts, &tm->decode_ms);
  ts = cuda_stage_in(SP_STAGE_H_NTT);
  if (!ab) {
    SP_TRY_GOTO(sp_gpu_h_coset(g, p->abc[0], logm, err, errlen), st, out);
    SP_TRY_GOTO(sp_gpu_h_coset(g, p->abc[1], logm, err, errlen), st, out);
  }
  sp_gpu_free(g, ab, p->nabc * 32);
  ab = NULL;
  SP_TRY_GOTO(sp_gpu_h_coeffs(g, p->abc[2], logm, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_h_finish(g, p->abc[0], p->abc[1], p->abc[2], logm, err, errlen), st, out);
  cuda_stage_out(ts, &tm->h_ntt_ms);
out:
  sp_gpu_free(g, ab, p->nabc * 32);
  return st;
}

/* The pre-check with a and b decoded on the device and c read in chunks of the plan's
 * check_rows into two buffers (chunk i + 1 travels while chunk i is decoded and
 * checked): the lowest failing row, as with the whole vectors. */
static int check_c_chunked(xctx *x, part_t *p, char *err, size_t errlen) {
  sp_gpu *g = x->g;
  sp_gpu_event **ev = x->d->ev;
  const size_t rows = x->plan.check_rows ? x->plan.check_rows : p->nabc;
  const size_t nch = (p->nabc + rows - 1) / rows;
  void *buf[2] = {NULL, NULL};
  uint64_t req[2] = {0, 0};
  int kind;
  const uint8_t *c = abc_src(p, 2, &kind);
  int st = SEALPROV_OK;
  for (int i = 0; i < 2 && (size_t)i < nch; i++)
    SP_TRY_GOTO(sp_gpu_alloc(g, &buf[i], rows * 32, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_CK0], SP_STREAM_COMPUTE, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_CK1], SP_STREAM_COMPUTE, err, errlen), st, out);
  for (size_t i = 0; i <= nch; i++) {
    if (i < nch) { /* chunk i into buffer i mod 2, after chunk i - 2 was checked there */
      size_t off = i * rows, n = p->nabc - off < rows ? p->nabc - off : rows;
      SP_TRY_GOTO(cuda_up_push(x->up, buf[i & 1], c + off * 32, n * 32, kind, ev[EV_CK0 + (i & 1)],
                               &req[i & 1], err, errlen),
                  st, out);
    }
    if (i == 0) continue;
    size_t j = i - 1, off = j * rows, n = p->nabc - off < rows ? p->nabc - off : rows;
    SP_TRY_GOTO(cuda_up_wait(x->up, req[j & 1], &x->tm->upload_ms, err, errlen), st, out);
    uint64_t bad = UINT64_MAX, row = UINT64_MAX;
    SP_TRY_GOTO(
        sp_gpu_decode_scalars(g, buf[j & 1], n, p->t->scalar_encoding, true, &bad, err, errlen), st,
        out);
    if (bad != UINT64_MAX) {
      st = bad_scalar("c", off + bad, p->t->scalar_encoding, err, errlen);
      goto out;
    }
    SP_TRY_GOTO(
        sp_gpu_check_rows(g, (const uint8_t *)p->abc[0] + off * 32,
                          (const uint8_t *)p->abc[1] + off * 32, buf[j & 1], n, &row, err, errlen),
        st, out);
    if (row != UINT64_MAX) {
      st = bad_row(off + row, p->nabc, err, errlen);
      goto out;
    }
    SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_CK0 + (j & 1)], SP_STREAM_COMPUTE, err, errlen), st,
                out);
  }
out:
  if (st) { /* a chunk still travelling lands before its buffer is freed */
    char e2[128];
    (void)cuda_up_drain(x->up, e2, sizeof e2);
  }
  sp_gpu_free(g, buf[0], rows * 32);
  sp_gpu_free(g, buf[1], rows * 32);
  return st;
}

/* H with two vectors of the domain on the device: a and b decoded, c checked against
 * them in chunks; a and b transformed and multiplied; then c into b's buffer (its
 * second trip over PCIe), transformed, and the H coefficients formed. req[0], req[1]:
 * a's and b's uploads (queue_abc). As in part_h3, each stage waits for its own work:
 * c's copy waits for the transforms on the device, and the host waits for them in
 * their stage before it waits for the copy in its own. */
static int part_h2(xctx *x, part_t *p, uint64_t req[3], char *err, size_t errlen) {
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const unsigned logm = p->t->srs->log_domain;
  for (int k = 0; k < 2; k++) {
    SP_TRY(cuda_up_wait(x->up, req[k], &tm->upload_ms, err, errlen));
    cuda_stage_mark ts = cuda_stage_in(SP_STAGE_DECODE);
    SP_TRY(decode_vec(x, p, k, p->abc[k], err, errlen));
    cuda_stage_out(ts, &tm->decode_ms);
  }
  /* the chunks' uploads inside are the upload stage's, not counted twice */
  const double up0 = tm->upload_ms;
  cuda_stage_mark ts = cuda_stage_in(SP_STAGE_DECODE);
  if (p->nabc) SP_TRY(check_c_chunked(x, p, err, errlen));
  cuda_stage_out(ts, &tm->decode_ms);
  tm->decode_ms -= tm->upload_ms - up0;
  ts = cuda_stage_in(SP_STAGE_H_NTT);
  SP_TRY(sp_gpu_h_coset(g, p->abc[0], logm, err, errlen));
  SP_TRY(sp_gpu_h_coset(g, p->abc[1], logm, err, errlen));
  SP_TRY(sp_gpu_fr_mul_vec(g, p->abc[0], p->abc[0], p->abc[1], p->m, err, errlen));
  SP_TRY(sp_gpu_event_record(g, x->d->ev[EV_HSLOT], SP_STREAM_COMPUTE, err, errlen));
  int kind;
  const void *c = abc_src(p, 2, &kind);
  SP_TRY(cuda_up_push(x->up, p->abc[1], c, p->nabc * 32, kind, x->d->ev[EV_HSLOT], &req[2], err,
                      errlen));
  SP_TRY(sp_gpu_sync(g, err, errlen));
  cuda_stage_out(ts, &tm->h_ntt_ms);
  SP_TRY(cuda_up_wait(x->up, req[2], &tm->upload_ms, err, errlen));
  ts = cuda_stage_in(SP_STAGE_DECODE);
  SP_TRY(decode_vec(x, p, 2, p->abc[1], err, errlen));
  cuda_stage_out(ts, &tm->decode_ms);
  ts = cuda_stage_in(SP_STAGE_H_NTT);
  SP_TRY(sp_gpu_h_coeffs(g, p->abc[1], logm, err, errlen));
  SP_TRY(sp_gpu_h_finish(g, p->abc[0], NULL, p->abc[1], logm, err, errlen));
  cuda_stage_out(ts, &tm->h_ntt_ms);
  return SEALPROV_OK;
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

/* H: the three or two vectors (plan), then H's coefficients in a's buffer: natural order
 * for a streamed set's chunks, bit-reversed for resident points (the MSM reads them so,
 * with no permutation pass). b's buffer goes to the next partition or is freed; the
 * rest of the assignment is queued here when the plan says it travels during the H MSM. */
static int part_h(xctx *x, part_t *p, bool abc_ready, uint64_t req[3], char *err, size_t errlen) {
  sp_gpu *g = x->g;
  SP_TRY(x->plan.h_slots == 3 ? part_h3(x, p, abc_ready, req, err, errlen)
                              : part_h2(x, p, req, err, errlen));
  cuda_stage_mark ts = cuda_stage_in(SP_STAGE_H_NTT);
  sp_gpu_free(g, p->abc[2], p->vbytes);
  p->abc[2] = NULL;
  SP_TRY(sp_gpu_fr_from_mont(g, p->abc[0], p->m, err, errlen));
  if (x->res == NULL) SP_TRY(sp_gpu_bitrev_dev(g, p->abc[0], p->t->srs->log_domain, err, errlen));
  SP_TRY(early_handoff(x, p, &p->abc[1], err, errlen)); /* b's buffer: freed or handed over */
  if (x->plan.rest_at == 1) SP_TRY(cuda_queue_rest(x, p, err, errlen)); /* into its room */
  SP_TRY(sp_gpu_sync(g, err, errlen));
  cuda_stage_out(ts, &x->tm->h_ntt_ms);
  return SEALPROV_OK;
}

/* The device copy of a witness-only partition's system (made now if it fits), or a, b
 * and c made on the host (p->host_ev) when it does not. */
static int cs_prepare(xctx *x, part_t *p, sp_gpu_cs **dc, char *err, size_t errlen) {
  cuda_dev *d = x->d;
  SP_TRY(get_cs_resident(d, x->cs, p->vbytes, dc, err, errlen));
  if (*dc) return SEALPROV_OK;
  cuda_stage_mark ts = cuda_stage_in(SP_STAGE_SPMV);
  sealprov_assignment w = *p->t->asg; /* the witness: inputs and aux */
  SP_TRY(
      sp_cs_evaluate(x->cs, &w, p->t->scalar_encoding, x->cpu_threads, &p->host_ev, err, errlen));
  sp_hostmem_add(d->hm, d->index, (uint64_t)p->host_ev->asg.abc_size * 32 * 3);
  cuda_stage_out(ts, &x->tm->spmv_ms);
  return SEALPROV_OK;
}

/* A witness-only partition's a, b, c made in p->abc[] on the device: the witness (with
 * the bitmaps) first, range-checked, then the three products. */
static int cs_abc(xctx *x, part_t *p, sp_gpu_cs *dc, char *err, size_t errlen) {
  sp_gpu *g = x->g;
  const uint32_t enc = p->t->scalar_encoding;
  x->tm->spmv_on_gpu = true;
  SP_TRY(cuda_queue_rest(x, p, err, errlen));
  SP_TRY(cuda_up_wait(x->up, p->rest_req, &x->tm->upload_ms, err, errlen));
  cuda_stage_mark ts = cuda_stage_in(SP_STAGE_SPMV);
  uint64_t bad = UINT64_MAX;
  SP_TRY(sp_gpu_cs_check_witness(g, dc, p->inp, p->aux, &bad, err, errlen));
  if (bad != UINT64_MAX)
    return bad < p->ninp ? bad_scalar("inp_assignment", bad, enc, err, errlen)
                         : bad_scalar("aux_assignment", bad - p->ninp, enc, err, errlen);
  SP_TRY(sp_gpu_cs_eval(g, dc, p->inp, p->aux, p->abc[0], p->abc[1], p->abc[2], err, errlen));
  SP_TRY(sp_gpu_sync(g, err, errlen)); /* for the stage's time */
  cuda_stage_out(ts, &x->tm->spmv_ms);
  return SEALPROV_OK;
}

/* The bytes this execute's pool may reach: memory_limit less what the engine holds
 * outside the pool (resident sets, staging buffers), or what the card has (its free
 * memory, the pool's cache, and what the pool holds: less 2 % and 256 MiB, for what
 * the driver and other programs take meanwhile), whichever is less. */
static uint64_t pool_cap(cuda_dev *d, uint64_t *held_out) {
  pthread_mutex_lock(&d->mu);
  uint64_t held = cuda_resident_bytes(d) + d->land_bytes;
  pthread_mutex_unlock(&d->mu);
  *held_out = held;
  sp_gpu_set_held(d->gpu, held);
  uint64_t in_use = sp_gpu_memory_in_use(d->gpu), reserved = sp_gpu_pool_reserved(d->gpu);
  uint64_t free_b = 0, total_b = 0, cap = 0;
  if (sp_gpu_mem_info(d->gpu, &free_b, &total_b) == SEALPROV_OK) {
    cap = in_use + free_b + (reserved > in_use ? reserved - in_use : 0);
    uint64_t margin = total_b / 50 + (256ull << 20);
    cap = cap > margin ? cap - margin : 0;
  }
  if (d->memory_limit) {
    uint64_t lim = d->memory_limit > held ? d->memory_limit - held : 0;
    if (!cap || lim < cap) cap = lim;
  }
  return cap;
}

/* The plan for this partition (x->plan): from what the pool may still take, counting
 * an early-uploaded a as this partition's own. A test build's knob may force a tier. */
static void choose_plan(xctx *x, const part_t *p, bool gpu_cs) {
  cuda_dev *d = x->d;
  cuda_plan_in in;
  cuda_plan_input(p->t->srs, p->t->asg, x->res != NULL, gpu_cs, d->sm_count, &in);
  pthread_mutex_lock(&d->mu);
  const cuda_knobs k = cuda_knobs_of(d);
  pthread_mutex_unlock(&d->mu);
  in.no_check_buf = k.no_check_buffer;
  in.chunk = k.stream_chunk;
  const int forced = k.force_tier;
  in.chunk_cap = x->chunk_cap;
  in.min_tier = x->min_tier;
  if (forced >= 0 && (unsigned)forced > in.min_tier) in.min_tier = (unsigned)forced;
  x->pool_cap = pool_cap(d, &x->held);
  uint64_t in_use = sp_gpu_memory_in_use(x->g) - (x->tm->a_early ? p->vbytes : 0);
  uint64_t budget = x->pool_cap > in_use ? x->pool_cap - in_use : 0;
  /* forced: that tier whatever it needs (its allocations say when it does not fit) */
  (void)cuda_plan_choose(&in, forced >= 0 ? UINT64_MAX : budget, &x->plan);
  x->plan.budget = budget;
  x->tm->plan_tier = x->plan.tier;
  x->tm->plan_h_slots = x->plan.h_slots;
  x->tm->plan_need_bytes = x->plan.need;
  x->tm->plan_budget_bytes = budget;
}

/* A streamed set's points kept on the device between partitions (x->pre): the prefix
 * made by an earlier partition, or one made now in what the plan leaves of the budget
 * when that is at least a ring slot (not on an out-of-memory retry, not when streaming
 * is forced). From then on the device holds it, so the same plan fits the next
 * partitions with nothing left over. */
static int keep_prefix(xctx *x, const part_t *p, char *err, size_t errlen) {
  cuda_dev *d = x->d;
  pthread_mutex_lock(&d->mu);
  const bool force = cuda_knobs_of(d).force_stream;
  x->pre = x->res ? NULL : cuda_find_prefix(d, p->t->srs);
  pthread_mutex_unlock(&d->mu);
  /* what is left, less the plan's margin once more: the tables it counts are already
   * in the pool from the second partition on, and the budget must still fit the plan */
  const uint64_t slot = cuda_plan_slot_bytes(&x->plan);
  const uint64_t margin = cuda_plan_margin(p->t->srs->log_domain);
  uint64_t left = x->plan.budget > x->plan.need ? x->plan.budget - x->plan.need : 0;
  left = left > margin ? left - margin : 0;
  if (x->res || x->pre || !x->allow_resident || force || left < slot) {
    if (x->pre) x->tm->resident_prefix_bytes = x->pre->bytes;
    return SEALPROV_OK;
  }
  SP_TRY(cuda_make_prefix(d, p->t->srs, left, 64, &x->pre, &x->tm->pcie_bytes,
                          &x->tm->srs_upload_ms, err, errlen));
  if (!x->pre) return SEALPROV_OK;
  x->tm->resident_prefix_bytes = x->pre->bytes;
  x->held += x->pre->bytes;
  x->pool_cap = x->pool_cap > x->pre->bytes ? x->pool_cap - x->pre->bytes : 0;
  sp_gpu_set_held(x->g, x->held);
  return SEALPROV_OK;
}

/* A partition's state: its sizes, where its assignment is, its sums at infinity. */
static part_t *part_new(const sp_task *t, const cuda_prep *src) {
  part_t *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  const sealprov_assignment *asg = t->asg;
  p->t = t;
  p->src = src;
  p->src_kind = src->land ? UP_DEVICE : src->buf ? UP_PINNED : UP_HOST;
  p->m = (size_t)1 << t->srs->log_domain;
  p->nabc = (size_t)asg->abc_size;
  p->ninp = (size_t)asg->inp_size;
  p->naux = (size_t)asg->aux_size;
  p->vbytes = p->m * sizeof(fr_t);
  p->bmb[0] = bitmap_bytes(asg->a_aux_bit_len);
  p->bmb[1] = bitmap_bytes(asg->b_inp_bit_len);
  p->bmb[2] = bitmap_bytes(asg->b_aux_bit_len);
  g1_jac_set_inf(&p->h_acc);
  g1_jac_set_inf(&p->l_acc);
  g1_jac_set_inf(&p->a_acc);
  g1_jac_set_inf(&p->b1_acc);
  g2_jac_set_inf(&p->b2_acc);
  return p;
}

/* Frees what a partition holds (its uploads have landed: closed first). */
static void part_free(xctx *x, part_t *p) {
  sp_gpu *g = x->g;
  const sp_srs *srs = p->t->srs;
  for (int k = 0; k < 3; k++) sp_gpu_free(g, p->abc[k], p->vbytes);
  sp_gpu_free(g, p->inp, p->ninp * 32);
  sp_gpu_free(g, p->aux, p->naux * 32);
  for (int k = 0; k < 3; k++) sp_gpu_free(g, p->bm[k], p->bmb[k]);
  sp_gpu_free(g, p->idx_a, (srs->a_len > p->ninp ? srs->a_len - p->ninp : 0) * 4);
  sp_gpu_free(g, p->idx_b, srs->b_g1_len * 4);
  if (p->host_ev) {
    sp_hostmem_release(x->d->hm, x->d->index, (uint64_t)p->host_ev->asg.abc_size * 32 * 3);
    sp_cs_eval_free(p->host_ev);
  }
  free(p);
}

int cuda_prove_partition(xctx *x, const sp_task *t, const cuda_prep *src, uint8_t proof[192],
                         char *err, size_t errlen) {
  cuda_dev *d = x->d;
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const sp_srs *srs = t->srs;
  int st = SEALPROV_OK;
  part_t *p = part_new(t, src);
  if (!p) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  cuda_stage_mark ts;
  if (x->early_a) { /* a is on the device already (early upload): this partition's now */
    p->abc[0] = x->early_a;
    x->early_a = NULL;
    tm->a_early = true;
    /* Its copy ran on the context's copy stream, which none of this execute's uploads
     * (their own transfer stream, upload.c) is ordered after: a prepare on an idle
     * device may have queued it a moment ago, and it can still be travelling. The host
     * waits for it here, in the upload's time rather than in a's decoding. */
    ts = cuda_stage_in(SP_STAGE_UPLOAD);
    SP_TRY_GOTO(sp_gpu_join_copy(g, err, errlen), st, out);
    SP_TRY_GOTO(sp_gpu_sync(g, err, errlen), st, out);
    cuda_stage_out(ts, &tm->upload_ms);
  }

  x->res = NULL;
  ts = cuda_stage_in(SP_STAGE_PARAMS); /* its times are srs_upload_ms and precompute_ms */
  if (x->allow_resident)
    SP_TRY_GOTO(
        cuda_get_resident(d, srs, &x->res, &tm->srs_upload_ms, &tm->pcie_bytes, err, errlen), st,
        out);
  if (x->res) SP_TRY_GOTO(cuda_make_tables(d, x->res, srs, tm, err, errlen), st, out);
  if (x->res) tm->precompute_bytes = x->res->tab_bytes;
  tm->streamed = x->res == NULL;
  cuda_stage_out(ts, NULL);
  sp_gpu_cs *dc = NULL;
  if (x->cs) SP_TRY_GOTO(cs_prepare(x, p, &dc, err, errlen), st, out);
  choose_plan(x, p, dc != NULL);
  ts = cuda_stage_in(SP_STAGE_PARAMS);
  SP_TRY_GOTO(keep_prefix(x, p, err, errlen), st, out);
  cuda_stage_out(ts, NULL);
  tm->stream_chunk = x->res ? 0 : x->plan.chunk;
  sp_gpu_reset_peak(g);
  SP_TRY_GOTO(cuda_up_open(d, x->cpu_threads, &x->up, err, errlen), st, out);

  /* ---- the domain's vectors (and the rest of the assignment, when the plan says so):
   * all uploads queued in the order they are needed, on one transfer stream */
  ts = cuda_stage_in(SP_STAGE_UPLOAD);
  for (int k = 0; k < (int)x->plan.h_slots; k++)
    if (!p->abc[k]) SP_TRY_GOTO(sp_gpu_alloc(g, &p->abc[k], p->vbytes, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_event_record(g, d->ev[EV_ALLOC], SP_STREAM_COMPUTE, err, errlen), st, out);
  uint64_t req[3] = {0, 0, 0};
  if (!dc) SP_TRY_GOTO(queue_abc(x, p, (int)x->plan.h_slots, req, err, errlen), st, out);
  if (x->plan.rest_at == 0) SP_TRY_GOTO(cuda_queue_rest(x, p, err, errlen), st, out);
  cuda_stage_out(ts, &tm->upload_ms);
  if (dc) SP_TRY_GOTO(cs_abc(x, p, dc, err, errlen), st, out);
  SP_TRY_GOTO(part_h(x, p, dc != NULL, req, err, errlen), st, out);

  /* ---- the MSMs: H interleaved with L, A, B, or H then L, A, B */
  if (x->plan.interleave) {
    SP_TRY_GOTO(cuda_queue_rest(x, p, err, errlen), st, out);
    SP_TRY_GOTO(cuda_tail_prep(x, p, err, errlen), st, out);
    SP_TRY_GOTO(cuda_msm_run(x, p, true, true, err, errlen), st, out);
    SP_TRY_GOTO(early_handoff(x, p, &p->abc[0], err, errlen), st, out);
  } else {
    SP_TRY_GOTO(cuda_msm_run(x, p, true, false, err, errlen), st, out);
    SP_TRY_GOTO(early_handoff(x, p, &p->abc[0], err, errlen), st, out); /* freed or handed over */
    SP_TRY_GOTO(cuda_queue_rest(x, p, err, errlen), st, out);
    SP_TRY_GOTO(cuda_tail_prep(x, p, err, errlen), st, out);
    SP_TRY_GOTO(cuda_msm_run(x, p, false, true, err, errlen), st, out);
  }

  ts = cuda_stage_in(SP_STAGE_HOST);
  sp_groth16_assemble(srs, &t->r, &t->s, &p->h_acc, &p->l_acc, &p->a_acc, &p->b1_acc, &p->b2_acc,
                      proof);
  cuda_stage_out(ts, &tm->host_ms);
out : {
  /* every upload lands before the buffers it writes are freed (the frees below run on
   * the compute stream, in its order) */
  char e2[256];
  if (x->up) tm->pcie_bytes += cuda_up_pcie_bytes(x->up);
  int st2 = cuda_up_close(x->up, e2, sizeof e2);
  if (!st && st2) {
    snprintf(err, errlen, "%s", e2);
    st = st2;
  }
  x->up = NULL;
  (void)sp_gpu_join_copy(g, e2, sizeof e2);
}
  tm->device_peak_bytes = sp_gpu_memory_peak(g) + x->held;
  part_free(x, p);
  return st;
}
