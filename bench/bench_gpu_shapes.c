/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_gpu_shapes.c -- `sealprov bench gpu --shape`: for each proof type of shapes.h,
 * synthetic parameters of its partition circuit made on the GPU (random points, not a
 * setup: no proof verifies, none is self-checked) and one job of its partitions through
 * the module's scheduler on one GPU with the production's workers, after a warm-up job
 * that makes the parameters resident, as bench gpu --throughput runs its streams. Per
 * type: the median execute (the device-lock section, from the scheduler's timeline), the
 * whole job from submit to completion, the device's peak (the engine's own count, read
 * after every execute), the module's host memory peak and the computed size of a
 * parameter file of that shape. */
#include <config.h> /* HAVE_CUDA declares sp_engine_cuda */

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sp_gpu.h" /* first: hides <math.h>'s FP_ZERO from bls12_381.h */
#include "gpu/gpu_kit.h"
#include "cli.h"
#include "engine/engine.h"
#include "backend/engine_cuda.h"
#include "backend/probe.h"
#include "util/cuda_api.h"
#include "base/log.h"
#include "bench_gpu.h"
#include "shapes.h"

/* The streams' engine: the CUDA engine, whose execute also keeps the highest device
 * peak of the run (the scheduler holds the device lock around execute, so the last
 * timings read here are this execute's). */
static sp_engine_ops shp_engine;
static _Atomic uint64_t shp_device_peak;

static int shp_execute(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                       size_t errlen) {
  int st = sp_engine_cuda.execute(dev, t, prep, proof, err, errlen);
  sp_cuda_timings tm;
  memset(&tm, 0, sizeof tm);
  sp_engine_cuda_last_timings(dev, &tm);
  uint64_t cur = atomic_load(&shp_device_peak);
  while (tm.device_peak_bytes > cur &&
         !atomic_compare_exchange_weak(&shp_device_peak, &cur, tm.device_peak_bytes)) {
  }
  return st;
}

typedef struct shp_result {
  unsigned run;      /* partitions of the timed job */
  double job_s;      /* that job, first submit to completion */
  double full_job_s; /* the shape's whole job: job_s, or scaled when run < partitions */
  uint64_t dev_peak; /* device bytes at the highest execute */
  tp_run r;
} shp_result;

static void shp_print(const bg_opts *o, const sp_proof_shape *sh, const bg_synth *x,
                      const shp_result *s) {
  const tp_run *r = &s->r;
  const tp_dev *d = &r->dev[0];
  uint64_t file = sp_proof_shape_params_bytes(sh);
  bg_result_head(o, "shape", sh->log_domain);
  if (o->json) {
    printf(
        ", \"shape\": \"%s\", \"proof\": \"%s\", \"sector_gib\": %u, \"partitions\": %u, "
        "\"partitions_run\": %u,\n     \"constraints\": %llu, \"inputs\": %llu, \"aux\": %llu, "
        "\"figures_estimated\": %s, \"a_aux_density\": %.3f, \"b_aux_density\": %.3f, "
        "\"aux_bits_fraction\": %.2f,\n     \"params_file_bytes_computed\": %llu, "
        "\"params_resident_bytes\": %llu, \"synthetic_params_gen_ms\": %.1f, "
        "\"synthetic_assignment_gen_ms\": %.1f,\n     \"workers\": %u, \"warmup_s\": %.3f, "
        "\"execute_median_ms\": %.1f, \"prepare_median_ms\": %.1f, \"job_s\": %.3f, "
        "\"full_job_s\": %.3f, \"full_job_scaled\": %s,\n     \"device_peak_bytes\": %llu, "
        "\"device_memory_after_bytes\": %llu, \"module_host_peak_bytes\": %llu, "
        "\"host_peak_rss_bytes\": %llu, \"host_passed_bytes\": %llu, \"self_check\": false}",
        sh->name, sh->proof, sh->sector_gib, sh->partitions, s->run,
        (unsigned long long)sh->constraints, (unsigned long long)sh->inputs,
        (unsigned long long)sh->aux, sh->estimate ? "true" : "false", sh->a_permille / 1000.0,
        sh->b_permille / 1000.0, sh->bits_percent / 100.0, (unsigned long long)file,
        (unsigned long long)bg_params_bytes(&x->srs), x->params_ms, x->assignment_ms, o->workers,
        r->warm_s, d->exec_median_ms, d->prep_median_ms, s->job_s, s->full_job_s,
        s->run < sh->partitions ? "true" : "false", (unsigned long long)s->dev_peak,
        (unsigned long long)d->memory, (unsigned long long)r->module_peak,
        (unsigned long long)r->rss_peak, (unsigned long long)r->passed_bytes);
  } else {
    printf(
        " %-16s %3u partitions (%u run): execute %.0f ms (median), job %.1f s%s, device peak "
        "%.1f GB, module host peak %.1f GB, parameter file %.1f GB (computed)\n",
        sh->name, sh->partitions, s->run, d->exec_median_ms, s->full_job_s,
        s->run < sh->partitions ? " (scaled)" : "", (double)s->dev_peak / 1e9,
        (double)r->module_peak / 1e9, (double)file / 1e9);
  }
  fflush(stdout);
}

