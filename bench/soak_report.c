/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* soak_report.c -- what `sealprov soak` records and concludes: the sampler thread (host
 * RSS, the module's stats(), nvidia-smi), the CSV time series, and the verdict: every
 * job as planned, memory flat after the warm-up (text and JSON). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "circuit.h"
#include "cli.h"
#include "g16_util.h"

#include "bench.h" /* sp_bench_proc_kib */
#include "soak.h"

/* ---- sampling -------------------------------------------------------------------------- */

/* VmRSS of this process in MiB (NAN if unreadable). */
double soak_rss_mib(void) {
  unsigned long long kib;
  return sp_bench_proc_kib(SP_PROC_STATUS, "VmRSS", &kib) ? (double)kib / 1024.0 : NAN;
}

/* The sum over every line of metric `name` (with or without labels) in a Prometheus
 * text exposition; NAN when there is none. */
static double prom_sum(const char *text, const char *name) {
  size_t len = strlen(name);
  double sum = NAN;
  for (const char *p = text; p && *p;) {
    const char *eol = strchr(p, '\n');
    if (!strncmp(p, name, len) && (p[len] == '{' || p[len] == ' ')) {
      const char *sp = NULL;
      for (const char *q = p; q < (eol ? eol : p + strlen(p)); q++)
        if (*q == ' ') sp = q;
      if (sp) {
        double v = strtod(sp + 1, NULL);
        sum = isnan(sum) ? v : sum + v;
      }
    }
    p = eol ? eol + 1 : NULL;
  }
  return sum;
}

/* nvidia-smi's memory.used / memory.total per GPU, MiB. Returns the number of GPUs read
 * (0 on any failure). */
unsigned soak_smi_read(double *used, double *total) {
  if (!soak.smi) return 0;
  char cmd[PATH_MAX + 128];
  snprintf(cmd, sizeof cmd,
           "'%s' --query-gpu=memory.used,memory.total --format=csv,noheader,nounits 2>/dev/null",
           soak.o.nvidia_smi);
  FILE *f = popen(cmd, "r");
  if (!f) return 0;
  unsigned n = 0;
  char line[256];
  bool ok = true;
  while (fgets(line, sizeof line, f)) {
    char *end = NULL;
    double u = strtod(line, &end);
    if (end == line || *end != ',') {
      ok = false;
      continue;
    }
    double t = strtod(end + 1, NULL);
    if (n < SOAK_MAX_GPUS) {
      used[n] = u;
      total[n] = t;
    }
    n++;
  }
  if (pclose(f) != 0) ok = false;
  return ok ? (n < SOAK_MAX_GPUS ? n : SOAK_MAX_GPUS) : 0;
}

static void csv_num(FILE *f, double v) {
  if (isnan(v))
    fputs(",", f);
  else
    fprintf(f, ",%.1f", v);
}

void soak_csv_header(void) {
  if (!soak.csv) return;
  fprintf(soak.csv,
          "t_s,phase,cycle,segment,mark,partitions_done,jobs_active,queue_depth,"
          "rss_mib,module_host_mib,pinned_mib,engine_device_mib,gpu_used_mib,gpu_total_mib");
  for (unsigned g = 0; g < soak.ngpu; g++) fprintf(soak.csv, ",gpu%u_used_mib", g);
  fputc('\n', soak.csv);
  fflush(soak.csv);
}

/* Takes one sample now (mark: its name, or NULL for a periodic one), records it and
 * writes its CSV row. A periodic sample skips stats() when the controller holds the
 * provider (open or close in progress); a named one waits for it. */
void soak_sample(const char *mark) {
  sample s;
  memset(&s, 0, sizeof s);
  s.mark = mark;
  s.rss_mib = soak_rss_mib();
  s.module_host_mib = s.pinned_mib = s.engine_mib = s.jobs_active = s.queue_depth = NAN;
  s.gpu_used_mib = s.gpu_total_mib = NAN;
  for (unsigned g = 0; g < SOAK_MAX_GPUS; g++) s.gpu_used[g] = NAN;
  bool locked =
      mark ? pthread_mutex_lock(&soak.prov_mu) == 0 : pthread_mutex_trylock(&soak.prov_mu) == 0;
  if (locked) {
    char *buf = soak.prov ? malloc(STATS_CAP) : NULL;
    if (buf) {
      size_t len = 0;
      /* a text longer than the buffer would lose devices' lines: then nothing is read */
      if (soak.vt->stats(soak.prov, buf, STATS_CAP, &len) == SEALPROV_OK && len < STATS_CAP) {
        double mb = 1024.0 * 1024.0;
        s.engine_mib = prom_sum(buf, "sealprov_device_memory_bytes") / mb;
        s.pinned_mib = prom_sum(buf, "sealprov_device_host_pinned_bytes") / mb;
        s.module_host_mib = prom_sum(buf, "sealprov_module_host_bytes") / mb;
        s.jobs_active = prom_sum(buf, "sealprov_jobs_active");
        s.queue_depth = prom_sum(buf, "sealprov_queue_depth");
      }
      free(buf);
    }
    pthread_mutex_unlock(&soak.prov_mu);
  }
  double used[SOAK_MAX_GPUS], total[SOAK_MAX_GPUS];
  unsigned n = soak_smi_read(used, total);
  if (n > 0) {
    s.gpu_used_mib = s.gpu_total_mib = 0;
    for (unsigned g = 0; g < n; g++) {
      s.gpu_used_mib += used[g];
      s.gpu_total_mib += total[g];
      if (g < soak.ngpu) s.gpu_used[g] = used[g];
    }
  }
  pthread_mutex_lock(&soak.sample_mu);
  s.t_s = soak_now_s();
  s.phase = soak.phase;
  s.cycle = soak.cycle;
  s.segment = soak.segment;
  s.parts_done = atomic_load(&soak.parts_done);
  if (soak.nsamples == soak.cap_samples) {
    size_t cap = soak.cap_samples ? 2 * soak.cap_samples : 1024;
    sample *ns = realloc(soak.samples, cap * sizeof *ns);
    if (ns) {
      soak.samples = ns;
      soak.cap_samples = cap;
    }
  }
  if (soak.nsamples < soak.cap_samples) soak.samples[soak.nsamples++] = s;
  if (soak.csv) {
    fprintf(soak.csv, "%.3f,%s,%d,%d,%s,%" PRIu64, s.t_s, phase_names[s.phase], s.cycle, s.segment,
            mark ? mark : "", s.parts_done);
    csv_num(soak.csv, s.jobs_active);
    csv_num(soak.csv, s.queue_depth);
    csv_num(soak.csv, s.rss_mib);
    csv_num(soak.csv, s.module_host_mib);
    csv_num(soak.csv, s.pinned_mib);
    csv_num(soak.csv, s.engine_mib);
    csv_num(soak.csv, s.gpu_used_mib);
    csv_num(soak.csv, s.gpu_total_mib);
    for (unsigned g = 0; g < soak.ngpu; g++) csv_num(soak.csv, s.gpu_used[g]);
    fputc('\n', soak.csv);
    fflush(soak.csv);
  }
  pthread_mutex_unlock(&soak.sample_mu);
}

void soak_set_where(int phase, int cycle, int segment) {
  pthread_mutex_lock(&soak.sample_mu);
  soak.phase = phase;
  soak.cycle = cycle;
  soak.segment = segment;
  pthread_mutex_unlock(&soak.sample_mu);
}

void soak_print_summary(bool partial);

void *soak_sampler_main(void *arg) {
  (void)arg;
  double deadline = soak.o.time_limit_s ? (double)soak.o.time_limit_s : INFINITY;
  pthread_mutex_lock(&soak.stop_mu);
  while (!soak.stop) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)soak.o.sample_ms * 1000000u;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    int rc = pthread_cond_timedwait(&soak.stop_cv, &soak.stop_mu, &ts);
    if (soak.stop) break;
    if (rc != ETIMEDOUT) continue;
    pthread_mutex_unlock(&soak.stop_mu);
    soak_sample(NULL);
    if (soak_now_s() > deadline) {
      soak_fail(
          "time limit of %u s reached in the %s phase (cycle %d, segment %d): the run is cut "
          "short",
          soak.o.time_limit_s, phase_names[soak.phase], soak.cycle, soak.segment);
      soak_print_summary(true);
      fflush(NULL);
      _exit(1); /* the module's threads may be stuck: leave without joining them */
    }
    pthread_mutex_lock(&soak.stop_mu);
  }
  pthread_mutex_unlock(&soak.stop_mu);
  return NULL;
}

