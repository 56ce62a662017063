/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_groth16_oracle.c -- our proofs checked by an independent verifier.
 *
 * tests/oracle/verify_groth16.mjs verifies with @noble/curves only (its own file
 * parsing, its own pairing). This program makes small setups, proves with the CPU
 * prover, writes proof files and runs the script on good and bad inputs. Exits 77
 * (skipped) when node or tests/oracle/node_modules is missing. */
#include "bls12_381/bls12_381.h"
#include "circuit.h"
#include "groth16/groth16.h"
#include "spa.h"
#include "formats/srs.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ERRLEN 512

static char tmp_root[256], script[1024], node[512];

typedef struct setup {
  char dir[300], params[400], vk[400];
  uint32_t parts;
} setup;

static setup SA, SB, SR; /* sealing 2^9 (3 partitions), same sizes other seed, random shape */

static void die(const char *what, const char *detail) {
  fprintf(stderr, "test_groth16_oracle: %s: %s\n", what, detail);
  exit(EXIT_FAILURE);
}

static void make_setup(setup *s, const char *name, uint64_t n, uint32_t inputs, uint32_t parts,
                       sp_shape shape, uint64_t seed) {
  char err[ERRLEN] = "";
  snprintf(s->dir, sizeof s->dir, "%s/%s", tmp_root, name);
  if (mkdir(s->dir, 0700) != 0) die("mkdir", s->dir);
  sp_setup_opts o = {.constraints = n,
                     .inputs = inputs,
                     .partitions = parts,
                     .shape = shape,
                     .seed = seed,
                     .out_dir = s->dir,
                     .nthreads = 2};
  sp_setup_result res;
  if (sp_setup_run(&o, &res, err, sizeof err) != SEALPROV_OK) die("setup", err);
  snprintf(s->params, sizeof s->params, "%s/circuit.params", s->dir);
  snprintf(s->vk, sizeof s->vk, "%s/circuit.vk", s->dir);
  s->parts = parts;
}

static void spa_path(char *buf, size_t len, const setup *s, uint32_t p) {
  char name[64];
  sp_partition_name(name, sizeof name, p, s->parts);
  snprintf(buf, len, "%s/%s", s->dir, name);
}

/* Proves every partition of s (r, s from the partition index; zero if zero_rs) into
 * out_path. */
static void prove_all(const setup *s, bool zero_rs, const char *out_path) {
  char err[ERRLEN] = "";
  sp_srs *srs = NULL;
  if (sp_srs_load(s->params, false, true, 2, &srs, err, sizeof err)) die("load", err);
  FILE *f = fopen(out_path, "wb");
  if (!f) die("create", out_path);
  for (uint32_t p = 0; p < s->parts; p++) {
    char path[512];
    spa_path(path, sizeof path, s, p);
    sp_spa *spa = NULL;
    if (sp_spa_read(path, &spa, err, sizeof err)) die("read", err);
    fr_t r = FR_ZERO, sv = FR_ZERO;
    if (!zero_rs) {
      fr_from_u64(&r, 1000 + p);
      fr_from_u64(&sv, 2000 + p);
      fr_sqr(&r, &r); /* not small: exercise full-width scalar products */
      fr_sqr(&r, &r);
      fr_sqr(&sv, &sv);
    }
    uint8_t proof[192];
    if (sp_groth16_prove(srs, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, &r, &sv, 2, proof, err,
                         sizeof err))
      die("prove", err);
    if (fwrite(proof, 1, 192, f) != 192) die("write", out_path);
    sp_spa_free(spa);
  }
  fclose(f);
  sp_srs_release(srs);
}

/* Runs the oracle; returns its exit status, its stdout in out. */
static int oracle(char *out, size_t outlen, const char *vk, const char *proofs, const setup *s,
                  const uint32_t *order, uint32_t n) {
  char cmd[8192];
  int w = snprintf(cmd, sizeof cmd, "'%s' '%s' --vk '%s' --proofs '%s'", node, script, vk, proofs);
  for (uint32_t i = 0; i < n; i++) {
    char path[512];
    spa_path(path, sizeof path, s, order ? order[i] : i);
    w += snprintf(cmd + w, sizeof cmd - (size_t)w, " '%s'", path);
  }
  snprintf(cmd + w, sizeof cmd - (size_t)w, " 2>&1");
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  size_t got = fread(out, 1, outlen - 1, p);
  out[got] = 0;
  int st = pclose(p);
  ck_assert_msg(WIFEXITED(st), "oracle did not exit normally: %s", out);
  return WEXITSTATUS(st);
}

static void proofs_path(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "%s/%s", tmp_root, name);
}

START_TEST(test_oracle_accepts_our_proofs) {
  char out[4096], pf[512];
  proofs_path(pf, sizeof pf, "a.proofs");
  int rc = oracle(out, sizeof out, SA.vk, pf, &SA, NULL, SA.parts);
  ck_assert_msg(rc == 0, "oracle exit %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "proof 0: valid") && strstr(out, "proof 1: valid") &&
                    strstr(out, "proof 2: valid"),
                "%s", out);
  /* r = s = 0 */
  proofs_path(pf, sizeof pf, "a0.proofs");
  rc = oracle(out, sizeof out, SA.vk, pf, &SA, NULL, SA.parts);
  ck_assert_msg(rc == 0, "oracle exit %d:\n%s", rc, out);
  /* random shape */
  proofs_path(pf, sizeof pf, "r.proofs");
  rc = oracle(out, sizeof out, SR.vk, pf, &SR, NULL, SR.parts);
  ck_assert_msg(rc == 0, "oracle exit %d:\n%s", rc, out);
  /* the oracle also reads the head of a .params file as the key */
  proofs_path(pf, sizeof pf, "a.proofs");
  rc = oracle(out, sizeof out, SA.params, pf, &SA, NULL, 1);
  ck_assert_msg(rc == 0, "oracle exit %d:\n%s", rc, out);
}
END_TEST

