/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_soak.c -- `sealprov soak`: a storage provider's traffic, hours of it in minutes,
 * driven through the ABI only (dlopen and the vtable, as a daemon does), with the
 * process's host memory and the GPUs' memory sampled every few seconds and judged at
 * the end. Issue 22 item 10: users of other GPU provers report device memory growing
 * over thousands of proofs until the daemon dies; this is how we show ours does not.
 *
 * The plan (every number is an option; --help lists them):
 *  1. Parameters. A child process (fork, before the module or CUDA is touched here)
 *     makes each phase's synthetic circuit and INSECURE setup (--gpu: the fixed-base
 *     products on a GPU, as `setup --gpu`) and writes DIR/soak-2^K-iN-sS.params and
 *     .vk. Meanwhile this process makes the same circuit and the witnesses in memory:
 *     the disk holds the parameters, not 16 GiB assignment files. The child's CUDA
 *     context ends with it, so the GPU memory sampled later is the module's alone.
 *  2. Main phase (--log K, --partitions N): --cycles times: open the provider, srs_load
 *     (checked as the INI says), then --segments segments of traffic from --threads
 *     host threads: jobs of 1..--max-parts partitions of the witnesses, random
 *     priorities, waited on at once or in batches (newest first). --cancel-percent of
 *     the jobs are submitted at the lowest priority and cancelled at once: expected
 *     CANCELLED, or OK when every partition had started. --bad-percent carry one
 *     partition whose c[r] is a[r]*b[r] + 1 on one row: expected ASSIGNMENT for the job
 *     and that partition, every other partition proved, no device charged. Halfway
 *     through each segment the parameters are loaded again and the old handle released
 *     while jobs still hold it. A segment ends idle (every job waited on): sample
 *     "idle". A cycle ends with --burst DETACHED jobs left in flight, the parameters
 *     released and close(): each of those jobs must end (OK or SHUTDOWN) through its
 *     callback. Sample "closed".
 *  3. Big phase (--big-log K, --big-partitions N; 2^27 and 30 on a GPU): an open/close
 *     for a baseline, open, a checked srs_load, then jobs of --big-job partitions that
 *     all use one witness in memory: the first all good; the second with one bad
 *     partition, and a job submitted behind it and cancelled while queued; then
 *     srs_release and srs_load again; then the rest. Sample "big-job" after each job,
 *     close, "big-closed". Then a second cycle: open, checked load, one job, release,
 *     close, "big-closed" again.
 * Every proof that comes back with status OK is verified again here with verify() on a
 * second provider (one CPU device) and the .vk read back from disk (the module has
 * self-checked it already).
 *
 * A sampler thread records every --sample-ms: host RSS (VmRSS), the module's stats()
 * (device memory its engines hold, page-locked host memory, the module's host memory,
 * jobs active, queue depth) and per GPU `nvidia-smi --query-gpu=memory.used` (what
 * cudaMemGetInfo says, seen from outside: the host makes no CUDA call). Rows go to
 * --series (default DIR/soak-series.csv) as they are taken; named samples ("idle",
 * "closed", ...) are taken at the points named above.
 *
 * Verdict: every job ended with its expected status and exactly one on_complete, every
 * OK proof verifies, no device was charged or quarantined, and memory is flat after the
 * warm-up: for GPU memory used, engine device memory, host RSS and module host memory,
 * no "idle" sample after the first (the first segment is the warm-up) exceeds the first
 * by more than --max-growth-mib, nor any "closed" sample the first cycle's; in the big
 * phase the same for the "big-job" samples, and the second cycle's "big-closed" against
 * the first's. (The baseline close before any work is recorded, not judged: a process's
 * first kernels load their code onto the device, which stays until the process ends.)
 * Exit status 0 PASS, 1 FAIL, 2 bad usage. */
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

#define SOAK_MAX_THREADS 64
#define SOAK_MAX_PARTS 64 /* partitions per job */
#define SOAK_BATCH 4      /* jobs a batch keeps in flight before it waits */
#define SOAK_MAX_GPUS 16  /* nvidia-smi columns */
#define NSTATUS (SEALPROV_STATUS_COUNT_ + 1)
#define STATS_CAP (256u << 10) /* stats() text: ~3 KB per device */

/* ---- options ------------------------------------------------------------------------ */
typedef struct soak_opts {
  const char *ini, *dir, *series, *nvidia_smi;
  unsigned log, inputs, witnesses, cycles, segments, threads, max_parts, burst;
  uint64_t partitions;
  unsigned cancel_pct, bad_pct;
  bool reload;
  unsigned big_log, big_inputs, big_job;
  uint64_t big_partitions;
  unsigned big_urgent_after; /* 0: none; else the urgent job after K partitions released */
  bool gpu;
  unsigned gpu_ordinal, setup_threads;
  unsigned sample_ms, time_limit_s;
  double max_growth_mib;
  uint64_t seed;
  bool keep, reuse, json;
  const char *json_file;
} soak_opts;

static void soak_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov soak [--plugin MODULE] -c INI --dir DIR [options]\n"
          "  A storage provider's traffic through the ABI, with host RSS and GPU memory\n"
          "  sampled all along; FAILS when a job ends otherwise than planned, a proof does\n"
          "  not verify, or memory grows after the warm-up (docs/PERFORMANCE.md, \"Soak\").\n"
          "  Parameters (INSECURE, made here) and the time series go into DIR.\n"
          "main phase: jobs of several partitions, cancels, bad partitions, reloads, close/open\n"
          "  --log K              domain 2^K (0.97 x 2^K constraints; default 10)\n"
          "  --inputs N           public inputs besides ONE (default 4)\n"
          "  --partitions N       partitions submitted in all (default 120; 0: no main phase)\n"
          "  --witnesses W        distinct witnesses in memory (default 3)\n"
          "  --cycles C           open ... close cycles (default 3)\n"
          "  --segments S         segments per cycle, each ending idle (default 2)\n"
          "  --threads T          host threads (default 4)\n"
          "  --max-parts P        partitions per job, 1..P (default 4)\n"
          "  --cancel-percent X   jobs cancelled right after submit (default 10)\n"
          "  --bad-percent X      jobs with one partition that does not satisfy (default 10)\n"
          "  --burst B            DETACHED jobs left in flight at each close (default 6)\n"
          "  --no-reload          no srs_release/srs_load halfway through each segment\n"
          "big phase: a checked load, then jobs of many partitions of one large witness\n"
          "  --big-log K          domain 2^K (default 0: no big phase)\n"
          "  --big-inputs N       public inputs (default: --inputs)\n"
          "  --big-partitions N   partitions submitted, cancelled job apart (default 30)\n"
          "  --big-job P          partitions per job (default 10)\n"
          "  --big-urgent-after K during the first big job, once the module has released\n"
          "                       K of its partitions' inputs, a 1-partition job of\n"
          "                       priority 100 (a WinningPoSt during sealing): reports its\n"
          "                       wait from submit to start against the stream's partition\n"
          "                       run time and, from the module's timeline, its median\n"
          "                       execute, and how many stream partitions started in\n"
          "                       between (0: the first worker to free up took it)\n"
          "                       (default 0: none)\n"
          "setup and measurement\n"
          "  --gpu[=ORDINAL]      the setups' fixed-base products on that GPU (default 0)\n"
          "  --setup-threads N    CPU threads of the setups (default: online CPUs)\n"
          "  --reuse              take DIR's parameter files of an earlier --keep run\n"
          "  --keep               keep the parameter files (default: removed at the end)\n"
          "  --sample-ms MS       sampling period (default 2000)\n"
          "  --series FILE        the CSV time series (default DIR/soak-series.csv)\n"
          "  --nvidia-smi PATH    GPU memory from this program, or none (default:\n"
          "                       nvidia-smi when it is on PATH)\n"
          "  --max-growth-mib X   growth after the warm-up that fails the run (default 128)\n"
          "  --time-limit S       report and exit 1 after S seconds (default 0: none)\n"
          "  --seed S             circuits, witnesses and the traffic plan (default: random)\n"
          "  --json               the summary as JSON on stdout (instead of text)\n"
          "  --json-file FILE     the JSON summary into FILE as well\n"
          "Exit status: 0 PASS, 1 FAIL, 2 bad usage.\n");
}

/* ---- one phase's data -------------------------------------------------------------- */
typedef struct phase_data {
  const char *name; /* "main", "big" */
  unsigned log, inputs, nwit;
  uint64_t constraints, circuit_seed, setup_seed;
  char params[PATH_MAX], vk[PATH_MAX];
  sp_witness **wit;
  sealprov_assignment bad; /* witness 0 with c[bad_row] = a*b + 1 */
  uint8_t *bad_c;
  uint64_t bad_row;
  bool want_bad;
  sealprov_srs *vkh; /* on the verifier */
  bool reused;
  char err[1024]; /* what went wrong making the witnesses */
  double witness_ms;
} phase_data;

/* ---- the time series ------------------------------------------------------------------ */
enum { PH_PREPARE = 0, PH_MAIN = 1, PH_BIG = 2 };
static const char *const phase_names[] = {"prepare", "main", "big"};

typedef struct sample {
  double t_s;
  int phase, cycle, segment;
  const char *mark; /* NULL: periodic */
  uint64_t parts_done;
  double rss_mib, module_host_mib, pinned_mib, engine_mib, jobs_active, queue_depth;
  double gpu_used_mib, gpu_total_mib; /* sums over the GPUs */
  double gpu_used[SOAK_MAX_GPUS];
} sample;

/* ---- what the run counts (atomics: host threads, callbacks and the sampler) -------- */
typedef struct tally {
  _Atomic uint64_t jobs, ended, ok, refused;
  _Atomic uint64_t bad_jobs, bad_caught, cancel_jobs, cancelled, cancel_late;
  _Atomic uint64_t burst, burst_ok, burst_shutdown;
  _Atomic uint64_t parts_submitted, parts_ok, parts_verified, parts_invalid, parts_cancelled,
      parts_shutdown;
  _Atomic uint64_t reloads;
  _Atomic uint64_t by_status[NSTATUS];
} tally;

