/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* inspect_text.c -- the text files of `sealprov inspect` (inspect.h): snarkjs's
 * verification_key.json, proof.json and public.json, Filecoin's parameters.json (read
 * with the CLI's JSON reader), and the INI file (read with the module's INI reader,
 * which checks every key and value but opens no device). */
#include <config.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "inspect.h"
#include "json_read.h"
#include "runtime/device_table.h"

/* ---- JSON ---------------------------------------------------------------------------- */

static const char *str_of(const sp_json *v) {
  return v != NULL && v->kind == SP_JSON_STR ? v->str : NULL;
}

/* A JSON string of s for the --json report (s is valid UTF-8 after the reader). */
static void json_text(char *out, size_t len, const char *s) {
  size_t o = 0;
  if (len < 3) return;
  out[o++] = '"';
  for (; *s && o + 3 < len; s++) {
    if (*s == '"' || *s == '\\') out[o++] = '\\';
    out[o++] = (unsigned char)*s < 0x20 ? '?' : *s;
  }
  out[o++] = '"';
  out[o] = 0;
}

/* curve and protocol lines shared by snarkjs's key and proof */
static void snarkjs_header(insp_file *f, const sp_json *o) {
  const char *proto = str_of(sp_json_get(o, "protocol"));
  const char *curve = str_of(sp_json_get(o, "curve"));
  char js[160];
  json_text(js, sizeof js, proto ? proto : "");
  insp_line(f, "protocol", "protocol", js, "%s%s", proto ? proto : "(none)",
            proto && !strcmp(proto, "groth16") ? "" : ": sealprov verifies groth16 only");
  json_text(js, sizeof js, curve ? curve : "");
  insp_line(f, "curve", "curve", js, "%s%s", curve ? curve : "(not named)",
            curve == NULL || !strcmp(curve, "bls12381")
                ? ""
                : ": sealprov verifies BLS12-381 (\"bls12381\") only");
}

int insp_json_file(insp_file *f) {
  char msg[1400];
  sp_json o;
  if (!sp_json_load(f->path, (size_t)64 << 20, "a JSON file sealprov reads", &o, msg, sizeof msg)) {
    insp_fail("%s", msg);
    return 1;
  }
  int rc = 0;
  char js[64];
  sp_cli_kind k = sp_cli_json_kind(&o); /* as every command tells them */
  if (k == SP_KIND_SNARKJS_VK) {
    f->kind = INSP_SNARKJS_VK;
    insp_head(f, "snarkjs_vk", "snarkjs verifying key (verification_key.json)");
    snarkjs_header(f, &o);
    const sp_json *ic = sp_json_get(&o, "IC"), *np = sp_json_get(&o, "nPublic");
    size_t nic = ic != NULL && ic->kind == SP_JSON_ARR ? ic->n : 0;
    snprintf(js, sizeof js, "%zu", nic);
    insp_line(f, "IC", "ic_len", js, "%zu point%s (ONE and %zu public signal%s)", nic,
              sp_cli_plural(nic), nic ? nic - 1 : 0, sp_cli_plural(nic ? nic - 1 : 0));
    if (np != NULL && np->kind == SP_JSON_NUM)
      insp_line(f, "nPublic", "n_public", np->str, "%s", np->str);
    insp_line(f, "for", NULL, NULL,
              "sealprov verify --vk verification_key.json --proof proof.json --public "
              "public.json");
  } else if (k == SP_KIND_SNARKJS_PROOF) {
    f->kind = INSP_SNARKJS_PROOF;
    insp_head(f, "snarkjs_proof", "snarkjs Groth16 proof (proof.json)");
    snarkjs_header(f, &o);
    insp_line(f, "points", NULL, NULL, "pi_a (G1), pi_b (G2), pi_c (G1), decimal coordinates");
    insp_line(f, "for", NULL, NULL,
              "sealprov verify --proof (with --vk verification_key.json and --public); written "
              "by sealprov prove --zkey");
  } else if (k == SP_KIND_SNARKJS_PUBLIC) {
    f->kind = INSP_SNARKJS_PUBLIC;
    insp_head(f, "snarkjs_public", "snarkjs public signals (public.json)");
    snprintf(js, sizeof js, "%zu", o.n);
    insp_line(f, "signals", "signals", js, "%zu (public outputs, then public inputs)", o.n);
    insp_line(f, "for", NULL, NULL,
              "sealprov verify --public (with --vk and --proof); written by sealprov prove "
              "--zkey");
  } else if (k == SP_KIND_MANIFEST) {
    f->kind = INSP_MANIFEST;
    size_t params = 0, vks = 0;
    for (size_t i = 0; i < o.n; i++) {
      size_t l = strlen(o.keys[i]);
      params += l > 7 && !strcmp(o.keys[i] + l - 7, ".params");
      vks += l > 3 && !strcmp(o.keys[i] + l - 3, ".vk");
    }
    insp_head(f, "parameters_json", "Filecoin parameter manifest (parameters.json)");
    snprintf(js, sizeof js, "%zu, \"params_files\": %zu, \"vk_files\": %zu", o.n, params, vks);
    insp_line(f, "entries", "entries", js, "%zu (%zu .params, %zu .vk; cid, digest, sector size)",
              o.n, params, vks);
    insp_line(f, "for", NULL, NULL,
              "[provider] params_manifest: the module checks a parameter file's BLAKE2b "
              "digest against its entry (sealprov.ini(5))");
  } else {
    insp_fail(
        "%s: JSON, but none of the JSON files sealprov reads (snarkjs's "
        "verification_key.json, proof.json, public.json; Filecoin's parameters.json)",
        f->path);
    rc = 1;
  }
  sp_json_free(&o);
  return rc;
}

