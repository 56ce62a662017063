/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cli.h -- the `sealprov` command-line tool: its commands, and what they share.
 *
 * A command is `int NAME(int argc, char **argv)` with argv[0] the command's own name
 * (e.g. "devices", or "cpu" for `bench cpu`); it parses its options with sp_cli_getopt
 * and returns the process exit status: 0 success, 1 failure, 2 usage error. Adding one:
 * its prototype here, one line in main.c's table, its source in tools/local.mk (a host
 * command, in the host library), kit/local.mk (a developer command, in kit/cli/ and the
 * program sealprov-kit) or bench/local.mk (a benchmark command, in sealprov-bench);
 * docs/design.md, "The CLI", says which is which.
 *
 * The parts, by file:
 *   cli_base.c  messages, the one UTF-8 validator, JSON strings out, the clocks,
 *               progress meters, the module's log lines (no module, no kit)
 *   opts.c      the one option parser, numbers
 *   json_read.c the one JSON reader (a tree; snarkjs's files, inspect)
 *   host.c      the module through dlopen, as a daemon loads it; where module and INI are
 */
#ifndef SEALPROV_TOOLS_CLI_H
#define SEALPROV_TOOLS_CLI_H

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sealprov.h"

/* ---- commands ----------------------------------------------------------------------
 * Host commands (the host library: they reach the module only through its table). */
int cmd_devices(int argc, char **argv);      /* cmd_devices.c */
int cmd_check_config(int argc, char **argv); /* cmd_devices.c */
int cmd_prove(int argc, char **argv);        /* cmd_prove.c */
int cmd_verify(int argc, char **argv);       /* cmd_verify.c */
int cmd_demo(int argc, char **argv);         /* cmd_demo.c */
/* Developer commands (linked into sealprov-kit with the kit; main.c holds weak references
 * to them, so a program of the host library alone lists them as not built). */
int cmd_setup(int argc, char **argv);   /* kit/cli/cmd_setup.c */
int cmd_inspect(int argc, char **argv); /* kit/cli/cmd_inspect.c: what a file of the project is */
int cmd_wtns(int argc, char **argv);    /* kit/cli/cmd_wtns.c: `wtns IN.spa OUT.wtns` */
/* Benchmark commands (bench/, linked into sealprov-bench; weak references in main.c too).
 * stress and soak reach the module only through its table, as the host commands do. */
int cmd_stress(int argc, char **argv);        /* cmd_stress.c: concurrent jobs, all verified */
int cmd_soak(int argc, char **argv);          /* cmd_soak.c: long mixed traffic, memory sampled */
int cmd_bench(int argc, char **argv);         /* cmd_bench.c: `bench`, `bench load` */
int cmd_bench_witness(int argc, char **argv); /* bench_witness.c: `bench witness DIR` */
int sp_cmd_bench_cpu(int argc, char **argv);  /* bench_cpu.c: `bench cpu` (curve library) */
int sp_cmd_bench_gpu(int argc, char **argv);  /* bench_gpu.c: `bench gpu` (CUDA engine) */
/* The developer modes of two host commands (kit/cli/cmd_snarkjs.c): snarkjs's files are proved
 * and verified by the kit on this host's CPUs, not by the module. */
int sp_cli_prove_zkey(const char *zkey, const char *wtns, const char *out_proof,
                      const char *out_public, bool zero_rs, bool force, bool json);
int sp_cli_verify_snarkjs(const char *vk, const char *proof, const char *public_json, bool json);

/* ---- options (opts.c) --------------------------------------------------------------
 * Every command and main.c parse with sp_cli_getopt, which adds to the command's own
 * options the ones it shares with others:
 *   -h, --help                     its usage on stdout, exit 0
 *   -q, -v, -vv, --progress, --no-progress
 *                                  the global options, taken before or after COMMAND
 *   --plugin MODULE                (SP_CLI_PLUGIN) the module to load
 *   -c, --config INI               (SP_CLI_CONFIG) the INI file
 *   --json                         (SP_CLI_JSON) one JSON object on stdout
 * A usage error prints one line on stderr: the error, and which `sealprov help` shows the
 * usage. */
enum {
  SP_CLI_PLUGIN = 1u << 0,
  SP_CLI_CONFIG = 1u << 1,
  SP_CLI_JSON = 1u << 2,
  SP_CLI_IN_ORDER = 1u << 3, /* stop at the first operand (main.c: COMMAND ends options) */
};

typedef struct sp_cli_args {
  /* set by the command */
  void (*usage)(FILE *f);    /* its usage text */
  unsigned takes;            /* SP_CLI_* */
  const struct option *opts; /* its own long options, {NULL} ended (val: a letter of
                                  `shorts`, or a value of 256 or more), or NULL */
  const char *shorts;        /* its own short options in getopt's syntax, or NULL */
  /* results */
  const char *config; /* -c INI, or NULL */
  bool json;          /* --json */
  int status;         /* when sp_cli_getopt returned -1: the exit status */
  int first;          /* when it returned 0: argv[first..argc-1] are operands */
  /* the parser's own */
  struct option all_[64];
  char shorts_[64];
  bool built_;
} sp_cli_args;

/* getopt_long over the command's options and the shared ones. Returns the next option of
 * the command's own (its val; optarg as getopt_long sets it), 0 when the options are
 * done, or -1 when the command is to return a->status: 0 after --help, 2 after a usage
 * error (an unknown option, a missing value; usage and error already printed). */
int sp_cli_getopt(sp_cli_args *a, int argc, char **argv);
/* "sealprov CMD: error: ... (`sealprov help CMD` shows the usage)" on stderr. Returns 2. */
int sp_cli_usage_error(const sp_cli_args *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The operands after the options: their number must be in min..max (what names them in
 * the message: "partition files"); a usage error (a->status = 2) otherwise. */
bool sp_cli_operands(sp_cli_args *a, int argc, char **argv, int min, int max, const char *what);

/* A decimal (or 2^K) number for option `opt`, at most max; false with a message naming
 * the option and the value otherwise. */
bool sp_cli_u64(const char *opt, const char *value, uint64_t max, uint64_t *out);
/* The same for an unsigned in min..max. */
bool sp_cli_uint(const char *opt, const char *value, unsigned min, unsigned max, unsigned *out);

/* The global options' effect (set by sp_cli_getopt wherever they are given). */
extern int sp_cli_log_level;      /* the module's messages up to this level reach stderr
                                      (SEALPROV_LOG_*; -q ERROR, default WARN, -v INFO,
                                      -vv DEBUG) */
extern bool sp_cli_quiet;         /* -q: only errors (check-config: no table) */
extern const char *sp_cli_plugin; /* --plugin MODULE, or NULL */

/* ---- files: their kind, headers, where --params looks (files.c) --------------------
 * Every command checks each file it is given for its kind, by content, before it parses
 * it ("X is a .spa partition file; --params takes a .params file"); `inspect` picks its
 * describer the same way. */
typedef enum sp_cli_kind {
  SP_KIND_NONE = 0, /* not there */
  SP_KIND_UNKNOWN,  /* binary, none the project knows (or unreadable) */
  SP_KIND_EMPTY,
  SP_KIND_SPA,
  SP_KIND_PARAMS, /* also a .params file cut short: the same first bytes */
  SP_KIND_VK,
  SP_KIND_PROOFS,
  SP_KIND_R1CS,
  SP_KIND_WTNS,
  SP_KIND_ZKEY,
  SP_KIND_SNARKJS_VK,
  SP_KIND_SNARKJS_PROOF,
  SP_KIND_SNARKJS_PUBLIC,
  SP_KIND_MANIFEST, /* Filecoin's parameters.json */
  SP_KIND_JSON,     /* other JSON */
  SP_KIND_INI,
  SP_KIND_TEXT, /* other text */
  SP_KIND_DIR,
  SP_KIND_SPECIAL, /* not a regular file: a FIFO, a device */
} sp_cli_kind;
#define SP_KIND_BIT(k) (1u << (k))
#define SP_CLI_SPA_MAGIC "SEALSPA1"
#define SP_CLI_VK_FIXED_BYTES 864u /* alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 */
/* Where the module looks up a bare parameter file name unless $FIL_PROOFS_PARAMETER_CACHE
 * says otherwise (Filecoin's default). */
#define SP_CLI_DEFAULT_PARAM_CACHE "/var/tmp/filecoin-proof-parameters"

/* "a .spa partition file", "a .params parameter file", "an INI file", ... */
const char *sp_cli_kind_name(sp_cli_kind k);
/* The kind of the file at path (stat, then its first bytes; a JSON file is read whole, up
 * to 64 MiB, to tell snarkjs's files and parameters.json from other JSON). */
sp_cli_kind sp_cli_file_kind(const char *path);
/* The same for an open file of size bytes (path: for reading a JSON file, or NULL). */
sp_cli_kind sp_cli_fd_kind(int fd, uint64_t size, const char *path);
struct sp_json;
/* Which JSON file a parsed document is (SP_KIND_JSON when none sealprov knows). */
sp_cli_kind sp_cli_json_kind(const struct sp_json *doc);
/* The tests behind sp_cli_fd_kind, for inspect: a whole number of 192-byte proofs with
 * the compression flag; an INI file's first line that is not blank or a comment opens a
 * section; the six uncompressed points of a verifying key start the file. */
bool sp_cli_looks_like_proofs(int fd, uint64_t size);
bool sp_cli_looks_like_ini(int fd, uint64_t size);
bool sp_cli_looks_like_params(int fd, uint64_t size);
/* Checks the kind of the file option opt names (e.g. "--params"): true when it is one of
 * `accept` (SP_KIND_BIT()s), or when its kind is not known (not there, unreadable, none
 * the project knows: its reader then says what is wrong). Otherwise prints "PATH is
 * <kind>; OPT takes <takes>" and returns false (the command exits 2). */
bool sp_cli_file_is(const char *opt, const char *path, unsigned accept, const char *takes);

/* The vector lengths of a .params or .vk file, from its length fields only. */
typedef struct sp_cli_params_hdr {
  bool vk;             /* the file ends after ic */
  int nvec;            /* vectors present: 1 (a .vk) or 6 */
  uint64_t len[6];     /* ic, h, l, a, b_g1, b_g2 (sp_cli_params_vector) */
  uint64_t off[6];     /* the byte of each length field */
  unsigned log_domain; /* .params: h has 2^log_domain - 1 points */
} sp_cli_params_hdr;
/* false with msg ("PATH: vector h: length 511 at byte 1252 needs ...") when the lengths
 * do not fit the file; the same words in `inspect` and before `prove` loads it. */
bool sp_cli_params_header(int fd, uint64_t size, const char *path, sp_cli_params_hdr *h, char *msg,
                          size_t msglen);
bool sp_cli_params_header_file(const char *path, sp_cli_params_hdr *h, char *msg, size_t msglen);
const char *sp_cli_params_vector(int i); /* "ic", "h", ... */

/* The sizes in a .spa header (false: no .spa magic, or unreadable). */
typedef struct sp_cli_spa_hdr {
  uint64_t abc_size, inp_size, aux_size;
  uint64_t a_aux_bit_len, a_aux_popcount, b_inp_bit_len, b_inp_popcount, b_aux_bit_len,
      b_aux_popcount;
} sp_cli_spa_hdr;
bool sp_cli_spa_header(const char *path, sp_cli_spa_hdr *h);
/* A 32-byte little-endian scalar as 0x and big-endian hex, leading zeros dropped ("0x1"). */
void sp_cli_scalar_hex(const uint8_t *le, char hex[67]);
/* Whether input 0 of a partition (canonical little-endian scalars) is ONE; false with
 * "PATH: input 0 is 0x2, not ONE: ..." in msg otherwise. verify() takes the public inputs
 * without it, so every command that passes them on checks it first. */
bool sp_cli_input0_is_one(const sealprov_assignment *a, const char *path, char *msg, size_t len);
/* The number of values (nWitness) in a circom .wtns header (false: none found). */
bool sp_cli_wtns_count(const char *path, uint64_t *n);

/* Where a --params (or --vk) NAME is: a name with a '/' is a path, as every other file
 * argument; a bare name is looked up in the parameter cache ($FIL_PROOFS_PARAMETER_CACHE,
 * else SP_CLI_DEFAULT_PARAM_CACHE), as the module looks it up for a host, and, when the
 * cache has no such file but the current directory has, ./NAME is taken, with a warning
 * (a warning too when both have one: the cache's is taken). */
typedef struct sp_cli_params_path {
  char module[PATH_MAX + 8]; /* what to give srs_load / vk_load */
  char file[PATH_MAX + 8];   /* the file itself, for the CLI's own checks */
  bool from_cache;
} sp_cli_params_path;
/* false with a message naming both places when neither has it. */
bool sp_cli_params_where(const char *opt, const char *name, sp_cli_params_path *out);
const char *sp_cli_param_cache(void);

/* ---- output files (output.c) -------------------------------------------------------
 * Every file a command writes: checked before any work, written to a temporary file in
 * its directory, flushed to the disk and renamed into place only when whole; the
 * temporary file is removed on an error and when SIGINT, SIGTERM, SIGHUP or SIGXFSZ stops
 * the process. */
typedef struct sp_cli_file {
  const char *role; /* "--params file", "partition file", "INI file" */
  const char *path;
} sp_cli_file;
/* Before any work: path's directory exists and takes files; path is no directory and none
 * of the command's inputs (by device and inode: "./x", "x" and a hard link are one file);
 * an existing file is replaced only when it is empty or of `kind` (its content tells:
 * sp_cli_file_kind), or with force (the command's --force). Prints the error naming opt
 * and path and returns false otherwise (the command exits 2). */
bool sp_cli_output_check(const char *opt, const char *path, sp_cli_kind kind, bool force,
                         const sp_cli_file *inputs, size_t ninputs);
typedef struct sp_cli_output {
  const char *opt, *path;
  char tmp[PATH_MAX + 64]; /* the temporary file, "" once renamed or removed (direct:
                              the output itself) */
  FILE *f;                 /* open on tmp; a writer that takes a file name: fclose(f),
                              f = NULL, then write tmp */
  bool direct;             /* an existing device or FIFO, written in place */
  int slot;
} sp_cli_output;
/* A temporary file next to path, open for writing (o->f). */
bool sp_cli_output_begin(sp_cli_output *o, const char *opt, const char *path);
/* Flushed, fsync'ed, renamed onto path (and the directory fsync'ed). false with a
 * message ("OPT PATH: cannot write: ...") and the temporary file removed otherwise. */
bool sp_cli_output_commit(sp_cli_output *o);
/* Removes the temporary file (an error of the caller's). */
void sp_cli_output_abort(sp_cli_output *o);
/* begin + len bytes + commit. */
bool sp_cli_output_write(const char *opt, const char *path, const void *data, size_t len);

/* ---- the reference host (host.c) ---------------------------------------------------
 * The CLI loads the module exactly as a daemon does: dlopen, dlsym of
 * SEALPROV_ENTRY_SYMBOL, init with the ABI version it was built against and a host
 * table whose log callback is sp_cli_module_log. */

/* Where the module is: --plugin, else $SEALPROV_PLUGIN if set and not empty, else the
 * module of the build tree this program runs from (../plugin/.libs/sealprov.so next to
 * /proc/self/exe) when that file exists, else the installed module (SP_DEFAULT_PLUGIN). */
const char *sp_cli_plugin_path(void);
/* The build tree this program runs from (the directory above tools/), or NULL. */
const char *sp_cli_build_tree(void);
/* The INI file: `ini` (-c) if not NULL, else $SEALPROV_CONFIG if set and not empty,
 * else, in a build tree, the sample conf/sealprov.ini of its source tree, else the
 * installed sample (SP_DEFAULT_CONFIG). */
const char *sp_cli_config_path(const char *ini);
/* Where sp_cli_config_path(ini) took the file from, for messages ("from $SEALPROV_CONFIG"). */
const char *sp_cli_config_source(const char *ini);

typedef struct sp_cli_host {
  void *dl;
  const sealprov_vtable *vt;
  sealprov_provider *p; /* after sp_cli_host_open */
  char path[4096];      /* the module file loaded */
} sp_cli_host;

/* Whether the INI file at path may be one (sp_cli_file_is: not a .params, .spa, ...);
 * false after the message. sp_cli_host_open checks it. */
bool sp_cli_ini_kind(const char *path);
/* dlopen + init. On failure prints why to stderr and returns false (h is cleared). */
bool sp_cli_host_load(sp_cli_host *h);
/* load + open(ini), where ini is what sp_cli_config_path(ini) gives. A file that is not
 * there is reported with where it came from and how to name another; the module's own
 * refusal as "open INI: <status>: <detail>". */
bool sp_cli_host_open(sp_cli_host *h, const char *ini);
/* load + open of a provider on one CPU device (verify, and proofs checked apart): an INI
 * written to a temporary file, removed once open returned. */
bool sp_cli_host_open_cpu(sp_cli_host *h);
/* close (if opened) + dlclose. Safe on a cleared or failed h. */
void sp_cli_host_close(sp_cli_host *h);
/* The provider's stats() text (malloc'd), or NULL from a module without stats() (a
 * table of test stand-ins may leave it NULL) or when it fails. */
char *sp_cli_stats_text(const sp_cli_host *h);
/* The value of label `key` in a metric line's {...} into out (escapes undone); false
 * when the line has no such label. */
bool sp_cli_label_value(const char *line, const char *key, char *out, size_t cap);

/* ---- messages, UTF-8, JSON out (cli_base.c) ----------------------------------------
 * Every message of the CLI on stderr has one of three shapes:
 *   sealprov CMD: error: ...      sp_cli_error: the command fails (exit 1 or 2)
 *   sealprov CMD: warning: ...    sp_cli_warn: it goes on
 *   sealprov CMD: ...             sp_cli_note: what it does (progress; only when
 *                                 sp_cli_progress is set)
 * CMD is sp_cli_cmd ("prove", "bench gpu"), set by main.c before the command runs;
 * without one the prefix is "sealprov:". Messages of the module come through the log
 * callback as "sealprov: [module LEVEL] ...". Every message is written as valid UTF-8,
 * whatever bytes a file name or argument holds: a byte that is not part of valid UTF-8
 * is shown as \xNN (lower-case hex, as the module's own messages show it). */
extern const char *sp_cli_cmd;
/* Progress lines on stderr: on when stderr is a terminal; --progress / --no-progress
 * force it, -q clears it. */
extern bool sp_cli_progress;
#if defined(__GNUC__)
#define SP_CLI_PRINTF __attribute__((format(printf, 1, 2)))
#else
#define SP_CLI_PRINTF
#endif
void sp_cli_error(const char *fmt, ...) SP_CLI_PRINTF;

/* `sealprov` holds the host commands only; a developer command or mode (setup, inspect,
 * wtns, prove --zkey, verify of snarkjs JSON) runs in the program sealprov-kit, with the
 * same command line: this replaces the process with it (main.c; the benchmark commands
 * go to sealprov-bench the same way). Returns 2 with a message when it cannot, or -1 in
 * sealprov-kit itself. */
int sp_cli_run_kit(void);
void sp_cli_warn(const char *fmt, ...) SP_CLI_PRINTF;
void sp_cli_note(const char *fmt, ...) SP_CLI_PRINTF;

/* The one UTF-8 validator of the CLI: the length (1..4) of the well-formed UTF-8
 * sequence at s, or 0 when the byte at s does not start one (overlong forms, surrogates
 * and code points past U+10FFFF are not well formed; a NUL ends every sequence). */
size_t sp_cli_utf8_len(const char *s);
/* Writes s with every byte that is not part of valid UTF-8 as \xNN. */
void sp_cli_put_utf8(FILE *f, const char *s);
/* s into out (outlen bytes, always terminated) the same way, cut at a whole character;
 * returns out. For messages built in a buffer (the JSON reader's). */
const char *sp_cli_escape(const char *s, char *out, size_t outlen);
/* Writes s as a JSON string literal (quotes included, control characters escaped; a
 * byte that is not part of valid UTF-8 becomes \u00NN, so the JSON stays valid). */
void sp_cli_json_str(FILE *f, const char *s);

/* "s" unless n is 1: "1 proof", "2 proofs". */
static inline const char *sp_cli_plural(uint64_t n) { return n == 1 ? "" : "s"; }

/* ---- the clocks (cli_base.c) ------------------------------------------------------- */
/* Milliseconds on the monotonic clock (differences only). */
double sp_cli_now_ms(void);
/* CPU time of the whole process, every thread, in ms: next to wall time it shows how
 * much of a shared machine a run had. */
double sp_cli_cpu_ms(void);
/* The median of v[0..n) (sorted in place; the mean of the middle two for even n), 0 for
 * n = 0: the figure the benches and soak report of repeated runs. */
double sp_cli_median(double *v, size_t n);

/* ---- progress of a long step (cli_base.c) ------------------------------------------
 * Under --progress, "sealprov CMD: WHAT: 42 % (3 of 7), 12.3 s, ETA 17 s": at most a
 * line a second, and the last one; nothing without --progress. The ETA assumes the rest
 * goes at the pace so far. */
typedef struct sp_cli_meter {
  char what[160];
  double t0, last;
  bool shown_end;
} sp_cli_meter;
void sp_cli_meter_start(sp_cli_meter *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* done of total steps (unit "bytes": in B, KB, MB or GB as the total needs; NULL: as
 * counts). */
void sp_cli_meter_step(sp_cli_meter *m, double done, double total, const char *unit);
/* "3.7 of 6.1 MB": both in the unit the total needs. */
void sp_cli_bytes_of(char *buf, size_t len, double done, double total);

/* ---- the module's log lines (cli_base.c) -------------------------------------------
 * The host log callback of the CLI: "sealprov: [module LEVEL] msg" on stderr, each line
 * whole when the module's threads log at once. Two kinds of lines are the CLI's to
 * report in its own words unless -v asked for the module's log:
 *  - under --progress the module's load progress (INFO "srs_load FILE: 42.0% ...") is
 *    shown as the command's progress, with an ETA;
 *  - a failed partition's and job's WARN lines ("partition P of job J: ...", "job J
 *    ended: ...") of a job the command reports itself (sp_cli_job_watch) are held, and
 *    sp_cli_job_reported drops those its own error line repeats, so a failure is said
 *    once. */
void sp_cli_module_log(void *user, int level, const char *msg);
/* What the load progress lines call the file being loaded: "the parameters" (default), or
 * "the verifying key" (verify sets it before vk_load). */
extern const char *sp_cli_load_noun;
/* The log level a host table gets: sp_cli_log_level, or INFO under --progress (the load
 * progress lines; the rest of INFO is dropped unless -v). */
int sp_cli_host_log_level(void);
void sp_cli_job_watch(sealprov_job_id id);
/* The job's end is reported (detail: the text the CLI's error line shows, "" when it
 * succeeded): prints the held lines it does not repeat. */
void sp_cli_job_reported(sealprov_job_id id, const char *detail);

#endif
