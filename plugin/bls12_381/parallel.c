/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bls_parallel_for: fork-join over contiguous index ranges on pthreads.
 *
 * Threads are created per call and joined before returning. The callers (NTT
 * passes, MSM tiles) run for milliseconds to seconds, so a pool would save
 * little and would add state that outlives the call.
 *
 * If a thread cannot be created, the chunks that did not get a thread run on the
 * calling thread after its own chunk, so every chunk still runs exactly once and
 * the result is exact. The return value is then false, to tell the caller that
 * the work ran with less parallelism than asked; the work itself is complete and
 * must not be repeated. */
#include "bls12_381/bls12_381.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct {
  bls_range_fn fn;
  void *ctx;
  size_t begin, end;
  unsigned chunk;
  pthread_t thread;
  bool started;
} chunk_job;

static void *chunk_main(void *arg) {
  chunk_job *job = arg;
  job->fn(job->ctx, job->begin, job->end, job->chunk);
  return NULL;
}

bool bls_parallel_for(size_t n, unsigned nthreads, bls_range_fn fn, void *ctx) {
  if (n == 0) return true;
  size_t k = nthreads == 0 ? 1 : nthreads;
  if (k > n) k = n;
  if (k == 1) {
    fn(ctx, 0, n, 0);
    return true;
  }
  chunk_job *jobs = calloc(k, sizeof *jobs);
  if (jobs == NULL) {
    /* Same contract as a failed pthread_create: all chunks, serially. */
    size_t q = n / k, rem = n % k;
    for (size_t c = 0; c < k; c++) {
      size_t begin = c * q + (c < rem ? c : rem);
      fn(ctx, begin, begin + q + (c < rem), (unsigned)c);
    }
    return false;
  }
  /* Chunk sizes differ by at most one: the first n % k chunks get one more. */
  size_t q = n / k, rem = n % k;
  for (size_t c = 0; c < k; c++) {
    jobs[c].fn = fn;
    jobs[c].ctx = ctx;
    jobs[c].begin = c * q + (c < rem ? c : rem);
    jobs[c].end = jobs[c].begin + q + (c < rem);
    jobs[c].chunk = (unsigned)c;
  }
  bool all_started = true;
  for (size_t c = 1; c < k; c++) {
    if (pthread_create(&jobs[c].thread, NULL, chunk_main, &jobs[c]) != 0) {
      all_started = false;
      break;
    }
    jobs[c].started = true;
  }
  chunk_main(&jobs[0]);
  for (size_t c = 1; c < k; c++)
    if (!jobs[c].started) chunk_main(&jobs[c]);
  for (size_t c = 1; c < k; c++)
    if (jobs[c].started) pthread_join(jobs[c].thread, NULL);
  free(jobs);
  return all_started;
}
