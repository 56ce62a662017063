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

bool g16_check_input_file(const char *opt, const char *path) {
  struct stat st;
  if (path == NULL || !*path) {
    sp_cli_error("%s: empty path", opt);
    return false;
  }
  if (stat(path, &st) != 0) {
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

int g16_params_file(const char *opt, const char *name, sp_cli_kind kind, sp_cli_params_path *pp) {
  if (!sp_cli_params_where(opt, name, pp) || !g16_check_input_file(opt, pp->file)) return 1;
  if (!sp_cli_file_is(opt, pp->file, SP_KIND_BIT(kind),
                      kind == SP_KIND_VK ? "a .vk file (`sealprov setup` writes one next to the "
                                           ".params; it is the .params file's first part)"
                                         : "a .params file"))
    return 2;
  return 0;
}

int g16_verify_partition(sp_cli_host *h, const sealprov_srs *vk, const sealprov_assignment *a,
                         const char *path, const uint8_t *proof, int *valid, char *err,
                         size_t errlen) {
  *valid = 0;
  /* verify() takes the public inputs without ONE: input 0 is checked here, or a partition
   * whose input 0 is 2 would verify as if it were ONE */
  if (!sp_cli_input0_is_one(a, path, err, errlen)) return SEALPROV_ERR_ASSIGNMENT;
  int rc = h->vt->verify(h->p, vk, (const uint8_t *)a->inp_assignment + SEALPROV_SCALAR_BYTES,
                         a->inp_size - 1, SEALPROV_SCALAR_CANONICAL_LE, proof, valid);
  if (rc != SEALPROV_OK) snprintf(err, errlen, "%s", h->vt->last_error());
  return rc;
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

static void dump_text(text_fn fn, sealprov_provider *p, const char *env) {
  const char *path = getenv(env);
  if (!path || !*path || !fn) return;
  size_t len = 0;
  if (fn(p, NULL, 0, &len) != SEALPROV_OK) return;
  char *buf = malloc(len + 1);
  if (!buf) return;
  if (fn(p, buf, len + 1, &len) == SEALPROV_OK) (void)sp_cli_output_write(env, path, buf, len);
  free(buf);
}

bool g16_check_env_outputs(bool force, const sp_cli_file *inputs, size_t ninputs) {
  static const char *const env_out[] = {"SEALPROV_TIMELINE", "SEALPROV_STATS"};
  for (size_t i = 0; i < 2; i++) {
    const char *v = getenv(env_out[i]);
    if (v != NULL && *v &&
        !sp_cli_output_check(env_out[i], v, SP_KIND_TEXT, force, inputs, ninputs))
      return false;
  }
  const char *t = getenv(env_out[0]), *st = getenv(env_out[1]);
  if (t != NULL && *t && st != NULL && *st && !strcmp(t, st)) {
    sp_cli_error("SEALPROV_TIMELINE and SEALPROV_STATS name one file, %s; give each its own", t);
    return false;
  }
  return true;
}

void g16_params_memory(sp_cli_host *h, const char *params, g16_prove_report *rep) {
  static const char metric[] = "sealprov_params_set_host_bytes{";
  char *text = sp_cli_stats_text(h), file[4096];
  for (char *line = text; line != NULL && *line != '\0';) {
    char *nl = strchr(line, '\n');
    if (nl != NULL) *nl = '\0';
    const char *close = strstr(line, "} ");
    if (strncmp(line, metric, sizeof metric - 1) == 0 && close != NULL &&
        sp_cli_label_value(line, "params", file, sizeof file) && strcmp(file, params) == 0 &&
        sp_cli_label_value(line, "memory", rep->params_memory, sizeof rep->params_memory) &&
        sp_cli_label_value(line, "image", rep->params_image, sizeof rep->params_image))
      rep->params_bytes = strtoull(close + 2, NULL, 10);
    line = nl != NULL ? nl + 1 : NULL;
  }
  free(text);
}

void g16_dump_provider_text(sp_cli_host *h) {
  if (!h->vt || !h->p) return;
  dump_text(h->vt->timeline, h->p, "SEALPROV_TIMELINE");
  dump_text(h->vt->stats, h->p, "SEALPROV_STATS");
}
