/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_gpu.h -- what the files of `sealprov bench gpu` share: its options, the
 * synthetic parameter set, a throughput run's figures, and the functions each file
 * gives the others.
 *   bench_gpu.c             options, output, the MSM and NTT groups, the command
 *   bench_gpu_partition.c   synthetic parameters and assignment, the partition group
 *   bench_gpu_throughput.c  streams of jobs through the module's scheduler
 *   bench_gpu_timeline.c    what a stream's timeline, stats and /proc say about it
 *   bench_gpu_shapes.c      the proof types of shapes.h, a job of each
 *   bench_gpu_opts.c        the values of its options
 *   trace_cupti.c           --trace: the timed runs' GPU work by stage (trace_stats.c) */
#ifndef SEALPROV_BENCH_BENCH_GPU_H
#define SEALPROV_BENCH_BENCH_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sp_gpu.h"   /* first: hides <math.h>'s FP_ZERO from bls12_381.h */
#include "engine/device.h" /* sp_gpu_info */
#include "bench.h"         /* the machine and the process: sp_bench_proc_kib */
#include "formats/srs.h"
#include "runtime/sp_sched.h"
#include "sealprov.h"

#define BG_MAX_SIZES 8
#define BG_MAX_REPEAT 64
#define BG_MAX_GPUS 16
#define BG_MAX_JOBS 1000
#define BG_MAX_PARTITIONS 1000
#define BG_MAX_PRE 6 /* --precompute variants */
#define BG_MAX_SHAPES 16

typedef struct bg_opts {
  int ordinal;
  unsigned repeat;
  unsigned window;
  bool json;
  unsigned msm1[BG_MAX_SIZES], nmsm1;
  unsigned msm2[BG_MAX_SIZES], nmsm2;
  unsigned ntt[BG_MAX_SIZES], nntt;
  unsigned part[BG_MAX_SIZES], npart;
  bool groups_named; /* a kernel/partition group was named on the command line */
  /* throughput */
  unsigned tp[BG_MAX_SIZES], ntp;     /* log2 sizes */
  unsigned gpus[BG_MAX_SIZES], ngpus; /* GPU counts, each run on ordinals[0..n-1] */
  unsigned ordinals[BG_MAX_GPUS], nordinals;
  unsigned jobs[BG_MAX_SIZES], njobs; /* timed jobs per size (one value: all sizes) */
  unsigned partitions;                /* per job */
  unsigned workers;                   /* per GPU */
  unsigned warmup;                    /* warm-up job partitions; 0 = every worker one */
  unsigned urgent_after;              /* --urgent-after K: a 1-partition job of higher
                                              priority once K stream partitions are done */
  uint64_t pinned;                    /* sp_device_cfg.pinned_staging: 0 auto, OFF, bytes */
  uint64_t limits[BG_MAX_SIZES];      /* --memory-limit: the partitions' devices (0: none) */
  unsigned nlimits;
  unsigned threads; /* --threads: host threads of a partition's task */
  bool stream;      /* --stream: the parameters streamed whatever fits */
  int plan;         /* --plan: the engine's plan tier (-1: its choice) */
  /* --pinned-staging A,B: each throughput stream runs once per mode, in this order,
   * on the same synthetic data (same-call A/B pairs) */
  uint64_t pinned_list[4];
  unsigned npinned;
  /* --precompute off,on,C:K: each MSM (and partition: off and on only) runs once per
   * variant in every repeat, in this order (same-call A/B). window 0: "off" (today's
   * path); window 1: "on" (the table msm.cu's cost model plans); else C:K. */
  struct {
    unsigned window, copies;
  } pre[BG_MAX_PRE];
  unsigned npre;
  /* --shape: proof types (shapes.h), each a synthetic set and one job of its partitions
   * through the scheduler; --shape-partitions: at most that many a job (0: all) */
  const struct sp_proof_shape *shapes[BG_MAX_SHAPES];
  size_t nshapes;
  unsigned shape_partitions;
  const struct sp_engine_ops *engine; /* the streams' engine; NULL: sp_engine_cuda */
  const char *trace;                  /* --trace FILE, or NULL */
} bg_opts;

