/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* witness.h -- witness-only proving through the module (tools/prove_witness.c). */
#ifndef SEALPROV_TOOLS_WITNESS_H
#define SEALPROV_TOOLS_WITNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "g16_util.h"

/* `sealprov prove --r1cs R1CS`: on a module opened with sp_cli_host_open, srs_load
 * (params), cs_load (r1cs), each file read as a witness (.wtns split at the system's
 * inp_size, or a .spa whose inputs and aux are taken), one job naming the system
 * (zero r and s if zero_rs: no zero-knowledge, tests only), wait. Same report and
 * return convention as g16_prove_partitions. */
int g16_prove_witness(sp_cli_host *h, const char *params, const char *r1cs, char **files, size_t n,
                      bool zero_rs, bool progress, uint8_t *proofs, g16_prove_report *rep);

#endif
