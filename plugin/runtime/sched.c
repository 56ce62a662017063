/* sched.c -- jobs -> partition tasks; priorities, retries, quarantine, callbacks,
 * timeline and counters. The worker threads themselves are in pool.c.
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
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "engine/hostmem.h"
#include "base/log.h"
#include "base/thread.h"
#include "runtime/sp_sched.h"

struct sp_job {
  sealprov_job_id id;
  sealprov_job desc;        /* the host's description, zero-extended to our size */
  sp_srs *srs;
  struct sp_cs *cs;         /* witness-only job: its constraint system (referenced) */
  uint64_t allowed;         /* devices it may run on: bit i = device i (device_mask, or all) */
  sp_task_rec *tasks;       /* desc.num_partitions entries */
  uint32_t remaining;       /* partitions not ended */
  uint64_t seq;             /* submission order: FIFO among equal priorities */
  bool cancelled;
  bool ended;               /* every partition ended; status final */
  bool notified;            /* its callbacks have returned: wait() may return */
  bool reaped;              /* a wait() took it */
  unsigned waiters;
  int status;
  double t_submit;
  sp_job *prev, *next;      /* s->jobs */
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
  pthread_cond_t work_cv;    /* workers: tasks queued, device state changed, stop */
  pthread_cond_t job_cv;     /* wait(): a job was notified (CLOCK_MONOTONIC) */
  pthread_cond_t notify_cv;  /* notifier: notices queued, stop */
  bool closing;              /* no new jobs */
  bool shut_down;            /* sp_sched_shutdown has finished */
  bool stopping;             /* workers leave */
  bool notify_stop;
  sp_task_rec *qhead, *qtail;
  size_t queued;
  sp_job *jobs;
  size_t active_jobs;        /* submitted, not ended */
  uint64_t next_id, next_seq;
  unsigned wait_calls;       /* threads inside sp_sched_wait */
  sp_notice *nhead, *ntail;
  pthread_t notifier;
  bool notifier_started;
  uint64_t jobs_submitted, jobs_ok, jobs_failed, requeues;

  pthread_mutex_t tl_mu;
  tl_entry *tl;
  size_t tl_cap, tl_head, tl_count;

  /* The provider's host-memory accountant and staging pool (hostmem.h): its own cap and
   * counters, handed to every engine device through sp_device_cfg.hostmem. */
  sp_hostmem *hostmem;
};

static const char *const tl_names[SP_TL_EVENT_COUNT_] = {
    [SP_TL_QUEUED] = "queued",   [SP_TL_START] = "start",     [SP_TL_PREPARE] = "prepare",
    [SP_TL_LOCK_WAIT] = "lock_wait", [SP_TL_EXECUTE] = "execute", [SP_TL_VERIFY] = "verify",
    [SP_TL_DONE] = "done",       [SP_TL_FAILED] = "failed",   [SP_TL_REQUEUED] = "requeued",
    [SP_TL_BOUND] = "bound",
};

/* Logs only what both the host's level and this provider's INI log_level allow. */
#define SLOG(s, level, ...)                                                   \
  do {                                                                        \
    if ((level) <= (s)->cfg.log_level) sp_log((level), __VA_ARGS__);          \
  } while (0)

double sp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int status, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return status;
}

static const char *dev_name(const sp_device_rt *d) { return d->cfg.section; }

/* ---- timeline ------------------------------------------------------------------ */

void sp_sched_timeline_add(sp_sched *s, enum sp_tl_event ev, uint64_t job, uint32_t partition,
                           int device, int worker, double duration_s, int status) {
  if (s->tl_cap == 0) return;
  int ordinal = -1;
  if ((ev == SP_TL_BOUND || ev == SP_TL_EXECUTE) && worker >= 0 &&
      (unsigned)worker < s->pool.nworkers)
    ordinal = s->pool.workers[worker].confirmed_ordinal;
  tl_entry e = {
      .ordinal = (int16_t)ordinal,
      .duration = duration_s,
      .job = job,
      .partition = partition,
      .device = (int16_t)device,
      .worker = (int16_t)worker,
      .event = (uint8_t)ev,
      .status = (uint8_t)(status < 0 || status > 255 ? SEALPROV_ERR_INTERNAL : status),
  };
  pthread_mutex_lock(&s->tl_mu);
  e.t = sp_now() - s->t0; /* under the lock, so that the ring is in time order */
  size_t slot = (s->tl_head + s->tl_count) % s->tl_cap;
  s->tl[slot] = e;
  if (s->tl_count < s->tl_cap)
    s->tl_count++;
  else
    s->tl_head = (s->tl_head + 1) % s->tl_cap; /* full: the oldest event goes */
  pthread_mutex_unlock(&s->tl_mu);
}

/* ---- a growing text buffer for stats/timeline ---------------------------------- */

typedef struct sbuf {
  char *p;
  size_t len, cap;
  bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    size_t room = b->cap - b->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = true;
      return;
    }
    if ((size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    size_t ncap = b->cap ? b->cap * 2 : 4096;
    while (ncap - b->len <= (size_t)n) ncap *= 2;
    char *np = realloc(b->p, ncap);
    if (np == NULL) {
      b->oom = true;
      return;
    }
    b->p = np;
    b->cap = ncap;
  }
}

/* Copies the text out with the ABI's convention: at most cap bytes including the
 * NUL, *len = the full length. */
static int sb_deliver(sbuf *b, char *buf, size_t cap, size_t *len) {
  if (b->oom) {
    free(b->p);
    return SEALPROV_ERR_NO_MEMORY;
  }
  if (len != NULL) *len = b->len;
  if (buf != NULL && cap > 0) {
    size_t n = b->len < cap - 1 ? b->len : cap - 1;
    if (n > 0) memcpy(buf, b->p, n);
    buf[n] = '\0';
  }
  free(b->p);
  return SEALPROV_OK;
}

int sp_sched_timeline(sp_sched *s, char *buf, size_t cap, size_t *len) {
  if (s == NULL || (buf == NULL && cap > 0)) return SEALPROV_ERR_INVALID_ARGUMENT;
  sbuf b = {0};
  pthread_mutex_lock(&s->tl_mu);
  for (size_t i = 0; i < s->tl_count; i++) {
    const tl_entry *e = &s->tl[(s->tl_head + i) % s->tl_cap];
    sb_printf(&b, "t=%.6f event=%s job=%" PRIu64 " partition=%" PRIu32
                  " device=%d worker=%d duration=%.6f",
              e->t, e->event < SP_TL_EVENT_COUNT_ ? tl_names[e->event] : "?", e->job,
              e->partition, e->device, e->worker, e->duration);
    if (e->event == SP_TL_BOUND || e->event == SP_TL_EXECUTE)
      sb_printf(&b, " ordinal=%d", e->ordinal);
    if (e->event == SP_TL_FAILED || e->event == SP_TL_REQUEUED ||
        (e->event == SP_TL_VERIFY && e->status != SEALPROV_OK))
      sb_printf(&b, " status=%s", sp_status_name(e->status));
    sb_printf(&b, "\n");
  }
  pthread_mutex_unlock(&s->tl_mu);
  if (b.p == NULL && !b.oom) sb_printf(&b, "%s", "");
  return sb_deliver(&b, buf, cap, len);
}

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

