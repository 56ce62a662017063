/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* setup.cu -- fixed-base products k[i] * G of the synthetic setup on the GPU
 * (sp_cuda_setup.h).
 *
 * Tables: for window j < 16 and digit d in 1..65535, T[j][d-1] = d * 2^(16 j) * G as
 * affine points (one thread each: a 16-bit double-and-add from 2^(16 j) G, computed on
 * the host, then a Fermat inversion). A product is then at most 16 mixed additions of
 * the canonical scalar's 16-bit windows (scalars < r < 2^255). Each thread makes
 * SG_CH consecutive points and turns them affine with one inversion (Montgomery's
 * trick over ZZZ; 1/z = ZZ/ZZZ), then writes their encoding: x then y (G2: x.c1,
 * x.c0, y.c1, y.c0), each coordinate out of Montgomery form, 48 bytes big-endian;
 * infinity (k = 0) is 0x40 and zeros, as g1_serialize / g2_serialize.
 *
 * Affine coordinates are unique, so the bytes are the CPU setup's whatever the order
 * of the additions.
 */
#include <string.h>

#include "gpu_internal.cuh"
#include "sp_cuda_setup.h"

#define FB_WBITS 16
#define FB_WINDOWS 16
#define FB_DIGITS ((1u << FB_WBITS) - 1u)
#define FB_CH 8                    /* points per thread (one inversion) */
#define FB_BLOCK ((size_t)1 << 22) /* scalars per call */

/* T[j * FB_DIGITS + d - 1] = d * base[j] */
template <class F>
__global__ void k_fb_table(spc_affine<F> *t, const spc_affine<F> *base) {
  size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (size_t)FB_WINDOWS * FB_DIGITS) return;
  unsigned j = (unsigned)(idx / FB_DIGITS), d = (unsigned)(idx % FB_DIGITS) + 1;
  typedef spc_xyzz<F> X;
  spc_affine<F> b = base[j];
  X acc = X::inf();
  for (int bit = FB_WBITS - 1; bit >= 0; bit--) {
    acc = X::dbl(acc);
    if ((d >> bit) & 1u) acc = X::add_affine(acc, b);
  }
  F izzz = sp_inv(acc.zzz); /* d < r: never infinity */
  F iz = F::mul(acc.zz, izzz);
  spc_affine<F> a;
  a.x = F::mul(acc.x, F::sqr(iz));
  a.y = F::mul(acc.y, izzz);
  t[idx] = a;
}

__device__ __forceinline__ void fb_put_fp(uint8_t *o, const spc_fp &m) {
  spc_fp c = spc_fp::from_mont(m);
#pragma unroll
  for (int i = 0; i < 12; i++) {
    uint32_t w = c.v[11 - i];
    o[4 * i] = (uint8_t)(w >> 24);
    o[4 * i + 1] = (uint8_t)(w >> 16);
    o[4 * i + 2] = (uint8_t)(w >> 8);
    o[4 * i + 3] = (uint8_t)w;
  }
}
__device__ __forceinline__ void fb_put(uint8_t *o, const spc_fp &x, const spc_fp &y) {
  fb_put_fp(o, x);
  fb_put_fp(o + 48, y);
}
__device__ __forceinline__ void fb_put(uint8_t *o, const spc_fp2 &x, const spc_fp2 &y) {
  fb_put_fp(o, x.c1);
  fb_put_fp(o + 48, x.c0);
  fb_put_fp(o + 96, y.c1);
  fb_put_fp(o + 144, y.c0);
}

template <class F, int PSZ>
__global__ void k_fb_mul(const spc_fr *k, size_t n, const spc_affine<F> *t, uint8_t *out) {
  typedef spc_xyzz<F> X;
  size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * FB_CH;
  if (first >= n) return;
  unsigned cnt = n - first < FB_CH ? (unsigned)(n - first) : FB_CH;
  sp_chunk_to_affine<F, FB_CH>(
      cnt,
      [&](unsigned i) {
        spc_fr s = spc_fr::from_mont(k[first + i]);
        X acc = X::inf();
#pragma unroll 1
        for (int j = 0; j < FB_WINDOWS; j++) {
          unsigned d = (s.v[j >> 1] >> (16 * (j & 1))) & 0xffffu;
          if (d) acc = X::add_affine(acc, t[(size_t)j * FB_DIGITS + d - 1]);
        }
        return acc;
      },
      [&](unsigned i, bool inf, const F &x, const F &y) {
        uint8_t *o = out + (first + i) * PSZ;
        if (inf) { /* the file's point at infinity: the flag alone */
          for (int b = 0; b < PSZ; b++) o[b] = 0;
          o[0] = 0x40;
        } else {
          fb_put(o, x, y);
        }
      });
}

struct sp_cuda_setup {
  int ordinal;
  sp_gpu *g;
  void *table[2]; /* G1, G2; built at first use */
  void *d_k, *d_out;
  char name[32];
};

