/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* gpu.cu -- the per-device context (stream, memory pool, accounting), transfers and
 * scalar conversions. (The field/curve self-test kernels and the device-made benchmark
 * data are the developer kit's: kit/gpu/selftest.cu.) */
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"

/* Device memory the pool keeps cached after frees instead of giving it back to the
 * driver at the next synchronisation: all of it. A 2^27 partition allocates and frees
 * tens of GB of scratch (a, b and c alone are 12.9 GB); with 8 GiB kept, the rest was
 * unmapped after every partition and mapped again in the next (2^27 partition 2.00 ->
 * 1.87 s when kept, on the H200). What is cached stays usable by this context's
 * own allocations; it is handed back where something else needs it: sp_gpu_alloc trims
 * and retries once when the pool cannot grow (on the H200, driver 580, cudaMallocAsync
 * released the cache by itself for such an allocation: test_cuda_kernels' pool test
 * says which happened), and the engine trims before it sizes up a new resident
 * parameter set (cudaMalloc, outside the pool) with sp_gpu_mem_info. */
#define SP_POOL_RELEASE_THRESHOLD UINT64_MAX

extern "C" int sp_gpu_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

extern "C" int sp_gpu_bind(int ordinal, int *confirmed, char *err, size_t errlen) {
  *confirmed = -1;
  SP_CUDA_CHECK(cudaSetDevice(ordinal));
  /* cudaSetDevice is lazy about creating the context; cudaFree(0) makes it now so
   * that a broken device fails here, at bind, rather than in the first task. */
  SP_CUDA_CHECK(cudaFree(0));
  int cur = -1;
  SP_CUDA_CHECK(cudaGetDevice(&cur));
  *confirmed = cur;
  if (cur != ordinal) {
    snprintf(err, errlen, "cudaSetDevice(%d) did not stick: cudaGetDevice says %d", ordinal, cur);
    return SEALPROV_ERR_DEVICE;
  }
  return SEALPROV_OK;
}

/* Declared here, defined with the conversions below. */
__global__ void k_fr_from_mont(spc_fr *a, size_t n);

extern "C" int sp_gpu_code_check(int *binary_version, int *ptx_version, char *err, size_t errlen) {
  *binary_version = *ptx_version = 0;
  cudaFuncAttributes fa;
  memset(&fa, 0, sizeof fa);
  cudaError_t e = cudaFuncGetAttributes(&fa, (const void *)k_fr_from_mont);
  if (e == cudaSuccess) {
    *binary_version = fa.binaryVersion;
    *ptx_version = fa.ptxVersion;
    return SEALPROV_OK;
  }
  (void)cudaGetLastError();
  snprintf(err, errlen, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
  switch (e) {
    case cudaErrorNoKernelImageForDevice: /* no binary, no usable PTX */
    case cudaErrorInvalidDeviceFunction:  /* what older runtimes say for the same */
    case cudaErrorUnsupportedPtxVersion:  /* PTX newer than the driver's compiler */
    case cudaErrorInvalidPtx:
    case cudaErrorJitCompilerNotFound: return SEALPROV_ERR_UNSUPPORTED;
    default: return SEALPROV_ERR_DEVICE;
  }
}

extern "C" int sp_gpu_create(int ordinal, uint64_t memory_limit, sp_gpu **out, char *err,
                             size_t errlen) {
  *out = NULL;
  int cur = -1;
  SP_CUDA_CHECK(cudaGetDevice(&cur));
  if (cur != ordinal) {
    snprintf(err, errlen, "sp_gpu_create: thread's current device is %d, expected %d", cur,
             ordinal);
    return SEALPROV_ERR_DEVICE;
  }
  sp_gpu *g = (sp_gpu *)calloc(1, sizeof *g);
  if (!g) {
    snprintf(err, errlen, "sp_gpu_create: out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  g->ordinal = ordinal;
  g->memory_limit = memory_limit;
#ifdef SP_GPU_PROFILE
  g->profile = sp_gpu_profile_env();
#endif
  int status = SEALPROV_OK;
  uint64_t thr = SP_POOL_RELEASE_THRESHOLD;
  SP_CUDA_CHECK_GOTO(cudaDeviceGetAttribute(&g->sm_count, cudaDevAttrMultiProcessorCount, ordinal),
                     status, fail);
  SP_CUDA_CHECK_GOTO(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), status, fail);
  SP_CUDA_CHECK_GOTO(cudaStreamCreateWithFlags(&g->copy_stream, cudaStreamNonBlocking), status,
                     fail);
  SP_CUDA_CHECK_GOTO(cudaEventCreateWithFlags(&g->join_ev, cudaEventDisableTiming), status, fail);
  {
    /* An own pool rather than the device's default one: its release threshold and
     * trimming then concern this context only, not the host process's other CUDA use. */
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = ordinal;
    SP_CUDA_CHECK_GOTO(cudaMemPoolCreate(&g->pool, &props), status, fail);
  }
  SP_CUDA_CHECK_GOTO(cudaMemPoolSetAttribute(g->pool, cudaMemPoolAttrReleaseThreshold, &thr),
                     status, fail);
  *out = g;
  return SEALPROV_OK;
fail:
  if (g->pool) cudaMemPoolDestroy(g->pool);
  if (g->join_ev) cudaEventDestroy(g->join_ev);
  if (g->copy_stream) cudaStreamDestroy(g->copy_stream);
  if (g->stream) cudaStreamDestroy(g->stream);
  (void)cudaGetLastError();
  free(g);
  return status;
}

static void sp_gpu_free_coset(sp_gpu *g) {
  spc_fr **t[3] = {&g->g_hi, &g->g_lo, &g->ginv_lo};
  for (int i = 0; i < 3; i++)
    if (*t[i]) {
      sp_gpu_free(g, *t[i], (size_t)(1u << SP_COSET_SPLIT) * sizeof(spc_fr));
      *t[i] = NULL;
    }
}

extern "C" void sp_gpu_destroy(sp_gpu *g) {
  if (!g) return;
  sp_gpu_ntt_tables_free(g);
  sp_gpu_free_coset(g);
  cudaStreamSynchronize(g->copy_stream);
  cudaStreamSynchronize(g->stream);
  cudaEventDestroy(g->join_ev);
  cudaStreamDestroy(g->copy_stream);
  cudaStreamDestroy(g->stream);
  /* Everything allocated from the pool was freed above (NTT tables, coset tables) or
   * by its user; destroying the pool gives its memory back to the driver. */
  cudaMemPoolDestroy(g->pool);
  (void)cudaGetLastError();
  free(g);
}

extern "C" uint64_t sp_gpu_memory_in_use(const sp_gpu *g) { return g ? g->in_use : 0; }
extern "C" int sp_gpu_ordinal(const sp_gpu *g) { return g ? g->ordinal : -1; }

extern "C" int sp_gpu_alloc(sp_gpu *g, void **d, size_t bytes, char *err, size_t errlen) {
  *d = NULL;
  if (bytes == 0) bytes = 1;
#ifdef SP_FAULT_INJECTION
  if (g->inject_oom) {
    g->inject_oom--;
    snprintf(err, errlen, "device %d: allocating %zu bytes: injected out-of-memory (testing)",
             g->ordinal, bytes);
    return SEALPROV_ERR_DEVICE_MEMORY;
  }
#endif
  if (g->memory_limit && g->held + g->in_use + bytes > g->memory_limit) {
    snprintf(err, errlen,
             "device %d: allocating %zu bytes would pass memory_limit %llu (in use %llu, of "
             "which %llu resident parameters and staging buffers)",
             g->ordinal, bytes, (unsigned long long)g->memory_limit,
             (unsigned long long)(g->held + g->in_use), (unsigned long long)g->held);
    return SEALPROV_ERR_DEVICE_MEMORY;
  }
  cudaError_t e = cudaMallocAsync(d, bytes, g->pool, g->stream);
  if (e == cudaErrorMemoryAllocation) {
    /* the pool keeps what was freed (SP_POOL_RELEASE_THRESHOLD): when that cache is
     * the wrong shape for this request, give it back to the driver and try once more */
    (void)cudaGetLastError();
    sp_gpu_trim(g);
    e = cudaMallocAsync(d, bytes, g->pool, g->stream);
    if (e == cudaSuccess) g->alloc_retries++;
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *d = NULL;
    snprintf(err, errlen, "%s:%d: device %d: cudaMallocAsync(%zu bytes): %s", __FILE__, __LINE__,
             g->ordinal, bytes, cudaGetErrorString(e));
    return sp_cuda_status(e);
  }
  g->in_use += bytes;
  if (g->in_use > g->peak) g->peak = g->in_use;
  return SEALPROV_OK;
}

extern "C" void sp_gpu_set_held(sp_gpu *g, uint64_t bytes) {
  if (g) g->held = bytes;
}
extern "C" uint64_t sp_gpu_memory_peak(const sp_gpu *g) { return g ? g->peak : 0; }
extern "C" void sp_gpu_reset_peak(sp_gpu *g) {
  if (g) g->peak = g->in_use;
}

extern "C" void sp_gpu_free(sp_gpu *g, void *d, size_t bytes) {
  if (!d) return;
  if (bytes == 0) bytes = 1;
  cudaFreeAsync(d, g->stream);
  (void)cudaGetLastError();
  g->in_use -= bytes < g->in_use ? bytes : g->in_use;
}

extern "C" int sp_gpu_upload(sp_gpu *g, void *d, const void *h, size_t bytes, char *err,
                             size_t errlen) {
  SP_CUDA_CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, g->stream));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_download(sp_gpu *g, void *h, const void *d, size_t bytes, char *err,
                               size_t errlen) {
  SP_CUDA_CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, g->stream));
  SP_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_alloc_upload_persistent(sp_gpu *g, void **d, const void *h, size_t bytes,
                                              char *err, size_t errlen) {
  *d = NULL;
  cudaError_t e = cudaMalloc(d, bytes);
  if (e == cudaSuccess) e = cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(err, errlen, "%s:%d: device %d: resident copy of %zu bytes: %s", __FILE__, __LINE__,
             g->ordinal, bytes, cudaGetErrorString(e));
    if (*d) cudaFree(*d);
    *d = NULL;
    return sp_cuda_status(e);
  }
  return SEALPROV_OK;
}

