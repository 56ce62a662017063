/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* queue.c -- the scheduler's queue and fault policy (sp_sched.h): one priority queue of
 * partition tasks, which task a worker of a device may take, and how an attempt ends:
 * a proof, a retry on another device, a charge and a quarantine, ASSIGNMENT when a
 * partition fails its self-check twice, NO_DEVICE when no healthy device is left. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/sched_internal.h"

/* ---- queue (under s->mu) ---------------------------------------------------------
 * One list ordered by (priority desc, job submission asc, partition asc). A requeued
 * task goes back to where its key puts it, ahead of younger work. Lists stay short
 * (max_partitions), so linear insertion is fine and keeps the order obvious. */

static bool task_before(const sp_task_rec *a, const sp_task_rec *b) {
  if (a->job->desc.priority != b->job->desc.priority)
    return a->job->desc.priority > b->job->desc.priority;
  if (a->job->seq != b->job->seq) return a->job->seq < b->job->seq;
  return a->partition < b->partition;
}

void sched_queue_insert(sp_sched *s, sp_task_rec *t) {
  /* Walk from the tail: fresh submissions of the lowest priority land there at once. */
  sp_task_rec *after = s->qtail;
  while (after != NULL && task_before(t, after)) after = after->prev;
  t->prev = after;
  t->next = after ? after->next : s->qhead;
  if (t->next)
    t->next->prev = t;
  else
    s->qtail = t;
  if (after)
    after->next = t;
  else
    s->qhead = t;
  t->queued = true;
  s->queued++;
}

void sched_queue_remove(sp_sched *s, sp_task_rec *t) {
  if (t->prev)
    t->prev->next = t->next;
  else
    s->qhead = t->next;
  if (t->next)
    t->next->prev = t->prev;
  else
    s->qtail = t->prev;
  t->prev = t->next = NULL;
  t->queued = false;
  s->queued--;
}

unsigned sched_healthy_devices(const sp_sched *s) {
  unsigned n = 0;
  for (unsigned i = 0; i < s->ndev; i++) n += !s->devs[i].quarantined;
  return n;
}

/* Devices of mask that are not quarantined. */
unsigned sched_healthy_in(const sp_sched *s, uint64_t mask) {
  unsigned n = 0;
  for (unsigned i = 0; i < s->ndev; i++)
    n += (mask & (UINT64_C(1) << i)) && !s->devs[i].quarantined;
  return n;
}

/* Every device of the provider, as a mask (the set of a job with device_mask 0). */
uint64_t sched_all_devices(const sp_sched *s) {
  return s->ndev >= 64 ? UINT64_MAX : (UINT64_C(1) << s->ndev) - 1;
}

/* "device 1 (cpu1), device 2 (cpu2)" for the devices of mask. */
void sched_device_list(const sp_sched *s, uint64_t mask, char *out, size_t len) {
  size_t off = 0;
  out[0] = '\0';
  for (unsigned i = 0; i < s->ndev && off < len; i++)
    if (mask & (UINT64_C(1) << i))
      off += (size_t)snprintf(out + off, len - off, "%sdevice %u (%s)", off ? ", " : "", i,
                              sched_dev_name(&s->devs[i]));
}

/* May device d run t? Not if the job does not allow d (device_mask), nor if d already
 * failed t while some other allowed healthy device has not: a retry must land on
 * ANOTHER allowed device whenever one exists. */
bool sched_eligible(const sp_sched *s, const sp_task_rec *t, const sp_device_rt *d) {
  const uint64_t allowed = t->job->allowed;
  if (!(allowed & (UINT64_C(1) << d->index))) return false;
  if (!(t->failed_devices & (UINT64_C(1) << d->index))) return true;
  for (unsigned i = 0; i < s->ndev; i++) {
    const sp_device_rt *e = &s->devs[i];
    if (e != d && (allowed & (UINT64_C(1) << i)) && !e->quarantined &&
        !(t->failed_devices & (UINT64_C(1) << i)))
      return false;
  }
  return true;
}

/* ---- notices (under s->mu) ------------------------------------------------------ */

