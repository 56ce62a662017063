/* srs.c -- bellperson .params / .vk reader.
 *
 * Layout (all points uncompressed zcash encoding, lengths u32 big-endian):
 *   alpha_g1 (96) beta_g1 (96) beta_g2 (192) gamma_g2 (192) delta_g1 (96) delta_g2 (192)
 *   ic_len, ic[ic_len] (96 each)                      <- end of a .vk file
 *   h_len, h[...]; l_len, l[...]; a_len, a[...]; b_g1_len, b_g1[...] (96 each);
 *   b_g2_len, b_g2[...] (192 each)                   <- end of a .params file
 * The file is mapped and every point decoded (on-curve always, subgroup optional) in
 * parallel. Infinity is rejected everywhere: bellperson never writes it (it filters
 * the A/B queries) and an infinite point in a real file means corruption. */
#include "util.h"
#include "srs.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sealprov.h"

#define G1_BYTES 96u
#define G2_BYTES 192u
#define VK_FIXED_BYTES (3u * G1_BYTES + 3u * G2_BYTES) /* 864 */


/* ---- parallel point decoding ---------------------------------------------------- */

typedef struct decode_ctx {
  const uint8_t *base;   /* first encoded point */
  void *out;             /* g1_affine_t[] or g2_affine_t[] */
  bool g2;
  unsigned flags;
  /* lowest failing index, so the message does not depend on the thread count; its
   * reason is recomputed after the parallel pass (one point) */
  _Atomic uint64_t first_bad;
} decode_ctx;

static void decode_range(void *vctx, size_t begin, size_t end, unsigned chunk)
{
  (void)chunk;
  decode_ctx *c = vctx;
  for (size_t i = begin; i < end; i++) {
    bool ok;
    if (c->g2) {
      g2_affine_t *p = (g2_affine_t *)c->out + i;
      ok = g2_deserialize(p, c->base + (size_t)G2_BYTES * i, G2_BYTES, c->flags) == BLS_OK &&
           !g2_affine_is_inf(p);
    } else {
      g1_affine_t *p = (g1_affine_t *)c->out + i;
      ok = g1_deserialize(p, c->base + (size_t)G1_BYTES * i, G1_BYTES, c->flags) == BLS_OK &&
           !g1_affine_is_inf(p);
    }
    if (!ok) {
      uint64_t cur = atomic_load(&c->first_bad);
      while (i < cur && !atomic_compare_exchange_weak(&c->first_bad, &cur, (uint64_t)i))
        ;
      return;
    }
  }
}

/* Why a single encoded point fails (same checks as decode_range). */
static const char *point_error(const uint8_t *enc, bool g2, unsigned flags)
{
  bls_err e;
  bool inf;
  if (g2) {
    g2_affine_t p;
    e = g2_deserialize(&p, enc, G2_BYTES, flags);
    inf = e == BLS_OK && g2_affine_is_inf(&p);
  } else {
    g1_affine_t p;
    e = g1_deserialize(&p, enc, G1_BYTES, flags);
    inf = e == BLS_OK && g1_affine_is_inf(&p);
  }
  if (e != BLS_OK)
    return bls_err_str(e);
  return inf ? "point at infinity" : "unknown error";
}

typedef struct reader {
  const char *path;
  const uint8_t *map;
  size_t size;
  size_t off;
  unsigned flags;
  unsigned nthreads;
  char *err;
  size_t errlen;
} reader;

static int read_u32be(reader *r, const char *what, uint32_t *v)
{
  if (r->size - r->off < 4) {
    sp_set_err(r->err, r->errlen,
            "%s: truncated: the length of vector %s needs 4 bytes at byte offset %zu but the "
            "file has %zu bytes",
            r->path, what, r->off, r->size);
    return SEALPROV_ERR_PARAMS;
  }
  const uint8_t *p = r->map + r->off;
  *v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
  r->off += 4;
  return SEALPROV_OK;
}

