/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Reading the @noble/curves vectors; see bls_vectors.h. */
#include "bls_vectors.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *vec_dir(void) {
  static char buf[4096];
  const char *d = getenv("BLS_VECTORS_DIR");
  if (d != NULL && *d != '\0') return d;
  const char *top = getenv("top_srcdir");
  if (top != NULL && *top != '\0') {
    snprintf(buf, sizeof buf, "%s/tests/bls12_381/vectors", top);
    return buf;
  }
#ifdef BLS_VECTORS_SRCDIR
  return BLS_VECTORS_SRCDIR;
#else
  return "tests/bls12_381/vectors";
#endif
}

void vec_open(vec_file *vf, const char *name) {
  memset(vf, 0, sizeof *vf);
  snprintf(vf->path, sizeof vf->path, "%s/%s", vec_dir(), name);
  vf->f = fopen(vf->path, "r");
  ck_assert_msg(vf->f != NULL, "cannot open vector file %s: %s (set BLS_VECTORS_DIR or top_srcdir)",
                vf->path, strerror(errno));
}

bool vec_next(vec_file *vf) {
  for (;;) {
    ssize_t len = getline(&vf->line, &vf->cap, vf->f);
    if (len < 0) return false;
    vf->lineno++;
    char *s = vf->line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0') continue;
    vf->ntok = 0;
    for (char *save = NULL, *t = strtok_r(s, " \t\r\n", &save); t != NULL;
         t = strtok_r(NULL, " \t\r\n", &save)) {
      ck_assert_msg(vf->ntok < VEC_MAX_TOKENS, "%s: more than %d tokens", vec_where(vf),
                    VEC_MAX_TOKENS);
      vf->tok[vf->ntok++] = t;
    }
    return true;
  }
}

void vec_close(vec_file *vf) {
  if (vf->f != NULL) fclose(vf->f);
  free(vf->line);
  memset(vf, 0, sizeof *vf);
}

