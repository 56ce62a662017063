/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* srs.h -- loaded Groth16 parameters (bellperson .params / .vk), shared by all
 * devices, reference counted. */
#ifndef SEALPROV_SRS_H
#define SEALPROV_SRS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bls12_381/bls12_381.h"
#include "formats/srs_devcopy.h" /* sp_srs_devcopy, sp_srs_bad */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_vk {
  g1_affine_t alpha_g1, beta_g1, delta_g1;
  g2_affine_t beta_g2, gamma_g2, delta_g2;
  g1_affine_t *ic; /* ic_len points: one per public input, ic[0] for ONE */
  size_t ic_len;
  groth16_pvk_t pvk; /* prepared for verification */
} sp_vk;

typedef struct sp_srs {
  atomic_int refs;
  char *path;
  bool vk_only; /* loaded from a .vk: no proving vectors */
  sp_vk vk;
  /* Proving vectors, decoded to affine (blst layout; no infinity points). */
  g1_affine_t *h;
  size_t h_len; /* domain_size - 1 */
  g1_affine_t *l;
  size_t l_len; /* one per aux variable */
  g1_affine_t *a;
  size_t a_len; /* inputs, then aux in A (density order) */
  g1_affine_t *b_g1;
  size_t b_g1_len; /* inputs in B, then aux in B */
  g2_affine_t *b_g2;
  size_t b_g2_len;
  unsigned log_domain; /* h_len + 1 == 1 << log_domain */
  /* A direct load (sp_srs_load_opts.sink): the proving vectors exist only on the
   * devices of devcopy, h, l, a, b_g1 and b_g2 are NULL (their lengths are set).
   * Nothing may stream this set or prove it on the CPU (docs/abi.md). */
  bool device_only;
  sp_srs_devcopy *devcopy;
  void (*devcopy_free)(sp_srs_devcopy *c); /* called by the last release */
  /* Called on the last release, before freeing, so engines drop device copies. */
  void (*on_free)(struct sp_srs *srs, void *user);
  void *on_free_user;
  /* Where the proving vectors live when the set does not own them (a shared image,
   * shimage.h): vectors_given is set by a load into given memory (sp_srs_vectors), and
   * the last release calls vectors_release(vectors_owner) instead of freeing them. */
  bool vectors_given;
  void *vectors_owner;
  void (*vectors_release)(void *owner);
  /* The host memory of the proving vectors (sp_srs_host_memory): host_bytes the set's
   * own (decoded by its load into memory of this process), image_bytes mapped from the
   * shared image image_path (malloc'd; NULL when none). */
  uint64_t host_bytes, image_bytes;
  char *image_path;
  bool mem_tracked;        /* in the list of sets with host memory (srs_set.c) */
  struct sp_srs *mem_next; /* next in that list */
} sp_srs;

/* Progress of a load, passed to sp_srs_load_opts.progress after every chunk (and once
 * at the end with done = true). */
typedef struct sp_srs_progress {
  const char *path;   /* the file being read (after name resolution) */
  const char *vector; /* vector of the last chunk ("h", "l", ...) */
  uint64_t bytes_done, bytes_total;
  uint64_t points_checked; /* decoded and checked (on-curve, and subgroup when on) */
  double elapsed_ms;
  double bytes_per_s, points_per_s; /* averages since the start of the load */
  bool done;
} sp_srs_progress;
/* Return 0 to go on; anything else stops the load with SEALPROV_ERR_IO ("stopped by
 * the progress callback"). */
typedef int (*sp_srs_progress_fn)(void *user, const sp_srs_progress *p);

/* Subgroup checker hook: pts are n decoded affine points (g1_affine_t[] when g2 is
 * false, else g2_affine_t[]), already checked on the curve and not infinity. Returns
 * SEALPROV_OK with *first_bad = the lowest index not in the subgroup, or n when all are;
 * any other status means the checker itself failed (err says why): the loader then logs
 * it and checks that chunk and the rest of the file on the CPU. */
typedef int (*sp_srs_check_fn)(void *user, bool g2, const void *pts, size_t n, size_t *first_bad,
                               char *err, size_t errlen);

/* Log lines from the loader (level: a sealprov_log_level). */
typedef void (*sp_srs_log_fn)(void *user, int level, const char *msg);

/* The identity of a file as the loader opened it (fstat of the descriptor it reads):
 * what a validation record is tied to besides the path and the digest (vrecord.h). */
