/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_bad_inputs.c -- the catalogue of bad inputs (issue 13, item 7; docs/errors.md).
 *
 * Every case feeds one bad input to the built module through dlopen and the vtable, as
 * a host would (INI files, .params and .vk files, ABI arguments, proofs, files that
 * change under us), or to the `sealprov` CLI where the input is a CLI argument (.spa
 * files, output paths), or to the conversions that libsealprov_c2 offers C hosts
 * (through dlopen too). For each case it asserts the status (the CLI: the exit code),
 * that the message names the file, field and value at fault (substrings), and that it
 * is valid UTF-8. Each case runs in a child process of its own: a case that crashes
 * (SIGSEGV, SIGBUS) is reported as such and the others still run.
 *
 *   test_bad_inputs                 run every case; exit 1 if any fails
 *   test_bad_inputs --markdown      also print docs/errors.md to stdout
 *   test_bad_inputs --list          one line per case: status and message
 *
 * Needs SEALPROV_PLUGIN (the module) and top_builddir (for tools/sealprov); make check
 * sets both. Paths in messages are relative to a scratch directory, so the output does
 * not depend on where it runs. With SEALPROV_ERRORS_DOC=FILE the generated table is
 * compared with FILE (docs/errors.md) and a difference fails the run; make check does
 * not set it (dev/soak.sh does), so a message reworded elsewhere does not break CI
 * before the doc is regenerated. */
#include <config.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bls12_381/bls12_381.h"
#include "circuit.h"
#include "sealprov.h"
#include "spa.h"
#include "sealprov_c2.h"

#define MSG_MAX 2048
/* Seconds a case may take before it counts as hanging (the sanitizers slow proving). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CASE_TIMEOUT 60
#else
#define CASE_TIMEOUT 10
#endif

static const sealprov_vtable *vt;
static char tmp_root[256];
static const char *plugin_path;
static char cli_path[1024];

/* ---- the status names of include/sealprov.h (the table shows them) ---------------------- */
static const char *const status_names[SEALPROV_STATUS_COUNT_] = {
    "OK",       "INVALID_ARGUMENT", "ABI_VERSION",   "NO_MEMORY",
    "CONFIG",   "DEVICE",           "NO_DEVICE",     "IO",
    "PARAMS",   "ASSIGNMENT",       "VERIFY_FAILED", "CANCELLED",
    "TIMEOUT",  "SHUTDOWN",         "QUEUE_FULL",    "NOT_FOUND",
    "INTERNAL", "UNSUPPORTED",      "DEVICE_MEMORY"};

/* ---- small helpers ---------------------------------------------------------------------- */
static void die(const char *what, const char *detail) {
  fprintf(stderr, "test_bad_inputs: %s: %s\n", what, detail);
  exit(EXIT_FAILURE);
}

static bool utf8_valid(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p++;
    if (c < 0x80) continue;
    int n;
    unsigned min, cp;
    if ((c & 0xe0) == 0xc0)
      n = 1, min = 0x80, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0)
      n = 2, min = 0x800, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0)
      n = 3, min = 0x10000, cp = c & 0x07;
    else
      return false;
    for (int i = 0; i < n; i++) {
      if ((*p & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (*p++ & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  }
  return true;
}

static void write_bytes(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) die("write", path);
}

static void write_text(const char *path, const char *text) {
  write_bytes(path, text, strlen(text));
}

static uint8_t *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) die("open", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
  if (!p || (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n)) die("read", path);
  fclose(f);
  *len = (size_t)n;
  return p;
}

static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}
static uint32_t get_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void put_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* ---- fixtures (made once, before the cases) ---------------------------------------------- */
#define CONSTRAINTS 128
#define INPUTS 2
#define SEED_A 1
#define SEED_TWIN 3475 /* a circuit with exactly the sizes of SEED_A's (see test_soak.c) */

static uint8_t *good_params, *good_vk;
static size_t good_params_len, good_vk_len;
static sp_spa *good_spa[2], *other_spa, *twin_spa;
static uint8_t nosub_g1[96];   /* on the curve, not in the prime-order subgroup */
static uint8_t nosub_g1_c[48]; /* the same, compressed */
static uint8_t good_proof[2][SEALPROV_PROOF_BYTES];

enum { V_IC, V_H, V_L, V_A, V_BG1, V_BG2, NV };
static const size_t vsize[NV] = {96, 96, 96, 96, 96, 192};
static uint32_t vlen[NV];

static const char ok_ini_text[] =
    "[provider]\nlog_level = error\nquarantine_after = 3\nmax_attempts = 3\n"
    "[cpu0]\ntype = cpu\nthreads = 1\n[cpu1]\ntype = cpu\nthreads = 1\n";

static void setup_dir(const char *dir, uint64_t seed, uint64_t constraints, uint32_t parts) {
  char err[512] = "";
  sp_setup_result res;
  sp_setup_opts o = {.constraints = constraints,
                     .inputs = INPUTS,
                     .partitions = parts,
                     .shape = SP_SHAPE_SEALING,
                     .seed = seed,
                     .out_dir = dir,
                     .nthreads = 1};
  if (mkdir(dir, 0700) || sp_setup_run(&o, &res, err, sizeof err) ||
      sp_setup_write_r1cs(&o, err, sizeof err))
    die("setup", err);
}

static sp_spa *read_spa(const char *dir, uint32_t p, uint32_t n) {
  char path[300], name[64], err[512];
  sp_partition_name(name, sizeof name, p, n);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  sp_spa *s = NULL;
  if (sp_spa_read(path, &s, err, sizeof err)) die("read", err);
  return s;
}

/* A G1 point on y^2 = x^3 + 4 outside the subgroup: the curve's cofactor is large, so
 * the first x that gives a point almost surely gives such a point. */
static void make_nosub_point(void) {
  fp_t four, x, rhs, t, y;
  fp_from_u64(&four, 4);
  for (uint64_t k = 1; k < 1000; k++) {
    fp_from_u64(&x, k);
    fp_sqr(&t, &x);
    fp_mul(&rhs, &t, &x);
    fp_add(&rhs, &rhs, &four);
    if (!fp_sqrt(&y, &rhs)) continue;
    g1_affine_t pt = {x, y};
    if (!g1_affine_on_curve(&pt) || g1_affine_in_subgroup(&pt)) continue;
    g1_serialize(nosub_g1, &pt);
    g1_compress(nosub_g1_c, &pt);
    return;
  }
  die("setup", "no non-subgroup G1 point found");
}

static void make_fixtures(void) {
  setup_dir("g", SEED_A, CONSTRAINTS, 2);
  setup_dir("o", 5, 64, 1);                  /* another circuit, other sizes */
  setup_dir("t", SEED_TWIN, CONSTRAINTS, 1); /* another circuit, the same sizes */
  good_params = read_all("g/circuit.params", &good_params_len);
  good_vk = read_all("g/circuit.vk", &good_vk_len);
  good_spa[0] = read_spa("g", 0, 2);
  good_spa[1] = read_spa("g", 1, 2);
  other_spa = read_spa("o", 0, 1);
  twin_spa = read_spa("t", 0, 1);
  size_t off = 864;
  for (int v = 0; v < NV; v++) {
    vlen[v] = get_be32(good_params + off);
    off += 4 + vlen[v] * vsize[v];
  }
  if (off != good_params_len) die("setup", "g/circuit.params: unexpected layout");
  make_nosub_point();
  write_text("ok.ini", ok_ini_text);
  mkdir("adir", 0700);
  mkdir("full", 0700);
  write_text("full/notes.txt", "a file the setup must not mix its files with\n");
  if (mkfifo("a.fifo", 0600) != 0) die("mkfifo", strerror(errno));
}

/* ---- .params / .vk builder ---------------------------------------------------------------- */
typedef enum pmut {
  PM_NONE,
  PM_INF,
  PM_INF_FLAG,
  PM_COMPRESSED,
  PM_SIGN,
  PM_X_IS_P,
  PM_OFF_CURVE,
  PM_NO_SUBGROUP
} pmut;

typedef struct pspec {
  int64_t pts[NV];  /* points written per vector; -1: as in the good file (more: repeats) */
  int64_t decl[NV]; /* declared length; -1: the number of points written */
  int64_t cut;      /* keep only this many bytes (>= 0), or drop -cut bytes (< -1); -1: all */
  unsigned append;  /* bytes of 0x00 appended */
  int where;        /* -1: a header point at byte hdr_off; else a vector (V_*) */
  size_t hdr_off;
  bool hdr_g2;
  uint32_t index; /* point index in the vector */
  pmut mut;
  bool vk; /* a .vk file: the header and ic only */
} pspec;

/* Defaults first, then the case's own fields (which override them on purpose). */
#define PSPEC(...)                                                                             \
  {                                                                                            \
    .pts = {-1, -1, -1, -1, -1, -1}, .decl = {-1, -1, -1, -1, -1, -1}, .cut = -1, .where = -2, \
    __VA_ARGS__                                                                                \
  }

static const uint8_t fp_p_be[48] = {
    0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6, 0x43, 0x4b, 0xac, 0xd7,
    0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf, 0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24,
    0x1e, 0xab, 0xff, 0xfe, 0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab};

static void mutate_point(uint8_t *pt, bool g2, pmut m) {
  size_t n = g2 ? 192 : 96;
  switch (m) {
    case PM_NONE: break;
    case PM_INF: memset(pt, 0, n), pt[0] = 0x40; break;
    case PM_INF_FLAG: pt[0] |= 0x40; break;
    case PM_COMPRESSED: pt[0] |= 0x80; break;
    case PM_SIGN: pt[0] |= 0x20; break;
    case PM_X_IS_P: memcpy(pt, fp_p_be, 48); break;
    case PM_OFF_CURVE: pt[n - 1] ^= 1; break;
    case PM_NO_SUBGROUP: memcpy(pt, nosub_g1, 96); break;
  }
}

static uint8_t *build_params(const pspec *ps, size_t *len) {
  size_t cap = good_params_len * 4 + 200000 + ps->append;
  uint8_t *out = calloc(1, cap);
  if (!out) die("build", "out of memory");
  memcpy(out, good_params, 864);
  size_t off = 864, src = 864;
  size_t voff[NV];
  for (int v = 0; v < (ps->vk ? 1 : NV); v++) {
    uint32_t n = ps->pts[v] < 0 ? vlen[v] : (uint32_t)ps->pts[v];
    uint32_t d = ps->decl[v] < 0 ? n : (uint32_t)ps->decl[v];
    put_be32(out + off, d);
    off += 4;
    voff[v] = off;
    const uint8_t *first = good_params + src + 4;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t k = i < vlen[v] ? i : vlen[v] - 1;
      if (off + vsize[v] > cap) die("build", "too large");
      memcpy(out + off, first + (size_t)k * vsize[v], vsize[v]);
      off += vsize[v];
    }
    src += 4 + (size_t)vlen[v] * vsize[v];
  }
  if (ps->where == -1) mutate_point(out + ps->hdr_off, ps->hdr_g2, ps->mut);
  if (ps->where >= 0)
    mutate_point(out + voff[ps->where] + (size_t)ps->index * vsize[ps->where], ps->where == V_BG2,
                 ps->mut);
  off += ps->append; /* zeros from calloc */
  if (ps->cut >= 0 && (size_t)ps->cut < off) off = (size_t)ps->cut;
  if (ps->cut < -1) off -= (size_t)(-ps->cut);
  *len = off;
  return out;
}

/* ---- .spa builder --------------------------------------------------------------------------- */
typedef enum smut {
  SM_NONE,
  SM_MAGIC,
  SM_VERSION,
  SM_ENCODING,
  SM_RESERVED,
  SM_CHECKSUM,
  SM_CUT_LAST,
  SM_APPEND,
  SM_ABC_HUGE,
  SM_AUX_HUGE,
  SM_BITLEN,
  SM_POPCOUNT,
  SM_BIT_PAST,
  SM_A_GE_R,
  SM_AUX_GE_R,
  SM_INPUT0,
  SM_UNSAT,
  SM_EMPTY,
  SM_HEADER_ONLY,
  SM_INP_ZERO
} smut;

