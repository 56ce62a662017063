/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2.c -- libsealprov_c2: the supraseal-c2 C entry points on top of the sealprov vtable.
 *
 * This library is a host of the module like any other: it dlopens it, asks for the
 * vtable through the one exported symbol and opens one provider for the process (on the
 * first call that needs it). Only the functions of sealprov_c2.h are exported
 * (libtool -export-symbols-regex); the BLS12-381 code linked in for the proof
 * conversion stays hidden.
 *
 * What the callers pass and read, and how it maps:
 *   Assignment[]          -> sealprov_assignment[] (same 17 fields, same order), copied
 *                            into the pending handle so the caller's array may go away
 *   r_s, s_s (blst Fr)    -> job->r / job->s with SEALPROV_SCALAR_MONTGOMERY and
 *                            SEALPROV_JOB_FIXED_RS (the caller chose the blinding)
 *   groth16_proof[]       <- the module's 192-byte compressed proofs, decompressed into
 *                            affine points with Montgomery Fp limbs (blst's layout)
 *   RustError             <- {status, malloc'd "sealprov_c2: fn: status: detail"}
 *   gpu_index (Curio)     -> job->device_mask (ABI 1.2): the device whose CUDA ordinal
 *                            is gpu_index; on a provider without CUDA devices, device
 *                            gpu_index of the table; -1 = any device. Always read
 *                            by generate_groth16_proofs_start_c; read by
 *                            generate_groth16_proofs_c only when SEALPROV_C2_ARGS = 8.
 *   gpu_mtx (Curio)       -> a token from create_gpu_mutex whose mutex is held from
 *                            submit until the job's proofs are ready
 *   SRS, gpu_mtx, pending -> checked by value against the live ones, never read
 *                            through before that (see "handles the host holds")
 * The errors it returns and the provider it opens are c2_provider.c's.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/handle_set.h"
#include "bls12_381/bls12_381.h"
#include "c2_map.h"
#include "sealprov.h"

#define SEALPROV_C2_IMPLEMENTATION /* the header then leaves generate_groth16_proofs_c to us */
#pragma GCC visibility push(default)
#include "sealprov_c2.h"
#pragma GCC visibility pop

#include "c2_internal.h" /* errors, the provider (c2_provider.c) */

/* Our layouts are the ones the module and the BLS code use. An Assignment is a
 * sealprov_assignment byte for byte: the same 17 eight-byte fields in the same order,
 * asserted field by field here, so a job's partitions are the caller's array copied
 * whole (start()). */
_Static_assert(sizeof(c2_assignment) == sizeof(sealprov_assignment),
               "Assignment and sealprov_assignment have the same 17 fields");
#define C2_SAME_FIELD(c2, sp)                                                                    \
  _Static_assert(offsetof(c2_assignment, c2) == offsetof(sealprov_assignment, sp) &&             \
                     sizeof(((c2_assignment *)0)->c2) == sizeof(((sealprov_assignment *)0)->sp), \
                 "Assignment." #c2 " is sealprov_assignment." #sp)
C2_SAME_FIELD(a_aux_density, a_aux_density);
C2_SAME_FIELD(a_aux_bit_len, a_aux_bit_len);
C2_SAME_FIELD(a_aux_popcount, a_aux_popcount);
C2_SAME_FIELD(b_inp_density, b_inp_density);
C2_SAME_FIELD(b_inp_bit_len, b_inp_bit_len);
C2_SAME_FIELD(b_inp_popcount, b_inp_popcount);
C2_SAME_FIELD(b_aux_density, b_aux_density);
C2_SAME_FIELD(b_aux_bit_len, b_aux_bit_len);
C2_SAME_FIELD(b_aux_popcount, b_aux_popcount);
C2_SAME_FIELD(a, a);
C2_SAME_FIELD(b, b);
C2_SAME_FIELD(c, c);
C2_SAME_FIELD(abc_size, abc_size);
C2_SAME_FIELD(inp_assignment_data, inp_assignment);
C2_SAME_FIELD(inp_assignment_size, inp_size);
C2_SAME_FIELD(aux_assignment_data, aux_assignment);
C2_SAME_FIELD(aux_assignment_size, aux_size);
#undef C2_SAME_FIELD
_Static_assert(sizeof(c2_fr) == SEALPROV_SCALAR_BYTES, "one blst Fr per job scalar");
_Static_assert(sizeof(g1_affine_t) == sizeof(c2_g1_affine), "G1 affine: blst layout");
_Static_assert(sizeof(g2_affine_t) == sizeof(c2_g2_affine), "G2 affine: blst layout");
_Static_assert(offsetof(g2_affine_t, y) == offsetof(c2_g2_affine, y), "G2 affine y");
_Static_assert(offsetof(fp2_t, c1) == offsetof(c2_fp2, c1), "Fp2: c0 then c1");

#define C2_CACHE_SLOTS 4 /* supraseal keeps up to 4 paths */

/* ---- handles the host holds --------------------------------------------------------
 * An SRS, a GPU mutex or a pending proof that the host passes is checked by looking its
 * VALUE up among the live ones under g_live_mu, never by reading through it: a dropped
 * SRS, a destroyed mutex or a finalized handle is freed memory, and a stray pointer may
 * point anywhere (design rule 7; plugin/abi/module.c checks the module's handles with
 * the same set, base/handle_set.h). Whoever goes on to use the object takes a reference
 * inside that same lock (SRS, mutex), or takes it out of its set (a pending proof: the
 * one finalize or destroy that removes it owns it). An address freed and then reused by a new object of the same
 * kind names that new object: the look-up finds a live object, never freed memory. */

static pthread_mutex_t g_live_mu = PTHREAD_MUTEX_INITIALIZER;
static sp_handle_set g_live_srs, g_live_mtx, g_live_pending; /* base/handle_set.h */

/* ---- SRS ------------------------------------------------------------------------ */

struct c2_srs_inner {
  size_t refs; /* under g_live_mu: the callers' SRS values, the cache's, calls in flight */
  sealprov_srs *h;
  char *path;
};

static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER; /* taken before g_live_mu */
static c2_srs_inner *g_cache[C2_CACHE_SLOTS];                  /* most recently used first */

/* Takes a reference to s when it is a live SRS; false otherwise (s is not read). */
static bool srs_ref(c2_srs_inner *s) {
  if (s == NULL) return false;
  pthread_mutex_lock(&g_live_mu);
  bool ok = sp_handle_set_has_locked(&g_live_srs, s);
  if (ok) s->refs++;
  pthread_mutex_unlock(&g_live_mu);
  return ok;
}

/* Drops one reference of s when it is a live SRS (the look-up and the drop under one
 * lock, so two drops of the last reference cannot both pass the look-up); the last
 * reference frees it. False, and s not read, when s is not live. */
static bool srs_unref(c2_srs_inner *s) {
  if (s == NULL) return false;
  pthread_mutex_lock(&g_live_mu);
  bool ok = sp_handle_set_has_locked(&g_live_srs, s);
  bool last = ok && --s->refs == 0;
  if (last) sp_handle_set_remove_locked(&g_live_srs, s);
  pthread_mutex_unlock(&g_live_mu);
  if (last) {
    /* Jobs hold their own module reference: releasing ours is safe while they run. */
    if (g_vt != NULL) g_vt->srs_release(s->h);
    free(s->path);
    free(s);
  }
  return ok;
}

c2_error create_SRS(c2_SRS *ret, const char *srs_path, bool cache) {
  static const char fn[] = "create_SRS";
  if (ret == NULL) return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "ret (SRS&) is NULL");
  if (srs_path == NULL) return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "srs_path is NULL");
  c2_error err = c2_ok();
  const sealprov_vtable *vt = provider(fn, &err);
  if (vt == NULL) return err;
  if (g_log_level >= SEALPROV_LOG_INFO) { /* who proves: the operator's check at run time */
    char who[1024];
    c2_describe_prover(vt, g_p, who, sizeof who);
    c2_note(SEALPROV_LOG_INFO, "create_SRS %s: %s", srs_path, who);
  }

  if (cache) pthread_mutex_lock(&g_cache_mu);
  if (cache)
    for (int i = 0; i < C2_CACHE_SLOTS && g_cache[i] != NULL; i++)
      if (strcmp(g_cache[i]->path, srs_path) == 0) {
        c2_srs_inner *hit = g_cache[i];
        memmove(&g_cache[1], &g_cache[0], (size_t)i * sizeof g_cache[0]);
        g_cache[0] = hit;
        srs_ref(hit); /* live: the cache holds a reference */
        pthread_mutex_unlock(&g_cache_mu);
        ret->ptr = hit;
        return c2_ok();
      }

  c2_srs_inner *s = calloc(1, sizeof *s);
  char *path = s != NULL ? strdup(srs_path) : NULL;
  if (path == NULL) {
    free(s);
    if (cache) pthread_mutex_unlock(&g_cache_mu);
    return c2_fail(SEALPROV_ERR_NO_MEMORY, fn, "no memory for the SRS of %s", srs_path);
  }
  /* Loaded under the cache lock when caching, as supraseal does: two callers of one
   * path then share one load. */
  sealprov_srs *h = NULL;
  int st = vt->srs_load(g_p, srs_path, &h);
  if (st != SEALPROV_OK) {
    err = vt_fail(vt, st, fn, srs_path);
    if (cache) pthread_mutex_unlock(&g_cache_mu);
    free(path);
    free(s);
    return err;
  }
  s->h = h;
  s->path = path;
  s->refs = cache ? 2 : 1; /* the caller's, and the cache's */
  pthread_mutex_lock(&g_live_mu);
  bool registered = sp_handle_set_add_locked(&g_live_srs, s);
  pthread_mutex_unlock(&g_live_mu);
  if (!registered) {
    if (cache) pthread_mutex_unlock(&g_cache_mu);
    vt->srs_release(h);
    free(path);
    free(s);
    return c2_fail(SEALPROV_ERR_NO_MEMORY, fn, "no memory to register the SRS of %s", srs_path);
  }
  if (cache) {
    c2_srs_inner *lru = g_cache[C2_CACHE_SLOTS - 1];
    memmove(&g_cache[1], &g_cache[0], (C2_CACHE_SLOTS - 1) * sizeof g_cache[0]);
    g_cache[0] = s;
    pthread_mutex_unlock(&g_cache_mu);
    if (lru != NULL) srs_unref(lru);
  }
  ret->ptr = s;
  return c2_ok();
}

void evict_SRS(const c2_SRS *ref) {
  if (ref == NULL || ref->ptr == NULL) return;
  c2_srs_inner *s = ref->ptr;
  /* Our reference keeps s->path readable while a drop runs on another thread. */
  if (!srs_ref(s)) {
    c2_note(SEALPROV_LOG_WARN, "evict_SRS: %p is not a live SRS (dropped already?): ignored",
            (void *)s);
    return;
  }
  c2_srs_inner *gone[C2_CACHE_SLOTS];
  int ngone = 0, keep = 0;
  pthread_mutex_lock(&g_cache_mu);
  for (int i = 0; i < C2_CACHE_SLOTS; i++) {
    c2_srs_inner *e = g_cache[i];
    g_cache[i] = NULL;
    if (e == NULL) continue;
    if (strcmp(e->path, s->path) == 0)
      gone[ngone++] = e;
    else
      g_cache[keep++] = e;
  }
  pthread_mutex_unlock(&g_cache_mu);
  for (int i = 0; i < ngone; i++) srs_unref(gone[i]);
  srs_unref(s);
}

void drop_SRS(c2_SRS *ref) {
  if (ref == NULL || ref->ptr == NULL) return;
  /* The Rust caller passes &SRS and clears ptr itself: ref is not written. */
  if (!srs_unref(ref->ptr))
    c2_note(SEALPROV_LOG_WARN, "drop_SRS: %p is not a live SRS (dropped twice?): ignored",
            (void *)ref->ptr);
}

c2_SRS clone_SRS(const c2_SRS *rhs) {
  c2_SRS out = {NULL};
  if (rhs == NULL || rhs->ptr == NULL) return out;
  if (srs_ref(rhs->ptr))
    out.ptr = rhs->ptr;
  else
    c2_note(SEALPROV_LOG_WARN,
            "clone_SRS: %p is not a live SRS (dropped already?): an empty SRS returned",
            (void *)rhs->ptr);
  return out;
}

/* ---- GPU mutexes ------------------------------------------------------------------
 * Curio's fork allocates a std::mutex per GPU and holds it around its kernels. Ours is
 * a pthread mutex first (libstdc++'s std::mutex is one pthread_mutex_t, so the layout
 * is the same), known by its value in g_live_mtx. A job that passes one holds it from
 * submit until its proofs are ready (start() below). */

typedef struct c2_gpu_token {
  pthread_mutex_t mu;
  size_t users;   /* calls between token_get and token_put (under g_live_mu) */
  bool destroyed; /* destroy_gpu_mutex ran while calls used it: the last one frees it */
} c2_gpu_token;

static void token_free(c2_gpu_token *t) {
  pthread_mutex_destroy(&t->mu);
  free(t);
}

/* A call's use of the mutex mtx, when it is live; false otherwise (mtx is not read). */
static c2_gpu_token *token_get(void *mtx) {
  pthread_mutex_lock(&g_live_mu);
  c2_gpu_token *t = sp_handle_set_has_locked(&g_live_mtx, mtx) ? mtx : NULL;
  if (t != NULL) t->users++;
  pthread_mutex_unlock(&g_live_mu);
  return t;
}

static void token_put(c2_gpu_token *t) {
  if (t == NULL) return;
  pthread_mutex_lock(&g_live_mu);
  bool free_it = --t->users == 0 && t->destroyed;
  pthread_mutex_unlock(&g_live_mu);
  if (free_it) token_free(t);
}

void *create_gpu_mutex(void) {
  c2_gpu_token *t = calloc(1, sizeof *t);
  if (t == NULL) return NULL;
  if (pthread_mutex_init(&t->mu, NULL) != 0) {
    free(t);
    return NULL;
  }
  pthread_mutex_lock(&g_live_mu);
  bool ok = sp_handle_set_add_locked(&g_live_mtx, t);
  pthread_mutex_unlock(&g_live_mu);
  if (!ok) {
    token_free(t);
    return NULL;
  }
  return t;
}

void destroy_gpu_mutex(void *mtx) {
  if (mtx == NULL) return;
  c2_gpu_token *t = mtx;
  bool free_it = false;
  pthread_mutex_lock(&g_live_mu);
  bool found = sp_handle_set_remove_locked(&g_live_mtx, mtx);
  if (found) {
    t->destroyed = true;
    free_it = t->users == 0;
  }
  pthread_mutex_unlock(&g_live_mu);
  if (!found)
    c2_note(SEALPROV_LOG_WARN,
            "destroy_gpu_mutex: %p is not a mutex from create_gpu_mutex (destroyed twice?): "
            "ignored",
            mtx);
  if (free_it) token_free(t);
}

/* ---- gpu_index -> device_mask ------------------------------------------------------ */

/* Curio's gpu_index names a GPU by its CUDA ordinal, as this process sees it: the
 * device of the provider's table whose ordinal it is; c2_map.c has the rules (and
 * tests/compat/test_c2_map.c checks them on CUDA tables). where gets
 * "device 1 [gpu1], CUDA ordinal 1" for the log. */
static c2_error device_for(const sealprov_vtable *vt, const char *fn, int gpu_index, uint64_t *mask,
                           char *where, size_t wlen) {
  *mask = 0;
  snprintf(where, wlen, "any device");
  if (gpu_index == -1) return c2_ok();
  if (gpu_index >= 0 && vt->abi_minor < 2)
    return c2_fail(SEALPROV_ERR_UNSUPPORTED, fn,
                   "gpu_index %d: the sealprov module implements ABI %" PRIu32 ".%" PRIu32
                   ", which cannot restrict a job to one device (that needs ABI 1.2); update "
                   "the module, or pass gpu_index -1",
                   gpu_index, vt->abi_major, vt->abi_minor);
  enum { CAP = 64 };
  sealprov_device_info *dev = calloc(CAP, sizeof *dev);
  if (dev == NULL) return c2_fail(SEALPROV_ERR_NO_MEMORY, fn, "no memory for the device table");
  dev[0].struct_size = sizeof *dev;
  size_t count = 0;
  int st = gpu_index < -1 ? SEALPROV_OK : vt->devices(g_p, dev, CAP, &count);
  if (st != SEALPROV_OK) {
    c2_error err = vt_fail(vt, st, fn, "devices()");
    free(dev);
    return err;
  }
  char msg[600];
  st = c2_map_gpu_index(dev, count < CAP ? count : CAP, gpu_index, mask, where, wlen, msg,
                        sizeof msg);
  free(dev);
  return st == SEALPROV_OK ? c2_ok() : c2_fail(st, fn, "%s", msg);
}

/* ---- proving -------------------------------------------------------------------- */

/* A job between start and finish. Handed to the host (the split API) only once it is
 * in g_live_pending. */
typedef struct c2_pending {
  size_t n;
  sealprov_job_id id;
  sealprov_assignment *asg;       /* the job's partitions: alive until the job is waited on */
  uint8_t *out;                   /* 192 x n compressed proofs */
  sealprov_partition_result *res; /* where each partition ran */
  int gpu_index;                  /* the caller's, -1 = any */
  char where[160];                /* what gpu_index mapped to */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  size_t released; /* partitions whose inputs the module no longer reads */
  bool ended;      /* on_complete ran */
} c2_pending;

static void on_released(void *user, sealprov_job_id id, uint32_t partition) {
  (void)id;
  (void)partition;
  c2_pending *p = user;
  pthread_mutex_lock(&p->mu);
  p->released++;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

static void on_complete(void *user, sealprov_job_id id, int status) {
  (void)id;
  (void)status;
  c2_pending *p = user;
  pthread_mutex_lock(&p->mu);
  p->ended = true;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

static void pending_free(c2_pending *p) {
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  free(p->asg);
  free(p->out);
  free(p->res);
  free(p);
}

/* What Curio's forms add to a call: the GPU mutex (NULL: none) and gpu_index. */
typedef struct c2_pin {
  void *gpu_mtx;
  int gpu_index;
} c2_pin;

/* The arguments of a call, before anything is taken: NULL arrays, no circuits, more
 * than a job holds, an empty SRS. */
static c2_error check_start_args(const char *fn, const c2_assignment provers[], size_t num_circuits,
                                 const c2_fr r_s[], const c2_fr s_s[], const c2_SRS *srs) {
  if (provers == NULL) return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "provers is NULL");
  if (num_circuits == 0) return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "num_circuits is 0");
  if (num_circuits > UINT32_MAX)
    return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "num_circuits %zu is above %" PRIu32,
                   num_circuits, UINT32_MAX);
  if (r_s == NULL || s_s == NULL)
    return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "%s is NULL (one blst Fr per circuit)",
                   r_s == NULL ? "r_s" : "s_s");
  if (srs == NULL) return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "srs (SRS&) is NULL");
  if (srs->ptr == NULL)
    return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn,
                   "the SRS is empty: create_SRS failed or was never called");
  return c2_ok();
}

