/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_config.c -- the INI device table (plugin/runtime/ini.c) and device resolution.
 *
 * Every fixture is written by the test into a fresh temporary directory, so each
 * message can be checked for the exact "file:line: " it must start with. Bad files:
 * the status and that the message names the file, line, section, key and value.
 * Good files: the parsed values. Resolution: CPU-only configs, cuda sections on this
 * host (UNSUPPORTED without CUDA, "not present" for GPUs no host has), and the selector
 * rules against made-up GPU lists (sp_config_resolve_with_gpus), including a list in
 * the order a different CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER would give.
 */
#ifdef HAVE_CONFIG_H
#include <config.h> /* HAVE_CUDA, SP_FAULT_INJECTION */
#endif

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/device_table.h"
#include "engine/fault.h" /* SP_INJECT_* */
#include "util/cuda_api.h"
#include "sealprov.h"

static char tmpdir[512];
static char ini_path[600];
static sp_config *cfg;
static char err[2048];

static void setup(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/sp-config-XXXXXX", base && *base ? base : "/tmp");
  ck_assert_msg(mkdtemp(tmpdir) != NULL, "mkdtemp(%s): %s", tmpdir, strerror(errno));
  snprintf(ini_path, sizeof ini_path, "%s/t.ini", tmpdir);
  cfg = calloc(1, sizeof *cfg);
  ck_assert_ptr_nonnull(cfg);
  err[0] = '\0';
}

static void teardown(void) {
  unlink(ini_path);
  rmdir(tmpdir);
  free(cfg);
  cfg = NULL;
}

static void write_file(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "fopen(%s): %s", path, strerror(errno));
  ck_assert_uint_eq(fwrite(text, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
}

/* Writes text to t.ini and loads it. */
static int load(const char *text) {
  write_file(ini_path, text, strlen(text));
  return sp_config_load(ini_path, cfg, err, sizeof err);
}

static void expect_ok(const char *text) {
  int st = load(text);
  ck_assert_msg(st == SEALPROV_OK, "status %d, message: %s\n--- ini:\n%s", st, err, text);
}

/* The message starts with "t.ini-path:line: " and contains every needle. */
static void expect_error_at(int status, int line, const char *const *needles, size_t n) {
  char prefix[700];
  snprintf(prefix, sizeof prefix, "%s:%d: ", ini_path, line);
  ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "message does not start with \"%s\": %s",
                prefix, err);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(strstr(err, needles[i]) != NULL, "message lacks \"%s\": %s", needles[i], err);
  (void)status;
}

/* ---- bad files ------------------------------------------------------------------ */

typedef struct bad_case {
  const char *what;
  const char *ini;
  int status;
  int line;
  const char *needles[4]; /* section, key, value, reason (NULL-terminated if fewer) */
} bad_case;

#define CPU0 "[cpu0]\ntype = cpu\n"

static const bad_case bad_cases[] = {
    {"unknown device key",
     CPU0 "worker = 2\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "worker", "\"2\"", "unknown key"}},
    {"unknown provider key",
     "[provider]\nverbose = yes\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "verbose", "\"yes\"", "unknown key"}},
#ifdef SP_FAULT_INJECTION
    {"unknown testing key",
     CPU0 "[testing]\ninject_devices = cpu0\n",
     SEALPROV_ERR_CONFIG,
     4,
     {"[testing]", "inject_devices", "\"cpu0\"", "unknown key"}},
#else
    /* a module built without --enable-fault-injection refuses [testing] and says how to get
     * it, on the section's line, whatever its keys */
    {"[testing] without fault injection",
     CPU0 "[testing]\ninject_device = cpu0\ninject = oom\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[testing]: fault injection is not built into this module",
      "configure sealprov with --enable-fault-injection"}},
    {"[Testing] without fault injection",
     CPU0 "[Testing]\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[Testing]: fault injection is not built"}},
