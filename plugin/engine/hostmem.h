/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* hostmem.h -- host memory the module holds for partitions: counted per device and in
 * total, under an optional cap ([provider] host_memory_limit), and a pool of fixed-size
 * chunk buffers that the staging takes from.
 *
 * One accountant per provider (design rule 3: no process-wide state): the scheduler
 * makes it at open with the provider's cap and hands it to every engine device through
 * sp_device_cfg.hostmem; two providers in one process keep their own caps, counters and
 * chunk pools, and a failed open leaves nothing behind. Engines call it from any thread.
 *
 * What is counted: every byte an engine allocates for partitions on the host (pinned
 * chunk buffers, whole-partition staging buffers, bounce buffers, a witness-only
 * partition's a, b, c). Not counted: the host's own arrays (assignments, parameter
 * vectors the host or the loader made), which the module only reads.
 *
 * The cap is enforced where memory can wait: a chunk of the pool is handed out only
 * while the total stays within the cap, and a taker that finds no chunk free and no
 * room waits until another taker gives one back (chunks are held only while a
 * partition is staged, so they always come back). Callers that cannot wait (a
 * whole-partition staging buffer) ask sp_hostmem_try_reserve and fall back to a path
 * that needs no memory of theirs. Memory counted with sp_hostmem_add (bytes another
 * component already allocated) is never refused.
 *
 * A release of more than is held (a double release: a bug) is never hidden: the
 * counters stay at zero, release_errors counts it and the module logs an ERROR line.
 */
#ifndef SEALPROV_HOSTMEM_H
#define SEALPROV_HOSTMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Devices counted separately (device index of the provider, sp_device_cfg.index);
 * memory of a higher index, and idle chunks of the pool, count in the total only. */
#define SP_HOSTMEM_DEVICES 64
/* "No device": the pool's idle chunks. */
#define SP_HOSTMEM_SHARED UINT32_MAX

typedef struct sp_hostmem sp_hostmem;

/* A new accountant with cap limit (bytes, 0 = none). SEALPROV_OK or NO_MEMORY. */
int sp_hostmem_create(uint64_t limit, sp_hostmem **out);
/* Frees the accountant and the idle chunks of its pool (every chunk must have been
 * given back and the pool dropped by every holder). NULL is ignored. */
void sp_hostmem_destroy(sp_hostmem *hm);

/* The cap in bytes, 0 = none. Lowering it below what is held refuses new memory until
 * enough is given back; nothing held is taken away. */
void sp_hostmem_set_limit(sp_hostmem *hm, uint64_t bytes);
uint64_t sp_hostmem_limit(sp_hostmem *hm);

/* Reserves bytes for device dev if the total stays within the cap (always, without a
 * cap). True if reserved. Never waits. */
bool sp_hostmem_try_reserve(sp_hostmem *hm, uint32_t dev, uint64_t bytes);
/* Counts bytes that were allocated anyway (never refused, may pass the cap). */
void sp_hostmem_add(sp_hostmem *hm, uint32_t dev, uint64_t bytes);
/* Gives back what try_reserve or add counted for dev. */
void sp_hostmem_release(sp_hostmem *hm, uint32_t dev, uint64_t bytes);

typedef struct sp_hostmem_stats {
  uint64_t total;                        /* held now */
  uint64_t peak;                         /* highest total since the last sp_hostmem_reset_peak */
  uint64_t limit;                        /* the cap, 0 = none */
  uint64_t shared;                       /* idle chunks of the pool (part of total) */
  uint64_t waits;                        /* takers that had to wait for a chunk */
  double wait_s;                         /* time they waited, in total */
  uint64_t refusals;                     /* try_reserve calls refused by the cap */
  uint64_t release_errors;               /* releases of more than was held (double releases) */
  uint64_t dev[SP_HOSTMEM_DEVICES];      /* held now per device */
  uint64_t dev_peak[SP_HOSTMEM_DEVICES]; /* highest per device since the reset */
} sp_hostmem_stats;
void sp_hostmem_get(sp_hostmem *hm, sp_hostmem_stats *out);
/* Peaks start again from what is held now (benchmarks, between runs). */
void sp_hostmem_reset_peak(sp_hostmem *hm);

/* ---- chunk pools -------------------------------------------------------------------
 * Chunks of chunk_bytes each, allocated on demand through alloc (with the user pointer
 * the taker passes: pinned memory must be allocated with a device current), kept when
 * given back, freed by sp_chunk_pool_trim. A pool counts its chunks in the accountant
 * it was made with and obeys its cap. */
typedef void *(*sp_chunk_alloc_fn)(size_t bytes, void *user);
typedef void (*sp_chunk_free_fn)(void *p, void *user);
typedef struct sp_chunk_pool sp_chunk_pool;

int sp_chunk_pool_create(sp_hostmem *hm, size_t chunk_bytes, sp_chunk_alloc_fn alloc,
                         sp_chunk_free_fn free_fn, sp_chunk_pool **out);
/* Frees the idle chunks and the pool; every chunk must have been given back. */
void sp_chunk_pool_destroy(sp_chunk_pool *p, void *user);
size_t sp_chunk_pool_chunk_bytes(const sp_chunk_pool *p);

/* The provider's staging pool, shared by its engine devices: the first hold makes it
 * (chunk_bytes, alloc, free_fn as sp_chunk_pool_create), each further hold takes a
 * reference, and the drop of the last reference frees it with its idle chunks (user as
 * for trim). NULL when it could not be made (the caller stages without chunks). */
sp_chunk_pool *sp_hostmem_pool_hold(sp_hostmem *hm, size_t chunk_bytes, sp_chunk_alloc_fn alloc,
                                    sp_chunk_free_fn free_fn);
void sp_hostmem_pool_drop(sp_hostmem *hm, void *user);
/* The staging pool now (NULL: none is held). */
sp_chunk_pool *sp_hostmem_pool(sp_hostmem *hm);

/* Takes between 1 and want (at most 16) chunks for device dev into chunks[]: idle ones
 * first, then new ones while the cap allows. When it can have none, it waits while
 * another taker holds chunks of this pool (they come back when that partition is
 * staged); *waited says whether it did. Returns the number taken, or 0 when no chunk
 * can be had at all (a chunk is larger than the cap, what others hold that is not this
 * pool's fills the cap, or the allocation failed): the caller then stages without
 * chunks. */
unsigned sp_chunk_pool_take(sp_chunk_pool *p, uint32_t dev, unsigned want, void **chunks,
                            void *user, bool *waited);
/* Gives n chunks back (wakes a waiting taker). */
void sp_chunk_pool_give(sp_chunk_pool *p, uint32_t dev, unsigned n, void *const *chunks);
/* Frees the idle chunks (held ones stay); returns the bytes freed. */
uint64_t sp_chunk_pool_trim(sp_chunk_pool *p, void *user);

/* Counters of one pool. */
typedef struct sp_chunk_pool_stats {
  unsigned chunks, idle, held; /* allocated, idle, taken now */
  unsigned waiting;            /* takers waiting now */
} sp_chunk_pool_stats;
void sp_chunk_pool_get(const sp_chunk_pool *p, sp_chunk_pool_stats *out);

#ifdef __cplusplus
}
#endif
#endif