extern "C" void sp_gpu_free_persistent(int ordinal, void *d) {
  if (!d) return;
  int prev = -1;
  bool switched = false;
  if (cudaGetDevice(&prev) == cudaSuccess && prev != ordinal)
    switched = cudaSetDevice(ordinal) == cudaSuccess;
  cudaFree(d);
  if (switched) cudaSetDevice(prev);
  (void)cudaGetLastError();
}

extern "C" int sp_gpu_mem_info(sp_gpu *g, uint64_t *free_b, uint64_t *total_b) {
  (void)g;
  size_t f = 0, t = 0;
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
    (void)cudaGetLastError();
    return SEALPROV_ERR_DEVICE;
  }
  *free_b = f;
  *total_b = t;
  return SEALPROV_OK;
}

extern "C" void sp_gpu_describe(sp_gpu *g, char *name, size_t len, int *sm_count,
                                uint64_t *total_mem) {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, g->ordinal) != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(name, len, "unknown");
    *sm_count = 0;
    *total_mem = 0;
    return;
  }
  snprintf(name, len, "%s", p.name);
  *sm_count = p.multiProcessorCount;
  *total_mem = p.totalGlobalMem;
}

extern "C" int sp_gpu_copy(sp_gpu *g, void *dst, const void *src, size_t bytes, char *err,
                           size_t errlen) {
  SP_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g->stream));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_zero(sp_gpu *g, void *d, size_t bytes, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaMemsetAsync(d, 0, bytes, g->stream));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_sync(sp_gpu *g, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  SP_CUDA_CHECK(cudaGetLastError());
  return SEALPROV_OK;
}