#endif
    {"workers not a number",
     CPU0 "workers = abc\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "workers", "\"abc\"", "not a number"}},
    {"workers zero",
     CPU0 "workers = 0\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "workers", "\"0\"", "out of range (1..64)"}},
    {"workers too many",
     CPU0 "workers = 65\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "workers", "\"65\"", "out of range (1..64)"}},
    {"workers negative",
     CPU0 "workers = -1\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "workers", "\"-1\"", "negative"}},
    {"workers overflow",
     CPU0 "workers = 99999999999999999999999\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "workers", "\"99999999999999999999999\"", "too large"}},
    {"workers with junk",
     CPU0 "workers = 2x\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "workers", "\"2x\"", "not a number"}},
    {"workers hex",
     CPU0 "workers = 0x2\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "workers", "\"0x2\"", "not a number"}},
    {"workers empty",
     CPU0 "workers =\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "workers", "\"\"", "empty value"}},
    {"threads too many",
     CPU0 "threads = 2000\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "threads", "\"2000\"", "out of range (0..1024)"}},
    {"memory bad unit",
     CPU0 "memory_limit = 16GB2\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "memory_limit", "\"16GB2\"", "bad unit \"GB2\""}},
    {"memory unit case",
     CPU0 "memory_limit = 16gib\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "memory_limit", "\"16gib\"", "bad unit"}},
    {"memory fraction",
     CPU0 "memory_limit = 1.5GiB\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "memory_limit", "\"1.5GiB\"", "fractions are not supported"}},
    {"memory overflow by unit",
     CPU0 "memory_limit = 16777216TiB\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "memory_limit", "\"16777216TiB\"", "too large"}},
    {"memory overflow digits",
     CPU0 "memory_limit = 18446744073709551616\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "memory_limit", "\"18446744073709551616\"", "too large"}},
    {"memory negative",
     CPU0 "memory_limit = -1GiB\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "memory_limit", "\"-1GiB\"", "negative"}},
    {"memory unit only",
     CPU0 "memory_limit = GiB\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "memory_limit", "\"GiB\"", "not a number"}},
    {"pinned_staging word",
     CPU0 "pinned_staging = lots\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "pinned_staging", "\"lots\"", "not auto, chunked, whole, off or a size"}},
    {"pinned_staging bad unit",
     CPU0 "pinned_staging = 32G\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "pinned_staging", "\"32G\"", "bad unit \"G\""}},
    {"pinned_staging negative",
     CPU0 "pinned_staging = -1GiB\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "pinned_staging", "\"-1GiB\"", "not auto, chunked, whole, off or a size"}},
    {"pinned_staging fraction",
     CPU0 "pinned_staging = 1.5GiB\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "pinned_staging", "\"1.5GiB\"", "fractions are not supported"}},
    {"pinned_staging twice",
     CPU0 "pinned_staging = auto\npinned_staging = off\n",
     SEALPROV_ERR_CONFIG,
     4,
     {"[cpu0]", "pinned_staging", "\"off\"", "duplicate key"}},
    {"msm_precompute word",
     CPU0 "msm_precompute = on\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "msm_precompute", "\"on\"", "not auto, off or a size"}},
    {"msm_precompute bad unit",
     CPU0 "msm_precompute = 24G\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "msm_precompute", "\"24G\"", "bad unit \"G\""}},
    {"msm_precompute negative",
     CPU0 "msm_precompute = -1GiB\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "msm_precompute", "\"-1GiB\"", "not auto, off or a size"}},
    {"msm_precompute too large",
     CPU0 "msm_precompute = 16777216TiB\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "msm_precompute", "\"16777216TiB\"", "too large"}},
    {"msm_precompute twice",
     CPU0 "msm_precompute = auto\nmsm_precompute = off\n",
     SEALPROV_ERR_CONFIG,
     4,
     {"[cpu0]", "msm_precompute", "\"off\"", "duplicate key"}},
    {"bad bool",
     "[provider]\nverify_proofs = maybe\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "verify_proofs", "\"maybe\"", "not a boolean"}},
    {"bad bool 2",
     "[provider]\nparams_subgroup_check = 2\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "params_subgroup_check", "\"2\"", "not a boolean"}},
    {"bad params_residency",
     "[provider]\nparams_residency = gpu\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "params_residency", "\"gpu\"", "use auto or host"}},
    {"bad log level",
     "[provider]\nlog_level = verbose\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "log_level", "\"verbose\"", "unknown log level"}},
    {"host_memory_limit word",
     "[provider]\nhost_memory_limit = plenty\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "host_memory_limit", "\"plenty\"", "not auto, off or a size"}},
    {"host_memory_limit bad unit",
     "[provider]\nhost_memory_limit = 16G\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "host_memory_limit", "\"16G\"", "bad unit \"G\""}},
    {"params_validation_cache relative",
     "[provider]\nparams_validation_cache = my/cache\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "params_validation_cache", "\"my/cache\"",
      "use auto, off or an absolute folder"}},
    {"params_shared_image relative",
     "[provider]\nparams_shared_image = shm/images\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "params_shared_image", "\"shm/images\"",
      "use off, auto or an absolute folder"}},
    {"params_shared_image without records",
     "[provider]\nparams_validation_cache = off\nparams_shared_image = auto\n" CPU0,
     SEALPROV_ERR_CONFIG,
     3,
     {"[provider]", "params_shared_image", "\"auto\"",
      "needs validation records, and params_validation_cache = off on line 2"}},
    {"params_shared_image without subgroup checks",
     "[provider]\nparams_shared_image = /dev/shm/x\nparams_subgroup_check = false\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "params_shared_image", "\"/dev/shm/x\"",
      "needs params_subgroup_check = true, and it is false on line 3"}},
    {"params_shared_image with a manifest",
     "[provider]\nparams_manifest = /p/parameters.json\nparams_shared_image = auto\n" CPU0,
     SEALPROV_ERR_CONFIG,
     3,
     {"[provider]", "params_shared_image", "cannot be used with params_manifest",
      "params_manifest is set on line 2"}},
    {"staging_chunk_size too small",
     "[provider]\nstaging_chunk_size = 512KiB\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "staging_chunk_size", "\"512KiB\"", "out of range (1MiB..4GiB)"}},
    {"staging_chunk_size too large",
     "[provider]\nstaging_chunk_size = 4097MiB\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "staging_chunk_size", "\"4097MiB\"", "out of range"}},
    {"staging_chunk_size zero",
     "[provider]\nstaging_chunk_size = 0\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "staging_chunk_size", "\"0\"", "out of range"}},
    {"staging_chunk_size word",
     "[provider]\nstaging_chunk_size = auto\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "staging_chunk_size", "\"auto\"", "not a number"}},
    {"staging_chunk_size bad unit",
     "[provider]\nstaging_chunk_size = 256M\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "staging_chunk_size", "\"256M\"", "bad unit \"M\""}},
    {"staging_chunk_size in a device",
     CPU0 "staging_chunk_size = 256MiB\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "staging_chunk_size", "unknown key", "is taken as a device section"}},
    {"staging_chunks zero",
     CPU0 "staging_chunks = 0\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "staging_chunks", "\"0\"", "out of range (1..16)"}},
    {"staging_chunks 17",
     CPU0 "staging_chunks = 17\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "staging_chunks", "\"17\"", "out of range (1..16)"}},
    {"staging_chunks junk",
     CPU0 "staging_chunks = four\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "staging_chunks", "\"four\"", "not a number"}},
    {"staging_chunks in [provider]",
     "[provider]\nstaging_chunks = 4\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "staging_chunks", "unknown key"}},
    {"max_jobs zero",
     "[provider]\nmax_jobs = 0\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "max_jobs", "\"0\"", "out of range"}},
    {"max_attempts junk",
     "[provider]\nmax_attempts = three\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "max_attempts", "\"three\"", "not a number"}},
    {"quarantine_after zero",
     "[provider]\nquarantine_after = 0\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "quarantine_after", "\"0\"", "out of range (1..1000)"}},
    {"duplicate device section",
     CPU0 "\n[cpu0]\ntype = cpu\n",
     SEALPROV_ERR_CONFIG,
     4,
     {"[cpu0]", "duplicate section", "first on line 1"}},
    {"duplicate section other case",
     CPU0 "[CPU0]\ntype = cpu\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[CPU0]", "duplicate section", "first on line 1"}},
    {"duplicate provider",
     "[provider]\n[provider]\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provider]", "duplicate section"}},
    {"duplicate key",
     CPU0 "workers = 1\nworkers = 2\n",
     SEALPROV_ERR_CONFIG,
     4,
     {"[cpu0]", "workers", "\"2\"", "duplicate key (first set on line 3)"}},
    {"duplicate key other case",
     CPU0 "TYPE = cpu\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "TYPE", "\"cpu\"", "duplicate key (first set on line 2)"}},
    {"unknown type",
     "[gpu0]\ntype = gpu\n",
     SEALPROV_ERR_CONFIG,
     2,
     {"[gpu0]", "type", "\"gpu\"", "unknown device type"}},
    {"misspelt [provider]",
     "[provder]\nlog_level = info\n" CPU0,
     SEALPROV_ERR_CONFIG,
     2,
     {"[provder]", "log_level", "\"info\"", "taken as a device section"}},
    {"type missing",
     "[cpu0]\nworkers = 2\n",
     SEALPROV_ERR_CONFIG,
     1,
     {"[cpu0]", "type", "missing"}},
    {"empty device section",
     CPU0 "[cpu1]\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu1]", "type", "missing"}},
    {"cuda without selector",
     "[gpu0]\n; a GPU\ntype = cuda\nworkers = 2\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "type", "\"cuda\"", "no device selector"}},
    {"selector on cpu",
     "[cpu0]\ndevice = 0\ntype = cpu\n",
     SEALPROV_ERR_CONFIG,
     2,
     {"[cpu0]", "device", "\"0\"", "a cpu device takes no selector"}},
    {"uuid selector on cpu",
     "[cpu0]\ntype = cpu\ndevice = uuid=GPU-5b3a2c1d-0e4f-4a6b-8c7d-9e0f1a2b3c4d\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "device", "\"uuid=GPU-5b3a2c1d-0e4f-4a6b-8c7d-9e0f1a2b3c4d\"", "no selector"}},
    {"short uuid",
     "[gpu0]\ntype = cuda\ndevice = uuid=GPU-1234\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"uuid=GPU-1234\"", "bad GPU UUID"}},
    {"uuid not hex",
     "[gpu0]\ntype = cuda\ndevice = GPU-5b3a2c1d-0e4f-4a6b-8c7d-9e0f1a2b3c4g\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"GPU-5b3a2c1d-0e4f-4a6b-8c7d-9e0f1a2b3c4g\"", "bad GPU UUID"}},
    {"uuid without GPU-",
     "[gpu0]\ntype = cuda\ndevice = uuid=5b3a2c1d-0e4f-4a6b-8c7d-9e0f1a2b3c4d\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"uuid=5b3a2c1d", "bad GPU UUID"}},
    {"MIG uuid",
     "[gpu0]\ntype = cuda\ndevice = MIG-5b3a2c1d-0e4f-4a6b-8c7d-9e0f1a2b3c4d\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"MIG-5b3a2c1d", "MIG instances"}},
    {"pci without function",
     "[gpu0]\ntype = cuda\ndevice = pci=0000:65:00\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"pci=0000:65:00\"", "bad PCI bus id"}},
    {"pci short fields",
     "[gpu0]\ntype = cuda\ndevice = pci=0000:65:0.0\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"pci=0000:65:0.0\"", "bad PCI bus id"}},
    {"pci 3-digit domain",
     "[gpu0]\ntype = cuda\ndevice = pci=000:65:00.0\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"pci=000:65:00.0\"", "bad PCI bus id"}},
    {"pci device > 1f",
     "[gpu0]\ntype = cuda\ndevice = pci=0000:65:20.0\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"pci=0000:65:20.0\"", "bad PCI bus id"}},
    {"pci function 8",
     "[gpu0]\ntype = cuda\ndevice = pci=0000:65:00.8\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"pci=0000:65:00.8\"", "bad PCI bus id"}},
    {"selector junk",
     "[gpu0]\ntype = cuda\ndevice = first\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"first\"", "not a device selector"}},
    {"selector negative",
     "[gpu0]\ntype = cuda\ndevice = -1\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"-1\"", "not a device selector"}},
    {"ordinal too large",
     "[gpu0]\ntype = cuda\ndevice = 5000\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"5000\"", "out of range (0..1023)"}},
    {"ordinal with junk",
     "[gpu0]\ntype = cuda\ndevice = 0,1\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[gpu0]", "device", "\"0,1\"", "not a number"}},
    {"zero devices",
     "[provider]\nlog_level = debug\n",
     SEALPROV_ERR_CONFIG,
     2,
     {"no device section"}},
    {"empty file", "", SEALPROV_ERR_CONFIG, 1, {"no device section"}},
    {"only comments", "; nothing\n# here\n\n", SEALPROV_ERR_CONFIG, 3, {"no device section"}},
