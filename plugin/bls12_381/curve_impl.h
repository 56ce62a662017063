/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Generic short-Weierstrass arithmetic for y^2 = x^3 + b (a = 0), instantiated
 * once for G1 (over Fp, g1.c) and once for G2 (over Fp2, g2.c). Private to
 * plugin/bls12_381/: include it only from those two files, after defining
 *
 *   CV(name)   public name of a curve function or type, e.g. g1_##name
 *   fe_t       the coordinate field type (fp_t or fp2_t)
 *   FE(op)     the field function of that name, e.g. fp_##op_i (inline core)
 *   FE_INV     the field inversion, e.g. fp_inv
 *   FE_ONE_C   the constant 1 of the field (Montgomery form)
 *   CURVE_B    an expression of type const fe_t * pointing at b
 *
 * One implementation for both groups keeps the formulas in one place: a bug
 * fixed here is fixed for both, and the G2 tests exercise the G1 code paths.
 * The formulas are those of the Explicit-Formulas Database (hyperelliptic.org/EFD,
 * "g1p/shortw"): dbl-2009-l, add-2007-bl, madd-2007-bl for Jacobian, and
 * dbl-2008-s-1, add-2008-s, madd-2008-s for XYZZ, each wrapped with the special
 * cases (infinity, P == Q, P == -Q) that the raw formulas get wrong.
 * Every function writes its result through a local first, so outputs may alias
 * inputs, as the header promises. */

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- affine */

void CV(affine_set_inf)(CV(affine_t) * r) { memset(r, 0, sizeof *r); }

bool CV(affine_is_inf)(const CV(affine_t) * p) { return FE(is_zero)(&p->x) && FE(is_zero)(&p->y); }

bool CV(affine_eq)(const CV(affine_t) * a, const CV(affine_t) * b) {
  /* (0,0) is the only encoding of infinity, so plain coordinate equality is exact. */
  return FE(eq)(&a->x, &b->x) && FE(eq)(&a->y, &b->y);
}

void CV(affine_neg)(CV(affine_t) * r, const CV(affine_t) * p) {
  if (CV(affine_is_inf)(p)) {
    CV(affine_set_inf)(r);
    return;
  }
  r->x = p->x;
  FE(neg)(&r->y, &p->y);
}

/* y^2 == x^3 + b for the given coordinates, with no special meaning for (0,0). */
static bool curve_equation_holds(const fe_t *x, const fe_t *y) {
  fe_t lhs, rhs;
  FE(sqr)(&lhs, y);
  FE(sqr)(&rhs, x);
  FE(mul)(&rhs, &rhs, x);
  FE(add)(&rhs, &rhs, CURVE_B);
  return FE(eq)(&lhs, &rhs);
}

bool CV(affine_on_curve)(const CV(affine_t) * p) {
  if (CV(affine_is_inf)(p)) return true;
  return curve_equation_holds(&p->x, &p->y);
}

/* -------------------------------------------------------------- Jacobian */

void CV(jac_set_inf)(CV(jac_t) * r) {
  r->x = FE_ONE_C;
  r->y = FE_ONE_C;
  memset(&r->z, 0, sizeof r->z);
}

bool CV(jac_is_inf)(const CV(jac_t) * p) { return FE(is_zero)(&p->z); }

void CV(jac_from_affine)(CV(jac_t) * r, const CV(affine_t) * p) {
  if (CV(affine_is_inf)(p)) {
    CV(jac_set_inf)(r);
    return;
  }
  r->x = p->x;
  r->y = p->y;
  r->z = FE_ONE_C;
}

/* x = X/Z^2, y = Y/Z^3 given zinv = 1/Z. */
static void jac_to_affine_with_zinv(CV(affine_t) * r, const CV(jac_t) * p, const fe_t *zinv) {
  fe_t zinv2, zinv3, x, y;
  FE(sqr)(&zinv2, zinv);
  FE(mul)(&zinv3, &zinv2, zinv);
  FE(mul)(&x, &p->x, &zinv2);
  FE(mul)(&y, &p->y, &zinv3);
  r->x = x;
  r->y = y;
}

void CV(jac_to_affine)(CV(affine_t) * r, const CV(jac_t) * p) {
  if (CV(jac_is_inf)(p)) {
    CV(affine_set_inf)(r);
    return;
  }
  fe_t zinv;
  FE_INV(&zinv, &p->z);
  jac_to_affine_with_zinv(r, p, &zinv);
}