/* ---- copy stream, events, pinned host memory --------------------------------------- */

static cudaStream_t stream_of(sp_gpu *g, sp_gpu_stream s) {
  return s == SP_STREAM_COPY ? g->copy_stream : g->stream;
}

extern "C" int sp_gpu_event_create(sp_gpu *g, sp_gpu_event **ev, char *err, size_t errlen) {
  (void)g;
  cudaEvent_t e = NULL;
  *ev = NULL;
  SP_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  *ev = (sp_gpu_event *)e;
  return SEALPROV_OK;
}

extern "C" void sp_gpu_event_destroy(sp_gpu *g, sp_gpu_event *ev) {
  (void)g;
  if (!ev) return;
  cudaEventDestroy((cudaEvent_t)ev);
  (void)cudaGetLastError();
}

extern "C" int sp_gpu_event_record(sp_gpu *g, sp_gpu_event *ev, sp_gpu_stream s, char *err,
                                   size_t errlen) {
  SP_CUDA_CHECK(cudaEventRecord((cudaEvent_t)ev, stream_of(g, s)));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_stream_wait(sp_gpu *g, sp_gpu_stream s, sp_gpu_event *ev, char *err,
                                  size_t errlen) {
  SP_CUDA_CHECK(cudaStreamWaitEvent(stream_of(g, s), (cudaEvent_t)ev, 0));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_event_sync(sp_gpu *g, sp_gpu_event *ev, char *err, size_t errlen) {
  (void)g;
  SP_CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)ev));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_upload_async(sp_gpu *g, void *d, const void *h, size_t bytes, char *err,
                                   size_t errlen) {
  if (bytes == 0) return SEALPROV_OK;
  /* cudaMemcpyDefault: h may also be device memory (a partition staged on the device
   * by chunks, engine_cuda.c), then this is a device-to-device copy */
  SP_CUDA_CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyDefault, g->copy_stream));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_join_copy(sp_gpu *g, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaEventRecord(g->join_ev, g->copy_stream));
  SP_CUDA_CHECK(cudaStreamWaitEvent(g->stream, g->join_ev, 0));
  return SEALPROV_OK;
}

