/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_bench.c -- `sealprov bench`: setup, parameter loading, proving and verification
 * times of sealing-shaped partitions on the CPU prover (plugin/groth16/prove.c called
 * directly, so the figures are the prover's, not the scheduler's). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "circuit.h"
#include "cli.h"
#include "g16_util.h"
#include "groth16/groth16.h"
#include "spa.h"
#include "formats/srs.h"
#ifdef HAVE_CUDA
#include "util/sp_gpu.h"   /* sp_gpu_bind */
#include "util/cuda_api.h" /* sp_cuda_checker_* */
#endif

#define BENCH_MAX_SIZES 16

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov bench [--sizes 10,14,16] [--inputs K] [--repeat R] [--threads T]\n"
          "                      [--json]\n"
          "  For each size 2^S: a sealing-shaped setup with one partition (insecure, in a\n"
          "  temporary directory), then parameter loading (with and without subgroup\n"
          "  checks), R proofs (median reported, with the per-stage breakdown of the median\n"
          "  run) and R verifications, on the CPU prover called directly.\n"
          "  `sealprov bench load --help`: parameter loading alone.\n");
}

static double load_average(void) {
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void machine(char *cpu, size_t cpulen, unsigned long long *mem_kib) {
  snprintf(cpu, cpulen, "unknown");
  *mem_kib = 0;
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  if (f) {
    while (fgets(line, sizeof line, f))
      if (!strncmp(line, "model name", 10)) {
        char *v = strchr(line, ':');
        if (v) {
          v += 1 + (v[1] == ' ');
          v[strcspn(v, "\n")] = 0;
          snprintf(cpu, cpulen, "%s", v);
        }
        break;
      }
    fclose(f);
  }
  f = fopen("/proc/meminfo", "r");
  if (f) {
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "MemTotal: %llu kB", mem_kib) == 1) break;
    fclose(f);
  }
}

typedef struct bench_row {
  unsigned log;
  sp_circuit_info info;
  double setup_ms, load_ms, load_nosub_ms, prove_ms, prove_cpu_ms, verify_ms, loadavg;
  sp_prove_timings stages;
} bench_row;

static int bench_one(unsigned log, uint32_t inputs, unsigned repeat, unsigned threads,
                     bench_row *row) {
  const char *tmp = getenv("TMPDIR");
  char dirbuf[512];
  snprintf(dirbuf, sizeof dirbuf, "%s/sealprov-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dirbuf)) {
    perror("sealprov bench: mkdtemp");
    return 1;
  }
  int ret = 1;
  char err[1024] = "", path[600];
  sp_srs *srs = NULL;
  sp_spa *spa = NULL;
  double *prove = calloc(repeat, sizeof(double)), *verify = calloc(repeat, sizeof(double));
  double *prove_cpu = calloc(repeat, sizeof(double));
  sp_prove_timings *st = calloc(repeat, sizeof *st);
  if (!prove || !verify || !st || !prove_cpu) goto out;
  row->log = log;
  g16_setup_meter gm = {.stage = ""};
  sp_progress pr = {.fn = g16_setup_progress, .user = &gm};
  sp_setup_opts o = {.progress = &pr,
                     .constraints = UINT64_C(1) << log,
                     .inputs = inputs,
                     .partitions = 1,
                     .shape = SP_SHAPE_SEALING,
                     .seed = 1000 + log,
                     .out_dir = dirbuf,
                     .nthreads = threads};
  sp_setup_result sr;
  /* --progress: the steps of this size (setup, two loads, repeat proofs with their
   * verification), and the setup's own */
  sp_cli_meter meter;
  const double steps = 3.0 + repeat;
  sp_cli_meter_start(&meter, "bench 2^%u", log);
  double t0 = sp_cli_now_ms();
  if (sp_setup_run(&o, &sr, err, sizeof err) != SEALPROV_OK) goto fail;
  row->setup_ms = sp_cli_now_ms() - t0;
  sp_cli_meter_step(&meter, 1, steps, "steps");
  row->info = sr.info;
  snprintf(path, sizeof path, "%s/circuit.params", dirbuf);
  t0 = sp_cli_now_ms();
  if (sp_srs_load(path, false, true, threads, &srs, err, sizeof err) != SEALPROV_OK) goto fail;
  row->load_ms = sp_cli_now_ms() - t0;
  sp_cli_meter_step(&meter, 2, steps, "steps");
  /* the same file without subgroup checks ([provider] params_subgroup_check = false) */
  sp_srs *quick = NULL;
  t0 = sp_cli_now_ms();
  if (sp_srs_load(path, false, false, threads, &quick, err, sizeof err) != SEALPROV_OK) goto fail;
  row->load_nosub_ms = sp_cli_now_ms() - t0;
  sp_srs_release(quick);
  sp_cli_meter_step(&meter, 3, steps, "steps");
  snprintf(path, sizeof path, "%s/partition-00.spa", dirbuf);
  if (sp_spa_read(path, &spa, err, sizeof err) != SEALPROV_OK) goto fail;
  for (unsigned i = 0; i < repeat; i++) {
    fr_t r, s;
    fr_from_u64(&r, 3 + i);
    fr_from_u64(&s, 5 + i);
    fr_pow_u64(&r, &r, 0xFFFFFFFFFFFFull); /* full-width blinding */
    fr_pow_u64(&s, &s, 0xFFFFFFFFFFFFull);
    uint8_t proof[192];
    t0 = sp_cli_now_ms();
    double c0 = sp_cli_cpu_ms();
    if (sp_groth16_prove(srs, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, &r, &s, threads, proof, err,
                         sizeof err) != SEALPROV_OK)
      goto fail;
    prove[i] = sp_cli_now_ms() - t0;
    prove_cpu[i] = sp_cli_cpu_ms() - c0;
    sp_groth16_last_timings(&st[i]);
    bool valid = false;
    t0 = sp_cli_now_ms();
    if (sp_groth16_verify(srs, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, proof, &valid, err,
                          sizeof err) != SEALPROV_OK)
      goto fail;
    verify[i] = sp_cli_now_ms() - t0;
    if (!valid) {
      snprintf(err, sizeof err, "the proof of the 2^%u partition does not verify", log);
      goto fail;
    }
    sp_cli_meter_step(&meter, 4.0 + i, steps, "steps");
  }
  /* median prove, and the stage breakdown of that very run */
  double *sorted = calloc(repeat, sizeof(double));
  if (!sorted) goto out;
  memcpy(sorted, prove, repeat * sizeof(double));
  qsort(sorted, repeat, sizeof(double), cmp_double);
  row->prove_ms = sorted[repeat / 2];
  for (unsigned i = 0; i < repeat; i++)
    if (prove[i] == row->prove_ms) {
      row->stages = st[i];
      row->prove_cpu_ms = prove_cpu[i];
      break;
    }
  qsort(verify, repeat, sizeof(double), cmp_double);
  row->verify_ms = verify[repeat / 2];
  row->loadavg = load_average();
  free(sorted);
  ret = 0;
  goto out;
fail:
  sp_cli_error("2^%u: %s", log, err);
out:
  sp_spa_free(spa);
  sp_srs_release(srs);
  free(prove);
  free(prove_cpu);
  free(verify);
  free(st);
  g16_remove_tree(dirbuf);
  return ret;
}

