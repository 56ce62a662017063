/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* jobs.c -- the host's calls on jobs (sp_sched.h): submit (checks, blinding factors,
 * queueing), wait and cancel. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "runtime/sched_internal.h"

/* ---- host calls ------------------------------------------------------------------------ */

static sp_job *job_find(sp_sched *s, sealprov_job_id id) {
  for (sp_job *j = s->jobs; j != NULL; j = j->next)
    if (j->id == id) return j;
  return NULL;
}

static int fill_random(void *buf, size_t len, char *err, size_t errlen) {
  int e = sp_random_bytes(buf, len);
  if (e != 0)
    return sched_fail(err, errlen, SEALPROV_ERR_INTERNAL, "getrandom failed: %s", strerror(e));
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
        return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                          "job->r of partition %" PRIu32 " is not a scalar below the group order r",
                          i);
      if (!decode_scalar(&tasks[i].s, job->s + (size_t)i * 32, job->scalar_encoding))
        return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                          "job->s of partition %" PRIu32 " is not a scalar below the group order r",
                          i);
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
#define SP_JOB_MIN_SIZE \
  (offsetof(sealprov_job, proofs_out) + sizeof(((sealprov_job *)0)->proofs_out))

/* The job's fields against the ABI and this provider (what needs no partition read):
 * flags, parameters, counts, encoding, r/s, device mask. */
static int submit_check_job(const sp_sched *s, const sealprov_job *d, char *err, size_t errlen) {
  const uint32_t known = SEALPROV_JOB_FIXED_RS | SEALPROV_JOB_DETACHED;
  if (d->flags & ~known)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                      "job->flags 0x%" PRIx32 " has unknown bits 0x%" PRIx32, d->flags,
                      d->flags & ~known);
  if (d->srs == NULL)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                      "job->srs is NULL: load parameters with srs_load() first");
  const sp_srs *srs = (const sp_srs *)d->srs;
  if (srs->vk_only)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                      "job->srs (%s) is a verifying key from vk_load(): proving needs srs_load()",
                      srs->path ? srs->path : "?");
  if (d->num_partitions == 0)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "job->num_partitions is 0");
  if (s->cfg.max_partitions > 0 && d->num_partitions > s->cfg.max_partitions)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                      "job->num_partitions %" PRIu32 " exceeds max_partitions %u of %s",
                      d->num_partitions, s->cfg.max_partitions, s->cfg.path);
  if (d->partitions == NULL)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "job->partitions is NULL");
  if (d->proofs_out == NULL)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                      "job->proofs_out is NULL (needs 192 x %" PRIu32 " bytes)", d->num_partitions);
  if (d->scalar_encoding != SEALPROV_SCALAR_CANONICAL_LE &&
      d->scalar_encoding != SEALPROV_SCALAR_MONTGOMERY)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                      "job->scalar_encoding %" PRIu32
                      " is neither CANONICAL_LE (0) nor MONTGOMERY (1)",
                      d->scalar_encoding);
  if (d->flags & SEALPROV_JOB_FIXED_RS) {
    if (d->r == NULL || d->s == NULL)
      return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                        "job->flags has FIXED_RS but job->%s is NULL", d->r == NULL ? "r" : "s");
  } else if (d->r != NULL || d->s != NULL) {
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                      "job->%s is set without SEALPROV_JOB_FIXED_RS: fixed r/s remove the proofs' "
                      "zero-knowledge, so they need the explicit flag",
                      d->r != NULL ? "r" : "s");
  }
  const uint64_t all = sched_all_devices(s);
  if (d->device_mask & ~all) {
    unsigned bad = (unsigned)__builtin_ctzll(d->device_mask & ~all);
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                      "job->device_mask 0x%" PRIx64
                      " names device %u, but this provider has %u "
                      "device%s (indexes 0 to %u, as devices() lists them)",
                      d->device_mask, bad, s->ndev, s->ndev == 1 ? "" : "s", s->ndev - 1);
  }
  return SEALPROV_OK;
}

/* Each partition against the parameters: a witness against the constraint system, or a
 * full assignment's sizes (the provider's hooks). */
static int submit_check_partitions(const sp_sched *s, const sealprov_job *d, char *err,
                                   size_t errlen) {
  const sp_srs *srs = (const sp_srs *)d->srs;
  const struct sp_cs *cs = (const struct sp_cs *)d->cs;
  if (cs != NULL && s->hooks.check_cs == NULL)
    return sched_fail(err, errlen, SEALPROV_ERR_UNSUPPORTED,
                      "job->cs is set, but this provider has no witness-only proving");
  if (cs != NULL) {
    for (uint32_t i = 0; i < d->num_partitions; i++) {
      char msg[512] = "";
      int st = s->hooks.check_cs(srs, cs, &d->partitions[i], msg, sizeof msg);
      if (st != SEALPROV_OK)
        return sched_fail(err, errlen, st, "partition %" PRIu32 ": %s", i, msg);
    }
  } else if (s->hooks.check_assignment != NULL) {
    for (uint32_t i = 0; i < d->num_partitions; i++) {
      char msg[384] = "";
      int st = s->hooks.check_assignment(srs, &d->partitions[i], msg, sizeof msg);
      if (st != SEALPROV_OK)
        return sched_fail(err, errlen, st, "partition %" PRIu32 ": %s", i, msg);
    }
  }
  return SEALPROV_OK;
}

