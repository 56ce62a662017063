/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_soak.c -- a soak of the built module as a host drives it (issue 13, item 6).
 *
 * 1,000 jobs (SEALPROV_SOAK_JOBS; fewer by default under ASan/TSan) from 4 host threads
 * on two CPU devices, through dlopen and the vtable only. Jobs of 1 to 3 partitions of
 * a tiny circuit, with
 *  - random cancels (right after submit, or after a short delay),
 *  - random bad partitions mixed into otherwise valid jobs: a witness that does not
 *    satisfy (one c[i] changed), input 0 that is not ONE, and a satisfying partition of
 *    another setup whose sizes are the same (so that only the proof's self-check can
 *    tell),
 *  - priorities that change from job to job and drift per thread over time,
 *  - every way a host learns the end of a job: wait(-1) right after submit, wait with
 *    a short timeout polled until the job ends, a batch submitted first and waited on
 *    later in another order, and DETACHED jobs known only through on_complete,
 *  - a close() under load at the end: every thread leaves a burst of jobs in flight.
 *
 * Asserts: every job ends with a status, exactly one on_complete per job with the
 * status wait() returns; every valid partition of a job that was not cancelled has
 * a proof that verifies (vtable verify, on a second provider); a partition that ends
 * OK verifies whatever happened to its job; a bad partition never ends OK and its
 * job ends with ASSIGNMENT (unless cancelled first); no device is quarantined or
 * charged a failure by the bad partitions; after close() every job still in flight
 * has ended, with its callback. Leaks and races are the sanitizers' part: this test
 * is in SAN_TESTS (ASan+LSan, TSan) and dev/soak.sh runs it under valgrind.
 *
 * Environment: SEALPROV_SOAK_JOBS (jobs in the main phase, split over the 4 threads),
 * SEALPROV_SOAK_SEED (the random seed; printed at the start so that a run can be
 * repeated), SEALPROV_SOAK_BAD_PERCENT (jobs with a bad partition, default 15),
 * SEALPROV_SOAK_VERBOSE=1 (a line per job), SEALPROV_SOAK_INI (an INI of the caller's
 * instead of two CPU devices: dev/soak.sh uses it for GPUs with fault injection) and
 * SEALPROV_SOAK_FAULTY (the section of the device that [testing] faults: only that
 * one may be charged failures or quarantined). */
#include <config.h>

#include <check.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "circuit.h"
#include "sealprov.h"
#include "spa.h"

#define NTHREADS 4
#define NGOOD 6     /* valid partitions of setup A */
#define MAXPARTS 3  /* partitions per job */
#define BATCH_MAX 6 /* jobs a batch thread keeps in flight before waiting */
#define BURST 8     /* jobs per thread left in flight for close() */
#define CONSTRAINTS 128
#define INPUTS 2
/* Setup B: another circuit with exactly the sizes of setup A (abc_size, inp_size,
 * aux_size and every density popcount), found by searching seeds; see find_twin(). */
#define SEED_A 1
#define SEED_B_HINT 3475

#if defined(__SANITIZE_THREAD__)
#define DEFAULT_JOBS 120
#elif defined(__SANITIZE_ADDRESS__)
#define DEFAULT_JOBS 300
#else
#define DEFAULT_JOBS 1000
#endif

enum bad_kind { BAD_NONE = 0, BAD_UNSAT, BAD_NOT_ONE, BAD_FOREIGN, BAD_KINDS };
static const char *const bad_names[BAD_KINDS] = {"valid", "unsatisfied", "input0-not-ONE",
                                                 "foreign-setup"};

static const sealprov_vtable *vt;
static void *dl;
static char tmp_root[256], params_a[400], vk_a[400], ini_path[400], vini_path[400];
static sp_spa *good[NGOOD], *foreign;
static sealprov_assignment bad_asg[BAD_KINDS];
static uint8_t *unsat_c, *notone_inp;
static uint64_t unsat_row;

static sealprov_provider *prov; /* under test */
static sealprov_srs *srs;
static sealprov_provider *vprov; /* a second provider: verifies every proof */
static sealprov_srs *vk;

