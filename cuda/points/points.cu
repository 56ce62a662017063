/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* points.cu -- the direct load of a .params file's proving vectors onto the CUDA devices:
 * no host copy of h, l, a, b_g1, b_g2.
 *
 * The loader (plugin/srs.c, through the sp_srs_sink callbacks declared in cuda_api.h)
 * preads each chunk of the file with several threads into one of DL_SLOTS page-locked
 * buffers; submit() then, on every device, copies the buffer into that device's raw
 * buffer of the slot (copy stream), decodes it there into the device's copy of the
 * vector (compute stream: bellperson's uncompressed big-endian encoding -> Montgomery
 * affine, the bytes the host decoder gives) checking the flags, coordinates < p, not
 * infinity and on the curve, and, on device (chunk number mod ndev) only, the subgroup
 * (subgroup.cuh). Each device keeps the lowest failing index of the chunk in a word that
 * goes back to pinned host memory after the chunk's kernels. The host reads the next
 * chunk while the devices work: a slot is reused (buffer()) only once every device is
 * done with it, which is also when its result is read. The first rejected chunk in file
 * order names the point; its encoding, still in the slot's buffer, goes back to the
 * loader, which words the message with the CPU decoder's reason for those bytes.
 *
 * Threads: every call comes from the loader's thread, bound to the first device; the
 * other devices are entered with cudaSetDevice and left again (dl_enter / dl_leave).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"
#include "subgroup.cuh"
#include "cuda_api.h"
#include "points.h"

#define DL_SLOTS 3
#define DL_CHUNK_BYTES ((size_t)256 << 20)
/* Device memory a partition needs besides the parameter points (engine_cuda.c
 * SP_SCRATCH_RESERVE, work_bytes with three vectors): a direct load leaves it free. */
#define DL_WORK_RESERVE (10ull << 30)

static const unsigned long long DL_NONE = ~0ull;

/* ---- the decode kernels ----------------------------------------------------------------- */

/* The field element of a 48-byte big-endian encoding, loaded as 12 words in memory
 * order (w[0] holds bytes 0..3): limb j (least significant first) is word 11 - j with
 * its bytes reversed. The three flag bits (the top of byte 0) are cleared. */
__device__ __forceinline__ spc_fp dl_be48(const uint32_t *w, bool flags) {
  spc_fp r;
#pragma unroll
  for (int j = 0; j < 12; j++) r.v[j] = __byte_perm(w[11 - j], 0, 0x0123);
  if (flags) r.v[11] &= 0x1fffffffu;
  return r;
}

/* The checks of the host decoder (plugin/bls12_381/serialize.c) short of the
 * subgroup: flags of an uncompressed point (no compression, infinity or sign bit: the
 * loader rejects infinity too), each coordinate < p, not (0, 0), on the curve. */
__device__ __forceinline__ bool dl_flags_ok(uint32_t w0) { return (w0 & 0xe0u) == 0; }

/* A point's raw bytes, Q 16-byte loads, as 32-bit words in file order. */
template <int Q>
__device__ __forceinline__ void dl_words(const uint4 *src, uint32_t *w) {
#pragma unroll
  for (int q = 0; q < Q; q++) {
    uint4 v = src[q];
    w[4 * q] = v.x;
    w[4 * q + 1] = v.y;
    w[4 * q + 2] = v.z;
    w[4 * q + 3] = v.w;
  }
}

__global__ void k_decode_g1(const uint4 *raw, size_t n, spc_g1_affine *dst, spc_fp b4,
                            unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t w[24];
  dl_words<6>(raw + i * 6, w);
  spc_g1_affine p;
  p.x = dl_be48(w, true);
  p.y = dl_be48(w + 12, false);
  bool ok = dl_flags_ok(w[0]) && spc_fp::lt_mod(p.x) && spc_fp::lt_mod(p.y);
  if (ok) {
    p.x = spc_fp::to_mont(p.x);
    p.y = spc_fp::to_mont(p.y);
    spc_fp rhs = spc_fp::add(spc_fp::mul(spc_fp::sqr(p.x), p.x), b4);
    ok = !p.is_inf() && spc_fp::sqr(p.y).eq(rhs);
  }
  if (!ok) {
    p.x = spc_fp::zero(); /* infinity: the subgroup kernel passes over it */
    p.y = spc_fp::zero();
    atomicMin(bad, (unsigned long long)i);
  }
  dst[i] = p;
}

