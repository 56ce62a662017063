/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* sp_sched.h -- devices, their worker threads, and jobs split into partition tasks.
 *
 * (Not "sched.h": with -I plugin that name would shadow the system <sched.h> that
 * <pthread.h> includes.)
 *
 * A scheduler owns everything a provider runs: one runtime record per configured
 * device (engine handle, device lock, counters), the worker threads (pool.c), one
 * priority queue of partition tasks, the job table, a notifier thread that runs the
 * host's callbacks, and the timeline. module.c builds one per open(); the pool tests
 * build one directly from an in-memory sp_config and their own engine table and
 * hooks, so nothing here reaches for the INI parser, the .params reader or the
 * Groth16 code by name.
 *
 * Rules it enforces (docs/design.md "Lessons"):
 *  - a worker binds to its device (engine worker_bind) before anything else and
 *    never changes device; create returns only when every worker is bound;
 *  - one lock per device, held only around the engine's execute (device work);
 *  - a job with a device_mask (ABI 1.2) runs only on the devices it allows;
 *  - a device failure (DEVICE, DEVICE_MEMORY) requeues the task for an allowed device
 *    that has not failed it yet, counts against the device, and quarantines the device
 *    after quarantine_after failures; when the job allows no healthy device any more,
 *    the failed partition ends with its device error and the job's queued ones with
 *    NO_DEVICE;
 *  - a failed self-check requeues the task too but charges nobody yet: the device is
 *    charged only when the same partition then verifies (elsewhere, or on the same
 *    device when it is the only one); a partition whose proof fails on two devices
 *    (or twice on the only one) is the input's fault: it ends with ASSIGNMENT and no
 *    device is charged, so one bad job can never quarantine a device;
 *  - every submitted job ends with a status and its callbacks fire exactly once.
 */
#ifndef SEALPROV_SCHED_H
#define SEALPROV_SCHED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"
#include "base/util.h" /* sp_now: the timeline's clock */
#include "runtime/device_table.h"
#include "engine/engine.h"
#include "formats/srs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_sched sp_sched;

/* The self-check: does proof verify for this partition's public inputs? Same shape
 * as sp_groth16_verify (groth16.h), which module.c installs; tests install their
 * own. *valid must be written; a status other than OK, or *valid == false, both
 * count as a failed self-check (a device that emits undecodable bytes is as broken
 * as one that emits a wrong proof). Called from worker threads, concurrently. */
typedef int (*sp_proof_verify_fn)(const sp_srs *srs, const sealprov_assignment *asg,
                                  uint32_t scalar_encoding, const uint8_t proof[192], bool *valid,
                                  char *err, size_t errlen);

/* Per-partition size checks of a submitted assignment against the parameters
 * (sp_groth16_check_assignment in module.c). Called on the submitting thread. */
typedef int (*sp_assignment_check_fn)(const sp_srs *srs, const sealprov_assignment *asg, char *err,
                                      size_t errlen);

struct sp_cs;
/* Per-partition checks of a witness-only partition (job->cs) against the constraint
 * system and the parameters (sp_cs_check_partition in module.c). */
typedef int (*sp_cs_check_fn)(const sp_srs *srs, const struct sp_cs *cs,
                              const sealprov_assignment *asg, char *err, size_t errlen);

/* What the scheduler needs from the rest of the module. Every member may be NULL:
 * no verify_proof -> no self-check (even if cfg->verify_proofs); no check_assignment
 * -> only the structural checks of submit; no retain/release -> the scheduler does
 * not reference-count parameter sets. */
typedef struct sp_sched_hooks {
  sp_proof_verify_fn verify_proof;
  sp_assignment_check_fn check_assignment;
  void (*srs_retain)(sp_srs *srs);
  void (*srs_release)(sp_srs *srs); /* called on the notifier thread when a job ends */
  /* Witness-only jobs (job->cs). No check_cs: such jobs are refused (UNSUPPORTED). */
  sp_cs_check_fn check_cs;
  void (*cs_retain)(struct sp_cs *cs);
  void (*cs_release)(struct sp_cs *cs); /* on the notifier thread, when a job ends */
} sp_sched_hooks;

/* Opens every device of cfg with engines[i] (one engine per cfg->devices[i]), starts
 * cfg->devices[i].workers threads per device and waits until each has bound. On
 * failure every started thread is joined, every opened device closed, and err names
 * the device, worker and reason. cfg and hooks are copied. cfg limits read as:
 * max_jobs / max_partitions 0 = unlimited, quarantine_after 0 = never,
 * max_attempts 0 = 1, timeline_events 0 = no timeline.
 * Statuses: OK, INVALID_ARGUMENT, NO_DEVICE (zero devices), DEVICE (open or bind
 * failed, or a CUDA worker confirmed another ordinal), NO_MEMORY, INTERNAL. */
int sp_sched_create(const sp_config *cfg, const sp_engine_ops *const *engines,
                    const sp_sched_hooks *hooks, sp_sched **out, char *err, size_t errlen);

