/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_cuda_checks.c -- the GPU's checks and the GPU setup against the CPU:
 *   subgroup  sp_cuda_subgroup_check against g1/g2_affine_in_subgroup on points in the
 *             subgroup, points on the curve outside it (x mapped to the curve without
 *             clearing the cofactor), off-curve points and infinity; small arrays
 *             checked point by point, and arrays of several chunks with bad points
 *             planted at chunk edges; the points with every cofactor component of
 *             tests/bls12_381/cofactor.c, the GPU's verdict on each equal to the CPU's and to
 *             [r]P == O; --sg-bench: the checker's rate on 2^22 G1 and 2^20 G2 points
 *             (median of 3);
 *   rows      sp_gpu_check_rows against a CPU loop;
 *   setup     the GPU fixed-base setup writes the same .params and .vk bytes as the
 *             CPU setup for the same seed (2^10 and 2^12 by default; --setup-max=18
 *             goes up to 2^18).
 * Plain program (the GPU machine has no libcheck); exit 77 when no GPU is visible.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/sp_gpu.h"
#include "prep/prep.h"
#include "subgroup/subgroup.h"
#include "gpu/gpu_kit.h"
#include "gpu/sp_cuda_setup.h"
#include "circuit.h"
#include "base/util.h" /* sp_now_ms */
#include "gpu_check.h"
#include "../bls12_381/cofactor.h"

static uint64_t rng_state;

