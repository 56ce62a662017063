/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* sealprov.h -- the published ABI of the sealprov Groth16 (BLS12-381) provider module.
 *
 * A host (a sealing daemon) loads the module with dlopen, looks up the one exported
 * symbol SEALPROV_ENTRY_SYMBOL ("sealprov_provider_init") and calls it with the ABI
 * version it was built against. The module answers with a pointer to its function
 * table (sealprov_vtable). Everything else in the module is hidden.
 *
 * Versioning rules (never broken):
 *  - sealprov_vtable starts with abi_major, abi_minor, struct_size. Fields are only
 *    ever appended; every append bumps SEALPROV_ABI_MINOR. A host reads only the
 *    fields that struct_size covers (use SEALPROV_VTABLE_HAS()).
 *  - Structs the host passes in (sealprov_host, sealprov_job, ...) start with
 *    struct_size too; the module reads only what the host's struct_size covers and
 *    treats missing trailing fields as zero.
 *  - A different abi_major is refused cleanly with SEALPROV_ERR_ABI_VERSION and a
 *    message naming both versions. Status codes are append-only, never renumbered.
 *  - No abort(), exit() or C++ exception ever crosses this boundary.
 *
 * Thread safety: every function reached through the vtable is thread-safe, EXCEPT
 * close(), which must not race with any other call on the same provider handle.
 * Error detail: when a call returns a status other than SEALPROV_OK, last_error()
 * on the SAME thread returns a human-readable message naming the file, field and
 * value at fault; it stays valid until the thread's next call into the module.
 */
#ifndef SEALPROV_H
#define SEALPROV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SEALPROV_ABI_MAJOR 1
#define SEALPROV_ABI_MINOR 4
#define SEALPROV_ENTRY_SYMBOL "sealprov_provider_init"

#define SEALPROV_PROOF_BYTES 192u /* compressed A (48) || B (96) || C (48) */
#define SEALPROV_SCALAR_BYTES 32u

/* ---- Status codes: append only, never renumber. ---------------------------- */
typedef enum sealprov_status {
  SEALPROV_OK = 0,
  SEALPROV_ERR_INVALID_ARGUMENT = 1, /* a NULL or out-of-range argument */
  SEALPROV_ERR_ABI_VERSION = 2,      /* host and module majors differ */
  SEALPROV_ERR_NO_MEMORY = 3,        /* host memory allocation failed */
  SEALPROV_ERR_CONFIG = 4,           /* the INI file is wrong (file:line key=value) */
  SEALPROV_ERR_DEVICE = 5,           /* a device failed (CUDA error, failed bind) */
  SEALPROV_ERR_NO_DEVICE = 6,        /* no healthy device is left to run the work */
  SEALPROV_ERR_IO = 7,               /* a file could not be opened, read or mapped */
  SEALPROV_ERR_PARAMS = 8,           /* a .params/.vk file is malformed */
  SEALPROV_ERR_ASSIGNMENT = 9,       /* a partition assignment is inconsistent */
  SEALPROV_ERR_VERIFY_FAILED = 10,   /* a proof failed its pairing check */
  SEALPROV_ERR_CANCELLED = 11,       /* the job was cancelled */
  SEALPROV_ERR_TIMEOUT = 12,         /* wait() timed out; the job goes on */
  SEALPROV_ERR_SHUTDOWN = 13,        /* the provider is closing or closed */
  SEALPROV_ERR_QUEUE_FULL = 14,      /* the job queue limit was reached */
  SEALPROV_ERR_NOT_FOUND = 15,       /* unknown job id (or already waited on) */
  SEALPROV_ERR_INTERNAL = 16,        /* a bug in the module; the detail says where */
  SEALPROV_ERR_UNSUPPORTED = 17,     /* a feature this build does not have (e.g. CUDA) */
  SEALPROV_ERR_DEVICE_MEMORY = 18,   /* a device ran out of memory, or (srs_load, submit)
                                        no device has the memory for the partitions */
  SEALPROV_STATUS_COUNT_ = 19        /* not a status; grows with each append */
} sealprov_status;

/* ---- Host services (passed in at init; the module links nothing of the host). ---- */
typedef enum sealprov_log_level {
  SEALPROV_LOG_ERROR = 0,
  SEALPROV_LOG_WARN = 1,
  SEALPROV_LOG_INFO = 2,
  SEALPROV_LOG_DEBUG = 3
} sealprov_log_level;

