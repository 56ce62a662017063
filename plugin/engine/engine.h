/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* engine.h -- the one interface that every proving engine implements, and the table of
 * device kinds (backends) this build has.
 *
 * The scheduler (runtime/sched.c) owns devices, workers, locks, retries and
 * verification; an engine only knows how to bind a thread to its device and turn one
 * partition into 192 proof bytes. Implementations: engine_cpu.c (reference; CI; hosts
 * without GPUs), the CUDA backend in cuda/backend/ on the kernels in cuda/, and a
 * recording test engine in tests/.
 *
 * Everything above this layer (runtime/, abi/) reaches a device kind only through this
 * header: its engine, its GPU enumeration and its help with a parameter load
 * (sp_backend). Which backends are built is said in one place (backends.c).
 *
 * Call order for one device:
 *   device_open (on the thread running provider open; must NOT touch CUDA's current
 *   device of that thread) -> per worker thread: worker_bind first thing, then any
 *   number of { prepare (no lock) -> execute (device lock held) -> release } ->
 *   worker_unbind -> after all workers joined: device_close.
 * Return values are sealprov_status codes; on failure err gets a one-line message.
 * SEALPROV_ERR_DEVICE / SEALPROV_ERR_DEVICE_MEMORY from prepare/execute mean "this
 * device failed": the scheduler requeues the task elsewhere and counts the failure.
 * Any other error fails the partition (bad input is not retried).
 */
#ifndef SEALPROV_ENGINE_H
#define SEALPROV_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"
#include "bls12_381/bls12_381.h"
#include "engine/device.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_srs;
struct sp_srs_lengths;
struct sp_cs;
struct sp_srs_load_opts;

/* One partition to prove. Everything points into memory that stays alive until the
 * task ends. */
typedef struct sp_task {
  uint64_t job_id;
  uint32_t partition;
  const struct sp_srs *srs;
  const sealprov_assignment *asg; /* host memory, validated against srs at submit */
  uint32_t scalar_encoding;       /* sealprov_scalar_encoding */
  fr_t r, s;                      /* blinding factors for this partition (Montgomery) */
  unsigned cpu_threads;           /* host threads the engine may use */
  /* A witness-only partition (job->cs): asg carries only inputs and aux (checked
   * against cs at submit); the engine computes a, b, c from cs (groth16/cs_eval.h: sp_cs_evaluate)
   * and takes the densities from it. NULL: asg is a full assignment. */
  const struct sp_cs *cs;
} sp_task;

/* ---- capacity: the device memory a partition needs --------------------------------
 * The scheduler places a job's partitions only on devices with the memory for them and
 * refuses, at srs_load and submit, a job no device can hold; it never learns that by
 * running out of memory (which would charge and quarantine the device). Each engine
 * answers from its own model of what one partition holds at its peak. */

/* The sizes that decide a partition's memory: its parameter set's (sp_srs lengths) and
 * its scalars (inp_size = the set's ic_len, aux_size = l_len). */
typedef struct sp_partition_shape {
  unsigned log_domain; /* the H vectors hold 2^log_domain scalars */
  uint64_t h_len, l_len, a_len, b_g1_len, b_g2_len;
  uint64_t inp_size, aux_size;
  /* false: the set has no host copy (loaded straight onto the GPUs, sp_srs.device_only),
   * so it cannot be streamed: only `resident` counts */
  bool stream_ok;
} sp_partition_shape;

#define SP_CAPACITY_UNBOUNDED UINT64_MAX
/* The largest domain the capacity search looks at (2^31 - 1 points: an MSM's bound). */
#define SP_CAPACITY_MAX_LOG 31u

/* A device's answer for one shape, in bytes of device memory. */
typedef struct sp_capacity {
  /* what the device proves in: memory_limit, else what the device has (a GPU's memory
   * less what its driver keeps); SP_CAPACITY_UNBOUNDED when nothing bounds it (a CPU
   * device without memory_limit) */
  uint64_t available;
  /* available is the device's memory_limit (a larger one would give it more), not what
   * the device has */
  bool by_limit;
  /* the partition with its parameter points kept on the device (the fastest way) */
  uint64_t resident;
  /* resident plus the smallest fixed-base table the engine would make for it; 0 when it
   * makes none (msm_precompute = off, no gain at this size, or an engine without) */
  uint64_t tables;
  /* the least it proves in at all: the points streamed in the engine's smallest chunks
   * (= resident for an engine that never keeps points on the device) */
  uint64_t streamed;
} sp_capacity;

