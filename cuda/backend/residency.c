/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* residency.c -- parameter sets on a CUDA device (engine_internal.h): resident copies
 * kept while the memory budget allows, and the device copies a direct load left
 * (adopted, not copied). A set that is not resident is streamed from its host copy
 * (tail.c, upload.c). */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/engine_internal.h" /* first: sp_gpu.h before <math.h> */
#include "base/util.h"               /* SP_TRY_GOTO */
#include "base/log.h"
#include "util/cuda_api.h" /* the direct load */
#include "msm/msm.h"
#include "points/points.h"

static void free_resident(cuda_dev *d, cuda_resident *r) {
  void *p[5] = {r->h, r->l, r->a, r->b1, r->b2};
  sp_gpu_msm_table_free(d->ordinal, &r->tab_h);
  for (int i = 0; i < 5 && !r->borrowed; i++)
    if (p[i]) sp_gpu_free_persistent(d->ordinal, p[i]);
  free(r);
}

static void free_prefix(cuda_dev *d, cuda_prefix *q) {
  for (int v = 0; v < V_COUNT; v++)
    if (q->pts[v]) sp_gpu_free_persistent(d->ordinal, q->pts[v]);
  free(q);
}

/* Frees every resident set, staging buffer, the uploads' transfer stream and the
 * events; the calling thread must be bound to d's device, and no task may be running. */
void cuda_drop_all(cuda_dev *d) {
  if (d->early_buf) sp_gpu_free(d->gpu, d->early_buf, d->early_bytes);
  d->early_buf = NULL;
  d->early_owner = d->early_want = NULL;
  while (d->res) {
    cuda_resident *r = d->res;
    d->res = r->next;
    free_resident(d, r);
  }
  while (d->pre) {
    cuda_prefix *q = d->pre;
    d->pre = q->next;
    free_prefix(d, q);
  }
  while (d->cs_res) {
    cuda_cs_res *c = d->cs_res;
    d->cs_res = c->next;
    sp_gpu_cs_free(c->g);
    free(c);
  }
  for (unsigned i = 0; i < SP_MAX_WORKERS; i++) {
    if (d->stage[i].p) {
      sp_gpu_host_free(d->ordinal, d->stage[i].p);
      sp_hostmem_release(d->hm, d->index, d->stage[i].cap);
    }
    memset(&d->stage[i], 0, sizeof d->stage[i]);
    if (d->land[i].p) sp_gpu_free_persistent(d->ordinal, d->land[i].p);
    sp_gpu_xfer_destroy(d->land[i].x);
    memset(&d->land[i], 0, sizeof d->land[i]);
  }
  d->pinned_bytes = 0;
  d->land_bytes = 0;
  sp_gpu_xfer_destroy(d->up_x);
  d->up_x = NULL;
  for (int i = 0; i < EV_COUNT; i++) {
    sp_gpu_event_destroy(d->gpu, d->ev[i]);
    d->ev[i] = NULL;
  }
}

/* The resident copy of srs on d, or NULL; bytes of every resident set (under d->mu). */
cuda_resident *cuda_find_resident(const cuda_dev *d, const sp_srs *srs) {
  cuda_resident *r = d->res;
  while (r && r->srs != srs) r = r->next;
  return r;
}
uint64_t cuda_resident_bytes(const cuda_dev *d) {
  uint64_t n = 0;
  for (const cuda_resident *r = d->res; r; r = r->next) n += r->bytes + r->tab_bytes;
  for (const cuda_prefix *q = d->pre; q; q = q->next) n += q->bytes;
  for (const cuda_cs_res *c = d->cs_res; c; c = c->next) n += c->bytes;
  return n;
}
/* ---- the direct load's sink and adoption (cuda_api.h) ------------------------------ */

