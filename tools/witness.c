/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* witness.c -- the developer commands of witness-only proving (`prove --r1cs` itself is
 * prove_witness.c):
 *   cmd_wtns            `sealprov wtns IN.spa OUT.wtns`: a partition's witness as circom
 *                       writes it (for tests and for hosts that want to try .wtns);
 *   cmd_bench_witness   `sealprov bench witness DIR`: witness-only against full-assignment
 *                       partitions: the SpMV stage apart, the whole proof through the
 *                       module, and the host memory a host must hold per partition. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "formats/cs.h"
#include "wtns.h"
#include "groth16/cs_eval.h"
#include "g16_util.h"
#include "spa.h"
#include "witness.h"

/* ---- sealprov wtns ---------------------------------------------------------------------- */

static void wtns_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov wtns PARTITION.spa OUT.wtns\n"
          "  Writes the partition's witness (ONE, the public inputs, then aux) as a circom\n"
          "  .wtns file (version 2, BLS12-381), for `sealprov prove --r1cs`.\n");
}

int cmd_wtns(int argc, char **argv) {
  sp_cli_args a = {.usage = wtns_usage};
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 2, 2, "PARTITION.spa and OUT.wtns")) return a.status;
  argv += a.first - 1; /* argv[1], argv[2]: the two files */
  char err[1024];
  sp_spa *spa = NULL;
  if (sp_spa_read(argv[1], &spa, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s", err);
    return 1;
  }
  uint64_t ni = spa->asg.inp_size, na = spa->asg.aux_size;
  uint8_t *v = malloc(32 * (ni + na) + 32);
  int ret = 1;
  if (!v) {
    sp_cli_error("out of memory");
    goto out;
  }
  memcpy(v, spa->asg.inp_assignment, 32 * ni);
  memcpy(v + 32 * ni, spa->asg.aux_assignment, 32 * na);
  if (sp_wtns_write(argv[2], v, ni + na, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s", err);
    goto out;
  }
  ret = 0;
out:
  free(v);
  sp_spa_free(spa);
  return ret;
}

/* ---- sealprov bench witness --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void bench_witness_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov bench witness [--plugin MODULE] [-c INI] [--reps N] [--threads T] DIR\n"
          "  DIR is a `sealprov setup` directory (circuit.params, circuit.r1cs,\n"
          "  partition-00.spa). Measures, for that partition, witness-only proving against\n"
          "  full-assignment proving: the SpMV stage alone (a, b, c = A z, B z, C z with T\n"
          "  host threads, in-process, median of N), one-partition jobs of each kind through\n"
          "  the module on the INI's devices (median wall time of N, r = s = 0 so the bytes\n"
          "  are compared), and the host memory the host must hold per partition. JSON.\n");
}

int cmd_bench_witness(int argc, char **argv) {
  enum { O_REPS = 256, O_THREADS };
  static const struct option opts[] = {
      {"reps", required_argument, NULL, O_REPS},
      {"threads", required_argument, NULL, O_THREADS},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {
      .usage = bench_witness_usage, .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG, .opts = opts};
  unsigned reps = 3, threads = g16_ncpus();
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case O_REPS:
        if (!sp_cli_uint("--reps", optarg, 1, 1000, &reps)) return 2;
        break;
      case O_THREADS:
        if (!sp_cli_uint("--threads", optarg, 1, 1024, &threads)) return 2;
        break;
    }
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 1, 1, "DIR (a `sealprov setup` directory)")) return a.status;
  const char *ini = a.config;
  const char *dir = argv[a.first];
  size_t dl = strlen(dir) + 32;
  char *r1cs = malloc(dl), *params = malloc(dl), *part = malloc(dl);
  double *t_spmv = calloc(reps, sizeof(double)), *t_dec = calloc(reps, sizeof(double));
  double *t_full = calloc(reps, sizeof(double)), *t_wit = calloc(reps, sizeof(double));
  double *r_full = calloc(reps, sizeof(double)), *r_wit = calloc(reps, sizeof(double));
  double *c_eval = calloc(reps, sizeof(double));
  int ret = 1;
  sp_cs *cs = NULL;
  sp_spa *spa = NULL;
  sp_cli_host h = {0};
  sealprov_srs *srs = NULL;
  sealprov_cs *mcs = NULL;
  char err[1024];
  if (!r1cs || !params || !part || !t_spmv || !t_dec || !t_full || !t_wit || !r_full || !r_wit ||
      !c_eval) {
    sp_cli_error("out of memory");
    goto out;
  }
  snprintf(r1cs, dl, "%s/circuit.r1cs", dir);
  snprintf(params, dl, "%s/circuit.params", dir);
  snprintf(part, dl, "%s/partition-00.spa", dir);
  double t0 = sp_cli_now_ms();
  if (sp_cs_load(r1cs, &cs, err, sizeof err) != SEALPROV_OK ||
      sp_spa_read(part, &spa, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s", err);
    goto out;
  }
  double cs_load_ms = sp_cli_now_ms() - t0;
  const sealprov_assignment *full = &spa->asg;
  sealprov_assignment wit = {.inp_assignment = full->inp_assignment,
                             .inp_size = full->inp_size,
                             .aux_assignment = full->aux_assignment,
                             .aux_size = full->aux_size};
  /* --progress: SpMV runs, then job pairs */
  sp_cli_meter meter;
  sp_cli_meter_start(&meter, "bench witness");
  /* 1. the SpMV stage alone, checked against the partition file's a, b, c */
  for (unsigned i = 0; i < reps; i++) {
    sp_cs_eval *e = NULL;
    double c0 = sp_cli_cpu_ms();
    if (sp_cs_evaluate(cs, &wit, SEALPROV_SCALAR_CANONICAL_LE, (unsigned)threads, &e, err,
                       sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      goto out;
    }
    c_eval[i] = sp_cli_cpu_ms() - c0;
    t_spmv[i] = e->spmv_ms;
    t_dec[i] = e->decode_ms;
    bool same = e->asg.abc_size == full->abc_size &&
                !memcmp(e->asg.a, full->a, 32 * full->abc_size) &&
                !memcmp(e->asg.b, full->b, 32 * full->abc_size) &&
                !memcmp(e->asg.c, full->c, 32 * full->abc_size);
    sp_cs_eval_free(e);
    if (!same) {
      sp_cli_error("%s: A z, B z, C z differ from the a, b, c of %s", r1cs, part);
      goto out;
    }
    sp_cli_meter_step(&meter, 1.0 + i, 2.0 * reps, "runs");
  }
  /* 2. one-partition jobs through the module, alternating kinds */
  if (!sp_cli_host_open(&h, ini)) goto out;
  const sealprov_vtable *vt = h.vt;
  if (!SEALPROV_VTABLE_HAS(vt, cs_info)) {
    sp_cli_error("the module implements ABI %" PRIu32 ".%" PRIu32 "; witness-only jobs need 1.1",
                 vt->abi_major, vt->abi_minor);
    goto out;
  }
  if (vt->srs_load(h.p, params, &srs) != SEALPROV_OK ||
      vt->cs_load(h.p, r1cs, &mcs) != SEALPROV_OK) {
    sp_cli_error("%s", vt->last_error());
    goto out;
  }
  uint8_t zeros[64] = {0}, proof_full[192], proof_wit[192];
  for (unsigned i = 0; i < reps; i++) {
    for (int kind = 0; kind < 2; kind++) {
      sealprov_partition_result res;
      sealprov_job job;
      memset(&job, 0, sizeof job);
      job.struct_size = sizeof job;
      job.flags = SEALPROV_JOB_FIXED_RS;
      job.srs = srs;
      job.cs = kind ? mcs : NULL;
      job.partitions = kind ? &wit : full;
      job.num_partitions = 1;
      job.r = zeros;
      job.s = zeros + 32;
      job.proofs_out = kind ? proof_wit : proof_full;
      job.results = &res;
      double j0 = sp_cli_now_ms();
      int rc = vt->prove(h.p, &job);
      double ms = sp_cli_now_ms() - j0;
      if (rc != SEALPROV_OK) {
        sp_cli_error("%s job: %s: %s", kind ? "witness-only" : "full-assignment",
                     g16_status_name(rc), vt->last_error());
        goto out;
      }
      (kind ? t_wit : t_full)[i] = ms;
      (kind ? r_wit : r_full)[i] = res.run_ms;
    }
    if (memcmp(proof_full, proof_wit, 192) != 0) {
      sp_cli_error("the witness-only proof differs from the full-assignment proof (r = s = 0)");
      goto out;
    }
    sp_cli_meter_step(&meter, (double)reps + 1.0 + i, 2.0 * reps, "runs");
  }
  /* 3. what the host must hold per partition until on_inputs_released */
  uint64_t abc = full->abc_size, nv = full->inp_size + full->aux_size;
  uint64_t bm = 8 * (2 * (full->aux_size / 64 + 1) + (full->inp_size / 64 + 1));
  uint64_t host_full = 3 * 32 * abc + 32 * nv + bm, host_wit = 32 * nv;
  sealprov_cs_info info = {.struct_size = sizeof info};
  vt->cs_info(mcs, &info);
  unsigned log = 0;
  while ((UINT64_C(1) << log) < abc) log++;
  printf("{\"dir\": ");
  sp_cli_json_str(stdout, dir);
  printf(
      ", \"log_domain\": %u, \"abc_size\": %" PRIu64 ", \"inp_size\": %" PRIu64
      ", \"aux_size\": %" PRIu64 ", \"nnz\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64
      "], \"reps\": %u, \"spmv_threads\": %u, \"cs_load_ms\": %.1f, "
      "\"cs_host_bytes\": %" PRIu64
      ", \"witness_decode_ms\": %.2f, \"spmv_ms\": %.2f, \"eval_cpu_ms\": %.2f, "
      "\"full_job_ms\": %.1f, \"witness_job_ms\": %.1f, \"full_run_ms\": %.1f, "
      "\"witness_run_ms\": %.1f, \"host_bytes_full\": %" PRIu64 ", \"host_bytes_witness\": %" PRIu64
      ", \"host_bytes_ratio\": %.2f, "
      "\"module_bytes_per_witness_partition\": %" PRIu64 ", \"proofs_equal\": true}\n",
      log, abc, full->inp_size, full->aux_size, info.nnz_a, info.nnz_b, info.nnz_c, reps, threads,
      cs_load_ms, info.host_bytes, median(t_dec, (unsigned)reps), median(t_spmv, (unsigned)reps),
      median(c_eval, (unsigned)reps), median(t_full, (unsigned)reps), median(t_wit, (unsigned)reps),
      median(r_full, (unsigned)reps), median(r_wit, (unsigned)reps), host_full, host_wit,
      (double)host_full / (double)host_wit, 3 * 32 * abc);
  ret = 0;
out:
  if (mcs) h.vt->cs_release(mcs);
  if (srs) h.vt->srs_release(srs);
  sp_cli_host_close(&h);
  sp_cs_release(cs);
  sp_spa_free(spa);
  free(r1cs);
  free(params);
  free(part);
  free(t_spmv);
  free(t_dec);
  free(t_full);
  free(t_wit);
  free(r_full);
  free(r_wit);
  free(c_eval);
  return ret;
}
