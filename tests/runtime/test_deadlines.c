/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_deadlines.c -- proof types with deadlines on one provider (issue 25 item 2), on
 * two CPU devices of two workers each, through dlopen and the vtable only.
 *
 * Jobs with the partition counts of Filecoin's proof types (docs/formats.md, "Proof
 * types and their jobs"), of a tiny circuit: an NI-PoRep job of 126 partitions and a
 * PoRep job of 10 (priority 0) make the stream; once it runs, a WindowPoSt job (1
 * partition, priority 50) and a WinningPoSt job (1 partition, priority 100) arrive.
 * Asserts, from the provider's timeline (its start events are logged in the order the
 * workers take tasks, under the scheduler's lock, as submit's queued events are):
 *  - the urgent jobs start at the next partition boundary: after the WindowPoSt job is
 *    queued, no partition of the stream starts before both urgent jobs have started,
 *    and WinningPoSt (higher priority) starts first if it was queued before either
 *    started; the wait from queued to start is printed, and is at most one partition's
 *    start-to-done time of the stream (plus 0.5 s for a loaded machine);
 *  - the 126-partition job runs with bounded memory: at no time does the module hold
 *    (started, not done) more partitions than it has workers (4), and every partition's
 *    on_inputs_released comes exactly once, before the job's on_complete, so a host
 *    that drops each partition's inputs there holds at most what is in flight;
 *  - every job ends OK with every partition proved and self-checked (verify_proofs is
 *    on), and each job's first proof also passes the vtable's verify().
 */
#include <config.h>

#include <check.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "circuit.h"
#include "sealprov.h"
#include "spa.h"

#define CONSTRAINTS 256
#define INPUTS 2
#define NDEV 2
#define WORKERS 2
#define NIPOREP_PARTITIONS 126 /* FIP-0092 */
#define POREP_PARTITIONS 10
#define MAXP NIPOREP_PARTITIONS

static const sealprov_vtable *vt;
static void *dl;
static char tmp_root[256], params_path[400], vk_path[400], ini_path[400];
static sp_spa *part;

