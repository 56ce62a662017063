/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_cs.c -- witness-only proving: circom .r1cs / .wtns files, density bitmaps, the
 * CPU sparse products, and jobs that name a constraint system through the dlopen'ed
 * module (byte-identical to full-assignment jobs; unsatisfied witnesses; old hosts).
 *
 * The circuits are the synthetic ones of `sealprov setup` (circuit.h), written as
 * .r1cs by sp_circuit_write_r1cs; their witnesses are known, so every computed a, b, c
 * is compared with the full assignment the generator made. */
#include "bls12_381/bls12_381.h"
#include "circuit.h"
#include "formats/cs.h"
#include "wtns.h"
#include "groth16/cs_eval.h"
#include "groth16/groth16.h"
#include "sealprov.h"
#include "spa.h"
#include "formats/srs.h"

#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERRLEN 768
#define NPART 4

static char tmp_root[200];
static char dir_seal[300], dir_rand[300];
static const char *ini_text =
    "[provider]\nlog_level = warn\nverify_proofs = true\n\n"
    "[cpu0]\ntype = cpu\nworkers = 1\nthreads = 1\n\n"
    "[cpu1]\ntype = cpu\nworkers = 1\nthreads = 1\n";

static void die(const char *what, const char *detail) {
  fprintf(stderr, "test_cs: %s: %s\n", what, detail);
  exit(EXIT_FAILURE);
}

/* Runs in main(), before the (forked) tests. */
static void make_setup(char *dir, size_t dlen, const char *name, uint64_t n, uint32_t inputs,
                       sp_shape shape, uint64_t seed) {
  char err[ERRLEN] = "";
  snprintf(dir, dlen, "%s/%s", tmp_root, name);
  if (mkdir(dir, 0700) != 0) die("mkdir", dir);
  sp_setup_opts o = {.constraints = n,
                     .inputs = inputs,
                     .partitions = NPART,
                     .shape = shape,
                     .seed = seed,
                     .out_dir = dir,
                     .nthreads = 2};
  sp_setup_result res;
  if (sp_setup_run(&o, &res, err, sizeof err) != SEALPROV_OK) die("setup", err);
  if (sp_setup_write_r1cs(&o, err, sizeof err) != SEALPROV_OK) die("write r1cs", err);
}

static void path_in(char *buf, size_t len, const char *dir, const char *name) {
  snprintf(buf, len, "%s/%s", dir, name);
}

static sp_spa *load_part(const char *dir, uint32_t p) {
  char name[64], path[400], err[ERRLEN] = "";
  sp_partition_name(name, sizeof name, p, NPART);
  path_in(path, sizeof path, dir, name);
  sp_spa *spa = NULL;
  int rc = sp_spa_read(path, &spa, err, sizeof err);
  ck_assert_msg(rc == SEALPROV_OK, "read %s: %s", path, err);
  return spa;
}

static sp_cs *load_cs(const char *dir) {
  char path[400], err[ERRLEN] = "";
  path_in(path, sizeof path, dir, "circuit.r1cs");
  sp_cs *cs = NULL;
  int rc = sp_cs_load(path, &cs, err, sizeof err);
  ck_assert_msg(rc == SEALPROV_OK, "load %s: %d %s", path, rc, err);
  return cs;
}

/* The witness of a full assignment: inputs and aux only. */
static sealprov_assignment witness_of(const sealprov_assignment *full) {
  sealprov_assignment w;
  memset(&w, 0, sizeof w);
  w.inp_assignment = full->inp_assignment;
  w.inp_size = full->inp_size;
  w.aux_assignment = full->aux_assignment;
  w.aux_size = full->aux_size;
  return w;
}

static void bitmap_eq(const uint64_t *a, const uint64_t *b, uint64_t bits, const char *what) {
  for (uint64_t j = 0; j < bits; j++) {
    bool x = (a[j / 64] >> (j % 64)) & 1, y = (b[j / 64] >> (j % 64)) & 1;
    ck_assert_msg(x == y, "%s bit %llu: r1cs %d, generator %d", what, (unsigned long long)j, x, y);
  }
}

/* ---- loading and evaluating ---------------------------------------------------------- */

