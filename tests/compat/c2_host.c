/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_host.c -- a supraseal-c2 caller against libsealprov_c2 (tests/compat/c2.sh runs it).
 *
 *   c2_host DIR            DIR holds circuit.params, circuit.vk and partition-00..09.spa
 *                          from `sealprov setup`; SEALPROV_PLUGIN and SEALPROV_CONFIG name
 *                          the module and a CPU-device INI.
 *   c2_host --load-error PARAMS WORD
 *                          create_SRS(PARAMS) must fail with a message containing WORD
 *                          (run with a wrong SEALPROV_PLUGIN or SEALPROV_CONFIG).
 *   c2_host --concurrent DIR
 *                          four threads prove at once through an INI with max_jobs = 1.
 *   c2_host --dump DIR OUT the same job, in the memory form the callers pass, and the
 *                          vtable's proofs as affine points, for tests/compat/rust_host.rs.
 *   c2_host --pin DIR      (SEALPROV_C2_ARGS=8) only Curio's 8-argument calls: gpu_index
 *                          0, 1 and -1 with and without a mutex from create_gpu_mutex
 *                          give the right proofs, an index past the table and -2 give
 *                          error structs; c2.sh reads where each job ran from the
 *                          library's info lines on stderr.
 *   c2_host --pin-split DIR
 *                          (SEALPROV_C2_ARGS unset) the split API's gpu_index 0, 1 and
 *                          -1, read whatever SEALPROV_C2_ARGS says; bad indices.
 *   c2_host --stale DIR    handles passed again after they ended: a dropped SRS, a
 *                          destroyed mutex, a finalized or destroyed pending proof; and
 *                          evict_SRS, clone_SRS and proving calls racing drop_SRS and
 *                          destroy_gpu_mutex on other threads (run under ASan and TSan
 *                          by dev/run test-san).
 *   c2_host --sync-error PARAMS WORD
 *                          generate_groth16_proofs_c must fail with WORD (a wrong
 *                          SEALPROV_C2_ARGS).
 *   c2_host --child DIR    only the calls of a daemon's per-proof child: create_SRS and
 *                          one 6-argument generate_groth16_proofs_c. The reference proofs
 *                          come from SEALPROV_C2_REF_CONFIG when set (a CPU-device INI,
 *                          while SEALPROV_CONFIG names the child's GPUs), else
 *                          SEALPROV_CONFIG.
 *
 * The functions are declared here as upstream's Rust extern blocks declare them (6-argument
 * generate_groth16_proofs_c, SRS& as a pointer, errors by value); Curio's forms are in
 * c2_curio.c (current Curio) and c2_curio7.c. The reference proofs come from the module's own vtable
 * (dlopen, canonical scalars straight from the .spa files, the same r and s); the
 * library's affine Montgomery output is compressed back and compared byte for byte, and
 * every proof is checked with the module's verifier. Helpers (reading .spa files,
 * Montgomery conversion, compression) come from the module's internal libraries. */
#include "bls12_381/bls12_381.h"
#include "c2_host.h"
#include "sealprov.h"
#include "spa.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* upstream supra_seal c2/src/lib.rs */
extern rs_error create_SRS(rs_srs *ret, const char *srs_path, bool cache);
extern void evict_SRS(const rs_srs *by_ref);
extern void drop_SRS(const rs_srs *by_ref);
extern rs_srs clone_SRS(const rs_srs *by_ref);
extern rs_error generate_groth16_proofs_c(const void *provers, size_t num_circuits, const void *r_s,
                                          const void *s_s, void *proofs, const rs_srs *srs);

#define NPART 10

static int failures;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
      failures++;                                          \
    }                                                      \
  } while (0)

static void die(const char *what, const char *detail) {
  fprintf(stderr, "c2_host: %s: %s\n", what, detail);
  exit(99);
}

static bool valid_utf8(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    int n = *p < 0x80             ? 0
            : (*p & 0xE0) == 0xC0 ? 1
            : (*p & 0xF0) == 0xE0 ? 2
            : (*p & 0xF8) == 0xF0 ? 3
                                  : -1;
    if (n < 0 || (n == 1 && *p < 0xC2)) return false;
    p++;
    for (int i = 0; i < n; i++, p++)
      if ((*p & 0xC0) != 0x80) return false;
  }
  return true;
}

/* An error struct that must say "failed": non-zero code, a malloc'd UTF-8 message that
 * contains want. Frees the message (the Rust caller does the same). */
static void expect_error(rs_error e, const char *what, const char *want) {
  CHECK(e.code != 0, "%s: code 0, expected an error", what);
  CHECK(e.str != NULL, "%s: code %d without a message", what, e.code);
  if (e.str != NULL) {
    printf("  %s -> code %d: %s\n", what, e.code, e.str);
    CHECK(valid_utf8(e.str), "%s: message is not valid UTF-8", what);
    CHECK(want == NULL || strstr(e.str, want) != NULL, "%s: message lacks '%s': %s", what, want,
          e.str);
    free(e.str);
  }
}

static void expect_ok(rs_error e, const char *what) {
  CHECK(e.code == 0 && e.str == NULL, "%s: code %d: %s", what, e.code,
        e.str ? e.str : "(no message)");
  free(e.str);
}

/* ---- inputs ---------------------------------------------------------------------- */

