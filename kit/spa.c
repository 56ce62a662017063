/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* spa.c -- partition assignment files; the layout is in spa.h and docs/formats.md. */
#include "base/util.h"
#include "spa.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bls12_381/bls12_381.h"

/* ---- XXH64, written from the xxHash specification (seed 0 only is used) ------- */

#define P64_1 UINT64_C(0x9E3779B185EBCA87)
#define P64_2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P64_3 UINT64_C(0x165667B19E3779F9)
#define P64_4 UINT64_C(0x85EBCA77C2B2AE63)
#define P64_5 UINT64_C(0x27D4EB2F165667C5)

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t xxh_round(uint64_t acc, uint64_t lane) {
  acc += lane * P64_2;
  acc = rotl64(acc, 31);
  return acc * P64_1;
}

static uint64_t xxh_merge(uint64_t acc, uint64_t v) {
  acc ^= xxh_round(0, v);
  return acc * P64_1 + P64_4;
}

void sp_xxh64_init(sp_xxh64_state *h) {
  memset(h, 0, sizeof *h);
  h->v[0] = P64_1 + P64_2;
  h->v[1] = P64_2;
  h->v[2] = 0;
  h->v[3] = (uint64_t)0 - P64_1;
}

static void xxh_stripe(sp_xxh64_state *h, const uint8_t *p) {
  for (int i = 0; i < 4; i++) h->v[i] = xxh_round(h->v[i], sp_le64(p + 8 * i));
}

void sp_xxh64_update(sp_xxh64_state *h, const void *data, size_t len) {
  const uint8_t *p = data;
  h->total += len;
  if (h->buffered) {
    size_t take = 32 - h->buffered;
    if (take > len) take = len;
    memcpy(h->buf + h->buffered, p, take);
    h->buffered += take;
    p += take;
    len -= take;
    if (h->buffered < 32) return;
    xxh_stripe(h, h->buf);
    h->buffered = 0;
  }
  while (len >= 32) {
    xxh_stripe(h, p);
    p += 32;
    len -= 32;
  }
  memcpy(h->buf, p, len);
  h->buffered = len;
}

uint64_t sp_xxh64_final(const sp_xxh64_state *h) {
  uint64_t acc;
  if (h->total >= 32) {
    acc = rotl64(h->v[0], 1) + rotl64(h->v[1], 7) + rotl64(h->v[2], 12) + rotl64(h->v[3], 18);
    for (int i = 0; i < 4; i++) acc = xxh_merge(acc, h->v[i]);
  } else {
    acc = P64_5;
  }
  acc += h->total;
  const uint8_t *p = h->buf;
  size_t len = h->buffered;
  while (len >= 8) {
    acc ^= xxh_round(0, sp_le64(p));
    acc = rotl64(acc, 27) * P64_1 + P64_4;
    p += 8;
    len -= 8;
  }
  if (len >= 4) {
    acc ^= (uint64_t)sp_le32(p) * P64_1;
    acc = rotl64(acc, 23) * P64_2 + P64_3;
    p += 4;
    len -= 4;
  }
  while (len--) {
    acc ^= (uint64_t)(*p++) * P64_5;
    acc = rotl64(acc, 11) * P64_1;
  }
  acc ^= acc >> 33;
  acc *= P64_2;
  acc ^= acc >> 29;
  acc *= P64_3;
  acc ^= acc >> 32;
  return acc;
}

uint64_t sp_xxh64(const void *data, size_t len) {
  sp_xxh64_state h;
  sp_xxh64_init(&h);
  sp_xxh64_update(&h, data, len);
  return sp_xxh64_final(&h);
}

/* ---- layout ------------------------------------------------------------------- */

typedef struct spa_layout {
  uint64_t off_a, off_b, off_c, off_inp, off_aux, off_dens[3], off_sum, total;
} spa_layout;

static bool add_ovf(uint64_t *acc, uint64_t count, uint64_t each) {
  unsigned __int128 v = (unsigned __int128)count * each + *acc;
  if (v > (unsigned __int128)UINT64_MAX) return false;
  *acc = (uint64_t)v;
  return true;
}

static uint64_t words_of(uint64_t bits) { return bits / 64 + (bits % 64 != 0); }

