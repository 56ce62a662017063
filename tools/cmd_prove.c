/* cmd_prove.c -- `sealprov prove`: proves partition files through the module, exactly
 * as a host would (dlopen, open(ini), srs_load, one job, wait), and writes the proofs
 * in partition order. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cli.h"
#include "g16_util.h"
#include "spa.h"
#include "witness.h"
#include "formats/cs.h"
#include "wtns.h"
#include "zkey.h"

static void prove_usage(FILE *f)
{
  fprintf(f,
          "usage: sealprov prove [--plugin MODULE] [-c INI] --params FILE --out PROOFS\n"
          "                      [--device N[,M...]] [--zero-rs] [--json] PARTITION.spa...\n"
          "       sealprov prove ... --r1cs CIRCUIT.r1cs WITNESS.wtns|PARTITION.spa...\n"
          "  Proves every partition file in one job on the devices of the INI file\n"
          "  (default $SEALPROV_CONFIG, else " SP_DEFAULT_CONFIG ") and writes 192 bytes per\n"
          "  partition, in the order given, to PROOFS. --zero-rs uses r = s = 0: the\n"
          "  proofs are deterministic but NOT zero-knowledge (tests only).\n"
          "  --device N[,M...]: run the job only on these devices (indexes as `sealprov\n"
          "  devices` lists them; a retry after a device fault stays among them).\n"
          "  --r1cs: witness-only proving: the module loads the circom constraint system\n"
          "  and computes a, b, c itself; each file gives only a witness (a circom .wtns,\n"
          "  or the inputs and aux of a .spa). Same proofs as the full assignments.\n"
          "       sealprov prove --zkey CIRCUIT.zkey --wtns WITNESS.wtns [--out-proof FILE]\n"
          "                      [--out-public FILE] [--zero-rs] [--json]\n"
          "  snarkjs interop (BLS12-381): proves on this host's CPUs with a snarkjs Groth16\n"
          "  key and a circom witness, checks the proof with the key's verifying key and\n"
          "  writes snarkjs's proof.json and public.json (default names in the current\n"
          "  directory); `snarkjs groth16 verify` accepts them. No module or INI needed.\n");
}

/* A partition's status as the table shows it: the module's status, "not run" when the
 * job never reached it (parameters that did not load, a refused submit), and "proved"
 * for a partition whose proof was made but not written because the job failed. */
static const char *part_status(const sealprov_partition_result *r, bool written)
{
  if (r->status < 0)
    return "not run";
  if (r->status == SEALPROV_OK && !written)
    return "proved";
  return g16_status_name(r->status);
}

/* Prints the per-partition table (or JSON) of a job; stage says where it stopped when
 * it did not succeed ("parameters", "submit", "job", "write"). */
static void report(bool json, const char *params, const char *out, char **files, size_t n,
                   const g16_prove_report *rep, bool written)
{
  if (json) {
    printf("{\"params\": ");
    sp_cli_json_str(stdout, params);
    printf(", \"proofs\": ");
    sp_cli_json_str(stdout, out);
    printf(", \"status\": \"%s\", \"written\": %s, \"load_ms\": %.1f, \"prove_ms\": %.1f, "
           "\"devices_used\": %zu",
           rep->status == SEALPROV_OK && !written ? "I/O" : g16_status_name(rep->status),
           written ? "true" : "false", rep->load_ms, rep->prove_ms, rep->devices_used);
    if (rep->status != SEALPROV_OK) {
      printf(", \"error\": ");
      sp_cli_json_str(stdout, rep->detail);
    }
    printf(", \"partitions\": [");
    for (size_t i = 0; i < n; i++) {
      const sealprov_partition_result *r = &rep->results[i];
      printf("%s{\"index\": %zu, \"file\": ", i ? ", " : "", i);
      sp_cli_json_str(stdout, files[i]);
      printf(", \"status\": \"%s\", \"device\": %d, \"device_name\": ", part_status(r, written),
             r->device);
      sp_cli_json_str(stdout, rep->device_names[i]);
      printf(", \"attempts\": %u, \"queued_ms\": %.1f, \"run_ms\": %.1f}", r->attempts,
             r->queued_ms, r->run_ms);
    }
    printf("]}\n");
    return;
  }
  if (rep->stage == G16_STAGE_PARAMS) {
    /* nothing ran: no table of partitions at all */
    printf("no proofs: the parameters %s did not load (%s)\n", params,
           g16_status_name(rep->status));
    return;
  }
  printf("%-5s %-16s %-12s %8s %10s %10s  %s\n", "part", "status", "device", "attempts",
         "queued_ms", "run_ms", "file");
  for (size_t i = 0; i < n; i++) {
    const sealprov_partition_result *r = &rep->results[i];
    printf("%-5zu %-16s %-12s %8u %10.1f %10.1f  %s\n", i, part_status(r, written),
           rep->device_names[i], r->attempts, r->queued_ms, r->run_ms, files[i]);
  }
  if (written)
    printf("%zu proofs on %zu device%s in %.0f ms (parameters loaded in %.0f ms): %s\n", n,
           rep->devices_used, rep->devices_used == 1 ? "" : "s", rep->prove_ms, rep->load_ms, out);
  else
    printf("no proof file written: %s\n",
           rep->status == SEALPROV_OK ? "it could not be written" : g16_status_name(rep->status));
}