/* ---- the verdict ------------------------------------------------------------------------------- */

typedef struct metric {
  const char *name;
  size_t off; /* offsetof(sample, ...) */
} metric;
static const metric metrics[] = {
    {"gpu_used_mib", offsetof(sample, gpu_used_mib)},
    {"engine_device_mib", offsetof(sample, engine_mib)},
    {"rss_mib", offsetof(sample, rss_mib)},
    {"module_host_mib", offsetof(sample, module_host_mib)},
};
#define NMETRICS (sizeof metrics / sizeof metrics[0])

static double metric_of(const sample *s, const metric *m) {
  return *(const double *)((const char *)s + m->off);
}

/* One judged series of a metric: named samples of a phase, compared with a base. */
typedef struct series {
  const char *metric, *what;
  double base, last, max, growth; /* growth = max - base (of the worst cycle for J_IN_CYCLE) */
  unsigned n;                     /* samples with a value, the bases included */
  bool pass;
} series;

enum judge_mode {
  J_FIRST,    /* base: the first sample of `mark`, or of base_mark when given */
  J_IN_CYCLE, /* in each cycle, base: its first `mark` sample; the worst cycle counts
                * (an opened provider warms up again: each cycle's first segment is one) */
  J_CYCLE_END /* the last `mark` sample of each cycle; base: the first cycle's */
};