void sp_cuda_dload_sink(sp_cuda_dload *l, sp_srs_sink *out) {
  *out = (sp_srs_sink){.user = l,
                       .chunk_bytes = sp_cuda_dload_chunk_bytes(l),
                       .begin = sp_cuda_dload_begin,
                       .vector = sp_cuda_dload_vector,
                       .buffer = sp_cuda_dload_buffer,
                       .submit = sp_cuda_dload_submit,
                       .finish = sp_cuda_dload_finish};
}

bool sp_cuda_dload_adopt(sp_cuda_dload *l, sp_srs *srs) {
  srs->devcopy = sp_cuda_dload_take(l);
  srs->devcopy_free = sp_cuda_devcopy_free;
  return srs->devcopy != NULL;
}

/* ---- parameter residency and registration ------------------------------------------ */

size_t cuda_srs_bytes(const sp_srs *s) {
  return (s->h_len + s->l_len + s->a_len + s->b_g1_len) * sizeof(g1_affine_t) +
         s->b_g2_len * sizeof(g2_affine_t);
}

void cuda_srs_vectors(const sp_srs *s, const void *p[V_COUNT], size_t bytes[V_COUNT]) {
  p[V_H] = s->h;
  p[V_L] = s->l;
  p[V_A] = s->a;
  p[V_B1] = s->b_g1;
  p[V_B2] = s->b_g2;
  bytes[V_H] = s->h_len * sizeof(g1_affine_t);
  bytes[V_L] = s->l_len * sizeof(g1_affine_t);
  bytes[V_A] = s->a_len * sizeof(g1_affine_t);
  bytes[V_B1] = s->b_g1_len * sizeof(g1_affine_t);
  bytes[V_B2] = s->b_g2_len * sizeof(g2_affine_t);
}

static int upload_vec(sp_gpu *g, void **d, const void *h, size_t bytes, char *err, size_t errlen) {
  *d = NULL;
  if (bytes == 0) return SEALPROV_OK;
  return sp_gpu_alloc_upload_persistent(g, d, h, bytes, err, errlen);
}

/* A set loaded straight onto the devices (srs->device_only): its copy on this device,
 * adopted as the resident copy (borrowed: the srs owns the memory). There is no host
 * copy to upload or stream from, so a device without one cannot prove with the set:
 * DEVICE_MEMORY (the scheduler may requeue the partition on a device that has one). */
static int adopt_devcopy(cuda_dev *d, const sp_srs *srs, cuda_resident **out, char *err,
                         size_t errlen) {
  pthread_mutex_lock(&d->mu);
  cuda_resident *found = cuda_find_resident(d, srs);
  pthread_mutex_unlock(&d->mu);
  if (found) {
    *out = found;
    return SEALPROV_OK;
  }
  const sp_srs_devcopy *c = srs->devcopy;
  unsigned k = 0;
  while (c && k < c->ndev && c->ordinal[k] != d->ordinal) k++;
  if (!c || k == c->ndev) {
    char list[128] = "";
    for (unsigned i = 0; c && i < c->ndev; i++) {
      size_t n = strlen(list);
      snprintf(list + n, sizeof list - n, "%s%d", i ? ", " : "", c->ordinal[i]);
    }
    snprintf(err, errlen,
             "parameter set %s was loaded straight onto CUDA device(s) %s with no host copy; this "
             "device (ordinal %d) has no copy of it and none can be uploaded or streamed (load it "
             "through a provider that includes this device, or with params_residency = host)",
             srs->path, c && c->ndev ? list : "(none)", d->ordinal);
    return SEALPROV_ERR_DEVICE_MEMORY;
  }
  cuda_resident *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  r->srs = srs;
  r->bytes = c->total_bytes;
  r->borrowed = true;
  r->h = c->vec[k][V_H];
  r->l = c->vec[k][V_L];
  r->a = c->vec[k][V_A];
  r->b1 = c->vec[k][V_B1];
  r->b2 = c->vec[k][V_B2];
  pthread_mutex_lock(&d->mu);
  found = cuda_find_resident(d, srs); /* another worker of this device adopted it meanwhile */
  if (found) {
    free(r);
    r = found;
  } else {
    r->next = d->res;
    d->res = r;
  }
  pthread_mutex_unlock(&d->mu);
  *out = r;
  return SEALPROV_OK;
}