/* A pending job of n circuits with its own copy of the caller's Assignment array (the
 * same layout, asserted above) and room for its proofs and results. */
static c2_error pending_new(const char *fn, const c2_assignment provers[], size_t n,
                            const c2_pin *pin, const char *where, c2_pending **out) {
  c2_pending *p = calloc(1, sizeof *p);
  sealprov_assignment *asg = p != NULL ? calloc(n, sizeof *asg) : NULL;
  uint8_t *proofs = asg != NULL ? calloc(n, SEALPROV_PROOF_BYTES) : NULL;
  sealprov_partition_result *res = proofs != NULL ? calloc(n, sizeof *res) : NULL;
  if (res == NULL) {
    free(proofs);
    free(asg);
    free(p);
    return c2_fail(SEALPROV_ERR_NO_MEMORY, fn, "no memory for a job of %zu circuits", n);
  }
  memcpy(asg, provers, n * sizeof *asg);
  p->n = n;
  p->asg = asg;
  p->out = proofs;
  p->res = res;
  p->gpu_index = pin->gpu_index;
  snprintf(p->where, sizeof p->where, "%s", where);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  *out = p;
  return c2_ok();
}

/* p's job for the module: the caller's r and s (Montgomery, as supraseal uses them),
 * on the devices of mask (0: any). */