static bool judge_series(int phase, const char *mark, const char *base_mark, enum judge_mode mode,
                         const metric *m, const char *what, series *r) {
  memset(r, 0, sizeof *r);
  r->metric = m->name;
  r->what = what;
  r->base = r->last = r->max = r->growth = NAN;
  unsigned later = 0;
  unsigned ncyc = soak.o.cycles + 1;
  double *cb = calloc(ncyc, sizeof *cb), *cm = calloc(ncyc, sizeof *cm);
  unsigned *cn = calloc(ncyc, sizeof *cn);
  if (!cb || !cm || !cn) {
    free(cb), free(cm), free(cn);
    return false;
  }
  pthread_mutex_lock(&soak.sample_mu);
  for (size_t i = 0; i < soak.nsamples; i++) {
    const sample *s = &soak.samples[i];
    double v = metric_of(s, m);
    if (s->phase != phase || !s->mark || isnan(v)) continue;
    if (mode == J_FIRST) {
      if (isnan(r->base)) {
        if (!strcmp(s->mark, base_mark ? base_mark : mark)) {
          r->base = v;
          r->n++;
        }
        continue;
      }
      if (strcmp(s->mark, mark) != 0) continue;
      r->n++;
      later++;
      r->last = v;
      r->max = isnan(r->max) || v > r->max ? v : r->max;
      continue;
    }
    if (strcmp(s->mark, mark) != 0 || s->cycle < 1 || (unsigned)s->cycle >= ncyc) continue;
    unsigned c = (unsigned)s->cycle;
    if (mode == J_CYCLE_END) { /* keep the cycle's last */
      if (!cn[c]) r->n++;
      cn[c] = 1;
      cb[c] = v;
      continue;
    }
    r->n++;
    r->last = v;
    if (cn[c]++ == 0) {
      cb[c] = v;
      cm[c] = NAN;
    } else {
      later++;
      cm[c] = isnan(cm[c]) || v > cm[c] ? v : cm[c];
    }
  }
  pthread_mutex_unlock(&soak.sample_mu);
  if (mode == J_CYCLE_END) {
    for (unsigned c = 1; c < ncyc; c++) {
      if (!cn[c]) continue;
      if (isnan(r->base)) {
        r->base = cb[c];
        continue;
      }
      later++;
      r->last = cb[c];
      r->max = isnan(r->max) || cb[c] > r->max ? cb[c] : r->max;
    }
  } else if (mode == J_IN_CYCLE) {
    for (unsigned c = 1; c < ncyc; c++) {
      if (cn[c] < 2) continue;
      if (isnan(r->growth) || cm[c] - cb[c] > r->growth) {
        r->growth = cm[c] - cb[c];
        r->base = cb[c];
        r->max = cm[c];
      }
    }
  }
  free(cb), free(cm), free(cn);
  if (later == 0) return false; /* nothing to compare: not judged */
  r->growth = r->max - r->base;
  r->pass = r->growth <= soak.o.max_growth_mib;
  return true;
}