/* ---- everything the threads share ----------------------------------------------------- */
static struct {
  soak_opts o;
  sp_cli_host h;
  const sealprov_vtable *vt;
  sealprov_provider *vprov; /* the verifier: one CPU device */
  /* the provider under test: open/close and stats() under prov_mu (close() must not race
   * with any call; the host threads make none while it runs) */
  pthread_mutex_t prov_mu;
  sealprov_provider *prov;
  /* the parameter handle jobs take: readers submit under it, a reload swaps it */
  pthread_rwlock_t srs_lock;
  sealprov_srs *srs;
  phase_data *pd; /* the running phase's */
  /* samples */
  pthread_mutex_t sample_mu;
  sample *samples;
  size_t nsamples, cap_samples;
  FILE *csv;
  int phase, cycle, segment;
  unsigned ngpu; /* nvidia-smi's GPUs (0: none) */
  bool smi;
  double t0;
  /* the sampler */
  pthread_t sampler;
  pthread_mutex_t stop_mu;
  pthread_cond_t stop_cv;
  bool stop, sampler_started;
  _Atomic uint64_t parts_done;
  tally t[3]; /* by phase */
  /* failures */
  pthread_mutex_t fail_mu;
  unsigned failures;
  char first_failure[600];
  /* segment progress: partitions taken, and the controller's wake-up */
  pthread_mutex_t seg_mu;
  pthread_cond_t seg_cv;
  uint64_t seg_budget, seg_taken;
  unsigned seg_live; /* host threads still running */
  /* big-phase figures */
  double big_load_ms, big_reload_ms, big_params_gb, big_prove_ms;
  uint64_t big_parts_proved;
  /* --big-urgent-after: the urgent job's partition result and the stream's run median */
  bool urg_ran, urg_within; /* within: queued_ms <= the stream's median run_ms */
  sealprov_partition_result urg;
  unsigned urg_released_at_submit;
  double urg_done_ms, urg_stream_run_median_ms;
  /* from the module's timeline: the stream's median execute (a partition's time on its
   * device), the urgent job's queued -> start there, and how many stream partitions
   * started in between (0: it took the first worker to free up) */
  sealprov_job_id urg_id;
  bool urg_tl;          /* the timeline had the urgent job's queued and start events */
  bool urg_within_exec; /* queued_ms <= the stream's median execute */
  double urg_exec_median_ms, urg_verify_median_ms, urg_tl_wait_ms;
  unsigned urg_stream_starts_between;
  double main_load_ms_max, main_ms, main_parts_per_s;
} S = {
    .prov_mu = PTHREAD_MUTEX_INITIALIZER,
    .srs_lock = PTHREAD_RWLOCK_INITIALIZER,
    .sample_mu = PTHREAD_MUTEX_INITIALIZER,
    .stop_mu = PTHREAD_MUTEX_INITIALIZER,
    .stop_cv = PTHREAD_COND_INITIALIZER,
    .fail_mu = PTHREAD_MUTEX_INITIALIZER,
    .seg_mu = PTHREAD_MUTEX_INITIALIZER,
    .seg_cv = PTHREAD_COND_INITIALIZER,
};

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failf(const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&S.fail_mu);
  if (S.failures == 0) snprintf(S.first_failure, sizeof S.first_failure, "%s", msg);
  if (S.failures++ < 30) sp_cli_error("%s", msg);
  pthread_mutex_unlock(&S.fail_mu);
}

static unsigned failure_count(void) {
  pthread_mutex_lock(&S.fail_mu);
  unsigned n = S.failures;
  pthread_mutex_unlock(&S.fail_mu);
  return n;
}

/* xorshift64*, one state per thread */
static uint64_t rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * UINT64_C(0x2545F4914F6CDD1D);
}
static unsigned below(uint64_t *s, unsigned n) { return n ? (unsigned)(rnd(s) % n) : 0; }

static double now_s(void) { return (sp_cli_now_ms() - S.t0) / 1e3; }

/* ---- sampling -------------------------------------------------------------------------- */

/* VmRSS of this process in MiB (NAN if unreadable). */
static double rss_mib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  double v = NAN;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6)) v = (double)strtoull(line + 6, NULL, 10) / 1024.0;
  if (f) fclose(f);
  return v;
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
static unsigned smi_read(double *used, double *total) {
  if (!S.smi) return 0;
  char cmd[PATH_MAX + 128];
  snprintf(cmd, sizeof cmd,
           "'%s' --query-gpu=memory.used,memory.total --format=csv,noheader,nounits 2>/dev/null",
           S.o.nvidia_smi);
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

static void csv_header(void) {
  if (!S.csv) return;
  fprintf(S.csv,
          "t_s,phase,cycle,segment,mark,partitions_done,jobs_active,queue_depth,"
          "rss_mib,module_host_mib,pinned_mib,engine_device_mib,gpu_used_mib,gpu_total_mib");
  for (unsigned g = 0; g < S.ngpu; g++) fprintf(S.csv, ",gpu%u_used_mib", g);
  fputc('\n', S.csv);
  fflush(S.csv);
}

/* Takes one sample now (mark: its name, or NULL for a periodic one), records it and
 * writes its CSV row. A periodic sample skips stats() when the controller holds the
 * provider (open or close in progress); a named one waits for it. */
static void take_sample(const char *mark) {
  sample s;
  memset(&s, 0, sizeof s);
  s.mark = mark;
  s.rss_mib = rss_mib();
  s.module_host_mib = s.pinned_mib = s.engine_mib = s.jobs_active = s.queue_depth = NAN;
  s.gpu_used_mib = s.gpu_total_mib = NAN;
  for (unsigned g = 0; g < SOAK_MAX_GPUS; g++) s.gpu_used[g] = NAN;
  bool locked = mark ? pthread_mutex_lock(&S.prov_mu) == 0 : pthread_mutex_trylock(&S.prov_mu) == 0;
  if (locked) {
    char *buf = S.prov ? malloc(STATS_CAP) : NULL;
    if (buf) {
      size_t len = 0;
      /* a text longer than the buffer would lose devices' lines: then nothing is read */
      if (S.vt->stats(S.prov, buf, STATS_CAP, &len) == SEALPROV_OK && len < STATS_CAP) {
        double mb = 1024.0 * 1024.0;
        s.engine_mib = prom_sum(buf, "sealprov_device_memory_bytes") / mb;
        s.pinned_mib = prom_sum(buf, "sealprov_device_host_pinned_bytes") / mb;
        s.module_host_mib = prom_sum(buf, "sealprov_module_host_bytes") / mb;
        s.jobs_active = prom_sum(buf, "sealprov_jobs_active");
        s.queue_depth = prom_sum(buf, "sealprov_queue_depth");
      }
      free(buf);
    }
    pthread_mutex_unlock(&S.prov_mu);
  }
  double used[SOAK_MAX_GPUS], total[SOAK_MAX_GPUS];
  unsigned n = smi_read(used, total);
  if (n > 0) {
    s.gpu_used_mib = s.gpu_total_mib = 0;
    for (unsigned g = 0; g < n; g++) {
      s.gpu_used_mib += used[g];
      s.gpu_total_mib += total[g];
      if (g < S.ngpu) s.gpu_used[g] = used[g];
    }
  }
  pthread_mutex_lock(&S.sample_mu);
  s.t_s = now_s();
  s.phase = S.phase;
  s.cycle = S.cycle;
  s.segment = S.segment;
  s.parts_done = atomic_load(&S.parts_done);
  if (S.nsamples == S.cap_samples) {
    size_t cap = S.cap_samples ? 2 * S.cap_samples : 1024;
    sample *ns = realloc(S.samples, cap * sizeof *ns);
    if (ns) {
      S.samples = ns;
      S.cap_samples = cap;
    }
  }
  if (S.nsamples < S.cap_samples) S.samples[S.nsamples++] = s;
  if (S.csv) {
    fprintf(S.csv, "%.3f,%s,%d,%d,%s,%" PRIu64, s.t_s, phase_names[s.phase], s.cycle, s.segment,
            mark ? mark : "", s.parts_done);
    csv_num(S.csv, s.jobs_active);
    csv_num(S.csv, s.queue_depth);
    csv_num(S.csv, s.rss_mib);
    csv_num(S.csv, s.module_host_mib);
    csv_num(S.csv, s.pinned_mib);
    csv_num(S.csv, s.engine_mib);
    csv_num(S.csv, s.gpu_used_mib);
    csv_num(S.csv, s.gpu_total_mib);
    for (unsigned g = 0; g < S.ngpu; g++) csv_num(S.csv, s.gpu_used[g]);
    fputc('\n', S.csv);
    fflush(S.csv);
  }
  pthread_mutex_unlock(&S.sample_mu);
}

static void set_where(int phase, int cycle, int segment) {
  pthread_mutex_lock(&S.sample_mu);
  S.phase = phase;
  S.cycle = cycle;
  S.segment = segment;
  pthread_mutex_unlock(&S.sample_mu);
}

static void print_summary(bool partial);

static void *sampler_main(void *arg) {
  (void)arg;
  double deadline = S.o.time_limit_s ? (double)S.o.time_limit_s : INFINITY;
  pthread_mutex_lock(&S.stop_mu);
  while (!S.stop) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)S.o.sample_ms * 1000000u;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    int rc = pthread_cond_timedwait(&S.stop_cv, &S.stop_mu, &ts);
    if (S.stop) break;
    if (rc != ETIMEDOUT) continue;
    pthread_mutex_unlock(&S.stop_mu);
    take_sample(NULL);
    if (now_s() > deadline) {
      failf(
          "time limit of %u s reached in the %s phase (cycle %d, segment %d): the run is cut "
          "short",
          S.o.time_limit_s, phase_names[S.phase], S.cycle, S.segment);
      print_summary(true);
      fflush(NULL);
      _exit(1); /* the module's threads may be stuck: leave without joining them */
    }
    pthread_mutex_lock(&S.stop_mu);
  }
  pthread_mutex_unlock(&S.stop_mu);
  return NULL;
}

/* ---- the provider under test ----------------------------------------------------------- */

