/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* capacity.c -- the shapes a partition's memory is asked for, and what the scheduler
 * and devices() ask of an engine's capacity answer (engine.h). The answers themselves
 * are the engines' own (engine_cpu.c, cuda/backend/capacity.c). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "engine/engine.h"
#include "formats/srs.h"

/* A loaded set's shape is its lengths' (below), less the streaming a set loaded onto
 * the devices only cannot do. */
void sp_shape_of_srs(const sp_srs *srs, sp_partition_shape *out) {
  const sp_srs_lengths lens = {.ic_len = srs->vk.ic_len,
                               .h_len = srs->h_len,
                               .l_len = srs->l_len,
                               .a_len = srs->a_len,
                               .b_g1_len = srs->b_g1_len,
                               .b_g2_len = srs->b_g2_len,
                               .log_domain = srs->log_domain};
  sp_shape_of_lengths(&lens, out);
  out->stream_ok = !srs->device_only;
}

void sp_shape_of_lengths(const sp_srs_lengths *lens, sp_partition_shape *out) {
  memset(out, 0, sizeof *out);
  out->log_domain = lens->log_domain;
  out->h_len = lens->h_len;
  out->l_len = lens->l_len;
  out->a_len = lens->a_len;
  out->b_g1_len = lens->b_g1_len;
  out->b_g2_len = lens->b_g2_len;
  out->inp_size = lens->ic_len;
  out->aux_size = lens->l_len; /* one L point per aux variable */
  out->stream_ok = true;       /* a direct load onto the GPUs happens only where it fits */
}

/* Smaller or larger domains keep the proportions of engine.h's SP_SEALING_*; the inputs
 * stay as they are. */
void sp_shape_sealing(unsigned log_domain, sp_partition_shape *out) {
  memset(out, 0, sizeof *out);
  uint64_t aux = log_domain >= SP_SEALING_LOG ? SP_SEALING_AUX << (log_domain - SP_SEALING_LOG)
                                              : SP_SEALING_AUX >> (SP_SEALING_LOG - log_domain);
  if (aux == 0) aux = 1;
  out->log_domain = log_domain;
  out->h_len = (UINT64_C(1) << log_domain) - 1;
  out->inp_size = SP_SEALING_INPUTS;
  out->aux_size = out->l_len = aux;
  out->a_len = SP_SEALING_INPUTS + aux / 1000 * SP_SEALING_A_PERMILLE +
               aux % 1000 * SP_SEALING_A_PERMILLE / 1000;
  /* ONE is the one input in B */
  out->b_g1_len = out->b_g2_len =
      1 + aux / 1000 * SP_SEALING_B_PERMILLE + aux % 1000 * SP_SEALING_B_PERMILLE / 1000;
  out->stream_ok = true;
}

uint64_t sp_capacity_need(const sp_capacity *c, const sp_partition_shape *shape) {
  return shape->stream_ok && c->streamed ? c->streamed : c->resident;
}

bool sp_capacity_fits(const sp_engine_ops *ops, void *dev, const sp_partition_shape *shape,
                      sp_capacity *c) {
  sp_capacity own;
  if (c == NULL) c = &own;
  memset(c, 0, sizeof *c);
  c->available = SP_CAPACITY_UNBOUNDED;
  if (ops == NULL || ops->capacity == NULL) return true;
  ops->capacity(dev, shape, c);
  return c->available == SP_CAPACITY_UNBOUNDED || sp_capacity_need(c, shape) <= c->available;
}

int sp_capacity_largest(const sp_engine_ops *ops, void *dev, sp_capacity_way way) {
  int best = 0;
  for (unsigned k = 1; k <= SP_CAPACITY_MAX_LOG; k++) {
    sp_partition_shape sh;
    sp_shape_sealing(k, &sh);
    sp_capacity c;
    (void)sp_capacity_fits(ops, dev, &sh, &c);
    if (c.available == SP_CAPACITY_UNBOUNDED) return -1;
    const uint64_t need = way == SP_CAPACITY_STREAMED ? sp_capacity_need(&c, &sh)
                          : way == SP_CAPACITY_TABLES ? c.tables
                                                      : c.resident;
    /* needs only grow with k; a table the cost model finds no gain in is skipped */
    if (way == SP_CAPACITY_TABLES && need == 0) continue;
    if (need > c.available) break;
    best = (int)k;
  }
  return best;
}
