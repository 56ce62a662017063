/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* engine_internal.h -- what the CUDA backend's files share; nothing outside cuda/backend/
 * (and the plan's arithmetic test, tests/cuda/test_cuda_plan.c) includes it.
 *   engine_cuda.c   the engine's operations and their orchestration: device open and
 *                   close, worker bind, execute with its out-of-memory retries,
 *                   evictions, memory counters; the backend table
 *   staging.c       prepare: a partition carried to the device (pinned whole-partition
 *                   buffers, or chunked through the provider's pool into a device
 *                   buffer), and the early upload of a from an idle device's prepare
 *   residency.c     parameter sets on the device: resident copies, page-locked
 *                   registration for streaming, the direct load's device copies
 *   plan.c          how a partition uses the device's memory: chosen before it runs
 *                   from the bytes the device has for it
 *   pipeline.c      one partition on the device: H, witness-only a, b, c, assembly
 *   tail.c          the MSMs and batch additions of H, L, A and B over chunks of
 *                   points: resident, or streamed through a ring of device buffers
 *   upload.c        every host -> device copy of an execute, on a thread of its own,
 *                   pageable memory through a bounded ring of page-locked chunks
 *   load_service.c  the backend's help with a .params load
 *   capacity.c      the largest partition the device proves, from plan.c's tiers
 *   probe.c         what benchmarks and tests read of a device, and the test build's
 *                   knobs (probe.h; a library of its own, never in sealprov.so) */
#ifndef SEALPROV_CUDA_BACKEND_ENGINE_INTERNAL_H
#define SEALPROV_CUDA_BACKEND_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sp_gpu.h" /* first: hides <math.h>'s FP_ZERO from bls12_381.h */
#include "util/stage.h"
#include "base/util.h" /* sp_now_ms */
#include "msm/msm.h"
#include "spmv/spmv.h"
#include "backend/engine_cuda.h"
#include "engine/device.h"
#include "engine/engine.h"
#include "engine/hostmem.h"
#include "formats/cs.h"
#include "formats/srs.h"
#include "groth16/cs_eval.h"

/* Device memory a partition needs besides the parameter points, on top of its three
 * domain-sized vectors: MSM sort buffers (about 4 GiB per window batch), buckets,
 * scalars. Used to decide whether a parameter set may stay resident (a partition itself
 * runs under the plan of plan.c). */
#define SP_SCRATCH_RESERVE (10ull << 30)

/* A partition's working memory with `vectors` domain-sized vectors of vbytes: three
 * for residency (a, b, c), four where an early-uploaded a is held besides. */
static inline uint64_t work_bytes(size_t vbytes, unsigned vectors) {
  return (uint64_t)vectors * vbytes + SP_SCRATCH_RESERVE;
}

/* Points per chunk when parameters are streamed: 2^24 G1 points are 1.6 GB per device
 * buffer (the plan's ring has two or three), large enough that an H MSM chunk keeps the
 * GPU busy (~100 ms on the H200) while the next one uploads (~40 ms). */
#define SP_STREAM_CHUNK_DEFAULT ((size_t)1 << 24)
/* The ring's most device buffers, and the events of the uploads (upload.c: an upload's
 * event is reused once execute has waited for it). */
#define SP_RING_MAX 4
#define SP_UP_EVENTS 16

/* Out-of-memory retries: each one frees what the attempt held, waits SP_OOM_WAIT_MS
 * (memory another worker or process is giving back -- the pool's stream-ordered frees,
 * a neighbour's teardown -- becomes available within a few hundred ms; waiting longer
 * under the device lock would stall the device's other worker for nothing) and runs
 * again with parameter streaming in the chunk size of its rung. Three rungs: 2^24,
 * 2^22 and 2^20 points per chunk (smaller chunks also shrink the MSM sort buffers,
 * which scale with the points per MSM below ~2^24). msm.cu has no separate knob for
 * the window batch, so the ladder is the chunk size only. */
#define SP_OOM_RETRIES 3
#define SP_OOM_WAIT_MS 200

/* Staging buffers are allocated in multiples of this (a slightly larger partition then
 * reuses the buffer instead of growing it). */
#define SP_STAGE_ROUND ((size_t)64 << 20)
/* Segment offsets inside a staging buffer: page-aligned copies. */
#define SP_STAGE_ALIGN ((size_t)4096)
#define SP_MAX_WORKERS 64

typedef struct cuda_resident {
  const sp_srs *srs;
  void *h, *l, *a, *b1, *b2;
  size_t bytes;
  /* the device copy of a direct load (srs->devcopy): the srs frees it, not us */
  bool borrowed;
  /* Fixed-base table of h (msm_precompute; copies 0 when there is none): ours even when
   * the points are borrowed. tab_bytes is counted in resident_bytes. no_table: dropped
   * by an out-of-memory retry of a set that cannot stream; not made again. */
  sp_msm_table tab_h;
  uint64_t tab_bytes;
  bool no_table;
  int tab_mode; /* the SP_TABLES_* mode a table was last planned under (0: never) */
  struct cuda_resident *next;
} cuda_resident;

/* The five parameter vectors, in one order everywhere: h, l, a, b_g1, b_g2. */
enum { V_H, V_L, V_A, V_B1, V_B2, V_COUNT };

/* The first points of a streamed set's vectors kept on the device between partitions
 * (residency.c, cuda_make_prefix): what the plan leaves of the device's memory, so that
 * those points cross PCIe once instead of in every partition. */
typedef struct cuda_prefix {
  const sp_srs *srs;
  void *pts[V_COUNT]; /* device copies of the first n[v] points (cudaMalloc, ours) */
  size_t n[V_COUNT];
  uint64_t bytes;
  struct cuda_prefix *next;
} cuda_prefix;

typedef struct stage_buf {
  void *p;
  size_t cap;
  bool busy;
  sp_gpu_xfer *x; /* chunked staging: the transfer stream of this device buffer */
} stage_buf;

/* Staging modes (sp_device_cfg.pinned_staging; the test build's sp_engine_cuda_set_staging). */
enum {
  STAGE_OFF = SP_STAGING_OFF,
  STAGE_WHOLE = SP_STAGING_WHOLE,
  STAGE_CHUNKED = SP_STAGING_CHUNKED
};

/* Chunked staging takes chunks of the provider's pool (hostmem.h), of
 * sp_device_cfg.staging_chunk_bytes each, staging_chunks of them per partition being
 * staged (device.h has the defaults); a transfer has a slot for each. */
_Static_assert(SP_STAGING_CHUNKS_MAX <= SP_XFER_SLOTS, "a staging chunk per transfer slot");

/* Events of one execute (device lock held: one user at a time): buffers allocated
 * (the uploads into them wait for it), a buffer's last use before it takes another
 * upload (b's for c, the pre-check's two chunk buffers, the ring's slots), the early
 * upload, and the uploads' own (upload.c). */
enum {
  EV_ALLOC,
  EV_HSLOT,
  EV_CK0,
  EV_CK1,
  EV_SLOT0,
  EV_EARLY = EV_SLOT0 + SP_RING_MAX,
  EV_UP0,
  EV_COUNT = EV_UP0 + SP_UP_EVENTS
};

struct cuda_prep;

/* A constraint system kept on a device for witness-only partitions (cuda/spmv/spmv.cu), made
 * at its first partition there, dropped by cs_evict when the system is freed. */
typedef struct cuda_cs_res {
  const sp_cs *cs;
  sp_gpu_cs *g;
  uint64_t bytes;
  struct cuda_cs_res *next;
} cuda_cs_res;

/* Paths only a test build takes (configure --enable-fault-injection; probe.h sets them
 * between tasks): a test reaches the streamed, handoff, two-slot or table paths on a
 * small set and a GPU where the default would not take them, and a benchmark of that
 * build compares them on the same data. A production module has the defaults only. */
typedef struct cuda_knobs {
  bool force_stream;       /* stream the parameter points even when the set would fit */
  size_t stream_chunk;     /* points per streamed chunk (0: the plan's) */
  int force_tier;          /* -1: the plan chooses; else that tier of plan.c's list */
  int early_mode;          /* SP_EARLY_* */
  int tables_mode;         /* SP_TABLES_* */
  bool no_check_buffer;    /* the a*b = c pre-check without its product buffer */
  unsigned early_delay_us; /* the early upload's copy held back this long on the copy
                              stream, so that execute meets it still travelling */
} cuda_knobs;
#define CUDA_KNOBS_DEFAULT \
  { false, 0, -1, SP_EARLY_ALL, SP_TABLES_AUTO, false, 0 }

typedef struct cuda_dev {
  unsigned index;
  sp_hostmem *hm;     /* the provider's accountant (sp_device_cfg.hostmem), or own_hm */
  sp_hostmem *own_hm; /* made at open when the caller passed none (tests, benchmarks) */
  bool pool_held;     /* holds a reference on hm's staging pool (first bind .. last unbind) */
  char section[64];
  int ordinal;
  char name[96]; /* the GPU's name and compute capability (resolve.c), for messages */
  int cc_major, cc_minor;
  char code[28]; /* what the first bind found it runs (code.c): "sm_90" */
  uint64_t memory_limit;
  uint64_t total_memory; /* the GPU's memory (enumeration), 0 unknown */
  /* its multiprocessors (enumeration; else the first bind's), which the plan and the
   * capacity model both size MSM scratch by: 0 unknown */
  int sm_count;
  uint64_t pinned_cfg; /* sp_device_cfg.pinned_staging as configured */
  int stage_mode;      /* STAGE_*, from pinned_cfg (the test build's knob changes it) */
  /* chunked staging: one device buffer per worker for a partition's vectors (the
   * "landing"), filled through chunks of the shared pool; device bytes they hold */
  stage_buf land[SP_MAX_WORKERS];
  uint64_t land_bytes;
  unsigned chunks_per_stage; /* sp_device_cfg.staging_chunks (or its default) */
  size_t chunk_bytes;        /* sp_device_cfg.staging_chunk_bytes (or its default) */
  unsigned workers;
  pthread_mutex_t mu; /* gpu creation, bound count, resident/registered lists, staging
                          pool, timings, knobs */
  sp_gpu *gpu;
  unsigned bound;
  cuda_resident *res;
  cuda_prefix *pre;    /* resident prefixes of streamed sets (under mu) */
  cuda_cs_res *cs_res; /* constraint systems on this device (under mu) */
  sp_cuda_timings last;
  /* pinned staging pool */
  uint64_t pinned_budget; /* resolved at first bind; 0 = off */
  uint64_t pinned_bytes;  /* held (or being allocated) by the pool */
  stage_buf stage[SP_MAX_WORKERS];
  /* execute-only state (device lock held) */
  sp_gpu_event *ev[EV_COUNT];
  sp_gpu_xfer *up_x;   /* the uploads' transfer stream (upload.c), made at the first */
  uint64_t pcie_bytes; /* host -> device bytes of every execute so far (under mu) */
  /* Early upload of a (under mu). A partition staged while another executes here asks
   * for it (early_want); the executing one hands over a vector buffer it is done with
   * and sends the waiting partition's a into it on the copy stream, where it travels
   * during the rest of its work (early_buf, for early_owner). The next execute of
   * early_owner starts with a on the device instead of waiting ~80 ms for it at 2^27.
   * early_owner NULL with early_buf set: orphaned (its partition was released without
   * executing); the next execute frees it. */
  /* Fixed-base tables (sp_device_cfg.msm_precompute: 0 auto, SP_MSM_PRECOMPUTE_OFF, or
   * bytes; under mu). */
  uint64_t precompute_cfg;
  bool tables_oom; /* an out-of-memory retry met a table: none are made any more */
  /* A prepare that finds the device idle (no execute between the two flags below)
   * allocates a's buffer and queues its copy itself, while it stages the rest: the
   * copy then overlaps the host's staging. `executing` and `uploading` exclude each
   * other (cv), so the context is used by one thread at a time. */
  bool executing, uploading;
  pthread_cond_t cv;
  struct cuda_prep *early_want;
  void *early_buf;
  size_t early_bytes;
  struct cuda_prep *early_owner;
#ifdef SP_FAULT_INJECTION
  unsigned fault_oom; /* sp_engine_ops.fault_oom: allocations the next execute
                                    fails as out of memory (the device lock's holder) */
  cuda_knobs knobs;   /* probe.h's setters (under mu) */
#endif
} cuda_dev;

/* The knobs of this device now (under d->mu): a test build's setting, else the
 * defaults, constant, so that the production engine has none of the other paths. */
static inline cuda_knobs cuda_knobs_of(const cuda_dev *d) {
#ifdef SP_FAULT_INJECTION
  return d->knobs;
#else
  (void)d;
  return (cuda_knobs)CUDA_KNOBS_DEFAULT;
#endif
}

/* Where execute reads the assignment from: the staging buffer or the host's memory. */
typedef struct cuda_prep {
  stage_buf *buf;  /* NULL: pageable (the host's own arrays) */
  stage_buf *land; /* chunked staging: the sources are this device buffer */
  const void *abc[3], *inp, *aux;
  const uint64_t *bm[3]; /* a_aux, b_inp, b_aux */
  double prepare_ms;
  uint64_t pcie_bytes;    /* host -> device bytes of prepare's staging and of a's early
                             upload (counted in execute's) */
  size_t vbytes, a_bytes; /* device size of a (2^log_domain elements), bytes of a staged */
  /* Witness-only partition whose a, b, c execute computes on the device (spmv.cu):
   * wasg is the task's assignment with a, b, c NULL and the system's densities. */
  bool gpu_cs;
  sealprov_assignment wasg;
} cuda_prep;

static inline size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

static inline size_t bitmap_bytes(uint64_t bits) { return (size_t)((bits + 63) / 64) * 8; }

/* ---- the plan (plan.c) ---- */
typedef struct cuda_plan_in {
  unsigned log_domain;
  size_t nabc, ninp, naux, h_len, l_len, a_len, b_len; /* b_len: b_g1 = b_g2 */
  size_t bm_bytes;                                     /* the three density bitmaps */
  bool resident;                                       /* the set's points are on the device */
  bool gpu_cs;       /* a, b, c made on the device from the system's copy (three at once) */
  bool no_check_buf; /* tests: the pre-check without its product buffer */
  size_t chunk;      /* points per chunk asked for (a test build's knob; 0: the plan's) */
  size_t chunk_cap;  /* at most this many (an out-of-memory retry's rung; 0: none) */
  unsigned min_tier; /* the first candidate to consider (an out-of-memory retry's) */
  int sm_count;      /* the device's multiprocessors (0: unknown) */
} cuda_plan_in;

typedef struct cuda_plan {
  unsigned tier;     /* its place in plan.c's list: 0 needs the most memory */
  unsigned h_slots;  /* vectors of the domain on the device at once in H: 3 or 2 */
  bool check_buf;    /* three slots: a*b collects in a buffer of abc_size rows */
  int rest_at;       /* when inputs, aux and bitmaps travel: with a, b, c (0), during the
                         H MSM (1), after it (2) */
  bool interleave;   /* streamed: H MSM chunks interleaved with L, A, B chunks */
  unsigned ring;     /* streamed: device buffers for points */
  size_t chunk;      /* G1 points per ring buffer (G2: half), a multiple of 64 */
  size_t check_rows; /* two slots: rows of c per pre-check chunk (two buffers) */
  size_t res_chunk;  /* resident L, A, B taken in chunks of this many points (0: whole) */
  unsigned wb;       /* windows per sort batch an MSM is planned with */
  uint64_t need;     /* device bytes at the peak (beyond what the pool held before) */
  uint64_t budget;   /* what it was chosen for */
} cuda_plan;

/* The sizes of a partition of srs (asg: its sizes and bitmaps only). */
void cuda_plan_input(const sp_srs *srs, const sealprov_assignment *asg, bool resident, bool gpu_cs,
                     int sm_count, cuda_plan_in *in);
/* The first candidate from in->min_tier on whose need fits budget: OK; else the
 * smallest, and DEVICE_MEMORY. */
int cuda_plan_choose(const cuda_plan_in *in, uint64_t budget, cuda_plan *out);
/* Device bytes plan p needs at its peak; the need of candidate `tier` (the last one,
 * cuda_plan_tiers() - 1, is the least a partition of these sizes can run in). */
uint64_t cuda_plan_bytes(const cuda_plan_in *in, const cuda_plan *p);
uint64_t cuda_plan_need(const cuda_plan_in *in, unsigned tier);
/* The plan's inputs for a partition of shape sh (capacity.c: no assignment at hand;
 * the domain's size stands for its constraint count, which it bounds). */
void cuda_plan_input_shape(const sp_partition_shape *sh, bool resident, int sm_count,
                           cuda_plan_in *in);
unsigned cuda_plan_tiers(void);
/* Candidate `tier` (at most the last) for in's sizes, whatever it needs. */
void cuda_plan_tier(const cuda_plan_in *in, unsigned tier, cuda_plan *out);
/* Points of vector vec (V_*) that tail.c takes at a time: the plan's chunk when
 * streamed (G2: as many bytes, rounded to whole bitmap words), res_chunk for a resident
 * set's L, A and B; 0: the whole vector in one piece. */
size_t cuda_plan_item_points(const cuda_plan *p, bool resident, int vec);
/* Bytes of each of the ring's device buffers (slots): room for any streamed piece. */
uint64_t cuda_plan_slot_bytes(const cuda_plan *p);
/* The bytes every plan keeps for NTT tables and small words (part of its need). */
uint64_t cuda_plan_margin(unsigned log_domain);
void cuda_plan_describe(const cuda_plan *p, char *out, size_t len);

/* ---- uploads (upload.c) ---- */
typedef struct cuda_up cuda_up;
/* Where an upload's source is: the host's pageable memory (through the ring of
 * page-locked chunks), page-locked memory, or the device (a staged partition). */
enum { UP_HOST = 0, UP_PINNED = 1, UP_DEVICE = 2 };
/* Starts an execute's uploads: the thread, a team of threads - 1 copy threads, the
 * chunks (two staging's worth of the provider's pool; none to be had: pageable). */
int cuda_up_open(cuda_dev *d, unsigned threads, cuda_up **out, char *err, size_t errlen);
/* Queues dst <- src (bytes). after: an event recorded on the compute stream after the
 * last use of dst, or NULL (a fresh buffer: EV_ALLOC). *req names it for cuda_up_wait. */
int cuda_up_push(cuda_up *u, void *dst, const void *src, size_t bytes, int kind,
                 sp_gpu_event *after, uint64_t *req, char *err, size_t errlen);
/* The compute stream and the host wait for request req to land; *waited_ms (may be
 * NULL) gets the host's wait added (the upload stage's). Waiting for a request implies
 * every earlier one (one transfer stream, in order). */
int cuda_up_wait(cuda_up *u, uint64_t req, double *waited_ms, char *err, size_t errlen);
/* The host waits until everything queued is on the device (before buffers are freed
 * on an error path); the first error of any upload. */
int cuda_up_drain(cuda_up *u, char *err, size_t errlen);
/* Drains, stops the threads, gives the chunks back and adds the bytes to the device's
 * PCIe counter. NULL is ignored. */
int cuda_up_close(cuda_up *u, char *err, size_t errlen);
uint64_t cuda_up_pcie_bytes(cuda_up *u);

/* One execute's state (engine_cuda.c sets it up, pipeline.c runs the partition). */
typedef struct xctx {
  cuda_dev *d;
  sp_gpu *g;
  unsigned cpu_threads;
  bool allow_resident;
  size_t chunk_cap;   /* an out-of-memory retry's chunk size (0: the plan's) */
  unsigned min_tier;  /* an out-of-memory retry's first plan candidate */
  cuda_resident *res; /* NULL: stream */
  cuda_prefix *pre;   /* streamed: the points kept on the device, or NULL */
  cuda_plan plan;
  uint64_t pool_cap; /* pool bytes this execute may reach (MSM scratch sizes to it) */
  uint64_t held;     /* device bytes held outside the pool (resident sets, staging) */
  cuda_up *up;
  sp_cuda_timings *tm;
  void *early_a;   /* a, already on the device (early upload), or NULL */
  const sp_cs *cs; /* witness-only partition: a, b, c made here from the witness */
} xctx;

/* ---- stages (util/stage.h) ----
 * A stage's host time, the figure `bench gpu` prints for it (sp_cuda_timings), and the
 * stage a tracer tags the thread's GPU work with: cuda_stage_in enters it,
 * cuda_stage_out adds the time since to *ms (NULL: to none) and gives the thread its
 * previous stage back. A stage left by an error path stays the thread's until the
 * next one is entered (execute's own leaves it at its end). */
typedef struct cuda_stage_mark {
  double t0;
  unsigned prev;
} cuda_stage_mark;
static inline cuda_stage_mark cuda_stage_in(unsigned stage) {
  cuda_stage_mark m = {sp_now_ms(), sp_gpu_stage_set(stage)};
  return m;
}
static inline void cuda_stage_out(cuda_stage_mark m, double *ms) {
  if (ms) *ms += sp_now_ms() - m.t0;
  (void)sp_gpu_stage_set(m.prev);
}

/* ---- engine_cuda.c ---- */
/* Host memory the device holds page-locked, and the module's counters for it. */
void cuda_host_memory(void *dev, sp_cuda_host_memory *out);

/* ---- staging.c ---- */
void cuda_chunk_pool_hold(cuda_dev *d);
void cuda_chunk_pool_drop(cuda_dev *d);
void cuda_prep_sources_pageable(cuda_prep *p, const sealprov_assignment *asg);
int cuda_prepare(void *dev, const sp_task *t, void **prep, char *err, size_t errlen);
void cuda_release(void *dev, void *prep);
bool cuda_early_room(cuda_dev *d, size_t vbytes);
typedef struct copy_seg {
  void *dst;
  const void *src;
  size_t n;
} copy_seg;
void cuda_parallel_copy(const copy_seg *seg, int nseg, unsigned nthreads);

/* ---- residency.c ---- */
void cuda_drop_all(cuda_dev *d);
size_t cuda_srs_bytes(const sp_srs *s);
void cuda_srs_vectors(const sp_srs *s, const void *p[V_COUNT], size_t bytes[V_COUNT]);
cuda_resident *cuda_find_resident(const cuda_dev *d, const sp_srs *srs);
uint64_t cuda_resident_bytes(const cuda_dev *d);
bool cuda_room_for_copy(cuda_dev *d, uint64_t in_use, uint64_t need, uint64_t work);
int cuda_get_resident(cuda_dev *d, const sp_srs *srs, cuda_resident **out, double *ms,
                      uint64_t *pcie, char *err, size_t errlen);
void cuda_drop_resident(cuda_dev *d, const sp_srs *srs);
/* Streamed sets: the prefix of srs kept on d, or NULL (under d->mu); one made now in up
 * to `bytes` of device memory (L's first points, then A's, B's and H's, each a multiple
 * of `align` points), uploaded once (bytes added to *pcie, time to *ms). No room is no
 * prefix (OK); only a device fault is an error. Device lock held. cuda_drop_resident
 * drops it too. */
cuda_prefix *cuda_find_prefix(const cuda_dev *d, const sp_srs *srs);
int cuda_make_prefix(cuda_dev *d, const sp_srs *srs, uint64_t bytes, size_t align,
                     cuda_prefix **out, uint64_t *pcie, double *ms, char *err, size_t errlen);
/* The fixed-base table of a resident set's h (msm_precompute), made once when the mode
 * and the cost model allow it; device lock held. Only a device fault is an error. */
int cuda_make_tables(cuda_dev *d, cuda_resident *r, const sp_srs *srs, sp_cuda_timings *tm,
                     char *err, size_t errlen);
/* Drops srs's table on d, keeping its points; none is made again for it. True if one
 * was dropped. */
bool cuda_drop_table(cuda_dev *d, const sp_srs *srs);

/* ---- capacity.c ---- */
/* What a partition of shape sh needs on a device (sp_capacity without `available`,
 * which the caller fills), from the plan's candidates: with `workers` workers,
 * `sm_count` multiprocessors (the MSM's run records scale with it; 0: unknown, the
 * most records) and msm_precompute as configured (sp_device_cfg.msm_precompute). Pure
 * arithmetic. */
void cuda_capacity_model(const sp_partition_shape *sh, unsigned workers, unsigned sm_count,
                         uint64_t precompute_cfg, sp_capacity *out);

/* ---- code.c ---- */
/* At a worker's bind (the thread bound to d's device): does this module carry code the
 * device can run? OK with d->code set ("sm_86", "compute_121 (JIT)"); UNSUPPORTED with
 * a message that names the GPU, its compute capability, the architectures this build
 * has and the configure option (--with-cuda-arch) that adds one; DEVICE otherwise. */
int cuda_code_check(cuda_dev *d, char *err, size_t errlen);
/* The CUDA list of configure (SP_CUDA_ARCHS) as "sm_80, sm_86" plus "; PTX compute_90". */
void cuda_code_built(char *out, size_t len);
/* sp_engine_ops.device_code: d->code (no device call). */
void cuda_device_code(void *dev, char *out, size_t len);

/* ---- pipeline.c ---- */
/* One partition's device buffers, results and sizes (prove_partition frees the buffers
 * on every path). */
typedef struct part_t {
  const sp_task *t;
  const cuda_prep *src;
  int src_kind; /* UP_*: where the assignment is (staged on the device, pinned, pageable) */
  size_t m, nabc, ninp, naux, vbytes, bmb[3];
  void *abc[3], *inp, *aux; /* abc[0] ends as H's coefficients */
  uint64_t *bm[3];
  uint32_t *idx_a, *idx_b; /* A's aux indices; B's input indices, then its aux indices */
  size_t n_bi;             /* B's inputs */
  bool rest_queued;        /* inp, aux and bitmaps queued for upload (request rest_req) */
  uint64_t rest_req;
  sp_cs_eval *host_ev; /* witness-only fallback: a, b, c made on the host */
  g1_jac_t h_acc, l_acc, a_acc, b1_acc;
  g2_jac_t b2_acc;
} part_t;

void cuda_early_drop(cuda_dev *d);
void *cuda_early_take(cuda_dev *d, const cuda_prep *prep);
int cuda_prove_partition(xctx *x, const sp_task *t, const cuda_prep *src, uint8_t proof[192],
                         char *err, size_t errlen);
/* inp, aux and the bitmaps: their buffers, and their uploads queued (once). */
int cuda_queue_rest(xctx *x, part_t *p, char *err, size_t errlen);

/* ---- tail.c ---- */
/* After H (and cuda_queue_rest): inp and aux decoded (canonical) and range-checked, the
 * indices of A's and B's scalars from the density bitmaps, which are then freed. */
int cuda_tail_prep(xctx *x, part_t *p, char *err, size_t errlen);
/* The MSMs and batch additions over chunks of points (resident, or streamed through the
 * plan's ring): H's (with_h) into p->h_acc, L's, A's, B's (with_tail) into their sums;
 * both together in the plan's interleaved order, when it has one. */
int cuda_msm_run(xctx *x, part_t *p, bool with_h, bool with_tail, char *err, size_t errlen);
/* Device bytes an MSM may allocate now: what the execute's pool_cap leaves (0: no cap). */
uint64_t cuda_msm_cap(const xctx *x);

#endif
