/* tap_context.h — the context of a C test that runs on the CPU, or on CUDA
 * device 0 when its first argument is "gpu" (then, on a machine without a
 * device, it prints a TAP skip and exits 77, as the .gpu scripts expect). */
#ifndef GQ_TAP_CONTEXT_H
#define GQ_TAP_CONTEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuquad.h"
#include "tap.h"

/* The context (NULL after a failed, reported tap_ok), and in *gpu whether
 * it is the GPU's. */
static gq_context *tap_context(int argc, char **argv, int *gpu)
{
  *gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
  if (*gpu && gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    exit(77);
  }
  gq_context *ctx = gq_context_create(*gpu ? 0 : GQ_DEVICE_CPU);
  tap_ok(ctx != NULL, "%s context: %s", *gpu ? "gpu" : "cpu", ctx ? gq_context_device_name(ctx) : gq_last_error());
  return ctx;
}

#endif
