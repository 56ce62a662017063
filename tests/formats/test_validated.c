/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_validated.c -- a .params file validated once: the keyed file digest
 * (formats/fdigest.h), the loader's digest and skipped checks (formats/srs.c), the
 * record store (formats/vrecord.h) and a provider's loads with records
 * (runtime/params.c, [provider] params_validation_cache).
 *
 * A provider's load here is sp_params_load with a configuration read from an INI file
 * and counters of its own, on a CPU device (the host load): a fresh configuration and
 * fresh counters are a fresh provider. Each case works on its own copy of the file and
 * its own store, and says what the next load must do: validate in full (the counters'
 * "full", a log line naming why) or use the record ("record", "validated earlier"). */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "../common/log_capture.h"
#include "base/log.h"
#include "base/util.h"
#include "bls12_381/bls12_381.h"
#include "circuit.h"
#include "formats/fdigest.h"
#include "formats/srs.h"
#include "formats/vrecord.h"
#include "runtime/device_table.h"
#include "runtime/params.h"

#define ERRLEN 2048

static char root[256], params[400], big[400];
static char ini_dir[300]; /* where providers' INI files go (root, or /tmp for another user) */

/* ---- helpers ------------------------------------------------------------------------- */

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
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

static void spit(const char *path, const void *b, size_t len, mode_t mode) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
  ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
  ck_assert_int_eq(write(fd, b, len), (ssize_t)len);
  ck_assert_int_eq(close(fd), 0);
}

/* root/NAME, a copy of the parameters, and root/NAME.store for its records. */
static void work_copy(const char *name, char *path, size_t plen, char *store, size_t slen) {
  size_t len;
  uint8_t *b = slurp(params, &len);
  snprintf(path, plen, "%s/%s.params", root, name);
  snprintf(store, slen, "%s/%s.store", root, name);
  spit(path, b, len, 0644);
  free(b);
}

/* A provider: its configuration (from an INI file) and its counters. */
typedef struct prov {
  sp_config *cfg;
  sp_params_stats stats;
} prov;

static void prov_open(prov *p, const char *provider_lines) {
  char ini[512], text[1024], err[ERRLEN];
  snprintf(ini, sizeof ini, "%s/p-%d.ini", ini_dir, (int)getpid());
  snprintf(text, sizeof text, "[provider]\nload_threads = 3\n%s\n[cpu0]\ntype = cpu\n",
           provider_lines);
  spit(ini, text, strlen(text), 0644);
  memset(&p->stats, 0, sizeof p->stats);
  p->cfg = calloc(1, sizeof *p->cfg);
  ck_assert_ptr_nonnull(p->cfg);
  ck_assert_msg(sp_config_load(ini, p->cfg, err, sizeof err) == SEALPROV_OK, "%s", err);
}

static void prov_close(prov *p) { free(p->cfg); }

/* One load on a provider; *srs_out (when given) gets the set, else it is released. */
static int prov_load(prov *p, const char *path, char *err, sp_srs **srs_out) {
  sp_srs *srs = NULL;
  err[0] = '\0';
  int st = sp_params_load(p->cfg, path, false, &p->stats, &srs, err, ERRLEN);
  if (st != SEALPROV_OK) ck_assert_ptr_null(srs);
  if (srs_out)
    *srs_out = srs;
  else
    sp_srs_release(srs);
  return st;
}

/* A fresh provider with the store, one load: its status; what it did in *stats. */
static int load_fresh(const char *path, const char *store, sp_params_stats *stats, char *err) {
  char line[600];
  snprintf(line, sizeof line, "params_validation_cache = %s", store);
  prov p;
  prov_open(&p, line);
  log_clear();
  int st = prov_load(&p, path, err, NULL);
  memcpy(stats, &p.stats, sizeof *stats);
  prov_close(&p);
  return st;
}

/* The next load validates in full and succeeds; it writes the record again. */
static void expect_full(const char *path, const char *store, const char *why) {
  char err[ERRLEN];
  sp_params_stats st;
  ck_assert_msg(load_fresh(path, store, &st, err) == SEALPROV_OK, "%s: %s", why, err);
  ck_assert_msg(atomic_load(&st.full) == 1 && atomic_load(&st.record) == 0,
                "%s: not validated in full\n%s", why, log_text);
  ck_assert_msg(logged("every point"), "%s\n%s", why, log_text);
}

/* The next load uses the record. */
static void expect_record(const char *path, const char *store, const char *why) {
  char err[ERRLEN];
  sp_params_stats st;
  ck_assert_msg(load_fresh(path, store, &st, err) == SEALPROV_OK, "%s: %s", why, err);
  ck_assert_msg(atomic_load(&st.record) == 1 && atomic_load(&st.full) == 0,
                "%s: the record was not used\n%s", why, log_text);
  ck_assert_msg(logged("validated earlier: record ") && logged("digest verified") &&
                    logged("points not rechecked"),
                "%s\n%s", why, log_text);
}

