/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_affinity.c -- per-job device choice (sealprov_job.device_mask, ABI 1.2) in the
 * scheduler, on virtual devices (the recording test engine of test_engine.c).
 *
 * What is checked: a job restricted to some devices runs only there (the engine's
 * records and the partition results' device field agree); a retry after a device
 * fault goes to another ALLOWED device; a restricted job whose only device faults
 * fails cleanly (the faulted partition with the device error, the rest with NO_DEVICE)
 * while other jobs carry on; a host built against ABI 1.0/1.1 (smaller struct_size)
 * gets "any device" whatever lies past its struct; bad masks are refused at submit.
 * No assertion depends on timing.
 */
#include <config.h>

#include "base/log.h"
#include "runtime/sp_sched.h"
#include "test_engine.h"

#include <check.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 32

static sp_srs test_srs;

static const sp_sched_hooks hooks = {.verify_proof = te_verify};

static void setup(void) {
  te_reset();
  test_srs.path = "test.params";
  te_log_capture();
}

static void teardown(void) { sp_log_set_host(NULL); }

static sp_config *mkcfg(unsigned ndev, unsigned workers) {
  sp_config *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  snprintf(c->path, sizeof c->path, "test-affinity.ini");
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

typedef struct tjob {
  uint32_t n;
  sealprov_assignment asg[MAXP];
  uint8_t proofs[MAXP * 192];
  sealprov_partition_result res[MAXP];
  sealprov_job job;
  sealprov_job_id id;
} tjob;

static tjob *mkjob(uint32_t n, uint64_t mask) {
  tjob *j = calloc(1, sizeof *j);
  ck_assert_ptr_nonnull(j);
  ck_assert_uint_le(n, MAXP);
  j->n = n;
  j->job.struct_size = sizeof j->job;
  j->job.srs = (sealprov_srs *)&test_srs;
  j->job.partitions = j->asg;
  j->job.num_partitions = n;
  j->job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  j->job.proofs_out = j->proofs;
  j->job.results = j->res;
  j->job.device_mask = mask;
  return j;
}

static void submit_ok(sp_sched *s, tjob *j) {
  char err[512] = "";
  int st = sp_sched_submit(s, &j->job, &j->id, err, sizeof err);
  ck_assert_msg(st == SEALPROV_OK, "submit: %s: %s", sp_status_name(st), err);
}

static void assert_proofs(const tjob *j) {
  for (uint32_t p = 0; p < j->n; p++) {
    uint8_t want[192];
    te_expected_proof(&j->asg[p], want);
    ck_assert_msg(memcmp(want, j->proofs + 192 * p, 192) == 0, "partition %u: wrong proof", p);
  }
}

/* Bit d of the devices whose execute ran any partition of j (failed attempts too). */
static uint64_t devices_used(const tjob *j) {
  te_record rec[TE_MAX_RECORDS / 8];
  unsigned n = te_records_of(j->id, rec, sizeof rec / sizeof rec[0]);
  uint64_t used = 0;
  for (unsigned i = 0; i < n; i++) {
    ck_assert_int_eq(rec[i].device, rec[i].bound_device);
    used |= UINT64_C(1) << rec[i].device;
  }
  return used;
}

/* ---- placement --------------------------------------------------------------------- */

/* Three devices: a job pinned to device 1 runs every partition there, a job allowed
 * {0, 2} never touches device 1, and an unrestricted job submitted with them may run
 * anywhere; all three get their proofs. */
START_TEST(test_pinned_runs_only_there) {
  sp_config *c = mkcfg(3, 2);
  sp_sched *s = mksched(c);
  atomic_store(&te.execute_us, 3000);
  tjob *pinned = mkjob(12, SEALPROV_DEVICE_BIT(1));
  tjob *pair = mkjob(12, SEALPROV_DEVICE_BIT(0) | SEALPROV_DEVICE_BIT(2));
  tjob *any = mkjob(12, 0);
  submit_ok(s, pinned);
  submit_ok(s, pair);
  submit_ok(s, any);
  char err[512] = "";
  ck_assert_int_eq(sp_sched_wait(s, pinned->id, -1, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(sp_sched_wait(s, pair->id, -1, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(sp_sched_wait(s, any->id, -1, err, sizeof err), SEALPROV_OK);
  assert_proofs(pinned);
  assert_proofs(pair);
  assert_proofs(any);
  for (uint32_t p = 0; p < 12; p++) {
    ck_assert_int_eq(pinned->res[p].status, SEALPROV_OK);
    ck_assert_int_eq(pinned->res[p].device, 1);
    ck_assert_uint_eq(pinned->res[p].attempts, 1);
    ck_assert_int_eq(pair->res[p].status, SEALPROV_OK);
    ck_assert_msg(pair->res[p].device == 0 || pair->res[p].device == 2,
                  "partition %u of the {0,2} job ran on device %d", p, pair->res[p].device);
    ck_assert_int_ge(any->res[p].device, 0);
    ck_assert_int_le(any->res[p].device, 2);
  }
  ck_assert_uint_eq(devices_used(pinned), SEALPROV_DEVICE_BIT(1));
  ck_assert_uint_eq(devices_used(pair) & SEALPROV_DEVICE_BIT(1), 0);
  ck_assert(te_log_has("12 partition(s) restricted to device 1 (cpu1)"));
  ck_assert(te_log_has("restricted to device 0 (cpu0), device 2 (cpu2)"));
  ck_assert_int_eq(te_violations(), 0);
  sp_sched_destroy(s);
  free(pinned);
  free(pair);
  free(any);
  free(c);
}
END_TEST

/* A device fault on an allowed device moves the partition to the OTHER allowed
 * device, never to a device the job does not allow (device 0 here). */
START_TEST(test_retry_stays_allowed) {
  sp_config *c = mkcfg(3, 1);
  sp_sched *s = mksched(c);
  te_set_mode(1, TE_FAIL_DEVICE, 2); /* device 1 fails its next two executes */
  atomic_store(&te.execute_us, 2000);
  tjob *j = mkjob(8, SEALPROV_DEVICE_BIT(1) | SEALPROV_DEVICE_BIT(2));
  submit_ok(s, j);
  char err[512] = "";
  ck_assert_int_eq(sp_sched_wait(s, j->id, -1, err, sizeof err), SEALPROV_OK);
  assert_proofs(j);
  te_record rec[64];
  unsigned n = te_records_of(j->id, rec, 64);
  unsigned failed = 0;
  for (unsigned i = 0; i < n; i++) {
    ck_assert_int_ne(rec[i].device, 0);
    if (rec[i].failed) {
      ck_assert_int_eq(rec[i].device, 1);
      failed++;
      /* the failed partition's proof came from device 2, on its second attempt */
      ck_assert_int_eq(j->res[rec[i].partition].device, 2);
      ck_assert_uint_eq(j->res[rec[i].partition].attempts, 2);
    }
  }
  ck_assert_uint_eq(failed, 2);
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

/* ---- faults -------------------------------------------------------------------------- */

/* Device 1 always fails. A job pinned to it fails cleanly: the partition that ran there
 * ends with the device error once device 1 is quarantined, the job's other partitions
 * with NO_DEVICE, every callback accounted for; jobs submitted next to it carry on on
 * devices 0 and 2. A later job pinned to device 1 is refused at submit (NO_DEVICE), one
 * allowed {1, 2} runs on 2. */
START_TEST(test_pinned_fault_fails_cleanly) {
  sp_config *c = mkcfg(3, 1);
  c->quarantine_after = 2;
  c->max_attempts = 3;
  sp_sched *s = mksched(c);
  te_set_mode(1, TE_FAIL_DEVICE, -1);
  atomic_store(&te.execute_us, 2000);
  tjob *pinned = mkjob(4, SEALPROV_DEVICE_BIT(1));
  submit_ok(s, pinned); /* first: device 1's worker takes its partition 0 */
  tjob *others[3];
  for (int k = 0; k < 3; k++) {
    others[k] = mkjob(10, 0);
    submit_ok(s, others[k]);
  }
  char err[1024] = "";
  int st = sp_sched_wait(s, pinned->id, -1, err, sizeof err);
  ck_assert_msg(st == SEALPROV_ERR_DEVICE, "pinned job: %s: %s", sp_status_name(st), err);
  ck_assert_msg(strstr(err, "partition 0 of job") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "failed on device 1 (cpu1)") != NULL, "%s", err);
  ck_assert_msg(strstr(err,
                       "device_mask 0x2 allows no healthy device: device 1 (cpu1) "
                       "quarantined after 2 failures") != NULL,
                "%s", err);
  ck_assert_int_eq(pinned->res[0].status, SEALPROV_ERR_DEVICE);
  ck_assert_uint_eq(pinned->res[0].attempts, 2);
  ck_assert_int_eq(pinned->res[0].device, -1);
  for (uint32_t p = 1; p < 4; p++) {
    ck_assert_int_eq(pinned->res[p].status, SEALPROV_ERR_NO_DEVICE);
    ck_assert_uint_eq(pinned->res[p].attempts, 0);
  }
  ck_assert_uint_eq(devices_used(pinned), SEALPROV_DEVICE_BIT(1));
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(sp_sched_wait(s, others[k]->id, -1, err, sizeof err), SEALPROV_OK);
    assert_proofs(others[k]);
    for (uint32_t p = 0; p < 10; p++) ck_assert_int_ne(others[k]->res[p].device, 1);
  }

  sealprov_device_info info[3];
  size_t count = 0;
  memset(info, 0, sizeof info);
  ck_assert_int_eq(sp_sched_devices(s, info, 3, &count), SEALPROV_OK);
  ck_assert_int_eq(info[1].state, SEALPROV_DEVICE_QUARANTINED);
  ck_assert_int_ne(info[0].state, SEALPROV_DEVICE_QUARANTINED);
  ck_assert_int_ne(info[2].state, SEALPROV_DEVICE_QUARANTINED);

  tjob *late = mkjob(2, SEALPROV_DEVICE_BIT(1));
  st = sp_sched_submit(s, &late->job, &late->id, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_NO_DEVICE);
  ck_assert_uint_eq(late->id, 0);
  ck_assert_msg(strstr(err,
                       "submit: the job's device_mask 0x2 allows no healthy device: "
                       "device 1 (cpu1) quarantined after 2 failures") != NULL,
                "%s", err);
  tjob *spill = mkjob(4, SEALPROV_DEVICE_BIT(1) | SEALPROV_DEVICE_BIT(2));
  submit_ok(s, spill);
  ck_assert_int_eq(sp_sched_wait(s, spill->id, -1, err, sizeof err), SEALPROV_OK);
  assert_proofs(spill);
  for (uint32_t p = 0; p < 4; p++) ck_assert_int_eq(spill->res[p].device, 2);
  ck_assert_int_eq(te_violations(), 0);
  sp_sched_destroy(s);
  free(pinned);
  for (int k = 0; k < 3; k++) free(others[k]);
  free(late);
  free(spill);
  free(c);
}
END_TEST

/* No quarantine (quarantine_after = 0): a job pinned to a failing device retries there,
 * the only device it allows, and gives up after max_attempts with the device error. */
START_TEST(test_pinned_attempts_exhausted) {
  sp_config *c = mkcfg(2, 1);
  c->quarantine_after = 0;
  c->max_attempts = 2;
  sp_sched *s = mksched(c);
  te_set_mode(0, TE_FAIL_DEVICE, -1);
  tjob *j = mkjob(1, SEALPROV_DEVICE_BIT(0));
  submit_ok(s, j);
  char err[1024] = "";
  int st = sp_sched_wait(s, j->id, -1, err, sizeof err);
  ck_assert_msg(st == SEALPROV_ERR_DEVICE, "%s: %s", sp_status_name(st), err);
  ck_assert_msg(strstr(err,
                       "gave up after 2 attempts (max_attempts = 2); last on device 0 "
                       "(cpu0)") != NULL,
                "%s", err);
  ck_assert_uint_eq(j->res[0].attempts, 2);
  ck_assert_uint_eq(devices_used(j), SEALPROV_DEVICE_BIT(0));
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

/* ---- submit ------------------------------------------------------------------------ */

/* A host built against ABI 1.1 (struct ends after cs) or 1.0 (after user) gets any
 * device: what lies past its struct_size is never read. Bytes there that would be an
 * invalid mask (~0: submit would refuse it) are accepted; bytes that would pin the job
 * to device 0, which always fails here, do not keep the partitions from moving to
 * devices 1 and 2. */
START_TEST(test_old_struct_size_any_device) {
  static const size_t sizes[] = {offsetof(sealprov_job, device_mask), offsetof(sealprov_job, cs)};
  for (size_t k = 0; k < 2; k++) {
    for (int garbage = 0; garbage < 2; garbage++) {
      te_reset();
      sp_config *c = mkcfg(3, 1);
      c->quarantine_after = 1;
      sp_sched *s = mksched(c);
      te_set_mode(0, TE_FAIL_DEVICE, -1);
      tjob *j = mkjob(6, garbage == 0 ? ~UINT64_C(0) : SEALPROV_DEVICE_BIT(0));
      j->job.struct_size = (uint32_t)sizes[k];
      if (k == 1) j->job.cs = (sealprov_cs *)&test_srs; /* past a 1.0 struct: not read */
      submit_ok(s, j);
      char err[512] = "";
      int st = sp_sched_wait(s, j->id, -1, err, sizeof err);
      ck_assert_msg(st == SEALPROV_OK, "struct_size %zu: %s: %s", sizes[k], sp_status_name(st),
                    err);
      assert_proofs(j);
      for (uint32_t p = 0; p < 6; p++) {
        ck_assert_int_eq(j->res[p].status, SEALPROV_OK);
        ck_assert_int_ne(j->res[p].device, 0);
      }
      sp_sched_destroy(s);
      free(j);
      free(c);
    }
  }
}
END_TEST

/* Masks naming devices past the table are refused with the device and the table size;
 * nothing is queued. A mask of every device is the same as 0. */
START_TEST(test_bad_masks_refused) {
  sp_config *c = mkcfg(3, 1);
  sp_sched *s = mksched(c);
  static const struct {
    uint64_t mask;
    const char *msg;
  } cases[] = {
      {SEALPROV_DEVICE_BIT(3),
       "job->device_mask 0x8 names device 3, but this provider has 3 "
       "devices (indexes 0 to 2, as devices() lists them)"},
      {SEALPROV_DEVICE_BIT(0) | SEALPROV_DEVICE_BIT(5), "job->device_mask 0x21 names device 5"},
      {SEALPROV_DEVICE_BIT(63), "job->device_mask 0x8000000000000000 names device 63"},
      {~UINT64_C(0), "job->device_mask 0xffffffffffffffff names device 3"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    tjob *j = mkjob(2, cases[k].mask);
    char err[512] = "";
    sealprov_job_id id = 99;
    int st = sp_sched_submit(s, &j->job, &id, err, sizeof err);
    ck_assert_int_eq(st, SEALPROV_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(id, 0);
    ck_assert_msg(strstr(err, cases[k].msg) != NULL, "case %zu: %s", k, err);
    free(j);
  }
  size_t len = 0;
  ck_assert_int_eq(sp_sched_stats(s, NULL, 0, &len), SEALPROV_OK);
  char *text = malloc(len + 1);
  ck_assert_ptr_nonnull(text);
  ck_assert_int_eq(sp_sched_stats(s, text, len + 1, &len), SEALPROV_OK);
  ck_assert_ptr_nonnull(strstr(text, "sealprov_jobs_submitted_total 0\n"));
  free(text);

  tjob *all = mkjob(3, 0x7);
  submit_ok(s, all);
  char err[512] = "";
  ck_assert_int_eq(sp_sched_wait(s, all->id, -1, err, sizeof err), SEALPROV_OK);
  assert_proofs(all);
  sp_sched_destroy(s);
  free(all);
  free(c);
}
END_TEST

/* A failed self-check on the only allowed device: retried there (no other device is
 * allowed, so it cannot be "elsewhere"); it verifies, and the device is charged. */
START_TEST(test_pinned_self_check_retry) {
  sp_config *c = mkcfg(2, 1);
  sp_sched *s = mksched(c);
  te_set_mode(1, TE_CORRUPT, 1);
  tjob *j = mkjob(1, SEALPROV_DEVICE_BIT(1));
  submit_ok(s, j);
  char err[512] = "";
  ck_assert_int_eq(sp_sched_wait(s, j->id, -1, err, sizeof err), SEALPROV_OK);
  assert_proofs(j);
  ck_assert_int_eq(j->res[0].device, 1);
  ck_assert_uint_eq(j->res[0].attempts, 2);
  ck_assert_uint_eq(devices_used(j), SEALPROV_DEVICE_BIT(1));
  sealprov_device_info info[2];
  size_t count = 0;
  memset(info, 0, sizeof info);
  ck_assert_int_eq(sp_sched_devices(s, info, 2, &count), SEALPROV_OK);
  ck_assert_uint_eq(info[1].tasks_failed, 1);
  ck_assert_uint_eq(info[0].tasks_done, 0);
  sp_sched_destroy(s);
  free(j);
  free(c);
}
END_TEST

static Suite *affinity_suite(void) {
  Suite *s = suite_create("affinity");
  TCase *tc = tcase_create("device_mask");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_pinned_runs_only_there);
  tcase_add_test(tc, test_retry_stays_allowed);
  tcase_add_test(tc, test_pinned_fault_fails_cleanly);
  tcase_add_test(tc, test_pinned_attempts_exhausted);
  tcase_add_test(tc, test_old_struct_size_any_device);
  tcase_add_test(tc, test_bad_masks_refused);
  tcase_add_test(tc, test_pinned_self_check_retry);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(affinity_suite());
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