/* log() may be called from any module thread, concurrently; msg is one line without
 * a trailing newline, valid only during the call. */
typedef void (*sealprov_log_fn)(void *user, int level, const char *msg);

typedef struct sealprov_host {
  uint32_t struct_size; /* sizeof(sealprov_host) as the host was built */
  int32_t log_level;    /* messages above this level are not produced */
  sealprov_log_fn log;  /* NULL: the module logs nothing */
  void *log_user;
} sealprov_host;

/* ---- Opaque handles ----------------------------------------------------------- */
typedef struct sealprov_provider sealprov_provider;
typedef struct sealprov_srs sealprov_srs; /* loaded parameters (or a verifying key) */
typedef struct sealprov_cs sealprov_cs;   /* a loaded constraint system (ABI 1.1) */
typedef uint64_t sealprov_job_id;         /* never 0 */

/* ---- A partition assignment (the supraseal-c2 Assignment layout) ---------------
 * Scalars are 32 bytes each, in the encoding the job names (scalar_encoding).
 * Density bitmaps are 64-bit words; variable j is present iff bit (j % 64) of word
 * (j / 64) is set. popcounts must match the bitmaps (checked). */
typedef struct sealprov_assignment {
  const uint64_t *a_aux_density;
  uint64_t a_aux_bit_len;
  uint64_t a_aux_popcount;
  const uint64_t *b_inp_density;
  uint64_t b_inp_bit_len;
  uint64_t b_inp_popcount;
  const uint64_t *b_aux_density;
  uint64_t b_aux_bit_len;
  uint64_t b_aux_popcount;
  const void *a; /* abc_size scalars: evaluations of A on the domain */
  const void *b;
  const void *c;
  uint64_t abc_size; /* number of constraints incl. input constraints; <= 2^k of the params */
  const void *inp_assignment; /* inp_size scalars; element 0 is ONE */
  uint64_t inp_size;
  const void *aux_assignment;
  uint64_t aux_size;
} sealprov_assignment;

typedef enum sealprov_scalar_encoding {
  SEALPROV_SCALAR_CANONICAL_LE = 0, /* canonical value, 32 bytes little-endian */
  SEALPROV_SCALAR_MONTGOMERY = 1    /* blst/blstrs Fr limbs (Montgomery, R = 2^256) */
} sealprov_scalar_encoding;

/* Job flags */
#define SEALPROV_JOB_FIXED_RS 0x1u /* use job->r/s: REMOVES zero-knowledge; tests only */
#define SEALPROV_JOB_DETACHED 0x2u /* no wait(): the job record is freed after on_complete */

typedef void (*sealprov_complete_fn)(void *user, sealprov_job_id id, int status);
typedef void (*sealprov_released_fn)(void *user, sealprov_job_id id, uint32_t partition);

/* Per-partition outcome, filled by the module if the host gives an array. */
typedef struct sealprov_partition_result {
  int32_t status;    /* sealprov_status of this partition */
  int32_t device;    /* index of the device (as in devices()) that produced it, -1 none */
  uint32_t attempts; /* how many times it ran (> 1 after requeues) */
  uint32_t reserved;
  double queued_ms; /* submit -> start of the final attempt */
  double run_ms;    /* start -> proof ready (incl. self-check) of the final attempt */
} sealprov_partition_result;

