/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* zkey.h -- snarkjs's Groth16 proving keys (.zkey) and a CPU prover with snarkjs's
 * conventions, for `sealprov prove --zkey` (docs/formats.md, ".zkey").
 *
 * snarkjs differs from bellperson (plugin/groth16/prove.c) in three ways that change the
 * prover: its FFT domain uses the roots of unity of Fr's smallest quadratic non-residue
 * (5, bellperson: 7); its H points are in Lagrange form over the odd coset of the
 * doubled domain (so the prover evaluates a b - c there, sp_groth16_h_snarkjs, where
 * bellperson divides by Z on its coset and stores monomial h points); and the key holds the A and B matrices
 * (coefficients) but not C: c is the pointwise product a.b. Point and scalar encodings
 * differ too: little-endian Montgomery field elements, infinity as all zero bytes.
 *
 * BLS12-381 only: a key over another curve (snarkjs's default bn128) is refused with
 * UNSUPPORTED and its prime. The file is read with pread (never mapped); every section
 * length is checked against the header's counts, every coordinate against p, every
 * point against its curve (and subgroup, when asked). Nothing aborts.
 */
#ifndef SEALPROV_ZKEY_H
#define SEALPROV_ZKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"
#include "bls12_381/bls12_381.h"
#include "formats/srs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One entry of the zkey's coefficient section: matrix 0 (A) or 1 (B), the constraint
 * (row < domain_size), the signal (< n_vars) and the coefficient (Montgomery). */
typedef struct sp_zkey_coef {
  uint32_t matrix, constraint, signal;
  fr_t value;
} sp_zkey_coef;

typedef struct sp_zkey {
  char *path;           /* escaped for messages (valid UTF-8) */
  uint32_t n_vars;      /* signals, ONE included */
  uint32_t n_public;    /* public signals (outputs, then public inputs), ONE excluded */
  uint32_t domain_size; /* 2^log_n */
  unsigned log_n;
  sp_vk vk; /* alpha1, beta1, delta1, beta2, gamma2, delta2, ic (n_public + 1) */
  sp_zkey_coef *coefs;
  uint64_t n_coefs;
  g1_affine_t *a, *b1; /* n_vars each (infinity where a signal is not in A / B) */
  g2_affine_t *b2;     /* n_vars */
  g1_affine_t *c;      /* n_vars - n_public - 1: the private signals */
  g1_affine_t *h;      /* domain_size */
} sp_zkey;

/* Loads a snarkjs Groth16 .zkey. subgroup_check: every point also in its subgroup;
 * nthreads (0 = 1) threads decode and check the points. Statuses: OK, INVALID_ARGUMENT (NULL), IO (open/read; the file changed during the
 * load), UNSUPPORTED (another curve: the message names its prime; a PLONK or FFLONK
 * key), PARAMS (malformed: the message names the file, section and byte offset, and the
 * count it expected), NO_MEMORY. */
int sp_zkey_load(const char *path, bool subgroup_check, unsigned nthreads, sp_zkey **out, char *err,
                 size_t errlen);
void sp_zkey_free(sp_zkey *zk);

typedef struct sp_zkey_proof {
  g1_affine_t a;
  g2_affine_t b;
  g1_affine_t c;
} sp_zkey_proof;

/* Proves with a witness of n canonical little-endian 32-byte values (a circom .wtns,
 * sp_wtns_load), snarkjs's formulas (pi_a = A + alpha + r delta1, pi_b = B2 + beta2 +
 * s delta2, pi_c = C + H + s pi_a + r (B1 + beta1 + s delta1) - r s delta1). r and s
 * are Montgomery (zero gives snarkjs's proof with zero blinding: not zero-knowledge).
 * wtns_name names the witness in messages. Statuses: OK, INVALID_ARGUMENT, ASSIGNMENT
 * (value count != n_vars, value 0 not 1, a value not below r), NO_MEMORY. */
int sp_zkey_prove(const sp_zkey *zk, const uint8_t *values, uint64_t n, const char *wtns_name,
                  const fr_t *r, const fr_t *s, unsigned nthreads, sp_zkey_proof *out, char *err,
                  size_t errlen);

/* Verifies a proof with vk and n public signals (canonical scalars, ONE excluded).
 * Proof points must be on their curves, in their subgroups and not infinity (else
 * *valid = false and err says which). Returns OK when the check ran. */
int sp_zkey_verify(const sp_vk *vk, const scalar_t *pub, size_t n, const sp_zkey_proof *proof,
                   bool *valid, char *err, size_t errlen);

/* ---- snarkjs's H ------------------------------------------------------------------ */

/* snarkjs's H (its .zkey convention; snarkjs_h.c), next to bellperson's: a and b are
 * the n = 2^log_n evaluations of A z and B z on snarkjs's domain (its roots of unity
 * come from the smallest quadratic non-residue of Fr, 5, where ours come from 7), in
 * natural order, Montgomery; both are overwritten. c is taken as the pointwise product
 * a.b on the domain (as snarkjs does; not C z). h gets the n canonical scalars of
 * a(x) b(x) - c(x) evaluated on the odd coset, at W^(2j+1) with W snarkjs's 2n-th root:
 * the scalars of the MSM with the zkey's H points. 1 <= log_n <= 28. Statuses: OK,
 * INVALID_ARGUMENT, NO_MEMORY, INTERNAL. */
int sp_groth16_h_snarkjs(fr_t *a, fr_t *b, unsigned log_n, unsigned nthreads, scalar_t *h,
                         char *err, size_t errlen);

/* ---- decimal strings (snarkjs's JSON numbers) ------------------------------------ */

/* Canonical integer (nlimbs little-endian 64-bit limbs) as decimal digits into out
 * (at least 20 * nlimbs + 1 bytes). */
void sp_dec_from_limbs(char *out, const uint64_t *limbs, size_t nlimbs);
/* Parses a decimal string of digits only (no sign, no leading '+', at most 200 digits)
 * into nlimbs limbs; false if it is empty, has another character or does not fit. */
bool sp_dec_to_limbs(uint64_t *limbs, size_t nlimbs, const char *s);

#ifdef __cplusplus
}
#endif
#endif
