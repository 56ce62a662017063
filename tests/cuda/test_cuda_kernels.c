/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_cuda_kernels.c -- the GPU kernels against the CPU library (the reference):
 * Fp/Fr/Fp2 arithmetic, G1/G2 XYZZ additions, NTTs of every kind, the H pipeline,
 * Pippenger MSM for G1 and G2 and batch addition, with random inputs (seed printed,
 * fresh each run unless SP_TEST_SEED is set) and the edge cases (0, 1, r-1, repeated
 * scalars and points, infinity, P + P, P - P).
 *
 * A plain program rather than a Check suite: it runs on the GPU machine, which has no
 * libcheck. Exit 77 (automake SKIP) when no GPU is visible; the probe is the first
 * CUDA call. `--full` runs the large sizes of issue 5 (NTT to 2^22, MSM to 2^20);
 * the default stays small so `make check` on a GPU host is quick.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/sp_gpu.h"
#include "ntt/ntt.h"
#include "msm/msm.h"
#include "prep/prep.h"
#include "gpu/gpu_kit.h"
#include "gpu_check.h"

static uint64_t rng_state;
static unsigned cpu_threads = 8;

static uint64_t rnd64(void) {
  /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

static void rand_fr(fr_t *r) {
  uint8_t b[64];
  for (int i = 0; i < 64; i += 8) {
    uint64_t v = rnd64();
    memcpy(b + i, &v, 8);
  }
  fr_from_bytes_wide(r, b);
}

static void rand_scalar(scalar_t *s) {
  fr_t f;
  rand_fr(&f);
  fr_to_scalar(s, &f);
}

static void rand_fp(fp_t *r) {
  uint64_t c[6];
  do {
    for (int i = 0; i < 6; i++) c[i] = rnd64();
    c[5] &= 0x1fffffffffffffffull;
  } while (!fp_from_canonical(r, c));
}

static void scalar_from_u64(scalar_t *s, uint64_t v) {
  memset(s, 0, sizeof *s);
  s->l[0] = v;
}

static void scalar_r_minus(scalar_t *s, uint64_t k) {
  /* r - k for small k */
  for (int i = 0; i < 4; i++) s->l[i] = BLS_R[i];
  s->l[0] -= k; /* BLS_R[0] = 0xffffffff00000001 >= k for k < 2^32 */
}

/* ---- fields ---------------------------------------------------------------------- */

static void test_fields(sp_gpu *g, size_t n) {
  char err[256];
  fp_t *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *o = calloc(4 * n, sizeof *o);
  fr_t *ra = calloc(n, sizeof *ra), *rb = calloc(n, sizeof *rb), *ro = calloc(4 * n, sizeof *ro);
  for (size_t i = 0; i < n; i++) {
    rand_fp(&a[i]);
    rand_fp(&b[i]);
    rand_fr(&ra[i]);
    rand_fr(&rb[i]);
  }
  /* edges: 0, 1, p-1 (= -1), equal operands */
  fp_t fone, fzero, fm1;
  fp_from_u64(&fone, 1);
  fp_from_u64(&fzero, 0);
  fp_neg(&fm1, &fone);
  a[0] = fzero;
  b[0] = fzero;
  a[1] = fone;
  b[1] = fm1;
  a[2] = fm1;
  b[2] = fm1;
  a[3] = b[3];
  /* raw limb patterns (any value below p is an element): p - 1, p - 2, every limb
   * all ones (reduced), only the top bit of each 32-bit half, 2^380 (the squaring's
   * carry chains are new code) */
  for (int k = 4; k < 9; k++) memset(&a[k], 0, sizeof a[k]);
  memcpy(&a[4], BLS_P, sizeof a[4]);
  a[4].l[0] -= 1;
  memcpy(&a[5], BLS_P, sizeof a[5]);
  a[5].l[0] -= 2;
  for (int l = 0; l < 6; l++) a[6].l[l] = ~0ull;
  a[6].l[5] = BLS_P[5] - 1;
  for (int l = 0; l < 6; l++) a[7].l[l] = 0x8000000080000000ull;
  a[7].l[5] = 0x0800000080000000ull;
  a[8].l[5] = 1ull << 60;
  fr_t rone, rm1;
  fr_from_u64(&rone, 1);
  fr_neg(&rm1, &rone);
  fr_from_u64(&ra[0], 0);
  fr_from_u64(&rb[0], 0);
  ra[1] = rone;
  rb[1] = rm1;
  ra[2] = rm1;
  rb[2] = rm1;
  ra[3] = rb[3];

  int st = sp_gpu_field_ops(g, true, a, b, o, n, err, sizeof err);
  CHECK(st == SEALPROV_OK, "fp ops: %s", err);
  size_t bad = 0;
  for (size_t i = 0; st == SEALPROV_OK && i < n; i++) {
    fp_t e[4];
    fp_add(&e[0], &a[i], &b[i]);
    fp_sub(&e[1], &a[i], &b[i]);
    fp_mul(&e[2], &a[i], &b[i]);
    fp_sqr(&e[3], &a[i]);
    for (int k = 0; k < 4; k++)
      if (memcmp(&e[k], &o[4 * i + k], sizeof(fp_t))) {
        if (bad < 5) printf("  fp op %d differs at %zu\n", k, i);
        bad++;
      }
  }
  CHECK(bad == 0, "Fp add/sub/mul/sqr: %zu of %zu differ from the CPU", bad, 4 * n);

  st = sp_gpu_field_ops(g, false, ra, rb, ro, n, err, sizeof err);
  CHECK(st == SEALPROV_OK, "fr ops: %s", err);
  bad = 0;
  for (size_t i = 0; st == SEALPROV_OK && i < n; i++) {
    fr_t e[4];
    fr_add(&e[0], &ra[i], &rb[i]);
    fr_sub(&e[1], &ra[i], &rb[i]);
    fr_mul(&e[2], &ra[i], &rb[i]);
    fr_sqr(&e[3], &ra[i]);
    for (int k = 0; k < 4; k++)
      if (memcmp(&e[k], &ro[4 * i + k], sizeof(fr_t))) {
        if (bad < 5) printf("  fr op %d differs at %zu\n", k, i);
        bad++;
      }
  }
  CHECK(bad == 0, "Fr add/sub/mul/sqr: %zu of %zu differ from the CPU", bad, 4 * n);
  printf("fields: %zu random Fp and Fr operand pairs (+ edges) checked\n", n);
  free(a);
  free(b);
  free(o);
  free(ra);
  free(rb);
  free(ro);
}

/* Fp2: add, sub, mul, sqr and a*b - c*d against the CPU, the products in both forms.
 * The lazy ones reduce twice for three or six wide products, with signed
 * intermediates (cuda/ff/ff.cuh), so the operands include every mix of the values that push those
 * intermediates to their bounds: 0, 1, p - 1, p - 2, the top of Fp, and the four
 * extreme products a = b = (p - 1, 0) and c = d = (0, p - 1) (t0 - t1 at +-(p-1)^2),
 * (p - 1, p - 1) squared (s - t0 - t1 near -p^2). */
static void test_fp2(sp_gpu *g, size_t n) {
  char err[256];
  fp2_t *in[4], *o = calloc(7 * n, sizeof *o);
  for (int k = 0; k < 4; k++) in[k] = calloc(n, sizeof(fp2_t));
  fp_t edge[6];
  fp_from_u64(&edge[0], 0);
  fp_from_u64(&edge[1], 1);
  fp_neg(&edge[2], &edge[1]);              /* p - 1 */
  fp_sub(&edge[3], &edge[2], &edge[1]);    /* p - 2 */
  memcpy(&edge[4], BLS_P, sizeof edge[4]); /* raw p - 1: the largest word a product sees */
  edge[4].l[0] -= 1;
  for (int l = 0; l < 6; l++) edge[5].l[l] = ~0ull; /* all ones below p's top limb */
  edge[5].l[5] = BLS_P[5] - 1;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 4; k++) {
      fp_t *c[2] = {&in[k][i].c0, &in[k][i].c1};
      for (int h = 0; h < 2; h++) {
        if (i < n / 2 && (rnd64() & 1))
          *c[h] = edge[rnd64() % 6];
        else
          rand_fp(c[h]);
      }
    }
  /* the extremes, explicitly (edge[4]: the largest raw word, which the products see) */
  for (int k = 0; k < 4 && n >= 4; k++) {
    in[k][0].c0 = edge[4];
    in[k][0].c1 = edge[0];
    in[k][1].c0 = edge[0];
    in[k][1].c1 = edge[4];
    in[k][2].c0 = in[k][2].c1 = edge[4];
    in[k][3].c0 = in[k][3].c1 = edge[0];
  }
  in[2][0] = in[3][0] = in[0][1]; /* a b - c d = ((p-1)^2 + (p-1)^2, 0) before reduction */
  in[2][1] = in[3][1] = in[0][0]; /* and (-(p-1)^2 - (p-1)^2, 0) */
  in[2][2] = in[3][2] = in[0][0]; /* s - t0 - t1 near -p^2 for a = b = (p-1, p-1) */

  int st = sp_gpu_fp2_ops(g, in[0], in[1], in[2], in[3], o, n, err, sizeof err);
  CHECK(st == SEALPROV_OK, "fp2 ops: %s", err);
  size_t bad = 0;
  for (size_t i = 0; st == SEALPROV_OK && i < n; i++) {
    fp2_t e[7], t;
    fp2_add(&e[0], &in[0][i], &in[1][i]);
    fp2_sub(&e[1], &in[0][i], &in[1][i]);
    fp2_mul(&e[2], &in[0][i], &in[1][i]);
    fp2_sqr(&e[3], &in[0][i]);
    fp2_mul(&t, &in[2][i], &in[3][i]);
    fp2_sub(&e[4], &e[2], &t);
    e[5] = e[2];
    e[6] = e[4];
    for (int k = 0; k < 7; k++)
      if (memcmp(&e[k], &o[7 * i + k], sizeof(fp2_t))) {
        if (bad < 5) printf("  fp2 op %d differs at %zu\n", k, i);
        bad++;
      }
  }
  CHECK(bad == 0, "Fp2 add/sub/mul/sqr/mul_sub_mul (and lazy): %zu of %zu differ from the CPU", bad,
        7 * n);
  printf("fp2: %zu operand sets (half of them mixing edge values) checked\n", n);
  for (int k = 0; k < 4; k++) free(in[k]);
  free(o);
}