__global__ void k_decode_g2(const uint4 *raw, size_t n, spc_g2_affine *dst, spc_fp b4,
                            unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t w[48];
  dl_words<12>(raw + i * 12, w);
  /* Fp2 as c1 then c0 */
  spc_g2_affine p;
  p.x.c1 = dl_be48(w, true);
  p.x.c0 = dl_be48(w + 12, false);
  p.y.c1 = dl_be48(w + 24, false);
  p.y.c0 = dl_be48(w + 36, false);
  bool ok = dl_flags_ok(w[0]) && spc_fp::lt_mod(p.x.c1) && spc_fp::lt_mod(p.x.c0) &&
            spc_fp::lt_mod(p.y.c1) && spc_fp::lt_mod(p.y.c0);
  if (ok) {
    p.x.c0 = spc_fp::to_mont(p.x.c0);
    p.x.c1 = spc_fp::to_mont(p.x.c1);
    p.y.c0 = spc_fp::to_mont(p.y.c0);
    p.y.c1 = spc_fp::to_mont(p.y.c1);
    spc_fp2 b;
    b.c0 = b4;
    b.c1 = b4;
    spc_fp2 rhs = spc_fp2::add(spc_fp2::mul_lazy(spc_fp2::sqr(p.x), p.x), b);
    ok = !p.is_inf() && spc_fp2::sqr(p.y).eq(rhs);
  }
  if (!ok) {
    p.x.c0 = spc_fp::zero();
    p.x.c1 = spc_fp::zero();
    p.y.c0 = spc_fp::zero();
    p.y.c1 = spc_fp::zero();
    atomicMin(bad, (unsigned long long)i);
  }
  dst[i] = p;
}

/* ---- the host side ---------------------------------------------------------------------- */

typedef struct dl_dev {
  int ordinal;
  uint64_t memory_limit;
  cudaStream_t cs, ks; /* copies; decode and checks */
  void *raw[DL_SLOTS];
  cudaEvent_t up[DL_SLOTS], done[DL_SLOTS];
  bool ev_made;
  unsigned long long *dbad; /* DL_SLOTS words */
  void *vec[5];
} dl_dev;

typedef struct dl_slot {
  bool busy;
  int vec;
  size_t index0, n;
  uint64_t off0;
} dl_slot;

struct sp_cuda_dload {
  unsigned ndev;
  dl_dev dev[SP_DEVCOPY_MAX];
  bool subgroup;
  size_t chunk;
  bool begun;
  void *host[DL_SLOTS];
  unsigned long long *hbad; /* pinned: [device][slot] */
  dl_slot slot[DL_SLOTS];
  unsigned next;
  uint64_t chunks;
  size_t vlen[5];
  sg_consts k;
  double t0, ms, wait_ms;
  char declined[300];
};

static int dl_enter(int ordinal, int *prev, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaGetDevice(prev));
  if (*prev != ordinal) SP_CUDA_CHECK(cudaSetDevice(ordinal));
  return SEALPROV_OK;
}
static void dl_leave(int ordinal, int prev) {
  if (prev != ordinal && prev >= 0) (void)cudaSetDevice(prev);
}

/* Adds " (direct load, device N)" to err. */
static int dl_where(int st, int ordinal, char *err, size_t errlen) {
  if (st && err && errlen) {
    size_t l = strlen(err);
    if (l < errlen) snprintf(err + l, errlen - l, " (direct load, CUDA device %d)", ordinal);
  }
  return st;
}

