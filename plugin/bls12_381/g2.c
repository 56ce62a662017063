/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* G2: y^2 = x^3 + 4(u + 1) over Fp2 (the M-type sextic twist). The arithmetic is
 * the generic code of curve_impl.h; this file adds the generator and the
 * subgroup check. */
#include "bls12_381/bls12_381.h"

#define CV(name) g2_##name
#define fe_t fp2_t
#define FE(op) fp2_##op
#define FE_INV fp2_inv
#define FE_ONE_C FP2_ONE
#define CURVE_B (&G2_B)

/* b' = 4 + 4u in Montgomery form. */
#define MONT_FOUR                                                                                 \
  {                                                                                               \
    {                                                                                             \
      0xaa270000000cfff3ull, 0x53cc0032fc34000aull, 0x478fe97a6b0a807full, 0xb1d37ebee6ba24d7ull, \
          0x8ec9733bbf78ab2full, 0x09d645513d83de7eull                                            \
    }                                                                                             \
  }
static const fp2_t G2_B = {MONT_FOUR, MONT_FOUR};

#include "bls12_381/curve_impl.h"

/* The standard generator (zcash / IETF), Montgomery form. Canonical:
 * x.c0 = 0x024aa2b2...c121bdb8, x.c1 = 0x13e02b60...5d042b7e,
 * y.c0 = 0x0ce5d527...08b82801, y.c1 = 0x0606c4a0...f05f79be. */
static const g2_affine_t G2_GENERATOR = {
    {{{0xf5f28fa202940a10ull, 0xb3f5fb2687b4961aull, 0xa1a893b53e2ae580ull, 0x9894999d1a3caee9ull,
       0x6f67b7631863366bull, 0x058191924350bcd7ull}},
     {{0xa5a9c0759e23f606ull, 0xaaa0c59dbccd60c3ull, 0x3bb17e18e2867806ull, 0x1b1ab6cc8541b367ull,
       0xc2b6ed0ef2158547ull, 0x11922a097360edf3ull}}},
    {{{0x4c730af860494c4aull, 0x597cfa1f5e369c5aull, 0xe7e6856caa0a635aull, 0xbbefb5e96e0d495full,
       0x07d3a975f0ef25a2ull, 0x0083fd8e7e80dae5ull}},
     {{0xadc0fc92df64b05dull, 0x18aa270a2b1461dcull, 0x86adac6a3be4eba0ull, 0x79495c4ec93da33aull,
       0xe7175850a43ccaedull, 0x0b2bc2a163de1bf2ull}}}};

void g2_generator(g2_affine_t *r) { *r = G2_GENERATOR; }

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define BLS_X_ABS 0xd201000000010000ull

/* psi = untwist-Frobenius-twist: psi(x, y) = (conj(x) PSI_X, conj(y) PSI_Y) with
 * PSI_X = 1/(u+1)^((p-1)/3) (its c0 is 0) and PSI_Y = 1/(u+1)^((p-1)/2),
 * Montgomery form (computed with python3 from that definition; a wrong value
 * makes the generator fail the check below). */
static const fp_t PSI_X_C1 = {{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
                               0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull,
                               0x14e56d3f1564853aull}};
static const fp2_t PSI_Y = {
    {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull, 0x92ad2afd19103e18ull,
      0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
    {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull, 0xd1ca2087da74d4a7ull,
      0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}};

static void g2_affine_psi(g2_affine_t *r, const g2_affine_t *p) {
  fp2_t x, y;
  fp2_conj(&x, &p->x);
  /* x * (0 + c1 u) = -x.c1 c1 + x.c0 c1 u */
  fp_t t;
  fp_mul(&t, &x.c1, &PSI_X_C1);
  fp_mul(&x.c1, &x.c0, &PSI_X_C1);
  fp_neg(&x.c0, &t);
  fp2_conj(&y, &p->y);
  fp2_mul(&y, &y, &PSI_Y);
  r->x = x;
  r->y = y;
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (ePrint 2021/1130): a point P of E'(Fp2) lies in G2
 * iff psi(P) == [x] P. With x < 0 that is psi(P) + [|x|] P == O.
 * Why it is exact: psi satisfies psi^2 - t psi + p = 0 (t = x + 1), so psi - [x]
 * has degree x^2 - t x + p = p - x = h1 r; a point of E'(Fp2) in its kernel has
 * order dividing both h1 r and #E'(Fp2) = h2 r, and gcd(h1, h2) = 1, so it lies in
 * G2; psi acts on G2 as [x], so G2 is in the kernel. No faster exact test is known
 * for G2 (|x| ~ r^(1/4) is already the shortest scalar). tests/bls12_381/test_curves.c
 * compares it with [r]P == O on points with every cofactor component
 * (tests/bls12_381/cofactor.c: 13^2, 23^2, 2713, 11953, 262069 and the 448-bit prime). */
bool g2_affine_in_subgroup(const g2_affine_t *p) {
  if (g2_affine_is_inf(p)) return true;
  if (!curve_equation_holds(&p->x, &p->y)) return false;
  g2_jac_t t;
  affine_mul_u64(&t, p, BLS_X_ABS);
  g2_affine_t psi;
  g2_affine_psi(&psi, p);
  g2_jac_add_affine(&t, &t, &psi);
  return g2_jac_is_inf(&t);
}