/* Room on d for a long-lived copy of `need` bytes (cudaMalloc, outside the pool) next
 * to `in_use` and `work` bytes of working memory: within memory_limit, else the card's
 * free memory. The pool keeps freed scratch cached (gpu.cu): that is handed back and
 * looked at again before saying no. False also when the memory cannot be read (a real
 * device fault shows up later). */
bool cuda_room_for_copy(cuda_dev *d, uint64_t in_use, uint64_t need, uint64_t work) {
  if (d->memory_limit && in_use + need + work > d->memory_limit) return false;
  uint64_t free_b = 0, total_b = 0;
  if (sp_gpu_mem_info(d->gpu, &free_b, &total_b) != SEALPROV_OK) return false;
  if (need + work <= free_b) return true;
  sp_gpu_trim(d->gpu);
  return sp_gpu_mem_info(d->gpu, &free_b, &total_b) == SEALPROV_OK && need + work <= free_b;
}

/* The resident copy of srs, made now if the budget allows (its bytes added to *pcie);
 * NULL (and OK) when the set is to be streamed instead. Called with the device lock
 * held. */
int cuda_get_resident(cuda_dev *d, const sp_srs *srs, cuda_resident **out, double *ms,
                      uint64_t *pcie, char *err, size_t errlen) {
  *out = NULL;
  if (srs->device_only) return adopt_devcopy(d, srs, out, err, errlen);
  pthread_mutex_lock(&d->mu);
  /* forced streaming (a test build's knob) also bypasses a copy made earlier */
  bool force = cuda_knobs_of(d).force_stream;
  cuda_resident *found = force ? NULL : cuda_find_resident(d, srs);
  uint64_t in_use = sp_gpu_memory_in_use(d->gpu) + cuda_resident_bytes(d);
  pthread_mutex_unlock(&d->mu);
  if (found || force) {
    *out = found;
    return SEALPROV_OK;
  }
  size_t need = cuda_srs_bytes(srs);
  uint64_t work = work_bytes(((size_t)1 << srs->log_domain) * sizeof(fr_t), 3);
  if (!cuda_room_for_copy(d, in_use, need, work)) return SEALPROV_OK; /* stream instead */
  double t0 = sp_now_ms();
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
  if (!st)
    st = upload_vec(d->gpu, &r->b1, srs->b_g1, srs->b_g1_len * sizeof(g1_affine_t), err, errlen);
  if (!st)
    st = upload_vec(d->gpu, &r->b2, srs->b_g2, srs->b_g2_len * sizeof(g2_affine_t), err, errlen);
  if (st) {
    free_resident(d, r);
    /* Not enough memory after all: stream. Other errors are device failures. */
    return st == SEALPROV_ERR_DEVICE_MEMORY ? SEALPROV_OK : st;
  }
  pthread_mutex_lock(&d->mu);
  r->next = d->res;
  d->res = r;
  d->pcie_bytes += need;
  pthread_mutex_unlock(&d->mu);
  *ms = sp_now_ms() - t0;
  *pcie += need;
  *out = r;
  return SEALPROV_OK;
}

/* ---- fixed-base tables (msm_precompute) ----------------------------------------------- */

/* Memory a set's table may not touch beyond what is resident: 1 GiB. */
#define SP_TABLE_MARGIN ((uint64_t)1 << 30)

/* Device bytes the tables of a set being made resident may take: the configured bytes
 * (msm_precompute = SIZE), or for auto what memory_limit (else the GPU's memory) leaves
 * after every resident set (this one included), each worker's device buffer of chunked
 * staging (four domain-sized vectors, the land_take rule), an execute's working memory
 * with an early upload (work_bytes of five vectors) and a margin: so the tables never
 * take the room the workers' partition buffers need. Device lock held. */
