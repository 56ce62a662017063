/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* iden3.h -- iden3's binary container, which circom's .r1cs and .wtns and snarkjs's .zkey
 * share (iden3.c), and the field their headers name. */
#ifndef SEALPROV_FORMATS_IDEN3_H
#define SEALPROV_FORMATS_IDEN3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A section's content in the file. */
typedef struct sp_iden3_section {
  uint64_t off, size;
  bool present;
} sp_iden3_section;

struct sp_file;
/* Reads the header ("magic", version, section count) and the section table of f:
 * sec[1..nsec_known] get the first section of each type (a repeated one is refused);
 * sections must tile the file exactly. names (may be NULL) name types 1..nsec_known in
 * the messages; kind names the format ("circom .r1cs"). bad: the status for a malformed
 * file. The caller checks *version. */
int sp_iden3_read(struct sp_file *f, const char magic[4], const char *kind, int bad,
                  uint32_t *version, sp_iden3_section *sec, unsigned nsec_known,
                  const char *const *names, char *err, size_t errlen);

/* The field of a header section hdr: n8 (into *n8_out) must be 32 and the prime
 * BLS12-381's r. Statuses: OK, bad (malformed), UNSUPPORTED (another field: the
 * message names its prime, and the curve when known), IO. */
int sp_iden3_check_prime(struct sp_file *f, const sp_iden3_section *hdr, uint32_t *n8_out,
                         char *err, size_t errlen, int bad);
/* What circom's two files (.r1cs, .wtns) share after sp_iden3_read: a header (section 1)
 * and section 2 (body names it in the refusal), a field that sp_iden3_check_prime takes,
 * and a header of hdr_size bytes. Statuses as sp_iden3_check_prime's. */
int sp_iden3_check_circom(struct sp_file *f, const sp_iden3_section *sec, const char *body,
                          uint64_t hdr_size, char *err, size_t errlen, int bad);
/* Whether the canonical little-endian value v is below BLS12-381's r. */
bool sp_iden3_below_r(const uint8_t v[32]);

/* BLS12-381's r, little-endian, as circom writes a prime. */
extern const uint8_t sp_cs_bls12_381_r_le[32];

#ifdef __cplusplus
}
#endif
#endif
