/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_loader.c -- the .params/.vk/.spa readers against files that are short, change
 * while they are read, live in the Filecoin parameter cache, or must match a
 * parameters.json manifest; BLAKE2b vectors; the subgroup-checker hook; progress.
 *
 * One small sealing-shaped setup (250 constraints, 4 inputs) made once in main(); the
 * loads use tiny chunks so that every vector spans several of them. */
#include <config.h> /* first: _GNU_SOURCE for fuzz_common.h's memfd_create */

#include "bls12_381/bls12_381.h"
#include "formats/blake2b.h"
#include "circuit.h"
#include "groth16/groth16.h"
#include "spa.h"
#include "formats/srs.h"
#include "base/util.h"
#include "../fuzz/fuzz_common.h" /* fuzz_utf8_valid */

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERRLEN 1024
#define CHUNK 960 /* ten G1 points, five G2 points */

static char root[256], dir[300], params[400], vk[400], part0[400];
static sp_setup_result setup_res;

/* ---- helpers ------------------------------------------------------------------------ */

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

static void spit(const char *path, const void *b, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(b, 1, len, f), len);
  fclose(f);
}

static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static bool valid_utf8(const char *s) {
  size_t bad = 0;
  return fuzz_utf8_valid(s, &bad) != 0; /* a validator of its own, not sp_utf8_escape */
}

static sp_srs_load_opts opts_default(void) {
  sp_srs_load_opts o = {.subgroup_check = true, .nthreads = 2, .chunk_bytes = CHUNK};
  return o;
}

static int load_opts(const char *path, const sp_srs_load_opts *o, char *err) {
  sp_srs *srs = NULL;
  err[0] = 0;
  int rc = sp_srs_load_ex(path, o, &srs, err, ERRLEN);
  if (rc == SEALPROV_OK)
    sp_srs_release(srs);
  else
    ck_assert_ptr_null(srs);
  if (rc != SEALPROV_OK) ck_assert_msg(valid_utf8(err), "not valid UTF-8: %s", err);
  return rc;
}

static sp_srs *load_ok(const char *path) {
  char err[ERRLEN] = "";
  sp_srs_load_opts o = opts_default();
  sp_srs *srs = NULL;
  int rc = sp_srs_load_ex(path, &o, &srs, err, ERRLEN);
  ck_assert_msg(rc == SEALPROV_OK, "load %s: %s", path, err);
  return srs;
}

/* Byte offsets of the vectors' length fields, and the end of the file. */
typedef struct vec_at {
  const char *name;
  size_t len_off, n, each;
} vec_at;

static size_t layout(const sp_srs *s, vec_at v[6]) {
  size_t off = 864;
  const char *names[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};
  size_t ns[6] = {s->vk.ic_len, s->h_len, s->l_len, s->a_len, s->b_g1_len, s->b_g2_len};
  for (int i = 0; i < 6; i++) {
    v[i] = (vec_at){.name = names[i], .len_off = off, .n = ns[i], .each = i == 5 ? 192 : 96};
    off += 4 + ns[i] * v[i].each;
  }
  return off;
}

/* ---- BLAKE2b -------------------------------------------------------------------------- */

