/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_devices.c -- `sealprov devices` and `sealprov check-config`: open the module
 * with an INI file, as a daemon would, and show what every device resolved and bound
 * to. Opening is the check: the module parses, resolves every selector, opens every
 * device and binds every worker before open() returns. */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *state_name(int s) {
  switch (s) {
    case SEALPROV_DEVICE_READY: return "ready";
    case SEALPROV_DEVICE_BUSY: return "busy";
    case SEALPROV_DEVICE_QUARANTINED: return "quarantined";
    case SEALPROV_DEVICE_STOPPED: return "stopped";
    default: return "?";
  }
}

static const char *or_dash(const char *s) { return s[0] ? s : "-"; }

#define CLI_MAX_SKIPPED 64 /* an INI has at most 64 device sections */

/* "gen5x16", "gen4x8(max:gen5x16)" when the link runs below what it can do, "-" when
 * sysfs says nothing; a part it does not know is "?". */
static void format_link(char *buf, size_t cap, const sealprov_device_info *d) {
  if (d->pcie_gen == 0 && d->pcie_width == 0) {
    snprintf(buf, cap, "-");
    return;
  }
  char cur[32], max[32], g[12], w[12];
  snprintf(g, sizeof g, "%u", d->pcie_gen);
  snprintf(w, sizeof w, "%u", d->pcie_width);
  snprintf(cur, sizeof cur, "gen%sx%s", d->pcie_gen ? g : "?", d->pcie_width ? w : "?");
  snprintf(g, sizeof g, "%u", d->pcie_max_gen);
  snprintf(w, sizeof w, "%u", d->pcie_max_width);
  snprintf(max, sizeof max, "gen%sx%s", d->pcie_max_gen ? g : "?", d->pcie_max_width ? w : "?");
  bool slower = (d->pcie_max_gen > d->pcie_gen && d->pcie_gen) ||
                (d->pcie_max_width > d->pcie_width && d->pcie_width);
  if (slower)
    snprintf(buf, cap, "%s(max:%s)", cur, max);
  else
    snprintf(buf, cap, "%s", cur);
}

/* "9.0" for 90; "-" for CPU devices and modules older than ABI 1.3. */
static void format_cc(char *buf, size_t cap, int32_t cc) {
  if (cc > 0)
    snprintf(buf, cap, "%d.%d", cc / 10, cc % 10);
  else
    snprintf(buf, cap, "-");
}

/* A module older than ABI 1.4 says nothing of capacity: its entries read as this. */
#define CAP_UNKNOWN INT32_MIN

/* "26/27": the largest sealing-shaped partition (log2 of its domain) a device proves
 * with its parameters resident / streamed; "any" with no bound, "-" for none, "?" from
 * a module older than ABI 1.4. */
static void format_fit(char *buf, size_t cap, const sealprov_device_info *d) {
  char r[8], s[8];
  int32_t v[2] = {d->max_log_resident, d->max_log_streamed};
  char *o[2] = {r, s};
  if (v[1] == CAP_UNKNOWN) {
    snprintf(buf, cap, "?");
    return;
  }
  if (v[1] < 0) {
    snprintf(buf, cap, "any");
    return;
  }
  for (int i = 0; i < 2; i++) snprintf(o[i], sizeof r, v[i] > 0 ? "%d" : "-", v[i]);
  snprintf(buf, cap, "%s/%s", r, s);
}

/* The table's columns: the default form fits 80 columns (what tells the devices apart and
 * how they are bound); --wide has every column. Each column is as wide as its widest
 * cell. */
enum {
  COL_INDEX,
  COL_SECTION,
  COL_TYPE,
  COL_NAME,
  COL_UUID,
  COL_PCI,
  COL_NUMA,
  COL_CPUS,
  COL_PCIE,
  COL_ORDINAL,
  COL_CONFIRMED,
  COL_WORKERS,
  COL_CC,
  COL_CODE,
  COL_FIT,
  COL_STATE,
  NCOLS
};
static const struct {
  const char *head;
  bool right; /* numbers */
  bool narrow;
} cols[NCOLS] = {
    [COL_INDEX] = {"index", false, true},
    [COL_SECTION] = {"section", false, true},
    [COL_TYPE] = {"type", false, true},
    [COL_NAME] = {"name", false, true},
    [COL_UUID] = {"uuid", false, false},
    [COL_PCI] = {"pci", false, true},
    [COL_NUMA] = {"numa", true, false},
    [COL_CPUS] = {"cpus", true, false},
    [COL_PCIE] = {"pcie", false, false},
    [COL_ORDINAL] = {"ordinal", true, true},
    [COL_CONFIRMED] = {"confirmed", true, false},
    [COL_WORKERS] = {"workers", true, true},
    [COL_CC] = {"cc", false, false},
    [COL_CODE] = {"code", false, false},
    [COL_FIT] = {"2^k r/s", false, false},
    [COL_STATE] = {"state", false, true},
};
#define CELL 80

