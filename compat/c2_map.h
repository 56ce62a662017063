/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_map.h -- Curio's gpu_index -> a sealprov device_mask (libsealprov_c2, internal).
 *
 * Kept apart from c2.c so that tests/compat/test_c2_map.c can check the mapping on
 * device tables this machine does not have (CUDA devices), without a module. */
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

#endif