static void hex(const uint8_t *d, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

START_TEST(test_blake2b_vectors) {
  uint8_t d[64];
  char h[129];
  /* RFC 7693 Appendix A: BLAKE2b-512("abc") */
  ck_assert_int_eq(sp_blake2b(d, 64, "abc", 3), 0);
  hex(d, 64, h);
  ck_assert_str_eq(h,
                   "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                   "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  /* Node 20: crypto.createHash('blake2b512') of bytes (i*7+3) & 255, i < n */
  static const struct {
    size_t n;
    const char *hex;
  } v[] = {
      {0,
       "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
       "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce"},
      {1,
       "4fe4da61bcc756071b226843361d74944c72245d23e8245ea678c13fdcd7fe2a"
       "e529cf999ad99cc24f7a73416a18ba53e76c0afef83b16a568b12fbfc1a2674d"},
      {127,
       "71546bbf9110ad184cc60f2eb120fcfd9b4dbbca7a7f1270045b8a23a6a4f433"
       "0f65c1f030dd2f5fabc6c57617242c37cf427bd90407fac5b9deffd3ae888c39"},
      {128,
       "2d9e329f42afa3601d646692b81c13e87fcaff5bf15972e9813d7373cb6d181f"
       "9599f4d513d4af4fd6ebd37497aceb29aba5ee23ed764d8510b552bd088814fb"},
      {129,
       "47889df9eb4d717afc5019df5c6a83df00a0b8677395e078cd5778ace0f338a6"
       "18e68b7d9afb065d9e6a01ccd31d109447e7fae771c3ee3e105709194122ba2b"},
      {256,
       "91019c558584980249ca43eceed27e19f1c3c24161b93eed1eee2a6a774f60bf"
       "8a81b43750870bee1698feac9c5336ae4d5c842e7ead159bf3916387e8ded9ae"},
      {1000,
       "4bdd2c9cf31d797a81d245c989ffb7515143ca345c66f73087dd5c58bf642bf0"
       "83ba16894eab79e3b08d5126404d833e7510271b50be36a7b7cbbb46f5c89fac"},
      {100000,
       "f130f41a8afb982b8a555846596c54fd876e394ec8316f89c43c4d7173847c5f"
       "3321719968a3c49f107d87ce3db3650957d79d535ea8294bd3cc1f1f40c9ba24"},
      {1048576,
       "3e7791ed99fe01e3f356c458acecfeced0c043aa8ab8bc78107a7208b26fd702"
       "5ecffdf6934f00142181585af63919a482cc69d4174331f8994f6eaef72f4a0c"},
  };
  uint8_t *buf = malloc(1048576);
  for (size_t i = 0; i < 1048576; i++) buf[i] = (uint8_t)(i * 7 + 3);
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
    ck_assert_int_eq(sp_blake2b(d, 64, buf, v[k].n), 0);
    hex(d, 64, h);
    ck_assert_msg(!strcmp(h, v[k].hex), "n=%zu: %s", v[k].n, h);
    /* the same bytes streamed in uneven pieces */
    static const size_t pieces[] = {1, 127, 128, 129, 1000, 65536};
    for (size_t pi = 0; pi < sizeof pieces / sizeof pieces[0]; pi++) {
      sp_blake2b_state s;
      ck_assert_int_eq(sp_blake2b_init(&s, 64), 0);
      for (size_t at = 0; at < v[k].n;) {
        size_t take = v[k].n - at < pieces[pi] ? v[k].n - at : pieces[pi];
        sp_blake2b_update(&s, buf + at, take);
        at += take;
      }
      sp_blake2b_final(&s, d);
      hex(d, 64, h);
      ck_assert_msg(!strcmp(h, v[k].hex), "n=%zu in pieces of %zu: %s", v[k].n, pieces[pi], h);
    }
  }
  free(buf);
  ck_assert_int_eq(sp_blake2b(d, 0, "", 0), -1);
  ck_assert_int_eq(sp_blake2b(d, 65, "", 0), -1);
}
END_TEST

/* ---- truncation ------------------------------------------------------------------------ */

/* A file cut at every vector boundary and inside every vector: PARAMS naming the vector
 * that is cut, "truncated", and the file. */
START_TEST(test_truncated_everywhere) {
  size_t len;
  uint8_t *b = slurp(params, &len);
  sp_srs *srs = load_ok(params);
  vec_at v[6];
  ck_assert_uint_eq(layout(srs, v), len);
  char cut_path[500], err[ERRLEN];
  snprintf(cut_path, sizeof cut_path, "%s/cut.params", root);
  sp_srs_load_opts o = opts_default();
  int checked = 0;
  for (int i = 0; i < 6; i++) {
    size_t first = v[i].len_off + 4, mid = first + (v[i].n / 2) * v[i].each + v[i].each / 2;
    size_t end = first + v[i].n * v[i].each;
    size_t cuts[] = {v[i].len_off, v[i].len_off + 2, first, first + 1, mid, end - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
      if (cuts[c] >= len || cuts[c] < 868) continue; /* shorter than a verifying key: below */
      spit(cut_path, b, cuts[c]);
      ck_assert_int_eq(load_opts(cut_path, &o, err), SEALPROV_ERR_PARAMS);
      char want[64];
      snprintf(want, sizeof want, "vector %s ", v[i].name);
      ck_assert_msg(strstr(err, "truncated") && strstr(err, want) && strstr(err, "cut.params"),
                    "cut at %zu (vector %s): %s", cuts[c], v[i].name, err);
      checked++;
    }
  }
  ck_assert_int_ge(checked, 30);
  /* inside the six fixed points of the verifying key */
  size_t vk_cuts[] = {0, 1, 95, 96, 97, 480, 575, 863, 864, 866, 867};
  for (size_t k = 0; k < sizeof vk_cuts / sizeof vk_cuts[0]; k++) {
    size_t c = vk_cuts[k];
    spit(cut_path, b, c);
    ck_assert_int_eq(load_opts(cut_path, &o, err), SEALPROV_ERR_PARAMS);
    ck_assert_msg(strstr(err, "truncated") && strstr(err, "a verifying key needs at least 868"),
                  "%s", err);
  }
  free(b);
  sp_srs_release(srs);
}
END_TEST

/* An empty `a` (length 0, the points left in place) is reported as `a`, not as the
 * garbage length that follows. */
START_TEST(test_bad_length_names_its_vector) {
  size_t len;
  uint8_t *b = slurp(params, &len);
  sp_srs *srs = load_ok(params);
  vec_at v[6];
  layout(srs, v);
  char path[500], err[ERRLEN], want[160];
  snprintf(path, sizeof path, "%s/lengths.params", root);
  sp_srs_load_opts o = opts_default();

  put_be32(b + v[3].len_off, 0);
  spit(path, b, len);
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "vector a (length at byte offset %zu) has 0 points", v[3].len_off);
  ck_assert_msg(strstr(err, want) && !strstr(err, "b_g1"), "%s", err);

  /* b_g1 longer than the variables */
  uint8_t *c = slurp(params, &len);
  put_be32(c + v[4].len_off, (uint32_t)(srs->vk.ic_len + srs->l_len + 1));
  spit(path, c, len);
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "vector b_g1 (length at byte offset %zu) has %zu points",
           v[4].len_off, srs->vk.ic_len + srs->l_len + 1);
  ck_assert_msg(strstr(err, want), "%s", err);

  /* b_g2 with another length than b_g1 */
  free(c);
  c = slurp(params, &len);
  put_be32(c + v[5].len_off, (uint32_t)srs->b_g1_len + 1);
  spit(path, c, len);
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(
      strstr(err, "vector b_g2 (length at byte offset") && strstr(err, "must have the same length"),
      "%s", err);
  free(c);
  free(b);
  sp_srs_release(srs);
}
END_TEST

/* ---- files that change during the load ------------------------------------------------ */

typedef struct change_ctx {
  const char *path;
  int calls;
  int mode; /* 0: truncate to `to`; 1: rewrite one byte as it is; 2: replace */
  size_t to;
  const char *replacement;
  uint64_t last_done;
  bool monotonic, saw_done;
  uint64_t final_bytes, final_points;
} change_ctx;

