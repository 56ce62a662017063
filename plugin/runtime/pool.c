/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* pool.c -- the worker threads: start, bind, run attempts, stop.
 *
 * Each worker belongs to one device for its whole life. Its first act is the
 * engine's worker_bind (for CUDA: cudaSetDevice, then cudaGetDevice to confirm);
 * only after every worker has reported does open() return. Nothing here, or
 * anywhere in the module, sets CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER: the
 * runtime reads them once per process, and changing them from a worker is exactly
 * the bug that put every worker of the field's prover on GPU 0 (docs/design.md).
 *
 * Before it binds, a worker places itself (topo.h): on a host with several NUMA nodes
 * it binds its thread to the CPUs of its device's node (a GPU's node from sysfs, or
 * the section's numa_node) that the thread calling open() may use, unless [provider]
 * numa = off. Every thread a worker starts for host work (bls_parallel_for, the
 * engines' copy threads) inherits that mask, and memory that a bound thread touches
 * first (the CUDA engine's page-locked staging, prepare's buffers) comes from that
 * node under the kernel's default policy. With threads = 0 a bound device's tasks get
 * its node's CPUs shared among the workers bound there (size_threads_by_node).
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/thread.h"
#include "runtime/sp_sched.h"
#include "runtime/topo.h"

static void terminate(char *s, size_t cap) { s[cap - 1] = '\0'; }

/* One attempt of one partition on w's device. */
static void run_attempt(sp_sched *s, sp_worker *w, const sp_task *task, sp_attempt *a) {
  sp_device_rt *d = w->dev;
  const sp_engine_ops *eng = d->eng;
  int dev = (int)d->index, wk = (int)w->index;
  memset(a, 0, sizeof *a);
  void *prep = NULL;
  int st = SEALPROV_OK;

  if (eng->prepare != NULL) {
    double t0 = sp_now();
    st = eng->prepare(d->handle, task, &prep, a->err, sizeof a->err);
    terminate(a->err, sizeof a->err);
    a->prepare_s = sp_now() - t0;
    sp_sched_timeline_add(s, SP_TL_PREPARE, task->job_id, task->partition, dev, wk, a->prepare_s,
                          st);
  }
  if (st == SEALPROV_OK) {
    /* The device lock covers device work only: prepare above and verify below run
     * unlocked, so the device's other worker can use it meanwhile. */
    double l0 = sp_now();
    pthread_mutex_lock(&d->lock);
    double l1 = sp_now();
    a->lock_wait_s = l1 - l0;
    /* Recorded now, not after execute: a line's t is when its interval ended. */
    sp_sched_timeline_add(s, SP_TL_LOCK_WAIT, task->job_id, task->partition, dev, wk,
                          a->lock_wait_s, SEALPROV_OK);
    atomic_fetch_add(&d->executing, 1);
    st = eng->execute(d->handle, task, prep, a->proof, a->err, sizeof a->err);
    /* the engine's one-time work in it, which the device's speed leaves out */
    if (st == SEALPROV_OK && eng->setup_seconds != NULL) a->setup_s = eng->setup_seconds(d->handle);
    atomic_fetch_sub(&d->executing, 1);
    double l2 = sp_now();
    pthread_mutex_unlock(&d->lock);
    terminate(a->err, sizeof a->err);
    a->execute_s = l2 - l1;
    sp_sched_timeline_add(s, SP_TL_EXECUTE, task->job_id, task->partition, dev, wk, a->execute_s,
                          st);
  }
  /* Whatever prepare made goes, also when prepare itself failed half-way. */
  if (prep != NULL && eng->release != NULL) eng->release(d->handle, prep);

  sp_proof_verify_fn verify = sp_sched_verifier(s);
  if (st == SEALPROV_OK && verify != NULL) {
    bool valid = false;
    char msg[200] = "";
    double v0 = sp_now();
    int vst =
        verify(task->srs, task->asg, task->scalar_encoding, a->proof, &valid, msg, sizeof msg);
    terminate(msg, sizeof msg);
    a->verify_s = sp_now() - v0;
    if (vst != SEALPROV_OK || !valid) {
      a->self_check_failed = true;
      st = SEALPROV_ERR_VERIFY_FAILED;
      if (vst != SEALPROV_OK)
        snprintf(a->err, sizeof a->err, "self-check failed: the proof does not decode (%s: %s)",
                 sp_status_name(vst), msg);
      else
        snprintf(a->err, sizeof a->err, "self-check failed: the proof does not verify");
    }
    sp_sched_timeline_add(s, SP_TL_VERIFY, task->job_id, task->partition, dev, wk, a->verify_s, st);
  }
  a->status = st;
}

/* Binds the calling worker thread to its device's NUMA node (see the top of this
 * file). Never fails: without a placement the worker runs where it was started. The
 * device's first worker records the outcome for devices() and logs it. */
static void place_worker(sp_worker *w) {
  sp_device_rt *d = w->dev;
  const char *root = sp_topo_root(NULL);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sp_topo_dev t;
  bool warn = false;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    /* more CPUs than cpu_set_t holds: leave the thread as it is */
    memset(&t, 0, sizeof t);
    t.numa_node = -1;
    warn = true;
    snprintf(t.note, sizeof t.note, "cannot read this thread's CPU affinity (%s): not bound",
             strerror(errno));
  } else {
    int ini_node = d->cfg.numa_node_set ? (int)d->cfg.numa_node : -1;
    sp_topo_place(root, !d->cfg.numa_off, ini_node,
                  d->cfg.type == SP_DEVICE_CUDA ? d->cfg.pci_bus_id : "", &allowed, &t, &warn);
  }
  unsigned bound = 0;
  if (t.bind) {
    int rc = pthread_setaffinity_np(pthread_self(), sizeof t.cpus, &t.cpus);
    if (rc == 0) {
      bound = t.ncpus;
    } else {
      warn = true;
      snprintf(t.note, sizeof t.note,
               "NUMA node %d: pthread_setaffinity_np failed (%s): not "
               "bound",
               t.numa_node, strerror(rc));
    }
  }
  if (w->local != 0) {
    if (warn) /* the first worker's outcome is logged once; another's failure is news */
      sp_log(SEALPROV_LOG_WARN, "device %u [%s] worker %u: %s", d->index, d->cfg.section, w->local,
             t.note);
    return;
  }
  d->cfg.topo_numa_node = t.numa_node;
  d->cfg.pcie_gen = t.link.cur_gen;
  d->cfg.pcie_width = t.link.cur_width;
  d->cfg.pcie_max_gen = t.link.max_gen;
  d->cfg.pcie_max_width = t.link.max_width;
  d->cfg.bound_cpus = bound;
  sp_log(warn    ? SEALPROV_LOG_WARN
         : bound ? SEALPROV_LOG_INFO
                 : SEALPROV_LOG_DEBUG,
         "device %u [%s]: %s", d->index, d->cfg.section, t.note);
}

