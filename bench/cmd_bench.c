/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_bench.c -- `sealprov bench`: setup, parameter loading, proving and verification
 * times of sealing-shaped partitions on the CPU prover (plugin/groth16/prove.c called
 * directly, so the figures are the prover's, not the scheduler's); `bench load` is
 * bench_load.c. Also what the bench commands share (bench.h). */
#include <config.h>

#include <errno.h>
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

double sp_bench_load_average(void) {
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

int sp_bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void sp_bench_machine(char *cpu, size_t cpulen, unsigned long long *mem_kib) {
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
  sp_bench_proc_kib(SP_PROC_MEMINFO, "MemTotal", mem_kib);
}

typedef struct bench_row {
  unsigned log;
  sp_circuit_info info;
  double setup_ms, load_ms, load_nosub_ms, prove_ms, prove_cpu_ms, verify_ms, loadavg;
  sp_prove_timings stages;
} bench_row;

/* One size's run: its directory, the loaded set and partition, the timings of each
 * repeat; err says why a step failed. */
typedef struct bench_run {
  unsigned log, repeat, threads;
  char dir[512], err[1024];
  sp_srs *srs;
  sp_spa *spa;
  double *prove, *prove_cpu, *verify;
  sp_prove_timings *st;
  sp_cli_meter meter; /* --progress: setup, two loads, repeat proofs with their checks */
  double steps;
} bench_run;

/* A sealing-shaped setup with one partition in r->dir, then its parameters loaded with
 * and without subgroup checks ([provider] params_subgroup_check = false); steps 1-3. */
static bool bench_setup_load(bench_run *r, uint32_t inputs, bench_row *row) {
  g16_setup_meter gm = {.stage = ""};
  sp_progress pr = {.fn = g16_setup_progress, .user = &gm};
  sp_setup_opts o = {.progress = &pr,
                     .constraints = UINT64_C(1) << r->log,
                     .inputs = inputs,
                     .partitions = 1,
                     .shape = SP_SHAPE_SEALING,
                     .seed = 1000 + r->log,
                     .out_dir = r->dir,
                     .nthreads = r->threads};
  sp_setup_result sr;
  char path[600];
  double t0 = sp_cli_now_ms();
  if (sp_setup_run(&o, &sr, r->err, sizeof r->err) != SEALPROV_OK) return false;
  row->setup_ms = sp_cli_now_ms() - t0;
  sp_cli_meter_step(&r->meter, 1, r->steps, "steps");
  row->info = sr.info;
  snprintf(path, sizeof path, "%s/circuit.params", r->dir);
  t0 = sp_cli_now_ms();
  if (sp_srs_load(path, false, true, r->threads, &r->srs, r->err, sizeof r->err) != SEALPROV_OK)
    return false;
  row->load_ms = sp_cli_now_ms() - t0;
  sp_cli_meter_step(&r->meter, 2, r->steps, "steps");
  sp_srs *quick = NULL;
  t0 = sp_cli_now_ms();
  if (sp_srs_load(path, false, false, r->threads, &quick, r->err, sizeof r->err) != SEALPROV_OK)
    return false;
  row->load_nosub_ms = sp_cli_now_ms() - t0;
  sp_srs_release(quick);
  sp_cli_meter_step(&r->meter, 3, r->steps, "steps");
  return true;
}

/* r->repeat proofs of the partition, each with full-width blinding and verified. */
static bool bench_proofs(bench_run *r) {
  char path[600];
  snprintf(path, sizeof path, "%s/partition-00.spa", r->dir);
  if (sp_spa_read(path, &r->spa, r->err, sizeof r->err) != SEALPROV_OK) return false;
  for (unsigned i = 0; i < r->repeat; i++) {
    fr_t fr_r, fr_s;
    fr_from_u64(&fr_r, 3 + i);
    fr_from_u64(&fr_s, 5 + i);
    fr_pow_u64(&fr_r, &fr_r, 0xFFFFFFFFFFFFull); /* full-width blinding */
    fr_pow_u64(&fr_s, &fr_s, 0xFFFFFFFFFFFFull);
    uint8_t proof[192];
    double t0 = sp_cli_now_ms(), c0 = sp_cli_cpu_ms();
    if (sp_groth16_prove_timed(r->srs, &r->spa->asg, SEALPROV_SCALAR_CANONICAL_LE, &fr_r, &fr_s,
                               r->threads, proof, &r->st[i], r->err, sizeof r->err) != SEALPROV_OK)
      return false;
    r->prove[i] = sp_cli_now_ms() - t0;
    r->prove_cpu[i] = sp_cli_cpu_ms() - c0;
    bool valid = false;
    t0 = sp_cli_now_ms();
    if (sp_groth16_verify(r->srs, &r->spa->asg, SEALPROV_SCALAR_CANONICAL_LE, proof, &valid, r->err,
                          sizeof r->err) != SEALPROV_OK)
      return false;
    r->verify[i] = sp_cli_now_ms() - t0;
    if (!valid) {
      snprintf(r->err, sizeof r->err, "the proof of the 2^%u partition does not verify", r->log);
      return false;
    }
    sp_cli_meter_step(&r->meter, 4.0 + i, r->steps, "steps");
  }
  return true;
}

/* The median prove, with the stage breakdown of that very run, and the median verify.
 * False when out of memory. */
static bool bench_medians(const bench_run *r, bench_row *row) {
  unsigned repeat = r->repeat;
  double *sorted = calloc(repeat, sizeof(double));
  if (!sorted) return false;
  memcpy(sorted, r->prove, repeat * sizeof(double));
  qsort(sorted, repeat, sizeof(double), sp_bench_cmp_double);
  row->prove_ms = sorted[repeat / 2];
  for (unsigned i = 0; i < repeat; i++)
    if (r->prove[i] == row->prove_ms) {
      row->stages = r->st[i];
      row->prove_cpu_ms = r->prove_cpu[i];
      break;
    }
  qsort(r->verify, repeat, sizeof(double), sp_bench_cmp_double);
  row->verify_ms = r->verify[repeat / 2];
  row->loadavg = sp_bench_load_average();
  free(sorted);
  return true;
}

/* One size: setup, loads, proofs and their figures into row, in a temporary directory
 * removed after. */
static int bench_one(unsigned log, uint32_t inputs, unsigned repeat, unsigned threads,
                     bench_row *row) {
  bench_run r = {.log = log, .repeat = repeat, .threads = threads, .steps = 3.0 + repeat};
  const char *tmp = getenv("TMPDIR");
  snprintf(r.dir, sizeof r.dir, "%s/sealprov-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(r.dir)) {
    perror("sealprov bench: mkdtemp");
    return 1;
  }
  int ret = 1;
  r.prove = calloc(repeat, sizeof(double));
  r.verify = calloc(repeat, sizeof(double));
  r.prove_cpu = calloc(repeat, sizeof(double));
  r.st = calloc(repeat, sizeof *r.st);
  if (r.prove && r.verify && r.st && r.prove_cpu) {
    row->log = log;
    sp_cli_meter_start(&r.meter, "bench 2^%u", log);
    if (!bench_setup_load(&r, inputs, row) || !bench_proofs(&r))
      sp_cli_error("2^%u: %s", log, r.err);
    else if (bench_medians(&r, row))
      ret = 0;
  }
  sp_spa_free(r.spa);
  sp_srs_release(r.srs);
  free(r.prove);
  free(r.prove_cpu);
  free(r.verify);
  free(r.st);
  g16_remove_tree(r.dir);
  return ret;
}

/* --sizes K,K,...: up to BENCH_MAX_SIZES exponents between 6 and max_log. */
bool sp_bench_parse_sizes(const char *arg, unsigned max_log, unsigned *sizes, unsigned *n) {
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

/* The options of `sealprov bench`, checked. */
typedef struct bench_opts {
  unsigned sizes[BENCH_MAX_SIZES], nsizes;
  uint64_t inputs, repeat, threads;
  unsigned nt; /* prover threads */
  bool json;
} bench_opts;

/* -1 when the command is to run; else its exit status (0 after --help, 2 on a usage
 * error). */
static int bench_parse(int argc, char **argv, bench_opts *o) {
  static const struct option opts[] = {
      {"sizes", required_argument, NULL, 's'},
      {"inputs", required_argument, NULL, 'k'},
      {"repeat", required_argument, NULL, 'r'},
      {"threads", required_argument, NULL, 't'},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {.usage = bench_usage, .takes = SP_CLI_JSON, .opts = opts};
  *o = (bench_opts){.sizes = {10, 14, 16}, .nsizes = 3, .inputs = 16, .repeat = 3};
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case 's':
        if (!sp_bench_parse_sizes(optarg, 24, o->sizes, &o->nsizes)) return 2;
        break;
      case 'k':
        if (!sp_cli_u64("--inputs", optarg, 1000, &o->inputs)) return 2;
        break;
      case 'r':
        if (!sp_cli_u64("--repeat", optarg, 100, &o->repeat) || o->repeat == 0) return 2;
        break;
      case 't':
        if (!sp_cli_u64("--threads", optarg, 1024, &o->threads)) return 2;
        break;
    }
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 0, 0, "")) return a.status;
  o->json = a.json;
  o->nt = o->threads ? (unsigned)o->threads : g16_ncpus();
  return -1;
}

