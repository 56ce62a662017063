/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* sp_gpu.h -- C boundary of the CUDA kernels: the per-device context (memory, streams,
 * transfers, pinned host memory) that every kernel family's C API takes. Each family
 * has its own header in its folder: msm/msm.h, ntt/ntt.h, prep/prep.h,
 * subgroup/subgroup.h, spmv/spmv.h, points/points.h (the direct load). The CUDA engine,
 * the GPU tests and `sealprov bench gpu` include the ones they call. (Host-array
 * conveniences, self-test kernels and benchmark data are the developer kit's:
 * kit/gpu/gpu_kit.h.)
 *
 * Every function returns a sealprov_status: OK, DEVICE (a CUDA error; err names
 * file:line, the call and cudaGetErrorString), DEVICE_MEMORY (an allocation failed or
 * would pass the context's memory_limit), INVALID_ARGUMENT. Nothing aborts and no
 * C++ exception leaves these functions.
 *
 * Thread safety: a context belongs to the thread that created it (that thread's
 * current device is its device); calls on one context must not run concurrently.
 * Different contexts are independent.
 *
 * Data layout (every family): device buffers hold exactly the host types' bytes (fr_t, scalar_t,
 * g1_affine_t, g2_affine_t), so uploads are plain copies.
 */
#ifndef SEALPROV_CUDA_SP_GPU_H
#define SEALPROV_CUDA_SP_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"
#include "bls12_381/bls12_381.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_gpu sp_gpu;

/* Number of CUDA devices this process sees; 0 without a driver or GPU (never an
 * error). Safe to call before anything else. */
int sp_gpu_device_count(void);
/* Binds the calling thread to `ordinal`: cudaSetDevice, then cudaGetDevice must
 * confirm; *confirmed gets what cudaGetDevice said (-1 if it failed). Never touches
 * CUDA_VISIBLE_DEVICES. */
int sp_gpu_bind(int ordinal, int *confirmed, char *err, size_t errlen);

/* Whether the calling thread's device (bound with sp_gpu_bind) can run this module's
 * kernels: cudaFuncGetAttributes on one of them. Every .cu file of the module is built
 * with the same -gencode list (configure --with-cuda-arch), so one kernel answers for
 * all. OK: *binary_version is the architecture of the code the runtime loads (86 for a
 * sm_86 binary; for PTX that the driver compiled, the device's own) and *ptx_version
 * that of the PTX it came from (0 when the function has none). UNSUPPORTED: the module
 * has no code the device can run (no binary of its architecture family and no PTX old
 * enough for it, or PTX newer than the driver compiles); err gets the runtime's error
 * name and string. DEVICE: any other failure. */
int sp_gpu_code_check(int *binary_version, int *ptx_version, char *err, size_t errlen);

/* Creates a context on the calling thread's CURRENT device, which must already be
 * `ordinal` (the caller did cudaSetDevice and confirmed it). memory_limit 0 = no limit
 * beyond the card. */
int sp_gpu_create(int ordinal, uint64_t memory_limit, sp_gpu **out, char *err, size_t errlen);
void sp_gpu_destroy(sp_gpu *g);
uint64_t sp_gpu_memory_in_use(const sp_gpu *g);
/* The highest sp_gpu_memory_in_use since the last reset (which starts it again from
 * what is in use). */
uint64_t sp_gpu_memory_peak(const sp_gpu *g);
void sp_gpu_reset_peak(sp_gpu *g);
/* Device memory the context's user holds outside its pool (resident parameter points,
 * staging buffers): counted with the pool's allocations against memory_limit. */
void sp_gpu_set_held(sp_gpu *g, uint64_t bytes);
int sp_gpu_ordinal(const sp_gpu *g);

/* Device memory through the context's stream-ordered pool, counted against
 * memory_limit. sp_gpu_free needs the size that was allocated. */