/* ---- memory pool ------------------------------------------------------------------ */

/* The pool keeps what is freed (cuda/util/gpu.cu): an allocation that its cache cannot
 * serve and the driver cannot map next to that cache must still succeed. On the H200
 * (driver 580) cudaMallocAsync itself released the cache for it; sp_gpu_alloc's trim
 * and retry is the fallback where it does not, so the test takes either and says
 * which. Runs first, on a context that holds nothing yet. */
static void test_pool(sp_gpu *g) {
  char err[256];
  uint64_t free0 = 0, total = 0, free1 = 0, free2 = 0;
  CHECK(sp_gpu_mem_info(g, &free0, &total) == SEALPROV_OK, "pool: memory info");
  const size_t gib = (size_t)1 << 30;
  /* 55 % then 60 % of what is free: the second fits only once the first is unmapped */
  size_t a_bytes = (size_t)(free0 / 100 * 55) & ~(gib - 1);
  size_t b_bytes = (size_t)(free0 / 100 * 60) & ~(gib - 1);
  if (a_bytes < gib || b_bytes <= a_bytes) {
    printf("pool: %llu bytes free, too little to test the trim\n", (unsigned long long)free0);
    return;
  }
  void *a = NULL, *b = NULL;
  unsigned retries0 = sp_gpu_alloc_retries(g);
  int st = sp_gpu_alloc(g, &a, a_bytes, err, sizeof err);
  CHECK(st == SEALPROV_OK, "pool: allocating %zu bytes: %s", a_bytes, err);
  if (st) return;
  CHECK(sp_gpu_zero(g, a, a_bytes, err, sizeof err) == SEALPROV_OK, "pool: zero: %s", err);
  sp_gpu_free(g, a, a_bytes);
  CHECK(sp_gpu_sync(g, err, sizeof err) == SEALPROV_OK, "pool: sync: %s", err);
  CHECK(sp_gpu_mem_info(g, &free1, &total) == SEALPROV_OK, "pool: memory info");
  /* documented behaviour: the freed memory stays mapped in the pool's cache */
  CHECK(free1 + a_bytes / 2 < free0, "pool: %zu bytes freed but not kept (free %llu -> %llu)",
        a_bytes, (unsigned long long)free0, (unsigned long long)free1);
  st = sp_gpu_alloc(g, &b, b_bytes, err, sizeof err);
  if (st == SEALPROV_ERR_DEVICE_MEMORY) {
    /* Another process on this GPU (a peer engine, a parallel `make check`) may have taken
     * memory since free0 was read: with the cache handed back, is there still room? */
    uint64_t now = 0;
    sp_gpu_trim(g);
    if (sp_gpu_mem_info(g, &now, &total) == SEALPROV_OK && now < b_bytes) {
      printf("pool: skipped: %llu bytes free now, %llu at the start (the GPU is shared)\n",
             (unsigned long long)now, (unsigned long long)free0);
      return;
    }
  }
  CHECK(st == SEALPROV_OK, "pool: allocating %zu bytes next to a %zu-byte cache: %s", b_bytes,
        a_bytes, err);
  unsigned trims = sp_gpu_alloc_retries(g) - retries0;
  if (st == SEALPROV_OK) {
    CHECK(trims <= 1, "pool: the %zu-byte allocation took %u trims", b_bytes, trims);
    CHECK(sp_gpu_zero(g, b, b_bytes, err, sizeof err) == SEALPROV_OK, "pool: zero: %s", err);
    sp_gpu_free(g, b, b_bytes);
  }
  sp_gpu_trim(g);
  CHECK(sp_gpu_mem_info(g, &free2, &total) == SEALPROV_OK, "pool: memory info");
  /* the pool's own figure: the device's free memory also moves with other processes */
  uint64_t kept = sp_gpu_pool_reserved(g);
  CHECK(kept < gib,
        "pool: after the trim the pool still holds %llu bytes (device free %llu, %llu "
        "before the test)",
        (unsigned long long)kept, (unsigned long long)free2, (unsigned long long)free0);
  CHECK(sp_gpu_memory_in_use(g) == 0, "pool: %llu bytes still counted in use",
        (unsigned long long)sp_gpu_memory_in_use(g));
  printf(
      "pool: %zu then %zu of %llu free bytes: the second allocation succeeded next to the "
      "cache (%s)\n",
      a_bytes, b_bytes, (unsigned long long)free0,
      trims ? "after sp_gpu_alloc's trim" : "the driver released the cache itself");
}

