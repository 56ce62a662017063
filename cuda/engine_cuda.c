/* engine_cuda.c -- the CUDA engine behind engine.h: one partition proved on one GPU.
 *
 * Plain C11 on top of the C boundary of the kernels (sp_gpu.h): srs.h uses C11
 * atomics, which C++ does not have, and nothing here needs C++.
 *
 * Device state lives in the engine's device handle: one sp_gpu context (two streams,
 * memory pool, NTT tables), created by the first worker thread that binds (after
 * cudaSetDevice + cudaGetDevice confirmed the ordinal) and destroyed by the last one
 * that unbinds, so every CUDA call that touches it runs on a thread bound to this
 * device.
 *
 * Data movement (issue 5 item 1, issue 6 item 4, issue 16 item 3):
 *  - chunked staging (pinned_staging = auto / chunked, the default): prepare (no device
 *    lock) takes a device buffer for the whole partition (one per worker, kept across
 *    tasks; land_take: only with room next to the parameter set and an execute's
 *    working memory) and carries the assignment (a, b, c, inputs, aux, density bitmaps)
 *    into it through a few pinned chunks of the process-wide pool (hostmem.h): the host
 *    fills chunk k + 1 with t->cpu_threads threads while chunk k travels on the
 *    buffer's own transfer stream (sp_gpu_xfer). The chunks go back to the pool when
 *    the partition is on the device, so the module's host memory for staging is the
 *    chunks, whatever the partition size; under [provider] host_memory_limit a prepare
 *    waits for a chunk another one gives back. execute then copies device to device.
 *  - whole-partition staging (pinned_staging = whole or a size, the earlier default):
 *    prepare copies the assignment with t->cpu_threads threads into a pinned staging
 *    buffer taken from a per-device pool (at most one buffer per worker, reused across
 *    tasks, grown when a partition needs more, within the pinned_staging budget and
 *    host_memory_limit).
 *    In either mode, when staging is off or its memory cannot be had, execute reads the
 *    host's pageable memory as before: never a failure.
 *  - execute uploads on the context's copy stream, ordered against the compute stream
 *    by events: a, b and c one after another (decoding a while b and c travel), the
 *    inputs, aux and bitmaps while the H pipeline runs.
 *  - Parameter points of each sp_srs stay resident on the device while the memory
 *    budget allows (evicted by srs_evict). Otherwise they are streamed: the vectors are
 *    page-locked once per set (cudaHostRegister; a pinned bounce buffer when that
 *    fails) and every MSM / batch addition runs over chunks of points, chunk k + 1
 *    uploading while chunk k is processed; the partial sums are added on the host (the
 *    MSM is linear in the points).
 *  - An out-of-memory in execute frees what the attempt held, waits briefly and retries
 *    with parameter streaming in smaller chunks before it reports DEVICE_MEMORY.
 *
 * Lifetimes: every transfer out of a staging or bounce buffer completes before execute
 * returns (both streams are synchronised on every exit), so release may hand the
 * staging buffer to the next task. Device memory is allocated and freed in the compute
 * stream's order; the copy stream waits for an event recorded after the allocations,
 * and the compute stream waits for the copy stream (sp_gpu_join_copy) before any free.
 *
 * execute() runs with the device lock held: H pipeline and MSMs on the device, the
 * final few point operations (Horner over the window sums, A/B/C assembly,
 * compression) on the host with the CPU library. The group elements are those of
 * sp_groth16_prove, so with the same r and s the 192 bytes are identical.
 */
#include <config.h> /* autoconf's (first through -I.): HAVE_CUDA declares sp_engine_cuda */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sp_gpu.h" /* first: hides <math.h>'s FP_ZERO from bls12_381.h */
#include "sp_gpu_cs.h"
#include "../plugin/config.h" /* sp_device_cfg (not autoconf's config.h) */
#include "cs.h"
#include "engine.h"
#include "engine_cuda.h"
#include "groth16.h"
#include "hostmem.h"
#include "log.h"
#include "srs.h"
#include "util.h" /* SP_TRY_GOTO */

/* Device memory a partition needs besides the parameter points, on top of its three
 * domain-sized vectors: MSM sort buffers (about 4 GiB per window batch), buckets,
 * scalars. Used to decide whether a parameter set may stay resident. */
#define SP_SCRATCH_RESERVE (10ull << 30)

/* A partition's working memory with `vectors` domain-sized vectors of vbytes: three
 * for residency (a, b, c), four where an early-uploaded a is held besides. */
static uint64_t work_bytes(size_t vbytes, unsigned vectors) {
  return (uint64_t)vectors * vbytes + SP_SCRATCH_RESERVE;
}

/* Points per chunk when parameters are streamed: 2^24 G1 points are 1.6 GB per buffer
 * (two buffers), large enough that an MSM chunk keeps the GPU busy (~220 ms on the
 * H200) while the next one uploads (~60 ms at PCIe 5 rates). */
#define SP_STREAM_CHUNK_DEFAULT ((size_t)1 << 24)

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
static const size_t oom_ladder[SP_OOM_RETRIES] = {(size_t)1 << 24, (size_t)1 << 22,
                                                  (size_t)1 << 20};

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

/* Page-locked parameter vectors of a streamed set. */
typedef struct cuda_hostreg {
  const sp_srs *srs;
  void *ptr[V_COUNT];
  size_t bytes[V_COUNT];
  bool usable[V_COUNT]; /* registered (by us or another device): async uploads */
  bool owned[V_COUNT];  /* holds a reference in the process-wide registry (below) */
  struct cuda_hostreg *next;
} cuda_hostreg;

typedef struct stage_buf {
  void *p;
  size_t cap;
  bool busy;
  sp_gpu_xfer *x; /* chunked staging: the transfer stream of this device buffer */
} stage_buf;

/* Staging modes (sp_device_cfg.pinned_staging, sp_engine_cuda_set_staging). */
enum { STAGE_OFF = SP_STAGING_OFF, STAGE_WHOLE = SP_STAGING_WHOLE, STAGE_CHUNKED = SP_STAGING_CHUNKED };

/* Chunked staging: chunks of this size from the process-wide pool (hostmem.h), this
 * many per partition being staged. SP_GPU_STAGE_CHUNK_MIB and SP_GPU_STAGE_CHUNKS
 * change them (benchmarks). */
#define SP_CHUNK_BYTES_DEFAULT ((size_t)128 << 20)
#define SP_CHUNKS_DEFAULT 4

/* Events of one execute (device lock held: one user at a time). */
enum {
  EV_ALLOC, EV_A, EV_B, EV_C, EV_REST, EV_LOADED0, EV_LOADED1, EV_FREED0, EV_FREED1, EV_EARLY,
  EV_COUNT
};

struct cuda_prep;

/* A constraint system kept on a device for witness-only partitions (cuda/spmv.cu), made
 * at its first partition there, dropped by cs_evict when the system is freed. */
typedef struct cuda_cs_res {
  const sp_cs *cs;
  sp_gpu_cs *g;
  uint64_t bytes;
  struct cuda_cs_res *next;
} cuda_cs_res;

typedef struct cuda_dev {
  unsigned index;
  sp_hostmem *hm;      /* the provider's accountant (sp_device_cfg.hostmem), or own_hm */
  sp_hostmem *own_hm;  /* made at open when the caller passed none (tests, benchmarks) */
  bool pool_held;      /* holds a reference on hm's staging pool (first bind .. last unbind) */
  char section[64];
  int ordinal;
  uint64_t memory_limit;
  uint64_t pinned_cfg; /* sp_device_cfg.pinned_staging as configured */
  int stage_mode;      /* STAGE_*, from pinned_cfg (sp_engine_cuda_set_staging changes it) */
  /* chunked staging: one device buffer per worker for a partition's vectors (the
   * "landing"), filled through chunks of the shared pool; device bytes they hold */
  stage_buf land[SP_MAX_WORKERS];
  uint64_t land_bytes;
  unsigned chunks_per_stage;
  unsigned workers;
  pthread_mutex_t mu;  /* gpu creation, bound count, resident/registered lists, staging
                          pool, timings, knobs */
  sp_gpu *gpu;
  unsigned bound;
  cuda_resident *res;
  cuda_hostreg *reg;
  cuda_cs_res *cs_res;  /* constraint systems on this device (under mu) */
  bool cs_host;         /* SP_GPU_CS=host: witness-only a, b, c on the host (A/B runs) */
  sp_cuda_timings last;
  /* pinned staging pool */
  uint64_t pinned_budget; /* resolved at first bind; 0 = off */
  uint64_t pinned_bytes;  /* held (or being allocated) by the pool */
  stage_buf stage[SP_MAX_WORKERS];
  /* execute-only state (device lock held) */
  sp_gpu_event *ev[EV_COUNT];
  void *bounce;           /* pinned, 2 chunks, for unregistered parameter vectors */
  size_t bounce_cap;
  uint64_t registered_bytes;
  /* knobs (sp_engine_cuda_set_streaming) */
  bool force_stream;
  size_t stream_chunk;
  /* Early upload of a (under mu). A partition staged while another executes here asks
   * for it (early_want); the executing one hands over a vector buffer it is done with
   * and sends the waiting partition's a into it on the copy stream, where it travels
   * during the rest of its work (early_buf, for early_owner). The next execute of
   * early_owner starts with a on the device instead of waiting ~80 ms for it at 2^27.
   * early_owner NULL with early_buf set: orphaned (its partition was released without
   * executing); the next execute frees it. */
  int early_mode;                /* SP_EARLY_* (sp_engine_cuda_set_early; SP_GPU_EARLY_UPLOAD) */
  /* Fixed-base tables (sp_device_cfg.msm_precompute: 0 auto, SP_MSM_PRECOMPUTE_OFF, or
   * bytes) and their use (SP_TABLES_*, sp_engine_cuda_set_tables; under mu). */
  uint64_t precompute_cfg;
  int tables_mode;
  bool tables_oom; /* an out-of-memory retry met a table: none are made any more */
  bool no_check_buffer;          /* tests: the a*b = c pre-check without its product buffer */
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
} cuda_dev;


/* ---- the provider's chunk pool (chunked staging) ----------------------------------
 * One pool for every device of the provider (hostmem.h: sp_hostmem_pool_hold): pinned
 * memory is allocated portable (sp_gpu_host_alloc), so a chunk serves any device. Held
 * from a device's first bind to its last unbind (no partition is staged then). */
static void *chunk_alloc(size_t bytes, void *user) {
  void *p = NULL;
  char e[256];
  return sp_gpu_host_alloc(*(const int *)user, &p, bytes, e, sizeof e) == SEALPROV_OK ? p : NULL;
}
static void chunk_free(void *p, void *user) { sp_gpu_host_free(*(const int *)user, p); }

static size_t env_size(const char *name, size_t dflt, size_t lo, size_t hi) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  char *end = NULL;
  unsigned long long x = strtoull(v, &end, 10);
  if (!end || *end || x < lo || x > hi) return dflt;
  return (size_t)x;
}

static void chunk_pool_hold(cuda_dev *d) {
  size_t mib = env_size("SP_GPU_STAGE_CHUNK_MIB", SP_CHUNK_BYTES_DEFAULT >> 20, 1, 4096);
  (void)sp_hostmem_pool_hold(d->hm, mib << 20, chunk_alloc, chunk_free);
  d->pool_held = true; /* a NULL pool: chunked staging then stages without chunks */
}

static void chunk_pool_drop(cuda_dev *d) {
  if (!d->pool_held) return;
  int ordinal = d->ordinal;
  sp_hostmem_pool_drop(d->hm, &ordinal);
  d->pool_held = false;
}