/* The module names partitions by index; the user knows them by file. Returns
 * "; partition 0 is FILE, ..." for the partitions that failed (by their results, or,
 * when the job was refused before any ran, the "partition N" of the module's
 * message), or "" when there is none to name. */
static const char *failed_files(const g16_prove_report *rep, char **files, size_t n, char *buf,
                                size_t len)
{
  size_t used = 0, named = 0;
  buf[0] = 0;
  for (size_t i = 0; i < n && named < 8; i++) {
    int st = rep->results[i].status;
    if (st <= 0 || st == SEALPROV_ERR_CANCELLED || st == SEALPROV_ERR_SHUTDOWN)
      continue;
    int w = snprintf(buf + used, len - used, "%s partition %zu is %s", named ? "," : ";", i,
                     files[i]);
    if (w < 0 || (size_t)w >= len - used)
      break;
    used += (size_t)w;
    named++;
  }
  if (named == 0) {
    const char *at = strstr(rep->detail, "partition ");
    unsigned long idx;
    char *end;
    if (at != NULL && (idx = strtoul(at + 10, &end, 10), end != at + 10) && idx < n)
      snprintf(buf, len, "; partition %lu is %s", idx, files[idx]);
  }
  return buf;
}

/* ---- `prove --zkey`: snarkjs's proving key and witness, snarkjs's JSON out ---------- */

/* A field element as snarkjs's JSON number: a decimal string. */
static void json_fp(FILE *f, const fp_t *v)
{
  uint64_t l[6];
  char dec[6 * 20 + 1];
  fp_to_canonical(l, v);
  sp_dec_from_limbs(dec, l, 6);
  fprintf(f, "\"%s\"", dec);
}

/* snarkjs's layout (its JSON.stringify with an indent of 1, no final newline): an
 * affine point with z = "1" (infinity as snarkjs writes it: [0, 1, 0]). */
static void json_g1(FILE *f, const char *name, const g1_affine_t *p, const char *ind)
{
  fprintf(f, "%s\"%s\": [\n", ind, name);
  if (g1_affine_is_inf(p)) {
    fprintf(f, "%s \"0\",\n%s \"1\",\n%s \"0\"\n%s]", ind, ind, ind, ind);
    return;
  }
  fprintf(f, "%s ", ind);
  json_fp(f, &p->x);
  fprintf(f, ",\n%s ", ind);
  json_fp(f, &p->y);
  fprintf(f, ",\n%s \"1\"\n%s]", ind, ind);
}

static void json_g2(FILE *f, const char *name, const g2_affine_t *p, const char *ind)
{
  fprintf(f, "%s\"%s\": [\n", ind, name);
  const fp2_t one = FP2_ONE, zero = FP2_ZERO;
  bool inf = g2_affine_is_inf(p);
  const fp2_t *c[3] = {inf ? &zero : &p->x, inf ? &one : &p->y, inf ? &zero : &one};
  for (int i = 0; i < 3; i++) {
    fprintf(f, "%s [\n%s  ", ind, ind);
    json_fp(f, &c[i]->c0);
    fprintf(f, ",\n%s  ", ind);
    json_fp(f, &c[i]->c1);
    fprintf(f, "\n%s ]%s\n", ind, i < 2 ? "," : "");
  }
  fprintf(f, "%s]", ind);
}

static bool write_proof_json(const char *path, const sp_zkey_proof *pr)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    sp_cli_error("%s: cannot create: %s", path, strerror(errno));
    return false;
  }
  fputs("{\n", f);
  json_g1(f, "pi_a", &pr->a, " ");
  fputs(",\n", f);
  json_g2(f, "pi_b", &pr->b, " ");
  fputs(",\n", f);
  json_g1(f, "pi_c", &pr->c, " ");
  fputs(",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}", f);
  if (fclose(f) != 0) {
    sp_cli_error("%s: write failed: %s", path, strerror(errno));
    return false;
  }
  return true;
}

