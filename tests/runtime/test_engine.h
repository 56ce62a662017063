/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_engine.h -- a recording engine for the pool/scheduler tests (never in the
 * module). It records which worker thread and device ran each partition, watches
 * the device lock (an atomic count of threads inside execute per device), and fails
 * on command. Its "proof" is a function of the assignment's address, so the test
 * verifier (te_verify) can tell a right proof from a corrupted one. */
#ifndef SEALPROV_TEST_ENGINE_H
#define SEALPROV_TEST_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/sp_sched.h"

enum te_mode {
  TE_OK = 0,
  TE_FAIL_DEVICE,   /* execute returns SEALPROV_ERR_DEVICE */
  TE_FAIL_MEMORY,   /* execute returns SEALPROV_ERR_DEVICE_MEMORY */
  TE_CORRUPT,       /* execute flips a proof byte (caught by the self-check) */
  TE_FAIL_INPUT,    /* prepare returns SEALPROV_ERR_ASSIGNMENT (not retried) */
  TE_FAIL_BIND,     /* worker_bind fails */
  TE_WRONG_ORDINAL, /* worker_bind confirms another ordinal than cfg->ordinal */
  TE_FAIL_OPEN,     /* device_open fails */
};

#define TE_MAX_RECORDS 4096
#define TE_BYTES_PER_POINT 1000u
#define TE_MAX_BAD 64

typedef struct te_record {
  uint64_t job;
  uint32_t partition;
  int device;       /* the device whose execute ran */
  int bound_device; /* the device the running thread had bound to */
  unsigned order;   /* global execution order */
  bool failed;
  fr_t r, s;
} te_record;

typedef struct te_control {
  atomic_int mode[SP_MAX_DEVICES];
  atomic_int fail_left[SP_MAX_DEVICES];  /* < 0: fail every time */
  atomic_uint execute_us;                /* sleep inside execute (lock held) */
  atomic_uint device_us[SP_MAX_DEVICES]; /* more of it on that device (a slower card) */
  /* Capacity (engine.h): device i may use memory[i] bytes (0: no bound); a partition of
   * 2^k needs TE_BYTES_PER_POINT << k, resident or streamed. */
  _Atomic uint64_t memory[SP_MAX_DEVICES];
  atomic_uint prepare_us; /* sleep inside prepare (no lock) */
  /* Gate: while closed, execute blocks (lock held) until te_gate_open(). */
  pthread_mutex_t gate_mu;
  pthread_cond_t gate_cv;
  bool gate_closed;
  unsigned gate_waiting; /* executes blocked at the gate */
  /* Lock watch. */
  atomic_int in_execute[SP_MAX_DEVICES];
  atomic_int max_in_execute[SP_MAX_DEVICES];
  atomic_int violations; /* lock overlap or wrong-thread calls */
  atomic_uint order;
  /* Lifecycle counters. */
  atomic_int opens, closes, binds, unbinds, prepares, releases, executes;
  atomic_int srs_evicts; /* srs_evict calls (device lock held) */
  /* Assignments whose proof never verifies, whatever device made it: a witness that
   * does not satisfy its circuit, as the self-check sees it. */
  const sealprov_assignment *_Atomic bad_witness[TE_MAX_BAD];
  pthread_mutex_t rec_mu;
  te_record rec[TE_MAX_RECORDS];
  unsigned nrec;
} te_control;

extern te_control te;
extern const sp_engine_ops te_engine;

/* Resets every counter and mode (call at the start of each test). */
void te_reset(void);
void te_set_mode(unsigned device, enum te_mode mode, int count /* < 0: always */);
void te_gate_close(void);
void te_gate_open(void);
/* Waits until n executes are blocked at the gate (or 10 s pass); false on timeout. */
bool te_gate_wait_blocked(unsigned n);
/* The bytes a correct execute writes for this assignment. */
void te_expected_proof(const sealprov_assignment *asg, uint8_t out[192]);
/* Self-check hook: does proof match te_expected_proof(asg)? */
int te_verify(const sp_srs *srs, const sealprov_assignment *asg, uint32_t enc,
              const uint8_t proof[192], bool *valid, char *err, size_t errlen);
/* Marks asg as a bad witness (its proofs fail te_verify on every device). */
void te_mark_bad_witness(const sealprov_assignment *asg);
/* Forgets every mark (before the marked memory is freed and reused). */
void te_clear_bad_witnesses(void);
/* Lock overlaps and calls on a thread not bound to the device, so far. */
int te_violations(void);
/* Copies the records of one job, in execution order; returns how many. */
unsigned te_records_of(uint64_t job, te_record *out, unsigned cap);
/* The module's log as the tests read it: te_log_capture() empties it and makes
 * te_log_append the host's logger at every level (sp_log_set_host(NULL) ends that; a
 * test with a logger of its own empties it with te_log_clear and appends each message);
 * te_log_has() looks for a piece of it, under the lock the workers' messages take. */
void te_log_capture(void);
void te_log_clear(void);
void te_log_append(void *user, int level, const char *msg);
bool te_log_has(const char *needle);

#endif
