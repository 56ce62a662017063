/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_post_stream.c -- c2_post_load's callers of libsealprov_c2's split API
 * (generate_groth16_proofs_start_c with gpu_mtx and gpu_index, then
 * finalize_groth16_proof_c), in one of two ways:
 *
 *   cuzk  as Curio's cuzk drives a GPU (extern/cuzk/cuzk-core/src/engine.rs): W GPU
 *         workers (its gpu_workers_per_device, 2 by default) share the GPU's mutex from
 *         create_gpu_mutex and pass its ordinal as gpu_index; each takes the next item of
 *         the host's own queue, one PoRep partition per call (its partition pipeline),
 *         and a WinningPoSt goes to the head of that queue (cuzk pushes a monolithic job
 *         with the lowest key), so the next worker that frees up takes it. The c2 API has
 *         no priority argument: the host orders its calls, the library sees at most W.
 *   jobs  a host without a queue of its own: W threads each call start with a whole PoRep
 *         job of N partitions, no mutex; a PoSt is started at once by its own thread, and
 *         so waits in the module's queue behind the partitions submitted before it. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "bls12_381/bls12_381.h"
#include "c2_post_load.h"

/* A blinding factor from 64 random bytes, in the form the entry points take. */
static void draw_fr(c2_fr *out) {
  uint8_t b[64];
  size_t got = 0;
  while (got < sizeof b) {
    ssize_t n = getrandom(b + got, sizeof b - got, 0);
    if (n > 0) got += (size_t)n;
  }
  fr_t f;
  fr_from_bytes_wide(&f, b);
  memcpy(out->l, f.l, sizeof out->l);
}

/* One call: start (n circuits of s, fresh r and s), finalize; the times into c and the
 * compressed proofs into out (192 x n bytes). false with the library's message printed
 * when a call fails. */
static bool prove(pl_set *s, size_t n, void *mtx, int gpu_index, pl_call *c, uint8_t *out) {
  c2_assignment *asg = malloc(n * sizeof *asg);
  c2_fr *rs = malloc(2 * n * sizeof *rs);
  c2_groth16_proof *pr = malloc(n * sizeof *pr);
  bool ok = asg != NULL && rs != NULL && pr != NULL;
  for (size_t i = 0; ok && i < n; i++) {
    asg[i] = s->asg; /* one witness, fresh blinding: every proof differs and verifies */
    draw_fr(&rs[i]);
    draw_fr(&rs[n + i]);
  }
  void *pending = NULL;
  c2_error e = {0, NULL};
  c->start_call = pl_now();
  if (ok)
    e = generate_groth16_proofs_start_c(asg, n, rs, rs + n, &s->srs, mtx, gpu_index, &pending);
  c->start_ret = pl_now();
  if (ok && e.code == 0) e = finalize_groth16_proof_c(pending, pr);
  c->fin_ret = pl_now();
  if (ok && e.code == 0) e = sealprov_c2_proof_compress(out, pr, n);
  if (!ok || e.code != 0) {
    pl_note("%s: %zu circuit(s): %s", s->name, n, ok ? e.message : "no memory");
    ok = false;
  }
  free(e.message);
  free(asg);
  free(rs);
  free(pr);
  return ok;
}

/* A stream call's proofs and time, under st->mu. */
static void stream_record(pl_stream *st, const pl_call *c, const uint8_t *proofs, bool ok) {
  if (!ok) {
    st->failures++;
    return;
  }
  if (st->nproofs + st->per_call > st->cap) {
    size_t cap = st->cap ? 2 * st->cap : 64;
    uint8_t *p = realloc(st->proofs, cap * 192);
    if (p == NULL) {
      st->failures++;
      return;
    }
    st->proofs = p;
    st->cap = cap;
  }
  if (st->ncalls == st->call_cap) {
    size_t cap = st->call_cap ? 2 * st->call_cap : 64;
    double *t = realloc(st->call_s, cap * sizeof *t);
    if (t == NULL) {
      st->failures++;
      return;
    }
    st->call_s = t;
    st->call_cap = cap;
  }
  memcpy(st->proofs + 192 * st->nproofs, proofs, 192 * st->per_call);
  st->nproofs += st->per_call;
  st->call_s[st->ncalls++] = c->fin_ret - c->start_call;
  st->parts_done += st->per_call;
  st->last_done = c->fin_ret;
}

/* The worker's next item: a waiting PoSt first (cuzk's queue), else a stream call.
 * NULL and *stream false: quit. Under st->mu. */
static pl_call *next_item(pl_stream *st, bool *stream) {
  *stream = false;
  for (;;) {
    if (st->quit) return NULL;
    if (st->post_waiting != NULL) {
      pl_call *c = st->post_waiting;
      st->post_waiting = NULL;
      return c;
    }
    if (st->feeding && st->left > 0) {
      if (st->left != UINT64_MAX) st->left--;
      st->busy++;
      *stream = true;
      return NULL;
    }
    pthread_cond_wait(&st->cv, &st->mu);
  }
}

