/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_gpu_timeline.c -- what a throughput stream's timeline, the scheduler's stats and
 * /proc say about it: per GPU execute intervals, gaps and memory, the urgent job's
 * wait, the process's peak host memory. */
#include <config.h> /* HAVE_CUDA declares sp_engine_cuda */

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "util/sp_gpu.h" /* first: hides <math.h>'s FP_ZERO from bls12_381.h */
#include "gpu/gpu_kit.h"
#include "cli.h"
#include "engine/device.h" /* sp_device_cfg */
#include "engine/engine.h"
#include "engine/hostmem.h"
#include "backend/engine_cuda.h"
#include "backend/probe.h"
#include "util/cuda_api.h"
#include "groth16/groth16.h" /* sp_groth16_check_assignment: the module's submit-time check */
#include "base/log.h"
#include "runtime/sp_sched.h"
#include "formats/srs.h"
#include "bench_gpu.h"

typedef struct tp_iv {
  double a, b;
} tp_iv;

static int tp_iv_cmp(const void *x, const void *y) {
  const tp_iv *p = x, *q = y;
  return p->a < q->a ? -1 : p->a > q->a;
}

/* Per-device execute intervals of jobs first..last from the scheduler's timeline
 * (one line per event; an interval is [t - duration, t]), and what they say about
 * idle time between partitions. */
/* One timeline line: "t=... event=... job=... partition=... device=... worker=...
 * duration=..." (sp_sched_timeline); false for any other line. */
typedef struct tl_event {
  double t, du;
  char ev[16];
  uint64_t job;
  int dev;
} tl_event;

static bool tl_parse(const char *line, tl_event *e) {
  unsigned part;
  int wk;
  return sscanf(line,
                "t=%lf event=%15s job=%" SCNu64 " partition=%u device=%d worker=%d duration=%lf",
                &e->t, e->ev, &e->job, &part, &e->dev, &wk, &e->du) == 7;
}

int tp_timeline(sp_sched *s, tp_run *r, uint64_t first, uint64_t last, char *err, size_t errlen) {
  size_t len = 0;
  int st = sp_sched_timeline(s, NULL, 0, &len);
  char *buf = st ? NULL : malloc(len + 1);
  size_t cap = len / 40 + 1; /* a line is longer than 40 characters */
  tp_iv *ex[BG_MAX_GPUS] = {0};
  double *prep[BG_MAX_GPUS] = {0};
  size_t nex[BG_MAX_GPUS] = {0}, nprep[BG_MAX_GPUS] = {0};
  for (unsigned d = 0; !st && d < r->ngpu; d++) {
    ex[d] = malloc(cap * sizeof *ex[d]);
    prep[d] = malloc(cap * sizeof *prep[d]);
    if (!ex[d] || !prep[d]) st = SEALPROV_ERR_NO_MEMORY;
  }
  if (!st && !buf) st = SEALPROV_ERR_NO_MEMORY;
  if (!st) st = sp_sched_timeline(s, buf, len + 1, &len);
  if (st) {
    snprintf(err, errlen, "reading the scheduler's timeline: %s", sp_status_name(st));
    goto out;
  }
  r->win_start = 1e300;
  r->win_end = -1e300;
  char *save = NULL;
  for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    tl_event e;
    if (!tl_parse(line, &e) || e.job < first || e.job > last) continue;
    double t = e.t, du = e.du;
    const char *ev = e.ev;
    int dev = e.dev;
    if (!strcmp(ev, "queued")) {
      if (t < r->win_start) r->win_start = t;
    } else if (!strcmp(ev, "done")) {
      if (t > r->win_end) r->win_end = t;
    } else if (dev >= 0 && (unsigned)dev < r->ngpu && !strcmp(ev, "execute")) {
      if (nex[dev] < cap) ex[dev][nex[dev]++] = (tp_iv){t - du, t};
    } else if (dev >= 0 && (unsigned)dev < r->ngpu && !strcmp(ev, "prepare")) {
      if (nprep[dev] < cap) prep[dev][nprep[dev]++] = du * 1e3;
    }
  }
  unsigned total = 0;
  for (unsigned d = 0; d < r->ngpu; d++) {
    tp_dev *x = &r->dev[d];
    size_t n = nex[d];
    x->executes = (unsigned)n;
    total += x->executes;
    x->prep_median_ms = bg_median_sorted(prep[d], nprep[d]);
    if (n == 0) continue;
    qsort(ex[d], n, sizeof *ex[d], tp_iv_cmp);
    x->first_start = ex[d][0].a;
    x->last_end = ex[d][0].b;
    for (size_t i = 0; i < n; i++) {
      x->busy_s += ex[d][i].b - ex[d][i].a;
      if (i > 0) {
        /* The device lock serializes executes: a gap is time the GPU had no partition. */
        double gap = ex[d][i].a - ex[d][i - 1].b;
        if (gap < 0) gap = 0;
        x->gaps++;
        x->total_gap_s += gap;
        if (gap > x->max_gap_s) x->max_gap_s = gap;
      }
      if (ex[d][i].b > x->last_end) x->last_end = ex[d][i].b;
    }
    for (size_t i = 0; i < n; i++) prep[d][i] = (ex[d][i].b - ex[d][i].a) * 1e3; /* reuse */
    x->exec_median_ms = bg_median_sorted(prep[d], n);
  }
  r->timeline_complete = total == r->jobs * r->parts && r->win_end > r->win_start;