static bool prov_open(void) {
  sealprov_provider *p = NULL;
  double t0 = sp_cli_now_ms();
  int rc = S.vt->open(S.o.ini, &p);
  if (rc != SEALPROV_OK) {
    failf("open %s: %s: %s", S.o.ini, g16_status_name(rc), S.vt->last_error());
    return false;
  }
  pthread_mutex_lock(&S.prov_mu);
  S.prov = p;
  pthread_mutex_unlock(&S.prov_mu);
  sp_cli_note("opened %s in %.0f ms", S.o.ini, sp_cli_now_ms() - t0);
  return true;
}

static void prov_close(void) {
  pthread_mutex_lock(&S.prov_mu);
  if (S.prov) {
    int rc = S.vt->close(S.prov);
    if (rc != SEALPROV_OK) failf("close: %s: %s", g16_status_name(rc), S.vt->last_error());
  }
  S.prov = NULL;
  pthread_mutex_unlock(&S.prov_mu);
}

/* srs_load of the phase's parameters; *ms gets its time. */
static sealprov_srs *load_params(const phase_data *pd, double *ms) {
  sealprov_srs *srs = NULL;
  double t0 = sp_cli_now_ms();
  int rc = S.vt->srs_load(S.prov, pd->params, &srs);
  *ms = sp_cli_now_ms() - t0;
  if (rc != SEALPROV_OK) {
    failf("srs_load %s: %s: %s", pd->params, g16_status_name(rc), S.vt->last_error());
    return NULL;
  }
  return srs;
}

/* No device quarantined, none charged a failure: no fault is injected here, so every
 * failure the module saw was an input's, which must charge no device. */
static void check_devices(const char *when) {
  sealprov_device_info dev[64];
  size_t n = 0;
  for (size_t i = 0; i < 64; i++) dev[i].struct_size = sizeof dev[i];
  pthread_mutex_lock(&S.prov_mu);
  int rc = S.prov ? S.vt->devices(S.prov, dev, 64, &n) : SEALPROV_ERR_SHUTDOWN;
  pthread_mutex_unlock(&S.prov_mu);
  if (rc != SEALPROV_OK) {
    failf("devices() %s: %s", when, g16_status_name(rc));
    return;
  }
  for (size_t i = 0; i < n && i < 64; i++) {
    if (dev[i].state == SEALPROV_DEVICE_QUARANTINED)
      failf("%s: device %s is quarantined (%" PRIu64 " failures)", when, dev[i].section,
            dev[i].tasks_failed);
    else if (dev[i].tasks_failed != 0)
      failf("%s: device %s was charged %" PRIu64 " failures; only inputs were bad", when,
            dev[i].section, dev[i].tasks_failed);
  }
}

/* ---- jobs -------------------------------------------------------------------------------- */
enum job_kind { K_GOOD, K_BAD, K_CANCEL, K_BURST };
static const char *const kind_names[] = {"good", "bad-partition", "cancelled", "close-burst"};

typedef struct hjob {
  sealprov_job job;
  enum job_kind kind;
  unsigned n;
  int bad_pos;    /* -1: none */
  bool cancelled; /* cancel() returned OK */
  sealprov_job_id id;
  _Atomic int callbacks, cb_status;
  const phase_data *pd;
  tally *t;
  unsigned *wit; /* witness of each partition (bad_pos: the bad one) */
  sealprov_assignment *asg;
  uint8_t *proofs;
  sealprov_partition_result *res;
  _Atomic unsigned released; /* on_inputs_released calls (set for the urgent test) */
  char err[600];             /* last_error() of a wait that did not say OK */
} hjob;

static void on_released(void *user, sealprov_job_id id, uint32_t partition) {
  (void)id;
  (void)partition;
  hjob *h = user;
  atomic_fetch_add_explicit(&h->released, 1, memory_order_release);
}

static void on_complete(void *user, sealprov_job_id id, int status) {
  hjob *h = user;
  if (h->id != 0 && id != h->id)
    failf("on_complete: job id %" PRIu64 ", expected %" PRIu64, id, h->id);
  atomic_store(&h->cb_status, status);
  atomic_fetch_add_explicit(&h->callbacks, 1, memory_order_release);
}

/* A job of n partitions of the phase's witnesses (random, or witness 0 for all when
 * wit0), the one at bad_pos (>= 0) replaced by the bad partition. */
static hjob *job_new(const phase_data *pd, tally *t, enum job_kind kind, unsigned n, int bad_pos,
                     int priority, bool wit0, uint64_t *rs) {
  hjob *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->wit = calloc(n, sizeof *h->wit);
  h->asg = calloc(n, sizeof *h->asg);
  h->proofs = calloc(n, SEALPROV_PROOF_BYTES);
  h->res = calloc(n, sizeof *h->res);
  if (!h->wit || !h->asg || !h->proofs || !h->res) {
    free(h->wit);
    free(h->asg);
    free(h->proofs);
    free(h->res);
    free(h);
    return NULL;
  }
  h->kind = kind;
  h->n = n;
  h->bad_pos = bad_pos;
  h->pd = pd;
  h->t = t;
  for (unsigned i = 0; i < n; i++) {
    h->wit[i] = wit0 ? 0 : below(rs, pd->nwit);
    h->asg[i] = (int)i == bad_pos ? pd->bad : pd->wit[h->wit[i]]->asg;
    if ((int)i == bad_pos) h->wit[i] = 0; /* the bad partition is witness 0's with one c changed */
    h->res[i].status = -1;
  }
  h->job.struct_size = sizeof h->job;
  h->job.flags = kind == K_BURST ? SEALPROV_JOB_DETACHED : 0;
  h->job.partitions = h->asg;
  h->job.num_partitions = n;
  h->job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  h->job.priority = priority;
  h->job.proofs_out = h->proofs;
  h->job.results = h->res;
  h->job.on_complete = on_complete;
  h->job.user = h;
  atomic_init(&h->callbacks, 0);
  atomic_init(&h->cb_status, -1);
  atomic_init(&h->released, 0);
  return h;
}

static void job_free(hjob *h) {
  if (!h) return;
  free(h->wit);
  free(h->asg);
  free(h->proofs);
  free(h->res);
  free(h);
}

static void count_status(tally *t, int st) {
  atomic_fetch_add(&t->by_status[st >= 0 && st < SEALPROV_STATUS_COUNT_ ? st : NSTATUS - 1], 1);
}

/* Submits with the current parameter handle (held while submit takes its reference).
 * A refusal is the job's end: for a bad-partition job, ASSIGNMENT naming it is right. */
static bool job_submit(hjob *h) {
  tally *t = h->t;
  atomic_fetch_add(&t->jobs, 1);
  atomic_fetch_add(&t->parts_submitted, h->n);
  if (h->kind == K_BAD) atomic_fetch_add(&t->bad_jobs, 1);
  if (h->kind == K_CANCEL) atomic_fetch_add(&t->cancel_jobs, 1);
  if (h->kind == K_BURST) atomic_fetch_add(&t->burst, 1);
  pthread_rwlock_rdlock(&S.srs_lock);
  h->job.srs = S.srs;
  int rc = S.vt->submit(S.prov, &h->job, &h->id);
  pthread_rwlock_unlock(&S.srs_lock);
  if (rc == SEALPROV_OK) return true;
  const char *why = S.vt->last_error();
  atomic_fetch_add(&t->ended, 1);
  atomic_fetch_add(&t->refused, 1);
  count_status(t, rc);
  char want[32];
  snprintf(want, sizeof want, "partition %d", h->bad_pos);
  if (h->kind == K_BAD && rc == SEALPROV_ERR_ASSIGNMENT && strstr(why, want)) {
    atomic_fetch_add(&t->bad_caught, 1);
    return false;
  }
  failf("%s job of %u partitions refused at submit: %s: %s", kind_names[h->kind], h->n,
        g16_status_name(rc), why);
  return false;
}

/* Verifies partition i's proof with the phase's .vk on the verifier. */
static bool verify_partition(const hjob *h, unsigned i) {
  const sealprov_assignment *a = &h->pd->wit[h->wit[i]]->asg;
  int valid = -1;
  int rc =
      S.vt->verify(S.vprov, h->pd->vkh, (const uint8_t *)a->inp_assignment + SEALPROV_SCALAR_BYTES,
                   a->inp_size - 1, SEALPROV_SCALAR_CANONICAL_LE,
                   h->proofs + (size_t)i * SEALPROV_PROOF_BYTES, &valid);
  if (rc == SEALPROV_OK && valid == 1) return true;
  failf("%s job %" PRIu64
        " partition %u: status OK but the proof does not verify (verify: %s, "
        "valid %d: %s)",
        kind_names[h->kind], h->id, i, g16_status_name(rc), valid,
        rc != SEALPROV_OK ? S.vt->last_error() : "pairing check failed");
  return false;
}

/* Checks an ended job against the plan. status: what wait() said (or on_complete for
 * DETACHED jobs); closing: it was in flight at close(). */
