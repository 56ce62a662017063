/* c2_curio8.c -- a caller that appends (std::mutex *gpu_mtx, int gpu_index) to
 * generate_groth16_proofs_c, the 8-argument form the project's design notes give for
 * Curio (the Curio sources found so far pass 7: gpu_mtx only). The library's one
 * definition must serve it as well: arguments 7 and 8 are placed and removed by the
 * caller, and the library reads them only under SEALPROV_C2_ARGS = 8 (c2.sh's --pin
 * run). */
#include "c2_host.h"

#include <stddef.h>

extern rs_error generate_groth16_proofs_c(const void *provers, size_t num_circuits,
                                          const void *r_s, const void *s_s, void *proofs,
                                          const rs_srs *srs, void *gpu_mtx, int gpu_index);

rs_error curio_generate8(const rs_assignment *provers, size_t n, const rs_fr *r,
                         const rs_fr *s, rs_proof *proofs, const rs_srs *srs, int gpu_index) {
  return generate_groth16_proofs_c(provers, n, r, s, proofs, srs, NULL, gpu_index);
}

rs_error curio_generate8_mtx(const rs_assignment *provers, size_t n, const rs_fr *r,
                             const rs_fr *s, rs_proof *proofs, const rs_srs *srs, void *gpu_mtx,
                             int gpu_index) {
  return generate_groth16_proofs_c(provers, n, r, s, proofs, srs, gpu_mtx, gpu_index);
}
