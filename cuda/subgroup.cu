/* subgroup.cu -- batched G1 / G2 subgroup checks of decoded parameter points on the
 * GPU (sp_cuda_subgroup_check, sp_gpu.h), for the parameter loader.
 *
 * The tests are the CPU's (plugin/bls12_381/g1.c, g2.c; Scott, ePrint 2021/1130):
 *   G1: P on y^2 = x^3 + 4 and phi(P) + [x^2] P == O, phi(x, y) = (beta x, y);
 *   G2: P on y^2 = x^3 + 4(u + 1) and psi(P) + [|x|] P == O;
 * with |x| = 0xd201000000010000 (six bits set: 63 doublings and 5 additions per
 * multiplication). Infinity (x = y = 0 in the host layout) passes, as on the CPU.
 * The XYZZ additions of ec.cuh are complete, so P == -Q ends in infinity exactly.
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

#define SP_SG_ABS_X 0xd201000000010000ull

/* Montgomery constants, the CPU's (g1.c: G1_B, G1_BETA; g2.c: PSI_X_C1, PSI_Y). */
static const uint64_t SG_B4[6] = {0xaa270000000cfff3ull, 0x53cc0032fc34000aull,
                                  0x478fe97a6b0a807full, 0xb1d37ebee6ba24d7ull,
                                  0x8ec9733bbf78ab2full, 0x09d645513d83de7eull};
static const uint64_t SG_BETA[6] = {0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull,
                                    0x16a8ca3ac61577f7ull, 0xc26a2ff874fd029bull,
                                    0x3636b76660701c6eull, 0x051ba4ab241b6160ull};
static const uint64_t SG_PSI_X_C1[6] = {0x890dc9e4867545c3ull, 0x2af322533285a5d5ull,
                                        0x50880866309b7e2cull, 0xa20d1b8c7e881024ull,
                                        0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull};
static const uint64_t SG_PSI_Y[12] = {
    0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull, 0x92ad2afd19103e18ull,
    0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull, 0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull,
    0x2f088dd86b4ebef1ull, 0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull};

struct sg_consts {
  spc_fp b4, beta, psi_x_c1;
  spc_fp2 psi_y;
};

/* dbl-2008-s-1 (ec.cuh's dbl) inlined, operands by value: variant 1 of the kernels.
 * ec.cuh's dbl is a call taking a reference (variant 0, the default), whose operands go
 * through the stack; 63 of the 68 operations of a multiplication by |x| are doublings.
 * Measured on the H200 (cuda/NOTES.md v7), variant 1 is not faster: G1 3.1M points
 * 155.2 against 148.8 ms, G2 1.05M 87.3 against 86.9 ms (and G2 spills). */
template <class F>
__device__ __forceinline__ spc_xyzz<F> sg_dbl_inl(spc_xyzz<F> p) {
  if (p.is_inf()) return p;
  F u = F::dbl(p.y);
  F v = F::sqr(u);
  F w = F::mul(u, v);
  F s = F::mul(p.x, v);
  F x2 = F::sqr(p.x);
  F m = F::add(F::dbl(x2), x2);
  spc_xyzz<F> r;
  r.x = F::sub(F::sqr(m), F::dbl(s));
  r.y = F::mul_sub_mul(m, F::sub(s, r.x), w, p.y);
  r.zz = F::mul(v, p.zz);
  r.zzz = F::mul(w, p.zzz);
  return r;
}
template <class F, int V>
__device__ __forceinline__ spc_xyzz<F> sg_dbl(const spc_xyzz<F> &p) {
  return V ? sg_dbl_inl<F>(p) : spc_xyzz<F>::dbl(p);
}

/* [|x|] of an XYZZ point (not an affine one: the second multiplication of G1). */
template <class F, int V>
__device__ __forceinline__ spc_xyzz<F> sg_mul_absx(const spc_xyzz<F> &p) {
  spc_xyzz<F> acc = p; /* bit 63 */
#pragma unroll 1
  for (int bit = 62; bit >= 0; bit--) {
    acc = sg_dbl<F, V>(acc);
    if ((SP_SG_ABS_X >> bit) & 1u) acc = spc_xyzz<F>::add(acc, p);
  }
  return acc;
}
template <class F, int V>
__device__ __forceinline__ spc_xyzz<F> sg_mul_absx_affine(const spc_affine<F> &p) {
  spc_xyzz<F> acc = spc_xyzz<F>::from_affine(p);
#pragma unroll 1
  for (int bit = 62; bit >= 0; bit--) {
    acc = sg_dbl<F, V>(acc);
    if ((SP_SG_ABS_X >> bit) & 1u) acc = spc_xyzz<F>::add_affine(acc, p);
  }
  return acc;
}

template <int V>
__global__ void k_subgroup_g1(const spc_g1_affine *pts, size_t n, size_t base, sg_consts k,
                              unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_g1_affine p = pts[i];
  if (p.is_inf()) return;
  spc_fp rhs = spc_fp::add(spc_fp::mul(spc_fp::sqr(p.x), p.x), k.b4);
  bool ok = spc_fp::sqr(p.y).eq(rhs);
  if (ok) {
    spc_g1_xyzz t = sg_mul_absx<spc_fp, V>(sg_mul_absx_affine<spc_fp, V>(p)); /* [x^2] P */
    spc_g1_affine phi;
    phi.x = spc_fp::mul(p.x, k.beta);
    phi.y = p.y;
    ok = spc_g1_xyzz::add_affine(t, phi).is_inf();
  }
  if (!ok) atomicMin(bad, (unsigned long long)(base + i));
}

