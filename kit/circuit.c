/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* circuit.c -- synthetic sealing-shaped R1CS and their witnesses; the INSECURE Groth16
 * setup writing bellperson files is params.c, `sealprov setup` setup.c. See circuit.h
 * for the conventions. */
#include "base/util.h"
#include "circuit.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "bls12_381/bls12_381.h"
#include "circuit_internal.h"
#include "spa.h"

/* ---- deterministic randomness: circuit_internal.h -------------------------------- */

uint64_t sp_random_seed(void) {
  uint64_t s = 0;
  if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
  }
  return s;
}

/* ---- the R1CS (its types: circuit_internal.h) -------------------------------------- */

typedef struct u32vec {
  uint32_t *v;
  size_t n, cap, head; /* head: FIFO read position */
} u32vec;

static bool vec_push(u32vec *q, uint32_t x) {
  if (q->n == q->cap) {
    size_t nc = q->cap ? 2 * q->cap : 256;
    uint32_t *nv = realloc(q->v, nc * sizeof *nv);
    if (!nv) return false;
    q->v = nv;
    q->cap = nc;
  }
  q->v[q->n++] = x;
  return true;
}

static size_t vec_pending(const u32vec *q) { return q->n - q->head; }

typedef struct gen {
  sp_circuit *c;
  rng r;
  uint64_t cap_rows;
  uint32_t cap_vars;
  bool oom;
  row cur;
  /* sealing shape bookkeeping */
  u32vec pend_bits, pend_fields; /* outputs not yet used in A */
  u32vec b_bits, b_fields;       /* variables already in B (reused to keep B sparse) */
  u32vec all_bits, all_fields, all_aux;
  uint32_t pow2[32]; /* coefficient indices of 2^i */
  uint32_t c_one, c_neg_one, c_two;
  uint32_t rand_first; /* random shape: its coefficient pool starts here */
} gen;

static uint32_t add_coeff(gen *g, const fr_t *v) {
  sp_circuit *c = g->c;
  if (c->ncoeffs == c->cap_coeffs) {
    uint32_t nc = c->cap_coeffs ? 2 * c->cap_coeffs : 64;
    fr_t *a = realloc(c->coeffs, nc * sizeof(fr_t));
    if (!a) {
      g->oom = true;
      return 0;
    }
    c->coeffs = a;
    fr_t *b = realloc(c->coeff_inv, nc * sizeof(fr_t));
    if (!b) {
      g->oom = true;
      return 0;
    }
    c->coeff_inv = b;
    c->cap_coeffs = nc;
  }
  c->coeffs[c->ncoeffs] = *v;
  fr_inv(&c->coeff_inv[c->ncoeffs], v);
  return c->ncoeffs++;
}

static uint32_t new_aux(gen *g, bool bit) {
  sp_circuit *c = g->c;
  uint32_t var = (uint32_t)(c->inp_size + c->aux_size);
  if (c->aux_size == g->cap_vars) {
    uint32_t nc = g->cap_vars ? 2 * g->cap_vars : 1024;
    uint8_t *nb = realloc(c->is_bit, nc);
    if (!nb) {
      g->oom = true;
      return var;
    }
    c->is_bit = nb;
    g->cap_vars = nc;
  }
  c->is_bit[c->aux_size++] = bit;
  if (!vec_push(bit ? &g->all_bits : &g->all_fields, var) || !vec_push(&g->all_aux, var))
    g->oom = true;
  return var;
}

static void add_term(gen *g, uint32_t var, uint32_t coeff) {
  sp_circuit *c = g->c;
  if (c->nterms == c->cap_terms) {
    uint64_t nc = c->cap_terms ? 2 * c->cap_terms : 4096;
    term *nt = realloc(c->terms, nc * sizeof *nt);
    if (!nt) {
      g->oom = true;
      return;
    }
    c->terms = nt;
    c->cap_terms = nc;
  }
  c->terms[c->nterms++] = (term){var, coeff};
}

