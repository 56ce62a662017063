/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* checks.c -- the checks before a partition is proved: sizes and densities against the
 * parameters (at submit), and the cheap input checks before device time (design.md
 * rule 9): input 0 is ONE, every scalar below r, a[i] b[i] = c[i] on every row. */
#include <config.h>

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "groth16/groth16.h"

/* ---- checks ------------------------------------------------------------------- */

int sp_groth16_check_assignment(const sp_srs *srs, const sealprov_assignment *asg, char *err,
                                size_t errlen) {
  if (!srs || !asg) {
    sp_set_err(err, errlen, "NULL %s", !srs ? "parameters" : "assignment");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const char *file = srs->path ? srs->path : "(unnamed)";
  if (srs->vk_only) {
    sp_set_err(err, errlen, "parameter set %s is a verifying key only; it cannot prove", file);
    return SEALPROV_ERR_PARAMS;
  }
  uint64_t domain = (uint64_t)srs->h_len + 1;
  if (srs->log_domain < 1 || srs->log_domain > SP_NTT_MAX_LOG) {
    sp_set_err(err, errlen, "domain 2^%u of parameter file %s is outside the NTT range 2^1..2^%u",
               srs->log_domain, file, SP_NTT_MAX_LOG);
    return SEALPROV_ERR_UNSUPPORTED;
  }
  if (asg->abc_size == 0 || asg->abc_size > domain) {
    sp_set_err(err, errlen,
               "abc_size %llu does not fit parameter file domain %llu (h_len %zu) (file %s)",
               (unsigned long long)asg->abc_size, (unsigned long long)domain, srs->h_len, file);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  if (asg->inp_size != srs->vk.ic_len) {
    sp_set_err(err, errlen, "inp_size %llu does not match parameter file ic_len %zu (file %s)",
               (unsigned long long)asg->inp_size, srs->vk.ic_len, file);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  if (asg->aux_size != srs->l_len) {
    sp_set_err(err, errlen, "aux_size %llu does not match parameter file l_len %zu (file %s)",
               (unsigned long long)asg->aux_size, srs->l_len, file);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  struct {
    const char *name;
    const void *ptr;
    uint64_t len;
  } vecs[] = {
      {"a", asg->a, asg->abc_size},
      {"b", asg->b, asg->abc_size},
      {"c", asg->c, asg->abc_size},
      {"inp_assignment", asg->inp_assignment, asg->inp_size},
      {"aux_assignment", asg->aux_assignment, asg->aux_size},
      {"a_aux_density", asg->a_aux_density, asg->a_aux_bit_len},
      {"b_inp_density", asg->b_inp_density, asg->b_inp_bit_len},
      {"b_aux_density", asg->b_aux_density, asg->b_aux_bit_len},
  };
  for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
    if (vecs[i].len && !vecs[i].ptr) {
      sp_set_err(err, errlen, "%s is NULL but its length is %llu", vecs[i].name,
                 (unsigned long long)vecs[i].len);
      return SEALPROV_ERR_INVALID_ARGUMENT;
    }
  struct {
    const char *name;
    const uint64_t *bits;
    uint64_t bit_len, popcount, want_len;
    const char *want_name;
  } dens[] = {
      {"a_aux", asg->a_aux_density, asg->a_aux_bit_len, asg->a_aux_popcount, asg->aux_size,
       "aux_size"},
      {"b_inp", asg->b_inp_density, asg->b_inp_bit_len, asg->b_inp_popcount, asg->inp_size,
       "inp_size"},
      {"b_aux", asg->b_aux_density, asg->b_aux_bit_len, asg->b_aux_popcount, asg->aux_size,
       "aux_size"},
  };
  for (size_t i = 0; i < 3; i++) {
    if (dens[i].bit_len != dens[i].want_len) {
      sp_set_err(err, errlen, "%s_bit_len %llu does not match %s %llu", dens[i].name,
                 (unsigned long long)dens[i].bit_len, dens[i].want_name,
                 (unsigned long long)dens[i].want_len);
      return SEALPROV_ERR_ASSIGNMENT;
    }
    bool stray = false;
    uint64_t pc = dens[i].bit_len ? sp_bitmap_popcount(dens[i].bits, dens[i].bit_len, &stray) : 0;
    if (stray) {
      sp_set_err(err, errlen, "%s_density has bits set past %s_bit_len %llu", dens[i].name,
                 dens[i].name, (unsigned long long)dens[i].bit_len);
      return SEALPROV_ERR_ASSIGNMENT;
    }
    if (pc != dens[i].popcount) {
      sp_set_err(err, errlen, "%s_popcount %llu does not match the %llu bits set in %s_density",
                 dens[i].name, (unsigned long long)dens[i].popcount, (unsigned long long)pc,
                 dens[i].name);
      return SEALPROV_ERR_ASSIGNMENT;
    }
  }
  uint64_t a_want = asg->inp_size + asg->a_aux_popcount;
  if (a_want != srs->a_len) {
    sp_set_err(err, errlen,
               "inp_size %llu + a_aux_popcount %llu = %llu does not match parameter file a_len %zu "
               "(file %s)",
               (unsigned long long)asg->inp_size, (unsigned long long)asg->a_aux_popcount,
               (unsigned long long)a_want, srs->a_len, file);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  uint64_t b_want = asg->b_inp_popcount + asg->b_aux_popcount;
  if (b_want != srs->b_g1_len || b_want != srs->b_g2_len) {
    sp_set_err(err, errlen,
               "b_inp_popcount %llu + b_aux_popcount %llu = %llu does not match parameter file "
               "%s %zu (file %s)",
               (unsigned long long)asg->b_inp_popcount, (unsigned long long)asg->b_aux_popcount,
               (unsigned long long)b_want, b_want != srs->b_g1_len ? "b_g1_len" : "b_g2_len",
               b_want != srs->b_g1_len ? srs->b_g1_len : srs->b_g2_len, file);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  return SEALPROV_OK;
}

/* ---- input checks before device time ---------------------------------------------- */

typedef struct rows_ctx {
  const uint8_t *a, *b, *c;
  uint32_t enc;
  /* lowest failing row (so the message does not depend on the thread count) */
  _Atomic uint64_t first_bad;
} rows_ctx;

static void rows_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  rows_ctx *x = vctx;
  for (size_t i = begin; i < end; i++) {
    if ((uint64_t)i >= atomic_load_explicit(&x->first_bad, memory_order_relaxed)) return;
    fr_t a, b, c, ab;
    bool ok = sp_scalar_decode(&a, x->a + 32 * i, x->enc) &&
              sp_scalar_decode(&b, x->b + 32 * i, x->enc) &&
              sp_scalar_decode(&c, x->c + 32 * i, x->enc);
    if (ok) {
      fr_mul(&ab, &a, &b);
      ok = fr_eq(&ab, &c);
    }
    if (!ok) {
      sp_note_first_bad(&x->first_bad, i);
      return;
    }
  }
}

static void hex32(char out[65], const uint8_t *p) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++) { /* most significant byte first */
    out[2 * i] = digits[p[31 - i] >> 4];
    out[2 * i + 1] = digits[p[31 - i] & 15];
  }
  out[64] = '\0';
}

int sp_groth16_check_inputs(const sealprov_assignment *asg, uint32_t enc, char *err,
                            size_t errlen) {
  if (!asg) {
    sp_set_err(err, errlen, "NULL assignment");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (enc != SEALPROV_SCALAR_CANONICAL_LE && enc != SEALPROV_SCALAR_MONTGOMERY) {
    sp_set_err(err, errlen, "scalar_encoding %u is neither canonical (0) nor Montgomery (1)", enc);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (asg->inp_size == 0 || !asg->inp_assignment) {
    sp_set_err(err, errlen, "inp_size is 0: input 0 must be ONE");
    return SEALPROV_ERR_ASSIGNMENT;
  }
  const uint8_t *inp = asg->inp_assignment;
  for (uint64_t i = 0; i < asg->inp_size; i++) {
    fr_t v;
    if (!sp_scalar_decode(&v, inp + 32 * i, enc)) {
      char hex[65];
      hex32(hex, inp + 32 * i);
      sp_set_err(err, errlen, "inp_assignment[%" PRIu64 "] = 0x%s (%s) is not a scalar below r", i,
                 hex, enc == SEALPROV_SCALAR_MONTGOMERY ? "Montgomery limbs" : "little-endian");
      return SEALPROV_ERR_ASSIGNMENT;
    }
    if (i == 0 && !fr_is_one(&v)) {
      char hex[65];
      hex32(hex, inp);
      sp_set_err(err, errlen,
                 "inp_assignment[0] = 0x%s (%s) is not ONE: input 0 of every Groth16 assignment "
                 "must be the constant 1",
                 hex, enc == SEALPROV_SCALAR_MONTGOMERY ? "Montgomery limbs" : "little-endian");
      return SEALPROV_ERR_ASSIGNMENT;
    }
  }
  return SEALPROV_OK;
}

int sp_groth16_check_rows(const sealprov_assignment *asg, uint32_t enc, unsigned nthreads,
                          char *err, size_t errlen) {
  int rc = sp_groth16_check_inputs(asg, enc, err, errlen);
  if (rc) return rc;
  uint64_t n = asg->abc_size;
  if (n == 0) return SEALPROV_OK;
  if (!asg->a || !asg->b || !asg->c) {
    sp_set_err(err, errlen, "abc_size is %" PRIu64 " but %s is NULL", n,
               !asg->a   ? "a"
               : !asg->b ? "b"
                         : "c");
    return SEALPROV_ERR_ASSIGNMENT;
  }
  rows_ctx x = {.a = asg->a, .b = asg->b, .c = asg->c, .enc = enc};
  atomic_init(&x.first_bad, UINT64_MAX);
  bls_parallel_for((size_t)n, nthreads ? nthreads : 1, rows_range, &x);
  uint64_t bad = atomic_load(&x.first_bad);
  if (bad == UINT64_MAX) return SEALPROV_OK;
  fr_t a, b, c;
  const char *which = !sp_scalar_decode(&a, x.a + 32 * bad, enc)   ? "a"
                      : !sp_scalar_decode(&b, x.b + 32 * bad, enc) ? "b"
                      : !sp_scalar_decode(&c, x.c + 32 * bad, enc) ? "c"
                                                                   : NULL;
  if (which) {
    sp_set_err(err, errlen,
               "%s[%" PRIu64 "] is not a scalar below r (first bad row of %" PRIu64 ")", which, bad,
               n);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  sp_set_err(err, errlen,
             "a[%" PRIu64 "] * b[%" PRIu64 "] != c[%" PRIu64 "]: row %" PRIu64 " of %" PRIu64
             " is the first constraint the witness does not satisfy",
             bad, bad, bad, bad, n);
  return SEALPROV_ERR_ASSIGNMENT;
}
