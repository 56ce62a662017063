/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_params_image.c -- one copy of the parameters per host: a provider's .params loads
 * with [provider] params_shared_image (runtime/params_image.c over formats/shimage.c).
 *
 * A provider here is sp_params_load with a configuration read from an INI file and
 * counters of its own, on a CPU device (the host load); another process of the host is
 * a forked child with a fresh provider. The first load validates the file, writes its
 * record and makes the image; a later one, in any process, maps it: its counters say
 * "mapped", its set holds no proving vector of its own, and its proofs are the bytes of
 * a load without the image. Every change of the file, every forged, stale or foreign
 * image, and an image others could have written send the load back to the file (and a
 * trusted image is made again); a folder that cannot take an image is no error. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

#include "../common/log_capture.h"
#include "base/log.h"
#include "bls12_381/bls12_381.h"
#include "circuit.h"
#include "formats/shimage.h"
#include "formats/srs.h"
#include "groth16/groth16.h"
#include "runtime/device_table.h"
#include "runtime/params.h"
#include "spa.h"

#define ERRLEN 2048

static char root[256], params[400], spa_file[400];

/* ---- helpers ------------------------------------------------------------------------- */

static void copy_file(const char *from, const char *to, mode_t mode) {
  char cmd[2400];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod %o '%s'", from, to, (unsigned)mode, to);
  ck_assert_int_eq(system(cmd), 0);
}

/* A case's files: its own copy of the parameters, record store and image folder. */
typedef struct files {
  char path[500], store[500], dir[500], img[600];
} files;

static void case_files(const char *name, files *f) {
  snprintf(f->path, sizeof f->path, "%s/%s.params", root, name);
  snprintf(f->store, sizeof f->store, "%s/%s.store", root, name);
  snprintf(f->dir, sizeof f->dir, "%s/%s.images", root, name);
  copy_file(params, f->path, 0644);
  char canon[4096], name_img[48];
  ck_assert_ptr_nonnull(realpath(f->path, canon));
  sp_shimage_name(canon, name_img);
  snprintf(f->img, sizeof f->img, "%s/%s", f->dir, name_img);
}

/* One load by a fresh provider with the image in f->dir (image = false: off). The set
 * when srs is given (else released), what the provider counted in *st. */
static int load_fresh(const files *f, bool image, sp_params_stats *st, sp_srs **srs, char *err) {
  char ini[600], text[2048];
  snprintf(ini, sizeof ini, "%s/p-%d.ini", root, (int)getpid());
  snprintf(text, sizeof text,
           "[provider]\nload_threads = 2\nparams_validation_cache = %s\n%s%s\n[cpu0]\ntype = cpu\n",
           f->store, image ? "params_shared_image = " : "", image ? f->dir : "");
  FILE *fp = fopen(ini, "w");
  ck_assert_ptr_nonnull(fp);
  fputs(text, fp);
  fclose(fp);
  sp_config *cfg = calloc(1, sizeof *cfg);
  ck_assert_ptr_nonnull(cfg);
  ck_assert_msg(sp_config_load(ini, cfg, err, ERRLEN) == SEALPROV_OK, "%s", err);
  memset(st, 0, sizeof *st);
  log_clear();
  sp_srs *s = NULL;
  err[0] = '\0';
  int rc = sp_params_load(cfg, f->path, false, st, &s, err, ERRLEN);
  free(cfg);
  if (srs)
    *srs = s;
  else
    sp_srs_release(s);
  return rc;
}

#define N_(c) atomic_load(&(c))

/* The next load maps the image: no vector read, none of its own. */
static void expect_mapped(const files *f, const char *why) {
  char err[ERRLEN];
  sp_params_stats st;
  sp_srs *s = NULL;
  ck_assert_msg(load_fresh(f, true, &st, &s, err) == SEALPROV_OK, "%s: %s", why, err);
  ck_assert_msg(
      N_(st.image_mapped) == 1 && N_(st.image_made) == 0 && N_(st.full) == 0 && N_(st.record) == 0,
      "%s: not mapped\n%s", why, log_text);
  ck_assert(s->image_bytes > 0 && s->host_bytes == 0 && s->image_path != NULL);
  ck_assert_msg(strstr(s->image_path, f->dir) == s->image_path, "%s", s->image_path);
  sp_srs_release(s);
}