/* The machine, then the table's head (or the JSON object's opening). */
static void bench_header(const bench_opts *o) {
  char cpu[256];
  unsigned long long mem_kib;
  sp_bench_machine(cpu, sizeof cpu, &mem_kib);
  struct utsname un;
  if (uname(&un) != 0) memset(&un, 0, sizeof un);
  if (o->json) {
    printf("{\"machine\": {\"cpu\": ");
    sp_cli_json_str(stdout, cpu);
    printf(
        ", \"online_cpus\": %u, \"threads\": %u, \"mem_gib\": %.1f, \"loadavg_1min\": %.2f, "
        "\"kernel\": ",
        g16_ncpus(), o->nt, (double)mem_kib / (1024.0 * 1024.0), sp_bench_load_average());
    sp_cli_json_str(stdout, un.release);
    printf("}, \"repeat\": %llu, \"inputs\": %llu, \"results\": [", (unsigned long long)o->repeat,
           (unsigned long long)o->inputs);
  } else {
    printf(
        "machine: %s, %u online CPUs, %.1f GiB, load average %.2f; %u prover threads; "
        "median of %llu\n",
        cpu, g16_ncpus(), (double)mem_kib / (1024.0 * 1024.0), sp_bench_load_average(), o->nt,
        (unsigned long long)o->repeat);
    printf("%-6s %7s %9s %9s %9s %9s %9s %9s %7s | %7s %8s %7s %7s %7s %7s\n", "size", "aux",
           "setup_ms", "load_ms", "load_nosg", "prove_ms", "prove_cpu", "verify_ms", "a-dens",
           "ntt", "h_msm", "l_msm", "a_msm", "b1_msm", "b2_msm");
  }
  fflush(stdout);
}

