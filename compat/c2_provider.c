/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_provider.c -- libsealprov_c2's errors and its provider: the supraseal-c2 error
 * value of a failure, the module loaded with dlopen and the one provider of the process,
 * opened on first use (or at load), and what the environment says (c2_internal.h). */
#include <config.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c2_internal.h"

#ifndef SP_C2_DEFAULT_PLUGIN
#error "SP_C2_DEFAULT_PLUGIN (the installed module path) must be defined by the build"
#endif
#ifndef SP_C2_DEFAULT_CONFIG
#error "SP_C2_DEFAULT_CONFIG (the installed INI path) must be defined by the build"
#endif

/* ---- errors --------------------------------------------------------------------- */

c2_error c2_ok(void) {
  c2_error e = {0, NULL};
  return e;
}

/* code != 0; the message is malloc'd for the caller's free(). If even that fails, a
 * short message is tried, then NULL (the code still says what happened). */
c2_error c2_fail(int code, const char *fn, const char *fmt, ...) {
  c2_error e = {code != 0 ? code : SEALPROV_ERR_INTERNAL, NULL};
  char detail[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  int len = snprintf(NULL, 0, "sealprov_c2: %s: %s", fn, detail);
  if (len >= 0) {
    e.message = malloc((size_t)len + 1);
    if (e.message != NULL) {
      snprintf(e.message, (size_t)len + 1, "sealprov_c2: %s: %s", fn, detail);
      return e;
    }
  }
  static const char oom[] = "sealprov_c2: out of memory for the error message";
  e.message = malloc(sizeof oom);
  if (e.message != NULL) memcpy(e.message, oom, sizeof oom);
  return e;
}

/* ---- the provider: one per process, opened on first use ----------------------- */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static void *g_dl;
const sealprov_vtable *g_vt;
sealprov_provider *g_p;

static void c2_log(void *user, int level, const char *msg) {
  (void)user;
  static const char *const names[] = {"error", "warn", "info", "debug"};
  fprintf(stderr, "sealprov_c2: [module %s] %s\n", level >= 0 && level <= 3 ? names[level] : "?",
          msg);
}

/* SEALPROV_C2_LOG_LEVEL = error | warn | info | debug (default warn). Read at load (and
 * again when the provider opens): the host may call setenv from other threads later
 * (cuzk does), and getenv then races with it. */
int g_log_level = SEALPROV_LOG_WARN;
static int c2_log_level(void) {
  static const char *const names[] = {"error", "warn", "info", "debug"};
  const char *env = getenv("SEALPROV_C2_LOG_LEVEL");
  if (env != NULL)
    for (int i = 0; i < 4; i++)
      if (strcmp(env, names[i]) == 0) return i;
  return SEALPROV_LOG_WARN;
}

static const char *env_or(const char *name, const char *fallback, const char **source) {
  const char *v = getenv(name);
  if (v != NULL && *v != '\0') {
    *source = name;
    return v;
  }
  *source = "the installed default";
  return fallback;
}

/* Library messages of level INFO and above (per SEALPROV_C2_LOG_LEVEL), on stderr. */
void c2_note(int level, const char *fmt, ...) {
  if (level > g_log_level) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "sealprov_c2: %s\n", line);
}

/* How many arguments the host passes to generate_groth16_proofs_c: 6 (upstream), 7
 * (Curio's gpu_mtx) or 8 (gpu_mtx, gpu_index), from SEALPROV_C2_ARGS at load. A callee
 * cannot tell how many arguments its caller placed: arguments 7 and 8 are read only
 * when the host says it passes them (reading them from a 6-argument caller would take
 * whatever lies in the caller's frame). g_args_err: the variable's value was wrong. */
int g_sync_args = 6;
char g_args_err[200];

static void read_args_env(void) {
  const char *v = getenv("SEALPROV_C2_ARGS");
  if (v == NULL || *v == '\0') return;
  if (strcmp(v, "6") == 0 || strcmp(v, "7") == 0 || strcmp(v, "8") == 0)
    g_sync_args = v[0] - '0';
  else
    snprintf(g_args_err, sizeof g_args_err,
             "SEALPROV_C2_ARGS = '%.40s' is not 6 (upstream callers), 7 (Curio: gpu_mtx) or 8 "
             "(gpu_mtx, gpu_index)",
             v);
}

/* The vtable and provider, opening them on the first call. On failure *err is set
 * and NULL returned; the next call tries again (a fixed INI can then succeed). */