static sp_spa *spa[NPART];
static rs_assignment provers[NPART];
static rs_fr *mont[NPART]; /* a | b | c | inp | aux of each partition, Montgomery */
static rs_fr r_mont[NPART], s_mont[NPART];
static uint8_t r_le[NPART * 32], s_le[NPART * 32];
static uint8_t expected[NPART * 192];

static void to_mont(rs_fr *out, const void *canonical, size_t n, const char *what) {
  const uint8_t *in = canonical;
  for (size_t i = 0; i < n; i++) {
    fr_t f;
    if (!fr_from_le32(&f, in + 32 * i)) die("scalar >= r in", what);
    memcpy(out[i].l, f.l, sizeof out[i].l);
  }
}

static void load_inputs(const char *dir) {
  char path[1024], err[512];
  for (int i = 0; i < NPART; i++) {
    snprintf(path, sizeof path, "%s/partition-%02d.spa", dir, i);
    if (sp_spa_read(path, &spa[i], err, sizeof err) != SEALPROV_OK) die("read", err);
    const sealprov_assignment *a = &spa[i]->asg;
    size_t total = 3 * a->abc_size + a->inp_size + a->aux_size;
    mont[i] = calloc(total, sizeof(rs_fr));
    if (mont[i] == NULL) die("calloc", path);
    rs_fr *ma = mont[i], *mb = ma + a->abc_size, *mc = mb + a->abc_size;
    rs_fr *mi = mc + a->abc_size, *mx = mi + a->inp_size;
    to_mont(ma, a->a, a->abc_size, path);
    to_mont(mb, a->b, a->abc_size, path);
    to_mont(mc, a->c, a->abc_size, path);
    to_mont(mi, a->inp_assignment, a->inp_size, path);
    to_mont(mx, a->aux_assignment, a->aux_size, path);
    provers[i] = (rs_assignment){
        .a_aux_density = a->a_aux_density,
        .a_aux_bit_len = a->a_aux_bit_len,
        .a_aux_popcount = a->a_aux_popcount,
        .b_inp_density = a->b_inp_density,
        .b_inp_bit_len = a->b_inp_bit_len,
        .b_inp_popcount = a->b_inp_popcount,
        .b_aux_density = a->b_aux_density,
        .b_aux_bit_len = a->b_aux_bit_len,
        .b_aux_popcount = a->b_aux_popcount,
        .a = ma,
        .b = mb,
        .c = mc,
        .abc_size = a->abc_size,
        .inp_assignment_data = mi,
        .inp_assignment_size = a->inp_size,
        .aux_assignment_data = mx,
        .aux_assignment_size = a->aux_size,
    };
    /* fixed, distinct blinding factors */
    fr_t r, s;
    fr_from_u64(&r, 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
    fr_from_u64(&s, 0xc2b2ae3d27d4eb4full * (uint64_t)(i + 7));
    fr_mul(&r, &r, &s); /* spread over the whole field */
    memcpy(r_mont[i].l, r.l, 32);
    memcpy(s_mont[i].l, s.l, 32);
    fr_to_le32(r_le + 32 * i, &r);
    fr_to_le32(s_le + 32 * i, &s);
  }
}

/* ---- the module's own answer, through the vtable ------------------------------- */

static const sealprov_vtable *vt;
static sealprov_provider *prov;
static sealprov_srs *vk;

static void reference(const char *dir) {
  const char *plugin = getenv("SEALPROV_PLUGIN"), *ini = getenv("SEALPROV_C2_REF_CONFIG");
  if (ini == NULL) ini = getenv("SEALPROV_CONFIG");
  if (plugin == NULL || ini == NULL) die("environment", "SEALPROV_PLUGIN and SEALPROV_CONFIG");
  void *dl = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL) die("dlopen", dlerror());
  union {
    void *obj;
    sealprov_provider_init_fn fn;
  } sym = {.obj = dlsym(dl, SEALPROV_ENTRY_SYMBOL)};
  if (sym.fn == NULL || sym.fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, NULL, &vt) != SEALPROV_OK)
    die("init", plugin);
  if (vt->open(ini, &prov) != SEALPROV_OK) die("open", vt->last_error());
  char path[1024];
  snprintf(path, sizeof path, "%s/circuit.params", dir);
  sealprov_srs *srs = NULL;
  if (vt->srs_load(prov, path, &srs) != SEALPROV_OK) die("srs_load", vt->last_error());
  snprintf(path, sizeof path, "%s/circuit.vk", dir);
  if (vt->vk_load(prov, path, &vk) != SEALPROV_OK) die("vk_load", vt->last_error());
  sealprov_assignment asg[NPART];
  for (int i = 0; i < NPART; i++) asg[i] = spa[i]->asg;
  sealprov_job job;
  memset(&job, 0, sizeof job);
  job.struct_size = sizeof job;
  job.flags = SEALPROV_JOB_FIXED_RS;
  job.srs = srs;
  job.partitions = asg;
  job.num_partitions = NPART;
  job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  job.r = r_le;
  job.s = s_le;
  job.proofs_out = expected;
  if (vt->prove(prov, &job) != SEALPROV_OK) die("prove (reference)", vt->last_error());
  vt->srs_release(srs);
}

/* ---- checking the library's proofs -------------------------------------------- */

/* Compresses the affine Montgomery points back into the 192-byte proof, compares it
 * with the vtable's and runs the module's verifier on it. */