static void cells_of(const sealprov_device_info *d, char c[NCOLS][CELL]) {
  snprintf(c[COL_INDEX], CELL, "%d", d->index);
  snprintf(c[COL_SECTION], CELL, "%s", d->section);
  snprintf(c[COL_TYPE], CELL, "%s", d->type);
  snprintf(c[COL_NAME], CELL, "%s", d->name);
  snprintf(c[COL_UUID], CELL, "%s", or_dash(d->uuid));
  snprintf(c[COL_PCI], CELL, "%s", or_dash(d->pci_bus_id));
  if (d->numa_node < 0)
    snprintf(c[COL_NUMA], CELL, "-");
  else
    snprintf(c[COL_NUMA], CELL, "%d", d->numa_node);
  if (d->bound_cpus == 0)
    snprintf(c[COL_CPUS], CELL, "-");
  else
    snprintf(c[COL_CPUS], CELL, "%u", d->bound_cpus);
  format_link(c[COL_PCIE], CELL, d);
  if (d->ordinal < 0)
    snprintf(c[COL_ORDINAL], CELL, "-");
  else
    snprintf(c[COL_ORDINAL], CELL, "%d", d->ordinal);
  if (d->confirmed_ordinal < 0)
    snprintf(c[COL_CONFIRMED], CELL, "-");
  else
    snprintf(c[COL_CONFIRMED], CELL, "%d", d->confirmed_ordinal);
  snprintf(c[COL_WORKERS], CELL, "%u", d->workers);
  format_cc(c[COL_CC], CELL, d->compute_capability);
  snprintf(c[COL_CODE], CELL, "%s", or_dash(d->code));
  format_fit(c[COL_FIT], CELL, d);
  snprintf(c[COL_STATE], CELL, "%s", state_name(d->state));
}

static void print_row(FILE *f, const char (*c)[CELL], const size_t *w, bool wide) {
  bool first = true;
  for (int k = 0; k < NCOLS; k++) {
    if (!wide && !cols[k].narrow) continue;
    if (!first) fputc(' ', f);
    bool last = k == COL_STATE;
    if (cols[k].right)
      fprintf(f, "%*s", (int)w[k], c[k]);
    else
      fprintf(f, "%-*s", last ? 0 : (int)w[k], c[k]);
    first = false;
  }
  fputc('\n', f);
}

static void print_table(FILE *f, const sealprov_device_info *d, size_t n, bool wide) {
  char(*cell)[NCOLS][CELL] = calloc(n + 1, sizeof *cell);
  if (cell == NULL) {
    sp_cli_error("out of memory");
    return;
  }
  size_t w[NCOLS];
  for (int k = 0; k < NCOLS; k++) {
    snprintf(cell[0][k], CELL, "%s", cols[k].head);
    w[k] = strlen(cols[k].head);
  }
  for (size_t i = 0; i < n; i++) {
    cells_of(&d[i], cell[i + 1]);
    for (int k = 0; k < NCOLS; k++)
      if (strlen(cell[i + 1][k]) > w[k]) w[k] = strlen(cell[i + 1][k]);
  }
  for (size_t i = 0; i <= n; i++) print_row(f, (const char(*)[CELL])cell[i], w, wide);
  free(cell);
}

/* A section the module left out at open ([provider] unseen_gpus = skip), read from its
 * sealprov_device_skipped metric: stats() is where a host sees them. */
typedef struct skipped_section {
  char section[64];
  char selector[96];
} skipped_section;

/* The skipped sections of an opened provider (none from a module without the metric,
 * or without stats() at all). */