typedef struct sp_engine_ops {
  const char *name; /* "cpu", "cuda", ... */
  int (*device_open)(const struct sp_device_cfg *cfg, void **dev, char *err, size_t errlen);
  void (*device_close)(void *dev);
  /* First call on every worker thread. CUDA: cudaSetDevice, then cudaGetDevice must
   * confirm; *confirmed_ordinal gets what was confirmed (-1 for CPU devices). */
  int (*worker_bind)(void *dev, unsigned worker, int *confirmed_ordinal, char *err, size_t errlen);
  void (*worker_unbind)(void *dev, unsigned worker);
  /* Host-side work without the device lock (may be NULL). *prep is passed on. */
  int (*prepare)(void *dev, const sp_task *t, void **prep, char *err, size_t errlen);
  /* Device work, called with the device lock held. Writes the compressed proof. */
  int (*execute)(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                 size_t errlen);
  /* Frees what prepare made (may be NULL). */
  void (*release)(void *dev, void *prep);
  /* Drops any per-device copy of srs (called before srs is freed; may be NULL). */
  void (*srs_evict)(void *dev, const struct sp_srs *srs);
  /* Bytes of device memory in use (may be NULL). */
  uint64_t (*memory_in_use)(void *dev);
  /* Bytes of host memory the engine holds page-locked for this device: staging
   * buffers, registered parameter vectors (may be NULL). */
  uint64_t (*host_memory_in_use)(void *dev);
  /* Drops any per-device copy of a constraint system (called before cs is freed; may
   * be NULL). */
  void (*cs_evict)(void *dev, const struct sp_cs *cs);
  /* Fault-injection builds only (configure --enable-fault-injection; NULL otherwise):
   * the next execute's first n device allocations fail as out of memory. Called by the
   * fault engine (fault.h) with the device lock held, right before execute. */
  void (*fault_oom)(void *dev, unsigned n);
  /* The device code the engine runs on this device, for devices(): "sm_90" (a binary
   * built for it), "compute_121 (JIT)" (PTX the driver compiled). Called on the thread
   * that opens the provider once every worker has bound; reads what worker_bind found
   * and makes no device call. NULL (or "" written): nothing to say (CPU). */
  void (*device_code)(void *dev, char *out, size_t len);
  /* Bytes the engine has copied from the host to this device so far (partitions'
   * assignments, streamed and resident parameter points): a counter for stats() (may be
   * NULL). Any thread. */
  uint64_t (*transfer_bytes)(void *dev);
  /* What a partition of this shape needs on the device, and what the device has (above).
   * Pure arithmetic on what device_open was given: any thread, no device call, no lock.
   * NULL: the device takes any partition (nothing bounds it). */
  void (*capacity)(void *dev, const sp_partition_shape *shape, sp_capacity *out);
  /* Seconds of the last execute on this device that were one-time work for its
   * parameter set rather than the partition's (an upload of the points, a fixed-base
   * table): the scheduler leaves them out of the device's speed. Called by the worker
   * that ran that execute, with the device lock still held. NULL: none. */
  double (*setup_seconds)(void *dev);
} sp_engine_ops;

extern const sp_engine_ops sp_engine_cpu;

/* Opens cfg's device for the runtime on its engine eng: eng->device_open; or, in a build
 * with fault injection and a device whose configuration asks for faults ([testing] in
 * the INI: cfg->inject), the fault engine wrapped around eng (fault.h). *ops gets the
 * table to call for the device from then on (eng itself, or the wrapper's, which has
 * eng's name and lives until its device_close). Statuses as device_open. */
int sp_engine_open(const sp_engine_ops *eng, const sp_device_cfg *cfg, const sp_engine_ops **ops,
                   void **dev, char *err, size_t errlen);

