/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* sp_gpu.h -- C boundary of the CUDA kernels: a per-device context and the NTT, MSM
 * and batch-addition operations that the CUDA engine, the GPU tests and
 * `sealprov bench gpu` call. (Host-array conveniences, self-test kernels and benchmark
 * data are the developer kit's: kit/gpu/gpu_kit.h.)
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
 * Data layout: device buffers hold exactly the host types' bytes (fr_t, scalar_t,
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

typedef enum sp_ntt_kind {
  SP_NTT_FORWARD = 0,       /* as ntt_forward */
  SP_NTT_INVERSE = 1,       /* as ntt_inverse */
  SP_NTT_COSET_FORWARD = 2, /* as ntt_coset_forward */
  SP_NTT_COSET_INVERSE = 3  /* as ntt_coset_inverse */
} sp_ntt_kind;

/* In place on a device array of 2^log_n Montgomery fr_t, natural order in and out;
 * bit-for-bit the CPU's ntt_* result. 1 <= log_n <= 28. */
int sp_gpu_ntt_dev(sp_gpu *g, void *d_a, unsigned log_n, sp_ntt_kind kind, char *err,
                   size_t errlen);

/* The H polynomial of Groth16, in steps, on device arrays of 2^log_n Montgomery
 * evaluations a, b, c (all three are overwritten; scratch), so that a vector can be
 * transformed while the next one is still travelling: sp_gpu_h_coset takes a or b from
 * evaluations on the domain to evaluations on the coset (inverse NTT, coset NTT, in
 * place); sp_gpu_h_coeffs takes c to its coefficients divided by Z(g) (one inverse NTT:
 * H is linear in c, ntt.cu says why that suffices); sp_gpu_h_finish then forms the
 * 2^log_n coefficients of (a*b - c)/Z into d_a in BIT-REVERSED order (coefficient k at
 * position bitrev(k)): the MSM takes them with SP_MSM_BITREV_POINTS so no permutation
 * pass is needed. (The four steps in one call, for tests: the developer kit's
 * sp_gpu_h_poly.) */
int sp_gpu_h_coset(sp_gpu *g, void *d_v, unsigned log_n, char *err, size_t errlen);
int sp_gpu_h_coeffs(sp_gpu *g, void *d_c, unsigned log_n, char *err, size_t errlen);
int sp_gpu_h_finish(sp_gpu *g, void *d_a, const void *d_b, const void *d_c, unsigned log_n,
                    char *err, size_t errlen);

/* Converts n scalars on the device in place: Montgomery fr_t -> canonical scalar_t
 * (to_canonical) or canonical -> Montgomery (to_mont, values must be < r). */
int sp_gpu_fr_from_mont(sp_gpu *g, void *d, size_t n, char *err, size_t errlen);
int sp_gpu_fr_to_mont(sp_gpu *g, void *d, size_t n, char *err, size_t errlen);

/* ---- fixed-base MSM: precomputed copies of device-resident points (msm.cu) ----------
 * For points that stay on the device (a resident parameter vector), copies T_j =
 * 2^(c j) P, j = 1 .. copies - 1, let one bucket set serve `copies` windows of c bits:
 * an MSM over the table reduces ceil(W / copies) bucket sets instead of W = ceil(256 /
 * c), which makes larger windows (fewer windows, fewer point additions) pay. The result
 * is exact, as every MSM here (cuda/NOTES.md v11: cost model and measurements). */
typedef struct sp_msm_table {
  const void *d_points; /* copy 0: the points themselves (not owned by the table) */
  void *d_ext;          /* copies 1 .. copies - 1, npoints each, in order (owned) */
  size_t npoints;
  uint64_t ext_bytes; /* device bytes of d_ext */
  unsigned window;    /* c: copy j is 2^(c j) times copy 0 */
  unsigned copies;    /* >= 2, at most ceil(256 / c) */
  unsigned shift;     /* ceil(log2 npoints): sort values hold copy << shift | index */
  bool g2;
} sp_msm_table;
/* Device bytes of a table's copies (copies - 1 of npoints points); 0 for copies < 2. */
uint64_t sp_gpu_msm_table_bytes(bool g2, size_t npoints, unsigned copies);
/* The window and number of copies (>= 2) for a table of npoints points within budget
 * bytes, by msm.cu's cost model (constants of the H200, cuda/NOTES.md v11), for MSMs
 * over all of its points; *copies = *window = 0 when no table is predicted at least 3 %
 * faster than today's path, or none fits the budget. force: the fastest table that fits,
 * whatever its gain. *gain (may be NULL): the predicted fraction of time saved. Pure
 * host code (no device call). */
void sp_gpu_msm_plan(bool g2, size_t npoints, uint64_t budget, bool force, unsigned *window,
                     unsigned *copies, double *gain);
/* Builds the table of npoints device points d_points (g1_affine_t, or g2_affine_t when
 * g2) on the compute stream and waits for it. The copies live in memory of their own
 * (cudaMalloc, outside the context's pool and memory_limit, as
 * sp_gpu_alloc_upload_persistent: the caller counts it); d_points must stay allocated
 * and unchanged while the table is used. window 2..24, copies 2..ceil(256 / window),
 * npoints 1..2^31 - 1 with copies * 2^ceil(log2 npoints) <= 2^31. Returns OK, DEVICE,
 * DEVICE_MEMORY (the copies do not fit), INVALID_ARGUMENT; *out is zeroed on failure. */
int sp_gpu_msm_table_make(sp_gpu *g, bool g2, const void *d_points, size_t npoints, unsigned window,
                          unsigned copies, sp_msm_table *out, char *err, size_t errlen);
/* Frees a table's copies (any thread: as sp_gpu_free_persistent) and zeroes *t. */
void sp_gpu_msm_table_free(int ordinal, sp_msm_table *t);

/* Pippenger MSM, out = sum scalars[i] * points[map(i)]. Scalars are canonical
 * (scalar_t, < r); 0 contributes nothing; infinity points are allowed.
 *   flags SP_MSM_BITREV_POINTS: map(i) = bitrev_{log2 npoints_pow2}(i) (H MSM);
 *   d_index != NULL: map(i) = d_index[i] - index_base (compacted scalars; index_base
 *   lets a chunk of the point vector, starting at point index_base, be passed as
 *   d_points together with the matching range of the compacted scalars).
 *   table != NULL: the points are the table's (d_points is not read; every map(i) must
 *   be below table->npoints) and the window is the table's (window_bits 0 or equal).
 * window_bits 0 = choose. The result is exact (compare with msm_g1 / msm_g2). */
#define SP_MSM_BITREV_POINTS 0x1u
typedef struct sp_msm_args {
  const void *d_points;    /* device g1_affine_t / g2_affine_t */
  const void *d_scalars;   /* device scalar_t, n of them */
  const uint32_t *d_index; /* optional point index per scalar */
  size_t n;
  unsigned flags;
  unsigned log_bitrev;       /* for SP_MSM_BITREV_POINTS */
  unsigned window_bits;      /* 0 = automatic */
  uint32_t index_base;       /* subtracted from d_index[i] (0 = none) */
  const sp_msm_table *table; /* fixed-base table of the points, or NULL */
  unsigned table_batch;      /* tests: windows per sort batch over a table (0 = by
                                 memory), so that small MSMs take the large ones' path
                                 where a bucket set spans several batches */
} sp_msm_args;
int sp_gpu_msm_g1_dev(sp_gpu *g, g1_jac_t *out, const sp_msm_args *a, char *err, size_t errlen);
int sp_gpu_msm_g2_dev(sp_gpu *g, g2_jac_t *out, const sp_msm_args *a, char *err, size_t errlen);

/* out = sum of the points whose bit is set in bitmap (bit i in word i/64), as
 * batch_add_g1 / batch_add_g2, on device points and bitmap. */
int sp_gpu_batch_add_g1_dev(sp_gpu *g, g1_jac_t *out, const void *d_points,
                            const uint64_t *d_bitmap, size_t n, char *err, size_t errlen);
int sp_gpu_batch_add_g2_dev(sp_gpu *g, g2_jac_t *out, const void *d_points,
                            const uint64_t *d_bitmap, size_t n, char *err, size_t errlen);

/* ---- partition preparation on the device ---- */
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

/* The a*b = c pre-check on decoded (Montgomery) device vectors of n rows: *first_bad
 * gets the lowest row i with a[i]*b[i] != c[i], UINT64_MAX if none. d_b NULL: d_a
 * holds the products a[i]*b[i] already (see sp_gpu_fr_mul_vec). */
int sp_gpu_check_rows(sp_gpu *g, const void *d_a, const void *d_b, const void *d_c, size_t n,
                      uint64_t *first_bad, char *err, size_t errlen);
/* d_dst[i] = d_x[i] * d_y[i], n Montgomery fr_t (d_dst may be d_x or d_y). */
int sp_gpu_fr_mul_vec(sp_gpu *g, void *d_dst, const void *d_x, const void *d_y, size_t n, char *err,
                      size_t errlen);

/* Subgroup checks of decoded affine points (host memory, the module's layout:
 * g1_affine_t, or g2_affine_t when g2; Montgomery form) on device `ordinal`, for the
 * parameter loader: on the curve, and in G1 (phi(P) == -[x^2] P) or G2 (psi(P) ==
 * [x] P), the CPU's tests (g1_affine_in_subgroup / g2_affine_in_subgroup); infinity
 * passes. A checker makes its streams and three pinned chunk buffers (96 MiB each,
 * host and device) once: host copies, uploads and checks overlap (cudaHostAlloc of
 * 288 MiB is not free, so a load keeps one checker). sp_cuda_checker_run has the shape
 * of the loader's hook (srs.h, sp_srs_check_fn): pass it as `check` and the checker as
 * `check_user`; *first_bad gets the lowest failing index, or n if every point passes.
 * Calls on one checker are serialised (a mutex); any thread may make them: it switches
 * the thread to `ordinal` for the call and back. Returns OK, DEVICE, DEVICE_MEMORY (a
 * buffer could not be had) or INVALID_ARGUMENT. (subgroup.cu) */
typedef struct sp_cuda_checker sp_cuda_checker;
int sp_cuda_checker_create(int ordinal, sp_cuda_checker **out, char *err, size_t errlen);
void sp_cuda_checker_destroy(sp_cuda_checker *c);
int sp_cuda_checker_run(void *checker, bool g2, const void *pts, size_t n, size_t *first_bad,
                        char *err, size_t errlen);

/* ---- data movement: a copy stream, events, pinned host memory ---------------------
 * A context has two streams: the compute stream (everything above runs there) and a
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
/* The host waits for both streams; reports an asynchronous error. */
int sp_gpu_sync_all(sp_gpu *g, char *err, size_t errlen);

/* Pinned host memory (cudaHostAlloc, portable: usable by every device's contexts).
 * Callable from any thread: if the thread's current device is not `ordinal` it switches
 * to it for the call and back (the thread's binding is unchanged afterwards). A failure
 * is SEALPROV_ERR_NO_MEMORY (callers fall back to pageable memory). */
int sp_gpu_host_alloc(int ordinal, void **p, size_t bytes, char *err, size_t errlen);
void sp_gpu_host_free(int ordinal, void *p);
/* Page-locks existing host memory (cudaHostRegister, portable; read-only where the
 * device supports it) so that uploads from it are asynchronous DMA. *owned is true
 * when this call registered it (the caller unregisters it later), false when the range
 * was already registered by someone else (usable, not to be unregistered). */
int sp_gpu_host_register(int ordinal, void *p, size_t bytes, bool *owned, char *err, size_t errlen);
void sp_gpu_host_unregister(int ordinal, void *p);

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

/* For each k < count: out[k] = the number of elements of d_sorted (n uint32, ascending)
 * that are < min(k * step, limit), i.e. lower_bound positions of the chunk boundaries
 * (one thread per boundary on the device; count small). */
int sp_gpu_lower_bounds(sp_gpu *g, const uint32_t *d_sorted, size_t n, uint64_t step,
                        uint64_t limit, size_t count, size_t *out, char *err, size_t errlen);

/* In-place bit-reversal permutation of 2^log_n fr_t-sized elements on the device (the
 * H coefficients come out of sp_gpu_h_finish bit-reversed; streamed H MSMs want them in
 * natural order). Implemented in ntt.cu. */
int sp_gpu_bitrev_dev(sp_gpu *g, void *d, unsigned log_n, char *err, size_t errlen);

/* Waits for the compute stream (where frees are ordered), then gives the memory the
 * context's pool keeps cached back to the driver: before an allocation is retried
 * after an out-of-memory, and before a new resident parameter set is sized up. */
void sp_gpu_trim(sp_gpu *g);
/* How many allocations succeeded only after that trim (tests, diagnostics). */
unsigned sp_gpu_alloc_retries(const sp_gpu *g);
/* Device memory the context's pool holds from the driver now (cached or in use): the
 * pool's own figure, unlike sp_gpu_mem_info's, which other processes on the GPU move. */
uint64_t sp_gpu_pool_reserved(sp_gpu *g);

/* Fault injection for tests: the next n calls of sp_gpu_alloc fail as out of memory
 * (SEALPROV_ERR_DEVICE_MEMORY) without allocating. */
void sp_gpu_inject_oom(sp_gpu *g, unsigned n);

#ifdef __cplusplus
}
#endif
#endif
