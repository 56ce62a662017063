/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_curio.c -- the test host's Curio-side calls, declared exactly as current Curio
 * declares them in the Rust extern blocks of its fork of supraseal-c2
 * (extern/supraseal-c2/src/lib.rs of Curio e0294b0f, 2026-08-20, the form of every
 * release since v1.28.0-rc1; docs/integration.md lists them): generate_groth16_proofs_c
 * with gpu_mtx and gpu_index appended (8 arguments), the split API whose start takes
 * gpu_index before pending_out (8 arguments), and the GPU mutex allocator. */
#include "c2_host.h"

#include <stddef.h>

extern rs_error generate_groth16_proofs_c(const void *provers, size_t num_circuits, const void *r_s,
                                          const void *s_s, void *proofs, const rs_srs *srs,
                                          void *gpu_mtx, int32_t gpu_index);
extern rs_error generate_groth16_proofs_start_c(const void *provers, size_t num_circuits,
                                                const void *r_s, const void *s_s, const rs_srs *srs,
                                                void *gpu_mtx, int32_t gpu_index,
                                                void **pending_out);
extern rs_error finalize_groth16_proof_c(void *handle, void *proofs);
extern void destroy_pending_proof(void *handle);
extern void *create_gpu_mutex(void);
extern void destroy_gpu_mutex(void *mtx);

rs_error curio_split(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                     rs_proof *proofs, const rs_srs *srs, void *gpu_mtx, int gpu_index,
                     c2_after_start_fn after, void *user) {
  void *pending = (void *)&pending; /* must be overwritten, with NULL on failure */
  rs_error e = generate_groth16_proofs_start_c(provers, n, r, s, srs, gpu_mtx, gpu_index, &pending);
  if (e.code != 0) {
    if (pending != NULL) {
      free_error(e);
      return (rs_error){-2, NULL}; /* a failed start left a handle */
    }
    return e;
  }
  if (pending == NULL) return (rs_error){-1, NULL}; /* success without a handle */
  if (after != NULL) after(user);
  return finalize_groth16_proof_c(pending, proofs);
}

rs_error curio_start(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                     const rs_srs *srs, void *gpu_mtx, int gpu_index, void **pending) {
  return generate_groth16_proofs_start_c(provers, n, r, s, srs, gpu_mtx, gpu_index, pending);
}

rs_error curio_finalize(void *pending, rs_proof *proofs) {
  return finalize_groth16_proof_c(pending, proofs);
}

void curio_destroy(void *pending) { destroy_pending_proof(pending); }

rs_error curio_start_then_destroy(const rs_assignment *provers, size_t n, const rs_fr *r,
                                  const rs_fr *s, const rs_srs *srs) {
  void *pending = NULL;
  rs_error e = generate_groth16_proofs_start_c(provers, n, r, s, srs, NULL, -1, &pending);
  if (e.code == 0) destroy_pending_proof(pending);
  return e;
}

rs_error curio_null_handle(void) {
  rs_proof p;
  rs_error e = finalize_groth16_proof_c(NULL, &p);
  destroy_pending_proof(NULL);
  destroy_gpu_mutex(NULL);
  return e;
}

rs_error curio_generate8(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                         rs_proof *proofs, const rs_srs *srs, void *gpu_mtx, int gpu_index) {
  return generate_groth16_proofs_c(provers, n, r, s, proofs, srs, gpu_mtx, gpu_index);
}

void *curio_mutex_create(void) { return create_gpu_mutex(); }
void curio_mutex_destroy(void *mtx) { destroy_gpu_mutex(mtx); }