/* The job and its tasks, with r and s drawn (or the fixed ones decoded), outside the
 * lock; the devices it may take are `fit`. */
static int submit_make_job(const sealprov_job *d, uint64_t fit, sp_job **out, char *err,
                           size_t errlen) {
  sp_job *j = calloc(1, sizeof *j);
  sp_task_rec *tasks = j ? calloc(d->num_partitions, sizeof *tasks) : NULL;
  if (tasks == NULL) {
    free(j);
    return sched_fail(err, errlen, SEALPROV_ERR_NO_MEMORY,
                      "submit: no memory for %" PRIu32 " tasks", d->num_partitions);
  }
  j->desc = *d;
  j->srs = (sp_srs *)d->srs;
  j->cs = (struct sp_cs *)d->cs;
  j->allowed = fit;
  j->tasks = tasks;
  int st = draw_rs(d, tasks, err, errlen);
  if (st != SEALPROV_OK) {
    sched_job_free(j);
    return st;
  }
  /* The caller's r/s no longer matter: the job keeps its decoded copies only. */
  j->desc.r = j->desc.s = NULL;
  for (uint32_t i = 0; i < d->num_partitions; i++) {
    tasks[i].job = j;
    tasks[i].partition = i;
    tasks[i].device = -1;
    tasks[i].status = -1;
  }
  *out = j;
  return SEALPROV_OK;
}

/* Whether the provider takes j now (s->mu held): not closing, a healthy device it may
 * use, room in the queue. */
static int submit_admit(sp_sched *s, sp_job *j, char *err, size_t errlen) {
  const uint32_t n = j->desc.num_partitions;
  if (s->closing)
    return sched_fail(err, errlen, SEALPROV_ERR_SHUTDOWN, "submit: the provider is closing");
  if (sched_healthy_devices(s) == 0) {
    char why[1024];
    sched_no_device_detail(s, why, sizeof why);
    return sched_fail(err, errlen, SEALPROV_ERR_NO_DEVICE, "submit: %s", why);
  }
  if (sched_healthy_in(s, j->allowed) == 0) {
    char why[900];
    sched_stranded_detail(s, j, true, why, sizeof why);
    return sched_fail(err, errlen, SEALPROV_ERR_NO_DEVICE, "submit: %s", why);
  }
  if (s->cfg.max_jobs > 0 && s->active_jobs >= s->cfg.max_jobs)
    return sched_fail(err, errlen, SEALPROV_ERR_QUEUE_FULL,
                      "submit: %zu jobs are queued or running (max_jobs = %u in %s)",
                      s->active_jobs, s->cfg.max_jobs, s->cfg.path);
  if (s->cfg.max_partitions > 0 && s->queued + n > s->cfg.max_partitions)
    return sched_fail(err, errlen, SEALPROV_ERR_QUEUE_FULL,
                      "submit: %zu partitions queued + %" PRIu32
                      " would exceed max_partitions = %u in %s",
                      s->queued, n, s->cfg.max_partitions, s->cfg.path);
  return SEALPROV_OK;
}

/* j joins the provider (s->mu held): references on its parameters and system, an id,
 * the job list, its tasks in the queue. */
static void submit_enqueue(sp_sched *s, sp_job *j) {
  if (s->hooks.srs_retain != NULL) s->hooks.srs_retain(j->srs);
  if (j->cs != NULL && s->hooks.cs_retain != NULL) s->hooks.cs_retain(j->cs);
  j->id = s->next_id++;
  j->seq = s->next_seq++;
  j->t_submit = sp_now();
  j->remaining = j->desc.num_partitions;
  j->next = s->jobs;
  if (s->jobs) s->jobs->prev = j;
  s->jobs = j;
  s->active_jobs++;
  s->jobs_submitted++;
  for (uint32_t i = 0; i < j->desc.num_partitions; i++) {
    sched_queue_insert(s, &j->tasks[i]);
    sp_sched_timeline_add(s, SP_TL_QUEUED, j->id, i, -1, -1, 0, SEALPROV_OK);
  }
}

