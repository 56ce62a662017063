/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_child.c -- one child of Curio's default proving path (lib/ffiselect: a process per
 * proof, which calls create_SRS on the parameter file, one 6-argument
 * generate_groth16_proofs_c for all of the proof's partitions, and exits), timed, and
 * the inputs it needs (dev/ffiselect-child.sh runs it; tests/compat/c2_child.sh on CPU
 * devices):
 *
 *   c2_child shape NAME|N:K:P
 *       "NAME CONSTRAINTS INPUTS PARTITIONS LOG_DOMAIN": a proof type of bench/shapes.c
 *       as the kit's sizes (its constraints plus one per input; inputs without ONE), or
 *       a circuit of N constraints, K inputs and P partitions.
 *   c2_child setup --constraints N --inputs K --seed S [--threads T] [--gpu ORD] PARAMS VK
 *       the kit's INSECURE setup of that sealing-shaped circuit (points on CUDA device
 *       ORD with --gpu).
 *   c2_child witness --constraints N --inputs K --seed S --wseed W [--threads T] FILE
 *       one witness of it (witness seed W) in Montgomery form, into a witness file.
 *   c2_child prove --partitions P (--witness FILE | --constraints N --inputs K --seed S
 *                  --wseed W) [--threads T] PARAMS VK
 *       the child: the witness mapped from FILE (pages populated) or made in memory
 *       (timed apart: Curio's child synthesizes its circuits, this one's witness making
 *       is not Curio's), then create_SRS(PARAMS), generate_groth16_proofs_c of P
 *       partitions (every one the same witness with its own r and s: one witness of a
 *       2^27 circuit is 16.7 GB), each proof verified against VK (timed apart), and
 *       drop_SRS. One JSON line on stdout: the wall-clock stamps at main and after
 *       drop_SRS (epoch seconds: the caller times process start and exit around them),
 *       the times of each step, the proofs verified, and the peak RSS from create_SRS to
 *       the end (VmHWM after resetting it once the witness is there) beside the RSS
 *       before. Exit 0 when every proof verifies.
 *
 * Linked against libsealprov_c2 (the module and INI from SEALPROV_PLUGIN and
 * SEALPROV_CONFIG) and, for the inputs and the check, the kit. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "c2_child.h"
#include "formats/srs.h"
#include "groth16/groth16.h"

static double mono_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double epoch_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* /proc/self/status's KEY ("VmHWM", "VmRSS") in bytes. */
static uint64_t status_bytes(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  uint64_t v = 0;
  size_t kl = strlen(key);
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (!strncmp(line, key, kl) && line[kl] == ':') v = strtoull(line + kl + 1, NULL, 10) * 1024;
  if (f != NULL) fclose(f);
  return v;
}

/* VmHWM set to the current RSS (Linux 4.0 and later). */
static bool reset_peak(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f == NULL) return false;
  bool ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

static int usage(void) {
  fprintf(stderr,
          "usage: c2_child shape NAME|N:K:P\n"
          "       c2_child setup --constraints N --inputs K --seed S [--threads T] [--gpu ORD] "
          "PARAMS VK\n"
          "       c2_child witness --constraints N --inputs K --seed S --wseed W [--threads T] "
          "FILE\n"
          "       c2_child prove --partitions P (--witness FILE | --constraints N --inputs K "
          "--seed S --wseed W) [--threads T] PARAMS VK\n");
  return 2;
}

typedef struct child_opts {
  child_circuit c;
  uint64_t wseed;
  unsigned threads, partitions;
  int gpu;
  const char *witness;
  bool have_c, have_wseed;
  const char *files[2];
  int nfiles;
} child_opts;

/* A number option's value: all digits (or 0x...), within max. */
static bool num(const char *opt, const char *v, uint64_t max, uint64_t *out) {
  char *end = NULL;
  unsigned long long x = v != NULL ? strtoull(v, &end, 0) : 0;
  if (v == NULL || end == v || *end != '\0' || x > max) {
    fprintf(stderr, "c2_child: %s \"%s\": expected a number up to %llu\n", opt, v ? v : "",
            (unsigned long long)max);
    return false;
  }
  *out = x;
  return true;
}

static bool parse(int argc, char **argv, child_opts *o) {
  memset(o, 0, sizeof *o);
  o->gpu = -1;
  o->threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
  uint64_t v = 0, have = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *x = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (!strcmp(a, "--constraints") && (ok = num(a, x, UINT64_C(1) << 31, &v)))
      o->c.constraints = v, have |= 1;
    else if (!strcmp(a, "--inputs") && (ok = num(a, x, UINT32_MAX - 1, &v)))
      o->c.inputs = (uint32_t)v, have |= 2;
    else if (!strcmp(a, "--seed") && (ok = num(a, x, UINT64_MAX, &v)))
      o->c.seed = v, have |= 4;
    else if (!strcmp(a, "--wseed") && (ok = num(a, x, UINT64_MAX, &v)))
      o->wseed = v, o->have_wseed = true;
    else if (!strcmp(a, "--threads") && (ok = num(a, x, 1024, &v)) && v > 0)
      o->threads = (unsigned)v;
    else if (!strcmp(a, "--partitions") && (ok = num(a, x, 100000, &v)) && v > 0)
      o->partitions = (unsigned)v;
    else if (!strcmp(a, "--gpu") && (ok = num(a, x, 1023, &v)))
      o->gpu = (int)v;
    else if (!strcmp(a, "--witness") && x != NULL)
      o->witness = x;
    else if (a[0] != '-' && o->nfiles < 2) {
      o->files[o->nfiles++] = a;
      continue;
    } else {
      if (ok) fprintf(stderr, "c2_child %s: bad argument \"%s\"\n", argv[1], a);
      return false;
    }
    if (!ok) return false;
    i++;
  }
  o->have_c = have == 7;
  return true;
}

