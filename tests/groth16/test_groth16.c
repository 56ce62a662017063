/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_groth16.c -- .spa files, .params/.vk loading, proving and verification on the CPU.
 *
 * Small circuits (2^8 .. 2^10 constraints) from the synthetic generator; the
 * independent @noble/curves verifier is exercised by test_groth16_oracle. */
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
#include <unistd.h>

#define ERRLEN 512

/* ---- shared fixtures: small setups, made once per process ------------------------ */

typedef struct setup {
  char dir[256];
  char params[300], vk[300];
  uint32_t parts;
  sp_setup_result res;
} setup;

static char tmp_root[200];
static setup S1;  /* sealing shape, 250 constraints, 4 inputs, 3 partitions, seed 11 */
static setup S1b; /* same circuit, other toxic waste (seed 12 -> different everything) */
static setup S2;  /* 500 constraints, 4 inputs: other sizes */
static setup S3;  /* random shape, 300 constraints, 2 inputs */
static int setups_done;

/* Runs in main(), before the (forked) tests: plain checks, no ck_assert. */
static void make_setup(setup *s, const char *name, uint64_t n, uint32_t inputs, uint32_t parts,
                       sp_shape shape, uint64_t seed) {
  char err[ERRLEN] = "";
  snprintf(s->dir, sizeof s->dir, "%s/%s", tmp_root, name);
  if (mkdir(s->dir, 0700) != 0) {
    perror(s->dir);
    exit(EXIT_FAILURE);
  }
  sp_setup_opts o = {.constraints = n,
                     .inputs = inputs,
                     .partitions = parts,
                     .shape = shape,
                     .seed = seed,
                     .out_dir = s->dir,
                     .nthreads = 2};
  int rc = sp_setup_run(&o, &s->res, err, sizeof err);
  if (rc != SEALPROV_OK) {
    fprintf(stderr, "setup %s: %s\n", name, err);
    exit(EXIT_FAILURE);
  }
  snprintf(s->params, sizeof s->params, "%s/circuit.params", s->dir);
  snprintf(s->vk, sizeof s->vk, "%s/circuit.vk", s->dir);
  s->parts = parts;
}

static void setups(void) {
  if (setups_done) return;
  const char *t = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/sp_g16_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmp_root)) {
    perror(tmp_root);
    exit(EXIT_FAILURE);
  }
  make_setup(&S1, "s1", 250, 4, 3, SP_SHAPE_SEALING, 11);
  make_setup(&S1b, "s1b", 250, 4, 1, SP_SHAPE_SEALING, 12);
  make_setup(&S2, "s2", 500, 4, 1, SP_SHAPE_SEALING, 13);
  make_setup(&S3, "s3", 300, 2, 2, SP_SHAPE_RANDOM, 14);
  setups_done = 1;
}

static void cleanup_tree(void) {
  if (!setups_done) return;
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
}

static void part_path(char *buf, size_t len, const setup *s, uint32_t p) {
  char name[64];
  sp_partition_name(name, sizeof name, p, s->parts);
  snprintf(buf, len, "%s/%s", s->dir, name);
}

static sp_srs *load_params(const char *path, bool subgroup) {
  char err[ERRLEN] = "";
  sp_srs *srs = NULL;
  int rc = sp_srs_load(path, false, subgroup, 2, &srs, err, sizeof err);
  ck_assert_msg(rc == SEALPROV_OK, "load %s: %s", path, err);
  return srs;
}

static sp_spa *load_part(const setup *s, uint32_t p) {
  char path[400], err[ERRLEN] = "";
  part_path(path, sizeof path, s, p);
  sp_spa *spa = NULL;
  int rc = sp_spa_read(path, &spa, err, sizeof err);
  ck_assert_msg(rc == SEALPROV_OK, "read %s: %s", path, err);
  return spa;
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(b);
  ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return b;
}

static void spit(const char *path, const uint8_t *b, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(b, 1, len, f), len);
  fclose(f);
}

/* Loads a modified copy of a parameter file; returns the status, err filled. */
static int load_bytes(const uint8_t *b, size_t len, bool vk_only, bool subgroup, char *err) {
  char path[400];
  snprintf(path, sizeof path, "%s/bad.params", tmp_root);
  spit(path, b, len);
  sp_srs *srs = NULL;
  err[0] = 0;
  int rc = sp_srs_load(path, vk_only, subgroup, 2, &srs, err, ERRLEN);
  if (rc == SEALPROV_OK)
    sp_srs_release(srs);
  else
    ck_assert_ptr_null(srs);
  return rc;
}

static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* Byte offsets of the .params vectors (values from the loaded file). */
typedef struct offsets {
  size_t ic_len, h_len, l_len, a_len, b1_len, b2_len, end;
} offsets;

static offsets offsets_of(const sp_srs *s) {
  offsets o;
  o.ic_len = 864;
  o.h_len = o.ic_len + 4 + 96 * s->vk.ic_len;
  o.l_len = o.h_len + 4 + 96 * s->h_len;
  o.a_len = o.l_len + 4 + 96 * s->l_len;
  o.b1_len = o.a_len + 4 + 96 * s->a_len;
  o.b2_len = o.b1_len + 4 + 96 * s->b_g1_len;
  o.end = o.b2_len + 4 + 192 * s->b_g2_len;
  return o;
}