extern "C" int sp_cuda_dload_create(const int *ordinals, const uint64_t *memory_limit,
                                    unsigned ndev, bool subgroup_check, sp_cuda_dload **out,
                                    char *err, size_t errlen) {
  *out = NULL;
  if (ndev == 0 || ndev > SP_DEVCOPY_MAX || !ordinals) {
    snprintf(err, errlen, "direct load: %u devices (1 to %d)", ndev, SP_DEVCOPY_MAX);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  sp_cuda_dload *l = (sp_cuda_dload *)calloc(1, sizeof *l);
  if (!l) {
    snprintf(err, errlen, "direct load: out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  l->ndev = ndev;
  for (unsigned d = 0; d < ndev; d++) {
    l->dev[d].ordinal = ordinals[d];
    l->dev[d].memory_limit = memory_limit ? memory_limit[d] : 0;
  }
  l->subgroup = subgroup_check;
  l->chunk = DL_CHUNK_BYTES;
  l->k = sg_make_consts();
  *out = l;
  return SEALPROV_OK;
}

extern "C" size_t sp_cuda_dload_chunk_bytes(const sp_cuda_dload *l) { return l ? l->chunk : 0; }
extern "C" const char *sp_cuda_dload_declined(const sp_cuda_dload *l) {
  return l ? l->declined : "";
}

/* Everything of one device (its device current): waits for its streams first. */
static void dl_dev_free(dl_dev *v, bool vectors) {
  if (v->cs) cudaStreamSynchronize(v->cs);
  if (v->ks) cudaStreamSynchronize(v->ks);
  for (int s = 0; s < DL_SLOTS; s++) {
    if (v->raw[s]) cudaFree(v->raw[s]);
    v->raw[s] = NULL;
  }
  if (v->ev_made)
    for (int s = 0; s < DL_SLOTS; s++) {
      cudaEventDestroy(v->up[s]);
      cudaEventDestroy(v->done[s]);
    }
  v->ev_made = false;
  if (v->dbad) cudaFree(v->dbad);
  v->dbad = NULL;
  if (v->cs) cudaStreamDestroy(v->cs);
  if (v->ks) cudaStreamDestroy(v->ks);
  v->cs = v->ks = NULL;
  if (vectors)
    for (int i = 0; i < 5; i++) {
      if (v->vec[i]) cudaFree(v->vec[i]);
      v->vec[i] = NULL;
    }
  (void)cudaGetLastError();
}

/* The buffers of the load on every device (its streams, events, raw buffers), freed
 * when the load ends either way; the vectors only when not taken. */
static void dl_release(sp_cuda_dload *l, bool vectors) {
  for (unsigned d = 0; d < l->ndev; d++) {
    int prev = -1;
    char e[160];
    if (dl_enter(l->dev[d].ordinal, &prev, e, sizeof e) == SEALPROV_OK) {
      dl_dev_free(&l->dev[d], vectors);
      dl_leave(l->dev[d].ordinal, prev);
    }
  }
  for (int s = 0; s < DL_SLOTS; s++) {
    if (l->host[s]) cudaFreeHost(l->host[s]);
    l->host[s] = NULL;
  }
  if (l->hbad) cudaFreeHost(l->hbad);
  l->hbad = NULL;
  (void)cudaGetLastError();
}

extern "C" void sp_cuda_dload_destroy(sp_cuda_dload *l) {
  if (!l) return;
  dl_release(l, true);
  free(l);
}

static int dl_dev_make(sp_cuda_dload *l, dl_dev *v, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaStreamCreateWithFlags(&v->cs, cudaStreamNonBlocking));
  SP_CUDA_CHECK(cudaStreamCreateWithFlags(&v->ks, cudaStreamNonBlocking));
  for (int s = 0; s < DL_SLOTS; s++) {
    SP_CUDA_CHECK(cudaEventCreateWithFlags(&v->up[s], cudaEventDisableTiming));
    SP_CUDA_CHECK(cudaEventCreateWithFlags(&v->done[s], cudaEventDisableTiming));
    if (s == DL_SLOTS - 1) v->ev_made = true;
  }
  for (int s = 0; s < DL_SLOTS; s++) SP_CUDA_CHECK(cudaMalloc(&v->raw[s], l->chunk));
  SP_CUDA_CHECK(cudaMalloc((void **)&v->dbad, DL_SLOTS * sizeof *v->dbad));
  return SEALPROV_OK;
}

extern "C" int sp_cuda_dload_begin(void *user, uint64_t bytes, unsigned log_domain, bool subgroup,
                                   bool *take, size_t *chunk, char *err, size_t errlen) {
  sp_cuda_dload *l = (sp_cuda_dload *)user;
  *take = false;
  /* the loader's word for this file: off when a validation record vouches for its bytes */
  l->subgroup = l->subgroup && subgroup;
  /* a small file: buffers of its size (whole 64 KiB), not 3 x 256 MiB page-locked; a
   * caller that lowered the sink's chunk_bytes (tests: small chunks make many of a small
   * file) gets buffers of that size */
  uint64_t fit = (bytes + 65535) & ~(uint64_t)65535;
  if (fit < l->chunk) l->chunk = (size_t)fit;
  if (*chunk && *chunk < l->chunk) l->chunk = *chunk;
  *chunk = l->chunk;
  l->declined[0] = '\0';
  l->t0 = sp_now_ms();
  l->wait_ms = 0;
  /* the copy, the load's own buffers and a partition's working memory must fit */
  uint64_t work = 3ull * ((uint64_t)32 << log_domain) + DL_WORK_RESERVE;
  uint64_t need = bytes + work + (uint64_t)DL_SLOTS * l->chunk;
  for (unsigned d = 0; d < l->ndev; d++) {
    dl_dev *v = &l->dev[d];
    int prev = -1;
    size_t free_b = 0, total_b = 0;
    int st = dl_enter(v->ordinal, &prev, err, errlen);
    if (st) return dl_where(st, v->ordinal, err, errlen);
    cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    dl_leave(v->ordinal, prev);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(l->declined, sizeof l->declined, "CUDA device %d: cudaMemGetInfo: %s", v->ordinal,
               cudaGetErrorString(e));
      return SEALPROV_OK;
    }
    uint64_t cap = v->memory_limit && v->memory_limit < free_b ? v->memory_limit : free_b;
    if (need > cap) {
      snprintf(l->declined, sizeof l->declined,
               "CUDA device %d has %.2f GB %s; the parameters need %.2f GB resident plus %.2f GB "
               "of working memory for 2^%u proofs and %.2f GB of load buffers",
               v->ordinal, (double)cap / 1e9,
               v->memory_limit && v->memory_limit < free_b ? "(memory_limit)" : "free",
               (double)bytes / 1e9, (double)work / 1e9, log_domain,
               (double)DL_SLOTS * (double)l->chunk / 1e9);
      return SEALPROV_OK;
    }
  }
  int st = SEALPROV_OK;
  for (unsigned d = 0; d < l->ndev && !st; d++) {
    int prev = -1;
    st = dl_enter(l->dev[d].ordinal, &prev, err, errlen);
    if (!st) {
      st = dl_dev_make(l, &l->dev[d], err, errlen);
      dl_leave(l->dev[d].ordinal, prev);
    }
    if (st) dl_where(st, l->dev[d].ordinal, err, errlen);
  }
  for (int s = 0; s < DL_SLOTS && !st; s++) {
    cudaError_t e = cudaHostAlloc(&l->host[s], l->chunk, cudaHostAllocPortable);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(err, errlen, "direct load: %zu bytes of page-locked memory: %s", l->chunk,
               cudaGetErrorString(e));
      st = sp_cuda_status(e);
    }
  }
  if (!st) {
    cudaError_t e = cudaHostAlloc((void **)&l->hbad, (size_t)l->ndev * DL_SLOTS * sizeof *l->hbad,
                                  cudaHostAllocPortable);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(err, errlen, "direct load: page-locked result words: %s", cudaGetErrorString(e));
      st = sp_cuda_status(e);
    }
  }
  if (st) {
    dl_release(l, true);
    return st;
  }
  l->begun = true;
  *take = true;
  return SEALPROV_OK;
}

