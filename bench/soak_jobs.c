/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* soak_jobs.c -- `sealprov soak`'s provider under test (open, close, parameter loads,
 * devices) and its jobs: made from the phase's witnesses, submitted, waited on or
 * cancelled, and checked against the plan, every OK proof verified again. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "circuit.h"
#include "cli.h"
#include "g16_util.h"

#include "soak.h"

/* ---- the provider under test ----------------------------------------------------------- */

bool soak_prov_open(void) {
  sealprov_provider *p = NULL;
  double t0 = sp_cli_now_ms();
  int rc = soak.vt->open(soak.o.ini, &p);
  if (rc != SEALPROV_OK) {
    soak_fail("open %s: %s: %s", soak.o.ini, g16_status_name(rc), soak.vt->last_error());
    return false;
  }
  pthread_mutex_lock(&soak.prov_mu);
  soak.prov = p;
  pthread_mutex_unlock(&soak.prov_mu);
  sp_cli_note("opened %s in %.0f ms", soak.o.ini, sp_cli_now_ms() - t0);
  return true;
}

void soak_prov_close(void) {
  pthread_mutex_lock(&soak.prov_mu);
  if (soak.prov) {
    int rc = soak.vt->close(soak.prov);
    if (rc != SEALPROV_OK) soak_fail("close: %s: %s", g16_status_name(rc), soak.vt->last_error());
  }
  soak.prov = NULL;
  pthread_mutex_unlock(&soak.prov_mu);
}

/* srs_load of the phase's parameters; *ms gets its time. */
sealprov_srs *soak_load_params(const phase_data *pd, double *ms) {
  sealprov_srs *srs = NULL;
  double t0 = sp_cli_now_ms();
  int rc = soak.vt->srs_load(soak.prov, pd->params, &srs);
  *ms = sp_cli_now_ms() - t0;
  if (rc != SEALPROV_OK) {
    soak_fail("srs_load %s: %s: %s", pd->params, g16_status_name(rc), soak.vt->last_error());
    return NULL;
  }
  return srs;
}

/* No device quarantined, none charged a failure: no fault is injected here, so every
 * failure the module saw was an input's, which must charge no device. */
void soak_check_devices(const char *when) {
  sealprov_device_info dev[64];
  size_t n = 0;
  for (size_t i = 0; i < 64; i++) dev[i].struct_size = sizeof dev[i];
  pthread_mutex_lock(&soak.prov_mu);
  int rc = soak.prov ? soak.vt->devices(soak.prov, dev, 64, &n) : SEALPROV_ERR_SHUTDOWN;
  pthread_mutex_unlock(&soak.prov_mu);
  if (rc != SEALPROV_OK) {
    soak_fail("devices() %s: %s", when, g16_status_name(rc));
    return;
  }
  for (size_t i = 0; i < n && i < 64; i++) {
    if (dev[i].state == SEALPROV_DEVICE_QUARANTINED)
      soak_fail("%s: device %s is quarantined (%" PRIu64 " failures)", when, dev[i].section,
                dev[i].tasks_failed);
    else if (dev[i].tasks_failed != 0)
      soak_fail("%s: device %s was charged %" PRIu64 " failures; only inputs were bad", when,
                dev[i].section, dev[i].tasks_failed);
  }
}

/* ---- jobs -------------------------------------------------------------------------------- */
const char *const kind_names[] = {"good", "bad-partition", "cancelled", "close-burst"};

void soak_on_released(void *user, sealprov_job_id id, uint32_t partition) {
  (void)id;
  (void)partition;
  hjob *h = user;
  atomic_fetch_add_explicit(&h->released, 1, memory_order_release);
}

static void on_complete(void *user, sealprov_job_id id, int status) {
  hjob *h = user;
  if (h->id != 0 && id != h->id)
    soak_fail("on_complete: job id %" PRIu64 ", expected %" PRIu64, id, h->id);
  atomic_store(&h->cb_status, status);
  atomic_fetch_add_explicit(&h->callbacks, 1, memory_order_release);
}

/* A job of n partitions of the phase's witnesses (random, or witness 0 for all when
 * wit0), the one at bad_pos (>= 0) replaced by the bad partition. */
