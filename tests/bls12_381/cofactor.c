/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cofactor.c -- see cofactor.h. The group orders and factorizations were computed
 * from the BLS parameter u = -0xd201000000010000 (p = (u-1)^2 (u^4-u^2+1)/3 + u,
 * r = u^4 - u^2 + 1, #E(Fp) = p + 1 - (u + 1) = h1 r, #E'(Fp2) from the sextic twist's
 * trace) and are checked here where it is cheap: every T built must be killed by its
 * q^k, and T != O. */
#include "cofactor.h"

#include <stdio.h>
#include <string.h>

/* h1 = (u - 1)^2 / 3 */
static const uint64_t H1[2] = {0x8c00aaab0000aaabull, 0x396c8c005555e156ull};
/* h2 (the G2 cofactor) */
static const uint64_t H2[8] = {0xcf1c38e31c7238e5ull, 0x1616ec6e786f0c70ull, 0x21537e293a6691aeull,
                               0xa628f1cb4d9e82efull, 0xa68a205b2e5a7ddfull, 0xcd91de4547085abaull,
                               0x091d50792876a202ull, 0x05d543a95414e7f1ull};
/* beta, canonical: phi(x, y) = (beta x, y), as in plugin/bls12_381/g1.c */
static const uint64_t BETA[6] = {0x2e01fffffffefffeull, 0xde17d813620a0002ull,
                                 0xddb3a93be6f89688ull, 0xba69c6076a0f77eaull,
                                 0x5f19672fdf76ce51ull, 0x0000000000000000ull};

typedef struct prime_power {
  uint64_t q;
  unsigned k;
} prime_power;

static const prime_power H1_PRIMES[] = {{3, 1}, {11, 2}, {10177, 2}, {859267, 2}, {52437899, 2}};
/* h2 = 13^2 23^2 2713 11953 262069 Q2: the small part, and Q2 = h2 / H2_SMALL */
static const prime_power H2_PRIMES[] = {{13, 2}, {23, 2}, {2713, 1}, {11953, 1}, {262069, 1}};
#define H2_SMALL (169ull * 529ull * 2713ull * 11953ull * 262069ull)

/* ---- little-endian limb arithmetic --------------------------------------------------- */

/* out[na + nb] = a * b */
static void lmul(uint64_t *out, const uint64_t *a, size_t na, const uint64_t *b, size_t nb) {
  memset(out, 0, (na + nb) * sizeof *out);
  for (size_t i = 0; i < na; i++) {
    unsigned __int128 c = 0;
    for (size_t j = 0; j < nb; j++) {
      c += (unsigned __int128)a[i] * b[j] + out[i + j];
      out[i + j] = (uint64_t)c;
      c >>= 64;
    }
    out[i + nb] = (uint64_t)c;
  }
}

/* a[n] /= d in place; returns the remainder */
static uint64_t ldiv(uint64_t *a, size_t n, uint64_t d) {
  unsigned __int128 rem = 0;
  for (size_t i = n; i-- > 0;) {
    unsigned __int128 cur = (rem << 64) | a[i];
    a[i] = (uint64_t)(cur / d);
    rem = cur % d;
  }
  return (uint64_t)rem;
}

static uint64_t upow(uint64_t q, unsigned k) {
  uint64_t v = 1;
  while (k--) v *= q;
  return v;
}

/* ---- G1 ---------------------------------------------------------------------------------- */

static void rand_fp(fp_t *r, cof_rng_fn rnd, void *st) {
  uint64_t c[6];
  do {
    for (int i = 0; i < 6; i++) c[i] = rnd(st);
    c[5] &= 0x1fffffffffffffffull;
  } while (!fp_from_canonical(r, c));
}

/* A random point of E(Fp) (almost surely outside G1: every cofactor component). */
static void g1_random_curve(g1_affine_t *p, cof_rng_fn rnd, void *st) {
  fp_t rhs, four, t;
  fp_from_u64(&four, 4);
  for (;;) {
    rand_fp(&p->x, rnd, st);
    fp_sqr(&t, &p->x);
    fp_mul(&t, &t, &p->x);
    fp_add(&rhs, &t, &four);
    if (fp_sqrt(&p->y, &rhs)) break;
  }
  if (rnd(st) & 1) fp_neg(&p->y, &p->y);
}

