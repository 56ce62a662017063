/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_topo.c -- NUMA topology and worker placement (plugin/runtime/topo.c, pool.c) on CPU
 * devices, against fake sysfs trees written by tests/runtime/fake_sysfs.sh into a
 * temporary directory (SEALPROV_SYSFS_ROOT points the module at them).
 *
 * The placement checks read back what each worker really got: the test engine's
 * worker_bind (which pool.c calls after placing the thread) records the thread's
 * sched_getaffinity, and so does a thread it starts (host work inherits the mask).
 * The expected binding is the node's cpulist intersected with the CPUs this process
 * may use; the trees are written from those CPUs, so the test means the same on any
 * machine. */
#include <config.h>

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/device_table.h"
#include "engine/engine.h"
#include "base/log.h"
#include "runtime/sp_sched.h"
#include "runtime/topo.h"

static char tmpdir[256];

/* ---- fake trees ------------------------------------------------------------------ */

static void run_sh(const char *cmd) {
  int rc = system(cmd);
  ck_assert_msg(rc == 0, "%s: exit %d", cmd, rc);
}

/* Writes the fake tree into tmpdir/NAME with the given node cpulists; returns its path. */
static const char *fake_tree(const char *name, const char *n0, const char *n1, const char *n2) {
  static char path[512];
  const char *src = getenv("top_srcdir");
  char cmd[2048];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  snprintf(cmd, sizeof cmd, "sh '%s/tests/runtime/fake_sysfs.sh' '%s' '%s' '%s' '%s'",
           src ? src : "..", path, n0, n1 ? n1 : "", n2 ? n2 : "");
  run_sh(cmd);
  return path;
}

/* The first two CPUs this process may use (b == a on a one-CPU machine). */
static void allowed_cpus(cpu_set_t *all, int *a, int *b) {
  ck_assert_int_eq(sched_getaffinity(0, sizeof *all, all), 0);
  *a = *b = -1;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, all)) continue;
    if (*a < 0)
      *a = c;
    else if (*b < 0)
      *b = c;
  }
  ck_assert_int_ge(*a, 0);
  if (*b < 0) *b = *a;
}

/* ---- log capture ----------------------------------------------------------------- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[16384];

static void on_log(void *user, int level, const char *msg) {
  (void)user;
  pthread_mutex_lock(&log_mu);
  size_t n = strlen(log_text);
  snprintf(log_text + n, sizeof log_text - n, "%s %s\n", level == SEALPROV_LOG_WARN ? "W" : "-",
           msg);
  pthread_mutex_unlock(&log_mu);
}

/* true when a warning was logged (call with log_mu held or after the threads ended) */
static bool has_warning(void) {
  return strncmp(log_text, "W ", 2) == 0 || strstr(log_text, "\nW ") != NULL;
}

static void setup(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/sp-topo-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
  log_text[0] = '\0';
  sealprov_host h = {.struct_size = sizeof h, .log_level = SEALPROV_LOG_DEBUG, .log = on_log};
  sp_log_set_host(&h);
}

static void teardown(void) {
  sp_log_set_host(NULL);
  unsetenv("SEALPROV_SYSFS_ROOT");
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "test_topo: could not remove %s\n", tmpdir);
}

/* ---- an engine that records where its threads run --------------------------------- */

#define MAXDEV 8
#define MAXW 4
typedef struct seen {
  atomic_int done;
  cpu_set_t worker, child;
} seen;
static seen seen_at[MAXDEV][MAXW];

typedef struct rec_dev {
  unsigned index;
  int ordinal;
} rec_dev;

