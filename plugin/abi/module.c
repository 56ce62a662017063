/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* module.c -- the exported entry point and the vtable.
 *
 * Every vtable function: clears the calling thread's error detail, checks its
 * arguments, calls into the scheduler / parameter reader / verifier, and returns a
 * status with the detail in the thread's buffer. Nothing here aborts or exits: the
 * module lives in someone else's process.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/cs.h"
#include "groth16/cs_eval.h"
#include "groth16/groth16.h"
#include "abi/module.h"
#include "base/handle_set.h"
#include "base/log.h"
#include "formats/srs.h"
#include "base/util.h"
#include "runtime/params.h"

/* ---- per-thread error detail ------------------------------------------------------ */

static _Thread_local char tls_err[SP_ERR_DETAIL_MAX];

char *sp_err_buf(void) { return tls_err; }
void sp_err_clear(void) { tls_err[0] = '\0'; }

int sp_err(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tls_err, sizeof tls_err, fmt, ap);
  va_end(ap);
  return status;
}

/* A status from a layer that wrote its own detail into tls_err: keep the detail on
 * failure, clear it on success. */
static int settle(int status) {
  if (status == SEALPROV_OK) tls_err[0] = '\0';
  return status;
}

/* ---- open providers ------------------------------------------------------------------
 * The module-wide list of open providers, and the handles the host holds, under one
 * mutex that is only ever held for look-ups and list changes: never across device work,
 * a wait, an engine or a host callback.
 *
 * A vtable call finds its provider in the list and takes a reference (calls) under the
 * lock; close unlinks the provider (no new call finds it), shuts its scheduler down
 * (queued work fails with SHUTDOWN, running work finishes, blocked waits return), waits
 * until the calls still inside have returned, and only then frees it. So no call on a
 * closed or closing provider touches freed memory (design rule 7). */
static pthread_mutex_t providers_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t providers_cv = PTHREAD_COND_INITIALIZER; /* a provider's calls fell to 0 */
static sealprov_provider *providers;
static uint64_t next_serial = 1; /* under providers_mu */

/* p with a reference taken, if p is an open provider; else NULL. */
static sealprov_provider *provider_get(sealprov_provider *p) {
  if (p == NULL) return NULL;
  pthread_mutex_lock(&providers_mu);
  sealprov_provider *q = providers;
  while (q != NULL && q != p) q = q->next;
  if (q != NULL) q->calls++;
  pthread_mutex_unlock(&providers_mu);
  return q;
}

static void provider_put(sealprov_provider *p) {
  pthread_mutex_lock(&providers_mu);
  if (--p->calls == 0) pthread_cond_broadcast(&providers_cv);
  pthread_mutex_unlock(&providers_mu);
}

/* ---- handles the host holds ----------------------------------------------------------
 * A parameter set or constraint system handle is checked by looking its VALUE up among
 * the ones the host holds, never by reading through it: a released one is freed memory,
 * and a foreign pointer may point anywhere (design rule 7). A handle is in its set from
 * the load that returned it until the host's release, which takes it out under the same
 * lock: so a handle found in the set still has the host's reference, a reference taken
 * under the lock keeps it alive after the lock is dropped, and two releases of one
 * handle cannot both pass the look-up. Jobs hold their own references: a set released
 * by the host lives on until its last job ends. */
static sp_handle_set live_srs, live_cs; /* under providers_mu (base/handle_set.h) */

static bool handle_register(sp_handle_set *s, const void *h) {
  pthread_mutex_lock(&providers_mu);
  bool ok = sp_handle_set_add_locked(s, h);
  pthread_mutex_unlock(&providers_mu);
  return ok;
}

/* A host's release of h: out of the set under the lock, so that the host's reference is
 * now the caller's to drop (outside the lock: it may free the set and evict its device
 * copies) and a second release of the same handle finds nothing. False, with the error
 * set and logged, when h is not in the set. */
