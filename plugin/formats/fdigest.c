/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fdigest.c -- the keyed block-tree digest of fdigest.h on libxxhash's XXH3-128.
 *
 * Whole blocks are hashed one-shot by whichever reading thread holds them, each into its
 * own leaf; a block that arrives in pieces (it straddles two reads) goes through one
 * streaming state on the reader's thread. XXH3's streaming and one-shot forms give the
 * same hash for the same bytes and secret, so a leaf does not depend on the pieces. */
#include <config.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "base/util.h"
#include "formats/fdigest.h"

#define NO_BLOCK UINT64_MAX

struct sp_fdigest {
  uint8_t secret[SP_FDIGEST_SECRET_BYTES];
  size_t secret_len;
  uint64_t size, nblocks;
  XXH128_hash_t *leaf;
  uint8_t *done; /* per block; each written by one thread, read after the readers joined */
  XXH3_state_t *open;
  uint64_t open_next; /* next byte the open block expects (NO_BLOCK: none open) */
  bool bad;           /* edges out of order or past the end: no digest */
  _Atomic uint64_t ns;
};

/* Hashing time in whole nanoseconds since t0 (sp_now_ms). */
static uint64_t ns_since(double t0) {
  double ms = sp_now_ms() - t0;
  return ms > 0 ? (uint64_t)(ms * 1e6) : 0;
}

sp_fdigest *sp_fdigest_new(const uint8_t *secret, size_t secret_len, uint64_t size) {
  if (secret == NULL || secret_len < XXH3_SECRET_SIZE_MIN || secret_len > SP_FDIGEST_SECRET_BYTES)
    return NULL;
  sp_fdigest *d = calloc(1, sizeof *d);
  if (d == NULL) return NULL;
  memcpy(d->secret, secret, secret_len);
  d->secret_len = secret_len;
  d->size = size;
  d->nblocks = (size + SP_FDIGEST_BLOCK - 1) / SP_FDIGEST_BLOCK;
  d->open_next = NO_BLOCK;
  atomic_init(&d->ns, 0);
  size_t n = d->nblocks ? (size_t)d->nblocks : 1;
  d->leaf = calloc(n, sizeof *d->leaf);
  d->done = calloc(n, 1);
  d->open = XXH3_createState();
  if (d->leaf == NULL || d->done == NULL || d->open == NULL) {
    sp_fdigest_free(d);
    return NULL;
  }
  return d;
}

void sp_fdigest_free(sp_fdigest *d) {
  if (d == NULL) return;
  free(d->leaf);
  free(d->done);
  if (d->open) XXH3_freeState(d->open);
  free(d);
}

static uint64_t block_end(const sp_fdigest *d, uint64_t k) {
  uint64_t e = (k + 1) * SP_FDIGEST_BLOCK;
  return e < d->size ? e : d->size;
}

void sp_fdigest_blocks(sp_fdigest *d, uint64_t off, const void *buf, size_t len) {
  uint64_t end = off + len;
  if (end > d->size) end = d->size;
  uint64_t k = (off + SP_FDIGEST_BLOCK - 1) / SP_FDIGEST_BLOCK;
  if (k >= d->nblocks || block_end(d, k) > end) return;
  double t0 = sp_now_ms();
  for (; k < d->nblocks && block_end(d, k) <= end; k++) {
    uint64_t at = k * SP_FDIGEST_BLOCK;
    const uint8_t *p = (const uint8_t *)buf + (at - off);
    d->leaf[k] =
        XXH3_128bits_withSecret(p, (size_t)(block_end(d, k) - at), d->secret, d->secret_len);
    d->done[k] = 1;
  }
  atomic_fetch_add(&d->ns, ns_since(t0));
}

/* Bytes [at, at + n) of block k, not the whole block: into the open state. */
static void edge_piece(sp_fdigest *d, uint64_t k, uint64_t at, const uint8_t *p, size_t n) {
  if (d->open_next == NO_BLOCK) {
    if (at != k * SP_FDIGEST_BLOCK || d->done[k]) {
      d->bad = true;
      return;
    }
    (void)XXH3_128bits_reset_withSecret(d->open, d->secret, d->secret_len);
    d->open_next = at;
  } else if (at != d->open_next) {
    d->bad = true;
    return;
  }
  (void)XXH3_128bits_update(d->open, p, n);
  d->open_next += n;
  if (d->open_next == block_end(d, k)) {
    d->leaf[k] = XXH3_128bits_digest(d->open);
    d->done[k] = 1;
    d->open_next = NO_BLOCK;
  }
}

void sp_fdigest_edges(sp_fdigest *d, uint64_t off, const void *buf, size_t len) {
  if (len == 0 || d->bad) return;
  uint64_t end = off + len;
  if (end > d->size || end < off) {
    d->bad = true;
    return;
  }
  double t0 = sp_now_ms();
  uint64_t k0 = off / SP_FDIGEST_BLOCK, k1 = (end - 1) / SP_FDIGEST_BLOCK;
  for (uint64_t k = k0;; k = k1) {
    uint64_t bs = k * SP_FDIGEST_BLOCK, be = block_end(d, k);
    uint64_t a = off > bs ? off : bs, b = end < be ? end : be;
    if (a != bs || b != be) /* whole blocks are sp_fdigest_blocks' */
      edge_piece(d, k, a, (const uint8_t *)buf + (a - off), (size_t)(b - a));
    if (k == k1) break;
  }
  atomic_fetch_add(&d->ns, ns_since(t0));
}

void sp_fdigest_update(sp_fdigest *d, uint64_t off, const void *buf, size_t len) {
  sp_fdigest_blocks(d, off, buf, len);
  sp_fdigest_edges(d, off, buf, len);
}

bool sp_fdigest_final(sp_fdigest *d, uint8_t out[SP_FDIGEST_BYTES]) {
  memset(out, 0, SP_FDIGEST_BYTES);
  if (d->bad || d->open_next != NO_BLOCK) return false;
  for (uint64_t k = 0; k < d->nblocks; k++)
    if (!d->done[k]) return false;
  double t0 = sp_now_ms();
  /* the header: the construction's name (NUL-padded), the file size, the block size, all
   * little-endian; then the leaves in file order */
  uint8_t head[48] = {0};
  memcpy(head, SP_FDIGEST_NAME, sizeof SP_FDIGEST_NAME - 1);
  for (int i = 0; i < 8; i++) {
    head[32 + i] = (uint8_t)(d->size >> (8 * i));
    head[40 + i] = (uint8_t)(SP_FDIGEST_BLOCK >> (8 * i));
  }
  (void)XXH3_128bits_reset_withSecret(d->open, d->secret, d->secret_len);
  (void)XXH3_128bits_update(d->open, head, sizeof head);
  for (uint64_t k = 0; k < d->nblocks; k++) {
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, d->leaf[k]);
    (void)XXH3_128bits_update(d->open, c.digest, sizeof c.digest);
  }
  XXH128_canonical_t root;
  XXH128_canonicalFromHash(&root, XXH3_128bits_digest(d->open));
  memcpy(out, root.digest, SP_FDIGEST_BYTES);
  atomic_fetch_add(&d->ns, ns_since(t0));
  return true;
}

double sp_fdigest_cpu_ms(const sp_fdigest *d) { return (double)atomic_load(&d->ns) / 1e6; }

size_t sp_fdigest_split(uint64_t off, size_t len, size_t at) {
  if (at >= len) return len;
  uint64_t b = (off + at + SP_FDIGEST_BLOCK - 1) / SP_FDIGEST_BLOCK * SP_FDIGEST_BLOCK;
  return b - off >= len ? len : (size_t)(b - off);
}
