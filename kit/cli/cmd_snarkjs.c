/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_snarkjs.c -- the developer modes of `prove` and `verify`: snarkjs's Groth16 files
 * (BLS12-381), proved and verified by the developer kit on this host's CPUs, not by the
 * module (no device configuration): `prove --zkey CIRCUIT.zkey --wtns WITNESS.wtns`
 * writes snarkjs's proof.json and public.json; `verify --vk verification_key.json
 * --proof proof.json --public public.json` checks them (docs/snarkjs.md). cmd_prove.c
 * and cmd_verify.c hand these modes over here. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cli.h"
#include "g16_util.h"
#include "snarkjs_json.h"
#include "wtns.h"
#include "zkey.h"
#include "base/util.h" /* SP_ESC_MAX: the readers' escaped file names */

/* ---- `prove --zkey`: snarkjs's proving key and witness, snarkjs's JSON out ---------- */

/* A field element as snarkjs's JSON number: a decimal string. */
static void json_fp(FILE *f, const fp_t *v) {
  uint64_t l[6];
  char dec[6 * 20 + 1];
  fp_to_canonical(l, v);
  sp_dec_from_limbs(dec, l, 6);
  fprintf(f, "\"%s\"", dec);
}

/* snarkjs's layout (its JSON.stringify with an indent of 1, no final newline): an
 * affine point with z = "1" (infinity as snarkjs writes it: [0, 1, 0]). */
static void json_g1(FILE *f, const char *name, const g1_affine_t *p, const char *ind) {
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

static void json_g2(FILE *f, const char *name, const g2_affine_t *p, const char *ind) {
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

static void write_proof_json(FILE *f, const sp_zkey_proof *pr) {
  fputs("{\n", f);
  json_g1(f, "pi_a", &pr->a, " ");
  fputs(",\n", f);
  json_g2(f, "pi_b", &pr->b, " ");
  fputs(",\n", f);
  json_g1(f, "pi_c", &pr->c, " ");
  fputs(",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}", f);
}

static void write_public_json(FILE *f, const uint8_t *values, size_t n) {
  fputs(n ? "[\n" : "[]", f);
  for (size_t i = 0; i < n; i++) {
    uint64_t l[4];
    char dec[4 * 20 + 1];
    for (int k = 0; k < 4; k++) {
      l[k] = 0;
      for (int b = 7; b >= 0; b--) l[k] = l[k] << 8 | values[32 * i + 8 * (size_t)k + (size_t)b];
    }
    sp_dec_from_limbs(dec, l, 4);
    fprintf(f, " \"%s\"%s\n", dec, i + 1 < n ? "," : "");
  }
  if (n) fputs("]", f);
}

/* Both files whole, or neither replaced: each written to a temporary file first. */
static bool write_outputs(const char *out_proof, const char *out_public, const sp_zkey_proof *pr,
                          const uint8_t *values, size_t n) {
  sp_cli_output op, ou;
  if (!sp_cli_output_begin(&op, "--out-proof", out_proof)) return false;
  if (!sp_cli_output_begin(&ou, "--out-public", out_public)) {
    sp_cli_output_abort(&op);
    return false;
  }
  write_proof_json(op.f, pr);
  write_public_json(ou.f, values, n);
  if (!sp_cli_output_commit(&op)) {
    sp_cli_output_abort(&ou);
    return false;
  }
  return sp_cli_output_commit(&ou);
}

/* r or s: uniform from 64 random bytes, or zero. */
static bool blinding(fr_t *v, bool zero) {
  if (zero) {
    *v = FR_ZERO;
    return true;
  }
  uint8_t rnd[64];
  size_t got = 0;
  while (got < sizeof rnd) {
    ssize_t k = getrandom(rnd + got, sizeof rnd - got, 0);
    if (k < 0 && errno == EINTR) continue;
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
int sp_cli_prove_zkey(const char *zkey_path, const char *wtns_path, const char *out_proof,
                      const char *out_public, bool zero_rs, bool force, bool json) {
  if (!sp_cli_file_is("--zkey", zkey_path, SP_KIND_BIT(SP_KIND_ZKEY),
                      "a snarkjs .zkey proving key") ||
      !sp_cli_file_is("--wtns", wtns_path, SP_KIND_BIT(SP_KIND_WTNS), "a circom .wtns witness"))
    return 2;
  sp_cli_file in[3] = {{"--zkey file", zkey_path}, {"--wtns file", wtns_path}};
  if (!sp_cli_output_check("--out-proof", out_proof, SP_KIND_SNARKJS_PROOF, force, in, 2)) return 2;
  in[2] = (sp_cli_file){"--out-proof file", out_proof};
  if (!sp_cli_output_check("--out-public", out_public, SP_KIND_SNARKJS_PUBLIC, force, in, 3))
    return 2;
  char err[1024];
  sp_zkey *zk = NULL;
  sp_wtns *w = NULL;
  int ret = 2;
  double t0 = sp_cli_now_ms();
  sp_cli_note("loading %s", zkey_path);
  int rc = sp_zkey_load(zkey_path, true, g16_ncpus(), &zk, err, sizeof err);
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s: %s", g16_status_name(rc), err);
    goto out;
  }
  double t_load = sp_cli_now_ms() - t0;
  rc = sp_wtns_load(wtns_path, &w, err, sizeof err);
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s: %s", g16_status_name(rc), err);
    goto out;
  }
  if (zero_rs) sp_cli_warn("--zero-rs: the proof is deterministic and NOT zero-knowledge");
  fr_t r, s;
  if (!blinding(&r, zero_rs) || !blinding(&s, zero_rs)) {
    ret = 1;
    goto out;
  }
  sp_zkey_proof pr;
  double t1 = sp_cli_now_ms();
  rc = sp_zkey_prove(zk, w->values, w->n, wtns_path, &r, &s, g16_ncpus(), &pr, err, sizeof err);
  double t_prove = sp_cli_now_ms() - t1;
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
    sp_cli_error(
        "the proof does not verify with the verifying key of %s%s%s: the witness %s "
        "does not satisfy that circuit (a witness of another circuit, or of other "
        "inputs?); nothing written",
        zkey_path, err[0] ? ": " : "", err, wtns_path);
    ret = 1;
    goto out;
  }
  if (!write_outputs(out_proof, out_public, &pr, w->values + 32, zk->n_public)) {
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

/* `sealprov verify --vk verification_key.json --proof proof.json --public public.json`. */
int sp_cli_verify_snarkjs(const char *vk_path, const char *proof_path, const char *public_path,
                          bool json) {
  char msg[2048] = ""; /* an escaped path (up to SP_ESC_MAX) and the reason */
  /* another known kind is named; JSON that is none of snarkjs's files: its reader says why */
  unsigned any_json = SP_KIND_BIT(SP_KIND_JSON);
  if (!sp_cli_file_is("--vk", vk_path, any_json | SP_KIND_BIT(SP_KIND_SNARKJS_VK),
                      "snarkjs's verification_key.json (or a .vk without --proof/--public)") ||
      !sp_cli_file_is("--proof", proof_path, any_json | SP_KIND_BIT(SP_KIND_SNARKJS_PROOF),
                      "a snarkjs proof.json") ||
      !sp_cli_file_is("--public", public_path, any_json | SP_KIND_BIT(SP_KIND_SNARKJS_PUBLIC),
                      "a snarkjs public.json"))
    return 2;
  sp_vk vk;
  sp_zkey_proof pr;
  scalar_t *pub = NULL;
  size_t n = 0;
  if (!sp_snarkjs_load_vk(vk_path, &vk, msg, sizeof msg)) {
    sp_cli_error("%s", msg);
    return 2;
  }
  int code = 2;
  if (!sp_snarkjs_load_public(public_path, &pub, &n, msg, sizeof msg)) goto out;
  if (n + 1 != vk.ic_len) {
    snprintf(msg, sizeof msg, "%s has %zu public signals, %s expects %zu (IC has %zu points)",
             public_path, n, vk_path, vk.ic_len - 1, vk.ic_len);
    goto out;
  }
  bool valid = false;
  double t0 = sp_cli_now_ms();
  if (sp_snarkjs_load_proof(proof_path, &pr, msg, sizeof msg)) {
    int rc = sp_zkey_verify(&vk, pub, n, &pr, &valid, msg, sizeof msg);
    code = rc == SEALPROV_OK ? (valid ? 0 : 1) : 2;
  } else if (strstr(msg, "not on the curve") || strstr(msg, "below p")) {
    code = 1; /* a proof with a bad point is an invalid proof */
  }
  double ms = sp_cli_now_ms() - t0;
  if (code != 2 || json) {
    const char *verdict = code == 0 ? "valid" : code == 1 ? "invalid" : "error";
    /* the reason without the file name the line already shows */
    const char *why = msg[0] ? msg : "pairing check failed";
    char pesc[SP_ESC_MAX]; /* the readers name files escaped (sp_cli_escape) */
    sp_cli_escape(proof_path, pesc, sizeof pesc);
    size_t pl = strlen(pesc);
    if (strncmp(why, pesc, pl) == 0 && strncmp(why + pl, ": ", 2) == 0) why += pl + 2;
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
    if (code != 2) msg[0] = 0;
  }
out:
  if (code == 2 && msg[0]) sp_cli_error("%s", msg);
  free(pub);
  free(vk.ic);
  return code;
}
