/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_shimage.c -- the shared image of a parameter set (formats/shimage.h): made once
 * under its lock and mapped by another process; refused when its folder or itself could
 * have been written by others, when its source changed (then rebuilt), when truncated or
 * damaged; a folder too small for it said up front; temporary files of dead creators
 * removed.
 *
 * The source here is a small file of arbitrary bytes: the image ties itself to the
 * file's identity and the digest it is given, never reads it. Each case works in its
 * own folder. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bls12_381/bls12_381.h"
#include "formats/shimage.h"
#include "sealprov.h"

#define WHY 2048

static char root[256];
static int case_no;

typedef struct fixture {
  char dir[300], src_path[300];
  sp_shimage_src src;
  sp_shimage_layout lay;
  sp_shimage_dir *d;
} fixture;

/* The source's identity now (what a load's fstat gives). */
static void restat(fixture *f) {
  struct stat st;
  ck_assert_int_eq(stat(f->src_path, &st), 0);
  f->src.id =
      (sp_file_id){.dev = (uint64_t)st.st_dev,
                   .ino = (uint64_t)st.st_ino,
                   .size = (uint64_t)st.st_size,
                   .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
                   .ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec};
}

static void setup_case(fixture *f) {
  memset(f, 0, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "%s/case%d/images", root, ++case_no);
  snprintf(f->src_path, sizeof f->src_path, "%s/case%d/src.params", root, case_no);
  char parent[300];
  snprintf(parent, sizeof parent, "%s/case%d", root, case_no);
  ck_assert_int_eq(mkdir(parent, 0700), 0);
  FILE *fp = fopen(f->src_path, "wb");
  ck_assert_ptr_nonnull(fp);
  fputs("not really parameters", fp);
  fclose(fp);
  f->src.path = f->src_path;
  f->src.checks = SP_SHIMAGE_SUBGROUP;
  memset(f->src.digest, 0xa5, sizeof f->src.digest);
  restat(f);
  f->lay = (sp_shimage_layout){.len = {7, 5, 3, 2, 4}, .log_domain = 3};
  bool untrusted = true;
  char why[WHY];
  f->d = sp_shimage_dir_open(f->dir, &untrusted, why, sizeof why);
  ck_assert_msg(f->d != NULL, "%s", why);
  ck_assert(!untrusted);
}

static size_t vec_bytes(const sp_shimage_layout *lay, int v) {
  return lay->len[v] * (v == 4 ? sizeof(g2_affine_t) : sizeof(g1_affine_t));
}

static uint8_t pattern(int v, size_t i) { return (uint8_t)(i * 31 + (size_t)v * 7 + 1); }

/* Makes the image of f's source with the test pattern: the mapped read-only image. */
static sp_shimage *make(fixture *f) {
  char why[WHY];
  sp_shimage *w = NULL, *found = NULL, *ro = NULL;
  ck_assert_msg(
      sp_shimage_begin(f->d, &f->src, &f->lay, &w, &found, why, sizeof why) == SEALPROV_OK, "%s",
      why);
  ck_assert_ptr_null(found);
  ck_assert_ptr_nonnull(w);
  for (int v = 0; v < SP_SHIMAGE_VECTORS; v++)
    for (size_t i = 0; i < vec_bytes(&f->lay, v); i++) ((uint8_t *)w->vec[v])[i] = pattern(v, i);
  ck_assert_msg(sp_shimage_commit(f->d, &f->src, w, &ro, why, sizeof why) == SEALPROV_OK, "%s",
                why);
  return ro;
}

/* Whether m holds the test pattern in f's layout. */
static bool holds_pattern(const fixture *f, const sp_shimage *m) {
  if (memcmp(&m->layout, &f->lay, sizeof f->lay) != 0) return false;
  for (int v = 0; v < SP_SHIMAGE_VECTORS; v++)
    for (size_t i = 0; i < vec_bytes(&f->lay, v); i++)
      if (((const uint8_t *)m->vec[v])[i] != pattern(v, i)) return false;
  return true;
}

static void image_path(const fixture *f, char *buf, size_t len) {
  char name[48];
  sp_shimage_name(f->src_path, name);
  snprintf(buf, len, "%s/%s", f->dir, name);
}

static sp_shimage_verdict map_why(fixture *f, char *why) {
  sp_shimage *m = NULL;
  sp_shimage_verdict vd = sp_shimage_map(f->d, &f->src, &f->lay, &m, why, WHY);
  ck_assert(vd == SP_SHIMG_MATCH ? m != NULL : m == NULL);
  sp_shimage_unmap(m);
  return vd;
}

