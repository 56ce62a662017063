/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_host.h -- what the test host shares between its translation units.
 *
 * The host is written the way the supraseal-c2 callers are: the types below mirror the
 * Rust declarations (#[repr(C)] SRS {ptr}, sppark's cuda::Error {code: i32, str},
 * Assignment<Scalar> with 17 fields, blst Fr/affine points as raw limbs) and NOT the
 * library's header. Each caller's function declarations live in their own file, as
 * in the Rust extern blocks:
 *   c2_host.c     upstream supra_seal c2/src/lib.rs (6-argument generate_groth16_proofs_c)
 *   c2_curio.c    current Curio's extern/supraseal-c2/src/lib.rs (8-argument
 *                 generate_groth16_proofs_c; the split API, whose start takes gpu_index
 *                 before pending_out; create/destroy_gpu_mutex)
 *   c2_curio7.c   the 7-argument generate_groth16_proofs_c (gpu_mtx only) of one
 *                 unreleased Curio commit
 */
#ifndef C2_HOST_H
#define C2_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
  int32_t code;
  char *str;
} rs_error; /* sppark cuda::Error */
typedef struct {
  const void *ptr;
} rs_srs; /* supraseal_c2::SRS */
typedef struct {
  uint64_t l[4];
} rs_fr; /* blstrs Scalar (Montgomery) */
typedef struct {
  uint64_t l[96 / 8 + 192 / 8 + 96 / 8];
} rs_proof; /* Proof<Bls12> */

typedef struct {
  const uint64_t *a_aux_density;
  size_t a_aux_bit_len, a_aux_popcount;
  const uint64_t *b_inp_density;
  size_t b_inp_bit_len, b_inp_popcount;
  const uint64_t *b_aux_density;
  size_t b_aux_bit_len, b_aux_popcount;
  const rs_fr *a, *b, *c;
  size_t abc_size;
  const rs_fr *inp_assignment_data;
  size_t inp_assignment_size;
  const rs_fr *aux_assignment_data;
  size_t aux_assignment_size;
} rs_assignment;

_Static_assert(sizeof(rs_error) == 16, "cuda::Error");
_Static_assert(sizeof(rs_proof) == 384, "Proof<Bls12>: G1 + G2 + G1 affine");
_Static_assert(sizeof(rs_assignment) == 136, "Assignment: 17 x 8 bytes");

static inline void free_error(rs_error e) { free(e.str); }

/* c2_curio.c: the split API through Curio's declarations. Runs start (gpu_mtx NULL or
 * from create_gpu_mutex, gpu_index as Curio passes it), calls after(user) right after
 * start returns (Curio frees a, b and c there; after may be NULL), then finalize.
 * Returns the error of the first failing call (code 0: all fine; -1: start succeeded
 * without a handle; -2: a failed start left a handle). */
typedef void (*c2_after_start_fn)(void *user);
rs_error curio_split(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                     rs_proof *proofs, const rs_srs *srs, void *gpu_mtx, int gpu_index,
                     c2_after_start_fn after, void *user);
/* the raw split calls */
rs_error curio_start(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                     const rs_srs *srs, void *gpu_mtx, int gpu_index, void **pending);
rs_error curio_finalize(void *pending, rs_proof *proofs);
void curio_destroy(void *pending);
/* start then destroy_pending_proof without finalize. */
rs_error curio_start_then_destroy(const rs_assignment *provers, size_t n, const rs_fr *r,
                                  const rs_fr *s, const rs_srs *srs);
/* finalize(NULL) and destroy(NULL): the error of the first, the second must return. */
rs_error curio_null_handle(void);
/* the 8-argument generate_groth16_proofs_c (gpu_mtx NULL or from create_gpu_mutex) */
rs_error curio_generate8(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                         rs_proof *proofs, const rs_srs *srs, void *gpu_mtx, int gpu_index);
/* Curio's mutex allocator */
void *curio_mutex_create(void);
void curio_mutex_destroy(void *mtx);
/* c2_curio7.c: the 7-argument generate_groth16_proofs_c with a mutex from
 * create_gpu_mutex */
rs_error curio_generate7(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                         rs_proof *proofs, const rs_srs *srs);

#endif
