/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_gpu_partition.c -- `sealprov bench gpu`'s partitions: a synthetic parameter set
 * (random points made on the GPU, not a real setup) and one sealing-shaped assignment,
 * proved through the engine contract (prepare, execute, release). */
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
#include "groth16/groth16.h" /* sp_groth16_check_assignment: the module's submit-time check */
#include "shapes.h"          /* SP_SYNTH_BITS_PERCENT */
#include "base/log.h"
#include "runtime/sp_sched.h"
#include "formats/srs.h"
#include "bench_gpu.h"

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
 * engine checks a*b = c before any MSM, so random a, b, c would fail it. */
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

/* What the engine keeps resident on a GPU for this set. */
size_t bg_params_bytes(const sp_srs *s) {
  return (s->h_len + s->l_len + s->a_len + s->b_g1_len) * sizeof(g1_affine_t) +
         s->b_g2_len * sizeof(g2_affine_t);
}

void bg_synth_free(bg_synth *x) {
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
int bg_synth_make(bg_synth *x, sp_gpu *g, unsigned lg, char *err, size_t errlen) {
  const size_t m = (size_t)1 << lg, abc = m - m / 32,
               ninp = SP_SEALING_INPUTS < m / 4 ? SP_SEALING_INPUTS : 4;
  const bg_synth_spec sealing = {.lg = lg,
                                 .abc = abc,
                                 .ninp = ninp,
                                 .naux = abc - ninp,
                                 .a_permille = SP_SEALING_A_PERMILLE,
                                 .b_permille = SP_SEALING_B_PERMILLE,
                                 .bits_percent = SP_SYNTH_BITS_PERCENT};
  return bg_synth_make_spec(x, g, &sealing, err, errlen);
}

int bg_synth_make_spec(bg_synth *x, sp_gpu *g, const bg_synth_spec *sp, char *err, size_t errlen) {
  memset(x, 0, sizeof *x);
  const unsigned lg = sp->lg;
  const size_t m = (size_t)1 << lg, abc = sp->abc, ninp = sp->ninp, naux = sp->naux;
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
    bg_synth_free(x);
    snprintf(err, errlen, "out of host memory for the density bitmaps of 2^%u", lg);
    return SEALPROV_ERR_NO_MEMORY;
  }
  size_t pa = 0, pb = 0;
  for (size_t j = 0; j < naux; j++) {
    if (bg_rand(&rng) % 1000 < sp->a_permille) x->da[j / 64] |= 1ull << (j % 64), pa++;
    if (bg_rand(&rng) % 1000 < sp->b_permille) x->dba[j / 64] |= 1ull << (j % 64), pb++;
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
  unsigned long long avail_kib;
  sp_bench_proc_kib(SP_PROC_MEMINFO, "MemAvailable", &avail_kib); /* 0: unknown */
  uint64_t avail = (uint64_t)avail_kib * 1024;
  if (avail && sc_bytes + pt_bytes > avail) {
    snprintf(err, errlen,
             "the synthetic 2^%u set needs %.1f GiB of host memory (parameters %.1f GiB, "
             "assignment %.1f GiB) but MemAvailable is %.1f GiB",
             lg, (double)(sc_bytes + pt_bytes) / (1u << 30), (double)pt_bytes / (1u << 30),
             (double)sc_bytes / (1u << 30), (double)avail / (1u << 30));
    bg_synth_free(x);
    return SEALPROV_ERR_NO_MEMORY;
  }
  double t0 = sp_cli_now_ms();
  x->sc = malloc(sc_bytes);
  if (!x->sc) {
    snprintf(err, errlen, "out of host memory for the 2^%u assignment (%.1f GiB)", lg,
             (double)sc_bytes / (1u << 30));
    bg_synth_free(x);
    return SEALPROV_ERR_NO_MEMORY;
  }
  uint8_t *inp = x->sc + 3 * abc * 32, *aux = inp + ninp * 32;
  bg_fill_scalars(x->sc, 2 * abc, 0, rng);
  bg_make_c(x->sc, x->sc + abc * 32, x->sc + 2 * abc * 32, abc); /* satisfies a*b = c */
  bg_fill_scalars(inp, ninp, 0, rng + 1);
  memset(inp, 0, 32);
  inp[0] = 1; /* ONE */
  bg_fill_scalars(aux, naux, sp->bits_percent, rng + 2);
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
    bg_synth_free(x);
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

/* --trace: a window for execute of timed run r (nothing unless tracing). */
static int trace_begin(unsigned lg, unsigned r, const char *variant, uint64_t limit, char *err,
                       size_t errlen) {
  if (!bg_trace_on()) return SEALPROV_OK;
  char label[160], lim[48] = "";
  if (limit) snprintf(lim, sizeof lim, ", memory_limit %.1f GiB", (double)limit / (1u << 30));
  snprintf(label, sizeof label, "partition 2^%u, execute of run %u%s%s%s", lg, r,
           variant ? ", tables " : "", variant ? variant : "", lim);
  return bg_trace_begin(label, err, errlen);
}

/* One engine device on this (bound) thread, through the engine contract the scheduler
 * follows: prepare (host work, no lock), execute (device work), release. */
static int partition_runs(const bg_opts *o, void *dev, bg_synth *x, unsigned lg, uint64_t limit,
                          char *err, size_t errlen) {
  int st = SEALPROV_OK;
  sp_task t;
  memset(&t, 0, sizeof t);
  t.srs = &x->srs;
  t.asg = &x->asg;
  t.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  t.cpu_threads = o->threads;
  fr_from_u64(&t.r, 12345);
  fr_from_u64(&t.s, 67890);
  /* --precompute: off and on in turn in every repeat (the warm-up with tables allowed,
   * so the set's table is made with it), in a test build, whose engine has the tables
   * knob (probe.h); without the flag, or in another build, the engine's default */
  int modes[BG_MAX_PRE];
  const char *labels[BG_MAX_PRE];
  unsigned nv = 0;
#ifndef SP_FAULT_INJECTION
  if (o->npre)
    fprintf(stderr,
            "bench gpu: partitions run with the engine's own tables (off and on per run need "
            "a build with --enable-fault-injection)\n");
#else
  for (unsigned i = 0; i < o->npre && i < BG_MAX_PRE; i++)
    if (o->pre[i].window == BG_PRE_OFF || o->pre[i].window == BG_PRE_ON) {
      modes[nv] = o->pre[i].window == BG_PRE_ON ? SP_TABLES_AUTO : SP_TABLES_OFF;
      labels[nv++] = o->pre[i].window == BG_PRE_ON ? "on" : "off";
    }
#endif
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
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  int warm_mode = SP_TABLES_OFF; /* tables made in the warm-up only if a variant uses them */
  for (unsigned j = 0; j < nv; j++)
    if (modes[j] != SP_TABLES_OFF) warm_mode = modes[j];
#ifndef SP_FAULT_INJECTION
  (void)warm_mode; /* one mode: the engine's own */
#endif
  double first_prep = 0;
  sp_cuda_timings first;
  memset(&first, 0, sizeof first);
  uint8_t proof[192], proof0[192];
#ifdef SP_FAULT_INJECTION /* a test build's knobs (probe.h); sp_cmd_bench_gpu refuses them
                             elsewhere */
  sp_engine_cuda_set_streaming(dev, o->stream, 0);
  sp_engine_cuda_set_plan(dev, o->plan);
#endif
  for (unsigned r = 0; !st && r <= o->repeat; r++)
    for (unsigned j = 0; !st && j < (r == 0 ? 1 : nv); j++) {
      /* the timed runs' host memory peak, from what the warm-up left held */
      if (r == 1 && j == 0) sp_hostmem_reset_peak(sp_engine_cuda_hostmem(dev));
#ifdef SP_FAULT_INJECTION
      sp_engine_cuda_set_tables(dev, r == 0 ? warm_mode : modes[j]);
#endif
      void *prep = NULL;
      double t0 = sp_cli_now_ms();
      if (sp_engine_cuda.prepare) st = sp_engine_cuda.prepare(dev, &t, &prep, err, errlen);
      double t1 = sp_cli_now_ms();
      if (!st && r > 0) st = trace_begin(lg, r, labels[j], limit, err, errlen); /* --trace */
      if (!st) st = sp_engine_cuda.execute(dev, &t, prep, proof, err, errlen);
      double t2 = sp_cli_now_ms();
      if (!st && r > 0) st = bg_trace_end(err, errlen);
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
#ifdef SP_FAULT_INJECTION
  sp_engine_cuda_set_tables(dev, SP_TABLES_AUTO);
#endif
  for (unsigned j = 0; !st && j < nv; j++) {
    const double *runs = pv[j].runs, *prep_runs = pv[j].prep_runs;
    unsigned mi = 0;
    bg_median(runs, o->repeat, &mi);
    const sp_cuda_timings *x_t = &pv[j].tms[mi];
    double prep_med = bg_median(prep_runs, o->repeat, NULL);
    sp_cuda_host_memory hm;
    memset(&hm, 0, sizeof hm);
    sp_engine_cuda_host_memory(dev, &hm);
    bg_result_head(o, "partition", lg);
    if (o->json)
      printf(", \"constraints\": %zu, \"aux\": %zu, \"a_len\": %zu, \"b_len\": %zu", x->abc,
             x->naux, x->srs.a_len, x->srs.b_g1_len);
    if (o->json && labels[j])
      printf(", \"precompute\": \"%s\"", labels[j]);
    else if (labels[j])
      printf(" %-4s", labels[j]);
    bg_result_times(o, runs, o->repeat); /* execute(): the device-lock section */
    if (o->json) {
      printf(",\n     \"prepare_median_ms\": %.3f, \"prepare_runs_ms\": ", prep_med);
      bg_print_runs(prep_runs, o->repeat);
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
      bg_print_pinned(o);
      printf(
          ", \"host_pinned_bytes\": %llu,\n     \"first_run_srs_upload_ms\": %.1f, "
          "\"synthetic_params_gen_ms\": %.1f, \"synthetic_assignment_gen_ms\": %.1f, "
          "\"memory_in_use_bytes\": %llu",
          (unsigned long long)hm.staging_bytes, first.srs_upload_ms, x->params_ms, x->assignment_ms,
          (unsigned long long)sp_engine_cuda.memory_in_use(dev));
      printf(
          ",\n     \"memory_limit_bytes\": %llu, \"threads\": %u, \"plan_tier\": %u, "
          "\"plan_need_bytes\": %llu, \"plan_budget_bytes\": %llu, \"stream_chunk\": %llu, "
          "\"device_peak_bytes\": %llu,\n     \"module_host_peak_bytes\": %llu, "
          "\"resident_prefix_bytes\": %llu, \"pcie_bytes\": %llu, "
          "\"pcie_gb_per_s_in_execute\": %.2f",
          (unsigned long long)limit, o->threads, x_t->plan_tier,
          (unsigned long long)x_t->plan_need_bytes, (unsigned long long)x_t->plan_budget_bytes,
          (unsigned long long)x_t->stream_chunk, (unsigned long long)x_t->device_peak_bytes,
          (unsigned long long)hm.module_peak_bytes, (unsigned long long)x_t->resident_prefix_bytes,
          (unsigned long long)x_t->pcie_bytes,
          x_t->total_ms > 0 ? (double)x_t->pcie_bytes / 1e6 / x_t->total_ms : 0.0);
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
      printf(
          "\n    plan tier %u (needs %.2f of %.2f GB), device peak %.2f GB, module host peak "
          "%.2f GB, %.2f GB over PCIe",
          x_t->plan_tier, (double)x_t->plan_need_bytes / 1e9, (double)x_t->plan_budget_bytes / 1e9,
          (double)x_t->device_peak_bytes / 1e9, (double)hm.module_peak_bytes / 1e9,
          (double)x_t->pcie_bytes / 1e9);
      if (x_t->tables_used)
        printf(
            "\n    H MSM over a fixed-base table: window %u, %u copies, %.2f GB (made in %.0f ms "
            "on the first run)",
            x_t->table_window, x_t->table_copies, (double)first.precompute_bytes / 1e9,
            first.precompute_ms);
    }
    bg_result_end(o);
  }
  free(pv);
  sp_engine_cuda.srs_evict(dev, &x->srs);
  return st;
}

int bg_bench_partition(const bg_opts *o, const sp_device_cfg *cfg, sp_gpu *g, unsigned lg,
                       char *err, size_t errlen) {
  bg_synth *x = calloc(1, sizeof *x);
  if (!x) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  int st = bg_synth_make(x, g, lg, err, errlen);
  if (st) { /* what was made is freed */
    free(x);
    return st;
  }
  for (unsigned i = 0; !st && i < o->nlimits; i++) {
    sp_device_cfg c = *cfg;
    c.memory_limit = o->limits[i];
    void *dev = NULL;
    int confirmed = -1;
    st = sp_engine_cuda.device_open(&c, &dev, err, errlen);
    if (!st) st = sp_engine_cuda.worker_bind(dev, 0, &confirmed, err, errlen);
    if (!st) {
      st = partition_runs(o, dev, x, lg, o->limits[i], err, errlen);
      sp_engine_cuda.worker_unbind(dev, 0);
    }
    if (dev) sp_engine_cuda.device_close(dev);
    if (i + 1 < o->nlimits) fflush(stdout);
  }
  bg_synth_free(x);
  free(x);
  return st;
}
