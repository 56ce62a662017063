/* witness.c -- witness-only proving in the CLI:
 *   g16_prove_witness   `sealprov prove --r1cs FILE`: one job that names a constraint
 *                       system, each partition only its witness (.wtns or .spa);
 *   cmd_wtns            `sealprov wtns IN.spa OUT.wtns`: a partition's witness as circom
 *                       writes it (for tests and for hosts that want to try .wtns);
 *   cmd_bench_witness   `sealprov bench witness DIR`: witness-only against full-assignment
 *                       partitions: the SpMV stage apart, the whole proof through the
 *                       module, and the host memory a host must hold per partition. */
#include <config.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "formats/cs.h"
#include "wtns.h"
#include "groth16/cs_eval.h"
#include "g16_util.h"
#include "spa.h"
#include "witness.h"

/* A partition's witness from a .wtns (split at inp_size) or a .spa (its inputs and aux;
 * a, b, c and the densities are dropped). *owned gets what to free. */
static int read_witness(const char *path, uint64_t inp_size, uint64_t aux_size,
                        sealprov_assignment *w, void **owned, bool *is_spa, char *err,
                        size_t errlen)
{
  memset(w, 0, sizeof *w);
  *owned = NULL;
  uint8_t magic[4] = {0};
  FILE *f = fopen(path, "rb");
  if (f) {
    if (fread(magic, 1, 4, f) != 4)
      memset(magic, 0, 4);
    fclose(f);
  }
  *is_spa = memcmp(magic, "wtns", 4) != 0;
  if (*is_spa) {
    sp_spa *spa = NULL;
    int rc = sp_spa_read(path, &spa, err, errlen);
    if (rc != SEALPROV_OK)
      return rc;
    w->inp_assignment = spa->asg.inp_assignment;
    w->inp_size = spa->asg.inp_size;
    w->aux_assignment = spa->asg.aux_assignment;
    w->aux_size = spa->asg.aux_size;
    *owned = spa;
    return SEALPROV_OK;
  }
  sp_wtns *wt = NULL;
  int rc = sp_wtns_load(path, &wt, err, errlen);
  if (rc != SEALPROV_OK)
    return rc;
  if (wt->n != inp_size + aux_size) {
    snprintf(err, errlen,
             "%s: %" PRIu64 " witness values, but the constraint system has %" PRIu64
             " wires (%" PRIu64 " inputs with ONE + %" PRIu64 " aux)",
             path, wt->n, inp_size + aux_size, inp_size, aux_size);
    sp_wtns_free(wt);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  w->inp_assignment = wt->values;
  w->inp_size = inp_size;
  w->aux_assignment = wt->values + 32 * inp_size;
  w->aux_size = aux_size;
  *owned = wt;
  return SEALPROV_OK;
}

static void free_witness(void *owned, bool is_spa)
{
  if (is_spa)
    sp_spa_free(owned);
  else
    sp_wtns_free(owned);
}

int g16_prove_witness(sp_cli_host *h, const char *params, const char *r1cs, char **files,
                      size_t n, bool zero_rs, bool progress, uint8_t *proofs,
                      g16_prove_report *rep)
{
  const sealprov_vtable *vt = h->vt;
  rep->detail[0] = 0;
  rep->devices_used = 0;
  rep->stage = G16_STAGE_PARAMS;
  rep->load_ms = rep->prove_ms = 0;
  for (size_t i = 0; i < n; i++) {
    rep->results[i] = (sealprov_partition_result){.status = -1, .device = -1};
    snprintf(rep->device_names[i], 64, "-");
  }
  if (!SEALPROV_VTABLE_HAS(vt, cs_info)) {
    rep->status = SEALPROV_ERR_UNSUPPORTED;
    snprintf(rep->detail, sizeof rep->detail,
             "the module implements ABI %" PRIu32 ".%" PRIu32 ": witness-only proving (--r1cs) "
             "needs 1.1",
             vt->abi_major, vt->abi_minor);
    return 1;
  }
  sealprov_srs *srs = NULL;
  sealprov_cs *cs = NULL;
  sealprov_assignment *wit = calloc(n ? n : 1, sizeof *wit);
  void **owned = calloc(n ? n : 1, sizeof *owned);
  bool *is_spa = calloc(n ? n : 1, sizeof *is_spa);
  uint8_t *zeros = zero_rs ? calloc(n, 32) : NULL;
  int ret = 1;
  if (!wit || !owned || !is_spa || (zero_rs && !zeros)) {
    rep->status = SEALPROV_ERR_NO_MEMORY;
    snprintf(rep->detail, sizeof rep->detail, "out of memory");
    goto out;
  }
  double t0 = g16_now_ms();
  if (progress)
    sp_cli_note("loading the parameters %s and the constraint system %s", params, r1cs);
  int rc = vt->srs_load(h->p, params, &srs);
  if (rc == SEALPROV_OK) {
    rep->stage = G16_STAGE_SUBMIT; /* the parameters are in: a failure is the system's */
    rc = vt->cs_load(h->p, r1cs, &cs);
  }
  rep->load_ms = g16_now_ms() - t0;
  if (rc != SEALPROV_OK) {
    rep->status = rc;
    snprintf(rep->detail, sizeof rep->detail, "%s", vt->last_error());
    goto out;
  }
  sealprov_cs_info info = {.struct_size = sizeof info};
  rc = vt->cs_info(cs, &info);
  if (rc != SEALPROV_OK) {
    rep->status = rc;
    snprintf(rep->detail, sizeof rep->detail, "%s", vt->last_error());
    goto out;
  }
  rep->stage = G16_STAGE_SUBMIT;
  for (size_t i = 0; i < n; i++) {
    rc = read_witness(files[i], info.inp_size, info.aux_size, &wit[i], &owned[i], &is_spa[i],
                      rep->detail, sizeof rep->detail);
    if (rc != SEALPROV_OK) {
      rep->status = rc;
      goto out;
    }
  }
  sealprov_job job;
  memset(&job, 0, sizeof job);
  job.struct_size = sizeof job;
  job.flags = zero_rs ? SEALPROV_JOB_FIXED_RS : 0;
  job.srs = srs;
  job.cs = cs;
  job.partitions = wit;
  job.num_partitions = (uint32_t)n;
  job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  job.r = zeros;
  job.s = zeros;
  job.proofs_out = proofs;
  job.results = rep->results;
  if (progress)
    sp_cli_note("proving %zu witness-only partition%s", n, n == 1 ? "" : "s");
  t0 = g16_now_ms();
  sealprov_job_id id = 0;
  rc = vt->submit(h->p, &job, &id);
  if (rc == SEALPROV_OK) {
    rep->stage = G16_STAGE_DONE;
    rc = vt->wait(h->p, id, -1);
  }
  rep->prove_ms = g16_now_ms() - t0;
  rep->status = rc;
  if (rc != SEALPROV_OK)
    snprintf(rep->detail, sizeof rep->detail, "%s", vt->last_error());
  g16_dump_provider_text(h);
  /* device names, and how many distinct devices did the work */
  size_t ndev = 0;
  if (vt->devices(h->p, NULL, 0, &ndev) == SEALPROV_OK && ndev > 0) {
    sealprov_device_info *dinfo = calloc(ndev, sizeof *dinfo);
    if (dinfo) {
      for (size_t d = 0; d < ndev; d++)
        dinfo[d].struct_size = sizeof *dinfo;
      if (vt->devices(h->p, dinfo, ndev, &ndev) == SEALPROV_OK) {
        uint64_t used = 0;
        for (size_t i = 0; i < n; i++) {
          int d = rep->results[i].device;
          if (d >= 0 && (size_t)d < ndev) {
            snprintf(rep->device_names[i], 64, "%s", dinfo[d].section);
            if (d < 64)
              used |= UINT64_C(1) << d;
          }
        }
        rep->devices_used = (size_t)__builtin_popcountll(used);
      }
      free(dinfo);
    }
  }
  ret = rc == SEALPROV_OK ? 0 : 1;
out:
  for (size_t i = 0; owned && i < n; i++)
    if (owned[i])
      free_witness(owned[i], is_spa[i]);
  free(owned);
  free(is_spa);
  free(wit);
  free(zeros);
  if (cs)
    vt->cs_release(cs);
  if (srs)
    vt->srs_release(srs);
  return ret;
}

/* ---- sealprov wtns ---------------------------------------------------------------------- */

int cmd_wtns(int argc, char **argv)
{
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: sealprov wtns PARTITION.spa OUT.wtns\n"
           "  Writes the partition's witness (ONE, the public inputs, then aux) as a circom\n"
           "  .wtns file (version 2, BLS12-381), for `sealprov prove --r1cs`.\n");
    return 0;
  }
  if (argc != 3) {
    sp_cli_error("usage: sealprov wtns PARTITION.spa OUT.wtns");
    return 2;
  }
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

