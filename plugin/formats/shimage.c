/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* shimage.c -- the shared image of a parameter set (shimage.h): its folder, header,
 * writer and reader.
 *
 * Every check is made on the descriptor that is then mapped (openat with O_NOFOLLOW,
 * fstat), so a name swapped for another file between the check and the mapping cannot
 * slip in. The whole size is reserved with posix_fallocate before anything is written:
 * a tmpfs that is too small then fails with ENOSPC at once, never later with SIGBUS on
 * a page of the mapping. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <xxhash.h>

#include "base/util.h"
#include "bls12_381/bls12_381.h"
#include "formats/shimage.h"
#include "formats/vrecord.h"
#include "sealprov.h"

_Static_assert(sizeof(sp_shimage_header) <= SP_SHIMAGE_HEADER_BYTES, "header fits its page");

struct sp_shimage_dir {
  int fd;
  char root[4096];
};

static const char *const vec_names[SP_SHIMAGE_VECTORS] = {"h", "l", "a", "b_g1", "b_g2"};

static uint64_t point_bytes(int v) {
  return v == 4 ? sizeof(g2_affine_t) : sizeof(g1_affine_t); /* b_g2 is the one in G2 */
}

static uint64_t align_up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

/* ---- the folder ----------------------------------------------------------------------- */

void sp_shimage_default_dir(char *buf, size_t len) {
  snprintf(buf, len, "/dev/shm/sealprov-%u", (unsigned)geteuid());
}

sp_shimage_dir *sp_shimage_dir_open(const char *root, bool *untrusted, char *why, size_t whylen) {
  char esc[SP_ESC_MAX];
  *untrusted = false;
  sp_utf8_escape(root ? root : "(null)", esc, sizeof esc);
  sp_shimage_dir *d = calloc(1, sizeof *d);
  if (d == NULL) {
    sp_set_err(why, whylen, "out of memory");
    return NULL;
  }
  d->fd = -1;
  int n = root ? snprintf(d->root, sizeof d->root, "%s", root) : -1;
  if (n <= 0 || (size_t)n >= sizeof d->root || root[0] != '/') {
    sp_set_err(why, whylen, "%s: not an absolute path (or too long)", esc);
    sp_shimage_dir_close(d);
    return NULL;
  }
  (void)mkdir(root, 0700);
  d->fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (d->fd < 0) {
    *untrusted = errno == ELOOP || errno == ENOTDIR; /* a link or a file where it should be */
    sp_set_err(why, whylen, "cannot open %s: %s", esc, strerror(errno));
    sp_shimage_dir_close(d);
    return NULL;
  }
  struct stat st;
  if (!sp_vrecord_fd_trusted(d->fd, S_IFDIR, false, esc, why, whylen, &st)) {
    *untrusted = true;
    sp_shimage_dir_close(d);
    return NULL;
  }
  return d;
}

void sp_shimage_dir_close(sp_shimage_dir *d) {
  if (d == NULL) return;
  if (d->fd >= 0) close(d->fd);
  free(d);
}

void sp_shimage_name(const char *path, char name[48]) {
  char rec[SP_VRECORD_NAME_MAX];
  sp_vrecord_name(path, rec); /* 32 hex digits and ".rec" */
  snprintf(name, 48, "%.32s.img", rec);
}

void sp_shimage_path(const sp_shimage_dir *d, const char *path, char *out, size_t len) {
  char name[48];
  sp_shimage_name(path, name);
  snprintf(out, len, "%s/%s", d->root, name);
}

/* ---- the header ----------------------------------------------------------------------- */

static void header_hash(const sp_shimage_header *h, uint8_t out[16]) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(h, offsetof(sp_shimage_header, hash)));
  memcpy(out, c.digest, 16);
}