START_TEST(test_oracle_rejects_tampered) {
  char out[4096], pf[512], bad[512];
  proofs_path(pf, sizeof pf, "a.proofs");
  proofs_path(bad, sizeof bad, "tampered.proofs");
  FILE *f = fopen(pf, "rb");
  uint8_t buf[3 * 192];
  ck_assert_uint_eq(fread(buf, 1, sizeof buf, f), sizeof buf);
  fclose(f);
  /* proof 1: a bit of C's x; proof 2: A replaced by -A (still a valid point) */
  buf[192 + 150] ^= 0x04;
  buf[2 * 192] ^= 0x20;
  f = fopen(bad, "wb");
  ck_assert_uint_eq(fwrite(buf, 1, sizeof buf, f), sizeof buf);
  fclose(f);
  int rc = oracle(out, sizeof out, SA.vk, bad, &SA, NULL, SA.parts);
  ck_assert_msg(rc == 1, "oracle exit %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "proof 0: valid") && strstr(out, "proof 1: invalid") &&
                    strstr(out, "proof 2: invalid: pairing check failed"),
                "%s", out);
  /* our verifier agrees */
  char err[ERRLEN];
  sp_srs *srs = NULL;
  ck_assert_int_eq(sp_srs_load(SA.vk, true, true, 1, &srs, err, sizeof err), SEALPROV_OK);
  for (uint32_t p = 0; p < 3; p++) {
    char path[512];
    spa_path(path, sizeof path, &SA, p);
    sp_spa *spa = NULL;
    ck_assert_int_eq(sp_spa_read(path, &spa, err, sizeof err), SEALPROV_OK);
    bool valid = false;
    sp_groth16_verify(srs, &spa->asg, 0, buf + 192 * p, &valid, err, sizeof err);
    ck_assert_msg(valid == (p == 0), "partition %u: ours says %d", p, valid);
    sp_spa_free(spa);
  }
  sp_srs_release(srs);
}
END_TEST

START_TEST(test_oracle_rejects_wrong_inputs_and_vk) {
  char out[4096], pf[512];
  proofs_path(pf, sizeof pf, "a.proofs");
  /* proofs 0 and 1 checked against each other's inputs */
  uint32_t swapped[2] = {1, 0};
  int rc = oracle(out, sizeof out, SA.vk, pf, &SA, swapped, 2);
  ck_assert_msg(rc == 1, "oracle exit %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "proof 0: invalid: pairing check failed") &&
                    strstr(out, "proof 1: invalid: pairing check failed"),
                "%s", out);
  /* another setup's key (same circuit sizes, other toxic waste) */
  rc = oracle(out, sizeof out, SB.vk, pf, &SA, NULL, SA.parts);
  ck_assert_msg(rc == 1, "oracle exit %d:\n%s", rc, out);
  ck_assert_msg(!strstr(out, ": valid"), "%s", out);
  /* a key with a different number of inputs */
  rc = oracle(out, sizeof out, SR.vk, pf, &SA, NULL, 1);
  ck_assert_msg(rc == 1, "oracle exit %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "inputs, the key expects"), "%s", out);
}
END_TEST

static Suite *oracle_suite(void) {
  Suite *s = suite_create("groth16_oracle");
  TCase *tc = tcase_create("noble");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_oracle_accepts_our_proofs);
  tcase_add_test(tc, test_oracle_rejects_tampered);
  tcase_add_test(tc, test_oracle_rejects_wrong_inputs_and_vk);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  const char *src = getenv("top_srcdir");
  if (!src || !*src) src = ".";
  snprintf(script, sizeof script, "%s/tests/oracle/verify_groth16.mjs", src);
  char probe[1200];
  snprintf(probe, sizeof probe, "%s/tests/oracle/node_modules/@noble/curves/package.json", src);
  const char *nd = getenv("NODE");
  snprintf(node, sizeof node, "%s", nd && *nd ? nd : "node");
  char cmd[700];
  snprintf(cmd, sizeof cmd, "'%s' --version >/dev/null 2>&1", node);
  if (access(probe, R_OK) != 0 || system(cmd) != 0) {
    fprintf(stderr, "SKIP: node or %s missing (cd tests/oracle && npm ci)\n", probe);
    return 77;
  }
  const char *t = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/sp_oracle_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmp_root)) die("mkdtemp", tmp_root);
  make_setup(&SA, "a", 500, 3, 3, SP_SHAPE_SEALING, 101);
  make_setup(&SB, "b", 500, 3, 1, SP_SHAPE_SEALING, 102);
  make_setup(&SR, "r", 300, 5, 2, SP_SHAPE_RANDOM, 103);
  char pf[512];
  proofs_path(pf, sizeof pf, "a.proofs");
  prove_all(&SA, false, pf);
  proofs_path(pf, sizeof pf, "a0.proofs");
  prove_all(&SA, true, pf);
  proofs_path(pf, sizeof pf, "r.proofs");
  prove_all(&SR, false, pf);

  SRunner *sr = srunner_create(oracle_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
