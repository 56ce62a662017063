/* bench_gpu.c -- `sealprov bench gpu`: the CUDA engine's kernels and whole partitions on
 * one GPU, on data generated on the device (points (seed + i) G, uniform scalars), so
 * no parameter file is needed and nothing large crosses the disk.
 *
 *   MSM G1 / G2 and NTT: device-resident inputs, timed around the C boundary call
 *   (which synchronizes): median and minimum of --repeat runs after one warm-up.
 *   Partition: a sealing-shaped assignment (a-density 99.7 %, b-density 25.4 %, 85 %
 *   of aux values 0 or 1) against SYNTHETIC parameters (random points, not a real
 *   setup: the proof does not verify; the work is the real prover's), proved by the
 *   engine's execute(); the first run also makes the parameters resident and is the
 *   warm-up. Per-stage figures are those of the median run.
 * Each MSM size is also checked once against the CPU library at 2^14 points before
 * timing, so a figure never comes from a wrong kernel.
 */
#include <config.h> /* autoconf's (first through -I.): HAVE_CUDA declares sp_engine_cuda */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cuda/sp_gpu.h" /* first: hides <math.h>'s FP_ZERO from bls12_381.h */
#include "cli.h"
#include "../plugin/config.h" /* sp_device_cfg */
#include "engine.h"
#include "../cuda/engine_cuda.h"
#include "srs.h"

#define BG_MAX_SIZES 8
#define BG_MAX_REPEAT 64

typedef struct bg_opts {
  int ordinal;
  unsigned repeat;
  unsigned window;
  bool json;
  unsigned msm1[BG_MAX_SIZES], nmsm1;
  unsigned msm2[BG_MAX_SIZES], nmsm2;
  unsigned ntt[BG_MAX_SIZES], nntt;
  unsigned part[BG_MAX_SIZES], npart;
} bg_opts;

static double bg_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int bg_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* median index of runs (sorted copy), returns the median value */
static double bg_median(const double *runs, unsigned n, unsigned *median_idx) {
  double s[BG_MAX_REPEAT];
  memcpy(s, runs, n * sizeof *s);
  qsort(s, n, sizeof *s, bg_cmp);
  double med = s[n / 2];
  if (median_idx)
    for (unsigned i = 0; i < n; i++)
      if (runs[i] == med) *median_idx = i;
  return med;
}

static double bg_min(const double *runs, unsigned n) {
  double m = runs[0];
  for (unsigned i = 1; i < n; i++) m = runs[i] < m ? runs[i] : m;
  return m;
}

static bool parse_list(const char *s, unsigned *out, unsigned *n, unsigned lo, unsigned hi) {
  *n = 0;
  if (!strcmp(s, "none")) return true;
  char *end;
  while (*s) {
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || v < lo || v > hi || *n >= BG_MAX_SIZES) return false;
    out[(*n)++] = (unsigned)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return false;
  }
  return true;
}

static void bg_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov bench gpu [--json] [--device N] [--repeat R] [--window C]\n"
          "                          [--msm-g1 20,22,24,26] [--msm-g2 22,24] [--ntt 24,26,27]\n"
          "                          [--partition 20,24,27] [--quick]\n"
          "  Sizes are log2; 'none' skips a group. --quick: small sizes for a smoke run.\n"
          "  Inputs are generated on the GPU; partitions use synthetic parameters.\n");
}

static void print_runs(const double *runs, unsigned n) {
  printf("[");
  for (unsigned i = 0; i < n; i++) printf("%s%.3f", i ? ", " : "", runs[i]);
  printf("]");
}

static bool first_result = true;

static void result_head(const bg_opts *o, const char *op, unsigned lg) {
  if (o->json) {
    printf("%s    {\"op\": \"%s\", \"log_n\": %u, \"n\": %llu", first_result ? "" : ",\n", op, lg,
           1ull << lg);
  } else {
    printf("%-10s 2^%-3u", op, lg);
  }
  first_result = false;
}

static void result_times(const bg_opts *o, const double *runs, unsigned n) {
  double med = bg_median(runs, n, NULL), mn = bg_min(runs, n);
  if (o->json) {
    printf(", \"median_ms\": %.3f, \"min_ms\": %.3f, \"runs_ms\": ", med, mn);
    print_runs(runs, n);
  } else {
    printf("  median %10.3f ms  min %10.3f ms", med, mn);
  }
}

