/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_cuda_load.c -- the direct load (cuda/points/points.cu through srs.c's sink) against the
 * host load:
 *   bytes     the device copies, downloaded, equal the host decoder's arrays, byte for
 *             byte (several sizes; small read buffers, so a file is many chunks);
 *   bad       a coordinate >= p, a point off the curve, infinity, a point on the curve
 *             outside the subgroup (G1 and G2), a truncated file and one that shrinks
 *             during the load: the direct load fails with the host loader's message,
 *             character for character;
 *   proof     a partition proved by the CUDA engine from the direct-loaded set equals
 *             the CPU prover's proof from the host-loaded set (same r, s), also with
 *             streaming forced (a device-only set is never streamed).
 * Plain program (the GPU machine has no libcheck); exit 77 when no GPU is visible.
 */
#include <config.h> /* HAVE_CUDA declares sp_engine_cuda */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/sp_gpu.h"
#include "gpu/gpu_kit.h"
#include "engine/device.h" /* sp_device_cfg */
#include "circuit.h"
#include "util/cuda_api.h"
#include "points/points.h"
#include "engine/engine.h"
#include "backend/engine_cuda.h"
#include "backend/probe.h"
#include "groth16/groth16.h"
#include "formats/srs.h"
#include "base/util.h"
#include "gpu_check.h"

static unsigned threads = 8;
/* Read buffers of the direct loads (sp_srs_sink.chunk_bytes lowered to this; 0: the
 * default 256 MiB, or the file's size) */
static size_t load_chunk;

static const char *const vnames[5] = {"h", "l", "a", "b_g1", "b_g2"};

/* A direct load of path onto device 0 (the calling thread is bound to it). *taken: the
 * sink took the vectors. */
static int direct_load(const char *path, bool subgroup, sp_srs **out, bool *taken, char *err,
                       size_t errlen) {
  int ord = 0;
  uint64_t lim = 0;
  sp_cuda_dload *dl = NULL;
  *out = NULL;
  *taken = false;
  int st = sp_cuda_dload_create(&ord, &lim, 1, subgroup, &dl, err, errlen);
  if (st) return st;
  sp_srs_sink sink;
  sp_cuda_dload_sink(dl, &sink);
  if (load_chunk) sink.chunk_bytes = load_chunk;
  sp_srs_load_opts o = {
      .subgroup_check = subgroup, .nthreads = threads, .sink = &sink, .sink_taken = taken};
  st = sp_srs_load_ex(path, &o, out, err, errlen);
  if (st == SEALPROV_OK && *taken && load_chunk)
    CHECK(sp_cuda_dload_chunk_bytes(dl) == load_chunk, "%s: read buffers of %zu bytes, asked %zu",
          path, sp_cuda_dload_chunk_bytes(dl), load_chunk);
  if (st == SEALPROV_OK && *taken) {
    if (!sp_cuda_dload_adopt(dl, *out)) {
      snprintf(err, errlen, "take: out of memory");
      st = SEALPROV_ERR_NO_MEMORY;
      sp_srs_release(*out);
      *out = NULL;
    }
  }
  sp_cuda_dload_destroy(dl);
  return st;
}

static void check_bytes(const sp_srs *host, const sp_srs *dev, const char *what) {
  const void *hv[5] = {host->h, host->l, host->a, host->b_g1, host->b_g2};
  size_t len[5] = {host->h_len, host->l_len, host->a_len, host->b_g1_len, host->b_g2_len};
  CHECK(dev->device_only && dev->devcopy && !dev->h && !dev->b_g2, "%s: not device only", what);
  if (!dev->devcopy) return;
  for (int v = 0; v < 5; v++) {
    size_t bytes = len[v] * (v == 4 ? sizeof(g2_affine_t) : sizeof(g1_affine_t));
    CHECK(dev->devcopy->bytes[v] == bytes, "%s: vector %s %zu bytes on the device, %zu on the host",
          what, vnames[v], dev->devcopy->bytes[v], bytes);
    uint8_t *d = malloc(bytes + 1);
    char err[256];
    int st = sp_cuda_devcopy_download(dev->devcopy, 0, v, d, err, sizeof err);
    CHECK(st == SEALPROV_OK, "%s: download: %s", what, err);
    if (st == SEALPROV_OK && bytes) {
      size_t first = bytes;
      for (size_t i = 0; i < bytes && first == bytes; i++)
        if (d[i] != ((const uint8_t *)hv[v])[i]) first = i;
      CHECK(first == bytes, "%s: vector %s differs from the host decode at byte %zu (point %zu)",
            what, vnames[v], first, first / (v == 4 ? 192 : 96));
    }
    free(d);
  }
}

/* ---- bad files ------------------------------------------------------------------------ */

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return b;
}