static const uint8_t fr_r_le[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

static uint8_t *build_spa(smut m, bool fix_checksum, size_t *len) {
  size_t n = good_spa[0]->map_len;
  uint8_t *b = calloc(1, n + 64);
  if (!b) die("build", "out of memory");
  memcpy(b, good_spa[0]->map, n);
  uint64_t abc = get_le64(b + 16), inp = get_le64(b + 24);
  size_t a_off = 96, c_off = 96 + 64 * abc, inp_off = 96 + 96 * abc, aux_off = inp_off + 32 * inp;
  uint64_t aux = get_le64(b + 32);
  size_t bm_off = aux_off + 32 * aux;
  size_t binp_bm = bm_off + 8 * ((aux + 63) / 64);
  switch (m) {
    case SM_NONE: break;
    case SM_MAGIC: memcpy(b, "SEALSPA2", 8); break;
    case SM_VERSION: b[8] = 2; break;
    case SM_ENCODING: b[12] = 1; break;
    case SM_RESERVED: b[88] = 1; break;
    case SM_CHECKSUM: b[n - 1] ^= 0xff; return *len = n, b;
    case SM_CUT_LAST: return *len = n - 1, b;
    case SM_APPEND: n += 8; break;
    case SM_ABC_HUGE: put_le64(b + 16, UINT64_C(1) << 60); break;
    case SM_AUX_HUGE: put_le64(b + 32, UINT64_MAX / 16); break;
    case SM_BITLEN: put_le64(b + 40, aux + 1); break;
    case SM_POPCOUNT: put_le64(b + 48, get_le64(b + 48) - 1); break;
    case SM_BIT_PAST: b[binp_bm + 7] |= 0x80; break; /* bit 63 of b_inp (inp_size is 3) */
    case SM_A_GE_R: memcpy(b + a_off + 32 * 3, fr_r_le, 32); break;
    case SM_AUX_GE_R: memcpy(b + aux_off + 32 * 5, fr_r_le, 32); break;
    case SM_INPUT0: memset(b + inp_off, 0, 32), b[inp_off] = 2; break;
    case SM_UNSAT: {
      uint8_t *cell = c_off + 32 * 7 + b;
      bool zero = true;
      for (int i = 0; i < 32; i++) zero = zero && cell[i] == 0;
      memset(cell, 0, 32);
      cell[0] = zero;
      break;
    }
    case SM_EMPTY: return *len = 0, b;
    case SM_HEADER_ONLY: return *len = 100, b;
    case SM_INP_ZERO: put_le64(b + 24, 0); break;
  }
  if (fix_checksum) put_le64(b + n - 8, sp_xxh64(b, n - 8));
  *len = n;
  return b;
}

/* ---- a case and its outcome ---------------------------------------------------------------- */
typedef struct outcome {
  int status;      /* sealprov_status, or the CLI's exit code */
  int signal;      /* the child died of this signal */
  int valid;       /* verify's *valid, -1 when not a verify case */
  bool printed_ok; /* the CLI failed but its table called a partition "ok" */
  char msg[MSG_MAX];
} outcome;

struct bcase;
typedef void (*run_fn)(const struct bcase *c, outcome *o);

enum { F_CLI = 1u, F_ANY_MSG = 2u };

typedef struct bcase {
  const char *area;
  const char *input; /* what is wrong, for the table */
  run_fn run;
  const char *text; /* INI text, CLI arguments, ... */
  int id;           /* case-specific selector */
  pspec ps;
  int want;             /* the status (or exit code) */
  int want_alt;         /* another acceptable status, or -1 */
  const char *names[4]; /* substrings the message must contain */
  unsigned flags;
  int want_valid; /* verify cases: expected *valid (-1: not checked) */
} bcase;

/* A provider on ok.ini, or the case fails. */
static sealprov_provider *open_ok(outcome *o) {
  sealprov_provider *p = NULL;
  int st = vt->open("ok.ini", &p);
  if (st != SEALPROV_OK) {
    o->status = 1000 + st;
    snprintf(o->msg, sizeof o->msg, "fixture: open ok.ini: %s", vt->last_error());
    return NULL;
  }
  return p;
}

static void take(outcome *o, int st) {
  o->status = st;
  snprintf(o->msg, sizeof o->msg, "%s", st == SEALPROV_OK ? "" : vt->last_error());
}

/* INI: text (with "\\0" meaning a NUL) written to bad.ini, then open(). */
static void run_ini(const bcase *c, outcome *o) {
  const char *path = "bad.ini";
  if (c->id == 1)
    path = "missing.ini";
  else if (c->id == 2)
    path = "adir";
  else if (c->id == 3)
    path = "a.fifo";
  else if (c->id == 4) {
    /* more than 1 MiB of comments, then a valid device */
    size_t n = (1u << 20) + 4096;
    char *big = malloc(n + 64);
    if (!big) die("ini", "out of memory");
    for (size_t i = 0; i < n; i += 64) {
      big[i] = ';';
      memset(big + i + 1, 'x', 62);
      big[i + 63] = '\n';
    }
    strcpy(big + n, "[cpu0]\ntype = cpu\n");
    write_text(path, big);
    free(big);
  } else if (c->id == 5) {
    write_bytes(path, "[cpu0]\ntype = cpu\0\n", 19);
  } else {
    write_text(path, c->text);
  }
  sealprov_provider *p = NULL;
  take(o, vt->open(path, &p));
  if (p) vt->close(p);
}

static void run_params(const bcase *c, outcome *o) {
  sealprov_provider *p = open_ok(o);
  if (!p) return;
  const char *path = c->text;
  if (path == NULL) {
    size_t len;
    uint8_t *b = build_params(&c->ps, &len);
    path = c->ps.vk ? "./bad.vk" : "./bad.params"; /* a bare name means the parameter cache */
    write_bytes(path, b, len);
    free(b);
  }
  sealprov_srs *s = NULL;
  take(o, (c->ps.vk || c->id == 1) ? vt->vk_load(p, path, &s) : vt->srs_load(p, path, &s));
  vt->srs_release(s);
  vt->close(p);
}

/* The CLI: `sealprov` with c->text as arguments (a shell command line), in the scratch
 * directory; stderr is the message, the exit code the status. */
static void run_cli(const bcase *c, outcome *o) {
  if (c->id > 0) {
    size_t len;
    uint8_t *b = build_spa((smut)c->id, c->ps.vk, &len); /* ps.vk: fix the checksum */
    write_bytes("bad.spa", b, len);
    free(b);
  }
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' --plugin '%s' %s 2>cli.err >cli.out", cli_path, plugin_path,
           c->text);
  int rc = system(cmd);
  o->status = rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  size_t n = 0;
  uint8_t *e = read_all("cli.err", &n);
  size_t k = n < sizeof o->msg - 1 ? n : sizeof o->msg - 1;
  memcpy(o->msg, e, k);
  o->msg[k] = '\0';
  free(e);
  /* the CLI's own prefix and usage lines are not part of the message */
  char *nl = strchr(o->msg, '\n');
  if (nl && strncmp(nl + 1, "usage:", 6) == 0) *nl = '\0';
  size_t m = strlen(o->msg);
  while (m > 0 && o->msg[m - 1] == '\n') o->msg[--m] = '\0';
  /* a partition the CLI did not prove is never called "ok" */
  uint8_t *out = read_all("cli.out", &n);
  o->printed_ok = o->status != 0 && n > 0 && memmem(out, n, " ok ", 4) != NULL;
  free(out);
}

/* ---- ABI cases ------------------------------------------------------------------------------ */
enum abi_id {
  A_INIT_MAJOR_NEWER = 1,
  A_INIT_MAJOR_OLDER,
  A_INIT_NULL_OUT,
  A_OPEN_NULL_PATH,
  A_OPEN_NULL_OUT,
  A_CLOSE_NULL,
  A_CLOSE_TWICE,
  A_CLOSE_FOREIGN,
  A_SRS_AFTER_CLOSE,
  A_SUBMIT_AFTER_CLOSE,
  A_WAIT_AFTER_CLOSE,
  A_DEVICES_AFTER_CLOSE,
  A_STATS_AFTER_CLOSE,
  A_VERIFY_FOREIGN,
  A_SRS_NULL_PATH,
  A_SRS_NULL_OUT,
  A_SRS_EMPTY_PATH,
  A_SUBMIT_NULL_JOB,
  A_SUBMIT_NULL_ID,
  A_JOB_SIZE_0,
  A_JOB_FLAGS,
  A_JOB_SRS_NULL,
  A_JOB_SRS_VK,
  A_JOB_NPARTS_0,
  A_JOB_NPARTS_MAX,
  A_JOB_PARTS_NULL,
  A_JOB_PROOFS_NULL,
  A_JOB_ENCODING,
  A_JOB_DEVICE_MASK,
  A_SRS_NO_ROOM,
  A_JOB_MASK_NO_ROOM,
  A_JOB_FIXED_NO_R,
  A_JOB_R_NO_FLAG,
  A_JOB_R_GE_R,
  A_P_ABC_BIG,
  A_P_INP_SIZE,
  A_P_AUX_SIZE,
  A_P_A_POP,
  A_P_B_POP,
  A_P_A_NULL,
  A_P_C_NULL,
  A_P_INP_NULL,
  A_P_AUX_NULL,
  A_P_BM_NULL,
  A_P_BITLEN,
  A_P_BM_VS_POP,
  A_P_AUX_GE_R,
  A_P_INPUT0,
  A_P_UNSAT,
  A_P_MONT,
  A_P_TWIN,
  A_P_OTHER,
  A_WAIT_UNKNOWN,
  A_WAIT_TWICE,
  A_WAIT_ZERO,
  A_WAIT_DETACHED,
  A_CANCEL_UNKNOWN,
  A_CANCEL_AFTER_WAIT,
  A_PROVE_DETACHED,
  A_CLOSE_IN_CB,
  A_WAIT_IN_CB,
  A_DEVICES_NULL,
  A_DEVICES_OUT_NULL,
  A_STATS_NULL_LEN,
  A_TIMELINE_BUF_NULL,
  A_QUEUE_FULL,
  A_VK_PROVE,
  /* verify */
  V_ZERO,
  V_NOT_COMPRESSED,
  V_A_INF,
  V_B_OFF_CURVE,
  V_C_X_P,
  V_A_NOSUB,
  V_OTHER_PARTITION,
  V_SWAPPED,
  V_NUM_INPUTS,
  V_INPUT_GE_R,
  V_INPUT_LAST_GE_R_MONT,
  V_INPUT_ALL_ONES,
  V_WITH_ONE,
  V_CANONICAL_AS_MONT,
  V_ENCODING,
  V_NULL_PROOF,
  V_NULL_VK,
  V_NULL_VALID,
  V_NULL_INPUTS,
  V_OTHER_VK,
  /* files changing under us */
  C_SPA_TRUNCATED,
  C_SPA_REWRITTEN,
  C_PARAMS_UNLINKED,
  C_VK_TRUNCATED_AFTER,
  C_INI_CHANGED
};

static sealprov_assignment asg_copy(int which) { return good_spa[which]->asg; }

static void base_job(sealprov_job *j, sealprov_srs *s, sealprov_assignment *a, uint32_t n,
                     uint8_t *proofs) {
  memset(j, 0, sizeof *j);
  j->struct_size = sizeof *j;
  j->srs = s;
  j->partitions = a;
  j->num_partitions = n;
  j->scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  j->proofs_out = proofs;
}

/* The callback cases keep what the nested call said. */
typedef struct cb_ctx {
  sealprov_provider *p;
  int which;
  int status;
  char msg[MSG_MAX];
  sealprov_job_id id;
} cb_ctx;

static void nested_call(void *user, sealprov_job_id id, int status) {
  (void)status;
  cb_ctx *x = user;
  x->status = x->which == A_CLOSE_IN_CB ? vt->close(x->p) : vt->wait(x->p, id, 0);
  snprintf(x->msg, sizeof x->msg, "%s", vt->last_error());
}

static uint8_t *scratch_copy(const void *src, size_t n) {
  uint8_t *p = malloc(n);
  if (!p) die("copy", "out of memory");
  memcpy(p, src, n);
  return p;
}

/* Proves and returns the job's status (submit's, if it refuses). */
static int prove_one(sealprov_provider *p, sealprov_srs *s, sealprov_assignment *a, uint32_t enc) {
  uint8_t proofs[SEALPROV_PROOF_BYTES];
  sealprov_job j;
  base_job(&j, s, a, 1, proofs);
  j.scalar_encoding = enc;
  return vt->prove(p, &j);
}