static void result_end(const bg_opts *o) { printf(o->json ? "}" : "\n"); }

/* ---- MSM -------------------------------------------------------------------------- */

/* One GPU MSM of 2^14 device points against the CPU library. */
static int msm_check(sp_gpu *g, bool g2, const void *d_points, const void *d_scalars,
                     unsigned window, char *err, size_t errlen) {
  const size_t n = 1u << 14;
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  void *hp = malloc(n * psz);
  scalar_t *hs = malloc(n * sizeof *hs);
  int st = (hp && hs) ? SEALPROV_OK : SEALPROV_ERR_NO_MEMORY;
  if (!st) st = sp_gpu_download(g, hp, d_points, n * psz, err, errlen);
  if (!st) st = sp_gpu_download(g, hs, d_scalars, n * sizeof *hs, err, errlen);
  sp_msm_args a;
  memset(&a, 0, sizeof a);
  a.d_points = d_points;
  a.d_scalars = d_scalars;
  a.n = n;
  a.window_bits = window;
  bool same = false;
  if (!st && !g2) {
    g1_jac_t x, y;
    st = sp_gpu_msm_g1_dev(g, &x, &a, err, errlen);
    if (!st && msm_g1(&y, hp, hs, n, 16)) same = g1_jac_eq(&x, &y);
  } else if (!st) {
    g2_jac_t x, y;
    st = sp_gpu_msm_g2_dev(g, &x, &a, err, errlen);
    if (!st && msm_g2(&y, hp, hs, n, 16)) same = g2_jac_eq(&x, &y);
  }
  if (!st && !same) {
    snprintf(err, errlen, "GPU MSM %s of 2^14 points differs from the CPU library", g2 ? "G2" : "G1");
    st = SEALPROV_ERR_INTERNAL;
  }
  free(hp);
  free(hs);
  return st;
}

static int bench_msm(sp_gpu *g, const bg_opts *o, bool g2, const unsigned *sizes, unsigned ns,
                     char *err, size_t errlen) {
  if (ns == 0) return SEALPROV_OK;
  unsigned maxlg = 0;
  for (unsigned i = 0; i < ns; i++) maxlg = sizes[i] > maxlg ? sizes[i] : maxlg;
  if (maxlg < 14) maxlg = 14;
  size_t nmax = (size_t)1 << maxlg, psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  void *dp = NULL, *ds = NULL;
  int st = sp_gpu_alloc(g, &dp, nmax * psz, err, errlen);
  if (!st) st = sp_gpu_alloc(g, &ds, nmax * sizeof(scalar_t), err, errlen);
  if (!st)
    st = g2 ? sp_gpu_gen_points_g2(g, dp, nmax, 12345, err, errlen)
            : sp_gpu_gen_points_g1(g, dp, nmax, 12345, err, errlen);
  if (!st) st = sp_gpu_gen_scalars(g, ds, nmax, (uint64_t)time(NULL), err, errlen);
  if (!st) st = sp_gpu_sync(g, err, errlen);
  if (!st) st = msm_check(g, g2, dp, ds, o->window, err, errlen);
  for (unsigned i = 0; !st && i < ns; i++) {
    sp_msm_args a;
    memset(&a, 0, sizeof a);
    a.d_points = dp;
    a.d_scalars = ds;
    a.n = (size_t)1 << sizes[i];
    a.window_bits = o->window;
    double runs[BG_MAX_REPEAT];
    for (unsigned r = 0; !st && r <= o->repeat; r++) {
      double t0 = bg_now_ms();
      if (g2) {
        g2_jac_t out;
        st = sp_gpu_msm_g2_dev(g, &out, &a, err, errlen);
      } else {
        g1_jac_t out;
        st = sp_gpu_msm_g1_dev(g, &out, &a, err, errlen);
      }
      if (r > 0) runs[r - 1] = bg_now_ms() - t0; /* run 0 is the warm-up */
    }
    if (st) break;
    result_head(o, g2 ? "msm_g2" : "msm_g1", sizes[i]);
    result_times(o, runs, o->repeat);
    result_end(o);
  }
  sp_gpu_free(g, dp, nmax * psz);
  sp_gpu_free(g, ds, nmax * sizeof(scalar_t));
  return st;
}

/* ---- NTT -------------------------------------------------------------------------- */

