/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_gpu.c -- `sealprov bench gpu`: the CUDA engine's kernels and whole partitions on
 * one GPU, and partition throughput on one or more GPUs through the real scheduler, on
 * data generated on the device (points (seed + i) G, uniform scalars), so no parameter
 * file is needed and nothing large crosses the disk.
 *
 *   MSM G1 / G2 and NTT: device-resident inputs, timed around the C boundary call
 *   (which synchronizes): median and minimum of --repeat runs after one warm-up.
 *   Partition: a sealing-shaped assignment (a-density 99.7 %, b-density 25.4 %, 85 %
 *   of aux values 0 or 1) against SYNTHETIC parameters (random points, not a real
 *   setup: the proof does not verify; the work is the real prover's), proved through
 *   the engine contract (prepare, execute, release), prepare timed apart from execute;
 *   the first run also makes the parameters resident and is the warm-up. Per-stage
 *   figures are those of the median run.
 *   Throughput (--throughput): the same synthetic set and ONE assignment (the module
 *   only reads it), a stream of jobs of --partitions partitions submitted to the
 *   scheduler of sched.c/pool.c (sp_sched_create on an in-memory device table: 1..N
 *   CUDA devices, 2 workers each as in production), timed from the first submit to the
 *   last completion after a warm-up job that makes the parameters resident on every
 *   GPU. The scheduler's timeline gives each GPU's busy share and the idle gaps
 *   between consecutive executes (issue 6: idle under 5 %, 2 GPUs >= 1.9 x 1 GPU).
 *   No self-check: synthetic proofs cannot verify.
 * Each MSM size is also checked once against the CPU library at 2^14 points before
 * timing, so a figure never comes from a wrong kernel.
 */
#include <config.h> /* autoconf's (first through -I.): HAVE_CUDA declares sp_engine_cuda */

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "util/sp_gpu.h" /* first: hides <math.h>'s FP_ZERO from bls12_381.h */
#include "gpu/gpu_kit.h"
#include "cli.h"
#include "engine/device.h" /* sp_device_cfg */
#include "engine/engine.h"
#include "engine/hostmem.h"
#include "backend/engine_cuda.h"
#include "gpu/engine_probe.h"
#include "util/cuda_api.h"
#include "groth16/groth16.h" /* sp_groth16_check_assignment: the module's submit-time check */
#include "base/log.h"
#include "runtime/sp_sched.h"
#include "formats/srs.h"

#define BG_MAX_SIZES 8
#define BG_MAX_REPEAT 64
#define BG_MAX_GPUS 16
#define BG_MAX_JOBS 1000
#define BG_MAX_PARTITIONS 1000
#define BG_MAX_PRE 6 /* --precompute variants */

typedef struct bg_opts {
  int ordinal;
  unsigned repeat;
  unsigned window;
  bool json;
  unsigned msm1[BG_MAX_SIZES], nmsm1;
  unsigned msm2[BG_MAX_SIZES], nmsm2;
  unsigned ntt[BG_MAX_SIZES], nntt;
  unsigned part[BG_MAX_SIZES], npart;
  bool groups_named; /* a kernel/partition group was named on the command line */
  /* throughput */
  unsigned tp[BG_MAX_SIZES], ntp;     /* log2 sizes */
  unsigned gpus[BG_MAX_SIZES], ngpus; /* GPU counts, each run on ordinals[0..n-1] */
  unsigned ordinals[BG_MAX_GPUS], nordinals;
  unsigned jobs[BG_MAX_SIZES], njobs; /* timed jobs per size (one value: all sizes) */
  unsigned partitions;                /* per job */
  unsigned workers;                   /* per GPU */
  unsigned warmup;                    /* warm-up job partitions; 0 = every worker one */
  unsigned urgent_after;              /* --urgent-after K: a 1-partition job of higher
                                              priority once K stream partitions are done */
  uint64_t pinned;                    /* sp_device_cfg.pinned_staging: 0 auto, OFF, bytes */
  /* --pinned-staging A,B: each throughput stream runs once per mode, in this order,
   * on the same synthetic data (same-call A/B pairs) */
  uint64_t pinned_list[4];
  unsigned npinned;
  /* --precompute off,on,C:K: each MSM (and partition: off and on only) runs once per
   * variant in every repeat, in this order (same-call A/B). window 0: "off" (today's
   * path); window 1: "on" (the table msm.cu's cost model plans); else C:K. */
  struct {
    unsigned window, copies;
  } pre[BG_MAX_PRE];
  unsigned npre;
} bg_opts;

#define BG_PRE_OFF 0u
#define BG_PRE_ON 1u

static int bg_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v in place; its median (the upper one for even n), 0 for none. */
static double median_sorted(double *v, size_t n) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, bg_cmp);
  return v[n / 2];
}

/* median of runs (sorted copy); *median_idx: the run that has it */
static double bg_median(const double *runs, unsigned n, unsigned *median_idx) {
  double s[BG_MAX_REPEAT];
  memcpy(s, runs, n * sizeof *s);
  double med = median_sorted(s, n);
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

static bool parse_list_cap(const char *s, unsigned *out, unsigned *n, unsigned cap, unsigned lo,
                           unsigned hi) {
  *n = 0;
  if (!strcmp(s, "none")) return true;
  char *end;
  while (*s) {
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || v < lo || v > hi || *n >= cap) return false;
    out[(*n)++] = (unsigned)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return false;
  }
  return true;
}

static bool parse_list(const char *s, unsigned *out, unsigned *n, unsigned lo, unsigned hi) {
  return parse_list_cap(s, out, n, BG_MAX_SIZES, lo, hi);
}

/* --pinned-staging: auto | chunked | whole | off | bytes with an optional K, M or G
 * (1024-based) suffix. The same meanings as the INI's pinned_staging, whose sizes use
 * the INI's units (KiB, GB, ...) instead. */
static bool parse_pinned(const char *s, uint64_t *out) {
  if (!strcmp(s, "auto")) return *out = 0, true;
  if (!strcmp(s, "off")) return *out = SP_PINNED_STAGING_OFF, true;
  if (!strcmp(s, "chunked")) return *out = SP_PINNED_STAGING_CHUNKED, true;
  if (!strcmp(s, "whole")) return *out = SP_PINNED_STAGING_WHOLE, true;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k')
    shift = 10, end++;
  else if (*end == 'M' || *end == 'm')
    shift = 20, end++;
  else if (*end == 'G' || *end == 'g')
    shift = 30, end++;
  if (end == s || *end || v == 0 || v > (UINT64_MAX >> 1) >> shift) return false;
  *out = (uint64_t)v << shift;
  return true;
}

/* A comma-separated list of those (at most 4). */
static bool parse_pinned_list(const char *s, bg_opts *o) {
  char buf[256];
  if (strlen(s) >= sizeof buf) return false;
  snprintf(buf, sizeof buf, "%s", s);
  o->npinned = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (o->npinned == 4 || !parse_pinned(t, &o->pinned_list[o->npinned])) return false;
    o->npinned++;
  }
  if (o->npinned == 0) return false;
  o->pinned = o->pinned_list[0];
  return true;
}

/* --precompute: off | on | C:K (window C 2..24, K copies), comma-separated, at most
 * BG_MAX_PRE. */
static bool parse_precompute(const char *s, bg_opts *o) {
  char buf[128];
  if (strlen(s) >= sizeof buf) return false;
  snprintf(buf, sizeof buf, "%s", s);
  o->npre = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (o->npre == BG_MAX_PRE) return false;
    unsigned c = 0, k = 0;
    char tail = 0;
    if (!strcmp(t, "off"))
      c = BG_PRE_OFF;
    else if (!strcmp(t, "on"))
      c = BG_PRE_ON;
    else if (sscanf(t, "%u:%u%c", &c, &k, &tail) != 2 || c < 2 || c > 24 || k < 2 ||
             k > (256 + c - 1) / c)
      return false;
    o->pre[o->npre].window = c;
    o->pre[o->npre].copies = k;
    o->npre++;
  }
  return o->npre > 0;
}

static void print_pinned(const bg_opts *o) {
  if (o->pinned == 0)
    printf("\"auto\"");
  else if (o->pinned == SP_PINNED_STAGING_OFF)
    printf("\"off\"");
  else if (o->pinned == SP_PINNED_STAGING_CHUNKED)
    printf("\"chunked\"");
  else if (o->pinned == SP_PINNED_STAGING_WHOLE)
    printf("\"whole\"");
  else
    printf("%llu", (unsigned long long)o->pinned);
}

static void bg_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov bench gpu [--json] [--device N] [--repeat R] [--window C]\n"
          "                          [--msm-g1 20,22,24,26] [--msm-g2 22,24] [--ntt 24,26,27]\n"
          "                          [--partition 20,24,27] [--quick] [--precompute off,on]\n"
          "       sealprov bench gpu --throughput 24,27 [--gpus 1,2] [--jobs 3,1]\n"
          "                          [--partitions 10] [--workers 2] [--warmup P]\n"
          "                          [--ordinals 0,1] [--urgent-after K] [--json]\n"
          "  --precompute off,on,C:K: every MSM once per variant in each repeat (same-call\n"
          "  A/B): off = today's path, on = a fixed-base table as msm.cu's cost model plans\n"
          "  it, C:K = a table of window C with K copies; partitions take off and on (the\n"
          "  engine's table of the resident h). Table size and build time are reported.\n"
          "  --pinned-staging auto|chunked|whole|off|BYTES[K|M|G]: the engine's staging per\n"
          "  GPU (the INI's pinned_staging; default auto = chunked), for partitions and\n"
          "  throughput; a comma list (e.g. whole,chunked) runs each throughput stream once\n"
          "  per mode on the same data, with host peak RSS and module host memory per run.\n"
          "  Sizes are log2; 'none' skips a group. --quick: small sizes for a smoke run.\n"
          "  Inputs are generated on the GPU; partitions use synthetic parameters.\n"
          "  --throughput: streams of --jobs jobs (one value, or one per size) of\n"
          "  --partitions partitions through the module's scheduler on the first N GPUs\n"
          "  of --ordinals for each N of --gpus, --workers workers per GPU (default 2),\n"
          "  after a warm-up job of --warmup partitions (default: one per worker) that\n"
          "  makes the parameters resident. Reports partitions/s, the ratio to 1 GPU,\n"
          "  and per GPU the busy share and the idle gaps between partitions. Kernel\n"
          "  groups run too only if named. Proofs of synthetic parameters cannot\n"
          "  verify: no self-check (tests/cuda/test_cuda_engine checks real setups).\n"
          "  --urgent-after K: once K partitions of each stream are done, a 1-partition job\n"
          "  of priority 100 (the stream's is 0), as a WinningPoSt during sealing: reports\n"
          "  its wait from submit to start (a worker takes it), to execute (it has the GPU)\n"
          "  and to done, against the stream's median execute (dev/deadline-latency.sh).\n");
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

/* One GPU MSM of 2^14 device points against the CPU library; with window and copies,
 * over a fixed-base table of those points made for the check. */
