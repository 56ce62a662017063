/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* r1cs.c -- circom .r1cs files (cs.h): the constraints into sparse matrices and the
 * density bitmaps, read once at load.
 *
 * Format (iden3's container, iden3.h; all integers little-endian):
 *   .r1cs 1 header:      n8 u32, prime (n8 bytes), nWires u32, nPubOut u32, nPubIn u32,
 *                        nPrvIn u32, nLabels u64, mConstraints u32
 *         2 constraints: mConstraints x { A, B, C }, each { nTerms u32,
 *                        nTerms x { wireId u32, coefficient (n8 bytes) } }
 *         3 wire2label:  nWires x u64 (required: it backs nWires; its content is not read)
 *         4, 5:          PLONK custom gates (refused)
 *   Field elements are canonical (not Montgomery), little-endian.
 */
#include <config.h>

#include "formats/cs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/iden3.h"
#include "base/util.h"

static uint64_t words_of(uint64_t bits) {
  return bits / 64 + 1; /* one spare word so empty vectors still have storage */
}

/* A buffered sequential reader over one section (pread underneath). */
typedef struct reader {
  sp_file *f;
  uint64_t pos, end; /* file offsets */
  uint8_t *buf;
  size_t cap, have, at; /* buf holds [pos - at, pos - at + have) */
  uint64_t buf_off;
} reader;

#define READER_CHUNK ((size_t)4 << 20)

static const uint8_t *reader_take(reader *r, size_t n, int *st, char *err, size_t errlen) {
  if (r->at + n > r->have) {
    size_t keep = r->have - r->at;
    memmove(r->buf, r->buf + r->at, keep);
    uint64_t next = r->buf_off + r->have;
    uint64_t left = r->end - next;
    size_t want = r->cap - keep;
    if (want > left) want = (size_t)left;
    if (want > 0) {
      *st = sp_file_read(r->f, r->buf + keep, want, next, "constraints", err, errlen);
      if (*st != SEALPROV_OK) return NULL;
    }
    r->buf_off = next - keep;
    r->have = keep + want;
    r->at = 0;
    if (n > r->have) {
      *st = -1; /* past the section's end */
      return NULL;
    }
  }
  const uint8_t *p = r->buf + r->at;
  r->at += n;
  r->pos += n;
  return p;
}

/* ---- coefficient table (open addressing on the canonical value) -------------------- */

typedef struct coef_table {
  uint32_t *slot; /* coefficient index + 1, 0 = empty */
  uint64_t mask;
  fr_t *vals;     /* Montgomery */
  uint64_t *keys; /* canonical limbs, 4 per coefficient */
  uint32_t n, cap;
} coef_table;

static uint64_t coef_hash(const uint64_t k[4]) {
  uint64_t h = k[0] * UINT64_C(0x9E3779B97F4A7C15) ^ k[1] * UINT64_C(0xC2B2AE3D27D4EB4F) ^
               k[2] * UINT64_C(0x165667B19E3779F9) ^ k[3] * UINT64_C(0x27D4EB2F165667C5);
  return h ^ (h >> 29);
}

static bool coef_grow(coef_table *t) {
  uint32_t ncap = t->cap ? 2 * t->cap : 64;
  if (ncap < t->cap) return false;
  fr_t *v = realloc(t->vals, (size_t)ncap * sizeof *v);
  if (!v) return false;
  t->vals = v;
  uint64_t *k = realloc(t->keys, (size_t)ncap * 4 * sizeof *k);
  if (!k) return false;
  t->keys = k;
  uint64_t nslots = (uint64_t)ncap * 2;
  uint32_t *s = calloc(nslots, sizeof *s);
  if (!s) return false;
  free(t->slot);
  t->slot = s;
  t->mask = nslots - 1;
  t->cap = ncap;
  for (uint32_t i = 0; i < t->n; i++) {
    uint64_t h = coef_hash(&t->keys[4 * (size_t)i]) & t->mask;
    while (t->slot[h]) h = (h + 1) & t->mask;
    t->slot[h] = i + 1;
  }
  return true;
}

/* Index of the canonical value k (< r), added if new; UINT32_MAX when out of memory. */
static uint32_t coef_index(coef_table *t, const uint64_t k[4]) {
  if (t->cap == 0 || (uint64_t)t->n + 1 > t->cap / 2) { /* at most a quarter of the slots in use */
    if (!coef_grow(t)) return UINT32_MAX;
  }
  uint64_t h = coef_hash(k) & t->mask;
  while (t->slot[h]) {
    const uint64_t *q = &t->keys[4 * (size_t)(t->slot[h] - 1)];
    if (q[0] == k[0] && q[1] == k[1] && q[2] == k[2] && q[3] == k[3]) return t->slot[h] - 1;
    h = (h + 1) & t->mask;
  }
  uint32_t i = t->n++;
  memcpy(&t->keys[4 * (size_t)i], k, 4 * sizeof *k);
  fr_from_canonical(&t->vals[i], k);
  t->slot[h] = i + 1;
  return i;
}

/* ---- .r1cs ------------------------------------------------------------------------- */

void sp_cs_retain(sp_cs *cs) {
  if (cs) atomic_fetch_add(&cs->refs, 1);
}

static void cs_free(sp_cs *cs) {
  if (!cs) return;
  free(cs->path);
  free(cs->off);
  free(cs->var);
  free(cs->cix);
  free(cs->coeffs);
  free(cs->bitmaps);
  free(cs);
}

void sp_cs_release(sp_cs *cs) {
  if (!cs) return;
  if (atomic_fetch_sub(&cs->refs, 1) != 1) return;
  if (cs->on_free) cs->on_free(cs, cs->on_free_user);
  cs_free(cs);
}

static const char *const lc_name[3] = {"A", "B", "C"};

/* The number of terms in *total: every constraint has three 4-byte term counts and every
 * term 36 bytes, so the section's size fixes it. */
static int section_terms(sp_file *f, const sp_iden3_section *sc, uint64_t m, uint64_t *total,
                         char *err, size_t errlen) {
  if (sc->size < 12 * m || (sc->size - 12 * m) % 36 != 0) {
    sp_set_err(err, errlen,
               "%s: constraints section of %" PRIu64 " bytes (byte offset %" PRIu64
               ") cannot hold %" PRIu64
               " constraints: it must be 12 bytes per constraint plus 36 "
               "per term",
               f->esc, sc->size, sc->off, m);
    return SEALPROV_ERR_PARAMS;
  }
  *total = (sc->size - 12 * m) / 36;
  if (*total >= UINT64_C(1) << 40) {
    sp_set_err(err, errlen, "%s: %" PRIu64 " terms exceed what this loader supports (2^40)", f->esc,
               *total);
    return SEALPROV_ERR_PARAMS;
  }
  return SEALPROV_OK;
}

/* What parse_constraints reads with: the section, the coefficients seen so far, and k,
 * the terms stored. */
typedef struct cs_parse {
  sp_file *f;
  sp_cs *cs;
  reader r;
  coef_table ct;
  uint64_t nwires, total, k;
  uint64_t *a_aux, *b_inp, *b_aux; /* the density bitmaps, in cs->bitmaps */
} cs_parse;

/* A reader_take that failed: -1 (the data ran past the section) gets its message here;
 * a read error has its own already. */
static int short_read(const cs_parse *p, int st, char *err, size_t errlen) {
  if (st != -1) return st;
  sp_set_err(
      err, errlen,
      "%s: constraint data runs past the end of the constraints section (byte offset %" PRIu64
      ", section ends at %" PRIu64 ")",
      p->f->esc, p->r.pos, p->r.end);
  return SEALPROV_ERR_PARAMS;
}

/* Wire w has a nonzero coefficient in A (q 0) or B (q 1): into the density bitmaps of
 * A's auxiliary wires and of B's input and auxiliary wires (cs.h). */
static void mark_dense(cs_parse *p, int q, uint32_t w) {
  uint64_t inp = p->cs->inp_size;
  if (q == 0 && w >= inp) {
    uint64_t v = w - inp;
    p->a_aux[v / 64] |= UINT64_C(1) << (v % 64);
  } else if (q == 1) {
    if (w < inp)
      p->b_inp[w / 64] |= UINT64_C(1) << (w % 64);
    else {
      uint64_t v = w - inp;
      p->b_aux[v / 64] |= UINT64_C(1) << (v % 64);
    }
  }
}

/* Term j of constraint i's linear combination q: its wire below nWires, its coefficient
 * below r and into the table, both stored at k. */
static int read_term(cs_parse *p, uint64_t i, int q, uint32_t j, char *err, size_t errlen) {
  uint64_t at = p->r.pos;
  int st = SEALPROV_OK;
  const uint8_t *b = reader_take(&p->r, 36, &st, err, errlen);
  if (!b) return short_read(p, st, err, errlen);
  uint32_t w = sp_le32(b);
  if (w >= p->nwires) {
    sp_set_err(err, errlen,
               "%s: constraint %" PRIu64 " %s term %" PRIu32 " (byte offset %" PRIu64
               "): wire %" PRIu32 " is not below nWires %" PRIu64,
               p->f->esc, i, lc_name[q], j, at, w, p->nwires);
    return SEALPROV_ERR_PARAMS;
  }
  if (!sp_iden3_below_r(b + 4)) {
    sp_set_err(err, errlen,
               "%s: constraint %" PRIu64 " %s term %" PRIu32 " (byte offset %" PRIu64
               "): coefficient is not below BLS12-381's r",
               p->f->esc, i, lc_name[q], j, at + 4);
    return SEALPROV_ERR_PARAMS;
  }
  uint64_t key[4];
  for (int l = 0; l < 4; l++) key[l] = sp_le64(b + 4 + 8 * l);
  uint32_t ci = coef_index(&p->ct, key);
  if (ci == UINT32_MAX) {
    sp_set_err(err, errlen, "%s: out of memory for the coefficient table (%" PRIu32 " values)",
               p->f->esc, p->ct.n);
    return SEALPROV_ERR_NO_MEMORY;
  }
  p->cs->var[p->k] = w;
  p->cs->cix[p->k] = ci;
  p->k++;
  p->cs->nnz[q]++;
  if ((key[0] | key[1] | key[2] | key[3]) != 0) mark_dense(p, q, w);
  return SEALPROV_OK;
}

/* Constraint i's linear combination q: its term count, within what the section holds,
 * then its terms. */
static int read_lc(cs_parse *p, uint64_t i, int q, char *err, size_t errlen) {
  p->cs->off[3 * i + q] = p->k;
  uint64_t at = p->r.pos;
  int st = SEALPROV_OK;
  const uint8_t *b = reader_take(&p->r, 4, &st, err, errlen);
  if (!b) return short_read(p, st, err, errlen);
  uint32_t nt = sp_le32(b);
  if ((uint64_t)nt > p->total - p->k) {
    sp_set_err(err, errlen,
               "%s: constraint %" PRIu64 " %s: %" PRIu32 " terms (count at byte offset %" PRIu64
               ") run past the end of the constraints section (%" PRIu64 " terms in all, %" PRIu64
               " already read)",
               p->f->esc, i, lc_name[q], nt, at, p->total, p->k);
    return SEALPROV_ERR_PARAMS;
  }
  for (uint32_t j = 0; j < nt; j++) SP_TRY(read_term(p, i, q, j, err, errlen));
  return SEALPROV_OK;
}

static int parse_constraints(sp_file *f, const sp_iden3_section *sc, sp_cs *cs, uint64_t nwires,
                             char *err, size_t errlen) {
  uint64_t m = cs->n_rows;
  cs_parse p = {.f = f, .cs = cs, .nwires = nwires};
  SP_TRY(section_terms(f, sc, m, &p.total, err, errlen));
  uint64_t wa = words_of(cs->aux_size), wi = words_of(cs->inp_size);
  p.a_aux = cs->bitmaps;
  p.b_inp = cs->bitmaps + wa;
  p.b_aux = cs->bitmaps + wa + wi;
  uint64_t total = p.total;
  cs->off = malloc((3 * m + 1) * sizeof *cs->off);
  cs->var = malloc((total ? total : 1) * sizeof *cs->var);
  cs->cix = malloc((total ? total : 1) * sizeof *cs->cix);
  /* The buffer need not exceed the section (+1: never malloc(0)): a 4 MiB buffer for a
   * small file was most of fuzz_r1cs's time under ASan (perf: memset and page faults). */
  p.r = (reader){.f = f,
                 .pos = sc->off,
                 .end = sc->off + sc->size,
                 .cap = sc->size < READER_CHUNK ? (size_t)sc->size + 1 : READER_CHUNK,
                 .buf_off = sc->off};
  p.r.buf = malloc(p.r.cap);
  int st = SEALPROV_OK;
  static const uint64_t one_k[4] = {1, 0, 0, 0};
  if (!cs->off || !cs->var || !cs->cix || !p.r.buf) {
    st = SEALPROV_ERR_NO_MEMORY;
    sp_set_err(err, errlen, "%s: out of memory for %" PRIu64 " constraints with %" PRIu64 " terms",
               f->esc, m, total);
  } else if (coef_index(&p.ct, one_k) != 0) {
    st = SEALPROV_ERR_NO_MEMORY;
    sp_set_err(err, errlen, "%s: out of memory for the coefficient table", f->esc);
  }
  for (uint64_t i = 0; i < m && st == SEALPROV_OK; i++)
    for (int q = 0; q < 3 && st == SEALPROV_OK; q++) st = read_lc(&p, i, q, err, errlen);
  if (st == SEALPROV_OK) {
    cs->off[3 * m] = p.k;
    if (p.k != total || p.r.pos != p.r.end) { /* cannot happen: the size fixed both */
      st = SEALPROV_ERR_PARAMS;
      sp_set_err(err, errlen,
                 "%s: constraints section: %" PRIu64 " terms read, %" PRIu64
                 " expected from its size",
                 f->esc, p.k, total);
    } else {
      cs->coeffs = p.ct.vals;
      cs->ncoeffs = p.ct.n;
      p.ct.vals = NULL;
    }
  }
  free(p.r.buf);
  free(p.ct.slot);
  free(p.ct.keys);
  free(p.ct.vals);
  return st;
}

/* What sp_iden3_read leaves to the .r1cs reader: version 1, no PLONK custom gates, and
 * circom's header and constraints sections (sp_iden3_check_circom). */
static int check_sections(sp_file *f, uint32_t version, const sp_iden3_section sec[6], char *err,
                          size_t errlen) {
  if (version != 1) {
    sp_set_err(err, errlen, "%s: .r1cs version %" PRIu32 " (this reader knows version 1)", f->esc,
               version);
    return SEALPROV_ERR_PARAMS;
  }
  for (unsigned t = 4; t <= 5; t++) {
    if (sec[t].present) {
      sp_set_err(err, errlen,
                 "%s: has a PLONK custom-gates section (type %u at byte offset %" PRIu64
                 "): Groth16 cannot prove custom gates",
                 f->esc, t, sec[t].off - 12);
      return SEALPROV_ERR_UNSUPPORTED;
    }
  }
  /* header: n8, the prime, then 28 bytes of counts */
  return sp_iden3_check_circom(f, sec, "constraints", 32 + 32, err, errlen, SEALPROV_ERR_PARAMS);
}

/* The header's counts into cs (the wire counts, the sizes a job's assignment has) and
 * *nwires, each checked against the others and against the wire-to-label section. */
static int read_header(sp_file *f, const sp_iden3_section sec[6], sp_cs *cs, uint64_t *nwires_out,
                       char *err, size_t errlen) {
  uint8_t h[28];
  SP_TRY(sp_file_read(f, h, 28, sec[1].off + 36, "header", err, errlen));
  uint64_t nwires = sp_le32(h);
  cs->n_pub_out = sp_le32(h + 4);
  cs->n_pub_in = sp_le32(h + 8);
  cs->n_prv_in = sp_le32(h + 12);
  uint64_t nlabels = sp_le64(h + 16);
  cs->n_rows = sp_le32(h + 24);
  uint64_t inp = 1 + (uint64_t)cs->n_pub_out + cs->n_pub_in;
  if (nwires < inp + cs->n_prv_in) {
    sp_set_err(err, errlen,
               "%s: header: nWires %" PRIu64 " is smaller than ONE + nPubOut %" PRIu32
               " + nPubIn %" PRIu32 " + nPrvIn %" PRIu32,
               f->esc, nwires, cs->n_pub_out, cs->n_pub_in, cs->n_prv_in);
    return SEALPROV_ERR_PARAMS;
  }
  if (nlabels < nwires) {
    sp_set_err(err, errlen, "%s: header: nLabels %" PRIu64 " is smaller than nWires %" PRIu64,
               f->esc, nlabels, nwires);
    return SEALPROV_ERR_PARAMS;
  }
  /* nWires sizes the density bitmaps (and the witness a job must give): the
   * wire-to-label section (8 bytes a wire, always written by circom) is what backs it in
   * the file. Without it, a 12-byte change to a small file claimed 2^32 wires and made
   * the load allocate and clear 1 GiB (fuzz_r1cs, tests/fuzz/corpus/r1cs). */
  if (!sec[3].present) {
    sp_set_err(err, errlen,
               "%s: no wire-to-label section (type 3), which circom always writes: nothing in "
               "the file backs nWires %" PRIu64,
               f->esc, nwires);
    return SEALPROV_ERR_PARAMS;
  }
  if (sec[3].size != 8 * nwires) {
    sp_set_err(err, errlen,
               "%s: wire-to-label section is %" PRIu64 " bytes (byte offset %" PRIu64
               "); nWires %" PRIu64 " needs %" PRIu64,
               f->esc, sec[3].size, sec[3].off, nwires, 8 * nwires);
    return SEALPROV_ERR_PARAMS;
  }
  cs->inp_size = inp;
  cs->aux_size = nwires - inp;
  cs->abc_size = cs->n_rows + inp;
  *nwires_out = nwires;
  return SEALPROV_OK;
}

int sp_cs_load(const char *path, sp_cs **out, char *err, size_t errlen) {
  if (out) *out = NULL;
  if (!path || !out) {
    sp_set_err(err, errlen, "cs_load: NULL %s", path ? "out" : "path");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  sp_file f;
  SP_TRY(sp_file_open(&f, path, err, errlen));
  sp_cs *cs = calloc(1, sizeof *cs);
  int st = SEALPROV_OK;
  if (!cs || !(cs->path = strdup(f.esc))) {
    st = SEALPROV_ERR_NO_MEMORY;
    sp_set_err(err, errlen, "%s: out of memory", f.esc);
    goto fail;
  }
  atomic_init(&cs->refs, 1);
  sp_iden3_section sec[6] = {{0}};
  uint32_t version = 0;
  SP_TRY_GOTO(sp_iden3_read(&f, "r1cs", "circom .r1cs", SEALPROV_ERR_PARAMS, &version, sec, 5, NULL,
                            err, errlen),
              st, fail);
  uint64_t nwires = 0;
  SP_TRY_GOTO(check_sections(&f, version, sec, err, errlen), st, fail);
  SP_TRY_GOTO(read_header(&f, sec, cs, &nwires, err, errlen), st, fail);
  uint64_t wa = words_of(cs->aux_size), wi = words_of(cs->inp_size);
  cs->bitmaps = calloc(2 * wa + wi, sizeof *cs->bitmaps);
  if (!cs->bitmaps) {
    st = SEALPROV_ERR_NO_MEMORY;
    sp_set_err(err, errlen, "%s: out of memory for density bitmaps", f.esc);
    goto fail;
  }
  cs->a_aux = cs->bitmaps;
  cs->b_inp = cs->bitmaps + wa;
  cs->b_aux = cs->bitmaps + wa + wi;
  SP_TRY_GOTO(parse_constraints(&f, &sec[2], cs, nwires, err, errlen), st, fail);
  SP_TRY_GOTO(sp_file_check_unchanged(&f, err, errlen), st, fail);
  bool stray;
  cs->a_aux_popcount = sp_bitmap_popcount(cs->a_aux, cs->aux_size, &stray);
  cs->b_inp_popcount = sp_bitmap_popcount(cs->b_inp, cs->inp_size, &stray);
  cs->b_aux_popcount = sp_bitmap_popcount(cs->b_aux, cs->aux_size, &stray);
  uint64_t nnz = cs->off[3 * cs->n_rows];
  cs->host_bytes = sizeof *cs + (3 * cs->n_rows + 1) * 8 + nnz * 8 +
                   (uint64_t)cs->ncoeffs * sizeof(fr_t) + (2 * wa + wi) * 8;
  sp_file_close(&f);
  *out = cs;
  return SEALPROV_OK;
fail:
  sp_file_close(&f);
  cs_free(cs);
  return st;
}
