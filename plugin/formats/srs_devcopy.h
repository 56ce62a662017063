/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* srs_devcopy.h -- what a direct load leaves behind: the device copies of a
 * parameter set's proving vectors, and a point the devices rejected. Plain C that C++
 * includes too (the CUDA backend's points.cu fills them); srs.h itself cannot be: its
 * C11 atomics have no C++ equivalent. */
#ifndef SEALPROV_FORMATS_SRS_DEVCOPY_H
#define SEALPROV_FORMATS_SRS_DEVCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A device copy of a parameter set's five proving vectors (h, l, a, b_g1, b_g2), in the
 * engine's resident layout (the host decoder's g1_affine_t / g2_affine_t bytes,
 * Montgomery affine), one per device. Owned by the sp_srs it belongs to (srs.h:
 * sp_srs.devcopy), freed with it through sp_srs.devcopy_free. */
#define SP_DEVCOPY_MAX 16
typedef struct sp_srs_devcopy {
  unsigned ndev;
  int ordinal[SP_DEVCOPY_MAX];
  void *vec[SP_DEVCOPY_MAX][5]; /* NULL for an empty vector */
  size_t bytes[5];              /* per vector, the same on every device */
  uint64_t total_bytes;         /* per device */
  double upload_ms;             /* host wall time of the load's device work */
  double wait_ms;               /* of which the reader waited for the devices (a
                                     buffer still in use, the last checks) */
} sp_srs_devcopy;
/* A point the device rejected: its vector (0..4), index, byte offset and its encoding as
 * read (the loader recomputes the reason on the CPU, so the message is the CPU
 * loader's). */
typedef struct sp_srs_bad {
  bool any;
  int vec;
  size_t index;
  uint64_t off;
  unsigned char enc[192];
} sp_srs_bad;

#ifdef __cplusplus
}
#endif
#endif
