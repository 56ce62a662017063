/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cs_eval.c -- witness-only partitions (cs_eval.h): the submit-time checks against the
 * constraint system and the parameters, and the CPU sparse matrix-vector products that
 * turn a witness into a, b and c (the reference the GPU's cuda/spmv/ matches). */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/cs_eval.h"
#include "groth16/groth16.h"
#include "formats/iden3.h" /* sp_iden3_below_r */
#include "formats/srs.h"
#include "base/util.h"

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- checks at submit -------------------------------------------------------------- */

int sp_cs_check_partition(const struct sp_srs *srs, const sp_cs *cs, const sealprov_assignment *w,
                          char *err, size_t errlen) {
  if (!srs || !cs || !w) {
    sp_set_err(err, errlen, "NULL %s", !srs ? "srs" : !cs ? "cs" : "partition");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const char *set = w->a               ? "a"
                    : w->b             ? "b"
                    : w->c             ? "c"
                    : w->abc_size      ? "abc_size"
                    : w->a_aux_density ? "a_aux_density"
                    : w->b_inp_density ? "b_inp_density"
                    : w->b_aux_density ? "b_aux_density"
                                       : NULL;
  if (set) {
    sp_set_err(err, errlen,
               "%s is set, but the job names a constraint system (%s): give only inp_assignment "
               "and aux_assignment; the module computes a, b, c and the densities",
               set, cs->path);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  if (w->inp_size != cs->inp_size || w->aux_size != cs->aux_size) {
    bool inp = w->inp_size != cs->inp_size;
    sp_set_err(err, errlen,
               "%s %" PRIu64 " does not match the constraint system's %" PRIu64 " (%s: %s)",
               inp ? "inp_size" : "aux_size", inp ? w->inp_size : w->aux_size,
               inp ? cs->inp_size : cs->aux_size, cs->path,
               inp ? "ONE + public outputs + public inputs" : "wires after the public ones");
    return SEALPROV_ERR_ASSIGNMENT;
  }
  if ((w->inp_size && !w->inp_assignment) || (w->aux_size && !w->aux_assignment)) {
    sp_set_err(err, errlen, "%s is NULL", !w->inp_assignment ? "inp_assignment" : "aux_assignment");
    return SEALPROV_ERR_ASSIGNMENT;
  }
  /* The system against the parameters, with the checks of a full assignment: the
   * vectors a, b, c do not exist yet, so any non-NULL pointer stands in for them
   * (sp_groth16_check_assignment only tests their presence). */
  static const uint8_t placeholder[32];
  sealprov_assignment full = *w;
  full.a = full.b = full.c = placeholder;
  full.abc_size = cs->abc_size;
  full.a_aux_density = cs->a_aux;
  full.a_aux_bit_len = cs->aux_size;
  full.a_aux_popcount = cs->a_aux_popcount;
  full.b_inp_density = cs->b_inp;
  full.b_inp_bit_len = cs->inp_size;
  full.b_inp_popcount = cs->b_inp_popcount;
  full.b_aux_density = cs->b_aux;
  full.b_aux_bit_len = cs->aux_size;
  full.b_aux_popcount = cs->b_aux_popcount;
  char msg[320];
  int st = sp_groth16_check_assignment((const sp_srs *)srs, &full, msg, sizeof msg);
  if (st != SEALPROV_OK)
    sp_set_err(err, errlen, "constraint system %s does not fit the parameters: %s", cs->path, msg);
  return st;
}

/* ---- the sparse products ------------------------------------------------------------ */

typedef struct eval_ctx {
  const sp_cs *cs;
  const sealprov_assignment *w;
  uint32_t enc;
  fr_t *z;
  uint8_t *a, *b, *c;
  _Atomic uint64_t bad; /* first variable that did not decode, + 1 (0 = none) */
} eval_ctx;

/* The products run on the witness's raw limbs, in whichever encoding it came. A
 * Montgomery product is mont(u, v) = u v / R; with a coefficient in Montgomery form
 * (c R) and a raw witness limb vector w, mont(c R, w) = c w: the canonical value of c x
 * when w = x (canonical encoding), the Montgomery form of c x when w = x R (Montgomery
 * encoding). Additions are the same in both. So no scalar is converted on the way in
 * or out: the witness is only range-checked (< r), and a, b, c are stored as limbs in
 * the job's own encoding. */
static void store_scalar(uint8_t *out, const fr_t *v) {
  for (int i = 0; i < 4; i++) put64(out + 8 * i, v->l[i]);
}

static void decode_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  eval_ctx *x = vctx;
  uint64_t inp = x->cs->inp_size;
  for (size_t v = begin; v < end; v++) {
    const uint8_t *p = v < inp ? (const uint8_t *)x->w->inp_assignment + 32 * v
                               : (const uint8_t *)x->w->aux_assignment + 32 * (v - inp);
    if (!sp_iden3_below_r(p)) {
      uint64_t cur = atomic_load(&x->bad), want = (uint64_t)v + 1;
      while ((cur == 0 || want < cur) && !atomic_compare_exchange_weak(&x->bad, &cur, want))
        ;
      return;
    }
    for (int i = 0; i < 4; i++) x->z[v].l[i] = sp_le64(p + 8 * i);
  }
}

static void spmv_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  eval_ctx *x = vctx;
  const sp_cs *cs = x->cs;
  uint8_t *out[3] = {x->a, x->b, x->c};
  for (size_t i = begin; i < end; i++) {
    if (i >= cs->n_rows) { /* bellperson's input constraint: input_j * 0 = 0 */
      uint64_t j = i - cs->n_rows;
      store_scalar(x->a + 32 * i, &x->z[j]);
      memset(x->b + 32 * i, 0, 32);
      memset(x->c + 32 * i, 0, 32);
      continue;
    }
    for (int q = 0; q < 3; q++) {
      fr_t acc = FR_ZERO, t;
      for (uint64_t k = cs->off[3 * i + q]; k < cs->off[3 * i + q + 1]; k++) {
        const fr_t *zv = &x->z[cs->var[k]];
        if (cs->cix[k] == 0) {
          fr_add(&acc, &acc, zv);
        } else {
          fr_mul(&t, &cs->coeffs[cs->cix[k]], zv);
          fr_add(&acc, &acc, &t);
        }
      }
      store_scalar(out[q] + 32 * i, &acc);
    }
  }
}

void sp_cs_assignment_of(const sp_cs *cs, const sealprov_assignment *w, sealprov_assignment *out) {
  *out = *w;
  out->a = out->b = out->c = NULL;
  out->abc_size = cs->abc_size;
  out->a_aux_density = cs->a_aux;
  out->a_aux_bit_len = cs->aux_size;
  out->a_aux_popcount = cs->a_aux_popcount;
  out->b_inp_density = cs->b_inp;
  out->b_inp_bit_len = cs->inp_size;
  out->b_inp_popcount = cs->b_inp_popcount;
  out->b_aux_density = cs->b_aux;
  out->b_aux_bit_len = cs->aux_size;
  out->b_aux_popcount = cs->b_aux_popcount;
}

void sp_cs_eval_free(sp_cs_eval *e) {
  if (!e) return;
  free(e->abc);
  free(e);
}

int sp_cs_evaluate(const sp_cs *cs, const sealprov_assignment *w, uint32_t enc, unsigned nthreads,
                   sp_cs_eval **out, char *err, size_t errlen) {
  if (out) *out = NULL;
  if (!cs || !w || !out) {
    sp_set_err(err, errlen, "cs evaluate: NULL %s", !cs ? "cs" : !w ? "witness" : "out");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (enc != SEALPROV_SCALAR_CANONICAL_LE && enc != SEALPROV_SCALAR_MONTGOMERY) {
    sp_set_err(err, errlen,
               "scalar_encoding %" PRIu32 " is neither CANONICAL_LE (0) nor MONTGOMERY (1)", enc);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (w->inp_size != cs->inp_size || w->aux_size != cs->aux_size ||
      (w->inp_size && !w->inp_assignment) || (w->aux_size && !w->aux_assignment)) {
    sp_set_err(err, errlen,
               "witness (inp_size %" PRIu64 ", aux_size %" PRIu64
               ") does not fit constraint system %s "
               "(inp_size %" PRIu64 ", aux_size %" PRIu64 ") or a vector is NULL",
               w->inp_size, w->aux_size, cs->path, cs->inp_size, cs->aux_size);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (nthreads == 0) nthreads = 1;
  uint64_t nvars = cs->inp_size + cs->aux_size, abc = cs->abc_size;
  sp_cs_eval *e = calloc(1, sizeof *e);
  fr_t *z = malloc((nvars ? nvars : 1) * sizeof *z);
  if (e) e->abc = malloc(3 * abc * 32);
  if (!e || !z || !e->abc) {
    sp_cs_eval_free(e);
    free(z);
    sp_set_err(err, errlen, "out of memory evaluating constraint system %s (%" PRIu64 " rows)",
               cs->path, abc);
    return SEALPROV_ERR_NO_MEMORY;
  }
  eval_ctx x = {.cs = cs,
                .w = w,
                .enc = enc,
                .z = z,
                .a = e->abc,
                .b = e->abc + 32 * abc,
                .c = e->abc + 64 * abc};
  atomic_init(&x.bad, 0);
  double t0 = sp_now_ms();
  bls_parallel_for((size_t)nvars, nthreads, decode_range, &x);
  uint64_t bad = atomic_load(&x.bad);
  if (bad) {
    uint64_t v = bad - 1;
    bool inp = v < cs->inp_size;
    sp_set_err(err, errlen, "%s[%" PRIu64 "] is not a scalar below the group order r (%s encoding)",
               inp ? "inp_assignment" : "aux_assignment", inp ? v : v - cs->inp_size,
               enc == SEALPROV_SCALAR_MONTGOMERY ? "Montgomery" : "canonical");
    free(z);
    sp_cs_eval_free(e);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  double t1 = sp_now_ms();
  bls_parallel_for((size_t)abc, nthreads, spmv_range, &x);
  e->spmv_ms = sp_now_ms() - t1;
  e->decode_ms = t1 - t0;
  explicit_bzero(z, nvars * sizeof *z); /* the witness is secret */
  free(z);
  sp_cs_assignment_of(cs, w, &e->asg);
  e->asg.a = x.a;
  e->asg.b = x.b;
  e->asg.c = x.c;
  *out = e;
  return SEALPROV_OK;
}
