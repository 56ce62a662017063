/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_cuda_engine.c -- whole partitions proved by the CUDA engine (sp_engine_cuda)
 * against the CPU engine's sp_groth16_prove: with the same r and s the 192 bytes must
 * be identical, and the proof must verify. Sealing-shaped synthetic circuits
 * (kit/circuit.h) with an insecure test setup, at 2^10 and 2^14 constraints by
 * default, up to 2^20 with --full (--sizes picks constraint counts). Also: fault
 * injection in a build with --enable-fault-injection (fail and corrupt through the
 * fault engine, out of memory and its retry through the engine's fault_oom hook; a
 * build without says it did not test them), a scalar >= r reported as
 * ASSIGNMENT, both scalar encodings, residency eviction, pinned staging and the
 * pageable path, parameter streaming in several chunks.
 *
 * The seed (--seed S, else $SP_TEST_SEED, else the time) picks the circuits, witnesses,
 * r and s, and the rows the a*b = c checks break; it is printed first, so a failing run
 * can be repeated. tests/cuda/seeds.sh runs the GPU suites with several seeds.
 *
 * Plain program (the GPU machine has no libcheck). Exit 77 when no GPU is visible;
 * the probe is the first CUDA call.
 */
#include <config.h> /* SP_FAULT_INJECTION */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/sp_gpu.h"
#include "circuit.h"
#include "formats/cs.h"
#include "engine/device.h" /* sp_device_cfg */
#include "engine/engine.h"
#include "engine/fault.h"
#include "backend/engine_cuda.h"
#include "backend/probe.h"
#include "groth16/groth16.h"
#include "formats/srs.h"
#include "engine/hostmem.h"
#include "base/util.h" /* sp_now_ms */
#include "gpu_check.h"

static unsigned cpu_threads = 8;
/* The device the test opens (main); the fault engine opens a second handle of it. */
static sp_device_cfg dev_cfg;

static void hex8(const uint8_t *p, char *out) {
  for (int i = 0; i < 8; i++) sprintf(out + 2 * i, "%02x", p[i]);
}

/* Converts a canonical-encoded assignment copy to Montgomery limbs in place. */
static void to_montgomery(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    fr_t f;
    fr_from_le32(&f, p + 32 * i);
    memcpy(p + 32 * i, &f, 32);
  }
}

/* The CPU reference of the a*b = c pre-check: the lowest failing row, or abc_size
 * (plain loop, independent of the engine's kernels). */
static size_t first_bad_row(const sealprov_assignment *asg, uint32_t enc) {
  const uint8_t *a = asg->a, *b = asg->b, *c = asg->c;
  for (size_t i = 0; i < (size_t)asg->abc_size; i++) {
    fr_t x, y, z, p;
    if (!sp_scalar_decode(&x, a + 32 * i, enc) || !sp_scalar_decode(&y, b + 32 * i, enc) ||
        !sp_scalar_decode(&z, c + 32 * i, enc))
      return i;
    fr_mul(&p, &x, &y);
    if (!fr_eq(&p, &z)) return i;
  }
  return (size_t)asg->abc_size;
}

/* Makes row i of a Montgomery-encoded assignment (the engine's limbs are fr_t's) fail
 * a*b = c for certain: c[i] = a[i]*b[i] + 1, computed from the row itself. A value taken
 * from another row is not enough: on the bit-shaped rows of a sealing circuit a[i]*b[i]
 * is often 0 or 1, and c[j] + 1 of another row j can be exactly that. */
static void break_row(const sealprov_assignment *m, size_t i) {
  fr_t x, y, one;
  memcpy(&x, (const uint8_t *)m->a + 32 * i, 32);
  memcpy(&y, (const uint8_t *)m->b + 32 * i, 32);
  fr_mul(&x, &x, &y);
  fr_from_u64(&one, 1);
  fr_add(&x, &x, &one);
  memcpy((uint8_t *)m->c + 32 * i, &x, 32);
}

/* prepare (pinned staging unless use_prepare is false: pageable path) -> execute ->
 * release, as the scheduler runs a task; *tm gets the engine's timings. */
static int gpu_prove(void *dev, const sp_task *t, bool use_prepare, uint8_t proof[192],
                     sp_cuda_timings *tm, char *err, size_t errlen) {
  void *prep = NULL;
  int st = SEALPROV_OK;
  if (use_prepare) st = sp_engine_cuda.prepare(dev, t, &prep, err, errlen);
  if (!st) st = sp_engine_cuda.execute(dev, t, prep, proof, err, errlen);
  if (prep) sp_engine_cuda.release(dev, prep);
  memset(tm, 0, sizeof *tm);
  if (!st) sp_engine_cuda_last_timings(dev, tm);
  return st;
}

/* Staging modes (engine_cuda.c): the first proof ran with the default, chunked
 * staging (the partition carried into a device buffer through pinned chunks of the
 * shared pool); the module holds no host memory for the device once it is released.
 * The same proof on a second handle of the GPU opened with pinned_staging = whole (as
 * the INI sets it), and chunked again under a host_memory_limit that leaves no room for
 * a chunk (the pool's idle chunks freed first, so none can be had: the partition goes
 * from the host's memory into the device buffer), give the same bytes. */
