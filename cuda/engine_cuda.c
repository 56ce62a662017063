/* engine_cuda.c -- the CUDA engine behind engine.h: one partition proved on one GPU.
 *
 * Plain C11 on top of the C boundary of the kernels (sp_gpu.h): srs.h uses C11
 * atomics, which C++ does not have, and nothing here needs C++.
 *
 * Device state lives in the engine's device handle: one sp_gpu context (stream,
 * memory pool, NTT tables), created by the first worker thread that binds (after
 * cudaSetDevice + cudaGetDevice confirmed the ordinal) and destroyed by the last one
 * that unbinds, so every CUDA call that touches it runs on a thread bound to this
 * device. Parameter points of each sp_srs stay resident on the device while the
 * memory budget allows (evicted by srs_evict); otherwise each MSM uploads its vector
 * and frees it after use.
 *
 * execute() runs with the device lock held: H pipeline and MSMs on the device, the
 * final few point operations (Horner over the window sums, A/B/C assembly,
 * compression) on the host with the CPU library. The group elements are those of
 * sp_groth16_prove, so with the same r and s the 192 bytes are identical.
 */
#include <config.h> /* autoconf's (first through -I.): HAVE_CUDA declares sp_engine_cuda */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sp_gpu.h" /* first: hides <math.h>'s FP_ZERO from bls12_381.h */
#include "../plugin/config.h" /* sp_device_cfg (not autoconf's config.h) */
#include "engine.h"
#include "engine_cuda.h"
#include "groth16.h"
#include "srs.h"

/* Device memory a partition needs besides the parameter points, on top of its three
 * domain-sized vectors: MSM sort buffers (about 4 GiB per window batch), buckets,
 * scalars. Used to decide whether a parameter set may stay resident. */
#define SP_SCRATCH_RESERVE (10ull << 30)

/* A status-returning call that jumps to the cleanup label on failure. */
#define SP_TRY_GOTO(expr, status, label)                                                       \
  do {                                                                                         \
    (status) = (expr);                                                                         \
    if ((status) != SEALPROV_OK) goto label;                                                   \
  } while (0)

typedef struct cuda_resident {
  const sp_srs *srs;
  void *h, *l, *a, *b1, *b2;
  size_t bytes;
  struct cuda_resident *next;
} cuda_resident;

