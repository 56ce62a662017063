/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* placement.c -- which devices a partition may go to, and which one should take it.
 *
 * Capacity: each device's engine says what a partition of a parameter set needs there
 * and what the device may use (engine.h, sp_capacity). A device without the memory for
 * a job's partitions is never given one of them: running out of memory would count as a
 * device failure and quarantine a device that is only small. A job that no device can
 * hold is refused at srs_load and submit with DEVICE_MEMORY, each device's need and
 * room, and the smallest memory_limit that works.
 *
 * Speed: each device keeps the time its executes take per partition size (an
 * exponentially weighted average of its own measurements, one-time setup left out). A
 * worker looking for a task walks the queue in order and plays out what the other
 * devices will do with it: each task it leaves goes to the device that would finish it
 * first (after what that device runs now and what it was given before in the walk).
 * The worker takes the first task it may run that no other device, a quarter faster or
 * more, would finish sooner than itself; it takes no task of a lower priority than one
 * it left. So a device twice as slow takes about a third of a job's partitions,
 * and a slow device does not start a job's last partition when a fast one would end it
 * earlier: a job ends no later than on its fastest device alone. A device never
 * measured at a size takes what comes (that measures it); sizes it has not measured are
 * estimated from the nearest one it has, scaled with the domain. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/sched_internal.h"

/* ---- capacity ------------------------------------------------------------------------ */

uint64_t sched_fit_mask(const sp_sched *s, const sp_partition_shape *shape) {
  uint64_t fit = 0;
  for (unsigned i = 0; i < s->ndev; i++)
    if (sp_capacity_fits(s->devs[i].eng, s->devs[i].handle, shape, NULL)) fit |= UINT64_C(1) << i;
  return fit;
}

/* b in the largest binary unit it has a whole one of ("2.77 GiB", "112.0 KiB"); with
 * ini, rounded up to a whole one, as an INI size ("2833MiB", "112KiB"). */
static void size_text(char *out, size_t len, uint64_t b, bool ini) {
  static const char *const unit[4] = {"B", "KiB", "MiB", "GiB"};
  unsigned u = 0;
  while (u < 3 && b >= (UINT64_C(1) << (10 * (u + 1)))) u++;
  if (u == 3 && ini) u = 2; /* MiB: a whole GiB would waste up to 1023 MiB */
  const uint64_t one = UINT64_C(1) << (10 * u);
  if (ini)
    snprintf(out, len, "%" PRIu64 "%s", (b + one - 1) / one, unit[u]);
  else
    snprintf(out, len, u ? "%.2f %s" : "%.0f %s", (double)b / (double)one, unit[u]);
}

/* "device 0 (gpu0) needs N bytes (X GiB) with the parameters streamed and may use M bytes
 * (Y GiB, its memory_limit): memory_limit = KMiB or more fits" for each device of mask,
 * separated by "; ". */
static void capacity_detail(const sp_sched *s, const sp_partition_shape *shape, uint64_t mask,
                            char *out, size_t len) {
  size_t off = 0;
  out[0] = '\0';
  for (unsigned i = 0; i < s->ndev && off < len; i++) {
    if (!(mask & (UINT64_C(1) << i))) continue;
    const sp_device_rt *d = &s->devs[i];
    sp_capacity c;
    (void)sp_capacity_fits(d->eng, d->handle, shape, &c);
    const uint64_t need = sp_capacity_need(&c, shape);
    /* the card, not memory_limit, bounds a GPU whose limit is unset or above it */
    const bool card = !c.by_limit;
    /* an engine that keeps no points on the device has one way only */
    const char *how = c.resident == c.streamed ? ""
                      : shape->stream_ok       ? " with the parameters streamed"
                                               : " with the parameters resident (no host copy "
                                                 "to stream them from)";
    char n[32], a[32], lim[32];
    size_text(n, sizeof n, need, false);
    size_text(a, sizeof a, c.available, false);
    size_text(lim, sizeof lim, need, true);
    off += (size_t)snprintf(out + off, len - off,
                            "%sdevice %u (%s) needs %" PRIu64 " bytes (%s)%s and may use %" PRIu64
                            " bytes (%s, %s)",
                            off ? "; " : "", i, sched_dev_name(d), need, n, how, c.available, a,
                            !card                           ? "its memory_limit"
                            : d->cfg.type == SP_DEVICE_CUDA ? "the GPU's memory"
                                                            : "the device's memory");
    if (off >= len) break;
    if (card)
      off += (size_t)snprintf(out + off, len - off, ": no memory_limit makes it fit");
    else
      off += (size_t)snprintf(out + off, len - off, ": memory_limit = %s or more fits", lim);
  }
}

int sched_capacity_refusal(const sp_sched *s, const sp_partition_shape *shape, uint64_t mask,
                           const char *what, const char *file, char *err, size_t errlen) {
  char detail[1536];
  capacity_detail(s, shape, mask, detail, sizeof detail);
  return sched_fail(err, errlen, SEALPROV_ERR_DEVICE_MEMORY,
                    "%s: no device %shas the memory for a partition of %s (domain 2^%u, %" PRIu64
                    " aux, %" PRIu64 " inputs): %s",
                    what, mask == sched_all_devices(s) ? "of this provider " : "the job allows ",
                    file ? file : "these parameters", shape->log_domain, shape->aux_size,
                    shape->inp_size, detail);
}