static void queue_insert(sp_sched *s, sp_task_rec *t) {
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

static void queue_remove(sp_sched *s, sp_task_rec *t) {
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

static unsigned healthy_devices(const sp_sched *s) {
  unsigned n = 0;
  for (unsigned i = 0; i < s->ndev; i++) n += !s->devs[i].quarantined;
  return n;
}

/* Devices of mask that are not quarantined. */
static unsigned healthy_in(const sp_sched *s, uint64_t mask) {
  unsigned n = 0;
  for (unsigned i = 0; i < s->ndev; i++)
    n += (mask & (UINT64_C(1) << i)) && !s->devs[i].quarantined;
  return n;
}

/* Every device of the provider, as a mask (the set of a job with device_mask 0). */
static uint64_t all_devices(const sp_sched *s) {
  return s->ndev >= 64 ? UINT64_MAX : (UINT64_C(1) << s->ndev) - 1;
}

/* "device 1 (cpu1), device 2 (cpu2)" for the devices of mask. */
static void device_list(const sp_sched *s, uint64_t mask, char *out, size_t len) {
  size_t off = 0;
  out[0] = '\0';
  for (unsigned i = 0; i < s->ndev && off < len; i++)
    if (mask & (UINT64_C(1) << i))
      off += (size_t)snprintf(out + off, len - off, "%sdevice %u (%s)", off ? ", " : "", i,
                              dev_name(&s->devs[i]));
}

/* May device d run t? Not if the job does not allow d (device_mask), nor if d already
 * failed t while some other allowed healthy device has not: a retry must land on
 * ANOTHER allowed device whenever one exists. */
static bool eligible(const sp_sched *s, const sp_task_rec *t, const sp_device_rt *d) {
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

static void notice_push(sp_sched *s, sp_notice *n) {
  n->next = NULL;
  if (s->ntail)
    s->ntail->next = n;
  else
    s->nhead = n;
  s->ntail = n;
  pthread_cond_signal(&s->notify_cv);
}

static void job_unlink(sp_sched *s, sp_job *j) {
  if (j->prev)
    j->prev->next = j->next;
  else if (s->jobs == j)
    s->jobs = j->next;
  if (j->next) j->next->prev = j->prev;
  j->prev = j->next = NULL;
}

static void job_free(sp_job *j) {
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
    snprintf(j->err, sizeof j->err, "job %" PRIu64 " cancelled: %" PRIu32 " of %" PRIu32
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
  notice_push(s, &j->completion);
}

/* Ends one partition for good (under s->mu). The proof, if any, is already in
 * proofs_out. */
static void end_task(sp_sched *s, sp_task_rec *t, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void end_task(sp_sched *s, sp_task_rec *t, int status, const char *fmt, ...) {
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
    notice_push(s, &t->released);
  }
  if (--j->remaining == 0) job_end(s, j);
}

/* Message for NO_DEVICE: which devices there were and why each was quarantined. */
static void no_device_detail(const sp_sched *s, char *out, size_t len) {
  size_t off = (size_t)snprintf(out, len, "no healthy device left to run it:");
  for (unsigned i = 0; i < s->ndev && off < len; i++) {
    const sp_device_rt *d = &s->devs[i];
    off += (size_t)snprintf(out + off, len - off, "%s device %u (%s) quarantined after %" PRIu64
                            " failure%s (last: %s)",
                            i ? ";" : "", i, dev_name(d), d->failures, d->failures == 1 ? "" : "s",
                            d->last_error[0] ? d->last_error : "none");
  }
}

static void fail_queued_no_device(sp_sched *s) {
  char why[1024];
  no_device_detail(s, why, sizeof why);
  while (s->qhead != NULL) {
    sp_task_rec *t = s->qhead;
    queue_remove(s, t);
    end_task(s, t, SEALPROV_ERR_NO_DEVICE, "partition %" PRIu32 " of job %" PRIu64 ": %s",
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
    /* A quarantined device's workers stay parked until close. */
    if (!d->quarantined) {
      for (t = s->qhead; t != NULL; t = t->next)
        if (eligible(s, t, d)) break;
      if (t != NULL) break;
    }
    pthread_cond_wait(&s->work_cv, &s->mu);
  }
  queue_remove(s, t);
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
  if (d->cfg.inject != 0) {
    if (d->cfg.inject_count == 0) {
      out->inject = d->cfg.inject;
    } else if (d->inject_left > 0) {
      d->inject_left--;
      out->inject = d->cfg.inject;
    }
  }
  double waited = t->t_start - j->t_submit;
  pthread_mutex_unlock(&s->mu);
  sp_sched_timeline_add(s, SP_TL_START, j->id, t->partition, (int)d->index, (int)w->index,
                        waited, SEALPROV_OK);
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
               "%sdevice %u (%s) quarantined after %" PRIu64 " failure%s (quarantine_after = %u); "
               "last: %s; %u healthy device(s) left",
               off ? "; " : "", d->index, dev_name(d), d->failures, d->failures == 1 ? "" : "s",
               s->cfg.quarantine_after, why, healthy_devices(s));
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

/* Why a job restricted to mask cannot run: which of its devices were quarantined, with
 * each one's last error when with_last (cut to keep a task's message whole). */
static void stranded_detail(const sp_sched *s, uint64_t mask, bool with_last, char *out,
                            size_t len) {
  size_t off = (size_t)snprintf(out, len, "the job's device_mask 0x%" PRIx64
                                " allows no healthy device:", mask);
  for (unsigned i = 0; i < s->ndev && off < len; i++) {
    const sp_device_rt *d = &s->devs[i];
    if (!(mask & (UINT64_C(1) << i))) continue;
    off += (size_t)snprintf(out + off, len - off, " device %u (%s) quarantined after %" PRIu64
                            " failure%s", i, dev_name(d), d->failures, d->failures == 1 ? "" : "s");
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
    if (healthy_in(s, t->job->allowed) > 0) continue;
    char why[900];
    stranded_detail(s, t->job->allowed, true, why, sizeof why);
    queue_remove(s, t);
    end_task(s, t, SEALPROV_ERR_NO_DEVICE, "partition %" PRIu32 " of job %" PRIu64 ": %s",
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
                            n == 1 ? "" : n == total ? " and " : ", ", i, dev_name(&s->devs[i]));
  }
}

void sp_sched_finish(sp_sched *s, sp_worker *w, sp_task_rec *t, const sp_attempt *a) {
  sp_device_rt *d = w->dev;
  sp_job *j = t->job;
  const uint64_t bit = UINT64_C(1) << d->index;
  /* Messages are formatted under s->mu but logged after it: the host's logger is
   * never called with a scheduler lock held (it may be slow, or call back in). */
  char quarantine_msg[1200] = "", requeue_msg[600] = "", input_msg[600] = "";
  pthread_mutex_lock(&s->mu);
  const unsigned healthy_before = healthy_devices(s);
  d->busy_s += a->execute_s;
  d->lock_wait_s += a->lock_wait_s;
  double now = sp_now();
  if (a->status == SEALPROV_OK) {
    memcpy(j->desc.proofs_out + (size_t)t->partition * SEALPROV_PROOF_BYTES, a->proof,
           SEALPROV_PROOF_BYTES);
    d->tasks_done++;
    /* The partition verified: every device whose proof of it failed is at fault. */
    for (unsigned i = 0; i < s->ndev; i++)
      if (t->suspect_devices & (UINT64_C(1) << i))
        charge_device(s, &s->devs[i], t->suspect_err, quarantine_msg, sizeof quarantine_msg);
    sp_sched_timeline_add(s, SP_TL_DONE, j->id, t->partition, (int)d->index, (int)w->index,
                          now - t->t_start, SEALPROV_OK);
    end_task(s, t, SEALPROV_OK, "%s", "");
  } else if (a->self_check_failed || device_failure(a->status)) {
    const bool self_check = a->self_check_failed;
    int status = self_check ? SEALPROV_ERR_VERIFY_FAILED : a->status;
    bool input_fault = false;
    t->failed_devices |= bit;
    if (self_check) {
      /* Not charged yet: the device or the input may be at fault. */
      bool again_here = (t->suspect_devices & bit) != 0;
      if (t->suspect_devices == 0) /* %.200s: the whole line fits suspect_err */
        snprintf(t->suspect_err, sizeof t->suspect_err, "job %" PRIu64 " partition %" PRIu32 ": %.200s",
                 j->id, t->partition, a->err);
      t->suspect_devices |= bit;
      /* The second failed self-check is always the input's fault: on another device, or
       * again here, which a retry only reaches once no untried healthy device is left
       * (eligible()). */
      input_fault = __builtin_popcountll(t->suspect_devices) >= 2 ||
                    (again_here && !untried_device_left(s, t));
    } else {
      charge_device(s, d, a->err, quarantine_msg, sizeof quarantine_msg);
    }
    unsigned max_attempts = s->cfg.max_attempts ? s->cfg.max_attempts : 1;
    if (input_fault) {
      char who[300];
      suspect_list(s, t, who, sizeof who);
      const sp_srs *srs = j->srs;
      end_task(s, t, SEALPROV_ERR_ASSIGNMENT,
               "partition %" PRIu32 " of job %" PRIu64 ": its proof failed the self-check 2 "
               "times (on %s): the assignment does not satisfy the circuit of these parameters "
               "(file %s); no device was charged",
               t->partition, j->id, who,
               srs != NULL && srs->path != NULL ? srs->path : "?");
      snprintf(input_msg, sizeof input_msg, "%s", t->err);
    } else if (j->cancelled) {
      end_task(s, t, SEALPROV_ERR_CANCELLED,
               "partition %" PRIu32 " of job %" PRIu64 ": cancelled; its last attempt failed on "
               "device %u (%s): %s",
               t->partition, j->id, d->index, dev_name(d), a->err);
    } else if (s->closing) {
      end_task(s, t, SEALPROV_ERR_SHUTDOWN,
               "partition %" PRIu32 " of job %" PRIu64 ": not retried because the provider is "
               "closing; its attempt failed on device %u (%s): %s",
               t->partition, j->id, d->index, dev_name(d), a->err);
    } else if (healthy_devices(s) == 0) {
      char why[1024];
      no_device_detail(s, why, sizeof why);
      end_task(s, t, SEALPROV_ERR_NO_DEVICE, "partition %" PRIu32 " of job %" PRIu64 ": %s",
               t->partition, j->id, why);
      fail_queued_no_device(s);
    } else if (healthy_in(s, j->allowed) == 0) {
      /* A job restricted to quarantined devices: the partition ends with the error of
       * its last attempt (the job's other queued partitions: fail_stranded below). */
      char why[900];
      stranded_detail(s, j->allowed, false, why, sizeof why);
      end_task(s, t, status,
               "partition %" PRIu32 " of job %" PRIu64 ": attempt %" PRIu32 " failed on device "
               "%u (%s): %s; not retried: %s",
               t->partition, j->id, t->attempts, d->index, dev_name(d), a->err, why);
    } else if (t->attempts >= max_attempts) {
      end_task(s, t, status,
               "partition %" PRIu32 " of job %" PRIu64 ": gave up after %" PRIu32
               " attempts (max_attempts = %u); last on device %u (%s): %s%s",
               t->partition, j->id, t->attempts, max_attempts, d->index, dev_name(d), a->err,
               self_check ? " (a failed self-check is not charged to a device until the "
                            "partition verifies elsewhere)" : "");
    } else {
      t->running = false;
      queue_insert(s, t);
      s->requeues++;
      sp_sched_timeline_add(s, SP_TL_REQUEUED, j->id, t->partition, (int)d->index,
                            (int)w->index, now - t->t_start, status);
      snprintf(requeue_msg, sizeof requeue_msg,
               "job %" PRIu64 " partition %" PRIu32 ": attempt %" PRIu32 " failed on device %u "
               "(%s): %s; requeued for %s device",
               j->id, t->partition, t->attempts, d->index, dev_name(d), a->err,
               untried_device_left(s, t) ? "another" : "the same");
      pthread_cond_broadcast(&s->work_cv);
    }
  } else {
    /* Bad input or host memory: another device would fail the same way. */
    end_task(s, t, a->status, "partition %" PRIu32 " of job %" PRIu64 ": %s", t->partition,
             j->id, a->err);
  }
  /* A quarantine may leave restricted jobs without any device they may run on (the
   * count, not quarantine_msg, tells: the message may not have had room). */
  if (healthy_devices(s) < healthy_before) fail_stranded(s);
  pthread_mutex_unlock(&s->mu);
  /* t and j may be gone now (the job can end and be reaped): only the copies. */
  if (quarantine_msg[0]) SLOG(s, SEALPROV_LOG_WARN, "%s", quarantine_msg);
  if (requeue_msg[0]) SLOG(s, SEALPROV_LOG_INFO, "%s", requeue_msg);
  if (input_msg[0]) SLOG(s, SEALPROV_LOG_WARN, "%s", input_msg);
}

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
        job_unlink(s, j);
        job_free(j);
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
  if (!s->notifier_started) return;
  pthread_mutex_lock(&s->mu);
  s->notify_stop = true;
  pthread_cond_broadcast(&s->notify_cv);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->notifier, NULL);
  s->notifier_started = false;
}

void sp_sched_stop_workers(sp_sched *s) {
  pthread_mutex_lock(&s->mu);
  s->stopping = true;
  pthread_cond_broadcast(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
}

unsigned sp_sched_wait_calls(sp_sched *s) {
  pthread_mutex_lock(&s->mu);
  unsigned n = s->wait_calls;
  pthread_mutex_unlock(&s->mu);
  return n;
}

bool sp_sched_on_callback_thread(const sp_sched *s) {
  return s != NULL && s->notifier_started && pthread_equal(pthread_self(), s->notifier);
}

sp_proof_verify_fn sp_sched_verifier(const sp_sched *s) {
  return s->cfg.verify_proofs ? s->hooks.verify_proof : NULL;
}

int sp_sched_create(const sp_config *cfg, const sp_engine_ops *const *engines,
                    const sp_sched_hooks *hooks, sp_sched **out, char *err, size_t errlen) {
  if (out != NULL) *out = NULL;
  if (cfg == NULL || engines == NULL || out == NULL)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "scheduler: NULL %s", cfg == NULL ? "config" : engines == NULL ? "engines" : "out");
  if (cfg->ndevices == 0)
    return fail(err, errlen, SEALPROV_ERR_NO_DEVICE, "%s: no device sections: nothing to run on",
                cfg->path[0] ? cfg->path : "configuration");
  if (cfg->ndevices > SP_MAX_DEVICES)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "%zu devices (at most %d)",
                cfg->ndevices, SP_MAX_DEVICES);
  for (size_t i = 0; i < cfg->ndevices; i++) {
    const sp_engine_ops *e = engines[i];
    if (e == NULL || e->device_open == NULL || e->worker_bind == NULL || e->execute == NULL)
      return fail(err, errlen, SEALPROV_ERR_INTERNAL,
                  "device %zu (%s): no engine, or an engine without device_open/worker_bind/"
                  "execute",
                  i, cfg->devices[i].section);
    if (cfg->devices[i].workers == 0)
      return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                  "device %zu (%s): 0 workers: a device needs at least one", i,
                  cfg->devices[i].section);
  }

  sp_sched *s = calloc(1, sizeof *s);
  if (s == NULL) return fail(err, errlen, SEALPROV_ERR_NO_MEMORY, "scheduler: out of memory");
  s->cfg = *cfg;
  if (hooks != NULL) s->hooks = *hooks;
  /* [provider] host_memory_limit: the engines' staging waits for memory under it. The
   * accountant is this provider's: a failed open frees it, and no other provider's cap
   * or counters change. */
  if (sp_hostmem_create(cfg->host_memory_limit, &s->hostmem) != SEALPROV_OK) {
    free(s);
    return fail(err, errlen, SEALPROV_ERR_NO_MEMORY, "scheduler: out of memory");
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
    return fail(err, errlen, SEALPROV_ERR_NO_MEMORY, "timeline of %zu events: out of memory",
                (size_t)cfg->timeline_events);
  }
  s->devs = calloc(s->ndev, sizeof *s->devs);
  if (s->devs == NULL) {
    free_sched(s);
    return fail(err, errlen, SEALPROV_ERR_NO_MEMORY, "scheduler: out of memory");
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
    d->inject_left = d->cfg.inject_count;
    atomic_init(&d->executing, 0);
    /* Host threads per task: as configured, else an equal share of the machine so
     * that all workers preparing at once do not oversubscribe it. */
    d->cpu_threads = d->cfg.threads ? d->cfg.threads
                                    : (unsigned)(ncpu / total_workers ? ncpu / total_workers : 1);
    pthread_mutex_init(&d->lock, NULL);
  }

  /* device_open runs on this thread; engines must not change its current device. */
  for (unsigned i = 0; i < s->ndev; i++) {
    sp_device_rt *d = &s->devs[i];
    char msg[256] = "";
    int st = d->eng->device_open(&d->cfg, &d->handle, msg, sizeof msg);
    if (st != SEALPROV_OK) {
      fail(err, errlen, st, "device %u (%s, %s engine): cannot open: %s", i, d->cfg.section,
           d->eng->name ? d->eng->name : "?", msg);
      close_devices(s);
      free_sched(s);
      return st;
    }
    d->opened = true;
  }

  int rc = sp_thread_start(&s->notifier, notifier_main, s, "sp-notify");
  if (rc != 0) {
    close_devices(s);
    free_sched(s);
    return fail(err, errlen, SEALPROV_ERR_INTERNAL, "cannot start the notifier thread: %s",
                strerror(rc));
  }
  s->notifier_started = true;

  int st = sp_pool_start(&s->pool, s, s->devs, s->ndev, err, errlen);
  if (st != SEALPROV_OK) {
    stop_notifier(s);
    close_devices(s);
    free_sched(s);
    return st;
  }
  /* Rule 1 of docs/design.md: the selector -> device mapping is logged at open. */
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
           d->cfg.selector, d->cfg.ordinal, d->cfg.name, d->cfg.uuid,
           d->cfg.pci_bus_id, d->nworkers, d->confirmed_ordinal, d->cpu_threads);
    else
      SLOG(s, SEALPROV_LOG_INFO,
           "device %u [%s] %s '%s': %u worker(s) bound; %u host thread(s) per task", i,
           d->cfg.section, d->eng->name ? d->eng->name : "cpu", d->cfg.name, d->nworkers,
           d->cpu_threads);
  }
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
    queue_remove(s, t);
    end_task(s, t, SEALPROV_ERR_SHUTDOWN,
             "partition %" PRIu32 " of job %" PRIu64 ": not started: the provider is closing",
             t->partition, t->job->id);
  }
  s->stopping = true;
  pthread_cond_broadcast(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  if (dropped) SLOG(s, SEALPROV_LOG_INFO, "close: %zu queued partition(s) failed with SHUTDOWN",
                    dropped);

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
    job_free(j);
    j = next;
  }
  close_devices(s);
  free_sched(s);
}

