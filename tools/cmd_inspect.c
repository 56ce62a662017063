/* cmd_inspect.c -- `sealprov inspect`: what a .spa, .params or .vk file holds (sizes,
 * densities, public inputs), read from the headers and length fields only, so it is
 * instant even on a 47 GB parameter file or a 16 GB partition. --check also runs the
 * module's full readers (checksum, every scalar, every point). The kind of a file is
 * told by its content, not its name (docs/formats.md). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "g16_util.h"
#include "spa.h"
#include "formats/srs.h"

static void inspect_usage(FILE *f)
{
  fprintf(f,
          "usage: sealprov inspect [--json] [--check] [--inputs-hex] FILE...\n"
          "  Prints what each file holds, told by its content: a partition assignment\n"
          "  (.spa: sizes, densities, public inputs), Groth16 parameters (.params: number of\n"
          "  inputs, aux variables, domain, vector lengths) or a verifying key (.vk). Only\n"
          "  the headers and length fields are read, so it is quick on any size.\n"
          "  --check       also read the whole file with the module's reader (checksum,\n"
          "                every scalar < r; every point on its curve and in its subgroup)\n"
          "  --inputs-hex  for one .spa: print only the public inputs without ONE, as\n"
          "                comma-separated 64-digit little-endian hex (the form\n"
          "                docs/examples/minimal_host.c takes)\n"
          "  --json        one JSON object: {\"files\": [...]}\n"
          "  Exit status: 0 every file is well formed, 1 some file is malformed (the\n"
          "  message names the field, value and offset), 2 bad usage or unreadable file.\n");
}

/* Where a file's report goes: stdout, or (--json) a buffer that is printed only when
 * the file is well formed, so a bad file becomes {"file", "error"} and the JSON stays
 * whole. */
static FILE *out;
/* The last error of the file being inspected (for the JSON "error" field). */
static char last_err[1200];

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void ifail(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_err, sizeof last_err, fmt, ap);
  va_end(ap);
  sp_cli_error("%s", last_err);
}

typedef struct file_info {
  const char *path;
  int fd;
  uint64_t size;
} file_info;

/* Reads len bytes at off; false (and a message) when the file is shorter. */
static bool read_at(const file_info *f, uint64_t off, void *buf, size_t len, const char *field)
{
  if (off > f->size || len > f->size - off) {
    ifail("%s: field %s at byte %" PRIu64 " lies past the end of the file (%" PRIu64
                 " bytes)",
                 f->path, field, off, f->size);
    return false;
  }
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(f->fd, (char *)buf + got, len - got, (off_t)(off + got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ifail("%s: cannot read field %s at byte %" PRIu64 ": %s", f->path, field, off + got,
                   n < 0 ? strerror(errno) : "file shrank while being read");
      return false;
    }
    got += (size_t)n;
  }
  return true;
}

static uint64_t le64(const uint8_t *p)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* a * b + c without overflow; false when it does not fit. */
static bool mul_add(uint64_t a, uint64_t b, uint64_t c, uint64_t *res)
{
  if (b != 0 && a > (UINT64_MAX - c) / b)
    return false;
  *res = a * b + c;
  return true;
}

/* A 32-byte little-endian scalar as 0x + big-endian hex, leading zeros dropped. */
static void scalar_hex(const uint8_t *le, char hex[67])
{
  static const char digits[] = "0123456789abcdef";
  char *o = hex;
  *o++ = '0';
  *o++ = 'x';
  bool started = false;
  for (int i = 31; i >= 0; i--) {
    for (int half = 1; half >= 0; half--) {
      unsigned d = half ? le[i] >> 4 : le[i] & 15;
      if (d == 0 && !started && !(i == 0 && half == 0))
        continue;
      started = true;
      *o++ = digits[d];
    }
  }
  *o = 0;
}

