/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* subgroup.cu -- batched G1 / G2 subgroup checks of decoded parameter points on the
 * GPU (sp_cuda_subgroup_check, sp_gpu.h), for the parameter loader.
 *
 * The tests are the CPU's (plugin/bls12_381/g1.c, g2.c; Scott, ePrint 2021/1130):
 *   G1: P on y^2 = x^3 + 4 and phi(P) + [x^2] P == O, phi(x, y) = (beta x, y);
 *   G2: P on y^2 = x^3 + 4(u + 1) and psi(P) + [|x|] P == O;
 * with |x| = 0xd201000000010000 (six bits set: 63 doublings and 5 additions per
 * multiplication). Infinity (x = y = 0 in the host layout) passes, as on the CPU.
 * Both tests are exact (plugin/bls12_381/g1.c, g2.c say why) and no cheaper exact test
 * is known for BLS12-381 (cuda/DESIGN.md). The kernels are in subgroup.cuh (shared
 * with points.cu, the direct load): Jacobian chains with complete additions and a
 * projective final comparison; G1's doubling with six reductions.
 *
 * Transfers (a checker's buffers, made once): chunks of the caller's (pageable) array are copied by host threads into
 * one of three pinned buffers, sent on a copy stream and checked on a compute stream,
 * so the host copy of chunk i+1, the upload of chunk i and the check of chunk i-1 run
 * at the same time. The lowest failing index is kept by atomicMin on the device.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"
#include "subgroup.h"

#include "subgroup.cuh"

/* ---- the host side ------------------------------------------------------------------ */

#define SG_SLOTS 3
#define SG_CHUNK_BYTES ((size_t)96 << 20) /* 2^20 G1 or 2^19 G2 points */
#define SG_COPY_THREADS 8

typedef struct sg_copy {
  uint8_t *dst;
  const uint8_t *src;
  size_t bytes;
} sg_copy;

static void *sg_copy_run(void *v) {
  sg_copy *c = (sg_copy *)v;
  memcpy(c->dst, c->src, c->bytes);
  return NULL;
}

/* memcpy split over up to SG_COPY_THREADS threads (one host thread copies pageable
 * memory at about a third of what the PCIe link takes). */
static void sg_parallel_copy(uint8_t *dst, const uint8_t *src, size_t bytes) {
  pthread_t th[SG_COPY_THREADS];
  sg_copy c[SG_COPY_THREADS];
  size_t part = (bytes / SG_COPY_THREADS + 4095) & ~(size_t)4095;
  int started = 0;
  for (int t = 0; t < SG_COPY_THREADS; t++) {
    size_t off = (size_t)t * part;
    if (off >= bytes) break;
    c[t].dst = dst + off;
    c[t].src = src + off;
    c[t].bytes = bytes - off < part ? bytes - off : part;
    if (t > 0 && pthread_create(&th[t], NULL, sg_copy_run, &c[t]) == 0) {
      started |= 1 << t;
    } else if (t > 0) {
      sg_copy_run(&c[t]); /* no thread: copy here */
    }
  }
  sg_copy_run(&c[0]);
  for (int t = 1; t < SG_COPY_THREADS; t++)
    if (started & (1 << t)) pthread_join(th[t], NULL);
}

/* A checker: streams, events and the chunk buffers of one device, made once and reused
 * by every call (the loader calls once per chunk it reads). */
struct sp_cuda_checker {
  int ordinal;
  pthread_mutex_t mu; /* one call at a time */
  cudaStream_t cs, ks;
  cudaEvent_t up[SG_SLOTS], kd[SG_SLOTS];
  bool up_made[SG_SLOTS], kd_made[SG_SLOTS];
  void *host[SG_SLOTS], *dev[SG_SLOTS];
  unsigned long long *dbad;
  /* a profile build only (gpu_internal.cuh, SP_GPU_PROFILE): a line per call on stderr
   * (host copy and total time); always false in sealprov.so */
  bool profile;
};
typedef struct sp_cuda_checker sg_state;

/* Runs with the checker's device current. */
static void sg_free(sg_state *s) {
  if (s->cs) cudaStreamSynchronize(s->cs);
  if (s->ks) cudaStreamSynchronize(s->ks);
  for (int i = 0; i < SG_SLOTS; i++) {
    if (s->host[i]) cudaFreeHost(s->host[i]);
    if (s->dev[i]) cudaFree(s->dev[i]);
    if (s->up_made[i]) cudaEventDestroy(s->up[i]);
    if (s->kd_made[i]) cudaEventDestroy(s->kd[i]);
  }
  if (s->dbad) cudaFree(s->dbad);
  if (s->cs) cudaStreamDestroy(s->cs);
  if (s->ks) cudaStreamDestroy(s->ks);
  (void)cudaGetLastError();
}

static int sg_make(sg_state *s, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaStreamCreateWithFlags(&s->cs, cudaStreamNonBlocking));
  SP_CUDA_CHECK(cudaStreamCreateWithFlags(&s->ks, cudaStreamNonBlocking));
  for (int i = 0; i < SG_SLOTS; i++) {
    SP_CUDA_CHECK(cudaEventCreateWithFlags(&s->up[i], cudaEventDisableTiming));
    s->up_made[i] = true;
    SP_CUDA_CHECK(cudaEventCreateWithFlags(&s->kd[i], cudaEventDisableTiming));
    s->kd_made[i] = true;
    SP_CUDA_CHECK(cudaHostAlloc(&s->host[i], SG_CHUNK_BYTES, cudaHostAllocDefault));
    SP_CUDA_CHECK(cudaMalloc(&s->dev[i], SG_CHUNK_BYTES));
  }
  SP_CUDA_CHECK(cudaMalloc((void **)&s->dbad, sizeof *s->dbad));
  return SEALPROV_OK;
}

