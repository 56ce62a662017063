/* cmd_bench.c -- `sealprov bench`: setup, parameter loading, proving and verification
 * times of sealing-shaped partitions on the CPU prover (plugin/groth16/prove.c called
 * directly, so the figures are the prover's, not the scheduler's). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "circuit.h"
#include "cli.h"
#include "g16_util.h"
#include "groth16/groth16.h"
#include "spa.h"
#include "formats/srs.h"
#ifdef HAVE_CUDA
#include "util/sp_gpu.h" /* sp_gpu_bind */
#include "util/cuda_api.h"       /* sp_cuda_checker_* */
#endif

#define BENCH_MAX_SIZES 16

static void bench_usage(FILE *f)
{
  fprintf(f,
          "usage: sealprov bench [--sizes 10,14,16] [--inputs K] [--repeat R] [--threads T]\n"
          "                      [--json]\n"
          "  For each size 2^S: a sealing-shaped setup with one partition (insecure, in a\n"
          "  temporary directory), then parameter loading (with and without subgroup\n"
          "  checks), R proofs (median reported, with the per-stage breakdown of the median\n"
          "  run) and R verifications, on the CPU prover called directly.\n"
          "  `sealprov bench load --help`: parameter loading alone.\n");
}

/* CPU time of the whole process (all threads), ms: next to wall time it shows how
 * much of the machine the run really had on a shared host. */
