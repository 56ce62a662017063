/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* selftest.cu -- the developer kit's GPU code (gpu_kit.h): the field and curve self-test
 * kernels that the GPU tests compare with the CPU library, device-made benchmark data,
 * and a read-back of a direct load's device copies. Nothing here is in sealprov.so. */
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"
#include "gpu_kit.h"

/* ---- field / curve self-test kernels --------------------------------------------- */

template <class F>
__global__ void k_field_ops(const F *a, const F *b, F *out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  F x = a[i], y = b[i];
  out[4 * i + 0] = F::add(x, y);
  out[4 * i + 1] = F::sub(x, y);
  out[4 * i + 2] = F::mul(x, y);
  out[4 * i + 3] = F::sqr(x);
}

extern "C" int sp_gpu_field_ops(sp_gpu *g, bool fp, const void *a, const void *b, void *out,
                                size_t n, char *err, size_t errlen) {
  size_t esz = fp ? sizeof(spc_fp) : sizeof(spc_fr);
  void *da = NULL, *db = NULL, *dout = NULL;
  int st = SEALPROV_OK;
  SP_TRY_GOTO(sp_gpu_alloc(g, &da, n * esz, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, &db, n * esz, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, &dout, 4 * n * esz, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_upload(g, da, a, n * esz, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_upload(g, db, b, n * esz, err, errlen), st, done);
  if (fp)
    k_field_ops<spc_fp><<<sp_blocks(n, 128), 128, 0, g->stream>>>(
        (const spc_fp *)da, (const spc_fp *)db, (spc_fp *)dout, n);
  else
    k_field_ops<spc_fr><<<sp_blocks(n, 128), 128, 0, g->stream>>>(
        (const spc_fr *)da, (const spc_fr *)db, (spc_fr *)dout, n);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  SP_TRY_GOTO(sp_gpu_download(g, out, dout, 4 * n * esz, err, errlen), st, done);
done:
  sp_gpu_free(g, da, n * esz);
  sp_gpu_free(g, db, n * esz);
  sp_gpu_free(g, dout, 4 * n * esz);
  return st;
}

/* Fp2: add, sub, mul, sqr of a, b, mul_sub_mul(a, b, c, d) = a b - c d, and the lazy
 * forms of the two products (ff.cuh). */
__global__ void k_fp2_ops(const spc_fp2 *a, const spc_fp2 *b, const spc_fp2 *c, const spc_fp2 *d,
                          spc_fp2 *out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_fp2 x = a[i], y = b[i];
  out[7 * i + 0] = spc_fp2::add(x, y);
  out[7 * i + 1] = spc_fp2::sub(x, y);
  out[7 * i + 2] = spc_fp2::mul(x, y);
  out[7 * i + 3] = spc_fp2::sqr(x);
  out[7 * i + 4] = spc_fp2::mul_sub_mul(x, y, c[i], d[i]);
  out[7 * i + 5] = spc_fp2::mul_lazy(x, y);
  out[7 * i + 6] = spc_fp2::mul_sub_mul_lazy(x, y, c[i], d[i]);
}

extern "C" int sp_gpu_fp2_ops(sp_gpu *g, const void *a, const void *b, const void *c, const void *d,
                              void *out, size_t n, char *err, size_t errlen) {
  const size_t esz = sizeof(spc_fp2);
  void *din[4] = {NULL, NULL, NULL, NULL}, *dout = NULL;
  const void *in[4] = {a, b, c, d};
  int st = SEALPROV_OK;
  for (int k = 0; k < 4; k++) {
    SP_TRY_GOTO(sp_gpu_alloc(g, &din[k], n * esz, err, errlen), st, done);
    SP_TRY_GOTO(sp_gpu_upload(g, din[k], in[k], n * esz, err, errlen), st, done);
  }
  SP_TRY_GOTO(sp_gpu_alloc(g, &dout, 7 * n * esz, err, errlen), st, done);
  k_fp2_ops<<<sp_blocks(n, 64), 64, 0, g->stream>>>(
      (const spc_fp2 *)din[0], (const spc_fp2 *)din[1], (const spc_fp2 *)din[2],
      (const spc_fp2 *)din[3], (spc_fp2 *)dout, n);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  SP_TRY_GOTO(sp_gpu_download(g, out, dout, 7 * n * esz, err, errlen), st, done);
done:
  for (int k = 0; k < 4; k++) sp_gpu_free(g, din[k], n * esz);
  sp_gpu_free(g, dout, 7 * n * esz);
  return st;
}

template <class F>
__global__ void k_curve_ops(const spc_affine<F> *p, const spc_affine<F> *q, spc_xyzz<F> *out,
                            size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  typedef spc_xyzz<F> X;
  X xp = X::from_affine(p[i]);
  X xq = X::from_affine(q[i]);
  out[i] = X::add(xp, xq);
  out[n + i] = X::dbl(xp);
  out[2 * n + i] = X::add_affine(xp, q[i]);
}

extern "C" int sp_gpu_curve_ops(sp_gpu *g, bool g2, const void *p, const void *q, void *out,
                                size_t n, char *err, size_t errlen) {
  size_t asz = g2 ? sizeof(spc_g2_affine) : sizeof(spc_g1_affine);
  size_t xsz = g2 ? sizeof(spc_g2_xyzz) : sizeof(spc_g1_xyzz);
  void *dp = NULL, *dq = NULL, *dout = NULL;
  int st = SEALPROV_OK;
  SP_TRY_GOTO(sp_gpu_alloc(g, &dp, n * asz, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, &dq, n * asz, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_alloc(g, &dout, 3 * n * xsz, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_upload(g, dp, p, n * asz, err, errlen), st, done);
  SP_TRY_GOTO(sp_gpu_upload(g, dq, q, n * asz, err, errlen), st, done);
  if (g2)
    k_curve_ops<spc_fp2><<<sp_blocks(n, 64), 64, 0, g->stream>>>(
        (const spc_g2_affine *)dp, (const spc_g2_affine *)dq, (spc_g2_xyzz *)dout, n);
  else
    k_curve_ops<spc_fp><<<sp_blocks(n, 64), 64, 0, g->stream>>>(
        (const spc_g1_affine *)dp, (const spc_g1_affine *)dq, (spc_g1_xyzz *)dout, n);
  SP_CUDA_LAUNCH_CHECK_GOTO(st, done);
  SP_TRY_GOTO(sp_gpu_download(g, out, dout, 3 * n * xsz, err, errlen), st, done);
done:
  sp_gpu_free(g, dp, n * asz);
  sp_gpu_free(g, dq, n * asz);
  sp_gpu_free(g, dout, 3 * n * xsz);
  return st;
}

/* ---- device-made benchmark data ------------------------------------------------------ */

__device__ __forceinline__ uint64_t sp_splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void k_gen_scalars(spc_fr *out, size_t n, uint64_t seed) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_fr s;
  uint64_t h = sp_splitmix64(seed ^ sp_splitmix64(i));
#pragma unroll
  for (int k = 0; k < 4; k++) {
    h = sp_splitmix64(h + (uint64_t)k);
    s.v[2 * k] = (uint32_t)h;
    s.v[2 * k + 1] = (uint32_t)(h >> 32);
  }
  s.v[7] &= 0x7fffffffu; /* < 2^255 < 2r: one subtraction reduces */
  if (!spc_fr::lt_mod(s)) {
    /* s >= r: sub() borrows nothing, so this is the plain s - r < r. */
    spc_fr rr;
#pragma unroll
    for (int k = 0; k < 8; k++) rr.v[k] = SPC_FR_P[k];
    s = spc_fr::sub(s, rr);
  }
  out[i] = s;
}

extern "C" int sp_gpu_gen_scalars(sp_gpu *g, void *d_scalars, size_t n, uint64_t seed, char *err,
                                  size_t errlen) {
  if (n == 0) return SEALPROV_OK;
  k_gen_scalars<<<sp_blocks(n, 256), 256, 0, g->stream>>>((spc_fr *)d_scalars, n, seed);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}

/* Each thread makes SP_GEN_CHUNK consecutive multiples of the generator: one 64-bit
 * double-and-add for the first, one addition per point, and one inversion per chunk
 * (Montgomery's batch inversion over the ZZZ coordinates; 1/z = ZZ/ZZZ). */
#define SP_GEN_CHUNK 32
template <class F>
__global__ void k_gen_points(spc_affine<F> *out, size_t n, uint64_t seed, spc_affine<F> gen) {
  typedef spc_xyzz<F> X;
  size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * SP_GEN_CHUNK;
  if (first >= n) return;
  unsigned cnt = n - first < SP_GEN_CHUNK ? (unsigned)(n - first) : SP_GEN_CHUNK;
  uint64_t k = seed + first;
  X acc = X::inf();
  for (int bit = 63; bit >= 0; bit--) {
    acc = X::dbl(acc);
    if ((k >> bit) & 1u) acc = X::add_affine(acc, gen);
  }
  sp_chunk_to_affine_at<F, SP_GEN_CHUNK>(
      cnt,
      [&](unsigned) {
        X p = acc;
        acc = X::add_affine(acc, gen);
        return p;
      },
      out + first);
}

extern "C" int sp_gpu_gen_points_g1(sp_gpu *g, void *d_points, size_t n, uint64_t seed, char *err,
                                    size_t errlen) {
  if (n == 0) return SEALPROV_OK;
  g1_affine_t h;
  g1_generator(&h);
  spc_g1_affine gen;
  memcpy(&gen, &h, sizeof gen);
  size_t threads = (n + SP_GEN_CHUNK - 1) / SP_GEN_CHUNK;
  k_gen_points<spc_fp>
      <<<sp_blocks(threads, 128), 128, 0, g->stream>>>((spc_g1_affine *)d_points, n, seed, gen);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}

extern "C" int sp_gpu_gen_points_g2(sp_gpu *g, void *d_points, size_t n, uint64_t seed, char *err,
                                    size_t errlen) {
  if (n == 0) return SEALPROV_OK;
  g2_affine_t h;
  g2_generator(&h);
  spc_g2_affine gen;
  memcpy(&gen, &h, sizeof gen);
  size_t threads = (n + SP_GEN_CHUNK - 1) / SP_GEN_CHUNK;
  k_gen_points<spc_fp2>
      <<<sp_blocks(threads, 64), 64, 0, g->stream>>>((spc_g2_affine *)d_points, n, seed, gen);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}

/* ---- reading a direct load's device copies back (tests) ------------------------------ */

/* The calling thread onto `ordinal` and back (sp_cuda_devcopy_download may run on any
 * thread). */
static int enter_device(int ordinal, int *prev, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaGetDevice(prev));
  if (*prev != ordinal) SP_CUDA_CHECK(cudaSetDevice(ordinal));
  return SEALPROV_OK;
}

static void leave_device(int ordinal, int prev) {
  if (prev != ordinal && prev >= 0) (void)cudaSetDevice(prev);
}

extern "C" int sp_cuda_devcopy_download(const sp_srs_devcopy *c, unsigned dev, int vec, void *host,
                                        char *err, size_t errlen) {
  if (!c || dev >= c->ndev || vec < 0 || vec > 4) {
    snprintf(err, errlen, "devcopy download: device %u / vector %d out of range", dev, vec);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (!c->bytes[vec]) return SEALPROV_OK;
  int prev = -1;
  int st = enter_device(c->ordinal[dev], &prev, err, errlen);
  if (st) return st;
  cudaError_t e = cudaMemcpy(host, c->vec[dev][vec], c->bytes[vec], cudaMemcpyDeviceToHost);
  leave_device(c->ordinal[dev], prev);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(err, errlen, "devcopy download: %s", cudaGetErrorString(e));
    return sp_cuda_status(e);
  }
  return SEALPROV_OK;
}
