/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* soak_phases.c -- `sealprov soak`'s two phases: the main phase (cycles of open, load,
 * segments of traffic from host threads, close with jobs in flight) and the big phase
 * (sealing-sized jobs, a bad partition, a cancel, reloads, the urgent job). */
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

/* ---- the main phase ------------------------------------------------------------------------- */
typedef struct host_thread {
  unsigned index;
  uint64_t seed;
  pthread_t tid;
} host_thread;

/* Takes up to want partitions of the segment's budget; 0 when it is spent. */
static unsigned take_partitions(unsigned want) {
  pthread_mutex_lock(&soak.seg_mu);
  uint64_t left = soak.seg_budget - soak.seg_taken;
  unsigned n = left < want ? (unsigned)left : want;
  soak.seg_taken += n;
  pthread_cond_broadcast(&soak.seg_cv);
  pthread_mutex_unlock(&soak.seg_mu);
  return n;
}

static void *main_thread(void *arg) {
  host_thread *ht = arg;
  uint64_t rs = ht->seed;
  const phase_data *pd = soak.pd;
  tally *t = &soak.t[PH_MAIN];
  hjob *batch[SOAK_BATCH];
  unsigned nb = 0;
  for (;;) {
    unsigned n = take_partitions(1 + soak_below(&rs, soak.o.max_parts));
    if (n == 0) break;
    unsigned pick = soak_below(&rs, 100);
    enum job_kind kind = pick < soak.o.cancel_pct                    ? K_CANCEL
                         : pick < soak.o.cancel_pct + soak.o.bad_pct ? K_BAD
                                                                     : K_GOOD;
    int bad_pos = kind == K_BAD ? (int)soak_below(&rs, n) : -1;
    /* cancelled jobs wait behind everything, so that they are still queued */
    int prio = kind == K_CANCEL ? INT32_MIN + 1 : (int)soak_below(&rs, 4);
    hjob *h = soak_job_new(pd, t, kind, n, bad_pos, prio, false, &rs);
    if (!h) {
      soak_fail("host thread %u: out of memory for a job", ht->index);
      break;
    }
    if (!soak_job_submit(h)) {
      atomic_fetch_add(&soak.parts_done, n);
      soak_job_free(h);
      continue;
    }
    if (kind == K_CANCEL) soak_job_cancel(h);
    if (soak_below(&rs, 2)) { /* wait now */
      soak_job_check(h, soak_job_wait(h), false);
      soak_job_free(h);
      continue;
    }
    batch[nb++] = h;
    if (nb == SOAK_BATCH || soak_below(&rs, 3) == 0)
      while (nb > 0) { /* newest first */
        hjob *b = batch[--nb];
        soak_job_check(b, soak_job_wait(b), false);
        soak_job_free(b);
      }
  }
  while (nb > 0) {
    hjob *b = batch[--nb];
    soak_job_check(b, soak_job_wait(b), false);
    soak_job_free(b);
  }
  pthread_mutex_lock(&soak.seg_mu);
  soak.seg_live--;
  pthread_cond_broadcast(&soak.seg_cv);
  pthread_mutex_unlock(&soak.seg_mu);
  return NULL;
}

/* The handle jobs take replaced by fresh (NULL: none may take one after), and the old
 * one released while jobs may still hold it. */
static void swap_params(sealprov_srs *fresh) {
  pthread_rwlock_wrlock(&soak.srs_lock);
  sealprov_srs *old = soak.srs;
  soak.srs = fresh;
  pthread_rwlock_unlock(&soak.srs_lock);
  soak.vt->srs_release(old);
}

static void release_params(void) { swap_params(NULL); }

/* srs_load of a new handle, swapped in for the old one. */
static void reload_params(const phase_data *pd, double *ms) {
  sealprov_srs *fresh = soak_load_params(pd, ms);
  if (!fresh) return;
  swap_params(fresh);
  atomic_fetch_add(&soak.t[soak.phase].reloads, 1);
}

/* One segment: T host threads until `budget` partitions are taken; a reload when half
 * of them are. */
