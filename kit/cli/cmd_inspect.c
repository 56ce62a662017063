/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_inspect.c -- `sealprov inspect`: what a file of the project is and what it holds,
 * told by its content, not its name, from its headers and length fields only, so it is
 * instant even on a 47 GB parameter file or a 16 GB partition. --check also reads the
 * whole file with the module's or the kit's own reader for its kind. Every file the
 * project makes or reads is known: .spa, .params, .vk, proof files, circom's .r1cs and
 * .wtns, snarkjs's .zkey and JSON files, parameters.json, the INI file (inspect.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "g16_util.h"
#include "inspect.h"
#include "snarkjs_json.h"
#include "spa.h"
#include "wtns.h"
#include "zkey.h"
#include "formats/cs.h"
#include "formats/srs.h"

static void inspect_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov inspect [--json] [--check] [--inputs-hex] FILE...\n"
          "  Tells what each file is, by its content, and what it holds:\n"
          "    .spa       a partition assignment: sizes, densities, public inputs\n"
          "    .params    Groth16 parameters: inputs, aux variables, domain, vector lengths\n"
          "    .vk        a verifying key: its inputs\n"
          "    proofs     a proof file (192 bytes a partition): the number of proofs\n"
          "    .r1cs      a circom constraint system: field, wires, constraints\n"
          "    .wtns      a circom witness: field, number of values\n"
          "    .zkey      a snarkjs Groth16 proving key: curve, signals, domain\n"
          "    JSON       snarkjs's verification_key.json, proof.json, public.json, and\n"
          "               Filecoin's parameters.json\n"
          "    INI        a sealprov.ini: its devices and provider settings\n"
          "  Only the headers and length fields are read, so it is quick on any size (a\n"
          "  JSON or INI file is read whole).\n"
          "  --check       also read the whole file with the module's or the kit's reader\n"
          "                of its kind (checksums, every scalar < r, every point on its\n"
          "                curve and in its subgroup)\n"
          "  --inputs-hex  for one .spa: print only the public inputs without ONE, as\n"
          "                comma-separated 64-digit little-endian hex (the form\n"
          "                docs/examples/minimal_host.c takes)\n"
          "  --json        one JSON object: {\"files\": [...]}\n"
          "  Exit status: 0 every file is well formed, 1 some file is malformed or none the\n"
          "  project knows (the message names the field, value and offset), 2 bad usage or\n"
          "  unreadable file.\n");
}

/* ---- helpers (inspect.h) ------------------------------------------------------------ */

FILE *insp_out;
static char last_err[1200];

void insp_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_err, sizeof last_err, fmt, ap);
  va_end(ap);
  sp_cli_error("%s", last_err);
}

bool insp_read_at(const insp_file *f, uint64_t off, void *buf, size_t len, const char *field) {
  if (off > f->size || len > f->size - off) {
    insp_fail("%s: field %s at byte %" PRIu64 " lies past the end of the file (%" PRIu64 " bytes)",
              f->path, field, off, f->size);
    return false;
  }
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(f->fd, (char *)buf + got, len - got, (off_t)(off + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      insp_fail("%s: cannot read field %s at byte %" PRIu64 ": %s", f->path, field, off + got,
                n < 0 ? strerror(errno) : "file shrank while being read");
      return false;
    }
    got += (size_t)n;
  }
  return true;
}

uint32_t insp_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

bool insp_mul_add(uint64_t a, uint64_t b, uint64_t c, uint64_t *res) {
  if (b != 0 && a > (UINT64_MAX - c) / b) return false;
  *res = a * b + c;
  return true;
}

void insp_head(const insp_file *f, const char *kind_json, const char *what) {
  if (f->json) {
    fprintf(insp_out, "{\"file\": ");
    sp_cli_json_str(insp_out, f->path);
    fprintf(insp_out, ", \"kind\": \"%s\", \"bytes\": %" PRIu64, kind_json, f->size);
  } else {
    sp_cli_put_utf8(insp_out, f->path);
    fprintf(insp_out, ": %s, %" PRIu64 " bytes\n", what, f->size);
  }
}