static void run_staging(void *dev, const sp_task *t, const uint8_t cpu_proof[192],
                        const sp_cuda_timings *first) {
  char err[512] = "";
  const unsigned logm = t->srs->log_domain;
  uint8_t p[192];
  sp_cuda_timings tm;
  sp_cuda_host_memory hm;
  sp_engine_cuda_host_memory(dev, &hm);
  CHECK(hm.stage_mode == SP_STAGING_CHUNKED, "2^%u: staging mode %d, want chunked (default)", logm,
        hm.stage_mode);
  CHECK(first->staged_on_device == (hm.landing_buffers > 0),
        "2^%u chunked: staged on the device %d with %u device buffer(s)", logm,
        (int)first->staged_on_device, hm.landing_buffers);
  /* what stays held is what earlier sizes' whole-mode runs keep: their staging
   * buffers; the chunks of staging and of the uploads went back to the pool */
  CHECK(hm.module_bytes == hm.staging_bytes,
        "2^%u chunked: the module holds %llu host bytes for the device after release "
        "(staging %llu)",
        logm, (unsigned long long)hm.module_bytes, (unsigned long long)hm.staging_bytes);
  printf(
      "  2^%u chunked staging: on the device %s (%u buffer(s), %llu B), prepare %.1f ms, "
      "module host peak %llu B\n",
      logm, first->staged_on_device ? "yes" : "no", hm.landing_buffers,
      (unsigned long long)hm.landing_bytes, first->prepare_ms,
      (unsigned long long)hm.module_peak_bytes);

  sp_device_cfg cfg = dev_cfg;
  snprintf(cfg.section, sizeof cfg.section, "whole");
  cfg.pinned_staging = SP_PINNED_STAGING_WHOLE;
  void *wd = NULL;
  int confirmed = -1;
  int st = sp_engine_cuda.device_open(&cfg, &wd, err, sizeof err);
  if (!st) st = sp_engine_cuda.worker_bind(wd, 0, &confirmed, err, sizeof err);
  if (!st) st = gpu_prove(wd, t, true, p, &tm, err, sizeof err);
  memset(&hm, 0, sizeof hm);
  if (wd) sp_engine_cuda_host_memory(wd, &hm);
  CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0, "2^%u whole-partition staging: %s",
        logm, st ? err : "proof differs from the CPU's");
  CHECK(hm.stage_mode == SP_STAGING_WHOLE, "2^%u: staging mode %d, want whole", logm,
        hm.stage_mode);
  CHECK(st || (tm.staged == (hm.staging_buffers > 0) && !tm.staged_on_device),
        "2^%u whole: staged %d on the device %d with %u buffer(s)", logm, (int)tm.staged,
        (int)tm.staged_on_device, hm.staging_buffers);
  CHECK(hm.module_bytes == hm.staging_bytes,
        "2^%u whole: module holds %llu host bytes, staging %llu", logm,
        (unsigned long long)hm.module_bytes, (unsigned long long)hm.staging_bytes);
  printf("  2^%u whole staging: prepare %.1f ms, module host %llu B\n", logm, tm.prepare_ms,
         (unsigned long long)hm.module_bytes);
  if (wd) {
    if (confirmed >= 0) sp_engine_cuda.worker_unbind(wd, 0);
    sp_engine_cuda.device_close(wd);
  }

  sp_hostmem *acct = sp_engine_cuda_hostmem(dev);
  const uint64_t keep = sp_hostmem_limit(acct);
  (void)sp_engine_cuda_trim_chunks(dev);
  sp_hostmem_stats hs;
  sp_hostmem_get(acct, &hs);
  sp_hostmem_set_limit(acct, hs.total + 4096); /* no room for a chunk next to what is held */
  sp_hostmem_reset_peak(acct);
  st = gpu_prove(dev, t, true, p, &tm, err, sizeof err);
  sp_hostmem_get(acct, &hs);
  sp_hostmem_set_limit(acct, keep);
  CHECK(hs.peak <= hs.limit || hs.limit == 0, "2^%u: host memory peak %llu over the cap %llu", logm,
        (unsigned long long)hs.peak, (unsigned long long)hs.limit);
  CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0,
        "2^%u chunked under a host_memory_limit below one chunk: %s", logm,
        st ? err : "proof differs from the CPU's");
  st = gpu_prove(dev, t, true, p, &tm, err, sizeof err);
  CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0, "2^%u chunked again: %s", logm,
        st ? err : "proof differs from the CPU's");
}

/* Parameter streaming (the set not resident, points uploaded in chunks overlapping the
 * MSMs) and the out-of-memory retry, each against the CPU's proof bytes. Chunks of a
 * quarter of the domain plus 3 bitmap words: several chunks per vector, boundaries
 * aligned to nothing but the 64-point words the batch additions need. */
static void run_streaming(void *dev, const sp_task *t, const uint8_t cpu_proof[192]) {
  const unsigned logm = t->srs->log_domain;
#ifndef SP_FAULT_INJECTION
  (void)dev, (void)cpu_proof;
  printf("  2^%u forced streaming: not tested (a build without --enable-fault-injection)\n", logm);
#else
  char err[512] = "";
  const size_t chunk = ((size_t)1 << logm) / 4 + 192;
  uint8_t p[192];
  sp_cuda_timings tm;
  sp_cuda_host_memory hm;

  sp_engine_cuda_set_streaming(dev, true, chunk);
  for (int staged = 1; staged >= 0; staged--) {
    int st = gpu_prove(dev, t, staged, p, &tm, err, sizeof err);
    CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0,
          "2^%u streamed in %zu-point chunks (%s): %s", logm, chunk,
          staged ? "pinned staging" : "pageable", st ? err : "proof differs from the CPU's");
    CHECK(st || (tm.streamed && tm.stream_chunk == chunk),
          "2^%u: not streamed as asked (streamed %d, chunk %llu)", logm, (int)tm.streamed,
          (unsigned long long)tm.stream_chunk);
    sp_engine_cuda_host_memory(dev, &hm);
    if (staged)
      CHECK(st || tm.staged == (hm.staging_budget > 0), "2^%u: staged %d with a budget of %llu",
            logm, (int)tm.staged, (unsigned long long)hm.staging_budget);
    else
      CHECK(st || !tm.staged, "2^%u: staged without prepare", logm);
    printf(
        "  2^%u streamed, %s: upload wait %.1f ms, prepare %.1f ms, total %.1f ms; "
        "pinned staging %llu B in %u buffer(s), module host peak %llu B, %llu B to the device\n",
        logm, staged ? "staged" : "pageable", tm.upload_ms, tm.prepare_ms, tm.total_ms,
        (unsigned long long)hm.staging_bytes, hm.staging_buffers,
        (unsigned long long)hm.module_peak_bytes, (unsigned long long)tm.pcie_bytes);
  }
  /* out of memory while streaming: retried at the same (already small) chunks. The
   * allocations fail through the engine's fault hook (sp_engine_ops.fault_oom). */
  sp_engine_cuda.fault_oom(dev, 1);
  int st = gpu_prove(dev, t, true, p, &tm, err, sizeof err);
  CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0 && tm.oom_retries == 1,
        "2^%u streamed with an injected out-of-memory: %s (retries %u)", logm,
        st                          ? err
        : memcmp(p, cpu_proof, 192) ? "proof differs"
                                    : "ok",
        tm.oom_retries);

  /* resident set, out of memory on the task's first allocation: the retry drops the
   * resident copy and streams (default chunks) */
  sp_engine_cuda_set_streaming(dev, false, 0);
  st = gpu_prove(dev, t, true, p, &tm, err, sizeof err); /* makes it resident again */
  CHECK(st == SEALPROV_OK && !tm.streamed, "2^%u resident again: %s (streamed %d)", logm,
        st ? err : "ok", (int)tm.streamed);
  sp_engine_cuda.fault_oom(dev, 1);
  st = gpu_prove(dev, t, true, p, &tm, err, sizeof err);
  CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0,
        "2^%u resident with an injected out-of-memory: %s", logm, st ? err : "proof differs");
  CHECK(st || (tm.oom_retries == 1 && tm.streamed), "2^%u OOM retry: retries %u streamed %d", logm,
        tm.oom_retries, (int)tm.streamed);
