/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_cpu.c -- `sealprov bench cpu`: how fast the CPU curve library is.
 *
 * Prints one JSON object: field multiplications and G1 mixed additions per second
 * (one thread, a dependent chain, so latency-bound as in the real inner loops), the
 * pairing in ms (one thread), MSMs of 2^16 and 2^18 G1 points and 2^16 G2 points and a
 * 2^20 NTT in ms with --threads threads. Each timed figure is the median of --repeat
 * runs; the minimum is printed alongside.
 *
 * The inputs are random (fixed seed): scalars uniform below r, points a random walk
 * of the generator (each point the previous one plus one of eight random steps), which
 * costs one addition per point instead of one scalar multiplication and is as random
 * as an MSM cares about. Results are not checked here: tests/bls12_381/test_msm and
 * test_ntt do that; a benchmark only measures. */
#include "bench.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bls12_381/bls12_381.h"
#include "cli.h" /* the option parser, clocks, messages, JSON strings */

#define MAX_REPEAT 100

/* Seconds on the CLI's clocks (cli.h). On a shared machine wall time also counts the
 * time other processes held the cores; CPU time does not, so both are printed: wall time
 * is what a caller waits, CPU time what the work costs. */
static double now_s(void) { return sp_cli_now_ms() / 1e3; }
static double cpu_s(void) { return sp_cli_cpu_ms() / 1e3; }

static double load_average(void) {
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f != NULL) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

typedef struct {
  double median, min, cpu_median;
} timing;

/* t: wall seconds of n runs, c: CPU seconds of the same runs (both sorted in place) */
static timing summarize(double *t, double *c, unsigned n) {
  timing r;
  r.median = sp_cli_median(t, n);
  r.min = t[0];
  r.cpu_median = sp_cli_median(c, n);
  return r;
}

/* A timed run: wall and CPU seconds into t[i], c[i]. */
#define TIMED(i, stmt)                   \
  do {                                   \
    double w0_ = now_s(), c0_ = cpu_s(); \
    stmt;                                \
    t[i] = now_s() - w0_;                \
    c[i] = cpu_s() - c0_;                \
  } while (0)

/* splitmix64: deterministic inputs, so runs compare like with like */
static uint64_t next_u64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void random_fr(fr_t *r, uint64_t *state) {
  uint8_t wide[64];
  for (int i = 0; i < 8; i++) {
    uint64_t w = next_u64(state);
    memcpy(wide + 8 * i, &w, 8);
  }
  fr_from_bytes_wide(r, wide);
}

static void random_scalars(scalar_t *s, size_t n, uint64_t *state) {
  for (size_t i = 0; i < n; i++) {
    fr_t x;
    random_fr(&x, state);
    fr_to_scalar(&s[i], &x);
  }
}

static void random_fp(fp_t *r, uint64_t *state) {
  uint64_t c[6];
  for (int i = 0; i < 6; i++) c[i] = next_u64(state);
  c[5] &= 0x0fffffffffffffffULL; /* < 2^380 < p */
  fp_from_canonical(r, c);
}

#define RANDOM_WALK(G)                                                \
  static G##_affine_t *G##_random_points(size_t n, uint64_t *state) { \
    G##_affine_t gen;                                                 \
    G##_jac_t gj, steps[8], cur;                                      \
    G##_generator(&gen);                                              \
    G##_jac_from_affine(&gj, &gen);                                   \
    for (int k = 0; k < 8; k++) {                                     \
      scalar_t s;                                                     \
      random_scalars(&s, 1, state);                                   \
      G##_jac_mul(&steps[k], &gj, &s);                                \
    }                                                                 \
    G##_jac_t *jac = malloc(n * sizeof *jac);                         \
    G##_affine_t *pts = malloc(n * sizeof *pts);                      \
    if (jac == NULL || pts == NULL) {                                 \
      free(jac);                                                      \
      free(pts);                                                      \
      return NULL;                                                    \
    }                                                                 \
    cur = steps[0];                                                   \
    for (size_t i = 0; i < n; i++) {                                  \
      G##_jac_add(&cur, &cur, &steps[next_u64(state) % 8]);           \
      jac[i] = cur;                                                   \
    }                                                                 \
    G##_jac_batch_to_affine(pts, jac, n);                             \
    free(jac);                                                        \
    return pts;                                                       \
  }

