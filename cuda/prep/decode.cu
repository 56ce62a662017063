/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* decode.cu -- device-side preparation of a partition's scalars: decoding with range
 * checks, density filtering (compaction by bitmap) and the 0 / 1 / rest split. */
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "gpu_internal.cuh"
#include "prep.h"

/* Raw 32-byte scalars in place -> Montgomery (to_mont) or canonical; a value >= r
 * records its index in *bad (lowest wins) and becomes 0. */
__global__ void k_decode(spc_fr *d, size_t n, uint32_t enc, bool to_mont, unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_fr x = d[i];
  if (!spc_fr::lt_mod(x)) {
    atomicMin(bad, (unsigned long long)i);
    d[i] = spc_fr::zero();
    return;
  }
  if (enc == SEALPROV_SCALAR_CANONICAL_LE) {
    if (to_mont) x = spc_fr::to_mont(x);
  } else if (!to_mont) {
    x = spc_fr::from_mont(x);
  }
  d[i] = x;
}

extern "C" int sp_gpu_decode_scalars(sp_gpu *g, void *d, size_t n, uint32_t enc, bool to_mont,
                                     uint64_t *first_bad, char *err, size_t errlen) {
  *first_bad = UINT64_MAX;
  if (n == 0) return SEALPROV_OK;
  if (enc != SEALPROV_SCALAR_CANONICAL_LE && enc != SEALPROV_SCALAR_MONTGOMERY) {
    snprintf(err, errlen, "scalar_encoding %u is neither canonical (0) nor Montgomery (1)", enc);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  unsigned long long *dbad = NULL, hbad = ~0ull;
  int st = sp_gpu_alloc(g, (void **)&dbad, sizeof *dbad, err, errlen);
  if (st) return st;
  SP_CUDA_CHECK_GOTO(cudaMemcpyAsync(dbad, &hbad, sizeof hbad, cudaMemcpyHostToDevice, g->stream),
                     st, done);
  k_decode<<<sp_blocks(n, 256), 256, 0, g->stream>>>((spc_fr *)d, n, enc, to_mont, dbad);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  SP_TRY_GOTO(sp_gpu_download(g, &hbad, dbad, sizeof hbad, err, errlen), st, done);
  *first_bad = hbad;
done:
  sp_gpu_free(g, dbad, sizeof *dbad);
  return st;
}

__global__ void k_word_popc(const uint64_t *bm, size_t words, uint32_t *cnt) {
  size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (w < words) cnt[w] = (uint32_t)__popcll(bm[w]);
}

/* out[prefix + rank] = in[i] (and idx[...] = i) for every set bit i < n. */
__global__ void k_scatter(const spc_fr *in, const uint64_t *bm, const uint32_t *prefix, size_t n,
                          spc_fr *out, uint32_t *idx) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t word = bm[i >> 6];
  unsigned b = (unsigned)(i & 63);
  if (!((word >> b) & 1u)) return;
  size_t pos = prefix[i >> 6] + (uint32_t)__popcll(word & ((1ull << b) - 1));
  if (out) out[pos] = in[i];
  if (idx) idx[pos] = (uint32_t)i;
}

extern "C" int sp_gpu_compact(sp_gpu *g, const void *d_in, const uint64_t *d_bitmap, size_t n,
                              void *d_out, uint32_t *d_idx, size_t *count, char *err,
                              size_t errlen) {
  *count = 0;
  if (n == 0) return SEALPROV_OK;
  size_t words = (n + 63) / 64;
  uint32_t *cnt = NULL, *prefix = NULL, last[2];
  void *temp = NULL;
  size_t temp_bytes = 0;
  int st = SEALPROV_OK;
  SP_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, cnt, prefix, (int)words, g->stream));
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&cnt, words * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&prefix, words * 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, &temp, temp_bytes, err, errlen), st, done);
  k_word_popc<<<sp_blocks(words, 256), 256, 0, g->stream>>>(d_bitmap, words, cnt);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  SP_CUDA_CHECK_GOTO(
      cub::DeviceScan::ExclusiveSum(temp, temp_bytes, cnt, prefix, (int)words, g->stream), st,
      done);
  k_scatter<<<sp_blocks(n, 256), 256, 0, g->stream>>>((const spc_fr *)d_in, d_bitmap, prefix, n,
                                                      (spc_fr *)d_out, d_idx);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  SP_TRY_GOTO(sp_gpu_download(g, &last[0], prefix + words - 1, 4, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_download(g, &last[1], cnt + words - 1, 4, err, errlen), st, done);
  *count = (size_t)last[0] + last[1];
done:
  sp_gpu_free(g, cnt, words * 4);
  sp_gpu_free(g, prefix, words * 4);
  sp_gpu_free(g, temp, temp_bytes);
  return st;
}

/* Thread per canonical scalar: bit i of ones / rest says scalar i == 1 / >= 2. Each
 * warp's two ballots are 32 bits of the bitmaps (64-bit word w is 32-bit words 2w and
 * 2w + 1 on a little-endian machine), so the loads are coalesced: a thread per 64
 * scalars made every load of a warp touch 32 lines 2 KiB apart. Launched over whole
 * 64-bit words: lanes past n give 0 bits. */
