/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* vrecord.c -- the store of validation records (vrecord.h): where it is, whether it may
 * be trusted, its secret, and one record read or written.
 *
 * Every check is made on an open descriptor (fstat after openat with O_NOFOLLOW), so
 * what was checked is what is read: a name swapped for another file or a link between
 * the check and the read cannot slip in. A record is text, one field a line, in a fixed
 * order (docs/formats.md): the lookup builds the lines the file's identity calls for
 * and compares, so any field that differs makes it stale and anything else is not a
 * record. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "base/util.h"
#include "formats/fdigest.h"
#include "formats/vrecord.h"
#include "sealprov.h"

#define RECORD_LINES 9
#define RECORD_HEAD "sealprov-validation-record"

struct sp_vrecord_store {
  int root_fd, dir_fd;
  bool writable;
  char root[4096];
  uint8_t secret[SP_FDIGEST_SECRET_BYTES];
};

/* ---- where the store is ------------------------------------------------------------- */

static bool join2(char *buf, size_t len, const char *a, const char *b) {
  int n = snprintf(buf, len, "%s%s", a, b);
  return n > 0 && (size_t)n < len;
}

bool sp_vrecord_default_root(char *buf, size_t len, char *why, size_t whylen) {
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *base = NULL, *tail = "/.cache/sealprov";
  if (xdg != NULL && xdg[0] == '/') {
    base = xdg;
    tail = "/sealprov";
  } else if (geteuid() == 0) {
    base = "/var/cache/sealprov";
    tail = "";
  } else {
    base = getenv("HOME");
    struct passwd pw, *res = NULL;
    char pwbuf[4096];
    if ((base == NULL || base[0] != '/') &&
        getpwuid_r(geteuid(), &pw, pwbuf, sizeof pwbuf, &res) == 0 && res != NULL)
      base = res->pw_dir;
    if (base == NULL || base[0] != '/') {
      sp_set_err(why, whylen,
                 "no cache folder: XDG_CACHE_HOME and HOME are not absolute paths and user %u "
                 "has no home folder in the password database",
                 (unsigned)geteuid());
      return false;
    }
  }
  if (!join2(buf, len, base, tail)) {
    sp_set_err(why, whylen, "the cache folder's path is too long");
    return false;
  }
  return true;
}

/* mkdir -p with mode 0700 for what it makes; errors are left to the open that follows. */
static void make_dirs(const char *path) {
  char p[4096];
  if (!join2(p, sizeof p, path, "")) return;
  for (char *c = p + 1;; c++) {
    if (*c != '/' && *c != '\0') continue;
    char keep = *c;
    *c = '\0';
    (void)mkdir(p, 0700);
    *c = keep;
    if (keep == '\0') return;
  }
}

/* ---- trust ---------------------------------------------------------------------------- */

/* Whether st (of what the store holds, shown as `what`) may be trusted: the right type,
 * owned by the effective user or root, writable by nobody else; a secret readable by
 * nobody else either. */
static bool trusted(const struct stat *st, mode_t type, bool secret, const char *what, char *why,
                    size_t whylen) {
  uid_t me = geteuid();
  mode_t bad = secret ? (mode_t)077 : (mode_t)(S_IWGRP | S_IWOTH);
  if ((st->st_mode & S_IFMT) != type) {
    sp_set_err(why, whylen, "%s is not a %s", what, type == S_IFDIR ? "folder" : "regular file");
    return false;
  }
  if (st->st_uid != me && st->st_uid != 0) {
    sp_set_err(why, whylen, "%s is owned by uid %u, neither this process's user (uid %u) nor root",
               what, (unsigned)st->st_uid, (unsigned)me);
    return false;
  }
  if (st->st_mode & bad) {
    sp_set_err(why, whylen, "%s has mode %04o: %s by group or others", what,
               (unsigned)(st->st_mode & 07777), secret ? "readable or writable" : "writable");
    return false;
  }
  return true;
}

bool sp_vrecord_fd_trusted(int fd, mode_t type, bool secret, const char *what, char *why,
                           size_t whylen, struct stat *st) {
  if (fstat(fd, st) != 0) {
    sp_set_err(why, whylen, "%s: cannot stat: %s", what, strerror(errno));
    return false;
  }
  return trusted(st, type, secret, what, why, whylen);
}

/* ---- the secret ----------------------------------------------------------------------- */

/* A new secret, written whole under a temporary name and linked into place; EEXIST when
 * another process linked its own first (that one is then everybody's). */
