/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_point.c -- libFuzzer harness for point decoding (g1_deserialize, g2_deserialize,
 * plugin/bls12_381/serialize.c): G1 and G2, compressed and uncompressed, with and
 * without the subgroup check.
 *
 * Input: one mode byte (bit 0: G2, bit 1: compressed, bit 2: subgroup check), then the
 * encoding, cut or zero-padded to the length of that form (the original length is also
 * tried and must give BLS_ERR_LENGTH when it is not a valid one).
 *
 * Properties beyond "no crash, no sanitizer report":
 *  - a failed decode leaves the point at infinity;
 *  - decoding accepts exactly what the encoders produce: on success, encoding the point
 *    again in the same form gives the input bytes;
 *  - a decoded point is on the curve (and in the subgroup when checked), and survives a
 *    trip through the other form;
 *  - the subgroup check only ever adds BLS_ERR_NOT_IN_SUBGROUP. */
#include "fuzz_common.h"

#include "bls12_381/bls12_381.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

static void g1_case(const uint8_t *in, size_t len, bool compressed, unsigned flags) {
  g1_affine_t p, q;
  bls_err e = g1_deserialize(&p, in, len, flags);
  FUZZ_CHECK(e >= BLS_OK && e <= BLS_ERR_NOT_IN_SUBGROUP, "g1 status %d", (int)e);
  if (e != BLS_OK) {
    FUZZ_CHECK(g1_affine_is_inf(&p), "failed g1 decode (%s) left a point", bls_err_str(e));
    if (flags & BLS_DECODE_SUBGROUP_CHECK) {
      bls_err e2 = g1_deserialize(&q, in, len, 0);
      FUZZ_CHECK(e == BLS_ERR_NOT_IN_SUBGROUP ? e2 == BLS_OK : e2 == e,
                 "g1: %s with the subgroup check, %s without", bls_err_str(e), bls_err_str(e2));
    }
    return;
  }
  uint8_t again[96], other[96];
  if (compressed)
    g1_compress(again, &p);
  else
    g1_serialize(again, &p);
  FUZZ_CHECK(memcmp(again, in, len) == 0, "g1 %s encoding is not canonical",
             compressed ? "compressed" : "uncompressed");
  if (g1_affine_is_inf(&p)) return;
  FUZZ_CHECK(g1_affine_on_curve(&p), "decoded g1 point not on the curve");
  if (flags & BLS_DECODE_SUBGROUP_CHECK)
    FUZZ_CHECK(g1_affine_in_subgroup(&p), "checked g1 point not in the subgroup");
  if (compressed)
    g1_serialize(other, &p);
  else
    g1_compress(other, &p);
  e = g1_deserialize(&q, other, compressed ? 96 : 48, flags);
  FUZZ_CHECK(e == BLS_OK && g1_affine_eq(&p, &q), "g1 round trip through the other form: %s",
             bls_err_str(e));
}

static void g2_case(const uint8_t *in, size_t len, bool compressed, unsigned flags) {
  g2_affine_t p, q;
  bls_err e = g2_deserialize(&p, in, len, flags);
  FUZZ_CHECK(e >= BLS_OK && e <= BLS_ERR_NOT_IN_SUBGROUP, "g2 status %d", (int)e);
  if (e != BLS_OK) {
    FUZZ_CHECK(g2_affine_is_inf(&p), "failed g2 decode (%s) left a point", bls_err_str(e));
    if (flags & BLS_DECODE_SUBGROUP_CHECK) {
      bls_err e2 = g2_deserialize(&q, in, len, 0);
      FUZZ_CHECK(e == BLS_ERR_NOT_IN_SUBGROUP ? e2 == BLS_OK : e2 == e,
                 "g2: %s with the subgroup check, %s without", bls_err_str(e), bls_err_str(e2));
    }
    return;
  }
  uint8_t again[192], other[192];
  if (compressed)
    g2_compress(again, &p);
  else
    g2_serialize(again, &p);
  FUZZ_CHECK(memcmp(again, in, len) == 0, "g2 %s encoding is not canonical",
             compressed ? "compressed" : "uncompressed");
  if (g2_affine_is_inf(&p)) return;
  FUZZ_CHECK(g2_affine_on_curve(&p), "decoded g2 point not on the curve");
  if (flags & BLS_DECODE_SUBGROUP_CHECK)
    FUZZ_CHECK(g2_affine_in_subgroup(&p), "checked g2 point not in the subgroup");
  if (compressed)
    g2_serialize(other, &p);
  else
    g2_compress(other, &p);
  e = g2_deserialize(&q, other, compressed ? 192 : 96, flags);
  FUZZ_CHECK(e == BLS_OK && g2_affine_eq(&p, &q), "g2 round trip through the other form: %s",
             bls_err_str(e));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  bool g2 = data[0] & 1, compressed = (data[0] & 2) != 0;
  unsigned flags = (data[0] & 4) ? BLS_DECODE_SUBGROUP_CHECK : 0;
  size_t want = (g2 ? 96 : 48) * (compressed ? 1 : 2), have = size - 1;
  uint8_t buf[192] = {0};
  memcpy(buf, data + 1, have < want ? have : want);
  if (have != 48 && have != 96 && have != 192) {
    /* a length no form has: refused whatever the bytes */
    g1_affine_t p1;
    g2_affine_t p2;
    uint8_t junk[200] = {0};
    size_t n = have < sizeof junk ? have : sizeof junk;
    memcpy(junk, data + 1, n);
    FUZZ_CHECK(g1_deserialize(&p1, junk, n, flags) == BLS_ERR_LENGTH, "g1 length %zu accepted", n);
    FUZZ_CHECK(g2_deserialize(&p2, junk, n, flags) == BLS_ERR_LENGTH, "g2 length %zu accepted", n);
  }
  if (g2)
    g2_case(buf, want, compressed, flags);
  else
    g1_case(buf, want, compressed, flags);
  return 0;
}