extern "C" int sp_cuda_dload_vector(void *user, int vec, size_t n, char *err, size_t errlen) {
  sp_cuda_dload *l = (sp_cuda_dload *)user;
  if (!l->begun || vec < 0 || vec > 4) {
    snprintf(err, errlen, "direct load: vector %d before begin or out of range", vec);
    return SEALPROV_ERR_INTERNAL;
  }
  size_t bytes = n * (vec == 4 ? sizeof(g2_affine_t) : sizeof(g1_affine_t));
  l->vlen[vec] = n;
  if (!bytes) return SEALPROV_OK;
  for (unsigned d = 0; d < l->ndev; d++) {
    int prev = -1;
    int st = dl_enter(l->dev[d].ordinal, &prev, err, errlen);
    if (st) return dl_where(st, l->dev[d].ordinal, err, errlen);
    cudaError_t e = cudaMalloc(&l->dev[d].vec[vec], bytes);
    dl_leave(l->dev[d].ordinal, prev);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      l->dev[d].vec[vec] = NULL;
      snprintf(err, errlen, "direct load: vector %d, %zu bytes on CUDA device %d: %s", vec, bytes,
               l->dev[d].ordinal, cudaGetErrorString(e));
      return sp_cuda_status(e);
    }
  }
  return SEALPROV_OK;
}