#ifdef SP_FAULT_INJECTION
    {"unknown inject_device",
     CPU0 "[testing]\ninject_device = gpu7\ninject = fail_kernel\n",
     SEALPROV_ERR_CONFIG,
     4,
     {"[testing]", "inject_device", "\"gpu7\"", "no such device section (devices: [cpu0])"}},
    {"inject without device",
     CPU0 "[testing]\ninject = corrupt_proof\n",
     SEALPROV_ERR_CONFIG,
     4,
     {"[testing]", "inject", "\"corrupt_proof\"", "no inject_device"}},
    {"inject_device without inject",
     CPU0 "[testing]\ninject_device = cpu0\n",
     SEALPROV_ERR_CONFIG,
     4,
     {"[testing]", "inject_device", "\"cpu0\"", "without inject"}},
    {"inject_count without inject",
     CPU0 "[testing]\ninject_count = 4\n",
     SEALPROV_ERR_CONFIG,
     4,
     {"[testing]", "inject_count", "\"4\"", "without inject"}},
    {"bad inject",
     CPU0 "[testing]\ninject_device = cpu0\ninject = explode\n",
     SEALPROV_ERR_CONFIG,
     5,
     {"[testing]", "inject", "\"explode\"", "unknown fault \"explode\""}},
    {"bad inject in list",
     CPU0 "[testing]\ninject_device = cpu0\ninject = fail_kernel, boom\n",
     SEALPROV_ERR_CONFIG,
     5,
     {"[testing]", "inject", "\"fail_kernel, boom\"", "unknown fault \"boom\""}},
    {"bad inject oom spelling",
     CPU0 "[testing]\ninject_device = cpu0\ninject = out_of_memory\n",
     SEALPROV_ERR_CONFIG,
     5,
     {"[testing]", "inject", "\"out_of_memory\"",
      "unknown fault \"out_of_memory\"; use fail_kernel, corrupt_proof, oom"}},
    {"bad inject_count",
     CPU0 "[testing]\ninject_device = cpu0\ninject = fail_kernel\ninject_count = x\n",
     SEALPROV_ERR_CONFIG,
     6,
     {"[testing]", "inject_count", "\"x\"", "not a number"}},
#endif
    {"key outside section",
     "workers = 2\n" CPU0,
     SEALPROV_ERR_CONFIG,
     1,
     {"workers", "\"2\"", "outside of any section"}},
    {"no equals sign",
     CPU0 "workers 2\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"\"workers 2\"", "syntax error"}},
    {"header without ]", "[cpu0\ntype = cpu\n", SEALPROV_ERR_CONFIG, 1, {"\"[cpu0\"", "without ]"}},
    {"text after header",
     "[cpu0] x\ntype = cpu\n",
     SEALPROV_ERR_CONFIG,
     1,
     {"\"[cpu0] x\"", "text after the closing ]"}},
    {"blank in section name",
     "[gpu 0]\ntype = cpu\n",
     SEALPROV_ERR_CONFIG,
     1,
     {"[gpu 0]", "bad section name"}},
    {"empty section name", "[]\ntype = cpu\n", SEALPROV_ERR_CONFIG, 1, {"[]", "bad section name"}},
    {"missing key name",
     CPU0 "= 3\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "\"3\"", "missing key name"}},
    {"comment glued to value",
     CPU0 "workers = 2# two\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"[cpu0]", "workers", "\"2# two\"", "not a number"}},
    {"error after comments and CRLF",
     "; head\r\n\r\n[cpu0]\r\n  type = cpu ; a comment\r\n"
     "\tthreads = many\r\n",
     SEALPROV_ERR_CONFIG,
     5,
     {"[cpu0]", "threads", "\"many\"", "not a number"}},
    {"first error wins",
     CPU0 "workers = x\nthreads = y\n",
     SEALPROV_ERR_CONFIG,
     3,
     {"workers", "\"x\""}},
    {"quoted value",
     "[cpu0]\ntype = \"cpu\"\n",
     SEALPROV_ERR_CONFIG,
     2,
     {"[cpu0]", "type", "\"\"cpu\"\"", "unknown device type"}},
};