__global__ void k_delay(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

extern "C" int sp_gpu_stream_delay(sp_gpu *g, sp_gpu_stream s, unsigned us, char *err,
                                   size_t errlen) {
  if (us == 0) return SEALPROV_OK;
  k_delay<<<1, 1, 0, stream_of(g, s)>>>((unsigned long long)us * 1000);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}

extern "C" int sp_gpu_sync_all(sp_gpu *g, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaStreamSynchronize(g->copy_stream));
  SP_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  SP_CUDA_CHECK(cudaGetLastError());
  return SEALPROV_OK;
}

/* Runs on `ordinal` as the current device for one call and restores the thread's
 * previous device: pinned allocations are made from worker threads (already bound)
 * and freed from whichever thread tears down. */
struct sp_dev_scope {
  int prev;
  bool switched;
};
static void scope_enter(sp_dev_scope *s, int ordinal) {
  s->prev = -1;
  s->switched = false;
  if (cudaGetDevice(&s->prev) == cudaSuccess && s->prev != ordinal)
    s->switched = cudaSetDevice(ordinal) == cudaSuccess;
  (void)cudaGetLastError();
}
static void scope_leave(sp_dev_scope *s) {
  if (s->switched) cudaSetDevice(s->prev);
  (void)cudaGetLastError();
}

extern "C" int sp_gpu_host_alloc(int ordinal, void **p, size_t bytes, char *err, size_t errlen) {
  *p = NULL;
  sp_dev_scope sc;
  scope_enter(&sc, ordinal);
  cudaError_t e = cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocPortable);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *p = NULL;
    snprintf(err, errlen, "%s:%d: device %d: cudaHostAlloc(%zu bytes): %s", __FILE__, __LINE__,
             ordinal, bytes, cudaGetErrorString(e));
  }
  scope_leave(&sc);
  return e == cudaSuccess ? SEALPROV_OK : SEALPROV_ERR_NO_MEMORY;
}

extern "C" void sp_gpu_host_free(int ordinal, void *p) {
  if (!p) return;
  sp_dev_scope sc;
  scope_enter(&sc, ordinal);
  cudaFreeHost(p);
  (void)cudaGetLastError();
  scope_leave(&sc);
}

/* ---- chunked staging: device buffers and a transfer stream of their own ---------- */

extern "C" int sp_gpu_dev_alloc(int ordinal, void **d, size_t bytes, char *err, size_t errlen) {
  *d = NULL;
  sp_dev_scope sc;
  scope_enter(&sc, ordinal);
  cudaError_t e = cudaMalloc(d, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *d = NULL;
    snprintf(err, errlen, "%s:%d: device %d: cudaMalloc(%zu bytes): %s", __FILE__, __LINE__,
             ordinal, bytes, cudaGetErrorString(e));
  }
  scope_leave(&sc);
  return e == cudaSuccess ? SEALPROV_OK : sp_cuda_status(e);
}

struct sp_gpu_xfer {
  int ordinal;
  cudaStream_t stream;
  cudaEvent_t ev[SP_XFER_SLOTS];
};

