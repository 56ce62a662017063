/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_stress.c -- `sealprov stress`: many concurrent jobs from several host threads on
 * one provider, every proof checked with the module's verify(). It shows end to end
 * that many concurrent jobs from N host threads return only valid proofs:
 * submit/wait/verify racing on one handle, priorities
 * differing between threads, and both ways a host waits (right after submit, or after
 * submitting a batch). Exit 0 only if every job ended OK and every proof verifies. */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "g16_util.h"
#include "spa.h"

#define STRESS_MAX_THREADS 256
#define STRESS_MAX_JOBS 10000                /* per thread */
#define NSTATUS (SEALPROV_STATUS_COUNT_ + 1) /* last bucket: statuses this tool does not know */

static void stress_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov stress [--plugin MODULE] [-c INI] --params FILE [--threads T]\n"
          "                       [--jobs-per-thread J] [--json] PARTITION.spa...\n"
          "  Opens the module once, loads the parameters once, then T host threads (default\n"
          "  4) each submit J jobs (default 3); every job proves all the partition files\n"
          "  with random r, s. Thread t submits with priority t; even threads wait on each\n"
          "  job right after submitting it, odd threads submit all their jobs first and\n"
          "  then wait on them. Every proof is checked with verify() against its\n"
          "  partition's public inputs; the wall time and partitions/s include those\n"
          "  checks. Keep T x J within [provider] max_jobs of the INI, or the batch\n"
          "  threads see 'queue full'. Exit status: 0 every job OK and every proof valid,\n"
          "  1 otherwise, 2 bad usage or unreadable files.\n");
}

/* What every thread shares (read-only while the threads run). */
typedef struct stress_ctx {
  const sealprov_vtable *vt;
  sealprov_provider *p;
  sealprov_srs *srs;
  const sealprov_assignment *asg;
  size_t n;      /* partitions per job */
  unsigned jobs; /* per thread */
  /* start gate: threads submit together once the clock runs (go 1), or leave without
   * submitting (go -1) when not every thread could be started */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int go;
} stress_ctx;

/* One thread's work and tallies (written only by that thread until it is joined). */
typedef struct stress_thread {
  stress_ctx *ctx;
  unsigned index;
  bool batch; /* submit every job first, then wait */
  pthread_t tid;
  unsigned jobs_ok, jobs_failed;
  size_t valid, invalid;
  unsigned statuses[NSTATUS]; /* failed jobs (submit or wait) by status */
  char error[512];            /* the first failure's detail */
} stress_thread;

/* One job's buffers; they must outlive the job, so they live until its wait. */
typedef struct stress_job {
  sealprov_job_id id; /* 0: submit failed */
  uint8_t *proofs;
  sealprov_partition_result *results;
} stress_job;

static void note_failure(stress_thread *t, int status, const char *what, unsigned job) {
  t->jobs_failed++;
  t->statuses[status >= 0 && status < SEALPROV_STATUS_COUNT_ ? status : NSTATUS - 1]++;
  if (!t->error[0])
    snprintf(t->error, sizeof t->error, "thread %u job %u: %s: %s: %s", t->index, job, what,
             g16_status_name(status), t->ctx->vt->last_error());
}

static int submit_one(stress_thread *t, stress_job *j) {
  const stress_ctx *c = t->ctx;
  sealprov_job job;
  memset(&job, 0, sizeof job);
  job.struct_size = sizeof job;
  job.flags = 0; /* random r, s: the proofs a real host gets */
  job.srs = c->srs;
  job.partitions = c->asg;
  job.num_partitions = (uint32_t)c->n;
  job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  job.priority = (int32_t)t->index;
  job.proofs_out = j->proofs;
  job.results = j->results;
  j->id = 0;
  return c->vt->submit(c->p, &job, &j->id);
}