static bool handle_unregister(sp_handle_set *s, const void *h, const char *fn, const char *what) {
  pthread_mutex_lock(&providers_mu);
  bool ok = sp_handle_set_remove_locked(s, h);
  pthread_mutex_unlock(&providers_mu);
  if (!ok) {
    sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
           "%s: %p is not a loaded %s (released twice, or never loaded)", fn, h, what);
    sp_log(SEALPROV_LOG_WARN, "%s", tls_err);
  }
  return ok;
}

/* A reference on the parameter set h if the host holds it (NULL: it does not). */
static sp_srs *srs_get(const void *h) {
  pthread_mutex_lock(&providers_mu);
  sp_srs *srs = h != NULL && sp_handle_set_has_locked(&live_srs, h) ? (sp_srs *)h : NULL;
  if (srs != NULL) sp_srs_retain(srs);
  pthread_mutex_unlock(&providers_mu);
  return srs;
}

static sp_cs *cs_get(const void *h) {
  pthread_mutex_lock(&providers_mu);
  sp_cs *cs = h != NULL && sp_handle_set_has_locked(&live_cs, h) ? (sp_cs *)h : NULL;
  if (cs != NULL) sp_cs_retain(cs);
  pthread_mutex_unlock(&providers_mu);
  return cs;
}

/* Every open provider's engines drop their device copies of srs or cs (the last
 * reference is going: a later allocation at the same address must not be mistaken for
 * it). The providers are visited one at a time, newest first, each with a reference
 * taken under the lock and the eviction run outside it: an eviction waits for the
 * device's running partition, and nothing else may wait for that. A
 * provider opened meanwhile cannot hold a copy of a set nobody references. */
static void evict_everywhere(const sp_srs *srs, const sp_cs *cs) {
  uint64_t below = UINT64_MAX;
  for (;;) {
    pthread_mutex_lock(&providers_mu);
    sealprov_provider *next = NULL;
    for (sealprov_provider *q = providers; q != NULL; q = q->next)
      if (q->serial < below && (next == NULL || q->serial > next->serial)) next = q;
    if (next != NULL) {
      next->calls++;
      below = next->serial;
    }
    pthread_mutex_unlock(&providers_mu);
    if (next == NULL) break;
    if (srs != NULL) sp_sched_srs_evict(next->sched, srs);
    if (cs != NULL) sp_sched_cs_evict(next->sched, cs);
    provider_put(next);
  }
}

static void srs_on_free(sp_srs *srs, void *user) {
  (void)user;
  evict_everywhere(srs, NULL);
}

static void cs_on_free(sp_cs *cs, void *user) {
  (void)user;
  evict_everywhere(NULL, cs);
}

/* The job's parameter set and constraint system, referenced for the duration of one
 * submit (the scheduler takes its own references for the job's life). */
typedef struct job_refs {
  sp_srs *srs;
  sp_cs *cs;
} job_refs;

static void job_refs_drop(job_refs *r) {
  /* may be the last references (the host released them meanwhile): evictions run here,
   * with no lock of the module held */
  if (r->srs != NULL) sp_srs_release(r->srs);
  if (r->cs != NULL) sp_cs_release(r->cs);
  r->srs = NULL;
  r->cs = NULL;
}

/* The job's srs and cs fields, when the host's struct covers and sets them, must be
 * handles the host holds; a reference is taken on each. A job without them, or with a
 * struct too small, is the scheduler's to refuse with its own messages. */
static int job_refs_take(const char *what, const sealprov_job *job, job_refs *r) {
  r->srs = NULL;
  r->cs = NULL;
  if (job == NULL) return SEALPROV_OK;
  if (job->struct_size >= offsetof(sealprov_job, srs) + sizeof job->srs && job->srs != NULL &&
      (r->srs = srs_get(job->srs)) == NULL)
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
                  "%s: job->srs %p is not a loaded parameter set (released, or never returned by "
                  "srs_load/vk_load)",
                  what, (void *)job->srs);
  if (job->struct_size >= offsetof(sealprov_job, cs) + sizeof job->cs && job->cs != NULL &&
      (r->cs = cs_get(job->cs)) == NULL) {
    job_refs_drop(r);
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
                  "%s: job->cs %p is not a loaded constraint system (released, or never returned "
                  "by cs_load)",
                  what, (void *)job->cs);
  }
  return SEALPROV_OK;
}