START_TEST(test_bad_ini) {
  const bad_case *c = &bad_cases[_i];
  int st = load(c->ini);
  if (getenv("SP_TEST_VERBOSE")) printf("%-32s %d %s\n", c->what, st, err);
  ck_assert_msg(st == c->status, "case \"%s\": status %d, expected %d; message: %s", c->what, st,
                c->status, err);
  size_t n = 0;
  while (n < 4 && c->needles[n]) n++;
  char prefix[700];
  snprintf(prefix, sizeof prefix, "%s:%d: ", ini_path, c->line);
  ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0,
                "case \"%s\": message does not start with \"%s\": %s", c->what, prefix, err);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(strstr(err, c->needles[i]) != NULL, "case \"%s\": message lacks \"%s\": %s",
                  c->what, c->needles[i], err);
  ck_assert_uint_eq(cfg->ndevices, 0); /* a failed load leaves no half table */
}
END_TEST

START_TEST(test_too_many_devices) {
  size_t cap = 80 * 32, used = 0;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  for (int i = 0; i <= SP_MAX_DEVICES; i++)
    used += (size_t)snprintf(text + used, cap - used, "[cpu%d]\ntype = cpu\n", i);
  int st = load(text);
  free(text);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  static const char *const needles[] = {"[cpu64]", "too many device sections (at most 64)"};
  expect_error_at(st, 2 * SP_MAX_DEVICES + 1, needles, 2);
}
END_TEST

START_TEST(test_exactly_max_devices) {
  size_t cap = 80 * 32, used = 0;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  for (int i = 0; i < SP_MAX_DEVICES; i++)
    used += (size_t)snprintf(text + used, cap - used, "[cpu%d]\ntype = cpu\n", i);
  expect_ok(text);
  free(text);
  ck_assert_uint_eq(cfg->ndevices, SP_MAX_DEVICES);
  ck_assert_str_eq(cfg->devices[63].section, "cpu63");
  ck_assert_uint_eq(cfg->devices[63].index, 63);
  ck_assert_int_eq(cfg->devices[63].line, 127);
}
END_TEST

START_TEST(test_line_too_long) {
  char text[600];
  int n = snprintf(text, sizeof text, CPU0 "threads = 1%0250d\n", 0);
  ck_assert_int_lt(n, (int)sizeof text);
  int st = load(text);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  static const char *const needles[] = {"line too long"};
  expect_error_at(st, 3, needles, 1);
}
END_TEST

START_TEST(test_long_comment_is_fine) {
  char pad[600];
  char text[2 * sizeof pad + 64];
  memset(pad, 'x', sizeof pad - 1);
  pad[sizeof pad - 1] = '\0';
  snprintf(text, sizeof text, "; %s\n" CPU0 "workers = 3 ; %s\n", pad, pad);
  expect_ok(text);
  ck_assert_uint_eq(cfg->devices[0].workers, 3);
}
END_TEST

START_TEST(test_nul_byte) {
  static const char text[] = "[cpu0]\ntype = cpu\nworkers = 1\0\n";
  write_file(ini_path, text, sizeof text - 1);
  int st = sp_config_load(ini_path, cfg, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  static const char *const needles[] = {"NUL byte"};
  expect_error_at(st, 3, needles, 1);
}
END_TEST

START_TEST(test_missing_file) {
  char path[700];
  snprintf(path, sizeof path, "%s/nope.ini", tmpdir);
  int st = sp_config_load(path, cfg, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, path) && strstr(err, "No such file"), "%s", err);
}
END_TEST

START_TEST(test_directory) {
  int st = sp_config_load(tmpdir, cfg, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_IO);
  ck_assert_msg(strstr(err, tmpdir) && strstr(err, "not a regular file (a directory)"), "%s", err);
}
END_TEST