/* Host threads per task when the INI leaves threads = 0 (sched.c: the machine's CPUs
 * shared equally among all workers). A device whose workers will be bound to a node
 * shares that node's usable CPUs with the other workers bound there instead, so that
 * GPUs spread unevenly over the nodes do not oversubscribe one node and leave the
 * other idle. Runs on the thread calling open(), before any worker starts: the
 * workers inherit its affinity, so they will find the same placement. */
static void size_threads_by_node(sp_device_rt *devs, unsigned ndev) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  const char *root = sp_topo_root(NULL);
  sp_topo_dev *t = calloc(ndev, sizeof *t);
  if (t == NULL) return; /* the equal share stays */
  for (unsigned i = 0; i < ndev; i++) {
    const sp_device_cfg *c = &devs[i].cfg;
    bool warn;
    sp_topo_place(root, !c->numa_off, c->numa_node_set ? (int)c->numa_node : -1,
                  c->type == SP_DEVICE_CUDA ? c->pci_bus_id : "", &allowed, &t[i], &warn);
  }
  for (unsigned i = 0; i < ndev; i++) {
    if (!t[i].bind || devs[i].cfg.threads != 0) continue;
    unsigned sharing = 0;
    for (unsigned j = 0; j < ndev; j++)
      if (t[j].bind && t[j].numa_node == t[i].numa_node) sharing += devs[j].cfg.workers;
    unsigned n = sharing ? t[i].ncpus / sharing : 1;
    devs[i].cpu_threads = n ? n : 1;
  }
  free(t);
}