__global__ void k_split_bits(const spc_fr *s, size_t n, size_t words32, uint32_t *ones,
                             uint32_t *rest) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  bool one = false, big = false;
  if (i < n) {
    spc_fr x = s[i];
    uint32_t hi = 0;
#pragma unroll
    for (int k = 1; k < 8; k++) hi |= x.v[k];
    one = hi == 0 && x.v[0] == 1;
    big = hi != 0 || x.v[0] > 1;
  }
  uint32_t bo = __ballot_sync(0xffffffffu, one), br = __ballot_sync(0xffffffffu, big);
  if ((threadIdx.x & 31) == 0 && (i >> 5) < words32) {
    ones[i >> 5] = bo;
    rest[i >> 5] = br;
  }
}

extern "C" int sp_gpu_split01(sp_gpu *g, const void *d_scalars, size_t n, uint64_t *d_ones,
                              void *d_rest_scalars, uint32_t *d_rest_idx, size_t *n_rest, char *err,
                              size_t errlen) {
  *n_rest = 0;
  if (n == 0) return SEALPROV_OK;
  size_t words = (n + 63) / 64;
  uint64_t *rest = NULL;
  int st = sp_gpu_alloc(g, (void **)&rest, words * 8, err, errlen);
  if (st) return st;
  k_split_bits<<<sp_blocks(words * 64, 256), 256, 0, g->stream>>>(
      (const spc_fr *)d_scalars, n, words * 2, (uint32_t *)d_ones, (uint32_t *)rest);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  st = sp_gpu_compact(g, d_scalars, rest, n, d_rest_scalars, d_rest_idx, n_rest, err, errlen);
done:
  sp_gpu_free(g, rest, words * 8);
  return st;
}

/* out[j] = src[idx[j]] (32-byte elements). */
__global__ void k_gather(spc_fr *out, const spc_fr *src, const uint32_t *idx, size_t n) {
  size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) out[j] = src[idx[j]];
}

extern "C" int sp_gpu_gather(sp_gpu *g, void *d_out, const void *d_src, const uint32_t *d_idx,
                             size_t n, char *err, size_t errlen) {
  if (n == 0) return SEALPROV_OK;
  k_gather<<<sp_blocks(n, 256), 256, 0, g->stream>>>((spc_fr *)d_out, (const spc_fr *)d_src, d_idx,
                                                     n);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}

extern "C" uint64_t sp_gpu_split01_scratch_bytes(size_t n) {
  if (n == 0) return 0;
  /* the rest bitmap, then sp_gpu_compact's counts and prefix sums, and CUB's scan
   * temporaries (a tile state per ~2000 words: bounded here from above without asking
   * CUB, which would need a device) */
  const uint64_t words = (n + 63) / 64;
  return words * 8 + words * 8 + words / 64 + (1u << 20);
}

/* ---- the a*b = c pre-check ------------------------------------------------------------ */

/* Montgomery a, b, c (decoded): the lowest i with a[i]*b[i] != c[i] goes to *bad. With b
 * NULL, a already holds the products. Products and c are fully reduced, so limb
 * equality is field equality. */
__global__ void k_check_rows(const spc_fr *a, const spc_fr *b, const spc_fr *c, size_t n,
                             unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_fr p = b ? spc_fr::mul(a[i], b[i]) : a[i];
  if (!p.eq(c[i])) atomicMin(bad, (unsigned long long)i);
}

__global__ void k_fr_mul_vec(spc_fr *dst, const spc_fr *x, const spc_fr *y, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  dst[i] = spc_fr::mul(x[i], y[i]);
}

extern "C" int sp_gpu_fr_mul_vec(sp_gpu *g, void *d_dst, const void *d_x, const void *d_y, size_t n,
                                 char *err, size_t errlen) {
  if (n == 0) return SEALPROV_OK;
  k_fr_mul_vec<<<sp_blocks(n, 256), 256, 0, g->stream>>>((spc_fr *)d_dst, (const spc_fr *)d_x,
                                                         (const spc_fr *)d_y, n);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}

extern "C" int sp_gpu_check_rows(sp_gpu *g, const void *d_a, const void *d_b, const void *d_c,
                                 size_t n, uint64_t *first_bad, char *err, size_t errlen) {
  *first_bad = UINT64_MAX;
  if (n == 0) return SEALPROV_OK;
  unsigned long long *dbad = NULL, hbad = ~0ull;
  int st = sp_gpu_alloc(g, (void **)&dbad, sizeof *dbad, err, errlen);
  if (st) return st;
  SP_CUDA_CHECK_GOTO(cudaMemcpyAsync(dbad, &hbad, sizeof hbad, cudaMemcpyHostToDevice, g->stream),
                     st, done);
  k_check_rows<<<sp_blocks(n, 256), 256, 0, g->stream>>>((const spc_fr *)d_a, (const spc_fr *)d_b,
                                                         (const spc_fr *)d_c, n, dbad);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  SP_TRY_GOTO(sp_gpu_download(g, &hbad, dbad, sizeof hbad, err, errlen), st, done);
  *first_bad = hbad;
done:
  sp_gpu_free(g, dbad, sizeof *dbad);
  return st;
}