static double pct(uint64_t a, uint64_t b)
{
  return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* ---- .spa ------------------------------------------------------------------------- */

static int inspect_spa(const file_info *f, bool json, bool inputs_hex)
{
  uint8_t h[SP_SPA_HEADER_BYTES];
  if (!read_at(f, 0, h, sizeof h, "header"))
    return 1;
  static const char *const names[] = {"abc_size",       "inp_size",       "aux_size",
                                      "a_aux_bit_len",  "a_aux_popcount", "b_inp_bit_len",
                                      "b_inp_popcount", "b_aux_bit_len",  "b_aux_popcount"};
  uint64_t v[9];
  for (int i = 0; i < 9; i++)
    v[i] = le64(h + 16 + 8 * i);
  uint32_t version = le32(h + 8), encoding = le32(h + 12);
  if (version != SP_SPA_VERSION) {
    ifail("%s: version %" PRIu32 " at byte 8; this sealprov reads version %u", f->path,
                 version, SP_SPA_VERSION);
    return 1;
  }
  if (encoding != 0) {
    ifail("%s: scalar encoding %" PRIu32 " at byte 12; version 1 has only 0 (canonical)",
                 f->path, encoding);
    return 1;
  }
  uint64_t abc = v[0], inp = v[1], aux = v[2];
  /* the sizes must add up to the file length (the reader's rule) */
  uint64_t scalars = 0, expect = 0;
  bool fits = mul_add(abc, 3, 0, &scalars) && scalars <= UINT64_MAX - inp &&
              scalars + inp <= UINT64_MAX - aux;
  if (fits) {
    scalars += inp + aux;
    uint64_t words = (v[3] + 63) / 64 + (v[5] + 63) / 64 + (v[7] + 63) / 64;
    fits = v[3] <= UINT64_MAX - 63 && v[5] <= UINT64_MAX - 63 && v[7] <= UINT64_MAX - 63 &&
           mul_add(scalars, 32, SP_SPA_HEADER_BYTES + 8, &expect) &&
           mul_add(words, 8, expect, &expect);
  }
  if (!fits || expect != f->size) {
    ifail("%s: the sizes in the header (abc_size %" PRIu64 ", inp_size %" PRIu64
                 ", aux_size %" PRIu64 ") do not add up to the file length %" PRIu64
                 " bytes%s",
                 f->path, abc, inp, aux, f->size, fits ? "" : " (they overflow)");
    return 1;
  }
  if (inp == 0) {
    ifail("%s: inp_size is 0 at byte 24: a partition has at least the input ONE", f->path);
    return 1;
  }
  uint64_t inp_off = SP_SPA_HEADER_BYTES + 3 * 32 * abc;
  if (inputs_hex) {
    for (uint64_t i = 1; i < inp; i++) {
      uint8_t s[32];
      if (!read_at(f, inp_off + 32 * i, s, 32, "inputs"))
        return 1;
      for (int b = 0; b < 32; b++)
        fprintf(out, "%02x", s[b]);
      if (i + 1 < inp)
        fputc(',', out);
    }
    fputc('\n', out);
    return 0;
  }
  if (json) {
    fprintf(out, "{\"file\": ");
    sp_cli_json_str(out, f->path);
    fprintf(out, ", \"kind\": \"spa\", \"version\": %" PRIu32 ", \"bytes\": %" PRIu64
                 ", \"num_public_inputs\": %" PRIu64,
            version, f->size, inp - 1);
    for (int i = 0; i < 9; i++)
      fprintf(out, ", \"%s\": %" PRIu64, names[i], v[i]);
    fprintf(out, ", \"public_inputs\": [");
  } else {
    fprintf(out, "%s: partition assignment (.spa version %" PRIu32 "), %" PRIu64 " bytes\n", f->path,
           version, f->size);
    fprintf(out, "  constraints   %" PRIu64 " (abc_size, input constraints included)\n", abc);
    fprintf(out, "  inputs        %" PRIu64 " (ONE and %" PRIu64 " public)\n", inp, inp - 1);
    fprintf(out, "  aux           %" PRIu64 "\n", aux);
    fprintf(out, "  a density     %" PRIu64 " of %" PRIu64 " aux (%.1f %%)\n", v[4], v[3], pct(v[4], v[3]));
    fprintf(out, "  b density     %" PRIu64 " of %" PRIu64 " inputs, %" PRIu64 " of %" PRIu64
           " aux (%.1f %%)\n",
           v[6], v[5], v[8], v[7], pct(v[8], v[7]));
    fprintf(out, "  public inputs (input 0 is ONE):\n");
  }
  /* Long input lists are cut in the text form (JSON has them all). */
  const uint64_t shown = json ? inp : (inp > 64 ? 64 : inp);
  for (uint64_t i = 0; i < shown; i++) {
    uint8_t s[32];
    char hex[67];
    if (!read_at(f, inp_off + 32 * i, s, 32, "inputs"))
      return 1;
    scalar_hex(s, hex);
    if (json)
      fprintf(out, "%s\"%s\"", i ? ", " : "", hex);
    else
      fprintf(out, "  %6" PRIu64 "  %s\n", i, hex);
  }
  if (json)
    fprintf(out, "]");
  else if (shown < inp)
    fprintf(out, "  ... %" PRIu64 " more (--json lists them all)\n", inp - shown);
  return 0;
}

/* ---- .params / .vk ---------------------------------------------------------------- */

#define VK_FIXED_BYTES 864u /* alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 */

static int inspect_params(const file_info *f, bool json, bool *is_vk)
{
  static const char *const vec[] = {"ic", "h", "l", "a", "b_g1", "b_g2"};
  static const unsigned point_bytes[] = {96, 96, 96, 96, 96, 192};
  uint64_t len[6] = {0}, off = VK_FIXED_BYTES;
  int nvec = 0;
  for (int i = 0; i < 6; i++) {
    if (i == 1 && off == f->size) /* the verifying key ends after ic */
      break;
    uint8_t b[4];
    char field[32];
    snprintf(field, sizeof field, "%s length", vec[i]);
    if (!read_at(f, off, b, 4, field))
      return 1;
    len[i] = be32(b);
    uint64_t end;
    if (!mul_add(len[i], point_bytes[i], off + 4, &end) || end > f->size) {
      ifail("%s: vector %s: length %" PRIu64 " at byte %" PRIu64 " needs %" PRIu64
                   " bytes of points, but the file has %" PRIu64 " after it (truncated or not a "
                   "parameter file)",
                   f->path, vec[i], len[i], off, len[i] * point_bytes[i], f->size - off - 4);
      return 1;
    }
    off = end;
    nvec = i + 1;
  }
  if (off != f->size) {
    ifail("%s: %" PRIu64 " trailing bytes after vector %s (at byte %" PRIu64 ")", f->path,
                 f->size - off, vec[nvec - 1], off);
    return 1;
  }
  if (len[0] == 0) {
    ifail("%s: ic_len is 0 at byte %u: the key needs a point for ONE", f->path,
                 VK_FIXED_BYTES);
    return 1;
  }
  *is_vk = nvec == 1;
  uint64_t domain = len[1] + 1;
  unsigned log_domain = 0;
  while (log_domain < 63 && (UINT64_C(1) << log_domain) < domain)
    log_domain++;
  bool pow2 = !*is_vk && (UINT64_C(1) << log_domain) == domain;
  if (json) {
    fprintf(out, "{\"file\": ");
    sp_cli_json_str(out, f->path);
    fprintf(out, ", \"kind\": \"%s\", \"bytes\": %" PRIu64 ", \"num_public_inputs\": %" PRIu64,
           *is_vk ? "vk" : "params", f->size, len[0] - 1);
    for (int i = 0; i < nvec; i++)
      fprintf(out, ", \"%s_len\": %" PRIu64, vec[i], len[i]);
    if (!*is_vk)
      fprintf(out, ", \"domain\": %" PRIu64 ", \"log_domain\": %u, \"aux_size\": %" PRIu64, domain,
             log_domain, len[2]);
  } else {
    fprintf(out, "%s: %s, %" PRIu64 " bytes\n", f->path,
           *is_vk ? "Groth16 verifying key (.vk)" : "Groth16 parameters (.params)", f->size);
    fprintf(out, "  inputs        %" PRIu64 " (ONE and %" PRIu64 " public; ic_len)\n", len[0],
           len[0] - 1);
    if (!*is_vk) {
      fprintf(out, "  domain        %" PRIu64 " (2^%u%s; h_len %" PRIu64 ")\n", domain, log_domain,
             pow2 ? "" : ", NOT a power of two", len[1]);
      fprintf(out, "  aux           %" PRIu64 " (l_len)\n", len[2]);
      fprintf(out, "  a             %" PRIu64 " points (inputs and aux in A)\n", len[3]);
      fprintf(out, "  b_g1, b_g2    %" PRIu64 ", %" PRIu64 " points (inputs and aux in B)\n", len[4],
             len[5]);
    }
  }
  if (!*is_vk && !pow2) {
    ifail("%s: vector h: length %" PRIu64 " is not 2^k - 1", f->path, len[1]);
    return 1;
  }
  return 0;
}

/* ---- the command ------------------------------------------------------------------ */

int cmd_inspect(int argc, char **argv)
{
  static const struct option opts[] = {
      {"json", no_argument, NULL, 'j'},       {"check", no_argument, NULL, 'k'},
      {"inputs-hex", no_argument, NULL, 'x'}, {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  bool json = false, check = false, inputs_hex = false;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'j':
      json = true;
      break;
    case 'k':
      check = true;
      break;
    case 'x':
      inputs_hex = true;
      break;
    case 'h':
      inspect_usage(stdout);
      return 0;
    default:
      inspect_usage(stderr);
      return 2;
    }
  }
  int n = argc - optind;
  if (n < 1) {
    sp_cli_error("missing the file(s) to inspect");
    inspect_usage(stderr);
    return 2;
  }
  if (inputs_hex && (n != 1 || json || check)) {
    sp_cli_error("--inputs-hex takes one .spa file and no --json or --check");
    return 2;
  }
  int ret = 0;
  if (json)
    printf("{\"files\": [");
  for (int i = 0; i < n; i++) {
    file_info f = {.path = argv[optind + i], .fd = -1};
    int rc = 0;
    bool is_spa = false, is_vk = false;
    char *buf = NULL;
    size_t buflen = 0;
    last_err[0] = 0;
    out = json ? open_memstream(&buf, &buflen) : stdout;
    if (out == NULL) {
      sp_cli_error("out of memory");
      return 1;
    }
    f.fd = open(f.path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (f.fd < 0 || fstat(f.fd, &st) != 0) {
      ifail("%s: cannot open: %s", f.path, strerror(errno));
      rc = 2;
    } else if (!S_ISREG(st.st_mode)) {
      ifail("%s: not a regular file", f.path);
      rc = 2;
    } else {
      f.size = (uint64_t)st.st_size;
      char magic[8] = {0};
      if (f.size >= 8 && !read_at(&f, 0, magic, 8, "magic"))
        rc = 2;
      else if (f.size >= 8 && memcmp(magic, SP_SPA_MAGIC, 8) == 0) {
        is_spa = true;
        rc = inspect_spa(&f, json, inputs_hex);
      } else if (inputs_hex) {
        ifail("%s: not a partition assignment (no %s magic at byte 0)", f.path, SP_SPA_MAGIC);
        rc = 1;
      } else if (f.size < VK_FIXED_BYTES + 4) {
        ifail("%s: %" PRIu64 " bytes: neither a .spa (magic %s) nor a .params or .vk (at least "
              "%u bytes)",
              f.path, f.size, SP_SPA_MAGIC, VK_FIXED_BYTES + 4);
        rc = 1;
      } else {
        rc = inspect_params(&f, json, &is_vk);
      }
    }
    if (rc == 0 && check) {
      char err[1024] = "";
      int st2;
      sp_cli_note("%s: reading and checking the whole file", f.path);
      if (is_spa) {
        sp_spa *spa = NULL;
        st2 = sp_spa_read(f.path, &spa, err, sizeof err);
        sp_spa_free(spa);
      } else {
        sp_srs *srs = NULL;
        st2 = sp_srs_load(f.path, is_vk, true, g16_ncpus(), &srs, err, sizeof err);
        if (srs)
          sp_srs_release(srs);
      }
      if (st2 != SEALPROV_OK) {
        ifail("%s", err);
        rc = 1;
      } else if (json) {
        fprintf(out, ", \"check\": \"ok\"");
      } else {
        fprintf(out, "  check         ok (whole file read and checked)\n");
      }
    }
    if (json) {
      fclose(out);
      printf("%s", i ? ", " : "");
      if (rc == 0) {
        fwrite(buf, 1, buflen, stdout);
        printf("}");
      } else {
        printf("{\"file\": ");
        sp_cli_json_str(stdout, f.path);
        printf(", \"error\": ");
        sp_cli_json_str(stdout, last_err);
        printf("}");
      }
      free(buf);
    }
    out = NULL;
    if (f.fd >= 0)
      close(f.fd);
    if (rc > ret)
      ret = rc;
  }
  if (json)
    printf("]}\n");
  return ret;
}
