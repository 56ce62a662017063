/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* prove.c -- one Groth16 partition on the CPU: scalars, H, the MSMs, assembly. The
 * checks before proving are checks.c's, verification verify.c's. See groth16.h for the
 * math and the conventions (bellperson's). */
#include "base/util.h"
#include "groth16/groth16.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- scalars ------------------------------------------------------------------ */

/* true if the canonical limbs are < r. */
static bool limbs_below_r(const uint64_t l[4]) {
  for (int i = 3; i >= 0; i--) {
    if (l[i] < BLS_R[i]) return true;
    if (l[i] > BLS_R[i]) return false;
  }
  return false; /* equal to r */
}

bool sp_scalar_decode(fr_t *out, const void *in32, uint32_t scalar_encoding) {
  const uint8_t *p = in32;
  uint64_t l[4];
  for (int i = 0; i < 4; i++) l[i] = sp_le64(p + 8 * i);
  switch (scalar_encoding) {
    case SEALPROV_SCALAR_CANONICAL_LE: return fr_from_canonical(out, l);
    case SEALPROV_SCALAR_MONTGOMERY: return fr_from_blst_mont(out, l);
    default: return false;
  }
}

/* Plain (canonical) value of a scalar, as Pippenger needs it. Canonical input is a
 * range-checked copy; Montgomery input goes through one Montgomery reduction. */
static bool scalar_decode_plain(scalar_t *out, const uint8_t *p, uint32_t enc) {
  if (enc == SEALPROV_SCALAR_CANONICAL_LE) {
    for (int i = 0; i < 4; i++) out->l[i] = sp_le64(p + 8 * i);
    return limbs_below_r(out->l);
  }
  fr_t f;
  if (!sp_scalar_decode(&f, p, enc)) return false;
  fr_to_scalar(out, &f);
  return true;
}

static bool scalar_is_one(const scalar_t *s) {
  return s->l[0] == 1 && (s->l[1] | s->l[2] | s->l[3]) == 0;
}

static bool bit_is_set(const uint64_t *bitmap, uint64_t j) {
  return (bitmap[j / 64] >> (j % 64)) & 1u;
}

/* ---- parallel scalar conversion ------------------------------------------------- */

/* Converts n 32-byte scalars to Montgomery (to_mont) or to plain scalars, in parallel;
 * the lowest failing index is reported (deterministic whatever the thread count). */
typedef struct convert_ctx {
  const uint8_t *in;
  void *out;
  bool to_mont;
  uint32_t enc;
  _Atomic uint64_t first_bad;
} convert_ctx;

static void convert_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  convert_ctx *c = vctx;
  for (size_t i = begin; i < end; i++) {
    bool ok = c->to_mont ? sp_scalar_decode((fr_t *)c->out + i, c->in + 32 * i, c->enc)
                         : scalar_decode_plain((scalar_t *)c->out + i, c->in + 32 * i, c->enc);
    if (!ok) {
      sp_note_first_bad(&c->first_bad, i);
      return; /* later indices of this chunk cannot be lower */
    }
  }
}

/* Returns OK, NO_MEMORY or ASSIGNMENT (message names the vector and index). */
static int convert_scalars(void *out, const void *in, size_t n, bool to_mont, uint32_t enc,
                           unsigned nthreads, const char *what, char *err, size_t errlen) {
  if (n == 0) return SEALPROV_OK;
  convert_ctx c = {.in = in, .out = out, .to_mont = to_mont, .enc = enc};
  atomic_init(&c.first_bad, UINT64_MAX);
  if (!bls_parallel_for(n, nthreads, convert_range, &c)) {
    sp_set_err(err, errlen, "out of memory starting threads to decode %s", what);
    return SEALPROV_ERR_NO_MEMORY;
  }
  uint64_t bad = atomic_load(&c.first_bad);
  if (bad != UINT64_MAX) {
    sp_set_err(err, errlen, "%s[%llu] is not a valid %s scalar (value >= r)", what,
               (unsigned long long)bad,
               enc == SEALPROV_SCALAR_MONTGOMERY ? "Montgomery" : "canonical little-endian");
    return SEALPROV_ERR_ASSIGNMENT;
  }
  return SEALPROV_OK;
}

/* ---- H ------------------------------------------------------------------------ */

