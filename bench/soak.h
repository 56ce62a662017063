/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* soak.h -- what the files of `sealprov soak` share: its options, each phase's data,
 * the samples and counts, the state every thread of the run shares (`soak`), and the
 * functions each file gives the others.
 *   cmd_soak.c     the options, the parameters (a child) and witnesses, the command
 *   soak_jobs.c    the provider under test and the jobs: submit, wait, cancel, check
 *   soak_phases.c  the main phase (host threads, segments, close with jobs in flight)
 *                  and the big phase
 *   soak_report.c  the sampler, the time series and the verdict
 * Like the host commands, it reaches the module only through dlopen and the table. */
#ifndef SEALPROV_BENCH_SOAK_H
#define SEALPROV_BENCH_SOAK_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "circuit.h"
#include "cli.h"
#include "sealprov.h"

#define SOAK_MAX_THREADS 64
#define SOAK_MAX_PARTS 64 /* partitions per job */
#define SOAK_BATCH 4      /* jobs a batch keeps in flight before it waits */
#define SOAK_MAX_GPUS 16  /* nvidia-smi columns */
#define NSTATUS (SEALPROV_STATUS_COUNT_ + 1)
#define STATS_CAP (256u << 10) /* stats() text: ~3 KB per device */

/* ---- options ------------------------------------------------------------------------ */
typedef struct soak_opts {
  const char *ini, *dir, *series, *nvidia_smi;
  unsigned log, inputs, witnesses, cycles, segments, threads, max_parts, burst;
  uint64_t partitions;
  unsigned cancel_pct, bad_pct;
  bool reload;
  unsigned big_log, big_inputs, big_job;
  uint64_t big_partitions;
  unsigned big_urgent_after; /* 0: none; else the urgent job after K partitions released */
  bool gpu;
  unsigned gpu_ordinal, setup_threads;
  unsigned sample_ms, time_limit_s;
  double max_growth_mib;
  uint64_t seed;
  bool keep, reuse, json;
  const char *json_file;
} soak_opts;

/* ---- one phase's data -------------------------------------------------------------- */
typedef struct phase_data {
  const char *name; /* "main", "big" */
  unsigned log, inputs, nwit;
  uint64_t constraints, circuit_seed, setup_seed;
  char params[PATH_MAX], vk[PATH_MAX];
  sp_witness **wit;
  sealprov_assignment bad; /* witness 0 with c[bad_row] = a*b + 1 */
  uint8_t *bad_c;
  uint64_t bad_row;
  bool want_bad;
  sealprov_srs *vkh; /* on the verifier */
  bool reused;
  char err[1024]; /* what went wrong making the witnesses */
  double witness_ms;
} phase_data;

/* ---- the time series ------------------------------------------------------------------ */
enum { PH_PREPARE = 0, PH_MAIN = 1, PH_BIG = 2 };
extern const char *const phase_names[]; /* by PH_* */

typedef struct sample {
  double t_s;
  int phase, cycle, segment;
  const char *mark; /* NULL: periodic */
  uint64_t parts_done;
  double rss_mib, module_host_mib, pinned_mib, engine_mib, jobs_active, queue_depth;
  double gpu_used_mib, gpu_total_mib; /* sums over the GPUs */
  double gpu_used[SOAK_MAX_GPUS];
} sample;

/* ---- what the run counts (atomics: host threads, callbacks and the sampler) -------- */
typedef struct tally {
  _Atomic uint64_t jobs, ended, ok, refused;
  _Atomic uint64_t bad_jobs, bad_caught, cancel_jobs, cancelled, cancel_late;
  _Atomic uint64_t burst, burst_ok, burst_shutdown;
  _Atomic uint64_t parts_submitted, parts_ok, parts_verified, parts_invalid, parts_cancelled,
      parts_shutdown;
  _Atomic uint64_t reloads;
  _Atomic uint64_t by_status[NSTATUS];
} tally;

