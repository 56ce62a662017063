/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_prove.c -- `sealprov prove`: proves partition files through the module, exactly
 * as a host would (dlopen, open(ini), srs_load, one job, wait), and writes the proofs
 * in partition order. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* A developer mode, linked into the program with the kit (docs/design.md, "The CLI"):
 * a weak reference, so the host library links without it. */
#pragma weak sp_cli_prove_zkey
#include "g16_util.h"
#include "spa.h"
#include "witness.h"

static void prove_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov prove [--plugin MODULE] [-c INI] --params FILE --out PROOFS\n"
          "                      [--device N[,M...]] [--zero-rs] [--json] PARTITION.spa...\n"
          "       sealprov prove ... --r1cs CIRCUIT.r1cs WITNESS.wtns|PARTITION.spa...\n"
          "  Proves every partition file in one job on the devices of the INI file\n"
          "  (default $SEALPROV_CONFIG, else in a build tree the sample conf/sealprov.ini of\n"
          "  its sources, else " SP_DEFAULT_CONFIG
          ") and writes 192 bytes\n"
          "  per partition, in the order given, to PROOFS. --zero-rs uses r = s = 0: the\n"
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
static const char *part_status(const sealprov_partition_result *r, bool written) {
  if (r->status < 0) return "not run";
  if (r->status == SEALPROV_OK && !written) return "proved";
  return g16_status_name(r->status);
}

/* Prints the per-partition table (or JSON) of a job; stage says where it stopped when
 * it did not succeed ("parameters", "submit", "job", "write"). */
