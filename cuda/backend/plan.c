/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* plan.c -- how a partition uses a device's memory (engine_internal.h, "the plan"):
 * chosen before any allocation from the bytes the device has for it (memory_limit, or
 * the card's free memory, less what stays resident), so that a card of 16 GB proves a
 * 2^27 partition without an out-of-memory retry.
 *
 * The choices, from the one that needs the most memory (and is fastest) down:
 *  - the H polynomial's three vectors at once, with a buffer where a*b collects for the
 *    a*b = c pre-check (a and b are then transformed while the next vector travels);
 *    three without that buffer (all three decoded and checked first); or two at a time
 *    (a and b transformed and multiplied, c then into b's buffer; the pre-check reads c
 *    in chunks beside a and b first, so c crosses PCIe twice);
 *  - when the inputs, aux and bitmaps travel: with a, b, c; during the H MSM; or after it;
 *  - streamed sets: the H MSM's chunks interleaved with those of L, A and B (the H MSM is
 *    compute-bound, the others wait for their points: together the copy engine and the
 *    GPU both stay busy), or one vector after the other; the points' ring of device
 *    buffers (slots) and their size;
 *  - MSM scratch: each MSM sizes its sort batches to what is left (sp_msm_args), the plan
 *    only makes sure that one or two windows a batch fit.
 * Every buffer of an execute is counted (pipeline.c allocates exactly these); the tests
 * run partitions under the budgets of each candidate and compare the proof bytes. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "backend/engine_internal.h" /* first: sp_gpu.h before <math.h> */
#include "msm/msm.h"
#include "prep/prep.h"

enum { REST_START = 0, REST_MSM = 1, REST_TAIL = 2 };

/* The candidates in order of preference. chunk_shift: points per slot are the base
 * chunk (2^24 at 2^27, an eighth of the domain below) >> shift; wb: windows per sort
 * batch the plan reserves for an MSM (more if there is room: msm.cu). */
static const struct cand {
  uint8_t slots, check, rest_at, inter, ring, chunk_shift, wb, res_chunked;
} cands[] = {
    {3, 1, REST_START, 1, 3, 0, 2, 0}, /* everything at once (resident: as before plans) */
    {3, 1, REST_MSM, 1, 3, 0, 2, 0},   {3, 0, REST_MSM, 1, 3, 0, 2, 0},
    {3, 0, REST_MSM, 1, 2, 0, 2, 0},   {3, 1, REST_START, 0, 2, 0, 2, 0},
    {3, 0, REST_MSM, 0, 2, 0, 2, 0},   {2, 0, REST_MSM, 1, 2, 0, 2, 0},
    {2, 0, REST_MSM, 0, 2, 0, 2, 1},   {2, 0, REST_TAIL, 0, 2, 0, 2, 1},
    {2, 0, REST_TAIL, 0, 2, 2, 1, 1},  {2, 0, REST_TAIL, 0, 2, 4, 1, 1},
};
#define NCANDS (sizeof cands / sizeof cands[0])

unsigned cuda_plan_tiers(void) { return (unsigned)NCANDS; }

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static size_t minsz(size_t a, size_t b) { return a < b ? a : b; }
static size_t round64(size_t n) { return n < 64 ? 64 : n - n % 64; }

/* G2 points of a piece that takes as many bytes as g1 G1 points (whole bitmap words:
 * at least 64, so below 128 G1 points it is the larger) */
static size_t g2_points(size_t g1) {
  return round64(g1 * sizeof(g1_affine_t) / sizeof(g2_affine_t));
}

size_t cuda_plan_item_points(const cuda_plan *p, bool resident, int vec) {
  size_t c = !resident ? p->chunk : vec == V_H ? 0 : p->res_chunk;
  return c && vec == V_B2 ? g2_points(c) : c;
}