out:
  for (unsigned d = 0; d < r->ngpu; d++) {
    free(ex[d]);
    free(prep[d]);
  }
  free(buf);
  return st;
}

/* The urgent job's events from the timeline (--urgent-after): when it was queued,
 * taken (start), given the device (execute start) and done, and how many other tasks
 * were taken, or got their device, between. */
void tp_urgent_timeline(sp_sched *s, tp_run *r, uint64_t id) {
  r->urgent.queued = r->urgent.start = r->urgent.exec_start = r->urgent.exec_end = r->urgent.done =
      -1;
  r->urgent.device = -1;
  size_t len = 0;
  if (sp_sched_timeline(s, NULL, 0, &len) != SEALPROV_OK) return;
  char *buf = malloc(len + 1);
  if (!buf || sp_sched_timeline(s, buf, len + 1, &len) != SEALPROV_OK) {
    free(buf);
    return;
  }
  /* the lines, each ended by NUL, read twice: the urgent job's own events first, then
   * the other tasks between its queued and its execute */
  char *end = buf + len;
  for (char *p = buf; p < end; p++)
    if (*p == '\n') *p = 0;
  tl_event e;
  for (char *line = buf; line < end; line += strlen(line) + 1) {
    if (!tl_parse(line, &e)) continue;
    if (e.job == id) {
      if (!strcmp(e.ev, "queued")) r->urgent.queued = e.t;
      if (!strcmp(e.ev, "start")) r->urgent.start = e.t, r->urgent.device = e.dev;
      if (!strcmp(e.ev, "execute")) r->urgent.exec_start = e.t - e.du, r->urgent.exec_end = e.t;
      if (!strcmp(e.ev, "done")) r->urgent.done = e.t;
    } else if (r->urgent.queued >= 0 && r->urgent.start < 0 && !strcmp(e.ev, "start")) {
      r->urgent.starts_between++;
    }
  }
  if (r->urgent.queued >= 0 && r->urgent.exec_start >= 0) {
    for (char *line = buf; line < end; line += strlen(line) + 1) {
      if (!tl_parse(line, &e)) continue;
      if (e.job != id && !strcmp(e.ev, "execute") && e.t - e.du > r->urgent.queued &&
          e.t - e.du < r->urgent.exec_start)
        r->urgent.locks_between++;
    }
  }
  free(buf);
}

/* out[i] = the value of metric NAME{device="i",...} in stats() text (left as it is
 * for devices the text does not have). */
static void tp_metric(const char *text, const char *name, uint64_t *out, unsigned ndev) {
  char key[96];
  int kl = snprintf(key, sizeof key, "%s{device=\"", name);
  for (const char *p = text; (p = strstr(p, key)) != NULL; p += kl) {
    unsigned long d = strtoul(p + kl, NULL, 10);
    const char *v = strstr(p, "} ");
    if (v && d < ndev) out[d] = strtoull(v + 2, NULL, 10);
  }
}

/* Device and pinned host memory per device, from the Prometheus text of stats(). */
void tp_memory(sp_sched *s, tp_run *r) {
  size_t len = 0;
  if (sp_sched_stats(s, NULL, 0, &len) != SEALPROV_OK) return;
  char *buf = malloc(len + 1);
  if (!buf || sp_sched_stats(s, buf, len + 1, &len) != SEALPROV_OK) {
    free(buf);
    return;
  }
  uint64_t dev_mem[BG_MAX_GPUS] = {0}, pinned[BG_MAX_GPUS] = {0}, mod[BG_MAX_GPUS] = {0};
  tp_metric(buf, "sealprov_device_memory_bytes", dev_mem, r->ngpu);
  /* newer modules only: 0 where the metric is missing */
  tp_metric(buf, "sealprov_device_host_pinned_bytes", pinned, r->ngpu);
  tp_metric(buf, "sealprov_device_module_host_bytes", mod, r->ngpu);
  for (unsigned i = 0; i < r->ngpu; i++) {
    r->dev[i].memory = dev_mem[i];
    r->dev[i].host_pinned = pinned[i];
    r->dev[i].module_host = mod[i];
  }
  free(buf);
}

uint64_t bg_max_rss_bytes(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
}

/* Bytes of the host's assignment arrays (what a sealing host passes per partition). */
uint64_t bg_assignment_bytes(const sealprov_assignment *a) {
  return ((uint64_t)a->abc_size * 3 + a->inp_size + a->aux_size) * 32 +
         ((a->a_aux_bit_len + 63) / 64 + (a->b_inp_bit_len + 63) / 64 +
          (a->b_aux_bit_len + 63) / 64) *
             8;
}

const sp_gpu_info *tp_info(const sp_gpu_info *infos, int ninfos, unsigned ordinal) {
  for (int i = 0; i < ninfos; i++)
    if (infos[i].ordinal == (int)ordinal) return &infos[i];
  return NULL;
}
