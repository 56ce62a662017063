/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* wtns.c -- circom .wtns (witness) files (wtns.h): read and written.
 *
 * Format (iden3's container, iden3.h; all integers little-endian):
 *   .wtns 1 header:      n8 u32, prime (n8 bytes), nWitness u32
 *         2 values:      nWitness x n8 bytes
 *   Field elements are canonical (not Montgomery), little-endian.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/iden3.h"
#include "wtns.h"
#include "base/util.h"

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- .wtns --------------------------------------------------------------------------- */

void sp_wtns_free(sp_wtns *w) {
  if (!w) return;
  if (w->values) explicit_bzero(w->values, w->n * 32);
  free(w->values);
  free(w);
}

int sp_wtns_load(const char *path, sp_wtns **out, char *err, size_t errlen) {
  if (out) *out = NULL;
  if (!path || !out) {
    sp_set_err(err, errlen, "wtns load: NULL %s", path ? "out" : "path");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  sp_file f;
  SP_TRY(sp_file_open(&f, path, err, errlen));
  const int bad = SEALPROV_ERR_ASSIGNMENT;
  sp_iden3_section sec[3] = {{0}};
  uint32_t version = 0;
  sp_wtns *w = NULL;
  int st;
  SP_TRY_GOTO(sp_iden3_read(&f, "wtns", "circom .wtns", bad, &version, sec, 2, NULL, err, errlen),
              st, fail);
  if (version != 1 && version != 2) {
    st = bad;
    sp_set_err(err, errlen, "%s: .wtns version %" PRIu32 " (this reader knows versions 1 and 2)",
               f.esc, version);
    goto fail;
  }
  /* header: n8, the prime, nWitness */
  SP_TRY_GOTO(sp_iden3_check_circom(&f, sec, "witness values", 40, err, errlen, bad), st, fail);
  uint8_t nb[4];
  SP_TRY_GOTO(sp_file_read(&f, nb, 4, sec[1].off + 36, "nWitness", err, errlen), st, fail);
  uint64_t n = sp_le32(nb);
  if (sec[2].size != 32 * n) {
    st = bad;
    sp_set_err(err, errlen,
               "%s: witness section is %" PRIu64 " bytes (byte offset %" PRIu64
               "), but the header "
               "says nWitness %" PRIu64 " (%" PRIu64 " bytes)",
               f.esc, sec[2].size, sec[2].off, n, 32 * n);
    goto fail;
  }
  w = calloc(1, sizeof *w);
  if (w) w->values = malloc(n ? 32 * n : 32);
  if (!w || !w->values) {
    st = SEALPROV_ERR_NO_MEMORY;
    sp_set_err(err, errlen, "%s: out of memory for %" PRIu64 " witness values", f.esc, n);
    goto fail;
  }
  w->n = n;
  SP_TRY_GOTO(
      sp_file_read(&f, w->values, (size_t)(32 * n), sec[2].off, "witness values", err, errlen), st,
      fail);
  SP_TRY_GOTO(sp_file_check_unchanged(&f, err, errlen), st, fail);
  for (uint64_t i = 0; i < n; i++) {
    if (!sp_iden3_below_r(w->values + 32 * i)) {
      st = bad;
      sp_set_err(err, errlen,
                 "%s: witness value %" PRIu64 " (byte offset %" PRIu64
                 ") is not below BLS12-381's r",
                 f.esc, i, sec[2].off + 32 * i);
      goto fail;
    }
  }
  sp_file_close(&f);
  *out = w;
  return SEALPROV_OK;
fail:
  sp_file_close(&f);
  sp_wtns_free(w);
  return st;
}

int sp_wtns_write(const char *path, const uint8_t *values, uint64_t n, char *err, size_t errlen) {
  char esc[SP_ESC_MAX];
  /* the header holds n in 32 bits: refused before anything is written */
  if (n > UINT32_MAX) {
    sp_set_err(err, errlen, "%s: more than 2^32 - 1 witness values (%" PRIu64 ")",
               sp_utf8_escape(path, esc, sizeof esc), n);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    sp_set_err(err, errlen, "%s: cannot create: %s", sp_utf8_escape(path, esc, sizeof esc),
               strerror(errno));
    return SEALPROV_ERR_IO;
  }
  struct stat sb; /* only a regular file is removed after a failed write, never /dev/full */
  bool regular = fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode);
  uint8_t h[12 + 12 + 40 + 12];
  memcpy(h, "wtns", 4);
  put32(h + 4, 2);
  put32(h + 8, 2);
  put32(h + 12, 1);
  put64(h + 16, 40);
  put32(h + 24, 32);
  memcpy(h + 28, sp_cs_bls12_381_r_le, 32);
  put32(h + 60, (uint32_t)n);
  put32(h + 64, 2);
  put64(h + 68, 32 * n);
  bool ok = fwrite(h, sizeof h, 1, fp) == 1 && (n == 0 || fwrite(values, 32, n, fp) == n);
  int werr = ok ? 0 : errno;
  if (fclose(fp) != 0 && ok) {
    ok = false;
    werr = errno;
  }
  if (!ok) {
    if (regular) (void)unlink(path); /* no cut-short .wtns left behind for a later reader */
    sp_set_err(err, errlen, "%s: write failed: %s", sp_utf8_escape(path, esc, sizeof esc),
               werr ? strerror(werr) : "short write");
    return SEALPROV_ERR_IO;
  }
  return SEALPROV_OK;
}
