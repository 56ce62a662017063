/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Generic MSM and batch addition, instantiated for G1 and G2 by msm.c. Private to
 * plugin/bls12_381/; include it only from msm.c, after defining
 *
 *   GP(name)   the curve's public name, e.g. g1_##name
 *   MI(name)   a per-instantiation private name, e.g. name##_g1
 *   MSM_FN     the public MSM function (msm_g1)
 *   BATCH_FN   the public batch addition (batch_add_g1)
 *   MSM_THREAD_COST       starting and joining one thread, in mixed additions
 *   MSM_MAX_BUCKET_BYTES  bucket memory allowed over all threads
 *
 * Pippenger with signed windows and XYZZ buckets:
 *
 * 1. A pre-pass over the inputs (parallel over 64-point groups) drops scalar-0
 *    and infinity entries, adds scalar-1 points straight into a running sum,
 *    marks the rest in a bitmap ("general" points) and ORs their scalars to learn
 *    how many bits the windows must cover.
 * 2. Signed digits without a carry chain: with c-bit windows and
 *    K = sum_j 2^(c-1) 2^(jc), the plain c-bit windows w_j of s + K give
 *    s = sum_j (w_j - 2^(c-1)) 2^(jc), digits in [-2^(c-1), 2^(c-1) - 1]. Any
 *    window of any scalar can then be read on its own, so tiles need no shared
 *    digit array. W windows with W c >= nbits + 2 keep s + K below 2^(Wc)
 *    (K <= 2/3 2^(Wc) for c >= 2).
 * 3. Work is cut into tiles (window j, point range q); a thread takes a run of
 *    tiles, and for each one fills 2^(c-1) XYZZ buckets with mixed additions
 *    (a negative digit adds the negated point), then folds them into
 *    sum_b (b + 1) B_b with the running-sum trick. Window sums are combined by
 *    Horner's rule on the calling thread.
 * The window size c and the number of ranges per window are chosen together by
 * a small cost model (below) from the count of general points and the thread
 * count, so that tiles outnumber threads enough to keep them all busy. */

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ pre-pass */

typedef struct {
  const GP(affine_t) * points;
  const scalar_t *scalars;
  size_t n;
  uint64_t *general;      /* bitmap: bit i set when point i needs the buckets */
  GP(xyzz_t) * ones;      /* per chunk: sum of the points with scalar 1 */
  uint64_t (*bits_or)[4]; /* per chunk: OR of the general scalars */
  size_t *count;          /* per chunk: number of general points */
} MI(prepass_ctx);

static bool MI(scalar_is_zero)(const scalar_t *s) {
  return (s->l[0] | s->l[1] | s->l[2] | s->l[3]) == 0;
}

static bool MI(scalar_is_one)(const scalar_t *s) {
  return s->l[0] == 1 && (s->l[1] | s->l[2] | s->l[3]) == 0;
}

/* Chunks are ranges of bitmap words, so no two threads write the same word. */
static void MI(prepass_range)(void *arg, size_t wbegin, size_t wend, unsigned chunk) {
  MI(prepass_ctx) *ctx = arg;
  GP(xyzz_t) ones;
  GP(xyzz_set_inf)(&ones);
  uint64_t acc[4] = {0, 0, 0, 0};
  size_t count = 0;
  for (size_t w = wbegin; w < wend; w++) {
    uint64_t word = 0;
    size_t end = (w + 1) * 64 < ctx->n ? (w + 1) * 64 : ctx->n;
    for (size_t i = w * 64; i < end; i++) {
      const scalar_t *s = &ctx->scalars[i];
      if (MI(scalar_is_zero)(s) || GP(affine_is_inf)(&ctx->points[i])) continue;
      if (MI(scalar_is_one)(s)) {
        GP(xyzz_add_affine)(&ones, &ones, &ctx->points[i]);
        continue;
      }
      word |= 1ull << (i % 64);
      for (int l = 0; l < 4; l++) acc[l] |= s->l[l];
      count++;
    }
    ctx->general[w] = word;
  }
  ctx->ones[chunk] = ones;
  memcpy(ctx->bits_or[chunk], acc, sizeof acc);
  ctx->count[chunk] = count;
}

