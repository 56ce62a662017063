/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* shapes.c -- the proof types' shapes (shapes.h) and the --shape option's values.
 * Figures from rust-fil-proofs (filecoin-proofs/src/constants.rs, the circuit tests of
 * storage-proofs-update and storage-proofs-post) and Curio's extern/cuzk, each named in
 * docs/formats.md. Where a source states no aux count, the set has as many aux
 * variables as constraints, as the 32 GiB PoRep circuit has (130,169,893 aux for
 * 130,278,869 constraints); the densities are the sealing-shaped set's for every type
 * (A 99.7 %, B 25.4 %, 85 % of aux values bits), measured on PoRep only. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h" /* SP_SEALING_*: the proportions devices() sizes capacity by */
#include "shapes.h"

#define SEALING SP_SEALING_A_PERMILLE, SP_SEALING_B_PERMILLE, SP_SYNTH_BITS_PERCENT

const sp_proof_shape sp_proof_shapes[] = {
    /* constants.rs POREP_PARTITIONS; the circuit's header in cuzk-pce (disk.rs): 328
     * inputs, 130,169,893 aux, 130,278,869 constraints */
    {"porep-32g", "PoRep C2", 32, 10, 130278869, 328, 130169893, 27, false, SEALING},
    /* 64 GiB: the sources give no count; one more tree level per challenge, so the 32
     * GiB circuit stands in (still 2^27) */
    {"porep-64g", "PoRep C2", 64, 10, 130278869, 328, 130169893, 27, true, SEALING},
    /* SnapDeals: storage-proofs-update constants.rs partition_count 16 above 16 MiB;
     * tests/circuit.rs test_empty_sector_update_constraints_32gib 81,049,499; inputs
     * k_and_h_select, comm_r_old, comm_d_new, comm_r_new and ONE */
    {"snap-32g", "SnapDeals (ProveReplicaUpdate)", 32, 16, 81049499, 5, 81049499, 27, false,
     SEALING},
    /* 64 GiB: no count in the sources; the 32 GiB one stands in */
    {"snap-64g", "SnapDeals (ProveReplicaUpdate)", 64, 16, 81049499, 5, 81049499, 27, true,
     SEALING},
    /* constants.rs WINDOW_POST_SECTOR_COUNT 2,349 [2,300] and their comments; inputs:
     * ONE, then per sector comm_r and one per challenge (WINDOW_POST_CHALLENGE_COUNT 10:
     * storage-proofs-post fallback/compound.rs generate_public_inputs) */
    {"window-post-32g", "WindowPoSt", 32, 1, 125279217, 1 + 2349 * 11, 125279217, 27, false,
     SEALING},
    {"window-post-64g", "WindowPoSt", 64, 1, 129887900, 1 + 2300 * 11, 129887900, 27, false,
     SEALING},
    /* WINNING_POST_CHALLENGE_COUNT 66 from one sector at WindowPoSt's constraints per
     * challenge (125,279,217 / 23,490; 129,887,900 / 23,000): the sources state no count */
    {"winning-post-32g", "WinningPoSt", 32, 1, 352000, 1 + 1 + 66, 352000, 19, true, SEALING},
    {"winning-post-64g", "WinningPoSt", 64, 1, 372722, 1 + 1 + 66, 372722, 19, true, SEALING},
    /* constants.rs get_porep_non_interactive_partitions 126; the PoRep partition circuit
     * and parameters */
    {"ni-porep-32g", "NI-PoRep", 32, 126, 130278869, 328, 130169893, 27, false, SEALING},
};
const size_t sp_proof_shapes_count = sizeof sp_proof_shapes / sizeof sp_proof_shapes[0];

const sp_proof_shape *sp_proof_shape_find(const char *name) {
  for (size_t i = 0; i < sp_proof_shapes_count; i++)
    if (!strcmp(sp_proof_shapes[i].name, name)) return &sp_proof_shapes[i];
  return NULL;
}

