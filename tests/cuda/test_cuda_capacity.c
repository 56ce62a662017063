/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_cuda_capacity.c -- the CUDA engine's capacity answer (sp_engine_ops.capacity,
 * cuda/backend/capacity.c) against its memory plan (plan.c), so that the scheduler's
 * refusal up front and the plan an execute chooses never disagree.
 *
 * Without a GPU (arithmetic only; a failure here fails the test, else it exits 77):
 * for sealing-shaped partitions of 2^10 to 2^31 and memory limits from 1 GiB to an
 * H200's memory, a device opened with that memory_limit says a partition fits streamed
 * exactly when the plan finds a tier within the limit; the largest streamed and
 * resident sizes it reports (sp_capacity_largest, what `sealprov devices` shows) are
 * the plan's; no tier needs less than the last (what a later partition falls back to);
 * and the resident figure is the least with which residency keeps the points and the
 * plan's first tier fits beside them.
 *
 * With a GPU: a sealing-shaped circuit's partitions proved under a memory_limit of
 * exactly the capacity's streamed bytes for its set: two partitions in a row, no
 * out-of-memory retry, the device's peak within the limit, both proofs equal to the
 * CPU's. --sizes N[,N] picks constraint counts (default 16000 and 250000); --table
 * prints the capacity's figures by domain and by card (docs/configuration.md).
 *
 * Plain program (the GPU machine has no libcheck). */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sp_gpu.h"
#include "circuit.h"
#include "engine/device.h" /* sp_device_cfg */
#include "engine/engine.h"
#include "backend/engine_cuda.h"
#include "backend/probe.h"
#include "util/cuda_api.h" /* sp_cuda_enumerate */
#include "groth16/groth16.h"
#include "formats/srs.h"
#include "gpu_check.h"

#define GIB ((uint64_t)1 << 30)
#define SM_H200 132

static void *open_dev(uint64_t limit, uint64_t total, int sm) {
  sp_device_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  snprintf(cfg.section, sizeof cfg.section, "cap");
  cfg.type = SP_DEVICE_CUDA;
  cfg.workers = 2;
  cfg.memory_limit = limit;
  cfg.total_memory = total;
  cfg.sm_count = sm;
  void *dev = NULL;
  char err[256];
  int st = sp_engine_cuda.device_open(&cfg, &dev, err, sizeof err);
  CHECK(st == SEALPROV_OK, "device_open (memory_limit %llu): %s", (unsigned long long)limit, err);
  return st ? NULL : dev;
}

/* Points of a shape's set, in bytes. */
static uint64_t points_of(const sp_partition_shape *sh) {
  return (sh->h_len + sh->l_len + sh->a_len + sh->b_g1_len) * sizeof(g1_affine_t) +
         sh->b_g2_len * sizeof(g2_affine_t);
}

/* One limit: each size's answer against the plan, and the largest sizes. */
static void limit_vs_plan(uint64_t limit, int sm) {
  void *dev = open_dev(limit, 141 * GIB, sm);
  if (!dev) return;
  const unsigned last = sp_engine_cuda_plan_tiers() - 1;
  int plan_streamed = 0, plan_resident = 0;
  for (unsigned k = 10; k <= SP_CAPACITY_MAX_LOG; k++) {
    sp_partition_shape sh;
    sp_shape_sealing(k, &sh);
    sp_capacity c;
    bool fits = sp_capacity_fits(&sp_engine_cuda, dev, &sh, &c);
    unsigned tier = 0;
    bool plan_fits = sp_engine_cuda_plan_shape(&sh, false, sm, limit, &tier) == SEALPROV_OK;
    CHECK(fits == plan_fits && c.available == limit,
          "2^%u under %llu: the capacity says %s (needs %llu of %llu), the plan %s (tier %u)", k,
          (unsigned long long)limit, fits ? "fits" : "does not fit", (unsigned long long)c.streamed,
          (unsigned long long)c.available, plan_fits ? "fits" : "does not", tier);
    uint64_t least = sp_engine_cuda_plan_shape_need(&sh, false, sm, last);
    for (unsigned t = 0; t < last; t++)
      CHECK(sp_engine_cuda_plan_shape_need(&sh, false, sm, t) >= least,
            "2^%u: tier %u needs less than the last", k, t);
    if (plan_fits) plan_streamed = (int)k;
    /* resident: residency's room (three vectors and 10 GiB) beside the points, and the
     * first tier within what the points leave */
    const uint64_t pts = points_of(&sh), v = (uint64_t)32 << k;
    bool res_ok = pts + 3 * v + 10 * GIB <= limit &&
                  sp_engine_cuda_plan_shape(&sh, true, sm, limit - pts, &tier) == SEALPROV_OK &&
                  tier == 0;
    CHECK(res_ok == (c.resident <= limit), "2^%u under %llu: resident %llu, residency and plan %s",
          k, (unsigned long long)limit, (unsigned long long)c.resident,
          res_ok ? "fit" : "do not fit");
    if (res_ok) plan_resident = (int)k;
  }
  int s = sp_capacity_largest(&sp_engine_cuda, dev, SP_CAPACITY_STREAMED);
  int r = sp_capacity_largest(&sp_engine_cuda, dev, SP_CAPACITY_RESIDENT);
  CHECK(s == plan_streamed && r == plan_resident,
        "under %llu GiB: largest 2^%d resident / 2^%d streamed, the plan's 2^%d / 2^%d",
        (unsigned long long)(limit / GIB), r, s, plan_resident, plan_streamed);
  printf("  memory_limit %3llu GiB: largest 2^%d resident, 2^%d streamed (sm %d; 2^0: none)\n",
         (unsigned long long)(limit / GIB), r, s, sm);
  sp_engine_cuda.device_close(dev);
}

