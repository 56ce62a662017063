/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* gpu_host.c -- the developer kit's conveniences on host arrays (gpu_kit.h): each one
 * uploads, runs a kernel of sp_gpu.h and downloads, for the GPU tests. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "base/util.h" /* SP_TRY_GOTO */
#include "gpu/gpu_kit.h"
#include "ntt/ntt.h"
#include "msm/msm.h"
#include "subgroup/subgroup.h"

int sp_gpu_ntt(sp_gpu *g, fr_t *a, unsigned log_n, sp_ntt_kind kind, char *err, size_t errlen) {
  if (log_n < 1 || log_n > 28) {
    snprintf(err, errlen, "NTT size 2^%u out of range 2^1..2^28", log_n);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  size_t bytes = ((size_t)1 << log_n) * sizeof(fr_t);
  void *d = NULL;
  int st = sp_gpu_alloc(g, &d, bytes, err, errlen);
  if (st) return st;
  st = sp_gpu_upload(g, d, a, bytes, err, errlen);
  if (!st) st = sp_gpu_ntt_dev(g, d, log_n, kind, err, errlen);
  if (!st) st = sp_gpu_download(g, a, d, bytes, err, errlen);
  sp_gpu_free(g, d, bytes);
  return st;
}

int sp_gpu_h_poly(sp_gpu *g, void *d_a, void *d_b, void *d_c, unsigned log_n, char *err,
                  size_t errlen) {
  int st = sp_gpu_h_coset(g, d_a, log_n, err, errlen);
  if (!st) st = sp_gpu_h_coset(g, d_b, log_n, err, errlen);
  if (!st) st = sp_gpu_h_coeffs(g, d_c, log_n, err, errlen);
  if (!st) st = sp_gpu_h_finish(g, d_a, d_b, d_c, log_n, err, errlen);
  return st;
}

/* Two host arrays on the device: d[i] gets a copy of h[i] (bytes[i]; nothing to copy
 * when n is 0). What was allocated stays in d[] for free_two, also on failure. */
static int upload_two(sp_gpu *g, void *d[2], const void *const h[2], const size_t bytes[2],
                      size_t n, char *err, size_t errlen) {
  for (int i = 0; i < 2; i++) SP_TRY(sp_gpu_alloc(g, &d[i], bytes[i], err, errlen));
  for (int i = 0; i < 2 && n; i++) SP_TRY(sp_gpu_upload(g, d[i], h[i], bytes[i], err, errlen));
  return SEALPROV_OK;
}

static void free_two(sp_gpu *g, void *d[2], const size_t bytes[2]) {
  for (int i = 0; i < 2; i++) sp_gpu_free(g, d[i], bytes[i]);
}

/* points of `point_bytes` each (G1 or G2) and canonical scalars to the device, one MSM */
static int msm_host(sp_gpu *g, bool g2, void *out, const void *points, size_t point_bytes,
                    const scalar_t *scalars, size_t n, char *err, size_t errlen) {
  void *d[2] = {NULL, NULL};
  const void *const h[2] = {points, scalars};
  const size_t bytes[2] = {n * point_bytes, n * sizeof(scalar_t)};
  int st = upload_two(g, d, h, bytes, n, err, errlen);
  if (st == SEALPROV_OK) {
    sp_msm_args a;
    memset(&a, 0, sizeof a);
    a.d_points = d[0];
    a.d_scalars = d[1];
    a.n = n;
    st = g2 ? sp_gpu_msm_g2_dev(g, out, &a, err, errlen)
            : sp_gpu_msm_g1_dev(g, out, &a, err, errlen);
  }
  free_two(g, d, bytes);
  return st;
}

int sp_gpu_msm_g1(sp_gpu *g, g1_jac_t *out, const g1_affine_t *points, const scalar_t *scalars,
                  size_t n, char *err, size_t errlen) {
  return msm_host(g, false, out, points, sizeof(g1_affine_t), scalars, n, err, errlen);
}

int sp_gpu_msm_g2(sp_gpu *g, g2_jac_t *out, const g2_affine_t *points, const scalar_t *scalars,
                  size_t n, char *err, size_t errlen) {
  return msm_host(g, true, out, points, sizeof(g2_affine_t), scalars, n, err, errlen);
}

static int batch_add_host(sp_gpu *g, bool g2, void *out, const void *points, size_t point_bytes,
                          const uint64_t *bitmap, size_t n, char *err, size_t errlen) {
  void *d[2] = {NULL, NULL};
  const void *const h[2] = {points, bitmap};
  const size_t bytes[2] = {n * point_bytes, ((n + 63) / 64) * 8};
  int st = upload_two(g, d, h, bytes, n, err, errlen);
  if (st == SEALPROV_OK)
    st = g2 ? sp_gpu_batch_add_g2_dev(g, out, d[0], (const uint64_t *)d[1], n, err, errlen)
            : sp_gpu_batch_add_g1_dev(g, out, d[0], (const uint64_t *)d[1], n, err, errlen);
  free_two(g, d, bytes);
  return st;
}

int sp_gpu_batch_add_g1(sp_gpu *g, g1_jac_t *out, const g1_affine_t *points, const uint64_t *bitmap,
                        size_t n, char *err, size_t errlen) {
  return batch_add_host(g, false, out, points, sizeof(g1_affine_t), bitmap, n, err, errlen);
}

int sp_gpu_batch_add_g2(sp_gpu *g, g2_jac_t *out, const g2_affine_t *points, const uint64_t *bitmap,
                        size_t n, char *err, size_t errlen) {
  return batch_add_host(g, true, out, points, sizeof(g2_affine_t), bitmap, n, err, errlen);
}

int sp_cuda_subgroup_check(int ordinal, bool g2, const void *pts, size_t n, size_t *first_bad,
                           char *err, size_t errlen) {
  if (!first_bad || (n && !pts)) {
    snprintf(err, errlen, "sp_cuda_subgroup_check: NULL %s", first_bad ? "points" : "first_bad");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  *first_bad = n;
  if (n == 0) return SEALPROV_OK;
  sp_cuda_checker *c = NULL;
  int st = sp_cuda_checker_create(ordinal, &c, err, errlen);
  if (st) return st;
  st = sp_cuda_checker_run(c, g2, pts, n, first_bad, err, errlen);
  sp_cuda_checker_destroy(c);
  return st;
}
