/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cs_eval.h -- witness-only partitions (cs_eval.c): a partition that names a constraint
 * system (formats/cs.h) gives only its witness; its a, b and c are the sparse products
 * A z, B z, C z, in bellperson's conventions, so that it proves to the same bytes as the
 * full assignment a host would have computed. */
#ifndef SEALPROV_GROTH16_CS_EVAL_H
#define SEALPROV_GROTH16_CS_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"
#include "formats/cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Submit-time checks of one witness-only partition against the constraint system and
 * the parameters: a, b, c and the density pointers NULL (the module computes them),
 * inp_size / aux_size equal to the system's, pointers present; then the system's
 * abc_size and densities against srs (as sp_groth16_check_assignment). Statuses: OK,
 * INVALID_ARGUMENT (NULL), PARAMS, ASSIGNMENT with a message naming the field. */
struct sp_srs;
int sp_cs_check_partition(const struct sp_srs *srs, const sp_cs *cs, const sealprov_assignment *w,
                          char *err, size_t errlen);

/* A partition's full assignment made from a witness: a, b, c (= A z, B z, C z over all
 * abc_size rows, the input constraints included) in the job's scalar encoding, owned
 * here; inputs and aux point at the host's witness; densities at the system's. */
typedef struct sp_cs_eval {
  sealprov_assignment asg;
  uint8_t *abc;     /* 3 x abc_size x 32 bytes: a, then b, then c */
  double decode_ms; /* witness decoding (scalars checked < r) */
  double spmv_ms;   /* the three products and their encoding */
} sp_cs_eval;

/* Evaluates a, b, c with up to nthreads host threads (0 = 1). Statuses: OK,
 * INVALID_ARGUMENT (NULL, unknown encoding, sizes that do not match the system),
 * ASSIGNMENT (a scalar of the witness is not below r: the message names the vector
 * and index), NO_MEMORY. */
int sp_cs_evaluate(const sp_cs *cs, const sealprov_assignment *w, uint32_t scalar_encoding,
                   unsigned nthreads, sp_cs_eval **out, char *err, size_t errlen);
void sp_cs_eval_free(sp_cs_eval *e);
/* The witness w as a full assignment of cs without its vectors: inputs and aux from w,
 * abc_size and the density bitmaps from the system, a, b, c NULL (the caller fills them,
 * as sp_cs_evaluate does, or makes them on a device). */
void sp_cs_assignment_of(const sp_cs *cs, const sealprov_assignment *w, sealprov_assignment *out);

#ifdef __cplusplus
}
#endif
#endif
