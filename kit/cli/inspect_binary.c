/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* inspect_binary.c -- the binary files of `sealprov inspect` (inspect.h): .spa, .params
 * and .vk, proof files, and iden3's container: circom's .r1cs and .wtns, snarkjs's .zkey.
 * Headers and length fields only. */
#include <config.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "inspect.h"
#include "spa.h"
#include "base/util.h" /* sp_le32, sp_le64 */

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

/* ---- .spa ------------------------------------------------------------------------- */

int insp_spa(insp_file *f, bool inputs_hex) {
  bool json = f->json;
  f->kind = INSP_SPA;
  uint8_t h[SP_SPA_HEADER_BYTES];
  if (!insp_read_at(f, 0, h, sizeof h, "header")) return 1;
  static const char *const names[] = {"abc_size",       "inp_size",       "aux_size",
                                      "a_aux_bit_len",  "a_aux_popcount", "b_inp_bit_len",
                                      "b_inp_popcount", "b_aux_bit_len",  "b_aux_popcount"};
  uint64_t v[9];
  for (int i = 0; i < 9; i++) v[i] = sp_le64(h + 16 + 8 * i);
  uint32_t version = sp_le32(h + 8), encoding = sp_le32(h + 12);
  if (version != SP_SPA_VERSION) {
    insp_fail("%s: version %" PRIu32 " at byte 8; this sealprov reads version %u", f->path, version,
              SP_SPA_VERSION);
    return 1;
  }
  if (encoding != 0) {
    insp_fail("%s: scalar encoding %" PRIu32 " at byte 12; version 1 has only 0 (canonical)",
              f->path, encoding);
    return 1;
  }
  uint64_t abc = v[0], inp = v[1], aux = v[2];
  /* the sizes must add up to the file length (the reader's rule) */
  uint64_t scalars = 0, expect = 0;
  bool fits = insp_mul_add(abc, 3, 0, &scalars) && scalars <= UINT64_MAX - inp &&
              scalars + inp <= UINT64_MAX - aux;
  if (fits) {
    scalars += inp + aux;
    uint64_t words = (v[3] + 63) / 64 + (v[5] + 63) / 64 + (v[7] + 63) / 64;
    fits = v[3] <= UINT64_MAX - 63 && v[5] <= UINT64_MAX - 63 && v[7] <= UINT64_MAX - 63 &&
           insp_mul_add(scalars, 32, SP_SPA_HEADER_BYTES + 8, &expect) &&
           insp_mul_add(words, 8, expect, &expect);
  }
  if (!fits || expect != f->size) {
    insp_fail("%s: the sizes in the header (abc_size %" PRIu64 ", inp_size %" PRIu64
              ", aux_size %" PRIu64 ") do not add up to the file length %" PRIu64 " bytes%s",
              f->path, abc, inp, aux, f->size, fits ? "" : " (they overflow)");
    return 1;
  }
  if (inp == 0) {
    insp_fail("%s: inp_size is 0 at byte 24: a partition has at least the input ONE", f->path);
    return 1;
  }
  uint64_t inp_off = SP_SPA_HEADER_BYTES + 3 * 32 * abc;
  if (inputs_hex) {
    for (uint64_t i = 1; i < inp; i++) {
      uint8_t s[32];
      if (!insp_read_at(f, inp_off + 32 * i, s, 32, "inputs")) return 1;
      for (int b = 0; b < 32; b++) fprintf(insp_out, "%02x", s[b]);
      if (i + 1 < inp) fputc(',', insp_out);
    }
    fputc('\n', insp_out);
    return 0;
  }
  if (json) {
    fprintf(insp_out, "{\"file\": ");
    sp_cli_json_str(insp_out, f->path);
    fprintf(insp_out,
            ", \"kind\": \"spa\", \"version\": %" PRIu32 ", \"bytes\": %" PRIu64
            ", \"num_public_inputs\": %" PRIu64,
            version, f->size, inp - 1);
    for (int i = 0; i < 9; i++) fprintf(insp_out, ", \"%s\": %" PRIu64, names[i], v[i]);
    fprintf(insp_out, ", \"public_inputs\": [");
  } else {
    sp_cli_put_utf8(insp_out, f->path);
    fprintf(insp_out, ": partition assignment (.spa version %" PRIu32 "), %" PRIu64 " bytes\n",
            version, f->size);
    fprintf(insp_out, "  constraints   %" PRIu64 " (abc_size, input constraints included)\n", abc);
    fprintf(insp_out, "  inputs        %" PRIu64 " (ONE and %" PRIu64 " public)\n", inp, inp - 1);
    fprintf(insp_out, "  aux           %" PRIu64 "\n", aux);
    fprintf(insp_out, "  a density     %" PRIu64 " of %" PRIu64 " aux (%.1f %%)\n", v[4], v[3],
            pct(v[4], v[3]));
    fprintf(insp_out,
            "  b density     %" PRIu64 " of %" PRIu64 " inputs, %" PRIu64 " of %" PRIu64
            " aux (%.1f %%)\n",
            v[6], v[5], v[8], v[7], pct(v[8], v[7]));
    fprintf(insp_out, "  public inputs (input 0 is ONE):\n");
  }
  /* Long input lists are cut in the text form (JSON has them all). */
  const uint64_t shown = json ? inp : (inp > 64 ? 64 : inp);
  for (uint64_t i = 0; i < shown; i++) {
    uint8_t s[32];
    char hex[67];
    if (!insp_read_at(f, inp_off + 32 * i, s, 32, "inputs")) return 1;
    sp_cli_scalar_hex(s, hex);
    if (json)
      fprintf(insp_out, "%s\"%s\"", i ? ", " : "", hex);
    else
      fprintf(insp_out, "  %6" PRIu64 "  %s\n", i, hex);
  }
  if (json)
    fprintf(insp_out, "]");
  else if (shown < inp)
    fprintf(insp_out, "  ... %" PRIu64 " more (--json lists them all)\n", inp - shown);
  insp_line(f, "for", NULL, NULL,
            "sealprov prove and verify (one partition of a job: its "
            "sealprov_assignment)");
  return 0;
}