void sched_notice_push(sp_sched *s, sp_notice *n) {
  n->next = NULL;
  if (s->ntail)
    s->ntail->next = n;
  else
    s->nhead = n;
  s->ntail = n;
  pthread_cond_signal(&s->notify_cv);
}

void sched_job_unlink(sp_sched *s, sp_job *j) {
  if (j->prev)
    j->prev->next = j->next;
  else if (s->jobs == j)
    s->jobs = j->next;
  if (j->next) j->next->prev = j->prev;
  j->prev = j->next = NULL;
}

void sched_job_free(sp_job *j) {
  if (j == NULL) return;
  if (j->tasks != NULL) {
    /* r and s are blinding secrets of the proofs: do not leave them in freed memory. */
    for (uint32_t i = 0; i < j->desc.num_partitions; i++) {
      explicit_bzero(&j->tasks[i].r, sizeof j->tasks[i].r);
      explicit_bzero(&j->tasks[i].s, sizeof j->tasks[i].s);
    }
  }
  free(j->tasks);
  free(j);
}

/* Every partition ended: settle the job's status and hand it to the notifier. */
static void job_end(sp_sched *s, sp_job *j) {
  int status = SEALPROV_OK;
  const sp_task_rec *first_bad = NULL;
  uint32_t not_run = 0;
  for (uint32_t i = 0; i < j->desc.num_partitions; i++) {
    const sp_task_rec *t = &j->tasks[i];
    if (t->status != SEALPROV_OK && first_bad == NULL) first_bad = t;
    if (t->status == SEALPROV_ERR_CANCELLED) not_run++;
  }
  if (first_bad != NULL && j->cancelled) {
    status = SEALPROV_ERR_CANCELLED;
    snprintf(j->err, sizeof j->err,
             "job %" PRIu64 " cancelled: %" PRIu32 " of %" PRIu32
             " partitions did not run (first problem: %s)",
             j->id, not_run, j->desc.num_partitions, first_bad->err);
  } else if (first_bad != NULL) {
    status = first_bad->status;
    snprintf(j->err, sizeof j->err, "%s", first_bad->err);
  } else {
    j->err[0] = '\0';
  }
  j->status = status;
  j->ended = true;
  s->active_jobs--;
  if (status == SEALPROV_OK)
    s->jobs_ok++;
  else
    s->jobs_failed++;
  j->completion.job = j;
  j->completion.partition = -1;
  sched_notice_push(s, &j->completion);
}

/* Ends one partition for good (under s->mu). The proof, if any, is already in
 * proofs_out. */
void sched_end_task(sp_sched *s, sp_task_rec *t, int status, const char *fmt, ...) {
  sp_job *j = t->job;
  t->ended = true;
  t->running = false;
  t->status = status;
  t->t_end = sp_now();
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->err, sizeof t->err, fmt, ap);
  va_end(ap);
  if (j->desc.results != NULL) {
    sealprov_partition_result *r = &j->desc.results[t->partition];
    r->status = status;
    r->device = status == SEALPROV_OK ? t->device : -1;
    r->attempts = t->attempts;
    r->reserved = 0;
    if (t->attempts > 0) {
      r->queued_ms = (t->t_start - j->t_submit) * 1e3;
      r->run_ms = (t->t_end - t->t_start) * 1e3;
    } else {
      r->queued_ms = (t->t_end - j->t_submit) * 1e3;
      r->run_ms = 0;
    }
  }
  if (status != SEALPROV_OK)
    sp_sched_timeline_add(s, SP_TL_FAILED, j->id, t->partition, t->device,
                          t->attempts ? (int)t->worker : -1, t->t_end - j->t_submit, status);
  if (j->desc.on_inputs_released != NULL) {
    t->released.job = j;
    t->released.partition = t->partition;
    sched_notice_push(s, &t->released);
  }
  if (--j->remaining == 0) job_end(s, j);
}