/* The next load reads the file (validated in full when full, else through its record),
 * refuses the image it found (when refused) and makes a new one. */
static void expect_remade(const files *f, bool full, bool refused, const char *why) {
  char err[ERRLEN];
  sp_params_stats st;
  ck_assert_msg(load_fresh(f, true, &st, NULL, err) == SEALPROV_OK, "%s: %s", why, err);
  ck_assert_msg(N_(st.image_mapped) == 0 && N_(st.image_made) == 1 &&
                    N_(st.image_refused) == (refused ? 1u : 0u) &&
                    (full ? N_(st.full) : N_(st.record)) == 1,
                "%s: not read from the file and made again\n%s", why, log_text);
}

/* The next load reads the file into its own memory: no image made or used. */
static void expect_own(const files *f, const char *why) {
  char err[ERRLEN];
  sp_params_stats st;
  sp_srs *s = NULL;
  ck_assert_msg(load_fresh(f, true, &st, &s, err) == SEALPROV_OK, "%s: %s", why, err);
  ck_assert_msg(N_(st.image_mapped) == 0 && N_(st.image_made) == 0 && s->image_bytes == 0 &&
                    s->host_bytes > 0,
                "%s: an image was used\n%s", why, log_text);
  sp_srs_release(s);
}

/* The case's partition proved with r = s = 0 on set s: 192 bytes, checked. */
static void prove(const sp_srs *s, uint8_t proof[192]) {
  char err[ERRLEN];
  sp_spa *spa = NULL;
  ck_assert_msg(sp_spa_read(spa_file, &spa, err, sizeof err) == SEALPROV_OK, "%s", err);
  ck_assert_msg(sp_groth16_prove(s, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, &FR_ZERO, &FR_ZERO, 2,
                                 proof, err, sizeof err) == SEALPROV_OK,
                "%s", err);
  bool valid = false;
  ck_assert_int_eq(
      sp_groth16_verify(s, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, proof, &valid, err, sizeof err),
      SEALPROV_OK);
  ck_assert(valid);
  sp_spa_free(spa);
}

/* The host-memory list of live sets: what the process holds of s. */
typedef struct seen {
  const sp_srs *want;
  uint64_t image, own;
} seen;

static void seen_set(void *user, const sp_srs *s) {
  seen *w = user;
  if (s != w->want) return;
  w->image += s->image_bytes;
  w->own += s->host_bytes;
}

