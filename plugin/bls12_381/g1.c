/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* G1: y^2 = x^3 + 4 over Fp. The arithmetic is the generic code of curve_impl.h;
 * this file adds the generator and the subgroup check. */
#include "bls12_381/bls12_381.h"
#include "bls12_381/field_impl.h"

#define CV(name) g1_##name
#define fe_t fp_t
/* The inline cores of field_impl.h: a call per field operation would cost
 * about a third of a mixed addition. */
#define FE(op) fp_##op##_i
#define FE_INV fp_inv
#define FE_ONE_C FP_ONE
#define CURVE_B (&G1_B)

/* b = 4 in Montgomery form. */
static const fp_t G1_B = {{0xaa270000000cfff3ull, 0x53cc0032fc34000aull, 0x478fe97a6b0a807full,
                           0xb1d37ebee6ba24d7ull, 0x8ec9733bbf78ab2full, 0x09d645513d83de7eull}};

#include "bls12_381/curve_impl.h"

/* The standard generator (zcash / IETF), Montgomery form. Canonical:
 * x = 0x17f1d3a7...db22c6bb, y = 0x08b3f481...46c5e7e1. */
static const g1_affine_t G1_GENERATOR = {
    {{0x5cb38790fd530c16ull, 0x7817fc679976fff5ull, 0x154f95c7143ba1c1ull, 0xf0ae6acdf3d0e747ull,
      0xedce6ecc21dbf440ull, 0x120177419e0bfb75ull}},
    {{0xbaac93d50ce72271ull, 0x8c22631a7918fd8eull, 0xdd595f13570725ceull, 0x51ac582950405194ull,
      0x0e1c8c3fad0059c0ull, 0x0bbc3efc5008a26aull}}};

void g1_generator(g1_affine_t *r) { *r = G1_GENERATOR; }

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define BLS_X_ABS 0xd201000000010000ull

/* beta: the cube root of unity in Fp for which phi(x, y) = (beta x, y) acts on
 * G1 as multiplication by lambda = -x^2 mod r (the other root gives lambda^2).
 * Canonical value 0x5f19672fdf76ce51...2e01fffffffefffe; Montgomery form below. */
static const fp_t G1_BETA = {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
                              0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}};

/* [k]p for a Jacobian p by double-and-add; k = |x| is sparse (see affine_mul_u64). */
static void g1_jac_mul_u64(g1_jac_t *r, const g1_jac_t *p, uint64_t k) {
  g1_jac_t acc, base = *p;
  g1_jac_set_inf(&acc);
  for (int bit = 63; bit >= 0; bit--) {
    g1_jac_dbl(&acc, &acc);
    if ((k >> bit) & 1u) g1_jac_add(&acc, &acc, &base);
  }
  *r = acc;
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (ePrint 2021/1130): on BLS12-381 a point P of E(Fp)
 * lies in G1 iff phi(P) == [-x^2] P. Two multiplications by the sparse |x|
 * replace one by the 255-bit r.
 * Why it is exact: phi^2 + phi + 1 = 0, so phi + [x^2] has degree
 * x^4 - x^2 + 1 = r (the norm a^2 - ab + b^2 of a + b phi); its kernel over the
 * closure is a group of r points, and G1 lies in it (BETA is the root for which phi
 * acts on G1 as [-x^2]), so the kernel is G1: no false accept, no false reject.
 * Nothing cheaper of this kind exists: r | deg(a + b phi) = a^2 - ab + b^2 <=
 * 3 max(a^2, b^2) needs max(|a|, |b|) >= sqrt(r / 3) ~ 2^126.7, i.e. ~126 doublings
 * (the lattice form of Dai, Lin, Zhao, Zhou, DCC 2023, gives the same log2(r) / 2 for
 * BLS12; the Tate-pairing test of ePrint 2024/1790 is within a few per cent of it on
 * BLS12-381).
 * tests/bls12_381/test_curves.c compares it with [r]P == O on points with every cofactor
 * component (tests/bls12_381/cofactor.c: 3, 11^2, 10177^2, 859267^2, 52437899^2, the
 * eigenvectors of phi on E[10177] and E[859267], and their sums). */
bool g1_affine_in_subgroup(const g1_affine_t *p) {
  if (g1_affine_is_inf(p)) return true;
  if (!curve_equation_holds(&p->x, &p->y)) return false;
  g1_jac_t t;
  affine_mul_u64(&t, p, BLS_X_ABS);
  g1_jac_mul_u64(&t, &t, BLS_X_ABS); /* [x^2] P */
  g1_affine_t phi;
  fp_mul_i(&phi.x, &p->x, &G1_BETA);
  phi.y = p->y;
  g1_jac_add_affine(&t, &t, &phi); /* phi(P) + [x^2] P == O ? */
  return g1_jac_is_inf(&t);
}