START_TEST(test_huge_file) {
  size_t len = (1u << 20) + 1;
  char *text = malloc(len);
  ck_assert_ptr_nonnull(text);
  memset(text, '\n', len);
  write_file(ini_path, text, len);
  free(text);
  int st = sp_config_load(ini_path, cfg, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  ck_assert_msg(strstr(err, ini_path) && strstr(err, "larger than"), "%s", err);
}
END_TEST

START_TEST(test_bad_arguments) {
  ck_assert_int_eq(sp_config_load(NULL, cfg, err, sizeof err), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sp_config_load(ini_path, NULL, err, sizeof err), SEALPROV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sp_config_resolve_devices(NULL, err, sizeof err), SEALPROV_ERR_INVALID_ARGUMENT);
  /* a NULL or empty error buffer is allowed */
  write_file(ini_path, "[cpu0]\ntype = gpu\n", 18);
  ck_assert_int_eq(sp_config_load(ini_path, cfg, NULL, 0), SEALPROV_ERR_CONFIG);
  ck_assert_int_eq(sp_config_load(ini_path, cfg, err, 0), SEALPROV_ERR_CONFIG);
  char tiny[8];
  ck_assert_int_eq(sp_config_load(ini_path, cfg, tiny, sizeof tiny), SEALPROV_ERR_CONFIG);
  ck_assert_uint_eq(strlen(tiny), sizeof tiny - 1);
}
END_TEST

/* ---- good files ------------------------------------------------------------------ */

START_TEST(test_defaults) {
  expect_ok("[cpu0]\ntype = cpu\n");
  ck_assert_str_eq(cfg->path, ini_path);
  ck_assert_int_eq(cfg->log_level, SEALPROV_LOG_INFO);
  ck_assert(cfg->verify_proofs);
  ck_assert(cfg->params_subgroup_check);
  ck_assert_uint_eq(cfg->max_jobs, 64);
  ck_assert_uint_eq(cfg->max_partitions, 1024);
  ck_assert_uint_eq(cfg->quarantine_after, 3);
  ck_assert_uint_eq(cfg->max_attempts, 3);
  ck_assert_uint_eq(cfg->timeline_events, 4096);
  ck_assert_uint_eq(cfg->load_threads, 0);
  ck_assert_uint_eq(cfg->host_memory_limit, 0); /* auto: no cap */
  ck_assert_int_eq(cfg->params_residency, SP_RESIDENCY_AUTO);
  ck_assert_uint_eq(cfg->staging_chunk_bytes, 0);     /* the default, 128 MiB */
  ck_assert_str_eq(cfg->params_validation_cache, ""); /* auto */
  ck_assert_uint_eq(cfg->ndevices, 1);
  const sp_device_cfg *d = &cfg->devices[0];
  ck_assert_uint_eq(d->index, 0);
  ck_assert_str_eq(d->section, "cpu0");
  ck_assert_int_eq(d->line, 1);
  ck_assert_int_eq(d->type, SP_DEVICE_CPU);
  ck_assert_int_eq(d->selector_kind, SP_SELECT_NONE);
  ck_assert_uint_eq(d->workers, 1);
  ck_assert_uint_eq(d->threads, 0);
  ck_assert_uint_eq(d->memory_limit, 0);
  ck_assert_uint_eq(d->pinned_staging, 0); /* auto */
  ck_assert_uint_eq(d->msm_precompute, 0); /* auto */
  ck_assert_uint_eq(d->staging_chunks, 0); /* the default, 4 */
  ck_assert_uint_eq(d->staging_chunk_bytes, 0);
  ck_assert_int_eq(d->ordinal, -1);
  ck_assert_uint_eq(d->inject, 0);
  ck_assert_uint_eq(d->inject_count, 0);
}
END_TEST

START_TEST(test_provider_values) {
  expect_ok(
      "[provider]\nlog_level = DEBUG\nverify_proofs = off\nparams_subgroup_check = No\n"
      "max_jobs = 7\nmax_partitions = 70\nquarantine_after = 5\nmax_attempts = 4\n"
      "timeline_events = 0\nload_threads = 12\nparams_residency = Host\n\n[cpu0]\n"
      "type = cpu\n");
  ck_assert_int_eq(cfg->params_residency, SP_RESIDENCY_HOST);
  ck_assert_int_eq(cfg->log_level, SEALPROV_LOG_DEBUG);
  ck_assert(!cfg->verify_proofs);
  ck_assert(!cfg->params_subgroup_check);
  ck_assert_uint_eq(cfg->max_jobs, 7);
  ck_assert_uint_eq(cfg->max_partitions, 70);
  ck_assert_uint_eq(cfg->quarantine_after, 5);
  ck_assert_uint_eq(cfg->max_attempts, 4);
  ck_assert_uint_eq(cfg->timeline_events, 0);
  ck_assert_uint_eq(cfg->load_threads, 12);
}
END_TEST

/* params_validation_cache: auto (stored as ""), off, or an absolute folder as given. */
START_TEST(test_validation_cache_values) {
  expect_ok("[provider]\nparams_validation_cache = /var/lib/sp cache\n[cpu0]\ntype = cpu\n");
  ck_assert_str_eq(cfg->params_validation_cache, "/var/lib/sp cache");
  expect_ok("[provider]\nparams_validation_cache = OFF\n[cpu0]\ntype = cpu\n");
  ck_assert_str_eq(cfg->params_validation_cache, "off");
  expect_ok("[provider]\nparams_validation_cache = Auto\n[cpu0]\ntype = cpu\n");
  ck_assert_str_eq(cfg->params_validation_cache, "");
}
END_TEST

/* params_shared_image: off (stored as "", the default), auto, or an absolute folder. */
START_TEST(test_shared_image_values) {
  expect_ok("[cpu0]\ntype = cpu\n");
  ck_assert_str_eq(cfg->params_shared_image, "");
  expect_ok("[provider]\nparams_shared_image = AUTO\n[cpu0]\ntype = cpu\n");
  ck_assert_str_eq(cfg->params_shared_image, "auto");
  expect_ok("[provider]\nparams_shared_image = /mnt/huge pages\n[cpu0]\ntype = cpu\n");
  ck_assert_str_eq(cfg->params_shared_image, "/mnt/huge pages");
  expect_ok(
      "[provider]\nparams_shared_image = Off\nparams_validation_cache = off\n"
      "[cpu0]\ntype = cpu\n");
  ck_assert_str_eq(cfg->params_shared_image, "");
}
END_TEST

START_TEST(test_log_levels) {
  static const struct {
    const char *w;
    int level;
  } t[] = {
      {"error", SEALPROV_LOG_ERROR},
      {"warn", SEALPROV_LOG_WARN},
      {"info", SEALPROV_LOG_INFO},
      {"Debug", SEALPROV_LOG_DEBUG},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char text[128];
    snprintf(text, sizeof text, "[provider]\nlog_level = %s\n" CPU0, t[i].w);
    expect_ok(text);
    ck_assert_int_eq(cfg->log_level, t[i].level);
  }
}
END_TEST

START_TEST(test_booleans) {
  static const struct {
    const char *w;
    bool v;
  } t[] = {
      {"true", true},   {"yes", true}, {"on", true},   {"1", true},  {"TRUE", true},
      {"false", false}, {"no", false}, {"off", false}, {"0", false}, {"Off", false},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char text[128];
    snprintf(text, sizeof text, "[provider]\nverify_proofs = %s\n" CPU0, t[i].w);
    expect_ok(text);
    ck_assert_msg(cfg->verify_proofs == t[i].v, "verify_proofs = %s", t[i].w);
  }
}
END_TEST

START_TEST(test_memory_units) {
  static const struct {
    const char *w;
    uint64_t bytes;
  } t[] = {
      {"0", 0},
      {"512", 512},
      {"512B", 512},
      {"1KiB", 1024},
      {"3MiB", 3ull << 20},
      {"16GiB", 16ull << 30},
      {"16 GiB", 16ull << 30},
      {"2TiB", 2ull << 40},
      {"1KB", 1000},
      {"2MB", 2000000},
      {"3GB", 3000000000ull},
      {"4TB", 4000000000000ull},
      {"16777215TiB", 16777215ull << 40},
      {"18446744073709551615", UINT64_MAX},
      {"18446744073709551615B", UINT64_MAX},
      {"007KiB", 7 * 1024},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char text[128];
    snprintf(text, sizeof text, CPU0 "memory_limit = %s\n", t[i].w);
    expect_ok(text);
    ck_assert_msg(cfg->devices[0].memory_limit == t[i].bytes, "memory_limit = %s gave %llu", t[i].w,
                  (unsigned long long)cfg->devices[0].memory_limit);
  }
}
END_TEST

START_TEST(test_pinned_staging) {
  static const struct {
    const char *w;
    uint64_t v;
  } t[] = {
      {"auto", 0},
      {"AUTO", 0},
      {"off", SP_PINNED_STAGING_OFF},
      {"Off", SP_PINNED_STAGING_OFF},
      {"0", SP_PINNED_STAGING_OFF},
      {"0GiB", SP_PINNED_STAGING_OFF},
      {"4096", 4096},
      {"32GiB", 32ull << 30},
      {"100 GB", 100000000000ull},
      {"18446744073709551615", SP_PINNED_STAGING_CHUNKED - 1}, /* "no limit", kept apart
                                                                    from off and the words */
      {"chunked", SP_PINNED_STAGING_CHUNKED},
      {"Whole", SP_PINNED_STAGING_WHOLE},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char text[128];
    snprintf(text, sizeof text, "[gpu0]\ntype = cuda\ndevice = 0\npinned_staging = %s\n", t[i].w);
    expect_ok(text);
    ck_assert_msg(cfg->devices[0].pinned_staging == t[i].v, "pinned_staging = %s gave %llu", t[i].w,
                  (unsigned long long)cfg->devices[0].pinned_staging);
  }
}
END_TEST

START_TEST(test_msm_precompute) {
  static const struct {
    const char *w;
    uint64_t v;
  } t[] = {
      {"auto", 0},
      {"Auto", 0},
      {"off", SP_MSM_PRECOMPUTE_OFF},
      {"OFF", SP_MSM_PRECOMPUTE_OFF},
      {"0", SP_MSM_PRECOMPUTE_OFF},
      {"0MiB", SP_MSM_PRECOMPUTE_OFF},
      {"4096", 4096},
      {"24GiB", 24ull << 30},
      {"30 GB", 30000000000ull},
      {"18446744073709551615", SP_MSM_PRECOMPUTE_OFF - 1}, /* no limit, kept apart from off */
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char text[128];
    snprintf(text, sizeof text, "[gpu0]\ntype = cuda\ndevice = 0\nmsm_precompute = %s\n", t[i].w);
    expect_ok(text);
    ck_assert_msg(cfg->devices[0].msm_precompute == t[i].v, "msm_precompute = %s gave %llu", t[i].w,
                  (unsigned long long)cfg->devices[0].msm_precompute);
  }
}
END_TEST

START_TEST(test_host_memory_limit) {
  static const struct {
    const char *w;
    uint64_t v;
  } t[] = {
      {"auto", 0}, {"OFF", 0}, {"0", 0}, {"16GiB", 16ull << 30}, {"4096", 4096},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char text[128];
    snprintf(text, sizeof text, "[provider]\nhost_memory_limit = %s\n" CPU0, t[i].w);
    expect_ok(text);
    ck_assert_msg(cfg->host_memory_limit == t[i].v, "host_memory_limit = %s gave %llu", t[i].w,
                  (unsigned long long)cfg->host_memory_limit);
  }
}
END_TEST

/* staging_chunk_size ([provider]) reaches every device; staging_chunks is per device */
START_TEST(test_staging_chunks) {
  static const struct {
    const char *w;
    uint64_t v;
  } t[] = {
      {"1MiB", 1ull << 20},     {"1048576", 1ull << 20}, {"256MiB", 256ull << 20},
      {"100 MB", 100000000ull}, {"4GiB", 4ull << 30},    {"4096MiB", 4ull << 30},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char text[200];
    snprintf(text, sizeof text,
             "[gpu0]\ntype = cuda\ndevice = 0\nstaging_chunks = 1\n"
             "[provider]\nstaging_chunk_size = %s\n"
             "[gpu1]\ntype = cuda\ndevice = 1\nstaging_chunks = 16\n[cpu0]\ntype = cpu\n",
             t[i].w);
    expect_ok(text);
    ck_assert_msg(cfg->staging_chunk_bytes == t[i].v, "staging_chunk_size = %s gave %llu", t[i].w,
                  (unsigned long long)cfg->staging_chunk_bytes);
    for (size_t k = 0; k < 3; k++)
      ck_assert_msg(cfg->devices[k].staging_chunk_bytes == t[i].v, "[%s] has %llu",
                    cfg->devices[k].section,
                    (unsigned long long)cfg->devices[k].staging_chunk_bytes);
    ck_assert_uint_eq(cfg->devices[0].staging_chunks, 1);
    ck_assert_uint_eq(cfg->devices[1].staging_chunks, 16);
    ck_assert_uint_eq(cfg->devices[2].staging_chunks, 0); /* not set: the default */
  }
}
END_TEST

START_TEST(test_selectors) {
  expect_ok(
      "[provider]\n\n"
      "[gpu0]\ntype = cuda\ndevice = 0\n\n"
      "[gpu1]\ntype = CUDA\ndevice = uuid=GPU-5B3A2C1D-0e4f-4a6b-8c7d-9e0f1a2b3c4d\nworkers = 3\n\n"
      "[gpu2]\ntype = cuda\ndevice = GPU-00112233-4455-6677-8899-aabbccddeeff\n\n"
      "[gpu3]\ntype = cuda\ndevice = pci=0000:65:00.0\n\n"
      "[gpu4]\ntype = cuda\ndevice = PCI=00000000:CA:1f.0\n\n"
      "[gpu5]\ntype = cuda\ndevice = pci=3b:00.0\n"
      "[cpu0]\ntype = cpu\nworkers = 4\nthreads = 16\n");
  ck_assert_uint_eq(cfg->ndevices, 7);
  const sp_device_cfg *d = cfg->devices;
  ck_assert_int_eq(d[0].type, SP_DEVICE_CUDA);
  ck_assert_int_eq(d[0].selector_kind, SP_SELECT_ORDINAL);
  ck_assert_int_eq(d[0].selector_ordinal, 0);
  ck_assert_str_eq(d[0].selector, "0");
  ck_assert_int_eq(d[0].selector_line, 5);
  ck_assert_uint_eq(d[0].workers, 2); /* the cuda default */
  ck_assert_int_eq(d[0].line, 3);
  ck_assert_int_eq(d[1].selector_kind, SP_SELECT_UUID);
  ck_assert_str_eq(d[1].selector, "GPU-5B3A2C1D-0e4f-4a6b-8c7d-9e0f1a2b3c4d");
  ck_assert_uint_eq(d[1].workers, 3);
  ck_assert_int_eq(d[2].selector_kind, SP_SELECT_UUID);
  ck_assert_str_eq(d[2].selector, "GPU-00112233-4455-6677-8899-aabbccddeeff");
  ck_assert_int_eq(d[3].selector_kind, SP_SELECT_PCI);
  ck_assert_str_eq(d[3].selector, "0000:65:00.0");
  ck_assert_int_eq(d[4].selector_kind, SP_SELECT_PCI);
  ck_assert_str_eq(d[4].selector, "00000000:CA:1f.0");
  ck_assert_int_eq(d[5].selector_kind, SP_SELECT_PCI);
  ck_assert_str_eq(d[5].selector, "3b:00.0");
  ck_assert_int_eq(d[6].type, SP_DEVICE_CPU);
  ck_assert_uint_eq(d[6].workers, 4);
  ck_assert_uint_eq(d[6].threads, 16);
  for (unsigned i = 0; i < 7; i++) ck_assert_uint_eq(d[i].index, i);
}
END_TEST

START_TEST(test_syntax_tolerance) {
  /* BOM, CRLF, indentation, both comment styles, inline comments, "name: value",
   * key names and words in any case; an indented line is a key, never a continuation */
  expect_ok(
      "\xEF\xBB\xBF; sample\r\n# other comment style\r\n[provider]\r\n"
      "  Log_Level = Warn   ; inline\r\n\tmax_jobs: 9 # inline too\r\n\r\n"
      "   [cpu0]   \r\n  type = cpu\r\n    workers = 2\r\n  threads = 8\r\n");
  ck_assert_int_eq(cfg->log_level, SEALPROV_LOG_WARN);
  ck_assert_uint_eq(cfg->max_jobs, 9);
  ck_assert_uint_eq(cfg->ndevices, 1);
  ck_assert_int_eq(cfg->devices[0].line, 7);
  ck_assert_uint_eq(cfg->devices[0].workers, 2);
  ck_assert_uint_eq(cfg->devices[0].threads, 8);
}
END_TEST

START_TEST(test_no_final_newline) {
  expect_ok("[cpu0]\ntype = cpu\nworkers = 5");
  ck_assert_uint_eq(cfg->devices[0].workers, 5);
}
END_TEST

#ifdef SP_FAULT_INJECTION
START_TEST(test_testing_section) {
  expect_ok(
      "[cpu0]\ntype = cpu\n[cpu1]\ntype = cpu\n"
      "[testing]\ninject_device = CPU1\ninject = fail_kernel, corrupt_proof\ninject_count = 2\n");
  ck_assert_uint_eq(cfg->devices[0].inject, 0);
  ck_assert_uint_eq(cfg->devices[1].inject, SP_INJECT_FAIL_KERNEL | SP_INJECT_CORRUPT_PROOF);
  ck_assert_uint_eq(cfg->devices[1].inject_count, 2);
  expect_ok("[testing]\ninject_device = cpu0\ninject = corrupt_proof\n[cpu0]\ntype = cpu\n");
  ck_assert_uint_eq(cfg->devices[0].inject, SP_INJECT_CORRUPT_PROOF);
  ck_assert_uint_eq(cfg->devices[0].inject_count, 0);
  expect_ok("[testing]\ninject_device = cpu0\ninject = OOM\n[cpu0]\ntype = cpu\n");
  ck_assert_uint_eq(cfg->devices[0].inject, SP_INJECT_OOM);
  expect_ok("[testing]\ninject_device = cpu0\ninject = oom, fail_kernel\n[cpu0]\ntype = cpu\n");
  ck_assert_uint_eq(cfg->devices[0].inject, SP_INJECT_OOM | SP_INJECT_FAIL_KERNEL);
  expect_ok("[testing]\ninject_device = cpu0\ninject = Slow\n[cpu0]\ntype = cpu\n");
  ck_assert_uint_eq(cfg->devices[0].inject, SP_INJECT_SLOW);
  /* an empty [testing] section injects nothing */
  expect_ok("[testing]\n[cpu0]\ntype = cpu\n");
  ck_assert_uint_eq(cfg->devices[0].inject, 0);
}
END_TEST
#endif

/* The installed sample must parse and resolve on a machine without GPUs. */
START_TEST(test_sample_config) {
  const char *top = getenv("top_srcdir");
  char path[4096];
  snprintf(path, sizeof path, "%s/conf/sealprov.ini", top && *top ? top : ".");
  int st = sp_config_load(path, cfg, err, sizeof err);
  ck_assert_msg(st == SEALPROV_OK, "%s: %s", path, err);
  ck_assert_uint_eq(cfg->ndevices, 2);
  for (size_t i = 0; i < cfg->ndevices; i++) ck_assert_int_eq(cfg->devices[i].type, SP_DEVICE_CPU);
  ck_assert_int_eq(sp_config_resolve_devices(cfg, err, sizeof err), SEALPROV_OK);
}
END_TEST

/* ---- resolution ----------------------------------------------------------------- */

START_TEST(test_resolve_cpu_only) {
  expect_ok("[a]\ntype = cpu\n[b]\ntype = cpu\nworkers = 3\n[c]\ntype = cpu\n");
  ck_assert_int_eq(sp_config_resolve_devices(cfg, err, sizeof err), SEALPROV_OK);
  ck_assert_uint_eq(cfg->ndevices, 3);
  for (size_t i = 0; i < 3; i++) {
    ck_assert_int_eq(cfg->devices[i].ordinal, -1);
    ck_assert_str_eq(cfg->devices[i].name, "CPU");
    ck_assert_str_eq(cfg->devices[i].uuid, "");
    ck_assert_str_eq(cfg->devices[i].pci_bus_id, "");
  }
  ck_assert_uint_eq(cfg->devices[1].workers, 3);
}
END_TEST

/* On this host: a cuda section either cannot be served by this build (UNSUPPORTED) or
 * names a GPU that no host has (CONFIG, "GPU not present"). */
START_TEST(test_resolve_cuda_here) {
  static const char *const sels[] = {"1023", "uuid=GPU-00000000-0000-0000-0000-000000000001",
                                     "pci=ffff:ff:1f.7"};
  for (size_t i = 0; i < sizeof sels / sizeof sels[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, "[cpu0]\ntype = cpu\n[gpu0]\ntype = cuda\ndevice = %s\n", sels[i]);
    expect_ok(text);
    int st = sp_config_resolve_devices(cfg, err, sizeof err);
#ifdef HAVE_CUDA
    ck_assert_msg(st == SEALPROV_ERR_CONFIG, "%s: status %d: %s", sels[i], st, err);
    char prefix[700];
    snprintf(prefix, sizeof prefix,
             "%s:5: [gpu0] device = \"%s\": GPU not present; this process sees", ini_path, sels[i]);
    ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "expected \"%s...\", got: %s", prefix,
                  err);
#else
    ck_assert_msg(st == SEALPROV_ERR_UNSUPPORTED, "%s: status %d: %s", sels[i], st, err);
    char prefix[700];
    snprintf(prefix, sizeof prefix,
             "%s:3: [gpu0]: a cuda device (type = cuda), but this build of sealprov has no CUDA",
             ini_path);
    ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "expected \"%s...\", got: %s", prefix,
                  err);
#endif
  }
}
END_TEST