/* Decodes n points of vector `what` at the current offset into *out (malloc'd). */
static int read_points(reader *r, const char *what, size_t n, bool g2, void **out)
{
  size_t each = g2 ? G2_BYTES : G1_BYTES;
  size_t avail = r->size - r->off;
  if (n > avail / each) {
    sp_set_err(r->err, r->errlen,
            "%s: truncated or impossible length: vector %s has %zu points (%llu bytes) at byte "
            "offset %zu but only %zu bytes remain",
            r->path, what, n, (unsigned long long)n * each, r->off, avail);
    return SEALPROV_ERR_PARAMS;
  }
  size_t osize = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  void *dst = malloc(n * osize + 1);
  if (!dst) {
    sp_set_err(r->err, r->errlen, "%s: out of memory for vector %s (%zu points)", r->path, what, n);
    return SEALPROV_ERR_NO_MEMORY;
  }
  decode_ctx c = {.base = r->map + r->off, .out = dst, .g2 = g2, .flags = r->flags};
  atomic_init(&c.first_bad, UINT64_MAX);
  if (n && !bls_parallel_for(n, r->nthreads, decode_range, &c)) {
    free(dst);
    sp_set_err(r->err, r->errlen, "%s: out of memory starting decoder threads", r->path);
    return SEALPROV_ERR_NO_MEMORY;
  }
  uint64_t bad = atomic_load(&c.first_bad);
  if (bad != UINT64_MAX) {
    size_t off = r->off + (size_t)bad * each;
    sp_set_err(r->err, r->errlen, "%s: vector %s index %llu (byte offset %zu): %s", r->path, what,
            (unsigned long long)bad, off, point_error(r->map + off, g2, r->flags));
    free(dst);
    return SEALPROV_ERR_PARAMS;
  }
  r->off += n * each;
  *out = dst;
  return SEALPROV_OK;
}

static int read_one(reader *r, const char *what, bool g2, void *out)
{
  void *tmp = NULL;
  int rc = read_points(r, what, 1, g2, &tmp);
  if (rc == SEALPROV_OK) {
    memcpy(out, tmp, g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t));
    free(tmp);
  }
  return rc;
}

static int read_vector(reader *r, const char *what, bool g2, void **out, size_t *len)
{
  uint32_t n;
  int rc = read_u32be(r, what, &n);
  if (rc)
    return rc;
  *len = n;
  return read_points(r, what, n, g2, out);
}

static void srs_free(sp_srs *s)
{
  if (!s)
    return;
  free(s->vk.ic);
  free(s->h);
  free(s->l);
  free(s->a);
  free(s->b_g1);
  free(s->b_g2);
  free(s->path);
  free(s);
}