/* One shape: its synthetic set on o->ordinal's GPU, then the job through the scheduler. */
static int shp_one(const bg_opts *o, const sp_proof_shape *sh, const sp_gpu_info *infos, int ninfos,
                   char *err, size_t errlen) {
  const bg_synth_spec spec = {sh->log_domain,  sh->constraints + sh->inputs,
                              sh->inputs,      sh->aux,
                              sh->a_permille,  sh->b_permille,
                              sh->bits_percent};
  bg_synth *x = calloc(1, sizeof *x);
  shp_result *s = calloc(1, sizeof *s);
  if (!x || !s) {
    free(x);
    free(s);
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  fprintf(stderr, "sealprov bench gpu: %s: making the synthetic parameters (on GPU %d)\n", sh->name,
          o->ordinal);
  /* a context only for making the points, gone before the scheduler starts */
  int confirmed = -1;
  sp_gpu *g = NULL;
  int st = sp_gpu_bind(o->ordinal, &confirmed, err, errlen);
  if (!st) st = sp_gpu_create(o->ordinal, 0, &g, err, errlen);
  if (!st) st = bg_synth_make_spec(x, g, &spec, err, errlen);
  sp_gpu_destroy(g);
  if (!st) {
    bg_opts om = *o;
    om.ordinals[0] = (unsigned)o->ordinal;
    om.nordinals = 1;
    s->run = o->shape_partitions && o->shape_partitions < sh->partitions ? o->shape_partitions
                                                                         : sh->partitions;
    om.partitions = s->run;
    om.urgent_after = 0;
    om.engine = &shp_engine;
    atomic_store(&shp_device_peak, 0);
    st = tp_run_stream(&om, x, 1, 1, infos, ninfos, &s->r, err, errlen);
    if (!st) {
      s->dev_peak = atomic_load(&shp_device_peak);
      s->job_s = s->r.seconds;
      /* the partitions not run at the steady rate: the GPU is the bottleneck */
      s->full_job_s =
          s->job_s + (double)(sh->partitions - s->run) * s->r.dev[0].exec_median_ms / 1e3;
      shp_print(o, sh, x, s);
    }
    bg_synth_free(x);
  }
  if (st) {
    char pre[96];
    snprintf(pre, sizeof pre, "--shape %s: ", sh->name);
    size_t n = strlen(pre), len = strlen(err);
    if (n + len + 1 <= errlen) {
      memmove(err + n, err, len + 1);
      memcpy(err, pre, n);
    }
  }
  free(x);
  free(s);
  return st;
}

int bg_bench_shapes(const bg_opts *o, const sp_gpu_info *infos, int ninfos, char *err,
                    size_t errlen) {
  shp_engine = sp_engine_cuda;
  shp_engine.execute = shp_execute;
  /* The scheduler logs through the host's callback: here, stderr. */
  const sealprov_host host = {sizeof(sealprov_host), SEALPROV_LOG_INFO, sp_cli_module_log, NULL};
  sp_log_set_host(&host);
  if (!o->json)
    printf(
        "proof types on GPU %d: synthetic parameters (random points, not a setup): proofs "
        "cannot verify and are not self-checked\n",
        o->ordinal);
  int st = SEALPROV_OK;
  for (size_t i = 0; !st && i < o->nshapes; i++) {
    st = shp_one(o, o->shapes[i], infos, ninfos, err, errlen);
    bg_step(1);
  }
  sp_log_set_host(NULL);
  return st;
}
