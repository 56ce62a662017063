/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* trace_stats.h -- what `sealprov bench gpu --trace` makes of a trace (bench/trace_stats.c):
 * the GPU's records (kernels, copies, memsets, the host's waits in CUDA), the calls that
 * launched them, the stage each was launched in, and the host's time in each stage;
 * per window (one timed partition, one stream of jobs) the table of each stage's kernel
 * time, GPU busy time, transfers and waits, the GPU's idle gaps and the kernels that
 * take the time. Pure C on plain records: bench/trace_cupti.c fills them from CUPTI,
 * tests/bench/test_trace_stats.c from synthetic ones. All times in ns of one clock. */
#ifndef SEALPROV_BENCH_TRACE_STATS_H
#define SEALPROV_BENCH_TRACE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRC_MAX_STAGES 32         /* stages a trace names (the last row: unknown) */
#define TRC_STAGE_UNKNOWN 0xffffu /* a record whose stage could not be told */
#define TRC_TOP_GAPS 5
#define TRC_TOP_KERNELS 12
#define TRC_MAX_DEVICES 16
#define TRC_GAP_MIN_NS 100000u /* idle gaps counted apart from the rest: 0.1 ms or more */

enum { TRC_KERNEL = 1, TRC_MEMCPY, TRC_MEMSET, TRC_SYNC };
enum { TRC_COPY_OTHER = 0, TRC_COPY_H2D, TRC_COPY_D2H, TRC_COPY_D2D, TRC_COPY_KINDS };

/* A record of the GPU's work (kernel, copy, memset) or a host's wait in a CUDA
 * synchronization (device 0 when the record names none). */
typedef struct trc_rec {
  uint64_t start, end, bytes;
  uint32_t corr, corr2; /* the launching call's correlation ids (corr2: 0 or a second) */
  uint32_t device, stream;
  uint32_t name;  /* kernels: trc_name's index */
  uint16_t stage; /* TRC_STAGE_UNKNOWN until trc_resolve */
  uint8_t kind, copy;
} trc_rec;
typedef struct trc_api { /* a CUDA call: which thread made it, when */
  uint64_t start;
  uint32_t corr, thread;
} trc_api;
typedef struct trc_ext { /* a call made while the thread was in stage id */
  uint64_t id;
  uint32_t corr;
} trc_ext;
typedef struct trc_span { /* a thread in a stage, on the host */
  uint64_t t0, t1;
  uint32_t thread;
  uint16_t stage;
} trc_span;
typedef struct trc_ival {
  uint64_t t0, t1;
} trc_ival;

typedef struct trc_trace {
  trc_rec *rec;
  size_t nrec, caprec;
  trc_api *api;
  size_t napi, capapi;
  trc_ext *ext;
  size_t next, capext;
  trc_span *span;
  size_t nspan, capspan;
  char **names; /* [0] is "" */
  size_t nnames, capnames;
  const char *const *stage_names; /* nstages of them; stage 0: outside every stage */
  unsigned nstages;
  size_t by_ext, by_thread, unknown; /* how trc_resolve told the records' stages */
} trc_trace;

/* ---- intervals ---- */
/* Sorts v and merges the intervals that overlap or touch; the merged count. */
size_t trc_union(trc_ival *v, size_t n);
/* The length of a merged list, and the length two merged lists share. */
uint64_t trc_length(const trc_ival *v, size_t n);
uint64_t trc_overlap(const trc_ival *a, size_t na, const trc_ival *b, size_t nb);

/* ---- a trace ---- */
void trc_init(trc_trace *t, const char *const *stage_names, unsigned nstages);
void trc_free(trc_trace *t);
/* Forgets the records, calls, correlations and spans (names stay). */
void trc_clear(trc_trace *t);
/* Each false when host memory ran out. */
bool trc_add_rec(trc_trace *t, const trc_rec *r);
bool trc_add_api(trc_trace *t, uint64_t start, uint32_t corr, uint32_t thread);
bool trc_add_ext(trc_trace *t, uint64_t id, uint32_t corr);
bool trc_add_span(trc_trace *t, uint64_t t0, uint64_t t1, uint32_t thread, unsigned stage);
/* The index of a kernel's name, added on first sight (0 when memory ran out). */
uint32_t trc_name(trc_trace *t, const char *name);
/* The stage of every record: the stage id of its call's correlation (external
 * correlation), else the span its call's thread was in when it made the call, else
 * TRC_STAGE_UNKNOWN; counted in by_ext, by_thread, unknown. */
void trc_resolve(trc_trace *t);

/* ---- a window's summary ---- */
typedef struct trc_stage_sum {
  double host_ms;   /* the engine's threads in the stage (union over threads) */
  unsigned kernels; /* its kernels, their summed time, their union, first start to last end */
  double kern_ms, busy_ms, span_ms;
  double others_ms; /* other stages' kernels running while a thread was in this stage */
  double idle_ms;   /* no kernel on any GPU while a thread was in this stage */
  unsigned copies[TRC_COPY_KINDS];
  uint64_t copy_bytes[TRC_COPY_KINDS];
  double copy_ms[TRC_COPY_KINDS];
  unsigned memsets, syncs;
  double memset_ms, sync_ms; /* sync: the host's waits in CUDA synchronizations */
} trc_stage_sum;

typedef struct trc_gap {
  uint64_t at, len; /* from the window's start */
  uint32_t device;
  uint16_t before, after; /* stages of the kernels on either side */
} trc_gap;

typedef struct trc_kernel_sum {
  uint32_t name;
  unsigned count;
  double ms;
  uint32_t stages; /* a bit per stage it ran in (the top bit: unknown) */
} trc_kernel_sum;

typedef struct trc_dev_sum {
  uint32_t device;
  unsigned kernels;
  double busy_ms, lead_ms, tail_ms; /* before its first kernel, after its last */
  unsigned gaps;                    /* idle gaps of TRC_GAP_MIN_NS or more between kernels */
  double gap_ms, small_gap_ms, max_gap_ms;
  double h2d_ms, overlap_ms; /* H2D copies' union, and its part beside kernels */
} trc_dev_sum;

typedef struct trc_summary {
  uint64_t t0, t1;
  double wall_ms;
  trc_stage_sum stage[TRC_MAX_STAGES + 1]; /* [nstages]: unknown */
  unsigned nrows;                          /* nstages + 1 */
  trc_dev_sum dev[TRC_MAX_DEVICES];
  unsigned ndev;
  trc_gap gap[TRC_TOP_GAPS]; /* the largest, largest first */
  unsigned ngap;
  trc_kernel_sum top[TRC_TOP_KERNELS];
  unsigned ntop, kernel_names; /* kernel_names: distinct kernels in the window */
  size_t records, in_window;
} trc_summary;

/* The summary of [t0, t1): records that start in it, spans clipped to it. False when
 * host memory ran out. */
bool trc_summarize(const trc_trace *t, uint64_t t0, uint64_t t1, trc_summary *s);
/* The tables, under a title line. */
void trc_print(FILE *f, const trc_trace *t, const trc_summary *s, const char *title);
/* Every record of [t0, t1) and every span, one CSV row each (times from t0). The
 * header comes with header = true. */
void trc_write_csv(FILE *f, const trc_trace *t, uint64_t t0, uint64_t t1, const char *window,
                   bool header);
/* A kernel's name for a table: without its return type and parameters, at most len - 1
 * characters (a cut one ends in "..."). */
void trc_short_name(const char *name, char *out, size_t len);

#endif
