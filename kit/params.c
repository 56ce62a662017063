/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* params.c -- the kit's INSECURE Groth16 setup of a synthetic circuit: toxic waste from
 * a seed, every point of the bellperson .params and .vk files by fixed-base
 * multiplication (or by the caller's fixed-base products: the GPU's), written as they
 * are computed. See circuit.h for the conventions. */
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

/* ---- fixed-base multiplication -------------------------------------------------- */

/* k * G for every point of the parameter file (hundreds of thousands of products):
 *  - signed windows of w bits, w chosen from the number of products so that building
 *    the table plus using it costs least: table[j][d-1] = d * 2^(w j) * G for
 *    d = 1 .. 2^(w-1), and a product is the sum of ceil(256 / w) entries (negated
 *    for negative digits);
 *  - the sums of a block of products are accumulated in affine coordinates, step by
 *    step, so that every step of the block shares one field inversion (Montgomery's
 *    trick): about 6 multiplications per addition instead of 11 for mixed Jacobian.
 * G1 and G2 share the code through FB_DEFINE (same algorithm, other field). */
#define FB_MAX_W 14u
#define FB_MAX_WINDOWS 64u /* 256 / 4 */
#define FB_BATCH 1024u

typedef struct fb_table {
  unsigned w, windows;
  size_t entries; /* 2^(w-1) per window */
  void *t;        /* windows * entries affine points */
} fb_table;

static unsigned fb_windows(unsigned w) { return (256 + w - 1) / w; }

/* The w that minimizes table construction (about 2 affine-add costs per entry) plus n
 * products of fb_windows(w) additions each. */
static unsigned fb_choose_w(size_t n) {
  unsigned best = 4;
  double best_cost = 0;
  for (unsigned w = 4; w <= FB_MAX_W; w++) {
    double cost = 2.0 * (double)((size_t)1 << (w - 1)) * fb_windows(w) + (double)n * fb_windows(w);
    if (w == 4 || cost < best_cost) {
      best = w;
      best_cost = cost;
    }
  }
  return best;
}

/* Signed digits of k: sum digit[j] 2^(w j), |digit| <= 2^(w-1). k < 2^255 and
 * w * windows >= 256, so the last carry is always absorbed. */
static void fb_recode(int32_t *digit, const fr_t *k, unsigned w, unsigned windows) {
  scalar_t s;
  fr_to_scalar(&s, k);
  uint32_t carry = 0, half = UINT32_C(1) << (w - 1), full = UINT32_C(1) << w;
  for (unsigned j = 0; j < windows; j++) {
    unsigned bit = j * w, limb = bit / 64, off = bit % 64;
    uint64_t v = limb < 4 ? s.l[limb] >> off : 0;
    if (off + w > 64 && limb + 1 < 4) v |= s.l[limb + 1] << (64 - off);
    uint32_t d = (uint32_t)(v & (full - 1)) + carry;
    if (d > half) {
      digit[j] = (int32_t)d - (int32_t)full;
      carry = 1;
    } else {
      digit[j] = (int32_t)d;
      carry = 0;
    }
  }
}

typedef struct fb_build_ctx {
  fb_table *fb;
  const void *bases; /* windows Jacobian points: 2^(w j) G */
  bool g2;
  _Atomic int failed;
} fb_build_ctx;

