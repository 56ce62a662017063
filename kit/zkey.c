/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* zkey.c -- snarkjs Groth16 .zkey reader and a CPU prover with snarkjs's conventions.
 * See zkey.h for the conventions and docs/formats.md for the layout.
 *
 * The file is iden3's binary container (as .r1cs / .wtns): magic "zkey", version u32,
 * nSections u32, then { type u32, size u64, content } in any order; little-endian.
 *   1 header:        protocol u32 (1 = Groth16)
 *   2 Groth16 header: n8q u32, q (n8q bytes), n8r u32, r (n8r bytes), nVars u32,
 *                    nPublic u32, domainSize u32, alpha1, beta1 (G1), beta2, gamma2 (G2),
 *                    delta1 (G1), delta2 (G2)
 *   3 IC:            nPublic + 1 G1 points
 *   4 coefficients:  nCoef u32, nCoef x { matrix u32, constraint u32, signal u32,
 *                    value (n8r bytes) }
 *   5 A, 6 B1:       nVars G1 points;  7 B2: nVars G2 points
 *   8 C:             nVars - nPublic - 1 G1 points (the private signals)
 *   9 H:             domainSize G1 points
 *   10 contributions (phase-2 ceremony record; not needed to prove), others: skipped.
 * Field elements are Montgomery little-endian (Fq: R = 2^384; G2 as c0 then c1); the
 * point at infinity is all zero bytes. A coefficient value v stands for v R^-2 mod r
 * (snarkjs multiplies by R^2 when writing so that its Montgomery product with a plain
 * witness value gives a Montgomery result).
 */
#include <config.h>

#include "zkey.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cs.h"
#include "formats/iden3.h"
#include "groth16/groth16.h"
#include "base/util.h"

#define G1_BYTES 96u
#define G2_BYTES 192u
#define NSEC 10u

static const char *const section_names[NSEC + 1] = {
    "",          "header",    "Groth16 header", "IC points", "coefficients", "A points",
    "B1 points", "B2 points", "C points",       "H points",  "contributions"};

/* bn128's base field prime (snarkjs's default curve), little-endian: named in the refusal. */
static const uint8_t bn128_q_le[32] = {
    0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c, 0x8d, 0xca, 0x71, 0x68, 0x91, 0x6a, 0x81, 0x97,
    0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};

/* The section table (cs.h: sp_iden3_read): sec[1..NSEC] get their section; version 1
 * and sections 1..9 must be there. */
static int read_sections(sp_file *f, sp_iden3_section *sec, char *err, size_t errlen) {
  uint32_t version = 0;
  SP_TRY(sp_iden3_read(f, "zkey", "snarkjs .zkey", SEALPROV_ERR_PARAMS, &version, sec, NSEC,
                       section_names, err, errlen));
  if (version != 1) {
    sp_set_err(err, errlen, "%s: .zkey version %" PRIu32 " (this reader knows version 1)", f->esc,
               version);
    return SEALPROV_ERR_UNSUPPORTED;
  }
  for (unsigned t = 1; t <= 9; t++)
    if (!sec[t].present) {
      sp_set_err(err, errlen, "%s: no section %u (%s): not a complete Groth16 .zkey", f->esc, t,
                 section_names[t]);
      return SEALPROV_ERR_PARAMS;
    }
  return SEALPROV_OK;
}

static int expect_size(sp_file *f, const sp_iden3_section *sec, unsigned type, uint64_t want,
                       const char *how, char *err, size_t errlen) {
  if (sec[type].size == want) return SEALPROV_OK;
  sp_set_err(err, errlen,
             "%s: section %u (%s) at byte offset %" PRIu64 " has %" PRIu64
             " bytes; %s gives %" PRIu64,
             f->esc, type, section_names[type], sec[type].off, sec[type].size, how, want);
  return SEALPROV_ERR_PARAMS;
}

static void hex_be(char *out, const uint8_t *le, size_t n) {
  out[0] = '0';
  out[1] = 'x';
  for (size_t i = 0; i < n; i++) snprintf(out + 2 + 2 * i, 3, "%02x", le[n - 1 - i]);
}

/* ---- points ------------------------------------------------------------------------ */

