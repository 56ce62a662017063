/* cmd_verify.c -- `sealprov verify`: checks a proof file against a verifying key and
 * the public inputs of the partition files, with the module's verifier code (no
 * device configuration needed). Exit 0 only if every proof verifies. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "g16_util.h"
#include "snarkjs_json.h"
#include "groth16/groth16.h"
#include "spa.h"
#include "formats/srs.h"
#include "base/util.h"
#include "zkey.h"

static void verify_usage(FILE *f)
{
  fprintf(f, "usage: sealprov verify --vk FILE.vk --proofs PROOFS [--json] PARTITION.spa...\n"
             "  Proof i (192 bytes at offset 192 i) is checked with the public inputs of the\n"
             "  i-th partition file. Exit status: 0 all verify, 1 some do not, 2 bad usage or\n"
             "  unreadable files.\n"
             "       sealprov verify --vk verification_key.json --proof proof.json\n"
             "                       --public public.json [--json]\n"
             "  snarkjs's Groth16 files (BLS12-381): the verifying key `snarkjs zkey export\n"
             "  verificationkey` writes, a proof and its public signals. Same exit status.\n");
}

/* True when the file's first non-blank byte is '{' (a JSON verifying key). */
static bool looks_like_json(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  int c;
  while ((c = fgetc(f)) == ' ' || c == '\t' || c == '\r' || c == '\n')
    ;
  fclose(f);
  return c == '{';
}

/* `sealprov verify --vk verification_key.json --proof proof.json --public public.json`. */
static int verify_snarkjs(const char *vk_path, const char *proof_path, const char *public_path,
                          bool json)
{
  char msg[2048] = ""; /* an escaped path (up to SP_ESC_MAX) and the reason */
  sp_vk vk;
  sp_zkey_proof pr;
  scalar_t *pub = NULL;
  size_t n = 0;
  if (!sp_snarkjs_load_vk(vk_path, &vk, msg, sizeof msg)) {
    sp_cli_error("%s", msg);
    return 2;
  }
  int code = 2;
  if (!sp_snarkjs_load_public(public_path, &pub, &n, msg, sizeof msg))
    goto out;
  if (n + 1 != vk.ic_len) {
    snprintf(msg, sizeof msg, "%s has %zu public signals, %s expects %zu (IC has %zu points)",
             public_path, n, vk_path, vk.ic_len - 1, vk.ic_len);
    goto out;
  }
  bool valid = false;
  double t0 = g16_now_ms();
  if (sp_snarkjs_load_proof(proof_path, &pr, msg, sizeof msg)) {
    int rc = sp_zkey_verify(&vk, pub, n, &pr, &valid, msg, sizeof msg);
    code = rc == SEALPROV_OK ? (valid ? 0 : 1) : 2;
  } else if (strstr(msg, "not on the curve") || strstr(msg, "below p")) {
    code = 1; /* a proof with a bad point is an invalid proof */
  }
  double ms = g16_now_ms() - t0;
  if (code != 2 || json) {
    const char *verdict = code == 0 ? "valid" : code == 1 ? "invalid" : "error";
    /* the reason without the file name the line already shows */
    const char *why = msg[0] ? msg : "pairing check failed";
    char pesc[SP_ESC_MAX]; /* the readers name files escaped (sp_utf8_escape) */
    sp_utf8_escape(proof_path, pesc, sizeof pesc);
    size_t pl = strlen(pesc);
    if (strncmp(why, pesc, pl) == 0 && strncmp(why + pl, ": ", 2) == 0)
      why += pl + 2;
    if (json) {
      printf("{\"vk\": ");
      sp_cli_json_str(stdout, vk_path);
      printf(", \"proof\": ");
      sp_cli_json_str(stdout, proof_path);
      printf(", \"public\": ");
      sp_cli_json_str(stdout, public_path);
      printf(", \"result\": \"%s\", \"ms\": %.2f", verdict, ms);
      if (code) {
        printf(", \"reason\": ");
        sp_cli_json_str(stdout, why);
      }
      printf("}\n");
    } else {
      printf("proof %-8s %s%s%s\n", verdict, proof_path, code ? ": " : "", code ? why : "");
    }
    if (code != 2)
      msg[0] = 0;
  }
out:
  if (code == 2 && msg[0])
    sp_cli_error("%s", msg);
  free(pub);
  free(vk.ic);
  return code;
}

int cmd_verify(int argc, char **argv)
{
  static const struct option opts[] = {
      {"vk", required_argument, NULL, 'v'},
      {"proofs", required_argument, NULL, 'p'},
      {"json", no_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},
      {"proof", required_argument, NULL, 'f'},
      {"public", required_argument, NULL, 'u'},
      {NULL, 0, NULL, 0},
  };
  const char *vk_path = NULL, *proofs_path = NULL;
  const char *proof_json = NULL, *public_json = NULL;
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
    case 'f':
      proof_json = optarg;
      break;
    case 'u':
      public_json = optarg;
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
  if (proof_json || public_json || (vk_path && looks_like_json(vk_path))) {
    /* snarkjs's verification_key.json, proof.json and public.json */
    const char *clash = proofs_path ? "--proofs" : n ? argv[optind] : NULL;
    if (!vk_path || !proof_json || !public_json || clash) {
      if (clash)
        sp_cli_error("%s cannot be combined with snarkjs's JSON files (--proof, --public)", clash);
      else
        sp_cli_error("missing %s (snarkjs's JSON files: --vk verification_key.json --proof "
                     "proof.json --public public.json)",
                     !vk_path ? "--vk" : !proof_json ? "--proof" : "--public");
      verify_usage(stderr);
      return 2;
    }
    return verify_snarkjs(vk_path, proof_json, public_json, json);
  }
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