static void *worker_main(void *arg) {
  sp_worker *w = arg;
  sp_device_rt *d = w->dev;
  sp_pool *pool = w->pool;

  /* Placement (no CUDA call, nothing of the engine) comes before the engine's bind, so
   * whatever the bind allocates on the host is already on the device's node. */
  place_worker(w);

  /* First thing on this thread: bind to the device. */
  char msg[256] = "";
  int confirmed = -1;
  double b0 = sp_now();
  int st = d->eng->worker_bind(d->handle, w->local, &confirmed, msg, sizeof msg);
  double bind_s = sp_now() - b0;
  terminate(msg, sizeof msg);
  pthread_mutex_lock(&pool->mu);
  w->bind_status = st;
  w->confirmed_ordinal = confirmed;
  snprintf(w->bind_err, sizeof w->bind_err, "%s", msg);
  /* Recorded before reporting in, so that open() returns with every bind on record. */
  if (st == SEALPROV_OK)
    sp_sched_timeline_add(w->sched, SP_TL_BOUND, 0, 0, (int)d->index, (int)w->index, bind_s, st);
  pool->binding--;
  pthread_cond_broadcast(&pool->cv);
  pthread_mutex_unlock(&pool->mu);
  if (st != SEALPROV_OK) return NULL;

  sp_task task;
  sp_task_rec *t;
  while ((t = sp_sched_take(w->sched, w, &task)) != NULL) {
    sp_attempt a;
    run_attempt(w->sched, w, &task, &a);
    explicit_bzero(&task.r, sizeof task.r);
    explicit_bzero(&task.s, sizeof task.s);
    sp_sched_finish(w->sched, w, t, &a);
  }
  if (d->eng->worker_unbind != NULL) d->eng->worker_unbind(d->handle, w->local);
  return NULL;
}

void sp_pool_join(sp_pool *pool) {
  if (pool->workers == NULL) return;
  for (unsigned i = 0; i < pool->nworkers; i++)
    if (pool->workers[i].started) pthread_join(pool->workers[i].thread, NULL);
  free(pool->workers);
  pool->workers = NULL;
  pthread_mutex_destroy(&pool->mu);
  pthread_cond_destroy(&pool->cv);
}

static int fail_start(sp_pool *pool, sp_sched *s, int st) {
  sp_sched_stop_workers(s);
  sp_pool_join(pool);
  return st;
}

/* Starts worker j of device i as pool->workers[k]; it reports in once bound. */
static int start_worker(sp_pool *pool, sp_sched *s, sp_device_rt *d, unsigned i, unsigned j,
                        unsigned k, char *err, size_t errlen) {
  sp_worker *w = &pool->workers[k];
  w->sched = s;
  w->pool = pool;
  w->dev = d;
  w->index = k;
  w->local = j;
  w->bind_status = -1;
  w->confirmed_ordinal = -1;
  pthread_mutex_lock(&pool->mu);
  pool->binding++;
  pthread_mutex_unlock(&pool->mu);
  char name[96]; /* sp_thread_start keeps the first 15 characters */
  snprintf(name, sizeof name, "sp-%.8s-%u", d->cfg.section, j);
  int rc = sp_thread_start(&w->thread, worker_main, w, name);
  if (rc != 0) {
    pthread_mutex_lock(&pool->mu);
    pool->binding--;
    pthread_mutex_unlock(&pool->mu);
    snprintf(err, errlen, "device %u (%s): cannot start worker %u: %s", i, d->cfg.section, j,
             strerror(rc));
    return SEALPROV_ERR_INTERNAL;
  }
  w->started = true;
  return SEALPROV_OK;
}

/* Every device's workers started, in device order, until one cannot be; then waits
 * until every started worker has reported its bind. */