static void check_proofs(const rs_proof *proofs, const char *what) {
  for (int i = 0; i < NPART; i++) {
    const uint8_t *raw = (const uint8_t *)&proofs[i];
    g1_affine_t a, c;
    g2_affine_t b;
    memcpy(&a, raw, 96);
    memcpy(&b, raw + 96, 192);
    memcpy(&c, raw + 288, 96);
    CHECK(g1_affine_on_curve(&a) && !g1_affine_is_inf(&a), "%s: proof %d: A is not on G1", what, i);
    CHECK(g2_affine_on_curve(&b) && !g2_affine_is_inf(&b), "%s: proof %d: B is not on G2", what, i);
    CHECK(g1_affine_on_curve(&c) && !g1_affine_is_inf(&c), "%s: proof %d: C is not on G1", what, i);
    uint8_t bytes[192];
    g1_compress(bytes, &a);
    g2_compress(bytes + 48, &b);
    g1_compress(bytes + 144, &c);
    CHECK(memcmp(bytes, expected + 192 * i, 192) == 0,
          "%s: proof %d differs from the vtable's proof with the same r and s", what, i);
    const sealprov_assignment *asg = &spa[i]->asg;
    int valid = 0;
    int st = vt->verify(prov, vk, (const uint8_t *)asg->inp_assignment + 32, asg->inp_size - 1,
                        SEALPROV_SCALAR_CANONICAL_LE, bytes, &valid);
    CHECK(st == SEALPROV_OK && valid == 1, "%s: proof %d does not verify (status %d, valid %d)",
          what, i, st, valid);
  }
}

/* After start returns, Curio frees a, b and c: overwrite them here, so that a read
 * after start would change the proofs. */
static void scribble_abc(void *user) {
  (void)user;
  for (int i = 0; i < NPART; i++) {
    size_t n = provers[i].abc_size;
    memset((void *)provers[i].a, 0xA5, 3 * n * sizeof(rs_fr));
  }
}

static void restore_abc(void) {
  for (int i = 0; i < NPART; i++) {
    const sealprov_assignment *a = &spa[i]->asg;
    to_mont((rs_fr *)provers[i].a, a->a, a->abc_size, "a");
    to_mont((rs_fr *)provers[i].b, a->b, a->abc_size, "b");
    to_mont((rs_fr *)provers[i].c, a->c, a->abc_size, "c");
  }
}

