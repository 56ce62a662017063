/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_curio7.c -- generate_groth16_proofs_c with gpu_mtx appended (7 arguments), as
 * one unreleased Curio commit declared it (99c31c2c, 2026-02-20, before gpu_index was
 * added on 2026-03-06). The library's one definition serves it under
 * SEALPROV_C2_ARGS = 7: the caller places and removes the trailing arguments. */
#include "c2_host.h"

#include <stddef.h>

extern rs_error generate_groth16_proofs_c(const void *provers, size_t num_circuits, const void *r_s,
                                          const void *s_s, void *proofs, const rs_srs *srs,
                                          void *gpu_mtx);
extern void *create_gpu_mutex(void);
extern void destroy_gpu_mutex(void *mtx);

rs_error curio_generate7(const rs_assignment *provers, size_t n, const rs_fr *r, const rs_fr *s,
                         rs_proof *proofs, const rs_srs *srs) {
  void *mtx = create_gpu_mutex();
  rs_error e = generate_groth16_proofs_c(provers, n, r, s, proofs, srs, mtx);
  destroy_gpu_mutex(mtx);
  return e;
}