static int msm_check(sp_gpu *g, bool g2, const void *d_points, const void *d_scalars,
                     unsigned window, unsigned copies, char *err, size_t errlen) {
  const size_t n = 1u << 14;
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  void *hp = malloc(n * psz);
  scalar_t *hs = malloc(n * sizeof *hs);
  int st = (hp && hs) ? SEALPROV_OK : SEALPROV_ERR_NO_MEMORY;
  if (!st) st = sp_gpu_download(g, hp, d_points, n * psz, err, errlen);
  if (!st) st = sp_gpu_download(g, hs, d_scalars, n * sizeof *hs, err, errlen);
  sp_msm_table tab;
  memset(&tab, 0, sizeof tab);
  if (!st && copies > 1)
    st = sp_gpu_msm_table_make(g, g2, d_points, n, window, copies, &tab, err, errlen);
  sp_msm_args a;
  memset(&a, 0, sizeof a);
  a.d_points = d_points;
  a.d_scalars = d_scalars;
  a.n = n;
  a.window_bits = window;
  a.table = copies > 1 ? &tab : NULL;
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
    snprintf(err, errlen,
             "GPU MSM %s of 2^14 points (window %u, %u copies) differs from the CPU "
             "library",
             g2 ? "G2" : "G1", window, copies);
    st = SEALPROV_ERR_INTERNAL;
  }
  sp_gpu_msm_table_free(sp_gpu_ordinal(g), &tab);
  free(hp);
  free(hs);
  return st;
}

static unsigned ilog2_size(size_t n) {
  unsigned r = 0;
  while (n >>= 1) r++;
  return r;
}

/* One variant of an MSM size (--precompute): its table, if any, and its runs. */
typedef struct bg_msm_var {
  const char *label; /* "off", "on", "C:K" */
  char buf[16];
  sp_msm_table tab; /* copies 0: today's path */
  double build_ms, gain;
  double runs[BG_MAX_REPEAT];
} bg_msm_var;

/* The variants of one size: "on" is planned within what the device has free after a
 * margin for the MSM's own scratch (sort buffers, buckets: 12 GiB). */
static int msm_variants(sp_gpu *g, const bg_opts *o, bool g2, const void *dp, size_t n,
                        bg_msm_var *v, unsigned *nv, char *err, size_t errlen) {
  *nv = o->npre ? o->npre : 1;
  if (*nv > BG_MAX_PRE) *nv = BG_MAX_PRE;
  int st = SEALPROV_OK;
  for (unsigned i = 0; i < *nv; i++) {
    memset(&v[i], 0, sizeof v[i]);
    unsigned c = o->npre ? o->pre[i].window : BG_PRE_OFF, k = o->npre ? o->pre[i].copies : 0;
    if (c == BG_PRE_OFF) {
      v[i].label = "off";
      continue;
    }
    uint64_t free_b = 0, total_b = 0;
    sp_gpu_trim(g); /* the pool's cache goes back: the table is a cudaMalloc of its own */
    if (sp_gpu_mem_info(g, &free_b, &total_b) != SEALPROV_OK) free_b = 0;
    const uint64_t margin = 12ull << 30;
    if (c == BG_PRE_ON) {
      v[i].label = "on";
      sp_gpu_msm_plan(g2, n, free_b > margin ? free_b - margin : 0, false, &c, &k, &v[i].gain);
      if (k < 2) continue; /* the model plans no table: "on" runs today's path */
    } else {
      snprintf(v[i].buf, sizeof v[i].buf, "%u:%u", c, k);
      v[i].label = v[i].buf;
    }
    double t0 = sp_cli_now_ms();
    st = sp_gpu_msm_table_make(g, g2, dp, n, c, k, &v[i].tab, err, errlen);
    v[i].build_ms = sp_cli_now_ms() - t0;
    if (st) {
      char m[512];
      snprintf(m, sizeof m, "%s", err);
      snprintf(err, errlen, "MSM %s 2^%u: table %u:%u (%.1f GB): %s", g2 ? "G2" : "G1",
               ilog2_size(n), c, k, (double)sp_gpu_msm_table_bytes(g2, n, k) / 1e9, m);
      return st;
    }
  }
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
  if (!st) st = msm_check(g, g2, dp, ds, o->window, 0, err, errlen);
  bg_msm_var *v = calloc(BG_MAX_PRE, sizeof *v);
  if (!v && !st) {
    snprintf(err, errlen, "out of host memory");
    st = SEALPROV_ERR_NO_MEMORY;
  }
  for (unsigned i = 0; !st && i < ns; i++) {
    const size_t n = (size_t)1 << sizes[i];
    unsigned nv = 0;
    st = msm_variants(g, o, g2, dp, n, v, &nv, err, errlen);
    /* each table variant at 2^14 against the CPU first, with its window and copies */
    for (unsigned j = 0; !st && j < nv; j++)
      if (v[j].tab.copies)
        st = msm_check(g, g2, dp, ds, v[j].tab.window, v[j].tab.copies, err, errlen);
    g1_jac_t ref1;
    g2_jac_t ref2;
    for (unsigned r = 0; !st && r <= o->repeat; r++)
      for (unsigned j = 0; !st && j < nv; j++) {
        sp_msm_args a;
        memset(&a, 0, sizeof a);
        a.d_points = dp;
        a.d_scalars = ds;
        a.n = n;
        a.window_bits = v[j].tab.copies ? 0 : o->window;
        a.table = v[j].tab.copies ? &v[j].tab : NULL;
        g1_jac_t out1;
        g2_jac_t out2;
        double t0 = sp_cli_now_ms();
        st = g2 ? sp_gpu_msm_g2_dev(g, &out2, &a, err, errlen)
                : sp_gpu_msm_g1_dev(g, &out1, &a, err, errlen);
        if (r > 0) v[j].runs[r - 1] = sp_cli_now_ms() - t0; /* run 0 is the warm-up */
        if (st) break;
        /* every variant and run gives the first one's point (the MSM is exact) */
        bool same = true;
        if (r == 0 && j == 0) {
          ref1 = out1;
          ref2 = out2;
        } else {
          same = g2 ? g2_jac_eq(&out2, &ref2) : g1_jac_eq(&out1, &ref1);
        }
        if (!same) {
          snprintf(err, errlen, "MSM %s 2^%u: variant %s (run %u) differs from variant %s",
                   g2 ? "G2" : "G1", sizes[i], v[j].label, r, v[0].label);
          st = SEALPROV_ERR_INTERNAL;
        }
      }
    for (unsigned j = 0; !st && j < nv; j++) {
      result_head(o, g2 ? "msm_g2" : "msm_g1", sizes[i]);
      if (o->npre) {
        if (o->json)
          printf(
              ", \"precompute\": \"%s\", \"window\": %u, \"copies\": %u, \"table_bytes\": %llu, "
              "\"table_build_ms\": %.1f, \"predicted_gain\": %.3f",
              v[j].label, v[j].tab.window, v[j].tab.copies, (unsigned long long)v[j].tab.ext_bytes,
              v[j].build_ms, v[j].gain);
        else
          printf(" %-6s", v[j].label);
      }
      result_times(o, v[j].runs, o->repeat);
      if (o->npre && !o->json && v[j].tab.copies)
        printf("  (window %u, %u copies, %.2f GB made in %.0f ms)", v[j].tab.window,
               v[j].tab.copies, (double)v[j].tab.ext_bytes / 1e9, v[j].build_ms);
      result_end(o);
    }
    for (unsigned j = 0; j < nv; j++) sp_gpu_msm_table_free(sp_gpu_ordinal(g), &v[j].tab);
  }
  free(v);
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
  static const struct {
    sp_ntt_kind kind;
    const char *name;
  } kinds[] = {
      {SP_NTT_FORWARD, "ntt"}, {SP_NTT_INVERSE, "intt"}, {SP_NTT_COSET_FORWARD, "coset_ntt"}};
  for (unsigned i = 0; !st && i < o->nntt; i++)
    for (unsigned k = 0; !st && k < 3; k++) {
      double runs[BG_MAX_REPEAT];
      for (unsigned r = 0; !st && r <= o->repeat; r++) {
        double t0 = sp_cli_now_ms();
        st = sp_gpu_ntt_dev(g, d, o->ntt[i], kinds[k].kind, err, errlen);
        if (!st) st = sp_gpu_sync(g, err, errlen);
        if (r > 0) runs[r - 1] = sp_cli_now_ms() - t0;
      }
      if (st) break;
      result_head(o, kinds[k].name, o->ntt[i]);
      result_times(o, runs, o->repeat);
      result_end(o);
    }
  sp_gpu_free(g, d, nmax * sizeof(fr_t));
  return st;
}

/* ---- synthetic parameters and assignment ------------------------------------------ */

/* Host copy of n device-made points (made and downloaded in chunks). */
static int host_points(sp_gpu *g, bool g2, void **out, size_t n, uint64_t seed, char *err,
                       size_t errlen) {
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t), chunk = (size_t)1 << 24;
  *out = malloc(n * psz + 1);
  void *d = NULL;
  if (!*out) {
    snprintf(err, errlen, "out of host memory for %zu %s points (%.1f GiB)", n, g2 ? "G2" : "G1",
             (double)(n * psz) / (1u << 30));
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

/* xorshift64*: the state is the caller's, so that threads filling slices of one
 * assignment each have their own. */
static uint64_t bg_rand(uint64_t *st) {
  uint64_t x = *st;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *st = x;
  return x * 0x2545f4914f6cdd1dull;
}

/* 32-byte canonical scalar: 0/1 with probability p01 (percent), else a full-width
 * value < 2^252 < r spread from one random word (cheap: a 2^27 partition needs half a
 * billion of them; MSM and NTT costs do not depend on the values' randomness). */
static void bg_scalar(uint8_t *p, unsigned p01, uint64_t *st) {
  uint64_t x = bg_rand(st), l[4];
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

typedef struct bg_fill {
  uint8_t *p;
  unsigned p01;
  uint64_t seed;
} bg_fill;

/* bls_range_fn: scalars [begin, end), each chunk on its own generator stream. */
static void bg_fill_range(void *ctx, size_t begin, size_t end, unsigned chunk) {
  const bg_fill *f = ctx;
  uint64_t state = (f->seed ^ (0x9e3779b97f4a7c15ull * (chunk + 1ull))) | 1;
  for (size_t i = begin; i < end; i++) bg_scalar(f->p + 32 * i, f->p01, &state);
}

/* n scalars, several threads at once: on one thread the 17 GB of a 2^27 assignment
 * took long enough to matter under the GPU machine's 10-minute call limit. */
static void bg_fill_scalars(uint8_t *p, size_t n, unsigned p01, uint64_t seed) {
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned nt = ncpu < 1 ? 1 : ncpu > 32 ? 32 : (unsigned)ncpu;
  if (n < ((size_t)1 << 20)) nt = 1;
  bg_fill f = {p, p01, seed};
  (void)bls_parallel_for(n, nt, bg_fill_range, &f);
}

/* c[i] = a[i] * b[i] over a range of rows (canonical little-endian scalars): the
 * engine checks a*b = c before any MSM (issue 14), so random a, b, c would fail it. */
typedef struct bg_abc {
  uint8_t *a, *b, *c;
} bg_abc;

static void bg_abc_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  const bg_abc *x = vctx;
  for (size_t i = begin; i < end; i++) {
    fr_t fa, fb;
    (void)fr_from_le32(&fa, x->a + 32 * i); /* bg_fill_scalars keeps them below r */
    (void)fr_from_le32(&fb, x->b + 32 * i);
    fr_mul(&fa, &fa, &fb);
    fr_to_le32(x->c + 32 * i, &fa);
  }
}

static void bg_make_c(uint8_t *a, uint8_t *b, uint8_t *c, size_t n) {
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned nt = ncpu < 1 ? 1 : ncpu > 32 ? 32 : (unsigned)ncpu;
  if (n < ((size_t)1 << 16)) nt = 1;
  bg_abc x = {a, b, c};
  (void)bls_parallel_for(n, nt, bg_abc_range, &x);
}

/* One synthetic parameter set and one sealing-shaped assignment for a domain of 2^lg:
 * 97 % of the domain constraints, 328 inputs (4 below 2^11), a-density 99.7 %,
 * b-density 25.4 %, 85 % of aux values 0 or 1. Not to be copied (srs is pointed to). */
typedef struct bg_synth {
  unsigned lg;
  size_t abc, ninp, naux;
  sp_srs srs;
  sealprov_assignment asg;
  uint64_t *da, *dba, *dbi;
  uint8_t *sc;
  void *h, *l, *a, *b1, *b2, *ic, *vk1, *vk2;
  double params_ms, assignment_ms;
} bg_synth;

/* What the engine keeps resident on a GPU for this set. */
static size_t bg_params_bytes(const sp_srs *s) {
  return (s->h_len + s->l_len + s->a_len + s->b_g1_len) * sizeof(g1_affine_t) +
         s->b_g2_len * sizeof(g2_affine_t);
}

/* MemAvailable of /proc/meminfo in bytes; 0 when unknown. */
static uint64_t bg_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  fclose(f);
  return (uint64_t)kb * 1024;
}

