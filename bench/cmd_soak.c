/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_soak.c -- `sealprov soak`: a storage provider's traffic, hours of it in minutes,
 * driven through the ABI only (dlopen and the vtable, as a daemon does), with the
 * process's host memory and the GPUs' memory sampled every few seconds and judged at
 * the end. Users of other GPU provers report device memory growing over thousands of
 * proofs until the daemon dies; this is how we show ours does not.
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

#include "soak.h"

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

/* ---- everything the threads share (soak.h) ---------------------------------------------- */
soak_state soak = {
    .prov_mu = PTHREAD_MUTEX_INITIALIZER,
    .srs_lock = PTHREAD_RWLOCK_INITIALIZER,
    .sample_mu = PTHREAD_MUTEX_INITIALIZER,
    .stop_mu = PTHREAD_MUTEX_INITIALIZER,
    .stop_cv = PTHREAD_COND_INITIALIZER,
    .fail_mu = PTHREAD_MUTEX_INITIALIZER,
    .seg_mu = PTHREAD_MUTEX_INITIALIZER,
    .seg_cv = PTHREAD_COND_INITIALIZER,
};

const char *const phase_names[] = {"prepare", "main", "big"};

void soak_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void soak_fail(const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&soak.fail_mu);
  if (soak.failures == 0) snprintf(soak.first_failure, sizeof soak.first_failure, "%s", msg);
  if (soak.failures++ < 30) sp_cli_error("%s", msg);
  pthread_mutex_unlock(&soak.fail_mu);
}

unsigned soak_failures(void) {
  pthread_mutex_lock(&soak.fail_mu);
  unsigned n = soak.failures;
  pthread_mutex_unlock(&soak.fail_mu);
  return n;
}

/* xorshift64*, one state per thread */
uint64_t soak_rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * UINT64_C(0x2545F4914F6CDD1D);
}
unsigned soak_below(uint64_t *s, unsigned n) { return n ? (unsigned)(soak_rnd(s) % n) : 0; }

double soak_now_s(void) { return (sp_cli_now_ms() - soak.t0) / 1e3; }

/* ---- preparation: parameters in a child, witnesses here ------------------------------------ */