static void pending_job(c2_pending *p, sealprov_srs *h, const c2_fr r_s[], const c2_fr s_s[],
                        uint64_t mask, sealprov_job *job) {
  memset(job, 0, sizeof *job);
  job->struct_size = sizeof *job;
  job->flags = SEALPROV_JOB_FIXED_RS;
  job->srs = h;
  job->partitions = p->asg;
  job->num_partitions = (uint32_t)p->n;
  job->scalar_encoding = SEALPROV_SCALAR_MONTGOMERY;
  job->r = (const uint8_t *)r_s; /* decoded at submit */
  job->s = (const uint8_t *)s_s;
  job->proofs_out = p->out;
  job->results = p->res;
  job->device_mask = mask;
  job->on_complete = on_complete;
  job->on_inputs_released = on_released;
  job->user = p;
}

/* supraseal's callers block while the GPUs are busy and treat any error as fatal (the
 * Rust wrappers panic): a full queue (max_jobs, max_partitions of the INI) is waited out
 * here, not returned. A job larger than max_partitions is refused by submit with
 * INVALID_ARGUMENT, so this cannot wait forever for room. */
static int submit_waiting(const sealprov_vtable *vt, const sealprov_job *job, sealprov_job_id *id) {
  int st;
  long delay_ms = 5;
  while ((st = vt->submit(g_p, job, id)) == SEALPROV_ERR_QUEUE_FULL) {
    struct timespec ts = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    if (delay_ms < 200) delay_ms *= 2;
  }
  return st;
}