static void row_begin(gen *g) {
  g->cur = (row){.start = g->c->nterms, .free_var = NO_VAR, .out_var = NO_VAR};
}
static void row_a(gen *g, uint32_t var, uint32_t coeff) {
  add_term(g, var, coeff);
  g->cur.na++;
}
static void row_b(gen *g, uint32_t var, uint32_t coeff) {
  add_term(g, var, coeff);
  g->cur.nb++;
}
static void row_c(gen *g, uint32_t var, uint32_t coeff) {
  add_term(g, var, coeff);
  g->cur.nc++;
}
static void row_end(gen *g) {
  sp_circuit *c = g->c;
  if (g->oom) return;
  c->rows[c->n_rows++] = g->cur;
}

/* Takes the oldest variable of q not yet used in A, or a random one of all. */
static uint32_t take_pending(gen *g, u32vec *q, const u32vec *all) {
  if (vec_pending(q)) return q->v[q->head++];
  return all->v[rng_below(&g->r, all->n)];
}

/* Queues a new output for use in A. About 1 in 200 outputs of the sealing shape stays
 * in C only, as some results of real circuits do; that puts its a-density near the
 * 99.7 % of a PoRep C2 partition instead of 100 %. */
static void push_output(gen *g, u32vec *q, uint32_t var) {
  if (g->c->shape == SP_SHAPE_SEALING && rng_below(&g->r, 200) == 0) return;
  if (!vec_push(q, var)) g->oom = true;
}

/* Ends the row with C = coeff * var, var a new output queued in q (push_output). */
static void row_end_output(gen *g, uint32_t var, uint32_t coeff, u32vec *q) {
  g->cur.out_var = var;
  g->cur.out_coeff = coeff;
  row_end(g);
  push_output(g, q, var);
}

/* ---- sealing shape: the gadgets of SHA-256 / Poseidon style circuits ------------ */

static void g_newbit(gen *g) {
  /* (ONE - b) * b = 0: bellperson's boolean constraint */
  uint32_t b = new_aux(g, true);
  row_begin(g);
  row_a(g, 0, g->c_one);
  row_a(g, b, g->c_neg_one);
  row_b(g, b, g->c_one);
  g->cur.free_kind = FREE_BIT;
  g->cur.free_var = b;
  row_end(g);
  if (!vec_push(&g->b_bits, b)) g->oom = true;
}

static void g_square(gen *g) {
  /* w * w = w2 with w a free full-width element */
  uint32_t w = new_aux(g, false);
  row_begin(g);
  row_a(g, w, g->c_one);
  row_b(g, w, g->c_one);
  g->cur.free_kind = FREE_FIELD;
  g->cur.free_var = w;
  uint32_t w2 = new_aux(g, false);
  row_end_output(g, w2, g->c_one, &g->pend_fields);
  if (!vec_push(&g->b_fields, w)) g->oom = true;
}

static void g_bitop(gen *g, bool is_xor) {
  uint32_t x = take_pending(g, &g->pend_bits, &g->all_bits);
  uint32_t y = g->b_bits.v[rng_below(&g->r, g->b_bits.n)];
  if (x == y) { /* only when both came from the random fallback */
    g_newbit(g);
    return;
  }
  uint32_t z = new_aux(g, true);
  row_begin(g);
  if (is_xor) {
    /* (2x) * y = x + y - z */
    row_a(g, x, g->c_two);
    row_b(g, y, g->c_one);
    row_c(g, x, g->c_one);
    row_c(g, y, g->c_one);
    row_end_output(g, z, g->c_neg_one, &g->pend_bits);
  } else {
    /* x * y = z */
    row_a(g, x, g->c_one);
    row_b(g, y, g->c_one);
    row_end_output(g, z, g->c_one, &g->pend_bits);
  }
}

static void g_pack(gen *g) {
  /* (sum 2^i b_i) * ONE = num: bits become a field element */
  size_t k = vec_pending(&g->pend_bits);
  if (k > 32) k = 32;
  uint32_t num = new_aux(g, false);
  row_begin(g);
  for (size_t i = 0; i < k; i++) row_a(g, g->pend_bits.v[g->pend_bits.head++], g->pow2[i]);
  row_b(g, 0, g->c_one);
  row_end_output(g, num, g->c_one, &g->pend_fields);
}

static void g_mul(gen *g) {
  uint32_t x = take_pending(g, &g->pend_fields, &g->all_fields);
  uint32_t y = g->b_fields.v[rng_below(&g->r, g->b_fields.n)];
  if (x == y) {
    g_square(g);
    return;
  }
  uint32_t z = new_aux(g, false);
  row_begin(g);
  row_a(g, x, g->c_one);
  row_b(g, y, g->c_one);
  row_end_output(g, z, g->c_one, &g->pend_fields);
}