/* ---- XXH64 and .spa ------------------------------------------------------------- */

START_TEST(test_xxh64_vectors) {
  /* expected values from the reference libxxhash 0.8.1 (XXH64, seed 0) */
  ck_assert_uint_eq(sp_xxh64("", 0), UINT64_C(0xef46db3751d8e999));
  ck_assert_uint_eq(sp_xxh64("abc", 3), UINT64_C(0x44bc2cf5ad770999));
  uint8_t b[100];
  for (int i = 0; i < 100; i++) b[i] = (uint8_t)i;
  ck_assert_uint_eq(sp_xxh64(b, 100), UINT64_C(0x6ac1e58032166597));
  /* streaming in odd pieces gives the same value */
  sp_xxh64_state h;
  sp_xxh64_init(&h);
  sp_xxh64_update(&h, b, 7);
  sp_xxh64_update(&h, b + 7, 33);
  sp_xxh64_update(&h, b + 40, 60);
  ck_assert_uint_eq(sp_xxh64_final(&h), UINT64_C(0x6ac1e58032166597));
}
END_TEST

START_TEST(test_spa_roundtrip) {
  char err[ERRLEN] = "";
  sp_circuit *c = NULL;
  ck_assert_int_eq(sp_circuit_generate(300, 3, SP_SHAPE_SEALING, 5, &c, err, sizeof err),
                   SEALPROV_OK);
  sp_witness *w = NULL;
  ck_assert_int_eq(sp_circuit_witness(c, 77, &w, err, sizeof err), SEALPROV_OK);
  char path[400];
  snprintf(path, sizeof path, "%s/rt.spa", tmp_root);
  ck_assert_int_eq(sp_spa_write(path, &w->asg, err, sizeof err), SEALPROV_OK);
  sp_spa *s = NULL;
  ck_assert_msg(sp_spa_read(path, &s, err, sizeof err) == SEALPROV_OK, "%s", err);
  const sealprov_assignment *a = &w->asg, *b = &s->asg;
  ck_assert_uint_eq(a->abc_size, b->abc_size);
  ck_assert_uint_eq(a->inp_size, b->inp_size);
  ck_assert_uint_eq(a->aux_size, b->aux_size);
  ck_assert_uint_eq(a->a_aux_popcount, b->a_aux_popcount);
  ck_assert_uint_eq(a->b_inp_popcount, b->b_inp_popcount);
  ck_assert_uint_eq(a->b_aux_popcount, b->b_aux_popcount);
  ck_assert_mem_eq(a->a, b->a, 32 * a->abc_size);
  ck_assert_mem_eq(a->b, b->b, 32 * a->abc_size);
  ck_assert_mem_eq(a->c, b->c, 32 * a->abc_size);
  ck_assert_mem_eq(a->inp_assignment, b->inp_assignment, 32 * a->inp_size);
  ck_assert_mem_eq(a->aux_assignment, b->aux_assignment, 32 * a->aux_size);
  ck_assert_mem_eq(a->a_aux_density, b->a_aux_density, 8 * ((a->aux_size + 63) / 64));
  ck_assert_mem_eq(a->b_inp_density, b->b_inp_density, 8 * ((a->inp_size + 63) / 64));
  ck_assert_mem_eq(a->b_aux_density, b->b_aux_density, 8 * ((a->aux_size + 63) / 64));
  sp_spa_free(s);
  sp_witness_free(w);
  sp_circuit_free(c);
}
END_TEST

static int read_spa_bytes(const uint8_t *b, size_t len, char *err) {
  char path[400];
  snprintf(path, sizeof path, "%s/bad.spa", tmp_root);
  spit(path, b, len);
  sp_spa *s = NULL;
  err[0] = 0;
  int rc = sp_spa_read(path, &s, err, ERRLEN);
  if (rc == SEALPROV_OK)
    sp_spa_free(s);
  else
    ck_assert_ptr_null(s);
  return rc;
}