static int rec_open(const struct sp_device_cfg *cfg, void **dev, char *err, size_t errlen) {
  rec_dev *d = calloc(1, sizeof *d);
  if (d == NULL) {
    snprintf(err, errlen, "no memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  d->index = cfg->index;
  d->ordinal = cfg->type == SP_DEVICE_CUDA ? cfg->ordinal : -1;
  *dev = d;
  return SEALPROV_OK;
}

static void rec_close(void *dev) { free(dev); }

static void *child_main(void *arg) {
  cpu_set_t *out = arg;
  CPU_ZERO(out);
  if (sched_getaffinity(0, sizeof *out, out) != 0) CPU_ZERO(out);
  return NULL;
}

static int rec_bind(void *dev, unsigned worker, int *confirmed, char *err, size_t errlen) {
  rec_dev *d = dev;
  *confirmed = d->ordinal;
  if (d->index >= MAXDEV || worker >= MAXW) {
    snprintf(err, errlen, "test engine: device %u worker %u out of range", d->index, worker);
    return SEALPROV_ERR_INTERNAL;
  }
  seen *s = &seen_at[d->index][worker];
  CPU_ZERO(&s->worker);
  if (sched_getaffinity(0, sizeof s->worker, &s->worker) != 0) CPU_ZERO(&s->worker);
  /* a thread for host work, started the way bls_parallel_for starts them */
  pthread_t t;
  if (pthread_create(&t, NULL, child_main, &s->child) == 0)
    pthread_join(t, NULL);
  else
    CPU_ZERO(&s->child);
  atomic_store(&s->done, 1);
  return SEALPROV_OK;
}

static int rec_execute(void *dev, const sp_task *t, void *prep, uint8_t proof[192], char *err,
                       size_t errlen) {
  (void)dev;
  (void)t;
  (void)prep;
  (void)err;
  (void)errlen;
  memset(proof, 0, 192);
  return SEALPROV_OK;
}

static const sp_engine_ops rec_engine = {
    .name = "rec",
    .device_open = rec_open,
    .device_close = rec_close,
    .worker_bind = rec_bind,
    .execute = rec_execute,
};

/* ---- device tables --------------------------------------------------------------- */

static sp_config *new_cfg(void) {
  sp_config *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  snprintf(c->path, sizeof c->path, "test_topo (in memory)");
  c->log_level = SEALPROV_LOG_DEBUG;
  c->max_attempts = 1;
  c->timeline_events = 64;
  return c;
}

/* A CPU device (node < 0: no numa_node key) or, with bus, a "cuda" device the test
 * engine stands in for, with that PCI bus id. */
static void add_dev(sp_config *c, int node, const char *bus, unsigned workers) {
  sp_device_cfg *d = &c->devices[c->ndevices];
  d->index = (unsigned)c->ndevices;
  snprintf(d->section, sizeof d->section, "d%zu", c->ndevices);
  d->workers = workers;
  d->ordinal = -1;
  if (bus != NULL) {
    d->type = SP_DEVICE_CUDA;
    d->selector_kind = SP_SELECT_PCI;
    snprintf(d->selector, sizeof d->selector, "%s", bus);
    d->ordinal = (int)c->ndevices;
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", bus);
  }
  if (node >= 0) {
    d->numa_node_set = true;
    d->numa_node = (unsigned)node;
  }
  c->ndevices++;
}

static sp_sched *start(sp_config *c) {
  const sp_engine_ops *engines[SP_MAX_DEVICES];
  for (size_t i = 0; i < c->ndevices; i++) engines[i] = &rec_engine;
  memset(seen_at, 0, sizeof seen_at);
  sp_sched *s = NULL;
  char err[512] = "";
  int st = sp_sched_create(c, engines, NULL, &s, err, sizeof err);
  ck_assert_msg(st == SEALPROV_OK, "sp_sched_create: %s: %s", sp_status_name(st), err);
  return s;
}

static void fmt(const cpu_set_t *s, char *buf, size_t cap) { sp_cpulist_format(s, buf, cap); }

/* Every worker of device dev (and the thread each started) runs on exactly want. */
static void assert_binding(unsigned dev, unsigned workers, const cpu_set_t *want) {
  for (unsigned w = 0; w < workers; w++) {
    seen *s = &seen_at[dev][w];
    ck_assert_int_eq(atomic_load(&s->done), 1);
    char a[256], b[256], c[256];
    fmt(want, a, sizeof a);
    fmt(&s->worker, b, sizeof b);
    fmt(&s->child, c, sizeof c);
    ck_assert_msg(CPU_EQUAL(&s->worker, want), "device %u worker %u: bound to %s, want %s", dev, w,
                  b, a);
    ck_assert_msg(CPU_EQUAL(&s->child, want), "device %u worker %u's thread: %s, want %s", dev, w,
                  c, a);
  }
}

static void table(sp_sched *s, sealprov_device_info *out, size_t n) {
  memset(out, 0, n * sizeof *out);
  size_t count = 0;
  ck_assert_int_eq(sp_sched_devices(s, out, n, &count), SEALPROV_OK);
  ck_assert_uint_eq(count, n);
}

/* ---- tests ------------------------------------------------------------------------ */

START_TEST(test_cpulist) {
  cpu_set_t s;
  char err[160], buf[128];
  ck_assert(sp_cpulist_parse("0-3,8,10-11\n", &s, err, sizeof err));
  ck_assert_int_eq(CPU_COUNT(&s), 7);
  fmt(&s, buf, sizeof buf);
  ck_assert_str_eq(buf, "0-3,8,10-11");
  ck_assert(sp_cpulist_parse("", &s, err, sizeof err));
  ck_assert_int_eq(CPU_COUNT(&s), 0);
  fmt(&s, buf, sizeof buf);
  ck_assert_str_eq(buf, "");
  ck_assert(sp_cpulist_parse("5", &s, err, sizeof err));
  ck_assert(CPU_ISSET(5, &s) && CPU_COUNT(&s) == 1);
  ck_assert(!sp_cpulist_parse("3-1", &s, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "3-1 runs backwards"));
  ck_assert(!sp_cpulist_parse("1,,2", &s, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "not a CPU list"));
  ck_assert(!sp_cpulist_parse("0-", &s, err, sizeof err));
  ck_assert(!sp_cpulist_parse("x", &s, err, sizeof err));
  ck_assert(!sp_cpulist_parse("-1", &s, err, sizeof err));
  ck_assert(!sp_cpulist_parse("0-99999999999999999999", &s, err, sizeof err));
  ck_assert(!sp_cpulist_parse("1024", &s, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "1024"));
  /* a set too long for the buffer is cut with "..." */
  CPU_ZERO(&s);
  for (int c = 0; c < 200; c += 2) CPU_SET(c, &s);
  char small[16];
  fmt(&s, small, sizeof small);
  ck_assert_uint_le(strlen(small), sizeof small - 1);
  ck_assert_str_eq(small + strlen(small) - 3, "...");
}
END_TEST

START_TEST(test_pcie_speeds) {
  ck_assert_uint_eq(sp_pcie_gen_of_speed("2.5 GT/s"), 1);
  ck_assert_uint_eq(sp_pcie_gen_of_speed("5.0 GT/s PCIe"), 2);
  ck_assert_uint_eq(sp_pcie_gen_of_speed("8 GT/s"), 3);
  ck_assert_uint_eq(sp_pcie_gen_of_speed("16.0 GT/s PCIe"), 4);
  ck_assert_uint_eq(sp_pcie_gen_of_speed("32.0 GT/s"), 5);
  ck_assert_uint_eq(sp_pcie_gen_of_speed("64.0 GT/s PCIe"), 6);
  ck_assert_uint_eq(sp_pcie_gen_of_speed("Unknown"), 0);
  ck_assert_uint_eq(sp_pcie_gen_of_speed("Unknown speed"), 0);
  ck_assert_uint_eq(sp_pcie_gen_of_speed("20 GT/s"), 0);
  ck_assert_uint_eq(sp_pcie_gen_of_speed("16.0"), 0);
}
END_TEST

/* The 2-node, 4-GPU tree: nodes, each GPU's node and link, as sysfs describes them. */
START_TEST(test_tree) {
  const char *root = fake_tree("t", "0-15,32-47", "16-31,48-63", NULL);
  int hi = -1;
  ck_assert_int_eq(sp_topo_node_count(root, &hi), 2); /* node3 has no cpulist */
  ck_assert_int_eq(hi, 1);
  cpu_set_t s;
  char err[600];
  ck_assert(sp_topo_node_cpus(root, 1, &s, err, sizeof err));
  ck_assert_int_eq(CPU_COUNT(&s), 32);
  ck_assert(CPU_ISSET(16, &s) && CPU_ISSET(63, &s) && !CPU_ISSET(15, &s));
  ck_assert(!sp_topo_node_cpus(root, 3, &s, err, sizeof err));
  ck_assert_ptr_nonnull(strstr(err, "node3/cpulist"));

  int node;
  sp_pcie_link l;
  ck_assert(sp_topo_pci(root, "0000:17:00.0", &node, &l));
  ck_assert_int_eq(node, 0);
  ck_assert_uint_eq(l.cur_gen, 5);
  ck_assert_uint_eq(l.cur_width, 16);
  ck_assert_uint_eq(l.max_gen, 5);
  ck_assert_uint_eq(l.max_width, 16);
  /* CUDA's form, nvidia-smi's 8-digit domain, upper case, no domain: one device */
  ck_assert(sp_topo_pci(root, "00000000:3D:00.0", &node, &l));
  ck_assert_int_eq(node, 0);
  ck_assert_uint_eq(l.cur_gen, 4);
  ck_assert_uint_eq(l.cur_width, 8);
  ck_assert_uint_eq(l.max_gen, 5);
  ck_assert_uint_eq(l.max_width, 16);
  ck_assert(sp_topo_pci(root, "99:00.0", &node, &l));
  ck_assert_int_eq(node, 1);
  ck_assert_uint_eq(l.cur_gen, 5);
  ck_assert(sp_topo_pci(root, "0000:bb:00.0", &node, &l));
  ck_assert_int_eq(node, -1);
  ck_assert_uint_eq(l.cur_gen + l.cur_width + l.max_gen + l.max_width, 0);
  /* not there, not an address, a path trick */
  ck_assert(!sp_topo_pci(root, "0000:cc:00.0", &node, &l));
  ck_assert_int_eq(node, -1);
  ck_assert(!sp_topo_pci(root, "", &node, &l));
  ck_assert(!sp_topo_pci(root, "../../../etc", &node, &l));
  ck_assert(!sp_topo_pci(root, "0000:17:00.0/..", &node, &l));
  ck_assert(!sp_topo_pci(root, "0000:17:20.0", &node, &l)); /* device > 0x1f */

  /* one node, and no tree at all: nothing */
  const char *one = fake_tree("one", "single", NULL, NULL);
  ck_assert_int_eq(sp_topo_node_count(one, &hi), 1);
  char none[300];
  snprintf(none, sizeof none, "%s/absent", tmpdir);
  ck_assert_int_eq(sp_topo_node_count(none, &hi), 1);
  ck_assert(!sp_topo_pci(none, "0000:17:00.0", &node, &l));
}
END_TEST

START_TEST(test_root_knob) {
  bool ign = true;
  unsetenv("SEALPROV_SYSFS_ROOT");
  ck_assert_str_eq(sp_topo_root(&ign), "/sys");
  ck_assert(!ign);
  setenv("SEALPROV_SYSFS_ROOT", "relative/path", 1);
  ck_assert_str_eq(sp_topo_root(&ign), "/sys");
  ck_assert(ign);
  setenv("SEALPROV_SYSFS_ROOT", "/x/y", 1);
  ck_assert_str_eq(sp_topo_root(&ign), "/x/y");
  ck_assert(!ign);
}
END_TEST

/* Workers go to their node's CPUs that the process may use; their threads follow. */
START_TEST(test_placement) {
  cpu_set_t all;
  int a, b;
  allowed_cpus(&all, &a, &b);
  /* node0 = a plus CPUs no machine here has; node1 = b likewise; node2 = none we may use */
  char n0[64], n1[64];
  snprintf(n0, sizeof n0, "%d,900-903", a);
  snprintf(n1, sizeof n1, "%d,904-907", b);
  setenv("SEALPROV_SYSFS_ROOT", fake_tree("p", n0, n1, "1000-1023"), 1);

  sp_config *c = new_cfg();
  add_dev(c, 0, NULL, 2);            /* d0: cpu, numa_node = 0 */
  add_dev(c, 1, NULL, 1);            /* d1: cpu, numa_node = 1 */
  add_dev(c, -1, "0000:99:00.0", 2); /* d2: a GPU on node 1 by sysfs */
  add_dev(c, -1, NULL, 1);           /* d3: cpu, no node */
  add_dev(c, 2, NULL, 1);            /* d4: node 2: no CPU we may use */
  add_dev(c, -1, "0000:bb:00.0", 1); /* d5: a GPU whose node sysfs does not know */
  add_dev(c, 0, "0000:bb:00.0", 1);  /* d6: ... pinned by the INI instead */
  sp_sched *s = start(c);

  cpu_set_t on0, on1;
  CPU_ZERO(&on0);
  CPU_SET(a, &on0);
  CPU_ZERO(&on1);
  CPU_SET(b, &on1);
  assert_binding(0, 2, &on0);
  assert_binding(1, 1, &on1);
  assert_binding(2, 2, &on1);
  assert_binding(3, 1, &all);
  assert_binding(4, 1, &all);
  assert_binding(5, 1, &all);
  assert_binding(6, 1, &on0);

  sealprov_device_info t[7];
  table(s, t, 7);
  int want_node[7] = {0, 1, 1, -1, 2, -1, 0};
  unsigned want_cpus[7] = {1, 1, 1, 0, 0, 0, 1};
  for (int i = 0; i < 7; i++) {
    ck_assert_msg(t[i].numa_node == want_node[i], "device %d: numa_node %d, want %d", i,
                  t[i].numa_node, want_node[i]);
    ck_assert_msg(t[i].bound_cpus == want_cpus[i], "device %d: bound_cpus %u, want %u", i,
                  t[i].bound_cpus, want_cpus[i]);
  }
  ck_assert_uint_eq(t[2].pcie_gen, 5);
  ck_assert_uint_eq(t[2].pcie_width, 16);
  ck_assert_uint_eq(t[2].pcie_max_gen, 5);
  ck_assert_uint_eq(t[2].pcie_max_width, 16);
  ck_assert_uint_eq(t[0].pcie_gen + t[0].pcie_width, 0); /* a CPU device has no link */
  ck_assert_uint_eq(t[5].pcie_gen, 0);

  pthread_mutex_lock(&log_mu);
  /* the empty intersection is a warning that names the node, its CPUs and ours */
  char allowed_txt[256], want[400];
  fmt(&all, allowed_txt, sizeof allowed_txt);
  snprintf(want, sizeof want,
           "W device 4 [d4]: NUMA node 2's CPUs (1000-1023) are none of the CPUs this process "
           "may use (%s): not bound",
           allowed_txt);
  ck_assert_msg(strstr(log_text, want) != NULL, "no warning \"%s\" in:\n%s", want, log_text);
  snprintf(want, sizeof want,
           "- device 0 [d0]: NUMA node 0 (numa_node in the INI): bound to 1 "
           "CPU (%d)",
           a);
  ck_assert_msg(strstr(log_text, want) != NULL, "no \"%s\" in:\n%s", want, log_text);
  snprintf(want, sizeof want, "- device 2 [d2]: NUMA node 1: bound to 1 CPU (%d)", b);
  ck_assert_msg(strstr(log_text, want) != NULL, "no \"%s\" in:\n%s", want, log_text);
  ck_assert_ptr_nonnull(strstr(log_text,
                               "- device 5 [d5]: NUMA node unknown (sysfs numa_node "
                               "is -1): not bound"));
  ck_assert_ptr_nonnull(strstr(log_text, "- device 3 [d3]: no numa_node set: not bound"));
  /* one line per device, not per worker */
  const char *first = strstr(log_text, "device 0 [d0]: ");
  ck_assert_ptr_nonnull(first);
  ck_assert_ptr_null(strstr(first + 1, "device 0 [d0]: "));
  pthread_mutex_unlock(&log_mu);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* Several allowed CPUs on one node: the binding is the whole intersection. */
START_TEST(test_placement_intersection) {
  cpu_set_t all;
  int a, b;
  allowed_cpus(&all, &a, &b);
  char n0[64];
  snprintf(n0, sizeof n0, "%d,%d,950-960", a, b);
  setenv("SEALPROV_SYSFS_ROOT", fake_tree("i", n0, "1000", NULL), 1);
  sp_config *c = new_cfg();
  add_dev(c, -1, "0000:17:00.0", 2); /* node 0 by sysfs */
  sp_sched *s = start(c);
  cpu_set_t want;
  CPU_ZERO(&want);
  CPU_SET(a, &want);
  CPU_SET(b, &want);
  assert_binding(0, 2, &want);
  sealprov_device_info t[1];
  table(s, t, 1);
  ck_assert_int_eq(t[0].numa_node, 0);
  ck_assert_uint_eq(t[0].bound_cpus, (unsigned)CPU_COUNT(&want));
  ck_assert_uint_eq(t[0].pcie_gen, 5);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* threads = 0: a bound device's tasks get its node's usable CPUs shared among the
 * workers bound to that node, not the machine's CPUs shared among all workers. */
START_TEST(test_threads_by_node) {
  cpu_set_t all;
  int a, b;
  allowed_cpus(&all, &a, &b);
  char n0[64];
  snprintf(n0, sizeof n0, "%d,%d", a, b);
  setenv("SEALPROV_SYSFS_ROOT", fake_tree("thr", n0, "1000", NULL), 1);
  sp_config *c = new_cfg();
  add_dev(c, 0, NULL, 1);  /* d0: alone on node 0: all of node 0's CPUs we may use */
  add_dev(c, -1, NULL, 1); /* d1..d3: no node: the machine's CPUs over all 5 workers */
  add_dev(c, -1, NULL, 1);
  add_dev(c, -1, NULL, 1);
  add_dev(c, 1, NULL, 1); /* d4: node 1 has no CPU we may use; threads = 3 is kept */
  c->devices[4].threads = 3;
  sp_sched *s = start(c);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned share = ncpu / 5 > 0 ? (unsigned)(ncpu / 5) : 1;
  unsigned node0 = a == b ? 1 : 2;
  char want[200];
  snprintf(want, sizeof want,
           "device 0 [d0] rec '': 1 worker(s) bound; %u host thread(s) per "
           "task",
           node0);
  ck_assert_msg(strstr(log_text, want) != NULL, "no \"%s\" in:\n%s", want, log_text);
  snprintf(want, sizeof want,
           "device 1 [d1] rec '': 1 worker(s) bound; %u host thread(s) per "
           "task",
           share);
  ck_assert_msg(strstr(log_text, want) != NULL, "no \"%s\" in:\n%s", want, log_text);
  ck_assert_ptr_nonnull(strstr(log_text,
                               "device 4 [d4] rec '': 1 worker(s) bound; 3 host "
                               "thread(s) per task"));
  sp_sched_destroy(s);
  free(c);

  /* two devices, 3 workers, on node 0: its CPUs / 3, at least 1 */
  c = new_cfg();
  add_dev(c, 0, NULL, 2);
  add_dev(c, 0, NULL, 1);
  s = start(c);
  snprintf(want, sizeof want,
           "device 1 [d1] rec '': 1 worker(s) bound; 1 host thread(s) per "
           "task");
  ck_assert_msg(strstr(log_text, want) != NULL, "no \"%s\" in:\n%s", want, log_text);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* numa = off: the node is known and shown, nothing is bound. */
START_TEST(test_numa_off) {
  cpu_set_t all;
  int a, b;
  allowed_cpus(&all, &a, &b);
  char n0[64];
  snprintf(n0, sizeof n0, "%d", a);
  setenv("SEALPROV_SYSFS_ROOT", fake_tree("off", n0, "1000", NULL), 1);
  sp_config *c = new_cfg();
  add_dev(c, 0, NULL, 1);
  add_dev(c, -1, "0000:3d:00.0", 1);
  for (size_t i = 0; i < c->ndevices; i++) c->devices[i].numa_off = true;
  sp_sched *s = start(c);
  assert_binding(0, 1, &all);
  assert_binding(1, 1, &all);
  sealprov_device_info t[2];
  table(s, t, 2);
  ck_assert_int_eq(t[0].numa_node, 0);
  ck_assert_uint_eq(t[0].bound_cpus, 0);
  ck_assert_int_eq(t[1].numa_node, 0);
  ck_assert_uint_eq(t[1].bound_cpus, 0);
  ck_assert_uint_eq(t[1].pcie_gen, 4); /* the slower link is still reported */
  ck_assert_uint_eq(t[1].pcie_max_gen, 5);
  ck_assert_ptr_nonnull(strstr(log_text, "NUMA node 0; numa = off: not bound"));
  ck_assert_msg(!has_warning(), "%s", log_text);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* One node (or no tree at all): no node, no binding, no warning; links still shown. */
START_TEST(test_single_node) {
  cpu_set_t all;
  int a, b;
  allowed_cpus(&all, &a, &b);
  setenv("SEALPROV_SYSFS_ROOT", fake_tree("single", "single", NULL, NULL), 1);
  sp_config *c = new_cfg();
  add_dev(c, 0, NULL, 1);
  add_dev(c, -1, "0000:17:00.0", 1);
  sp_sched *s = start(c);
  assert_binding(0, 1, &all);
  assert_binding(1, 1, &all);
  sealprov_device_info t[2];
  table(s, t, 2);
  ck_assert_int_eq(t[0].numa_node, -1);
  ck_assert_int_eq(t[1].numa_node, -1);
  ck_assert_uint_eq(t[0].bound_cpus + t[1].bound_cpus, 0);
  ck_assert_uint_eq(t[1].pcie_gen, 5);
  ck_assert_msg(!has_warning(), "%s", log_text);
  sp_sched_destroy(s);
  free(c);

  char none[300];
  snprintf(none, sizeof none, "%s/no-such-tree", tmpdir);
  setenv("SEALPROV_SYSFS_ROOT", none, 1);
  c = new_cfg();
  add_dev(c, 1, NULL, 1);
  s = start(c);
  assert_binding(0, 1, &all);
  table(s, t, 1);
  ck_assert_int_eq(t[0].numa_node, -1);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* A host built before ABI 1.2 gets entries that end before the topology fields: the
 * bytes after its entries are not touched. */
START_TEST(test_old_struct_size) {
  setenv("SEALPROV_SYSFS_ROOT", fake_tree("old", "0", "1", NULL), 1);
  sp_config *c = new_cfg();
  add_dev(c, 0, NULL, 1);
  add_dev(c, 1, NULL, 1);
  sp_sched *s = start(c);
  size_t old = offsetof(sealprov_device_info, numa_node);
  size_t total = 2 * old + 64;
  unsigned char *raw = malloc(total);
  ck_assert_ptr_nonnull(raw);
  memset(raw, 0xab, total);
  ((sealprov_device_info *)raw)->struct_size = (uint32_t)old;
  size_t count = 0;
  ck_assert_int_eq(sp_sched_devices(s, (sealprov_device_info *)raw, 2, &count), SEALPROV_OK);
  for (size_t i = 2 * old; i < total; i++) ck_assert_uint_eq(raw[i], 0xab);
  sealprov_device_info e;
  memcpy(&e, raw + old, old);
  ck_assert_uint_eq(e.struct_size, old);
  ck_assert_str_eq(e.section, "d1");
  free(raw);
  sp_sched_destroy(s);
  free(c);
}
END_TEST

/* The INI keys: [provider] numa and a device's numa_node. */
static int load_ini(const char *text, sp_config *c, char *err, size_t errlen) {
  char path[400];
  snprintf(path, sizeof path, "%s/t.ini", tmpdir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return sp_config_load(path, c, err, errlen);
}

START_TEST(test_ini_keys) {
  sp_config *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  char err[1024];
  ck_assert_int_eq(load_ini("[c0]\ntype = cpu\n[c1]\ntype = cpu\nnuma_node = 3\n[provider]\n"
                            "numa = off\n",
                            c, err, sizeof err),
                   SEALPROV_OK);
  ck_assert(c->numa_off);
  ck_assert(c->devices[0].numa_off && c->devices[1].numa_off);
  ck_assert(!c->devices[0].numa_node_set);
  ck_assert(c->devices[1].numa_node_set);
  ck_assert_uint_eq(c->devices[1].numa_node, 3);
  ck_assert_int_eq(load_ini("[provider]\nnuma = AUTO\n[c0]\ntype = cpu\n", c, err, sizeof err),
                   SEALPROV_OK);
  ck_assert(!c->numa_off && !c->devices[0].numa_off);

  ck_assert_int_eq(load_ini("[provider]\nnuma = yes\n[c0]\ntype = cpu\n", c, err, sizeof err),
                   SEALPROV_ERR_CONFIG);
  ck_assert_msg(strstr(err, "t.ini:2: [provider] numa = \"yes\": use auto or off") != NULL, "%s",
                err);
  ck_assert_int_eq(load_ini("[c0]\ntype = cpu\nnuma_node = 1024\n", c, err, sizeof err),
                   SEALPROV_ERR_CONFIG);
  ck_assert_msg(strstr(err, "t.ini:3: [c0] numa_node = \"1024\": out of range (0..1023)") != NULL,
                "%s", err);
  ck_assert_int_eq(load_ini("[c0]\ntype = cpu\nnuma_node = -1\n", c, err, sizeof err),
                   SEALPROV_ERR_CONFIG);
  ck_assert_ptr_nonnull(strstr(err, "numa_node = \"-1\""));
  ck_assert_int_eq(load_ini("[c0]\ntype = cpu\nnuma_node = 0\nnuma_node = 1\n", c, err, sizeof err),
                   SEALPROV_ERR_CONFIG);
  ck_assert_ptr_nonnull(strstr(err, "duplicate key"));
  free(c);
}
END_TEST

static Suite *topo_suite(void) {
  Suite *s = suite_create("topo");
  TCase *tc = tcase_create("topo");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_cpulist);
  tcase_add_test(tc, test_pcie_speeds);
  tcase_add_test(tc, test_tree);
  tcase_add_test(tc, test_root_knob);
  tcase_add_test(tc, test_placement);
  tcase_add_test(tc, test_placement_intersection);
  tcase_add_test(tc, test_threads_by_node);
  tcase_add_test(tc, test_numa_off);
  tcase_add_test(tc, test_single_node);
  tcase_add_test(tc, test_old_struct_size);
  tcase_add_test(tc, test_ini_keys);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(topo_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
