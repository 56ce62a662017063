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
 *   between consecutive executes.
 *   No self-check: synthetic proofs cannot verify.
 * Each MSM size is also checked once against the CPU library at 2^14 points before
 * timing, so a figure never comes from a wrong kernel.
 * This file: the options, the output, the MSM and NTT groups and the command; the
 * partitions are bench_gpu_partition.c, the throughput bench_gpu_throughput.c and
 * bench_gpu_timeline.c (bench_gpu.h).
 */
#include <config.h> /* HAVE_CUDA declares sp_engine_cuda */

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
#include "backend/probe.h"
#include "util/cuda_api.h"
#include "ntt/ntt.h"
#include "msm/msm.h"
#include "groth16/groth16.h" /* sp_groth16_check_assignment: the module's submit-time check */
#include "base/log.h"
#include "runtime/sp_sched.h"
#include "formats/srs.h"
#include "bench_gpu.h"
#include "shapes.h"

static int bg_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v in place; its median (the upper one for even n), 0 for none. */
double bg_median_sorted(double *v, size_t n) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, bg_cmp);
  return v[n / 2];
}

/* median of runs (sorted copy); *median_idx: the run that has it */
double bg_median(const double *runs, unsigned n, unsigned *median_idx) {
  double s[BG_MAX_REPEAT];
  memcpy(s, runs, n * sizeof *s);
  double med = bg_median_sorted(s, n);
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
  return bg_parse_list_cap(s, out, n, BG_MAX_SIZES, lo, hi);
}

void bg_print_pinned(const bg_opts *o) {
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
          "                          [--memory-limit none,24G,16G] [--stream] [--threads T]\n"
          "                          [--plan TIER] [--trace FILE]\n"
          "       sealprov bench gpu --throughput 24,27 [--gpus 1,2] [--jobs 3,1]\n"
          "                          [--partitions 10] [--workers 2] [--warmup P]\n"
          "                          [--ordinals 0,1] [--urgent-after K] [--json]\n"
          "  --precompute off,on,C:K: every MSM once per variant in each repeat (same-call\n"
          "  A/B): off = today's path, on = a fixed-base table as msm.cu's cost model plans\n"
          "  it, C:K = a table of window C with K copies; partitions take off and on (the\n"
          "  engine's table of the resident h) in a build with --enable-fault-injection, and\n"
          "  the engine's own choice in others. Table size and build time are reported.\n"
          "  --pinned-staging auto|chunked|whole|off|BYTES[K|M|G]: the engine's staging per\n"
          "  GPU (the INI's pinned_staging; default auto = chunked), for partitions and\n"
          "  throughput; a comma list (e.g. whole,chunked) runs each throughput stream once\n"
          "  per mode on the same data, with host peak RSS and module host memory per run.\n"
          "  --memory-limit BYTES[K|M|G] or none, comma-separated: each partition size runs\n"
          "  once per value, on the same data, on a device with that memory_limit (the INI's\n"
          "  key): the engine plans each partition for it and streams the parameters when the\n"
          "  set does not fit; --stream streams them whatever fits. --threads: host threads of a\n"
          "  partition's task (default 8, as with 2 workers on 16 CPUs). --plan: the memory\n"
          "  plan's tier TIER (0 needs the most memory; what the budget leaves over keeps\n"
          "  parameter points on the device) instead of the engine's choice. --stream and\n"
          "  --plan need a build with --enable-fault-injection. Partitions report\n"
          "  the plan, the device memory peak, the host memory the module held (page-locked\n"
          "  chunks and staging) and the bytes copied to the device. --throughput takes one\n"
          "  value: every GPU of its streams gets that memory_limit.\n"
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
          "  --trace FILE: every kernel, copy, memset and CUDA wait of the timed partition\n"
          "  runs and throughput streams, from CUPTI (the CUDA toolkit's libcupti, found by\n"
          "  LD_LIBRARY_PATH, CUDA_HOME or /usr/local/cuda), a CSV row each in FILE; per run a\n"
          "  table (stdout; stderr with --json) of each stage's host time, kernel and GPU busy\n"
          "  time, transfers and waits, the GPU's idle gaps and the kernels by time.\n"
          "  --urgent-after K: once K partitions of each stream are done, a 1-partition job\n"
          "  of priority 100 (the stream's is 0), as a WinningPoSt during sealing: reports\n"
          "  its wait from submit to start (a worker takes it), to execute (it has the GPU)\n"
          "  and to done, against the stream's median execute (dev/deadline-latency.sh).\n"
          "       sealprov bench gpu --shape NAME[,NAME...]|all [--shape-partitions N]\n"
          "                          [--device N] [--workers 2] [--json]\n"
          "  --shape: per proof type (%s): synthetic parameters of its\n"
          "  partition circuit and one job of its partitions through the scheduler on GPU\n"
          "  --device: execute median, whole job, device peak, module host peak, computed\n"
          "  parameter file size. --shape-partitions N: at most N partitions a job (the\n"
          "  whole job's time is then scaled, and marked so).\n",
          sp_proof_shape_names());
}