/* --table: the capacity's figures for docs/configuration.md (no checks, no GPU). */
static int print_table(void) {
  void *dev = open_dev(0, 141 * GIB, SM_H200);
  if (!dev) return 1;
  printf("| domain | resident | resident with a table | streamed |\n|---|---|---|---|\n");
  for (unsigned k = 22; k <= 28; k++) {
    sp_partition_shape sh;
    sp_shape_sealing(k, &sh);
    sp_capacity c;
    (void)sp_capacity_fits(&sp_engine_cuda, dev, &sh, &c);
    printf("| 2^%u | %.2f GiB | %.2f GiB | %.2f GiB |\n", k, (double)c.resident / GIB,
           (double)c.tables / GIB, (double)c.streamed / GIB);
  }
  sp_engine_cuda.device_close(dev);
  static const unsigned card[] = {16, 24, 32, 40, 48, 80, 141};
  printf("\n| card memory | resident | with a table | streamed |\n|---|---|---|---|\n");
  for (size_t i = 0; i < sizeof card / sizeof card[0]; i++) {
    dev = open_dev(card[i] < 141 ? card[i] * GIB : 0, 141 * GIB, SM_H200);
    if (!dev) return 1;
    printf("| %u GiB | 2^%d | 2^%d | 2^%d |\n", card[i],
           sp_capacity_largest(&sp_engine_cuda, dev, SP_CAPACITY_RESIDENT),
           sp_capacity_largest(&sp_engine_cuda, dev, SP_CAPACITY_TABLES),
           sp_capacity_largest(&sp_engine_cuda, dev, SP_CAPACITY_STREAMED));
    sp_engine_cuda.device_close(dev);
  }
  return 0;
}

static void arithmetic(void) {
  static const unsigned gib[] = {1, 2, 3, 4, 6, 12, 16, 24, 32, 48, 80, 139};
  for (size_t i = 0; i < sizeof gib / sizeof gib[0]; i++) limit_vs_plan(gib[i] * GIB, SM_H200);
  limit_vs_plan(3 * GIB, 0);
  /* the boundary itself: one byte less than the streamed need does not fit */
  sp_partition_shape sh;
  sp_shape_sealing(24, &sh);
  void *dev = open_dev(0, 141 * GIB, SM_H200);
  if (!dev) return;
  sp_capacity c;
  (void)sp_capacity_fits(&sp_engine_cuda, dev, &sh, &c);
  sp_engine_cuda.device_close(dev);
  for (int d = 0; d < 2; d++) {
    unsigned tier = 0;
    dev = open_dev(c.streamed - (uint64_t)d, 141 * GIB, SM_H200);
    if (!dev) return;
    bool fits = sp_capacity_fits(&sp_engine_cuda, dev, &sh, NULL);
    int st = sp_engine_cuda_plan_shape(&sh, false, SM_H200, c.streamed - (uint64_t)d, &tier);
    CHECK(fits == (d == 0) && (st == SEALPROV_OK) == (d == 0),
          "2^24 under its streamed need %llu less %d: capacity %d, plan %d",
          (unsigned long long)c.streamed, d, (int)fits, st);
    sp_engine_cuda.device_close(dev);
  }
}

