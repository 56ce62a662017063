/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_trace_cupti.c -- `bench gpu --trace`'s side of CUPTI (bench/trace_cupti.c) without
 * a GPU: CUPTI's functions are stubs here that hand back records laid out as
 * trace_cupti.c reads them (the real layouts are checked against cupti_activity.h
 * when it compiles). The engine's stage hook pushes and pops the stage as the thread's
 * external correlation id and keeps its spans; what came before a window is dropped;
 * a kernel is told by its call's external id, a copy by its runtime correlation id, a
 * call without an external id by its thread's span; mangled names are demangled; the
 * window's table and its CSV rows come out. */
#include "trace_cupti.c" /* its static functions and state, on stubs */

#include <check.h>

sp_gpu_stage_fn sp_gpu_stage_hook = 0; /* cuda/util/stage.c's, which is not linked here */

static void (*req_fn)(uint8_t **, size_t *, size_t *);
static void (*done_fn)(void *, uint32_t, uint8_t *, size_t, size_t);
static uint64_t clk = 1000000000; /* ns */
static uint64_t ids[8];
static int depth;
static uint8_t *cur; /* the buffer being filled: [size][record] ... */
static size_t used, cap;
static uint32_t corr = 1;

static int s_register(void (*r)(uint8_t **, size_t *, size_t *),
                      void (*d)(void *, uint32_t, uint8_t *, size_t, size_t)) {
  req_fn = r;
  done_fn = d;
  return 0;
}
static int s_ok(int k) { return k >= 0 ? 0 : 1; }
static int s_time(uint64_t *t) {
  *t = clk;
  return 0;
}
static int s_push(int k, uint64_t id) {
  ck_assert_int_eq(k, BT_EXTERNAL_CUSTOM0);
  ids[depth++] = id;
  return 0;
}
static int s_pop(int k, uint64_t *id) {
  ck_assert(k == BT_EXTERNAL_CUSTOM0 && depth > 0);
  depth--;
  if (id) *id = ids[depth];
  return 0;
}
static int s_dropped(void *c, uint32_t s, size_t *n) {
  (void)c;
  (void)s;
  *n = 0;
  return 0;
}
static int s_version(uint32_t *v) {
  *v = 130001;
  return 0;
}
static int s_flush(uint32_t flag) {
  ck_assert_uint_eq(flag, 1);
  if (cur) done_fn(NULL, 0, cur, cap, used);
  cur = NULL;
  return 0;
}
static int s_next(uint8_t *b, size_t valid, const void **rec) {
  size_t off = *rec ? (size_t)((const uint8_t *)*rec - b) : 8, n;
  if (*rec) {
    memcpy(&n, (const uint8_t *)*rec - 8, 8);
    off += n + 8;
  }
  if (off > valid) return 1;
  *rec = b + off;
  return 0;
}
static void put(const void *r, size_t n) {
  if (!cur) {
    size_t max;
    req_fn(&cur, &cap, &max);
    used = 0;
  }
  memcpy(cur + used, &n, 8);
  memcpy(cur + used + 8, r, n);
  used += 8 + n;
}

/* A call now (with its external id unless `bare`), its kernel 10 us later and a 1 MiB
 * copy named by the call's runtime correlation id. */
static void launch(const char *name, uint64_t dur, bool bare) {
  uint32_t c = corr++;
  bt_api a = {BT_KIND_RUNTIME, 0, clk, clk + 1000, 1, (uint32_t)syscall(SYS_gettid), c, 0};
  put(&a, sizeof a);
  if (depth && !bare) {
    bt_ext e = {BT_KIND_EXTERNAL_CORRELATION, BT_EXTERNAL_CUSTOM0, ids[depth - 1], c, 0};
    put(&e, sizeof e);
  }
  bt_kernel k = {.kind = BT_KIND_CONCURRENT_KERNEL,
                 .start = clk + 10000,
                 .end = clk + 10000 + dur,
                 .stream = 7,
                 .corr = c,
                 .name = name};
  put(&k, sizeof k);
  bt_memcpy m = {.kind = BT_KIND_MEMCPY,
                 .copy_kind = BT_MEMCPY_HTOD,
                 .bytes = 1 << 20,
                 .start = clk,
                 .end = clk + 5000,
                 .runtime_corr = c};
  put(&m, sizeof m);
}