static int make_secret(sp_vrecord_store *s) {
  uint8_t key[SP_FDIGEST_SECRET_BYTES];
  uint32_t tag = 0;
  int e = sp_random_bytes(key, sizeof key);
  if (e == 0) e = sp_random_bytes(&tag, sizeof tag);
  if (e != 0) return e;
  char tmp[64];
  snprintf(tmp, sizeof tmp, ".%s-%ld-%08" PRIx32, SP_VRECORD_SECRET, (long)getpid(), tag);
  int fd = openat(s->root_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  errno = 0; /* a short write sets none */
  bool ok = write(fd, key, sizeof key) == (ssize_t)sizeof key && fsync(fd) == 0;
  e = ok ? 0 : errno ? errno : EIO;
  if (close(fd) != 0 && e == 0) e = errno;
  if (e == 0 && linkat(s->root_fd, tmp, s->root_fd, SP_VRECORD_SECRET, 0) != 0) e = errno;
  (void)unlinkat(s->root_fd, tmp, 0);
  memset(key, 0, sizeof key);
  return e;
}

/* Reads the store's secret, making it first when there is none. */
static bool load_secret(sp_vrecord_store *s, int *level, char *why, size_t whylen) {
  char what[4200];
  snprintf(what, sizeof what, "%s/%s", s->root, SP_VRECORD_SECRET);
  char esc[SP_ESC_MAX];
  sp_utf8_escape(what, esc, sizeof esc);
  int fd = openat(s->root_fd, SP_VRECORD_SECRET, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) {
    int e = make_secret(s);
    if (e != 0 && e != EEXIST) {
      sp_set_err(why, whylen, "cannot create %s: %s", esc, strerror(e));
      return false;
    }
    fd = openat(s->root_fd, SP_VRECORD_SECRET, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  }
  if (fd < 0) {
    int e = errno;
    if (e == ELOOP) *level = SEALPROV_LOG_WARN; /* a link where the secret should be */
    sp_set_err(why, whylen, "cannot open %s: %s", esc, strerror(e));
    return false;
  }
  struct stat st;
  bool ok = sp_vrecord_fd_trusted(fd, S_IFREG, true, esc, why, whylen, &st);
  ssize_t got = 0;
  if (ok && st.st_size != (off_t)sizeof s->secret)
    sp_set_err(why, whylen, "%s has %lld bytes, not %zu (remove it: a new one is made)", esc,
               (long long)st.st_size, sizeof s->secret);
  else if (ok && (got = pread(fd, s->secret, sizeof s->secret, 0)) != (ssize_t)sizeof s->secret)
    sp_set_err(why, whylen, "cannot read %s: %s", esc, got < 0 ? strerror(errno) : "short read");
  else if (ok) {
    close(fd);
    return true;
  }
  *level = SEALPROV_LOG_WARN;
  close(fd);
  return false;
}

/* ---- the store ------------------------------------------------------------------------ */

static sp_vrecord_store *open_fail(sp_vrecord_store *s) {
  sp_vrecord_close(s);
  return NULL;
}

sp_vrecord_store *sp_vrecord_open(const char *root, int *level, char *why, size_t whylen) {
  *level = SEALPROV_LOG_INFO;
  char esc[SP_ESC_MAX], what[4200];
  sp_vrecord_store *s = calloc(1, sizeof *s);
  if (s == NULL) {
    sp_set_err(why, whylen, "out of memory");
    return NULL;
  }
  s->root_fd = s->dir_fd = -1;
  if (root == NULL || root[0] != '/' || !join2(s->root, sizeof s->root, root, "")) {
    sp_set_err(why, whylen, "%s: not an absolute path (or too long)",
               sp_utf8_escape(root, esc, sizeof esc));
    return open_fail(s);
  }
  sp_utf8_escape(root, esc, sizeof esc);
  make_dirs(root);
  s->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (s->root_fd < 0) {
    sp_set_err(why, whylen, "cannot open %s: %s", esc, strerror(errno));
    return open_fail(s);
  }
  struct stat st;
  if (!sp_vrecord_fd_trusted(s->root_fd, S_IFDIR, false, esc, why, whylen, &st)) {
    *level = SEALPROV_LOG_WARN;
    return open_fail(s);
  }
  if (!load_secret(s, level, why, whylen)) return open_fail(s);
  (void)mkdirat(s->root_fd, SP_VRECORD_DIR, 0700);
  snprintf(what, sizeof what, "%s/%s", s->root, SP_VRECORD_DIR);
  sp_utf8_escape(what, esc, sizeof esc);
  s->dir_fd = openat(s->root_fd, SP_VRECORD_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (s->dir_fd < 0) {
    int e = errno;
    if (e != ENOENT && e != EACCES) *level = SEALPROV_LOG_WARN; /* a link, or not a folder */
    sp_set_err(why, whylen, "cannot open %s: %s", esc, strerror(e));
    return open_fail(s);
  }
  if (!sp_vrecord_fd_trusted(s->dir_fd, S_IFDIR, false, esc, why, whylen, &st)) {
    *level = SEALPROV_LOG_WARN;
    return open_fail(s);
  }
  s->writable = faccessat(s->dir_fd, ".", W_OK, AT_EACCESS) == 0;
  return s;
}

void sp_vrecord_close(sp_vrecord_store *s) {
  if (s == NULL) return;
  if (s->root_fd >= 0) close(s->root_fd);
  if (s->dir_fd >= 0) close(s->dir_fd);
  memset(s->secret, 0, sizeof s->secret);
  free(s);
}

const uint8_t *sp_vrecord_secret(const sp_vrecord_store *s, size_t *len) {
  *len = sizeof s->secret;
  return s->secret;
}

void sp_vrecord_name(const char *path, char name[SP_VRECORD_NAME_MAX]) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(path, strlen(path)));
  for (size_t i = 0; i < sizeof c.digest; i++) snprintf(name + 2 * i, 3, "%02x", c.digest[i]);
  snprintf(name + 2 * sizeof c.digest, SP_VRECORD_NAME_MAX - 2 * sizeof c.digest, ".rec");
}

void sp_vrecord_shown(const sp_vrecord_store *s, const char *path, char *out, size_t len) {
  char name[SP_VRECORD_NAME_MAX], full[4300];
  sp_vrecord_name(path, name);
  snprintf(full, sizeof full, "%s/%s/%s", s->root, SP_VRECORD_DIR, name);
  sp_utf8_escape(full, out, len);
}

/* ---- one record ------------------------------------------------------------------------ */

/* A path a record can hold on its line: no control characters. */
static bool path_fits(const char *path) {
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    if (*p < 0x20 || *p == 0x7f) return false;
  return path[0] == '/';
}

/* The record's lines but the digest's, for path and id; the length, or 0 when too long. */
static size_t record_head(char *buf, size_t len, const char *path, const sp_file_id *id) {
  int n = snprintf(buf, len,
                   RECORD_HEAD " %d\nvalidation_version %d\npath %s\ndev %" PRIu64 "\nino %" PRIu64
                               "\nsize %" PRIu64 "\nmtime_ns %" PRId64 "\nctime_ns %" PRId64 "\n",
                   SP_VRECORD_FORMAT, SP_VALIDATION_VERSION, path, id->dev, id->ino, id->size,
                   id->mtime_ns, id->ctime_ns);
  return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* The digest line, exactly "digest NAME <32 lowercase hex>\n"; false when it is not. */
static bool parse_digest(const char *line, size_t len, uint8_t digest[16]) {
  static const char key[] = "digest " SP_FDIGEST_NAME " ";
  size_t k = sizeof key - 1;
  if (len != k + 32 + 1 || memcmp(line, key, k) != 0 || line[len - 1] != '\n') return false;
  for (size_t i = 0; i < 16; i++) {
    int hi = hexval(line[k + 2 * i]), lo = hexval(line[k + 2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    digest[i] = (uint8_t)(hi << 4 | lo);
  }
  return true;
}

/* Compares the record's text (n bytes) with the lines want calls for: MATCH with the
 * digest, STALE naming the first field that differs, or BAD. */
static sp_vrec_verdict record_compare(const char *text, size_t n, const char *want,
                                      uint8_t digest[16], char *why, size_t whylen) {
  const char *p = text, *w = want, *end = text + n;
  for (int line = 0; line < RECORD_LINES - 1; line++) {
    const char *pe = memchr(p, '\n', (size_t)(end - p)), *we = strchr(w, '\n');
    const char *pk = pe ? memchr(p, ' ', (size_t)(pe - p)) : NULL, *wk = strchr(w, ' ');
    if (pe == NULL || pk == NULL || pk - p != wk - w || memcmp(p, w, (size_t)(wk - w)) != 0 ||
        (line == 0 && (pe - p != we - w || memcmp(p, w, (size_t)(we - w)) != 0))) {
      sp_set_err(why, whylen, "line %d is not \"%.*s ...\" of a record of format %d", line + 1,
                 (int)(wk - w), w, SP_VRECORD_FORMAT);
      return SP_VREC_BAD;
    }
    if (pe - p != we - w || memcmp(p, w, (size_t)(we - w)) != 0) {
      char rec[SP_ESC_MAX], now[SP_ESC_MAX], tmp[SP_ESC_MAX];
      snprintf(tmp, sizeof tmp, "%.*s", (int)(pe - pk - 1), pk + 1);
      sp_utf8_escape(tmp, rec, sizeof rec);
      snprintf(tmp, sizeof tmp, "%.*s", (int)(we - wk - 1), wk + 1);
      sp_utf8_escape(tmp, now, sizeof now);
      sp_set_err(why, whylen, "stale: %.*s is %s in the record, %s now", (int)(wk - w), w, rec,
                 now);
      return SP_VREC_STALE;
    }
    p = pe + 1;
    w = we + 1;
  }
  if (!parse_digest(p, (size_t)(end - p), digest)) {
    sp_set_err(why, whylen, "line %d is not \"digest %s\" and 32 hex digits", RECORD_LINES,
               SP_FDIGEST_NAME);
    return SP_VREC_BAD;
  }
  return SP_VREC_MATCH;
}

sp_vrec_verdict sp_vrecord_lookup(sp_vrecord_store *s, const char *path, const sp_file_id *id,
                                  uint8_t digest[16], char *why, size_t whylen) {
  char name[SP_VRECORD_NAME_MAX], shown[SP_ESC_MAX], want[4400];
  if (!path_fits(path)) {
    sp_set_err(why, whylen, "a record cannot hold this path (control characters)");
    return SP_VREC_NONE;
  }
  sp_vrecord_name(path, name);
  sp_vrecord_shown(s, path, shown, sizeof shown);
  int fd = openat(s->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT)
      sp_set_err(why, whylen, "%s", shown);
    else
      sp_set_err(why, whylen, "%s: %s", shown, strerror(e));
    return e == ENOENT ? SP_VREC_NONE : e == ELOOP ? SP_VREC_UNTRUSTED : SP_VREC_BAD;
  }
  struct stat st;
  char text[SP_VRECORD_MAX_BYTES];
  sp_vrec_verdict v = SP_VREC_BAD;
  ssize_t n = -1;
  if (!sp_vrecord_fd_trusted(fd, S_IFREG, false, shown, why, whylen, &st))
    v = SP_VREC_UNTRUSTED;
  else if (st.st_size > (off_t)sizeof text)
    sp_set_err(why, whylen, "%s: %lld bytes, more than a record has", shown, (long long)st.st_size);
  else if ((n = pread(fd, text, sizeof text, 0)) < 0 || n != st.st_size)
    sp_set_err(why, whylen, "%s: cannot read: %s", shown, n < 0 ? strerror(errno) : "short read");
  else if (memchr(text, '\0', (size_t)n) != NULL)
    sp_set_err(why, whylen, "%s: not a record (a NUL byte)", shown);
  else if (record_head(want, sizeof want, path, id) == 0)
    sp_set_err(why, whylen, "%s: the path is too long for a record", shown);
  else {
    char detail[SP_ESC_MAX + 200];
    v = record_compare(text, (size_t)n, want, digest, detail, sizeof detail);
    if (v != SP_VREC_MATCH) sp_set_err(why, whylen, "%s: %s", shown, detail);
  }
  close(fd);
  return v;
}

/* Writes text to a new temporary file in the records' folder and renames it to name. */
static int write_rename(sp_vrecord_store *s, const char *name, const char *text, size_t n,
                        char *why, size_t whylen) {
  uint32_t tag = 0;
  (void)sp_random_bytes(&tag, sizeof tag); /* a clash with another writer fails O_EXCL */
  char tmp[SP_VRECORD_NAME_MAX + 40];
  snprintf(tmp, sizeof tmp, ".%s-%ld-%08" PRIx32, name, (long)getpid(), tag);
  int fd = openat(s->dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    sp_set_err(why, whylen, "cannot create a temporary record: %s", strerror(errno));
    return SEALPROV_ERR_IO;
  }
  errno = 0; /* a short write sets none */
  bool ok = write(fd, text, n) == (ssize_t)n && fsync(fd) == 0;
  int e = ok ? 0 : errno ? errno : EIO;
  if (close(fd) != 0 && e == 0) e = errno;
  if (e == 0 && renameat(s->dir_fd, tmp, s->dir_fd, name) != 0) e = errno;
  if (e != 0) {
    (void)unlinkat(s->dir_fd, tmp, 0);
    sp_set_err(why, whylen, "cannot write the record: %s", strerror(e));
    return SEALPROV_ERR_IO;
  }
  return SEALPROV_OK;
}

int sp_vrecord_write(sp_vrecord_store *s, const char *path, const sp_file_id *id,
                     const uint8_t digest[16], char *why, size_t whylen) {
  char name[SP_VRECORD_NAME_MAX], text[SP_VRECORD_MAX_BYTES];
  if (!s->writable) {
    sp_set_err(why, whylen, "the store is read-only");
    return SEALPROV_ERR_IO;
  }
  size_t n = path_fits(path) ? record_head(text, sizeof text, path, id) : 0;
  if (n == 0 || sizeof text - n < sizeof SP_FDIGEST_NAME + 42) {
    sp_set_err(why, whylen, "a record cannot hold this path (control characters, or too long)");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  n += (size_t)snprintf(text + n, sizeof text - n, "digest %s ", SP_FDIGEST_NAME);
  for (size_t i = 0; i < 16; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "%02x", digest[i]);
  text[n++] = '\n';
  sp_vrecord_name(path, name);
  return write_rename(s, name, text, n, why, whylen);
}
