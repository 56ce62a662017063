/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_dlopen.c -- the built module as a host sees it: dlopen of $SEALPROV_PLUGIN,
 * the one entry symbol, version negotiation, every vtable call's argument checks,
 * open/close with a CPU-only INI. This program links nothing of the module. */
#include <config.h>

#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sealprov.h"

static void *dl;
static sealprov_provider_init_fn init_fn;
static char tmpdir[] = "/tmp/sealprov-dlopen-XXXXXX";
static char log_text[1 << 15];

static void capture_log(void *user, int level, const char *msg) {
  (void)level;
  int *calls = user;
  if (calls) (*calls)++;
  size_t n = strlen(log_text);
  snprintf(log_text + n, sizeof log_text - n, "%s\n", msg);
}

static void setup(void) {
  const char *path = getenv("SEALPROV_PLUGIN");
  ck_assert_msg(path != NULL && *path, "SEALPROV_PLUGIN is not set (make check sets it)");
  dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(dl != NULL, "dlopen %s: %s", path, dlerror());
  union {
    void *obj;
    sealprov_provider_init_fn fn;
  } sym = {.obj = dlsym(dl, SEALPROV_ENTRY_SYMBOL)};
  init_fn = sym.fn;
  ck_assert_ptr_nonnull(sym.obj);
  log_text[0] = '\0';
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void) {
  if (dl) dlclose(dl);
  dl = NULL;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
  strcpy(tmpdir, "/tmp/sealprov-dlopen-XXXXXX");
}

static const sealprov_vtable *vt_ok(void) {
  static sealprov_host host = {sizeof(sealprov_host), SEALPROV_LOG_DEBUG, capture_log, NULL};
  const sealprov_vtable *vt = NULL;
  ck_assert_int_eq(init_fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, &host, &vt), SEALPROV_OK);
  ck_assert_ptr_nonnull(vt);
  return vt;
}

static const char *write_file(const char *name, const char *text) {
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static const char cpu_ini[] =
    "[provider]\n"
    "log_level = debug\n"
    "timeline_events = 64\n"
    "[alpha]\n"
    "type = cpu\n"
    "workers = 2\n"
    "[beta]\n"
    "type = cpu\n";

/* Only the entry point is visible; internals are not, even to dlsym. */
START_TEST(test_symbols) {
  static const char *const hidden[] = {"sp_sched_create", "sp_engine_cpu", "sp_config_load",
                                       "sp_srs_load",     "fr_mul",        "sp_log",
                                       "sp_groth16_prove"};
  for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
    ck_assert_msg(dlsym(dl, hidden[i]) == NULL, "%s is visible", hidden[i]);
}
END_TEST

START_TEST(test_vtable) {
  const sealprov_vtable *vt = vt_ok();
  ck_assert_uint_eq(vt->abi_major, SEALPROV_ABI_MAJOR);
  ck_assert_uint_eq(vt->abi_minor, SEALPROV_ABI_MINOR);
  ck_assert_uint_eq(vt->struct_size, sizeof(sealprov_vtable));
  ck_assert(SEALPROV_VTABLE_HAS(vt, timeline));
  ck_assert(vt->version && vt->strerror && vt->last_error && vt->open && vt->close);
  ck_assert(vt->srs_load && vt->vk_load && vt->srs_release && vt->submit && vt->wait);
  ck_assert(vt->cancel && vt->prove && vt->verify && vt->devices && vt->stats && vt->timeline);
  ck_assert_str_eq(vt->version(), PACKAGE_VERSION);
  for (int st = 0; st < SEALPROV_STATUS_COUNT_; st++) {
    ck_assert_ptr_nonnull(vt->strerror(st));
    ck_assert_msg(strcmp(vt->strerror(st), "unknown status") != 0, "status %d has no text", st);
  }
  ck_assert_str_eq(vt->strerror(SEALPROV_STATUS_COUNT_), "unknown status");
  ck_assert_str_eq(vt->strerror(-1), "unknown status");
  ck_assert_str_eq(vt->strerror(SEALPROV_ERR_NO_DEVICE), "no healthy device left");
}
END_TEST

/* A host of another major version is refused with both versions in the message, via
 * its log callback and last_error(); a newer minor is accepted. */
START_TEST(test_version_refusal) {
  int calls = 0;
  sealprov_host host = {sizeof host, SEALPROV_LOG_ERROR, capture_log, &calls};
  const sealprov_vtable *vt = (const sealprov_vtable *)&host; /* must be reset to NULL */
  ck_assert_int_eq(init_fn(SEALPROV_ABI_MAJOR + 1, 0, &host, &vt), SEALPROV_ERR_ABI_VERSION);
  ck_assert_ptr_null(vt);
  ck_assert_int_eq(calls, 1);
  char want_host[64], want_module[64];
  snprintf(want_host, sizeof want_host, "host was built for sealprov ABI %d.0",
           SEALPROV_ABI_MAJOR + 1);
  snprintf(want_module, sizeof want_module, "implements ABI %d.%d", SEALPROV_ABI_MAJOR,
           SEALPROV_ABI_MINOR);
  ck_assert_msg(strstr(log_text, want_host) && strstr(log_text, want_module), "log: %s", log_text);

  /* The refusal stays readable through a later compatible init on this thread. */
  const sealprov_vtable *ok = NULL;
  ck_assert_int_eq(init_fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, NULL, &ok), SEALPROV_OK);
  ck_assert_msg(strstr(ok->last_error(), want_host) && strstr(ok->last_error(), want_module),
                "last_error: %s", ok->last_error());

  ck_assert_int_eq(init_fn(SEALPROV_ABI_MAJOR - 1, 9, NULL, &vt), SEALPROV_ERR_ABI_VERSION);
  ck_assert_ptr_null(vt);
  ck_assert_int_eq(init_fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR + 1, NULL, &vt), SEALPROV_OK);
  ck_assert_ptr_nonnull(vt);
  ck_assert_int_eq(init_fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, NULL, NULL),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  /* A host table shorter than ours (no log fields) is read only as far as it goes. */
  sealprov_host tiny = {offsetof(sealprov_host, log), SEALPROV_LOG_DEBUG, capture_log, &calls};
  calls = 0;
  ck_assert_int_eq(init_fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, &tiny, &vt), SEALPROV_OK);
  sealprov_provider *p = NULL;
  ck_assert_int_eq(vt->open(write_file("cpu.ini", cpu_ini), &p), SEALPROV_OK);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
  ck_assert_int_eq(calls, 0);
}
END_TEST