START_TEST(a_window) {
  char err[1024] = "", *text = NULL, csv[512];
  size_t len = 0;
  const char *tmp = getenv("TMPDIR");
  snprintf(csv, sizeof csv, "%s/sp_trace_cupti_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(csv);
  ck_assert_int_ge(fd, 0);
  close(fd);
  FILE *tables = open_memstream(&text, &len);
  ck_assert_int_eq(bg_trace_file(csv, tables, err, sizeof err), 0);
  bt.cu = (bt_cupti){.register_callbacks = s_register,
                     .enable = s_ok,
                     .disable = s_ok,
                     .flush_all = s_flush,
                     .next_record = s_next,
                     .dropped = s_dropped,
                     .push = s_push,
                     .pop = s_pop,
                     .timestamp = s_time,
                     .version = s_version};
  trc_init(&bt.t, stage_names, SP_STAGE_COUNT);
  ck_assert_int_eq(bt.cu.register_callbacks(bt_request, bt_complete), 0);
  sp_gpu_stage_hook = bt_hook;
  bt.started = bt.sync_on = true;
  unsigned p = sp_gpu_stage_set(SP_STAGE_DECODE); /* before the window: dropped */
  launch("_Z6warmupv", 1000, false);
  ck_assert_uint_eq(sp_gpu_stage_set(p), SP_STAGE_DECODE);
  clk += 5000000;
  ck_assert_int_eq(bg_trace_begin("partition 2^10, execute of run 1", err, sizeof err), 0);
  clk += 1000000;
  p = sp_gpu_stage_set(SP_STAGE_EXECUTE);
  unsigned q = sp_gpu_stage_set(SP_STAGE_DECODE);
  ck_assert_int_eq(depth, 1); /* one stage pushed at a time */
  launch("_Z8decode_kPi", 2000000, false);
  clk += 3000000;
  sp_gpu_stage_set(q);
  q = sp_gpu_stage_set(SP_STAGE_H_NTT);
  launch("_Z5k_nttILi4EEvPi", 4000000, false);
  launch("_Z5k_nttILi4EEvPi", 4000000, true); /* no external id: its thread's span */
  clk += 9000000;
  sp_gpu_stage_set(q);
  sp_gpu_stage_set(p);
  ck_assert_int_eq(depth, 0);
  clk += 1000000;
  ck_assert_int_eq(bg_trace_end(err, sizeof err), 0);
  ck_assert_int_eq(bg_trace_close(err, sizeof err), 0);
  fclose(tables);
  ck_assert_ptr_nonnull(strstr(text,
                               "trace: partition 2^10, execute of run 1: 14.0 ms; 6 records "
                               "(stage by external correlation 4, by thread 2, unknown 0)"));
  ck_assert_ptr_nonnull(strstr(text, "  h_ntt              9.0       2       8.0       4.0"));
  ck_assert_ptr_nonnull(strstr(text, "gap 1.0 ms at +3.0 ms on GPU 0, after decode, before h_ntt"));
  ck_assert_ptr_nonnull(strstr(text, "k_ntt<4>"));
  ck_assert_ptr_null(strstr(text, "warmup"));
  ck_assert_ptr_nonnull(strstr(text, "trace: 1 window, every record in"));
  free(text);
  FILE *f = fopen(csv, "r");
  char line[512];
  int rows = 0, kernels = 0, h2d = 0;
  while (fgets(line, sizeof line, f)) {
    rows++;
    kernels += strstr(line, ",kernel,") != NULL;
    h2d += strstr(line, ",H2D,") != NULL;
  }
  fclose(f);
  unlink(csv);
  ck_assert_int_eq(kernels, 3);
  ck_assert_int_eq(h2d, 3);
  ck_assert_int_eq(rows, 1 + 6 + 5); /* the header, the records, the spans */
}
END_TEST

int main(void) {
  Suite *s = suite_create("trace_cupti");
  TCase *tc = tcase_create("stubs");
  tcase_add_test(tc, a_window);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