static int change_cb(void *user, const sp_srs_progress *p) {
  change_ctx *c = user;
  if (p->bytes_done < c->last_done) c->monotonic = false;
  c->last_done = p->bytes_done;
  if (p->done) {
    c->saw_done = true;
    c->final_bytes = p->bytes_done;
    c->final_points = p->points_checked;
  }
  if (c->calls++ != 0 || !c->path) return 0; /* act once, right after the first chunk */
  if (c->mode == 0) {
    if (truncate(c->path, (off_t)c->to) != 0) return 1;
  } else if (c->mode == 1) {
    int fd = open(c->path, O_RDWR);
    uint8_t byte;
    if (fd < 0 || pread(fd, &byte, 1, 5000) != 1 || pwrite(fd, &byte, 1, 5000) != 1) return 1;
    close(fd);
  } else {
    if (rename(c->replacement, c->path) != 0) return 1;
  }
  return 0;
}

START_TEST(test_file_shrinks_during_load) {
  size_t len;
  uint8_t *b = slurp(params, &len);
  sp_srs *srs = load_ok(params);
  vec_at v[6];
  layout(srs, v);
  char path[500], err[ERRLEN];
  snprintf(path, sizeof path, "%s/shrink.params", root);
  sp_srs_load_opts o = opts_default();

  /* cut inside h after the first chunk was read: the next read comes up short */
  size_t to = v[1].len_off + 4 + 96 * 50 + 10;
  spit(path, b, len);
  change_ctx c = {.path = path, .mode = 0, .to = to, .monotonic = true};
  o.progress = change_cb;
  o.progress_user = &c;
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "shrink.params") && strstr(err, "vector h") &&
                    strstr(err, "changed during the load") && strstr(err, "byte offset"),
                "%s", err);

  /* the whole file gone to 0 bytes during the verifying key */
  spit(path, b, len);
  c = (change_ctx){.path = path, .mode = 0, .to = 0, .monotonic = true};
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "changed during the load"), "%s", err);

  /* the same size, one byte rewritten with its own value: only the modification time
   * tells; make the original time old so that the rewrite surely changes it */
  spit(path, b, len);
  struct timespec old[2] = {{.tv_sec = 946684800}, {.tv_sec = 946684800}};
  ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
  c = (change_ctx){.path = path, .mode = 1, .monotonic = true};
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "changed during the load: modification time"), "%s", err);

  /* replaced by another file under the same name */
  char other[500];
  snprintf(other, sizeof other, "%s/other.params", root);
  spit(path, b, len);
  spit(other, b, len);
  c = (change_ctx){.path = path, .mode = 2, .replacement = other, .monotonic = true};
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "replaced or removed during the load"), "%s", err);

  /* an unchanged file: progress only grows, and ends with every byte and point */
  c = (change_ctx){.path = NULL, .monotonic = true};
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_OK);
  ck_assert(c.monotonic && c.saw_done);
  ck_assert_int_gt(c.calls, 10);
  ck_assert_uint_eq(c.final_bytes, len);
  ck_assert_uint_eq(c.final_points, 6 + srs->vk.ic_len + srs->h_len + srs->l_len + srs->a_len +
                                        srs->b_g1_len + srs->b_g2_len);
  free(b);
  sp_srs_release(srs);
}
END_TEST

static int stop_cb(void *user, const sp_srs_progress *p) {
  (void)user;
  return p->bytes_done > 5000;
}

START_TEST(test_progress_can_stop) {
  char err[ERRLEN];
  sp_srs_load_opts o = opts_default();
  o.progress = stop_cb;
  ck_assert_int_eq(load_opts(params, &o, err), SEALPROV_ERR_CANCELLED);
  ck_assert_msg(strstr(err, "stopped by the progress callback"), "%s", err);
}
END_TEST