extern "C" int sp_gpu_xfer_create(int ordinal, sp_gpu_xfer **out, char *err, size_t errlen) {
  *out = NULL;
  sp_gpu_xfer *x = (sp_gpu_xfer *)calloc(1, sizeof *x);
  if (!x) {
    snprintf(err, errlen, "sp_gpu_xfer_create: out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  x->ordinal = ordinal;
  sp_dev_scope sc;
  scope_enter(&sc, ordinal);
  cudaError_t e = cudaStreamCreateWithFlags(&x->stream, cudaStreamNonBlocking);
  for (int i = 0; e == cudaSuccess && i < SP_XFER_SLOTS; i++)
    e = cudaEventCreateWithFlags(&x->ev[i], cudaEventDisableTiming);
  if (e == cudaSuccess) {
    /* recorded once on the empty stream: a wait on a slot never used is then a no-op */
    for (int i = 0; e == cudaSuccess && i < SP_XFER_SLOTS; i++)
      e = cudaEventRecord(x->ev[i], x->stream);
  }
  scope_leave(&sc);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(err, errlen, "%s:%d: device %d: transfer stream: %s", __FILE__, __LINE__, ordinal,
             cudaGetErrorString(e));
    sp_gpu_xfer_destroy(x);
    return SEALPROV_ERR_DEVICE;
  }
  *out = x;
  return SEALPROV_OK;
}

extern "C" void sp_gpu_xfer_destroy(sp_gpu_xfer *x) {
  if (!x) return;
  sp_dev_scope sc;
  scope_enter(&sc, x->ordinal);
  if (x->stream) cudaStreamSynchronize(x->stream);
  for (int i = 0; i < SP_XFER_SLOTS; i++)
    if (x->ev[i]) cudaEventDestroy(x->ev[i]);
  if (x->stream) cudaStreamDestroy(x->stream);
  (void)cudaGetLastError();
  scope_leave(&sc);
  free(x);
}

extern "C" int sp_gpu_xfer_send(sp_gpu_xfer *x, unsigned slot, void *d, const void *h, size_t bytes,
                                char *err, size_t errlen) {
  if (slot >= SP_XFER_SLOTS) {
    snprintf(err, errlen, "sp_gpu_xfer_send: slot %u out of range", slot);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (bytes) SP_CUDA_CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyDefault, x->stream));
  SP_CUDA_CHECK(cudaEventRecord(x->ev[slot], x->stream));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_xfer_wait(sp_gpu_xfer *x, unsigned slot, char *err, size_t errlen) {
  if (slot >= SP_XFER_SLOTS) {
    snprintf(err, errlen, "sp_gpu_xfer_wait: slot %u out of range", slot);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  SP_CUDA_CHECK(cudaEventSynchronize(x->ev[slot]));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_xfer_finish(sp_gpu_xfer *x, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaStreamSynchronize(x->stream));
  SP_CUDA_CHECK(cudaGetLastError());
  return SEALPROV_OK;
}

extern "C" int sp_gpu_xfer_record(sp_gpu_xfer *x, sp_gpu_event *ev, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaEventRecord((cudaEvent_t)ev, x->stream));
  return SEALPROV_OK;
}

extern "C" int sp_gpu_xfer_wait_event(sp_gpu_xfer *x, sp_gpu_event *ev, char *err, size_t errlen) {
  SP_CUDA_CHECK(cudaStreamWaitEvent(x->stream, (cudaEvent_t)ev, 0));
  return SEALPROV_OK;
}

extern "C" void sp_gpu_trim(sp_gpu *g) {
  if (!g) return;
  cudaStreamSynchronize(g->stream);
  cudaMemPoolTrimTo(g->pool, 0);
  (void)cudaGetLastError();
}

extern "C" unsigned sp_gpu_alloc_retries(const sp_gpu *g) { return g ? g->alloc_retries : 0; }

extern "C" uint64_t sp_gpu_pool_reserved(sp_gpu *g) {
  if (!g) return 0;
  uint64_t v = 0; /* cuuint64_t */
  if (cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrReservedMemCurrent, &v) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return (uint64_t)v;
}

#ifdef SP_FAULT_INJECTION
extern "C" void sp_gpu_inject_oom(sp_gpu *g, unsigned n) {
  if (g) g->inject_oom = n;
}
#endif

/* ---- scalar conversions ------------------------------------------------------- */

__global__ void k_fr_from_mont(spc_fr *a, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = spc_fr::from_mont(a[i]);
}
__global__ void k_fr_to_mont(spc_fr *a, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = spc_fr::to_mont(a[i]);
}

extern "C" int sp_gpu_fr_from_mont(sp_gpu *g, void *d, size_t n, char *err, size_t errlen) {
  if (n == 0) return SEALPROV_OK;
  k_fr_from_mont<<<sp_blocks(n, 256), 256, 0, g->stream>>>((spc_fr *)d, n);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}
extern "C" int sp_gpu_fr_to_mont(sp_gpu *g, void *d, size_t n, char *err, size_t errlen) {
  if (n == 0) return SEALPROV_OK;
  k_fr_to_mont<<<sp_blocks(n, 256), 256, 0, g->stream>>>((spc_fr *)d, n);
  SP_CUDA_LAUNCH_CHECK();
  return SEALPROV_OK;
}