static void run_abi(const bcase *c, outcome *o) {
  sealprov_provider_init_fn init = NULL;
  sealprov_provider *p = NULL;
  sealprov_srs *s = NULL, *v = NULL;
  uint8_t proofs[2 * SEALPROV_PROOF_BYTES];
  sealprov_assignment a[2] = {asg_copy(0), asg_copy(1)};
  sealprov_job j;
  sealprov_job_id id = 0;
  size_t n = 0;
  char buf[64];
  uint8_t *tmp = NULL;
  int valid = -1;
  uint8_t proof[SEALPROV_PROOF_BYTES];
  memcpy(proof, good_proof[0], sizeof proof);
  const uint8_t *inputs = (const uint8_t *)good_spa[0]->asg.inp_assignment + 32;
  uint64_t ninputs = good_spa[0]->asg.inp_size - 1;

  if (c->id <= A_INIT_NULL_OUT) {
    void *dl = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
    union {
      void *obj;
      sealprov_provider_init_fn fn;
    } sym = {.obj = dl ? dlsym(dl, SEALPROV_ENTRY_SYMBOL) : NULL};
    init = sym.fn;
    const sealprov_vtable *t = NULL;
    if (c->id == A_INIT_MAJOR_NEWER) o->status = init(SEALPROV_ABI_MAJOR + 1, 3, NULL, &t);
    if (c->id == A_INIT_MAJOR_OLDER) o->status = init(SEALPROV_ABI_MAJOR - 1, 9, NULL, &t);
    if (c->id == A_INIT_NULL_OUT)
      o->status = init(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, NULL, NULL);
    snprintf(o->msg, sizeof o->msg, "%s", vt->last_error());
    return;
  }
  bool need_p = c->id != A_OPEN_NULL_PATH && c->id != A_OPEN_NULL_OUT && c->id != A_CLOSE_NULL &&
                c->id != A_CLOSE_FOREIGN && c->id != A_VERIFY_FOREIGN;
  if (need_p) {
    p = open_ok(o);
    if (!p) return;
    if (c->id >= A_JOB_SIZE_0 || c->id == A_SRS_AFTER_CLOSE || c->id == A_SUBMIT_AFTER_CLOSE) {
      if (vt->srs_load(p, "g/circuit.params", &s) != SEALPROV_OK ||
          vt->vk_load(p, "g/circuit.vk", &v) != SEALPROV_OK) {
        o->status = 1000;
        snprintf(o->msg, sizeof o->msg, "fixture: load: %s", vt->last_error());
        vt->close(p);
        return;
      }
    }
  }
  base_job(&j, s, a, 1, proofs);
  switch (c->id) {
    case A_OPEN_NULL_PATH: take(o, vt->open(NULL, &p)); break;
    case A_OPEN_NULL_OUT: take(o, vt->open("ok.ini", NULL)); break;
    case A_CLOSE_NULL: take(o, vt->close(NULL)); break;
    case A_CLOSE_TWICE:
      vt->close(p);
      take(o, vt->close(p));
      p = NULL;
      break;
    case A_CLOSE_FOREIGN: {
      /* a pointer to memory the module never handed out */
      uint64_t junk[64];
      memset(junk, 0xa5, sizeof junk);
      take(o, vt->close((sealprov_provider *)junk));
      break;
    }
    case A_VERIFY_FOREIGN: {
      uint64_t junk[64];
      memset(junk, 0x5a, sizeof junk);
      take(o, vt->verify((sealprov_provider *)junk, (sealprov_srs *)junk, inputs, ninputs, 0, proof,
                         &valid));
      break;
    }
    case A_SRS_AFTER_CLOSE:
      vt->srs_release(s), vt->srs_release(v), s = v = NULL;
      vt->close(p);
      take(o, vt->srs_load(p, "g/circuit.params", &s));
      p = NULL;
      break;
    case A_SUBMIT_AFTER_CLOSE: {
      vt->close(p);
      take(o, vt->submit(p, &j, &id));
      p = NULL;
      break;
    }
    case A_WAIT_AFTER_CLOSE:
      vt->close(p);
      take(o, vt->wait(p, 1, 0));
      p = NULL;
      break;
    case A_DEVICES_AFTER_CLOSE:
      vt->close(p);
      take(o, vt->devices(p, NULL, 0, &n));
      p = NULL;
      break;
    case A_STATS_AFTER_CLOSE:
      vt->close(p);
      take(o, vt->stats(p, buf, sizeof buf, &n));
      p = NULL;
      break;
    case A_SRS_NULL_PATH: take(o, vt->srs_load(p, NULL, &s)); break;
    case A_SRS_NULL_OUT: take(o, vt->srs_load(p, "g/circuit.params", NULL)); break;
    case A_SRS_EMPTY_PATH: take(o, vt->srs_load(p, "", &s)); break;
    case A_SUBMIT_NULL_JOB: take(o, vt->submit(p, NULL, &id)); break;
    case A_SUBMIT_NULL_ID: take(o, vt->submit(p, &j, NULL)); break;
    case A_JOB_SIZE_0: j.struct_size = 0, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_FLAGS: j.flags = 0x100, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_SRS_NULL: j.srs = NULL, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_SRS_VK: j.srs = v, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_NPARTS_0: j.num_partitions = 0, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_NPARTS_MAX: j.num_partitions = 2000, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_PARTS_NULL: j.partitions = NULL, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_PROOFS_NULL: j.proofs_out = NULL, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_ENCODING: j.scalar_encoding = 7, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_DEVICE_MASK:
      j.device_mask = SEALPROV_DEVICE_BIT(5), take(o, vt->submit(p, &j, &id));
      break;
    case A_SRS_NO_ROOM:        /* every device too small for the parameters' partitions */
    case A_JOB_MASK_NO_ROOM: { /* the job allows only the device that is too small */
      sealprov_provider *q = NULL;
      sealprov_srs *t = NULL;
      write_text("room.ini", c->id == A_SRS_NO_ROOM
                                 ? "[small]\ntype = cpu\nmemory_limit = 8KiB\n"
                                 : "[big]\ntype = cpu\n[small]\ntype = cpu\nmemory_limit = 8KiB\n");
      if (vt->open("room.ini", &q) != SEALPROV_OK) {
        o->status = 1000;
        snprintf(o->msg, sizeof o->msg, "fixture: open room.ini: %s", vt->last_error());
        break;
      }
      if (c->id == A_SRS_NO_ROOM) {
        take(o, vt->srs_load(q, "g/circuit.params", &t));
      } else if (vt->srs_load(q, "g/circuit.params", &t) == SEALPROV_OK) {
        j.srs = t, j.device_mask = SEALPROV_DEVICE_BIT(1);
        take(o, vt->submit(q, &j, &id));
      }
      vt->srs_release(t);
      vt->close(q);
      break;
    }
    case A_JOB_FIXED_NO_R: j.flags = SEALPROV_JOB_FIXED_RS, take(o, vt->submit(p, &j, &id)); break;
    case A_JOB_R_NO_FLAG: {
      uint8_t r[32] = {1}, s2[32] = {2};
      j.r = r, j.s = s2;
      take(o, vt->submit(p, &j, &id));
      break;
    }
    case A_JOB_R_GE_R: {
      uint8_t r[32], s2[32] = {2};
      memcpy(r, fr_r_le, 32);
      j.flags = SEALPROV_JOB_FIXED_RS, j.r = r, j.s = s2;
      take(o, vt->prove(p, &j));
      break;
    }
    case A_P_ABC_BIG: a[0].abc_size = 1u << 20, take(o, vt->submit(p, &j, &id)); break;
    case A_P_INP_SIZE: a[0].inp_size--, take(o, vt->submit(p, &j, &id)); break;
    case A_P_AUX_SIZE: a[0].aux_size--, take(o, vt->submit(p, &j, &id)); break;
    case A_P_A_POP: a[0].a_aux_popcount--, take(o, vt->submit(p, &j, &id)); break;
    case A_P_B_POP: a[0].b_aux_popcount++, take(o, vt->submit(p, &j, &id)); break;
    case A_P_A_NULL: a[0].a = NULL, take(o, vt->submit(p, &j, &id)); break;
    case A_P_C_NULL: a[0].c = NULL, take(o, vt->submit(p, &j, &id)); break;
    case A_P_INP_NULL: a[0].inp_assignment = NULL, take(o, vt->submit(p, &j, &id)); break;
    case A_P_AUX_NULL: a[0].aux_assignment = NULL, take(o, vt->submit(p, &j, &id)); break;
    case A_P_BM_NULL: a[0].b_aux_density = NULL, take(o, vt->submit(p, &j, &id)); break;
    case A_P_BITLEN: a[0].a_aux_bit_len++, take(o, vt->submit(p, &j, &id)); break;
    case A_P_BM_VS_POP: {
      /* the popcount is right, but the bitmap has one bit moved: clear the first set
       * bit of b_aux and set the first clear one */
      size_t words = (size_t)(a[0].b_aux_bit_len + 63) / 64;
      uint64_t *bm = (uint64_t *)scratch_copy(a[0].b_aux_density, words * 8);
      tmp = (uint8_t *)bm;
      bool cleared = false, set = false;
      for (size_t i = 0; i < a[0].b_aux_bit_len && !(cleared && set); i++) {
        uint64_t bit = UINT64_C(1) << (i % 64);
        if (!cleared && (bm[i / 64] & bit))
          bm[i / 64] &= ~bit, cleared = true;
        else if (!set && !(bm[i / 64] & bit))
          bm[i / 64] |= bit, set = true;
      }
      a[0].b_aux_density = bm;
      take(o, vt->prove(p, &j));
      break;
    }
    case A_P_AUX_GE_R: {
      tmp = scratch_copy(a[0].aux_assignment, (size_t)a[0].aux_size * 32);
      memcpy(tmp + 32 * 5, fr_r_le, 32);
      a[0].aux_assignment = tmp;
      take(o, vt->prove(p, &j));
      break;
    }
    case A_P_INPUT0: {
      tmp = scratch_copy(a[0].inp_assignment, (size_t)a[0].inp_size * 32);
      memset(tmp, 0, 32), tmp[0] = 2;
      a[0].inp_assignment = tmp;
      take(o, vt->prove(p, &j));
      break;
    }
    case A_P_UNSAT: {
      tmp = scratch_copy(a[0].c, (size_t)a[0].abc_size * 32);
      uint8_t *cell = tmp + 32 * 7;
      bool zero = true;
      for (int i = 0; i < 32; i++) zero = zero && cell[i] == 0;
      memset(cell, 0, 32), cell[0] = zero;
      a[0].c = tmp;
      take(o, vt->prove(p, &j));
      break;
    }
    case A_P_MONT: take(o, prove_one(p, s, a, SEALPROV_SCALAR_MONTGOMERY)); break;
    case A_P_TWIN: a[0] = twin_spa->asg, take(o, vt->prove(p, &j)); break;
    case A_P_OTHER:
      a[1] = other_spa->asg, j.num_partitions = 2, take(o, vt->submit(p, &j, &id));
      break;
    case A_WAIT_UNKNOWN: take(o, vt->wait(p, 12345, 0)); break;
    case A_WAIT_ZERO: take(o, vt->wait(p, 0, 0)); break;
    case A_WAIT_TWICE:
      if (vt->submit(p, &j, &id) == SEALPROV_OK) vt->wait(p, id, -1);
      take(o, vt->wait(p, id, 0));
      break;
    case A_WAIT_DETACHED:
      j.flags = SEALPROV_JOB_DETACHED;
      if (vt->submit(p, &j, &id) == SEALPROV_OK)
        take(o, vt->wait(p, id, -1));
      else
        take(o, -1);
      break;
    case A_CANCEL_UNKNOWN: take(o, vt->cancel(p, 777)); break;
    case A_CANCEL_AFTER_WAIT:
      if (vt->submit(p, &j, &id) == SEALPROV_OK) vt->wait(p, id, -1);
      take(o, vt->cancel(p, id));
      break;
    case A_PROVE_DETACHED: j.flags = SEALPROV_JOB_DETACHED, take(o, vt->prove(p, &j)); break;
    case A_CLOSE_IN_CB:
    case A_WAIT_IN_CB: {
      cb_ctx x = {.p = p, .which = c->id, .status = -1};
      j.on_complete = nested_call;
      j.user = &x;
      if (vt->prove(p, &j) != SEALPROV_OK) {
        take(o, -1);
        break;
      }
      o->status = x.status;
      snprintf(o->msg, sizeof o->msg, "%s", x.msg);
      break;
    }
    case A_DEVICES_NULL: take(o, vt->devices(p, NULL, 0, NULL)); break;
    case A_DEVICES_OUT_NULL: take(o, vt->devices(p, NULL, 4, &n)); break;
    case A_STATS_NULL_LEN: take(o, vt->stats(p, buf, sizeof buf, NULL)); break;
    case A_TIMELINE_BUF_NULL: take(o, vt->timeline(p, NULL, 16, &n)); break;
    case A_QUEUE_FULL: {
      /* max_jobs = 1 (queue.ini): a second job while a 16-partition first one runs */
      vt->srs_release(s), vt->srs_release(v), s = v = NULL;
      vt->close(p);
      p = NULL;
      write_text("queue.ini",
                 "[provider]\nmax_jobs = 1\nlog_level = error\n[cpu0]\ntype = cpu\nthreads = 1\n");
      if (vt->open("queue.ini", &p) != SEALPROV_OK || vt->srs_load(p, "g/circuit.params", &s)) {
        take(o, 1000);
        break;
      }
      sealprov_assignment many[16];
      uint8_t out16[16 * SEALPROV_PROOF_BYTES];
      for (int i = 0; i < 16; i++) many[i] = good_spa[i % 2]->asg;
      sealprov_job big;
      base_job(&big, s, many, 16, out16);
      sealprov_job_id first = 0;
      if (vt->submit(p, &big, &first) != SEALPROV_OK) {
        take(o, 1000);
        break;
      }
      base_job(&j, s, a, 1, proofs);
      take(o, vt->submit(p, &j, &id));
      vt->wait(p, first, -1);
      if (o->status == SEALPROV_OK) vt->wait(p, id, -1);
      break;
    }
    case A_VK_PROVE: j.srs = v, take(o, vt->prove(p, &j)); break;

    /* ---- verify ---- */
    case V_ZERO: memset(proof, 0, sizeof proof); goto verify;
    case V_NOT_COMPRESSED: proof[0] &= 0x7f; goto verify;
    case V_A_INF: memset(proof, 0, 48), proof[0] = 0xc0; goto verify;
    case V_B_OFF_CURVE: /* the first low bit of x whose flip leaves no y on the twist, so
                         * the message does not depend on the random proof */
      for (int bit = 0; bit < 64; bit++) {
        uint8_t t[96];
        g2_affine_t q;
        memcpy(t, proof + 48, 96);
        t[95 - bit / 8] ^= (uint8_t)(1u << (bit % 8));
        if (g2_deserialize(&q, t, 96, 0) == BLS_ERR_NOT_ON_CURVE) {
          memcpy(proof + 48, t, 96);
          break;
        }
      }
      goto verify;
    case V_C_X_P: memcpy(proof + 144, fp_p_be, 48), proof[144] |= 0x80; goto verify;
    case V_A_NOSUB: memcpy(proof, nosub_g1_c, 48); goto verify;
    case V_OTHER_PARTITION: memcpy(proof, good_proof[1], sizeof proof); goto verify;
    case V_SWAPPED:
      memcpy(proof, good_proof[0] + 144, 48), memcpy(proof + 144, good_proof[0], 48);
      goto verify;
    case V_NUM_INPUTS: ninputs--; goto verify;
    case V_INPUT_GE_R:
      inputs = tmp = scratch_copy(inputs, 32 * ninputs), memcpy(tmp, fr_r_le, 32);
      goto verify;
    case V_INPUT_LAST_GE_R_MONT: /* r as Montgomery limbs is no element either */
      inputs = tmp = scratch_copy(inputs, 32 * ninputs),
      memcpy(tmp + 32 * (ninputs - 1), fr_r_le, 32);
      take(o, vt->verify(p, v, inputs, ninputs, SEALPROV_SCALAR_MONTGOMERY, proof, &valid));
      break;
    case V_INPUT_ALL_ONES:
      inputs = tmp = scratch_copy(inputs, 32 * ninputs), memset(tmp + 32, 0xff, 32);
      goto verify;
    case V_WITH_ONE: /* the .spa's inputs as they are: ONE first */
      inputs = (const uint8_t *)good_spa[0]->asg.inp_assignment, ninputs++;
      goto verify;
    case V_CANONICAL_AS_MONT: /* other numbers: checked, and the proof is not for them */
      take(o, vt->verify(p, v, inputs, ninputs, SEALPROV_SCALAR_MONTGOMERY, proof, &valid));
      break;
    case V_ENCODING: take(o, vt->verify(p, v, inputs, ninputs, 7, proof, &valid)); break;
    case V_NULL_PROOF: take(o, vt->verify(p, v, inputs, ninputs, 0, NULL, &valid)); break;
    case V_NULL_VK: take(o, vt->verify(p, NULL, inputs, ninputs, 0, proof, &valid)); break;
    case V_NULL_VALID: take(o, vt->verify(p, v, inputs, ninputs, 0, proof, NULL)); break;
    case V_NULL_INPUTS: take(o, vt->verify(p, v, NULL, ninputs, 0, proof, &valid)); break;
    case V_OTHER_VK: {
      sealprov_srs *ov = NULL;
      if (vt->vk_load(p, "t/circuit.vk", &ov) != SEALPROV_OK) {
        take(o, 1000);
        break;
      }
      take(o, vt->verify(p, ov, inputs, ninputs, 0, proof, &valid));
      vt->srs_release(ov);
      break;
    }
    verify:
      take(o, vt->verify(p, v, inputs, ninputs, SEALPROV_SCALAR_CANONICAL_LE, proof, &valid));
      break;

    /* ---- files changing under us ---- */
    case C_SPA_TRUNCATED:
    case C_SPA_REWRITTEN: {
      /* the host reads a .spa (sp_spa_read, as the CLI does), the file then changes,
       * and the job uses what was read */
      char err[512];
      write_bytes("moving.spa", good_spa[0]->map, good_spa[0]->map_len);
      sp_spa *m = NULL;
      if (sp_spa_read("moving.spa", &m, err, sizeof err) != SEALPROV_OK) {
        o->status = 1000;
        snprintf(o->msg, sizeof o->msg, "%s", err);
        break;
      }
      if (c->id == C_SPA_TRUNCATED) {
        if (truncate("moving.spa", 200) != 0) die("truncate", strerror(errno));
      } else {
        size_t len;
        uint8_t *b = build_spa(SM_UNSAT, true, &len);
        int fd = open("moving.spa", O_WRONLY);
        if (fd < 0 || pwrite(fd, b, len, 0) != (ssize_t)len) die("rewrite", "moving.spa");
        close(fd);
        free(b);
      }
      a[0] = m->asg;
      take(o, vt->prove(p, &j));
      sp_spa_free(m);
      break;
    }
    case C_PARAMS_UNLINKED: {
      /* loaded, then deleted: proving goes on from what was loaded */
      sealprov_srs *s2 = NULL;
      write_bytes("gone.params", good_params, good_params_len);
      if (vt->srs_load(p, "./gone.params", &s2) != SEALPROV_OK) {
        take(o, 1000);
        break;
      }
      unlink("gone.params");
      j.srs = s2;
      take(o, vt->prove(p, &j));
      vt->srs_release(s2);
      break;
    }
    case C_VK_TRUNCATED_AFTER: {
      sealprov_srs *v2 = NULL;
      write_bytes("short.vk", good_vk, good_vk_len);
      if (vt->vk_load(p, "./short.vk", &v2) != SEALPROV_OK) {
        take(o, 1000);
        break;
      }
      if (truncate("short.vk", 10) != 0) die("truncate", strerror(errno));
      take(o, vt->verify(p, v2, inputs, ninputs, 0, proof, &valid));
      vt->srs_release(v2);
      break;
    }
    case C_INI_CHANGED:
      /* the INI is read once, at open: rewriting it later changes nothing */
      write_text("live.ini", ok_ini_text);
      vt->close(p);
      p = NULL;
      if (vt->open("live.ini", &p) != SEALPROV_OK) {
        take(o, 1000);
        break;
      }
      write_text("live.ini", "garbage\n");
      if (vt->srs_load(p, "g/circuit.params", &s) != SEALPROV_OK) {
        take(o, 1000);
        break;
      }
      j.srs = s;
      take(o, vt->prove(p, &j));
      break;
    default: o->status = 999; snprintf(o->msg, sizeof o->msg, "no such ABI case %d", c->id);
  }
  o->valid = valid;
  free(tmp);
  vt->srs_release(s);
  vt->srs_release(v);
  if (p) vt->close(p);
}