/* ---- INI ------------------------------------------------------------------------------- */

int insp_ini(insp_file *f) {
  sp_config *cfg = calloc(1, sizeof *cfg);
  char err[2048];
  if (cfg == NULL) {
    insp_fail("out of memory");
    return 1;
  }
  /* The module's own reader: every key and value checked; no device is opened. */
  int st = sp_config_load(f->path, cfg, err, sizeof err);
  if (st != SEALPROV_OK) {
    insp_fail("%s (an INI file, which the module's INI reader refuses)", err);
    free(cfg);
    return 1;
  }
  f->kind = INSP_INI;
  insp_head(f, "ini", "sealprov configuration (INI, sealprov.ini(5))");
  char js[64];
  snprintf(js, sizeof js, "%zu", cfg->ndevices);
  insp_line(f, "devices", "num_devices", js, "%zu", cfg->ndevices);
  if (f->json) fprintf(insp_out, ", \"devices\": [");
  for (size_t i = 0; i < cfg->ndevices; i++) {
    const sp_device_cfg *d = &cfg->devices[i];
    const char *type = d->type == SP_DEVICE_CUDA ? "cuda" : "cpu";
    if (f->json) {
      fprintf(insp_out, "%s{\"section\": ", i ? ", " : "");
      sp_cli_json_str(insp_out, d->section);
      fprintf(insp_out, ", \"type\": \"%s\", \"device\": ", type);
      sp_cli_json_str(insp_out, d->selector);
      fprintf(insp_out, ", \"workers\": %u}", d->workers);
    } else {
      char name[80];
      snprintf(name, sizeof name, "[%s]", d->section);
      insp_line(f, name, NULL, NULL, "%s%s%s, %u worker%s (line %d)", type,
                d->selector[0] ? ", device = " : "", d->selector, d->workers,
                d->workers == 1 ? "" : "s", d->line);
    }
  }
  if (f->json) fprintf(insp_out, "]");
  insp_line(f, "self-check", "verify_proofs", cfg->verify_proofs ? "true" : "false", "%s",
            cfg->verify_proofs ? "on (verify_proofs)" : "OFF (verify_proofs = false)");
  insp_line(f, "subgroups", "params_subgroup_check", cfg->params_subgroup_check ? "true" : "false",
            "%s",
            cfg->params_subgroup_check
                ? "every parameter point checked (params_subgroup_check; slow on the CPU: "
                  "docs/configuration.md)"
                : "on-curve checks only (params_subgroup_check = false)");
  insp_line(f, "for", NULL, NULL,
            "sealprov -c and a host's open(); `sealprov check-config` also opens the devices");
  free(cfg);
  return 0;
}