static bool write_public_json(const char *path, const uint8_t *values, size_t n)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    sp_cli_error("%s: cannot create: %s", path, strerror(errno));
    return false;
  }
  fputs(n ? "[\n" : "[]", f);
  for (size_t i = 0; i < n; i++) {
    uint64_t l[4];
    char dec[4 * 20 + 1];
    for (int k = 0; k < 4; k++) {
      l[k] = 0;
      for (int b = 7; b >= 0; b--)
        l[k] = l[k] << 8 | values[32 * i + 8 * (size_t)k + (size_t)b];
    }
    sp_dec_from_limbs(dec, l, 4);
    fprintf(f, " \"%s\"%s\n", dec, i + 1 < n ? "," : "");
  }
  if (n)
    fputs("]", f);
  if (fclose(f) != 0) {
    sp_cli_error("%s: write failed: %s", path, strerror(errno));
    return false;
  }
  return true;
}

/* r or s: uniform from 64 random bytes, or zero. */
static bool blinding(fr_t *v, bool zero)
{
  if (zero) {
    *v = FR_ZERO;
    return true;
  }
  uint8_t rnd[64];
  size_t got = 0;
  while (got < sizeof rnd) {
    ssize_t k = getrandom(rnd + got, sizeof rnd - got, 0);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      sp_cli_error("getrandom failed: %s", strerror(errno));
      return false;
    }
    got += (size_t)k;
  }
  fr_from_bytes_wide(v, rnd);
  return true;
}

/* Proves with a snarkjs .zkey and a circom .wtns on this host's CPUs (the module's CPU
 * code, no device configuration), checks the proof with the key's own verifying key,
 * and writes snarkjs's proof.json and public.json. */
static int prove_zkey(const char *zkey_path, const char *wtns_path, const char *out_proof,
                      const char *out_public, bool zero_rs, bool json)
{
  if (!g16_check_output_file("--out-proof", out_proof) ||
      !g16_check_output_file("--out-public", out_public))
    return 2;
  char err[1024];
  sp_zkey *zk = NULL;
  sp_wtns *w = NULL;
  int ret = 2;
  double t0 = g16_now_ms();
  sp_cli_note("loading %s", zkey_path);
  int rc = sp_zkey_load(zkey_path, true, g16_ncpus(), &zk, err, sizeof err);
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s: %s", g16_status_name(rc), err);
    goto out;
  }
  double t_load = g16_now_ms() - t0;
  rc = sp_wtns_load(wtns_path, &w, err, sizeof err);
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s: %s", g16_status_name(rc), err);
    goto out;
  }
  if (zero_rs)
    sp_cli_warn("--zero-rs: the proof is deterministic and NOT zero-knowledge");
  fr_t r, s;
  if (!blinding(&r, zero_rs) || !blinding(&s, zero_rs)) {
    ret = 1;
    goto out;
  }
  sp_zkey_proof pr;
  double t1 = g16_now_ms();
  rc = sp_zkey_prove(zk, w->values, w->n, wtns_path, &r, &s, g16_ncpus(), &pr, err, sizeof err);
  double t_prove = g16_now_ms() - t1;
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s: %s", g16_status_name(rc), err);
    ret = rc == SEALPROV_ERR_NO_MEMORY ? 1 : 2;
    goto out;
  }
  /* the key holds no C matrix, so a witness that does not satisfy the circuit shows only
   * here: the proof must verify with the key's own verifying key */
  scalar_t *pub = malloc((size_t)zk->n_public * sizeof(scalar_t) + 1);
  bool valid = false;
  if (!pub) {
    sp_cli_error("out of memory");
    ret = 1;
    goto out;
  }
  for (size_t i = 0; i < zk->n_public; i++)
    for (int k = 0; k < 4; k++) {
      pub[i].l[k] = 0;
      for (int b = 7; b >= 0; b--)
        pub[i].l[k] = pub[i].l[k] << 8 | w->values[32 * (i + 1) + 8 * (size_t)k + (size_t)b];
    }
  err[0] = 0;
  rc = sp_zkey_verify(&zk->vk, pub, zk->n_public, &pr, &valid, err, sizeof err);
  free(pub);
  if (rc != SEALPROV_OK || !valid) {
    sp_cli_error("the proof does not verify with the verifying key of %s%s%s: the witness %s "
                 "does not satisfy that circuit (a witness of another circuit, or of other "
                 "inputs?); nothing written",
                 zkey_path, err[0] ? ": " : "", err, wtns_path);
    ret = 1;
    goto out;
  }
  if (!write_proof_json(out_proof, &pr) ||
      !write_public_json(out_public, w->values + 32, zk->n_public)) {
    ret = 1;
    goto out;
  }
  if (json) {
    printf("{\"zkey\": ");
    sp_cli_json_str(stdout, zkey_path);
    printf(", \"wtns\": ");
    sp_cli_json_str(stdout, wtns_path);
    printf(", \"proof\": ");
    sp_cli_json_str(stdout, out_proof);
    printf(", \"public\": ");
    sp_cli_json_str(stdout, out_public);
    printf(", \"n_vars\": %" PRIu32 ", \"n_public\": %" PRIu32 ", \"domain_size\": %" PRIu32
           ", \"load_ms\": %.1f, \"prove_ms\": %.1f, \"verified\": true}\n",
           zk->n_vars, zk->n_public, zk->domain_size, t_load, t_prove);
  } else {
    printf("proved %s with %s (%" PRIu32 " signals, %" PRIu32 " public, domain %" PRIu32
           ") in %.0f ms (key loaded in %.0f ms); it verifies: %s, %s\n",
           wtns_path, zkey_path, zk->n_vars, zk->n_public, zk->domain_size, t_prove, t_load,
           out_proof, out_public);
  }
  ret = 0;