/* false on overflow */
static bool layout_of(const sealprov_assignment *a, spa_layout *l) {
  uint64_t o = SP_SPA_HEADER_BYTES;
  l->off_a = o;
  if (!add_ovf(&o, a->abc_size, 32)) return false;
  l->off_b = o;
  if (!add_ovf(&o, a->abc_size, 32)) return false;
  l->off_c = o;
  if (!add_ovf(&o, a->abc_size, 32)) return false;
  l->off_inp = o;
  if (!add_ovf(&o, a->inp_size, 32)) return false;
  l->off_aux = o;
  if (!add_ovf(&o, a->aux_size, 32)) return false;
  uint64_t bits[3] = {a->a_aux_bit_len, a->b_inp_bit_len, a->b_aux_bit_len};
  for (int k = 0; k < 3; k++) {
    l->off_dens[k] = o;
    if (!add_ovf(&o, words_of(bits[k]), 8)) return false;
  }
  l->off_sum = o;
  if (!add_ovf(&o, 1, 8)) return false;
  l->total = o;
  return true;
}

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- write -------------------------------------------------------------------- */

typedef struct spa_writer {
  FILE *f;
  sp_xxh64_state h;
  bool failed;
} spa_writer;

static void w_bytes(spa_writer *w, const void *p, size_t n) {
  if (w->failed || n == 0) return;
  sp_xxh64_update(&w->h, p, n);
  if (fwrite(p, 1, n, w->f) != n) w->failed = true;
}

/* Bitmaps go out as little-endian 64-bit words whatever the host order. */
static void w_words(spa_writer *w, const uint64_t *words, uint64_t n) {
  uint8_t buf[8 * 512];
  while (n) {
    size_t chunk = n > 512 ? 512 : (size_t)n;
    for (size_t i = 0; i < chunk; i++) put64(buf + 8 * i, words[i]);
    w_bytes(w, buf, 8 * chunk);
    words += chunk;
    n -= chunk;
  }
}

