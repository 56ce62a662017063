/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_trace_stats.c -- what `sealprov bench gpu --trace` makes of a trace
 * (bench/trace_stats.c), on synthetic records whose every figure is worked out by hand
 * below: interval unions and overlaps, the stage of each record (external correlation,
 * the launching thread's span, unknown), each stage's host, kernel, busy, span, others'
 * and idle time, its copies and waits, the GPU's gaps with the stages around them, the
 * top kernels, short names and the CSV. */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_stats.h"

#define MS 1000000ull       /* ns */
#define T0 (1000 * MS)      /* the window starts here, not at 0 */
#define AT(x) (T0 + (x)*MS) /* x ms into the window */

static const char *const names[] = {"-", "upload", "decode", "h_ntt"};
enum { S_NONE, S_UPLOAD, S_DECODE, S_NTT, NS };

static void close_to(double got, double want, const char *what) {
  ck_assert_msg(got > want - 1e-6 && got < want + 1e-6, "%s: %.9f, want %.9f", what, got, want);
}

START_TEST(intervals) {
  trc_ival v[] = {{50, 60}, {10, 20}, {15, 30}, {30, 35}, {40, 40}, {70, 80}};
  size_t n = trc_union(v, 6);
  ck_assert_uint_eq(n, 3); /* [10,35) touching joins, the empty one goes */
  ck_assert(v[0].t0 == 10 && v[0].t1 == 35);
  ck_assert(v[1].t0 == 50 && v[1].t1 == 60);
  ck_assert(v[2].t0 == 70 && v[2].t1 == 80);
  ck_assert_uint_eq(trc_length(v, n), 25 + 10 + 10);
  trc_ival w[] = {{0, 12}, {33, 55}, {58, 75}};
  ck_assert_uint_eq(trc_overlap(v, n, w, 3), 2 + 2 + 5 + 2 + 5);
  ck_assert_uint_eq(trc_overlap(v, n, w, 0), 0);
  ck_assert_uint_eq(trc_union(v, 0), 0);
}
END_TEST

static void kernel(trc_trace *t, const char *name, double a, double b, unsigned stream,
                   uint32_t corr) {
  trc_rec r = {.start = AT(a),
               .end = AT(b),
               .corr = corr,
               .stream = stream,
               .name = trc_name(t, name),
               .stage = TRC_STAGE_UNKNOWN,
               .kind = TRC_KERNEL};
  ck_assert(trc_add_rec(t, &r));
}

/* Host spans, GPU records and their correlations (the figures in the test below). */
static void make_trace(trc_trace *t) {
  trc_init(t, names, NS);
  ck_assert(trc_add_span(t, AT(0), AT(10), 7, S_UPLOAD));
  ck_assert(trc_add_span(t, AT(5), AT(15), 8, S_UPLOAD)); /* another thread */
  ck_assert(trc_add_span(t, AT(10), AT(30), 7, S_DECODE));
  ck_assert(trc_add_span(t, AT(30), AT(60), 7, S_NTT));
  ck_assert(trc_add_span(t, AT(60), AT(70), 7, S_DECODE));
  kernel(t, "void ntt<4>(int*)", 30, 50, 1, 1);
  kernel(t, "void ntt<4>(int*)", 35, 45, 2, 2); /* beside the first, on another stream */
  kernel(t, "decode_k", 12, 20, 1, 3);
  kernel(t, "void ntt<4>(int*)", 62, 66, 1, 4); /* during decode's second span */
  kernel(t, "decode_k", 66, 69, 1, 5);          /* its stage: by its thread's span */
  kernel(t, "mystery", 80, 81, 1, 99);          /* no correlation at all */
  kernel(t, "outside", -5, -4, 1, 3);           /* before the window */
  trc_rec h2d = {.start = AT(2),
                 .end = AT(14),
                 .bytes = 1000000000,
                 .corr = 100,
                 .corr2 = 101,
                 .stage = TRC_STAGE_UNKNOWN,
                 .kind = TRC_MEMCPY,
                 .copy = TRC_COPY_H2D};
  trc_rec d2h = {.start = AT(20),
                 .end = AT(21),
                 .bytes = 8,
                 .corr = 6,
                 .stage = TRC_STAGE_UNKNOWN,
                 .kind = TRC_MEMCPY,
                 .copy = TRC_COPY_D2H};
  trc_rec sync = {
      .start = AT(20), .end = AT(30), .corr = 7, .stage = TRC_STAGE_UNKNOWN, .kind = TRC_SYNC};
  ck_assert(trc_add_rec(t, &h2d) && trc_add_rec(t, &d2h) && trc_add_rec(t, &sync));
  const uint32_t ntt[] = {1, 2, 4}, dec[] = {3, 6, 7};
  for (int i = 0; i < 3; i++) ck_assert(trc_add_ext(t, S_NTT, ntt[i]));
  for (int i = 0; i < 3; i++) ck_assert(trc_add_ext(t, S_DECODE, dec[i]));
  ck_assert(trc_add_ext(t, S_UPLOAD, 101));
  ck_assert(trc_add_ext(t, 40, 99)); /* an id that names no stage: not taken */
  ck_assert(trc_add_api(t, AT(65), 5, 7));
  ck_assert(trc_add_api(t, AT(79), 99, 8)); /* thread 8 is in no span then */
  trc_resolve(t);
}

START_TEST(resolve) {
  trc_trace t;
  make_trace(&t);
  ck_assert_uint_eq(t.by_ext, 8); /* K1-K4, the outside kernel, H2D (its second id), D2H, sync */
  ck_assert_uint_eq(t.by_thread, 1);
  ck_assert_uint_eq(t.unknown, 1);
  ck_assert_uint_eq(t.rec[4].stage, S_DECODE);
  ck_assert_uint_eq(t.rec[5].stage, TRC_STAGE_UNKNOWN);
  ck_assert_uint_eq(t.rec[7].stage, S_UPLOAD);
  ck_assert_uint_eq(trc_name(&t, "decode_k"), t.rec[2].name); /* one name, one index */
  trc_free(&t);
}
END_TEST

START_TEST(stages) {
  trc_trace t;
  make_trace(&t);
  trc_summary s;
  ck_assert(trc_summarize(&t, T0, AT(100), &s));
  ck_assert_uint_eq(s.in_window, 9);
  close_to(s.wall_ms, 100, "wall");
  const trc_stage_sum *up = &s.stage[S_UPLOAD], *de = &s.stage[S_DECODE], *nt = &s.stage[S_NTT];
  close_to(up->host_ms, 15, "upload host (two threads' union)");
  ck_assert_uint_eq(up->kernels, 0);
  close_to(up->idle_ms, 12, "upload idle (decode_k from 12 ms)");
  ck_assert_uint_eq(up->copies[TRC_COPY_H2D], 1);
  ck_assert(up->copy_bytes[TRC_COPY_H2D] == 1000000000);
  close_to(up->copy_ms[TRC_COPY_H2D], 12, "upload H2D ms");
  close_to(de->host_ms, 30, "decode host");
  ck_assert_uint_eq(de->kernels, 2);
  close_to(de->kern_ms, 11, "decode kernels");
  close_to(de->busy_ms, 11, "decode busy");
  close_to(de->span_ms, 57, "decode span");
  close_to(de->others_ms, 4, "decode: the NTT kernel in its time");
  close_to(de->idle_ms, 15, "decode idle");
  close_to(de->copy_ms[TRC_COPY_D2H], 1, "decode D2H");
  ck_assert_uint_eq(de->syncs, 1);
  close_to(de->sync_ms, 10, "decode's wait");
  close_to(nt->host_ms, 30, "ntt host");
  ck_assert_uint_eq(nt->kernels, 3);
  close_to(nt->kern_ms, 34, "ntt kernels (two at once)");
  close_to(nt->busy_ms, 24, "ntt busy");
  close_to(nt->span_ms, 36, "ntt span");
  close_to(nt->others_ms, 0, "ntt others");
  close_to(nt->idle_ms, 10, "ntt idle");
  ck_assert_uint_eq(s.nrows, NS + 1);
  ck_assert_uint_eq(s.stage[NS].kernels, 1);
  close_to(s.stage[NS].kern_ms, 1, "unknown");
  close_to(s.stage[NS].busy_ms, 1, "unknown busy");
  close_to(s.stage[NS].others_ms, 0, "unknown: no host time");
  trc_free(&t);
}
END_TEST

START_TEST(device_and_gaps) {
  trc_trace t;
  make_trace(&t);
  trc_summary s;
  ck_assert(trc_summarize(&t, T0, AT(100), &s));
  ck_assert_uint_eq(s.ndev, 1);
  const trc_dev_sum *d = &s.dev[0];
  ck_assert_uint_eq(d->kernels, 6);
  close_to(d->busy_ms, 36, "busy");
  close_to(d->lead_ms, 12, "lead-in");
  close_to(d->tail_ms, 19, "tail");
  ck_assert_uint_eq(d->gaps, 3);
  close_to(d->gap_ms, 33, "gaps");
  close_to(d->max_gap_ms, 12, "largest gap");
  close_to(d->small_gap_ms, 0, "small gaps");
  close_to(d->h2d_ms, 12, "H2D");
  close_to(d->overlap_ms, 2, "H2D beside kernels");
  ck_assert_uint_eq(s.ngap, 3);
  const uint64_t at[] = {50, 69, 20}, len[] = {12, 11, 10};
  const unsigned before[] = {S_NTT, S_DECODE, S_DECODE},
                 after[] = {S_NTT, TRC_STAGE_UNKNOWN, S_NTT};
  for (int i = 0; i < 3; i++) {
    ck_assert(s.gap[i].at == at[i] * MS && s.gap[i].len == len[i] * MS);
    ck_assert_uint_eq(s.gap[i].before, before[i]);
    ck_assert_uint_eq(s.gap[i].after, after[i]);
  }
  ck_assert_uint_eq(s.kernel_names, 3);
  ck_assert_uint_eq(s.ntop, 3);
  ck_assert_str_eq(t.names[s.top[0].name], "void ntt<4>(int*)");
  ck_assert_uint_eq(s.top[0].count, 3);
  close_to(s.top[0].ms, 34, "top kernel");
  ck_assert_uint_eq(s.top[0].stages, 1u << S_NTT);
  ck_assert_str_eq(t.names[s.top[1].name], "decode_k");
  ck_assert_uint_eq(s.top[1].stages, 1u << S_DECODE);
  ck_assert_uint_eq(s.top[2].stages, 1u << 31); /* unknown */
  trc_free(&t);
}
END_TEST

START_TEST(short_names) {
  char out[16];
  trc_short_name("void msm_acc<spc_fp, 4u>(int const*, unsigned)", out, sizeof out);
  ck_assert_str_eq(out, "msm_acc<spc_...");
  trc_short_name("void k<(f)(int)>(int)", out, sizeof out);
  ck_assert_str_eq(out, "k<(f)(int)>");
  trc_short_name("plain(int)", out, sizeof out);
  ck_assert_str_eq(out, "plain");
  trc_short_name(NULL, out, sizeof out);
  ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(outputs) {
  trc_trace t;
  make_trace(&t);
  trc_summary s;
  ck_assert(trc_summarize(&t, T0, AT(100), &s));
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_ptr_nonnull(f);
  trc_write_csv(f, &t, T0, AT(100), "run \"1\"", true);
  fclose(f);
  const char hdr[] = "window,kind,start_ns,end_ns,device,stream,stage,bytes,copy,name\n";
  ck_assert(!strncmp(buf, hdr, strlen(hdr)));
  ck_assert_ptr_nonnull(strstr(buf,
                               "\"run \"\"1\"\"\",kernel,30000000,50000000,0,1,h_ntt,0,,"
                               "\"void ntt<4>(int*)\"\n"));
  ck_assert_ptr_nonnull(strstr(buf, ",memcpy,2000000,14000000,0,0,upload,1000000000,H2D,\"\"\n"));
  ck_assert_ptr_nonnull(strstr(buf, ",host,60000000,70000000,,7,decode,,,\"\"\n"));
  ck_assert_ptr_null(strstr(buf, "outside"));
  int rows = 0;
  for (char *p = buf; *p; p++) rows += *p == '\n';
  ck_assert_int_eq(rows, 1 + 9 + 5);
  free(buf);
  f = open_memstream(&buf, &len);
  trc_print(f, &t, &s, "partition");
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "partition: 100.0 ms; 9 records"));
  ck_assert_ptr_nonnull(strstr(buf,
                               "  decode            30.0       2      11.0      11.0      "
                               "57.0       4.0      15.0 |"));
  ck_assert_ptr_nonnull(strstr(buf, "gap 12.0 ms at +50.0 ms on GPU 0, after h_ntt, before h_ntt"));
  ck_assert_ptr_nonnull(strstr(buf, "ntt<4>"));
  free(buf);
  trc_free(&t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("trace_stats");
  TCase *tc = tcase_create("synthetic");
  tcase_add_test(tc, intervals);
  tcase_add_test(tc, resolve);
  tcase_add_test(tc, stages);
  tcase_add_test(tc, device_and_gaps);
  tcase_add_test(tc, short_names);
  tcase_add_test(tc, outputs);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
