/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fullsize_main.c -- the full-size run of issue 14 in one process (dev/fullsize.sh runs
 * it): a sealing-shaped circuit with a 2^K domain, its INSECURE setup with the
 * fixed-base products on the GPU (kit/gpu/setup.cu) written to DIR/full.params and
 * DIR/full.vk, srs_load of that file with every check (on-curve, not infinity, and
 * subgroup on the GPU: by default the direct load, cuda/points/points.cu, which decodes and checks
 * the proving vectors on the GPU into the engine's resident copy with no host copy;
 * --load host: the host decode with the GPU checker hook), then P partitions whose witnesses are
 * made in memory (the disk of the GPU machine holds the parameters, not 16 GiB
 * assignment files), each proved by the CUDA engine (prepare, execute, release, as a
 * worker of the module runs them), self-checked against the loaded parameters, and
 * verified again with the verifying key read back from DIR/full.vk.
 *
 * Exit 0 when every proof verifies, 1 otherwise, 77 without a GPU. Built with the GPU
 * tests (tests/cuda/local.mk), run by hand: the CUDA engine is used directly, not
 * through the dlopen'ed module and its INI.
 */
#include <config.h> /* HAVE_CUDA declares sp_engine_cuda */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sp_gpu.h"
#include "gpu/sp_cuda_setup.h"
#include "util/cuda_api.h" /* the direct load */
#include "subgroup/subgroup.h"
#include "points/points.h"
#include "circuit.h"
#include "engine/device.h" /* sp_device_cfg */
#include "engine/engine.h"
#include "backend/engine_cuda.h"
#include "groth16/groth16.h"
#include "formats/srs.h"
#include "base/util.h"

static void usage(const char *a0) {
  fprintf(stderr,
          "usage: %s --dir DIR [--log K] [--partitions P] [--inputs N] [--seed S] [--threads T]\n"
          "             [--keep] [--reuse] [--load direct|host] [--memory-limit none,24G,16G]\n"
          "  K: the domain 2^K (default 27; constraints 0.97 * 2^K as PoRep C2), P partitions\n"
          "  (default 3, 0: load only), N public inputs (default 328). --keep leaves the files\n"
          "  in DIR; --reuse takes DIR/full.params and full.vk of an earlier --keep run of the\n"
          "  same K, seed and inputs instead of a new setup. --load: direct (default: onto the\n"
          "  GPU, no host copy) or host (decoded on the host, subgroup checks on the GPU).\n"
          "  --memory-limit: each partition proved once per value on a device with that\n"
          "  memory_limit (none, or bytes with K/M/G = KiB/MiB/GiB), every proof verified: a\n"
          "  limit below the set streams it from the host copy, so it needs --load host.\n",
          a0);
}

static int progress(void *user, const sp_srs_progress *p) {
  double *last = user;
  if (p->done || p->elapsed_ms - *last >= 5000) {
    *last = p->elapsed_ms;
    printf("  load: %s %.1f / %.1f GB, %.0f Mpoints checked, %.2f GB/s%s\n", p->vector,
           p->bytes_done / 1e9, p->bytes_total / 1e9, p->points_checked / 1e6, p->bytes_per_s / 1e9,
           p->done ? " (done)" : "");
  }
  return 0;
}

/* Host memory of this process from /proc/self/status (kB): "VmHWM" (peak) or "VmRSS". */
static uint64_t proc_kb(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  uint64_t v = 0;
  size_t kl = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl) && line[kl] == ':') v = strtoull(line + kl + 1, NULL, 10);
  if (f) fclose(f);
  return v;
}

