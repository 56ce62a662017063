/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_cuda_spmv.c -- the GPU sparse products of witness-only proving (cuda/spmv/spmv.cu)
 * against the CPU reference sp_cs_evaluate (plugin/groth16/cs_eval.c) and against the full
 * assignment the circuit generator made:
 *   - sealing-shaped and random-shaped systems of 2^10..2^16 rows (default; --max=K up
 *     to 2^K), written as .r1cs by sp_circuit_write_r1cs and loaded by sp_cs_load;
 *     witnesses in both encodings (canonical, Montgomery): a, b, c byte-equal to the
 *     CPU's, and (canonical) to the generator's a, b, c;
 *   - a witness value that is not below r: the lowest bad index is reported.
 * --bench=24,26: sealing-shaped systems of those sizes (a number above 28: that many rows,
 * so 180000000 makes a system of ~707 M nonzeros) with a random witness (below r,
 * not satisfying: speed only), the GPU products timed (median of 5, after a warm-up),
 * nonzeros and device bytes printed, and the result compared with the CPU's (--cpu-max=K,
 * default 24: the CPU reference above 2^K is skipped; its time is printed too).
 * Timings are printed, never asserted. Plain program (the GPU machine has no
 * libcheck); exits 77 when no GPU is visible.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sp_gpu.h"
#include "spmv/spmv.h"
#include "circuit.h"
#include "formats/cs.h"
#include "formats/iden3.h"
#include "groth16/cs_eval.h"
#include "base/util.h" /* sp_now_ms */
#include "gpu_check.h"

static char tmp_root[256];
static unsigned nthreads = 4;

static sp_gpu_cs_desc desc_of(const sp_cs *cs) {
  sp_gpu_cs_desc d = {.path = cs->path,
                      .n_rows = cs->n_rows,
                      .abc_size = cs->abc_size,
                      .inp_size = cs->inp_size,
                      .aux_size = cs->aux_size,
                      .off = cs->off,
                      .var = cs->var,
                      .cix = cs->cix,
                      .coeffs = cs->coeffs,
                      .ncoeffs = cs->ncoeffs};
  return d;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd64(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dull;
}

/* Loads the sealing- or random-shaped system of `rows` constraints (abc_size). */
static sp_cs *make_cs(sp_circuit **circ, uint64_t rows, uint32_t inputs, sp_shape shape,
                      uint64_t seed) {
  char err[768] = "", path[400];
  if (sp_circuit_generate(rows, inputs, shape, seed, circ, err, sizeof err) != SEALPROV_OK) {
    printf("FAIL generate %llu rows: %s\n", (unsigned long long)rows, err);
    return NULL;
  }
  snprintf(path, sizeof path, "%s/c%llu-%d.r1cs", tmp_root, (unsigned long long)rows, (int)shape);
  if (sp_circuit_write_r1cs(*circ, path, err, sizeof err) != SEALPROV_OK) {
    printf("FAIL write %s: %s\n", path, err);
    return NULL;
  }
  sp_cs *cs = NULL;
  int st = sp_cs_load(path, &cs, err, sizeof err);
  unlink(path);
  if (st != SEALPROV_OK) {
    printf("FAIL load %s: %s\n", path, err);
    return NULL;
  }
  return cs;
}

/* GPU a, b, c of witness (inp, aux) into host buffers abc (3 x abc_size x 32). Returns the
 * status; *bad gets check_witness's result; *ms the median of `reps` timed products. */
static int gpu_eval(sp_gpu *g, sp_gpu_cs *dc, const sp_cs *cs, const uint8_t *inp,
                    const uint8_t *aux, uint8_t *abc, uint64_t *bad, int reps, double *ms) {
  char err[768] = "";
  uint64_t nv = cs->inp_size + cs->aux_size, n = cs->abc_size;
  void *dz = NULL, *dabc = NULL; /* inputs, then aux, in one buffer */
  int st = sp_gpu_alloc(g, &dz, nv * 32, err, sizeof err);
  void *daux = (uint8_t *)dz + cs->inp_size * 32;
  if (!st) st = sp_gpu_alloc(g, &dabc, 3 * n * 32, err, sizeof err);
  if (!st) st = sp_gpu_upload(g, dz, inp, cs->inp_size * 32, err, sizeof err);
  if (!st && cs->aux_size)
    st = sp_gpu_upload(g, (uint8_t *)dz + cs->inp_size * 32, aux, cs->aux_size * 32, err,
                       sizeof err);
  if (!st) st = sp_gpu_cs_check_witness(g, dc, dz, daux, bad, err, sizeof err);
  if (!st && *bad == UINT64_MAX) {
    double t[16];
    int k = reps < 1 ? 1 : reps > 15 ? 15 : reps;
    for (int r = 0; r <= k && !st; r++) { /* r == 0: warm-up */
      double t0 = sp_now_ms();
      st = sp_gpu_cs_eval(g, dc, dz, daux, dabc, (uint8_t *)dabc + n * 32,
                          (uint8_t *)dabc + 2 * n * 32, err, sizeof err);
      if (!st) st = sp_gpu_sync(g, err, sizeof err);
      if (r) t[r - 1] = sp_now_ms() - t0;
    }
    for (int i = 0; i < k; i++) /* median */
      for (int j = i + 1; j < k; j++)
        if (t[j] < t[i]) {
          double x = t[i];
          t[i] = t[j];
          t[j] = x;
        }
    if (ms) *ms = t[k / 2];
    if (!st) st = sp_gpu_download(g, abc, dabc, 3 * n * 32, err, sizeof err);
  }
  if (st) printf("FAIL gpu eval: %s\n", err);
  sp_gpu_free(g, dabc, 3 * n * 32);
  sp_gpu_free(g, dz, nv * 32);
  return st;
}

static void to_mont_vec(uint8_t *dst, const uint8_t *src, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) {
    uint64_t l[4];
    memcpy(l, src + 32 * i, 32);
    fr_t f;
    if (!fr_from_canonical(&f, l)) memset(&f, 0, sizeof f);
    memcpy(dst + 32 * i, f.l, 32);
  }
}

