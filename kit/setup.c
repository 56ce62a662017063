/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* setup.c -- `sealprov setup` in the kit: a circuit, its INSECURE parameters and the
 * partition files of a setup directory, and a circuit's circom .r1cs. See circuit.h. */
#include "base/util.h"
#include "circuit.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bls12_381/bls12_381.h"
#include "circuit_internal.h"
#include "spa.h"

/* ---- sealprov setup ------------------------------------------------------------- */

void sp_partition_name(char *buf, size_t len, uint32_t p, uint32_t nparts) {
  int digits = 0;
  for (uint32_t n = nparts > 1 ? nparts - 1 : 0; n; n /= 10) digits++;
  /* a uint32_t has at most 10 digits; bounded so the compiler can see it */
  digits = digits < 2 ? 2 : digits > 10 ? 10 : digits;
  snprintf(buf, len, "partition-%0*u.spa", digits, p);
}

int sp_setup_run(const sp_setup_opts *o, sp_setup_result *res, char *err, size_t errlen) {
  memset(res, 0, sizeof *res);
  if (!o->out_dir || o->partitions == 0) {
    sp_set_err(err, errlen, "setup needs an output directory and at least one partition");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  double t0 = sp_now_ms();
  sp_circuit *c = NULL;
  int rc = sp_circuit_generate(o->constraints, o->inputs, o->shape, o->seed, &c, err, errlen);
  if (rc) return rc;
  sp_circuit_info_get(c, &res->info);
  res->circuit_ms = sp_now_ms() - t0;

  size_t dl = strlen(o->out_dir) + 64;
  char *pp = malloc(dl), *vp = malloc(dl);
  if (!pp || !vp) {
    sp_set_err(err, errlen, "out of memory");
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  snprintf(pp, dl, "%s/circuit.params", o->out_dir);
  snprintf(vp, dl, "%s/circuit.vk", o->out_dir);
  t0 = sp_now_ms();
  rc = sp_circuit_write_params_progress(c, o->seed, o->nthreads, o->fixed_base, o->progress, pp, vp,
                                        err, errlen);
  if (rc) goto out;
  res->params_ms = sp_now_ms() - t0;
  t0 = sp_now_ms();
  for (uint32_t p = 0; p < o->partitions; p++) {
    sp_witness *wt = NULL;
    /* a distinct witness stream per partition */
    rc = sp_circuit_witness(
        c, o->seed ^ (UINT64_C(0x5EA1) << 32) ^ ((uint64_t)p + 1) * UINT64_C(0x9E3779B97F4A7C15),
        &wt, err, errlen);
    if (rc) goto out;
    char name[64];
    sp_partition_name(name, sizeof name, p, o->partitions);
    snprintf(pp, dl, "%s/%s", o->out_dir, name);
    rc = sp_spa_write(pp, &wt->asg, err, errlen);
    sp_witness_free(wt);
    if (rc) goto out;
    if (o->progress && o->progress->fn)
      o->progress->fn(o->progress->user, "partitions", (double)p + 1, (double)o->partitions);
  }
  res->partitions_ms = sp_now_ms() - t0;
out:
  free(pp);
  free(vp);
  sp_circuit_free(c);
  return rc;
}

/* ---- circom .r1cs ------------------------------------------------------------------ */

static void r1cs_put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void r1cs_put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Writes one linear combination: n terms of row t plus out_var (C only). */
static bool r1cs_lc(FILE *fp, const sp_circuit *c, const term *t, unsigned n, uint32_t out_var,
                    uint32_t out_coeff) {
  uint8_t b[36];
  r1cs_put32(b, n + (out_var != NO_VAR));
  if (fwrite(b, 4, 1, fp) != 1) return false;
  for (unsigned k = 0; k <= n; k++) {
    uint32_t var = k < n ? t[k].var : out_var, co = k < n ? t[k].coeff : out_coeff;
    if (k == n && out_var == NO_VAR) break;
    r1cs_put32(b, var);
    fr_to_le32(b + 4, &c->coeffs[co]);
    if (fwrite(b, 36, 1, fp) != 1) return false;
  }
  return true;
}

int sp_circuit_write_r1cs(const sp_circuit *c, const char *path, char *err, size_t errlen) {
  static const uint8_t r_le[32] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                                   0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                                   0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
  char esc[SP_ESC_MAX];
  uint64_t nwires = c->inp_size + c->aux_size;
  if (nwires > UINT32_MAX || c->n_rows > UINT32_MAX) {
    sp_set_err(err, errlen, "%s: %llu wires / %llu constraints do not fit .r1cs's 32-bit counts",
               sp_utf8_escape(path, esc, sizeof esc), (unsigned long long)nwires,
               (unsigned long long)c->n_rows);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  uint64_t csize = 0;
  for (uint64_t i = 0; i < c->n_rows; i++) {
    const row *rw = &c->rows[i];
    csize += 12 + 36 * ((uint64_t)rw->na + rw->nb + rw->nc + (rw->out_var != NO_VAR));
  }
  char *tmp = NULL;
  FILE *fp = sp_kit_open_tmp(path, &tmp);
  if (!fp) {
    sp_set_err(err, errlen, "%s: cannot create: %s", sp_utf8_escape(path, esc, sizeof esc),
               strerror(errno));
    free(tmp);
    return SEALPROV_ERR_IO;
  }
  uint8_t h[12 + 12 + 64 + 12];
  memcpy(h, "r1cs", 4);
  r1cs_put32(h + 4, 1);
  r1cs_put32(h + 8, 3);
  r1cs_put32(h + 12, 1); /* header */
  r1cs_put64(h + 16, 64);
  r1cs_put32(h + 24, 32);
  memcpy(h + 28, r_le, 32);
  r1cs_put32(h + 60, (uint32_t)nwires);
  r1cs_put32(h + 64, 0);                           /* nPubOut */
  r1cs_put32(h + 68, (uint32_t)(c->inp_size - 1)); /* nPubIn */
  r1cs_put32(h + 72, 0);                           /* nPrvIn */
  r1cs_put64(h + 76, nwires);                      /* nLabels */
  r1cs_put32(h + 84, (uint32_t)c->n_rows);
  r1cs_put32(h + 88, 2); /* constraints */
  r1cs_put64(h + 92, csize);
  bool ok = fwrite(h, sizeof h, 1, fp) == 1;
  for (uint64_t i = 0; ok && i < c->n_rows; i++) {
    const row *rw = &c->rows[i];
    const term *t = c->terms + rw->start;
    ok = r1cs_lc(fp, c, t, rw->na, NO_VAR, 0) && r1cs_lc(fp, c, t + rw->na, rw->nb, NO_VAR, 0) &&
         r1cs_lc(fp, c, t + rw->na + rw->nb, rw->nc, rw->out_var, rw->out_coeff);
  }
  uint8_t s[12];
  r1cs_put32(s, 3); /* wire -> label: the identity */
  r1cs_put64(s + 4, 8 * nwires);
  ok = ok && fwrite(s, 12, 1, fp) == 1;
  for (uint64_t w = 0; ok && w < nwires; w++) {
    uint8_t l[8];
    r1cs_put64(l, w);
    ok = fwrite(l, 8, 1, fp) == 1;
  }
  ok = (fclose(fp) == 0) && ok;
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) {
    int e = errno;
    unlink(tmp);
    free(tmp);
    sp_set_err(err, errlen, "%s: write failed: %s", sp_utf8_escape(path, esc, sizeof esc),
               strerror(e));
    return SEALPROV_ERR_IO;
  }
  free(tmp);
  return SEALPROV_OK;
}

int sp_setup_write_r1cs(const sp_setup_opts *o, char *err, size_t errlen) {
  if (!o || !o->out_dir) {
    sp_set_err(err, errlen, "setup: no output directory for circuit.r1cs");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  sp_circuit *c = NULL;
  int rc = sp_circuit_generate(o->constraints, o->inputs, o->shape, o->seed, &c, err, errlen);
  if (rc) return rc;
  size_t dl = strlen(o->out_dir) + 32;
  char *p = malloc(dl);
  if (!p) {
    sp_circuit_free(c);
    sp_set_err(err, errlen, "out of memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  snprintf(p, dl, "%s/circuit.r1cs", o->out_dir);
  rc = sp_circuit_write_r1cs(c, p, err, errlen);
  free(p);
  sp_circuit_free(c);
  return rc;
}