START_TEST(test_open_errors) {
  const sealprov_vtable *vt = vt_ok();
  sealprov_provider *p = (sealprov_provider *)1;
  ck_assert_int_eq(vt->open(NULL, &p), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(p);
  ck_assert_ptr_nonnull(strstr(vt->last_error(), "ini_path"));
  char missing[300];
  snprintf(missing, sizeof missing, "%s/missing.ini", tmpdir);
  ck_assert_int_eq(vt->open(missing, &p), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(vt->last_error(), missing) != NULL, "%s", vt->last_error());
  const char *bad = write_file("bad.ini", "[provider]\nmax_jobs = lots\n[cpu0]\ntype = cpu\n");
  ck_assert_int_eq(vt->open(bad, &p), SEALPROV_ERR_CONFIG);
  ck_assert_msg(strstr(vt->last_error(), "bad.ini:2") != NULL, "%s", vt->last_error());
  ck_assert_ptr_null(p);
  /* A successful call clears the detail. */
  ck_assert_int_eq(vt->open(write_file("cpu.ini", cpu_ini), &p), SEALPROV_OK);
  ck_assert_str_eq(vt->last_error(), "");
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

/* Every call refuses a NULL or closed provider and NULL outputs, without crashing. */
START_TEST(test_null_arguments) {
  const sealprov_vtable *vt = vt_ok();
  sealprov_srs *srs = (sealprov_srs *)1;
  sealprov_job_id id = 5;
  size_t n;
  char buf[16];
  int valid = 7;
  uint8_t proof[192] = {0};
  ck_assert_int_eq(vt->close(NULL), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->srs_load(NULL, "x", &srs), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(srs);
  ck_assert_int_eq(vt->vk_load(NULL, "x", &srs), SEALPROV_ERR_INVALID_ARGUMENT);
  vt->srs_release(NULL);
  ck_assert_int_eq(vt->submit(NULL, NULL, &id), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->wait(NULL, 1, 0), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->cancel(NULL, 1), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->prove(NULL, NULL), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->verify(NULL, NULL, NULL, 0, 0, proof, &valid),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(valid, 0);
  ck_assert_int_eq(vt->devices(NULL, NULL, 0, &n), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->stats(NULL, buf, sizeof buf, &n), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->timeline(NULL, buf, sizeof buf, &n), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(vt->last_error(), "not an open provider"));

  sealprov_provider *p = NULL;
  ck_assert_int_eq(vt->open(write_file("cpu.ini", cpu_ini), &p), SEALPROV_OK);
  ck_assert_int_eq(vt->srs_load(p, NULL, &srs), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->srs_load(p, "x", NULL), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->submit(p, NULL, &id), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(id, 5); /* untouched when the call cannot even read the job */
  ck_assert_int_eq(vt->devices(p, NULL, 0, NULL), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->devices(p, NULL, 3, &n), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->stats(p, NULL, 5, &n), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->stats(p, buf, sizeof buf, NULL), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->verify(p, NULL, NULL, 0, 0, proof, &valid), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

/* Open a CPU-only INI, look at the device table, stats and timeline, refuse bad
 * jobs with precise messages, close. */
START_TEST(test_cpu_provider) {
  const sealprov_vtable *vt = vt_ok();
  sealprov_provider *p = NULL;
  ck_assert_int_eq(vt->open(write_file("cpu.ini", cpu_ini), &p), SEALPROV_OK);
  ck_assert_ptr_nonnull(strstr(log_text, "device 0 [alpha] cpu"));
  ck_assert_ptr_nonnull(strstr(log_text, "2 worker(s) bound"));

  size_t n = 0;
  ck_assert_int_eq(vt->devices(p, NULL, 0, &n), SEALPROV_OK);
  ck_assert_uint_eq(n, 2);
  sealprov_device_info d[4];
  memset(d, 0, sizeof d);
  ck_assert_int_eq(vt->devices(p, d, 4, &n), SEALPROV_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(d[0].section, "alpha");
  ck_assert_str_eq(d[1].section, "beta");
  for (int i = 0; i < 2; i++) {
    ck_assert_uint_eq(d[i].struct_size, sizeof(sealprov_device_info));
    ck_assert_int_eq(d[i].index, i);
    ck_assert_str_eq(d[i].type, "cpu");
    ck_assert_int_eq(d[i].ordinal, -1);
    ck_assert_int_eq(d[i].confirmed_ordinal, -1);
    ck_assert_int_eq(d[i].state, SEALPROV_DEVICE_READY);
    ck_assert_uint_eq(d[i].tasks_done, 0);
  }
  ck_assert_uint_eq(d[0].workers, 2);

  size_t len = 0;
  ck_assert_int_eq(vt->stats(p, NULL, 0, &len), SEALPROV_OK);
  char *stats = malloc(len + 1);
  ck_assert_int_eq(vt->stats(p, stats, len + 1, &len), SEALPROV_OK);
  ck_assert_ptr_nonnull(
      strstr(stats, "sealprov_device_tasks_total{device=\"1\",section=\"beta\",type=\"cpu\"} 0\n"));
  ck_assert_ptr_nonnull(
      strstr(stats, "sealprov_device_workers{device=\"0\",section=\"alpha\",type=\"cpu\"} 2\n"));
  free(stats);
  /* Before any job, the timeline holds one "bound" line per worker (3). */
  char small[8];
  ck_assert_int_eq(vt->timeline(p, small, sizeof small, &len), SEALPROV_OK);
  ck_assert_uint_eq(strlen(small), 7); /* cut to cap - 1, NUL-terminated */
  char *tl = malloc(len + 1);
  size_t len2 = 0;
  ck_assert_int_eq(vt->timeline(p, tl, len + 1, &len2), SEALPROV_OK);
  ck_assert_uint_eq(len2, len);
  unsigned bound = 0;
  for (const char *at = tl; (at = strstr(at, "event=bound ")) != NULL; at++) bound++;
  ck_assert_uint_eq(bound, 3);
  ck_assert_ptr_nonnull(strstr(tl, "event=bound job=0 partition=0 device=0 worker=1 "));
  ck_assert_ptr_nonnull(strstr(tl, "event=bound job=0 partition=0 device=1 worker=2 "));
  free(tl);

  sealprov_job job;
  memset(&job, 0, sizeof job);
  job.struct_size = sizeof job;
  sealprov_job_id id = 0;
  ck_assert_int_eq(vt->submit(p, &job, &id), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(vt->last_error(), "job->srs is NULL"));
  job.flags = SEALPROV_JOB_DETACHED;
  ck_assert_int_eq(vt->prove(p, &job), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(vt->last_error(), "DETACHED"));
  ck_assert_int_eq(vt->wait(p, 4242, 0), SEALPROV_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(vt->last_error(), "no job 4242"));
  ck_assert_int_eq(vt->cancel(p, 4242), SEALPROV_ERR_NOT_FOUND);

  sealprov_srs *srs = (sealprov_srs *)1;
  char missing[300];
  snprintf(missing, sizeof missing, "%s/none.params", tmpdir);
  ck_assert_int_eq(vt->srs_load(p, missing, &srs), SEALPROV_ERR_IO);
  ck_assert_ptr_null(srs);
  ck_assert_msg(strstr(vt->last_error(), missing) != NULL, "%s", vt->last_error());
  ck_assert_int_eq(vt->vk_load(p, missing, &srs), SEALPROV_ERR_IO);
  const char *junk = write_file("junk.params", "not a parameter file");
  ck_assert_int_eq(vt->srs_load(p, junk, &srs), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(vt->last_error(), "junk.params") != NULL, "%s", vt->last_error());
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

static void *other_thread(void *arg) {
  const sealprov_vtable *vt = arg;
  static char seen[256];
  snprintf(seen, sizeof seen, "%s", vt->last_error());
  return seen;
}

/* The detail is per thread: another thread does not see this one's error. */
START_TEST(test_error_per_thread) {
  const sealprov_vtable *vt = vt_ok();
  ck_assert_int_eq(vt->wait(NULL, 1, 0), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_str_ne(vt->last_error(), "");
  pthread_t t;
  void *seen = NULL;
  ck_assert_int_eq(pthread_create(&t, NULL, other_thread, (void *)vt), 0);
  pthread_join(t, &seen);
  ck_assert_str_eq((const char *)seen, "");
  ck_assert_ptr_nonnull(strstr(vt->last_error(), "not an open provider"));
}
END_TEST

/* Two providers at once are independent; the module can be unloaded and loaded again. */
START_TEST(test_two_providers_and_reload) {
  const sealprov_vtable *vt = vt_ok();
  sealprov_provider *a = NULL, *b = NULL;
  const char *ini = write_file("cpu.ini", cpu_ini);
  ck_assert_int_eq(vt->open(ini, &a), SEALPROV_OK);
  ck_assert_int_eq(vt->open(ini, &b), SEALPROV_OK);
  ck_assert_ptr_ne(a, b);
  ck_assert_int_eq(vt->close(a), SEALPROV_OK);
  size_t n = 0;
  ck_assert_int_eq(vt->devices(b, NULL, 0, &n), SEALPROV_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(vt->close(b), SEALPROV_OK);

  dlclose(dl);
  dl = dlopen(getenv("SEALPROV_PLUGIN"), RTLD_NOW | RTLD_LOCAL);
  ck_assert_ptr_nonnull(dl);
  union {
    void *obj;
    sealprov_provider_init_fn fn;
  } sym = {.obj = dlsym(dl, SEALPROV_ENTRY_SYMBOL)};
  init_fn = sym.fn;
  vt = vt_ok();
  ck_assert_int_eq(vt->open(ini, &a), SEALPROV_OK);
  ck_assert_int_eq(vt->close(a), SEALPROV_OK);
}
END_TEST

static Suite *dlopen_suite(void) {
  Suite *s = suite_create("dlopen");
  TCase *tc = tcase_create("module");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_symbols);
  tcase_add_test(tc, test_vtable);
  tcase_add_test(tc, test_version_refusal);
  tcase_add_test(tc, test_open_errors);
  tcase_add_test(tc, test_null_arguments);
  tcase_add_test(tc, test_cpu_provider);
  tcase_add_test(tc, test_error_per_thread);
  tcase_add_test(tc, test_two_providers_and_reload);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(dlopen_suite());
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
