/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* witness.c -- `sealprov wtns IN.spa OUT.wtns`, the developer command of witness-only
 * proving: a partition's witness as circom writes it (for tests and for hosts that want
 * to try .wtns). `prove --r1cs` itself is prove_witness.c; `bench witness` is
 * bench/bench_witness.c. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "wtns.h"
#include "spa.h"

static void wtns_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov wtns PARTITION.spa OUT.wtns\n"
          "  Writes the partition's witness (ONE, the public inputs, then aux) as a circom\n"
          "  .wtns file (version 2, BLS12-381), for `sealprov prove --r1cs`.\n");
}

int cmd_wtns(int argc, char **argv) {
  sp_cli_args a = {.usage = wtns_usage};
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 2, 2, "PARTITION.spa and OUT.wtns")) return a.status;
  argv += a.first - 1; /* argv[1], argv[2]: the two files */
  char err[1024];
  sp_spa *spa = NULL;
  if (sp_spa_read(argv[1], &spa, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s", err);
    return 1;
  }
  uint64_t ni = spa->asg.inp_size, na = spa->asg.aux_size;
  uint8_t *v = malloc(32 * (ni + na) + 32);
  int ret = 1;
  if (!v) {
    sp_cli_error("out of memory");
    goto out;
  }
  memcpy(v, spa->asg.inp_assignment, 32 * ni);
  memcpy(v + 32 * ni, spa->asg.aux_assignment, 32 * na);
  if (sp_wtns_write(argv[2], v, ni + na, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s", err);
    goto out;
  }
  ret = 0;
out:
  free(v);
  sp_spa_free(spa);
  return ret;
}