/* ---- curves ---------------------------------------------------------------------- */

static void rand_g1(g1_affine_t *p) {
  g1_affine_t gen;
  g1_jac_t j;
  scalar_t k;
  g1_generator(&gen);
  g1_jac_from_affine(&j, &gen);
  rand_scalar(&k);
  g1_jac_mul(&j, &j, &k);
  g1_jac_to_affine(p, &j);
}

static void rand_g2(g2_affine_t *p) {
  g2_affine_t gen;
  g2_jac_t j;
  scalar_t k;
  g2_generator(&gen);
  g2_jac_from_affine(&j, &gen);
  rand_scalar(&k);
  g2_jac_mul(&j, &j, &k);
  g2_jac_to_affine(p, &j);
}

static void test_curves(sp_gpu *g, size_t n) {
  char err[256];
  g1_affine_t *p = calloc(n, sizeof *p), *q = calloc(n, sizeof *q);
  g1_xyzz_t *o = calloc(3 * n, sizeof *o);
  g2_affine_t *p2 = calloc(n, sizeof *p2), *q2 = calloc(n, sizeof *q2);
  g2_xyzz_t *o2 = calloc(3 * n, sizeof *o2);
  for (size_t i = 0; i < n; i++) {
    rand_g1(&p[i]);
    rand_g1(&q[i]);
    rand_g2(&p2[i]);
    rand_g2(&q2[i]);
  }
  /* edges: P + P, P + (-P), inf + Q, P + inf, inf + inf */
  q[0] = p[0];
  q2[0] = p2[0];
  g1_affine_neg(&q[1], &p[1]);
  g2_affine_neg(&q2[1], &p2[1]);
  g1_affine_set_inf(&p[2]);
  g2_affine_set_inf(&p2[2]);
  g1_affine_set_inf(&q[3]);
  g2_affine_set_inf(&q2[3]);
  g1_affine_set_inf(&p[4]);
  g1_affine_set_inf(&q[4]);
  g2_affine_set_inf(&p2[4]);
  g2_affine_set_inf(&q2[4]);

  int st = sp_gpu_curve_ops(g, false, p, q, o, n, err, sizeof err);
  CHECK(st == SEALPROV_OK, "g1 ops: %s", err);
  size_t bad = 0;
  for (size_t i = 0; st == SEALPROV_OK && i < n; i++) {
    g1_jac_t jp, jq, e[3], got;
    g1_jac_from_affine(&jp, &p[i]);
    g1_jac_from_affine(&jq, &q[i]);
    g1_jac_add(&e[0], &jp, &jq);
    g1_jac_dbl(&e[1], &jp);
    e[2] = e[0];
    for (int k = 0; k < 3; k++) {
      g1_xyzz_to_jac(&got, &o[(size_t)k * n + i]);
      if (!g1_jac_eq(&got, &e[k])) {
        if (bad < 5) printf("  g1 op %d differs at %zu\n", k, i);
        bad++;
      }
    }
  }
  CHECK(bad == 0, "G1 XYZZ add/dbl/madd: %zu differ from the CPU", bad);

  st = sp_gpu_curve_ops(g, true, p2, q2, o2, n, err, sizeof err);
  CHECK(st == SEALPROV_OK, "g2 ops: %s", err);
  bad = 0;
  for (size_t i = 0; st == SEALPROV_OK && i < n; i++) {
    g2_jac_t jp, jq, e[3], got;
    g2_jac_from_affine(&jp, &p2[i]);
    g2_jac_from_affine(&jq, &q2[i]);
    g2_jac_add(&e[0], &jp, &jq);
    g2_jac_dbl(&e[1], &jp);
    e[2] = e[0];
    for (int k = 0; k < 3; k++) {
      g2_xyzz_to_jac(&got, &o2[(size_t)k * n + i]);
      if (!g2_jac_eq(&got, &e[k])) {
        if (bad < 5) printf("  g2 op %d differs at %zu\n", k, i);
        bad++;
      }
    }
  }
  CHECK(bad == 0, "G2 XYZZ add/dbl/madd: %zu differ from the CPU", bad);
  printf("curves: %zu random G1 and G2 pairs (+ edges) checked\n", n);
  free(p);
  free(q);
  free(o);
  free(p2);
  free(q2);
  free(o2);
}

/* ---- NTT ------------------------------------------------------------------------- */

static const char *ntt_name[4] = {"forward", "inverse", "coset_forward", "coset_inverse"};

static void test_ntt(sp_gpu *g, unsigned min_log, unsigned max_log) {
  char err[256];
  size_t nmax = (size_t)1 << max_log;
  fr_t *a = malloc(nmax * sizeof *a), *ref = malloc(nmax * sizeof *ref);
  CHECK(a && ref, "NTT 2^%u: out of host memory", max_log);
  unsigned tested = 0;
  for (unsigned lg = min_log; a && ref && lg <= max_log; lg++) {
    size_t n = (size_t)1 << lg;
    for (int kind = 0; kind < 4; kind++) {
      for (size_t i = 0; i < n; i++) rand_fr(&a[i]);
      memcpy(ref, a, n * sizeof *a);
      bool ok = kind == 0   ? ntt_forward(ref, lg, cpu_threads)
                : kind == 1 ? ntt_inverse(ref, lg, cpu_threads)
                : kind == 2 ? ntt_coset_forward(ref, lg, cpu_threads)
                            : ntt_coset_inverse(ref, lg, cpu_threads);
      CHECK(ok, "CPU NTT failed");
      int st = sp_gpu_ntt(g, a, lg, (sp_ntt_kind)kind, err, sizeof err);
      CHECK(st == SEALPROV_OK, "GPU NTT 2^%u %s: %s", lg, ntt_name[kind], err);
      size_t bad = 0;
      for (size_t i = 0; i < n; i++) bad += memcmp(&a[i], &ref[i], sizeof(fr_t)) != 0;
      CHECK(bad == 0, "NTT 2^%u %s: %zu of %zu elements differ", lg, ntt_name[kind], bad, n);
      tested++;
    }
  }
  printf("ntt: 4 kinds x 2^%u..2^%u checked (%u transforms)\n", min_log, max_log, tested);
  free(a);
  free(ref);
}

