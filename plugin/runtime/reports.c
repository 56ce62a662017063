/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* reports.c -- what a scheduler tells about itself (sp_sched.h): the timeline of task
 * events, devices() and stats() (Prometheus text). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "runtime/sched_internal.h"

static const char *const tl_names[SP_TL_EVENT_COUNT_] = {
    [SP_TL_QUEUED] = "queued",       [SP_TL_START] = "start",     [SP_TL_PREPARE] = "prepare",
    [SP_TL_LOCK_WAIT] = "lock_wait", [SP_TL_EXECUTE] = "execute", [SP_TL_VERIFY] = "verify",
    [SP_TL_DONE] = "done",           [SP_TL_FAILED] = "failed",   [SP_TL_REQUEUED] = "requeued",
    [SP_TL_BOUND] = "bound",
};

/* ---- timeline ------------------------------------------------------------------ */

void sp_sched_timeline_add(sp_sched *s, enum sp_tl_event ev, uint64_t job, uint32_t partition,
                           int device, int worker, double duration_s, int status) {
  if (s->tl_cap == 0) return;
  int ordinal = -1;
  if ((ev == SP_TL_BOUND || ev == SP_TL_EXECUTE) && worker >= 0 &&
      (unsigned)worker < s->pool.nworkers)
    ordinal = s->pool.workers[worker].confirmed_ordinal;
  tl_entry e = {
      .ordinal = (int16_t)ordinal,
      .duration = duration_s,
      .job = job,
      .partition = partition,
      .device = (int16_t)device,
      .worker = (int16_t)worker,
      .event = (uint8_t)ev,
      .status = (uint8_t)(status < 0 || status > 255 ? SEALPROV_ERR_INTERNAL : status),
  };
  pthread_mutex_lock(&s->tl_mu);
  e.t = sp_now() - s->t0; /* under the lock, so that the ring is in time order */
  size_t slot = (s->tl_head + s->tl_count) % s->tl_cap;
  s->tl[slot] = e;
  if (s->tl_count < s->tl_cap)
    s->tl_count++;
  else
    s->tl_head = (s->tl_head + 1) % s->tl_cap; /* full: the oldest event goes */
  pthread_mutex_unlock(&s->tl_mu);
}

/* ---- a growing text buffer for stats/timeline ---------------------------------- */

typedef struct sbuf {
  char *p;
  size_t len, cap;
  bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    size_t room = b->cap - b->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = true;
      return;
    }
    if ((size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    size_t ncap = b->cap ? b->cap * 2 : 4096;
    while (ncap - b->len <= (size_t)n) ncap *= 2;
    char *np = realloc(b->p, ncap);
    if (np == NULL) {
      b->oom = true;
      return;
    }
    b->p = np;
    b->cap = ncap;
  }
}

/* Copies the text out with the ABI's convention: at most cap bytes including the
 * NUL, *len = the full length. */
static int sb_deliver(sbuf *b, char *buf, size_t cap, size_t *len) {
  if (b->oom) {
    free(b->p);
    return SEALPROV_ERR_NO_MEMORY;
  }
  if (len != NULL) *len = b->len;
  if (buf != NULL && cap > 0) {
    size_t n = b->len < cap - 1 ? b->len : cap - 1;
    if (n > 0) memcpy(buf, b->p, n);
    buf[n] = '\0';
  }
  free(b->p);
  return SEALPROV_OK;
}

int sp_sched_timeline(sp_sched *s, char *buf, size_t cap, size_t *len) {
  if (s == NULL || (buf == NULL && cap > 0)) return SEALPROV_ERR_INVALID_ARGUMENT;
  sbuf b = {0};
  pthread_mutex_lock(&s->tl_mu);
  for (size_t i = 0; i < s->tl_count; i++) {
    const tl_entry *e = &s->tl[(s->tl_head + i) % s->tl_cap];
    sb_printf(&b,
              "t=%.6f event=%s job=%" PRIu64 " partition=%" PRIu32
              " device=%d worker=%d duration=%.6f",
              e->t, e->event < SP_TL_EVENT_COUNT_ ? tl_names[e->event] : "?", e->job, e->partition,
              e->device, e->worker, e->duration);
    if (e->event == SP_TL_BOUND || e->event == SP_TL_EXECUTE)
      sb_printf(&b, " ordinal=%d", e->ordinal);
    if (e->event == SP_TL_FAILED || e->event == SP_TL_REQUEUED ||
        (e->event == SP_TL_VERIFY && e->status != SEALPROV_OK))
      sb_printf(&b, " status=%s", sp_status_name(e->status));
    sb_printf(&b, "\n");
  }
  pthread_mutex_unlock(&s->tl_mu);
  if (b.p == NULL && !b.oom) sb_printf(&b, "%s", "");
  return sb_deliver(&b, buf, cap, len);
}

