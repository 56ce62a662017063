/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_wtns.c -- `sealprov wtns IN.spa OUT.wtns`, the developer command of witness-only
 * proving: a partition's witness as circom writes it (for tests and for hosts that want
 * to try .wtns). `prove --r1cs` itself is tools/prove_witness.c; `bench witness` is
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
          "usage: sealprov wtns [--force] PARTITION.spa OUT.wtns\n"
          "  Writes the partition's witness (ONE, the public inputs, then aux) as a circom\n"
          "  .wtns file (version 2, BLS12-381), for `sealprov prove --r1cs`. An existing\n"
          "  OUT.wtns that is not a .wtns file is replaced only with --force; the\n"
          "  partition file never.\n");
}

int cmd_wtns(int argc, char **argv) {
  static const struct option opts[] = {{"force", no_argument, NULL, 'f'}, {NULL, 0, NULL, 0}};
  sp_cli_args a = {.usage = wtns_usage, .opts = opts};
  bool force = false;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0)
    if (c == 'f') force = true;
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 2, 2, "PARTITION.spa and OUT.wtns")) return a.status;
  argv += a.first - 1; /* argv[1], argv[2]: the two files */
  sp_cli_file in = {"partition file", argv[1]};
  if (!sp_cli_file_is("wtns", argv[1], SP_KIND_BIT(SP_KIND_SPA),
                      "a partition file (.spa) first, then the .wtns to write") ||
      !sp_cli_output_check("OUT.wtns", argv[2], SP_KIND_WTNS, force, &in, 1))
    return 2;
  char err[1024];
  sp_spa *spa = NULL;
  if (sp_spa_read(argv[1], &spa, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s", err);
    return 1;
  }
  if (!sp_cli_input0_is_one(&spa->asg, argv[1], err, sizeof err)) {
    sp_cli_error("%s", err); /* a circom witness starts with ONE too */
    sp_spa_free(spa);
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
  sp_cli_output o;
  if (!sp_cli_output_begin(&o, "OUT.wtns", argv[2])) goto out;
  fclose(o.f); /* the kit's writer takes a name: the temporary file's */
  o.f = NULL;
  if (sp_wtns_write(o.tmp, v, ni + na, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("%s", err);
    sp_cli_output_abort(&o);
    goto out;
  }
  if (!sp_cli_output_commit(&o)) goto out;
  ret = 0;
out:
  free(v);
  sp_spa_free(spa);
  return ret;
}
