/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* snarkjs_json.c -- snarkjs's verification_key.json, proof.json and public.json
 * (snarkjs_json.h), read with the CLI's JSON reader (json_read.c); its own file so that
 * tests/fuzz/fuzz_snarkjs.c can feed the same code. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_read.h"
#include "snarkjs_json.h"
#include "groth16/groth16.h"
#include "base/util.h"

/* ---- snarkjs's JSON: verification_key.json, proof.json, public.json ------------------ */

/* A decimal string (snarkjs writes numbers as strings; a plain JSON integer is taken
 * too) into limbs, below the bound (nlimbs limbs, canonical). */
static bool jdec(const sp_json *v, uint64_t *limbs, size_t nlimbs, const uint64_t *bound) {
  if (!v || (v->kind != SP_JSON_STR && v->kind != SP_JSON_NUM) ||
      !sp_dec_to_limbs(limbs, nlimbs, v->str))
    return false;
  for (size_t i = nlimbs; i-- > 0;)
    if (limbs[i] != bound[i]) return limbs[i] < bound[i];
  return false;
}

static bool jfp(const sp_json *v, fp_t *out) {
  uint64_t l[6];
  return jdec(v, l, 6, BLS_P) && fp_from_canonical(out, l);
}

/* [x, y, z] with z "1" (affine) or "0" (infinity). NULL or why not. */
static const char *jg1(const sp_json *v, g1_affine_t *out) {
  if (!v || v->kind != SP_JSON_ARR || v->n != 3) return "not an array of 3 coordinates";
  fp_t z;
  if (!jfp(&v->items[0], &out->x) || !jfp(&v->items[1], &out->y) || !jfp(&v->items[2], &z))
    return "a coordinate is not a decimal string below p";
  if (fp_is_zero(&z)) {
    g1_affine_set_inf(out);
    return NULL;
  }
  if (!fp_is_one(&z)) return "z is neither 1 (affine) nor 0 (infinity)";
  return g1_affine_on_curve(out) ? NULL : "not on the curve";
}

static const char *jg2(const sp_json *v, g2_affine_t *out) {
  if (!v || v->kind != SP_JSON_ARR || v->n != 3) return "not an array of 3 coordinates";
  fp2_t c[3];
  for (int i = 0; i < 3; i++) {
    const sp_json *e = &v->items[i];
    if (e->kind != SP_JSON_ARR || e->n != 2) return "a coordinate is not a pair [c0, c1]";
    if (!jfp(&e->items[0], &c[i].c0) || !jfp(&e->items[1], &c[i].c1))
      return "a coordinate is not a decimal string below p";
  }
  if (fp2_is_zero(&c[2])) {
    g2_affine_set_inf(out);
    return NULL;
  }
  if (!fp_is_one(&c[2].c0) || !fp_is_zero(&c[2].c1))
    return "z is neither [1, 0] (affine) nor [0, 0] (infinity)";
  out->x = c[0];
  out->y = c[1];
  return g2_affine_on_curve(out) ? NULL : "not on the curve";
}

/* Checks protocol and curve of a snarkjs file. Text from the file is shown escaped
 * (sp_cli_escape): a raw byte of it must not make the message invalid UTF-8. */
static bool jcurve(const sp_json *o, const char *file, char *msg, size_t msglen) {
  const sp_json *proto = sp_json_get(o, "protocol"), *curve = sp_json_get(o, "curve");
  char esc[256];
  if (!proto || proto->kind != SP_JSON_STR || strcmp(proto->str, "groth16") != 0) {
    bool str = proto && proto->kind == SP_JSON_STR;
    snprintf(msg, msglen, "%s: \"protocol\" is %s%s%s, sealprov verifies \"groth16\"", file,
             str ? "\"" : "",
             str     ? sp_cli_escape(proto->str, esc, sizeof esc)
             : proto ? "not a string"
                     : "missing",
             str ? "\"" : "");
    return false;
  }
  if (curve && (curve->kind != SP_JSON_STR || strcmp(curve->str, "bls12381") != 0)) {
    bool bn = curve->kind == SP_JSON_STR && strcmp(curve->str, "bn128") == 0;
    snprintf(
        msg, msglen, "%s: \"curve\" is %s%s: sealprov verifies BLS12-381 (\"bls12381\") only%s",
        file,
        curve->kind == SP_JSON_STR ? sp_cli_escape(curve->str, esc, sizeof esc) : "not a string",
        bn ? " (BN254, base field q = "
             "0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47)"
           : "",
        bn ? ": make the key from a bls12381 powers of tau and a circuit compiled with circom "
             "--prime bls12381"
           : "");
    return false;
  }
  return true;
}

/* At most this much of a file: a snarkjs verification key of 64 MiB has some 200,000 IC
 * points. */
#define SNARKJS_MAX_BYTES ((size_t)64 << 20)

/* The start shared by verification_key.json and proof.json: file = the escaped path
 * (SP_ESC_MAX bytes), *o = the parsed file, a JSON object of protocol groth16 on
 * bls12381. On false msg says why and nothing is left to free. */
static bool load_groth16_object(const char *path, char *file, sp_json *o, const char *what,
                                char *msg, size_t msglen) {
  sp_cli_escape(path, file, SP_ESC_MAX);
  if (!sp_json_load(path, SNARKJS_MAX_BYTES, "a snarkjs JSON file", o, msg, msglen)) return false;
  if (o->kind != SP_JSON_OBJ)
    snprintf(msg, msglen, "%s: not a JSON object: not a snarkjs %s", file, what);
  else if (jcurve(o, file, msg, msglen))
    return true;
  sp_json_free(o);
  return false;
}

