/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* NTT over Fr: in place, natural order in and out, sizes 2^1 .. 2^28.
 *
 * Radix-2 decimation in time (Cooley-Tukey) after a bit-reversal permutation:
 *   1. bit-reverse the input (parallel: index i swaps with rev(i) only when i < rev(i),
 *      so every pair is touched by exactly one thread);
 *   2. the first stages (butterfly spans below BLOCK_LOG) run block by block, each block
 *      of 2^BLOCK_LOG elements (256 KiB) staying in L2 while all its small stages run;
 *      blocks are independent, so threads split the blocks;
 *   3. each remaining stage is one pass over the whole array, threads splitting the
 *      n/2 butterflies of the stage into contiguous ranges.
 *
 * Twiddles: one table of omega^k, k < n/2, built per call (parallel, each chunk starts
 * from omega^begin by exponentiation). The stage with span h uses every (n/2h)-th entry.
 * The table is half the size of the data (16 bytes per element); building it per call
 * keeps the functions free of shared state, so concurrent calls need no lock, and it
 * costs n/2 multiplications against (n/2) log n for the butterflies.
 *
 * Roots: omega = fr_root_of_unity(log_n) = 7^((r-1)/n), the coset generator is 7
 * (fr_coset_generator), the same choices as bellperson/blst, so the evaluations match
 * other Groth16 provers and the CUDA engine.
 *
 * log_n outside [1, 28] makes the functions return false without touching the data:
 * the header promises false "only on allocation failure", and an impossible size is
 * the only other failure a caller can cause, so it is reported the same way rather
 * than running past the end of the array.
 */
#include <stdlib.h>

#include "field_impl.h"

#define NTT_MIN_LOG 1u
#define NTT_MAX_LOG 28u
/* 2^13 elements x 32 bytes = 256 KiB: fits the L2 of every x86-64 of the last decade. */
#define BLOCK_LOG 13u
/* Below this size, thread start-up (tens of microseconds) costs more than the work. */
#define PARALLEL_MIN_LOG 12u

typedef struct {
  fr_t *a;
  const fr_t *tw; /* omega^k, k < n/2 */
  unsigned log_n;
  unsigned log_h; /* current stage: span h = 2^log_h (phase 3) */
  unsigned block_log;
  fr_t base;   /* table / scaling generator */
  fr_t factor; /* extra constant factor for scaling passes */
} ntt_ctx;

static inline size_t bit_reverse(size_t i, unsigned bits) {
  uint64_t x = (uint64_t)i;
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
  x = __builtin_bswap64(x);
  return (size_t)(x >> (64 - bits));
}

static void fr_pow_index(fr_t *r, const fr_t *base, size_t k) {
  uint64_t e = (uint64_t)k;
  fr_pow(r, base, &e, 1);
}

/* tw[k] = base^k for k in [begin, end) */
static void twiddle_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  ntt_ctx *ctx = vctx;
  fr_t *tw = (fr_t *)ctx->tw;
  fr_t w;
  fr_pow_index(&w, &ctx->base, begin);
  for (size_t k = begin; k < end; k++) {
    tw[k] = w;
    fr_mul_i(&w, &w, &ctx->base);
  }
}

/* a[i] *= factor * base^i for i in [begin, end) */
static void scale_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  ntt_ctx *ctx = vctx;
  fr_t w;
  fr_pow_index(&w, &ctx->base, begin);
  fr_mul_i(&w, &w, &ctx->factor);
  for (size_t i = begin; i < end; i++) {
    fr_mul_i(&ctx->a[i], &ctx->a[i], &w);
    fr_mul_i(&w, &w, &ctx->base);
  }
}

static void bitrev_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  ntt_ctx *ctx = vctx;
  for (size_t i = begin; i < end; i++) {
    size_t j = bit_reverse(i, ctx->log_n);
    if (i < j) {
      fr_t t = ctx->a[i];
      ctx->a[i] = ctx->a[j];
      ctx->a[j] = t;
    }
  }
}

static inline void butterfly(fr_t *x0, fr_t *x1, const fr_t *w) {
  fr_t t;
  fr_mul_i(&t, x1, w);
  fr_sub_i(x1, x0, &t);
  fr_add_i(x0, x0, &t);
}

static inline void butterfly_w1(fr_t *x0, fr_t *x1) {
  fr_t t = *x1;
  fr_sub_i(x1, x0, &t);
  fr_add_i(x0, x0, &t);
}

/* Phase 2: all stages with span < 2^block_log inside blocks [begin, end). */
static void block_stages_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  ntt_ctx *ctx = vctx;
  size_t bsize = (size_t)1 << ctx->block_log;
  for (size_t b = begin; b < end; b++) {
    fr_t *blk = ctx->a + b * bsize;
    for (unsigned log_h = 0; log_h < ctx->block_log; log_h++) {
      size_t h = (size_t)1 << log_h;
      unsigned stride_log = ctx->log_n - 1 - log_h;
      for (size_t g = 0; g < bsize; g += 2 * h) {
        butterfly_w1(&blk[g], &blk[g + h]);
        for (size_t k = 1; k < h; k++)
          butterfly(&blk[g + k], &blk[g + k + h], &ctx->tw[k << stride_log]);
      }
    }
  }
}

