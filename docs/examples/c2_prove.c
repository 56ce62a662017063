/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_prove.c -- prove one partition through libsealprov_c2, the supraseal-c2 entry
 * points, as a C host does: read a .spa partition file (docs/formats.md), convert its
 * canonical scalars into the blst Montgomery form the entry points take, draw r and s,
 * prove, and write the proof as 192 compressed bytes (a sealprov proof file).
 *
 *   c2_prove CIRCUIT.params PARTITION.spa PROOF_OUT
 *
 * The library opens the module and the INI of $SEALPROV_PLUGIN and $SEALPROV_CONFIG
 * (else the installed ones). Exit status: 0 proof written, 1 failure, 2 usage. */
#include <sealprov_c2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* The .spa header: magic, version, scalar encoding, then eleven u64 (docs/formats.md). */
#define SPA_HEADER 96

static uint64_t le64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* Prints e's message and frees it; returns 1 if e is an error. */
static int failed(c2_error e, const char *what) {
  if (e.code == 0) return 0;
  fprintf(stderr, "%s: error %d: %s\n", what, (int)e.code, e.message ? e.message : "");
  free(e.message);
  return 1;
}

/* A blinding factor: 32 random bytes, drawn again until the value is below r. */
static int draw_fr(c2_fr *out) {
  for (int tries = 0; tries < 64; tries++) {
    unsigned char b[32];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) return 1;
    b[31] &= 0x7f; /* r < 2^255: keep the draws that can be below it */
    c2_error e = sealprov_c2_fr_from_canonical(out, b, 1);
    free(e.message);
    if (e.code == 0) return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s CIRCUIT.params PARTITION.spa PROOF_OUT\n", argv[0]);
    return 2;
  }
  /* The whole .spa file, whose arrays are then used where they lie. (Its checksum is
   * not checked here; `sealprov inspect --check FILE` does.) */
  FILE *f = fopen(argv[2], "rb");
  if (f == NULL) {
    perror(argv[2]);
    return 1;
  }
  long len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  unsigned char *spa = len >= SPA_HEADER ? malloc((size_t)len) : NULL;
  rewind(f);
  /* magic, then version 1 and scalar encoding 0 (canonical): two u32 that read as 1 */
  if (spa == NULL || fread(spa, 1, (size_t)len, f) != (size_t)len ||
      memcmp(spa, "SEALSPA1", 8) != 0 || le64(spa + 8) != 1) {
    fprintf(stderr, "%s: not a .spa file of version 1\n", argv[2]);
    return 1;
  }
  fclose(f);
  /* sizes below 2^40, so that nothing below overflows; then they must add up */
  uint64_t abc = le64(spa + 16), inp = le64(spa + 24), aux = le64(spa + 32);
  uint64_t words_inp = (inp + 63) / 64, words_aux = (aux + 63) / 64;
  uint64_t n = 3 * abc + inp + aux; /* a, b, c, inputs and aux: 32 bytes each */
  if ((abc | inp | aux) >> 40 != 0 ||
      (uint64_t)len != SPA_HEADER + 32 * n + 8 * (2 * words_aux + words_inp) + 8) {
    fprintf(stderr, "%s: the sizes in the header do not add up to the file's length\n", argv[2]);
    return 1;
  }
  /* a, b, c, inputs and aux follow the header: convert them in place, one array. */
  c2_fr *scalars = (c2_fr *)(spa + SPA_HEADER);
  if (failed(sealprov_c2_fr_from_canonical(scalars, scalars, n), argv[2])) return 1;
  const uint64_t *bits = (const uint64_t *)(scalars + n); /* a_aux, b_inp, b_aux */
  c2_assignment asg = {
      .a_aux_density = bits,
      .a_aux_bit_len = aux,
      .a_aux_popcount = le64(spa + 48),
      .b_inp_density = bits + words_aux,
      .b_inp_bit_len = inp,
      .b_inp_popcount = le64(spa + 64),
      .b_aux_density = bits + words_aux + words_inp,
      .b_aux_bit_len = aux,
      .b_aux_popcount = le64(spa + 80),
      .a = scalars,
      .b = scalars + abc,
      .c = scalars + 2 * abc,
      .abc_size = abc,
      .inp_assignment_data = scalars + 3 * abc,
      .inp_assignment_size = inp,
      .aux_assignment_data = scalars + 3 * abc + inp,
      .aux_assignment_size = aux,
  };

  c2_fr r, s;
  if (draw_fr(&r) != 0 || draw_fr(&s) != 0) {
    fprintf(stderr, "getrandom failed\n");
    return 1;
  }
  c2_SRS srs = {NULL};
  if (failed(create_SRS(&srs, argv[1], false), argv[1])) return 1;
  c2_groth16_proof proof;
  int bad = failed(generate_groth16_proofs_c(&asg, 1, &r, &s, &proof, &srs), "prove");
  drop_SRS(&srs);
  free(spa);
  if (bad) return 1;

  unsigned char out[192];
  if (failed(sealprov_c2_proof_compress(out, &proof, 1), "proof")) return 1;
  f = fopen(argv[3], "wb");
  if (f == NULL || fwrite(out, 1, sizeof out, f) != sizeof out || fclose(f) != 0) {
    perror(argv[3]);
    return 1;
  }
  printf("proof of %s written to %s\n", argv[2], argv[3]);
  return 0;
}