/* Offsets and the total for lay, the total rounded up to `unit` (a hugetlbfs page). */
static void header_fill(sp_shimage_header *h, const sp_shimage_src *src,
                        const sp_shimage_layout *lay, uint64_t unit) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, SP_SHIMAGE_MAGIC, sizeof h->magic);
  h->format = SP_SHIMAGE_FORMAT;
  h->validation_version = SP_VALIDATION_VERSION;
  h->bom = SP_SHIMAGE_BOM;
  h->g1_bytes = sizeof(g1_affine_t);
  h->g2_bytes = sizeof(g2_affine_t);
  h->checks = (uint32_t)src->checks;
  h->log_domain = lay->log_domain;
  h->dev = src->id.dev;
  h->ino = src->id.ino;
  h->size = src->id.size;
  h->mtime_ns = src->id.mtime_ns;
  h->ctime_ns = src->id.ctime_ns;
  memcpy(h->digest, src->digest, 16);
  uint64_t at = SP_SHIMAGE_HEADER_BYTES;
  for (int v = 0; v < SP_SHIMAGE_VECTORS; v++) {
    h->len[v] = lay->len[v];
    h->off[v] = at;
    at = align_up(at + lay->len[v] * point_bytes(v), SP_SHIMAGE_ALIGN);
  }
  h->total = align_up(at, unit);
  snprintf(h->path, sizeof h->path, "%s", src->path);
}

/* Whether h is a whole image header of this build, in a file of file_bytes: BAD with
 * why when not. */
static sp_shimage_verdict header_whole(const sp_shimage_header *h, uint64_t file_bytes, char *why,
                                       size_t whylen) {
  uint8_t hash[16];
  header_hash(h, hash);
  if (memcmp(h->magic, SP_SHIMAGE_MAGIC, sizeof h->magic) != 0) {
    sp_set_err(why, whylen, "not a shared image (no magic)");
    return SP_SHIMG_BAD;
  }
  if (h->bom != SP_SHIMAGE_BOM || h->g1_bytes != sizeof(g1_affine_t) ||
      h->g2_bytes != sizeof(g2_affine_t) || h->format != SP_SHIMAGE_FORMAT) {
    sp_set_err(why, whylen, "an image of format %u with %u/%u-byte points made for another build",
               (unsigned)h->format, (unsigned)h->g1_bytes, (unsigned)h->g2_bytes);
    return SP_SHIMG_BAD;
  }
  if (memcmp(hash, h->hash, 16) != 0 || h->state != SP_SHIMAGE_COMPLETE) {
    sp_set_err(
        why, whylen, "the header is %s",
        h->state == SP_SHIMAGE_COMPLETE ? "damaged (its hash differs)" : "not marked complete");
    return SP_SHIMG_BAD;
  }
  if (h->total != file_bytes) {
    sp_set_err(why, whylen,
               "truncated or extended: the header says %" PRIu64 " bytes, the file has %" PRIu64,
               h->total, file_bytes);
    return SP_SHIMG_BAD;
  }
  uint64_t at = SP_SHIMAGE_HEADER_BYTES;
  for (int v = 0; v < SP_SHIMAGE_VECTORS; v++) {
    uint64_t max = (h->total - h->off[v]) / point_bytes(v);
    if (h->off[v] < at || h->off[v] % SP_SHIMAGE_ALIGN != 0 || h->off[v] > h->total ||
        h->len[v] > max) {
      sp_set_err(why, whylen,
                 "vector %s (offset %" PRIu64 ", %" PRIu64 " points) is not within the image",
                 vec_names[v], h->off[v], h->len[v]);
      return SP_SHIMG_BAD;
    }
    at = h->off[v] + h->len[v] * point_bytes(v);
  }
  return SP_SHIMG_MATCH;
}

/* Whether the whole header h is of src (and of want's shape): STALE naming the first
 * field that differs. */
