/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* circuit.h -- synthetic R1CS circuits, satisfying witnesses and an INSECURE Groth16
 * setup, for tests, benchmarks and the demo.
 *
 * Conventions are bellperson's, so the files are exactly what bellperson would write
 * for the same R1CS: variable 0 is the input ONE; the circuit's constraints come first,
 * then one `input_i * 0 = 0` constraint per input (ONE included); the domain is the
 * smallest power of two m >= abc_size; h has m-1 points tau^i t(tau)/delta; a, b_g1,
 * b_g2 keep only the variables that occur in A (all inputs do, through the input
 * constraints), resp. B; density bitmaps mark variables with a non-zero coefficient.
 *
 * Shapes:
 *  SP_SHAPE_SEALING  mostly bits (boolean constraints, XOR/AND gates, bit packing) plus
 *                    full-width field elements (squares, products, sums); a-density
 *                    ~99 %, b-density ~25 %, most aux values 0 or 1, like PoRep C2.
 *  SP_SHAPE_RANDOM   uniformly random sparse rows with random coefficients.
 * Public input j (1..K) is bound to a field variable of the circuit by a final
 * `x * ONE = input_j` constraint, so partitions with different witnesses also have
 * different inputs.
 *
 * The toxic waste is derived from a seed and written nowhere, but anyone with the
 * seed can forge proofs: these parameters are for testing only.
 */
#ifndef SEALPROV_CIRCUIT_H
#define SEALPROV_CIRCUIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sp_shape { SP_SHAPE_SEALING = 0, SP_SHAPE_RANDOM = 1 } sp_shape;

typedef struct sp_circuit sp_circuit;

typedef struct sp_circuit_info {
  uint64_t abc_size; /* constraints, the inp_size input constraints included */
  uint64_t inp_size; /* public inputs + 1 (ONE) */
  uint64_t aux_size;
  uint64_t domain; /* m */
  unsigned log_domain;
  uint64_t a_aux_popcount, b_inp_popcount, b_aux_popcount;
  uint64_t bit_vars; /* aux variables constrained or computed as bits */
} sp_circuit_info;

/* constraints = abc_size (the total, input constraints included); inputs = public
 * inputs without ONE. Needs constraints >= 2 * inputs + 10. Returns OK,
 * INVALID_ARGUMENT (message says which bound) or NO_MEMORY. */
int sp_circuit_generate(uint64_t constraints, uint32_t inputs, sp_shape shape, uint64_t seed,
                        sp_circuit **out, char *err, size_t errlen);
void sp_circuit_free(sp_circuit *c);
void sp_circuit_info_get(const sp_circuit *c, sp_circuit_info *info);

/* A satisfying assignment in the ABI layout (canonical little-endian scalars) that owns
 * its memory. Different seeds give different witnesses and public inputs. */
typedef struct sp_witness {
  sealprov_assignment asg;
  uint8_t *scalars;  /* a, b, c, inputs, aux back to back */
  uint64_t *bitmaps; /* a_aux, b_inp, b_aux */
} sp_witness;
/* Computes the witness and checks a_i * b_i = c_i for every constraint (INTERNAL if
 * not). Returns OK, NO_MEMORY or INTERNAL. */
int sp_circuit_witness(const sp_circuit *c, uint64_t seed, sp_witness **out, char *err,
                       size_t errlen);
void sp_witness_free(sp_witness *w);

/* A c of asg whose row r is certainly not satisfied: c[r] = a[r] * b[r] + 1,
 * whatever the row holds (a value copied from another row could satisfy a bit row by
 * chance); the other rows as in asg. *c_out (abc_size scalars, malloc'd) is the caller's.
 * Returns OK, INVALID_ARGUMENT (no such row), NO_MEMORY or INTERNAL (a or b of the row is
 * not canonical). */
int sp_assignment_break_row(const sealprov_assignment *asg, uint64_t r, uint8_t **c_out, char *err,
                            size_t errlen);

/* Runs the Groth16 setup with toxic waste derived from seed and writes params_path
 * (bellperson .params) and vk_path (.vk, the first part of it); either may be NULL.
 * nthreads (0 = 1) share the fixed-base multiplications. Returns OK, IO, NO_MEMORY or
 * INTERNAL (degenerate toxic waste: a query point would be infinity). */
