/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* sealprov_c2.h -- the supraseal-c2 C entry points, served by sealprov.
 *
 * libsealprov_c2 exports the functions that rust-fil-proofs (through bellperson's
 * `cuda-supraseal` prover and the `supraseal-c2` crate) and Curio's cuzk (its fork in
 * extern/supraseal-c2) call, with the same C ABI and meaning, and two conversions of
 * its own for C hosts (sealprov_c2_*, at the end of this header). It dlopens the
 * sealprov module like any host (docs/integration.md):
 *   module: $SEALPROV_PLUGIN, else the installed $(pkglibdir)/sealprov.so
 *   INI:    $SEALPROV_CONFIG, else the installed $(sysconfdir)/sealprov/sealprov.ini
 * The provider is opened at the first call that needs it and stays open for the life
 * of the process.
 *
 * These declarations are written from the public sources and pinned below with static
 * assertions: upstream supra_seal c2 (commit c2ff1acf, 2023-09-30) and Curio's fork,
 * extern/supraseal-c2 of Curio e0294b0f (2026-08-20), the ABI of every released Curio
 * since v1.28.0-rc1; docs/integration.md lists each declaration read and where. The C++
 * originals take `SRS&`, which is a pointer at the ABI level. x86-64 System V and
 * AArch64 (LP64) only.
 *
 * Handles the host passes back (an SRS, a GPU mutex, a pending proof) are looked up by
 * value among the live ones before anything is read through them: a dropped SRS, a
 * destroyed mutex or a finalized handle passed again is refused with INVALID_ARGUMENT
 * (or, for the functions that return nothing, ignored with a line on stderr), never
 * read. All functions may be called from any thread.
 *
 * Errors come back by value as c2_error {code, message}: code 0 and message NULL on
 * success; otherwise code is a sealprov_status (1 .. SEALPROV_STATUS_COUNT_ - 1) and
 * message a malloc'd UTF-8 text ("sealprov_c2: <function>: <status name>: <detail>")
 * that the caller releases with free(). No function aborts, exits or throws.
 */
#ifndef SEALPROV_C2_H
#define SEALPROV_C2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* sppark's RustError::by_value; Rust side: cuda::Error {code: i32, str: Option<NonNull<i8>>},
 * whose Drop frees str with libc free(). */
typedef struct c2_error {
  int32_t code;
  char *message;
} c2_error;

/* supraseal's SRS: one pointer, NULL when empty (Rust: #[repr(C)] struct SRS {ptr}). */
typedef struct c2_srs_inner c2_srs_inner;
typedef struct c2_SRS {
  c2_srs_inner *ptr;
} c2_SRS;

/* blst Fr: 4 x 64-bit limbs, little-endian, Montgomery form (R = 2^256). */
typedef struct c2_fr {
  uint64_t l[4];
} c2_fr;

/* blst Fp: 6 x 64-bit limbs, little-endian, Montgomery form (R = 2^384). */
typedef struct c2_fp {
  uint64_t l[6];
} c2_fp;

/* Affine points as blst lays them out; the point at infinity is x = y = 0. */
typedef struct c2_g1_affine {
  c2_fp x, y;
} c2_g1_affine;
typedef struct c2_fp2 {
  c2_fp c0, c1;
} c2_fp2;
typedef struct c2_g2_affine {
  c2_fp2 x, y;
} c2_g2_affine;

/* groth16_proof {affine_t a; affine_fp2_t b; affine_t c;} */
typedef struct c2_groth16_proof {
  c2_g1_affine a;
  c2_g2_affine b;
  c2_g1_affine c;
} c2_groth16_proof;

/* Assignment<fr_t>: 17 eight-byte fields (density bitmaps: bit j of word j / 64). */
typedef struct c2_assignment {
  const uint64_t *a_aux_density;
  size_t a_aux_bit_len;
  size_t a_aux_popcount;
  const uint64_t *b_inp_density;
  size_t b_inp_bit_len;
  size_t b_inp_popcount;
  const uint64_t *b_aux_density;
  size_t b_aux_bit_len;
  size_t b_aux_popcount;
  const c2_fr *a;
  const c2_fr *b;
  const c2_fr *c;
  size_t abc_size;
  const c2_fr *inp_assignment_data;
  size_t inp_assignment_size;
  const c2_fr *aux_assignment_data;
  size_t aux_assignment_size;
} c2_assignment;