static size_t list_skipped(const sp_cli_host *h, skipped_section *out, size_t cap) {
  size_t n = 0;
  char *text = sp_cli_stats_text(h);
  if (text == NULL) return 0;
  static const char metric[] = "sealprov_device_skipped{";
  for (char *line = text; line != NULL && *line != '\0' && n < cap;) {
    char *nl = strchr(line, '\n');
    if (nl != NULL) *nl = '\0';
    if (strncmp(line, metric, sizeof metric - 1) == 0 &&
        sp_cli_label_value(line, "section", out[n].section, sizeof out[n].section) &&
        sp_cli_label_value(line, "selector", out[n].selector, sizeof out[n].selector))
      n++;
    line = nl != NULL ? nl + 1 : NULL;
  }
  free(text);
  return n;
}

static void print_skipped(FILE *f, const skipped_section *k, size_t n) {
  const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "skipped [%s] device = ", k[i].section);
    sp_cli_put_utf8(f, k[i].selector);
    fprintf(f, ": this process does not see that GPU (");
    if (cvd != NULL) {
      fprintf(f, "CUDA_VISIBLE_DEVICES=");
      sp_cli_put_utf8(f, cvd);
    } else {
      fprintf(f, "CUDA_VISIBLE_DEVICES is not set");
    }
    fprintf(f, "; [provider] unseen_gpus = skip)\n");
  }
}

static void print_json(const sp_cli_host *h, const char *ini, const sealprov_device_info *d,
                       size_t n, const skipped_section *k, size_t nk) {
  printf("{\"ok\": true, \"module\": ");
  sp_cli_json_str(stdout, h->path);
  printf(", \"version\": ");
  sp_cli_json_str(stdout, h->vt->version());
  printf(", \"config\": ");
  sp_cli_json_str(stdout, ini);
  printf(", \"devices\": [");
  for (size_t i = 0; i < n; i++) {
    printf("%s{\"index\": %d, \"section\": ", i ? ", " : "", d[i].index);
    sp_cli_json_str(stdout, d[i].section);
    printf(", \"type\": ");
    sp_cli_json_str(stdout, d[i].type);
    printf(", \"name\": ");
    sp_cli_json_str(stdout, d[i].name);
    printf(", \"uuid\": ");
    sp_cli_json_str(stdout, d[i].uuid);
    printf(", \"pci_bus_id\": ");
    sp_cli_json_str(stdout, d[i].pci_bus_id);
    printf(
        ", \"ordinal\": %d, \"confirmed_ordinal\": %d, \"workers\": %u, \"state\": \"%s\", "
        "\"memory_limit\": %llu, \"numa_node\": %d, \"bound_cpus\": %u, \"pcie\": "
        "{\"gen\": %u, \"width\": %u, \"max_gen\": %u, \"max_width\": %u}, "
        "\"compute_capability\": %d, \"code\": ",
        d[i].ordinal, d[i].confirmed_ordinal, d[i].workers, state_name(d[i].state),
        (unsigned long long)d[i].memory_limit, d[i].numa_node, d[i].bound_cpus, d[i].pcie_gen,
        d[i].pcie_width, d[i].pcie_max_gen, d[i].pcie_max_width, d[i].compute_capability);
    sp_cli_json_str(stdout, d[i].code);
    if (d[i].max_log_streamed != CAP_UNKNOWN)
      printf(
          ", \"device_memory\": %llu, \"largest_partition\": {\"resident\": %d, \"tables\": "
          "%d, \"streamed\": %d}",
          (unsigned long long)d[i].device_memory, d[i].max_log_resident, d[i].max_log_tables,
          d[i].max_log_streamed);
    printf("}");
  }
  printf("], \"skipped\": [");
  for (size_t i = 0; i < nk; i++) {
    printf("%s{\"section\": ", i ? ", " : "");
    sp_cli_json_str(stdout, k[i].section);
    printf(", \"selector\": ");
    sp_cli_json_str(stdout, k[i].selector);
    printf("}");
  }
  printf("]}\n");
}