static c2_error start(const char *fn, const c2_assignment provers[], size_t num_circuits,
                      const c2_fr r_s[], const c2_fr s_s[], const c2_SRS *srs, const c2_pin *pin,
                      c2_pending **out) {
  *out = NULL;
  c2_error err = check_start_args(fn, provers, num_circuits, r_s, s_s, srs);
  if (err.code != 0) return err;
  const sealprov_vtable *vt = provider(fn, &err);
  if (vt == NULL) return err;

  /* The call's own references: the SRS and the mutex stay alive until it returns,
   * whatever the host drops or destroys meanwhile. */
  c2_gpu_token *tok = NULL;
  if (pin->gpu_mtx != NULL && (tok = token_get(pin->gpu_mtx)) == NULL)
    return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn,
                   "gpu_mtx %p is not a mutex from create_gpu_mutex (destroyed already?)",
                   pin->gpu_mtx);
  c2_srs_inner *s = srs->ptr;
  if (!srs_ref(s)) {
    token_put(tok);
    return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn,
                   "srs %p is not a live SRS from create_SRS (dropped already?)", (void *)s);
  }
  uint64_t mask = 0;
  char where[160];
  c2_pending *p = NULL;
  err = device_for(vt, fn, pin->gpu_index, &mask, where, sizeof where);
  if (err.code == 0) err = pending_new(fn, provers, num_circuits, pin, where, &p);
  if (err.code != 0) goto done;
  sealprov_job job;
  pending_job(p, s->h, r_s, s_s, mask, &job);
  /* The caller's GPU mutex is held from here until the job's inputs are no longer read
   * (its proofs are ready): calls that share one take turns, as the fork's do around
   * their kernels. */
  if (tok != NULL) pthread_mutex_lock(&tok->mu);
  int st = submit_waiting(vt, &job, &p->id);
  if (st != SEALPROV_OK) {
    if (tok != NULL) pthread_mutex_unlock(&tok->mu);
    char what[1200];
    if (pin->gpu_index >= 0)
      snprintf(what, sizeof what, "%s, gpu_index %d", s->path, pin->gpu_index);
    else
      snprintf(what, sizeof what, "%s", s->path);
    err = vt_fail(vt, st, fn, what);
    pending_free(p);
    goto done;
  }
  /* The caller may free a, b, c (Curio does) once we return: wait until the module
   * reads none of this job's inputs any more. */
  pthread_mutex_lock(&p->mu);
  while (p->released < p->n && !p->ended) pthread_cond_wait(&p->cv, &p->mu);
  pthread_mutex_unlock(&p->mu);
  if (tok != NULL) pthread_mutex_unlock(&tok->mu);
  *out = p;
