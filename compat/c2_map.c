/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_map.c -- libsealprov_c2's views of the device table: Curio's gpu_index -> a
 * sealprov device_mask, and the prover line of create_SRS (see c2_map.h). */
#include <config.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
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

void c2_format_prover(const char *version, const char *module_path, const char *lib_version,
                      const char *lib_path, const sealprov_device_info *dev, size_t count,
                      char *out, size_t len) {
  int w =
      snprintf(out, len, "sealprov %s (module %s; libsealprov_c2 %s %s), %zu device(s):", version,
               module_path, lib_version, lib_path, count);
  size_t used = w > 0 ? (size_t)w : 0;
  for (size_t i = 0; i < count && used < len; i++) {
    const sealprov_device_info *d = &dev[i];
    if (strcmp(d->type, "cuda") == 0)
      w = snprintf(out + used, len - used, "%s [%.63s] cuda ordinal %d %.95s %.47s", i ? ";" : "",
                   d->section, d->ordinal, d->name, d->uuid);
    else
      w = snprintf(out + used, len - used, "%s [%.63s] %.7s", i ? ";" : "", d->section, d->type);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* The file an address of a loaded object belongs to ("?" when dladdr cannot say). */
static const char *file_of(const void *addr) {
  Dl_info info;
  return dladdr(addr, &info) != 0 && info.dli_fname != NULL ? info.dli_fname : "?";
}

void c2_describe_prover(const sealprov_vtable *vt, sealprov_provider *p, char *out, size_t len) {
  sealprov_device_info dev[64]; /* a provider has at most 64 devices (SP_MAX_DEVICES) */
  size_t count = 0;
  memset(dev, 0, sizeof dev);
  for (size_t i = 0; i < 64; i++) dev[i].struct_size = sizeof dev[i];
  if (vt->devices(p, dev, 64, &count) != SEALPROV_OK) count = 0;
  if (count > 64) count = 64;
  /* Function pointers as addresses: the module's own table entry, and this function. */
  union {
    const char *(*fn)(void);
    const void *addr;
  } module_fn = {.fn = vt->version};
  union {
    void (*fn)(const sealprov_vtable *, sealprov_provider *, char *, size_t);
    const void *addr;
  } lib_fn = {.fn = c2_describe_prover};
  c2_format_prover(vt->version(), file_of(module_fn.addr), PACKAGE_VERSION, file_of(lib_fn.addr),
                   dev, count, out, len);
}