static int check_cs_hook(const sp_srs *srs, const struct sp_cs *cs, const sealprov_assignment *asg,
                         char *err, size_t errlen) {
  return sp_cs_check_partition(srs, cs, asg, err, errlen);
}

/* ---- vtable ------------------------------------------------------------------------ */

static const char *vt_version(void) { return PACKAGE_VERSION; }
static const char *vt_strerror(int status) { return sp_status_str(status); }
static const char *vt_last_error(void) { return tls_err; }

int sp_provider_create(const sp_config *cfg, const sp_engine_ops *const *engines,
                       const sp_sched_hooks *hooks, sealprov_provider **out, char *err,
                       size_t errlen) {
  if (out == NULL || cfg == NULL) {
    snprintf(err, errlen, "provider: NULL %s", out == NULL ? "out" : "config");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  sealprov_provider *p = calloc(1, sizeof *p);
  sp_config *copy = p ? malloc(sizeof *copy) : NULL;
  if (copy == NULL) {
    free(p);
    snprintf(err, errlen, "provider: out of memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  *copy = *cfg;
  int st = sp_sched_create(copy, engines, hooks, &p->sched, err, errlen);
  if (st != SEALPROV_OK) {
    free(copy);
    free(p);
    return st;
  }
  p->cfg = copy;
  p->magic = SP_PROVIDER_MAGIC;
  pthread_mutex_lock(&providers_mu);
  p->serial = next_serial++;
  p->next = providers;
  providers = p;
  pthread_mutex_unlock(&providers_mu);
  *out = p;
  return SEALPROV_OK;
}

/* The engine of a device's kind (engine.h: the backends this build has). */
static const sp_engine_ops *engine_for(const sp_device_cfg *d, char *err, size_t errlen) {
  const sp_backend *b = sp_backend_for(d->type);
  if (b != NULL) return b->ops;
  if (d->type == SP_DEVICE_CUDA)
    snprintf(err, errlen, "[%s] type = cuda (line %d), but this module was built without CUDA",
             d->section, d->line);
  else
    snprintf(err, errlen, "[%s]: unknown device type %d", d->section, (int)d->type);
  return NULL;
}

static int vt_open(const char *ini_path, sealprov_provider **out) {
  sp_err_clear();
  if (out != NULL) *out = NULL;
  if (ini_path == NULL || out == NULL)
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "open: NULL %s",
                  ini_path == NULL ? "ini_path" : "out");
  sp_config *cfg = malloc(sizeof *cfg);
  if (cfg == NULL) return sp_err(SEALPROV_ERR_NO_MEMORY, "open: out of memory");
  int st = sp_config_load(ini_path, cfg, tls_err, sizeof tls_err);
  if (st == SEALPROV_OK) st = sp_config_resolve_devices(cfg, tls_err, sizeof tls_err);
  const sp_engine_ops *engines[SP_MAX_DEVICES];
  for (size_t i = 0; st == SEALPROV_OK && i < cfg->ndevices; i++) {
    engines[i] = engine_for(&cfg->devices[i], tls_err, sizeof tls_err);
    if (engines[i] == NULL) st = SEALPROV_ERR_UNSUPPORTED;
  }
  if (st == SEALPROV_OK) {
    const sp_sched_hooks hooks = {
        .verify_proof = sp_groth16_verify,
        .check_assignment = sp_groth16_check_assignment,
        .srs_retain = sp_srs_retain,
        .srs_release = sp_srs_release,
        .check_cs = check_cs_hook,
        .cs_retain = sp_cs_retain,
        .cs_release = sp_cs_release,
    };
    st = sp_provider_create(cfg, engines, &hooks, out, tls_err, sizeof tls_err);
  }
  if (st == SEALPROV_OK)
    sp_log(SEALPROV_LOG_INFO, "opened %s: %zu device(s), self-check %s", ini_path, cfg->ndevices,
           cfg->verify_proofs ? "on" : "off");
  else /* the host gets status and detail; the log only helps when debugging hosts */
    sp_log(SEALPROV_LOG_DEBUG, "open %s failed: %s: %s", ini_path, sp_status_name(st), tls_err);
  free(cfg);
  return settle(st);
}

static int vt_close(sealprov_provider *h) {
  sp_err_clear();
  sealprov_provider *p = provider_get(h);
  if (p == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "close: not an open provider");
  if (sp_sched_on_callback_thread(p->sched)) {
    provider_put(p);
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
                  "close() called from an on_complete/on_inputs_released callback: close joins "
                  "the thread that runs the callbacks; close from another thread");
  }
  /* Unlinked, no new call finds p; of two concurrent closes only one unlinks it. */
  bool unlinked = false;
  pthread_mutex_lock(&providers_mu);
  for (sealprov_provider **pp = &providers; *pp != NULL; pp = &(*pp)->next) {
    if (*pp == p) {
      *pp = p->next;
      unlinked = true;
      break;
    }
  }
  p->calls--; /* this call's own reference */
  if (p->calls == 0) pthread_cond_broadcast(&providers_cv);
  pthread_mutex_unlock(&providers_mu);
  if (!unlinked) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "close: not an open provider");
  /* Queued work fails with SHUTDOWN, running work finishes, blocked wait()s return;
   * then the calls still inside (devices, stats, an eviction) leave before p goes. */
  sp_sched_shutdown(p->sched);
  pthread_mutex_lock(&providers_mu);
  while (p->calls > 0) pthread_cond_wait(&providers_cv, &providers_mu);
  pthread_mutex_unlock(&providers_mu);
  sp_sched_destroy(p->sched);
  p->magic = 0;
  free(p->cfg);
  free(p);
  return SEALPROV_OK;
}