void bg_print_runs(const double *runs, unsigned n) {
  printf("[");
  for (unsigned i = 0; i < n; i++) printf("%s%.3f", i ? ", " : "", runs[i]);
  printf("]");
}

static bool first_result = true;

void bg_result_head(const bg_opts *o, const char *op, unsigned lg) {
  if (o->json) {
    printf("%s    {\"op\": \"%s\", \"log_n\": %u, \"n\": %llu", first_result ? "" : ",\n", op, lg,
           1ull << lg);
  } else {
    printf("%-10s 2^%-3u", op, lg);
  }
  first_result = false;
}

void bg_result_times(const bg_opts *o, const double *runs, unsigned n) {
  double med = bg_median(runs, n, NULL), mn = bg_min(runs, n);
  if (o->json) {
    printf(", \"median_ms\": %.3f, \"min_ms\": %.3f, \"runs_ms\": ", med, mn);
    bg_print_runs(runs, n);
  } else {
    printf("  median %10.3f ms  min %10.3f ms", med, mn);
  }
}

void bg_result_end(const bg_opts *o) { printf(o->json ? "}" : "\n"); }

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
      bg_result_head(o, g2 ? "msm_g2" : "msm_g1", sizes[i]);
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
      bg_result_times(o, v[j].runs, o->repeat);
      if (o->npre && !o->json && v[j].tab.copies)
        printf("  (window %u, %u copies, %.2f GB made in %.0f ms)", v[j].tab.window,
               v[j].tab.copies, (double)v[j].tab.ext_bytes / 1e9, v[j].build_ms);
      bg_result_end(o);
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
      bg_result_head(o, kinds[k].name, o->ntt[i]);
      bg_result_times(o, runs, o->repeat);
      bg_result_end(o);
    }
  sp_gpu_free(g, d, nmax * sizeof(fr_t));
  return st;
}

/* --progress: the runs done of all that were asked for (an MSM or NTT group counts one
 * a size, a partition size one, a throughput stream one). */
static sp_cli_meter bg_meter;
static double bg_done, bg_total;
void bg_step(double n) {
  bg_done += n;
  sp_cli_meter_step(&bg_meter, bg_done, bg_total, "runs");
}

/* ---- command ---------------------------------------------------------------------- */

int sp_cmd_bench_gpu(int argc, char **argv) {
  bg_opts o;
  memset(&o, 0, sizeof o);
  o.repeat = 5;
  o.threads = 8;
  o.plan = -1;
  o.nlimits = 1;     /* no limit */
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
                                     {"memory-limit", required_argument, 0, 'M'},
                                     {"threads", required_argument, 0, 'T'},
                                     {"stream", no_argument, 0, 'R'},
                                     {"plan", required_argument, 0, 'L'},
                                     {"shape", required_argument, 0, 'K'},
                                     {"shape-partitions", required_argument, 0, 'k'},
                                     {"trace", required_argument, 0, 'Z'},
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
        ok = bg_parse_list_cap(optarg, o.ordinals, &o.nordinals, BG_MAX_GPUS, 0, 1023) &&
             o.nordinals > 0;
        break;
      case 'S': ok = bg_parse_pinned_list(optarg, &o); break;
      case 'M': ok = bg_parse_limits(optarg, &o); break;
      case 'T':
        o.threads = (unsigned)atoi(optarg);
        ok = o.threads >= 1 && o.threads <= 256;
        break;
      case 'R': o.stream = true; break;
      case 'L':
        o.plan = atoi(optarg);
        ok = o.plan >= 0 && (unsigned)o.plan < sp_engine_cuda_plan_tiers() &&
             strspn(optarg, "0123456789") == strlen(optarg);
        break;
      case 'X': ok = bg_parse_precompute(optarg, &o); break;
      case 'K': {
        char msg[1024];
        if (!sp_proof_shapes_parse(optarg, o.shapes, BG_MAX_SHAPES, &o.nshapes, msg, sizeof msg))
          return sp_cli_usage_error(&args, "%s", msg);
        break;
      }
      case 'k':
        o.shape_partitions = (unsigned)atoi(optarg);
        ok = o.shape_partitions >= 1 && o.shape_partitions <= BG_MAX_PARTITIONS;
        break;
      case 'Z': o.trace = optarg; break;
    }
    if (!ok) return sp_cli_usage_error(&args, "bad value for an option: %s", optarg ? optarg : "");
  }
  if (c < 0) return args.status;
  if (!sp_cli_operands(&args, argc, argv, 0, 0, "")) return args.status;