static int start_workers(sp_pool *pool, sp_sched *s, sp_device_rt *devs, unsigned ndev, char *err,
                         size_t errlen) {
  int st = SEALPROV_OK;
  unsigned k = 0;
  for (unsigned i = 0; i < ndev && st == SEALPROV_OK; i++) {
    sp_device_rt *d = &devs[i];
    d->workers = &pool->workers[k];
    d->nworkers = d->cfg.workers;
    for (unsigned j = 0; j < d->cfg.workers && st == SEALPROV_OK; j++, k++)
      st = start_worker(pool, s, d, i, j, k, err, errlen);
  }
  pthread_mutex_lock(&pool->mu);
  while (pool->binding > 0) pthread_cond_wait(&pool->cv, &pool->mu);
  pthread_mutex_unlock(&pool->mu);
  return st;
}

/* Every worker bound: else the first failure's status, its message in err. */
static int check_binds(const sp_pool *pool, char *err, size_t errlen) {
  for (unsigned k = 0; k < pool->nworkers; k++) {
    const sp_worker *w = &pool->workers[k];
    if (w->bind_status != SEALPROV_OK) {
      snprintf(err, errlen, "device %u (%s): worker %u failed to bind: %s", w->dev->index,
               w->dev->cfg.section, w->local, w->bind_err[0] ? w->bind_err : "no detail");
      return w->bind_status;
    }
  }
  return SEALPROV_OK;
}

/* Rule 2 of docs/design.md: every worker of a device confirmed the same ordinal, and for
 * a GPU it is the one its selector resolved to. Records each device's ordinal and what
 * the engine runs there. */
static int check_ordinals(sp_device_rt *devs, unsigned ndev, char *err, size_t errlen) {
  for (unsigned i = 0; i < ndev; i++) {
    sp_device_rt *d = &devs[i];
    int want = d->cfg.type == SP_DEVICE_CUDA ? d->cfg.ordinal : d->workers[0].confirmed_ordinal;
    for (unsigned j = 0; j < d->nworkers; j++) {
      if (d->workers[j].confirmed_ordinal != want) {
        snprintf(err, errlen,
                 "device %u (%s): worker %u confirmed ordinal %d, expected %d: a worker is bound "
                 "to the wrong device",
                 i, d->cfg.section, j, d->workers[j].confirmed_ordinal, want);
        return SEALPROV_ERR_DEVICE;
      }
    }
    d->confirmed_ordinal = want;
    /* What the engine runs there (devices(): "sm_90"); the binds found it. */
    d->cfg.code[0] = '\0';
    if (d->eng->device_code != NULL) {
      d->eng->device_code(d->handle, d->cfg.code, sizeof d->cfg.code);
      d->cfg.code[sizeof d->cfg.code - 1] = '\0';
    }
  }
  return SEALPROV_OK;
}

int sp_pool_start(sp_pool *pool, sp_sched *s, sp_device_rt *devs, unsigned ndev, char *err,
                  size_t errlen) {
  unsigned total = 0;
  for (unsigned i = 0; i < ndev; i++) total += devs[i].cfg.workers;
  memset(pool, 0, sizeof *pool);
  pool->workers = calloc(total, sizeof *pool->workers);
  if (pool->workers == NULL) {
    snprintf(err, errlen, "no memory for %u workers", total);
    return SEALPROV_ERR_NO_MEMORY;
  }
  pool->nworkers = total;
  bool root_ignored = false; /* said once here, on the thread calling open() */
  (void)sp_topo_root(&root_ignored);
  if (root_ignored)
    sp_log(SEALPROV_LOG_WARN,
           "SEALPROV_SYSFS_ROOT is not an absolute path under 512 bytes: "
           "ignored, topology read from /sys");
  size_threads_by_node(devs, ndev);
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->cv, NULL);
  int st = start_workers(pool, s, devs, ndev, err, errlen);
  if (st == SEALPROV_OK) st = check_binds(pool, err, errlen);
  if (st == SEALPROV_OK) st = check_ordinals(devs, ndev, err, errlen);
  return st == SEALPROV_OK ? SEALPROV_OK : fail_start(pool, s, st);
}