static void g_linear(gen *g) {
  /* (x1 + x2 [+ x3]) * ONE = z */
  size_t k = vec_pending(&g->pend_fields);
  if (k > 3) k = 3;
  uint32_t z = new_aux(g, false);
  row_begin(g);
  for (size_t i = 0; i < k; i++) row_a(g, g->pend_fields.v[g->pend_fields.head++], g->c_one);
  row_b(g, 0, g->c_one);
  row_end_output(g, z, g->c_one, &g->pend_fields);
}

static void gen_sealing_step(gen *g) {
  unsigned r = (unsigned)rng_below(&g->r, 100);
  if (g->all_fields.n == 0 || (r >= 92 && r < 96)) {
    g_square(g);
  } else if (g->b_bits.n == 0 || r < 22) {
    g_newbit(g);
  } else if (r < 62) {
    g_bitop(g, true);
  } else if (r < 82) {
    g_bitop(g, false);
  } else if (r < 86) {
    if (vec_pending(&g->pend_bits) >= 4)
      g_pack(g);
    else
      g_bitop(g, true);
  } else if (r < 92) {
    g_mul(g);
  } else {
    if (vec_pending(&g->pend_fields) >= 2)
      g_linear(g);
    else
      g_square(g);
  }
}

/* ---- random shape ----------------------------------------------------------------- */

/* A random variable that already has a value: ONE or an aux variable. */
static uint32_t random_known(gen *g) {
  uint64_t k = rng_below(&g->r, g->all_aux.n + 1);
  return k == g->all_aux.n ? 0 : g->all_aux.v[k];
}

static bool in_list(const uint32_t *l, size_t n, uint32_t v) {
  for (size_t i = 0; i < n; i++)
    if (l[i] == v) return true;
  return false;
}

static uint32_t random_coeff(gen *g) {
  return g->rand_first + (uint32_t)rng_below(&g->r, g->c->ncoeffs - g->rand_first);
}

static void gen_random_step(gen *g) {
  uint32_t av[4], bv[4], cv[3];
  size_t na = 0, nb = 0, nc = 0;
  bool free_var = g->all_aux.n < 4 || rng_below(&g->r, 4) == 0;
  uint32_t f = NO_VAR;
  if (free_var) f = new_aux(g, false);
  if (g->all_aux.n > (free_var ? 1u : 0u)) {
    uint32_t x =
        vec_pending(&g->pend_fields) ? g->pend_fields.v[g->pend_fields.head++] : random_known(g);
    if (x != f) av[na++] = x;
  }
  size_t want_a = 1 + rng_below(&g->r, 2), want_b = 1 + rng_below(&g->r, 3),
         want_c = rng_below(&g->r, 2);
  for (size_t t = 0; t < 8 && na < want_a; t++) {
    uint32_t v = random_known(g);
    if (v != f && !in_list(av, na, v)) av[na++] = v;
  }
  for (size_t t = 0; t < 8 && nb < want_b; t++) {
    uint32_t v = random_known(g);
    if (v != f && !in_list(bv, nb, v)) bv[nb++] = v;
  }
  if (nb == 0) bv[nb++] = 0;
  for (size_t t = 0; t < 8 && nc < want_c; t++) {
    uint32_t v = random_known(g);
    if (v != f && !in_list(cv, nc, v)) cv[nc++] = v;
  }
  uint32_t z = new_aux(g, false);
  row_begin(g);
  if (f != NO_VAR) row_a(g, f, random_coeff(g));
  for (size_t i = 0; i < na; i++) row_a(g, av[i], random_coeff(g));
  for (size_t i = 0; i < nb; i++) row_b(g, bv[i], random_coeff(g));
  for (size_t i = 0; i < nc; i++) row_c(g, cv[i], random_coeff(g));
  if (f != NO_VAR) {
    g->cur.free_kind = FREE_FIELD;
    g->cur.free_var = f;
  }
  row_end_output(g, z, random_coeff(g), &g->pend_fields); /* the random shape queues all */
}

/* ---- generation ------------------------------------------------------------------- */

void sp_circuit_free(sp_circuit *c) {
  if (!c) return;
  free(c->rows);
  free(c->terms);
  free(c->coeffs);
  free(c->coeff_inv);
  free(c->is_bit);
  free(c->bitmaps);
  free(c);
}

