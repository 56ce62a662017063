/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_child.h -- what c2_child.c (the child) and c2_child_make.c (its inputs: the
 * parameter file and the witness) share. */
#ifndef C2_CHILD_H
#define C2_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sealprov_c2.h"

/* The circuit a child proves: sp_circuit_generate's sizes (constraints: the total,
 * bellperson's one per input included; inputs: without ONE) and seed, sealing-shaped. */
typedef struct child_circuit {
  uint64_t constraints;
  uint32_t inputs;
  uint64_t seed;
} child_circuit;

/* One witness in the form the 6-argument generate_groth16_proofs_c takes (blst
 * Montgomery scalars), in the kit's memory or a read-only mapping of a witness file. */
typedef struct child_witness {
  c2_assignment asg;
  void *mem;      /* what to free or unmap */
  size_t len;     /* the mapping's length; 0: mem is the kit's sp_witness */
  double make_s;  /* making it: circuit, witness, conversion (0 for a file) */
  uint64_t bytes; /* the scalars and bitmaps */
} child_witness;

/* Makes the witness of c with witness seed wseed in memory: generates the circuit,
 * computes a satisfying assignment and converts it to Montgomery form on threads
 * threads. false with err set. */
bool child_witness_make(const child_circuit *c, uint64_t wseed, unsigned threads, child_witness *w,
                        char *err, size_t errlen);
/* Writes w to path (a witness file: the header, then the arrays as they lie in memory)
 * through a temporary name and a rename. */
bool child_witness_write(const child_witness *w, const char *path, char *err, size_t errlen);
/* Maps the witness file path read-only, its pages populated (so that the proving call
 * finds it in memory, as Curio's child finds its synthesized circuits); the sizes are
 * checked against the file's length. */
bool child_witness_map(const char *path, child_witness *w, char *err, size_t errlen);
void child_witness_free(child_witness *w);

/* The parameters and verifying key of c: the INSECURE setup of the kit, its points on
 * CUDA device gpu (-1: on the CPU). */
bool child_setup(const child_circuit *c, int gpu, unsigned threads, const char *params,
                 const char *vk, char *err, size_t errlen);

/* "NAME CONSTRAINTS INPUTS PARTITIONS LOG_DOMAIN" for a proof type of bench/shapes.c
 * (its constraints plus one per input, its inputs without ONE) or for N:K:P. */
bool child_shape_line(const char *spec, char *out, size_t outlen, char *err, size_t errlen);

#endif
