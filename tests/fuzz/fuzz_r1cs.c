/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_r1cs.c -- libFuzzer harness for the circom .r1cs reader (sp_cs_load, plugin/formats/r1cs.c,
 * through the iden3 container reader sp_iden3_read).
 *
 * Properties beyond "no crash, no sanitizer report, no allocation the file cannot back":
 *  - the status is one cs.h documents for a readable file: OK, UNSUPPORTED, PARAMS
 *    (NO_MEMORY allowed, see fuzz_params.c; IO cannot happen on a memfd nobody changes);
 *  - a message is NUL-terminated valid UTF-8, non-empty and naming the file on failure,
 *    and a failure returns no constraint system;
 *  - an accepted system's nWires is backed by the file (a wire-to-label section of 8 bytes
 *    a wire: without it 12 bytes could claim 2^32 wires and a 1 GiB bitmap allocation);
 *  - an accepted system is what the file says, checked against a second, independent
 *    walk of the input here: the header's counts (inp_size = 1 + nPubOut + nPubIn,
 *    aux_size = nWires - inp_size, abc_size = nConstraints + inp_size), the CSR offsets
 *    (monotone, one range per A / B / C of each row, nnz[] the term counts), every
 *    term's wire (< nWires) and coefficient (the file's canonical value, coefficient 0
 *    being ONE);
 *  - the density bitmaps are exactly the ones the matrices give (a_aux: aux wires with a
 *    non-zero coefficient in A; b_inp / b_aux: inputs / aux wires with one in B), with no
 *    bit past the vector's length, and the popcounts match. */
#include "fuzz_common.h"
#include "iden3_walk.h"

#include "formats/cs.h"
#include "sealprov.h"

static char err[2048];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

static uint64_t words(uint64_t bits) { return bits / 64 + 1; } /* cs.c: one spare word */

/* bm (the loader's) equals want (from the matrices; no bit past len), popcount too. */
static void check_bitmap(const char *name, const uint64_t *bm, const uint64_t *want, uint64_t len,
                         uint64_t popcount) {
  uint64_t pc = 0;
  for (uint64_t i = 0; i < words(len); i++) {
    FUZZ_CHECK(bm[i] == want[i], "%s word %llu is %016llx, the matrices give %016llx (%llu bits)",
               name, (unsigned long long)i, (unsigned long long)bm[i], (unsigned long long)want[i],
               (unsigned long long)len);
    pc += (uint64_t)__builtin_popcountll(want[i]);
  }
  FUZZ_CHECK(pc == popcount, "%s popcount %llu, %llu bits set", name, (unsigned long long)popcount,
             (unsigned long long)pc);
}

static void set_bit(uint64_t *bm, uint64_t i) { bm[i / 64] |= UINT64_C(1) << (i % 64); }

