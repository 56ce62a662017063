/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* params.h -- a provider's parameter load: .params or .vk, with the devices of the
 * provider helping where their backend can (engine.h, sp_backend.load). */
#ifndef SEALPROV_RUNTIME_PARAMS_H
#define SEALPROV_RUNTIME_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/srs.h"
#include "runtime/device_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads path (a .vk when vk_only) with cfg's [provider] settings: load_threads,
 * params_manifest, params_subgroup_check, params_residency. Progress and the loader's
 * own lines go to the module's log. A .params load goes to the backend of the first
 * device whose kind offers help (the CUDA backend: subgroup checks on its first device,
 * or the direct load onto every device); else, and for a .vk, it runs on the calling
 * thread. Statuses and messages as sp_srs_load_ex (formats/srs.h). */
int sp_params_load(const sp_config *cfg, const char *path, bool vk_only, sp_srs **out, char *err,
                   size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
