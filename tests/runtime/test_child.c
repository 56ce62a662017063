/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_child.c -- one INI for a whole host, read by child processes that each see some
 * of its GPUs through CUDA_VISIBLE_DEVICES ([provider] unseen_gpus, runtime/resolve.c),
 * as a sealing daemon's per-proof children are started.
 *
 * The host has four made-up GPUs. What a child's CUDA runtime would enumerate is made
 * here from the child's CUDA_VISIBLE_DEVICES (a list of host ordinals: the GPUs it
 * names, renumbered from 0), and the INI is resolved against that list
 * (sp_config_resolve_with_gpus); the scheduler then runs on the resolved table with
 * the recording test engine standing in for the GPUs. So a child's proofs show which GPU its table holds, and children forked
 * at once show that no two share one.
 */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "runtime/device_table.h"
#include "runtime/sp_sched.h"
#include "test_engine.h"

#define HOST_GPUS 4

static const sp_gpu_info host_gpus[HOST_GPUS] = {
    {.ordinal = 0,
     .name = "NVIDIA H200",
     .uuid = "GPU-00000000-1111-2222-3333-444444444444",
     .pci_bus_id = "0000:17:00.0",
     .cc_major = 9},
    {.ordinal = 1,
     .name = "NVIDIA H200",
     .uuid = "GPU-11111111-1111-2222-3333-444444444444",
     .pci_bus_id = "0000:3d:00.0",
     .cc_major = 9},
    {.ordinal = 2,
     .name = "NVIDIA H200",
     .uuid = "GPU-22222222-1111-2222-3333-444444444444",
     .pci_bus_id = "0000:99:00.0",
     .cc_major = 9},
    {.ordinal = 3,
     .name = "NVIDIA H200",
     .uuid = "GPU-33333333-1111-2222-3333-444444444444",
     .pci_bus_id = "0000:bb:00.0",
     .cc_major = 9},
};

/* The host's INI: every GPU, by UUID (either spelling) or PCI id, one line each. */
static const char host_ini[] =
    "[provider]\n"
    "unseen_gpus = skip\n"
    "[gpuA]\ntype = cuda\ndevice = uuid=GPU-00000000-1111-2222-3333-444444444444\n"
    "[gpuB]\ntype = cuda\ndevice = pci=0000:3d:00.0\n"
    "[gpuC]\ntype = cuda\ndevice = GPU-22222222-1111-2222-3333-444444444444\n"
    "[gpuD]\ntype = cuda\ndevice = pci=bb:00.0\nworkers = 1\n";
static const char *const host_sections[HOST_GPUS] = {"gpuA", "gpuB", "gpuC", "gpuD"};

static char dir[512], ini[600];
static sp_config *cfg;
static char err[2048];

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[1 << 14];
static void capture_log(void *user, int level, const char *msg) {
  (void)user;
  pthread_mutex_lock(&log_mu);
  size_t n = strlen(log_text);
  if (n + strlen(msg) + 16 < sizeof log_text)
    snprintf(log_text + n, sizeof log_text - n, "%d %s\n", level, msg);
  pthread_mutex_unlock(&log_mu);
}

static void setup(void) {
  const char *base = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/sp-child-XXXXXX", base && *base ? base : "/tmp");
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp(%s): %s", dir, strerror(errno));
  snprintf(ini, sizeof ini, "%s/host.ini", dir);
  cfg = calloc(1, sizeof *cfg);
  ck_assert_ptr_nonnull(cfg);
  log_text[0] = '\0';
  sealprov_host h = {sizeof h, SEALPROV_LOG_DEBUG, capture_log, NULL};
  sp_log_set_host(&h);
  te_reset();
  unsetenv("CUDA_VISIBLE_DEVICES");
}

static void teardown(void) {
  sp_log_set_host(NULL);
  free(cfg);
  unlink(ini);
  rmdir(dir);
}