/* ---- .params / .vk ---------------------------------------------------------------- */

int insp_params(insp_file *f) {
  bool json = f->json;
  sp_cli_params_hdr h;
  char msg[1400];
  /* the same reading of the length fields as `prove` does before it loads a file */
  if (!sp_cli_params_header(f->fd, f->size, f->path, &h, msg, sizeof msg)) {
    insp_fail("%s", msg);
    return 1;
  }
  const uint64_t *len = h.len;
  int nvec = h.nvec;
  bool vk = h.vk;
  uint64_t domain = len[1] + 1;
  unsigned log_domain = h.log_domain;
  if (json) {
    fprintf(insp_out, "{\"file\": ");
    sp_cli_json_str(insp_out, f->path);
    fprintf(insp_out, ", \"kind\": \"%s\", \"bytes\": %" PRIu64 ", \"num_public_inputs\": %" PRIu64,
            vk ? "vk" : "params", f->size, len[0] - 1);
    for (int i = 0; i < nvec; i++)
      fprintf(insp_out, ", \"%s_len\": %" PRIu64, sp_cli_params_vector(i), len[i]);
    if (!vk)
      fprintf(insp_out, ", \"domain\": %" PRIu64 ", \"log_domain\": %u, \"aux_size\": %" PRIu64,
              domain, log_domain, len[2]);
  } else {
    sp_cli_put_utf8(insp_out, f->path);
    fprintf(insp_out, ": %s, %" PRIu64 " bytes\n",
            vk ? "Groth16 verifying key (.vk)" : "Groth16 parameters (.params)", f->size);
    fprintf(insp_out, "  inputs        %" PRIu64 " (ONE and %" PRIu64 " public; ic_len)\n", len[0],
            len[0] - 1);
    if (!vk) {
      fprintf(insp_out, "  domain        %" PRIu64 " (2^%u; h_len %" PRIu64 ")\n", domain,
              log_domain, len[1]);
      fprintf(insp_out, "  aux           %" PRIu64 " (l_len)\n", len[2]);
      fprintf(insp_out, "  a             %" PRIu64 " points (inputs and aux in A)\n", len[3]);
      fprintf(insp_out, "  b_g1, b_g2    %" PRIu64 ", %" PRIu64 " points (inputs and aux in B)\n",
              len[4], len[5]);
    }
  }
  f->kind = vk ? INSP_VK : INSP_PARAMS;
  insp_line(f, "for", NULL, NULL, "%s",
            vk ? "sealprov verify --vk; a host's vk_load and verify()"
               : "sealprov prove --params; a host's srs_load (the verifying key is its "
                 "first part: the .vk)");
  return 0;
}