static void synth_free(bg_synth *x) {
  free(x->h);
  free(x->l);
  free(x->a);
  free(x->b1);
  free(x->b2);
  free(x->ic);
  free(x->vk1);
  free(x->vk2);
  free(x->da);
  free(x->dba);
  free(x->dbi);
  free(x->sc);
  memset(x, 0, sizeof *x);
}

/* Points are made on g's device and downloaded; on failure what was made is freed. */
static int synth_make(bg_synth *x, sp_gpu *g, unsigned lg, char *err, size_t errlen) {
  memset(x, 0, sizeof *x);
  const size_t m = (size_t)1 << lg;
  const size_t abc = m - m / 32, ninp = 328 < m / 4 ? 328 : 4, naux = abc - ninp;
  x->lg = lg;
  x->abc = abc;
  x->ninp = ninp;
  x->naux = naux;
  sp_srs *srs = &x->srs;
  atomic_init(&srs->refs, 1);
  srs->path = (char *)"synthetic";
  srs->log_domain = lg;
  uint64_t rng = 0x9e3779b97f4a7c15ull ^ lg;
  /* densities: A 99.7 %, B 25.4 % of aux; every input in A and in B */
  size_t words = (naux + 63) / 64, iw = (ninp + 63) / 64;
  x->da = calloc(words, 8);
  x->dba = calloc(words, 8);
  x->dbi = calloc(iw, 8);
  if (!x->da || !x->dba || !x->dbi) {
    synth_free(x);
    snprintf(err, errlen, "out of host memory for the density bitmaps of 2^%u", lg);
    return SEALPROV_ERR_NO_MEMORY;
  }
  size_t pa = 0, pb = 0;
  for (size_t j = 0; j < naux; j++) {
    if (bg_rand(&rng) % 1000 < 997) x->da[j / 64] |= 1ull << (j % 64), pa++;
    if (bg_rand(&rng) % 1000 < 254) x->dba[j / 64] |= 1ull << (j % 64), pb++;
  }
  for (size_t i = 0; i < ninp; i++) x->dbi[i / 64] |= 1ull << (i % 64);
  srs->h_len = m - 1;
  srs->l_len = naux;
  srs->a_len = ninp + pa;
  srs->b_g1_len = srs->b_g2_len = ninp + pb;
  srs->vk.ic_len = ninp;

  /* Fail with the sizes before the kernel's OOM killer fails us without any. */
  size_t sc_bytes = (3 * abc + ninp + naux) * 32;
  size_t pt_bytes =
      bg_params_bytes(srs) + (ninp + 3) * sizeof(g1_affine_t) + 3 * sizeof(g2_affine_t);
  uint64_t avail = bg_mem_available();
  if (avail && sc_bytes + pt_bytes > avail) {
    snprintf(err, errlen,
             "the synthetic 2^%u set needs %.1f GiB of host memory (parameters %.1f GiB, "
             "assignment %.1f GiB) but MemAvailable is %.1f GiB",
             lg, (double)(sc_bytes + pt_bytes) / (1u << 30), (double)pt_bytes / (1u << 30),
             (double)sc_bytes / (1u << 30), (double)avail / (1u << 30));
    synth_free(x);
    return SEALPROV_ERR_NO_MEMORY;
  }
  double t0 = sp_cli_now_ms();
  x->sc = malloc(sc_bytes);
  if (!x->sc) {
    snprintf(err, errlen, "out of host memory for the 2^%u assignment (%.1f GiB)", lg,
             (double)sc_bytes / (1u << 30));
    synth_free(x);
    return SEALPROV_ERR_NO_MEMORY;
  }
  uint8_t *inp = x->sc + 3 * abc * 32, *aux = inp + ninp * 32;
  bg_fill_scalars(x->sc, 2 * abc, 0, rng);
  bg_make_c(x->sc, x->sc + abc * 32, x->sc + 2 * abc * 32, abc); /* satisfies a*b = c */
  bg_fill_scalars(inp, ninp, 0, rng + 1);
  memset(inp, 0, 32);
  inp[0] = 1; /* ONE */
  bg_fill_scalars(aux, naux, 85, rng + 2);
  x->assignment_ms = sp_cli_now_ms() - t0;
  sealprov_assignment *asg = &x->asg;
  asg->a = x->sc;
  asg->b = x->sc + abc * 32;
  asg->c = x->sc + 2 * abc * 32;
  asg->abc_size = abc;
  asg->inp_assignment = inp;
  asg->inp_size = ninp;
  asg->aux_assignment = aux;
  asg->aux_size = naux;
  asg->a_aux_density = x->da;
  asg->a_aux_bit_len = naux;
  asg->a_aux_popcount = pa;
  asg->b_inp_density = x->dbi;
  asg->b_inp_bit_len = ninp;
  asg->b_inp_popcount = ninp;
  asg->b_aux_density = x->dba;
  asg->b_aux_bit_len = naux;
  asg->b_aux_popcount = pb;

  t0 = sp_cli_now_ms();
  int st = host_points(g, false, &x->h, srs->h_len, 1, err, errlen);
  if (!st) st = host_points(g, false, &x->l, srs->l_len, 1u << 30, err, errlen);
  if (!st) st = host_points(g, false, &x->a, srs->a_len, 2u << 30, err, errlen);
  if (!st) st = host_points(g, false, &x->b1, srs->b_g1_len, 3u << 30, err, errlen);
  if (!st) st = host_points(g, true, &x->b2, srs->b_g2_len, 4u << 30, err, errlen);
  if (!st) st = host_points(g, false, &x->ic, ninp, 5u << 30, err, errlen);
  if (!st) st = host_points(g, false, &x->vk1, 3, 6u << 30, err, errlen);
  if (!st) st = host_points(g, true, &x->vk2, 3, 7u << 30, err, errlen);
  x->params_ms = sp_cli_now_ms() - t0;
  if (st) {
    synth_free(x);
    return st;
  }
  srs->h = x->h;
  srs->l = x->l;
  srs->a = x->a;
  srs->b_g1 = x->b1;
  srs->b_g2 = x->b2;
  srs->vk.ic = x->ic;
  srs->vk.alpha_g1 = ((g1_affine_t *)x->vk1)[0];
  srs->vk.beta_g1 = ((g1_affine_t *)x->vk1)[1];
  srs->vk.delta_g1 = ((g1_affine_t *)x->vk1)[2];
  srs->vk.beta_g2 = ((g2_affine_t *)x->vk2)[0];
  srs->vk.gamma_g2 = ((g2_affine_t *)x->vk2)[1];
  srs->vk.delta_g2 = ((g2_affine_t *)x->vk2)[2];
  return SEALPROV_OK;
}

/* ---- partition ---------------------------------------------------------------------- */

/* One engine device on this (bound) thread, through the engine contract the scheduler
 * follows: prepare (host work, no lock), execute (device work), release. */