static int run(const char *dir) {
  load_inputs(dir);
  reference(dir);
  char params[1024];
  snprintf(params, sizeof params, "%s/circuit.params", dir);
  static rs_proof proofs[NPART];

  /* upstream: create_SRS (cached), generate_groth16_proofs_c */
  rs_srs srs = {NULL};
  expect_ok(create_SRS(&srs, params, true), "create_SRS");
  CHECK(srs.ptr != NULL, "create_SRS left the SRS empty");
  rs_srs again = {NULL};
  expect_ok(create_SRS(&again, params, true), "create_SRS (cached)");
  CHECK(again.ptr == srs.ptr, "a cached create_SRS of the same path gave another SRS");
  drop_SRS(&again);
  memset(proofs, 0, sizeof proofs);
  expect_ok(generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, proofs, &srs),
            "generate_groth16_proofs_c (6 arguments)");
  check_proofs(proofs, "upstream API");

  /* Curio's 7- and 8-argument calls reach the same definition (SEALPROV_C2_ARGS is
   * unset here: their trailing arguments are not read) */
  memset(proofs, 0, sizeof proofs);
  expect_ok(curio_generate7(provers, NPART, r_mont, s_mont, proofs, &srs),
            "generate_groth16_proofs_c (7 arguments)");
  check_proofs(proofs, "Curio 7-argument call");
  memset(proofs, 0, sizeof proofs);
  expect_ok(curio_generate8(provers, NPART, r_mont, s_mont, proofs, &srs, NULL, 1),
            "generate_groth16_proofs_c (8 arguments)");
  check_proofs(proofs, "8-argument call");

  /* clone, then drop and evict the original: the clone stays usable */
  rs_srs copy = clone_SRS(&srs);
  CHECK(copy.ptr == srs.ptr, "clone_SRS returned another pointer");
  evict_SRS(&srs);
  drop_SRS(&srs);
  srs.ptr = NULL; /* as the Rust Drop does */
  drop_SRS(&srs); /* an empty SRS: ignored */

  /* Curio's split API, with a mutex and gpu_index -1 as cuzk's workers pass them when
   * not pinned; a, b and c are overwritten as soon as start returns */
  void *mtx = curio_mutex_create();
  CHECK(mtx != NULL, "create_gpu_mutex returned NULL");
  memset(proofs, 0, sizeof proofs);
  expect_ok(curio_split(provers, NPART, r_mont, s_mont, proofs, &copy, mtx, -1, scribble_abc, NULL),
            "start / finalize");
  check_proofs(proofs, "split API");
  restore_abc();
  memset(proofs, 0, sizeof proofs);
  expect_ok(curio_split(provers, NPART, r_mont, s_mont, proofs, &copy, NULL, 1, NULL, NULL),
            "start (gpu_index 1, no mutex) / finalize");
  check_proofs(proofs, "split API, gpu_index 1");
  expect_ok(curio_start_then_destroy(provers, NPART, r_mont, s_mont, &copy),
            "start then destroy_pending_proof");

  /* bad input: an error struct, never a crash */
  printf("bad input:\n");
  rs_srs none = {NULL};
  expect_error(generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, proofs, &none), "NULL SRS",
               "SRS is empty");
  expect_error(generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, proofs, NULL), "NULL SRS&",
               "srs");
  expect_error(generate_groth16_proofs_c(provers, 0, r_mont, s_mont, proofs, &copy), "no circuits",
               "num_circuits is 0");
  expect_error(generate_groth16_proofs_c(NULL, NPART, r_mont, s_mont, proofs, &copy),
               "NULL provers", "provers is NULL");
  expect_error(generate_groth16_proofs_c(provers, NPART, NULL, s_mont, proofs, &copy), "NULL r_s",
               "r_s is NULL");
  expect_error(generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, NULL, &copy),
               "NULL proofs", "proofs is NULL");
  rs_assignment bad[NPART];
  memcpy(bad, provers, sizeof bad);
  bad[3].aux_assignment_size--;
  expect_error(generate_groth16_proofs_c(bad, NPART, r_mont, s_mont, proofs, &copy),
               "wrong aux size", "aux_size");
  memcpy(bad, provers, sizeof bad);
  bad[5].inp_assignment_size++;
  expect_error(curio_split(bad, NPART, r_mont, s_mont, proofs, &copy, mtx, -1, scribble_abc, NULL),
               "wrong input size (split API)", "inp_size");
  /* no circuits, with the pointers Rust passes for empty slices (aligned, dangling) */
  const void *dangling = (const void *)(uintptr_t)8;
  void *pending = (void *)&pending;
  expect_error(curio_start(dangling, 0, dangling, dangling, &copy, mtx, -1, &pending),
               "no circuits (split API)", "num_circuits is 0");
  CHECK(pending == NULL, "a failed start did not set *pending_out to NULL");
  expect_error(
      curio_generate8(dangling, 0, dangling, dangling, (rs_proof *)(uintptr_t)8, &copy, mtx, -1),
      "no circuits (8 arguments)", "num_circuits is 0");
  expect_error(curio_start(provers, NPART, r_mont, s_mont, &copy, mtx, -1, NULL),
               "NULL pending_out", "pending_out is NULL");
  curio_mutex_destroy(mtx);
  memcpy(bad, provers, sizeof bad);
  bad[1].a = NULL;
  expect_error(generate_groth16_proofs_c(bad, NPART, r_mont, s_mont, proofs, &copy), "NULL a",
               "a is NULL");
  rs_fr big[NPART];
  memcpy(big, r_mont, sizeof big);
  memset(big[2].l, 0xFF, sizeof big[2].l); /* not below the group order */
  expect_error(generate_groth16_proofs_c(provers, NPART, big, s_mont, proofs, &copy),
               "r >= group order", "job->r of partition 2");
  expect_error(curio_null_handle(), "finalize(NULL)", "handle is NULL");
  char missing[1100];
  snprintf(missing, sizeof missing, "%s/no-such.params", dir);
  rs_srs m = {NULL};
  expect_error(create_SRS(&m, missing, false), "missing .params", "no-such.params");
  CHECK(m.ptr == NULL, "a failed create_SRS filled the SRS");
  drop_SRS(&m);
  expect_error(create_SRS(NULL, params, false), "NULL SRS& in create_SRS", "ret");
  char vkpath[1100];
  snprintf(vkpath, sizeof vkpath, "%s/circuit.vk", dir);
  expect_error(create_SRS(&m, vkpath, false), ".vk as parameters", "circuit.vk");

  /* the library still works after all that */
  memset(proofs, 0, sizeof proofs);
  expect_ok(generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, proofs, &copy),
            "generate_groth16_proofs_c after the errors");
  check_proofs(proofs, "after errors");
  drop_SRS(&copy);

  for (int i = 0; i < NPART; i++) {
    free(mont[i]);
    sp_spa_free(spa[i]);
  }
  vt->srs_release(vk);
  vt->close(prov);
  if (failures) {
    fprintf(stderr, "c2_host: %d check(s) failed\n", failures);
    return 1;
  }
  printf(
      "c2_host: %d partitions through the upstream, Curio 7/8-argument and split "
      "calls: every proof equals the vtable's and verifies\n",
      NPART);
  return 0;
}

/* --dump DIR OUT: the job in the memory form the callers pass, for rust_host.rs. Every
 * value is a little-endian u64: n; per partition abc_size, inp_size, aux_size,
 * a_aux_popcount, b_inp_popcount, b_aux_popcount, then a, b, c, inputs, aux (4 limbs
 * each, Montgomery) and the a_aux, b_inp, b_aux density words; then r and s (4 limbs
 * per partition, Montgomery) and the expected proofs as affine Montgomery points (48
 * words each), decompressed here from the vtable's 192-byte proofs. */
static void put(FILE *f, const void *p, size_t words) {
  if (fwrite(p, 8, words, f) != words) die("write", "dump");
}

