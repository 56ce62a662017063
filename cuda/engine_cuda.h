/* engine_cuda.h -- what the CUDA engine offers beyond engine.h: per-stage timings of
 * the last partition a device proved (for `sealprov bench gpu`; never asserted on in
 * tests). */
#ifndef SEALPROV_CUDA_ENGINE_CUDA_H
#define SEALPROV_CUDA_ENGINE_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_cuda_timings {
  double srs_upload_ms;  /* parameter points made resident (first use of a set only) */
  double upload_ms;      /* assignment transfers host -> device */
  double decode_ms;      /* scalar decoding, density filtering, 0/1 split on the device */
  double h_ntt_ms;       /* the seven NTTs and a*b - c */
  double h_msm_ms;
  double batch_add_ms;   /* sums of the points whose scalar is 1 (L, A, B1, B2) */
  double tail_msm_ms;    /* L, A and B G1 Pippenger */
  double g2_ms;          /* B G2 batch addition and Pippenger */
  double host_ms;        /* assembly and compression on the host */
  double total_ms;
} sp_cuda_timings;

/* Timings of the last execute() on this engine device handle (dev of engine.h). */
void sp_engine_cuda_last_timings(void *dev, sp_cuda_timings *out);

#ifdef __cplusplus
}
#endif
#endif
