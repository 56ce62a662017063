/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_witness.c -- `sealprov bench witness DIR`: witness-only against full-assignment
 * partitions: the SpMV stage apart, the whole proof through the module, and the host
 * memory a host must hold per partition. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "cli.h"
#include "formats/cs.h"
#include "groth16/cs_eval.h"
#include "g16_util.h"
#include "spa.h"

static void bench_witness_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov bench witness [--plugin MODULE] [-c INI] [--reps N] [--threads T]\n"
          "                              [--json] DIR\n"
          "       sealprov bench witness [options] --size K [--r1cs-dir DIR]\n"
          "  DIR is a `sealprov setup` directory (circuit.params, circuit.r1cs,\n"
          "  partition-00.spa). Measures, for that partition, witness-only proving against\n"
          "  full-assignment proving: the SpMV stage alone (a, b, c = A z, B z, C z with T\n"
          "  host threads, in-process, median of N), one-partition jobs of each kind through\n"
          "  the module on the INI's devices (median wall time of N, r = s = 0 so the bytes\n"
          "  are compared), and the host memory the host must hold per partition. JSON (with\n"
          "  or without --json).\n"
          "  --size K makes the setup itself: a sealing-shaped circuit of 2^K constraints\n"
          "  (10 <= K <= 27, 16 inputs), its witness in memory (no partition file), the\n"
          "  .r1cs in a temporary directory under --r1cs-dir (default $TMPDIR, else /tmp)\n"
          "  and circuit.params in one under $TMPDIR, the fixed-base products on GPU 0 where\n"
          "  one is visible; both are removed at the end. At 2^27 the parameters take 50 GB\n"
          "  and the .r1cs ~22 GB: give a tmpfs such as /dev/shm as --r1cs-dir where the\n"
          "  disk holds only the parameters. The JSON then has \"made\": the time of each step\n"
          "  and the files' sizes, and setup_peak_rss_bytes; peak_rss_bytes is the process's\n"
          "  peak RSS after the setup (or from the start, without --size).\n");
}

/* --size: the steps of the setup bench witness makes itself, and their results. */
typedef struct bw_made {
  char dir[512], r1cs_dir[512]; /* temporary directories ("" none) */
  char r1cs[600], params[600], vk[600];
  sp_witness *w;
  double circuit_ms, witness_ms, r1cs_ms, params_ms;
  uint64_t r1cs_bytes, params_bytes;
  unsigned long long peak_kib; /* the process's peak RSS up to the end of the setup */
  bool gpu;
} bw_made;