const char *sp_proof_shape_names(void) {
  static char buf[512];
  if (buf[0]) return buf;
  size_t len = 0;
  for (size_t i = 0; i < sp_proof_shapes_count && len < sizeof buf; i++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "",
                            sp_proof_shapes[i].name);
  return buf;
}

bool sp_proof_shapes_parse(const char *arg, const sp_proof_shape **out, size_t cap, size_t *n,
                           char *err, size_t errlen) {
  *n = 0;
  if (!strcmp(arg, "all")) {
    if (cap < sp_proof_shapes_count) {
      snprintf(err, errlen, "--shape all: room for %zu shapes, not %zu", cap,
               sp_proof_shapes_count);
      return false;
    }
    for (size_t i = 0; i < sp_proof_shapes_count; i++) out[(*n)++] = &sp_proof_shapes[i];
    return true;
  }
  const char *p = arg;
  for (;;) {
    size_t len = strcspn(p, ",");
    char name[64];
    if (len == 0 || len >= sizeof name) {
      snprintf(err, errlen, "--shape \"%.80s\": an empty or overlong name (valid: all, %s)", arg,
               sp_proof_shape_names());
      return false;
    }
    memcpy(name, p, len);
    name[len] = 0;
    const sp_proof_shape *s = sp_proof_shape_find(name);
    if (s == NULL) {
      snprintf(err, errlen, "--shape \"%s\": unknown proof type (valid: all, %s)", name,
               sp_proof_shape_names());
      return false;
    }
    for (size_t i = 0; i < *n; i++)
      if (out[i] == s) {
        snprintf(err, errlen, "--shape \"%s\": named twice", name);
        return false;
      }
    if (*n == cap) {
      snprintf(err, errlen, "--shape \"%.80s\": more than %zu shapes", arg, cap);
      return false;
    }
    out[(*n)++] = s;
    if (p[len] == 0) return true;
    p += len + 1;
  }
}

uint64_t sp_proof_shape_a_aux(const sp_proof_shape *s) { return s->aux * s->a_permille / 1000; }

uint64_t sp_proof_shape_b_aux(const sp_proof_shape *s) { return s->aux * s->b_permille / 1000; }

uint64_t sp_proof_shape_params_bytes(const sp_proof_shape *s) {
  const uint64_t g1 = 96, g2 = 192, len = 4;
  uint64_t m = UINT64_C(1) << s->log_domain;
  uint64_t a = s->inputs + sp_proof_shape_a_aux(s), b = s->inputs + sp_proof_shape_b_aux(s);
  return 864 + 6 * len + g1 * (s->inputs + (m - 1) + s->aux + a + b) + g2 * b;
}

bool sp_proof_shape_check(const sp_proof_shape *s, char *err, size_t errlen) {
  uint64_t rows = s->constraints + s->inputs;
  if (s->log_domain < 2 || s->log_domain > 31) {
    snprintf(err, errlen, "%s: log_domain %u out of range (2..31)", s->name, s->log_domain);
    return false;
  }
  uint64_t m = UINT64_C(1) << s->log_domain;
  if (rows > m || rows <= m / 2) {
    snprintf(err, errlen,
             "%s: %llu constraints + %llu inputs = %llu rows, but 2^%u is not the smallest "
             "domain holding them",
             s->name, (unsigned long long)s->constraints, (unsigned long long)s->inputs,
             (unsigned long long)rows, s->log_domain);
    return false;
  }
  if (s->inputs < 1 || s->aux < 1 || s->partitions < 1 || s->sector_gib == 0) {
    snprintf(err, errlen, "%s: inputs, aux, partitions and sector size must be at least 1",
             s->name);
    return false;
  }
  if (s->a_permille > 1000 || s->b_permille > 1000 || s->bits_percent > 100) {
    snprintf(err, errlen, "%s: densities %u, %u per mille or bits %u %% out of range", s->name,
             s->a_permille, s->b_permille, s->bits_percent);
    return false;
  }
  return true;
}