static int bench_partition(const bg_opts *o, void *dev, sp_gpu *g, unsigned lg, char *err,
                           size_t errlen) {
  bg_synth *x = calloc(1, sizeof *x);
  if (!x) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  int st = synth_make(x, g, lg, err, errlen);
  if (st) {
    free(x);
    return st;
  }
  sp_task t;
  memset(&t, 0, sizeof t);
  t.srs = &x->srs;
  t.asg = &x->asg;
  t.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  t.cpu_threads = 8;
  fr_from_u64(&t.r, 12345);
  fr_from_u64(&t.s, 67890);
  /* --precompute: off and on in turn in every repeat (the warm-up with tables allowed,
   * so the set's table is made with it); without the flag, the engine's default */
  int modes[BG_MAX_PRE];
  const char *labels[BG_MAX_PRE];
  unsigned nv = 0;
  for (unsigned i = 0; i < o->npre && i < BG_MAX_PRE; i++)
    if (o->pre[i].window == BG_PRE_OFF || o->pre[i].window == BG_PRE_ON) {
      modes[nv] = o->pre[i].window == BG_PRE_ON ? SP_TABLES_AUTO : SP_TABLES_OFF;
      labels[nv++] = o->pre[i].window == BG_PRE_ON ? "on" : "off";
    }
  if (nv == 0) {
    modes[nv] = SP_TABLES_AUTO;
    labels[nv++] = NULL;
  }
  typedef struct {
    double runs[BG_MAX_REPEAT], prep_runs[BG_MAX_REPEAT];
    sp_cuda_timings tms[BG_MAX_REPEAT];
  } bg_part_var;
  bg_part_var *pv = calloc(nv, sizeof *pv);
  if (!pv) {
    synth_free(x);
    free(x);
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  int warm_mode = SP_TABLES_OFF; /* tables made in the warm-up only if a variant uses them */
  for (unsigned j = 0; j < nv; j++)
    if (modes[j] != SP_TABLES_OFF) warm_mode = modes[j];
  double first_prep = 0;
  sp_cuda_timings first;
  memset(&first, 0, sizeof first);
  uint8_t proof[192], proof0[192];
  for (unsigned r = 0; !st && r <= o->repeat; r++)
    for (unsigned j = 0; !st && j < (r == 0 ? 1 : nv); j++) {
      sp_engine_cuda_set_tables(dev, r == 0 ? warm_mode : modes[j]);
      void *prep = NULL;
      double t0 = sp_cli_now_ms();
      if (sp_engine_cuda.prepare) st = sp_engine_cuda.prepare(dev, &t, &prep, err, errlen);
      double t1 = sp_cli_now_ms();
      if (!st) st = sp_engine_cuda.execute(dev, &t, prep, proof, err, errlen);
      double t2 = sp_cli_now_ms();
      /* What prepare made goes also when prepare or execute failed (the scheduler's rule). */
      if (prep && sp_engine_cuda.release) sp_engine_cuda.release(dev, prep);
      if (st) break;
      if (r == 0) {
        first_prep = t1 - t0;
        sp_engine_cuda_last_timings(dev, &first);
        memcpy(proof0, proof, 192);
      } else {
        pv[j].prep_runs[r - 1] = t1 - t0;
        pv[j].runs[r - 1] = t2 - t1;
        sp_engine_cuda_last_timings(dev, &pv[j].tms[r - 1]);
        /* with or without the table, the same r and s give the same bytes */
        if (memcmp(proof, proof0, 192)) {
          snprintf(err, errlen,
                   "partition 2^%u: the proof of run %u (%s) differs from the "
                   "warm-up's",
                   lg, r, labels[j] ? labels[j] : "default");
          st = SEALPROV_ERR_INTERNAL;
        }
      }
    }
  sp_engine_cuda_set_tables(dev, SP_TABLES_AUTO);
  for (unsigned j = 0; !st && j < nv; j++) {
    const double *runs = pv[j].runs, *prep_runs = pv[j].prep_runs;
    unsigned mi = 0;
    bg_median(runs, o->repeat, &mi);
    const sp_cuda_timings *x_t = &pv[j].tms[mi];
    double prep_med = bg_median(prep_runs, o->repeat, NULL);
    sp_cuda_host_memory hm;
    memset(&hm, 0, sizeof hm);
    sp_engine_cuda_host_memory(dev, &hm);
    result_head(o, "partition", lg);
    if (o->json)
      printf(", \"constraints\": %zu, \"aux\": %zu, \"a_len\": %zu, \"b_len\": %zu", x->abc,
             x->naux, x->srs.a_len, x->srs.b_g1_len);
    if (o->json && labels[j])
      printf(", \"precompute\": \"%s\"", labels[j]);
    else if (labels[j])
      printf(" %-4s", labels[j]);
    result_times(o, runs, o->repeat); /* execute(): the device-lock section */
    if (o->json) {
      printf(",\n     \"prepare_median_ms\": %.3f, \"prepare_runs_ms\": ", prep_med);
      print_runs(prep_runs, o->repeat);
      printf(", \"first_run_prepare_ms\": %.3f", first_prep);
      printf(
          ",\n     \"stages_ms\": {\"upload\": %.3f, \"decode_filter_split\": %.3f, "
          "\"h_ntt\": %.3f, \"h_msm\": %.3f, \"batch_add\": %.3f, \"tail_msm_g1\": %.3f, "
          "\"g2\": %.3f, \"host\": %.3f, \"total\": %.3f, \"engine_prepare\": %.3f},\n"
          "     \"staged\": %s, \"streamed\": %s, \"a_early\": %s, \"oom_retries\": %u, "
          "\"pinned_staging\": ",
          x_t->upload_ms, x_t->decode_ms, x_t->h_ntt_ms, x_t->h_msm_ms, x_t->batch_add_ms,
          x_t->tail_msm_ms, x_t->g2_ms, x_t->host_ms, x_t->total_ms, x_t->prepare_ms,
          x_t->staged ? "true" : "false", x_t->streamed ? "true" : "false",
          x_t->a_early ? "true" : "false", x_t->oom_retries);
      print_pinned(o);
      printf(
          ", \"host_pinned_bytes\": %llu,\n     \"first_run_srs_upload_ms\": %.1f, "
          "\"synthetic_params_gen_ms\": %.1f, \"synthetic_assignment_gen_ms\": %.1f, "
          "\"memory_in_use_bytes\": %llu",
          (unsigned long long)(hm.staging_bytes + hm.registered_bytes + hm.bounce_bytes),
          first.srs_upload_ms, x->params_ms, x->assignment_ms,
          (unsigned long long)sp_engine_cuda.memory_in_use(dev));
      printf(
          ",\n     \"tables_used\": %s, \"table_window\": %u, \"table_copies\": %u, "
          "\"table_bytes\": %llu, \"first_run_table_build_ms\": %.1f",
          x_t->tables_used ? "true" : "false", x_t->table_window, x_t->table_copies,
          (unsigned long long)first.precompute_bytes, first.precompute_ms);
    } else {
      printf("  (execute)\n    prepare %.1f ms (median; first run %.1f)\n", prep_med, first_prep);
      printf(
          "    upload %.1f decode %.1f h_ntt %.1f h_msm %.1f batch_add %.1f tail_msm %.1f "
          "g2 %.1f host %.1f (srs upload on first run %.1f ms)\n    %s, parameters %s%s",
          x_t->upload_ms, x_t->decode_ms, x_t->h_ntt_ms, x_t->h_msm_ms, x_t->batch_add_ms,
          x_t->tail_msm_ms, x_t->g2_ms, x_t->host_ms, first.srs_upload_ms,
          x_t->staged ? "staged in pinned memory" : "uploaded from pageable memory",
          x_t->streamed ? "streamed" : "resident",
          x_t->oom_retries ? " (out-of-memory retries)" : "");
      if (x_t->tables_used)
        printf(
            "\n    H MSM over a fixed-base table: window %u, %u copies, %.2f GB (made in %.0f ms "
            "on the first run)",
            x_t->table_window, x_t->table_copies, (double)first.precompute_bytes / 1e9,
            first.precompute_ms);
    }
    result_end(o);
  }
  free(pv);
  sp_engine_cuda.srs_evict(dev, &x->srs);
  synth_free(x);
  free(x);
  return st;
}

/* ---- throughput through the scheduler ------------------------------------------------ */

/* x / y, 0 when y is 0 (no NaN or infinity in the JSON). */
static double ratio_or_0(double x, double y) { return y > 0 ? x / y : 0; }

/* One job of a stream; the notifier thread writes t_done before wait() returns. */
typedef struct tp_job {
  sealprov_job job;
  sealprov_job_id id;
  uint8_t *proofs;
  sealprov_partition_result *results;
  double t0; /* the stream's first submit (sp_now) */
  double t_done;
  atomic_uint *ndone;
  const char *label;
} tp_job;

static void tp_on_complete(void *user, sealprov_job_id id, int status) {
  tp_job *j = user;
  j->t_done = sp_now();
  unsigned k = atomic_fetch_add(j->ndone, 1) + 1;
  fprintf(stderr, "sealprov bench gpu: %s: job %" PRIu64 " ended %s after %.1f s (%u ended)\n",
          j->label, id, status == SEALPROV_OK ? "OK" : sp_status_name(status), j->t_done - j->t0,
          k);
}

/* err becomes "prefix: " + what err said (its end cut if it no longer fits). */
static void bg_prefix_err(char *err, size_t errlen, const char *prefix) {
  size_t n = strlen(prefix) + 2;
  if (errlen <= n + 1) return;
  memmove(err + n, err, errlen - n);
  err[errlen - 1] = '\0';
  memcpy(err, prefix, n - 2);
  err[n - 2] = ':';
  err[n - 1] = ' ';
}

/* Waits for a job, with a line every 30 s so that a long run under a time limit shows
 * where it is. Returns the job's status; err gets the scheduler's message. */
static int tp_wait(sp_sched *s, sealprov_job_id id, const char *label, double t0, char *err,
                   size_t errlen) {
  for (;;) {
    int st = sp_sched_wait(s, id, 30000, err, errlen);
    if (st != SEALPROV_ERR_TIMEOUT) return st;
    fprintf(stderr, "sealprov bench gpu: %s: job %" PRIu64 " still running after %.0f s\n", label,
            id, sp_now() - t0);
  }
}

typedef struct tp_dev {
  unsigned ordinal;
  const sp_gpu_info *info; /* NULL when enumeration did not name it */
  unsigned executes;       /* execute events of the stream's jobs (timeline) */
  unsigned results;        /* partitions whose result names this device */
  uint64_t tasks_done;     /* devices() counter, over the stream */
  double busy_s;           /* sum of execute intervals (device lock held) */
  double first_start, last_end;
  unsigned gaps;
  double max_gap_s, total_gap_s;
  double exec_median_ms, prep_median_ms;
  double lock_wait_s;        /* devices() counter, over the stream */
  uint64_t memory;           /* engine memory in use after the stream (stats) */
  uint64_t host_pinned;      /* host memory it holds page-locked (stats; 0 if not there) */
  uint64_t module_host;      /* host memory the module holds for its partitions (stats) */
  uint64_t module_host_peak; /* the highest during the run (hostmem accountant) */
} tp_dev;

typedef struct tp_run {
  unsigned ngpu, jobs, parts, warm_parts, warm_jobs;
  double warm_s, seconds;
  double win_start, win_end; /* timeline: first queued .. last done of the stream */
  bool timeline_complete;
  /* host memory over the whole run (warm-up included): the process's peak RSS (VmHWM,
   * reset at the start of the run where /proc allows; else the process's maximum), the
   * module's own peak (hostmem accountant), and what the host passed in */
  uint64_t rss_peak, module_peak, passed_bytes;
  bool rss_reset;
  tp_dev dev[BG_MAX_GPUS];
  /* --urgent-after: the urgent job's events (timeline seconds; < 0 missing) */
  struct {
    bool ran;
    unsigned after_done; /* stream partitions done when it was submitted */
    double queued, start, exec_start, exec_end, done;
    int device;
    unsigned starts_between; /* starts of other jobs between its queued and its start */
    unsigned locks_between;  /* stream executes that began after its queued, before its own */
  } urgent;
} tp_run;

typedef struct tp_iv {
  double a, b;
} tp_iv;

static int tp_iv_cmp(const void *x, const void *y) {
  const tp_iv *p = x, *q = y;
  return p->a < q->a ? -1 : p->a > q->a;
}

/* Per-device execute intervals of jobs first..last from the scheduler's timeline
 * (one line per event; an interval is [t - duration, t]), and what they say about
 * idle time between partitions. */
/* One timeline line: "t=... event=... job=... partition=... device=... worker=...
 * duration=..." (sp_sched_timeline); false for any other line. */
typedef struct tl_event {
  double t, du;
  char ev[16];
  uint64_t job;
  int dev;
} tl_event;

static bool tl_parse(const char *line, tl_event *e) {
  unsigned part;
  int wk;
  return sscanf(line,
                "t=%lf event=%15s job=%" SCNu64 " partition=%u device=%d worker=%d duration=%lf",
                &e->t, e->ev, &e->job, &part, &e->dev, &wk, &e->du) == 7;
}

static int tp_timeline(sp_sched *s, tp_run *r, uint64_t first, uint64_t last, char *err,
                       size_t errlen) {
  size_t len = 0;
  int st = sp_sched_timeline(s, NULL, 0, &len);
  char *buf = st ? NULL : malloc(len + 1);
  size_t cap = len / 40 + 1; /* a line is longer than 40 characters */
  tp_iv *ex[BG_MAX_GPUS] = {0};
  double *prep[BG_MAX_GPUS] = {0};
  size_t nex[BG_MAX_GPUS] = {0}, nprep[BG_MAX_GPUS] = {0};
  for (unsigned d = 0; !st && d < r->ngpu; d++) {
    ex[d] = malloc(cap * sizeof *ex[d]);
    prep[d] = malloc(cap * sizeof *prep[d]);
    if (!ex[d] || !prep[d]) st = SEALPROV_ERR_NO_MEMORY;
  }
  if (!st && !buf) st = SEALPROV_ERR_NO_MEMORY;
  if (!st) st = sp_sched_timeline(s, buf, len + 1, &len);
  if (st) {
    snprintf(err, errlen, "reading the scheduler's timeline: %s", sp_status_name(st));
    goto out;
  }
  r->win_start = 1e300;
  r->win_end = -1e300;
  char *save = NULL;
  for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    tl_event e;
    if (!tl_parse(line, &e) || e.job < first || e.job > last) continue;
    double t = e.t, du = e.du;
    const char *ev = e.ev;
    int dev = e.dev;
    if (!strcmp(ev, "queued")) {
      if (t < r->win_start) r->win_start = t;
    } else if (!strcmp(ev, "done")) {
      if (t > r->win_end) r->win_end = t;
    } else if (dev >= 0 && (unsigned)dev < r->ngpu && !strcmp(ev, "execute")) {
      if (nex[dev] < cap) ex[dev][nex[dev]++] = (tp_iv){t - du, t};
    } else if (dev >= 0 && (unsigned)dev < r->ngpu && !strcmp(ev, "prepare")) {
      if (nprep[dev] < cap) prep[dev][nprep[dev]++] = du * 1e3;
    }
  }
  unsigned total = 0;
  for (unsigned d = 0; d < r->ngpu; d++) {
    tp_dev *x = &r->dev[d];
    size_t n = nex[d];
    x->executes = (unsigned)n;
    total += x->executes;
    x->prep_median_ms = median_sorted(prep[d], nprep[d]);
    if (n == 0) continue;
    qsort(ex[d], n, sizeof *ex[d], tp_iv_cmp);
    x->first_start = ex[d][0].a;
    x->last_end = ex[d][0].b;
    for (size_t i = 0; i < n; i++) {
      x->busy_s += ex[d][i].b - ex[d][i].a;
      if (i > 0) {
        /* The device lock serializes executes: a gap is time the GPU had no partition. */
        double gap = ex[d][i].a - ex[d][i - 1].b;
        if (gap < 0) gap = 0;
        x->gaps++;
        x->total_gap_s += gap;
        if (gap > x->max_gap_s) x->max_gap_s = gap;
      }
      if (ex[d][i].b > x->last_end) x->last_end = ex[d][i].b;
    }
    for (size_t i = 0; i < n; i++) prep[d][i] = (ex[d][i].b - ex[d][i].a) * 1e3; /* reuse */
    x->exec_median_ms = median_sorted(prep[d], n);
  }
  r->timeline_complete = total == r->jobs * r->parts && r->win_end > r->win_start;
out:
  for (unsigned d = 0; d < r->ngpu; d++) {
    free(ex[d]);
    free(prep[d]);
  }
  free(buf);
  return st;
}