/* Message for NO_DEVICE: which devices there were and why each was quarantined. */
void sched_no_device_detail(const sp_sched *s, char *out, size_t len) {
  size_t off = (size_t)snprintf(out, len, "no healthy device left to run it:");
  for (unsigned i = 0; i < s->ndev && off < len; i++) {
    const sp_device_rt *d = &s->devs[i];
    off += (size_t)snprintf(out + off, len - off,
                            "%s device %u (%s) quarantined after %" PRIu64 " failure%s (last: %s)",
                            i ? ";" : "", i, sched_dev_name(d), d->failures,
                            d->failures == 1 ? "" : "s", d->last_error[0] ? d->last_error : "none");
  }
}

static void fail_queued_no_device(sp_sched *s) {
  char why[1024];
  sched_no_device_detail(s, why, sizeof why);
  while (s->qhead != NULL) {
    sp_task_rec *t = s->qhead;
    sched_queue_remove(s, t);
    sched_end_task(s, t, SEALPROV_ERR_NO_DEVICE, "partition %" PRIu32 " of job %" PRIu64 ": %s",
                   t->partition, t->job->id, why);
  }
}

/* ---- workers' side ------------------------------------------------------------------ */

sp_task_rec *sp_sched_take(sp_sched *s, sp_worker *w, sp_task *out) {
  sp_device_rt *d = w->dev;
  sp_task_rec *t = NULL;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    if (s->stopping) {
      pthread_mutex_unlock(&s->mu);
      return NULL;
    }
    /* A quarantined device's workers stay parked until close. A worker that left a
     * task to a faster device looks again whenever a task is taken or ends. */
    bool deferred = false;
    if (!d->quarantined) {
      t = sched_pick(s, d, &deferred);
      if (t != NULL) break;
    }
    s->deferring += deferred;
    pthread_cond_wait(&s->work_cv, &s->mu);
    s->deferring -= deferred;
  }
  sched_queue_remove(s, t);
  w->current = t;
  if (s->deferring > 0) pthread_cond_broadcast(&s->work_cv);
  sp_job *j = t->job;
  t->running = true;
  t->attempts++;
  t->device = (int)d->index;
  t->worker = w->index;
  t->t_start = sp_now();
  memset(out, 0, sizeof *out);
  out->job_id = j->id;
  out->partition = t->partition;
  out->srs = j->srs;
  out->cs = j->cs;
  out->asg = &j->desc.partitions[t->partition];
  out->scalar_encoding = j->desc.scalar_encoding;
  out->r = t->r;
  out->s = t->s;
  out->cpu_threads = d->cpu_threads;
  double waited = t->t_start - j->t_submit;
  /* Under s->mu, as submit's queued events are: the timeline's start events are in the
   * order the workers took the tasks, and a start that follows a job's queued event was
   * taken after that job was in the queue (tests/runtime/test_deadlines.c reads it so). */
  sp_sched_timeline_add(s, SP_TL_START, j->id, t->partition, (int)d->index, (int)w->index, waited,
                        SEALPROV_OK);
  pthread_mutex_unlock(&s->mu);
  return t;
}

static bool device_failure(int status) {
  return status == SEALPROV_ERR_DEVICE || status == SEALPROV_ERR_DEVICE_MEMORY;
}

/* Counts one failure against d (under s->mu) and quarantines it once it has
 * quarantine_after of them; a quarantine message is appended to qmsg. */
static void charge_device(sp_sched *s, sp_device_rt *d, const char *why, char *qmsg, size_t qlen) {
  d->failures++;
  snprintf(d->last_error, sizeof d->last_error, "%s", why);
  if (s->cfg.quarantine_after > 0 && d->failures >= s->cfg.quarantine_after && !d->quarantined) {
    d->quarantined = true;
    size_t off = strlen(qmsg);
    if (off + 1 < qlen)
      snprintf(qmsg + off, qlen - off,
               "%sdevice %u (%s) quarantined after %" PRIu64
               " failure%s (quarantine_after = %u); "
               "last: %s; %u healthy device(s) left",
               off ? "; " : "", d->index, sched_dev_name(d), d->failures,
               d->failures == 1 ? "" : "s", s->cfg.quarantine_after, why, sched_healthy_devices(s));
    /* Tasks that avoided other devices only because of this one may now run there. */
    pthread_cond_broadcast(&s->work_cv);
  }
}