static int dump(const char *dir, const char *out) {
  load_inputs(dir);
  reference(dir);
  FILE *f = fopen(out, "wb");
  if (f == NULL) die("create", out);
  uint64_t n = NPART;
  put(f, &n, 1);
  for (int i = 0; i < NPART; i++) {
    const rs_assignment *a = &provers[i];
    uint64_t hdr[6] = {a->abc_size,       a->inp_assignment_size, a->aux_assignment_size,
                       a->a_aux_popcount, a->b_inp_popcount,      a->b_aux_popcount};
    put(f, hdr, 6);
    put(f, mont[i], 4 * (3 * a->abc_size + a->inp_assignment_size + a->aux_assignment_size));
    put(f, a->a_aux_density, (a->a_aux_bit_len + 63) / 64);
    put(f, a->b_inp_density, (a->b_inp_bit_len + 63) / 64);
    put(f, a->b_aux_density, (a->b_aux_bit_len + 63) / 64);
  }
  put(f, r_mont, 4 * NPART);
  put(f, s_mont, 4 * NPART);
  for (int i = 0; i < NPART; i++) {
    g1_affine_t a, c;
    g2_affine_t b;
    const uint8_t *in = expected + 192 * i;
    if (g1_deserialize(&a, in, 48, 0) != BLS_OK || g2_deserialize(&b, in + 48, 96, 0) != BLS_OK ||
        g1_deserialize(&c, in + 144, 48, 0) != BLS_OK)
      die("decompress", "a reference proof");
    put(f, &a, 12);
    put(f, &b, 24);
    put(f, &c, 12);
  }
  if (fclose(f) != 0) die("close", out);
  for (int i = 0; i < NPART; i++) {
    free(mont[i]);
    sp_spa_free(spa[i]);
  }
  vt->srs_release(vk);
  vt->close(prov);
  return 0;
}

/* --concurrent DIR (with an INI of max_jobs = 1): callers on several threads at once,
 * as cuzk's GPU workers call; the library waits out the full queue (supraseal's calls
 * block, they never answer "busy"), and every thread gets the right proofs. */
#define NTHREADS 4
typedef struct {
  const rs_srs *srs;
  int split;
  rs_proof proofs[NPART];
  rs_error err;
} worker_arg;

static void nothing(void *user) { (void)user; }

static void *worker(void *arg) {
  worker_arg *w = arg;
  w->err = w->split ? curio_split(provers, NPART, r_mont, s_mont, w->proofs, w->srs, NULL, -1,
                                  nothing, NULL)
                    : generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, w->proofs, w->srs);
  return NULL;
}

static int concurrent(const char *dir) {
  load_inputs(dir);
  reference(dir);
  char params[1024];
  snprintf(params, sizeof params, "%s/circuit.params", dir);
  rs_srs srs = {NULL};
  expect_ok(create_SRS(&srs, params, true), "create_SRS");
  static worker_arg args[NTHREADS];
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    args[t].srs = &srs;
    args[t].split = t % 2;
    if (pthread_create(&th[t], NULL, worker, &args[t]) != 0) die("pthread_create", "worker");
  }
  for (int t = 0; t < NTHREADS; t++) {
    pthread_join(th[t], NULL);
    char what[64];
    snprintf(what, sizeof what, "thread %d (%s)", t, args[t].split ? "split API" : "upstream");
    expect_ok(args[t].err, what);
    check_proofs(args[t].proofs, what);
  }
  drop_SRS(&srs);
  for (int i = 0; i < NPART; i++) {
    free(mont[i]);
    sp_spa_free(spa[i]);
  }
  vt->srs_release(vk);
  vt->close(prov);
  if (failures) return 1;
  printf(
      "c2_host: %d threads, one job at a time in the queue: every call waited and got "
      "its proofs\n",
      NTHREADS);
  return 0;
}

/* --pin DIR, with SEALPROV_C2_ARGS=8: Curio's 8-argument calls only (a 6- or 7-argument
 * call would have its missing arguments read from its stack frame). */
typedef struct {
  const rs_srs *srs;
  void *mtx;
  int gpu_index;
  rs_proof proofs[NPART];
  rs_error err;
} pin_arg;

static void *pin_worker(void *arg) {
  pin_arg *w = arg;
  w->err = curio_generate8(provers, NPART, r_mont, s_mont, w->proofs, w->srs, w->mtx, w->gpu_index);
  return NULL;
}