static size_t bitrev_idx(size_t i, unsigned lg) {
  size_t r = 0;
  for (unsigned k = 0; k < lg; k++) r |= ((i >> k) & 1) << (lg - 1 - k);
  return r;
}

/* The H pipeline against the CPU steps that groth16.h spells out. */
static void test_h_poly(sp_gpu *g, unsigned lg) {
  char err[256];
  size_t n = (size_t)1 << lg, bytes = n * sizeof(fr_t);
  fr_t *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *h = malloc(bytes);
  CHECK(a && b && c && h, "H 2^%u: out of host memory", lg);
  if (!a || !b || !c || !h) {
    free(a);
    free(b);
    free(c);
    free(h);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    rand_fr(&a[i]);
    rand_fr(&b[i]);
    rand_fr(&c[i]);
  }
  void *da = NULL, *db = NULL, *dc = NULL;
  int st = sp_gpu_alloc(g, &da, bytes, err, sizeof err);
  if (!st) st = sp_gpu_alloc(g, &db, bytes, err, sizeof err);
  if (!st) st = sp_gpu_alloc(g, &dc, bytes, err, sizeof err);
  if (!st) st = sp_gpu_upload(g, da, a, bytes, err, sizeof err);
  if (!st) st = sp_gpu_upload(g, db, b, bytes, err, sizeof err);
  if (!st) st = sp_gpu_upload(g, dc, c, bytes, err, sizeof err);
  if (!st) st = sp_gpu_h_poly(g, da, db, dc, lg, err, sizeof err);
  if (!st) st = sp_gpu_download(g, h, da, bytes, err, sizeof err);
  CHECK(st == SEALPROV_OK, "GPU H 2^%u: %s", lg, err);
  /* the engine's two-vector form (cuda/backend/pipeline.c, part_h2): a*b formed first,
   * c then in b's buffer, the products passed to sp_gpu_h_finish with no b */
  fr_t *h2 = malloc(bytes);
  if (!st && h2) st = sp_gpu_upload(g, da, a, bytes, err, sizeof err);
  if (!st && h2) st = sp_gpu_upload(g, db, b, bytes, err, sizeof err);
  if (!st && h2) st = sp_gpu_h_coset(g, da, lg, err, sizeof err);
  if (!st && h2) st = sp_gpu_h_coset(g, db, lg, err, sizeof err);
  if (!st && h2) st = sp_gpu_fr_mul_vec(g, da, da, db, n, err, sizeof err);
  if (!st && h2) st = sp_gpu_upload(g, db, c, bytes, err, sizeof err);
  if (!st && h2) st = sp_gpu_h_coeffs(g, db, lg, err, sizeof err);
  if (!st && h2) st = sp_gpu_h_finish(g, da, NULL, db, lg, err, sizeof err);
  if (!st && h2) st = sp_gpu_download(g, h2, da, bytes, err, sizeof err);
  CHECK(h2 && st == SEALPROV_OK && memcmp(h, h2, bytes) == 0,
        "H 2^%u with two vectors at a time: %s", lg, st ? err : "differs from three");
  free(h2);
  sp_gpu_free(g, da, bytes);
  sp_gpu_free(g, db, bytes);
  sp_gpu_free(g, dc, bytes);
  ntt_inverse(a, lg, cpu_threads);
  ntt_inverse(b, lg, cpu_threads);
  ntt_inverse(c, lg, cpu_threads);
  ntt_coset_forward(a, lg, cpu_threads);
  ntt_coset_forward(b, lg, cpu_threads);
  ntt_coset_forward(c, lg, cpu_threads);
  fr_t gen, z, zinv;
  fr_coset_generator(&gen);
  fr_pow_u64(&z, &gen, n);
  fr_sub(&z, &z, &FR_ONE);
  fr_inv(&zinv, &z);
  for (size_t i = 0; i < n; i++) {
    fr_mul(&a[i], &a[i], &b[i]);
    fr_sub(&a[i], &a[i], &c[i]);
    fr_mul(&a[i], &a[i], &zinv);
  }
  ntt_coset_inverse(a, lg, cpu_threads);
  size_t bad = 0;
  for (size_t i = 0; st == SEALPROV_OK && i < n; i++)
    bad += memcmp(&h[bitrev_idx(i, lg)], &a[i], sizeof(fr_t)) != 0;
  CHECK(bad == 0, "H polynomial 2^%u: %zu of %zu coefficients differ", lg, bad, n);
  printf("h_poly: 2^%u checked\n", lg);
  free(a);
  free(b);
  free(c);
  free(h);
}

/* ---- MSM ------------------------------------------------------------------------- */

enum { SC_RANDOM, SC_SMALL, SC_ZERO_ONE, SC_REPEATED, SC_NEAR_R, SC_MIXED, SC_TOP };
static const char *sc_name[] = {"random", "small", "zero/one", "repeated",
                                "r-k",    "mixed", "top-heavy"};

static void fill_scalars(scalar_t *s, size_t n, int kind) {
  scalar_t rep[3];
  for (int k = 0; k < 3; k++) rand_scalar(&rep[k]);
  for (size_t i = 0; i < n; i++) {
    switch (kind) {
      case SC_RANDOM: rand_scalar(&s[i]); break;
      case SC_SMALL: scalar_from_u64(&s[i], rnd64() % 1000); break;
      case SC_ZERO_ONE: scalar_from_u64(&s[i], rnd64() & 1); break;
      case SC_REPEATED: s[i] = rep[rnd64() % 3]; break;
      case SC_NEAR_R: scalar_r_minus(&s[i], 1 + rnd64() % 4); break;
      case SC_TOP: { /* the top windows full: r - 1 - (a random value below 2^192) */
        uint64_t x[4] = {rnd64(), rnd64(), rnd64(), 0}, borrow = 1; /* the 1 of r - 1 */
        for (int l = 0; l < 4; l++) {
          unsigned __int128 d = (unsigned __int128)BLS_R[l] - x[l] - borrow;
          s[i].l[l] = (uint64_t)d;
          borrow = (uint64_t)(d >> 64) & 1;
        }
        break;
      }
      default: {
        uint64_t t = rnd64() % 6;
        if (t == 0)
          scalar_from_u64(&s[i], 0);
        else if (t == 1)
          scalar_from_u64(&s[i], 1);
        else if (t == 2)
          s[i] = rep[0];
        else if (t == 3)
          scalar_r_minus(&s[i], 1);
        else
          rand_scalar(&s[i]);
      }
    }
  }
}

/* Points made on the GPU ((seed + i) G), checked on the curve here, plus repeats and
 * infinities planted by the caller. */
