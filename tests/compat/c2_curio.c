/* c2_curio.c -- the test host's Curio-side calls, declared as Curio's fork of
 * supraseal-c2 declares them in its Rust extern blocks (extern/supraseal-c2/src/lib.rs):
 * generate_groth16_proofs_c with a seventh argument (gpu_mtx), the split API, and the
 * GPU mutex allocator. */
#include "c2_host.h"

#include <stddef.h>

extern rs_error generate_groth16_proofs_c(const void *provers, size_t num_circuits,
                                          const void *r_s, const void *s_s, void *proofs,
                                          const rs_srs *srs, void *gpu_mtx);
extern rs_error generate_groth16_proofs_start_c(const void *provers, size_t num_circuits,
                                                const void *r_s, const void *s_s,
                                                const rs_srs *srs, void *gpu_mtx,
                                                void **pending_out);
extern rs_error finalize_groth16_proof_c(void *handle, void *proofs);
extern void destroy_pending_proof(void *handle);
extern void *create_gpu_mutex(void);
extern void destroy_gpu_mutex(void *mtx);

rs_error curio_split(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                     rs_proof *proofs, const rs_srs *srs, c2_after_start_fn after, void *user) {
  void *mtx = create_gpu_mutex();
  void *pending = NULL;
  rs_error e = generate_groth16_proofs_start_c(provers, n, r, s, srs, mtx, &pending);
  if (e.code == 0) {
    if (pending == NULL) {
      destroy_gpu_mutex(mtx);
      rs_error bad = {-1, NULL};
      return bad;
    }
    after(user);
    e = finalize_groth16_proof_c(pending, proofs);
  } else if (pending != NULL) {
    destroy_gpu_mutex(mtx);
    rs_error bad = {-2, NULL};
    return bad;
  }
  destroy_gpu_mutex(mtx);
  return e;
}

rs_error curio_start_then_destroy(const rs_assignment *provers, size_t n, const rs_fr *r,
                                  const rs_fr *s, const rs_srs *srs) {
  void *pending = NULL;
  rs_error e = generate_groth16_proofs_start_c(provers, n, r, s, srs, NULL, &pending);
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

rs_error curio_generate7(const rs_assignment *provers, size_t n, const rs_fr *r,
                         const rs_fr *s, rs_proof *proofs, const rs_srs *srs) {
  void *mtx = create_gpu_mutex();
  rs_error e = generate_groth16_proofs_c(provers, n, r, s, proofs, srs, mtx);
  destroy_gpu_mutex(mtx);
  return e;
}

void *curio_mutex_create(void) { return create_gpu_mutex(); }
void curio_mutex_destroy(void *mtx) { destroy_gpu_mutex(mtx); }

rs_error curio_split_mtx(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                         rs_proof *proofs, const rs_srs *srs, void *gpu_mtx) {
  void *pending = NULL;
  rs_error e = generate_groth16_proofs_start_c(provers, n, r, s, srs, gpu_mtx, &pending);
  if (e.code == 0) {
    if (pending == NULL) {
      rs_error bad = {-1, NULL};
      return bad;
    }
    e = finalize_groth16_proof_c(pending, proofs);
  } else if (pending != NULL) {
    rs_error bad = {-2, NULL};
    return bad;
  }
  return e;
}