static int load_on(sealprov_provider *p, const char *path, bool vk_only, sealprov_srs **out) {
  const char *what = vk_only ? "vk_load" : "srs_load";
  if (path == NULL || out == NULL)
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "%s: NULL %s", what,
                  path == NULL ? "path" : "out");
  sp_srs *srs = NULL;
  sp_srs_lengths lens;
  sp_partition_shape shape;
  /* A set no device can prove with is refused before its file is read (the lengths
   * alone tell); a file whose lengths do not add up is left to the load to describe. */
  if (!vk_only && sp_srs_peek_lengths(path, &lens) == SEALPROV_OK) {
    sp_shape_of_lengths(&lens, &shape);
    int st = sp_sched_check_capacity(p->sched, &shape, what, path, tls_err, sizeof tls_err);
    if (st != SEALPROV_OK) return st;
  }
  int st = sp_params_load(p->cfg, path, vk_only, sp_sched_params_stats(p->sched), &srs, tls_err,
                          sizeof tls_err);
  if (st != SEALPROV_OK) return st;
  if (!vk_only && srs->device_only) { /* straight onto the GPUs: it can only be resident */
    sp_shape_of_srs(srs, &shape);
    st = sp_sched_check_capacity(p->sched, &shape, what, path, tls_err, sizeof tls_err);
    if (st != SEALPROV_OK) {
      sp_srs_release(srs);
      return st;
    }
  }
  /* on_free before the handle is registered: from then on another thread may release it */
  srs->on_free = srs_on_free;
  srs->on_free_user = NULL;
  if (!handle_register(&live_srs, srs)) {
    sp_srs_release(srs);
    return sp_err(SEALPROV_ERR_NO_MEMORY, "%s: out of memory registering the handle of %s", what,
                  path);
  }
  *out = (sealprov_srs *)srs;
  return settle(SEALPROV_OK);
}