#define BG_PRE_OFF 0u
#define BG_PRE_ON 1u

/* ---- bench_gpu.c ------------------------------------------------------------------- */
/* Sorts v in place; its median (the upper one for even n), 0 for none. */
double bg_median_sorted(double *v, size_t n);
/* median of runs (sorted copy); *median_idx: the run that has it */
double bg_median(const double *runs, unsigned n, unsigned *median_idx);
/* The output, a result at a time: "op", log_n and n; the median, minimum and runs in ms;
 * its end. JSON under --json, a table line otherwise. */
void bg_print_pinned(const bg_opts *o);
void bg_print_runs(const double *runs, unsigned n);
void bg_result_head(const bg_opts *o, const char *op, unsigned lg);
void bg_result_times(const bg_opts *o, const double *runs, unsigned n);
void bg_result_end(const bg_opts *o);
/* --progress: n more runs done of all that were asked for. */
void bg_step(double n);

/* ---- bench_gpu_opts.c: the options' values (false: not one) ---------------------------- */
bool bg_parse_list_cap(const char *s, unsigned *out, unsigned *n, unsigned cap, unsigned lo,
                       unsigned hi);
bool bg_parse_limits(const char *s, bg_opts *o);
bool bg_parse_pinned_list(const char *s, bg_opts *o);
bool bg_parse_precompute(const char *s, bg_opts *o);

/* ---- trace_cupti.c: --trace FILE ---------------------------------------------------------- */
/* The file, opened for writing before anything runs (an error names it); each window's
 * tables go to `tables` as it ends. */
int bg_trace_file(const char *path, FILE *tables, char *err, size_t errlen);
/* CUPTI found and its activity on, the engine's stage hook set: before the first CUDA
 * context. An error says what is missing. */
int bg_trace_start(char *err, size_t errlen);
bool bg_trace_on(void);
/* A window: the GPU's work from begin to end is summed and written (label names it);
 * both do nothing unless tracing. */
int bg_trace_begin(const char *label, char *err, size_t errlen);
int bg_trace_end(char *err, size_t errlen);
/* Ends an open window, closes the file and says what it holds. */
int bg_trace_close(char *err, size_t errlen);

/* ---- bench_gpu_partition.c ------------------------------------------------------------ */
/* One synthetic parameter set and one sealing-shaped assignment for a domain of 2^lg:
 * 97 % of the domain constraints, 328 inputs (4 below 2^11), a-density 99.7 %,
 * b-density 25.4 %, 85 % of aux values 0 or 1. Not to be copied (srs is pointed to). */
typedef struct bg_synth {
  unsigned lg;
  size_t abc, ninp, naux;
  sp_srs srs;
  sealprov_assignment asg;
  uint64_t *da, *dba, *dbi;
  uint8_t *sc;
  void *h, *l, *a, *b1, *b2, *ic, *vk1, *vk2;
  double params_ms, assignment_ms;
} bg_synth;
/* What the engine keeps resident on a GPU for this set. */
size_t bg_params_bytes(const sp_srs *s);
/* Points are made on g's device and downloaded; on failure what was made is freed. */
int bg_synth_make(bg_synth *x, sp_gpu *g, unsigned lg, char *err, size_t errlen);
void bg_synth_free(bg_synth *x);
/* The same at any size: abc rows (<= 2^lg), ninp inputs, naux aux variables, the aux
 * variables in A and B (per mille) and the aux values that are 0 or 1 (percent). */
typedef struct bg_synth_spec {
  unsigned lg;
  size_t abc, ninp, naux;
  unsigned a_permille, b_permille, bits_percent;
} bg_synth_spec;
int bg_synth_make_spec(bg_synth *x, sp_gpu *g, const bg_synth_spec *spec, char *err, size_t errlen);
/* The partition group at 2^lg: one synthetic set made on GPU g, proved on an engine
 * device of cfg's GPU per --memory-limit value. */
