/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* vrecord.h -- records of completed validations of parameter files: a load that checked
 * every point of a .params file writes one; a later load of the same unchanged file, in
 * any process of the host, finds it and skips the subgroup checks while it verifies the
 * file's keyed digest (fdigest.h). docs/formats.md ("Validation records") has the
 * format; docs/configuration.md (params_validation_cache) where the store lives.
 *
 * The store is a folder (the root) holding
 *   secret        SP_FDIGEST_SECRET_BYTES random bytes (getrandom), mode 0600: the key of
 *                 every digest in the store
 *   validated/    one record per parameter file, named after its canonical path
 * Nothing in it is trusted unless the root, validated/, the record and the secret are
 * owned by the process's effective user or root and writable by nobody else (the
 * secret readable by nobody else either), checked with fstat on the descriptors that
 * are then read (openat, O_NOFOLLOW), as ssh treats its key files. Records are written
 * to a temporary file and renamed over the old one, so a reader sees a whole record
 * or none, and processes writing the same record at once are safe (the last rename
 * wins; each is whole). */
#ifndef SEALPROV_FORMATS_VRECORD_H
#define SEALPROV_FORMATS_VRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/stat.h>

#include "formats/srs.h" /* sp_file_id */

#ifdef __cplusplus
extern "C" {
#endif

/* The loader's point checks, as a number: a record of another version is stale. Bump it
 * whenever the checks a full load runs change (what a record vouches for changes). */
#define SP_VALIDATION_VERSION 1
/* The record format's own version (its first line). */
#define SP_VRECORD_FORMAT 1
#define SP_VRECORD_MAX_BYTES 8192
#define SP_VRECORD_DIR "validated"
#define SP_VRECORD_SECRET "secret"
/* A record's file name: 32 hex digits and ".rec". */
#define SP_VRECORD_NAME_MAX 40

typedef enum sp_vrec_verdict {
  SP_VREC_MATCH,     /* trusted, every field matches: digest is the one to expect */
  SP_VREC_NONE,      /* no record for this path */
  SP_VREC_STALE,     /* a record of this path with another field (why names it) */
  SP_VREC_UNTRUSTED, /* owner, mode or type not as required (why says which) */
  SP_VREC_BAD,       /* not a record (garbage, truncated, too long) or unreadable */
} sp_vrec_verdict;

typedef struct sp_vrecord_store sp_vrecord_store;

/* The store's default root ([provider] params_validation_cache = auto):
 * $XDG_CACHE_HOME/sealprov when XDG_CACHE_HOME is an absolute path; else
 * /var/cache/sealprov for effective user 0; else $HOME/.cache/sealprov ($HOME, else the
 * user's home in the password database). False, with why, when there is none. */
bool sp_vrecord_default_root(char *buf, size_t len, char *why, size_t whylen);

/* Opens the store at root (an absolute path), making what is missing: root and its
 * missing parents (mode 0700), the secret, validated/. NULL when the store cannot be
 * used, with why (one line) and *level: SEALPROV_LOG_INFO when it is missing, read-only
 * or unreadable; SEALPROV_LOG_WARN when it is there but not trusted. A store whose
 * secret exists but where nothing can be written opens read-only (records are used,
 * none is written; sp_vrecord_write says why). */
sp_vrecord_store *sp_vrecord_open(const char *root, int *level, char *why, size_t whylen);
void sp_vrecord_close(sp_vrecord_store *s);
/* The digest key (SP_FDIGEST_SECRET_BYTES bytes), valid until close. */
const uint8_t *sp_vrecord_secret(const sp_vrecord_store *s, size_t *len);

/* Whether what the descriptor fd holds (shown as `what` in why) may be trusted as the
 * store's files are: of type (S_IFDIR or S_IFREG), owned by the effective user or root,
 * writable by nobody else (and, for a secret, readable by nobody else). st gets its
 * fstat; false with why, an fstat failure included. The shared image (shimage.h) holds
 * its folder and images to the same rules. */
bool sp_vrecord_fd_trusted(int fd, mode_t type, bool secret, const char *what, char *why,
                           size_t whylen, struct stat *st);

/* The record's file name for a canonical path (unkeyed XXH3-128 of the path, in hex). */
void sp_vrecord_name(const char *path, char name[SP_VRECORD_NAME_MAX]);
/* The record's path as logs show it ("ROOT/validated/NAME"). */
void sp_vrecord_shown(const sp_vrecord_store *s, const char *path, char *out, size_t len);

/* The record of path (canonical) against the file's identity id: the verdict, the
 * digest to expect in digest when SP_VREC_MATCH, and otherwise why (one line). */
sp_vrec_verdict sp_vrecord_lookup(sp_vrecord_store *s, const char *path, const sp_file_id *id,
                                  uint8_t digest[16], char *why, size_t whylen);
/* Writes (replaces) the record of path: its identity and the digest of the bytes that
 * were checked. SEALPROV_OK, or a status with why (read-only store, a path a record
 * cannot hold, an I/O error). Never leaves a partial record. */
int sp_vrecord_write(sp_vrecord_store *s, const char *path, const sp_file_id *id,
                     const uint8_t digest[16], char *why, size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