#endif
}

/* Early upload of a (engine_cuda.c). First a sent by its own prepare whose copy is held
 * back until execute has started: execute waits for it. Handoff: a partition staged while another
 * executes gets its a sent during that execute. Single-threaded here, as the
 * scheduler's two workers would interleave: P1 prepared (it asks), P2 prepared and
 * executed (it sends P1's a), P1 executed: both proofs equal the CPU's and P1's
 * timings say a came early. Then the orphan: P1 asks, P2 sends, P1 is released without
 * executing, and a task without prepare proves (and frees the orphaned buffer): memory
 * in use ends where it began. Both again with the default mode, where P1's own
 * prepare, finding the device idle, sends its a. */
static void run_early(void *dev, const sp_task *t, const uint8_t cpu_proof[192]) {
  const unsigned logm = t->srs->log_domain;
#ifndef SP_FAULT_INJECTION
  (void)dev, (void)cpu_proof;
  printf("  2^%u early upload modes: not tested (a build without --enable-fault-injection)\n",
         logm);
#else
  char err[512] = "";
  uint8_t p1[192], p2[192];
  sp_cuda_timings tm;
  sp_engine_cuda_set_early(dev, SP_EARLY_OFF);
  int st = gpu_prove(dev, t, true, p1, &tm, err, sizeof err); /* resident again */
  CHECK(st == SEALPROV_OK && !tm.streamed && !tm.a_early, "2^%u early: setup run: %s", logm,
        st ? err : "streamed or early");
  if (st) return;
  /* a sent by its own prepare and still travelling when execute starts (held back on
   * the copy stream): execute's first use of a must wait for it. Here, after a run
   * without early uploads, a's buffer holds no earlier copy of a. */
  sp_engine_cuda_set_early(dev, SP_EARLY_ALL);
  sp_engine_cuda_set_early_delay(dev, 200000);
  st = gpu_prove(dev, t, true, p1, &tm, err, sizeof err);
  sp_engine_cuda_set_early_delay(dev, 0);
  CHECK(st == SEALPROV_OK && memcmp(p1, cpu_proof, 192) == 0,
        "2^%u early upload still travelling when execute starts: %s", logm,
        st ? err : "proof differs from the CPU's");
  CHECK(st || tm.a_early || !tm.staged, "2^%u: a not sent early by its prepare", logm);
  printf("  2^%u early upload held back 200 ms on the copy stream: a early %s, proof %s\n", logm,
         tm.a_early ? "yes" : "no",
         st == SEALPROV_OK && !memcmp(p1, cpu_proof, 192) ? "equal" : "DIFFERS");
  const uint64_t base = sp_engine_cuda.memory_in_use(dev);
  for (int k = 0; k < 4; k++) {
    const int orphan = k & 1, mode = k < 2 ? SP_EARLY_HANDOFF : SP_EARLY_ALL;
    sp_engine_cuda_set_early(dev, mode);
    void *prep1 = NULL, *prep2 = NULL;
    memset(p1, 0, sizeof p1);
    memset(p2, 0, sizeof p2);
    st = sp_engine_cuda.prepare(dev, t, &prep1, err, sizeof err);
    if (!st) st = sp_engine_cuda.prepare(dev, t, &prep2, err, sizeof err);
    if (!st) st = sp_engine_cuda.execute(dev, t, prep2, p2, err, sizeof err);
    if (prep2) sp_engine_cuda.release(dev, prep2);
    CHECK(st == SEALPROV_OK && memcmp(p2, cpu_proof, 192) == 0, "2^%u early, sender: %s", logm,
          st ? err : "proof differs from the CPU's");
    sp_cuda_timings tm2;
    if (!st && !orphan) {
      st = sp_engine_cuda.execute(dev, t, prep1, p1, err, sizeof err);
      sp_engine_cuda_last_timings(dev, &tm2);
      CHECK(st == SEALPROV_OK && memcmp(p1, cpu_proof, 192) == 0, "2^%u early, receiver: %s", logm,
            st ? err : "proof differs from the CPU's");
      sp_cuda_host_memory hm;
      sp_engine_cuda_host_memory(dev, &hm);
      CHECK(st || tm2.a_early || hm.staging_budget == 0,
            "2^%u early: the receiver's a was not sent early", logm);
      printf("  2^%u early upload (%s): a sent early %s, upload wait %.1f ms\n", logm,
             mode == SP_EARLY_ALL ? "by its prepare" : "by the previous execute",
             tm2.a_early ? "yes" : "no", tm2.upload_ms);
    }
    if (prep1) sp_engine_cuda.release(dev, prep1);
    if (!st && orphan) {
      st = sp_engine_cuda.execute(dev, t, NULL, p1, err, sizeof err);
      sp_engine_cuda_last_timings(dev, &tm2);
      CHECK(st == SEALPROV_OK && memcmp(p1, cpu_proof, 192) == 0 && !tm2.a_early,
            "2^%u early, after an orphan: %s", logm, st ? err : "proof differs or took the orphan");
    }
    const uint64_t now = sp_engine_cuda.memory_in_use(dev);
    CHECK(orphan == 0 || now == base,
          "2^%u early: memory in use %llu after the orphan, %llu before", logm,
          (unsigned long long)now, (unsigned long long)base);
  }
  sp_engine_cuda_set_early(dev, SP_EARLY_ALL);
#endif
}

