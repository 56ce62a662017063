/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* device_table.h -- the device table and provider settings of an INI file (ini.c reads
 * it with inih; resolve.c binds its GPUs).
 * See docs/configuration.md for every key. */
#ifndef SEALPROV_RUNTIME_DEVICE_TABLE_H
#define SEALPROV_RUNTIME_DEVICE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/device.h" /* sp_device_cfg: a device as its engine sees it */

#ifdef __cplusplus
extern "C" {
#endif

/* [provider] params_residency */
enum { SP_RESIDENCY_AUTO = 0, SP_RESIDENCY_HOST = 1 };
/* [provider] unseen_gpus: a cuda section whose GPU this process does not see fails open
 * (error, the default) or is left out of the table (skip: one INI for a whole host, read
 * by processes that each see some of its GPUs through CUDA_VISIBLE_DEVICES). */
enum { SP_UNSEEN_ERROR = 0, SP_UNSEEN_SKIP = 1 };

/* A device section that sp_config_resolve_devices left out (unseen_gpus = skip). */
typedef struct sp_skipped_section {
  char section[64];
  char selector[88]; /* as the user writes it: "uuid=GPU-...", "pci=..." */
  int line;          /* of its device = line */
} sp_skipped_section;

typedef struct sp_config {
  char path[4096];
  int log_level;                /* sealprov_log_level; [provider] log_level */
  bool verify_proofs;           /* [provider] verify_proofs (default true) */
  bool params_subgroup_check;   /* [provider] params_subgroup_check (default true) */
  unsigned max_jobs;            /* [provider] max_jobs: jobs queued or running (default 64) */
  unsigned max_partitions;      /* [provider] max_partitions queued (default 1024) */
  unsigned quarantine_after;    /* [provider] quarantine_after failures (default 3) */
  unsigned max_attempts;        /* [provider] max_attempts per partition (default 3) */
  unsigned timeline_events;     /* [provider] timeline_events kept (default 4096) */
  unsigned load_threads;        /* [provider] load_threads for .params decoding (0 = auto) */
  char params_manifest[4096];   /* [provider] params_manifest: parameters.json ("" = none) */
  bool numa_off;                /* [provider] numa = off (default auto: false) */
  uint64_t host_memory_limit;   /* [provider] host_memory_limit: bytes, 0 = auto/off (hostmem.h) */
  int params_residency;         /* [provider] params_residency: SP_RESIDENCY_* (default auto) */
  uint64_t staging_chunk_bytes; /* [provider] staging_chunk_size (0 = the default, device.h) */
  int unseen_gpus;              /* [provider] unseen_gpus: SP_UNSEEN_* (default error) */
  int unseen_gpus_line;         /* its line; 0 when not set */
  /* [provider] params_validation_cache: "" = auto (the default), "off", or an absolute
   * folder: where records of completed .params validations live (formats/vrecord.h) */
  char params_validation_cache[4096];
  /* [provider] params_shared_image: "" = off (the default), "auto", or an absolute
   * folder: where the host's one decoded copy of a .params file lives
   * (formats/shimage.h) */
  char params_shared_image[4096];
  sp_device_cfg devices[SP_MAX_DEVICES];
  size_t ndevices;
  /* Filled by sp_config_resolve_devices: the sections it left out of devices[] (which
   * keeps the others in INI order, index renumbered). */
  sp_skipped_section skipped[SP_MAX_DEVICES];
  size_t nskipped;
} sp_config;

/* Parses path into *out (zeroed first, defaults applied). Returns a sealprov_status:
 * OK, IO (cannot open), CONFIG (err: "file:line: [section] key = value: why"). */
int sp_config_load(const char *path, sp_config *out, char *err, size_t errlen);
/* Resolves every cuda device's selector to a runtime ordinal and fills name/uuid/pci;
 * rejects GPUs that are not present (with unseen_gpus = skip: leaves their sections out,
 * logged at INFO and listed in skipped[], and fails only when no section is left), two
 * sections resolving to one GPU, and cuda devices in a build without CUDA
 * (UNSUPPORTED). Does not change any thread's current device and never sets
 * CUDA_VISIBLE_DEVICES. */
int sp_config_resolve_devices(sp_config *cfg, char *err, size_t errlen);

struct sp_gpu_info;
/* The matching step of sp_config_resolve_devices against a given GPU list (what
 * sp_cuda_enumerate reported); lets tests check resolution without a GPU. */
int sp_config_resolve_with_gpus(sp_config *cfg, const struct sp_gpu_info *gpus, int ngpus,
                                char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