hjob *soak_job_new(const phase_data *pd, tally *t, enum job_kind kind, unsigned n, int bad_pos,
                   int priority, bool wit0, uint64_t *rs) {
  hjob *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->wit = calloc(n, sizeof *h->wit);
  h->asg = calloc(n, sizeof *h->asg);
  h->proofs = calloc(n, SEALPROV_PROOF_BYTES);
  h->res = calloc(n, sizeof *h->res);
  if (!h->wit || !h->asg || !h->proofs || !h->res) {
    free(h->wit);
    free(h->asg);
    free(h->proofs);
    free(h->res);
    free(h);
    return NULL;
  }
  h->kind = kind;
  h->n = n;
  h->bad_pos = bad_pos;
  h->pd = pd;
  h->t = t;
  for (unsigned i = 0; i < n; i++) {
    h->wit[i] = wit0 ? 0 : soak_below(rs, pd->nwit);
    h->asg[i] = (int)i == bad_pos ? pd->bad : pd->wit[h->wit[i]]->asg;
    if ((int)i == bad_pos) h->wit[i] = 0; /* the bad partition is witness 0's with one c changed */
    h->res[i].status = -1;
  }
  h->job.struct_size = sizeof h->job;
  h->job.flags = kind == K_BURST ? SEALPROV_JOB_DETACHED : 0;
  h->job.partitions = h->asg;
  h->job.num_partitions = n;
  h->job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  h->job.priority = priority;
  h->job.proofs_out = h->proofs;
  h->job.results = h->res;
  h->job.on_complete = on_complete;
  h->job.user = h;
  atomic_init(&h->callbacks, 0);
  atomic_init(&h->cb_status, -1);
  atomic_init(&h->released, 0);
  return h;
}

void soak_job_free(hjob *h) {
  if (!h) return;
  free(h->wit);
  free(h->asg);
  free(h->proofs);
  free(h->res);
  free(h);
}

static void count_status(tally *t, int st) {
  atomic_fetch_add(&t->by_status[st >= 0 && st < SEALPROV_STATUS_COUNT_ ? st : NSTATUS - 1], 1);
}

/* Submits with the current parameter handle (held while submit takes its reference).
 * A refusal is the job's end: for a bad-partition job, ASSIGNMENT naming it is right. */
bool soak_job_submit(hjob *h) {
  tally *t = h->t;
  atomic_fetch_add(&t->jobs, 1);
  atomic_fetch_add(&t->parts_submitted, h->n);
  if (h->kind == K_BAD) atomic_fetch_add(&t->bad_jobs, 1);
  if (h->kind == K_CANCEL) atomic_fetch_add(&t->cancel_jobs, 1);
  if (h->kind == K_BURST) atomic_fetch_add(&t->burst, 1);
  pthread_rwlock_rdlock(&soak.srs_lock);
  h->job.srs = soak.srs;
  int rc = soak.vt->submit(soak.prov, &h->job, &h->id);
  pthread_rwlock_unlock(&soak.srs_lock);
  if (rc == SEALPROV_OK) return true;
  const char *why = soak.vt->last_error();
  atomic_fetch_add(&t->ended, 1);
  atomic_fetch_add(&t->refused, 1);
  count_status(t, rc);
  char want[32];
  snprintf(want, sizeof want, "partition %d", h->bad_pos);
  if (h->kind == K_BAD && rc == SEALPROV_ERR_ASSIGNMENT && strstr(why, want)) {
    atomic_fetch_add(&t->bad_caught, 1);
    return false;
  }
  soak_fail("%s job of %u partitions refused at submit: %s: %s", kind_names[h->kind], h->n,
            g16_status_name(rc), why);
  return false;
}

/* Verifies partition i's proof with the phase's .vk on the verifier. */
static bool verify_partition(const hjob *h, unsigned i) {
  const sealprov_assignment *a = &h->pd->wit[h->wit[i]]->asg;
  int valid = -1;
  int rc = soak.vt->verify(soak.vprov, h->pd->vkh,
                           (const uint8_t *)a->inp_assignment + SEALPROV_SCALAR_BYTES,
                           a->inp_size - 1, SEALPROV_SCALAR_CANONICAL_LE,
                           h->proofs + (size_t)i * SEALPROV_PROOF_BYTES, &valid);
  if (rc == SEALPROV_OK && valid == 1) return true;
  soak_fail("%s job %" PRIu64
            " partition %u: status OK but the proof does not verify (verify: %s, "
            "valid %d: %s)",
            kind_names[h->kind], h->id, i, g16_status_name(rc), valid,
            rc != SEALPROV_OK ? soak.vt->last_error() : "pairing check failed");
  return false;
}

/* Checks an ended job against the plan. status: what wait() said (or on_complete for
 * DETACHED jobs); closing: it was in flight at close(). */