/* Witness-only partitions (issue 17): the circuit's .r1cs loaded as a constraint
 * system, the task given only the witness (inputs and aux); the engine computes a, b,
 * c on the device (cuda/spmv/spmv.cu) and the proof is the full assignment's, in both
 * encodings. A witness value >= r is refused naming it; cs_evict frees the device
 * copy. */
static void run_witness(void *dev, const sp_task *t, const sp_circuit *c, const sp_witness *w,
                        const uint8_t cpu_proof[192], const char *dir) {
  char err[512] = "", path[600];
  snprintf(path, sizeof path, "%s/w%llu.r1cs", dir, (unsigned long long)w->asg.abc_size);
  sp_cs *cs = NULL;
  int st = sp_circuit_write_r1cs(c, path, err, sizeof err);
  if (!st) st = sp_cs_load(path, &cs, err, sizeof err);
  unlink(path);
  CHECK(st == SEALPROV_OK, "witness-only: r1cs: %s", err);
  if (st) return;
  sealprov_assignment wa = {.inp_assignment = w->asg.inp_assignment,
                            .inp_size = w->asg.inp_size,
                            .aux_assignment = w->asg.aux_assignment,
                            .aux_size = w->asg.aux_size};
  sp_task tw = *t;
  tw.asg = &wa;
  tw.cs = cs;
  uint8_t proof[192];
  sp_cuda_timings tm;
  uint64_t before = sp_engine_cuda.memory_in_use(dev);
  st = gpu_prove(dev, &tw, true, proof, &tm, err, sizeof err);
  CHECK(st == SEALPROV_OK && memcmp(proof, cpu_proof, 192) == 0,
        "witness-only partition (a, b, c on the device): %s", st ? err : "proof differs");
  CHECK(st != SEALPROV_OK || tm.spmv_on_gpu,
        "witness-only partition: a, b, c not made on the device");
  printf("witness-only %llu constraints: a, b, c on the %s in %.2f ms, proof %s\n",
         (unsigned long long)w->asg.abc_size, tm.spmv_on_gpu ? "device" : "host", tm.spmv_ms,
         st == SEALPROV_OK && memcmp(proof, cpu_proof, 192) == 0 ? "equal" : "DIFFERS");
  /* Montgomery-encoded witness, second use of the resident system */
  size_t nv = (size_t)(wa.inp_size + wa.aux_size);
  uint8_t *mont = malloc(nv * 32);
  if (mont) {
    memcpy(mont, wa.inp_assignment, wa.inp_size * 32);
    memcpy(mont + wa.inp_size * 32, wa.aux_assignment, wa.aux_size * 32);
    to_montgomery(mont, nv);
    sealprov_assignment wm = wa;
    wm.inp_assignment = mont;
    wm.aux_assignment = mont + wa.inp_size * 32;
    sp_task tm2 = tw;
    tm2.asg = &wm;
    tm2.scalar_encoding = SEALPROV_SCALAR_MONTGOMERY;
    st = gpu_prove(dev, &tm2, true, proof, &tm, err, sizeof err);
    CHECK(st == SEALPROV_OK && memcmp(proof, cpu_proof, 192) == 0,
          "witness-only, Montgomery witness: %s", st ? err : "proof differs");
    /* an aux value >= r: ASSIGNMENT naming aux_assignment[i] */
    uint64_t bi = wa.aux_size / 2;
    memset(mont + (wa.inp_size + bi) * 32, 0xff, 32);
    st = gpu_prove(dev, &tm2, true, proof, &tm, err, sizeof err);
    char needle[64];
    snprintf(needle, sizeof needle, "aux_assignment[%llu]", (unsigned long long)bi);
    CHECK(st == SEALPROV_ERR_ASSIGNMENT && strstr(err, needle),
          "witness-only, aux value >= r: status %d, %s", st, err);
    free(mont);
  }
  uint64_t mid = sp_engine_cuda.memory_in_use(dev);
  CHECK(mid > before, "the device copy of the system is not counted (%llu -> %llu)",
        (unsigned long long)before, (unsigned long long)mid);
  sp_engine_cuda.cs_evict(dev, cs);
  uint64_t after = sp_engine_cuda.memory_in_use(dev);
  CHECK(after < mid, "cs_evict did not lower memory in use (%llu -> %llu)", (unsigned long long)mid,
        (unsigned long long)after);
  sp_cs_release(cs);
}

/* Fixed-base tables (msm_precompute, cuda/DESIGN.md): the first proof ran with the
 * default (a table of h when msm.cu's cost model predicts a gain: from 2^16 points).
 * The same proof with the tables off, and with the set made resident again under
 * FORCE (a table whatever the model says: every size gets one), gives the same bytes;
 * FORCE's table is used and counted. */
