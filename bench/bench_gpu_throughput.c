/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_gpu_throughput.c -- `sealprov bench gpu --throughput`: streams of jobs through
 * the module's scheduler (sched.c, pool.c) on an in-memory device table of 1..N GPUs,
 * their partitions per second and, per GPU, busy share and idle gaps. */
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
#include "base/log.h"
#include "runtime/sp_sched.h"
#include "formats/srs.h"
#include "bench_gpu.h"

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

/* Starts a scheduler on the first ngpu of o->ordinals, runs the warm-up job(s), then
 * njobs jobs of o->partitions partitions submitted at once, and fills r. */
int tp_run_stream(const bg_opts *o, bg_synth *x, unsigned ngpu, unsigned njobs,
                  const sp_gpu_info *infos, int ninfos, tp_run *r, char *err, size_t errlen) {
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
    d->memory_limit = o->limits[0];
    d->ordinal = (int)ord;
    if (gi) {
      snprintf(d->name, sizeof d->name, "%s", gi->name);
      snprintf(d->uuid, sizeof d->uuid, "%s", gi->uuid);
      snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", gi->pci_bus_id);
      d->total_memory = gi->total_memory; /* the capacity's, as resolve.c sets it */
      d->sm_count = gi->sm_count;
    }
    engines[i] = o->engine ? o->engine : &sp_engine_cuda;
    r->dev[i].ordinal = ord;
    r->dev[i].info = gi;
  }
  const sp_sched_hooks hooks = {.check_assignment = sp_groth16_check_assignment};
  sp_sched *s = NULL;
  /* host memory from here: the synthetic data exist already, so the peak RSS is what
   * the host passed in plus what the module holds at its highest */
  r->rss_reset = sp_bench_reset_peak_rss();
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
  char window[160]; /* --trace: the stream is a window */
  snprintf(window, sizeof window, "throughput %s, %u job%s of %u partitions", label, njobs,
           njobs == 1 ? "" : "s", o->partitions);
  st = bg_trace_begin(window, err, errlen);
  if (st) goto out;
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
   * higher priority, as a WinningPoSt arriving during sealing. */
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
  if (!st) st = bg_trace_end(err, errlen);
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
    unsigned long long hwm_kib;
    sp_bench_proc_kib(SP_PROC_STATUS, "VmHWM", &hwm_kib);
    r->rss_peak = r->rss_reset ? (uint64_t)hwm_kib * 1024 : bg_max_rss_bytes();
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
    bg_result_head(o, "throughput", x->lg);
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
    bg_print_pinned(o);
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
  bg_print_pinned(o);
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

int bg_bench_throughput(const bg_opts *o, const sp_gpu_info *infos, int ninfos, char *err,
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
    if (!st) st = bg_synth_make(x, g, lg, err, errlen);
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
    bg_synth_free(x);
    free(x);
  }
  sp_log_set_host(NULL);
  return st;
}