typedef struct sealprov_job {
  uint32_t struct_size; /* sizeof(sealprov_job) */
  uint32_t flags;       /* SEALPROV_JOB_* */
  sealprov_srs *srs;    /* parameters from srs_load(); a reference is held by the job */
  const sealprov_assignment *partitions;
  uint32_t num_partitions;  /* >= 1 */
  uint32_t scalar_encoding; /* sealprov_scalar_encoding, for assignments and r/s */
  const uint8_t *r;         /* NULL, or 32 x num_partitions bytes (needs FIXED_RS) */
  const uint8_t *s;         /* likewise */
  int32_t priority;         /* higher runs first; equal priorities run FIFO */
  uint32_t reserved;
  uint8_t *proofs_out;                /* 192 x num_partitions bytes, written in partition order */
  sealprov_partition_result *results; /* NULL, or num_partitions entries */
  sealprov_complete_fn on_complete;   /* optional; called once, from a module thread */
  sealprov_released_fn on_inputs_released; /* optional; per partition, once the module no
                                             longer reads that partition's a/b/c/aux */
  void *user;
  /* ---- ABI 1.1 (a host built against 1.0 has a struct_size that ends before this
   * field: the module reads cs as NULL and the job as a full-assignment job). ---- */
  /* NULL: every partition carries a, b, c and the density bitmaps (the full
   * assignment). Else a constraint system from cs_load() with the same circuit as srs:
   * each partition gives ONLY inp_assignment/inp_size and aux_assignment/aux_size (the
   * witness); a, b, c, abc_size and the six density fields must be NULL / 0. The module
   * computes a = A z, b = B z, c = C z over every row (bellperson's input constraints
   * included) and takes the densities computed at cs_load, so the proof bytes are those
   * of the full assignment for the same witness and r, s. A reference is held by the
   * job. on_inputs_released then means: the module no longer reads inputs and aux. */
  sealprov_cs *cs;
  /* ---- ABI 1.2 (a host built against 1.0 or 1.1 has a struct_size that ends before
   * this field: the module reads 0, any device). ---- */
  /* 0: any device. Else bit i (SEALPROV_DEVICE_BIT(i)) allows device i, the index
   * devices() reports: the job's partitions run only on allowed devices, and a retry
   * after a device fault goes only to another allowed device; when no allowed device
   * is left healthy the partition fails with the device's error. submit refuses a bit
   * at or past the number of devices (INVALID_ARGUMENT) and a set whose devices are
   * all quarantined (NO_DEVICE). A module older than ABI 1.2 does not read this field
   * and runs the job anywhere: check vtable->abi_minor >= 2 before relying on it. */
  uint64_t device_mask;
} sealprov_job;

/* The device_mask bit of device index i (0 <= i < 64). */
#define SEALPROV_DEVICE_BIT(i) (UINT64_C(1) << (i))

/* ---- Device table ----------------------------------------------------------------- */
typedef enum sealprov_device_state {
  SEALPROV_DEVICE_READY = 0,
  SEALPROV_DEVICE_BUSY = 1,
  SEALPROV_DEVICE_QUARANTINED = 2,
  SEALPROV_DEVICE_STOPPED = 3
} sealprov_device_state;

typedef struct sealprov_device_info {
  uint32_t struct_size;
  int32_t index;             /* position in the INI order of device sections */
  char section[64];          /* INI section name, e.g. "gpu0" */
  char type[8];              /* "cpu" or "cuda" */
  char name[96];             /* "NVIDIA H200", "cpu" */
  char uuid[48];             /* "GPU-xxxxxxxx-...", "" for CPU devices */
  char pci_bus_id[24];       /* "0000:65:00.0", "" for CPU devices */
  int32_t ordinal;           /* CUDA runtime ordinal the selector resolved to, -1 for CPU */
  int32_t confirmed_ordinal; /* what every worker confirmed with cudaGetDevice (-1 CPU) */
  uint32_t workers;
  int32_t state; /* sealprov_device_state */
  uint64_t tasks_done;
  uint64_t tasks_failed;
  uint64_t memory_limit; /* bytes, 0 = no limit */
  double busy_seconds;   /* time inside the device section */
  double lock_wait_seconds;
  /* ---- ABI 1.2: topology (sysfs; docs/configuration.md "NUMA placement"). A host
   * built against 1.0/1.1 sets out[0].struct_size to its smaller entry before the call
   * (docs/abi.md) and gets entries that end before these fields. ---- */
  int32_t numa_node;     /* the device's NUMA node; -1: unknown, or one node only */
  uint32_t bound_cpus;   /* CPUs its worker threads are bound to; 0 = not bound */
  uint32_t pcie_gen;     /* PCIe link generation now (1..7); 0 = unknown or CPU */
  uint32_t pcie_width;   /* lanes now; 0 = unknown or CPU */
  uint32_t pcie_max_gen; /* what the device and its slot can do */
  uint32_t pcie_max_width;
  /* ---- ABI 1.3: the device's code (docs/abi.md §7). A module older than 1.3 writes
   * entries that end before these fields (their struct_size says so). ---- */
  int32_t compute_capability; /* CUDA: major * 10 + minor (80, 86, 89, 90, 120); -1 CPU */
  char code[28];              /* the code this module runs on it: "sm_86" (built for that
                                architecture), "compute_121 (JIT)" (PTX the driver
                                compiled); "" for CPU devices. A GPU the module has no
                                code for is refused by open() (UNSUPPORTED), so it is
                                never listed. */
  /* ---- ABI 1.4: capacity (docs/abi.md §7). The largest k such that a sealing-shaped
   * partition of domain 2^k (a PoRep C2 partition's proportions; 27 is a 32 GiB sector's)
   * proves on the device: with its parameters resident, resident with a fixed-base
   * table, or streamed from host memory (the least memory). 0: not even 2^1; -1: no
   * bound (a CPU device without memory_limit). A module older than 1.4 writes entries
   * that end before these fields. ---- */
  int32_t max_log_resident;
  int32_t max_log_tables;
  int32_t max_log_streamed;
  uint32_t reserved;      /* 0 */
  uint64_t device_memory; /* bytes it proves in: memory_limit, else the GPU's memory less
                             what its driver keeps; 0: no bound */
} sealprov_device_info;

