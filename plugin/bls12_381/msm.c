/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* Multi-scalar multiplication and bitmap batch addition for G1 and G2: one
 * generic implementation (msm_impl.h, which explains the method) instantiated
 * twice. */
#include "bls12_381/bls12_381.h"

/* Bucket memory is 2^(c-1) XYZZ points per thread; the cap keeps a 64-thread
 * G2 MSM within a few hundred MiB. */
#define MSM_MAX_BUCKET_BYTES ((size_t)256 << 20)

/* pthread_create + join measured 90-100 us on the (busy) 2-core development
 * machine, where a G1 mixed addition took ~0.6 us and a G2 one ~2.8 us; the
 * costs below are rounded down to the order of an unloaded machine. Only small
 * MSMs are sensitive to them. */
#define GP(name) g1_##name
#define MI(name) name##_g1
#define MSM_FN msm_g1
#define BATCH_FN batch_add_g1
#define MSM_THREAD_COST 60.0
#include "bls12_381/msm_impl.h"
#undef GP
#undef MI
#undef MSM_FN
#undef BATCH_FN
#undef MSM_THREAD_COST

#define GP(name) g2_##name
#define MI(name) name##_g2
#define MSM_FN msm_g2
#define BATCH_FN batch_add_g2
#define MSM_THREAD_COST 15.0
#include "bls12_381/msm_impl.h"