int sp_spa_write(const char *path, const sealprov_assignment *a, char *err, size_t errlen) {
  spa_layout lay;
  if (!path || !a || !layout_of(a, &lay)) {
    sp_set_err(err, errlen, "%s: sizes overflow the file format", path ? path : "(null)");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp) {
    sp_set_err(err, errlen, "%s: out of memory", path);
    return SEALPROV_ERR_NO_MEMORY;
  }
  snprintf(tmp, plen + 16, "%s.tmp%ld", path, (long)getpid());
  spa_writer w = {.f = fopen(tmp, "wb")};
  if (!w.f) {
    sp_set_err(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
    free(tmp);
    return SEALPROV_ERR_IO;
  }
  sp_xxh64_init(&w.h);
  uint8_t hdr[SP_SPA_HEADER_BYTES] = {0};
  memcpy(hdr, SP_SPA_MAGIC, 8);
  put32(hdr + 8, SP_SPA_VERSION);
  put32(hdr + 12, SEALPROV_SCALAR_CANONICAL_LE);
  uint64_t fields[10] = {
      a->abc_size,      a->inp_size,       a->aux_size,      a->a_aux_bit_len,  a->a_aux_popcount,
      a->b_inp_bit_len, a->b_inp_popcount, a->b_aux_bit_len, a->b_aux_popcount, 0};
  for (int i = 0; i < 10; i++) put64(hdr + 16 + 8 * i, fields[i]);
  w_bytes(&w, hdr, sizeof hdr);
  w_bytes(&w, a->a, (size_t)a->abc_size * 32);
  w_bytes(&w, a->b, (size_t)a->abc_size * 32);
  w_bytes(&w, a->c, (size_t)a->abc_size * 32);
  w_bytes(&w, a->inp_assignment, (size_t)a->inp_size * 32);
  w_bytes(&w, a->aux_assignment, (size_t)a->aux_size * 32);
  w_words(&w, a->a_aux_density, words_of(a->a_aux_bit_len));
  w_words(&w, a->b_inp_density, words_of(a->b_inp_bit_len));
  w_words(&w, a->b_aux_density, words_of(a->b_aux_bit_len));
  uint8_t sum[8];
  put64(sum, sp_xxh64_final(&w.h));
  if (!w.failed && fwrite(sum, 1, 8, w.f) != 8) w.failed = true;
  int saved = errno;
  if (fclose(w.f) != 0 && !w.failed) {
    w.failed = true;
    saved = errno;
  }
  if (w.failed || rename(tmp, path) != 0) {
    if (!w.failed) saved = errno;
    sp_set_err(err, errlen, "%s: cannot write: %s", path, strerror(saved));
    unlink(tmp);
    free(tmp);
    return SEALPROV_ERR_IO;
  }
  free(tmp);
  return SEALPROV_OK;
}

/* ---- read --------------------------------------------------------------------- */

void sp_spa_free(sp_spa *spa) {
  if (!spa) return;
  free(spa->map);
  free(spa->path);
  free(spa);
}

static bool scalar_canonical(const uint8_t *p) {
  for (int i = 3; i >= 0; i--) {
    uint64_t v = sp_le64(p + 8 * i);
    if (v < BLS_R[i]) return true;
    if (v > BLS_R[i]) return false;
  }
  return false;
}

int sp_spa_read(const char *path, sp_spa **out, char *err, size_t errlen) {
  if (!path || !out) {
    sp_set_err(err, errlen, "NULL path or output");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  /* The whole file is read into private memory (never mapped): a job may use the
   * assignment long after this returns, and a mapped file that shrinks under it would
   * raise SIGBUS in the host. */
  sp_file f;
  int st = sp_file_open(&f, path, err, errlen);
  if (st != SEALPROV_OK) return st;
  if (f.size < SP_SPA_HEADER_BYTES + 8) {
    sp_set_err(err, errlen, "%s: truncated: %llu bytes, the header and checksum alone need %u",
               f.esc, (unsigned long long)f.size, SP_SPA_HEADER_BYTES + 8);
    sp_file_close(&f);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  if (f.size > (uint64_t)SIZE_MAX - 8) {
    sp_set_err(err, errlen, "%s: %llu bytes does not fit in memory", f.esc,
               (unsigned long long)f.size);
    sp_file_close(&f);
    return SEALPROV_ERR_NO_MEMORY;
  }
  size_t size = (size_t)f.size;
  sp_spa *s = calloc(1, sizeof *s);
  uint8_t *data = s ? malloc(size) : NULL; /* malloc's alignment suits the 64-bit words */
  if (!s || !data || !(s->path = strdup(path))) {
    sp_set_err(err, errlen, "%s: out of memory for %zu bytes", f.esc, size);
    free(data);
    free(s);
    sp_file_close(&f);
    return SEALPROV_ERR_NO_MEMORY;
  }
  s->map = data;
  s->map_len = size;
  st = sp_file_read(&f, data, size, 0, "assignment", err, errlen);
  if (st == SEALPROV_OK) st = sp_file_check_unchanged(&f, err, errlen);
  char pesc[SP_ESC_MAX];
  snprintf(pesc, sizeof pesc, "%s", f.esc);
  sp_file_close(&f);
  if (st != SEALPROV_OK) {
    sp_spa_free(s);
    return st;
  }
  path = pesc; /* messages below name the file escaped */
  int rc = SEALPROV_ERR_ASSIGNMENT;
  if (memcmp(data, SP_SPA_MAGIC, 8) != 0) {
    sp_set_err(err, errlen, "%s: bad magic at byte offset 0 (not a sealprov assignment file)",
               path);
    goto fail;
  }
  uint32_t version = sp_le32(data + 8), enc = sp_le32(data + 12);
  if (version != SP_SPA_VERSION) {
    sp_set_err(err, errlen, "%s: version %u at byte offset 8 is not supported (expected %u)", path,
               version, SP_SPA_VERSION);
    goto fail;
  }
  if (enc != SEALPROV_SCALAR_CANONICAL_LE) {
    sp_set_err(err, errlen,
               "%s: scalar encoding %u at byte offset 12 is not supported (expected 0)", path, enc);
    goto fail;
  }
  sealprov_assignment *a = &s->asg;
  a->abc_size = sp_le64(data + 16);
  a->inp_size = sp_le64(data + 24);
  a->aux_size = sp_le64(data + 32);
  a->a_aux_bit_len = sp_le64(data + 40);
  a->a_aux_popcount = sp_le64(data + 48);
  a->b_inp_bit_len = sp_le64(data + 56);
  a->b_inp_popcount = sp_le64(data + 64);
  a->b_aux_bit_len = sp_le64(data + 72);
  a->b_aux_popcount = sp_le64(data + 80);
  if (sp_le64(data + 88) != 0) {
    sp_set_err(err, errlen, "%s: reserved field at byte offset 88 is not zero", path);
    goto fail;
  }
  spa_layout lay;
  bool fits = layout_of(a, &lay);
  if (!fits || lay.total != size) {
    char need[48];
    if (fits)
      snprintf(need, sizeof need, "%llu bytes", (unsigned long long)lay.total);
    else
      snprintf(need, sizeof need, "more than 2^64 bytes");
    sp_set_err(err, errlen,
               "%s: sizes in the header (abc_size %llu, inp_size %llu, aux_size %llu, density bits "
               "%llu/%llu/%llu) need %s but the file has %zu bytes",
               path, (unsigned long long)a->abc_size, (unsigned long long)a->inp_size,
               (unsigned long long)a->aux_size, (unsigned long long)a->a_aux_bit_len,
               (unsigned long long)a->b_inp_bit_len, (unsigned long long)a->b_aux_bit_len, need,
               size);
    goto fail;
  }
  uint64_t want = sp_le64(data + lay.off_sum), got = sp_xxh64(data, (size_t)lay.off_sum);
  if (want != got) {
    sp_set_err(err, errlen,
               "%s: checksum mismatch: stored %016llx at byte offset %llu, computed %016llx (file "
               "corrupted)",
               path, (unsigned long long)want, (unsigned long long)lay.off_sum,
               (unsigned long long)got);
    goto fail;
  }
  if (a->a_aux_bit_len != a->aux_size || a->b_aux_bit_len != a->aux_size ||
      a->b_inp_bit_len != a->inp_size) {
    sp_set_err(err, errlen,
               "%s: density bit lengths a_aux %llu, b_inp %llu, b_aux %llu do not match aux_size "
               "%llu / inp_size %llu",
               path, (unsigned long long)a->a_aux_bit_len, (unsigned long long)a->b_inp_bit_len,
               (unsigned long long)a->b_aux_bit_len, (unsigned long long)a->aux_size,
               (unsigned long long)a->inp_size);
    goto fail;
  }
  a->a = data + lay.off_a;
  a->b = data + lay.off_b;
  a->c = data + lay.off_c;
  a->inp_assignment = data + lay.off_inp;
  a->aux_assignment = data + lay.off_aux;
  /* The words are 8-byte aligned in the buffer (every section is a multiple of 8
   * bytes). They are little-endian on disk, which is the host order on every
   * platform this module supports. */
  _Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "spa reads bitmaps in place");
  a->a_aux_density = (const uint64_t *)(data + lay.off_dens[0]);
  a->b_inp_density = (const uint64_t *)(data + lay.off_dens[1]);
  a->b_aux_density = (const uint64_t *)(data + lay.off_dens[2]);
  struct {
    const char *name;
    const uint64_t *w;
    uint64_t bits, pop, off;
  } d[3] = {{"a_aux", a->a_aux_density, a->a_aux_bit_len, a->a_aux_popcount, lay.off_dens[0]},
            {"b_inp", a->b_inp_density, a->b_inp_bit_len, a->b_inp_popcount, lay.off_dens[1]},
            {"b_aux", a->b_aux_density, a->b_aux_bit_len, a->b_aux_popcount, lay.off_dens[2]}};
  for (int k = 0; k < 3; k++) {
    uint64_t n = 0, full = d[k].bits / 64, rem = d[k].bits % 64;
    for (uint64_t i = 0; i < full; i++) n += (uint64_t)__builtin_popcountll(d[k].w[i]);
    if (rem) {
      uint64_t mask = (UINT64_C(1) << rem) - 1;
      if (d[k].w[full] & ~mask) {
        sp_set_err(err, errlen,
                   "%s: %s_density word %llu (byte offset %llu) has bits past bit_len %llu", path,
                   d[k].name, (unsigned long long)full, (unsigned long long)(d[k].off + 8 * full),
                   (unsigned long long)d[k].bits);
        goto fail;
      }
      n += (uint64_t)__builtin_popcountll(d[k].w[full]);
    }
    if (n != d[k].pop) {
      sp_set_err(err, errlen, "%s: %s_popcount %llu does not match the %llu bits set in %s_density",
                 path, d[k].name, (unsigned long long)d[k].pop, (unsigned long long)n, d[k].name);
      goto fail;
    }
  }
  struct {
    const char *name;
    uint64_t off, n;
  } v[5] = {{"a", lay.off_a, a->abc_size},
            {"b", lay.off_b, a->abc_size},
            {"c", lay.off_c, a->abc_size},
            {"inp", lay.off_inp, a->inp_size},
            {"aux", lay.off_aux, a->aux_size}};
  for (int k = 0; k < 5; k++)
    for (uint64_t i = 0; i < v[k].n; i++)
      if (!scalar_canonical(data + v[k].off + 32 * i)) {
        sp_set_err(err, errlen, "%s: %s[%llu] (byte offset %llu) is not a canonical scalar (>= r)",
                   path, v[k].name, (unsigned long long)i, (unsigned long long)(v[k].off + 32 * i));
        goto fail;
      }
  *out = s;
  return SEALPROV_OK;
fail:
  sp_spa_free(s);
  return rc;
}