/* ---- host calls ------------------------------------------------------------------------ */

static sp_job *job_find(sp_sched *s, sealprov_job_id id) {
  for (sp_job *j = s->jobs; j != NULL; j = j->next)
    if (j->id == id) return j;
  return NULL;
}

static int fill_random(void *buf, size_t len, char *err, size_t errlen) {
  uint8_t *p = buf;
  while (len > 0) {
    ssize_t n = getrandom(p, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(err, errlen, SEALPROV_ERR_INTERNAL, "getrandom failed: %s", strerror(errno));
    }
    p += n;
    len -= (size_t)n;
  }
  return SEALPROV_OK;
}

static bool decode_scalar(fr_t *out, const uint8_t *in, uint32_t encoding) {
  if (encoding == SEALPROV_SCALAR_CANONICAL_LE) return fr_from_le32(out, in);
  uint64_t limbs[4];
  memcpy(limbs, in, sizeof limbs); /* host bytes need not be 8-byte aligned */
  return fr_from_blst_mont(out, limbs);
}

/* Blinding factors: the host's (FIXED_RS) or fresh from getrandom, 64 bytes reduced
 * mod r per value so that the bias is negligible. */
static int draw_rs(const sealprov_job *job, sp_task_rec *tasks, char *err, size_t errlen) {
  uint32_t n = job->num_partitions;
  if (job->flags & SEALPROV_JOB_FIXED_RS) {
    for (uint32_t i = 0; i < n; i++) {
      if (!decode_scalar(&tasks[i].r, job->r + (size_t)i * 32, job->scalar_encoding))
        return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                    "job->r of partition %" PRIu32 " is not a scalar below the group order r", i);
      if (!decode_scalar(&tasks[i].s, job->s + (size_t)i * 32, job->scalar_encoding))
        return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                    "job->s of partition %" PRIu32 " is not a scalar below the group order r", i);
    }
    return SEALPROV_OK;
  }
  /* The wide buffer holds secret randomness: cleared on every way out, a failed
   * getrandom (which may have filled part of it) included. The tasks' r and s are
   * cleared by job_free. */
  uint8_t wide[128];
  int st = SEALPROV_OK;
  for (uint32_t i = 0; i < n && st == SEALPROV_OK; i++) {
    st = fill_random(wide, sizeof wide, err, errlen);
    if (st != SEALPROV_OK) break;
    fr_from_bytes_wide(&tasks[i].r, wide);
    fr_from_bytes_wide(&tasks[i].s, wide + 64);
  }
  explicit_bzero(wide, sizeof wide);
  return st;
}

