/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_groth16_module.c -- proving through the built module, as a host does it: dlopen,
 * the one exported symbol, open(ini) with two CPU devices, srs_load, submit / wait.
 *
 * Checks that a 10-partition job uses both devices, that proofs with fixed r and s are
 * byte-identical whichever device ran them (and equal to proving in-process), that
 * injected device faults are retried on the other device, and that a partition that
 * does not fit the parameters is refused at submit with the size message. */
#include <config.h> /* SP_FAULT_INJECTION */

#include "bls12_381/bls12_381.h"
#include "circuit.h"
#include "groth16/groth16.h"
#include "sealprov.h"
#include "spa.h"
#include "formats/srs.h"

#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERRLEN 512
#define NPART 10

static char tmp_root[256], dir[300], other_dir[300], params[400];
static const sealprov_vtable *vt;
static void *dl;
static sp_spa *parts[NPART];
static sealprov_assignment asg[NPART];
static uint8_t rbytes[NPART * 32], sbytes[NPART * 32];
static uint8_t expected[NPART * 192];

static void die(const char *what, const char *detail) {
  fprintf(stderr, "test_groth16_module: %s: %s\n", what, detail);
  exit(EXIT_FAILURE);
}

static void write_ini(const char *path, const char *extra) {
  FILE *f = fopen(path, "w");
  if (!f) die("create", path);
  fprintf(f,
          "[provider]\nlog_level = warn\nverify_proofs = true\nquarantine_after = 100\n"
          "max_attempts = 3\n\n"
          "[cpu0]\ntype = cpu\nworkers = 1\nthreads = 1\n\n"
          "[cpu1]\ntype = cpu\nworkers = 1\nthreads = 1\n%s",
          extra ? extra : "");
  fclose(f);
}

static sealprov_provider *open_with(const char *extra) {
  char ini[400];
  snprintf(ini, sizeof ini, "%s/test.ini", tmp_root);
  write_ini(ini, extra);
  sealprov_provider *p = NULL;
  int rc = vt->open(ini, &p);
  ck_assert_msg(rc == SEALPROV_OK, "open: %s: %s", vt->strerror(rc), vt->last_error());
  return p;
}

static void make_job(sealprov_job *job, sealprov_srs *srs, uint8_t *out,
                     sealprov_partition_result *res) {
  memset(job, 0, sizeof *job);
  job->struct_size = sizeof *job;
  job->flags = SEALPROV_JOB_FIXED_RS;
  job->srs = srs;
  job->partitions = asg;
  job->num_partitions = NPART;
  job->scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  job->r = rbytes;
  job->s = sbytes;
  job->proofs_out = out;
  job->results = res;
}

static void check_proofs(const uint8_t *out, const sealprov_partition_result *res,
                         int *per_device) {
  for (int i = 0; i < NPART; i++) {
    ck_assert_msg(res[i].status == SEALPROV_OK, "partition %d status %d", i, res[i].status);
    ck_assert_msg(res[i].device == 0 || res[i].device == 1, "partition %d device %d", i,
                  res[i].device);
    per_device[res[i].device]++;
    ck_assert_msg(memcmp(out + 192 * i, expected + 192 * i, 192) == 0,
                  "partition %d: proof from device %d differs from the in-process proof", i,
                  res[i].device);
  }
}