/* The layouts the callers rely on (C11 _Static_assert, C++11 static_assert). */
#ifdef __cplusplus
#define C2_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define C2_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
C2_STATIC_ASSERT(sizeof(void *) == 8 && sizeof(size_t) == 8, "supraseal-c2's ABI is LP64");
C2_STATIC_ASSERT(sizeof(c2_error) == 16, "RustError::by_value is {int32 code; char *message}");
C2_STATIC_ASSERT(offsetof(c2_error, message) == 8, "RustError message at offset 8");
C2_STATIC_ASSERT(sizeof(c2_SRS) == sizeof(void *), "SRS is one pointer");
C2_STATIC_ASSERT(sizeof(c2_fr) == 32, "blst Fr is 32 bytes");
C2_STATIC_ASSERT(sizeof(c2_fp) == 48, "blst Fp is 48 bytes");
C2_STATIC_ASSERT(sizeof(c2_g1_affine) == 96, "blst_p1_affine is 96 bytes");
C2_STATIC_ASSERT(sizeof(c2_g2_affine) == 192, "blst_p2_affine is 192 bytes");
C2_STATIC_ASSERT(offsetof(c2_g2_affine, y) == 96 && offsetof(c2_fp2, c1) == 48,
                 "blst_fp2 is c0 then c1");
C2_STATIC_ASSERT(sizeof(c2_groth16_proof) == 384, "groth16_proof is a (96) b (192) c (96)");
C2_STATIC_ASSERT(offsetof(c2_groth16_proof, b) == 96 && offsetof(c2_groth16_proof, c) == 288,
                 "groth16_proof field offsets");
C2_STATIC_ASSERT(sizeof(c2_assignment) == 17 * 8, "Assignment is 17 eight-byte fields");
C2_STATIC_ASSERT(offsetof(c2_assignment, b_inp_density) == 3 * 8, "Assignment.b_inp_density");
C2_STATIC_ASSERT(offsetof(c2_assignment, b_aux_density) == 6 * 8, "Assignment.b_aux_density");
C2_STATIC_ASSERT(offsetof(c2_assignment, a) == 9 * 8, "Assignment.a");
C2_STATIC_ASSERT(offsetof(c2_assignment, abc_size) == 12 * 8, "Assignment.abc_size");
C2_STATIC_ASSERT(offsetof(c2_assignment, inp_assignment_data) == 13 * 8, "Assignment.inp");
C2_STATIC_ASSERT(offsetof(c2_assignment, aux_assignment_data) == 15 * 8, "Assignment.aux");
C2_STATIC_ASSERT(offsetof(c2_assignment, aux_assignment_size) == 16 * 8, "Assignment.aux_size");

/* ---- parameters ------------------------------------------------------------------
 * create_SRS(SRS& ret, const char *path, bool cache): loads a bellperson .params file.
 * On success ret->ptr holds a new reference; on failure ret is left as it was (the Rust
 * caller then drops its empty SRS, which drop_SRS accepts). cache = true shares one
 * load per path through a process-wide cache of up to 4 paths (least recently used
 * goes first), as supraseal does; evict_SRS removes the path from that cache (holders
 * keep their references). clone_SRS returns a new reference; drop_SRS releases one
 * (NULL ptr ignored; the Rust caller clears ptr itself afterwards). An SRS whose last
 * reference was dropped is no longer live: clone_SRS returns an empty SRS for it,
 * evict_SRS and drop_SRS ignore it (a warning on stderr), a proving call refuses it. */
c2_error create_SRS(c2_SRS *ret, const char *srs_path, bool cache);
void evict_SRS(const c2_SRS *ref);
void drop_SRS(c2_SRS *ref);
c2_SRS clone_SRS(const c2_SRS *rhs);

/* ---- proving -----------------------------------------------------------------------
 * generate_groth16_proofs_c(provers, num_circuits, r_s, s_s, proofs, SRS& srs):
 * upstream's six parameters. Curio's fork passes (std::mutex *gpu_mtx[, int gpu_index])
 * after srs: those trailing arguments are placed and removed by the caller (x86-64
 * System V, AArch64), so this one definition serves every caller. The library cannot
 * tell how many arguments a caller placed, so it reads the trailing ones only when the
 * environment says they are there (read once, when the library is loaded):
 *   SEALPROV_C2_ARGS unset or 6  upstream callers: any device, no mutex;
 *   SEALPROV_C2_ARGS = 7         gpu_mtx is read (NULL or from create_gpu_mutex);
 *   SEALPROV_C2_ARGS = 8         gpu_mtx and gpu_index are read: gpu_index >= 0 runs
 *                                the job only on the device whose CUDA ordinal (as this
 *                                process sees it) is gpu_index, or, on a provider
 *                                without CUDA devices, on device gpu_index of its table;
 *                                -1 = any device. Another index is an error.
 * Setting 7 or 8 for a host that passes fewer arguments reads whatever lies in its
 * stack frame: never do that. Without a gpu_index sealprov schedules every partition on
 * whichever of its devices is free (docs/integration.md). r_s and s_s are the caller's
 * blinding factors (one per circuit, blst Fr), used as given. num_circuits 0 is refused
 * (INVALID_ARGUMENT) before any array is read. Proofs are written only when every
 * partition has a verified proof. Like supraseal's, the call blocks while sealprov's
 * queue is full (max_jobs / max_partitions of the INI) instead of failing.
 * (The library's own source defines the function with Curio's eight parameters.) */
