/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fdigest.h -- a keyed digest of a whole file's bytes, computed from the reads a loader
 * already makes, on the threads that make them (no second pass, no extra I/O).
 *
 * The file is cut into blocks of SP_FDIGEST_BLOCK bytes at fixed file offsets (the last
 * one shorter); each block's XXH3-128 under the secret is a leaf, and the digest is the
 * XXH3-128, under the same secret, of a header (the format's name, the file size, the
 * block size) followed by every leaf in file order (canonical, big-endian). So the
 * result depends only on the file's bytes and the secret, never on how the reads were
 * chunked or how many threads made them. XXH3 is libxxhash's (Debian's libxxhash-dev).
 *
 * XXH3 is not a cryptographic hash: the digest tells changed bytes from unchanged ones
 * only because nobody who could craft a file knows the secret (docs/formats.md,
 * "Validation records"). */
#ifndef SEALPROV_FORMATS_FDIGEST_H
#define SEALPROV_FORMATS_FDIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_FDIGEST_BLOCK ((uint64_t)1 << 20)
#define SP_FDIGEST_BYTES 16
/* The secret's size: random bytes (getrandom), at least XXH3_SECRET_SIZE_MIN (136). */
#define SP_FDIGEST_SECRET_BYTES 192
/* The name of the construction, as the validation records spell it. */
#define SP_FDIGEST_NAME "xxh3-128-keyed-1mib-tree"

typedef struct sp_fdigest sp_fdigest;

/* A digest of a file of `size` bytes under `secret` (secret_len >= 136; the bytes are
 * copied). NULL when out of memory or the secret is too short. */
sp_fdigest *sp_fdigest_new(const uint8_t *secret, size_t secret_len, uint64_t size);
void sp_fdigest_free(sp_fdigest *d);

/* The bytes [off, off + len) of the file are in buf: hashes every block the range covers
 * whole. Safe on several threads at once for disjoint ranges. */
void sp_fdigest_blocks(sp_fdigest *d, uint64_t off, const void *buf, size_t len);
/* The rest of the same range: the bytes of the (at most two) blocks it covers only in
 * part. One thread, ranges in file order (each starting where the last ended, or on a
 * block boundary after whole blocks). */
void sp_fdigest_edges(sp_fdigest *d, uint64_t off, const void *buf, size_t len);
/* Both, on the calling thread. */
void sp_fdigest_update(sp_fdigest *d, uint64_t off, const void *buf, size_t len);

/* The digest (SP_FDIGEST_BYTES, canonical), once every byte of the file was given once
 * and in order: true. False when a byte is missing or came out of order (out is then
 * zeroed: no digest to trust). */
bool sp_fdigest_final(sp_fdigest *d, uint8_t out[SP_FDIGEST_BYTES]);
/* Time the threads spent hashing, added up (ms). */
double sp_fdigest_cpu_ms(const sp_fdigest *d);

/* Where a reader that splits [off, off + len) among threads should put the boundary
 * nearest after off + at: the next block boundary (clamped to the range's end), so that
 * every block inside the range lies whole within one thread's piece. */
size_t sp_fdigest_split(uint64_t off, size_t len, size_t at);

#ifdef __cplusplus
}
#endif
#endif