static int bench_ntt(sp_gpu *g, const bg_opts *o, char *err, size_t errlen) {
  if (o->nntt == 0) return SEALPROV_OK;
  unsigned maxlg = 0;
  for (unsigned i = 0; i < o->nntt; i++) maxlg = o->ntt[i] > maxlg ? o->ntt[i] : maxlg;
  size_t nmax = (size_t)1 << maxlg;
  void *d = NULL;
  int st = sp_gpu_alloc(g, &d, nmax * sizeof(fr_t), err, errlen);
  if (!st) st = sp_gpu_gen_scalars(g, d, nmax, 99, err, errlen); /* any values < r */
  static const struct { sp_ntt_kind kind; const char *name; } kinds[] = {
      {SP_NTT_FORWARD, "ntt"}, {SP_NTT_INVERSE, "intt"}, {SP_NTT_COSET_FORWARD, "coset_ntt"}};
  for (unsigned i = 0; !st && i < o->nntt; i++)
    for (unsigned k = 0; !st && k < 3; k++) {
      double runs[BG_MAX_REPEAT];
      for (unsigned r = 0; !st && r <= o->repeat; r++) {
        double t0 = bg_now_ms();
        st = sp_gpu_ntt_dev(g, d, o->ntt[i], kinds[k].kind, err, errlen);
        if (!st) st = sp_gpu_sync(g, err, errlen);
        if (r > 0) runs[r - 1] = bg_now_ms() - t0;
      }
      if (st) break;
      result_head(o, kinds[k].name, o->ntt[i]);
      result_times(o, runs, o->repeat);
      result_end(o);
    }
  sp_gpu_free(g, d, nmax * sizeof(fr_t));
  return st;
}

/* ---- partition ---------------------------------------------------------------------- */

/* Host copy of n device-made points (made and downloaded in chunks). */
static int host_points(sp_gpu *g, bool g2, void **out, size_t n, uint64_t seed, char *err,
                       size_t errlen) {
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t), chunk = (size_t)1 << 24;
  *out = malloc(n * psz + 1);
  void *d = NULL;
  if (!*out) {
    snprintf(err, errlen, "out of host memory for %zu points", n);
    return SEALPROV_ERR_NO_MEMORY;
  }
  int st = sp_gpu_alloc(g, &d, chunk * psz, err, errlen);
  for (size_t i = 0; !st && i < n; i += chunk) {
    size_t k = n - i < chunk ? n - i : chunk;
    st = g2 ? sp_gpu_gen_points_g2(g, d, k, seed + i, err, errlen)
            : sp_gpu_gen_points_g1(g, d, k, seed + i, err, errlen);
    if (!st) st = sp_gpu_download(g, (uint8_t *)*out + i * psz, d, k * psz, err, errlen);
  }
  sp_gpu_free(g, d, chunk * psz);
  return st;
}

static uint64_t bg_rng;
static uint64_t bg_rand(void) {
  bg_rng ^= bg_rng >> 12;
  bg_rng ^= bg_rng << 25;
  bg_rng ^= bg_rng >> 27;
  return bg_rng * 0x2545f4914f6cdd1dull;
}

/* 32-byte canonical scalar: 0/1 with probability p01 (percent), else a full-width
 * value < 2^252 < r spread from one random word (cheap: a 2^27 partition needs half a
 * billion of them; MSM and NTT costs do not depend on the values' randomness). */
static void bg_scalar(uint8_t *p, unsigned p01) {
  uint64_t x = bg_rand(), l[4];
  if ((x >> 32) % 100 < p01) {
    memset(p, 0, 32);
    p[0] = (uint8_t)(x & 1);
    return;
  }
  l[0] = x;
  l[1] = x * 0x9e3779b97f4a7c15ull;
  l[2] = x * 0xbf58476d1ce4e5b9ull;
  l[3] = (x * 0x94d049bb133111ebull) >> 4;
  memcpy(p, l, 32);
}