static sp_shimage_verdict header_matches(const sp_shimage_header *h, const sp_shimage_src *src,
                                         const sp_shimage_layout *want, char *why, size_t whylen) {
  const char *field = NULL;
  if (h->validation_version != SP_VALIDATION_VERSION)
    field = "validation_version";
  else if (strncmp(h->path, src->path, sizeof h->path) != 0)
    field = "path";
  else if (h->dev != src->id.dev)
    field = "dev";
  else if (h->ino != src->id.ino)
    field = "ino";
  else if (h->size != src->id.size)
    field = "size";
  else if (h->mtime_ns != src->id.mtime_ns)
    field = "mtime_ns";
  else if (h->ctime_ns != src->id.ctime_ns)
    field = "ctime_ns";
  else if (memcmp(h->digest, src->digest, 16) != 0)
    field = "digest";
  else if (src->checks == SP_SHIMAGE_SUBGROUP && h->checks != SP_SHIMAGE_SUBGROUP)
    field = "checks (made with params_subgroup_check = false)";
  else if (want != NULL &&
           (h->log_domain != want->log_domain || memcmp(h->len, want->len, sizeof h->len) != 0))
    field = "vector lengths";
  if (field == NULL) return SP_SHIMG_MATCH;
  sp_set_err(why, whylen, "stale: its %s differs from the source's now", field);
  return SP_SHIMG_STALE;
}

/* ---- the reader ----------------------------------------------------------------------- */

/* src with the digest it has now (src->digest_now): STALE when there is none. */
static sp_shimage_verdict source_now(const sp_shimage_src *src, sp_shimage_src *now, char *why,
                                     size_t whylen) {
  *now = *src;
  if (src->digest_now == NULL || src->digest_now(src->digest_user, &src->id, now->digest))
    return SP_SHIMG_MATCH;
  sp_set_err(why, whylen, "stale: its source has no trusted validation record that matches it now");
  return SP_SHIMG_STALE;
}

static sp_shimage *mapped(void *base, const sp_shimage_header *h) {
  sp_shimage *m = calloc(1, sizeof *m);
  if (m == NULL) return NULL;
  m->base = base;
  m->bytes = h->total;
  m->checks = (int)h->checks;
  m->layout.log_domain = h->log_domain;
  for (int v = 0; v < SP_SHIMAGE_VECTORS; v++) {
    m->layout.len[v] = h->len[v];
    m->vec[v] = (uint8_t *)base + h->off[v];
  }
  m->dir_fd = m->fd = m->lock_fd = -1;
  return m;
}

sp_shimage_verdict sp_shimage_map(sp_shimage_dir *d, const sp_shimage_src *src,
                                  const sp_shimage_layout *want, sp_shimage **out, char *why,
                                  size_t whylen) {
  char name[48], full[4200], esc[SP_ESC_MAX];
  *out = NULL;
  sp_shimage_name(src->path, name);
  snprintf(full, sizeof full, "%s/%s", d->root, name);
  sp_utf8_escape(full, esc, sizeof esc);
  int fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    sp_set_err(why, whylen, "%s: %s", esc, strerror(errno));
    return errno == ENOENT ? SP_SHIMG_NONE : errno == ELOOP ? SP_SHIMG_UNTRUSTED : SP_SHIMG_BAD;
  }
  struct stat st;
  sp_shimage_header h;
  sp_shimage_src now;
  char sub[512];
  sp_shimage_verdict vd = SP_SHIMG_BAD;
  if (!sp_vrecord_fd_trusted(fd, S_IFREG, false, esc, why, whylen, &st)) {
    vd = SP_SHIMG_UNTRUSTED;
  } else if (st.st_size < (off_t)sizeof h || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) {
    sp_set_err(why, whylen, "%s: truncated: %lld bytes, a header takes %d", esc,
               (long long)st.st_size, SP_SHIMAGE_HEADER_BYTES);
  } else if ((vd = header_whole(&h, (uint64_t)st.st_size, sub, sizeof sub)) != SP_SHIMG_MATCH ||
             (vd = source_now(src, &now, sub, sizeof sub)) != SP_SHIMG_MATCH ||
             (vd = header_matches(&h, &now, want, sub, sizeof sub)) != SP_SHIMG_MATCH) {
    sp_set_err(why, whylen, "%s: %s", esc, sub);
  } else {
    void *base = mmap(NULL, h.total, PROT_READ, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
      sp_set_err(why, whylen, "%s: cannot map %" PRIu64 " bytes: %s", esc, h.total,
                 strerror(errno));
      vd = SP_SHIMG_BAD;
    } else if ((*out = mapped(base, &h)) == NULL) {
      munmap(base, h.total);
      sp_set_err(why, whylen, "out of memory");
      vd = SP_SHIMG_BAD;
    }
  }
  close(fd);
  return vd;
}