static void run_tables(void *dev, const sp_task *t, const uint8_t cpu_proof[192]) {
  const unsigned logm = t->srs->log_domain;
#ifndef SP_FAULT_INJECTION
  (void)dev, (void)cpu_proof;
  printf("  2^%u tables off and forced: not tested (a build without --enable-fault-injection)\n",
         logm);
#else
  char err[512] = "";
  uint8_t p[192];
  sp_cuda_timings tm;
  sp_engine_cuda_set_tables(dev, SP_TABLES_OFF);
  int st = gpu_prove(dev, t, true, p, &tm, err, sizeof err);
  CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0 && !tm.tables_used,
        "2^%u tables off: %s (tables used %d)", logm, st ? err : "proof differs",
        (int)tm.tables_used);
  sp_engine_cuda.srs_evict(dev, t->srs); /* resident again below, with FORCE's table */
  sp_engine_cuda_set_tables(dev, SP_TABLES_FORCE);
  st = gpu_prove(dev, t, true, p, &tm, err, sizeof err);
  CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0, "2^%u tables forced: %s", logm,
        st ? err : "proof differs");
  CHECK(st != SEALPROV_OK || (tm.tables_used && tm.precompute_bytes > 0 && tm.table_copies >= 2),
        "2^%u tables forced: used %d, %llu bytes, %u copies", logm, (int)tm.tables_used,
        (unsigned long long)tm.precompute_bytes, tm.table_copies);
  uint64_t with = sp_engine_cuda.memory_in_use(dev);
  printf("  tables: 2^%u forced: window %u, %u copies, %.1f MB made in %.1f ms; bytes equal\n",
         logm, tm.table_window, tm.table_copies, (double)tm.precompute_bytes / 1e6,
         tm.precompute_ms);
  sp_engine_cuda.srs_evict(dev, t->srs);
  CHECK(sp_engine_cuda.memory_in_use(dev) + tm.precompute_bytes <= with,
        "2^%u: evicting the set did not give its table back", logm);
  sp_engine_cuda_set_tables(dev, SP_TABLES_AUTO);
#endif
}

/* Bytes a streamed partition sends to the device: every parameter point once, its
 * assignment once, and c a second time when H has two vectors at a time. */
static uint64_t streamed_bytes(const sp_task *t, unsigned h_slots) {
  const sp_srs *s = t->srs;
  const sealprov_assignment *a = t->asg;
  uint64_t n = (s->h_len + s->l_len + s->a_len + s->b_g1_len) * sizeof(g1_affine_t) +
               s->b_g2_len * sizeof(g2_affine_t);
  n += (uint64_t)a->abc_size * 32 * (h_slots == 2 ? 4 : 3) + (a->inp_size + a->aux_size) * 32;
  n += (a->a_aux_bit_len + 63) / 64 * 8 + (a->b_inp_bit_len + 63) / 64 * 8 +
       (a->b_aux_bit_len + 63) / 64 * 8;
  return n;
}

/* The memory plan (cuda/backend/plan.c): the partition on a device opened with a
 * memory_limit of exactly what each tier of the plan's list needs (the set streamed: it
 * cannot stay resident under such limits). The plan takes that tier (or an earlier one
 * that needs no more), no allocation passes the limit (no out-of-memory retry: the
 * plan counted every buffer), the device's peak stays within it, the bytes sent to the
 * device are the set's and the assignment's (c twice with two vectors at a time), the
 * module's host memory stays within 4 GiB, and the proof bytes equal the CPU's. */
static void run_budgets(void *dev, const sp_task *t, const uint8_t cpu_proof[192]) {
  char err[512] = "";
  const unsigned logm = t->srs->log_domain, ntiers = sp_engine_cuda_plan_tiers();
  uint64_t need[64];
  for (unsigned k = 0; k < ntiers && k < 64; k++)
    need[k] = sp_engine_cuda_plan_need(dev, t, false, k);
  for (unsigned k = 0; k < ntiers && k < 64; k++) {
    unsigned want = 0;
    while (need[want] > need[k]) want++;
    if (want != k) continue; /* an earlier tier needs no more: it was run */
    sp_device_cfg cfg = dev_cfg;
    snprintf(cfg.section, sizeof cfg.section, "budget%u", k);
    cfg.memory_limit = need[k];
    void *bd = NULL;
    int confirmed = -1;
    int st = sp_engine_cuda.device_open(&cfg, &bd, err, sizeof err);
    if (!st) st = sp_engine_cuda.worker_bind(bd, 0, &confirmed, err, sizeof err);
    CHECK(st == SEALPROV_OK, "2^%u tier %u: device with memory_limit %llu: %s", logm, k,
          (unsigned long long)need[k], err);
    if (st) {
      if (bd) sp_engine_cuda.device_close(bd);
      continue;
    }
    uint8_t p[192];
    sp_cuda_timings tm;
    sp_cuda_host_memory hm;
    st = gpu_prove(bd, t, true, p, &tm, err, sizeof err);
    sp_engine_cuda_host_memory(bd, &hm);
    CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0,
          "2^%u under memory_limit %llu (tier %u): %s", logm, (unsigned long long)need[k], k,
          st ? err : "proof differs from the CPU's");
    if (!st) {
      CHECK(tm.plan_tier == k && tm.oom_retries == 0 && tm.streamed && !tm.resident_prefix_bytes,
            "2^%u memory_limit %llu: tier %u (want %u), %u out-of-memory retries, streamed %d",
            logm, (unsigned long long)need[k], tm.plan_tier, k, tm.oom_retries, (int)tm.streamed);
      CHECK(tm.device_peak_bytes <= need[k] && tm.device_peak_bytes <= tm.plan_need_bytes,
            "2^%u tier %u: device peak %llu over the limit %llu or the plan's %llu", logm, k,
            (unsigned long long)tm.device_peak_bytes, (unsigned long long)need[k],
            (unsigned long long)tm.plan_need_bytes);
      uint64_t want_bytes = streamed_bytes(t, tm.plan_h_slots);
      CHECK(tm.pcie_bytes == want_bytes,
            "2^%u tier %u (%u vectors at a time): %llu bytes sent, want %llu", logm, k,
            tm.plan_h_slots, (unsigned long long)tm.pcie_bytes, (unsigned long long)want_bytes);
      CHECK(sp_engine_cuda_transfer_bytes(bd) == tm.pcie_bytes,
            "2^%u tier %u: the device's counter %llu, the partition's %llu", logm, k,
            (unsigned long long)sp_engine_cuda_transfer_bytes(bd),
            (unsigned long long)tm.pcie_bytes);
      CHECK(hm.module_peak_bytes <= ((uint64_t)4 << 30) && hm.module_bytes == 0,
            "2^%u tier %u: module host memory peak %llu, %llu held after release", logm, k,
            (unsigned long long)hm.module_peak_bytes, (unsigned long long)hm.module_bytes);
      printf(
          "  2^%u budget %.2f MB: tier %u, %u vectors at a time, chunks of %llu, peak %.2f MB, "
          "%.2f MB to the device, module host peak %.1f MB\n",
          logm, (double)need[k] / 1e6, tm.plan_tier, tm.plan_h_slots,
          (unsigned long long)tm.stream_chunk, (double)tm.device_peak_bytes / 1e6,
          (double)tm.pcie_bytes / 1e6, (double)hm.module_peak_bytes / 1e6);
    }
    sp_engine_cuda.worker_unbind(bd, 0);
    sp_engine_cuda.device_close(bd);
  }
}