static bool spit(const char *path, const void *b, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(b, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

/* The byte offsets of each proving vector's first point. */
static void offsets(const sp_srs *s, size_t at[5]) {
  size_t off = 864 + 4 + s->vk.ic_len * 96;
  size_t len[5] = {s->h_len, s->l_len, s->a_len, s->b_g1_len, s->b_g2_len};
  for (int v = 0; v < 5; v++) {
    at[v] = off + 4;
    off += 4 + len[v] * (v == 4 ? 192 : 96);
  }
}

static void off_subgroup_g1(g1_affine_t *p) {
  fp_t rhs, four;
  fp_from_u64(&four, 4);
  for (uint64_t x = 1;; x++) {
    fp_from_u64(&p->x, x);
    fp_sqr(&rhs, &p->x);
    fp_mul(&rhs, &rhs, &p->x);
    fp_add(&rhs, &rhs, &four);
    if (fp_sqrt(&p->y, &rhs) && !g1_affine_in_subgroup(p)) return;
  }
}

static void off_subgroup_g2(g2_affine_t *p) {
  fp2_t rhs, b, t;
  fp_from_u64(&b.c0, 4);
  fp_from_u64(&b.c1, 4);
  for (uint64_t x = 1;; x++) {
    fp_from_u64(&p->x.c0, x);
    fp_from_u64(&p->x.c1, 1);
    fp2_sqr(&t, &p->x);
    fp2_mul(&t, &t, &p->x);
    fp2_add(&rhs, &t, &b);
    if (fp2_sqrt(&p->y, &rhs) && !g2_affine_in_subgroup(p)) return;
  }
}

typedef struct shrink_ctx {
  const char *path;
  uint64_t to;
  int calls;
} shrink_ctx;

static int shrink_cb(void *user, const sp_srs_progress *p) {
  (void)p;
  shrink_ctx *c = user;
  if (c->calls++ == 0 && truncate(c->path, (off_t)c->to) != 0) return 1;
  return 0;
}

static void run_bad(const char *path, const sp_srs *host, const char *dir) {
  size_t len = 0;
  uint8_t *b = slurp(path, &len);
  CHECK(b != NULL, "read %s", path);
  if (!b) return;
  size_t at[5];
  offsets(host, at);
  char bad[700];
  snprintf(bad, sizeof bad, "%s/bad.params", dir);
  struct {
    const char *what;
    int vec;
    size_t index;
    int how;
  } cases[] = {
      {"G1 x >= p", 0, 1, 0},
      {"G1 y >= p", 1, 2, 1},
      {"G1 off the curve", 2, 0, 2},
      {"G1 infinity", 3, 5, 3},
      {"G1 not in the subgroup", 3, 9, 4},
      {"G1 not in the subgroup, last point of h", 0, 0, 5},
      {"G2 x.c1 >= p", 4, 0, 0},
      {"G2 y.c0 >= p", 4, 1, 6},
      {"G2 off the curve", 4, 2, 2},
      {"G2 infinity", 4, 3, 3},
      {"G2 not in the subgroup", 4, 4, 4},
      {"compressed flag", 1, 3, 7},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    uint8_t *m = malloc(len);
    memcpy(m, b, len);
    int v = cases[c].vec;
    size_t each = v == 4 ? 192 : 96;
    size_t idx = cases[c].how == 5 ? host->h_len - 1 : cases[c].index;
    uint8_t *p = m + at[v] + each * idx;
    switch (cases[c].how) {
      case 0: memset(p, 0x1f, 48); break; /* first coordinate > p */
      case 1:
        memset(p + 48, 0xff, 48);
        p[48] = 0x1a;
        p[49] = 0x02;
        break; /* y just above p */
      case 2: p[each - 1] ^= 1; break;
      case 3:
        memset(p, 0, each);
        p[0] = 0x40;
        break;
      case 4:
      case 5:
        if (v == 4) {
          g2_affine_t q;
          off_subgroup_g2(&q);
          g2_serialize(p, &q);
        } else {
          g1_affine_t q;
          off_subgroup_g1(&q);
          g1_serialize(p, &q);
        }
        break;
      case 6: memset(p + 144, 0x1f, 48); break; /* y.c0 > p */
      case 7: p[0] |= 0x80; break;
    }
    bool ok = spit(bad, m, len);
    free(m);
    CHECK(ok, "write %s", bad);
    char herr[1024] = "", derr[1024] = "";
    sp_srs *s = NULL;
    int hst = sp_srs_load(bad, false, true, threads, &s, herr, sizeof herr);
    if (s) sp_srs_release(s);
    bool taken = false;
    int dst = direct_load(bad, true, &s, &taken, derr, sizeof derr);
    if (s) sp_srs_release(s);
    CHECK(hst == SEALPROV_ERR_PARAMS && dst == hst && strcmp(herr, derr) == 0,
          "%s (vector %s index %zu): host %d \"%s\", direct %d \"%s\"", cases[c].what, vnames[v],
          idx, hst, herr, dst, derr);
  }
  /* truncated: the last point of b_g2 cut short */
  CHECK(spit(bad, b, len - 100), "write");
  {
    char herr[1024] = "", derr[1024] = "";
    sp_srs *s = NULL;
    bool taken = false;
    int hst = sp_srs_load(bad, false, true, threads, &s, herr, sizeof herr);
    if (s) sp_srs_release(s);
    int dst = direct_load(bad, true, &s, &taken, derr, sizeof derr);
    if (s) sp_srs_release(s);
    CHECK(hst == SEALPROV_ERR_PARAMS && dst == hst && strcmp(herr, derr) == 0,
          "truncated: host %d \"%s\", direct %d \"%s\"", hst, herr, dst, derr);
  }
  /* the file shrinks during the load (after its first chunk), into vector l */
  {
    char herr[1024] = "", derr[1024] = "";
    sp_srs *s = NULL;
    bool taken = false;
    int ord = 0;
    uint64_t lim = 0;
    sp_cuda_dload *dl = NULL;
    CHECK(spit(bad, b, len), "write");
    shrink_ctx sc = {.path = bad, .to = at[1] + 96 * 3};
    sp_srs_load_opts o = {
        .subgroup_check = true, .nthreads = threads, .progress = shrink_cb, .progress_user = &sc};
    int hst = sp_srs_load_ex(bad, &o, &s, herr, sizeof herr);
    if (s) sp_srs_release(s);
    CHECK(spit(bad, b, len), "write");
    sc.calls = 0;
    int st = sp_cuda_dload_create(&ord, &lim, 1, true, &dl, derr, sizeof derr);
    sp_srs_sink sink;
    sp_cuda_dload_sink(dl, &sink);
    if (load_chunk) sink.chunk_bytes = load_chunk;
    o.sink = &sink;
    o.sink_taken = &taken;
    int dst = st ? st : sp_srs_load_ex(bad, &o, &s, derr, sizeof derr);
    if (s) sp_srs_release(s);
    sp_cuda_dload_destroy(dl);
    CHECK(hst == SEALPROV_ERR_IO && dst == hst && taken &&
              strstr(derr, "changed during the load") && strstr(derr, "vector l"),
          "shrinking file: host %d \"%s\", direct %d \"%s\" (taken %d)", hst, herr, dst, derr,
          taken);
  }
  unlink(bad);
  free(b);
}

/* ---- proofs --------------------------------------------------------------------------- */

static void run_proof(const sp_circuit *c, const sp_srs *host, const sp_srs *dev, uint64_t seed) {
  char err[512] = "";
  sp_witness *w = NULL;
  int st = sp_circuit_witness(c, seed + 1, &w, err, sizeof err);
  CHECK(st == SEALPROV_OK, "witness: %s", err);
  if (st) return;
  sp_device_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  snprintf(cfg.section, sizeof cfg.section, "gpu0");
  cfg.type = SP_DEVICE_CUDA;
  cfg.ordinal = 0;
  cfg.workers = 1;
  void *d = NULL;
  st = sp_engine_cuda.device_open(&cfg, &d, err, sizeof err);
  CHECK(st == SEALPROV_OK, "device_open: %s", err);
  if (st) {
    sp_witness_free(w);
    return;
  }
  int confirmed = -1;
  st = sp_engine_cuda.worker_bind(d, 0, &confirmed, err, sizeof err);
  CHECK(st == SEALPROV_OK, "worker_bind: %s", err);
  if (!st) {
    sp_task t;
    memset(&t, 0, sizeof t);
    t.job_id = 1;
    t.asg = &w->asg;
    t.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
    t.cpu_threads = threads;
    uint8_t rb[64];
    for (int i = 0; i < 64; i++) rb[i] = (uint8_t)(seed * 13 + (uint64_t)i * 5);
    fr_from_bytes_wide(&t.r, rb);
    rb[3] ^= 0x33;
    fr_from_bytes_wide(&t.s, rb);
    uint8_t cpu[192], g1[192], g2[192];
    st = sp_groth16_prove(host, &w->asg, t.scalar_encoding, &t.r, &t.s, threads, cpu, err,
                          sizeof err);
    CHECK(st == SEALPROV_OK, "CPU prove: %s", err);
    t.srs = dev;
    int st1 = sp_engine_cuda.execute(d, &t, NULL, g1, err, sizeof err);
    CHECK(st1 == SEALPROV_OK && memcmp(cpu, g1, 192) == 0,
          "direct-loaded set: the GPU proof %s the CPU's from the host-loaded set (%s)",
          st1 ? "failed, not" : "differs from", st1 ? err : "");
    sp_cuda_timings tm;
    sp_engine_cuda_last_timings(d, &tm);
    CHECK(!tm.streamed && tm.srs_upload_ms == 0,
          "direct-loaded set streamed (%d) or uploaded (%.1f ms)", tm.streamed, tm.srs_upload_ms);
#ifdef SP_FAULT_INJECTION
    /* streaming forced (a test build's knob): a device-only set stays resident */
    sp_engine_cuda_set_streaming(d, true, 1024);
    int st2 = sp_engine_cuda.execute(d, &t, NULL, g2, err, sizeof err);
    sp_engine_cuda_last_timings(d, &tm);
    CHECK(st2 == SEALPROV_OK && memcmp(cpu, g2, 192) == 0 && !tm.streamed,
          "direct-loaded set with streaming forced: %s (streamed %d)", st2 ? err : "proof differs",
          tm.streamed);
    sp_engine_cuda_set_streaming(d, false, 0);
#else
    (void)g2;
#endif
    /* a set loaded onto another ordinal than this device's: a clear DEVICE_MEMORY */
    sp_srs fake = *dev;
    sp_srs_devcopy other = *dev->devcopy;
    other.ordinal[0] = 77;
    fake.devcopy = &other;
    t.srs = &fake;
    int st3 = sp_engine_cuda.execute(d, &t, NULL, g2, err, sizeof err);
    CHECK(st3 == SEALPROV_ERR_DEVICE_MEMORY && strstr(err, "no host copy"),
          "a set with no copy on this device: %d %s", st3, err);
    sp_engine_cuda.srs_evict(d, &fake);
    sp_engine_cuda.srs_evict(d, dev);
    sp_engine_cuda.worker_unbind(d, 0);
  }
  sp_engine_cuda.device_close(d);
  sp_witness_free(w);
}

static void run_size(uint64_t constraints, uint64_t seed, const char *dir, bool proof) {
  char err[1024] = "", path[600];
  sp_circuit *c = NULL;
  int st = sp_circuit_generate(constraints, 4, SP_SHAPE_SEALING, seed, &c, err, sizeof err);
  CHECK(st == SEALPROV_OK, "circuit %llu: %s", (unsigned long long)constraints, err);
  if (st) return;
  snprintf(path, sizeof path, "%s/c%llu.params", dir, (unsigned long long)constraints);
  st = sp_circuit_write_params(c, seed ^ 0xabcdef, threads, path, NULL, err, sizeof err);
  CHECK(st == SEALPROV_OK, "params: %s", err);
  sp_srs *host = NULL, *dev = NULL;
  if (!st) st = sp_srs_load(path, false, true, threads, &host, err, sizeof err);
  CHECK(st == SEALPROV_OK, "host load: %s", err);
  if (!st) {
    bool taken = false;
    double t0 = sp_now_ms();
    int dst = direct_load(path, true, &dev, &taken, err, sizeof err);
    double ms = sp_now_ms() - t0;
    CHECK(dst == SEALPROV_OK && taken, "direct load: %s (taken %d)", err, taken);
    if (dst == SEALPROV_OK) {
      char what[64];
      snprintf(what, sizeof what, "2^%u", host->log_domain);
      check_bytes(host, dev, what);
      printf("2^%u: direct load %.1f ms (read buffers: %zu KiB, 0 = default), %.1f MB\n",
             host->log_domain, ms, load_chunk >> 10, (double)dev->devcopy->total_bytes / 1e6);
      if (proof) run_proof(c, host, dev, seed);
      sp_srs_release(dev);
      dev = NULL;
    }
  }
  if (!st && proof) run_bad(path, host, dir);
  if (host) sp_srs_release(host);
  unlink(path);
  sp_circuit_free(c);
}

int main(int argc, char **argv) {
  (void)argv;
  if (argc > 1) {
    fprintf(stderr, "usage: %s\n", argv[0]);
    return 2;
  }
  if (sp_gpu_device_count() <= 0) {
    printf("SKIP: no CUDA device visible\n");
    return 77;
  }
  const char *thr = getenv("SP_TEST_CPU_THREADS");
  if (thr) threads = (unsigned)atoi(thr);
  const char *seed_env = getenv("SP_TEST_SEED");
  uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : (uint64_t)time(NULL);
  printf("seed %llu (set SP_TEST_SEED to repeat)\n", (unsigned long long)seed);
  char dir[] = "/tmp/sp_cuda_load_XXXXXX";
  if (!mkdtemp(dir)) {
    printf("FAIL: mkdtemp\n");
    return 1;
  }
  int confirmed = -1;
  char err[256];
  if (sp_gpu_bind(0, &confirmed, err, sizeof err) != SEALPROV_OK) {
    printf("FAIL: bind: %s\n", err);
    return 1;
  }
  /* small read buffers: every file is many chunks, a vector spans several, and the
   * three slots are reused many times */
  load_chunk = (size_t)48 << 10;
  run_size(1000, seed, dir, true);
  run_size(16001, seed + 1000, dir, true);
  load_chunk = (size_t)1 << 20;
  run_size(60000, seed + 2000, dir, false);
  load_chunk = 0;
  run_size(16000, seed + 3000, dir, false); /* the default buffers: one chunk a vector */
  rmdir(dir);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