static int make_points_g1(sp_gpu *g, g1_affine_t *p, size_t n, uint64_t seed) {
  char err[256];
  void *d = NULL;
  int st = sp_gpu_alloc(g, &d, n * sizeof *p, err, sizeof err);
  if (!st) st = sp_gpu_gen_points_g1(g, d, n, seed, err, sizeof err);
  if (!st) st = sp_gpu_download(g, p, d, n * sizeof *p, err, sizeof err);
  sp_gpu_free(g, d, n * sizeof *p);
  CHECK(st == SEALPROV_OK, "gen points g1: %s", err);
  size_t bad = 0;
  for (size_t i = 0; i < n; i += 1 + n / 64) bad += !g1_affine_on_curve(&p[i]);
  CHECK(bad == 0, "generated G1 points not on the curve: %zu", bad);
  if (n > 0) {
    g1_jac_t j;
    g1_affine_t gen, e;
    g1_generator(&gen);
    g1_jac_from_affine(&j, &gen);
    scalar_t k;
    scalar_from_u64(&k, seed + n - 1);
    g1_jac_mul(&j, &j, &k);
    g1_jac_to_affine(&e, &j);
    CHECK(g1_affine_eq(&e, &p[n - 1]), "generated G1 point %zu is not (seed + i) G", n - 1);
  }
  return st;
}

static int make_points_g2(sp_gpu *g, g2_affine_t *p, size_t n, uint64_t seed) {
  char err[256];
  void *d = NULL;
  int st = sp_gpu_alloc(g, &d, n * sizeof *p, err, sizeof err);
  if (!st) st = sp_gpu_gen_points_g2(g, d, n, seed, err, sizeof err);
  if (!st) st = sp_gpu_download(g, p, d, n * sizeof *p, err, sizeof err);
  sp_gpu_free(g, d, n * sizeof *p);
  CHECK(st == SEALPROV_OK, "gen points g2: %s", err);
  size_t bad = 0;
  for (size_t i = 0; i < n; i += 1 + n / 64) bad += !g2_affine_on_curve(&p[i]);
  CHECK(bad == 0, "generated G2 points not on the curve: %zu", bad);
  if (n > 0) {
    g2_jac_t j;
    g2_affine_t gen, e;
    g2_generator(&gen);
    g2_jac_from_affine(&j, &gen);
    scalar_t k;
    scalar_from_u64(&k, seed + n - 1);
    g2_jac_mul(&j, &j, &k);
    g2_jac_to_affine(&e, &j);
    CHECK(g2_affine_eq(&e, &p[n - 1]), "generated G2 point %zu is not (seed + i) G", n - 1);
  }
  return st;
}

static void plant_points_g1(g1_affine_t *p, size_t n) {
  if (n >= 4) {
    g1_affine_set_inf(&p[n / 2]);
    p[1] = p[0]; /* a repeated point */
    p[n - 1] = p[0];
  }
}
static void plant_points_g2(g2_affine_t *p, size_t n) {
  if (n >= 4) {
    g2_affine_set_inf(&p[n / 2]);
    p[1] = p[0];
    p[n - 1] = p[0];
  }
}

static void test_msm_g1(sp_gpu *g, const size_t *sizes, size_t nsizes) {
  char err[256];
  size_t nmax = 0;
  for (size_t i = 0; i < nsizes; i++) nmax = sizes[i] > nmax ? sizes[i] : nmax;
  g1_affine_t *pts = malloc(nmax * sizeof *pts);
  scalar_t *sc = malloc(nmax * sizeof *sc);
  make_points_g1(g, pts, nmax, 1 + (rnd64() & 0xffffff));
  plant_points_g1(pts, nmax);
  for (size_t si = 0; si < nsizes; si++) {
    size_t n = sizes[si];
    for (int kind = SC_RANDOM; kind <= SC_MIXED; kind++) {
      if (n > 65536 && kind != SC_RANDOM && kind != SC_MIXED) continue;
      fill_scalars(sc, n, kind);
      g1_jac_t got, ref;
      int st = sp_gpu_msm_g1(g, &got, pts, sc, n, err, sizeof err);
      CHECK(st == SEALPROV_OK, "GPU msm_g1 n=%zu: %s", n, err);
      CHECK(msm_g1(&ref, pts, sc, n, cpu_threads), "CPU msm_g1 failed");
      CHECK(g1_jac_eq(&got, &ref), "msm_g1 n=%zu scalars=%s differs from the CPU", n,
            sc_name[kind]);
    }
    /* a forced small and a forced large window exercise other digit paths */
    if (n > 1 && n <= 4096) {
      fill_scalars(sc, n, SC_MIXED);
      void *dp = NULL, *ds = NULL;
      int st = sp_gpu_alloc(g, &dp, n * sizeof *pts, err, sizeof err);
      if (!st) st = sp_gpu_alloc(g, &ds, n * sizeof *sc, err, sizeof err);
      if (!st) st = sp_gpu_upload(g, dp, pts, n * sizeof *pts, err, sizeof err);
      if (!st) st = sp_gpu_upload(g, ds, sc, n * sizeof *sc, err, sizeof err);
      g1_jac_t ref;
      msm_g1(&ref, pts, sc, n, cpu_threads);
      unsigned wins[3] = {2, 13, 17};
      for (int k = 0; k < 3 && !st; k++) {
        sp_msm_args a;
        memset(&a, 0, sizeof a);
        a.d_points = dp;
        a.d_scalars = ds;
        a.n = n;
        a.window_bits = wins[k];
        g1_jac_t got;
        st = sp_gpu_msm_g1_dev(g, &got, &a, err, sizeof err);
        CHECK(st == SEALPROV_OK && g1_jac_eq(&got, &ref), "msm_g1 n=%zu window %u differs (%s)", n,
              wins[k], st ? err : "wrong point");
      }
      /* under a scratch cap (the engine's memory plan): one window a sort batch, the
       * same sum, and no more device memory than the plan's estimate of it; without a
       * cap, within its estimate too */
      for (int capped = 1; capped >= 0 && !st; capped--) {
        sp_msm_args a;
        memset(&a, 0, sizeof a);
        a.d_points = dp;
        a.d_scalars = ds;
        a.n = n;
        a.scratch_cap = capped ? 1 : 0;
        int sms = 0;
        uint64_t mem = 0;
        char name[64];
        sp_gpu_describe(g, name, sizeof name, &sms, &mem);
        uint64_t before = sp_gpu_memory_in_use(g);
        sp_gpu_reset_peak(g);
        g1_jac_t got;
        st = sp_gpu_msm_g1_dev(g, &got, &a, err, sizeof err);
        uint64_t used = sp_gpu_memory_peak(g) - before;
        uint64_t est = sp_gpu_msm_scratch_bytes(false, n, capped ? 1 : 0, sms, 0);
        CHECK(st == SEALPROV_OK && g1_jac_eq(&got, &ref), "msm_g1 n=%zu scratch cap %d (%s)", n,
              capped, st ? err : "wrong point");
        CHECK(used <= est, "msm_g1 n=%zu (cap %d): allocated %llu bytes, the estimate %llu", n,
              capped, (unsigned long long)used, (unsigned long long)est);
      }
      sp_gpu_free(g, dp, n * sizeof *pts);
      sp_gpu_free(g, ds, n * sizeof *sc);
    }
    printf("msm_g1: n=%zu checked\n", n);
  }
  free(pts);
  free(sc);
}

