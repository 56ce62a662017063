/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* minimal_host.c -- the smallest complete host of the sealprov module.
 *
 *   cc -I/usr/local/include minimal_host.c -o minimal_host -ldl
 *   ./minimal_host /usr/local/lib/sealprov/sealprov.so /usr/local/etc/sealprov/sealprov.ini \
 *       [KEY.vk INPUTS_HEX PROOF_FILE]
 *
 * It loads the module with dlopen, negotiates the ABI, opens a provider with an INI
 * file, prints the devices and the counters, and closes. Given a verifying key (a .vk
 * file: vk_load refuses a .params file), the public inputs and a proof file, it also
 * verifies the proof; `sealprov inspect --inputs-hex PARTITION.spa` prints the inputs
 * in the form INPUTS_HEX takes. It needs
 * only <sealprov.h> and libdl: a host links nothing of the module. The test suite
 * builds and runs it (tests/abi/minimal_host.sh). See docs/abi.md.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sealprov.h>

/* The module logs through this, from any of its threads. */
static void host_log(void *user, int level, const char *msg) {
  (void)user;
  static const char *const names[] = {"error", "warn", "info", "debug"};
  fprintf(stderr, "[sealprov %s] %s\n", level >= 0 && level <= 3 ? names[level] : "?", msg);
}

/* Every failed call: the status text and the calling thread's detail. */
static int fail(const sealprov_vtable *vt, const char *what, int status) {
  fprintf(stderr, "%s: %s: %s\n", what, vt->strerror(status), vt->last_error());
  return 1;
}

static const char *state_name(int state) {
  static const char *const names[] = {"ready", "busy", "quarantined", "stopped"};
  return state >= 0 && state <= 3 ? names[state] : "?";
}

/* Verifies one proof: inputs as hex, 64 hex digits (32 bytes little-endian) each,
 * comma-separated, without the leading ONE. */
static int verify_one(const sealprov_vtable *vt, sealprov_provider *p, const char *vk_path,
                      const char *inputs_hex, const char *proof_path) {
  sealprov_srs *vk = NULL;
  int st = vt->vk_load(p, vk_path, &vk);
  if (st != SEALPROV_OK) return fail(vt, "vk_load", st);
  size_t n = *inputs_hex ? 1 : 0;
  for (const char *c = inputs_hex; *c; c++) n += *c == ',';
  uint8_t *inputs = calloc(n ? n : 1, 32);
  const char *c = inputs_hex;
  for (size_t i = 0; i < n; i++) {
    for (int b = 0; b < 32; b++) {
      unsigned v;
      if (sscanf(c + 2 * b, "%2x", &v) != 1) {
        fprintf(stderr, "input %zu: expected 64 hex digits\n", i);
        free(inputs);
        vt->srs_release(vk);
        return 1;
      }
      inputs[32 * i + b] = (uint8_t)v;
    }
    c += 64;
    if (*c == ',') c++;
  }
  uint8_t proof[SEALPROV_PROOF_BYTES];
  FILE *f = fopen(proof_path, "rb");
  size_t got = f ? fread(proof, 1, sizeof proof, f) : 0;
  if (f) fclose(f);
  int valid = 0;
  st = got == sizeof proof
           ? vt->verify(p, vk, inputs, n, SEALPROV_SCALAR_CANONICAL_LE, proof, &valid)
           : SEALPROV_ERR_IO;
  free(inputs);
  /* Report before the next call: last_error() describes this thread's latest call. */
  int rc = st != SEALPROV_OK ? fail(vt, "verify", st) : valid ? 0 : 1;
  if (st == SEALPROV_OK) printf("proof %s: %s\n", proof_path, valid ? "valid" : "INVALID");
  vt->srs_release(vk); /* the module frees it when nothing else holds it */
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 6) {
    fprintf(stderr, "usage: %s MODULE.so CONFIG.ini [KEY.vk INPUTS_HEX PROOF_FILE]\n", argv[0]);
    return 2;
  }

  /* 1. Load the module. RTLD_LOCAL keeps its symbols out of our namespace. */
  void *dl = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  /* 2. The one exported symbol. (A union converts dlsym's void * cleanly.) */
  union {
    void *obj;
    sealprov_provider_init_fn fn;
  } entry = {.obj = dlsym(dl, SEALPROV_ENTRY_SYMBOL)};
  if (entry.obj == NULL) {
    fprintf(stderr, "%s is not a sealprov module\n", argv[1]);
    dlclose(dl);
    return 1;
  }
  /* 3. Negotiate: we pass the version we were built against and our services. */
  const sealprov_host host = {
      .struct_size = sizeof host,
      .log_level = SEALPROV_LOG_WARN,
      .log = host_log,
      .log_user = NULL,
  };
  const sealprov_vtable *vt = NULL;
  int st = entry.fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, &host, &vt);
  if (st != SEALPROV_OK) { /* the module logged both versions through host_log */
    dlclose(dl);
    return 1;
  }
  /* A module of a later minor has more fields; one of an earlier minor fewer. */
  if (!SEALPROV_VTABLE_HAS(vt, timeline)) {
    fprintf(stderr, "module too old: no timeline()\n");
    dlclose(dl);
    return 1;
  }
  printf("module %s, ABI %u.%u\n", vt->version(), vt->abi_major, vt->abi_minor);

  /* 4. Open: parses the INI, binds every worker to its device, or fails cleanly. */
  sealprov_provider *p = NULL;
  st = vt->open(argv[2], &p);
  if (st != SEALPROV_OK) {
    int rc = fail(vt, "open", st);
    dlclose(dl);
    return rc;
  }

  /* 5. What is bound where. Call once with cap 0 for the count. */
  size_t count = 0;
  vt->devices(p, NULL, 0, &count);
  sealprov_device_info *dev = calloc(count ? count : 1, sizeof *dev);
  st = vt->devices(p, dev, count, &count);
  if (st != SEALPROV_OK) {
    vt->close(p);
    dlclose(dl);
    return fail(vt, "devices", st);
  }
  for (size_t i = 0; i < count; i++)
    printf("device %d [%s] %s '%s' ordinal %d confirmed %d workers %u %s\n", dev[i].index,
           dev[i].section, dev[i].type, dev[i].name, dev[i].ordinal, dev[i].confirmed_ordinal,
           dev[i].workers, state_name(dev[i].state));
  free(dev);

  /* 6. Counters in Prometheus text: size first, then fetch. */
  size_t len = 0;
  vt->stats(p, NULL, 0, &len);
  char *text = malloc(len + 1);
  if (text != NULL && vt->stats(p, text, len + 1, &len) == SEALPROV_OK)
    printf("stats: %zu bytes, first line: %.*s\n", len, (int)strcspn(text, "\n"), text);
  free(text);

  int rc = 0;
  if (argc == 6) rc = verify_one(vt, p, argv[3], argv[4], argv[5]);

  /* 7. Close: ends every job, joins every thread, frees device memory. */
  vt->close(p);
  dlclose(dl);
  return rc;
}