/* The record's file of a parameter file in a store. */
static void record_path(const char *store, const char *file, char *out, size_t len) {
  char canon[4096], name[SP_VRECORD_NAME_MAX];
  ck_assert_ptr_nonnull(realpath(file, canon));
  sp_vrecord_name(canon, name);
  snprintf(out, len, "%s/%s/%s", store, SP_VRECORD_DIR, name);
}

static void file_id(const char *path, sp_file_id *id) {
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  *id = (sp_file_id){.dev = (uint64_t)st.st_dev,
                     .ino = (uint64_t)st.st_ino,
                     .size = (uint64_t)st.st_size,
                     .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
                     .ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec};
}

/* Writes a record for file as it is now, with the given digest: what a record of an
 * earlier validation looks like after a change no stat field shows (bit rot, or a
 * forger who matched every field). */
static void forge_record(const char *store, const char *file, const uint8_t digest[16]) {
  char canon[4096], why[512];
  int level;
  sp_file_id id;
  ck_assert_ptr_nonnull(realpath(file, canon));
  file_id(file, &id);
  sp_vrecord_store *s = sp_vrecord_open(store, &level, why, sizeof why);
  ck_assert_msg(s != NULL, "%s", why);
  ck_assert_msg(sp_vrecord_write(s, canon, &id, digest, why, sizeof why) == SEALPROV_OK, "%s", why);
  sp_vrecord_close(s);
}

/* The digest a record holds (its last 32 hex digits). */
static void record_digest(const char *store, const char *file, uint8_t digest[16]) {
  char rec[4500];
  size_t len;
  record_path(store, file, rec, sizeof rec);
  uint8_t *t = slurp(rec, &len);
  ck_assert_uint_gt(len, 33);
  for (int i = 0; i < 16; i++) {
    unsigned v;
    ck_assert_int_eq(sscanf((const char *)t + len - 33 + 2 * i, "%2x", &v), 1);
    digest[i] = (uint8_t)v;
  }
  free(t);
}

/* Byte offset of vector v's first point (0 ic, 1 h, 2 l, 3 a, 4 b_g1, 5 b_g2). */
static size_t vec_start(const sp_srs *s, int v) {
  size_t off = 864, ns[6] = {s->vk.ic_len, s->h_len, s->l_len, s->a_len, s->b_g1_len, s->b_g2_len};
  for (int i = 0; i < v; i++) off += 4 + ns[i] * (i == 5 ? 192 : 96);
  return off + 4;
}

static sp_srs *load_plain(const char *path) {
  char err[ERRLEN];
  sp_srs *s = NULL;
  sp_srs_load_opts o = {.subgroup_check = false, .nthreads = 2};
  ck_assert_msg(sp_srs_load_ex(path, &o, &s, err, sizeof err) == SEALPROV_OK, "%s", err);
  return s;
}

/* ---- the digest ------------------------------------------------------------------------ */

static void fill_secret(uint8_t *k, uint8_t seed) {
  for (int i = 0; i < SP_FDIGEST_SECRET_BYTES; i++) k[i] = (uint8_t)(seed * 131 + i * 7 + 1);
}

/* The construction as docs/formats.md describes it, from libxxhash directly. */
static void reference_digest(const uint8_t *b, size_t n, const uint8_t *k, uint8_t out[16]) {
  XXH3_state_t *st = XXH3_createState();
  uint8_t head[48] = {0};
  memcpy(head, SP_FDIGEST_NAME, strlen(SP_FDIGEST_NAME));
  for (int i = 0; i < 8; i++) {
    head[32 + i] = (uint8_t)((uint64_t)n >> (8 * i));
    head[40 + i] = (uint8_t)((uint64_t)(1 << 20) >> (8 * i));
  }
  XXH3_128bits_reset_withSecret(st, k, SP_FDIGEST_SECRET_BYTES);
  XXH3_128bits_update(st, head, sizeof head);
  for (size_t at = 0; at < n; at += 1 << 20) {
    size_t m = n - at < (1u << 20) ? n - at : 1u << 20;
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_withSecret(b + at, m, k, SP_FDIGEST_SECRET_BYTES));
    XXH3_128bits_update(st, c.digest, sizeof c.digest);
  }
  XXH128_canonical_t r;
  XXH128_canonicalFromHash(&r, XXH3_128bits_digest(st));
  memcpy(out, r.digest, 16);
  XXH3_freeState(st);
}