#define FB_DEFINE(G, F)                                                                           \
  static void fb_fill_##G(fb_table *fb, const G##_jac_t *base, size_t win, _Atomic int *failed) { \
    G##_jac_t *tmp = malloc(fb->entries * sizeof *tmp);                                           \
    if (!tmp) {                                                                                   \
      atomic_store(failed, 1);                                                                    \
      return;                                                                                     \
    }                                                                                             \
    tmp[0] = *base;                                                                               \
    for (size_t d = 1; d < fb->entries; d++) G##_jac_add(&tmp[d], &tmp[d - 1], base);             \
    G##_jac_batch_to_affine((G##_affine_t *)fb->t + win * fb->entries, tmp, fb->entries);         \
    free(tmp);                                                                                    \
  }                                                                                               \
                                                                                                  \
  /* out[i] = k[i] * G for i < n <= FB_BATCH; scratch from fb_scratch_bytes(). */                 \
  static void fb_block_##G(const fb_table *fb, const fr_t *k, size_t n, G##_affine_t *out,        \
                           void *scratch) {                                                       \
    int32_t *dig = scratch;                                                                       \
    G##_affine_t *pt = (G##_affine_t *)(dig + FB_BATCH * FB_MAX_WINDOWS);                         \
    F##_t *den = (F##_t *)(pt + FB_BATCH), *pre = den + FB_BATCH;                                 \
    uint32_t *act = (uint32_t *)(pre + FB_BATCH);                                                 \
    bool *inf = (bool *)(act + FB_BATCH);                                                         \
    const G##_affine_t *tab = fb->t;                                                              \
    for (size_t i = 0; i < n; i++) {                                                              \
      fb_recode(dig + i * FB_MAX_WINDOWS, &k[i], fb->w, fb->windows);                             \
      inf[i] = true;                                                                              \
    }                                                                                             \
    for (unsigned j = 0; j < fb->windows; j++) {                                                  \
      size_t na = 0;                                                                              \
      for (size_t i = 0; i < n; i++) {                                                            \
        int32_t d = dig[i * FB_MAX_WINDOWS + j];                                                  \
        if (d == 0) continue;                                                                     \
        G##_affine_t p = tab[j * fb->entries + (size_t)(d < 0 ? -d : d) - 1];                     \
        if (d < 0) G##_affine_neg(&p, &p);                                                        \
        if (inf[i]) {                                                                             \
          out[i] = p;                                                                             \
          inf[i] = false;                                                                         \
        } else if (F##_eq(&out[i].x, &p.x)) {                                                     \
          /* doubling or cancellation: vanishingly rare, done the slow way */                     \
          G##_jac_t a;                                                                            \
          G##_jac_from_affine(&a, &out[i]);                                                       \
          G##_jac_add_affine(&a, &a, &p);                                                         \
          if (G##_jac_is_inf(&a))                                                                 \
            inf[i] = true;                                                                        \
          else                                                                                    \
            G##_jac_to_affine(&out[i], &a);                                                       \
        } else {                                                                                  \
          pt[i] = p;                                                                              \
          F##_sub(&den[na], &p.x, &out[i].x);                                                     \
          act[na++] = (uint32_t)i;                                                                \
        }                                                                                         \
      }                                                                                           \
      if (na == 0) continue;                                                                      \
      /* one inversion for the whole step */                                                      \
      pre[0] = den[0];                                                                            \
      for (size_t t = 1; t < na; t++) F##_mul(&pre[t], &pre[t - 1], &den[t]);                     \
      F##_t inv, it, lam, x3, tmp;                                                                \
      F##_inv(&inv, &pre[na - 1]);                                                                \
      for (size_t t = na; t-- > 0;) {                                                             \
        if (t > 0) {                                                                              \
          F##_mul(&it, &inv, &pre[t - 1]);                                                        \
          F##_mul(&inv, &inv, &den[t]);                                                           \
        } else {                                                                                  \
          it = inv;                                                                               \
        }                                                                                         \
        G##_affine_t *a = &out[act[t]];                                                           \
        const G##_affine_t *p = &pt[act[t]];                                                      \
        F##_sub(&lam, &p->y, &a->y);                                                              \
        F##_mul(&lam, &lam, &it);                                                                 \
        F##_sqr(&x3, &lam);                                                                       \
        F##_sub(&x3, &x3, &a->x);                                                                 \
        F##_sub(&x3, &x3, &p->x);                                                                 \
        F##_sub(&tmp, &a->x, &x3);                                                                \
        F##_mul(&tmp, &tmp, &lam);                                                                \
        F##_sub(&a->y, &tmp, &a->y);                                                              \
        a->x = x3;                                                                                \
      }                                                                                           \
    }                                                                                             \
    for (size_t i = 0; i < n; i++)                                                                \
      if (inf[i]) G##_affine_set_inf(&out[i]);                                                    \
  }

FB_DEFINE(g1, fp)
FB_DEFINE(g2, fp2)

static size_t fb_scratch_bytes(void) {
  return FB_BATCH * (FB_MAX_WINDOWS * sizeof(int32_t) + sizeof(g2_affine_t) + 2 * sizeof(fp2_t) +
                     sizeof(uint32_t) + sizeof(bool));
}

static void fb_build_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  fb_build_ctx *c = vctx;
  for (size_t j = begin; j < end; j++) {
    if (c->g2)
      fb_fill_g2(c->fb, (const g2_jac_t *)c->bases + j, j, &c->failed);
    else
      fb_fill_g1(c->fb, (const g1_jac_t *)c->bases + j, j, &c->failed);
  }
}