typedef struct pointwise_ctx {
  fr_t *a;
  const fr_t *b, *c;
  fr_t zinv;
} pointwise_ctx;

static void pointwise_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  pointwise_ctx *p = vctx;
  for (size_t i = begin; i < end; i++) {
    fr_t t;
    fr_mul(&t, &p->a[i], &p->b[i]);
    fr_sub(&t, &t, &p->c[i]);
    fr_mul(&p->a[i], &t, &p->zinv);
  }
}

typedef struct to_scalar_ctx {
  const fr_t *in;
  scalar_t *out;
} to_scalar_ctx;

static void to_scalar_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  to_scalar_ctx *t = vctx;
  for (size_t i = begin; i < end; i++) fr_to_scalar(&t->out[i], &t->in[i]);
}

/* Computes the m-1 coefficients of h(x) = (a(x) b(x) - c(x)) / (x^m - 1) as plain
 * scalars into *hs_out (malloc'd, m-1 entries). */
static int compute_h(const sp_srs *srs, const sealprov_assignment *asg, uint32_t enc,
                     unsigned nthreads, scalar_t **hs_out, double *convert_ms, char *err,
                     size_t errlen) {
  unsigned log_m = srs->log_domain;
  size_t m = (size_t)1 << log_m, n = (size_t)asg->abc_size;
  int rc = SEALPROV_OK;
  fr_t *v[3] = {0};
  scalar_t *hs = NULL;
  const void *src[3] = {asg->a, asg->b, asg->c};
  static const char *names[3] = {"a", "b", "c"};
  double t0 = sp_now_ms();
  for (int k = 0; k < 3; k++) {
    v[k] = malloc(m * sizeof(fr_t));
    if (!v[k]) {
      sp_set_err(err, errlen, "out of memory for %s (%zu scalars)", names[k], m);
      rc = SEALPROV_ERR_NO_MEMORY;
      goto out;
    }
    rc = convert_scalars(v[k], src[k], n, true, enc, nthreads, names[k], err, errlen);
    if (rc) goto out;
    /* bellperson pads the evaluations with zeros up to the domain size */
    memset(v[k] + n, 0, (m - n) * sizeof(fr_t));
  }
  *convert_ms += sp_now_ms() - t0;
  for (int k = 0; k < 3; k++)
    if (!ntt_inverse(v[k], log_m, nthreads) || !ntt_coset_forward(v[k], log_m, nthreads)) {
      sp_set_err(err, errlen, "out of memory in the NTT of %s (2^%u points)", names[k], log_m);
      rc = SEALPROV_ERR_NO_MEMORY;
      goto out;
    }
  /* Z(x) = x^m - 1 takes the single value g^m - 1 on the coset g * <omega>. */
  pointwise_ctx pw = {.a = v[0], .b = v[1], .c = v[2]};
  fr_t g, zv;
  fr_coset_generator(&g);
  fr_pow_u64(&zv, &g, (uint64_t)m);
  fr_sub(&zv, &zv, &FR_ONE);
  fr_inv(&pw.zinv, &zv);
  if (!bls_parallel_for(m, nthreads, pointwise_range, &pw)) {
    sp_set_err(err, errlen, "out of memory starting threads for a*b-c");
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  free(v[1]);
  free(v[2]);
  v[1] = v[2] = NULL;
  if (!ntt_coset_inverse(v[0], log_m, nthreads)) {
    sp_set_err(err, errlen, "out of memory in the inverse coset NTT (2^%u points)", log_m);
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  hs = malloc((m - 1) * sizeof(scalar_t) + 1);
  if (!hs) {
    sp_set_err(err, errlen, "out of memory for the h scalars (%zu)", m - 1);
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  to_scalar_ctx ts = {.in = v[0], .out = hs};
  if (!bls_parallel_for(m - 1, nthreads, to_scalar_range, &ts)) {
    sp_set_err(err, errlen, "out of memory starting threads for the h scalars");
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  *hs_out = hs;
  hs = NULL;
out:
  for (int k = 0; k < 3; k++) free(v[k]);
  free(hs);
  return rc;
}

/* ---- MSM with the 0 / 1 / rest split --------------------------------------------- */

/* Moves the scalars equal to 1 into a bitmap (their scalar becomes 0, which Pippenger
 * skips): in sealing circuits most aux values are bits, so most points are simply
 * added. Returns NULL on allocation failure. */
static uint64_t *split_ones(scalar_t *scalars, size_t n) {
  uint64_t *ones = calloc(n / 64 + 1, sizeof(uint64_t));
  if (!ones) return NULL;
  for (size_t i = 0; i < n; i++)
    if (scalar_is_one(&scalars[i])) {
      ones[i / 64] |= UINT64_C(1) << (i % 64);
      memset(&scalars[i], 0, sizeof scalars[i]);
    }
  return ones;
}

static bool msm_g1_split(g1_jac_t *out, const g1_affine_t *points, scalar_t *scalars, size_t n,
                         unsigned nthreads) {
  g1_jac_set_inf(out);
  if (n == 0) return true;
  uint64_t *ones = split_ones(scalars, n);
  if (!ones) return false;
  g1_jac_t sum_ones;
  bool ok = batch_add_g1(&sum_ones, points, ones, n, nthreads) &&
            msm_g1(out, points, scalars, n, nthreads);
  if (ok) g1_jac_add(out, out, &sum_ones);
  free(ones);
  return ok;
}

/* ---- proving -------------------------------------------------------------------- */

/* Bellperson's order of terms; the group law makes the order irrelevant. */
void sp_groth16_assemble(const sp_srs *srs, const fr_t *r, const fr_t *s, const g1_jac_t *h_acc,
                         const g1_jac_t *l_acc, const g1_jac_t *a_acc, const g1_jac_t *b1_acc,
                         const g2_jac_t *b2_acc, uint8_t proof[192]) {
  scalar_t rk, sk, rsk;
  fr_t rs;
  fr_mul(&rs, r, s);
  fr_to_scalar(&rk, r);
  fr_to_scalar(&sk, s);
  fr_to_scalar(&rsk, &rs);
  const sp_vk *vk = &srs->vk;
  g1_jac_t alpha1, beta1, delta1, ga, gc, tmp;
  g2_jac_t beta2, delta2, gb;
  g1_jac_from_affine(&alpha1, &vk->alpha_g1);
  g1_jac_from_affine(&beta1, &vk->beta_g1);
  g1_jac_from_affine(&delta1, &vk->delta_g1);
  g2_jac_from_affine(&beta2, &vk->beta_g2);
  g2_jac_from_affine(&delta2, &vk->delta_g2);
  /* A = alpha1 + a_msm + r delta1 */
  g1_jac_mul(&ga, &delta1, &rk);
  g1_jac_add(&ga, &ga, &alpha1);
  g1_jac_add(&ga, &ga, a_acc);
  /* B = beta2 + b2_msm + s delta2 */
  g2_jac_mul(&gb, &delta2, &sk);
  g2_jac_add(&gb, &gb, &beta2);
  g2_jac_add(&gb, &gb, b2_acc);
  /* C = rs delta1 + s alpha1 + r beta1 + s a_msm + r b1_msm + H + L */
  g1_jac_mul(&gc, &delta1, &rsk);
  g1_jac_mul(&tmp, &alpha1, &sk);
  g1_jac_add(&gc, &gc, &tmp);
  g1_jac_mul(&tmp, &beta1, &rk);
  g1_jac_add(&gc, &gc, &tmp);
  g1_jac_mul(&tmp, a_acc, &sk);
  g1_jac_add(&gc, &gc, &tmp);
  g1_jac_mul(&tmp, b1_acc, &rk);
  g1_jac_add(&gc, &gc, &tmp);
  g1_jac_add(&gc, &gc, h_acc);
  g1_jac_add(&gc, &gc, l_acc);
  g1_affine_t pa, pc;
  g2_affine_t pb;
  g1_jac_to_affine(&pa, &ga);
  g2_jac_to_affine(&pb, &gb);
  g1_jac_to_affine(&pc, &gc);
  g1_compress(proof, &pa);
  g2_compress(proof + 48, &pb);
  g1_compress(proof + 144, &pc);
}

/* What sp_groth16_prove refuses before any work: NULL buffers, an unknown scalar
 * encoding, a set with no host copy, an assignment that does not fit the set. */
static int check_prove_args(const sp_srs *srs, const sealprov_assignment *asg, uint32_t enc,
                            const fr_t *r, const fr_t *s, const uint8_t *proof, char *err,
                            size_t errlen) {
  if (!proof || !r || !s) {
    sp_set_err(err, errlen, "NULL %s", !proof ? "proof buffer" : "r or s");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (enc != SEALPROV_SCALAR_CANONICAL_LE && enc != SEALPROV_SCALAR_MONTGOMERY) {
    sp_set_err(err, errlen, "scalar_encoding %u is neither canonical (0) nor Montgomery (1)", enc);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (srs != NULL && srs->device_only) {
    /* loaded straight onto the GPUs (params_residency = auto): no host copy to prove
     * with here, whatever the assignment. module.c's submit refuses such jobs for CPU
     * devices first. */
    sp_set_err(err, errlen,
               "parameter set %s has no host copy of its proving vectors (loaded onto the GPUs "
               "only): the CPU prover cannot use it; load it with params_residency = host",
               srs->path ? srs->path : "(unnamed)");
    return SEALPROV_ERR_PARAMS;
  }
  return sp_groth16_check_assignment(srs, asg, err, errlen);
}

static int prove_oom(const sp_srs *srs, size_t naux, char *err, size_t errlen) {
  sp_set_err(err, errlen, "out of memory while proving (domain 2^%u, %zu aux)", srs->log_domain,
             naux);
  return SEALPROV_ERR_NO_MEMORY;
}

/* The scalars of the MSMs after H: the inputs and aux as plain scalars, then A's and
 * B's in density order (one per point of the set's A and B vectors). */
typedef struct prove_scalars {
  scalar_t *inp, *aux, *as, *bs;
  size_t ninp, naux, na, nb;
} prove_scalars;

static void prove_scalars_free(prove_scalars *v) {
  free(v->inp);
  free(v->aux);
  free(v->as);
  free(v->bs);
}

static int prove_scalars_make(prove_scalars *v, const sp_srs *srs, const sealprov_assignment *asg,
                              uint32_t enc, unsigned nthreads, char *err, size_t errlen) {
  size_t ninp = v->ninp = (size_t)asg->inp_size, naux = v->naux = (size_t)asg->aux_size;
  v->inp = malloc(ninp * sizeof(scalar_t) + 1);
  v->aux = malloc(naux * sizeof(scalar_t) + 1);
  v->as = malloc(srs->a_len * sizeof(scalar_t) + 1);
  v->bs = malloc(srs->b_g1_len * sizeof(scalar_t) + 1);
  if (!v->inp || !v->aux || !v->as || !v->bs) return prove_oom(srs, naux, err, errlen);
  SP_TRY(convert_scalars(v->inp, asg->inp_assignment, ninp, false, enc, nthreads, "inp_assignment",
                         err, errlen));
  SP_TRY(convert_scalars(v->aux, asg->aux_assignment, naux, false, enc, nthreads, "aux_assignment",
                         err, errlen));
  size_t na = 0, nb = 0;
  /* bellperson never tracks input density for A: every input has a point in A. */
  memcpy(v->as, v->inp, ninp * sizeof(scalar_t));
  na = ninp;
  for (size_t j = 0; j < naux; j++)
    if (bit_is_set(asg->a_aux_density, j)) v->as[na++] = v->aux[j];
  for (size_t i = 0; i < ninp; i++)
    if (bit_is_set(asg->b_inp_density, i)) v->bs[nb++] = v->inp[i];
  for (size_t j = 0; j < naux; j++)
    if (bit_is_set(asg->b_aux_density, j)) v->bs[nb++] = v->aux[j];
  v->na = na;
  v->nb = nb;
  /* check_assignment matched the popcounts to the bitmaps and the vector lengths */
  if (na != srs->a_len || nb != srs->b_g1_len) {
    sp_set_err(err, errlen,
               "internal: density filtering gave %zu A / %zu B scalars, want %zu / %zu", na, nb,
               srs->a_len, srs->b_g1_len);
    return SEALPROV_ERR_INTERNAL;
  }
  return SEALPROV_OK;
}

/* B in both groups: one split of its scalars into ones (added) and the rest (Pippenger)
 * serves G1 and G2. False when out of memory. */
static bool msm_b(const sp_srs *srs, scalar_t *bs, size_t nb, unsigned nthreads, g1_jac_t *b1_acc,
                  g2_jac_t *b2_acc, sp_prove_timings *tm) {
  double t0 = sp_now_ms();
  uint64_t *b_ones = split_ones(bs, nb);
  if (!b_ones) return false;
  bool ok = false;
  g1_jac_t t1;
  g2_jac_t t2;
  if (!batch_add_g1(&t1, srs->b_g1, b_ones, nb, nthreads) ||
      !msm_g1(b1_acc, srs->b_g1, bs, nb, nthreads))
    goto out;
  g1_jac_add(b1_acc, b1_acc, &t1);
  tm->b_g1_msm_ms = sp_now_ms() - t0;
  t0 = sp_now_ms();
  if (!batch_add_g2(&t2, srs->b_g2, b_ones, nb, nthreads) ||
      !msm_g2(b2_acc, srs->b_g2, bs, nb, nthreads))
    goto out;
  g2_jac_add(b2_acc, b2_acc, &t2);
  tm->b_g2_msm_ms = sp_now_ms() - t0;
  ok = true;
out:
  free(b_ones);
  return ok;
}

int sp_groth16_prove(const sp_srs *srs, const sealprov_assignment *asg, uint32_t enc, const fr_t *r,
                     const fr_t *s, unsigned nthreads, uint8_t proof[192], char *err,
                     size_t errlen) {
  return sp_groth16_prove_timed(srs, asg, enc, r, s, nthreads, proof, NULL, err, errlen);
}

int sp_groth16_prove_timed(const sp_srs *srs, const sealprov_assignment *asg, uint32_t enc,
                           const fr_t *r, const fr_t *s, unsigned nthreads, uint8_t proof[192],
                           sp_prove_timings *stages, char *err, size_t errlen) {
  int rc = check_prove_args(srs, asg, enc, r, s, proof, err, errlen);
  if (rc) return rc;
  if (nthreads == 0) nthreads = 1;

  sp_prove_timings tm = {0};
  double t_start = sp_now_ms(), t0;
  scalar_t *hs = NULL;
  prove_scalars v = {0};
  size_t naux = (size_t)asg->aux_size;

  /* H first: its three m-sized vectors are freed before the other scalars exist. */
  t0 = sp_now_ms();
  double conv_ms = 0;
  rc = compute_h(srs, asg, enc, nthreads, &hs, &conv_ms, err, errlen);
  if (rc) goto out;
  tm.convert_ms += conv_ms;
  tm.ntt_ms = sp_now_ms() - t0 - conv_ms;

  g1_jac_t h_acc, l_acc, a_acc, b1_acc;
  g2_jac_t b2_acc;
  t0 = sp_now_ms();
  if (!msm_g1(&h_acc, srs->h, hs, srs->h_len, nthreads)) goto oom;
  free(hs);
  hs = NULL;
  tm.h_msm_ms = sp_now_ms() - t0;

  t0 = sp_now_ms();
  rc = prove_scalars_make(&v, srs, asg, enc, nthreads, err, errlen);
  if (rc) goto out;
  tm.convert_ms += sp_now_ms() - t0;

  t0 = sp_now_ms();
  if (!msm_g1_split(&l_acc, srs->l, v.aux, v.naux, nthreads)) goto oom;
  tm.l_msm_ms = sp_now_ms() - t0;
  t0 = sp_now_ms();
  if (!msm_g1_split(&a_acc, srs->a, v.as, v.na, nthreads)) goto oom;
  tm.a_msm_ms = sp_now_ms() - t0;
  if (!msm_b(srs, v.bs, v.nb, nthreads, &b1_acc, &b2_acc, &tm)) goto oom;

  t0 = sp_now_ms();
  sp_groth16_assemble(srs, r, s, &h_acc, &l_acc, &a_acc, &b1_acc, &b2_acc, proof);
  tm.assemble_ms = sp_now_ms() - t0;
  tm.total_ms = sp_now_ms() - t_start;
  if (stages) *stages = tm;
  rc = SEALPROV_OK;
  goto out;

oom:
  rc = prove_oom(srs, naux, err, errlen);
out:
  free(hs);
  prove_scalars_free(&v);
  return rc;
}