static void check_roundtrip(const char *dir) {
  sp_cs *cs = load_cs(dir);
  for (uint32_t p = 0; p < NPART; p++) {
    sp_spa *spa = load_part(dir, p);
    const sealprov_assignment *full = &spa->asg;
    ck_assert_uint_eq(cs->abc_size, full->abc_size);
    ck_assert_uint_eq(cs->inp_size, full->inp_size);
    ck_assert_uint_eq(cs->aux_size, full->aux_size);
    ck_assert_uint_eq(cs->a_aux_popcount, full->a_aux_popcount);
    ck_assert_uint_eq(cs->b_inp_popcount, full->b_inp_popcount);
    ck_assert_uint_eq(cs->b_aux_popcount, full->b_aux_popcount);
    bitmap_eq(cs->a_aux, full->a_aux_density, cs->aux_size, "a_aux");
    bitmap_eq(cs->b_inp, full->b_inp_density, cs->inp_size, "b_inp");
    bitmap_eq(cs->b_aux, full->b_aux_density, cs->aux_size, "b_aux");
    sealprov_assignment w = witness_of(full);
    char err[ERRLEN] = "";
    sp_cs_eval *e = NULL;
    for (unsigned threads = 1; threads <= 3; threads += 2) {
      ck_assert_int_eq(
          sp_cs_evaluate(cs, &w, SEALPROV_SCALAR_CANONICAL_LE, threads, &e, err, sizeof err),
          SEALPROV_OK);
      const void *want[3] = {full->a, full->b, full->c};
      const void *got[3] = {e->asg.a, e->asg.b, e->asg.c};
      for (int q = 0; q < 3; q++) {
        for (uint64_t i = 0; i < full->abc_size; i++)
          ck_assert_msg(
              memcmp((const uint8_t *)got[q] + 32 * i, (const uint8_t *)want[q] + 32 * i, 32) == 0,
              "%s partition %u: %c[%llu] differs (threads %u)", dir, p, "abc"[q],
              (unsigned long long)i, threads);
      }
      ck_assert_int_eq(sp_groth16_check_rows(&e->asg, 0, 2, err, sizeof err), SEALPROV_OK);
      sp_cs_eval_free(e);
    }
    sp_spa_free(spa);
  }
  sp_cs_release(cs);
}

START_TEST(test_r1cs_roundtrip_sealing) { check_roundtrip(dir_seal); }
END_TEST

START_TEST(test_r1cs_roundtrip_random) { check_roundtrip(dir_rand); }
END_TEST

/* Montgomery witnesses give Montgomery a, b, c of the same values. */
START_TEST(test_evaluate_montgomery) {
  sp_cs *cs = load_cs(dir_seal);
  sp_spa *spa = load_part(dir_seal, 1);
  const sealprov_assignment *full = &spa->asg;
  uint64_t nv = full->inp_size + full->aux_size;
  uint8_t *mont = malloc(32 * nv);
  ck_assert_ptr_nonnull(mont);
  for (uint64_t v = 0; v < nv; v++) {
    const uint8_t *src = v < full->inp_size
                             ? (const uint8_t *)full->inp_assignment + 32 * v
                             : (const uint8_t *)full->aux_assignment + 32 * (v - full->inp_size);
    fr_t f;
    ck_assert(sp_scalar_decode(&f, src, SEALPROV_SCALAR_CANONICAL_LE));
    memcpy(mont + 32 * v, f.l, 32); /* little-endian host: the limbs are the bytes */
  }
  sealprov_assignment w = {.inp_assignment = mont,
                           .inp_size = full->inp_size,
                           .aux_assignment = mont + 32 * full->inp_size,
                           .aux_size = full->aux_size};
  char err[ERRLEN] = "";
  sp_cs_eval *e = NULL;
  ck_assert_int_eq(sp_cs_evaluate(cs, &w, SEALPROV_SCALAR_MONTGOMERY, 2, &e, err, sizeof err),
                   SEALPROV_OK);
  const uint8_t *want[3] = {full->a, full->b, full->c};
  const uint8_t *got[3] = {e->asg.a, e->asg.b, e->asg.c};
  for (int q = 0; q < 3; q++) {
    for (uint64_t i = 0; i < full->abc_size; i++) {
      fr_t x, y;
      ck_assert(sp_scalar_decode(&x, want[q] + 32 * i, SEALPROV_SCALAR_CANONICAL_LE));
      ck_assert(sp_scalar_decode(&y, got[q] + 32 * i, SEALPROV_SCALAR_MONTGOMERY));
      ck_assert_msg(fr_eq(&x, &y), "%c[%llu]", "abc"[q], (unsigned long long)i);
    }
  }
  sp_cs_eval_free(e);
  e = NULL;
  /* a scalar not below r is named */
  memset(mont + 32 * (full->inp_size + 5), 0xff, 32);
  ck_assert_int_eq(sp_cs_evaluate(cs, &w, SEALPROV_SCALAR_MONTGOMERY, 2, &e, err, sizeof err),
                   SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "aux_assignment[5]") != NULL, "%s", err);
  sp_cs_eval_free(e); /* NULL after the failure; freeing it must be harmless */
  free(mont);
  sp_spa_free(spa);
  sp_cs_release(cs);
}
END_TEST