#ifndef SP_FAULT_INJECTION /* the engine's forced paths are a test build's (probe.h) */
  if (o.stream || o.plan >= 0)
    return sp_cli_usage_error(&args,
                              "%s needs a build with --enable-fault-injection (here "
                              "--memory-limit makes the engine stream and take a smaller plan)",
                              o.stream ? "--stream" : "--plan");
#endif
  o.json = args.json;
  char err[1024] = "";
  if (o.trace && bg_trace_file(o.trace, o.json ? stderr : stdout, err, sizeof err)) {
    sp_cli_error("%s", err);
    return 2;
  }
  /* --throughput alone measures throughput only; named kernel groups run as well. */
  if ((o.ntp > 0 || o.nshapes > 0) && !o.groups_named) o.nmsm1 = o.nmsm2 = o.nntt = o.npart = 0;
  unsigned need = 0; /* GPUs the throughput runs use */
  if (o.ntp > 0) {
    if (o.njobs != 1 && o.njobs != o.ntp) {
      sp_cli_error("--jobs has %u values for %u --throughput sizes (give one, or one per size)",
                   o.njobs, o.ntp);
      return 2;
    }
    if (o.nlimits != 1) { /* the devices of one stream share the INI's one memory_limit */
      sp_cli_error("--throughput runs under one --memory-limit, not %u", o.nlimits);
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
  if ((kernels || o.nshapes) && visible <= o.ordinal) {
    sp_cli_error("no CUDA device %d (%d visible)", o.ordinal, visible);
    return 1;
  }
  for (unsigned k = 0; k < need; k++)
    if ((int)o.ordinals[k] >= visible) {
      sp_cli_error("--throughput with --gpus up to %u needs CUDA device %u, but %d %s visible",
                   need, o.ordinals[k], visible, visible == 1 ? "is" : "are");
      return 1;
    }
  /* --trace: CUPTI before any context is made (its activity then covers them all) */
  if (o.trace && bg_trace_start(err, sizeof err)) {
    sp_cli_error("%s", err);
    bg_trace_close(err, sizeof err);
    return 1;
  }
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
  bg_total = (double)o.nmsm1 + o.nmsm2 + o.nntt + o.npart + (double)o.ntp * o.ngpus + o.nshapes;
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
        st = bg_bench_partition(&o, &cfg, gg, o.part[i], err, sizeof err);
        sp_gpu_destroy(gg);
      }
      fflush(stdout);
      bg_step(1);
    }
    /* Before the throughput runs: this device's memory goes back to the GPU. */
    sp_engine_cuda.worker_unbind(dev, 0);
    sp_engine_cuda.device_close(dev);
  }
  if (!st && o.ntp) st = bg_bench_throughput(&o, infos, ninfos, err, sizeof err);
  if (!st && o.nshapes) st = bg_bench_shapes(&o, infos, ninfos, err, sizeof err);
  if (o.json) printf("\n  ],\n  \"status\": \"%s\"\n}\n", st ? "failed" : "ok");
  if (st) sp_cli_error("%s: %s", sp_status_name(st), err);
  fflush(stdout);
  if (o.trace && bg_trace_close(err, sizeof err) && !st) {
    sp_cli_error("%s", err);
    st = SEALPROV_ERR_IO;
  }
  return st ? 1 : 0;
}
