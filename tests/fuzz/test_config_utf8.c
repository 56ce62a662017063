/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_config_utf8.c -- INI error messages are valid UTF-8 whatever the file holds
 * (issue 13, item 4): raw bytes that are not well-formed UTF-8, and control characters,
 * are shown as \xNN (C1 controls as \u0080..\u009f, a backslash as \\); well-formed
 * UTF-8 is kept; a message cut to fit a buffer is cut between characters. The same
 * property is checked on every input by tests/fuzz/fuzz_ini.c. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/device_table.h"
#include "util/cuda_api.h"
#include "sealprov.h"
#include "fuzz_common.h" /* fuzz_utf8_valid */

static char tmpdir[512];
static char ini_path[700];
static sp_config *cfg;
static char err[2048];

static void setup(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/sp-utf8-XXXXXX", base && *base ? base : "/tmp");
  ck_assert_msg(mkdtemp(tmpdir) != NULL, "mkdtemp(%s): %s", tmpdir, strerror(errno));
  snprintf(ini_path, sizeof ini_path, "%s/t.ini", tmpdir);
  cfg = calloc(1, sizeof *cfg);
  ck_assert_ptr_nonnull(cfg);
  err[0] = '\0';
}

static void teardown(void) {
  unlink(ini_path);
  rmdir(tmpdir);
  free(cfg);
  cfg = NULL;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "fopen(%s): %s", path, strerror(errno));
  ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
  ck_assert_int_eq(fclose(f), 0);
}

static void assert_utf8(const char *msg) {
  size_t bad = 0;
  ck_assert_msg(fuzz_utf8_valid(msg, &bad), "not valid UTF-8 at byte %zu: %s", bad, msg);
}

/* Loads text; expects CONFIG and a valid UTF-8 message containing every needle. */
static void expect(const char *text, const char *const *needles, size_t n) {
  write_file(ini_path, text);
  int st = sp_config_load(ini_path, cfg, err, sizeof err);
  ck_assert_msg(st == SEALPROV_ERR_CONFIG, "status %d: %s", st, err);
  assert_utf8(err);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(strstr(err, needles[i]) != NULL, "message lacks \"%s\": %s", needles[i], err);
}
#define EXPECT(text, ...)                                         \
  do {                                                            \
    const char *const needles_[] = {__VA_ARGS__};                 \
    expect(text, needles_, sizeof needles_ / sizeof needles_[0]); \
  } while (0)

#define CPU0 "[cpu0]\ntype = cpu\n"

START_TEST(invalid_byte_in_value) {
  EXPECT(CPU0
         "workers = 1\xff"
         "2\n",
         "[cpu0] workers = \"1\\xff2\"", "not a number");
}
END_TEST

START_TEST(lone_continuation_and_truncated_sequences) {
  /* a stray continuation byte, a 2-byte lead before ASCII, an overlong '/', a surrogate */
  EXPECT(CPU0
         "workers = a\x80"
         "b\xc3"
         "c\xc0\xaf"
         "d\xed\xa0\x80\n",
         "\"a\\x80b\\xc3c\\xc0\\xafd\\xed\\xa0\\x80\"");
}
END_TEST

START_TEST(valid_utf8_is_kept) {
  EXPECT(CPU0
         "w\xc3\xb6rkers = gr\xc3\xbc\xc3\x9f"
         "e \xe2\x82\xac \xf0\x9f\x94\x91\n",
         "w\xc3\xb6rkers = \"gr\xc3\xbc\xc3\x9f"
         "e \xe2\x82\xac \xf0\x9f\x94\x91\"",
         "unknown key");
}
END_TEST

START_TEST(control_characters_escaped) {
  /* C0 (0x01, ESC), DEL and the C1 control U+0085; a backslash is doubled */
  EXPECT(CPU0
         "workers = a\x01"
         "b\x1b[31m\x7f"
         "c\xc2\x85"
         "d\\e\n",
         "\"a\\x01b\\x1b[31m\\x7fc\\u0085d\\\\e\"");
}
END_TEST

START_TEST(bad_unit_and_fault_lists_escaped) {
  EXPECT(CPU0 "memory_limit = 5G\xff\n", "bad unit \"G\\xff\"");
#ifdef SP_FAULT_INJECTION
  EXPECT(CPU0 "[testing]\ninject_device = cpu0\ninject = oom, f\xe9il\n",
         "unknown fault \"f\\xe9il\"");
#endif
}
END_TEST

START_TEST(missing_key_name_escaped) {
  EXPECT(CPU0 " = \xfe\xff\n", "= \"\\xfe\\xff\": missing key name");
}
END_TEST

START_TEST(section_names) {
  /* non-ASCII letters are not section-name characters in any locale */
  EXPECT("[gp\xc3\xbc]\ntype = cpu\n", "[gp\xc3\xbc]: bad section name");
  EXPECT("[gp\xfc]\ntype = cpu\n", "[gp\\xfc]: bad section name");
  EXPECT("[gpu\xff\n", "\"[gpu\\xff\": section header without ]");
}
END_TEST