/* A slot takes a chunk of G1 points or a piece of G2 points: below 128 G1 points a
 * chunk the G2 piece, a whole bitmap word, is the larger (64 G1 points: 6 KiB, 64 G2
 * points: 12 KiB), and a slot sized for G1 alone would be overrun by it. */
uint64_t cuda_plan_slot_bytes(const cuda_plan *p) {
  return max64((uint64_t)p->chunk * sizeof(g1_affine_t),
               (uint64_t)g2_points(p->chunk) * sizeof(g2_affine_t));
}

/* The tail's per-chunk buffers for q points (pipeline.c, tail_chunk): the vector's
 * scalars of the chunk (gathered), the 0/1/rest split (ones bitmap, rest scalars,
 * their indices) with its temporaries, the batch addition's partial sums. */
static uint64_t tail_chunk_bytes(bool g2, size_t q) {
  if (q == 0) return 0;
  return (uint64_t)q * 32 + (q + 63) / 64 * 8 + (uint64_t)q * 36 + sp_gpu_split01_scratch_bytes(q) +
         sp_gpu_batch_add_scratch_bytes(g2, q);
}

/* Bytes of device memory (the context's pool: beyond what it holds when execute
 * starts) that plan p needs at its peak. */
uint64_t cuda_plan_bytes(const cuda_plan_in *in, const cuda_plan *p) {
  const uint64_t m = (uint64_t)1 << in->log_domain, V = m * 32;
  const uint64_t INP = (uint64_t)in->ninp * 32, AUX = (uint64_t)in->naux * 32;
  const uint64_t REST = INP + AUX + in->bm_bytes;
  const uint64_t IDX =
      (uint64_t)(in->a_len > in->ninp ? in->a_len - in->ninp : 0) * 4 + (uint64_t)in->b_len * 4;
  const bool str = !in->resident;
  const uint64_t RING = str ? p->ring * cuda_plan_slot_bytes(p) : 0;
  const int sm = in->sm_count;
  /* H: the vectors, then the MSM (over chunks when streamed) */
  uint64_t p1 = p->h_slots == 3 ? 3 * V + (p->check_buf ? (uint64_t)in->nabc * 32 : 0)
                                : 2 * V + 2 * (uint64_t)p->check_rows * 32;
  if (p->rest_at == REST_START) p1 += REST;
  const size_t hq = str ? minsz(p->chunk, in->h_len) : in->h_len;
  const uint64_t msm_h = sp_gpu_msm_scratch_bytes(false, hq, p->wb, sm, 0);
  /* the tail: per chunk (streamed, or resident vectors taken in chunks) or per vector */
  const size_t longest = in->l_len > in->a_len ? in->l_len : in->a_len;
  size_t q1 = longest > in->b_len ? longest : in->b_len, q2 = in->b_len;
  if (str || p->res_chunk) {
    q1 = minsz(cuda_plan_item_points(p, !str, V_L), q1);
    q2 = minsz(cuda_plan_item_points(p, !str, V_B2), q2);
  }
  const uint64_t tail =
      max64(tail_chunk_bytes(false, q1) + sp_gpu_msm_scratch_bytes(false, q1, p->wb, sm, 0),
            tail_chunk_bytes(true, q2) + sp_gpu_msm_scratch_bytes(true, q2, p->wb, sm, 0));
  const uint64_t prep =
      REST + IDX + sp_gpu_split01_scratch_bytes(in->naux > in->ninp ? in->naux : in->ninp);
  uint64_t need;
  if (p->interleave) {
    need = max64(p1, V + prep);
    need = max64(need, V + INP + AUX + IDX + RING + max64(msm_h, tail));
  } else {
    uint64_t p2 = V + RING + msm_h + (p->rest_at != REST_TAIL ? REST : 0);
    need = max64(max64(p1, p2), prep);
    need = max64(need, INP + AUX + IDX + RING + tail);
  }
  return need + cuda_plan_margin(in->log_domain);
}

/* NTT and coset tables (made at a size's first transform: under 20 MiB at 2^27), the
 * single words of decode and checks. */