START_TEST(test_spa_bad_files) {
  char path[400], err[ERRLEN];
  part_path(path, sizeof path, &S1, 0);
  size_t len;
  uint8_t *orig = slurp(path, &len), *b = malloc(len + 8);
  ck_assert_ptr_nonnull(b);

  /* untouched copy reads */
  memcpy(b, orig, len);
  ck_assert_int_eq(read_spa_bytes(b, len, err), SEALPROV_OK);

  /* truncated: at several places */
  size_t cuts[] = {0, 10, 95, 96, 200, len / 2, len - 9, len - 1};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    ck_assert_int_eq(read_spa_bytes(orig, cuts[i], err), SEALPROV_ERR_ASSIGNMENT);
    ck_assert_msg(strstr(err, "truncated") || strstr(err, "but the file has"), "cut %zu: %s",
                  cuts[i], err);
  }
  /* trailing byte */
  memcpy(b, orig, len);
  b[len] = 0;
  ck_assert_int_eq(read_spa_bytes(b, len + 1, err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "but the file has"), "%s", err);

  /* a flipped byte anywhere in the data: checksum */
  size_t flips[] = {100, 96 + 32 * 5 + 3, len / 2, len - 20};
  for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
    memcpy(b, orig, len);
    b[flips[i]] ^= 0x10;
    ck_assert_int_eq(read_spa_bytes(b, len, err), SEALPROV_ERR_ASSIGNMENT);
    ck_assert_msg(strstr(err, "checksum mismatch"), "flip %zu: %s", flips[i], err);
  }
  /* flipped checksum byte */
  memcpy(b, orig, len);
  b[len - 3] ^= 1;
  ck_assert_int_eq(read_spa_bytes(b, len, err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "checksum mismatch"), "%s", err);

  /* magic, version, encoding */
  memcpy(b, orig, len);
  b[0] = 'X';
  ck_assert_int_eq(read_spa_bytes(b, len, err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "bad magic"), "%s", err);
  memcpy(b, orig, len);
  b[8] = 2;
  ck_assert_int_eq(read_spa_bytes(b, len, err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "version 2 at byte offset 8"), "%s", err);
  memcpy(b, orig, len);
  b[12] = 1;
  ck_assert_int_eq(read_spa_bytes(b, len, err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "scalar encoding 1"), "%s", err);
  /* a size field that makes the layout overflow */
  memcpy(b, orig, len);
  memset(b + 32, 0xff, 8);
  ck_assert_int_eq(read_spa_bytes(b, len, err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "more than 2^64 bytes"), "%s", err);

  /* missing file */
  snprintf(path, sizeof path, "%s/nonexistent.spa", tmp_root);
  sp_spa *s = NULL;
  ck_assert_int_eq(sp_spa_read(path, &s, err, ERRLEN), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "nonexistent.spa") && strstr(err, "cannot open"), "%s", err);
  free(b);
  free(orig);
}
END_TEST

/* Semantic errors behind a valid checksum: written through sp_spa_write. */
START_TEST(test_spa_bad_content) {
  char err[ERRLEN];
  sp_spa *good = load_part(&S1, 1);
  sealprov_assignment a = good->asg;
  char path[400];
  snprintf(path, sizeof path, "%s/content.spa", tmp_root);

  /* an aux scalar equal to r */
  size_t aux_bytes = 32 * a.aux_size;
  uint8_t *aux = malloc(aux_bytes);
  memcpy(aux, a.aux_assignment, aux_bytes);
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 8; k++) aux[32 * 5 + 8 * i + k] = (uint8_t)(BLS_R[i] >> (8 * k));
  sealprov_assignment m = a;
  m.aux_assignment = aux;
  ck_assert_int_eq(sp_spa_write(path, &m, err, ERRLEN), SEALPROV_OK);
  sp_spa *s = NULL;
  ck_assert_int_eq(sp_spa_read(path, &s, err, ERRLEN), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "aux[5]") && strstr(err, "not a canonical scalar"), "%s", err);

  /* popcount that disagrees with its bitmap */
  m = a;
  m.b_aux_popcount++;
  ck_assert_int_eq(sp_spa_write(path, &m, err, ERRLEN), SEALPROV_OK);
  ck_assert_int_eq(sp_spa_read(path, &s, err, ERRLEN), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "b_aux_popcount"), "%s", err);

  /* bit length that disagrees with aux_size */
  m = a;
  m.a_aux_bit_len = a.aux_size - 1;
  ck_assert_int_eq(sp_spa_write(path, &m, err, ERRLEN), SEALPROV_OK);
  ck_assert_int_eq(sp_spa_read(path, &s, err, ERRLEN), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "density bit lengths"), "%s", err);
  free(aux);
  sp_spa_free(good);
}
END_TEST

/* ---- parameters ---------------------------------------------------------------------- */

START_TEST(test_params_shape) {
  sp_srs *srs = load_params(S1.params, true);
  const sp_circuit_info *in = &S1.res.info;
  ck_assert_uint_eq(in->abc_size, 250);
  ck_assert_uint_eq(in->inp_size, 5);
  ck_assert_uint_eq(in->domain, 256);
  ck_assert_uint_eq(srs->h_len, 255);
  ck_assert_uint_eq(srs->log_domain, 8);
  ck_assert_uint_eq(srs->vk.ic_len, 5);
  ck_assert_uint_eq(srs->l_len, in->aux_size);
  ck_assert_uint_eq(srs->a_len, in->inp_size + in->a_aux_popcount);
  ck_assert_uint_eq(srs->b_g1_len, in->b_inp_popcount + in->b_aux_popcount);
  ck_assert_uint_eq(srs->b_g2_len, srs->b_g1_len);
  ck_assert(!srs->vk_only);
  /* the .vk is the head of the .params file */
  size_t lp, lv;
  uint8_t *p = slurp(S1.params, &lp), *v = slurp(S1.vk, &lv);
  ck_assert_uint_eq(lv, 864 + 4 + 96 * 5);
  ck_assert_mem_eq(p, v, lv);
  ck_assert_uint_eq(lp, offsets_of(srs).end);
  free(p);
  free(v);
  char err[ERRLEN];
  sp_srs *vk = NULL;
  ck_assert_msg(sp_srs_load(S1.vk, true, true, 1, &vk, err, sizeof err) == SEALPROV_OK, "%s", err);
  ck_assert(vk->vk_only);
  ck_assert_uint_eq(vk->vk.ic_len, 5);
  ck_assert(g1_affine_eq(&vk->vk.alpha_g1, &srs->vk.alpha_g1));
  ck_assert(g2_affine_eq(&vk->vk.delta_g2, &srs->vk.delta_g2));
  /* a vk handle cannot prove */
  sp_spa *part = load_part(&S1, 0);
  ck_assert_int_eq(sp_groth16_check_assignment(vk, &part->asg, err, sizeof err),
                   SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "verifying key only"), "%s", err);
  sp_spa_free(part);
  sp_srs_release(vk);
  sp_srs_release(srs);
}
END_TEST