/* A witness that does not satisfy: the row check names the constraint. */
START_TEST(test_unsatisfied_names_row) {
  sp_cs *cs = load_cs(dir_seal);
  sp_spa *spa = load_part(dir_seal, 0);
  const sealprov_assignment *full = &spa->asg;
  uint8_t *aux = malloc(32 * full->aux_size);
  ck_assert_ptr_nonnull(aux);
  memcpy(aux, full->aux_assignment, 32 * full->aux_size);
  /* change one aux variable that occurs somewhere: the first in A */
  uint64_t v = 0;
  while (!((cs->a_aux[v / 64] >> (v % 64)) & 1)) v++;
  aux[32 * v] ^= 0x02;
  sealprov_assignment w = witness_of(full);
  w.aux_assignment = aux;
  char err[ERRLEN] = "";
  sp_cs_eval *e = NULL;
  ck_assert_int_eq(sp_cs_evaluate(cs, &w, 0, 1, &e, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(sp_groth16_check_rows(&e->asg, 0, 1, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "is the first constraint the witness does not satisfy") != NULL, "%s",
                err);
  sp_cs_eval_free(e);
  free(aux);
  sp_spa_free(spa);
  sp_cs_release(cs);
}
END_TEST

/* Submit-time checks of witness-only partitions: precise messages. */
START_TEST(test_check_partition_messages) {
  char path[400], err[ERRLEN] = "";
  path_in(path, sizeof path, dir_seal, "circuit.params");
  sp_srs *srs = NULL;
  ck_assert_int_eq(sp_srs_load(path, false, false, 2, &srs, err, sizeof err), SEALPROV_OK);
  sp_cs *cs = load_cs(dir_seal);
  sp_cs *other = load_cs(dir_rand);
  sp_spa *spa = load_part(dir_seal, 0);
  sealprov_assignment w = witness_of(&spa->asg);
  ck_assert_int_eq(sp_cs_check_partition(srs, cs, &w, err, sizeof err), SEALPROV_OK);
  sealprov_assignment bad = w;
  bad.a = spa->asg.a;
  ck_assert_int_eq(sp_cs_check_partition(srs, cs, &bad, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "a is set, but the job names a constraint system") != NULL, "%s", err);
  bad = w;
  bad.b_aux_density = spa->asg.b_aux_density;
  ck_assert_int_eq(sp_cs_check_partition(srs, cs, &bad, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "b_aux_density is set") != NULL, "%s", err);
  bad = w;
  bad.aux_size--;
  ck_assert_int_eq(sp_cs_check_partition(srs, cs, &bad, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  char want[128];
  snprintf(want, sizeof want, "aux_size %llu does not match the constraint system's %llu",
           (unsigned long long)w.aux_size - 1, (unsigned long long)w.aux_size);
  ck_assert_msg(strstr(err, want) != NULL, "%s", err);
  bad = w;
  bad.inp_assignment = NULL;
  ck_assert_int_eq(sp_cs_check_partition(srs, cs, &bad, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "inp_assignment is NULL") != NULL, "%s", err);
  /* another circuit's system against these parameters */
  sealprov_assignment wo = {.inp_assignment = w.inp_assignment,
                            .inp_size = other->inp_size,
                            .aux_assignment = w.aux_assignment,
                            .aux_size = other->aux_size};
  ck_assert_int_ne(sp_cs_check_partition(srs, other, &wo, err, sizeof err), SEALPROV_OK);
  ck_assert_msg(strstr(err, "does not fit the parameters") != NULL, "%s", err);
  sp_spa_free(spa);
  sp_cs_release(cs);
  sp_cs_release(other);
  sp_srs_release(srs);
}
END_TEST

/* ---- malformed files ------------------------------------------------------------------ */

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)len + 1);
  ck_assert_ptr_nonnull(b);
  ck_assert_uint_eq(fread(b, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return b;
}

static void spit(const char *path, const uint8_t *b, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(b, 1, n, f), n);
  fclose(f);
}

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Loads b as a .r1cs and expects status st with every needle in the message. */
static void expect_r1cs(const uint8_t *b, size_t n, int st, const char *n1, const char *n2) {
  char path[300], err[ERRLEN] = "";
  snprintf(path, sizeof path, "%s/bad.r1cs", tmp_root);
  spit(path, b, n);
  sp_cs *cs = NULL;
  int rc = sp_cs_load(path, &cs, err, sizeof err);
  ck_assert_msg(rc == st, "expected status %d, got %d: %s", st, rc, err);
  ck_assert_ptr_null(cs);
  ck_assert_msg(strstr(err, path) != NULL, "message does not name the file: %s", err);
  ck_assert_msg(!n1 || strstr(err, n1) != NULL, "'%s' not in: %s", n1, err);
  ck_assert_msg(!n2 || strstr(err, n2) != NULL, "'%s' not in: %s", n2, err);
}

/* Layout of sp_circuit_write_r1cs's files: header section content at 24 (n8, prime at
 * 28, nWires 60, nPubOut 64, nPubIn 68, nPrvIn 72, nLabels 76, m 84); the constraints
 * section's header at 88 (size at 92), its first A term count at 100, the first term's
 * wire at 104 and coefficient at 108. */
START_TEST(test_r1cs_truncated_every_length) {
  char path[400];
  path_in(path, sizeof path, dir_rand, "circuit.r1cs");
  size_t n;
  uint8_t *b = slurp(path, &n);
  /* every prefix is refused, as PARAMS, with a message naming the file */
  size_t step = n / 157 + 1;
  for (size_t len = 0; len < n; len += (len < 200 ? 1 : step))
    expect_r1cs(b, len, SEALPROV_ERR_PARAMS, NULL, NULL);
  /* a byte appended */
  uint8_t *longer = malloc(n + 1);
  memcpy(longer, b, n);
  longer[n] = 0;
  expect_r1cs(longer, n + 1, SEALPROV_ERR_PARAMS, "follow the last of its", NULL);
  free(longer);
  free(b);
}
END_TEST

START_TEST(test_r1cs_corrupted) {
  char path[400];
  path_in(path, sizeof path, dir_rand, "circuit.r1cs");
  size_t n;
  uint8_t *orig = slurp(path, &n), *b = malloc(n);
  ck_assert_ptr_nonnull(b);
#define RESET() memcpy(b, orig, n)
  RESET();
  b[0] = 'x';
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS, "not a circom .r1cs file", NULL);
  RESET();
  put32(b + 4, 2);
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS, ".r1cs version 2", NULL);
  RESET(); /* BN254 */
  static const uint8_t bn[32] = {0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9,
                                 0x79, 0x48, 0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
                                 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
  memcpy(b + 28, bn, 32);
  expect_r1cs(b, n, SEALPROV_ERR_UNSUPPORTED,
              "0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001", "BN254");
  RESET(); /* some other 32-byte prime */
  b[40] ^= 0x10;
  expect_r1cs(b, n, SEALPROV_ERR_UNSUPPORTED, "the field prime is 0x", "BLS12-381 only");
  RESET(); /* 48-byte field elements: the header cannot hold them */
  put32(b + 24, 48);
  expect_r1cs(b, n, SEALPROV_ERR_UNSUPPORTED, "field elements of 48 bytes", NULL);
  RESET(); /* nWires too small */
  put32(b + 60, 1);
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS, "nWires 1 is smaller than", NULL);
  RESET(); /* more constraints than the section holds */
  put32(b + 84, 1000000);
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS, "cannot hold 1000000 constraints", NULL);
  RESET(); /* section size past the end */
  put32(b + 92, 0x7fffffff);
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS, "claims 2147483647 bytes", NULL);
  RESET(); /* a wire out of range */
  put32(b + 104, 0x00ffffff);
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS, "constraint 0 A term 0 (byte offset 104)",
              "is not below nWires");
  RESET(); /* a coefficient not below r */
  memset(b + 108, 0xff, 32);
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS, "constraint 0 A term 0 (byte offset 108)",
              "not below BLS12-381's r");
  RESET(); /* a term count that runs past the section */
  put32(b + 100, 0x40000000);
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS,
              "constraint 0 A: 1073741824 terms (count at byte offset 100)", NULL);
  RESET(); /* the header section twice: the constraints section renamed */
  put32(b + 88, 1);
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS, "section type 1 appears twice", NULL);
  RESET(); /* custom gates (PLONK): the wire-to-label section renamed */
  uint32_t nw = (uint32_t)orig[60] | (uint32_t)orig[61] << 8 | (uint32_t)orig[62] << 16 |
                (uint32_t)orig[63] << 24;
  put32(b + n - 8 * (size_t)nw - 12, 4);
  expect_r1cs(b, n, SEALPROV_ERR_UNSUPPORTED, "custom-gates", NULL);
  RESET(); /* no header */
  put32(b + 12, 9);
  expect_r1cs(b, n, SEALPROV_ERR_PARAMS, "no header section", NULL);
  RESET(); /* not there at all, and a directory */
  char err[ERRLEN] = "";
  sp_cs *cs = NULL;
  char missing[400];
  snprintf(missing, sizeof missing, "%s/none.r1cs", tmp_root);
  ck_assert_int_eq(sp_cs_load(missing, &cs, err, sizeof err), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, missing) != NULL, "%s", err);
  ck_assert_int_eq(sp_cs_load(tmp_root, &cs, err, sizeof err), SEALPROV_ERR_IO);