static void *worker(void *arg) {
  pl_stream *st = arg;
  int gi = st->o->gpu_index;
  uint8_t *out = malloc(192 * (size_t)st->per_call);
  if (out == NULL) return NULL;
  pthread_mutex_lock(&st->mu);
  for (;;) {
    bool stream;
    pl_call *post = next_item(st, &stream);
    if (post == NULL && !stream) break;
    pthread_mutex_unlock(&st->mu);
    if (post != NULL) {
      post->ok = prove(st->post, 1, st->gpu_mtx, gi, post, post->proof);
    } else {
      pl_call c;
      memset(&c, 0, sizeof c);
      bool ok = prove(st->porep, st->per_call, st->gpu_mtx, gi, &c, out);
      pthread_mutex_lock(&st->mu);
      stream_record(st, &c, out, ok);
      st->busy--;
      pthread_mutex_unlock(&st->mu);
    }
    pthread_mutex_lock(&st->mu);
    if (post != NULL) {
      post->stream_done_at_proof = st->parts_done;
      post->done = true;
    }
    pthread_cond_broadcast(&st->cv);
  }
  pthread_mutex_unlock(&st->mu);
  free(out);
  return NULL;
}

int pl_stream_init(pl_stream *st, const pl_opts *o, pl_set *porep, pl_set *post) {
  memset(st, 0, sizeof *st);
  pthread_mutex_init(&st->mu, NULL);
  pthread_cond_init(&st->cv, NULL);
  st->o = o;
  st->porep = porep;
  st->post = post;
  st->per_call = o->cuzk ? 1 : o->partitions;
  if (o->cuzk && (st->gpu_mtx = create_gpu_mutex()) == NULL) {
    pl_note("create_gpu_mutex: NULL");
    return 1;
  }
  st->threads = calloc(o->workers, sizeof *st->threads);
  if (st->threads == NULL) return 1;
  for (unsigned i = 0; i < o->workers; i++)
    if (pthread_create(&st->threads[i], NULL, worker, st) != 0) {
      pl_note("cannot start worker %u", i);
      return 1;
    }
  return 0;
}

void pl_stream_destroy(pl_stream *st) {
  pthread_mutex_lock(&st->mu);
  st->quit = true;
  pthread_cond_broadcast(&st->cv);
  pthread_mutex_unlock(&st->mu);
  for (unsigned i = 0; st->threads != NULL && i < st->o->workers; i++)
    if (st->threads[i]) pthread_join(st->threads[i], NULL);
  free(st->threads);
  destroy_gpu_mutex(st->gpu_mtx);
  free(st->proofs);
  free(st->call_s);
  pthread_cond_destroy(&st->cv);
  pthread_mutex_destroy(&st->mu);
}

void pl_stream_feed(pl_stream *st, uint64_t stream_calls) {
  pthread_mutex_lock(&st->mu);
  st->feeding = true;
  st->left = stream_calls ? stream_calls : UINT64_MAX;
  pthread_cond_broadcast(&st->cv);
  pthread_mutex_unlock(&st->mu);
}

void pl_stream_stop(pl_stream *st) {
  pthread_mutex_lock(&st->mu);
  st->left = 0;
  while (st->busy > 0) pthread_cond_wait(&st->cv, &st->mu);
  st->feeding = false;
  pthread_mutex_unlock(&st->mu);
}

void pl_stream_wait_parts(pl_stream *st, uint64_t n) {
  pthread_mutex_lock(&st->mu);
  while (st->parts_done < n && (st->left > 0 || st->busy > 0) && st->failures == 0)
    pthread_cond_wait(&st->cv, &st->mu);
  pthread_mutex_unlock(&st->mu);
}

void pl_post(pl_stream *st, pl_call *c) {
  pthread_mutex_lock(&st->mu);
  c->submit = pl_now();
  c->stream_done_at_submit = st->parts_done;
  c->stream_busy_at_submit = st->busy;
  c->done = false;
  if (st->o->cuzk) {
    st->post_waiting = c;
    pthread_cond_broadcast(&st->cv);
    while (!c->done) pthread_cond_wait(&st->cv, &st->mu);
    pthread_mutex_unlock(&st->mu);
    return;
  }
  pthread_mutex_unlock(&st->mu);
  c->ok = prove(st->post, 1, NULL, st->o->gpu_index, c, c->proof);
  pthread_mutex_lock(&st->mu);
  c->stream_done_at_proof = st->parts_done;
  c->done = true;
  pthread_mutex_unlock(&st->mu);
}