/* ---- `sealprov bench load` ----------------------------------------------------------- */

/* The modes, in the order they are measured. */
enum { LM_DIRECT, LM_CHECKED, LM_ON_CURVE, LM_N };
static const char *const lm_arg[LM_N] = {"direct", "checked", "on-curve"};
static const char *const lm_json[LM_N] = {"direct_gpu", "checked", "on_curve_only"};
/* From this file size on, the default is the direct load alone (without a GPU the
 * on-curve host path: the CPU's subgroup checks of a 2^27 file take about an hour) and
 * no cold load: at 2^27 (49 GB) every mode with cold loads read the file 13 times and
 * took more than 290 s (cuda/NOTES.md v11). */
#define BENCH_LOAD_BIG ((uint64_t)8000000000ull)

static void bench_load_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov bench load [--json] [--threads T] [--repeat R] [--modes LIST]\n"
          "                           [--cold | --no-cold] [--cpu-checks] FILE...\n"
          "       sealprov bench load [options] --sizes K,...\n"
          "  Loads each .params FILE (or the parameters of a sealing-shaped 2^K setup made\n"
          "  in a temporary directory under $TMPDIR, 16 inputs, only circuit.params and\n"
          "  circuit.vk, the fixed-base products on GPU 0 where one is visible; 2^27 takes\n"
          "  49 GB of disk) in each mode of LIST, comma-separated, measured in this order:\n"
          "    direct    onto GPU 0 with every check, decoded and checked on the GPU, no\n"
          "              host copy of the proving vectors (a CUDA build with a GPU visible)\n"
          "    checked   the host path with every check (on the curve and in the subgroup;\n"
          "              the subgroup checks on GPU 0 where one is visible, as srs_load does\n"
          "              with a CUDA device; --cpu-checks: on the CPU, every core, slow at\n"
          "              2^24 and beyond)\n"
          "    on-curve  the host path with on-curve checks only\n"
          "  Default: every mode the machine has for a file under 8 GB; from 8 GB on,\n"
          "  direct where a GPU is visible, else on-curve (the host path holds the whole\n"
          "  file decoded in memory, each mode reads the file R times, and the CPU's\n"
          "  subgroup checks take about an hour at 2^27).\n"
          "  The file is read once first (no decoding) to warm the page cache; each mode\n"
          "  is then loaded R times (default 3; the median is reported) and, with --cold\n"
          "  (default under 8 GB), once more after the file's pages are dropped.\n"
          "  Each mode's result is printed as soon as it is measured (--json: one JSON\n"
          "  object a line inside {\"results\": [...]}): seconds, GB/s, points checked per\n"
          "  second, host peak RSS during the load (VmHWM after a reset), the thread count,\n"
          "  and for direct the device time and the time the reader waited for the GPU.\n"
          "  With the global --progress (default when stderr is a terminal) every load\n"
          "  shows its percentage, rate and ETA on stderr.\n");
}