/* Is there a healthy device the job allows that has not failed t yet? */
static bool untried_device_left(const sp_sched *s, const sp_task_rec *t) {
  for (unsigned i = 0; i < s->ndev; i++)
    if ((t->job->allowed & (UINT64_C(1) << i)) && !s->devs[i].quarantined &&
        !(t->failed_devices & (UINT64_C(1) << i)))
      return true;
  return false;
}

/* Why a job restricted to some devices cannot run: which of them were quarantined, with
 * each one's last error when with_last (cut to keep a task's message whole). */
void sched_stranded_detail(const sp_sched *s, const sp_job *j, bool with_last, char *out,
                           size_t len) {
  const uint64_t mask = j->allowed;
  size_t off =
      j->desc.device_mask == mask
          ? (size_t)snprintf(out, len,
                             "the job's device_mask 0x%" PRIx64 " allows no healthy device:", mask)
          : (size_t)snprintf(out, len,
                             "the devices with the memory for the job's partitions (0x%" PRIx64
                             "%s) are none of them healthy:",
                             mask, j->desc.device_mask ? ", of its device_mask" : "");
  for (unsigned i = 0; i < s->ndev && off < len; i++) {
    const sp_device_rt *d = &s->devs[i];
    if (!(mask & (UINT64_C(1) << i))) continue;
    off += (size_t)snprintf(out + off, len - off,
                            " device %u (%s) quarantined after %" PRIu64 " failure%s", i,
                            sched_dev_name(d), d->failures, d->failures == 1 ? "" : "s");
    if (with_last && off < len)
      off += (size_t)snprintf(out + off, len - off, " (last: %.100s)",
                              d->last_error[0] ? d->last_error : "none");
    if (off < len) off += (size_t)snprintf(out + off, len - off, ";");
  }
  if (off > 0 && off < len && out[off - 1] == ';') out[off - 1] = '\0';
}

/* After a quarantine: queued partitions of jobs whose allowed devices are all
 * quarantined now can never run; they end with NO_DEVICE (under s->mu). */
static void fail_stranded(sp_sched *s) {
  sp_task_rec *next;
  for (sp_task_rec *t = s->qhead; t != NULL; t = next) {
    next = t->next;
    if (sched_healthy_in(s, t->job->allowed) > 0) continue;
    char why[900];
    sched_stranded_detail(s, t->job, true, why, sizeof why);
    sched_queue_remove(s, t);
    sched_end_task(s, t, SEALPROV_ERR_NO_DEVICE, "partition %" PRIu32 " of job %" PRIu64 ": %s",
                   t->partition, t->job->id, why);
  }
}

/* "device 0 (gpu0) and device 1 (gpu1)" for the suspects of t. */
static void suspect_list(const sp_sched *s, const sp_task_rec *t, char *out, size_t len) {
  size_t off = 0;
  unsigned n = 0, total = (unsigned)__builtin_popcountll(t->suspect_devices);
  out[0] = '\0';
  for (unsigned i = 0; i < s->ndev && off < len; i++) {
    if (!(t->suspect_devices & (UINT64_C(1) << i))) continue;
    n++;
    off += (size_t)snprintf(out + off, len - off, "%sdevice %u (%s)",
                            n == 1       ? ""
                            : n == total ? " and "
                                         : ", ",
                            i, sched_dev_name(&s->devs[i]));
  }
}

/* What sp_sched_finish logs once s->mu is released: formatted under the lock, logged
 * after it, since the host's logger is never called with a scheduler lock held (it
 * may be slow, or call back in). */
typedef struct finish_msgs {
  char quarantine[1200], requeue[600], input[600];
} finish_msgs;

/* The partition's proof verified: stored, and every device whose proof of it failed
 * charged. */