static void check_system(sp_gpu *g, uint64_t rows, uint32_t inputs, sp_shape shape, uint64_t seed) {
  char err[768] = "";
  sp_circuit *circ = NULL;
  sp_cs *cs = make_cs(&circ, rows, inputs, shape, seed);
  CHECK(cs != NULL, "system of %llu rows", (unsigned long long)rows);
  if (!cs) {
    sp_circuit_free(circ);
    return;
  }
  sp_witness *w = NULL;
  CHECK(sp_circuit_witness(circ, seed + 1, &w, err, sizeof err) == SEALPROV_OK, "witness: %s", err);
  sp_gpu_cs_desc d = desc_of(cs);
  sp_gpu_cs *dc = NULL;
  uint64_t dbytes = 0;
  int st = sp_gpu_cs_upload(g, &d, &dc, &dbytes, err, sizeof err);
  CHECK(st == SEALPROV_OK, "upload: %s", err);
  uint64_t n = cs->abc_size;
  uint8_t *abc = malloc(3 * n * 32);
  uint8_t *inp_m = malloc(cs->inp_size * 32),
          *aux_m = malloc((cs->aux_size ? cs->aux_size : 1) * 32);
  if (w && dc && abc && inp_m && aux_m) {
    for (int enc = 0; enc < 2; enc++) {
      const uint8_t *inp = w->asg.inp_assignment, *aux = w->asg.aux_assignment;
      if (enc == SEALPROV_SCALAR_MONTGOMERY) {
        to_mont_vec(inp_m, inp, cs->inp_size);
        to_mont_vec(aux_m, aux, cs->aux_size);
        inp = inp_m;
        aux = aux_m;
      }
      sealprov_assignment wa = {.inp_assignment = inp,
                                .inp_size = cs->inp_size,
                                .aux_assignment = aux,
                                .aux_size = cs->aux_size};
      sp_cs_eval *ce = NULL;
      CHECK(sp_cs_evaluate(cs, &wa, (uint32_t)enc, nthreads, &ce, err, sizeof err) == SEALPROV_OK,
            "cpu evaluate: %s", err);
      uint64_t bad = 0;
      memset(abc, 0xa5, 3 * n * 32);
      if (gpu_eval(g, dc, cs, inp, aux, abc, &bad, 1, NULL) == SEALPROV_OK) {
        CHECK(bad == UINT64_MAX, "witness reported bad at %llu", (unsigned long long)bad);
        CHECK(ce && memcmp(abc, ce->abc, 3 * n * 32) == 0,
              "%llu rows, shape %d, encoding %d: GPU a, b, c differ from the CPU's",
              (unsigned long long)rows, (int)shape, enc);
        if (enc == SEALPROV_SCALAR_CANONICAL_LE)
          CHECK(memcmp(abc, w->asg.a, n * 32) == 0 && memcmp(abc + n * 32, w->asg.b, n * 32) == 0 &&
                    memcmp(abc + 2 * n * 32, w->asg.c, n * 32) == 0,
                "%llu rows, shape %d: GPU a, b, c differ from the generator's full assignment",
                (unsigned long long)rows, (int)shape);
      }
      sp_cs_eval_free(ce);
    }
    /* a value not below r, in aux (and one in the inputs): the lowest index is named */
    uint64_t pos = cs->aux_size > 3 ? cs->aux_size / 2 : 0;
    if (cs->aux_size) {
      memcpy(aux_m, w->asg.aux_assignment, cs->aux_size * 32);
      memcpy(aux_m + pos * 32, sp_cs_bls12_381_r_le, 32); /* r itself */
      uint64_t bad = 0;
      (void)gpu_eval(g, dc, cs, w->asg.inp_assignment, aux_m, abc, &bad, 1, NULL);
      CHECK(bad == cs->inp_size + pos, "bad aux value at %llu reported at %llu",
            (unsigned long long)(cs->inp_size + pos), (unsigned long long)bad);
      memcpy(inp_m, w->asg.inp_assignment, cs->inp_size * 32);
      memset(inp_m + 32 * (cs->inp_size - 1), 0xff, 32);
      (void)gpu_eval(g, dc, cs, inp_m, aux_m, abc, &bad, 1, NULL);
      CHECK(bad == cs->inp_size - 1, "bad input value at %llu reported at %llu",
            (unsigned long long)(cs->inp_size - 1), (unsigned long long)bad);
    }
    printf("ok   %llu rows (shape %d): %llu nonzeros, %.1f MB on the device, both encodings\n",
           (unsigned long long)rows, (int)shape,
           (unsigned long long)(cs->nnz[0] + cs->nnz[1] + cs->nnz[2]), (double)dbytes / 1e6);
  }
  free(abc);
  free(inp_m);
  free(aux_m);
  sp_gpu_cs_free(dc);
  sp_witness_free(w);
  sp_cs_release(cs);
  sp_circuit_free(circ);
}