/* Waits for slot s on every device and reads its result: PARAMS with *bad filled when a
 * point of its chunk failed. */
static int dl_retire(sp_cuda_dload *l, unsigned s, sp_srs_bad *bad, char *err, size_t errlen) {
  dl_slot *sl = &l->slot[s];
  if (!sl->busy) return SEALPROV_OK;
  unsigned long long first = DL_NONE;
  double tw = sp_now_ms();
  for (unsigned d = 0; d < l->ndev; d++) {
    int prev = -1;
    int st = dl_enter(l->dev[d].ordinal, &prev, err, errlen);
    if (st) return dl_where(st, l->dev[d].ordinal, err, errlen);
    cudaError_t e = cudaEventSynchronize(l->dev[d].done[s]);
    dl_leave(l->dev[d].ordinal, prev);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(err, errlen,
               "direct load: chunk of vector %d at byte offset %llu on CUDA device %d: %s", sl->vec,
               (unsigned long long)sl->off0, l->dev[d].ordinal, cudaGetErrorString(e));
      return sp_cuda_status(e);
    }
    unsigned long long b = l->hbad[d * DL_SLOTS + s];
    if (b < first) first = b;
  }
  sl->busy = false;
  l->wait_ms += sp_now_ms() - tw;
  if (first == DL_NONE) return SEALPROV_OK;
  if (first >= sl->n) {
    snprintf(err, errlen, "direct load: a device reported index %llu in a chunk of %zu points",
             first, sl->n);
    return SEALPROV_ERR_INTERNAL;
  }
  size_t each = sl->vec == 4 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  bad->any = true;
  bad->vec = sl->vec;
  bad->index = sl->index0 + (size_t)first;
  bad->off = sl->off0 + first * each;
  memcpy(bad->enc, (const uint8_t *)l->host[s] + first * each, each);
  return SEALPROV_ERR_PARAMS;
}

extern "C" int sp_cuda_dload_buffer(void *user, size_t bytes, void **buf, sp_srs_bad *bad,
                                    char *err, size_t errlen) {
  sp_cuda_dload *l = (sp_cuda_dload *)user;
  *buf = NULL;
  if (!l->begun || bytes > l->chunk) {
    snprintf(err, errlen, "direct load: a buffer of %zu bytes (at most %zu) %s", bytes, l->chunk,
             l->begun ? "" : "before begin");
    return SEALPROV_ERR_INTERNAL;
  }
  int st = dl_retire(l, l->next, bad, err, errlen);
  if (st) return st;
  *buf = l->host[l->next];
  return SEALPROV_OK;
}