uint64_t cuda_plan_margin(unsigned log_domain) {
  return (8u << 20) + ((uint64_t)1 << log_domain) / 4;
}

void cuda_plan_tier(const cuda_plan_in *in, unsigned k, cuda_plan *p) {
  const struct cand *c = &cands[k];
  memset(p, 0, sizeof *p);
  p->tier = k;
  p->h_slots = c->slots;
  /* a, b, c made on the device from the system's copy come out together */
  if (in->gpu_cs && p->h_slots < 3) p->h_slots = 3;
  p->check_buf = c->check && !in->no_check_buf && p->h_slots == 3;
  p->rest_at = in->gpu_cs ? REST_START : c->rest_at; /* the witness goes first */
  p->interleave = c->inter && !in->resident;
  p->ring = c->ring;
  p->wb = c->wb;
  size_t base =
      in->chunk ? in->chunk : ((size_t)1 << (in->log_domain > 3 ? in->log_domain - 3 : 0));
  if (!in->chunk && base > SP_STREAM_CHUNK_DEFAULT) base = SP_STREAM_CHUNK_DEFAULT;
  if (in->chunk_cap && base > in->chunk_cap) base = in->chunk_cap;
  p->chunk = round64(base >> c->chunk_shift);
  p->check_rows = minsz(p->chunk, in->nabc ? in->nabc : 1);
  p->res_chunk = in->resident && c->res_chunked ? p->chunk : 0;
  p->need = cuda_plan_bytes(in, p);
}

int cuda_plan_choose(const cuda_plan_in *in, uint64_t budget, cuda_plan *out) {
  unsigned k = in->min_tier < NCANDS ? in->min_tier : (unsigned)NCANDS - 1;
  for (; k < NCANDS; k++) {
    cuda_plan_tier(in, k, out);
    out->budget = budget;
    if (out->need <= budget) return SEALPROV_OK;
  }
  /* none fits: the smallest, whose allocations then say what is missing */
  return SEALPROV_ERR_DEVICE_MEMORY;
}

uint64_t cuda_plan_need(const cuda_plan_in *in, unsigned tier) {
  cuda_plan p;
  cuda_plan_tier(in, tier < NCANDS ? tier : (unsigned)NCANDS - 1, &p);
  return p.need;
}

void cuda_plan_describe(const cuda_plan *p, char *out, size_t len) {
  static const char *rest[] = {"with a, b, c", "during the H MSM", "after the H MSM"};
  snprintf(out, len,
           "tier %u: %u H vectors at a time%s, inputs and aux %s, %s, %zu-point chunks in %u "
           "slots%s; %.2f GB of %.2f GB",
           p->tier, p->h_slots, p->check_buf ? " (+ a*b buffer)" : "", rest[p->rest_at],
           p->interleave ? "H MSM interleaved with L, A, B" : "one vector after another", p->chunk,
           p->ring, p->res_chunk ? ", resident tail in chunks" : "", (double)p->need / 1e9,
           (double)p->budget / 1e9);
}

void cuda_plan_input(const sp_srs *srs, const sealprov_assignment *asg, bool resident, bool gpu_cs,
                     int sm_count, cuda_plan_in *in) {
  memset(in, 0, sizeof *in);
  in->log_domain = srs->log_domain;
  in->nabc = (size_t)asg->abc_size;
  in->ninp = (size_t)asg->inp_size;
  in->naux = (size_t)asg->aux_size;
  in->h_len = srs->h_len;
  in->l_len = srs->l_len;
  in->a_len = srs->a_len;
  in->b_len = srs->b_g1_len;
  in->bm_bytes = bitmap_bytes(asg->a_aux_bit_len) + bitmap_bytes(asg->b_inp_bit_len) +
                 bitmap_bytes(asg->b_aux_bit_len);
  in->resident = resident;
  in->gpu_cs = gpu_cs;
  in->sm_count = sm_count;
}