int sp_gpu_alloc(sp_gpu *g, void **d, size_t bytes, char *err, size_t errlen);
void sp_gpu_free(sp_gpu *g, void *d, size_t bytes);
int sp_gpu_upload(sp_gpu *g, void *d, const void *h, size_t bytes, char *err, size_t errlen);
int sp_gpu_download(sp_gpu *g, void *h, const void *d, size_t bytes, char *err, size_t errlen);
/* Long-lived device memory outside the pool (resident parameter points): cudaMalloc
 * and a copy from the host. Not counted in sp_gpu_memory_in_use (the engine counts
 * it). sp_gpu_free_persistent may run on any thread: it switches that thread to
 * `ordinal` for the free and back. */
int sp_gpu_alloc_upload_persistent(sp_gpu *g, void **d, const void *h, size_t bytes, char *err,
                                   size_t errlen);
void sp_gpu_free_persistent(int ordinal, void *d);
/* Free and total memory of the context's device (cudaMemGetInfo). */
int sp_gpu_mem_info(sp_gpu *g, uint64_t *free_b, uint64_t *total_b);
/* Name and multiprocessor count of the context's device (for benchmark reports). */
void sp_gpu_describe(sp_gpu *g, char *name, size_t len, int *sm_count, uint64_t *total_mem);
/* Device-to-device copy and zero fill on the context's stream. */
int sp_gpu_copy(sp_gpu *g, void *dst, const void *src, size_t bytes, char *err, size_t errlen);
int sp_gpu_zero(sp_gpu *g, void *d, size_t bytes, char *err, size_t errlen);
/* Waits for all work of the context; reports an asynchronous kernel error. */
int sp_gpu_sync(sp_gpu *g, char *err, size_t errlen);

/* Converts n scalars on the device in place: Montgomery fr_t -> canonical scalar_t
 * (to_canonical) or canonical -> Montgomery (to_mont, values must be < r). */
int sp_gpu_fr_from_mont(sp_gpu *g, void *d, size_t n, char *err, size_t errlen);
int sp_gpu_fr_to_mont(sp_gpu *g, void *d, size_t n, char *err, size_t errlen);

/* ---- data movement: a copy stream, events, pinned host memory ---------------------
 * A context has two streams: the compute stream (every kernel runs there) and a
 * copy stream for host -> device transfers that overlap with compute. Ordering between
 * them is explicit, through events. Memory from sp_gpu_alloc is allocated and freed in
 * the compute stream's order: before the copy stream writes into a fresh allocation
 * it must wait for an event recorded on the compute stream after sp_gpu_alloc, and
 * before sp_gpu_free of memory the copy stream wrote, the compute stream must wait for
 * the copy (sp_gpu_stream_wait or sp_gpu_join_copy). */
typedef enum sp_gpu_stream { SP_STREAM_COMPUTE = 0, SP_STREAM_COPY = 1 } sp_gpu_stream;
typedef struct sp_gpu_event sp_gpu_event; /* a cudaEvent_t without timing */
int sp_gpu_event_create(sp_gpu *g, sp_gpu_event **ev, char *err, size_t errlen);
void sp_gpu_event_destroy(sp_gpu *g, sp_gpu_event *ev);
/* Records ev at the current end of stream s. */
int sp_gpu_event_record(sp_gpu *g, sp_gpu_event *ev, sp_gpu_stream s, char *err, size_t errlen);
/* Work enqueued on stream s after this call starts only once ev has completed (the
 * last record of ev before this call). The host does not wait. */
int sp_gpu_stream_wait(sp_gpu *g, sp_gpu_stream s, sp_gpu_event *ev, char *err, size_t errlen);
/* The host waits for ev (its last record). */
int sp_gpu_event_sync(sp_gpu *g, sp_gpu_event *ev, char *err, size_t errlen);
/* Host -> device copy on the copy stream. From pinned (or registered) memory it is
 * asynchronous; the caller keeps h alive and unchanged until an event recorded after
 * it has completed. From pageable memory it is correct but the host waits. */
int sp_gpu_upload_async(sp_gpu *g, void *d, const void *h, size_t bytes, char *err, size_t errlen);
/* The compute stream waits (device side) for everything enqueued on the copy stream so
 * far: after this, frees on the compute stream cannot overtake a pending copy. */