#undef RESET
  free(b);
  free(orig);
}
END_TEST

/* ---- .wtns -------------------------------------------------------------------------------- */

static void expect_wtns(const uint8_t *b, size_t n, int st, const char *n1) {
  char path[300], err[ERRLEN] = "";
  snprintf(path, sizeof path, "%s/bad.wtns", tmp_root);
  spit(path, b, n);
  sp_wtns *w = NULL;
  int rc = sp_wtns_load(path, &w, err, sizeof err);
  ck_assert_msg(rc == st, "expected status %d, got %d: %s", st, rc, err);
  ck_assert_ptr_null(w);
  ck_assert_msg(strstr(err, path) != NULL, "message does not name the file: %s", err);
  ck_assert_msg(!n1 || strstr(err, n1) != NULL, "'%s' not in: %s", n1, err);
}

START_TEST(test_wtns) {
  sp_spa *spa = load_part(dir_seal, 2);
  const sealprov_assignment *full = &spa->asg;
  uint64_t nv = full->inp_size + full->aux_size;
  uint8_t *vals = malloc(32 * nv);
  memcpy(vals, full->inp_assignment, 32 * full->inp_size);
  memcpy(vals + 32 * full->inp_size, full->aux_assignment, 32 * full->aux_size);
  char path[300], err[ERRLEN] = "";
  snprintf(path, sizeof path, "%s/w.wtns", tmp_root);
  ck_assert_int_eq(sp_wtns_write(path, vals, nv, err, sizeof err), SEALPROV_OK);
  sp_wtns *w = NULL;
  ck_assert_int_eq(sp_wtns_load(path, &w, err, sizeof err), SEALPROV_OK);
  ck_assert_uint_eq(w->n, nv);
  ck_assert(memcmp(w->values, vals, 32 * nv) == 0);
  sp_wtns_free(w);

  size_t n;
  uint8_t *orig = slurp(path, &n), *b = malloc(n + 32);
  for (size_t len = 0; len < n; len += (len < 120 ? 1 : 97))
    expect_wtns(orig, len, SEALPROV_ERR_ASSIGNMENT, NULL);
#define RESET() memcpy(b, orig, n)
  RESET();
  b[3] = 'x';
  expect_wtns(b, n, SEALPROV_ERR_ASSIGNMENT, "not a circom .wtns file");
  RESET(); /* other curve */
  b[40] ^= 1;
  expect_wtns(b, n, SEALPROV_ERR_UNSUPPORTED, "BLS12-381 only");
  RESET(); /* count and section disagree */
  put32(b + 60, (uint32_t)nv + 1);
  expect_wtns(b, n, SEALPROV_ERR_ASSIGNMENT, "but the header says nWitness");
  RESET(); /* a value not below r */
  memset(b + 76 + 32 * 3, 0xff, 32);
  expect_wtns(b, n, SEALPROV_ERR_ASSIGNMENT, "witness value 3 (byte offset 172)");
  RESET();
  put32(b + 4, 7);
  expect_wtns(b, n, SEALPROV_ERR_ASSIGNMENT, ".wtns version 7");
#undef RESET
  free(b);
  free(orig);
  free(vals);
  sp_spa_free(spa);
}
END_TEST