/* ---- proof files ------------------------------------------------------------------ */

int insp_proofs(insp_file *f) {
  f->kind = INSP_PROOFS;
  uint64_t n = f->size / 192;
  char num[32];
  snprintf(num, sizeof num, "%" PRIu64, n);
  insp_head(f, "proofs", "Groth16 proofs (a proof file)");
  insp_line(f, "proofs", "proofs", num, "%" PRIu64 " of 192 bytes, in partition order%s", n,
            n == 1 ? " (one partition)" : "");
  insp_line(f, "each", NULL, NULL,
            "A (G1, 48 bytes), B (G2, 96 bytes), C (G1, 48 bytes), "
            "compressed as bellperson writes them");
  insp_line(f, "for", NULL, NULL,
            "sealprov verify --proofs (with the .vk and the partition "
            "files, one per proof)");
  return 0;
}

/* ---- iden3's container: circom's .r1cs and .wtns, snarkjs's .zkey -------------------- */

/* A prime as written little-endian in n8 bytes, named when it is one the project meets. */
static const char *prime_name(const uint8_t *le, uint32_t n8, bool *bls_r) {
  static const struct {
    const char *hex; /* big-endian */
    const char *name;
  } known[] = {
      {"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
       "BLS12-381's scalar field r"},
      {"30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001",
       "BN254's scalar field r (snarkjs's bn128, circom's default)"},
      {"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9fefffffff"
       "faaab",
       "BLS12-381's base field p"},
      {"30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47",
       "BN254's base field q (bn128)"},
  };
  *bls_r = false;
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
    size_t len = strlen(known[k].hex) / 2;
    if (len != n8) continue;
    bool same = true;
    for (size_t i = 0; i < len && same; i++) {
      unsigned byte;
      sscanf(known[k].hex + 2 * (len - 1 - i), "%2x", &byte);
      same = le[i] == byte;
    }
    if (same) {
      *bls_r = k == 0;
      return known[k].name;
    }
  }
  return NULL;
}

/* "0x..." of a little-endian number of n bytes (at most 64) */
static void le_hex(const uint8_t *le, uint32_t n, char *out) {
  char *o = out;
  o += sprintf(o, "0x");
  for (uint32_t i = n; i-- > 0;) o += sprintf(o, "%02x", le[i]);
}

typedef struct iden3_sec {
  uint64_t off, size;
  bool present;
} iden3_sec;

#define IDEN3_TYPES 16

