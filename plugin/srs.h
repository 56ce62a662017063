/* srs.h -- loaded Groth16 parameters (bellperson .params / .vk), shared by all
 * devices, reference counted. */
#ifndef SEALPROV_SRS_H
#define SEALPROV_SRS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bls12_381/bls12_381.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_vk {
  g1_affine_t alpha_g1, beta_g1, delta_g1;
  g2_affine_t beta_g2, gamma_g2, delta_g2;
  g1_affine_t *ic;          /* ic_len points: one per public input, ic[0] for ONE */
  size_t ic_len;
  groth16_pvk_t pvk;        /* prepared for verification */
} sp_vk;

typedef struct sp_srs {
  atomic_int refs;
  char *path;
  bool vk_only;             /* loaded from a .vk: no proving vectors */
  sp_vk vk;
  /* Proving vectors, decoded to affine (blst layout; no infinity points). */
  g1_affine_t *h;    size_t h_len;     /* domain_size - 1 */
  g1_affine_t *l;    size_t l_len;     /* one per aux variable */
  g1_affine_t *a;    size_t a_len;     /* inputs, then aux in A (density order) */
  g1_affine_t *b_g1; size_t b_g1_len;  /* inputs in B, then aux in B */
  g2_affine_t *b_g2; size_t b_g2_len;
  unsigned log_domain;                 /* h_len + 1 == 1 << log_domain */
  /* Called on the last release, before freeing, so engines drop device copies. */
  void (*on_free)(struct sp_srs *srs, void *user);
  void *on_free_user;
} sp_srs;

/* Load a .params (vk_only = false) or .vk (vk_only = true) file. subgroup_check
 * validates every point's subgroup membership (on-curve is always checked).
 * nthreads decodes in parallel. On failure returns a sealprov_status and writes
 * a message naming the file, vector, index and byte offset into err. */
int sp_srs_load(const char *path, bool vk_only, bool subgroup_check, unsigned nthreads,
                sp_srs **out, char *err, size_t errlen);
void sp_srs_retain(sp_srs *srs);
void sp_srs_release(sp_srs *srs);

#ifdef __cplusplus
}
#endif
#endif