static void job_check(hjob *h, int status, bool closing) {
  tally *t = h->t;
  atomic_fetch_add(&t->ended, 1);
  count_status(t, status);
  int cbs = atomic_load_explicit(&h->callbacks, memory_order_acquire);
  if (cbs != 1)
    failf("%s job %" PRIu64 ": on_complete called %d times", kind_names[h->kind], h->id, cbs);
  else if (atomic_load(&h->cb_status) != status)
    failf("%s job %" PRIu64 ": on_complete said %s, wait() said %s", kind_names[h->kind], h->id,
          g16_status_name(atomic_load(&h->cb_status)), g16_status_name(status));
  if (status == SEALPROV_OK) atomic_fetch_add(&t->ok, 1);
  unsigned ok = 0, verified = 0;
  for (unsigned i = 0; i < h->n; i++) {
    int ps = h->res[i].status;
    bool is_bad = (int)i == h->bad_pos;
    if (ps == SEALPROV_OK) {
      ok++;
      if (is_bad)
        failf("%s job %" PRIu64 ": the bad partition %u ended OK", kind_names[h->kind], h->id, i);
      else if (verify_partition(h, i))
        verified++;
      else
        atomic_fetch_add(&t->parts_invalid, 1);
      continue;
    }
    if (ps == SEALPROV_ERR_CANCELLED) atomic_fetch_add(&t->parts_cancelled, 1);
    if (ps == SEALPROV_ERR_SHUTDOWN) atomic_fetch_add(&t->parts_shutdown, 1);
    bool expected = (is_bad && ps == SEALPROV_ERR_ASSIGNMENT) ||
                    (h->kind == K_CANCEL && ps == SEALPROV_ERR_CANCELLED) ||
                    (closing && ps == SEALPROV_ERR_SHUTDOWN);
    if (!expected)
      failf("%s job %" PRIu64 " (job status %s) partition %u%s: status %s", kind_names[h->kind],
            h->id, g16_status_name(status), i, is_bad ? " (the bad one)" : "",
            ps < 0 ? "none (never ended?)" : g16_status_name(ps));
  }
  atomic_fetch_add(&t->parts_ok, ok);
  atomic_fetch_add(&t->parts_verified, verified);
  atomic_fetch_add(&S.parts_done, h->n);
  bool job_ok;
  switch (h->kind) {
    case K_GOOD: job_ok = status == SEALPROV_OK; break;
    case K_BAD:
      job_ok =
          status == SEALPROV_ERR_ASSIGNMENT && h->res[h->bad_pos].status == SEALPROV_ERR_ASSIGNMENT;
      if (job_ok) {
        char want[32];
        snprintf(want, sizeof want, "partition %d", h->bad_pos);
        if (!strstr(h->err, want))
          failf("bad-partition job %" PRIu64 ": the ASSIGNMENT message does not name %s: %s", h->id,
                want, h->err);
        atomic_fetch_add(&t->bad_caught, 1);
      }
      break;
    case K_CANCEL:
      job_ok = status == SEALPROV_ERR_CANCELLED || (status == SEALPROV_OK && ok == h->n);
      if (status == SEALPROV_ERR_CANCELLED)
        atomic_fetch_add(&t->cancelled, 1);
      else if (status == SEALPROV_OK)
        atomic_fetch_add(&t->cancel_late, 1);
      break;
    default: /* K_BURST */
      job_ok = status == SEALPROV_OK || status == SEALPROV_ERR_SHUTDOWN;
      if (status == SEALPROV_OK) atomic_fetch_add(&t->burst_ok, 1);
      if (status == SEALPROV_ERR_SHUTDOWN) atomic_fetch_add(&t->burst_shutdown, 1);
      break;
  }
  if (!job_ok)
    failf("%s job %" PRIu64 " of %u partitions%s ended %s: %s", kind_names[h->kind], h->id, h->n,
          closing ? " (in flight at close)" : "", g16_status_name(status),
          h->kind == K_BURST ? "(detached: no detail)" : h->err);
}

static int job_wait(hjob *h) {
  int rc = S.vt->wait(S.prov, h->id, -1);
  if (rc != SEALPROV_OK) snprintf(h->err, sizeof h->err, "%s", S.vt->last_error());
  return rc;
}

static void job_cancel(hjob *h) {
  int rc = S.vt->cancel(S.prov, h->id);
  if (rc == SEALPROV_OK)
    h->cancelled = true;
  else
    failf("cancel of job %" PRIu64 " (not waited on yet): %s: %s", h->id, g16_status_name(rc),
          S.vt->last_error());
}

/* ---- the main phase ------------------------------------------------------------------------- */
typedef struct host_thread {
  unsigned index;
  uint64_t seed;
  pthread_t tid;
} host_thread;

/* Takes up to want partitions of the segment's budget; 0 when it is spent. */
static unsigned take_partitions(unsigned want) {
  pthread_mutex_lock(&S.seg_mu);
  uint64_t left = S.seg_budget - S.seg_taken;
  unsigned n = left < want ? (unsigned)left : want;
  S.seg_taken += n;
  pthread_cond_broadcast(&S.seg_cv);
  pthread_mutex_unlock(&S.seg_mu);
  return n;
}

static void *main_thread(void *arg) {
  host_thread *ht = arg;
  uint64_t rs = ht->seed;
  const phase_data *pd = S.pd;
  tally *t = &S.t[PH_MAIN];
  hjob *batch[SOAK_BATCH];
  unsigned nb = 0;
  for (;;) {
    unsigned n = take_partitions(1 + below(&rs, S.o.max_parts));
    if (n == 0) break;
    unsigned pick = below(&rs, 100);
    enum job_kind kind = pick < S.o.cancel_pct                 ? K_CANCEL
                         : pick < S.o.cancel_pct + S.o.bad_pct ? K_BAD
                                                               : K_GOOD;
    int bad_pos = kind == K_BAD ? (int)below(&rs, n) : -1;
    /* cancelled jobs wait behind everything, so that they are still queued */
    int prio = kind == K_CANCEL ? INT32_MIN + 1 : (int)below(&rs, 4);
    hjob *h = job_new(pd, t, kind, n, bad_pos, prio, false, &rs);
    if (!h) {
      failf("host thread %u: out of memory for a job", ht->index);
      break;
    }
    if (!job_submit(h)) {
      atomic_fetch_add(&S.parts_done, n);
      job_free(h);
      continue;
    }
    if (kind == K_CANCEL) job_cancel(h);
    if (below(&rs, 2)) { /* wait now */
      job_check(h, job_wait(h), false);
      job_free(h);
      continue;
    }
    batch[nb++] = h;
    if (nb == SOAK_BATCH || below(&rs, 3) == 0)
      while (nb > 0) { /* newest first */
        hjob *b = batch[--nb];
        job_check(b, job_wait(b), false);
        job_free(b);
      }
  }
  while (nb > 0) {
    hjob *b = batch[--nb];
    job_check(b, job_wait(b), false);
    job_free(b);
  }
  pthread_mutex_lock(&S.seg_mu);
  S.seg_live--;
  pthread_cond_broadcast(&S.seg_cv);
  pthread_mutex_unlock(&S.seg_mu);
  return NULL;
}

/* srs_load of a new handle, swapped in, the old one released while jobs may hold it. */
static void reload_params(const phase_data *pd, double *ms) {
  sealprov_srs *fresh = load_params(pd, ms);
  if (!fresh) return;
  pthread_rwlock_wrlock(&S.srs_lock);
  sealprov_srs *old = S.srs;
  S.srs = fresh;
  pthread_rwlock_unlock(&S.srs_lock);
  S.vt->srs_release(old);
  atomic_fetch_add(&S.t[S.phase].reloads, 1);
}

/* One segment: T host threads until `budget` partitions are taken; a reload when half
 * of them are. */
static void run_segment(uint64_t budget, uint64_t *rs) {
  pthread_mutex_lock(&S.seg_mu);
  S.seg_budget = budget;
  S.seg_taken = 0;
  S.seg_live = 0;
  pthread_mutex_unlock(&S.seg_mu);
  host_thread ht[SOAK_MAX_THREADS];
  unsigned started = 0;
  for (unsigned i = 0; i < S.o.threads; i++) {
    ht[i].index = i;
    ht[i].seed = rnd(rs) | 1;
    pthread_mutex_lock(&S.seg_mu);
    S.seg_live++;
    pthread_mutex_unlock(&S.seg_mu);
    if (pthread_create(&ht[i].tid, NULL, main_thread, &ht[i]) != 0) {
      pthread_mutex_lock(&S.seg_mu);
      S.seg_live--;
      pthread_mutex_unlock(&S.seg_mu);
      failf("could start only %u of %u host threads", started, S.o.threads);
      break;
    }
    started++;
  }
  if (S.o.reload && started > 0) {
    pthread_mutex_lock(&S.seg_mu);
    /* halfway; or every thread has left (a failure) */
    while (S.seg_taken < budget / 2 + 1 && S.seg_taken < budget && S.seg_live > 0)
      pthread_cond_wait(&S.seg_cv, &S.seg_mu);
    pthread_mutex_unlock(&S.seg_mu);
    double ms = 0;
    reload_params(S.pd, &ms);
    if (ms > S.main_load_ms_max) S.main_load_ms_max = ms;
  }
  for (unsigned i = 0; i < started; i++) pthread_join(ht[i].tid, NULL);
}

/* DETACHED jobs left in flight for close(): checked once close() has returned. */
static void close_with_burst(const phase_data *pd, tally *t, uint64_t *rs) {
  hjob *burst[256];
  unsigned nb = 0;
  for (unsigned i = 0; i < S.o.burst && i < 256; i++) {
    unsigned n = 1 + below(rs, S.o.max_parts);
    hjob *h = job_new(pd, t, K_BURST, n, -1, (int)below(rs, 4), false, rs);
    if (!h) {
      failf("out of memory for a burst job");
      break;
    }
    if (job_submit(h))
      burst[nb++] = h;
    else
      job_free(h);
  }
  /* the parameters go while the burst still holds them */
  pthread_rwlock_wrlock(&S.srs_lock);
  sealprov_srs *old = S.srs;
  S.srs = NULL;
  pthread_rwlock_unlock(&S.srs_lock);
  S.vt->srs_release(old);
  take_sample("pre-close");
  prov_close();
  for (unsigned i = 0; i < nb; i++) {
    hjob *h = burst[i];
    if (atomic_load_explicit(&h->callbacks, memory_order_acquire) == 0) {
      failf("close-burst job %" PRIu64 ": no on_complete after close() returned", h->id);
      atomic_fetch_add(&t->ended, 1);
    } else {
      job_check(h, atomic_load(&h->cb_status), true);
    }
    job_free(h);
  }
}