void insp_line(const insp_file *f, const char *name, const char *key, const char *value_json,
               const char *fmt, ...) {
  if (f->json) {
    if (key != NULL && value_json != NULL) fprintf(insp_out, ", \"%s\": %s", key, value_json);
    return;
  }
  if (name == NULL) return;
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  fprintf(insp_out, "  %-13s ", name);
  sp_cli_put_utf8(insp_out, text);
  fputc('\n', insp_out);
}

/* ---- --check ------------------------------------------------------------------------ */

/* Every point of every proof decoded (on its curve, in its subgroup). */
static int check_proofs(const insp_file *f) {
  static const char *const names[3] = {"A", "B", "C"};
  static const size_t off[3] = {0, 48, 144}, len[3] = {48, 96, 48};
  uint64_t n = f->size / 192;
  for (uint64_t i = 0; i < n; i++) {
    uint8_t p[192];
    if (!insp_read_at(f, 192 * i, p, sizeof p, "proof")) return 1;
    for (int k = 0; k < 3; k++) {
      bls_err e;
      if (k == 1) {
        g2_affine_t q;
        e = g2_deserialize(&q, p + off[k], len[k], BLS_DECODE_SUBGROUP_CHECK);
      } else {
        g1_affine_t q;
        e = g1_deserialize(&q, p + off[k], len[k], BLS_DECODE_SUBGROUP_CHECK);
      }
      if (e != BLS_OK) {
        insp_fail("%s: proof %" PRIu64 " (byte %" PRIu64 "): %s: %s", f->path, i, 192 * i + off[k],
                  names[k], bls_err_str(e));
        return 1;
      }
    }
  }
  return 0;
}

int insp_check(insp_file *f) {
  char err[2048] = "";
  int st = SEALPROV_OK;
  sp_cli_note("%s: reading and checking the whole file", f->path);
  switch (f->kind) {
    case INSP_SPA: {
      sp_spa *spa = NULL;
      st = sp_spa_read(f->path, &spa, err, sizeof err);
      sp_spa_free(spa);
      break;
    }
    case INSP_PARAMS:
    case INSP_VK: {
      sp_srs *srs = NULL;
      st = sp_srs_load(f->path, f->kind == INSP_VK, true, g16_ncpus(), &srs, err, sizeof err);
      if (srs) sp_srs_release(srs);
      break;
    }
    case INSP_PROOFS: return check_proofs(f);
    case INSP_R1CS: {
      sp_cs *cs = NULL;
      st = sp_cs_load(f->path, &cs, err, sizeof err);
      sp_cs_release(cs);
      break;
    }
    case INSP_WTNS: {
      sp_wtns *w = NULL;
      st = sp_wtns_load(f->path, &w, err, sizeof err);
      sp_wtns_free(w);
      break;
    }
    case INSP_ZKEY: {
      sp_zkey *zk = NULL;
      st = sp_zkey_load(f->path, true, g16_ncpus(), &zk, err, sizeof err);
      sp_zkey_free(zk);
      break;
    }
    case INSP_SNARKJS_VK: {
      sp_vk vk;
      st = sp_snarkjs_load_vk(f->path, &vk, err, sizeof err) ? SEALPROV_OK : SEALPROV_ERR_PARAMS;
      if (st == SEALPROV_OK) free(vk.ic);
      break;
    }
    case INSP_SNARKJS_PROOF: {
      sp_zkey_proof pr;
      st = sp_snarkjs_load_proof(f->path, &pr, err, sizeof err) ? SEALPROV_OK : SEALPROV_ERR_PARAMS;
      break;
    }
    case INSP_SNARKJS_PUBLIC: {
      scalar_t *pub = NULL;
      size_t n = 0;
      st = sp_snarkjs_load_public(f->path, &pub, &n, err, sizeof err) ? SEALPROV_OK
                                                                      : SEALPROV_ERR_PARAMS;
      free(pub);
      break;
    }
    case INSP_MANIFEST:
    case INSP_INI:
    case INSP_UNKNOWN:
      /* read whole and parsed by the describer already: the module's INI reader for an
     * INI file (the devices themselves: `sealprov check-config`) */
      break;
  }
  if (st != SEALPROV_OK) {
    insp_fail("%s", err[0] ? err : "the check failed");
    return 1;
  }
  return 0;
}