static int stage_mode_of(uint64_t cfg) {
  return cfg == SP_PINNED_STAGING_OFF ? STAGE_OFF
         : cfg == 0 || cfg == SP_PINNED_STAGING_CHUNKED ? STAGE_CHUNKED
                                                         : STAGE_WHOLE;
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static int cuda_device_open(const struct sp_device_cfg *cfg, void **dev, char *err, size_t errlen) {
  /* No CUDA call here: this runs on the provider's thread, whose current device must
   * not change. */
  if (!cfg || cfg->ordinal < 0) {
    snprintf(err, errlen, "cuda device %s: no resolved ordinal", cfg ? cfg->section : "(null)");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  cuda_dev *d = calloc(1, sizeof *d);
  if (!d) {
    snprintf(err, errlen, "cuda device [%s]: out of host memory", cfg->section);
    return SEALPROV_ERR_NO_MEMORY;
  }
  d->index = cfg->index;
  d->hm = cfg->hostmem;
  if (!d->hm) {
    if (sp_hostmem_create(0, &d->own_hm) != SEALPROV_OK) {
      free(d);
      snprintf(err, errlen, "cuda device [%s]: out of host memory", cfg->section);
      return SEALPROV_ERR_NO_MEMORY;
    }
    d->hm = d->own_hm;
  }
  snprintf(d->section, sizeof d->section, "%s", cfg->section);
  d->ordinal = cfg->ordinal;
  d->memory_limit = cfg->memory_limit;
  d->pinned_cfg = cfg->pinned_staging;
  d->stage_mode = stage_mode_of(cfg->pinned_staging);
  d->chunks_per_stage = (unsigned)env_size("SP_GPU_STAGE_CHUNKS", SP_CHUNKS_DEFAULT, 1, 16);
  d->workers = cfg->workers ? cfg->workers : 2;
  {
    const char *e = getenv("SP_GPU_EARLY_UPLOAD"); /* benchmarks: 0 off, 1 handoff only */
    d->early_mode = e && *e >= '0' && *e <= '2' ? *e - '0' : SP_EARLY_ALL;
    const char *c = getenv("SP_GPU_CS"); /* benchmarks: "host" = the host's SpMV */
    d->cs_host = c && strcmp(c, "host") == 0;
  }
  if (d->workers > SP_MAX_WORKERS) d->workers = SP_MAX_WORKERS;
  d->precompute_cfg = cfg->msm_precompute;
  d->tables_mode = SP_TABLES_AUTO;
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->cv, NULL);
  *dev = d;
  return SEALPROV_OK;
}

static void free_resident(cuda_dev *d, cuda_resident *r) {
  void *p[5] = {r->h, r->l, r->a, r->b1, r->b2};
  sp_gpu_msm_table_free(d->ordinal, &r->tab_h);
  for (int i = 0; i < 5 && !r->borrowed; i++)
    if (p[i]) sp_gpu_free_persistent(d->ordinal, p[i]);
  free(r);
}

/* Process-wide registry of the parameter vectors we page-locked. A portable
 * registration serves every device, so one device must not unregister a vector that
 * another device still streams from (at provider close, one device's last worker can
 * unbind while another device finishes its last task): each device holds a
 * reference, and the last one unregisters. */
typedef struct reg_entry {
  void *ptr;
  size_t bytes;
  unsigned refs;
  struct reg_entry *next;
} reg_entry;
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static reg_entry *reg_list;

/* Page-locks [p, p + bytes) for streaming, or takes a reference on our earlier
 * registration of it. *ref: a reference was taken (release it with reg_release).
 * Returns true if the range is usable for async copies. */
static bool reg_acquire(int ordinal, void *p, size_t bytes, bool *ref) {
  *ref = false;
  pthread_mutex_lock(&reg_mu);
  for (reg_entry *e = reg_list; e; e = e->next)
    if (e->ptr == p && e->bytes == bytes) {
      e->refs++;
      *ref = true;
      pthread_mutex_unlock(&reg_mu);
      return true;
    }
  bool owned = false;
  char err[256];
  bool ok = sp_gpu_host_register(ordinal, p, bytes, &owned, err, sizeof err) == SEALPROV_OK;
  if (ok && owned) {
    reg_entry *e = calloc(1, sizeof *e);
    if (e) {
      e->ptr = p;
      e->bytes = bytes;
      e->refs = 1;
      e->next = reg_list;
      reg_list = e;
      *ref = true;
    } else {
      sp_gpu_host_unregister(ordinal, p); /* cannot track it: do not keep it */
      ok = false;
    }
  }
  pthread_mutex_unlock(&reg_mu);
  return ok;
}

static void reg_release(int ordinal, void *p) {
  pthread_mutex_lock(&reg_mu);
  for (reg_entry **pp = &reg_list; *pp; pp = &(*pp)->next)
    if ((*pp)->ptr == p) {
      reg_entry *e = *pp;
      if (--e->refs == 0) {
        *pp = e->next;
        sp_gpu_host_unregister(ordinal, p);
        free(e);
      }
      break;
    }
  pthread_mutex_unlock(&reg_mu);
}

/* Drops this device's references. Called with no transfer of this device in flight
 * (srs_evict: the set has no users; teardown: no task of this device runs). */
static void free_hostreg(cuda_dev *d, cuda_hostreg *r) {
  for (int v = 0; v < V_COUNT; v++)
    if (r->owned[v]) reg_release(d->ordinal, r->ptr[v]);
  free(r);
}

/* Frees every resident set, registration, staging and bounce buffer and the events;
 * the calling thread must be bound to d's device, and no task may be running. */
static void drop_all(cuda_dev *d) {
  if (d->early_buf) sp_gpu_free(d->gpu, d->early_buf, d->early_bytes);
  d->early_buf = NULL;
  d->early_owner = d->early_want = NULL;
  while (d->res) {
    cuda_resident *r = d->res;
    d->res = r->next;
    free_resident(d, r);
  }
  while (d->reg) {
    cuda_hostreg *r = d->reg;
    d->reg = r->next;
    free_hostreg(d, r);
  }
  while (d->cs_res) {
    cuda_cs_res *c = d->cs_res;
    d->cs_res = c->next;
    sp_gpu_cs_free(c->g);
    free(c);
  }
  d->registered_bytes = 0;
  for (unsigned i = 0; i < SP_MAX_WORKERS; i++) {
    if (d->stage[i].p) {
      sp_gpu_host_free(d->ordinal, d->stage[i].p);
      sp_hostmem_release(d->hm, d->index, d->stage[i].cap);
    }
    memset(&d->stage[i], 0, sizeof d->stage[i]);
    if (d->land[i].p) sp_gpu_free_persistent(d->ordinal, d->land[i].p);
    sp_gpu_xfer_destroy(d->land[i].x);
    memset(&d->land[i], 0, sizeof d->land[i]);
  }
  d->pinned_bytes = 0;
  d->land_bytes = 0;
  if (d->bounce) {
    sp_gpu_host_free(d->ordinal, d->bounce);
    sp_hostmem_release(d->hm, d->index, d->bounce_cap);
  }
  d->bounce = NULL;
  d->bounce_cap = 0;
  for (int i = 0; i < EV_COUNT; i++) {
    sp_gpu_event_destroy(d->gpu, d->ev[i]);
    d->ev[i] = NULL;
  }
}

static void cuda_device_close(void *dev) {
  cuda_dev *d = dev;
  if (!d) return;
  /* Workers destroyed the context and freed the pinned buffers when the last one
   * unbound; if a worker never got that far (failed bind), nothing was created. */
  pthread_mutex_destroy(&d->mu);
  pthread_cond_destroy(&d->cv);
  sp_hostmem_destroy(d->own_hm);
  free(d);
}

/* pinned_staging = auto: half of the host's physical memory, shared equally among the
 * GPUs this process sees (a 2^27 partition stages 16.7 GB per worker). */
static uint64_t auto_pinned_budget(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psz <= 0) return 0;
  int n = sp_gpu_device_count();
  if (n < 1) n = 1;
  return (uint64_t)pages * (uint64_t)psz / 2 / (uint64_t)n;
}

static int cuda_worker_bind(void *dev, unsigned worker, int *confirmed_ordinal, char *err,
                            size_t errlen) {
  cuda_dev *d = dev;
  int confirmed = -1;
  int st = sp_gpu_bind(d->ordinal, &confirmed, err, errlen);
  if (confirmed_ordinal) *confirmed_ordinal = confirmed;
  if (st) {
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", err);
    snprintf(err, errlen, "cuda device [%s] worker %u: %s", d->section, worker, tmp);
    return st;
  }
  pthread_mutex_lock(&d->mu);
  if (!d->gpu) {
    st = sp_gpu_create(d->ordinal, d->memory_limit, &d->gpu, err, errlen);
    for (int i = 0; !st && i < EV_COUNT; i++) st = sp_gpu_event_create(d->gpu, &d->ev[i], err, errlen);
    if (st && d->gpu) {
      for (int i = 0; i < EV_COUNT; i++) {
        sp_gpu_event_destroy(d->gpu, d->ev[i]);
        d->ev[i] = NULL;
      }
      sp_gpu_destroy(d->gpu);
      d->gpu = NULL;
    }
    if (!st) {
      /* whole-partition staging: the configured budget, or auto (half the host's
       * memory shared among the GPUs) for `whole` and for the chunked mode's
       * sp_engine_cuda_set_staging(dev, STAGE_WHOLE) */
      d->pinned_budget = d->pinned_cfg == SP_PINNED_STAGING_OFF ? 0
                         : d->pinned_cfg && d->pinned_cfg < SP_PINNED_STAGING_CHUNKED
                             ? d->pinned_cfg
                             : auto_pinned_budget();
      chunk_pool_hold(d);
    }
  }
  if (!st) d->bound++;
  pthread_mutex_unlock(&d->mu);
  return st;
}

static void cuda_worker_unbind(void *dev, unsigned worker) {
  (void)worker;
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  if (d->bound > 0 && --d->bound == 0 && d->gpu) {
    /* last worker of this device: this thread is bound to it, so device memory, pinned
     * buffers and the streams can go here */
    char e[64];
    (void)sp_gpu_sync_all(d->gpu, e, sizeof e);
    drop_all(d);
    sp_gpu_destroy(d->gpu);
    d->gpu = NULL;
    chunk_pool_drop(d);
  }
  pthread_mutex_unlock(&d->mu);
}

/* ---- pinned staging (prepare) ----------------------------------------------------- */

/* Where execute reads the assignment from: the staging buffer or the host's memory. */
typedef struct cuda_prep {
  stage_buf *buf; /* NULL: pageable (the host's own arrays) */
  stage_buf *land; /* chunked staging: the sources are this device buffer */
  uint64_t cs_bytes; /* host bytes of cs_eval's a, b, c (counted in hostmem) */
  const void *abc[3], *inp, *aux;
  const uint64_t *bm[3]; /* a_aux, b_inp, b_aux */
  double prepare_ms;
  size_t vbytes, a_bytes; /* device size of a (2^log_domain elements), bytes of a staged */
  sp_cs_eval *cs_eval;    /* witness-only partition: a, b, c computed on the host (cs.h) */
  /* Witness-only partition whose a, b, c execute computes on the device (spmv.cu):
   * wasg is the task's assignment with a, b, c NULL and the system's densities. */
  bool gpu_cs;
  sealprov_assignment wasg;
} cuda_prep;

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

static size_t bitmap_bytes(uint64_t bits) { return (size_t)((bits + 63) / 64) * 8; }

typedef struct copy_seg {
  void *dst;
  const void *src;
  size_t n;
} copy_seg;

/* Segments of the assignment in staging order, with their offsets in the buffer. */
static size_t stage_layout(const sealprov_assignment *asg, copy_seg seg[8], uint8_t *base) {
  const void *src[8] = {asg->a, asg->b, asg->c, asg->inp_assignment, asg->aux_assignment,
                        asg->a_aux_density, asg->b_inp_density, asg->b_aux_density};
  size_t len[8] = {(size_t)asg->abc_size * 32, (size_t)asg->abc_size * 32,
                   (size_t)asg->abc_size * 32, (size_t)asg->inp_size * 32,
                   (size_t)asg->aux_size * 32, bitmap_bytes(asg->a_aux_bit_len),
                   bitmap_bytes(asg->b_inp_bit_len), bitmap_bytes(asg->b_aux_bit_len)};
  for (int i = 0; i < 3; i++)
    if (!src[i]) len[i] = 0; /* a witness-only partition: a, b, c are made on the device */
  size_t off = 0;
  for (int i = 0; i < 8; i++) {
    seg[i].dst = base ? base + off : NULL;
    seg[i].src = src[i];
    seg[i].n = src[i] ? len[i] : 0;
    off = align_up(off + seg[i].n, SP_STAGE_ALIGN);
  }
  return off;
}

typedef struct copy_ctx {
  const copy_seg *seg;
  int nseg;
} copy_ctx;

/* bls_range_fn: copies bytes [begin, end) of the concatenated segments. */
static void copy_range(void *vctx, size_t begin, size_t end, unsigned chunk) {
  (void)chunk;
  const copy_ctx *c = vctx;
  size_t base = 0;
  for (int i = 0; i < c->nseg && base < end; i++) {
    size_t s0 = base, s1 = base + c->seg[i].n;
    base = s1;
    size_t lo = begin > s0 ? begin : s0, hi = end < s1 ? end : s1;
    if (lo < hi)
      memcpy((uint8_t *)c->seg[i].dst + (lo - s0), (const uint8_t *)c->seg[i].src + (lo - s0),
             hi - lo);
  }
}

/* Copies the segments with up to nthreads threads (equal byte ranges; a thread that
 * cannot be started leaves its range to the calling thread: bls_parallel_for). */
static void parallel_copy(const copy_seg *seg, int nseg, unsigned nthreads) {
  size_t total = 0;
  for (int i = 0; i < nseg; i++) total += seg[i].n;
  if (nthreads < 1) nthreads = 1;
  /* below ~8 MiB per thread, starting threads costs more than it saves */
  while (nthreads > 1 && total / nthreads < ((size_t)8 << 20)) nthreads--;
  copy_ctx c = {seg, nseg};
  (void)bls_parallel_for(total, nthreads, copy_range, &c);
}

/* Among a worker pool's n free slots (under d->mu): the smallest buffer of at least
 * need bytes, taken (busy); else NULL, with *empty the first slot without a buffer and
 * *largest the largest free buffer (the candidates to make or regrow one). */
static stage_buf *slot_pick(stage_buf *slots, unsigned n, size_t need, stage_buf **empty,
                            stage_buf **largest) {
  stage_buf *fit = NULL;
  for (unsigned i = 0; i < n; i++) {
    stage_buf *b = &slots[i];
    if (b->busy) continue;
    if (b->p && b->cap >= need && (!fit || b->cap < fit->cap)) fit = b;
    if (!b->p && !*empty) *empty = b;
    if (b->p && (!*largest || b->cap > (*largest)->cap)) *largest = b;
  }
  if (fit) fit->busy = true;
  return fit;
}

/* A staging buffer of at least need bytes from the device's pool, or NULL (pageable
 * path) when staging is off, over budget, every slot is busy, or pinned memory cannot
 * be had. Never an error. */
