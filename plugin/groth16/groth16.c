/* groth16.c -- one Groth16 partition on the CPU: checks, H, MSMs, assembly, verification.
 * See groth16.h for the math and the conventions (bellperson's). */
#include "base/util.h"
#include "groth16/groth16.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The NTT of the BLS library handles 2^1 .. 2^28 points. */
#define SP_NTT_MAX_LOG 28u



static _Thread_local sp_prove_timings last_timings;

void sp_groth16_last_timings(sp_prove_timings *out)
{
  *out = last_timings;
}

/* ---- scalars ------------------------------------------------------------------ */

static uint64_t load_le64(const uint8_t *p)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

/* true if the canonical limbs are < r. */
static bool limbs_below_r(const uint64_t l[4])
{
  for (int i = 3; i >= 0; i--) {
    if (l[i] < BLS_R[i])
      return true;
    if (l[i] > BLS_R[i])
      return false;
  }
  return false; /* equal to r */
}

bool sp_scalar_decode(fr_t *out, const void *in32, uint32_t scalar_encoding)
{
  const uint8_t *p = in32;
  uint64_t l[4];
  for (int i = 0; i < 4; i++)
    l[i] = load_le64(p + 8 * i);
  switch (scalar_encoding) {
  case SEALPROV_SCALAR_CANONICAL_LE:
    return fr_from_canonical(out, l);
  case SEALPROV_SCALAR_MONTGOMERY:
    return fr_from_blst_mont(out, l);
  default:
    return false;
  }
}

/* Plain (canonical) value of a scalar, as Pippenger needs it. Canonical input is a
 * range-checked copy; Montgomery input goes through one Montgomery reduction. */
static bool scalar_decode_plain(scalar_t *out, const uint8_t *p, uint32_t enc)
{
  if (enc == SEALPROV_SCALAR_CANONICAL_LE) {
    for (int i = 0; i < 4; i++)
      out->l[i] = load_le64(p + 8 * i);
    return limbs_below_r(out->l);
  }
  fr_t f;
  if (!sp_scalar_decode(&f, p, enc))
    return false;
  fr_to_scalar(out, &f);
  return true;
}

static bool scalar_is_one(const scalar_t *s)
{
  return s->l[0] == 1 && (s->l[1] | s->l[2] | s->l[3]) == 0;
}

uint64_t sp_bitmap_popcount(const uint64_t *bitmap, uint64_t bit_len, bool *stray)
{
  uint64_t full = bit_len / 64, rem = bit_len % 64, n = 0;
  for (uint64_t w = 0; w < full; w++)
    n += (uint64_t)__builtin_popcountll(bitmap[w]);
  bool bad = false;
  if (rem) {
    uint64_t mask = (UINT64_C(1) << rem) - 1;
    n += (uint64_t)__builtin_popcountll(bitmap[full] & mask);
    bad = (bitmap[full] & ~mask) != 0;
  }
  if (stray)
    *stray = bad;
  return n;
}

