/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_ini.c -- libFuzzer harness for the INI parser (sp_config_load, plugin/runtime/ini.c)
 * and the selector matching of sp_config_resolve_with_gpus against two made-up GPUs.
 *
 * Properties checked on every input, beyond "no crash, no sanitizer report":
 *  - the status is OK or CONFIG (the file is at most 1 MiB here and always readable);
 *  - a message is always NUL-terminated valid UTF-8, and empty exactly on OK;
 *  - OK means 1..SP_MAX_DEVICES devices, each with a valid section name, a type, and
 *    a selector only on cuda devices; a failure leaves no device table behind. */
#include "fuzz_common.h"

#include "runtime/device_table.h"
#include "util/cuda_api.h"
#include "sealprov.h"

static sp_config cfg;
static char err[2048];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1u << 20)) return 0; /* past the parser's limit: one cheap error path */
  const char *path = fuzz_as_file(data, size);
  memset(err, 0x55, sizeof err);
  int st = sp_config_load(path, &cfg, err, sizeof err);
  fuzz_check_message(err, sizeof err);
  FUZZ_CHECK(st == SEALPROV_OK || st == SEALPROV_ERR_CONFIG, "status %d: %s", st, err);
  if (st != SEALPROV_OK) {
    FUZZ_CHECK(err[0] != '\0', "status %d without a message", st);
    FUZZ_CHECK(strncmp(err, path, strlen(path)) == 0, "message does not start with the path: %s",
               err);
    FUZZ_CHECK(cfg.ndevices == 0, "failed load left %zu devices", cfg.ndevices);
    return 0;
  }
  FUZZ_CHECK(err[0] == '\0', "OK with a message: %s", err);
  FUZZ_CHECK(cfg.ndevices >= 1 && cfg.ndevices <= SP_MAX_DEVICES, "ndevices %zu", cfg.ndevices);
  for (size_t i = 0; i < cfg.ndevices; i++) {
    const sp_device_cfg *d = &cfg.devices[i];
    FUZZ_CHECK(d->section[0] != '\0', "device %zu without a section name", i);
    FUZZ_CHECK(d->type == SP_DEVICE_CPU || d->type == SP_DEVICE_CUDA, "device %zu type %d", i,
               (int)d->type);
    FUZZ_CHECK((d->type == SP_DEVICE_CUDA) == (d->selector_kind != SP_SELECT_NONE),
               "device [%s]: type %d with selector kind %d", d->section, (int)d->type,
               (int)d->selector_kind);
    FUZZ_CHECK(d->workers >= 1 && d->workers <= 64, "device [%s]: workers %u", d->section,
               d->workers);
  }
  /* Two GPUs as sp_cuda_enumerate would report them; the selectors that parsed must
   * resolve or be refused with a message, never crash. */
  static const sp_gpu_info gpus[2] = {
      {.ordinal = 0,
       .name = "Fuzz GPU",
       .uuid = "GPU-0123abcd-4567-89ab-cdef-0123456789ab",
       .pci_bus_id = "0000:65:00.0"},
      {.ordinal = 1,
       .name = "Fuzz GPU",
       .uuid = "GPU-ffffffff-0000-1111-2222-333333333333",
       .pci_bus_id = "0000:b3:00.0"},
  };
  memset(err, 0x55, sizeof err);
  st = sp_config_resolve_with_gpus(&cfg, gpus, 2, err, sizeof err);
  fuzz_check_message(err, sizeof err);
  FUZZ_CHECK(st == SEALPROV_OK || st == SEALPROV_ERR_CONFIG, "resolve status %d: %s", st, err);
  if (st == SEALPROV_OK) {
    for (size_t i = 0; i < cfg.ndevices; i++)
      if (cfg.devices[i].type == SP_DEVICE_CUDA)
        FUZZ_CHECK(cfg.devices[i].ordinal == 0 || cfg.devices[i].ordinal == 1,
                   "[%s] resolved to ordinal %d", cfg.devices[i].section, cfg.devices[i].ordinal);
  }
  return 0;
}