/* Switches the calling thread to `ordinal`; *prev gets the device to switch back to. */
static int sg_enter(int ordinal, int *prev, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaGetDevice(prev));
  if (*prev != ordinal) SP_CUDA_CHECK(cudaSetDevice(ordinal));
  return SEALPROV_OK;
}
static void sg_leave(int ordinal, int prev) {
  if (prev != ordinal && prev >= 0) (void)cudaSetDevice(prev);
}

extern "C" int sp_cuda_checker_create(int ordinal, sp_cuda_checker **out, char *err,
                                      size_t errlen) {
  *out = NULL;
  sg_state *s = (sg_state *)calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  s->ordinal = ordinal;
#ifdef SP_GPU_PROFILE
  s->profile = sp_gpu_profile_env();
#endif
  pthread_mutex_init(&s->mu, NULL);
  int prev = -1;
  int st = sg_enter(ordinal, &prev, err, errlen);
  if (!st) {
    st = sg_make(s, err, errlen);
    if (st) sg_free(s);
    sg_leave(ordinal, prev);
  }
  if (st) {
    pthread_mutex_destroy(&s->mu);
    free(s);
    size_t l = strlen(err);
    if (l < errlen) snprintf(err + l, errlen - l, " (subgroup checker on device %d)", ordinal);
    return st;
  }
  *out = s;
  return SEALPROV_OK;
}

extern "C" void sp_cuda_checker_destroy(sp_cuda_checker *s) {
  if (!s) return;
  int prev = -1;
  char e[128];
  if (sg_enter(s->ordinal, &prev, e, sizeof e) == SEALPROV_OK) {
    sg_free(s);
    sg_leave(s->ordinal, prev);
  }
  pthread_mutex_destroy(&s->mu);
  free(s);
}

