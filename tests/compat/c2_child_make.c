/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_child_make.c -- the inputs of c2_child: a proof type's sizes (bench/shapes.c), the
 * kit's INSECURE setup of a sealing-shaped circuit of that size (on the GPU in a CUDA
 * build), and one witness of it in Montgomery form, in memory or in a witness file:
 *
 *   offset  size  field (little-endian)
 *        0     8  magic "SPC2WIT1"
 *        8    48  abc_size, inp_size, aux_size, a_aux_popcount, b_inp_popcount,
 *                 b_aux_popcount (u64 each)
 *       56     8  0
 *       64        a, b, c (abc_size each), inputs, aux: 32-byte blst Montgomery scalars;
 *                 then the a_aux, b_inp, b_aux density bitmaps (u64 words)
 *
 * The file is the child's own scratch (dev/ffiselect-child.sh keeps it on tmpfs for the
 * length of one proof type's runs), not a format of sealprov's. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "c2_child.h"
#include "c2_kit_witness.h"
#include "circuit.h"
#include "shapes.h"
#ifdef HAVE_CUDA
#include "gpu/sp_cuda_setup.h"
#endif

#define WIT_MAGIC "SPC2WIT1"
#define WIT_HEADER 64u

static double mono_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

bool child_shape_line(const char *spec, char *out, size_t outlen, char *err, size_t errlen) {
  const sp_proof_shape *s = sp_proof_shape_find(spec);
  if (s != NULL) {
    snprintf(out, outlen, "%s %llu %llu %u %u", s->name,
             (unsigned long long)(s->constraints + s->inputs), (unsigned long long)(s->inputs - 1),
             s->partitions, s->log_domain);
    return true;
  }
  unsigned long long n = 0, k = 0;
  unsigned p = 0;
  char tail = 0;
  if (sscanf(spec, "%llu:%llu:%u%c", &n, &k, &p, &tail) != 3 || n == 0 || p == 0 ||
      k >= UINT32_MAX) {
    snprintf(err, errlen, "shape \"%s\": neither a proof type (%s) nor N:K:P", spec,
             sp_proof_shape_names());
    return false;
  }
  unsigned log = 0;
  while ((UINT64_C(1) << log) < n) log++;
  snprintf(out, outlen, "%llu:%llu:%u %llu %llu %u %u", n, k, p, n, k, p, log);
  return true;
}

bool child_setup(const child_circuit *c, int gpu, unsigned threads, const char *params,
                 const char *vk, char *err, size_t errlen) {
  sp_circuit *circ = NULL;
  if (sp_circuit_generate(c->constraints, c->inputs, SP_SHAPE_SEALING, c->seed, &circ, err,
                          errlen) != SEALPROV_OK)
    return false;
  const sp_fixed_base *fbp = NULL;
#ifdef HAVE_CUDA
  sp_cuda_setup *gs = NULL;
  sp_fixed_base fb;
  if (gpu >= 0) {
    if (sp_cuda_setup_create(gpu, &gs, err, errlen) != SEALPROV_OK) {
      sp_circuit_free(circ);
      return false;
    }
    fb = sp_cuda_setup_fixed_base(gs);
    fbp = &fb;
  }
#else
  if (gpu >= 0) {
    snprintf(err, errlen, "--gpu %d: this build has no CUDA", gpu);
    sp_circuit_free(circ);
    return false;
  }
#endif
  int st = sp_circuit_write_params_fb(circ, c->seed, threads, fbp, params, vk, err, errlen);
#ifdef HAVE_CUDA
  sp_cuda_setup_destroy(gs);
#endif
  sp_circuit_free(circ);
  return st == SEALPROV_OK;
}

bool child_witness_make(const child_circuit *c, uint64_t wseed, unsigned threads, child_witness *w,
                        char *err, size_t errlen) {
  memset(w, 0, sizeof *w);
  double t0 = mono_s();
  sp_circuit *circ = NULL;
  if (sp_circuit_generate(c->constraints, c->inputs, SP_SHAPE_SEALING, c->seed, &circ, err,
                          errlen) != SEALPROV_OK)
    return false;
  sp_witness *sw = NULL;
  int st = sp_circuit_witness(circ, wseed, &sw, err, errlen);
  sp_circuit_free(circ);
  if (st != SEALPROV_OK) return false;
  const sealprov_assignment *a = &sw->asg;
  size_t nsc = (size_t)(3 * a->abc_size + a->inp_size + a->aux_size);
  size_t wa = (size_t)(a->aux_size + 63) / 64, wi = (size_t)(a->inp_size + 63) / 64;
  w->mem = sw;
  w->bytes = nsc * 32 + (2 * wa + wi) * 8;
  if (!c2_kit_witness(sw, threads, &w->asg, err, errlen)) {
    child_witness_free(w);
    return false;
  }
  w->make_s = mono_s() - t0;
  return true;
}

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

