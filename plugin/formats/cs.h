/* cs.h -- constraint systems for witness-only proving: circom's .r1cs loaded once into
 * sparse matrices, density bitmaps computed at load, and the sparse matrix-vector
 * product that turns a witness (inputs and aux) into a partition's a, b and c.
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
  char *path;                 /* as loaded, escaped for messages (valid UTF-8) */
  uint32_t n_pub_out, n_pub_in, n_prv_in;
  uint64_t n_rows;            /* constraints of the file */
  uint64_t abc_size;          /* n_rows + inp_size (bellperson's input constraints) */
  uint64_t inp_size;          /* 1 + n_pub_out + n_pub_in */
  uint64_t aux_size;          /* wires - inp_size */
  uint64_t nnz[3];            /* terms of A, B, C in the file's rows */
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
  uint64_t host_bytes;        /* what the loaded system holds in host memory */
  /* Called once, right before the memory goes (module.c: handle registry). */
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

/* Submit-time checks of one witness-only partition against the constraint system and
 * the parameters: a, b, c and the density pointers NULL (the module computes them),
 * inp_size / aux_size equal to the system's, pointers present; then the system's
 * abc_size and densities against srs (as sp_groth16_check_assignment). Statuses: OK,
 * INVALID_ARGUMENT (NULL), PARAMS, ASSIGNMENT with a message naming the field. */
struct sp_srs;
int sp_cs_check_partition(const struct sp_srs *srs, const sp_cs *cs,
                          const sealprov_assignment *w, char *err, size_t errlen);

/* A partition's full assignment made from a witness: a, b, c (= A z, B z, C z over all
 * abc_size rows, the input constraints included) in the job's scalar encoding, owned
 * here; inputs and aux point at the host's witness; densities at the system's. */
typedef struct sp_cs_eval {
  sealprov_assignment asg;
  uint8_t *abc;               /* 3 x abc_size x 32 bytes: a, then b, then c */
  double decode_ms;           /* witness decoding (scalars checked < r) */
  double spmv_ms;             /* the three products and their encoding */
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

/* ---- iden3's binary container (.r1cs, .wtns, snarkjs's .zkey) -------------------- */

/* A section's content in the file. */
typedef struct sp_iden3_section {
  uint64_t off, size;
  bool present;
} sp_iden3_section;

struct sp_file;
/* Reads the header ("magic", version, section count) and the section table of f:
 * sec[1..nsec_known] get the first section of each type (a repeated one is refused);
 * sections must tile the file exactly. names (may be NULL) name types 1..nsec_known in
 * the messages; kind names the format ("circom .r1cs"). bad: the status for a malformed
 * file. The caller checks *version. */
int sp_iden3_read(struct sp_file *f, const char magic[4], const char *kind, int bad,
                  uint32_t *version, sp_iden3_section *sec, unsigned nsec_known,
                  const char *const *names, char *err, size_t errlen);

/* ---- circom .wtns (witness) files ---------------------------------------------- */

/* A witness file's values as canonical 32-byte little-endian scalars, in wire order. */
typedef struct sp_wtns {
  uint8_t *values;            /* n x 32 bytes */
  uint64_t n;
} sp_wtns;

/* Loads a circom .wtns file (versions 1 and 2), read with pread. Statuses: OK,
 * INVALID_ARGUMENT, IO, UNSUPPORTED (another field: the message names its prime and
 * the curve when known), ASSIGNMENT (malformed: names file, section, offset; a value
 * not below r: names its index), NO_MEMORY. */
int sp_wtns_load(const char *path, sp_wtns **out, char *err, size_t errlen);
void sp_wtns_free(sp_wtns *w);

/* Writes a .wtns file (version 2) of n canonical little-endian values (tests, setup).
 * Statuses: OK, INVALID_ARGUMENT (n > 2^32 - 1: nothing written), IO (the file cannot
 * be made, or a write failed: what was written is removed). */
int sp_wtns_write(const char *path, const uint8_t *values, uint64_t n, char *err, size_t errlen);

/* BLS12-381's r, little-endian, as circom writes a prime. */
extern const uint8_t sp_cs_bls12_381_r_le[32];

#ifdef __cplusplus
}
#endif
#endif