static int fb_tables(sp_cuda_setup *s, bool g2, char *err, size_t errlen) {
  if (s->table[g2]) return SEALPROV_OK;
  size_t asz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  size_t bytes = (size_t)FB_WINDOWS * FB_DIGITS * asz;
  /* bases 2^(16 j) G on the host (16 points) */
  uint8_t hb[FB_WINDOWS * sizeof(g2_affine_t)];
  if (g2) {
    g2_affine_t gen;
    g2_jac_t j;
    g2_generator(&gen);
    g2_jac_from_affine(&j, &gen);
    for (int w = 0; w < FB_WINDOWS; w++) {
      g2_jac_to_affine((g2_affine_t *)hb + w, &j);
      for (int b = 0; b < FB_WBITS; b++) g2_jac_dbl(&j, &j);
    }
  } else {
    g1_affine_t gen;
    g1_jac_t j;
    g1_generator(&gen);
    g1_jac_from_affine(&j, &gen);
    for (int w = 0; w < FB_WINDOWS; w++) {
      g1_jac_to_affine((g1_affine_t *)hb + w, &j);
      for (int b = 0; b < FB_WBITS; b++) g1_jac_dbl(&j, &j);
    }
  }
  void *dbase = NULL, *t = NULL;
  int st = sp_gpu_alloc(s->g, &dbase, FB_WINDOWS * asz, err, errlen);
  if (!st) st = sp_gpu_alloc(s->g, &t, bytes, err, errlen);
  if (!st) st = sp_gpu_upload(s->g, dbase, hb, FB_WINDOWS * asz, err, errlen);
  if (!st) {
    size_t nt = (size_t)FB_WINDOWS * FB_DIGITS;
    if (g2)
      k_fb_table<spc_fp2><<<sp_blocks(nt, 64), 64, 0, s->g->stream>>>((spc_g2_affine *)t,
                                                                      (const spc_g2_affine *)dbase);
    else
      k_fb_table<spc_fp><<<sp_blocks(nt, 128), 128, 0, s->g->stream>>>(
          (spc_g1_affine *)t, (const spc_g1_affine *)dbase);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
      snprintf(err, errlen, "%s:%d: k_fb_table: %s", __FILE__, __LINE__, cudaGetErrorString(e));
      st = SEALPROV_ERR_DEVICE;
    }
  }
  if (!st) st = sp_gpu_sync(s->g, err, errlen);
  sp_gpu_free(s->g, dbase, FB_WINDOWS * asz);
  if (st) {
    sp_gpu_free(s->g, t, bytes);
    return st;
  }
  s->table[g2] = t;
  return SEALPROV_OK;
}

static int fb_mul(void *ctx, bool g2, const void *k, size_t n, uint8_t *out, char *err,
                  size_t errlen) {
  sp_cuda_setup *s = (sp_cuda_setup *)ctx;
  if (n > FB_BLOCK) {
    snprintf(err, errlen, "%s: %zu scalars in one call, at most %zu", s->name, n, FB_BLOCK);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (n == 0) return SEALPROV_OK;
  int st = fb_tables(s, g2, err, errlen);
  if (st) return st;
  const size_t psz = g2 ? 192 : 96;
  SP_TRY(sp_gpu_upload(s->g, s->d_k, k, n * sizeof(fr_t), err, errlen));
  size_t threads = (n + FB_CH - 1) / FB_CH;
  if (g2)
    k_fb_mul<spc_fp2, 192><<<sp_blocks(threads, 64), 64, 0, s->g->stream>>>(
        (const spc_fr *)s->d_k, n, (const spc_g2_affine *)s->table[1], (uint8_t *)s->d_out);
  else
    k_fb_mul<spc_fp, 96><<<sp_blocks(threads, 128), 128, 0, s->g->stream>>>(
        (const spc_fr *)s->d_k, n, (const spc_g1_affine *)s->table[0], (uint8_t *)s->d_out);
  SP_CUDA_LAUNCH_CHECK();
  return sp_gpu_download(s->g, out, s->d_out, n * psz, err, errlen);
}

extern "C" int sp_cuda_setup_create(int ordinal, sp_cuda_setup **out, char *err, size_t errlen) {
  *out = NULL;
  int confirmed = -1;
  SP_TRY(sp_gpu_bind(ordinal, &confirmed, err, errlen));
  sp_cuda_setup *s = (sp_cuda_setup *)calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  s->ordinal = ordinal;
  snprintf(s->name, sizeof s->name, "cuda device %d", ordinal);
  int st = sp_gpu_create(ordinal, 0, &s->g, err, errlen);
  if (!st) st = sp_gpu_alloc(s->g, &s->d_k, FB_BLOCK * sizeof(fr_t), err, errlen);
  if (!st) st = sp_gpu_alloc(s->g, &s->d_out, FB_BLOCK * 192, err, errlen);
  if (st) {
    sp_cuda_setup_destroy(s);
    return st;
  }
  *out = s;
  return SEALPROV_OK;
}

extern "C" void sp_cuda_setup_destroy(sp_cuda_setup *s) {
  if (!s) return;
  if (s->g) {
    sp_gpu_free(s->g, s->table[0], (size_t)FB_WINDOWS * FB_DIGITS * sizeof(g1_affine_t));
    sp_gpu_free(s->g, s->table[1], (size_t)FB_WINDOWS * FB_DIGITS * sizeof(g2_affine_t));
    sp_gpu_free(s->g, s->d_k, FB_BLOCK * sizeof(fr_t));
    sp_gpu_free(s->g, s->d_out, FB_BLOCK * 192);
    sp_gpu_destroy(s->g);
  }
  free(s);
}

extern "C" sp_fixed_base sp_cuda_setup_fixed_base(sp_cuda_setup *s) {
  sp_fixed_base fb;
  fb.ctx = s;
  fb.mul = fb_mul;
  fb.block = FB_BLOCK;
  fb.name = s ? s->name : "cuda";
  return fb;
}