/* Least-squares slope of a metric over the main phase's samples after its first idle
 * sample, in MiB per 1000 partitions ended (NAN with too few). */
static double main_slope(const metric *m) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  unsigned n = 0;
  bool after = false;
  pthread_mutex_lock(&soak.sample_mu);
  for (size_t i = 0; i < soak.nsamples; i++) {
    const sample *s = &soak.samples[i];
    if (s->phase != PH_MAIN) continue;
    if (!after) {
      after = s->mark && !strcmp(s->mark, "idle");
      continue;
    }
    double y = metric_of(s, m);
    if (isnan(y)) continue;
    double x = (double)s->parts_done / 1000.0;
    sx += x, sy += y, sxx += x * x, sxy += x * y;
    n++;
  }
  pthread_mutex_unlock(&soak.sample_mu);
  double d = n * sxx - sx * sx;
  return n >= 3 && d > 0 ? (n * sxy - sx * sy) / d : NAN;
}

/* Peak of a metric over a phase's samples (NAN if none). */
static double phase_peak(int phase, const metric *m) {
  double mx = NAN;
  pthread_mutex_lock(&soak.sample_mu);
  for (size_t i = 0; i < soak.nsamples; i++) {
    double v = metric_of(&soak.samples[i], m);
    if (soak.samples[i].phase == phase && !isnan(v) && (isnan(mx) || v > mx)) mx = v;
  }
  pthread_mutex_unlock(&soak.sample_mu);
  return mx;
}

#define MAX_SERIES (5 * NMETRICS)
static series judged[MAX_SERIES];
static size_t njudged;

static void judge_all(void) {
  njudged = 0;
  for (size_t k = 0; k < NMETRICS; k++) {
    const metric *m = &metrics[k];
    series s;
    if (soak.o.partitions > 0) {
      if (judge_series(PH_MAIN, "idle", NULL, J_IN_CYCLE, m, "main: idle, within a cycle", &s))
        judged[njudged++] = s;
      if (judge_series(PH_MAIN, "idle", NULL, J_CYCLE_END, m, "main: idle at each cycle's end", &s))
        judged[njudged++] = s;
      if (judge_series(PH_MAIN, "closed", NULL, J_FIRST, m, "main: after each close", &s))
        judged[njudged++] = s;
    }
    if (soak.o.big_log > 0) {
      if (judge_series(PH_BIG, "big-job", NULL, J_FIRST, m, "big: idle after each job", &s))
        judged[njudged++] = s;
      if (judge_series(PH_BIG, "big-closed", NULL, J_FIRST, m, "big: after each close", &s))
        judged[njudged++] = s;
    }
  }
}

static uint64_t ld(_Atomic uint64_t *p) { return atomic_load(p); }

static void print_tally_text(FILE *f, const char *name, tally *t) {
  fprintf(f,
          "  %s: %" PRIu64 " jobs, %" PRIu64 " ended, %" PRIu64 " OK; %" PRIu64
          " with a bad partition, %" PRIu64 " of them ASSIGNMENT as planned; %" PRIu64
          " cancelled at once, %" PRIu64 " CANCELLED, %" PRIu64 " OK (had all started); %" PRIu64
          " in flight at close, %" PRIu64 " OK, %" PRIu64 " SHUTDOWN; %" PRIu64
          " refused at submit; %" PRIu64
          " srs reloads\n"
          "  %s partitions: %" PRIu64 " submitted, %" PRIu64 " proved, %" PRIu64
          " verified here, %" PRIu64 " invalid, %" PRIu64 " cancelled, %" PRIu64 " shut down\n",
          name, ld(&t->jobs), ld(&t->ended), ld(&t->ok), ld(&t->bad_jobs), ld(&t->bad_caught),
          ld(&t->cancel_jobs), ld(&t->cancelled), ld(&t->cancel_late), ld(&t->burst),
          ld(&t->burst_ok), ld(&t->burst_shutdown), ld(&t->refused), ld(&t->reloads), name,
          ld(&t->parts_submitted), ld(&t->parts_ok), ld(&t->parts_verified), ld(&t->parts_invalid),
          ld(&t->parts_cancelled), ld(&t->parts_shutdown));
}