/* The device table of an opened provider; 0 or an exit status (h is closed then). */
static int list_devices(sp_cli_host *h, sealprov_device_info **out, size_t *n) {
  size_t count = 0;
  int st = h->vt->devices(h->p, NULL, 0, &count);
  sealprov_device_info *d = calloc(count ? count : 1, sizeof *d);
  for (size_t i = 0; d != NULL && i < count; i++) d[i].struct_size = sizeof *d;
  if (st == SEALPROV_OK && d != NULL) st = h->vt->devices(h->p, d, count, &count);
  if (st != SEALPROV_OK || d == NULL) {
    sp_cli_error("devices(): %s: %s", h->vt->strerror(st ? st : SEALPROV_ERR_NO_MEMORY),
                 h->vt->last_error());
    free(d);
    sp_cli_host_close(h);
    return 1;
  }
  /* A module older than this tool writes entries of its own, smaller size, one after the
   * other (it says which in struct_size): spread them out to ours, the fields it does
   * not have reading as unknown. Last first, so no entry overwrites one not yet moved. */
  size_t got = count > 0 ? d[0].struct_size : sizeof *d;
  if (got < sizeof *d && got >= offsetof(sealprov_device_info, memory_limit)) {
    for (size_t i = count; i-- > 0;) {
      memmove((char *)&d[i], (char *)d + i * got, got);
      memset((char *)&d[i] + got, 0, sizeof *d - got);
      if (got <= offsetof(sealprov_device_info, numa_node)) d[i].numa_node = -1;
      if (got <= offsetof(sealprov_device_info, compute_capability)) d[i].compute_capability = -1;
      if (got <= offsetof(sealprov_device_info, max_log_resident))
        d[i].max_log_resident = d[i].max_log_tables = d[i].max_log_streamed = CAP_UNKNOWN;
    }
  } else if (got < sizeof *d) {
    sp_cli_error("devices(): the module wrote entries of %zu bytes, too few to read", got);
    free(d);
    sp_cli_host_close(h);
    return 1;
  }
  *out = d;
  *n = count;
  return 0;
}

/* Opens the module with ini (-c, or NULL) and fetches the device table; 0 or an exit
 * status. */
static int open_and_list(sp_cli_host *h, const char *ini, sealprov_device_info **out, size_t *n) {
  if (!sp_cli_host_open(h, ini)) return 1;
  return list_devices(h, out, n);
}

enum { O_WIDE = 256 };
static const struct option wide_opt[] = {{"wide", no_argument, NULL, O_WIDE}, {NULL, 0, NULL, 0}};

static void devices_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov devices [--plugin MODULE] [-c INI] [--wide | --json]\n"
          "  Opens the module with INI (default $SEALPROV_CONFIG, else in a build tree the\n"
          "  sample conf/sealprov.ini of its sources, else " SP_DEFAULT_CONFIG
          ")\n"
          "  and prints each device, in 80 columns: index, INI section, type, name, PCI bus\n"
          "  id, the CUDA ordinal its selector resolved to, workers and state.\n"
          "  --wide adds every other column: the UUID, the NUMA node, the CPUs its workers\n"
          "  are bound to, its PCIe link (generation x lanes, and what it could do when it\n"
          "  runs slower; from sysfs), the ordinal its workers confirmed with cudaGetDevice,\n"
          "  the compute capability (cc), the device code the module runs there (code:\n"
          "  sm_90 for a binary built for it, compute_121 (JIT) for PTX the driver compiled;\n"
          "  a GPU the module has no code for is refused by open, naming --with-cuda-arch)\n"
          "  and the largest sealing-shaped partition it proves (2^k r/s: k with the\n"
          "  parameters resident / streamed; any: no bound; -: none).\n"
          "  --json has every field: numa_node (-1: unknown or one node), bound_cpus (0: not\n"
          "  bound), pcie {gen, width, max_gen, max_width} (0: unknown),\n"
          "  compute_capability (major x 10 + minor, -1: CPU), code, device_memory (bytes\n"
          "  it proves in; 0: no bound) and largest_partition {resident, tables, streamed}\n"
          "  (k; 0: none; -1: no bound). Sections left out because this process does not\n"
          "  see their GPU ([provider] unseen_gpus = skip) follow the table as \"skipped\"\n"
          "  lines (--json: \"skipped\", each with its section and selector).\n");
}

int cmd_devices(int argc, char **argv) {
  sp_cli_args a = {.usage = devices_usage,
                   .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON,
                   .opts = wide_opt};
  bool wide = false;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0)
    if (c == O_WIDE) wide = true;
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 0, 0, "")) return a.status;
  const char *ini = sp_cli_config_path(a.config);
  sp_cli_host h;
  sealprov_device_info *d = NULL;
  size_t n = 0;
  int rc = open_and_list(&h, a.config, &d, &n);
  if (rc != 0) return rc;
  skipped_section k[CLI_MAX_SKIPPED];
  size_t nk = list_skipped(&h, k, CLI_MAX_SKIPPED);
  if (a.json) {
    print_json(&h, ini, d, n, k, nk);
  } else {
    print_table(stdout, d, n, wide);
    print_skipped(stdout, k, nk);
  }
  free(d);
  sp_cli_host_close(&h);
  return 0;
}