void sp_shimage_unmap(sp_shimage *m) {
  if (m == NULL) return;
  if (m->base != NULL) munmap(m->base, m->bytes);
  free(m);
}

/* ---- the writer ----------------------------------------------------------------------- */

/* Closes the writer's descriptors, removes its temporary file (unless renamed) and
 * releases the lock; its mapping stays. */
static void writer_close(sp_shimage *w) {
  if (w->fd >= 0) close(w->fd);
  if (w->tmp[0] != '\0') (void)unlinkat(w->dir_fd, w->tmp, 0);
  if (w->lock_fd >= 0) close(w->lock_fd); /* releases the flock */
  w->fd = w->lock_fd = -1;
  w->tmp[0] = '\0';
}

/* Removes ".NAME.*.tmp" files: under the lock nobody is writing one, so they are what
 * creators that died left. */
static void remove_dead_temps(sp_shimage_dir *d, const char *name) {
  int fd = dup(d->fd);
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (dir == NULL) {
    if (fd >= 0) close(fd);
    return;
  }
  size_t k = strlen(name);
  for (struct dirent *e; (e = readdir(dir)) != NULL;) {
    size_t n = strlen(e->d_name);
    if (n > k + 5 && e->d_name[0] == '.' && strncmp(e->d_name + 1, name, k) == 0 &&
        strcmp(e->d_name + n - 4, ".tmp") == 0)
      (void)unlinkat(d->fd, e->d_name, 0);
  }
  closedir(dir);
}

