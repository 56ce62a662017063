/* cmd_verify.c -- `sealprov verify`: checks a proof file against a verifying key and
 * the public inputs of the partition files, with the module's verifier code (no
 * device configuration needed). Exit 0 only if every proof verifies. */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "g16_util.h"
#include "groth16.h"
#include "spa.h"
#include "srs.h"

static void verify_usage(FILE *f)
{
  fprintf(f, "usage: sealprov verify --vk FILE.vk --proofs PROOFS [--json] PARTITION.spa...\n"
             "  Proof i (192 bytes at offset 192 i) is checked with the public inputs of the\n"
             "  i-th partition file. Exit status: 0 all verify, 1 some do not, 2 bad usage or\n"
             "  unreadable files.\n");
}

int cmd_verify(int argc, char **argv)
{
  static const struct option opts[] = {
      {"vk", required_argument, NULL, 'v'},
      {"proofs", required_argument, NULL, 'p'},
      {"json", no_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  const char *vk_path = NULL, *proofs_path = NULL;
  bool json = false;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'v':
      vk_path = optarg;
      break;
    case 'p':
      proofs_path = optarg;
      break;
    case 'j':
      json = true;
      break;
    case 'h':
      verify_usage(stdout);
      return 0;
    default:
      verify_usage(stderr);
      return 2;
    }
  }
  size_t n = (size_t)(argc - optind);
  if (!vk_path || !proofs_path || n == 0) {
    sp_cli_error("missing %s", !vk_path ? "--vk" : !proofs_path ? "--proofs" : "partition files");
    verify_usage(stderr);
    return 2;
  }
  char err[1024] = "";
  sp_srs *vk = NULL;
  int rc = sp_srs_load(vk_path, true, true, 1, &vk, err, sizeof err);
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s", err);
    if (strstr(err, "trailing bytes"))
      fprintf(stderr, "  (is %s a .params file? --vk takes the .vk file that `sealprov setup`\n"
                      "  writes next to it; `sealprov inspect %s` tells which it is)\n",
              vk_path, vk_path);
    return 2;
  }
  uint8_t *proofs = NULL;
  if (!g16_read_proofs(proofs_path, n, &proofs)) {
    sp_srs_release(vk);
    return 2;
  }
  size_t good = 0;
  int exit_code = 0;
  double t0 = g16_now_ms();
  if (json) {
    printf("{\"vk\": ");
    sp_cli_json_str(stdout, vk_path);
    printf(", \"proofs\": ");
    sp_cli_json_str(stdout, proofs_path);
    printf(", \"results\": [");
  }
  for (size_t i = 0; i < n; i++) {
    const char *path = argv[optind + (int)i];
    sp_spa *spa = NULL;
    bool valid = false;
    double ts = g16_now_ms();
    err[0] = 0;
    rc = sp_spa_read(path, &spa, err, sizeof err);
    if (rc == SEALPROV_OK)
      rc = sp_groth16_verify(vk, &spa->asg, SEALPROV_SCALAR_CANONICAL_LE, proofs + 192 * i, &valid,
                             err, sizeof err);
    double ms = g16_now_ms() - ts;
    /* a proof that does not decode is an invalid proof, not a usage error */
    bool unreadable = rc != SEALPROV_OK && spa == NULL;
    if (valid)
      good++;
    else if (unreadable)
      exit_code = 2;
    else if (exit_code == 0)
      exit_code = 1;
    const char *verdict = valid ? "valid" : unreadable ? "error" : "invalid";
    if (json) {
      printf("%s{\"index\": %zu, \"file\": ", i ? ", " : "", i);
      sp_cli_json_str(stdout, path);
      printf(", \"result\": \"%s\", \"ms\": %.2f", verdict, ms);
      if (!valid) {
        printf(", \"reason\": ");
        sp_cli_json_str(stdout, err[0] ? err : "pairing check failed");
      }
      printf("}");
    } else {
      printf("proof %zu  %-8s %s%s%s\n", i, verdict, path, valid ? "" : ": ",
             valid ? "" : (err[0] ? err : "pairing check failed"));
    }
    sp_spa_free(spa);
  }
  double total = g16_now_ms() - t0;
  if (json)
    printf("], \"valid\": %zu, \"total\": %zu, \"ms\": %.1f}\n", good, n, total);
  else
    printf("%zu of %zu proofs verify (%.0f ms)\n", good, n, total);
  free(proofs);
  sp_srs_release(vk);
  return exit_code;
}