out:
  sp_wtns_free(w);
  sp_zkey_free(zk);
  return ret;
}

/* --device N[,M...] -> a device_mask (bit i = device i of devices()). */
static bool parse_devices(const char *arg, uint64_t *mask)
{
  *mask = 0;
  const char *p = arg;
  for (;;) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(p, &end, 10);
    if (end == p || *p < '0' || *p > '9' || errno != 0 || v > 63 ||
        (*end != ',' && *end != '\0')) {
      sp_cli_error("--device '%s': not a list of device indexes (0 to 63, comma-separated; "
                   "`sealprov devices` lists them)",
                   arg);
      return false;
    }
    *mask |= UINT64_C(1) << v;
    if (*end == '\0')
      return true;
    p = end + 1;
  }
}

/* The job itself is built by the proving helpers (g16_prove.c, witness.c), which know
 * nothing of --device: a copy of the module's vtable whose submit adds the mask stands
 * in for it, as a host could interpose. */
static sealprov_vtable devices_vt;
static int (*devices_submit)(sealprov_provider *, const sealprov_job *, sealprov_job_id *);
static uint64_t devices_mask;

static int submit_on_devices(sealprov_provider *p, const sealprov_job *job, sealprov_job_id *id)
{
  if (job == NULL || job->struct_size < sizeof *job)
    return devices_submit(p, job, id);
  sealprov_job j = *job;
  j.device_mask = devices_mask;
  return devices_submit(p, &j, id);
}

static bool restrict_devices(sp_cli_host *h, uint64_t mask)
{
  const sealprov_vtable *vt = h->vt;
  if (vt->abi_minor < 2) {
    sp_cli_error("--device: the module %s implements ABI %" PRIu32 ".%" PRIu32
                 ", which cannot restrict a job to devices (ABI 1.2 can)",
                 h->path, vt->abi_major, vt->abi_minor);
    return false;
  }
  size_t have = vt->struct_size < sizeof devices_vt ? vt->struct_size : sizeof devices_vt;
  memset(&devices_vt, 0, sizeof devices_vt);
  memcpy(&devices_vt, vt, have);
  devices_submit = vt->submit;
  devices_mask = mask;
  devices_vt.submit = submit_on_devices;
  h->vt = &devices_vt;
  return true;
}

