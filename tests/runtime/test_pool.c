/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_pool.c -- the scheduler and worker pool on virtual devices (test engine).
 *
 * Every scheduler here is built from an in-memory sp_config and the recording test
 * engine (test_engine.c), so the tests reach the placement, locking, requeue,
 * quarantine, shutdown and callback logic without an INI file, parameters or GPUs.
 * Sleeps inside the engine only make overlaps likely; no assertion depends on
 * timing except the explicit wait() timeouts.
 */
#include <config.h>

#include "base/log.h"
#include "engine/fault.h" /* SP_INJECT_* */
#include "runtime/sp_sched.h"
#include "runtime/sched_internal.h" /* wait_calls: the test reads it, the module has no hook */
#include "test_engine.h"

#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 64

/* ---- fixtures and helpers --------------------------------------------------------- */

static sp_srs test_srs;     /* never dereferenced beyond path/vk_only by the scheduler */
static sp_srs test_vk_only; /* vk_only = true */
static atomic_int srs_refs;

static void t_retain(sp_srs *s) {
  ck_assert_ptr_eq(s, &test_srs);
  atomic_fetch_add(&srs_refs, 1);
}
static void t_release(sp_srs *s) {
  ck_assert_ptr_eq(s, &test_srs);
  atomic_fetch_sub(&srs_refs, 1);
}

/* Rejects an assignment whose aux_size is 999 (stands in for groth16's size checks). */
static int t_check(const sp_srs *srs, const sealprov_assignment *asg, char *err, size_t errlen) {
  (void)srs;
  if (asg->aux_size == 999) {
    snprintf(err, errlen, "aux_size 999 does not match parameter file l_len 14 (file test.params)");
    return SEALPROV_ERR_ASSIGNMENT;
  }
  return SEALPROV_OK;
}

static const sp_sched_hooks hooks = {
    .verify_proof = te_verify,
    .check_assignment = t_check,
    .srs_retain = t_retain,
    .srs_release = t_release,
};

/* When set, every log message also calls back into this scheduler, as a host's
 * logger may: the module must never log while holding its locks. */