static void json_tally(FILE *f, const char *name, tally *t) {
  fprintf(f,
          "\"%s\": {\"jobs\": %" PRIu64 ", \"ended\": %" PRIu64 ", \"ok\": %" PRIu64
          ", \"bad_jobs\": %" PRIu64 ", \"bad_caught\": %" PRIu64 ", \"cancel_jobs\": %" PRIu64
          ", \"cancelled\": %" PRIu64 ", \"cancel_late\": %" PRIu64 ", \"burst\": %" PRIu64
          ", \"burst_ok\": %" PRIu64 ", \"burst_shutdown\": %" PRIu64 ", \"refused\": %" PRIu64
          ", \"partitions_submitted\": %" PRIu64 ", \"partitions_proved\": %" PRIu64
          ", \"partitions_verified\": %" PRIu64 ", \"partitions_invalid\": %" PRIu64
          ", \"partitions_cancelled\": %" PRIu64 ", \"partitions_shutdown\": %" PRIu64
          ", \"reloads\": %" PRIu64 "}",
          name, ld(&t->jobs), ld(&t->ended), ld(&t->ok), ld(&t->bad_jobs), ld(&t->bad_caught),
          ld(&t->cancel_jobs), ld(&t->cancelled), ld(&t->cancel_late), ld(&t->burst),
          ld(&t->burst_ok), ld(&t->burst_shutdown), ld(&t->refused), ld(&t->parts_submitted),
          ld(&t->parts_ok), ld(&t->parts_verified), ld(&t->parts_invalid), ld(&t->parts_cancelled),
          ld(&t->parts_shutdown), ld(&t->reloads));
}

static void json_num(FILE *f, double v) {
  if (isnan(v))
    fprintf(f, "null");
  else
    fprintf(f, "%.1f", v);
}

/* Every job submitted ended (the tallies agree). */
void soak_check_ended(void) {
  for (int p = PH_MAIN; p <= PH_BIG; p++) {
    uint64_t jobs = ld(&soak.t[p].jobs), ended = ld(&soak.t[p].ended);
    if (jobs != ended)
      soak_fail("%s phase: %" PRIu64 " jobs submitted, %" PRIu64 " ended", phase_names[p], jobs,
                ended);
  }
}

/* What the verdict rests on, computed once per summary. */
typedef struct verdict {
  bool partial, pass, mem_pass;
  unsigned fails;
  size_t nsamples;
} verdict;

