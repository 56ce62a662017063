/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_post_inputs.c -- c2_post_load's inputs: a PoRep-shaped and a WinningPoSt-shaped
 * parameter set made by the kit's INSECURE setup (the fixed-base products on a GPU when
 * asked), one witness of each in memory (a 2^27 partition is some 17 GB: no assignment
 * file), converted to the Montgomery form the entry points take with the library's
 * own conversion, and the verifying keys every proof is checked with at the end. */
#include <config.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "c2_kit_witness.h"
#include "c2_post_load.h"
#include "groth16/groth16.h"
#ifdef HAVE_CUDA
#include "gpu/sp_cuda_setup.h"
#endif

/* The marker next to a set's files: the circuit they were made for. A run finds the
 * files of an earlier one by it (a 2^27 set takes minutes to write). */
static void marker_text(const pl_set *s, char *buf, size_t len) {
  snprintf(buf, len, "constraints %llu inputs %u seed %llu\n", (unsigned long long)s->constraints,
           s->inputs, (unsigned long long)s->seed);
}

static bool marker_matches(const pl_set *s, const char *path) {
  char want[256], have[256] = "";
  marker_text(s, want, sizeof want);
  FILE *f = fopen(path, "r");
  if (f == NULL) return false;
  size_t n = fread(have, 1, sizeof have - 1, f);
  fclose(f);
  have[n] = 0;
  struct stat st;
  return !strcmp(want, have) && stat(s->params, &st) == 0 && stat(s->vk, &st) == 0;
}

/* s's files: made here (fb: the fixed-base products, NULL for the CPU), found from an
 * earlier run, or given. */
static int write_params(const pl_opts *o, pl_set *s, const sp_circuit *c, const sp_fixed_base *fb) {
  char made[4200], err[1024] = "";
  snprintf(made, sizeof made, "%s/%s.made", o->dir, s->name);
  double t0 = pl_now();
  if (!s->given && marker_matches(s, made)) {
    s->reused = true;
    pl_note("%s: %s of an earlier run (%s matches)", s->name, s->params, made);
  } else if (!s->given) {
    unlink(made); /* a run cut short leaves no marker next to a partial file */
    int st =
        sp_circuit_write_params_fb(c, s->seed, o->threads, fb, s->params, s->vk, err, sizeof err);
    if (st != SEALPROV_OK) {
      pl_note("%s: setup: %s", s->name, err);
      return 1;
    }
    FILE *f = fopen(made, "w");
    char text[256];
    marker_text(s, text, sizeof text);
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
      pl_note("%s: cannot write %s: %s", s->name, made, strerror(errno));
      return 1;
    }
  }
  s->make_s += pl_now() - t0;
  struct stat st;
  if (stat(s->params, &st) != 0) {
    pl_note("%s: %s: %s", s->name, s->params, strerror(errno));
    return 1;
  }
  s->params_bytes = (uint64_t)st.st_size;
  pl_note("%s: %s, %.3f GB, %s in %.1f s", s->name, s->params, s->params_bytes / 1e9,
          s->given    ? "given"
          : s->reused ? "found"
                      : "made",
          s->make_s);
  return 0;
}

typedef struct witness_job {
  const sp_circuit *c;
  pl_set *s;
  int rc;
} witness_job;

static void *witness_thread(void *arg) {
  witness_job *j = arg;
  char err[512] = "";
  double t0 = pl_now();
  j->rc = sp_circuit_witness(j->c, j->s->seed ^ UINT64_C(0x9E3779B97F4A7C15), &j->s->w, err,
                             sizeof err);
  j->s->witness_s = pl_now() - t0;
  if (j->rc != SEALPROV_OK) pl_note("%s: witness: %s", j->s->name, err);
  return NULL;
}

/* s's witness in the form the entry points take (blst Fr, Montgomery) and its
 * Assignment (c2_kit_witness.c). */
static int to_montgomery(const pl_opts *o, pl_set *s) {
  char err[512] = "";
  if (c2_kit_witness(s->w, o->threads, &s->asg, err, sizeof err)) return 0;
  pl_note("%s: %s", s->name, err);
  return 1;
}

static int load_vk(pl_set *s) {
  char err[1024] = "";
  if (sp_srs_load(s->vk, true, true, 1, &s->vkey, err, sizeof err) != SEALPROV_OK) {
    pl_note("%s: verifying key: %s", s->name, err);
    return 1;
  }
  if (s->vkey->vk.ic_len != s->asg.inp_assignment_size) {
    pl_note(
        "%s: %s has %zu inputs, the witness %zu: not the circuit of this run (another K, "
        "seed or input count?)",
        s->name, s->vk, s->vkey->vk.ic_len, (size_t)s->asg.inp_assignment_size);
    return 1;
  }
  return 0;
}