const sealprov_vtable *provider(const char *fn, c2_error *err) {
  pthread_mutex_lock(&g_mu);
  if (g_p != NULL) {
    const sealprov_vtable *vt = g_vt;
    pthread_mutex_unlock(&g_mu);
    return vt;
  }
  const char *plugin_src, *config_src;
  const char *plugin = env_or("SEALPROV_PLUGIN", SP_C2_DEFAULT_PLUGIN, &plugin_src);
  const char *config = env_or("SEALPROV_CONFIG", SP_C2_DEFAULT_CONFIG, &config_src);
  if (g_dl == NULL) {
    /* RTLD_LOCAL: the module's names never reach the host's namespace. */
    g_dl = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
    if (g_dl == NULL) {
      const char *why = dlerror();
      *err = c2_fail(SEALPROV_ERR_IO, fn,
                     "cannot load the sealprov module %s (from %s; set SEALPROV_PLUGIN to "
                     "the module's path): %s",
                     plugin, plugin_src, why != NULL ? why : "unknown dlopen error");
      pthread_mutex_unlock(&g_mu);
      return NULL;
    }
    union {
      void *obj;
      sealprov_provider_init_fn fn;
    } sym = {.obj = dlsym(g_dl, SEALPROV_ENTRY_SYMBOL)};
    g_log_level = c2_log_level();
    sealprov_host host = {
        .struct_size = sizeof host, .log_level = g_log_level, .log = c2_log, .log_user = NULL};
    const sealprov_vtable *vt = NULL;
    int st = sym.fn == NULL ? SEALPROV_ERR_ABI_VERSION
                            : sym.fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, &host, &vt);
    if (sym.fn == NULL)
      *err = c2_fail(SEALPROV_ERR_ABI_VERSION, fn,
                     "%s (from %s) is not a sealprov module: it has no symbol %s", plugin,
                     plugin_src, SEALPROV_ENTRY_SYMBOL);
    else if (st != SEALPROV_OK || vt == NULL)
      *err = c2_fail(st != SEALPROV_OK ? st : SEALPROV_ERR_INTERNAL, fn,
                     "%s refused this library, built for sealprov ABI %d.%d (status %d; the "
                     "module logs why on stderr)",
                     plugin, SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, st);
    if (sym.fn == NULL || st != SEALPROV_OK || vt == NULL) {
      dlclose(g_dl);
      g_dl = NULL;
      pthread_mutex_unlock(&g_mu);
      return NULL;
    }
    if (vt->struct_size < offsetof(sealprov_vtable, timeline) + sizeof vt->timeline) {
      *err = c2_fail(SEALPROV_ERR_ABI_VERSION, fn,
                     "%s has a vtable of %" PRIu32
                     " bytes, smaller than the ABI %d.%d table "
                     "this library needs",
                     plugin, vt->struct_size, SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR);
      dlclose(g_dl);
      g_dl = NULL;
      pthread_mutex_unlock(&g_mu);
      return NULL;
    }
    g_vt = vt;
  }
  sealprov_provider *p = NULL;
  int st = g_vt->open(config, &p);
  if (st != SEALPROV_OK) {
    *err = c2_fail(st, fn,
                   "cannot open the sealprov provider with %s (from %s; set SEALPROV_CONFIG "
                   "to the INI's path): %s: %s",
                   config, config_src, g_vt->strerror(st), g_vt->last_error());
    pthread_mutex_unlock(&g_mu);
    return NULL;
  }
  g_p = p;
  const sealprov_vtable *vt = g_vt;
  pthread_mutex_unlock(&g_mu);
  return vt;
}

/* SEALPROV_C2_OPEN_AT_LOAD=1: open the provider when the library is loaded, before the
 * host's main() runs. A host whose worker threads later set CUDA_VISIBLE_DEVICES (cuzk
 * does, per GPU worker) would otherwise have the CUDA runtime start, at the first
 * call, with only that worker's GPU visible to the whole process. A failure here is
 * reported on stderr and the first call tries again. */
__attribute__((constructor)) static void c2_open_at_load(void) {
  g_log_level = c2_log_level();
  read_args_env();
  if (g_args_err[0]) fprintf(stderr, "sealprov_c2: load: %s\n", g_args_err);
  const char *v = getenv("SEALPROV_C2_OPEN_AT_LOAD");
  if (v == NULL || strcmp(v, "1") != 0) return;
  c2_error err = c2_ok();
  if (provider("load", &err) == NULL) {
    fprintf(stderr, "%s (SEALPROV_C2_OPEN_AT_LOAD=1; the first call tries again)\n",
            err.message != NULL ? err.message : "sealprov_c2: load: failed");
    free(err.message);
  }
}

/* The error of a failed vtable call, read on the calling thread. */
c2_error vt_fail(const sealprov_vtable *vt, int st, const char *fn, const char *what) {
  return c2_fail(st, fn, "%s: %s: %s", what, vt->strerror(st), vt->last_error());
}