static void write_json(FILE *f, const verdict *vd) {
  bool partial = vd->partial, pass = vd->pass;
  unsigned fails = vd->fails;
  size_t nsamples = vd->nsamples;
  fprintf(f, "{\"verdict\": \"%s\", \"partial\": %s, \"failures\": %u, \"first_failure\": ",
          pass ? "PASS" : "FAIL", partial ? "true" : "false", fails);
  sp_cli_json_str(f, soak.first_failure);
  fprintf(f, ", \"seed\": %" PRIu64 ", \"ini\": ", soak.o.seed);
  sp_cli_json_str(f, soak.o.ini);
  fprintf(f, ", \"module\": ");
  sp_cli_json_str(f, soak.h.path);
  if (soak.o.partitions > 0)
    fprintf(f,
            ", \"main\": {\"log\": %u, \"partitions\": %" PRIu64
            ", \"cycles\": %u, "
            "\"segments\": %u, \"threads\": %u, \"seconds\": %.1f, \"partitions_per_second\": "
            "%.2f, \"load_ms_max\": %.1f}",
            soak.o.log, soak.o.partitions, soak.o.cycles, soak.o.segments, soak.o.threads,
            soak.main_ms / 1e3, soak.main_parts_per_s, soak.main_load_ms_max);
  else
    fprintf(f, ", \"main\": null");
  if (soak.o.big_log > 0)
    fprintf(f,
            ", \"big\": {\"log\": %u, \"partitions\": %" PRIu64
            ", \"params_gb\": %.3f, "
            "\"load_ms\": %.1f, \"reload_ms\": %.1f, \"prove_ms\": %.1f, "
            "\"partitions_proved\": %" PRIu64,
            soak.o.big_log, soak.o.big_partitions, soak.big_params_gb, soak.big_load_ms,
            soak.big_reload_ms, soak.big_prove_ms, soak.big_parts_proved);
  if (soak.o.big_log > 0 && soak.urg_ran) {
    fprintf(f,
            ", \"urgent\": {\"priority\": 100, \"after_partitions_released\": %u, "
            "\"status\": %d, \"device\": %d, \"queued_to_start_ms\": %.1f, \"run_ms\": %.1f, "
            "\"queued_to_done_ms\": %.1f, \"stream_run_median_ms\": %.1f, "
            "\"start_within_one_partition\": %s, \"stream_execute_median_ms\": %.1f, "
            "\"start_within_one_execute\": %s, \"timeline\": ",
            soak.urg_released_at_submit, soak.urg.status, soak.urg.device, soak.urg.queued_ms,
            soak.urg.run_ms, soak.urg_done_ms, soak.urg_stream_run_median_ms,
            soak.urg_within ? "true" : "false", soak.urg_exec_median_ms,
            soak.urg_within_exec ? "true" : "false");
    if (soak.urg_tl)
      fprintf(f,
              "{\"queued_to_start_ms\": %.1f, \"stream_starts_between\": %u, "
              "\"stream_verify_median_ms\": %.1f}}",
              soak.urg_tl_wait_ms, soak.urg_stream_starts_between, soak.urg_verify_median_ms);
    else
      fprintf(f, "null}");
  } else if (soak.o.big_log > 0) {
    fprintf(f, ", \"urgent\": null");
  }
  if (soak.o.big_log > 0)
    fprintf(f, "}");
  else
    fprintf(f, ", \"big\": null");
  fprintf(f, ", \"jobs\": {");
  json_tally(f, "main", &soak.t[PH_MAIN]);
  fprintf(f, ", ");
  json_tally(f, "big", &soak.t[PH_BIG]);
  fprintf(f, "}, \"max_growth_mib\": %.1f, \"memory\": [", soak.o.max_growth_mib);
  for (size_t i = 0; i < njudged; i++) {
    const series *s = &judged[i];
    fprintf(f, "%s{\"metric\": \"%s\", \"series\": ", i ? ", " : "", s->metric);
    sp_cli_json_str(f, s->what);
    fprintf(f, ", \"samples\": %u, \"base\": ", s->n);
    json_num(f, s->base);
    fprintf(f, ", \"last\": ");
    json_num(f, s->last);
    fprintf(f, ", \"max\": ");
    json_num(f, s->max);
    fprintf(f, ", \"growth\": ");
    json_num(f, s->growth);
    fprintf(f, ", \"pass\": %s}", s->pass ? "true" : "false");
  }
  fprintf(f, "], \"peaks\": {");
  for (size_t k = 0; k < NMETRICS; k++) {
    fprintf(f, "%s\"%s\": {\"main\": ", k ? ", " : "", metrics[k].name);
    json_num(f, phase_peak(PH_MAIN, &metrics[k]));
    fprintf(f, ", \"big\": ");
    json_num(f, phase_peak(PH_BIG, &metrics[k]));
    fprintf(f, ", \"main_slope_mib_per_1000_partitions\": ");
    json_num(f, main_slope(&metrics[k]));
    fprintf(f, "}");
  }
  fprintf(f, "}, \"samples\": %zu, \"series\": ", nsamples);
  sp_cli_json_str(f, soak.o.series);
  fprintf(f, "}\n");
}

