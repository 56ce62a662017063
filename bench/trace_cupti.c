/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* trace_cupti.c -- `sealprov bench gpu --trace FILE`: every kernel, copy, memset and CUDA
 * wait of the timed runs, from CUPTI's Activity API, each told by the engine's stage it
 * was started in (util/stage.h), summed per window (trace_stats.c) and written to FILE,
 * one CSV row each.
 *
 * CUPTI is the toolkit's library, looked for when --trace asks for it and never linked:
 * the benchmark runs without it, and the GPU machine's copy may sit outside the linker's
 * path. Its records and calls are declared here, as the CUPTI of CUDA 12 and 13 lays
 * them out (the fields read are the prefix every version of a record shares); where
 * the build finds cupti_activity.h the offsets are checked against it.
 *
 * Stages: the engine calls sp_gpu_stage_hook at each stage boundary; the hook pushes the
 * stage as the thread's external correlation id (CUSTOM0), so CUPTI tags every call the
 * thread makes in it, and keeps the thread's time in the stage (a span). A record is
 * told by its call's tag, else by the span its call's thread was in (trace_stats.c).
 * Activity is on from the start (the contexts are made after it), and what a window
 * does not cover (parameter making, warm-ups) is dropped at the window's start. */
#include <config.h>

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/stage.h"
#include "trace_stats.h"
#include "bench_gpu.h"

/* ---- CUPTI, as far as it is used ----------------------------------------------------- */

enum {
  BT_KIND_MEMCPY = 1,
  BT_KIND_MEMSET = 2,
  BT_KIND_KERNEL = 3,
  BT_KIND_DRIVER = 4,
  BT_KIND_RUNTIME = 5,
  BT_KIND_CONCURRENT_KERNEL = 10,
  BT_KIND_SYNCHRONIZATION = 38,
  BT_KIND_EXTERNAL_CORRELATION = 39,
  BT_EXTERNAL_CUSTOM0 = 3,
  BT_FLUSH_FORCED = 1,
  BT_THREAD_ID_SYSTEM = 1, /* gettid(), as the hook's spans */
  BT_MEMCPY_HTOD = 1,
  BT_MEMCPY_DTOH = 2,
  BT_MEMCPY_DTOD = 8
};
typedef struct bt_kernel { /* CUpti_ActivityKernel4 .. 10 */
  uint32_t kind;
  uint8_t cache_config, shared_memory_config;
  uint16_t registers;
  uint32_t pgc_requested, pgc_executed;
  uint64_t start, end, completed;
  uint32_t device, context, stream;
  int32_t grid[3], block[3], static_shared, dynamic_shared;
  uint32_t local_per_thread, local_total, corr;
  int64_t grid_id;
  const char *name;
} bt_kernel;
typedef struct bt_memcpy { /* CUpti_ActivityMemcpy5, 6 */
  uint32_t kind;
  uint8_t copy_kind, src_kind, dst_kind, flags;
  uint64_t bytes, start, end;
  uint32_t device, context, stream, corr, runtime_corr;
} bt_memcpy;
typedef struct bt_memset { /* CUpti_ActivityMemset3, 4 */
  uint32_t kind, value;
  uint64_t bytes, start, end;
  uint32_t device, context, stream, corr;
} bt_memset;
typedef struct bt_sync { /* CUpti_ActivitySynchronization, 2 */
  uint32_t kind, type;
  uint64_t start, end;
  uint32_t corr, context, stream;
} bt_sync;
typedef struct bt_api { /* CUpti_ActivityAPI */
  uint32_t kind, cbid;
  uint64_t start, end;
  uint32_t process, thread, corr, ret;
} bt_api;
typedef struct bt_ext { /* CUpti_ActivityExternalCorrelation */
  uint32_t kind, external_kind;
  uint64_t external_id;
  uint32_t corr, reserved;
} bt_ext;