/* ---- libsealprov_c2's conversions for C hosts ------------------------------------------------
 * Called through dlopen as a C host's loader would reach them: the built library of this
 * tree, whose c2_error messages are what a host reads. The inputs are two scalars (1 and
 * the bad one) and two proofs of the generators (the second one made bad), so that the
 * message names an index that is not 0. */
enum {
  C2_FR_OUT_NULL = 1,
  C2_FR_IN_NULL,
  C2_FR_R,
  C2_FR_MAX,
  C2_PR_OUT_NULL,
  C2_PR_NULL,
  C2_PR_A_P,
  C2_PR_B_P,
  C2_PR_C_P,
  C2_PR_A_OFF,
  C2_PR_B_OFF,
  C2_PR_C_OFF,
};

typedef c2_error (*c2_fr_fn)(c2_fr *out, const void *in, size_t n);
typedef c2_error (*c2_proof_fn)(uint8_t *out, const c2_groth16_proof proofs[], size_t n);

static void run_c2(const bcase *c, outcome *o) {
  char path[1100];
  snprintf(path, sizeof path, "%s/compat/.libs/libsealprov_c2.so", getenv("top_builddir"));
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  union {
    void *obj;
    c2_fr_fn fn;
  } fr = {.obj = dl ? dlsym(dl, "sealprov_c2_fr_from_canonical") : NULL};
  union {
    void *obj;
    c2_proof_fn fn;
  } pc = {.obj = dl ? dlsym(dl, "sealprov_c2_proof_compress") : NULL};
  if (fr.obj == NULL || pc.obj == NULL) {
    o->status = 1000;
    snprintf(o->msg, sizeof o->msg, "fixture: %s: %s", path, dl ? "no conversions" : dlerror());
    return;
  }
  uint8_t in[2][32] = {{1}};
  c2_fr out[2];
  g1_affine_t g1;
  g2_affine_t g2;
  g1_generator(&g1);
  g2_generator(&g2);
  c2_groth16_proof p[2];
  memcpy(&p[0].a, &g1, sizeof p[0].a);
  memcpy(&p[0].b, &g2, sizeof p[0].b);
  memcpy(&p[0].c, &g1, sizeof p[0].c);
  p[1] = p[0];
  uint8_t bytes[2 * SEALPROV_PROOF_BYTES];
  c2_error e;
  switch (c->id) {
    case C2_FR_OUT_NULL: e = fr.fn(NULL, in, 2); break;
    case C2_FR_IN_NULL: e = fr.fn(out, NULL, 2); break;
    case C2_FR_R:
      for (int i = 0; i < 32; i++) in[1][i] = (uint8_t)(BLS_R[i / 8] >> (8 * (i % 8)));
      e = fr.fn(out, in, 2);
      break;
    case C2_FR_MAX:
      memset(in[1], 0xFF, sizeof in[1]);
      e = fr.fn(out, in, 2);
      break;
    case C2_PR_OUT_NULL: e = pc.fn(NULL, p, 2); break;
    case C2_PR_NULL: e = pc.fn(bytes, NULL, 2); break;
    default:
      if (c->id == C2_PR_A_P) memcpy(p[1].a.x.l, BLS_P, sizeof p[1].a.x.l);
      if (c->id == C2_PR_B_P) memcpy(p[1].b.y.c1.l, BLS_P, sizeof p[1].b.y.c1.l);
      if (c->id == C2_PR_C_P) memcpy(p[1].c.y.l, BLS_P, sizeof p[1].c.y.l);
      if (c->id == C2_PR_A_OFF) p[1].a.y = p[1].a.x;
      if (c->id == C2_PR_B_OFF) p[1].b.y = p[1].b.x;
      if (c->id == C2_PR_C_OFF) p[1].c.y = p[1].c.x;
      e = pc.fn(bytes, p, 2);
  }
  o->status = e.code;
  snprintf(o->msg, sizeof o->msg, "%s", e.message != NULL ? e.message : "");
  free(e.message);
  dlclose(dl);
}