/* Two partitions of a sealing-shaped circuit under the capacity's streamed bytes. */
static void prove_at_capacity(uint64_t constraints, const char *dir) {
  char err[512] = "", path[600];
  const unsigned threads = 8;
  sp_circuit *cir = NULL;
  int st = sp_circuit_generate(constraints, 4, SP_SHAPE_SEALING, 7, &cir, err, sizeof err);
  CHECK(st == SEALPROV_OK, "circuit: %s", err);
  if (st) return;
  snprintf(path, sizeof path, "%s/c%llu.params", dir, (unsigned long long)constraints);
  sp_srs *srs = NULL;
  sp_witness *w = NULL;
  st = sp_circuit_write_params(cir, 11, threads, path, NULL, err, sizeof err);
  if (!st) st = sp_srs_load(path, false, false, threads, &srs, err, sizeof err);
  if (!st) st = sp_circuit_witness(cir, 13, &w, err, sizeof err);
  unlink(path);
  CHECK(st == SEALPROV_OK, "set and witness: %s", err);
  sp_task t;
  memset(&t, 0, sizeof t);
  t.srs = srs;
  t.asg = w ? &w->asg : NULL;
  t.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  t.cpu_threads = threads;
  fr_from_u64(&t.r, 5);
  fr_from_u64(&t.s, 9);
  uint8_t cpu[192];
  if (!st)
    st = sp_groth16_prove(srs, t.asg, t.scalar_encoding, &t.r, &t.s, threads, cpu, err, sizeof err);
  CHECK(st == SEALPROV_OK, "CPU prove: %s", err);
  sp_gpu_info info;
  int n = 0;
  if (!st && sp_cuda_enumerate(&info, 1, &n, err, sizeof err) != SEALPROV_OK) n = 0;
  void *dev = NULL;
  if (!st && n > 0) {
    sp_partition_shape sh;
    sp_shape_of_srs(srs, &sh);
    sp_capacity c;
    void *probe = open_dev(0, info.total_memory, info.sm_count);
    if (probe) {
      (void)sp_capacity_fits(&sp_engine_cuda, probe, &sh, &c);
      sp_engine_cuda.device_close(probe);
      dev = open_dev(c.streamed, info.total_memory, info.sm_count);
    }
    int confirmed = -1;
    st =
        dev ? sp_engine_cuda.worker_bind(dev, 0, &confirmed, err, sizeof err) : SEALPROV_ERR_DEVICE;
    CHECK(st == SEALPROV_OK, "device under the streamed need: %s", err);
    for (int run = 0; !st && run < 2; run++) {
      uint8_t p[192];
      void *prep = NULL;
      st = sp_engine_cuda.prepare(dev, &t, &prep, err, sizeof err);
      if (!st) st = sp_engine_cuda.execute(dev, &t, prep, p, err, sizeof err);
      if (prep) sp_engine_cuda.release(dev, prep);
      sp_cuda_timings tm;
      memset(&tm, 0, sizeof tm);
      if (!st) sp_engine_cuda_last_timings(dev, &tm);
      CHECK(st == SEALPROV_OK && memcmp(p, cpu, 192) == 0 && tm.oom_retries == 0 &&
                tm.device_peak_bytes <= c.streamed,
            "2^%u run %d under memory_limit %llu (the capacity's streamed need): %s, %u "
            "out-of-memory retries, peak %llu",
            srs->log_domain, run, (unsigned long long)c.streamed,
            st                    ? err
            : memcmp(p, cpu, 192) ? "proof differs"
                                  : "ok",
            tm.oom_retries, (unsigned long long)tm.device_peak_bytes);
      printf(
          "  2^%u run %d: memory_limit %llu (capacity's streamed need), tier %u, peak %llu, "
          "%u retries, proof %s\n",
          srs->log_domain, run, (unsigned long long)c.streamed, tm.plan_tier,
          (unsigned long long)tm.device_peak_bytes, tm.oom_retries,
          st                    ? "failed"
          : memcmp(p, cpu, 192) ? "DIFFERS"
                                : "equal");
    }
    if (dev) sp_engine_cuda.worker_unbind(dev, 0);
  }
  if (dev) sp_engine_cuda.device_close(dev);
  if (w) sp_witness_free(w);
  if (srs) sp_srs_release(srs);
  sp_circuit_free(cir);
}

int main(int argc, char **argv) {
  uint64_t sizes[4] = {16000, 250000};
  size_t ns = 2;
  if (argc == 2 && !strcmp(argv[1], "--table")) return print_table();
  if (argc == 3 && !strcmp(argv[1], "--sizes")) {
    ns = 0;
    for (char *s = argv[2], *end = NULL; *s && ns < 4; s = *end ? end + 1 : end) {
      sizes[ns++] = strtoull(s, &end, 10);
      if (end == s || sizes[ns - 1] == 0 || (*end && *end != ',')) ns = 0, end = s + strlen(s);
    }
  }
  if (argc != 1 && ns == 0) {
    fprintf(stderr, "usage: %s [--sizes N[,N...] | --table]\n", argv[0]);
    return 2;
  }
  arithmetic();
  if (sp_gpu_device_count() <= 0) {
    printf("%d checks, %d failures (arithmetic); SKIP the GPU part: no CUDA device visible\n",
           checks, failures);
    return failures ? 1 : 77;
  }
  char dir[] = "/tmp/sp_cuda_capacity_XXXXXX";
  if (!mkdtemp(dir)) {
    printf("FAIL: mkdtemp\n");
    return 1;
  }
  for (size_t i = 0; i < ns; i++) prove_at_capacity(sizes[i], dir);
  rmdir(dir);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
