/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_load.c -- `sealprov bench load`: parameter loading alone, by mode (the direct
 * load onto a GPU, the checked host load, on-curve checks only), warm and cold, on
 * given files or on setups it makes (--sizes); one JSON object per mode as soon as it
 * is measured. cmd_bench.c hands it `bench load ...`. */
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
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "g16_util.h"
#include "formats/srs.h"
#ifdef HAVE_CUDA
#include "util/sp_gpu.h"   /* sp_gpu_bind */
#include "util/cuda_api.h" /* sp_cuda_checker_* */
#include "subgroup/subgroup.h"
#include "points/points.h"
#endif

/* ---- `sealprov bench load` ----------------------------------------------------------- */

/* The modes, in the order they are measured. */
enum { LM_DIRECT, LM_CHECKED, LM_ON_CURVE, LM_N };
static const char *const lm_arg[LM_N] = {"direct", "checked", "on-curve"};
static const char *const lm_json[LM_N] = {"direct_gpu", "checked", "on_curve_only"};
/* From this file size on, the default is the direct load alone (without a GPU the
 * on-curve host path: the CPU's subgroup checks of a 2^27 file take about an hour) and
 * no cold load: at 2^27 (49 GB) every mode with cold loads read the file 13 times and
 * took more than 290 s. */
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

/* One load of path in `mode`. direct (cuda/points/points.cu): the proving vectors straight onto
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
  sp_bench_proc_kib(SP_PROC_STATUS, "VmRSS", &run->rss_before_kib);
  bool reset = sp_bench_reset_peak_rss();
  double t0 = sp_cli_now_ms();
  int st = sp_srs_load_ex(path, &o, &srs, err, errlen);
  run->ms = sp_cli_now_ms() - t0;
  run->hwm_kib = 0;
  if (reset) sp_bench_proc_kib(SP_PROC_STATUS, "VmHWM", &run->hwm_kib);
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

/* One file's loads: what every mode measured on it shares. */
typedef struct load_file {
  const char *path;
  unsigned log; /* 0 for a given file */
  uint64_t bytes;
  bool do_cold;
  unsigned threads, repeat;
  int nmodes; /* modes measured on the file, for the progress lines */
} load_file;

/* The warm loads of mode m (the mi-th of the file's modes) into r; stops early when the
 * device declines the set for a direct load (r->declined). */