static void test_msm_g2(sp_gpu *g, const size_t *sizes, size_t nsizes) {
  char err[256];
  size_t nmax = 0;
  for (size_t i = 0; i < nsizes; i++) nmax = sizes[i] > nmax ? sizes[i] : nmax;
  g2_affine_t *pts = malloc(nmax * sizeof *pts);
  scalar_t *sc = malloc(nmax * sizeof *sc);
  make_points_g2(g, pts, nmax, 1 + (rnd64() & 0xffffff));
  plant_points_g2(pts, nmax);
  for (size_t si = 0; si < nsizes; si++) {
    size_t n = sizes[si];
    for (int kind = SC_RANDOM; kind <= SC_MIXED; kind++) {
      if (n > 4096 && kind != SC_RANDOM && kind != SC_MIXED) continue;
      fill_scalars(sc, n, kind);
      g2_jac_t got, ref;
      int st = sp_gpu_msm_g2(g, &got, pts, sc, n, err, sizeof err);
      CHECK(st == SEALPROV_OK, "GPU msm_g2 n=%zu: %s", n, err);
      CHECK(msm_g2(&ref, pts, sc, n, cpu_threads), "CPU msm_g2 failed");
      CHECK(g2_jac_eq(&got, &ref), "msm_g2 n=%zu scalars=%s differs from the CPU", n,
            sc_name[kind]);
    }
    printf("msm_g2: n=%zu checked\n", n);
  }
  free(pts);
  free(sc);
}

/* ---- fixed-base MSM (precomputed tables) ---------------------------------------------
 * Tables of several windows and copy counts (full: one bucket set; partial: several,
 * combined by Horner; copies that leave a short last group), against the CPU MSM on
 * every scalar kind including the top-window-heavy one, with the H MSM's bit-reversed
 * points and the tail MSMs' compacted indices, and the copies themselves against
 * 2^(c j) P on the CPU. tests/cuda/msm_table_model.py checks the same digit and copy
 * arithmetic exactly on the host. */
typedef struct tab_case {
  unsigned c, k;
} tab_case;

static bool g1_copy_ok(const g1_affine_t *p, const g1_affine_t *copy, unsigned shift) {
  g1_jac_t j;
  g1_affine_t e;
  g1_jac_from_affine(&j, p);
  for (unsigned d = 0; d < shift; d++) g1_jac_dbl(&j, &j);
  g1_jac_to_affine(&e, &j);
  return g1_affine_eq(&e, copy);
}