int cmd_prove(int argc, char **argv)
{
  static const struct option opts[] = {
      {"plugin", required_argument, NULL, 'P'}, {"config", required_argument, NULL, 'c'},
      {"params", required_argument, NULL, 'p'}, {"out", required_argument, NULL, 'o'},
      {"zero-rs", no_argument, NULL, 'z'},      {"json", no_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},         {"r1cs", required_argument, NULL, 'R'},
      {"zkey", required_argument, NULL, 'K'},   {"wtns", required_argument, NULL, 'W'},
      {"out-proof", required_argument, NULL, 'F'}, {"out-public", required_argument, NULL, 'U'},
      {"device", required_argument, NULL, 'D'},
      {NULL, 0, NULL, 0},
  };
  const char *plugin = NULL, *ini = NULL, *params = NULL, *out = NULL, *r1cs = NULL;
  const char *zkey = NULL, *wtns = NULL, *out_proof = NULL, *out_public = NULL;
  bool zero_rs = false, json = false;
  uint64_t device_mask = 0;
  const char *device_arg = NULL;
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
    case 'p':
      params = optarg;
      break;
    case 'o':
      out = optarg;
      break;
    case 'z':
      zero_rs = true;
      break;
    case 'R':
      r1cs = optarg;
      break;
    case 'K':
      zkey = optarg;
      break;
    case 'W':
      wtns = optarg;
      break;
    case 'F':
      out_proof = optarg;
      break;
    case 'U':
      out_public = optarg;
      break;
    case 'j':
      json = true;
      break;
    case 'D':
      if (!parse_devices(optarg, &device_mask))
        return 2;
      device_arg = optarg;
      break;
    case 'h':
      prove_usage(stdout);
      return 0;
    default:
      prove_usage(stderr);
      return 2;
    }
  }
  size_t n = (size_t)(argc - optind);
  if (zkey || wtns || out_proof || out_public) { /* snarkjs interop: its own mode */
    const char *clash = params ? "--params" : out ? "--out" : r1cs ? "--r1cs"
                        : device_arg ? "--device" : n ? argv[optind] : NULL;
    if (!zkey || !wtns || clash) {
      if (clash)
        sp_cli_error("%s cannot be combined with --zkey/--wtns (snarkjs proving)", clash);
      else
        sp_cli_error("missing %s", !zkey ? "--zkey" : "--wtns");
      prove_usage(stderr);
      return 2;
    }
    return prove_zkey(zkey, wtns, out_proof ? out_proof : "proof.json",
                      out_public ? out_public : "public.json", zero_rs, json);
  }
  if (!params || !out || n == 0) {
    sp_cli_error("missing %s", !params ? "--params" : !out ? "--out" : "partition files");
    prove_usage(stderr);
    return 2;
  }
  /* Outputs first: a proof file that cannot be written must not cost a proving run. */
  if (!g16_check_output_file("--out", out))
    return 2;
  const char *env_out[] = {"SEALPROV_TIMELINE", "SEALPROV_STATS"};
  for (size_t i = 0; i < 2; i++) {
    const char *v = getenv(env_out[i]);
    if (v != NULL && *v && !g16_check_output_file(env_out[i], v))
      return 2;
  }
  char **files = argv + optind;
  sp_spa **spa = calloc(n, sizeof *spa);
  sealprov_assignment *asg = calloc(n, sizeof *asg);
  uint8_t *proofs = calloc(n, 192);
  g16_prove_report rep = {.results = calloc(n, sizeof(sealprov_partition_result)),
                          .device_names = calloc(n, 64)};
  int ret = 2;
  sp_cli_host h = {0};
  if (!spa || !asg || !proofs || !rep.results || !rep.device_names) {
    sp_cli_error("out of memory");
    goto out;
  }
  if (r1cs == NULL)
    sp_cli_note("reading %zu partition file%s", n, n == 1 ? "" : "s");
  for (size_t i = 0; r1cs == NULL && i < n; i++) {
    char err[1024];
    if (sp_spa_read(files[i], &spa[i], err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      goto out;
    }
    asg[i] = spa[i]->asg;
  }
  if (zero_rs)
    sp_cli_warn("--zero-rs: proofs are deterministic and NOT zero-knowledge");
  if (!sp_cli_host_open(&h, plugin, sp_cli_config_path(ini))) {
    ret = 1;
    goto out;
  }
  if (device_arg != NULL && !restrict_devices(&h, device_mask)) {
    ret = 1;
    goto out;
  }
  if (r1cs != NULL) /* witness-only: the files are read once the system's sizes are known */
    ret = g16_prove_witness(&h, params, r1cs, files, n, zero_rs, sp_cli_progress, proofs, &rep);
  else
    ret = g16_prove_partitions(&h, params, asg, n, zero_rs, sp_cli_progress, proofs, &rep);
  bool written = false;
  char failed[1024];
  if (ret == 0) {
    sp_cli_note("writing %s", out);
    written = g16_write_file(out, proofs, 192 * n);
    if (!written)
      ret = 1;
  }
  report(json, params, out, files, n, &rep, written);
  if (rep.status != SEALPROV_OK)
    sp_cli_error("%s: %s%s", g16_status_name(rep.status), rep.detail,
                 failed_files(&rep, files, n, failed, sizeof failed));
out:
  sp_cli_host_close(&h);
  for (size_t i = 0; spa && i < n; i++)
    sp_spa_free(spa[i]);
  free(spa);
  free(asg);
  free(proofs);
  free(rep.results);
  free(rep.device_names);
  return ret;
}
