/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* iden3.c -- iden3's binary container (iden3.h): the file header, the section table,
 * and the field a header names.
 *
 * Format (all integers little-endian):
 *   file: magic (4 bytes: "r1cs" / "wtns" / "zkey"), version u32, nSections u32, then
 *         nSections x { type u32, size u64, size bytes of content }, in any order.
 *   Field elements are canonical (not Montgomery), little-endian.
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "formats/iden3.h"

const uint8_t sp_cs_bls12_381_r_le[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

/* BN254's r (circom's default curve), little-endian: named in the refusal. */
static const uint8_t bn254_r_le[32] = {
    0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9, 0x79, 0x48, 0xe8, 0x33, 0x28,
    0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};

/* ---- the iden3 container ----------------------------------------------------------- */

int sp_iden3_read(sp_file *f, const char magic[4], const char *kind, int bad, uint32_t *version,
                  sp_iden3_section *sec, unsigned nsec_known, const char *const *names, char *err,
                  size_t errlen) {
  uint8_t h[12];
  if (f->size < 12) {
    sp_set_err(err, errlen, "%s: %" PRIu64 " bytes is too short for a %s file (12-byte header)",
               f->esc, f->size, kind);
    return bad;
  }
  SP_TRY(sp_file_read(f, h, 12, 0, "file header", err, errlen));
  if (memcmp(h, magic, 4) != 0) {
    sp_set_err(err, errlen, "%s: not a %s file: magic is %02x %02x %02x %02x, expected \"%.4s\"",
               f->esc, kind, h[0], h[1], h[2], h[3], magic);
    return bad;
  }
  *version = sp_le32(h + 4);
  uint32_t n = sp_le32(h + 8);
  uint64_t off = 12;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t s[12];
    if (f->size - off < 12) {
      sp_set_err(err, errlen,
                 "%s: section %" PRIu32 " of %" PRIu32
                 ": its 12-byte header at byte offset %" PRIu64
                 " runs past the end of the file (%" PRIu64 " bytes): truncated?",
                 f->esc, i, n, off, f->size);
      return bad;
    }
    SP_TRY(sp_file_read(f, s, 12, off, "section header", err, errlen));
    uint32_t type = sp_le32(s);
    uint64_t size = sp_le64(s + 4);
    off += 12;
    bool known = type >= 1 && type <= nsec_known;
    const char *name = names && known ? names[type] : names ? "unknown" : NULL;
    if (size > f->size - off) {
      sp_set_err(err, errlen,
                 "%s: section %" PRIu32 " (type %" PRIu32 "%s%s) claims %" PRIu64
                 " bytes at byte offset %" PRIu64 ", but the file has only %" PRIu64
                 " bytes (%" PRIu64 " follow): truncated?",
                 f->esc, i, type, name ? ", " : "", name ? name : "", size, off, f->size,
                 f->size - off);
      return bad;
    }
    if (known) {
      if (sec[type].present) {
        sp_set_err(err, errlen,
                   "%s: section type %" PRIu32 " appears twice (%s%sbyte offsets %" PRIu64
                   " and %" PRIu64 ")",
                   f->esc, type, name ? name : "", name ? "; " : "", sec[type].off - 12, off - 12);
        return bad;
      }
      sec[type] = (sp_iden3_section){.off = off, .size = size, .present = true};
    }
    off += size;
  }
  if (off != f->size) {
    sp_set_err(err, errlen,
               "%s: %" PRIu64 " bytes follow the last of its %" PRIu32
               " sections (byte offset %" PRIu64 ")",
               f->esc, f->size - off, n, off);
    return bad;
  }
  return SEALPROV_OK;
}

int sp_iden3_check_prime(sp_file *f, const sp_iden3_section *hdr, uint32_t *n8_out, char *err,
                         size_t errlen, int bad) {
  uint8_t b[4];
  if (hdr->size < 4) {
    sp_set_err(err, errlen,
               "%s: header section (%" PRIu64 " bytes) is too short for the field size", f->esc,
               hdr->size);
    return bad;
  }
  SP_TRY(sp_file_read(f, b, 4, hdr->off, "field size", err, errlen));
  uint32_t n8 = sp_le32(b);
  *n8_out = n8;
  if (n8 != 32) {
    sp_set_err(err, errlen,
               "%s: field elements of %" PRIu32
               " bytes: sealprov proves over BLS12-381, whose "
               "scalars are 32 bytes (compile the circuit with circom --prime bls12381)",
               f->esc, n8);
    return n8 == 0 || n8 > 64 || hdr->size < 4 + (uint64_t)n8 ? bad : SEALPROV_ERR_UNSUPPORTED;
  }
  if (hdr->size < 36) {
    sp_set_err(err, errlen, "%s: header section (%" PRIu64 " bytes) is too short for its prime",
               f->esc, hdr->size);
    return bad;
  }
  uint8_t p[32];
  SP_TRY(sp_file_read(f, p, 32, hdr->off + 4, "prime", err, errlen));
  if (memcmp(p, sp_cs_bls12_381_r_le, 32) != 0) {
    char hex[67] = "0x";
    for (int i = 0; i < 32; i++) snprintf(hex + 2 + 2 * i, 3, "%02x", p[31 - i]);
    bool bn = memcmp(p, bn254_r_le, 32) == 0;
    sp_set_err(err, errlen,
               "%s: the field prime is %s%s; sealprov proves over BLS12-381 only (r = "
               "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001): compile the "
               "circuit with circom --prime bls12381",
               f->esc, hex, bn ? " (BN254 / alt_bn128, circom's default)" : "");
    return SEALPROV_ERR_UNSUPPORTED;
  }
  return SEALPROV_OK;
}

int sp_iden3_check_circom(sp_file *f, const sp_iden3_section *sec, const char *body,
                          uint64_t hdr_size, char *err, size_t errlen, int bad) {
  if (!sec[1].present || !sec[2].present) {
    sp_set_err(err, errlen, "%s: no %s section (type %d)", f->esc, sec[1].present ? body : "header",
               sec[1].present ? 2 : 1);
    return bad;
  }
  uint32_t n8 = 0;
  SP_TRY(sp_iden3_check_prime(f, &sec[1], &n8, err, errlen, bad));
  if (sec[1].size != hdr_size) {
    sp_set_err(err, errlen,
               "%s: header section is %" PRIu64 " bytes (byte offset %" PRIu64
               "); with 32-byte field elements it must be %" PRIu64,
               f->esc, sec[1].size, sec[1].off, hdr_size);
    return bad;
  }
  return SEALPROV_OK;
}

bool sp_iden3_below_r(const uint8_t v[32]) {
  for (int i = 31; i >= 0; i--) {
    if (v[i] != sp_cs_bls12_381_r_le[i]) return v[i] < sp_cs_bls12_381_r_le[i];
  }
  return false;
}
