/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_map.h -- libsealprov_c2's views of the provider's device table (internal): Curio's
 * gpu_index -> a sealprov device_mask, and the line create_SRS logs about the prover.
 *
 * Kept apart from c2.c so that tests/compat/test_c2_map.c can check them on device
 * tables this machine does not have (CUDA devices), without a module. */
#ifndef SEALPROV_C2_MAP_H
#define SEALPROV_C2_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"

/* Maps gpu_index onto dev[0 .. count) (a devices() table):
 *   -1                          *mask = 0 (any device), where "any device";
 *   N >= 0, table has CUDA      the device whose ordinal is N (bit of its index); no
 *                               such device: INVALID_ARGUMENT naming the ordinals there;
 *   N >= 0, no CUDA devices     device N of the table (bit N, 0 <= N < 64; submit
 *                               refuses N past the table); N >= 64: INVALID_ARGUMENT;
 *   < -1                        INVALID_ARGUMENT.
 * Returns SEALPROV_OK or the status, with msg (the detail, no prefix) on failure and
 * where ("device 1 [gpu1], CUDA ordinal 0") on success. */
int c2_map_gpu_index(const sealprov_device_info *dev, size_t count, int gpu_index, uint64_t *mask,
                     char *where, size_t wlen, char *msg, size_t mlen);

/* The INFO line of create_SRS, after "create_SRS PATH: ": who proves, so that a host's
 * operator can confirm at run time that sealprov does, and on which devices:
 *   "sealprov 0.1.0 (module /x/sealprov.so; libsealprov_c2 0.1.0 /x/libsealprov_c2.so.0),
 *    2 device(s): [gpu1] cuda ordinal 0 NVIDIA H200 GPU-...; [cpu0] cpu"
 * Paths unknown: "?". Cut to len (which must be > 0). */
void c2_format_prover(const char *version, const char *module_path, const char *lib_version,
                      const char *lib_path, const sealprov_device_info *dev, size_t count,
                      char *out, size_t len);
/* The same for the provider p of the loaded module vt: its version and devices, and
 * the files the module and this library were loaded from (dladdr). */
void c2_describe_prover(const sealprov_vtable *vt, sealprov_provider *p, char *out, size_t len);

#endif
