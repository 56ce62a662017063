/* backends.c -- which device kinds this build has. The one place that knows whether
 * the CUDA backend was built: everything above the engine layer asks sp_backend_for. */
#include <config.h> /* autoconf's: HAVE_CUDA */

#include <stddef.h>

#include "engine/engine.h"

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