typedef struct sp_file_id {
  uint64_t dev, ino, size;
  int64_t mtime_ns, ctime_ns; /* nanoseconds since the epoch */
} sp_file_id;

/* What a load with a digest (sp_srs_load_opts.digest_secret) saw. */
typedef struct sp_srs_validation {
  sp_file_id id;
  bool skipped;     /* checked_before said yes: no subgroup checks were run */
  bool digest_done; /* digest is the keyed digest (fdigest.h) of every byte read */
  bool stale;       /* skipped, and the digest differed: the load failed with PARAMS */
  uint8_t digest[16];
  double digest_cpu_ms; /* time the reading threads spent hashing, added up */
  unsigned threads;     /* the most threads that read (and hashed) a chunk */
} sp_srs_validation;

/* Where a direct load sends the proving vectors instead of decoding them on the host
 * (the CUDA backend implements it: cuda/points/points.cu). Call order: begin once,
 * when h's length is known (subgroup: whether the sink checks the subgroup, false when
 * the checks are off or skipped; take = false: the host load goes on as if there were no
 * sink; *chunk, which comes in as chunk_bytes, may be lowered for a small file); then
 * per vector: vector(), and per chunk buffer() (a page-locked buffer of up to *chunk
 * bytes, free once the chunk that used it last is checked) -> the loader
 * preads the chunk into it -> submit(); then finish() (waits for every check). buffer,
 * submit and finish return SEALPROV_ERR_PARAMS with *bad filled when a point (of any
 * chunk so far; the lowest in file order) failed: the loader words the message. */
typedef struct sp_srs_sink {
  void *user;
  size_t chunk_bytes;
  int (*begin)(void *user, uint64_t bytes, unsigned log_domain, bool subgroup, bool *take,
               size_t *chunk, char *err, size_t errlen);
  int (*vector)(void *user, int vec, size_t n, char *err, size_t errlen);
  int (*buffer)(void *user, size_t bytes, void **buf, sp_srs_bad *bad, char *err, size_t errlen);
  int (*submit)(void *user, int vec, size_t index0, size_t n, uint64_t off0, sp_srs_bad *bad,
                char *err, size_t errlen);
  int (*finish)(void *user, sp_srs_bad *bad, char *err, size_t errlen);
} sp_srs_sink;

/* Memory for the proving vectors that the loader does not allocate: vec[v] holds len[v]
 * points of vector v (h, l, a, b_g1, b_g2; g2_affine_t for b_g2, else g1_affine_t).
 * decoded = false: the loader decodes into it with every check as into its own arrays,
 * and a vector of another length fails the load (PARAMS). decoded = true: the vectors
 * are there already, decoded and checked by an earlier load of the same file (a shared
 * image): the loader reads and checks the verifying key and every length, reads no
 * proving point, and the file must be the one of identity id (else the load fails
 * with PARAMS and validation->stale, when given). A set loaded either way has
 * vectors_given; the caller sets vectors_owner and vectors_release. */
typedef struct sp_srs_vectors {
  void *vec[5];
  uint64_t len[5];
  bool decoded;
  sp_file_id id;
} sp_srs_vectors;