START_TEST(test_digest_blocks) {
  size_t n = (7u << 19) + 123; /* 3.5 MiB and a bit: three whole blocks and a partial one */
  uint8_t *b = malloc(n), k[SP_FDIGEST_SECRET_BYTES], want[16], got[16];
  ck_assert_ptr_nonnull(b);
  for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(i * 2654435761u >> 13);
  fill_secret(k, 1);
  reference_digest(b, n, k, want);

  /* one piece */
  sp_fdigest *d = sp_fdigest_new(k, sizeof k, n);
  sp_fdigest_update(d, 0, b, n);
  ck_assert(sp_fdigest_final(d, got));
  ck_assert_mem_eq(got, want, 16);
  ck_assert(sp_fdigest_cpu_ms(d) >= 0);
  sp_fdigest_free(d);

  /* odd pieces in order; and pieces split on block boundaries whose whole blocks come in
   * reverse order (other threads), the edges in file order */
  size_t cuts[] = {0, 5, 100000, 1048576, 1048580, 2500000, 3000000, n};
  d = sp_fdigest_new(k, sizeof k, n);
  for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++)
    sp_fdigest_update(d, cuts[i], b + cuts[i], cuts[i + 1] - cuts[i]);
  ck_assert(sp_fdigest_final(d, got));
  ck_assert_mem_eq(got, want, 16);
  sp_fdigest_free(d);
  d = sp_fdigest_new(k, sizeof k, n);
  size_t off = 777, len = n - 777 - 1000, at[4] = {0};
  for (int i = 1; i < 4; i++) at[i] = sp_fdigest_split(off, len, i * len / 3);
  ck_assert_uint_eq((off + at[1]) % (1 << 20), 0);
  sp_fdigest_update(d, 0, b, off);
  for (int i = 2; i >= 0; i--)
    sp_fdigest_blocks(d, off + at[i], b + off + at[i], (i == 2 ? len : at[i + 1]) - at[i]);
  sp_fdigest_edges(d, off, b + off, len);
  sp_fdigest_update(d, off + len, b + off + len, n - off - len);
  ck_assert(sp_fdigest_final(d, got));
  ck_assert_mem_eq(got, want, 16);
  sp_fdigest_free(d);

  /* a missing byte, edges out of order: no digest */
  d = sp_fdigest_new(k, sizeof k, n);
  sp_fdigest_update(d, 0, b, n - 1);
  ck_assert(!sp_fdigest_final(d, got));
  sp_fdigest_free(d);
  d = sp_fdigest_new(k, sizeof k, n);
  sp_fdigest_update(d, 10, b + 10, n - 10);
  sp_fdigest_update(d, 0, b, 10);
  ck_assert(!sp_fdigest_final(d, got));
  sp_fdigest_free(d);

  /* one flipped byte, another secret: another digest */
  b[n / 2] ^= 1;
  d = sp_fdigest_new(k, sizeof k, n);
  sp_fdigest_update(d, 0, b, n);
  ck_assert(sp_fdigest_final(d, got));
  ck_assert(memcmp(got, want, 16) != 0);
  sp_fdigest_free(d);
  b[n / 2] ^= 1;
  fill_secret(k, 2);
  d = sp_fdigest_new(k, sizeof k, n);
  sp_fdigest_update(d, 0, b, n);
  ck_assert(sp_fdigest_final(d, got));
  ck_assert(memcmp(got, want, 16) != 0);
  sp_fdigest_free(d);
  ck_assert_ptr_null(sp_fdigest_new(k, 100, n)); /* a secret shorter than XXH3 allows */
  free(b);
}
END_TEST

/* ---- the loader's digest and skipped checks ---------------------------------------------- */

typedef struct sink_seen {
  int begins;
  bool subgroup;
} sink_seen;

static int seen_begin(void *u, uint64_t bytes, unsigned log_domain, bool subgroup, bool *take,
                      size_t *chunk, char *err, size_t errlen) {
  (void)bytes, (void)log_domain, (void)chunk, (void)err, (void)errlen;
  sink_seen *s = u;
  s->begins++;
  s->subgroup = subgroup;
  *take = false; /* the host load goes on */
  return SEALPROV_OK;
}

typedef struct want_ctx {
  uint8_t digest[16];
  bool say_yes;
  int calls;
  sp_file_id id;
} want_ctx;

static bool answer(void *user, const sp_file_id *id, uint8_t want[16]) {
  want_ctx *w = user;
  w->calls++;
  w->id = *id;
  memcpy(want, w->digest, 16);
  return w->say_yes;
}