/* What cs_info() reports about a loaded constraint system (ABI 1.1). */
typedef struct sealprov_cs_info {
  uint32_t struct_size; /* the host sets it; the module writes only what it covers */
  uint32_t reserved;
  uint64_t constraints;         /* constraints in the file */
  uint64_t abc_size;            /* constraints + inp_size (bellperson's input constraints) */
  uint64_t inp_size;            /* ONE + public outputs + public inputs */
  uint64_t aux_size;            /* every other wire */
  uint64_t nnz_a, nnz_b, nnz_c; /* terms of the three matrices in the file */
  uint64_t a_aux_popcount, b_inp_popcount, b_aux_popcount; /* the densities */
  uint64_t host_bytes;                                     /* host memory the loaded system holds */
} sealprov_cs_info;

/* ---- The function table --------------------------------------------------------------
 * Every function returns a sealprov_status unless noted. */
typedef struct sealprov_vtable {
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t struct_size; /* sizeof(sealprov_vtable) as the module was built */
  uint32_t reserved;

  /* Module version string ("0.1.0"). Thread-safe; static storage. */
  const char *(*version)(void);
  /* Text of a status code; never NULL (unknown codes get "unknown status"). */
  const char *(*strerror)(int status);
  /* Detail of the calling thread's last failed call ("" if none). Thread-local; valid
   * until the thread's next call into the module. */
  const char *(*last_error)(void);

  /* Parses the INI file, resolves every device, starts all worker threads and returns
   * only when each worker is bound to its device (or fails, having joined every
   * thread it started). Statuses: OK, INVALID_ARGUMENT, IO, CONFIG, DEVICE,
   * NO_DEVICE, UNSUPPORTED, NO_MEMORY. Thread-safe (opens are independent). */
  int (*open)(const char *ini_path, sealprov_provider **out);
  /* Stops intake, fails queued tasks with SHUTDOWN, lets running tasks finish, ends
   * every job with a status (callbacks fire), joins every thread, frees device
   * memory. Jobs not yet waited on are freed; the handle is invalid afterwards.
   * NOT thread-safe with other calls on the same handle. Returns OK or
   * INVALID_ARGUMENT. */
  int (*close)(sealprov_provider *p);

  /* Loads a bellperson .params file, read with pread (never mapped), every point
   * validated ([provider] params_subgroup_check); for a file checked in full before on
   * this host, unchanged since, the subgroup checks are replaced by a keyed digest of
   * its bytes ([provider] params_validation_cache). With only CUDA devices and
   * params_residency = auto the proving vectors go straight onto every GPU, decoded and
   * checked there, with no host copy (docs/abi.md). The handle is
   * reference counted; jobs hold a reference. Statuses: OK, INVALID_ARGUMENT, IO,
   * PARAMS, NO_MEMORY, SHUTDOWN, DEVICE_MEMORY (no device of the provider has the memory
   * for its partitions, even streamed: said before the file is read). */
  int (*srs_load)(sealprov_provider *p, const char *path, sealprov_srs **out);
  /* Loads a verifying key file (.vk: the first part of a .params file) usable only
   * with verify(). Same statuses as srs_load. */
  int (*vk_load)(sealprov_provider *p, const char *path, sealprov_srs **out);
  /* Drops the caller's reference; memory goes when the last job using it ends.
   * Safe while jobs use it. NULL is ignored. */
  void (*srs_release)(sealprov_srs *srs);

  /* Validates the job (sizes against the parameters, buffers, flags), copies the job
   * description (not the assignment memory: the host keeps that alive until
   * on_inputs_released or completion) and queues one task per partition.
   * Statuses: OK, INVALID_ARGUMENT, ASSIGNMENT, QUEUE_FULL, SHUTDOWN, NO_DEVICE,
   * NO_MEMORY, DEVICE_MEMORY (no device the job allows has the memory for its
   * partitions; the others get none of them). */
  int (*submit)(sealprov_provider *p, const sealprov_job *job, sealprov_job_id *id);
  /* Waits for the job to end. timeout_ms < 0 waits forever. On return other than
   * TIMEOUT the job is released (a second wait gives NOT_FOUND) and its status is
   * returned: OK when every partition has a verified proof, else the first failing
   * partition's status (detail in last_error()). */
  int (*wait)(sealprov_provider *p, sealprov_job_id id, int64_t timeout_ms);
  /* Cancels queued partitions of the job; running ones finish. The job then ends
   * with CANCELLED. Statuses: OK, NOT_FOUND. */
  int (*cancel)(sealprov_provider *p, sealprov_job_id id);
  /* submit() + wait(-1). */
  int (*prove)(sealprov_provider *p, const sealprov_job *job);

  /* Verifies one proof: inputs are num_inputs scalars (public inputs WITHOUT the
   * leading ONE) in the given encoding. *valid = 1 if the proof verifies, else 0.
   * Returns OK when the check ran (whatever its outcome); INVALID_ARGUMENT when
   * num_inputs does not match the key or the proof bytes do not decode. */
  int (*verify)(sealprov_provider *p, const sealprov_srs *vk, const void *inputs,
                uint64_t num_inputs, uint32_t scalar_encoding, const uint8_t *proof, int *valid);

  /* Fills up to cap entries (each entry's struct_size is set by the module to what
   * it wrote); *count gets the number of devices. */
  int (*devices)(sealprov_provider *p, sealprov_device_info *out, size_t cap, size_t *count);
  /* Prometheus text exposition of counters. Writes at most cap bytes including the
   * NUL; *len gets the full length (call with cap 0 to size the buffer). */
  int (*stats)(sealprov_provider *p, char *buf, size_t cap, size_t *len);
  /* The task timeline (one line per event: time, event, job, partition, device,
   * worker, duration), oldest first, same buffer convention as stats. */
  int (*timeline)(sealprov_provider *p, char *buf, size_t cap, size_t *len);

  /* ---- ABI 1.1: witness-only jobs (check SEALPROV_VTABLE_HAS(vt, cs_load)). ---- */
  /* Loads a constraint system from a circom binary .r1cs file (read with pread, never
   * mapped; every length checked against the file; the field must be BLS12-381's
   * scalar field). Wire order: circom's 0 = ONE, public outputs, public inputs are
   * the job's inputs (inp_assignment, ONE first), every later wire is aux, in file
   * order. The density bitmaps are computed here, once. The handle is reference
   * counted like srs_load's; jobs hold a reference. Statuses: OK, INVALID_ARGUMENT,
   * IO, PARAMS (malformed file: the message names the section, constraint and byte
   * offset), UNSUPPORTED (another field: the message names its prime; PLONK custom
   * gates), NO_MEMORY, SHUTDOWN. Thread-safe. */
  int (*cs_load)(sealprov_provider *p, const char *path, sealprov_cs **out);
  /* Drops the caller's reference; memory goes when the last job using it ends. NULL is
   * ignored; a handle that is not loaded (released twice) is refused with a warning
   * in the log, never followed. Thread-safe. */
  void (*cs_release)(sealprov_cs *cs);
  /* Fills *out (up to out->struct_size bytes) with the system's sizes. Statuses: OK,
   * INVALID_ARGUMENT (NULL, a handle that is not loaded, struct_size too small for the
   * first fields). Thread-safe. */
  int (*cs_info)(const sealprov_cs *cs, sealprov_cs_info *out);
} sealprov_vtable;

#define SEALPROV_VTABLE_HAS(vt, field) \
  ((vt)->struct_size >= offsetof(sealprov_vtable, field) + sizeof((vt)->field))

/* The one exported symbol. host may be NULL (no logging). On OK *out points to a
 * static table valid until the module is unloaded. On ABI_VERSION *out is NULL and,
 * if host->log is set, a message with both versions is logged. */
typedef int (*sealprov_provider_init_fn)(uint32_t abi_major, uint32_t abi_minor,
                                         const sealprov_host *host, const sealprov_vtable **out);

#ifdef __cplusplus
}
#endif
#endif /* SEALPROV_H */