/* Builds the table of G1's (or G2's) generator for about n products. */
static bool fb_init(fb_table *fb, bool g2, size_t n, unsigned nthreads) {
  fb->w = fb_choose_w(n);
  fb->windows = fb_windows(fb->w);
  fb->entries = (size_t)1 << (fb->w - 1);
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  fb->t = malloc(fb->windows * fb->entries * psz);
  void *bases = malloc(fb->windows * (g2 ? sizeof(g2_jac_t) : sizeof(g1_jac_t)));
  if (!fb->t || !bases) {
    free(bases);
    return false;
  }
  if (g2) {
    g2_affine_t g;
    g2_generator(&g);
    g2_jac_t *b = bases;
    g2_jac_from_affine(&b[0], &g);
    for (unsigned j = 1; j < fb->windows; j++)
      for (unsigned i = 0; i < fb->w; i++) g2_jac_dbl(&b[j], i ? &b[j] : &b[j - 1]);
  } else {
    g1_affine_t g;
    g1_generator(&g);
    g1_jac_t *b = bases;
    g1_jac_from_affine(&b[0], &g);
    for (unsigned j = 1; j < fb->windows; j++)
      for (unsigned i = 0; i < fb->w; i++) g1_jac_dbl(&b[j], i ? &b[j] : &b[j - 1]);
  }
  fb_build_ctx c = {.fb = fb, .bases = bases, .g2 = g2};
  atomic_init(&c.failed, 0);
  bool ok = bls_parallel_for(fb->windows, nthreads, fb_build_range, &c) && !atomic_load(&c.failed);
  free(bases);
  return ok;
}

static void fb_free(fb_table *fb) {
  free(fb->t);
  fb->t = NULL;
}

/* ---- writing point vectors -------------------------------------------------------- */

#define EMIT_BLOCK 16384u

typedef struct emit_ctx {
  const fb_table *fb;
  const fr_t *k; /* this block's scalars */
  bool g2;
  void *aff;      /* EMIT_BLOCK affine points */
  uint8_t *bytes; /* EMIT_BLOCK serialized points */
  _Atomic int failed;
} emit_ctx;

static void emit_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  emit_ctx *e = vctx;
  void *scratch = malloc(fb_scratch_bytes());
  if (!scratch) {
    atomic_store(&e->failed, 1);
    return;
  }
  for (size_t b = begin; b < end; b += FB_BATCH) {
    size_t n = end - b < FB_BATCH ? end - b : FB_BATCH;
    if (e->g2) {
      g2_affine_t *a = (g2_affine_t *)e->aff + b;
      fb_block_g2(e->fb, e->k + b, n, a, scratch);
      for (size_t i = 0; i < n; i++) g2_serialize(e->bytes + 192 * (b + i), &a[i]);
    } else {
      g1_affine_t *a = (g1_affine_t *)e->aff + b;
      fb_block_g1(e->fb, e->k + b, n, a, scratch);
      for (size_t i = 0; i < n; i++) g1_serialize(e->bytes + 96 * (b + i), &a[i]);
    }
  }
  free(scratch);
}

typedef struct sink {
  FILE *f[2]; /* params, vk (either may be NULL) */
  const char *path[2];
  int failed; /* index+1 of the file that failed */
  int err_no;
  void *aff; /* scratch, sized for EMIT_BLOCK G2 points */
  uint8_t *bytes;
  unsigned nthreads;
  const fb_table *fb1, *fb2;
  const sp_fixed_base *ext; /* another engine for the products, or NULL */
  size_t block;             /* points per emitted block */
  char *err;                /* ext's message */
  size_t errlen;
  int ext_rc;                  /* ext's status when it failed */
  double mul_ms, write_ms;     /* SP_SETUP_PROFILE: time in products and in fwrite */
  const sp_progress *progress; /* after each block: points done of all (a G2 point counts 3) */
  double done, total;
} sink;