static stage_buf *stage_take(cuda_dev *d, size_t need) {
  pthread_mutex_lock(&d->mu);
  if (d->pinned_budget == 0) {
    pthread_mutex_unlock(&d->mu);
    return NULL;
  }
  stage_buf *empty = NULL, *largest = NULL;
  stage_buf *fit = slot_pick(d->stage, d->workers, need, &empty, &largest);
  if (fit) {
    pthread_mutex_unlock(&d->mu);
    return fit;
  }
  size_t want = align_up(need, SP_STAGE_ROUND);
  /* a new buffer in an empty slot (one per worker), or else the largest free buffer
   * grown (its old memory goes), within the budget */
  stage_buf *grow = NULL;
  if (empty && d->pinned_bytes + want <= d->pinned_budget) grow = empty;
  else if (largest && d->pinned_bytes - largest->cap + want <= d->pinned_budget) grow = largest;
  /* the host-wide cap (host_memory_limit): a whole-partition buffer cannot wait for
   * room (it is kept across tasks), so over the cap the partition is uploaded from
   * the host's memory instead */
  if (grow && !sp_hostmem_try_reserve(d->hm, d->index, want)) grow = NULL;
  if (!grow) {
    pthread_mutex_unlock(&d->mu);
    return NULL;
  }
  void *old = grow->p;
  if (old) sp_hostmem_release(d->hm, d->index, grow->cap);
  d->pinned_bytes = d->pinned_bytes - grow->cap + want; /* reserved while allocating */
  grow->busy = true;
  grow->p = NULL;
  grow->cap = 0;
  pthread_mutex_unlock(&d->mu);
  /* Outside the lock: page-locking gigabytes takes a while. (cudaFreeHost may wait for
   * the device; growth happens only for the first, or a larger, partition.) */
  if (old) sp_gpu_host_free(d->ordinal, old);
  void *p = NULL;
  char e[256];
  int st = sp_gpu_host_alloc(d->ordinal, &p, want, e, sizeof e);
  pthread_mutex_lock(&d->mu);
  if (st) {
    d->pinned_bytes -= want;
    grow->busy = false;
    pthread_mutex_unlock(&d->mu);
    sp_hostmem_release(d->hm, d->index, want);
    return NULL;
  }
  grow->p = p;
  grow->cap = want;
  pthread_mutex_unlock(&d->mu);
  return grow;
}

static void stage_give_back(cuda_dev *d, stage_buf *b) {
  if (!b) return;
  pthread_mutex_lock(&d->mu);
  b->busy = false;
  pthread_mutex_unlock(&d->mu);
}

static size_t srs_bytes(const sp_srs *s);
static cuda_resident *find_resident(const cuda_dev *d, const sp_srs *srs);
static uint64_t resident_bytes(const cuda_dev *d);

/* Chunked staging's device buffer for a partition of `need` bytes (a, b, c, inputs,
 * aux, bitmaps), or NULL when the device has no room for it next to the parameter set
 * (resident, or to be made so) and the working memory of an execute with an early
 * upload (work_bytes of five vectors), within memory_limit or else the card's memory
 * (the context pool's cache is counted as free: the pool gives it back when an
 * allocation needs it). One per worker, kept across tasks, grown when a partition
 * needs more. Never an error: without it the partition is uploaded from the host's
 * memory in execute. */
static stage_buf *land_take(cuda_dev *d, size_t need, const sp_srs *srs, size_t vbytes) {
  pthread_mutex_lock(&d->mu);
  stage_buf *empty = NULL, *largest = NULL;
  stage_buf *fit = slot_pick(d->land, d->workers, need, &empty, &largest);
  if (fit) {
    pthread_mutex_unlock(&d->mu);
    return fit;
  }
  stage_buf *grow = empty ? empty : largest;
  size_t want = align_up(need, SP_STAGE_ROUND);
  uint64_t cap = d->memory_limit, free_b = 0, total_b = 0;
  if (!cap && d->gpu && sp_gpu_mem_info(d->gpu, &free_b, &total_b) == SEALPROV_OK) cap = total_b;
  uint64_t other = d->land_bytes - (grow && grow->p ? grow->cap : 0);
  uint64_t params = find_resident(d, srs) ? 0 : srs_bytes(srs);
  uint64_t after = other + want + resident_bytes(d) + params + work_bytes(vbytes, 5);
  if (!grow || !cap || after > cap) {
    pthread_mutex_unlock(&d->mu);
    return NULL;
  }
  void *old = grow->p;
  d->land_bytes = other + want;
  grow->busy = true;
  grow->p = NULL;
  grow->cap = 0;
  pthread_mutex_unlock(&d->mu);
  char e[256];
  if (old) sp_gpu_free_persistent(d->ordinal, old);
  void *p = NULL;
  int st = sp_gpu_dev_alloc(d->ordinal, &p, want, e, sizeof e);
  if (!st && !grow->x) st = sp_gpu_xfer_create(d->ordinal, &grow->x, e, sizeof e);
  pthread_mutex_lock(&d->mu);
  if (st) {
    if (p) sp_gpu_free_persistent(d->ordinal, p);
    d->land_bytes -= want;
    grow->busy = false;
    pthread_mutex_unlock(&d->mu);
    return NULL;
  }
  grow->p = p;
  grow->cap = want;
  pthread_mutex_unlock(&d->mu);
  return grow;
}

/* Copies the segments (host sources, device destinations in b) to the device through
 * chunks of the shared pool: the host fills chunk k + 1 (with nthreads threads) while
 * chunk k travels on b's transfer stream. A segment never shares a chunk with
 * another (destinations are not contiguous). Without a chunk (host_memory_limit, or
 * pinned memory refused) the segments go straight from the host's memory. Returns when
 * every byte is on the device. *waited: the pool made it wait for a chunk. */
static int chunked_upload(cuda_dev *d, stage_buf *b, const copy_seg *seg, int nseg,
                          unsigned nthreads, bool *waited, char *err, size_t errlen) {
  void *ch[16] = {NULL};
  unsigned n = 0;
  *waited = false;
  sp_chunk_pool *pool = sp_hostmem_pool(d->hm);
  int ordinal = d->ordinal;
  if (pool) n = sp_chunk_pool_take(pool, d->index, d->chunks_per_stage, ch, &ordinal, waited);
  if (n > SP_XFER_SLOTS) n = SP_XFER_SLOTS;
  int st = SEALPROV_OK;
  if (n == 0) {
    for (int i = 0; !st && i < nseg; i++)
      st = sp_gpu_xfer_send(b->x, 0, seg[i].dst, seg[i].src, seg[i].n, err, errlen);
  } else {
    const size_t cb = sp_chunk_pool_chunk_bytes(pool);
    unsigned k = 0;
    for (int i = 0; !st && i < nseg; i++)
      for (size_t off = 0; !st && off < seg[i].n; off += cb, k++) {
        unsigned slot = k % n;
        size_t len = seg[i].n - off < cb ? seg[i].n - off : cb;
        if (k >= n) st = sp_gpu_xfer_wait(b->x, slot, err, errlen); /* chunk k - n has left */
        if (st) break;
        copy_seg c = {ch[slot], (const uint8_t *)seg[i].src + off, len};
        parallel_copy(&c, 1, nthreads);
        st = sp_gpu_xfer_send(b->x, slot, (uint8_t *)seg[i].dst + off, ch[slot], len, err,
                              errlen);
      }
  }
  char e2[256];
  int st2 = sp_gpu_xfer_finish(b->x, st ? e2 : err, st ? sizeof e2 : errlen);
  if (!st) st = st2;
  if (n) sp_chunk_pool_give(pool, d->index, n, ch);
  return st;
}

static void prep_sources_pageable(cuda_prep *p, const sealprov_assignment *asg) {
  p->buf = NULL;
  p->abc[0] = asg->a;
  p->abc[1] = asg->b;
  p->abc[2] = asg->c;
  p->inp = asg->inp_assignment;
  p->aux = asg->aux_assignment;
  p->bm[0] = asg->a_aux_density;
  p->bm[1] = asg->b_inp_density;
  p->bm[2] = asg->b_aux_density;
}

/* The resident copy of srs on d, or NULL; bytes of every resident set (under d->mu). */
static cuda_resident *find_resident(const cuda_dev *d, const sp_srs *srs) {
  cuda_resident *r = d->res;
  while (r && r->srs != srs) r = r->next;
  return r;
}
static uint64_t resident_bytes(const cuda_dev *d) {
  uint64_t n = 0;
  for (const cuda_resident *r = d->res; r; r = r->next) n += r->bytes + r->tab_bytes;
  for (const cuda_cs_res *c = d->cs_res; c; c = c->next) n += c->bytes;
  return n;
}

/* Room for an early upload (under d->mu): residency (get_resident) admitted a set with
 * room for three vectors of working memory; holding a fourth between partitions needs
 * that much more, within memory_limit or else the device's memory. Without it the
 * partition uploads a in execute as before. */
static bool early_room(cuda_dev *d, size_t vbytes) {
  uint64_t cap = d->memory_limit;
  if (!cap) {
    uint64_t free_b = 0;
    if (sp_gpu_mem_info(d->gpu, &free_b, &cap) != SEALPROV_OK) return false;
  }
  return resident_bytes(d) + work_bytes(vbytes, 4) <= cap;
}

/* Room for the a*b = c pre-check's product buffer (execute, device lock held) next to
 * the three vectors and an early-uploaded a that may be held: with resident or
 * streamed parameters alike, the device must keep work_bytes for one vector more. */
static bool check_room(cuda_dev *d, size_t vbytes) {
  uint64_t cap = d->memory_limit, free_b = 0;
  if (!cap && sp_gpu_mem_info(d->gpu, &free_b, &cap) != SEALPROV_OK) return false;
  pthread_mutex_lock(&d->mu);
  bool ok = !d->no_check_buffer && resident_bytes(d) + work_bytes(vbytes, d->early_buf ? 5 : 4) <= cap;
  pthread_mutex_unlock(&d->mu);
  return ok;
}

/* prepare's early upload (cuda_dev.executing): on an idle device, with the set
 * resident, a's device buffer is taken and its copy queued now. True if queued. Any
 * failure only means execute uploads a itself. */
static bool early_from_prepare(cuda_dev *d, cuda_prep *p, const sp_srs *srs) {
  pthread_mutex_lock(&d->mu);
  bool go = find_resident(d, srs) && !d->force_stream && d->early_mode == SP_EARLY_ALL && d->gpu && p->a_bytes &&
            !d->executing && !d->uploading && !d->early_buf && !d->early_want &&
            early_room(d, p->vbytes);
  if (go) d->uploading = true;
  pthread_mutex_unlock(&d->mu);
  if (!go) return false;
  sp_gpu *g = d->gpu;
  void *buf = NULL;
  char e[256];
  int st = sp_gpu_alloc(g, &buf, p->vbytes, e, sizeof e);
  /* the copy stream waits for the allocation, which is ordered on the compute stream */
  if (!st) st = sp_gpu_event_record(g, d->ev[EV_EARLY], SP_STREAM_COMPUTE, e, sizeof e);
  if (!st) st = sp_gpu_stream_wait(g, SP_STREAM_COPY, d->ev[EV_EARLY], e, sizeof e);
  if (!st) st = sp_gpu_upload_async(g, buf, p->abc[0], p->a_bytes, e, sizeof e);
  if (st && buf) { /* nothing to keep: the next execute synchronises before reusing it */
    sp_gpu_free(g, buf, p->vbytes);
    buf = NULL;
  }
  pthread_mutex_lock(&d->mu);
  if (buf) {
    d->early_buf = buf;
    d->early_bytes = p->vbytes;
    d->early_owner = p;
  }
  d->uploading = false;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
  return buf != NULL;
}

static int cuda_prepare(void *dev, const sp_task *t, void **prep, char *err, size_t errlen) {
  cuda_dev *d = dev;
  *prep = NULL;
  double t0 = sp_now_ms();
  /* A witness-only partition: on the device, only the witness is staged and execute
   * computes a, b, c there (the system's sizes and densities were checked against the
   * parameters at submit, sp_cs_check_partition); with SP_GPU_CS=host the host's SpMV
   * runs here and the task is then the full assignment that ev owns. */
  sp_cs_eval *ev = NULL;
  sp_task tw;
  sealprov_assignment wasg;
  bool gpu_cs = t->cs != NULL && !d->cs_host;
  if (gpu_cs) {
    sp_cs_assignment_of(t->cs, t->asg, &wasg);
    tw = *t;
    tw.asg = &wasg;
    t = &tw;
  } else if (t->cs != NULL) {
    int est = sp_cs_evaluate(t->cs, t->asg, t->scalar_encoding, t->cpu_threads, &ev, err, errlen);
    if (est) return est;
    tw = *t;
    tw.asg = &ev->asg;
    t = &tw;
  }
  /* Host-only work, outside the device lock: the size and density checks... */
  int st = gpu_cs ? SEALPROV_OK : sp_groth16_check_assignment(t->srs, t->asg, err, errlen);
  /* The public inputs (input 0 is ONE, every scalar below r) are checked here; the
   * rows a[i]*b[i] == c[i] are checked on the device in execute, before any MSM
   * (sp_gpu_check_rows: a check of 2^27 rows on the host would cost more than
   * prepare's whole budget). */
  if (!st) st = sp_groth16_check_inputs(t->asg, t->scalar_encoding, err, errlen);
  cuda_prep *p = st ? NULL : calloc(1, sizeof *p);
  if (!p) {
    sp_cs_eval_free(ev);
    if (st) return st;
    snprintf(err, errlen, "cuda device [%s]: out of host memory", d->section);
    return SEALPROV_ERR_NO_MEMORY;
  }
  p->cs_eval = ev;
  p->gpu_cs = gpu_cs;
  if (gpu_cs) p->wasg = wasg;
  if (ev) { /* the witness-only partition's a, b, c: the module's host memory */
    p->cs_bytes = (uint64_t)ev->asg.abc_size * 32 * 3;
    sp_hostmem_add(d->hm, d->index, p->cs_bytes);
  }
  /* ...and the copy into staging, so that execute's uploads are DMA at full rate (or
   * device-to-device copies) and overlap with compute. */
  copy_seg seg[8];
  size_t need = stage_layout(t->asg, seg, NULL);
  pthread_mutex_lock(&d->mu);
  const int mode = d->stage_mode;
  pthread_mutex_unlock(&d->mu);
  p->vbytes = ((size_t)1 << t->srs->log_domain) * 32;
  p->a_bytes = seg[0].n;
  stage_buf *b = NULL;
  if (mode == STAGE_CHUNKED) {
    /* Chunked: the whole partition goes to a device buffer of its own now, through
     * a few pinned chunks (the module's host memory stays at the chunks); execute
     * copies it device to device. */
    stage_buf *l = land_take(d, need, t->srs, p->vbytes);
    if (l) {
      stage_layout(t->asg, seg, l->p);
      bool waited = false;
      st = chunked_upload(d, l, seg, 8, t->cpu_threads, &waited, err, errlen);
      if (st) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s", err);
        snprintf(err, errlen, "cuda device %u [%s]: chunked staging of job %llu partition %u: %s",
                 d->index, d->section, (unsigned long long)t->job_id, t->partition, tmp);
        stage_give_back(d, l);
        sp_hostmem_release(d->hm, d->index, p->cs_bytes);
        sp_cs_eval_free(ev);
        free(p);
        return st;
      }
      p->land = l;
      p->abc[0] = seg[0].dst;
      p->abc[1] = seg[1].dst;
      p->abc[2] = seg[2].dst;
      p->inp = seg[3].dst;
      p->aux = seg[4].dst;
      for (int i = 0; i < 3; i++) p->bm[i] = seg[5 + i].n ? seg[5 + i].dst : NULL;
    } else {
      prep_sources_pageable(p, t->asg);
    }
  } else if (mode == STAGE_WHOLE) {
    b = stage_take(d, need);
  }
  bool sent = false;
  if (p->land) {
    sent = early_from_prepare(d, p, t->srs);
  } else if (b) {
    stage_layout(t->asg, seg, b->p);
    p->buf = b;
    p->abc[0] = seg[0].dst;
    p->abc[1] = seg[1].dst;
    p->abc[2] = seg[2].dst;
    p->inp = seg[3].dst;
    p->aux = seg[4].dst;
    for (int i = 0; i < 3; i++) p->bm[i] = seg[5 + i].n ? seg[5 + i].dst : NULL;
    /* a first: on an idle device its copy starts now and travels while the rest is
     * staged */
    parallel_copy(seg, 1, t->cpu_threads);
    sent = early_from_prepare(d, p, t->srs);
    parallel_copy(seg + 1, 7, t->cpu_threads);
  } else if (!p->land) {
    prep_sources_pageable(p, t->asg);
  }
  /* Staged (pinned or on the device: the copy can run asynchronously), not sent above,
   * and nothing else waiting: ask for an early upload of a by the execute that is
   * running. Last in prepare: once asked, p lives until its execute. */
  if ((b || p->land) && p->a_bytes && !sent) {
    pthread_mutex_lock(&d->mu);
    if (d->early_mode != SP_EARLY_OFF && !d->early_want && !d->early_owner) d->early_want = p;
    pthread_mutex_unlock(&d->mu);
  }
  p->prepare_ms = sp_now_ms() - t0;
  *prep = p;
  return SEALPROV_OK;
}