static void die(const char *what, const char *detail) {
  fprintf(stderr, "test_deadlines: %s: %s\n", what, detail);
  exit(EXIT_FAILURE);
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* One job and what its callbacks saw. */
typedef struct hjob {
  const char *name;
  uint32_t n;
  sealprov_assignment asg[MAXP];
  uint8_t proofs[MAXP * SEALPROV_PROOF_BYTES];
  sealprov_partition_result res[MAXP];
  sealprov_job job;
  sealprov_job_id id;
  atomic_int released[MAXP];
  atomic_int released_total;
  atomic_int released_after_complete;
  atomic_int completes;
  atomic_int status;
} hjob;

static void on_released(void *user, sealprov_job_id id, uint32_t p) {
  hjob *j = user;
  (void)id;
  if (p >= j->n) return;
  if (atomic_load(&j->completes) > 0) atomic_fetch_add(&j->released_after_complete, 1);
  atomic_fetch_add(&j->released[p], 1);
  atomic_fetch_add(&j->released_total, 1);
}

static void on_complete(void *user, sealprov_job_id id, int status) {
  hjob *j = user;
  (void)id;
  atomic_store(&j->status, status);
  atomic_fetch_add(&j->completes, 1);
}

static hjob *mkjob(const char *name, uint32_t n, int32_t priority) {
  hjob *j = calloc(1, sizeof *j);
  ck_assert_ptr_nonnull(j);
  j->name = name;
  j->n = n;
  atomic_store(&j->status, -1);
  /* The module only reads a partition: every partition proves the same witness. */
  for (uint32_t p = 0; p < n; p++) j->asg[p] = part->asg;
  j->job.struct_size = sizeof j->job;
  j->job.partitions = j->asg;
  j->job.num_partitions = n;
  j->job.scalar_encoding = SEALPROV_SCALAR_CANONICAL_LE;
  j->job.priority = priority;
  j->job.proofs_out = j->proofs;
  j->job.results = j->res;
  j->job.on_complete = on_complete;
  j->job.on_inputs_released = on_released;
  j->job.user = j;
  return j;
}

static void submit(sealprov_provider *p, sealprov_srs *srs, hjob *j) {
  j->job.srs = srs;
  int st = vt->submit(p, &j->job, &j->id);
  ck_assert_msg(st == SEALPROV_OK, "submit %s: %s", j->name, vt->last_error());
}

/* ---- the timeline ------------------------------------------------------------------ */

enum { EV_QUEUED, EV_START, EV_END, EV_EXECUTE, EV_OTHER };
typedef struct tl_ev {
  double t, duration;
  int kind;
  uint64_t job;
  uint32_t partition;
} tl_ev;

static tl_ev *read_timeline(sealprov_provider *p, size_t *n) {
  size_t len = 0;
  ck_assert_int_eq(vt->timeline(p, NULL, 0, &len), SEALPROV_OK);
  char *buf = malloc(len + 1);
  ck_assert_ptr_nonnull(buf);
  ck_assert_int_eq(vt->timeline(p, buf, len + 1, &len), SEALPROV_OK);
  size_t cap = 1, k = 0;
  for (const char *c = buf; *c; c++) cap += *c == '\n';
  tl_ev *ev = calloc(cap, sizeof *ev);
  ck_assert_ptr_nonnull(ev);
  for (char *line = strtok(buf, "\n"); line != NULL; line = strtok(NULL, "\n")) {
    char name[32];
    tl_ev e = {0};
    if (sscanf(line, "t=%lf event=%31s job=%" SCNu64 " partition=%" SCNu32, &e.t, name, &e.job,
               &e.partition) != 4)
      continue;
    const char *d = strstr(line, "duration=");
    if (d != NULL) e.duration = strtod(d + 9, NULL);
    e.kind = !strcmp(name, "queued")    ? EV_QUEUED
             : !strcmp(name, "start")   ? EV_START
             : !strcmp(name, "execute") ? EV_EXECUTE
             : (!strcmp(name, "done") || !strcmp(name, "failed") || !strcmp(name, "requeued"))
                 ? EV_END
                 : EV_OTHER;
    ev[k++] = e;
  }
  free(buf);
  *n = k;
  return ev;
}

static size_t find_ev(const tl_ev *ev, size_t n, int kind, uint64_t job) {
  for (size_t i = 0; i < n; i++)
    if (ev[i].kind == kind && ev[i].job == job) return i;
  ck_abort_msg("no %d event of job %" PRIu64 " in the timeline", kind, job);
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* ---- the test --------------------------------------------------------------------- */

START_TEST(test_proof_types_on_one_provider) {
  sealprov_provider *p = NULL;
  ck_assert_msg(vt->open(ini_path, &p) == SEALPROV_OK, "open: %s", vt->last_error());
  sealprov_srs *srs = NULL, *vk = NULL;
  ck_assert_msg(vt->srs_load(p, params_path, &srs) == SEALPROV_OK, "%s", vt->last_error());
  ck_assert_msg(vt->vk_load(p, vk_path, &vk) == SEALPROV_OK, "%s", vt->last_error());

  hjob *nip = mkjob("NI-PoRep", NIPOREP_PARTITIONS, 0);
  hjob *porep = mkjob("PoRep", POREP_PARTITIONS, 0);
  hjob *window = mkjob("WindowPoSt", 1, 50);
  hjob *winning = mkjob("WinningPoSt", 1, 100);
  submit(p, srs, nip);
  submit(p, srs, porep);
  /* the stream runs: some NI-PoRep partitions are through */
  for (int i = 0; i < 60000 && atomic_load(&nip->released_total) < 8; i++) sleep_ms(1);
  ck_assert_int_ge(atomic_load(&nip->released_total), 8);
  ck_assert_int_lt(atomic_load(&nip->released_total), NIPOREP_PARTITIONS - 8);
  submit(p, srs, window);
  submit(p, srs, winning);

  hjob *all[] = {nip, porep, window, winning};
  for (int k = 0; k < 4; k++) {
    hjob *j = all[k];
    int st = vt->wait(p, j->id, -1);
    ck_assert_msg(st == SEALPROV_OK, "%s: %s: %s", j->name, vt->strerror(st), vt->last_error());
    ck_assert_int_eq(atomic_load(&j->completes), 1);
    ck_assert_int_eq(atomic_load(&j->status), SEALPROV_OK);
    ck_assert_int_eq(atomic_load(&j->released_total), (int)j->n);
    ck_assert_int_eq(atomic_load(&j->released_after_complete), 0);
    for (uint32_t q = 0; q < j->n; q++) {
      ck_assert_int_eq(atomic_load(&j->released[q]), 1);
      ck_assert_int_eq(j->res[q].status, SEALPROV_OK);
    }
    int valid = 0;
    /* the public inputs without the leading ONE */
    ck_assert_int_eq(
        vt->verify(p, vk, (const uint8_t *)part->asg.inp_assignment + SEALPROV_SCALAR_BYTES,
                   part->asg.inp_size - 1, SEALPROV_SCALAR_CANONICAL_LE, j->proofs, &valid),
        SEALPROV_OK);
    ck_assert_msg(valid, "%s: partition 0's proof does not verify", j->name);
  }

  size_t n = 0;
  tl_ev *ev = read_timeline(p, &n);
  /* in flight: started and not yet done, over the whole run */
  int held = 0, max_held = 0;
  unsigned nip_starts = 0;
  for (size_t i = 0; i < n; i++) {
    if (ev[i].kind == EV_START) held++, nip_starts += ev[i].job == nip->id;
    if (ev[i].kind == EV_END) held--;
    if (held > max_held) max_held = held;
  }
  ck_assert_uint_eq(nip_starts, NIPOREP_PARTITIONS); /* the timeline holds the whole run */
  ck_assert_int_eq(held, 0);
  ck_assert_msg(max_held <= NDEV * WORKERS,
                "the module held %d partitions at once, more than its %d workers", max_held,
                NDEV * WORKERS);

  /* the urgent jobs start at the next partition boundary */
  size_t q_window = find_ev(ev, n, EV_QUEUED, window->id);
  size_t q_winning = find_ev(ev, n, EV_QUEUED, winning->id);
  size_t s_window = find_ev(ev, n, EV_START, window->id);
  size_t s_winning = find_ev(ev, n, EV_START, winning->id);
  size_t last = s_window > s_winning ? s_window : s_winning;
  for (size_t i = q_window; i <= last; i++)
    ck_assert_msg(ev[i].kind != EV_START || ev[i].job == window->id || ev[i].job == winning->id,
                  "partition %u of job %" PRIu64
                  " started after WindowPoSt was queued and before "
                  "the urgent jobs started",
                  ev[i].partition, ev[i].job);
  if (q_winning < s_window) ck_assert_uint_lt(s_winning, s_window);

  /* the wait, against one partition of the stream (start -> done) */
  double cycles[MAXP];
  unsigned nc = 0;
  for (size_t i = 0; i < n && nc < MAXP; i++) {
    if (ev[i].kind != EV_START || ev[i].job != nip->id) continue;
    for (size_t k = i + 1; k < n; k++)
      if (ev[k].kind == EV_END && ev[k].job == nip->id && ev[k].partition == ev[i].partition) {
        cycles[nc++] = ev[k].t - ev[i].t;
        break;
      }
  }
  ck_assert_uint_eq(nc, NIPOREP_PARTITIONS);
  qsort(cycles, nc, sizeof cycles[0], cmp_double);
  double wait_winning = ev[s_winning].t - ev[q_winning].t;
  double wait_window = ev[s_window].t - ev[q_window].t;
  printf("one partition of the stream (start -> done): median %.2f ms, max %.2f ms\n",
         cycles[nc / 2] * 1e3, cycles[nc - 1] * 1e3);
  printf(
      "WinningPoSt: queued -> start %.2f ms; WindowPoSt: %.2f ms; at most %d partitions held "
      "at once (%d workers)\n",
      wait_winning * 1e3, wait_window * 1e3, max_held, NDEV * WORKERS);
  ck_assert_msg(wait_winning <= cycles[nc - 1] + 0.5,
                "WinningPoSt waited %.3f s for a start, one partition takes at most %.3f s",
                wait_winning, cycles[nc - 1]);
  free(ev);

  vt->srs_release(srs);
  vt->srs_release(vk);
  ck_assert_int_eq(vt->close(p), SEALPROV_OK);
  for (int k = 0; k < 4; k++) free(all[k]);
}
END_TEST

int main(void) {
  const char *plugin = getenv("SEALPROV_PLUGIN");
  if (!plugin || !*plugin)
    die("SEALPROV_PLUGIN", "not set (make check sets it to the built module)");
  dl = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
  if (!dl) die("dlopen", dlerror());
  union {
    void *obj;
    sealprov_provider_init_fn fn;
  } sym = {.obj = dlsym(dl, SEALPROV_ENTRY_SYMBOL)};
  if (!sym.obj || sym.fn(SEALPROV_ABI_MAJOR, SEALPROV_ABI_MINOR, NULL, &vt) != SEALPROV_OK)
    die("init", plugin);

  const char *t = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/sp_deadlines_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmp_root)) die("mkdtemp", tmp_root);
  char err[512] = "";
  sp_setup_result res;
  sp_setup_opts o = {.constraints = CONSTRAINTS,
                     .inputs = INPUTS,
                     .partitions = 1,
                     .shape = SP_SHAPE_SEALING,
                     .seed = 25,
                     .out_dir = tmp_root,
                     .nthreads = 2};
  if (sp_setup_run(&o, &res, err, sizeof err)) die("setup", err);
  snprintf(params_path, sizeof params_path, "%s/circuit.params", tmp_root);
  snprintf(vk_path, sizeof vk_path, "%s/circuit.vk", tmp_root);
  char name[64], path[400];
  sp_partition_name(name, sizeof name, 0, 1);
  snprintf(path, sizeof path, "%s/%s", tmp_root, name);
  if (sp_spa_read(path, &part, err, sizeof err)) die("read", err);
  snprintf(ini_path, sizeof ini_path, "%s/deadlines.ini", tmp_root);
  FILE *f = fopen(ini_path, "w");
  if (!f) die("write", ini_path);
  fprintf(f, "[provider]\ntimeline_events = 16384\n");
  for (int d = 0; d < NDEV; d++)
    fprintf(f, "[cpu%d]\ntype = cpu\nworkers = %d\nthreads = 1\n", d, WORKERS);
  fclose(f);

  Suite *s = suite_create("deadlines");
  TCase *tc = tcase_create("cpu_devices");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_proof_types_on_one_provider);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  sp_spa_free(part);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  dlclose(dl);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