/* Work done on the points: a G2 product costs about three G1 ones. */
static void sink_progress(sink *s, size_t cnt, bool g2) {
  s->done += (double)cnt * (g2 ? 3.0 : 1.0);
  if (s->progress && s->progress->fn)
    s->progress->fn(s->progress->user, "parameters", s->done, s->total);
}

static void sink_write(sink *s, bool to_vk, const void *p, size_t n) {
  for (int i = 0; i < (to_vk ? 2 : 1); i++)
    if (s->f[i] && !s->failed && fwrite(p, 1, n, s->f[i]) != n) {
      s->failed = i + 1;
      s->err_no = errno;
    }
}

/* Writes k[i] * G for i < n (G2 if g2), optionally preceded by the u32 BE length. */
static bool emit_points(sink *s, bool to_vk, bool with_len, const fr_t *k, size_t n, bool g2) {
  if (with_len) {
    uint8_t len[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    sink_write(s, to_vk, len, 4);
  }
  for (size_t off = 0; off < n; off += s->block) {
    size_t cnt = n - off < s->block ? n - off : s->block;
    if (s->ext) {
      double t0 = sp_now_ms();
      int rc = s->ext->mul(s->ext->ctx, g2, k + off, cnt, s->bytes, s->err, s->errlen);
      if (rc != SEALPROV_OK) {
        s->ext_rc = rc;
        return false;
      }
      double t1 = sp_now_ms();
      sink_write(s, to_vk, s->bytes, cnt * (g2 ? 192u : 96u));
      s->mul_ms += t1 - t0;
      s->write_ms += sp_now_ms() - t1;
      sink_progress(s, cnt, g2);
      continue;
    }
    emit_ctx e = {
        .fb = g2 ? s->fb2 : s->fb1, .k = k + off, .g2 = g2, .aff = s->aff, .bytes = s->bytes};
    atomic_init(&e.failed, 0);
    if (!bls_parallel_for(cnt, s->nthreads, emit_range, &e) || atomic_load(&e.failed)) return false;
    sink_write(s, to_vk, s->bytes, cnt * (g2 ? 192u : 96u));
    sink_progress(s, cnt, g2);
  }
  return true;
}

/* The Lagrange basis at tau over [begin, end): lag[i] = omega^i t(tau) / (m (tau -
 * omega^i)); den is scratch. Each range starts from omega^begin and inverts its own
 * denominators (fr_batch_inv), so ranges run on separate threads. */
typedef struct lag_ctx {
  fr_t *lag, *den;
  const fr_t *tau;
  fr_t omega, scale; /* scale = t(tau) / m */
} lag_ctx;

static void lag_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  lag_ctx *l = vctx;
  fr_t wi;
  fr_pow_u64(&wi, &l->omega, (uint64_t)begin);
  for (size_t i = begin; i < end; i++) {
    fr_sub(&l->den[i], l->tau, &wi);
    l->lag[i] = wi;
    fr_mul(&wi, &wi, &l->omega);
  }
  fr_batch_inv(l->den + begin, l->den + begin, end - begin);
  for (size_t i = begin; i < end; i++) {
    fr_mul(&l->lag[i], &l->lag[i], &l->den[i]);
    fr_mul(&l->lag[i], &l->lag[i], &l->scale);
  }
}

/* The QAP polynomials u, v, w of every variable at tau, summed over the rows. Part p of
 * `parts` owns the variables of the 64-variable blocks b with b % parts == p: it reads
 * every row but multiplies and adds only for its own variables, so parts run on
 * separate threads without sharing a written cache line, and each variable's sum is
 * formed in row order by one thread (the field sums are exact: the same values for any
 * number of parts). */
typedef struct qap_ctx {
  const sp_circuit *c;
  const fr_t *lag;
  fr_t *u, *v, *w;
  unsigned parts;
} qap_ctx;