static uint64_t rnd64(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

static void rand_fp(fp_t *r) {
  uint64_t c[6];
  do {
    for (int i = 0; i < 6; i++) c[i] = rnd64();
    c[5] &= 0x1fffffffffffffffull;
  } while (!fp_from_canonical(r, c));
}

static void rand_fr(fr_t *r) {
  uint8_t b[64];
  for (int i = 0; i < 64; i += 8) {
    uint64_t v = rnd64();
    memcpy(b + i, &v, 8);
  }
  fr_from_bytes_wide(r, b);
}

/* A point of E(Fp) with a random x: on the curve, almost surely outside G1. */
static void off_subgroup_g1(g1_affine_t *p) {
  fp_t rhs, four, t;
  fp_from_u64(&four, 4);
  do {
    rand_fp(&p->x);
    fp_sqr(&t, &p->x);
    fp_mul(&t, &t, &p->x);
    fp_add(&rhs, &t, &four);
  } while (!fp_sqrt(&p->y, &rhs));
}

static void off_subgroup_g2(g2_affine_t *p) {
  fp2_t rhs, b, t;
  fp_from_u64(&b.c0, 4);
  fp_from_u64(&b.c1, 4);
  do {
    rand_fp(&p->x.c0);
    rand_fp(&p->x.c1);
    fp2_sqr(&t, &p->x);
    fp2_mul(&t, &t, &p->x);
    fp2_add(&rhs, &t, &b);
  } while (!fp2_sqrt(&p->y, &rhs));
}

static void in_subgroup_g1(g1_affine_t *p) {
  g1_affine_t gen;
  g1_jac_t j;
  fr_t k;
  scalar_t s;
  g1_generator(&gen);
  g1_jac_from_affine(&j, &gen);
  rand_fr(&k);
  fr_to_scalar(&s, &k);
  g1_jac_mul(&j, &j, &s);
  g1_jac_to_affine(p, &j);
}

static void in_subgroup_g2(g2_affine_t *p) {
  g2_affine_t gen;
  g2_jac_t j;
  fr_t k;
  scalar_t s;
  g2_generator(&gen);
  g2_jac_from_affine(&j, &gen);
  rand_fr(&k);
  fr_to_scalar(&s, &k);
  g2_jac_mul(&j, &j, &s);
  g2_jac_to_affine(p, &j);
}

/* Small arrays: every point's kind is random; the GPU's first failure must be the
 * CPU's. */
static void test_subgroup_small(bool g2, size_t n, int bad_permille) {
  char err[512] = "";
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  uint8_t *pts = calloc(n, psz);
  size_t want = n;
  for (size_t i = 0; i < n; i++) {
    int kind = (int)(rnd64() % 1000) < bad_permille ? 1 + (int)(rnd64() % 2) : 0;
    if (rnd64() % 50 == 0) kind = 3; /* infinity: passes */
    void *p = pts + i * psz;
    if (g2) {
      g2_affine_t *q = p;
      if (kind == 0)
        in_subgroup_g2(q);
      else if (kind == 3)
        g2_affine_set_inf(q);
      else {
        off_subgroup_g2(q);
        if (kind == 2) fp_add(&q->y.c0, &q->y.c0, &q->x.c0); /* off the curve */
      }
      if (want == n && !g2_affine_in_subgroup(q)) want = i;
    } else {
      g1_affine_t *q = p;
      if (kind == 0)
        in_subgroup_g1(q);
      else if (kind == 3)
        g1_affine_set_inf(q);
      else {
        off_subgroup_g1(q);
        if (kind == 2) fp_add(&q->y, &q->y, &q->x);
      }
      if (want == n && !g1_affine_in_subgroup(q)) want = i;
    }
  }
  size_t got = SIZE_MAX;
  int st = sp_cuda_subgroup_check(0, g2, pts, n, &got, err, sizeof err);
  CHECK(st == SEALPROV_OK && got == want,
        "%s subgroup, %zu points (%d permille bad): GPU %zu, CPU %zu (%s)", g2 ? "G2" : "G1", n,
        bad_permille, got, want, st ? err : "ok");
  free(pts);
}

/* Several chunks: multiples of the generator made on the GPU (in the subgroup), bad
 * points planted at the given indices (each confirmed bad by the CPU). */
static void test_subgroup_chunks(sp_gpu *g, bool g2, size_t n, const size_t *plant, int nplant) {
  char err[512] = "";
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  uint8_t *pts = malloc(n * psz);
  void *d = NULL;
  int st = sp_gpu_alloc(g, &d, n * psz, err, sizeof err);
  if (!st)
    st = g2 ? sp_gpu_gen_points_g2(g, d, n, rnd64() >> 8, err, sizeof err)
            : sp_gpu_gen_points_g1(g, d, n, rnd64() >> 8, err, sizeof err);
  if (!st) st = sp_gpu_download(g, pts, d, n * psz, err, sizeof err);
  sp_gpu_free(g, d, n * psz);
  CHECK(st == SEALPROV_OK && pts, "chunk test points: %s", err);
  if (st || !pts) {
    free(pts);
    return;
  }
  size_t want = n;
  double t0 = sp_now_ms();
  size_t got = SIZE_MAX;
  st = sp_cuda_subgroup_check(0, g2, pts, n, &got, err, sizeof err);
  double ms = sp_now_ms() - t0;
  CHECK(st == SEALPROV_OK && got == n, "%s %zu good points: first_bad %zu (%s)", g2 ? "G2" : "G1",
        n, got, st ? err : "ok");
  printf("subgroup %s: %zu points in %.1f ms (%.1f Mpoints/s, %.2f GB/s from pageable memory)\n",
         g2 ? "G2" : "G1", n, ms, n / ms / 1e3, (double)(n * psz) / ms / 1e6);
  for (int k = 0; k < nplant; k++) {
    size_t i = plant[k];
    if (g2) {
      off_subgroup_g2((g2_affine_t *)(pts + i * psz));
      CHECK(!g2_affine_in_subgroup((g2_affine_t *)(pts + i * psz)), "planted G2 point in G2");
    } else {
      off_subgroup_g1((g1_affine_t *)(pts + i * psz));
      CHECK(!g1_affine_in_subgroup((g1_affine_t *)(pts + i * psz)), "planted G1 point in G1");
    }
    if (i < want) want = i;
    st = sp_cuda_subgroup_check(0, g2, pts, n, &got, err, sizeof err);
    CHECK(st == SEALPROV_OK && got == want,
          "%s %zu points, bad planted at %zu: first_bad %zu, want %zu (%s)", g2 ? "G2" : "G1", n, i,
          got, want, st ? err : "ok");
  }
  free(pts);
}

/* The cofactor cases: every point's verdict from the GPU (first_bad from each index on)
 * against the CPU's check, [r]P == O and the construction. */
static uint64_t cof_rnd(void *st) {
  (void)st;
  return rnd64();
}

static void test_subgroup_cofactor(bool g2) {
  char err[512] = "";
  static cof_g1_case c1[COF_MAX_CASES];
  static cof_g2_case c2[COF_MAX_CASES];
  int n = g2 ? cof_cases_g2(c2, cof_rnd, NULL, err, sizeof err)
             : cof_cases_g1(c1, cof_rnd, NULL, err, sizeof err);
  CHECK(n > 0, "cofactor cases: %s", err);
  if (n <= 0) return;
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  uint8_t *pts = malloc((size_t)n * psz);
  bool gpu_ok[COF_MAX_CASES];
  for (int i = 0; i < n; i++)
    memcpy(pts + (size_t)i * psz, g2 ? (void *)&c2[i].p : (void *)&c1[i].p, psz);
  int calls = 0;
  sp_cuda_checker *chk = NULL;
  int st = sp_cuda_checker_create(0, &chk, err, sizeof err);
  for (size_t pos = 0; pos < (size_t)n && st == SEALPROV_OK;) {
    size_t fb = SIZE_MAX;
    st = sp_cuda_checker_run(chk, g2, pts + pos * psz, (size_t)n - pos, &fb, err, sizeof err);
    calls++;
    if (st || fb > (size_t)n - pos) break;
    for (size_t i = pos; i < pos + fb; i++) gpu_ok[i] = true;
    if (pos + fb < (size_t)n) gpu_ok[pos + fb] = false;
    pos += fb + 1;
  }
  sp_cuda_checker_destroy(chk);
  CHECK(st == SEALPROV_OK, "%s cofactor cases: %s", g2 ? "G2" : "G1", err);
  int agree = 0;
  for (int i = 0; st == SEALPROV_OK && i < n; i++) {
    bool cpu = g2 ? g2_affine_in_subgroup(&c2[i].p) : g1_affine_in_subgroup(&c1[i].p);
    bool def = g2 ? cof_g2_by_definition(&c2[i].p) : cof_g1_by_definition(&c1[i].p);
    bool want = g2 ? c2[i].in_subgroup : c1[i].in_subgroup;
    const char *what = g2 ? c2[i].what : c1[i].what;
    CHECK(gpu_ok[i] == cpu && cpu == def && def == want,
          "%s %s: GPU %d, CPU %d, [r]P == O %d, by construction %d", g2 ? "G2" : "G1", what,
          gpu_ok[i], cpu, def, want);
    agree += gpu_ok[i] == cpu && cpu == def && def == want;
  }
  printf("subgroup %s cofactor cases: %d of %d verdicts equal to the CPU's (%d calls)\n",
         g2 ? "G2" : "G1", agree, n, calls);
  free(pts);
}

/* --sg-bench: the checker's rate (host copies from pageable memory included; the kernel
 * bounds it), median of 3, on points made on the GPU. */
static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void bench_subgroup(sp_gpu *g, bool g2, size_t n) {
  char err[512] = "";
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  uint8_t *pts = malloc(n * psz);
  void *d = NULL;
  int st = pts ? sp_gpu_alloc(g, &d, n * psz, err, sizeof err) : SEALPROV_ERR_NO_MEMORY;
  if (!st)
    st = g2 ? sp_gpu_gen_points_g2(g, d, n, rnd64() >> 8, err, sizeof err)
            : sp_gpu_gen_points_g1(g, d, n, rnd64() >> 8, err, sizeof err);
  if (!st) st = sp_gpu_download(g, pts, d, n * psz, err, sizeof err);
  if (d) sp_gpu_free(g, d, n * psz);
  CHECK(st == SEALPROV_OK, "bench points: %s", err);
  if (!st) {
    double ms[3];
    sp_cuda_checker *chk = NULL; /* made once: its page-locked buffers are not timed */
    st = sp_cuda_checker_create(0, &chk, err, sizeof err);
    CHECK(st == SEALPROV_OK, "bench checker: %s", err);
    for (int r = 0; !st && r < 3; r++) {
      size_t got = SIZE_MAX;
      double t0 = sp_now_ms();
      st = sp_cuda_checker_run(chk, g2, pts, n, &got, err, sizeof err);
      ms[r] = sp_now_ms() - t0;
      CHECK(st == SEALPROV_OK && got == n, "bench %s: first_bad %zu (%s)", g2 ? "G2" : "G1", got,
            st ? err : "ok");
    }
    sp_cuda_checker_destroy(chk);
    if (!st) {
      qsort(ms, 3, sizeof ms[0], cmp_dbl);
      printf("sg-bench %s: %zu points, median %.1f ms (%.1f / %.1f / %.1f), %.2f Mpoints/s\n",
             g2 ? "G2" : "G1", n, ms[1], ms[0], ms[1], ms[2], (double)n / ms[1] / 1e3);
    }
  }
  free(pts);
}

static void test_rows(sp_gpu *g, size_t n) {
  char err[256] = "";
  fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  for (size_t i = 0; i < n; i++) {
    rand_fr(&a[i]);
    rand_fr(&b[i]);
    fr_mul(&c[i], &a[i], &b[i]);
  }
  void *da = NULL, *db = NULL, *dc = NULL;
  size_t bytes = n * sizeof(fr_t);
  int st = sp_gpu_alloc(g, &da, bytes, err, sizeof err);
  if (!st) st = sp_gpu_alloc(g, &db, bytes, err, sizeof err);
  if (!st) st = sp_gpu_alloc(g, &dc, bytes, err, sizeof err);
  size_t bads[3] = {n - 1, n / 2, 0};
  for (int round = 0; !st && round < 4; round++) {
    if (round > 0) {
      fr_t one;
      fr_from_u64(&one, 1);
      fr_add(&c[bads[round - 1]], &c[bads[round - 1]], &one);
    }
    size_t want = n;
    for (size_t i = 0; i < n && want == n; i++) {
      fr_t p;
      fr_mul(&p, &a[i], &b[i]);
      if (!fr_eq(&p, &c[i])) want = i;
    }
    st = sp_gpu_upload(g, da, a, bytes, err, sizeof err);
    if (!st) st = sp_gpu_upload(g, db, b, bytes, err, sizeof err);
    if (!st) st = sp_gpu_upload(g, dc, c, bytes, err, sizeof err);
    uint64_t got = 0, got2 = 0;
    if (!st) st = sp_gpu_check_rows(g, da, db, dc, n, &got, err, sizeof err);
    /* the product-buffer form: a*b first, then compared */
    if (!st) st = sp_gpu_fr_mul_vec(g, da, da, db, n, err, sizeof err);
    if (!st) st = sp_gpu_check_rows(g, da, NULL, dc, n, &got2, err, sizeof err);
    uint64_t w64 = want == n ? UINT64_MAX : want;
    CHECK(st == SEALPROV_OK && got == w64 && got2 == w64,
          "rows check, %zu rows, round %d: GPU %llu / %llu, CPU %llu (%s)", n, round,
          (unsigned long long)got, (unsigned long long)got2, (unsigned long long)w64,
          st ? err : "ok");
  }
  sp_gpu_free(g, da, bytes);
  sp_gpu_free(g, db, bytes);
  sp_gpu_free(g, dc, bytes);
  free(a);
  free(b);
  free(c);
}

static bool files_equal(const char *p1, const char *p2, long *where) {
  FILE *f1 = fopen(p1, "rb"), *f2 = fopen(p2, "rb");
  bool eq = f1 && f2;
  long pos = 0;
  while (eq) {
    int c1 = getc(f1), c2 = getc(f2);
    if (c1 != c2)
      eq = false;
    else if (c1 == EOF)
      break;
    else
      pos++;
  }
  if (f1) fclose(f1);
  if (f2) fclose(f2);
  *where = pos;
  return eq;
}

static void test_setup(unsigned log, const char *dir) {
  char err[512] = "", pc[600], vc[600], pg[600], vg[600];
  sp_circuit *c = NULL;
  uint64_t seed = rnd64();
  /* a domain of 2^log: the constraint count just above half of it */
  uint64_t cons = ((uint64_t)1 << (log - 1)) + 7 + (rnd64() % 64);
  int st = sp_circuit_generate(cons, 3, SP_SHAPE_SEALING, seed, &c, err, sizeof err);
  CHECK(st == SEALPROV_OK, "circuit 2^%u: %s", log, err);
  if (st) return;
  snprintf(pc, sizeof pc, "%s/cpu%u.params", dir, log);
  snprintf(vc, sizeof vc, "%s/cpu%u.vk", dir, log);
  snprintf(pg, sizeof pg, "%s/gpu%u.params", dir, log);
  snprintf(vg, sizeof vg, "%s/gpu%u.vk", dir, log);
  double t0 = sp_now_ms();
  st = sp_circuit_write_params(c, seed, 8, pc, vc, err, sizeof err);
  double t_cpu = sp_now_ms() - t0;
  CHECK(st == SEALPROV_OK, "CPU setup 2^%u: %s", log, err);
  sp_cuda_setup *gs = NULL;
  if (!st) st = sp_cuda_setup_create(0, &gs, err, sizeof err);
  CHECK(st == SEALPROV_OK, "GPU setup context: %s", err);
  double t_gpu = 0;
  if (!st) {
    sp_fixed_base fb = sp_cuda_setup_fixed_base(gs);
    t0 = sp_now_ms();
    st = sp_circuit_write_params_fb(c, seed, 8, &fb, pg, vg, err, sizeof err);
    t_gpu = sp_now_ms() - t0;
    CHECK(st == SEALPROV_OK, "GPU setup 2^%u: %s", log, err);
  }
  sp_cuda_setup_destroy(gs);
  if (!st) {
    long at = 0;
    bool pe = files_equal(pc, pg, &at);
    CHECK(pe, "2^%u: GPU .params differs from the CPU's at byte %ld", log, at);
    bool ve = files_equal(vc, vg, &at);
    CHECK(ve, "2^%u: GPU .vk differs from the CPU's at byte %ld", log, at);
    if (log <= 14) { /* one CPU thread: the same bytes (the Lagrange basis runs in ranges) */
      char p1[600];
      snprintf(p1, sizeof p1, "%s/cpu1_%u.params", dir, log);
      st = sp_circuit_write_params(c, seed, 1, p1, NULL, err, sizeof err);
      CHECK(st == SEALPROV_OK && files_equal(pc, p1, &at),
            "2^%u: one-thread CPU setup differs from the 8-thread one (%s, byte %ld)", log,
            st ? err : "files", at);
      unlink(p1);
    }
    printf("setup 2^%u (%llu constraints): CPU %.0f ms, GPU %.0f ms, files %s\n", log,
           (unsigned long long)cons, t_cpu, t_gpu, pe && ve ? "equal" : "DIFFER");
  }
  unlink(pc);
  unlink(vc);
  unlink(pg);
  unlink(vg);
  sp_circuit_free(c);
}

int main(int argc, char **argv) {
  const char *only = NULL;
  unsigned setup_max = 12;
  bool sg_bench = false;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "--only=", 7))
      only = argv[i] + 7;
    else if (!strcmp(argv[i], "--sg-bench"))
      sg_bench = true;
    else if (!strncmp(argv[i], "--setup-max=", 12)) {
      setup_max = (unsigned)atoi(argv[i] + 12);
      if (setup_max < 10 || setup_max > 24) setup_max = 12;
    } else {
      fprintf(stderr, "usage: %s [--only=subgroup|rows|setup] [--setup-max=10..24] [--sg-bench]\n",
              argv[0]);
      return 2;
    }
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (sp_gpu_device_count() <= 0) {
    printf("SKIP: no CUDA device visible\n");
    return 77;
  }
  const char *seed_env = getenv("SP_TEST_SEED");
  uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : (uint64_t)time(NULL) ^ 0xc0ffeeull;
  rng_state = seed ? seed : 1;
  printf("seed %llu (set SP_TEST_SEED to repeat)\n", (unsigned long long)seed);
  char err[256];
  int confirmed = -1;
  sp_gpu *g = NULL;
  if (sp_gpu_bind(0, &confirmed, err, sizeof err) != SEALPROV_OK ||
      sp_gpu_create(0, 0, &g, err, sizeof err) != SEALPROV_OK) {
    printf("FAIL: device 0: %s\n", err);
    return 1;
  }