static void g1_random_sub(g1_jac_t *j, cof_rng_fn rnd, void *st) {
  g1_affine_t g;
  uint64_t k[4];
  for (int i = 0; i < 4; i++) k[i] = rnd(st);
  k[3] &= 0x3fffffffffffffffull; /* below 2^254 < r */
  g1_generator(&g);
  g1_jac_from_affine(j, &g);
  g1_jac_mul_limbs(j, j, k, 4);
}

bool cof_g1_by_definition(const g1_affine_t *p) {
  if (g1_affine_is_inf(p)) return true;
  g1_jac_t j;
  g1_jac_from_affine(&j, p);
  g1_jac_mul_limbs(&j, &j, BLS_R, 4);
  return g1_jac_is_inf(&j);
}

/* T = [(h1 r) / q^k] R != O for a random R, checked to be killed by q^k. */
static int g1_component(g1_jac_t *t, prime_power pp, cof_rng_fn rnd, void *st, char *err,
                        size_t errlen) {
  uint64_t m[6], qk = upow(pp.q, pp.k);
  lmul(m, H1, 2, BLS_R, 4);
  if (ldiv(m, 6, qk) != 0) {
    snprintf(err, errlen, "G1: %llu^%u does not divide h1 r", (unsigned long long)pp.q, pp.k);
    return -1;
  }
  for (int tries = 0; tries < 64; tries++) {
    g1_affine_t r;
    g1_random_curve(&r, rnd, st);
    g1_jac_from_affine(t, &r);
    g1_jac_mul_limbs(t, t, m, 6);
    if (g1_jac_is_inf(t)) continue;
    g1_jac_t c;
    g1_jac_mul_limbs(&c, t, &qk, 1);
    if (!g1_jac_is_inf(&c)) {
      snprintf(err, errlen, "G1: [%llu^%u] T is not O", (unsigned long long)pp.q, pp.k);
      return -1;
    }
    return 0;
  }
  snprintf(err, errlen, "G1: no point with a %llu-component in 64 tries", (unsigned long long)pp.q);
  return -1;
}

static void g1_put(cof_g1_case *out, int *n, const g1_jac_t *j, bool in, const char *fmt,
                   unsigned long long a) {
  if (*n >= COF_MAX_CASES) return;
  g1_jac_to_affine(&out[*n].p, j);
  out[*n].in_subgroup = in;
  snprintf(out[*n].what, sizeof out[*n].what, fmt, a);
  (*n)++;
}

/* phi(T) - [mu] T: in the other eigenspace of phi on E[q] (phi^2 + phi + 1 = 0). */
static void g1_eigen(g1_jac_t *out, const g1_jac_t *t, uint64_t mu) {
  g1_affine_t a;
  fp_t beta;
  fp_from_canonical(&beta, BETA);
  g1_jac_to_affine(&a, t);
  fp_mul(&a.x, &a.x, &beta);
  g1_jac_t m;
  g1_jac_mul_limbs(&m, t, &mu, 1);
  g1_jac_neg(&m, &m);
  g1_jac_from_affine(out, &a);
  g1_jac_add(out, out, &m);
}