static void teardown_case(fixture *f) { sp_shimage_dir_close(f->d); }

/* ---- cases ----------------------------------------------------------------------------- */

START_TEST(made_once_mapped_elsewhere) {
  fixture f;
  setup_case(&f);
  char why[WHY];
  sp_shimage *m = NULL;
  ck_assert_int_eq(sp_shimage_map(f.d, &f.src, &f.lay, &m, why, sizeof why), SP_SHIMG_NONE);
  sp_shimage *ro = make(&f);
  ck_assert(holds_pattern(&f, ro));
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) { /* another process of the host: its own folder handle and mapping */
    bool untrusted;
    sp_shimage_dir *d = sp_shimage_dir_open(f.dir, &untrusted, why, sizeof why);
    sp_shimage *c = NULL;
    bool ok = d != NULL &&
              sp_shimage_map(d, &f.src, &f.lay, &c, why, sizeof why) == SP_SHIMG_MATCH &&
              holds_pattern(&f, c);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  /* a process that waited on the lock finds the image made meanwhile, makes none */
  sp_shimage *w = NULL, *found = NULL;
  ck_assert_int_eq(sp_shimage_begin(f.d, &f.src, &f.lay, &w, &found, why, sizeof why), SEALPROV_OK);
  ck_assert_ptr_null(w);
  ck_assert(found != NULL && holds_pattern(&f, found));
  sp_shimage_unmap(found);
  sp_shimage_unmap(ro);
  teardown_case(&f);
}
END_TEST

START_TEST(untrusted_refused_not_rebuilt) {
  fixture f;
  setup_case(&f);
  char why[WHY], img[400];
  sp_shimage_unmap(make(&f));
  image_path(&f, img, sizeof img);
  ck_assert_int_eq(chmod(img, 0666), 0);
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_UNTRUSTED);
  ck_assert_msg(strstr(why, "has mode 0666: writable by group or others") != NULL, "%s", why);
  sp_shimage *w = NULL, *found = NULL;
  ck_assert_int_eq(sp_shimage_begin(f.d, &f.src, &f.lay, &w, &found, why, sizeof why),
                   SEALPROV_ERR_IO);
  ck_assert(w == NULL && found == NULL);
  struct stat st;
  ck_assert_int_eq(stat(img, &st), 0);
  ck_assert_uint_eq(st.st_mode & 0777, 0666); /* left as it was */
  ck_assert_int_eq(chmod(img, 0644), 0);
  if (geteuid() == 0) { /* only root can give a file to another user */
    ck_assert_int_eq(chown(img, 12345, 12345), 0);
    ck_assert_int_eq(map_why(&f, why), SP_SHIMG_UNTRUSTED);
    ck_assert_msg(strstr(why, "owned by uid 12345") != NULL, "%s", why);
    ck_assert_int_eq(chown(img, 0, 0), 0);
  }
  /* a link where the image should be */
  char moved[420];
  snprintf(moved, sizeof moved, "%s.real", img);
  ck_assert_int_eq(rename(img, moved), 0);
  ck_assert_int_eq(symlink(moved, img), 0);
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_UNTRUSTED);
  teardown_case(&f);
  /* a folder writable by others */
  ck_assert_int_eq(chmod(f.dir, 0777), 0);
  bool untrusted = false;
  ck_assert_ptr_null(sp_shimage_dir_open(f.dir, &untrusted, why, sizeof why));
  ck_assert(untrusted);
  ck_assert_msg(strstr(why, "writable by group or others") != NULL, "%s", why);
}
END_TEST

START_TEST(changed_source_rebuilt) {
  fixture f;
  setup_case(&f);
  char why[WHY];
  sp_shimage *old = make(&f);
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_MATCH);
  struct timespec t[2] = {{.tv_sec = 1000000000, .tv_nsec = 1},
                          {.tv_sec = 1000000000, .tv_nsec = 1}};
  ck_assert_int_eq(utimensat(AT_FDCWD, f.src_path, t, 0), 0);
  restat(&f);
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_STALE);
  ck_assert_msg(strstr(why, "stale: its mtime_ns differs") != NULL, "%s", why);
  sp_shimage *now = make(&f); /* rebuilt and renamed over the old */
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_MATCH);
  ck_assert(holds_pattern(&f, old)); /* a process mapping the old one keeps it whole */
  sp_shimage_unmap(old);
  sp_shimage_unmap(now);
  f.src.digest[3] ^= 1; /* the validation record's digest changed */
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_STALE);
  ck_assert_msg(strstr(why, "its digest differs") != NULL, "%s", why);
  f.src.digest[3] ^= 1;
  f.lay.len[1]++;
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_STALE);
  ck_assert_msg(strstr(why, "vector lengths") != NULL, "%s", why);
  f.lay.len[1]--;
  teardown_case(&f);
}
END_TEST