static void finish_ok(sp_sched *s, sp_worker *w, sp_task_rec *t, const sp_attempt *a, double now,
                      finish_msgs *m) {
  sp_device_rt *d = w->dev;
  sp_job *j = t->job;
  if (j->srs != NULL) sched_speed_sample(d, j->srs->log_domain, a->execute_s - a->setup_s);
  memcpy(j->desc.proofs_out + (size_t)t->partition * SEALPROV_PROOF_BYTES, a->proof,
         SEALPROV_PROOF_BYTES);
  d->tasks_done++;
  /* The partition verified: every device whose proof of it failed is at fault. */
  for (unsigned i = 0; i < s->ndev; i++)
    if (t->suspect_devices & (UINT64_C(1) << i))
      charge_device(s, &s->devs[i], t->suspect_err, m->quarantine, sizeof m->quarantine);
  sp_sched_timeline_add(s, SP_TL_DONE, j->id, t->partition, (int)d->index, (int)w->index,
                        now - t->t_start, SEALPROV_OK);
  sched_end_task(s, t, SEALPROV_OK, "%s", "");
}

/* Who a failed attempt on d is charged to: a device failure to d at once; a failed
 * self-check to no one yet (the device or the input may be at fault). True when the
 * input is at fault: the second failed self-check is always the input's, on another
 * device, or again here, which a retry only reaches once no untried healthy device is
 * left (sched_eligible()). */
static bool blame_attempt(sp_sched *s, sp_device_rt *d, sp_task_rec *t, const sp_attempt *a,
                          finish_msgs *m) {
  const uint64_t bit = UINT64_C(1) << d->index;
  t->failed_devices |= bit;
  if (!a->self_check_failed) {
    charge_device(s, d, a->err, m->quarantine, sizeof m->quarantine);
    return false;
  }
  bool again_here = (t->suspect_devices & bit) != 0;
  if (t->suspect_devices == 0) /* %.200s: the whole line fits suspect_err */
    snprintf(t->suspect_err, sizeof t->suspect_err, "job %" PRIu64 " partition %" PRIu32 ": %.200s",
             t->job->id, t->partition, a->err);
  t->suspect_devices |= bit;
  return __builtin_popcountll(t->suspect_devices) >= 2 ||
         (again_here && !untried_device_left(s, t));
}

/* The partition's assignment does not satisfy the circuit: it ends, no device charged. */
static void end_input_fault(sp_sched *s, sp_task_rec *t, finish_msgs *m) {
  const sp_job *j = t->job;
  char who[300];
  suspect_list(s, t, who, sizeof who);
  const sp_srs *srs = j->srs;
  sched_end_task(s, t, SEALPROV_ERR_ASSIGNMENT,
                 "partition %" PRIu32 " of job %" PRIu64
                 ": its proof failed the self-check 2 "
                 "times (on %s): the assignment does not satisfy the circuit of these parameters "
                 "(file %s); no device was charged",
                 t->partition, j->id, who, srs != NULL && srs->path != NULL ? srs->path : "?");
  snprintf(m->input, sizeof m->input, "%s", t->err);
}

/* The partition back in the queue for another attempt, on another device if one is
 * left untried. */
static void requeue(sp_sched *s, sp_worker *w, sp_task_rec *t, const sp_attempt *a, int status,
                    double now, finish_msgs *m) {
  const sp_device_rt *d = w->dev;
  const sp_job *j = t->job;
  t->running = false;
  sched_queue_insert(s, t);
  s->requeues++;
  sp_sched_timeline_add(s, SP_TL_REQUEUED, j->id, t->partition, (int)d->index, (int)w->index,
                        now - t->t_start, status);
  snprintf(m->requeue, sizeof m->requeue,
           "job %" PRIu64 " partition %" PRIu32 ": attempt %" PRIu32
           " failed on device %u "
           "(%s): %s; requeued for %s device",
           j->id, t->partition, t->attempts, d->index, sched_dev_name(d), a->err,
           untried_device_left(s, t) ? "another" : "the same");
  pthread_cond_broadcast(&s->work_cv);
}

/* An attempt that failed on its device (or its self-check): the partition ends (its
 * input at fault, its job cancelled, the provider closing, no device left for it, its
 * attempts spent) or goes back in the queue. */