/* Montgomery's trick over in[0..n) using scratch[0..n): one inversion for the
 * whole block. Infinity entries are skipped (their Z is 0 and would zero the
 * product). The inverses are all computed before the first output is written,
 * and outputs are then written in increasing order: an affine point is smaller
 * than a Jacobian one, so out == (void *)in (in-place conversion) is safe. */
static void batch_to_affine_block(CV(affine_t) * out, const CV(jac_t) * in, size_t n,
                                  fe_t *scratch) {
  fe_t acc = FE_ONE_C;
  for (size_t i = 0; i < n; i++) {
    scratch[i] = acc; /* product of the non-zero Z before i */
    if (!CV(jac_is_inf)(&in[i])) FE(mul)(&acc, &acc, &in[i].z);
  }
  fe_t inv;
  FE_INV(&inv, &acc); /* acc is 1 when every entry is infinity: fine */
  for (size_t i = n; i-- > 0;) {
    if (CV(jac_is_inf)(&in[i])) continue;
    fe_t zinv;
    FE(mul)(&zinv, &inv, &scratch[i]);
    FE(mul)(&inv, &inv, &in[i].z);
    scratch[i] = zinv;
  }
  for (size_t i = 0; i < n; i++) {
    if (CV(jac_is_inf)(&in[i])) {
      CV(affine_set_inf)(&out[i]);
    } else {
      fe_t zinv = scratch[i];
      jac_to_affine_with_zinv(&out[i], &in[i], &zinv);
    }
  }
}

void CV(jac_batch_to_affine)(CV(affine_t) * out, const CV(jac_t) * in, size_t n) {
  if (n == 0) return;
  fe_t *scratch = malloc(n * sizeof *scratch);
  if (scratch != NULL) {
    batch_to_affine_block(out, in, n, scratch);
    free(scratch);
    return;
  }
  /* No memory for one inversion over all n: still exact, one inversion per
   * block. The blocks go in increasing order, so in-place stays safe. */
  enum { BLOCK = 64 };
  fe_t local[BLOCK];
  for (size_t i = 0; i < n; i += BLOCK) {
    size_t m = n - i < BLOCK ? n - i : BLOCK;
    batch_to_affine_block(out + i, in + i, m, local);
  }
}

bool CV(jac_eq)(const CV(jac_t) * a, const CV(jac_t) * b) {
  bool ia = CV(jac_is_inf)(a), ib = CV(jac_is_inf)(b);
  if (ia || ib) return ia && ib;
  /* X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3 */
  fe_t z1z1, z2z2, u1, u2, s1, s2;
  FE(sqr)(&z1z1, &a->z);
  FE(sqr)(&z2z2, &b->z);
  FE(mul)(&u1, &a->x, &z2z2);
  FE(mul)(&u2, &b->x, &z1z1);
  if (!FE(eq)(&u1, &u2)) return false;
  FE(mul)(&s1, &a->y, &z2z2);
  FE(mul)(&s1, &s1, &b->z);
  FE(mul)(&s2, &b->y, &z1z1);
  FE(mul)(&s2, &s2, &a->z);
  return FE(eq)(&s1, &s2);
}

void CV(jac_neg)(CV(jac_t) * r, const CV(jac_t) * p) {
  r->x = p->x;
  FE(neg)(&r->y, &p->y);
  r->z = p->z;
}

/* dbl-2009-l. Infinity (Z = 0) gives Z3 = 2 Y Z = 0, so no special case. */
void CV(jac_dbl)(CV(jac_t) * r, const CV(jac_t) * p) {
  fe_t a, b, c, d, e, f, x3, y3, z3;
  FE(sqr)(&a, &p->x);
  FE(sqr)(&b, &p->y);
  FE(sqr)(&c, &b);
  FE(add)(&d, &p->x, &b);
  FE(sqr)(&d, &d);
  FE(sub)(&d, &d, &a);
  FE(sub)(&d, &d, &c);
  FE(dbl)(&d, &d);
  FE(dbl)(&e, &a);
  FE(add)(&e, &e, &a);
  FE(sqr)(&f, &e);
  FE(dbl)(&x3, &d);
  FE(sub)(&x3, &f, &x3);
  FE(sub)(&y3, &d, &x3);
  FE(mul)(&y3, &y3, &e);
  FE(dbl)(&c, &c);
  FE(dbl)(&c, &c);
  FE(dbl)(&c, &c);
  FE(sub)(&y3, &y3, &c);
  FE(mul)(&z3, &p->y, &p->z);
  FE(dbl)(&z3, &z3);
  r->x = x3;
  r->y = y3;
  r->z = z3;
}