static int load(sealprov_provider *h, const char *path, bool vk_only, sealprov_srs **out) {
  sp_err_clear();
  if (out != NULL) *out = NULL;
  sealprov_provider *p = provider_get(h);
  if (p == NULL)
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "%s: not an open provider",
                  vk_only ? "vk_load" : "srs_load");
  int st = load_on(p, path, vk_only, out);
  provider_put(p);
  return st;
}

static int vt_srs_load(sealprov_provider *p, const char *path, sealprov_srs **out) {
  return load(p, path, false, out);
}
static int vt_vk_load(sealprov_provider *p, const char *path, sealprov_srs **out) {
  return load(p, path, true, out);
}
static void vt_srs_release(sealprov_srs *srs) {
  sp_err_clear();
  if (srs == NULL) return;
  if (handle_unregister(&live_srs, srs, "srs_release", "parameter set"))
    sp_srs_release((sp_srs *)srs);
}

/* A set loaded straight onto the GPUs (device_only) has no host copy: every device of
 * the provider that may take its partitions must hold a copy (a CPU device, or a GPU
 * the set was not loaded onto, cannot prove with it). */
static int check_job_devices(const char *what, const sealprov_provider *p, const sp_srs *srs) {
  if (srs == NULL || !srs->device_only) return SEALPROV_OK;
  for (size_t i = 0; i < p->cfg->ndevices; i++) {
    const sp_device_cfg *d = &p->cfg->devices[i];
    bool has = false;
    for (unsigned k = 0; srs->devcopy && k < srs->devcopy->ndev; k++)
      has = has || (d->type == SP_DEVICE_CUDA && srs->devcopy->ordinal[k] == d->ordinal);
    if (!has)
      return sp_err(
          SEALPROV_ERR_INVALID_ARGUMENT,
          "%s: parameter set %s was loaded straight onto the GPUs with no host copy, and "
          "device [%s] of this provider has no copy of it (load it through this provider, "
          "or with [provider] params_residency = host)",
          what, srs->path, d->section);
  }
  return SEALPROV_OK;
}

/* The one path of submit() and prove() into the scheduler: handles
 * looked up and referenced, the device copies checked, then the scheduler's own checks
 * and queueing. */
static int submit_on(const char *what, sealprov_provider *p, const sealprov_job *job,
                     sealprov_job_id *id) {
  job_refs r;
  int st = job_refs_take(what, job, &r);
  if (st == SEALPROV_OK) st = check_job_devices(what, p, r.srs);
  if (st == SEALPROV_OK) st = sp_sched_submit(p->sched, job, id, tls_err, sizeof tls_err);
  job_refs_drop(&r);
  return st;
}

static int vt_submit(sealprov_provider *h, const sealprov_job *job, sealprov_job_id *id) {
  sp_err_clear();
  sealprov_provider *p = provider_get(h);
  if (p == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "submit: not an open provider");
  int st = submit_on("submit", p, job, id);
  provider_put(p);
  return settle(st);
}

static int vt_wait(sealprov_provider *h, sealprov_job_id id, int64_t timeout_ms) {
  sp_err_clear();
  sealprov_provider *p = provider_get(h);
  if (p == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "wait: not an open provider");
  int st = sp_sched_wait(p->sched, id, timeout_ms, tls_err, sizeof tls_err);
  provider_put(p);
  return settle(st);
}

static int vt_cancel(sealprov_provider *h, sealprov_job_id id) {
  sp_err_clear();
  sealprov_provider *p = provider_get(h);
  if (p == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "cancel: not an open provider");
  int st = sp_sched_cancel(p->sched, id, tls_err, sizeof tls_err);
  provider_put(p);
  return settle(st);
}

