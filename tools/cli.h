/* cli.h -- the `sealprov` command-line tool: subcommands and the reference-host
 * helpers they share.
 *
 * A subcommand is `int NAME(int argc, char **argv)` with argv[0] the command's own
 * name (e.g. "devices", or "cpu" for `bench cpu`) so it can run getopt_long with
 * optind = 0. It returns the process exit status: 0 success, 1 failure, 2 usage
 * error. Adding one: its prototype here, one line in main.c's table, its source in
 * the owner's tools fragment (tools_sealprov_SOURCES +=).
 */
#ifndef SEALPROV_TOOLS_CLI_H
#define SEALPROV_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "sealprov.h"

/* ---- subcommands ------------------------------------------------------------------ */
int cmd_devices(int argc, char **argv);       /* cmd_devices.c */
int cmd_check_config(int argc, char **argv);  /* cmd_devices.c */
int cmd_setup(int argc, char **argv);         /* cmd_setup.c (Groth16) */
int cmd_prove(int argc, char **argv);         /* cmd_prove.c */
int cmd_verify(int argc, char **argv);        /* cmd_verify.c */
int cmd_demo(int argc, char **argv);          /* cmd_demo.c */
int cmd_bench(int argc, char **argv);         /* cmd_bench.c: `bench` (Groth16 partitions) */
int cmd_stress(int argc, char **argv);        /* cmd_stress.c: concurrent jobs, all verified */
int cmd_soak(int argc, char **argv);          /* cmd_soak.c: long mixed traffic, memory sampled */
int cmd_inspect(int argc, char **argv);       /* cmd_inspect.c: .spa / .params / .vk contents */
int sp_cmd_bench_cpu(int argc, char **argv);  /* bench_cpu.c: `bench cpu` (curve library) */
int sp_cmd_bench_gpu(int argc, char **argv);  /* `bench gpu` (CUDA engine) */

/* ---- the reference host ------------------------------------------------------------
 * The CLI loads the module exactly as a daemon does: dlopen, dlsym of
 * SEALPROV_ENTRY_SYMBOL, init with the ABI version it was built against and a host
 * table whose log callback prints to stderr. */

/* Where the module is: `plugin` if not NULL, else $SEALPROV_PLUGIN if set and not
 * empty, else the module of the build tree this program runs from (../plugin/.libs/
 * sealprov.so next to /proc/self/exe) when that file exists, else the installed module
 * (SP_DEFAULT_PLUGIN). A global `--plugin PATH` given before the command sets
 * $SEALPROV_PLUGIN for the command (and sp_cli_plugin_global). */
const char *sp_cli_plugin_path(const char *plugin);
/* The module of the build tree next to this program, or NULL (not a build tree). */
const char *sp_cli_build_tree_plugin(void);
/* True when the global --plugin set $SEALPROV_PLUGIN (messages say "--plugin"). */
extern bool sp_cli_plugin_global;
/* The INI file: `ini` if not NULL, else $SEALPROV_CONFIG, else the installed sample
 * (SP_DEFAULT_CONFIG). */
const char *sp_cli_config_path(const char *ini);

/* Messages of the module up to this level reach stderr (SEALPROV_LOG_*; main.c sets
 * it from -q / -v / -vv; default WARN). */
extern int sp_cli_log_level;

typedef struct sp_cli_host {
  void *dl;
  const sealprov_vtable *vt;
  sealprov_provider *p;    /* after sp_cli_host_open */
  char path[4096];         /* the module file loaded */
} sp_cli_host;

/* dlopen + init. On failure prints why to stderr and returns false (h is cleared). */
bool sp_cli_host_load(sp_cli_host *h, const char *plugin);
/* load + open(ini). On failure prints "sealprov: open INI: <status>: <detail>". */
bool sp_cli_host_open(sp_cli_host *h, const char *plugin, const char *ini);
/* close (if opened) + dlclose. Safe on a cleared or failed h. */
void sp_cli_host_close(sp_cli_host *h);

/* Writes s as a JSON string literal (quotes included, control characters escaped; a
 * byte that is not part of valid UTF-8 becomes \u00NN, so the JSON stays valid). */
void sp_cli_json_str(FILE *f, const char *s);
/* Writes s with every byte that is not part of valid UTF-8 shown as \xNN. */
void sp_cli_put_utf8(FILE *f, const char *s);
/* The host log callback of the CLI and bench: "sealprov: [module LEVEL] msg" on stderr,
 * each line whole when the module's threads log at once. */
void sp_cli_module_log(void *user, int level, const char *msg);

/* ---- messages (tools/json.c: the stand-alone benchmarks share them) ----------------
 * Every message of the CLI on stderr has one of three shapes:
 *   sealprov CMD: error: ...      sp_cli_error: the command fails (exit 1 or 2)
 *   sealprov CMD: warning: ...    sp_cli_warn: it goes on
 *   sealprov CMD: ...             sp_cli_note: what it does (progress; only when
 *                                 sp_cli_progress is set)
 * CMD is sp_cli_cmd ("prove", "bench gpu"), set by main.c before the command runs;
 * without one the prefix is "sealprov:". Messages of the module come through the log
 * callback as "sealprov: [module LEVEL] ...". Every message is written as valid UTF-8
 * (sp_cli_put_utf8), whatever bytes a file name or argument holds. */
extern const char *sp_cli_cmd;
/* Progress lines on stderr: main.c sets it when stderr is a terminal (--progress /
 * --no-progress force it), and clears it for -q. */
extern bool sp_cli_progress;
#if defined(__GNUC__)
#define SP_CLI_PRINTF __attribute__((format(printf, 1, 2)))
#else
#define SP_CLI_PRINTF
#endif
void sp_cli_error(const char *fmt, ...) SP_CLI_PRINTF;
void sp_cli_warn(const char *fmt, ...) SP_CLI_PRINTF;
void sp_cli_note(const char *fmt, ...) SP_CLI_PRINTF;

#endif
