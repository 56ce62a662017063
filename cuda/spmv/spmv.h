/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* spmv.h -- C boundary of the GPU sparse products of witness-only proving: a
 * constraint system (plugin/formats/cs.h) kept resident on a device, and a = A z,
 * b = B z, c = C z computed there from the witness z.
 *
 * Same conventions as sp_cs_evaluate (plugin/groth16/cs_eval.c), and the same bytes: the products
 * run on the witness's raw limbs (a Montgomery coefficient times raw limbs gives the
 * result in the witness's own encoding), the file's rows come first, then bellperson's
 * input constraints (a = input j, b = c = 0). Statuses and threading as sp_gpu.h.
 */
#ifndef SEALPROV_CUDA_SPMV_H
#define SEALPROV_CUDA_SPMV_H

#include <stddef.h>
#include <stdint.h>

#include "util/sp_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_gpu_cs sp_gpu_cs;

/* What the upload needs of a loaded system (the fields of struct sp_cs in cs.h, which
 * C++ cannot include; sp_gpu_cs_desc_of fills it). */
typedef struct sp_gpu_cs_desc {
  const char *path; /* for messages */
  uint64_t n_rows, abc_size, inp_size, aux_size;
  const uint64_t *off;       /* 3 n_rows + 1 */
  const uint32_t *var, *cix; /* off[3 n_rows] each */
  const fr_t *coeffs;        /* ncoeffs, Montgomery; coeffs[0] is ONE */
  uint32_t ncoeffs;
} sp_gpu_cs_desc;

/* Uploads the matrices (row offsets, variables, coefficient indexes, coefficients) to
 * the context's device as long-lived allocations. *bytes_out (may be NULL) gets the
 * device bytes they take. */
int sp_gpu_cs_upload(sp_gpu *g, const sp_gpu_cs_desc *cs, sp_gpu_cs **out, uint64_t *bytes_out,
                     char *err, size_t errlen);
/* Frees the resident system (any thread: it switches to the system's device and back). */
void sp_gpu_cs_free(sp_gpu_cs *c);
uint64_t sp_gpu_cs_bytes(const sp_gpu_cs *c);

/* The witness on the device: d_inp inp_size scalars (ONE first), d_aux aux_size (raw
 * 32-byte little-endian limbs in the job's encoding). *first_bad gets the lowest index
 * (inputs first, then aux) whose value is not below r, or UINT64_MAX when every value
 * is. */
int sp_gpu_cs_check_witness(sp_gpu *g, const sp_gpu_cs *c, const void *d_inp, const void *d_aux,
                            uint64_t *first_bad, char *err, size_t errlen);
/* d_a, d_b, d_c: abc_size scalars each, written in the witness's encoding. The witness
 * must have passed sp_gpu_cs_check_witness. Runs on the context's stream (asynchronous:
 * sync or download to wait). */
int sp_gpu_cs_eval(sp_gpu *g, const sp_gpu_cs *c, const void *d_inp, const void *d_aux, void *d_a,
                   void *d_b, void *d_c, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