static double cpu_ms(void)
{
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return 0;
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static double load_average(void)
{
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1)
      l = -1;
    fclose(f);
  }
  return l;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void machine(char *cpu, size_t cpulen, unsigned long long *mem_kib)
{
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
      if (sscanf(line, "MemTotal: %llu kB", mem_kib) == 1)
        break;
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
                     bench_row *row)
{
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
  if (!prove || !verify || !st || !prove_cpu)
    goto out;
  row->log = log;
  sp_setup_opts o = {.constraints = UINT64_C(1) << log, .inputs = inputs, .partitions = 1,
                     .shape = SP_SHAPE_SEALING, .seed = 1000 + log, .out_dir = dirbuf,
                     .nthreads = threads};
  sp_setup_result sr;
  double t0 = g16_now_ms();
  if (sp_setup_run(&o, &sr, err, sizeof err) != SEALPROV_OK)
    goto fail;
  row->setup_ms = g16_now_ms() - t0;
  row->info = sr.info;
  snprintf(path, sizeof path, "%s/circuit.params", dirbuf);
  t0 = g16_now_ms();
  if (sp_srs_load(path, false, true, threads, &srs, err, sizeof err) != SEALPROV_OK)
    goto fail;
  row->load_ms = g16_now_ms() - t0;
  /* the same file without subgroup checks ([provider] params_subgroup_check = false) */
  sp_srs *quick = NULL;
  t0 = g16_now_ms();
  if (sp_srs_load(path, false, false, threads, &quick, err, sizeof err) != SEALPROV_OK)
    goto fail;
  row->load_nosub_ms = g16_now_ms() - t0;
  sp_srs_release(quick);
  snprintf(path, sizeof path, "%s/partition-00.spa", dirbuf);
  if (sp_spa_read(path, &spa, err, sizeof err) != SEALPROV_OK)
    goto fail;
  for (unsigned i = 0; i < repeat; i++) {
    fr_t r, s;
    fr_from_u64(&r, 3 + i);
    fr_from_u64(&s, 5 + i);
    fr_pow_u64(&r, &r, 0xFFFFFFFFFFFFull); /* full-width blinding */
    fr_pow_u64(&s, &s, 0xFFFFFFFFFFFFull);
    uint8_t proof[192];
    t0 = g16_now_ms();
    double c0 = cpu_ms();
    if (sp_groth16_prove(srs, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, &r, &s, threads, proof,
                         err, sizeof err) != SEALPROV_OK)
      goto fail;
    prove[i] = g16_now_ms() - t0;
    prove_cpu[i] = cpu_ms() - c0;
    sp_groth16_last_timings(&st[i]);
    bool valid = false;
    t0 = g16_now_ms();
    if (sp_groth16_verify(srs, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, proof, &valid, err,
                          sizeof err) != SEALPROV_OK)
      goto fail;
    verify[i] = g16_now_ms() - t0;
    if (!valid) {
      snprintf(err, sizeof err, "the proof of the 2^%u partition does not verify", log);
      goto fail;
    }
  }
  /* median prove, and the stage breakdown of that very run */
  double *sorted = calloc(repeat, sizeof(double));
  if (!sorted)
    goto out;
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

static void bench_load_usage(FILE *f)
{
  fprintf(f,
          "usage: sealprov bench load [--json] [--threads T] [--repeat R] [--cpu-checks] FILE...\n"
          "       sealprov bench load [--json] [--threads T] [--repeat R] [--cpu-checks] --sizes K,...\n"
          "  Loads each .params FILE (or a sealing-shaped 2^K setup made in a temporary\n"
          "  directory) with every point checked (on the curve and in the subgroup) and\n"
          "  with on-curve checks only: from a warm page cache (median of R), and from a\n"
          "  cold one once, where the machine lets this process drop the file's pages.\n"
          "  Reports seconds, GB/s, points checked per second, host peak RSS during the\n"
          "  load (VmHWM after a reset; the process's getrusage maxrss in --json), and\n"
          "  the thread count. Where a GPU is visible (a CUDA build), also the direct load\n"
          "  onto GPU 0 with every check (decoded and checked on the GPU, no host copy of\n"
          "  the proving vectors; \"direct_gpu\" in --json), with its device time; the\n"
          "  host path's subgroup checks then run on GPU 0 too, as srs_load does when the\n"
          "  provider has a CUDA device (--cpu-checks: on the CPU, every core: slow at\n"
          "  2^24 and beyond).\n");
}

/* KiB from /proc/self/status (0 if absent). */
static unsigned long long status_kib(const char *key)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long v = 0;
  size_t kl = strlen(key);
  if (!f)
    return 0;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl) && line[kl] == ':') {
      v = strtoull(line + kl + 1, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

/* Resets VmHWM to the current RSS (Linux >= 4.0); false when not possible. */
static bool reset_peak_rss(void)
{
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f)
    return false;
  bool ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

/* Drops the page cache for the whole machine (root), else evicts the file's own clean
 * pages (posix_fadvise DONTNEED, any user). Returns the method, or NULL with why. */
static const char *drop_cache(const char *path, char *why, size_t whylen)
{
  sync();
  FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
  if (f) {
    bool ok = fputs("3", f) >= 0;
    if (fclose(f) == 0 && ok)
      return "drop_caches";
  }
  int saved = errno;
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    if (rc == 0)
      return "fadvise_dontneed";
    snprintf(why, whylen, "drop_caches: %s; posix_fadvise: %s", strerror(saved), strerror(rc));
    return NULL;
  }
  snprintf(why, whylen, "drop_caches: %s; %s: %s", strerror(saved), path, strerror(errno));
  return NULL;
}

typedef struct load_run {
  double ms, device_ms;
  bool direct;
  unsigned long long hwm_kib, rss_before_kib;
  uint64_t points;
} load_run;

static int progress_points(void *user, const sp_srs_progress *p)
{
  *(uint64_t *)user = p->points_checked;
  return 0;
}

/* The host path's subgroup checker: GPU 0 where one is visible and --cpu-checks was not
 * given (made at the first checked load; this CLI thread is then bound to GPU 0, as the
 * direct load binds it), else NULL: the CPU checks. */
static bool bench_cpu_checks;
#ifdef HAVE_CUDA
static sp_cuda_checker *bench_checker;
static bool bench_checker_tried;
#endif

static void *host_checker(void)
{
#ifdef HAVE_CUDA
  if (!bench_cpu_checks && !bench_checker_tried) {
    bench_checker_tried = true;
    sp_gpu_info g[1];
    int n = 0, confirmed = -1;
    char err[256];
    if (sp_cuda_enumerate(g, 1, &n, err, sizeof err) == SEALPROV_OK && n > 0 &&
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

/* direct: the proving vectors straight onto CUDA device 0 (cuda/load/load.cu), decoded and
 * checked there with no host copy, as srs_load does when every device of the provider
 * is a GPU; run->device_ms is then the load's device wall time (first chunk to the last
 * check) and run->direct whether the device took the vectors. */
static int load_once(const char *path, bool checks, bool direct, unsigned threads, load_run *run,
                     char *err, size_t errlen)
{
  sp_srs *srs = NULL;
  uint64_t points = 0;
  sp_srs_load_opts o = {.subgroup_check = checks, .nthreads = threads,
                        .progress = progress_points, .progress_user = &points};
  run->device_ms = 0;
  run->direct = false;
#ifdef HAVE_CUDA
  if (checks && !direct && host_checker()) {
    o.check = sp_cuda_checker_run;
    o.check_user = bench_checker;
  }
  sp_cuda_dload *dl = NULL;
  sp_srs_sink sink;
  bool taken = false;
  if (direct) {
    int ord = 0, confirmed = -1;
    uint64_t lim = 0;
    int st = sp_gpu_bind(0, &confirmed, err, errlen);
    if (!st)
      st = sp_cuda_dload_create(&ord, &lim, 1, checks, &dl, err, errlen);
    if (st)
      return st;
    sp_cuda_dload_sink(dl, &sink);
    o.sink = &sink;
    o.sink_taken = &taken;
  }
#else
  (void)direct;
#endif
  run->rss_before_kib = status_kib("VmRSS");
  bool reset = reset_peak_rss();
  double t0 = g16_now_ms();
  int st = sp_srs_load_ex(path, &o, &srs, err, errlen);
  run->ms = g16_now_ms() - t0;
  run->hwm_kib = reset ? status_kib("VmHWM") : 0;
  run->points = points;
#ifdef HAVE_CUDA
  if (st == SEALPROV_OK && taken) {
    run->direct = sp_cuda_dload_adopt(dl, srs);
    run->device_ms = srs->devcopy ? srs->devcopy->upload_ms : 0;
  }
  sp_cuda_dload_destroy(dl);
#endif
  sp_srs_release(srs);
  return st;
}

/* Whether a GPU is there for the direct load (a CUDA build that sees a device). */
static bool direct_possible(void)
{
#ifdef HAVE_CUDA
  sp_gpu_info g[1];
  int n = 0;
  char err[256];
  return sp_cuda_enumerate(g, 1, &n, err, sizeof err) == SEALPROV_OK && n > 0;
#else
  return false;
#endif
}

typedef struct load_row {
  char path[600];
  unsigned log; /* 0 for a given file */
  uint64_t bytes, points;
  double warm_ms[2], cold_ms[2]; /* [checks on, checks off]; cold < 0: not measured */
  unsigned long long hwm_kib[2], rss_before_kib;
  const char *cold_method;
  char cold_why[256];
  /* the direct load onto GPU 0, checks on (direct_ok: measured) */
  bool direct_ok;
  double direct_warm_ms, direct_cold_ms, direct_device_ms;
  unsigned long long direct_hwm_kib, direct_rss_before_kib;
  bool gpu_checks; /* the host path's subgroup checks ran on GPU 0 */
} load_row;

static int bench_load_file(const char *path, unsigned threads, unsigned repeat, load_row *row)
{
  char err[1024];
  struct stat st;
  if (stat(path, &st) != 0) {
    sp_cli_error("%s: %s", path, strerror(errno));
    return 1;
  }
  snprintf(row->path, sizeof row->path, "%s", path);
  row->bytes = (uint64_t)st.st_size;
  double *t = calloc(repeat, sizeof(double));
  if (!t)
    return 1;
  load_run run;
  /* warm the cache (and check that the file loads) */
  if (load_once(path, false, false, threads, &run, err, sizeof err) != SEALPROV_OK)
    goto fail;
  for (int mode = 0; mode < 2; mode++) {
    unsigned long long hwm = 0;
    for (unsigned i = 0; i < repeat; i++) {
      if (load_once(path, mode == 0, false, threads, &run, err, sizeof err) != SEALPROV_OK)
        goto fail;
      t[i] = run.ms;
      if (run.hwm_kib > hwm)
        hwm = run.hwm_kib;
      if (mode == 0)
        row->points = run.points;
      if (mode == 0 && i == 0)
        row->rss_before_kib = run.rss_before_kib;
    }
    qsort(t, repeat, sizeof(double), cmp_double);
    row->warm_ms[mode] = t[repeat / 2];
    if (mode == 0)
      row->gpu_checks = host_checker() != NULL;
    row->hwm_kib[mode] = hwm;
  }
  for (int mode = 0; mode < 2; mode++) {
    row->cold_ms[mode] = -1;
    row->cold_method = drop_cache(path, row->cold_why, sizeof row->cold_why);
    if (!row->cold_method)
      break;
    if (load_once(path, mode == 0, false, threads, &run, err, sizeof err) != SEALPROV_OK)
      goto fail;
    row->cold_ms[mode] = run.ms;
  }
  /* the direct load onto the GPU, every check on: warm median, then cold once */
  row->direct_cold_ms = -1;
  if (direct_possible()) {
    unsigned long long hwm = 0;
    for (unsigned i = 0; i < repeat; i++) {
      if (load_once(path, true, true, threads, &run, err, sizeof err) != SEALPROV_OK)
        goto fail;
      if (!run.direct) /* the device declined (no room): nothing to report */
        break;
      t[i] = run.ms;
      hwm = run.hwm_kib > hwm ? run.hwm_kib : hwm;
      if (i == 0) {
        row->direct_rss_before_kib = run.rss_before_kib;
        row->direct_device_ms = run.device_ms;
      }
      row->direct_ok = i == repeat - 1;
    }
    if (row->direct_ok) {
      qsort(t, repeat, sizeof(double), cmp_double);
      row->direct_warm_ms = t[repeat / 2];
      row->direct_hwm_kib = hwm;
      char why[256];
      if (drop_cache(path, why, sizeof why)) {
        if (load_once(path, true, true, threads, &run, err, sizeof err) != SEALPROV_OK)
          goto fail;
        row->direct_cold_ms = run.ms;
      }
    }
  }
  free(t);
  return 0;
fail:
  sp_cli_error("%s", err);
  free(t);
  return 1;
}

static void print_load_row(const load_row *r, bool json, bool first, unsigned threads)
{
  double gb = (double)r->bytes / 1e9;
  if (json) {
    printf("%s{\"file\": ", first ? "" : ", ");
    sp_cli_json_str(stdout, r->path);
    printf(", \"log_constraints\": %u, \"bytes\": %llu, \"points\": %llu, \"threads\": %u, "
           "\"rss_before_load_kib\": %llu",
           r->log, (unsigned long long)r->bytes, (unsigned long long)r->points, threads,
           r->rss_before_kib);
    static const char *const mode[2] = {"checked", "on_curve_only"};
    for (int m = 0; m < 2; m++) {
      printf(", \"%s\": {\"warm_s\": %.4f, \"warm_gb_per_s\": %.3f, \"warm_points_per_s\": %.0f, "
             "\"peak_rss_kib\": %llu, \"peak_rss_growth_over_file\": %.3f%s",
             mode[m], r->warm_ms[m] / 1e3, gb / (r->warm_ms[m] / 1e3),
             (double)r->points / (r->warm_ms[m] / 1e3), r->hwm_kib[m],
             r->bytes ? (double)(r->hwm_kib[m] - r->rss_before_kib) * 1024.0 / (double)r->bytes
                      : 0.0,
             m == 0 ? (r->gpu_checks ? ", \"subgroup_checks_on\": \"gpu0\"" : ", \"subgroup_checks_on\": \"cpu\"")
                    : "");
      if (r->cold_ms[m] >= 0)
        printf(", \"cold_s\": %.4f, \"cold_gb_per_s\": %.3f", r->cold_ms[m] / 1e3,
               gb / (r->cold_ms[m] / 1e3));
      printf("}");
    }
    if (r->direct_ok) {
      printf(", \"direct_gpu\": {\"warm_s\": %.4f, \"warm_gb_per_s\": %.3f, "
             "\"warm_points_per_s\": %.0f, \"device_s\": %.4f, \"peak_rss_kib\": %llu, "
             "\"peak_rss_growth_over_file\": %.3f",
             r->direct_warm_ms / 1e3, gb / (r->direct_warm_ms / 1e3),
             (double)r->points / (r->direct_warm_ms / 1e3), r->direct_device_ms / 1e3,
             r->direct_hwm_kib,
             r->bytes ? (double)(r->direct_hwm_kib - r->direct_rss_before_kib) * 1024.0 /
                            (double)r->bytes
                      : 0.0);
      if (r->direct_cold_ms >= 0)
        printf(", \"cold_s\": %.4f, \"cold_gb_per_s\": %.3f", r->direct_cold_ms / 1e3,
               gb / (r->direct_cold_ms / 1e3));
      printf("}");
    }
    struct rusage ru;
    printf(", \"process_maxrss_kib\": %ld, \"cold\": ",
           getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1L);
    if (r->cold_method) {
      sp_cli_json_str(stdout, r->cold_method);
    } else {
      char why[300];
      snprintf(why, sizeof why, "not possible: %s", r->cold_why);
      sp_cli_json_str(stdout, why);
    }
    printf("}");
  } else {
    char sz[16] = "file";
    if (r->log)
      snprintf(sz, sizeof sz, "2^%u", r->log);
    printf("%-6s %9.3f %10llu | %8.3f %7.3f %11.0f %9.0f | %8.3f %7.3f %9.0f | ", sz, gb,
           (unsigned long long)r->points, r->warm_ms[0] / 1e3, gb / (r->warm_ms[0] / 1e3),
           (double)r->points / (r->warm_ms[0] / 1e3),
           (double)(r->hwm_kib[0] - r->rss_before_kib) / 1024.0, r->warm_ms[1] / 1e3,
           gb / (r->warm_ms[1] / 1e3), (double)(r->hwm_kib[1] - r->rss_before_kib) / 1024.0);
    if (r->cold_method)
      printf("%8.3f %8.3f (%s)\n", r->cold_ms[0] / 1e3, r->cold_ms[1] / 1e3, r->cold_method);
    else
      printf("cold: not possible (%s)\n", r->cold_why);
    if (r->direct_ok) {
      printf("       direct onto GPU 0 (checked, no host copy): warm %.3f s, %.3f GB/s, %.0f "
             "points/s, device %.3f s, peak %.0f MiB",
             r->direct_warm_ms / 1e3, gb / (r->direct_warm_ms / 1e3),
             (double)r->points / (r->direct_warm_ms / 1e3), r->direct_device_ms / 1e3,
             (double)(r->direct_hwm_kib - r->direct_rss_before_kib) / 1024.0);
      if (r->direct_cold_ms >= 0)
        printf(", cold %.3f s", r->direct_cold_ms / 1e3);
      printf("\n");
    }
    if (!r->log)
      printf("       %s\n", r->path);
  }
  fflush(stdout);
}

/* --sizes K,K,...: up to BENCH_MAX_SIZES exponents between 6 and max_log. */
static bool parse_sizes(const char *arg, unsigned max_log, unsigned *sizes, unsigned *n)
{
  *n = 0;
  char *copy = strdup(arg), *save = NULL;
  if (copy == NULL) {
    sp_cli_error("out of memory");
    return false;
  }
  bool ok = true;
  for (char *t = strtok_r(copy, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
    uint64_t v;
    ok = *n < BENCH_MAX_SIZES && g16_parse_u64("--sizes", t, max_log, &v) && v >= 6;
    if (ok)
      sizes[(*n)++] = (unsigned)v;
  }
  if (!ok)
    sp_cli_error("--sizes takes up to %d exponents between 6 and %u", BENCH_MAX_SIZES, max_log);
  free(copy);
  return ok;
}

static int bench_load(int argc, char **argv)
{
  static const struct option opts[] = {
      {"sizes", required_argument, NULL, 's'},  {"threads", required_argument, NULL, 't'},
      {"repeat", required_argument, NULL, 'r'}, {"json", no_argument, NULL, 'j'},
      {"cpu-checks", no_argument, NULL, 'C'},   {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  unsigned sizes[BENCH_MAX_SIZES], nsizes = 0;
  uint64_t threads = 0, repeat = 3;
  bool json = false;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 's':
      if (!parse_sizes(optarg, 27, sizes, &nsizes))
        return 2;
      break;
    case 't':
      if (!g16_parse_u64("--threads", optarg, 1024, &threads))
        return 2;
      break;
    case 'r':
      if (!g16_parse_u64("--repeat", optarg, 100, &repeat) || repeat == 0)
        return 2;
      break;
    case 'j':
      json = true;
      break;
    case 'C':
      bench_cpu_checks = true;
      break;
    case 'h':
      bench_load_usage(stdout);
      return 0;
    default:
      bench_load_usage(stderr);
      return 2;
    }
  }
  int nfiles = argc - optind;
  if ((nfiles == 0) == (nsizes == 0)) {
    sp_cli_error("give FILE... or --sizes, not both");
    bench_load_usage(stderr);
    return 2;
  }
  for (int i = optind; i < argc; i++) {
    struct stat st;
    errno = 0;
    if (stat(argv[i], &st) != 0 || !S_ISREG(st.st_mode)) {
      sp_cli_error("%s: %s", argv[i],
              errno ? strerror(errno) : "not a regular file");
      return 1;
    }
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
    printf(", \"online_cpus\": %u, \"threads\": %u, \"mem_gib\": %.1f, \"loadavg_1min\": %.2f}, "
           "\"repeat\": %llu, \"chunk_bytes\": %zu, \"results\": [",
           g16_ncpus(), nt, (double)mem_kib / (1024.0 * 1024.0), load_average(),
           (unsigned long long)repeat, SP_SRS_CHUNK_BYTES);
  } else {
    printf("machine: %s, %u online CPUs, %.1f GiB, load average %.2f; %u loader threads; warm: "
           "median of %llu\n",
           cpu, g16_ncpus(), (double)mem_kib / (1024.0 * 1024.0), load_average(), nt,
           (unsigned long long)repeat);
    printf("(peak_MiB: the load's peak RSS growth; cold: checked, then on-curve only; subgroup "
           "checks of the host path on %s)\n",
           host_checker() ? "GPU 0" : "the CPU");
    printf("%-6s %9s %10s | %8s %7s %11s %9s | %8s %7s %9s | %8s %8s\n", "size", "GB",
           "points", "warm_s", "GB/s", "points/s", "peak_MiB", "nochk_s", "GB/s", "peak_MiB",
           "cold_s", "nochk_s");
  }
  fflush(stdout);
  int rc = 0;
  unsigned n = nfiles ? (unsigned)nfiles : nsizes;
  for (unsigned i = 0; i < n && rc == 0; i++) {
    load_row row = {0};
    char dirbuf[512] = "";
    if (nfiles) {
      rc = bench_load_file(argv[optind + (int)i], nt, (unsigned)repeat, &row);
    } else {
      const char *tmp = getenv("TMPDIR");
      snprintf(dirbuf, sizeof dirbuf, "%s/sealprov-bench-load-XXXXXX", tmp && *tmp ? tmp : "/tmp");
      if (!mkdtemp(dirbuf)) {
        perror("sealprov bench load: mkdtemp");
        return 1;
      }
      char err[1024] = "", path[600];
      sp_setup_opts o = {.constraints = UINT64_C(1) << sizes[i], .inputs = 16, .partitions = 1,
                         .shape = SP_SHAPE_SEALING, .seed = 1000 + sizes[i], .out_dir = dirbuf,
                         .nthreads = nt};
      sp_setup_result sr;
      if (sp_setup_run(&o, &sr, err, sizeof err) != SEALPROV_OK) {
        sp_cli_error("setup 2^%u: %s", sizes[i], err);
        rc = 1;
      } else {
        snprintf(path, sizeof path, "%s/circuit.params", dirbuf);
        rc = bench_load_file(path, nt, (unsigned)repeat, &row);
        row.log = sizes[i];
      }
    }
    if (rc == 0)
      print_load_row(&row, json, i == 0, nt);
    if (dirbuf[0])
      g16_remove_tree(dirbuf);
  }
  if (json)
    printf("]}\n");
#ifdef HAVE_CUDA
  sp_cuda_checker_destroy(bench_checker);
  bench_checker = NULL;
#endif
  return rc;
}

int cmd_bench(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "load")) {
    sp_cli_cmd = "bench load"; /* messages: "sealprov bench load: error: ..." */
    return bench_load(argc - 1, argv + 1);
  }
  static const struct option opts[] = {
      {"sizes", required_argument, NULL, 's'},   {"inputs", required_argument, NULL, 'k'},
      {"repeat", required_argument, NULL, 'r'},  {"threads", required_argument, NULL, 't'},
      {"json", no_argument, NULL, 'j'},          {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  unsigned sizes[BENCH_MAX_SIZES] = {10, 14, 16}, nsizes = 3;
  uint64_t inputs = 16, repeat = 3, threads = 0;
  bool json = false;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 's':
      if (!parse_sizes(optarg, 24, sizes, &nsizes))
        return 2;
      break;
    case 'k':
      if (!g16_parse_u64("--inputs", optarg, 1000, &inputs))
        return 2;
      break;
    case 'r':
      if (!g16_parse_u64("--repeat", optarg, 100, &repeat) || repeat == 0)
        return 2;
      break;
    case 't':
      if (!g16_parse_u64("--threads", optarg, 1024, &threads))
        return 2;
      break;
    case 'j':
      json = true;
      break;
    case 'h':
      bench_usage(stdout);
      return 0;
    default:
      bench_usage(stderr);
      return 2;
    }
  }
  if (optind < argc) {
    sp_cli_error("unexpected argument \"%s\"", argv[optind]);
    return 2;
  }
  unsigned nt = threads ? (unsigned)threads : g16_ncpus();
  char cpu[256];
  unsigned long long mem_kib;
  machine(cpu, sizeof cpu, &mem_kib);
  struct utsname un;
  if (uname(&un) != 0)
    memset(&un, 0, sizeof un);
  if (json) {
    printf("{\"machine\": {\"cpu\": ");
    sp_cli_json_str(stdout, cpu);
    printf(", \"online_cpus\": %u, \"threads\": %u, \"mem_gib\": %.1f, \"loadavg_1min\": %.2f, "
           "\"kernel\": ",
           g16_ncpus(), nt, (double)mem_kib / (1024.0 * 1024.0), load_average());
    sp_cli_json_str(stdout, un.release);
    printf("}, \"repeat\": %llu, \"inputs\": %llu, \"results\": [", (unsigned long long)repeat,
           (unsigned long long)inputs);
  } else {
    printf("machine: %s, %u online CPUs, %.1f GiB, load average %.2f; %u prover threads; "
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
      printf("%s{\"log_constraints\": %u, \"constraints\": %llu, \"aux\": %llu, "
             "\"a_aux_density\": %.4f, \"b_aux_density\": %.4f, \"setup_ms\": %.1f, "
             "\"load_ms\": %.1f, \"load_no_subgroup_check_ms\": %.1f, \"prove_ms\": %.1f, "
             "\"prove_cpu_ms\": %.1f, \"verify_ms\": %.2f, \"loadavg_1min\": %.2f, "
             "\"prove_stages_ms\": {\"convert\": %.1f, \"ntt\": %.1f, "
             "\"h_msm\": %.1f, \"l_msm\": %.1f, \"a_msm\": %.1f, \"b_g1_msm\": %.1f, "
             "\"b_g2_msm\": %.1f, \"assemble\": %.1f}}",
             i ? ", " : "", row.log, (unsigned long long)row.info.abc_size,
             (unsigned long long)row.info.aux_size, ad,
             (double)row.info.b_aux_popcount / (double)row.info.aux_size, row.setup_ms,
             row.load_ms, row.load_nosub_ms, row.prove_ms, row.prove_cpu_ms, row.verify_ms,
             row.loadavg, s->convert_ms, s->ntt_ms, s->h_msm_ms, s->l_msm_ms, s->a_msm_ms,
             s->b_g1_msm_ms, s->b_g2_msm_ms, s->assemble_ms);
    } else {
      char sz[16];
      snprintf(sz, sizeof sz, "2^%u", row.log);
      printf("%-6s %7llu %9.0f %9.0f %9.0f %9.1f %9.1f %9.2f %6.2f%% | %7.1f %8.1f %7.1f %7.1f "
             "%7.1f %7.1f\n",
             sz, (unsigned long long)row.info.aux_size, row.setup_ms, row.load_ms,
             row.load_nosub_ms, row.prove_ms, row.prove_cpu_ms, row.verify_ms, 100 * ad,
             s->ntt_ms, s->h_msm_ms, s->l_msm_ms, s->a_msm_ms, s->b_g1_msm_ms, s->b_g2_msm_ms);
    }
    fflush(stdout);
  }
  if (json)
    printf("]}\n");
  return rc;
}