/* What the plan leaves of the budget keeps the set's first points on the device: a
 * device with room for the first tier, 16 MiB (more than the plan's margin) and half a
 * domain of G1 points more makes a
 * prefix in the first partition (which then sends every point once, as without), and
 * the next partition sends the prefix's bytes less; both proofs equal the CPU's. */
static void run_prefix(void *dev, const sp_task *t, const uint8_t cpu_proof[192]) {
  char err[512] = "";
  const unsigned logm = t->srs->log_domain;
  sp_device_cfg cfg = dev_cfg;
  snprintf(cfg.section, sizeof cfg.section, "prefix");
  cfg.memory_limit = sp_engine_cuda_plan_need(dev, t, false, 0) + ((uint64_t)16 << 20) +
                     ((uint64_t)1 << logm) / 2 * sizeof(g1_affine_t);
  void *bd = NULL;
  int confirmed = -1;
  int st = sp_engine_cuda.device_open(&cfg, &bd, err, sizeof err);
  if (!st) st = sp_engine_cuda.worker_bind(bd, 0, &confirmed, err, sizeof err);
  CHECK(st == SEALPROV_OK, "2^%u prefix: device: %s", logm, err);
  if (st) {
    if (bd) sp_engine_cuda.device_close(bd);
    return;
  }
  uint64_t sent[2] = {0, 0}, kept = 0;
  for (int run = 0; run < 2; run++) {
    uint8_t p[192];
    sp_cuda_timings tm;
    st = gpu_prove(bd, t, true, p, &tm, err, sizeof err);
    CHECK(st == SEALPROV_OK && memcmp(p, cpu_proof, 192) == 0, "2^%u prefix, run %d: %s", logm, run,
          st ? err : "proof differs from the CPU's");
    if (st) break;
    CHECK(tm.plan_tier == 0 && tm.oom_retries == 0 && tm.resident_prefix_bytes > 0,
          "2^%u prefix, run %d: tier %u, %u retries, %llu bytes kept", logm, run, tm.plan_tier,
          tm.oom_retries, (unsigned long long)tm.resident_prefix_bytes);
    sent[run] = tm.pcie_bytes;
    kept = tm.resident_prefix_bytes;
  }
  if (!st) {
    uint64_t all = streamed_bytes(t, 3);
    CHECK(sent[0] == all && sent[1] + kept == all,
          "2^%u prefix: %llu then %llu bytes sent with %llu kept, want %llu then %llu", logm,
          (unsigned long long)sent[0], (unsigned long long)sent[1], (unsigned long long)kept,
          (unsigned long long)all, (unsigned long long)(all - kept));
    printf("  2^%u prefix: %llu bytes kept on the device, %llu then %llu bytes sent\n", logm,
           (unsigned long long)kept, (unsigned long long)sent[0], (unsigned long long)sent[1]);
  }
  sp_engine_cuda.worker_unbind(bd, 0);
  sp_engine_cuda.device_close(bd);
}