static int pin(const char *dir) {
  load_inputs(dir);
  reference(dir);
  char params[1024];
  snprintf(params, sizeof params, "%s/circuit.params", dir);
  rs_srs srs = {NULL};
  expect_ok(create_SRS(&srs, params, true), "create_SRS");
  static rs_proof proofs[NPART];
  void *mtx = curio_mutex_create();
  CHECK(mtx != NULL, "create_gpu_mutex returned NULL");
  /* printed before each call, so c2.sh can pair the library's lines with the calls */
  static const int order[] = {0, 1, -1};
  for (int k = 0; k < 3; k++) {
    char what[96];
    snprintf(what, sizeof what, "8 arguments, gpu_index %d, mutex", order[k]);
    memset(proofs, 0, sizeof proofs);
    expect_ok(curio_generate8(provers, NPART, r_mont, s_mont, proofs, &srs, mtx, order[k]), what);
    check_proofs(proofs, what);
    snprintf(what, sizeof what, "8 arguments, gpu_index %d, NULL mutex", order[k]);
    memset(proofs, 0, sizeof proofs);
    expect_ok(curio_generate8(provers, NPART, r_mont, s_mont, proofs, &srs, NULL, order[k]), what);
    check_proofs(proofs, what);
  }
  /* The mutex is a pthread mutex (std::mutex's layout) and no call left it locked. */
  CHECK(pthread_mutex_trylock((pthread_mutex_t *)mtx) == 0,
        "the GPU mutex is still locked after the calls returned");
  pthread_mutex_unlock((pthread_mutex_t *)mtx);

  /* two workers of one GPU share its mutex; both get their proofs */
  static pin_arg args[2];
  pthread_t th[2];
  for (int t = 0; t < 2; t++) {
    args[t].srs = &srs;
    args[t].mtx = mtx;
    args[t].gpu_index = t;
    if (pthread_create(&th[t], NULL, pin_worker, &args[t]) != 0) die("pthread_create", "pin");
  }
  for (int t = 0; t < 2; t++) {
    pthread_join(th[t], NULL);
    char what[64];
    snprintf(what, sizeof what, "thread %d sharing the mutex (gpu_index %d)", t, t);
    expect_ok(args[t].err, what);
    check_proofs(args[t].proofs, what);
  }
  memset(proofs, 0, sizeof proofs);
  expect_ok(curio_split(provers, NPART, r_mont, s_mont, proofs, &srs, mtx, -1, NULL, NULL),
            "split API with the mutex");
  check_proofs(proofs, "split API with the mutex");

  printf("bad gpu_index / gpu_mtx:\n");
  expect_error(curio_generate8(provers, NPART, r_mont, s_mont, proofs, &srs, NULL, 5),
               "gpu_index past the table",
               "job->device_mask 0x20 names device 5, but this provider has 2 devices");
  expect_error(curio_generate8(provers, NPART, r_mont, s_mont, proofs, &srs, mtx, 70),
               "gpu_index 70", "gpu_index 70: the provider has no CUDA devices and 2 device(s)");
  expect_error(curio_generate8(provers, NPART, r_mont, s_mont, proofs, &srs, NULL, -2),
               "gpu_index -2", "gpu_index -2: must be -1 (any device) or a CUDA ordinal");
  static uint64_t not_a_mutex[16]; /* zeros: no tag */
  expect_error(curio_generate8(provers, NPART, r_mont, s_mont, proofs, &srs, not_a_mutex, 0),
               "a stray gpu_mtx", "is not a mutex from create_gpu_mutex");
  expect_error(
      curio_split(provers, NPART, r_mont, s_mont, proofs, &srs, not_a_mutex, -1, NULL, NULL),
      "a stray gpu_mtx (split API)", "is not a mutex from create_gpu_mutex");
  void *gone = curio_mutex_create();
  curio_mutex_destroy(gone);
  expect_error(curio_generate8(provers, NPART, r_mont, s_mont, proofs, &srs, gone, 0),
               "a destroyed gpu_mtx", "is not a mutex from create_gpu_mutex (destroyed already?)");
  CHECK(pthread_mutex_trylock((pthread_mutex_t *)mtx) == 0,
        "the GPU mutex is still locked after the failed calls");
  pthread_mutex_unlock((pthread_mutex_t *)mtx);

  /* still works after the errors */
  memset(proofs, 0, sizeof proofs);
  expect_ok(curio_generate8(provers, NPART, r_mont, s_mont, proofs, &srs, mtx, 1),
            "gpu_index 1 after the errors");
  check_proofs(proofs, "gpu_index 1 after the errors");
  curio_mutex_destroy(mtx);
  drop_SRS(&srs);
  for (int i = 0; i < NPART; i++) {
    free(mont[i]);
    sp_spa_free(spa[i]);
  }
  vt->srs_release(vk);
  vt->close(prov);
  if (failures) {
    fprintf(stderr, "c2_host: %d check(s) failed\n", failures);
    return 1;
  }
  printf(
      "c2_host: gpu_index 0, 1 and -1 through the 8-argument call: every proof equals "
      "the vtable's and verifies\n");
  return 0;
}

/* --pin-split DIR, SEALPROV_C2_ARGS unset: the split API always takes gpu_index (Curio
 * passes it in every release), so it is read whatever SEALPROV_C2_ARGS says. c2.sh
 * reads where each job ran from the library's info lines. */
static int pin_split(const char *dir) {
  load_inputs(dir);
  reference(dir);
  char params[1024];
  snprintf(params, sizeof params, "%s/circuit.params", dir);
  rs_srs srs = {NULL};
  expect_ok(create_SRS(&srs, params, true), "create_SRS");
  static rs_proof proofs[NPART];
  void *mtx = curio_mutex_create();
  CHECK(mtx != NULL, "create_gpu_mutex returned NULL");
  static const int order[] = {0, 1, -1};
  for (int k = 0; k < 3; k++) {
    char what[96];
    snprintf(what, sizeof what, "split API, gpu_index %d", order[k]);
    memset(proofs, 0, sizeof proofs);
    expect_ok(curio_split(provers, NPART, r_mont, s_mont, proofs, &srs, k == 1 ? NULL : mtx,
                          order[k], scribble_abc, NULL),
              what);
    check_proofs(proofs, what);
    restore_abc();
  }
  printf("bad gpu_index (split API):\n");
  void *pending = (void *)&pending;
  expect_error(curio_start(provers, NPART, r_mont, s_mont, &srs, mtx, 5, &pending),
               "gpu_index past the table (split API)",
               "job->device_mask 0x20 names device 5, but this provider has 2 devices");
  CHECK(pending == NULL, "a failed start did not set *pending_out to NULL");
  expect_error(curio_start(provers, NPART, r_mont, s_mont, &srs, NULL, -2, &pending),
               "gpu_index -2 (split API)",
               "gpu_index -2: must be -1 (any device) or a CUDA ordinal");
  CHECK(pending == NULL, "a failed start did not set *pending_out to NULL");
  curio_mutex_destroy(mtx);
  drop_SRS(&srs);
  for (int i = 0; i < NPART; i++) {
    free(mont[i]);
    sp_spa_free(spa[i]);
  }
  vt->srs_release(vk);
  vt->close(prov);
  if (failures) {
    fprintf(stderr, "c2_host: %d check(s) failed\n", failures);
    return 1;
  }
  printf(
      "c2_host: the split API's gpu_index 0, 1 and -1: every proof equals the vtable's and "
      "verifies\n");
  return 0;
}