RANDOM_WALK(g1)
RANDOM_WALK(g2)

/* Operations per second of a dependent chain, run for at least min_s seconds of wall
 * time; rate[0] per wall second, rate[1] per CPU second. */
static void fp_mul_rate(double rate[2], double min_s, uint64_t *state) {
  fp_t x, y;
  random_fp(&x, state);
  random_fp(&y, state);
  size_t iters = 1u << 16, total = 0;
  double t0 = now_s(), c0 = cpu_s(), t;
  do {
    for (size_t i = 0; i < iters; i++) fp_mul(&x, &x, &y);
    total += iters;
    t = now_s() - t0;
  } while (t < min_s);
  rate[0] = (double)total / t;
  rate[1] = (double)total / (cpu_s() - c0);
  /* keep x alive so the loop cannot be dropped */
  if (fp_is_zero(&x)) sp_cli_error("unexpected zero");
}

static bool g1_mixed_add_rate(double rate[2], double min_s, uint64_t *state) {
  enum { NPTS = 1024 };
  g1_affine_t *pts = g1_random_points(NPTS, state);
  if (pts == NULL) return false;
  g1_jac_t acc;
  g1_jac_from_affine(&acc, &pts[0]);
  g1_jac_dbl(&acc, &acc); /* Z != 1, as in a running sum */
  size_t total = 0;
  double t0 = now_s(), c0 = cpu_s(), t;
  do {
    for (size_t i = 0; i < NPTS; i++) g1_jac_add_affine(&acc, &acc, &pts[i]);
    total += NPTS;
    t = now_s() - t0;
  } while (t < min_s);
  rate[0] = (double)total / t;
  rate[1] = (double)total / (cpu_s() - c0);
  if (g1_jac_is_inf(&acc)) sp_cli_error("unexpected infinity");
  free(pts);
  return true;
}

static void cpu_model(char *out, size_t len) {
  snprintf(out, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *v = strchr(line, ':');
      if (v != NULL) {
        v += 1 + (v[1] == ' ');
        v[strcspn(v, "\n")] = '\0';
        snprintf(out, len, "%s", v);
      }
      break;
    }
  }
  fclose(f);
}

static void print_timing(const char *key, timing t, bool last) {
  printf("  \"%s\": %.3f,\n  \"%s_min\": %.3f,\n  \"%s_cpu\": %.3f%s\n", key, t.median * 1e3, key,
         t.min * 1e3, key, t.cpu_median * 1e3, last ? "" : ",");
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: sealprov bench cpu [-t|--threads N] [-r|--repeat R] [--quick] [--json]\n"
          "  Throughput of the CPU curve library as JSON on stdout (with or without --json):\n"
          "  Fp mul/s and G1 mixed add/s (one thread), pairing ms (one thread),\n"
          "  G1 MSM 2^16 and 2^18, G2 MSM 2^16 and NTT 2^20 in ms with N threads.\n"
          "  --threads N  threads for MSM and NTT (default: online CPUs)\n"
          "  --repeat R   runs per timed figure, median reported (default 3, max %d)\n"
          "  --quick      sizes divided by 64 (MSM 2^10/2^12, NTT 2^14): a smoke run\n",
          MAX_REPEAT);
}

/* The command's options, checked. */
typedef struct bc_opts {
  long nproc; /* online CPUs, printed as found (-1 when unknown) */
  unsigned threads, repeat;
  bool quick;
} bc_opts;

/* The figures of one run, in the order they are measured and printed. */
typedef struct bc_figures {
  unsigned log_g1_small, log_g1_big, log_g2, log_ntt;
  double load_before, fp_rate[2], add_rate[2];
  timing pairing, g1_small, g1_big, g2_msm, ntt_fwd, ntt_coset;
} bc_figures;

/* -1 when the command is to run; else its exit status (0 after --help, 2 on a usage
 * error). */
