/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* backends.c -- which device kinds this build has, and how the runtime opens a device on
 * its engine. The one place that knows whether the CUDA backend was built (everything
 * above the engine layer asks sp_backend_for) and whether the fault engine was. */
#include <config.h> /* HAVE_CUDA, SP_FAULT_INJECTION */

#include <stddef.h>

#include "engine/engine.h"
#include "engine/fault.h"

static const sp_backend *const backends[] = {
    &sp_backend_cpu,
#ifdef HAVE_CUDA
    &sp_backend_cuda,
#endif
};

const sp_backend *sp_backend_for(sp_device_type type) {
  for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
    if (backends[i]->type == type) return backends[i];
  return NULL;
}

int sp_engine_open(const sp_engine_ops *eng, const sp_device_cfg *cfg, const sp_engine_ops **ops,
                   void **dev, char *err, size_t errlen) {
#ifdef SP_FAULT_INJECTION
  if (cfg != NULL && cfg->inject != 0) return sp_fault_open(eng, cfg, ops, dev, err, errlen);
#endif
  *ops = eng;
  return eng->device_open(cfg, dev, err, errlen);
}