/* ------------------------------------------------------------ tiles */

typedef struct {
  const GP(affine_t) * points;
  const scalar_t *scalars;
  const uint64_t *general;
  size_t nwords;          /* words of the general bitmap */
  unsigned c;             /* window bits */
  unsigned nparts;        /* point ranges per window */
  uint64_t k[5];          /* the recoding offset K */
  size_t nbuckets;        /* 2^(c-1) */
  GP(xyzz_t) * buckets;   /* nbuckets per chunk of the parallel loop */
  GP(xyzz_t) * tile_sums; /* one per tile, index window * nparts + part */
} MI(tile_ctx);

/* The signed digit of window j of s: window j of s + K, minus 2^(c-1). */
static int MI(signed_digit)(const MI(tile_ctx) * ctx, const scalar_t *s, unsigned j) {
  uint64_t t[5];
  unsigned __int128 carry = 0;
  for (int l = 0; l < 4; l++) {
    carry += (unsigned __int128)s->l[l] + ctx->k[l];
    t[l] = (uint64_t)carry;
    carry >>= 64;
  }
  t[4] = (uint64_t)carry + ctx->k[4];
  unsigned bit = j * ctx->c, limb = bit / 64, off = bit % 64;
  uint64_t v = t[limb] >> off;
  if (off + ctx->c > 64 && limb + 1 < 5) v |= t[limb + 1] << (64 - off);
  v &= (1ull << ctx->c) - 1;
  return (int)v - (1 << (ctx->c - 1));
}

static void MI(run_tile)(MI(tile_ctx) * ctx, size_t tile, GP(xyzz_t) * buckets) {
  unsigned window = (unsigned)(tile / ctx->nparts), part = (unsigned)(tile % ctx->nparts);
  size_t wbegin = ctx->nwords * part / ctx->nparts;
  size_t wend = ctx->nwords * (part + 1) / ctx->nparts;
  for (size_t b = 0; b < ctx->nbuckets; b++) GP(xyzz_set_inf)(&buckets[b]);
  for (size_t w = wbegin; w < wend; w++) {
    uint64_t word = ctx->general[w];
    while (word != 0) {
      size_t i = w * 64 + (size_t)__builtin_ctzll(word);
      word &= word - 1;
      int d = MI(signed_digit)(ctx, &ctx->scalars[i], window);
      if (d > 0) {
        GP(xyzz_add_affine)(&buckets[d - 1], &buckets[d - 1], &ctx->points[i]);
      } else if (d < 0) {
        GP(affine_t) neg;
        GP(affine_neg)(&neg, &ctx->points[i]);
        GP(xyzz_add_affine)(&buckets[-d - 1], &buckets[-d - 1], &neg);
      }
    }
  }
  /* sum_b (b + 1) B_b = sum over b of the running suffix sums. */
  GP(xyzz_t) running, sum;
  GP(xyzz_set_inf)(&running);
  GP(xyzz_set_inf)(&sum);
  for (size_t b = ctx->nbuckets; b-- > 0;) {
    GP(xyzz_add)(&running, &running, &buckets[b]);
    GP(xyzz_add)(&sum, &sum, &running);
  }
  ctx->tile_sums[tile] = sum;
}

static void MI(tile_range)(void *arg, size_t begin, size_t end, unsigned chunk) {
  MI(tile_ctx) *ctx = arg;
  GP(xyzz_t) *buckets = ctx->buckets + (size_t)chunk * ctx->nbuckets;
  for (size_t t = begin; t < end; t++) MI(run_tile)(ctx, t, buckets);
}

/* Number of windows so that W c >= nbits + 2 (see the top of the file). */
static unsigned MI(num_windows)(unsigned nbits, unsigned c) { return (nbits + 1) / c + 1; }

