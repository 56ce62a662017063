/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* prep.h -- a partition's preparation on the device (decode.cu): scalars decoded and
 * range-checked, density filtering, the 0 / 1 / rest split, the a*b = c pre-check.
 * Conventions as util/sp_gpu.h. */
#ifndef SEALPROV_CUDA_PREP_H
#define SEALPROV_CUDA_PREP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sp_gpu.h" /* sp_gpu, the statuses and conventions of the kernels' C API */

#ifdef __cplusplus
extern "C" {
#endif

/* Decodes n raw 32-byte scalars in place (as the host passed them, in scalar_encoding
 * enc) into Montgomery form (to_mont) or canonical scalar_t. *first_bad gets the
 * lowest index of a value >= r, UINT64_MAX if none (those elements become 0). */
int sp_gpu_decode_scalars(sp_gpu *g, void *d, size_t n, uint32_t enc, bool to_mont,
                          uint64_t *first_bad, char *err, size_t errlen);
/* Density filtering: for the k-th set bit i of d_bitmap (n bits), d_out[k] = d_in[i]
 * (32-byte elements; d_out may be NULL) and d_idx[k] = i (d_idx may be NULL).
 * *count gets the number of set bits. */
int sp_gpu_compact(sp_gpu *g, const void *d_in, const uint64_t *d_bitmap, size_t n, void *d_out,
                   uint32_t *d_idx, size_t *count, char *err, size_t errlen);
/* The 0 / 1 / rest split of n canonical scalars: d_ones (ceil(n/64) words) gets the
 * scalars equal to 1; the others >= 2 are compacted into d_rest_scalars with their
 * index in d_rest_idx; *n_rest counts them. Zeros are dropped. */
int sp_gpu_split01(sp_gpu *g, const void *d_scalars, size_t n, uint64_t *d_ones,
                   void *d_rest_scalars, uint32_t *d_rest_idx, size_t *n_rest, char *err,
                   size_t errlen);

/* Device bytes sp_gpu_split01 of n scalars allocates besides its outputs (sizing
 * only: no device work). */
uint64_t sp_gpu_split01_scratch_bytes(size_t n);
/* d_out[j] = d_src[d_idx[j]], j < n, 32-byte elements (a vector's scalars from the
 * indices a density filtering gave, sp_gpu_compact). */
int sp_gpu_gather(sp_gpu *g, void *d_out, const void *d_src, const uint32_t *d_idx, size_t n,
                  char *err, size_t errlen);

/* The a*b = c pre-check on decoded (Montgomery) device vectors of n rows: *first_bad
 * gets the lowest row i with a[i]*b[i] != c[i], UINT64_MAX if none. d_b NULL: d_a
 * holds the products a[i]*b[i] already (see sp_gpu_fr_mul_vec). */
int sp_gpu_check_rows(sp_gpu *g, const void *d_a, const void *d_b, const void *d_c, size_t n,
                      uint64_t *first_bad, char *err, size_t errlen);
/* d_dst[i] = d_x[i] * d_y[i], n Montgomery fr_t (d_dst may be d_x or d_y). */
int sp_gpu_fr_mul_vec(sp_gpu *g, void *d_dst, const void *d_x, const void *d_y, size_t n, char *err,
                      size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
