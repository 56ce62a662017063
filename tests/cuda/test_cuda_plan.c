/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_cuda_plan.c -- the memory plan's ring arithmetic (cuda/backend/plan.c), which
 * tail.c streams the parameter points through: for every tier of the plan at every
 * domain from 2^4 to 2^28, for a sealing-shaped partition and one whose vectors are all
 * domain-long, with the plan's own chunk size and with chunks asked for (as
 * sp_engine_cuda_set_streaming and an out-of-memory retry's rung set them), with or
 * without the witness-only a, b, c:
 *  - the ring has 1 to SP_RING_MAX slots, each of more than zero bytes, and the plan's
 *    need counts each slot at those bytes;
 *  - the points the tail takes at a time are a positive number of whole bitmap words,
 *    and every piece it uploads into a slot (a whole chunk, the piece after the points
 *    kept on the device, the last partial one) fits the slot, G1 and G2 alike;
 *  - a resident set's vectors go in whole bitmap words too (or in one piece);
 *  - two vectors at a time read c in pre-check chunks of at least one row.
 * Pure arithmetic, no device: runs wherever the CUDA backend builds. Plain program (the
 * GPU machine has no libcheck). */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/sp_gpu.h" /* first: sp_gpu.h before <math.h> */
#include "backend/engine_internal.h"
#include "gpu_check.h"

#define SM_H200 132

static const char *const vec_name[V_COUNT] = {"H", "L", "A", "B G1", "B G2"};

/* A vector of n points of psize bytes, its first `on` on the device, the rest in pieces
 * of per points (tail.c, vec_items): every streamed piece within a slot of sbytes. */
static void pieces_fit(const char *what, int vec, size_t n, size_t on, size_t per, size_t psize,
                       uint64_t sbytes) {
  if (on >= n) return;
  const size_t rest = n - on, full = per ? rest / per : 0, last = per ? rest % per : rest;
  const uint64_t big = (uint64_t)(full ? per : last) * psize;
  CHECK(big <= sbytes && (uint64_t)last * psize <= sbytes,
        "%s: %s: %zu points after %zu on the device, in pieces of %zu (the last %zu): %llu bytes "
        "into a slot of %llu",
        what, vec_name[vec], n, on, per, last, (unsigned long long)big, (unsigned long long)sbytes);
}

static void streamed(const char *what, const cuda_plan_in *in, const sp_partition_shape *sh,
                     const cuda_plan *p) {
  const size_t len[V_COUNT] = {(size_t)sh->h_len, (size_t)sh->l_len, (size_t)sh->a_len,
                               (size_t)sh->b_g1_len, (size_t)sh->b_g2_len};
  const uint64_t sbytes = cuda_plan_slot_bytes(p);
  CHECK(
      p->ring >= 1 && p->ring <= SP_RING_MAX && sbytes > 0 && p->chunk >= 64 && p->chunk % 64 == 0,
      "%s: %u slots of %llu bytes, chunks of %zu points", what, p->ring, (unsigned long long)sbytes,
      p->chunk);
  if (sbytes == 0) return;
  /* so many slots that they are the peak: one more adds exactly one slot's bytes */
  cuda_plan q = *p;
  q.ring = (unsigned)(4 * p->need / sbytes + 1);
  const uint64_t n0 = cuda_plan_bytes(in, &q);
  q.ring++;
  CHECK(cuda_plan_bytes(in, &q) - n0 == sbytes, "%s: a slot counted at %llu bytes, allocated %llu",
        what, (unsigned long long)(cuda_plan_bytes(in, &q) - n0), (unsigned long long)sbytes);
  for (int v = 0; v < V_COUNT; v++) {
    const size_t per = cuda_plan_item_points(p, false, v);
    const size_t psize = v == V_B2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
    CHECK(per >= 64 && per % 64 == 0, "%s: %s streamed in pieces of %zu points", what, vec_name[v],
          per);
    if (per == 0) continue;
    pieces_fit(what, v, len[v], 0, per, psize, sbytes);
    /* a prefix kept on the device (residency.c: whole 64-point words) */
    pieces_fit(what, v, len[v], len[v] / 3 - len[v] / 3 % 64, per, psize, sbytes);
  }
  if (p->h_slots == 2)
    CHECK(p->check_rows >= 1 && p->check_rows <= (in->nabc ? in->nabc : 1),
          "%s: pre-check chunks of %zu rows of %zu", what, p->check_rows, in->nabc);
}

static void resident(const char *what, const cuda_plan *p) {
  CHECK(cuda_plan_item_points(p, true, V_H) == 0, "%s: resident H not in one piece", what);
  for (int v = V_L; v < V_COUNT; v++) {
    const size_t per = cuda_plan_item_points(p, true, v);
    CHECK(per % 64 == 0 && (per == 0) == (p->res_chunk == 0),
          "%s: resident %s in pieces of %zu points (res_chunk %zu)", what, vec_name[v], per,
          p->res_chunk);
  }
}

/* Every tier of one shape under one set of chunk requests. */
static void tiers(const char *shape, const sp_partition_shape *sh, size_t chunk, size_t cap,
                  bool gpu_cs) {
  const unsigned ntiers = cuda_plan_tiers();
  for (int res = 0; res < 2; res++) {
    cuda_plan_in in;
    cuda_plan_input_shape(sh, res != 0, SM_H200, &in);
    in.chunk = chunk;
    in.chunk_cap = cap;
    in.gpu_cs = gpu_cs;
    for (unsigned k = 0; k < ntiers; k++) {
      cuda_plan p;
      cuda_plan_tier(&in, k, &p);
      char what[160];
      snprintf(what, sizeof what, "2^%u %s %s, chunk asked %zu, cap %zu%s, tier %u", sh->log_domain,
               shape, res ? "resident" : "streamed", chunk, cap,
               gpu_cs ? ", a b c on the device" : "", k);
      CHECK(p.tier == k && p.need == cuda_plan_bytes(&in, &p), "%s: tier %u, need %llu", what,
            p.tier, (unsigned long long)p.need);
      if (res)
        resident(what, &p);
      else
        streamed(what, &in, sh, &p);
    }
  }
}

int main(void) {
  for (unsigned logm = 4; logm <= 28; logm++) {
    const size_t m = (size_t)1 << logm;
    sp_partition_shape seal, dense;
    sp_shape_sealing(logm, &seal);
    memset(&dense, 0, sizeof dense);
    dense.log_domain = logm;
    dense.h_len = m - 1;
    dense.inp_size = 1;
    dense.aux_size = m - 1;
    dense.l_len = m - 1;
    dense.a_len = dense.b_g1_len = dense.b_g2_len = m;
    dense.stream_ok = true;
    /* the plan's chunks; chunks asked for (the smallest there is, a G2 piece's word
     * boundary, the engine test's quarter domain plus three words); a retry's rung */
    const size_t asked[] = {0, 64, 128, 192, m / 4 + 192};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
      tiers("sealing", &seal, asked[i], 0, false);
      tiers("dense", &dense, asked[i], 0, i == 0);
    }
    tiers("sealing", &seal, 0, (size_t)1 << 20, false);
  }
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