/* Smallest job struct a host may pass: everything up to and including proofs_out
 * (the trailing results/callbacks/user read as absent when not covered). */
#define SP_JOB_MIN_SIZE (offsetof(sealprov_job, proofs_out) + sizeof(((sealprov_job *)0)->proofs_out))

int sp_sched_submit(sp_sched *s, const sealprov_job *job, sealprov_job_id *id, char *err,
                    size_t errlen) {
  if (s == NULL || job == NULL || id == NULL)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "submit: NULL %s",
                s == NULL ? "provider" : job == NULL ? "job" : "id");
  *id = 0;
  if (job->struct_size < SP_JOB_MIN_SIZE)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "job->struct_size %" PRIu32 " is smaller than the smallest job (%zu bytes, "
                "up to proofs_out): set it to sizeof(sealprov_job)",
                job->struct_size, (size_t)SP_JOB_MIN_SIZE);
  sealprov_job d;
  memset(&d, 0, sizeof d);
  memcpy(&d, job, job->struct_size < sizeof d ? job->struct_size : sizeof d);

  const uint32_t known = SEALPROV_JOB_FIXED_RS | SEALPROV_JOB_DETACHED;
  if (d.flags & ~known)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "job->flags 0x%" PRIx32 " has unknown bits 0x%" PRIx32, d.flags, d.flags & ~known);
  if (d.srs == NULL)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "job->srs is NULL: load parameters with srs_load() first");
  sp_srs *srs = (sp_srs *)d.srs;
  if (srs->vk_only)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "job->srs (%s) is a verifying key from vk_load(): proving needs srs_load()",
                srs->path ? srs->path : "?");
  if (d.num_partitions == 0)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "job->num_partitions is 0");
  if (s->cfg.max_partitions > 0 && d.num_partitions > s->cfg.max_partitions)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "job->num_partitions %" PRIu32 " exceeds max_partitions %u of %s",
                d.num_partitions, s->cfg.max_partitions, s->cfg.path);
  if (d.partitions == NULL)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "job->partitions is NULL");
  if (d.proofs_out == NULL)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "job->proofs_out is NULL (needs 192 x %" PRIu32 " bytes)", d.num_partitions);
  if (d.scalar_encoding != SEALPROV_SCALAR_CANONICAL_LE &&
      d.scalar_encoding != SEALPROV_SCALAR_MONTGOMERY)
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "job->scalar_encoding %" PRIu32 " is neither CANONICAL_LE (0) nor MONTGOMERY (1)",
                d.scalar_encoding);
  if (d.flags & SEALPROV_JOB_FIXED_RS) {
    if (d.r == NULL || d.s == NULL)
      return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                  "job->flags has FIXED_RS but job->%s is NULL", d.r == NULL ? "r" : "s");
  } else if (d.r != NULL || d.s != NULL) {
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "job->%s is set without SEALPROV_JOB_FIXED_RS: fixed r/s remove the proofs' "
                "zero-knowledge, so they need the explicit flag",
                d.r != NULL ? "r" : "s");
  }
  const uint64_t all = all_devices(s);
  if (d.device_mask & ~all) {
    unsigned bad = (unsigned)__builtin_ctzll(d.device_mask & ~all);
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "job->device_mask 0x%" PRIx64 " names device %u, but this provider has %u "
                "device%s (indexes 0 to %u, as devices() lists them)",
                d.device_mask, bad, s->ndev, s->ndev == 1 ? "" : "s", s->ndev - 1);
  }
  struct sp_cs *cs = (struct sp_cs *)d.cs;
  if (cs != NULL && s->hooks.check_cs == NULL)
    return fail(err, errlen, SEALPROV_ERR_UNSUPPORTED,
                "job->cs is set, but this provider has no witness-only proving");
  if (cs != NULL) {
    for (uint32_t i = 0; i < d.num_partitions; i++) {
      char msg[512] = "";
      int st = s->hooks.check_cs(srs, cs, &d.partitions[i], msg, sizeof msg);
      if (st != SEALPROV_OK)
        return fail(err, errlen, st, "partition %" PRIu32 ": %s", i, msg);
    }
  } else if (s->hooks.check_assignment != NULL) {
    for (uint32_t i = 0; i < d.num_partitions; i++) {
      char msg[384] = "";
      int st = s->hooks.check_assignment(srs, &d.partitions[i], msg, sizeof msg);
      if (st != SEALPROV_OK)
        return fail(err, errlen, st, "partition %" PRIu32 ": %s", i, msg);
    }
  }

  sp_job *j = calloc(1, sizeof *j);
  sp_task_rec *tasks = j ? calloc(d.num_partitions, sizeof *tasks) : NULL;
  if (tasks == NULL) {
    free(j);
    return fail(err, errlen, SEALPROV_ERR_NO_MEMORY, "submit: no memory for %" PRIu32 " tasks",
                d.num_partitions);
  }
  j->desc = d;
  j->srs = srs;
  j->cs = cs;
  j->allowed = d.device_mask != 0 ? d.device_mask : all;
  j->tasks = tasks;
  int st = draw_rs(&d, tasks, err, errlen);
  if (st != SEALPROV_OK) {
    job_free(j);
    return st;
  }
  /* The caller's r/s no longer matter: the job keeps its decoded copies only. */
  j->desc.r = j->desc.s = NULL;
  for (uint32_t i = 0; i < d.num_partitions; i++) {
    tasks[i].job = j;
    tasks[i].partition = i;
    tasks[i].device = -1;
    tasks[i].status = -1;
  }

  pthread_mutex_lock(&s->mu);
  if (s->closing) {
    st = fail(err, errlen, SEALPROV_ERR_SHUTDOWN, "submit: the provider is closing");
  } else if (healthy_devices(s) == 0) {
    char why[1024];
    no_device_detail(s, why, sizeof why);
    st = fail(err, errlen, SEALPROV_ERR_NO_DEVICE, "submit: %s", why);
  } else if (healthy_in(s, j->allowed) == 0) {
    char why[900];
    stranded_detail(s, j->allowed, true, why, sizeof why);
    st = fail(err, errlen, SEALPROV_ERR_NO_DEVICE, "submit: %s", why);
  } else if (s->cfg.max_jobs > 0 && s->active_jobs >= s->cfg.max_jobs) {
    st = fail(err, errlen, SEALPROV_ERR_QUEUE_FULL,
              "submit: %zu jobs are queued or running (max_jobs = %u in %s)", s->active_jobs,
              s->cfg.max_jobs, s->cfg.path);
  } else if (s->cfg.max_partitions > 0 && s->queued + d.num_partitions > s->cfg.max_partitions) {
    st = fail(err, errlen, SEALPROV_ERR_QUEUE_FULL,
              "submit: %zu partitions queued + %" PRIu32 " would exceed max_partitions = %u in %s",
              s->queued, d.num_partitions, s->cfg.max_partitions, s->cfg.path);
  }
  if (st != SEALPROV_OK) {
    pthread_mutex_unlock(&s->mu);
    job_free(j);
    return st;
  }
  if (s->hooks.srs_retain != NULL) s->hooks.srs_retain(srs);
  if (cs != NULL && s->hooks.cs_retain != NULL) s->hooks.cs_retain(cs);
  j->id = s->next_id++;
  j->seq = s->next_seq++;
  j->t_submit = sp_now();
  j->remaining = d.num_partitions;
  j->next = s->jobs;
  if (s->jobs) s->jobs->prev = j;
  s->jobs = j;
  s->active_jobs++;
  s->jobs_submitted++;
  for (uint32_t i = 0; i < d.num_partitions; i++) {
    queue_insert(s, &tasks[i]);
    sp_sched_timeline_add(s, SP_TL_QUEUED, j->id, i, -1, -1, 0, SEALPROV_OK);
  }
  *id = j->id;
  char where[600] = "";
  if (d.device_mask != 0) device_list(s, j->allowed, where, sizeof where);
  sealprov_job_id new_id = j->id;
  pthread_cond_broadcast(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  /* j may be gone now (a fast job can end and be reaped): only the copies. */
  if (where[0])
    SLOG(s, SEALPROV_LOG_DEBUG, "job %" PRIu64 ": %" PRIu32 " partition(s) restricted to %s",
         new_id, d.num_partitions, where);
  return SEALPROV_OK;
}