/* add-2007-bl, with the cases where H = U2 - U1 = 0 (same x) handled apart. */
void CV(jac_add)(CV(jac_t) * r, const CV(jac_t) * a, const CV(jac_t) * b) {
  if (CV(jac_is_inf)(a)) {
    *r = *b;
    return;
  }
  if (CV(jac_is_inf)(b)) {
    *r = *a;
    return;
  }
  fe_t z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, x3, y3, z3;
  FE(sqr)(&z1z1, &a->z);
  FE(sqr)(&z2z2, &b->z);
  FE(mul)(&u1, &a->x, &z2z2);
  FE(mul)(&u2, &b->x, &z1z1);
  FE(mul)(&s1, &a->y, &b->z);
  FE(mul)(&s1, &s1, &z2z2);
  FE(mul)(&s2, &b->y, &a->z);
  FE(mul)(&s2, &s2, &z1z1);
  FE(sub)(&h, &u2, &u1);
  FE(sub)(&rr, &s2, &s1);
  if (FE(is_zero)(&h)) {
    if (FE(is_zero)(&rr))
      CV(jac_dbl)(r, a);
    else
      CV(jac_set_inf)(r);
    return;
  }
  FE(dbl)(&rr, &rr);
  FE(dbl)(&i, &h);
  FE(sqr)(&i, &i);
  FE(mul)(&j, &h, &i);
  FE(mul)(&v, &u1, &i);
  FE(sqr)(&x3, &rr);
  FE(sub)(&x3, &x3, &j);
  FE(sub)(&x3, &x3, &v);
  FE(sub)(&x3, &x3, &v);
  FE(sub)(&y3, &v, &x3);
  FE(mul)(&y3, &y3, &rr);
  FE(mul)(&s1, &s1, &j);
  FE(dbl)(&s1, &s1);
  FE(sub)(&y3, &y3, &s1);
  FE(add)(&z3, &a->z, &b->z);
  FE(sqr)(&z3, &z3);
  FE(sub)(&z3, &z3, &z1z1);
  FE(sub)(&z3, &z3, &z2z2);
  FE(mul)(&z3, &z3, &h);
  r->x = x3;
  r->y = y3;
  r->z = z3;
}

/* madd-2007-bl (Z2 = 1). */
void CV(jac_add_affine)(CV(jac_t) * r, const CV(jac_t) * a, const CV(affine_t) * b) {
  if (CV(affine_is_inf)(b)) {
    *r = *a;
    return;
  }
  if (CV(jac_is_inf)(a)) {
    CV(jac_from_affine)(r, b);
    return;
  }
  fe_t z1z1, u2, s2, h, hh, i, j, rr, v, x3, y3, z3;
  FE(sqr)(&z1z1, &a->z);
  FE(mul)(&u2, &b->x, &z1z1);
  FE(mul)(&s2, &b->y, &a->z);
  FE(mul)(&s2, &s2, &z1z1);
  FE(sub)(&h, &u2, &a->x);
  FE(sub)(&rr, &s2, &a->y);
  if (FE(is_zero)(&h)) {
    if (FE(is_zero)(&rr))
      CV(jac_dbl)(r, a);
    else
      CV(jac_set_inf)(r);
    return;
  }
  FE(dbl)(&rr, &rr);
  FE(sqr)(&hh, &h);
  FE(dbl)(&i, &hh);
  FE(dbl)(&i, &i);
  FE(mul)(&j, &h, &i);
  FE(mul)(&v, &a->x, &i);
  FE(sqr)(&x3, &rr);
  FE(sub)(&x3, &x3, &j);
  FE(sub)(&x3, &x3, &v);
  FE(sub)(&x3, &x3, &v);
  FE(sub)(&y3, &v, &x3);
  FE(mul)(&y3, &y3, &rr);
  FE(mul)(&j, &j, &a->y);
  FE(dbl)(&j, &j);
  FE(sub)(&y3, &y3, &j);
  FE(add)(&z3, &a->z, &h);
  FE(sqr)(&z3, &z3);
  FE(sub)(&z3, &z3, &z1z1);
  FE(sub)(&z3, &z3, &hh);
  r->x = x3;
  r->y = y3;
  r->z = z3;
}