/* Tiny chunks, other thread counts, and the default chunk decode the same points. */
START_TEST(test_chunking_same_result) {
  char err[ERRLEN];
  sp_srs *a = NULL, *b = NULL;
  ck_assert_int_eq(sp_srs_load(params, false, true, 1, &a, err, ERRLEN), SEALPROV_OK);
  sp_srs_load_opts o = {.subgroup_check = false, .nthreads = 3, .chunk_bytes = 200};
  ck_assert_int_eq(sp_srs_load_ex(params, &o, &b, err, ERRLEN), SEALPROV_OK);
  ck_assert_uint_eq(a->h_len, b->h_len);
  ck_assert_mem_eq(a->h, b->h, a->h_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(a->l, b->l, a->l_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(a->a, b->a, a->a_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(a->b_g1, b->b_g1, a->b_g1_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(a->b_g2, b->b_g2, a->b_g2_len * sizeof(g2_affine_t));
  ck_assert_mem_eq(a->vk.ic, b->vk.ic, a->vk.ic_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(&a->vk.delta_g2, &b->vk.delta_g2, sizeof(g2_affine_t));
  sp_srs_release(a);
  sp_srs_release(b);
}
END_TEST

/* ---- .spa: private memory ---------------------------------------------------------------- */

START_TEST(test_spa_truncated_after_read) {
  char path[500], err[ERRLEN];
  size_t len;
  uint8_t *b = slurp(part0, &len);
  snprintf(path, sizeof path, "%s/gone.spa", root);
  spit(path, b, len);
  sp_spa *spa = NULL;
  ck_assert_int_eq(sp_spa_read(path, &spa, err, ERRLEN), SEALPROV_OK);
  /* the file shrinks to nothing while the job holds the assignment */
  ck_assert_int_eq(truncate(path, 0), 0);
  sp_srs *srs = load_ok(params);
  fr_t r, s;
  fr_from_u64(&r, 7);
  fr_from_u64(&s, 11);
  uint8_t proof[192];
  ck_assert_msg(sp_groth16_prove(srs, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, &r, &s, 2, proof,
                                 err, ERRLEN) == SEALPROV_OK,
                "%s", err);
  bool valid = false;
  ck_assert_int_eq(
      sp_groth16_verify(srs, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, proof, &valid, err, ERRLEN),
      SEALPROV_OK);
  ck_assert(valid);
  sp_spa_free(spa);
  /* and a truncated file is refused when read */
  ck_assert_int_eq(sp_spa_read(path, &spa, err, ERRLEN), SEALPROV_ERR_ASSIGNMENT);
  ck_assert_msg(strstr(err, "gone.spa: truncated: 0 bytes"), "%s", err);
  sp_srs_release(srs);
  free(b);
}
END_TEST

/* ---- the Filecoin parameter cache -------------------------------------------------------- */

START_TEST(test_bare_name_in_param_cache) {
  char err[ERRLEN];
  ck_assert_int_eq(setenv("FIL_PROOFS_PARAMETER_CACHE", dir, 1), 0);
  sp_srs *srs = NULL;
  ck_assert_msg(sp_srs_load("circuit.params", false, true, 2, &srs, err, ERRLEN) == SEALPROV_OK,
                "%s", err);
  ck_assert_str_eq(srs->path, params);
  sp_srs_release(srs);
  char buf[600];
  ck_assert(sp_srs_resolve_path("x.vk", buf, sizeof buf));
  char want[600];
  snprintf(want, sizeof want, "%s/x.vk", dir);
  ck_assert_str_eq(buf, want);
  /* a path with a '/' is taken as it is */
  ck_assert(sp_srs_resolve_path("./x.vk", buf, sizeof buf));
  ck_assert_str_eq(buf, "./x.vk");
  /* not there: the message says where it looked */
  ck_assert_int_eq(sp_srs_load("missing-v28.params", false, true, 1, &srs, err, ERRLEN),
                   SEALPROV_ERR_IO);
  snprintf(want, sizeof want, "%s/missing-v28.params: cannot open", dir);
  ck_assert_msg(strstr(err, want) && strstr(err, "FIL_PROOFS_PARAMETER_CACHE") &&
                    strstr(err, "./missing-v28.params"),
                "%s", err);
  /* unset: the default cache */
  ck_assert_int_eq(unsetenv("FIL_PROOFS_PARAMETER_CACHE"), 0);
  ck_assert_int_eq(sp_srs_load("missing-v28.params", false, true, 1, &srs, err, ERRLEN),
                   SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "/var/tmp/filecoin-proof-parameters/missing-v28.params: cannot open"),
                "%s", err);
}
END_TEST

/* ---- parameters.json --------------------------------------------------------------------- */

typedef struct log_rec {
  int n;
  int level;
  char last[1024];
} log_rec;

static void log_cb(void *user, int level, const char *msg) {
  log_rec *l = user;
  l->n++;
  l->level = level;
  snprintf(l->last, sizeof l->last, "%s", msg);
}

static void file_digest(const char *path, char out[33]) {
  size_t len;
  uint8_t *b = slurp(path, &len), d[64];
  sp_blake2b(d, 64, b, len);
  char h[129];
  hex(d, 64, h);
  memcpy(out, h, 32);
  out[32] = 0;
  free(b);
}

static void write_manifest(const char *path, const char *digest_params, const char *name) {
  char text[4096];
  snprintf(text, sizeof text,
           "{\n"
           "  \"v28-other-\\u00e9.params\": {\"cid\": \"QmX\", \"digest\": "
           "\"00000000000000000000000000000000\", \"sector_size\": 2048, \"extra\": [1, {\"a\": "
           "null}, true, -1.5e3]},\n"
           "  \"%s\": {\n    \"cid\": \"QmY\",\n    \"digest\": \"%s\",\n"
           "    \"sector_size\": 34359738368\n  }\n}\n",
           name, digest_params);
  spit(path, text, strlen(text));
}

START_TEST(test_manifest) {
  char err[ERRLEN], man[500], dg[33];
  snprintf(man, sizeof man, "%s/parameters.json", root);
  file_digest(params, dg);
  log_rec lr = {0};
  sp_srs_load_opts o = opts_default();
  o.manifest = man;
  o.log = log_cb;
  o.log_user = &lr;

  /* match: the INFO line names the entry */
  write_manifest(man, dg, "circuit.params");
  ck_assert_msg(load_opts(params, &o, err) == SEALPROV_OK, "%s", err);
  ck_assert_int_eq(lr.level, SEALPROV_LOG_INFO);
  ck_assert_msg(strstr(lr.last, "matches manifest") && strstr(lr.last, "\"circuit.params\"") &&
                    strstr(lr.last, dg),
                "%s", lr.last);
  /* upper-case hex digits match too */
  char up[33];
  for (int i = 0; i < 33; i++) up[i] = (char)(dg[i] >= 'a' && dg[i] <= 'f' ? dg[i] - 32 : dg[i]);
  write_manifest(man, up, "circuit.params");
  ck_assert_msg(load_opts(params, &o, err) == SEALPROV_OK, "%s", err);

  /* mismatch: file, entry, expected and actual digest */
  char bad[33];
  memcpy(bad, dg, 33);
  bad[5] = bad[5] == '0' ? '1' : '0';
  write_manifest(man, bad, "circuit.params");
  ck_assert_int_eq(load_opts(params, &o, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "circuit.params: digest mismatch with manifest") &&
                    strstr(err, "entry \"circuit.params\"") && strstr(err, bad) && strstr(err, dg),
                "%s", err);

  /* no entry for the file: the manifest is named, before any point is read */
  write_manifest(man, dg, "v28-something-else.params");
  lr.n = 0;
  change_ctx c = {.monotonic = true};
  o.progress = change_cb;
  o.progress_user = &c;
  ck_assert_int_eq(load_opts(params, &o, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "no entry for \"circuit.params\" in the parameter manifest") &&
                    strstr(err, man) && strstr(err, "2 entries"),
                "%s", err);
  ck_assert_int_eq(c.calls, 0);
  o.progress = NULL;

  /* a digest that is not 32 hex digits */
  write_manifest(man, "abc", "circuit.params");
  ck_assert_int_eq(load_opts(params, &o, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "digest \"abc\"") && strstr(err, "32 hex digits"), "%s", err);

  /* malformed JSON: where */
  spit(man, "{\"circuit.params\": {\"digest\": \"x\",}", 36);
  ck_assert_int_eq(load_opts(params, &o, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "not a valid parameters.json") && strstr(err, "byte offset"), "%s",
                err);
  /* no manifest file */
  snprintf(man, sizeof man, "%s/nope.json", root);
  ck_assert_int_eq(load_opts(params, &o, err), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "nope.json: cannot open"), "%s", err);

  /* the .vk by its own entry */
  char vdg[33];
  file_digest(vk, vdg);
  snprintf(man, sizeof man, "%s/parameters.json", root);
  write_manifest(man, vdg, "circuit.vk");
  o.vk_only = true;
  ck_assert_msg(load_opts(vk, &o, err) == SEALPROV_OK, "%s", err);
}
END_TEST

/* ---- the subgroup-checker hook ------------------------------------------------------------ */

typedef struct hook_ctx {
  int calls;
  size_t points_g1, points_g2;
  bool fail; /* the checker itself fails */
} hook_ctx;

static int hook(void *user, bool g2, const void *pts, size_t n, size_t *first_bad, char *err,
                size_t errlen) {
  hook_ctx *h = user;
  h->calls++;
  if (h->fail) {
    snprintf(err, errlen, "device 0: out of memory (test)");
    return SEALPROV_ERR_DEVICE;
  }
  *first_bad = n;
  for (size_t i = 0; i < n; i++) {
    bool ok = g2 ? g2_affine_in_subgroup((const g2_affine_t *)pts + i)
                 : g1_affine_in_subgroup((const g1_affine_t *)pts + i);
    if (!ok) {
      *first_bad = i;
      break;
    }
  }
  if (g2)
    h->points_g2 += n;
  else
    h->points_g1 += n;
  return SEALPROV_OK;
}

/* A point of E(Fp) outside G1. */
static void non_subgroup_g1(g1_affine_t *p) {
  fp_t rhs, four;
  fp_from_u64(&four, 4);
  for (uint64_t x = 1;; x++) {
    fp_from_u64(&p->x, x);
    fp_sqr(&rhs, &p->x);
    fp_mul(&rhs, &rhs, &p->x);
    fp_add(&rhs, &rhs, &four);
    if (fp_sqrt(&p->y, &rhs) && !g1_affine_in_subgroup(p)) return;
  }
}

START_TEST(test_subgroup_hook) {
  char err[ERRLEN], path[500], want[200];
  sp_srs *srs = load_ok(params);
  vec_at v[6];
  size_t len;
  layout(srs, v);
  hook_ctx h = {0};
  log_rec lr = {0};
  sp_srs_load_opts o = opts_default();
  o.check = hook;
  o.check_user = &h;
  o.log = log_cb;
  o.log_user = &lr;
  /* every proving point goes through the hook, none of the verifying key's */
  ck_assert_msg(load_opts(params, &o, err) == SEALPROV_OK, "%s", err);
  ck_assert_uint_eq(h.points_g1, srs->h_len + srs->l_len + srs->a_len + srs->b_g1_len);
  ck_assert_uint_eq(h.points_g2, srs->b_g2_len);
  ck_assert_int_gt(h.calls, 20);
  ck_assert_int_eq(lr.n, 0);
  /* without subgroup checks the hook is not called */
  h = (hook_ctx){0};
  o.subgroup_check = false;
  ck_assert_int_eq(load_opts(params, &o, err), SEALPROV_OK);
  ck_assert_int_eq(h.calls, 0);
  o.subgroup_check = true;

  /* a point outside G1 in b_g1 (index 14, the second chunk of b_g1) */
  uint8_t *b = slurp(params, &len);
  g1_affine_t p;
  non_subgroup_g1(&p);
  size_t at = v[4].len_off + 4 + 96 * 14;
  g1_serialize(b + at, &p);
  snprintf(path, sizeof path, "%s/nonsub.params", root);
  spit(path, b, len);
  h = (hook_ctx){0};
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_PARAMS);
  snprintf(want, sizeof want, "nonsub.params: vector b_g1 index 14 (byte offset %zu): %s", at,
           bls_err_str(BLS_ERR_NOT_IN_SUBGROUP));
  ck_assert_msg(strstr(err, want), "%s", err);
  /* the same file through the CPU */
  o.check = NULL;
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, want), "%s", err);

  /* a checker that fails: the CPU takes over (and still finds the point), with a WARN */
  o.check = hook;
  h = (hook_ctx){.fail = true};
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, want), "%s", err);
  ck_assert_int_eq(h.calls, 1);
  ck_assert_int_eq(lr.level, SEALPROV_LOG_WARN);
  ck_assert_msg(strstr(lr.last, "subgroup checker failed") &&
                    strstr(lr.last, "out of memory (test)") && strstr(lr.last, "on the CPU"),
                "%s", lr.last);
  h = (hook_ctx){.fail = true};
  ck_assert_msg(load_opts(params, &o, err) == SEALPROV_OK, "%s", err);
  free(b);
  sp_srs_release(srs);
}
END_TEST

