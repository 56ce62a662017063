/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_verify.c -- `sealprov verify`: checks a proof file against a verifying key and
 * the public inputs of the partition files through the module, as a host does: vk_load
 * and verify() on a provider of one CPU device (no device configuration needed; -c names
 * one). Exit 0 only if every proof verifies. snarkjs's JSON files are the kit's
 * (kit/cli/cmd_snarkjs.c). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A developer mode, linked into the program with the kit (docs/design.md, "The CLI"):
 * a weak reference, so the host library links without it. */
#pragma weak sp_cli_verify_snarkjs
#include "g16_util.h"
#include "spa.h"

static void verify_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov verify [--plugin MODULE] [-c INI] --vk FILE.vk --proofs PROOFS\n"
          "                       [--json] PARTITION.spa...\n"
          "  Proof i (192 bytes at offset 192 i) is checked with the public inputs of the\n"
          "  i-th partition file by the module (vk_load, verify) on a provider of one CPU\n"
          "  device, or of INI's devices with -c. A bare --vk NAME is looked up as prove's\n"
          "  --params (the parameter cache first). A partition whose input 0 is not ONE is\n"
          "  malformed: an error, not a proof checked without it. Exit status: 0 all\n"
          "  verify, 1 some do not, 2 bad usage, unreadable or malformed files.\n"
          "       sealprov verify --vk verification_key.json --proof proof.json\n"
          "                       --public public.json [--json]\n"
          "  snarkjs's Groth16 files (BLS12-381): the verifying key `snarkjs zkey export\n"
          "  verificationkey` writes, a proof and its public signals. Same exit status.\n");
}

/* True when the file's first non-blank byte is '{' (a JSON verifying key). */
static bool looks_like_json(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  int c;
  while ((c = fgetc(f)) == ' ' || c == '\t' || c == '\r' || c == '\n')
    ;
  fclose(f);
  return c == '{';
}

