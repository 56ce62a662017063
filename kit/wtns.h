/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* wtns.h -- circom .wtns (witness) files (wtns.c). */
#ifndef SEALPROV_KIT_WTNS_H
#define SEALPROV_KIT_WTNS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A witness file's values as canonical 32-byte little-endian scalars, in wire order. */
typedef struct sp_wtns {
  uint8_t *values; /* n x 32 bytes */
  uint64_t n;
} sp_wtns;

/* Loads a circom .wtns file (versions 1 and 2), read with pread. Statuses: OK,
 * INVALID_ARGUMENT, IO, UNSUPPORTED (another field: the message names its prime and
 * the curve when known), ASSIGNMENT (malformed: names file, section, offset; a value
 * not below r: names its index), NO_MEMORY. */
int sp_wtns_load(const char *path, sp_wtns **out, char *err, size_t errlen);
void sp_wtns_free(sp_wtns *w);

/* Writes a .wtns file (version 2) of n canonical little-endian values (tests, setup).
 * Statuses: OK, INVALID_ARGUMENT (n > 2^32 - 1: nothing written), IO (the file cannot
 * be made, or a write failed: what was written is removed). */
int sp_wtns_write(const char *path, const uint8_t *values, uint64_t n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
