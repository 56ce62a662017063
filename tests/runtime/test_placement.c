/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_placement.c -- where the scheduler puts partitions on devices of different
 * memory and speed (runtime/placement.c), on virtual devices of the recording test
 * engine: its capacity answer is TE_BYTES_PER_POINT bytes a point of the domain against
 * te.memory[device], and te.device_us slows one device down.
 *
 * Capacity: a device without the memory for a job's partitions never runs one, is
 * never charged and never quarantined; a job no device (or no device it allows) can
 * hold is refused at submit with DEVICE_MEMORY, the bytes needed and available and the
 * smallest memory_limit that works; devices() reports the largest size that fits.
 * Speed: a device many times slower than another, once measured, leaves a job's
 * partitions to the fast one; one a few times slower takes fewer of them. The
 * assertions are on placement (which device ran which partition), never on times. */
#include <config.h>

#include "base/log.h"
#include "runtime/sp_sched.h"
#include "test_engine.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 16

static sp_srs test_srs; /* only path and log_domain are read */

static const sp_sched_hooks hooks = {.verify_proof = te_verify};

static void setup(void) {
  te_reset();
  test_srs.path = "placement.params";
  test_srs.log_domain = 4; /* needs TE_BYTES_PER_POINT << 4 = 16000 bytes */
  te_log_capture();
}

static void teardown(void) { sp_log_set_host(NULL); }

static sp_sched *mksched(unsigned ndev) {
  sp_config *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  snprintf(c->path, sizeof c->path, "test-placement.ini");
  c->log_level = SEALPROV_LOG_DEBUG;
  c->verify_proofs = true;
  c->max_jobs = 64;
  c->max_partitions = 1024;
  c->quarantine_after = 1; /* one charge would show at once */
  c->max_attempts = 3;
  c->timeline_events = 4096;
  c->ndevices = ndev;
  const sp_engine_ops *engines[SP_MAX_DEVICES];
  for (unsigned i = 0; i < ndev; i++) {
    sp_device_cfg *d = &c->devices[i];
    d->index = i;
    snprintf(d->section, sizeof d->section, "dev%u", i);
    d->type = SP_DEVICE_CPU;
    d->workers = 1;
    d->threads = 1;
    d->ordinal = -1;
    engines[i] = &te_engine;
  }
  sp_sched *s = NULL;
  char err[512] = "";
  int st = sp_sched_create(c, engines, &hooks, &s, err, sizeof err);
  ck_assert_msg(st == SEALPROV_OK, "create: %s: %s", sp_status_name(st), err);
  free(c);
  return s;
}

typedef struct tjob {
  sealprov_assignment asg[MAXP];
  uint8_t proofs[MAXP * 192];
  sealprov_partition_result res[MAXP];
  sealprov_job job;
  sealprov_job_id id;
} tjob;