done:
  srs_unref(s);
  token_put(tok);
  return err;
}

/* Waits for p's job, writes its proofs to proofs (if all are there) and frees p. */
static c2_error finish(const char *fn, c2_pending *p, c2_groth16_proof proofs[]) {
  const sealprov_vtable *vt = g_vt; /* set: p exists only after a submit */
  int st = vt->wait(g_p, p->id, -1);
  if (st != SEALPROV_OK) {
    c2_error err = c2_fail(st, fn, "job %" PRIu64 " of %zu circuits: %s: %s", p->id, p->n,
                           vt->strerror(st), vt->last_error());
    pending_free(p);
    return err;
  }
  if (SEALPROV_LOG_INFO <= g_log_level) {
    char ran[256] = "";
    size_t off = 0;
    uint64_t seen = 0;
    for (size_t i = 0; i < p->n && off < sizeof ran; i++) {
      int d = p->res[i].device;
      if (d < 0 || d > 63 || (seen & SEALPROV_DEVICE_BIT(d))) continue;
      seen |= SEALPROV_DEVICE_BIT(d);
      off += (size_t)snprintf(ran + off, sizeof ran - off, "%s%d", off ? ", " : "", d);
    }
    c2_note(SEALPROV_LOG_INFO,
            "%s: job %" PRIu64
            ": gpu_index %d -> %s: %zu partition(s) ran "
            "on device(s) %s",
            fn, p->id, p->gpu_index, p->where, p->n, ran);
  }
  c2_groth16_proof *tmp = proofs != NULL ? malloc(p->n * sizeof *tmp) : NULL;
  if (tmp == NULL) {
    size_t n = p->n;
    pending_free(p);
    return proofs == NULL ? c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "proofs is NULL")
                          : c2_fail(SEALPROV_ERR_NO_MEMORY, fn, "no memory for %zu proofs", n);
  }
  for (size_t i = 0; i < p->n; i++) {
    const uint8_t *in = p->out + i * SEALPROV_PROOF_BYTES;
    g1_affine_t a, c;
    g2_affine_t b;
    bls_err e1 = g1_deserialize(&a, in, 48, 0);
    bls_err e2 = g2_deserialize(&b, in + 48, 96, 0);
    bls_err e3 = g1_deserialize(&c, in + 144, 48, 0);
    if (e1 != BLS_OK || e2 != BLS_OK || e3 != BLS_OK) {
      bls_err e = e1 != BLS_OK ? e1 : e2 != BLS_OK ? e2 : e3;
      c2_error err = c2_fail(SEALPROV_ERR_INTERNAL, fn,
                             "proof %zu of job %" PRIu64
                             " from the module does not decode (%s "
                             "point): %s",
                             i, p->id,
                             e1 != BLS_OK   ? "A"
                             : e2 != BLS_OK ? "B"
                                            : "C",
                             bls_err_str(e));
      free(tmp);
      pending_free(p);
      return err;
    }
    memcpy(&tmp[i].a, &a, sizeof tmp[i].a);
    memcpy(&tmp[i].b, &b, sizeof tmp[i].b);
    memcpy(&tmp[i].c, &c, sizeof tmp[i].c);
  }
  memcpy(proofs, tmp, p->n * sizeof *tmp);
  free(tmp);
  pending_free(p);
  return c2_ok();
}

