/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_c2_map.c -- libsealprov_c2's gpu_index -> device_mask rules (compat/c2_map.c) on
 * device tables this machine does not have: CUDA devices in INI order that differs from
 * ordinal order, a mixed CPU + CUDA table, a CPU-only table; and create_SRS's INFO line
 * about the prover on a table with a GPU. c2.sh covers the CPU-only case end to end
 * through the library and the module. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "c2_map.h"

static int failures;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
      failures++;                                          \
    }                                                      \
  } while (0)

static sealprov_device_info dev(const char *section, const char *type, int ordinal) {
  sealprov_device_info d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  snprintf(d.section, sizeof d.section, "%s", section);
  snprintf(d.type, sizeof d.type, "%s", type);
  d.ordinal = ordinal;
  return d;
}

/* gpu_index on table t must give status st, mask m, and text containing want (where on
 * success, the message on failure). */
static void expect(const char *name, const sealprov_device_info *t, size_t n, int gpu_index, int st,
                   uint64_t m, const char *want) {
  uint64_t mask = 0xdead;
  char where[160], msg[600];
  int got = c2_map_gpu_index(t, n, gpu_index, &mask, where, sizeof where, msg, sizeof msg);
  CHECK(got == st, "%s, gpu_index %d: status %d, expected %d (%s)", name, gpu_index, got, st,
        got == SEALPROV_OK ? where : msg);
  CHECK(mask == m, "%s, gpu_index %d: mask 0x%llx, expected 0x%llx", name, gpu_index,
        (unsigned long long)mask, (unsigned long long)m);
  const char *text = st == SEALPROV_OK ? where : msg;
  CHECK(strstr(text, want) != NULL, "%s, gpu_index %d: '%s' lacks '%s'", name, gpu_index, text,
        want);
  printf("  %s, gpu_index %d -> %s0x%llx: %s\n", name, gpu_index,
         st == SEALPROV_OK ? "mask " : "refused, mask ", (unsigned long long)mask, text);
}

int main(void) {
  /* Two GPUs listed as the INI names them: [gpu-a] is CUDA ordinal 2, [gpu-b] ordinal 0. */
  const sealprov_device_info cuda[] = {dev("gpu-a", "cuda", 2), dev("gpu-b", "cuda", 0)};
  expect("cuda", cuda, 2, 0, SEALPROV_OK, 0x2, "device 1 [gpu-b], CUDA ordinal 0");
  expect("cuda", cuda, 2, 2, SEALPROV_OK, 0x1, "device 0 [gpu-a], CUDA ordinal 2");
  expect("cuda", cuda, 2, 1, SEALPROV_ERR_INVALID_ARGUMENT, 0,
         "gpu_index 1: no device of the provider is CUDA ordinal 1 (its CUDA devices: "
         "2 [gpu-a], 0 [gpu-b]");
  expect("cuda", cuda, 2, -1, SEALPROV_OK, 0, "any device");
  expect("cuda", cuda, 2, -2, SEALPROV_ERR_INVALID_ARGUMENT, 0, "gpu_index -2: must be -1");

  /* CPU device first, one GPU: gpu_index is the CUDA ordinal, never the table index. */
  const sealprov_device_info mixed[] = {dev("cpu0", "cpu", -1), dev("gpu0", "cuda", 0)};
  expect("mixed", mixed, 2, 0, SEALPROV_OK, 0x2, "device 1 [gpu0], CUDA ordinal 0");
  expect("mixed", mixed, 2, 1, SEALPROV_ERR_INVALID_ARGUMENT, 0, "its CUDA devices: 0 [gpu0]");

  /* CPU devices only (CI): the table index; past the table, submit decides. */
  const sealprov_device_info cpu[] = {dev("c0", "cpu", -1), dev("c1", "cpu", -1),
                                      dev("c2", "cpu", -1)};
  expect("cpu", cpu, 3, 0, SEALPROV_OK, 0x1, "device 0 [c0] (no CUDA devices");
  expect("cpu", cpu, 3, 2, SEALPROV_OK, 0x4, "device 2 [c2]");
  /* past the table: the mask says so, and submit refuses it with the module's message */
  expect("cpu", cpu, 3, 5, SEALPROV_OK, 0x20,
         "device 5 (no CUDA devices: gpu_index is the "
         "table index, which has 3)");
  expect("cpu", cpu, 3, 63, SEALPROV_OK, UINT64_C(1) << 63, "device 63");
  expect("cpu", cpu, 3, 64, SEALPROV_ERR_INVALID_ARGUMENT, 0,
         "gpu_index 64: the provider has no CUDA devices and 3 device(s)");

  /* create_SRS's INFO line: who proves, every device of the table. */
  sealprov_device_info who[] = {dev("gpu1", "cuda", 0), dev("cpu0", "cpu", -1)};
  snprintf(who[0].name, sizeof who[0].name, "NVIDIA H200");
  snprintf(who[0].uuid, sizeof who[0].uuid, "GPU-22222222-1111-2222-3333-444444444444");
  snprintf(who[1].name, sizeof who[1].name, "CPU");
  char line[512];
  c2_format_prover("0.9.1", "/opt/sp/sealprov.so", "0.9.1", "/opt/sp/libsealprov_c2.so.0", who, 2,
                   line, sizeof line);
  static const char want[] =
      "sealprov 0.9.1 (module /opt/sp/sealprov.so; libsealprov_c2 0.9.1 "
      "/opt/sp/libsealprov_c2.so.0), 2 device(s): [gpu1] cuda ordinal 0 NVIDIA H200 "
      "GPU-22222222-1111-2222-3333-444444444444; [cpu0] cpu";
  CHECK(strcmp(line, want) == 0, "prover line:\n  got  %s\n  want %s", line, want);
  printf("  prover line: %s\n", line);
  /* a short buffer is cut, never overrun */
  char small[40];
  memset(small, 'x', sizeof small);
  c2_format_prover("0.9.1", "/opt/sp/sealprov.so", "0.9.1", "?", who, 2, small, 24);
  CHECK(strlen(small) == 23 && small[24] == 'x', "cut line: '%.40s'", small);

  if (failures) {
    fprintf(stderr, "test_c2_map: %d check(s) failed\n", failures);
    return 1;
  }
  printf("test_c2_map: all checks passed\n");
  return 0;
}
