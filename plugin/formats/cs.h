/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cs.h -- constraint systems for witness-only proving: circom's .r1cs loaded once into
 * sparse matrices, with the density bitmaps computed at load (r1cs.c). The sparse
 * matrix-vector product that turns a witness (inputs and aux) into a partition's a, b
 * and c is groth16/cs_eval.h's.
 *
 * Conventions are bellperson's, so that a witness-only partition proves to the same
 * bytes as the full assignment a host would have computed:
 *  - circom's wire order (0 = ONE, then public outputs, public inputs, private inputs,
 *    internal wires) maps onto bellperson's without reordering: inputs are wires
 *    0 .. nPubOut + nPubIn (ONE included), aux the wires after them;
 *  - the file's constraints come first, then one `input_i * 0 = 0` constraint per input
 *    (ONE included), which bellperson's prover appends: abc_size = nConstraints + inputs;
 *  - a_aux marks aux variables with a non-zero coefficient in A, b_inp / b_aux the inputs
 *    / aux variables with a non-zero coefficient in B (every input occurs in A through
 *    its input constraint).
 *
 * The file is read with pread (never mapped: a file that shrinks under a mapping would
 * raise SIGBUS in the host), every length is checked against the section that holds
 * it, and every field element against BLS12-381's scalar field. Nothing aborts.
 */
#ifndef SEALPROV_CS_H
#define SEALPROV_CS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"
#include "bls12_381/bls12_381.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_cs sp_cs;

struct sp_cs {
  atomic_uint refs;
  char *path; /* as loaded, escaped for messages (valid UTF-8) */
  uint32_t n_pub_out, n_pub_in, n_prv_in;
  uint64_t n_rows;   /* constraints of the file */
  uint64_t abc_size; /* n_rows + inp_size (bellperson's input constraints) */
  uint64_t inp_size; /* 1 + n_pub_out + n_pub_in */
  uint64_t aux_size; /* wires - inp_size */
  uint64_t nnz[3];   /* terms of A, B, C in the file's rows */
  /* The three matrices in one CSR over 3 * n_rows linear combinations: the terms of
   * row i's A are [off[3i], off[3i+1]), B's [off[3i+1], off[3i+2]), C's
   * [off[3i+2], off[3i+3]). var: 0 .. inp_size-1 inputs, then aux; cix indexes
   * coeffs (Montgomery; coeffs[0] is ONE). */
  uint64_t *off;
  uint32_t *var;
  uint32_t *cix;
  fr_t *coeffs;
  uint32_t ncoeffs;
  /* Density bitmaps (64-bit words, bit j%64 of word j/64), spare word included. */
  uint64_t *bitmaps;
  const uint64_t *a_aux, *b_inp, *b_aux;
  uint64_t a_aux_popcount, b_inp_popcount, b_aux_popcount;
  uint64_t host_bytes; /* what the loaded system holds in host memory */
  /* Called once, right before the memory goes (abi/module.c: handle registry). */
  void (*on_free)(sp_cs *cs, void *user);
  void *on_free_user;
};

/* Loads a circom .r1cs file. Statuses: OK, INVALID_ARGUMENT (NULL), IO (open/read,
 * the file changed during the load), UNSUPPORTED (another field: the message names its
 * prime, and the curve when known; PLONK custom gates), PARAMS (malformed: the message
 * names the file, section, constraint and byte offset), NO_MEMORY. The handle starts
 * with one reference. */
int sp_cs_load(const char *path, sp_cs **out, char *err, size_t errlen);
void sp_cs_retain(sp_cs *cs);
/* Drops one reference; the last one calls on_free and frees. NULL is ignored. */
void sp_cs_release(sp_cs *cs);

#ifdef __cplusplus
}
#endif
#endif