/* verification_key.json into vk (ic malloc'd). */
bool sp_snarkjs_load_vk(const char *path, sp_vk *vk, char *msg, size_t msglen) {
  char file[SP_ESC_MAX];
  sp_json o;
  memset(vk, 0, sizeof *vk);
  if (!load_groth16_object(path, file, &o, "verification_key.json", msg, msglen)) return false;
  bool ok = false;
  const char *why = NULL, *field = NULL;
  const sp_json *ic = sp_json_get(&o, "IC"), *np = sp_json_get(&o, "nPublic");
  struct {
    const char *name;
    bool g2;
    void *out;
  } pts[4] = {{"vk_alpha_1", false, &vk->alpha_g1},
              {"vk_beta_2", true, &vk->beta_g2},
              {"vk_gamma_2", true, &vk->gamma_g2},
              {"vk_delta_2", true, &vk->delta_g2}};
  for (int i = 0; i < 4 && !why; i++) {
    const sp_json *v = sp_json_get(&o, pts[i].name);
    field = pts[i].name;
    why = !v ? "missing" : pts[i].g2 ? jg2(v, pts[i].out) : jg1(v, pts[i].out);
    /* g1/g2_affine_in_subgroup take infinity (it is in the subgroup): refused apart,
     * a key with a point at infinity is no key (fuzz_snarkjs found alpha = [0, 1, 0]
     * accepted) */
    if (!why && (pts[i].g2 ? g2_affine_is_inf(pts[i].out) : g1_affine_is_inf(pts[i].out)))
      why = "the point at infinity";
    else if (!why &&
             (pts[i].g2 ? !g2_affine_in_subgroup(pts[i].out) : !g1_affine_in_subgroup(pts[i].out)))
      why = "not in the subgroup";
  }
  if (!why && (!ic || ic->kind != SP_JSON_ARR || ic->n == 0)) {
    field = "IC";
    why = "missing or not a non-empty array of points";
  }
  if (why) {
    snprintf(msg, msglen, "%s: \"%s\": %s", file, field, why);
    goto out;
  }
  uint64_t npub;
  if (np && (np->kind != SP_JSON_NUM || !sp_dec_to_limbs(&npub, 1, np->str) || npub + 1 != ic->n)) {
    snprintf(msg, msglen,
             "%s: \"nPublic\" is %.40s, but \"IC\" has %zu points (nPublic + 1 expected)", file,
             np->kind == SP_JSON_NUM ? np->str : "not a number", ic->n);
    goto out;
  }
  vk->ic_len = ic->n;
  vk->ic = malloc(ic->n * sizeof(g1_affine_t));
  if (!vk->ic) {
    snprintf(msg, msglen, "%s: out of memory", file);
    goto out;
  }
  for (size_t i = 0; i < ic->n; i++) {
    why = jg1(&ic->items[i], &vk->ic[i]);
    if (!why && !g1_affine_in_subgroup(&vk->ic[i]) && !g1_affine_is_inf(&vk->ic[i]))
      why = "not in the subgroup";
    if (why) {
      snprintf(msg, msglen, "%s: \"IC\"[%zu]: %s", file, i, why);
      goto out;
    }
  }
  groth16_prepare_vk(&vk->pvk, &vk->alpha_g1, &vk->beta_g2, &vk->gamma_g2, &vk->delta_g2);
  ok = true;
out:
  if (!ok) {
    free(vk->ic);
    vk->ic = NULL;
  }
  sp_json_free(&o);
  return ok;
}

bool sp_snarkjs_load_proof(const char *path, sp_zkey_proof *pr, char *msg, size_t msglen) {
  char file[SP_ESC_MAX];
  sp_json o;
  if (!load_groth16_object(path, file, &o, "proof.json", msg, msglen)) return false;
  bool ok = false;
  const char *why = NULL, *field = NULL;
  field = "pi_a";
  why = jg1(sp_json_get(&o, "pi_a"), &pr->a);
  if (!why) {
    field = "pi_b";
    why = jg2(sp_json_get(&o, "pi_b"), &pr->b);
  }
  if (!why) {
    field = "pi_c";
    why = jg1(sp_json_get(&o, "pi_c"), &pr->c);
  }
  if (why) {
    snprintf(msg, msglen, "%s: \"%s\": %s", file, field, sp_json_get(&o, field) ? why : "missing");
    goto out;
  }
  ok = true;
out:
  sp_json_free(&o);
  return ok;
}

bool sp_snarkjs_load_public(const char *path, scalar_t **pub, size_t *n, char *msg, size_t msglen) {
  char file[SP_ESC_MAX];
  sp_cli_escape(path, file, sizeof file);
  sp_json o;
  *pub = NULL;
  if (!sp_json_load(path, SNARKJS_MAX_BYTES, "a snarkjs JSON file", &o, msg, msglen)) return false;
  bool ok = false;
  if (o.kind != SP_JSON_ARR) {
    snprintf(msg, msglen, "%s: not a JSON array: not a snarkjs public.json", file);
    goto out;
  }
  *n = o.n;
  *pub = malloc(o.n * sizeof(scalar_t) + 1);
  if (!*pub) {
    snprintf(msg, msglen, "%s: out of memory", file);
    goto out;
  }
  for (size_t i = 0; i < o.n; i++)
    if (!jdec(&o.items[i], (*pub)[i].l, 4, BLS_R)) {
      snprintf(msg, msglen, "%s: signal %zu is not a decimal string below r", file, i);
      goto out;
    }
  ok = true;
out:
  if (!ok) {
    free(*pub);
    *pub = NULL;
  }
  sp_json_free(&o);
  return ok;
}