static int bc_parse(int argc, char **argv, bc_opts *o) {
  enum { O_QUICK = 256 };
  static const struct option opts[] = {{"threads", required_argument, NULL, 't'},
                                       {"repeat", required_argument, NULL, 'r'},
                                       {"quick", no_argument, NULL, O_QUICK},
                                       {NULL, 0, NULL, 0}};
  sp_cli_args args = {.usage = usage, .takes = SP_CLI_JSON, .opts = opts, .shorts = "t:r:"};
  o->nproc = sysconf(_SC_NPROCESSORS_ONLN);
  o->threads = o->nproc > 0 ? (unsigned)o->nproc : 1;
  o->repeat = 3;
  o->quick = false;
  int opt;
  while ((opt = sp_cli_getopt(&args, argc, argv)) > 0) {
    switch (opt) {
      case 't':
        if (!sp_cli_uint("--threads", optarg, 1, 1024, &o->threads)) return 2;
        break;
      case 'r':
        if (!sp_cli_uint("--repeat", optarg, 1, MAX_REPEAT, &o->repeat)) return 2;
        break;
      case O_QUICK: o->quick = true; break;
    }
  }
  if (opt < 0) return args.status;
  if (!sp_cli_operands(&args, argc, argv, 0, 0, "")) return args.status;
  return -1;
}

/* Single-thread primitives: Fp mul and G1 mixed add rates, the pairing (figures 1-3). */
static bool bc_primitives(const bc_opts *o, bc_figures *f, uint64_t *seed, sp_cli_meter *meter) {
  const double rate_s = o->quick ? 0.05 : 0.5;
  double t[5 * MAX_REPEAT], c[5 * MAX_REPEAT]; /* the pairing runs 5x repeat */
  fp_mul_rate(f->fp_rate, rate_s, seed);
  sp_cli_meter_step(meter, 1, 8, "figures");
  if (!g1_mixed_add_rate(f->add_rate, rate_s, seed)) return false;
  sp_cli_meter_step(meter, 2, 8, "figures");
  g1_affine_t p1;
  g2_affine_t q2;
  g1_generator(&p1);
  g2_generator(&q2);
  fp12_t gt;
  unsigned pair_runs = o->quick ? 3 : 5 * o->repeat;
  for (unsigned i = 0; i < pair_runs; i++) TIMED(i, bls_pairing(&gt, &p1, &q2));
  f->pairing = summarize(t, c, pair_runs);
  sp_cli_meter_step(meter, 3, 8, "figures");
  return true;
}

/* G1 MSMs of 2^log_g1_small and 2^log_g1_big points (figures 4-5). */
static bool bc_msm_g1(const bc_opts *o, bc_figures *f, const g1_affine_t *pts, const scalar_t *sc,
                      sp_cli_meter *meter) {
  double t[MAX_REPEAT], c[MAX_REPEAT];
  bool ok = true;
  g1_jac_t r1;
  for (unsigned i = 0; i < o->repeat; i++)
    TIMED(i, ok &= msm_g1(&r1, pts, sc, (size_t)1 << f->log_g1_small, o->threads));
  f->g1_small = summarize(t, c, o->repeat);
  sp_cli_meter_step(meter, 4, 8, "figures");
  for (unsigned i = 0; i < o->repeat; i++)
    TIMED(i, ok &= msm_g1(&r1, pts, sc, (size_t)1 << f->log_g1_big, o->threads));
  f->g1_big = summarize(t, c, o->repeat);
  sp_cli_meter_step(meter, 5, 8, "figures");
  return ok;
}

/* A G2 MSM of 2^log_g2 points with the first of the G1 scalars (figure 6). */
static bool bc_msm_g2(const bc_opts *o, bc_figures *f, const scalar_t *sc, uint64_t *seed,
                      sp_cli_meter *meter) {
  double t[MAX_REPEAT], c[MAX_REPEAT];
  size_t n_g2 = (size_t)1 << f->log_g2;
  g2_affine_t *pts = g2_random_points(n_g2, seed);
  if (pts == NULL) return false;
  bool ok = true;
  g2_jac_t r2;
  for (unsigned i = 0; i < o->repeat; i++) TIMED(i, ok &= msm_g2(&r2, pts, sc, n_g2, o->threads));
  f->g2_msm = summarize(t, c, o->repeat);
  sp_cli_meter_step(meter, 6, 8, "figures");
  free(pts);
  return ok;
}

/* The MSMs, on one set of random G1 points and scalars (figures 4-6). False when out of
 * memory. */
static bool bc_msms(const bc_opts *o, bc_figures *f, uint64_t *seed, sp_cli_meter *meter) {
  size_t n_big = (size_t)1 << f->log_g1_big;
  g1_affine_t *g1pts = g1_random_points(n_big, seed);
  scalar_t *sc = malloc(n_big * sizeof *sc);
  bool ok = g1pts != NULL && sc != NULL;
  if (ok) {
    random_scalars(sc, n_big, seed);
    ok = bc_msm_g1(o, f, g1pts, sc, meter);
  }
  free(g1pts);
  if (ok) ok = bc_msm_g2(o, f, sc, seed, meter);
  free(sc);
  return ok;
}