static int warm_loads(const load_file *f, int m, int mi, mode_result *r) {
  char err[1024];
  unsigned repeat = f->repeat, cold = f->do_cold ? 1 : 0;
  load_progress lp;
  load_run run;
  double sum = 0;
  for (unsigned i = 0; i < repeat; i++) {
    snprintf(lp.what, sizeof lp.what, "%s (mode %d of %d), load %u of %u", lm_json[m], mi,
             f->nmodes, i + 1, repeat + cold);
    if (load_once(f->path, m, f->threads, &lp, &run, err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s (%s): %s", f->path, lm_json[m], err);
      return 1;
    }
    if (m == LM_DIRECT && !run.direct) { /* the device declined (no room) */
      snprintf(r->declined, sizeof r->declined, "%s", run.declined);
      break;
    }
    r->warm_ms[i] = run.ms;
    r->dev_ms[i] = run.device_ms;
    r->waited_ms[i] = run.wait_ms;
    r->runs = i + 1;
    sum += run.ms;
    if (run.hwm_kib > r->hwm_kib) r->hwm_kib = run.hwm_kib;
    if (i == 0) {
      r->rss_before_kib = run.rss_before_kib;
      r->points = run.points;
    }
    sp_cli_note("%s: %.2f s, %.2f GB/s; this mode's other loads take ~%.0f s more", lp.what,
                run.ms / 1e3, (double)f->bytes / run.ms / 1e6,
                sum / (i + 1) * (double)(repeat - 1 - i + cold) / 1e3);
  }
  return 0;
}

/* The median of the warm loads, with the device figures of that run. */
static void median_run(mode_result *r) {
  double sorted[100];
  memcpy(sorted, r->warm_ms, r->runs * sizeof(double));
  qsort(sorted, r->runs, sizeof(double), sp_bench_cmp_double);
  r->median_ms = sorted[r->runs / 2];
  for (unsigned i = 0; i < r->runs; i++)
    if (r->warm_ms[i] == r->median_ms) {
      r->device_ms = r->dev_ms[i];
      r->wait_ms = r->waited_ms[i];
      break;
    }
}

/* One load of mode m after the file's pages are dropped; when they cannot be, r says
 * why and nothing is loaded. */
static int cold_load(const load_file *f, int m, int mi, mode_result *r) {
  char err[1024];
  r->cold_method = drop_cache(f->path, r->cold_why, sizeof r->cold_why);
  if (!r->cold_method) return 0;
  load_progress lp;
  load_run run;
  snprintf(lp.what, sizeof lp.what, "%s (mode %d of %d), load %u of %u (cold)", lm_json[m], mi,
           f->nmodes, f->repeat + 1, f->repeat + 1);
  if (load_once(f->path, m, f->threads, &lp, &run, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s (%s, cold): %s", f->path, lm_json[m], err);
    return 1;
  }
  r->cold_ms = run.ms;
  sp_cli_note("%s: %.2f s, %.2f GB/s (%s)", lp.what, run.ms / 1e3, (double)f->bytes / run.ms / 1e6,
              r->cold_method);
  return 0;
}

/* Mode m of one file: warm loads, then a cold one; its result printed at once. */
static int bench_mode(const load_file *f, int m, int mi, bool json, bool *first) {
  mode_result r;
  memset(&r, 0, sizeof r);
  r.path = f->path;
  r.log = f->log;
  r.bytes = f->bytes;
  r.mode = m;
  r.cold_ms = -1;
  r.checks_on = m == LM_ON_CURVE ? "none"
                : m == LM_DIRECT ? "gpu0"
                : host_checker() ? "gpu0"
                                 : "cpu";
  if (warm_loads(f, m, mi, &r)) return 1;
  if (!r.declined[0]) {
    median_run(&r);
    if (f->do_cold && cold_load(f, m, mi, &r)) return 1;
  }
  print_mode_result(&r, json, first, f->threads);
  return 0;
}

/* Every selected mode of one file, after one read that warms the page cache. */
static int bench_load_file(const char *path, unsigned log, const bool *modes, int cold,
                           unsigned threads, unsigned repeat, bool json, bool *first) {
  char err[1024];
  struct stat st;
  if (stat(path, &st) != 0) {
    sp_cli_error("%s: %s", path, strerror(errno));
    return 1;
  }
  uint64_t bytes = (uint64_t)st.st_size;
  load_file f = {.path = path,
                 .log = log,
                 .bytes = bytes,
                 .do_cold = cold < 0 ? bytes < BENCH_LOAD_BIG : cold != 0,
                 .threads = threads,
                 .repeat = repeat};
  double ms = 0;
  if (warm_read(path, bytes, threads, &ms, err, sizeof err)) {
    sp_cli_error("%s", err);
    return 1;
  }
  sp_cli_note("%s: read once in %.1f s (%.2f GB/s)", path, ms / 1e3,
              ms > 0 ? (double)bytes / ms / 1e6 : 0.0);
  for (int m = 0; m < LM_N; m++) f.nmodes += modes[m];
  for (int m = 0, mi = 0; m < LM_N; m++)
    if (modes[m] && bench_mode(&f, m, ++mi, json, first)) return 1;
  return 0;
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

/* The command's options, checked. */
typedef struct load_opts {
  unsigned sizes[BENCH_MAX_SIZES], nsizes;
  char **files; /* the FILE operands, nfiles of them */
  int nfiles;
  uint64_t threads, repeat;
  bool modes[LM_N], modes_given, json;
  int cold;    /* -1: by file size */
  bool gpu;    /* GPU 0 is visible */
  unsigned nt; /* loader threads */
} load_opts;

/* The options and the operands (each FILE a regular .params file): -1 when the command
 * is to run; else its exit status (0 after --help, 2 on a usage error, 1 on a FILE
 * that is not there). */
static int load_parse(int argc, char **argv, load_opts *o) {
  static const struct option opts[] = {
      {"sizes", required_argument, NULL, 's'},  {"threads", required_argument, NULL, 't'},
      {"repeat", required_argument, NULL, 'r'}, {"cpu-checks", no_argument, NULL, 'C'},
      {"modes", required_argument, NULL, 'm'},  {"cold", no_argument, NULL, 'c'},
      {"no-cold", no_argument, NULL, 'n'},      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {.usage = bench_load_usage, .takes = SP_CLI_JSON, .opts = opts};
  memset(o, 0, sizeof *o);
  o->repeat = 3;
  o->cold = -1;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case 's':
        if (!sp_bench_parse_sizes(optarg, 27, o->sizes, &o->nsizes)) return 2;
        break;
      case 't':
        if (!sp_cli_u64("--threads", optarg, 1024, &o->threads)) return 2;
        break;
      case 'r':
        if (!sp_cli_u64("--repeat", optarg, 100, &o->repeat) || o->repeat == 0) return 2;
        break;
      case 'C': bench_cpu_checks = true; break;
      case 'm':
        if (!parse_modes(optarg, o->modes)) return 2;
        o->modes_given = true;
        break;
      case 'c': o->cold = 1; break;
      case 'n': o->cold = 0; break;
    }
  }
  if (c < 0) return a.status;
  o->json = a.json;
  o->files = argv + a.first;
  o->nfiles = argc - a.first;
  if ((o->nfiles == 0) == (o->nsizes == 0))
    return sp_cli_usage_error(&a, "give FILE... or --sizes, not both");
  for (int i = 0; i < o->nfiles; i++) {
    struct stat st;
    errno = 0;
    if (stat(o->files[i], &st) != 0 || !S_ISREG(st.st_mode)) {
      sp_cli_error("%s: %s", o->files[i], errno ? strerror(errno) : "not a regular file");
      return 1;
    }
    if (!sp_cli_file_is("bench load", o->files[i], SP_KIND_BIT(SP_KIND_PARAMS), ".params files"))
      return 2;
  }
  o->gpu = sp_bench_gpu_visible();
  if (o->modes_given && o->modes[LM_DIRECT] && !o->gpu) {
    sp_cli_error("--modes direct needs a CUDA build that sees a GPU%s",
#ifdef HAVE_CUDA
                 " (none is visible)"
#else
                 " (this build has no CUDA)"
#endif
    );
    return 1;
  }
  o->nt = o->threads ? (unsigned)o->threads : g16_ncpus();
  return -1;
}

/* The machine, then the table's head (or the JSON object's opening). */
static void load_header(const load_opts *o) {
  char cpu[256];
  unsigned long long mem_kib;
  sp_bench_machine(cpu, sizeof cpu, &mem_kib);
  if (o->json) {
    printf("{\"machine\": {\"cpu\": ");
    sp_cli_json_str(stdout, cpu);
    printf(
        ", \"online_cpus\": %u, \"threads\": %u, \"mem_gib\": %.1f, \"loadavg_1min\": %.2f, "
        "\"gpu\": %s}, \"repeat\": %llu, \"chunk_bytes\": %zu, \"results\": [",
        g16_ncpus(), o->nt, (double)mem_kib / (1024.0 * 1024.0), sp_bench_load_average(),
        o->gpu ? "true" : "false", (unsigned long long)o->repeat, SP_SRS_CHUNK_BYTES);
  } else {
    printf(
        "machine: %s, %u online CPUs, %.1f GiB, load average %.2f; %u loader threads; warm: "
        "median of %llu%s\n",
        cpu, g16_ncpus(), (double)mem_kib / (1024.0 * 1024.0), sp_bench_load_average(), o->nt,
        (unsigned long long)o->repeat, o->gpu ? "; GPU 0 visible" : "");
    printf(
        "(peak_MiB: the load's peak RSS growth; cold: one load after the file's pages are "
        "dropped)\n");
    printf("%-6s %9s %-13s %11s | %8s %7s %11s %9s | %8s\n", "size", "GB", "mode", "points",
           "warm_s", "GB/s", "points/s", "peak_MiB", "cold_s");
  }
  fflush(stdout);
}

/* The modes of one file: --modes, else by its size and whether a GPU is visible. */
static void file_modes(const load_opts *o, const char *path, bool *m) {
  struct stat st;
  bool big = stat(path, &st) == 0 && (uint64_t)st.st_size >= BENCH_LOAD_BIG;
  for (int k = 0; k < LM_N; k++)
    m[k] = o->modes_given ? o->modes[k]
           : big          ? (k == (o->gpu ? LM_DIRECT : LM_ON_CURVE))
                          : (k != LM_DIRECT || o->gpu);
  if (big && !o->modes_given && !o->gpu)
    sp_cli_note(
        "%s: no GPU: on-curve only (the CPU's subgroup checks take about an hour "
        "at 2^27; --modes checked measures them)",
        path);
}

/* The i-th FILE, or the i-th size's parameters made in a temporary directory (removed
 * after). */
static int load_item(const load_opts *o, unsigned i, bool *first) {
  char dirbuf[512] = "", path[600];
  unsigned log = 0;
  int rc = 0;
  if (o->nfiles) {
    snprintf(path, sizeof path, "%s", o->files[i]);
  } else {
    const char *tmp = getenv("TMPDIR");
    snprintf(dirbuf, sizeof dirbuf, "%s/sealprov-bench-load-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dirbuf)) {
      perror("sealprov bench load: mkdtemp");
      return 1;
    }
    rc = bench_make_params(o->sizes[i], dirbuf, o->gpu, o->nt, path, sizeof path);
    log = o->sizes[i];
  }
  if (rc == 0) {
    bool m[LM_N];
    file_modes(o, path, m);
    rc = bench_load_file(path, log, m, o->cold, o->nt, (unsigned)o->repeat, o->json, first);
  }
  if (dirbuf[0]) g16_remove_tree(dirbuf);
  return rc;
}

int sp_bench_load(int argc, char **argv) {
  load_opts o;
  int st = load_parse(argc, argv, &o);
  if (st >= 0) return st;
  /* Large blocks straight from mmap and back at free, so that the RSS before a load is
   * not inflated by the heap of the previous one and the peak is this load's. */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  load_header(&o);
  int rc = 0;
  bool first = true;
  unsigned n = o.nfiles ? (unsigned)o.nfiles : o.nsizes;
  for (unsigned i = 0; i < n && rc == 0; i++) rc = load_item(&o, i, &first);
  if (o.json) printf("\n]}\n");
  fflush(stdout);
#ifdef HAVE_CUDA
  sp_cuda_checker_destroy(bench_checker);
  bench_checker = NULL;
#endif
  return rc;
}
