/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* g16_util.c -- helpers of the Groth16 commands of the CLI. */
#include <config.h>

#include "g16_util.h"

#include "circuit.h"
#ifdef HAVE_CUDA
#include "gpu/sp_cuda_setup.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned g16_ncpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}

bool g16_read_proofs(const char *path, size_t n, uint8_t **out) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    sp_cli_error("%s: cannot open: %s", path, strerror(errno));
    return false;
  }
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size != (uint64_t)n * 192) {
    sp_cli_error(
        "%s: %lld bytes, expected %zu proofs of 192 bytes (%zu bytes) for the %zu "
        "partition files given",
        path, (long long)st.st_size, n, n * 192, n);
    fclose(f);
    return false;
  }
  uint8_t *b = malloc(n * 192 + 1);
  if (!b || fread(b, 1, n * 192, f) != n * 192) {
    sp_cli_error("%s: read failed: %s", path, ferror(f) ? strerror(errno) : "file shrank");
    free(b);
    fclose(f);
    return false;
  }
  fclose(f);
  *out = b;
  return true;
}

bool g16_write_file(const char *path, const uint8_t *data, size_t len) {
  size_t pl = strlen(path) + 32;
  char *tmp = malloc(pl);
  if (!tmp) return false;
  snprintf(tmp, pl, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  bool ok = f && fwrite(data, 1, len, f) == len;
  if (f && fclose(f) != 0) ok = false;
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) {
    sp_cli_error("%s: cannot write: %s", path, strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  return ok;
}

bool g16_check_output_file(const char *opt, const char *path) {
  if (path == NULL || !*path) {
    sp_cli_error("%s: empty path", opt);
    return false;
  }
  size_t len = strlen(path);
  char *dir = malloc(len + 2);
  if (dir == NULL) {
    sp_cli_error("out of memory");
    return false;
  }
  memcpy(dir, path, len + 1);
  char *slash = strrchr(dir, '/');
  if (slash == NULL)
    strcpy(dir, ".");
  else if (slash == dir)
    dir[1] = 0; /* "/file" */
  else
    *slash = 0;
  bool ok = false;
  struct stat st;
  if (stat(dir, &st) != 0)
    sp_cli_error("%s %s: the directory %s %s", opt, path, dir,
                 errno == ENOENT ? "does not exist" : strerror(errno));
  else if (!S_ISDIR(st.st_mode))
    sp_cli_error("%s %s: %s is not a directory", opt, path, dir);
  else if (access(dir, W_OK | X_OK) != 0)
    sp_cli_error("%s %s: cannot create files in %s: %s", opt, path, dir, strerror(errno));
  else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    sp_cli_error("%s %s: is a directory; give a file name", opt, path);
  else if (stat(path, &st) == 0 && access(path, W_OK) != 0)
    sp_cli_error("%s %s: the file exists and is not writable: %s", opt, path, strerror(errno));
  else
    ok = true;
  free(dir);
  return ok;
}

bool g16_check_input_file(const char *opt, const char *path) {
  struct stat st;
  if (path == NULL || !*path) {
    sp_cli_error("%s: empty path", opt);
    return false;
  }
  if (stat(path, &st) != 0) {
    if (errno == ENOENT && strchr(path, '/') == NULL)
      return true; /* a bare name: the module's parameter cache may have it */
    sp_cli_error("%s %s: %s", opt, path, errno == ENOENT ? "not found" : strerror(errno));
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    sp_cli_error("%s %s: is a directory; give a file", opt, path);
    return false;
  }
  if (access(path, R_OK) != 0) {
    sp_cli_error("%s %s: cannot read: %s", opt, path, strerror(errno));
    return false;
  }
  return true;
}

void g16_remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      size_t l = strlen(dir) + strlen(e->d_name) + 2;
      char *p = malloc(l);
      if (!p) continue;
      snprintf(p, l, "%s/%s", dir, e->d_name);
      struct stat st;
      if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
        g16_remove_tree(p);
      else
        unlink(p);
      free(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

void g16_setup_progress(void *user, const char *stage, double done, double total) {
  g16_setup_meter *g = user;
  bool points = !strcmp(stage, "parameters");
  if (strcmp(g->stage, stage) != 0) {
    snprintf(g->stage, sizeof g->stage, "%s", stage);
    /* "sealprov demo: setup: the parameters' points", "sealprov setup: the ..." */
    bool own = sp_cli_cmd != NULL && !strcmp(sp_cli_cmd, "setup");
    sp_cli_meter_start(&g->m, "%s%s", own ? "" : "setup: ",
                       points ? "the parameters' points" : "the partition files");
  }
  sp_cli_meter_step(&g->m, done, total, points ? "G1 products" : "files");
}

int g16_circuit_params(const sp_circuit *c, uint64_t setup_seed, unsigned nthreads, int gpu_ordinal,
                       const char *params, const char *vk, char *err, size_t errlen) {
  int rc;
  const sp_fixed_base *fbp = NULL;
#ifdef HAVE_CUDA
  char e[1024] = "";
  sp_cuda_setup *gs = NULL;
  sp_fixed_base fb;
  if (gpu_ordinal >= 0) {
    rc = sp_cuda_setup_create(gpu_ordinal, &gs, e, sizeof e);
    if (rc != SEALPROV_OK) {
      snprintf(err, errlen, "GPU %d: %s", gpu_ordinal, e);
      return rc;
    }
    fb = sp_cuda_setup_fixed_base(gs);
    fbp = &fb;
  }
#else
  if (gpu_ordinal >= 0) {
    snprintf(err, errlen, "GPU %d: this build has no CUDA support (configure found no nvcc)",
             gpu_ordinal);
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
#endif
  g16_setup_meter gm = {.stage = ""};
  sp_progress pr = {.fn = g16_setup_progress, .user = &gm};
  rc = sp_circuit_write_params_progress(c, setup_seed, nthreads, fbp, &pr, params, vk, err, errlen);
#ifdef HAVE_CUDA
  sp_cuda_setup_destroy(gs);
#endif
  if (rc != SEALPROV_OK) {
    if (params) unlink(params);
    if (vk) unlink(vk);
  }
  return rc;
}

int g16_make_params(uint64_t constraints, uint32_t inputs, uint64_t circuit_seed,
                    uint64_t setup_seed, unsigned nthreads, int gpu_ordinal, const char *params,
                    const char *vk, double *circuit_ms, char *err, size_t errlen) {
  char e[1024] = "";
  unsigned log = 0;
  while (log < 63 && (UINT64_C(1) << log) < constraints) log++;
  double t0 = sp_cli_now_ms();
  sp_circuit *c = NULL;
  int rc =
      sp_circuit_generate(constraints, inputs, SP_SHAPE_SEALING, circuit_seed, &c, e, sizeof e);
  if (rc != SEALPROV_OK) {
    snprintf(err, errlen, "circuit 2^%u: %s", log, e);
    return rc;
  }
  if (circuit_ms) *circuit_ms = sp_cli_now_ms() - t0;
  rc = g16_circuit_params(c, setup_seed, nthreads, gpu_ordinal, params, vk, err, errlen);
  sp_circuit_free(c);
  return rc;
}

const char *g16_status_name(int status) {
  static const char *names[] = {
      "ok",
      "invalid argument",
      "ABI version",
      "out of memory",
      "configuration",
      "device",
      "no device",
      "I/O",
      "parameters",
      "assignment",
      "verify failed",
      "cancelled",
      "timeout",
      "shutdown",
      "queue full",
      "not found",
      "internal",
      "unsupported",
      "device memory",
  };
  if (status >= 0 && (size_t)status < sizeof names / sizeof names[0]) return names[status];
  return "unknown status";
}

typedef int (*text_fn)(sealprov_provider *, char *, size_t, size_t *);

static void dump_text(text_fn fn, sealprov_provider *p, const char *path) {
  if (!path || !*path || !fn) return;
  size_t len = 0;
  if (fn(p, NULL, 0, &len) != SEALPROV_OK) return;
  char *buf = malloc(len + 1);
  if (!buf) return;
  if (fn(p, buf, len + 1, &len) == SEALPROV_OK) {
    FILE *f = fopen(path, "w");
    if (f) {
      fputs(buf, f);
      fclose(f);
    } else {
      sp_cli_warn("cannot write %s (SEALPROV_TIMELINE / SEALPROV_STATS): %s", path,
                  strerror(errno));
    }
  }
  free(buf);
}

void g16_dump_provider_text(sp_cli_host *h) {
  if (!h->vt || !h->p) return;
  dump_text(h->vt->timeline, h->p, getenv("SEALPROV_TIMELINE"));
  dump_text(h->vt->stats, h->p, getenv("SEALPROV_STATS"));
}