static void check_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov check-config [--plugin MODULE] [-q] [--wide | --json] [-c INI | INI]\n"
          "  Opens the module with INI (given with -c or as the operand; default as for\n"
          "  `sealprov devices`) exactly as a host would (parse, resolve every device, open\n"
          "  the devices, bind every worker), prints the device table and closes. Exit\n"
          "  status 0 if the module accepts the file, 1 with the module's message (file,\n"
          "  line, key and value) if not. The table is `sealprov devices`'s (--wide: every\n"
          "  column). -q: no table. --json prints one object either way: {\"ok\": true,\n"
          "  \"devices\": [...], \"skipped\": [...]} or {\"ok\": false, \"status\": ...,\n"
          "  \"error\": ...} (the message is on stderr too). Sections whose GPU this process\n"
          "  does not see ([provider] unseen_gpus = skip) are listed as skipped: run it with\n"
          "  the CUDA_VISIBLE_DEVICES of the process that will use the INI.\n");
}

/* check-config --json when the module refuses the file (or cannot be loaded). */
static void print_json_refusal(const sp_cli_host *h, const char *ini, const char *status,
                               const char *detail) {
  printf("{\"ok\": false, \"module\": ");
  sp_cli_json_str(stdout, h->path[0] ? h->path : sp_cli_plugin_path());
  printf(", \"config\": ");
  sp_cli_json_str(stdout, ini);
  printf(", \"status\": ");
  sp_cli_json_str(stdout, status);
  printf(", \"error\": ");
  sp_cli_json_str(stdout, detail);
  printf("}\n");
}

int cmd_check_config(int argc, char **argv) {
  sp_cli_args a = {
      .usage = check_usage, .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON, .opts = wide_opt};
  bool wide = false;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0)
    if (c == O_WIDE) wide = true;
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 0, 1, "")) return a.status;
  if (a.first < argc) {
    if (a.config != NULL)
      return sp_cli_usage_error(&a, "two INI files: -c %s and %s", a.config, argv[a.first]);
    a.config = argv[a.first];
  }
  const char *ini = sp_cli_config_path(a.config);
  sp_cli_host h;
  sealprov_device_info *d = NULL;
  size_t n = 0;
  int rc;
  if (a.json) {
    /* Load and open here, so that a refusal is a JSON answer too. */
    memset(&h, 0, sizeof h);
    if (access(ini, F_OK) != 0 && errno == ENOENT) {
      sp_cli_host_open(&h, a.config); /* says that it is not there, and how to name one */
      print_json_refusal(&h, ini, "not found", "the configuration file is not there");
      return 1;
    }
    if (!sp_cli_ini_kind(ini)) {
      print_json_refusal(&h, ini, "not an INI file", "the file is of another kind (see stderr)");
      return 1;
    }
    if (!sp_cli_host_load(&h)) {
      print_json_refusal(&h, ini, "module not loaded",
                         "the module could not be loaded (see stderr)");
      return 1;
    }
    int st = h.vt->open(ini, &h.p);
    if (st != SEALPROV_OK) {
      char detail[2048];
      snprintf(detail, sizeof detail, "%s", h.vt->last_error());
      sp_cli_error("open %s: %s: %s", ini, h.vt->strerror(st), detail);
      h.p = NULL;
      print_json_refusal(&h, ini, h.vt->strerror(st), detail);
      sp_cli_host_close(&h);
      return 1;
    }
    rc = list_devices(&h, &d, &n);
  } else {
    rc = open_and_list(&h, a.config, &d, &n);
  }
  if (rc != 0) return rc;
  skipped_section k[CLI_MAX_SKIPPED];
  size_t nk = list_skipped(&h, k, CLI_MAX_SKIPPED);
  if (a.json) {
    print_json(&h, ini, d, n, k, nk);
  } else if (!sp_cli_quiet) {
    printf("%s: OK, %zu device%s", ini, n, sp_cli_plural(n));
    if (nk > 0) printf(", %zu section%s skipped", nk, sp_cli_plural(nk));
    printf("\n");
    print_table(stdout, d, n, wide);
    print_skipped(stdout, k, nk);
  }
  free(d);
  sp_cli_host_close(&h);
  return 0;
}
