/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* params.h -- a provider's parameter load: .params or .vk, with the devices of the
 * provider helping where their backend can (engine.h, sp_backend.load). */
#ifndef SEALPROV_RUNTIME_PARAMS_H
#define SEALPROV_RUNTIME_PARAMS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/srs.h"
#include "runtime/device_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a provider counts of its .params loads (stats(): sealprov_params_*). */
typedef struct sp_params_stats {
  _Atomic uint64_t full;      /* loads that checked every point */
  _Atomic uint64_t record;    /* loads that skipped the subgroup checks on a validation record
                                 whose digest then verified */
  _Atomic uint64_t unchecked; /* params_subgroup_check = false */
  _Atomic uint64_t records_written;
  _Atomic uint64_t records_refused; /* found but not used: stale, untrusted, not a record, or
                                       a digest that differed */
  _Atomic uint64_t digest_ns;       /* the reading threads' time spent on digests */
  /* shared images (params_shared_image): made by a load, mapped by one, or found and
     not used (not trusted, stale, damaged: then made again unless not trusted) */
  _Atomic uint64_t image_made, image_mapped, image_refused;
  atomic_bool store_noted; /* that the record store cannot be used was logged */
} sp_params_stats;

/* Loads path (a .vk when vk_only) with cfg's [provider] settings: load_threads,
 * params_manifest, params_subgroup_check, params_residency, params_validation_cache.
 * Progress and the loader's own lines go to the module's log. A .params load goes to the
 * backend of the first device whose kind offers help (the CUDA backend: subgroup checks
 * on its first device, or the direct load onto every device); else, and for a .vk, it
 * runs on the calling thread. With subgroup checks on, a .params load looks for a
 * validation record of the file (formats/vrecord.h) and skips the subgroup checks when a
 * trusted one matches and the file's digest agrees; a load that checked everything
 * writes one. stats (may be NULL) counts what happened. Statuses and messages as
 * sp_srs_load_ex (formats/srs.h). */
int sp_params_load(const sp_config *cfg, const char *path, bool vk_only, sp_params_stats *stats,
                   sp_srs **out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