/* rows: the system's constraints; k: the smallest power of two >= rows (its domain, its
 * label when rows is one) */
static void bench_system(sp_gpu *g, uint64_t rows, unsigned cpu_max) {
  char err[768] = "";
  sp_circuit *circ = NULL;
  unsigned k = 0;
  while (((uint64_t)1 << k) < rows) k++;
  double t0 = sp_now_ms();
  sp_cs *cs = make_cs(&circ, rows, 16, SP_SHAPE_SEALING, 1000 + k);
  sp_circuit_free(circ); /* the generator's memory goes before the big buffers */
  CHECK(cs != NULL, "bench system 2^%u", k);
  if (!cs) return;
  double t_make = sp_now_ms() - t0;
  uint64_t n = cs->abc_size, nnz = cs->nnz[0] + cs->nnz[1] + cs->nnz[2];
  uint8_t *inp = malloc(cs->inp_size * 32), *aux = malloc(cs->aux_size * 32),
          *abc = malloc(3 * n * 32);
  if (!inp || !aux || !abc) {
    CHECK(0, "out of host memory for 2^%u", k);
    goto out;
  }
  for (uint64_t i = 0; i < cs->inp_size + cs->aux_size; i++) {
    uint8_t *p = i < cs->inp_size ? inp + 32 * i : aux + 32 * (i - cs->inp_size);
    for (int j = 0; j < 4; j++) {
      uint64_t v = rnd64();
      if (j == 3) v &= 0x0fffffffffffffffull; /* below r */
      memcpy(p + 8 * j, &v, 8);
    }
  }
  memcpy(inp, (uint64_t[4]){1, 0, 0, 0}, 32); /* ONE, canonical */
  sp_gpu_cs_desc d = desc_of(cs);
  sp_gpu_cs *dc = NULL;
  uint64_t dbytes = 0;
  double t1 = sp_now_ms();
  int st = sp_gpu_cs_upload(g, &d, &dc, &dbytes, err, sizeof err);
  double t_up = sp_now_ms() - t1;
  CHECK(st == SEALPROV_OK, "upload 2^%u: %s", k, err);
  if (st) goto out;
  double ms = 0;
  uint64_t bad = 0;
  st = gpu_eval(g, dc, cs, inp, aux, abc, &bad, 5, &ms);
  CHECK(st == SEALPROV_OK && bad == UINT64_MAX, "bench eval 2^%u", k);
  double cpu_ms = -1;
  if (!st && k <= cpu_max) {
    sealprov_assignment wa = {.inp_assignment = inp,
                              .inp_size = cs->inp_size,
                              .aux_assignment = aux,
                              .aux_size = cs->aux_size};
    sp_cs_eval *ce = NULL;
    double t2 = sp_now_ms();
    int cst = sp_cs_evaluate(cs, &wa, SEALPROV_SCALAR_CANONICAL_LE, nthreads, &ce, err, sizeof err);
    cpu_ms = sp_now_ms() - t2;
    CHECK(cst == SEALPROV_OK, "cpu evaluate 2^%u: %s", k, err);
    if (cst == SEALPROV_OK)
      CHECK(memcmp(abc, ce->abc, 3 * n * 32) == 0, "2^%u: GPU a, b, c differ from the CPU's", k);
    sp_cs_eval_free(ce);
  }
  printf(
      "bench 2^%u%s: rows %llu, nonzeros %llu (A %llu, B %llu, C %llu), device copy %.2f GB "
      "(upload "
      "%.0f ms), GPU products median of 5: %.2f ms (%.2f G nonzeros/s); CPU reference (%u "
      "threads): "
      "%s%.0f ms; system made and loaded in %.1f s\n",
      k, rows == ((uint64_t)1 << k) ? "" : " (domain)", (unsigned long long)n,
      (unsigned long long)nnz, (unsigned long long)cs->nnz[0], (unsigned long long)cs->nnz[1],
      (unsigned long long)cs->nnz[2], (double)dbytes / 1e9, t_up, ms,
      ms > 0 ? (double)nnz / ms / 1e6 : 0.0, nthreads, cpu_ms < 0 ? "not run " : "",
      cpu_ms < 0 ? 0 : cpu_ms, t_make / 1e3);
  sp_gpu_cs_free(dc);
out:
  free(inp);
  free(aux);
  free(abc);
  sp_cs_release(cs);
}

