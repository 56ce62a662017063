/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* blake2b.c -- BLAKE2b written from RFC 7693 (sections 2 and 3), unkeyed only.
 * Tested against the RFC's "abc" vector (Appendix A) and Node's blake2b512. */
#include "formats/blake2b.h"

#include <string.h>

static const uint64_t IV[8] = {
    UINT64_C(0x6A09E667F3BCC908), UINT64_C(0xBB67AE8584CAA73B), UINT64_C(0x3C6EF372FE94F82B),
    UINT64_C(0xA54FF53A5F1D36F1), UINT64_C(0x510E527FADE682D1), UINT64_C(0x9B05688C2B3E6C1F),
    UINT64_C(0x1F83D9ABFB41BD6B), UINT64_C(0x5BE0CD19137E2179),
};

static const uint8_t SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t load64le(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

#define G(a, b, c, d, x, y)         \
  do {                              \
    v[a] = v[a] + v[b] + (x);       \
    v[d] = rotr64(v[d] ^ v[a], 32); \
    v[c] = v[c] + v[d];             \
    v[b] = rotr64(v[b] ^ v[c], 24); \
    v[a] = v[a] + v[b] + (y);       \
    v[d] = rotr64(v[d] ^ v[a], 16); \
    v[c] = v[c] + v[d];             \
    v[b] = rotr64(v[b] ^ v[c], 63); \
  } while (0)

/* RFC 7693 3.2: the compression function F. */
static void compress(sp_blake2b_state *s, const uint8_t *block, int last) {
  uint64_t v[16], m[16];
  for (int i = 0; i < 16; i++) m[i] = load64le(block + 8 * i);
  for (int i = 0; i < 8; i++) {
    v[i] = s->h[i];
    v[i + 8] = IV[i];
  }
  v[12] ^= s->t[0];
  v[13] ^= s->t[1];
  if (last) v[14] = ~v[14];
  for (int r = 0; r < 12; r++) {
    const uint8_t *z = SIGMA[r];
    G(0, 4, 8, 12, m[z[0]], m[z[1]]);
    G(1, 5, 9, 13, m[z[2]], m[z[3]]);
    G(2, 6, 10, 14, m[z[4]], m[z[5]]);
    G(3, 7, 11, 15, m[z[6]], m[z[7]]);
    G(0, 5, 10, 15, m[z[8]], m[z[9]]);
    G(1, 6, 11, 12, m[z[10]], m[z[11]]);
    G(2, 7, 8, 13, m[z[12]], m[z[13]]);
    G(3, 4, 9, 14, m[z[14]], m[z[15]]);
  }
  for (int i = 0; i < 8; i++) s->h[i] ^= v[i] ^ v[i + 8];
}

static void count(sp_blake2b_state *s, size_t n) {
  s->t[0] += n;
  if (s->t[0] < n) s->t[1]++;
}

int sp_blake2b_init(sp_blake2b_state *s, size_t outlen) {
  if (outlen == 0 || outlen > SP_BLAKE2B_MAX_OUT) return -1;
  memset(s, 0, sizeof *s);
  for (int i = 0; i < 8; i++) s->h[i] = IV[i];
  /* parameter block: digest length, key length 0, fanout 1, depth 1 */
  s->h[0] ^= UINT64_C(0x01010000) ^ (uint64_t)outlen;
  s->outlen = outlen;
  return 0;
}

void sp_blake2b_update(sp_blake2b_state *s, const void *data, size_t len) {
  const uint8_t *p = data;
  /* The last block is compressed with the final flag, so a full buffer is kept until
   * more input proves it is not the last one. */
  if (len == 0) return;
  if (s->buffered == SP_BLAKE2B_BLOCK) {
    count(s, SP_BLAKE2B_BLOCK);
    compress(s, s->buf, 0);
    s->buffered = 0;
  }
  if (s->buffered) {
    size_t take = SP_BLAKE2B_BLOCK - s->buffered;
    if (take > len) take = len;
    memcpy(s->buf + s->buffered, p, take);
    s->buffered += take;
    p += take;
    len -= take;
    if (len == 0) return;
    count(s, SP_BLAKE2B_BLOCK);
    compress(s, s->buf, 0);
    s->buffered = 0;
  }
  while (len > SP_BLAKE2B_BLOCK) {
    count(s, SP_BLAKE2B_BLOCK);
    compress(s, p, 0);
    p += SP_BLAKE2B_BLOCK;
    len -= SP_BLAKE2B_BLOCK;
  }
  memcpy(s->buf, p, len);
  s->buffered = len;
}

void sp_blake2b_final(sp_blake2b_state *s, uint8_t *out) {
  count(s, s->buffered);
  memset(s->buf + s->buffered, 0, SP_BLAKE2B_BLOCK - s->buffered);
  compress(s, s->buf, 1);
  for (size_t i = 0; i < s->outlen; i++) out[i] = (uint8_t)(s->h[i / 8] >> (8 * (i % 8)));
}

int sp_blake2b(uint8_t *out, size_t outlen, const void *data, size_t len) {
  sp_blake2b_state s;
  if (sp_blake2b_init(&s, outlen) != 0) return -1;
  sp_blake2b_update(&s, data, len);
  sp_blake2b_final(&s, out);
  return 0;
}