static void cuda_release(void *dev, void *prep) {
  cuda_prep *p = prep;
  if (!p) return;
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  if (d->early_want == p) d->early_want = NULL;
  if (d->early_owner == p) d->early_owner = NULL; /* orphaned: the next execute frees it */
  pthread_mutex_unlock(&d->mu);
  /* execute synchronised both streams before returning: no DMA reads the buffer. */
  stage_give_back(dev, p->buf);
  stage_give_back(dev, p->land);
  if (p->cs_bytes) sp_hostmem_release(d->hm, d->index, p->cs_bytes);
  sp_cs_eval_free(p->cs_eval);
  free(p);
}

/* ---- the direct load's sink and adoption (cuda_api.h) ------------------------------ */

void sp_cuda_dload_sink(sp_cuda_dload *l, sp_srs_sink *out) {
  *out = (sp_srs_sink){.user = l,
                       .chunk_bytes = sp_cuda_dload_chunk_bytes(l),
                       .begin = sp_cuda_dload_begin,
                       .vector = sp_cuda_dload_vector,
                       .buffer = sp_cuda_dload_buffer,
                       .submit = sp_cuda_dload_submit,
                       .finish = sp_cuda_dload_finish};
}

bool sp_cuda_dload_adopt(sp_cuda_dload *l, sp_srs *srs) {
  srs->devcopy = sp_cuda_dload_take(l);
  srs->devcopy_free = sp_cuda_devcopy_free;
  return srs->devcopy != NULL;
}

/* ---- parameter residency and registration ------------------------------------------ */

static size_t srs_bytes(const sp_srs *s) {
  return (s->h_len + s->l_len + s->a_len + s->b_g1_len) * sizeof(g1_affine_t) +
         s->b_g2_len * sizeof(g2_affine_t);
}

static void srs_vectors(const sp_srs *s, const void *p[V_COUNT], size_t bytes[V_COUNT]) {
  p[V_H] = s->h;
  p[V_L] = s->l;
  p[V_A] = s->a;
  p[V_B1] = s->b_g1;
  p[V_B2] = s->b_g2;
  bytes[V_H] = s->h_len * sizeof(g1_affine_t);
  bytes[V_L] = s->l_len * sizeof(g1_affine_t);
  bytes[V_A] = s->a_len * sizeof(g1_affine_t);
  bytes[V_B1] = s->b_g1_len * sizeof(g1_affine_t);
  bytes[V_B2] = s->b_g2_len * sizeof(g2_affine_t);
}

static int upload_vec(sp_gpu *g, void **d, const void *h, size_t bytes, char *err, size_t errlen) {
  *d = NULL;
  if (bytes == 0) return SEALPROV_OK;
  return sp_gpu_alloc_upload_persistent(g, d, h, bytes, err, errlen);
}

/* A set loaded straight onto the devices (srs->device_only): its copy on this device,
 * adopted as the resident copy (borrowed: the srs owns the memory). There is no host
 * copy to upload or stream from, so a device without one cannot prove with the set:
 * DEVICE_MEMORY (the scheduler may requeue the partition on a device that has one). */
static int adopt_devcopy(cuda_dev *d, const sp_srs *srs, cuda_resident **out, char *err,
                         size_t errlen) {
  pthread_mutex_lock(&d->mu);
  cuda_resident *found = find_resident(d, srs);
  pthread_mutex_unlock(&d->mu);
  if (found) {
    *out = found;
    return SEALPROV_OK;
  }
  const sp_srs_devcopy *c = srs->devcopy;
  unsigned k = 0;
  while (c && k < c->ndev && c->ordinal[k] != d->ordinal) k++;
  if (!c || k == c->ndev) {
    char list[128] = "";
    for (unsigned i = 0; c && i < c->ndev; i++) {
      size_t n = strlen(list);
      snprintf(list + n, sizeof list - n, "%s%d", i ? ", " : "", c->ordinal[i]);
    }
    snprintf(err, errlen,
             "parameter set %s was loaded straight onto CUDA device(s) %s with no host copy; this "
             "device (ordinal %d) has no copy of it and none can be uploaded or streamed (load it "
             "through a provider that includes this device, or with params_residency = host)",
             srs->path, c && c->ndev ? list : "(none)", d->ordinal);
    return SEALPROV_ERR_DEVICE_MEMORY;
  }
  cuda_resident *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  r->srs = srs;
  r->bytes = c->total_bytes;
  r->borrowed = true;
  r->h = c->vec[k][V_H];
  r->l = c->vec[k][V_L];
  r->a = c->vec[k][V_A];
  r->b1 = c->vec[k][V_B1];
  r->b2 = c->vec[k][V_B2];
  pthread_mutex_lock(&d->mu);
  found = find_resident(d, srs); /* another worker of this device adopted it meanwhile */
  if (found) {
    free(r);
    r = found;
  } else {
    r->next = d->res;
    d->res = r;
  }
  pthread_mutex_unlock(&d->mu);
  *out = r;
  return SEALPROV_OK;
}

/* Room on d for a long-lived copy of `need` bytes (cudaMalloc, outside the pool) next
 * to `in_use` and `work` bytes of working memory: within memory_limit, else the card's
 * free memory. The pool keeps freed scratch cached (gpu.cu): that is handed back and
 * looked at again before saying no. False also when the memory cannot be read (a real
 * device fault shows up later). */
static bool room_for_copy(cuda_dev *d, uint64_t in_use, uint64_t need, uint64_t work) {
  if (d->memory_limit && in_use + need + work > d->memory_limit) return false;
  uint64_t free_b = 0, total_b = 0;
  if (sp_gpu_mem_info(d->gpu, &free_b, &total_b) != SEALPROV_OK) return false;
  if (need + work <= free_b) return true;
  sp_gpu_trim(d->gpu);
  return sp_gpu_mem_info(d->gpu, &free_b, &total_b) == SEALPROV_OK && need + work <= free_b;
}

/* The resident copy of srs, made now if the budget allows; NULL (and OK) when the set
 * is to be streamed instead. Called with the device lock held. */
static int get_resident(cuda_dev *d, const sp_srs *srs, cuda_resident **out, double *ms, char *err,
                        size_t errlen) {
  *out = NULL;
  if (srs->device_only) return adopt_devcopy(d, srs, out, err, errlen);
  pthread_mutex_lock(&d->mu);
  /* forced streaming (tests, benchmarks) also bypasses a copy made earlier */
  bool force = d->force_stream;
  cuda_resident *found = force ? NULL : find_resident(d, srs);
  uint64_t in_use = sp_gpu_memory_in_use(d->gpu) + resident_bytes(d);
  pthread_mutex_unlock(&d->mu);
  if (found || force) {
    *out = found;
    return SEALPROV_OK;
  }
  size_t need = srs_bytes(srs);
  uint64_t work = work_bytes(((size_t)1 << srs->log_domain) * sizeof(fr_t), 3);
  if (!room_for_copy(d, in_use, need, work)) return SEALPROV_OK; /* stream instead */
  double t0 = sp_now_ms();
  cuda_resident *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  r->srs = srs;
  r->bytes = need;
  int st = upload_vec(d->gpu, &r->h, srs->h, srs->h_len * sizeof(g1_affine_t), err, errlen);
  if (!st) st = upload_vec(d->gpu, &r->l, srs->l, srs->l_len * sizeof(g1_affine_t), err, errlen);
  if (!st) st = upload_vec(d->gpu, &r->a, srs->a, srs->a_len * sizeof(g1_affine_t), err, errlen);
  if (!st) st = upload_vec(d->gpu, &r->b1, srs->b_g1, srs->b_g1_len * sizeof(g1_affine_t), err, errlen);
  if (!st) st = upload_vec(d->gpu, &r->b2, srs->b_g2, srs->b_g2_len * sizeof(g2_affine_t), err, errlen);
  if (st) {
    free_resident(d, r);
    /* Not enough memory after all: stream. Other errors are device failures. */
    return st == SEALPROV_ERR_DEVICE_MEMORY ? SEALPROV_OK : st;
  }
  pthread_mutex_lock(&d->mu);
  r->next = d->res;
  d->res = r;
  pthread_mutex_unlock(&d->mu);
  *ms = sp_now_ms() - t0;
  *out = r;
  return SEALPROV_OK;
}

/* ---- fixed-base tables (msm_precompute) ----------------------------------------------- */

/* Memory a set's table may not touch beyond what is resident: 1 GiB. */
#define SP_TABLE_MARGIN ((uint64_t)1 << 30)

/* Device bytes the tables of a set being made resident may take: the configured bytes
 * (msm_precompute = SIZE), or for auto what memory_limit (else the GPU's memory) leaves
 * after every resident set (this one included), each worker's device buffer of chunked
 * staging (four domain-sized vectors, the land_take rule), an execute's working memory
 * with an early upload (work_bytes of five vectors) and a margin: so the tables never
 * take the room the workers' partition buffers need. Device lock held. */
static uint64_t table_budget(cuda_dev *d, size_t vbytes) {
  if (d->precompute_cfg == SP_MSM_PRECOMPUTE_OFF) return 0;
  if (d->precompute_cfg) return d->precompute_cfg;
  uint64_t cap = d->memory_limit, free_b = 0;
  if (!cap && sp_gpu_mem_info(d->gpu, &free_b, &cap) != SEALPROV_OK) return 0;
  pthread_mutex_lock(&d->mu);
  uint64_t held = resident_bytes(d);
  pthread_mutex_unlock(&d->mu);
  uint64_t reserve = held + (uint64_t)d->workers * (4 * (uint64_t)vbytes + SP_STAGE_ROUND) +
                     work_bytes(vbytes, 5) + SP_TABLE_MARGIN;
  return cap > reserve ? cap - reserve : 0;
}

/* The fixed-base table of a resident set's h (the H MSM, half of a partition's MSM
 * work), made the first time the set is found resident under a tables mode that allows
 * it (or a higher one: SP_TABLES_FORCE after AUTO plans again): within table_budget, if
 * msm.cu's cost model predicts it at least 3 % faster than today's path (any gain under
 * FORCE), and if the device has room for it next to a partition's working memory, as
 * residency asks. Device lock held. Only a device fault is an error: no room, no table. */
static int make_tables(cuda_dev *d, cuda_resident *r, const sp_srs *srs, sp_cuda_timings *tm,
                       char *err, size_t errlen) {
  pthread_mutex_lock(&d->mu);
  const int mode = d->tables_mode;
  bool skip = mode == SP_TABLES_OFF || d->tables_oom || r->tab_h.copies || r->no_table ||
              mode <= r->tab_mode ||
              !r->h || srs->h_len == 0 || d->precompute_cfg == SP_MSM_PRECOMPUTE_OFF;
  if (!skip) r->tab_mode = mode;
  uint64_t in_use = sp_gpu_memory_in_use(d->gpu) + resident_bytes(d);
  pthread_mutex_unlock(&d->mu);
  if (skip) return SEALPROV_OK;
  const size_t vbytes = ((size_t)1 << srs->log_domain) * sizeof(fr_t);
  const uint64_t budget = table_budget(d, vbytes);
  unsigned c = 0, k = 0;
  double gain = 0;
  sp_gpu_msm_plan(false, srs->h_len, budget, mode == SP_TABLES_FORCE, &c, &k, &gain);
  if (k < 2) return SEALPROV_OK;
  const uint64_t need = sp_gpu_msm_table_bytes(false, srs->h_len, k);
  if (!room_for_copy(d, in_use, need, work_bytes(vbytes, 3))) return SEALPROV_OK;
  double t0 = sp_now_ms();
  sp_msm_table tab;
  int st = sp_gpu_msm_table_make(d->gpu, false, r->h, srs->h_len, c, k, &tab, err, errlen);
  if (st == SEALPROV_ERR_DEVICE_MEMORY) return SEALPROV_OK;
  if (st) return st;
  double ms = sp_now_ms() - t0;
  pthread_mutex_lock(&d->mu);
  r->tab_h = tab;
  r->tab_bytes = tab.ext_bytes;
  pthread_mutex_unlock(&d->mu);
  tm->precompute_ms += ms;
  sp_log(SEALPROV_LOG_INFO,
         "cuda device %u [%s]: fixed-base table of h for %s (%zu points): window %u, %u copies, "
         "%.2f GB, made in %.0f ms (the cost model predicts %.0f %% off the H MSM)",
         d->index, d->section, srs->path ? srs->path : "(parameters)", srs->h_len, c, k,
         (double)tab.ext_bytes / 1e9, ms, 100 * gain);
  return SEALPROV_OK;
}