int cmd_verify(int argc, char **argv) {
  enum { O_VK = 256, O_PROOFS, O_PROOF, O_PUBLIC };
  static const struct option opts[] = {
      {"vk", required_argument, NULL, O_VK},
      {"proofs", required_argument, NULL, O_PROOFS},
      {"proof", required_argument, NULL, O_PROOF},
      {"public", required_argument, NULL, O_PUBLIC},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {
      .usage = verify_usage, .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON, .opts = opts};
  const char *vk_path = NULL, *proofs_path = NULL;
  const char *proof_json = NULL, *public_json = NULL;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case O_VK: vk_path = optarg; break;
      case O_PROOFS: proofs_path = optarg; break;
      case O_PROOF: proof_json = optarg; break;
      case O_PUBLIC: public_json = optarg; break;
    }
  }
  if (c < 0) return a.status;
  bool json = a.json;
  size_t n = (size_t)(argc - a.first);
  char **files = argv + a.first;
  if (proof_json || public_json || (vk_path && looks_like_json(vk_path))) {
    /* snarkjs's verification_key.json, proof.json and public.json: the kit's (kit/cli/cmd_snarkjs.c) */
    const char *clash = proofs_path ? "--proofs" : n ? files[0] : a.config ? "-c" : NULL;
    if (clash)
      return sp_cli_usage_error(&a,
                                "%s cannot be combined with snarkjs's JSON files (--proof, "
                                "--public)",
                                clash);
    if (!vk_path || !proof_json || !public_json)
      return sp_cli_usage_error(&a,
                                "missing %s (snarkjs's JSON files: --vk "
                                "verification_key.json --proof proof.json --public public.json)",
                                !vk_path      ? "--vk"
                                : !proof_json ? "--proof"
                                              : "--public");
    if (sp_cli_verify_snarkjs == NULL) {
      int st = sp_cli_run_kit(); /* a developer mode: sealprov-kit runs it */
      if (st >= 0) return st;
      sp_cli_error(
          "--vk verification_key.json: the snarkjs mode is not in this build (a developer "
          "command)");
      return 2;
    }
    return sp_cli_verify_snarkjs(vk_path, proof_json, public_json, json);
  }
  if (!vk_path || !proofs_path || n == 0)
    return sp_cli_usage_error(&a, "missing %s",
                              !vk_path       ? "--vk"
                              : !proofs_path ? "--proofs"
                                             : "partition files");
  sp_cli_params_path vp;
  if (g16_params_file("--vk", vk_path, SP_KIND_VK, &vp) != 0 ||
      !g16_check_input_file("--proofs", proofs_path) ||
      !sp_cli_file_is("--proofs", proofs_path, SP_KIND_BIT(SP_KIND_PROOFS),
                      "a proof file (192 bytes a partition, as `sealprov prove --out` writes)"))
    return 2;
  for (size_t i = 0; i < n; i++)
    if (!sp_cli_file_is("verify", files[i], SP_KIND_BIT(SP_KIND_SPA),
                        "partition files (.spa) after its options, one per proof"))
      return 2;
  uint8_t *proofs = NULL;
  if (!g16_read_proofs(proofs_path, n, &proofs)) return 2;
  /* The module verifies, on a provider of its own: one CPU device unless -c names one. */
  sp_cli_host h;
  if (!(a.config ? sp_cli_host_open(&h, a.config) : sp_cli_host_open_cpu(&h))) {
    free(proofs);
    return 2;
  }
  const sealprov_vtable *vt = h.vt;
  sealprov_srs *vk = NULL;
  sp_cli_load_noun = "the verifying key";
  int rc = vt->vk_load(h.p, vp.module, &vk);
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s", vt->last_error());
    free(proofs);
    sp_cli_host_close(&h);
    return 2;
  }
  size_t good = 0;
  int exit_code = 0;
  double t0 = sp_cli_now_ms();
  if (json) {
    printf("{\"vk\": ");
    sp_cli_json_str(stdout, vk_path);
    printf(", \"proofs\": ");
    sp_cli_json_str(stdout, proofs_path);
    printf(", \"results\": [");
  }
  for (size_t i = 0; i < n; i++) {
    const char *path = files[i];
    sp_spa *spa = NULL;
    int valid = 0;
    char err[1024] = "";
    double ts = sp_cli_now_ms();
    rc = sp_spa_read(path, &spa, err, sizeof err);
    if (rc == SEALPROV_OK)
      rc = g16_verify_partition(&h, vk, &spa->asg, path, proofs + SEALPROV_PROOF_BYTES * i, &valid,
                                err, sizeof err);
    double ms = sp_cli_now_ms() - ts;
    /* a proof that does not decode is an invalid proof, not a usage error; a partition
     * file that does not read, or whose input 0 is not ONE, is a malformed input */
    bool unreadable = spa == NULL || rc == SEALPROV_ERR_ASSIGNMENT;
    if (valid)
      good++;
    else if (unreadable)
      exit_code = 2;
    else if (exit_code == 0)
      exit_code = 1;
    const char *verdict = valid ? "valid" : unreadable ? "error" : "invalid";
    if (unreadable) sp_cli_error("%s", err); /* a file at fault: said as an error too */
    /* the reason without the file name the line shows already */
    const char *why = err[0] ? err : "pairing check failed";
    char pesc[1024];
    sp_cli_escape(path, pesc, sizeof pesc);
    size_t pl = strlen(pesc);
    if (!strncmp(why, pesc, pl) && !strncmp(why + pl, ": ", 2)) why += pl + 2;
    if (json) {
      printf("%s{\"index\": %zu, \"file\": ", i ? ", " : "", i);
      sp_cli_json_str(stdout, path);
      printf(", \"result\": \"%s\", \"ms\": %.2f", verdict, ms);
      if (!valid) {
        printf(", \"reason\": ");
        sp_cli_json_str(stdout, why);
      }
      printf("}");
    } else {
      printf("proof %zu  %-8s %s%s", i, verdict, path, valid ? "\n" : ": ");
      if (!valid) {
        sp_cli_put_utf8(stdout, why);
        printf("\n");
      }
    }
    sp_spa_free(spa);
  }
  double total = sp_cli_now_ms() - t0;
  if (json)
    printf("], \"valid\": %zu, \"total\": %zu, \"ms\": %.1f}\n", good, n, total);
  else
    printf("%zu of %zu proof%s verif%s (%.0f ms)\n", good, n, sp_cli_plural(n),
           good == 1 ? "ies" : "y", total);
  free(proofs);
  vt->srs_release(vk);
  sp_cli_host_close(&h);
  return exit_code;
}
