/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_kit_witness.h -- a witness of the kit (kit/circuit.h) in the form libsealprov_c2's
 * entry points take, for the test programs that call them as Curio does (c2_child,
 * c2_post_load). */
#ifndef SEALPROV_TESTS_C2_KIT_WITNESS_H
#define SEALPROV_TESTS_C2_KIT_WITNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "circuit.h"
#include "sealprov_c2.h"

/* w's scalars (a, b, c, inputs, aux back to back) converted to Montgomery form in place
 * with the library's own conversion on up to threads threads (a 2^27 witness is 16.7 GB:
 * no second copy), and *asg its Assignment over them. false with err on a failed
 * conversion. */
bool c2_kit_witness(sp_witness *w, unsigned threads, c2_assignment *asg, char *err, size_t errlen);

#endif
