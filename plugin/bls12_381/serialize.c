/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* zcash / bellperson point encoding (see bls12_381.h for the layout).
 *
 * The three top bits of the first byte are flags: 0x80 compressed, 0x40 point at
 * infinity, 0x20 sign of y (compressed only: set when y is lexicographically
 * largest). Decoding accepts exactly the encodings that the encoders produce and
 * names the first thing that is wrong, in this order: length, flags, coordinate
 * range, curve equation, subgroup. */
#include "bls12_381/bls12_381.h"

#include <string.h>

#define FLAG_COMPRESSED 0x80u
#define FLAG_INFINITY 0x40u
#define FLAG_SIGN 0x20u
#define FLAG_MASK 0xe0u

const char *bls_err_str(bls_err e) {
  switch (e) {
    case BLS_OK: return "ok";
    case BLS_ERR_LENGTH: return "wrong encoding length (G1: 48 or 96 bytes, G2: 96 or 192 bytes)";
    case BLS_ERR_FLAGS:
      return "invalid flag bits (compression flag does not match the length, sign bit on an "
             "uncompressed or infinity point, or infinity with non-zero bytes)";
    case BLS_ERR_NONCANONICAL: return "coordinate not in canonical form (>= p)";
    case BLS_ERR_NOT_ON_CURVE: return "point not on the curve";
    case BLS_ERR_NOT_IN_SUBGROUP: return "point not in the prime-order subgroup";
  }
  return "unknown BLS12-381 decoding error";
}

/* Checks the flags of an encoding of len bytes. On BLS_OK, *is_inf says whether
 * it is the (valid) infinity encoding and *sign holds the sign flag. */
static bls_err check_flags(const uint8_t *in, size_t len, bool compressed, bool *is_inf,
                           bool *sign) {
  unsigned flags = in[0] & FLAG_MASK;
  *is_inf = false;
  *sign = false;
  if (((flags & FLAG_COMPRESSED) != 0) != compressed) return BLS_ERR_FLAGS;
  if (flags & FLAG_INFINITY) {
    /* Exactly 0x40 (0xc0 compressed) followed by zeros. */
    if (flags & FLAG_SIGN) return BLS_ERR_FLAGS;
    if (in[0] & ~FLAG_MASK) return BLS_ERR_FLAGS;
    for (size_t i = 1; i < len; i++)
      if (in[i] != 0) return BLS_ERR_FLAGS;
    *is_inf = true;
    return BLS_OK;
  }
  if ((flags & FLAG_SIGN) && !compressed) return BLS_ERR_FLAGS;
  *sign = (flags & FLAG_SIGN) != 0;
  return BLS_OK;
}

/* Reads the big-endian Fp element at in; the first one of an encoding carries
 * the flags, which are masked off here. */
static bool read_fp(fp_t *r, const uint8_t *in, bool has_flags) {
  uint8_t buf[48];
  memcpy(buf, in, 48);
  if (has_flags) buf[0] &= (uint8_t)~FLAG_MASK;
  return fp_from_be48(r, buf);
}

/* ---------------------------------------------------------------- G1 */

void g1_serialize(uint8_t out[96], const g1_affine_t *p) {
  if (g1_affine_is_inf(p)) {
    memset(out, 0, 96);
    out[0] = FLAG_INFINITY;
    return;
  }
  fp_to_be48(out, &p->x);
  fp_to_be48(out + 48, &p->y);
}

void g1_compress(uint8_t out[48], const g1_affine_t *p) {
  if (g1_affine_is_inf(p)) {
    memset(out, 0, 48);
    out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
    return;
  }
  fp_to_be48(out, &p->x);
  out[0] |= FLAG_COMPRESSED;
  if (fp_is_lexicographically_largest(&p->y)) out[0] |= FLAG_SIGN;
}

/* Curve membership and (on request) subgroup membership of a decoded point
 * that is not the infinity encoding. (0,0) means infinity in memory, so a
 * non-infinity encoding of (0,0) must be refused here: it is not on the curve. */
static bls_err g1_validate(const g1_affine_t *p, unsigned flags) {
  if (g1_affine_is_inf(p) || !g1_affine_on_curve(p)) return BLS_ERR_NOT_ON_CURVE;
  if ((flags & BLS_DECODE_SUBGROUP_CHECK) && !g1_affine_in_subgroup(p))
    return BLS_ERR_NOT_IN_SUBGROUP;
  return BLS_OK;
}