/* r and s of partition i: fixed per index (the proofs differ, the runs repeat). */
static bool blinding(unsigned i, c2_fr *r, c2_fr *s) {
  uint8_t b[2][32];
  uint64_t x = 0x9E3779B97F4A7C15ull * (i + 1);
  for (int k = 0; k < 64; k++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b[k / 32][k % 32] = (uint8_t)x;
  }
  b[0][31] &= 0x3f, b[1][31] &= 0x3f; /* below r */
  c2_error e1 = sealprov_c2_fr_from_canonical(r, b[0], 1);
  c2_error e2 = sealprov_c2_fr_from_canonical(s, b[1], 1);
  bool ok = e1.code == 0 && e2.code == 0;
  free(e1.message);
  free(e2.message);
  return ok;
}

/* Each proof against the verifying key vk with the witness's inputs: how many verify. */
static unsigned verify_all(const char *vk_path, const c2_assignment *asg,
                           const c2_groth16_proof *proofs, unsigned n, unsigned threads) {
  char err[1024] = "";
  sp_srs *vk = NULL;
  if (sp_srs_load(vk_path, true, true, threads, &vk, err, sizeof err) != SEALPROV_OK) {
    fprintf(stderr, "c2_child: %s: %s\n", vk_path, err);
    return 0;
  }
  unsigned good = 0;
  for (unsigned i = 0; i < n; i++) {
    uint8_t z[192];
    c2_error e = sealprov_c2_proof_compress(z, &proofs[i], 1);
    bool valid = false;
    if (e.code == 0 &&
        sp_groth16_verify(vk, (const sealprov_assignment *)asg, SEALPROV_SCALAR_MONTGOMERY, z,
                          &valid, err, sizeof err) == SEALPROV_OK &&
        valid)
      good++;
    else
      fprintf(stderr, "c2_child: proof %u does not verify against %s: %s%s\n", i, vk_path,
              e.message ? e.message : "", err);
    free(e.message);
  }
  sp_srs_release(vk);
  return good;
}

static bool failed(c2_error e, const char *what) {
  if (e.code == 0) return false;
  fprintf(stderr, "c2_child: %s: error %d: %s\n", what, (int)e.code, e.message ? e.message : "");
  free(e.message);
  return true;
}