/* ---- the command -------------------------------------------------------------------- */

/* What the file is, by its content (sp_cli_fd_kind: the kinds every command checks its
 * files for); its describer's result. */
static int describe(insp_file *f, bool inputs_hex) {
  sp_cli_kind k = sp_cli_fd_kind(f->fd, f->size, NULL); /* JSON: insp_json_file reads it */
  if (k == SP_KIND_SPA) return insp_spa(f, inputs_hex);
  if (inputs_hex) {
    insp_fail("%s: not a partition assignment (no %s magic at byte 0)", f->path, SP_SPA_MAGIC);
    return 1;
  }
  char head[4] = {0};
  switch (k) {
    case SP_KIND_EMPTY:
      insp_fail("%s: an empty file: none of the files sealprov reads or makes", f->path);
      return 1;
    case SP_KIND_R1CS:
    case SP_KIND_WTNS:
    case SP_KIND_ZKEY:
      if (!insp_read_at(f, 0, head, 4, "magic")) return 2;
      return insp_iden3(f, head);
    case SP_KIND_INI: return insp_ini(f);
    case SP_KIND_JSON: return insp_json_file(f);
    case SP_KIND_PROOFS: return insp_proofs(f);
    default: return insp_params(f); /* a .params, a .vk, or what none of them is */
  }
}

int cmd_inspect(int argc, char **argv) {
  enum { O_CHECK = 256, O_INPUTS_HEX };
  static const struct option opts[] = {
      {"check", no_argument, NULL, O_CHECK},
      {"inputs-hex", no_argument, NULL, O_INPUTS_HEX},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {.usage = inspect_usage, .takes = SP_CLI_JSON, .opts = opts};
  bool check = false, inputs_hex = false;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    if (c == O_CHECK)
      check = true;
    else if (c == O_INPUTS_HEX)
      inputs_hex = true;
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 1, INT32_MAX, "the file(s) to inspect")) return a.status;
  bool json = a.json;
  int n = argc - a.first;
  if (inputs_hex && (n != 1 || json || check))
    return sp_cli_usage_error(&a, "--inputs-hex takes one .spa file and no --json or --check");
  int ret = 0;
  if (json) printf("{\"files\": [");
  for (int i = 0; i < n; i++) {
    insp_file f = {.path = argv[a.first + i], .fd = -1, .json = json};
    int rc = 0;
    char *buf = NULL;
    size_t buflen = 0;
    last_err[0] = 0;
    insp_out = json ? open_memstream(&buf, &buflen) : stdout;
    if (insp_out == NULL) {
      sp_cli_error("out of memory");
      return 1;
    }
    f.fd = open(f.path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (f.fd < 0 || fstat(f.fd, &st) != 0) {
      insp_fail("%s: cannot open: %s", f.path, strerror(errno));
      rc = 2;
    } else if (!S_ISREG(st.st_mode)) {
      insp_fail("%s: not a regular file", f.path);
      rc = 2;
    } else {
      f.size = (uint64_t)st.st_size;
      rc = describe(&f, inputs_hex);
    }
    if (rc == 0 && check) {
      rc = insp_check(&f);
      if (rc == 0 && json)
        fprintf(insp_out, ", \"check\": \"ok\"");
      else if (rc == 0)
        fprintf(insp_out, "  check         ok (whole file read and checked)\n");
    }
    if (json) {
      fclose(insp_out);
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
    insp_out = NULL;
    if (f.fd >= 0) close(f.fd);
    if (rc > ret) ret = rc;
  }
  if (json) printf("]}\n");
  return ret;
}