/* Waits on a submitted job and verifies its proofs. */
static void finish_one(stress_thread *t, stress_job *j, unsigned k) {
  const stress_ctx *c = t->ctx;
  int rc = c->vt->wait(c->p, j->id, -1);
  if (rc != SEALPROV_OK) {
    note_failure(t, rc, "wait", k);
    return;
  }
  t->jobs_ok++;
  for (size_t i = 0; i < c->n; i++) {
    const sealprov_assignment *a = &c->asg[i];
    int valid = 0;
    /* public inputs without the leading ONE */
    rc = c->vt->verify(c->p, c->srs, (const uint8_t *)a->inp_assignment + SEALPROV_SCALAR_BYTES,
                       a->inp_size - 1, SEALPROV_SCALAR_CANONICAL_LE,
                       j->proofs + SEALPROV_PROOF_BYTES * i, &valid);
    if (rc == SEALPROV_OK && valid && j->results[i].status == SEALPROV_OK) {
      t->valid++;
      continue;
    }
    t->invalid++;
    if (!t->error[0])
      snprintf(t->error, sizeof t->error, "thread %u job %u partition %zu: %s", t->index, k, i,
               rc != SEALPROV_OK ? c->vt->last_error()
               : !valid          ? "pairing check failed"
                                 : "partition result is not ok");
  }
}

static void *stress_main(void *arg) {
  stress_thread *t = arg;
  stress_ctx *c = t->ctx;
  stress_job *jobs = calloc(c->jobs, sizeof *jobs);
  bool ok = jobs != NULL;
  for (unsigned k = 0; ok && k < c->jobs; k++) {
    jobs[k].proofs = malloc(SEALPROV_PROOF_BYTES * c->n);
    jobs[k].results = calloc(c->n, sizeof *jobs[k].results);
    ok = jobs[k].proofs && jobs[k].results;
  }
  pthread_mutex_lock(&c->lock);
  while (c->go == 0) pthread_cond_wait(&c->cond, &c->lock);
  int go = c->go;
  pthread_mutex_unlock(&c->lock);
  if (go < 0) {
    /* aborted run: nothing submitted, nothing counted */
  } else if (!ok) {
    t->jobs_failed = c->jobs;
    t->statuses[SEALPROV_ERR_NO_MEMORY] = c->jobs;
    snprintf(t->error, sizeof t->error, "thread %u: out of memory for job buffers", t->index);
  } else if (t->batch) {
    for (unsigned k = 0; k < c->jobs; k++) {
      int rc = submit_one(t, &jobs[k]);
      if (rc != SEALPROV_OK) {
        jobs[k].id = 0;
        note_failure(t, rc, "submit", k);
      }
    }
    for (unsigned k = 0; k < c->jobs; k++)
      if (jobs[k].id != 0) finish_one(t, &jobs[k], k);
  } else {
    for (unsigned k = 0; k < c->jobs; k++) {
      int rc = submit_one(t, &jobs[k]);
      if (rc != SEALPROV_OK)
        note_failure(t, rc, "submit", k);
      else
        finish_one(t, &jobs[k], k);
    }
  }
  for (unsigned k = 0; jobs && k < c->jobs; k++) {
    free(jobs[k].proofs);
    free(jobs[k].results);
  }
  free(jobs);
  return NULL;
}

/* Prints "name": count pairs (JSON) or "name x count" (text) of failed statuses. */
static void print_statuses(bool json, const unsigned *st) {
  bool first = true;
  for (int s = 0; s < NSTATUS; s++) {
    if (!st[s]) continue;
    const char *name = s < SEALPROV_STATUS_COUNT_ ? g16_status_name(s) : "unknown status";
    if (json) {
      printf("%s", first ? "" : ", ");
      sp_cli_json_str(stdout, name);
      printf(": %u", st[s]);
    } else {
      printf("%s%s x %u", first ? "" : ", ", name, st[s]);
    }
    first = false;
  }
  if (first && !json) printf("none");
}

