/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* host.c -- the CLI as a reference host: loads the module with dlopen exactly as a
 * sealing daemon would, and nothing of the module is linked into this path. */
#include <config.h>

#include <dlfcn.h>
#include <errno.h>
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
#ifndef SP_SRCDIR
#error "SP_SRCDIR (the source tree of this build) must be defined by the build"
#endif

/* The build tree this program runs from: tools/sealprov (or tools/.libs/lt-sealprov,
 * libtool's wrapped binary) whose ../plugin/.libs/sealprov.so exists. Computed once;
 * "" when there is none. */
static char build_tree[PATH_MAX];
static char build_plugin[PATH_MAX + 32];
static char build_config[PATH_MAX];
static int build_done;

static void find_build_tree(void) {
  if (build_done) return;
  build_done = 1;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (slash == NULL) return;
  *slash = 0; /* exe is now the program's directory */
  size_t len = strlen(exe);
  if (len >= 6 && strcmp(exe + len - 6, "/.libs") == 0) exe[len - 6] = 0;
  char cand[PATH_MAX + 64];
  snprintf(cand, sizeof cand, "%s/../plugin/.libs/sealprov.so", exe);
  /* realpath: the message shows a clean path, and NULL when it is not there */
  if (realpath(cand, build_plugin) == NULL) {
    build_plugin[0] = 0;
    return;
  }
  snprintf(cand, sizeof cand, "%s/..", exe);
  if (realpath(cand, build_tree) == NULL) build_tree[0] = 0;
  /* the module of the tree comes with the sample INI of its sources */
  snprintf(cand, sizeof cand, "%s/conf/sealprov.ini", SP_SRCDIR);
  if (realpath(cand, build_config) == NULL || access(build_config, R_OK) != 0) build_config[0] = 0;
}

const char *sp_cli_build_tree(void) {
  find_build_tree();
  return build_tree[0] ? build_tree : NULL;
}

const char *sp_cli_plugin_path(void) {
  if (sp_cli_plugin != NULL) return sp_cli_plugin;
  const char *env = getenv("SEALPROV_PLUGIN");
  if (env != NULL && *env) return env;
  find_build_tree();
  return build_plugin[0] ? build_plugin : SP_DEFAULT_PLUGIN;
}

/* Where the module came from, for messages. */
static const char *plugin_source(void) {
  if (sp_cli_plugin != NULL) return "given with --plugin";
  const char *env = getenv("SEALPROV_PLUGIN");
  if (env != NULL && *env) return "from $SEALPROV_PLUGIN";
  find_build_tree();
  if (build_plugin[0]) return "the build tree next to this program";
  return "the installed default";
}

const char *sp_cli_config_path(const char *ini) {
  if (ini != NULL) return ini;
  const char *env = getenv("SEALPROV_CONFIG");
  if (env != NULL && *env) return env;
  find_build_tree();
  return build_plugin[0] && build_config[0] ? build_config : SP_DEFAULT_CONFIG;
}

const char *sp_cli_config_source(const char *ini) {
  if (ini != NULL) return "given on the command line";
  const char *env = getenv("SEALPROV_CONFIG");
  if (env != NULL && *env) return "from $SEALPROV_CONFIG";
  find_build_tree();
  if (build_plugin[0] && build_config[0]) return "the sample of the build tree's sources";
  return "the installed default";
}