/* ---- everything the threads share ----------------------------------------------------- */
typedef struct soak_state {
  soak_opts o;
  sp_cli_host h;
  const sealprov_vtable *vt;
  sealprov_provider *vprov; /* the verifier: one CPU device */
  /* the provider under test: open/close and stats() under prov_mu (close() must not race
   * with any call; the host threads make none while it runs) */
  pthread_mutex_t prov_mu;
  sealprov_provider *prov;
  /* the parameter handle jobs take: readers submit under it, a reload swaps it */
  pthread_rwlock_t srs_lock;
  sealprov_srs *srs;
  phase_data *pd; /* the running phase's */
  /* samples */
  pthread_mutex_t sample_mu;
  sample *samples;
  size_t nsamples, cap_samples;
  FILE *csv;
  int phase, cycle, segment;
  unsigned ngpu; /* nvidia-smi's GPUs (0: none) */
  bool smi;
  double t0;
  /* the sampler */
  pthread_t sampler;
  pthread_mutex_t stop_mu;
  pthread_cond_t stop_cv;
  bool stop, sampler_started;
  _Atomic uint64_t parts_done;
  tally t[3]; /* by phase */
  /* failures */
  pthread_mutex_t fail_mu;
  unsigned failures;
  char first_failure[600];
  /* segment progress: partitions taken, and the controller's wake-up */
  pthread_mutex_t seg_mu;
  pthread_cond_t seg_cv;
  uint64_t seg_budget, seg_taken;
  unsigned seg_live; /* host threads still running */
  /* big-phase figures */
  double big_load_ms, big_reload_ms, big_params_gb, big_prove_ms;
  uint64_t big_parts_proved;
  /* --big-urgent-after: the urgent job's partition result and the stream's run median */
  bool urg_ran, urg_within; /* within: queued_ms <= the stream's median run_ms */
  sealprov_partition_result urg;
  unsigned urg_released_at_submit;
  double urg_done_ms, urg_stream_run_median_ms;
  /* from the module's timeline: the stream's median execute (a partition's time on its
   * device), the urgent job's queued -> start there, and how many stream partitions
   * started in between (0: it took the first worker to free up) */
  sealprov_job_id urg_id;
  bool urg_tl;          /* the timeline had the urgent job's queued and start events */
  bool urg_within_exec; /* queued_ms <= the stream's median execute */
  double urg_exec_median_ms, urg_verify_median_ms, urg_tl_wait_ms;
  unsigned urg_stream_starts_between;
  double main_load_ms_max, main_ms, main_parts_per_s;
} soak_state;
extern soak_state soak;

/* ---- cmd_soak.c ------------------------------------------------------------------------ */
/* A failure of the run: counted, the first kept for the verdict, the first 30 on stderr. */
void soak_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
unsigned soak_failures(void);
/* xorshift64*, one state per thread; a number below n (0 for n = 0). */
uint64_t soak_rnd(uint64_t *s);
unsigned soak_below(uint64_t *s, unsigned n);
/* Seconds since the run began. */
double soak_now_s(void);
void soak_phase_paths(phase_data *pd, const char *dir);
bool soak_prepare(phase_data **pds, unsigned npd);
void soak_phase_free(phase_data *pd);

/* ---- soak_jobs.c ------------------------------------------------------------------------ */
enum job_kind { K_GOOD, K_BAD, K_CANCEL, K_BURST };
extern const char *const kind_names[]; /* by job_kind */

typedef struct hjob {
  sealprov_job job;
  enum job_kind kind;
  unsigned n;
  int bad_pos;    /* -1: none */
  bool cancelled; /* cancel() returned OK */
  sealprov_job_id id;
  _Atomic int callbacks, cb_status;
  const phase_data *pd;
  tally *t;
  unsigned *wit; /* witness of each partition (bad_pos: the bad one) */
  sealprov_assignment *asg;
  uint8_t *proofs;
  sealprov_partition_result *res;
  _Atomic unsigned released; /* on_inputs_released calls (set for the urgent test) */
  char err[600];             /* last_error() of a wait that did not say OK */
} hjob;
bool soak_prov_open(void);
void soak_prov_close(void);
sealprov_srs *soak_load_params(const phase_data *pd, double *ms);
void soak_check_devices(const char *when);
void soak_on_released(void *user, sealprov_job_id id, uint32_t partition);
hjob *soak_job_new(const phase_data *pd, tally *t, enum job_kind kind, unsigned n, int bad_pos,
                   int priority, bool wit0, uint64_t *rs);
void soak_job_free(hjob *h);
bool soak_job_submit(hjob *h);
void soak_job_check(hjob *h, int status, bool closing);
int soak_job_wait(hjob *h);
void soak_job_cancel(hjob *h);

/* ---- soak_phases.c ---------------------------------------------------------------------- */
void soak_main_phase(phase_data *pd, uint64_t *rs);
void soak_big_phase(phase_data *pd, uint64_t *rs);

/* ---- soak_report.c ---------------------------------------------------------------------- */
double soak_rss_mib(void);
unsigned soak_smi_read(double *used, double *total);
void soak_csv_header(void);
/* A sample now (mark: its name, NULL for a periodic one), and where the run is. */
void soak_sample(const char *mark);
void soak_set_where(int phase, int cycle, int segment);
void *soak_sampler_main(void *arg);
void soak_check_ended(void);
void soak_print_summary(bool partial);
/* Whether every judged series of the verdict passed. */
bool soak_series_pass(void);

#endif