static uint64_t words_of(uint64_t bits) {
  return bits / 64 + 1; /* one spare word so empty vectors still have storage */
}

/* Density as bellperson's DensityTracker computes it: a variable counts when it has a
 * non-zero coefficient in A (aux only), resp. B (inputs and aux). */
static bool compute_density(sp_circuit *c) {
  uint64_t wa = words_of(c->aux_size), wi = words_of(c->inp_size);
  c->bitmaps = calloc(2 * wa + wi, sizeof(uint64_t));
  if (!c->bitmaps) return false;
  c->a_aux = c->bitmaps;
  c->b_inp = c->bitmaps + wa;
  c->b_aux = c->bitmaps + wa + wi;
  for (uint64_t i = 0; i < c->n_rows; i++) {
    const row *rw = &c->rows[i];
    const term *t = c->terms + rw->start;
    for (unsigned k = 0; k < (unsigned)rw->na + rw->nb; k++) {
      uint64_t v = t[k].var;
      bool in_a = k < rw->na;
      if (v >= c->inp_size) {
        uint64_t j = v - c->inp_size;
        uint64_t *bm = in_a ? c->a_aux : c->b_aux;
        bm[j / 64] |= UINT64_C(1) << (j % 64);
      } else if (!in_a) {
        c->b_inp[v / 64] |= UINT64_C(1) << (v % 64);
      }
    }
  }
  c->a_aux_pop = c->b_aux_pop = c->b_inp_pop = 0;
  for (uint64_t w = 0; w < wa; w++) {
    c->a_aux_pop += (uint64_t)__builtin_popcountll(c->a_aux[w]);
    c->b_aux_pop += (uint64_t)__builtin_popcountll(c->b_aux[w]);
  }
  for (uint64_t w = 0; w < wi; w++) c->b_inp_pop += (uint64_t)__builtin_popcountll(c->b_inp[w]);
  c->bit_vars = 0;
  for (uint64_t j = 0; j < c->aux_size; j++) c->bit_vars += c->is_bit[j];
  return true;
}

