/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* sched.c -- a provider's scheduler (sp_sched.h): create, shutdown, destroy, the
 * notifier thread that runs the host's callbacks, evictions. Jobs -> partition tasks,
 * priorities, retries and quarantine are queue.c's; the host's calls on jobs jobs.c's;
 * the timeline and counters reports.c's; the worker threads pool.c's.
 *
 * Locking: one mutex (s->mu) guards the queue, the jobs, the tasks and the device
 * counters; the timeline has its own mutex so that formatting it never stalls the
 * workers; each device has its device lock (pool.c holds it around execute). Order,
 * where two are held: device lock -> s->mu is never needed (executing is atomic), and
 * s->mu is never held while calling an engine or a host callback.
 *
 * Host callbacks run on one notifier thread, in the order their causes happened, so
 * that (a) no worker ever blocks in host code, (b) cancel() and close() never call the
 * host back from inside the host's own call, and (c) every on_inputs_released of a job
 * has returned before its on_complete starts, and on_complete has returned before
 * wait() returns.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/thread.h"
#include "runtime/sched_internal.h"

int sched_fail(char *err, size_t errlen, int status, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return status;
}

const char *sched_dev_name(const sp_device_rt *d) { return d->cfg.section; }

/* ---- notifier thread -------------------------------------------------------------- */

static void *notifier_main(void *arg) {
  sp_sched *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (s->nhead == NULL && !s->notify_stop) pthread_cond_wait(&s->notify_cv, &s->mu);
    sp_notice *n = s->nhead;
    if (n == NULL) break; /* stopping and drained */
    s->nhead = n->next;
    if (s->nhead == NULL) s->ntail = NULL;
    pthread_mutex_unlock(&s->mu);

    sp_job *j = n->job;
    if (n->partition >= 0) {
      j->desc.on_inputs_released(j->desc.user, j->id, (uint32_t)n->partition);
    } else {
      if (j->status != SEALPROV_OK)
        SLOG(s, SEALPROV_LOG_WARN, "job %" PRIu64 " ended: %s: %s", j->id,
             sp_status_name(j->status), j->err);
      /* The parameters outlive the job only if the host still holds them. */
      if (s->hooks.srs_release != NULL && j->srs != NULL) s->hooks.srs_release(j->srs);
      if (s->hooks.cs_release != NULL && j->cs != NULL) s->hooks.cs_release(j->cs);
      if (j->desc.on_complete != NULL) j->desc.on_complete(j->desc.user, j->id, j->status);
    }

    pthread_mutex_lock(&s->mu);
    if (n->partition < 0) {
      j->notified = true;
      if (j->desc.flags & SEALPROV_JOB_DETACHED) {
        sched_job_unlink(s, j);
        sched_job_free(j);
      } else {
        pthread_cond_broadcast(&s->job_cv);
      }
    }
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* ---- create / destroy ---------------------------------------------------------------- */

static void close_devices(sp_sched *s) {
  for (unsigned i = 0; i < s->ndev; i++) {
    sp_device_rt *d = &s->devs[i];
    if (d->opened && d->eng->device_close != NULL) d->eng->device_close(d->handle);
    d->opened = false;
  }
}

static void free_sched(sp_sched *s) {
  if (s->devs != NULL)
    for (unsigned i = 0; i < s->ndev; i++) pthread_mutex_destroy(&s->devs[i].lock);
  pthread_mutex_destroy(&s->mu);
  pthread_mutex_destroy(&s->tl_mu);
  pthread_cond_destroy(&s->work_cv);
  pthread_cond_destroy(&s->job_cv);
  pthread_cond_destroy(&s->notify_cv);
  free(s->tl);
  free(s->devs);
  sp_hostmem_destroy(s->hostmem);
  free(s);
}

static void stop_notifier(sp_sched *s) {
  if (!atomic_load(&s->notifier_started)) return;
  pthread_mutex_lock(&s->mu);
  s->notify_stop = true;
  pthread_cond_broadcast(&s->notify_cv);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->notifier, NULL);
  atomic_store(&s->notifier_started, false);
}