/* Drops the table of srs on d, keeping the points, and makes none again for it (the
 * out-of-memory retry of a set that cannot be streamed). True if one was dropped. */
static bool drop_table(cuda_dev *d, const sp_srs *srs) {
  pthread_mutex_lock(&d->mu);
  cuda_resident *r = find_resident(d, srs);
  sp_msm_table tab;
  memset(&tab, 0, sizeof tab);
  if (r) {
    tab = r->tab_h;
    memset(&r->tab_h, 0, sizeof r->tab_h);
    r->tab_bytes = 0;
    r->no_table = true;
  }
  pthread_mutex_unlock(&d->mu);
  bool had = tab.copies != 0;
  sp_gpu_msm_table_free(d->ordinal, &tab);
  return had;
}

/* Drops this device's resident copy of srs (out-of-memory retry: the points go, the
 * retry streams them; srs_evict). Any thread: the free switches devices and back. */
static void drop_resident(cuda_dev *d, const sp_srs *srs) {
  pthread_mutex_lock(&d->mu);
  cuda_resident **pp = &d->res;
  while (*pp && (*pp)->srs != srs) pp = &(*pp)->next;
  cuda_resident *r = *pp;
  if (r) *pp = r->next;
  pthread_mutex_unlock(&d->mu);
  if (r) free_resident(d, r);
}

/* The page-locked vectors of srs for streaming, registered on first use. A vector that
 * cannot be registered is streamed through the bounce buffer. Device lock held. */
static int get_hostreg(cuda_dev *d, const sp_srs *srs, cuda_hostreg **out, double *ms, char *err,
                       size_t errlen) {
  *out = NULL;
  pthread_mutex_lock(&d->mu);
  for (cuda_hostreg *r = d->reg; r; r = r->next)
    if (r->srs == srs) {
      *out = r;
      pthread_mutex_unlock(&d->mu);
      return SEALPROV_OK;
    }
  pthread_mutex_unlock(&d->mu);
  double t0 = sp_now_ms();
  cuda_hostreg *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  r->srs = srs;
  const void *p[V_COUNT];
  srs_vectors(srs, p, r->bytes);
  uint64_t owned_bytes = 0;
  for (int v = 0; v < V_COUNT; v++) {
    r->ptr[v] = (void *)p[v]; /* registered read-only where supported; never written */
    if (!p[v] || !r->bytes[v]) continue;
    bool ref = false;
    if (reg_acquire(d->ordinal, r->ptr[v], r->bytes[v], &ref)) {
      r->usable[v] = true;
      r->owned[v] = ref;
      if (ref) owned_bytes += r->bytes[v];
    }
  }
  pthread_mutex_lock(&d->mu);
  r->next = d->reg;
  d->reg = r;
  d->registered_bytes += owned_bytes;
  pthread_mutex_unlock(&d->mu);
  *ms += sp_now_ms() - t0;
  *out = r;
  return SEALPROV_OK;
}

/* Drops this device's registration references for srs. */
static void drop_hostreg(cuda_dev *d, const sp_srs *srs) {
  pthread_mutex_lock(&d->mu);
  cuda_hostreg **qq = &d->reg;
  while (*qq && (*qq)->srs != srs) qq = &(*qq)->next;
  cuda_hostreg *h = *qq;
  if (h) {
    *qq = h->next;
    for (int v = 0; v < V_COUNT; v++)
      if (h->owned[v]) d->registered_bytes -= h->bytes[v];
  }
  pthread_mutex_unlock(&d->mu);
  if (h) free_hostreg(d, h);
}

/* May run on any thread (the one dropping the last reference): the frees switch to
 * this device and back, so that thread's binding is unchanged. The set has no users,
 * so no transfer reads its device copy or its registered memory. */
static void cuda_srs_evict(void *dev, const struct sp_srs *srs) {
  drop_resident(dev, srs);
  drop_hostreg(dev, srs);
}

/* Drops this device's copy of cs (the system is being freed: no task uses it). Any
 * thread: the free switches devices and back. */
static void cuda_cs_evict(void *dev, const struct sp_cs *cs) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  cuda_cs_res **pp = &d->cs_res;
  while (*pp && (*pp)->cs != cs) pp = &(*pp)->next;
  cuda_cs_res *c = *pp;
  if (c) *pp = c->next;
  pthread_mutex_unlock(&d->mu);
  if (!c) return;
  sp_gpu_cs_free(c->g);
  free(c);
}

static uint64_t cuda_host_memory_in_use(void *dev) {
  sp_cuda_host_memory h;
  sp_engine_cuda_host_memory(dev, &h);
  return h.staging_bytes + h.registered_bytes + h.bounce_bytes;
}

static uint64_t cuda_memory_in_use(void *dev) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  /* with the chunked staging's device buffers (cudaMalloc, outside the pool) */
  uint64_t n = (d->gpu ? sp_gpu_memory_in_use(d->gpu) : 0) + resident_bytes(d) + d->land_bytes;
  pthread_mutex_unlock(&d->mu);
  return n;
}

/* ---- one partition ---------------------------------------------------------------- */

static int bad_scalar(const char *what, uint64_t idx, uint32_t enc, char *err, size_t errlen) {
  snprintf(err, errlen, "%s[%llu] is not a valid %s scalar (value >= r)", what,
           (unsigned long long)idx,
           enc == SEALPROV_SCALAR_MONTGOMERY ? "Montgomery" : "canonical little-endian");
  return SEALPROV_ERR_ASSIGNMENT;
}

typedef struct split_t {
  uint64_t *ones;
  void *rest;
  uint32_t *idx;
  size_t n, n_rest;
} split_t;

static void split_free(sp_gpu *g, split_t *s) {
  size_t words = (s->n + 63) / 64;
  sp_gpu_free(g, s->ones, words * 8);
  sp_gpu_free(g, s->rest, s->n * 32);
  sp_gpu_free(g, s->idx, s->n * 4);
  memset(s, 0, sizeof *s);
}

static int split_make(sp_gpu *g, split_t *s, const void *d_scalars, size_t n, char *err,
                      size_t errlen) {
  memset(s, 0, sizeof *s);
  s->n = n;
  int st = sp_gpu_alloc(g, (void **)&s->ones, ((n + 63) / 64) * 8, err, errlen);
  if (!st) st = sp_gpu_alloc(g, &s->rest, n * 32, err, errlen);
  if (!st) st = sp_gpu_alloc(g, (void **)&s->idx, n * 4, err, errlen);
  if (!st) st = sp_gpu_split01(g, d_scalars, n, s->ones, s->rest, s->idx, &s->n_rest, err, errlen);
  return st;
}

/* One execute attempt's plan and counters. */
typedef struct xctx {
  cuda_dev *d;
  sp_gpu *g;
  unsigned cpu_threads;
  bool allow_resident;
  size_t chunk;          /* points per chunk when streaming (multiple of 64) */
  cuda_resident *res;    /* NULL: stream */
  cuda_hostreg *reg;     /* when streaming */
  sp_cuda_timings *tm;
  void *early_a;         /* a, already on the device (early upload), or NULL */
  const sp_cs *cs;       /* witness-only partition: a, b, c made here from the witness */
} xctx;

/* Work on one chunk [p0, p1) of a point vector whose points for that range are at
 * d_points (chunk k of nchunks). */
typedef int (*chunk_fn)(xctx *x, void *ctx, const void *d_points, size_t k, size_t p0, size_t p1,
                        char *err, size_t errlen);

/* The bounce buffer (pinned, 2 slots of slot_bytes) for vectors that are not
 * registered; NULL when it cannot be had (uploads then come from pageable memory). */
static uint8_t *get_bounce(xctx *x, size_t slot_bytes) {
  cuda_dev *d = x->d;
  if (d->bounce && d->bounce_cap >= 2 * slot_bytes) return d->bounce;
  char e[256];
  void *p = NULL;
  if (!sp_hostmem_try_reserve(d->hm, d->index, 2 * slot_bytes)) return NULL; /* host_memory_limit */
  if (sp_gpu_host_alloc(d->ordinal, &p, 2 * slot_bytes, e, sizeof e) != SEALPROV_OK) {
    sp_hostmem_release(d->hm, d->index, 2 * slot_bytes);
    return NULL;
  }
  /* the old buffer's last transfers were waited for at the end of its stream_points */
  if (d->bounce) {
    sp_gpu_host_free(d->ordinal, d->bounce);
    sp_hostmem_release(d->hm, d->index, d->bounce_cap);
  }
  pthread_mutex_lock(&d->mu);
  d->bounce = p;
  d->bounce_cap = 2 * slot_bytes;
  pthread_mutex_unlock(&d->mu);
  return d->bounce;
}

/* Runs fn over the chunks of a point vector: resident (one chunk, no transfer) or
 * streamed from host memory with two device buffers, chunk k + 1 uploading on the copy
 * stream while chunk k is processed on the compute stream. */
static int stream_points(xctx *x, int vec, const void *resident, const void *host, size_t npts,
                         size_t psize, chunk_fn fn, void *ctx, char *err, size_t errlen) {
  if (npts == 0) return SEALPROV_OK;
  if (resident) return fn(x, ctx, resident, 0, 0, npts, err, errlen);
  sp_gpu *g = x->g;
  sp_gpu_event **ev = x->d->ev;
  const size_t chunk = x->chunk < npts ? x->chunk : npts;
  const size_t nchunks = (npts + chunk - 1) / chunk, cbytes = chunk * psize;
  const bool registered = x->reg && x->reg->usable[vec];
  uint8_t *bounce = NULL;
  if (!registered) bounce = get_bounce(x, cbytes);
  void *buf[2] = {NULL, NULL};
  int st = SEALPROV_OK;
  SP_TRY_GOTO(sp_gpu_alloc(g, &buf[0], cbytes, err, errlen), st, out);
  if (nchunks > 1) SP_TRY_GOTO(sp_gpu_alloc(g, &buf[1], cbytes, err, errlen), st, out);
  /* the buffers exist once the compute stream got here: the copy stream waits for it */
  SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_FREED0], SP_STREAM_COMPUTE, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_FREED1], SP_STREAM_COMPUTE, err, errlen), st, out);
  for (size_t k = 0; k <= nchunks; k++) {
    /* step k: issue the upload of chunk k, then process chunk k - 1, so that chunk k
     * travels on the copy stream while chunk k - 1 is computed */
    size_t j = k;
    if (j < nchunks) {
      size_t slot = j & 1, p0 = j * chunk, p1 = p0 + chunk < npts ? p0 + chunk : npts;
      size_t bytes = (p1 - p0) * psize;
      const uint8_t *src = (const uint8_t *)host + p0 * psize;
      SP_TRY_GOTO(sp_gpu_stream_wait(g, SP_STREAM_COPY, ev[EV_FREED0 + slot], err, errlen), st,
                  out);
      if (bounce) {
        /* the slot's previous upload (chunk j - 2) must have left it */
        double t0 = sp_now_ms();
        SP_TRY_GOTO(sp_gpu_event_sync(g, ev[EV_LOADED0 + slot], err, errlen), st, out);
        copy_seg s = {bounce + slot * cbytes, src, bytes};
        parallel_copy(&s, 1, x->cpu_threads);
        x->tm->upload_ms += sp_now_ms() - t0;
        src = bounce + slot * cbytes;
      }
      double t0 = sp_now_ms(); /* pageable: the host waits inside the call */
      SP_TRY_GOTO(sp_gpu_upload_async(g, buf[slot], src, bytes, err, errlen), st, out);
      x->tm->upload_ms += sp_now_ms() - t0;
      SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_LOADED0 + slot], SP_STREAM_COPY, err, errlen), st,
                  out);
    }
    if (k == 0) continue;
    size_t c = k - 1, slot = c & 1, p0 = c * chunk, p1 = p0 + chunk < npts ? p0 + chunk : npts;
    double t0 = sp_now_ms();
    SP_TRY_GOTO(sp_gpu_event_sync(g, ev[EV_LOADED0 + slot], err, errlen), st, out);
    x->tm->upload_ms += sp_now_ms() - t0;
    SP_TRY_GOTO(sp_gpu_stream_wait(g, SP_STREAM_COMPUTE, ev[EV_LOADED0 + slot], err, errlen), st,
                out);
    SP_TRY_GOTO(fn(x, ctx, buf[slot], c, p0, p1, err, errlen), st, out);
    SP_TRY_GOTO(sp_gpu_event_record(g, ev[EV_FREED0 + slot], SP_STREAM_COMPUTE, err, errlen), st,
                out);
  }
out:
  {
    /* nothing the copy stream still does may outlive the buffers (or the bounce) */
    char e2[128];
    int st2 = sp_gpu_join_copy(g, e2, sizeof e2);
    if (bounce) {
      int st3 = sp_gpu_sync_all(g, e2, sizeof e2);
      if (!st2) st2 = st3;
    }
    if (st2 && !st) {
      snprintf(err, errlen, "%s", e2);
      st = st2;
    }
  }
  sp_gpu_free(g, buf[0], cbytes);
  sp_gpu_free(g, buf[1], cbytes);
  return st;
}