static void main_phase(phase_data *pd, uint64_t *rs) {
  const soak_opts *o = &S.o;
  uint64_t nseg = (uint64_t)o->cycles * o->segments;
  double t0 = sp_cli_now_ms();
  uint64_t done0 = atomic_load(&S.parts_done);
  S.pd = pd;
  for (unsigned c = 1; c <= o->cycles; c++) {
    set_where(PH_MAIN, (int)c, 0);
    take_sample("pre-open");
    if (!prov_open()) return;
    double ms = 0;
    S.srs = load_params(pd, &ms);
    if (ms > S.main_load_ms_max) S.main_load_ms_max = ms;
    take_sample("loaded");
    if (!S.srs) {
      prov_close();
      return;
    }
    for (unsigned s = 1; s <= o->segments; s++) {
      uint64_t k = (uint64_t)(c - 1) * o->segments + (s - 1);
      uint64_t budget = o->partitions / nseg + (k < o->partitions % nseg);
      set_where(PH_MAIN, (int)c, (int)s);
      sp_cli_note("main phase: cycle %u of %u, segment %u of %u: %" PRIu64 " partitions", c,
                  o->cycles, s, o->segments, budget);
      run_segment(budget, rs);
      take_sample("idle");
      check_devices("after a segment");
    }
    set_where(PH_MAIN, (int)c, 0);
    close_with_burst(pd, &S.t[PH_MAIN], rs);
    take_sample("closed");
    if (failure_count() > 100) {
      sp_cli_error("more than 100 failures: the main phase stops here");
      break;
    }
  }
  S.main_ms = sp_cli_now_ms() - t0;
  uint64_t parts = atomic_load(&S.parts_done) - done0;
  S.main_parts_per_s = S.main_ms > 0 ? (double)parts / (S.main_ms / 1e3) : 0;
}

/* ---- the big phase ----------------------------------------------------------------------------- */

/* --big-urgent-after K: once K partitions of the stream job h have had their inputs
 * released (the module took them), a 1-partition job of priority 100 goes in; its
 * partition result says how long it waited for a worker (queued_ms: submit -> start),
 * which the design bounds by one partition of the stream. Waits for it to end. */
