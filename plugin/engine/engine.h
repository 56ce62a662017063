/* engine.h -- the one interface that every proving engine implements.
 *
 * The scheduler (sched.c) owns devices, workers, locks, retries and verification; an
 * engine only knows how to bind a thread to its device and turn one partition into
 * 192 proof bytes. Implementations: engine_cpu.c (reference; CI; hosts without GPUs),
 * cuda/engine_cuda.c on the kernels in cuda/ (behind HAVE_CUDA), and a recording test
 * engine in tests/.
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

#ifdef __cplusplus
extern "C" {
#endif

struct sp_srs;
struct sp_device_cfg;
struct sp_cs;

/* One partition to prove. Everything points into memory that stays alive until the
 * task ends. */
typedef struct sp_task {
  uint64_t job_id;
  uint32_t partition;
  const struct sp_srs *srs;
  const sealprov_assignment *asg;  /* host memory, validated against srs at submit */
  uint32_t scalar_encoding;        /* sealprov_scalar_encoding */
  fr_t r, s;                       /* blinding factors for this partition (Montgomery) */
  unsigned cpu_threads;            /* host threads the engine may use */
  /* Fault injection for tests ([testing] in the INI); 0 = none. */
  uint32_t inject;                 /* SP_INJECT_* */
  /* A witness-only partition (job->cs): asg carries only inputs and aux (checked
   * against cs at submit); the engine computes a, b, c from cs (cs.h: sp_cs_evaluate)
   * and takes the densities from it. NULL: asg is a full assignment. */
  const struct sp_cs *cs;
} sp_task;

#define SP_INJECT_FAIL_KERNEL 0x1u   /* execute returns SEALPROV_ERR_DEVICE */
#define SP_INJECT_CORRUPT_PROOF 0x2u /* execute flips a byte of the proof */
#define SP_INJECT_OOM 0x4u           /* the task's first device allocation fails as out of memory */

typedef struct sp_engine_ops {
  const char *name;   /* "cpu", "cuda", ... */
  int (*device_open)(const struct sp_device_cfg *cfg, void **dev, char *err, size_t errlen);
  void (*device_close)(void *dev);
  /* First call on every worker thread. CUDA: cudaSetDevice, then cudaGetDevice must
   * confirm; *confirmed_ordinal gets what was confirmed (-1 for CPU devices). */
  int (*worker_bind)(void *dev, unsigned worker, int *confirmed_ordinal, char *err,
                     size_t errlen);
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
} sp_engine_ops;

extern const sp_engine_ops sp_engine_cpu;
#ifdef HAVE_CUDA
extern const sp_engine_ops sp_engine_cuda;
#endif

#ifdef __cplusplus
}
#endif
#endif