int main(int argc, char **argv) {
  unsigned max = 16, cpu_max = 24;
  const char *bench = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "--max=", 6))
      max = (unsigned)atoi(argv[i] + 6);
    else if (!strncmp(argv[i], "--bench=", 8))
      bench = argv[i] + 8;
    else if (!strncmp(argv[i], "--cpu-max=", 10))
      cpu_max = (unsigned)atoi(argv[i] + 10);
    else if (!strncmp(argv[i], "--threads=", 10))
      nthreads = (unsigned)atoi(argv[i] + 10);
    else {
      fprintf(stderr,
              "usage: test_cuda_spmv [--max=K] [--bench=K|ROWS,...] [--cpu-max=K] [--threads=N]\n");
      return 2;
    }
  }
  if (sp_gpu_device_count() == 0) {
    printf("SKIP: no CUDA device visible\n");
    return 77;
  }
  char err[768] = "";
  int confirmed = -1;
  sp_gpu *g = NULL;
  if (sp_gpu_bind(0, &confirmed, err, sizeof err) != SEALPROV_OK ||
      sp_gpu_create(0, 0, &g, err, sizeof err) != SEALPROV_OK) {
    printf("FAIL: GPU 0: %s\n", err);
    return 1;
  }
  const char *td = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/sp-spmv-XXXXXX", td && *td ? td : "/tmp");
  if (!mkdtemp(tmp_root)) {
    printf("FAIL: mkdtemp %s\n", tmp_root);
    return 1;
  }
  if (!bench) {
    for (unsigned k = 10; k <= max; k += 2) {
      check_system(g, (uint64_t)1 << k, 8, SP_SHAPE_SEALING, 7 * k);
      check_system(g, ((uint64_t)1 << k) - 37, 5, SP_SHAPE_RANDOM, 7 * k + 1);
    }
  } else {
    for (const char *p = bench; *p;) {
      /* K (10..28): 2^K rows; a larger number: that many rows (up to 2^29) */
      uint64_t v = strtoull(p, (char **)&p, 10);
      if (v >= 10 && v <= 28)
        bench_system(g, (uint64_t)1 << v, cpu_max);
      else if (v >= 1024 && v <= ((uint64_t)1 << 29))
        bench_system(g, v, cpu_max);
      else {
        fprintf(stderr, "test_cuda_spmv: --bench takes K (10..28) or a row count (1024..2^29)\n");
        return 2;
      }
      if (*p == ',')
        p++;
      else if (*p)
        break;
    }
  }
  rmdir(tmp_root);
  sp_gpu_destroy(g);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