static void report(bool json, const char *params, size_t n, unsigned nthreads, unsigned jobs,
                   const stress_thread *th, double load_ms, double wall_ms) {
  unsigned ok = 0, failed = 0, statuses[NSTATUS] = {0};
  size_t valid = 0, invalid = 0;
  for (unsigned t = 0; t < nthreads; t++) {
    ok += th[t].jobs_ok;
    failed += th[t].jobs_failed;
    valid += th[t].valid;
    invalid += th[t].invalid;
    for (int s = 0; s < NSTATUS; s++) statuses[s] += th[t].statuses[s];
  }
  size_t total_jobs = (size_t)nthreads * jobs;
  double pps = wall_ms > 0 ? (double)(valid + invalid) / (wall_ms / 1e3) : 0;
  if (json) {
    printf("{\"params\": ");
    sp_cli_json_str(stdout, params);
    printf(", \"threads\": %u, \"jobs_per_thread\": %u, \"partitions_per_job\": %zu", nthreads,
           jobs, n);
    printf(
        ", \"jobs\": %zu, \"partitions\": %zu, \"jobs_ok\": %u, \"failed\": %u, \"valid\": %zu, "
        "\"invalid\": %zu, \"failed_statuses\": {",
        total_jobs, total_jobs * n, ok, failed, valid, invalid);
    print_statuses(true, statuses);
    printf("}, \"load_ms\": %.1f, \"wall_ms\": %.1f, \"partitions_per_second\": %.2f", load_ms,
           wall_ms, pps);
    printf(", \"per_thread\": [");
    for (unsigned t = 0; t < nthreads; t++) {
      const stress_thread *x = &th[t];
      printf(
          "%s{\"thread\": %u, \"priority\": %u, \"mode\": \"%s\", \"jobs_ok\": %u, "
          "\"failed\": %u, \"valid\": %zu, \"invalid\": %zu",
          t ? ", " : "", x->index, x->index, x->batch ? "batch" : "submit-wait", x->jobs_ok,
          x->jobs_failed, x->valid, x->invalid);
      if (x->error[0]) {
        printf(", \"error\": ");
        sp_cli_json_str(stdout, x->error);
      }
      printf("}");
    }
    printf("]}\n");
    return;
  }
  printf("%-6s %-8s %-11s %7s %7s %7s %8s\n", "thread", "priority", "mode", "jobs_ok", "failed",
         "valid", "invalid");
  for (unsigned t = 0; t < nthreads; t++) {
    const stress_thread *x = &th[t];
    printf("%-6u %-8u %-11s %7u %7u %7zu %8zu\n", x->index, x->index,
           x->batch ? "batch" : "submit-wait", x->jobs_ok, x->jobs_failed, x->valid, x->invalid);
  }
  for (unsigned t = 0; t < nthreads; t++)
    if (th[t].error[0]) printf("  %s\n", th[t].error);
  printf("%zu jobs (%u threads x %u) of %zu partitions: %u ok, %u failed (", total_jobs, nthreads,
         jobs, n, ok, failed);
  print_statuses(false, statuses);
  printf(
      "); %zu of %zu proofs valid, %zu invalid; %.0f ms, %.2f partitions/s (parameters "
      "loaded in %.0f ms)\n",
      valid, total_jobs * n, invalid, wall_ms, pps, load_ms);
}

/* The command's options and operands, checked. */
typedef struct stress_opts {
  sp_cli_params_path pp; /* --params, found */
  const char *params;    /* what srs_load is given: pp.module */
  const char *ini;
  unsigned nthreads, jobs;
  bool json;
  char **files; /* the partition files, n of them */
  size_t n;
} stress_opts;

/* -1 when the command is to run; else its exit status (0 after --help, 2 on a usage
 * error or a file of the wrong kind). */
static int stress_parse(int argc, char **argv, stress_opts *o) {
  enum { O_PARAMS = 256, O_THREADS, O_JOBS };
  static const struct option opts[] = {
      {"params", required_argument, NULL, O_PARAMS},
      {"threads", required_argument, NULL, O_THREADS},
      {"jobs-per-thread", required_argument, NULL, O_JOBS},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {
      .usage = stress_usage, .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON, .opts = opts};
  const char *params = NULL;
  o->nthreads = 4;
  o->jobs = 3;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case O_PARAMS: params = optarg; break;
      case O_THREADS:
        if (!sp_cli_uint("--threads", optarg, 1, STRESS_MAX_THREADS, &o->nthreads)) return 2;
        break;
      case O_JOBS:
        if (!sp_cli_uint("--jobs-per-thread", optarg, 1, STRESS_MAX_JOBS, &o->jobs)) return 2;
        break;
    }
  }
  if (c < 0) return a.status;
  o->ini = a.config;
  o->json = a.json;
  o->n = (size_t)(argc - a.first);
  o->files = argv + a.first;
  if (!params || o->n == 0)
    return sp_cli_usage_error(&a, "missing %s", !params ? "--params" : "partition files");
  int pst = g16_params_file("--params", params, SP_KIND_PARAMS, &o->pp);
  if (pst != 0) return pst;
  if (!g16_check_env_outputs(false, NULL, 0)) return 2;
  o->params = o->pp.module;
  for (size_t i = 0; i < o->n; i++)
    if (!sp_cli_file_is("stress", o->files[i], SP_KIND_BIT(SP_KIND_SPA),
                        "partition files (.spa) after its options"))
      return 2;
  if (o->n > UINT32_MAX) {
    sp_cli_error("%zu partition files; a job holds at most %u", o->n, UINT32_MAX);
    return 2;
  }
  return -1;
}