int sp_circuit_write_params(const sp_circuit *c, uint64_t seed, unsigned nthreads,
                            const char *params_path, const char *vk_path, char *err, size_t errlen);

/* Another engine for the fixed-base products of the setup (the GPU's: cuda/
 * sp_cuda_setup.h). mul writes the serialized points k[i] * G (G1's generator, 96
 * bytes each, or G2's when g2, 192 bytes each; bellperson's uncompressed encoding) for
 * n <= block Montgomery scalars into out, and returns OK or a status with err set. The
 * files are the same bytes whichever engine computes the points. */
typedef struct sp_fixed_base {
  void *ctx;
  int (*mul)(void *ctx, bool g2, const void *k /* fr_t[n] */, size_t n, uint8_t *out, char *err,
             size_t errlen);
  size_t block;     /* scalars per call, at least 1 */
  const char *name; /* for messages: "cuda device 0" */
} sp_fixed_base;

/* sp_circuit_write_params with the fixed-base products on fb (NULL: the CPU, nthreads
 * threads). The points are written as they come, a block at a time: host memory holds
 * the circuit's scalars and one block of points, never a whole vector of points. */
int sp_circuit_write_params_fb(const sp_circuit *c, uint64_t seed, unsigned nthreads,
                               const sp_fixed_base *fb, const char *params_path,
                               const char *vk_path, char *err, size_t errlen);

/* How far a long setup is: fn is called on the calling thread with the stage
 * ("parameters": after each block of points, done and total in G1 products, a G2 point
 * counting three; "partitions": after each partition file) and how much of it is done. */
typedef struct sp_progress {
  void (*fn)(void *user, const char *stage, double done, double total);
  void *user;
} sp_progress;

/* sp_circuit_write_params_fb that reports its points as it writes them (progress may be
 * NULL). */
int sp_circuit_write_params_progress(const sp_circuit *c, uint64_t seed, unsigned nthreads,
                                     const sp_fixed_base *fb, const sp_progress *progress,
                                     const char *params_path, const char *vk_path, char *err,
                                     size_t errlen);

/* Everything `sealprov setup` does: generate, write DIR/circuit.params, DIR/circuit.vk
 * and DIR/partition-NN.spa (NN from 00; more digits past 100 partitions). */
typedef struct sp_setup_opts {
  uint64_t constraints;
  uint32_t inputs;
  uint32_t partitions;
  sp_shape shape;
  uint64_t seed;
  const char *out_dir; /* must exist */
  unsigned nthreads;
  const sp_fixed_base *fixed_base; /* NULL: the CPU computes the points */
  const sp_progress *progress;     /* NULL: none */
} sp_setup_opts;

typedef struct sp_setup_result {
  sp_circuit_info info;
  double circuit_ms, params_ms, partitions_ms;
} sp_setup_result;

int sp_setup_run(const sp_setup_opts *o, sp_setup_result *res, char *err, size_t errlen);

/* Name of partition file p of an nparts-partition job ("partition-07.spa"). */
void sp_partition_name(char *buf, size_t len, uint32_t p, uint32_t nparts);

/* Seeds: a deterministic 64-bit random from the OS (getrandom). */
uint64_t sp_random_seed(void);

/* Writes the circuit's constraint system as a circom .r1cs file (version 1, BLS12-381's
 * r, coefficients canonical little-endian): wire i is variable i (ONE, the public
 * inputs, then aux), nPubOut 0, nPubIn = inputs, nPrvIn 0, identity wire-to-label map,
 * and only the circuit's own constraints: bellperson's `input_i * 0 = 0` constraints
 * are not in the file; whoever proves appends them (plugin/formats/cs.h). Returns OK, IO or
 * NO_MEMORY. */
int sp_circuit_write_r1cs(const sp_circuit *c, const char *path, char *err, size_t errlen);

/* The .r1cs of the circuit `sealprov setup` makes for o (the same circuit: generated
 * again from o's sizes, shape and seed) written to DIR/circuit.r1cs. */
int sp_setup_write_r1cs(const sp_setup_opts *o, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