/* ---- capacity helpers (capacity.c) ---------------------------------------------------- */

/* The shape of srs's partitions; of a .params file's before it is loaded (its lengths,
 * formats/srs.h: sp_srs_peek_lengths). */
void sp_shape_of_srs(const struct sp_srs *srs, sp_partition_shape *out);
void sp_shape_of_lengths(const struct sp_srs_lengths *lens, sp_partition_shape *out);
/* A 32 GiB PoRep C2 partition (docs/design.md): domain 2^27, 328 inputs (ONE included),
 * 130,169,893 aux variables, of which 99.7 % in A and 25.4 % in B. The capacity below
 * and the benchmarks' synthetic sets are shaped by these. */
#define SP_SEALING_LOG 27u
#define SP_SEALING_AUX UINT64_C(130169893)
#define SP_SEALING_INPUTS 328u
#define SP_SEALING_A_PERMILLE 997u
#define SP_SEALING_B_PERMILLE 254u
/* That partition scaled to 2^log_domain (the inputs stay as they are): the shape
 * `devices()` reports capacity in. */
void sp_shape_sealing(unsigned log_domain, sp_partition_shape *out);
/* The bytes a device needs for shape: streamed when the set can stream, else resident. */
uint64_t sp_capacity_need(const sp_capacity *c, const sp_partition_shape *shape);
/* Does the device of ops/dev hold a partition of shape? *c (may be NULL) gets its
 * answer; a device without a capacity op holds anything. */
bool sp_capacity_fits(const sp_engine_ops *ops, void *dev, const sp_partition_shape *shape,
                      sp_capacity *c);
/* The largest k (1..SP_CAPACITY_MAX_LOG) such that a sealing-shaped partition of 2^k
 * fits the device in the given way; 0 when none does, -1 when the device has no bound.
 * An engine that makes no tables has none at any size (0). */
typedef enum sp_capacity_way {
  SP_CAPACITY_RESIDENT,
  SP_CAPACITY_TABLES,
  SP_CAPACITY_STREAMED
} sp_capacity_way;
int sp_capacity_largest(const sp_engine_ops *ops, void *dev, sp_capacity_way way);

/* ---- device kinds ------------------------------------------------------------------- */

/* A .params load the runtime asks a device kind to help with (runtime/params.c). */
typedef struct sp_load_request {
  const char *path;
  const struct sp_srs_load_opts *opts; /* the runtime's: threads, manifest, subgroup
                                          checks, progress and log callbacks */
  const sp_device_cfg *devices;        /* the provider's whole device table */
  size_t ndevices;
  bool host_residency; /* [provider] params_residency = host */
} sp_load_request;

/* What a device kind brings: its engine, and the services the runtime would otherwise
 * have to reach into the kind's own code for. Members other than type, name and ops
 * may be NULL. */
typedef struct sp_backend {
  sp_device_type type;
  const char *name; /* the INI's type = ... ("cpu", "cuda") */
  const sp_engine_ops *ops;
  /* Lists the GPUs this process can see. Without a driver or GPU: OK with *count = 0.
   * Does not change the calling thread's current device. */
  int (*enumerate)(sp_gpu_info *out, int cap, int *count, char *err, size_t errlen);
  /* A .params load (never a .vk) with this kind's devices helping: subgroup checks on a
   * device, or the proving vectors straight onto the devices. Runs on a thread of the
   * backend's own that it binds to its device first, so the calling (host) thread's
   * device never changes. *handled = false: nothing for the devices to do (the caller
   * loads on the host); else the status and *out are the load's. Errors as
   * sp_srs_load_ex, with the message in err. */
  int (*load)(const sp_load_request *req, struct sp_srs **out, bool *handled, char *err,
              size_t errlen);
} sp_backend;

/* The backend of a device kind, or NULL when this build has none for it. */
const sp_backend *sp_backend_for(sp_device_type type);
extern const sp_backend sp_backend_cpu;
extern const sp_backend sp_backend_cuda; /* only in a build with CUDA (backends.c) */

#ifdef __cplusplus
}
#endif
#endif
