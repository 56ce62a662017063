/* cmd_prove.c -- `sealprov prove`: proves partition files through the module, exactly
 * as a host would (dlopen, open(ini), srs_load, one job, wait), and writes the proofs
 * in partition order. */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "g16_util.h"
#include "spa.h"
#include "witness.h"

static void prove_usage(FILE *f)
{
  fprintf(f,
          "usage: sealprov prove [--plugin MODULE] [-c INI] --params FILE --out PROOFS\n"
          "                      [--zero-rs] [--json] PARTITION.spa...\n"
          "       sealprov prove ... --r1cs CIRCUIT.r1cs WITNESS.wtns|PARTITION.spa...\n"
          "  Proves every partition file in one job on the devices of the INI file\n"
          "  (default $SEALPROV_CONFIG, else " SP_DEFAULT_CONFIG ") and writes 192 bytes per\n"
          "  partition, in the order given, to PROOFS. --zero-rs uses r = s = 0: the\n"
          "  proofs are deterministic but NOT zero-knowledge (tests only).\n"
          "  --r1cs: witness-only proving: the module loads the circom constraint system\n"
          "  and computes a, b, c itself; each file gives only a witness (a circom .wtns,\n"
          "  or the inputs and aux of a .spa). Same proofs as the full assignments.\n");
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

int cmd_prove(int argc, char **argv)
{
  static const struct option opts[] = {
      {"plugin", required_argument, NULL, 'P'}, {"config", required_argument, NULL, 'c'},
      {"params", required_argument, NULL, 'p'}, {"out", required_argument, NULL, 'o'},
      {"zero-rs", no_argument, NULL, 'z'},      {"json", no_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},         {"r1cs", required_argument, NULL, 'R'},
      {NULL, 0, NULL, 0},
  };
  const char *plugin = NULL, *ini = NULL, *params = NULL, *out = NULL, *r1cs = NULL;
  bool zero_rs = false, json = false;
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
    case 'j':
      json = true;
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