static int sg_run(sg_state *s, bool g2, const uint8_t *pts, size_t n, size_t *first_bad, char *err,
                  size_t errlen) {
  const size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  const size_t per = SG_CHUNK_BYTES / psz;
  const size_t nchunks = (n + per - 1) / per;
  sg_consts k = sg_make_consts();
  double t0 = s->profile ? sp_now_ms() : 0, copy_ms = 0;
  unsigned long long hbad = ~0ull;
  SP_CUDA_CHECK(cudaMemcpyAsync(s->dbad, &hbad, sizeof hbad, cudaMemcpyHostToDevice, s->ks));
  SP_CUDA_CHECK(cudaStreamSynchronize(s->ks));
  for (size_t c = 0; c < nchunks; c++) {
    int sl = (int)(c % SG_SLOTS);
    size_t first = c * per, cnt = n - first < per ? n - first : per;
    /* the pinned buffer is free once its previous upload is done */
    if (c >= SG_SLOTS) SP_CUDA_CHECK(cudaEventSynchronize(s->up[sl]));
    double tc = s->profile ? sp_now_ms() : 0;
    sg_parallel_copy((uint8_t *)s->host[sl], pts + first * psz, cnt * psz);
    if (s->profile) copy_ms += sp_now_ms() - tc;
    /* the device buffer is free once the check that read it is done */
    if (c >= SG_SLOTS) SP_CUDA_CHECK(cudaStreamWaitEvent(s->cs, s->kd[sl], 0));
    SP_CUDA_CHECK(
        cudaMemcpyAsync(s->dev[sl], s->host[sl], cnt * psz, cudaMemcpyHostToDevice, s->cs));
    SP_CUDA_CHECK(cudaEventRecord(s->up[sl], s->cs));
    SP_CUDA_CHECK(cudaStreamWaitEvent(s->ks, s->up[sl], 0));
    sg_launch(g2, s->dev[sl], cnt, first, k, s->dbad, s->ks);
    SP_CUDA_LAUNCH_CHECK();
    SP_CUDA_CHECK(cudaEventRecord(s->kd[sl], s->ks));
  }
  SP_CUDA_CHECK(cudaMemcpyAsync(&hbad, s->dbad, sizeof hbad, cudaMemcpyDeviceToHost, s->ks));
  SP_CUDA_CHECK(cudaStreamSynchronize(s->ks));
  *first_bad = hbad == ~0ull ? n : (size_t)hbad;
#ifdef SP_GPU_PROFILE
  if (s->profile) {
    double ms = sp_now_ms() - t0;
    fprintf(stderr, "subgroup %s: %zu points, %.2f ms (host copies %.2f ms), %.1f Mpoints/s\n",
            g2 ? "G2" : "G1", n, ms, copy_ms, (double)n / ms / 1e3);
  }
#endif
  return SEALPROV_OK;
}

extern "C" int sp_cuda_checker_run(void *user, bool g2, const void *pts, size_t n,
                                   size_t *first_bad, char *err, size_t errlen) {
  sg_state *s = (sg_state *)user;
  if (!s || !first_bad || (n && !pts)) {
    snprintf(err, errlen, "subgroup check: NULL %s",
             !s          ? "checker"
             : first_bad ? "points"
                         : "first_bad");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  *first_bad = n;
  if (n == 0) return SEALPROV_OK;
  pthread_mutex_lock(&s->mu);
  int prev = -1;
  int st = sg_enter(s->ordinal, &prev, err, errlen);
  if (!st) {
    st = sg_run(s, g2, (const uint8_t *)pts, n, first_bad, err, errlen);
    if (st) { /* leave nothing in flight that reads the caller's memory or our buffers */
      (void)cudaStreamSynchronize(s->cs);
      (void)cudaStreamSynchronize(s->ks);
      (void)cudaGetLastError();
    }
    sg_leave(s->ordinal, prev);
  }
  pthread_mutex_unlock(&s->mu);
  if (st) {
    size_t l = strlen(err);
    if (l < errlen)
      snprintf(err + l, errlen - l, " (subgroup check of %zu %s points on device %d)", n,
               g2 ? "G2" : "G1", s->ordinal);
  }
  return st;
}