START_TEST(unchecked_image_serves_no_checked_load) {
  fixture f;
  setup_case(&f);
  char why[WHY];
  f.src.checks = SP_SHIMAGE_CURVE;
  sp_shimage_unmap(make(&f));
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_MATCH);
  f.src.checks = SP_SHIMAGE_SUBGROUP;
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_STALE);
  ck_assert_msg(strstr(why, "params_subgroup_check = false") != NULL, "%s", why);
  teardown_case(&f);
}
END_TEST

START_TEST(truncated_or_damaged_refused) {
  fixture f;
  setup_case(&f);
  char why[WHY], img[400];
  sp_shimage *m = make(&f);
  off_t total = (off_t)m->bytes;
  sp_shimage_unmap(m);
  image_path(&f, img, sizeof img);
  ck_assert_int_eq(truncate(img, total - SP_SHIMAGE_ALIGN), 0);
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_BAD);
  ck_assert_msg(strstr(why, "truncated or extended") != NULL, "%s", why);
  ck_assert_int_eq(truncate(img, 100), 0);
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_BAD);
  ck_assert_msg(strstr(why, "truncated: 100 bytes") != NULL, "%s", why);
  sp_shimage_unmap(make(&f)); /* a bad image is rebuilt */
  int fd = open(img, O_RDWR);
  ck_assert_int_ge(fd, 0);
  uint8_t b = 0;
  ck_assert_int_eq(pread(fd, &b, 1, 100), 1); /* a byte of the header's identity */
  b ^= 0x40;
  ck_assert_int_eq(pwrite(fd, &b, 1, 100), 1);
  close(fd);
  ck_assert_int_eq(map_why(&f, why), SP_SHIMG_BAD);
  ck_assert_msg(strstr(why, "damaged") != NULL, "%s", why);
  teardown_case(&f);
}
END_TEST

START_TEST(too_small_said_and_temps_removed) {
  fixture f;
  setup_case(&f);
  char why[WHY], name[48], dead[400];
  sp_shimage_name(f.src_path, name);
  snprintf(dead, sizeof dead, "%s/.%s.999999.tmp", f.dir, name);
  FILE *fp = fopen(dead, "wb");
  ck_assert_ptr_nonnull(fp);
  fclose(fp);
  sp_shimage_layout huge = f.lay;
  huge.len[0] = (uint64_t)1 << 50; /* 96 PiB of h: no folder has it */
  sp_shimage *w = NULL, *found = NULL;
  ck_assert_int_eq(sp_shimage_begin(f.d, &f.src, &huge, &w, &found, why, sizeof why),
                   SEALPROV_ERR_NO_MEMORY);
  ck_assert_msg(strstr(why, "the image needs 108086391056912384 bytes") != NULL, "%s", why);
  ck_assert(w == NULL && found == NULL);
  ck_assert_int_eq(access(dead, F_OK), -1); /* removed under the lock */
  char img[400];
  image_path(&f, img, sizeof img);
  ck_assert_int_eq(access(img, F_OK), -1); /* nothing left of the failed attempt */
  teardown_case(&f);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("shimage");
  TCase *tc = tcase_create("image");
  tcase_add_test(tc, made_once_mapped_elsewhere);
  tcase_add_test(tc, untrusted_refused_not_rebuilt);
  tcase_add_test(tc, changed_source_rebuilt);
  tcase_add_test(tc, unchecked_image_serves_no_checked_load);
  tcase_add_test(tc, truncated_or_damaged_refused);
  tcase_add_test(tc, too_small_said_and_temps_removed);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/sp-shimage-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
  if (mkdtemp(root) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  SRunner *sr = srunner_create(suite());
  srunner_set_fork_status(sr, CK_NOFORK); /* case numbers and folders stay unique */
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (failed == 0 && system(cmd) != 0) return 1;
  return failed == 0 ? 0 : 1;
}
