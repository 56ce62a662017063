/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* stage.c -- the stage hook of stage.h: NULL unless a tracer sets it. */
#include "util/stage.h"

sp_gpu_stage_fn sp_gpu_stage_hook = 0;