START_TEST(test_sealing_shape_densities) {
  /* the structure the sealing shape promises (a 2^12 circuit, no setup needed) */
  char err[ERRLEN];
  sp_circuit *c = NULL;
  ck_assert_int_eq(sp_circuit_generate(4096, 16, SP_SHAPE_SEALING, 3, &c, err, sizeof err),
                   SEALPROV_OK);
  sp_circuit_info in;
  sp_circuit_info_get(c, &in);
  double a = (double)in.a_aux_popcount / (double)in.aux_size;
  double b = (double)in.b_aux_popcount / (double)in.aux_size;
  double bits = (double)in.bit_vars / (double)in.aux_size;
  ck_assert_msg(a > 0.97, "a-density %.3f", a);
  ck_assert_msg(b > 0.18 && b < 0.32, "b-density %.3f", b);
  ck_assert_msg(bits > 0.6, "bit fraction %.3f", bits);
  ck_assert_uint_eq(in.abc_size, 4096);
  ck_assert_uint_eq(in.domain, 4096);
  /* most witness values are 0 or 1 */
  sp_witness *w = NULL;
  ck_assert_int_eq(sp_circuit_witness(c, 9, &w, err, sizeof err), SEALPROV_OK);
  uint64_t small = 0;
  const uint8_t *z = w->asg.aux_assignment;
  for (uint64_t j = 0; j < in.aux_size; j++) {
    bool hi_zero = true;
    for (int k = 1; k < 32; k++) hi_zero &= z[32 * j + k] == 0;
    small += hi_zero && z[32 * j] <= 1;
  }
  ck_assert_msg((double)small / (double)in.aux_size > 0.6, "0/1 values: %llu of %llu",
                (unsigned long long)small, (unsigned long long)in.aux_size);
  sp_witness_free(w);
  sp_circuit_free(c);
  /* too few constraints for the inputs */
  ck_assert_int_eq(sp_circuit_generate(20, 8, SP_SHAPE_SEALING, 3, &c, err, sizeof err),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "constraints 20 is too small for 8 inputs"), "%s", err);
}
END_TEST

START_TEST(test_params_truncated_trailing) {
  char err[ERRLEN];
  size_t len;
  uint8_t *orig = slurp(S1.params, &len);
  sp_srs *srs = load_params(S1.params, false);
  offsets o = offsets_of(srs);
  ck_assert_uint_eq(o.end, len);
  size_t cuts[] = {0,      100, 863, 866, o.h_len + 2, o.h_len + 4 + 96 * 3 + 50, o.b2_len + 100,
                   len - 1};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    ck_assert_int_eq(load_bytes(orig, cuts[i], false, true, err), SEALPROV_ERR_PARAMS);
    ck_assert_msg(strstr(err, "truncated") && strstr(err, "bad.params"), "cut %zu: %s", cuts[i],
                  err);
  }
  /* the vector and offset are named */
  ck_assert_int_eq(load_bytes(orig, o.h_len + 4 + 96 * 3 + 50, false, true, err),
                   SEALPROV_ERR_PARAMS);
  char want[128];
  snprintf(want, sizeof want, "vector h has 255 points (24480 bytes) at byte offset %zu",
           o.h_len + 4);
  ck_assert_msg(strstr(err, want), "%s", err);

  uint8_t *b = malloc(len + 16);
  memcpy(b, orig, len);
  memset(b + len, 0, 16);
  ck_assert_int_eq(load_bytes(b, len + 3, false, true, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "3 trailing bytes after the last vector (byte offset %zu)", len);
  ck_assert_msg(strstr(err, want), "%s", err);
  /* a .params file is not a .vk */
  ck_assert_int_eq(load_bytes(orig, len, true, true, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "trailing bytes"), "%s", err);
  /* a .vk is not a .params */
  ck_assert_int_eq(load_bytes(orig, o.h_len, false, true, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "vector h"), "%s", err);
  free(b);
  free(orig);
  sp_srs_release(srs);
}
END_TEST

START_TEST(test_params_bad_lengths) {
  char err[ERRLEN];
  size_t len;
  uint8_t *orig = slurp(S1.params, &len), *b = malloc(len);
  sp_srs *srs = load_params(S1.params, false);
  offsets o = offsets_of(srs);

  /* impossible length */
  memcpy(b, orig, len);
  put_be32(b + o.l_len, 0xffffffffu);
  ck_assert_int_eq(load_bytes(b, len, false, true, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "vector l has 4294967295 points") && strstr(err, "impossible length"),
                "%s", err);
  /* h not 2^k - 1: shorten h by one point and drop its bytes */
  uint8_t *c = malloc(len);
  memcpy(c, orig, o.h_len);
  put_be32(c + o.h_len, 254);
  memcpy(c + o.h_len + 4, orig + o.h_len + 4, 96 * 254);
  memcpy(c + o.h_len + 4 + 96 * 254, orig + o.l_len, len - o.l_len);
  ck_assert_int_eq(load_bytes(c, len - 96, false, true, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "vector h") && strstr(err, "has 254 points; it must have 2^k - 1"),
                "%s", err);
  /* b_g2 shorter than b_g1 */
  memcpy(b, orig, len);
  put_be32(b + o.b2_len, (uint32_t)srs->b_g2_len - 1);
  ck_assert_int_eq(load_bytes(b, len - 192, false, true, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "b_g1") && strstr(err, "must have the same length"), "%s", err);
  /* empty ic */
  memcpy(b, orig, len);
  put_be32(b + o.ic_len, 0);
  ck_assert_int_eq(load_bytes(b, 868, true, true, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "vector ic is empty"), "%s", err);
  free(c);
  free(b);
  free(orig);
  sp_srs_release(srs);
}
END_TEST

