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
    if (sp_groth16_prove_timed(srs, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, &r, &s, threads, proof,
                               &st[i], err, sizeof err) != SEALPROV_OK)
      goto fail;
    prove[i] = sp_cli_now_ms() - t0;
    prove_cpu[i] = sp_cli_cpu_ms() - c0;
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
  qsort(sorted, repeat, sizeof(double), sp_bench_cmp_double);
  row->prove_ms = sorted[repeat / 2];
  for (unsigned i = 0; i < repeat; i++)
    if (prove[i] == row->prove_ms) {
      row->stages = st[i];
      row->prove_cpu_ms = prove_cpu[i];
      break;
    }
  qsort(verify, repeat, sizeof(double), sp_bench_cmp_double);
  row->verify_ms = verify[repeat / 2];
  row->loadavg = sp_bench_load_average();
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

int cmd_bench(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "load")) {
    sp_cli_cmd = "bench load"; /* messages: "sealprov bench load: error: ..." */
    return sp_bench_load(argc - 1, argv + 1);
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
        if (!sp_bench_parse_sizes(optarg, 24, sizes, &nsizes)) return 2;
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
  sp_bench_machine(cpu, sizeof cpu, &mem_kib);
  struct utsname un;
  if (uname(&un) != 0) memset(&un, 0, sizeof un);
  if (json) {
    printf("{\"machine\": {\"cpu\": ");
    sp_cli_json_str(stdout, cpu);
    printf(
        ", \"online_cpus\": %u, \"threads\": %u, \"mem_gib\": %.1f, \"loadavg_1min\": %.2f, "
        "\"kernel\": ",
        g16_ncpus(), nt, (double)mem_kib / (1024.0 * 1024.0), sp_bench_load_average());
    sp_cli_json_str(stdout, un.release);
    printf("}, \"repeat\": %llu, \"inputs\": %llu, \"results\": [", (unsigned long long)repeat,
           (unsigned long long)inputs);
  } else {
    printf(
        "machine: %s, %u online CPUs, %.1f GiB, load average %.2f; %u prover threads; "
        "median of %llu\n",
        cpu, g16_ncpus(), (double)mem_kib / (1024.0 * 1024.0), sp_bench_load_average(), nt,
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