static void check_system(const sp_cs *cs, const uint8_t *data, size_t size) {
  uint64_t hl = 0, cl = 0;
  const uint8_t *h = find_section(data, size, 1, &hl);
  const uint8_t *c = find_section(data, size, 2, &cl);
  FUZZ_CHECK(h && hl == 64 && c, "accepted without a 64-byte header and a constraints section");
  uint64_t nwires = rd32(h + 36);
  /* Every count that sizes memory is backed by the file: nWires by the wire-to-label
   * section (8 bytes a wire), so a small file cannot claim 2^32 wires. */
  uint64_t ll = 0;
  FUZZ_CHECK(find_section(data, size, 3, &ll) && ll == 8 * nwires,
             "accepted nWires %llu without a wire-to-label section of 8 bytes a wire (%llu)",
             (unsigned long long)nwires, (unsigned long long)ll);
  FUZZ_CHECK(cs->n_pub_out == rd32(h + 40) && cs->n_pub_in == rd32(h + 44) &&
                 cs->n_prv_in == rd32(h + 48) && cs->n_rows == rd32(h + 60),
             "header counts differ from the file's");
  FUZZ_CHECK(cs->inp_size == 1 + (uint64_t)cs->n_pub_out + cs->n_pub_in &&
                 cs->inp_size + cs->aux_size == nwires && cs->abc_size == cs->n_rows + cs->inp_size,
             "sizes: inp %llu aux %llu abc %llu for nWires %llu, %llu rows",
             (unsigned long long)cs->inp_size, (unsigned long long)cs->aux_size,
             (unsigned long long)cs->abc_size, (unsigned long long)nwires,
             (unsigned long long)cs->n_rows);
  FUZZ_CHECK(cs->ncoeffs >= 1 && cs->coeffs && fr_eq(&cs->coeffs[0], &FR_ONE),
             "coefficient 0 is not ONE (%u coefficients)", (unsigned)cs->ncoeffs);
  FUZZ_CHECK(cs->off && cs->off[0] == 0, "CSR offsets do not start at 0");
  uint64_t *a_aux = calloc(words(cs->aux_size), 8), *b_inp = calloc(words(cs->inp_size), 8),
           *b_aux = calloc(words(cs->aux_size), 8);
  FUZZ_CHECK(a_aux && b_inp && b_aux, "out of memory");
  uint64_t pos = 0, k = 0, nnz[3] = {0, 0, 0};
  for (uint64_t i = 0; i < cs->n_rows; i++) {
    for (int q = 0; q < 3; q++) {
      FUZZ_CHECK(cs->off[3 * i + q] == k, "row %llu matrix %d starts at term %llu, expected %llu",
                 (unsigned long long)i, q, (unsigned long long)cs->off[3 * i + q],
                 (unsigned long long)k);
      FUZZ_CHECK(cl - pos >= 4, "accepted, but row %llu runs past the section",
                 (unsigned long long)i);
      uint32_t nt = rd32(c + pos);
      pos += 4;
      FUZZ_CHECK((cl - pos) / 36 >= nt, "accepted, but row %llu's terms run past the section",
                 (unsigned long long)i);
      for (uint32_t j = 0; j < nt; j++, k++, pos += 36) {
        uint32_t w = rd32(c + pos);
        FUZZ_CHECK(w < nwires && cs->var[k] == w, "term %llu: wire %u in the file, %u loaded",
                   (unsigned long long)k, w, cs->var[k]);
        FUZZ_CHECK(cs->cix[k] < cs->ncoeffs, "term %llu: coefficient index %u of %u",
                   (unsigned long long)k, cs->cix[k], (unsigned)cs->ncoeffs);
        uint64_t got[4];
        fr_to_canonical(got, &cs->coeffs[cs->cix[k]]);
        for (int l = 0; l < 4; l++)
          FUZZ_CHECK(got[l] == rd64(c + pos + 4 + 8 * l),
                     "term %llu: coefficient differs from the file's (limb %d)",
                     (unsigned long long)k, l);
        bool nonzero = (got[0] | got[1] | got[2] | got[3]) != 0;
        if (nonzero && q == 0 && w >= cs->inp_size) set_bit(a_aux, w - cs->inp_size);
        if (nonzero && q == 1) {
          if (w < cs->inp_size)
            set_bit(b_inp, w);
          else
            set_bit(b_aux, w - cs->inp_size);
        }
        nnz[q]++;
      }
    }
  }
  FUZZ_CHECK(pos == cl, "accepted with %llu bytes of the constraints section unread",
             (unsigned long long)(cl - pos));
  FUZZ_CHECK(cs->off[3 * cs->n_rows] == k, "CSR ends at %llu, %llu terms",
             (unsigned long long)cs->off[3 * cs->n_rows], (unsigned long long)k);
  FUZZ_CHECK(cs->nnz[0] == nnz[0] && cs->nnz[1] == nnz[1] && cs->nnz[2] == nnz[2],
             "nnz %llu/%llu/%llu, the file has %llu/%llu/%llu", (unsigned long long)cs->nnz[0],
             (unsigned long long)cs->nnz[1], (unsigned long long)cs->nnz[2],
             (unsigned long long)nnz[0], (unsigned long long)nnz[1], (unsigned long long)nnz[2]);
  check_bitmap("a_aux", cs->a_aux, a_aux, cs->aux_size, cs->a_aux_popcount);
  check_bitmap("b_inp", cs->b_inp, b_inp, cs->inp_size, cs->b_inp_popcount);
  check_bitmap("b_aux", cs->b_aux, b_aux, cs->aux_size, cs->b_aux_popcount);
  FUZZ_CHECK(cs->host_bytes > 0, "host_bytes 0");
  free(a_aux);
  free(b_inp);
  free(b_aux);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_as_file(data, size);
  sp_cs *cs = NULL;
  memset(err, 0x55, sizeof err);
  err[0] = '\0'; /* success leaves err as it is */
  int st = sp_cs_load(path, &cs, err, sizeof err);
  fuzz_check_message(err, sizeof err);
  FUZZ_CHECK(st == SEALPROV_OK || st == SEALPROV_ERR_PARAMS || st == SEALPROV_ERR_UNSUPPORTED ||
                 st == SEALPROV_ERR_NO_MEMORY,
             "status %d: %s", st, err);
  if (st != SEALPROV_OK) {
    FUZZ_CHECK(cs == NULL, "status %d with a constraint system", st);
    FUZZ_CHECK(strstr(err, path) != NULL, "message does not name the file: %s", err);
    return 0;
  }
  FUZZ_CHECK(cs != NULL, "OK without a constraint system");
  FUZZ_CHECK(cs->path && strcmp(cs->path, path) == 0, "path %s", cs->path ? cs->path : "(null)");
  check_system(cs, data, size);
  sp_cs_release(cs);
  return 0;
}