/* Rewrites the image's header (with its hash recomputed, as a forger would). */
static void forge_header(const char *img, void (*change)(sp_shimage_header *h)) {
  int fd = open(img, O_RDWR);
  ck_assert_int_ge(fd, 0);
  sp_shimage_header h;
  ck_assert_int_eq(pread(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
  change(&h);
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(&h, offsetof(sp_shimage_header, hash)));
  memcpy(h.hash, c.digest, sizeof h.hash);
  ck_assert_int_eq(pwrite(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
  close(fd);
}

static void other_digest(sp_shimage_header *h) { h->digest[5] ^= 1; }

/* ---- cases ----------------------------------------------------------------------------- */

/* Made by the first load; mapped by another process, whose proofs are those of a load
 * without the image. */
START_TEST(made_then_mapped_elsewhere) {
  files f;
  case_files("first", &f);
  char err[ERRLEN];
  sp_params_stats st;
  sp_srs *off = NULL, *made = NULL;
  uint8_t want[192], got[192];
  ck_assert_msg(load_fresh(&f, false, &st, &off, err) == SEALPROV_OK, "%s", err);
  ck_assert(off->image_bytes == 0 && off->host_bytes > 0);
  prove(off, want);
  sp_srs_release(off);
  ck_assert_int_eq(access(f.dir, F_OK), -1); /* off: no folder made */

  ck_assert_msg(load_fresh(&f, true, &st, &made, err) == SEALPROV_OK, "%s", err);
  ck_assert_msg(N_(st.image_made) == 1 && N_(st.record) == 1, "%s", log_text);
  ck_assert(logged("made (") && logged("the next loads of this file on this host map it"));
  ck_assert(made->image_bytes > 0 && made->host_bytes == 0);
  prove(made, got);
  ck_assert_mem_eq(got, want, 192);
  seen w = {.want = made};
  sp_srs_host_memory(seen_set, &w);
  ck_assert(w.image == made->image_bytes && w.own == 0);
  struct stat sb;
  ck_assert_int_eq(stat(f.img, &sb), 0);
  ck_assert_uint_eq(sb.st_mode & 0777, 0644);
  ck_assert_int_eq(stat(f.dir, &sb), 0);
  ck_assert_uint_eq(sb.st_mode & 0777, 0700);

  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) { /* another process of the host */
    sp_srs *m = NULL;
    uint8_t p[192];
    bool ok = load_fresh(&f, true, &st, &m, err) == SEALPROV_OK && N_(st.image_mapped) == 1 &&
              N_(st.full) + N_(st.record) == 0 && m->host_bytes == 0 && m->image_bytes > 0;
    if (ok) prove(m, p);
    _exit(ok && memcmp(p, want, 192) == 0 ? 0 : 1);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the other process did not map it");
  sp_srs_release(made);
  expect_mapped(&f, "a third load");
  ck_assert(logged("mapped (") && logged("none held by this process"));
}
END_TEST

/* Processes starting at once: one makes the image, the others wait for it and map it. */
START_TEST(racing_loads_make_one) {
  files f;
  case_files("race", &f);
  enum { KIDS = 3 };
  int go[2], res[2];
  ck_assert_int_eq(pipe(go), 0);
  ck_assert_int_eq(pipe(res), 0);
  pid_t kid[KIDS];
  for (int i = 0; i < KIDS; i++) {
    kid[i] = fork();
    ck_assert_int_ge(kid[i], 0);
    if (kid[i] == 0) {
      char c, err[ERRLEN];
      sp_params_stats st;
      close(go[1]);
      if (read(go[0], &c, 1) != 0) _exit(2); /* all start when the parent closes it */
      int rc = load_fresh(&f, true, &st, NULL, err);
      char line[2] = {rc != SEALPROV_OK          ? 'e'
                      : N_(st.image_made) == 1   ? 'm'
                      : N_(st.image_mapped) == 1 ? 'p'
                                                 : 'o',
                      '\n'};
      _exit(write(res[1], line, 2) == 2 ? 0 : 3);
    }
  }
  close(go[0]);
  close(go[1]);
  close(res[1]);
  char out[64] = "";
  size_t n = 0;
  for (ssize_t r; n < sizeof out - 1 && (r = read(res[0], out + n, sizeof out - 1 - n)) > 0;)
    n += (size_t)r;
  close(res[0]);
  for (int i = 0; i < KIDS; i++) {
    int status = 0;
    ck_assert_int_eq(waitpid(kid[i], &status, 0), kid[i]);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  int made = 0, mapped = 0;
  for (size_t i = 0; i < n; i++) {
    made += out[i] == 'm';
    mapped += out[i] == 'p';
  }
  ck_assert_msg(made == 1 && mapped == KIDS - 1, "made %d, mapped %d: %s", made, mapped, out);
  char cmd[700]; /* no temporary file left behind */
  snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c tmp | grep -qx 0", f.dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A changed .params file: never the old image; validated in full and made again. */
START_TEST(changed_file_never_mapped) {
  files f;
  case_files("change", &f);
  expect_remade(&f, true, false, "first load");
  expect_mapped(&f, "unchanged");
  int fd = open(f.path, O_RDWR);
  ck_assert_int_ge(fd, 0);
  struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1000000000, .tv_nsec = 5}};
  ck_assert_int_eq(futimens(fd, ts), 0);
  expect_remade(&f, true, true, "touched mtime");
  ck_assert(logged("is stale"));
  expect_mapped(&f, "after the touched mtime");

  struct stat sb;
  ck_assert_int_eq(fstat(fd, &sb), 0);
  size_t len = (size_t)sb.st_size;
  uint8_t *b = malloc(len);
  ck_assert_int_eq(pread(fd, b, len, 0), (ssize_t)len);
  ck_assert_int_eq(ftruncate(fd, (off_t)(len / 2)), 0);
  ck_assert_int_eq(pwrite(fd, b + len / 2, len - len / 2, (off_t)(len / 2)),
                   (ssize_t)(len - len / 2));
  expect_remade(&f, true, true, "truncated and re-extended");
  expect_mapped(&f, "after the re-extension");

  char other[600];
  snprintf(other, sizeof other, "%s.new", f.path);
  copy_file(f.path, other, 0644);
  ck_assert_int_eq(rename(other, f.path), 0);
  expect_remade(&f, true, true, "replaced inode");
  expect_mapped(&f, "after the replacement");
  close(fd);

  /* a flipped byte of the last point of b_g1, the mtime put back: the load refuses the
   * file, and no image of it is left */
  ck_assert_int_eq(stat(f.path, &sb), 0);
  fd = open(f.path, O_RDWR);
  sp_srs_lengths lens;
  ck_assert_int_eq(sp_srs_peek_lengths(f.path, &lens), SEALPROV_OK);
  size_t at = len - lens.b_g2_len * 192 - 4 - 96 + 40; /* inside b_g1's last point */
  uint8_t x = b[at] ^ 0x10;
  ck_assert_int_eq(pwrite(fd, &x, 1, (off_t)at), 1);
  struct timespec back[2] = {sb.st_atim, sb.st_mtim};
  ck_assert_int_eq(futimens(fd, back), 0);
  close(fd);
  char err[ERRLEN];
  sp_params_stats st;
  ck_assert_int_eq(load_fresh(&f, true, &st, NULL, err), SEALPROV_ERR_PARAMS);
  ck_assert_msg(strstr(err, "vector b_g"), "%s", err);
  ck_assert(N_(st.image_mapped) == 0 && N_(st.image_made) == 0);
  ck_assert(logged("is stale"));
  free(b);
}
END_TEST

/* Images that are not what they claim, or of another file: refused, the file read, a
 * trusted image made again. */
START_TEST(forged_and_foreign_images_refused) {
  files f, g;
  case_files("forged", &f);
  expect_remade(&f, true, false, "first load");
  int fd = open(f.img, O_RDWR); /* a damaged header */
  uint8_t x;
  ck_assert_int_eq(pread(fd, &x, 1, 90), 1);
  x ^= 4;
  ck_assert_int_eq(pwrite(fd, &x, 1, 90), 1);
  close(fd);
  expect_remade(&f, false, true, "damaged header");
  ck_assert(logged("WARN ") && logged("is not a whole image"));
  expect_mapped(&f, "after the damaged header");
  forge_header(f.img, other_digest); /* whole, but of other bytes */
  expect_remade(&f, false, true, "forged digest");
  ck_assert(logged("its digest differs"));
  expect_mapped(&f, "after the forged digest");

  /* the image of another .params file under this one's name */
  case_files("foreign", &g);
  snprintf(g.dir, sizeof g.dir, "%s", f.dir);
  expect_remade(&g, true, false, "the other file's first load");
  char g_img[700];
  char canon[4096], name[48];
  ck_assert_ptr_nonnull(realpath(g.path, canon));
  sp_shimage_name(canon, name);
  snprintf(g_img, sizeof g_img, "%s/%s", f.dir, name);
  ck_assert_int_eq(rename(g_img, f.img), 0);
  expect_remade(&f, false, true, "another file's image");
  ck_assert(logged("its path differs"));
  expect_mapped(&f, "after the foreign image");
}
END_TEST

/* An image (or its folder) that others could have written: never used, never replaced. */
START_TEST(untrusted_image_not_used) {
  files f;
  case_files("untrusted", &f);
  expect_remade(&f, true, false, "first load");
  static const mode_t modes[] = {0666, 0664, 0646};
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(chmod(f.img, modes[i]), 0);
    expect_own(&f, "writable by others");
    ck_assert(logged("WARN ") && logged("is not trusted") && logged("neither used nor replaced"));
    struct stat sb;
    ck_assert_int_eq(stat(f.img, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 0777, modes[i]);
  }
  ck_assert_int_eq(chmod(f.img, 0644), 0);
  expect_mapped(&f, "trusted again");
  ck_assert_int_eq(chmod(f.dir, 0770), 0);
  expect_own(&f, "folder writable by its group");
  ck_assert(logged("WARN ") && logged("its folder cannot be used") && logged(f.dir));
  ck_assert_int_eq(chmod(f.dir, 0700), 0);
  if (geteuid() == 0) { /* only root can give a file to another user */
    ck_assert_int_eq(chown(f.img, 12345, 12345), 0);
    expect_own(&f, "owned by another user");
    ck_assert(logged("owned by uid 12345"));
  }
}
END_TEST

/* A folder that cannot take the image: the load goes on with its own copy, a warning
 * names the folder. Read-only: as root (who writes anywhere) the load runs as another
 * user in a child. Full: a file size limit makes the reservation fail as ENOSPC would. */
START_TEST(unusable_folder_no_error) {
  files f;
  case_files("ro", &f);
  ck_assert_int_eq(mkdir(f.dir, 0700), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    if (geteuid() == 0) {
      char cmd[1200];
      snprintf(cmd, sizeof cmd, "chmod 755 '%s' '%s' && chmod 777 '%s'", root, f.dir, root);
      if (system(cmd) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
      snprintf(f.store, sizeof f.store, "%s/ro-nobody.store", root);
    } else if (chmod(f.dir, 0500) != 0) {
      _exit(2);
    }
    expect_own(&f, "read-only folder");
    _exit(logged("WARN ") && logged("no shared image made") && logged(f.dir) ? 0 : 1);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "read-only folder: %d", status);
  ck_assert_int_eq(chmod(root, 0700), 0);
  ck_assert_int_eq(chmod(f.dir, 0700), 0);

  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    struct rlimit lim = {.rlim_cur = 8192, .rlim_max = RLIM_INFINITY};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(2);
    expect_own(&f, "full folder");
    _exit(logged("WARN ") && logged("no shared image made") && logged(f.dir) ? 0 : 1);
  }
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "full folder: %d", status);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -cE '[.](img|tmp)$' | grep -qx 0", f.dir);
  ck_assert_msg(system(cmd) == 0, "an image or temporary file was left in %s", f.dir);
}
END_TEST

/* ---- main ------------------------------------------------------------------------------ */

int main(void) {
  const char *t = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/sp_params_image_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(root)) {
    perror(root);
    return EXIT_FAILURE;
  }
  char dir[300], err[ERRLEN];
  snprintf(dir, sizeof dir, "%s/setup", root);
  sp_setup_result res;
  sp_setup_opts so = {.constraints = 250,
                      .inputs = 4,
                      .partitions = 1,
                      .shape = SP_SHAPE_SEALING,
                      .seed = 34,
                      .out_dir = dir,
                      .nthreads = 2};
  if (mkdir(dir, 0755) != 0 || sp_setup_run(&so, &res, err, sizeof err) != SEALPROV_OK) {
    fprintf(stderr, "setup: %s\n", err);
    return EXIT_FAILURE;
  }
  snprintf(params, sizeof params, "%s/circuit.params", dir);
  snprintf(spa_file, sizeof spa_file, "%s/partition-00.spa", dir);
  sealprov_host host = {.struct_size = sizeof host, .log_level = SEALPROV_LOG_DEBUG, .log = log_cb};
  sp_log_set_host(&host);

  Suite *s = suite_create("params_image");
  TCase *tc = tcase_create("params_image");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, made_then_mapped_elsewhere);
  tcase_add_test(tc, racing_loads_make_one);
  tcase_add_test(tc, changed_file_never_mapped);
  tcase_add_test(tc, forged_and_foreign_images_refused);
  tcase_add_test(tc, untrusted_image_not_used);
  tcase_add_test(tc, unusable_folder_no_error);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "chmod -R u+rwX '%s'; rm -rf '%s'", root, root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