int sp_sched_wait(sp_sched *s, sealprov_job_id id, int64_t timeout_ms, char *err, size_t errlen) {
  if (s == NULL) return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "wait: NULL provider");
  if (sp_sched_on_callback_thread(s))
    return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                "wait() called from an on_complete/on_inputs_released callback: callbacks "
                "must not wait (the job would wait for its own callback)");
  struct timespec deadline;
  if (timeout_ms >= 0) {
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += (time_t)(timeout_ms / 1000);
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000L;
    }
  }
  pthread_mutex_lock(&s->mu);
  sp_job *j = job_find(s, id);
  if (j == NULL || j->reaped) {
    pthread_mutex_unlock(&s->mu);
    return fail(err, errlen, SEALPROV_ERR_NOT_FOUND,
                "wait: no job %" PRIu64 " (never submitted, already waited on, or detached "
                "and finished)",
                id);
  }
  if (j->desc.flags & SEALPROV_JOB_DETACHED) {
    pthread_mutex_unlock(&s->mu);
    return fail(err, errlen, SEALPROV_ERR_NOT_FOUND,
                "wait: job %" PRIu64 " was submitted DETACHED: it cannot be waited on", id);
  }
  j->waiters++;
  s->wait_calls++;
  while (!j->notified && !j->reaped) {
    if (timeout_ms < 0) {
      pthread_cond_wait(&s->job_cv, &s->mu);
    } else if (pthread_cond_timedwait(&s->job_cv, &s->mu, &deadline) == ETIMEDOUT) {
      break;
    }
  }
  int st;
  if (j->reaped) {
    st = fail(err, errlen, SEALPROV_ERR_NOT_FOUND,
              "wait: job %" PRIu64 " was collected by another wait() call", id);
  } else if (!j->notified) {
    st = fail(err, errlen, SEALPROV_ERR_TIMEOUT,
              "wait: job %" PRIu64 " still running after %" PRId64 " ms (%" PRIu32 " of %" PRIu32
              " partitions left); it goes on",
              id, timeout_ms, j->remaining, j->desc.num_partitions);
  } else {
    j->reaped = true;
    job_unlink(s, j);
    st = j->status;
    if (st != SEALPROV_OK) fail(err, errlen, st, "%s", j->err);
  }
  j->waiters--;
  if (j->reaped && j->waiters == 0) job_free(j);
  s->wait_calls--;
  if (s->wait_calls == 0 && s->closing) pthread_cond_broadcast(&s->job_cv);
  pthread_mutex_unlock(&s->mu);
  return st;
}