void soak_job_check(hjob *h, int status, bool closing) {
  tally *t = h->t;
  atomic_fetch_add(&t->ended, 1);
  count_status(t, status);
  int cbs = atomic_load_explicit(&h->callbacks, memory_order_acquire);
  if (cbs != 1)
    soak_fail("%s job %" PRIu64 ": on_complete called %d times", kind_names[h->kind], h->id, cbs);
  else if (atomic_load(&h->cb_status) != status)
    soak_fail("%s job %" PRIu64 ": on_complete said %s, wait() said %s", kind_names[h->kind], h->id,
              g16_status_name(atomic_load(&h->cb_status)), g16_status_name(status));
  if (status == SEALPROV_OK) atomic_fetch_add(&t->ok, 1);
  unsigned ok = 0, verified = 0;
  for (unsigned i = 0; i < h->n; i++) {
    int ps = h->res[i].status;
    bool is_bad = (int)i == h->bad_pos;
    if (ps == SEALPROV_OK) {
      ok++;
      if (is_bad)
        soak_fail("%s job %" PRIu64 ": the bad partition %u ended OK", kind_names[h->kind], h->id,
                  i);
      else if (verify_partition(h, i))
        verified++;
      else
        atomic_fetch_add(&t->parts_invalid, 1);
      continue;
    }
    if (ps == SEALPROV_ERR_CANCELLED) atomic_fetch_add(&t->parts_cancelled, 1);
    if (ps == SEALPROV_ERR_SHUTDOWN) atomic_fetch_add(&t->parts_shutdown, 1);
    bool expected = (is_bad && ps == SEALPROV_ERR_ASSIGNMENT) ||
                    (h->kind == K_CANCEL && ps == SEALPROV_ERR_CANCELLED) ||
                    (closing && ps == SEALPROV_ERR_SHUTDOWN);
    if (!expected)
      soak_fail("%s job %" PRIu64 " (job status %s) partition %u%s: status %s", kind_names[h->kind],
                h->id, g16_status_name(status), i, is_bad ? " (the bad one)" : "",
                ps < 0 ? "none (never ended?)" : g16_status_name(ps));
  }
  atomic_fetch_add(&t->parts_ok, ok);
  atomic_fetch_add(&t->parts_verified, verified);
  atomic_fetch_add(&soak.parts_done, h->n);
  bool job_ok;
  switch (h->kind) {
    case K_GOOD: job_ok = status == SEALPROV_OK; break;
    case K_BAD:
      job_ok =
          status == SEALPROV_ERR_ASSIGNMENT && h->res[h->bad_pos].status == SEALPROV_ERR_ASSIGNMENT;
      if (job_ok) {
        char want[32];
        snprintf(want, sizeof want, "partition %d", h->bad_pos);
        if (!strstr(h->err, want))
          soak_fail("bad-partition job %" PRIu64 ": the ASSIGNMENT message does not name %s: %s",
                    h->id, want, h->err);
        atomic_fetch_add(&t->bad_caught, 1);
      }
      break;
    case K_CANCEL:
      job_ok = status == SEALPROV_ERR_CANCELLED || (status == SEALPROV_OK && ok == h->n);
      if (status == SEALPROV_ERR_CANCELLED)
        atomic_fetch_add(&t->cancelled, 1);
      else if (status == SEALPROV_OK)
        atomic_fetch_add(&t->cancel_late, 1);
      break;
    default: /* K_BURST */
      job_ok = status == SEALPROV_OK || status == SEALPROV_ERR_SHUTDOWN;
      if (status == SEALPROV_OK) atomic_fetch_add(&t->burst_ok, 1);
      if (status == SEALPROV_ERR_SHUTDOWN) atomic_fetch_add(&t->burst_shutdown, 1);
      break;
  }
  if (!job_ok)
    soak_fail("%s job %" PRIu64 " of %u partitions%s ended %s: %s", kind_names[h->kind], h->id,
              h->n, closing ? " (in flight at close)" : "", g16_status_name(status),
              h->kind == K_BURST ? "(detached: no detail)" : h->err);
}

int soak_job_wait(hjob *h) {
  int rc = soak.vt->wait(soak.prov, h->id, -1);
  if (rc != SEALPROV_OK) snprintf(h->err, sizeof h->err, "%s", soak.vt->last_error());
  return rc;
}

void soak_job_cancel(hjob *h) {
  int rc = soak.vt->cancel(soak.prov, h->id);
  if (rc == SEALPROV_OK)
    h->cancelled = true;
  else
    soak_fail("cancel of job %" PRIu64 " (not waited on yet): %s: %s", h->id, g16_status_name(rc),
              soak.vt->last_error());
}