int sp_sched_check_capacity(sp_sched *s, const sp_partition_shape *shape, const char *what,
                            const char *file, char *err, size_t errlen) {
  const uint64_t all = sched_all_devices(s), fit = sched_fit_mask(s, shape);
  if (fit == 0) return sched_capacity_refusal(s, shape, all, what, file, err, errlen);
  if (fit != all) {
    char detail[1536];
    capacity_detail(s, shape, all & ~fit, detail, sizeof detail);
    SLOG(s, SEALPROV_LOG_WARN,
         "%s %s: not every device has the memory for its partitions, which go only to the "
         "others: %s",
         what, file ? file : "", detail);
  }
  return SEALPROV_OK;
}

/* ---- speed --------------------------------------------------------------------------- */

/* Weight of a new measurement: a few partitions follow a change (a GPU that throttles),
 * one odd partition does not swing the estimate. */
#define SPEED_WEIGHT 0.3
/* Devices within a quarter of each other's speed are taken as equal: what measurements
 * of equal cards differ by never moves a task from an idle worker. */
#define SPEED_MARGIN 1.25

void sched_speed_sample(sp_device_rt *d, unsigned k, double seconds) {
  if (k > SP_CAPACITY_MAX_LOG || !(seconds > 0)) return;
  double *e = &d->speed_s[k];
  *e = *e > 0 ? *e + SPEED_WEIGHT * (seconds - *e) : seconds;
}

/* d's execute time for 2^k: measured, or scaled from the nearest size it measured (a
 * partition's work grows about linearly with the domain); 0 when it measured none. */
static double speed_of(const sp_device_rt *d, unsigned k) {
  if (k > SP_CAPACITY_MAX_LOG) return 0;
  if (d->speed_s[k] > 0) return d->speed_s[k];
  for (unsigned dist = 1; dist <= SP_CAPACITY_MAX_LOG; dist++) {
    if (k >= dist && d->speed_s[k - dist] > 0) return d->speed_s[k - dist] * (double)(1u << dist);
    if (k + dist <= SP_CAPACITY_MAX_LOG && d->speed_s[k + dist] > 0)
      return d->speed_s[k + dist] / (double)(1u << dist);
  }
  return 0;
}

static unsigned task_log(const sp_task_rec *t) {
  return t->job->srs != NULL ? t->job->srs->log_domain : 0;
}

/* When d is free for another partition: its running tasks run one after another (one
 * device lock) from when each was taken, each for d's time at its size. */
#define MAX_DEVICE_WORKERS 64 /* ini.c's range of workers */
static double free_at(const sp_device_rt *d, double now) {
  double starts[MAX_DEVICE_WORKERS], secs[MAX_DEVICE_WORKERS];
  unsigned n = 0;
  for (unsigned j = 0; j < d->nworkers && n < MAX_DEVICE_WORKERS; j++) {
    const sp_task_rec *t = d->workers[j].current;
    if (t == NULL) continue;
    unsigned at = n++;
    while (at > 0 && starts[at - 1] > t->t_start) { /* by start time */
      starts[at] = starts[at - 1];
      secs[at] = secs[at - 1];
      at--;
    }
    starts[at] = t->t_start;
    secs[at] = speed_of(d, task_log(t));
  }
  double end = now;
  for (unsigned i = 0; i < n; i++) end = (starts[i] > end ? starts[i] : end) + secs[i];
  return end;
}

sp_task_rec *sched_pick(sp_sched *s, const sp_device_rt *d, bool *deferred) {
  *deferred = false;
  /* Nothing queued (always so while open() still starts the other devices' workers,
   * whose records are being filled in): nothing to weigh. */
  if (s->qhead == NULL) return NULL;
  const double now = sp_now();
  double at[SP_MAX_DEVICES]; /* when each other device is free, as the walk hands it tasks */
  for (unsigned i = 0; i < s->ndev; i++)
    at[i] = &s->devs[i] == d || s->devs[i].quarantined ? 0 : free_at(&s->devs[i], now);
  const double mine = free_at(d, now);
  int32_t left_prio = 0; /* the priority of the first task left to another device */
  for (sp_task_rec *t = s->qhead; t != NULL; t = t->next) {
    const unsigned k = task_log(t);
    /* never a lower priority than a task left to a faster device: the queue's order
     * (priority first) holds on every device */
    if (*deferred && t->job->desc.priority < left_prio) break;
    /* the other device that would finish t first, of those that know their speed */
    int best = -1;
    double best_end = 0;
    for (unsigned i = 0; i < s->ndev; i++) {
      const sp_device_rt *e = &s->devs[i];
      if (e == d || e->quarantined || !sched_eligible(s, t, e)) continue;
      double sec = speed_of(e, k);
      if (sec > 0 && (best < 0 || at[i] + sec < best_end)) best = (int)i, best_end = at[i] + sec;
    }
    if (sched_eligible(s, t, d)) {
      const double sec = speed_of(d, k);
      /* left only to a device clearly faster, that would also finish it sooner */
      if (sec == 0 || best < 0 || !(best_end < mine + sec) ||
          !(speed_of(&s->devs[best], k) * SPEED_MARGIN <= sec))
        return t;
      if (!*deferred) left_prio = t->job->desc.priority;
      *deferred = true;
    }
    if (best >= 0) at[best] = best_end;
  }
  return NULL;
}