int sp_sched_cancel(sp_sched *s, sealprov_job_id id, char *err, size_t errlen) {
  if (s == NULL) return fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "cancel: NULL provider");
  pthread_mutex_lock(&s->mu);
  sp_job *j = job_find(s, id);
  if (j == NULL || j->reaped) {
    pthread_mutex_unlock(&s->mu);
    return fail(err, errlen, SEALPROV_ERR_NOT_FOUND,
                "cancel: no job %" PRIu64 " (never submitted, or already waited on)", id);
  }
  if (!j->ended) {
    j->cancelled = true;
    for (uint32_t i = 0; i < j->desc.num_partitions && !j->ended; i++) {
      sp_task_rec *t = &j->tasks[i];
      if (!t->queued) continue;
      queue_remove(s, t);
      end_task(s, t, SEALPROV_ERR_CANCELLED,
               "partition %" PRIu32 " of job %" PRIu64 ": cancelled before it ran", i, j->id);
    }
  }
  pthread_mutex_unlock(&s->mu);
  return SEALPROV_OK;
}

/* ---- device table, stats ---------------------------------------------------------- */

static int device_state(const sp_sched *s, const sp_device_rt *d) {
  if (d->quarantined) return SEALPROV_DEVICE_QUARANTINED;
  if (s->stopping) return SEALPROV_DEVICE_STOPPED;
  return atomic_load(&d->executing) > 0 ? SEALPROV_DEVICE_BUSY : SEALPROV_DEVICE_READY;
}