/* The urgent job's events from the timeline (issue 25 item 2): when it was queued,
 * taken (start), given the device (execute start) and done, and how many other tasks
 * were taken, or got their device, between. */
static void tp_urgent_timeline(sp_sched *s, tp_run *r, uint64_t id) {
  r->urgent.queued = r->urgent.start = r->urgent.exec_start = r->urgent.exec_end = r->urgent.done =
      -1;
  r->urgent.device = -1;
  size_t len = 0;
  if (sp_sched_timeline(s, NULL, 0, &len) != SEALPROV_OK) return;
  char *buf = malloc(len + 1);
  if (!buf || sp_sched_timeline(s, buf, len + 1, &len) != SEALPROV_OK) {
    free(buf);
    return;
  }
  /* the lines, each ended by NUL, read twice: the urgent job's own events first, then
   * the other tasks between its queued and its execute */
  char *end = buf + len;
  for (char *p = buf; p < end; p++)
    if (*p == '\n') *p = 0;
  tl_event e;
  for (char *line = buf; line < end; line += strlen(line) + 1) {
    if (!tl_parse(line, &e)) continue;
    if (e.job == id) {
      if (!strcmp(e.ev, "queued")) r->urgent.queued = e.t;
      if (!strcmp(e.ev, "start")) r->urgent.start = e.t, r->urgent.device = e.dev;
      if (!strcmp(e.ev, "execute")) r->urgent.exec_start = e.t - e.du, r->urgent.exec_end = e.t;
      if (!strcmp(e.ev, "done")) r->urgent.done = e.t;
    } else if (r->urgent.queued >= 0 && r->urgent.start < 0 && !strcmp(e.ev, "start")) {
      r->urgent.starts_between++;
    }
  }
  if (r->urgent.queued >= 0 && r->urgent.exec_start >= 0) {
    for (char *line = buf; line < end; line += strlen(line) + 1) {
      if (!tl_parse(line, &e)) continue;
      if (e.job != id && !strcmp(e.ev, "execute") && e.t - e.du > r->urgent.queued &&
          e.t - e.du < r->urgent.exec_start)
        r->urgent.locks_between++;
    }
  }
  free(buf);
}

/* out[i] = the value of metric NAME{device="i",...} in stats() text (left as it is
 * for devices the text does not have). */
static void tp_metric(const char *text, const char *name, uint64_t *out, unsigned ndev) {
  char key[96];
  int kl = snprintf(key, sizeof key, "%s{device=\"", name);
  for (const char *p = text; (p = strstr(p, key)) != NULL; p += kl) {
    unsigned long d = strtoul(p + kl, NULL, 10);
    const char *v = strstr(p, "} ");
    if (v && d < ndev) out[d] = strtoull(v + 2, NULL, 10);
  }
}

/* Device and pinned host memory per device, from the Prometheus text of stats(). */
static void tp_memory(sp_sched *s, tp_run *r) {
  size_t len = 0;
  if (sp_sched_stats(s, NULL, 0, &len) != SEALPROV_OK) return;
  char *buf = malloc(len + 1);
  if (!buf || sp_sched_stats(s, buf, len + 1, &len) != SEALPROV_OK) {
    free(buf);
    return;
  }
  uint64_t dev_mem[BG_MAX_GPUS] = {0}, pinned[BG_MAX_GPUS] = {0}, mod[BG_MAX_GPUS] = {0};
  tp_metric(buf, "sealprov_device_memory_bytes", dev_mem, r->ngpu);
  /* newer modules only: 0 where the metric is missing */
  tp_metric(buf, "sealprov_device_host_pinned_bytes", pinned, r->ngpu);
  tp_metric(buf, "sealprov_device_module_host_bytes", mod, r->ngpu);
  for (unsigned i = 0; i < r->ngpu; i++) {
    r->dev[i].memory = dev_mem[i];
    r->dev[i].host_pinned = pinned[i];
    r->dev[i].module_host = mod[i];
  }
  free(buf);
}

static uint64_t bg_max_rss_bytes(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
}

/* The process's peak RSS (VmHWM of /proc/self/status) in bytes, 0 if unreadable. */
static uint64_t bg_vmhwm_bytes(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %llu kB", &kb) == 1) break;
  fclose(f);
  return (uint64_t)kb * 1024;
}