/* ---- --stale DIR: handles passed again after they ended ------------------------- */

typedef struct {
  rs_srs *shared; /* the SRS value the other thread drops */
  atomic_int *go; /* set when both threads may start */
  int rounds;
} evict_arg;

/* evict_SRS and clone_SRS/drop_SRS pairs on an SRS that the main thread drops meanwhile:
 * every call sees a live SRS or none, never its freed memory. */
static void *evicter(void *arg) {
  evict_arg *e = arg;
  while (!atomic_load(e->go)) {
  }
  for (int i = 0; i < e->rounds; i++) {
    evict_SRS(e->shared);
    rs_srs c = clone_SRS(e->shared);
    if (c.ptr == NULL) break; /* dropped: a warning per call from here on */
    drop_SRS(&c);
  }
  return NULL;
}

typedef struct {
  const rs_srs *srs;
  void *mtx;
  rs_proof proofs[NPART];
  rs_error err;
} mtx_arg;

static void *mtx_user(void *arg) {
  mtx_arg *m = arg;
  m->err = curio_split(provers, NPART, r_mont, s_mont, m->proofs, m->srs, m->mtx, -1, NULL, NULL);
  return NULL;
}

static int stale(const char *dir) {
  load_inputs(dir);
  reference(dir);
  char params[1024];
  snprintf(params, sizeof params, "%s/circuit.params", dir);
  static rs_proof proofs[NPART];
  void *pending = NULL;

  /* A dropped SRS passed again: its memory is gone; every entry point refuses it or
   * ignores it without reading it. */
  rs_srs srs = {NULL};
  expect_ok(create_SRS(&srs, params, false), "create_SRS (not cached)");
  rs_srs dropped = srs;
  drop_SRS(&srs);
  expect_error(generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, proofs, &dropped),
               "a dropped SRS", "is not a live SRS from create_SRS (dropped already?)");
  pending = (void *)&pending;
  expect_error(curio_start(provers, NPART, r_mont, s_mont, &dropped, NULL, -1, &pending),
               "a dropped SRS (split API)", "is not a live SRS");
  CHECK(pending == NULL, "a failed start did not set *pending_out to NULL");
  rs_srs c = clone_SRS(&dropped);
  CHECK(c.ptr == NULL, "clone_SRS of a dropped SRS gave %p", c.ptr);
  evict_SRS(&dropped); /* ignored, with a warning */
  drop_SRS(&dropped);  /* ignored, with a warning */

  /* A destroyed mutex passed again, and destroyed again. */
  expect_ok(create_SRS(&srs, params, true), "create_SRS (cached)");
  void *mtx = curio_mutex_create();
  CHECK(mtx != NULL, "create_gpu_mutex returned NULL");
  curio_mutex_destroy(mtx);
  expect_error(curio_split(provers, NPART, r_mont, s_mont, proofs, &srs, mtx, -1, NULL, NULL),
               "a destroyed gpu_mtx (split API)",
               "is not a mutex from create_gpu_mutex (destroyed already?)");
  curio_mutex_destroy(mtx); /* ignored, with a warning */

  /* A pending proof finalized, then passed again to finalize and destroy; one
   * destroyed, then finalized. */
  pending = NULL;
  expect_ok(curio_start(provers, NPART, r_mont, s_mont, &srs, NULL, -1, &pending), "start");
  CHECK(pending != NULL, "start succeeded without a handle");
  memset(proofs, 0, sizeof proofs);
  expect_ok(curio_finalize(pending, proofs), "finalize");
  check_proofs(proofs, "split API before the stale handle");
  expect_error(curio_finalize(pending, proofs), "a finalized handle",
               "is not a pending proof (finalized or destroyed already?)");
  curio_destroy(pending); /* ignored, with a warning */
  pending = NULL;
  expect_ok(curio_start(provers, NPART, r_mont, s_mont, &srs, NULL, -1, &pending), "start");
  curio_destroy(pending);
  expect_error(curio_finalize(pending, proofs), "a destroyed handle", "is not a pending proof");
  drop_SRS(&srs);

  /* evict_SRS and clone_SRS racing the drop of the last reference (cached and not):
   * afterwards the SRS is gone and refused. */
  enum { ROUNDS = 12 };
  for (int round = 0; round < ROUNDS; round++) {
    rs_srs shared = {NULL};
    expect_ok(create_SRS(&shared, params, round % 2 == 0), "create_SRS (race)");
    atomic_int go = 0;
    evict_arg ea = {&shared, &go, 200};
    pthread_t th;
    if (pthread_create(&th, NULL, evicter, &ea) != 0) die("pthread_create", "evicter");
    rs_srs mine = shared;
    atomic_store(&go, 1);
    for (volatile int spin = 0; spin < 50 * round; spin++) {
    }
    drop_SRS(&mine);
    pthread_join(th, NULL);
    /* The drop and at least one evict have run: no reference is left (the cached one
     * went with the evict). */
    rs_error e = generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, proofs, &shared);
    if (round == 0 || round == 1)
      expect_error(e, "an SRS evicted and dropped on two threads", "is not a live SRS");
    else {
      CHECK(e.code != 0 && e.str != NULL && strstr(e.str, "is not a live SRS") != NULL,
            "round %d: the SRS evicted and dropped on two threads was not refused: %s", round,
            e.str != NULL ? e.str : "(no message)");
      free_error(e);
    }
  }

  /* destroy_gpu_mutex while a call uses the mutex: the call either got it first and
   * finishes with it (the mutex is freed after it), or is refused. */
  expect_ok(create_SRS(&srs, params, true), "create_SRS (cached)");
  for (int round = 0; round < 4; round++) {
    static mtx_arg ma;
    ma.srs = &srs;
    ma.mtx = curio_mutex_create();
    CHECK(ma.mtx != NULL, "create_gpu_mutex returned NULL");
    pthread_t th;
    if (pthread_create(&th, NULL, mtx_user, &ma) != 0) die("pthread_create", "mtx_user");
    /* 0, 1, 10, 100 ms: from "before the call takes it" to "while the job runs" */
    long ms = round == 0 ? 0 : round == 1 ? 1 : round == 2 ? 10 : 100;
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
    curio_mutex_destroy(ma.mtx);
    pthread_join(th, NULL);
    if (ma.err.code == 0) {
      check_proofs(ma.proofs, "a call whose mutex was destroyed meanwhile");
      printf("  round %d: the call had the mutex before destroy_gpu_mutex: proofs ok\n", round);
    } else {
      CHECK(ma.err.str != NULL && strstr(ma.err.str, "is not a mutex from create_gpu_mutex"),
            "round %d: a call racing destroy_gpu_mutex failed otherwise: %s", round,
            ma.err.str != NULL ? ma.err.str : "(no message)");
      printf("  round %d: destroy_gpu_mutex came first: %s\n", round, ma.err.str);
      free_error(ma.err);
    }
    expect_error(curio_split(provers, NPART, r_mont, s_mont, proofs, &srs, ma.mtx, -1, NULL, NULL),
                 "the mutex destroyed during a call, passed again", "is not a mutex");
  }

  /* the library still works after all that */
  memset(proofs, 0, sizeof proofs);
  expect_ok(generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, proofs, &srs),
            "generate_groth16_proofs_c after the stale handles");
  check_proofs(proofs, "after the stale handles");
  drop_SRS(&srs);
  for (int i = 0; i < NPART; i++) {
    free(mont[i]);
    sp_spa_free(spa[i]);
  }
  vt->srs_release(vk);
  vt->close(prov);
  if (failures) {
    fprintf(stderr, "c2_host: %d check(s) failed\n", failures);
    return 1;
  }
  printf(
      "c2_host: dropped SRS, destroyed mutexes and finished handles were refused or "
      "ignored; evict/clone racing drop and calls racing destroy_gpu_mutex held\n");
  return 0;
}