static void run_segment(uint64_t budget, uint64_t *rs) {
  pthread_mutex_lock(&soak.seg_mu);
  soak.seg_budget = budget;
  soak.seg_taken = 0;
  soak.seg_live = 0;
  pthread_mutex_unlock(&soak.seg_mu);
  host_thread ht[SOAK_MAX_THREADS];
  unsigned started = 0;
  for (unsigned i = 0; i < soak.o.threads; i++) {
    ht[i].index = i;
    ht[i].seed = soak_rnd(rs) | 1;
    pthread_mutex_lock(&soak.seg_mu);
    soak.seg_live++;
    pthread_mutex_unlock(&soak.seg_mu);
    if (pthread_create(&ht[i].tid, NULL, main_thread, &ht[i]) != 0) {
      pthread_mutex_lock(&soak.seg_mu);
      soak.seg_live--;
      pthread_mutex_unlock(&soak.seg_mu);
      soak_fail("could start only %u of %u host threads", started, soak.o.threads);
      break;
    }
    started++;
  }
  if (soak.o.reload && started > 0) {
    pthread_mutex_lock(&soak.seg_mu);
    /* halfway; or every thread has left (a failure) */
    while (soak.seg_taken < budget / 2 + 1 && soak.seg_taken < budget && soak.seg_live > 0)
      pthread_cond_wait(&soak.seg_cv, &soak.seg_mu);
    pthread_mutex_unlock(&soak.seg_mu);
    double ms = 0;
    reload_params(soak.pd, &ms);
    if (ms > soak.main_load_ms_max) soak.main_load_ms_max = ms;
  }
  for (unsigned i = 0; i < started; i++) pthread_join(ht[i].tid, NULL);
}

/* DETACHED jobs left in flight for close(): checked once close() has returned. */
static void close_with_burst(const phase_data *pd, tally *t, uint64_t *rs) {
  hjob *burst[256];
  unsigned nb = 0;
  for (unsigned i = 0; i < soak.o.burst && i < 256; i++) {
    unsigned n = 1 + soak_below(rs, soak.o.max_parts);
    hjob *h = soak_job_new(pd, t, K_BURST, n, -1, (int)soak_below(rs, 4), false, rs);
    if (!h) {
      soak_fail("out of memory for a burst job");
      break;
    }
    if (soak_job_submit(h))
      burst[nb++] = h;
    else
      soak_job_free(h);
  }
  release_params(); /* while the burst still holds them */
  soak_sample("pre-close");
  soak_prov_close();
  for (unsigned i = 0; i < nb; i++) {
    hjob *h = burst[i];
    if (atomic_load_explicit(&h->callbacks, memory_order_acquire) == 0) {
      soak_fail("close-burst job %" PRIu64 ": no on_complete after close() returned", h->id);
      atomic_fetch_add(&t->ended, 1);
    } else {
      soak_job_check(h, atomic_load(&h->cb_status), true);
    }
    soak_job_free(h);
  }
}

void soak_main_phase(phase_data *pd, uint64_t *rs) {
  const soak_opts *o = &soak.o;
  uint64_t nseg = (uint64_t)o->cycles * o->segments;
  double t0 = sp_cli_now_ms();
  uint64_t done0 = atomic_load(&soak.parts_done);
  soak.pd = pd;
  for (unsigned c = 1; c <= o->cycles; c++) {
    soak_set_where(PH_MAIN, (int)c, 0);
    soak_sample("pre-open");
    if (!soak_prov_open()) return;
    double ms = 0;
    soak.srs = soak_load_params(pd, &ms);
    if (ms > soak.main_load_ms_max) soak.main_load_ms_max = ms;
    soak_sample("loaded");
    if (!soak.srs) {
      soak_prov_close();
      return;
    }
    for (unsigned s = 1; s <= o->segments; s++) {
      uint64_t k = (uint64_t)(c - 1) * o->segments + (s - 1);
      uint64_t budget = o->partitions / nseg + (k < o->partitions % nseg);
      soak_set_where(PH_MAIN, (int)c, (int)s);
      sp_cli_note("main phase: cycle %u of %u, segment %u of %u: %" PRIu64 " partitions", c,
                  o->cycles, s, o->segments, budget);
      run_segment(budget, rs);
      soak_sample("idle");
      soak_check_devices("after a segment");
    }
    soak_set_where(PH_MAIN, (int)c, 0);
    close_with_burst(pd, &soak.t[PH_MAIN], rs);
    soak_sample("closed");
    if (soak_failures() > 100) {
      sp_cli_error("more than 100 failures: the main phase stops here");
      break;
    }
  }
  soak.main_ms = sp_cli_now_ms() - t0;
  uint64_t parts = atomic_load(&soak.parts_done) - done0;
  soak.main_parts_per_s = soak.main_ms > 0 ? (double)parts / (soak.main_ms / 1e3) : 0;
}