static void run_size(void *dev, uint64_t constraints, uint64_t seed, const char *dir) {
  char err[512] = "", path[600];
  double t0 = sp_now_ms();
  sp_circuit *c = NULL;
  int st = sp_circuit_generate(constraints, 4, SP_SHAPE_SEALING, seed, &c, err, sizeof err);
  CHECK(st == SEALPROV_OK, "circuit %llu: %s", (unsigned long long)constraints, err);
  if (st) return;
  snprintf(path, sizeof path, "%s/c%llu.params", dir, (unsigned long long)constraints);
  st = sp_circuit_write_params(c, seed ^ 0xabcdef, cpu_threads, path, NULL, err, sizeof err);
  CHECK(st == SEALPROV_OK, "params: %s", err);
  sp_srs *srs = NULL;
  if (!st) st = sp_srs_load(path, false, false, cpu_threads, &srs, err, sizeof err);
  CHECK(st == SEALPROV_OK, "srs load: %s", err);
  sp_witness *w = NULL;
  if (!st) st = sp_circuit_witness(c, seed + 1, &w, err, sizeof err);
  CHECK(st == SEALPROV_OK, "witness: %s", err);
  unlink(path);
  if (st) {
    if (srs) sp_srs_release(srs);
    sp_circuit_free(c);
    return;
  }
  double t_setup = sp_now_ms() - t0;

  sp_task t;
  memset(&t, 0, sizeof t);
  t.job_id = 1;
  t.srs = srs;
  t.asg = &w->asg;
  t.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  t.cpu_threads = cpu_threads;
  uint8_t rb[64];
  for (int i = 0; i < 64; i++) rb[i] = (uint8_t)(seed * 31 + (uint64_t)i * 7);
  fr_from_bytes_wide(&t.r, rb);
  rb[0] ^= 0x55;
  fr_from_bytes_wide(&t.s, rb);

  uint8_t cpu_proof[192], gpu_proof[192];
  t0 = sp_now_ms();
  st = sp_groth16_prove(srs, &w->asg, t.scalar_encoding, &t.r, &t.s, cpu_threads, cpu_proof, err,
                        sizeof err);
  double t_cpu = sp_now_ms() - t0;
  CHECK(st == SEALPROV_OK, "CPU prove: %s", err);
  sp_cuda_timings tm;
  t0 = sp_now_ms();
  st = gpu_prove(dev, &t, true, gpu_proof, &tm, err, sizeof err);
  double t_gpu = sp_now_ms() - t0;
  CHECK(st == SEALPROV_OK, "GPU prepare/execute 2^%u: %s", srs->log_domain, err);
  char a[17], b[17];
  hex8(cpu_proof, a);
  hex8(gpu_proof, b);
  CHECK(memcmp(cpu_proof, gpu_proof, 192) == 0,
        "constraints %llu: GPU proof differs from the CPU's (cpu %s.. gpu %s..)",
        (unsigned long long)constraints, a, b);
  bool valid = false;
  st = sp_groth16_verify(srs, &w->asg, t.scalar_encoding, gpu_proof, &valid, err, sizeof err);
  CHECK(st == SEALPROV_OK && valid, "GPU proof does not verify (%s)", st ? err : "invalid");
  printf(
      "partition %llu constraints (2^%u domain): setup %.0f ms, CPU %.1f ms, GPU %.1f ms "
      "(first run: srs upload %.1f ms, prepare %.1f ms, %s) -- bytes %s\n",
      (unsigned long long)constraints, srs->log_domain, t_setup, t_cpu, t_gpu, tm.srs_upload_ms,
      tm.prepare_ms, tm.staged ? "pinned staging" : "pageable",
      memcmp(cpu_proof, gpu_proof, 192) ? "DIFFER" : "equal");
  if (st == SEALPROV_OK) run_tables(dev, &t, cpu_proof);
  if (st == SEALPROV_OK) run_staging(dev, &t, cpu_proof, &tm);
  if (st == SEALPROV_OK) run_streaming(dev, &t, cpu_proof);
  if (st == SEALPROV_OK) run_budgets(dev, &t, cpu_proof);
  if (st == SEALPROV_OK) run_prefix(dev, &t, cpu_proof);
  if (st == SEALPROV_OK) run_early(dev, &t, cpu_proof);
  if (st == SEALPROV_OK) run_witness(dev, &t, c, w, cpu_proof, dir);

  /* second run: resident parameters, Montgomery encoding of the same witness */
  size_t nsc = (size_t)(3 * w->asg.abc_size + w->asg.inp_size + w->asg.aux_size);
  uint8_t *mont = malloc(nsc * 32);
  if (mont) {
    memcpy(mont, w->scalars, nsc * 32);
    to_montgomery(mont, nsc);
    sealprov_assignment ma = w->asg;
    size_t abc = (size_t)w->asg.abc_size;
    ma.a = mont;
    ma.b = mont + abc * 32;
    ma.c = mont + 2 * abc * 32;
    ma.inp_assignment = mont + 3 * abc * 32;
    ma.aux_assignment = mont + (3 * abc + w->asg.inp_size) * 32;
    sp_task tm2 = t;
    tm2.asg = &ma;
    tm2.scalar_encoding = SEALPROV_SCALAR_MONTGOMERY;
    uint8_t p2[192];
    st = sp_engine_cuda.execute(dev, &tm2, NULL, p2, err, sizeof err);
    CHECK(st == SEALPROV_OK && memcmp(p2, cpu_proof, 192) == 0, "Montgomery-encoded assignment: %s",
          st ? err : "proof differs");
    /* a*b != c: ASSIGNMENT naming the first failing row, which a CPU loop over the
     * same rows finds too; with the pre-check's product buffer and without it, and the
     * good assignment still gives the same proof on the path without the buffer */
    uint8_t *cm = (uint8_t *)ma.c;
    size_t r1 = 1 + (size_t)(seed % (abc - 1)), r2 = r1 / 2;
    /* the path without the buffer is a test build's knob */
#ifdef SP_FAULT_INJECTION
    const int modes = 2;
#else
    const int modes = 1;
    printf(
        "  pre-check without its buffer: not tested (a build without --enable-fault-injection)\n");
#endif
    for (int mode = 0; mode < modes; mode++) {
#ifdef SP_FAULT_INJECTION
      sp_engine_cuda_set_check_buffer(dev, mode == 0);
#endif
      if (mode == 1) {
        st = sp_engine_cuda.execute(dev, &tm2, NULL, p2, err, sizeof err);
        CHECK(st == SEALPROV_OK && memcmp(p2, cpu_proof, 192) == 0,
              "pre-check without its buffer: %s", st ? err : "proof differs");
      }
      uint8_t keep1[32], keep2[32];
      memcpy(keep1, cm + 32 * r1, 32);
      memcpy(keep2, cm + 32 * r2, 32);
      break_row(&ma, r1); /* a valid scalar that is not a[r1]*b[r1] */
      size_t want = first_bad_row(&ma, SEALPROV_SCALAR_MONTGOMERY);
      st = sp_engine_cuda.execute(dev, &tm2, NULL, p2, err, sizeof err);
      char needle[64];
      snprintf(needle, sizeof needle, "at row %zu (first failing row", want);
      CHECK(want == r1 && st == SEALPROV_ERR_ASSIGNMENT && strstr(err, needle),
            "a*b != c at row %zu (buffer %s; CPU loop: row %zu): status %d, %s", r1,
            mode == 0 ? "on" : "off", want, st, err);
      if (r2 != r1) { /* two bad rows: the lower one is named */
        break_row(&ma, r2);
        want = first_bad_row(&ma, SEALPROV_SCALAR_MONTGOMERY);
        st = sp_engine_cuda.execute(dev, &tm2, NULL, p2, err, sizeof err);
        snprintf(needle, sizeof needle, "at row %zu (first failing row", want);
        CHECK(want == r2 && st == SEALPROV_ERR_ASSIGNMENT && strstr(err, needle),
              "rows %zu and %zu bad (buffer %s; CPU loop: row %zu): status %d, %s", r2, r1,
              mode == 0 ? "on" : "off", want, st, err);
      }
      memcpy(cm + 32 * r1, keep1, 32);
      memcpy(cm + 32 * r2, keep2, 32);
    }
#ifdef SP_FAULT_INJECTION
    sp_engine_cuda_set_check_buffer(dev, true);
#endif
    /* a scalar >= r in aux: ASSIGNMENT, naming aux_assignment */
    uint8_t *bad = (uint8_t *)ma.aux_assignment + 32 * (w->asg.aux_size / 2);
    memset(bad, 0xff, 32);
    st = sp_engine_cuda.execute(dev, &tm2, NULL, p2, err, sizeof err);
    CHECK(st == SEALPROV_ERR_ASSIGNMENT && strstr(err, "aux_assignment["),
          "bad scalar: status %d, %s", st, err);
    free(mont);
  }
  /* fault injection: the fault engine (engine/fault.h, a build with
   * --enable-fault-injection) around a second handle of this GPU */
#ifdef SP_FAULT_INJECTION
  for (int k = 0; k < 2; k++) {
    sp_device_cfg fc = dev_cfg;
    fc.inject = k == 0 ? SP_INJECT_FAIL_KERNEL : SP_INJECT_CORRUPT_PROOF;
    const sp_engine_ops *fops = NULL;
    void *fdev = NULL;
    int confirmed = -1;
    st = sp_fault_open(&sp_engine_cuda, &fc, &fops, &fdev, err, sizeof err);
    CHECK(st == SEALPROV_OK, "fault engine: open: %s", err);
    if (st) break;
    st = fops->worker_bind(fdev, 0, &confirmed, err, sizeof err);
    CHECK(st == SEALPROV_OK, "fault engine: bind: %s", err);
    if (st == SEALPROV_OK) {
      st = fops->execute(fdev, &t, NULL, gpu_proof, err, sizeof err);
      if (k == 0) {
        CHECK(st == SEALPROV_ERR_DEVICE, "inject fail: status %d", st);
      } else {
        CHECK(st == SEALPROV_OK && memcmp(gpu_proof, cpu_proof, 192) != 0, "inject corrupt");
        valid = true;
        sp_groth16_verify(srs, &w->asg, t.scalar_encoding, gpu_proof, &valid, err, sizeof err);
        CHECK(!valid, "a corrupted proof verified");
      }
      fops->worker_unbind(fdev, 0);
    }
    fops->device_close(fdev);
  }
#else
  printf("  fault injection: not tested (a build without --enable-fault-injection)\n");
#endif

  uint64_t before = sp_engine_cuda.memory_in_use(dev);
  sp_engine_cuda.srs_evict(dev, srs);
  uint64_t after = sp_engine_cuda.memory_in_use(dev);
  CHECK(after <= before, "evict did not lower memory in use (%llu -> %llu)",
        (unsigned long long)before, (unsigned long long)after);
  sp_witness_free(w);
  sp_srs_release(srs);
  sp_circuit_free(c);
}