typedef struct cuda_dev {
  unsigned index;
  char section[64];
  int ordinal;
  uint64_t memory_limit;
  pthread_mutex_t mu; /* gpu creation, bound count, resident list, timings */
  sp_gpu *gpu;
  unsigned bound;
  cuda_resident *res;
  sp_cuda_timings last;
} cuda_dev;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cuda_device_open(const struct sp_device_cfg *cfg, void **dev, char *err, size_t errlen) {
  /* No CUDA call here: this runs on the provider's thread, whose current device must
   * not change. */
  if (!cfg || cfg->ordinal < 0) {
    snprintf(err, errlen, "cuda device %s: no resolved ordinal", cfg ? cfg->section : "(null)");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  cuda_dev *d = calloc(1, sizeof *d);
  if (!d) {
    snprintf(err, errlen, "cuda device [%s]: out of host memory", cfg->section);
    return SEALPROV_ERR_NO_MEMORY;
  }
  d->index = cfg->index;
  snprintf(d->section, sizeof d->section, "%s", cfg->section);
  d->ordinal = cfg->ordinal;
  d->memory_limit = cfg->memory_limit;
  pthread_mutex_init(&d->mu, NULL);
  *dev = d;
  return SEALPROV_OK;
}

static void free_resident(cuda_dev *d, cuda_resident *r) {
  void *p[5] = {r->h, r->l, r->a, r->b1, r->b2};
  for (int i = 0; i < 5; i++)
    if (p[i]) sp_gpu_free_persistent(d->ordinal, p[i]);
  free(r);
}

/* Frees every resident set; the calling thread must be bound to d's device. */
static void drop_all_resident(cuda_dev *d) {
  while (d->res) {
    cuda_resident *r = d->res;
    d->res = r->next;
    free_resident(d, r);
  }
}

static void cuda_device_close(void *dev) {
  cuda_dev *d = dev;
  if (!d) return;
  /* Workers destroyed the context when the last one unbound; if a worker never got
   * that far (failed bind), nothing was created. */
  pthread_mutex_destroy(&d->mu);
  free(d);
}

static int cuda_worker_bind(void *dev, unsigned worker, int *confirmed_ordinal, char *err,
                            size_t errlen) {
  cuda_dev *d = dev;
  int confirmed = -1;
  int st = sp_gpu_bind(d->ordinal, &confirmed, err, errlen);
  if (confirmed_ordinal) *confirmed_ordinal = confirmed;
  if (st) {
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", err);
    snprintf(err, errlen, "cuda device [%s] worker %u: %s", d->section, worker, tmp);
    return st;
  }
  pthread_mutex_lock(&d->mu);
  if (!d->gpu) st = sp_gpu_create(d->ordinal, d->memory_limit, &d->gpu, err, errlen);
  if (!st) d->bound++;
  pthread_mutex_unlock(&d->mu);
  return st;
}

static void cuda_worker_unbind(void *dev, unsigned worker) {
  (void)worker;
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  if (d->bound > 0 && --d->bound == 0 && d->gpu) {
    /* last worker of this device: this thread is bound to it, so device memory and
     * the stream can go here */
    drop_all_resident(d);
    sp_gpu_destroy(d->gpu);
    d->gpu = NULL;
  }
  pthread_mutex_unlock(&d->mu);
}

static int cuda_prepare(void *dev, const sp_task *t, void **prep, char *err, size_t errlen) {
  (void)dev;
  *prep = NULL;
  /* Host-only work, outside the device lock: the size and density checks. */
  return sp_groth16_check_assignment(t->srs, t->asg, err, errlen);
}

/* ---- parameter residency ------------------------------------------------------- */

static size_t srs_bytes(const sp_srs *s) {
  return (s->h_len + s->l_len + s->a_len + s->b_g1_len) * sizeof(g1_affine_t) +
         s->b_g2_len * sizeof(g2_affine_t);
}

static int upload_vec(sp_gpu *g, void **d, const void *h, size_t bytes, char *err, size_t errlen) {
  *d = NULL;
  if (bytes == 0) return SEALPROV_OK;
  return sp_gpu_alloc_upload_persistent(g, d, h, bytes, err, errlen);
}

/* The resident copy of srs, made now if the budget allows; NULL (and OK) when the set
 * is to be streamed instead. Called with the device lock held. */
static int get_resident(cuda_dev *d, const sp_srs *srs, cuda_resident **out, double *ms, char *err,
                        size_t errlen) {
  *out = NULL;
  pthread_mutex_lock(&d->mu);
  for (cuda_resident *r = d->res; r; r = r->next)
    if (r->srs == srs) {
      *out = r;
      pthread_mutex_unlock(&d->mu);
      return SEALPROV_OK;
    }
  pthread_mutex_unlock(&d->mu);
  size_t need = srs_bytes(srs);
  size_t work = 3 * (((size_t)1 << srs->log_domain) * sizeof(fr_t)) + SP_SCRATCH_RESERVE;
  uint64_t free_b = 0, total_b = 0;
  if (sp_gpu_mem_info(d->gpu, &free_b, &total_b) != SEALPROV_OK)
    return SEALPROV_OK; /* stream instead; a real device fault shows up later */
  uint64_t in_use = sp_gpu_memory_in_use(d->gpu);
  for (cuda_resident *r = d->res; r; r = r->next) in_use += r->bytes;
  bool fits = need + work <= free_b;
  if (d->memory_limit && in_use + need + work > d->memory_limit) fits = false;
  if (!fits) return SEALPROV_OK;
  double t0 = now_ms();
  cuda_resident *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  r->srs = srs;
  r->bytes = need;
  int st = upload_vec(d->gpu, &r->h, srs->h, srs->h_len * sizeof(g1_affine_t), err, errlen);
  if (!st) st = upload_vec(d->gpu, &r->l, srs->l, srs->l_len * sizeof(g1_affine_t), err, errlen);
  if (!st) st = upload_vec(d->gpu, &r->a, srs->a, srs->a_len * sizeof(g1_affine_t), err, errlen);
  if (!st) st = upload_vec(d->gpu, &r->b1, srs->b_g1, srs->b_g1_len * sizeof(g1_affine_t), err, errlen);
  if (!st) st = upload_vec(d->gpu, &r->b2, srs->b_g2, srs->b_g2_len * sizeof(g2_affine_t), err, errlen);
  if (st) {
    free_resident(d, r);
    /* Not enough memory after all: stream. Other errors are device failures. */
    return st == SEALPROV_ERR_DEVICE_MEMORY ? SEALPROV_OK : st;
  }
  pthread_mutex_lock(&d->mu);
  r->next = d->res;
  d->res = r;
  pthread_mutex_unlock(&d->mu);
  *ms = now_ms() - t0;
  *out = r;
  return SEALPROV_OK;
}

static void cuda_srs_evict(void *dev, const struct sp_srs *srs) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  cuda_resident **pp = &d->res;
  while (*pp && (*pp)->srs != srs) pp = &(*pp)->next;
  cuda_resident *r = *pp;
  if (r) *pp = r->next;
  pthread_mutex_unlock(&d->mu);
  /* May run on any thread (the one dropping the last reference): the free switches
   * to this device and back, so that thread's binding is unchanged. */
  if (r) free_resident(d, r);
}