/* The container's header and section table: every section's content in the file. */
static int iden3_table(const insp_file *f, const char *what, uint32_t *version,
                       iden3_sec sec[IDEN3_TYPES], uint32_t *nsec) {
  uint8_t h[12];
  if (!insp_read_at(f, 0, h, sizeof h, "header")) return 1;
  *version = sp_le32(h + 4);
  *nsec = sp_le32(h + 8);
  memset(sec, 0, sizeof(iden3_sec) * IDEN3_TYPES);
  uint64_t off = 12;
  for (uint32_t i = 0; i < *nsec; i++) {
    uint8_t s[12];
    char field[48];
    snprintf(field, sizeof field, "section %u header", i + 1);
    if (!insp_read_at(f, off, s, sizeof s, field)) return 1;
    uint32_t type = sp_le32(s);
    uint64_t size = sp_le64(s + 4);
    if (size > f->size - off - 12) {
      insp_fail("%s: %s: section %u (type %u at byte %" PRIu64 ") claims %" PRIu64
                " bytes, but %" PRIu64 " follow",
                f->path, what, i + 1, type, off, size, f->size - off - 12);
      return 1;
    }
    if (type < IDEN3_TYPES && !sec[type].present)
      sec[type] = (iden3_sec){.off = off + 12, .size = size, .present = true};
    off += 12 + size;
  }
  if (off != f->size) {
    insp_fail("%s: %s: %" PRIu64 " bytes after the last of its %u sections (byte %" PRIu64 ")",
              f->path, what, f->size - off, *nsec, off);
    return 1;
  }
  return 0;
}

/* A field an iden3 header names (n8, 4 bytes, then the prime): its element size, prime
 * and what that prime is. */
typedef struct insp_field {
  uint32_t n8;
  uint8_t prime[64];
  const char *name; /* NULL: a prime this tool does not know */
  bool bls_r;       /* BLS12-381's r */
} insp_field;

static int iden3_field(const insp_file *f, const char *what, const iden3_sec *h, uint64_t at,
                       insp_field *fl) {
  uint8_t b[4];
  if (!insp_read_at(f, h->off + at, b, 4, "n8")) return 1;
  fl->n8 = sp_le32(b);
  if (fl->n8 == 0 || fl->n8 > 64 || h->size < at + 4 + fl->n8) {
    insp_fail("%s: %s: field size n8 = %u at byte %" PRIu64 " (expected 32 for BLS12-381's r)",
              f->path, what, fl->n8, h->off + at);
    return 1;
  }
  if (!insp_read_at(f, h->off + at + 4, fl->prime, fl->n8, "prime")) return 1;
  fl->name = prime_name(fl->prime, fl->n8, &fl->bls_r);
  return 0;
}

/* "field  BLS12-381's scalar field r", or , "field": "0x73ed...", "field_name": "..." */
static void field_line(const insp_file *f, const char *label, const char *key, const insp_field *fl,
                       bool wanted) {
  char hex[140], js[400];
  const char *name = fl->name;
  le_hex(fl->prime, fl->n8, hex);
  snprintf(js, sizeof js, "\"%s\", \"%s_name\": \"%s\"", hex, key, name ? name : "unknown");
  insp_line(f, label, key, js, "%s%s", name ? name : hex,
            wanted ? "" : ": sealprov proves over BLS12-381 only");
}

