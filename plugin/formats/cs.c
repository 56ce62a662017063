/* cs.c -- circom .r1cs / .wtns readers, density bitmaps and the CPU sparse
 * matrix-vector product for witness-only proving. See cs.h for the conventions.
 *
 * Formats (iden3's binary container, all integers little-endian):
 *   file:    magic (4 bytes: "r1cs" / "wtns"), version u32, nSections u32, then
 *            nSections x { type u32, size u64, size bytes of content }, in any order.
 *   .r1cs 1 header:      n8 u32, prime (n8 bytes), nWires u32, nPubOut u32, nPubIn u32,
 *                        nPrvIn u32, nLabels u64, mConstraints u32
 *         2 constraints: mConstraints x { A, B, C }, each { nTerms u32,
 *                        nTerms x { wireId u32, coefficient (n8 bytes) } }
 *         3 wire2label:  nWires x u64 (required: it backs nWires; its content is not read)
 *         4, 5:          PLONK custom gates (refused)
 *   .wtns 1 header:      n8 u32, prime (n8 bytes), nWitness u32
 *         2 values:      nWitness x n8 bytes
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

#include "groth16/groth16.h"
#include "formats/srs.h"
#include "base/util.h"

const uint8_t sp_cs_bls12_381_r_le[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

/* BN254's r (circom's default curve), little-endian: named in the refusal. */
static const uint8_t bn254_r_le[32] = {
    0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9, 0x79, 0x48, 0xe8, 0x33, 0x28,
    0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
  return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t words_of(uint64_t bits)
{
  return bits / 64 + 1; /* one spare word so empty vectors still have storage */
}

/* ---- the iden3 container ----------------------------------------------------------- */

int sp_iden3_read(sp_file *f, const char magic[4], const char *kind, int bad, uint32_t *version,
                  sp_iden3_section *sec, unsigned nsec_known, const char *const *names, char *err,
                  size_t errlen)
{
  uint8_t h[12];
  if (f->size < 12) {
    sp_set_err(err, errlen, "%s: %" PRIu64 " bytes is too short for a %s file (12-byte header)",
               f->esc, f->size, kind);
    return bad;
  }
  SP_TRY(sp_file_read(f, h, 12, 0, "file header", err, errlen));
  if (memcmp(h, magic, 4) != 0) {
    sp_set_err(err, errlen,
               "%s: not a %s file: magic is %02x %02x %02x %02x, expected \"%.4s\"", f->esc,
               kind, h[0], h[1], h[2], h[3], magic);
    return bad;
  }
  *version = le32(h + 4);
  uint32_t n = le32(h + 8);
  uint64_t off = 12;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t s[12];
    if (f->size - off < 12) {
      sp_set_err(err, errlen,
                 "%s: section %" PRIu32 " of %" PRIu32 ": its 12-byte header at byte offset %" PRIu64
                 " runs past the end of the file (%" PRIu64 " bytes): truncated?",
                 f->esc, i, n, off, f->size);
      return bad;
    }
    SP_TRY(sp_file_read(f, s, 12, off, "section header", err, errlen));
    uint32_t type = le32(s);
    uint64_t size = le64(s + 4);
    off += 12;
    bool known = type >= 1 && type <= nsec_known;
    const char *name = names && known ? names[type] : names ? "unknown" : NULL;
    if (size > f->size - off) {
      sp_set_err(err, errlen,
                 "%s: section %" PRIu32 " (type %" PRIu32 "%s%s) claims %" PRIu64
                 " bytes at byte offset %" PRIu64 ", but the file has only %" PRIu64
                 " bytes (%" PRIu64 " follow): truncated?",
                 f->esc, i, type, name ? ", " : "", name ? name : "", size, off, f->size,
                 f->size - off);
      return bad;
    }
    if (known) {
      if (sec[type].present) {
        sp_set_err(err, errlen,
                   "%s: section type %" PRIu32 " appears twice (%s%sbyte offsets %" PRIu64
                   " and %" PRIu64 ")",
                   f->esc, type, name ? name : "", name ? "; " : "", sec[type].off - 12, off - 12);
        return bad;
      }
      sec[type] = (sp_iden3_section){.off = off, .size = size, .present = true};
    }
    off += size;
  }
  if (off != f->size) {
    sp_set_err(err, errlen,
               "%s: %" PRIu64 " bytes follow the last of its %" PRIu32 " sections (byte offset %" PRIu64
               ")",
               f->esc, f->size - off, n, off);
    return bad;
  }
  return SEALPROV_OK;
}