bool sp_cli_host_load(sp_cli_host *h) {
  memset(h, 0, sizeof *h);
  const char *path = sp_cli_plugin_path();
  snprintf(h->path, sizeof h->path, "%s", path);
  /* RTLD_NOW: an unresolved symbol is reported here, not at the first call that needs
   * it; RTLD_LOCAL: the module's names never leak into the host's namespace. */
  h->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h->dl == NULL) {
    const char *why = dlerror();
    if (access(path, F_OK) != 0) {
      /* Not there: say where we looked and how to name it; the error last. */
      char exe_dir[PATH_MAX] = "";
      ssize_t n = readlink("/proc/self/exe", exe_dir, sizeof exe_dir - 1);
      if (n > 0) {
        exe_dir[n] = 0;
        char *slash = strrchr(exe_dir, '/');
        if (slash != NULL) *slash = 0;
      }
      fprintf(stderr, "  looked in: ");
      sp_cli_put_utf8(stderr, path);
      fprintf(stderr,
              "\n"
              "  (in order: --plugin, $SEALPROV_PLUGIN, %s/../plugin/.libs/sealprov.so of a\n"
              "  build tree, the installed %s)\n",
              exe_dir[0] ? exe_dir : "<program directory>", SP_DEFAULT_PLUGIN);
      sp_cli_error(
          "cannot load the module %s (%s): not found; name the module with "
          "--plugin PATH or SEALPROV_PLUGIN=PATH",
          path, plugin_source());
    } else {
      sp_cli_error("cannot load the module %s (%s): %s", path, plugin_source(),
                   why ? why : "unknown dlopen error");
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
  host.log_level = sp_cli_host_log_level();
  int st = init(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, &host, &h->vt);
  if (st != SEALPROV_OK || h->vt == NULL) {
    /* The module logged the versions through sp_cli_module_log already; say which file. */
    sp_cli_error("the module %s refused this tool (ABI %d.%d): status %d", path, SEALPROV_ABI_MAJOR,
                 SEALPROV_ABI_MINOR, st);
    sp_cli_host_close(h);
    return false;
  }
  return true;
}

/* A configuration that is not there: said here, with where the name came from and how
 * to give another, before anything is loaded. */
static bool config_exists(const char *ini, const char *path) {
  if (access(path, F_OK) == 0 || errno != ENOENT) return sp_cli_ini_kind(path);
  sp_cli_error(
      "the configuration %s (%s): not found; name one with -c INI or "
      "SEALPROV_CONFIG=INI%s",
      path, sp_cli_config_source(ini),
      ini == NULL ? " (the sources' conf/sealprov.ini is a sample with CPU devices)" : "");
  return false;
}

bool sp_cli_ini_kind(const char *path) {
  /* text that is no INI file, or a file of no kind known: the module's reader says why */
  unsigned ini_like = SP_KIND_BIT(SP_KIND_INI) | SP_KIND_BIT(SP_KIND_TEXT) |
                      SP_KIND_BIT(SP_KIND_EMPTY) | SP_KIND_BIT(SP_KIND_DIR);
  return sp_cli_file_is("-c", path, ini_like, "an INI file (sealprov.ini(5))");
}

bool sp_cli_host_open(sp_cli_host *h, const char *ini) {
  memset(h, 0, sizeof *h);
  const char *path = sp_cli_config_path(ini);
  if (!config_exists(ini, path)) return false;
  if (!sp_cli_host_load(h)) return false;
  sp_cli_note("opening the devices of %s (module %s)", path, h->path);
  int st = h->vt->open(path, &h->p);
  if (st != SEALPROV_OK) {
    sp_cli_error("open %s: %s: %s", path, h->vt->strerror(st), h->vt->last_error());
    h->p = NULL;
    sp_cli_host_close(h);
    return false;
  }
  return true;
}

bool sp_cli_host_open_cpu(sp_cli_host *h) {
  static const char ini[] =
      "; written by the sealprov CLI: one CPU device, to verify proofs\n"
      "[provider]\nlog_level = warn\n\n[cpu0]\ntype = cpu\nworkers = 1\n";
  memset(h, 0, sizeof *h);
  const char *tmp = getenv("TMPDIR");
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/sealprov-cpu-XXXXXX.ini", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemps(path, 4);
  if (fd < 0) {
    sp_cli_error("cannot make a temporary INI file %s: %s", path, strerror(errno));
    return false;
  }
  bool ok = write(fd, ini, sizeof ini - 1) == (ssize_t)(sizeof ini - 1);
  if (close(fd) != 0 || !ok) {
    sp_cli_error("cannot write %s: %s", path, strerror(errno));
    unlink(path);
    return false;
  }
  ok = sp_cli_host_load(h);
  if (ok) {
    int st = h->vt->open(path, &h->p);
    if (st != SEALPROV_OK) {
      sp_cli_error("open a provider on one CPU device: %s: %s", h->vt->strerror(st),
                   h->vt->last_error());
      h->p = NULL;
      sp_cli_host_close(h);
      ok = false;
    }
  }
  unlink(path);
  return ok;
}

void sp_cli_host_close(sp_cli_host *h) {
  if (h->p != NULL && h->vt != NULL) h->vt->close(h->p);
  if (h->dl != NULL) dlclose(h->dl);
  memset(h, 0, sizeof *h);
}

char *sp_cli_stats_text(const sp_cli_host *h) {
  size_t len = 0;
  if (h->vt == NULL || h->vt->stats == NULL || h->vt->stats(h->p, NULL, 0, &len) != SEALPROV_OK ||
      len == 0)
    return NULL;
  char *text = malloc(len + 1);
  if (text == NULL || h->vt->stats(h->p, text, len + 1, &len) != SEALPROV_OK) {
    free(text);
    return NULL;
  }
  return text;
}

bool sp_cli_label_value(const char *line, const char *key, char *out, size_t cap) {
  char pat[32];
  snprintf(pat, sizeof pat, "%s=\"", key);
  const char *v = strstr(line, pat);
  if (v == NULL || cap == 0) return false;
  v += strlen(pat);
  size_t n = 0;
  for (; *v != '\0' && *v != '"'; v++) {
    char c = *v;
    if (c == '\\' && v[1] != '\0') c = *++v == 'n' ? '\n' : *v;
    if (n + 1 < cap) out[n++] = c;
  }
  out[n] = '\0';
  return *v == '"';
}