START_TEST(test_loader_digest) {
  uint8_t k[SP_FDIGEST_SECRET_BYTES], ref[16];
  fill_secret(k, 3);
  size_t len;
  uint8_t *b = slurp(big, &len);
  ck_assert_uint_gt(len, 1u << 20); /* whole blocks and a partial one */
  reference_digest(b, len, k, ref);
  free(b);
  /* the same digest whatever the chunks, threads and pieces of the reads */
  struct {
    size_t chunk, piece;
    unsigned threads;
  } ways[] = {{960, 0, 1}, {96 * 1000, 4096, 5}, {0, 0, 2}, {(size_t)3 << 20, 65536, 16}};
  for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
    sp_srs_validation v;
    char err[ERRLEN];
    sp_srs *s = NULL;
    sp_srs_load_opts o = {.subgroup_check = false,
                          .nthreads = ways[i].threads,
                          .chunk_bytes = ways[i].chunk,
                          .read_piece = ways[i].piece,
                          .digest_secret = k,
                          .digest_secret_len = sizeof k,
                          .validation = &v};
    ck_assert_msg(sp_srs_load_ex(big, &o, &s, err, sizeof err) == SEALPROV_OK, "%s", err);
    ck_assert(v.digest_done && !v.skipped && !v.stale);
    ck_assert_msg(memcmp(v.digest, ref, 16) == 0, "way %zu: another digest", i);
    sp_srs_release(s);
  }

  /* checked before, with the right digest: no subgroup checks (the sink is told so),
   * the same points; with another digest: PARAMS, stale, nothing handed out */
  sink_seen seen = {0};
  sp_srs_sink sink = {.user = &seen, .chunk_bytes = 1 << 20, .begin = seen_begin};
  want_ctx w = {.say_yes = true};
  memcpy(w.digest, ref, 16);
  sp_srs_validation v;
  char err[ERRLEN];
  sp_srs *s = NULL, *plain = load_plain(big);
  sp_srs_load_opts o = {.subgroup_check = true,
                        .nthreads = 2,
                        .digest_secret = k,
                        .digest_secret_len = sizeof k,
                        .validation = &v,
                        .checked_before = answer,
                        .checked_before_user = &w,
                        .sink = &sink};
  ck_assert_msg(sp_srs_load_ex(big, &o, &s, err, sizeof err) == SEALPROV_OK, "%s", err);
  ck_assert(v.skipped && v.digest_done && !v.stale);
  ck_assert_int_eq(w.calls, 1);
  ck_assert_uint_eq(w.id.size, len);
  ck_assert(seen.begins == 1 && !seen.subgroup);
  ck_assert_mem_eq(s->l, plain->l, s->l_len * sizeof *s->l);
  ck_assert_mem_eq(s->b_g2, plain->b_g2, s->b_g2_len * sizeof *s->b_g2);
  sp_srs_release(s);
  w.digest[7] ^= 1;
  s = NULL;
  ck_assert_int_eq(sp_srs_load_ex(big, &o, &s, err, sizeof err), SEALPROV_ERR_PARAMS);
  ck_assert_ptr_null(s);
  ck_assert(v.skipped && v.stale);
  ck_assert_msg(strstr(err, "digest differs from its validation record"), "%s", err);
  /* not checked before: every check, the sink told to check the subgroup */
  w.say_yes = false;
  ck_assert_msg(sp_srs_load_ex(big, &o, &s, err, sizeof err) == SEALPROV_OK, "%s", err);
  ck_assert(!v.skipped && seen.subgroup);
  sp_srs_release(s);
  /* without subgroup checks nobody is asked */
  w.calls = 0;
  o.subgroup_check = false;
  ck_assert_msg(sp_srs_load_ex(big, &o, &s, err, sizeof err) == SEALPROV_OK, "%s", err);
  ck_assert_int_eq(w.calls, 0);
  sp_srs_release(s);
  sp_srs_release(plain);
}
END_TEST

/* ---- a provider's loads ------------------------------------------------------------------ */

START_TEST(test_record_written_then_used) {
  char path[500], store[500], rec[4500], err[ERRLEN];
  work_copy("first", path, sizeof path, store, sizeof store);
  expect_full(path, store, "first load");
  ck_assert(logged("validation record ") && logged(" written"));
  /* the store: a secret and the record, readable and writable by the owner only */
  struct stat st;
  char secret[600];
  snprintf(secret, sizeof secret, "%s/%s", store, SP_VRECORD_SECRET);
  ck_assert_int_eq(stat(secret, &st), 0);
  ck_assert_uint_eq(st.st_mode & 0777, 0600);
  ck_assert_int_eq(st.st_size, SP_FDIGEST_SECRET_BYTES);
  record_path(store, path, rec, sizeof rec);
  ck_assert_int_eq(stat(rec, &st), 0);
  ck_assert_uint_eq(st.st_mode & 0777, 0600);
  size_t len;
  char *t = (char *)slurp(rec, &len);
  t[len] = '\0';
  ck_assert_msg(strncmp(t, "sealprov-validation-record 1\nvalidation_version 1\npath /", 56) == 0,
                "%s", t);
  free(t);

  /* a fresh provider: the record, and the same points as a load with every check */
  expect_record(path, store, "second load");
  prov p;
  char line[600];
  snprintf(line, sizeof line, "params_validation_cache = %s", store);
  prov_open(&p, line);
  sp_srs *a = NULL, *full = load_plain(path);
  ck_assert_msg(prov_load(&p, path, err, &a) == SEALPROV_OK, "%s", err);
  ck_assert_uint_eq(atomic_load(&p.stats.record), 1);
  ck_assert_uint_gt(atomic_load(&p.stats.digest_ns), 0);
  ck_assert_mem_eq(a->h, full->h, a->h_len * sizeof *a->h);
  ck_assert_mem_eq(a->b_g1, full->b_g1, a->b_g1_len * sizeof *a->b_g1);
  sp_srs_release(a);
  sp_srs_release(full);
  prov_close(&p);
}
END_TEST

