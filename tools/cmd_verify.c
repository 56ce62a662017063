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

/* The command's options and operands, checked. */
typedef struct verify_opts {
  const char *vk_path, *proofs_path, *proof_json, *public_json;
  const char *config; /* -c, or NULL: one CPU device */
  bool json, snarkjs; /* snarkjs: --vk, --proof and --public are snarkjs's JSON files */
  char **files;       /* the partition files, n of them */
  size_t n;
  sp_cli_params_path vp; /* --vk, found */
} verify_opts;

/* snarkjs's files: none of the module's inputs beside them, all three given. -1 when
 * they are; else the exit status of the usage error. */
static int verify_parse_snarkjs(sp_cli_args *a, verify_opts *o) {
  const char *clash = o->proofs_path ? "--proofs" : o->n ? o->files[0] : o->config ? "-c" : NULL;
  if (clash)
    return sp_cli_usage_error(a,
                              "%s cannot be combined with snarkjs's JSON files (--proof, "
                              "--public)",
                              clash);
  if (!o->vk_path || !o->proof_json || !o->public_json)
    return sp_cli_usage_error(a,
                              "missing %s (snarkjs's JSON files: --vk "
                              "verification_key.json --proof proof.json --public public.json)",
                              !o->vk_path      ? "--vk"
                              : !o->proof_json ? "--proof"
                                               : "--public");
  o->snarkjs = true;
  return -1;
}

/* -1 when the command is to run; else its exit status (0 after --help, 2 on a usage
 * error or a file of the wrong kind). */
static int verify_parse(int argc, char **argv, verify_opts *o) {
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
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case O_VK: o->vk_path = optarg; break;
      case O_PROOFS: o->proofs_path = optarg; break;
      case O_PROOF: o->proof_json = optarg; break;
      case O_PUBLIC: o->public_json = optarg; break;
    }
  }
  if (c < 0) return a.status;
  o->json = a.json;
  o->config = a.config;
  o->n = (size_t)(argc - a.first);
  o->files = argv + a.first;
  if (o->proof_json || o->public_json || (o->vk_path && looks_like_json(o->vk_path)))
    return verify_parse_snarkjs(&a, o);
  if (!o->vk_path || !o->proofs_path || o->n == 0)
    return sp_cli_usage_error(&a, "missing %s",
                              !o->vk_path       ? "--vk"
                              : !o->proofs_path ? "--proofs"
                                                : "partition files");
  if (g16_params_file("--vk", o->vk_path, SP_KIND_VK, &o->vp) != 0 ||
      !g16_check_input_file("--proofs", o->proofs_path) ||
      !sp_cli_file_is("--proofs", o->proofs_path, SP_KIND_BIT(SP_KIND_PROOFS),
                      "a proof file (192 bytes a partition, as `sealprov prove --out` writes)"))
    return 2;
  for (size_t i = 0; i < o->n; i++)
    if (!sp_cli_file_is("verify", o->files[i], SP_KIND_BIT(SP_KIND_SPA),
                        "partition files (.spa) after its options, one per proof"))
      return 2;
  return -1;
}

/* snarkjs's verification_key.json, proof.json and public.json: the kit's
 * (kit/cli/cmd_snarkjs.c), in this program or in sealprov-kit. */
static int verify_snarkjs(const verify_opts *o) {
  if (sp_cli_verify_snarkjs == NULL) {
    int st = sp_cli_run_kit(); /* a developer mode: sealprov-kit runs it */
    if (st >= 0) return st;
    sp_cli_error(
        "--vk verification_key.json: the snarkjs mode is not in this build (a developer "
        "command)");
    return 2;
  }
  return sp_cli_verify_snarkjs(o->vk_path, o->proof_json, o->public_json, o->json);
}

/* The proofs read, and the module opened with the verifying key loaded, on a provider
 * of its own: one CPU device unless -c names one. False (nothing left open) when any
 * of them fails. */
