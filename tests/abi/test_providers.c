/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_providers.c -- several providers in one process, through the module's vtable
 * (issue 22 items 2, 3, 4 and 6): the handle tables and the provider list never hold a
 * lock across device work, calls racing close() never touch freed memory, submit() and
 * prove() validate a job the same way, and each provider keeps its own host-memory cap
 * and counters.
 *
 * Providers come from sp_provider_create with the recording test engine (its execute
 * can be held at a gate with the device lock taken, as a long GPU partition would), or
 * from open() with CPU devices; parameter sets are real .params files of a tiny
 * synthetic circuit, loaded through srs_load. No assertion depends on timing: a call
 * that must not wait for a device runs on its own thread, and the test checks that it
 * returned while the device is still held (a module that stalls it fails by timeout).
 */
#include <config.h>

#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "circuit.h"
#include "abi/module.h"
#include "base/log.h"
#include "formats/srs.h"
#include "../runtime/test_engine.h"

static const sealprov_vtable *vt;
static char dir[256], params_path[400];

static void sleep_ms(unsigned ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* One tiny setup for the whole suite (before the forks of CK_FORK). */
static void make_params(void) {
  snprintf(dir, sizeof dir, "%s/sp_providers_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    exit(1);
  }
  sp_setup_opts o = {
      .constraints = 64, .inputs = 2, .partitions = 1, .seed = 7, .out_dir = dir, .nthreads = 1};
  sp_setup_result res;
  char err[512] = "";
  if (sp_setup_run(&o, &res, err, sizeof err) != SEALPROV_OK) {
    fprintf(stderr, "setup: %s\n", err);
    exit(1);
  }
  snprintf(params_path, sizeof params_path, "%s/circuit.params", dir);
}

static void setup(void) {
  te_reset();
  sp_log_set_host(NULL);
  vt = sp_module_vtable();
}

/* A provider of ndev test-engine devices (one worker each). The test engine keys its
 * lock watch by device index: providers used at the same time get indexes of their own
 * from first. */
static sealprov_provider *test_provider_at(unsigned ndev, unsigned first) {
  sp_config *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  snprintf(c->path, sizeof c->path, "test-providers.ini");
  c->log_level = SEALPROV_LOG_WARN;
  c->verify_proofs = true;
  c->params_subgroup_check = false;
  c->load_threads = 1;
  c->max_jobs = 64;
  c->max_partitions = 1024;
  c->quarantine_after = 3;
  c->max_attempts = 3;
  c->timeline_events = 64;
  c->ndevices = ndev;
  const sp_engine_ops *engines[SP_MAX_DEVICES];
  for (unsigned i = 0; i < ndev; i++) {
    sp_device_cfg *d = &c->devices[i];
    d->index = first + i;
    snprintf(d->section, sizeof d->section, "cpu%u", first + i);
    d->type = SP_DEVICE_CPU;
    d->workers = 1;
    d->threads = 1;
    d->ordinal = -1;
    engines[i] = &te_engine;
  }
  const sp_sched_hooks hooks = {
      .verify_proof = te_verify, .srs_retain = sp_srs_retain, .srs_release = sp_srs_release};
  sealprov_provider *p = NULL;
  char err[512] = "";
  int st = sp_provider_create(c, engines, &hooks, &p, err, sizeof err);
  free(c);
  ck_assert_msg(st == SEALPROV_OK, "provider: %s", err);
  return p;
}

static sealprov_provider *test_provider(unsigned ndev) { return test_provider_at(ndev, 0); }

static sealprov_srs *load(sealprov_provider *p) {
  sealprov_srs *s = NULL;
  int st = vt->srs_load(p, params_path, &s);
  ck_assert_msg(st == SEALPROV_OK, "srs_load: %s", vt->last_error());
  return s;
}

/* A one-partition job for the test engine (it reads nothing of the assignment). */
typedef struct tjob {
  sealprov_assignment asg;
  uint8_t proof[192];
  sealprov_job job;
} tjob;

static void mkjob(tjob *j, sealprov_srs *s) {
  memset(j, 0, sizeof *j);
  j->job.struct_size = sizeof j->job;
  j->job.srs = s;
  j->job.partitions = &j->asg;
  j->job.num_partitions = 1;
  j->job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  j->job.proofs_out = j->proof;
}

/* ---- item 2: no module lock across device work ----------------------------------------- */

typedef struct release_arg {
  sealprov_srs *s;
  atomic_int done;
} release_arg;

static void *release_main(void *arg) {
  release_arg *r = arg;
  vt->srs_release(r->s);
  atomic_store(&r->done, 1);
  return NULL;
}

typedef struct calls_arg {
  sealprov_provider *b, *a;
  sealprov_srs *s_b;
  atomic_int done;
  int st_stats, st_devices, st_submit, st_stats_a, st_verify;
  sealprov_job_id id;
  tjob job;
} calls_arg;

static void *calls_main(void *arg) {
  calls_arg *c = arg;
  char buf[8192];
  size_t len = 0, n = 0;
  sealprov_device_info info[4];
  memset(info, 0, sizeof info);
  c->st_stats = vt->stats(c->b, buf, sizeof buf, &len);
  c->st_devices = vt->devices(c->b, info, 4, &n);
  mkjob(&c->job, c->s_b);
  c->st_submit = vt->submit(c->b, &c->job.job, &c->id);
  c->st_stats_a = vt->stats(c->a, buf, sizeof buf, &len); /* the busy provider answers too */
  uint8_t proof[192] = {0};
  int valid = 1;
  uint8_t inputs[2 * 32] = {0};
  c->st_verify = vt->verify(c->b, c->s_b, inputs, 2, SEALPROV_SCALAR_CANONICAL_LE, proof, &valid);
  atomic_store(&c->done, 1);
  return NULL;
}

/* Provider A runs a partition held at the gate (its device lock taken, as a long GPU
 * partition holds it). Releasing the last reference of another parameter set evicts
 * that set from every provider, A's device included, so the release waits for A's
 * partition. Meanwhile stats(), devices(), submit() and verify() of provider B, and
 * stats() of A, return: the release holds no lock of the module while it waits. */
START_TEST(test_release_does_not_stall_others) {
  sealprov_provider *a = test_provider_at(1, 0);
  sealprov_provider *b = test_provider_at(1, 1);
  sealprov_srs *s1 = load(a), *s2 = load(a), *s_b = load(b);
  te_gate_close();
  tjob j1;
  mkjob(&j1, s1);
  sealprov_job_id id1 = 0;
  ck_assert_int_eq(vt->submit(a, &j1.job, &id1), SEALPROV_OK);
  ck_assert(te_gate_wait_blocked(1));

  release_arg r = {.s = s2};
  atomic_init(&r.done, 0);
  pthread_t tr;
  ck_assert_int_eq(pthread_create(&tr, NULL, release_main, &r), 0);
  /* B was opened after A: the eviction visits B first, then blocks on A's device. */
  for (int i = 0; i < 20000 && atomic_load(&te.srs_evicts) < 1; i++) sleep_ms(1);
  ck_assert_int_ge(atomic_load(&te.srs_evicts), 1);
  ck_assert_int_eq(atomic_load(&r.done), 0); /* still waiting for A's partition */

  calls_arg c = {.a = a, .b = b, .s_b = s_b};
  atomic_init(&c.done, 0);
  pthread_t tc;
  ck_assert_int_eq(pthread_create(&tc, NULL, calls_main, &c), 0);
  for (int i = 0; i < 30000 && !atomic_load(&c.done); i++) sleep_ms(1);
  ck_assert_msg(atomic_load(&c.done),
                "calls on provider B stalled behind a release that waits "
                "for provider A's device");
  ck_assert_int_eq(atomic_load(&r.done), 0); /* the device is still held: they did not wait */
  ck_assert_int_eq(c.st_stats, SEALPROV_OK);
  ck_assert_int_eq(c.st_devices, SEALPROV_OK);
  ck_assert_int_eq(c.st_submit, SEALPROV_OK);
  ck_assert_int_eq(c.st_stats_a, SEALPROV_OK);
  ck_assert_int_ne(c.st_verify, SEALPROV_ERR_INTERNAL); /* a bad proof, answered */
  pthread_join(tc, NULL);

  te_gate_open();
  pthread_join(tr, NULL);
  ck_assert_int_eq(atomic_load(&r.done), 1);
  ck_assert_int_eq(vt->wait(a, id1, -1), SEALPROV_OK);
  ck_assert_int_eq(vt->wait(b, c.id, -1), SEALPROV_OK);
  ck_assert_int_ge(atomic_load(&te.srs_evicts), 2); /* B's device, then A's */
  vt->srs_release(s1);
  vt->srs_release(s_b);
  ck_assert_int_eq(vt->close(a), SEALPROV_OK);
  ck_assert_int_eq(vt->close(b), SEALPROV_OK);
  ck_assert_int_eq(te_violations(), 0);
}
END_TEST

/* ---- item 6: calls racing close() -------------------------------------------------------- */

typedef struct racer {
  sealprov_provider *p;
  sealprov_srs *s;
  unsigned id;
  atomic_int *go;
  unsigned calls, refused;
  tjob job; /* lives until the thread is joined, after close(): close() finishes the
               running partitions, which write into it */
} racer;

static void *racer_main(void *arg) {
  racer *r = arg;
  while (!atomic_load(r->go)) sleep_ms(1);
  char buf[4096];
  for (;;) {
    size_t len = 0, n = 0;
    int st;
    switch ((r->calls + r->id) % 4) {
      case 0: st = vt->stats(r->p, buf, sizeof buf, &len); break;
      case 1: {
        sealprov_device_info info[2];
        memset(info, 0, sizeof info);
        st = vt->devices(r->p, info, 2, &n);
        break;
      }
      case 2: {
        mkjob(&r->job, r->s);
        sealprov_job_id id = 0;
        st = vt->submit(r->p, &r->job.job, &id);
        if (st == SEALPROV_OK) {
          int w = vt->wait(r->p, id, -1); /* a job of a closing provider ends too */
          ck_assert_msg(
              w == SEALPROV_OK || w == SEALPROV_ERR_SHUTDOWN || w == SEALPROV_ERR_INVALID_ARGUMENT,
              "wait: %d", w);
          if (w == SEALPROV_ERR_INVALID_ARGUMENT) st = w; /* closed meanwhile */
        }
        break;
      }
      default: st = vt->cancel(r->p, 12345); break;
    }
    r->calls++;
    if (st == SEALPROV_ERR_INVALID_ARGUMENT && strstr(vt->last_error(), "not an open provider")) {
      r->refused++;
      return NULL;
    }
  }
}

/* Four threads call stats, devices, submit + wait and cancel on a provider while the
 * main thread closes it. Each call either runs against the open provider or is refused
 * with "not an open provider"; none touches freed memory (this test runs under ASan and
 * TSan in SAN_TESTS), and every thread ends with a refusal once close() returned. */
START_TEST(test_close_races_calls) {
  for (int round = 0; round < 8; round++) {
    te_reset();
    atomic_store(&te.execute_us, 200);
    sealprov_provider *p = test_provider(2);
    sealprov_srs *s = load(p);
    atomic_int go;
    atomic_init(&go, 0);
    enum { N = 4 };
    racer r[N];
    pthread_t th[N];
    for (unsigned i = 0; i < N; i++) {
      r[i] = (racer){.p = p, .s = s, .id = i, .go = &go};
      ck_assert_int_eq(pthread_create(&th[i], NULL, racer_main, &r[i]), 0);
    }
    atomic_store(&go, 1);
    sleep_ms(5 + 3 * (unsigned)round);
    ck_assert_int_eq(vt->close(p), SEALPROV_OK);
    for (unsigned i = 0; i < N; i++) {
      pthread_join(th[i], NULL);
      ck_assert_uint_eq(r[i].refused, 1);
    }
    ck_assert_int_eq(vt->close(p), SEALPROV_ERR_INVALID_ARGUMENT); /* closed once only */
    vt->srs_release(s);
    ck_assert_int_eq(te_violations(), 0);
  }
}
END_TEST

/* Two threads release the same parameter handle at once: one release counts, the other
 * is refused with a message (released twice), and nothing is freed twice. */
typedef struct dbl {
  sealprov_srs *s;
  atomic_int *go;
  bool refused;
} dbl;

static void *dbl_main(void *arg) {
  dbl *d = arg;
  while (!atomic_load(d->go)) {
  }
  vt->srs_release(d->s);
  d->refused = strstr(vt->last_error(), "released twice") != NULL;
  return NULL;
}

START_TEST(test_double_release_race) {
  sealprov_provider *p = test_provider(1);
  for (int round = 0; round < 50; round++) {
    sealprov_srs *s = load(p);
    atomic_int go;
    atomic_init(&go, 0);
    dbl d[2] = {{.s = s, .go = &go}, {.s = s, .go = &go}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, dbl_main, &d[i]), 0);
    atomic_store(&go, 1);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    ck_assert_msg(d[0].refused != d[1].refused, "round %d: refused %d and %d", round,
                  (int)d[0].refused, (int)d[1].refused);
  }
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

/* ---- item 3: one validation path for submit() and prove() -------------------------------- */

/* A set loaded straight onto GPUs (device_only, no host copy) cannot be proved on a
 * device without a copy: submit() and prove() both refuse it with the same message,
 * before any device sees it. The flag is set by hand here (no GPU): what the direct load
 * sets. */
START_TEST(test_prove_checks_device_copies) {
  sealprov_provider *p = test_provider(2);
  sealprov_srs *s = load(p);
  sp_srs *srs = (sp_srs *)s;
  srs->device_only = true;
  tjob j;
  mkjob(&j, s);
  sealprov_job_id id = 0;
  char submit_msg[1024], prove_msg[1024];
  ck_assert_int_eq(vt->submit(p, &j.job, &id), SEALPROV_ERR_INVALID_ARGUMENT);
  snprintf(submit_msg, sizeof submit_msg, "%s", vt->last_error());
  ck_assert_int_eq(vt->prove(p, &j.job), SEALPROV_ERR_INVALID_ARGUMENT);
  snprintf(prove_msg, sizeof prove_msg, "%s", vt->last_error());
  ck_assert_msg(strstr(submit_msg, "has no copy of it") != NULL, "submit: %s", submit_msg);
  ck_assert_msg(strstr(prove_msg, "has no copy of it") != NULL, "prove: %s", prove_msg);
  ck_assert_str_eq(submit_msg + strlen("submit"), prove_msg + strlen("prove"));
  ck_assert_int_eq(atomic_load(&te.prepares), 0); /* no device saw it */
  srs->device_only = false;
  ck_assert_int_eq(vt->prove(p, &j.job), SEALPROV_OK);
  vt->srs_release(s);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

/* A job whose srs was released is refused by prove() as by submit(). */
START_TEST(test_prove_refuses_released_set) {
  sealprov_provider *p = test_provider(1);
  sealprov_srs *s = load(p);
  vt->srs_release(s);
  tjob j;
  mkjob(&j, s);
  sealprov_job_id id = 0;
  ck_assert_int_eq(vt->submit(p, &j.job, &id), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(vt->last_error(), "is not a loaded parameter set") != NULL);
  ck_assert_int_eq(vt->prove(p, &j.job), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(vt->last_error(), "is not a loaded parameter set") != NULL);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

/* ---- item 4: per-provider host memory ------------------------------------------------------ */

/* The value of one unlabelled metric in a provider's stats. */
static uint64_t metric(sealprov_provider *p, const char *name) {
  static char buf[1 << 16];
  size_t len = 0;
  ck_assert_int_eq(vt->stats(p, buf, sizeof buf, &len), SEALPROV_OK);
  char key[128];
  snprintf(key, sizeof key, "\n%s ", name);
  const char *at = strstr(buf, key);
  ck_assert_msg(at != NULL, "no %s in stats", name);
  return strtoull(at + strlen(key), NULL, 10);
}

/* Two providers opened from INI files keep their own host_memory_limit: opening a
 * second one without a cap does not lift the first one's, a failed open changes
 * neither, and closing one leaves the other's as it was. */
START_TEST(test_host_memory_caps_per_provider) {
  char ini1[512], ini2[512], bad[512];
  snprintf(ini1, sizeof ini1, "%s/capped.ini", dir);
  snprintf(ini2, sizeof ini2, "%s/uncapped.ini", dir);
  snprintf(bad, sizeof bad, "%s/bad.ini", dir);
  write_file(ini1, "[provider]\nhost_memory_limit = 1GiB\n[cpu0]\ntype = cpu\nthreads = 1\n");
  write_file(ini2, "[provider]\n[cpu0]\ntype = cpu\nthreads = 1\n");
  write_file(bad, "[provider]\nhost_memory_limit = 5GiB\n[cpu0]\ntype = cpu\nwokers = 1\n");
  sealprov_provider *p1 = NULL, *p2 = NULL, *p3 = NULL;
  ck_assert_int_eq(vt->open(ini1, &p1), SEALPROV_OK);
  const uint64_t gib = UINT64_C(1) << 30;
  ck_assert_uint_eq(metric(p1, "sealprov_module_host_limit_bytes"), gib);
  ck_assert_int_eq(vt->open(ini2, &p2), SEALPROV_OK);
  ck_assert_uint_eq(metric(p2, "sealprov_module_host_limit_bytes"), 0);
  ck_assert_uint_eq(metric(p1, "sealprov_module_host_limit_bytes"), gib);
  ck_assert_int_ne(vt->open(bad, &p3), SEALPROV_OK);
  ck_assert_ptr_null(p3);
  ck_assert_uint_eq(metric(p1, "sealprov_module_host_limit_bytes"), gib);
  /* an open that fails after its scheduler was made (a worker cannot bind) */
  sp_config *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  snprintf(c->path, sizeof c->path, "failing.ini");
  c->host_memory_limit = 5 * gib;
  c->ndevices = 1;
  c->devices[0].workers = 1;
  c->devices[0].ordinal = -1;
  snprintf(c->devices[0].section, sizeof c->devices[0].section, "cpu0");
  te_set_mode(0, TE_FAIL_BIND, -1);
  const sp_engine_ops *engines[1] = {&te_engine};
  char err[512] = "";
  ck_assert_int_ne(sp_provider_create(c, engines, NULL, &p3, err, sizeof err), SEALPROV_OK);
  free(c);
  te_set_mode(0, TE_OK, -1);
  ck_assert_ptr_null(p3);
  ck_assert_uint_eq(metric(p1, "sealprov_module_host_limit_bytes"), gib);
  ck_assert_uint_eq(metric(p2, "sealprov_module_host_limit_bytes"), 0);
  ck_assert_int_eq(vt->close(p2), SEALPROV_OK);
  ck_assert_uint_eq(metric(p1, "sealprov_module_host_limit_bytes"), gib);
  ck_assert_uint_eq(metric(p1, "sealprov_module_host_release_errors_total"), 0);
  ck_assert_int_eq(vt->close(p1), SEALPROV_OK);
}
END_TEST

static Suite *providers_suite(void) {
  Suite *s = suite_create("providers");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_release_does_not_stall_others);
  tcase_add_test(tc, test_close_races_calls);
  tcase_add_test(tc, test_double_release_race);
  tcase_add_test(tc, test_prove_checks_device_copies);
  tcase_add_test(tc, test_prove_refuses_released_set);
  tcase_add_test(tc, test_host_memory_caps_per_provider);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  make_params();
  SRunner *sr = srunner_create(providers_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return failed ? 1 : 0;
}