/* H MSM chunk: resident points take the bit-reversed scalars as they are; streamed
 * chunks take the natural-order scalars of their range. */
typedef struct h_ctx {
  const void *scalars;
  unsigned logm;
  bool bitrev;
  const sp_msm_table *tab; /* resident h's fixed-base table, in use; NULL: none */
  g1_jac_t acc;
} h_ctx;

static int h_chunk(xctx *x, void *vctx, const void *d_points, size_t k, size_t p0, size_t p1,
                   char *err, size_t errlen) {
  (void)k;
  h_ctx *c = vctx;
  sp_msm_args a;
  memset(&a, 0, sizeof a);
  a.d_points = d_points;
  a.n = p1 - p0;
  if (c->bitrev) {
    a.d_scalars = c->scalars;
    a.flags = SP_MSM_BITREV_POINTS;
    a.log_bitrev = c->logm;
    a.table = c->tab;
  } else {
    a.d_scalars = (const uint8_t *)c->scalars + p0 * 32;
  }
  g1_jac_t part;
  int st = sp_gpu_msm_g1_dev(x->g, &part, &a, err, errlen);
  if (!st) g1_jac_add(&c->acc, &c->acc, &part);
  return st;
}

/* L / A / B chunk: batch addition of the ones in [p0, p1) (bitmap words from p0 / 64:
 * chunks are multiples of 64 points) and Pippenger over the compacted scalars whose
 * point index falls in [p0, p1) (bounds[k] .. bounds[k + 1]: compaction keeps order). */
typedef struct split_ctx {
  const split_t *s;
  const size_t *bounds;
  bool g2;
  g1_jac_t acc1;
  g2_jac_t acc2;
  double *ba_ms, *msm_ms;
} split_ctx;

static int split_chunk(xctx *x, void *vctx, const void *d_points, size_t k, size_t p0, size_t p1,
                       char *err, size_t errlen) {
  split_ctx *c = vctx;
  const split_t *s = c->s;
  sp_gpu *g = x->g;
  double t0 = sp_now_ms();
  int st;
  if (c->g2) {
    g2_jac_t part;
    st = sp_gpu_batch_add_g2_dev(g, &part, d_points, s->ones + p0 / 64, p1 - p0, err, errlen);
    if (st) return st;
    g2_jac_add(&c->acc2, &c->acc2, &part);
  } else {
    g1_jac_t part;
    st = sp_gpu_batch_add_g1_dev(g, &part, d_points, s->ones + p0 / 64, p1 - p0, err, errlen);
    if (st) return st;
    g1_jac_add(&c->acc1, &c->acc1, &part);
  }
  double t1 = sp_now_ms();
  size_t lo = c->bounds[k], hi = c->bounds[k + 1];
  if (hi > lo) {
    sp_msm_args a;
    memset(&a, 0, sizeof a);
    a.d_points = d_points;
    a.d_scalars = (const uint8_t *)s->rest + lo * 32;
    a.d_index = s->idx + lo;
    a.index_base = (uint32_t)p0;
    a.n = hi - lo;
    if (c->g2) {
      g2_jac_t part;
      st = sp_gpu_msm_g2_dev(g, &part, &a, err, errlen);
      if (st) return st;
      g2_jac_add(&c->acc2, &c->acc2, &part);
    } else {
      g1_jac_t part;
      st = sp_gpu_msm_g1_dev(g, &part, &a, err, errlen);
      if (st) return st;
      g1_jac_add(&c->acc1, &c->acc1, &part);
    }
  }
  if (c->ba_ms) *c->ba_ms += t1 - t0;
  *c->msm_ms += sp_now_ms() - (c->ba_ms ? t1 : t0);
  return SEALPROV_OK;
}

/* sum over one split and one point vector: batch addition of the ones + Pippenger over
 * the rest, resident or streamed */
static int msm_split(xctx *x, int vec, const void *resident, const void *host, size_t npts,
                     const split_t *s, bool g2, g1_jac_t *out1, g2_jac_t *out2, double *ba_ms,
                     double *msm_ms, char *err, size_t errlen) {
  split_ctx c;
  memset(&c, 0, sizeof c);
  c.s = s;
  c.g2 = g2;
  c.ba_ms = ba_ms;
  c.msm_ms = msm_ms;
  g1_jac_set_inf(&c.acc1);
  g2_jac_set_inf(&c.acc2);
  size_t nb = resident ? 1 : (npts + x->chunk - 1) / x->chunk;
  size_t *bounds = malloc((nb + 1) * sizeof *bounds);
  if (!bounds) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  c.bounds = bounds;
  int st = SEALPROV_OK;
  if (resident || npts == 0) {
    bounds[0] = 0;
    bounds[1] = s->n_rest;
  } else {
    st = sp_gpu_lower_bounds(x->g, s->idx, s->n_rest, x->chunk, npts, nb + 1, bounds, err,
                             errlen);
  }
  if (!st)
    st = stream_points(x, vec, resident, host, npts, g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t),
                       split_chunk, &c, err, errlen);
  free(bounds);
  if (out1) *out1 = c.acc1;
  if (out2) *out2 = c.acc2;
  return st;
}

/* Host waits for a copy-stream event (the time counts as upload_ms), and the compute
 * stream is ordered after it. */
static int wait_copy(xctx *x, int e, char *err, size_t errlen) {
  double t0 = sp_now_ms();
  int st = sp_gpu_event_sync(x->g, x->d->ev[e], err, errlen);
  if (!st) st = sp_gpu_stream_wait(x->g, SP_STREAM_COMPUTE, x->d->ev[e], err, errlen);
  x->tm->upload_ms += sp_now_ms() - t0;
  return st;
}

/* One partition's device buffers, results and sizes (prove_partition frees the
 * buffers on every path). */
typedef struct part_t {
  const sp_task *t;
  const cuda_prep *src;
  size_t m, nabc, ninp, naux, vbytes, bmb[3];
  void *abc[3], *inp, *aux, *as, *bs;
  uint64_t *bm[3];
  bool rest_sent;        /* inp, aux and bitmaps already queued (witness-only) */
  sp_cs_eval *host_ev;   /* witness-only fallback: a, b, c made on the host */
  split_t sp_l, sp_a, sp_b;
  h_ctx hc;
  g1_jac_t l_acc, a_acc, b1_acc;
  g2_jac_t b2_acc;
} part_t;

/* Frees the scalar buffers of L, A and B (inputs, aux, their A / B compactions, the
 * density bitmaps): once they are split, and on every path out of prove_partition. */
static void part_free_inputs(sp_gpu *g, part_t *p) {
  const sp_srs *srs = p->t->srs;
  sp_gpu_free(g, p->inp, p->ninp * 32);
  sp_gpu_free(g, p->aux, p->naux * 32);
  sp_gpu_free(g, p->as, srs->a_len * 32);
  sp_gpu_free(g, p->bs, srs->b_g1_len * 32);
  for (int k = 0; k < 3; k++) {
    sp_gpu_free(g, p->bm[k], p->bmb[k]);
    p->bm[k] = NULL;
  }
  p->inp = p->aux = p->as = p->bs = NULL;
}

/* inp, aux and the density bitmaps onto the copy stream, then EV_REST (queued: from
 * pageable memory the host waits in these calls). */
static int upload_rest(xctx *x, part_t *p, char *err, size_t errlen) {
  sp_gpu *g = x->g;
  double tu = sp_now_ms();
  int st = sp_gpu_upload_async(g, p->inp, p->src->inp, p->ninp * 32, err, errlen);
  if (!st) st = sp_gpu_upload_async(g, p->aux, p->src->aux, p->naux * 32, err, errlen);
  for (int k = 0; !st && k < 3; k++)
    if (p->src->bm[k]) st = sp_gpu_upload_async(g, p->bm[k], p->src->bm[k], p->bmb[k], err, errlen);
  if (!st) st = sp_gpu_event_record(g, x->d->ev[EV_REST], SP_STREAM_COPY, err, errlen);
  x->tm->upload_ms += sp_now_ms() - tu;
  return st;
}

/* Frees the early-upload buffer, whoever it was for (device lock held: an out-of-memory
 * retry, a handoff that failed, an orphan). Its copy may still be in flight, queued by
 * a prepare: the free, ordered on the compute stream, comes after the copy stream's
 * pending work. That partition then uploads its a itself. */
static void early_drop(cuda_dev *d) {
  pthread_mutex_lock(&d->mu);
  void *buf = d->early_buf;
  size_t bytes = d->early_bytes;
  d->early_buf = NULL;
  d->early_owner = NULL;
  pthread_mutex_unlock(&d->mu);
  if (!buf) return;
  char e[128];
  (void)sp_gpu_join_copy(d->gpu, e, sizeof e);
  sp_gpu_free(d->gpu, buf, bytes);
}

/* Start of execute (device lock held): takes this partition's early-uploaded a, sent
 * by the previous execute or by its own prepare, and frees an orphaned one. */
static void *early_take(cuda_dev *d, const cuda_prep *prep) {
  void *mine = NULL;
  bool orphan;
  pthread_mutex_lock(&d->mu);
  if (prep && d->early_want == prep) d->early_want = NULL; /* executing: too late */
  if (d->early_buf && prep && d->early_owner == prep) { /* made with prep->vbytes */
    mine = d->early_buf;
    d->early_buf = NULL;
    d->early_owner = NULL;
  }
  orphan = d->early_buf && !d->early_owner;
  pthread_mutex_unlock(&d->mu);
  if (orphan) early_drop(d);
  return mine;
}

/* Early upload: a vector buffer this partition is done with (b's once a*b is formed,
 * a's after the H MSM) becomes the next partition's a if one is staged and waiting for
 * this device (cuda_dev.early_want), and that a is sent into it now on the copy stream,
 * where it travels during the rest of this partition's work. Two chances, because the
 * next partition's prepare (~0.3 s at 2^27) may not be done by the first. Only with
 * resident parameters and room for one more vector (early_room: the buffer is held
 * until the next execute). Otherwise the buffer is freed. */
static int early_handoff(xctx *x, part_t *p, void **pbuf, char *err, size_t errlen) {
  cuda_dev *d = x->d;
  sp_gpu *g = x->g;
  void *buf = *pbuf;
  const void *src = NULL;
  size_t nbytes = 0;
  pthread_mutex_lock(&d->mu);
  cuda_prep *w = d->early_want;
  if (x->res && w && w->vbytes == p->vbytes && !d->early_buf && early_room(d, p->vbytes)) {
    d->early_want = NULL;
    d->early_buf = buf;
    d->early_bytes = p->vbytes;
    d->early_owner = w;
    src = w->abc[0];
    nbytes = w->a_bytes;
  }
  pthread_mutex_unlock(&d->mu);
  *pbuf = NULL;
  if (!src) {
    sp_gpu_free(g, buf, p->vbytes);
    return SEALPROV_OK;
  }
  /* w cannot be released meanwhile: its worker waits for the device lock we hold. The
   * copy waits for the compute stream's last use of the buffer; execute's final sync
   * completes it. */
  int st = sp_gpu_event_record(g, d->ev[EV_EARLY], SP_STREAM_COMPUTE, err, errlen);
  if (!st) st = sp_gpu_stream_wait(g, SP_STREAM_COPY, d->ev[EV_EARLY], err, errlen);
  if (!st) st = sp_gpu_upload_async(g, buf, src, nbytes, err, errlen);
  if (st) early_drop(d); /* not sent: w uploads its a itself */
  return st;
}

/* H: decode and transform a, b, c as each arrives, a*b - c, the H MSM. The rest of
 * the assignment is queued for upload once a, b and c are transformed: it travels
 * during the H MSM. */