/* ---- device table, stats ---------------------------------------------------------- */

static int device_state(const sp_sched *s, const sp_device_rt *d) {
  if (d->quarantined) return SEALPROV_DEVICE_QUARANTINED;
  if (s->stopping) return SEALPROV_DEVICE_STOPPED;
  return atomic_load(&d->executing) > 0 ? SEALPROV_DEVICE_BUSY : SEALPROV_DEVICE_READY;
}

static void copy_str(char *dst, size_t cap, const char *src) {
  snprintf(dst, cap, "%s", src ? src : "");
}

int sp_sched_devices(sp_sched *s, sealprov_device_info *out, size_t cap, size_t *count) {
  if (s == NULL || count == NULL || (out == NULL && cap > 0)) return SEALPROV_ERR_INVALID_ARGUMENT;
  size_t stride = sizeof(sealprov_device_info);
  /* An older host may have a smaller entry; it says so in out[0].struct_size. */
  if (cap > 0 && out[0].struct_size > 0 && out[0].struct_size < stride) stride = out[0].struct_size;
  pthread_mutex_lock(&s->mu);
  *count = s->ndev;
  for (size_t i = 0; i < cap && i < s->ndev; i++) {
    const sp_device_rt *d = &s->devs[i];
    sealprov_device_info e;
    memset(&e, 0, sizeof e);
    e.struct_size = (uint32_t)stride;
    e.index = (int32_t)i;
    copy_str(e.section, sizeof e.section, d->cfg.section);
    copy_str(e.type, sizeof e.type, d->cfg.type == SP_DEVICE_CUDA ? "cuda" : "cpu");
    copy_str(e.name, sizeof e.name, d->cfg.name[0] ? d->cfg.name : d->eng->name);
    copy_str(e.uuid, sizeof e.uuid, d->cfg.uuid);
    copy_str(e.pci_bus_id, sizeof e.pci_bus_id, d->cfg.pci_bus_id);
    e.ordinal = d->cfg.type == SP_DEVICE_CUDA ? d->cfg.ordinal : -1;
    e.confirmed_ordinal = d->confirmed_ordinal;
    e.workers = d->nworkers;
    e.state = device_state(s, d);
    e.tasks_done = d->tasks_done;
    e.tasks_failed = d->failures;
    e.memory_limit = d->cfg.memory_limit;
    e.busy_seconds = d->busy_s;
    e.lock_wait_seconds = d->lock_wait_s;
    /* ABI 1.2: what the device's first worker found at start (pool.c, topo.h) */
    e.numa_node = d->cfg.topo_numa_node;
    e.bound_cpus = d->cfg.bound_cpus;
    e.pcie_gen = d->cfg.pcie_gen;
    e.pcie_width = d->cfg.pcie_width;
    e.pcie_max_gen = d->cfg.pcie_max_gen;
    e.pcie_max_width = d->cfg.pcie_max_width;
    /* ABI 1.3: the compute capability (resolve.c) and the code the engine runs on it */
    e.compute_capability = d->cfg.type == SP_DEVICE_CUDA && d->cfg.cc_major > 0
                               ? d->cfg.cc_major * 10 + d->cfg.cc_minor
                               : -1;
    copy_str(e.code, sizeof e.code, d->cfg.code);
    /* ABI 1.4: what the engine's capacity model says the device holds */
    e.max_log_resident = sp_capacity_largest(d->eng, d->handle, SP_CAPACITY_RESIDENT);
    e.max_log_tables = sp_capacity_largest(d->eng, d->handle, SP_CAPACITY_TABLES);
    e.max_log_streamed = sp_capacity_largest(d->eng, d->handle, SP_CAPACITY_STREAMED);
    sp_partition_shape sh;
    sp_capacity c;
    sp_shape_sealing(1, &sh);
    (void)sp_capacity_fits(d->eng, d->handle, &sh, &c);
    e.device_memory = c.available == SP_CAPACITY_UNBOUNDED ? 0 : c.available;
    memcpy((char *)out + i * stride, &e, stride);
  }
  pthread_mutex_unlock(&s->mu);
  return SEALPROV_OK;
}

