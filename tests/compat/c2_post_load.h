/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_post_load.h -- what c2_post_load's files share (c2_post_load.c: options, phases,
 * JSON; c2_post_inputs.c: the parameter sets and witnesses; c2_post_stream.c: the
 * callers of the split API). */
#ifndef C2_POST_LOAD_H
#define C2_POST_LOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "circuit.h"     /* the kit: synthetic circuits, witnesses, INSECURE setup */
#include "formats/srs.h" /* the verifying keys the proofs are checked with */
#include "sealprov_c2.h" /* libsealprov_c2, as Curio's cuzk calls it */

/* One parameter set (a PoRep-shaped or a WinningPoSt-shaped partition circuit) and the
 * one witness every proof of it uses (fresh r and s each time). */
typedef struct pl_set {
  const char *name;     /* "porep", "post" */
  uint64_t constraints; /* the kit's count: the input constraints included */
  uint32_t inputs;      /* public inputs without ONE */
  uint64_t seed;
  char params[4096], vk[4096];
  bool given;  /* --porep-params: a file made elsewhere, not made or replaced here */
  bool reused; /* made by an earlier run (its .made marker matched) */
  sp_circuit_info info;
  sp_witness *w; /* scalars in Montgomery form once pl_set_ready has run */
  c2_assignment asg;
  c2_SRS srs;
  sp_srs *vkey;
  uint64_t params_bytes;
  double make_s, witness_s, create_srs_s;
} pl_set;

typedef struct pl_opts {
  const char *dir;
  unsigned porep_log; /* 0: porep_constraints given */
  uint64_t porep_constraints, post_constraints;
  uint32_t porep_inputs, post_inputs;
  const char *porep_params, *porep_vk; /* made elsewhere (dev/fullsize.sh KEEP=1) */
  bool cuzk;                           /* --mode cuzk (else jobs) */
  unsigned workers;    /* cuzk: GPU workers sharing one mutex; jobs: stream threads */
  unsigned partitions; /* jobs: circuits per PoRep call */
  unsigned before;     /* stream partitions done before the first PoSt under load */
  unsigned posts;      /* PoSts on the idle GPU, and again under load */
  unsigned gap_ms;     /* between one PoSt's proof and the next one's submit */
  int gpu_index;       /* what every call passes (cuzk: the worker's GPU ordinal) */
  int setup_gpu;       /* -1: the CPU makes the parameters; else this CUDA ordinal */
  unsigned threads;
  uint64_t seed;
} pl_opts;

/* One call of the split API: the times, in seconds since the program started, at
 * which it was handed over (to the host's queue, or straight to start), start was
 * called, start returned, finalize returned. */
typedef struct pl_call {
  double submit, start_call, start_ret, fin_ret;
  uint64_t stream_done_at_submit; /* stream partitions proved when it was submitted */
  unsigned stream_busy_at_submit; /* stream calls under way then */
  uint64_t stream_done_at_proof;
  bool done, ok;
  uint8_t proof[192];
} pl_call;

/* The PoRep stream and the callers that serve it (c2_post_stream.c). */
typedef struct pl_stream {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  const pl_opts *o;
  pl_set *porep, *post;
  unsigned per_call; /* PoRep circuits a call proves */
  void *gpu_mtx;     /* cuzk: one per GPU, shared by its workers */
  /* the host's queue (cuzk's GPU work queue): a PoSt goes first */
  bool feeding;          /* stream calls are handed out */
  uint64_t left;         /* stream calls still to hand out (UINT64_MAX: until stopped) */
  pl_call *post_waiting; /* a PoSt for the next free worker */
  bool quit;
  /* what the stream did */
  uint64_t parts_done;
  unsigned busy;
  double last_done;
  uint8_t *proofs; /* every stream proof, 192 bytes each, for the checks at the end */
  size_t nproofs, cap;
  double *call_s; /* each stream call's start to finalize, seconds */
  size_t ncalls, call_cap;
  unsigned failures;
  pthread_t *threads;
} pl_stream;

double pl_now(void); /* seconds since the program started */
void pl_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* c2_post_inputs.c */
/* Makes (or finds) s's parameter files under dir, its witness, converts the witness to
 * Montgomery form and loads its verifying key; porep and post together, the PoRep
 * witness on a thread of its own while the parameters are written. 0 or 1. */
int pl_sets_make(const pl_opts *o, pl_set *porep, pl_set *post);
/* create_SRS of s's file, timed. 0 or 1. */
int pl_set_load(pl_set *s);
void pl_set_free(pl_set *s);
/* Checks n proofs of s (192 bytes each) against its verifying key and the witness's
 * inputs; returns how many verify. */
size_t pl_verify(const pl_set *s, const uint8_t *proofs, size_t n);
/* true when a proof of s made with its first input changed is refused: the check above
 * is not vacuous. */
bool pl_verify_rejects_wrong_input(const pl_set *s, const uint8_t proof[192]);

/* c2_post_stream.c */
int pl_stream_init(pl_stream *st, const pl_opts *o, pl_set *porep, pl_set *post);
void pl_stream_destroy(pl_stream *st);
/* Starts the stream: calls (stream_calls of them, or until pl_stream_stop when 0). */
void pl_stream_feed(pl_stream *st, uint64_t stream_calls);
/* Stops handing out stream calls and waits for the calls under way. */
void pl_stream_stop(pl_stream *st);
/* Waits until the stream has proved at least n partitions (or has stopped). */
void pl_stream_wait_parts(pl_stream *st, uint64_t n);
/* One PoSt, as the mode submits it (cuzk: through the host's queue to the next free
 * worker; jobs: start called at once on this thread); returns when its proof is there. */
void pl_post(pl_stream *st, pl_call *c);

#endif