static void big_urgent(phase_data *pd, tally *t, hjob *h, uint64_t *rs) {
  unsigned k = S.o.big_urgent_after;
  double t0 = sp_cli_now_ms();
  while (atomic_load_explicit(&h->released, memory_order_acquire) < k &&
         atomic_load_explicit(&h->callbacks, memory_order_acquire) == 0) {
    if (sp_cli_now_ms() - t0 > 600e3) {
      failf("--big-urgent-after %u: the stream job released %u partitions in 600 s", k,
            atomic_load(&h->released));
      return;
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  if (atomic_load_explicit(&h->callbacks, memory_order_acquire) != 0) {
    failf("--big-urgent-after %u: the stream job ended first (%u partitions)", k, h->n);
    return;
  }
  hjob *u = job_new(pd, t, K_GOOD, 1, -1, 100, true, rs);
  if (!u) {
    failf("out of memory for the urgent job");
    return;
  }
  S.urg_released_at_submit = atomic_load(&h->released);
  double ts = sp_cli_now_ms();
  if (job_submit(u)) {
    job_check(u, job_wait(u), false);
    S.urg_done_ms = sp_cli_now_ms() - ts;
    S.urg_ran = true;
    S.urg = u->res[0];
    S.urg_id = u->id;
  }
  job_free(u);
}

/* The module's timeline (ABI timeline(): "t=S event=E job=J partition=P ...
 * duration=S" a line) read for the stream job h and the urgent job: the stream's
 * execute events (each partition's time on its device), the urgent job's queued and
 * start events, and the stream partitions that started between those two. */
static void big_urgent_timeline(const hjob *h) {
  size_t len = 0;
  if (S.vt->timeline(S.prov, NULL, 0, &len) != SEALPROV_OK || len == 0) return;
  size_t cap = len + 4096, max = h->n ? 4 * (size_t)h->n : 1; /* events may come in between */
  char *buf = malloc(cap);
  double *ex = calloc(max, sizeof *ex), *st = calloc(max, sizeof *st);
  double *vf = calloc(max, sizeof *vf);
  unsigned nex = 0, nst = 0, nvf = 0;
  double tq = -1, tst = -1;
  if (!buf || !ex || !st || !vf || S.vt->timeline(S.prov, buf, cap, &len) != SEALPROV_OK) goto out;
  for (char *line = buf, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    double t = 0;
    char ev[16] = "";
    uint64_t job = 0;
    if (sscanf(line, "t=%lf event=%15s job=%" SCNu64, &t, ev, &job) != 3) continue;
    const char *d = strstr(line, " duration=");
    if (job == S.urg_id && !strcmp(ev, "queued") && tq < 0) tq = t;
    if (job == S.urg_id && !strcmp(ev, "start")) tst = t; /* the last, if it was requeued */
    if (job == h->id && !strcmp(ev, "execute") && d && nex < max)
      ex[nex++] = strtod(d + 10, NULL) * 1e3;
    if (job == h->id && !strcmp(ev, "start") && nst < max) st[nst++] = t;
    /* the self-check after execute: the worker takes its next task after it */
    if (job == h->id && !strcmp(ev, "verify") && d && nvf < max)
      vf[nvf++] = strtod(d + 10, NULL) * 1e3;
  }
  S.urg_exec_median_ms = sp_cli_median(ex, nex);
  S.urg_verify_median_ms = sp_cli_median(vf, nvf);
  if (tq >= 0 && tst >= tq) {
    S.urg_tl = true;
    S.urg_tl_wait_ms = (tst - tq) * 1e3;
    for (unsigned i = 0; i < nst; i++)
      if (st[i] > tq && st[i] < tst) S.urg_stream_starts_between++;
  }
  S.urg_within_exec = nex > 0 && S.urg.queued_ms <= S.urg_exec_median_ms;
out:
  free(buf);
  free(ex);
  free(st);
  free(vf);
}

/* The stream's median partition run time (OK partitions), after it ended, and whether
 * the urgent job waited less than that; then the timeline's figures. */
static void big_urgent_stream(const hjob *h) {
  double *v = calloc(h->n ? h->n : 1, sizeof *v);
  unsigned m = 0;
  if (!v) return;
  for (unsigned i = 0; i < h->n; i++)
    if (h->res[i].status == SEALPROV_OK) v[m++] = h->res[i].run_ms;
  S.urg_stream_run_median_ms = sp_cli_median(v, m);
  free(v);
  S.urg_within = S.urg_ran && S.urg.queued_ms <= S.urg_stream_run_median_ms;
  if (S.urg_ran) big_urgent_timeline(h);
}

static void big_phase(phase_data *pd, uint64_t *rs) {
  const soak_opts *o = &S.o;
  tally *t = &S.t[PH_BIG];
  S.pd = pd;
  set_where(PH_BIG, 0, 0);
  /* a baseline: what an opened and closed provider leaves (a CUDA context, pools) */
  take_sample("pre-open");
  if (!prov_open()) return;
  take_sample("baseline-open");
  prov_close();
  take_sample("baseline-closed");
  if (!prov_open()) return;
  take_sample("big-open");
  double ms = 0;
  S.srs = load_params(pd, &ms);
  S.big_load_ms = ms;
  struct stat st;
  S.big_params_gb = stat(pd->params, &st) == 0 ? (double)st.st_size / 1e9 : 0;
  sp_cli_note("big phase: %s loaded in %.1f s (%.2f GB/s)", pd->params, ms / 1e3,
              ms > 0 ? S.big_params_gb / (ms / 1e3) : 0);
  take_sample("big-loaded");
  if (!S.srs) {
    prov_close();
    return;
  }
  uint64_t left = o->big_partitions;
  double tp = sp_cli_now_ms();
  for (unsigned jobno = 0; left > 0; jobno++) {
    set_where(PH_BIG, 0, (int)jobno + 1);
    unsigned n = left < o->big_job ? (unsigned)left : o->big_job;
    bool bad = jobno == 1 && pd->want_bad;
    hjob *h = job_new(pd, t, bad ? K_BAD : K_GOOD, n, bad ? (int)(n / 2) : -1, 0, true, rs);
    hjob *c = NULL;
    if (!h) {
      failf("out of memory for a job");
      break;
    }
    bool urgent = jobno == 0 && o->big_urgent_after > 0;
    if (urgent) h->job.on_inputs_released = on_released;
    bool submitted = job_submit(h);
    if (submitted && urgent) big_urgent(pd, t, h, rs);
    if (submitted && jobno == 1 && o->cancel_pct > 0) {
      /* behind it, cancelled while queued */
      c = job_new(pd, t, K_CANCEL, o->big_job, -1, INT32_MIN + 1, true, rs);
      if (c && job_submit(c))
        job_cancel(c);
      else if (c) {
        job_free(c);
        c = NULL;
      }
    }
    if (submitted) {
      job_check(h, job_wait(h), false);
      if (urgent) big_urgent_stream(h);
    } else {
      atomic_fetch_add(&S.parts_done, n);
    }
    if (c) {
      job_check(c, job_wait(c), false);
      job_free(c);
    }
    sp_cli_note("big phase: job %u (%s, %u partitions) ended", jobno + 1, kind_names[h->kind], n);
    job_free(h);
    left -= n;
    take_sample("big-job");
    check_devices("after a big job");
    if (jobno == 1 && o->reload) {
      /* release with no job holding it: the set must leave the GPU, then come back */
      pthread_rwlock_wrlock(&S.srs_lock);
      sealprov_srs *old = S.srs;
      S.srs = NULL;
      pthread_rwlock_unlock(&S.srs_lock);
      S.vt->srs_release(old);
      take_sample("big-released");
      double rms = 0;
      S.srs = load_params(pd, &rms);
      S.big_reload_ms = rms;
      atomic_fetch_add(&t->reloads, 1);
      take_sample("big-reloaded");
      if (!S.srs) break;
    }
  }
  S.big_prove_ms = sp_cli_now_ms() - tp - S.big_reload_ms;
  S.big_parts_proved = atomic_load(&t->parts_ok);
  pthread_rwlock_wrlock(&S.srs_lock);
  sealprov_srs *old = S.srs;
  S.srs = NULL;
  pthread_rwlock_unlock(&S.srs_lock);
  S.vt->srs_release(old);
  set_where(PH_BIG, 0, 0);
  take_sample("pre-close");
  prov_close();
  take_sample("big-closed");
  /* A second cycle: open, checked load, one job, release, close. What a close leaves is
   * judged against the first close after work, not against the baseline: CUDA loads a
   * kernel's code onto the device at its first launch (lazy module loading), so the
   * first partitions of a process add device memory that stays until the process ends
   * (measured on the H200: 529 -> 669 MiB used after close). A leak grows from one
   * cycle to the next; code loading does not. */
  if (!prov_open()) return;
  take_sample("big2-open");
  double ms2 = 0;
  S.srs = load_params(pd, &ms2);
  atomic_fetch_add(&t->reloads, 1);
  take_sample("big2-loaded");
  if (S.srs) {
    set_where(PH_BIG, 1, 1);
    hjob *h = job_new(pd, t, K_GOOD, o->big_job, -1, 0, true, rs);
    if (!h)
      failf("out of memory for a job");
    else {
      double t2 = sp_cli_now_ms();
      if (job_submit(h)) job_check(h, job_wait(h), false);
      S.big_prove_ms += sp_cli_now_ms() - t2;
      sp_cli_note("big phase: second cycle's job (%u partitions) ended", o->big_job);
      job_free(h);
      take_sample("big-job");
      check_devices("after a big job");
    }
    S.big_parts_proved = atomic_load(&t->parts_ok);
    pthread_rwlock_wrlock(&S.srs_lock);
    old = S.srs;
    S.srs = NULL;
    pthread_rwlock_unlock(&S.srs_lock);
    S.vt->srs_release(old);
  }
  set_where(PH_BIG, 0, 0);
  take_sample("pre-close");
  prov_close();
  take_sample("big-closed");
}

/* ---- preparation: parameters in a child, witnesses here ------------------------------------ */

static void phase_paths(phase_data *pd, const char *dir) {
  snprintf(pd->params, sizeof pd->params, "%s/soak-2^%u-i%u-s%" PRIu64 ".params", dir, pd->log,
           pd->inputs, pd->circuit_seed);
  snprintf(pd->vk, sizeof pd->vk, "%s/soak-2^%u-i%u-s%" PRIu64 ".vk", dir, pd->log, pd->inputs,
           pd->circuit_seed);
}

/* In the child: the circuit and its setup, written to pd's files. */
static int child_make_params(phase_data *pd) {
  char err[1024] = "";
  double t0 = sp_cli_now_ms(), tc = 0;
  if (g16_make_params(pd->constraints, pd->inputs, pd->circuit_seed, pd->setup_seed,
                      S.o.setup_threads, S.o.gpu ? (int)S.o.gpu_ordinal : -1, pd->params, pd->vk,
                      &tc, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("setup child: %s", err);
    return 1;
  }
  fprintf(stderr, "sealprov soak: setup 2^%u (%s): circuit %.1f s, parameters %.1f s -> %s\n",
          pd->log, S.o.gpu ? "fixed-base products on the GPU" : "CPU", tc / 1e3,
          (sp_cli_now_ms() - t0 - tc) / 1e3, pd->params);
  return 0;
}

/* In this process: the circuit (again: it is deterministic) and the witnesses. */
static void *witness_main(void *arg) {
  phase_data *pd = arg;
  double t0 = sp_cli_now_ms();
  sp_circuit *c = NULL;
  int rc = sp_circuit_generate(pd->constraints, pd->inputs, SP_SHAPE_SEALING, pd->circuit_seed, &c,
                               pd->err, sizeof pd->err);
  for (unsigned i = 0; rc == SEALPROV_OK && i < pd->nwit; i++)
    rc = sp_circuit_witness(c, pd->circuit_seed + 1 + i, &pd->wit[i], pd->err, sizeof pd->err);
  sp_circuit_free(c);
  if (rc == SEALPROV_OK && pd->want_bad) {
    /* witness 0 with one row that is certainly not satisfied (the kit's) */
    const sealprov_assignment *g = &pd->wit[0]->asg;
    rc = sp_assignment_break_row(g, pd->bad_row, &pd->bad_c, pd->err, sizeof pd->err);
    if (rc == SEALPROV_OK) {
      pd->bad = *g;
      pd->bad.c = pd->bad_c;
    }
  }
  pd->witness_ms = sp_cli_now_ms() - t0;
  if (rc != SEALPROV_OK && !pd->err[0])
    snprintf(pd->err, sizeof pd->err, "%s", g16_status_name(rc));
  return (void *)(intptr_t)rc;
}

/* Makes every phase's parameter files (a child process) and witnesses (threads here),
 * at once. */
static bool prepare(phase_data **pds, unsigned npd) {
  bool need_child = false;
  for (unsigned k = 0; k < npd; k++) {
    struct stat st;
    pds[k]->reused = S.o.reuse && stat(pds[k]->params, &st) == 0 && stat(pds[k]->vk, &st) == 0;
    if (pds[k]->reused)
      sp_cli_note("reusing %s (--reuse)", pds[k]->params);
    else
      need_child = true;
  }
  pid_t pid = -1;
  if (need_child) {
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
      sp_cli_error("fork for the setup: %s", strerror(errno));
      return false;
    }
    if (pid == 0) {
      int rc = 0;
      for (unsigned k = 0; k < npd && rc == 0; k++)
        if (!pds[k]->reused) rc = child_make_params(pds[k]);
      fflush(NULL);
      _exit(rc);
    }
  }
  pthread_t tid[2];
  bool started[2] = {false, false};
  for (unsigned k = 0; k < npd; k++)
    started[k] = pthread_create(&tid[k], NULL, witness_main, pds[k]) == 0;
  bool ok = true;
  for (unsigned k = 0; k < npd; k++) {
    void *rv = (void *)(intptr_t)SEALPROV_ERR_INTERNAL;
    if (started[k])
      pthread_join(tid[k], &rv);
    else
      snprintf(pds[k]->err, sizeof pds[k]->err, "could not start a thread");
    if ((intptr_t)rv != SEALPROV_OK) {
      sp_cli_error("witnesses of the %s phase (2^%u): %s", pds[k]->name, pds[k]->log, pds[k]->err);
      ok = false;
    } else {
      sp_cli_note("%s phase: %u witness%s of 2^%u in memory (%.1f s)", pds[k]->name, pds[k]->nwit,
                  pds[k]->nwit == 1 ? "" : "es", pds[k]->log, pds[k]->witness_ms / 1e3);
    }
  }
  if (pid > 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      sp_cli_error("the setup child failed (%s %d)", WIFEXITED(status) ? "exit" : "signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
      ok = false;
    }
  }
  return ok;
}

static void phase_free(phase_data *pd) {
  if (!pd) return;
  for (unsigned i = 0; pd->wit && i < pd->nwit; i++) sp_witness_free(pd->wit[i]);
  free(pd->wit);
  free(pd->bad_c);
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
  unsigned ncyc = S.o.cycles + 1;
  double *cb = calloc(ncyc, sizeof *cb), *cm = calloc(ncyc, sizeof *cm);
  unsigned *cn = calloc(ncyc, sizeof *cn);
  if (!cb || !cm || !cn) {
    free(cb), free(cm), free(cn);
    return false;
  }
  pthread_mutex_lock(&S.sample_mu);
  for (size_t i = 0; i < S.nsamples; i++) {
    const sample *s = &S.samples[i];
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
  pthread_mutex_unlock(&S.sample_mu);
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
  r->pass = r->growth <= S.o.max_growth_mib;
  return true;
}

/* Least-squares slope of a metric over the main phase's samples after its first idle
 * sample, in MiB per 1000 partitions ended (NAN with too few). */
static double main_slope(const metric *m) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  unsigned n = 0;
  bool after = false;
  pthread_mutex_lock(&S.sample_mu);
  for (size_t i = 0; i < S.nsamples; i++) {
    const sample *s = &S.samples[i];
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
  pthread_mutex_unlock(&S.sample_mu);
  double d = n * sxx - sx * sx;
  return n >= 3 && d > 0 ? (n * sxy - sx * sy) / d : NAN;
}

/* Peak of a metric over a phase's samples (NAN if none). */
static double phase_peak(int phase, const metric *m) {
  double mx = NAN;
  pthread_mutex_lock(&S.sample_mu);
  for (size_t i = 0; i < S.nsamples; i++) {
    double v = metric_of(&S.samples[i], m);
    if (S.samples[i].phase == phase && !isnan(v) && (isnan(mx) || v > mx)) mx = v;
  }
  pthread_mutex_unlock(&S.sample_mu);
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
    if (S.o.partitions > 0) {
      if (judge_series(PH_MAIN, "idle", NULL, J_IN_CYCLE, m, "main: idle, within a cycle", &s))
        judged[njudged++] = s;
      if (judge_series(PH_MAIN, "idle", NULL, J_CYCLE_END, m, "main: idle at each cycle's end", &s))
        judged[njudged++] = s;
      if (judge_series(PH_MAIN, "closed", NULL, J_FIRST, m, "main: after each close", &s))
        judged[njudged++] = s;
    }
    if (S.o.big_log > 0) {
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
static void check_ended(void) {
  for (int p = PH_MAIN; p <= PH_BIG; p++) {
    uint64_t jobs = ld(&S.t[p].jobs), ended = ld(&S.t[p].ended);
    if (jobs != ended)
      failf("%s phase: %" PRIu64 " jobs submitted, %" PRIu64 " ended", phase_names[p], jobs, ended);
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
  sp_cli_json_str(f, S.first_failure);
  fprintf(f, ", \"seed\": %" PRIu64 ", \"ini\": ", S.o.seed);
  sp_cli_json_str(f, S.o.ini);
  fprintf(f, ", \"module\": ");
  sp_cli_json_str(f, S.h.path);
  if (S.o.partitions > 0)
    fprintf(f,
            ", \"main\": {\"log\": %u, \"partitions\": %" PRIu64
            ", \"cycles\": %u, "
            "\"segments\": %u, \"threads\": %u, \"seconds\": %.1f, \"partitions_per_second\": "
            "%.2f, \"load_ms_max\": %.1f}",
            S.o.log, S.o.partitions, S.o.cycles, S.o.segments, S.o.threads, S.main_ms / 1e3,
            S.main_parts_per_s, S.main_load_ms_max);
  else
    fprintf(f, ", \"main\": null");
  if (S.o.big_log > 0)
    fprintf(f,
            ", \"big\": {\"log\": %u, \"partitions\": %" PRIu64
            ", \"params_gb\": %.3f, "
            "\"load_ms\": %.1f, \"reload_ms\": %.1f, \"prove_ms\": %.1f, "
            "\"partitions_proved\": %" PRIu64,
            S.o.big_log, S.o.big_partitions, S.big_params_gb, S.big_load_ms, S.big_reload_ms,
            S.big_prove_ms, S.big_parts_proved);
  if (S.o.big_log > 0 && S.urg_ran) {
    fprintf(f,
            ", \"urgent\": {\"priority\": 100, \"after_partitions_released\": %u, "
            "\"status\": %d, \"device\": %d, \"queued_to_start_ms\": %.1f, \"run_ms\": %.1f, "
            "\"queued_to_done_ms\": %.1f, \"stream_run_median_ms\": %.1f, "
            "\"start_within_one_partition\": %s, \"stream_execute_median_ms\": %.1f, "
            "\"start_within_one_execute\": %s, \"timeline\": ",
            S.urg_released_at_submit, S.urg.status, S.urg.device, S.urg.queued_ms, S.urg.run_ms,
            S.urg_done_ms, S.urg_stream_run_median_ms, S.urg_within ? "true" : "false",
            S.urg_exec_median_ms, S.urg_within_exec ? "true" : "false");
    if (S.urg_tl)
      fprintf(f,
              "{\"queued_to_start_ms\": %.1f, \"stream_starts_between\": %u, "
              "\"stream_verify_median_ms\": %.1f}}",
              S.urg_tl_wait_ms, S.urg_stream_starts_between, S.urg_verify_median_ms);
    else
      fprintf(f, "null}");
  } else if (S.o.big_log > 0) {
    fprintf(f, ", \"urgent\": null");
  }
  if (S.o.big_log > 0)
    fprintf(f, "}");
  else
    fprintf(f, ", \"big\": null");
  fprintf(f, ", \"jobs\": {");
  json_tally(f, "main", &S.t[PH_MAIN]);
  fprintf(f, ", ");
  json_tally(f, "big", &S.t[PH_BIG]);
  fprintf(f, "}, \"max_growth_mib\": %.1f, \"memory\": [", S.o.max_growth_mib);
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
  sp_cli_json_str(f, S.o.series);
  fprintf(f, "}\n");
}

static void write_text(FILE *f, const verdict *vd) {
  bool partial = vd->partial, pass = vd->pass, mem_pass = vd->mem_pass;
  unsigned fails = vd->fails;
  size_t nsamples = vd->nsamples;
  fprintf(f, "== sealprov soak%s: seed %" PRIu64 ", INI %s, module %s\n",
          partial ? " (CUT SHORT)" : "", S.o.seed, S.o.ini, S.h.path);
  if (S.o.partitions > 0) {
    fprintf(f,
            "main phase: 2^%u, %" PRIu64
            " partitions, %u cycles x %u segments, %u host threads: "
            "%.1f s, %.2f partitions/s; slowest srs_load %.0f ms\n",
            S.o.log, S.o.partitions, S.o.cycles, S.o.segments, S.o.threads, S.main_ms / 1e3,
            S.main_parts_per_s, S.main_load_ms_max);
    print_tally_text(f, "main", &S.t[PH_MAIN]);
  }
  if (S.o.big_log > 0) {
    fprintf(f,
            "big phase: 2^%u, %.3f GB of parameters; checked srs_load %.1f s (%.2f GB/s), again "
            "after srs_release %.1f s; %" PRIu64 " partitions proved in %.1f s of jobs\n",
            S.o.big_log, S.big_params_gb, S.big_load_ms / 1e3,
            S.big_load_ms > 0 ? S.big_params_gb / (S.big_load_ms / 1e3) : 0, S.big_reload_ms / 1e3,
            S.big_parts_proved, S.big_prove_ms / 1e3);
    if (S.urg_ran)
      fprintf(f,
              "  urgent job (priority 100, after %u partitions released): status %d, device "
              "%d, waited %.1f ms for a worker, ran %.1f ms, done %.1f ms after submit; stream "
              "partitions ran %.1f ms (median): %s one partition\n",
              S.urg_released_at_submit, S.urg.status, S.urg.device, S.urg.queued_ms, S.urg.run_ms,
              S.urg_done_ms, S.urg_stream_run_median_ms, S.urg_within ? "within" : "MORE than");
    if (S.urg_ran && S.urg_tl)
      fprintf(f,
              "  urgent job in the module's timeline: queued -> start %.1f ms, %u stream "
              "partition%s started in between%s; stream execute %.1f ms, self-check %.1f ms "
              "(medians): the wait is %s one execute\n",
              S.urg_tl_wait_ms, S.urg_stream_starts_between,
              S.urg_stream_starts_between == 1 ? "" : "s",
              S.urg_stream_starts_between ? "" : " (it took the first worker to free up)",
              S.urg_exec_median_ms, S.urg_verify_median_ms,
              S.urg_within_exec ? "within" : "MORE than");
    else if (S.urg_ran)
      fprintf(f, "  urgent job: not in the module's timeline ([provider] timeline_events = 0?)\n");
    print_tally_text(f, "big", &S.t[PH_BIG]);
  }
  fprintf(f,
          "memory in MiB, %zu samples in %s; a series GREW when a sample exceeds its base by "
          "more than %.0f MiB (within a cycle: each cycle's first idle sample is its base):\n",
          nsamples, S.o.series, S.o.max_growth_mib);
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
  if (fails) fprintf(f, "first failure: %s\n", S.first_failure);
  fprintf(f, "verdict: %s (%u failure%s; memory %s)\n", pass ? "PASS" : "FAIL", fails,
          fails == 1 ? "" : "s", mem_pass ? "flat after the warm-up" : "GREW after the warm-up");
}

static void print_summary(bool partial) {
  judge_all();
  verdict vd = {.partial = partial, .fails = failure_count(), .mem_pass = true};
  for (size_t i = 0; i < njudged; i++) vd.mem_pass = vd.mem_pass && judged[i].pass;
  vd.pass = !partial && vd.fails == 0 && vd.mem_pass;
  pthread_mutex_lock(&S.sample_mu);
  vd.nsamples = S.nsamples;
  pthread_mutex_unlock(&S.sample_mu);
  if (S.o.json) {
    write_json(stdout, &vd);
  } else {
    write_text(stdout, &vd);
  }
  if (S.o.json_file) {
    FILE *jf = fopen(S.o.json_file, "w");
    if (jf) {
      write_json(jf, &vd);
      if (fclose(jf) != 0) sp_cli_warn("--json-file %s: %s", S.o.json_file, strerror(errno));
    } else {
      sp_cli_warn("--json-file %s: %s", S.o.json_file, strerror(errno));
    }
  }
  fflush(stdout);
}

/* ---- the command ------------------------------------------------------------------------------ */

/* nvidia-smi's path when it is on PATH, else NULL. */
static const char *find_on_path(const char *prog, char *buf, size_t len) {
  const char *path = getenv("PATH");
  while (path && *path) {
    const char *colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    snprintf(buf, len, "%.*s/%s", (int)n, path, prog);
    if (n > 0 && access(buf, X_OK) == 0) return buf;
    path = colon ? colon + 1 : NULL;
  }
  return NULL;
}

static bool parse_uint(const char *opt, const char *v, uint64_t max, unsigned *out) {
  uint64_t x;
  if (!sp_cli_u64(opt, v, max, &x)) return false;
  *out = (unsigned)x;
  return true;
}

int cmd_soak(int argc, char **argv) {
  static const struct option opts[] = {
      {"dir", required_argument, NULL, 'd'},
      {"log", required_argument, NULL, 'k'},
      {"inputs", required_argument, NULL, 'i'},
      {"partitions", required_argument, NULL, 'n'},
      {"witnesses", required_argument, NULL, 'w'},
      {"cycles", required_argument, NULL, 'C'},
      {"segments", required_argument, NULL, 'S'},
      {"threads", required_argument, NULL, 't'},
      {"max-parts", required_argument, NULL, 'm'},
      {"cancel-percent", required_argument, NULL, 'x'},
      {"bad-percent", required_argument, NULL, 'b'},
      {"burst", required_argument, NULL, 'B'},
      {"no-reload", no_argument, NULL, 'R'},
      {"big-log", required_argument, NULL, 'K'},
      {"big-inputs", required_argument, NULL, 'I'},
      {"big-partitions", required_argument, NULL, 'N'},
      {"big-job", required_argument, NULL, 'J'},
      {"big-urgent-after", required_argument, NULL, 'U'},
      {"gpu", optional_argument, NULL, 'G'},
      {"setup-threads", required_argument, NULL, 'T'},
      {"reuse", no_argument, NULL, 'u'},
      {"keep", no_argument, NULL, 'e'},
      {"sample-ms", required_argument, NULL, 's'},
      {"series", required_argument, NULL, 'o'},
      {"nvidia-smi", required_argument, NULL, 'V'},
      {"max-growth-mib", required_argument, NULL, 'g'},
      {"time-limit", required_argument, NULL, 'L'},
      {"seed", required_argument, NULL, 'r'},
      {"json-file", required_argument, NULL, 'F'},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {
      .usage = soak_usage, .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON, .opts = opts};
  soak_opts *o = &S.o;
  memset(o, 0, sizeof *o);
  o->log = 10;
  o->inputs = 4;
  o->partitions = 120;
  o->witnesses = 3;
  o->cycles = 3;
  o->segments = 2;
  o->threads = 4;
  o->max_parts = 4;
  o->cancel_pct = 10;
  o->bad_pct = 10;
  o->burst = 6;
  o->reload = true;
  o->big_partitions = 30;
  o->big_job = 10;
  o->big_inputs = 0;
  o->setup_threads = g16_ncpus();
  o->sample_ms = 2000;
  o->max_growth_mib = 128;
  bool have_seed = false, have_big_inputs = false;
  char series_buf[PATH_MAX], smi_buf[PATH_MAX];
  uint64_t v;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    bool ok = true;
    switch (c) {
      case 'd': o->dir = optarg; break;
      case 'k': ok = parse_uint("--log", optarg, 28, &o->log); break;
      case 'i': ok = parse_uint("--inputs", optarg, 100000, &o->inputs); break;
      case 'n': ok = sp_cli_u64("--partitions", optarg, UINT64_C(1) << 40, &o->partitions); break;
      case 'w': ok = parse_uint("--witnesses", optarg, 64, &o->witnesses); break;
      case 'C': ok = parse_uint("--cycles", optarg, 10000, &o->cycles); break;
      case 'S': ok = parse_uint("--segments", optarg, 10000, &o->segments); break;
      case 't': ok = parse_uint("--threads", optarg, SOAK_MAX_THREADS, &o->threads); break;
      case 'm': ok = parse_uint("--max-parts", optarg, SOAK_MAX_PARTS, &o->max_parts); break;
      case 'x': ok = parse_uint("--cancel-percent", optarg, 100, &o->cancel_pct); break;
      case 'b': ok = parse_uint("--bad-percent", optarg, 100, &o->bad_pct); break;
      case 'B': ok = parse_uint("--burst", optarg, 256, &o->burst); break;
      case 'R': o->reload = false; break;
      case 'K': ok = parse_uint("--big-log", optarg, 28, &o->big_log); break;
      case 'I':
        ok = parse_uint("--big-inputs", optarg, 100000, &o->big_inputs);
        have_big_inputs = true;
        break;
      case 'N': ok = sp_cli_u64("--big-partitions", optarg, 100000, &o->big_partitions); break;
      case 'J': ok = parse_uint("--big-job", optarg, 1000, &o->big_job); break;
      case 'U': ok = parse_uint("--big-urgent-after", optarg, 1000, &o->big_urgent_after); break;
      case 'G':
        o->gpu = true;
        if (optarg) ok = parse_uint("--gpu", optarg, 1023, &o->gpu_ordinal);
        break;
      case 'T': ok = parse_uint("--setup-threads", optarg, 1024, &o->setup_threads); break;
      case 'u': o->reuse = true; break;
      case 'e': o->keep = true; break;
      case 's': ok = parse_uint("--sample-ms", optarg, 3600000, &o->sample_ms); break;
      case 'o': o->series = optarg; break;
      case 'V': o->nvidia_smi = optarg; break;
      case 'g':
        ok = sp_cli_u64("--max-growth-mib", optarg, UINT64_C(1) << 30, &v);
        o->max_growth_mib = (double)v;
        break;
      case 'L': ok = parse_uint("--time-limit", optarg, 1000000, &o->time_limit_s); break;
      case 'r':
        ok = sp_cli_u64("--seed", optarg, UINT64_MAX, &o->seed);
        have_seed = true;
        break;
      case 'F': o->json_file = optarg; break;
    }
    if (!ok) return 2;
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 0, 0, "")) return a.status;
  o->ini = a.config;
  o->json = a.json;
  const char *why =
      !o->ini                             ? "missing -c INI"
      : !o->dir                           ? "missing --dir"
      : o->partitions == 0 && !o->big_log ? "nothing to do: --partitions 0 and no --big-log"
      : o->log < 6                        ? "--log must be at least 6"
      : o->big_log && o->big_log < 6      ? "--big-log must be at least 6"
      : !o->witnesses || !o->cycles || !o->segments || !o->threads || !o->max_parts
          ? "--witnesses, --cycles, --segments, --threads and --max-parts must be at least 1"
      : o->cancel_pct + o->bad_pct > 100 ? "--cancel-percent plus --bad-percent exceed 100"
      : o->big_log && (!o->big_job || !o->big_partitions)
          ? "--big-job and --big-partitions must be at least 1"
      : o->big_urgent_after && !o->big_log ? "--big-urgent-after needs --big-log"
      : o->big_urgent_after &&
              (o->big_urgent_after >= o->big_job || o->big_urgent_after >= o->big_partitions)
          ? "--big-urgent-after must be below the first big job's partitions (--big-job, "
            "--big-partitions)"
      : !o->sample_ms ? "--sample-ms must be at least 1"
                      : NULL;
  if (why) return sp_cli_usage_error(&a, "%s", why);
  if (!have_big_inputs) o->big_inputs = o->inputs;
#ifndef HAVE_CUDA
  if (o->gpu) {
    sp_cli_error("--gpu: this build has no CUDA support (configure found no nvcc)");
    return 2;
  }
#endif
  if (!have_seed) o->seed = sp_random_seed();
  if (mkdir(o->dir, 0755) != 0 && errno != EEXIST) {
    sp_cli_error("--dir %s: %s", o->dir, strerror(errno));
    return 1;
  }
  if (!o->series) {
    snprintf(series_buf, sizeof series_buf, "%s/soak-series.csv", o->dir);
    o->series = series_buf;
  }
  if (o->nvidia_smi && !strcmp(o->nvidia_smi, "none"))
    o->nvidia_smi = NULL;
  else if (!o->nvidia_smi)
    o->nvidia_smi = find_on_path("nvidia-smi", smi_buf, sizeof smi_buf);
  if (o->nvidia_smi && strchr(o->nvidia_smi, '\'')) {
    sp_cli_error("--nvidia-smi %s: a path with a quote is not taken", o->nvidia_smi);
    return 2;
  }
  sp_cli_warn("INSECURE parameters, for testing only: seed %" PRIu64 " (--seed %" PRIu64
              " repeats this run's circuits and plan)",
              o->seed, o->seed);

  /* the phases' data */
  uint64_t rs = o->seed ^ UINT64_C(0x50a4c0ffee);
  if (rs == 0) rs = 1;
  phase_data mainp, bigp, *pds[2];
  unsigned npd = 0;
  memset(&mainp, 0, sizeof mainp);
  memset(&bigp, 0, sizeof bigp);
  if (o->partitions > 0) {
    mainp.name = "main";
    mainp.log = o->log;
    mainp.inputs = o->inputs;
    mainp.nwit = o->witnesses;
    mainp.want_bad = o->bad_pct > 0;
    pds[npd++] = &mainp;
  }
  if (o->big_log > 0) {
    bigp.name = "big";
    bigp.log = o->big_log;
    bigp.inputs = o->big_inputs;
    bigp.nwit = 1;
    bigp.want_bad = o->bad_pct > 0;
    pds[npd++] = &bigp;
  }
  for (unsigned k = 0; k < npd; k++) {
    phase_data *pd = pds[k];
    pd->constraints = (uint64_t)((double)(UINT64_C(1) << pd->log) * 0.97);
    if (pd->constraints < 2 * (uint64_t)pd->inputs + 10) {
      sp_cli_error("2^%u is too small for %u inputs", pd->log, pd->inputs);
      return 2;
    }
    pd->circuit_seed = o->seed + 1000 * (k + 1);
    pd->setup_seed = o->seed ^ UINT64_C(0xabcdef);
    pd->bad_row = rnd(&rs) % (pd->constraints - pd->inputs - 1);
    pd->wit = calloc(pd->nwit, sizeof *pd->wit);
    if (!pd->wit) {
      sp_cli_error("out of memory");
      return 1;
    }
    phase_paths(pd, o->dir);
  }

  int ret = 1;
  char vini[PATH_MAX];
  FILE *f = NULL;
  S.t0 = sp_cli_now_ms();
  set_where(PH_PREPARE, 0, 0);
  if (!prepare(pds, npd)) goto out;

  /* the module, the verifier, the sampler */
  if (!sp_cli_host_load(&S.h)) goto out;
  S.vt = S.h.vt;
  snprintf(vini, sizeof vini, "%s/soak-verifier.ini", o->dir);
  f = fopen(vini, "w");
  if (!f ||
      fprintf(f, "[provider]\nlog_level = warn\n\n[verifier]\ntype = cpu\nthreads = 1\n") < 0 ||
      fclose(f) != 0) {
    sp_cli_error("cannot write %s: %s", vini, strerror(errno));
    goto out;
  }
  int rc = S.vt->open(vini, &S.vprov);
  if (rc != SEALPROV_OK) {
    sp_cli_error("open the verifier %s: %s: %s", vini, g16_status_name(rc), S.vt->last_error());
    goto out;
  }
  for (unsigned k = 0; k < npd; k++) {
    rc = S.vt->vk_load(S.vprov, pds[k]->vk, &pds[k]->vkh);
    if (rc != SEALPROV_OK) {
      sp_cli_error("vk_load %s: %s: %s", pds[k]->vk, g16_status_name(rc), S.vt->last_error());
      goto out;
    }
  }
  S.csv = fopen(o->series, "w");
  if (!S.csv) {
    sp_cli_error("--series %s: %s", o->series, strerror(errno));
    goto out;
  }
  S.smi = o->nvidia_smi != NULL;
  if (S.smi) {
    double used[SOAK_MAX_GPUS], total[SOAK_MAX_GPUS];
    S.ngpu = smi_read(used, total);
    if (S.ngpu == 0) {
      sp_cli_warn("%s gave no GPU memory figures: GPU memory is not sampled", o->nvidia_smi);
      S.smi = false;
    }
  }
  csv_header();
  take_sample("start");
  if (pthread_create(&S.sampler, NULL, sampler_main, NULL) != 0) {
    sp_cli_error("cannot start the sampler thread");
    goto out;
  }
  S.sampler_started = true;

  if (o->partitions > 0) main_phase(&mainp, &rs);
  if (o->big_log > 0 && failure_count() <= 100) big_phase(&bigp, &rs);
  check_ended();
  take_sample("end");
  ret = 0;

out:
  if (S.sampler_started) {
    pthread_mutex_lock(&S.stop_mu);
    S.stop = true;
    pthread_cond_broadcast(&S.stop_cv);
    pthread_mutex_unlock(&S.stop_mu);
    pthread_join(S.sampler, NULL);
  }
  prov_close();
  for (unsigned k = 0; k < npd; k++)
    if (pds[k]->vkh) S.vt->srs_release(pds[k]->vkh);
  if (S.vprov) S.vt->close(S.vprov);
  if (ret == 0) {
    print_summary(false);
    ret = failure_count() == 0 ? 0 : 1;
    for (size_t i = 0; i < njudged; i++)
      if (!judged[i].pass) ret = 1;
  }
  if (S.csv) fclose(S.csv);
  if (!o->keep)
    for (unsigned k = 0; k < npd; k++) {
      unlink(pds[k]->params);
      unlink(pds[k]->vk);
    }
  for (unsigned k = 0; k < npd; k++) phase_free(pds[k]);
  free(S.samples);
  sp_cli_host_close(&S.h);
  return ret;
}