static bool fp_from_le_mont(fp_t *r, const uint8_t *p) {
  uint64_t l[6];
  for (int i = 0; i < 6; i++) l[i] = sp_le64(p + 8 * i);
  return fp_from_blst_mont(r, l);
}

/* NULL when the point is good, else why not. */
static const char *decode_g1(g1_affine_t *out, const uint8_t *p, bool subgroup) {
  if (!fp_from_le_mont(&out->x, p) || !fp_from_le_mont(&out->y, p + 48))
    return "a coordinate is not below p";
  if (!g1_affine_on_curve(out)) return "not on the curve";
  if (subgroup && !g1_affine_is_inf(out) && !g1_affine_in_subgroup(out))
    return "not in the subgroup";
  return NULL;
}

static const char *decode_g2(g2_affine_t *out, const uint8_t *p, bool subgroup) {
  if (!fp_from_le_mont(&out->x.c0, p) || !fp_from_le_mont(&out->x.c1, p + 48) ||
      !fp_from_le_mont(&out->y.c0, p + 96) || !fp_from_le_mont(&out->y.c1, p + 144))
    return "a coordinate is not below p";
  if (!g2_affine_on_curve(out)) return "not on the curve";
  if (subgroup && !g2_affine_is_inf(out) && !g2_affine_in_subgroup(out))
    return "not in the subgroup";
  return NULL;
}

#define POINT_CHUNK 16384u

/* Entries a chunk buffer holds: POINT_CHUNK, or fewer when the section has fewer (a 4 MiB
 * buffer for a 5 KiB key was about half of fuzz_zkey's time: ASan clears it and its
 * shadow). At least 1, so the buffer is never malloc(0). */
static size_t chunk_entries(uint64_t count) {
  return count == 0 ? 1 : count < POINT_CHUNK ? (size_t)count : POINT_CHUNK;
}
#define MAX_DECODE_THREADS 256u

/* One chunk of points decoded by bls_parallel_for: each thread keeps its first bad
 * point, so the message names the lowest one. */
typedef struct decode_ctx {
  const uint8_t *buf;
  void *out;
  bool g2, subgroup;
  uint64_t bad[MAX_DECODE_THREADS];
  const char *why[MAX_DECODE_THREADS];
} decode_ctx;

static void decode_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  decode_ctx *x = vctx;
  size_t psz = x->g2 ? G2_BYTES : G1_BYTES;
  for (size_t j = begin; j < end; j++) {
    const char *why = x->g2 ? decode_g2((g2_affine_t *)x->out + j, x->buf + j * psz, x->subgroup)
                            : decode_g1((g1_affine_t *)x->out + j, x->buf + j * psz, x->subgroup);
    if (why) {
      x->bad[chunk] = j;
      x->why[chunk] = why;
      return;
    }
  }
}

/* Reads count points of a section (G2 when g2), in chunks, decoded and checked by up to
 * nthreads threads. */
static int read_points(sp_file *f, const sp_iden3_section *sec, unsigned type, bool g2,
                       uint64_t count, void *out, bool subgroup, unsigned nthreads, char *err,
                       size_t errlen) {
  if (nthreads == 0) nthreads = 1;
  if (nthreads > MAX_DECODE_THREADS) nthreads = MAX_DECODE_THREADS;
  size_t psz = g2 ? G2_BYTES : G1_BYTES;
  uint8_t *buf = malloc(chunk_entries(count) * psz);
  if (!buf) {
    sp_set_err(err, errlen, "%s: out of memory reading %s", f->esc, section_names[type]);
    return SEALPROV_ERR_NO_MEMORY;
  }
  int rc = SEALPROV_OK;
  for (uint64_t i = 0; i < count; i += POINT_CHUNK) {
    uint64_t k = count - i < POINT_CHUNK ? count - i : POINT_CHUNK;
    uint64_t off = sec[type].off + i * psz;
    rc = sp_file_read(f, buf, (size_t)(k * psz), off, section_names[type], err, errlen);
    if (rc) break;
    decode_ctx x = {
        .buf = buf,
        .g2 = g2,
        .subgroup = subgroup,
        .out = g2 ? (void *)((g2_affine_t *)out + i) : (void *)((g1_affine_t *)out + i)};
    for (unsigned t = 0; t < MAX_DECODE_THREADS; t++) x.bad[t] = UINT64_MAX;
    (void)bls_parallel_for((size_t)k, nthreads, decode_range, &x); /* all chunks run anyway */
    uint64_t j = UINT64_MAX;
    const char *why = NULL;
    for (unsigned t = 0; t < MAX_DECODE_THREADS; t++)
      if (x.bad[t] < j) {
        j = x.bad[t];
        why = x.why[t];
      }
    if (why) {
      sp_set_err(err, errlen,
                 "%s: section %u (%s): point %" PRIu64 " at byte offset %" PRIu64 ": %s", f->esc,
                 type, section_names[type], i + j, off + j * psz, why);
      rc = SEALPROV_ERR_PARAMS;
      break;
    }
  }
  free(buf);
  return rc;
}