/* ---- a direct load through the sink (the device loader's protocol, on the CPU) ------------ */

/* A sink that does what cuda/points/points.cu does, with the CPU decoder: each submitted chunk
 * is decoded (with the subgroup check) into its own arrays, and the first rejected
 * point is reported late, at the next buffer() or finish() call, as the device's
 * results arrive. */
typedef struct test_sink {
  bool take;
  size_t lower; /* begin() lowers the chunk size to this (0: keeps it) */
  uint64_t begin_bytes;
  unsigned log_domain;
  size_t chunk;
  uint8_t *buf;
  void *vec[5];
  size_t len[5];
  sp_srs_bad pend;
  int calls_buffer, calls_submit, calls_finish;
  bool subgroup; /* what begin() was told */
} test_sink;

static int ts_begin(void *u, uint64_t bytes, unsigned log_domain, bool subgroup, bool *take,
                    size_t *chunk, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  test_sink *t = u;
  t->subgroup = subgroup;
  ck_assert_uint_eq(*chunk, t->chunk);
  if (t->lower) *chunk = t->lower; /* the sink may ask for smaller chunks */
  t->begin_bytes = bytes;
  t->log_domain = log_domain;
  *take = t->take;
  return SEALPROV_OK;
}

static int ts_vector(void *u, int vec, size_t n, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  test_sink *t = u;
  ck_assert(vec >= 0 && vec < 5 && t->vec[vec] == NULL);
  t->len[vec] = n;
  t->vec[vec] = calloc(n + 1, vec == 4 ? sizeof(g2_affine_t) : sizeof(g1_affine_t));
  ck_assert_ptr_nonnull(t->vec[vec]);
  return SEALPROV_OK;
}