static sp_sched *_Atomic log_reenter;
static atomic_int log_reentered;
static void capture_log(void *user, int level, const char *msg) {
  sp_sched *re = atomic_load(&log_reenter);
  if (re != NULL) {
    char buf[64];
    size_t len;
    if (sp_sched_stats(re, buf, sizeof buf, &len) == SEALPROV_OK)
      atomic_fetch_add(&log_reentered, 1);
  }
  te_log_append(user, level, msg);
}
/* A worker logs right after it releases the scheduler lock: give it a moment. */
static bool log_soon(const char *needle) {
  for (int i = 0; i < 5000; i++) {
    if (te_log_has(needle)) return true;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  return false;
}

static void setup(void) {
  te_reset();
  atomic_store(&log_reenter, NULL);
  atomic_store(&log_reentered, 0);
  atomic_store(&srs_refs, 0);
  test_srs.path = "test.params";
  test_vk_only.path = "test.vk";
  test_vk_only.vk_only = true;
  te_log_clear();
  sealprov_host h = {sizeof h, SEALPROV_LOG_DEBUG, capture_log, NULL};
  sp_log_set_host(&h);
}

static void teardown(void) { sp_log_set_host(NULL); }

static sp_config *mkcfg(unsigned ndev, unsigned workers) {
  sp_config *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  snprintf(c->path, sizeof c->path, "test-pool.ini");
  c->log_level = SEALPROV_LOG_DEBUG;
  c->verify_proofs = true;
  c->max_jobs = 64;
  c->max_partitions = 1024;
  c->quarantine_after = 3;
  c->max_attempts = 3;
  c->timeline_events = 4096;
  c->ndevices = ndev;
  for (unsigned i = 0; i < ndev; i++) {
    sp_device_cfg *d = &c->devices[i];
    d->index = i;
    snprintf(d->section, sizeof d->section, "cpu%u", i);
    d->type = SP_DEVICE_CPU;
    d->workers = workers;
    d->threads = 1;
    d->ordinal = -1;
    snprintf(d->name, sizeof d->name, "virtual cpu %u", i);
  }
  return c;
}

static sp_sched *mksched(const sp_config *c) {
  const sp_engine_ops *engines[SP_MAX_DEVICES];
  for (size_t i = 0; i < c->ndevices; i++) engines[i] = &te_engine;
  sp_sched *s = NULL;
  char err[512] = "";
  int st = sp_sched_create(c, engines, &hooks, &s, err, sizeof err);
  ck_assert_msg(st == SEALPROV_OK, "create: %s: %s", sp_status_name(st), err);
  return s;
}

/* One job and what its callbacks saw. */
typedef struct tjob {
  uint32_t n;
  sealprov_assignment asg[MAXP];
  uint8_t proofs[MAXP * 192];
  sealprov_partition_result res[MAXP];
  sealprov_job job;
  sealprov_job_id id;
  atomic_int completes;
  atomic_int status;
  atomic_int released[MAXP];
  atomic_int released_total;
  atomic_int released_after_complete;
} tjob;

static void on_complete(void *user, sealprov_job_id id, int status) {
  tjob *j = user;
  ck_assert_uint_eq(id, j->id);
  /* Every partition's inputs were released before completion. */
  ck_assert_int_eq(atomic_load(&j->released_total), (int)j->n);
  atomic_store(&j->status, status);
  atomic_fetch_add(&j->completes, 1);
}

static void on_released(void *user, sealprov_job_id id, uint32_t p) {
  tjob *j = user;
  ck_assert_uint_lt(p, j->n);
  (void)id;
  if (atomic_load(&j->completes) > 0) atomic_fetch_add(&j->released_after_complete, 1);
  atomic_fetch_add(&j->released[p], 1);
  atomic_fetch_add(&j->released_total, 1);
}

static tjob *mkjob(uint32_t n, int32_t priority, uint32_t flags) {
  tjob *j = calloc(1, sizeof *j);
  ck_assert_ptr_nonnull(j);
  ck_assert_uint_le(n, MAXP);
  j->n = n;
  atomic_store(&j->status, -1);
  j->job.struct_size = sizeof j->job;
  j->job.flags = flags;
  j->job.srs = (sealprov_srs *)&test_srs;
  j->job.partitions = j->asg;
  j->job.num_partitions = n;
  j->job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  j->job.priority = priority;
  j->job.proofs_out = j->proofs;
  j->job.results = j->res;
  j->job.on_complete = on_complete;
  j->job.on_inputs_released = on_released;
  j->job.user = j;
  return j;
}

static void submit_ok(sp_sched *s, tjob *j) {
  char err[512] = "";
  int st = sp_sched_submit(s, &j->job, &j->id, err, sizeof err);
  ck_assert_msg(st == SEALPROV_OK, "submit: %s: %s", sp_status_name(st), err);
  ck_assert_uint_ne(j->id, 0);
}

static int wait_job(sp_sched *s, tjob *j, char *err, size_t errlen) {
  return sp_sched_wait(s, j->id, -1, err, errlen);
}

/* Every partition has the proof a correct execute writes. */
static void assert_proofs(const tjob *j) {
  for (uint32_t p = 0; p < j->n; p++) {
    uint8_t want[192];
    te_expected_proof(&j->asg[p], want);
    ck_assert_msg(memcmp(want, j->proofs + 192 * p, 192) == 0, "partition %u: wrong proof", p);
  }
}

static void device_table(sp_sched *s, sealprov_device_info *out, size_t cap, size_t *count) {
  memset(out, 0, cap * sizeof *out);
  ck_assert_int_eq(sp_sched_devices(s, out, cap, count), SEALPROV_OK);
}

/* ---- placement ----------------------------------------------------------------------- */

/* A 10-partition job on 2 and 3 virtual devices runs on every device, each task on a
 * worker bound to the device whose execute ran, and the results say so. */
START_TEST(test_spread) {
  unsigned ndev = (unsigned)_i;
  sp_config *c = mkcfg(ndev, 2);
  sp_sched *s = mksched(c);
  ck_assert_int_eq(atomic_load(&te.binds), (int)(2 * ndev));
  atomic_store(&te.execute_us, 50000);
  atomic_store(&te.prepare_us, 2000);
  tjob *j = mkjob(10, 0, 0);
  submit_ok(s, j);
  char err[512] = "";
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(atomic_load(&j->completes), 1);
  ck_assert_int_eq(atomic_load(&j->status), SEALPROV_OK);
  assert_proofs(j);

  te_record rec[64];
  unsigned nrec = te_records_of(j->id, rec, 64);
  ck_assert_uint_eq(nrec, 10);
  unsigned per_dev[8] = {0};
  for (unsigned i = 0; i < nrec; i++) {
    ck_assert_int_eq(rec[i].device, rec[i].bound_device);
    ck_assert_int_eq(j->res[rec[i].partition].device, rec[i].device);
    per_dev[rec[i].device]++;
  }
  for (unsigned d = 0; d < ndev; d++)
    ck_assert_msg(per_dev[d] > 0, "device %u ran no partition of a 10-partition job", d);
  for (uint32_t p = 0; p < 10; p++) {
    ck_assert_int_eq(j->res[p].status, SEALPROV_OK);
    ck_assert_uint_eq(j->res[p].attempts, 1);
    ck_assert_int_eq(atomic_load(&j->released[p]), 1);
    ck_assert(j->res[p].run_ms > 0);
  }
  ck_assert_int_eq(te_violations(), 0);
  sealprov_device_info info[8];
  size_t count = 0;
  device_table(s, info, 8, &count);
  ck_assert_uint_eq(count, ndev);
  uint64_t done = 0;
  for (unsigned d = 0; d < ndev; d++) {
    ck_assert_uint_eq(info[d].tasks_done, per_dev[d]);
    ck_assert_int_eq(info[d].state, SEALPROV_DEVICE_READY);
    ck_assert(info[d].busy_seconds > 0);
    done += info[d].tasks_done;
  }
  ck_assert_uint_eq(done, 10);
  sp_sched_destroy(s);
  ck_assert_int_eq(atomic_load(&te.unbinds), atomic_load(&te.binds));
  ck_assert_int_eq(atomic_load(&te.closes), (int)ndev);
  ck_assert_int_eq(atomic_load(&te.prepares), atomic_load(&te.releases));
  ck_assert_int_eq(atomic_load(&srs_refs), 0);
  free(j);
  free(c);
}
END_TEST

/* Four workers per device compete for each device lock: never two inside execute. */
START_TEST(test_lock_exclusive) {
  sp_config *c = mkcfg(2, 4);
  sp_sched *s = mksched(c);
  atomic_store(&te.execute_us, 2000);
  tjob *jobs[4];
  for (int k = 0; k < 4; k++) {
    jobs[k] = mkjob(10, 0, 0);
    submit_ok(s, jobs[k]);
  }
  char err[512];
  for (int k = 0; k < 4; k++) {
    ck_assert_int_eq(wait_job(s, jobs[k], err, sizeof err), SEALPROV_OK);
    assert_proofs(jobs[k]);
    free(jobs[k]);
  }
  for (int d = 0; d < 2; d++)
    ck_assert_msg(atomic_load(&te.max_in_execute[d]) == 1,
                  "device %d: %d workers were inside execute at once", d,
                  atomic_load(&te.max_in_execute[d]));
  ck_assert_int_eq(te_violations(), 0);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* Two workers on one device: while one holds the device lock (held at the gate inside
 * execute), the other prepares the next partition; the lock covers device work only. */
START_TEST(test_prepare_overlaps_execute) {
  sp_config *c = mkcfg(1, 2);
  sp_sched *s = mksched(c);
  te_gate_close();
  tjob *j = mkjob(2, 0, 0);
  submit_ok(s, j);
  ck_assert(te_gate_wait_blocked(1));
  /* The second worker finishes its prepare while the first is inside execute. */
  for (int i = 0; i < 10000 && atomic_load(&te.prepares) < 2; i++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  ck_assert_int_eq(atomic_load(&te.prepares), 2);
  ck_assert_int_eq(atomic_load(&te.in_execute[0]), 1);
  ck_assert_int_eq(atomic_load(&te.executes), 1); /* the second waits for the lock */
  sealprov_device_info info[1];
  size_t count;
  device_table(s, info, 1, &count);
  ck_assert_int_eq(info[0].state, SEALPROV_DEVICE_BUSY);
  te_gate_open();
  char err[512];
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  assert_proofs(j);
  ck_assert_int_eq(atomic_load(&te.max_in_execute[0]), 1);
  device_table(s, info, 1, &count);
  ck_assert_int_eq(info[0].state, SEALPROV_DEVICE_READY);
  ck_assert(info[0].lock_wait_seconds > 0); /* the second worker waited for the lock */
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

typedef struct submitter_arg {
  sp_sched *s;
  int ok;
} submitter_arg;

static void *submitter(void *arg) {
  submitter_arg *a = arg;
  for (int k = 0; k < 5; k++) {
    tjob *j = mkjob(4, k % 3, 0);
    char err[512] = "";
    if (sp_sched_submit(a->s, &j->job, &j->id, err, sizeof err) == SEALPROV_OK &&
        sp_sched_wait(a->s, j->id, -1, err, sizeof err) == SEALPROV_OK &&
        atomic_load(&j->completes) == 1) {
      uint8_t want[192];
      int good = 1;
      for (uint32_t p = 0; p < 4; p++) {
        te_expected_proof(&j->asg[p], want);
        good &= memcmp(want, j->proofs + 192 * p, 192) == 0;
      }
      a->ok += good;
    }
    free(j);
  }
  return NULL;
}

/* Jobs from four host threads at once share the devices and all come back right. */
START_TEST(test_concurrent_submitters) {
  sp_config *c = mkcfg(3, 2);
  sp_sched *s = mksched(c);
  atomic_store(&te.execute_us, 500);
  pthread_t th[4];
  submitter_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (submitter_arg){s, 0};
    ck_assert_int_eq(pthread_create(&th[i], NULL, submitter, &args[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    ck_assert_int_eq(args[i].ok, 5);
  }
  ck_assert_int_eq(te_violations(), 0);
  sp_sched_destroy(s);
  ck_assert_int_eq(atomic_load(&srs_refs), 0);
  free(c);
}
END_TEST

/* ---- faults ------------------------------------------------------------------------- */

/* Device 1 fails every kernel: its tasks complete on the other devices, and after
 * quarantine_after failures it is quarantined and takes no more work. */
START_TEST(test_failover_quarantine) {
  sp_config *c = mkcfg(3, 1);
  c->quarantine_after = 2;
  sp_sched *s = mksched(c);
  atomic_store(&log_reenter, s); /* the requeue/quarantine logs call back in */
  te_set_mode(1, TE_FAIL_DEVICE, -1);
  atomic_store(&te.execute_us, 5000);
  sealprov_device_info info[3];
  size_t count;
  char err[512];
  /* Device 1 needs two tasks to reach its quarantine; jobs keep coming until then. */
  for (int round = 0; round < 10; round++) {
    tjob *j = mkjob(10, 0, 0);
    submit_ok(s, j);
    ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
    assert_proofs(j);
    te_record rec[64];
    unsigned nrec = te_records_of(j->id, rec, 64);
    for (uint32_t p = 0; p < 10; p++) {
      ck_assert_int_eq(j->res[p].status, SEALPROV_OK);
      ck_assert_int_ne(j->res[p].device, 1);
      bool failed_on_1 = false;
      for (unsigned i = 0; i < nrec; i++)
        if (rec[i].partition == p && rec[i].failed) {
          ck_assert_int_eq(rec[i].device, 1);
          failed_on_1 = true;
        }
      ck_assert_uint_eq(j->res[p].attempts, (failed_on_1 ? 2u : 1u));
    }
    free(j);
    device_table(s, info, 3, &count);
    if (info[1].state == SEALPROV_DEVICE_QUARANTINED) break;
  }
  ck_assert_int_eq(info[1].state, SEALPROV_DEVICE_QUARANTINED);
  ck_assert_uint_eq(info[1].tasks_failed, 2); /* one worker: nothing in flight after #2 */
  ck_assert_uint_eq(info[1].tasks_done, 0);
  ck_assert_int_ne(info[0].state, SEALPROV_DEVICE_QUARANTINED);
  ck_assert_int_ne(info[2].state, SEALPROV_DEVICE_QUARANTINED);
  ck_assert(log_soon("device 1 (cpu1) quarantined after 2 failures"));
  ck_assert(log_soon("requeued for another device"));
  ck_assert_int_gt(atomic_load(&log_reentered), 0);

  /* A quarantined device takes no more work. */
  int executes_before = atomic_load(&te.executes);
  tjob *j = mkjob(8, 0, 0);
  submit_ok(s, j);
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  te_record rec[64];
  unsigned nrec = te_records_of(j->id, rec, 64);
  ck_assert_uint_eq(nrec, 8);
  for (unsigned i = 0; i < nrec; i++) ck_assert_int_ne(rec[i].device, 1);
  ck_assert_int_eq(atomic_load(&te.executes), executes_before + 8);
  free(j);

  size_t len = 0;
  ck_assert_int_eq(sp_sched_stats(s, NULL, 0, &len), SEALPROV_OK);
  char *text = malloc(len + 1);
  ck_assert_int_eq(sp_sched_stats(s, text, len + 1, &len), SEALPROV_OK);
  ck_assert_ptr_nonnull(
      strstr(text, "sealprov_device_quarantined{device=\"1\",section=\"cpu1\",type=\"cpu\"} 1\n"));
  ck_assert_ptr_nonnull(strstr(
      text, "sealprov_device_failures_total{device=\"1\",section=\"cpu1\",type=\"cpu\"} 2\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "sealprov_device_quarantined{device=\"0\",section=\"cpu0\",type=\"cpu\"} 0\n"));
  free(text);
  ck_assert_int_eq(te_violations(), 0);
  atomic_store(&log_reenter, NULL);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* One out-of-memory: the task moves to the other device; one failure does not
 * quarantine (quarantine_after = 3). */
START_TEST(test_device_memory_requeue) {
  sp_config *c = mkcfg(2, 1);
  sp_sched *s = mksched(c);
  te_set_mode(0, TE_FAIL_MEMORY, 1);
  atomic_store(&te.execute_us, 2000);
  tjob *j = mkjob(10, 0, 0);
  submit_ok(s, j);
  char err[512];
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  assert_proofs(j);
  int retried = 0;
  for (uint32_t p = 0; p < 10; p++) {
    if (j->res[p].attempts == 2) {
      retried++;
      ck_assert_int_eq(j->res[p].device, 1); /* requeued onto ANOTHER device */
    } else {
      ck_assert_uint_eq(j->res[p].attempts, 1);
    }
  }
  ck_assert_int_eq(retried, 1);
  sealprov_device_info info[2];
  size_t count;
  device_table(s, info, 2, &count);
  ck_assert_uint_eq(info[0].tasks_failed, 1);
  ck_assert_int_ne(info[0].state, SEALPROV_DEVICE_QUARANTINED);
  size_t len;
  char tl[1 << 16];
  ck_assert_int_eq(sp_sched_timeline(s, tl, sizeof tl, &len), SEALPROV_OK);
  ck_assert_ptr_nonnull(strstr(tl, "event=requeued"));
  ck_assert_ptr_nonnull(strstr(tl, "status=DEVICE_MEMORY"));
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

/* A device that returns wrong proofs is caught by the self-check, its tasks are
 * redone elsewhere, and it is quarantined. With the self-check off, the same wrong
 * proofs would reach the host: the check is what stops them. */
START_TEST(test_self_check) {
  sp_config *c = mkcfg(2, 1);
  c->quarantine_after = 2;
  sp_sched *s = mksched(c);
  te_set_mode(0, TE_CORRUPT, -1);
  atomic_store(&te.execute_us, 3000);
  char err[512];
  sealprov_device_info info[2];
  size_t count = 0;
  for (int round = 0; round < 10; round++) {
    tjob *j = mkjob(10, 0, 0);
    submit_ok(s, j);
    ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
    assert_proofs(j);
    for (uint32_t p = 0; p < 10; p++) ck_assert_int_eq(j->res[p].device, 1);
    free(j);
    device_table(s, info, 2, &count);
    if (info[0].state == SEALPROV_DEVICE_QUARANTINED) break;
  }
  ck_assert_int_eq(info[0].state, SEALPROV_DEVICE_QUARANTINED);
  /* Charged once per partition that then verified on device 1: at least
   * quarantine_after, more when several were in flight before the charges came. */
  ck_assert_uint_ge(info[0].tasks_failed, 2);
  ck_assert_uint_eq(info[1].tasks_failed, 0);
  char tl[1 << 17];
  size_t len;
  ck_assert_int_eq(sp_sched_timeline(s, tl, sizeof tl, &len), SEALPROV_OK);
  ck_assert_ptr_nonnull(strstr(tl, "event=verify"));
  ck_assert_ptr_nonnull(strstr(tl, "status=VERIFY_FAILED"));
  sp_sched_destroy(s);
  free(c);

  te_reset();
  c = mkcfg(1, 1);
  c->verify_proofs = false;
  s = mksched(c);
  te_set_mode(0, TE_CORRUPT, -1);
  tjob *j = mkjob(2, 0, 0);
  submit_ok(s, j);
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  uint8_t want[192];
  te_expected_proof(&j->asg[0], want);
  ck_assert(memcmp(want, j->proofs, 192) != 0);
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

#ifdef SP_FAULT_INJECTION
/* [testing] fault injection (a build with --enable-fault-injection): the scheduler
 * opens the device behind the fault engine (engine/fault.h), which fails the device's
 * first inject_count attempts before they reach the device's own engine, and no more. */
START_TEST(test_inject_config) {
  sp_config *c = mkcfg(2, 1);
  c->devices[0].inject = SP_INJECT_FAIL_KERNEL;
  c->devices[0].inject_count = 2;
  c->quarantine_after = 5;
  sp_sched *s = mksched(c);
  atomic_store(&te.execute_us, 2000);
  tjob *j = mkjob(10, 0, 0);
  submit_ok(s, j);
  char err[512];
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  assert_proofs(j);
  /* every attempt that reached the test engine succeeded: the injected ones did not */
  te_record rec[64];
  unsigned nrec = te_records_of(j->id, rec, 64);
  ck_assert_uint_eq(nrec, 10);
  unsigned done_on_0 = 0;
  for (unsigned i = 0; i < nrec; i++) {
    ck_assert(!rec[i].failed);
    done_on_0 += rec[i].device == 0;
  }
  /* each injected failure is one more attempt of its partition */
  unsigned injected = 0;
  for (uint32_t p = 0; p < 10; p++) injected += j->res[p].attempts - 1;
  ck_assert_uint_le(injected, 2);
  /* the budget goes first: once device 0 proved something, both were spent */
  ck_assert(done_on_0 == 0 || injected == 2);
  sealprov_device_info info[2];
  size_t count;
  device_table(s, info, 2, &count);
  ck_assert_uint_eq(info[0].tasks_failed, injected);
  ck_assert_uint_eq(info[1].tasks_failed, 0);
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST
#endif

/* Every device failing: the job ends NO_DEVICE with a message that says so, and new
 * jobs are refused at once. */
START_TEST(test_all_devices_fail) {
  sp_config *c = mkcfg(2, 1);
  c->quarantine_after = 2;
  c->max_attempts = 10;
  sp_sched *s = mksched(c);
  atomic_store(&log_reenter, s);
  te_set_mode(0, TE_FAIL_DEVICE, -1);
  te_set_mode(1, TE_FAIL_DEVICE, -1);
  tjob *j = mkjob(10, 0, 0);
  submit_ok(s, j);
  char err[1024] = "";
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_ERR_NO_DEVICE);
  ck_assert_msg(strstr(err, "no healthy device left") != NULL, "message: %s", err);
  ck_assert_msg(strstr(err, "device 0 (cpu0) quarantined after 2 failures") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "injected kernel failure") != NULL, "%s", err);
  ck_assert_int_eq(atomic_load(&j->completes), 1);
  ck_assert_int_eq(atomic_load(&j->status), SEALPROV_ERR_NO_DEVICE);
  ck_assert_int_eq(atomic_load(&j->released_total), 10);
  for (uint32_t p = 0; p < 10; p++) {
    ck_assert_int_eq(j->res[p].status, SEALPROV_ERR_NO_DEVICE);
    ck_assert_int_eq(j->res[p].device, -1);
  }
  free(j);
  j = mkjob(1, 0, 0);
  sealprov_job_id id = 0;
  ck_assert_int_eq(sp_sched_submit(s, &j->job, &id, err, sizeof err), SEALPROV_ERR_NO_DEVICE);
  ck_assert_ptr_nonnull(strstr(err, "no healthy device left"));
  ck_assert_uint_eq(id, 0);
  ck_assert(log_soon("ended: NO_DEVICE: partition 0 of job 1: no healthy device left"));
  atomic_store(&log_reenter, NULL);
  sp_sched_destroy(s);
  ck_assert_int_eq(atomic_load(&srs_refs), 0);
  free(j);
  free(c);
}
END_TEST

/* Without quarantine, a partition stops after max_attempts, each on another device. */
START_TEST(test_attempts_exhausted) {
  sp_config *c = mkcfg(2, 1);
  c->quarantine_after = 0;
  c->max_attempts = 2;
  sp_sched *s = mksched(c);
  te_set_mode(0, TE_FAIL_DEVICE, -1);
  te_set_mode(1, TE_FAIL_DEVICE, -1);
  tjob *j = mkjob(3, 0, 0);
  submit_ok(s, j);
  char err[1024] = "";
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_ERR_DEVICE);
  ck_assert_msg(strstr(err, "gave up after 2 attempts (max_attempts = 2)") != NULL, "%s", err);
  te_record rec[64];
  unsigned nrec = te_records_of(j->id, rec, 64);
  ck_assert_uint_eq(nrec, 6);
  for (uint32_t p = 0; p < 3; p++) {
    ck_assert_uint_eq(j->res[p].attempts, 2);
    int first = -1;
    for (unsigned i = 0; i < nrec; i++) {
      if (rec[i].partition != p) continue;
      if (first < 0)
        first = rec[i].device;
      else
        ck_assert_int_ne(rec[i].device, first);
    }
  }
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

/* Bad input is not a device fault: no retry, no quarantine. */
START_TEST(test_input_error_not_retried) {
  sp_config *c = mkcfg(2, 1);
  sp_sched *s = mksched(c);
  te_set_mode(0, TE_FAIL_INPUT, -1);
  te_set_mode(1, TE_FAIL_INPUT, -1);
  tjob *j = mkjob(2, 0, 0);
  submit_ok(s, j);
  char err[512] = "";
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_ptr_nonnull(strstr(err, "partition 0 of job"));
  ck_assert_ptr_nonnull(strstr(err, "injected bad input"));
  ck_assert_uint_eq(j->res[0].attempts, 1);
  ck_assert_uint_eq(j->res[1].attempts, 1);
  sealprov_device_info info[2];
  size_t count;
  device_table(s, info, 2, &count);
  ck_assert_uint_eq(info[0].tasks_failed + info[1].tasks_failed, 0);
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

/* A witness that does not satisfy its circuit fails the self-check on every device:
 * it is the input's fault. The partition ends ASSIGNMENT after failing on two
 * devices, no device is charged, the job's other partitions still get their proofs,
 * and a stream of such jobs never quarantines anything: valid jobs keep proving. */
START_TEST(test_bad_witness_not_charged) {
  sp_config *c = mkcfg(2, 1);
  c->quarantine_after = 1; /* the harshest setting: one charge would quarantine */
  sp_sched *s = mksched(c);
  atomic_store(&te.execute_us, 500);
  char err[1024];
  for (int round = 0; round < 8; round++) {
    tjob *j = mkjob(6, 0, 0);
    uint32_t bad = (uint32_t)(round % 6);
    te_mark_bad_witness(&j->asg[bad]);
    submit_ok(s, j);
    err[0] = '\0';
    ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
    ck_assert_msg(strstr(err, "does not satisfy the circuit of these parameters") != NULL, "%s",
                  err);
    ck_assert_msg(strstr(err, "no device was charged") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "device 0 (cpu0) and device 1 (cpu1)") != NULL, "%s", err);
    ck_assert_int_eq(j->res[bad].status, SEALPROV_ERR_ASSIGNMENT);
    ck_assert_uint_eq(j->res[bad].attempts, 2);
    for (uint32_t p = 0; p < 6; p++) {
      if (p == bad) continue;
      ck_assert_int_eq(j->res[p].status, SEALPROV_OK);
      uint8_t want[192];
      te_expected_proof(&j->asg[p], want);
      ck_assert(memcmp(want, j->proofs + 192 * p, 192) == 0);
    }
    te_clear_bad_witnesses();
    free(j);
  }
  sealprov_device_info info[2];
  size_t count;
  device_table(s, info, 2, &count);
  for (int d = 0; d < 2; d++) {
    ck_assert_int_ne(info[d].state, SEALPROV_DEVICE_QUARANTINED);
    ck_assert_uint_eq(info[d].tasks_failed, 0);
  }
  tjob *j = mkjob(10, 0, 0);
  submit_ok(s, j);
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  assert_proofs(j);
  free(j);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* With one device there is no second opinion: a partition that fails the self-check
 * twice there is the input's fault and the device is not charged; one that fails
 * once and then verifies on the same device was a device fault, and is charged. */
START_TEST(test_self_check_single_device) {
  sp_config *c = mkcfg(1, 2);
  c->quarantine_after = 1;
  sp_sched *s = mksched(c);
  char err[1024] = "";
  tjob *j = mkjob(3, 0, 0);
  te_mark_bad_witness(&j->asg[1]);
  submit_ok(s, j);
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "failed the self-check 2 times (on device 0 (cpu0))") != NULL, "%s",
                err);
  ck_assert_uint_eq(j->res[1].attempts, 2);
  ck_assert_int_eq(j->res[0].status, SEALPROV_OK);
  ck_assert_int_eq(j->res[2].status, SEALPROV_OK);
  te_clear_bad_witnesses();
  free(j);
  sealprov_device_info info[1];
  size_t count;
  device_table(s, info, 1, &count);
  ck_assert_uint_eq(info[0].tasks_failed, 0);
  ck_assert_int_ne(info[0].state, SEALPROV_DEVICE_QUARANTINED);

  te_set_mode(0, TE_CORRUPT, 1); /* one wrong proof, then right ones */
  j = mkjob(1, 0, 0);
  submit_ok(s, j);
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  assert_proofs(j);
  ck_assert_uint_eq(j->res[0].attempts, 2);
  free(j);
  device_table(s, info, 1, &count);
  ck_assert_uint_eq(info[0].tasks_failed, 1);
  ck_assert_int_eq(info[0].state, SEALPROV_DEVICE_QUARANTINED);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* ---- lifecycle --------------------------------------------------------------------- */

/* Opens the test engine's gate once close() has failed the queued partitions (the
 * queue depth drops to 0 only then: every worker is held at the gate). */
static void *open_gate_when_drained(void *arg) {
  sp_sched *s = arg;
  char buf[8192];
  size_t len;
  for (;;) {
    if (sp_sched_stats(s, buf, sizeof buf, &len) == SEALPROV_OK &&
        strstr(buf, "sealprov_queue_depth 0\n") != NULL)
      break;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  te_gate_open();
  return NULL;
}

/* close() with jobs queued and running: every job ends with a status, every callback
 * fires exactly once, nothing leaks (ASan/TSan builds check the rest). */
START_TEST(test_close_in_flight) {
  sp_config *c = mkcfg(2, 1); /* one worker per device: exactly one task each in flight */
  sp_sched *s = mksched(c);
  atomic_store(&te.execute_us, 2000);
  te_gate_close();
  enum { NJ = 6 };
  tjob *jobs[NJ];
  for (int k = 0; k < NJ; k++) {
    jobs[k] = mkjob(10, k % 2, k >= 3 ? SEALPROV_JOB_DETACHED : 0);
    submit_ok(s, jobs[k]);
  }
  /* One partition per device is inside execute (held at the gate) when close starts. */
  ck_assert(te_gate_wait_blocked(2));
  pthread_t opener;
  ck_assert_int_eq(pthread_create(&opener, NULL, open_gate_when_drained, s), 0);
  sp_sched_destroy(s);
  pthread_join(opener, NULL);
  int shutdown = 0, ok = 0;
  for (int k = 0; k < NJ; k++) {
    tjob *j = jobs[k];
    ck_assert_int_eq(atomic_load(&j->completes), 1);
    int st = atomic_load(&j->status);
    ck_assert_msg(st == SEALPROV_OK || st == SEALPROV_ERR_SHUTDOWN, "job %d ended %s", k,
                  sp_status_name(st));
    ck_assert_int_eq(atomic_load(&j->released_total), 10);
    ck_assert_int_eq(atomic_load(&j->released_after_complete), 0);
    for (uint32_t p = 0; p < 10; p++) {
      ck_assert_int_eq(atomic_load(&j->released[p]), 1);
      int ps = j->res[p].status;
      ck_assert(ps == SEALPROV_OK || ps == SEALPROV_ERR_SHUTDOWN);
      shutdown += ps == SEALPROV_ERR_SHUTDOWN;
      ok += ps == SEALPROV_OK;
    }
    free(j);
  }
  /* The two partitions held at the gate finished; the other 58 never started. */
  ck_assert_int_eq(ok, 2);
  ck_assert_int_eq(shutdown, 58);
  ck_assert_int_eq(atomic_load(&te.executes), 2);
  ck_assert_int_eq(atomic_load(&te.unbinds), 2);
  ck_assert_int_eq(atomic_load(&te.closes), 2);
  ck_assert_int_eq(atomic_load(&srs_refs), 0);
  free(c);
}
END_TEST

typedef struct waiter_arg {
  sp_sched *s;
  sealprov_job_id id;
  int status;
} waiter_arg;

static void *waiter(void *arg) {
  waiter_arg *a = arg;
  char err[512];
  a->status = sp_sched_wait(a->s, a->id, -1, err, sizeof err);
  return NULL;
}

/* Calls inside sp_sched_wait now (the scheduler's own count, under its lock). */
static unsigned wait_calls(sp_sched *s) {
  pthread_mutex_lock(&s->mu);
  unsigned n = s->wait_calls;
  pthread_mutex_unlock(&s->mu);
  return n;
}

/* A wait() already blocked when close starts returns the job's status. */
START_TEST(test_close_releases_waiter) {
  sp_config *c = mkcfg(1, 1);
  sp_sched *s = mksched(c);
  te_gate_close();
  tjob *a = mkjob(1, 0, 0), *b = mkjob(3, 0, 0);
  submit_ok(s, a);
  submit_ok(s, b);
  ck_assert(te_gate_wait_blocked(1));
  waiter_arg wa = {s, b->id, -1};
  pthread_t th, opener;
  ck_assert_int_eq(pthread_create(&th, NULL, waiter, &wa), 0);
  /* close() must not race with the waiter's entry into wait() (calls on a handle
   * being closed are the host's bug): start it once the waiter is blocked. */
  while (wait_calls(s) == 0) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  ck_assert_int_eq(pthread_create(&opener, NULL, open_gate_when_drained, s), 0);
  sp_sched_destroy(s);
  pthread_join(th, NULL);
  pthread_join(opener, NULL);
  ck_assert_int_eq(wa.status, SEALPROV_ERR_SHUTDOWN);
  ck_assert_int_eq(atomic_load(&a->completes), 1);
  ck_assert_int_eq(atomic_load(&a->status), SEALPROV_OK);
  ck_assert_int_eq(atomic_load(&b->status), SEALPROV_ERR_SHUTDOWN);
  free(a);
  free(b);
  free(c);
}
END_TEST

/* Higher priority first; equal priorities in submission order; a running task is
 * not preempted. */
START_TEST(test_priority_order) {
  sp_config *c = mkcfg(1, 1);
  sp_sched *s = mksched(c);
  te_gate_close();
  tjob *a = mkjob(1, 0, 0);
  submit_ok(s, a);
  ck_assert(te_gate_wait_blocked(1));
  tjob *b = mkjob(3, 0, 0), *cc = mkjob(3, 5, 0), *d = mkjob(3, 0, 0), *e = mkjob(2, 5, 0),
       *f = mkjob(1, -3, 0);
  submit_ok(s, f);
  submit_ok(s, b);
  submit_ok(s, cc);
  submit_ok(s, d);
  submit_ok(s, e);
  te_gate_open();
  char err[512];
  tjob *all[] = {a, b, cc, d, e, f};
  for (int k = 0; k < 6; k++) ck_assert_int_eq(wait_job(s, all[k], err, sizeof err), SEALPROV_OK);
  /* Expected execution order. */
  struct {
    tjob *j;
    uint32_t p;
  } want[] = {{a, 0}, {cc, 0}, {cc, 1}, {cc, 2}, {e, 0}, {e, 1}, {b, 0},
              {b, 1}, {b, 2},  {d, 0},  {d, 1},  {d, 2}, {f, 0}};
  te_record rec[TE_MAX_RECORDS];
  pthread_mutex_lock(&te.rec_mu);
  unsigned n = te.nrec;
  memcpy(rec, te.rec, n * sizeof rec[0]);
  pthread_mutex_unlock(&te.rec_mu);
  ck_assert_uint_eq(n, 13);
  for (unsigned i = 0; i < n; i++) {
    ck_assert_uint_eq(rec[i].order, i);
    ck_assert_msg(rec[i].job == want[i].j->id && rec[i].partition == want[i].p,
                  "position %u: ran job %" PRIu64 " partition %u, expected job %" PRIu64
                  " partition %u",
                  i, rec[i].job, rec[i].partition, want[i].j->id, want[i].p);
  }
  sp_sched_destroy(s);
  for (int k = 0; k < 6; k++) free(all[k]);
  free(c);
}
END_TEST

/* cancel: queued partitions end CANCELLED, the running one finishes, callbacks fire. */
START_TEST(test_cancel) {
  sp_config *c = mkcfg(1, 1);
  sp_sched *s = mksched(c);
  te_gate_close();
  tjob *j = mkjob(10, 0, 0);
  submit_ok(s, j);
  ck_assert(te_gate_wait_blocked(1));
  char err[512] = "";
  ck_assert_int_eq(sp_sched_cancel(s, j->id, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(sp_sched_cancel(s, 12345, err, sizeof err), SEALPROV_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(err, "no job 12345"));
  te_gate_open();
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_ERR_CANCELLED);
  ck_assert_msg(strstr(err, "cancelled: 9 of 10 partitions did not run") != NULL, "%s", err);
  ck_assert_int_eq(j->res[0].status, SEALPROV_OK);
  ck_assert_uint_eq(j->res[0].attempts, 1);
  uint8_t want[192];
  te_expected_proof(&j->asg[0], want);
  ck_assert(memcmp(want, j->proofs, 192) == 0);
  for (uint32_t p = 1; p < 10; p++) {
    ck_assert_int_eq(j->res[p].status, SEALPROV_ERR_CANCELLED);
    ck_assert_uint_eq(j->res[p].attempts, 0);
    ck_assert_int_eq(j->res[p].device, -1);
  }
  ck_assert_int_eq(atomic_load(&j->completes), 1);
  ck_assert_int_eq(atomic_load(&j->status), SEALPROV_ERR_CANCELLED);
  ck_assert_int_eq(atomic_load(&j->released_total), 10);
  ck_assert_int_eq(sp_sched_cancel(s, j->id, err, sizeof err), SEALPROV_ERR_NOT_FOUND);
  ck_assert_int_eq(atomic_load(&te.executes), 1);
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

/* wait() with a timeout, a second wait, waits on detached and unknown jobs. */
START_TEST(test_wait_timeout) {
  sp_config *c = mkcfg(1, 1);
  sp_sched *s = mksched(c);
  te_gate_close();
  tjob *j = mkjob(2, 0, 0), *det = mkjob(1, 0, SEALPROV_JOB_DETACHED);
  submit_ok(s, j);
  submit_ok(s, det);
  ck_assert(te_gate_wait_blocked(1));
  char err[512] = "";
  ck_assert_int_eq(sp_sched_wait(s, j->id, 50, err, sizeof err), SEALPROV_ERR_TIMEOUT);
  ck_assert_msg(strstr(err, "still running after 50 ms (2 of 2 partitions left)") != NULL, "%s",
                err);
  ck_assert_int_eq(sp_sched_wait(s, j->id, 0, err, sizeof err), SEALPROV_ERR_TIMEOUT);
  ck_assert_int_eq(sp_sched_wait(s, det->id, 0, err, sizeof err), SEALPROV_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(err, "DETACHED"));
  ck_assert_int_eq(sp_sched_wait(s, 999, 0, err, sizeof err), SEALPROV_ERR_NOT_FOUND);
  te_gate_open();
  ck_assert_int_eq(sp_sched_wait(s, j->id, 10000, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(atomic_load(&j->completes), 1); /* on_complete returned before wait did */
  ck_assert_int_eq(sp_sched_wait(s, j->id, -1, err, sizeof err), SEALPROV_ERR_NOT_FOUND);
  sp_sched_destroy(s); /* the detached job ends before close returns */
  ck_assert_int_eq(atomic_load(&det->completes), 1);
  free(j);
  free(det);
  free(c);
}
END_TEST

typedef struct reentrant {
  tjob base;
  sp_sched *s;
  sealprov_job_id other;
  int wait_status;
  int submit_status;
  tjob *extra; /* submitted from the callback; alive until close */
  bool on_callback_thread;
} reentrant;

static void reentrant_complete(void *user, sealprov_job_id id, int status) {
  reentrant *r = user;
  char err[512];
  r->on_callback_thread = sp_sched_on_callback_thread(r->s);
  r->wait_status = sp_sched_wait(r->s, r->other, -1, err, sizeof err);
  tjob *x = mkjob(1, 0, SEALPROV_JOB_DETACHED);
  x->job.on_complete = NULL;
  x->job.on_inputs_released = NULL;
  sealprov_job_id xid;
  r->submit_status = sp_sched_submit(r->s, &x->job, &xid, err, sizeof err);
  r->extra = x;
  (void)id;
  (void)status;
  atomic_fetch_add(&r->base.completes, 1);
}

/* Callbacks may call the module, except wait(), which they must not (it would wait
 * for the callback thread itself): it is refused with INVALID_ARGUMENT. */
START_TEST(test_callback_reentry) {
  sp_config *c = mkcfg(1, 1);
  sp_sched *s = mksched(c);
  te_gate_close();
  tjob *other = mkjob(1, 0, 0);
  submit_ok(s, other);
  ck_assert(te_gate_wait_blocked(1));
  reentrant *r = calloc(1, sizeof *r);
  tjob *b = mkjob(1, 0, 0);
  r->base = *b;
  free(b);
  r->base.job.partitions = r->base.asg;
  r->base.job.proofs_out = r->base.proofs;
  r->base.job.results = r->base.res;
  r->base.job.on_complete = reentrant_complete;
  r->base.job.on_inputs_released = NULL;
  r->base.job.user = r;
  r->s = s;
  r->other = other->id;
  submit_ok(s, &r->base);
  te_gate_open();
  char err[512];
  ck_assert_int_eq(wait_job(s, &r->base, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(r->wait_status, SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert(r->on_callback_thread);           /* close() refuses there (module.c) */
  ck_assert(!sp_sched_on_callback_thread(s)); /* and only there */
  ck_assert_int_eq(r->submit_status, SEALPROV_OK);
  ck_assert_int_eq(wait_job(s, other, err, sizeof err), SEALPROV_OK);
  sp_sched_destroy(s);
  free(r->extra);
  free(r);
  free(other);
  free(c);
}
END_TEST

/* ---- open failures ------------------------------------------------------------------ */

START_TEST(test_bind_failure) {
  sp_config *c = mkcfg(2, 2);
  te_set_mode(1, TE_FAIL_BIND, -1);
  const sp_engine_ops *engines[2] = {&te_engine, &te_engine};
  sp_sched *s = (sp_sched *)1;
  char err[512] = "";
  ck_assert_int_eq(sp_sched_create(c, engines, &hooks, &s, err, sizeof err), SEALPROV_ERR_DEVICE);
  ck_assert_ptr_null(s);
  ck_assert_msg(strstr(err, "device 1 (cpu1): worker 0 failed to bind: injected bind failure"),
                "%s", err);
  ck_assert_int_eq(atomic_load(&te.binds), 3);
  ck_assert_int_eq(atomic_load(&te.unbinds), 3); /* every bound worker was stopped and joined */
  ck_assert_int_eq(atomic_load(&te.opens), 2);
  ck_assert_int_eq(atomic_load(&te.closes), 2);
  free(c);
}
END_TEST

START_TEST(test_wrong_ordinal) {
  sp_config *c = mkcfg(2, 2);
  for (int i = 0; i < 2; i++) {
    c->devices[i].type = SP_DEVICE_CUDA;
    c->devices[i].ordinal = i;
    c->devices[i].selector_kind = SP_SELECT_UUID;
    snprintf(c->devices[i].selector, sizeof c->devices[i].selector, "GPU-test-%d", i);
    snprintf(c->devices[i].uuid, sizeof c->devices[i].uuid, "GPU-test-%d", i);
    snprintf(c->devices[i].pci_bus_id, sizeof c->devices[i].pci_bus_id, "0000:0%d:00.0", i);
  }
  te_set_mode(1, TE_WRONG_ORDINAL, -1);
  const sp_engine_ops *engines[2] = {&te_engine, &te_engine};
  sp_sched *s = NULL;
  char err[512] = "";
  ck_assert_int_eq(sp_sched_create(c, engines, &hooks, &s, err, sizeof err), SEALPROV_ERR_DEVICE);
  ck_assert_msg(strstr(err, "device 1 (cpu1): worker 1 confirmed ordinal 2, expected 1"), "%s",
                err);
  ck_assert_int_eq(atomic_load(&te.unbinds), 4);
  ck_assert_int_eq(atomic_load(&te.closes), 2);

  te_reset(); /* the same devices with honest workers open, and report the binding */
  ck_assert_int_eq(sp_sched_create(c, engines, &hooks, &s, err, sizeof err), SEALPROV_OK);
  sealprov_device_info info[2];
  size_t count;
  device_table(s, info, 2, &count);
  for (int i = 0; i < 2; i++) {
    ck_assert_str_eq(info[i].type, "cuda");
    ck_assert_int_eq(info[i].ordinal, i);
    ck_assert_int_eq(info[i].confirmed_ordinal, i);
  }
  char text[8192];
  size_t tlen;
  ck_assert_int_eq(sp_sched_timeline(s, text, sizeof text, &tlen), SEALPROV_OK);
  ck_assert_msg(strstr(text, "event=bound job=0 partition=0 device=1 worker=3 ") &&
                    strstr(text, "ordinal=1\n"),
                "%s", text);
  ck_assert_int_eq(sp_sched_stats(s, text, sizeof text, &tlen), SEALPROV_OK);
  ck_assert_ptr_nonnull(strstr(text,
                               "uuid=\"GPU-test-1\",pci_bus_id=\"0000:01:00.0\",ordinal=\"1\","
                               "confirmed_ordinal=\"1\"} 1\n"));
  ck_assert(
      te_log_has("device 1 [cpu1] cuda: device = uuid=GPU-test-1 -> ordinal 1 "
                 "'virtual cpu 1' uuid GPU-test-1 pci 0000:01:00.0; 2 worker(s) bound, "
                 "confirmed ordinal 1"));
  sp_sched_destroy(s);
  free(c);
}
END_TEST

START_TEST(test_open_failure) {
  sp_config *c = mkcfg(3, 1);
  te_set_mode(1, TE_FAIL_OPEN, -1);
  const sp_engine_ops *engines[3] = {&te_engine, &te_engine, &te_engine};
  sp_sched *s = NULL;
  char err[512] = "";
  ck_assert_int_eq(sp_sched_create(c, engines, &hooks, &s, err, sizeof err), SEALPROV_ERR_DEVICE);
  ck_assert_msg(strstr(err, "device 1 (cpu1, test engine): cannot open: injected open failure"),
                "%s", err);
  ck_assert_int_eq(atomic_load(&te.opens), 1);
  ck_assert_int_eq(atomic_load(&te.closes), 1);
  ck_assert_int_eq(atomic_load(&te.binds), 0);

  c->ndevices = 0;
  ck_assert_int_eq(sp_sched_create(c, engines, &hooks, &s, err, sizeof err),
                   SEALPROV_ERR_NO_DEVICE);
  ck_assert_ptr_nonnull(strstr(err, "test-pool.ini: no device sections"));
  free(c);
}
END_TEST

/* ---- submit ------------------------------------------------------------------------- */

START_TEST(test_submit_validation) {
  sp_config *c = mkcfg(1, 1);
  c->max_partitions = 16;
  sp_sched *s = mksched(c);
  char err[512];
  sealprov_job_id id;
  tjob *j = mkjob(4, 0, 0);
  uint8_t rs[4 * 32];
  memset(rs, 0xff, sizeof rs);
  struct {
    const char *what;
    int status;
    const char *msg;
  } cases[] = {
      {"struct_size", SEALPROV_ERR_INVALID_ARGUMENT, "job->struct_size 8 is smaller"},
      {"srs", SEALPROV_ERR_INVALID_ARGUMENT, "job->srs is NULL"},
      {"vk_only", SEALPROV_ERR_INVALID_ARGUMENT, "job->srs (test.vk) is a verifying key"},
      {"num_partitions", SEALPROV_ERR_INVALID_ARGUMENT, "job->num_partitions is 0"},
      {"too_many", SEALPROV_ERR_INVALID_ARGUMENT,
       "job->num_partitions 17 exceeds max_partitions 16"},
      {"partitions", SEALPROV_ERR_INVALID_ARGUMENT, "job->partitions is NULL"},
      {"proofs_out", SEALPROV_ERR_INVALID_ARGUMENT, "job->proofs_out is NULL"},
      {"encoding", SEALPROV_ERR_INVALID_ARGUMENT, "job->scalar_encoding 7 is neither"},
      {"flags", SEALPROV_ERR_INVALID_ARGUMENT, "job->flags 0x10 has unknown bits 0x10"},
      {"r_without_flag", SEALPROV_ERR_INVALID_ARGUMENT,
       "job->r is set without SEALPROV_JOB_FIXED_RS"},
      {"flag_without_s", SEALPROV_ERR_INVALID_ARGUMENT, "FIXED_RS but job->s is NULL"},
      {"r_not_reduced", SEALPROV_ERR_INVALID_ARGUMENT,
       "job->r of partition 0 is not a scalar below"},
      {"assignment", SEALPROV_ERR_ASSIGNMENT, "partition 2: aux_size 999 does not match"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    sealprov_job bad = j->job;
    sealprov_assignment asg[4];
    memcpy(asg, j->asg, sizeof asg);
    const char *w = cases[k].what;
    if (!strcmp(w, "struct_size")) bad.struct_size = 8;
    if (!strcmp(w, "srs")) bad.srs = NULL;
    if (!strcmp(w, "vk_only")) bad.srs = (sealprov_srs *)&test_vk_only;
    if (!strcmp(w, "num_partitions")) bad.num_partitions = 0;
    if (!strcmp(w, "too_many")) bad.num_partitions = 17;
    if (!strcmp(w, "partitions")) bad.partitions = NULL;
    if (!strcmp(w, "proofs_out")) bad.proofs_out = NULL;
    if (!strcmp(w, "encoding")) bad.scalar_encoding = 7;
    if (!strcmp(w, "flags")) bad.flags = 0x10;
    if (!strcmp(w, "r_without_flag")) bad.r = rs;
    if (!strcmp(w, "flag_without_s")) {
      bad.flags = SEALPROV_JOB_FIXED_RS;
      bad.r = rs;
    }
    if (!strcmp(w, "r_not_reduced")) {
      bad.flags = SEALPROV_JOB_FIXED_RS;
      bad.r = bad.s = rs;
    }
    if (!strcmp(w, "assignment")) {
      asg[2].aux_size = 999;
      bad.partitions = asg;
    }
    err[0] = '\0';
    id = 77;
    int st = sp_sched_submit(s, &bad, &id, err, sizeof err);
    ck_assert_msg(st == cases[k].status, "%s: got %s (%s)", w, sp_status_name(st), err);
    ck_assert_msg(strstr(err, cases[k].msg) != NULL, "%s: message '%s' lacks '%s'", w, err,
                  cases[k].msg);
    ck_assert_uint_eq(id, 0);
  }
  ck_assert_int_eq(sp_sched_submit(s, NULL, &id, err, sizeof err), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(atomic_load(&srs_refs), 0); /* refused jobs hold no reference */

  /* Queue limits: max_partitions counts queued partitions, max_jobs active jobs. */
  te_gate_close();
  tjob *first = mkjob(1, 0, 0);
  submit_ok(s, first);
  ck_assert(te_gate_wait_blocked(1));
  tjob *big = mkjob(16, 0, 0);
  submit_ok(s, big);
  tjob *more = mkjob(1, 0, 0);
  ck_assert_int_eq(sp_sched_submit(s, &more->job, &id, err, sizeof err), SEALPROV_ERR_QUEUE_FULL);
  ck_assert_msg(strstr(err, "16 partitions queued + 1 would exceed max_partitions = 16"), "%s",
                err);
  te_gate_open();
  ck_assert_int_eq(wait_job(s, first, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(wait_job(s, big, err, sizeof err), SEALPROV_OK);
  sp_sched_destroy(s);

  te_reset();
  c->max_jobs = 1;
  s = mksched(c);
  te_gate_close();
  tjob *one = mkjob(1, 0, 0);
  submit_ok(s, one);
  ck_assert_int_eq(sp_sched_submit(s, &more->job, &id, err, sizeof err), SEALPROV_ERR_QUEUE_FULL);
  ck_assert_msg(strstr(err, "1 jobs are queued or running (max_jobs = 1"), "%s", err);
  te_gate_open();
  ck_assert_int_eq(wait_job(s, one, err, sizeof err), SEALPROV_OK);
  submit_ok(s, more); /* room again once the first ended */
  ck_assert_int_eq(wait_job(s, more, err, sizeof err), SEALPROV_OK);
  sp_sched_destroy(s);
  free(one);
  free(more);
  free(first);
  free(big);
  free(j);
  free(c);
}
END_TEST

static void le32_of(uint8_t out[32], uint64_t v) {
  memset(out, 0, 32);
  for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (8 * i));
}

/* r and s reach the engine: the host's under FIXED_RS (both encodings), else fresh
 * random values that differ between partitions. */
START_TEST(test_blinding_factors) {
  sp_config *c = mkcfg(1, 1);
  sp_sched *s = mksched(c);
  char err[512];
  tjob *j = mkjob(3, 0, SEALPROV_JOB_FIXED_RS);
  uint8_t r[3 * 32], sv[3 * 32];
  for (int p = 0; p < 3; p++) {
    le32_of(r + 32 * p, 1000 + (uint64_t)p);
    le32_of(sv + 32 * p, 2000 + (uint64_t)p);
  }
  j->job.r = r;
  j->job.s = sv;
  submit_ok(s, j);
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  te_record rec[8];
  ck_assert_uint_eq(te_records_of(j->id, rec, 8), 3);
  for (int i = 0; i < 3; i++) {
    fr_t want_r, want_s;
    fr_from_u64(&want_r, 1000 + rec[i].partition);
    fr_from_u64(&want_s, 2000 + rec[i].partition);
    ck_assert(fr_eq(&rec[i].r, &want_r));
    ck_assert(fr_eq(&rec[i].s, &want_s));
  }
  free(j);

  /* Montgomery limbs as blst holds them. */
  j = mkjob(1, 0, SEALPROV_JOB_FIXED_RS);
  j->job.scalar_encoding = SEALPROV_SCALAR_MONTGOMERY;
  fr_t mr, ms;
  fr_from_u64(&mr, 7);
  fr_from_u64(&ms, 9);
  uint8_t rb[32], sb[32];
  memcpy(rb, mr.l, 32);
  memcpy(sb, ms.l, 32);
  j->job.r = rb;
  j->job.s = sb;
  submit_ok(s, j);
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  ck_assert_uint_eq(te_records_of(j->id, rec, 8), 1);
  ck_assert(fr_eq(&rec[0].r, &mr));
  ck_assert(fr_eq(&rec[0].s, &ms));
  free(j);

  j = mkjob(4, 0, 0);
  submit_ok(s, j);
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  ck_assert_uint_eq(te_records_of(j->id, rec, 8), 4);
  for (int a = 0; a < 4; a++) {
    ck_assert(!fr_is_zero(&rec[a].r));
    ck_assert(!fr_is_zero(&rec[a].s));
    ck_assert(!fr_eq(&rec[a].r, &rec[a].s));
    for (int b = a + 1; b < 4; b++) ck_assert(!fr_eq(&rec[a].r, &rec[b].r));
  }
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

/* ---- observability ---------------------------------------------------------------- */

START_TEST(test_timeline_and_stats) {
  sp_config *c = mkcfg(2, 1);
  sp_sched *s = mksched(c);
  atomic_store(&te.execute_us, 1000);
  tjob *j = mkjob(4, 0, 0);
  submit_ok(s, j);
  char err[512];
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);

  size_t len = 0;
  ck_assert_int_eq(sp_sched_timeline(s, NULL, 0, &len), SEALPROV_OK);
  ck_assert_uint_gt(len, 0);
  char *tl = malloc(len + 1);
  size_t len2 = 0;
  ck_assert_int_eq(sp_sched_timeline(s, tl, len + 1, &len2), SEALPROV_OK);
  ck_assert_uint_eq(len2, len);
  ck_assert_uint_eq(strlen(tl), len);
  /* One line per event; each partition went queued -> start -> prepare -> lock_wait ->
   * execute -> verify -> done, on the device and worker the engine saw. */
  static const char *const order[] = {"queued",  "start",  "prepare", "lock_wait",
                                      "execute", "verify", "done"};
  unsigned seen[4] = {0}, bound = 0;
  double last_t = 0;
  char *save = NULL;
  for (char *line = strtok_r(tl, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    double t, dur;
    char ev[32];
    uint64_t job;
    unsigned part;
    int dev, wk;
    ck_assert_msg(sscanf(line,
                         "t=%lf event=%31s job=%" SCNu64 " partition=%u device=%d worker=%d "
                         "duration=%lf",
                         &t, ev, &job, &part, &dev, &wk, &dur) == 7,
                  "bad line: %s", line);
    ck_assert(t >= last_t);
    last_t = t;
    if (!strcmp(ev, "bound")) { /* one per worker, at open, before any task */
      ck_assert_uint_eq(job, 0);
      ck_assert_ptr_nonnull(strstr(line, " ordinal=-1"));
      ck_assert_uint_eq(seen[0] + seen[1] + seen[2] + seen[3], 0);
      bound++;
      continue;
    }
    ck_assert_uint_eq(job, j->id);
    if (!strcmp(ev, "execute")) ck_assert_ptr_nonnull(strstr(line, " ordinal=-1"));
    ck_assert_uint_lt(part, 4);
    ck_assert_msg(seen[part] < 7 && !strcmp(ev, order[seen[part]]),
                  "partition %u: event %s out of order (line: %s)", part, ev, line);
    if (seen[part] > 0) {
      ck_assert_int_eq(dev, j->res[part].device);
      ck_assert_int_ge(wk, 0);
    } else {
      ck_assert_int_eq(dev, -1);
    }
    ck_assert(dur >= 0);
    seen[part]++;
  }
  for (int p = 0; p < 4; p++) ck_assert_uint_eq(seen[p], 7);
  ck_assert_uint_eq(bound, 2);
  free(tl);

  char small[10];
  ck_assert_int_eq(sp_sched_timeline(s, small, sizeof small, &len2), SEALPROV_OK);
  ck_assert_uint_eq(len2, len);
  ck_assert_uint_eq(strlen(small), 9);

  ck_assert_int_eq(sp_sched_stats(s, NULL, 0, &len), SEALPROV_OK);
  char *st = malloc(len + 1);
  ck_assert_int_eq(sp_sched_stats(s, st, len + 1, &len2), SEALPROV_OK);
  uint64_t tasks = 0;
  for (int d = 0; d < 2; d++) {
    char key[128];
    snprintf(key, sizeof key,
             "sealprov_device_tasks_total{device=\"%d\",section=\"cpu%d\",type=\"cpu\"} ", d, d);
    char *at = strstr(st, key);
    ck_assert_msg(at != NULL, "no %s in\n%s", key, st);
    tasks += strtoull(at + strlen(key), NULL, 10);
    snprintf(key, sizeof key,
             "sealprov_device_memory_bytes{device=\"%d\",section=\"cpu%d\",type=\"cpu\"} %d\n", d,
             d, 1000 + d);
    ck_assert_msg(strstr(st, key) != NULL, "no %s", key);
  }
  ck_assert_uint_eq(tasks, 4);
  ck_assert_ptr_nonnull(strstr(st, "# TYPE sealprov_device_busy_seconds_total counter\n"));
  ck_assert_ptr_nonnull(strstr(st, "sealprov_device_lock_wait_seconds_total{device=\"0\""));
  ck_assert_ptr_nonnull(strstr(st, "sealprov_queue_depth 0\n"));
  ck_assert_ptr_nonnull(strstr(st,
                               "sealprov_device_info{device=\"1\",section=\"cpu1\",type=\"cpu\","
                               "name=\"virtual cpu 1\",uuid=\"\",pci_bus_id=\"\",ordinal=\"-1\","
                               "confirmed_ordinal=\"-1\"} 1\n"));
  ck_assert_ptr_nonnull(strstr(st, "sealprov_jobs_completed_total{outcome=\"ok\"} 1\n"));
  /* host memory the module holds (hostmem.h): the CPU engine holds none; no cap set */
  ck_assert_ptr_nonnull(
      strstr(st, "sealprov_device_module_host_bytes{device=\"1\",section=\"cpu1\"} 0\n"));
  ck_assert_ptr_nonnull(strstr(st, "sealprov_module_host_bytes 0\n"));
  ck_assert_ptr_nonnull(strstr(st, "sealprov_module_host_limit_bytes 0\n"));
  ck_assert_ptr_nonnull(strstr(st, "sealprov_module_host_waits_total 0\n"));
  free(st);
  sp_sched_destroy(s);
  free(j);

  /* A small ring keeps the newest events only. */
  te_reset();
  c->timeline_events = 5;
  s = mksched(c);
  j = mkjob(4, 0, 0);
  submit_ok(s, j);
  ck_assert_int_eq(wait_job(s, j, err, sizeof err), SEALPROV_OK);
  char buf[4096];
  ck_assert_int_eq(sp_sched_timeline(s, buf, sizeof buf, &len), SEALPROV_OK);
  unsigned lines = 0;
  for (char *p = buf; *p; p++) lines += *p == '\n';
  ck_assert_uint_eq(lines, 5);
  ck_assert_ptr_nonnull(strstr(buf, "event=done"));
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

/* A host built with a smaller device_info gets entries of its size. */
START_TEST(test_devices_old_host) {
  sp_config *c = mkcfg(3, 1);
  sp_sched *s = mksched(c);
  size_t count = 0;
  ck_assert_int_eq(sp_sched_devices(s, NULL, 0, &count), SEALPROV_OK);
  ck_assert_uint_eq(count, 3);
  size_t small = offsetof(sealprov_device_info, tasks_done);
  unsigned char *raw = calloc(3, small);
  ((sealprov_device_info *)raw)->struct_size = (uint32_t)small;
  ck_assert_int_eq(sp_sched_devices(s, (sealprov_device_info *)raw, 3, &count), SEALPROV_OK);
  for (int i = 0; i < 3; i++) {
    sealprov_device_info e;
    memset(&e, 0, sizeof e);
    memcpy(&e, raw + i * small, small);
    ck_assert_uint_eq(e.struct_size, small);
    ck_assert_int_eq(e.index, i);
    char want[16];
    snprintf(want, sizeof want, "cpu%d", i);
    ck_assert_str_eq(e.section, want);
    ck_assert_str_eq(e.type, "cpu");
    ck_assert_int_eq(e.ordinal, -1);
    ck_assert_uint_eq(e.workers, 1);
  }
  free(raw);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

static Suite *pool_suite(void) {
  Suite *s = suite_create("pool");
  TCase *tc = tcase_create("placement");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_spread, 2, 4);
  tcase_add_test(tc, test_lock_exclusive);
  tcase_add_test(tc, test_prepare_overlaps_execute);
  tcase_add_test(tc, test_concurrent_submitters);
  suite_add_tcase(s, tc);

  tc = tcase_create("faults");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_failover_quarantine);
  tcase_add_test(tc, test_device_memory_requeue);
  tcase_add_test(tc, test_self_check);
#ifdef SP_FAULT_INJECTION
  tcase_add_test(tc, test_inject_config);
#endif
  tcase_add_test(tc, test_all_devices_fail);
  tcase_add_test(tc, test_attempts_exhausted);
  tcase_add_test(tc, test_input_error_not_retried);
  tcase_add_test(tc, test_bad_witness_not_charged);
  tcase_add_test(tc, test_self_check_single_device);
  suite_add_tcase(s, tc);

  tc = tcase_create("lifecycle");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_close_in_flight);
  tcase_add_test(tc, test_close_releases_waiter);
  tcase_add_test(tc, test_priority_order);
  tcase_add_test(tc, test_cancel);
  tcase_add_test(tc, test_wait_timeout);
  tcase_add_test(tc, test_callback_reentry);
  tcase_add_test(tc, test_bind_failure);
  tcase_add_test(tc, test_wrong_ordinal);
  tcase_add_test(tc, test_open_failure);
  suite_add_tcase(s, tc);

  tc = tcase_create("jobs");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_submit_validation);
  tcase_add_test(tc, test_blinding_factors);
  tcase_add_test(tc, test_timeline_and_stats);
  tcase_add_test(tc, test_devices_old_host);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(pool_suite());
  srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists every test */
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