#if defined(__has_include)
#if __has_include(<cupti_activity.h>) && __has_include(<cupti_version.h>)
#include <cupti_activity.h>
#include <cupti_version.h>
#if defined(CUPTI_API_VERSION) && CUPTI_API_VERSION >= 130000 && CUPTI_API_VERSION < 140000
#define BT_SAME(ours, f, theirs, g) \
  _Static_assert(offsetof(ours, f) == offsetof(theirs, g), #ours "." #f " is not " #theirs "." #g)
BT_SAME(bt_kernel, start, CUpti_ActivityKernel10, start);
BT_SAME(bt_kernel, device, CUpti_ActivityKernel10, deviceId);
BT_SAME(bt_kernel, stream, CUpti_ActivityKernel10, streamId);
BT_SAME(bt_kernel, corr, CUpti_ActivityKernel10, correlationId);
BT_SAME(bt_kernel, name, CUpti_ActivityKernel10, name);
BT_SAME(bt_memcpy, copy_kind, CUpti_ActivityMemcpy6, copyKind);
BT_SAME(bt_memcpy, bytes, CUpti_ActivityMemcpy6, bytes);
BT_SAME(bt_memcpy, device, CUpti_ActivityMemcpy6, deviceId);
BT_SAME(bt_memcpy, runtime_corr, CUpti_ActivityMemcpy6, runtimeCorrelationId);
BT_SAME(bt_memset, start, CUpti_ActivityMemset4, start);
BT_SAME(bt_memset, corr, CUpti_ActivityMemset4, correlationId);
BT_SAME(bt_sync, start, CUpti_ActivitySynchronization2, start);
BT_SAME(bt_sync, stream, CUpti_ActivitySynchronization2, streamId);
BT_SAME(bt_api, thread, CUpti_ActivityAPI, threadId);
BT_SAME(bt_api, corr, CUpti_ActivityAPI, correlationId);
BT_SAME(bt_ext, external_id, CUpti_ActivityExternalCorrelation, externalId);
BT_SAME(bt_ext, corr, CUpti_ActivityExternalCorrelation, correlationId);
_Static_assert((int)BT_KIND_CONCURRENT_KERNEL == (int)CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
                   (int)BT_KIND_RUNTIME == (int)CUPTI_ACTIVITY_KIND_RUNTIME &&
                   (int)BT_KIND_DRIVER == (int)CUPTI_ACTIVITY_KIND_DRIVER &&
                   (int)BT_KIND_SYNCHRONIZATION == (int)CUPTI_ACTIVITY_KIND_SYNCHRONIZATION &&
                   (int)BT_KIND_EXTERNAL_CORRELATION ==
                       (int)CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION &&
                   (int)BT_EXTERNAL_CUSTOM0 == (int)CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 &&
                   (int)BT_MEMCPY_DTOD == (int)CUPTI_ACTIVITY_MEMCPY_KIND_DTOD &&
                   (int)BT_FLUSH_FORCED == (int)CUPTI_ACTIVITY_FLAG_FLUSH_FORCED &&
                   (int)BT_THREAD_ID_SYSTEM == (int)CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM,
               "CUPTI's numbers");
#endif
#endif
#endif

typedef struct bt_cupti {
  int (*register_callbacks)(void (*req)(uint8_t **, size_t *, size_t *),
                            void (*done)(void *, uint32_t, uint8_t *, size_t, size_t));
  int (*enable)(int kind);
  int (*disable)(int kind);
  int (*flush_all)(uint32_t flag);
  int (*next_record)(uint8_t *buf, size_t valid, const void **rec);
  int (*dropped)(void *ctx, uint32_t stream, size_t *n);
  int (*push)(int kind, uint64_t id);
  int (*pop)(int kind, uint64_t *id);
  int (*timestamp)(uint64_t *t);
  int (*result_string)(int result, const char **s);
  int (*version)(uint32_t *v);
  int (*thread_id_type)(int type); /* may be missing: then the spans cannot tell records */
} bt_cupti;

/* The names `bench gpu` prints for util/stage.h's stages. */
static const char *const stage_names[] = {"-",        "prepare", "execute", "params", "upload",
                                          "transfer", "decode",  "h_ntt",   "h_msm",  "batch_add",
                                          "tail_msm", "g2",      "spmv",    "host",   "early_a"};
_Static_assert(sizeof stage_names / sizeof *stage_names == SP_STAGE_COUNT,
               "a name for every stage of util/stage.h");

#define BT_BUF_BYTES ((size_t)8 << 20)

typedef struct bt_buf {
  uint8_t *p;
  size_t valid;
  struct bt_buf *next;
} bt_buf;

static struct {
  bt_cupti cu;
  char lib[640];
  uint32_t version;
  char path[1024];
  FILE *csv;
  FILE *out;          /* where a window's tables go, as it ends */
  pthread_mutex_t mu; /* below: the hook's spans, the completed buffers, the counts */
  trc_trace t;
  bool started, in_window, sync_on;
  bt_buf *bufs;
  size_t dropped, lost;
  char label[192];
  uint64_t w0;
  unsigned windows;
} bt = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* ---- finding CUPTI ------------------------------------------------------------------------- */

static bool bt_sym(void *h, const char *name, void *fn) {
  void *p = dlsym(h, name);
  memcpy(fn, &p, sizeof p); /* a function pointer from dlsym's object pointer */
  return p != NULL;
}

/* The library's functions; the name of the first one missing, or NULL. */
static const char *bt_bind(void *h) {
  bt_cupti *c = &bt.cu;
  static const struct {
    const char *name;
    size_t off;
  } req[] = {{"cuptiActivityRegisterCallbacks", offsetof(bt_cupti, register_callbacks)},
             {"cuptiActivityEnable", offsetof(bt_cupti, enable)},
             {"cuptiActivityDisable", offsetof(bt_cupti, disable)},
             {"cuptiActivityFlushAll", offsetof(bt_cupti, flush_all)},
             {"cuptiActivityGetNextRecord", offsetof(bt_cupti, next_record)},
             {"cuptiActivityGetNumDroppedRecords", offsetof(bt_cupti, dropped)},
             {"cuptiActivityPushExternalCorrelationId", offsetof(bt_cupti, push)},
             {"cuptiActivityPopExternalCorrelationId", offsetof(bt_cupti, pop)},
             {"cuptiGetTimestamp", offsetof(bt_cupti, timestamp)},
             {"cuptiGetResultString", offsetof(bt_cupti, result_string)},
             {"cuptiGetVersion", offsetof(bt_cupti, version)}};
  for (size_t i = 0; i < sizeof req / sizeof *req; i++)
    if (!bt_sym(h, req[i].name, (char *)c + req[i].off)) return req[i].name;
  (void)bt_sym(h, "cuptiSetThreadIdType", &c->thread_id_type);
  return NULL;
}

/* dlopen of libcupti: by name (LD_LIBRARY_PATH, the loader's cache), then in the
 * toolkit's folders ($CUDA_HOME's, the one configure found, /usr/local/cuda's). */
static const char *const bt_names[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
#define BT_NNAMES (sizeof bt_names / sizeof *bt_names)

static void bt_add_dir(char dirs[][512], int *nd, const char *a, const char *b) {
  char d[512];
  snprintf(d, sizeof d, "%s%s", a, b);
  for (int i = 0; i < *nd; i++)
    if (!strcmp(dirs[i], d)) return;
  memcpy(dirs[(*nd)++], d, sizeof d);
}

static void *bt_open_lib(char *dirlist, size_t dlen, char *first_err, size_t elen) {
  const char *home = getenv("CUDA_HOME");
  char dirs[6][512];
  int nd = 0;
  if (home && *home) {
    bt_add_dir(dirs, &nd, home, "/extras/CUPTI/lib64");
    bt_add_dir(dirs, &nd, home, "/lib64");
  }
#ifdef SP_CUDA_PREFIX
  bt_add_dir(dirs, &nd, SP_CUDA_PREFIX, "/extras/CUPTI/lib64");
  bt_add_dir(dirs, &nd, SP_CUDA_PREFIX, "/lib64");
#endif
  bt_add_dir(dirs, &nd, "/usr/local/cuda", "/lib64");
  bt_add_dir(dirs, &nd, "/usr/local/cuda", "/extras/CUPTI/lib64");
  dirlist[0] = first_err[0] = 0;
  for (int d = -1; d < nd; d++) {
    for (size_t i = 0; i < BT_NNAMES; i++) {
      char path[600];
      snprintf(path, sizeof path, "%s%s%s", d < 0 ? "" : dirs[d], d < 0 ? "" : "/", bt_names[i]);
      void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (h) { /* the file it is, for the report */
        struct link_map *lm = NULL;
        bool named = dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0];
        snprintf(bt.lib, sizeof bt.lib, "%s", named ? lm->l_name : path);
        return h;
      }
      if (!first_err[0]) snprintf(first_err, elen, "%s", dlerror());
    }
    size_t l = strlen(dirlist);
    if (d >= 0) snprintf(dirlist + l, dlen - l, "%s%s", l ? ", " : "", dirs[d]);
  }
  return NULL;
}

static const char *bt_result(int r) {
  const char *s = NULL;
  if (bt.cu.result_string && bt.cu.result_string(r, &s) == 0 && s) return s;
  return "CUPTI error";
}

/* ---- the hook and CUPTI's buffers ------------------------------------------------------ */

static _Thread_local unsigned bt_stage;
static _Thread_local uint64_t bt_since;

static unsigned bt_hook(unsigned stage) {
  const unsigned prev = bt_stage;
  if (stage == prev) return prev;
  uint64_t now = 0;
  (void)bt.cu.timestamp(&now);
  if (prev != SP_STAGE_NONE) {
    (void)bt.cu.pop(BT_EXTERNAL_CUSTOM0, NULL);
    const uint32_t tid = (uint32_t)syscall(SYS_gettid);
    pthread_mutex_lock(&bt.mu);
    if (bt.in_window && !trc_add_span(&bt.t, bt_since, now, tid, prev)) bt.lost++;
    pthread_mutex_unlock(&bt.mu);
  }
  if (stage != SP_STAGE_NONE) (void)bt.cu.push(BT_EXTERNAL_CUSTOM0, stage);
  bt_stage = stage;
  bt_since = now;
  return prev;
}

static void bt_request(uint8_t **buf, size_t *size, size_t *max_records) {
  *buf = aligned_alloc(8, BT_BUF_BYTES);
  *size = *buf ? BT_BUF_BYTES : 0;
  *max_records = 0;
}

static void bt_complete(void *ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid) {
  (void)size;
  size_t dropped = 0;
  if (bt.cu.dropped(ctx, stream, &dropped) != 0) dropped = 0;
  bt_buf *b = malloc(sizeof *b);
  pthread_mutex_lock(&bt.mu);
  bt.dropped += dropped;
  if (b && buf) {
    *b = (bt_buf){buf, valid, bt.bufs};
    bt.bufs = b;
  } else {
    bt.lost++;
    free(buf);
    free(b);
  }
  pthread_mutex_unlock(&bt.mu);
}

/* Every buffer CUPTI has filled so far, in the order filled; the caller frees them. */
static bt_buf *bt_take(void) {
  (void)bt.cu.flush_all(BT_FLUSH_FORCED);
  pthread_mutex_lock(&bt.mu);
  bt_buf *b = bt.bufs, *rev = NULL;
  bt.bufs = NULL;
  pthread_mutex_unlock(&bt.mu);
  while (b) { /* the list is newest first */
    bt_buf *n = b->next;
    b->next = rev;
    rev = b;
    b = n;
  }
  return rev;
}

static void bt_free_bufs(bt_buf *b) {
  while (b) {
    bt_buf *n = b->next;
    free(b->p);
    free(b);
    b = n;
  }
}

/* ---- records ------------------------------------------------------------------------------ */

/* libstdc++'s demangler (the program links libstdc++ for the CUDA runtime: CUDA_LIBS). */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

static uint32_t bt_kernel_name(const char *mangled) {
  int status = -1;
  char *d = mangled ? __cxa_demangle(mangled, NULL, NULL, &status) : NULL;
  uint32_t id = trc_name(&bt.t, d && status == 0 ? d : mangled);
  free(d);
  return id;
}

static uint8_t bt_copy_kind(uint8_t k) {
  return k == BT_MEMCPY_HTOD   ? TRC_COPY_H2D
         : k == BT_MEMCPY_DTOH ? TRC_COPY_D2H
         : k == BT_MEMCPY_DTOD ? TRC_COPY_D2D
                               : TRC_COPY_OTHER;
}

/* One CUPTI record into the trace; false when host memory ran out. */
static bool bt_record(const void *a) {
  uint32_t kind;
  memcpy(&kind, a, sizeof kind);
  trc_rec r = {.stage = TRC_STAGE_UNKNOWN};
  if (kind == BT_KIND_CONCURRENT_KERNEL || kind == BT_KIND_KERNEL) {
    const bt_kernel *k = a;
    r = (trc_rec){.start = k->start,
                  .end = k->end,
                  .corr = k->corr,
                  .device = k->device,
                  .stream = k->stream,
                  .name = bt_kernel_name(k->name),
                  .stage = TRC_STAGE_UNKNOWN,
                  .kind = TRC_KERNEL};
  } else if (kind == BT_KIND_MEMCPY) {
    const bt_memcpy *m = a;
    r = (trc_rec){.start = m->start,
                  .end = m->end,
                  .bytes = m->bytes,
                  .corr = m->corr,
                  .corr2 = m->runtime_corr,
                  .device = m->device,
                  .stream = m->stream,
                  .stage = TRC_STAGE_UNKNOWN,
                  .kind = TRC_MEMCPY,
                  .copy = bt_copy_kind(m->copy_kind)};
  } else if (kind == BT_KIND_MEMSET) {
    const bt_memset *m = a;
    r = (trc_rec){.start = m->start,
                  .end = m->end,
                  .bytes = m->bytes,
                  .corr = m->corr,
                  .device = m->device,
                  .stream = m->stream,
                  .stage = TRC_STAGE_UNKNOWN,
                  .kind = TRC_MEMSET};
  } else if (kind == BT_KIND_SYNCHRONIZATION) {
    const bt_sync *y = a;
    r = (trc_rec){.start = y->start,
                  .end = y->end,
                  .corr = y->corr,
                  .stream = y->stream,
                  .stage = TRC_STAGE_UNKNOWN,
                  .kind = TRC_SYNC};
  } else if (kind == BT_KIND_RUNTIME || kind == BT_KIND_DRIVER) {
    const bt_api *c = a;
    return trc_add_api(&bt.t, c->start, c->corr, c->thread);
  } else if (kind == BT_KIND_EXTERNAL_CORRELATION) {
    const bt_ext *e = a;
    return e->external_kind != BT_EXTERNAL_CUSTOM0 || trc_add_ext(&bt.t, e->external_id, e->corr);
  } else {
    return true;
  }
  return trc_add_rec(&bt.t, &r);
}

static void bt_parse(bt_buf *b) {
  for (; b; b = b->next) {
    const void *rec = NULL;
    while (bt.cu.next_record(b->p, b->valid, &rec) == 0)
      if (!bt_record(rec)) bt.lost++;
  }
}

/* ---- the command's side ------------------------------------------------------------------ */

bool bg_trace_on(void) { return bt.started; }

int bg_trace_file(const char *path, FILE *tables, char *err, size_t errlen) {
  snprintf(bt.path, sizeof bt.path, "%s", path);
  bt.out = tables;
  bt.csv = fopen(path, "w");
  if (!bt.csv) {
    snprintf(err, errlen, "--trace %s: cannot write the file: %s", path, strerror(errno));
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  return SEALPROV_OK;
}

/* The activity kinds, each enabled. The calls' records carry the external ids: the
 * runtime's, and the driver's too, since a copy or kernel may name the driver call
 * inside the runtime's (a second way, which may be refused). SYNCHRONIZATION may be
 * refused too (then the tables have no sync figures, and say so). */
static int bt_enable(char *err, size_t errlen) {
  static const struct {
    int kind;
    const char *name;
  } kinds[] = {{BT_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"},
               {BT_KIND_MEMCPY, "MEMCPY"},
               {BT_KIND_MEMSET, "MEMSET"},
               {BT_KIND_RUNTIME, "RUNTIME"},
               {BT_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION"}};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    int r = bt.cu.enable(kinds[i].kind);
    if (r != 0) {
      snprintf(err, errlen,
               "--trace: cuptiActivityEnable(CUPTI_ACTIVITY_KIND_%s) in %s: %s (%d; is the CUDA "
               "driver there?)",
               kinds[i].name, bt.lib, bt_result(r), r);
      return SEALPROV_ERR_DEVICE;
    }
  }
  (void)bt.cu.enable(BT_KIND_DRIVER);
  bt.sync_on = bt.cu.enable(BT_KIND_SYNCHRONIZATION) == 0;
  return SEALPROV_OK;
}

int bg_trace_start(char *err, size_t errlen) {
  char dirs[2048], first[512];
  void *h = bt_open_lib(dirs, sizeof dirs, first, sizeof first);
  if (!h) {
    snprintf(err, errlen,
             "--trace: CUPTI (the CUDA toolkit's libcupti) not found: no %s, %s or %s by name "
             "or in %s (first error: %s); add its folder to LD_LIBRARY_PATH or set CUDA_HOME",
             bt_names[0], bt_names[1], bt_names[2], dirs, first);
    return SEALPROV_ERR_UNSUPPORTED;
  }
  const char *missing = bt_bind(h);
  if (missing) {
    snprintf(err, errlen, "--trace: %s has no %s (a CUPTI older than CUDA 11?)", bt.lib, missing);
    return SEALPROV_ERR_UNSUPPORTED;
  }
  (void)bt.cu.version(&bt.version);
  /* CUPTI's thread ids as the hook's (gettid), for telling records by thread */
  if (bt.cu.thread_id_type) (void)bt.cu.thread_id_type(BT_THREAD_ID_SYSTEM);
  trc_init(&bt.t, stage_names, SP_STAGE_COUNT);
  int r = bt.cu.register_callbacks(bt_request, bt_complete);
  if (r != 0) {
    snprintf(err, errlen, "--trace: cuptiActivityRegisterCallbacks in %s: %s (%d)", bt.lib,
             bt_result(r), r);
    return SEALPROV_ERR_DEVICE;
  }
  SP_TRY(bt_enable(err, errlen));
  sp_gpu_stage_hook = bt_hook;
  bt.started = true;
  return SEALPROV_OK;
}

int bg_trace_begin(const char *label, char *err, size_t errlen) {
  if (!bt.started) return SEALPROV_OK;
  if (bt.in_window) SP_TRY(bg_trace_end(err, errlen));
  bt_free_bufs(bt_take()); /* what came before the window */
  pthread_mutex_lock(&bt.mu);
  trc_clear(&bt.t);
  bt.dropped = bt.lost = 0;
  snprintf(bt.label, sizeof bt.label, "%s", label);
  (void)bt.cu.timestamp(&bt.w0);
  bt.in_window = true;
  pthread_mutex_unlock(&bt.mu);
  return SEALPROV_OK;
}

int bg_trace_end(char *err, size_t errlen) {
  if (!bt.started || !bt.in_window) return SEALPROV_OK;
  uint64_t w1 = 0;
  (void)bt.cu.timestamp(&w1);
  pthread_mutex_lock(&bt.mu);
  bt.in_window = false;
  pthread_mutex_unlock(&bt.mu);
  bt_buf *b = bt_take();
  bt_parse(b);
  bt_free_bufs(b);
  trc_resolve(&bt.t);
  trc_summary *s = malloc(sizeof *s);
  if (!s || !trc_summarize(&bt.t, bt.w0, w1, s)) {
    free(s);
    snprintf(err, errlen, "--trace: out of host memory for the summary of %s", bt.label);
    return SEALPROV_ERR_NO_MEMORY;
  }
  char title[256];
  snprintf(title, sizeof title, "trace: %s", bt.label);
  trc_print(bt.out, &bt.t, s, title);
  if (!bt.sync_on) fprintf(bt.out, "  (no sync records: CUPTI refused SYNCHRONIZATION)\n");
  if (bt.dropped || bt.lost)
    fprintf(bt.out, "  CUPTI dropped %zu records, %zu lost here (out of memory): figures low\n",
            bt.dropped, bt.lost);
  fprintf(bt.out, "\n");
  fflush(bt.out);
  trc_write_csv(bt.csv, &bt.t, bt.w0, w1, bt.label, bt.windows == 0);
  bt.windows++;
  free(s);
  pthread_mutex_lock(&bt.mu);
  trc_clear(&bt.t);
  pthread_mutex_unlock(&bt.mu);
  return SEALPROV_OK;
}

int bg_trace_close(char *err, size_t errlen) {
  int st = SEALPROV_OK;
  if (!bt.csv) return st;
  if (bt.started) {
    st = bg_trace_end(err, errlen);
    sp_gpu_stage_hook = NULL;
    static const int kinds[] = {
        BT_KIND_CONCURRENT_KERNEL,    BT_KIND_MEMCPY,          BT_KIND_MEMSET, BT_KIND_RUNTIME,
        BT_KIND_EXTERNAL_CORRELATION, BT_KIND_SYNCHRONIZATION, BT_KIND_DRIVER};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) (void)bt.cu.disable(kinds[i]);
    bt_free_bufs(bt_take());
  }
  if (bt.started)
    fprintf(bt.out, "trace: %u window%s, every record in %s (CUPTI %u, %s)\n", bt.windows,
            bt.windows == 1 ? "" : "s", bt.path, bt.version, bt.lib);
  if (bt.started && bt.windows == 0)
    fprintf(bt.out, "trace: nothing traced (only partitions and --throughput streams are)\n");
  if (fclose(bt.csv) != 0 && !st) {
    snprintf(err, errlen, "--trace %s: writing the file failed: %s", bt.path, strerror(errno));
    st = SEALPROV_ERR_IO;
  }
  bt.csv = NULL;
  trc_free(&bt.t);
  bt.started = false;
  return st;
}
