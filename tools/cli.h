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
int sp_cmd_bench_cpu(int argc, char **argv);  /* bench_cpu.c: `bench cpu` (curve library) */
int sp_cmd_bench_gpu(int argc, char **argv);  /* `bench gpu` (CUDA engine) */

/* ---- the reference host ------------------------------------------------------------
 * The CLI loads the module exactly as a daemon does: dlopen, dlsym of
 * SEALPROV_ENTRY_SYMBOL, init with the ABI version it was built against and a host
 * table whose log callback prints to stderr. */

/* Where the module is: `plugin` if not NULL, else $SEALPROV_PLUGIN if set and not
 * empty, else the installed module (SP_DEFAULT_PLUGIN). A global `--plugin PATH`
 * given before the command sets $SEALPROV_PLUGIN for the command. */
const char *sp_cli_plugin_path(const char *plugin);
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

/* Writes s as a JSON string literal (quotes included, control characters escaped). */
void sp_cli_json_str(FILE *f, const char *s);

#endif