int cof_cases_g1(cof_g1_case *out, cof_rng_fn rnd, void *st, char *err, size_t errlen) {
  int n = 0;
  g1_jac_t p, t, s, all;
  g1_affine_t a;
  for (int i = 0; i < 3; i++) {
    g1_random_sub(&p, rnd, st);
    g1_put(out, &n, &p, true, "point of G1 #%llu", (unsigned long long)i);
  }
  g1_jac_set_inf(&p);
  g1_put(out, &n, &p, true, "infinity%.0llu", 0);
  for (int i = 0; i < 3; i++) {
    g1_random_curve(&a, rnd, st);
    g1_jac_from_affine(&t, &a);
    g1_put(out, &n, &t, false, "random curve point #%llu", (unsigned long long)i);
  }
  g1_jac_set_inf(&all);
  for (size_t k = 0; k < sizeof H1_PRIMES / sizeof H1_PRIMES[0]; k++) {
    prime_power pp = H1_PRIMES[k];
    for (int i = 0; i < 2; i++) {
      if (g1_component(&t, pp, rnd, st, err, errlen)) return -1;
      g1_put(out, &n, &t, false, "T of order dividing %llu^k", (unsigned long long)pp.q);
      g1_random_sub(&p, rnd, st);
      g1_jac_add(&s, &p, &t);
      g1_put(out, &n, &s, false, "P + T, T of order dividing %llu^k", (unsigned long long)pp.q);
      if (i == 0) g1_jac_add(&all, &all, &t);
    }
    /* q = 1 mod 3: phi has the eigenvalues mu1, mu2 (mu^2 + mu + 1 = 0 mod q) on E[q] */
    if (pp.q % 3 == 1) {
      uint64_t mu[2];
      int nm = 0;
      for (uint64_t x = 1; x < pp.q && nm < 2; x++)
        if ((x * x + x + 1) % pp.q == 0) mu[nm++] = x;
      for (int e = 0; e < 2; e++) {
        g1_jac_t v;
        int tries = 0;
        do {
          if (g1_component(&t, pp, rnd, st, err, errlen)) return -1;
          g1_eigen(&v, &t, mu[1 - e]);
        } while (g1_jac_is_inf(&v) && ++tries < 8);
        /* check: phi(v) = [mu_e] v or [mu_{1-e}] v (which one depends on beta) */
        g1_jac_t w, m0, m1;
        g1_affine_t va;
        fp_t beta;
        fp_from_canonical(&beta, BETA);
        g1_jac_to_affine(&va, &v);
        fp_mul(&va.x, &va.x, &beta);
        g1_jac_from_affine(&w, &va);
        g1_jac_mul_limbs(&m0, &v, &mu[0], 1);
        g1_jac_mul_limbs(&m1, &v, &mu[1], 1);
        if (g1_jac_is_inf(&v) || !(g1_jac_eq(&w, &m0) || g1_jac_eq(&w, &m1))) {
          snprintf(err, errlen, "G1: no eigenvector of phi on E[%llu]", (unsigned long long)pp.q);
          return -1;
        }
        g1_put(out, &n, &v, false, "eigenvector of phi on E[%llu]", (unsigned long long)pp.q);
        g1_random_sub(&p, rnd, st);
        g1_jac_add(&s, &p, &v);
        g1_put(out, &n, &s, false, "P + eigenvector of phi on E[%llu]", (unsigned long long)pp.q);
      }
    }
  }
  g1_put(out, &n, &all, false, "T with every component%.0llu", 0);
  g1_random_sub(&p, rnd, st);
  g1_jac_add(&s, &p, &all);
  g1_put(out, &n, &s, false, "P + T with every component%.0llu", 0);
  /* the cofactor part of a random point: [r] R has order dividing h1 */
  g1_random_curve(&a, rnd, st);
  g1_jac_from_affine(&t, &a);
  g1_jac_mul_limbs(&t, &t, BLS_R, 4);
  g1_put(out, &n, &t, false, "[r] R for a random curve point R%.0llu", 0);
  g1_jac_neg(&s, &p);
  g1_jac_add(&s, &s, &t);
  g1_put(out, &n, &s, false, "-P + [r] R%.0llu", 0);
  return n;
}

/* ---- G2 ---------------------------------------------------------------------------------- */

static void g2_random_curve(g2_affine_t *p, cof_rng_fn rnd, void *st) {
  fp2_t rhs, b, t;
  fp_from_u64(&b.c0, 4);
  fp_from_u64(&b.c1, 4);
  for (;;) {
    rand_fp(&p->x.c0, rnd, st);
    rand_fp(&p->x.c1, rnd, st);
    fp2_sqr(&t, &p->x);
    fp2_mul(&t, &t, &p->x);
    fp2_add(&rhs, &t, &b);
    if (fp2_sqrt(&p->y, &rhs)) break;
  }
  if (rnd(st) & 1) fp2_neg(&p->y, &p->y);
}

static void g2_random_sub(g2_jac_t *j, cof_rng_fn rnd, void *st) {
  g2_affine_t g;
  uint64_t k[4];
  for (int i = 0; i < 4; i++) k[i] = rnd(st);
  k[3] &= 0x3fffffffffffffffull;
  g2_generator(&g);
  g2_jac_from_affine(j, &g);
  g2_jac_mul_limbs(j, j, k, 4);
}

bool cof_g2_by_definition(const g2_affine_t *p) {
  if (g2_affine_is_inf(p)) return true;
  g2_jac_t j;
  g2_jac_from_affine(&j, p);
  g2_jac_mul_limbs(&j, &j, BLS_R, 4);
  return g2_jac_is_inf(&j);
}