/* Creates the temporary file, reserves total bytes and maps it writable into w. */
static int reserve(sp_shimage_dir *d, sp_shimage *w, const sp_shimage_header *h, char *why,
                   size_t whylen) {
  char esc[SP_ESC_MAX];
  sp_utf8_escape(d->root, esc, sizeof esc);
  snprintf(w->tmp, sizeof w->tmp, ".%s.%ld.tmp", w->name, (long)getpid());
  w->fd = openat(d->fd, w->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (w->fd < 0) {
    sp_set_err(why, whylen, "cannot create %s/%s: %s", esc, w->tmp, strerror(errno));
    w->tmp[0] = '\0'; /* not ours to remove */
    return SEALPROV_ERR_IO;
  }
  struct statvfs vfs;
  uint64_t avail = fstatvfs(w->fd, &vfs) == 0 ? (uint64_t)vfs.f_bavail * vfs.f_frsize : UINT64_MAX;
  int e = avail < h->total ? ENOSPC : posix_fallocate(w->fd, 0, (off_t)h->total);
  if (e != 0) {
    sp_set_err(why, whylen,
               "%s: %s: the image needs %" PRIu64 " bytes, the folder's filesystem has %" PRIu64
               " free (a larger tmpfs or hugetlbfs is needed)",
               esc, strerror(e), h->total, avail == UINT64_MAX ? 0 : avail);
    return e == ENOSPC ? SEALPROV_ERR_NO_MEMORY : SEALPROV_ERR_IO;
  }
  void *base = mmap(NULL, h->total, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
  if (base == MAP_FAILED) {
    sp_set_err(why, whylen, "%s: cannot map %" PRIu64 " bytes: %s", esc, h->total, strerror(errno));
    return SEALPROV_ERR_NO_MEMORY;
  }
  sp_shimage *m = mapped(base, h);
  if (m == NULL) {
    munmap(base, h->total);
    sp_set_err(why, whylen, "out of memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  w->base = m->base;
  w->bytes = m->bytes;
  w->layout = m->layout;
  w->checks = m->checks;
  memcpy(w->vec, m->vec, sizeof w->vec);
  free(m);
  return SEALPROV_OK;
}

/* The lock: NAME.lock in the folder, held exclusively (blocking) in *fd. */
static int take_lock(sp_shimage_dir *d, const char *name, int *fd, char *why, size_t whylen) {
  char lock[64], esc[SP_ESC_MAX];
  snprintf(lock, sizeof lock, "%.40s.lock", name);
  *fd = openat(d->fd, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  int e = *fd < 0 ? errno : flock(*fd, LOCK_EX) != 0 ? errno : 0;
  if (e == 0) return SEALPROV_OK;
  sp_set_err(why, whylen, "cannot lock %s/%s: %s", sp_utf8_escape(d->root, esc, sizeof esc), lock,
             strerror(e));
  if (*fd >= 0) close(*fd);
  *fd = -1;
  return SEALPROV_ERR_IO;
}

int sp_shimage_begin(sp_shimage_dir *d, const sp_shimage_src *src, const sp_shimage_layout *lay,
                     sp_shimage **out, sp_shimage **found, char *why, size_t whylen) {
  *out = *found = NULL;
  sp_shimage *w = calloc(1, sizeof *w);
  if (w == NULL) {
    sp_set_err(why, whylen, "out of memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  w->fd = w->lock_fd = -1;
  w->dir_fd = d->fd;
  sp_shimage_name(src->path, w->name);
  int st = take_lock(d, w->name, &w->lock_fd, why, whylen);
  if (st != SEALPROV_OK) {
    free(w);
    return st;
  }
  sp_shimage_verdict vd = sp_shimage_map(d, src, lay, found, why, whylen);
  if (vd == SP_SHIMG_MATCH || vd == SP_SHIMG_UNTRUSTED) { /* made meanwhile, or not ours */
    sp_shimage_abort(w);
    return vd == SP_SHIMG_MATCH ? SEALPROV_OK : SEALPROV_ERR_IO;
  }
  remove_dead_temps(d, w->name);
  struct statvfs vfs; /* a hugetlbfs's block is its huge page: the image's size unit */
  uint64_t unit = fstatvfs(d->fd, &vfs) == 0 && vfs.f_bsize > 0 ? vfs.f_bsize : SP_SHIMAGE_ALIGN;
  sp_shimage_header h;
  header_fill(&h, src, lay, unit);
  st = reserve(d, w, &h, why, whylen);
  if (st != SEALPROV_OK) {
    sp_shimage_abort(w);
    return st;
  }
  *out = w;
  return SEALPROV_OK;
}

int sp_shimage_commit(sp_shimage_dir *d, const sp_shimage_src *src, sp_shimage *w, sp_shimage **out,
                      char *why, size_t whylen) {
  char esc[SP_ESC_MAX];
  *out = NULL;
  sp_shimage_header h;
  header_fill(&h, src, &w->layout, 1);
  h.total = w->bytes;
  h.state = SP_SHIMAGE_COMPLETE;
  header_hash(&h, h.hash);
  memcpy(w->base, &h, sizeof h);
  int e = msync(w->base, w->bytes, MS_SYNC) != 0 || fsync(w->fd) != 0 ? errno : 0;
  if (e == 0 && renameat(d->fd, w->tmp, d->fd, w->name) != 0) e = errno;
  if (e == 0) w->tmp[0] = '\0'; /* renamed: nothing to remove */
  writer_close(w);
  if (e != 0) {
    sp_set_err(why, whylen, "cannot complete %s/%s: %s", sp_utf8_escape(d->root, esc, sizeof esc),
               w->name, strerror(e));
    return SEALPROV_ERR_IO;
  }
  sp_shimage_verdict vd = sp_shimage_map(d, src, NULL, out, why, whylen);
  if (vd != SP_SHIMG_MATCH) return SEALPROV_ERR_IO;
  sp_shimage_unmap(w);
  return SEALPROV_OK;
}

void sp_shimage_keep(sp_shimage *w) {
  if (w != NULL) writer_close(w);
}

void sp_shimage_abort(sp_shimage *w) {
  if (w == NULL) return;
  writer_close(w);
  sp_shimage_unmap(w);
}