int main(int argc, char **argv) {
  bool full = false;
  uint64_t custom[8];
  size_t ncustom = 0;
  const char *seed_arg = getenv("SP_TEST_SEED");
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--full")) {
      full = true;
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed_arg = argv[++i];
    } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      /* constraint counts, comma-separated (e.g. 16000,250000 for 2^14 and 2^18) */
      char *s = argv[++i], *end = NULL;
      while (*s && ncustom < 8) {
        custom[ncustom++] = strtoull(s, &end, 10);
        if (end == s || custom[ncustom - 1] == 0 || (*end && *end != ',')) {
          fprintf(stderr, "--sizes: bad list \"%s\"\n", argv[i]);
          return 2;
        }
        s = *end ? end + 1 : end;
      }
    } else {
      fprintf(stderr,
              "usage: %s [--full | --sizes N[,N...]] [--seed S]\n"
              "  S (or $SP_TEST_SEED) repeats a run; without it the seed is the time\n",
              argv[0]);
      return 2;
    }
  }
  uint64_t seed = (uint64_t)time(NULL);
  if (seed_arg != NULL) {
    char *end = NULL;
    seed = strtoull(seed_arg, &end, 0);
    if (*seed_arg == '\0' || *seed_arg == '-' || *end != '\0') {
      fprintf(stderr, "--seed / SP_TEST_SEED: \"%s\" is not a number\n", seed_arg);
      return 2;
    }
  }
  if (sp_gpu_device_count() <= 0) {
    printf("SKIP: no CUDA device visible\n");
    return 77;
  }
  const char *thr = getenv("SP_TEST_CPU_THREADS");
  if (thr) cpu_threads = (unsigned)atoi(thr);
  printf("seed %llu (--seed %llu or SP_TEST_SEED=%llu repeats this run)\n",
         (unsigned long long)seed, (unsigned long long)seed, (unsigned long long)seed);
  char dir[] = "/tmp/sp_cuda_engine_XXXXXX";
  if (!mkdtemp(dir)) {
    printf("FAIL: mkdtemp\n");
    return 1;
  }
  sp_device_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  snprintf(cfg.section, sizeof cfg.section, "gpu0");
  cfg.type = SP_DEVICE_CUDA;
  cfg.ordinal = 0;
  cfg.workers = 1;
  dev_cfg = cfg;
  void *dev = NULL;
  char err[512];
  int st = sp_engine_cuda.device_open(&cfg, &dev, err, sizeof err);
  if (st) {
    printf("FAIL: device_open: %s\n", err);
    return 1;
  }
  int confirmed = -1;
  st = sp_engine_cuda.worker_bind(dev, 0, &confirmed, err, sizeof err);
  CHECK(st == SEALPROV_OK && confirmed == 0, "worker_bind: %s (confirmed %d)", err, confirmed);
  if (st == SEALPROV_OK) {
    static const uint64_t quick[] = {1000, 16000};
    static const uint64_t big[] = {1000, 16000, 250000, 1000000};
    const uint64_t *sizes = ncustom ? custom : full ? big : quick;
    size_t ns = ncustom ? ncustom : full ? 4 : 2;
    for (size_t i = 0; i < ns; i++) run_size(dev, sizes[i], seed + i * 1000, dir);
    sp_engine_cuda.worker_unbind(dev, 0);
  }
  sp_engine_cuda.device_close(dev);
  rmdir(dir);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