template <int V>
__global__ void k_subgroup_g2(const spc_g2_affine *pts, size_t n, size_t base, sg_consts k,
                              unsigned long long *bad) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  spc_g2_affine p = pts[i];
  if (p.is_inf()) return;
  spc_fp2 b;
  b.c0 = k.b4;
  b.c1 = k.b4;
  spc_fp2 rhs = spc_fp2::add(spc_fp2::mul(spc_fp2::sqr(p.x), p.x), b);
  bool ok = spc_fp2::sqr(p.y).eq(rhs);
  if (ok) {
    spc_g2_xyzz t = sg_mul_absx_affine<spc_fp2, V>(p);
    /* psi: conj(x) * (0 + c1 u) = (x.c1 c1) + (x.c0 c1) u; conj(y) * PSI_Y */
    spc_g2_affine psi;
    psi.x.c0 = spc_fp::mul(p.x.c1, k.psi_x_c1);
    psi.x.c1 = spc_fp::mul(p.x.c0, k.psi_x_c1);
    spc_fp2 cy;
    cy.c0 = p.y.c0;
    cy.c1 = spc_fp::neg(p.y.c1);
    psi.y = spc_fp2::mul(cy, k.psi_y);
    ok = spc_g2_xyzz::add_affine(t, psi).is_inf();
  }
  if (!ok) atomicMin(bad, (unsigned long long)(base + i));
}

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
  /* SP_GPU_SG_VARIANT (read at creation): 0 = ec.cuh's doubling call (default), 1 =
   * inlined. SP_GPU_PROFILE=1: a line per call on stderr (host copy and total time). */
  int variant;
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
  const char *v = getenv("SP_GPU_SG_VARIANT");
  s->variant = v && *v == '1' ? 1 : 0;
  const char *pr = getenv("SP_GPU_PROFILE");
  s->profile = pr && *pr == '1';
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

static int sg_run(sg_state *s, bool g2, const uint8_t *pts, size_t n, size_t *first_bad,
                  char *err, size_t errlen) {
  const size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  const size_t per = SG_CHUNK_BYTES / psz;
  const size_t nchunks = (n + per - 1) / per;
  sg_consts k;
  memcpy(&k.b4, SG_B4, sizeof k.b4);
  memcpy(&k.beta, SG_BETA, sizeof k.beta);
  memcpy(&k.psi_x_c1, SG_PSI_X_C1, sizeof k.psi_x_c1);
  memcpy(&k.psi_y, SG_PSI_Y, sizeof k.psi_y);
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
    SP_CUDA_CHECK(cudaMemcpyAsync(s->dev[sl], s->host[sl], cnt * psz, cudaMemcpyHostToDevice, s->cs));
    SP_CUDA_CHECK(cudaEventRecord(s->up[sl], s->cs));
    SP_CUDA_CHECK(cudaStreamWaitEvent(s->ks, s->up[sl], 0));
    const spc_g2_affine *p2 = (const spc_g2_affine *)s->dev[sl];
    const spc_g1_affine *p1 = (const spc_g1_affine *)s->dev[sl];
    if (g2 && s->variant)
      k_subgroup_g2<1><<<sp_blocks(cnt, 64), 64, 0, s->ks>>>(p2, cnt, first, k, s->dbad);
    else if (g2)
      k_subgroup_g2<0><<<sp_blocks(cnt, 64), 64, 0, s->ks>>>(p2, cnt, first, k, s->dbad);
    else if (s->variant)
      k_subgroup_g1<1><<<sp_blocks(cnt, 128), 128, 0, s->ks>>>(p1, cnt, first, k, s->dbad);
    else
      k_subgroup_g1<0><<<sp_blocks(cnt, 128), 128, 0, s->ks>>>(p1, cnt, first, k, s->dbad);
    SP_CUDA_LAUNCH_CHECK();
    SP_CUDA_CHECK(cudaEventRecord(s->kd[sl], s->ks));
  }
  SP_CUDA_CHECK(cudaMemcpyAsync(&hbad, s->dbad, sizeof hbad, cudaMemcpyDeviceToHost, s->ks));
  SP_CUDA_CHECK(cudaStreamSynchronize(s->ks));
  *first_bad = hbad == ~0ull ? n : (size_t)hbad;
  if (s->profile) {
    double ms = sp_now_ms() - t0;
    fprintf(stderr, "subgroup %s variant %d: %zu points, %.2f ms (host copies %.2f ms), %.1f Mpoints/s\n",
            g2 ? "G2" : "G1", s->variant, n, ms, copy_ms, (double)n / ms / 1e3);
  }
  return SEALPROV_OK;
}

extern "C" int sp_cuda_checker_run(void *user, bool g2, const void *pts, size_t n,
                                   size_t *first_bad, char *err, size_t errlen) {
  sg_state *s = (sg_state *)user;
  if (!s || !first_bad || (n && !pts)) {
    snprintf(err, errlen, "subgroup check: NULL %s", !s ? "checker" : first_bad ? "points" : "first_bad");
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

extern "C" int sp_cuda_subgroup_check(int ordinal, bool g2, const void *pts, size_t n,
                                      size_t *first_bad, char *err, size_t errlen) {
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
