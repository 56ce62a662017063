/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* srs_internal.h -- what the .params reader's files share (srs.c, srs_set.c,
 * points.c, manifest.c); nothing else includes it. */
#ifndef SEALPROV_FORMATS_SRS_INTERNAL_H
#define SEALPROV_FORMATS_SRS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/srs.h"

#define G1_BYTES 96u
#define G2_BYTES 192u
#define VK_FIXED_BYTES (3u * G1_BYTES + 3u * G2_BYTES) /* 864 */
#define MANIFEST_MAX_BYTES ((size_t)16 << 20)
#define DIGEST_HEX 32u /* parameters.json: the first 32 hex digits of the BLAKE2b-512 */

/* Decoding writes each point's slot in the final array; the staging chunk is separate,
 * so the host copy is exactly the decoded arrays. */
_Static_assert(sizeof(g1_affine_t) == G1_BYTES && sizeof(g2_affine_t) == G2_BYTES,
               "decoded points are the size of their encoding");

/* ---- srs_set.c ---- */

/* Frees a set now, whatever its references (a load that failed; the last release). */
void sp_srs_free(sp_srs *s);

/* ---- points.c: parallel point decoding ---- */

typedef struct decode_ctx {
  const uint8_t *base; /* first encoded point of the chunk */
  void *out;           /* first decoded slot of the chunk */
  bool g2;
  unsigned flags;
  /* lowest failing index in the chunk, so the message does not depend on the thread
   * count; its reason is recomputed from the staging bytes (one point) */
  _Atomic uint64_t first_bad;
} decode_ctx;

/* bls_parallel_for body: decodes the points [begin, end) of the chunk of ctx (a
 * decode_ctx), checking each on the curve and not infinity; the lowest failing index
 * goes to first_bad. */
void sp_srs_decode_range(void *vctx, size_t begin, size_t end, unsigned chunk);
/* Why the encoded point enc is refused (flags, coordinates, curve, infinity). */
const char *sp_srs_point_error(const uint8_t *enc, bool g2, unsigned flags);
/* The lowest index of n decoded points not in the subgroup (n when all are), on
 * nthreads threads. */
size_t sp_srs_cpu_subgroup_first_bad(const void *pts, bool g2, size_t n, unsigned nthreads);

/* ---- manifest.c: parameters.json ---- */

typedef struct manifest_entry {
  char name[1024];
  char digest[128];
  bool has_digest;
  size_t entries; /* entries in the manifest */
} manifest_entry;

/* Reads the manifest and finds the entry for the loaded file's base name; err names the
 * manifest. OK with e filled, or IO / PARAMS / NO_MEMORY. */
int sp_srs_manifest_lookup(const char *manifest, const char *file_path, const char *file_esc,
                           manifest_entry *e, char *err, size_t errlen);

#endif