unsigned long long sp_bench_status_kib(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long v = 0;
  size_t kl = strlen(key);
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl) && line[kl] == ':') {
      v = strtoull(line + kl + 1, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

bool sp_bench_reset_peak_rss(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  bool ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

/* Drops the page cache for the whole machine (root), else evicts the file's own clean
 * pages (posix_fadvise DONTNEED, any user). Returns the method, or NULL with why. */
static const char *drop_cache(const char *path, char *why, size_t whylen) {
  sync();
  FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
  if (f) {
    bool ok = fputs("3", f) >= 0;
    if (fclose(f) == 0 && ok) return "drop_caches";
  }
  int saved = errno;
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    if (rc == 0) return "fadvise_dontneed";
    snprintf(why, whylen, "drop_caches: %s; posix_fadvise: %s", strerror(saved), strerror(rc));
    return NULL;
  }
  snprintf(why, whylen, "drop_caches: %s; %.200s: %s", strerror(saved), path, strerror(errno));
  return NULL;
}

/* Progress on stderr (sp_cli_note: only under --progress): at most a line a second. */
typedef struct load_progress {
  char what[96];
  double last_ms;
  uint64_t points;
} load_progress;

static void progress_line(const char *what, uint64_t done, uint64_t total, double ms) {
  double frac = total ? (double)done / (double)total : 1.0;
  double eta = frac > 0 ? ms * (1.0 - frac) / frac : 0;
  sp_cli_note("%s: %3.0f %% of %.2f GB, %.1f s, %.2f GB/s, ETA %.0f s", what, 100.0 * frac,
              (double)total / 1e9, ms / 1e3, ms > 0 ? (double)done / ms / 1e6 : 0.0, eta / 1e3);
}

static int load_progress_cb(void *user, const sp_srs_progress *p) {
  load_progress *lp = user;
  lp->points = p->points_checked;
  if (sp_cli_progress && !p->done && p->elapsed_ms - lp->last_ms >= 1000) {
    lp->last_ms = p->elapsed_ms;
    progress_line(lp->what, p->bytes_done, p->bytes_total, p->elapsed_ms);
  }
  return 0;
}

/* The file read once with `threads` threads (pread of 8 MiB pieces, nothing decoded),
 * so the warm loads read from the page cache. */
typedef struct warm_reader {
  int fd;
  uint64_t size;
  atomic_uint_fast64_t next, done;
  atomic_int failed;
} warm_reader;

#define WARM_PIECE ((uint64_t)8 << 20)

static void *warm_thread(void *arg) {
  warm_reader *w = arg;
  char *buf = malloc(WARM_PIECE);
  if (!buf) {
    atomic_store(&w->failed, ENOMEM);
    return NULL;
  }
  for (;;) {
    uint64_t off = atomic_fetch_add(&w->next, WARM_PIECE);
    if (off >= w->size || atomic_load(&w->failed)) break;
    uint64_t want = w->size - off < WARM_PIECE ? w->size - off : WARM_PIECE;
    for (uint64_t got = 0; got < want;) {
      ssize_t n = pread(w->fd, buf, (size_t)(want - got), (off_t)(off + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        atomic_store(&w->failed, n < 0 ? errno : EIO);
        break;
      }
      got += (uint64_t)n;
    }
    atomic_fetch_add(&w->done, want);
  }
  free(buf);
  return NULL;
}

static int warm_read(const char *path, uint64_t size, unsigned threads, double *ms, char *err,
                     size_t errlen) {
  warm_reader w = {.size = size};
  atomic_init(&w.next, 0);
  atomic_init(&w.done, 0);
  atomic_init(&w.failed, 0);
  w.fd = open(path, O_RDONLY);
  if (w.fd < 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return 1;
  }
  if (threads > 64) threads = 64;
  pthread_t th[64];
  unsigned started = 0;
  double t0 = sp_cli_now_ms();
  for (unsigned i = 0; i < (threads ? threads : 1); i++)
    if (pthread_create(&th[i], NULL, warm_thread, &w) == 0) started++;
  if (started == 0) warm_thread(&w);
  double last = 0;
  char what[64];
  snprintf(what, sizeof what, "reading the file once (page cache)");
  while (started && atomic_load(&w.done) < size && !atomic_load(&w.failed)) {
    usleep(100000);
    double now = sp_cli_now_ms() - t0;
    if (sp_cli_progress && now - last >= 1000) {
      last = now;
      progress_line(what, atomic_load(&w.done), size, now);
    }
  }
  for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
  *ms = sp_cli_now_ms() - t0;
  close(w.fd);
  int e = atomic_load(&w.failed);
  if (e) {
    snprintf(err, errlen, "%s: reading: %s", path, strerror(e));
    return 1;
  }
  return 0;
}

bool sp_bench_gpu_visible(void) {
#ifdef HAVE_CUDA
  sp_gpu_info g[1];
  int n = 0;
  char err[256];
  return sp_cuda_enumerate(g, 1, &n, err, sizeof err) == SEALPROV_OK && n > 0;
#else
  return false;
#endif
}

static bool bench_cpu_checks;
#ifdef HAVE_CUDA
static sp_cuda_checker *bench_checker;
static bool bench_checker_tried;
#endif

/* The host path's subgroup checker: GPU 0 where one is visible and --cpu-checks was not
 * given (made at the first checked load; this CLI thread is then bound to GPU 0, as the
 * direct load binds it), else NULL: the CPU checks. */
static void *host_checker(void) {
#ifdef HAVE_CUDA
  if (!bench_cpu_checks && !bench_checker_tried) {
    bench_checker_tried = true;
    int confirmed = -1;
    char err[256];
    if (sp_bench_gpu_visible() &&
        (sp_gpu_bind(0, &confirmed, err, sizeof err) != SEALPROV_OK ||
         sp_cuda_checker_create(0, &bench_checker, err, sizeof err) != SEALPROV_OK)) {
      sp_cli_note("GPU 0 cannot take the subgroup checks (%s): they run on the CPU", err);
      bench_checker = NULL;
    }
  }
  return bench_checker;
#else
  return NULL;
#endif
}

typedef struct load_run {
  double ms, device_ms, wait_ms;
  bool direct;        /* the device took the vectors */
  char declined[300]; /* why not, when it did not */
  unsigned long long hwm_kib, rss_before_kib;
  uint64_t points;
} load_run;

/* One load of path in `mode`. direct (cuda/load.cu): the proving vectors straight onto
 * CUDA device 0, decoded and checked there with no host copy, as srs_load does when
 * every device of the provider is a GPU; run->device_ms is then the load's device wall
 * time (first chunk to the last check) and run->wait_ms the time the reader waited for
 * the device. */
static int load_once(const char *path, int mode, unsigned threads, load_progress *lp, load_run *run,
                     char *err, size_t errlen) {
  sp_srs *srs = NULL;
  bool checks = mode != LM_ON_CURVE;
  lp->last_ms = 0;
  lp->points = 0;
  sp_srs_load_opts o = {.subgroup_check = checks,
                        .nthreads = threads,
                        .progress = load_progress_cb,
                        .progress_user = lp};
  memset(run, 0, sizeof *run);
#ifdef HAVE_CUDA
  if (mode == LM_CHECKED && host_checker()) {
    o.check = sp_cuda_checker_run;
    o.check_user = bench_checker;
  }
  sp_cuda_dload *dl = NULL;
  sp_srs_sink sink;
  bool taken = false;
  if (mode == LM_DIRECT) {
    int ord = 0, confirmed = -1;
    uint64_t lim = 0;
    int st = sp_gpu_bind(0, &confirmed, err, errlen);
    if (!st) st = sp_cuda_dload_create(&ord, &lim, 1, true, &dl, err, errlen);
    if (st) return st;
    sp_cuda_dload_sink(dl, &sink);
    o.sink = &sink;
    o.sink_taken = &taken;
  }
#endif
  run->rss_before_kib = sp_bench_status_kib("VmRSS");
  bool reset = sp_bench_reset_peak_rss();
  double t0 = sp_cli_now_ms();
  int st = sp_srs_load_ex(path, &o, &srs, err, errlen);
  run->ms = sp_cli_now_ms() - t0;
  run->hwm_kib = reset ? sp_bench_status_kib("VmHWM") : 0;
  run->points = lp->points;
#ifdef HAVE_CUDA
  if (st == SEALPROV_OK && mode == LM_DIRECT) {
    run->direct = taken && sp_cuda_dload_adopt(dl, srs);
    if (run->direct && srs->devcopy) {
      run->device_ms = srs->devcopy->upload_ms;
      run->wait_ms = srs->devcopy->wait_ms;
    } else {
      snprintf(run->declined, sizeof run->declined, "%s",
               *sp_cuda_dload_declined(dl) ? sp_cuda_dload_declined(dl) : "not taken");
    }
  }
  sp_cuda_dload_destroy(dl);
#endif
  sp_srs_release(srs);
  return st;
}

/* One mode's figures for one file. */
typedef struct mode_result {
  const char *path;
  unsigned log; /* 0 for a given file */
  uint64_t bytes, points;
  int mode;
  unsigned runs;
  double warm_ms[100], dev_ms[100], waited_ms[100], median_ms, cold_ms; /* cold_ms < 0: none */
  const char *cold_method;
  char cold_why[300];
  double device_ms, wait_ms; /* direct: of the median run */
  unsigned long long hwm_kib, rss_before_kib;
  const char *checks_on; /* "gpu0", "cpu" or "none" (on-curve only) */
  char declined[300];    /* direct: why the device did not take the set */
} mode_result;

static void print_mode_result(const mode_result *r, bool json, bool *first, unsigned threads) {
  double gb = (double)r->bytes / 1e9;
  double s = r->median_ms / 1e3;
  double growth = (double)(r->hwm_kib > r->rss_before_kib ? r->hwm_kib - r->rss_before_kib : 0);
  if (json) {
    printf("%s\n{\"file\": ", *first ? "" : ",");
    *first = false;
    sp_cli_json_str(stdout, r->path);
    printf(", \"log_constraints\": %u, \"bytes\": %llu, \"mode\": \"%s\", \"threads\": %u", r->log,
           (unsigned long long)r->bytes, lm_json[r->mode], threads);
    if (r->declined[0]) {
      printf(", \"declined\": ");
      sp_cli_json_str(stdout, r->declined);
      printf("}");
      fflush(stdout);
      return;
    }
    printf(", \"points\": %llu, \"subgroup_checks_on\": \"%s\", \"warm_runs_s\": [",
           (unsigned long long)r->points, r->checks_on);
    for (unsigned i = 0; i < r->runs; i++) printf("%s%.4f", i ? ", " : "", r->warm_ms[i] / 1e3);
    printf(
        "], \"warm_s\": %.4f, \"warm_gb_per_s\": %.3f, \"warm_points_per_s\": %.0f, "
        "\"rss_before_load_kib\": %llu, \"peak_rss_kib\": %llu, "
        "\"peak_rss_growth_over_file\": %.3f",
        s, gb / s, (double)r->points / s, r->rss_before_kib, r->hwm_kib,
        r->bytes ? growth * 1024.0 / (double)r->bytes : 0.0);
    if (r->mode == LM_DIRECT)
      printf(", \"device_s\": %.4f, \"reader_waited_s\": %.4f", r->device_ms / 1e3,
             r->wait_ms / 1e3);
    if (r->cold_ms >= 0)
      printf(", \"cold_s\": %.4f, \"cold_gb_per_s\": %.3f", r->cold_ms / 1e3,
             gb / (r->cold_ms / 1e3));
    printf(", \"cold\": ");
    if (r->cold_method) {
      sp_cli_json_str(stdout, r->cold_method);
    } else if (r->cold_why[0]) {
      char why[340];
      snprintf(why, sizeof why, "not possible: %s", r->cold_why);
      sp_cli_json_str(stdout, why);
    } else {
      printf("\"not measured\"");
    }
    struct rusage ru;
    printf(", \"process_maxrss_kib\": %ld}", getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1L);
  } else {
    char sz[16] = "file";
    if (r->log) snprintf(sz, sizeof sz, "2^%u", r->log);
    if (r->declined[0]) {
      printf("%-6s %9.3f %-13s declined: %s\n", sz, gb, lm_json[r->mode], r->declined);
    } else {
      printf("%-6s %9.3f %-13s %11llu | %8.3f %7.3f %11.0f %9.0f |", sz, gb, lm_json[r->mode],
             (unsigned long long)r->points, s, gb / s, (double)r->points / s, growth / 1024.0);
      if (r->cold_ms >= 0)
        printf(" %8.3f (%s)", r->cold_ms / 1e3, r->cold_method);
      else if (r->cold_why[0])
        printf(" cold: not possible (%s)", r->cold_why);
      else
        printf(" %8s", "-");
      printf(" | runs");
      for (unsigned i = 0; i < r->runs; i++) printf(" %.3f", r->warm_ms[i] / 1e3);
      if (r->mode == LM_DIRECT)
        printf("; device %.3f s, reader waited %.3f s", r->device_ms / 1e3, r->wait_ms / 1e3);
      printf("; subgroup checks: %s\n", r->checks_on);
    }
    if (!r->log) printf("       %s\n", r->path);
  }
  fflush(stdout);
}

/* Every selected mode of one file: warm loads, then a cold one; each mode's result is
 * printed as soon as it is measured. */
static int bench_load_file(const char *path, unsigned log, const bool *modes, int cold,
                           unsigned threads, unsigned repeat, bool json, bool *first) {
  char err[1024];
  struct stat st;
  if (stat(path, &st) != 0) {
    sp_cli_error("%s: %s", path, strerror(errno));
    return 1;
  }
  uint64_t bytes = (uint64_t)st.st_size;
  bool do_cold = cold < 0 ? bytes < BENCH_LOAD_BIG : cold != 0;
  double ms = 0;
  if (warm_read(path, bytes, threads, &ms, err, sizeof err)) {
    sp_cli_error("%s", err);
    return 1;
  }
  sp_cli_note("%s: read once in %.1f s (%.2f GB/s)", path, ms / 1e3,
              ms > 0 ? (double)bytes / ms / 1e6 : 0.0);
  int nmodes = 0, mi = 0;
  for (int m = 0; m < LM_N; m++) nmodes += modes[m];
  for (int m = 0; m < LM_N; m++) {
    if (!modes[m]) continue;
    mi++;
    mode_result r;
    memset(&r, 0, sizeof r);
    r.path = path;
    r.log = log;
    r.bytes = bytes;
    r.mode = m;
    r.cold_ms = -1;
    r.checks_on = m == LM_ON_CURVE ? "none"
                  : m == LM_DIRECT ? "gpu0"
                  : host_checker() ? "gpu0"
                                   : "cpu";
    load_progress lp;
    load_run run;
    double sum = 0;
    for (unsigned i = 0; i < repeat; i++) {
      snprintf(lp.what, sizeof lp.what, "%s (mode %d of %d), load %u of %u", lm_json[m], mi, nmodes,
               i + 1, repeat + (do_cold ? 1 : 0));
      if (load_once(path, m, threads, &lp, &run, err, sizeof err) != SEALPROV_OK) {
        sp_cli_error("%s (%s): %s", path, lm_json[m], err);
        return 1;
      }
      if (m == LM_DIRECT && !run.direct) { /* the device declined (no room) */
        snprintf(r.declined, sizeof r.declined, "%s", run.declined);
        break;
      }
      r.warm_ms[i] = run.ms;
      r.dev_ms[i] = run.device_ms;
      r.waited_ms[i] = run.wait_ms;
      r.runs = i + 1;
      sum += run.ms;
      if (run.hwm_kib > r.hwm_kib) r.hwm_kib = run.hwm_kib;
      if (i == 0) {
        r.rss_before_kib = run.rss_before_kib;
        r.points = run.points;
      }
      sp_cli_note("%s: %.2f s, %.2f GB/s; this mode's other loads take ~%.0f s more", lp.what,
                  run.ms / 1e3, (double)bytes / run.ms / 1e6,
                  sum / (i + 1) * (double)(repeat - 1 - i + (do_cold ? 1 : 0)) / 1e3);
    }
    if (!r.declined[0]) {
      double sorted[100];
      memcpy(sorted, r.warm_ms, r.runs * sizeof(double));
      qsort(sorted, r.runs, sizeof(double), cmp_double);
      r.median_ms = sorted[r.runs / 2];
      for (unsigned i = 0; i < r.runs; i++) /* the device figures of the median run */
        if (r.warm_ms[i] == r.median_ms) {
          r.device_ms = r.dev_ms[i];
          r.wait_ms = r.waited_ms[i];
          break;
        }
      if (do_cold) {
        r.cold_method = drop_cache(path, r.cold_why, sizeof r.cold_why);
        if (r.cold_method) {
          snprintf(lp.what, sizeof lp.what, "%s (mode %d of %d), load %u of %u (cold)", lm_json[m],
                   mi, nmodes, repeat + 1, repeat + 1);
          if (load_once(path, m, threads, &lp, &run, err, sizeof err) != SEALPROV_OK) {
            sp_cli_error("%s (%s, cold): %s", path, lm_json[m], err);
            return 1;
          }
          r.cold_ms = run.ms;
          sp_cli_note("%s: %.2f s, %.2f GB/s (%s)", lp.what, run.ms / 1e3,
                      (double)bytes / run.ms / 1e6, r.cold_method);
        }
      }
    }
    print_mode_result(&r, json, first, threads);
  }
  return 0;
}

/* --sizes K,K,...: up to BENCH_MAX_SIZES exponents between 6 and max_log. */
static bool parse_sizes(const char *arg, unsigned max_log, unsigned *sizes, unsigned *n) {
  *n = 0;
  char *copy = strdup(arg), *save = NULL;
  if (copy == NULL) {
    sp_cli_error("out of memory");
    return false;
  }
  bool ok = true;
  for (char *t = strtok_r(copy, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
    uint64_t v;
    ok = *n < BENCH_MAX_SIZES && sp_cli_u64("--sizes", t, max_log, &v) && v >= 6;
    if (ok) sizes[(*n)++] = (unsigned)v;
  }
  if (!ok)
    sp_cli_error("--sizes takes up to %d exponents between 6 and %u", BENCH_MAX_SIZES, max_log);
  free(copy);
  return ok;
}

/* --modes direct,checked,on-curve (the JSON names direct_gpu, on_curve_only too). */
static bool parse_modes(const char *arg, bool *modes) {
  for (int m = 0; m < LM_N; m++) modes[m] = false;
  char *copy = strdup(arg), *save = NULL;
  if (copy == NULL) {
    sp_cli_error("out of memory");
    return false;
  }
  bool ok = true, any = false;
  for (char *t = strtok_r(copy, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
    int found = -1;
    for (int m = 0; m < LM_N; m++)
      if (!strcmp(t, lm_arg[m]) || !strcmp(t, lm_json[m])) found = m;
    if (found < 0) {
      sp_cli_error("--modes: unknown mode \"%s\" (direct, checked, on-curve)", t);
      ok = false;
    } else {
      modes[found] = any = true;
    }
  }
  if (ok && !any) {
    sp_cli_error("--modes: no mode given (direct, checked, on-curve)");
    ok = false;
  }
  free(copy);
  return ok;
}

/* --sizes: the parameter file (and .vk) of a sealing-shaped 2^log setup in dir; nothing
 * else (a 2^27 .r1cs and partition would not fit beside the 49 GB file on a 64 GiB disk).
 * The fixed-base products on GPU 0 when gpu (a CUDA build that sees one), else on nt CPU
 * threads. */
static int bench_make_params(unsigned log, const char *dir, bool gpu, unsigned nt, char *path,
                             size_t pathlen) {
  char err[1024] = "", vk[600];
  snprintf(path, pathlen, "%s/circuit.params", dir);
  snprintf(vk, sizeof vk, "%s/circuit.vk", dir);
  sp_cli_note("setup 2^%u in %s (parameters only; fixed-base products on %s)", log, dir,
              gpu ? "GPU 0" : "the CPU");
  if (g16_make_params(UINT64_C(1) << log, 16, 1000 + log, 2000 + log, nt, gpu ? 0 : -1, path, vk,
                      NULL, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("setup 2^%u: %s", log, err);
    return 1;
  }
  return 0;
}

static int bench_load(int argc, char **argv) {
  static const struct option opts[] = {
      {"sizes", required_argument, NULL, 's'},  {"threads", required_argument, NULL, 't'},
      {"repeat", required_argument, NULL, 'r'}, {"cpu-checks", no_argument, NULL, 'C'},
      {"modes", required_argument, NULL, 'm'},  {"cold", no_argument, NULL, 'c'},
      {"no-cold", no_argument, NULL, 'n'},      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {.usage = bench_load_usage, .takes = SP_CLI_JSON, .opts = opts};
  unsigned sizes[BENCH_MAX_SIZES], nsizes = 0;
  uint64_t threads = 0, repeat = 3;
  bool modes[LM_N], modes_given = false;
  int cold = -1; /* -1: by file size */
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case 's':
        if (!parse_sizes(optarg, 27, sizes, &nsizes)) return 2;
        break;
      case 't':
        if (!sp_cli_u64("--threads", optarg, 1024, &threads)) return 2;
        break;
      case 'r':
        if (!sp_cli_u64("--repeat", optarg, 100, &repeat) || repeat == 0) return 2;
        break;
      case 'C': bench_cpu_checks = true; break;
      case 'm':
        if (!parse_modes(optarg, modes)) return 2;
        modes_given = true;
        break;
      case 'c': cold = 1; break;
      case 'n': cold = 0; break;
    }
  }
  if (c < 0) return a.status;
  bool json = a.json;
  int nfiles = argc - a.first;
  if ((nfiles == 0) == (nsizes == 0))
    return sp_cli_usage_error(&a, "give FILE... or --sizes, not both");
  for (int i = a.first; i < argc; i++) {
    struct stat st;
    errno = 0;
    if (stat(argv[i], &st) != 0 || !S_ISREG(st.st_mode)) {
      sp_cli_error("%s: %s", argv[i], errno ? strerror(errno) : "not a regular file");
      return 1;
    }
  }
  bool gpu = sp_bench_gpu_visible();
  if (modes_given && modes[LM_DIRECT] && !gpu) {
    sp_cli_error("--modes direct needs a CUDA build that sees a GPU%s",
#ifdef HAVE_CUDA
                 " (none is visible)"
#else
                 " (this build has no CUDA)"
#endif
    );
    return 1;
  }
  unsigned nt = threads ? (unsigned)threads : g16_ncpus();
  /* Large blocks straight from mmap and back at free, so that the RSS before a load is
   * not inflated by the heap of the previous one and the peak is this load's. */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  char cpu[256];
  unsigned long long mem_kib;
  machine(cpu, sizeof cpu, &mem_kib);
  if (json) {
    printf("{\"machine\": {\"cpu\": ");
    sp_cli_json_str(stdout, cpu);
    printf(
        ", \"online_cpus\": %u, \"threads\": %u, \"mem_gib\": %.1f, \"loadavg_1min\": %.2f, "
        "\"gpu\": %s}, \"repeat\": %llu, \"chunk_bytes\": %zu, \"results\": [",
        g16_ncpus(), nt, (double)mem_kib / (1024.0 * 1024.0), load_average(),
        gpu ? "true" : "false", (unsigned long long)repeat, SP_SRS_CHUNK_BYTES);
  } else {
    printf(
        "machine: %s, %u online CPUs, %.1f GiB, load average %.2f; %u loader threads; warm: "
        "median of %llu%s\n",
        cpu, g16_ncpus(), (double)mem_kib / (1024.0 * 1024.0), load_average(), nt,
        (unsigned long long)repeat, gpu ? "; GPU 0 visible" : "");
    printf(
        "(peak_MiB: the load's peak RSS growth; cold: one load after the file's pages are "
        "dropped)\n");
    printf("%-6s %9s %-13s %11s | %8s %7s %11s %9s | %8s\n", "size", "GB", "mode", "points",
           "warm_s", "GB/s", "points/s", "peak_MiB", "cold_s");
  }
  fflush(stdout);
  int rc = 0;
  bool first = true;
  unsigned n = nfiles ? (unsigned)nfiles : nsizes;
  for (unsigned i = 0; i < n && rc == 0; i++) {
    char dirbuf[512] = "", path[600];
    unsigned log = 0;
    if (nfiles) {
      snprintf(path, sizeof path, "%s", argv[a.first + (int)i]);
    } else {
      const char *tmp = getenv("TMPDIR");
      snprintf(dirbuf, sizeof dirbuf, "%s/sealprov-bench-load-XXXXXX", tmp && *tmp ? tmp : "/tmp");
      if (!mkdtemp(dirbuf)) {
        perror("sealprov bench load: mkdtemp");
        rc = 1;
        break;
      }
      rc = bench_make_params(sizes[i], dirbuf, gpu, nt, path, sizeof path);
      log = sizes[i];
    }
    if (rc == 0) {
      struct stat st;
      bool big = stat(path, &st) == 0 && (uint64_t)st.st_size >= BENCH_LOAD_BIG;
      bool m[LM_N];
      for (int k = 0; k < LM_N; k++)
        m[k] = modes_given ? modes[k]
               : big       ? (k == (gpu ? LM_DIRECT : LM_ON_CURVE))
                           : (k != LM_DIRECT || gpu);
      if (big && !modes_given && !gpu)
        sp_cli_note(
            "%s: no GPU: on-curve only (the CPU's subgroup checks take about an hour "
            "at 2^27; --modes checked measures them)",
            path);
      rc = bench_load_file(path, log, m, cold, nt, (unsigned)repeat, json, &first);
    }
    if (dirbuf[0]) g16_remove_tree(dirbuf);
  }
  if (json) printf("\n]}\n");
  fflush(stdout);
#ifdef HAVE_CUDA
  sp_cuda_checker_destroy(bench_checker);
  bench_checker = NULL;
#endif
  return rc;
}

int cmd_bench(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "load")) {
    sp_cli_cmd = "bench load"; /* messages: "sealprov bench load: error: ..." */
    return bench_load(argc - 1, argv + 1);
  }
  static const struct option opts[] = {
      {"sizes", required_argument, NULL, 's'},
      {"inputs", required_argument, NULL, 'k'},
      {"repeat", required_argument, NULL, 'r'},
      {"threads", required_argument, NULL, 't'},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {.usage = bench_usage, .takes = SP_CLI_JSON, .opts = opts};
  unsigned sizes[BENCH_MAX_SIZES] = {10, 14, 16}, nsizes = 3;
  uint64_t inputs = 16, repeat = 3, threads = 0;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case 's':
        if (!parse_sizes(optarg, 24, sizes, &nsizes)) return 2;
        break;
      case 'k':
        if (!sp_cli_u64("--inputs", optarg, 1000, &inputs)) return 2;
        break;
      case 'r':
        if (!sp_cli_u64("--repeat", optarg, 100, &repeat) || repeat == 0) return 2;
        break;
      case 't':
        if (!sp_cli_u64("--threads", optarg, 1024, &threads)) return 2;
        break;
    }
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 0, 0, "")) return a.status;
  bool json = a.json;
  unsigned nt = threads ? (unsigned)threads : g16_ncpus();
  char cpu[256];
  unsigned long long mem_kib;
  machine(cpu, sizeof cpu, &mem_kib);
  struct utsname un;
  if (uname(&un) != 0) memset(&un, 0, sizeof un);
  if (json) {
    printf("{\"machine\": {\"cpu\": ");
    sp_cli_json_str(stdout, cpu);
    printf(
        ", \"online_cpus\": %u, \"threads\": %u, \"mem_gib\": %.1f, \"loadavg_1min\": %.2f, "
        "\"kernel\": ",
        g16_ncpus(), nt, (double)mem_kib / (1024.0 * 1024.0), load_average());
    sp_cli_json_str(stdout, un.release);
    printf("}, \"repeat\": %llu, \"inputs\": %llu, \"results\": [", (unsigned long long)repeat,
           (unsigned long long)inputs);
  } else {
    printf(
        "machine: %s, %u online CPUs, %.1f GiB, load average %.2f; %u prover threads; "
        "median of %llu\n",
        cpu, g16_ncpus(), (double)mem_kib / (1024.0 * 1024.0), load_average(), nt,
        (unsigned long long)repeat);
    printf("%-6s %7s %9s %9s %9s %9s %9s %9s %7s | %7s %8s %7s %7s %7s %7s\n", "size", "aux",
           "setup_ms", "load_ms", "load_nosg", "prove_ms", "prove_cpu", "verify_ms", "a-dens",
           "ntt", "h_msm", "l_msm", "a_msm", "b1_msm", "b2_msm");
  }
  fflush(stdout);
  int rc = 0;
  for (unsigned i = 0; i < nsizes; i++) {
    bench_row row = {0};
    if (bench_one(sizes[i], (uint32_t)inputs, (unsigned)repeat, nt, &row) != 0) {
      rc = 1;
      break;
    }
    double ad = (double)row.info.a_aux_popcount / (double)row.info.aux_size;
    const sp_prove_timings *s = &row.stages;
    if (json) {
      printf(
          "%s{\"log_constraints\": %u, \"constraints\": %llu, \"aux\": %llu, "
          "\"a_aux_density\": %.4f, \"b_aux_density\": %.4f, \"setup_ms\": %.1f, "
          "\"load_ms\": %.1f, \"load_no_subgroup_check_ms\": %.1f, \"prove_ms\": %.1f, "
          "\"prove_cpu_ms\": %.1f, \"verify_ms\": %.2f, \"loadavg_1min\": %.2f, "
          "\"prove_stages_ms\": {\"convert\": %.1f, \"ntt\": %.1f, "
          "\"h_msm\": %.1f, \"l_msm\": %.1f, \"a_msm\": %.1f, \"b_g1_msm\": %.1f, "
          "\"b_g2_msm\": %.1f, \"assemble\": %.1f}}",
          i ? ", " : "", row.log, (unsigned long long)row.info.abc_size,
          (unsigned long long)row.info.aux_size, ad,
          (double)row.info.b_aux_popcount / (double)row.info.aux_size, row.setup_ms, row.load_ms,
          row.load_nosub_ms, row.prove_ms, row.prove_cpu_ms, row.verify_ms, row.loadavg,
          s->convert_ms, s->ntt_ms, s->h_msm_ms, s->l_msm_ms, s->a_msm_ms, s->b_g1_msm_ms,
          s->b_g2_msm_ms, s->assemble_ms);
    } else {
      char sz[16];
      snprintf(sz, sizeof sz, "2^%u", row.log);
      printf(
          "%-6s %7llu %9.0f %9.0f %9.0f %9.1f %9.1f %9.2f %6.2f%% | %7.1f %8.1f %7.1f %7.1f "
          "%7.1f %7.1f\n",
          sz, (unsigned long long)row.info.aux_size, row.setup_ms, row.load_ms, row.load_nosub_ms,
          row.prove_ms, row.prove_cpu_ms, row.verify_ms, 100 * ad, s->ntt_ms, s->h_msm_ms,
          s->l_msm_ms, s->a_msm_ms, s->b_g1_msm_ms, s->b_g2_msm_ms);
    }
    fflush(stdout);
  }
  if (json) printf("]}\n");
  return rc;
}
