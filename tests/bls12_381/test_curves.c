/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* G1 and G2 against @noble/curves (tests/bls12_381/vectors/g1.txt, g2.txt): scalar
 * multiplication, additions, doublings, compressed and uncompressed encodings byte
 * for byte, decoding round trips, every rejection case with its exact bls_err (with
 * and without the subgroup check), points on the curve outside the subgroup; then
 * the coordinate systems against each other (Jacobian, XYZZ, mixed additions with
 * every special case, batch conversion to affine).
 *
 * G1 and G2 share one test body, instantiated by CURVE_TESTS below, because the
 * library itself shares one implementation between them (curve_impl.h) and the
 * tests must exercise both instantiations the same way. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bls_vectors.h"
#include "cofactor.h"

static const char *err_name(bls_err e) {
  switch (e) {
    case BLS_OK: return "OK";
    case BLS_ERR_LENGTH: return "LENGTH";
    case BLS_ERR_FLAGS: return "FLAGS";
    case BLS_ERR_NONCANONICAL: return "NONCANONICAL";
    case BLS_ERR_NOT_ON_CURVE: return "NOT_ON_CURVE";
    case BLS_ERR_NOT_IN_SUBGROUP: return "NOT_IN_SUBGROUP";
  }
  return "?";
}

static bls_err err_from_name(const vec_file *vf, int i) {
  static const bls_err all[] = {BLS_OK,
                                BLS_ERR_LENGTH,
                                BLS_ERR_FLAGS,
                                BLS_ERR_NONCANONICAL,
                                BLS_ERR_NOT_ON_CURVE,
                                BLS_ERR_NOT_IN_SUBGROUP};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    if (vec_is(vf, i, err_name(all[k]))) return all[k];
  ck_abort_msg("%s: unknown error name %s", vec_where(vf), vf->tok[i]);
  return BLS_OK;
}

static void hex_msg(char *buf, const uint8_t *b, size_t len) { hex_of(buf, b, len); }

/* r = (r - 1) as a scalar, and r itself as limbs (scalar_t must stay < r). */
static void scalar_r_minus(scalar_t *s, uint64_t k) {
  memcpy(s->l, BLS_R, sizeof s->l);
  s->l[0] -= k; /* BLS_R[0] = 0xffffffff00000001, no borrow for small k */
}