static uint64_t file_bytes(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static bool bw_tmpdir(char *buf, size_t len, const char *root) {
  if (!root || !*root) root = getenv("TMPDIR");
  if (!root || !*root) root = "/tmp";
  snprintf(buf, len, "%s/sealprov-bench-witness-XXXXXX", root);
  if (!mkdtemp(buf)) {
    sp_cli_error("cannot make a temporary directory %s: %s", buf, strerror(errno));
    buf[0] = 0;
    return false;
  }
  return true;
}

/* The circuit (sealing shape, 16 inputs, seeds from log as bench load's), its witness,
 * its .r1cs and its parameter file; the circuit itself is freed before the loads. */
static bool bw_make(unsigned log, const char *r1cs_root, unsigned nt, bw_made *m) {
  char err[1024] = "";
  if (!bw_tmpdir(m->dir, sizeof m->dir, NULL)) return false;
  if (r1cs_root && !bw_tmpdir(m->r1cs_dir, sizeof m->r1cs_dir, r1cs_root)) return false;
  snprintf(m->r1cs, sizeof m->r1cs, "%s/circuit.r1cs", r1cs_root ? m->r1cs_dir : m->dir);
  snprintf(m->params, sizeof m->params, "%s/circuit.params", m->dir);
  snprintf(m->vk, sizeof m->vk, "%s/circuit.vk", m->dir);
  m->gpu = sp_bench_gpu_visible();
  sp_cli_note("setup 2^%u: circuit, %s, %s (fixed-base products on %s), witness", log, m->r1cs,
              m->params, m->gpu ? "GPU 0" : "the CPU");
  double t0 = sp_cli_now_ms();
  sp_circuit *c = NULL;
  if (sp_circuit_generate(UINT64_C(1) << log, 16, SP_SHAPE_SEALING, 1000 + log, &c, err,
                          sizeof err) != SEALPROV_OK) {
    sp_cli_error("circuit 2^%u: %s", log, err);
    return false;
  }
  double t1 = sp_cli_now_ms();
  m->circuit_ms = t1 - t0;
  bool ok = false;
  /* the .r1cs and the parameters before the witness: the setup's peak memory does not
   * hold the witness too (at 2^27 the witness is ~17 GB) */
  if (sp_circuit_write_r1cs(c, m->r1cs, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s", err);
    goto out;
  }
  double t2 = sp_cli_now_ms();
  m->r1cs_ms = t2 - t1;
  m->r1cs_bytes = file_bytes(m->r1cs);
  if (g16_circuit_params(c, 2000 + log, nt, m->gpu ? 0 : -1, m->params, m->vk, err, sizeof err) !=
      SEALPROV_OK) {
    sp_cli_error("setup 2^%u: %s", log, err);
    goto out;
  }
  double t3 = sp_cli_now_ms();
  m->params_ms = t3 - t2;
  m->params_bytes = file_bytes(m->params);
  if (sp_circuit_witness(c, 3000 + log, &m->w, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("witness of the 2^%u circuit: %s", log, err);
    goto out;
  }
  m->witness_ms = sp_cli_now_ms() - t3;
  ok = true;
out:
  sp_circuit_free(c);
  sp_bench_proc_kib(SP_PROC_STATUS, "VmHWM", &m->peak_kib);
  return ok;
}

static void bw_made_free(bw_made *m) {
  sp_witness_free(m->w);
  if (m->dir[0]) g16_remove_tree(m->dir);
  if (m->r1cs_dir[0]) g16_remove_tree(m->r1cs_dir);
}

int cmd_bench_witness(int argc, char **argv) {
  enum { O_REPS = 256, O_THREADS, O_SIZE, O_R1CS_DIR };
  static const struct option opts[] = {
      {"reps", required_argument, NULL, O_REPS},
      {"threads", required_argument, NULL, O_THREADS},
      {"size", required_argument, NULL, O_SIZE},
      {"r1cs-dir", required_argument, NULL, O_R1CS_DIR},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {.usage = bench_witness_usage,
                   .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON,
                   .opts = opts};
  unsigned reps = 3, threads = g16_ncpus(), size = 0;
  const char *r1cs_root = NULL;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case O_REPS:
        if (!sp_cli_uint("--reps", optarg, 1, 1000, &reps)) return 2;
        break;
      case O_THREADS:
        if (!sp_cli_uint("--threads", optarg, 1, 1024, &threads)) return 2;
        break;
      case O_SIZE:
        if (!sp_cli_uint("--size", optarg, 10, 27, &size)) return 2;
        break;
      case O_R1CS_DIR: r1cs_root = optarg; break;
    }
  }
  if (c < 0) return a.status;
  if (size) {
    if (!sp_cli_operands(&a, argc, argv, 0, 0, "no DIR with --size")) return a.status;
  } else {
    if (!sp_cli_operands(&a, argc, argv, 1, 1, "DIR (a `sealprov setup` directory) or --size K"))
      return a.status;
    if (r1cs_root) return sp_cli_usage_error(&a, "--r1cs-dir goes with --size");
  }
  if (r1cs_root) {
    struct stat st;
    if (stat(r1cs_root, &st) != 0) {
      sp_cli_error("--r1cs-dir %s: %s", r1cs_root, strerror(errno));
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      sp_cli_error("--r1cs-dir %s: not a directory", r1cs_root);
      return 1;
    }
  }
  const char *ini = a.config;
  const char *dir = size ? NULL : argv[a.first];
  bw_made made = {0};
  size_t dl = (dir ? strlen(dir) : sizeof made.r1cs) + 32;
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
  const sealprov_assignment *full;
  double t0;
  bool peak_reset = false;
  if (size) {
    if (!bw_make(size, r1cs_root, threads, &made)) goto out;
    snprintf(r1cs, dl, "%s", made.r1cs);
    snprintf(params, dl, "%s", made.params);
    snprintf(part, dl, "the generator's witness");
    t0 = sp_cli_now_ms();
    if (sp_cs_load(r1cs, &cs, err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      goto out;
    }
    full = &made.w->asg;
    peak_reset = sp_bench_reset_peak_rss();
  } else {
    snprintf(r1cs, dl, "%s/circuit.r1cs", dir);
    snprintf(params, dl, "%s/circuit.params", dir);
    snprintf(part, dl, "%s/partition-00.spa", dir);
    t0 = sp_cli_now_ms();
    if (sp_cs_load(r1cs, &cs, err, sizeof err) != SEALPROV_OK ||
        sp_spa_read(part, &spa, err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      goto out;
    }
    full = &spa->asg;
  }
  double cs_load_ms = sp_cli_now_ms() - t0;
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
  unsigned long long peak_kib;
  sp_bench_proc_kib(SP_PROC_STATUS, "VmHWM", &peak_kib);
  printf("{\"dir\": ");
  if (dir)
    sp_cli_json_str(stdout, dir);
  else
    printf("null");
  if (size)
    printf(
        ", \"made\": {\"size\": %u, \"fixed_base\": \"%s\", \"circuit_ms\": %.1f, "
        "\"witness_ms\": %.1f, \"r1cs_ms\": %.1f, \"params_ms\": %.1f, \"r1cs_bytes\": %" PRIu64
        ", \"params_bytes\": %" PRIu64 ", \"setup_peak_rss_bytes\": %llu}",
        size, made.gpu ? "gpu0" : "cpu", made.circuit_ms, made.witness_ms, made.r1cs_ms,
        made.params_ms, made.r1cs_bytes, made.params_bytes, made.peak_kib * 1024);
  printf(", \"log_domain\": %u, \"abc_size\": %" PRIu64 ", \"inp_size\": %" PRIu64
         ", \"aux_size\": %" PRIu64 ", \"nnz\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64
         "], \"reps\": %u, \"spmv_threads\": %u, \"cs_load_ms\": %.1f, "
         "\"cs_host_bytes\": %" PRIu64
         ", \"witness_decode_ms\": %.2f, \"spmv_ms\": %.2f, \"eval_cpu_ms\": %.2f, "
         "\"full_job_ms\": %.1f, \"witness_job_ms\": %.1f, \"full_run_ms\": %.1f, "
         "\"witness_run_ms\": %.1f, \"host_bytes_full\": %" PRIu64
         ", \"host_bytes_witness\": %" PRIu64
         ", \"host_bytes_ratio\": %.2f, "
         "\"module_bytes_per_witness_partition\": %" PRIu64
         ", \"peak_rss_bytes\": %llu, \"peak_rss_since\": \"%s\", \"proofs_equal\": true}\n",
         log, abc, full->inp_size, full->aux_size, info.nnz_a, info.nnz_b, info.nnz_c, reps,
         threads, cs_load_ms, info.host_bytes, sp_cli_median(t_dec, reps),
         sp_cli_median(t_spmv, reps), sp_cli_median(c_eval, reps), sp_cli_median(t_full, reps),
         sp_cli_median(t_wit, reps), sp_cli_median(r_full, reps), sp_cli_median(r_wit, reps),
         host_full, host_wit, (double)host_full / (double)host_wit, 3 * 32 * abc, peak_kib * 1024,
         peak_reset ? "setup" : "start");
  ret = 0;
out:
  if (mcs) h.vt->cs_release(mcs);
  if (srs) h.vt->srs_release(srs);
  sp_cli_host_close(&h);
  sp_cs_release(cs);
  sp_spa_free(spa);
  bw_made_free(&made);
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