/* Phase 3: butterflies [begin, end) of the stage with span 2^log_h. */
static void stage_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  ntt_ctx *ctx = vctx;
  unsigned log_h = ctx->log_h;
  size_t h = (size_t)1 << log_h;
  unsigned stride_log = ctx->log_n - 1 - log_h;
  size_t j = begin;
  while (j < end) {
    size_t g = j >> log_h, k = j & (h - 1);
    size_t run = h - k; /* butterflies left in this group */
    if (run > end - j) run = end - j;
    fr_t *x0 = ctx->a + (g << (log_h + 1)) + k;
    fr_t *x1 = x0 + h;
    for (size_t m = 0; m < run; m++) butterfly(&x0[m], &x1[m], &ctx->tw[(k + m) << stride_log]);
    j += run;
  }
}

static void scale_powers(fr_t *a, unsigned log_n, unsigned nthreads, const fr_t *base,
                         const fr_t *factor);

/* The transform with root omega (forward) or omega^-1 (inverse), no 1/n. When
 * pre_scale is not NULL, a_i is first multiplied by pre_scale^i (coset forward); that
 * happens after the only allocation, so a failure leaves the input untouched. */
static bool ntt_core(fr_t *a, unsigned log_n, unsigned nthreads, bool inverse,
                     const fr_t *pre_scale) {
  size_t n = (size_t)1 << log_n;
  unsigned threads = nthreads == 0 ? 1 : nthreads;
  if (log_n < PARALLEL_MIN_LOG) threads = 1;

  fr_t *tw = malloc((n / 2) * sizeof *tw);
  if (tw == NULL) return false;
  if (pre_scale != NULL) scale_powers(a, log_n, nthreads, pre_scale, &FR_ONE);
  ntt_ctx ctx = {.a = a, .tw = tw, .log_n = log_n};
  fr_root_of_unity(&ctx.base, log_n);
  if (inverse) fr_inv(&ctx.base, &ctx.base);
  /* bls_parallel_for returning false means "ran with fewer threads", the work is
   * complete either way (see parallel.c), so its result is not an error here. */
  (void)bls_parallel_for(n / 2, threads, twiddle_range, &ctx);
  (void)bls_parallel_for(n, threads, bitrev_range, &ctx);

  ctx.block_log = log_n < BLOCK_LOG ? log_n : BLOCK_LOG;
  (void)bls_parallel_for(n >> ctx.block_log, threads, block_stages_range, &ctx);
  for (unsigned log_h = ctx.block_log; log_h < log_n; log_h++) {
    ctx.log_h = log_h;
    (void)bls_parallel_for(n / 2, threads, stage_range, &ctx);
  }
  free(tw);
  return true;
}

/* a[i] *= factor * base^i */
static void scale_powers(fr_t *a, unsigned log_n, unsigned nthreads, const fr_t *base,
                         const fr_t *factor) {
  size_t n = (size_t)1 << log_n;
  unsigned threads = nthreads == 0 ? 1 : nthreads;
  if (log_n < PARALLEL_MIN_LOG) threads = 1;
  ntt_ctx ctx = {.a = a, .log_n = log_n, .base = *base, .factor = *factor};
  (void)bls_parallel_for(n, threads, scale_range, &ctx);
}

static bool valid_log(unsigned log_n) { return log_n >= NTT_MIN_LOG && log_n <= NTT_MAX_LOG; }

/* 1/n as an Fr element. */
static void inv_size(fr_t *r, unsigned log_n) {
  fr_from_u64(r, (uint64_t)1 << log_n);
  fr_inv(r, r);
}

bool ntt_forward(fr_t *a, unsigned log_n, unsigned nthreads) {
  if (!valid_log(log_n)) return false;
  return ntt_core(a, log_n, nthreads, false, NULL);
}

bool ntt_inverse(fr_t *a, unsigned log_n, unsigned nthreads) {
  if (!valid_log(log_n)) return false;
  if (!ntt_core(a, log_n, nthreads, true, NULL)) return false;
  fr_t n_inv;
  inv_size(&n_inv, log_n);
  scale_powers(a, log_n, nthreads, &FR_ONE, &n_inv);
  return true;
}

bool ntt_coset_forward(fr_t *a, unsigned log_n, unsigned nthreads) {
  if (!valid_log(log_n)) return false;
  fr_t g;
  fr_coset_generator(&g);
  return ntt_core(a, log_n, nthreads, false, &g);
}

bool ntt_coset_inverse(fr_t *a, unsigned log_n, unsigned nthreads) {
  if (!valid_log(log_n)) return false;
  if (!ntt_core(a, log_n, nthreads, true, NULL)) return false;
  /* a_i *= (1/n) g^-i, the 1/n folded into the same pass. */
  fr_t g_inv, n_inv;
  fr_coset_generator(&g_inv);
  fr_inv(&g_inv, &g_inv);
  inv_size(&n_inv, log_n);
  scale_powers(a, log_n, nthreads, &g_inv, &n_inv);
  return true;
}
