/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* shimage.h -- the host's one shared copy of a .params file's proving vectors: a decoded,
 * validated, read-only image in a folder on tmpfs or hugetlbfs that every process of
 * the host maps (docs/design.md, "One copy of the parameters per host").
 *
 * An image is one file, NAME.img (NAME as the validation record's, vrecord.h): a header
 * page (sp_shimage_header), then h, l, a, b_g1 and b_g2 as decoded affine points (the
 * layout of sp_srs), each on a SP_SHIMAGE_ALIGN boundary. The first process takes an
 * exclusive lock (NAME.lock), writes the image under a temporary name with its whole
 * size reserved up front, and renames it when complete; the others map it read-only.
 * An image is used only when its folder and itself can have been written by nobody but
 * the effective user or root (the validation records' rules) and its header matches
 * the source file's identity and digest now; anything else is refused with why. */
#ifndef SEALPROV_FORMATS_SHIMAGE_H
#define SEALPROV_FORMATS_SHIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/srs.h" /* sp_file_id */

#ifdef __cplusplus
extern "C" {
#endif

#define SP_SHIMAGE_MAGIC "SPSHIMG" /* 8 bytes with its NUL */
#define SP_SHIMAGE_FORMAT 1
#define SP_SHIMAGE_HEADER_BYTES 4096
#define SP_SHIMAGE_ALIGN 4096
#define SP_SHIMAGE_BOM 0x01020304u
#define SP_SHIMAGE_COMPLETE 0x4554454c504d4f43ull /* "COMPLETE" in a little-endian u64 */
#define SP_SHIMAGE_PATH_MAX 3584
#define SP_SHIMAGE_VECTORS 5 /* h, l, a, b_g1, b_g2 */

/* How the image's points were checked. */
enum { SP_SHIMAGE_SUBGROUP = 1, SP_SHIMAGE_CURVE = 2 };

/* The header page (integers in the byte order of the host that made it: bom says which,
 * and an image of another order is refused). hash is the XXH3-128 of every byte before
 * it; the rest of the page is zero. */
typedef struct sp_shimage_header {
  char magic[8];
  uint32_t format, validation_version, bom, g1_bytes, g2_bytes, checks;
  uint32_t log_domain, zero;
  uint64_t dev, ino, size;
  int64_t mtime_ns, ctime_ns;
  uint8_t digest[16]; /* the source's keyed digest, as its validation record has it */
  uint64_t len[SP_SHIMAGE_VECTORS], off[SP_SHIMAGE_VECTORS];
  uint64_t total;                 /* the image file's size */
  uint64_t state;                 /* SP_SHIMAGE_COMPLETE */
  char path[SP_SHIMAGE_PATH_MAX]; /* the source's canonical path */
  uint8_t hash[16];
} sp_shimage_header;

/* The source an image is of: canonical path, identity (fstat), digest, checks. */
typedef struct sp_shimage_src {
  const char *path;
  sp_file_id id;
  uint8_t digest[16];
  int checks; /* SP_SHIMAGE_SUBGROUP: only such an image serves; CURVE: either does */
  /* Optional: the digest asked for at each look at an image instead of digest (the
   * source's trusted validation record now: under the lock it may have been written
   * by the process that made the image meanwhile). False: there is none, and no image
   * matches (SP_SHIMG_STALE). */
  bool (*digest_now)(void *user, const sp_file_id *id, uint8_t digest[16]);
  void *digest_user;
} sp_shimage_src;

/* The set's shape (sp_srs_peek_lengths): vector lengths in points, the domain's log. */
typedef struct sp_shimage_layout {
  uint64_t len[SP_SHIMAGE_VECTORS];
  unsigned log_domain;
} sp_shimage_layout;

/* A mapped image: read-only when from sp_shimage_map or commit, writable from begin. */
typedef struct sp_shimage {
  void *base;
  size_t bytes;
  void *vec[SP_SHIMAGE_VECTORS]; /* h, l, a, b_g1, b_g2 inside the mapping */
  sp_shimage_layout layout;
  int checks;
  /* the writer's: its descriptors and temporary name */
  int dir_fd, fd, lock_fd;
  char tmp[64], name[48];
} sp_shimage;

typedef enum sp_shimage_verdict {
  SP_SHIMG_MATCH,     /* mapped: every check passed */
  SP_SHIMG_NONE,      /* no image of this source */
  SP_SHIMG_STALE,     /* an image of another source, version, digest or shape: rebuild */
  SP_SHIMG_UNTRUSTED, /* owner, mode or type not as required: ignore it, never rebuild */
  SP_SHIMG_BAD,       /* not a whole image (truncated, garbage, unfinished): rebuild */
} sp_shimage_verdict;

typedef struct sp_shimage_dir sp_shimage_dir;

/* The default folder (params_shared_image = auto): /dev/shm/sealprov-EUID. */
void sp_shimage_default_dir(char *buf, size_t len);
/* Opens the folder root (absolute; made with mode 0700 when missing, not its parents).
 * NULL with why when it cannot be used: *untrusted tells a folder that is there but
 * not trusted (a WARN) from one that is missing or unreadable. */
sp_shimage_dir *sp_shimage_dir_open(const char *root, bool *untrusted, char *why, size_t whylen);
void sp_shimage_dir_close(sp_shimage_dir *d);

/* Maps the image of src read-only when it is whole, trusted and matches src (and want,
 * when not NULL): SP_SHIMG_MATCH with *out; else the verdict and why. */
sp_shimage_verdict sp_shimage_map(sp_shimage_dir *d, const sp_shimage_src *src,
                                  const sp_shimage_layout *want, sp_shimage **out, char *why,
                                  size_t whylen);

/* Takes the image's lock (waiting for a process that is making it) and looks again: a
 * matching image made meanwhile comes back mapped in *found (lock released, *out NULL).
 * Else an untrusted image is SEALPROV_ERR_IO with why (nothing is made); otherwise the
 * temporary files of dead creators are removed and a new image of lay's size is
 * reserved whole and mapped writable in *out: the caller fills out->vec and then
 * commits or aborts. ENOSPC (a full tmpfs) is SEALPROV_ERR_NO_MEMORY, why naming the
 * folder, the bytes needed and those free. */
int sp_shimage_begin(sp_shimage_dir *d, const sp_shimage_src *src, const sp_shimage_layout *lay,
                     sp_shimage **out, sp_shimage **found, char *why, size_t whylen);
/* Writes the header, renames the image into place, releases the lock and maps it
 * read-only into *out: SEALPROV_OK, and w is unmapped and freed. Else a status with why,
 * and w's descriptors are closed, its temporary file removed, the lock released, but
 * its writable mapping stays: what the caller wrote into it is still there, the
 * caller's own (nobody else maps it), until sp_shimage_unmap(w). */
int sp_shimage_commit(sp_shimage_dir *d, const sp_shimage_src *src, sp_shimage *w, sp_shimage **out,
                      char *why, size_t whylen);
/* Removes the temporary file and releases the lock (w is freed). */
void sp_shimage_abort(sp_shimage *w);
/* Removes the temporary file and releases the lock, but keeps w's writable mapping:
 * what was written into it stays the caller's own until sp_shimage_unmap(w). */
void sp_shimage_keep(sp_shimage *w);
void sp_shimage_unmap(sp_shimage *m);

/* The image's file name for a canonical path ("NAME.img"). */
void sp_shimage_name(const char *path, char name[48]);
/* The image's path in folder d for a canonical path ("ROOT/NAME.img"). */
void sp_shimage_path(const sp_shimage_dir *d, const char *path, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