void soak_phase_paths(phase_data *pd, const char *dir) {
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
                      soak.o.setup_threads, soak.o.gpu ? (int)soak.o.gpu_ordinal : -1, pd->params,
                      pd->vk, &tc, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("setup child: %s", err);
    return 1;
  }
  fprintf(stderr, "sealprov soak: setup 2^%u (%s): circuit %.1f s, parameters %.1f s -> %s\n",
          pd->log, soak.o.gpu ? "fixed-base products on the GPU" : "CPU", tc / 1e3,
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
bool soak_prepare(phase_data **pds, unsigned npd) {
  bool need_child = false;
  for (unsigned k = 0; k < npd; k++) {
    struct stat st;
    pds[k]->reused = soak.o.reuse && stat(pds[k]->params, &st) == 0 && stat(pds[k]->vk, &st) == 0;
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

void soak_phase_free(phase_data *pd) {
  if (!pd) return;
  for (unsigned i = 0; pd->wit && i < pd->nwit; i++) sp_witness_free(pd->wit[i]);
  free(pd->wit);
  free(pd->bad_c);
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

static const struct option soak_options[] = {
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

static void soak_defaults(soak_opts *o) {
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
}

/* Option c (soak_options) with its value into o; false on a bad value (said). */
static bool soak_option(soak_opts *o, int c, bool *have_seed, bool *have_big_inputs) {
  bool ok = true;
  uint64_t v;
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
      *have_big_inputs = true;
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
      *have_seed = true;
      break;
    case 'F': o->json_file = optarg; break;
  }
  return ok;
}

/* Why the options cannot make a run, or NULL when they can. */
static const char *soak_conflict(const soak_opts *o) {
  return !o->ini                             ? "missing -c INI"
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
}

/* The options into o: -1 when the command is to run; else its exit status (0 after
 * --help, 2 on a usage error). */
static int soak_parse(int argc, char **argv, soak_opts *o) {
  sp_cli_args a = {.usage = soak_usage,
                   .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON,
                   .opts = soak_options};
  soak_defaults(o);
  bool have_seed = false, have_big_inputs = false;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0)
    if (!soak_option(o, c, &have_seed, &have_big_inputs)) return 2;
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 0, 0, "")) return a.status;
  o->ini = a.config;
  o->json = a.json;
  const char *why = soak_conflict(o);
  if (why) return sp_cli_usage_error(&a, "%s", why);
  if (!have_big_inputs) o->big_inputs = o->inputs;
#ifndef HAVE_CUDA
  if (o->gpu) {
    sp_cli_error("--gpu: this build has no CUDA support (configure found no nvcc)");
    return 2;
  }
#endif
  if (!have_seed) o->seed = sp_random_seed();
  return -1;
}

/* What one run holds besides the state its threads share (soak): each phase's data,
 * the traffic plan's random state, and the paths the options were given by default. */
typedef struct soak_run {
  phase_data mainp, bigp, *pds[2];
  unsigned npd;
  uint64_t rs;
  char series[PATH_MAX], smi[PATH_MAX];
} soak_run;

/* DIR made, the output files checked, nvidia-smi found: -1 when the run goes on; else
 * the exit status. */
static int soak_outputs(soak_opts *o, soak_run *r) {
  if (mkdir(o->dir, 0755) != 0 && errno != EEXIST) {
    sp_cli_error("--dir %s: %s", o->dir, strerror(errno));
    return 1;
  }
  if (!o->series) {
    snprintf(r->series, sizeof r->series, "%s/soak-series.csv", o->dir);
    o->series = r->series;
  }
  sp_cli_file soak_in = {"INI file", o->ini};
  if (!sp_cli_output_check("--series", o->series, SP_KIND_TEXT, false, &soak_in, 1) ||
      (o->json_file &&
       !sp_cli_output_check("--json-file", o->json_file, SP_KIND_JSON, false, &soak_in, 1)))
    return 2;
  if (o->nvidia_smi && !strcmp(o->nvidia_smi, "none"))
    o->nvidia_smi = NULL;
  else if (!o->nvidia_smi)
    o->nvidia_smi = find_on_path("nvidia-smi", r->smi, sizeof r->smi);
  if (o->nvidia_smi && strchr(o->nvidia_smi, '\'')) {
    sp_cli_error("--nvidia-smi %s: a path with a quote is not taken", o->nvidia_smi);
    return 2;
  }
  sp_cli_warn("INSECURE parameters, for testing only: seed %" PRIu64 " (--seed %" PRIu64
              " repeats this run's circuits and plan)",
              o->seed, o->seed);
  return -1;
}

/* Each phase's data: its circuit's size and seeds, the bad row, the witness slots and
 * the file names. -1 when the run goes on; else the exit status. */
static int soak_plan(const soak_opts *o, soak_run *r) {
  r->rs = o->seed ^ UINT64_C(0x50a4c0ffee);
  if (r->rs == 0) r->rs = 1;
  if (o->partitions > 0) {
    r->mainp.name = "main";
    r->mainp.log = o->log;
    r->mainp.inputs = o->inputs;
    r->mainp.nwit = o->witnesses;
    r->mainp.want_bad = o->bad_pct > 0;
    r->pds[r->npd++] = &r->mainp;
  }
  if (o->big_log > 0) {
    r->bigp.name = "big";
    r->bigp.log = o->big_log;
    r->bigp.inputs = o->big_inputs;
    r->bigp.nwit = 1;
    r->bigp.want_bad = o->bad_pct > 0;
    r->pds[r->npd++] = &r->bigp;
  }
  for (unsigned k = 0; k < r->npd; k++) {
    phase_data *pd = r->pds[k];
    pd->constraints = (uint64_t)((double)(UINT64_C(1) << pd->log) * 0.97);
    if (pd->constraints < 2 * (uint64_t)pd->inputs + 10) {
      sp_cli_error("2^%u is too small for %u inputs", pd->log, pd->inputs);
      return 2;
    }
    pd->circuit_seed = o->seed + 1000 * (k + 1);
    pd->setup_seed = o->seed ^ UINT64_C(0xabcdef);
    pd->bad_row = soak_rnd(&r->rs) % (pd->constraints - pd->inputs - 1);
    pd->wit = calloc(pd->nwit, sizeof *pd->wit);
    if (!pd->wit) {
      sp_cli_error("out of memory");
      return 1;
    }
    soak_phase_paths(pd, o->dir);
  }
  return -1;
}

/* The module loaded, and the verifier (a provider of one CPU device) opened with each
 * phase's verifying key. */
static bool soak_open_verifier(const soak_opts *o, soak_run *r) {
  if (!sp_cli_host_load(&soak.h)) return false;
  soak.vt = soak.h.vt;
  char vini[PATH_MAX];
  snprintf(vini, sizeof vini, "%s/soak-verifier.ini", o->dir);
  FILE *f = fopen(vini, "w");
  if (!f ||
      fprintf(f, "[provider]\nlog_level = warn\n\n[verifier]\ntype = cpu\nthreads = 1\n") < 0 ||
      fclose(f) != 0) {
    sp_cli_error("cannot write %s: %s", vini, strerror(errno));
    return false;
  }
  int rc = soak.vt->open(vini, &soak.vprov);
  if (rc != SEALPROV_OK) {
    sp_cli_error("open the verifier %s: %s: %s", vini, g16_status_name(rc), soak.vt->last_error());
    return false;
  }
  for (unsigned k = 0; k < r->npd; k++) {
    rc = soak.vt->vk_load(soak.vprov, r->pds[k]->vk, &r->pds[k]->vkh);
    if (rc != SEALPROV_OK) {
      sp_cli_error("vk_load %s: %s: %s", r->pds[k]->vk, g16_status_name(rc), soak.vt->last_error());
      return false;
    }
  }
  return true;
}

/* The time series file, whether the GPUs' memory can be read, the first sample and the
 * sampler thread. */
static bool soak_start_sampler(const soak_opts *o) {
  soak.csv = fopen(o->series, "w");
  if (!soak.csv) {
    sp_cli_error("--series %s: %s", o->series, strerror(errno));
    return false;
  }
  soak.smi = o->nvidia_smi != NULL;
  if (soak.smi) {
    double used[SOAK_MAX_GPUS], total[SOAK_MAX_GPUS];
    soak.ngpu = soak_smi_read(used, total);
    if (soak.ngpu == 0) {
      sp_cli_warn("%s gave no GPU memory figures: GPU memory is not sampled", o->nvidia_smi);
      soak.smi = false;
    }
  }
  soak_csv_header();
  soak_sample("start");
  if (pthread_create(&soak.sampler, NULL, soak_sampler_main, NULL) != 0) {
    sp_cli_error("cannot start the sampler thread");
    return false;
  }
  soak.sampler_started = true;
  return true;
}

/* The phases; the big one only while the failures are few. */
static void soak_run_phases(const soak_opts *o, soak_run *r) {
  if (o->partitions > 0) soak_main_phase(&r->mainp, &r->rs);
  if (o->big_log > 0 && soak_failures() <= 100) soak_big_phase(&r->bigp, &r->rs);
  soak_check_ended();
  soak_sample("end");
}

/* The sampler stopped, the providers closed, the verdict when the phases ran (the exit
 * status: 0 PASS, 1 FAIL or a run that could not start), the files removed unless
 * --keep. */
static int soak_finish(const soak_opts *o, soak_run *r, bool ran) {
  if (soak.sampler_started) {
    pthread_mutex_lock(&soak.stop_mu);
    soak.stop = true;
    pthread_cond_broadcast(&soak.stop_cv);
    pthread_mutex_unlock(&soak.stop_mu);
    pthread_join(soak.sampler, NULL);
  }
  soak_prov_close();
  for (unsigned k = 0; k < r->npd; k++)
    if (r->pds[k]->vkh) soak.vt->srs_release(r->pds[k]->vkh);
  if (soak.vprov) soak.vt->close(soak.vprov);
  int ret = 1;
  if (ran) {
    soak_print_summary(false);
    ret = soak_failures() == 0 ? 0 : 1;
    if (!soak_series_pass()) ret = 1;
  }
  if (soak.csv) fclose(soak.csv);
  if (!o->keep)
    for (unsigned k = 0; k < r->npd; k++) {
      unlink(r->pds[k]->params);
      unlink(r->pds[k]->vk);
    }
  for (unsigned k = 0; k < r->npd; k++) soak_phase_free(r->pds[k]);
  free(soak.samples);
  sp_cli_host_close(&soak.h);
  return ret;
}

int cmd_soak(int argc, char **argv) {
  soak_opts *o = &soak.o; /* the threads read the options there */
  int st = soak_parse(argc, argv, o);
  if (st >= 0) return st;
  soak_run r;
  memset(&r, 0, sizeof r);
  if ((st = soak_outputs(o, &r)) >= 0 || (st = soak_plan(o, &r)) >= 0) return st;
  soak.t0 = sp_cli_now_ms();
  soak_set_where(PH_PREPARE, 0, 0);
  bool ran = soak_prepare(r.pds, r.npd) && soak_open_verifier(o, &r) && soak_start_sampler(o);
  if (ran) soak_run_phases(o, &r);
  return soak_finish(o, &r, ran);
}