/* The child proper. */
static int prove(const child_opts *o) {
  double t_main = epoch_s();
  char err[1024] = "";
  child_witness w;
  bool mapped = o->witness != NULL;
  if (!(mapped ? child_witness_map(o->witness, &w, err, sizeof err)
               : child_witness_make(&o->c, o->wseed, o->threads, &w, err, sizeof err))) {
    fprintf(stderr, "c2_child: witness: %s\n", err);
    return 1;
  }
  unsigned n = o->partitions;
  c2_assignment *asg = malloc(n * sizeof *asg);
  c2_fr *r = malloc(n * sizeof *r), *s = malloc(n * sizeof *s);
  c2_groth16_proof *proofs = malloc(n * sizeof *proofs);
  if (asg == NULL || r == NULL || s == NULL || proofs == NULL) {
    fprintf(stderr, "c2_child: no memory for %u partitions\n", n);
    return 1;
  }
  for (unsigned i = 0; i < n; i++) {
    asg[i] = w.asg;
    if (!blinding(i, &r[i], &s[i])) return 1;
  }
  uint64_t rss0 = status_bytes("VmRSS");
  bool peak_ok = reset_peak();

  double t0 = mono_s(), t_ready = epoch_s();
  c2_SRS srs = {NULL};
  if (failed(create_SRS(&srs, o->files[0], false), o->files[0])) return 1;
  double t1 = mono_s();
  if (failed(generate_groth16_proofs_c(asg, n, r, s, proofs, &srs), "generate_groth16_proofs_c"))
    return 1;
  double t2 = mono_s();
  unsigned good = verify_all(o->files[1], &w.asg, proofs, n, o->threads);
  double t3 = mono_s();
  drop_SRS(&srs);
  double t4 = mono_s(), t_last = epoch_s();
  uint64_t peak = status_bytes("VmHWM");
  printf(
      "{\"t_main\": %.6f, \"t_ready\": %.6f, \"t_last\": %.6f, \"witness\": \"%s\", "
      "\"witness_s\": %.3f, \"witness_bytes\": %llu, \"create_SRS_s\": %.3f, \"prove_s\": %.3f, "
      "\"partitions\": %u, \"verify_s\": %.3f, \"verified\": %u, \"drop_SRS_s\": %.3f, "
      "\"rss_before_bytes\": %llu, \"peak_rss_bytes\": %llu, \"peak_from\": \"%s\"}\n",
      t_main, t_ready, t_last, mapped ? "file" : "memory", w.make_s, (unsigned long long)w.bytes,
      t1 - t0, t2 - t1, n, t3 - t2, good, t4 - t3, (unsigned long long)rss0,
      (unsigned long long)peak, peak_ok ? "create_SRS" : "process start");
  fflush(stdout);
  /* the witness and the arrays go with the process, as in Curio's child */
  return good == n ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 3) return usage();
  char err[1024] = "";
  if (!strcmp(argv[1], "shape")) {
    char line[512];
    if (argc != 3 || !child_shape_line(argv[2], line, sizeof line, err, sizeof err)) {
      if (err[0]) fprintf(stderr, "c2_child: %s\n", err);
      return err[0] ? 1 : usage();
    }
    printf("%s\n", line);
    return 0;
  }
  child_opts o;
  if (!parse(argc, argv, &o)) return usage();
  if (!strcmp(argv[1], "setup") && o.have_c && o.nfiles == 2) {
    if (child_setup(&o.c, o.gpu, o.threads, o.files[0], o.files[1], err, sizeof err)) return 0;
  } else if (!strcmp(argv[1], "witness") && o.have_c && o.have_wseed && o.nfiles == 1) {
    child_witness w;
    if (child_witness_make(&o.c, o.wseed, o.threads, &w, err, sizeof err) &&
        child_witness_write(&w, o.files[0], err, sizeof err)) {
      printf("{\"witness_s\": %.3f, \"witness_bytes\": %llu}\n", w.make_s,
             (unsigned long long)w.bytes);
      child_witness_free(&w);
      return 0;
    }
  } else if (!strcmp(argv[1], "prove") && o.partitions > 0 && o.nfiles == 2 &&
             (o.witness != NULL || (o.have_c && o.have_wseed))) {
    return prove(&o);
  } else {
    return usage();
  }
  fprintf(stderr, "c2_child %s: %s\n", argv[1], err);
  return 1;
}