static void write_ini(const char *text) {
  FILE *f = fopen(ini, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* What the CUDA runtime of a process started with CUDA_VISIBLE_DEVICES = cvd (host
 * ordinals, comma-separated) enumerates: those GPUs in that order, renumbered from 0,
 * up to the first entry that is not a host ordinal (CUDA's documented rule; a repeated
 * entry also ends the list here, which no test relies on). */
static int visible(const char *cvd, sp_gpu_info out[HOST_GPUS]) {
  int n = 0;
  bool taken[HOST_GPUS] = {false};
  for (const char *s = cvd; *s != '\0' && n < HOST_GPUS;) {
    char *end;
    long o = strtol(s, &end, 10);
    if (end == s || o < 0 || o >= HOST_GPUS || taken[o] || (*end != ',' && *end != '\0')) break;
    taken[o] = true;
    out[n] = host_gpus[o];
    out[n].ordinal = n;
    n++;
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

/* Loads the INI and resolves it as a child started with CUDA_VISIBLE_DEVICES = cvd
 * (NULL: unset, every host GPU) would. */
static int resolve_as_child(const char *cvd) {
  sp_gpu_info seen[HOST_GPUS];
  int n = HOST_GPUS;
  if (cvd != NULL) {
    ck_assert_int_eq(setenv("CUDA_VISIBLE_DEVICES", cvd, 1), 0);
    n = visible(cvd, seen);
  } else {
    unsetenv("CUDA_VISIBLE_DEVICES");
    memcpy(seen, host_gpus, sizeof seen);
  }
  int st = sp_config_load(ini, cfg, err, sizeof err);
  ck_assert_msg(st == SEALPROV_OK, "%s: %s", ini, err);
  return sp_config_resolve_with_gpus(cfg, seen, n, err, sizeof err);
}

static bool has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* ---- the children ------------------------------------------------------------------ */

static sp_srs child_srs;
static void srs_nop(sp_srs *s) { (void)s; }
static const sp_sched_hooks hooks = {
    .verify_proof = te_verify, .srs_retain = srs_nop, .srs_release = srs_nop};

#define CHILD_FAIL(...)                                      \
  do {                                                       \
    fprintf(stderr, "child CUDA_VISIBLE_DEVICES=%s: ", cvd); \
    fprintf(stderr, __VA_ARGS__);                            \
    fprintf(stderr, "\n");                                   \
    return 1;                                                \
  } while (0)

/* One child: resolves the host INI, proves a 3-partition job on what it got, and
 * writes the UUID its proofs ran on to fd. 0 when every check held. */
static int child(const char *cvd, int fd) {
  setenv("CUDA_VISIBLE_DEVICES", cvd, 1);
  sp_gpu_info seen[HOST_GPUS];
  int n = visible(cvd, seen);
  if (sp_config_load(ini, cfg, err, sizeof err) != SEALPROV_OK) CHILD_FAIL("load: %s", err);
  if (sp_config_resolve_with_gpus(cfg, seen, n, err, sizeof err) != SEALPROV_OK)
    CHILD_FAIL("resolve: %s", err);
  if (cfg->ndevices != 1 || cfg->nskipped != HOST_GPUS - 1)
    CHILD_FAIL("%zu device(s), %zu skipped; want 1 and 3", cfg->ndevices, cfg->nskipped);
  const sp_device_cfg *d = &cfg->devices[0];
  if (d->ordinal != 0 || d->index != 0 || strcmp(d->uuid, seen[0].uuid) != 0)
    CHILD_FAIL("[%s] is ordinal %d index %u %s; want ordinal 0, index 0, %s", d->section,
               d->ordinal, d->index, d->uuid, seen[0].uuid);
  const sp_engine_ops *engines[1] = {&te_engine};
  sp_sched *s = NULL;
  if (sp_sched_create(cfg, engines, &hooks, &s, err, sizeof err) != SEALPROV_OK)
    CHILD_FAIL("create: %s", err);
  sealprov_assignment asg[3];
  uint8_t proofs[3 * 192];
  memset(asg, 0, sizeof asg);
  sealprov_job job = {.struct_size = sizeof job,
                      .srs = (sealprov_srs *)&child_srs,
                      .partitions = asg,
                      .num_partitions = 3,
                      .scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE,
                      .proofs_out = proofs};
  sealprov_job_id id = 0;
  int st = sp_sched_submit(s, &job, &id, err, sizeof err);
  if (st == SEALPROV_OK) st = sp_sched_wait(s, id, -1, err, sizeof err);
  te_record rec[8];
  unsigned nrec = st == SEALPROV_OK ? te_records_of(id, rec, 8) : 0;
  sealprov_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  size_t count = 0;
  char stats[8192];
  size_t len = 0;
  int dst = sp_sched_devices(s, &info, 1, &count);
  int sst = sp_sched_stats(s, stats, sizeof stats, &len);
  sp_sched_shutdown(s);
  sp_sched_destroy(s);
  if (st != SEALPROV_OK) CHILD_FAIL("job: %s: %s", sp_status_name(st), err);
  if (nrec != 3) CHILD_FAIL("%u partition(s) ran; want 3", nrec);
  for (unsigned i = 0; i < nrec; i++)
    if (rec[i].device != 0 || rec[i].bound_device != 0)
      CHILD_FAIL("partition %u ran on device %d", rec[i].partition, rec[i].device);
  if (dst != SEALPROV_OK || count != 1 || strcmp(info.uuid, seen[0].uuid) != 0)
    CHILD_FAIL("devices(): %zu device(s), uuid %s", count, info.uuid);
  if (sst != SEALPROV_OK) CHILD_FAIL("stats() failed");
  /* every other section is listed as skipped, this one is not */
  for (int g = 0; g < HOST_GPUS; g++) {
    char line[128];
    snprintf(line, sizeof line, "sealprov_device_skipped{section=\"%s\"", host_sections[g]);
    bool mine = strcmp(host_sections[g], d->section) == 0;
    if (has(stats, line) == mine) CHILD_FAIL("stats: %s %s", line, mine ? "listed" : "missing");
    snprintf(line, sizeof line, "skipped [%s] (", host_sections[g]);
    if (has(log_text, line) == mine) CHILD_FAIL("log: \"%s\" %s", line, mine ? "logged" : "absent");
  }
  char want[64];
  snprintf(want, sizeof want, "(CUDA_VISIBLE_DEVICES=%s; [provider] unseen_gpus = skip)", cvd);
  if (!has(log_text, want)) CHILD_FAIL("log lacks \"%s\":\n%s", want, log_text);
  char uuid[48] = "";
  snprintf(uuid, sizeof uuid, "%s", d->uuid);
  if (write(fd, uuid, sizeof uuid) != (ssize_t)sizeof uuid)
    CHILD_FAIL("write: %s", strerror(errno));
  return 0;
}

/* Four children at once, CUDA_VISIBLE_DEVICES = 0 .. 3, one INI: each proves on the GPU
 * it sees, and together they use every GPU once. */
START_TEST(test_children_at_once) {
  write_ini(host_ini);
  int pfd[2];
  ck_assert_int_eq(pipe(pfd), 0);
  pid_t pid[HOST_GPUS];
  for (int c = 0; c < HOST_GPUS; c++) {
    pid[c] = fork();
    ck_assert_int_ge(pid[c], 0);
    if (pid[c] == 0) {
      close(pfd[0]);
      char cvd[8];
      snprintf(cvd, sizeof cvd, "%d", c);
      _exit(child(cvd, pfd[1]));
    }
  }
  close(pfd[1]);
  for (int c = 0; c < HOST_GPUS; c++) {
    int status = 0;
    ck_assert_int_eq(waitpid(pid[c], &status, 0), pid[c]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "child CUDA_VISIBLE_DEVICES=%d failed (status 0x%x; its message is above)", c,
                  status);
  }
  bool used[HOST_GPUS] = {false};
  char uuid[48];
  int got = 0;
  while (read(pfd[0], uuid, sizeof uuid) == (ssize_t)sizeof uuid) {
    int g = 0;
    while (g < HOST_GPUS && strcmp(uuid, host_gpus[g].uuid) != 0) g++;
    ck_assert_msg(g < HOST_GPUS, "a child proved on %s, not a host GPU", uuid);
    ck_assert_msg(!used[g], "two children proved on %s", uuid);
    used[g] = true;
    got++;
  }
  close(pfd[0]);
  ck_assert_int_eq(got, HOST_GPUS);
}
END_TEST

/* A child that sees two GPUs, listed in another order than the host's: each section
 * gets the ordinal this process gives its GPU; CPU sections stay; the table keeps INI
 * order, counted from 0. */
START_TEST(test_child_sees_two) {
  char text[1024];
  snprintf(text, sizeof text, "%s[cpu0]\ntype = cpu\n", host_ini);
  write_ini(text);
  ck_assert_msg(resolve_as_child("2,0") == SEALPROV_OK, "%s", err);
  ck_assert_uint_eq(cfg->ndevices, 3);
  ck_assert_str_eq(cfg->devices[0].section, "gpuA");
  ck_assert_int_eq(cfg->devices[0].ordinal, 1);
  ck_assert_str_eq(cfg->devices[0].uuid, host_gpus[0].uuid);
  ck_assert_str_eq(cfg->devices[1].section, "gpuC");
  ck_assert_int_eq(cfg->devices[1].ordinal, 0);
  ck_assert_str_eq(cfg->devices[1].pci_bus_id, "0000:99:00.0");
  ck_assert_str_eq(cfg->devices[2].section, "cpu0");
  for (unsigned i = 0; i < 3; i++) ck_assert_uint_eq(cfg->devices[i].index, i);
  ck_assert_uint_eq(cfg->nskipped, 2);
  ck_assert_str_eq(cfg->skipped[0].section, "gpuB");
  ck_assert_str_eq(cfg->skipped[0].selector, "pci=0000:3d:00.0");
  ck_assert_int_eq(cfg->skipped[0].line, 8);
  ck_assert_str_eq(cfg->skipped[1].section, "gpuD");
  ck_assert_str_eq(cfg->skipped[1].selector, "pci=bb:00.0");
  ck_assert(has(log_text, "skipped [gpuD] ("));
  ck_assert(has(log_text,
                "host.ini:14) device = \"pci=bb:00.0\": this process does not see "
                "that GPU (CUDA_VISIBLE_DEVICES=2,0; [provider] unseen_gpus = skip)"));
  ck_assert(has(log_text, "2 skipped [gpuB]")); /* INFO */

  /* The daemon itself (CUDA_VISIBLE_DEVICES unset) gets every GPU, none skipped. */
  log_text[0] = '\0';
  ck_assert_msg(resolve_as_child(NULL) == SEALPROV_OK, "%s", err);
  ck_assert_uint_eq(cfg->ndevices, 5);
  ck_assert_uint_eq(cfg->nskipped, 0);
  for (int g = 0; g < HOST_GPUS; g++) ck_assert_int_eq(cfg->devices[g].ordinal, g);
  ck_assert(!has(log_text, "skipped"));
}
END_TEST

/* Without unseen_gpus = skip (the default, error), the same host INI fails in a child:
 * a daemon that loses a listed GPU must not start without it. */
START_TEST(test_default_is_error) {
  write_ini(host_ini + strlen("[provider]\nunseen_gpus = skip\n"));
  ck_assert_int_eq(resolve_as_child("1"), SEALPROV_ERR_CONFIG);
  ck_assert_msg(has(err,
                    "host.ini:3: [gpuA] device = \"uuid=GPU-00000000-1111-2222-3333-"
                    "444444444444\": GPU not present; this process sees 1 GPU:"),
                "%s", err);
  ck_assert_msg(has(err, "(CUDA_VISIBLE_DEVICES=1 limits what it sees)"), "%s", err);
  write_ini("[provider]\nunseen_gpus = ERROR\n[g]\ntype = cuda\ndevice = pci=0000:17:00.0\n");
  ck_assert_int_eq(resolve_as_child("2"), SEALPROV_ERR_CONFIG);
  ck_assert_msg(has(err, "[g] device = \"pci=0000:17:00.0\": GPU not present"), "%s", err);
}
END_TEST

/* Every section skipped: open fails, naming CUDA_VISIBLE_DEVICES and the sections. */
START_TEST(test_all_skipped) {
  write_ini(
      "[provider]\nunseen_gpus = skip\n"
      "[gpuA]\ntype = cuda\ndevice = uuid=GPU-00000000-1111-2222-3333-444444444444\n"
      "[gpuB]\ntype = cuda\ndevice = pci=0000:3d:00.0\n");
  ck_assert_int_eq(resolve_as_child("3"), SEALPROV_ERR_CONFIG);
  static const char *const needles[] = {
      "host.ini:2: [provider] unseen_gpus = \"skip\": every device section names a GPU this "
      "process does not see, so it has no device: [gpuA] device = \"uuid=GPU-00000000-1111-"
      "2222-3333-444444444444\", [gpuB] device = \"pci=0000:3d:00.0\"; this process sees 1 GPU:",
      "GPU-33333333-1111-2222-3333-444444444444", "(CUDA_VISIBLE_DEVICES=3 limits what it sees)"};
  for (size_t i = 0; i < 3; i++)
    ck_assert_msg(has(err, needles[i]), "no \"%s\" in: %s", needles[i], err);
  /* no GPU at all, and the variable not set: the message says so */
  unsetenv("CUDA_VISIBLE_DEVICES");
  ck_assert_int_eq(sp_config_load(ini, cfg, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(sp_config_resolve_with_gpus(cfg, NULL, 0, err, sizeof err), SEALPROV_ERR_CONFIG);
  ck_assert_msg(
      has(err, "this process sees no GPU") && has(err, "(CUDA_VISIBLE_DEVICES is not set)"), "%s",
      err);
}
END_TEST

/* An ordinal means another GPU in each child: refused with skip, at its line, when the
 * file is read (sealprov inspect and check-config see it before any child does). */
START_TEST(test_skip_refuses_ordinals) {
  write_ini(
      "[gpu0]\ntype = cuda\ndevice = uuid=GPU-00000000-1111-2222-3333-444444444444\n"
      "[gpu1]\ntype = cuda\ndevice = 1\n[provider]\nunseen_gpus = skip\n");
  ck_assert_int_eq(sp_config_load(ini, cfg, err, sizeof err), SEALPROV_ERR_CONFIG);
  ck_assert_msg(has(err,
                    "host.ini:6: [gpu1] device = \"1\": an ordinal cannot name a GPU with "
                    "[provider] unseen_gpus = skip (line 8):"),
                "%s", err);
  ck_assert_msg(has(err, "name it by uuid= or pci="), "%s", err);
  ck_assert_uint_eq(cfg->ndevices, 0);
  /* with error (the default) an ordinal is fine */
  write_ini("[gpu1]\ntype = cuda\ndevice = 1\n[provider]\nunseen_gpus = error\n");
  ck_assert_int_eq(sp_config_load(ini, cfg, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(cfg->unseen_gpus, SP_UNSEEN_ERROR);
}
END_TEST

START_TEST(test_bad_values) {
  write_ini("[provider]\nunseen_gpus = ignore\n[cpu0]\ntype = cpu\n");
  ck_assert_int_eq(sp_config_load(ini, cfg, err, sizeof err), SEALPROV_ERR_CONFIG);
  ck_assert_msg(has(err, "host.ini:2: [provider] unseen_gpus = \"ignore\": use error or skip"),
                "%s", err);
  write_ini("[provider]\nunseen_gpus = skip\nunseen_gpus = skip\n[cpu0]\ntype = cpu\n");
  ck_assert_int_eq(sp_config_load(ini, cfg, err, sizeof err), SEALPROV_ERR_CONFIG);
  ck_assert_msg(has(err, "host.ini:3: [provider] unseen_gpus = \"skip\": duplicate key"), "%s",
                err);
  write_ini("[provider]\nUnseen_GPUs = Skip\n[cpu0]\ntype = cpu\n");
  ck_assert_int_eq(sp_config_load(ini, cfg, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(cfg->unseen_gpus, SP_UNSEEN_SKIP);
  ck_assert_int_eq(cfg->unseen_gpus_line, 2);
}
END_TEST

/* log_level = warn: the skipped sections are not logged, and still listed. */
START_TEST(test_quiet_still_listed) {
  char text[1024];
  snprintf(text, sizeof text, "[provider]\nlog_level = warn\n%s",
           host_ini + strlen("[provider]\n"));
  write_ini(text);
  ck_assert_msg(resolve_as_child("0") == SEALPROV_OK, "%s", err);
  ck_assert_uint_eq(cfg->ndevices, 1);
  ck_assert_uint_eq(cfg->nskipped, 3);
  ck_assert(!has(log_text, "skipped"));
}
END_TEST

static Suite *child_suite(void) {
  Suite *s = suite_create("child");
  TCase *tc = tcase_create("unseen_gpus");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_children_at_once);
  tcase_add_test(tc, test_child_sees_two);
  tcase_add_test(tc, test_default_is_error);
  tcase_add_test(tc, test_all_skipped);
  tcase_add_test(tc, test_skip_refuses_ordinals);
  tcase_add_test(tc, test_bad_values);
  tcase_add_test(tc, test_quiet_still_listed);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(child_suite());
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