static uint64_t cuda_memory_in_use(void *dev) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  uint64_t n = d->gpu ? sp_gpu_memory_in_use(d->gpu) : 0;
  for (cuda_resident *r = d->res; r; r = r->next) n += r->bytes;
  pthread_mutex_unlock(&d->mu);
  return n;
}

/* ---- one partition ---------------------------------------------------------------- */

/* A device vector that is either resident (not owned) or uploaded for one use. */
typedef struct dvec {
  void *p;
  size_t bytes;
  bool owned;
} dvec;

static int points_for(sp_gpu *g, dvec *v, void *resident, const void *host, size_t bytes,
                      char *err, size_t errlen) {
  v->bytes = bytes;
  if (resident || bytes == 0) {
    v->p = resident;
    v->owned = false;
    return SEALPROV_OK;
  }
  v->owned = true;
  int st = sp_gpu_alloc(g, &v->p, bytes, err, errlen);
  if (!st) st = sp_gpu_upload(g, v->p, host, bytes, err, errlen);
  return st;
}

static void dvec_free(sp_gpu *g, dvec *v) {
  if (v->owned) sp_gpu_free(g, v->p, v->bytes);
  v->p = NULL;
  v->owned = false;
}

static int bad_scalar(const char *what, uint64_t idx, uint32_t enc, char *err, size_t errlen) {
  snprintf(err, errlen, "%s[%llu] is not a valid %s scalar (value >= r)", what,
           (unsigned long long)idx,
           enc == SEALPROV_SCALAR_MONTGOMERY ? "Montgomery" : "canonical little-endian");
  return SEALPROV_ERR_ASSIGNMENT;
}

/* Uploads n raw scalars into d (capacity for n), decodes them in place. */
static int upload_scalars(sp_gpu *g, void *d, const void *h, size_t n, uint32_t enc, bool to_mont,
                          const char *what, char *err, size_t errlen) {
  if (n == 0) return SEALPROV_OK;
  int st = sp_gpu_upload(g, d, h, n * 32, err, errlen);
  uint64_t bad = UINT64_MAX;
  if (!st) st = sp_gpu_decode_scalars(g, d, n, enc, to_mont, &bad, err, errlen);
  if (!st && bad != UINT64_MAX) st = bad_scalar(what, bad, enc, err, errlen);
  return st;
}