void sp_sched_stop_workers(sp_sched *s) {
  pthread_mutex_lock(&s->mu);
  s->stopping = true;
  pthread_cond_broadcast(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
}

bool sp_sched_on_callback_thread(const sp_sched *s) {
  return s != NULL && atomic_load(&s->notifier_started) &&
         pthread_equal(pthread_self(), s->notifier);
}

sp_proof_verify_fn sp_sched_verifier(const sp_sched *s) {
  return s->cfg.verify_proofs ? s->hooks.verify_proof : NULL;
}

/* What sp_sched_create refuses before it allocates: NULL arguments, no devices or too
 * many, a device without an engine or without workers. */
static int check_create_args(const sp_config *cfg, const sp_engine_ops *const *engines,
                             sp_sched **out, char *err, size_t errlen) {
  if (cfg == NULL || engines == NULL || out == NULL)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "scheduler: NULL %s",
                      cfg == NULL       ? "config"
                      : engines == NULL ? "engines"
                                        : "out");
  if (cfg->ndevices == 0)
    return sched_fail(err, errlen, SEALPROV_ERR_NO_DEVICE,
                      "%s: no device sections: nothing to run on",
                      cfg->path[0] ? cfg->path : "configuration");
  if (cfg->ndevices > SP_MAX_DEVICES)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "%zu devices (at most %d)",
                      cfg->ndevices, SP_MAX_DEVICES);
  for (size_t i = 0; i < cfg->ndevices; i++) {
    const sp_engine_ops *e = engines[i];
    if (e == NULL || e->device_open == NULL || e->worker_bind == NULL || e->execute == NULL)
      return sched_fail(err, errlen, SEALPROV_ERR_INTERNAL,
                        "device %zu (%s): no engine, or an engine without device_open/worker_bind/"
                        "execute",
                        i, cfg->devices[i].section);
    if (cfg->devices[i].workers == 0)
      return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                        "device %zu (%s): 0 workers: a device needs at least one", i,
                        cfg->devices[i].section);
  }
  return SEALPROV_OK;
}

/* The scheduler's memory, locks and device records, no device opened yet; on failure
 * nothing is left. */
static int sched_new(const sp_config *cfg, const sp_engine_ops *const *engines,
                     const sp_sched_hooks *hooks, sp_sched **out, char *err, size_t errlen) {
  sp_sched *s = calloc(1, sizeof *s);
  if (s == NULL) return sched_fail(err, errlen, SEALPROV_ERR_NO_MEMORY, "scheduler: out of memory");
  s->cfg = *cfg;
  if (hooks != NULL) s->hooks = *hooks;
  /* [provider] host_memory_limit: the engines' staging waits for memory under it. The
   * accountant is this provider's: a failed open frees it, and no other provider's cap
   * or counters change. */
  if (sp_hostmem_create(cfg->host_memory_limit, &s->hostmem) != SEALPROV_OK) {
    free(s);
    return sched_fail(err, errlen, SEALPROV_ERR_NO_MEMORY, "scheduler: out of memory");
  }
  s->t0 = sp_now();
  s->next_id = 1;
  s->ndev = (unsigned)cfg->ndevices;
  pthread_mutex_init(&s->mu, NULL);
  pthread_mutex_init(&s->tl_mu, NULL);
  pthread_cond_init(&s->work_cv, NULL);
  pthread_cond_init(&s->notify_cv, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&s->job_cv, &ca);
  pthread_condattr_destroy(&ca);

  s->tl_cap = cfg->timeline_events;
  if (s->tl_cap > 0 && (s->tl = calloc(s->tl_cap, sizeof *s->tl)) == NULL) {
    free_sched(s);
    return sched_fail(err, errlen, SEALPROV_ERR_NO_MEMORY, "timeline of %zu events: out of memory",
                      (size_t)cfg->timeline_events);
  }
  s->devs = calloc(s->ndev, sizeof *s->devs);
  if (s->devs == NULL) {
    free_sched(s);
    return sched_fail(err, errlen, SEALPROV_ERR_NO_MEMORY, "scheduler: out of memory");
  }
  unsigned total_workers = 0;
  for (unsigned i = 0; i < s->ndev; i++) total_workers += cfg->devices[i].workers;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  if (ncpu < 1) ncpu = 1;
  for (unsigned i = 0; i < s->ndev; i++) {
    sp_device_rt *d = &s->devs[i];
    d->index = i;
    d->cfg = cfg->devices[i];
    d->cfg.hostmem = s->hostmem;
    d->eng = engines[i];
    d->confirmed_ordinal = -1;
    atomic_init(&d->executing, 0);
    /* Host threads per task: as configured, else an equal share of the machine so
     * that all workers preparing at once do not oversubscribe it. */
    d->cpu_threads = d->cfg.threads ? d->cfg.threads
                                    : (unsigned)(ncpu / total_workers ? ncpu / total_workers : 1);
    pthread_mutex_init(&d->lock, NULL);
  }
  *out = s;
  return SEALPROV_OK;
}

