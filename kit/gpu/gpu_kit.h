/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* gpu_kit.h -- the developer kit's GPU side (a CUDA build only): conveniences on host
 * arrays over the kernels (ntt/ntt.h, msm/msm.h: gpu_host.c), the field and curve self-test
 * kernels, device-made benchmark data and a read-back of a direct load's device copies
 * (selftest.cu). For the GPU tests and `sealprov bench gpu`; none of it is in
 * sealprov.so. Statuses and threading as sp_gpu.h. */
#ifndef SEALPROV_KIT_GPU_KIT_H
#define SEALPROV_KIT_GPU_KIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sp_gpu.h"
#include "util/cuda_api.h"
#include "ntt/ntt.h"
#include "msm/msm.h"
#include "points/points.h" /* sp_srs_devcopy */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- host arrays (upload, run, download, free) ------------------------------------- */

/* sp_gpu_ntt_dev on a host array. */
int sp_gpu_ntt(sp_gpu *g, fr_t *a, unsigned log_n, sp_ntt_kind kind, char *err, size_t errlen);
/* The four steps of ntt/ntt.h's H polynomial in one call, on device arrays: d_a gets the
 * coefficients of (a*b - c)/Z, bit-reversed. */
int sp_gpu_h_poly(sp_gpu *g, void *d_a, void *d_b, void *d_c, unsigned log_n, char *err,
                  size_t errlen);
/* sp_gpu_msm_g1_dev / _g2_dev on host points and canonical scalars. */
int sp_gpu_msm_g1(sp_gpu *g, g1_jac_t *out, const g1_affine_t *points, const scalar_t *scalars,
                  size_t n, char *err, size_t errlen);
int sp_gpu_msm_g2(sp_gpu *g, g2_jac_t *out, const g2_affine_t *points, const scalar_t *scalars,
                  size_t n, char *err, size_t errlen);
/* sp_gpu_batch_add_g1_dev / _g2_dev on host points and bitmap. */
int sp_gpu_batch_add_g1(sp_gpu *g, g1_jac_t *out, const g1_affine_t *points, const uint64_t *bitmap,
                        size_t n, char *err, size_t errlen);
int sp_gpu_batch_add_g2(sp_gpu *g, g2_jac_t *out, const g2_affine_t *points, const uint64_t *bitmap,
                        size_t n, char *err, size_t errlen);
/* One subgroup check of n points with a checker made and freed for the call (sp_gpu.h:
 * sp_cuda_checker_*, whose contract it has). */
int sp_cuda_subgroup_check(int ordinal, bool g2, const void *pts, size_t n, size_t *first_bad,
                           char *err, size_t errlen);

/* ---- self-test kernels and benchmark data (selftest.cu) ------------------------------ */

/* Benchmark and test data made on the device (no host work, no transfer):
 * points[i] = (seed + i) * generator as affine points, scalars uniform below r
 * (canonical, from a counter-based hash of seed and i). */
int sp_gpu_gen_points_g1(sp_gpu *g, void *d_points, size_t n, uint64_t seed, char *err,
                         size_t errlen);
int sp_gpu_gen_points_g2(sp_gpu *g, void *d_points, size_t n, uint64_t seed, char *err,
                         size_t errlen);
int sp_gpu_gen_scalars(sp_gpu *g, void *d_scalars, size_t n, uint64_t seed, char *err,
                       size_t errlen);

/* Field self-test kernels for the tests: ops[i] applied to a[i], b[i] (n elements):
 * out gets, per element, add, sub, mul, sqr (4 results). Fp when fp is true, else Fr. */
int sp_gpu_field_ops(sp_gpu *g, bool fp, const void *a, const void *b, void *out, size_t n,
                     char *err, size_t errlen);
/* Fp2 self-test: per element, a+b, a-b, a*b, a^2, a*b - c*d, then a*b and a*b - c*d
 * again in their lazy forms (7 results; host layout fp2_t). */
int sp_gpu_fp2_ops(sp_gpu *g, const void *a, const void *b, const void *c, const void *d, void *out,
                   size_t n, char *err, size_t errlen);
/* Curve self-test: for G1 (g2 false) or G2: out[i] = p[i] + q[i] (XYZZ add of the
 * affine inputs), out[n + i] = 2 p[i], out[2n + i] = (xyzz p[i]) + q[i] mixed; results
 * as xyzz (host layout g1_xyzz_t / g2_xyzz_t). */
int sp_gpu_curve_ops(sp_gpu *g, bool g2, const void *p, const void *q, void *out, size_t n,
                     char *err, size_t errlen);

/* Copies vector vec (0..4) of device copy `dev` of a direct load into host
 * (c->bytes[vec] bytes); any thread. */
int sp_cuda_devcopy_download(const struct sp_srs_devcopy *c, unsigned dev, int vec, void *host,
                             char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