/* One size's row of the table (or its JSON object, the first without a comma). */
static void bench_print_row(const bench_row *row, bool json, bool first) {
  double ad = (double)row->info.a_aux_popcount / (double)row->info.aux_size;
  const sp_prove_timings *s = &row->stages;
  if (json) {
    printf(
        "%s{\"log_constraints\": %u, \"constraints\": %llu, \"aux\": %llu, "
        "\"a_aux_density\": %.4f, \"b_aux_density\": %.4f, \"setup_ms\": %.1f, "
        "\"load_ms\": %.1f, \"load_no_subgroup_check_ms\": %.1f, \"prove_ms\": %.1f, "
        "\"prove_cpu_ms\": %.1f, \"verify_ms\": %.2f, \"loadavg_1min\": %.2f, "
        "\"prove_stages_ms\": {\"convert\": %.1f, \"ntt\": %.1f, "
        "\"h_msm\": %.1f, \"l_msm\": %.1f, \"a_msm\": %.1f, \"b_g1_msm\": %.1f, "
        "\"b_g2_msm\": %.1f, \"assemble\": %.1f}}",
        first ? "" : ", ", row->log, (unsigned long long)row->info.abc_size,
        (unsigned long long)row->info.aux_size, ad,
        (double)row->info.b_aux_popcount / (double)row->info.aux_size, row->setup_ms, row->load_ms,
        row->load_nosub_ms, row->prove_ms, row->prove_cpu_ms, row->verify_ms, row->loadavg,
        s->convert_ms, s->ntt_ms, s->h_msm_ms, s->l_msm_ms, s->a_msm_ms, s->b_g1_msm_ms,
        s->b_g2_msm_ms, s->assemble_ms);
  } else {
    char sz[16];
    snprintf(sz, sizeof sz, "2^%u", row->log);
    printf(
        "%-6s %7llu %9.0f %9.0f %9.0f %9.1f %9.1f %9.2f %6.2f%% | %7.1f %8.1f %7.1f %7.1f "
        "%7.1f %7.1f\n",
        sz, (unsigned long long)row->info.aux_size, row->setup_ms, row->load_ms, row->load_nosub_ms,
        row->prove_ms, row->prove_cpu_ms, row->verify_ms, 100 * ad, s->ntt_ms, s->h_msm_ms,
        s->l_msm_ms, s->a_msm_ms, s->b_g1_msm_ms, s->b_g2_msm_ms);
  }
  fflush(stdout);
}

int cmd_bench(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "load")) {
    sp_cli_cmd = "bench load"; /* messages: "sealprov bench load: error: ..." */
    return sp_bench_load(argc - 1, argv + 1);
  }
  bench_opts o;
  int st = bench_parse(argc, argv, &o);
  if (st >= 0) return st;
  bench_header(&o);
  int rc = 0;
  for (unsigned i = 0; i < o.nsizes; i++) {
    bench_row row = {0};
    if (bench_one(o.sizes[i], (uint32_t)o.inputs, (unsigned)o.repeat, o.nt, &row) != 0) {
      rc = 1;
      break;
    }
    bench_print_row(&row, o.json, i == 0);
  }
  if (o.json) printf("]}\n");
  return rc;
}