/* ---- failures from any thread ------------------------------------------------------ */
static pthread_mutex_t fail_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned failures;
static bool verbose;
static unsigned bad_percent = 15; /* jobs with a bad partition, SEALPROV_SOAK_BAD_PERCENT */
static const char *faulty = "";   /* SEALPROV_SOAK_FAULTY */

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failf(const char *fmt, ...) {
  pthread_mutex_lock(&fail_mu);
  if (failures++ < 40) {
    va_list ap;
    va_start(ap, fmt);
    fputs("test_soak: FAIL: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
  }
  pthread_mutex_unlock(&fail_mu);
}

static void die(const char *what, const char *detail) {
  fprintf(stderr, "test_soak: %s: %s\n", what, detail);
  exit(EXIT_FAILURE);
}

/* Valid UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF). */
static bool utf8_valid(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p++;
    if (c < 0x80) continue;
    int n;
    unsigned min, cp;
    if ((c & 0xe0) == 0xc0)
      n = 1, min = 0x80, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0)
      n = 2, min = 0x800, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0)
      n = 3, min = 0x10000, cp = c & 0x07;
    else
      return false;
    for (int i = 0; i < n; i++) {
      if ((*p & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (*p++ & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  }
  return true;
}

/* ---- random numbers (xorshift64*, one state per thread) ----------------------------- */
static uint64_t rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * UINT64_C(0x2545F4914F6CDD1D);
}
static unsigned below(uint64_t *s, unsigned n) { return (unsigned)(rnd(s) % n); }

/* ---- one job as the host keeps it ----------------------------------------------------- */
enum wait_mode { W_WAIT, W_POLL, W_BATCH, W_DETACHED, W_CLOSE, W_MODES };
static const char *const mode_names[W_MODES] = {"wait", "poll", "batch", "detached", "close"};

typedef struct host_job {
  sealprov_job job;
  sealprov_assignment asg[MAXPARTS];
  int kind[MAXPARTS];                       /* enum bad_kind of each partition */
  const sealprov_assignment *src[MAXPARTS]; /* the assignment (for its public inputs) */
  uint8_t proofs[MAXPARTS * SEALPROV_PROOF_BYTES];
  sealprov_partition_result res[MAXPARTS];
  unsigned n;
  int bad_pos;    /* -1: every partition valid */
  bool cancelled; /* cancel() was called (and returned OK) */
  enum wait_mode mode;
  sealprov_job_id id;
  _Atomic int callbacks; /* on_complete calls */
  _Atomic int cb_status;
  int status; /* what wait() (or on_complete) said */
  char err[600];
} host_job;

static void on_complete(void *user, sealprov_job_id id, int status) {
  host_job *h = user;
  if (id != h->id && h->id != 0)
    failf("on_complete: job id %" PRIu64 ", expected %" PRIu64, id, h->id);
  atomic_store(&h->cb_status, status);
  atomic_fetch_add_explicit(&h->callbacks, 1, memory_order_release);
}

static void make_job(host_job *h, uint64_t *rs, int priority, enum wait_mode mode) {
  memset(h, 0, sizeof *h);
  h->n = 1 + below(rs, MAXPARTS);
  h->bad_pos = -1;
  if (below(rs, 100) < bad_percent) h->bad_pos = (int)below(rs, h->n);
  for (unsigned i = 0; i < h->n; i++) {
    if ((int)i == h->bad_pos) {
      h->kind[i] = 1 + (int)below(rs, BAD_KINDS - 1);
      h->asg[i] = bad_asg[h->kind[i]];
      h->src[i] = &bad_asg[h->kind[i]];
    } else {
      const sp_spa *g = good[below(rs, NGOOD)];
      h->kind[i] = BAD_NONE;
      h->asg[i] = g->asg;
      h->src[i] = &g->asg;
    }
  }
  h->mode = mode;
  h->job.struct_size = sizeof h->job;
  h->job.flags = mode == W_DETACHED ? SEALPROV_JOB_DETACHED : 0;
  h->job.srs = srs;
  h->job.partitions = h->asg;
  h->job.num_partitions = h->n;
  h->job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  h->job.priority = priority;
  h->job.proofs_out = h->proofs;
  h->job.results = h->res;
  h->job.on_complete = on_complete;
  h->job.user = h;
  for (unsigned i = 0; i < h->n; i++) h->res[i].status = -1;
  atomic_init(&h->callbacks, 0);
  atomic_init(&h->cb_status, -1);
}

/* Tallies, summed over the threads. */
typedef struct tally {
  unsigned jobs, ended, ok, cancelled_jobs, shutdown, bad_jobs, bad_caught;
  unsigned parts_verified, parts_cancelled, submit_refused;
  unsigned by_status[SEALPROV_STATUS_COUNT_ + 1];
  unsigned by_mode[W_MODES];
  unsigned bad_by_kind[BAD_KINDS];
} tally;

static void verify_partition(const host_job *h, unsigned i) {
  const sealprov_assignment *a = h->src[i];
  int valid = -1;
  int rc = vt->verify(vprov, vk, (const uint8_t *)a->inp_assignment + SEALPROV_SCALAR_BYTES,
                      a->inp_size - 1, SEALPROV_SCALAR_CANONICAL_LE,
                      h->proofs + (size_t)i * SEALPROV_PROOF_BYTES, &valid);
  if (rc != SEALPROV_OK || valid != 1)
    failf("job %" PRIu64
          " (%s) partition %u (%s): status OK but the proof does not verify "
          "(verify %s, valid %d: %s)",
          h->id, mode_names[h->mode], i, bad_names[h->kind[i]], vt->strerror(rc), valid,
          vt->last_error());
}

/* Checks one ended job. `status` is what wait() returned (or on_complete for DETACHED
 * and close-burst jobs); `closing`: the job may have ended because of close(). */
static void check_job(host_job *h, int status, bool closing, tally *t) {
  t->ended++;
  if (status >= 0 && status < SEALPROV_STATUS_COUNT_)
    t->by_status[status]++;
  else
    t->by_status[SEALPROV_STATUS_COUNT_]++;
  int cbs = atomic_load_explicit(&h->callbacks, memory_order_acquire);
  if (cbs != 1)
    failf("job %" PRIu64 " (%s): on_complete called %d times", h->id, mode_names[h->mode], cbs);
  else if (atomic_load(&h->cb_status) != status)
    failf("job %" PRIu64 " (%s): on_complete said %d, wait() said %d", h->id, mode_names[h->mode],
          atomic_load(&h->cb_status), status);
  if (!utf8_valid(h->err)) failf("job %" PRIu64 ": message is not valid UTF-8", h->id);
  if (verbose)
    fprintf(stderr, "job %" PRIu64 " %s n=%u bad=%d(%s)%s: %s %s\n", h->id, mode_names[h->mode],
            h->n, h->bad_pos, h->bad_pos >= 0 ? bad_names[h->kind[h->bad_pos]] : "-",
            h->cancelled ? " cancelled" : "", vt->strerror(status), h->err);

  /* Per partition: a status for each; OK ones verify; bad ones never OK. */
  for (unsigned i = 0; i < h->n; i++) {
    int ps = h->res[i].status;
    if (ps < 0 || ps >= SEALPROV_STATUS_COUNT_) {
      failf("job %" PRIu64 " (%s) partition %u: no status (%d)", h->id, mode_names[h->mode], i, ps);
      continue;
    }
    if (ps == SEALPROV_OK) {
      if (h->kind[i] != BAD_NONE)
        failf("job %" PRIu64 " partition %u (%s): a bad partition ended OK", h->id, i,
              bad_names[h->kind[i]]);
      else
        verify_partition(h, i), t->parts_verified++;
    } else if (ps == SEALPROV_ERR_CANCELLED) {
      t->parts_cancelled++;
    }
  }

  bool bad = h->bad_pos >= 0;
  if (bad) t->bad_jobs++, t->bad_by_kind[h->kind[h->bad_pos]]++;
  if (h->cancelled) t->cancelled_jobs++;
  if (status == SEALPROV_OK) t->ok++;
  if (status == SEALPROV_ERR_SHUTDOWN) t->shutdown++;

  if (closing) {
    /* In flight at close(): queued partitions end SHUTDOWN, running ones finish. */
    if (status != SEALPROV_OK && status != SEALPROV_ERR_SHUTDOWN &&
        !(bad && status == SEALPROV_ERR_ASSIGNMENT))
      failf("job %" PRIu64 " (in flight at close, %s): status %s: %s", h->id,
            bad ? bad_names[h->kind[h->bad_pos]] : "valid", vt->strerror(status), h->err);
    for (unsigned i = 0; i < h->n; i++) {
      int ps = h->res[i].status;
      if (ps != SEALPROV_OK && ps != SEALPROV_ERR_SHUTDOWN &&
          !((int)i == h->bad_pos && ps == SEALPROV_ERR_ASSIGNMENT))
        failf("job %" PRIu64 " partition %u (in flight at close, %s): status %s", h->id, i,
              bad_names[h->kind[i]], vt->strerror(ps));
    }
    return;
  }
  if (h->cancelled) {
    /* A cancel that came after every partition ended leaves the job's own status. */
    if (status != SEALPROV_ERR_CANCELLED && status != SEALPROV_OK &&
        !(bad && status == SEALPROV_ERR_ASSIGNMENT))
      failf("job %" PRIu64 " (cancelled, %s): status %s: %s", h->id,
            bad ? bad_names[h->kind[h->bad_pos]] : "valid", vt->strerror(status), h->err);
    if (status == SEALPROV_OK && bad)
      failf("job %" PRIu64 " (cancelled): a job with a bad partition ended OK", h->id);
    return;
  }
  if (!bad) {
    if (status != SEALPROV_OK)
      failf("job %" PRIu64 " (%s, valid, %u partitions): status %s: %s", h->id, mode_names[h->mode],
            h->n, vt->strerror(status), h->err);
    for (unsigned i = 0; i < h->n; i++)
      if (h->res[i].status != SEALPROV_OK)
        failf("job %" PRIu64 " partition %u (valid): status %s", h->id, i,
              vt->strerror(h->res[i].status));
    return;
  }
  /* A job with one bad partition: it ends with ASSIGNMENT, the bad partition too, and
   * every valid partition of it still gets its proof. */
  unsigned b = (unsigned)h->bad_pos;
  if (status != SEALPROV_ERR_ASSIGNMENT)
    failf("job %" PRIu64 " (%s, partition %u of %u is %s): status %s, expected ASSIGNMENT: %s",
          h->id, mode_names[h->mode], b, h->n, bad_names[h->kind[b]], vt->strerror(status), h->err);
  else
    t->bad_caught++;
  if (h->res[b].status != SEALPROV_ERR_ASSIGNMENT)
    failf("job %" PRIu64 " bad partition %u (%s): status %s, expected ASSIGNMENT", h->id, b,
          bad_names[h->kind[b]], vt->strerror(h->res[b].status));
  if (h->mode != W_DETACHED && status == SEALPROV_ERR_ASSIGNMENT) {
    char want[32];
    snprintf(want, sizeof want, "partition %u", b);
    if (strstr(h->err, want) == NULL)
      failf("job %" PRIu64 ": the ASSIGNMENT message does not name %s: %s", h->id, want, h->err);
  }
  for (unsigned i = 0; i < h->n; i++)
    if (i != b && h->res[i].status != SEALPROV_OK)
      failf("job %" PRIu64 " valid partition %u next to bad partition %u (%s): status %s", h->id, i,
            b, bad_names[h->kind[b]], vt->strerror(h->res[i].status));
}

/* Submit; a refusal at submit is the job's end (the cheap checks may run there). */
static bool submit(host_job *h, tally *t) {
  t->jobs++;
  t->by_mode[h->mode]++;
  int rc = vt->submit(prov, &h->job, &h->id);
  if (rc == SEALPROV_OK) return true;
  snprintf(h->err, sizeof h->err, "%s", vt->last_error());
  t->submit_refused++;
  t->ended++;
  if (rc >= 0 && rc < SEALPROV_STATUS_COUNT_) t->by_status[rc]++;
  bool bad = h->bad_pos >= 0;
  if (bad && rc == SEALPROV_ERR_ASSIGNMENT && h->kind[h->bad_pos] != BAD_FOREIGN) {
    char want[32];
    snprintf(want, sizeof want, "partition %d", h->bad_pos);
    if (strstr(h->err, want) == NULL)
      failf("submit refused a %s partition without naming %s: %s", bad_names[h->kind[h->bad_pos]],
            want, h->err);
    t->bad_jobs++, t->bad_caught++, t->bad_by_kind[h->kind[h->bad_pos]]++;
  } else {
    failf("submit (%s, %u partitions, bad %d %s): %s: %s", mode_names[h->mode], h->n, h->bad_pos,
          bad ? bad_names[h->kind[h->bad_pos]] : "-", vt->strerror(rc), h->err);
  }
  if (!utf8_valid(h->err)) failf("submit: message is not valid UTF-8");
  return false;
}

static int wait_job(host_job *h, int64_t timeout_ms) {
  int rc = vt->wait(prov, h->id, timeout_ms);
  if (rc != SEALPROV_OK && rc != SEALPROV_ERR_TIMEOUT)
    snprintf(h->err, sizeof h->err, "%s", vt->last_error());
  return rc;
}

static void maybe_cancel(host_job *h, uint64_t *rs) {
  if (below(rs, 2)) usleep(below(rs, 4000));
  int rc = vt->cancel(prov, h->id);
  if (rc == SEALPROV_OK)
    h->cancelled = true;
  else if (rc == SEALPROV_ERR_NOT_FOUND && h->mode == W_DETACHED && atomic_load(&h->callbacks) > 0)
    ; /* a DETACHED job is freed right after its on_complete: it ended before the cancel */
  else
    failf("cancel of job %" PRIu64 " (not yet waited on): %s: %s", h->id, vt->strerror(rc),
          vt->last_error());
}

typedef struct thread_arg {
  unsigned index, njobs;
  uint64_t seed;
  tally t;
  host_job *burst; /* BURST jobs left in flight for close() */
  unsigned nburst;
  pthread_t tid;
} thread_arg;

static void *host_thread(void *arg) {
  thread_arg *ta = arg;
  tally *t = &ta->t;
  uint64_t rs = ta->seed;
  host_job *batch[BATCH_MAX];
  unsigned nbatch = 0;
  host_job *detached = calloc(ta->njobs, sizeof *detached);
  unsigned ndetached = 0;
  host_job *h1 = malloc(sizeof *h1);
  if (detached == NULL || h1 == NULL) die("thread", "out of memory");
  int base = (int)ta->index;
  for (unsigned k = 0; k < ta->njobs; k++) {
    if (k % 40 == 39) base = (int)below(&rs, 9) - 4; /* the thread's priority drifts */
    int prio = base + (int)below(&rs, 5) - 2;
    unsigned pick = below(&rs, 100);
    enum wait_mode mode = pick < 45   ? W_WAIT
                          : pick < 60 ? W_POLL
                          : pick < 85 ? W_BATCH
                                      : W_DETACHED;
    host_job *h = mode == W_BATCH      ? malloc(sizeof *h)
                  : mode == W_DETACHED ? &detached[ndetached++]
                                       : h1;
    if (h == NULL) die("thread", "out of memory");
    make_job(h, &rs, prio, mode);
    if (!submit(h, t)) {
      if (mode == W_BATCH) free(h);
      continue;
    }
    if (below(&rs, 100) < 12) maybe_cancel(h, &rs);
    if (mode == W_WAIT) {
      int st = wait_job(h, -1);
      check_job(h, st, false, t);
    } else if (mode == W_POLL) {
      int st;
      unsigned polls = 0;
      while ((st = wait_job(h, (int64_t)below(&rs, 3))) == SEALPROV_ERR_TIMEOUT) polls++;
      (void)polls;
      check_job(h, st, false, t);
    } else if (mode == W_BATCH) {
      batch[nbatch++] = h;
      if (nbatch == BATCH_MAX || below(&rs, 4) == 0) {
        /* wait in another order than submitted: newest first */
        while (nbatch > 0) {
          host_job *b = batch[--nbatch];
          int st = wait_job(b, -1);
          check_job(b, st, false, t);
          free(b);
        }
      }
    }
    /* W_DETACHED: checked once its callback has come, below */
  }
  while (nbatch > 0) {
    host_job *b = batch[--nbatch];
    int st = wait_job(b, -1);
    check_job(b, st, false, t);
    free(b);
  }
  /* DETACHED jobs: on_complete is their only news. A second wait() is NOT_FOUND. */
  for (unsigned i = 0; i < ndetached; i++) {
    host_job *h = &detached[i];
    if (h->id == 0) continue; /* refused at submit */
    for (unsigned spins = 0; atomic_load_explicit(&h->callbacks, memory_order_acquire) == 0;
         spins++) {
      if (spins > 600000) {
        failf("detached job %" PRIu64 ": no on_complete after 600 s", h->id);
        break;
      }
      usleep(1000);
    }
    int st = atomic_load(&h->cb_status);
    if (atomic_load(&h->callbacks) > 0) check_job(h, st, false, t);
    if (vt->wait(prov, h->id, 0) != SEALPROV_ERR_NOT_FOUND)
      failf("wait() on detached job %" PRIu64 " did not say NOT_FOUND", h->id);
  }
  free(detached);
  free(h1);
  /* The burst for close(): submitted and left running; half DETACHED. */
  for (unsigned i = 0; i < BURST; i++) {
    host_job *h = &ta->burst[ta->nburst];
    make_job(h, &rs, (int)below(&rs, 5), i % 2 ? W_DETACHED : W_CLOSE);
    if (submit(h, t)) ta->nburst++;
  }
  return NULL;
}

/* ---- setup -------------------------------------------------------------------------- */

static void setup_dir(const char *name, uint64_t seed, uint32_t parts, char *dir, size_t len) {
  char err[512] = "";
  snprintf(dir, len, "%s/%s", tmp_root, name);
  sp_setup_result res;
  sp_setup_opts o = {.constraints = CONSTRAINTS,
                     .inputs = INPUTS,
                     .partitions = parts,
                     .shape = SP_SHAPE_SEALING,
                     .seed = seed,
                     .out_dir = dir,
                     .nthreads = 2};
  if (mkdir(dir, 0700) || sp_setup_run(&o, &res, err, sizeof err)) die("setup", err);
}

static bool same_sizes(const sp_circuit_info *a, const sp_circuit_info *b) {
  return a->abc_size == b->abc_size && a->inp_size == b->inp_size && a->aux_size == b->aux_size &&
         a->a_aux_popcount == b->a_aux_popcount && a->b_inp_popcount == b->b_inp_popcount &&
         a->b_aux_popcount == b->b_aux_popcount;
}

/* A seed whose circuit has exactly setup A's sizes: SEED_B_HINT, or (if the circuit
 * generator has changed) the first such seed found by a bounded search. */
static uint64_t find_twin(void) {
  char err[256];
  sp_circuit *ca = NULL;
  if (sp_circuit_generate(CONSTRAINTS, INPUTS, SP_SHAPE_SEALING, SEED_A, &ca, err, sizeof err))
    die("circuit", err);
  sp_circuit_info ia;
  sp_circuit_info_get(ca, &ia);
  sp_circuit_free(ca);
  for (uint64_t k = 0; k < 40000; k++) {
    uint64_t seed = k == 0 ? SEED_B_HINT : k + 1;
    if (seed == SEED_A) continue;
    sp_circuit *cb = NULL;
    if (sp_circuit_generate(CONSTRAINTS, INPUTS, SP_SHAPE_SEALING, seed, &cb, err, sizeof err))
      continue;
    sp_circuit_info ib;
    sp_circuit_info_get(cb, &ib);
    sp_circuit_free(cb);
    if (same_sizes(&ia, &ib)) {
      if (k != 0)
        fprintf(stderr,
                "test_soak: note: seed %" PRIu64
                " (not %d) gives setup A's sizes now; "
                "update SEED_B_HINT\n",
                seed, SEED_B_HINT);
      return seed;
    }
  }
  die("setup", "no circuit seed below 40000 has the sizes of setup A");
  return 0;
}

static void make_bad_partitions(void) {
  const sealprov_assignment *g = &good[0]->asg;
  /* one c[i] changed: a[i]*b[i] != c[i] on row unsat_row */
  unsat_row = g->abc_size / 3;
  unsat_c = malloc((size_t)g->abc_size * 32);
  if (!unsat_c) die("setup", "out of memory");
  memcpy(unsat_c, g->c, (size_t)g->abc_size * 32);
  uint8_t *cell = unsat_c + unsat_row * 32;
  bool zero = true;
  for (int i = 0; i < 32; i++) zero = zero && cell[i] == 0;
  memset(cell, 0, 32);
  cell[0] = zero ? 1 : 0; /* 0 -> 1, anything else -> 0: both canonical */
  bad_asg[BAD_UNSAT] = *g;
  bad_asg[BAD_UNSAT].c = unsat_c;
  /* input 0 = 2 */
  notone_inp = malloc((size_t)g->inp_size * 32);
  if (!notone_inp) die("setup", "out of memory");
  memcpy(notone_inp, g->inp_assignment, (size_t)g->inp_size * 32);
  memset(notone_inp, 0, 32);
  notone_inp[0] = 2;
  bad_asg[BAD_NOT_ONE] = *g;
  bad_asg[BAD_NOT_ONE].inp_assignment = notone_inp;
  bad_asg[BAD_FOREIGN] = foreign->asg;
}

static void write_inis(void) {
  snprintf(vini_path, sizeof vini_path, "%s/verify.ini", tmp_root);
  FILE *f = fopen(vini_path, "w");
  if (!f) die("create", vini_path);
  fprintf(f, "[provider]\nlog_level = error\n[verifier]\ntype = cpu\nthreads = 1\n");
  fclose(f);
  const char *mine = getenv("SEALPROV_SOAK_INI");
  if (mine && *mine) {
    snprintf(ini_path, sizeof ini_path, "%s", mine);
    return;
  }
  snprintf(ini_path, sizeof ini_path, "%s/soak.ini", tmp_root);
  f = fopen(ini_path, "w");
  if (!f) die("create", ini_path);
  /* quarantine_after = 2: without input-fault detection, two bad partitions would
   * quarantine a device within the first few dozen jobs. */
  fprintf(f,
          "[provider]\nlog_level = error\nverify_proofs = true\nquarantine_after = 2\n"
          "max_attempts = 3\nmax_jobs = 1000\ntimeline_events = 256\n\n"
          "[cpu0]\ntype = cpu\nworkers = 1\nthreads = 1\n\n"
          "[cpu1]\ntype = cpu\nworkers = 1\nthreads = 1\n");
  fclose(f);
}

static unsigned env_unsigned(const char *name, unsigned def, unsigned lo, unsigned hi) {
  const char *v = getenv(name);
  if (v == NULL || *v == '\0') return def;
  char *end;
  unsigned long n = strtoul(v, &end, 10);
  if (*end != '\0' || *v == '-' || n < lo || n > hi) {
    fprintf(stderr, "test_soak: %s = \"%s\": not a number in %u..%u\n", name, v, lo, hi);
    exit(EXIT_FAILURE);
  }
  return (unsigned)n;
}

START_TEST(test_soak) {
  unsigned njobs = env_unsigned("SEALPROV_SOAK_JOBS", DEFAULT_JOBS, 1, 1000000);
  bad_percent = env_unsigned("SEALPROV_SOAK_BAD_PERCENT", 15, 0, 100);
  if (getenv("SEALPROV_SOAK_FAULTY")) faulty = getenv("SEALPROV_SOAK_FAULTY");
  uint64_t seed = 0;
  const char *sv = getenv("SEALPROV_SOAK_SEED");
  seed = sv && *sv ? strtoull(sv, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
  if (seed == 0) seed = 1;
  fprintf(stderr,
          "test_soak: %u jobs from %d threads, seed %" PRIu64 " (SEALPROV_SOAK_SEED=%" PRIu64
          " repeats this run)\n",
          njobs, NTHREADS, seed, seed);

  int rc = vt->open(ini_path, &prov);
  ck_assert_msg(rc == SEALPROV_OK, "open %s: %s", ini_path, vt->last_error());
  rc = vt->srs_load(prov, params_a, &srs);
  ck_assert_msg(rc == SEALPROV_OK, "srs_load: %s", vt->last_error());
  rc = vt->open(vini_path, &vprov);
  ck_assert_msg(rc == SEALPROV_OK, "open %s: %s", vini_path, vt->last_error());
  rc = vt->vk_load(vprov, vk_a, &vk);
  ck_assert_msg(rc == SEALPROV_OK, "vk_load: %s", vt->last_error());

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  thread_arg ta[NTHREADS];
  memset(ta, 0, sizeof ta);
  for (unsigned i = 0; i < NTHREADS; i++) {
    ta[i].index = i;
    ta[i].njobs = njobs / NTHREADS + (i < njobs % NTHREADS);
    ta[i].seed = seed + UINT64_C(0x9E3779B97F4A7C15) * (i + 1);
    ta[i].burst = calloc(BURST, sizeof(host_job));
    ck_assert_ptr_nonnull(ta[i].burst);
    ck_assert_int_eq(pthread_create(&ta[i].tid, NULL, host_thread, &ta[i]), 0);
  }
  for (unsigned i = 0; i < NTHREADS; i++) pthread_join(ta[i].tid, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);

  tally sum;
  memset(&sum, 0, sizeof sum);
  unsigned inflight = 0;
  for (unsigned i = 0; i < NTHREADS; i++) {
    tally *t = &ta[i].t;
    sum.jobs += t->jobs, sum.ended += t->ended, sum.ok += t->ok;
    sum.cancelled_jobs += t->cancelled_jobs, sum.bad_jobs += t->bad_jobs;
    sum.bad_caught += t->bad_caught, sum.parts_verified += t->parts_verified;
    sum.parts_cancelled += t->parts_cancelled, sum.submit_refused += t->submit_refused;
    for (int s = 0; s <= SEALPROV_STATUS_COUNT_; s++) sum.by_status[s] += t->by_status[s];
    for (int m = 0; m < W_MODES; m++) sum.by_mode[m] += t->by_mode[m];
    for (int k = 0; k < BAD_KINDS; k++) sum.bad_by_kind[k] += t->bad_by_kind[k];
    inflight += ta[i].nburst;
  }

  /* Before close: the devices are all healthy, and none was charged a failure. */
  sealprov_device_info dev[64];
  size_t ndev = 0;
  for (size_t i = 0; i < 64; i++) dev[i].struct_size = sizeof dev[i];
  ck_assert_int_eq(vt->devices(prov, dev, 64, &ndev), SEALPROV_OK);
  ck_assert_uint_ge(ndev, 1);
  if (ndev > 64) ndev = 64;
  uint64_t done = 0;
  for (size_t i = 0; i < ndev; i++) {
    fprintf(stderr, "test_soak: device %s: state %d, %" PRIu64 " tasks done, %" PRIu64 " failed\n",
            dev[i].section, dev[i].state, dev[i].tasks_done, dev[i].tasks_failed);
    done += dev[i].tasks_done;
    if (strcasecmp(dev[i].section, faulty) == 0) continue; /* faulted on purpose */
    if (dev[i].state == SEALPROV_DEVICE_QUARANTINED)
      failf("device %s is quarantined (%" PRIu64 " failures) after bad partitions only",
            dev[i].section, dev[i].tasks_failed);
    if (dev[i].tasks_failed != 0)
      failf("device %s was charged %" PRIu64 " failures; only bad partitions failed",
            dev[i].section, dev[i].tasks_failed);
  }
  if (done == 0) failf("no device did any work");

  /* close() under load: the bursts are queued or running. */
  int crc = vt->close(prov);
  if (crc != SEALPROV_OK) failf("close: %s: %s", vt->strerror(crc), vt->last_error());
  prov = NULL;
  unsigned burst_ended = 0, burst_ok = 0;
  for (unsigned i = 0; i < NTHREADS; i++) {
    for (unsigned k = 0; k < ta[i].nburst; k++) {
      host_job *h = &ta[i].burst[k];
      if (atomic_load(&h->callbacks) == 0) {
        failf("job %" PRIu64 " (%s) in flight at close(): no on_complete after close returned",
              h->id, mode_names[h->mode]);
        continue;
      }
      int st = atomic_load(&h->cb_status);
      burst_ended++;
      burst_ok += st == SEALPROV_OK;
      check_job(h, st, true, &sum);
    }
    free(ta[i].burst);
  }

  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  fprintf(stderr,
          "test_soak: %u jobs submitted, %u ended (%u refused at submit), %u OK, %u cancelled, "
          "%u with a bad partition (%u unsatisfied, %u input0-not-ONE, %u foreign-setup), %u of "
          "them caught; %u partition proofs verified, %u partitions cancelled; modes: wait %u, "
          "poll %u, batch %u, detached %u, close-burst %u; main phase %.1f s; close(): %u jobs "
          "in flight, %u ended, %u of them OK\n",
          sum.jobs, sum.ended, sum.submit_refused, sum.ok, sum.cancelled_jobs, sum.bad_jobs,
          sum.bad_by_kind[BAD_UNSAT], sum.bad_by_kind[BAD_NOT_ONE], sum.bad_by_kind[BAD_FOREIGN],
          sum.bad_caught, sum.parts_verified, sum.parts_cancelled, sum.by_mode[W_WAIT],
          sum.by_mode[W_POLL], sum.by_mode[W_BATCH], sum.by_mode[W_DETACHED], sum.by_mode[W_CLOSE],
          secs, inflight, burst_ended, burst_ok);
  for (int s = 0; s <= SEALPROV_STATUS_COUNT_; s++)
    if (sum.by_status[s])
      fprintf(stderr, "test_soak:   %-28s %u jobs\n",
              s < SEALPROV_STATUS_COUNT_ ? vt->strerror(s) : "(unknown status)", sum.by_status[s]);
  if (sum.ended != sum.jobs) failf("%u jobs submitted, but %u ended", sum.jobs, sum.ended);
  if (sum.bad_jobs == 0 && bad_percent > 0) failf("no bad partition was tried (too few jobs?)");

  vt->srs_release(srs);
  vt->srs_release(vk);
  ck_assert_int_eq(vt->close(vprov), SEALPROV_OK);
  ck_assert_msg(failures == 0, "%u failures (the first are printed above)", failures);
}
END_TEST

int main(void) {
  const char *plugin = getenv("SEALPROV_PLUGIN");
  if (!plugin || !*plugin)
    die("SEALPROV_PLUGIN", "not set (make check sets it to the built module)");
  verbose = getenv("SEALPROV_SOAK_VERBOSE") && atoi(getenv("SEALPROV_SOAK_VERBOSE")) > 0;
  dl = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
  if (!dl) die("dlopen", dlerror());
  union {
    void *obj;
    sealprov_provider_init_fn fn;
  } sym = {.obj = dlsym(dl, SEALPROV_ENTRY_SYMBOL)};
  if (!sym.obj || sym.fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, NULL, &vt) != SEALPROV_OK)
    die("init", plugin);

  const char *t = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/sp_soak_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmp_root)) die("mkdtemp", tmp_root);
  char dir_a[300], dir_b[300], err[512];
  setup_dir("a", SEED_A, NGOOD, dir_a, sizeof dir_a);
  setup_dir("b", find_twin(), 1, dir_b, sizeof dir_b);
  snprintf(params_a, sizeof params_a, "%s/circuit.params", dir_a);
  snprintf(vk_a, sizeof vk_a, "%s/circuit.vk", dir_a);
  for (uint32_t i = 0; i < NGOOD; i++) {
    char path[400], name[64];
    sp_partition_name(name, sizeof name, i, NGOOD);
    snprintf(path, sizeof path, "%s/%s", dir_a, name);
    if (sp_spa_read(path, &good[i], err, sizeof err)) die("read", err);
  }
  char path[400], name[64];
  sp_partition_name(name, sizeof name, 0, 1);
  snprintf(path, sizeof path, "%s/%s", dir_b, name);
  if (sp_spa_read(path, &foreign, err, sizeof err)) die("read", err);
  make_bad_partitions();
  write_inis();

  Suite *s = suite_create("soak");
  TCase *tc = tcase_create("cpu_devices");
  tcase_set_timeout(tc, 3600);
  tcase_add_test(tc, test_soak);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  /* In this process, not a fork: LSan checks what is left at exit, and the module's
   * threads are the ones under test. */
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);

  for (int i = 0; i < NGOOD; i++) sp_spa_free(good[i]);
  sp_spa_free(foreign);
  free(unsat_c);
  free(notone_inp);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  dlclose(dl);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