static void report(bool json, const char *params, const char *out, char **files, size_t n,
                   const g16_prove_report *rep, bool written) {
  if (json) {
    printf("{\"params\": ");
    sp_cli_json_str(stdout, params);
    printf(", \"proofs\": ");
    sp_cli_json_str(stdout, out);
    printf(
        ", \"status\": \"%s\", \"written\": %s, \"load_ms\": %.1f, \"prove_ms\": %.1f, "
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
                                size_t len) {
  size_t used = 0, named = 0;
  buf[0] = 0;
  for (size_t i = 0; i < n && named < 8; i++) {
    int st = rep->results[i].status;
    if (st <= 0 || st == SEALPROV_ERR_CANCELLED || st == SEALPROV_ERR_SHUTDOWN) continue;
    int w =
        snprintf(buf + used, len - used, "%s partition %zu is %s", named ? "," : ";", i, files[i]);
    if (w < 0 || (size_t)w >= len - used) break;
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

/* --device N[,M...] -> a device_mask (bit i = device i of devices()). */
static bool parse_devices(const char *arg, uint64_t *mask) {
  *mask = 0;
  const char *p = arg;
  for (;;) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(p, &end, 10);
    if (end == p || *p < '0' || *p > '9' || errno != 0 || v > 63 || (*end != ',' && *end != '\0')) {
      sp_cli_error(
          "--device '%s': not a list of device indexes (0 to 63, comma-separated; "
          "`sealprov devices` lists them)",
          arg);
      return false;
    }
    *mask |= UINT64_C(1) << v;
    if (*end == '\0') return true;
    p = end + 1;
  }
}

/* The job itself is built by the proving helpers (g16_prove.c, witness.c), which know
 * nothing of --device: a copy of the module's vtable whose submit adds the mask stands
 * in for it, as a host could interpose. */
static sealprov_vtable devices_vt;
static int (*devices_submit)(sealprov_provider *, const sealprov_job *, sealprov_job_id *);
static uint64_t devices_mask;

static int submit_on_devices(sealprov_provider *p, const sealprov_job *job, sealprov_job_id *id) {
  if (job == NULL || job->struct_size < sizeof *job) return devices_submit(p, job, id);
  sealprov_job j = *job;
  j.device_mask = devices_mask;
  return devices_submit(p, &j, id);
}

static bool restrict_devices(sp_cli_host *h, uint64_t mask) {
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

int cmd_prove(int argc, char **argv) {
  enum {
    O_PARAMS = 256,
    O_OUT,
    O_ZERO_RS,
    O_R1CS,
    O_ZKEY,
    O_WTNS,
    O_OUT_PROOF,
    O_OUT_PUBLIC,
    O_DEVICE
  };
  static const struct option opts[] = {
      {"params", required_argument, NULL, O_PARAMS},
      {"out", required_argument, NULL, O_OUT},
      {"zero-rs", no_argument, NULL, O_ZERO_RS},
      {"r1cs", required_argument, NULL, O_R1CS},
      {"zkey", required_argument, NULL, O_ZKEY},
      {"wtns", required_argument, NULL, O_WTNS},
      {"out-proof", required_argument, NULL, O_OUT_PROOF},
      {"out-public", required_argument, NULL, O_OUT_PUBLIC},
      {"device", required_argument, NULL, O_DEVICE},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {
      .usage = prove_usage, .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON, .opts = opts};
  const char *params = NULL, *out = NULL, *r1cs = NULL;
  const char *zkey = NULL, *wtns = NULL, *out_proof = NULL, *out_public = NULL;
  bool zero_rs = false;
  uint64_t device_mask = 0;
  const char *device_arg = NULL;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case O_PARAMS: params = optarg; break;
      case O_OUT: out = optarg; break;
      case O_ZERO_RS: zero_rs = true; break;
      case O_R1CS: r1cs = optarg; break;
      case O_ZKEY: zkey = optarg; break;
      case O_WTNS: wtns = optarg; break;
      case O_OUT_PROOF: out_proof = optarg; break;
      case O_OUT_PUBLIC: out_public = optarg; break;
      case O_DEVICE:
        if (!parse_devices(optarg, &device_mask)) return 2;
        device_arg = optarg;
        break;
    }
  }
  if (c < 0) return a.status;
  const char *ini = a.config;
  bool json = a.json;
  int first = a.first;
  size_t n = (size_t)(argc - first);
  if (zkey || wtns || out_proof || out_public) { /* snarkjs interop: its own mode */
    const char *clash = params       ? "--params"
                        : out        ? "--out"
                        : r1cs       ? "--r1cs"
                        : device_arg ? "--device"
                        : n          ? argv[first]
                                     : NULL;
    if (clash)
      return sp_cli_usage_error(&a, "%s cannot be combined with --zkey/--wtns (snarkjs proving)",
                                clash);
    if (!zkey || !wtns) return sp_cli_usage_error(&a, "missing %s", !zkey ? "--zkey" : "--wtns");
    if (sp_cli_prove_zkey == NULL) {
      int st = sp_cli_run_kit(); /* a developer mode: sealprov-kit runs it */
      if (st >= 0) return st;
      sp_cli_error("--zkey: the snarkjs mode is not in this build (a developer command)");
      return 2;
    }
    return sp_cli_prove_zkey(zkey, wtns, out_proof ? out_proof : "proof.json",
                             out_public ? out_public : "public.json", zero_rs, json);
  }
  if (!params || !out || n == 0)
    return sp_cli_usage_error(&a, "missing %s",
                              !params ? "--params"
                              : !out  ? "--out"
                                      : "partition files");
  /* Inputs and outputs first: a file that is not there, or a proof file that cannot be
   * written, must not cost opening the devices and a proving run. */
  if (!g16_check_input_file("--params", params) || (r1cs && !g16_check_input_file("--r1cs", r1cs)))
    return 1; /* a failure, as the module's own "not found" was: not a usage error */
  if (!g16_check_output_file("--out", out)) return 2;
  const char *env_out[] = {"SEALPROV_TIMELINE", "SEALPROV_STATS"};
  for (size_t i = 0; i < 2; i++) {
    const char *v = getenv(env_out[i]);
    if (v != NULL && *v && !g16_check_output_file(env_out[i], v)) return 2;
  }
  char **files = argv + first;
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
  if (r1cs == NULL) sp_cli_note("reading %zu partition file%s", n, n == 1 ? "" : "s");
  for (size_t i = 0; r1cs == NULL && i < n; i++) {
    char err[1024];
    if (sp_spa_read(files[i], &spa[i], err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      goto out;
    }
    asg[i] = spa[i]->asg;
  }
  if (zero_rs) sp_cli_warn("--zero-rs: proofs are deterministic and NOT zero-knowledge");
  if (!sp_cli_host_open(&h, ini)) {
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
    if (!written) ret = 1;
  }
  report(json, params, out, files, n, &rep, written);
  if (rep.status != SEALPROV_OK)
    sp_cli_error("%s: %s%s", g16_status_name(rep.status), rep.detail,
                 failed_files(&rep, files, n, failed, sizeof failed));
out:
  sp_cli_host_close(&h);
  for (size_t i = 0; spa && i < n; i++) sp_spa_free(spa[i]);
  free(spa);
  free(asg);
  free(proofs);
  free(rep.results);
  free(rep.device_names);
  return ret;
}