static int describe_r1cs(insp_file *f, uint32_t version, const iden3_sec *sec) {
  const char *what = "circom .r1cs";
  if (!sec[1].present) {
    insp_fail("%s: %s: no header section (type 1)", f->path, what);
    return 1;
  }
  insp_field fl;
  if (iden3_field(f, what, &sec[1], 0, &fl)) return 1;
  uint32_t n8 = fl.n8;
  uint8_t h[28];
  if (sec[1].size < 4 + (uint64_t)n8 + sizeof h) {
    insp_fail("%s: %s: header section of %" PRIu64 " bytes (byte %" PRIu64
              "); with %u-byte "
              "elements it has %u",
              f->path, what, sec[1].size, sec[1].off, n8, 4 + n8 + (unsigned)sizeof h);
    return 1;
  }
  if (!insp_read_at(f, sec[1].off + 4 + n8, h, sizeof h, "header counts")) return 1;
  uint32_t wires = sp_le32(h), out = sp_le32(h + 4), in = sp_le32(h + 8), prv = sp_le32(h + 12),
           rows = sp_le32(h + 24);
  uint64_t labels = sp_le64(h + 16);
  f->kind = INSP_R1CS;
  char what_v[64], v[32];
  snprintf(what_v, sizeof what_v, "circom constraint system (.r1cs version %u)", version);
  insp_head(f, "r1cs", what_v);
  snprintf(v, sizeof v, "%u", version);
  insp_line(f, NULL, "version", v, "-");
  field_line(f, "field", "field", &fl, fl.bls_r);
  char js[160];
  snprintf(js, sizeof js,
           "%u, \"public_outputs\": %u, \"public_inputs\": %u, \"private_inputs\": %u", wires, out,
           in, prv);
  insp_line(f, "wires", "wires", js,
            "%u (ONE, %u public output%s, %u public input%s, %u private input%s, %u internal)",
            wires, out, sp_cli_plural(out), in, sp_cli_plural(in), prv, sp_cli_plural(prv),
            wires >= 1u + out + in + prv ? wires - 1 - out - in - prv : 0);
  snprintf(js, sizeof js, "%u", rows);
  insp_line(f, "constraints", "constraints", js,
            "%u (the circuit's own; whoever proves appends bellperson's input constraints)", rows);
  snprintf(js, sizeof js, "%" PRIu64, labels);
  insp_line(f, "labels", "labels", js, "%" PRIu64, labels);
  if (sec[4].present || sec[5].present)
    insp_line(f, "custom gates", "custom_gates", "true",
              "yes (PLONK): not a Groth16 system; sealprov refuses it");
  insp_line(f, "for", NULL, NULL, "sealprov prove --r1cs (witness-only proving; a host's cs_load)");
  return 0;
}

static int describe_wtns(insp_file *f, uint32_t version, const iden3_sec *sec) {
  const char *what = "circom .wtns";
  if (!sec[1].present || !sec[2].present) {
    insp_fail("%s: %s: no %s section (type %d)", f->path, what,
              !sec[1].present ? "header" : "values", !sec[1].present ? 1 : 2);
    return 1;
  }
  insp_field fl;
  if (iden3_field(f, what, &sec[1], 0, &fl)) return 1;
  uint32_t n8 = fl.n8;
  uint8_t b[4];
  if (sec[1].size < 8 + (uint64_t)n8 || !insp_read_at(f, sec[1].off + 4 + n8, b, 4, "nWitness")) {
    if (sec[1].size < 8 + (uint64_t)n8)
      insp_fail("%s: %s: header section of %" PRIu64 " bytes: no witness count", f->path, what,
                sec[1].size);
    return 1;
  }
  uint32_t n = sp_le32(b);
  if (sec[2].size != (uint64_t)n * n8) {
    insp_fail("%s: %s: values section of %" PRIu64 " bytes (byte %" PRIu64
              ") for %u values of %u "
              "bytes",
              f->path, what, sec[2].size, sec[2].off, n, n8);
    return 1;
  }
  f->kind = INSP_WTNS;
  char what_v[64], js[32];
  snprintf(what_v, sizeof what_v, "circom witness (.wtns version %u)", version);
  insp_head(f, "wtns", what_v);
  snprintf(js, sizeof js, "%u", version);
  insp_line(f, NULL, "version", js, "-");
  field_line(f, "field", "field", &fl, fl.bls_r);
  snprintf(js, sizeof js, "%u", n);
  insp_line(f, "values", "values", js,
            "%u (wire order: ONE, public outputs, public inputs, then "
            "private)",
            n);
  insp_line(f, "for", NULL, NULL, "sealprov prove --r1cs (a partition's witness), prove --zkey");
  return 0;
}