/* Stops intake (submit -> SHUTDOWN), fails queued tasks with SHUTDOWN, lets running
 * tasks finish, runs every pending callback, joins every thread and waits for wait()
 * calls already blocked to return. Afterwards s still answers every call (submit with
 * SHUTDOWN; wait, devices, stats, timeline, evictions as before) until destroy: a
 * provider's close shuts down first, waits for the calls still inside, then destroys.
 * One thread calls it (the provider's closer); a later call returns at once. NULL is
 * ignored. */
void sp_sched_shutdown(sp_sched *s);
/* Shuts down (if not yet done), closes the devices and frees everything. Jobs not
 * waited on are freed. NULL is ignored. Not thread-safe with any other call on s. */
void sp_sched_destroy(sp_sched *s);

/* Validates and queues a job (see sealprov_vtable.submit). Thread-safe. */
int sp_sched_submit(sp_sched *s, const sealprov_job *job, sealprov_job_id *id, char *err,
                    size_t errlen);
/* Waits for a job to end (timeout_ms < 0: forever). Returns the job's status (OK, or
 * the first failing partition's status with its detail in err, CANCELLED, SHUTDOWN,
 * NO_DEVICE...), TIMEOUT (the job goes on), NOT_FOUND (unknown, detached or already
 * waited on), INVALID_ARGUMENT (called from a completion callback). Thread-safe. */
int sp_sched_wait(sp_sched *s, sealprov_job_id id, int64_t timeout_ms, char *err, size_t errlen);
/* Cancels the job's queued partitions; running ones finish; the job ends CANCELLED
 * unless every partition still produced a proof. OK, NOT_FOUND. Thread-safe. */
int sp_sched_cancel(sp_sched *s, sealprov_job_id id, char *err, size_t errlen);

/* Device table, Prometheus counters and timeline; buffer conventions as in
 * sealprov.h. devices() writes entries of out[0].struct_size bytes when the host
 * set a smaller non-zero size there (an older host), else sizeof(sealprov_device_info).
 * Thread-safe; the engines' memory_in_use() is called without the device lock. */
int sp_sched_devices(sp_sched *s, sealprov_device_info *out, size_t cap, size_t *count);
int sp_sched_stats(sp_sched *s, char *buf, size_t cap, size_t *len);
int sp_sched_timeline(sp_sched *s, char *buf, size_t cap, size_t *len);

/* true on the thread that runs s's host callbacks (close() and wait() from there
 * would wait for that thread itself). */
bool sp_sched_on_callback_thread(const sp_sched *s);

/* The provider's host-memory accountant (hostmem.h): its cap, counters and staging
 * pool, shared by its engine devices (benchmarks read its peaks). */
struct sp_hostmem;
struct sp_hostmem *sp_sched_hostmem(sp_sched *s);
/* The counters of the provider's .params loads (params.h), which stats() shows. */
struct sp_params_stats;
struct sp_params_stats *sp_sched_params_stats(sp_sched *s);

/* Can this provider prove partitions of this shape (of `file`)? OK when some device
 * has the memory for them (the others are named in a WARN line: the scheduler never
 * gives them such a partition); DEVICE_MEMORY when none does, with a message (after
 * "what: ") that gives each device's need and what it may use, and the smallest
 * memory_limit that works. Thread-safe. */
int sp_sched_check_capacity(sp_sched *s, const sp_partition_shape *shape, const char *what,
                            const char *file, char *err, size_t errlen);

/* Tells every device's engine to drop its copy of srs (engine srs_evict, under the
 * device lock so no kernel of that device is running). Thread-safe. */
void sp_sched_srs_evict(sp_sched *s, const sp_srs *srs);
/* The same for a constraint system (engine cs_evict): its device copies go. */
struct sp_cs;
void sp_sched_cs_evict(sp_sched *s, const struct sp_cs *cs);

/* ==================================================================================
 * Internals shared by sched.c and pool.c. Nothing else touches these.
 * ================================================================================== */

typedef struct sp_job sp_job;
typedef struct sp_device_rt sp_device_rt;

/* A callback the notifier thread must run: inputs released for one partition
 * (partition >= 0) or the job's completion (partition < 0). Embedded in the task or
 * job it belongs to, so queueing a notice never allocates. */
typedef struct sp_notice {
  struct sp_notice *next;
  sp_job *job;
  int64_t partition;
} sp_notice;

typedef struct sp_task_rec {
  sp_job *job;
  uint32_t partition;
  struct sp_task_rec *prev, *next; /* queue links while queued */
  bool queued, running, ended;
  uint32_t attempts;       /* attempts started */
  uint64_t failed_devices; /* bit i: device i failed this task */
  /* Failed self-checks are not charged at once: bit i marks device i as a suspect of
   * this task. A later attempt that verifies charges every suspect; a second failed
   * self-check (on another device, or twice on the only one) makes it the input's
   * fault (ASSIGNMENT) and no suspect is charged. */
  uint64_t suspect_devices;
  char suspect_err[256]; /* the first failed self-check's message */
  int status;            /* final status once ended */
  int device;            /* device of the last attempt, -1 none */
  unsigned worker;       /* worker of the last attempt */
  double t_start;        /* start of the last attempt (sp_now) */
  double t_end;
  fr_t r, s;
  sp_notice released; /* the inputs-released notice */
  char err[320];
} sp_task_rec;

