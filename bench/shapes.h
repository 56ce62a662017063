/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* shapes.h -- the proof types a Filecoin storage provider's prover is sent, as the
 * sizes of one partition's circuit and of one job: what `sealprov bench gpu --shape`
 * makes synthetic parameters and jobs of. docs/formats.md ("Proof types and their
 * jobs") cites the source of every figure; `estimate` marks those the sources do not
 * state and the table derives (the comment of each entry says how). */
#ifndef SEALPROV_BENCH_SHAPES_H
#define SEALPROV_BENCH_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The synthetic sets' aux values that are 0 or 1, in percent (a sealing-shaped
 * witness's share, measured on PoRep). */
#define SP_SYNTH_BITS_PERCENT 85u

typedef struct sp_proof_shape {
  const char *name;  /* the --shape value: "porep-32g" */
  const char *proof; /* what Curio calls it: "PoRep C2" */
  unsigned sector_gib;
  unsigned partitions;  /* Groth16 partitions of one proof (one job) */
  uint64_t constraints; /* the circuit's own, without bellperson's one per input */
  uint64_t inputs;      /* public inputs, ONE included (ic_len) */
  uint64_t aux;         /* aux (witness) variables */
  unsigned log_domain;  /* the FFT domain: smallest 2^k >= constraints + inputs */
  bool estimate;        /* constraints or aux derived, not stated by the sources */
  /* the synthetic set's proportions: aux variables in A and in B (per mille), aux
   * values that are 0 or 1 (percent); every input is in A and in B */
  unsigned a_permille, b_permille, bits_percent;
} sp_proof_shape;

/* The table, in the order `--shape all` runs it. */
extern const sp_proof_shape sp_proof_shapes[];
extern const size_t sp_proof_shapes_count;

/* The entry named name, NULL when none is. */
const sp_proof_shape *sp_proof_shape_find(const char *name);

/* "porep-32g, porep-64g, ...": every name, for messages and help. */
const char *sp_proof_shape_names(void);

/* --shape NAME[,NAME...] or all: up to cap entries into out (*n of them, in the order
 * given; a name given twice is an error). false with a message in err naming the value
 * and the valid names. */
bool sp_proof_shapes_parse(const char *arg, const sp_proof_shape **out, size_t cap, size_t *n,
                           char *err, size_t errlen);

/* Counts of the synthetic set at this shape: aux variables in A and in B. */
uint64_t sp_proof_shape_a_aux(const sp_proof_shape *s);
uint64_t sp_proof_shape_b_aux(const sp_proof_shape *s);

/* The bytes of a .params file of this shape (docs/formats.md's layout: uncompressed
 * points, a u32 before each vector), with the synthetic set's densities: computed, not
 * a file's size. */
uint64_t sp_proof_shape_params_bytes(const sp_proof_shape *s);

/* Whether an entry is consistent (domain the smallest that holds constraints + inputs,
 * aux and inputs at least one, proportions in range); false with the reason in err. */
bool sp_proof_shape_check(const sp_proof_shape *s, char *err, size_t errlen);

#endif
