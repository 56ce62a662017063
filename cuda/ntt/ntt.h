/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* ntt.h -- the NTTs' C API (ntt.cu): transforms in place on device arrays, the H
 * polynomial of Groth16 in steps, the bit-reversal permutation. Conventions as
 * util/sp_gpu.h. */
#ifndef SEALPROV_CUDA_NTT_H
#define SEALPROV_CUDA_NTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sp_gpu.h" /* sp_gpu, the statuses and conventions of the kernels' C API */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sp_ntt_kind {
  SP_NTT_FORWARD = 0,       /* as ntt_forward */
  SP_NTT_INVERSE = 1,       /* as ntt_inverse */
  SP_NTT_COSET_FORWARD = 2, /* as ntt_coset_forward */
  SP_NTT_COSET_INVERSE = 3  /* as ntt_coset_inverse */
} sp_ntt_kind;

/* In place on a device array of 2^log_n Montgomery fr_t, natural order in and out;
 * bit-for-bit the CPU's ntt_* result. 1 <= log_n <= 28. */
int sp_gpu_ntt_dev(sp_gpu *g, void *d_a, unsigned log_n, sp_ntt_kind kind, char *err,
                   size_t errlen);

/* The H polynomial of Groth16, in steps, on device arrays of 2^log_n Montgomery
 * evaluations a, b, c (all three are overwritten; scratch), so that a vector can be
 * transformed while the next one is still travelling: sp_gpu_h_coset takes a or b from
 * evaluations on the domain to evaluations on the coset (inverse NTT, coset NTT, in
 * place); sp_gpu_h_coeffs takes c to its coefficients divided by Z(g) (one inverse NTT:
 * H is linear in c, ntt.cu says why that suffices); sp_gpu_h_finish then forms the
 * 2^log_n coefficients of (a*b - c)/Z into d_a in BIT-REVERSED order (coefficient k at
 * position bitrev(k)): the MSM takes them with SP_MSM_BITREV_POINTS so no permutation
 * pass is needed. d_b may be NULL when d_a already holds the products a*b of the
 * coset evaluations (sp_gpu_fr_mul_vec: b's buffer can then take c, so that two
 * vectors of the domain are on the device at a time). (The four steps in one call, for
 * tests: the developer kit's sp_gpu_h_poly.) */
int sp_gpu_h_coset(sp_gpu *g, void *d_v, unsigned log_n, char *err, size_t errlen);
int sp_gpu_h_coeffs(sp_gpu *g, void *d_c, unsigned log_n, char *err, size_t errlen);
int sp_gpu_h_finish(sp_gpu *g, void *d_a, const void *d_b, const void *d_c, unsigned log_n,
                    char *err, size_t errlen);

/* In-place bit-reversal permutation of 2^log_n fr_t-sized elements on the device (the
 * H coefficients come out of sp_gpu_h_finish bit-reversed; streamed H MSMs want them in
 * natural order). Implemented in ntt.cu. */
int sp_gpu_bitrev_dev(sp_gpu *g, void *d, unsigned log_n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