START_TEST(test_params_bad_points) {
  char err[ERRLEN], want[160];
  size_t len;
  uint8_t *orig = slurp(S1.params, &len), *b = malloc(len);
  sp_srs *srs = load_params(S1.params, false);
  offsets o = offsets_of(srs);

  /* y of h[3] changed by one: off the curve */
  size_t at = o.h_len + 4 + 96 * 3;
  memcpy(b, orig, len);
  b[at + 95] ^= 1;
  ck_assert_int_eq(load_bytes(b, len, false, true, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "vector h index 3 (byte offset %zu): %s", at,
           bls_err_str(BLS_ERR_NOT_ON_CURVE));
  ck_assert_msg(strstr(err, want), "%s", err);
  /* a flipped byte inside x of l[7] */
  at = o.l_len + 4 + 96 * 7;
  memcpy(b, orig, len);
  b[at + 20] ^= 0x40;
  ck_assert_int_eq(load_bytes(b, len, false, true, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "vector l index 7 (byte offset %zu)", at);
  ck_assert_msg(strstr(err, want), "%s", err);
  /* the compression flag set on an uncompressed point of b_g2 */
  at = o.b2_len + 4 + 192 * 2;
  memcpy(b, orig, len);
  b[at] |= 0x80;
  ck_assert_int_eq(load_bytes(b, len, false, true, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "vector b_g2 index 2 (byte offset %zu): %s", at,
           bls_err_str(BLS_ERR_FLAGS));
  ck_assert_msg(strstr(err, want), "%s", err);
  /* the point at infinity in a */
  at = o.a_len + 4 + 96 * 1;
  memcpy(b, orig, len);
  memset(b + at, 0, 96);
  b[at] = 0x40;
  ck_assert_int_eq(load_bytes(b, len, false, true, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "vector a index 1 (byte offset %zu): point at infinity", at);
  ck_assert_msg(strstr(err, want), "%s", err);
  /* a coordinate >= p in delta_g1 (byte offset 576) */
  memcpy(b, orig, len);
  memset(b + 576, 0x1f, 48);
  ck_assert_int_eq(load_bytes(b, len, false, true, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "vector delta_g1 index 0 (byte offset 576): %s",
           bls_err_str(BLS_ERR_NONCANONICAL));
  ck_assert_msg(strstr(err, want), "%s", err);

  /* on the curve but outside the r-torsion subgroup: rejected only with the check */
  g1_affine_t p;
  fp_t rhs, four;
  fp_from_u64(&four, 4);
  for (uint64_t x = 1;; x++) {
    fp_from_u64(&p.x, x);
    fp_sqr(&rhs, &p.x);
    fp_mul(&rhs, &rhs, &p.x);
    fp_add(&rhs, &rhs, &four);
    if (fp_sqrt(&p.y, &rhs) && !g1_affine_in_subgroup(&p)) break;
  }
  ck_assert(g1_affine_on_curve(&p));
  at = o.b1_len + 4 + 96 * 4;
  memcpy(b, orig, len);
  g1_serialize(b + at, &p);
  ck_assert_int_eq(load_bytes(b, len, false, true, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "vector b_g1 index 4 (byte offset %zu): %s", at,
           bls_err_str(BLS_ERR_NOT_IN_SUBGROUP));
  ck_assert_msg(strstr(err, want), "%s", err);
  ck_assert_int_eq(load_bytes(b, len, false, false, err), SEALPROV_OK);
  free(b);
  free(orig);
  sp_srs_release(srs);
}
END_TEST

/* The lowest bad index is reported whatever the thread count. */
START_TEST(test_params_first_error_deterministic) {
  char err1[ERRLEN], err2[ERRLEN];
  size_t len;
  uint8_t *b = slurp(S1.params, &len);
  sp_srs *srs = load_params(S1.params, false);
  offsets o = offsets_of(srs);
  for (size_t i = 40; i < 250; i += 50) b[o.h_len + 4 + 96 * i + 95] ^= 1;
  char path[400];
  snprintf(path, sizeof path, "%s/multi.params", tmp_root);
  spit(path, b, len);
  sp_srs *x = NULL;
  ck_assert_int_eq(sp_srs_load(path, false, true, 1, &x, err1, ERRLEN), SEALPROV_ERR_PARAMS);
  ck_assert_int_eq(sp_srs_load(path, false, true, 7, &x, err2, ERRLEN), SEALPROV_ERR_PARAMS);
  ck_assert_str_eq(err1, err2);
  ck_assert_msg(strstr(err1, "vector h index 40 "), "%s", err1);
  free(b);
  sp_srs_release(srs);
}
END_TEST

static int on_free_calls;
static void count_free(sp_srs *s, void *user) {
  (void)s;
  *(int *)user += 1;
}

START_TEST(test_srs_refcount) {
  sp_srs *srs = NULL;
  char err[ERRLEN];
  ck_assert_int_eq(sp_srs_load(S1.vk, true, true, 1, &srs, err, ERRLEN), SEALPROV_OK);
  on_free_calls = 0;
  srs->on_free = count_free;
  srs->on_free_user = &on_free_calls;
  sp_srs_retain(srs);
  sp_srs_release(srs);
  ck_assert_int_eq(on_free_calls, 0);
  sp_srs_release(srs);
  ck_assert_int_eq(on_free_calls, 1);
  sp_srs_release(NULL);
  ck_assert_int_eq(sp_srs_load("/nonexistent/x.params", false, true, 1, &srs, err, ERRLEN),
                   SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "/nonexistent/x.params: cannot open"), "%s", err);
}
END_TEST

/* ---- proving and verification ------------------------------------------------------------ */

static void prove_ok(const sp_srs *srs, const sealprov_assignment *a, uint32_t enc, const fr_t *r,
                     const fr_t *s, unsigned threads, uint8_t proof[192]) {
  char err[ERRLEN] = "";
  int rc = sp_groth16_prove(srs, a, enc, r, s, threads, proof, err, sizeof err);
  ck_assert_msg(rc == SEALPROV_OK, "prove: %s", err);
}

static bool verify_ok(const sp_srs *srs, const sealprov_assignment *a, const uint8_t proof[192]) {
  char err[ERRLEN] = "";
  bool valid = true;
  int rc = sp_groth16_verify(srs, a, SEALPROV_SCALAR_CANONICAL_LE, proof, &valid, err, sizeof err);
  ck_assert_msg(rc == SEALPROV_OK || rc == SEALPROV_ERR_INVALID_ARGUMENT, "verify: %d %s", rc, err);
  if (rc != SEALPROV_OK) ck_assert(!valid);
  return valid;
}

static void fr_rand(fr_t *out, uint8_t seed) {
  uint8_t wide[64];
  for (int i = 0; i < 64; i++) wide[i] = (uint8_t)(seed * 31 + i * 7 + 1);
  fr_from_bytes_wide(out, wide);
}

START_TEST(test_prove_verify_all_partitions) {
  const setup *ss[] = {&S1, &S3};
  for (int k = 0; k < 2; k++) {
    sp_srs *srs = load_params(ss[k]->params, true);
    for (uint32_t p = 0; p < ss[k]->parts; p++) {
      sp_spa *part = load_part(ss[k], p);
      uint8_t proof[192];
      fr_t r, s;
      fr_rand(&r, (uint8_t)(2 * p + 1));
      fr_rand(&s, (uint8_t)(2 * p + 2));
      prove_ok(srs, &part->asg, SEALPROV_SCALAR_CANONICAL_LE, &r, &s, 2, proof);
      ck_assert_msg(verify_ok(srs, &part->asg, proof), "setup %d partition %u", k, p);
      sp_spa_free(part);
    }
    sp_srs_release(srs);
  }
}
END_TEST

START_TEST(test_prove_zero_rs_deterministic) {
  sp_srs *srs = load_params(S1.params, true);
  sp_spa *part = load_part(&S1, 0);
  uint8_t p1[192], p2[192], p3[192];
  prove_ok(srs, &part->asg, SEALPROV_SCALAR_CANONICAL_LE, &FR_ZERO, &FR_ZERO, 1, p1);
  prove_ok(srs, &part->asg, SEALPROV_SCALAR_CANONICAL_LE, &FR_ZERO, &FR_ZERO, 2, p2);
  prove_ok(srs, &part->asg, SEALPROV_SCALAR_CANONICAL_LE, &FR_ZERO, &FR_ZERO, 5, p3);
  ck_assert_mem_eq(p1, p2, 192);
  ck_assert_mem_eq(p1, p3, 192);
  ck_assert(verify_ok(srs, &part->asg, p1));
  /* with r, s the bytes change but stay valid */
  fr_t r, s;
  fr_rand(&r, 9);
  fr_rand(&s, 10);
  prove_ok(srs, &part->asg, SEALPROV_SCALAR_CANONICAL_LE, &r, &s, 2, p2);
  ck_assert(memcmp(p1, p2, 192) != 0);
  ck_assert(verify_ok(srs, &part->asg, p2));
  sp_spa_free(part);
  sp_srs_release(srs);
}
END_TEST

/* A copy of an assignment with every scalar in blst Montgomery form. */
typedef struct mont_copy {
  sealprov_assignment asg;
  uint8_t *buf;
} mont_copy;

static void to_mont(uint8_t *dst, const uint8_t *src, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) {
    fr_t f;
    ck_assert(fr_from_le32(&f, src + 32 * i));
    for (int l = 0; l < 4; l++)
      for (int k = 0; k < 8; k++) dst[32 * i + 8 * l + k] = (uint8_t)(f.l[l] >> (8 * k));
  }
}

static mont_copy mont_of(const sealprov_assignment *a) {
  mont_copy m = {.asg = *a};
  uint64_t n = 3 * a->abc_size + a->inp_size + a->aux_size;
  m.buf = malloc(32 * n);
  uint8_t *p = m.buf;
  to_mont(p, a->a, a->abc_size);
  m.asg.a = p;
  p += 32 * a->abc_size;
  to_mont(p, a->b, a->abc_size);
  m.asg.b = p;
  p += 32 * a->abc_size;
  to_mont(p, a->c, a->abc_size);
  m.asg.c = p;
  p += 32 * a->abc_size;
  to_mont(p, a->inp_assignment, a->inp_size);
  m.asg.inp_assignment = p;
  p += 32 * a->inp_size;
  to_mont(p, a->aux_assignment, a->aux_size);
  m.asg.aux_assignment = p;
  return m;
}

START_TEST(test_prove_montgomery_encoding) {
  sp_srs *srs = load_params(S1.params, true);
  sp_spa *part = load_part(&S1, 2);
  mont_copy m = mont_of(&part->asg);
  fr_t r, s;
  fr_rand(&r, 3);
  fr_rand(&s, 4);
  uint8_t pc[192], pm[192];
  prove_ok(srs, &part->asg, SEALPROV_SCALAR_CANONICAL_LE, &r, &s, 2, pc);
  prove_ok(srs, &m.asg, SEALPROV_SCALAR_MONTGOMERY, &r, &s, 2, pm);
  ck_assert_mem_eq(pc, pm, 192);
  char err[ERRLEN];
  bool valid = false;
  ck_assert_int_eq(
      sp_groth16_verify(srs, &m.asg, SEALPROV_SCALAR_MONTGOMERY, pm, &valid, err, sizeof err),
      SEALPROV_OK);
  ck_assert(valid);
  /* unknown encoding */
  ck_assert_int_eq(sp_groth16_prove(srs, &part->asg, 7, &r, &s, 1, pm, err, sizeof err),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "scalar_encoding 7"), "%s", err);
  free(m.buf);
  sp_spa_free(part);
  sp_srs_release(srs);
}
END_TEST

START_TEST(test_reject_tampered_wrong_inputs_wrong_vk) {
  sp_srs *srs = load_params(S1.params, true);
  sp_srs *other = load_params(S1b.params, true);
  sp_spa *p0 = load_part(&S1, 0), *p1 = load_part(&S1, 1);
  fr_t r, s;
  fr_rand(&r, 5);
  fr_rand(&s, 6);
  uint8_t proof[192], t[192];
  prove_ok(srs, &p0->asg, SEALPROV_SCALAR_CANONICAL_LE, &r, &s, 2, proof);
  ck_assert(verify_ok(srs, &p0->asg, proof));
  /* every byte position flipped in turn: never accepted, never a crash */
  for (int i = 0; i < 192; i += 7) {
    memcpy(t, proof, 192);
    t[i] ^= (uint8_t)(1u << (i % 8));
    ck_assert_msg(!verify_ok(srs, &p0->asg, t), "flip at byte %d accepted", i);
  }
  /* A and C swapped */
  memcpy(t, proof + 144, 48);
  memcpy(t + 48, proof + 48, 96);
  memcpy(t + 144, proof, 48);
  ck_assert(!verify_ok(srs, &p0->asg, t));
  /* another partition's inputs */
  ck_assert(!verify_ok(srs, &p1->asg, proof));
  /* one input changed */
  uint8_t *inp = malloc(32 * p0->asg.inp_size);
  memcpy(inp, p0->asg.inp_assignment, 32 * p0->asg.inp_size);
  inp[32 * 2] ^= 1;
  sealprov_assignment m = p0->asg;
  m.inp_assignment = inp;
  ck_assert(!verify_ok(srs, &m, proof));
  /* input 0 must be ONE */
  memcpy(inp, p0->asg.inp_assignment, 32 * p0->asg.inp_size);
  inp[0] = 2;
  char err[ERRLEN];
  bool valid = true;
  ck_assert_int_eq(sp_groth16_verify(srs, &m, 0, proof, &valid, err, sizeof err),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert(!valid);
  ck_assert_msg(strstr(err, "inp_assignment[0] is not ONE"), "%s", err);
  /* the wrong verifying key */
  ck_assert(!verify_ok(other, &p0->asg, proof));
  /* wrong input count */
  fr_t ins[3] = {FR_ONE, FR_ONE, FR_ONE};
  ck_assert_int_eq(sp_groth16_verify_inputs(&srs->vk, ins, 3, proof, &valid, err, sizeof err),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "3 public inputs given, the verifying key expects 4"), "%s", err);
  /* undecodable point: message names it */
  memcpy(t, proof, 192);
  memset(t + 48, 0xff, 96);
  ck_assert_int_eq(sp_groth16_verify(srs, &p0->asg, 0, t, &valid, err, sizeof err),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "proof point B (bytes 48..143)"), "%s", err);
  free(inp);
  sp_spa_free(p0);
  sp_spa_free(p1);
  sp_srs_release(srs);
  sp_srs_release(other);
}
END_TEST

START_TEST(test_mismatched_sizes) {
  char err[ERRLEN], want[512];
  sp_srs *s1 = load_params(S1.params, true), *s2 = load_params(S2.params, true);
  sp_spa *p1 = load_part(&S1, 0), *p2 = load_part(&S2, 0), *p3 = load_part(&S3, 0);
  uint8_t proof[192];
  /* partition of the 500-constraint circuit with the 250-constraint parameters */
  ck_assert_int_eq(sp_groth16_prove(s1, &p2->asg, 0, &FR_ZERO, &FR_ZERO, 1, proof, err, sizeof err),
                   SEALPROV_ERR_ASSIGNMENT);
  snprintf(want, sizeof want,
           "abc_size 500 does not fit parameter file domain 256 (h_len 255) (file %s)", S1.params);
  ck_assert_msg(strstr(err, want), "%s", err);
  /* smaller partition with larger parameters: aux_size */
  ck_assert_int_eq(sp_groth16_check_assignment(s2, &p1->asg, err, sizeof err),
                   SEALPROV_ERR_ASSIGNMENT);
  snprintf(want, sizeof want, "aux_size %llu does not match parameter file l_len %zu (file %s)",
           (unsigned long long)p1->asg.aux_size, s2->l_len, S2.params);
  ck_assert_msg(strstr(err, want), "%s", err);
  /* different input count */
  ck_assert_int_eq(sp_groth16_check_assignment(s2, &p3->asg, err, sizeof err),
                   SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "inp_size 3 does not match parameter file ic_len 5"), "%s", err);
  /* field by field on a good partition */
  sealprov_assignment m = p1->asg;
  m.a_aux_popcount--;
  ck_assert_int_eq(sp_groth16_check_assignment(s1, &m, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "a_aux_popcount"), "%s", err);
  m = p1->asg;
  m.b_inp_bit_len = 3;
  ck_assert_int_eq(sp_groth16_check_assignment(s1, &m, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "b_inp_bit_len 3 does not match inp_size 5"), "%s", err);
  m = p1->asg;
  m.c = NULL;
  ck_assert_int_eq(sp_groth16_check_assignment(s1, &m, err, sizeof err),
                   SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "c is NULL"), "%s", err);
  /* a bitmap with one bit moved: popcount same, a_len still matches, proof invalid */
  /* (density mismatch with the parameters is undetectable by sizes; the self-check
   * catches it) */
  m = p1->asg;
  m.abc_size = 0;
  ck_assert_int_eq(sp_groth16_check_assignment(s1, &m, err, sizeof err), SEALPROV_ERR_ASSIGNMENT);
  /* out-of-range scalar in aux, found at its index */
  uint8_t *aux = malloc(32 * p1->asg.aux_size);
  memcpy(aux, p1->asg.aux_assignment, 32 * p1->asg.aux_size);
  memset(aux + 32 * 17, 0xff, 32);
  memset(aux + 32 * 90, 0xff, 32);
  m = p1->asg;
  m.aux_assignment = aux;
  ck_assert_int_eq(sp_groth16_prove(s1, &m, 0, &FR_ZERO, &FR_ZERO, 2, proof, err, sizeof err),
                   SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "aux_assignment[17] is not a valid canonical little-endian scalar"),
                "%s", err);
  free(aux);
  sp_spa_free(p1);
  sp_spa_free(p2);
  sp_spa_free(p3);
  sp_srs_release(s1);
  sp_srs_release(s2);
}
END_TEST