static void qap_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  const qap_ctx *x = vctx;
  const sp_circuit *c = x->c;
  for (size_t p = begin; p < end; p++) {
#define QAP_MINE(var) ((((uint64_t)(var) >> 6) % x->parts) == p)
    fr_t tmp_fr;
    for (uint64_t i = 0; i < c->n_rows; i++) {
      const row *rw = &c->rows[i];
      const term *t = c->terms + rw->start;
      unsigned n = (unsigned)rw->na + rw->nb + rw->nc;
      for (unsigned q = 0; q < n; q++) {
        if (!QAP_MINE(t[q].var)) continue;
        fr_t *acc = q < rw->na ? x->u : q < (unsigned)rw->na + rw->nb ? x->v : x->w;
        fr_mul(&tmp_fr, &c->coeffs[t[q].coeff], &x->lag[i]);
        fr_add(&acc[t[q].var], &acc[t[q].var], &tmp_fr);
      }
      if (rw->out_var != NO_VAR && QAP_MINE(rw->out_var)) {
        fr_mul(&tmp_fr, &c->coeffs[rw->out_coeff], &x->lag[i]);
        fr_add(&x->w[rw->out_var], &x->w[rw->out_var], &tmp_fr);
      }
    }
    for (uint64_t i = 0; i < c->inp_size; i++)
      if (QAP_MINE(i)) fr_add(&x->u[i], &x->u[i], &x->lag[c->n_rows + i]);
#undef QAP_MINE
  }
}

FILE *sp_kit_open_tmp(const char *path, char **tmp_out) {
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp) return NULL;
  snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    free(tmp);
    return NULL;
  }
  *tmp_out = tmp;
  return f;
}

int sp_circuit_write_params(const sp_circuit *c, uint64_t seed, unsigned nthreads,
                            const char *params_path, const char *vk_path, char *err,
                            size_t errlen) {
  return sp_circuit_write_params_fb(c, seed, nthreads, NULL, params_path, vk_path, err, errlen);
}

int sp_circuit_write_params_fb(const sp_circuit *c, uint64_t seed, unsigned nthreads,
                               const sp_fixed_base *fb, const char *params_path,
                               const char *vk_path, char *err, size_t errlen) {
  return sp_circuit_write_params_progress(c, seed, nthreads, fb, NULL, params_path, vk_path, err,
                                          errlen);
}