/* T = [m] R != O with m = (h2 r) / q^k (or / Q2 when big), killed by q^k (Q2). */
static int g2_component(g2_jac_t *t, prime_power pp, bool big, cof_rng_fn rnd, void *st, char *err,
                        size_t errlen) {
  uint64_t m[12], kill[8];
  size_t mn, kn;
  if (big) { /* m = r * H2_SMALL, kill = Q2 = h2 / H2_SMALL */
    uint64_t c = H2_SMALL;
    lmul(m, BLS_R, 4, &c, 1);
    mn = 5;
    memcpy(kill, H2, sizeof kill);
    kn = 8;
    if (ldiv(kill, kn, H2_SMALL) != 0) {
      snprintf(err, errlen, "G2: the small primes do not divide h2");
      return -1;
    }
  } else {
    lmul(m, H2, 8, BLS_R, 4);
    mn = 12;
    kill[0] = upow(pp.q, pp.k);
    kn = 1;
    if (ldiv(m, mn, kill[0]) != 0) {
      snprintf(err, errlen, "G2: %llu^%u does not divide h2 r", (unsigned long long)pp.q, pp.k);
      return -1;
    }
  }
  for (int tries = 0; tries < 64; tries++) {
    g2_affine_t r;
    g2_random_curve(&r, rnd, st);
    g2_jac_from_affine(t, &r);
    g2_jac_mul_limbs(t, t, m, mn);
    if (g2_jac_is_inf(t)) continue;
    g2_jac_t c;
    g2_jac_mul_limbs(&c, t, kill, kn);
    if (!g2_jac_is_inf(&c)) {
      snprintf(err, errlen, "G2: the component of %s is not killed by it",
               big ? "the 448-bit prime" : "a small prime");
      return -1;
    }
    return 0;
  }
  snprintf(err, errlen, "G2: no point with that component in 64 tries");
  return -1;
}

static void g2_put(cof_g2_case *out, int *n, const g2_jac_t *j, bool in, const char *fmt,
                   unsigned long long a) {
  if (*n >= COF_MAX_CASES) return;
  g2_jac_to_affine(&out[*n].p, j);
  out[*n].in_subgroup = in;
  snprintf(out[*n].what, sizeof out[*n].what, fmt, a);
  (*n)++;
}

int cof_cases_g2(cof_g2_case *out, cof_rng_fn rnd, void *st, char *err, size_t errlen) {
  int n = 0;
  g2_jac_t p, t, s, all;
  g2_affine_t a;
  for (int i = 0; i < 3; i++) {
    g2_random_sub(&p, rnd, st);
    g2_put(out, &n, &p, true, "point of G2 #%llu", (unsigned long long)i);
  }
  g2_jac_set_inf(&p);
  g2_put(out, &n, &p, true, "infinity%.0llu", 0);
  for (int i = 0; i < 2; i++) {
    g2_random_curve(&a, rnd, st);
    g2_jac_from_affine(&t, &a);
    g2_put(out, &n, &t, false, "random twist point #%llu", (unsigned long long)i);
  }
  g2_jac_set_inf(&all);
  size_t np = sizeof H2_PRIMES / sizeof H2_PRIMES[0];
  for (size_t k = 0; k <= np; k++) {
    bool big = k == np;
    prime_power pp = big ? (prime_power){0, 1} : H2_PRIMES[k];
    for (int i = 0; i < 2; i++) {
      if (g2_component(&t, pp, big, rnd, st, err, errlen)) return -1;
      if (big)
        g2_put(out, &n, &t, false, "T of the 448-bit prime's order%.0llu", 0);
      else
        g2_put(out, &n, &t, false, "T of order dividing %llu^k", (unsigned long long)pp.q);
      g2_random_sub(&p, rnd, st);
      g2_jac_add(&s, &p, &t);
      if (big)
        g2_put(out, &n, &s, false, "P + T, T of the 448-bit prime's order%.0llu", 0);
      else
        g2_put(out, &n, &s, false, "P + T, T of order dividing %llu^k", (unsigned long long)pp.q);
      if (i == 0) g2_jac_add(&all, &all, &t);
    }
  }
  g2_put(out, &n, &all, false, "T with every component%.0llu", 0);
  g2_random_sub(&p, rnd, st);
  g2_jac_add(&s, &p, &all);
  g2_put(out, &n, &s, false, "P + T with every component%.0llu", 0);
  g2_random_curve(&a, rnd, st);
  g2_jac_from_affine(&t, &a);
  g2_jac_mul_limbs(&t, &t, BLS_R, 4);
  g2_put(out, &n, &t, false, "[r] R for a random twist point R%.0llu", 0);
  return n;
}