/* Prometheus label values escape backslash, quote and newline. */
static void sb_label(sbuf *b, const char *v) {
  for (; *v; v++) {
    if (*v == '\\' || *v == '"')
      sb_printf(b, "\\%c", *v);
    else if (*v == '\n')
      sb_printf(b, "\\n");
    else
      sb_printf(b, "%c", *v);
  }
}

typedef struct dev_snapshot {
  uint64_t tasks_done, failures, memory;
  double busy_s, lock_wait_s;
  int state;
  unsigned workers;
  uint64_t host_pinned;
  uint64_t transfer;
} dev_snapshot;

/* The provider's .params loads: how each was validated, its validation records, and
 * the reading threads' time on the files' digests (params.h). */
static void params_report(sbuf *b, sp_params_stats *ls) {
  sb_printf(b,
            "# HELP sealprov_params_loads_total Parameter (.params) loads that succeeded, by "
            "how their points were validated: full (every check), record (a validation record "
            "matched and the file's digest verified: no subgroup checks), unchecked "
            "(params_subgroup_check = false).\n"
            "# TYPE sealprov_params_loads_total counter\n"
            "sealprov_params_loads_total{validation=\"full\"} %" PRIu64
            "\n"
            "sealprov_params_loads_total{validation=\"record\"} %" PRIu64
            "\n"
            "sealprov_params_loads_total{validation=\"unchecked\"} %" PRIu64
            "\n"
            "# HELP sealprov_params_records_written_total Validation records written after a "
            "full validation.\n"
            "# TYPE sealprov_params_records_written_total counter\n"
            "sealprov_params_records_written_total %" PRIu64
            "\n"
            "# HELP sealprov_params_records_refused_total Validation records found but not used "
            "(stale, not trusted, not a record, or a digest that differed).\n"
            "# TYPE sealprov_params_records_refused_total counter\n"
            "sealprov_params_records_refused_total %" PRIu64
            "\n"
            "# HELP sealprov_params_digest_seconds_total Time the reading threads spent on "
            "parameter files' digests, added up over threads.\n"
            "# TYPE sealprov_params_digest_seconds_total counter\n"
            "sealprov_params_digest_seconds_total %.6f\n",
            atomic_load(&ls->full), atomic_load(&ls->record), atomic_load(&ls->unchecked),
            atomic_load(&ls->records_written), atomic_load(&ls->records_refused),
            (double)atomic_load(&ls->digest_ns) / 1e9);
  sb_printf(b,
            "# HELP sealprov_params_image_loads_total Shared images of parameter files "
            "([provider] params_shared_image): made by a load of this provider, mapped by one "
            "(its proving vectors not read from the file), or found and refused (not trusted, "
            "stale or damaged).\n"
            "# TYPE sealprov_params_image_loads_total counter\n"
            "sealprov_params_image_loads_total{how=\"made\"} %" PRIu64
            "\n"
            "sealprov_params_image_loads_total{how=\"mapped\"} %" PRIu64
            "\n"
            "sealprov_params_image_loads_total{how=\"refused\"} %" PRIu64 "\n",
            atomic_load(&ls->image_made), atomic_load(&ls->image_mapped),
            atomic_load(&ls->image_refused));
}

/* The host memory of the process's live parameter sets (srs.h, sp_srs_host_memory). */
typedef struct set_memory {
  sbuf *b;
  uint64_t image, own;
} set_memory;

static void set_memory_line(void *user, const sp_srs *s) {
  set_memory *m = user;
  m->image += s->image_bytes;
  m->own += s->host_bytes;
  char esc[SP_ESC_MAX];
  sb_printf(m->b, "sealprov_params_set_host_bytes{params=\"");
  sb_label(m->b, sp_utf8_escape(s->path, esc, sizeof esc));
  sb_printf(m->b, "\",image=\"");
  sb_label(m->b, s->image_path ? s->image_path : "");
  sb_printf(m->b, "\",memory=\"%s\"} %" PRIu64 "\n", s->image_bytes ? "image" : "own",
            s->image_bytes ? s->image_bytes : s->host_bytes);
}

