/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* spa.h -- partition assignment files (.spa): one sealprov_assignment on disk.
 *
 * Format version 1, every integer little-endian (docs/formats.md has the table):
 *   offset  size  field
 *        0     8  magic "SEALSPA1"
 *        8     4  version (1)
 *       12     4  scalar encoding (0 = canonical little-endian; the only one in v1)
 *       16     8  abc_size
 *       24     8  inp_size
 *       32     8  aux_size
 *       40     8  a_aux_bit_len      48  8  a_aux_popcount
 *       56     8  b_inp_bit_len      64  8  b_inp_popcount
 *       72     8  b_aux_bit_len      80  8  b_aux_popcount
 *       88     8  reserved (0)
 *       96        a[abc_size], b[abc_size], c[abc_size], inp[inp_size], aux[aux_size]
 *                 (32 bytes each), then the a_aux, b_inp, b_aux density bitmaps
 *                 (ceil(bit_len / 64) 64-bit words each)
 *      end-8     8  XXH64 (seed 0) of every preceding byte
 */
#ifndef SEALPROV_SPA_H
#define SEALPROV_SPA_H

#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_SPA_MAGIC "SEALSPA1"
#define SP_SPA_VERSION 1u
#define SP_SPA_HEADER_BYTES 96u

/* An assignment file read into private memory. asg points into map (canonical
 * scalars); the file is not touched again after sp_spa_read returns. */
typedef struct sp_spa {
  char *path;
  void *map; /* the file's bytes in private memory (the name predates pread) */
  size_t map_len;
  sealprov_assignment asg;
} sp_spa;

/* Reads (pread, no mapping) and validates path: magic, version, encoding, reserved
 * field, sizes (with overflow checks) against the file length, density bit lengths against the sizes,
 * bits past bit_len, popcounts, the checksum, and every scalar < r. Returns OK, IO,
 * ASSIGNMENT or NO_MEMORY; err names the file, field, value and byte offset. A file that
 * shrinks or changes while it is read gives IO. */
int sp_spa_read(const char *path, sp_spa **out, char *err, size_t errlen);
void sp_spa_free(sp_spa *spa);

/* Writes asg (canonical scalars, written as given: the writer does not validate, so
 * tests can produce bad files) to path atomically (temporary file + rename).
 * Returns OK or IO. */
int sp_spa_write(const char *path, const sealprov_assignment *asg, char *err, size_t errlen);

/* XXH64 (seed 0): streaming state. */
typedef struct sp_xxh64 {
  uint64_t v[4];
  uint64_t total;
  uint8_t buf[32];
  size_t buffered;
} sp_xxh64_state;
void sp_xxh64_init(sp_xxh64_state *h);
void sp_xxh64_update(sp_xxh64_state *h, const void *data, size_t len);
uint64_t sp_xxh64_final(const sp_xxh64_state *h);
uint64_t sp_xxh64(const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