static int vt_prove(sealprov_provider *h, const sealprov_job *job) {
  sp_err_clear();
  sealprov_provider *p = provider_get(h);
  if (p == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "prove: not an open provider");
  int st;
  sealprov_job_id id = 0;
  if (job != NULL && job->struct_size >= offsetof(sealprov_job, flags) + sizeof job->flags &&
      (job->flags & SEALPROV_JOB_DETACHED))
    st = sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
                "prove: a DETACHED job cannot be waited on; use submit()");
  else
    st = submit_on("prove", p, job, &id);
  if (st == SEALPROV_OK) st = sp_sched_wait(p->sched, id, -1, tls_err, sizeof tls_err);
  provider_put(p);
  return settle(st);
}

static int verify_on(const sp_srs *srs, const void *inputs, uint64_t num_inputs,
                     uint32_t scalar_encoding, const uint8_t *proof, int *valid) {
  if (srs->vk.ic_len == 0 || num_inputs != srs->vk.ic_len - 1)
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
                  "verify: num_inputs %" PRIu64
                  " does not match the verifying key (%zu public "
                  "inputs, file %s)",
                  num_inputs, srs->vk.ic_len ? srs->vk.ic_len - 1 : 0, srs->path ? srs->path : "?");
  fr_t *in = num_inputs ? malloc((size_t)num_inputs * sizeof *in) : NULL;
  if (num_inputs > 0 && in == NULL) return sp_err(SEALPROV_ERR_NO_MEMORY, "verify: out of memory");
  for (uint64_t i = 0; i < num_inputs; i++) {
    if (!sp_scalar_decode(&in[i], (const uint8_t *)inputs + i * 32, scalar_encoding)) {
      free(in);
      return sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
                    "verify: input %" PRIu64 " is not a scalar below the group order r", i);
    }
  }
  bool ok = false;
  int st = sp_groth16_verify_inputs(&srs->vk, in, (size_t)num_inputs, proof, &ok, tls_err,
                                    sizeof tls_err);
  free(in);
  *valid = st == SEALPROV_OK && ok;
  return st;
}

static int vt_verify(sealprov_provider *h, const sealprov_srs *vk, const void *inputs,
                     uint64_t num_inputs, uint32_t scalar_encoding, const uint8_t *proof,
                     int *valid) {
  sp_err_clear();
  if (valid != NULL) *valid = 0;
  sealprov_provider *p = provider_get(h);
  if (p == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "verify: not an open provider");
  int st = SEALPROV_OK;
  sp_srs *srs = NULL;
  if (vk == NULL || proof == NULL || valid == NULL || (inputs == NULL && num_inputs > 0))
    st = sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "verify: NULL %s",
                vk == NULL      ? "vk"
                : proof == NULL ? "proof"
                : valid == NULL ? "valid"
                                : "inputs");
  else if (scalar_encoding != SEALPROV_SCALAR_CANONICAL_LE &&
           scalar_encoding != SEALPROV_SCALAR_MONTGOMERY)
    st =
        sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
               "verify: scalar_encoding %" PRIu32 " is neither CANONICAL_LE (0) nor MONTGOMERY (1)",
               scalar_encoding);
  else if ((srs = srs_get(vk)) == NULL)
    st = sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
                "verify: vk %p is not a loaded parameter set (released, or never returned by "
                "vk_load/srs_load)",
                (const void *)vk);
  else
    st = verify_on(srs, inputs, num_inputs, scalar_encoding, proof, valid);
  provider_put(p);
  if (srs != NULL) sp_srs_release(srs); /* may be the last reference: no lock held */
  return settle(st);
}

static int vt_devices(sealprov_provider *h, sealprov_device_info *out, size_t cap, size_t *count) {
  sp_err_clear();
  sealprov_provider *p = provider_get(h);
  if (p == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "devices: not an open provider");
  int st;
  if (count == NULL || (out == NULL && cap > 0))
    st = sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "devices: NULL %s", count == NULL ? "count" : "out");
  else
    st = sp_sched_devices(p->sched, out, cap, count);
  provider_put(p);
  return st;
}