/* Two GPUs as a process started with CUDA_VISIBLE_DEVICES=1,0 (or the default
 * FASTEST_FIRST order) would see them: runtime ordinal 0 is the card at 0000:ca:00.0. */
static const sp_gpu_info fake_gpus[2] = {
    {.ordinal = 0,
     .name = "NVIDIA H200",
     .uuid = "GPU-bbbbbbbb-0000-1111-2222-333333333333",
     .pci_bus_id = "0000:ca:00.0",
     .total_memory = 150ull << 30,
     .cc_major = 9,
     .sm_count = 132},
    {.ordinal = 1,
     .name = "NVIDIA H200",
     .uuid = "GPU-aaaaaaaa-0000-1111-2222-333333333333",
     .pci_bus_id = "0000:65:00.0",
     .total_memory = 150ull << 30,
     .cc_major = 9,
     .sm_count = 132},
};

START_TEST(test_match_by_properties) {
  expect_ok(
      "[first]\ntype = cuda\ndevice = uuid=GPU-AAAAAAAA-0000-1111-2222-333333333333\n"
      "[second]\ntype = cuda\ndevice = pci=00000000:CA:00.0\n[cpu]\ntype = cpu\n");
  ck_assert_int_eq(sp_config_resolve_with_gpus(cfg, fake_gpus, 2, err, sizeof err), SEALPROV_OK);
  /* the UUID/PCI names the physical card, whatever ordinal the runtime gave it */
  ck_assert_int_eq(cfg->devices[0].ordinal, 1);
  ck_assert_str_eq(cfg->devices[0].pci_bus_id, "0000:65:00.0");
  ck_assert_str_eq(cfg->devices[0].uuid, "GPU-aaaaaaaa-0000-1111-2222-333333333333");
  ck_assert_str_eq(cfg->devices[0].name, "NVIDIA H200");
  ck_assert_int_eq(cfg->devices[1].ordinal, 0);
  ck_assert_str_eq(cfg->devices[1].uuid, "GPU-bbbbbbbb-0000-1111-2222-333333333333");
  ck_assert_int_eq(cfg->devices[2].ordinal, -1);
}
END_TEST