static int ts_report(test_sink *t, sp_srs_bad *bad) {
  if (!t->pend.any) return SEALPROV_OK;
  *bad = t->pend;
  return SEALPROV_ERR_PARAMS;
}

static int ts_buffer(void *u, size_t bytes, void **buf, sp_srs_bad *bad, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  test_sink *t = u;
  t->calls_buffer++;
  ck_assert_uint_le(bytes, t->lower ? t->lower : t->chunk);
  memset(t->buf, 0xa5, t->chunk); /* what the loader does not read shows */
  *buf = t->buf;
  return ts_report(t, bad);
}

static int ts_submit(void *u, int vec, size_t index0, size_t n, uint64_t off0, sp_srs_bad *bad,
                     char *err, size_t errlen) {
  (void)bad;
  (void)err;
  (void)errlen;
  test_sink *t = u;
  t->calls_submit++;
  ck_assert_uint_le(index0 + n, t->len[vec]);
  size_t each = vec == 4 ? 192 : 96;
  for (size_t i = 0; i < n && !t->pend.any; i++) {
    const uint8_t *enc = t->buf + i * each;
    bls_err e;
    bool inf;
    if (vec == 4) {
      g2_affine_t *q = (g2_affine_t *)t->vec[vec] + index0 + i;
      e = g2_deserialize(q, enc, 192, t->subgroup ? BLS_DECODE_SUBGROUP_CHECK : 0);
      inf = e == BLS_OK && g2_affine_is_inf(q);
    } else {
      g1_affine_t *q = (g1_affine_t *)t->vec[vec] + index0 + i;
      e = g1_deserialize(q, enc, 96, t->subgroup ? BLS_DECODE_SUBGROUP_CHECK : 0);
      inf = e == BLS_OK && g1_affine_is_inf(q);
    }
    if (e != BLS_OK || inf) {
      t->pend = (sp_srs_bad){.any = true, .vec = vec, .index = index0 + i, .off = off0 + i * each};
      memcpy(t->pend.enc, enc, each);
    }
  }
  return SEALPROV_OK;
}

static int ts_finish(void *u, sp_srs_bad *bad, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  test_sink *t = u;
  t->calls_finish++;
  return ts_report(t, bad);
}

static void ts_init(test_sink *t, sp_srs_sink *k, bool take, size_t chunk) {
  memset(t, 0, sizeof *t);
  t->take = take;
  t->chunk = chunk;
  t->buf = malloc(chunk);
  ck_assert_ptr_nonnull(t->buf);
  *k = (sp_srs_sink){.user = t,
                     .chunk_bytes = chunk,
                     .begin = ts_begin,
                     .vector = ts_vector,
                     .buffer = ts_buffer,
                     .submit = ts_submit,
                     .finish = ts_finish};
}

static void ts_free(test_sink *t) {
  for (int i = 0; i < 5; i++) free(t->vec[i]);
  free(t->buf);
}