int sp_circuit_generate(uint64_t constraints, uint32_t inputs, sp_shape shape, uint64_t seed,
                        sp_circuit **out, char *err, size_t errlen) {
  *out = NULL;
  if (shape != SP_SHAPE_SEALING && shape != SP_SHAPE_RANDOM) {
    sp_set_err(err, errlen, "unknown circuit shape %d", (int)shape);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  uint64_t inp_size = (uint64_t)inputs + 1;
  if (constraints < 2 * (uint64_t)inputs + 10) {
    sp_set_err(err, errlen,
               "constraints %llu is too small for %u inputs: need at least 2 * inputs + 10 = %llu "
               "(one constraint per input binds it, one per input plus ONE is bellperson's input "
               "constraint)",
               (unsigned long long)constraints, inputs, 2 * (unsigned long long)inputs + 10);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  /* variables are 32-bit indices; rows carry one or two new variables each */
  if (constraints > (UINT64_C(1) << 28)) {
    sp_set_err(err, errlen, "constraints %llu exceeds the supported maximum 2^28",
               (unsigned long long)constraints);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  sp_circuit *c = calloc(1, sizeof *c);
  gen g = {0};
  if (!c) goto oom;
  g.c = c;
  c->shape = shape;
  c->inp_size = inp_size;
  uint64_t n_rows = constraints - inp_size;
  c->rows = malloc(n_rows * sizeof(row));
  if (!c->rows) goto oom;
  unsigned log = 0;
  while ((UINT64_C(1) << log) < constraints) log++;
  c->log_domain = log;
  rng_init(&g.r, seed, 1);

  fr_t v;
  g.c_one = add_coeff(&g, &FR_ONE);
  fr_neg(&v, &FR_ONE);
  g.c_neg_one = add_coeff(&g, &v);
  fr_from_u64(&v, 2);
  g.c_two = add_coeff(&g, &v);
  g.pow2[0] = g.c_one;
  g.pow2[1] = g.c_two;
  for (int i = 2; i < 32; i++) {
    fr_from_u64(&v, UINT64_C(1) << i);
    g.pow2[i] = add_coeff(&g, &v);
  }
  if (shape == SP_SHAPE_RANDOM) {
    /* random shape draws its coefficients from this pool */
    g.rand_first = c->ncoeffs;
    for (int i = 0; i < 61; i++) {
      rng_fr_nonzero(&g.r, &v);
      add_coeff(&g, &v);
    }
  }
  if (g.oom) goto oom;

  uint64_t body = n_rows - inputs;
  while (c->n_rows < body && !g.oom) {
    if (shape == SP_SHAPE_SEALING)
      gen_sealing_step(&g);
    else
      gen_random_step(&g);
  }
  /* bind each public input to a field variable: x * ONE = input_j */
  for (uint32_t j = 1; j <= inputs && !g.oom; j++) {
    uint32_t x = take_pending(&g, &g.pend_fields, &g.all_fields);
    row_begin(&g);
    row_a(&g, x, g.c_one);
    row_b(&g, 0, g.c_one);
    g.cur.out_var = j;
    g.cur.out_coeff = g.c_one;
    row_end(&g);
  }
  if (g.oom || !compute_density(c)) goto oom;
  free(g.pend_bits.v);
  free(g.pend_fields.v);
  free(g.b_bits.v);
  free(g.b_fields.v);
  free(g.all_bits.v);
  free(g.all_fields.v);
  free(g.all_aux.v);
  *out = c;
  return SEALPROV_OK;
oom:
  free(g.pend_bits.v);
  free(g.pend_fields.v);
  free(g.b_bits.v);
  free(g.b_fields.v);
  free(g.all_bits.v);
  free(g.all_fields.v);
  free(g.all_aux.v);
  sp_circuit_free(c);
  sp_set_err(err, errlen, "out of memory generating a %llu-constraint circuit",
             (unsigned long long)constraints);
  return SEALPROV_ERR_NO_MEMORY;
}

void sp_circuit_info_get(const sp_circuit *c, sp_circuit_info *info) {
  info->abc_size = c->n_rows + c->inp_size;
  info->inp_size = c->inp_size;
  info->aux_size = c->aux_size;
  info->log_domain = c->log_domain;
  info->domain = UINT64_C(1) << c->log_domain;
  info->a_aux_popcount = c->a_aux_pop;
  info->b_inp_popcount = c->b_inp_pop;
  info->b_aux_popcount = c->b_aux_pop;
  info->bit_vars = c->bit_vars;
}

/* ---- witness ---------------------------------------------------------------------- */

void sp_witness_free(sp_witness *w) {
  if (!w) return;
  free(w->scalars);
  free(w->bitmaps);
  free(w);
}

int sp_assignment_break_row(const sealprov_assignment *asg, uint64_t r, uint8_t **c_out, char *err,
                            size_t errlen) {
  *c_out = NULL;
  if (asg == NULL || r >= asg->abc_size) {
    sp_set_err(err, errlen, "row %llu is not a row of the assignment (abc_size %llu)",
               (unsigned long long)r, asg ? (unsigned long long)asg->abc_size : 0ull);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  size_t bytes = (size_t)asg->abc_size * SEALPROV_SCALAR_BYTES;
  uint8_t *c = malloc(bytes);
  if (c == NULL) {
    sp_set_err(err, errlen, "out of memory for the bad c (%zu bytes)", bytes);
    return SEALPROV_ERR_NO_MEMORY;
  }
  memcpy(c, asg->c, bytes);
  fr_t x, y, one;
  if (!fr_from_le32(&x, (const uint8_t *)asg->a + 32 * r) ||
      !fr_from_le32(&y, (const uint8_t *)asg->b + 32 * r)) {
    free(c);
    sp_set_err(err, errlen, "row %llu: a or b is not canonical", (unsigned long long)r);
    return SEALPROV_ERR_INTERNAL;
  }
  fr_mul(&x, &x, &y);
  fr_from_u64(&one, 1);
  fr_add(&x, &x, &one);
  fr_to_le32(c + 32 * r, &x);
  *c_out = c;
  return SEALPROV_OK;
}

static fr_t lc_eval(const sp_circuit *c, const term *t, unsigned n, const fr_t *z) {
  fr_t acc = FR_ZERO, tmp;
  for (unsigned k = 0; k < n; k++) {
    fr_mul(&tmp, &c->coeffs[t[k].coeff], &z[t[k].var]);
    fr_add(&acc, &acc, &tmp);
  }
  return acc;
}

int sp_circuit_witness(const sp_circuit *c, uint64_t seed, sp_witness **out, char *err,
                       size_t errlen) {
  *out = NULL;
  uint64_t nvars = c->inp_size + c->aux_size, abc = c->n_rows + c->inp_size;
  uint64_t wa = words_of(c->aux_size), wi = words_of(c->inp_size);
  sp_witness *w = calloc(1, sizeof *w);
  fr_t *z = calloc(nvars, sizeof(fr_t));
  if (!w || !z) goto oom;
  w->scalars = malloc((3 * abc + nvars) * 32);
  w->bitmaps = malloc((2 * wa + wi) * sizeof(uint64_t));
  if (!w->scalars || !w->bitmaps) goto oom;
  memcpy(w->bitmaps, c->bitmaps, (2 * wa + wi) * sizeof(uint64_t));
  uint8_t *pa = w->scalars, *pb = pa + 32 * abc, *pc = pb + 32 * abc, *pz = pc + 32 * abc;

  rng r;
  rng_init(&r, seed, 2);
  z[0] = FR_ONE;
  for (uint64_t i = 0; i < c->n_rows; i++) {
    const row *rw = &c->rows[i];
    const term *t = c->terms + rw->start;
    if (rw->free_kind == FREE_BIT)
      z[rw->free_var] = (rng_next(&r) >> 63) ? FR_ONE : FR_ZERO;
    else if (rw->free_kind == FREE_FIELD)
      rng_fr(&r, &z[rw->free_var]);
    fr_t av = lc_eval(c, t, rw->na, z), bv = lc_eval(c, t + rw->na, rw->nb, z),
         cv = lc_eval(c, t + rw->na + rw->nb, rw->nc, z), ab;
    fr_mul(&ab, &av, &bv);
    if (rw->out_var != NO_VAR) {
      fr_t rest;
      fr_sub(&rest, &ab, &cv);
      fr_mul(&z[rw->out_var], &rest, &c->coeff_inv[rw->out_coeff]);
      fr_t tmp;
      fr_mul(&tmp, &z[rw->out_var], &c->coeffs[rw->out_coeff]);
      fr_add(&cv, &cv, &tmp);
    }
    if (!fr_eq(&ab, &cv)) {
      sp_set_err(err, errlen, "internal: constraint %llu is not satisfied by the witness",
                 (unsigned long long)i);
      sp_witness_free(w);
      free(z);
      return SEALPROV_ERR_INTERNAL;
    }
    fr_to_le32(pa + 32 * i, &av);
    fr_to_le32(pb + 32 * i, &bv);
    fr_to_le32(pc + 32 * i, &cv);
  }
  /* bellperson's input constraints: input_i * 0 = 0 */
  for (uint64_t i = 0; i < c->inp_size; i++) {
    uint64_t k = c->n_rows + i;
    fr_to_le32(pa + 32 * k, &z[i]);
    memset(pb + 32 * k, 0, 32);
    memset(pc + 32 * k, 0, 32);
  }
  for (uint64_t v = 0; v < nvars; v++) fr_to_le32(pz + 32 * v, &z[v]);
  free(z);

  sealprov_assignment *a = &w->asg;
  a->a_aux_density = w->bitmaps;
  a->a_aux_bit_len = c->aux_size;
  a->a_aux_popcount = c->a_aux_pop;
  a->b_inp_density = w->bitmaps + wa;
  a->b_inp_bit_len = c->inp_size;
  a->b_inp_popcount = c->b_inp_pop;
  a->b_aux_density = w->bitmaps + wa + wi;
  a->b_aux_bit_len = c->aux_size;
  a->b_aux_popcount = c->b_aux_pop;
  a->a = pa;
  a->b = pb;
  a->c = pc;
  a->abc_size = abc;
  a->inp_assignment = pz;
  a->inp_size = c->inp_size;
  a->aux_assignment = pz + 32 * c->inp_size;
  a->aux_size = c->aux_size;
  *out = w;
  return SEALPROV_OK;
oom:
  sp_witness_free(w);
  free(z);
  sp_set_err(err, errlen, "out of memory for a witness of %llu variables",
             (unsigned long long)nvars);
  return SEALPROV_ERR_NO_MEMORY;
}