/* ---- the big phase ----------------------------------------------------------------------------- */

/* --big-urgent-after K: once K partitions of the stream job h have had their inputs
 * released (the module took them), a 1-partition job of priority 100 goes in; its
 * partition result says how long it waited for a worker (queued_ms: submit -> start),
 * which the design bounds by one partition of the stream. Waits for it to end. */
static void big_urgent(phase_data *pd, tally *t, hjob *h, uint64_t *rs) {
  unsigned k = soak.o.big_urgent_after;
  double t0 = sp_cli_now_ms();
  while (atomic_load_explicit(&h->released, memory_order_acquire) < k &&
         atomic_load_explicit(&h->callbacks, memory_order_acquire) == 0) {
    if (sp_cli_now_ms() - t0 > 600e3) {
      soak_fail("--big-urgent-after %u: the stream job released %u partitions in 600 s", k,
                atomic_load(&h->released));
      return;
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  if (atomic_load_explicit(&h->callbacks, memory_order_acquire) != 0) {
    soak_fail("--big-urgent-after %u: the stream job ended first (%u partitions)", k, h->n);
    return;
  }
  hjob *u = soak_job_new(pd, t, K_GOOD, 1, -1, 100, true, rs);
  if (!u) {
    soak_fail("out of memory for the urgent job");
    return;
  }
  soak.urg_released_at_submit = atomic_load(&h->released);
  double ts = sp_cli_now_ms();
  if (soak_job_submit(u)) {
    soak_job_check(u, soak_job_wait(u), false);
    soak.urg_done_ms = sp_cli_now_ms() - ts;
    soak.urg_ran = true;
    soak.urg = u->res[0];
    soak.urg_id = u->id;
  }
  soak_job_free(u);
}

/* The module's timeline (ABI timeline(): "t=S event=E job=J partition=P ...
 * duration=S" a line) read for the stream job h and the urgent job: the stream's
 * execute events (each partition's time on its device), the urgent job's queued and
 * start events, and the stream partitions that started between those two. */
static void big_urgent_timeline(const hjob *h) {
  size_t len = 0;
  if (soak.vt->timeline(soak.prov, NULL, 0, &len) != SEALPROV_OK || len == 0) return;
  size_t cap = len + 4096, max = h->n ? 4 * (size_t)h->n : 1; /* events may come in between */
  char *buf = malloc(cap);
  double *ex = calloc(max, sizeof *ex), *st = calloc(max, sizeof *st);
  double *vf = calloc(max, sizeof *vf);
  unsigned nex = 0, nst = 0, nvf = 0;
  double tq = -1, tst = -1;
  if (!buf || !ex || !st || !vf || soak.vt->timeline(soak.prov, buf, cap, &len) != SEALPROV_OK)
    goto out;
  for (char *line = buf, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    double t = 0;
    char ev[16] = "";
    uint64_t job = 0;
    if (sscanf(line, "t=%lf event=%15s job=%" SCNu64, &t, ev, &job) != 3) continue;
    const char *d = strstr(line, " duration=");
    if (job == soak.urg_id && !strcmp(ev, "queued") && tq < 0) tq = t;
    if (job == soak.urg_id && !strcmp(ev, "start")) tst = t; /* the last, if it was requeued */
    if (job == h->id && !strcmp(ev, "execute") && d && nex < max)
      ex[nex++] = strtod(d + 10, NULL) * 1e3;
    if (job == h->id && !strcmp(ev, "start") && nst < max) st[nst++] = t;
    /* the self-check after execute: the worker takes its next task after it */
    if (job == h->id && !strcmp(ev, "verify") && d && nvf < max)
      vf[nvf++] = strtod(d + 10, NULL) * 1e3;
  }
  soak.urg_exec_median_ms = sp_cli_median(ex, nex);
  soak.urg_verify_median_ms = sp_cli_median(vf, nvf);
  if (tq >= 0 && tst >= tq) {
    soak.urg_tl = true;
    soak.urg_tl_wait_ms = (tst - tq) * 1e3;
    for (unsigned i = 0; i < nst; i++)
      if (st[i] > tq && st[i] < tst) soak.urg_stream_starts_between++;
  }
  soak.urg_within_exec = nex > 0 && soak.urg.queued_ms <= soak.urg_exec_median_ms;
out:
  free(buf);
  free(ex);
  free(st);
  free(vf);
}

/* The stream's median partition run time (OK partitions), after it ended, and whether
 * the urgent job waited less than that; then the timeline's figures. */
static void big_urgent_stream(const hjob *h) {
  double *v = calloc(h->n ? h->n : 1, sizeof *v);
  unsigned m = 0;
  if (!v) return;
  for (unsigned i = 0; i < h->n; i++)
    if (h->res[i].status == SEALPROV_OK) v[m++] = h->res[i].run_ms;
  soak.urg_stream_run_median_ms = sp_cli_median(v, m);
  free(v);
  soak.urg_within = soak.urg_ran && soak.urg.queued_ms <= soak.urg_stream_run_median_ms;
  if (soak.urg_ran) big_urgent_timeline(h);
}

/* A baseline (what an opened and closed provider leaves: a CUDA context, pools), then
 * the provider opened and the big parameters loaded with every check. False when the
 * provider could not be opened or the set not loaded (closed again then). */
static bool big_open_load(phase_data *pd) {
  soak_sample("pre-open");
  if (!soak_prov_open()) return false;
  soak_sample("baseline-open");
  soak_prov_close();
  soak_sample("baseline-closed");
  if (!soak_prov_open()) return false;
  soak_sample("big-open");
  double ms = 0;
  soak.srs = soak_load_params(pd, &ms);
  soak.big_load_ms = ms;
  struct stat st;
  soak.big_params_gb = stat(pd->params, &st) == 0 ? (double)st.st_size / 1e9 : 0;
  sp_cli_note("big phase: %s loaded in %.1f s (%.2f GB/s)", pd->params, ms / 1e3,
              ms > 0 ? soak.big_params_gb / (ms / 1e3) : 0);
  soak_sample("big-loaded");
  if (!soak.srs) {
    soak_prov_close();
    return false;
  }
  return true;
}

/* Big job number jobno (from 0) of n partitions, submitted: the first with the urgent
 * job beside it (--big-urgent-after), the second with one bad partition and a job
 * behind it cancelled while queued. Waited on and checked; false when out of memory. */
static bool big_job(phase_data *pd, tally *t, unsigned jobno, unsigned n, uint64_t *rs) {
  const soak_opts *o = &soak.o;
  bool bad = jobno == 1 && pd->want_bad;
  hjob *h = soak_job_new(pd, t, bad ? K_BAD : K_GOOD, n, bad ? (int)(n / 2) : -1, 0, true, rs);
  hjob *c = NULL;
  if (!h) {
    soak_fail("out of memory for a job");
    return false;
  }
  bool urgent = jobno == 0 && o->big_urgent_after > 0;
  if (urgent) h->job.on_inputs_released = soak_on_released;
  bool submitted = soak_job_submit(h);
  if (submitted && urgent) big_urgent(pd, t, h, rs);
  if (submitted && jobno == 1 && o->cancel_pct > 0) {
    /* behind it, cancelled while queued */
    c = soak_job_new(pd, t, K_CANCEL, o->big_job, -1, INT32_MIN + 1, true, rs);
    if (c && soak_job_submit(c))
      soak_job_cancel(c);
    else if (c) {
      soak_job_free(c);
      c = NULL;
    }
  }
  if (submitted) {
    soak_job_check(h, soak_job_wait(h), false);
    if (urgent) big_urgent_stream(h);
  } else {
    atomic_fetch_add(&soak.parts_done, n);
  }
  if (c) {
    soak_job_check(c, soak_job_wait(c), false);
    soak_job_free(c);
  }
  sp_cli_note("big phase: job %u (%s, %u partitions) ended", jobno + 1, kind_names[h->kind], n);
  soak_job_free(h);
  return true;
}

/* Released with no job holding it (the set must leave the GPU), then loaded again.
 * False when the load failed. */
static bool big_reload(const phase_data *pd, tally *t) {
  release_params();
  soak_sample("big-released");
  double rms = 0;
  soak.srs = soak_load_params(pd, &rms);
  soak.big_reload_ms = rms;
  atomic_fetch_add(&t->reloads, 1);
  soak_sample("big-reloaded");
  return soak.srs != NULL;
}

/* The jobs of --big-partitions in all, --big-job each, a reload after the second. */
static void big_jobs(phase_data *pd, tally *t, uint64_t *rs) {
  const soak_opts *o = &soak.o;
  uint64_t left = o->big_partitions;
  double tp = sp_cli_now_ms();
  for (unsigned jobno = 0; left > 0; jobno++) {
    soak_set_where(PH_BIG, 0, (int)jobno + 1);
    unsigned n = left < o->big_job ? (unsigned)left : o->big_job;
    if (!big_job(pd, t, jobno, n, rs)) break;
    left -= n;
    soak_sample("big-job");
    soak_check_devices("after a big job");
    if (jobno == 1 && o->reload && !big_reload(pd, t)) break;
  }
  soak.big_prove_ms = sp_cli_now_ms() - tp - soak.big_reload_ms;
  soak.big_parts_proved = atomic_load(&t->parts_ok);
}

/* A second cycle: open, checked load, one job, release, close. What a close leaves is
 * judged against the first close after work, not against the baseline: CUDA loads a
 * kernel's code onto the device at its first launch (lazy module loading), so the
 * first partitions of a process add device memory that stays until the process ends
 * (measured on the H200: 529 -> 669 MiB used after close). A leak grows from one
 * cycle to the next; code loading does not. */
static void big_second_cycle(phase_data *pd, tally *t, uint64_t *rs) {
  const soak_opts *o = &soak.o;
  if (!soak_prov_open()) return;
  soak_sample("big2-open");
  double ms2 = 0;
  soak.srs = soak_load_params(pd, &ms2);
  atomic_fetch_add(&t->reloads, 1);
  soak_sample("big2-loaded");
  if (soak.srs) {
    soak_set_where(PH_BIG, 1, 1);
    hjob *h = soak_job_new(pd, t, K_GOOD, o->big_job, -1, 0, true, rs);
    if (!h)
      soak_fail("out of memory for a job");
    else {
      double t2 = sp_cli_now_ms();
      if (soak_job_submit(h)) soak_job_check(h, soak_job_wait(h), false);
      soak.big_prove_ms += sp_cli_now_ms() - t2;
      sp_cli_note("big phase: second cycle's job (%u partitions) ended", o->big_job);
      soak_job_free(h);
      soak_sample("big-job");
      soak_check_devices("after a big job");
    }
    soak.big_parts_proved = atomic_load(&t->parts_ok);
    release_params();
  }
  soak_set_where(PH_BIG, 0, 0);
  soak_sample("pre-close");
  soak_prov_close();
  soak_sample("big-closed");
}

void soak_big_phase(phase_data *pd, uint64_t *rs) {
  tally *t = &soak.t[PH_BIG];
  soak.pd = pd;
  soak_set_where(PH_BIG, 0, 0);
  if (!big_open_load(pd)) return;
  big_jobs(pd, t, rs);
  release_params();
  soak_set_where(PH_BIG, 0, 0);
  soak_sample("pre-close");
  soak_prov_close();
  soak_sample("big-closed");
  big_second_cycle(pd, t, rs);
}