static int describe_zkey(insp_file *f, uint32_t version, const iden3_sec *sec) {
  const char *what = "snarkjs .zkey";
  if (!sec[1].present) {
    insp_fail("%s: %s: no header section (type 1)", f->path, what);
    return 1;
  }
  uint8_t b[4];
  if (sec[1].size < 4 || !insp_read_at(f, sec[1].off, b, 4, "protocol")) return 1;
  uint32_t proto = sp_le32(b);
  const char *pname = proto == 1 ? "groth16" : proto == 2 ? "plonk" : proto == 10 ? "fflonk" : NULL;
  char what_v[96], js[64];
  snprintf(what_v, sizeof what_v, "snarkjs proving key (.zkey version %u, %s)", version,
           pname ? pname : "an unknown protocol");
  if (proto != 1) {
    f->kind = INSP_ZKEY;
    insp_head(f, "zkey", what_v);
    snprintf(js, sizeof js, "\"%s\"", pname ? pname : "unknown");
    insp_line(f, "protocol", "protocol", js, "%s (%u): sealprov proves Groth16 keys only",
              pname ? pname : "unknown", proto);
    return 0;
  }
  if (!sec[2].present) {
    insp_fail("%s: %s: no Groth16 header section (type 2)", f->path, what);
    return 1;
  }
  insp_field q, r;
  if (iden3_field(f, what, &sec[2], 0, &q) || iden3_field(f, what, &sec[2], 4 + (uint64_t)q.n8, &r))
    return 1;
  uint32_t n8q = q.n8, n8r = r.n8;
  uint8_t h[12];
  uint64_t at = sec[2].off + 8 + (uint64_t)n8q + n8r;
  if (sec[2].size < 8 + (uint64_t)n8q + n8r + 12 || !insp_read_at(f, at, h, sizeof h, "counts")) {
    if (sec[2].size < 8 + (uint64_t)n8q + n8r + 12)
      insp_fail("%s: %s: Groth16 header section of %" PRIu64 " bytes: no counts", f->path, what,
                sec[2].size);
    return 1;
  }
  uint32_t nvars = sp_le32(h), npub = sp_le32(h + 4), domain = sp_le32(h + 8);
  f->kind = INSP_ZKEY;
  insp_head(f, "zkey", what_v);
  insp_line(f, NULL, "protocol", "\"groth16\"", "-");
  field_line(f, "curve (q)", "curve_q", &q, q.name && strstr(q.name, "BLS12-381"));
  field_line(f, "field (r)", "field_r", &r, r.bls_r);
  snprintf(js, sizeof js, "%u", nvars);
  insp_line(f, "signals", "n_vars", js, "%u (ONE included)", nvars);
  snprintf(js, sizeof js, "%u", npub);
  insp_line(f, "public", "n_public", js, "%u (outputs, then public inputs; ONE excluded)", npub);
  unsigned log = 0;
  while (log < 32 && (UINT64_C(1) << log) < domain) log++;
  snprintf(js, sizeof js, "%u", domain);
  insp_line(f, "domain", "domain_size", js, "%u (2^%u)", domain, log);
  insp_line(f, "for", NULL, NULL,
            "sealprov prove --zkey (snarkjs's keys, proved on this host's "
            "CPUs by the developer kit)");
  return 0;
}

int insp_iden3(insp_file *f, const char magic[4]) {
  const char *what = !memcmp(magic, "r1cs", 4)   ? "circom .r1cs"
                     : !memcmp(magic, "wtns", 4) ? "circom .wtns"
                                                 : "snarkjs .zkey";
  uint32_t version, nsec;
  iden3_sec sec[IDEN3_TYPES];
  if (iden3_table(f, what, &version, sec, &nsec)) return 1;
  if (!memcmp(magic, "r1cs", 4)) return describe_r1cs(f, version, sec);
  if (!memcmp(magic, "wtns", 4)) return describe_wtns(f, version, sec);
  return describe_zkey(f, version, sec);
}