/* Picks the window size c, the ranges per window Q and the number of threads to
 * use from the count of general points g, their bit length, the total points n
 * (the bitmap scan) and the thread budget. It minimises the time of the busiest
 * thread plus the cost of starting threads, in units of one mixed addition:
 *   ceil(W Q / T) * (g/Q + 2.6 * 2^(c-1) + scan) + MSM_THREAD_COST * T,
 * a full XYZZ addition counting 1.3 mixed ones (two per bucket in the fold).
 * Bucket memory is capped at MSM_MAX_BUCKET_BYTES over all threads. */
static void MI(choose_params)(size_t g, size_t n, unsigned nbits, unsigned nthreads,
                              unsigned *c_out, unsigned *q_out, unsigned *t_out) {
  double best = -1;
  unsigned best_c = 2, best_q = 1, best_t = 1;
  /* Thread counts tried: 1, 2, 3, 4, then steps of 1.5x, and nthreads itself. */
  for (unsigned tu = 1;;) {
    for (unsigned c = 2; c <= 16; c++) {
      size_t nb = (size_t)1 << (c - 1);
      if (c > 2 && nb * sizeof(GP(xyzz_t)) * tu > MSM_MAX_BUCKET_BYTES) break;
      unsigned w = MI(num_windows)(nbits, c);
      for (unsigned q = 1; q <= 256; q *= 2) {
        if (q > 1 && (size_t)q * 64 > n) break;
        double tile = (double)g / q + 2.6 * (double)nb + 0.02 * (double)n / q;
        size_t tiles = (size_t)w * q;
        size_t rounds = (tiles + tu - 1) / tu;
        double cost = (double)rounds * tile + MSM_THREAD_COST * tu;
        if (best < 0 || cost < best) {
          best = cost;
          best_c = c;
          best_q = q;
          best_t = tu;
        }
      }
    }
    if (tu >= nthreads) break;
    unsigned next = tu < 4 ? tu + 1 : tu + tu / 2;
    tu = next < nthreads ? next : nthreads;
  }
  *c_out = best_c;
  *q_out = best_q;
  *t_out = best_t;
}

/* Threads for the linear passes (pre-pass, batch addition): one per 1024
 * points at most, so that small inputs are not spread over idle threads. */
static unsigned MI(linear_threads)(size_t n, unsigned nthreads) {
  size_t want = (n + 1023) / 1024;
  return want < nthreads ? (unsigned)want : nthreads;
}

/* --------------------------------------------------------- batch addition */

typedef struct {
  const GP(affine_t) * points;
  const uint64_t *bitmap;
  size_t n;
  GP(xyzz_t) * partial; /* one per chunk */
} MI(batch_ctx);

static void MI(batch_range)(void *arg, size_t wbegin, size_t wend, unsigned chunk) {
  MI(batch_ctx) *ctx = arg;
  GP(xyzz_t) acc;
  GP(xyzz_set_inf)(&acc);
  for (size_t w = wbegin; w < wend; w++) {
    uint64_t word = ctx->bitmap[w];
    if (w == ctx->n / 64 && ctx->n % 64 != 0)
      word &= (1ull << (ctx->n % 64)) - 1; /* bits past n are not ours to read */
    while (word != 0) {
      size_t i = w * 64 + (size_t)__builtin_ctzll(word);
      word &= word - 1;
      GP(xyzz_add_affine)(&acc, &acc, &ctx->points[i]);
    }
  }
  ctx->partial[chunk] = acc;
}

bool BATCH_FN(GP(jac_t) * out, const GP(affine_t) * points, const uint64_t *bitmap, size_t n,
              unsigned nthreads) {
  GP(jac_set_inf)(out);
  if (n == 0) return true;
  unsigned t = MI(linear_threads)(n, nthreads == 0 ? 1 : nthreads);
  MI(batch_ctx) ctx = {points, bitmap, n, calloc(t, sizeof(GP(xyzz_t)))};
  if (ctx.partial == NULL) return false;
  size_t nwords = (n + 63) / 64;
  for (unsigned i = 0; i < t; i++) GP(xyzz_set_inf)(&ctx.partial[i]);
  /* A false return only means fewer threads ran; every chunk still ran once. */
  (void)bls_parallel_for(nwords, t, MI(batch_range), &ctx);
  GP(xyzz_t) acc;
  GP(xyzz_set_inf)(&acc);
  for (unsigned i = 0; i < t; i++) GP(xyzz_add)(&acc, &acc, &ctx.partial[i]);
  GP(xyzz_to_jac)(out, &acc);
  free(ctx.partial);
  return true;
}