static int part_h(xctx *x, part_t *p, char *err, size_t errlen) {
  static const char *names[3] = {"a", "b", "c"};
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const sp_srs *srs = p->t->srs;
  const unsigned logm = srs->log_domain;
  double ts;
  int st = SEALPROV_OK;
  /* The a*b = c pre-check before any transform: with room for one more buffer of nabc
   * rows, it collects a*b there as a and b arrive, so a and b are still transformed
   * while the next vector travels; without room, all three are decoded first and
   * checked, and the transforms follow (the overlap is lost). */
  void *ab = NULL;
  if (p->nabc && check_room(x->d, p->vbytes)) {
    char e2[256];
    if (sp_gpu_alloc(g, &ab, p->nabc * 32, e2, sizeof e2) != SEALPROV_OK) ab = NULL;
  }
  for (int k = 0; k < 3; k++) {
    SP_TRY_GOTO(wait_copy(x, EV_A + k, err, errlen), st, out);
    ts = sp_now_ms();
    if (p->nabc < p->m)
      SP_TRY_GOTO(sp_gpu_zero(g, (uint8_t *)p->abc[k] + p->nabc * 32, (p->m - p->nabc) * 32, err,
                              errlen),
                  st, out);
    uint64_t bad = UINT64_MAX;
    SP_TRY_GOTO(sp_gpu_decode_scalars(g, p->abc[k], p->nabc, p->t->scalar_encoding, true, &bad,
                                      err, errlen),
                st, out);
    if (bad != UINT64_MAX) {
      st = bad_scalar(names[k], bad, p->t->scalar_encoding, err, errlen);
      goto out;
    }
    if (ab && k == 0) SP_TRY_GOTO(sp_gpu_copy(g, ab, p->abc[0], p->nabc * 32, err, errlen), st, out);
    if (ab && k == 1)
      SP_TRY_GOTO(sp_gpu_fr_mul_vec(g, ab, ab, p->abc[1], p->nabc, err, errlen), st, out);
    tm->decode_ms += sp_now_ms() - ts;
    if (k == 2 || !ab) continue;
    /* queued behind the decode: the GPU transforms this vector while the host waits
     * for the next one's copy */
    ts = sp_now_ms();
    SP_TRY_GOTO(sp_gpu_h_coset(g, p->abc[k], logm, err, errlen), st, out);
    tm->h_ntt_ms += sp_now_ms() - ts;
  }
  ts = sp_now_ms();
  {
    uint64_t row = UINT64_MAX;
    SP_TRY_GOTO(ab ? sp_gpu_check_rows(g, ab, NULL, p->abc[2], p->nabc, &row, err, errlen)
                   : sp_gpu_check_rows(g, p->abc[0], p->abc[1], p->abc[2], p->nabc, &row, err,
                                       errlen),
                st, out);
    if (row != UINT64_MAX) {
      snprintf(err, errlen,
               "the assignment does not satisfy the circuit: a[i]*b[i] != c[i] at row %llu "
               "(first failing row; abc_size %zu)",
               (unsigned long long)row, p->nabc);
      st = SEALPROV_ERR_ASSIGNMENT;
      goto out;
    }
  }
  tm->decode_ms += sp_now_ms() - ts;
  ts = sp_now_ms();
  if (!ab) {
    SP_TRY(sp_gpu_h_coset(g, p->abc[0], logm, err, errlen));
    SP_TRY(sp_gpu_h_coset(g, p->abc[1], logm, err, errlen));
  }
  sp_gpu_free(g, ab, p->nabc * 32);
  ab = NULL;
  SP_TRY(sp_gpu_h_coeffs(g, p->abc[2], logm, err, errlen));
  tm->h_ntt_ms += sp_now_ms() - ts;
  ts = sp_now_ms();
  SP_TRY(sp_gpu_h_finish(g, p->abc[0], p->abc[1], p->abc[2], logm, err, errlen));
  sp_gpu_free(g, p->abc[2], p->vbytes);
  p->abc[2] = NULL;
  SP_TRY(sp_gpu_fr_from_mont(g, p->abc[0], p->m, err, errlen));
  if (x->res == NULL) SP_TRY(sp_gpu_bitrev_dev(g, p->abc[0], logm, err, errlen));
  if (!p->rest_sent) SP_TRY(upload_rest(x, p, err, errlen));
  SP_TRY(early_handoff(x, p, &p->abc[1], err, errlen)); /* b's buffer: freed or handed over */
  SP_TRY(sp_gpu_sync(g, err, errlen));
  tm->h_ntt_ms += sp_now_ms() - ts;

  ts = sp_now_ms();
  p->hc.scalars = p->abc[0];
  p->hc.logm = logm;
  p->hc.bitrev = x->res != NULL;
  pthread_mutex_lock(&x->d->mu);
  bool use = x->d->tables_mode != SP_TABLES_OFF;
  pthread_mutex_unlock(&x->d->mu);
  p->hc.tab = use && x->res && x->res->tab_h.copies ? &x->res->tab_h : NULL;
  tm->tables_used = p->hc.tab != NULL;
  if (p->hc.tab) {
    tm->table_window = p->hc.tab->window;
    tm->table_copies = p->hc.tab->copies;
  }
  /* coefficient m-1 sits at position m-1 in either order and is left out: h_len = m-1 */
  st = stream_points(x, V_H, x->res ? x->res->h : NULL, srs->h, srs->h_len, sizeof(g1_affine_t),
                     h_chunk, &p->hc, err, errlen);
  if (!st) st = early_handoff(x, p, &p->abc[0], err, errlen); /* freed or handed over */
  tm->h_msm_ms += sp_now_ms() - ts;
  return st;
out:
  sp_gpu_free(g, ab, p->nabc * 32);
  return st;
}

/* L, A, B: inputs and aux (canonical), density filtering, 0/1 split, then batch
 * addition of the ones and Pippenger over the rest for each vector. */
static int part_aux(xctx *x, part_t *p, char *err, size_t errlen) {
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const sp_srs *srs = p->t->srs;
  const uint32_t enc = p->t->scalar_encoding;
  const size_t ninp = p->ninp, naux = p->naux;
  size_t n_a = 0, n_bi = 0, n_ba = 0;
  SP_TRY(wait_copy(x, EV_REST, err, errlen));
  double ts = sp_now_ms();
  uint64_t bad = UINT64_MAX;
  SP_TRY(sp_gpu_decode_scalars(g, p->inp, ninp, enc, false, &bad, err, errlen));
  if (bad != UINT64_MAX) return bad_scalar("inp_assignment", bad, enc, err, errlen);
  SP_TRY(sp_gpu_decode_scalars(g, p->aux, naux, enc, false, &bad, err, errlen));
  if (bad != UINT64_MAX) return bad_scalar("aux_assignment", bad, enc, err, errlen);
  SP_TRY(sp_gpu_alloc(g, &p->as, srs->a_len * 32, err, errlen));
  SP_TRY(sp_gpu_alloc(g, &p->bs, srs->b_g1_len * 32, err, errlen));
  /* A: every input, then the aux variables in A; B: inputs in B, then aux in B */
  if (ninp) SP_TRY(sp_gpu_copy(g, p->as, p->inp, ninp * 32, err, errlen));
  SP_TRY(sp_gpu_compact(g, p->aux, p->bm[0], naux, (uint8_t *)p->as + ninp * 32, NULL, &n_a, err,
                        errlen));
  SP_TRY(sp_gpu_compact(g, p->inp, p->bm[1], ninp, p->bs, NULL, &n_bi, err, errlen));
  SP_TRY(sp_gpu_compact(g, p->aux, p->bm[2], naux, (uint8_t *)p->bs + n_bi * 32, NULL, &n_ba, err,
                        errlen));
  if (ninp + n_a != srs->a_len || n_bi + n_ba != srs->b_g1_len) {
    snprintf(err, errlen, "internal: density filtering gave %zu A / %zu B scalars, want %zu / %zu",
             ninp + n_a, n_bi + n_ba, srs->a_len, srs->b_g1_len);
    return SEALPROV_ERR_INTERNAL;
  }
  SP_TRY(split_make(g, &p->sp_l, p->aux, naux, err, errlen));
  SP_TRY(split_make(g, &p->sp_a, p->as, srs->a_len, err, errlen));
  SP_TRY(split_make(g, &p->sp_b, p->bs, srs->b_g1_len, err, errlen));
  part_free_inputs(g, p);
  tm->decode_ms += sp_now_ms() - ts;

  const cuda_resident *r = x->res;
  SP_TRY(msm_split(x, V_L, r ? r->l : NULL, srs->l, srs->l_len, &p->sp_l, false, &p->l_acc, NULL,
                   &tm->batch_add_ms, &tm->tail_msm_ms, err, errlen));
  SP_TRY(msm_split(x, V_A, r ? r->a : NULL, srs->a, srs->a_len, &p->sp_a, false, &p->a_acc, NULL,
                   &tm->batch_add_ms, &tm->tail_msm_ms, err, errlen));
  SP_TRY(msm_split(x, V_B1, r ? r->b1 : NULL, srs->b_g1, srs->b_g1_len, &p->sp_b, false, &p->b1_acc,
                   NULL, &tm->batch_add_ms, &tm->tail_msm_ms, err, errlen));
  return msm_split(x, V_B2, r ? r->b2 : NULL, srs->b_g2, srs->b_g2_len, &p->sp_b, true, NULL,
                   &p->b2_acc, NULL, &tm->g2_ms, err, errlen);
}

/* The device copy of cs on d, made now if it fits next to everything resident and an
 * execute's working memory; NULL (and OK) when it does not (the caller then computes
 * a, b, c on the host). Device lock held. */
static int get_cs_resident(cuda_dev *d, const sp_cs *cs, size_t vbytes, sp_gpu_cs **out, char *err,
                           size_t errlen) {
  *out = NULL;
  pthread_mutex_lock(&d->mu);
  cuda_cs_res *c = d->cs_res;
  while (c && c->cs != cs) c = c->next;
  uint64_t in_use = sp_gpu_memory_in_use(d->gpu) + resident_bytes(d) + d->land_bytes;
  pthread_mutex_unlock(&d->mu);
  if (c) {
    *out = c->g;
    return SEALPROV_OK;
  }
  uint64_t nnz = cs->off[3 * cs->n_rows];
  uint64_t need = (3 * cs->n_rows + 1) * 8 + nnz * 8 + (uint64_t)cs->ncoeffs * 32;
  if (!room_for_copy(d, in_use, need, work_bytes(vbytes, 4))) return SEALPROV_OK;
  c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  sp_gpu_cs_desc desc = {.path = cs->path, .n_rows = cs->n_rows, .abc_size = cs->abc_size,
                         .inp_size = cs->inp_size, .aux_size = cs->aux_size, .off = cs->off,
                         .var = cs->var, .cix = cs->cix, .coeffs = cs->coeffs, .ncoeffs = cs->ncoeffs};
  int st = sp_gpu_cs_upload(d->gpu, &desc, &c->g, &c->bytes, err, errlen);
  if (st) {
    free(c);
    /* not enough memory after all: the host computes a, b, c. Other errors are faults. */
    return st == SEALPROV_ERR_DEVICE_MEMORY ? SEALPROV_OK : st;
  }
  c->cs = cs;
  pthread_mutex_lock(&d->mu);
  c->next = d->cs_res;
  d->cs_res = c;
  pthread_mutex_unlock(&d->mu);
  *out = c->g;
  return SEALPROV_OK;
}

/* A witness-only partition's a, b, c into p->abc[] (events EV_A..EV_C recorded after
 * them): the witness (with the bitmaps) is uploaded first, range-checked, and the
 * three products run on the device; when the system does not fit there, on the host
 * (sp_cs_evaluate) and uploaded like a full assignment. */
static int cs_abc(xctx *x, part_t *p, char *err, size_t errlen) {
  cuda_dev *d = x->d;
  sp_gpu *g = x->g;
  const sp_task *t = p->t;
  const uint32_t enc = t->scalar_encoding;
  sp_gpu_cs *dc = NULL;
  SP_TRY(get_cs_resident(d, x->cs, p->vbytes, &dc, err, errlen));
  double ts = sp_now_ms();
  if (!dc) {
    sealprov_assignment w = *t->asg; /* the witness: inputs and aux */
    SP_TRY(sp_cs_evaluate(x->cs, &w, enc, x->cpu_threads, &p->host_ev, err, errlen));
    sp_hostmem_add(d->hm, d->index, (uint64_t)p->host_ev->asg.abc_size * 32 * 3);
    for (int k = 0; k < 3; k++) {
      const void *h = k == 0 ? p->host_ev->asg.a : k == 1 ? p->host_ev->asg.b : p->host_ev->asg.c;
      SP_TRY(sp_gpu_upload_async(g, p->abc[k], h, p->nabc * 32, err, errlen));
      SP_TRY(sp_gpu_event_record(g, d->ev[EV_A + k], SP_STREAM_COPY, err, errlen));
    }
    x->tm->spmv_ms += sp_now_ms() - ts;
    return SEALPROV_OK;
  }
  x->tm->spmv_on_gpu = true;
  SP_TRY(upload_rest(x, p, err, errlen));
  p->rest_sent = true;
  SP_TRY(wait_copy(x, EV_REST, err, errlen));
  ts = sp_now_ms();
  uint64_t bad = UINT64_MAX;
  SP_TRY(sp_gpu_cs_check_witness(g, dc, p->inp, p->aux, &bad, err, errlen));
  if (bad != UINT64_MAX)
    return bad < p->ninp ? bad_scalar("inp_assignment", bad, enc, err, errlen)
                         : bad_scalar("aux_assignment", bad - p->ninp, enc, err, errlen);
  SP_TRY(sp_gpu_cs_eval(g, dc, p->inp, p->aux, p->abc[0], p->abc[1], p->abc[2], err, errlen));
  SP_TRY(sp_gpu_sync(g, err, errlen)); /* for the stage's time; the next step waits anyway */
  for (int k = 0; k < 3; k++) SP_TRY(sp_gpu_event_record(g, d->ev[EV_A + k], SP_STREAM_COMPUTE, err, errlen));
  x->tm->spmv_ms += sp_now_ms() - ts;
  return SEALPROV_OK;
}