static void params_memory_report(sbuf *b) {
  set_memory m = {.b = b};
  sb_printf(b,
            "# HELP sealprov_params_set_host_bytes Host memory of the proving vectors of each "
            "parameter set this process holds: memory=\"own\" decoded by its load into this "
            "process's memory, memory=\"image\" a shared image mapped read-only (image= its "
            "file), one copy for every process of the host that maps it.\n"
            "# TYPE sealprov_params_set_host_bytes gauge\n");
  sp_srs_host_memory(set_memory_line, &m);
  sb_printf(b,
            "# HELP sealprov_params_host_bytes Host memory of the proving vectors this process "
            "holds as its own (the sum of memory=\"own\").\n"
            "# TYPE sealprov_params_host_bytes gauge\n"
            "sealprov_params_host_bytes %" PRIu64
            "\n"
            "# HELP sealprov_params_image_bytes Shared images this process maps (the sum of "
            "memory=\"image\").\n"
            "# TYPE sealprov_params_image_bytes gauge\n"
            "sealprov_params_image_bytes %" PRIu64 "\n",
            m.own, m.image);
}

int sp_sched_stats(sp_sched *s, char *buf, size_t cap, size_t *len) {
  if (s == NULL || (buf == NULL && cap > 0)) return SEALPROV_ERR_INVALID_ARGUMENT;
  dev_snapshot snap[SP_MAX_DEVICES];
  pthread_mutex_lock(&s->mu);
  for (unsigned i = 0; i < s->ndev; i++) {
    const sp_device_rt *d = &s->devs[i];
    snap[i] = (dev_snapshot){d->tasks_done,      d->failures, 0, d->busy_s, d->lock_wait_s,
                             device_state(s, d), d->nworkers, 0, 0};
  }
  double speed[SP_MAX_DEVICES][SP_CAPACITY_MAX_LOG + 1];
  for (unsigned i = 0; i < s->ndev; i++) memcpy(speed[i], s->devs[i].speed_s, sizeof speed[i]);
  size_t queued = s->queued, active = s->active_jobs;
  uint64_t submitted = s->jobs_submitted, ok = s->jobs_ok, failed = s->jobs_failed,
           requeues = s->requeues;
  pthread_mutex_unlock(&s->mu);
  /* Engines keep their own memory counters; asking them outside s->mu keeps a slow
   * engine from stalling the workers. */
  for (unsigned i = 0; i < s->ndev; i++) {
    const sp_device_rt *d = &s->devs[i];
    snap[i].memory = d->eng->memory_in_use ? d->eng->memory_in_use(d->handle) : 0;
    snap[i].host_pinned = d->eng->host_memory_in_use ? d->eng->host_memory_in_use(d->handle) : 0;
    snap[i].transfer = d->eng->transfer_bytes ? d->eng->transfer_bytes(d->handle) : 0;
  }

  static const struct {
    const char *name, *type, *help;
  } m[] = {
      {"sealprov_device_tasks_total", "counter", "Partitions proved on the device."},
      {"sealprov_device_failures_total", "counter",
       "Failed attempts on the device (device errors and failed self-checks)."},
      {"sealprov_device_busy_seconds_total", "counter",
       "Time spent in the device section (device lock held)."},
      {"sealprov_device_lock_wait_seconds_total", "counter",
       "Time workers waited for the device lock."},
      {"sealprov_device_quarantined", "gauge", "1 if the device is quarantined."},
      {"sealprov_device_memory_bytes", "gauge", "Device memory in use by the engine."},
      {"sealprov_device_host_pinned_bytes", "gauge",
       "Host memory the engine holds page-locked for the device (whole-partition staging "
       "buffers; chunks of the shared pool are in sealprov_device_module_host_bytes)."},
      {"sealprov_device_workers", "gauge", "Worker threads bound to the device."},
      {"sealprov_device_state", "gauge",
       "Device state: 0 ready, 1 busy, 2 quarantined, 3 stopped."},
      {"sealprov_device_pcie_bytes_total", "counter",
       "Bytes copied from the host to the device (assignments, streamed and resident "
       "parameter points)."},
  };
  sbuf b = {0};
  for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
    sb_printf(&b, "# HELP %s %s\n# TYPE %s %s\n", m[k].name, m[k].help, m[k].name, m[k].type);
    for (unsigned i = 0; i < s->ndev; i++) {
      const sp_device_rt *d = &s->devs[i];
      sb_printf(&b, "%s{device=\"%u\",section=\"", m[k].name, i);
      sb_label(&b, d->cfg.section);
      sb_printf(&b, "\",type=\"%s\"} ", d->cfg.type == SP_DEVICE_CUDA ? "cuda" : "cpu");
      switch (k) {
        case 0: sb_printf(&b, "%" PRIu64 "\n", snap[i].tasks_done); break;
        case 1: sb_printf(&b, "%" PRIu64 "\n", snap[i].failures); break;
        case 2: sb_printf(&b, "%.6f\n", snap[i].busy_s); break;
        case 3: sb_printf(&b, "%.6f\n", snap[i].lock_wait_s); break;
        case 4: sb_printf(&b, "%d\n", snap[i].state == SEALPROV_DEVICE_QUARANTINED); break;
        case 5: sb_printf(&b, "%" PRIu64 "\n", snap[i].memory); break;
        case 6: sb_printf(&b, "%" PRIu64 "\n", snap[i].host_pinned); break;
        case 7: sb_printf(&b, "%u\n", snap[i].workers); break;
        case 8: sb_printf(&b, "%d\n", snap[i].state); break;
        default: sb_printf(&b, "%" PRIu64 "\n", snap[i].transfer); break;
      }
    }
  }
  /* The binding itself, as an info metric: what each selector resolved to and what
   * every worker of the device confirmed with cudaGetDevice. */
  sb_printf(&b,
            "# HELP sealprov_device_info Device binding (value 1): the ordinal the selector "
            "resolved to and the ordinal its workers confirmed.\n"
            "# TYPE sealprov_device_info gauge\n");
  for (unsigned i = 0; i < s->ndev; i++) {
    const sp_device_rt *d = &s->devs[i];
    sb_printf(&b, "sealprov_device_info{device=\"%u\",section=\"", i);
    sb_label(&b, d->cfg.section);
    sb_printf(&b, "\",type=\"%s\",name=\"", d->cfg.type == SP_DEVICE_CUDA ? "cuda" : "cpu");
    sb_label(&b, d->cfg.name);
    sb_printf(&b, "\",uuid=\"");
    sb_label(&b, d->cfg.uuid);
    sb_printf(&b, "\",pci_bus_id=\"");
    sb_label(&b, d->cfg.pci_bus_id);
    sb_printf(&b, "\",ordinal=\"%d\",confirmed_ordinal=\"%d\"} 1\n",
              d->cfg.type == SP_DEVICE_CUDA ? d->cfg.ordinal : -1, d->confirmed_ordinal);
  }
  /* The INI's sections this process left out at open ([provider] unseen_gpus = skip). */
  sb_printf(&b,
            "# HELP sealprov_device_skipped Device section left out at open (value 1): its GPU "
            "is not one this process sees, and [provider] unseen_gpus = skip.\n"
            "# TYPE sealprov_device_skipped gauge\n");
  for (size_t i = 0; i < s->cfg.nskipped; i++) {
    sb_printf(&b, "sealprov_device_skipped{section=\"");
    sb_label(&b, s->cfg.skipped[i].section);
    sb_printf(&b, "\",selector=\"");
    sb_label(&b, s->cfg.skipped[i].selector);
    sb_printf(&b, "\"} 1\n");
  }
  /* The speed the placement works with (placement.c): measured sizes only. */
  sb_printf(&b,
            "# HELP sealprov_device_partition_seconds The device's execute time for a partition "
            "of 2^log_domain, averaged over its recent partitions (one-time setup left out).\n"
            "# TYPE sealprov_device_partition_seconds gauge\n");
  for (unsigned i = 0; i < s->ndev; i++)
    for (unsigned k = 0; k <= SP_CAPACITY_MAX_LOG; k++) {
      if (!(speed[i][k] > 0)) continue;
      sb_printf(&b, "sealprov_device_partition_seconds{device=\"%u\",section=\"", i);
      sb_label(&b, s->devs[i].cfg.section);
      sb_printf(&b, "\",log_domain=\"%u\"} %.6f\n", k, speed[i][k]);
    }
  sb_printf(&b,
            "# HELP sealprov_queue_depth Partitions waiting for a worker.\n"
            "# TYPE sealprov_queue_depth gauge\nsealprov_queue_depth %zu\n"
            "# HELP sealprov_jobs_active Jobs queued or running.\n"
            "# TYPE sealprov_jobs_active gauge\nsealprov_jobs_active %zu\n"
            "# HELP sealprov_jobs_submitted_total Jobs accepted by submit.\n"
            "# TYPE sealprov_jobs_submitted_total counter\nsealprov_jobs_submitted_total %" PRIu64
            "\n"
            "# HELP sealprov_jobs_completed_total Jobs ended, by outcome.\n"
            "# TYPE sealprov_jobs_completed_total counter\n"
            "sealprov_jobs_completed_total{outcome=\"ok\"} %" PRIu64
            "\n"
            "sealprov_jobs_completed_total{outcome=\"failed\"} %" PRIu64
            "\n"
            "# HELP sealprov_partitions_requeued_total Attempts requeued after a device failure.\n"
            "# TYPE sealprov_partitions_requeued_total counter\n"
            "sealprov_partitions_requeued_total %" PRIu64 "\n",
            queued, active, submitted, ok, failed, requeues);
  /* Host memory the module holds for partitions (hostmem.h): per device, in total, its
   * peak, the cap, and how often and how long staging waited for it. */
  sp_hostmem_stats hm;
  sp_hostmem_get(s->hostmem, &hm);
  sb_printf(&b,
            "# HELP sealprov_device_module_host_bytes Host memory the module holds for the "
            "device's partitions (staging, chunks taken by staging and uploads, witness-only a, "
            "b, c).\n"
            "# TYPE sealprov_device_module_host_bytes gauge\n");
  for (unsigned i = 0; i < s->ndev; i++) {
    sb_printf(&b, "sealprov_device_module_host_bytes{device=\"%u\",section=\"", i);
    sb_label(&b, s->devs[i].cfg.section);
    sb_printf(&b, "\"} %" PRIu64 "\n", i < SP_HOSTMEM_DEVICES ? hm.dev[i] : 0);
  }
  sb_printf(
      &b,
      "# HELP sealprov_module_host_bytes Host memory the module holds for partitions, all "
      "devices and the shared chunk pool's idle chunks.\n"
      "# TYPE sealprov_module_host_bytes gauge\nsealprov_module_host_bytes %" PRIu64
      "\n"
      "# HELP sealprov_module_host_peak_bytes Highest sealprov_module_host_bytes.\n"
      "# TYPE sealprov_module_host_peak_bytes gauge\nsealprov_module_host_peak_bytes %" PRIu64
      "\n"
      "# HELP sealprov_module_host_limit_bytes [provider] host_memory_limit (0: none).\n"
      "# TYPE sealprov_module_host_limit_bytes gauge\nsealprov_module_host_limit_bytes %" PRIu64
      "\n"
      "# HELP sealprov_module_host_waits_total Partitions whose staging waited for host "
      "memory under the limit.\n"
      "# TYPE sealprov_module_host_waits_total counter\nsealprov_module_host_waits_total %" PRIu64
      "\n"
      "# HELP sealprov_module_host_wait_seconds_total Time staging waited for host memory.\n"
      "# TYPE sealprov_module_host_wait_seconds_total counter\n"
      "sealprov_module_host_wait_seconds_total %.6f\n"
      "# HELP sealprov_module_host_release_errors_total Releases of more host memory than "
      "was counted (a double release: a bug; 0 in a healthy module).\n"
      "# TYPE sealprov_module_host_release_errors_total counter\n"
      "sealprov_module_host_release_errors_total %" PRIu64 "\n",
      hm.total, hm.peak, hm.limit, hm.waits, hm.wait_s, hm.release_errors);
  params_report(&b, &s->params_stats);
  params_memory_report(&b);
  return sb_deliver(&b, buf, cap, len);
}
