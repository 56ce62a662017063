/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* engine_cuda.h -- the CUDA backend (engine.h: sp_backend_cuda, its engine
 * sp_engine_cuda), and the types of what its probes read of it (probe.h): per-stage
 * timings of the last partition a device proved (for `sealprov bench gpu`; never
 * asserted on in tests), its host-memory footprint, and the modes a test build's
 * knobs switch between. */
#ifndef SEALPROV_CUDA_ENGINE_CUDA_H
#define SEALPROV_CUDA_ENGINE_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The engine (sp_backend_cuda.ops). */
extern const sp_engine_ops sp_engine_cuda;
/* sp_backend_cuda.load (load_service.c). */
int sp_cuda_load_params(const sp_load_request *req, struct sp_srs **out, bool *handled, char *err,
                        size_t errlen);

/* The stage times are host time in each stage (util/stage.h; pipeline.c, tail.c): a
 * stage waits for the device work it queued before the next one starts, so that no
 * stage's figure holds the wait for another's. */
typedef struct sp_cuda_timings {
  double srs_upload_ms; /* parameter points made resident (first use of a set only), or
                            page-locked for streaming (first streamed use) */
  double upload_ms;     /* time execute waited for host -> device transfers (the part
                            not hidden behind compute) */
  double decode_ms;     /* scalar decoding, density filtering, 0/1 split on the device */
  double h_ntt_ms;      /* the six NTTs and a*b - c */
  double h_msm_ms;
  double batch_add_ms; /* sums of the points whose scalar is 1 (L, A, B1, B2) */
  double tail_msm_ms;  /* L, A and B G1 Pippenger */
  double g2_ms;        /* B G2 batch addition and Pippenger */
  double host_ms;      /* assembly and compression on the host */
  double total_ms;     /* execute (the device-locked part), all attempts */
  /* Appended (data movement): */
  double prepare_ms;     /* prepare: copy of the assignment into pinned staging */
  bool staged;           /* execute uploaded from pinned staging (else pageable memory) */
  bool streamed;         /* parameter points streamed in chunks (not resident) */
  uint64_t stream_chunk; /* points per chunk when streamed */
  unsigned oom_retries;  /* out-of-memory retries this partition needed */
  bool a_early;          /* a was already on the device: sent during the previous
                            execute, or by this partition's prepare (engine_cuda.c,
                            "early upload") */
  bool staged_on_device; /* chunked staging: prepare put the partition in a device
                            buffer; execute copied it device to device */
  /* Appended (witness-only partitions): */
  double spmv_ms;   /* a, b, c from the witness: the range check and the three
                            products on the device, or the host's SpMV when the system
                            did not fit there */
  bool spmv_on_gpu; /* they ran on the device (cuda/spmv/spmv.cu) */
  /* Appended (fixed-base tables): */
  double precompute_ms;                /* the resident set's table made (first use of a set only) */
  uint64_t precompute_bytes;           /* device bytes of the resident set's tables (0: none) */
  bool tables_used;                    /* the H MSM ran over the table */
  unsigned table_window, table_copies; /* its window and copies, when used */
  /* Appended (the memory plan, cuda/backend/plan.c): */
  unsigned plan_tier;             /* the plan's place in plan.c's list (0: the most memory) */
  unsigned plan_h_slots;          /* vectors of the domain at once in H (3, or 2: c crosses
                                 PCIe twice) */
  uint64_t plan_need_bytes;       /* device bytes the plan predicted at its peak */
  uint64_t plan_budget_bytes;     /* device bytes it was chosen for (what was left) */
  uint64_t device_peak_bytes;     /* device memory at the peak of the last attempt: the
                                 pool's highest plus what the engine holds outside it
                                 (resident sets, staging buffers) */
  uint64_t resident_prefix_bytes; /* streamed: the set's first points kept on the device
                                     (what the plan left; made by the first partition) */
  uint64_t pcie_bytes;            /* host -> device bytes of the partition: execute's
                                 uploads, prepare's staging, a's early upload, a
                                 parameter set made resident by it (all attempts) */
} sp_cuda_timings;

/* Host memory the device holds page-locked: whole-partition staging buffers
 * (pinned_staging budget); the chunks of the provider's pool that staging and uploads
 * take while they run are in module_bytes. */
typedef struct sp_cuda_host_memory {
  uint64_t staging_bytes;
  unsigned staging_buffers;
  uint64_t staging_budget; /* resolved pinned_staging (0 = off) */
  /* Appended (chunked staging): */
  int stage_mode;         /* SP_STAGING_* now in force */
  uint64_t landing_bytes; /* DEVICE memory of the chunked staging's partition buffers */
  unsigned landing_buffers;
  uint64_t module_bytes;      /* host memory the module holds for this device's partitions
                                now (hostmem.h: staging, chunks taken, witness-only a, b,
                                c) */
  uint64_t module_peak_bytes; /* the highest since sp_hostmem_reset_peak */
} sp_cuda_host_memory;

/* Staging of partitions (sp_device_cfg.pinned_staging): none (the host's memory), a
 * whole-partition pinned buffer per worker (`whole`, the earlier default), or chunked
 * (the default: a few pinned chunks of a shared pool carry the partition into a device
 * buffer of its own). Tests and benchmarks switch it between tasks. */
enum { SP_STAGING_OFF = 0, SP_STAGING_WHOLE = 1, SP_STAGING_CHUNKED = 2 };

/* Early upload of a (engine_cuda.c): off; only a running execute sends the next
 * partition's a (handoff); or also a prepare that finds the device idle (the default,
 * and a production module's only mode). A test build switches it between tasks
 * (probe.h): its tests reach the handoff and a copy still travelling on purpose. */
enum { SP_EARLY_OFF = 0, SP_EARLY_HANDOFF = 1, SP_EARLY_ALL = 2 };

/* Fixed-base tables of resident parameter sets (cuda/DESIGN.md): AUTO (the default,
 * and a production module's only mode) = a set made resident gets a table for h when
 * msm.cu's cost model predicts a gain of at least 3 % within the budget of
 * sp_device_cfg.msm_precompute, and MSMs use it; msm_precompute = off makes none. A
 * test build's knob (probe.h) adds OFF = MSMs do not use them (tables made earlier
 * stay: a same-set comparison) and none are made, and FORCE = as AUTO with any
 * predicted gain (a set already resident is planned again: a table on a test's small
 * set). */
enum { SP_TABLES_OFF = 0, SP_TABLES_AUTO = 1, SP_TABLES_FORCE = 2 };

#ifdef __cplusplus
}
#endif
#endif