/* ---- the header ---------------------------------------------------------------------- */

static int read_header(sp_file *f, const sp_iden3_section *sec, sp_zkey *zk, bool subgroup,
                       char *err, size_t errlen) {
  uint8_t b[4];
  if (sec[1].size != 4) {
    sp_set_err(err, errlen, "%s: section 1 (header) has %" PRIu64 " bytes, expected 4", f->esc,
               sec[1].size);
    return SEALPROV_ERR_PARAMS;
  }
  SP_TRY(sp_file_read(f, b, 4, sec[1].off, "protocol", err, errlen));
  uint32_t proto = sp_le32(b);
  if (proto != 1) {
    sp_set_err(err, errlen,
               "%s: the key's protocol is %" PRIu32 " (%s): sealprov proves Groth16 (1)", f->esc,
               proto,
               proto == 2    ? "PLONK"
               : proto == 10 ? "FFLONK"
                             : "unknown");
    return proto == 2 || proto == 10 ? SEALPROV_ERR_UNSUPPORTED : SEALPROV_ERR_PARAMS;
  }
  const sp_iden3_section *g = &sec[2];
  uint8_t hb[4 + 64];
  if (g->size < 4) {
    sp_set_err(err, errlen, "%s: section 2 (Groth16 header) has %" PRIu64 " bytes: too short",
               f->esc, g->size);
    return SEALPROV_ERR_PARAMS;
  }
  SP_TRY(sp_file_read(f, hb, 4, g->off, "n8q", err, errlen));
  uint32_t n8q = sp_le32(hb);
  if (n8q == 0 || n8q > 64 || g->size < 4 + (uint64_t)n8q) {
    sp_set_err(err, errlen,
               "%s: section 2 (Groth16 header): base field elements of %" PRIu32
               " bytes in a section of %" PRIu64 " bytes",
               f->esc, n8q, g->size);
    return SEALPROV_ERR_PARAMS;
  }
  SP_TRY(sp_file_read(f, hb + 4, n8q, g->off + 4, "prime q", err, errlen));
  uint8_t p_le[48];
  for (int i = 0; i < 48; i++) p_le[i] = (uint8_t)(BLS_P[i / 8] >> (8 * (i % 8)));
  if (n8q != 48 || memcmp(hb + 4, p_le, 48) != 0) {
    char hex[2 + 128 + 1];
    hex_be(hex, hb + 4, n8q);
    bool bn = n8q == 32 && memcmp(hb + 4, bn128_q_le, 32) == 0;
    sp_set_err(err, errlen,
               "%s: the key's curve has base field prime q = %s%s; sealprov proves over "
               "BLS12-381 only (q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6"
               "b0f6241eabfffeb153ffffb9feffffffffaaab): make the key from a powers of tau over "
               "bls12381 and a circuit compiled with circom --prime bls12381",
               f->esc, hex, bn ? " (bn128 / BN254, snarkjs's default)" : "");
    return SEALPROV_ERR_UNSUPPORTED;
  }
  const uint64_t want = 4 + 48 + 4 + 32 + 12 + 3 * G1_BYTES + 3 * G2_BYTES;
  if (g->size != want) {
    sp_set_err(err, errlen,
               "%s: section 2 (Groth16 header) at byte offset %" PRIu64 " has %" PRIu64
               " bytes; a BLS12-381 Groth16 header has %" PRIu64,
               f->esc, g->off, g->size, want);
    return SEALPROV_ERR_PARAMS;
  }
  uint8_t *h = malloc((size_t)want);
  if (!h) {
    sp_set_err(err, errlen, "%s: out of memory for the Groth16 header", f->esc);
    return SEALPROV_ERR_NO_MEMORY;
  }
  int rc = sp_file_read(f, h, (size_t)want, g->off, section_names[2], err, errlen);
  if (rc) {
    free(h);
    return rc;
  }
  const uint8_t *p = h + 52;
  uint32_t n8r = sp_le32(p);
  uint8_t r_le[32];
  for (int i = 0; i < 32; i++) r_le[i] = (uint8_t)(BLS_R[i / 8] >> (8 * (i % 8)));
  if (n8r != 32 || memcmp(p + 4, r_le, 32) != 0) {
    char hex[2 + 64 + 1];
    hex_be(hex, p + 4, 32);
    sp_set_err(
        err, errlen,
        "%s: section 2 (Groth16 header): scalar field n8r %" PRIu32
        ", r = %s; BLS12-381's "
        "is 32 bytes, r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
        f->esc, n8r, hex);
    free(h);
    return SEALPROV_ERR_PARAMS;
  }
  p += 36;
  zk->n_vars = sp_le32(p);
  zk->n_public = sp_le32(p + 4);
  zk->domain_size = sp_le32(p + 8);
  p += 12;
  uint32_t d = zk->domain_size;
  if ((uint64_t)zk->n_public + 1 > zk->n_vars) {
    sp_set_err(err, errlen,
               "%s: section 2 (Groth16 header): nPublic %" PRIu32 " + 1 exceeds nVars %" PRIu32,
               f->esc, zk->n_public, zk->n_vars);
    rc = SEALPROV_ERR_PARAMS;
  } else if (d < 2 || (d & (d - 1)) != 0 || d > (UINT32_C(1) << 28)) {
    sp_set_err(err, errlen,
               "%s: section 2 (Groth16 header): domainSize %" PRIu32
               " is not a power of two from 2 to 2^28",
               f->esc, d);
    rc = d >= 2 && (d & (d - 1)) == 0 ? SEALPROV_ERR_UNSUPPORTED : SEALPROV_ERR_PARAMS;
  }
  if (rc) {
    free(h);
    return rc;
  }
  zk->log_n = 0;
  while ((UINT32_C(1) << zk->log_n) < d) zk->log_n++;
  struct {
    const char *name;
    bool g2;
    void *out;
  } vk[6] = {{"alpha1", false, &zk->vk.alpha_g1}, {"beta1", false, &zk->vk.beta_g1},
             {"beta2", true, &zk->vk.beta_g2},    {"gamma2", true, &zk->vk.gamma_g2},
             {"delta1", false, &zk->vk.delta_g1}, {"delta2", true, &zk->vk.delta_g2}};
  for (int i = 0; i < 6; i++) {
    const char *why =
        vk[i].g2 ? decode_g2(vk[i].out, p, subgroup) : decode_g1(vk[i].out, p, subgroup);
    bool inf = vk[i].g2 ? g2_affine_is_inf(vk[i].out) : g1_affine_is_inf(vk[i].out);
    if (why || inf) {
      sp_set_err(err, errlen, "%s: section 2 (Groth16 header): %s at byte offset %" PRIu64 ": %s",
                 f->esc, vk[i].name, g->off + (uint64_t)(p - h),
                 why ? why : "the point at infinity");
      free(h);
      return SEALPROV_ERR_PARAMS;
    }
    p += vk[i].g2 ? G2_BYTES : G1_BYTES;
  }
  free(h);
  return SEALPROV_OK;
}