static void copy_str(char *dst, size_t cap, const char *src) {
  snprintf(dst, cap, "%s", src ? src : "");
}

int sp_sched_devices(sp_sched *s, sealprov_device_info *out, size_t cap, size_t *count) {
  if (s == NULL || count == NULL || (out == NULL && cap > 0)) return SEALPROV_ERR_INVALID_ARGUMENT;
  size_t stride = sizeof(sealprov_device_info);
  /* An older host may have a smaller entry; it says so in out[0].struct_size. */
  if (cap > 0 && out[0].struct_size > 0 && out[0].struct_size < stride)
    stride = out[0].struct_size;
  pthread_mutex_lock(&s->mu);
  *count = s->ndev;
  for (size_t i = 0; i < cap && i < s->ndev; i++) {
    const sp_device_rt *d = &s->devs[i];
    sealprov_device_info e;
    memset(&e, 0, sizeof e);
    e.struct_size = (uint32_t)stride;
    e.index = (int32_t)i;
    copy_str(e.section, sizeof e.section, d->cfg.section);
    copy_str(e.type, sizeof e.type, d->cfg.type == SP_DEVICE_CUDA ? "cuda" : "cpu");
    copy_str(e.name, sizeof e.name, d->cfg.name[0] ? d->cfg.name : d->eng->name);
    copy_str(e.uuid, sizeof e.uuid, d->cfg.uuid);
    copy_str(e.pci_bus_id, sizeof e.pci_bus_id, d->cfg.pci_bus_id);
    e.ordinal = d->cfg.type == SP_DEVICE_CUDA ? d->cfg.ordinal : -1;
    e.confirmed_ordinal = d->confirmed_ordinal;
    e.workers = d->nworkers;
    e.state = device_state(s, d);
    e.tasks_done = d->tasks_done;
    e.tasks_failed = d->failures;
    e.memory_limit = d->cfg.memory_limit;
    e.busy_seconds = d->busy_s;
    e.lock_wait_seconds = d->lock_wait_s;
    /* ABI 1.2: what the device's first worker found at start (pool.c, topo.h) */
    e.numa_node = d->cfg.topo_numa_node;
    e.bound_cpus = d->cfg.bound_cpus;
    e.pcie_gen = d->cfg.pcie_gen;
    e.pcie_width = d->cfg.pcie_width;
    e.pcie_max_gen = d->cfg.pcie_max_gen;
    e.pcie_max_width = d->cfg.pcie_max_width;
    memcpy((char *)out + i * stride, &e, stride);
  }
  pthread_mutex_unlock(&s->mu);
  return SEALPROV_OK;
}

/* Prometheus label values escape backslash, quote and newline. */
static void sb_label(sbuf *b, const char *v) {
  for (; *v; v++) {
    if (*v == '\\' || *v == '"')
      sb_printf(b, "\\%c", *v);
    else if (*v == '\n')
      sb_printf(b, "\\n");
    else
      sb_printf(b, "%c", *v);
  }
}

typedef struct dev_snapshot {
  uint64_t tasks_done, failures, memory;
  double busy_s, lock_wait_s;
  int state;
  unsigned workers;
  uint64_t host_pinned;
} dev_snapshot;

