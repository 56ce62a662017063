/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* g16_prove.c -- proving partitions through the loaded module, the way a host does:
 * srs_load, one job with every partition, wait; shared by `prove` and `demo`, and the
 * job itself by `prove --r1cs` (prove_witness.c). The module itself is opened by
 * tools/host.c. */
#include <config.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16_util.h"

static void on_released(void *user, sealprov_job_id id, uint32_t partition) {
  (void)id;
  (void)partition;
  atomic_fetch_add((atomic_uint *)user, 1);
}

void g16_name_devices(sp_cli_host *h, size_t n, g16_prove_report *rep) {
  const sealprov_vtable *vt = h->vt;
  /* device names, and how many distinct devices did the work */
  size_t ndev = 0;
  sealprov_device_info *info = NULL;
  if (vt->devices(h->p, NULL, 0, &ndev) == SEALPROV_OK && ndev > 0 &&
      (info = calloc(ndev, sizeof *info)) != NULL) {
    for (size_t d = 0; d < ndev; d++) info[d].struct_size = sizeof *info;
    if (vt->devices(h->p, info, ndev, &ndev) != SEALPROV_OK) ndev = 0;
  } else {
    ndev = 0;
  }
  uint64_t seen = 0;
  for (size_t i = 0; i < n; i++) {
    int d = rep->results[i].device;
    const char *name = "-";
    if (d >= 0 && (size_t)d < ndev) name = info[d].section;
    snprintf(rep->device_names[i], 64, "%s", name);
    if (d >= 0 && d < 64 && !(seen >> d & 1)) {
      seen |= UINT64_C(1) << d;
      rep->devices_used++;
    }
  }
  free(info);
}

void g16_report_begin(g16_prove_report *rep, size_t n) {
  rep->detail[0] = 0;
  rep->job = 0;
  rep->devices_used = 0;
  rep->stage = G16_STAGE_PARAMS;
  rep->load_ms = rep->prove_ms = 0;
  rep->params_memory[0] = rep->params_image[0] = 0;
  rep->params_bytes = 0;
  /* Every partition is "not run" until the module says otherwise. */
  for (size_t i = 0; i < n; i++) {
    rep->results[i] = (sealprov_partition_result){.status = -1, .device = -1};
    snprintf(rep->device_names[i], 64, "-");
  }
}

/* Waits for job id of n partitions; with meter, a progress line whenever partitions have
 * come through (released counts them) and one at the end. */
static int wait_job(sp_cli_host *h, sealprov_job_id id, size_t n, bool meter, atomic_uint *released,
                    double t0) {
  const sealprov_vtable *vt = h->vt;
  if (!meter) return vt->wait(h->p, id, -1);
  int rc;
  unsigned shown = ~0u;
  /* wait in slices so a terminal sees the partitions come in */
  while ((rc = vt->wait(h->p, id, 200)) == SEALPROV_ERR_TIMEOUT) {
    unsigned done = atomic_load(released);
    if (done != shown) {
      /* one line per partition that is through (a line per stage, no \r tricks) */
      sp_cli_note("proving: %u of %zu partitions through, %.1f s", done, n,
                  (sp_cli_now_ms() - t0) / 1e3);
      shown = done;
    }
  }
  sp_cli_note("proving: %s after %.1f s", rc == SEALPROV_OK ? "done" : "failed",
              (sp_cli_now_ms() - t0) / 1e3);
  return rc;
}

int g16_run_job(sp_cli_host *h, const g16_job_in *in, bool progress, bool meter,
                g16_prove_report *rep) {
  const sealprov_vtable *vt = h->vt;
  size_t n = in->n;
  rep->stage = G16_STAGE_SUBMIT;
  uint8_t *zeros = in->zero_rs ? calloc(n, 32) : NULL;
  if (in->zero_rs && !zeros) {
    rep->status = SEALPROV_ERR_NO_MEMORY;
    snprintf(rep->detail, sizeof rep->detail, "out of memory");
    return 1;
  }
  atomic_uint released;
  atomic_init(&released, 0);
  sealprov_job job;
  memset(&job, 0, sizeof job);
  job.struct_size = sizeof job;
  job.flags = in->zero_rs ? SEALPROV_JOB_FIXED_RS : 0;
  job.srs = in->srs;
  job.cs = in->cs;
  job.partitions = in->parts;
  job.num_partitions = (uint32_t)n;
  job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  job.r = zeros;
  job.s = zeros;
  job.proofs_out = in->proofs;
  job.results = rep->results;
  if (meter) {
    job.on_inputs_released = on_released;
    job.user = &released;
  }
  sealprov_job_id id = 0;
  double t0 = sp_cli_now_ms();
  if (progress) sp_cli_note("proving %zu %s%s", n, in->noun, n == 1 ? "" : "s");
  int rc = vt->submit(h->p, &job, &id);
  if (rc == SEALPROV_OK) {
    rep->stage = G16_STAGE_DONE;
    rep->job = id;
    sp_cli_job_watch(id); /* its failure is said once, by the command (cli.h) */
    rc = wait_job(h, id, n, meter && progress, &released, t0);
  }
  rep->prove_ms = sp_cli_now_ms() - t0;
  rep->status = rc;
  if (rc != SEALPROV_OK) snprintf(rep->detail, sizeof rep->detail, "%s", vt->last_error());
  if (id != 0) sp_cli_job_reported(id, rc == SEALPROV_OK ? "" : rep->detail);
  g16_dump_provider_text(h);
  g16_name_devices(h, n, rep);
  free(zeros);
  return rc == SEALPROV_OK ? 0 : 1;
}

int g16_prove_partitions(sp_cli_host *h, const char *params, const sealprov_assignment *asg,
                         size_t n, bool zero_rs, bool progress, uint8_t *proofs,
                         g16_prove_report *rep) {
  const sealprov_vtable *vt = h->vt;
  g16_report_begin(rep, n);
  sealprov_srs *srs = NULL;
  if (progress) sp_cli_note("loading the parameters %s", params);
  double t0 = sp_cli_now_ms();
  int rc = vt->srs_load(h->p, params, &srs);
  rep->load_ms = sp_cli_now_ms() - t0;
  if (rc != SEALPROV_OK) {
    rep->status = rc;
    snprintf(rep->detail, sizeof rep->detail, "%s", vt->last_error());
    return 1;
  }
  g16_params_memory(h, params, rep);
  if (progress) sp_cli_note("parameters loaded in %.1f s", rep->load_ms / 1e3);
  g16_job_in in = {
      .srs = srs, .parts = asg, .n = n, .zero_rs = zero_rs, .proofs = proofs, .noun = "partition"};
  int ret = g16_run_job(h, &in, progress, true, rep);
  vt->srs_release(srs);
  return ret;
}