/* Starts VmHWM again from the current RSS (Linux >= 4.0: "5" to clear_refs). */
static bool bg_reset_vmhwm(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  bool ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

/* Bytes of the host's assignment arrays (what a sealing host passes per partition). */
static uint64_t bg_assignment_bytes(const sealprov_assignment *a) {
  return ((uint64_t)a->abc_size * 3 + a->inp_size + a->aux_size) * 32 +
         ((a->a_aux_bit_len + 63) / 64 + (a->b_inp_bit_len + 63) / 64 +
          (a->b_aux_bit_len + 63) / 64) *
             8;
}

static const sp_gpu_info *tp_info(const sp_gpu_info *infos, int ninfos, unsigned ordinal) {
  for (int i = 0; i < ninfos; i++)
    if (infos[i].ordinal == (int)ordinal) return &infos[i];
  return NULL;
}

/* Starts a scheduler on the first ngpu of o->ordinals, runs the warm-up job(s), then
 * njobs jobs of o->partitions partitions submitted at once, and fills r. */
static int tp_run_stream(const bg_opts *o, bg_synth *x, unsigned ngpu, unsigned njobs,
                         const sp_gpu_info *infos, int ninfos, tp_run *r, char *err,
                         size_t errlen) {
  memset(r, 0, sizeof *r);
  r->ngpu = ngpu;
  r->jobs = njobs;
  r->parts = o->partitions;
  r->warm_parts = o->warmup ? o->warmup : ngpu * o->workers;
  char label[64];
  snprintf(label, sizeof label, "2^%u on %u GPU%s", x->lg, ngpu, ngpu == 1 ? "" : "s");

  /* The device table the INI would give: [gpuK] type = cuda, device = ordinal. */
  sp_config *cfg = calloc(1, sizeof *cfg);
  if (!cfg) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  snprintf(cfg->path, sizeof cfg->path, "bench gpu --throughput (in-memory device table)");
  cfg->log_level = SEALPROV_LOG_INFO;
  cfg->verify_proofs = false; /* synthetic parameters: no proof could verify */
  cfg->max_jobs = 0;
  cfg->max_partitions = 0;
  /* A failure ends the benchmark with its message; retries elsewhere would only
   * hide it inside the figures. */
  cfg->quarantine_after = 0;
  cfg->max_attempts = 1;
  /* ~6 events per partition attempt (up to 3 warm-ups), one per worker bind, margin. */
  cfg->timeline_events =
      8 * (3 * r->warm_parts + njobs * o->partitions) + 8 * ngpu * o->workers + 64 + 16;
  cfg->ndevices = ngpu;
  const sp_engine_ops *engines[BG_MAX_GPUS];
  for (unsigned i = 0; i < ngpu; i++) {
    sp_device_cfg *d = &cfg->devices[i];
    unsigned ord = o->ordinals[i];
    const sp_gpu_info *gi = tp_info(infos, ninfos, ord);
    d->index = i;
    snprintf(d->section, sizeof d->section, "gpu%u", ord);
    d->type = SP_DEVICE_CUDA;
    d->selector_kind = SP_SELECT_ORDINAL;
    snprintf(d->selector, sizeof d->selector, "%u", ord);
    d->selector_ordinal = (int)ord;
    d->workers = o->workers;
    d->pinned_staging = o->pinned;
    d->ordinal = (int)ord;
    if (gi) {
      snprintf(d->name, sizeof d->name, "%s", gi->name);
      snprintf(d->uuid, sizeof d->uuid, "%s", gi->uuid);
      snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", gi->pci_bus_id);
    }
    engines[i] = &sp_engine_cuda;
    r->dev[i].ordinal = ord;
    r->dev[i].info = gi;
  }
  const sp_sched_hooks hooks = {.check_assignment = sp_groth16_check_assignment};
  sp_sched *s = NULL;
  /* host memory from here: the synthetic data exist already, so the peak RSS is what
   * the host passed in plus what the module holds at its highest */
  r->rss_reset = bg_reset_vmhwm();
  r->passed_bytes = bg_params_bytes(&x->srs) + bg_assignment_bytes(&x->asg);
  int st = sp_sched_create(cfg, engines, &hooks, &s, err, errlen);
  free(cfg);
  if (st) return st;
  sp_hostmem_reset_peak(sp_sched_hostmem(s));

  /* Every partition of every job is the same assignment: the module only reads it. */
  unsigned nasg = r->warm_parts > o->partitions ? r->warm_parts : o->partitions;
  sealprov_assignment *asg = malloc(nasg * sizeof *asg);
  /* jobs[njobs]: the warm-up; jobs[njobs + 1]: the urgent job of --urgent-after */
  tp_job *jobs = calloc(njobs + 2, sizeof *jobs);
  atomic_uint ndone;
  atomic_init(&ndone, 0);
  if (!asg || !jobs) {
    snprintf(err, errlen, "out of host memory");
    st = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  for (unsigned k = 0; k < nasg; k++) asg[k] = x->asg;
  for (unsigned k = 0; k <= njobs + 1; k++) {
    tp_job *j = &jobs[k];
    unsigned np = k < njobs ? o->partitions : k == njobs ? r->warm_parts : 1;
    j->proofs = malloc((size_t)np * SEALPROV_PROOF_BYTES);
    j->results = calloc(np, sizeof *j->results);
    if (!j->proofs || !j->results) {
      snprintf(err, errlen, "out of host memory");
      st = SEALPROV_ERR_NO_MEMORY;
      goto out;
    }
    j->job.struct_size = sizeof j->job;
    j->job.srs = (sealprov_srs *)&x->srs;
    j->job.partitions = asg;
    j->job.num_partitions = np;
    j->job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
    j->job.proofs_out = j->proofs;
    j->job.results = j->results;
    j->job.on_complete = tp_on_complete;
    j->job.user = j;
    j->ndone = &ndone;
    j->label = label;
    if (k == njobs + 1) j->job.priority = 100; /* above the stream's 0 */
  }

  /* Warm-up: makes the parameters resident on every GPU (the first execute on a device
   * uploads them, ~6 s at 2^27) and lets every worker run once. Repeated if some GPU
   * got no partition, which its workers' timing could in principle allow. */
  double w0 = sp_now();
  tp_job *w = &jobs[njobs];
  fprintf(stderr, "sealprov bench gpu: %s: warm-up job of %u partitions\n", label, r->warm_parts);
  for (;;) {
    w->t0 = sp_now();
    st = sp_sched_submit(s, &w->job, &w->id, err, errlen);
    if (!st) st = tp_wait(s, w->id, label, w->t0, err, errlen);
    if (st) {
      char pre[128];
      snprintf(pre, sizeof pre, "%s: warm-up job: %s", label, sp_status_name(st));
      bg_prefix_err(err, errlen, pre);
      goto out;
    }
    r->warm_jobs++;
    sealprov_device_info di[BG_MAX_GPUS];
    memset(di, 0, sizeof di); /* struct_size 0: entries of our own size */
    size_t nd = 0;
    sp_sched_devices(s, di, ngpu, &nd);
    unsigned idle = ngpu;
    for (unsigned i = 0; i < ngpu && i < nd; i++)
      if (di[i].tasks_done > 0) idle--;
    if (idle == 0) break;
    if (r->warm_jobs == 3) {
      snprintf(err, errlen,
               "%s: after 3 warm-up jobs of %u partitions %u GPU(s) had run none, so their "
               "parameters are not resident; raise --warmup",
               label, r->warm_parts, idle);
      st = SEALPROV_ERR_INTERNAL;
      goto out;
    }
  }
  r->warm_s = sp_now() - w0;
  atomic_store(&ndone, 0);
  sealprov_device_info before[BG_MAX_GPUS], after[BG_MAX_GPUS];
  memset(before, 0, sizeof before);
  memset(after, 0, sizeof after);
  size_t nd = 0;
  sp_sched_devices(s, before, ngpu, &nd);

  /* The stream: every job submitted at once, as a daemon with a backlog would. */
  fprintf(stderr, "sealprov bench gpu: %s: %u job(s) of %u partitions\n", label, njobs,
          o->partitions);
  double t0 = sp_now();
  unsigned submitted = 0;
  for (unsigned k = 0; k < njobs; k++) {
    jobs[k].t0 = t0;
    st = sp_sched_submit(s, &jobs[k].job, &jobs[k].id, err, errlen);
    if (st) {
      char pre[128];
      snprintf(pre, sizeof pre, "%s: submit of job %u: %s", label, k + 1, sp_status_name(st));
      bg_prefix_err(err, errlen, pre);
      break;
    }
    submitted++;
  }
  /* --urgent-after K: once K partitions of the stream are done, one partition of a
   * higher priority, as a WinningPoSt arriving during sealing (issue 25 item 2). */
  tp_job *u = &jobs[njobs + 1];
  if (!st && o->urgent_after > 0) {
    for (;;) {
      sealprov_device_info now[BG_MAX_GPUS];
      memset(now, 0, sizeof now);
      size_t nn = 0;
      sp_sched_devices(s, now, ngpu, &nn);
      uint64_t done = 0;
      for (unsigned i = 0; i < ngpu && i < nn; i++)
        done += now[i].tasks_done - before[i].tasks_done;
      if (done >= o->urgent_after || atomic_load(&ndone) >= submitted) {
        r->urgent.after_done = (unsigned)done;
        break;
      }
      struct timespec ts = {0, 2000000};
      nanosleep(&ts, NULL);
    }
    u->t0 = sp_now();
    st = sp_sched_submit(s, &u->job, &u->id, err, errlen);
    if (st) {
      bg_prefix_err(err, errlen, "the urgent job: submit");
    } else {
      fprintf(stderr,
              "sealprov bench gpu: %s: urgent job %" PRIu64
              " (1 partition, priority 100) "
              "submitted after %u stream partitions\n",
              label, u->id, r->urgent.after_done);
      r->urgent.ran = true;
    }
  }
  /* Every submitted job is waited on (its memory is ours until then); after the first
   * failure the rest are cancelled so the run ends soon. */
  for (unsigned k = 0; k < submitted; k++) {
    char msg[512] = "";
    int js = tp_wait(s, jobs[k].id, label, t0, msg, sizeof msg);
    if (js != SEALPROV_OK && st == SEALPROV_OK) {
      st = js;
      snprintf(err, errlen, "%s: job %u of %u (id %" PRIu64 "): %s: %s", label, k + 1, njobs,
               jobs[k].id, sp_status_name(js), msg);
      for (unsigned q = k + 1; q < submitted; q++) sp_sched_cancel(s, jobs[q].id, NULL, 0);
    }
  }
  if (r->urgent.ran) {
    char msg[512] = "";
    int us = tp_wait(s, u->id, label, u->t0, msg, sizeof msg);
    if (us != SEALPROV_OK && st == SEALPROV_OK) {
      st = us;
      snprintf(err, errlen, "%s: the urgent job: %s: %s", label, sp_status_name(us), msg);
    }
    if (!st && u->results[0].device >= 0 && (unsigned)u->results[0].device < ngpu)
      r->dev[u->results[0].device].results++; /* in tasks_done too */
  }
  if (st) goto out;
  double t_end = t0;
  for (unsigned k = 0; k < njobs; k++) {
    if (jobs[k].t_done > t_end) t_end = jobs[k].t_done;
    for (unsigned p = 0; p < o->partitions; p++) {
      const sealprov_partition_result *pr = &jobs[k].results[p];
      if (pr->status != SEALPROV_OK || pr->device < 0 || (unsigned)pr->device >= ngpu) {
        snprintf(err, errlen,
                 "%s: job %u partition %u: status %s on device %d although the job "
                 "ended OK",
                 label, k + 1, p, sp_status_name(pr->status), pr->device);
        st = SEALPROV_ERR_INTERNAL;
        goto out;
      }
      r->dev[pr->device].results++;
    }
  }
  r->seconds = t_end - t0;
  sp_sched_devices(s, after, ngpu, &nd);
  for (unsigned i = 0; i < ngpu && i < nd; i++) {
    r->dev[i].tasks_done = after[i].tasks_done - before[i].tasks_done;
    r->dev[i].lock_wait_s = after[i].lock_wait_seconds - before[i].lock_wait_seconds;
    if (r->dev[i].tasks_done != r->dev[i].results) {
      snprintf(err, errlen,
               "%s: device %u counted %llu partitions but the job results name it "
               "for %u",
               label, i, (unsigned long long)r->dev[i].tasks_done, r->dev[i].results);
      st = SEALPROV_ERR_INTERNAL;
      goto out;
    }
  }
  st = tp_timeline(s, r, jobs[0].id, jobs[njobs - 1].id, err, errlen);
  if (r->urgent.ran) tp_urgent_timeline(s, r, u->id);
  tp_memory(s, r);
  {
    sp_hostmem_stats hs;
    sp_hostmem_get(sp_sched_hostmem(s), &hs);
    r->module_peak = hs.peak;
    for (unsigned i = 0; i < ngpu && i < SP_HOSTMEM_DEVICES; i++)
      r->dev[i].module_host_peak = hs.dev_peak[i];
    r->rss_peak = r->rss_reset ? bg_vmhwm_bytes() : bg_max_rss_bytes();
  }
out:
  sp_sched_destroy(s); /* joins the workers; the engine frees the resident parameters */
  if (jobs)
    for (unsigned k = 0; k <= njobs + 1; k++) {
      free(jobs[k].proofs);
      free(jobs[k].results);
    }
  free(jobs);
  free(asg);
  return st;
}

/* Partitions per second from the first submit to the last completion. */
static double tp_pps(const tp_run *r) { return ratio_or_0((double)r->jobs * r->parts, r->seconds); }

/* The same without the pipeline's fill and drain: each GPU's partitions over the time
 * between its first execute's start and its last's end, summed over the GPUs. A short
 * stream (one 2^27 job) pays the first prepare (lead-in) and the last partition's
 * imbalance (tail) once; this rate is what a long stream tends to. */
static double tp_steady_pps(const tp_run *r) {
  double sum = 0;
  for (unsigned i = 0; i < r->ngpu; i++) {
    const tp_dev *d = &r->dev[i];
    if (d->executes) sum += ratio_or_0(d->executes, d->last_end - d->first_start);
  }
  return sum;
}

static void tp_print_ratio(double v) {
  if (v > 0)
    printf("%.3f", v);
  else
    printf("null");
}

/* The urgent job: ms from its queued event to t; -1 when an event is missing. */
#define TP_MS(t) ((t) >= 0 && r->urgent.queued >= 0 ? ((t)-r->urgent.queued) * 1e3 : -1.0)

static void tp_print(const bg_opts *o, const bg_synth *x, const tp_run *r, double pps1,
                     double steady1) {
  unsigned total = r->jobs * r->parts;
  double pps = tp_pps(r), steady = tp_steady_pps(r);
  double steady_scale = r->ngpu == 1 ? 1.0 : ratio_or_0(steady, steady1);
  double window = r->win_end > r->win_start ? r->win_end - r->win_start : 0;
  double scale = r->ngpu > 1 && pps1 > 0 ? pps / pps1 : (r->ngpu == 1 ? 1.0 : 0);
  uint64_t params = bg_params_bytes(&x->srs);
  if (o->json) {
    result_head(o, "throughput", x->lg);
    printf(", \"constraints\": %zu, \"gpus\": %u, \"ordinals\": [", x->abc, r->ngpu);
    for (unsigned i = 0; i < r->ngpu; i++) printf("%s%u", i ? ", " : "", r->dev[i].ordinal);
    printf(
        "], \"workers_per_gpu\": %u,\n     \"jobs\": %u, \"partitions_per_job\": %u, "
        "\"partitions\": %u, \"seconds\": %.3f, \"partitions_per_s\": %.4f, "
        "\"s_per_partition\": %.4f, \"ratio_to_1_gpu\": ",
        o->workers, r->jobs, r->parts, total, r->seconds, pps, ratio_or_0(r->seconds, total));
    tp_print_ratio(scale);
    printf(",\n     \"steady_partitions_per_s\": %.4f, \"steady_ratio_to_1_gpu\": ", steady);
    tp_print_ratio(steady_scale);
    printf(
        ",\n     \"warmup_jobs\": %u, \"warmup_partitions\": %u, \"warmup_s\": %.3f, "
        "\"timeline_window_s\": %.3f, \"timeline_complete\": %s,\n     \"self_check\": false, "
        "\"note\": \"synthetic parameters (random points, not a setup): proofs cannot verify\",\n"
        "     \"synthetic_params_gen_ms\": %.1f, \"synthetic_assignment_gen_ms\": %.1f, "
        "\"params_bytes\": %llu, \"host_max_rss_bytes\": %llu,\n     "
        "\"host_peak_rss_bytes\": %llu, \"host_peak_rss_since\": \"%s\", "
        "\"host_passed_bytes\": %llu, \"module_host_peak_bytes\": %llu, "
        "\"module_host_peak_per_gpu_bytes\": %llu, \"pinned_staging\": ",
        r->warm_jobs, r->warm_parts, r->warm_s, window, r->timeline_complete ? "true" : "false",
        x->params_ms, x->assignment_ms, (unsigned long long)params,
        (unsigned long long)bg_max_rss_bytes(), (unsigned long long)r->rss_peak,
        r->rss_reset ? "run" : "process", (unsigned long long)r->passed_bytes,
        (unsigned long long)r->module_peak,
        (unsigned long long)(r->ngpu ? r->module_peak / r->ngpu : 0));
    print_pinned(o);
    if (r->urgent.ran) {
      double exec_med = r->ngpu ? r->dev[0].exec_median_ms : 0;
      printf(
          ",\n     \"urgent\": {\"priority\": 100, \"partitions\": 1, "
          "\"submitted_after_partitions\": %u, "
          "\"device\": %d,\n       \"queued_to_start_ms\": %.1f, \"queued_to_execute_ms\": %.1f, "
          "\"queued_to_done_ms\": %.1f, \"execute_ms\": %.1f,\n       "
          "\"stream_execute_median_ms\": %.1f, \"start_within_one_execute\": %s, "
          "\"other_starts_between\": %u, \"stream_executes_before_it\": %u}",
          r->urgent.after_done, r->urgent.device, TP_MS(r->urgent.start),
          TP_MS(r->urgent.exec_start), TP_MS(r->urgent.done),
          r->urgent.exec_end >= 0 ? (r->urgent.exec_end - r->urgent.exec_start) * 1e3 : -1.0,
          exec_med,
          TP_MS(r->urgent.start) >= 0 && TP_MS(r->urgent.start) <= exec_med ? "true" : "false",
          r->urgent.starts_between, r->urgent.locks_between);
    }
    printf(",\n     \"devices\": [");
    for (unsigned i = 0; i < r->ngpu; i++) {
      const tp_dev *d = &r->dev[i];
      double span = d->executes ? d->last_end - d->first_start : 0;
      printf("%s\n      {\"device\": %u, \"ordinal\": %u, \"name\": ", i ? "," : "", i, d->ordinal);
      sp_cli_json_str(stdout, d->info ? d->info->name : "");
      printf(", \"pci_bus_id\": ");
      sp_cli_json_str(stdout, d->info ? d->info->pci_bus_id : "");
      printf(", \"uuid\": ");
      sp_cli_json_str(stdout, d->info ? d->info->uuid : "");
      printf(
          ",\n       \"partitions\": %u, \"timeline_executes\": %u, \"busy_s\": %.3f, \"span_s\": "
          "%.3f, "
          "\"busy_fraction\": %.4f, \"busy_fraction_of_window\": %.4f,\n       "
          "\"idle_between_partitions_fraction\": %.4f, \"idle_gaps\": %u, "
          "\"max_idle_gap_ms\": %.3f, \"total_idle_gap_ms\": %.3f, \"lead_in_ms\": %.1f, "
          "\"tail_ms\": %.1f,\n       \"execute_median_ms\": %.1f, \"prepare_median_ms\": %.1f, "
          "\"lock_wait_s\": %.3f, \"memory_in_use_bytes\": %llu, \"host_pinned_bytes\": %llu, "
          "\"module_host_bytes\": %llu, \"module_host_peak_bytes\": %llu, "
          "\"params_resident\": %s}",
          d->results, d->executes, d->busy_s, span, ratio_or_0(d->busy_s, span),
          ratio_or_0(d->busy_s, window), ratio_or_0(d->total_gap_s, span), d->gaps,
          d->max_gap_s * 1e3, d->total_gap_s * 1e3,
          d->executes && window > 0 ? (d->first_start - r->win_start) * 1e3 : 0,
          d->executes && window > 0 ? (r->win_end - d->last_end) * 1e3 : 0, d->exec_median_ms,
          d->prep_median_ms, d->lock_wait_s, (unsigned long long)d->memory,
          (unsigned long long)d->host_pinned, (unsigned long long)d->module_host,
          (unsigned long long)d->module_host_peak, d->memory >= params ? "true" : "false");
    }
    printf("]}");
    fflush(stdout);
    return;
  }
  printf(
      "throughput 2^%u (%zu constraints), %u GPU%s x %u workers: %u job%s x %u partitions in "
      "%.2f s = %.4f partitions/s (%.3f s each)",
      x->lg, x->abc, r->ngpu, r->ngpu == 1 ? "" : "s", o->workers, r->jobs, r->jobs == 1 ? "" : "s",
      r->parts, r->seconds, pps, ratio_or_0(r->seconds, total));
  if (r->ngpu > 1 && scale > 0) printf("; %.3f x 1 GPU (target >= 1.9)", scale);
  printf("\n  steady state (each GPU from its first to its last partition): %.4f partitions/s",
         steady);
  if (r->ngpu > 1 && steady_scale > 0) printf(", %.3f x 1 GPU", steady_scale);
  printf("\n  warm-up %.1f s (%u job%s of %u partitions); timeline window %.2f s%s\n", r->warm_s,
         r->warm_jobs, r->warm_jobs == 1 ? "" : "s", r->warm_parts, window,
         r->timeline_complete ? "" : " (INCOMPLETE: events missing)");
  printf(
      "  host memory: peak RSS %.2f GB (since the %s's start); passed in by the host %.2f GB; "
      "held by the module at its peak %.2f GB (%.2f GB per GPU); staging ",
      (double)r->rss_peak / 1e9, r->rss_reset ? "run" : "process", (double)r->passed_bytes / 1e9,
      (double)r->module_peak / 1e9, r->ngpu ? (double)r->module_peak / r->ngpu / 1e9 : 0.0);
  print_pinned(o);
  printf("\n");
  if (r->urgent.ran)
    printf(
        "  urgent job (1 partition, priority 100, after %u stream partitions) on device %d: "
        "queued -> start %.1f ms, -> execute %.1f ms, -> done %.1f ms; %u other start(s) and %u "
        "stream execute(s) between\n",
        r->urgent.after_done, r->urgent.device, TP_MS(r->urgent.start), TP_MS(r->urgent.exec_start),
        TP_MS(r->urgent.done), r->urgent.starts_between, r->urgent.locks_between);
  for (unsigned i = 0; i < r->ngpu; i++) {
    const tp_dev *d = &r->dev[i];
    double span = d->executes ? d->last_end - d->first_start : 0;
    printf(
        "  device %u (ordinal %u%s%s): %u partitions; busy %.1f %% of its span %.2f s, %.1f %% "
        "of the window\n    idle between partitions %.2f %% (target < 5 %%): %u gaps, max "
        "%.1f ms, total %.1f ms; lead-in %.0f ms, tail %.0f ms\n    execute median %.1f ms, "
        "prepare median %.1f ms; device memory %.2f GB%s, host pinned %.2f GB\n",
        i, d->ordinal, d->info ? ", " : "", d->info ? d->info->pci_bus_id : "", d->results,
        100 * ratio_or_0(d->busy_s, span), span, 100 * ratio_or_0(d->busy_s, window),
        100 * ratio_or_0(d->total_gap_s, span), d->gaps, d->max_gap_s * 1e3, d->total_gap_s * 1e3,
        d->executes && window > 0 ? (d->first_start - r->win_start) * 1e3 : 0,
        d->executes && window > 0 ? (r->win_end - d->last_end) * 1e3 : 0, d->exec_median_ms,
        d->prep_median_ms, (double)d->memory / 1e9,
        d->memory >= params ? " (parameters resident)" : " (parameters NOT resident)",
        (double)d->host_pinned / 1e9);
  }
  fflush(stdout);
}

/* --progress: the runs done of all that were asked for (an MSM or NTT group counts one
 * a size, a partition size one, a throughput stream one). */
static sp_cli_meter bg_meter;
static double bg_done, bg_total;
static void bg_step(double n) {
  bg_done += n;
  sp_cli_meter_step(&bg_meter, bg_done, bg_total, "runs");
}

static int bench_throughput(const bg_opts *o, const sp_gpu_info *infos, int ninfos, char *err,
                            size_t errlen) {
  /* The scheduler logs through the host's callback: here, stderr. */
  const sealprov_host host = {sizeof(sealprov_host), SEALPROV_LOG_INFO, sp_cli_module_log, NULL};
  sp_log_set_host(&host);
  int st = SEALPROV_OK;
  for (unsigned i = 0; !st && i < o->ntp; i++) {
    unsigned lg = o->tp[i], njobs = o->njobs == 1 ? o->jobs[0] : o->jobs[i];
    bg_synth *x = calloc(1, sizeof *x);
    if (!x) {
      snprintf(err, errlen, "out of host memory");
      st = SEALPROV_ERR_NO_MEMORY;
      break;
    }
    fprintf(
        stderr,
        "sealprov bench gpu: 2^%u: making the synthetic parameters (on GPU %u) and assignment\n",
        lg, o->ordinals[0]);
    /* A context only for making the points, gone before any scheduler starts so that
     * each GPU's memory is all the engine's. */
    int confirmed = -1;
    sp_gpu *g = NULL;
    st = sp_gpu_bind((int)o->ordinals[0], &confirmed, err, errlen);
    if (!st) st = sp_gpu_create((int)o->ordinals[0], 0, &g, err, errlen);
    if (!st) st = synth_make(x, g, lg, err, errlen);
    sp_gpu_destroy(g);
    if (st) {
      free(x);
      break;
    }
    fprintf(stderr,
            "sealprov bench gpu: 2^%u: parameters %.1f GB in %.1f s, assignment in %.1f s\n", lg,
            (double)bg_params_bytes(&x->srs) / 1e9, x->params_ms / 1e3, x->assignment_ms / 1e3);
    if (!o->json)
      printf(
          "2^%u: synthetic parameters (random points, not a setup): proofs cannot verify and "
          "are not self-checked\n",
          lg);
    tp_run *runs = calloc(o->ngpus, sizeof *runs);
    double pps1 = 0, steady1 = 0;
    if (!runs) {
      snprintf(err, errlen, "out of host memory");
      st = SEALPROV_ERR_NO_MEMORY;
    }
    /* each staging mode of --pinned-staging in turn (the last one's runs feed the
     * scaling summary below) */
    unsigned nmodes = o->npinned ? o->npinned : 1;
    for (unsigned mi = 0; !st && mi < nmodes; mi++) {
      bg_opts om = *o;
      if (o->npinned) om.pinned = o->pinned_list[mi];
      pps1 = steady1 = 0;
      for (unsigned k = 0; !st && k < o->ngpus; k++) {
        st = tp_run_stream(&om, x, o->gpus[k], njobs, infos, ninfos, &runs[k], err, errlen);
        if (st) break;
        if (o->gpus[k] == 1) {
          pps1 = tp_pps(&runs[k]);
          steady1 = tp_steady_pps(&runs[k]);
        }
        tp_print(&om, x, &runs[k], pps1, steady1);
        bg_step(1.0 / nmodes);
      }
    }
    /* With --gpus 2,1 the ratio is known only now. */
    if (!st && pps1 > 0 && o->ngpus > 1) {
      if (o->json) {
        printf(",\n    {\"op\": \"throughput_scaling\", \"log_n\": %u, \"gpus\": [", lg);
        for (unsigned k = 0; k < o->ngpus; k++) printf("%s%u", k ? ", " : "", o->gpus[k]);
        printf("], \"partitions_per_s\": [");
        for (unsigned k = 0; k < o->ngpus; k++) printf("%s%.4f", k ? ", " : "", tp_pps(&runs[k]));
        printf("], \"ratio_to_1_gpu\": [");
        for (unsigned k = 0; k < o->ngpus; k++)
          printf("%s%.3f", k ? ", " : "", ratio_or_0(tp_pps(&runs[k]), pps1));
        printf("],\n     \"steady_partitions_per_s\": [");
        for (unsigned k = 0; k < o->ngpus; k++)
          printf("%s%.4f", k ? ", " : "", tp_steady_pps(&runs[k]));
        printf("], \"steady_ratio_to_1_gpu\": [");
        for (unsigned k = 0; k < o->ngpus; k++)
          printf("%s%.3f", k ? ", " : "", ratio_or_0(tp_steady_pps(&runs[k]), steady1));
        printf("]}");
      } else {
        printf("scaling 2^%u:", lg);
        for (unsigned k = 0; k < o->ngpus; k++) {
          double pps = tp_pps(&runs[k]), steady = tp_steady_pps(&runs[k]);
          printf(" %u GPU%s %.4f/s (%.3f x; steady %.4f/s, %.3f x)", o->gpus[k],
                 o->gpus[k] == 1 ? "" : "s", pps, ratio_or_0(pps, pps1), steady,
                 ratio_or_0(steady, steady1));
        }
        printf("\n");
      }
      fflush(stdout);
    }
    free(runs);
    synth_free(x);
    free(x);
  }
  sp_log_set_host(NULL);
  return st;
}

/* ---- command ---------------------------------------------------------------------- */

int sp_cmd_bench_gpu(int argc, char **argv) {
  bg_opts o;
  memset(&o, 0, sizeof o);
  o.repeat = 5;
  o.partitions = 10; /* a 32 GiB PoRep C2 job */
  o.workers = 2;     /* the production default per GPU */
  parse_list("20,22,24,26", o.msm1, &o.nmsm1, 1, 28);
  parse_list("22,24", o.msm2, &o.nmsm2, 1, 28);
  parse_list("24,26,27", o.ntt, &o.nntt, 1, 28);
  parse_list("20,24,27", o.part, &o.npart, 8, 28);
  parse_list("1,2", o.gpus, &o.ngpus, 1, BG_MAX_GPUS);
  parse_list("3", o.jobs, &o.njobs, 1, BG_MAX_JOBS);
  static const struct option lo[] = {{"device", required_argument, 0, 'd'},
                                     {"repeat", required_argument, 0, 'r'},
                                     {"window", required_argument, 0, 'w'},
                                     {"msm-g1", required_argument, 0, '1'},
                                     {"msm-g2", required_argument, 0, '2'},
                                     {"ntt", required_argument, 0, 'n'},
                                     {"partition", required_argument, 0, 'p'},
                                     {"quick", no_argument, 0, 'Q'},
                                     {"throughput", required_argument, 0, 't'},
                                     {"gpus", required_argument, 0, 'g'},
                                     {"jobs", required_argument, 0, 'J'},
                                     {"partitions", required_argument, 0, 'P'},
                                     {"workers", required_argument, 0, 'W'},
                                     {"warmup", required_argument, 0, 'u'},
                                     {"ordinals", required_argument, 0, 'o'},
                                     {"pinned-staging", required_argument, 0, 'S'},
                                     {"precompute", required_argument, 0, 'X'},
                                     {"urgent-after", required_argument, 0, 'U'},
                                     {0, 0, 0, 0}};
  sp_cli_args args = {.usage = bg_usage, .takes = SP_CLI_JSON, .opts = lo};
  int c;
  while ((c = sp_cli_getopt(&args, argc, argv)) > 0) {
    bool ok = true;
    switch (c) {
      case 'd':
        o.ordinal = atoi(optarg);
        ok = o.ordinal >= 0;
        break;
      case 'r':
        o.repeat = (unsigned)atoi(optarg);
        ok = o.repeat >= 1 && o.repeat <= BG_MAX_REPEAT;
        break;
      case 'w':
        o.window = (unsigned)atoi(optarg);
        ok = o.window >= 2 && o.window <= 24;
        break;
      case '1':
        ok = parse_list(optarg, o.msm1, &o.nmsm1, 1, 28);
        o.groups_named = true;
        break;
      case '2':
        ok = parse_list(optarg, o.msm2, &o.nmsm2, 1, 28);
        o.groups_named = true;
        break;
      case 'n':
        ok = parse_list(optarg, o.ntt, &o.nntt, 1, 28);
        o.groups_named = true;
        break;
      case 'p':
        ok = parse_list(optarg, o.part, &o.npart, 8, 28);
        o.groups_named = true;
        break;
      case 'Q':
        parse_list("16,18", o.msm1, &o.nmsm1, 1, 28);
        parse_list("14", o.msm2, &o.nmsm2, 1, 28);
        parse_list("16,20", o.ntt, &o.nntt, 1, 28);
        parse_list("14", o.part, &o.npart, 8, 28);
        o.groups_named = true;
        break;
      case 't': ok = parse_list(optarg, o.tp, &o.ntp, 8, 28); break;
      case 'g': ok = parse_list(optarg, o.gpus, &o.ngpus, 1, BG_MAX_GPUS) && o.ngpus > 0; break;
      case 'J': ok = parse_list(optarg, o.jobs, &o.njobs, 1, BG_MAX_JOBS) && o.njobs > 0; break;
      case 'P':
        o.partitions = (unsigned)atoi(optarg);
        ok = o.partitions >= 1 && o.partitions <= BG_MAX_PARTITIONS;
        break;
      case 'W':
        o.workers = (unsigned)atoi(optarg);
        ok = o.workers >= 1 && o.workers <= 16;
        break;
      case 'u':
        o.warmup = (unsigned)atoi(optarg);
        ok = o.warmup >= 1 && o.warmup <= BG_MAX_PARTITIONS;
        break;
      case 'U':
        o.urgent_after = (unsigned)atoi(optarg);
        ok = o.urgent_after >= 1;
        break;
      case 'o':
        ok = parse_list_cap(optarg, o.ordinals, &o.nordinals, BG_MAX_GPUS, 0, 1023) &&
             o.nordinals > 0;
        break;
      case 'S': ok = parse_pinned_list(optarg, &o); break;
      case 'X': ok = parse_precompute(optarg, &o); break;
    }
    if (!ok) return sp_cli_usage_error(&args, "bad value for an option: %s", optarg ? optarg : "");
  }
  if (c < 0) return args.status;
  if (!sp_cli_operands(&args, argc, argv, 0, 0, "")) return args.status;
  o.json = args.json;
  /* --throughput alone measures throughput only; named kernel groups run as well. */
  if (o.ntp > 0 && !o.groups_named) o.nmsm1 = o.nmsm2 = o.nntt = o.npart = 0;
  unsigned need = 0; /* GPUs the throughput runs use */
  if (o.ntp > 0) {
    if (o.njobs != 1 && o.njobs != o.ntp) {
      sp_cli_error("--jobs has %u values for %u --throughput sizes (give one, or one per size)",
                   o.njobs, o.ntp);
      return 2;
    }
    for (unsigned k = 0; k < o.ngpus; k++) need = o.gpus[k] > need ? o.gpus[k] : need;
    if (o.nordinals == 0)
      for (unsigned k = 0; k < need; k++) o.ordinals[o.nordinals++] = k;
    if (o.nordinals < need) {
      sp_cli_error("--gpus asks for %u GPUs but --ordinals names %u", need, o.nordinals);
      return 2;
    }
    for (unsigned a = 0; a < need; a++)
      for (unsigned b = a + 1; b < need; b++)
        if (o.ordinals[a] == o.ordinals[b]) {
          sp_cli_error(
              "--ordinals names GPU %u twice (two devices on one GPU would share it, "
              "not scale)",
              o.ordinals[a]);
          return 2;
        }
  }
  bool kernels = o.nmsm1 || o.nmsm2 || o.nntt || o.npart;
  int visible = sp_gpu_device_count();
  if (kernels && visible <= o.ordinal) {
    sp_cli_error("no CUDA device %d (%d visible)", o.ordinal, visible);
    return 1;
  }
  for (unsigned k = 0; k < need; k++)
    if ((int)o.ordinals[k] >= visible) {
      sp_cli_error("--throughput with --gpus up to %u needs CUDA device %u, but %d %s visible",
                   need, o.ordinals[k], visible, visible == 1 ? "is" : "are");
      return 1;
    }
  char err[1024] = "";
  sp_gpu_info infos[BG_MAX_GPUS];
  int ninfos = 0;
  if (sp_cuda_enumerate(infos, BG_MAX_GPUS, &ninfos, err, sizeof err) != SEALPROV_OK)
    ninfos = 0; /* names only; the runs themselves report real failures */

  /* The engine device (for partitions) and, on the same thread, its context for the
   * kernel benchmarks: one bound thread, as a worker would be. */
  sp_device_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  snprintf(cfg.section, sizeof cfg.section, "gpu%d", o.ordinal);
  cfg.type = SP_DEVICE_CUDA;
  cfg.ordinal = o.ordinal;
  cfg.pinned_staging = o.pinned;
  void *dev = NULL;
  sp_gpu *g = NULL;
  int st = SEALPROV_OK;
  if (kernels) {
    int confirmed = -1;
    st = sp_engine_cuda.device_open(&cfg, &dev, err, sizeof err);
    if (!st) st = sp_engine_cuda.worker_bind(dev, 0, &confirmed, err, sizeof err);
    if (!st) st = sp_gpu_create(o.ordinal, 0, &g, err, sizeof err);
    if (st) {
      sp_cli_error("%s", err);
      if (dev) sp_engine_cuda.device_close(dev);
      return 1;
    }
  }
  char name[128] = "";
  int sms = 0;
  uint64_t mem = 0;
  if (g) sp_gpu_describe(g, name, sizeof name, &sms, &mem);
  if (o.json) {
    printf("{\n  \"benchmark\": \"gpu\",\n");
    if (g)
      printf(
          "  \"gpu\": {\"name\": \"%s\", \"ordinal\": %d, \"sm_count\": %d, \"memory_bytes\": "
          "%llu},\n",
          name, o.ordinal, sms, (unsigned long long)mem);
    printf("  \"gpus_visible\": [");
    for (int i = 0; i < ninfos; i++) {
      printf("%s{\"ordinal\": %d, \"name\": ", i ? ", " : "", infos[i].ordinal);
      sp_cli_json_str(stdout, infos[i].name);
      printf(", \"pci_bus_id\": ");
      sp_cli_json_str(stdout, infos[i].pci_bus_id);
      printf(", \"uuid\": ");
      sp_cli_json_str(stdout, infos[i].uuid);
      printf(", \"sm_count\": %d, \"memory_bytes\": %llu}", infos[i].sm_count,
             (unsigned long long)infos[i].total_memory);
    }
    printf("],\n  \"repeat\": %u,\n  \"command\": \"", o.repeat);
    for (int i = 0; i < argc; i++) printf("%s%s", i ? " " : "sealprov bench ", argv[i]);
    printf("\",\n  \"results\": [\n");
  } else {
    if (g)
      printf("GPU %d: %s, %d SMs, %.1f GiB; median of %u runs after one warm-up\n", o.ordinal, name,
             sms, (double)mem / (1u << 30), o.repeat);
    if (o.ntp)
      for (int i = 0; i < ninfos; i++)
        printf("GPU %d: %s, %s, %s, %d SMs, %.1f GiB\n", infos[i].ordinal, infos[i].name,
               infos[i].pci_bus_id, infos[i].uuid, infos[i].sm_count,
               (double)infos[i].total_memory / (1u << 30));
  }
  fflush(stdout);
  bg_done = 0;
  bg_total = (double)o.nmsm1 + o.nmsm2 + o.nntt + o.npart + (double)o.ntp * o.ngpus;
  sp_cli_meter_start(&bg_meter, "bench gpu");
  if (kernels) {
    st = bench_msm(g, &o, false, o.msm1, o.nmsm1, err, sizeof err);
    fflush(stdout);
    bg_step(o.nmsm1);
    if (!st) st = bench_msm(g, &o, true, o.msm2, o.nmsm2, err, sizeof err);
    fflush(stdout);
    bg_step(o.nmsm2);
    if (!st) st = bench_ntt(g, &o, err, sizeof err);
    fflush(stdout);
    bg_step(o.nntt);
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
      bg_step(1);
    }
    /* Before the throughput runs: this device's memory goes back to the GPU. */
    sp_engine_cuda.worker_unbind(dev, 0);
    sp_engine_cuda.device_close(dev);
  }
  if (!st && o.ntp) st = bench_throughput(&o, infos, ninfos, err, sizeof err);
  if (o.json) printf("\n  ],\n  \"status\": \"%s\"\n}\n", st ? "failed" : "ok");
  if (st) sp_cli_error("%s: %s", sp_status_name(st), err);
  return st ? 1 : 0;
}
