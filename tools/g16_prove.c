/* g16_prove.c -- proving partitions through the loaded module, the way a host does:
 * srs_load, one job with every partition, wait; shared by `prove` and `demo`. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "g16_util.h"

#ifndef SP_PKGLIBDIR
#define SP_PKGLIBDIR "/usr/local/lib/sealprov"
#endif

static void host_log(void *user, int level, const char *msg)
{
  (void)user;
  static const char *names[] = {"error", "warn", "info", "debug"};
  fprintf(stderr, "sealprov [%s] %s\n", level >= 0 && level <= 3 ? names[level] : "?", msg);
}

int g16_host_open(g16_host *h, const char *plugin, const char *ini)
{
  memset(h, 0, sizeof *h);
  const char *env = getenv("SEALPROV_PLUGIN");
  const char *path = plugin ? plugin : env && *env ? env : SP_PKGLIBDIR "/sealprov.so";
  h->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h->dl) {
    fprintf(stderr, "sealprov: cannot load the module %s: %s\n", path, dlerror());
    return 1;
  }
  sealprov_provider_init_fn init = (sealprov_provider_init_fn)dlsym(h->dl, SEALPROV_ENTRY_SYMBOL);
  if (!init) {
    fprintf(stderr, "sealprov: %s has no %s\n", path, SEALPROV_ENTRY_SYMBOL);
    g16_host_close(h);
    return 1;
  }
  static const sealprov_host host = {.struct_size = sizeof(sealprov_host),
                                     .log_level = SEALPROV_LOG_WARN,
                                     .log = host_log};
  int rc = init(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, &host, &h->vt);
  if (rc != SEALPROV_OK || !h->vt) {
    fprintf(stderr, "sealprov: %s refused ABI %d.%d (status %d)\n", path, SEALPROV_ABI_MAJOR,
            SEALPROV_ABI_MINOR, rc);
    g16_host_close(h);
    return 1;
  }
  rc = h->vt->open(ini, &h->p);
  if (rc != SEALPROV_OK) {
    fprintf(stderr, "sealprov: open %s: %s: %s\n", ini, h->vt->strerror(rc), h->vt->last_error());
    g16_host_close(h);
    return 1;
  }
  return 0;
}

void g16_host_close(g16_host *h)
{
  if (h->p && h->vt)
    h->vt->close(h->p);
  if (h->dl)
    dlclose(h->dl);
  memset(h, 0, sizeof *h);
}

static void on_released(void *user, sealprov_job_id id, uint32_t partition)
{
  (void)id;
  (void)partition;
  atomic_fetch_add((atomic_uint *)user, 1);
}

int g16_prove_partitions(g16_host *h, const char *params, const sealprov_assignment *asg,
                         size_t n, bool zero_rs, bool progress, uint8_t *proofs,
                         g16_prove_report *rep)
{
  const sealprov_vtable *vt = h->vt;
  rep->detail[0] = 0;
  rep->devices_used = 0;
  sealprov_srs *srs = NULL;
  double t0 = g16_now_ms();
  int rc = vt->srs_load(h->p, params, &srs);
  rep->load_ms = g16_now_ms() - t0;
  if (rc != SEALPROV_OK) {
    rep->status = rc;
    snprintf(rep->detail, sizeof rep->detail, "%s", vt->last_error());
    return 1;
  }
  uint8_t *zeros = zero_rs ? calloc(n, 32) : NULL;
  if (zero_rs && !zeros) {
    vt->srs_release(srs);
    rep->status = SEALPROV_ERR_NO_MEMORY;
    snprintf(rep->detail, sizeof rep->detail, "out of memory");
    return 1;
  }
  atomic_uint released;
  atomic_init(&released, 0);
  sealprov_job job;
  memset(&job, 0, sizeof job);
  job.struct_size = sizeof job;
  job.flags = zero_rs ? SEALPROV_JOB_FIXED_RS : 0;
  job.srs = srs;
  job.partitions = asg;
  job.num_partitions = (uint32_t)n;
  job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  job.r = zeros;
  job.s = zeros;
  job.proofs_out = proofs;
  job.results = rep->results;
  job.on_inputs_released = on_released;
  job.user = &released;
  for (size_t i = 0; i < n; i++)
    rep->results[i] = (sealprov_partition_result){.status = -1, .device = -1};
  sealprov_job_id id = 0;
  t0 = g16_now_ms();
  rc = vt->submit(h->p, &job, &id);
  if (rc == SEALPROV_OK) {
    unsigned shown = ~0u;
    /* wait in slices so a terminal sees the partitions come in */
    while ((rc = vt->wait(h->p, id, progress ? 200 : -1)) == SEALPROV_ERR_TIMEOUT) {
      unsigned done = atomic_load(&released);
      if (done != shown) {
        fprintf(stderr, "\rproving: %u of %zu partitions done, %.1f s", done, n,
                (g16_now_ms() - t0) / 1e3);
        shown = done;
      }
    }
    if (progress && shown != ~0u)
      fprintf(stderr, "\rproving: %zu of %zu partitions done, %.1f s\n",
              (size_t)atomic_load(&released), n, (g16_now_ms() - t0) / 1e3);
  }
  rep->prove_ms = g16_now_ms() - t0;
  rep->status = rc;
  if (rc != SEALPROV_OK)
    snprintf(rep->detail, sizeof rep->detail, "%s", vt->last_error());

  /* device names, and how many distinct devices did the work */
  size_t ndev = 0;
  sealprov_device_info *info = NULL;
  if (vt->devices(h->p, NULL, 0, &ndev) == SEALPROV_OK && ndev > 0 &&
      (info = calloc(ndev, sizeof *info)) != NULL) {
    for (size_t d = 0; d < ndev; d++)
      info[d].struct_size = sizeof *info;
    if (vt->devices(h->p, info, ndev, &ndev) != SEALPROV_OK)
      ndev = 0;
  } else {
    ndev = 0;
  }
  uint64_t seen = 0;
  for (size_t i = 0; i < n; i++) {
    int d = rep->results[i].device;
    const char *name = "-";
    if (d >= 0 && (size_t)d < ndev)
      name = info[d].section;
    snprintf(rep->device_names[i], 64, "%s", name);
    if (d >= 0 && d < 64 && !(seen >> d & 1)) {
      seen |= UINT64_C(1) << d;
      rep->devices_used++;
    }
  }
  free(info);
  free(zeros);
  vt->srs_release(srs);
  return rc == SEALPROV_OK ? 0 : 1;
}