bls_err g1_deserialize(g1_affine_t *r, const uint8_t *in, size_t len, unsigned flags) {
  g1_affine_set_inf(r);
  if (len != 96 && len != 48) return BLS_ERR_LENGTH;
  bool compressed = len == 48, is_inf, sign;
  bls_err err = check_flags(in, len, compressed, &is_inf, &sign);
  if (err != BLS_OK || is_inf) return err;
  g1_affine_t p;
  if (!read_fp(&p.x, in, true)) return BLS_ERR_NONCANONICAL;
  if (compressed) {
    fp_t rhs, four;
    fp_sqr(&rhs, &p.x);
    fp_mul(&rhs, &rhs, &p.x);
    fp_from_u64(&four, 4);
    fp_add(&rhs, &rhs, &four);
    if (!fp_sqrt(&p.y, &rhs)) return BLS_ERR_NOT_ON_CURVE;
    if (fp_is_lexicographically_largest(&p.y) != sign) fp_neg(&p.y, &p.y);
  } else if (!read_fp(&p.y, in + 48, false)) {
    return BLS_ERR_NONCANONICAL;
  }
  err = g1_validate(&p, flags);
  if (err == BLS_OK) *r = p;
  return err;
}

/* ---------------------------------------------------------------- G2 */

/* Fp2 as c1 then c0, each 48 bytes big-endian. */
static void write_fp2(uint8_t out[96], const fp2_t *a) {
  fp_to_be48(out, &a->c1);
  fp_to_be48(out + 48, &a->c0);
}

static bool read_fp2(fp2_t *r, const uint8_t *in, bool has_flags) {
  return read_fp(&r->c1, in, has_flags) && read_fp(&r->c0, in + 48, false);
}

void g2_serialize(uint8_t out[192], const g2_affine_t *p) {
  if (g2_affine_is_inf(p)) {
    memset(out, 0, 192);
    out[0] = FLAG_INFINITY;
    return;
  }
  write_fp2(out, &p->x);
  write_fp2(out + 96, &p->y);
}

void g2_compress(uint8_t out[96], const g2_affine_t *p) {
  if (g2_affine_is_inf(p)) {
    memset(out, 0, 96);
    out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
    return;
  }
  write_fp2(out, &p->x);
  out[0] |= FLAG_COMPRESSED;
  if (fp2_is_lexicographically_largest(&p->y)) out[0] |= FLAG_SIGN;
}

static bls_err g2_validate(const g2_affine_t *p, unsigned flags) {
  if (g2_affine_is_inf(p) || !g2_affine_on_curve(p)) return BLS_ERR_NOT_ON_CURVE;
  if ((flags & BLS_DECODE_SUBGROUP_CHECK) && !g2_affine_in_subgroup(p))
    return BLS_ERR_NOT_IN_SUBGROUP;
  return BLS_OK;
}

bls_err g2_deserialize(g2_affine_t *r, const uint8_t *in, size_t len, unsigned flags) {
  g2_affine_set_inf(r);
  if (len != 192 && len != 96) return BLS_ERR_LENGTH;
  bool compressed = len == 96, is_inf, sign;
  bls_err err = check_flags(in, len, compressed, &is_inf, &sign);
  if (err != BLS_OK || is_inf) return err;
  g2_affine_t p;
  if (!read_fp2(&p.x, in, true)) return BLS_ERR_NONCANONICAL;
  if (compressed) {
    fp2_t rhs, b;
    fp2_sqr(&rhs, &p.x);
    fp2_mul(&rhs, &rhs, &p.x);
    fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    fp2_add(&rhs, &rhs, &b);
    if (!fp2_sqrt(&p.y, &rhs)) return BLS_ERR_NOT_ON_CURVE;
    if (fp2_is_lexicographically_largest(&p.y) != sign) fp2_neg(&p.y, &p.y);
  } else if (!read_fp2(&p.y, in + 96, false)) {
    return BLS_ERR_NONCANONICAL;
  }
  err = g2_validate(&p, flags);
  if (err == BLS_OK) *r = p;
  return err;
}