/* ---- through the dlopen'ed module --------------------------------------------------- */

static const sealprov_vtable *vt;
static void *dl;

static void open_module(void) {
  const char *so = getenv("SEALPROV_PLUGIN");
  if (!so) die("SEALPROV_PLUGIN", "not set (run through make check)");
  dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!dl) die("dlopen", dlerror());
  sealprov_provider_init_fn init = (sealprov_provider_init_fn)dlsym(dl, SEALPROV_ENTRY_SYMBOL);
  if (!init || init(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, NULL, &vt) != SEALPROV_OK)
    die("init", so);
}

static sealprov_provider *open_provider(void) {
  char ini[300];
  snprintf(ini, sizeof ini, "%s/test.ini", tmp_root);
  FILE *f = fopen(ini, "w");
  ck_assert_ptr_nonnull(f);
  fputs(ini_text, f);
  fclose(f);
  sealprov_provider *p = NULL;
  int rc = vt->open(ini, &p);
  ck_assert_msg(rc == SEALPROV_OK, "open: %s", vt->last_error());
  return p;
}

typedef struct fixture {
  sealprov_provider *p;
  sealprov_srs *srs;
  sealprov_cs *cs;
  sp_spa *spa[NPART];
  sealprov_assignment full[NPART], wit[NPART];
  uint8_t r[32 * NPART], s[32 * NPART];
} fixture;