/* ---- the catalogue ---------------------------------------------------------------------------- */
#define ST(x) SEALPROV_##x
#define INI(what, text, st, ...) \
  { "INI", what, run_ini, text, 0, PSPEC(0), SEALPROV_ERR_##st, -1, {__VA_ARGS__}, 0, -1 }
#define INI_ID(what, id, st, ...) \
  { "INI", what, run_ini, NULL, id, PSPEC(0), SEALPROV_ERR_##st, -1, {__VA_ARGS__}, 0, -1 }
#define PAR(what, spec, st, ...) \
  { ".params", what, run_params, NULL, 0, spec, SEALPROV_ERR_##st, -1, {__VA_ARGS__}, 0, -1 }
#define PAR_PATH(what, path, st, ...) \
  { ".params", what, run_params, path, 0, PSPEC(0), SEALPROV_ERR_##st, -1, {__VA_ARGS__}, 0, -1 }
#define VK(what, spec, st, ...) \
  { ".vk", what, run_params, NULL, 1, spec, SEALPROV_ERR_##st, -1, {__VA_ARGS__}, 0, -1 }
#define VK_PATH(what, path, st, ...)                                                              \
  {                                                                                               \
    ".vk", what, run_params, path, 1, PSPEC(.vk = true), SEALPROV_ERR_##st, -1, {__VA_ARGS__}, 0, \
        -1                                                                                        \
  }
#define SPA(what, mut, fix, exitc, ...)                                            \
  {                                                                                \
    ".spa (CLI)", what, run_cli,                                                   \
        "prove -c ok.ini --params g/circuit.params --out bad.proofs bad.spa", mut, \
        PSPEC(.vk = fix), exitc, -1, {__VA_ARGS__}, F_CLI, -1                      \
  }
#define CLI(area, what, args, exitc, ...) \
  { area, what, run_cli, args, 0, PSPEC(0), exitc, -1, {__VA_ARGS__}, F_CLI, -1 }
#define ABI(what, id, st, ...) \
  { "ABI", what, run_abi, NULL, id, PSPEC(0), SEALPROV_##st, -1, {__VA_ARGS__}, 0, -1 }
#define PRF(what, id, st, valid, ...) \
  { "proof", what, run_abi, NULL, id, PSPEC(0), SEALPROV_##st, -1, {__VA_ARGS__}, 0, valid }
#define CHG(what, id, st, alt, ...)                                                                \
  {                                                                                                \
    "file changed under us", what, run_abi, NULL, id, PSPEC(0), SEALPROV_##st, alt, {__VA_ARGS__}, \
        0, -1                                                                                      \
  }
#define C2(what, id, ...)                                                                        \
  {                                                                                              \
    "libsealprov_c2 (C hosts)", what, run_c2, NULL, id, PSPEC(0), SEALPROV_ERR_INVALID_ARGUMENT, \
        -1, {__VA_ARGS__}, 0, -1                                                                 \
  }

#define HDR(off, g2, m) .where = -1, .hdr_off = off, .hdr_g2 = g2, .mut = m
#define PT(v, i, m) .where = v, .index = i, .mut = m

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const bcase cases[] = {
    /* ---- INI ---- */
    INI_ID("file does not exist", 1, IO, "missing.ini", "cannot open"),
    INI_ID("a directory", 2, IO, "adir"),
    INI_ID("a FIFO (not a regular file)", 3, IO, "a.fifo"),
    INI_ID("larger than 1 MiB", 4, CONFIG, "bad.ini", "larger than the 1 MiB"),
    INI_ID("a NUL byte in a line", 5, CONFIG, "bad.ini:2"),
    INI("empty file", "", CONFIG, "bad.ini", "no device section"),
    INI("only [provider]", "[provider]\nlog_level = info\n", CONFIG, "bad.ini",
        "no device section"),
    INI("line without `=`", "[cpu0]\ntype = cpu\nworkers 2\n", CONFIG, "bad.ini:3", "syntax error",
        "workers 2"),
    INI("key before any section", "workers = 2\n[cpu0]\ntype = cpu\n", CONFIG, "bad.ini:1",
        "workers"),
    INI("unknown device key", "[cpu0]\ntype = cpu\nworker = 2\n", CONFIG, "bad.ini:3", "[cpu0]",
        "worker", "unknown key"),
    INI("unknown [provider] key", "[provider]\nverbose = yes\n[cpu0]\ntype = cpu\n", CONFIG,
        "bad.ini:2", "[provider]", "verbose", "unknown key"),
    INI("misspelt [provider]", "[provder]\nlog_level = info\n[cpu0]\ntype = cpu\n", CONFIG,
        "bad.ini:2", "[provder]", "log_level"),
#ifdef SP_FAULT_INJECTION
    INI("unknown [testing] key", "[cpu0]\ntype = cpu\n[testing]\ninjekt = oom\n", CONFIG,
        "bad.ini:4", "[testing]", "injekt"),
#else
    INI("[testing] in a module built without fault injection",
        "[cpu0]\ntype = cpu\n[testing]\ninject_device = cpu0\ninject = fail_kernel\n", CONFIG,
        "bad.ini:3", "[testing]", "--enable-fault-injection"),
#endif
    INI("type missing", "[cpu0]\nworkers = 1\n[cpu1]\ntype = cpu\n", CONFIG, "bad.ini", "[cpu0]",
        "type", "missing"),
    INI("unknown type", "[dev0]\ntype = gpu\n", CONFIG, "bad.ini:2", "[dev0]", "type", "\"gpu\""),
    INI("quoted value", "[cpu0]\ntype = \"cpu\"\n", CONFIG, "bad.ini:2", "type", "\"cpu\""),
    INI("workers = 0", "[cpu0]\ntype = cpu\nworkers = 0\n", CONFIG, "bad.ini:3", "workers", "\"0\"",
        "1..64"),
    INI("workers = 65", "[cpu0]\ntype = cpu\nworkers = 65\n", CONFIG, "bad.ini:3", "workers",
        "\"65\"", "1..64"),
    INI("workers = -1", "[cpu0]\ntype = cpu\nworkers = -1\n", CONFIG, "bad.ini:3", "workers",
        "\"-1\"", "negative"),
    INI("workers = abc", "[cpu0]\ntype = cpu\nworkers = abc\n", CONFIG, "bad.ini:3", "workers",
        "\"abc\"", "not a number"),
    INI("workers = 0x2", "[cpu0]\ntype = cpu\nworkers = 0x2\n", CONFIG, "bad.ini:3", "workers",
        "\"0x2\""),
    INI("workers = 2;two (no blank before the comment)", "[cpu0]\ntype = cpu\nworkers = 2;two\n",
        CONFIG, "bad.ini:3", "workers", "\"2;two\""),
    INI("threads = 1025", "[cpu0]\ntype = cpu\nthreads = 1025\n", CONFIG, "bad.ini:3", "threads",
        "\"1025\""),
    INI("threads = 99999999999999999999 (overflows 64 bits)",
        "[cpu0]\ntype = cpu\nthreads = 99999999999999999999\n", CONFIG, "bad.ini:3", "threads",
        "99999999999999999999"),
    INI("memory_limit unit in the wrong case", "[cpu0]\ntype = cpu\nmemory_limit = 16gib\n", CONFIG,
        "bad.ini:3", "memory_limit", "\"16gib\"", "bad unit"),
    INI("memory_limit with a fraction", "[cpu0]\ntype = cpu\nmemory_limit = 1.5GiB\n", CONFIG,
        "bad.ini:3", "memory_limit", "\"1.5GiB\"", "fraction"),
    INI("memory_limit beyond 2^64-1 bytes", "[cpu0]\ntype = cpu\nmemory_limit = 16777216TiB\n",
        CONFIG, "bad.ini:3", "memory_limit", "\"16777216TiB\"", "too large"),
    INI("memory_limit without a number", "[cpu0]\ntype = cpu\nmemory_limit = GiB\n", CONFIG,
        "bad.ini:3", "memory_limit", "\"GiB\""),
    INI("pinned_staging = lots", "[cpu0]\ntype = cpu\npinned_staging = lots\n", CONFIG, "bad.ini:3",
        "pinned_staging", "\"lots\""),
    INI("staging_chunks = 17", "[cpu0]\ntype = cpu\nstaging_chunks = 17\n", CONFIG, "bad.ini:3",
        "staging_chunks", "\"17\"", "1..16"),
    INI("staging_chunk_size = 512KiB",
        "[provider]\nstaging_chunk_size = 512KiB\n[cpu0]\ntype = cpu\n", CONFIG, "bad.ini:2",
        "staging_chunk_size", "\"512KiB\"", "1MiB..4GiB"),
    INI("unseen_gpus = ignore", "[provider]\nunseen_gpus = ignore\n[cpu0]\ntype = cpu\n", CONFIG,
        "bad.ini:2", "unseen_gpus", "\"ignore\"", "error or skip"),
    INI("a GPU ordinal with unseen_gpus = skip",
        "[provider]\nunseen_gpus = skip\n[gpu0]\ntype = cuda\ndevice = 0\n", CONFIG, "bad.ini:5",
        "[gpu0]", "\"0\"", "uuid= or pci="),
    INI("params_validation_cache, a relative path",
        "[provider]\nparams_validation_cache = cache\n[cpu0]\ntype = cpu\n", CONFIG, "bad.ini:2",
        "params_validation_cache", "\"cache\"", "absolute folder"),
    INI("params_shared_image, a word it does not take",
        "[provider]\nparams_shared_image = on\n[cpu0]\ntype = cpu\n", CONFIG, "bad.ini:2",
        "params_shared_image", "\"on\"", "off, auto or an absolute folder"),
    INI("params_shared_image without validation records",
        "[provider]\nparams_shared_image = auto\nparams_validation_cache = off\n[cpu0]\ntype = "
        "cpu\n",
        CONFIG, "bad.ini:2", "params_shared_image", "\"auto\"", "params_validation_cache = off"),
    INI("boolean `maybe`", "[provider]\nverify_proofs = maybe\n[cpu0]\ntype = cpu\n", CONFIG,
        "bad.ini:2", "verify_proofs", "\"maybe\"", "not a boolean"),
    INI("log_level = loud", "[provider]\nlog_level = loud\n[cpu0]\ntype = cpu\n", CONFIG,
        "bad.ini:2", "log_level", "\"loud\""),
    INI("max_jobs = 0", "[provider]\nmax_jobs = 0\n[cpu0]\ntype = cpu\n", CONFIG, "bad.ini:2",
        "max_jobs", "\"0\""),
    INI("max_partitions = 100000001",
        "[provider]\nmax_partitions = 100000001\n[cpu0]\ntype = cpu\n", CONFIG, "bad.ini:2",
        "max_partitions", "\"100000001\""),
    INI("quarantine_after = 1001", "[provider]\nquarantine_after = 1001\n[cpu0]\ntype = cpu\n",
        CONFIG, "bad.ini:2", "quarantine_after", "\"1001\""),
    INI("max_attempts = 0", "[provider]\nmax_attempts = 0\n[cpu0]\ntype = cpu\n", CONFIG,
        "bad.ini:2", "max_attempts", "\"0\""),
    INI("timeline_events = 16777217",
        "[provider]\ntimeline_events = 16777217\n[cpu0]\ntype = cpu\n", CONFIG, "bad.ini:2",
        "timeline_events", "\"16777217\""),
    INI("load_threads = 1025", "[provider]\nload_threads = 1025\n[cpu0]\ntype = cpu\n", CONFIG,
        "bad.ini:2", "load_threads", "\"1025\""),
    INI("duplicate section", "[cpu0]\ntype = cpu\n[cpu1]\ntype = cpu\n[cpu0]\ntype = cpu\n", CONFIG,
        "bad.ini:5", "[cpu0]", "duplicate section"),
    INI("duplicate section, other case", "[cpu0]\ntype = cpu\n[CPU0]\ntype = cpu\n", CONFIG,
        "bad.ini:3", "duplicate section"),
    INI("[provider] twice", "[provider]\n[cpu0]\ntype = cpu\n[provider]\n", CONFIG, "bad.ini:4",
        "[provider]", "duplicate section"),
    INI("duplicate key", "[cpu0]\ntype = cpu\nworkers = 1\nworkers = 2\n", CONFIG, "bad.ini:4",
        "workers", "duplicate key"),
    INI("section name with a blank", "[cpu 0]\ntype = cpu\n", CONFIG, "bad.ini:1", "cpu 0"),
    INI("section name of 49 characters",
        "[c123456789012345678901234567890123456789012345678]\ntype = cpu\n", CONFIG, "bad.ini:1",
        "c1234567890"),
    INI("empty section name", "[]\ntype = cpu\n", CONFIG, "bad.ini:1"),
    INI("line longer than 198 characters",
        "[cpu0]\ntype = cpu\n; "
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nworkers = 1 ; "
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxx\nthreads = "
        "111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"
        "111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"
        "1111111111111111111111\n",
        CONFIG, "bad.ini:5"),
    INI("non-UTF-8 byte in a value", "[cpu0]\ntype = cp\xff\n", CONFIG, "bad.ini:2", "type"),
    INI("non-UTF-8 bytes in a section name", "[cpu\xfe\xfe]\ntype = cpu\n", CONFIG, "bad.ini:1"),
    INI("non-UTF-8 byte in a key", "[cpu0]\ntype = cpu\nwork\xc3\x28rs = 1\n", CONFIG, "bad.ini:3"),
    INI("cpu device with a selector", "[cpu0]\ntype = cpu\ndevice = 0\n", CONFIG, "bad.ini:3",
        "[cpu0]", "device", "no selector"),
    INI("cuda device without a selector", "[gpu0]\ntype = cuda\n", CONFIG, "bad.ini", "[gpu0]",
        "selector"),
    INI("bad GPU UUID", "[gpu0]\ntype = cuda\ndevice = uuid=GPU-1234\n", CONFIG, "bad.ini:3",
        "[gpu0]", "uuid=GPU-1234", "UUID"),
    INI("MIG instance as selector",
        "[gpu0]\ntype = cuda\ndevice = MIG-5b3a2c1d-0e4f-4a6b-8c7d-9e0f1a2b3c4d\n", CONFIG,
        "bad.ini:3", "[gpu0]", "MIG"),
    INI("bad PCI bus id", "[gpu0]\ntype = cuda\ndevice = pci=0000:65:00\n", CONFIG, "bad.ini:3",
        "[gpu0]", "pci=0000:65:00", "PCI"),
    INI("PCI device number above 1f", "[gpu0]\ntype = cuda\ndevice = pci=0000:65:20.0\n", CONFIG,
        "bad.ini:3", "pci=0000:65:20.0"),
    INI("ordinal 1024", "[gpu0]\ntype = cuda\ndevice = 1024\n", CONFIG, "bad.ini:3", "\"1024\""),
#ifdef SP_FAULT_INJECTION
    INI("[testing] names no device",
        "[cpu0]\ntype = cpu\n[testing]\ninject_device = gpu7\ninject = fail_kernel\n", CONFIG,
        "bad.ini:4", "inject_device", "\"gpu7\"", "no such device section"),
    INI("[testing] unknown fault",
        "[cpu0]\ntype = cpu\n[testing]\ninject_device = cpu0\ninject = explode\n", CONFIG,
        "bad.ini:5", "inject", "\"explode\""),
    INI("[testing] inject_count without inject",
        "[cpu0]\ntype = cpu\n[testing]\ninject_count = 2\n", CONFIG, "bad.ini", "inject_count"),
    INI("[testing] inject without inject_device", "[cpu0]\ntype = cpu\n[testing]\ninject = oom\n",
        CONFIG, "bad.ini", "inject_device"),
#endif

    /* ---- .params (srs_load) ---- */
    PAR_PATH("file does not exist", "./nofile.params", IO, "./nofile.params"),
    PAR_PATH("a bare name that is not in the parameter cache", "nofile.params", IO,
             "pcache/nofile.params", "FIL_PROOFS_PARAMETER_CACHE"),
    PAR_PATH("a directory", "./adir", IO, "./adir"),
    PAR_PATH("a FIFO", "./a.fifo", IO, "./a.fifo"),
    PAR_PATH("an empty path", "", INVALID_ARGUMENT, "empty path"),
    PAR("empty file", PSPEC(.cut = 0), PARAMS, "bad.params", "truncated", "0 bytes"),
    PAR("cut inside beta_g2 (500 bytes)", PSPEC(.cut = 500), PARAMS, "bad.params", "truncated",
        "500 bytes"),
    PAR("cut before ic_len (864 bytes)", PSPEC(.cut = 864), PARAMS, "bad.params", "ic"),
    PAR("cut inside ic[1]", PSPEC(.cut = 868 + 96 + 50), PARAMS, "bad.params", "ic"),
    PAR("cut inside h", PSPEC(.cut = 868 + 3 * 96 + 4 + 96 * 5 + 7), PARAMS, "bad.params", "h"),
    PAR("last byte missing", PSPEC(.cut = -2), PARAMS, "bad.params", "b_g2"),
    PAR("one byte after b_g2", PSPEC(.append = 1), PARAMS, "bad.params", "trailing"),
    PAR("ic_len = 0", PSPEC(.pts = {0, -1, -1, -1, -1, -1}), PARAMS, "bad.params", "vector ic",
        "empty", "864"),
    PAR("ic_len = 2^32-1", PSPEC(.decl = {0xffffffff, -1, -1, -1, -1, -1}), PARAMS, "bad.params",
        "ic", "4294967295"),
    PAR("h_len = 0", PSPEC(.pts = {-1, 0, -1, -1, -1, -1}), PARAMS, "bad.params", "vector h",
        "0 points"),
    PAR("h_len = 126 (not 2^k-1)", PSPEC(.pts = {-1, 126, -1, -1, -1, -1}), PARAMS, "bad.params",
        "vector h", "126 points"),
    PAR("l_len = 2^32-1", PSPEC(.decl = {-1, -1, 0xffffffff, -1, -1, -1}), PARAMS, "bad.params",
        "l", "4294967295"),
    PAR("a empty (a_len = 0)", PSPEC(.pts = {-1, -1, -1, 0, -1, -1}), PARAMS, "bad.params",
        "vector a", "0 points"),
    PAR("a_len < ic_len", PSPEC(.pts = {-1, -1, -1, 2, -1, -1}), PARAMS, "bad.params", "vector a",
        "2 points"),
    PAR("a_len > ic_len + l_len", PSPEC(.pts = {-1, -1, -1, 400, -1, -1}), PARAMS, "bad.params",
        "vector a", "400 points"),
    PAR("b_g1_len != b_g2_len", PSPEC(.pts = {-1, -1, -1, -1, -1, 10}), PARAMS, "bad.params",
        "b_g1", "b_g2"),
    PAR("b_g1_len > ic_len + l_len", PSPEC(.pts = {-1, -1, -1, -1, 400, 400}), PARAMS, "bad.params",
        "b_g1", "400"),
    PAR("alpha_g1 is the point at infinity", PSPEC(HDR(0, false, PM_INF)), PARAMS, "bad.params",
        "alpha_g1", "infinity"),
    PAR("alpha_g1 with the infinity flag and coordinates", PSPEC(HDR(0, false, PM_INF_FLAG)),
        PARAMS, "bad.params", "alpha_g1"),
    PAR("alpha_g1 with the compressed flag", PSPEC(HDR(0, false, PM_COMPRESSED)), PARAMS,
        "bad.params", "alpha_g1"),
    PAR("alpha_g1 with the sign flag", PSPEC(HDR(0, false, PM_SIGN)), PARAMS, "bad.params",
        "alpha_g1"),
    PAR("alpha_g1 x = p", PSPEC(HDR(0, false, PM_X_IS_P)), PARAMS, "bad.params", "alpha_g1"),
    PAR("alpha_g1 not on the curve", PSPEC(HDR(0, false, PM_OFF_CURVE)), PARAMS, "bad.params",
        "alpha_g1", "curve"),
    PAR("beta_g1 not in the subgroup", PSPEC(HDR(96, false, PM_NO_SUBGROUP)), PARAMS, "bad.params",
        "beta_g1", "subgroup"),
    PAR("beta_g2 not on the curve", PSPEC(HDR(192, true, PM_OFF_CURVE)), PARAMS, "bad.params",
        "beta_g2", "curve"),
    PAR("gamma_g2 is the point at infinity", PSPEC(HDR(384, true, PM_INF)), PARAMS, "bad.params",
        "gamma_g2", "infinity"),
    PAR("delta_g1 x = p", PSPEC(HDR(576, false, PM_X_IS_P)), PARAMS, "bad.params", "delta_g1"),
    PAR("delta_g2 with the compressed flag", PSPEC(HDR(672, true, PM_COMPRESSED)), PARAMS,
        "bad.params", "delta_g2"),
    PAR("ic[1] not on the curve", PSPEC(PT(V_IC, 1, PM_OFF_CURVE)), PARAMS, "bad.params", "ic",
        "1"),
    PAR("h[2] not on the curve", PSPEC(PT(V_H, 2, PM_OFF_CURVE)), PARAMS, "bad.params", "h", "2"),
    PAR("h[100] not in the subgroup", PSPEC(PT(V_H, 100, PM_NO_SUBGROUP)), PARAMS, "bad.params",
        "h", "100", "subgroup"),
    PAR("l[0] is the point at infinity", PSPEC(PT(V_L, 0, PM_INF)), PARAMS, "bad.params", "l",
        "infinity"),
    PAR("a[3] x = p", PSPEC(PT(V_A, 3, PM_X_IS_P)), PARAMS, "bad.params", "a", "3"),
    PAR("b_g1[0] not in the subgroup", PSPEC(PT(V_BG1, 0, PM_NO_SUBGROUP)), PARAMS, "bad.params",
        "b_g1", "subgroup"),
    PAR("b_g2[5] not on the curve", PSPEC(PT(V_BG2, 5, PM_OFF_CURVE)), PARAMS, "bad.params", "b_g2",
        "5"),
    PAR("b_g2[0] with the sign flag", PSPEC(PT(V_BG2, 0, PM_SIGN)), PARAMS, "bad.params", "b_g2"),
    PAR_PATH("a .vk file", "g/circuit.vk", PARAMS, "g/circuit.vk", "h"),
    PAR_PATH("a .spa file", "g/partition-00.spa", PARAMS, "g/partition-00.spa"),

    /* ---- .vk (vk_load) ---- */
    VK_PATH("file does not exist", "./nofile.vk", IO, "./nofile.vk"),
    VK_PATH("a directory", "./adir", IO, "./adir"),
    VK("empty file", PSPEC(.vk = true, .cut = 0), PARAMS, "bad.vk", "truncated", "0 bytes"),
    VK("cut inside ic", PSPEC(.vk = true, .cut = -50), PARAMS, "bad.vk", "ic"),
    VK("one byte after ic", PSPEC(.vk = true, .append = 1), PARAMS, "bad.vk", "trailing"),
    VK_PATH("a whole .params file", "g/circuit.params", PARAMS, "g/circuit.params"),
    VK("ic_len = 0", PSPEC(.vk = true, .pts = {0, -1, -1, -1, -1, -1}), PARAMS, "bad.vk",
       "vector ic", "empty"),
    VK("ic_len larger than the file", PSPEC(.vk = true, .decl = {4, -1, -1, -1, -1, -1}), PARAMS,
       "bad.vk", "ic"),
    VK("gamma_g2 not on the curve", PSPEC(.vk = true, HDR(384, true, PM_OFF_CURVE)), PARAMS,
       "bad.vk", "gamma_g2"),
    VK("delta_g2 is the point at infinity", PSPEC(.vk = true, HDR(672, true, PM_INF)), PARAMS,
       "bad.vk", "delta_g2", "infinity"),
    VK("alpha_g1 not in the subgroup", PSPEC(.vk = true, HDR(0, false, PM_NO_SUBGROUP)), PARAMS,
       "bad.vk", "alpha_g1", "subgroup"),
    VK("ic[2] x = p", PSPEC(.vk = true, PT(V_IC, 2, PM_X_IS_P)), PARAMS, "bad.vk", "ic", "2"),

    /* ---- .spa, through `sealprov prove` ---- */
    CLI(".spa (CLI)", "file does not exist",
        "prove -c ok.ini --params g/circuit.params --out bad.proofs nofile.spa", 2, "nofile.spa"),
    CLI(".spa (CLI)", "a directory",
        "prove -c ok.ini --params g/circuit.params --out bad.proofs adir", 2, "adir"),
    SPA("empty file", SM_EMPTY, false, 2, "bad.spa", "truncated"),
    SPA("header only (100 bytes)", SM_HEADER_ONLY, false, 2, "bad.spa", "100"),
    SPA("wrong magic", SM_MAGIC, false, 2, "bad.spa", "magic"),
    SPA("version 2", SM_VERSION, false, 2, "bad.spa", "version", "2"),
    SPA("scalar encoding 1", SM_ENCODING, false, 2, "bad.spa", "encoding", "1"),
    SPA("reserved field not 0", SM_RESERVED, false, 2, "bad.spa", "reserved"),
    SPA("wrong checksum", SM_CHECKSUM, false, 2, "bad.spa", "checksum"),
    SPA("last byte missing", SM_CUT_LAST, false, 2, "bad.spa"),
    SPA("8 bytes too many", SM_APPEND, true, 2, "bad.spa"),
    SPA("abc_size = 2^60 (sizes overflow)", SM_ABC_HUGE, true, 2, "bad.spa", "abc_size"),
    SPA("aux_size = 2^60-1 (sizes overflow)", SM_AUX_HUGE, true, 2, "bad.spa", "aux_size"),
    SPA("inp_size = 0", SM_INP_ZERO, true, 2, "bad.spa", "inp_size"),
    SPA("a_aux_bit_len != aux_size", SM_BITLEN, true, 2, "bad.spa", "a_aux 135", "aux_size 134"),
    SPA("a_aux_popcount off by one", SM_POPCOUNT, true, 2, "bad.spa", "a_aux_popcount"),
    SPA("a bit set past b_inp_bit_len", SM_BIT_PAST, true, 2, "bad.spa", "b_inp"),
    SPA("a[3] = r (not below the group order)", SM_A_GE_R, true, 2, "bad.spa", "a[3]"),
    SPA("aux[5] = r", SM_AUX_GE_R, true, 2, "bad.spa", "aux[5]"),
    SPA("input 0 is not ONE", SM_INPUT0, true, 1, "bad.spa", "ONE"),
    SPA("a[7]*b[7] != c[7]", SM_UNSAT, true, 1, "bad.spa", "7"),
    {".spa (CLI)",
     "input 0 is not ONE, as the witness of prove --r1cs",
     run_cli,
     "prove -c ok.ini --params g/circuit.params --r1cs g/circuit.r1cs --out bad.proofs bad.spa",
     SM_INPUT0,
     PSPEC(.vk = true),
     1,
     -1,
     {"bad.spa", "ONE"},
     F_CLI,
     -1},
    CLI(".spa (CLI)", "partition of another circuit (other sizes)",
        "prove -c ok.ini --params g/circuit.params --out bad.proofs o/partition-00.spa", 1,
        "o/partition-00.spa", "g/circuit.params"),
    CLI(".spa (CLI)", "partition of another setup with the same sizes",
        "prove -c ok.ini --params g/circuit.params --out bad.proofs t/partition-00.spa", 1,
        "t/partition-00.spa", "satisf"),
    CLI(".spa (CLI)", "a .params file given as a partition",
        "prove -c ok.ini --params g/circuit.params --out bad.proofs g/circuit.params", 2,
        "g/circuit.params", ".params parameter file", "partition files (.spa)"),

    /* ---- the kind of a file, told before it is parsed or loaded ---- */
    CLI("CLI files", "prove --params a .spa file",
        "prove -c ok.ini --params g/partition-00.spa --out x.proofs g/partition-00.spa", 2,
        "g/partition-00.spa", ".spa partition file", "--params takes a .params file"),
    CLI("CLI files", "prove --params a .vk file",
        "prove -c ok.ini --params g/circuit.vk --out x.proofs g/partition-00.spa", 2,
        "g/circuit.vk", ".vk verifying key", "--params takes a .params file"),
    CLI("CLI files", "prove --r1cs a .params file",
        "prove -c ok.ini --params g/circuit.params --r1cs g/circuit.params --out x.proofs "
        "g/partition-00.spa",
        2, "g/circuit.params", "--r1cs takes a circom .r1cs"),
    CLI("CLI files", "prove -c a .params file",
        "prove -c g/circuit.params --params g/circuit.params --out x.proofs g/partition-00.spa", 1,
        "g/circuit.params", "-c takes an INI file"),
    CLI("CLI files", "verify --vk a .params file",
        "verify --vk g/circuit.params --proofs g/two.proofs g/partition-00.spa g/partition-01.spa",
        2, "g/circuit.params", "--vk takes a .vk file"),
    CLI("CLI files", "verify --proofs a .spa file",
        "verify --vk g/circuit.vk --proofs g/partition-00.spa g/partition-00.spa", 2,
        "g/partition-00.spa", "--proofs takes a proof file"),
    CLI("CLI files", "prove --params: a truncated .params file (the header, before the load)",
        "prove -c ok.ini --params g/cut.params --out x.proofs g/partition-00.spa", 1,
        "g/cut.params", "vector h", "at byte 1156"),
    CLI("CLI files",
        "prove --params NAME: in neither the parameter cache nor the current directory",
        "prove -c ok.ini --params none.params --out x.proofs g/partition-00.spa", 1, "none.params",
        "pcache/none.params", "./none.params"),
    CLI("CLI files", "prove --params NAME: only in the current directory (a warning; it proves)",
        "prove -c ok.ini --params cwd.params --out cwd.proofs g/partition-00.spa", 0, "cwd.params",
        "not in the parameter cache", "./cwd.params"),
    CLI("CLI files", "an unknown option (a usage error: one line)", "devices -c ok.ini --bogus", 2,
        "--bogus", "`sealprov help devices`"),
    CLI("CLI files", "prove --device 5 with an INI of 2 devices (before the load)",
        "prove -c ok.ini --device 5 --params g/circuit.params --out x.proofs g/partition-00.spa", 2,
        "--device 5", "ok.ini has 2 devices"),
    CLI("CLI output", "prove --out into a directory that does not exist",
        "prove -c ok.ini --params g/circuit.params --out nodir/p.proofs g/partition-00.spa", 2,
        "nodir/p.proofs"),
    CLI("CLI output", "prove --out is a directory",
        "prove -c ok.ini --params g/circuit.params --out adir g/partition-00.spa", 2, "adir"),
    CLI("CLI output", "prove --out is the --params file",
        "prove -c ok.ini --params g/circuit.params --out g/circuit.params g/partition-00.spa", 2,
        "--out g/circuit.params", "--params file", "never replaces an input"),
    CLI("CLI output", "prove --out is a partition file, by another name",
        "prove -c ok.ini --params g/circuit.params --out ./g/partition-00.spa g/partition-00.spa",
        2, "./g/partition-00.spa", "partition file", "g/partition-00.spa, the same file"),
    CLI("CLI output", "prove --out over a file of another kind, without --force",
        "prove -c ok.ini --params g/circuit.params --out ok.ini.copy g/partition-00.spa", 2,
        "--out ok.ini.copy", "an INI file, not a proof file", "--force"),
    {"CLI output",
     "wtns of a partition whose input 0 is 2, not ONE",
     run_cli,
     "wtns bad.spa x.wtns",
     SM_INPUT0,
     PSPEC(.vk = true),
     1,
     -1,
     {"bad.spa", "not ONE"},
     F_CLI,
     -1},
    CLI("CLI output", "wtns OUT.wtns is its partition file",
        "wtns g/partition-00.spa g/partition-00.spa", 2, "g/partition-00.spa", "partition file"),
    {"CLI output",
     "prove with parameters that do not load",
     run_cli,
     "prove -c ok.ini --params ./nofile.params --out x.proofs g/partition-00.spa",
     0,
     PSPEC(0),
     2,
     1,
     {"./nofile.params"},
     F_CLI,
     -1},
    {"CLI output",
     "setup --out into a non-empty directory",
     run_cli,
     "setup --constraints 64 --inputs 2 --partitions 1 --out full",
     0,
     PSPEC(0),
     2,
     1,
     {"full", "not empty"},
     F_CLI,
     -1},
    {"CLI output",
     "prove -c with an INI that does not exist",
     run_cli,
     "prove -c missing.ini --params g/circuit.params --out x.proofs g/partition-00.spa",
     0,
     PSPEC(0),
     2,
     1,
     {"missing.ini"},
     F_CLI,
     -1},

    /* ---- proofs ---- */
    PRF("192 zero bytes", V_ZERO, ERR_INVALID_ARGUMENT, 0, "proof"),
    PRF("A without the compressed flag", V_NOT_COMPRESSED, ERR_INVALID_ARGUMENT, 0, "A"),
    PRF("A is the point at infinity", V_A_INF, ERR_INVALID_ARGUMENT, 0, "A", "infinity"),
    PRF("B with one bit of x flipped", V_B_OFF_CURVE, ERR_INVALID_ARGUMENT, 0, "B"),
    PRF("C with x = p", V_C_X_P, ERR_INVALID_ARGUMENT, 0, "C"),
    PRF("A not in the subgroup", V_A_NOSUB, ERR_INVALID_ARGUMENT, 0, "A", "subgroup"),
    PRF("the proof of another partition", V_OTHER_PARTITION, OK, 0, NULL),
    PRF("A and C swapped", V_SWAPPED, OK, 0, NULL),
    PRF("a verifying key of another circuit (same sizes)", V_OTHER_VK, OK, 0, NULL),
    PRF("num_inputs one short", V_NUM_INPUTS, ERR_INVALID_ARGUMENT, 0, "num_inputs 1",
        "g/circuit.vk"),
    PRF("input 0 = r", V_INPUT_GE_R, ERR_INVALID_ARGUMENT, 0, "input 0"),
    PRF("input 1 = r as Montgomery limbs (MONTGOMERY)", V_INPUT_LAST_GE_R_MONT,
        ERR_INVALID_ARGUMENT, 0, "input 1"),
    PRF("input 1 = 2^256 - 1", V_INPUT_ALL_ONES, ERR_INVALID_ARGUMENT, 0, "input 1"),
    PRF("the inputs with ONE in front (3 for 2)", V_WITH_ONE, ERR_INVALID_ARGUMENT, 0,
        "num_inputs 3", "g/circuit.vk"),
    PRF("canonical inputs declared MONTGOMERY", V_CANONICAL_AS_MONT, OK, 0, NULL),
    PRF("scalar_encoding 7", V_ENCODING, ERR_INVALID_ARGUMENT, 0, "scalar_encoding 7"),
    PRF("proof NULL", V_NULL_PROOF, ERR_INVALID_ARGUMENT, 0, "proof"),
    PRF("vk NULL", V_NULL_VK, ERR_INVALID_ARGUMENT, 0, "vk"),
    PRF("valid NULL", V_NULL_VALID, ERR_INVALID_ARGUMENT, -1, "valid"),
    PRF("inputs NULL with num_inputs 2", V_NULL_INPUTS, ERR_INVALID_ARGUMENT, 0, "inputs"),
    CLI("proof", "sealprov verify: proof file shorter than 192 bytes per partition",
        "verify --vk g/circuit.vk --proofs g/short.proofs g/partition-00.spa g/partition-01.spa", 2,
        "g/short.proofs", "192"),
    {"proof",
     "sealprov verify: input 0 of the partition is 2, not ONE",
     run_cli,
     "verify --vk g/circuit.vk --proofs g/two.proofs bad.spa g/partition-01.spa",
     SM_INPUT0,
     PSPEC(.vk = true),
     2,
     -1,
     {"bad.spa", "input 0 is 0x2, not ONE"},
     F_CLI,
     -1},
    CLI("proof", "sealprov verify: the proofs of other partitions",
        "verify --vk g/circuit.vk --proofs g/two.proofs g/partition-01.spa g/partition-00.spa", 1,
        NULL),

    /* ---- ABI ---- */
    ABI("init with a newer major", A_INIT_MAJOR_NEWER, ERR_ABI_VERSION,
        "built for sealprov ABI 2.3", "implements ABI 1."),
    ABI("init with an older major", A_INIT_MAJOR_OLDER, ERR_ABI_VERSION,
        "built for sealprov ABI 0.9", "implements ABI 1."),
    ABI("init with out NULL", A_INIT_NULL_OUT, ERR_INVALID_ARGUMENT, "out"),
    ABI("open(NULL path)", A_OPEN_NULL_PATH, ERR_INVALID_ARGUMENT, "ini_path"),
    ABI("open(out NULL)", A_OPEN_NULL_OUT, ERR_INVALID_ARGUMENT, "out"),
    ABI("close(NULL)", A_CLOSE_NULL, ERR_INVALID_ARGUMENT, "close", "provider"),
    ABI("close() twice", A_CLOSE_TWICE, ERR_INVALID_ARGUMENT, "close", "provider"),
    ABI("close() of memory that is no provider", A_CLOSE_FOREIGN, ERR_INVALID_ARGUMENT, "close",
        "provider"),
    ABI("verify() with a foreign provider and key", A_VERIFY_FOREIGN, ERR_INVALID_ARGUMENT,
        "verify", "provider"),
    ABI("srs_load() after close()", A_SRS_AFTER_CLOSE, ERR_INVALID_ARGUMENT, "srs_load",
        "provider"),
    ABI("submit() after close()", A_SUBMIT_AFTER_CLOSE, ERR_INVALID_ARGUMENT, "submit", "provider"),
    ABI("wait() after close()", A_WAIT_AFTER_CLOSE, ERR_INVALID_ARGUMENT, "wait", "provider"),
    ABI("devices() after close()", A_DEVICES_AFTER_CLOSE, ERR_INVALID_ARGUMENT, "devices",
        "provider"),
    ABI("stats() after close()", A_STATS_AFTER_CLOSE, ERR_INVALID_ARGUMENT, "stats", "provider"),
    ABI("srs_load(NULL path)", A_SRS_NULL_PATH, ERR_INVALID_ARGUMENT, "srs_load", "path"),
    ABI("srs_load(out NULL)", A_SRS_NULL_OUT, ERR_INVALID_ARGUMENT, "srs_load", "out"),
    ABI("srs_load(\"\")", A_SRS_EMPTY_PATH, ERR_INVALID_ARGUMENT, "empty path"),
    ABI("submit(NULL job)", A_SUBMIT_NULL_JOB, ERR_INVALID_ARGUMENT, "job"),
    ABI("submit(id NULL)", A_SUBMIT_NULL_ID, ERR_INVALID_ARGUMENT, "id"),
    ABI("job->struct_size = 0", A_JOB_SIZE_0, ERR_INVALID_ARGUMENT, "struct_size 0"),
    ABI("job->flags with an unknown bit", A_JOB_FLAGS, ERR_INVALID_ARGUMENT, "flags", "0x100"),
    ABI("job->srs NULL", A_JOB_SRS_NULL, ERR_INVALID_ARGUMENT, "job->srs"),
    ABI("job->srs from vk_load()", A_JOB_SRS_VK, ERR_INVALID_ARGUMENT, "g/circuit.vk", "vk_load"),
    ABI("job->num_partitions = 0", A_JOB_NPARTS_0, ERR_INVALID_ARGUMENT, "num_partitions"),
    ABI("job->num_partitions above max_partitions", A_JOB_NPARTS_MAX, ERR_INVALID_ARGUMENT,
        "num_partitions 2000", "max_partitions"),
    ABI("job->partitions NULL", A_JOB_PARTS_NULL, ERR_INVALID_ARGUMENT, "partitions"),
    ABI("job->proofs_out NULL", A_JOB_PROOFS_NULL, ERR_INVALID_ARGUMENT, "proofs_out"),
    ABI("job->scalar_encoding 7", A_JOB_ENCODING, ERR_INVALID_ARGUMENT, "scalar_encoding 7"),
    ABI("job->device_mask naming device 5 of 2", A_JOB_DEVICE_MASK, ERR_INVALID_ARGUMENT,
        "device_mask", "device 5"),
    ABI("srs_load() when every device's memory_limit is too small", A_SRS_NO_ROOM,
        ERR_DEVICE_MEMORY, "srs_load: no device of this provider has the memory",
        "g/circuit.params", "may use 8192 bytes", "memory_limit = "),
    ABI("job->device_mask naming only a device too small", A_JOB_MASK_NO_ROOM, ERR_DEVICE_MEMORY,
        "submit: no device the job allows has the memory", "(small) needs", "memory_limit = "),
    ABI("FIXED_RS without r", A_JOB_FIXED_NO_R, ERR_INVALID_ARGUMENT, "FIXED_RS", "r"),
    ABI("r and s without FIXED_RS", A_JOB_R_NO_FLAG, ERR_INVALID_ARGUMENT, "FIXED_RS"),
    ABI("fixed r = the group order", A_JOB_R_GE_R, ERR_INVALID_ARGUMENT, "r"),
    ABI("abc_size larger than the domain", A_P_ABC_BIG, ERR_ASSIGNMENT, "partition 0", "abc_size",
        "1048576", "g/circuit.params"),
    ABI("inp_size one short", A_P_INP_SIZE, ERR_ASSIGNMENT, "partition 0", "inp_size",
        "g/circuit.params"),
    ABI("aux_size one short", A_P_AUX_SIZE, ERR_ASSIGNMENT, "partition 0", "aux_size",
        "g/circuit.params"),
    ABI("a_aux_popcount one short", A_P_A_POP, ERR_ASSIGNMENT, "partition 0", "a_aux_popcount"),
    ABI("b_aux_popcount one more", A_P_B_POP, ERR_ASSIGNMENT, "partition 0", "b_aux_popcount"),
    ABI("a NULL", A_P_A_NULL, ERR_INVALID_ARGUMENT, "partition 0", "a"),
    ABI("c NULL", A_P_C_NULL, ERR_INVALID_ARGUMENT, "partition 0", "c"),
    ABI("inp_assignment NULL", A_P_INP_NULL, ERR_INVALID_ARGUMENT, "partition 0", "inp_assignment"),
    ABI("aux_assignment NULL", A_P_AUX_NULL, ERR_INVALID_ARGUMENT, "partition 0", "aux_assignment"),
    ABI("b_aux_density NULL", A_P_BM_NULL, ERR_INVALID_ARGUMENT, "partition 0", "b_aux_density"),
    ABI("a_aux_bit_len != aux_size", A_P_BITLEN, ERR_ASSIGNMENT, "partition 0", "a_aux_bit_len"),
    ABI("b_aux bitmap disagrees with the parameters (popcount right)", A_P_BM_VS_POP,
        ERR_ASSIGNMENT, "partition 0"),
    ABI("aux[5] = r (not below the group order)", A_P_AUX_GE_R, ERR_ASSIGNMENT, "partition 0",
        "aux", "5"),
    ABI("input 0 is not ONE", A_P_INPUT0, ERR_ASSIGNMENT, "partition 0", "ONE"),
    ABI("a[7]*b[7] != c[7]", A_P_UNSAT, ERR_ASSIGNMENT, "partition 0", "7"),
    ABI("canonical scalars declared MONTGOMERY", A_P_MONT, ERR_ASSIGNMENT, "partition 0"),
    ABI("partition of another setup with the same sizes", A_P_TWIN, ERR_ASSIGNMENT, "partition 0",
        "satisf"),
    ABI("partition 1 of another circuit (other sizes)", A_P_OTHER, ERR_ASSIGNMENT, "partition 1",
        "g/circuit.params"),
    ABI("a job on a verifying key (prove)", A_VK_PROVE, ERR_INVALID_ARGUMENT, "vk_load"),
    ABI("wait() on an unknown id", A_WAIT_UNKNOWN, ERR_NOT_FOUND, "12345"),
    ABI("wait() on id 0", A_WAIT_ZERO, ERR_NOT_FOUND, "job 0"),
    ABI("wait() twice", A_WAIT_TWICE, ERR_NOT_FOUND, "job 1"),
    ABI("wait() on a DETACHED job", A_WAIT_DETACHED, ERR_NOT_FOUND, "DETACHED"),
    ABI("cancel() of an unknown id", A_CANCEL_UNKNOWN, ERR_NOT_FOUND, "777"),
    ABI("cancel() after wait()", A_CANCEL_AFTER_WAIT, ERR_NOT_FOUND, "job 1"),
    ABI("prove() with DETACHED", A_PROVE_DETACHED, ERR_INVALID_ARGUMENT, "DETACHED"),
    ABI("close() from on_complete", A_CLOSE_IN_CB, ERR_INVALID_ARGUMENT, "close", "callback"),
    ABI("wait() from on_complete", A_WAIT_IN_CB, ERR_INVALID_ARGUMENT, "wait", "callback"),
    ABI("devices(count NULL)", A_DEVICES_NULL, ERR_INVALID_ARGUMENT, "count"),
    ABI("devices(out NULL, cap 4)", A_DEVICES_OUT_NULL, ERR_INVALID_ARGUMENT, "out"),
    ABI("stats(len NULL)", A_STATS_NULL_LEN, ERR_INVALID_ARGUMENT, "len"),
    ABI("timeline(buf NULL, cap 16)", A_TIMELINE_BUF_NULL, ERR_INVALID_ARGUMENT, "buf"),
    ABI("a second job beyond max_jobs = 1", A_QUEUE_FULL, ERR_QUEUE_FULL, "max_jobs = 1",
        "queue.ini"),

    /* ---- files changing under us ---- */
    CHG("a .spa truncated after the host read it, before the job ran", C_SPA_TRUNCATED, OK, -1,
        NULL),
    CHG("a .spa rewritten in place (c[7] changed) after the host read it", C_SPA_REWRITTEN, OK,
        SEALPROV_ERR_ASSIGNMENT, NULL),
    CHG("a .params deleted after srs_load()", C_PARAMS_UNLINKED, OK, -1, NULL),
    CHG("a .vk truncated after vk_load()", C_VK_TRUNCATED_AFTER, OK, -1, NULL),
    CHG("the INI rewritten after open()", C_INI_CHANGED, OK, -1, NULL),

    /* ---- libsealprov_c2's conversions (sealprov_c2.h) ---- */
    C2("fr_from_canonical: out NULL", C2_FR_OUT_NULL, "sealprov_c2_fr_from_canonical",
       "out is NULL"),
    C2("fr_from_canonical: in NULL", C2_FR_IN_NULL, "sealprov_c2_fr_from_canonical", "in is NULL"),
    C2("fr_from_canonical: scalar 1 is r", C2_FR_R, "scalar 1 of 2",
       "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"),
    C2("fr_from_canonical: scalar 1 is 2^256 - 1", C2_FR_MAX, "scalar 1 of 2", "0xffffffff"),
    C2("proof_compress: out NULL", C2_PR_OUT_NULL, "sealprov_c2_proof_compress", "out is NULL"),
    C2("proof_compress: proofs NULL", C2_PR_NULL, "sealprov_c2_proof_compress", "proofs is NULL"),
    C2("proof_compress: proof 1's A.x = p", C2_PR_A_P, "proof 1 of 2", "A has a coordinate >= p"),
    C2("proof_compress: proof 1's B.y.c1 = p", C2_PR_B_P, "proof 1 of 2",
       "B has a coordinate >= p"),
    C2("proof_compress: proof 1's C.y = p", C2_PR_C_P, "proof 1 of 2", "C has a coordinate >= p"),
    C2("proof_compress: proof 1's A off the curve (y = x)", C2_PR_A_OFF, "proof 1 of 2",
       "A is not on the curve"),
    C2("proof_compress: proof 1's B off the curve (y = x)", C2_PR_B_OFF, "proof 1 of 2",
       "B is not on the curve"),
    C2("proof_compress: proof 1's C off the curve (y = x)", C2_PR_C_OFF, "proof 1 of 2",
       "C is not on the curve"),
};
#pragma GCC diagnostic pop
#define NCASES (sizeof cases / sizeof cases[0])

/* ---- running and checking ------------------------------------------------------------------- */
static void run_case(const bcase *c, outcome *o) {
  memset(o, 0, sizeof *o);
  o->valid = -1;
  int fd[2];
  if (pipe(fd) != 0) die("pipe", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) die("fork", strerror(errno));
  if (pid == 0) {
    close(fd[0]);
    alarm(CASE_TIMEOUT); /* a case that hangs (e.g. blocks opening a FIFO) dies of SIGALRM */
    outcome r;
    memset(&r, 0, sizeof r);
    r.valid = -1;
    c->run(c, &r);
    ssize_t w = write(fd[1], &r, sizeof r);
    _exit(w == (ssize_t)sizeof r ? 0 : 3);
  }
  close(fd[1]);
  size_t got = 0;
  while (got < sizeof *o) {
    ssize_t k = read(fd[0], (char *)o + got, sizeof *o - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fd[0]);
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(ws)) {
    o->signal = WTERMSIG(ws);
    o->status = -1;
    snprintf(o->msg, sizeof o->msg, "the process died of signal %d (%s)", o->signal,
             strsignal(o->signal));
  } else if (got != sizeof *o) {
    o->status = -1;
    snprintf(o->msg, sizeof o->msg, "the case's process exited %d without a result",
             WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
  }
}

static const char *status_text(const bcase *c, int st, char *buf, size_t len) {
  if (c->flags & F_CLI)
    snprintf(buf, len, "exit %d", st);
  else if (st >= 0 && st < SEALPROV_STATUS_COUNT_)
    snprintf(buf, len, "%s", status_names[st]);
  else
    snprintf(buf, len, "%d", st);
  return buf;
}

/* Returns NULL when the outcome is right, else why not. */
static const char *judge(const bcase *c, const outcome *o, char *why, size_t len) {
  char a[32], b[32];
  if (o->signal == SIGALRM)
    return snprintf(why, len, "hangs (killed after %d s)", CASE_TIMEOUT), why;
  if (o->signal) return snprintf(why, len, "crashed (signal %d)", o->signal), why;
  if (o->status != c->want && !(c->want_alt >= 0 && o->status == c->want_alt))
    return snprintf(why, len, "status %s, expected %s", status_text(c, o->status, a, sizeof a),
                    status_text(c, c->want, b, sizeof b)),
           why;
  if (!utf8_valid(o->msg)) return snprintf(why, len, "the message is not valid UTF-8"), why;
  if (o->printed_ok)
    return snprintf(why, len, "the CLI failed, but its table calls a partition \"ok\""), why;
  if (c->want_valid >= 0 && o->valid != c->want_valid)
    return snprintf(why, len, "*valid = %d, expected %d", o->valid, c->want_valid), why;
  if (o->status == 0 && !(c->flags & F_CLI)) return NULL;
  if (o->msg[0] == '\0' && !(c->flags & F_CLI && o->status == 1 && c->names[0] == NULL))
    return snprintf(why, len, "no message"), why;
  for (int i = 0; i < 4 && c->names[i]; i++)
    if (strstr(o->msg, c->names[i]) == NULL)
      return snprintf(why, len, "the message does not name \"%s\"", c->names[i]), why;
  return NULL;
}

/* Markdown: the message as a code span, | escaped, one line. */
static void md_code(FILE *f, const char *s) {
  if (*s == '\0') {
    fputs("(none)", f);
    return;
  }
  bool tick = strchr(s, '`') != NULL;
  fputs(tick ? "`` " : "`", f);
  for (; *s; s++) {
    if (*s == '|')
      fputs("\\|", f);
    else if (*s == '\n')
      fputs(" ⏎ ", f);
    else
      fputc(*s, f);
  }
  fputs(tick ? " ``" : "`", f);
}

static void md_text(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '|')
      fputs("\\|", f);
    else
      fputc(*s, f);
  }
}

static void print_markdown(FILE *f, const outcome *res) {
  fprintf(f,
          "# Bad inputs and what sealprov says\n\n"
          "<!-- Generated by tests/abi/test_bad_inputs.c (--markdown); do not edit.\n"
          "     Regenerate with: dev/soak.sh errors-doc -->\n\n"
          "Every row is a case that `tests/abi/test_bad_inputs` runs in `make check`: one\n"
          "bad input given to the module through its vtable (as a host does, after `dlopen`), or\n"
          "to the `sealprov` CLI where the input is a command-line argument, or to the\n"
          "conversions that `libsealprov_c2` offers C hosts (`sealprov_c2_*`, docs/integration.md\n"
          "section 8; their message is the `c2_error` the call returns). The test asserts the\n"
          "status (for the CLI, the exit code: 1 the work failed, 2 bad usage or unreadable\n"
          "input), that the message is valid UTF-8, and that it names the file, field and value\n"
          "at fault (the substrings the test looks for are in its source). Messages are the\n"
          "module's `last_error()` text (the CLI's stderr); paths are relative to the test's\n"
          "scratch directory, where `g/` holds a valid setup of %d constraints and %d public\n"
          "inputs, `t/` another circuit with the same sizes, `o/` a smaller one, and `ok.ini`\n"
          "two CPU devices.\n\n"
          "Statuses are the `SEALPROV_ERR_*` codes of `include/sealprov.h` (see docs/abi.md).\n"
          "A row marked ✗ is a known defect: the test expects another status, or a message\n"
          "that names more, and fails until it is fixed. A case that hangs is killed after\n"
          "%d s.\n\n",
          CONSTRAINTS, INPUTS, CASE_TIMEOUT);
  const char *area = "";
  unsigned k = 0;
  for (size_t i = 0; i < NCASES; i++) {
    const bcase *c = &cases[i];
    if (strcmp(area, c->area) != 0) {
      area = c->area;
      fprintf(f, "\n## %s\n\n| # | bad input | status | message |\n|---|---|---|---|\n", area);
    }
    char st[32], why[256];
    bool bad = judge(c, &res[i], why, sizeof why) != NULL;
    fprintf(f, "| %u | ", ++k);
    md_text(f, c->input);
    if (res[i].signal == SIGALRM)
      fprintf(f, " | hangs (killed after %d s)", CASE_TIMEOUT);
    else if (res[i].signal)
      fprintf(f, " | crashes (signal %d, %s)", res[i].signal, strsignal(res[i].signal));
    else
      fprintf(f, " | %s", status_text(c, res[i].status, st, sizeof st));
    if (bad && (res[i].signal || strncmp(why, "status", 6) == 0)) {
      char want[32];
      fprintf(f, " ✗ (expected %s)", status_text(c, c->want, want, sizeof want));
    } else if (bad) {
      fputs(" ✗ (", f);
      md_text(f, why);
      fputs(")", f);
    }
    if (c->want_valid >= 0 && res[i].status == 0) fprintf(f, ", valid = %d", res[i].valid);
    if (res[i].printed_ok) fputs(" (stdout calls a partition \"ok\")", f);
    fputs(" | ", f);
    md_code(f, res[i].msg);
    fputs(" |\n", f);
  }
}

static bool same_as_file(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  bool same = true;
  for (size_t i = 0; i < len && same; i++) same = fgetc(f) == (unsigned char)text[i];
  same = same && fgetc(f) == EOF;
  fclose(f);
  return same;
}

int main(int argc, char **argv) {
  bool markdown = false, list = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--markdown"))
      markdown = true;
    else if (!strcmp(argv[i], "--list"))
      list = true;
    else {
      fprintf(stderr, "usage: test_bad_inputs [--markdown | --list]\n");
      return 2;
    }
  }
  plugin_path = getenv("SEALPROV_PLUGIN");
  const char *top = getenv("top_builddir");
  if (!plugin_path || !*plugin_path) die("SEALPROV_PLUGIN", "not set (make check sets it)");
  if (!top || !*top) die("top_builddir", "not set (make check sets it)");
  snprintf(cli_path, sizeof cli_path, "%s/tools/sealprov", top);
  if (access(cli_path, X_OK) != 0) die("no CLI", cli_path);
  void *dl = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
  if (!dl) die("dlopen", dlerror());
  union {
    void *obj;
    sealprov_provider_init_fn fn;
  } sym = {.obj = dlsym(dl, SEALPROV_ENTRY_SYMBOL)};
  if (!sym.obj || sym.fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, NULL, &vt) != SEALPROV_OK)
    die("init", plugin_path);

  const char *t = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/sp_bad_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmp_root)) die("mkdtemp", tmp_root);
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) die("getcwd", strerror(errno));
  if (chdir(tmp_root) != 0) die("chdir", tmp_root);
  /* where bare .params names are looked up: a folder of the scratch directory */
  if (setenv("FIL_PROOFS_PARAMETER_CACHE", "pcache", 1) != 0) die("setenv", strerror(errno));
  make_fixtures();

  /* The proofs the verify cases start from: partitions 0 and 1, through the CLI. */
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "'%s' --plugin '%s' -q prove -c ok.ini --params g/circuit.params "
           "--out g/two.proofs g/partition-00.spa g/partition-01.spa >/dev/null",
           cli_path, plugin_path);
  if (system(cmd) != 0) die("fixture", "sealprov prove of g/ failed");
  size_t plen = 0;
  uint8_t *pr = read_all("g/two.proofs", &plen);
  if (plen != 2 * SEALPROV_PROOF_BYTES) die("fixture", "g/two.proofs");
  memcpy(good_proof, pr, plen);
  write_bytes("g/short.proofs", pr, plen - 1);
  free(pr);
  /* the first 5000 bytes of the parameters (the vector h is cut), and an INI file where
   * a proof file is expected */
  size_t cut = good_params_len < 5000 ? good_params_len : 5000;
  write_bytes("g/cut.params", good_params, cut);
  write_text("ok.ini.copy", ok_ini_text);
  write_bytes("cwd.params", good_params, good_params_len); /* a bare name, not in pcache/ */

  outcome *res = calloc(NCASES, sizeof *res);
  if (!res) die("results", "out of memory");
  unsigned failed = 0;
  for (size_t i = 0; i < NCASES; i++) {
    run_case(&cases[i], &res[i]);
    char why[300], st[32];
    const char *bad = judge(&cases[i], &res[i], why, sizeof why);
    if (bad) {
      failed++;
      fprintf(stderr, "FAIL %zu [%s] %s: %s\n     message: %s\n", i + 1, cases[i].area,
              cases[i].input, bad, res[i].msg);
    }
    if (list)
      fprintf(stderr, "%3zu %-12s %-60s %-18s %s\n", i + 1, cases[i].area, cases[i].input,
              status_text(&cases[i], res[i].status, st, sizeof st), res[i].msg);
  }
  fprintf(stderr, "test_bad_inputs: %zu cases, %u failed\n", (size_t)NCASES, failed);

  int rc = failed ? EXIT_FAILURE : EXIT_SUCCESS;
  if (markdown) print_markdown(stdout, res);
  const char *doc = getenv("SEALPROV_ERRORS_DOC");
  if (doc && *doc) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) die("memstream", strerror(errno));
    print_markdown(m, res);
    fclose(m);
    char full[8192];
    snprintf(full, sizeof full, "%s%s%s", doc[0] == '/' ? "" : cwd, doc[0] == '/' ? "" : "/", doc);
    if (!same_as_file(full, text, len)) {
      fprintf(stderr,
              "test_bad_inputs: %s is not what the cases say now; regenerate it (the "
              "command is at its top)\n",
              full);
      rc = EXIT_FAILURE;
    }
    free(text);
  }

  for (int i = 0; i < 2; i++) sp_spa_free(good_spa[i]);
  sp_spa_free(other_spa);
  sp_spa_free(twin_spa);
  free(good_params);
  free(good_vk);
  free(res);
  if (chdir(cwd) != 0) fprintf(stderr, "cannot go back to %s\n", cwd);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  return rc;
}