static bool verify_inputs(const verify_opts *o, uint8_t **proofs, sp_cli_host *h,
                          sealprov_srs **vk) {
  if (!g16_read_proofs(o->proofs_path, o->n, proofs)) return false;
  if (!(o->config ? sp_cli_host_open(h, o->config) : sp_cli_host_open_cpu(h))) {
    free(*proofs);
    return false;
  }
  sp_cli_load_noun = "the verifying key";
  if (h->vt->vk_load(h->p, o->vp.module, vk) != SEALPROV_OK) {
    sp_cli_error("%s", h->vt->last_error());
    free(*proofs);
    sp_cli_host_close(h);
    return false;
  }
  return true;
}

/* Proof i against the i-th partition file, and its line (or JSON object). Its verdict:
 * 0 valid, 1 invalid (a proof that does not decode too), 2 a partition file that does
 * not read, or whose input 0 is not ONE (a malformed input). */
static int verify_one(const verify_opts *o, sp_cli_host *h, sealprov_srs *vk, const uint8_t *proofs,
                      size_t i) {
  const char *path = o->files[i];
  sp_spa *spa = NULL;
  int valid = 0;
  char err[1024] = "";
  double ts = sp_cli_now_ms();
  int rc = sp_spa_read(path, &spa, err, sizeof err);
  if (rc == SEALPROV_OK)
    rc = g16_verify_partition(h, vk, &spa->asg, path, proofs + SEALPROV_PROOF_BYTES * i, &valid,
                              err, sizeof err);
  double ms = sp_cli_now_ms() - ts;
  bool unreadable = spa == NULL || rc == SEALPROV_ERR_ASSIGNMENT;
  sp_spa_free(spa);
  const char *verdict = valid ? "valid" : unreadable ? "error" : "invalid";
  if (unreadable) sp_cli_error("%s", err); /* a file at fault: said as an error too */
  /* the reason without the file name the line shows already */
  const char *why = err[0] ? err : "pairing check failed";
  char pesc[1024];
  sp_cli_escape(path, pesc, sizeof pesc);
  size_t pl = strlen(pesc);
  if (!strncmp(why, pesc, pl) && !strncmp(why + pl, ": ", 2)) why += pl + 2;
  if (o->json) {
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
  return valid ? 0 : unreadable ? 2 : 1;
}

/* Every proof checked and the totals: the exit status (2 when a partition file is at
 * fault, else 1 when a proof does not verify, else 0). */
static int verify_all(const verify_opts *o, sp_cli_host *h, sealprov_srs *vk,
                      const uint8_t *proofs) {
  size_t good = 0;
  int exit_code = 0;
  double t0 = sp_cli_now_ms();
  if (o->json) {
    printf("{\"vk\": ");
    sp_cli_json_str(stdout, o->vk_path);
    printf(", \"proofs\": ");
    sp_cli_json_str(stdout, o->proofs_path);
    printf(", \"results\": [");
  }
  for (size_t i = 0; i < o->n; i++) {
    int v = verify_one(o, h, vk, proofs, i);
    if (v == 0)
      good++;
    else if (v == 2)
      exit_code = 2;
    else if (exit_code == 0)
      exit_code = 1;
  }
  double total = sp_cli_now_ms() - t0;
  if (o->json)
    printf("], \"valid\": %zu, \"total\": %zu, \"ms\": %.1f}\n", good, o->n, total);
  else
    printf("%zu of %zu proof%s verif%s (%.0f ms)\n", good, o->n, sp_cli_plural(o->n),
           good == 1 ? "ies" : "y", total);
  return exit_code;
}

int cmd_verify(int argc, char **argv) {
  verify_opts o = {0};
  int st = verify_parse(argc, argv, &o);
  if (st >= 0) return st;
  if (o.snarkjs) return verify_snarkjs(&o);
  uint8_t *proofs = NULL;
  sp_cli_host h;
  sealprov_srs *vk = NULL;
  if (!verify_inputs(&o, &proofs, &h, &vk)) return 2;
  int exit_code = verify_all(&o, &h, vk, proofs);
  free(proofs);
  h.vt->srs_release(vk);
  sp_cli_host_close(&h);
  return exit_code;
}
