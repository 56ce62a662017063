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

/* The command's options, checked. */
typedef struct bw_opts {
  unsigned reps, threads, size; /* size: --size K, 0 for a setup directory */
  const char *r1cs_root, *dir, *ini;
} bw_opts;

/* The timings of each repeat, the inputs and the handles, freed by bw_run_free. */
typedef struct bw_run {
  bw_made made;
  char *r1cs, *params, *part;
  double *t_spmv, *t_dec, *t_full, *t_wit, *r_full, *r_wit, *c_eval;
  sp_cs *cs;
  sp_spa *spa;
  const sealprov_assignment *full;
  sealprov_assignment wit; /* full's witness only: a witness-only job */
  double cs_load_ms;
  bool peak_reset;
  sp_cli_host h;
  sealprov_srs *srs;
  sealprov_cs *mcs;
} bw_run;

/* -1 when the command is to run; else its exit status (0 after --help, 2 on a usage
 * error, 1 when --r1cs-dir is not a directory). */
static int bw_parse(int argc, char **argv, bw_opts *o) {
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
  *o = (bw_opts){.reps = 3, .threads = g16_ncpus()};
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case O_REPS:
        if (!sp_cli_uint("--reps", optarg, 1, 1000, &o->reps)) return 2;
        break;
      case O_THREADS:
        if (!sp_cli_uint("--threads", optarg, 1, 1024, &o->threads)) return 2;
        break;
      case O_SIZE:
        if (!sp_cli_uint("--size", optarg, 10, 27, &o->size)) return 2;
        break;
      case O_R1CS_DIR: o->r1cs_root = optarg; break;
    }
  }
  if (c < 0) return a.status;
  if (o->size) {
    if (!sp_cli_operands(&a, argc, argv, 0, 0, "no DIR with --size")) return a.status;
  } else {
    if (!sp_cli_operands(&a, argc, argv, 1, 1, "DIR (a `sealprov setup` directory) or --size K"))
      return a.status;
    if (o->r1cs_root) return sp_cli_usage_error(&a, "--r1cs-dir goes with --size");
    o->dir = argv[a.first];
  }
  o->ini = a.config;
  if (o->r1cs_root) {
    struct stat st;
    if (stat(o->r1cs_root, &st) != 0) {
      sp_cli_error("--r1cs-dir %s: %s", o->r1cs_root, strerror(errno));
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      sp_cli_error("--r1cs-dir %s: not a directory", o->r1cs_root);
      return 1;
    }
  }
  return -1;
}

static bool bw_alloc(const bw_opts *o, bw_run *r, size_t dl) {
  unsigned n = o->reps;
  r->r1cs = malloc(dl), r->params = malloc(dl), r->part = malloc(dl);
  r->t_spmv = calloc(n, sizeof(double)), r->t_dec = calloc(n, sizeof(double));
  r->t_full = calloc(n, sizeof(double)), r->t_wit = calloc(n, sizeof(double));
  r->r_full = calloc(n, sizeof(double)), r->r_wit = calloc(n, sizeof(double));
  r->c_eval = calloc(n, sizeof(double));
  if (r->r1cs && r->params && r->part && r->t_spmv && r->t_dec && r->t_full && r->t_wit &&
      r->r_full && r->r_wit && r->c_eval)
    return true;
  sp_cli_error("out of memory");
  return false;
}