START_TEST(test_direct_load_sink) {
  char err[ERRLEN], path[500], want[300];
  sp_srs *host = load_ok(params);
  vec_at v[6];
  size_t len;
  size_t end = layout(host, v);
  test_sink t;
  sp_srs_sink k;
  bool taken = false;

  /* taken: no host vectors, the sink's decode is the host's, byte for byte; every
   * chunk was read in whole points (chunk 1000: ten G1 or five G2 points) */
  ts_init(&t, &k, true, 1000);
  sp_srs_load_opts o = opts_default();
  o.sink = &k;
  o.sink_taken = &taken;
  sp_srs *d = NULL;
  ck_assert_msg(sp_srs_load_ex(params, &o, &d, err, ERRLEN) == SEALPROV_OK, "%s", err);
  ck_assert(taken && d->device_only);
  ck_assert(t.subgroup); /* begin() is told to check the subgroup */
  ck_assert_ptr_null(d->h);
  ck_assert_ptr_null(d->l);
  ck_assert_ptr_null(d->a);
  ck_assert_ptr_null(d->b_g1);
  ck_assert_ptr_null(d->b_g2);
  ck_assert_uint_eq(d->h_len, host->h_len);
  ck_assert_uint_eq(d->b_g2_len, host->b_g2_len);
  ck_assert_uint_eq(d->log_domain, host->log_domain);
  ck_assert_uint_eq(t.log_domain, host->log_domain);
  ck_assert_uint_eq(t.begin_bytes, len = end - (v[1].len_off + 4));
  ck_assert_mem_eq(t.vec[0], host->h, host->h_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(t.vec[1], host->l, host->l_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(t.vec[2], host->a, host->a_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(t.vec[3], host->b_g1, host->b_g1_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(t.vec[4], host->b_g2, host->b_g2_len * sizeof(g2_affine_t));
  ck_assert_mem_eq(d->vk.ic, host->vk.ic, host->vk.ic_len * sizeof(g1_affine_t));
  ck_assert_int_eq(t.calls_finish, 1);
  ck_assert_int_eq(t.calls_buffer, t.calls_submit);
  ck_assert_int_gt(t.calls_submit, 5);
  int calls_at_1000 = t.calls_submit;
  /* the CPU prover refuses a set with no host vectors, whatever the assignment */
  {
    sealprov_assignment none;
    memset(&none, 0, sizeof none);
    fr_t zero;
    memset(&zero, 0, sizeof zero);
    uint8_t proof[192];
    ck_assert_int_eq(sp_groth16_prove(d, &none, SEALPROV_SCALAR_CANONICAL_LE, &zero, &zero, 1,
                                      proof, err, ERRLEN),
                     SEALPROV_ERR_PARAMS);
    ck_assert_msg(strstr(err, "no host copy of its proving vectors"), "%s", err);
  }
  sp_srs_release(d);
  ts_free(&t);

  /* begin lowers the chunk size: more, smaller chunks, the same points */
  ts_init(&t, &k, true, 1000);
  t.lower = 400;
  ck_assert_msg(sp_srs_load_ex(params, &o, &d, err, ERRLEN) == SEALPROV_OK, "%s", err);
  ck_assert_int_gt(t.calls_submit, calls_at_1000);
  ck_assert_mem_eq(t.vec[0], host->h, host->h_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(t.vec[4], host->b_g2, host->b_g2_len * sizeof(g2_affine_t));
  sp_srs_release(d);
  ts_free(&t);

  /* declined: the host load, as if there were no sink */
  ts_init(&t, &k, false, 1000);
  ck_assert_msg(sp_srs_load_ex(params, &o, &d, err, ERRLEN) == SEALPROV_OK, "%s", err);
  ck_assert(!taken && !d->device_only && d->h != NULL);
  ck_assert_mem_eq(d->h, host->h, host->h_len * sizeof(g1_affine_t));
  ck_assert_int_eq(t.calls_submit, 0);
  sp_srs_release(d);
  ts_free(&t);

  /* bad points, reported late by the sink: the host loader's message, word for word */
  uint8_t *b = slurp(params, &len);
  snprintf(path, sizeof path, "%s/sinkbad.params", root);
  struct {
    int vec; /* index into v[] */
    size_t index;
    int how; /* 0 not in G1, 1 x >= p, 2 infinity, 3 off the curve, 4 G2 y >= p */
  } cases[] = {{4, 14, 0}, {1, 3, 1}, {2, 0, 2}, {3, 7, 3}, {5, 4, 4}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    uint8_t *m = malloc(len);
    memcpy(m, b, len);
    size_t each = cases[c].vec == 5 ? 192 : 96;
    size_t at = v[cases[c].vec].len_off + 4 + each * cases[c].index;
    if (cases[c].how == 0) {
      g1_affine_t p;
      non_subgroup_g1(&p);
      g1_serialize(m + at, &p);
    } else if (cases[c].how == 1) {
      memset(m + at, 0x1f, 48); /* x > p, flags clear */
    } else if (cases[c].how == 2) {
      memset(m + at, 0, 96);
      m[at] = 0x40;
    } else if (cases[c].how == 3) {
      m[at + 95] ^= 1;
    } else {
      memset(m + at + 96, 0x1f, 48);
    }
    spit(path, m, len);
    free(m);
    sp_srs_load_opts oh = opts_default();
    char herr[ERRLEN];
    ck_assert_int_eq(load_opts(path, &oh, herr), SEALPROV_ERR_PARAMS);
    snprintf(want, sizeof want, "vector %s index %zu (byte offset %zu): ", v[cases[c].vec].name,
             cases[c].index, at);
    ck_assert_msg(strstr(herr, want), "case %zu: %s (want %s)", c, herr, want);
    ts_init(&t, &k, true, 1000);
    ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_PARAMS);
    ck_assert_str_eq(err, herr);
    ts_free(&t);
  }

  /* the file shrinks during a direct load: the host load's message */
  spit(path, b, len);
  ts_init(&t, &k, true, 1000);
  change_ctx cc = {.path = path, .mode = 0, .to = v[2].len_off + 4 + 96 * 30, .monotonic = true};
  o.progress = change_cb;
  o.progress_user = &cc;
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "sinkbad.params") && strstr(err, "changed during the load"), "%s", err);
  ts_free(&t);
  free(b);
  sp_srs_release(host);
}
END_TEST

/* Chunks read by several threads in small pieces decode the same points. */
START_TEST(test_parallel_read_same_result) {
  char err[ERRLEN];
  sp_srs *a = load_ok(params), *b = NULL;
  sp_srs_load_opts o = {
      .subgroup_check = false, .nthreads = 5, .chunk_bytes = 96 * 400, .read_piece = 4096};
  ck_assert_int_eq(sp_srs_load_ex(params, &o, &b, err, ERRLEN), SEALPROV_OK);
  ck_assert_mem_eq(a->h, b->h, a->h_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(a->l, b->l, a->l_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(a->a, b->a, a->a_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(a->b_g1, b->b_g1, a->b_g1_len * sizeof(g1_affine_t));
  ck_assert_mem_eq(a->b_g2, b->b_g2, a->b_g2_len * sizeof(g2_affine_t));
  sp_srs_release(b);
  /* a file cut short: a piece's read fails and names the file and the vector */
  size_t len;
  uint8_t *c = slurp(params, &len);
  vec_at v[6];
  layout(a, v);
  char path[500];
  snprintf(path, sizeof path, "%s/pcut.params", root);
  spit(path, c, len);
  change_ctx cc = {.path = path, .mode = 0, .to = v[2].len_off + 4 + 96 * 5, .monotonic = true};
  o.progress = change_cb;
  o.progress_user = &cc;
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "pcut.params") && strstr(err, "vector l") &&
                    strstr(err, "changed during the load"),
                "%s", err);
  free(c);
  sp_srs_release(a);
}
END_TEST

/* ---- messages ------------------------------------------------------------------------------ */

START_TEST(test_messages_utf8) {
  char err[ERRLEN], path[500];
  snprintf(path, sizeof path, "%s/bad\xff\xfe name\x01.params", root);
  size_t len;
  uint8_t *b = slurp(params, &len);
  spit(path, b, 900);
  sp_srs_load_opts o = opts_default();
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "bad\\xff\\xfe name\\x01.params"), "%s", err);
  unlink(path);
  ck_assert_int_eq(load_opts(path, &o, err), SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, "bad\\xff\\xfe name\\x01.params: cannot open"), "%s", err);
  /* escaping keeps UTF-8 and drops nothing else */
  char out[64];
  ck_assert_str_eq(sp_utf8_escape("caf\xc3\xa9 \xe2\x82\xac", out, sizeof out),
                   "caf\xc3\xa9 \xe2\x82\xac");
  ck_assert_str_eq(sp_utf8_escape("\xc0\xaf\xed\xa0\x80", out, sizeof out),
                   "\\xc0\\xaf\\xed\\xa0\\x80");
  ck_assert_str_eq(sp_utf8_escape("abcdefgh", out, 5), "abcd");
  /* a backslash is doubled, so "\x41" in a name is not the escape of "A"; C1 controls
   * (CSI U+009B among them) are shown, never sent to a terminal; cuts keep whole units */
  ck_assert_str_eq(sp_utf8_escape("a\\x41\\", out, sizeof out), "a\\\\x41\\\\");
  ck_assert_str_eq(sp_utf8_escape("\xc2\x9b[2J\xc2\x80\xc2\xa0", out, sizeof out),
                   "\\u009b[2J\\u0080\xc2\xa0");
  ck_assert_str_eq(sp_utf8_escape("ab\xc2\x9b", out, 8), "ab");
  ck_assert_str_eq(sp_utf8_escape("ab\\", out, 4), "ab");
  ck_assert_str_eq(sp_utf8_escape("\x1b[31m\x7f", out, sizeof out), "\\x1b[31m\\x7f");
  /* the marked form (the INI's quoted values) says where it cut, after whole units */
  ck_assert_str_eq(sp_utf8_escape_marked("abcdefgh", out, 9), "abcdefgh");
  ck_assert_str_eq(sp_utf8_escape_marked("abcdefgh", out, 8), "abcd...");
  ck_assert_str_eq(sp_utf8_escape_marked("ab\xc2\x9b"
                                         "cd",
                                         out, 10),
                   "ab...");
  ck_assert_str_eq(sp_utf8_escape_marked("a\x01", out, 6), "a\\x01");
  ck_assert_str_eq(sp_utf8_escape_marked("abcdefgh", out, 4), "");
  free(b);
}
END_TEST

