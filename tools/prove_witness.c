/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* prove_witness.c -- `sealprov prove --r1cs FILE`: witness-only proving through the
 * module: one job that names a constraint system (cs_load), each partition only its
 * witness, read from a circom .wtns or a .spa (its inputs and aux). */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "g16_util.h"
#include "spa.h"
#include "witness.h"
#include "wtns.h"

/* A partition's witness from a .wtns (split at inp_size) or a .spa (its inputs and aux;
 * a, b, c and the densities are dropped). *owned gets what to free. */
static int read_witness(const char *path, uint64_t inp_size, uint64_t aux_size,
                        sealprov_assignment *w, void **owned, bool *is_spa, char *err,
                        size_t errlen) {
  memset(w, 0, sizeof *w);
  *owned = NULL;
  uint8_t magic[4] = {0};
  FILE *f = fopen(path, "rb");
  if (f) {
    if (fread(magic, 1, 4, f) != 4) memset(magic, 0, 4);
    fclose(f);
  }
  *is_spa = memcmp(magic, "wtns", 4) != 0;
  if (*is_spa) {
    sp_spa *spa = NULL;
    int rc = sp_spa_read(path, &spa, err, errlen);
    if (rc != SEALPROV_OK) return rc;
    w->inp_assignment = spa->asg.inp_assignment;
    w->inp_size = spa->asg.inp_size;
    w->aux_assignment = spa->asg.aux_assignment;
    w->aux_size = spa->asg.aux_size;
    *owned = spa;
    return SEALPROV_OK;
  }
  sp_wtns *wt = NULL;
  int rc = sp_wtns_load(path, &wt, err, errlen);
  if (rc != SEALPROV_OK) return rc;
  if (wt->n != inp_size + aux_size) {
    snprintf(err, errlen,
             "%s: %" PRIu64 " witness values, but the constraint system has %" PRIu64
             " wires (%" PRIu64 " inputs with ONE + %" PRIu64 " aux)",
             path, wt->n, inp_size + aux_size, inp_size, aux_size);
    sp_wtns_free(wt);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  w->inp_assignment = wt->values;
  w->inp_size = inp_size;
  w->aux_assignment = wt->values + 32 * inp_size;
  w->aux_size = aux_size;
  *owned = wt;
  return SEALPROV_OK;
}

static void free_witness(void *owned, bool is_spa) {
  if (is_spa)
    sp_spa_free(owned);
  else
    sp_wtns_free(owned);
}

int g16_prove_witness(sp_cli_host *h, const char *params, const char *r1cs, char **files, size_t n,
                      bool zero_rs, bool progress, uint8_t *proofs, g16_prove_report *rep) {
  const sealprov_vtable *vt = h->vt;
  g16_report_begin(rep, n);
  if (!SEALPROV_VTABLE_HAS(vt, cs_info)) {
    rep->status = SEALPROV_ERR_UNSUPPORTED;
    snprintf(rep->detail, sizeof rep->detail,
             "the module implements ABI %" PRIu32 ".%" PRIu32
             ": witness-only proving (--r1cs) "
             "needs 1.1",
             vt->abi_major, vt->abi_minor);
    return 1;
  }
  sealprov_srs *srs = NULL;
  sealprov_cs *cs = NULL;
  sealprov_assignment *wit = calloc(n ? n : 1, sizeof *wit);
  void **owned = calloc(n ? n : 1, sizeof *owned);
  bool *is_spa = calloc(n ? n : 1, sizeof *is_spa);
  int ret = 1;
  if (!wit || !owned || !is_spa) {
    rep->status = SEALPROV_ERR_NO_MEMORY;
    snprintf(rep->detail, sizeof rep->detail, "out of memory");
    goto out;
  }
  double t0 = sp_cli_now_ms();
  if (progress) sp_cli_note("loading the parameters %s and the constraint system %s", params, r1cs);
  int rc = vt->srs_load(h->p, params, &srs);
  if (rc == SEALPROV_OK) {
    rep->stage = G16_STAGE_SUBMIT; /* the parameters are in: a failure is the system's */
    rc = vt->cs_load(h->p, r1cs, &cs);
  }
  rep->load_ms = sp_cli_now_ms() - t0;
  if (rc == SEALPROV_OK) g16_params_memory(h, params, rep);
  sealprov_cs_info info = {.struct_size = sizeof info};
  if (rc == SEALPROV_OK) rc = vt->cs_info(cs, &info);
  if (rc != SEALPROV_OK) {
    rep->status = rc;
    snprintf(rep->detail, sizeof rep->detail, "%s", vt->last_error());
    goto out;
  }
  rep->stage = G16_STAGE_SUBMIT;
  for (size_t i = 0; i < n; i++) {
    rc = read_witness(files[i], info.inp_size, info.aux_size, &wit[i], &owned[i], &is_spa[i],
                      rep->detail, sizeof rep->detail);
    if (rc != SEALPROV_OK) {
      rep->status = rc;
      goto out;
    }
  }
  g16_job_in in = {.srs = srs,
                   .cs = cs,
                   .parts = wit,
                   .n = n,
                   .zero_rs = zero_rs,
                   .proofs = proofs,
                   .noun = "witness-only partition"};
  ret = g16_run_job(h, &in, progress, false, rep);
out:
  for (size_t i = 0; owned && i < n; i++)
    if (owned[i]) free_witness(owned[i], is_spa[i]);
  free(owned);
  free(is_spa);
  free(wit);
  if (cs) vt->cs_release(cs);
  if (srs) vt->srs_release(srs);
  return ret;
}