START_TEST(test_match_ordinal_and_lspci_form) {
  expect_ok("[g]\ntype = cuda\ndevice = 1\n[h]\ntype = cuda\ndevice = pci=ca:00.0\n");
  ck_assert_int_eq(sp_config_resolve_with_gpus(cfg, fake_gpus, 2, err, sizeof err), SEALPROV_OK);
  ck_assert_int_eq(cfg->devices[0].ordinal, 1);
  ck_assert_str_eq(cfg->devices[0].pci_bus_id, "0000:65:00.0");
  ck_assert_int_eq(cfg->devices[1].ordinal, 0);
}
END_TEST

START_TEST(test_same_gpu_twice) {
  expect_ok(
      "[gpu0]\ntype = cuda\ndevice = 0\n\n"
      "[gpu1]\ntype = cuda\ndevice = GPU-BBBBBBBB-0000-1111-2222-333333333333\n");
  int st = sp_config_resolve_with_gpus(cfg, fake_gpus, 2, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  static const char *const needles[] = {
      "[gpu1] device = \"uuid=GPU-BBBBBBBB-0000-1111-2222-333333333333\"",
      "the same GPU as [gpu0] (line 3)", "ordinal 0", "0000:ca:00.0"};
  expect_error_at(st, 7, needles, 4);

  expect_ok("[x]\ntype = cuda\ndevice = pci=0000:65:00.0\n[y]\ntype = cuda\ndevice = 1\n");
  st = sp_config_resolve_with_gpus(cfg, fake_gpus, 2, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  static const char *const needles2[] = {"[y] device = \"1\"", "the same GPU as [x] (line 3)"};
  expect_error_at(st, 6, needles2, 2);
}
END_TEST

START_TEST(test_not_present_lists_gpus) {
  unsetenv("CUDA_VISIBLE_DEVICES");
  expect_ok("[gpu0]\ntype = cuda\ndevice = 0\n[gpu2]\ntype = cuda\ndevice = 2\n");
  int st = sp_config_resolve_with_gpus(cfg, fake_gpus, 2, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  static const char *const needles[] = {
      "[gpu2] device = \"2\": GPU not present; this process sees 2 GPUs:",
      "0 = NVIDIA H200 GPU-bbbbbbbb-0000-1111-2222-333333333333 pci=0000:ca:00.0",
      "1 = NVIDIA H200 GPU-aaaaaaaa-0000-1111-2222-333333333333 pci=0000:65:00.0"};
  expect_error_at(st, 6, needles, 3);
  ck_assert_ptr_null(strstr(err, "CUDA_VISIBLE_DEVICES"));

  /* the environment the host started with is named, never changed */
  ck_assert_int_eq(setenv("CUDA_VISIBLE_DEVICES", "1,0", 1), 0);
  expect_ok("[g]\ntype = cuda\ndevice = pci=0000:17:00.0\n");
  st = sp_config_resolve_with_gpus(cfg, fake_gpus, 2, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  static const char *const needles2[] = {"[g] device = \"pci=0000:17:00.0\": GPU not present",
                                         "CUDA_VISIBLE_DEVICES=1,0 limits what it sees"};
  expect_error_at(st, 3, needles2, 2);
  ck_assert_str_eq(getenv("CUDA_VISIBLE_DEVICES"), "1,0");

  expect_ok("[g]\ntype = cuda\ndevice = uuid=GPU-cccccccc-0000-1111-2222-333333333333\n");
  st = sp_config_resolve_with_gpus(cfg, NULL, 0, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  static const char *const needles3[] = {"GPU not present; this process sees no GPU"};
  expect_error_at(st, 3, needles3, 1);
}
END_TEST

/* docs/design.md rule 1, for the files of this area: device choice never goes through the
 * environment. */
START_TEST(test_sources_never_set_cuda_env) {
  static const char *const files[] = {"plugin/runtime/ini.c", "cuda/util/cuda_devices.cu"};
  const char *top = getenv("top_srcdir");
  for (size_t i = 0; i < 2; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", top && *top ? top : ".", files[i]);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    static char buf[1 << 17];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    ck_assert_msg(n > 1000, "%s: too short (%zu bytes)", path, n);
    ck_assert_msg(!strstr(buf, "setenv(") && !strstr(buf, "putenv("), "%s sets the environment",
                  path);
    ck_assert_msg(!strstr(buf, "cudaSetDevice("), "%s changes the current device", path);
  }
}
END_TEST

static Suite *config_suite(void) {
  Suite *s = suite_create("config");
  TCase *tc = tcase_create("bad");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_bad_ini, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
  tcase_add_test(tc, test_too_many_devices);
  tcase_add_test(tc, test_line_too_long);
  tcase_add_test(tc, test_nul_byte);
  tcase_add_test(tc, test_missing_file);
  tcase_add_test(tc, test_directory);
  tcase_add_test(tc, test_huge_file);
  tcase_add_test(tc, test_bad_arguments);
  suite_add_tcase(s, tc);

  tc = tcase_create("good");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_defaults);
  tcase_add_test(tc, test_provider_values);
  tcase_add_test(tc, test_validation_cache_values);
  tcase_add_test(tc, test_shared_image_values);
  tcase_add_test(tc, test_log_levels);
  tcase_add_test(tc, test_booleans);
  tcase_add_test(tc, test_memory_units);
  tcase_add_test(tc, test_pinned_staging);
  tcase_add_test(tc, test_msm_precompute);
  tcase_add_test(tc, test_host_memory_limit);
  tcase_add_test(tc, test_staging_chunks);
  tcase_add_test(tc, test_selectors);
  tcase_add_test(tc, test_syntax_tolerance);
  tcase_add_test(tc, test_no_final_newline);
#ifdef SP_FAULT_INJECTION
  tcase_add_test(tc, test_testing_section);
#endif
  tcase_add_test(tc, test_exactly_max_devices);
  tcase_add_test(tc, test_long_comment_is_fine);
  tcase_add_test(tc, test_sample_config);
  suite_add_tcase(s, tc);
  return s;
}

static Suite *resolve_suite(void) {
  Suite *s = suite_create("resolve");
  TCase *tc = tcase_create("devices");
  tcase_add_checked_fixture(tc, setup, teardown);
  /* cuda sections make the runtime load the driver: allow for a slow first call */
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_resolve_cpu_only);
  tcase_add_test(tc, test_resolve_cuda_here);
  tcase_add_test(tc, test_match_by_properties);
  tcase_add_test(tc, test_match_ordinal_and_lspci_form);
  tcase_add_test(tc, test_same_gpu_twice);
  tcase_add_test(tc, test_not_present_lists_gpus);
  tcase_add_test(tc, test_sources_never_set_cuda_env);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(config_suite());
  srunner_add_suite(sr, resolve_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