/* --child DIR: what a daemon's per-proof child makes through upstream's crate (Curio's
 * `curio ffi`): create_SRS, then one 6-argument generate_groth16_proofs_c. */
static int child(const char *dir) {
  load_inputs(dir);
  reference(dir);
  char params[1024];
  snprintf(params, sizeof params, "%s/circuit.params", dir);
  static rs_proof proofs[NPART];
  rs_srs srs = {NULL};
  expect_ok(create_SRS(&srs, params, true), "create_SRS");
  expect_ok(generate_groth16_proofs_c(provers, NPART, r_mont, s_mont, proofs, &srs),
            "generate_groth16_proofs_c (6 arguments)");
  check_proofs(proofs, "child");
  drop_SRS(&srs);
  if (failures) return 1;
  printf(
      "c2_host: %d partitions through create_SRS and generate_groth16_proofs_c: every proof "
      "equals the vtable's and verifies\n",
      NPART);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--dump") == 0) return dump(argv[2], argv[3]);
  if (argc == 3 && strcmp(argv[1], "--pin") == 0) return pin(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--pin-split") == 0) return pin_split(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--stale") == 0) return stale(argv[2]);
  if (argc == 4 && strcmp(argv[1], "--sync-error") == 0) {
    rs_srs srs = {NULL};
    expect_ok(create_SRS(&srs, argv[2], false), "create_SRS");
    rs_proof p[1];
    expect_error(generate_groth16_proofs_c(provers, 1, r_mont, s_mont, p, &srs),
                 "generate_groth16_proofs_c", argv[3]);
    drop_SRS(&srs);
    return failures ? 1 : 0;
  }
  if (argc == 3 && strcmp(argv[1], "--concurrent") == 0) return concurrent(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(argv[2]);
  if (argc == 4 && strcmp(argv[1], "--load-error") == 0) {
    rs_srs srs = {NULL};
    expect_error(create_SRS(&srs, argv[2], false), "create_SRS", argv[3]);
    CHECK(srs.ptr == NULL, "a failed create_SRS filled the SRS");
    drop_SRS(&srs);
    return failures ? 1 : 0;
  }
  if (argc != 2) {
    fprintf(stderr,
            "usage: c2_host DIR | c2_host --load-error PARAMS WORD | "
            "c2_host --concurrent DIR | c2_host --dump DIR OUT | c2_host --pin DIR | "
            "c2_host --pin-split DIR | c2_host --stale DIR | "
            "c2_host --sync-error PARAMS WORD | c2_host --child DIR\n");
    return 2;
  }
  return run(argv[1]);
}