static void fixture_open(fixture *fx, const char *dir) {
  memset(fx, 0, sizeof *fx);
  fx->p = open_provider();
  char path[400];
  path_in(path, sizeof path, dir, "circuit.params");
  ck_assert_msg(vt->srs_load(fx->p, path, &fx->srs) == SEALPROV_OK, "%s", vt->last_error());
  path_in(path, sizeof path, dir, "circuit.r1cs");
  ck_assert_msg(vt->cs_load(fx->p, path, &fx->cs) == SEALPROV_OK, "%s", vt->last_error());
  for (int i = 0; i < NPART; i++) {
    fx->spa[i] = load_part(dir, (uint32_t)i);
    fx->full[i] = fx->spa[i]->asg;
    fx->wit[i] = witness_of(&fx->full[i]);
  }
  for (int i = 0; i < 32 * NPART; i++) {
    fx->r[i] = (uint8_t)(i * 7 + 1);
    fx->s[i] = (uint8_t)(i * 13 + 5);
  }
  for (int i = 0; i < NPART; i++) { /* keep them below r */
    fx->r[32 * i + 31] = 0x11;
    fx->s[32 * i + 31] = 0x22;
  }
}

static void fixture_close(fixture *fx) {
  vt->cs_release(fx->cs);
  vt->srs_release(fx->srs);
  ck_assert_int_eq(vt->close(fx->p), SEALPROV_OK);
  for (int i = 0; i < NPART; i++) sp_spa_free(fx->spa[i]);
}

static void job_init(sealprov_job *job, fixture *fx, bool witness_only, uint8_t *out) {
  memset(job, 0, sizeof *job);
  job->struct_size = sizeof *job;
  job->flags = SEALPROV_JOB_FIXED_RS;
  job->srs = fx->srs;
  job->partitions = witness_only ? fx->wit : fx->full;
  job->num_partitions = NPART;
  job->r = fx->r;
  job->s = fx->s;
  job->proofs_out = out;
  job->cs = witness_only ? fx->cs : NULL;
}

