/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* sched_internal.h -- what the scheduler's files share and nothing else sees: the
 * scheduler and job records, and the helpers they call in each other.
 *   sched.c    create, shutdown, destroy; the notifier thread that runs host callbacks;
 *              evictions
 *   queue.c    the queue and the fault policy: which worker takes which task, how an
 *              attempt ends (retry, charge, quarantine, ASSIGNMENT, NO_DEVICE)
 *   jobs.c     the host's calls on jobs: submit, wait, cancel
 *   reports.c  the timeline, devices() and stats()
 *   placement.c  which devices may take a job's partitions (their memory) and which one
 *              should take the next (their speed)
 * Locking is sp_sched.h's and sched.c's comment's. */
#ifndef SEALPROV_RUNTIME_SCHED_INTERNAL_H
#define SEALPROV_RUNTIME_SCHED_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/log.h"
#include "engine/hostmem.h"
#include "runtime/params.h"
#include "runtime/sp_sched.h"

struct sp_job {
  sealprov_job_id id;
  sealprov_job desc; /* the host's description, zero-extended to our size */
  sp_srs *srs;
  struct sp_cs *cs;   /* witness-only job: its constraint system (referenced) */
  uint64_t allowed;   /* devices it may run on: bit i = device i (device_mask, or all) */
  sp_task_rec *tasks; /* desc.num_partitions entries */
  uint32_t remaining; /* partitions not ended */
  uint64_t seq;       /* submission order: FIFO among equal priorities */
  bool cancelled;
  bool ended;    /* every partition ended; status final */
  bool notified; /* its callbacks have returned: wait() may return */
  bool reaped;   /* a wait() took it */
  unsigned waiters;
  int status;
  double t_submit;
  sp_job *prev, *next; /* s->jobs */
  sp_notice completion;
  char err[512];
};

typedef struct tl_entry {
  double t, duration;
  uint64_t job;
  uint32_t partition;
  int16_t device, worker;
  int16_t ordinal; /* bound/execute: what the worker confirmed (-1 for CPU devices) */
  uint8_t event;
  uint8_t status;
} tl_entry;

struct sp_sched {
  sp_config cfg;
  sp_sched_hooks hooks;
  double t0;
  sp_device_rt *devs;
  unsigned ndev;
  sp_pool pool;

  pthread_mutex_t mu;
  pthread_cond_t work_cv;   /* workers: tasks queued, device state changed, stop */
  pthread_cond_t job_cv;    /* wait(): a job was notified (CLOCK_MONOTONIC) */
  pthread_cond_t notify_cv; /* notifier: notices queued, stop */
  bool closing;             /* no new jobs */
  bool shut_down;           /* sp_sched_shutdown has finished */
  bool stopping;            /* workers leave */
  bool notify_stop;
  sp_task_rec *qhead, *qtail;
  size_t queued;
  sp_job *jobs;
  size_t active_jobs; /* submitted, not ended */
  uint64_t next_id, next_seq;
  unsigned wait_calls; /* threads inside sp_sched_wait */
  sp_notice *nhead, *ntail;
  pthread_t notifier;
  /* Atomic: a host thread inside wait() asks whether it is the notifier while close
   * stops the notifier (tests/abi/test_providers's close-races-calls). */
  atomic_bool notifier_started;
  uint64_t jobs_submitted, jobs_ok, jobs_failed, requeues;
  unsigned deferring; /* workers waiting after leaving a task to a faster device */

  pthread_mutex_t tl_mu;
  tl_entry *tl;
  size_t tl_cap, tl_head, tl_count;

  /* The provider's host-memory accountant and staging pool (hostmem.h): its own cap and
   * counters, handed to every engine device through sp_device_cfg.hostmem. */
  sp_hostmem *hostmem;

  /* What the provider's .params loads did (params.h; stats()). */
  sp_params_stats params_stats;
};

/* Logs only what both the host's level and this provider's INI log_level allow. */
#define SLOG(s, level, ...)                                          \
  do {                                                               \
    if ((level) <= (s)->cfg.log_level) sp_log((level), __VA_ARGS__); \
  } while (0)

/* An error message into err (may be NULL) and status back. */
int sched_fail(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The device's name in messages: its INI section. */
const char *sched_dev_name(const sp_device_rt *d);

/* ---- placement.c ---- */
/* The devices that have the memory for partitions of shape (no lock needed: engines
 * answer from what they were opened with). */
uint64_t sched_fit_mask(const sp_sched *s, const sp_partition_shape *shape);
/* DEVICE_MEMORY, with "what: no device ... " naming each device of mask, its need and
 * what it may use, and the smallest memory_limit that works. */
int sched_capacity_refusal(const sp_sched *s, const sp_partition_shape *shape, uint64_t mask,
                           const char *what, const char *file, char *err, size_t errlen);
/* Under s->mu: the first queued task d should take now, or NULL; *deferred when d left
 * a task it may run to a device that would finish it sooner. */
sp_task_rec *sched_pick(sp_sched *s, const sp_device_rt *d, bool *deferred);
/* Under s->mu: d took `seconds` for an execute of a partition of 2^k. */
void sched_speed_sample(sp_device_rt *d, unsigned k, double seconds);

/* ---- queue.c (everything under s->mu) ---- */
/* May device d run t (the job allows it, and a retry goes elsewhere first)? */
bool sched_eligible(const sp_sched *s, const sp_task_rec *t, const sp_device_rt *d);
void sched_queue_insert(sp_sched *s, sp_task_rec *t);
void sched_queue_remove(sp_sched *s, sp_task_rec *t);
unsigned sched_healthy_devices(const sp_sched *s);
/* Devices of mask that are not quarantined. */
unsigned sched_healthy_in(const sp_sched *s, uint64_t mask);
/* Every device of the provider, as a mask (the set of a job with device_mask 0). */
uint64_t sched_all_devices(const sp_sched *s);
/* "device 1 (cpu1), device 2 (cpu2)" for the devices of mask. */
void sched_device_list(const sp_sched *s, uint64_t mask, char *out, size_t len);
/* Why a job restricted to some devices (j->allowed) cannot run (with each device's last
 * error: with_last). */
void sched_stranded_detail(const sp_sched *s, const sp_job *j, bool with_last, char *out,
                           size_t len);
/* Message for NO_DEVICE: which devices there were and why each was quarantined. */
void sched_no_device_detail(const sp_sched *s, char *out, size_t len);
void sched_notice_push(sp_sched *s, sp_notice *n);
void sched_job_unlink(sp_sched *s, sp_job *j);
void sched_job_free(sp_job *j);
/* Ends one partition for good; the proof, if any, is already in proofs_out. */
void sched_end_task(sp_sched *s, sp_task_rec *t, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