/* device_open of every device, on this thread (engines must not change its current
 * device); on failure the ones opened are closed again. */
static int open_devices(sp_sched *s, char *err, size_t errlen) {
  for (unsigned i = 0; i < s->ndev; i++) {
    sp_device_rt *d = &s->devs[i];
    char msg[256] = "";
    /* eng -> the table to call from now on (the fault engine's, when [testing] faults
     * this device in a fault-injection build; it has eng's name) */
    int st = sp_engine_open(d->eng, &d->cfg, &d->eng, &d->handle, msg, sizeof msg);
    if (st != SEALPROV_OK) {
      sched_fail(err, errlen, st, "device %u (%s, %s engine): cannot open: %s", i, d->cfg.section,
                 d->eng->name ? d->eng->name : "?", msg);
      close_devices(s);
      return st;
    }
    d->opened = true;
  }
  return SEALPROV_OK;
}

/* Rule 1 of docs/design.md: the selector -> device mapping is logged at open. */
static void log_devices(sp_sched *s) {
  for (unsigned i = 0; i < s->ndev; i++) {
    const sp_device_rt *d = &s->devs[i];
    if (d->cfg.type == SP_DEVICE_CUDA)
      SLOG(s, SEALPROV_LOG_INFO,
           "device %u [%s] cuda: device = %s%s -> ordinal %d '%s' uuid %s pci %s; %u worker(s) "
           "bound, confirmed ordinal %d; %u host thread(s) per task",
           i, d->cfg.section,
           d->cfg.selector_kind == SP_SELECT_UUID  ? "uuid="
           : d->cfg.selector_kind == SP_SELECT_PCI ? "pci="
                                                   : "",
           d->cfg.selector, d->cfg.ordinal, d->cfg.name, d->cfg.uuid, d->cfg.pci_bus_id,
           d->nworkers, d->confirmed_ordinal, d->cpu_threads);
    else
      SLOG(s, SEALPROV_LOG_INFO,
           "device %u [%s] %s '%s': %u worker(s) bound; %u host thread(s) per task", i,
           d->cfg.section, d->eng->name ? d->eng->name : "cpu", d->cfg.name, d->nworkers,
           d->cpu_threads);
  }
}