static tjob *mkjob(uint32_t n, uint64_t mask) {
  tjob *j = calloc(1, sizeof *j);
  ck_assert_ptr_nonnull(j);
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

/* Submits and waits; the job must prove. Returns how many partitions each device ran
 * (per[device]) from the job's results. */
static void run_job(sp_sched *s, tjob *j, unsigned per[SP_MAX_DEVICES]) {
  char err[512] = "";
  int st = sp_sched_submit(s, &j->job, &j->id, err, sizeof err);
  ck_assert_msg(st == SEALPROV_OK, "submit: %s: %s", sp_status_name(st), err);
  st = sp_sched_wait(s, j->id, -1, err, sizeof err);
  ck_assert_msg(st == SEALPROV_OK, "wait: %s: %s", sp_status_name(st), err);
  memset(per, 0, SP_MAX_DEVICES * sizeof *per);
  for (uint32_t p = 0; p < j->job.num_partitions; p++) {
    ck_assert_int_eq(j->res[p].status, SEALPROV_OK);
    ck_assert_uint_eq(j->res[p].attempts, 1);
    ck_assert_int_ge(j->res[p].device, 0);
    per[j->res[p].device]++;
  }
}

/* No device was charged, none is quarantined. */
static void assert_no_charge(sp_sched *s, unsigned ndev) {
  sealprov_device_info d[SP_MAX_DEVICES];
  memset(d, 0, sizeof d);
  size_t n = 0;
  ck_assert_int_eq(sp_sched_devices(s, d, SP_MAX_DEVICES, &n), SEALPROV_OK);
  ck_assert_uint_eq(n, ndev);
  for (unsigned i = 0; i < ndev; i++) {
    ck_assert_uint_eq(d[i].tasks_failed, 0);
    ck_assert_int_ne(d[i].state, SEALPROV_DEVICE_QUARANTINED);
  }
}

/* ---- capacity ------------------------------------------------------------------------ */

/* Three devices, the middle one too small for the job: every partition runs on the
 * other two, the small one is never given one, never charged, never quarantined; the
 * provider's check says so in a WARN line and still accepts the parameters. */
START_TEST(test_small_device_skipped) {
  sp_sched *s = mksched(3);
  atomic_store(&te.memory[1], 15999); /* one byte short of 2^4 */
  atomic_store(&te.memory[2], 16000); /* just enough */
  atomic_store(&te.execute_us, 2000);
  sp_partition_shape sh;
  sp_shape_of_srs(&test_srs, &sh);
  char err[1024] = "";
  ck_assert_int_eq(sp_sched_check_capacity(s, &sh, "srs_load", test_srs.path, err, sizeof err),
                   SEALPROV_OK);
  ck_assert(te_log_has("device 1 (dev1) needs 16000 bytes"));
  ck_assert(te_log_has("may use 15999 bytes"));
  ck_assert(!te_log_has("device 2 (dev2)"));
  for (int round = 0; round < 2; round++) {
    tjob *j = mkjob(12, 0);
    unsigned per[SP_MAX_DEVICES];
    run_job(s, j, per);
    ck_assert_uint_eq(per[1], 0);
    ck_assert_uint_eq(per[0] + per[2], 12);
    te_record rec[MAXP]; /* what the engine ran: no execute on device 1, not even failed */
    unsigned nrec = te_records_of(j->id, rec, MAXP);
    ck_assert_uint_eq(nrec, 12);
    for (unsigned i = 0; i < nrec; i++) ck_assert_int_ne(rec[i].device, 1);
    free(j);
  }
  assert_no_charge(s, 3);
  sp_sched_destroy(s);
}
END_TEST

/* No device has the memory: submit refuses at once with DEVICE_MEMORY, what each needs
 * and has, and the memory_limit that works; nothing runs and nobody is charged. A job
 * whose device_mask allows only the small device is refused the same way while the
 * big one takes other jobs. */
START_TEST(test_too_small_refused) {
  sp_sched *s = mksched(2);
  atomic_store(&te.memory[0], 4096);
  atomic_store(&te.memory[1], 8192);
  sp_partition_shape sh;
  sp_shape_of_srs(&test_srs, &sh);
  char err[1024] = "";
  ck_assert_int_eq(sp_sched_check_capacity(s, &sh, "srs_load", test_srs.path, err, sizeof err),
                   SEALPROV_ERR_DEVICE_MEMORY);
  ck_assert_msg(strstr(err,
                       "srs_load: no device of this provider has the memory for a partition "
                       "of placement.params (domain 2^4") != NULL,
                "%s", err);
  tjob *j = mkjob(4, 0);
  int st = sp_sched_submit(s, &j->job, &j->id, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_DEVICE_MEMORY);
  ck_assert_msg(strstr(err,
                       "device 0 (dev0) needs 16000 bytes (15.62 KiB) and may use 4096 "
                       "bytes (4.00 KiB, its memory_limit): memory_limit = 16KiB or more "
                       "fits; device 1 (dev1) needs 16000 bytes") != NULL,
                "%s", err);
  ck_assert_int_eq(atomic_load(&te.executes), 0);

  atomic_store(&te.memory[1], 0); /* device 1 now holds anything */
  j->job.device_mask = SEALPROV_DEVICE_BIT(0);
  st = sp_sched_submit(s, &j->job, &j->id, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_DEVICE_MEMORY);
  ck_assert_msg(strstr(err, "submit: no device the job allows has the memory") != NULL, "%s", err);
  ck_assert_int_eq(atomic_load(&te.executes), 0);
  j->job.device_mask = 0;
  unsigned per[SP_MAX_DEVICES];
  run_job(s, j, per);
  ck_assert_uint_eq(per[1], 4);
  assert_no_charge(s, 2);
  free(j);
  sp_sched_destroy(s);
}
END_TEST

/* devices() gives each device the largest sealing-shaped partition that fits (the test
 * engine needs 1000 bytes a point: 2^10 in 1 MiB), what it may use, and -1 without a
 * bound. */
START_TEST(test_devices_capacity) {
  sp_sched *s = mksched(2);
  atomic_store(&te.memory[0], UINT64_C(1) << 20);
  sealprov_device_info d[2];
  memset(d, 0, sizeof d);
  size_t n = 0;
  ck_assert_int_eq(sp_sched_devices(s, d, 2, &n), SEALPROV_OK);
  ck_assert_int_eq(d[0].max_log_streamed, 10);
  ck_assert_int_eq(d[0].max_log_resident, 10);
  ck_assert_int_eq(d[0].max_log_tables, 0); /* the test engine makes none */
  ck_assert_uint_eq(d[0].device_memory, UINT64_C(1) << 20);
  ck_assert_int_eq(d[1].max_log_streamed, -1);
  ck_assert_int_eq(d[1].max_log_resident, -1);
  ck_assert_uint_eq(d[1].device_memory, 0);
  sp_sched_destroy(s);
}
END_TEST

/* ---- speed --------------------------------------------------------------------------- */

/* Two devices, device 1 slower (each execute fast_us, device 1's slow_us more), each
 * measured by a one-partition job pinned to it. */
static sp_sched *measured_pair(unsigned fast_us, unsigned slow_us) {
  sp_sched *s = mksched(2);
  atomic_store(&te.execute_us, fast_us);
  atomic_store(&te.device_us[1], slow_us);
  for (unsigned dev = 0; dev < 2; dev++) {
    unsigned per[SP_MAX_DEVICES];
    tjob *m = mkjob(1, SEALPROV_DEVICE_BIT(dev));
    run_job(s, m, per);
    ck_assert_uint_eq(per[dev], 1);
    free(m);
  }
  return s;
}

/* Both devices measured, a device a hundred times slower takes none of a 4-partition
 * job: the fast one finishes all four before the slow one could finish one. */
START_TEST(test_slow_device_left_out) {
  sp_sched *s = measured_pair(5000, 495000);
  unsigned per[SP_MAX_DEVICES];
  /* the speeds it places by, as stats() shows them */
  char text[8192];
  size_t len = 0;
  ck_assert_int_eq(sp_sched_stats(s, text, sizeof text, &len), SEALPROV_OK);
  ck_assert_msg(strstr(text,
                       "sealprov_device_partition_seconds{device=\"0\",section=\"dev0\","
                       "log_domain=\"4\"} ") != NULL &&
                    strstr(text, "sealprov_device_partition_seconds{device=\"1\"") != NULL,
                "%s", text);
  tjob *j = mkjob(4, 0);
  run_job(s, j, per);
  ck_assert_uint_eq(per[0], 4);
  ck_assert_uint_eq(per[1], 0);
  assert_no_charge(s, 2);
  free(j);
  sp_sched_destroy(s);
}
END_TEST

/* A device three times slower takes part of an 8-partition job, and fewer partitions
 * than the fast one. */
START_TEST(test_slower_device_takes_fewer) {
  sp_sched *s = measured_pair(20000, 40000);
  unsigned per[SP_MAX_DEVICES];
  tjob *j = mkjob(8, 0);
  run_job(s, j, per);
  ck_assert_uint_eq(per[0] + per[1], 8);
  ck_assert_uint_ge(per[1], 1);
  ck_assert_uint_gt(per[0], per[1]);
  assert_no_charge(s, 2);
  free(j);
  sp_sched_destroy(s);
}
END_TEST

/* A slower device leaves an urgent job to the fast one and then takes no partition of
 * the lower-priority stream queued behind it before the urgent job has started: in the
 * timeline, the urgent job's start comes before every start of the stream. */
START_TEST(test_priority_kept_when_leaving) {
  sp_sched *s = measured_pair(20000, 40000);
  /* device 0 busy (held at the gate) while the urgent job, then the stream, are queued */
  te_gate_close();
  tjob *hold = mkjob(1, SEALPROV_DEVICE_BIT(0));
  char err[512] = "";
  ck_assert_int_eq(sp_sched_submit(s, &hold->job, &hold->id, err, sizeof err), SEALPROV_OK);
  ck_assert(te_gate_wait_blocked(1));
  tjob *stream = mkjob(8, 0), *urgent = mkjob(1, 0);
  urgent->job.priority = 100;
  ck_assert_int_eq(sp_sched_submit(s, &urgent->job, &urgent->id, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(sp_sched_submit(s, &stream->job, &stream->id, err, sizeof err), SEALPROV_OK);
  te_gate_open();
  ck_assert_int_eq(sp_sched_wait(s, hold->id, -1, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(sp_sched_wait(s, urgent->id, -1, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(sp_sched_wait(s, stream->id, -1, err, sizeof err), SEALPROV_OK);
  char *tl = malloc(1 << 16);
  ck_assert_ptr_nonnull(tl);
  size_t len = 0;
  ck_assert_int_eq(sp_sched_timeline(s, tl, 1 << 16, &len), SEALPROV_OK);
  ck_assert_uint_lt(len, 1 << 16);
  char want[64], stream_start[64];
  snprintf(want, sizeof want, "event=start job=%" PRIu64 " ", urgent->id);
  snprintf(stream_start, sizeof stream_start, "event=start job=%" PRIu64 " ", stream->id);
  const char *u = strstr(tl, want), *st = strstr(tl, stream_start);
  ck_assert_msg(u != NULL && st != NULL && u < st, "a stream partition started first:\n%.3000s",
                st != NULL ? st : tl);
  free(tl);
  assert_no_charge(s, 2);
  free(hold), free(stream), free(urgent);
  sp_sched_destroy(s);
}
END_TEST

static Suite *placement_suite(void) {
  Suite *su = suite_create("placement");
  TCase *tc = tcase_create("capacity");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_small_device_skipped);
  tcase_add_test(tc, test_too_small_refused);
  tcase_add_test(tc, test_devices_capacity);
  suite_add_tcase(su, tc);
  tc = tcase_create("speed");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_slow_device_left_out);
  tcase_add_test(tc, test_slower_device_takes_fewer);
  tcase_add_test(tc, test_priority_kept_when_leaving);
  suite_add_tcase(su, tc);
  return su;
}

int main(void) {
  SRunner *sr = srunner_create(placement_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