int sp_circuit_write_params_progress(const sp_circuit *c, uint64_t seed, unsigned nthreads,
                                     const sp_fixed_base *fb, const sp_progress *progress,
                                     const char *params_path, const char *vk_path, char *err,
                                     size_t errlen) {
  int rc = SEALPROV_ERR_NO_MEMORY;
  uint64_t nvars = c->inp_size + c->aux_size, abc = c->n_rows + c->inp_size;
  size_t m = (size_t)1 << c->log_domain;
  fr_t *lag = NULL, *u = NULL, *v = NULL, *w = NULL, *k = NULL;
  fb_table fb1 = {0}, fb2 = {0};
  sink s = {.nthreads = nthreads ? nthreads : 1,
            .path = {params_path, vk_path},
            .ext = fb,
            .block = fb ? fb->block : EMIT_BLOCK,
            .err = err,
            .errlen = errlen};
  if (fb && (!fb->mul || fb->block == 0)) {
    sp_set_err(err, errlen, "fixed-base engine %s: no multiplier or a block of 0 points",
               fb->name ? fb->name : "(unnamed)");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  char *tmp[2] = {0};

  double t_start = sp_now_ms(), t_scalars = 0;
  /* toxic waste: its own random stream, never stored */
  rng r;
  rng_init(&r, seed, 3);
  fr_t tau, alpha, beta, gamma, delta, ginv, dinv, t_tau;
  rng_fr_nonzero(&r, &tau);
  rng_fr_nonzero(&r, &alpha);
  rng_fr_nonzero(&r, &beta);
  rng_fr_nonzero(&r, &gamma);
  rng_fr_nonzero(&r, &delta);
  fr_inv(&ginv, &gamma);
  fr_inv(&dinv, &delta);
  fr_pow_u64(&t_tau, &tau, (uint64_t)m);
  fr_sub(&t_tau, &t_tau, &FR_ONE); /* t(tau) = tau^m - 1 */
  if (fr_is_zero(&t_tau)) {
    sp_set_err(err, errlen, "degenerate toxic waste (tau is a root of unity); use another seed");
    return SEALPROV_ERR_INTERNAL;
  }

  /* Lagrange basis at tau: L_i(tau) = t(tau) omega^i / (m (tau - omega^i)) */
  lag = malloc(abc * sizeof(fr_t));
  fr_t *den = malloc(abc * sizeof(fr_t));
  if (!lag || !den) {
    free(den);
    goto oom;
  }
  fr_t minv;
  lag_ctx lc = {.lag = lag, .den = den, .tau = &tau};
  fr_root_of_unity(&lc.omega, c->log_domain);
  fr_from_u64(&minv, (uint64_t)m);
  fr_inv(&minv, &minv);
  fr_mul(&lc.scale, &t_tau, &minv);
  /* in ranges on s.nthreads threads: the values do not depend on the split */
  (void)bls_parallel_for((size_t)abc, s.nthreads, lag_range, &lc);
  free(den);

  /* QAP polynomials of every variable at tau */
  u = calloc(nvars, sizeof(fr_t));
  v = calloc(nvars, sizeof(fr_t));
  w = calloc(nvars, sizeof(fr_t));
  if (!u || !v || !w) goto oom;
  qap_ctx qc = {.c = c, .lag = lag, .u = u, .v = v, .w = w, .parts = s.nthreads};
  (void)bls_parallel_for(s.nthreads, s.nthreads, qap_range, &qc);
  free(lag);
  lag = NULL;

  t_scalars = sp_now_ms() - t_start; /* Lagrange basis and the QAP at tau */
  /* scalars, reused vector after vector */
  size_t kmax = m > nvars ? m : nvars;
  k = malloc(kmax * sizeof(fr_t));
  s.aff = fb ? NULL : malloc((size_t)EMIT_BLOCK * sizeof(g2_affine_t));
  s.bytes = malloc(s.block * 192);
  /* products per group, to size the fixed-base tables */
  size_t b_len = (size_t)(c->b_inp_pop + c->b_aux_pop);
  size_t n_g1 = 3 + (size_t)nvars + (m - 1) + (size_t)(c->inp_size + c->a_aux_pop) + b_len;
  size_t n_g2 = 3 + b_len;
  if (!k || (!fb && !s.aff) || !s.bytes ||
      (!fb && (!fb_init(&fb1, false, n_g1, s.nthreads) || !fb_init(&fb2, true, n_g2, s.nthreads))))
    goto oom;
  s.fb1 = &fb1;
  s.fb2 = &fb2;
  s.progress = progress;
  s.total = (double)n_g1 + 3.0 * (double)n_g2;
  for (int i = 0; i < 2; i++)
    if (s.path[i] && !(s.f[i] = sp_kit_open_tmp(s.path[i], &tmp[i]))) {
      sp_set_err(err, errlen, "%s: cannot create: %s", s.path[i], strerror(errno));
      rc = SEALPROV_ERR_IO;
      goto out;
    }

  /* VK: alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, ic */
  bool ok = emit_points(&s, true, false, &alpha, 1, false) &&
            emit_points(&s, true, false, &beta, 1, false) &&
            emit_points(&s, true, false, &beta, 1, true) &&
            emit_points(&s, true, false, &gamma, 1, true) &&
            emit_points(&s, true, false, &delta, 1, false) &&
            emit_points(&s, true, false, &delta, 1, true);
  /* ic_i = (beta u_i + alpha v_i + w_i) / gamma; l_j the same over delta */
  for (int pass = 0; pass < 2 && ok; pass++) {
    uint64_t first = pass == 0 ? 0 : c->inp_size, cnt = pass == 0 ? c->inp_size : c->aux_size;
    for (uint64_t i = 0; i < cnt; i++) {
      uint64_t x = first + i;
      fr_t t1, t2;
      fr_mul(&t1, &beta, &u[x]);
      fr_mul(&t2, &alpha, &v[x]);
      fr_add(&t1, &t1, &t2);
      fr_add(&t1, &t1, &w[x]);
      fr_mul(&k[i], &t1, pass == 0 ? &ginv : &dinv);
      if (fr_is_zero(&k[i])) {
        sp_set_err(err, errlen, "degenerate toxic waste: %s point %llu would be infinity",
                   pass == 0 ? "ic" : "l", (unsigned long long)i);
        rc = SEALPROV_ERR_INTERNAL;
        goto out;
      }
    }
    if (pass == 0) {
      ok = emit_points(&s, true, true, k, cnt, false);
    } else {
      /* h (m-1 points: tau^i t(tau) / delta) comes between ic and l */
      fr_t *hk = malloc(m * sizeof(fr_t));
      if (!hk) goto oom;
      fr_t cur;
      fr_mul(&cur, &t_tau, &dinv);
      for (size_t i = 0; i + 1 < m; i++) {
        hk[i] = cur;
        fr_mul(&cur, &cur, &tau);
      }
      ok = emit_points(&s, false, true, hk, m - 1, false) &&
           emit_points(&s, false, true, k, cnt, false);
      free(hk);
    }
  }
  /* a: every input, then aux in A; b: inputs in B, then aux in B */
  if (ok) {
    size_t n = 0;
    for (uint64_t i = 0; i < c->inp_size; i++) k[n++] = u[i];
    for (uint64_t j = 0; j < c->aux_size; j++)
      if ((c->a_aux[j / 64] >> (j % 64)) & 1u) k[n++] = u[c->inp_size + j];
    for (size_t i = 0; i < n; i++)
      if (fr_is_zero(&k[i])) {
        sp_set_err(err, errlen, "degenerate toxic waste: a point %zu would be infinity", i);
        rc = SEALPROV_ERR_INTERNAL;
        goto out;
      }
    ok = emit_points(&s, false, true, k, n, false);
  }
  if (ok) {
    size_t n = 0;
    for (uint64_t i = 0; i < c->inp_size; i++)
      if ((c->b_inp[i / 64] >> (i % 64)) & 1u) k[n++] = v[i];
    for (uint64_t j = 0; j < c->aux_size; j++)
      if ((c->b_aux[j / 64] >> (j % 64)) & 1u) k[n++] = v[c->inp_size + j];
    for (size_t i = 0; i < n; i++)
      if (fr_is_zero(&k[i])) {
        sp_set_err(err, errlen, "degenerate toxic waste: b point %zu would be infinity", i);
        rc = SEALPROV_ERR_INTERNAL;
        goto out;
      }
    ok = emit_points(&s, false, true, k, n, false) && emit_points(&s, false, true, k, n, true);
  }
  if (!ok && s.ext_rc) {
    size_t l = strlen(err);
    if (l < errlen)
      snprintf(err + l, errlen - l, " (fixed-base products on %s)", fb->name ? fb->name : "?");
    rc = s.ext_rc;
    goto out;
  }
  if (!ok) goto oom;
  for (int i = 0; i < 2; i++)
    if (s.f[i]) {
      if (fclose(s.f[i]) != 0 && !s.failed) {
        s.failed = i + 1;
        s.err_no = errno;
      }
      s.f[i] = NULL;
    }
  if (s.failed) {
    sp_set_err(err, errlen, "%s: write failed: %s", s.path[s.failed - 1], strerror(s.err_no));
    rc = SEALPROV_ERR_IO;
    goto out;
  }
  for (int i = 0; i < 2; i++)
    if (tmp[i] && rename(tmp[i], s.path[i]) != 0) {
      sp_set_err(err, errlen, "%s: cannot rename %s: %s", s.path[i], tmp[i], strerror(errno));
      rc = SEALPROV_ERR_IO;
      goto out;
    }
  rc = SEALPROV_OK;
  if (getenv("SP_SETUP_PROFILE"))
    fprintf(stderr,
            "setup profile: %.0f ms in all; Lagrange basis and QAP at tau %.0f ms; fixed-base "
            "products %.0f ms, writes %.0f ms (%s)\n",
            sp_now_ms() - t_start, t_scalars, s.mul_ms, s.write_ms,
            fb ? "external engine" : "CPU: products and writes not split");
  goto out;
oom:
  sp_set_err(err, errlen, "out of memory in the setup of a %llu-constraint circuit",
             (unsigned long long)abc);
  rc = SEALPROV_ERR_NO_MEMORY;
out:
  for (int i = 0; i < 2; i++) {
    if (s.f[i]) fclose(s.f[i]);
    if (tmp[i]) {
      if (rc != SEALPROV_OK) unlink(tmp[i]);
      free(tmp[i]);
    }
  }
  fb_free(&fb1);
  fb_free(&fb2);
  free(s.aff);
  free(s.bytes);
  free(lag);
  free(u);
  free(v);
  free(w);
  free(k);
  return rc;
}
