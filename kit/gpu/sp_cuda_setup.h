/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* sp_cuda_setup.h -- the fixed-base products of the INSECURE synthetic setup
 * (kit/circuit.c) on a GPU: k[i] * G for G1's or G2's generator, serialized on the
 * device in bellperson's uncompressed encoding, so that `sealprov setup --gpu` writes
 * the CPU setup's bytes. (setup.cu) */
#ifndef SEALPROV_CUDA_SP_CUDA_SETUP_H
#define SEALPROV_CUDA_SP_CUDA_SETUP_H

#include <stdbool.h>
#include <stddef.h>

#include "circuit.h" /* sp_fixed_base */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_cuda_setup sp_cuda_setup;

/* Binds the calling thread to `ordinal` (cudaSetDevice, confirmed) and makes the
 * tables (d * 2^(16 j) * G for 16 windows j and every 16-bit d: 101 MB for G1, 201
 * MB for G2, built on the device at first use). The thread that created it makes
 * every call. Returns OK, DEVICE, DEVICE_MEMORY or NO_MEMORY. */
int sp_cuda_setup_create(int ordinal, sp_cuda_setup **out, char *err, size_t errlen);
void sp_cuda_setup_destroy(sp_cuda_setup *s);
/* The engine for sp_circuit_write_params_fb / sp_setup_opts.fixed_base (valid while
 * s lives). */
sp_fixed_base sp_cuda_setup_fixed_base(sp_cuda_setup *s);

#ifdef __cplusplus
}
#endif
#endif