START_TEST(test_two_devices_identical_proofs) {
  sealprov_provider *p = open_with(NULL);
  sealprov_srs *srs = NULL;
  ck_assert_msg(vt->srs_load(p, params, &srs) == SEALPROV_OK, "%s", vt->last_error());
  int per_device[2] = {0, 0};
  /* several jobs: each device runs partitions, and every byte matches */
  for (int round = 0; round < 3; round++) {
    uint8_t out[NPART * 192];
    sealprov_partition_result res[NPART];
    memset(out, 0, sizeof out);
    sealprov_job job;
    make_job(&job, srs, out, res);
    int rc = vt->prove(p, &job);
    ck_assert_msg(rc == SEALPROV_OK, "prove: %s: %s", vt->strerror(rc), vt->last_error());
    check_proofs(out, res, per_device);
  }
  ck_assert_msg(per_device[0] > 0 && per_device[1] > 0,
                "a 10-partition job used devices %d/%d times", per_device[0], per_device[1]);
  /* the module's verifier accepts them, and refuses another partition's inputs */
  sealprov_srs *vk = NULL;
  char vkp[400];
  snprintf(vkp, sizeof vkp, "%s/circuit.vk", dir);
  ck_assert_int_eq(vt->vk_load(p, vkp, &vk), SEALPROV_OK);
  int valid = 0;
  const uint8_t *in1 = (const uint8_t *)asg[1].inp_assignment + 32;
  ck_assert_int_eq(vt->verify(p, vk, in1, asg[1].inp_size - 1, 0, expected + 192, &valid),
                   SEALPROV_OK);
  ck_assert_int_eq(valid, 1);
  ck_assert_int_eq(vt->verify(p, vk, in1, asg[1].inp_size - 1, 0, expected + 384, &valid),
                   SEALPROV_OK);
  ck_assert_int_eq(valid, 0);
  vt->srs_release(vk);
  vt->srs_release(srs);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

#ifdef SP_FAULT_INJECTION /* [testing] needs a build with --enable-fault-injection */
/* A device that corrupts its proofs (or fails) has its partitions redone on the
 * other device; the job still ends with the right bytes. */
START_TEST(test_faulty_device_retried) {
  static const char *faults[2] = {"corrupt_proof", "fail_kernel"};
  for (int k = 0; k < 2; k++) {
    char extra[200];
    snprintf(extra, sizeof extra, "\n[testing]\ninject_device = cpu1\ninject = %s\n", faults[k]);
    sealprov_provider *p = open_with(extra);
    sealprov_srs *srs = NULL;
    ck_assert_int_eq(vt->srs_load(p, params, &srs), SEALPROV_OK);
    uint8_t out[NPART * 192];
    sealprov_partition_result res[NPART];
    sealprov_job job;
    make_job(&job, srs, out, res);
    int rc = vt->prove(p, &job);
    ck_assert_msg(rc == SEALPROV_OK, "%s: prove: %s: %s", faults[k], vt->strerror(rc),
                  vt->last_error());
    int per_device[2] = {0, 0};
    check_proofs(out, res, per_device);
    ck_assert_msg(per_device[1] == 0, "%s: device 1 delivered %d proofs", faults[k], per_device[1]);
    unsigned retried = 0;
    for (int i = 0; i < NPART; i++) retried += res[i].attempts > 1;
    ck_assert_msg(retried > 0, "%s: no partition was retried", faults[k]);
    vt->srs_release(srs);
    ck_assert_int_eq(vt->close(p), SEALPROV_OK);
  }
}
END_TEST
#endif

START_TEST(test_submit_refuses_mismatched_partition) {
  sealprov_provider *p = open_with(NULL);
  sealprov_srs *srs = NULL;
  ck_assert_int_eq(vt->srs_load(p, params, &srs), SEALPROV_OK);
  char path[400], err[ERRLEN];
  snprintf(path, sizeof path, "%s/partition-00.spa", other_dir);
  sp_spa *other = NULL;
  ck_assert_int_eq(sp_spa_read(path, &other, err, sizeof err), SEALPROV_OK);
  sealprov_assignment mixed[NPART];
  memcpy(mixed, asg, sizeof mixed);
  mixed[3] = other->asg;
  uint8_t out[NPART * 192];
  sealprov_job job;
  make_job(&job, srs, out, NULL);
  job.partitions = mixed;
  sealprov_job_id id = 0;
  int rc = vt->submit(p, &job, &id);
  ck_assert_int_eq(rc, SEALPROV_ERR_ASSIGNMENT);
  char want[200];
  snprintf(want, sizeof want, "does not match parameter file l_len");
  ck_assert_msg(strstr(vt->last_error(), want) && strstr(vt->last_error(), params), "%s",
                vt->last_error());
  /* a vk handle cannot prove */
  sealprov_srs *vk = NULL;
  snprintf(path, sizeof path, "%s/circuit.vk", dir);
  ck_assert_int_eq(vt->vk_load(p, path, &vk), SEALPROV_OK);
  make_job(&job, vk, out, NULL);
  rc = vt->submit(p, &job, &id);
  ck_assert_msg(rc != SEALPROV_OK, "a verifying key was accepted for proving");
  vt->srs_release(vk);
  sp_spa_free(other);
  vt->srs_release(srs);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

/* The host may drop its reference as soon as the job is submitted: the job holds one. */
START_TEST(test_release_params_while_proving) {
  sealprov_provider *p = open_with(NULL);
  sealprov_srs *srs = NULL;
  ck_assert_int_eq(vt->srs_load(p, params, &srs), SEALPROV_OK);
  uint8_t out[NPART * 192];
  sealprov_partition_result res[NPART];
  sealprov_job job;
  make_job(&job, srs, out, res);
  sealprov_job_id id = 0;
  ck_assert_int_eq(vt->submit(p, &job, &id), SEALPROV_OK);
  vt->srs_release(srs);
  int rc = vt->wait(p, id, -1);
  ck_assert_msg(rc == SEALPROV_OK, "wait: %s: %s", vt->strerror(rc), vt->last_error());
  int per_device[2] = {0, 0};
  check_proofs(out, res, per_device);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

/* Input faults never charge a device (design rule 5): a witness whose rows do not hold
 * and an input 0 that is not ONE fail before any device time, with the row or value
 * named; an aux assignment that does not match a, b and c passes those checks, fails
 * the self-check on both devices and ends ASSIGNMENT. With quarantine_after = 1 a
 * single charge would quarantine a device: none is, and a valid job then proves. */
START_TEST(test_input_faults_charge_no_device) {
  char ini[400];
  snprintf(ini, sizeof ini, "%s/strict.ini", tmp_root);
  FILE *f = fopen(ini, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f,
          "[provider]\nlog_level = error\nquarantine_after = 1\nmax_attempts = 3\n\n"
          "[cpu0]\ntype = cpu\nworkers = 1\nthreads = 1\n\n"
          "[cpu1]\ntype = cpu\nworkers = 1\nthreads = 1\n");
  fclose(f);
  sealprov_provider *p = NULL;
  ck_assert_int_eq(vt->open(ini, &p), SEALPROV_OK);
  sealprov_srs *srs = NULL;
  ck_assert_int_eq(vt->srs_load(p, params, &srs), SEALPROV_OK);
  const sealprov_assignment *good = &asg[2];

  for (int kind = 0; kind < 3; kind++) {
    sealprov_assignment bad = *good;
    uint8_t *copy = NULL;
    const char *want = NULL;
    if (kind == 0) { /* c[5] off by one: row 5 does not hold */
      copy = malloc(32 * good->abc_size);
      memcpy(copy, good->c, 32 * good->abc_size);
      copy[32 * 5] ^= 1;
      bad.c = copy;
      want = "a[5] * b[5] != c[5]: row 5";
    } else if (kind == 1) { /* input 0 is 2 */
      copy = malloc(32 * good->inp_size);
      memcpy(copy, good->inp_assignment, 32 * good->inp_size);
      memset(copy, 0, 32);
      copy[0] = 2;
      bad.inp_assignment = copy;
      want = "inp_assignment[0] = 0x";
    } else { /* an aux value that a, b and c do not reflect */
      copy = malloc(32 * good->aux_size);
      memcpy(copy, good->aux_assignment, 32 * good->aux_size);
      uint64_t i = good->aux_size / 2;
      memset(copy + 32 * i, 0, 32);
      copy[32 * i] = 0x5a;
      bad.aux_assignment = copy;
      want = "does not satisfy the circuit of these parameters";
    }
    uint8_t out[192];
    sealprov_partition_result res[1];
    sealprov_job job;
    memset(&job, 0, sizeof job);
    job.struct_size = sizeof job;
    job.srs = srs;
    job.partitions = &bad;
    job.num_partitions = 1;
    job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
    job.proofs_out = out;
    job.results = res;
    int rc = vt->prove(p, &job);
    ck_assert_msg(rc == SEALPROV_ERR_ASSIGNMENT, "kind %d: %s: %s", kind, vt->strerror(rc),
                  vt->last_error());
    ck_assert_msg(strstr(vt->last_error(), want) != NULL, "kind %d: %s", kind, vt->last_error());
    ck_assert_uint_eq(res[0].attempts, kind == 2 ? 2 : 1);
    free(copy);
  }
  sealprov_device_info info[2];
  memset(info, 0, sizeof info);
  info[0].struct_size = sizeof info[0]; /* the host's struct size: all fields */
  size_t n = 0;
  ck_assert_int_eq(vt->devices(p, info, 2, &n), SEALPROV_OK);
  for (int d = 0; d < 2; d++) {
    ck_assert_int_ne(info[d].state, SEALPROV_DEVICE_QUARANTINED);
    ck_assert_uint_eq(info[d].tasks_failed, 0);
  }
  uint8_t out[NPART * 192];
  sealprov_partition_result res[NPART];
  sealprov_job job;
  make_job(&job, srs, out, res);
  int rc = vt->prove(p, &job);
  ck_assert_msg(rc == SEALPROV_OK, "%s: %s", vt->strerror(rc), vt->last_error());
  int per_device[2] = {0, 0};
  check_proofs(out, res, per_device);
  vt->srs_release(srs);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
}
END_TEST

/* Closed providers and released parameter sets are recognised by value: no call reads
 * freed memory (the ASan build of this test would catch it). */
START_TEST(test_stale_handles) {
  sealprov_provider *p = open_with(NULL);
  sealprov_srs *srs = NULL, *vk = NULL;
  ck_assert_int_eq(vt->srs_load(p, params, &srs), SEALPROV_OK);
  char path[400];
  snprintf(path, sizeof path, "%s/circuit.vk", dir);
  ck_assert_int_eq(vt->vk_load(p, path, &vk), SEALPROV_OK);
  vt->srs_release(vk);
  /* a released vk */
  uint8_t proof[192] = {0};
  int valid = 1;
  ck_assert_int_eq(vt->verify(p, vk, NULL, 0, 0, proof, &valid), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(vt->last_error(), "not a loaded parameter set"));
  ck_assert_int_eq(valid, 0);
  vt->srs_release(vk); /* twice: ignored */
  /* a released srs in a job */
  vt->srs_release(srs);
  uint8_t out[NPART * 192];
  sealprov_job job;
  make_job(&job, srs, out, NULL);
  sealprov_job_id id = 0;
  ck_assert_int_eq(vt->submit(p, &job, &id), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(vt->last_error(), "not a loaded parameter set"));
  ck_assert_int_eq(vt->prove(p, &job), SEALPROV_ERR_INVALID_ARGUMENT);
  /* a foreign pointer */
  static char not_a_provider[4096];
  ck_assert_int_eq(vt->close((sealprov_provider *)not_a_provider), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
  /* every call on the closed provider */
  size_t len = 0;
  ck_assert_int_eq(vt->close(p), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(vt->last_error(), "not an open provider"));
  ck_assert_int_eq(vt->srs_load(p, params, &srs), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(srs);
  ck_assert_int_eq(vt->vk_load(p, path, &vk), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->submit(p, &job, &id), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->wait(p, 1, 0), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->cancel(p, 1), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->prove(p, &job), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->verify(p, NULL, NULL, 0, 0, proof, &valid), SEALPROV_ERR_INVALID_ARGUMENT);
  sealprov_device_info info[2];
  ck_assert_int_eq(vt->devices(p, info, 2, &len), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->stats(p, NULL, 0, &len), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(vt->timeline(p, NULL, 0, &len), SEALPROV_ERR_INVALID_ARGUMENT);
}
END_TEST

static Suite *module_suite(void) {
  Suite *s = suite_create("groth16_module");
  TCase *tc = tcase_create("cpu_devices");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_two_devices_identical_proofs);
#ifdef SP_FAULT_INJECTION
  tcase_add_test(tc, test_faulty_device_retried);
#endif
  tcase_add_test(tc, test_submit_refuses_mismatched_partition);
  tcase_add_test(tc, test_release_params_while_proving);
  tcase_add_test(tc, test_input_faults_charge_no_device);
  tcase_add_test(tc, test_stale_handles);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  const char *plugin = getenv("SEALPROV_PLUGIN");
  if (!plugin || !*plugin)
    die("SEALPROV_PLUGIN", "not set (make check sets it to the built module)");
  dl = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
  if (!dl) die("dlopen", dlerror());
  sealprov_provider_init_fn init = (sealprov_provider_init_fn)dlsym(dl, SEALPROV_ENTRY_SYMBOL);
  if (!init || init(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, NULL, &vt) != SEALPROV_OK)
    die("init", plugin);

  const char *t = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/sp_mod_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmp_root)) die("mkdtemp", tmp_root);
  snprintf(dir, sizeof dir, "%s/job", tmp_root);
  snprintf(other_dir, sizeof other_dir, "%s/other", tmp_root);
  char err[ERRLEN] = "";
  sp_setup_result res;
  sp_setup_opts o = {.constraints = 1000,
                     .inputs = 4,
                     .partitions = NPART,
                     .shape = SP_SHAPE_SEALING,
                     .seed = 42,
                     .out_dir = dir,
                     .nthreads = 2};
  if (mkdir(dir, 0700) || sp_setup_run(&o, &res, err, sizeof err)) die("setup", err);
  sp_setup_opts o2 = {.constraints = 600,
                      .inputs = 4,
                      .partitions = 1,
                      .shape = SP_SHAPE_SEALING,
                      .seed = 43,
                      .out_dir = other_dir,
                      .nthreads = 2};
  if (mkdir(other_dir, 0700) || sp_setup_run(&o2, &res, err, sizeof err)) die("setup", err);
  snprintf(params, sizeof params, "%s/circuit.params", dir);

  /* expected bytes: the same r, s proved in this process */
  sp_srs *srs = NULL;
  if (sp_srs_load(params, false, true, 2, &srs, err, sizeof err)) die("load", err);
  for (int i = 0; i < NPART; i++) {
    char path[400], name[64];
    sp_partition_name(name, sizeof name, (uint32_t)i, NPART);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (sp_spa_read(path, &parts[i], err, sizeof err)) die("read", err);
    asg[i] = parts[i]->asg;
    fr_t r, s;
    fr_from_u64(&r, 77 + (uint64_t)i);
    fr_from_u64(&s, 99 + (uint64_t)i);
    fr_pow_u64(&r, &r, 1000003); /* full-width values */
    fr_pow_u64(&s, &s, 1000033);
    fr_to_le32(rbytes + 32 * i, &r);
    fr_to_le32(sbytes + 32 * i, &s);
    if (sp_groth16_prove(srs, &asg[i], SEALPROV_SCALAR_CANONICAL_LE, &r, &s, 2, expected + 192 * i,
                         err, sizeof err))
      die("prove", err);
  }
  sp_srs_release(srs);

  SRunner *sr = srunner_create(module_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  for (int i = 0; i < NPART; i++) sp_spa_free(parts[i]);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