/* ---- main ------------------------------------------------------------------------------------ */

int main(void) {
  const char *t = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/sp_loader_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(root)) {
    perror(root);
    return EXIT_FAILURE;
  }
  snprintf(dir, sizeof dir, "%s/setup", root);
  if (mkdir(dir, 0700) != 0) {
    perror(dir);
    return EXIT_FAILURE;
  }
  char err[ERRLEN] = "";
  sp_setup_opts so = {.constraints = 250,
                      .inputs = 4,
                      .partitions = 1,
                      .shape = SP_SHAPE_SEALING,
                      .seed = 21,
                      .out_dir = dir,
                      .nthreads = 2};
  if (sp_setup_run(&so, &setup_res, err, sizeof err) != SEALPROV_OK) {
    fprintf(stderr, "setup: %s\n", err);
    return EXIT_FAILURE;
  }
  snprintf(params, sizeof params, "%s/circuit.params", dir);
  snprintf(vk, sizeof vk, "%s/circuit.vk", dir);
  char name[64];
  sp_partition_name(name, sizeof name, 0, 1);
  snprintf(part0, sizeof part0, "%s/%s", dir, name);

  Suite *s = suite_create("loader");
  TCase *tc = tcase_create("loader");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_blake2b_vectors);
  tcase_add_test(tc, test_truncated_everywhere);
  tcase_add_test(tc, test_bad_length_names_its_vector);
  tcase_add_test(tc, test_file_shrinks_during_load);
  tcase_add_test(tc, test_progress_can_stop);
  tcase_add_test(tc, test_chunking_same_result);
  tcase_add_test(tc, test_spa_truncated_after_read);
  tcase_add_test(tc, test_bare_name_in_param_cache);
  tcase_add_test(tc, test_manifest);
  tcase_add_test(tc, test_subgroup_hook);
  tcase_add_test(tc, test_messages_utf8);
  tcase_add_test(tc, test_direct_load_sink);
  tcase_add_test(tc, test_parallel_read_same_result);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
