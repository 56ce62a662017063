/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* groth16.h -- one Groth16 partition on the CPU: size checks (checks.c), proving
 * (prove.c), verification (verify.c).
 *
 * The math follows bellperson (and therefore supraseal-c2), so that for fixed r and s
 * the CPU and CUDA engines produce identical bytes:
 *   H:  a, b, c are evaluations on the domain of size m = 2^k >= abc_size (zero padded);
 *       iNTT, coset NTT (generator 7), a*b - c, times 1/Z(g) with Z(x) = x^m - 1
 *       (constant on the coset), inverse coset NTT; the MSM uses the first m-1
 *       coefficients with the m-1 h points.
 *   L:  aux scalars with the l points.
 *   A:  all inputs, then the aux variables whose a_aux density bit is set.
 *   B:  inputs filtered by b_inp density, then aux filtered by b_aux density, on both
 *       b_g1 and b_g2.
 *   In every MSM scalars equal to 0 are skipped, scalars equal to 1 go to a batch
 *   addition and the rest to Pippenger.
 *   A = alpha1 + a_msm + r delta1
 *   B = beta2 + b2_msm + s delta2
 *   C = s a_msm + r b1_msm + r s delta1 + s alpha1 + r beta1 + H + L
 *     (= s A + r B1 - r s delta1 + H + L with B1 = beta1 + b1_msm + s delta1).
 *   Proof bytes: compressed A (48) || B (96) || C (48), zcash encoding.
 *
 * All functions are thread-safe (they only read srs and the assignment) and never
 * abort: failures return a sealprov_status and a one-line message in err.
 */
#ifndef SEALPROV_GROTH16_H
#define SEALPROV_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"
#include "bls12_381/bls12_381.h"
#include "formats/srs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The NTT of the BLS library handles 2^1 .. 2^28 points. */
#define SP_NTT_MAX_LOG 28u

/* Checks an assignment's sizes against the parameters: abc_size <= domain,
 * inp_size == ic_len, aux_size == l_len, density bit lengths (a_aux and b_aux ==
 * aux_size, b_inp == inp_size), popcounts against the bitmaps (bits past bit_len
 * must be zero) and against a_len (inp_size + a_aux popcount), b_g1_len and b_g2_len
 * (b_inp + b_aux popcounts); pointers present for non-empty vectors. Returns OK,
 * INVALID_ARGUMENT (NULL), PARAMS (srs has no proving vectors) or ASSIGNMENT with a
 * message such as "aux_size 12 does not match parameter file l_len 14 (file x.params)". */
int sp_groth16_check_assignment(const sp_srs *srs, const sealprov_assignment *asg, char *err,
                                size_t errlen);

/* The cheap input checks that run before any device time (both engines' prepare):
 * every public input is a scalar below r and input 0 is ONE; every scalar of a, b and
 * c decodes, and a[i] * b[i] == c[i] for every row i < abc_size (a witness that does
 * not satisfy its constraints fails here, with the first failing row named, instead
 * of failing the self-check on every device). nthreads (0 = 1) share the rows.
 * Returns OK, INVALID_ARGUMENT (NULL, unknown encoding), ASSIGNMENT or NO_MEMORY. */
int sp_groth16_check_rows(const sealprov_assignment *asg, uint32_t scalar_encoding,
                          unsigned nthreads, char *err, size_t errlen);
/* The inputs part of sp_groth16_check_rows alone (cheap: inp_size scalars), for an
 * engine that checks the rows on its device. Same statuses. */
int sp_groth16_check_inputs(const sealprov_assignment *asg, uint32_t scalar_encoding, char *err,
                            size_t errlen);

/* The last step of a proof, shared by the CPU and CUDA engines so both give the same
 * bytes: A = alpha1 + a + r delta1, B = beta2 + b2 + s delta2,
 * C = rs delta1 + s alpha1 + r beta1 + s a + r b1 + h + l, compressed A || B || C. */
void sp_groth16_assemble(const sp_srs *srs, const fr_t *r, const fr_t *s, const g1_jac_t *h_acc,
                         const g1_jac_t *l_acc, const g1_jac_t *a_acc, const g1_jac_t *b1_acc,
                         const g2_jac_t *b2_acc, uint8_t proof[192]);

/* Proves one partition with up to nthreads host threads (0 = 1). r and s are
 * Montgomery Fr values (zero allowed: a deterministic proof without zero knowledge).
 * Scalars of the assignment are read in scalar_encoding (sealprov_scalar_encoding)
 * and must be < r. Statuses: OK, INVALID_ARGUMENT, PARAMS, ASSIGNMENT (message names
 * the vector and index of a bad scalar), NO_MEMORY. */
int sp_groth16_prove(const sp_srs *srs, const sealprov_assignment *asg, uint32_t scalar_encoding,
                     const fr_t *r, const fr_t *s, unsigned nthreads, uint8_t proof[192], char *err,
                     size_t errlen);

/* Verifies proof against srs->vk with the public inputs asg->inp_assignment[1..]
 * (element 0 must be ONE). *valid is always written: true only when the pairing check
 * passes. Returns OK when the check ran, whatever its outcome; INVALID_ARGUMENT when
 * the input count does not match the key, a scalar is not < r, input 0 is not ONE, or
 * the proof bytes do not decode (err says which point and why); NO_MEMORY. */
int sp_groth16_verify(const sp_srs *srs, const sealprov_assignment *asg, uint32_t scalar_encoding,
                      const uint8_t proof[192], bool *valid, char *err, size_t errlen);

/* Same check with n Montgomery inputs (the leading ONE not included; n must be
 * vk->ic_len - 1). Proof points are decoded with the subgroup check and may not be
 * infinity. Same statuses and *valid convention as sp_groth16_verify. */
int sp_groth16_verify_inputs(const sp_vk *vk, const fr_t *inputs_without_one, size_t n,
                             const uint8_t proof[192], bool *valid, char *err, size_t errlen);

/* ---- Helpers shared with the CUDA engine, setup and tests ---------------------- */

/* Decodes one 32-byte scalar in the given encoding into Montgomery form. false if the
 * encoding is unknown or the value is not < r. */
bool sp_scalar_decode(fr_t *out, const void *in32, uint32_t scalar_encoding);

/* Per-stage timings of one proof, in milliseconds (sp_groth16_prove_timed: benchmarks
 * read them; tests never assert on them). */
typedef struct sp_prove_timings {
  double convert_ms; /* scalar decoding and density filtering */
  double ntt_ms;     /* the seven NTTs and the pointwise work */
  double h_msm_ms;
  double l_msm_ms;
  double a_msm_ms;
  double b_g1_msm_ms;
  double b_g2_msm_ms;
  double assemble_ms;
  double total_ms;
} sp_prove_timings;
/* sp_groth16_prove, and *stages (may be NULL) gets its per-stage timings when it
 * succeeds: what a benchmark asks of the call it times, not state left behind. */
int sp_groth16_prove_timed(const struct sp_srs *srs, const sealprov_assignment *asg, uint32_t enc,
                           const fr_t *r, const fr_t *s, unsigned nthreads, uint8_t proof[192],
                           sp_prove_timings *stages, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