#define RUN(name) (!only || !strcmp(only, name))
  if (RUN("subgroup")) {
    test_subgroup_cofactor(false);
    test_subgroup_cofactor(true);
    test_subgroup_small(false, 1, 0);
    test_subgroup_small(false, 700, 0);
    test_subgroup_small(false, 700, 5);
    test_subgroup_small(false, 300, 300);
    test_subgroup_small(true, 300, 0);
    test_subgroup_small(true, 300, 10);
    test_subgroup_small(true, 200, 300);
    size_t c1 = (size_t)1 << 20, c2 = (size_t)1 << 19; /* points per chunk */
    size_t p1[] = {3 * c1 + 4, 2 * c1, 2 * c1 - 1, c1 + 17};
    test_subgroup_chunks(g, false, 3 * c1 + 5, p1, 4);
    size_t p2[] = {2 * c2 + 2, c2, c2 - 1};
    test_subgroup_chunks(g, true, 2 * c2 + 3, p2, 3);
    if (sg_bench) {
      bench_subgroup(g, false, (size_t)1 << 22);
      bench_subgroup(g, true, (size_t)1 << 20);
    }
  }
  if (RUN("rows")) {
    test_rows(g, 1);
    test_rows(g, 1000);
    test_rows(g, 100003);
  }
  if (RUN("setup")) {
    char dir[] = "/tmp/sp-gpu-setup-XXXXXX";
    if (!mkdtemp(dir)) {
      printf("FAIL: mkdtemp\n");
      failures++;
    } else {
      for (unsigned lg = 10; lg <= setup_max; lg += 2) test_setup(lg, dir);
      rmdir(dir);
    }
  }
  sp_gpu_destroy(g);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