/* Every change to the file makes the next load validate in full. */
START_TEST(test_changes_validate_in_full) {
  char path[500], store[500], err[ERRLEN], other[600];
  sp_params_stats st;
  work_copy("change", path, sizeof path, store, sizeof store);
  expect_full(path, store, "first load");
  expect_record(path, store, "unchanged");
  sp_srs *s = load_plain(path);
  size_t l0 = vec_start(s, 2), l_len = s->l_len;
  sp_srs_release(s);
  int fd = open(path, O_RDWR);
  ck_assert_int_ge(fd, 0);

  /* a touched mtime */
  struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1000000000, .tv_nsec = 5}};
  ck_assert_int_eq(futimens(fd, ts), 0);
  expect_full(path, store, "touched mtime");
  ck_assert(logged("stale: mtime_ns is "));
  expect_record(path, store, "after the touched mtime");

  /* truncated and extended again with the same bytes */
  size_t len;
  uint8_t *b = slurp(path, &len);
  ck_assert_int_eq(ftruncate(fd, (off_t)(len / 2)), 0);
  ck_assert_int_eq(pwrite(fd, b + len / 2, len - len / 2, (off_t)(len / 2)),
                   (ssize_t)(len - len / 2));
  expect_full(path, store, "truncated and re-extended");
  ck_assert(logged("stale: "));
  expect_record(path, store, "after the re-extension");

  /* a replaced inode: a copy renamed over it */
  snprintf(other, sizeof other, "%s.new", path);
  spit(other, b, len, 0644);
  ck_assert_int_eq(rename(other, path), 0);
  expect_full(path, store, "replaced inode");
  ck_assert(logged("stale: ino is "));
  expect_record(path, store, "after the replacement");
  close(fd);

  /* a flipped byte in the middle of vector l, the mtime put back: refused (the point
   * is off the curve), and never through the record */
  struct stat before;
  ck_assert_int_eq(stat(path, &before), 0);
  fd = open(path, O_RDWR);
  size_t at = l0 + (l_len / 2) * 96 + 50;
  uint8_t x = b[at] ^ 0x10;
  ck_assert_int_eq(pwrite(fd, &x, 1, (off_t)at), 1);
  struct timespec back[2] = {before.st_atim, before.st_mtim};
  ck_assert_int_eq(futimens(fd, back), 0);
  close(fd);
  ck_assert_int_eq(load_fresh(path, store, &st, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "vector l index"), "%s", err);
  ck_assert_uint_eq(atomic_load(&st.record), 0);
  ck_assert_msg(logged("stale: ctime_ns is "), "%s", log_text); /* utimensat set the ctime */
  /* the same with a record that matches every field (a change no stat shows, such as
   * bit rot): the digest refuses the record */
  uint8_t old[16];
  record_digest(store, path, old);
  forge_record(store, path, old);
  ck_assert_int_eq(load_fresh(path, store, &st, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "vector l index"), "%s", err);
  ck_assert_uint_eq(atomic_load(&st.record), 0);

  /* two points of l swapped (the file stays valid), every stat field of the record
   * matching: the digest differs, the load runs again with every check and succeeds */
  ck_assert_int_eq(pwrite(fd = open(path, O_RDWR), b + at, 1, (off_t)at), 1);
  uint8_t p3[96], p7[96];
  memcpy(p3, b + l0 + 3 * 96, 96);
  memcpy(p7, b + l0 + 7 * 96, 96);
  ck_assert_int_eq(pwrite(fd, p7, 96, (off_t)(l0 + 3 * 96)), 96);
  ck_assert_int_eq(pwrite(fd, p3, 96, (off_t)(l0 + 7 * 96)), 96);
  close(fd);
  forge_record(store, path, old);
  expect_full(path, store, "swapped points, every field matching");
  ck_assert(logged("digest differs from its validation record") && logged("loading again"));
  expect_record(path, store, "after the swap");
  free(b);
}
END_TEST