extern "C" int sp_cuda_dload_submit(void *user, int vec, size_t index0, size_t n, uint64_t off0,
                                    sp_srs_bad *bad, char *err, size_t errlen) {
  (void)bad;
  sp_cuda_dload *l = (sp_cuda_dload *)user;
  unsigned s = l->next;
  bool g2 = vec == 4;
  size_t each = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  if (!l->begun || vec < 0 || vec > 4 || l->slot[s].busy || index0 + n > l->vlen[vec] ||
      n * each > l->chunk) {
    snprintf(err, errlen, "direct load: chunk of vector %d (points %zu + %zu of %zu) out of order",
             vec, index0, n, vec >= 0 && vec <= 4 ? l->vlen[vec] : (size_t)0);
    return SEALPROV_ERR_INTERNAL;
  }
  if (n == 0) return SEALPROV_OK;
  unsigned checker = (unsigned)(l->chunks % l->ndev);
  for (unsigned d = 0; d < l->ndev; d++) {
    dl_dev *v = &l->dev[d];
    int prev = -1;
    int st = dl_enter(v->ordinal, &prev, err, errlen);
    if (st) return dl_where(st, v->ordinal, err, errlen);
    uint8_t *dst = (uint8_t *)v->vec[vec] + index0 * each;
    unsigned long long *db = v->dbad + s;
    cudaError_t e = cudaMemcpyAsync(v->raw[s], l->host[s], n * each, cudaMemcpyHostToDevice, v->cs);
    if (e == cudaSuccess) e = cudaEventRecord(v->up[s], v->cs);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(v->ks, v->up[s], 0);
    if (e == cudaSuccess) e = cudaMemsetAsync(db, 0xff, sizeof *db, v->ks);
    if (e == cudaSuccess) {
      if (g2)
        k_decode_g2<<<sp_blocks(n, 64), 64, 0, v->ks>>>((const uint4 *)v->raw[s], n,
                                                        (spc_g2_affine *)dst, l->k.b4, db);
      else
        k_decode_g1<<<sp_blocks(n, 128), 128, 0, v->ks>>>((const uint4 *)v->raw[s], n,
                                                          (spc_g1_affine *)dst, l->k.b4, db);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess && l->subgroup && d == checker) {
      sg_launch(g2, dst, n, 0, l->k, db, v->ks);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(l->hbad + d * DL_SLOTS + s, db, sizeof *db, cudaMemcpyDeviceToHost,
                          v->ks);
    if (e == cudaSuccess) e = cudaEventRecord(v->done[s], v->ks);
    dl_leave(v->ordinal, prev);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(err, errlen,
               "direct load: chunk of vector %d at byte offset %llu on CUDA device %d: %s", vec,
               (unsigned long long)off0, v->ordinal, cudaGetErrorString(e));
      /* the slot may be in flight on the devices before this one: wait for it */
      l->slot[s] = (dl_slot){true, vec, index0, n, off0};
      l->next = (s + 1) % DL_SLOTS;
      return sp_cuda_status(e);
    }
  }
  l->slot[s] = (dl_slot){true, vec, index0, n, off0};
  l->next = (s + 1) % DL_SLOTS;
  l->chunks++;
  return SEALPROV_OK;
}

extern "C" int sp_cuda_dload_finish(void *user, sp_srs_bad *bad, char *err, size_t errlen) {
  sp_cuda_dload *l = (sp_cuda_dload *)user;
  if (!l->begun) {
    snprintf(err, errlen, "direct load: finish before begin");
    return SEALPROV_ERR_INTERNAL;
  }
  /* oldest first: the slot to be used next holds the oldest chunk */
  for (unsigned i = 0; i < DL_SLOTS; i++) {
    int st = dl_retire(l, (l->next + i) % DL_SLOTS, bad, err, errlen);
    if (st) return st;
  }
  l->ms = sp_now_ms() - l->t0;
  return SEALPROV_OK;
}

extern "C" sp_srs_devcopy *sp_cuda_dload_take(sp_cuda_dload *l) {
  if (!l || !l->begun) return NULL;
  sp_srs_devcopy *c = (sp_srs_devcopy *)calloc(1, sizeof *c);
  if (!c) return NULL;
  c->ndev = l->ndev;
  for (int i = 0; i < 5; i++) {
    c->bytes[i] = l->vlen[i] * (i == 4 ? sizeof(g2_affine_t) : sizeof(g1_affine_t));
    c->total_bytes += c->bytes[i];
  }
  for (unsigned d = 0; d < l->ndev; d++) {
    c->ordinal[d] = l->dev[d].ordinal;
    for (int i = 0; i < 5; i++) {
      c->vec[d][i] = l->dev[d].vec[i];
      l->dev[d].vec[i] = NULL;
    }
  }
  c->upload_ms = l->ms;
  c->wait_ms = l->wait_ms;
  /* the load's own buffers go now (the vectors are the caller's) */
  dl_release(l, false);
  l->begun = false;
  return c;
}

extern "C" void sp_cuda_devcopy_free(sp_srs_devcopy *c) {
  if (!c) return;
  for (unsigned d = 0; d < c->ndev; d++)
    for (int i = 0; i < 5; i++)
      if (c->vec[d][i]) sp_gpu_free_persistent(c->ordinal[d], c->vec[d][i]);
  free(c);
}
