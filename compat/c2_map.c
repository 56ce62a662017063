/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_map.c -- Curio's gpu_index -> a sealprov device_mask (see c2_map.h). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "c2_map.h"

int c2_map_gpu_index(const sealprov_device_info *dev, size_t count, int gpu_index, uint64_t *mask,
                     char *where, size_t wlen, char *msg, size_t mlen) {
  *mask = 0;
  snprintf(where, wlen, "any device");
  msg[0] = '\0';
  if (gpu_index == -1) return SEALPROV_OK;
  if (gpu_index < -1) {
    snprintf(msg, mlen, "gpu_index %d: must be -1 (any device) or a CUDA ordinal (0, 1, ...)",
             gpu_index);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (count > 64) count = 64; /* a table has at most 64 devices (SP_MAX_DEVICES) */
  size_t ncuda = 0, off = 0;
  char ordinals[400] = "";
  for (size_t i = 0; i < count; i++) {
    if (strcmp(dev[i].type, "cuda") != 0) continue;
    ncuda++;
    if (dev[i].ordinal == gpu_index) {
      *mask = SEALPROV_DEVICE_BIT(i);
      snprintf(where, wlen, "device %zu [%.63s], CUDA ordinal %d", i, dev[i].section, gpu_index);
      return SEALPROV_OK;
    }
    if (off < sizeof ordinals)
      off += (size_t)snprintf(ordinals + off, sizeof ordinals - off, "%s%d [%.63s]",
                              off ? ", " : "", dev[i].ordinal, dev[i].section);
  }
  if (ncuda > 0) {
    snprintf(msg, mlen,
             "gpu_index %d: no device of the provider is CUDA ordinal %d (its CUDA devices: %s; "
             "sealprov devices -c <INI> lists them)",
             gpu_index, gpu_index, ordinals);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  if (gpu_index >= 64) {
    snprintf(msg, mlen,
             "gpu_index %d: the provider has no CUDA devices and %zu device(s); gpu_index then "
             "names a device of its table (0 to %zu)",
             gpu_index, count, count > 0 ? count - 1 : 0);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  /* CPU devices only: the table index; submit refuses an index past the table. */
  *mask = SEALPROV_DEVICE_BIT(gpu_index);
  if ((size_t)gpu_index < count)
    snprintf(where, wlen, "device %d [%.63s] (no CUDA devices: gpu_index is the table index)",
             gpu_index, dev[gpu_index].section);
  else
    snprintf(where, wlen,
             "device %d (no CUDA devices: gpu_index is the table index, which "
             "has %zu)",
             gpu_index, count);
  return SEALPROV_OK;
}