static void test_msm_table_g1(sp_gpu *g, const size_t *sizes, size_t nsizes, bool full) {
  char err[256];
  static const tab_case cases[] = {{3, 2},   {5, 52},  {8, 4},   {11, 24}, {13, 7},
                                   {16, 16}, {17, 15}, {20, 13}, {22, 6},  {24, 11}};
  const size_t ncases = sizeof cases / sizeof cases[0];
  size_t nmax = 0;
  for (size_t i = 0; i < nsizes; i++) nmax = sizes[i] > nmax ? sizes[i] : nmax;
  g1_affine_t *pts = malloc(nmax * sizeof *pts), *perm = malloc(nmax * sizeof *perm);
  scalar_t *sc = malloc(nmax * sizeof *sc);
  uint32_t *idx = malloc(nmax * sizeof *idx);
  make_points_g1(g, pts, nmax, 1 + (rnd64() & 0xffffff));
  plant_points_g1(pts, nmax);
  void *dp = NULL, *ds = NULL, *di = NULL;
  int st = sp_gpu_alloc(g, &dp, nmax * sizeof *pts, err, sizeof err);
  if (!st) st = sp_gpu_alloc(g, &ds, nmax * sizeof *sc, err, sizeof err);
  if (!st) st = sp_gpu_alloc(g, &di, nmax * sizeof *idx, err, sizeof err);
  if (!st) st = sp_gpu_upload(g, dp, pts, nmax * sizeof *pts, err, sizeof err);
  CHECK(st == SEALPROV_OK, "msm table: device buffers: %s", err);
  unsigned tested = 0;
  for (size_t si = 0; !st && si < nsizes; si++) {
    const size_t n = sizes[si];
    for (size_t ci = 0; ci < ncases; ci++) {
      const unsigned c = cases[ci].c, k = cases[ci].k;
      /* the large windows at the small sizes only (2^23 buckets each) unless --full */
      if (!full && c >= 20 && n > 1000) continue;
      sp_msm_table tab;
      st = sp_gpu_msm_table_make(g, false, dp, n, c, k, &tab, err, sizeof err);
      CHECK(st == SEALPROV_OK, "table G1 n=%zu window %u copies %u: %s", n, c, k, err);
      if (st) break;
      /* the copies: point 0, the last, and one between, against the CPU */
      size_t probe[3] = {0, n / 2, n - 1};
      for (unsigned j = 1; j < k; j += (k > 6 ? k / 3 : 1))
        for (int q = 0; q < 3; q++) {
          size_t i = probe[q] < n ? probe[q] : n - 1;
          g1_affine_t got;
          st = sp_gpu_download(g, &got,
                               (const uint8_t *)tab.d_ext + ((size_t)(j - 1) * n + i) * sizeof got,
                               sizeof got, err, sizeof err);
          CHECK(st == SEALPROV_OK && g1_copy_ok(&pts[i], &got, c * j),
                "table G1 n=%zu window %u: copy %u of point %zu is not 2^%u P", n, c, j, i, c * j);
        }
      for (int kind = SC_RANDOM; kind <= SC_TOP; kind++) {
        if (n > 65536 && kind != SC_RANDOM && kind != SC_TOP) continue;
        fill_scalars(sc, n, kind);
        if (kind == SC_MIXED && n >= 4) { /* the edges at fixed places too */
          scalar_from_u64(&sc[0], 0);
          scalar_from_u64(&sc[1], 1);
          scalar_r_minus(&sc[2], 1);
        }
        st = sp_gpu_upload(g, ds, sc, n * sizeof *sc, err, sizeof err);
        sp_msm_args a;
        memset(&a, 0, sizeof a);
        a.d_scalars = ds;
        a.n = n;
        a.table = &tab;
        /* a set over several sort batches (merged), as at 2^24 and up: one window a
         * batch for the small windows' cases, two for the rest, on half the kinds */
        a.table_batch = kind & 1 ? (c < 16 ? 1 : 2) : 0;
        g1_jac_t got, ref;
        if (!st) st = sp_gpu_msm_g1_dev(g, &got, &a, err, sizeof err);
        CHECK(st == SEALPROV_OK, "table G1 n=%zu window %u copies %u: %s", n, c, k, err);
        CHECK(msm_g1(&ref, pts, sc, n, cpu_threads), "CPU msm_g1 failed");
        CHECK(st == SEALPROV_OK && g1_jac_eq(&got, &ref),
              "table G1 n=%zu window %u copies %u scalars=%s differs from the CPU", n, c, k,
              sc_name[kind]);
        tested++;
      }
      /* H's form: scalar i weighs point bitrev(i) (n = 2^lg - 1 of 2^lg) */
      unsigned lg = 0;
      while (((size_t)2 << lg) <= n + 1) lg++;
      size_t nb = ((size_t)1 << lg) - 1;
      if (nb >= 1 && nb <= n && (ci % 3) == 0) {
        fill_scalars(sc, nb, SC_MIXED);
        for (size_t i = 0; i < nb; i++) perm[i] = pts[bitrev_idx(i, lg)];
        st = sp_gpu_upload(g, ds, sc, nb * sizeof *sc, err, sizeof err);
        sp_msm_args a;
        memset(&a, 0, sizeof a);
        a.d_scalars = ds;
        a.n = nb;
        a.flags = SP_MSM_BITREV_POINTS;
        a.log_bitrev = lg;
        a.table = &tab;
        g1_jac_t got, ref;
        if (!st) st = sp_gpu_msm_g1_dev(g, &got, &a, err, sizeof err);
        msm_g1(&ref, perm, sc, nb, cpu_threads);
        CHECK(st == SEALPROV_OK && g1_jac_eq(&got, &ref),
              "table G1 bit-reversed 2^%u - 1 window %u copies %u differs (%s)", lg, c, k,
              st ? err : "wrong point");
        tested++;
      }
      /* the tails' form: compacted scalars with their point indices (about half) */
      if ((ci % 3) == 1 && n >= 2) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
          if (rnd64() & 1) {
            idx[m] = (uint32_t)i;
            perm[m++] = pts[i];
          }
        fill_scalars(sc, m, SC_RANDOM);
        st = sp_gpu_upload(g, ds, sc, m * sizeof *sc, err, sizeof err);
        if (!st && m) st = sp_gpu_upload(g, di, idx, m * sizeof *idx, err, sizeof err);
        sp_msm_args a;
        memset(&a, 0, sizeof a);
        a.d_scalars = ds;
        a.d_index = di;
        a.n = m;
        a.table = &tab;
        g1_jac_t got, ref;
        if (!st) st = sp_gpu_msm_g1_dev(g, &got, &a, err, sizeof err);
        msm_g1(&ref, perm, sc, m, cpu_threads);
        CHECK(st == SEALPROV_OK && g1_jac_eq(&got, &ref),
              "table G1 indexed %zu of %zu window %u copies %u differs (%s)", m, n, c, k,
              st ? err : "wrong point");
        tested++;
      }
      /* another window than the table's is refused */
      sp_msm_args bad;
      memset(&bad, 0, sizeof bad);
      bad.d_scalars = ds;
      bad.n = n;
      bad.table = &tab;
      bad.window_bits = c == 8 ? 9 : 8;
      g1_jac_t junk;
      CHECK(sp_gpu_msm_g1_dev(g, &junk, &bad, err, sizeof err) == SEALPROV_ERR_INVALID_ARGUMENT,
            "table G1: a window other than the table's was not refused");
      sp_gpu_msm_table_free(0, &tab);
      st = SEALPROV_OK;
    }
    printf("msm_table_g1: n=%zu checked\n", n);
  }
  /* what the maker refuses: copies past ceil(256 / c), a window out of range */
  sp_msm_table t0;
  CHECK(sp_gpu_msm_table_make(g, false, dp, 16, 24, 12, &t0, err, sizeof err) ==
                SEALPROV_ERR_INVALID_ARGUMENT &&
            t0.copies == 0,
        "table: 12 copies of window 24 (11 windows) not refused");
  CHECK(sp_gpu_msm_table_make(g, false, dp, 16, 25, 2, &t0, err, sizeof err) ==
            SEALPROV_ERR_INVALID_ARGUMENT,
        "table: window 25 not refused");
  printf("msm_table_g1: %u MSMs over tables checked\n", tested);
  sp_gpu_free(g, dp, nmax * sizeof *pts);
  sp_gpu_free(g, ds, nmax * sizeof *sc);
  sp_gpu_free(g, di, nmax * sizeof *idx);
  free(pts);
  free(perm);
  free(sc);
  free(idx);
}

static void test_msm_table_g2(sp_gpu *g, const size_t *sizes, size_t nsizes) {
  char err[256];
  static const tab_case cases[] = {{8, 4}, {13, 20}, {17, 15}};
  size_t nmax = 0;
  for (size_t i = 0; i < nsizes; i++) nmax = sizes[i] > nmax ? sizes[i] : nmax;
  g2_affine_t *pts = malloc(nmax * sizeof *pts);
  scalar_t *sc = malloc(nmax * sizeof *sc);
  make_points_g2(g, pts, nmax, 1 + (rnd64() & 0xffffff));
  plant_points_g2(pts, nmax);
  void *dp = NULL, *ds = NULL;
  int st = sp_gpu_alloc(g, &dp, nmax * sizeof *pts, err, sizeof err);
  if (!st) st = sp_gpu_alloc(g, &ds, nmax * sizeof *sc, err, sizeof err);
  if (!st) st = sp_gpu_upload(g, dp, pts, nmax * sizeof *pts, err, sizeof err);
  CHECK(st == SEALPROV_OK, "msm table G2: device buffers: %s", err);
  for (size_t si = 0; !st && si < nsizes; si++) {
    const size_t n = sizes[si];
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
      sp_msm_table tab;
      st = sp_gpu_msm_table_make(g, true, dp, n, cases[ci].c, cases[ci].k, &tab, err, sizeof err);
      CHECK(st == SEALPROV_OK, "table G2 n=%zu window %u: %s", n, cases[ci].c, err);
      if (st) break;
      for (int kind = SC_RANDOM; kind <= SC_TOP; kind++) {
        if (kind != SC_RANDOM && kind != SC_MIXED && kind != SC_TOP) continue;
        fill_scalars(sc, n, kind);
        st = sp_gpu_upload(g, ds, sc, n * sizeof *sc, err, sizeof err);
        sp_msm_args a;
        memset(&a, 0, sizeof a);
        a.d_scalars = ds;
        a.n = n;
        a.table = &tab;
        a.table_batch = kind == SC_MIXED ? 1 : 0; /* merged batches too */
        g2_jac_t got, ref;
        if (!st) st = sp_gpu_msm_g2_dev(g, &got, &a, err, sizeof err);
        CHECK(msm_g2(&ref, pts, sc, n, cpu_threads), "CPU msm_g2 failed");
        CHECK(st == SEALPROV_OK && g2_jac_eq(&got, &ref),
              "table G2 n=%zu window %u copies %u scalars=%s differs from the CPU (%s)", n,
              cases[ci].c, cases[ci].k, sc_name[kind], st ? err : "wrong point");
      }
      sp_gpu_msm_table_free(0, &tab);
      st = SEALPROV_OK;
    }
    printf("msm_table_g2: n=%zu checked\n", n);
  }
  sp_gpu_free(g, dp, nmax * sizeof *pts);
  sp_gpu_free(g, ds, nmax * sizeof *sc);
  free(pts);
  free(sc);
}