static int text_call(const char *what, int (*fn)(sp_sched *, char *, size_t, size_t *),
                     sealprov_provider *h, char *buf, size_t cap, size_t *len) {
  sp_err_clear();
  sealprov_provider *p = provider_get(h);
  if (p == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "%s: not an open provider", what);
  int st;
  if (len == NULL || (buf == NULL && cap > 0))
    st = sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "%s: NULL %s", what, len == NULL ? "len" : "buf");
  else if ((st = fn(p->sched, buf, cap, len)) != SEALPROV_OK)
    st = sp_err(st, "%s: out of memory formatting the text", what);
  provider_put(p);
  return st;
}

static int vt_stats(sealprov_provider *p, char *buf, size_t cap, size_t *len) {
  return text_call("stats", sp_sched_stats, p, buf, cap, len);
}
static int vt_timeline(sealprov_provider *p, char *buf, size_t cap, size_t *len) {
  return text_call("timeline", sp_sched_timeline, p, buf, cap, len);
}

/* ---- constraint systems (ABI 1.1) ---------------------------------------------------- */

static int cs_load_on(const char *path, sealprov_cs **out) {
  if (path == NULL || out == NULL)
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "cs_load: NULL %s", path == NULL ? "path" : "out");
  sp_cs *cs = NULL;
  double t0 = sp_now_ms();
  int st = sp_cs_load(path, &cs, tls_err, sizeof tls_err);
  if (st != SEALPROV_OK) return st;
  cs->on_free = cs_on_free; /* before the handle is registered (see load_on) */
  if (!handle_register(&live_cs, cs)) {
    sp_cs_release(cs);
    return sp_err(SEALPROV_ERR_NO_MEMORY, "cs_load: out of memory registering the handle of %s",
                  path);
  }
  sp_log(SEALPROV_LOG_INFO,
         "cs_load %s: %" PRIu64 " constraints (+%" PRIu64 " input constraints), %" PRIu64
         " inputs, %" PRIu64 " aux, %" PRIu64 "/%" PRIu64 "/%" PRIu64 " terms in A/B/C, %" PRIu32
         " distinct coefficients, %.1f MiB, %.0f ms",
         cs->path, cs->n_rows, cs->inp_size, cs->inp_size, cs->aux_size, cs->nnz[0], cs->nnz[1],
         cs->nnz[2], cs->ncoeffs, (double)cs->host_bytes / (1024.0 * 1024.0), sp_now_ms() - t0);
  *out = (sealprov_cs *)cs;
  return settle(SEALPROV_OK);
}

static int vt_cs_load(sealprov_provider *h, const char *path, sealprov_cs **out) {
  sp_err_clear();
  if (out != NULL) *out = NULL;
  sealprov_provider *p = provider_get(h);
  if (p == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "cs_load: not an open provider");
  int st = cs_load_on(path, out);
  provider_put(p);
  return st;
}

static void vt_cs_release(sealprov_cs *handle) {
  sp_err_clear();
  if (handle == NULL) return;
  if (handle_unregister(&live_cs, handle, "cs_release", "constraint system"))
    sp_cs_release((sp_cs *)handle);
}

static int vt_cs_info(const sealprov_cs *handle, sealprov_cs_info *out) {
  sp_err_clear();
  const size_t first = offsetof(sealprov_cs_info, constraints) + sizeof out->constraints;
  if (handle == NULL || out == NULL)
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "cs_info: NULL %s", handle == NULL ? "cs" : "out");
  if (out->struct_size < first)
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
                  "cs_info: out->struct_size %" PRIu32
                  " is smaller than %zu: set it to "
                  "sizeof(sealprov_cs_info)",
                  out->struct_size, first);
  sealprov_cs_info info;
  memset(&info, 0, sizeof info);
  pthread_mutex_lock(&providers_mu);
  bool ok = sp_handle_set_has_locked(&live_cs, handle);
  if (ok) {
    const sp_cs *cs = (const sp_cs *)handle;
    info.constraints = cs->n_rows;
    info.abc_size = cs->abc_size;
    info.inp_size = cs->inp_size;
    info.aux_size = cs->aux_size;
    info.nnz_a = cs->nnz[0];
    info.nnz_b = cs->nnz[1];
    info.nnz_c = cs->nnz[2];
    info.a_aux_popcount = cs->a_aux_popcount;
    info.b_inp_popcount = cs->b_inp_popcount;
    info.b_aux_popcount = cs->b_aux_popcount;
    info.host_bytes = cs->host_bytes;
  }
  pthread_mutex_unlock(&providers_mu);
  if (!ok)
    return sp_err(SEALPROV_ERR_INVALID_ARGUMENT,
                  "cs_info: %p is not a loaded constraint system (released, or never loaded)",
                  (const void *)handle);
  uint32_t n = out->struct_size < sizeof info ? out->struct_size : (uint32_t)sizeof info;
  info.struct_size = n;
  memcpy(out, &info, n);
  return SEALPROV_OK;
}