/* A point outside G1 and a record that matches every field of the crafted file: the
 * load is refused all the same. */
START_TEST(test_crafted_file_refused) {
  char path[500], store[500], err[ERRLEN];
  sp_params_stats st;
  work_copy("crafted", path, sizeof path, store, sizeof store);
  expect_full(path, store, "first load");
  uint8_t old[16];
  record_digest(store, path, old);
  sp_srs *s = load_plain(path);
  size_t at = vec_start(s, 4) + 2 * 96;
  sp_srs_release(s);
  g1_affine_t p;
  fp_t rhs, four;
  fp_from_u64(&four, 4);
  for (uint64_t x = 1;; x++) { /* a point of E(Fp) outside G1 */
    fp_from_u64(&p.x, x);
    fp_sqr(&rhs, &p.x);
    fp_mul(&rhs, &rhs, &p.x);
    fp_add(&rhs, &rhs, &four);
    if (fp_sqrt(&p.y, &rhs) && !g1_affine_in_subgroup(&p)) break;
  }
  uint8_t enc[96];
  g1_serialize(enc, &p);
  int fd = open(path, O_RDWR);
  ck_assert_int_eq(pwrite(fd, enc, 96, (off_t)at), 96);
  close(fd);
  forge_record(store, path, old);
  ck_assert_int_eq(load_fresh(path, store, &st, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "vector b_g1 index 2") && strstr(err, "subgroup"), "%s", err);
  ck_assert_uint_eq(atomic_load(&st.record), 0);
  ck_assert(logged("digest differs"));
}
END_TEST

/* Records and stores that must not be trusted, and records that are not records. */
START_TEST(test_forged_records) {
  char path[500], store[500], rec[4500], dir[600], secret[600], elsewhere[600];
  work_copy("forged", path, sizeof path, store, sizeof store);
  expect_full(path, store, "first load");
  record_path(store, path, rec, sizeof rec);
  snprintf(dir, sizeof dir, "%s/%s", store, SP_VRECORD_DIR);
  snprintf(secret, sizeof secret, "%s/%s", store, SP_VRECORD_SECRET);

  /* every field matching, another digest */
  uint8_t zero[16] = {0};
  forge_record(store, path, zero);
  expect_full(path, store, "wrong digest");
  ck_assert(logged("WARN ") && logged("digest differs"));
  expect_record(path, store, "rewritten after the wrong digest");

  /* writable by group or others */
  ck_assert_int_eq(chmod(rec, 0666), 0);
  expect_full(path, store, "record mode 0666");
  ck_assert(logged("WARN ") && logged("not trusted") && logged("mode 0666"));
  expect_record(path, store, "rewritten after mode 0666");

  /* garbage, a record cut short, one with a line too many */
  size_t len;
  uint8_t *good = slurp(rec, &len);
  const char *garbage = "\x01\xfe not a record at all\n";
  spit(rec, garbage, strlen(garbage), 0600);
  expect_full(path, store, "garbage");
  ck_assert(logged("WARN ") && logged("not a validation record"));
  spit(rec, good, len - 10, 0600);
  expect_full(path, store, "cut short");
  ck_assert(logged("not a validation record"));
  uint8_t *more = malloc(len + 8);
  memcpy(more, good, len);
  memcpy(more + len, "extra 1\n", 8);
  spit(rec, more, len + 8, 0600);
  expect_full(path, store, "a line too many");
  free(more);
  expect_record(path, store, "rewritten after garbage");

  /* a link to a good record, in place of the record */
  snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere.rec", root);
  free(good);
  good = slurp(rec, &len);
  spit(elsewhere, good, len, 0600);
  ck_assert_int_eq(unlink(rec), 0);
  ck_assert_int_eq(symlink(elsewhere, rec), 0);
  expect_full(path, store, "a link");
  ck_assert(logged("not trusted"));
  expect_record(path, store, "rewritten after the link");
  free(good);

  /* the folder writable by others; the secret readable by others */
  ck_assert_int_eq(chmod(dir, 0777), 0);
  expect_full(path, store, "records' folder mode 0777");
  ck_assert(logged("WARN ") && logged("validation records not used") && logged("mode 0777"));
  ck_assert_int_eq(chmod(dir, 0700), 0);
  ck_assert_int_eq(chmod(secret, 0644), 0);
  expect_full(path, store, "secret mode 0644");
  ck_assert(logged("WARN ") && logged("readable or writable by group or others"));
  ck_assert_int_eq(chmod(secret, 0600), 0);
  expect_record(path, store, "trusted again");

  /* the folder owned by another user (only root can make one) */
  if (geteuid() == 0) {
    ck_assert_int_eq(chown(dir, 12345, 12345), 0);
    expect_full(path, store, "records' folder of another user");
    ck_assert(logged("WARN ") && logged("owned by uid 12345"));
    ck_assert_int_eq(chown(dir, 0, 0), 0);
    expect_record(path, store, "owned by root again");
  }
}
END_TEST