/* ------------------------------------------------------------------ MSM */

bool MSM_FN(GP(jac_t) * out, const GP(affine_t) * points, const scalar_t *scalars, size_t n,
            unsigned nthreads) {
  GP(jac_set_inf)(out);
  if (n == 0) return true;
  unsigned budget = nthreads == 0 ? 1 : nthreads;
  unsigned t = MI(linear_threads)(n, budget);
  size_t nwords = (n + 63) / 64;
  bool ok = false;
  MI(prepass_ctx) pre = {points, scalars, n, NULL, NULL, NULL, NULL};
  MI(tile_ctx) tc;
  memset(&tc, 0, sizeof tc);
  pre.general = malloc(nwords * sizeof *pre.general);
  pre.ones = malloc(t * sizeof *pre.ones);
  pre.bits_or = malloc(t * sizeof *pre.bits_or);
  pre.count = malloc(t * sizeof *pre.count);
  if (pre.general == NULL || pre.ones == NULL || pre.bits_or == NULL || pre.count == NULL)
    goto done;
  size_t pre_chunks = nwords < t ? nwords : t;
  (void)bls_parallel_for(nwords, t, MI(prepass_range), &pre);

  GP(xyzz_t) total;
  GP(xyzz_set_inf)(&total);
  uint64_t bits_or[4] = {0, 0, 0, 0};
  size_t g = 0;
  for (size_t i = 0; i < pre_chunks; i++) {
    GP(xyzz_add)(&total, &total, &pre.ones[i]);
    for (int l = 0; l < 4; l++) bits_or[l] |= pre.bits_or[i][l];
    g += pre.count[i];
  }

  if (g > 0) {
    unsigned nbits = 0;
    for (int l = 3; l >= 0; l--)
      if (bits_or[l] != 0) {
        nbits = (unsigned)(64 * l + 64 - __builtin_clzll(bits_or[l]));
        break;
      }
    unsigned c, nparts, tt;
    MI(choose_params)(g, n, nbits, budget, &c, &nparts, &tt);
    unsigned nwin = MI(num_windows)(nbits, c);
    size_t ntiles = (size_t)nwin * nparts;
    size_t tile_chunks = ntiles < tt ? ntiles : tt;
    tc.points = points;
    tc.scalars = scalars;
    tc.general = pre.general;
    tc.nwords = nwords;
    tc.c = c;
    tc.nparts = nparts;
    tc.nbuckets = (size_t)1 << (c - 1);
    for (unsigned j = 0; j < nwin; j++) {
      unsigned bit = j * c + c - 1; /* 2^(c-1) 2^(jc) */
      tc.k[bit / 64] |= 1ull << (bit % 64);
    }
    tc.buckets = malloc(tile_chunks * tc.nbuckets * sizeof *tc.buckets);
    tc.tile_sums = malloc(ntiles * sizeof *tc.tile_sums);
    if (tc.buckets == NULL || tc.tile_sums == NULL) goto done;
    (void)bls_parallel_for(ntiles, tt, MI(tile_range), &tc);

    GP(xyzz_t) acc;
    GP(xyzz_set_inf)(&acc);
    for (unsigned j = nwin; j-- > 0;) {
      for (unsigned d = 0; d < c; d++) GP(xyzz_dbl)(&acc, &acc);
      for (unsigned q = 0; q < nparts; q++)
        GP(xyzz_add)(&acc, &acc, &tc.tile_sums[(size_t)j * nparts + q]);
    }
    GP(xyzz_add)(&total, &total, &acc);
  }
  GP(xyzz_to_jac)(out, &total);
  ok = true;
done:
  free(tc.buckets);
  free(tc.tile_sums);
  free(pre.general);
  free(pre.ones);
  free(pre.bits_or);
  free(pre.count);
  return ok;
}