static int generate(pl_set *s, sp_circuit **c) {
  char err[512] = "";
  double t0 = pl_now();
  if (sp_circuit_generate(s->constraints, s->inputs, SP_SHAPE_SEALING, s->seed, c, err,
                          sizeof err) != SEALPROV_OK) {
    pl_note("%s: circuit: %s", s->name, err);
    return 1;
  }
  sp_circuit_info_get(*c, &s->info);
  s->make_s = pl_now() - t0;
  pl_note("%s: circuit of %llu constraints (2^%u), %llu inputs, %llu aux in %.1f s", s->name,
          (unsigned long long)s->info.abc_size, s->info.log_domain,
          (unsigned long long)s->info.inp_size, (unsigned long long)s->info.aux_size, s->make_s);
  return 0;
}

/* Both sets' files, on the GPU o->setup_gpu when there is one (made on this thread,
 * which the GPU setup binds), then the PoSt witness. */
static int write_both(const pl_opts *o, pl_set *porep, pl_set *post, const sp_circuit *cp,
                      const sp_circuit *cq) {
  const sp_fixed_base *fb = NULL;
#ifdef HAVE_CUDA
  sp_cuda_setup *gs = NULL;
  sp_fixed_base gfb;
  if (o->setup_gpu >= 0) {
    char err[512] = "";
    if (sp_cuda_setup_create(o->setup_gpu, &gs, err, sizeof err) != SEALPROV_OK) {
      pl_note("GPU setup on CUDA ordinal %d: %s", o->setup_gpu, err);
      return 1;
    }
    gfb = sp_cuda_setup_fixed_base(gs);
    fb = &gfb;
  }
#endif
  int rc = write_params(o, porep, cp, fb);
  if (rc == 0) rc = write_params(o, post, cq, fb);
#ifdef HAVE_CUDA
  sp_cuda_setup_destroy(gs);
#endif
  if (rc == 0) {
    witness_job wj = {cq, post, 0};
    witness_thread(&wj);
    rc = wj.rc != SEALPROV_OK;
  }
  return rc;
}

int pl_sets_make(const pl_opts *o, pl_set *porep, pl_set *post) {
  sp_circuit *cp = NULL, *cq = NULL;
  if (generate(porep, &cp) || generate(post, &cq)) {
    sp_circuit_free(cp);
    return 1;
  }
  /* The PoRep witness (single-threaded, 88 s at 2^27) while the files are written. */
  witness_job wj = {cp, porep, 0};
  pthread_t wt;
  bool threaded = pthread_create(&wt, NULL, witness_thread, &wj) == 0;
  if (!threaded) witness_thread(&wj);
  int rc = write_both(o, porep, post, cp, cq);
  if (threaded) pthread_join(wt, NULL);
  if (wj.rc != SEALPROV_OK) rc = 1;
  sp_circuit_free(cp);
  sp_circuit_free(cq);
  if (rc) return 1;
  pl_note("porep: witness in %.1f s; post: witness in %.1f s", porep->witness_s, post->witness_s);
  double t0 = pl_now();
  if (to_montgomery(o, porep) || to_montgomery(o, post)) return 1;
  pl_note("witnesses in Montgomery form in %.1f s", pl_now() - t0);
  return load_vk(porep) || load_vk(post);
}

int pl_set_load(pl_set *s) {
  double t0 = pl_now();
  c2_error e = create_SRS(&s->srs, s->params, true);
  s->create_srs_s = pl_now() - t0;
  if (e.code != 0) {
    pl_note("create_SRS(%s): %d: %s", s->params, e.code, e.message ? e.message : "");
    free(e.message);
    return 1;
  }
  pl_note("%s: create_SRS in %.2f s", s->name, s->create_srs_s);
  return 0;
}

void pl_set_free(pl_set *s) {
  drop_SRS(&s->srs);
  s->srs.ptr = NULL;
  sp_witness_free(s->w);
  s->w = NULL;
  sp_srs_release(s->vkey);
  s->vkey = NULL;
}

static bool verify_one(const pl_set *s, const fr_t *inputs, const uint8_t proof[192]) {
  bool valid = false;
  char err[256] = "";
  int st = sp_groth16_verify_inputs(&s->vkey->vk, inputs, s->asg.inp_assignment_size - 1, proof,
                                    &valid, err, sizeof err);
  if (st != SEALPROV_OK) pl_note("%s: verify: %s", s->name, err);
  return st == SEALPROV_OK && valid;
}

size_t pl_verify(const pl_set *s, const uint8_t *proofs, size_t n) {
  /* the inputs after ONE, Montgomery: what the entry points were given */
  const fr_t *inputs = (const fr_t *)(s->asg.inp_assignment_data + 1);
  size_t ok = 0;
  for (size_t i = 0; i < n; i++) ok += verify_one(s, inputs, proofs + 192 * i);
  return ok;
}

bool pl_verify_rejects_wrong_input(const pl_set *s, const uint8_t proof[192]) {
  size_t n = s->asg.inp_assignment_size - 1;
  fr_t *in = malloc(n * sizeof *in);
  if (in == NULL || n == 0) {
    free(in);
    return false;
  }
  memcpy(in, s->asg.inp_assignment_data + 1, n * sizeof *in);
  fr_add(&in[0], &in[0], &FR_ONE);
  bool accepted = verify_one(s, in, proof);
  free(in);
  return !accepted;
}