/* CPU time of the whole process (every thread), ms: on a shared machine the wall time
 * of a stage includes other processes' time, its CPU time does not. */
static double cpu_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void bench_witness_usage(FILE *f)
{
  fprintf(f,
          "usage: sealprov bench witness [--plugin MODULE] [-c INI] [--reps N] [--threads T] DIR\n"
          "  DIR is a `sealprov setup` directory (circuit.params, circuit.r1cs,\n"
          "  partition-00.spa). Measures, for that partition, witness-only proving against\n"
          "  full-assignment proving: the SpMV stage alone (a, b, c = A z, B z, C z with T\n"
          "  host threads, in-process, median of N), one-partition jobs of each kind through\n"
          "  the module on the INI's devices (median wall time of N, r = s = 0 so the bytes\n"
          "  are compared), and the host memory the host must hold per partition. JSON.\n");
}

int cmd_bench_witness(int argc, char **argv)
{
  static const struct option opts[] = {
      {"plugin", required_argument, NULL, 'P'}, {"config", required_argument, NULL, 'c'},
      {"reps", required_argument, NULL, 'r'},   {"threads", required_argument, NULL, 't'},
      {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
  };
  const char *plugin = NULL, *ini = NULL;
  uint64_t reps = 3, threads = g16_ncpus();
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
    switch (c) {
    case 'P':
      plugin = optarg;
      break;
    case 'c':
      ini = optarg;
      break;
    case 'r':
      if (!g16_parse_u64("--reps", optarg, 1000, &reps) || reps == 0)
        return 2;
      break;
    case 't':
      if (!g16_parse_u64("--threads", optarg, 1024, &threads) || threads == 0)
        return 2;
      break;
    case 'h':
      bench_witness_usage(stdout);
      return 0;
    default:
      bench_witness_usage(stderr);
      return 2;
    }
  }
  if (argc - optind != 1) {
    bench_witness_usage(stderr);
    return 2;
  }
  const char *dir = argv[optind];
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
  double t0 = g16_now_ms();
  if (sp_cs_load(r1cs, &cs, err, sizeof err) != SEALPROV_OK ||
      sp_spa_read(part, &spa, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s", err);
    goto out;
  }
  double cs_load_ms = g16_now_ms() - t0;
  const sealprov_assignment *full = &spa->asg;
  sealprov_assignment wit = {.inp_assignment = full->inp_assignment, .inp_size = full->inp_size,
                             .aux_assignment = full->aux_assignment, .aux_size = full->aux_size};
  /* 1. the SpMV stage alone, checked against the partition file's a, b, c */
  for (unsigned i = 0; i < reps; i++) {
    sp_cs_eval *e = NULL;
    double c0 = cpu_ms();
    if (sp_cs_evaluate(cs, &wit, SEALPROV_SCALAR_CANONICAL_LE, (unsigned)threads, &e, err,
                       sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      goto out;
    }
    c_eval[i] = cpu_ms() - c0;
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
  }
  /* 2. one-partition jobs through the module, alternating kinds */
  if (!sp_cli_host_open(&h, plugin, sp_cli_config_path(ini)))
    goto out;
  const sealprov_vtable *vt = h.vt;
  if (!SEALPROV_VTABLE_HAS(vt, cs_info)) {
    sp_cli_error("the module implements ABI %" PRIu32 ".%" PRIu32 "; witness-only jobs need 1.1",
                 vt->abi_major, vt->abi_minor);
    goto out;
  }
  if (vt->srs_load(h.p, params, &srs) != SEALPROV_OK || vt->cs_load(h.p, r1cs, &mcs) != SEALPROV_OK) {
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
      double j0 = g16_now_ms();
      int rc = vt->prove(h.p, &job);
      double ms = g16_now_ms() - j0;
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
  }
  /* 3. what the host must hold per partition until on_inputs_released */
  uint64_t abc = full->abc_size, nv = full->inp_size + full->aux_size;
  uint64_t bm = 8 * (2 * (full->aux_size / 64 + 1) + (full->inp_size / 64 + 1));
  uint64_t host_full = 3 * 32 * abc + 32 * nv + bm, host_wit = 32 * nv;
  sealprov_cs_info info = {.struct_size = sizeof info};
  vt->cs_info(mcs, &info);
  unsigned log = 0;
  while ((UINT64_C(1) << log) < abc)
    log++;
  printf("{\"dir\": ");
  sp_cli_json_str(stdout, dir);
  printf(", \"log_domain\": %u, \"abc_size\": %" PRIu64 ", \"inp_size\": %" PRIu64
         ", \"aux_size\": %" PRIu64 ", \"nnz\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64
         "], \"reps\": %" PRIu64 ", \"spmv_threads\": %" PRIu64 ", \"cs_load_ms\": %.1f, "
         "\"cs_host_bytes\": %" PRIu64 ", \"witness_decode_ms\": %.2f, \"spmv_ms\": %.2f, \"eval_cpu_ms\": %.2f, "
         "\"full_job_ms\": %.1f, \"witness_job_ms\": %.1f, \"full_run_ms\": %.1f, "
         "\"witness_run_ms\": %.1f, \"host_bytes_full\": %" PRIu64
         ", \"host_bytes_witness\": %" PRIu64 ", \"host_bytes_ratio\": %.2f, "
         "\"module_bytes_per_witness_partition\": %" PRIu64 ", \"proofs_equal\": true}\n",
         log, abc, full->inp_size, full->aux_size, info.nnz_a, info.nnz_b, info.nnz_c, reps,
         threads, cs_load_ms, info.host_bytes, median(t_dec, (unsigned)reps),
         median(t_spmv, (unsigned)reps), median(c_eval, (unsigned)reps),
         median(t_full, (unsigned)reps),
         median(t_wit, (unsigned)reps), median(r_full, (unsigned)reps),
         median(r_wit, (unsigned)reps), host_full, host_wit,
         (double)host_full / (double)host_wit, 3 * 32 * abc);
  ret = 0;
out:
  if (mcs)
    h.vt->cs_release(mcs);
  if (srs)
    h.vt->srs_release(srs);
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