static int bench_partition(const bg_opts *o, void *dev, sp_gpu *g, unsigned lg, char *err,
                           size_t errlen) {
  const size_t m = (size_t)1 << lg;
  const size_t abc = m - m / 32, ninp = 328 < m / 4 ? 328 : 4, naux = abc - ninp;
  sp_srs srs;
  memset(&srs, 0, sizeof srs);
  atomic_init(&srs.refs, 1);
  srs.path = (char *)"synthetic";
  srs.log_domain = lg;
  bg_rng = 0x9e3779b97f4a7c15ull ^ lg;
  /* densities: A 99.7 %, B 25.4 % of aux; every input in A and in B */
  size_t words = (naux + 63) / 64, iw = (ninp + 63) / 64;
  uint64_t *da = calloc(words, 8), *dba = calloc(words, 8), *dbi = calloc(iw, 8);
  uint8_t *sc = malloc((3 * abc + ninp + naux) * 32);
  int st = (da && dba && dbi && sc) ? SEALPROV_OK : SEALPROV_ERR_NO_MEMORY;
  size_t pa = 0, pb = 0;
  for (size_t j = 0; !st && j < naux; j++) {
    if (bg_rand() % 1000 < 997) da[j / 64] |= 1ull << (j % 64), pa++;
    if (bg_rand() % 1000 < 254) dba[j / 64] |= 1ull << (j % 64), pb++;
  }
  for (size_t i = 0; !st && i < ninp; i++) dbi[i / 64] |= 1ull << (i % 64);
  sealprov_assignment asg;
  memset(&asg, 0, sizeof asg);
  if (!st) {
    for (size_t i = 0; i < 3 * abc; i++) bg_scalar(sc + 32 * i, 0);
    uint8_t *inp = sc + 3 * abc * 32, *aux = inp + ninp * 32;
    for (size_t i = 0; i < ninp; i++) bg_scalar(inp + 32 * i, 0);
    memset(inp, 0, 32);
    inp[0] = 1; /* ONE */
    for (size_t j = 0; j < naux; j++) bg_scalar(aux + 32 * j, 85);
    asg.a = sc;
    asg.b = sc + abc * 32;
    asg.c = sc + 2 * abc * 32;
    asg.abc_size = abc;
    asg.inp_assignment = inp;
    asg.inp_size = ninp;
    asg.aux_assignment = aux;
    asg.aux_size = naux;
    asg.a_aux_density = da;
    asg.a_aux_bit_len = naux;
    asg.a_aux_popcount = pa;
    asg.b_inp_density = dbi;
    asg.b_inp_bit_len = ninp;
    asg.b_inp_popcount = ninp;
    asg.b_aux_density = dba;
    asg.b_aux_bit_len = naux;
    asg.b_aux_popcount = pb;
    srs.h_len = m - 1;
    srs.l_len = naux;
    srs.a_len = ninp + pa;
    srs.b_g1_len = srs.b_g2_len = ninp + pb;
    srs.vk.ic_len = ninp;
  }
  double tg = bg_now_ms();
  void *h = NULL, *l = NULL, *a = NULL, *b1 = NULL, *b2 = NULL, *ic = NULL, *vk1 = NULL, *vk2 = NULL;
  if (!st) st = host_points(g, false, &h, srs.h_len, 1, err, errlen);
  if (!st) st = host_points(g, false, &l, srs.l_len, 1u << 30, err, errlen);
  if (!st) st = host_points(g, false, &a, srs.a_len, 2u << 30, err, errlen);
  if (!st) st = host_points(g, false, &b1, srs.b_g1_len, 3u << 30, err, errlen);
  if (!st) st = host_points(g, true, &b2, srs.b_g2_len, 4u << 30, err, errlen);
  if (!st) st = host_points(g, false, &ic, ninp, 5u << 30, err, errlen);
  if (!st) st = host_points(g, false, &vk1, 3, 6u << 30, err, errlen);
  if (!st) st = host_points(g, true, &vk2, 3, 7u << 30, err, errlen);
  double gen_ms = bg_now_ms() - tg;
  if (!st) {
    srs.h = h;
    srs.l = l;
    srs.a = a;
    srs.b_g1 = b1;
    srs.b_g2 = b2;
    srs.vk.ic = ic;
    srs.vk.alpha_g1 = ((g1_affine_t *)vk1)[0];
    srs.vk.beta_g1 = ((g1_affine_t *)vk1)[1];
    srs.vk.delta_g1 = ((g1_affine_t *)vk1)[2];
    srs.vk.beta_g2 = ((g2_affine_t *)vk2)[0];
    srs.vk.gamma_g2 = ((g2_affine_t *)vk2)[1];
    srs.vk.delta_g2 = ((g2_affine_t *)vk2)[2];
  }
  sp_task t;
  memset(&t, 0, sizeof t);
  t.srs = &srs;
  t.asg = &asg;
  t.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  t.cpu_threads = 8;
  fr_from_u64(&t.r, 12345);
  fr_from_u64(&t.s, 67890);
  double runs[BG_MAX_REPEAT];
  sp_cuda_timings tms[BG_MAX_REPEAT], first;
  memset(&first, 0, sizeof first);
  uint8_t proof[192];
  for (unsigned r = 0; !st && r <= o->repeat; r++) {
    double t0 = bg_now_ms();
    st = sp_engine_cuda.execute(dev, &t, NULL, proof, err, errlen);
    double ms = bg_now_ms() - t0;
    if (st) break;
    if (r == 0) sp_engine_cuda_last_timings(dev, &first);
    else {
      runs[r - 1] = ms;
      sp_engine_cuda_last_timings(dev, &tms[r - 1]);
    }
  }
  if (!st) {
    unsigned mi = 0;
    bg_median(runs, o->repeat, &mi);
    const sp_cuda_timings *x = &tms[mi];
    result_head(o, "partition", lg);
    if (o->json)
      printf(", \"constraints\": %zu, \"aux\": %zu, \"a_len\": %zu, \"b_len\": %zu", abc, naux,
             srs.a_len, srs.b_g1_len);
    result_times(o, runs, o->repeat);
    if (o->json)
      printf(",\n     \"stages_ms\": {\"upload\": %.3f, \"decode_filter_split\": %.3f, "
             "\"h_ntt\": %.3f, \"h_msm\": %.3f, \"batch_add\": %.3f, \"tail_msm_g1\": %.3f, "
             "\"g2\": %.3f, \"host\": %.3f, \"total\": %.3f},\n     \"first_run_srs_upload_ms\": "
             "%.1f, \"synthetic_params_gen_ms\": %.1f, \"memory_in_use_bytes\": %llu",
             x->upload_ms, x->decode_ms, x->h_ntt_ms, x->h_msm_ms, x->batch_add_ms,
             x->tail_msm_ms, x->g2_ms, x->host_ms, x->total_ms, first.srs_upload_ms, gen_ms,
             (unsigned long long)sp_engine_cuda.memory_in_use(dev));
    else
      printf("\n    upload %.1f decode %.1f h_ntt %.1f h_msm %.1f batch_add %.1f tail_msm %.1f "
             "g2 %.1f host %.1f (srs upload on first run %.1f ms)",
             x->upload_ms, x->decode_ms, x->h_ntt_ms, x->h_msm_ms, x->batch_add_ms,
             x->tail_msm_ms, x->g2_ms, x->host_ms, first.srs_upload_ms);
    result_end(o);
  }
  sp_engine_cuda.srs_evict(dev, &srs);
  free(h); free(l); free(a); free(b1); free(b2); free(ic); free(vk1); free(vk2);
  free(da); free(dba); free(dbi); free(sc);
  return st;
}