/* Fixed 4-bit windows, most significant first: about 252 doublings and 63
 * additions for a 255-bit scalar. Not constant time (see the header). */
void CV(jac_mul_limbs)(CV(jac_t) * r, const CV(jac_t) * p, const uint64_t *k, size_t nlimbs) {
  CV(jac_t) table[16]; /* table[i] = i P */
  CV(jac_set_inf)(&table[0]);
  table[1] = *p;
  for (int i = 2; i < 16; i++) CV(jac_add)(&table[i], &table[i - 1], p);
  CV(jac_t) acc;
  CV(jac_set_inf)(&acc);
  bool started = false;
  for (size_t w = nlimbs * 16; w-- > 0;) {
    unsigned nib = (unsigned)(k[w / 16] >> (4 * (w % 16))) & 15u;
    if (started) {
      for (int d = 0; d < 4; d++) CV(jac_dbl)(&acc, &acc);
    }
    if (nib != 0) {
      CV(jac_add)(&acc, &acc, &table[nib]);
      started = true;
    }
  }
  *r = acc;
}

void CV(jac_mul)(CV(jac_t) * r, const CV(jac_t) * p, const scalar_t *k) {
  CV(jac_mul_limbs)(r, p, k->l, 4);
}

/* [k]p for an affine p and a 64-bit k by plain double-and-add: the subgroup
 * checks multiply by |x| = 0xd201000000010000, which has only 6 bits set, so
 * windows would cost more than they save. */
static void affine_mul_u64(CV(jac_t) * r, const CV(affine_t) * p, uint64_t k) {
  CV(jac_t) acc;
  CV(jac_set_inf)(&acc);
  for (int bit = 63; bit >= 0; bit--) {
    CV(jac_dbl)(&acc, &acc);
    if ((k >> bit) & 1u) CV(jac_add_affine)(&acc, &acc, p);
  }
  *r = acc;
}

/* ------------------------------------------------------------------ XYZZ */

void CV(xyzz_set_inf)(CV(xyzz_t) * r) {
  r->x = FE_ONE_C;
  r->y = FE_ONE_C;
  memset(&r->zz, 0, sizeof r->zz);
  memset(&r->zzz, 0, sizeof r->zzz);
}

bool CV(xyzz_is_inf)(const CV(xyzz_t) * p) { return FE(is_zero)(&p->zz); }

void CV(xyzz_from_affine)(CV(xyzz_t) * r, const CV(affine_t) * p) {
  if (CV(affine_is_inf)(p)) {
    CV(xyzz_set_inf)(r);
    return;
  }
  r->x = p->x;
  r->y = p->y;
  r->zz = FE_ONE_C;
  r->zzz = FE_ONE_C;
}

/* With Z = ZZZ: X/Z^2 = X ZZ^2 / ZZZ^2 = X / ZZ because ZZ^3 = ZZZ^2, and
 * Y/Z^3 = Y ZZZ^2 / ZZZ^3 = Y / ZZZ. */
void CV(xyzz_to_jac)(CV(jac_t) * r, const CV(xyzz_t) * p) {
  if (CV(xyzz_is_inf)(p)) {
    CV(jac_set_inf)(r);
    return;
  }
  fe_t t, x, y, z = p->zzz;
  FE(sqr)(&t, &p->zz);
  FE(mul)(&x, &p->x, &t);
  FE(sqr)(&t, &p->zzz);
  FE(mul)(&y, &p->y, &t);
  r->x = x;
  r->y = y;
  r->z = z;
}

/* dbl-2008-s-1. Infinity (ZZ = 0) stays infinity through ZZ3 = V ZZ. */
void CV(xyzz_dbl)(CV(xyzz_t) * r, const CV(xyzz_t) * p) {
  fe_t u, v, w, s, m, x3, y3, zz3, zzz3;
  FE(dbl)(&u, &p->y);
  FE(sqr)(&v, &u);
  FE(mul)(&w, &u, &v);
  FE(mul)(&s, &p->x, &v);
  FE(sqr)(&m, &p->x);
  FE(dbl)(&x3, &m);
  FE(add)(&m, &m, &x3);
  FE(sqr)(&x3, &m);
  FE(sub)(&x3, &x3, &s);
  FE(sub)(&x3, &x3, &s);
  FE(sub)(&y3, &s, &x3);
  FE(mul)(&y3, &y3, &m);
  FE(mul)(&u, &w, &p->y);
  FE(sub)(&y3, &y3, &u);
  FE(mul)(&zz3, &v, &p->zz);
  FE(mul)(&zzz3, &w, &p->zzz);
  r->x = x3;
  r->y = y3;
  r->zz = zz3;
  r->zzz = zzz3;
}