/* The NTT, forward and coset forward (what the prover runs three times) (figures 7-8).
 * False when out of memory. */
static bool bc_ntts(const bc_opts *o, bc_figures *f, uint64_t *seed, sp_cli_meter *meter) {
  double t[MAX_REPEAT], c[MAX_REPEAT];
  size_t n_ntt = (size_t)1 << f->log_ntt;
  fr_t *a = malloc(n_ntt * sizeof *a);
  if (a == NULL) return false;
  bool ok = true;
  for (size_t i = 0; i < n_ntt; i++) random_fr(&a[i], seed);
  for (unsigned i = 0; i < o->repeat; i++) TIMED(i, ok &= ntt_forward(a, f->log_ntt, o->threads));
  f->ntt_fwd = summarize(t, c, o->repeat);
  sp_cli_meter_step(meter, 7, 8, "figures");
  for (unsigned i = 0; i < o->repeat; i++)
    TIMED(i, ok &= ntt_coset_forward(a, f->log_ntt, o->threads));
  f->ntt_coset = summarize(t, c, o->repeat);
  sp_cli_meter_step(meter, 8, 8, "figures");
  free(a);
  return ok;
}

/* The JSON object on stdout. */
static void bc_report(const bc_opts *o, const bc_figures *f) {
  char cpu[256], key[64];
  cpu_model(cpu, sizeof cpu);
  printf("{\n  \"benchmark\": \"cpu\",\n  \"cpu\": ");
  sp_cli_json_str(stdout, cpu);
  printf(",\n  \"online_cpus\": %ld,\n  \"threads\": %u,\n  \"repeat\": %u,\n  \"quick\": %s,\n",
         o->nproc, o->threads, o->repeat, o->quick ? "true" : "false");
  printf("  \"load_average_before\": %.2f,\n  \"load_average_after\": %.2f,\n", f->load_before,
         load_average());
  printf("  \"fp_mul_per_s\": %.0f,\n  \"fp_mul_per_cpu_s\": %.0f,\n", f->fp_rate[0],
         f->fp_rate[1]);
  printf("  \"g1_mixed_add_per_s\": %.0f,\n  \"g1_mixed_add_per_cpu_s\": %.0f,\n", f->add_rate[0],
         f->add_rate[1]);
  print_timing("pairing_ms", f->pairing, false);
  snprintf(key, sizeof key, "g1_msm_2_%u_ms", f->log_g1_small);
  print_timing(key, f->g1_small, false);
  snprintf(key, sizeof key, "g1_msm_2_%u_ms", f->log_g1_big);
  print_timing(key, f->g1_big, false);
  snprintf(key, sizeof key, "g2_msm_2_%u_ms", f->log_g2);
  print_timing(key, f->g2_msm, false);
  snprintf(key, sizeof key, "ntt_2_%u_ms", f->log_ntt);
  print_timing(key, f->ntt_fwd, false);
  snprintf(key, sizeof key, "ntt_coset_2_%u_ms", f->log_ntt);
  print_timing(key, f->ntt_coset, true);
  printf("}\n");
}

int sp_cmd_bench_cpu(int argc, char **argv) {
  bc_opts o;
  int st = bc_parse(argc, argv, &o);
  if (st >= 0) return st;
  const unsigned shrink = o.quick ? 6 : 0;
  bc_figures f = {.log_g1_small = 16 - shrink,
                  .log_g1_big = 18 - shrink,
                  .log_g2 = 16 - shrink,
                  .log_ntt = 20 - shrink,
                  .load_before = load_average()};
  uint64_t seed = 0x5ea1c0deULL; /* one stream for every input, in this order */
  sp_cli_meter meter;            /* --progress: figures done of the 8 */
  sp_cli_meter_start(&meter, "bench cpu");
  if (!bc_primitives(&o, &f, &seed, &meter) || !bc_msms(&o, &f, &seed, &meter) ||
      !bc_ntts(&o, &f, &seed, &meter)) {
    sp_cli_error("out of memory");
    return 1;
  }
  bc_report(&o, &f);
  return 0;
}
