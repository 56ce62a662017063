/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* points.c -- the .params reader's point decoding (srs_internal.h): a chunk of encoded
 * points decoded in parallel straight into the final arrays, each checked on the curve
 * and not infinity; and the subgroup check on the CPU. */
#include <config.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "formats/srs_internal.h"

/* ---- parallel point decoding ---------------------------------------------------- */

void sp_srs_decode_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
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
      sp_note_first_bad(&c->first_bad, i);
      return;
    }
  }
}

/* Why a single encoded point fails (same checks as sp_srs_decode_range). */
const char *sp_srs_point_error(const uint8_t *enc, bool g2, unsigned flags) {
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
  if (e != BLS_OK) return bls_err_str(e);
  return inf ? "point at infinity" : "unknown error";
}

/* Subgroup check of decoded points on the CPU (when the hook fails). */
typedef struct subgroup_ctx {
  const void *pts;
  bool g2;
  _Atomic uint64_t first_bad;
} subgroup_ctx;

static void subgroup_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  subgroup_ctx *c = vctx;
  for (size_t i = begin; i < end; i++) {
    bool ok = c->g2 ? g2_affine_in_subgroup((const g2_affine_t *)c->pts + i)
                    : g1_affine_in_subgroup((const g1_affine_t *)c->pts + i);
    if (!ok) {
      sp_note_first_bad(&c->first_bad, i);
      return;
    }
  }
}

size_t sp_srs_cpu_subgroup_first_bad(const void *pts, bool g2, size_t n, unsigned nthreads) {
  subgroup_ctx c = {.pts = pts, .g2 = g2};
  atomic_init(&c.first_bad, UINT64_MAX);
  /* a false return means fewer threads ran; the work is complete either way */
  if (n) (void)bls_parallel_for(n, nthreads, subgroup_range, &c);
  uint64_t b = atomic_load(&c.first_bad);
  return b == UINT64_MAX ? n : (size_t)b;
}