static uint64_t table_budget(cuda_dev *d, size_t vbytes) {
  if (d->precompute_cfg == SP_MSM_PRECOMPUTE_OFF) return 0;
  if (d->precompute_cfg) return d->precompute_cfg;
  uint64_t cap = d->memory_limit, free_b = 0;
  if (!cap && sp_gpu_mem_info(d->gpu, &free_b, &cap) != SEALPROV_OK) return 0;
  pthread_mutex_lock(&d->mu);
  uint64_t held = cuda_resident_bytes(d);
  pthread_mutex_unlock(&d->mu);
  uint64_t reserve = held + (uint64_t)d->workers * (4 * (uint64_t)vbytes + SP_STAGE_ROUND) +
                     work_bytes(vbytes, 5) + SP_TABLE_MARGIN;
  return cap > reserve ? cap - reserve : 0;
}

/* The fixed-base table of a resident set's h (the H MSM, half of a partition's MSM
 * work), made the first time the set is found resident under a tables mode that allows
 * it (or a higher one: SP_TABLES_FORCE after AUTO plans again): within table_budget, if
 * msm.cu's cost model predicts it at least 3 % faster than today's path (any gain under
 * FORCE), and if the device has room for it next to a partition's working memory, as
 * residency asks. Device lock held. Only a device fault is an error: no room, no table. */
int cuda_make_tables(cuda_dev *d, cuda_resident *r, const sp_srs *srs, sp_cuda_timings *tm,
                     char *err, size_t errlen) {
  pthread_mutex_lock(&d->mu);
  const int mode = cuda_knobs_of(d).tables_mode;
  bool skip = mode == SP_TABLES_OFF || d->tables_oom || r->tab_h.copies || r->no_table ||
              mode <= r->tab_mode || !r->h || srs->h_len == 0 ||
              d->precompute_cfg == SP_MSM_PRECOMPUTE_OFF;
  if (!skip) r->tab_mode = mode;
  uint64_t in_use = sp_gpu_memory_in_use(d->gpu) + cuda_resident_bytes(d);
  pthread_mutex_unlock(&d->mu);
  if (skip) return SEALPROV_OK;
  const size_t vbytes = ((size_t)1 << srs->log_domain) * sizeof(fr_t);
  const uint64_t budget = table_budget(d, vbytes);
  unsigned c = 0, k = 0;
  double gain = 0;
  sp_gpu_msm_plan(false, srs->h_len, budget, mode == SP_TABLES_FORCE, &c, &k, &gain);
  if (k < 2) return SEALPROV_OK;
  const uint64_t need = sp_gpu_msm_table_bytes(false, srs->h_len, k);
  if (!cuda_room_for_copy(d, in_use, need, work_bytes(vbytes, 3))) return SEALPROV_OK;
  double t0 = sp_now_ms();
  sp_msm_table tab;
  int st = sp_gpu_msm_table_make(d->gpu, false, r->h, srs->h_len, c, k, &tab, err, errlen);
  if (st == SEALPROV_ERR_DEVICE_MEMORY) return SEALPROV_OK;
  if (st) return st;
  double ms = sp_now_ms() - t0;
  pthread_mutex_lock(&d->mu);
  r->tab_h = tab;
  r->tab_bytes = tab.ext_bytes;
  pthread_mutex_unlock(&d->mu);
  tm->precompute_ms += ms;
  sp_log(SEALPROV_LOG_INFO,
         "cuda device %u [%s]: fixed-base table of h for %s (%zu points): window %u, %u copies, "
         "%.2f GB, made in %.0f ms (the cost model predicts %.0f %% off the H MSM)",
         d->index, d->section, srs->path ? srs->path : "(parameters)", srs->h_len, c, k,
         (double)tab.ext_bytes / 1e9, ms, 100 * gain);
  return SEALPROV_OK;
}

