/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* blake2b.h -- BLAKE2b (RFC 7693), unkeyed, streaming.
 *
 * Used to check a parameter file against a Filecoin parameters.json manifest, whose
 * "digest" is the first 32 hex digits (16 bytes) of the BLAKE2b-512 of the whole file
 * (rust-fil-proofs' paramfetch: blake2b_simd::State::new(), to_hex()[..32]). */
#ifndef SEALPROV_BLAKE2B_H
#define SEALPROV_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_BLAKE2B_BLOCK 128u
#define SP_BLAKE2B_MAX_OUT 64u

typedef struct sp_blake2b {
  uint64_t h[8];
  uint64_t t[2]; /* bytes compressed so far (128-bit counter) */
  uint8_t buf[SP_BLAKE2B_BLOCK];
  size_t buffered; /* bytes in buf (1..128 once anything was added) */
  size_t outlen;
} sp_blake2b_state;

/* outlen: 1..64 bytes (64 = BLAKE2b-512). Returns 0, or -1 for a bad outlen. */
int sp_blake2b_init(sp_blake2b_state *s, size_t outlen);
void sp_blake2b_update(sp_blake2b_state *s, const void *data, size_t len);
/* Writes s->outlen bytes to out. The state must not be updated afterwards. */
void sp_blake2b_final(sp_blake2b_state *s, uint8_t *out);
/* One call: BLAKE2b with an outlen-byte digest of data. */
int sp_blake2b(uint8_t *out, size_t outlen, const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
