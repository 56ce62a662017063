/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_convert.c -- libsealprov_c2's own conversions between the supraseal-c2 layouts and
 * sealprov's files (sealprov_c2.h, "conversions"):
 *   canonical 32-byte little-endian scalars (.spa files, SEALPROV_SCALAR_CANONICAL jobs)
 *     -> blst Fr Montgomery limbs (c2_assignment's scalars, r_s, s_s);
 *   affine Montgomery proofs (what the proving calls write) -> 192-byte compressed
 *     proofs (bellperson's Proof::write, sealprov's proof files).
 * A C or C++ host that holds its values in those forms needs nothing else: no field
 * arithmetic of its own. The arithmetic is the module's BLS12-381 code, linked in and
 * hidden like the rest of it. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "bls12_381/bls12_381.h"
#include "sealprov.h"

#pragma GCC visibility push(default)
#include "sealprov_c2.h"
#pragma GCC visibility pop
#include "c2_internal.h" /* c2_ok, c2_fail (c2_provider.c) */

_Static_assert(sizeof(c2_fr) == sizeof(fr_t), "blst Fr: 4 limbs, as fr_t");
_Static_assert(sizeof(c2_fp) == sizeof(fp_t), "blst Fp: 6 limbs, as fp_t");

c2_error sealprov_c2_fr_from_canonical(c2_fr *out, const void *in, size_t n) {
  static const char fn[] = "sealprov_c2_fr_from_canonical";
  if (n == 0) return c2_ok();
  if (out == NULL || in == NULL)
    return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "%s is NULL (n = %zu)",
                   out == NULL ? "out" : "in", n);
  const uint8_t *bytes = in;
  for (size_t i = 0; i < n; i++) {
    /* out may be in itself: the value is read whole, converted aside, then stored */
    uint8_t le[32];
    memcpy(le, bytes + 32 * i, sizeof le);
    fr_t v;
    if (!fr_from_le32(&v, le)) {
      char hex[2 * 32 + 1];
      for (int b = 0; b < 32; b++) snprintf(hex + 2 * b, 3, "%02x", le[31 - b]);
      return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn,
                     "scalar %zu of %zu is not below the group order r: 0x%s (each scalar is "
                     "32 bytes, little-endian, canonical)",
                     i, n, hex);
    }
    memcpy(&out[i], &v, sizeof v);
  }
  return c2_ok();
}

/* One coordinate: a blst Montgomery Fp below p. */
static bool fp_ok(fp_t *r, const c2_fp *in) { return fp_from_blst_mont(r, in->l); }

/* The reason a proof's points cannot be compressed, or NULL. */
static const char *proof_decode(const c2_groth16_proof *p, g1_affine_t *a, g2_affine_t *b,
                                g1_affine_t *c) {
  if (!fp_ok(&a->x, &p->a.x) || !fp_ok(&a->y, &p->a.y)) return "A has a coordinate >= p";
  if (!fp_ok(&b->x.c0, &p->b.x.c0) || !fp_ok(&b->x.c1, &p->b.x.c1) ||
      !fp_ok(&b->y.c0, &p->b.y.c0) || !fp_ok(&b->y.c1, &p->b.y.c1))
    return "B has a coordinate >= p";
  if (!fp_ok(&c->x, &p->c.x) || !fp_ok(&c->y, &p->c.y)) return "C has a coordinate >= p";
  if (!g1_affine_on_curve(a)) return "A is not on the curve";
  if (!g2_affine_on_curve(b)) return "B is not on the curve";
  if (!g1_affine_on_curve(c)) return "C is not on the curve";
  return NULL;
}

c2_error sealprov_c2_proof_compress(uint8_t *out, const c2_groth16_proof proofs[], size_t n) {
  static const char fn[] = "sealprov_c2_proof_compress";
  if (n == 0) return c2_ok();
  if (out == NULL || proofs == NULL)
    return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn, "%s is NULL (n = %zu)",
                   out == NULL ? "out" : "proofs", n);
  /* every proof checked before the first byte is written: out is left as it was */
  for (size_t i = 0; i < n; i++) {
    g1_affine_t a, c;
    g2_affine_t b;
    const char *why = proof_decode(&proofs[i], &a, &b, &c);
    if (why != NULL)
      return c2_fail(SEALPROV_ERR_INVALID_ARGUMENT, fn,
                     "proof %zu of %zu: %s (affine points with blst's Montgomery limbs "
                     "expected, as the proving calls write them)",
                     i, n, why);
  }
  for (size_t i = 0; i < n; i++) {
    g1_affine_t a, c;
    g2_affine_t b;
    (void)proof_decode(&proofs[i], &a, &b, &c);
    uint8_t *o = out + (size_t)SEALPROV_PROOF_BYTES * i;
    g1_compress(o, &a);
    g2_compress(o + 48, &b);
    g1_compress(o + 144, &c);
  }
  return c2_ok();
}