int sp_sched_submit(sp_sched *s, const sealprov_job *job, sealprov_job_id *id, char *err,
                    size_t errlen) {
  if (s == NULL || job == NULL || id == NULL)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "submit: NULL %s",
                      s == NULL     ? "provider"
                      : job == NULL ? "job"
                                    : "id");
  *id = 0;
  if (job->struct_size < SP_JOB_MIN_SIZE)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
                      "job->struct_size %" PRIu32
                      " is smaller than the smallest job (%zu bytes, "
                      "up to proofs_out): set it to sizeof(sealprov_job)",
                      job->struct_size, (size_t)SP_JOB_MIN_SIZE);
  sealprov_job d;
  memset(&d, 0, sizeof d);
  memcpy(&d, job, job->struct_size < sizeof d ? job->struct_size : sizeof d);
  int st = submit_check_job(s, &d, err, errlen);
  if (st != SEALPROV_OK) return st;
  /* Only devices with the memory for its partitions take them; none is a refusal now,
   * not a device failure later (placement.c). */
  const sp_srs *srs = (const sp_srs *)d.srs;
  sp_partition_shape shape;
  sp_shape_of_srs(srs, &shape);
  const uint64_t all = sched_all_devices(s);
  const uint64_t wanted = d.device_mask != 0 ? d.device_mask : all;
  const uint64_t fit = wanted & sched_fit_mask(s, &shape);
  if (fit == 0) return sched_capacity_refusal(s, &shape, wanted, "submit", srs->path, err, errlen);
  st = submit_check_partitions(s, &d, err, errlen);
  sp_job *j = NULL;
  if (st == SEALPROV_OK) st = submit_make_job(&d, fit, &j, err, errlen);
  if (st != SEALPROV_OK) return st;

  pthread_mutex_lock(&s->mu);
  st = submit_admit(s, j, err, errlen);
  if (st != SEALPROV_OK) {
    pthread_mutex_unlock(&s->mu);
    sched_job_free(j);
    return st;
  }
  submit_enqueue(s, j);
  *id = j->id;
  char where[600] = "";
  if (fit != all) sched_device_list(s, j->allowed, where, sizeof where);
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
  if (s == NULL)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "wait: NULL provider");
  if (sp_sched_on_callback_thread(s))
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT,
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
    return sched_fail(err, errlen, SEALPROV_ERR_NOT_FOUND,
                      "wait: no job %" PRIu64
                      " (never submitted, already waited on, or detached "
                      "and finished)",
                      id);
  }
  if (j->desc.flags & SEALPROV_JOB_DETACHED) {
    pthread_mutex_unlock(&s->mu);
    return sched_fail(err, errlen, SEALPROV_ERR_NOT_FOUND,
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
    st = sched_fail(err, errlen, SEALPROV_ERR_NOT_FOUND,
                    "wait: job %" PRIu64 " was collected by another wait() call", id);
  } else if (!j->notified) {
    st = sched_fail(err, errlen, SEALPROV_ERR_TIMEOUT,
                    "wait: job %" PRIu64 " still running after %" PRId64 " ms (%" PRIu32
                    " of %" PRIu32 " partitions left); it goes on",
                    id, timeout_ms, j->remaining, j->desc.num_partitions);
  } else {
    j->reaped = true;
    sched_job_unlink(s, j);
    st = j->status;
    if (st != SEALPROV_OK) sched_fail(err, errlen, st, "%s", j->err);
  }
  j->waiters--;
  if (j->reaped && j->waiters == 0) sched_job_free(j);
  s->wait_calls--;
  if (s->wait_calls == 0 && s->closing) pthread_cond_broadcast(&s->job_cv);
  pthread_mutex_unlock(&s->mu);
  return st;
}

int sp_sched_cancel(sp_sched *s, sealprov_job_id id, char *err, size_t errlen) {
  if (s == NULL)
    return sched_fail(err, errlen, SEALPROV_ERR_INVALID_ARGUMENT, "cancel: NULL provider");
  pthread_mutex_lock(&s->mu);
  sp_job *j = job_find(s, id);
  if (j == NULL || j->reaped) {
    pthread_mutex_unlock(&s->mu);
    return sched_fail(err, errlen, SEALPROV_ERR_NOT_FOUND,
                      "cancel: no job %" PRIu64 " (never submitted, or already waited on)", id);
  }
  if (!j->ended) {
    j->cancelled = true;
    for (uint32_t i = 0; i < j->desc.num_partitions && !j->ended; i++) {
      sp_task_rec *t = &j->tasks[i];
      if (!t->queued) continue;
      sched_queue_remove(s, t);
      sched_end_task(s, t, SEALPROV_ERR_CANCELLED,
                     "partition %" PRIu32 " of job %" PRIu64 ": cancelled before it ran", i, j->id);
    }
  }
  pthread_mutex_unlock(&s->mu);
  return SEALPROV_OK;
}