/* The constraint system and the full assignment: made (--size) or read from DIR. */
static bool bw_inputs(const bw_opts *o, bw_run *r) {
  size_t dl = (o->dir ? strlen(o->dir) : sizeof r->made.r1cs) + 32;
  if (!bw_alloc(o, r, dl)) return false;
  char err[1024];
  double t0;
  if (o->size) {
    if (!bw_make(o->size, o->r1cs_root, o->threads, &r->made)) return false;
    snprintf(r->r1cs, dl, "%s", r->made.r1cs);
    snprintf(r->params, dl, "%s", r->made.params);
    snprintf(r->part, dl, "the generator's witness");
    t0 = sp_cli_now_ms();
    if (sp_cs_load(r->r1cs, &r->cs, err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      return false;
    }
    r->full = &r->made.w->asg;
    r->peak_reset = sp_bench_reset_peak_rss();
  } else {
    snprintf(r->r1cs, dl, "%s/circuit.r1cs", o->dir);
    snprintf(r->params, dl, "%s/circuit.params", o->dir);
    snprintf(r->part, dl, "%s/partition-00.spa", o->dir);
    t0 = sp_cli_now_ms();
    if (sp_cs_load(r->r1cs, &r->cs, err, sizeof err) != SEALPROV_OK ||
        sp_spa_read(r->part, &r->spa, err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      return false;
    }
    r->full = &r->spa->asg;
  }
  r->cs_load_ms = sp_cli_now_ms() - t0;
  r->wit = (sealprov_assignment){.inp_assignment = r->full->inp_assignment,
                                 .inp_size = r->full->inp_size,
                                 .aux_assignment = r->full->aux_assignment,
                                 .aux_size = r->full->aux_size};
  return true;
}

/* 1. the SpMV stage alone, checked against the partition's a, b, c */
static bool bw_spmv_runs(const bw_opts *o, bw_run *r, sp_cli_meter *meter) {
  char err[1024];
  const sealprov_assignment *full = r->full;
  for (unsigned i = 0; i < o->reps; i++) {
    sp_cs_eval *e = NULL;
    double c0 = sp_cli_cpu_ms();
    if (sp_cs_evaluate(r->cs, &r->wit, SEALPROV_SCALAR_CANONICAL_LE, o->threads, &e, err,
                       sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      return false;
    }
    r->c_eval[i] = sp_cli_cpu_ms() - c0;
    r->t_spmv[i] = e->spmv_ms;
    r->t_dec[i] = e->decode_ms;
    bool same = e->asg.abc_size == full->abc_size &&
                !memcmp(e->asg.a, full->a, 32 * full->abc_size) &&
                !memcmp(e->asg.b, full->b, 32 * full->abc_size) &&
                !memcmp(e->asg.c, full->c, 32 * full->abc_size);
    sp_cs_eval_free(e);
    if (!same) {
      sp_cli_error("%s: A z, B z, C z differ from the a, b, c of %s", r->r1cs, r->part);
      return false;
    }
    sp_cli_meter_step(meter, 1.0 + i, 2.0 * o->reps, "runs");
  }
  return true;
}

/* One one-partition job through the module: the full assignment, or the witness only
 * (kind 1) with the module's constraint system; r = s = 0. */
static bool bw_job(bw_run *r, int kind, unsigned i, uint8_t proof[192]) {
  const sealprov_vtable *vt = r->h.vt;
  uint8_t zeros[64] = {0};
  sealprov_partition_result res;
  sealprov_job job;
  memset(&job, 0, sizeof job);
  job.struct_size = sizeof job;
  job.flags = SEALPROV_JOB_FIXED_RS;
  job.srs = r->srs;
  job.cs = kind ? r->mcs : NULL;
  job.partitions = kind ? &r->wit : r->full;
  job.num_partitions = 1;
  job.r = zeros;
  job.s = zeros + 32;
  job.proofs_out = proof;
  job.results = &res;
  double j0 = sp_cli_now_ms();
  int rc = vt->prove(r->h.p, &job);
  double ms = sp_cli_now_ms() - j0;
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s job: %s: %s", kind ? "witness-only" : "full-assignment", g16_status_name(rc),
                 vt->last_error());
    return false;
  }
  (kind ? r->t_wit : r->t_full)[i] = ms;
  (kind ? r->r_wit : r->r_full)[i] = res.run_ms;
  return true;
}

/* 2. one-partition jobs through the module, alternating kinds; the proofs equal */
static bool bw_module_runs(const bw_opts *o, bw_run *r, sp_cli_meter *meter) {
  if (!sp_cli_host_open(&r->h, o->ini)) return false;
  const sealprov_vtable *vt = r->h.vt;
  if (!SEALPROV_VTABLE_HAS(vt, cs_info)) {
    sp_cli_error("the module implements ABI %" PRIu32 ".%" PRIu32 "; witness-only jobs need 1.1",
                 vt->abi_major, vt->abi_minor);
    return false;
  }
  if (vt->srs_load(r->h.p, r->params, &r->srs) != SEALPROV_OK ||
      vt->cs_load(r->h.p, r->r1cs, &r->mcs) != SEALPROV_OK) {
    sp_cli_error("%s", vt->last_error());
    return false;
  }
  uint8_t proof_full[192], proof_wit[192];
  for (unsigned i = 0; i < o->reps; i++) {
    if (!bw_job(r, 0, i, proof_full) || !bw_job(r, 1, i, proof_wit)) return false;
    if (memcmp(proof_full, proof_wit, 192) != 0) {
      sp_cli_error("the witness-only proof differs from the full-assignment proof (r = s = 0)");
      return false;
    }
    sp_cli_meter_step(meter, (double)o->reps + 1.0 + i, 2.0 * o->reps, "runs");
  }
  return true;
}

/* 3. the JSON line, with what the host must hold per partition until
 * on_inputs_released */
static void bw_report(const bw_opts *o, bw_run *r) {
  const sealprov_assignment *full = r->full;
  unsigned reps = o->reps;
  uint64_t abc = full->abc_size, nv = full->inp_size + full->aux_size;
  uint64_t bm = 8 * (2 * (full->aux_size / 64 + 1) + (full->inp_size / 64 + 1));
  uint64_t host_full = 3 * 32 * abc + 32 * nv + bm, host_wit = 32 * nv;
  sealprov_cs_info info = {.struct_size = sizeof info};
  r->h.vt->cs_info(r->mcs, &info);
  unsigned log = 0;
  while ((UINT64_C(1) << log) < abc) log++;
  unsigned long long peak_kib;
  sp_bench_proc_kib(SP_PROC_STATUS, "VmHWM", &peak_kib);
  printf("{\"dir\": ");
  if (o->dir)
    sp_cli_json_str(stdout, o->dir);
  else
    printf("null");
  const bw_made *m = &r->made;
  if (o->size)
    printf(
        ", \"made\": {\"size\": %u, \"fixed_base\": \"%s\", \"circuit_ms\": %.1f, "
        "\"witness_ms\": %.1f, \"r1cs_ms\": %.1f, \"params_ms\": %.1f, \"r1cs_bytes\": %" PRIu64
        ", \"params_bytes\": %" PRIu64 ", \"setup_peak_rss_bytes\": %llu}",
        o->size, m->gpu ? "gpu0" : "cpu", m->circuit_ms, m->witness_ms, m->r1cs_ms, m->params_ms,
        m->r1cs_bytes, m->params_bytes, m->peak_kib * 1024);
  printf(
      ", \"log_domain\": %u, \"abc_size\": %" PRIu64 ", \"inp_size\": %" PRIu64
      ", \"aux_size\": %" PRIu64 ", \"nnz\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64
      "], \"reps\": %u, \"spmv_threads\": %u, \"cs_load_ms\": %.1f, "
      "\"cs_host_bytes\": %" PRIu64
      ", \"witness_decode_ms\": %.2f, \"spmv_ms\": %.2f, \"eval_cpu_ms\": %.2f, "
      "\"full_job_ms\": %.1f, \"witness_job_ms\": %.1f, \"full_run_ms\": %.1f, "
      "\"witness_run_ms\": %.1f, \"host_bytes_full\": %" PRIu64 ", \"host_bytes_witness\": %" PRIu64
      ", \"host_bytes_ratio\": %.2f, "
      "\"module_bytes_per_witness_partition\": %" PRIu64
      ", \"peak_rss_bytes\": %llu, \"peak_rss_since\": \"%s\", \"proofs_equal\": true}\n",
      log, abc, full->inp_size, full->aux_size, info.nnz_a, info.nnz_b, info.nnz_c, reps,
      o->threads, r->cs_load_ms, info.host_bytes, sp_cli_median(r->t_dec, reps),
      sp_cli_median(r->t_spmv, reps), sp_cli_median(r->c_eval, reps),
      sp_cli_median(r->t_full, reps), sp_cli_median(r->t_wit, reps), sp_cli_median(r->r_full, reps),
      sp_cli_median(r->r_wit, reps), host_full, host_wit, (double)host_full / (double)host_wit,
      3 * 32 * abc, peak_kib * 1024, r->peak_reset ? "setup" : "start");
}

static void bw_run_free(bw_run *r) {
  if (r->mcs) r->h.vt->cs_release(r->mcs);
  if (r->srs) r->h.vt->srs_release(r->srs);
  sp_cli_host_close(&r->h);
  sp_cs_release(r->cs);
  sp_spa_free(r->spa);
  bw_made_free(&r->made);
  free(r->r1cs);
  free(r->params);
  free(r->part);
  free(r->t_spmv);
  free(r->t_dec);
  free(r->t_full);
  free(r->t_wit);
  free(r->r_full);
  free(r->r_wit);
  free(r->c_eval);
}

int cmd_bench_witness(int argc, char **argv) {
  bw_opts o;
  int st = bw_parse(argc, argv, &o);
  if (st >= 0) return st;
  bw_run r = {0};
  sp_cli_meter meter; /* --progress: SpMV runs, then job pairs */
  int ret = 1;
  if (bw_inputs(&o, &r)) {
    sp_cli_meter_start(&meter, "bench witness");
    if (bw_spmv_runs(&o, &r, &meter) && bw_module_runs(&o, &r, &meter)) {
      bw_report(&o, &r);
      ret = 0;
    }
  }
  bw_run_free(&r);
  return ret;
}
