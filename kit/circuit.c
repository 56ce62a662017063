/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* circuit.c -- synthetic sealing-shaped R1CS, witnesses, and an INSECURE Groth16 setup
 * writing bellperson files. See circuit.h for the conventions. */
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
#include "spa.h"

/* ---- deterministic randomness (xoshiro256**, seeded by splitmix64) --------------- */

typedef struct rng {
  uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Independent streams from one seed: the circuit, the toxic waste and each partition's
 * witness never share random numbers. */
static void rng_init(rng *r, uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rng *r) {
  uint64_t *s = r->s;
  uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return out;
}

static uint64_t rng_below(rng *r, uint64_t n) { return rng_next(r) % n; }

static void rng_fr(rng *r, fr_t *out) {
  uint8_t wide[64];
  for (int i = 0; i < 8; i++) {
    uint64_t v = rng_next(r);
    for (int k = 0; k < 8; k++) wide[8 * i + k] = (uint8_t)(v >> (8 * k));
  }
  fr_from_bytes_wide(out, wide);
}

static void rng_fr_nonzero(rng *r, fr_t *out) {
  do rng_fr(r, out);
  while (fr_is_zero(out));
}

uint64_t sp_random_seed(void) {
  uint64_t s = 0;
  if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
  }
  return s;
}

/* ---- the R1CS --------------------------------------------------------------------- */

typedef struct term {
  uint32_t var;   /* inputs 0..inp_size-1, then aux */
  uint32_t coeff; /* index into the coefficient table */
} term;

enum { FREE_NONE = 0, FREE_BIT = 1, FREE_FIELD = 2 };
#define NO_VAR UINT32_MAX

/* One constraint <A,z> * <B,z> = <C,z>. Witness generation assigns free_var a random
 * value first, then solves out_var (which occurs only in C, with coefficient
 * out_coeff) from the rest. */
typedef struct row {
  uint64_t start; /* first term: na A terms, nb B terms, nc C terms (out excluded) */
  uint8_t na, nb, nc;
  uint8_t free_kind;
  uint32_t free_var;
  uint32_t out_var;
  uint32_t out_coeff;
} row;

struct sp_circuit {
  sp_shape shape;
  uint64_t n_rows; /* circuit constraints; input constraints follow */
  uint64_t inp_size, aux_size;
  row *rows;
  term *terms;
  uint64_t nterms, cap_terms;
  fr_t *coeffs, *coeff_inv;
  uint32_t ncoeffs, cap_coeffs;
  uint8_t *is_bit;   /* per aux variable */
  uint64_t *bitmaps; /* a_aux | b_inp | b_aux, each ceil(len/64) words */
  uint64_t *a_aux, *b_inp, *b_aux;
  uint64_t a_aux_pop, b_inp_pop, b_aux_pop, bit_vars;
  unsigned log_domain;
};

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
  g->cur.out_var = w2;
  g->cur.out_coeff = g->c_one;
  row_end(g);
  if (!vec_push(&g->b_fields, w)) g->oom = true;
  push_output(g, &g->pend_fields, w2);
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
    g->cur.out_var = z;
    g->cur.out_coeff = g->c_neg_one;
  } else {
    /* x * y = z */
    row_a(g, x, g->c_one);
    row_b(g, y, g->c_one);
    g->cur.out_var = z;
    g->cur.out_coeff = g->c_one;
  }
  row_end(g);
  push_output(g, &g->pend_bits, z);
}

static void g_pack(gen *g) {
  /* (sum 2^i b_i) * ONE = num: bits become a field element */
  size_t k = vec_pending(&g->pend_bits);
  if (k > 32) k = 32;
  uint32_t num = new_aux(g, false);
  row_begin(g);
  for (size_t i = 0; i < k; i++) row_a(g, g->pend_bits.v[g->pend_bits.head++], g->pow2[i]);
  row_b(g, 0, g->c_one);
  g->cur.out_var = num;
  g->cur.out_coeff = g->c_one;
  row_end(g);
  push_output(g, &g->pend_fields, num);
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
  g->cur.out_var = z;
  g->cur.out_coeff = g->c_one;
  row_end(g);
  push_output(g, &g->pend_fields, z);
}

static void g_linear(gen *g) {
  /* (x1 + x2 [+ x3]) * ONE = z */
  size_t k = vec_pending(&g->pend_fields);
  if (k > 3) k = 3;
  uint32_t z = new_aux(g, false);
  row_begin(g);
  for (size_t i = 0; i < k; i++) row_a(g, g->pend_fields.v[g->pend_fields.head++], g->c_one);
  row_b(g, 0, g->c_one);
  g->cur.out_var = z;
  g->cur.out_coeff = g->c_one;
  row_end(g);
  push_output(g, &g->pend_fields, z);
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
  g->cur.out_var = z;
  g->cur.out_coeff = random_coeff(g);
  row_end(g);
  if (!vec_push(&g->pend_fields, z)) g->oom = true;
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

static FILE *open_tmp(const char *path, char **tmp_out) {
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
    if (s.path[i] && !(s.f[i] = open_tmp(s.path[i], &tmp[i]))) {
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
  FILE *fp = open_tmp(path, &tmp);
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