typedef struct sp_worker {
  sp_sched *sched;
  struct sp_pool *pool;
  sp_device_rt *dev;
  unsigned index;       /* across the provider, in device order */
  unsigned local;       /* within its device */
  sp_task_rec *current; /* the task it runs now, NULL between tasks (under sched->mu) */
  pthread_t thread;
  bool started;    /* pthread_create succeeded: must be joined */
  int bind_status; /* -1 while binding, then a sealprov_status */
  int confirmed_ordinal;
  char bind_err[256];
} sp_worker;

struct sp_device_rt {
  unsigned index;
  sp_device_cfg cfg;
  const sp_engine_ops *eng;
  void *handle; /* engine device handle (device_open) */
  bool opened;
  pthread_mutex_t lock; /* THE device lock: held exactly around engine execute */
  sp_worker *workers;   /* into sched->workers */
  unsigned nworkers;
  unsigned cpu_threads; /* host threads per task handed to the engine */
  /* Under sched->mu: */
  bool quarantined;
  atomic_uint executing; /* workers inside execute now (state BUSY); atomic because
                              it changes under the device lock, not sched->mu */
  uint64_t tasks_done;
  uint64_t failures;
  double busy_s, lock_wait_s;
  int confirmed_ordinal;
  char last_error[256];
  /* Its speed: seconds an execute of a partition of 2^k takes on it (the device's own
   * one-time setup left out), an exponentially weighted average of what it measured;
   * 0 = never measured at that size (placement.c). */
  double speed_s[SP_CAPACITY_MAX_LOG + 1];
};

/* The worker threads of one scheduler (pool.c). */
typedef struct sp_pool {
  sp_worker *workers;
  unsigned nworkers;
  pthread_mutex_t mu; /* guards binding and the workers' bind results */
  pthread_cond_t cv;
  unsigned binding; /* workers that have not reported their bind yet */
} sp_pool;

/* Starts devs[i].cfg.workers threads per device (named "sp-<section>-<n>", all
 * signals blocked), each binding first; returns when every worker has reported.
 * Checks that the workers of a device agree on the confirmed ordinal and, for CUDA
 * devices, that it is the ordinal the selector resolved to. On failure stops and
 * joins what it started. Statuses: OK, DEVICE, NO_MEMORY, INTERNAL. */
int sp_pool_start(sp_pool *pool, sp_sched *s, sp_device_rt *devs, unsigned ndev, char *err,
                  size_t errlen);
/* Joins every started worker (call sp_sched_stop_workers first) and frees them. */
void sp_pool_join(sp_pool *pool);

/* pool.c -> sched.c: the next task for worker w; fills *out for the engine. Returns
 * NULL when the pool stops. Blocks while there is nothing w's device may run. */
sp_task_rec *sp_sched_take(sp_sched *s, sp_worker *w, sp_task *out);

/* Outcome of one attempt (timings in seconds). */
typedef struct sp_attempt {
  int status;             /* engine status of prepare/execute, or the verifier's */
  bool self_check_failed; /* status/err describe the failed self-check */
  double prepare_s, lock_wait_s, execute_s, verify_s;
  double setup_s; /* of execute_s, the engine's one-time setup (sp_engine_ops.setup_seconds) */
  uint8_t proof[192];
  char err[256];
} sp_attempt;
void sp_sched_finish(sp_sched *s, sp_worker *w, sp_task_rec *t, const sp_attempt *a);

/* Timeline events, in the order one attempt produces them. */
enum sp_tl_event {
  SP_TL_QUEUED = 0,
  SP_TL_START,
  SP_TL_PREPARE,
  SP_TL_LOCK_WAIT,
  SP_TL_EXECUTE,
  SP_TL_VERIFY,
  SP_TL_DONE,
  SP_TL_FAILED,
  SP_TL_REQUEUED,
  SP_TL_BOUND, /* a worker bound to its device at open (job 0; duration: the bind) */
  SP_TL_EVENT_COUNT_
};
/* bound and execute events also record the ordinal the worker confirmed at bind
 * (they are added by that worker itself, after its bind). */
void sp_sched_timeline_add(sp_sched *s, enum sp_tl_event ev, uint64_t job, uint32_t partition,
                           int device, int worker, double duration_s, int status);

/* Self-check hook, or NULL when proofs are not to be verified. */
sp_proof_verify_fn sp_sched_verifier(const sp_sched *s);
/* Makes every sp_sched_take return NULL (pool start failure, close). */
void sp_sched_stop_workers(sp_sched *s);

#ifdef __cplusplus
}
#endif
#endif