bool child_witness_write(const child_witness *w, const char *path, char *err, size_t errlen) {
  uint8_t h[WIT_HEADER] = {0};
  memcpy(h, WIT_MAGIC, 8);
  const c2_assignment *a = &w->asg;
  const uint64_t v[6] = {a->abc_size,       a->inp_assignment_size, a->aux_assignment_size,
                         a->a_aux_popcount, a->b_inp_popcount,      a->b_aux_popcount};
  for (int i = 0; i < 6; i++) put64(h + 8 + 8 * i, v[i]);
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.part", path);
  FILE *f = fopen(tmp, "wb");
  size_t nsc = (size_t)(3 * a->abc_size + a->inp_assignment_size + a->aux_assignment_size);
  size_t wa = (size_t)(a->aux_assignment_size + 63) / 64;
  size_t wi = (size_t)(a->inp_assignment_size + 63) / 64;
  bool ok = f != NULL && fwrite(h, 1, sizeof h, f) == sizeof h && fwrite(a->a, 32, nsc, f) == nsc &&
            fwrite(a->a_aux_density, 8, wa, f) == wa && fwrite(a->b_inp_density, 8, wi, f) == wi &&
            fwrite(a->b_aux_density, 8, wa, f) == wa;
  if (f != NULL && fclose(f) != 0) ok = false;
  if (!ok || rename(tmp, path) != 0) {
    snprintf(err, errlen, "%s: cannot write the witness file: %s", path, strerror(errno));
    unlink(tmp);
    return false;
  }
  return true;
}

bool child_witness_map(const char *path, child_witness *w, char *err, size_t errlen) {
  memset(w, 0, sizeof *w);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return false;
  }
  size_t len = (size_t)sb.st_size;
  uint8_t *m =
      len >= WIT_HEADER ? mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (m == MAP_FAILED) {
    snprintf(err, errlen, "%s: %zu bytes: not a witness file (%s)", path, len,
             len < WIT_HEADER ? "shorter than its header" : strerror(errno));
    return false;
  }
  uint64_t abc = get64(m + 8), inp = get64(m + 16), aux = get64(m + 24);
  uint64_t wa = (aux + 63) / 64, wi = (inp + 63) / 64;
  bool sizes_ok = (abc | inp | aux) >> 40 == 0 &&
                  len == WIT_HEADER + 32 * (3 * abc + inp + aux) + 8 * (2 * wa + wi);
  if (memcmp(m, WIT_MAGIC, 8) != 0 || !sizes_ok) {
    snprintf(err, errlen,
             "%s: not a witness file of c2_child (magic, or abc %llu, inputs %llu, aux %llu "
             "against %zu bytes)",
             path, (unsigned long long)abc, (unsigned long long)inp, (unsigned long long)aux, len);
    munmap(m, len);
    return false;
  }
  const c2_fr *sc = (const c2_fr *)(m + WIT_HEADER);
  const uint64_t *bits = (const uint64_t *)(sc + 3 * abc + inp + aux);
  w->asg = (c2_assignment){
      .a_aux_density = bits,
      .a_aux_bit_len = aux,
      .a_aux_popcount = get64(m + 32),
      .b_inp_density = bits + wa,
      .b_inp_bit_len = inp,
      .b_inp_popcount = get64(m + 40),
      .b_aux_density = bits + wa + wi,
      .b_aux_bit_len = aux,
      .b_aux_popcount = get64(m + 48),
      .a = sc,
      .b = sc + abc,
      .c = sc + 2 * abc,
      .abc_size = abc,
      .inp_assignment_data = sc + 3 * abc,
      .inp_assignment_size = inp,
      .aux_assignment_data = sc + 3 * abc + inp,
      .aux_assignment_size = aux,
  };
  w->mem = m;
  w->len = len;
  w->bytes = len - WIT_HEADER;
  return true;
}

void child_witness_free(child_witness *w) {
  if (w->len)
    munmap(w->mem, w->len);
  else
    sp_witness_free(w->mem);
  memset(w, 0, sizeof *w);
}