/* The test body for one group. G is g1 or g2, UL/CL the encoding lengths. */
#define CURVE_TESTS(G, UL, CL, FILE)                                                               \
  typedef struct {                                                                                 \
    G##_affine_t p;                                                                                \
  } G##_entry;                                                                                     \
                                                                                                   \
  /* Compare an affine result with an uncompressed encoding from the file. */                      \
  static void G##_expect_point(const vec_file *vf, int tok, const G##_affine_t *got,               \
                               const char *what) {                                                 \
    uint8_t want[UL], enc[UL];                                                                     \
    vec_hex(vf, tok, want, UL);                                                                    \
    G##_serialize(enc, got);                                                                       \
    if (memcmp(enc, want, UL) != 0) {                                                              \
      char g[2 * UL + 1], w[2 * UL + 1];                                                           \
      hex_msg(g, enc, UL);                                                                         \
      hex_msg(w, want, UL);                                                                        \
      ck_abort_msg("%s: %s\n  got  %s\n  want %s", vec_where(vf), what, g, w);                     \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  static void G##_expect_jac(const vec_file *vf, int tok, const G##_jac_t *got,                    \
                             const char *what) {                                                   \
    G##_affine_t a;                                                                                \
    G##_jac_to_affine(&a, got);                                                                    \
    G##_expect_point(vf, tok, &a, what);                                                           \
  }                                                                                                \
                                                                                                   \
  static void G##_expect_xyzz(const vec_file *vf, int tok, const G##_xyzz_t *got,                  \
                              const char *what) {                                                  \
    G##_jac_t j;                                                                                   \
    G##_xyzz_to_jac(&j, got);                                                                      \
    G##_expect_jac(vf, tok, &j, what);                                                             \
  }                                                                                                \
                                                                                                   \
  START_TEST(G##_against_noble) {                                                                  \
    vec_file vf;                                                                                   \
    vec_pool pts;                                                                                  \
    unsigned npt = 0, nmul = 0, nadd = 0, ndbl = 0, nnosub = 0, nrej = 0, ninf = 0;                \
    G##_affine_t gen;                                                                              \
    G##_jac_t genj;                                                                                \
    G##_generator(&gen);                                                                           \
    G##_jac_from_affine(&genj, &gen);                                                              \
    vec_open(&vf, FILE);                                                                           \
    pool_init(&pts, sizeof(G##_entry));                                                            \
    while (vec_next(&vf)) {                                                                        \
      if (vec_is(&vf, 0, "pt")) {                                                                  \
        scalar_t k;                                                                                \
        G##_jac_t j;                                                                               \
        G##_affine_t a, d;                                                                         \
        uint8_t u[UL], c[CL], enc[UL];                                                             \
        vec_scalar(&vf, 1, &k);                                                                    \
        vec_hex(&vf, 2, u, UL);                                                                    \
        vec_hex(&vf, 3, c, CL);                                                                    \
        G##_jac_mul(&j, &genj, &k);                                                                \
        G##_jac_to_affine(&a, &j);                                                                 \
        G##_expect_point(&vf, 2, &a, "k * generator");                                             \
        G##_jac_mul_limbs(&j, &genj, k.l, 4);                                                      \
        G##_expect_jac(&vf, 2, &j, "k * generator (mul_limbs)");                                   \
        G##_compress(enc, &a);                                                                     \
        ck_assert_msg(memcmp(enc, c, CL) == 0, "%s: compressed encoding differs", vec_where(&vf)); \
        for (unsigned fl = 0; fl <= BLS_DECODE_SUBGROUP_CHECK; fl++) {                             \
          bls_err e = G##_deserialize(&d, u, UL, fl);                                              \
          ck_assert_msg(e == BLS_OK && G##_affine_eq(&d, &a),                                      \
                        "%s: uncompressed decode (flags %u): %s", vec_where(&vf), fl,              \
                        err_name(e));                                                              \
          e = G##_deserialize(&d, c, CL, fl);                                                      \
          ck_assert_msg(e == BLS_OK && G##_affine_eq(&d, &a),                                      \
                        "%s: compressed decode (flags %u): %s", vec_where(&vf), fl, err_name(e));  \
        }                                                                                          \
        ck_assert_msg(G##_affine_on_curve(&a), "%s: on_curve", vec_where(&vf));                    \
        ck_assert_msg(G##_affine_in_subgroup(&a), "%s: in_subgroup", vec_where(&vf));              \
        ((G##_entry *)pool_push(&pts))->p = a;                                                     \
        npt++;                                                                                     \
      } else if (vec_is(&vf, 0, "mul")) {                                                          \
        const G##_entry *e = pool_at(&pts, &vf, 1);                                                \
        scalar_t k;                                                                                \
        G##_jac_t j;                                                                               \
        vec_scalar(&vf, 2, &k);                                                                    \
        G##_jac_from_affine(&j, &e->p);                                                            \
        G##_jac_mul(&j, &j, &k); /* aliased output */                                              \
        G##_expect_jac(&vf, 3, &j, "scalar multiplication");                                       \
        nmul++;                                                                                    \
      } else if (vec_is(&vf, 0, "add")) {                                                          \
        const G##_entry *a = pool_at(&pts, &vf, 1), *b = pool_at(&pts, &vf, 2);                    \
        G##_jac_t ja, jb, jr, t;                                                                   \
        G##_xyzz_t xa, xb, xr;                                                                     \
        G##_jac_from_affine(&ja, &a->p);                                                           \
        G##_jac_from_affine(&jb, &b->p);                                                           \
        G##_jac_add(&jr, &ja, &jb);                                                                \
        G##_expect_jac(&vf, 3, &jr, "jac_add");                                                    \
        G##_jac_add_affine(&jr, &ja, &b->p);                                                       \
        G##_expect_jac(&vf, 3, &jr, "jac_add_affine");                                             \
        /* the same sum with Z != 1 on both inputs (a = 2a - a), so the general */                 \
        /* formulas run and not only their Z = 1 shortcuts */                                      \
        G##_jac_dbl(&t, &ja);                                                                      \
        G##_jac_neg(&ja, &ja);                                                                     \
        G##_jac_add(&ja, &t, &ja);                                                                 \
        G##_jac_dbl(&t, &jb);                                                                      \
        G##_jac_neg(&jb, &jb);                                                                     \
        G##_jac_add(&jb, &t, &jb);                                                                 \
        G##_jac_add(&jr, &ja, &jb);                                                                \
        G##_expect_jac(&vf, 3, &jr, "jac_add (Z != 1)");                                           \
        G##_jac_add_affine(&jr, &ja, &b->p);                                                       \
        G##_expect_jac(&vf, 3, &jr, "jac_add_affine (Z != 1)");                                    \
        G##_xyzz_from_affine(&xa, &a->p);                                                          \
        G##_xyzz_from_affine(&xb, &b->p);                                                          \
        G##_xyzz_add(&xr, &xa, &xb);                                                               \
        G##_expect_xyzz(&vf, 3, &xr, "xyzz_add");                                                  \
        G##_xyzz_add_affine(&xr, &xa, &b->p);                                                      \
        G##_expect_xyzz(&vf, 3, &xr, "xyzz_add_affine");                                           \
        nadd++;                                                                                    \
      } else if (vec_is(&vf, 0, "dbl")) {                                                          \
        const G##_entry *a = pool_at(&pts, &vf, 1);                                                \
        G##_jac_t j;                                                                               \
        G##_xyzz_t x;                                                                              \
        G##_jac_from_affine(&j, &a->p);                                                            \
        G##_jac_dbl(&j, &j);                                                                       \
        G##_expect_jac(&vf, 2, &j, "jac_dbl");                                                     \
        G##_xyzz_from_affine(&x, &a->p);                                                           \
        G##_xyzz_dbl(&x, &x);                                                                      \
        G##_expect_xyzz(&vf, 2, &x, "xyzz_dbl");                                                   \
        ndbl++;                                                                                    \
      } else if (vec_is(&vf, 0, "nosub")) {                                                        \
        uint8_t u[UL], c[CL], enc[UL];                                                             \
        G##_affine_t d, d2;                                                                        \
        vec_hex(&vf, 1, u, UL);                                                                    \
        vec_hex(&vf, 2, c, CL);                                                                    \
        bls_err e = G##_deserialize(&d, u, UL, 0);                                                 \
        ck_assert_msg(e == BLS_OK, "%s: off-subgroup point without the check: %s", vec_where(&vf), \
                      err_name(e));                                                                \
        e = G##_deserialize(&d2, c, CL, 0);                                                        \
        ck_assert_msg(e == BLS_OK && G##_affine_eq(&d, &d2),                                       \
                      "%s: compressed off-subgroup point without the check: %s", vec_where(&vf),   \
                      err_name(e));                                                                \
        G##_serialize(enc, &d);                                                                    \
        ck_assert_msg(memcmp(enc, u, UL) == 0, "%s: re-encoding differs", vec_where(&vf));         \
        G##_compress(enc, &d);                                                                     \
        ck_assert_msg(memcmp(enc, c, CL) == 0, "%s: re-compression differs", vec_where(&vf));      \
        ck_assert_msg(G##_affine_on_curve(&d), "%s: on_curve", vec_where(&vf));                    \
        ck_assert_msg(!G##_affine_in_subgroup(&d), "%s: in_subgroup accepted it", vec_where(&vf)); \
        e = G##_deserialize(&d2, u, UL, BLS_DECODE_SUBGROUP_CHECK);                                \
        ck_assert_msg(e == BLS_ERR_NOT_IN_SUBGROUP, "%s: uncompressed with check: %s",             \
                      vec_where(&vf), err_name(e));                                                \
        e = G##_deserialize(&d2, c, CL, BLS_DECODE_SUBGROUP_CHECK);                                \
        ck_assert_msg(e == BLS_ERR_NOT_IN_SUBGROUP, "%s: compressed with check: %s",               \
                      vec_where(&vf), err_name(e));                                                \
        /* the fast check agrees with the definition: r * P != 0 */                                \
        G##_jac_t j;                                                                               \
        G##_jac_from_affine(&j, &d);                                                               \
        G##_jac_mul_limbs(&j, &j, BLS_R, 4);                                                       \
        ck_assert_msg(!G##_jac_is_inf(&j), "%s: r * P is infinity", vec_where(&vf));               \
        nnosub++;                                                                                  \
      } else if (vec_is(&vf, 0, "inf")) {                                                          \
        uint8_t u[UL], c[CL], enc[UL];                                                             \
        G##_affine_t d, inf;                                                                       \
        G##_affine_set_inf(&inf);                                                                  \
        vec_hex(&vf, 1, u, UL);                                                                    \
        vec_hex(&vf, 2, c, CL);                                                                    \
        for (unsigned fl = 0; fl <= BLS_DECODE_SUBGROUP_CHECK; fl++) {                             \
          ck_assert_int_eq(G##_deserialize(&d, u, UL, fl), BLS_OK);                                \
          ck_assert(G##_affine_is_inf(&d));                                                        \
          ck_assert_int_eq(G##_deserialize(&d, c, CL, fl), BLS_OK);                                \
          ck_assert(G##_affine_is_inf(&d));                                                        \
        }                                                                                          \
        G##_serialize(enc, &inf);                                                                  \
        ck_assert_mem_eq(enc, u, UL);                                                              \
        G##_compress(enc, &inf);                                                                   \
        ck_assert_mem_eq(enc, c, CL);                                                              \
        ninf++;                                                                                    \
      } else if (vec_is(&vf, 0, "reject")) {                                                       \
        uint8_t b[2 * UL];                                                                         \
        bls_err want = err_from_name(&vf, 1);                                                      \
        size_t len = vec_hex_any(&vf, 2, b, sizeof b);                                             \
        for (unsigned fl = 0; fl <= BLS_DECODE_SUBGROUP_CHECK; fl++) {                             \
          G##_affine_t d;                                                                          \
          bls_err e = G##_deserialize(&d, len ? b : NULL, len, fl);                                \
          ck_assert_msg(e == want, "%s: %s (flags %u): got BLS_ERR %s, want %s", vec_where(&vf),   \
                        vf.ntok > 3 ? vf.tok[3] : "", fl, err_name(e), err_name(want));            \
        }                                                                                          \
        nrej++;                                                                                    \
      } else {                                                                                     \
        ck_abort_msg("%s: unknown op %s", vec_where(&vf), vf.tok[0]);                              \
      }                                                                                            \
    }                                                                                              \
    vec_close(&vf);                                                                                \
    pool_free(&pts);                                                                               \
    fprintf(stderr,                                                                                \
            "%s: %u points, %u mul, %u add, %u dbl, %u off-subgroup, %u infinity, "                \
            "%u rejections\n",                                                                     \
            FILE, npt, nmul, nadd, ndbl, nnosub, ninf, nrej);                                      \
    ck_assert_uint_ge(npt, 60);                                                                    \
    ck_assert_uint_ge(nmul, 30);                                                                   \
    ck_assert_uint_ge(nadd, 30);                                                                   \
    ck_assert_uint_ge(nnosub, 10);                                                                 \
    ck_assert_uint_eq(ninf, 1);                                                                    \
    ck_assert_uint_ge(nrej, 25);                                                                   \
  }                                                                                                \
  END_TEST                                                                                         \
                                                                                                   \
  /* Random points k * generator, k from a fixed seed. */                                          \
  static void G##_random_jac(test_rng *rng, G##_jac_t *r) {                                        \
    G##_affine_t g;                                                                                \
    G##_jac_t gj;                                                                                  \
    scalar_t k;                                                                                    \
    G##_generator(&g);                                                                             \
    G##_jac_from_affine(&gj, &g);                                                                  \
    rng_scalar(rng, &k);                                                                           \
    G##_jac_mul(r, &gj, &k);                                                                       \
  }                                                                                                \
                                                                                                   \
  START_TEST(G##_special_cases) {                                                                  \
    test_rng rng;                                                                                  \
    rng_seed(&rng, 500);                                                                           \
    G##_jac_t p, q, r, s, inf;                                                                     \
    G##_affine_t pa, qa, ra, infa;                                                                 \
    G##_xyzz_t px, qx, rx, infx;                                                                   \
    G##_jac_set_inf(&inf);                                                                         \
    G##_affine_set_inf(&infa);                                                                     \
    G##_xyzz_set_inf(&infx);                                                                       \
    ck_assert(G##_jac_is_inf(&inf) && G##_affine_is_inf(&infa) && G##_xyzz_is_inf(&infx));         \
    ck_assert(G##_affine_on_curve(&infa) && G##_affine_in_subgroup(&infa));                        \
    for (int it = 0; it < 20; it++) {                                                              \
      G##_random_jac(&rng, &p);                                                                    \
      G##_random_jac(&rng, &q);                                                                    \
      G##_jac_to_affine(&pa, &p);                                                                  \
      G##_jac_to_affine(&qa, &q);                                                                  \
      /* P + 0, 0 + P, 0 + 0 in all forms */                                                       \
      G##_jac_add(&r, &p, &inf);                                                                   \
      ck_assert(G##_jac_eq(&r, &p));                                                               \
      G##_jac_add(&r, &inf, &p);                                                                   \
      ck_assert(G##_jac_eq(&r, &p));                                                               \
      G##_jac_add(&r, &inf, &inf);                                                                 \
      ck_assert(G##_jac_is_inf(&r));                                                               \
      G##_jac_add_affine(&r, &p, &infa);                                                           \
      ck_assert(G##_jac_eq(&r, &p));                                                               \
      G##_jac_add_affine(&r, &inf, &pa);                                                           \
      ck_assert(G##_jac_eq(&r, &p));                                                               \
      /* P + P = 2P through the addition entry points */                                           \
      G##_jac_dbl(&s, &p);                                                                         \
      G##_jac_add(&r, &p, &p);                                                                     \
      ck_assert(G##_jac_eq(&r, &s));                                                               \
      G##_jac_add_affine(&r, &p, &pa);                                                             \
      ck_assert(G##_jac_eq(&r, &s));                                                               \
      /* P + (-P) = 0 */                                                                           \
      G##_jac_neg(&r, &p);                                                                         \
      G##_jac_add(&r, &r, &p);                                                                     \
      ck_assert(G##_jac_is_inf(&r));                                                               \
      G##_affine_neg(&ra, &pa);                                                                    \
      G##_jac_add_affine(&r, &p, &ra);                                                             \
      ck_assert(G##_jac_is_inf(&r));                                                               \
      G##_affine_neg(&qa, &infa);                                                                  \
      ck_assert(G##_affine_is_inf(&qa));                                                           \
      G##_jac_to_affine(&qa, &q);                                                                  \
      /* XYZZ: same special cases, compared through Jacobian */                                    \
      G##_xyzz_from_affine(&px, &pa);                                                              \
      G##_xyzz_from_affine(&qx, &qa);                                                              \
      G##_xyzz_add(&rx, &px, &infx);                                                               \
      G##_xyzz_to_jac(&r, &rx);                                                                    \
      ck_assert(G##_jac_eq(&r, &p));                                                               \
      G##_xyzz_add(&rx, &infx, &px);                                                               \
      G##_xyzz_to_jac(&r, &rx);                                                                    \
      ck_assert(G##_jac_eq(&r, &p));                                                               \
      G##_xyzz_add_affine(&rx, &infx, &pa);                                                        \
      G##_xyzz_to_jac(&r, &rx);                                                                    \
      ck_assert(G##_jac_eq(&r, &p));                                                               \
      G##_xyzz_add_affine(&rx, &px, &infa);                                                        \
      G##_xyzz_to_jac(&r, &rx);                                                                    \
      ck_assert(G##_jac_eq(&r, &p));                                                               \
      G##_xyzz_add(&rx, &px, &px);                                                                 \
      G##_xyzz_to_jac(&r, &rx);                                                                    \
      ck_assert(G##_jac_eq(&r, &s));                                                               \
      G##_xyzz_add_affine(&rx, &px, &pa);                                                          \
      G##_xyzz_to_jac(&r, &rx);                                                                    \
      ck_assert(G##_jac_eq(&r, &s));                                                               \
      G##_xyzz_neg(&rx, &px);                                                                      \
      G##_xyzz_add(&rx, &rx, &px);                                                                 \
      ck_assert(G##_xyzz_is_inf(&rx));                                                             \
      G##_xyzz_add_affine(&rx, &px, &ra);                                                          \
      ck_assert(G##_xyzz_is_inf(&rx));                                                             \
      G##_xyzz_dbl(&rx, &infx);                                                                    \
      ck_assert(G##_xyzz_is_inf(&rx));                                                             \
      /* XYZZ sums with non-trivial ZZ: (P + Q) + P == P + (Q + P) == 2P + Q */                    \
      G##_xyzz_t t1, t2;                                                                           \
      G##_xyzz_add(&t1, &px, &qx);                                                                 \
      G##_xyzz_add(&t1, &t1, &px);                                                                 \
      G##_xyzz_dbl(&t2, &px);                                                                      \
      G##_xyzz_add_affine(&t2, &t2, &qa);                                                          \
      G##_jac_t j1, j2;                                                                            \
      G##_xyzz_to_jac(&j1, &t1);                                                                   \
      G##_xyzz_to_jac(&j2, &t2);                                                                   \
      ck_assert(G##_jac_eq(&j1, &j2));                                                             \
      G##_jac_add(&r, &s, &q);                                                                     \
      ck_assert(G##_jac_eq(&j1, &r));                                                              \
      /* jac_eq across different Z: 2P + Q computed two ways has different Z */                    \
      G##_affine_t a1, a2;                                                                         \
      G##_jac_to_affine(&a1, &j1);                                                                 \
      G##_jac_to_affine(&a2, &r);                                                                  \
      ck_assert(G##_affine_eq(&a1, &a2));                                                          \
      ck_assert(!G##_jac_eq(&p, &q));                                                              \
      ck_assert(!G##_jac_eq(&p, &inf) && !G##_jac_eq(&inf, &p) && G##_jac_eq(&inf, &inf));         \
    }                                                                                              \
    /* scalar edge cases: 0, 1, r - 1, r (limbs), empty limb array */                              \
    G##_random_jac(&rng, &p);                                                                      \
    scalar_t k;                                                                                    \
    memset(&k, 0, sizeof k);                                                                       \
    G##_jac_mul(&r, &p, &k);                                                                       \
    ck_assert(G##_jac_is_inf(&r));                                                                 \
    k.l[0] = 1;                                                                                    \
    G##_jac_mul(&r, &p, &k);                                                                       \
    ck_assert(G##_jac_eq(&r, &p));                                                                 \
    scalar_r_minus(&k, 1);                                                                         \
    G##_jac_mul(&r, &p, &k);                                                                       \
    G##_jac_neg(&s, &p);                                                                           \
    ck_assert(G##_jac_eq(&r, &s));                                                                 \
    G##_jac_mul_limbs(&r, &p, BLS_R, 4);                                                           \
    ck_assert(G##_jac_is_inf(&r));                                                                 \
    G##_jac_mul_limbs(&r, &p, BLS_R, 0);                                                           \
    ck_assert(G##_jac_is_inf(&r));                                                                 \
    G##_jac_mul(&r, &inf, &k);                                                                     \
    ck_assert(G##_jac_is_inf(&r));                                                                 \
    G##_jac_to_affine(&ra, &inf);                                                                  \
    ck_assert(G##_affine_is_inf(&ra));                                                             \
    G##_jac_from_affine(&r, &infa);                                                                \
    ck_assert(G##_jac_is_inf(&r));                                                                 \
    G##_xyzz_from_affine(&rx, &infa);                                                              \
    ck_assert(G##_xyzz_is_inf(&rx));                                                               \
    G##_xyzz_to_jac(&r, &infx);                                                                    \
    ck_assert(G##_jac_is_inf(&r));                                                                 \
    /* an off-curve point: the generator with y replaced by x */                                   \
    G##_generator(&pa);                                                                            \
    ck_assert(G##_affine_on_curve(&pa));                                                           \
    pa.y = pa.x;                                                                                   \
    ck_assert(!G##_affine_on_curve(&pa));                                                          \
  }                                                                                                \
  END_TEST                                                                                         \
                                                                                                   \
  START_TEST(G##_batch_to_affine) {                                                                \
    test_rng rng;                                                                                  \
    rng_seed(&rng, 600);                                                                           \
    size_t sizes[] = {0, 1, 2, 17, 100};                                                           \
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {                               \
      size_t n = sizes[si];                                                                        \
      G##_jac_t *in = calloc(n + 1, sizeof *in);                                                   \
      G##_affine_t *out = calloc(n + 1, sizeof *out);                                              \
      ck_assert_ptr_nonnull(in);                                                                   \
      ck_assert_ptr_nonnull(out);                                                                  \
      for (size_t i = 0; i < n; i++) {                                                             \
        if (i % 7 == 3)                                                                            \
          G##_jac_set_inf(&in[i]); /* infinity in the middle of the batch */                       \
        else {                                                                                     \
          G##_random_jac(&rng, &in[i]);                                                            \
          G##_jac_dbl(&in[i], &in[i]); /* Z != 1 */                                                \
        }                                                                                          \
      }                                                                                            \
      G##_jac_batch_to_affine(out, in, n);                                                         \
      for (size_t i = 0; i < n; i++) {                                                             \
        G##_affine_t want;                                                                         \
        G##_jac_to_affine(&want, &in[i]);                                                          \
        ck_assert_msg(G##_affine_eq(&out[i], &want), "batch_to_affine n=%zu index %zu", n, i);     \
      }                                                                                            \
      free(in);                                                                                    \
      free(out);                                                                                   \
    }                                                                                              \
  }                                                                                                \
  END_TEST

CURVE_TESTS(g1, 96, 48, "g1.txt")
CURVE_TESTS(g2, 192, 96, "g2.txt")

START_TEST(generators_and_error_strings) {
  /* the generators are the standard ones (first pt line of each file is 1 * G) */
  uint8_t enc1[48], enc2[96];
  g1_affine_t g1;
  g2_affine_t g2;
  g1_generator(&g1);
  g2_generator(&g2);
  g1_compress(enc1, &g1);
  g2_compress(enc2, &g2);
  static const uint8_t g1c[48] = {0x97, 0xf1, 0xd3, 0xa7, 0x31, 0x97, 0xd7, 0x94, 0x26, 0x95,
                                  0x63, 0x8c, 0x4f, 0xa9, 0xac, 0x0f, 0xc3, 0x68, 0x8c, 0x4f,
                                  0x97, 0x74, 0xb9, 0x05, 0xa1, 0x4e, 0x3a, 0x3f, 0x17, 0x1b,
                                  0xac, 0x58, 0x6c, 0x55, 0xe8, 0x3f, 0xf9, 0x7a, 0x1a, 0xef,
                                  0xfb, 0x3a, 0xf0, 0x0a, 0xdb, 0x22, 0xc6, 0xbb};
  ck_assert_mem_eq(enc1, g1c, 48);
  ck_assert_uint_eq(enc2[0], 0x93);
  ck_assert_uint_eq(enc2[1], 0xe0);
  const bls_err all[] = {BLS_OK,
                         BLS_ERR_LENGTH,
                         BLS_ERR_FLAGS,
                         BLS_ERR_NONCANONICAL,
                         BLS_ERR_NOT_ON_CURVE,
                         BLS_ERR_NOT_IN_SUBGROUP};
  for (size_t i = 0; i < 6; i++) {
    const char *s = bls_err_str(all[i]);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_gt(strlen(s), 0);
    for (size_t j = 0; j < i; j++) ck_assert_str_ne(s, bls_err_str(all[j]));
  }
  ck_assert_ptr_nonnull(bls_err_str((bls_err)99));
}
END_TEST

/* The subgroup checks (Scott's endomorphism tests: phi(P) + [u^2] P == O on G1,
 * psi(P) == [u] P on G2) against the definition [r] P == O, on points with every
 * component of the cofactor (tests/bls12_381/cofactor.c): components of each prime power
 * alone and added to a point of the subgroup, eigenvectors of phi, sums of all of
 * them, random curve points, subgroup points and infinity. All three verdicts must
 * agree: the fast check, the definition and the construction. */
static uint64_t cof_rng(void *st) { return rng_u64((test_rng *)st); }

START_TEST(g1_cofactor_components) {
  test_rng rng;
  rng_seed(&rng, 0x5eed0001u + (uint64_t)_i);
  static cof_g1_case cs[COF_MAX_CASES];
  char err[256] = "";
  int n = cof_cases_g1(cs, cof_rng, &rng, err, sizeof err);
  ck_assert_msg(n > 0, "cof_cases_g1: %s", err);
  int in = 0;
  for (int i = 0; i < n; i++) {
    ck_assert_msg(g1_affine_on_curve(&cs[i].p), "%s: not on the curve", cs[i].what);
    bool fast = g1_affine_in_subgroup(&cs[i].p), def = cof_g1_by_definition(&cs[i].p);
    ck_assert_msg(fast == def && def == cs[i].in_subgroup,
                  "G1 %s: fast check %d, [r]P == O %d, by construction %d", cs[i].what, fast, def,
                  cs[i].in_subgroup);
    in += def;
  }
  ck_assert_int_ge(n, 39);
  ck_assert_int_eq(in, 4); /* three points of G1 and infinity */
}
END_TEST

START_TEST(g2_cofactor_components) {
  test_rng rng;
  rng_seed(&rng, 0x5eed0002u + (uint64_t)_i);
  static cof_g2_case cs[COF_MAX_CASES];
  char err[256] = "";
  int n = cof_cases_g2(cs, cof_rng, &rng, err, sizeof err);
  ck_assert_msg(n > 0, "cof_cases_g2: %s", err);
  int in = 0;
  for (int i = 0; i < n; i++) {
    ck_assert_msg(g2_affine_on_curve(&cs[i].p), "%s: not on the curve", cs[i].what);
    bool fast = g2_affine_in_subgroup(&cs[i].p), def = cof_g2_by_definition(&cs[i].p);
    ck_assert_msg(fast == def && def == cs[i].in_subgroup,
                  "G2 %s: fast check %d, [r]P == O %d, by construction %d", cs[i].what, fast, def,
                  cs[i].in_subgroup);
    in += def;
  }
  ck_assert_int_ge(n, 33);
  ck_assert_int_eq(in, 4);
}
END_TEST

static Suite *curves_suite(void) {
  Suite *s = suite_create("curves");
  TCase *tc = tcase_create("noble");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, g1_against_noble);
  tcase_add_test(tc, g2_against_noble);
  tcase_add_test(tc, generators_and_error_strings);
  suite_add_tcase(s, tc);
  TCase *tc2 = tcase_create("forms");
  tcase_set_timeout(tc2, 60);
  tcase_add_test(tc2, g1_special_cases);
  tcase_add_test(tc2, g2_special_cases);
  tcase_add_test(tc2, g1_batch_to_affine);
  tcase_add_test(tc2, g2_batch_to_affine);
  suite_add_tcase(s, tc2);
  TCase *tc3 = tcase_create("cofactor");
  tcase_set_timeout(tc3, 120);
  tcase_add_loop_test(tc3, g1_cofactor_components, 0, 3);
  tcase_add_loop_test(tc3, g2_cofactor_components, 0, 2);
  suite_add_tcase(s, tc3);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(curves_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