/* Declared here with Curio's two trailing parameters; the header declares upstream's
 * six. gpu_mtx and gpu_index are read only when SEALPROV_C2_ARGS says the caller
 * passes them, and never written: with a 6-argument caller on x86-64 their stack slots
 * are the caller's memory (compat/local.mk also builds this file with
 * -fno-optimize-sibling-calls, so that no tail call reuses those slots). */
__attribute__((visibility("default"))) c2_error generate_groth16_proofs_c(
    const c2_assignment provers[], size_t num_circuits, const c2_fr r_s[], const c2_fr s_s[],
    c2_groth16_proof proofs[], const c2_SRS *srs, void *gpu_mtx, int gpu_index);
c2_error generate_groth16_proofs_c(const c2_assignment provers[], size_t num_circuits,
                                   const c2_fr r_s[], const c2_fr s_s[], c2_groth16_proof proofs[],
                                   const c2_SRS *srs, void *gpu_mtx, int gpu_index) {
  static const char fn[] = "generate_groth16_proofs_c";
  if (g_args_err[0]) return c2_fail(SEALPROV_ERR_CONFIG, fn, "%s", g_args_err);
  c2_pin pin = {NULL, -1};
  if (g_sync_args >= 7) pin.gpu_mtx = gpu_mtx;
  if (g_sync_args >= 8) pin.gpu_index = gpu_index;
  if (proofs == NULL) return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "proofs is NULL");
  c2_pending *p = NULL;
  c2_error err = start(fn, provers, num_circuits, r_s, s_s, srs, &pin, &p);
  if (err.code != 0) return err;
  return finish(fn, p, proofs);
}