static bool bit_is_set(const uint64_t *bitmap, uint64_t j)
{
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

static void convert_range(void *vctx, size_t begin, size_t end, unsigned chunk)
{
  (void)chunk;
  convert_ctx *c = vctx;
  for (size_t i = begin; i < end; i++) {
    bool ok = c->to_mont ? sp_scalar_decode((fr_t *)c->out + i, c->in + 32 * i, c->enc)
                         : scalar_decode_plain((scalar_t *)c->out + i, c->in + 32 * i, c->enc);
    if (!ok) {
      uint64_t cur = atomic_load(&c->first_bad);
      while (i < cur && !atomic_compare_exchange_weak(&c->first_bad, &cur, (uint64_t)i))
        ;
      return; /* later indices of this chunk cannot be lower */
    }
  }
}

/* Returns OK, NO_MEMORY or ASSIGNMENT (message names the vector and index). */
static int convert_scalars(void *out, const void *in, size_t n, bool to_mont, uint32_t enc,
                           unsigned nthreads, const char *what, char *err, size_t errlen)
{
  if (n == 0)
    return SEALPROV_OK;
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

/* ---- checks ------------------------------------------------------------------- */

int sp_groth16_check_assignment(const sp_srs *srs, const sealprov_assignment *asg, char *err,
                                size_t errlen)
{
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

/* ---- H ------------------------------------------------------------------------ */

typedef struct pointwise_ctx {
  fr_t *a;
  const fr_t *b, *c;
  fr_t zinv;
} pointwise_ctx;

static void pointwise_range(void *vctx, size_t begin, size_t end, unsigned chunk)
{
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

static void to_scalar_range(void *vctx, size_t begin, size_t end, unsigned chunk)
{
  (void)chunk;
  to_scalar_ctx *t = vctx;
  for (size_t i = begin; i < end; i++)
    fr_to_scalar(&t->out[i], &t->in[i]);
}

/* Computes the m-1 coefficients of h(x) = (a(x) b(x) - c(x)) / (x^m - 1) as plain
 * scalars into *hs_out (malloc'd, m-1 entries). */
static int compute_h(const sp_srs *srs, const sealprov_assignment *asg, uint32_t enc,
                     unsigned nthreads, scalar_t **hs_out, double *convert_ms, char *err,
                     size_t errlen)
{
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
    if (rc)
      goto out;
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
  for (int k = 0; k < 3; k++)
    free(v[k]);
  free(hs);
  return rc;
}

/* ---- MSM with the 0 / 1 / rest split --------------------------------------------- */

/* Moves the scalars equal to 1 into a bitmap (their scalar becomes 0, which Pippenger
 * skips): in sealing circuits most aux values are bits, so most points are simply
 * added. Returns NULL on allocation failure. */
static uint64_t *split_ones(scalar_t *scalars, size_t n)
{
  uint64_t *ones = calloc(n / 64 + 1, sizeof(uint64_t));
  if (!ones)
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (scalar_is_one(&scalars[i])) {
      ones[i / 64] |= UINT64_C(1) << (i % 64);
      memset(&scalars[i], 0, sizeof scalars[i]);
    }
  return ones;
}

static bool msm_g1_split(g1_jac_t *out, const g1_affine_t *points, scalar_t *scalars, size_t n,
                         unsigned nthreads)
{
  g1_jac_set_inf(out);
  if (n == 0)
    return true;
  uint64_t *ones = split_ones(scalars, n);
  if (!ones)
    return false;
  g1_jac_t sum_ones;
  bool ok = batch_add_g1(&sum_ones, points, ones, n, nthreads) &&
            msm_g1(out, points, scalars, n, nthreads);
  if (ok)
    g1_jac_add(out, out, &sum_ones);
  free(ones);
  return ok;
}

/* ---- proving -------------------------------------------------------------------- */

/* Bellperson's order of terms; the group law makes the order irrelevant. */
void sp_groth16_assemble(const sp_srs *srs, const fr_t *r, const fr_t *s, const g1_jac_t *h_acc,
                         const g1_jac_t *l_acc, const g1_jac_t *a_acc, const g1_jac_t *b1_acc,
                         const g2_jac_t *b2_acc, uint8_t proof[192])
{
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

/* ---- input checks before device time ---------------------------------------------- */

typedef struct rows_ctx {
  const uint8_t *a, *b, *c;
  uint32_t enc;
  /* lowest failing row (so the message does not depend on the thread count) */
  _Atomic uint64_t first_bad;
} rows_ctx;

static void rows_range(void *vctx, size_t begin, size_t end, unsigned chunk)
{
  (void)chunk;
  rows_ctx *x = vctx;
  for (size_t i = begin; i < end; i++) {
    if ((uint64_t)i >= atomic_load_explicit(&x->first_bad, memory_order_relaxed))
      return;
    fr_t a, b, c, ab;
    bool ok = sp_scalar_decode(&a, x->a + 32 * i, x->enc) && sp_scalar_decode(&b, x->b + 32 * i, x->enc) &&
              sp_scalar_decode(&c, x->c + 32 * i, x->enc);
    if (ok) {
      fr_mul(&ab, &a, &b);
      ok = fr_eq(&ab, &c);
    }
    if (!ok) {
      uint64_t cur = atomic_load(&x->first_bad);
      while (i < cur && !atomic_compare_exchange_weak(&x->first_bad, &cur, (uint64_t)i))
        ;
      return;
    }
  }
}

static void hex32(char out[65], const uint8_t *p)
{
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++) { /* most significant byte first */
    out[2 * i] = digits[p[31 - i] >> 4];
    out[2 * i + 1] = digits[p[31 - i] & 15];
  }
  out[64] = '\0';
}

int sp_groth16_check_inputs(const sealprov_assignment *asg, uint32_t enc, char *err, size_t errlen)
{
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
                          char *err, size_t errlen)
{
  int rc = sp_groth16_check_inputs(asg, enc, err, errlen);
  if (rc)
    return rc;
  uint64_t n = asg->abc_size;
  if (n == 0)
    return SEALPROV_OK;
  if (!asg->a || !asg->b || !asg->c) {
    sp_set_err(err, errlen, "abc_size is %" PRIu64 " but %s is NULL", n, !asg->a ? "a" : !asg->b ? "b" : "c");
    return SEALPROV_ERR_ASSIGNMENT;
  }
  rows_ctx x = {.a = asg->a, .b = asg->b, .c = asg->c, .enc = enc};
  atomic_init(&x.first_bad, UINT64_MAX);
  bls_parallel_for((size_t)n, nthreads ? nthreads : 1, rows_range, &x);
  uint64_t bad = atomic_load(&x.first_bad);
  if (bad == UINT64_MAX)
    return SEALPROV_OK;
  fr_t a, b, c;
  const char *which = !sp_scalar_decode(&a, x.a + 32 * bad, enc)   ? "a"
                      : !sp_scalar_decode(&b, x.b + 32 * bad, enc) ? "b"
                      : !sp_scalar_decode(&c, x.c + 32 * bad, enc) ? "c"
                                                                   : NULL;
  if (which) {
    sp_set_err(err, errlen, "%s[%" PRIu64 "] is not a scalar below r (first bad row of %" PRIu64 ")",
               which, bad, n);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  sp_set_err(err, errlen,
             "a[%" PRIu64 "] * b[%" PRIu64 "] != c[%" PRIu64 "]: row %" PRIu64 " of %" PRIu64
             " is the first constraint the witness does not satisfy",
             bad, bad, bad, bad, n);
  return SEALPROV_ERR_ASSIGNMENT;
}

int sp_groth16_prove(const sp_srs *srs, const sealprov_assignment *asg, uint32_t enc,
                     const fr_t *r, const fr_t *s, unsigned nthreads, uint8_t proof[192], char *err,
                     size_t errlen)
{
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
  int rc = sp_groth16_check_assignment(srs, asg, err, errlen);
  if (rc)
    return rc;
  if (nthreads == 0)
    nthreads = 1;

  sp_prove_timings tm = {0};
  double t_start = sp_now_ms(), t0;
  scalar_t *hs = NULL, *inp = NULL, *aux = NULL, *as = NULL, *bs = NULL;
  uint64_t *b_ones = NULL;
  size_t ninp = (size_t)asg->inp_size, naux = (size_t)asg->aux_size;

  /* H first: its three m-sized vectors are freed before the other scalars exist. */
  t0 = sp_now_ms();
  double conv_ms = 0;
  rc = compute_h(srs, asg, enc, nthreads, &hs, &conv_ms, err, errlen);
  if (rc)
    goto out;
  tm.convert_ms += conv_ms;
  tm.ntt_ms = sp_now_ms() - t0 - conv_ms;

  g1_jac_t h_acc, l_acc, a_acc, b1_acc;
  g2_jac_t b2_acc;
  t0 = sp_now_ms();
  if (!msm_g1(&h_acc, srs->h, hs, srs->h_len, nthreads))
    goto oom;
  free(hs);
  hs = NULL;
  tm.h_msm_ms = sp_now_ms() - t0;

  /* Inputs and aux as plain scalars, then A's and B's scalars in density order. */
  t0 = sp_now_ms();
  inp = malloc(ninp * sizeof(scalar_t) + 1);
  aux = malloc(naux * sizeof(scalar_t) + 1);
  as = malloc(srs->a_len * sizeof(scalar_t) + 1);
  bs = malloc(srs->b_g1_len * sizeof(scalar_t) + 1);
  if (!inp || !aux || !as || !bs)
    goto oom;
  rc = convert_scalars(inp, asg->inp_assignment, ninp, false, enc, nthreads, "inp_assignment", err,
                       errlen);
  if (rc)
    goto out;
  rc = convert_scalars(aux, asg->aux_assignment, naux, false, enc, nthreads, "aux_assignment", err,
                       errlen);
  if (rc)
    goto out;
  size_t na = 0, nb = 0;
  /* bellperson never tracks input density for A: every input has a point in A. */
  memcpy(as, inp, ninp * sizeof(scalar_t));
  na = ninp;
  for (size_t j = 0; j < naux; j++)
    if (bit_is_set(asg->a_aux_density, j))
      as[na++] = aux[j];
  for (size_t i = 0; i < ninp; i++)
    if (bit_is_set(asg->b_inp_density, i))
      bs[nb++] = inp[i];
  for (size_t j = 0; j < naux; j++)
    if (bit_is_set(asg->b_aux_density, j))
      bs[nb++] = aux[j];
  /* check_assignment matched the popcounts to the bitmaps and the vector lengths */
  if (na != srs->a_len || nb != srs->b_g1_len) {
    sp_set_err(err, errlen, "internal: density filtering gave %zu A / %zu B scalars, want %zu / %zu",
            na, nb, srs->a_len, srs->b_g1_len);
    rc = SEALPROV_ERR_INTERNAL;
    goto out;
  }
  tm.convert_ms += sp_now_ms() - t0;

  t0 = sp_now_ms();
  if (!msm_g1_split(&l_acc, srs->l, aux, naux, nthreads))
    goto oom;
  tm.l_msm_ms = sp_now_ms() - t0;
  t0 = sp_now_ms();
  if (!msm_g1_split(&a_acc, srs->a, as, na, nthreads))
    goto oom;
  tm.a_msm_ms = sp_now_ms() - t0;

  /* B: one split serves both groups. */
  t0 = sp_now_ms();
  b_ones = split_ones(bs, nb);
  if (!b_ones)
    goto oom;
  g1_jac_t t1;
  if (!batch_add_g1(&t1, srs->b_g1, b_ones, nb, nthreads) ||
      !msm_g1(&b1_acc, srs->b_g1, bs, nb, nthreads))
    goto oom;
  g1_jac_add(&b1_acc, &b1_acc, &t1);
  tm.b_g1_msm_ms = sp_now_ms() - t0;
  t0 = sp_now_ms();
  g2_jac_t t2;
  if (!batch_add_g2(&t2, srs->b_g2, b_ones, nb, nthreads) ||
      !msm_g2(&b2_acc, srs->b_g2, bs, nb, nthreads))
    goto oom;
  g2_jac_add(&b2_acc, &b2_acc, &t2);
  tm.b_g2_msm_ms = sp_now_ms() - t0;

  /* Assembly */
  t0 = sp_now_ms();
  sp_groth16_assemble(srs, r, s, &h_acc, &l_acc, &a_acc, &b1_acc, &b2_acc, proof);
  tm.assemble_ms = sp_now_ms() - t0;
  tm.total_ms = sp_now_ms() - t_start;
  last_timings = tm;
  rc = SEALPROV_OK;
  goto out;

oom:
  sp_set_err(err, errlen, "out of memory while proving (domain 2^%u, %zu aux)", srs->log_domain,
          naux);
  rc = SEALPROV_ERR_NO_MEMORY;
out:
  free(hs);
  free(inp);
  free(aux);
  free(as);
  free(bs);
  free(b_ones);
  return rc;
}

/* ---- verification ----------------------------------------------------------------- */

static int decode_proof(const uint8_t proof[192], g1_affine_t *a, g2_affine_t *b, g1_affine_t *c,
                        char *err, size_t errlen)
{
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
                             const uint8_t proof[192], bool *valid, char *err, size_t errlen)
{
  if (valid)
    *valid = false;
  if (!vk || !proof || !valid || (n && !inputs)) {
    sp_set_err(err, errlen, "NULL argument to verify");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (vk->ic_len == 0 || n != vk->ic_len - 1) {
    sp_set_err(err, errlen, "%zu public inputs given, the verifying key expects %zu (ic_len %zu - 1)",
            n, vk->ic_len ? vk->ic_len - 1 : 0, vk->ic_len);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  g1_affine_t pa, pc, x;
  g2_affine_t pb;
  int rc = decode_proof(proof, &pa, &pb, &pc, err, errlen);
  if (rc)
    return rc;
  /* X = ic[0] + sum inputs[i] ic[i+1] */
  scalar_t *sc = malloc(n * sizeof(scalar_t) + 1);
  if (!sc) {
    sp_set_err(err, errlen, "out of memory for %zu verifier inputs", n);
    return SEALPROV_ERR_NO_MEMORY;
  }
  for (size_t i = 0; i < n; i++)
    fr_to_scalar(&sc[i], &inputs[i]);
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
                      const uint8_t proof[192], bool *valid, char *err, size_t errlen)
{
  if (valid)
    *valid = false;
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