static const sealprov_vtable vtable = {
    .abi_major = SEALPROV_ABI_MAJOR,
    .abi_minor = SEALPROV_ABI_MINOR,
    .struct_size = (uint32_t)sizeof(sealprov_vtable),
    .version = vt_version,
    .strerror = vt_strerror,
    .last_error = vt_last_error,
    .open = vt_open,
    .close = vt_close,
    .srs_load = vt_srs_load,
    .vk_load = vt_vk_load,
    .srs_release = vt_srs_release,
    .submit = vt_submit,
    .wait = vt_wait,
    .cancel = vt_cancel,
    .prove = vt_prove,
    .verify = vt_verify,
    .devices = vt_devices,
    .stats = vt_stats,
    .timeline = vt_timeline,
    .cs_load = vt_cs_load,
    .cs_release = vt_cs_release,
    .cs_info = vt_cs_info,
};

const sealprov_vtable *sp_module_vtable(void) { return &vtable; }

/* ---- the one exported symbol ------------------------------------------------------- */

__attribute__((visibility("default"))) int sealprov_provider_init(uint32_t abi_major,
                                                                  uint32_t abi_minor,
                                                                  const sealprov_host *host,
                                                                  const sealprov_vtable **out);

/* Unlike the vtable calls, init does not clear the thread's detail when it succeeds:
 * a host refused once has no vtable to read last_error() with, so the refusal stays
 * readable through the table a later, compatible init hands out. */
int sealprov_provider_init(uint32_t abi_major, uint32_t abi_minor, const sealprov_host *host,
                           const sealprov_vtable **out) {
  if (out != NULL) *out = NULL;
  if (abi_major != SEALPROV_ABI_MAJOR) {
    int st =
        sp_err(SEALPROV_ERR_ABI_VERSION,
               "incompatible ABI version: the host was built for sealprov ABI %" PRIu32 ".%" PRIu32
               ", this module (sealprov %s) implements ABI %d.%d; the major "
               "versions must match",
               abi_major, abi_minor, PACKAGE_VERSION, SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR);
    /* Tell the refused host through its own logger, without adopting it: it will not
     * use this module, and an earlier compatible host's logger stays in place. */
    if (host != NULL && host->struct_size >= offsetof(sealprov_host, log_user) + sizeof(void *) &&
        host->log != NULL && host->log_level >= SEALPROV_LOG_ERROR)
      host->log(host->log_user, SEALPROV_LOG_ERROR, tls_err);
    return st;
  }
  if (out == NULL) return sp_err(SEALPROV_ERR_INVALID_ARGUMENT, "sealprov_provider_init: NULL out");
  sp_log_set_host(host);
  if (abi_minor > SEALPROV_ABI_MINOR)
    sp_log(SEALPROV_LOG_DEBUG,
           "host ABI %" PRIu32 ".%" PRIu32
           " is newer than the module's %d.%d: the host must "
           "check vtable->struct_size before using later fields",
           abi_major, abi_minor, SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR);
  *out = &vtable;
  return SEALPROV_OK;
}