static void test_batch_add(sp_gpu *g, size_t n) {
  char err[256];
  g1_affine_t *p1 = malloc(n * sizeof *p1);
  g2_affine_t *p2 = malloc(n * sizeof *p2);
  size_t words = (n + 63) / 64;
  uint64_t *bm = calloc(words, 8);
  make_points_g1(g, p1, n, 7 + (rnd64() & 0xffff));
  make_points_g2(g, p2, n, 7 + (rnd64() & 0xffff));
  plant_points_g1(p1, n);
  plant_points_g2(p2, n);
  for (int dens = 0; dens < 3; dens++) {
    for (size_t i = 0; i < words; i++) bm[i] = dens == 0 ? 0 : dens == 1 ? rnd64() : ~0ull;
    if (n % 64) bm[words - 1] &= (1ull << (n % 64)) - 1;
    g1_jac_t got1, ref1;
    g2_jac_t got2, ref2;
    int st = sp_gpu_batch_add_g1(g, &got1, p1, bm, n, err, sizeof err);
    CHECK(st == SEALPROV_OK, "GPU batch_add_g1: %s", err);
    batch_add_g1(&ref1, p1, bm, n, cpu_threads);
    CHECK(g1_jac_eq(&got1, &ref1), "batch_add_g1 n=%zu density %d differs", n, dens);
    st = sp_gpu_batch_add_g2(g, &got2, p2, bm, n, err, sizeof err);
    CHECK(st == SEALPROV_OK, "GPU batch_add_g2: %s", err);
    batch_add_g2(&ref2, p2, bm, n, cpu_threads);
    CHECK(g2_jac_eq(&got2, &ref2), "batch_add_g2 n=%zu density %d differs", n, dens);
  }
  printf("batch_add: n=%zu, densities 0 / random / full checked\n", n);
  free(p1);
  free(p2);
  free(bm);
}

int main(int argc, char **argv) {
  bool full = false;
  const char *only = NULL;
  unsigned bigsz[8], nbig = 0; /* --big=24,27: NTT kinds and H pipeline at these sizes */
  for (int i = 1; i < argc; i++) {
    bool ok = true;
    if (!strcmp(argv[i], "--full"))
      full = true;
    else if (!strncmp(argv[i], "--only=", 7))
      only = argv[i] + 7;
    else if (!strncmp(argv[i], "--big=", 6)) {
      for (char *q = argv[i] + 6; ok && *q;) {
        char *end;
        unsigned long v = strtoul(q, &end, 10);
        ok = end != q && v >= 1 && v <= 28 && nbig < 8 && (*end == ',' || *end == 0);
        if (ok) bigsz[nbig++] = (unsigned)v;
        q = *end ? end + 1 : end;
      }
    } else
      ok = false;
    if (!ok) {
      fprintf(stderr,
              "usage: %s [--full] [--only=pool|fields|curves|ntt|h|msm1|msm2|msmtab|batch] "
              "[--big=24,27]\n"
              "  --big: also the four NTT kinds and the H pipeline at these log sizes\n"
              "  (1..28) against the CPU (2^27: ~40 GB of host memory and more than three\n"
              "  minutes, most of it the CPU reference and the random inputs)\n",
              argv[0]);
      return 2;
    }
  }
  /* line-buffered: a run cut short by a time limit still leaves its log */
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* The probe comes before any other CUDA call. */
  if (sp_gpu_device_count() <= 0) {
    printf("SKIP: no CUDA device visible\n");
    return 77;
  }
  const char *seed_env = getenv("SP_TEST_SEED");
  uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : (uint64_t)time(NULL) ^ 0x5eedull;
  rng_state = seed ? seed : 1;
  printf("seed %llu (set SP_TEST_SEED to repeat)\n", (unsigned long long)seed);
  const char *thr = getenv("SP_TEST_CPU_THREADS");
  if (thr) cpu_threads = (unsigned)atoi(thr);

  char err[256];
  int confirmed = -1;
  if (sp_gpu_bind(0, &confirmed, err, sizeof err) != SEALPROV_OK) {
    printf("FAIL: bind device 0: %s\n", err);
    return 1;
  }
  sp_gpu *g = NULL;
  if (sp_gpu_create(0, 0, &g, err, sizeof err) != SEALPROV_OK) {
    printf("FAIL: context: %s\n", err);
    return 1;
  }
#define RUN(name) (!only || !strcmp(only, name))
  if (RUN("pool")) test_pool(g);
  if (RUN("fields")) test_fields(g, full ? 1 << 16 : 4096);
  if (RUN("fields")) test_fp2(g, full ? 1 << 16 : 4096);
  if (RUN("curves")) test_curves(g, full ? 512 : 64);
  if (RUN("ntt")) test_ntt(g, 1, full ? 22 : 14);
  for (unsigned i = 0; i < nbig; i++) {
    test_ntt(g, bigsz[i], bigsz[i]);
    test_h_poly(g, bigsz[i]);
  }
  if (RUN("h")) {
    test_h_poly(g, 4);
    test_h_poly(g, 11);
    test_h_poly(g, full ? 20 : 13);
  }
  if (RUN("msm1")) {
    static const size_t quick[] = {1, 2, 3, 7, 64, 1000, 4096};
    static const size_t big[] = {1, 2, 3, 7, 64, 1000, 4096, 65536, 1 << 18, 1 << 20};
    test_msm_g1(g, full ? big : quick, full ? 10 : 7);
  }
  if (RUN("msm2")) {
    static const size_t quick[] = {1, 2, 5, 100, 1024};
    static const size_t big[] = {1, 2, 5, 100, 1024, 16384, 1 << 16, 1 << 18, 1 << 20};
    test_msm_g2(g, full ? big : quick, full ? 9 : 5);
  }
  if (RUN("msmtab")) {
    static const size_t quick[] = {1, 2, 3, 7, 64, 1000, 4096};
    static const size_t big[] = {1, 2, 3, 7, 64, 1000, 4096, 65536, 1 << 18};
    test_msm_table_g1(g, full ? big : quick, full ? 9 : 7, full);
    static const size_t q2[] = {1, 5, 100, 1024};
    static const size_t b2[] = {1, 5, 100, 1024, 16384};
    test_msm_table_g2(g, full ? b2 : q2, full ? 5 : 4);
  }
  if (RUN("batch")) test_batch_add(g, full ? 100003 : 1000);
  int st = sp_gpu_sync(g, err, sizeof err);
  if (st != SEALPROV_OK) {
    printf("FAIL: device error at the end: %s\n", err);
    failures++;
  }
  sp_gpu_destroy(g);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