int sp_gpu_join_copy(sp_gpu *g, char *err, size_t errlen);
/* Stream s does nothing for us microseconds (a kernel of one thread waiting on the
 * device's clock): tests hold a copy back to prove its consumer waits for it. */
int sp_gpu_stream_delay(sp_gpu *g, sp_gpu_stream s, unsigned us, char *err, size_t errlen);
/* The host waits for both streams; reports an asynchronous error. */
int sp_gpu_sync_all(sp_gpu *g, char *err, size_t errlen);

/* Pinned host memory (cudaHostAlloc, portable: usable by every device's contexts).
 * Callable from any thread: if the thread's current device is not `ordinal` it switches
 * to it for the call and back (the thread's binding is unchanged afterwards). A failure
 * is SEALPROV_ERR_NO_MEMORY (callers fall back to pageable memory). */
int sp_gpu_host_alloc(int ordinal, void **p, size_t bytes, char *err, size_t errlen);
void sp_gpu_host_free(int ordinal, void *p);
/* ---- chunked staging (engine_cuda.c, pinned_staging = chunked) ---------------------
 * A partition's vectors go to a device buffer of their own (sp_gpu_dev_alloc: cudaMalloc
 * outside any context's pool, freed with sp_gpu_free_persistent) through a few pinned
 * chunk buffers: the host fills chunk k + 1 while chunk k travels. The transfer object
 * is a stream of its own and one event per chunk slot, so it runs beside a context's
 * streams without touching the context; one thread uses it at a time. Callable from
 * any thread: creation and destruction switch to `ordinal` and back; sends need the
 * calling thread's current device to be `ordinal` only for pageable sources. */
#define SP_XFER_SLOTS 16
int sp_gpu_dev_alloc(int ordinal, void **d, size_t bytes, char *err, size_t errlen);
typedef struct sp_gpu_xfer sp_gpu_xfer;
int sp_gpu_xfer_create(int ordinal, sp_gpu_xfer **out, char *err, size_t errlen);
void sp_gpu_xfer_destroy(sp_gpu_xfer *x); /* waits for its transfers first */
/* Queues a copy of bytes from h (pinned, pageable or device memory) to d, then records
 * slot's event. */
int sp_gpu_xfer_send(sp_gpu_xfer *x, unsigned slot, void *d, const void *h, size_t bytes, char *err,
                     size_t errlen);
/* The host waits until slot's last send has completed (its source may be refilled). */
int sp_gpu_xfer_wait(sp_gpu_xfer *x, unsigned slot, char *err, size_t errlen);
/* The host waits for every send; reports an asynchronous error. */
int sp_gpu_xfer_finish(sp_gpu_xfer *x, char *err, size_t errlen);
/* Records ev (an event of sp_gpu_event_create) at the current end of the transfer's
 * stream, and makes the transfer's stream wait for ev (its last record, e.g. on a
 * context's compute stream: a device buffer being reused). Same device only. */
int sp_gpu_xfer_record(sp_gpu_xfer *x, sp_gpu_event *ev, char *err, size_t errlen);
int sp_gpu_xfer_wait_event(sp_gpu_xfer *x, sp_gpu_event *ev, char *err, size_t errlen);

/* Waits for the compute stream (where frees are ordered), then gives the memory the
 * context's pool keeps cached back to the driver: before an allocation is retried
 * after an out-of-memory, and before a new resident parameter set is sized up. */
void sp_gpu_trim(sp_gpu *g);
/* How many allocations succeeded only after that trim (tests, diagnostics). */
unsigned sp_gpu_alloc_retries(const sp_gpu *g);
/* Device memory the context's pool holds from the driver now (cached or in use): the
 * pool's own figure, unlike sp_gpu_mem_info's, which other processes on the GPU move. */
uint64_t sp_gpu_pool_reserved(sp_gpu *g);

/* Fault injection, only in a build with configure --enable-fault-injection (the fault
 * engine's SP_INJECT_OOM, fault.h): the next n calls of sp_gpu_alloc fail as out of
 * memory (SEALPROV_ERR_DEVICE_MEMORY) without allocating. */
void sp_gpu_inject_oom(sp_gpu *g, unsigned n);

#ifdef __cplusplus
}
#endif
#endif