/* The field of a header: n8 must be 32 and the prime BLS12-381's r. */
static int check_prime(sp_file *f, const sp_iden3_section *hdr, uint32_t *n8_out, char *err, size_t errlen,
                       int bad)
{
  uint8_t b[4];
  if (hdr->size < 4) {
    sp_set_err(err, errlen, "%s: header section (%" PRIu64 " bytes) is too short for the field size",
               f->esc, hdr->size);
    return bad;
  }
  SP_TRY(sp_file_read(f, b, 4, hdr->off, "field size", err, errlen));
  uint32_t n8 = le32(b);
  *n8_out = n8;
  if (n8 != 32) {
    sp_set_err(err, errlen,
               "%s: field elements of %" PRIu32 " bytes: sealprov proves over BLS12-381, whose "
               "scalars are 32 bytes (compile the circuit with circom --prime bls12381)",
               f->esc, n8);
    return n8 == 0 || n8 > 64 || hdr->size < 4 + (uint64_t)n8 ? bad : SEALPROV_ERR_UNSUPPORTED;
  }
  if (hdr->size < 36) {
    sp_set_err(err, errlen, "%s: header section (%" PRIu64 " bytes) is too short for its prime",
               f->esc, hdr->size);
    return bad;
  }
  uint8_t p[32];
  SP_TRY(sp_file_read(f, p, 32, hdr->off + 4, "prime", err, errlen));
  if (memcmp(p, sp_cs_bls12_381_r_le, 32) != 0) {
    char hex[67] = "0x";
    for (int i = 0; i < 32; i++)
      snprintf(hex + 2 + 2 * i, 3, "%02x", p[31 - i]);
    bool bn = memcmp(p, bn254_r_le, 32) == 0;
    sp_set_err(err, errlen,
               "%s: the field prime is %s%s; sealprov proves over BLS12-381 only (r = "
               "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001): compile the "
               "circuit with circom --prime bls12381",
               f->esc, hex, bn ? " (BN254 / alt_bn128, circom's default)" : "");
    return SEALPROV_ERR_UNSUPPORTED;
  }
  return SEALPROV_OK;
}

static bool below_r(const uint8_t v[32])
{
  for (int i = 31; i >= 0; i--) {
    if (v[i] != sp_cs_bls12_381_r_le[i])
      return v[i] < sp_cs_bls12_381_r_le[i];
  }
  return false;
}

/* A buffered sequential reader over one section (pread underneath). */
typedef struct reader {
  sp_file *f;
  uint64_t pos, end;        /* file offsets */
  uint8_t *buf;
  size_t cap, have, at;     /* buf holds [pos - at, pos - at + have) */
  uint64_t buf_off;
} reader;

#define READER_CHUNK ((size_t)4 << 20)