/* Drops the table of srs on d, keeping the points, and makes none again for it (the
 * out-of-memory retry of a set that cannot be streamed). True if one was dropped. */
bool cuda_drop_table(cuda_dev *d, const sp_srs *srs) {
  pthread_mutex_lock(&d->mu);
  cuda_resident *r = cuda_find_resident(d, srs);
  sp_msm_table tab;
  memset(&tab, 0, sizeof tab);
  if (r) {
    tab = r->tab_h;
    memset(&r->tab_h, 0, sizeof r->tab_h);
    r->tab_bytes = 0;
    r->no_table = true;
  }
  pthread_mutex_unlock(&d->mu);
  bool had = tab.copies != 0;
  sp_gpu_msm_table_free(d->ordinal, &tab);
  return had;
}

/* Drops this device's resident copy of srs, and its prefix (out-of-memory retry: the
 * points go, the retry streams them; srs_evict). Any thread: the free switches devices
 * and back. */
void cuda_drop_resident(cuda_dev *d, const sp_srs *srs) {
  pthread_mutex_lock(&d->mu);
  cuda_resident **pp = &d->res;
  while (*pp && (*pp)->srs != srs) pp = &(*pp)->next;
  cuda_resident *r = *pp;
  if (r) *pp = r->next;
  cuda_prefix **qq = &d->pre;
  while (*qq && (*qq)->srs != srs) qq = &(*qq)->next;
  cuda_prefix *q = *qq;
  if (q) *qq = q->next;
  pthread_mutex_unlock(&d->mu);
  if (r) free_resident(d, r);
  if (q) free_prefix(d, q);
}

/* ---- resident prefixes of streamed sets ------------------------------------------------ */

cuda_prefix *cuda_find_prefix(const cuda_dev *d, const sp_srs *srs) {
  cuda_prefix *q = d->pre;
  while (q && q->srs != srs) q = q->next;
  return q;
}

/* L and A first: in a streamed partition their MSMs wait for their points (little
 * work a point), so each of their points kept saves its upload's time; H's MSM is busy
 * enough to hide its upload, so its points come last. */
int cuda_make_prefix(cuda_dev *d, const sp_srs *srs, uint64_t bytes, size_t align,
                     cuda_prefix **out, uint64_t *pcie, double *ms, char *err, size_t errlen) {
  static const int order[V_COUNT] = {V_L, V_A, V_B1, V_B2, V_H};
  *out = NULL;
  if (align < 64) align = 64;
  cuda_prefix *q = calloc(1, sizeof *q);
  if (!q) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  q->srs = srs;
  const void *host[V_COUNT];
  size_t vbytes[V_COUNT];
  cuda_srs_vectors(srs, host, vbytes);
  double t0 = sp_now_ms();
  int st = SEALPROV_OK;
  for (int i = 0; i < V_COUNT && !st; i++) {
    const int v = order[i];
    const size_t ps = v == V_B2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t), len = vbytes[v] / ps;
    size_t n = bytes / ps < len ? (size_t)(bytes / ps) : len;
    if (n < len) n -= n % align;
    if (n == 0 || !host[v]) continue;
    st = sp_gpu_alloc_upload_persistent(d->gpu, &q->pts[v], host[v], n * ps, err, errlen);
    if (st == SEALPROV_ERR_DEVICE_MEMORY) { /* no room after all: what was made stays */
      st = SEALPROV_OK;
      break;
    }
    if (st) break;
    q->n[v] = n;
    q->bytes += (uint64_t)n * ps;
    bytes -= (uint64_t)n * ps;
  }
  if (st || q->bytes == 0) {
    free_prefix(d, q);
    return st;
  }
  pthread_mutex_lock(&d->mu);
  q->next = d->pre;
  d->pre = q;
  d->pcie_bytes += q->bytes;
  pthread_mutex_unlock(&d->mu);
  *pcie += q->bytes;
  *ms += sp_now_ms() - t0;
  *out = q;
  return SEALPROV_OK;
}