static int parse(reader *r, sp_srs *s, bool vk_only)
{
  int rc;
  if ((rc = read_one(r, "alpha_g1", false, &s->vk.alpha_g1)) ||
      (rc = read_one(r, "beta_g1", false, &s->vk.beta_g1)) ||
      (rc = read_one(r, "beta_g2", true, &s->vk.beta_g2)) ||
      (rc = read_one(r, "gamma_g2", true, &s->vk.gamma_g2)) ||
      (rc = read_one(r, "delta_g1", false, &s->vk.delta_g1)) ||
      (rc = read_one(r, "delta_g2", true, &s->vk.delta_g2)))
    return rc;
  if ((rc = read_vector(r, "ic", false, (void **)&s->vk.ic, &s->vk.ic_len)))
    return rc;
  if (s->vk.ic_len == 0) {
    sp_set_err(r->err, r->errlen, "%s: vector ic is empty (byte offset %zu); it needs at least ONE",
            r->path, r->off - 4);
    return SEALPROV_ERR_PARAMS;
  }
  groth16_prepare_vk(&s->vk.pvk, &s->vk.alpha_g1, &s->vk.beta_g2, &s->vk.gamma_g2,
                     &s->vk.delta_g2);
  if (!vk_only) {
    size_t h_off = r->off;
    if ((rc = read_vector(r, "h", false, (void **)&s->h, &s->h_len)))
      return rc;
    /* h has domain-1 points and the domain is a power of two >= 2 */
    size_t m = s->h_len + 1;
    if (s->h_len == 0 || (m & (m - 1)) != 0) {
      sp_set_err(r->err, r->errlen,
              "%s: vector h (byte offset %zu) has %zu points; it must have 2^k - 1 (k >= 1)",
              r->path, h_off, s->h_len);
      return SEALPROV_ERR_PARAMS;
    }
    s->log_domain = (unsigned)__builtin_ctzll((unsigned long long)m);
    if ((rc = read_vector(r, "l", false, (void **)&s->l, &s->l_len)) ||
        (rc = read_vector(r, "a", false, (void **)&s->a, &s->a_len)) ||
        (rc = read_vector(r, "b_g1", false, (void **)&s->b_g1, &s->b_g1_len)) ||
        (rc = read_vector(r, "b_g2", true, (void **)&s->b_g2, &s->b_g2_len)))
      return rc;
    size_t nvars = s->vk.ic_len + s->l_len;
    if (s->a_len < s->vk.ic_len || s->a_len > nvars) {
      sp_set_err(r->err, r->errlen,
              "%s: vector a has %zu points; with ic_len %zu and l_len %zu it must have between "
              "%zu and %zu (every input is in A)",
              r->path, s->a_len, s->vk.ic_len, s->l_len, s->vk.ic_len, nvars);
      return SEALPROV_ERR_PARAMS;
    }
    if (s->b_g1_len != s->b_g2_len || s->b_g1_len > nvars) {
      sp_set_err(r->err, r->errlen,
              "%s: vectors b_g1 (%zu points) and b_g2 (%zu points) must have the same length, at "
              "most ic_len + l_len = %zu",
              r->path, s->b_g1_len, s->b_g2_len, nvars);
      return SEALPROV_ERR_PARAMS;
    }
  }
  if (r->off != r->size) {
    sp_set_err(r->err, r->errlen, "%s: %zu trailing bytes after the last vector (byte offset %zu)",
            r->path, r->size - r->off, r->off);
    return SEALPROV_ERR_PARAMS;
  }
  return SEALPROV_OK;
}

int sp_srs_load(const char *path, bool vk_only, bool subgroup_check, unsigned nthreads,
                sp_srs **out, char *err, size_t errlen)
{
  if (!path || !out) {
    sp_set_err(err, errlen, "NULL path or output handle");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  void *map;
  size_t size;
  int st = sp_map_file(path, VK_FIXED_BYTES + 4, &map, &size, err, errlen);
  if (st != SEALPROV_OK)
    return st;
  if (!map) {
    sp_set_err(err, errlen,
            "%s: truncated: %zu bytes, a verifying key needs at least %u (six points and ic_len)",
            path, size, VK_FIXED_BYTES + 4);
    return SEALPROV_ERR_PARAMS;
  }
  /* one sequential pass per vector: tell the kernel to read ahead */
  madvise(map, size, MADV_SEQUENTIAL);

  sp_srs *s = calloc(1, sizeof *s);
  int rc = SEALPROV_ERR_NO_MEMORY;
  if (!s || !(s->path = strdup(path))) {
    sp_set_err(err, errlen, "%s: out of memory", path);
    goto fail;
  }
  atomic_init(&s->refs, 1);
  s->vk_only = vk_only;
  reader r = {.path = path,
              .map = map,
              .size = size,
              .flags = subgroup_check ? BLS_DECODE_SUBGROUP_CHECK : 0,
              .nthreads = nthreads ? nthreads : 1,
              .err = err,
              .errlen = errlen};
  rc = parse(&r, s, vk_only);
  if (rc)
    goto fail;
  munmap(map, size);
  *out = s;
  return SEALPROV_OK;
fail:
  munmap(map, size);
  srs_free(s);
  return rc;
}

void sp_srs_retain(sp_srs *srs)
{
  if (srs)
    atomic_fetch_add(&srs->refs, 1);
}

void sp_srs_release(sp_srs *srs)
{
  if (!srs)
    return;
  if (atomic_fetch_sub(&srs->refs, 1) != 1)
    return;
  /* last reference: engines drop their device copies before the memory goes */
  if (srs->on_free)
    srs->on_free(srs, srs->on_free_user);
  srs_free(srs);
}