int sp_cmd_bench_gpu(int argc, char **argv) {
  bg_opts o;
  memset(&o, 0, sizeof o);
  o.repeat = 5;
  parse_list("20,22,24,26", o.msm1, &o.nmsm1, 1, 28);
  parse_list("22,24", o.msm2, &o.nmsm2, 1, 28);
  parse_list("24,26,27", o.ntt, &o.nntt, 1, 28);
  parse_list("20,24,27", o.part, &o.npart, 8, 28);
  static const struct option lo[] = {
      {"json", no_argument, 0, 'j'},       {"device", required_argument, 0, 'd'},
      {"repeat", required_argument, 0, 'r'}, {"window", required_argument, 0, 'w'},
      {"msm-g1", required_argument, 0, '1'}, {"msm-g2", required_argument, 0, '2'},
      {"ntt", required_argument, 0, 'n'},  {"partition", required_argument, 0, 'p'},
      {"quick", no_argument, 0, 'q'},      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    bool ok = true;
    switch (c) {
      case 'j': o.json = true; break;
      case 'd': o.ordinal = atoi(optarg); ok = o.ordinal >= 0; break;
      case 'r': o.repeat = (unsigned)atoi(optarg); ok = o.repeat >= 1 && o.repeat <= BG_MAX_REPEAT; break;
      case 'w': o.window = (unsigned)atoi(optarg); ok = o.window >= 2 && o.window <= 24; break;
      case '1': ok = parse_list(optarg, o.msm1, &o.nmsm1, 1, 28); break;
      case '2': ok = parse_list(optarg, o.msm2, &o.nmsm2, 1, 28); break;
      case 'n': ok = parse_list(optarg, o.ntt, &o.nntt, 1, 28); break;
      case 'p': ok = parse_list(optarg, o.part, &o.npart, 8, 28); break;
      case 'q':
        parse_list("16,18", o.msm1, &o.nmsm1, 1, 28);
        parse_list("14", o.msm2, &o.nmsm2, 1, 28);
        parse_list("16,20", o.ntt, &o.nntt, 1, 28);
        parse_list("14", o.part, &o.npart, 8, 28);
        break;
      case 'h': bg_usage(stdout); return 0;
      default: ok = false;
    }
    if (!ok) {
      if (c != '?') fprintf(stderr, "bench gpu: bad value for an option: %s\n", optarg ? optarg : "");
      bg_usage(stderr);
      return 2;
    }
  }
  if (optind < argc) {
    bg_usage(stderr);
    return 2;
  }
  if (sp_gpu_device_count() <= o.ordinal) {
    fprintf(stderr, "bench gpu: no CUDA device %d (%d visible)\n", o.ordinal, sp_gpu_device_count());
    return 1;
  }
  /* The engine device (for partitions) and, on the same thread, its context for the
   * kernel benchmarks: one bound thread, as a worker would be. */
  char err[512] = "";
  sp_device_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  snprintf(cfg.section, sizeof cfg.section, "gpu%d", o.ordinal);
  cfg.type = SP_DEVICE_CUDA;
  cfg.ordinal = o.ordinal;
  void *dev = NULL;
  int confirmed = -1, st = sp_engine_cuda.device_open(&cfg, &dev, err, sizeof err);
  if (!st) st = sp_engine_cuda.worker_bind(dev, 0, &confirmed, err, sizeof err);
  sp_gpu *g = NULL;
  if (!st) st = sp_gpu_create(o.ordinal, 0, &g, err, sizeof err);
  if (st) {
    fprintf(stderr, "bench gpu: %s\n", err);
    if (dev) sp_engine_cuda.device_close(dev);
    return 1;
  }
  char name[128];
  int sms = 0;
  uint64_t mem = 0;
  sp_gpu_describe(g, name, sizeof name, &sms, &mem);
  if (o.json) {
    printf("{\n  \"benchmark\": \"gpu\",\n  \"gpu\": {\"name\": \"%s\", \"ordinal\": %d, "
           "\"sm_count\": %d, \"memory_bytes\": %llu},\n  \"repeat\": %u,\n  \"command\": \"",
           name, o.ordinal, sms, (unsigned long long)mem, o.repeat);
    for (int i = 0; i < argc; i++) printf("%s%s", i ? " " : "sealprov bench ", argv[i]);
    printf("\",\n  \"results\": [\n");
  } else {
    printf("GPU %d: %s, %d SMs, %.1f GiB; median of %u runs after one warm-up\n", o.ordinal, name,
           sms, (double)mem / (1u << 30), o.repeat);
  }
  fflush(stdout);
  st = bench_msm(g, &o, false, o.msm1, o.nmsm1, err, sizeof err);
  fflush(stdout);
  if (!st) st = bench_msm(g, &o, true, o.msm2, o.nmsm2, err, sizeof err);
  fflush(stdout);
  if (!st) st = bench_ntt(g, &o, err, sizeof err);
  fflush(stdout);
  sp_gpu_destroy(g);
  for (unsigned i = 0; !st && i < o.npart; i++) {
    /* a context for generating the synthetic parameters, freed before proving */
    sp_gpu *gg = NULL;
    st = sp_gpu_create(o.ordinal, 0, &gg, err, sizeof err);
    if (!st) {
      st = bench_partition(&o, dev, gg, o.part[i], err, sizeof err);
      sp_gpu_destroy(gg);
    }
    fflush(stdout);
  }
  if (o.json) printf("\n  ],\n  \"status\": \"%s\"\n}\n", st ? "failed" : "ok");
  if (st) fprintf(stderr, "bench gpu: %s\n", err);
  sp_engine_cuda.worker_unbind(dev, 0);
  sp_engine_cuda.device_close(dev);
  return st ? 1 : 0;
}
