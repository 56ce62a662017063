/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* old_module.c -- a stand-in for a module built before ABI 1.2, for topo_cli.sh: its
 * devices() writes entries of the 1.1 size (ending at lock_wait_seconds), one after
 * the other, as such a module does whatever struct_size the host passes. The CLI must
 * read two devices from that, not one and a garbled second. Nothing else works: open
 * accepts any INI, and every other call but close refuses. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sealprov.h"

#define OLD_SIZE offsetof(sealprov_device_info, numa_node)

static int dummy;

static const char *o_version(void) { return "0.0.1-old"; }
static const char *o_strerror(int st) { return st == SEALPROV_OK ? "ok" : "not in the old module"; }
static const char *o_last_error(void) { return ""; }
static int o_open(const char *ini, sealprov_provider **out) {
  (void)ini;
  *out = (sealprov_provider *)&dummy;
  return SEALPROV_OK;
}
static int o_close(sealprov_provider *p) {
  (void)p;
  return SEALPROV_OK;
}
static int o_devices(sealprov_provider *p, sealprov_device_info *out, size_t cap, size_t *count) {
  (void)p;
  *count = 2;
  for (size_t i = 0; i < cap && i < 2; i++) {
    sealprov_device_info e;
    memset(&e, 0, sizeof e);
    e.struct_size = (uint32_t)OLD_SIZE;
    e.index = (int32_t)i;
    snprintf(e.section, sizeof e.section, "old%zu", i);
    snprintf(e.type, sizeof e.type, "cpu");
    snprintf(e.name, sizeof e.name, "CPU");
    e.ordinal = -1;
    e.confirmed_ordinal = -1;
    e.workers = (uint32_t)(i + 1);
    e.memory_limit = 1000 + i;
    memcpy((char *)out + i * OLD_SIZE, &e, OLD_SIZE);
  }
  return SEALPROV_OK;
}

static sealprov_vtable vt;

int sealprov_provider_init(uint32_t major, uint32_t minor, const sealprov_host *host,
                           const sealprov_vtable **out);

__attribute__((visibility("default"))) int sealprov_provider_init(uint32_t major, uint32_t minor,
                                                                  const sealprov_host *host,
                                                                  const sealprov_vtable **out) {
  (void)minor;
  (void)host;
  if (major != 1) return SEALPROV_ERR_ABI_VERSION;
  vt.abi_major = 1;
  vt.abi_minor = 1;
  vt.struct_size = (uint32_t)offsetof(sealprov_vtable, cs_load);
  vt.version = o_version;
  vt.strerror = o_strerror;
  vt.last_error = o_last_error;
  vt.open = o_open;
  vt.close = o_close;
  vt.devices = o_devices;
  *out = &vt;
  return SEALPROV_OK;
}