typedef struct sp_srs_load_opts {
  bool vk_only;        /* a .vk file: no proving vectors */
  bool subgroup_check; /* check every point's subgroup membership */
  unsigned nthreads;   /* decoding threads (0 = 1) */
  /* Optional: a Filecoin parameters.json; the file's BLAKE2b-512 (first 16 bytes) must
   * match the "digest" of the entry named by the file's base name. */
  const char *manifest;
  sp_srs_progress_fn progress;
  void *progress_user;
  /* Optional: subgroup checks of the proving vectors (h, l, a, b_g1, b_g2) go to this
   * hook, chunk by chunk, instead of the CPU; the verifying key's points are always
   * checked on the CPU. Used only when subgroup_check is true. */
  sp_srs_check_fn check;
  void *check_user;
  sp_srs_log_fn log;
  void *log_user;
  /* Bytes read per chunk (0 = SP_SRS_CHUNK_BYTES, at most an eighth of the file but at
   * least 1 MiB); rounded down to whole points. */
  size_t chunk_bytes;
  /* Optional: a direct load (see sp_srs_sink); the device copies are attached by the
   * caller after a successful load (sp_srs.devcopy). Only for .params files. */
  const sp_srs_sink *sink;
  /* Out: whether the sink took the proving vectors (the set is device_only). */
  bool *sink_taken;
  /* Smallest piece a chunk's read is split into, one thread each (0 = 4 MiB; tests). */
  size_t read_piece;
  /* Optional: the keyed digest (fdigest.h) of every byte read, computed by the reading
   * threads as they read, into *validation (which must then be set). */
  const uint8_t *digest_secret;
  size_t digest_secret_len;
  sp_srs_validation *validation;
  /* Optional, with a digest and subgroup_check: asked once the file is open, with its
   * identity. True, with the digest the file must have in want, when these bytes were
   * checked before (a validation record, vrecord.h): the proving vectors' subgroup checks
   * are then skipped, and a digest that differs at the end fails the load with PARAMS
   * and validation->stale (nothing unchecked is handed out: the caller loads again with
   * every check). */
  bool (*checked_before)(void *user, const sp_file_id *id, uint8_t want[16]);
  void *checked_before_user;
  /* Optional, for a .params load: memory given for vectors already decoded
   * (vectors->decoded; no manifest, digest or sink with it) ... */
  const sp_srs_vectors *vectors;
  /* ... or asked for once the proving vectors are known to be decoded on the host (not
   * taken by a sink), before the first is read: SEALPROV_OK with out filled (decoded
   * false) to decode into it, or with out->vec[0] NULL to decode into the loader's own
   * arrays; any other status stops the load with it (err says why). */
  int (*vectors_for)(void *user, sp_srs_vectors *out, char *err, size_t errlen);
  void *vectors_for_user;
} sp_srs_load_opts;

#define SP_SRS_CHUNK_BYTES ((size_t)32 << 20)
/* Where a bare file name (no '/') is looked up, unless FIL_PROOFS_PARAMETER_CACHE is
 * set: the Filecoin parameter cache. */
#define SP_SRS_DEFAULT_PARAM_CACHE "/var/tmp/filecoin-proof-parameters"

/* Load a .params (vk_only = false) or .vk (vk_only = true) file. A bare name resolves
 * under $FIL_PROOFS_PARAMETER_CACHE (default SP_SRS_DEFAULT_PARAM_CACHE). The file is
 * read with pread() in chunks, each decoded in parallel into the final arrays (no
 * mapping: a file that shrinks or changes during the load fails it with
 * SEALPROV_ERR_IO, naming the file, vector and byte offset). Every point is checked on
 * the curve and not infinity; subgroup membership when opts->subgroup_check. On
 * failure returns a sealprov_status (IO, PARAMS, NO_MEMORY, INVALID_ARGUMENT) and writes
 * a message naming the file, vector, index and byte offset into err. */
int sp_srs_load_ex(const char *path, const sp_srs_load_opts *opts, sp_srs **out, char *err,
                   size_t errlen);
/* sp_srs_load_ex with only the first three options. */
int sp_srs_load(const char *path, bool vk_only, bool subgroup_check, unsigned nthreads,
                sp_srs **out, char *err, size_t errlen);
/* The path a load of `path` reads: path itself when it has a '/', else the name under
 * the parameter cache. Returns false when buf is too small. */
bool sp_srs_resolve_path(const char *path, char *buf, size_t buflen);
/* The vector lengths of a .params file, read from its length fields alone (six small
 * preads, no point decoded): what a load will hold, known before the load. */
typedef struct sp_srs_lengths {
  uint64_t ic_len, h_len, l_len, a_len, b_g1_len, b_g2_len;
  unsigned log_domain;
} sp_srs_lengths;
/* OK with *out filled; IO when the file cannot be read, PARAMS when its lengths do not
 * make a .params file of exactly its size (the load itself then says what is wrong),
 * INVALID_ARGUMENT for an empty or too long path. Names are looked up as
 * sp_srs_load_ex looks them up. */
int sp_srs_peek_lengths(const char *path, sp_srs_lengths *out);
void sp_srs_retain(sp_srs *srs);
void sp_srs_release(sp_srs *srs);

/* The host memory of the proving vectors of every live set of this process, one call
 * of fn per set that holds some (under a lock: fn must not load or release a set). */
typedef void (*sp_srs_memory_fn)(void *user, const sp_srs *srs);
void sp_srs_host_memory(sp_srs_memory_fn fn, void *user);
/* Adds a set to that list (a load does; the caller when it sets image_bytes later). */
void sp_srs_memory_track(sp_srs *srs);

#ifdef __cplusplus
}
#endif
#endif
