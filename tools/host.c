/* host.c -- the CLI as a reference host: loads the module with dlopen exactly as a
 * sealing daemon would, and nothing of the module is linked into this path. */
#include <config.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef SP_DEFAULT_PLUGIN
#error "SP_DEFAULT_PLUGIN (the installed module path) must be defined by the build"
#endif
#ifndef SP_DEFAULT_CONFIG
#error "SP_DEFAULT_CONFIG (the installed sample INI) must be defined by the build"
#endif

int sp_cli_log_level = SEALPROV_LOG_WARN;
bool sp_cli_plugin_global = false;

/* The build tree's module relative to this program: tools/sealprov ->
 * plugin/.libs/sealprov.so (and tools/.libs/lt-sealprov, libtool's wrapped binary, ->
 * the same). Computed once; "" when there is none. */
static char build_plugin[PATH_MAX];
static int build_plugin_done;

const char *sp_cli_build_tree_plugin(void) {
  if (!build_plugin_done) {
    build_plugin_done = 1;
    build_plugin[0] = 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
      exe[n] = 0;
      char *slash = strrchr(exe, '/');
      if (slash != NULL) {
        *slash = 0; /* exe is now the program's directory */
        size_t len = strlen(exe);
        if (len >= 6 && strcmp(exe + len - 6, "/.libs") == 0) exe[len - 6] = 0;
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s/../plugin/.libs/sealprov.so", exe);
        /* realpath: the message shows a clean path, and NULL when it is not there */
        if (realpath(cand, build_plugin) == NULL) build_plugin[0] = 0;
      }
    }
  }
  return build_plugin[0] ? build_plugin : NULL;
}

const char *sp_cli_plugin_path(const char *plugin) {
  if (plugin != NULL) return plugin;
  const char *env = getenv("SEALPROV_PLUGIN");
  if (env != NULL && *env) return env;
  const char *built = sp_cli_build_tree_plugin();
  return built != NULL ? built : SP_DEFAULT_PLUGIN;
}

/* Where the module came from, for messages. */
static const char *plugin_source(const char *plugin) {
  if (plugin != NULL) return "given with --plugin";
  const char *env = getenv("SEALPROV_PLUGIN");
  if (env != NULL && *env) return sp_cli_plugin_global ? "given with --plugin" : "from $SEALPROV_PLUGIN";
  if (sp_cli_build_tree_plugin() != NULL) return "the build tree next to this program";
  return "the installed default";
}

const char *sp_cli_config_path(const char *ini) {
  if (ini != NULL) return ini;
  const char *env = getenv("SEALPROV_CONFIG");
  return env != NULL && *env ? env : SP_DEFAULT_CONFIG;
}

bool sp_cli_host_load(sp_cli_host *h, const char *plugin) {
  memset(h, 0, sizeof *h);
  const char *path = sp_cli_plugin_path(plugin);
  snprintf(h->path, sizeof h->path, "%s", path);
  /* RTLD_NOW: an unresolved symbol is reported here, not at the first call that needs
   * it; RTLD_LOCAL: the module's names never leak into the host's namespace. */
  h->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h->dl == NULL) {
    const char *why = dlerror();
    sp_cli_error("cannot load the module %s (%s): %s", path, plugin_source(plugin),
                 why ? why : "unknown dlopen error");
    if (access(path, F_OK) != 0) {
      /* Not there: say where we looked and how to name it. */
      char exe_dir[PATH_MAX] = "";
      ssize_t n = readlink("/proc/self/exe", exe_dir, sizeof exe_dir - 1);
      if (n > 0) {
        exe_dir[n] = 0;
        char *slash = strrchr(exe_dir, '/');
        if (slash != NULL) *slash = 0;
      }
      fprintf(stderr,
              "  looked in: %s\n"
              "  (in order: --plugin, $SEALPROV_PLUGIN, %s/../plugin/.libs/sealprov.so of a\n"
              "  build tree, the installed %s)\n"
              "  name the module with --plugin PATH or SEALPROV_PLUGIN=PATH\n",
              path, exe_dir[0] ? exe_dir : "<program directory>", SP_DEFAULT_PLUGIN);
    }
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
    sp_cli_error("%s is not a sealprov module: no symbol %s", path, SEALPROV_ENTRY_SYMBOL);
    sp_cli_host_close(h);
    return false;
  }
  static sealprov_host host = {.struct_size = sizeof(sealprov_host), .log = sp_cli_module_log};
  host.log_level = sp_cli_log_level;
  int st = init(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, &host, &h->vt);
  if (st != SEALPROV_OK || h->vt == NULL) {
    /* The module logged the versions through sp_cli_module_log already; say which file. */
    sp_cli_error("the module %s refused this tool (ABI %d.%d): status %d", path,
                 SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, st);
    sp_cli_host_close(h);
    return false;
  }
  return true;
}

bool sp_cli_host_open(sp_cli_host *h, const char *plugin, const char *ini) {
  if (!sp_cli_host_load(h, plugin)) return false;
  sp_cli_note("opening the devices of %s (module %s)", ini, h->path);
  int st = h->vt->open(ini, &h->p);
  if (st != SEALPROV_OK) {
    sp_cli_error("open %s: %s: %s", ini, h->vt->strerror(st), h->vt->last_error());
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