/* Resets VmHWM to the current RSS (Linux >= 4.0), so the peak after is the load's. */
static bool reset_peak_rss(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  bool ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

enum { MAX_LIMITS = 8 };

/* "none,24G,16G" -> {0, 24 GiB, 16 GiB}: K, M, G are 1024-based, as the INI's KiB/MiB/GiB. */
static bool parse_limits(const char *s, uint64_t *out, unsigned *n) {
  *n = 0;
  while (*s) {
    if (*n == MAX_LIMITS) return false;
    char *end = NULL;
    uint64_t v = 0;
    if (!strncmp(s, "none", 4)) {
      end = (char *)s + 4;
    } else {
      v = strtoull(s, &end, 10);
      if (end == s) return false;
      if (*end == 'K' || *end == 'M' || *end == 'G') {
        v <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
        end++;
      }
      if (v == 0) return false;
    }
    out[(*n)++] = v;
    if (*end == ',')
      end++;
    else if (*end)
      return false;
    s = end;
  }
  return *n > 0;
}

/* The CUDA engine on ordinal 0 as a worker of the module uses it, under memory_limit
 * (0: none). */
static int engine_open(uint64_t limit, void **dev, char *err, size_t errlen) {
  sp_device_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  snprintf(cfg.section, sizeof cfg.section, "gpu0");
  cfg.type = SP_DEVICE_CUDA;
  cfg.ordinal = 0;
  cfg.workers = 1;
  cfg.memory_limit = limit;
  int confirmed = -1;
  int st = sp_engine_cuda.device_open(&cfg, dev, err, errlen);
  if (!st) st = sp_engine_cuda.worker_bind(*dev, 0, &confirmed, err, errlen);
  return st;
}

static void engine_close(void *dev) {
  if (!dev) return;
  sp_engine_cuda.worker_unbind(dev, 0);
  sp_engine_cuda.device_close(dev);
}

int main(int argc, char **argv) {
  unsigned logk = 27, parts = 3, threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
  uint64_t inputs = 328, seed = 0x5ea1f011;
  const char *dir = NULL;
  bool keep = false, reuse = false, direct = true;
  uint64_t limits[MAX_LIMITS] = {0};
  unsigned nlimits = 1; /* one run without a limit */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--dir") && v)
      dir = argv[++i];
    else if (!strcmp(a, "--log") && v)
      logk = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(a, "--partitions") && v)
      parts = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(a, "--inputs") && v)
      inputs = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--seed") && v)
      seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(a, "--threads") && v)
      threads = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(a, "--keep"))
      keep = true;
    else if (!strcmp(a, "--reuse"))
      reuse = true;
    else if (!strcmp(a, "--load") && v && (!strcmp(v, "direct") || !strcmp(v, "host")))
      direct = !strcmp(argv[++i], "direct");
    else if (!strcmp(a, "--memory-limit") && v && parse_limits(argv[++i], limits, &nlimits))
      ;
    else {
      usage(argv[0]);
      return 2;
    }
  }
  if (!dir || logk < 10 || logk > 27 || parts > 100 || threads == 0) {
    usage(argv[0]);
    return 2;
  }
  for (unsigned l = 0; l < nlimits; l++)
    if (limits[l] && direct) {
      fprintf(stderr,
              "--memory-limit %llu needs --load host: the direct load keeps no host copy "
              "to stream from\n",
              (unsigned long long)limits[l]);
      return 2;
    }
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (sp_gpu_device_count() <= 0) {
    printf("SKIP: no CUDA device visible\n");
    return 77;
  }
  char err[1024] = "", pp[4096], vp[4096];
  snprintf(pp, sizeof pp, "%s/full.params", dir);
  snprintf(vp, sizeof vp, "%s/full.vk", dir);
  uint64_t cons = (uint64_t)((double)((uint64_t)1 << logk) * 0.97);
  int fails = 0;

  double t0 = sp_now_ms();
  sp_circuit *c = NULL;
  int st = sp_circuit_generate(cons, (uint32_t)inputs, SP_SHAPE_SEALING, seed, &c, err, sizeof err);
  if (st) {
    printf("FAIL circuit: %s\n", err);
    return 1;
  }
  sp_circuit_info info;
  sp_circuit_info_get(c, &info);
  printf("circuit: %llu constraints, domain 2^%u, %llu inputs, %llu aux (%.1f s)\n",
         (unsigned long long)info.abc_size, info.log_domain, (unsigned long long)info.inp_size,
         (unsigned long long)info.aux_size, (sp_now_ms() - t0) / 1e3);

  /* GPU setup */
  t0 = sp_now_ms();
  struct stat sb;
  if (reuse && stat(pp, &sb) == 0 && stat(vp, &sb) == 0) {
    printf("setup: reusing %s (--reuse)\n", pp);
  } else {
    sp_cuda_setup *gs = NULL;
    st = sp_cuda_setup_create(0, &gs, err, sizeof err);
    if (!st) {
      sp_fixed_base fb = sp_cuda_setup_fixed_base(gs);
      st = sp_circuit_write_params_fb(c, seed, threads, &fb, pp, vp, err, sizeof err);
    }
    sp_cuda_setup_destroy(gs);
    if (st) {
      printf("FAIL GPU setup: %s\n", err);
      return 1;
    }
  }
  double psize = stat(pp, &sb) == 0 ? (double)sb.st_size : 0;
  printf("setup (GPU): %.1f s, %s: %.2f GB\n", (sp_now_ms() - t0) / 1e3, pp, psize / 1e9);

  /* load with every check, on the GPU: direct (no host copy) or the host decode with
   * the GPU checker hook */
  int confirmed0 = -1;
  st = sp_gpu_bind(0, &confirmed0, err, sizeof err);
  if (st) {
    printf("FAIL bind: %s\n", err);
    return 1;
  }
  sp_cuda_checker *chk = NULL;
  sp_cuda_dload *dl = NULL;
  sp_srs_sink sink;
  bool taken = false;
  if (direct) {
    int ord = 0;
    uint64_t lim = 0;
    st = sp_cuda_dload_create(&ord, &lim, 1, true, &dl, err, sizeof err);
  } else {
    st = sp_cuda_checker_create(0, &chk, err, sizeof err);
  }
  if (st) {
    printf("FAIL %s: %s\n", direct ? "direct loader" : "checker", err);
    return 1;
  }
  double last = 0;
  sp_srs_load_opts lo;
  memset(&lo, 0, sizeof lo);
  lo.subgroup_check = true;
  lo.nthreads = threads;
  lo.progress = progress;
  lo.progress_user = &last;
  if (direct) {
    sp_cuda_dload_sink(dl, &sink);
    lo.sink = &sink;
    lo.sink_taken = &taken;
  } else {
    lo.check = sp_cuda_checker_run;
    lo.check_user = chk;
    lo.chunk_bytes = (size_t)256 << 20;
  }
  sp_srs *srs = NULL, *vk = NULL;
  uint64_t rss0 = proc_kb("VmRSS");
  bool peak_ok = reset_peak_rss();
  t0 = sp_now_ms();
  st = sp_srs_load_ex(pp, &lo, &srs, err, sizeof err);
  double load_ms = sp_now_ms() - t0;
  uint64_t peak = proc_kb("VmHWM");
  if (!st && taken) (void)sp_cuda_dload_adopt(dl, srs);
  sp_cuda_dload_destroy(dl);
  sp_cuda_checker_destroy(chk);
  if (st) {
    printf("FAIL load: %s\n", err);
    return 1;
  }
  uint64_t npts = srs->h_len + srs->l_len + srs->a_len + srs->b_g1_len + srs->b_g2_len;
  printf(
      "load (%s; every point on-curve, not infinity, subgroup on the GPU): %.2f s, %.2f GB/s, "
      "%.1f Mpoints/s, host RSS %.2f GB before, peak during the load %.2f GB%s (%.2fx the "
      "file); device work %.2f s, of which the reader waited for the GPU %.2f s\n",
      taken    ? "direct onto the GPU, no host copy"
      : direct ? "host: the direct load declined"
               : "host decode, GPU checker",
      load_ms / 1e3, psize / load_ms / 1e6, (double)npts / load_ms / 1e3, rss0 / 1e6, peak / 1e6,
      peak_ok ? "" : " (process peak: clear_refs failed)",
      psize > 0 ? (double)peak * 1e3 / psize : 0.0,
      taken && srs->devcopy ? srs->devcopy->upload_ms / 1e3 : 0.0,
      taken && srs->devcopy ? srs->devcopy->wait_ms / 1e3 : 0.0);
  st = sp_srs_load(vp, true, true, threads, &vk, err, sizeof err);
  if (st) {
    printf("FAIL vk load: %s\n", err);
    return 1;
  }

  /* the CUDA engine, one device per memory_limit, as a worker of the module uses it */
  void *devs[MAX_LIMITS] = {NULL};
  for (unsigned l = 0; l < nlimits; l++) {
    st = engine_open(limits[l], &devs[l], err, sizeof err);
    if (st) {
      printf("FAIL engine (memory_limit %llu): %s\n", (unsigned long long)limits[l], err);
      return 1;
    }
  }
  for (unsigned p = 0; p < parts; p++) {
    double tw = sp_now_ms();
    sp_witness *w = NULL;
    st = sp_circuit_witness(c, seed ^ ((uint64_t)(p + 1) * 0x9E3779B97F4A7C15ull), &w, err,
                            sizeof err);
    if (st) {
      printf("FAIL witness %u: %s\n", p, err);
      fails++;
      continue;
    }
    tw = sp_now_ms() - tw;
    sp_task t;
    memset(&t, 0, sizeof t);
    t.job_id = 1;
    t.partition = p;
    t.srs = srs;
    t.asg = &w->asg;
    t.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
    t.cpu_threads = threads;
    uint8_t rb[64];
    for (int i = 0; i < 64; i++) rb[i] = (uint8_t)(seed * 131 + p * 17 + (uint64_t)i * 7);
    fr_from_bytes_wide(&t.r, rb);
    rb[0] ^= 0x5a;
    fr_from_bytes_wide(&t.s, rb);
    for (unsigned l = 0; l < nlimits; l++) {
      uint8_t proof[192];
      void *prep = NULL;
      double tp = sp_now_ms();
      st = sp_engine_cuda.prepare(devs[l], &t, &prep, err, sizeof err);
      if (!st) st = sp_engine_cuda.execute(devs[l], &t, prep, proof, err, sizeof err);
      if (prep) sp_engine_cuda.release(devs[l], prep);
      tp = sp_now_ms() - tp;
      bool v1 = false, v2 = false;
      char e1[256] = "", e2[256] = "", lim[32] = "none";
      if (limits[l]) snprintf(lim, sizeof lim, "%.2f GiB", (double)limits[l] / (1u << 30));
      if (!st) {
        sp_groth16_verify(srs, &w->asg, t.scalar_encoding, proof, &v1, e1, sizeof e1);
        sp_groth16_verify(vk, &w->asg, t.scalar_encoding, proof, &v2, e2, sizeof e2);
      }
      printf(
          "partition %u, memory_limit %s: witness %.1f s, prove %.1f s%s, self-check %s, verify "
          "with %s: %s %s%s%s\n",
          p, lim, tw / 1e3, tp / 1e3,
          p == 0 && l == 0 && !taken ? " (first: parameters uploaded)" : "", v1 ? "ok" : "FAILED",
          vp, v2 ? "ok" : "FAILED", st ? err : "", e1, e2);
      if (st || !v1 || !v2) fails++;
    }
    sp_witness_free(w);
  }
  for (unsigned l = 0; l < nlimits; l++) engine_close(devs[l]);
  sp_srs_release(srs);
  sp_srs_release(vk);
  sp_circuit_free(c);
  if (!keep) {
    unlink(pp);
    unlink(vp);
  }
  printf("%s: %u of %u proofs verify\n", fails ? "FAIL" : "OK", parts * nlimits - (unsigned)fails,
         parts * nlimits);
  return fails ? 1 : 0;
}