/* Curio's split API has one form (every released Curio passes all eight arguments), so
 * gpu_mtx and gpu_index are always read, with the synchronous call's meaning. */
c2_error generate_groth16_proofs_start_c(const c2_assignment provers[], size_t num_circuits,
                                         const c2_fr r_s[], const c2_fr s_s[], const c2_SRS *srs,
                                         void *gpu_mtx, int gpu_index, void **pending_out) {
  static const char fn[] = "generate_groth16_proofs_start_c";
  if (pending_out == NULL) return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "pending_out is NULL");
  *pending_out = NULL;
  c2_pin pin = {gpu_mtx, gpu_index};
  c2_pending *p = NULL;
  c2_error err = start(fn, provers, num_circuits, r_s, s_s, srs, &pin, &p);
  if (err.code != 0) return err;
  pthread_mutex_lock(&g_live_mu);
  bool ok = sp_handle_set_add_locked(&g_live_pending, p);
  pthread_mutex_unlock(&g_live_mu);
  if (!ok) {
    g_vt->cancel(g_p, p->id);
    g_vt->wait(g_p, p->id, -1);
    pending_free(p);
    return c2_fail(SEALPROV_ERR_NO_MEMORY, fn, "no memory to register the pending proof");
  }
  *pending_out = p;
  return c2_ok();
}