/* ---- coefficients -------------------------------------------------------------------- */

static int read_coefs(sp_file *f, const sp_iden3_section *sec, sp_zkey *zk, char *err,
                      size_t errlen) {
  const sp_iden3_section *s = &sec[4];
  uint8_t b[4];
  if (s->size < 4) {
    sp_set_err(err, errlen,
               "%s: section 4 (coefficients) has %" PRIu64 " bytes: too short for its count",
               f->esc, s->size);
    return SEALPROV_ERR_PARAMS;
  }
  SP_TRY(sp_file_read(f, b, 4, s->off, "coefficient count", err, errlen));
  uint64_t n = sp_le32(b);
  SP_TRY(
      expect_size(f, sec, 4, 4 + n * 44, "its count of coefficients (4 + 44 each)", err, errlen));
  zk->n_coefs = n;
  zk->coefs = malloc(n * sizeof *zk->coefs + 1);
  uint8_t *buf = malloc(chunk_entries(n) * 44);
  int rc = SEALPROV_OK;
  if (!zk->coefs || !buf) {
    sp_set_err(err, errlen, "%s: out of memory for %" PRIu64 " coefficients", f->esc, n);
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  const fr_t r_inv_raw = {{1, 0, 0, 0}}; /* as Montgomery limbs: the value R^-1 */
  for (uint64_t i = 0; i < n && !rc; i += POINT_CHUNK) {
    uint64_t k = n - i < POINT_CHUNK ? n - i : POINT_CHUNK;
    uint64_t off = s->off + 4 + i * 44;
    rc = sp_file_read(f, buf, (size_t)(k * 44), off, "coefficients", err, errlen);
    for (uint64_t j = 0; j < k && !rc; j++) {
      const uint8_t *e = buf + j * 44;
      sp_zkey_coef *c = &zk->coefs[i + j];
      c->matrix = sp_le32(e);
      c->constraint = sp_le32(e + 4);
      c->signal = sp_le32(e + 8);
      uint64_t l[4];
      for (int t = 0; t < 4; t++) l[t] = sp_le64(e + 12 + 8 * t);
      const char *why = NULL;
      if (c->matrix > 1)
        why = "matrix is not 0 (A) or 1 (B)";
      else if (c->constraint >= zk->domain_size)
        why = "constraint is not below domainSize";
      else if (c->signal >= zk->n_vars)
        why = "signal is not below nVars";
      else if (!fr_from_blst_mont(&c->value, l))
        why = "value is not below r";
      if (why) {
        sp_set_err(err, errlen,
                   "%s: section 4 (coefficients): entry %" PRIu64 " at byte offset %" PRIu64
                   " (matrix %" PRIu32 ", constraint %" PRIu32 ", signal %" PRIu32
                   "): %s "
                   "(nVars %" PRIu32 ", domainSize %" PRIu32 ")",
                   f->esc, i + j, off + j * 44, c->matrix, c->constraint, c->signal, why,
                   zk->n_vars, zk->domain_size);
        rc = SEALPROV_ERR_PARAMS;
        break;
      }
      /* the stored v is coef R^2; as Montgomery limbs it means coef R: times R^-1 */
      fr_mul(&c->value, &c->value, &r_inv_raw);
    }
  }
out:
  free(buf);
  return rc;
}

void sp_zkey_free(sp_zkey *zk) {
  if (!zk) return;
  free(zk->path);
  free(zk->vk.ic);
  free(zk->coefs);
  free(zk->a);
  free(zk->b1);
  free(zk->b2);
  free(zk->c);
  free(zk->h);
  free(zk);
}

int sp_zkey_load(const char *path, bool subgroup, unsigned nthreads, sp_zkey **out, char *err,
                 size_t errlen) {
  if (out) *out = NULL;
  if (!path || !out) {
    sp_set_err(err, errlen, "zkey load: NULL %s", path ? "out" : "path");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  sp_file f;
  SP_TRY(sp_file_open(&f, path, err, errlen));
  sp_iden3_section sec[NSEC + 1] = {{0}};
  sp_zkey *zk = calloc(1, sizeof *zk);
  int rc = SEALPROV_OK;
  if (!zk || !(zk->path = strdup(f.esc))) {
    sp_set_err(err, errlen, "out of memory loading %s", f.esc);
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  SP_TRY_GOTO(read_sections(&f, sec, err, errlen), rc, out);
  SP_TRY_GOTO(read_header(&f, sec, zk, subgroup, err, errlen), rc, out);
  uint64_t nv = zk->n_vars, np = zk->n_public, d = zk->domain_size;
  SP_TRY_GOTO(expect_size(&f, sec, 3, (np + 1) * G1_BYTES, "nPublic + 1 G1 points (96 bytes each)",
                          err, errlen),
              rc, out);
  SP_TRY_GOTO(
      expect_size(&f, sec, 5, nv * G1_BYTES, "nVars G1 points (96 bytes each)", err, errlen), rc,
      out);
  SP_TRY_GOTO(
      expect_size(&f, sec, 6, nv * G1_BYTES, "nVars G1 points (96 bytes each)", err, errlen), rc,
      out);
  SP_TRY_GOTO(
      expect_size(&f, sec, 7, nv * G2_BYTES, "nVars G2 points (192 bytes each)", err, errlen), rc,
      out);
  SP_TRY_GOTO(expect_size(&f, sec, 8, (nv - np - 1) * G1_BYTES,
                          "nVars - nPublic - 1 G1 points (96 bytes each)", err, errlen),
              rc, out);
  SP_TRY_GOTO(
      expect_size(&f, sec, 9, d * G1_BYTES, "domainSize G1 points (96 bytes each)", err, errlen),
      rc, out);
  zk->vk.ic_len = (size_t)np + 1;
  zk->vk.ic = malloc((np + 1) * sizeof(g1_affine_t));
  zk->a = malloc(nv * sizeof(g1_affine_t));
  zk->b1 = malloc(nv * sizeof(g1_affine_t));
  zk->b2 = malloc(nv * sizeof(g2_affine_t));
  zk->c = malloc((nv - np - 1) * sizeof(g1_affine_t) + 1);
  zk->h = malloc(d * sizeof(g1_affine_t));
  if (!zk->vk.ic || !zk->a || !zk->b1 || !zk->b2 || !zk->c || !zk->h) {
    sp_set_err(err, errlen,
               "out of memory for the points of %s (nVars %" PRIu64 ", domainSize %" PRIu64 ")",
               f.esc, nv, d);
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  SP_TRY_GOTO(read_coefs(&f, sec, zk, err, errlen), rc, out);
  SP_TRY_GOTO(read_points(&f, sec, 3, false, np + 1, zk->vk.ic, subgroup, nthreads, err, errlen),
              rc, out);
  SP_TRY_GOTO(read_points(&f, sec, 5, false, nv, zk->a, subgroup, nthreads, err, errlen), rc, out);
  SP_TRY_GOTO(read_points(&f, sec, 6, false, nv, zk->b1, subgroup, nthreads, err, errlen), rc, out);
  SP_TRY_GOTO(read_points(&f, sec, 7, true, nv, zk->b2, subgroup, nthreads, err, errlen), rc, out);
  SP_TRY_GOTO(read_points(&f, sec, 8, false, nv - np - 1, zk->c, subgroup, nthreads, err, errlen),
              rc, out);
  SP_TRY_GOTO(read_points(&f, sec, 9, false, d, zk->h, subgroup, nthreads, err, errlen), rc, out);
  SP_TRY_GOTO(sp_file_check_unchanged(&f, err, errlen), rc, out);
  groth16_prepare_vk(&zk->vk.pvk, &zk->vk.alpha_g1, &zk->vk.beta_g2, &zk->vk.gamma_g2,
                     &zk->vk.delta_g2);
  *out = zk;
  zk = NULL;
out:
  sp_file_close(&f);
  sp_zkey_free(zk);
  return rc;
}

/* ---- proving ------------------------------------------------------------------------- */

int sp_zkey_prove(const sp_zkey *zk, const uint8_t *values, uint64_t n, const char *wtns_name,
                  const fr_t *r, const fr_t *s, unsigned nthreads, sp_zkey_proof *out, char *err,
                  size_t errlen) {
  if (!zk || !values || !r || !s || !out) {
    sp_set_err(err, errlen, "NULL argument to the zkey prover");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  char esc[SP_ESC_MAX];
  sp_utf8_escape(wtns_name ? wtns_name : "the witness", esc, sizeof esc);
  if (n != zk->n_vars) {
    sp_set_err(err, errlen,
               "%s has %" PRIu64 " values, the circuit of %s has nVars %" PRIu32
               " signals: a witness of another circuit?",
               esc, n, zk->path, zk->n_vars);
    return SEALPROV_ERR_ASSIGNMENT;
  }
  size_t nv = zk->n_vars, np = zk->n_public, d = zk->domain_size;
  scalar_t *w = malloc(nv * sizeof(scalar_t));
  fr_t *wm = malloc(nv * sizeof(fr_t));
  fr_t *a = calloc(d, sizeof(fr_t)), *b = calloc(d, sizeof(fr_t));
  scalar_t *hs = malloc(d * sizeof(scalar_t));
  int rc = SEALPROV_OK;
  if (!w || !wm || !a || !b || !hs) {
    sp_set_err(err, errlen, "out of memory proving with %s (nVars %zu, domainSize %zu)", zk->path,
               nv, d);
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  for (size_t i = 0; i < nv; i++) {
    if (!fr_from_le32(&wm[i], values + 32 * i)) {
      sp_set_err(err, errlen, "%s: value %zu is not below r", esc, i);
      rc = SEALPROV_ERR_ASSIGNMENT;
      goto out;
    }
    fr_to_scalar(&w[i], &wm[i]);
  }
  if (!fr_is_one(&wm[0])) {
    sp_set_err(err, errlen, "%s: value 0 (the constant signal ONE) is not 1", esc);
    rc = SEALPROV_ERR_ASSIGNMENT;
    goto out;
  }
  /* a = A z, b = B z on the domain (rows past the key's constraints stay zero) */
  for (uint64_t i = 0; i < zk->n_coefs; i++) {
    const sp_zkey_coef *c = &zk->coefs[i];
    fr_t t;
    fr_mul(&t, &c->value, &wm[c->signal]);
    fr_t *dst = c->matrix == 0 ? &a[c->constraint] : &b[c->constraint];
    fr_add(dst, dst, &t);
  }
  SP_TRY_GOTO(sp_groth16_h_snarkjs(a, b, zk->log_n, nthreads, hs, err, errlen), rc, out);
  g1_jac_t pa, pb1, pc, ph, t1;
  g2_jac_t pb, t2;
  if (!msm_g1(&pa, zk->a, w, nv, nthreads) || !msm_g1(&pb1, zk->b1, w, nv, nthreads) ||
      !msm_g2(&pb, zk->b2, w, nv, nthreads) ||
      !msm_g1(&pc, zk->c, w + np + 1, nv - np - 1, nthreads) ||
      !msm_g1(&ph, zk->h, hs, d, nthreads)) {
    sp_set_err(err, errlen, "out of memory in the MSMs");
    rc = SEALPROV_ERR_NO_MEMORY;
    goto out;
  }
  scalar_t rs_, ss_, rss_;
  fr_t rsv;
  fr_to_scalar(&rs_, r);
  fr_to_scalar(&ss_, s);
  fr_mul(&rsv, r, s);
  fr_neg(&rsv, &rsv);
  fr_to_scalar(&rss_, &rsv);
  /* pi_a = A + alpha1 + r delta1 */
  g1_jac_add_affine(&pa, &pa, &zk->vk.alpha_g1);
  g1_jac_from_affine(&t1, &zk->vk.delta_g1);
  g1_jac_mul(&t1, &t1, &rs_);
  g1_jac_add(&pa, &pa, &t1);
  /* B1 = B1 + beta1 + s delta1;  pi_b = B2 + beta2 + s delta2 */
  g1_jac_add_affine(&pb1, &pb1, &zk->vk.beta_g1);
  g1_jac_from_affine(&t1, &zk->vk.delta_g1);
  g1_jac_mul(&t1, &t1, &ss_);
  g1_jac_add(&pb1, &pb1, &t1);
  g2_jac_add_affine(&pb, &pb, &zk->vk.beta_g2);
  g2_jac_from_affine(&t2, &zk->vk.delta_g2);
  g2_jac_mul(&t2, &t2, &ss_);
  g2_jac_add(&pb, &pb, &t2);
  /* pi_c = C + H + s pi_a + r B1 - r s delta1 */
  g1_jac_add(&pc, &pc, &ph);
  g1_jac_mul(&t1, &pa, &ss_);
  g1_jac_add(&pc, &pc, &t1);
  g1_jac_mul(&t1, &pb1, &rs_);
  g1_jac_add(&pc, &pc, &t1);
  g1_jac_from_affine(&t1, &zk->vk.delta_g1);
  g1_jac_mul(&t1, &t1, &rss_);
  g1_jac_add(&pc, &pc, &t1);
  g1_jac_to_affine(&out->a, &pa);
  g2_jac_to_affine(&out->b, &pb);
  g1_jac_to_affine(&out->c, &pc);
out:
  free(w);
  free(wm);
  free(a);
  free(b);
  free(hs);
  return rc;
}

int sp_zkey_verify(const sp_vk *vk, const scalar_t *pub, size_t n, const sp_zkey_proof *proof,
                   bool *valid, char *err, size_t errlen) {
  if (valid) *valid = false;
  if (!vk || !proof || !valid || (n && !pub)) {
    sp_set_err(err, errlen, "NULL argument to verify");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  const char *bad = NULL;
  if (g1_affine_is_inf(&proof->a) || g2_affine_is_inf(&proof->b) || g1_affine_is_inf(&proof->c))
    bad = "a proof point is the point at infinity";
  else if (!g1_affine_on_curve(&proof->a) || !g1_affine_in_subgroup(&proof->a))
    bad = "pi_a is not a point of G1";
  else if (!g2_affine_on_curve(&proof->b) || !g2_affine_in_subgroup(&proof->b))
    bad = "pi_b is not a point of G2";
  else if (!g1_affine_on_curve(&proof->c) || !g1_affine_in_subgroup(&proof->c))
    bad = "pi_c is not a point of G1";
  if (bad) {
    sp_set_err(err, errlen, "%s", bad);
    return SEALPROV_OK;
  }
  fr_t *in = malloc(n * sizeof(fr_t) + 1);
  if (!in) {
    sp_set_err(err, errlen, "out of memory for %zu public signals", n);
    return SEALPROV_ERR_NO_MEMORY;
  }
  for (size_t i = 0; i < n; i++)
    if (!fr_from_scalar(&in[i], &pub[i])) {
      sp_set_err(err, errlen, "public signal %zu is not below r", i);
      free(in);
      return SEALPROV_ERR_INVALID_ARGUMENT;
    }
  uint8_t bytes[192];
  g1_compress(bytes, &proof->a);
  g2_compress(bytes + 48, &proof->b);
  g1_compress(bytes + 144, &proof->c);
  int rc = sp_groth16_verify_inputs(vk, in, n, bytes, valid, err, errlen);
  free(in);
  return rc;
}

/* ---- decimal strings ----------------------------------------------------------------- */

void sp_dec_from_limbs(char *out, const uint64_t *limbs, size_t nlimbs) {
  uint64_t t[8] = {0};
  if (nlimbs > 8) nlimbs = 8;
  memcpy(t, limbs, nlimbs * sizeof(uint64_t));
  char rev[8 * 20 + 1];
  size_t len = 0;
  for (;;) {
    bool zero = true;
    for (size_t i = 0; i < nlimbs; i++) zero = zero && t[i] == 0;
    if (zero) break;
    /* t /= 10^19, remainder out as 19 digits */
    const uint64_t base = UINT64_C(10000000000000000000);
    unsigned __int128 rem = 0;
    for (size_t i = nlimbs; i-- > 0;) {
      unsigned __int128 cur = rem << 64 | t[i];
      t[i] = (uint64_t)(cur / base);
      rem = cur % base;
    }
    uint64_t r = (uint64_t)rem;
    for (int k = 0; k < 19; k++) {
      rev[len++] = (char)('0' + r % 10);
      r /= 10;
    }
  }
  while (len > 1 && rev[len - 1] == '0') len--;
  if (len == 0) rev[len++] = '0';
  for (size_t i = 0; i < len; i++) out[i] = rev[len - 1 - i];
  out[len] = 0;
}

bool sp_dec_to_limbs(uint64_t *limbs, size_t nlimbs, const char *s) {
  memset(limbs, 0, nlimbs * sizeof(uint64_t));
  size_t len = strlen(s);
  if (len == 0 || len > 200) return false;
  for (size_t k = 0; k < len; k++) {
    if (s[k] < '0' || s[k] > '9') return false;
    uint64_t carry = (uint64_t)(s[k] - '0');
    for (size_t i = 0; i < nlimbs; i++) {
      unsigned __int128 cur = (unsigned __int128)limbs[i] * 10 + carry;
      limbs[i] = (uint64_t)cur;
      carry = (uint64_t)(cur >> 64);
    }
    if (carry) return false;
  }
  return true;
}