static void check_byte_identical(const char *dir) {
  fixture fx;
  fixture_open(&fx, dir);
  sealprov_cs_info info = {.struct_size = sizeof info};
  ck_assert_int_eq(vt->cs_info(fx.cs, &info), SEALPROV_OK);
  ck_assert_uint_eq(info.abc_size, fx.full[0].abc_size);
  ck_assert_uint_eq(info.inp_size, fx.full[0].inp_size);
  ck_assert_uint_eq(info.aux_size, fx.full[0].aux_size);
  ck_assert_uint_eq(info.constraints + info.inp_size, info.abc_size);
  ck_assert_uint_eq(info.b_aux_popcount, fx.full[0].b_aux_popcount);
  uint8_t full_out[192 * NPART], wit_out[192 * NPART];
  sealprov_job job;
  job_init(&job, &fx, false, full_out);
  ck_assert_msg(vt->prove(fx.p, &job) == SEALPROV_OK, "full: %s", vt->last_error());
  job_init(&job, &fx, true, wit_out);
  ck_assert_msg(vt->prove(fx.p, &job) == SEALPROV_OK, "witness-only: %s", vt->last_error());
  ck_assert_msg(memcmp(full_out, wit_out, sizeof full_out) == 0,
                "witness-only proofs differ from full-assignment proofs");
  /* A witness in Montgomery form (blstrs memory as is) proves to the same bytes:
   * r = s = 0, which is zero in both encodings. */
  uint8_t zeros[32 * NPART] = {0}, mont_out[192 * NPART];
  job_init(&job, &fx, false, full_out);
  job.r = job.s = zeros;
  ck_assert_msg(vt->prove(fx.p, &job) == SEALPROV_OK, "full, r = s = 0: %s", vt->last_error());
  uint8_t *mont[NPART];
  sealprov_assignment mw[NPART];
  for (int i = 0; i < NPART; i++) {
    uint64_t nv = fx.full[i].inp_size + fx.full[i].aux_size;
    mont[i] = malloc(32 * nv);
    ck_assert_ptr_nonnull(mont[i]);
    for (uint64_t v = 0; v < nv; v++) {
      const uint8_t *src =
          v < fx.full[i].inp_size
              ? (const uint8_t *)fx.full[i].inp_assignment + 32 * v
              : (const uint8_t *)fx.full[i].aux_assignment + 32 * (v - fx.full[i].inp_size);
      fr_t f;
      ck_assert(sp_scalar_decode(&f, src, SEALPROV_SCALAR_CANONICAL_LE));
      memcpy(mont[i] + 32 * v, f.l, 32); /* little-endian host: the limbs are the bytes */
    }
    mw[i] = (sealprov_assignment){.inp_assignment = mont[i],
                                  .inp_size = fx.full[i].inp_size,
                                  .aux_assignment = mont[i] + 32 * fx.full[i].inp_size,
                                  .aux_size = fx.full[i].aux_size};
  }
  job_init(&job, &fx, true, mont_out);
  job.partitions = mw;
  job.scalar_encoding = SEALPROV_SCALAR_MONTGOMERY;
  job.r = job.s = zeros;
  ck_assert_msg(vt->prove(fx.p, &job) == SEALPROV_OK, "witness-only, Montgomery: %s",
                vt->last_error());
  ck_assert_msg(memcmp(full_out, mont_out, sizeof full_out) == 0,
                "witness-only proofs of a Montgomery witness differ from the canonical full "
                "assignment's");
  for (int i = 0; i < NPART; i++) free(mont[i]);
  fixture_close(&fx);
}

START_TEST(test_module_byte_identical_sealing) { check_byte_identical(dir_seal); }
END_TEST

START_TEST(test_module_byte_identical_random) { check_byte_identical(dir_rand); }
END_TEST

/* Submit refuses witness-only partitions that carry a/b/c or wrong sizes; a witness
 * that does not satisfy fails with ASSIGNMENT naming the row; a released cs is
 * refused; the job keeps its reference when the host releases early. */
