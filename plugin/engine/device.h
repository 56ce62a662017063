/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* device.h -- one device of a provider as its engine sees it: what the INI says of it,
 * what open() resolved it to, and what the runtime hands the engine (its host-memory
 * accountant). The runtime fills it (runtime/ini.c, pool.c, sched.c); engines read
 * it at device_open. */
#ifndef SEALPROV_ENGINE_DEVICE_H
#define SEALPROV_ENGINE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_MAX_DEVICES 64
#define SP_PINNED_STAGING_OFF UINT64_MAX /* sp_device_cfg.pinned_staging = off */
/* = whole: a whole-partition pinned buffer per worker, budget auto */
#define SP_PINNED_STAGING_WHOLE (UINT64_MAX - 1)
/* = chunked: the same as auto (0); sizes are at most SP_PINNED_STAGING_CHUNKED - 1 */
#define SP_PINNED_STAGING_CHUNKED (UINT64_MAX - 2)
#define SP_MSM_PRECOMPUTE_OFF UINT64_MAX /* sp_device_cfg.msm_precompute = off */
/* Chunked staging ([provider] staging_chunk_size, staging_chunks in a device section):
 * the size of the provider's pinned chunks and how many one partition being staged
 * takes; 0 in sp_device_cfg means the default. At most SP_XFER_SLOTS chunks (sp_gpu.h). */
#define SP_STAGING_CHUNK_BYTES_DEFAULT ((uint64_t)128 << 20)
#define SP_STAGING_CHUNK_BYTES_MIN ((uint64_t)1 << 20)
#define SP_STAGING_CHUNK_BYTES_MAX ((uint64_t)4 << 30)
#define SP_STAGING_CHUNKS_DEFAULT 4u
#define SP_STAGING_CHUNKS_MAX 16u

typedef enum sp_device_type { SP_DEVICE_CPU = 0, SP_DEVICE_CUDA = 1 } sp_device_type;
typedef enum sp_selector_kind {
  SP_SELECT_NONE = 0,    /* cpu devices */
  SP_SELECT_ORDINAL = 1, /* device = 0 */
  SP_SELECT_UUID = 2,    /* device = uuid=GPU-... */
  SP_SELECT_PCI = 3      /* device = pci=0000:65:00.0 */
} sp_selector_kind;

typedef struct sp_device_cfg {
  unsigned index;   /* position among device sections, INI order */
  char section[64]; /* section name */
  int line;         /* line of the section header */
  sp_device_type type;
  sp_selector_kind selector_kind;
  char selector[80]; /* the selector text as written (after the kind= prefix) */
  int selector_line;
  int selector_ordinal;  /* for SP_SELECT_ORDINAL */
  unsigned workers;      /* default: 2 for cuda, 1 for cpu */
  unsigned threads;      /* host threads per task (cpu engine work); 0 = auto */
  uint64_t memory_limit; /* bytes; 0 = no limit */
  /* pinned_staging: 0 = auto (the default) = SP_PINNED_STAGING_CHUNKED: chunked staging
   * (a few pinned chunks of a shared pool carry each partition into a device buffer);
   * SP_PINNED_STAGING_WHOLE or a byte budget: whole-partition pinned buffers (the
   * earlier default), within the budget; SP_PINNED_STAGING_OFF = off. */
  uint64_t pinned_staging;
  /* msm_precompute: device memory for fixed-base MSM tables of resident parameter sets
   * (cuda/DESIGN.md): 0 = auto (what the resident sets, each worker's partition
   * buffer and an execute's working memory leave), SP_MSM_PRECOMPUTE_OFF = off, else
   * bytes. */
  uint64_t msm_precompute;
  /* staging_chunks: pinned chunks a partition being staged takes (chunked staging), 1 to
   * SP_STAGING_CHUNKS_MAX; 0 = SP_STAGING_CHUNKS_DEFAULT. staging_chunk_bytes: [provider]
   * staging_chunk_size, copied into every device (the provider's chunk pool is one for
   * all its devices); 0 = SP_STAGING_CHUNK_BYTES_DEFAULT. */
  unsigned staging_chunks;
  uint64_t staging_chunk_bytes;
  /* numa_node = N in the device section (numa_node_set): the NUMA node its workers are
   * bound to, instead of the node sysfs gives a GPU's PCI device (CPU devices have
   * none). numa_off: [provider] numa = off, copied into every device. Zero (a table
   * made in memory) means: no INI node, numa = auto. */
  bool numa_node_set;
  unsigned numa_node;
  bool numa_off;
  /* Filled by sp_config_resolve_devices(): */
  int ordinal; /* CUDA runtime ordinal; -1 for cpu devices */
  char name[96];
  char uuid[48];          /* "GPU-...", "" for cpu */
  char pci_bus_id[24];    /* "0000:65:00.0", "" for cpu */
  int cc_major, cc_minor; /* compute capability; -1 for cpu */
  uint64_t total_memory;  /* the GPU's memory in bytes (enumeration); 0 for cpu */
  int sm_count;           /* its multiprocessors; 0 for cpu */
  /* [testing] fault injection aimed at this device (0 = none), SP_INJECT_* bits of
   * fault.h; only a build with --enable-fault-injection reads [testing] and honours
   * them (sp_engine_open). */
  uint32_t inject;
  uint32_t inject_count; /* inject on this many tasks, 0 = every task */
  /* Filled when the device's first worker starts (pool.c, topo.h: sp_topo_place), read
   * by devices() once open() has returned: */
  int topo_numa_node; /* -1: unknown, or a host with one node */
  unsigned pcie_gen, pcie_width, pcie_max_gen, pcie_max_width; /* 0 = unknown */
  unsigned bound_cpus; /* CPUs the workers are bound to; 0 = not bound */
  /* Filled once every worker has bound (pool.c, the engine's device_code): the device
   * code the engine runs ("sm_90", "compute_121 (JIT)"); "" for cpu devices. */
  char code[28];
  /* Set by the scheduler before device_open: the provider's host-memory accountant
   * (hostmem.h), which the engine counts its host memory in and takes staging chunks
   * from. NULL (an engine opened directly by a test or benchmark): the engine makes
   * one of its own, without a cap. */
  struct sp_hostmem *hostmem;
} sp_device_cfg;

/* A GPU as enumeration reports it (runtime/resolve.c matches the INI's selectors against it). */
typedef struct sp_gpu_info {
  int ordinal; /* CUDA runtime ordinal (as this process sees it) */
  char name[96];
  char uuid[48];       /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
  char pci_bus_id[24]; /* "0000:65:00.0" (lower-case hex) */
  uint64_t total_memory;
  int cc_major, cc_minor;
  int sm_count;
} sp_gpu_info;

#ifdef __cplusplus
}
#endif
#endif