/* The pending proof handle, taken out of the live set: the caller owns it. NULL when
 * handle is not a live one (handle is not read). */
static c2_pending *pending_take(void *handle) {
  if (handle == NULL) return NULL;
  pthread_mutex_lock(&g_live_mu);
  bool found = sp_handle_set_remove_locked(&g_live_pending, handle);
  pthread_mutex_unlock(&g_live_mu);
  return found ? handle : NULL;
}

c2_error finalize_groth16_proof_c(void *handle, c2_groth16_proof proofs[]) {
  static const char fn[] = "finalize_groth16_proof_c";
  if (handle == NULL) return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "handle is NULL");
  c2_pending *p = pending_take(handle);
  if (p == NULL)
    return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn,
                   "handle %p is not a pending proof (finalized or destroyed already?)", handle);
  return finish(fn, p, proofs);
}

void destroy_pending_proof(void *handle) {
  if (handle == NULL) return;
  c2_pending *p = pending_take(handle);
  if (p == NULL) {
    c2_note(SEALPROV_LOG_WARN,
            "destroy_pending_proof: %p is not a pending proof (finalized or destroyed "
            "already?): ignored",
            handle);
    return;
  }
  const sealprov_vtable *vt = g_vt;
  vt->cancel(g_p, p->id); /* NOT_FOUND when it has ended already: fine */
  vt->wait(g_p, p->id, -1);
  pending_free(p);
}