START_TEST(test_module_bad_witness) {
  fixture fx;
  fixture_open(&fx, dir_seal);
  uint8_t out[192 * NPART];
  sealprov_job job;
  job_init(&job, &fx, true, out);
  fx.wit[2].a = fx.full[2].a;
  ck_assert_int_eq(vt->prove(fx.p, &job), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(vt->last_error(), "partition 2: a is set") != NULL, "%s", vt->last_error());
  fx.wit[2] = witness_of(&fx.full[2]);
  fx.wit[1].inp_size++;
  ck_assert_int_eq(vt->prove(fx.p, &job), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(vt->last_error(), "partition 1: inp_size") != NULL, "%s", vt->last_error());
  fx.wit[1] = witness_of(&fx.full[1]);
  /* unsatisfied: one aux value changed */
  uint8_t *aux = malloc(32 * fx.full[3].aux_size);
  memcpy(aux, fx.full[3].aux_assignment, 32 * fx.full[3].aux_size);
  aux[0] ^= 0x01;
  aux[32 * 7] ^= 0x01;
  fx.wit[3].aux_assignment = aux;
  sealprov_partition_result res[NPART];
  job.results = res;
  int rc = vt->prove(fx.p, &job);
  ck_assert_int_eq(rc, SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(
      strstr(vt->last_error(), "the first constraint the witness does not satisfy") != NULL, "%s",
      vt->last_error());
  ck_assert_int_eq(res[3].status, SEALPROV_ERR_ASSIGNMENT);
  ck_assert_int_eq(res[0].status, SEALPROV_OK);
  /* no device was charged */
  sealprov_device_info dev[2];
  size_t count = 0;
  dev[0].struct_size = sizeof dev[0];
  ck_assert_int_eq(vt->devices(fx.p, dev, 2, &count), SEALPROV_OK);
  ck_assert_uint_eq(dev[0].tasks_failed + dev[1].tasks_failed, 0);
  fx.wit[3] = witness_of(&fx.full[3]);
  free(aux);
  /* the host releases the cs while a job holds it: the job still proves */
  sealprov_job_id id = 0;
  job.results = NULL;
  ck_assert_int_eq(vt->submit(fx.p, &job, &id), SEALPROV_OK);
  vt->cs_release(fx.cs);
  ck_assert_msg(vt->wait(fx.p, id, -1) == SEALPROV_OK, "%s", vt->last_error());
  /* now it is gone: refused by value */
  ck_assert_int_eq(vt->submit(fx.p, &job, &id), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(vt->last_error(), "is not a loaded constraint system") != NULL, "%s",
                vt->last_error());
  sealprov_cs_info info = {.struct_size = sizeof info};
  ck_assert_int_eq(vt->cs_info(fx.cs, &info), SEALPROV_ERR_INVALID_ARGUMENT);
  vt->cs_release(fx.cs); /* a second release: refused, logged, nothing touched */
  fx.cs = NULL;
  fixture_close(&fx);
}
END_TEST

/* A host built against ABI 1.0: its sealprov_job ends before cs, so whatever follows
 * in its memory is never read, and its full-assignment jobs prove as before. */
START_TEST(test_module_old_host_job) {
  fixture fx;
  fixture_open(&fx, dir_seal);
  uint8_t want[192 * NPART], got[192 * NPART];
  sealprov_job job;
  job_init(&job, &fx, false, want);
  ck_assert_msg(vt->prove(fx.p, &job) == SEALPROV_OK, "%s", vt->last_error());
  /* a 1.0 job, followed in memory by garbage where cs would be */
  struct {
    sealprov_job job;
    uint8_t tail[64];
  } old;
  memset(&old, 0, sizeof old);
  job_init(&old.job, &fx, false, got);
  old.job.struct_size = (uint32_t)offsetof(sealprov_job, cs);
  memset((uint8_t *)&old.job + offsetof(sealprov_job, cs), 0xA5, sizeof(void *));
  ck_assert_msg(vt->prove(fx.p, &old.job) == SEALPROV_OK, "%s", vt->last_error());
  ck_assert(memcmp(want, got, sizeof want) == 0);
  /* and the same short struct with a witness-only partition is a full-assignment job:
   * refused for its missing a, b, c */
  old.job.partitions = fx.wit;
  ck_assert_int_eq(vt->prove(fx.p, &old.job), SEALPROV_ERR_ASSIGNMENT);
  /* the 1.0 vtable prefix is unchanged; 1.1's fields are there */
  ck_assert(SEALPROV_VTABLE_HAS(vt, timeline));
  ck_assert(SEALPROV_VTABLE_HAS(vt, cs_info));
  ck_assert_uint_ge(vt->abi_minor, 1);
  /* a short cs_info struct gets only what it covers */
  struct {
    sealprov_cs_info info;
    uint64_t canary;
  } small;
  memset(&small, 0x5A, sizeof small);
  small.info.struct_size = (uint32_t)(offsetof(sealprov_cs_info, abc_size));
  ck_assert_int_eq(vt->cs_info(fx.cs, &small.info), SEALPROV_OK);
  ck_assert_uint_eq(small.info.constraints + fx.full[0].inp_size, fx.full[0].abc_size);
  ck_assert_uint_eq(small.info.abc_size, UINT64_C(0x5A5A5A5A5A5A5A5A));
  fixture_close(&fx);
}
END_TEST

static Suite *cs_suite(void) {
  Suite *s = suite_create("cs");
  TCase *tc = tcase_create("files");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_r1cs_roundtrip_sealing);
  tcase_add_test(tc, test_r1cs_roundtrip_random);
  tcase_add_test(tc, test_evaluate_montgomery);
  tcase_add_test(tc, test_unsatisfied_names_row);
  tcase_add_test(tc, test_check_partition_messages);
  tcase_add_test(tc, test_r1cs_truncated_every_length);
  tcase_add_test(tc, test_r1cs_corrupted);
  tcase_add_test(tc, test_wtns);
  suite_add_tcase(s, tc);
  tc = tcase_create("module");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_module_byte_identical_sealing);
  tcase_add_test(tc, test_module_byte_identical_random);
  tcase_add_test(tc, test_module_bad_witness);
  tcase_add_test(tc, test_module_old_host_job);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  const char *t = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/sp_cs_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmp_root)) die("mkdtemp", tmp_root);
  make_setup(dir_seal, sizeof dir_seal, "seal", 600, 3, SP_SHAPE_SEALING, 21);
  make_setup(dir_rand, sizeof dir_rand, "rand", 300, 2, SP_SHAPE_RANDOM, 22);
  open_module();
  SRunner *sr = srunner_create(cs_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