/* A store that cannot be made or written: every point checked, no error, said once. */
START_TEST(test_store_unusable) {
  char path[500], store[500], afile[600], err[ERRLEN], line[800];
  work_copy("ro", path, sizeof path, store, sizeof store);
  snprintf(afile, sizeof afile, "%s/a-file", root);
  spit(afile, "x", 1, 0644);
  snprintf(line, sizeof line, "params_validation_cache = %s/store", afile);
  prov p;
  prov_open(&p, line);
  log_clear();
  ck_assert_msg(prov_load(&p, path, err, NULL) == SEALPROV_OK, "%s", err);
  ck_assert(logged("INFO ") && logged("validation records not used") && logged("Not a directory"));
  log_clear();
  ck_assert_msg(prov_load(&p, path, err, NULL) == SEALPROV_OK, "%s", err);
  ck_assert_msg(!logged("validation records not used"), "said twice:\n%s", log_text);
  ck_assert_uint_eq(atomic_load(&p.stats.full), 2);
  prov_close(&p);

  /* a store made read-only after its first record: used, never written, no error. Root
   * writes anywhere, so as root the rest runs as another user (this test's own
   * process: Check forks one per test) */
  if (geteuid() == 0) {
    const char *fork_env = getenv("CK_FORK");
    if (fork_env && strcmp(fork_env, "no") == 0) return;
    ck_assert_int_eq(chmod(root, 0755), 0);
    ck_assert_int_eq(setgid(65534), 0);
    ck_assert_int_eq(setuid(65534), 0);
    snprintf(ini_dir, sizeof ini_dir, "/tmp");
    snprintf(path, sizeof path, "/tmp/sp-validated-%d.params", (int)getpid());
    snprintf(store, sizeof store, "/tmp/sp-validated-%d.store", (int)getpid());
    size_t len;
    uint8_t *b = slurp(params, &len);
    spit(path, b, len, 0644);
    free(b);
  }
  char dir[600];
  snprintf(dir, sizeof dir, "%s/%s", store, SP_VRECORD_DIR);
  expect_full(path, store, "first load");
  ck_assert_int_eq(chmod(dir, 0500), 0);
  expect_record(path, store, "read-only store, unchanged file");
  struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 2000000000}};
  ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
  sp_params_stats st;
  ck_assert_msg(load_fresh(path, store, &st, err) == SEALPROV_OK, "%s", err);
  ck_assert_uint_eq(atomic_load(&st.full), 1);
  ck_assert_uint_eq(atomic_load(&st.records_written), 0);
  ck_assert_msg(logged("no validation record written") && logged("read-only"), "%s", log_text);
  ck_assert_int_eq(chmod(dir, 0700), 0);
  if (strncmp(path, "/tmp/sp-validated-", 18) == 0) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '/tmp/p-%d.ini'", path, store, (int)getpid());
    ck_assert_int_eq(system(cmd), 0);
  }
}
END_TEST

/* params_subgroup_check = false, params_validation_cache = off: no store, no record. */
START_TEST(test_off) {
  char path[500], store[500], err[ERRLEN], line[800];
  work_copy("off", path, sizeof path, store, sizeof store);
  struct {
    const char *lines;
    bool unchecked;
  } cases[] = {{"params_subgroup_check = false\nparams_validation_cache = %s", true},
               {"params_validation_cache = off", false}};
  for (int i = 0; i < 2; i++) {
    snprintf(line, sizeof line, cases[i].lines, store);
    prov p;
    prov_open(&p, line);
    ck_assert_msg(prov_load(&p, path, err, NULL) == SEALPROV_OK, "%s", err);
    ck_assert_msg(prov_load(&p, path, err, NULL) == SEALPROV_OK, "%s", err);
    ck_assert_uint_eq(atomic_load(cases[i].unchecked ? &p.stats.unchecked : &p.stats.full), 2);
    ck_assert_uint_eq(atomic_load(&p.stats.record), 0);
    ck_assert_int_eq(access(store, F_OK), -1); /* nothing was made */
    prov_close(&p);
  }
}
END_TEST