static const uint8_t *reader_take(reader *r, size_t n, int *st, char *err, size_t errlen)
{
  if (r->at + n > r->have) {
    size_t keep = r->have - r->at;
    memmove(r->buf, r->buf + r->at, keep);
    uint64_t next = r->buf_off + r->have;
    uint64_t left = r->end - next;
    size_t want = r->cap - keep;
    if (want > left)
      want = (size_t)left;
    if (want > 0) {
      *st = sp_file_read(r->f, r->buf + keep, want, next, "constraints", err, errlen);
      if (*st != SEALPROV_OK)
        return NULL;
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
  uint32_t *slot;           /* coefficient index + 1, 0 = empty */
  uint64_t mask;
  fr_t *vals;               /* Montgomery */
  uint64_t *keys;           /* canonical limbs, 4 per coefficient */
  uint32_t n, cap;
} coef_table;

static uint64_t coef_hash(const uint64_t k[4])
{
  uint64_t h = k[0] * UINT64_C(0x9E3779B97F4A7C15) ^ k[1] * UINT64_C(0xC2B2AE3D27D4EB4F) ^
               k[2] * UINT64_C(0x165667B19E3779F9) ^ k[3] * UINT64_C(0x27D4EB2F165667C5);
  return h ^ (h >> 29);
}

static bool coef_grow(coef_table *t)
{
  uint32_t ncap = t->cap ? 2 * t->cap : 64;
  if (ncap < t->cap)
    return false;
  fr_t *v = realloc(t->vals, (size_t)ncap * sizeof *v);
  if (!v)
    return false;
  t->vals = v;
  uint64_t *k = realloc(t->keys, (size_t)ncap * 4 * sizeof *k);
  if (!k)
    return false;
  t->keys = k;
  uint64_t nslots = (uint64_t)ncap * 2;
  uint32_t *s = calloc(nslots, sizeof *s);
  if (!s)
    return false;
  free(t->slot);
  t->slot = s;
  t->mask = nslots - 1;
  t->cap = ncap;
  for (uint32_t i = 0; i < t->n; i++) {
    uint64_t h = coef_hash(&t->keys[4 * (size_t)i]) & t->mask;
    while (t->slot[h])
      h = (h + 1) & t->mask;
    t->slot[h] = i + 1;
  }
  return true;
}

/* Index of the canonical value k (< r), added if new; UINT32_MAX when out of memory. */
static uint32_t coef_index(coef_table *t, const uint64_t k[4])
{
  if (t->cap == 0 || (uint64_t)t->n + 1 > t->cap / 2) { /* at most a quarter of the slots in use */
    if (!coef_grow(t))
      return UINT32_MAX;
  }
  uint64_t h = coef_hash(k) & t->mask;
  while (t->slot[h]) {
    const uint64_t *q = &t->keys[4 * (size_t)(t->slot[h] - 1)];
    if (q[0] == k[0] && q[1] == k[1] && q[2] == k[2] && q[3] == k[3])
      return t->slot[h] - 1;
    h = (h + 1) & t->mask;
  }
  uint32_t i = t->n++;
  memcpy(&t->keys[4 * (size_t)i], k, 4 * sizeof *k);
  fr_from_canonical(&t->vals[i], k);
  t->slot[h] = i + 1;
  return i;
}

/* ---- .r1cs ------------------------------------------------------------------------- */

void sp_cs_retain(sp_cs *cs)
{
  if (cs)
    atomic_fetch_add(&cs->refs, 1);
}

static void cs_free(sp_cs *cs)
{
  if (!cs)
    return;
  free(cs->path);
  free(cs->off);
  free(cs->var);
  free(cs->cix);
  free(cs->coeffs);
  free(cs->bitmaps);
  free(cs);
}

void sp_cs_release(sp_cs *cs)
{
  if (!cs)
    return;
  if (atomic_fetch_sub(&cs->refs, 1) != 1)
    return;
  if (cs->on_free)
    cs->on_free(cs, cs->on_free_user);
  cs_free(cs);
}

static const char *const lc_name[3] = {"A", "B", "C"};

static int parse_constraints(sp_file *f, const sp_iden3_section *sc, sp_cs *cs, uint64_t nwires,
                             char *err, size_t errlen)
{
  uint64_t m = cs->n_rows;
  /* Every constraint has three 4-byte term counts and every term 36 bytes, so the
   * section's size fixes the number of terms. */
  if (sc->size < 12 * m || (sc->size - 12 * m) % 36 != 0) {
    sp_set_err(err, errlen,
               "%s: constraints section of %" PRIu64 " bytes (byte offset %" PRIu64
               ") cannot hold %" PRIu64 " constraints: it must be 12 bytes per constraint plus 36 "
               "per term",
               f->esc, sc->size, sc->off, m);
    return SEALPROV_ERR_PARAMS;
  }
  uint64_t total = (sc->size - 12 * m) / 36;
  if (total >= UINT64_C(1) << 40) {
    sp_set_err(err, errlen, "%s: %" PRIu64 " terms exceed what this loader supports (2^40)",
               f->esc, total);
    return SEALPROV_ERR_PARAMS;
  }
  cs->off = malloc((3 * m + 1) * sizeof *cs->off);
  cs->var = malloc((total ? total : 1) * sizeof *cs->var);
  cs->cix = malloc((total ? total : 1) * sizeof *cs->cix);
  /* The buffer need not exceed the section (+1: never malloc(0)): a 4 MiB buffer for a
   * small file was most of fuzz_r1cs's time under ASan (perf: memset and page faults). */
  reader r = {.f = f, .pos = sc->off, .end = sc->off + sc->size,
              .cap = sc->size < READER_CHUNK ? (size_t)sc->size + 1 : READER_CHUNK,
              .buf_off = sc->off};
  r.buf = malloc(r.cap);
  coef_table ct = {0};
  int st = SEALPROV_OK;
  if (!cs->off || !cs->var || !cs->cix || !r.buf) {
    st = SEALPROV_ERR_NO_MEMORY;
    sp_set_err(err, errlen, "%s: out of memory for %" PRIu64 " constraints with %" PRIu64 " terms",
               f->esc, m, total);
    goto out;
  }
  static const uint64_t one_k[4] = {1, 0, 0, 0};
  if (coef_index(&ct, one_k) != 0) {
    st = SEALPROV_ERR_NO_MEMORY;
    sp_set_err(err, errlen, "%s: out of memory for the coefficient table", f->esc);
    goto out;
  }
  uint64_t wa = words_of(cs->aux_size), wi = words_of(cs->inp_size);
  uint64_t *a_aux = cs->bitmaps, *b_inp = cs->bitmaps + wa, *b_aux = cs->bitmaps + wa + wi;
  uint64_t k = 0;
  for (uint64_t i = 0; i < m; i++) {
    for (int q = 0; q < 3; q++) {
      cs->off[3 * i + q] = k;
      uint64_t at = r.pos;
      const uint8_t *p = reader_take(&r, 4, &st, err, errlen);
      if (!p)
        goto short_read;
      uint32_t nt = le32(p);
      if ((uint64_t)nt > total - k) {
        st = SEALPROV_ERR_PARAMS;
        sp_set_err(err, errlen,
                   "%s: constraint %" PRIu64 " %s: %" PRIu32 " terms (count at byte offset %" PRIu64
                   ") run past the end of the constraints section (%" PRIu64 " terms in all, %" PRIu64
                   " already read)",
                   f->esc, i, lc_name[q], nt, at, total, k);
        goto out;
      }
      for (uint32_t j = 0; j < nt; j++) {
        at = r.pos;
        p = reader_take(&r, 36, &st, err, errlen);
        if (!p)
          goto short_read;
        uint32_t w = le32(p);
        if (w >= nwires) {
          st = SEALPROV_ERR_PARAMS;
          sp_set_err(err, errlen,
                     "%s: constraint %" PRIu64 " %s term %" PRIu32 " (byte offset %" PRIu64
                     "): wire %" PRIu32 " is not below nWires %" PRIu64,
                     f->esc, i, lc_name[q], j, at, w, nwires);
          goto out;
        }
        if (!below_r(p + 4)) {
          st = SEALPROV_ERR_PARAMS;
          sp_set_err(err, errlen,
                     "%s: constraint %" PRIu64 " %s term %" PRIu32 " (byte offset %" PRIu64
                     "): coefficient is not below BLS12-381's r",
                     f->esc, i, lc_name[q], j, at + 4);
          goto out;
        }
        uint64_t key[4];
        for (int l = 0; l < 4; l++)
          key[l] = le64(p + 4 + 8 * l);
        uint32_t ci = coef_index(&ct, key);
        if (ci == UINT32_MAX) {
          st = SEALPROV_ERR_NO_MEMORY;
          sp_set_err(err, errlen, "%s: out of memory for the coefficient table (%" PRIu32 " values)",
                     f->esc, ct.n);
          goto out;
        }
        cs->var[k] = w;
        cs->cix[k] = ci;
        k++;
        cs->nnz[q]++;
        bool nonzero = (key[0] | key[1] | key[2] | key[3]) != 0;
        if (nonzero && q == 0 && w >= cs->inp_size) {
          uint64_t v = w - cs->inp_size;
          a_aux[v / 64] |= UINT64_C(1) << (v % 64);
        } else if (nonzero && q == 1) {
          if (w < cs->inp_size)
            b_inp[w / 64] |= UINT64_C(1) << (w % 64);
          else {
            uint64_t v = w - cs->inp_size;
            b_aux[v / 64] |= UINT64_C(1) << (v % 64);
          }
        }
      }
    }
  }
  cs->off[3 * m] = k;
  if (k != total || r.pos != r.end) { /* cannot happen: the size fixed both */
    st = SEALPROV_ERR_PARAMS;
    sp_set_err(err, errlen,
               "%s: constraints section: %" PRIu64 " terms read, %" PRIu64 " expected from its size",
               f->esc, k, total);
    goto out;
  }
  cs->coeffs = ct.vals;
  cs->ncoeffs = ct.n;
  ct.vals = NULL;
  goto out;
short_read:
  if (st == -1) {
    st = SEALPROV_ERR_PARAMS;
    sp_set_err(err, errlen,
               "%s: constraint data runs past the end of the constraints section (byte offset %" PRIu64
               ", section ends at %" PRIu64 ")",
               f->esc, r.pos, r.end);
  }
out:
  free(r.buf);
  free(ct.slot);
  free(ct.keys);
  free(ct.vals);
  return st;
}

int sp_cs_load(const char *path, sp_cs **out, char *err, size_t errlen)
{
  if (out)
    *out = NULL;
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
  SP_TRY_GOTO(sp_iden3_read(&f, "r1cs", "circom .r1cs", SEALPROV_ERR_PARAMS, &version, sec, 5,
                            NULL, err, errlen),
              st, fail);
  if (version != 1) {
    st = SEALPROV_ERR_PARAMS;
    sp_set_err(err, errlen, "%s: .r1cs version %" PRIu32 " (this reader knows version 1)", f.esc,
               version);
    goto fail;
  }
  for (unsigned t = 4; t <= 5; t++) {
    if (sec[t].present) {
      st = SEALPROV_ERR_UNSUPPORTED;
      sp_set_err(err, errlen,
                 "%s: has a PLONK custom-gates section (type %u at byte offset %" PRIu64
                 "): Groth16 cannot prove custom gates",
                 f.esc, t, sec[t].off - 12);
      goto fail;
    }
  }
  if (!sec[1].present || !sec[2].present) {
    st = SEALPROV_ERR_PARAMS;
    sp_set_err(err, errlen, "%s: no %s section (type %d)", f.esc,
               sec[1].present ? "constraints" : "header", sec[1].present ? 2 : 1);
    goto fail;
  }
  uint32_t n8 = 0;
  SP_TRY_GOTO(check_prime(&f, &sec[1], &n8, err, errlen, SEALPROV_ERR_PARAMS), st, fail);
  if (sec[1].size != 32 + 32) {
    st = SEALPROV_ERR_PARAMS;
    sp_set_err(err, errlen,
               "%s: header section is %" PRIu64 " bytes (byte offset %" PRIu64 "); with 32-byte "
               "field elements it must be 64",
               f.esc, sec[1].size, sec[1].off);
    goto fail;
  }
  uint8_t h[28];
  SP_TRY_GOTO(sp_file_read(&f, h, 28, sec[1].off + 36, "header", err, errlen), st, fail);
  uint64_t nwires = le32(h);
  cs->n_pub_out = le32(h + 4);
  cs->n_pub_in = le32(h + 8);
  cs->n_prv_in = le32(h + 12);
  uint64_t nlabels = le64(h + 16);
  cs->n_rows = le32(h + 24);
  uint64_t inp = 1 + (uint64_t)cs->n_pub_out + cs->n_pub_in;
  if (nwires < inp + cs->n_prv_in) {
    st = SEALPROV_ERR_PARAMS;
    sp_set_err(err, errlen,
               "%s: header: nWires %" PRIu64 " is smaller than ONE + nPubOut %" PRIu32
               " + nPubIn %" PRIu32 " + nPrvIn %" PRIu32,
               f.esc, nwires, cs->n_pub_out, cs->n_pub_in, cs->n_prv_in);
    goto fail;
  }
  if (nlabels < nwires) {
    st = SEALPROV_ERR_PARAMS;
    sp_set_err(err, errlen, "%s: header: nLabels %" PRIu64 " is smaller than nWires %" PRIu64,
               f.esc, nlabels, nwires);
    goto fail;
  }
  /* nWires sizes the density bitmaps (and the witness a job must give): the
   * wire-to-label section (8 bytes a wire, always written by circom) is what backs it in
   * the file. Without it, a 12-byte change to a small file claimed 2^32 wires and made
   * the load allocate and clear 1 GiB (fuzz_r1cs, tests/fuzz/corpus/r1cs). */
  if (!sec[3].present) {
    st = SEALPROV_ERR_PARAMS;
    sp_set_err(err, errlen,
               "%s: no wire-to-label section (type 3), which circom always writes: nothing in "
               "the file backs nWires %" PRIu64,
               f.esc, nwires);
    goto fail;
  }
  if (sec[3].size != 8 * nwires) {
    st = SEALPROV_ERR_PARAMS;
    sp_set_err(err, errlen,
               "%s: wire-to-label section is %" PRIu64 " bytes (byte offset %" PRIu64
               "); nWires %" PRIu64 " needs %" PRIu64,
               f.esc, sec[3].size, sec[3].off, nwires, 8 * nwires);
    goto fail;
  }
  cs->inp_size = inp;
  cs->aux_size = nwires - inp;
  cs->abc_size = cs->n_rows + inp;
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

/* ---- checks at submit -------------------------------------------------------------- */

int sp_cs_check_partition(const struct sp_srs *srs, const sp_cs *cs, const sealprov_assignment *w,
                          char *err, size_t errlen)
{
  if (!srs || !cs || !w) {
    sp_set_err(err, errlen, "NULL %s", !srs ? "srs" : !cs ? "cs" : "partition");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const char *set = w->a ? "a" : w->b ? "b" : w->c ? "c" : w->abc_size ? "abc_size" :
                    w->a_aux_density ? "a_aux_density" : w->b_inp_density ? "b_inp_density" :
                    w->b_aux_density ? "b_aux_density" : NULL;
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
  _Atomic uint64_t bad;     /* first variable that did not decode, + 1 (0 = none) */
} eval_ctx;

/* The products run on the witness's raw limbs, in whichever encoding it came. A
 * Montgomery product is mont(u, v) = u v / R; with a coefficient in Montgomery form
 * (c R) and a raw witness limb vector w, mont(c R, w) = c w: the canonical value of c x
 * when w = x (canonical encoding), the Montgomery form of c x when w = x R (Montgomery
 * encoding). Additions are the same in both. So no scalar is converted on the way in
 * or out: the witness is only range-checked (< r), and a, b, c are stored as limbs in
 * the job's own encoding. */
static void store_scalar(uint8_t *out, const fr_t *v)
{
  for (int i = 0; i < 4; i++)
    put64(out + 8 * i, v->l[i]);
}

static void decode_range(void *vctx, size_t begin, size_t end, unsigned chunk)
{
  (void)chunk;
  eval_ctx *x = vctx;
  uint64_t inp = x->cs->inp_size;
  for (size_t v = begin; v < end; v++) {
    const uint8_t *p = v < inp ? (const uint8_t *)x->w->inp_assignment + 32 * v
                               : (const uint8_t *)x->w->aux_assignment + 32 * (v - inp);
    if (!below_r(p)) {
      uint64_t cur = atomic_load(&x->bad), want = (uint64_t)v + 1;
      while ((cur == 0 || want < cur) && !atomic_compare_exchange_weak(&x->bad, &cur, want))
        ;
      return;
    }
    for (int i = 0; i < 4; i++)
      x->z[v].l[i] = le64(p + 8 * i);
  }
}

static void spmv_range(void *vctx, size_t begin, size_t end, unsigned chunk)
{
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

void sp_cs_assignment_of(const sp_cs *cs, const sealprov_assignment *w, sealprov_assignment *out)
{
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

void sp_cs_eval_free(sp_cs_eval *e)
{
  if (!e)
    return;
  free(e->abc);
  free(e);
}

int sp_cs_evaluate(const sp_cs *cs, const sealprov_assignment *w, uint32_t enc, unsigned nthreads,
                   sp_cs_eval **out, char *err, size_t errlen)
{
  if (out)
    *out = NULL;
  if (!cs || !w || !out) {
    sp_set_err(err, errlen, "cs evaluate: NULL %s", !cs ? "cs" : !w ? "witness" : "out");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (enc != SEALPROV_SCALAR_CANONICAL_LE && enc != SEALPROV_SCALAR_MONTGOMERY) {
    sp_set_err(err, errlen, "scalar_encoding %" PRIu32 " is neither CANONICAL_LE (0) nor MONTGOMERY (1)",
               enc);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (w->inp_size != cs->inp_size || w->aux_size != cs->aux_size ||
      (w->inp_size && !w->inp_assignment) || (w->aux_size && !w->aux_assignment)) {
    sp_set_err(err, errlen,
               "witness (inp_size %" PRIu64 ", aux_size %" PRIu64 ") does not fit constraint system %s "
               "(inp_size %" PRIu64 ", aux_size %" PRIu64 ") or a vector is NULL",
               w->inp_size, w->aux_size, cs->path, cs->inp_size, cs->aux_size);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (nthreads == 0)
    nthreads = 1;
  uint64_t nvars = cs->inp_size + cs->aux_size, abc = cs->abc_size;
  sp_cs_eval *e = calloc(1, sizeof *e);
  fr_t *z = malloc((nvars ? nvars : 1) * sizeof *z);
  if (e)
    e->abc = malloc(3 * abc * 32);
  if (!e || !z || !e->abc) {
    sp_cs_eval_free(e);
    free(z);
    sp_set_err(err, errlen, "out of memory evaluating constraint system %s (%" PRIu64 " rows)",
               cs->path, abc);
    return SEALPROV_ERR_NO_MEMORY;
  }
  eval_ctx x = {.cs = cs, .w = w, .enc = enc, .z = z, .a = e->abc, .b = e->abc + 32 * abc,
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

/* ---- .wtns --------------------------------------------------------------------------- */

void sp_wtns_free(sp_wtns *w)
{
  if (!w)
    return;
  if (w->values)
    explicit_bzero(w->values, w->n * 32);
  free(w->values);
  free(w);
}

int sp_wtns_load(const char *path, sp_wtns **out, char *err, size_t errlen)
{
  if (out)
    *out = NULL;
  if (!path || !out) {
    sp_set_err(err, errlen, "wtns load: NULL %s", path ? "out" : "path");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  sp_file f;
  SP_TRY(sp_file_open(&f, path, err, errlen));
  const int bad = SEALPROV_ERR_ASSIGNMENT;
  sp_iden3_section sec[3] = {{0}};
  uint32_t version = 0;
  sp_wtns *w = NULL;
  int st;
  SP_TRY_GOTO(sp_iden3_read(&f, "wtns", "circom .wtns", bad, &version, sec, 2, NULL, err, errlen), st,
              fail);
  if (version != 1 && version != 2) {
    st = bad;
    sp_set_err(err, errlen, "%s: .wtns version %" PRIu32 " (this reader knows versions 1 and 2)",
               f.esc, version);
    goto fail;
  }
  if (!sec[1].present || !sec[2].present) {
    st = bad;
    sp_set_err(err, errlen, "%s: no %s section (type %d)", f.esc,
               sec[1].present ? "witness values" : "header", sec[1].present ? 2 : 1);
    goto fail;
  }
  uint32_t n8 = 0;
  SP_TRY_GOTO(check_prime(&f, &sec[1], &n8, err, errlen, bad), st, fail);
  if (sec[1].size != 40) {
    st = bad;
    sp_set_err(err, errlen,
               "%s: header section is %" PRIu64 " bytes (byte offset %" PRIu64 "); with 32-byte "
               "field elements it must be 40",
               f.esc, sec[1].size, sec[1].off);
    goto fail;
  }
  uint8_t nb[4];
  SP_TRY_GOTO(sp_file_read(&f, nb, 4, sec[1].off + 36, "nWitness", err, errlen), st, fail);
  uint64_t n = le32(nb);
  if (sec[2].size != 32 * n) {
    st = bad;
    sp_set_err(err, errlen,
               "%s: witness section is %" PRIu64 " bytes (byte offset %" PRIu64 "), but the header "
               "says nWitness %" PRIu64 " (%" PRIu64 " bytes)",
               f.esc, sec[2].size, sec[2].off, n, 32 * n);
    goto fail;
  }
  w = calloc(1, sizeof *w);
  if (w)
    w->values = malloc(n ? 32 * n : 32);
  if (!w || !w->values) {
    st = SEALPROV_ERR_NO_MEMORY;
    sp_set_err(err, errlen, "%s: out of memory for %" PRIu64 " witness values", f.esc, n);
    goto fail;
  }
  w->n = n;
  SP_TRY_GOTO(sp_file_read(&f, w->values, (size_t)(32 * n), sec[2].off, "witness values", err,
                           errlen),
              st, fail);
  SP_TRY_GOTO(sp_file_check_unchanged(&f, err, errlen), st, fail);
  for (uint64_t i = 0; i < n; i++) {
    if (!below_r(w->values + 32 * i)) {
      st = bad;
      sp_set_err(err, errlen, "%s: witness value %" PRIu64 " (byte offset %" PRIu64
                 ") is not below BLS12-381's r",
                 f.esc, i, sec[2].off + 32 * i);
      goto fail;
    }
  }
  sp_file_close(&f);
  *out = w;
  return SEALPROV_OK;
fail:
  sp_file_close(&f);
  sp_wtns_free(w);
  return st;
}

int sp_wtns_write(const char *path, const uint8_t *values, uint64_t n, char *err, size_t errlen)
{
  char esc[SP_ESC_MAX];
  /* the header holds n in 32 bits: refused before anything is written */
  if (n > UINT32_MAX) {
    sp_set_err(err, errlen, "%s: more than 2^32 - 1 witness values (%" PRIu64 ")",
               sp_utf8_escape(path, esc, sizeof esc), n);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    sp_set_err(err, errlen, "%s: cannot create: %s", sp_utf8_escape(path, esc, sizeof esc),
               strerror(errno));
    return SEALPROV_ERR_IO;
  }
  struct stat sb; /* only a regular file is removed after a failed write, never /dev/full */
  bool regular = fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode);
  uint8_t h[12 + 12 + 40 + 12];
  memcpy(h, "wtns", 4);
  put32(h + 4, 2);
  put32(h + 8, 2);
  put32(h + 12, 1);
  put64(h + 16, 40);
  put32(h + 24, 32);
  memcpy(h + 28, sp_cs_bls12_381_r_le, 32);
  put32(h + 60, (uint32_t)n);
  put32(h + 64, 2);
  put64(h + 68, 32 * n);
  bool ok = fwrite(h, sizeof h, 1, fp) == 1 && (n == 0 || fwrite(values, 32, n, fp) == n);
  int werr = ok ? 0 : errno;
  if (fclose(fp) != 0 && ok) {
    ok = false;
    werr = errno;
  }
  if (!ok) {
    if (regular)
      (void)unlink(path); /* no cut-short .wtns left behind for a later reader */
    sp_set_err(err, errlen, "%s: write failed: %s", sp_utf8_escape(path, esc, sizeof esc),
               werr ? strerror(werr) : "short write");
    return SEALPROV_ERR_IO;
  }
  return SEALPROV_OK;
}