struct sp_device_cfg;
int bg_bench_partition(const bg_opts *o, const struct sp_device_cfg *cfg, sp_gpu *g, unsigned lg,
                       char *err, size_t errlen);

/* ---- bench_gpu_throughput.c ----------------------------------------------------------- */
int bg_bench_throughput(const bg_opts *o, const sp_gpu_info *infos, int ninfos, char *err,
                        size_t errlen);
/* ---- bench_gpu_shapes.c ---------------------------------------------------------------- */
int bg_bench_shapes(const bg_opts *o, const sp_gpu_info *infos, int ninfos, char *err,
                    size_t errlen);

/* ---- bench_gpu_timeline.c ------------------------------------------------------------- */
typedef struct tp_dev {
  unsigned ordinal;
  const sp_gpu_info *info; /* NULL when enumeration did not name it */
  unsigned executes;       /* execute events of the stream's jobs (timeline) */
  unsigned results;        /* partitions whose result names this device */
  uint64_t tasks_done;     /* devices() counter, over the stream */
  double busy_s;           /* sum of execute intervals (device lock held) */
  double first_start, last_end;
  unsigned gaps;
  double max_gap_s, total_gap_s;
  double exec_median_ms, prep_median_ms;
  double lock_wait_s;        /* devices() counter, over the stream */
  uint64_t memory;           /* engine memory in use after the stream (stats) */
  uint64_t host_pinned;      /* host memory it holds page-locked (stats; 0 if not there) */
  uint64_t module_host;      /* host memory the module holds for its partitions (stats) */
  uint64_t module_host_peak; /* the highest during the run (hostmem accountant) */
} tp_dev;

typedef struct tp_run {
  unsigned ngpu, jobs, parts, warm_parts, warm_jobs;
  double warm_s, seconds;
  double win_start, win_end; /* timeline: first queued .. last done of the stream */
  bool timeline_complete;
  /* host memory over the whole run (warm-up included): the process's peak RSS (VmHWM,
   * reset at the start of the run where /proc allows; else the process's maximum), the
   * module's own peak (hostmem accountant), and what the host passed in */
  uint64_t rss_peak, module_peak, passed_bytes;
  bool rss_reset;
  tp_dev dev[BG_MAX_GPUS];
  /* --urgent-after: the urgent job's events (timeline seconds; < 0 missing) */
  struct {
    bool ran;
    unsigned after_done; /* stream partitions done when it was submitted */
    double queued, start, exec_start, exec_end, done;
    int device;
    unsigned starts_between; /* starts of other jobs between its queued and its start */
    unsigned locks_between;  /* stream executes that began after its queued, before its own */
  } urgent;
} tp_run;
/* Starts a scheduler on the first ngpu of o->ordinals (o->engine's devices), runs the
 * warm-up job(s), then njobs jobs of o->partitions partitions of x submitted at once,
 * and fills r (bench_gpu_throughput.c). */
int tp_run_stream(const bg_opts *o, bg_synth *x, unsigned ngpu, unsigned njobs,
                  const sp_gpu_info *infos, int ninfos, tp_run *r, char *err, size_t errlen);
/* Per device: execute intervals, busy share and gaps of the stream's jobs first..last
 * (the scheduler's timeline). */
int tp_timeline(sp_sched *s, tp_run *r, uint64_t first, uint64_t last, char *err, size_t errlen);
/* The urgent job's events (--urgent-after). */
void tp_urgent_timeline(sp_sched *s, tp_run *r, uint64_t id);
/* Device and host memory from the scheduler's stats. */
void tp_memory(sp_sched *s, tp_run *r);
/* The GPU of ordinal in the enumeration, or NULL. */
const sp_gpu_info *tp_info(const sp_gpu_info *infos, int ninfos, unsigned ordinal);
/* The process's host memory: maximum RSS (VmHWM and its reset: bench.h), what an
 * assignment passes in. */
uint64_t bg_max_rss_bytes(void);
uint64_t bg_assignment_bytes(const sealprov_assignment *a);

#endif