int sp_sched_stats(sp_sched *s, char *buf, size_t cap, size_t *len) {
  if (s == NULL || (buf == NULL && cap > 0)) return SEALPROV_ERR_INVALID_ARGUMENT;
  dev_snapshot snap[SP_MAX_DEVICES];
  pthread_mutex_lock(&s->mu);
  for (unsigned i = 0; i < s->ndev; i++) {
    const sp_device_rt *d = &s->devs[i];
    snap[i] = (dev_snapshot){d->tasks_done, d->failures, 0, d->busy_s, d->lock_wait_s,
                             device_state(s, d), d->nworkers, 0};
  }
  size_t queued = s->queued, active = s->active_jobs;
  uint64_t submitted = s->jobs_submitted, ok = s->jobs_ok, failed = s->jobs_failed,
           requeues = s->requeues;
  pthread_mutex_unlock(&s->mu);
  /* Engines keep their own memory counters; asking them outside s->mu keeps a slow
   * engine from stalling the workers. */
  for (unsigned i = 0; i < s->ndev; i++) {
    const sp_device_rt *d = &s->devs[i];
    snap[i].memory = d->eng->memory_in_use ? d->eng->memory_in_use(d->handle) : 0;
    snap[i].host_pinned = d->eng->host_memory_in_use ? d->eng->host_memory_in_use(d->handle) : 0;
  }

  static const struct {
    const char *name, *type, *help;
  } m[] = {
      {"sealprov_device_tasks_total", "counter", "Partitions proved on the device."},
      {"sealprov_device_failures_total", "counter",
       "Failed attempts on the device (device errors and failed self-checks)."},
      {"sealprov_device_busy_seconds_total", "counter",
       "Time spent in the device section (device lock held)."},
      {"sealprov_device_lock_wait_seconds_total", "counter",
       "Time workers waited for the device lock."},
      {"sealprov_device_quarantined", "gauge", "1 if the device is quarantined."},
      {"sealprov_device_memory_bytes", "gauge", "Device memory in use by the engine."},
      {"sealprov_device_host_pinned_bytes", "gauge",
       "Host memory the engine holds page-locked for the device (staging, registered "
       "parameters)."},
      {"sealprov_device_workers", "gauge", "Worker threads bound to the device."},
      {"sealprov_device_state", "gauge",
       "Device state: 0 ready, 1 busy, 2 quarantined, 3 stopped."},
  };
  sbuf b = {0};
  for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
    sb_printf(&b, "# HELP %s %s\n# TYPE %s %s\n", m[k].name, m[k].help, m[k].name, m[k].type);
    for (unsigned i = 0; i < s->ndev; i++) {
      const sp_device_rt *d = &s->devs[i];
      sb_printf(&b, "%s{device=\"%u\",section=\"", m[k].name, i);
      sb_label(&b, d->cfg.section);
      sb_printf(&b, "\",type=\"%s\"} ", d->cfg.type == SP_DEVICE_CUDA ? "cuda" : "cpu");
      switch (k) {
        case 0: sb_printf(&b, "%" PRIu64 "\n", snap[i].tasks_done); break;
        case 1: sb_printf(&b, "%" PRIu64 "\n", snap[i].failures); break;
        case 2: sb_printf(&b, "%.6f\n", snap[i].busy_s); break;
        case 3: sb_printf(&b, "%.6f\n", snap[i].lock_wait_s); break;
        case 4: sb_printf(&b, "%d\n", snap[i].state == SEALPROV_DEVICE_QUARANTINED); break;
        case 5: sb_printf(&b, "%" PRIu64 "\n", snap[i].memory); break;
        case 6: sb_printf(&b, "%" PRIu64 "\n", snap[i].host_pinned); break;
        case 7: sb_printf(&b, "%u\n", snap[i].workers); break;
        default: sb_printf(&b, "%d\n", snap[i].state); break;
      }
    }
  }
  /* The binding itself, as an info metric: what each selector resolved to and what
   * every worker of the device confirmed with cudaGetDevice. */
  sb_printf(&b, "# HELP sealprov_device_info Device binding (value 1): the ordinal the selector "
                "resolved to and the ordinal its workers confirmed.\n"
                "# TYPE sealprov_device_info gauge\n");
  for (unsigned i = 0; i < s->ndev; i++) {
    const sp_device_rt *d = &s->devs[i];
    sb_printf(&b, "sealprov_device_info{device=\"%u\",section=\"", i);
    sb_label(&b, d->cfg.section);
    sb_printf(&b, "\",type=\"%s\",name=\"", d->cfg.type == SP_DEVICE_CUDA ? "cuda" : "cpu");
    sb_label(&b, d->cfg.name);
    sb_printf(&b, "\",uuid=\"");
    sb_label(&b, d->cfg.uuid);
    sb_printf(&b, "\",pci_bus_id=\"");
    sb_label(&b, d->cfg.pci_bus_id);
    sb_printf(&b, "\",ordinal=\"%d\",confirmed_ordinal=\"%d\"} 1\n",
              d->cfg.type == SP_DEVICE_CUDA ? d->cfg.ordinal : -1, d->confirmed_ordinal);
  }
  sb_printf(&b,
            "# HELP sealprov_queue_depth Partitions waiting for a worker.\n"
            "# TYPE sealprov_queue_depth gauge\nsealprov_queue_depth %zu\n"
            "# HELP sealprov_jobs_active Jobs queued or running.\n"
            "# TYPE sealprov_jobs_active gauge\nsealprov_jobs_active %zu\n"
            "# HELP sealprov_jobs_submitted_total Jobs accepted by submit.\n"
            "# TYPE sealprov_jobs_submitted_total counter\nsealprov_jobs_submitted_total %" PRIu64 "\n"
            "# HELP sealprov_jobs_completed_total Jobs ended, by outcome.\n"
            "# TYPE sealprov_jobs_completed_total counter\n"
            "sealprov_jobs_completed_total{outcome=\"ok\"} %" PRIu64 "\n"
            "sealprov_jobs_completed_total{outcome=\"failed\"} %" PRIu64 "\n"
            "# HELP sealprov_partitions_requeued_total Attempts requeued after a device failure.\n"
            "# TYPE sealprov_partitions_requeued_total counter\n"
            "sealprov_partitions_requeued_total %" PRIu64 "\n",
            queued, active, submitted, ok, failed, requeues);
  /* Host memory the module holds for partitions (hostmem.h): per device, in total, its
   * peak, the cap, and how often and how long staging waited for it. */
  sp_hostmem_stats hm;
  sp_hostmem_get(s->hostmem, &hm);
  sb_printf(&b, "# HELP sealprov_device_module_host_bytes Host memory the module holds for the "
                "device's partitions (staging, chunks taken, bounce buffers, witness-only a, b, c).\n"
                "# TYPE sealprov_device_module_host_bytes gauge\n");
  for (unsigned i = 0; i < s->ndev; i++) {
    sb_printf(&b, "sealprov_device_module_host_bytes{device=\"%u\",section=\"", i);
    sb_label(&b, s->devs[i].cfg.section);
    sb_printf(&b, "\"} %" PRIu64 "\n", i < SP_HOSTMEM_DEVICES ? hm.dev[i] : 0);
  }
  sb_printf(&b,
            "# HELP sealprov_module_host_bytes Host memory the module holds for partitions, all "
            "devices and the shared chunk pool's idle chunks.\n"
            "# TYPE sealprov_module_host_bytes gauge\nsealprov_module_host_bytes %" PRIu64 "\n"
            "# HELP sealprov_module_host_peak_bytes Highest sealprov_module_host_bytes.\n"
            "# TYPE sealprov_module_host_peak_bytes gauge\nsealprov_module_host_peak_bytes %" PRIu64
            "\n"
            "# HELP sealprov_module_host_limit_bytes [provider] host_memory_limit (0: none).\n"
            "# TYPE sealprov_module_host_limit_bytes gauge\nsealprov_module_host_limit_bytes %" PRIu64
            "\n"
            "# HELP sealprov_module_host_waits_total Partitions whose staging waited for host "
            "memory under the limit.\n"
            "# TYPE sealprov_module_host_waits_total counter\nsealprov_module_host_waits_total %" PRIu64
            "\n"
            "# HELP sealprov_module_host_wait_seconds_total Time staging waited for host memory.\n"
            "# TYPE sealprov_module_host_wait_seconds_total counter\n"
            "sealprov_module_host_wait_seconds_total %.6f\n"
            "# HELP sealprov_module_host_release_errors_total Releases of more host memory than "
            "was counted (a double release: a bug; 0 in a healthy module).\n"
            "# TYPE sealprov_module_host_release_errors_total counter\n"
            "sealprov_module_host_release_errors_total %" PRIu64 "\n",
            hm.total, hm.peak, hm.limit, hm.waits, hm.wait_s, hm.release_errors);
  return sb_deliver(&b, buf, cap, len);
}

/* Every opened device whose engine keeps copies drops its copy of srs or of cs, under
 * that device's lock (no task of it runs meanwhile). */
static void evict_copies(sp_sched *s, const sp_srs *srs, const struct sp_cs *cs) {
  for (unsigned i = 0; s != NULL && i < s->ndev; i++) {
    sp_device_rt *d = &s->devs[i];
    void (*srs_ev)(void *, const struct sp_srs *) = srs ? d->eng->srs_evict : NULL;
    void (*cs_ev)(void *, const struct sp_cs *) = cs ? d->eng->cs_evict : NULL;
    if (!d->opened || (srs_ev == NULL && cs_ev == NULL)) continue;
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

void sp_sched_srs_evict(sp_sched *s, const sp_srs *srs) {
  if (srs != NULL) evict_copies(s, srs, NULL);
}
