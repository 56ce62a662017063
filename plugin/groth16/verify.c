/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* verify.c -- Groth16 verification of a compressed proof against a verifying key (the
 * module's self-check and the vtable's verify). */
#include <config.h>

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "groth16/groth16.h"

/* ---- verification ----------------------------------------------------------------- */

static int decode_proof(const uint8_t proof[192], g1_affine_t *a, g2_affine_t *b, g1_affine_t *c,
                        char *err, size_t errlen) {
  struct {
    const char *name;
    size_t off, len;
  } parts[3] = {{"A", 0, 48}, {"B", 48, 96}, {"C", 144, 48}};
  for (int k = 0; k < 3; k++) {
    bls_err e;
    bool inf;
    if (k == 1) {
      e = g2_deserialize(b, proof + parts[k].off, parts[k].len, BLS_DECODE_SUBGROUP_CHECK);
      inf = e == BLS_OK && g2_affine_is_inf(b);
    } else {
      g1_affine_t *p = k == 0 ? a : c;
      e = g1_deserialize(p, proof + parts[k].off, parts[k].len, BLS_DECODE_SUBGROUP_CHECK);
      inf = e == BLS_OK && g1_affine_is_inf(p);
    }
    if (e != BLS_OK || inf) {
      sp_set_err(err, errlen, "proof point %s (bytes %zu..%zu) does not decode: %s", parts[k].name,
                 parts[k].off, parts[k].off + parts[k].len - 1,
                 inf ? "point at infinity" : bls_err_str(e));
      return SEALPROV_ERR_INVALID_ARGUMENT;
    }
  }
  return SEALPROV_OK;
}

int sp_groth16_verify_inputs(const sp_vk *vk, const fr_t *inputs, size_t n,
                             const uint8_t proof[192], bool *valid, char *err, size_t errlen) {
  if (valid) *valid = false;
  if (!vk || !proof || !valid || (n && !inputs)) {
    sp_set_err(err, errlen, "NULL argument to verify");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (vk->ic_len == 0 || n != vk->ic_len - 1) {
    sp_set_err(err, errlen,
               "%zu public inputs given, the verifying key expects %zu (ic_len %zu - 1)", n,
               vk->ic_len ? vk->ic_len - 1 : 0, vk->ic_len);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  g1_affine_t pa, pc, x;
  g2_affine_t pb;
  int rc = decode_proof(proof, &pa, &pb, &pc, err, errlen);
  if (rc) return rc;
  /* X = ic[0] + sum inputs[i] ic[i+1] */
  scalar_t *sc = malloc(n * sizeof(scalar_t) + 1);
  if (!sc) {
    sp_set_err(err, errlen, "out of memory for %zu verifier inputs", n);
    return SEALPROV_ERR_NO_MEMORY;
  }
  for (size_t i = 0; i < n; i++) fr_to_scalar(&sc[i], &inputs[i]);
  g1_jac_t acc;
  bool ok = msm_g1(&acc, vk->ic + 1, sc, n, 1);
  free(sc);
  if (!ok) {
    sp_set_err(err, errlen, "out of memory in the verifier's input MSM");
    return SEALPROV_ERR_NO_MEMORY;
  }
  g1_jac_add_affine(&acc, &acc, &vk->ic[0]);
  g1_jac_to_affine(&x, &acc);
  *valid = groth16_pairing_check(&vk->pvk, &pa, &pb, &pc, &x);
  return SEALPROV_OK;
}

int sp_groth16_verify(const sp_srs *srs, const sealprov_assignment *asg, uint32_t enc,
                      const uint8_t proof[192], bool *valid, char *err, size_t errlen) {
  if (valid) *valid = false;
  if (!srs || !asg || !valid) {
    sp_set_err(err, errlen, "NULL argument to verify");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (asg->inp_size == 0 || !asg->inp_assignment) {
    sp_set_err(err, errlen, "the assignment has no inputs (input 0 must be ONE)");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  size_t n = (size_t)asg->inp_size;
  fr_t *in = malloc(n * sizeof(fr_t));
  if (!in) {
    sp_set_err(err, errlen, "out of memory for %zu inputs", n);
    return SEALPROV_ERR_NO_MEMORY;
  }
  int rc = SEALPROV_OK;
  const uint8_t *p = asg->inp_assignment;
  for (size_t i = 0; i < n; i++)
    if (!sp_scalar_decode(&in[i], p + 32 * i, enc)) {
      sp_set_err(err, errlen, "inp_assignment[%zu] is not a valid scalar in encoding %u", i, enc);
      rc = SEALPROV_ERR_INVALID_ARGUMENT;
      goto out;
    }
  if (!fr_is_one(&in[0])) {
    sp_set_err(err, errlen, "inp_assignment[0] is not ONE");
    rc = SEALPROV_ERR_INVALID_ARGUMENT;
    goto out;
  }
  rc = sp_groth16_verify_inputs(&srs->vk, in + 1, n - 1, proof, valid, err, errlen);
out:
  free(in);
  return rc;
}