static void finish_failed(sp_sched *s, sp_worker *w, sp_task_rec *t, const sp_attempt *a,
                          double now, finish_msgs *m) {
  sp_device_rt *d = w->dev;
  sp_job *j = t->job;
  const bool self_check = a->self_check_failed;
  int status = self_check ? SEALPROV_ERR_VERIFY_FAILED : a->status;
  bool input_fault = blame_attempt(s, d, t, a, m);
  unsigned max_attempts = s->cfg.max_attempts ? s->cfg.max_attempts : 1;
  if (input_fault) {
    end_input_fault(s, t, m);
  } else if (j->cancelled) {
    sched_end_task(s, t, SEALPROV_ERR_CANCELLED,
                   "partition %" PRIu32 " of job %" PRIu64
                   ": cancelled; its last attempt failed on "
                   "device %u (%s): %s",
                   t->partition, j->id, d->index, sched_dev_name(d), a->err);
  } else if (s->closing) {
    sched_end_task(s, t, SEALPROV_ERR_SHUTDOWN,
                   "partition %" PRIu32 " of job %" PRIu64
                   ": not retried because the provider is "
                   "closing; its attempt failed on device %u (%s): %s",
                   t->partition, j->id, d->index, sched_dev_name(d), a->err);
  } else if (sched_healthy_devices(s) == 0) {
    char why[1024];
    sched_no_device_detail(s, why, sizeof why);
    sched_end_task(s, t, SEALPROV_ERR_NO_DEVICE, "partition %" PRIu32 " of job %" PRIu64 ": %s",
                   t->partition, j->id, why);
    fail_queued_no_device(s);
  } else if (sched_healthy_in(s, j->allowed) == 0) {
    /* A job restricted to quarantined devices: the partition ends with the error of
     * its last attempt (the job's other queued partitions: fail_stranded). */
    char why[900];
    sched_stranded_detail(s, j, false, why, sizeof why);
    sched_end_task(s, t, status,
                   "partition %" PRIu32 " of job %" PRIu64 ": attempt %" PRIu32
                   " failed on device "
                   "%u (%s): %s; not retried: %s",
                   t->partition, j->id, t->attempts, d->index, sched_dev_name(d), a->err, why);
  } else if (t->attempts >= max_attempts) {
    sched_end_task(s, t, status,
                   "partition %" PRIu32 " of job %" PRIu64 ": gave up after %" PRIu32
                   " attempts (max_attempts = %u); last on device %u (%s): %s%s",
                   t->partition, j->id, t->attempts, max_attempts, d->index, sched_dev_name(d),
                   a->err,
                   self_check ? " (a failed self-check is not charged to a device until the "
                                "partition verifies elsewhere)"
                              : "");
  } else {
    requeue(s, w, t, a, status, now, m);
  }
}

void sp_sched_finish(sp_sched *s, sp_worker *w, sp_task_rec *t, const sp_attempt *a) {
  sp_device_rt *d = w->dev;
  finish_msgs m = {"", "", ""};
  pthread_mutex_lock(&s->mu);
  const unsigned healthy_before = sched_healthy_devices(s);
  d->busy_s += a->execute_s;
  d->lock_wait_s += a->lock_wait_s;
  w->current = NULL;
  if (s->deferring > 0) pthread_cond_broadcast(&s->work_cv);
  double now = sp_now();
  if (a->status == SEALPROV_OK)
    finish_ok(s, w, t, a, now, &m);
  else if (a->self_check_failed || device_failure(a->status))
    finish_failed(s, w, t, a, now, &m);
  else /* Bad input or host memory: another device would fail the same way. */
    sched_end_task(s, t, a->status, "partition %" PRIu32 " of job %" PRIu64 ": %s", t->partition,
                   t->job->id, a->err);
  /* A quarantine may leave restricted jobs without any device they may run on (the
   * count, not m.quarantine, tells: the message may not have had room). */
  if (sched_healthy_devices(s) < healthy_before) fail_stranded(s);
  pthread_mutex_unlock(&s->mu);
  /* t and its job may be gone now (the job can end and be reaped): only the copies. */
  if (m.quarantine[0]) SLOG(s, SEALPROV_LOG_WARN, "%s", m.quarantine);
  if (m.requeue[0]) SLOG(s, SEALPROV_LOG_INFO, "%s", m.requeue);
  if (m.input[0]) SLOG(s, SEALPROV_LOG_WARN, "%s", m.input);
}
