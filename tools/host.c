/* host.c -- the CLI as a reference host: loads the module with dlopen exactly as a
 * sealing daemon would, and nothing of the module is linked into this path. */
#include <config.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef SP_DEFAULT_PLUGIN
#error "SP_DEFAULT_PLUGIN (the installed module path) must be defined by the build"
#endif
#ifndef SP_DEFAULT_CONFIG
#error "SP_DEFAULT_CONFIG (the installed sample INI) must be defined by the build"
#endif

int sp_cli_log_level = SEALPROV_LOG_WARN;

const char *sp_cli_plugin_path(const char *plugin) {
  if (plugin != NULL) return plugin;
  const char *env = getenv("SEALPROV_PLUGIN");
  return env != NULL && *env ? env : SP_DEFAULT_PLUGIN;
}

const char *sp_cli_config_path(const char *ini) {
  if (ini != NULL) return ini;
  const char *env = getenv("SEALPROV_CONFIG");
  return env != NULL && *env ? env : SP_DEFAULT_CONFIG;
}

static void host_log(void *user, int level, const char *msg) {
  (void)user;
  static const char *const names[] = {"error", "warn", "info", "debug"};
  fprintf(stderr, "sealprov: [module %s] %s\n", level >= 0 && level <= 3 ? names[level] : "?", msg);
}

bool sp_cli_host_load(sp_cli_host *h, const char *plugin) {
  memset(h, 0, sizeof *h);
  const char *path = sp_cli_plugin_path(plugin);
  snprintf(h->path, sizeof h->path, "%s", path);
  /* RTLD_NOW: an unresolved symbol is reported here, not at the first call that needs
   * it; RTLD_LOCAL: the module's names never leak into the host's namespace. */
  h->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h->dl == NULL) {
    fprintf(stderr, "sealprov: cannot load the module %s: %s\n", path, dlerror());
    return false;
  }
  sealprov_provider_init_fn init;
  /* dlsym returns void*; converting through a union keeps -Wpedantic quiet. */
  union {
    void *obj;
    sealprov_provider_init_fn fn;
  } sym = {.obj = dlsym(h->dl, SEALPROV_ENTRY_SYMBOL)};
  init = sym.fn;
  if (init == NULL) {
    fprintf(stderr, "sealprov: %s is not a sealprov module: no symbol %s\n", path,
            SEALPROV_ENTRY_SYMBOL);
    sp_cli_host_close(h);
    return false;
  }
  static sealprov_host host = {.struct_size = sizeof(sealprov_host), .log = host_log};
  host.log_level = sp_cli_log_level;
  int st = init(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, &host, &h->vt);
  if (st != SEALPROV_OK || h->vt == NULL) {
    /* The module logged the versions through host_log already; say which file. */
    fprintf(stderr, "sealprov: the module %s refused this tool (ABI %d.%d): status %d\n", path,
            SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, st);
    sp_cli_host_close(h);
    return false;
  }
  return true;
}

bool sp_cli_host_open(sp_cli_host *h, const char *plugin, const char *ini) {
  if (!sp_cli_host_load(h, plugin)) return false;
  int st = h->vt->open(ini, &h->p);
  if (st != SEALPROV_OK) {
    fprintf(stderr, "sealprov: open %s: %s: %s\n", ini, h->vt->strerror(st), h->vt->last_error());
    h->p = NULL;
    sp_cli_host_close(h);
    return false;
  }
  return true;
}

void sp_cli_host_close(sp_cli_host *h) {
  if (h->p != NULL && h->vt != NULL) h->vt->close(h->p);
  if (h->dl != NULL) dlclose(h->dl);
  memset(h, 0, sizeof *h);
}