/* The partition files into spa[] and their assignments into asg[]. */
static bool stress_read(const stress_opts *o, sp_spa **spa, sealprov_assignment *asg) {
  for (size_t i = 0; i < o->n; i++) {
    char err[1024];
    if (sp_spa_read(o->files[i], &spa[i], err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      return false;
    }
    asg[i] = spa[i]->asg;
    if (asg[i].inp_size == 0) { /* verify() needs the inputs after ONE */
      sp_cli_error("%s: inp_size is 0 (no ONE input)", o->files[i]);
      return false;
    }
  }
  return true;
}

/* The module opened and the parameters loaded into ctx, timed into *load_ms. */
static bool stress_open(const stress_opts *o, sp_cli_host *h, stress_ctx *ctx, double *load_ms) {
  if (!sp_cli_host_open(h, o->ini)) return false;
  ctx->vt = h->vt;
  ctx->p = h->p;
  double t0 = sp_cli_now_ms();
  int rc = h->vt->srs_load(h->p, o->params, &ctx->srs);
  *load_ms = sp_cli_now_ms() - t0;
  if (rc != SEALPROV_OK) {
    sp_cli_error("%s: %s", g16_status_name(rc), h->vt->last_error());
    return false;
  }
  return true;
}

/* The host threads, released together; *wall_ms from their release to the last join.
 * False when not every thread could be started (none then submits). */
static bool stress_threads(const stress_opts *o, stress_ctx *ctx, stress_thread *th,
                           double *wall_ms) {
  unsigned started = 0;
  for (unsigned t = 0; t < o->nthreads; t++) {
    th[t].ctx = ctx;
    th[t].index = t;
    th[t].batch = t % 2 == 1;
    if (pthread_create(&th[t].tid, NULL, stress_main, &th[t]) != 0) break;
    started++;
  }
  /* the clock starts when the threads are released, all at once */
  pthread_mutex_lock(&ctx->lock);
  ctx->go = started == o->nthreads ? 1 : -1;
  double t0 = sp_cli_now_ms();
  pthread_cond_broadcast(&ctx->cond);
  pthread_mutex_unlock(&ctx->lock);
  for (unsigned t = 0; t < started; t++) pthread_join(th[t].tid, NULL);
  *wall_ms = sp_cli_now_ms() - t0;
  if (started < o->nthreads) {
    sp_cli_error("could start only %u of %u threads", started, o->nthreads);
    return false;
  }
  return true;
}

/* 0 when every job of every thread ended OK with every proof valid, else 1. */
static int stress_verdict(const stress_opts *o, const stress_thread *th) {
  for (unsigned t = 0; t < o->nthreads; t++)
    if (th[t].jobs_failed || th[t].invalid || th[t].jobs_ok != o->jobs ||
        th[t].valid != o->jobs * o->n)
      return 1;
  return 0;
}

int cmd_stress(int argc, char **argv) {
  stress_opts o = {0};
  int ret = stress_parse(argc, argv, &o);
  if (ret >= 0) return ret;
  sp_spa **spa = calloc(o.n, sizeof *spa);
  sealprov_assignment *asg = calloc(o.n, sizeof *asg);
  stress_thread *th = calloc((size_t)o.nthreads, sizeof *th);
  stress_ctx ctx = {.asg = asg,
                    .n = o.n,
                    .jobs = o.jobs,
                    .lock = PTHREAD_MUTEX_INITIALIZER,
                    .cond = PTHREAD_COND_INITIALIZER};
  sp_cli_host h = {0};
  double load_ms, wall_ms;
  ret = 2; /* out of memory, or a partition file that cannot be read */
  if (!spa || !asg || !th) {
    sp_cli_error("out of memory");
  } else if (stress_read(&o, spa, asg)) {
    ret = 1;
    if (stress_open(&o, &h, &ctx, &load_ms) && stress_threads(&o, &ctx, th, &wall_ms)) {
      report(o.json, o.params, o.n, o.nthreads, o.jobs, th, load_ms, wall_ms);
      ret = stress_verdict(&o, th);
    }
  }
  if (ctx.srs) h.vt->srs_release(ctx.srs);
  g16_dump_provider_text(&h);
  sp_cli_host_close(&h);
  for (size_t i = 0; spa && i < o.n; i++) sp_spa_free(spa[i]);
  free(spa);
  free(asg);
  free(th);
  return ret;
}