static int prove_partition(xctx *x, const sp_task *t, const cuda_prep *src, uint8_t proof[192],
                           char *err, size_t errlen) {
  cuda_dev *d = x->d;
  sp_gpu *g = x->g;
  sp_cuda_timings *tm = x->tm;
  const sp_srs *srs = t->srs;
  const sealprov_assignment *asg = t->asg;
  int st = SEALPROV_OK;
  part_t *p = calloc(1, sizeof *p);
  if (!p) {
    snprintf(err, errlen, "out of host memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  p->t = t;
  p->src = src;
  p->m = (size_t)1 << srs->log_domain;
  p->nabc = (size_t)asg->abc_size;
  p->ninp = (size_t)asg->inp_size;
  p->naux = (size_t)asg->aux_size;
  p->vbytes = p->m * sizeof(fr_t);
  p->bmb[0] = bitmap_bytes(asg->a_aux_bit_len);
  p->bmb[1] = bitmap_bytes(asg->b_inp_bit_len);
  p->bmb[2] = bitmap_bytes(asg->b_aux_bit_len);
  g1_jac_set_inf(&p->hc.acc);
  double ts;
  if (x->early_a) { /* a is on the device already (early upload): this partition's now */
    p->abc[0] = x->early_a;
    x->early_a = NULL;
    tm->a_early = true;
  }

  x->res = NULL;
  x->reg = NULL;
  if (x->allow_resident)
    SP_TRY_GOTO(get_resident(d, srs, &x->res, &tm->srs_upload_ms, err, errlen), st, out);
  if (x->res) SP_TRY_GOTO(make_tables(d, x->res, srs, tm, err, errlen), st, out);
  if (x->res) tm->precompute_bytes = x->res->tab_bytes;
  if (!x->res) SP_TRY_GOTO(get_hostreg(d, srs, &x->reg, &tm->srs_upload_ms, err, errlen), st, out);
  tm->streamed = x->res == NULL;
  tm->stream_chunk = x->res ? 0 : x->chunk;

  /* ---- transfers: every device buffer first, then the copies on the copy stream ---- */
  ts = sp_now_ms();
  for (int k = 0; k < 3; k++)
    if (!p->abc[k]) SP_TRY_GOTO(sp_gpu_alloc(g, &p->abc[k], p->vbytes, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, &p->inp, p->ninp * 32, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_alloc(g, &p->aux, p->naux * 32, err, errlen), st, out);
  for (int k = 0; k < 3; k++)
    SP_TRY_GOTO(sp_gpu_alloc(g, (void **)&p->bm[k], p->bmb[k], err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_event_record(g, d->ev[EV_ALLOC], SP_STREAM_COMPUTE, err, errlen), st, out);
  SP_TRY_GOTO(sp_gpu_stream_wait(g, SP_STREAM_COPY, d->ev[EV_ALLOC], err, errlen), st, out);
  if (x->cs) {
    tm->upload_ms += sp_now_ms() - ts;
    SP_TRY_GOTO(cs_abc(x, p, err, errlen), st, out);
  } else {
    for (int k = 0; k < 3; k++) {
      if (k > 0 || !tm->a_early)
        SP_TRY_GOTO(sp_gpu_upload_async(g, p->abc[k], src->abc[k], p->nabc * 32, err, errlen), st,
                    out);
      SP_TRY_GOTO(sp_gpu_event_record(g, d->ev[EV_A + k], SP_STREAM_COPY, err, errlen), st, out);
    }
    tm->upload_ms += sp_now_ms() - ts; /* pageable sources: the host waited in the calls */
  }

  /* H first: b and c travel while a is decoded and transformed, the rest of the
   * assignment during the H MSM. (L, A, B first, with a, b and c travelling during
   * their MSMs, measured the same: cuda/NOTES.md v4.) */
  SP_TRY_GOTO(part_h(x, p, err, errlen), st, out);
  SP_TRY_GOTO(part_aux(x, p, err, errlen), st, out);

  ts = sp_now_ms();
  sp_groth16_assemble(srs, &t->r, &t->s, &p->hc.acc, &p->l_acc, &p->a_acc, &p->b1_acc, &p->b2_acc,
                      proof);
  tm->host_ms += sp_now_ms() - ts;
out:
  {
    /* frees below run on the compute stream: order them after every pending copy */
    char e2[128];
    (void)sp_gpu_join_copy(g, e2, sizeof e2);
  }
  for (int k = 0; k < 3; k++) sp_gpu_free(g, p->abc[k], p->vbytes);
  part_free_inputs(g, p);
  if (p->host_ev) { /* its copies are complete: prove_partition's callers sync both streams */
    char e3[128];
    (void)sp_gpu_sync_all(g, e3, sizeof e3);
    sp_hostmem_release(d->hm, d->index, (uint64_t)p->host_ev->asg.abc_size * 32 * 3);
    sp_cs_eval_free(p->host_ev);
  }
  split_free(g, &p->sp_l);
  split_free(g, &p->sp_a);
  split_free(g, &p->sp_b);
  free(p);
  return st;
}

static int cuda_execute(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                        size_t errlen) {
  cuda_dev *d = dev;
  if (t->inject & SP_INJECT_FAIL_KERNEL) {
    snprintf(err, errlen, "cuda device %u [%s]: injected kernel failure (job %llu partition %u)",
             d->index, d->section, (unsigned long long)t->job_id, t->partition);
    return SEALPROV_ERR_DEVICE;
  }
  if (!d->gpu) {
    snprintf(err, errlen, "cuda device %u [%s]: execute on a device with no bound worker", d->index,
             d->section);
    return SEALPROV_ERR_DEVICE;
  }
  /* prep is NULL when the caller skipped prepare: check here what prepare checks (under
   * the lock only then: at 2^27 the density popcounts are milliseconds), and read the
   * host's memory directly */
  cuda_prep pageable;
  const cuda_prep *src = prep;
  sp_task tw; /* a witness-only partition proves the assignment prepare computed */
  const sp_cs *gpu_cs = NULL; /* ... or has it computed on the device */
  if (t->cs != NULL && src && src->gpu_cs) {
    gpu_cs = t->cs;
    tw = *t;
    tw.asg = &src->wasg;
    t = &tw;
  } else if (t->cs != NULL) {
    if (!src || !src->cs_eval) {
      snprintf(err, errlen, "cuda device %u [%s]: witness-only partition %u of job %llu reached "
               "execute without prepare's a, b, c", d->index, d->section, t->partition,
               (unsigned long long)t->job_id);
      return SEALPROV_ERR_INTERNAL;
    }
    tw = *t;
    tw.asg = &src->cs_eval->asg;
    t = &tw;
  }
  if (!src) {
    int st = sp_groth16_check_assignment(t->srs, t->asg, err, errlen);
    if (st) return st;
    memset(&pageable, 0, sizeof pageable);
    prep_sources_pageable(&pageable, t->asg);
    src = &pageable;
  }
  sp_cuda_timings tm;
  memset(&tm, 0, sizeof tm);
  tm.prepare_ms = src->prepare_ms;
  tm.staged = src->buf != NULL || src->land != NULL;
  tm.staged_on_device = src->land != NULL;
  pthread_mutex_lock(&d->mu);
  size_t chunk = d->stream_chunk ? d->stream_chunk : SP_STREAM_CHUNK_DEFAULT;
  /* No prepare may use the context from here on (early_from_prepare). */
  while (d->uploading) pthread_cond_wait(&d->cv, &d->mu);
  d->executing = true;
  pthread_mutex_unlock(&d->mu);
  if (t->inject & SP_INJECT_OOM) sp_gpu_inject_oom(d->gpu, 1);
  /* Sent by the previous execute, or by this partition's prepare on an idle device. */
  void *early_a = early_take(d, prep);
  char msg[512] = "";
  double t0 = sp_now_ms();
  int st = SEALPROV_OK;
  for (unsigned rung = 0;; rung++) {
    xctx x;
    memset(&x, 0, sizeof x);
    x.d = d;
    x.g = d->gpu;
    x.cpu_threads = t->cpu_threads;
    /* a set with no host copy stays resident whatever happens (never streamed) */
    x.allow_resident = rung == 0 || t->srs->device_only;
    x.chunk = rung == 0 || oom_ladder[rung - 1] > chunk ? chunk : oom_ladder[rung - 1];
    x.tm = &tm;
    x.early_a = rung == 0 ? early_a : NULL; /* prove_partition frees it on every path */
    x.cs = gpu_cs;
    st = prove_partition(&x, t, src, proof, msg, sizeof msg);
    /* Nothing may stay in flight: the staging buffer goes back to the pool after
     * execute, and a retry reuses the device memory. */
    char e2[128];
    int st2 = sp_gpu_sync_all(d->gpu, e2, sizeof e2);
    if (st == SEALPROV_OK && st2 != SEALPROV_OK) {
      snprintf(msg, sizeof msg, "%s", e2);
      st = st2;
    }
    if (st != SEALPROV_ERR_DEVICE_MEMORY || rung == SP_OOM_RETRIES) break;
    /* A set with no host copy keeps its points; its fixed-base table may go, and the
     * partition runs again without it. */
    bool table_dropped = t->srs->device_only && drop_table(d, t->srs);
    if (t->srs->device_only && !table_dropped) {
      /* The retry ladder drops the resident copy to stream it: impossible without a
       * host copy. Say so (docs/abi.md: a direct-loaded set never streams). */
      char m2[512];
      snprintf(m2, sizeof m2,
               "out of device memory with the parameters resident (loaded straight onto the "
               "device: no host copy to stream from, so no retry with streaming): %s", msg);
      snprintf(msg, sizeof msg, "%s", m2);
      break;
    }
    /* Out of memory: what the attempt held is freed (stream-ordered, synchronised
     * above); the resident copy of this set goes too (the retry streams it), the pool
     * gives its cache back, and after a short wait the next rung runs. */
    if (!t->srs->device_only) {
      /* a table that was there when memory really ran out (not the tests' injected
       * failure) is not made again on this device: the retry of every later partition
       * would pay for it */
      pthread_mutex_lock(&d->mu);
      cuda_resident *had = find_resident(d, t->srs);
      if (had && had->tab_h.copies && !d->tables_oom && !(t->inject & SP_INJECT_OOM)) {
        d->tables_oom = true;
        sp_log(SEALPROV_LOG_WARN,
               "cuda device %u [%s]: out of device memory with a fixed-base table resident: no "
               "more tables on this device (msm_precompute)", d->index, d->section);
      }
      pthread_mutex_unlock(&d->mu);
      drop_resident(d, t->srs);
    }
    early_drop(d);
    sp_gpu_trim(d->gpu);
    sleep_ms(SP_OOM_WAIT_MS);
    tm.oom_retries++;
    /* stage timings of the failed attempt would mislead: keep only what was moved */
    double keep_prep = tm.prepare_ms, keep_srs = tm.srs_upload_ms, keep_tab = tm.precompute_ms;
    bool staged = tm.staged;
    unsigned retries = tm.oom_retries;
    memset(&tm, 0, sizeof tm);
    tm.prepare_ms = keep_prep;
    tm.srs_upload_ms = keep_srs;
    tm.precompute_ms = keep_tab;
    tm.staged = staged;
    tm.oom_retries = retries;
  }
  sp_gpu_inject_oom(d->gpu, 0);
  tm.total_ms = sp_now_ms() - t0;
  pthread_mutex_lock(&d->mu);
  d->executing = false;
  pthread_mutex_unlock(&d->mu);
  if (st) {
    if (st == SEALPROV_ERR_DEVICE_MEMORY && tm.oom_retries)
      snprintf(err, errlen,
               "cuda device %u [%s] (ordinal %d), job %llu partition %u: out of memory after %u "
               "retries with streamed parameters down to %zu-point chunks: %s",
               d->index, d->section, d->ordinal, (unsigned long long)t->job_id, t->partition,
               tm.oom_retries, (size_t)tm.stream_chunk, msg);
    else
      snprintf(err, errlen, "cuda device %u [%s] (ordinal %d), job %llu partition %u: %s", d->index,
               d->section, d->ordinal, (unsigned long long)t->job_id, t->partition, msg);
    return st;
  }
  if (t->inject & SP_INJECT_CORRUPT_PROOF) proof[191] ^= 0x01; /* the self-check must catch it */
  pthread_mutex_lock(&d->mu);
  d->last = tm;
  pthread_mutex_unlock(&d->mu);
  return SEALPROV_OK;
}

void sp_engine_cuda_last_timings(void *dev, sp_cuda_timings *out) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  *out = d->last;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_host_memory(void *dev, sp_cuda_host_memory *out) {
  cuda_dev *d = dev;
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&d->mu);
  for (unsigned i = 0; i < SP_MAX_WORKERS; i++)
    if (d->stage[i].p) {
      out->staging_bytes += d->stage[i].cap;
      out->staging_buffers++;
    }
  out->staging_budget = d->pinned_budget;
  out->registered_bytes = d->registered_bytes;
  out->bounce_bytes = d->bounce_cap;
  out->stage_mode = d->stage_mode;
  for (unsigned i = 0; i < SP_MAX_WORKERS; i++)
    if (d->land[i].p) out->landing_buffers++;
  out->landing_bytes = d->land_bytes;
  pthread_mutex_unlock(&d->mu);
  sp_hostmem_stats hs;
  sp_hostmem_get(d->hm, &hs);
  if (d->index < SP_HOSTMEM_DEVICES) {
    out->module_bytes = hs.dev[d->index];
    out->module_peak_bytes = hs.dev_peak[d->index];
  }
}

sp_hostmem *sp_engine_cuda_hostmem(void *dev) { return ((cuda_dev *)dev)->hm; }

uint64_t sp_engine_cuda_trim_chunks(void *dev) {
  cuda_dev *d = dev;
  int ordinal = d->ordinal;
  sp_chunk_pool *pool = sp_hostmem_pool(d->hm);
  return pool ? sp_chunk_pool_trim(pool, &ordinal) : 0;
}

void sp_engine_cuda_set_staging(void *dev, int mode) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  if (mode >= SP_STAGING_OFF && mode <= SP_STAGING_CHUNKED) d->stage_mode = mode;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_early(void *dev, int mode) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  d->early_mode = mode >= SP_EARLY_OFF && mode <= SP_EARLY_ALL ? mode : SP_EARLY_ALL;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_tables(void *dev, int mode) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  d->tables_mode = mode == SP_TABLES_OFF || mode == SP_TABLES_FORCE ? mode : SP_TABLES_AUTO;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_check_buffer(void *dev, bool allow) {
  cuda_dev *d = dev;
  pthread_mutex_lock(&d->mu);
  d->no_check_buffer = !allow;
  pthread_mutex_unlock(&d->mu);
}

void sp_engine_cuda_set_streaming(void *dev, bool force_stream, size_t chunk_points) {
  cuda_dev *d = dev;
  /* chunks are whole bitmap words: batch additions index the ones bitmap from p0 / 64 */
  if (chunk_points && chunk_points < 64) chunk_points = 64;
  chunk_points -= chunk_points % 64;
  pthread_mutex_lock(&d->mu);
  d->force_stream = force_stream;
  d->stream_chunk = chunk_points; /* 0: SP_STREAM_CHUNK_DEFAULT */
  pthread_mutex_unlock(&d->mu);
}

const sp_engine_ops sp_engine_cuda = {
    .name = "cuda",
    .device_open = cuda_device_open,
    .device_close = cuda_device_close,
    .worker_bind = cuda_worker_bind,
    .worker_unbind = cuda_worker_unbind,
    .prepare = cuda_prepare,
    .execute = cuda_execute,
    .release = cuda_release,
    .srs_evict = cuda_srs_evict,
    .memory_in_use = cuda_memory_in_use,
    .host_memory_in_use = cuda_host_memory_in_use,
    .cs_evict = cuda_cs_evict,
};