static int upload_bitmap(sp_gpu *g, uint64_t **d, const uint64_t *h, uint64_t bits, char *err,
                         size_t errlen) {
  size_t bytes = (size_t)((bits + 63) / 64) * 8;
  int st = sp_gpu_alloc(g, (void **)d, bytes, err, errlen);
  if (!st && bytes) st = sp_gpu_upload(g, *d, h, bytes, err, errlen);
  return st;
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

/* sum over one split: batch addition of the ones + Pippenger over the rest */
static int msm_split_g1(sp_gpu *g, g1_jac_t *out, const void *d_points, const split_t *s,
                        double *ba_ms, double *msm_ms, char *err, size_t errlen) {
  g1_jac_t ones;
  double t0 = now_ms();
  int st = sp_gpu_batch_add_g1_dev(g, &ones, d_points, s->ones, s->n, err, errlen);
  if (st) return st;
  double t1 = now_ms();
  sp_msm_args a;
  memset(&a, 0, sizeof a);
  a.d_points = d_points;
  a.d_scalars = s->rest;
  a.d_index = s->idx;
  a.n = s->n_rest;
  st = sp_gpu_msm_g1_dev(g, out, &a, err, errlen);
  if (st) return st;
  g1_jac_add(out, out, &ones);
  *ba_ms += t1 - t0;
  *msm_ms += now_ms() - t1;
  return SEALPROV_OK;
}

static int msm_split_g2(sp_gpu *g, g2_jac_t *out, const void *d_points, const split_t *s,
                        double *ms, char *err, size_t errlen) {
  g2_jac_t ones;
  double t0 = now_ms();
  int st = sp_gpu_batch_add_g2_dev(g, &ones, d_points, s->ones, s->n, err, errlen);
  if (st) return st;
  sp_msm_args a;
  memset(&a, 0, sizeof a);
  a.d_points = d_points;
  a.d_scalars = s->rest;
  a.d_index = s->idx;
  a.n = s->n_rest;
  st = sp_gpu_msm_g2_dev(g, out, &a, err, errlen);
  if (st) return st;
  g2_jac_add(out, out, &ones);
  *ms += now_ms() - t0;
  return SEALPROV_OK;
}

static int prove_partition(cuda_dev *d, const sp_task *t, uint8_t proof[192], sp_cuda_timings *tm,
                           char *err, size_t errlen) {
  sp_gpu *g = d->gpu;
  const sp_srs *srs = t->srs;
  const sealprov_assignment *asg = t->asg;
  const uint32_t enc = t->scalar_encoding;
  const unsigned logm = srs->log_domain;
  const size_t m = (size_t)1 << logm, nabc = (size_t)asg->abc_size;
  const size_t ninp = (size_t)asg->inp_size, naux = (size_t)asg->aux_size;
  const size_t vbytes = m * sizeof(fr_t);
  double t0 = now_ms(), ts;
  int st = SEALPROV_OK;
  cuda_resident *res = NULL;
  void *abc[3] = {NULL, NULL, NULL};
  void *inp = NULL, *aux = NULL, *as = NULL, *bs = NULL;
  uint64_t *bm_a = NULL, *bm_binp = NULL, *bm_baux = NULL;
  split_t sp_l, sp_a, sp_b;
  dvec pts;
  memset(&sp_l, 0, sizeof sp_l);
  memset(&sp_a, 0, sizeof sp_a);
  memset(&sp_b, 0, sizeof sp_b);
  memset(&pts, 0, sizeof pts);
  g1_jac_t h_acc, l_acc, a_acc, b1_acc;
  g2_jac_t b2_acc;
  size_t n_a = 0, n_bi = 0, n_ba = 0;
  static const char *names[3] = {"a", "b", "c"};
  const void *src[3] = {asg->a, asg->b, asg->c};
  sp_msm_args ha;

  SP_TRY_GOTO(get_resident(d, srs, &res, &tm->srs_upload_ms, err, errlen), st, out);

  /* ---- H ---- */
  ts = now_ms();
  for (int k = 0; k < 3; k++) {
    SP_TRY_GOTO(sp_gpu_alloc(g, &abc[k], vbytes, err, errlen), st, out);
    SP_TRY_GOTO(sp_gpu_upload(g, abc[k], src[k], nabc * 32, err, errlen), st, out);
    if (nabc < m)
      SP_TRY_GOTO(sp_gpu_zero(g, (uint8_t *)abc[k] + nabc * 32, (m - nabc) * 32, err, errlen), st,
                  out);
  }
  SP_TRY_GOTO(sp_gpu_sync(g, err, errlen), st, out);
  tm->upload_ms += now_ms() - ts;
  ts = now_ms();
  for (int k = 0; k < 3; k++) {
    uint64_t bad = UINT64_MAX;
    SP_TRY_GOTO(sp_gpu_decode_scalars(g, abc[k], nabc, enc, true, &bad, err, errlen), st, out);
    if (bad != UINT64_MAX) {
      st = bad_scalar(names[k], bad, enc, err, errlen);
      goto out;
    }
  }
  tm->decode_ms += now_ms() - ts;
  ts = now_ms();
  SP_TRY_GOTO(sp_gpu_h_poly(g, abc[0], abc[1], abc[2], logm, err, errlen), st, out);
  sp_gpu_free(g, abc[1], vbytes);
  sp_gpu_free(g, abc[2], vbytes);
  abc[1] = abc[2] = NULL;
  SP_TRY_GOTO(sp_gpu_fr_from_mont(g, abc[0], m, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_sync(g, err, errlen), st, out);
  tm->h_ntt_ms += now_ms() - ts;

  ts = now_ms();
  SP_TRY_GOTO(points_for(g, &pts, res ? res->h : NULL, srs->h, srs->h_len * sizeof(g1_affine_t),
                         err, errlen),
              st, out);
  memset(&ha, 0, sizeof ha);
  ha.d_points = pts.p;
  ha.d_scalars = abc[0];
  ha.n = m - 1; /* coefficient m-1 sits at position m-1 (all bits set) and is left out */
  ha.flags = SP_MSM_BITREV_POINTS;
  ha.log_bitrev = logm;
  SP_TRY_GOTO(sp_gpu_msm_g1_dev(g, &h_acc, &ha, err, errlen), st, out);
  dvec_free(g, &pts);
  sp_gpu_free(g, abc[0], vbytes);
  abc[0] = NULL;
  tm->h_msm_ms += now_ms() - ts;

  /* ---- scalars: inputs and aux (canonical), density filtering, 0/1 split ---- */
  ts = now_ms();
  SP_TRY_GOTO(sp_gpu_alloc(g, &inp, ninp * 32, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, &aux, naux * 32, err, errlen), st, out);
  SP_TRY_GOTO(upload_bitmap(g, &bm_a, asg->a_aux_density, asg->a_aux_bit_len, err, errlen), st, out);
  SP_TRY_GOTO(upload_bitmap(g, &bm_binp, asg->b_inp_density, asg->b_inp_bit_len, err, errlen), st,
              out);
  SP_TRY_GOTO(upload_bitmap(g, &bm_baux, asg->b_aux_density, asg->b_aux_bit_len, err, errlen), st,
              out);
  tm->upload_ms += now_ms() - ts;
  ts = now_ms();
  SP_TRY_GOTO(upload_scalars(g, inp, asg->inp_assignment, ninp, enc, false, "inp_assignment", err,
                             errlen),
              st, out);
  SP_TRY_GOTO(upload_scalars(g, aux, asg->aux_assignment, naux, enc, false, "aux_assignment", err,
                             errlen),
              st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, &as, srs->a_len * 32, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, &bs, srs->b_g1_len * 32, err, errlen), st, out);
  /* A: every input, then the aux variables in A; B: inputs in B, then aux in B */
  if (ninp) SP_TRY_GOTO(sp_gpu_copy(g, as, inp, ninp * 32, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_compact(g, aux, bm_a, naux, (uint8_t *)as + ninp * 32, NULL, &n_a, err, errlen),
              st, out);
  SP_TRY_GOTO(sp_gpu_compact(g, inp, bm_binp, ninp, bs, NULL, &n_bi, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_compact(g, aux, bm_baux, naux, (uint8_t *)bs + n_bi * 32, NULL, &n_ba, err,
                             errlen),
              st, out);
  if (ninp + n_a != srs->a_len || n_bi + n_ba != srs->b_g1_len) {
    snprintf(err, errlen, "internal: density filtering gave %zu A / %zu B scalars, want %zu / %zu",
             ninp + n_a, n_bi + n_ba, srs->a_len, srs->b_g1_len);
    st = SEALPROV_ERR_INTERNAL;
    goto out;
  }
  SP_TRY_GOTO(split_make(g, &sp_l, aux, naux, err, errlen), st, out);
  SP_TRY_GOTO(split_make(g, &sp_a, as, srs->a_len, err, errlen), st, out);
  SP_TRY_GOTO(split_make(g, &sp_b, bs, srs->b_g1_len, err, errlen), st, out);
  sp_gpu_free(g, inp, ninp * 32);
  sp_gpu_free(g, aux, naux * 32);
  sp_gpu_free(g, as, srs->a_len * 32);
  sp_gpu_free(g, bs, srs->b_g1_len * 32);
  inp = aux = as = bs = NULL;
  tm->decode_ms += now_ms() - ts;

  /* ---- L, A, B ---- */
  SP_TRY_GOTO(points_for(g, &pts, res ? res->l : NULL, srs->l, srs->l_len * sizeof(g1_affine_t),
                         err, errlen),
              st, out);
  SP_TRY_GOTO(msm_split_g1(g, &l_acc, pts.p, &sp_l, &tm->batch_add_ms, &tm->tail_msm_ms, err, errlen),
              st, out);
  dvec_free(g, &pts);
  SP_TRY_GOTO(points_for(g, &pts, res ? res->a : NULL, srs->a, srs->a_len * sizeof(g1_affine_t),
                         err, errlen),
              st, out);
  SP_TRY_GOTO(msm_split_g1(g, &a_acc, pts.p, &sp_a, &tm->batch_add_ms, &tm->tail_msm_ms, err, errlen),
              st, out);
  dvec_free(g, &pts);
  SP_TRY_GOTO(points_for(g, &pts, res ? res->b1 : NULL, srs->b_g1,
                         srs->b_g1_len * sizeof(g1_affine_t), err, errlen),
              st, out);
  SP_TRY_GOTO(msm_split_g1(g, &b1_acc, pts.p, &sp_b, &tm->batch_add_ms, &tm->tail_msm_ms, err,
                           errlen),
              st, out);
  dvec_free(g, &pts);
  SP_TRY_GOTO(points_for(g, &pts, res ? res->b2 : NULL, srs->b_g2,
                         srs->b_g2_len * sizeof(g2_affine_t), err, errlen),
              st, out);
  SP_TRY_GOTO(msm_split_g2(g, &b2_acc, pts.p, &sp_b, &tm->g2_ms, err, errlen), st, out);
  dvec_free(g, &pts);

  ts = now_ms();
  sp_groth16_assemble(srs, &t->r, &t->s, &h_acc, &l_acc, &a_acc, &b1_acc, &b2_acc, proof);
  tm->host_ms += now_ms() - ts;
  tm->total_ms = now_ms() - t0;
out:
  for (int k = 0; k < 3; k++) sp_gpu_free(g, abc[k], vbytes);
  sp_gpu_free(g, inp, ninp * 32);
  sp_gpu_free(g, aux, naux * 32);
  sp_gpu_free(g, as, srs->a_len * 32);
  sp_gpu_free(g, bs, srs->b_g1_len * 32);
  sp_gpu_free(g, bm_a, ((asg->a_aux_bit_len + 63) / 64) * 8);
  sp_gpu_free(g, bm_binp, ((asg->b_inp_bit_len + 63) / 64) * 8);
  sp_gpu_free(g, bm_baux, ((asg->b_aux_bit_len + 63) / 64) * 8);
  split_free(g, &sp_l);
  split_free(g, &sp_a);
  split_free(g, &sp_b);
  dvec_free(g, &pts);
  return st;
}

static int cuda_execute(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                        size_t errlen) {
  (void)prep;
  cuda_dev *d = dev;
  if (t->inject & SP_INJECT_FAIL_KERNEL) {
    snprintf(err, errlen, "cuda device %u [%s]: injected kernel failure (job %llu partition %u)",
             d->index, d->section, (unsigned long long)t->job_id, t->partition);
    return SEALPROV_ERR_DEVICE;
  }
  if (!d->gpu) {
    snprintf(err, errlen, "cuda device %u [%s]: execute on a device with no bound worker", d->index,
             d->section);
    return SEALPROV_ERR_DEVICE;
  }
  int st = sp_groth16_check_assignment(t->srs, t->asg, err, errlen);
  if (st) return st;
  sp_cuda_timings tm;
  memset(&tm, 0, sizeof tm);
  char msg[512] = "";
  st = prove_partition(d, t, proof, &tm, msg, sizeof msg);
  if (st) {
    snprintf(err, errlen, "cuda device %u [%s] (ordinal %d), job %llu partition %u: %s", d->index,
             d->section, d->ordinal, (unsigned long long)t->job_id, t->partition, msg);
    /* Leave nothing in flight that could touch freed memory on a retry. */
    char e2[64];
    (void)sp_gpu_sync(d->gpu, e2, sizeof e2);
    return st;
  }
  if (t->inject & SP_INJECT_CORRUPT_PROOF) proof[191] ^= 0x01; /* the self-check must catch it */
  pthread_mutex_lock(&d->mu);
  d->last = tm;
  pthread_mutex_unlock(&d->mu);
  return SEALPROV_OK;
}

void sp_engine_cuda_last_timings(void *dev, sp_cuda_timings *out) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  *out = d->last;
  pthread_mutex_unlock(&d->mu);
}

const sp_engine_ops sp_engine_cuda = {
    .name = "cuda",
    .device_open = cuda_device_open,
    .device_close = cuda_device_close,
    .worker_bind = cuda_worker_bind,
    .worker_unbind = cuda_worker_unbind,
    .prepare = cuda_prepare,
    .execute = cuda_execute,
    .release = NULL, /* prepare allocates nothing */
    .srs_evict = cuda_srs_evict,
    .memory_in_use = cuda_memory_in_use,
};
