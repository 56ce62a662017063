/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* iden3_walk.h -- the harnesses' own walk of an iden3 binary container (.r1cs, .wtns,
 * .zkey: "magic", version, section count, then (type u32, size u64, bytes) sections).
 * Written apart from plugin/formats/iden3.c's sp_iden3_read on purpose: the harnesses check the
 * loader against an independent reading of the same bytes. Only for inputs the loader
 * accepted (the 12-byte file header is there). */
#ifndef SEALPROV_FUZZ_IDEN3_WALK_H
#define SEALPROV_FUZZ_IDEN3_WALK_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rd64(const uint8_t *p) {
  return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* The first section of type t, its size in *len; NULL when there is none. The loader
 * refuses a repeated known type, so on an accepted file the first is the only one. */
static inline const uint8_t *find_section(const uint8_t *d, size_t size, uint32_t t,
                                          uint64_t *len) {
  uint32_t n = rd32(d + 8);
  size_t off = 12;
  for (uint32_t i = 0; i < n && size - off >= 12; i++) {
    uint32_t type = rd32(d + off);
    uint64_t sz = rd64(d + off + 4);
    off += 12;
    if (sz > size - off) return NULL;
    if (type == t) {
      *len = sz;
      return d + off;
    }
    off += (size_t)sz;
  }
  return NULL;
}

#endif