/* auto: $XDG_CACHE_HOME/sealprov, else /var/cache/sealprov (root) or ~/.cache/sealprov. */
START_TEST(test_default_root) {
  char buf[4096], why[256];
  ck_assert_int_eq(setenv("XDG_CACHE_HOME", "/x/cache", 1), 0);
  ck_assert(sp_vrecord_default_root(buf, sizeof buf, why, sizeof why));
  ck_assert_str_eq(buf, "/x/cache/sealprov");
  ck_assert_int_eq(setenv("XDG_CACHE_HOME", "relative", 1), 0); /* not absolute: ignored */
  ck_assert_int_eq(setenv("HOME", "/home/h", 1), 0);
  ck_assert(sp_vrecord_default_root(buf, sizeof buf, why, sizeof why));
  ck_assert_str_eq(buf, geteuid() == 0 ? "/var/cache/sealprov" : "/home/h/.cache/sealprov");
}
END_TEST

/* Processes (threads here) writing the same record at once: whole records only, the
 * last rename wins, no temporary file left behind. */
typedef struct writer {
  const char *store, *canon;
  const sp_file_id *id;
  int ok;
} writer;

static void *write_many(void *arg) {
  writer *w = arg;
  char why[512];
  int level;
  sp_vrecord_store *s = sp_vrecord_open(w->store, &level, why, sizeof why);
  for (int i = 0; s && i < 25; i++) {
    uint8_t d[16];
    memset(d, i + 1, sizeof d);
    w->ok += sp_vrecord_write(s, w->canon, w->id, d, why, sizeof why) == SEALPROV_OK;
  }
  sp_vrecord_close(s);
  return NULL;
}

START_TEST(test_concurrent_writers) {
  char path[500], store[500], canon[4096], why[512], dir[600];
  work_copy("race", path, sizeof path, store, sizeof store);
  ck_assert_ptr_nonnull(realpath(path, canon));
  sp_file_id id;
  file_id(path, &id);
  pthread_t th[4];
  writer w[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (writer){.store = store, .canon = canon, .id = &id};
    ck_assert_int_eq(pthread_create(&th[i], NULL, write_many, &w[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    ck_assert_int_eq(w[i].ok, 25);
  }
  int level;
  uint8_t d[16];
  sp_vrecord_store *s = sp_vrecord_open(store, &level, why, sizeof why);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(sp_vrecord_lookup(s, canon, &id, d, why, sizeof why), SP_VREC_MATCH);
  ck_assert(d[0] >= 1 && d[0] <= 25 && d[15] == d[0]);
  sp_file_id other = id;
  other.size++;
  ck_assert_int_eq(sp_vrecord_lookup(s, canon, &other, d, why, sizeof why), SP_VREC_STALE);
  ck_assert_msg(strstr(why, "stale: size is "), "%s", why);
  sp_vrecord_close(s);
  snprintf(dir, sizeof dir, "ls -A '%s/%s' | grep -c . | grep -qx 1", store, SP_VRECORD_DIR);
  ck_assert_msg(system(dir) == 0, "a temporary file was left in %s/%s", store, SP_VRECORD_DIR);
}
END_TEST

/* ---- main ------------------------------------------------------------------------------ */

static int make_setup(const char *sub, uint64_t constraints, char *out, size_t len) {
  char dir[300], err[ERRLEN];
  snprintf(dir, sizeof dir, "%s/%s", root, sub);
  if (mkdir(dir, 0755) != 0) return -1;
  sp_setup_result res;
  sp_setup_opts so = {.constraints = constraints,
                      .inputs = 4,
                      .partitions = 1,
                      .shape = SP_SHAPE_SEALING,
                      .seed = 33,
                      .out_dir = dir,
                      .nthreads = 2};
  if (sp_setup_run(&so, &res, err, sizeof err) != SEALPROV_OK) {
    fprintf(stderr, "setup: %s\n", err);
    return -1;
  }
  snprintf(out, len, "%s/circuit.params", dir);
  return 0;
}

int main(void) {
  const char *t = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/sp_validated_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(root)) {
    perror(root);
    return EXIT_FAILURE;
  }
  snprintf(ini_dir, sizeof ini_dir, "%s", root);
  if (make_setup("small", 250, params, sizeof params) || make_setup("big", 3000, big, sizeof big))
    return EXIT_FAILURE;
  sealprov_host host = {.struct_size = sizeof host, .log_level = SEALPROV_LOG_DEBUG, .log = log_cb};
  sp_log_set_host(&host);

  Suite *s = suite_create("validated");
  TCase *tc = tcase_create("validated");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_digest_blocks);
  tcase_add_test(tc, test_loader_digest);
  tcase_add_test(tc, test_record_written_then_used);
  tcase_add_test(tc, test_changes_validate_in_full);
  tcase_add_test(tc, test_crafted_file_refused);
  tcase_add_test(tc, test_forged_records);
  tcase_add_test(tc, test_store_unusable);
  tcase_add_test(tc, test_off);
  tcase_add_test(tc, test_default_root);
  tcase_add_test(tc, test_concurrent_writers);
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