int sp_sched_create(const sp_config *cfg, const sp_engine_ops *const *engines,
                    const sp_sched_hooks *hooks, sp_sched **out, char *err, size_t errlen) {
  if (out != NULL) *out = NULL;
  int st = check_create_args(cfg, engines, out, err, errlen);
  if (st != SEALPROV_OK) return st;
  sp_sched *s = NULL;
  st = sched_new(cfg, engines, hooks, &s, err, errlen);
  if (st != SEALPROV_OK) return st;
  st = open_devices(s, err, errlen);
  if (st != SEALPROV_OK) {
    free_sched(s);
    return st;
  }
  int rc = sp_thread_start(&s->notifier, notifier_main, s, "sp-notify");
  if (rc != 0) {
    close_devices(s);
    free_sched(s);
    return sched_fail(err, errlen, SEALPROV_ERR_INTERNAL, "cannot start the notifier thread: %s",
                      strerror(rc));
  }
  atomic_store(&s->notifier_started, true);

  st = sp_pool_start(&s->pool, s, s->devs, s->ndev, err, errlen);
  if (st != SEALPROV_OK) {
    stop_notifier(s);
    close_devices(s);
    free_sched(s);
    return st;
  }
  log_devices(s);
  *out = s;
  return SEALPROV_OK;
}

void sp_sched_shutdown(sp_sched *s) {
  if (s == NULL) return;
  pthread_mutex_lock(&s->mu);
  if (s->shut_down) {
    pthread_mutex_unlock(&s->mu);
    return;
  }
  s->closing = true;
  size_t dropped = s->queued;
  while (s->qhead != NULL) {
    sp_task_rec *t = s->qhead;
    sched_queue_remove(s, t);
    sched_end_task(s, t, SEALPROV_ERR_SHUTDOWN,
                   "partition %" PRIu32 " of job %" PRIu64 ": not started: the provider is closing",
                   t->partition, t->job->id);
  }
  s->stopping = true;
  pthread_cond_broadcast(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  if (dropped)
    SLOG(s, SEALPROV_LOG_INFO, "close: %zu queued partition(s) failed with SHUTDOWN", dropped);

  /* Running tasks finish (their outcome stands; failures are not retried). */
  sp_pool_join(&s->pool);
  /* Every job has ended by now; the notifier drains its queue before it leaves. */
  stop_notifier(s);

  pthread_mutex_lock(&s->mu);
  while (s->wait_calls > 0) pthread_cond_wait(&s->job_cv, &s->mu);
  s->shut_down = true;
  pthread_mutex_unlock(&s->mu);
}

void sp_sched_destroy(sp_sched *s) {
  if (s == NULL) return;
  sp_sched_shutdown(s);
  pthread_mutex_lock(&s->mu);
  sp_job *j = s->jobs;
  s->jobs = NULL;
  pthread_mutex_unlock(&s->mu);
  while (j != NULL) {
    sp_job *next = j->next;
    if (!j->notified)
      sp_log(SEALPROV_LOG_ERROR, "internal: job %" PRIu64 " had not ended at close", j->id);
    sched_job_free(j);
    j = next;
  }
  close_devices(s);
  free_sched(s);
}

/* Every opened device whose engine keeps copies drops its copy of srs or of cs, under
 * that device's lock (no task of it runs meanwhile). */
static void evict_copies(sp_sched *s, const sp_srs *srs, const struct sp_cs *cs) {
  for (unsigned i = 0; s != NULL && i < s->ndev; i++) {
    sp_device_rt *d = &s->devs[i];
    if (!d->opened) continue;
    void (*srs_ev)(void *, const struct sp_srs *) = srs ? d->eng->srs_evict : NULL;
    void (*cs_ev)(void *, const struct sp_cs *) = cs ? d->eng->cs_evict : NULL;
    if (srs_ev == NULL && cs_ev == NULL) continue;
    pthread_mutex_lock(&d->lock);
    if (srs_ev) srs_ev(d->handle, srs);
    if (cs_ev) cs_ev(d->handle, cs);
    pthread_mutex_unlock(&d->lock);
  }
}

void sp_sched_cs_evict(sp_sched *s, const struct sp_cs *cs) {
  if (cs != NULL) evict_copies(s, NULL, cs);
}

sp_hostmem *sp_sched_hostmem(sp_sched *s) { return s->hostmem; }
sp_params_stats *sp_sched_params_stats(sp_sched *s) { return &s->params_stats; }

void sp_sched_srs_evict(sp_sched *s, const sp_srs *srs) {
  if (srs != NULL) evict_copies(s, srs, NULL);
}