#ifndef SEALPROV_C2_IMPLEMENTATION
c2_error generate_groth16_proofs_c(const c2_assignment provers[], size_t num_circuits,
                                   const c2_fr r_s[], const c2_fr s_s[], c2_groth16_proof proofs[],
                                   const c2_SRS *srs);
#endif

/* Curio's split API, as every released Curio declares it (extern/supraseal-c2/src/
 * lib.rs: eight arguments, gpu_index before pending_out; a host that passes seven, as
 * one unreleased Curio commit of February 2026 did, is not served: see
 * docs/integration.md). start submits the job and returns once sealprov no longer reads
 * any of the assignments' memory (a, b, c, inputs, aux, density bitmaps), so the caller
 * may free them as soon as it returns; *pending_out gets a handle, NULL on failure
 * (pending_out NULL: INVALID_ARGUMENT; num_circuits 0: INVALID_ARGUMENT, with
 * *pending_out set to NULL). gpu_mtx is NULL or a live value from create_gpu_mutex
 * (anything else: INVALID_ARGUMENT). gpu_index is always read and means what it means
 * for generate_groth16_proofs_c under SEALPROV_C2_ARGS = 8: -1 any device, N >= 0 the
 * device of CUDA ordinal N (or device N of a table without CUDA devices), another
 * value an error. finalize waits for the proofs, writes them and consumes the handle
 * whatever the outcome; a handle that is not pending (finalized or destroyed already)
 * is refused. destroy_pending_proof cancels what has not run, waits and frees the
 * handle (NULL ignored; a handle that is not pending: a warning, nothing else). */
c2_error generate_groth16_proofs_start_c(const c2_assignment provers[], size_t num_circuits,
                                         const c2_fr r_s[], const c2_fr s_s[], const c2_SRS *srs,
                                         void *gpu_mtx, int gpu_index, void **pending_out);
c2_error finalize_groth16_proof_c(void *handle, c2_groth16_proof proofs[]);
void destroy_pending_proof(void *handle);

/* Curio's per-GPU mutex (a std::mutex there). Here a pthread mutex (the layout of
 * libstdc++'s std::mutex) with the library's bookkeeping after it; a call given one
 * holds it from submit until its proofs are ready, so calls that share one take turns,
 * as the fork's calls do around their kernels (sealprov keeps its own lock per device
 * besides). Do not hold it yourself across a call that passes it. NULL from
 * create_gpu_mutex means no memory. destroy_gpu_mutex(NULL) is ignored, and so (with a
 * warning) is a value that is not a live mutex. Destroyed while calls use it, the mutex
 * is refused to new calls at once and freed when the last running call returns. */
void *create_gpu_mutex(void);
void destroy_gpu_mutex(void *mtx);

/* ---- conversions (sealprov's own; supraseal-c2 has none) ---------------------------
 * The Assignment's scalars (a, b, c, inputs, aux) and r_s / s_s are blst Fr in
 * Montgomery form, and the proofs come back as affine points in Montgomery limbs;
 * sealprov's files hold canonical values: a .spa file 32-byte little-endian scalars, a
 * proof file 192 compressed bytes per proof. These two functions convert, so that a C
 * host needs no field arithmetic of its own (docs/integration.md, section 8).
 *
 * sealprov_c2_fr_from_canonical: n canonical scalars (in: 32 x n bytes, each a
 * little-endian integer) into out[0 .. n). out may be the very memory of in (each value
 * is read whole before its slot is written), which converts an array in place; no
 * other overlap is allowed. A value not below the group order r stops it with
 * INVALID_ARGUMENT naming the value's index and the value: out[0 .. index) are
 * converted, the rest is left as it was. n = 0 does nothing; out or in NULL with n > 0
 * is INVALID_ARGUMENT.
 *
 * sealprov_c2_proof_compress: n proofs as the proving calls write them into out, 192 x n
 * bytes: for each, compressed A (48 bytes) || B (96) || C (48), bellperson's
 * Proof::write and sealprov's proof file (`sealprov verify --proofs`). A coordinate
 * that is not a Montgomery value below p, or a point off its curve, is
 * INVALID_ARGUMENT naming the proof and the point, and nothing is written. n = 0 does
 * nothing; out or proofs NULL with n > 0 is INVALID_ARGUMENT. */
c2_error sealprov_c2_fr_from_canonical(c2_fr *out, const void *in, size_t n);
c2_error sealprov_c2_proof_compress(uint8_t *out, const c2_groth16_proof proofs[], size_t n);

#ifdef __cplusplus
}
#endif
#endif /* SEALPROV_C2_H */