const char *vec_where(const vec_file *vf) {
  static char buf[4200];
  const char *base = strrchr(vf->path, '/');
  snprintf(buf, sizeof buf, "%s:%u", base != NULL ? base + 1 : vf->path, vf->lineno);
  return buf;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static const char *token(const vec_file *vf, int i) {
  ck_assert_msg(i >= 0 && i < vf->ntok, "%s: expected at least %d tokens, found %d", vec_where(vf),
                i + 1, vf->ntok);
  return vf->tok[i];
}

void vec_hex(const vec_file *vf, int i, uint8_t *out, size_t len) {
  const char *t = token(vf, i);
  size_t tl = strlen(t);
  ck_assert_msg(tl == 2 * len, "%s: token %d has %zu hex digits, expected %zu", vec_where(vf), i,
                tl, 2 * len);
  for (size_t k = 0; k < len; k++) {
    int hi = hexval(t[2 * k]), lo = hexval(t[2 * k + 1]);
    ck_assert_msg(hi >= 0 && lo >= 0, "%s: token %d is not hex", vec_where(vf), i);
    out[k] = (uint8_t)(hi << 4 | lo);
  }
}

size_t vec_hex_any(const vec_file *vf, int i, uint8_t *out, size_t cap) {
  const char *t = token(vf, i);
  if (strcmp(t, "-") == 0) return 0;
  size_t tl = strlen(t);
  ck_assert_msg(tl % 2 == 0 && tl / 2 <= cap, "%s: token %d: bad hex length %zu", vec_where(vf), i,
                tl);
  vec_hex(vf, i, out, tl / 2);
  return tl / 2;
}

unsigned long vec_uint(const vec_file *vf, int i) {
  const char *t = token(vf, i);
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(t, &end, 10);
  ck_assert_msg(errno == 0 && end != t && *end == '\0', "%s: token %d (%s) is not a number",
                vec_where(vf), i, t);
  return v;
}

bool vec_is(const vec_file *vf, int i, const char *s) { return strcmp(token(vf, i), s) == 0; }

void vec_fr(const vec_file *vf, int i, fr_t *r) {
  uint8_t b[32];
  vec_hex(vf, i, b, 32);
  ck_assert_msg(fr_from_be32(r, b), "%s: token %d is not a canonical Fr value", vec_where(vf), i);
}

void vec_scalar(const vec_file *vf, int i, scalar_t *r) {
  uint8_t b[32];
  vec_hex(vf, i, b, 32);
  for (int k = 0; k < 4; k++) {
    uint64_t w = 0;
    for (int j = 0; j < 8; j++) w = w << 8 | b[32 - 8 * (k + 1) + j];
    r->l[k] = w;
  }
}

static void fp_at(const vec_file *vf, int i, const uint8_t *b, fp_t *r) {
  ck_assert_msg(fp_from_be48(r, b), "%s: token %d has a coefficient >= p", vec_where(vf), i);
}

void vec_fp(const vec_file *vf, int i, fp_t *r) {
  uint8_t b[48];
  vec_hex(vf, i, b, 48);
  fp_at(vf, i, b, r);
}

void vec_fp2(const vec_file *vf, int i, fp2_t *r) {
  uint8_t b[96];
  vec_hex(vf, i, b, 96);
  fp_at(vf, i, b, &r->c0);
  fp_at(vf, i, b + 48, &r->c1);
}

static void fp6_from(const vec_file *vf, int i, const uint8_t *b, fp6_t *r) {
  fp2_t *c[3] = {&r->c0, &r->c1, &r->c2};
  for (int k = 0; k < 3; k++) {
    fp_at(vf, i, b + 96 * k, &c[k]->c0);
    fp_at(vf, i, b + 96 * k + 48, &c[k]->c1);
  }
}

void vec_fp6(const vec_file *vf, int i, fp6_t *r) {
  uint8_t b[288];
  vec_hex(vf, i, b, 288);
  fp6_from(vf, i, b, r);
}

void vec_fp12(const vec_file *vf, int i, fp12_t *r) {
  uint8_t b[576];
  vec_hex(vf, i, b, 576);
  fp6_from(vf, i, b, &r->c0);
  fp6_from(vf, i, b + 288, &r->c1);
}

void hex_of(char *out, const uint8_t *in, size_t len) {
  static const char digits[] = "0123456789abcdef";
  for (size_t k = 0; k < len; k++) {
    out[2 * k] = digits[in[k] >> 4];
    out[2 * k + 1] = digits[in[k] & 15];
  }
  out[2 * len] = '\0';
}

void pool_init(vec_pool *p, size_t elem_size) {
  memset(p, 0, sizeof *p);
  p->size = elem_size;
}

void *pool_push(vec_pool *p) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    void *items = realloc(p->items, cap * p->size);
    ck_assert_msg(items != NULL, "out of memory growing a vector pool");
    p->items = items;
    p->cap = cap;
  }
  return (char *)p->items + p->size * p->n++;
}

const void *pool_at(const vec_pool *p, const vec_file *vf, int i) {
  unsigned long k = vec_uint(vf, i);
  ck_assert_msg(k < p->n, "%s: pool index %lu out of range (%zu entries so far)", vec_where(vf), k,
                p->n);
  return (const char *)p->items + p->size * k;
}

void pool_free(vec_pool *p) {
  free(p->items);
  memset(p, 0, sizeof *p);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void rng_seed(test_rng *r, uint64_t seed) {
  /* splitmix64 to fill the state, as the xoshiro authors recommend */
  for (int i = 0; i < 4; i++) {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    r->s[i] = z ^ (z >> 31);
  }
}

uint64_t rng_u64(test_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

void rng_fr(test_rng *r, fr_t *out) {
  uint8_t wide[64];
  for (int i = 0; i < 8; i++) {
    uint64_t w = rng_u64(r);
    memcpy(wide + 8 * i, &w, 8);
  }
  fr_from_bytes_wide(out, wide);
}

void rng_scalar(test_rng *r, scalar_t *out) {
  fr_t x;
  rng_fr(r, &x);
  fr_to_scalar(out, &x);
}