START_TEST(long_value_cut_between_characters) {
  /* 90 two-byte characters (inih takes lines up to 198 bytes): the value is cut, at a
   * character boundary, with "..." */
  char text[400];
  size_t n = (size_t)snprintf(text, sizeof text, CPU0 "workers = ");
  for (int i = 0; i < 90; i++) {
    text[n++] = '\xc3';
    text[n++] = '\xa9';
  }
  text[n++] = '\n';
  text[n] = '\0';
  EXPECT(text, "\xc3\xa9...\"", "not a number");
  /* the same with raw bytes: escapes are never split either */
  n = (size_t)snprintf(text, sizeof text, CPU0 "workers = ");
  for (int i = 0; i < 150; i++) text[n++] = '\xff';
  text[n++] = '\n';
  text[n] = '\0';
  EXPECT(text, "\\xff...\"", "not a number");
}
END_TEST

START_TEST(short_buffer_cut_between_characters) {
  write_file(ini_path, CPU0 "workers = \xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\n");
  size_t full_len = 0;
  ck_assert_int_eq(sp_config_load(ini_path, cfg, err, sizeof err), SEALPROV_ERR_CONFIG);
  full_len = strlen(err);
  const char *euro = strstr(err, "\xe2\x82\xac");
  ck_assert_ptr_nonnull(euro);
  size_t at = (size_t)(euro - err);
  /* every buffer size that ends inside one of the four euro signs */
  for (size_t cap = at + 1; cap <= at + 13 && cap < full_len; cap++) {
    char small[64];
    ck_assert_uint_lt(cap, sizeof small);
    memset(small, 'x', sizeof small);
    ck_assert_int_eq(sp_config_load(ini_path, cfg, small, cap), SEALPROV_ERR_CONFIG);
    ck_assert_msg(memchr(small, '\0', cap) != NULL, "cap %zu: not terminated", cap);
    assert_utf8(small);
    ck_assert_msg(strncmp(small, err, strlen(small)) == 0, "cap %zu: \"%s\" is not a prefix", cap,
                  small);
    ck_assert_uint_ge(strlen(small) + 3, cap - 1); /* at most a partial character dropped */
  }
}
END_TEST

START_TEST(path_with_invalid_bytes) {
  char path[800];
  snprintf(path, sizeof path, "%s/t\xff\x01.ini", tmpdir);
  write_file(path, "[provider]\n");
  int st = sp_config_load(path, cfg, err, sizeof err);
  unlink(path);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  assert_utf8(err);
  ck_assert_msg(strstr(err, "/t\\xff\\x01.ini:1: ") != NULL, "path not escaped: %s", err);
  /* cannot open: the IO message escapes it too */
  st = sp_config_load(path, cfg, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_IO);
  assert_utf8(err);
  ck_assert_msg(strstr(err, "/t\\xff\\x01.ini: cannot open") != NULL, "path not escaped: %s", err);
}
END_TEST

START_TEST(resolve_messages) {
  /* a GPU selector that matches no GPU: the message quotes the escaped path */
  char path[800];
  snprintf(path, sizeof path, "%s/g\xfe.ini", tmpdir);
  write_file(path, "[gpu0]\ntype = cuda\ndevice = 7\n");
  int st = sp_config_load(path, cfg, err, sizeof err);
  unlink(path);
  ck_assert_msg(st == SEALPROV_OK, "status %d: %s", st, err);
  sp_gpu_info gpu = {.ordinal = 0,
                     .name = "Test GPU",
                     .uuid = "GPU-0123abcd-4567-89ab-cdef-0123456789ab",
                     .pci_bus_id = "0000:65:00.0"};
  st = sp_config_resolve_with_gpus(cfg, &gpu, 1, err, sizeof err);
  ck_assert_int_eq(st, SEALPROV_ERR_CONFIG);
  assert_utf8(err);
  ck_assert_msg(strstr(err, "/g\\xfe.ini:3: [gpu0] device = \"7\": GPU not present") != NULL, "%s",
                err);
}
END_TEST

int main(void) {
  Suite *s = suite_create("config_utf8");
  TCase *tc = tcase_create("messages");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, invalid_byte_in_value);
  tcase_add_test(tc, lone_continuation_and_truncated_sequences);
  tcase_add_test(tc, valid_utf8_is_kept);
  tcase_add_test(tc, control_characters_escaped);
  tcase_add_test(tc, bad_unit_and_fault_lists_escaped);
  tcase_add_test(tc, missing_key_name_escaped);
  tcase_add_test(tc, section_names);
  tcase_add_test(tc, long_value_cut_between_characters);
  tcase_add_test(tc, short_buffer_cut_between_characters);
  tcase_add_test(tc, path_with_invalid_bytes);
  tcase_add_test(tc, resolve_messages);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