/* add-2008-s. */
void CV(xyzz_add)(CV(xyzz_t) * r, const CV(xyzz_t) * a, const CV(xyzz_t) * b) {
  if (CV(xyzz_is_inf)(a)) {
    *r = *b;
    return;
  }
  if (CV(xyzz_is_inf)(b)) {
    *r = *a;
    return;
  }
  fe_t u1, u2, s1, s2, p, rr, pp, ppp, q, x3, y3, zz3, zzz3;
  FE(mul)(&u1, &a->x, &b->zz);
  FE(mul)(&u2, &b->x, &a->zz);
  FE(mul)(&s1, &a->y, &b->zzz);
  FE(mul)(&s2, &b->y, &a->zzz);
  FE(sub)(&p, &u2, &u1);
  FE(sub)(&rr, &s2, &s1);
  if (FE(is_zero)(&p)) {
    if (FE(is_zero)(&rr))
      CV(xyzz_dbl)(r, a);
    else
      CV(xyzz_set_inf)(r);
    return;
  }
  FE(sqr)(&pp, &p);
  FE(mul)(&ppp, &p, &pp);
  FE(mul)(&q, &u1, &pp);
  FE(sqr)(&x3, &rr);
  FE(sub)(&x3, &x3, &ppp);
  FE(sub)(&x3, &x3, &q);
  FE(sub)(&x3, &x3, &q);
  FE(sub)(&y3, &q, &x3);
  FE(mul)(&y3, &y3, &rr);
  FE(mul)(&s1, &s1, &ppp);
  FE(sub)(&y3, &y3, &s1);
  FE(mul)(&zz3, &a->zz, &b->zz);
  FE(mul)(&zz3, &zz3, &pp);
  FE(mul)(&zzz3, &a->zzz, &b->zzz);
  FE(mul)(&zzz3, &zzz3, &ppp);
  r->x = x3;
  r->y = y3;
  r->zz = zz3;
  r->zzz = zzz3;
}

/* madd-2008-s (ZZ2 = ZZZ2 = 1): the bucket accumulation step of the MSM. */
void CV(xyzz_add_affine)(CV(xyzz_t) * r, const CV(xyzz_t) * a, const CV(affine_t) * b) {
  if (CV(affine_is_inf)(b)) {
    *r = *a;
    return;
  }
  if (CV(xyzz_is_inf)(a)) {
    CV(xyzz_from_affine)(r, b);
    return;
  }
  fe_t u2, s2, p, rr, pp, ppp, q, x3, y3, zz3, zzz3;
  FE(mul)(&u2, &b->x, &a->zz);
  FE(mul)(&s2, &b->y, &a->zzz);
  FE(sub)(&p, &u2, &a->x);
  FE(sub)(&rr, &s2, &a->y);
  if (FE(is_zero)(&p)) {
    if (FE(is_zero)(&rr))
      CV(xyzz_dbl)(r, a);
    else
      CV(xyzz_set_inf)(r);
    return;
  }
  FE(sqr)(&pp, &p);
  FE(mul)(&ppp, &p, &pp);
  FE(mul)(&q, &a->x, &pp);
  FE(sqr)(&x3, &rr);
  FE(sub)(&x3, &x3, &ppp);
  FE(sub)(&x3, &x3, &q);
  FE(sub)(&x3, &x3, &q);
  FE(sub)(&y3, &q, &x3);
  FE(mul)(&y3, &y3, &rr);
  FE(mul)(&s2, &a->y, &ppp);
  FE(sub)(&y3, &y3, &s2);
  FE(mul)(&zz3, &a->zz, &pp);
  FE(mul)(&zzz3, &a->zzz, &ppp);
  r->x = x3;
  r->y = y3;
  r->zz = zz3;
  r->zzz = zzz3;
}

void CV(xyzz_neg)(CV(xyzz_t) * r, const CV(xyzz_t) * p) {
  r->x = p->x;
  FE(neg)(&r->y, &p->y);
  r->zz = p->zz;
  r->zzz = p->zzz;
}
