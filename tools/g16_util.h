/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* g16_util.h -- small helpers shared by the setup, prove, verify, demo and bench
 * commands of the sealprov CLI. */
#ifndef SEALPROV_TOOLS_G16_UTIL_H
#define SEALPROV_TOOLS_G16_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "circuit.h"
#include "cli.h"
#include "sealprov.h"

/* Number of online CPUs (at least 1). */
unsigned g16_ncpus(void);

/* Proof file helpers: reads exactly n * 192 bytes (false and a message otherwise). */
bool g16_read_proofs(const char *path, size_t n, uint8_t **out);

/* Checks before any work that the input file `path` of option `opt` is there and is a
 * file that can be read; prints an error naming the option and path and returns false
 * otherwise (a bare --params name: sp_cli_params_where first). Output files: cli.h,
 * sp_cli_output_check. */
bool g16_check_input_file(const char *opt, const char *path);
/* A --params (kind SP_KIND_PARAMS) or --vk (SP_KIND_VK) option: where it is
 * (sp_cli_params_where), that it is there, and of that kind. 0, or the exit status after
 * the message: 1 not there, 2 another kind of file. */
int g16_params_file(const char *opt, const char *name, sp_cli_kind kind, sp_cli_params_path *pp);

/* Removes a directory tree made by the CLI (temporary setups); best effort. */
void g16_remove_tree(const char *dir);

/* A setup's progress (the kit's sp_progress: {g16_setup_progress, &meter}) as the
 * command's progress lines, a meter per stage. */
typedef struct g16_setup_meter {
  sp_cli_meter m;
  char stage[32];
} g16_setup_meter;
void g16_setup_progress(void *user, const char *stage, double done, double total);

/* The parameter file and .vk of circuit c (g16_make_params below, for a circuit the
 * caller keeps: bench witness also writes its .r1cs and witness). */
int g16_circuit_params(const sp_circuit *c, uint64_t setup_seed, unsigned nthreads, int gpu_ordinal,
                       const char *params, const char *vk, char *err, size_t errlen);

/* The parameter file and .vk (nothing else) of a sealing-shaped circuit of `constraints`
 * constraints and `inputs` public inputs: the circuit from circuit_seed, the INSECURE
 * setup from setup_seed, its fixed-base products on CUDA device gpu_ordinal when it is
 * >= 0 (a CUDA build), else on nthreads CPU threads; the progress of setup. On failure
 * err says which step failed ("circuit 2^K: ...", "GPU N: ...") and neither file is
 * left. *circuit_ms (may be NULL) gets the circuit's share of the time. Statuses as the
 * kit's. */
int g16_make_params(uint64_t constraints, uint32_t inputs, uint64_t circuit_seed,
                    uint64_t setup_seed, unsigned nthreads, int gpu_ordinal, const char *params,
                    const char *vk, double *circuit_ms, char *err, size_t errlen);

/* Human-readable status text for statuses of the module or of internal calls. */
const char *g16_status_name(int status);

/* ---- proving through the module (prove, demo) ------------------------------------ */

/* Where g16_prove_partitions stopped (G16_STAGE_DONE when the job ran to its end,
 * successfully or not). */
enum { G16_STAGE_PARAMS = 1, G16_STAGE_SUBMIT = 2, G16_STAGE_DONE = 3 };

typedef struct g16_prove_report {
  int stage;                          /* G16_STAGE_* */
  sealprov_job_id job;                /* the job, once submitted (0 before) */
  double load_ms;                     /* srs_load */
  double prove_ms;                    /* submit -> wait returned */
  int status;                         /* the job's status */
  char detail[1024];                  /* last_error() of a failed call */
  sealprov_partition_result *results; /* n entries (caller's array); status -1: not run */
  char (*device_names)[64];           /* n entries: section of results[i].device */
  size_t devices_used;                /* distinct devices among the results */
  /* Where the loaded set's proving vectors are in host memory, as stats() says
   * (sealprov_params_set_host_bytes): "own" (this process's), "image" (a shared image
   * mapped, its file in params_image) or "" (nothing said: a direct load onto the GPUs,
   * or a module without the metric), and their bytes. */
  char params_memory[8];
  char params_image[1024];
  uint64_t params_bytes;
} g16_prove_report;

/* Writes the provider's task timeline and Prometheus stats to the files named by
 * SEALPROV_TIMELINE and SEALPROV_STATS (each skipped when unset; checked with
 * sp_cli_output_check before the work): how a run shows which device ran what, and when. */
void g16_dump_provider_text(sp_cli_host *h);
/* The files SEALPROV_TIMELINE and SEALPROV_STATS name, checked as outputs (text) against
 * the command's inputs before any work; false after the message. */
bool g16_check_env_outputs(bool force, const sp_cli_file *inputs, size_t ninputs);

/* The INI section of the device of each partition's result into rep->device_names ("-"
 * for none), and rep->devices_used. */
void g16_name_devices(sp_cli_host *h, size_t n, g16_prove_report *rep);

/* One proof of partition a (canonical scalars, from the file path) checked with the
 * module's verify(): input 0 must be ONE (verify() takes the inputs after it), else
 * ASSIGNMENT and err says so; verify()'s status otherwise, err its detail. */
int g16_verify_partition(sp_cli_host *h, const sealprov_srs *vk, const sealprov_assignment *a,
                         const char *path, const uint8_t *proof, int *valid, char *err,
                         size_t errlen);

/* On a module opened with sp_cli_host_open (tools/cli.h): srs_load(params), one job
 * with every partition (zero r and s if zero_rs: no zero-knowledge, for tests),
 * progress on stderr when it is a terminal, wait. proofs gets 192 * n bytes. Returns 0
 * when the job succeeded, 1 otherwise (the report says why). */
int g16_prove_partitions(sp_cli_host *h, const char *params, const sealprov_assignment *asg,
                         size_t n, bool zero_rs, bool progress, uint8_t *proofs,
                         g16_prove_report *rep);

/* rep's params_memory, params_image and params_bytes for the set loaded from params. */
void g16_params_memory(sp_cli_host *h, const char *params, g16_prove_report *rep);

/* The report before anything ran: stage PARAMS, every partition "not run". */
void g16_report_begin(g16_prove_report *rep, size_t n);

/* What one job proves, once its parameters (and for witness-only partitions its
 * constraint system) are loaded. */
typedef struct g16_job_in {
  sealprov_srs *srs;
  sealprov_cs *cs; /* NULL: full assignments */
  const sealprov_assignment *parts;
  size_t n;
  bool zero_rs;     /* r = s = 0: no zero-knowledge, tests only */
  uint8_t *proofs;  /* 192 * n bytes */
  const char *noun; /* the progress line's: "proving 3 <noun>s" */
} g16_job_in;
/* The job both ways of proving share (g16_prove_partitions, g16_prove_witness):
 * submitted, waited for; with progress a line as it starts and, with meter, one each
 * time partitions come through and one at its end. rep gets the stages from SUBMIT on,
 * the job, prove_ms, status and detail, and the devices' names; the provider's text goes
 * where SEALPROV_TIMELINE and SEALPROV_STATS say. Returns 0 when the job succeeded, 1
 * otherwise. */
int g16_run_job(sp_cli_host *h, const g16_job_in *in, bool progress, bool meter,
                g16_prove_report *rep);

#endif