/* bellperson (blstrs) uses omega = 7^((r-1)/2^k); params and NTT must agree with it. */
START_TEST(test_root_of_unity_convention) {
  for (unsigned k = 1; k <= 28; k += 9) {
    uint64_t e[4];
    memcpy(e, BLS_R, sizeof e);
    e[0] -= 1; /* r - 1 (r is odd) */
    for (unsigned i = 0; i < k; i++) {
      e[0] = (e[0] >> 1) | (e[1] << 63);
      e[1] = (e[1] >> 1) | (e[2] << 63);
      e[2] = (e[2] >> 1) | (e[3] << 63);
      e[3] >>= 1;
    }
    fr_t g, want, got;
    fr_coset_generator(&g);
    fr_pow(&want, &g, e, 4);
    fr_root_of_unity(&got, k);
    ck_assert_msg(fr_eq(&want, &got), "omega for 2^%u", k);
  }
}
END_TEST

static Suite *groth16_suite(void) {
  Suite *s = suite_create("groth16");
  TCase *tc = tcase_create("files");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_xxh64_vectors);
  tcase_add_test(tc, test_spa_roundtrip);
  tcase_add_test(tc, test_spa_bad_files);
  tcase_add_test(tc, test_spa_bad_content);
  tcase_add_test(tc, test_params_shape);
  tcase_add_test(tc, test_sealing_shape_densities);
  tcase_add_test(tc, test_params_truncated_trailing);
  tcase_add_test(tc, test_params_bad_lengths);
  tcase_add_test(tc, test_params_bad_points);
  tcase_add_test(tc, test_params_first_error_deterministic);
  tcase_add_test(tc, test_srs_refcount);
  suite_add_tcase(s, tc);
  tc = tcase_create("prove");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_root_of_unity_convention);
  tcase_add_test(tc, test_prove_verify_all_partitions);
  tcase_add_test(tc, test_prove_zero_rs_deterministic);
  tcase_add_test(tc, test_prove_montgomery_encoding);
  tcase_add_test(tc, test_reject_tampered_wrong_inputs_wrong_vk);
  tcase_add_test(tc, test_mismatched_sizes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* the setups are made once, before the tests fork, and shared through files */
  setups();
  SRunner *sr = srunner_create(groth16_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  cleanup_tree();
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