static void write_text(FILE *f, const verdict *vd) {
  bool partial = vd->partial, pass = vd->pass, mem_pass = vd->mem_pass;
  unsigned fails = vd->fails;
  size_t nsamples = vd->nsamples;
  fprintf(f, "== sealprov soak%s: seed %" PRIu64 ", INI %s, module %s\n",
          partial ? " (CUT SHORT)" : "", soak.o.seed, soak.o.ini, soak.h.path);
  if (soak.o.partitions > 0) {
    fprintf(f,
            "main phase: 2^%u, %" PRIu64
            " partitions, %u cycles x %u segments, %u host threads: "
            "%.1f s, %.2f partitions/s; slowest srs_load %.0f ms\n",
            soak.o.log, soak.o.partitions, soak.o.cycles, soak.o.segments, soak.o.threads,
            soak.main_ms / 1e3, soak.main_parts_per_s, soak.main_load_ms_max);
    print_tally_text(f, "main", &soak.t[PH_MAIN]);
  }
  if (soak.o.big_log > 0) {
    fprintf(f,
            "big phase: 2^%u, %.3f GB of parameters; checked srs_load %.1f s (%.2f GB/s), again "
            "after srs_release %.1f s; %" PRIu64 " partitions proved in %.1f s of jobs\n",
            soak.o.big_log, soak.big_params_gb, soak.big_load_ms / 1e3,
            soak.big_load_ms > 0 ? soak.big_params_gb / (soak.big_load_ms / 1e3) : 0,
            soak.big_reload_ms / 1e3, soak.big_parts_proved, soak.big_prove_ms / 1e3);
    if (soak.urg_ran)
      fprintf(f,
              "  urgent job (priority 100, after %u partitions released): status %d, device "
              "%d, waited %.1f ms for a worker, ran %.1f ms, done %.1f ms after submit; stream "
              "partitions ran %.1f ms (median): %s one partition\n",
              soak.urg_released_at_submit, soak.urg.status, soak.urg.device, soak.urg.queued_ms,
              soak.urg.run_ms, soak.urg_done_ms, soak.urg_stream_run_median_ms,
              soak.urg_within ? "within" : "MORE than");
    if (soak.urg_ran && soak.urg_tl)
      fprintf(f,
              "  urgent job in the module's timeline: queued -> start %.1f ms, %u stream "
              "partition%s started in between%s; stream execute %.1f ms, self-check %.1f ms "
              "(medians): the wait is %s one execute\n",
              soak.urg_tl_wait_ms, soak.urg_stream_starts_between,
              soak.urg_stream_starts_between == 1 ? "" : "s",
              soak.urg_stream_starts_between ? "" : " (it took the first worker to free up)",
              soak.urg_exec_median_ms, soak.urg_verify_median_ms,
              soak.urg_within_exec ? "within" : "MORE than");
    else if (soak.urg_ran)
      fprintf(f, "  urgent job: not in the module's timeline ([provider] timeline_events = 0?)\n");
    print_tally_text(f, "big", &soak.t[PH_BIG]);
  }
  fprintf(f,
          "memory in MiB, %zu samples in %s; a series GREW when a sample exceeds its base by "
          "more than %.0f MiB (within a cycle: each cycle's first idle sample is its base):\n",
          nsamples, soak.o.series, soak.o.max_growth_mib);
  fprintf(f, "  %-18s %-34s %3s %10s %10s %10s %8s %s\n", "metric", "series", "n", "base", "last",
          "max", "growth", "verdict");
  for (size_t i = 0; i < njudged; i++) {
    const series *s = &judged[i];
    fprintf(f, "  %-18s %-34s %3u %10.1f %10.1f %10.1f %8.1f %s\n", s->metric, s->what, s->n,
            s->base, s->last, s->max, s->growth, s->pass ? "flat" : "GREW");
  }
  fprintf(f, "  %-18s %10s %10s %s\n", "", "main peak", "big peak",
          "main slope after the first idle sample (MiB per 1000 partitions)");
  for (size_t k = 0; k < NMETRICS; k++)
    fprintf(f, "  %-18s %10.1f %10.1f %8.2f\n", metrics[k].name, phase_peak(PH_MAIN, &metrics[k]),
            phase_peak(PH_BIG, &metrics[k]), main_slope(&metrics[k]));
  if (fails) fprintf(f, "first failure: %s\n", soak.first_failure);
  fprintf(f, "verdict: %s (%u failure%s; memory %s)\n", pass ? "PASS" : "FAIL", fails,
          fails == 1 ? "" : "s", mem_pass ? "flat after the warm-up" : "GREW after the warm-up");
}

void soak_print_summary(bool partial) {
  judge_all();
  verdict vd = {.partial = partial, .fails = soak_failures(), .mem_pass = true};
  for (size_t i = 0; i < njudged; i++) vd.mem_pass = vd.mem_pass && judged[i].pass;
  vd.pass = !partial && vd.fails == 0 && vd.mem_pass;
  pthread_mutex_lock(&soak.sample_mu);
  vd.nsamples = soak.nsamples;
  pthread_mutex_unlock(&soak.sample_mu);
  if (soak.o.json) {
    write_json(stdout, &vd);
  } else {
    write_text(stdout, &vd);
  }
  sp_cli_output jo;
  if (soak.o.json_file && sp_cli_output_begin(&jo, "--json-file", soak.o.json_file)) {
    write_json(jo.f, &vd);
    sp_cli_output_commit(&jo);
  }
  fflush(stdout);
}

bool soak_series_pass(void) {
  for (size_t i = 0; i < njudged; i++)
    if (!judged[i].pass) return false;
  return true;
}
