/* t_prestart.c — a context begun in the background (gq_context_prestart,
 * src/lib/prestart.c) opens as the same context opened directly, reports
 * what fails only where it is opened, and never calls the error handler
 * from its threads.
 *   t_prestart        everywhere: bad arguments, the CPU, AUTO as
 *                     gq_cuda_device_count() resolves it, a device that
 *                     does not exist, waiting with nothing begun
 *   t_prestart gpu    (tests/prestart.gpu) a CUDA device begun, with NVRTC:
 *                     the same results to the bit as a context opened
 *                     directly, twice in one process; exits 77 without a
 *                     GPU */
#include "config.h"

#include <math.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "tap.h"

static int handled;
static void count_handler(int status, const char *message)
{
  (void)status;
  (void)message;
  handled++;
}

/* The trapezoid rule for f over [0, 1] with n intervals on a fresh context
 * of device, begun in the background first or not: GQ_SUCCESS and *out. */
static int run(int device, int prestart, unsigned flags, const char *text, double *out, char *name, size_t len)
{
  gq_integrand *f = NULL;
  int st = gq_integrand_parse(text, NULL, 0, 1, &f, NULL);
  if (st != GQ_SUCCESS)
    return st;
  if (prestart && (st = gq_context_prestart(device, flags)) != GQ_SUCCESS) {
    gq_integrand_free(f);
    return st;
  }
  gq_context *ctx = NULL;
  gq_trapezoid_result r;
  st = gq_context_open(&ctx, device);
  if (st == GQ_SUCCESS)
    st = gq_integrate_trapezoid(ctx, f, 0.0, 1.0, 1000000, GQ_PRECISION_DOUBLE, &r);
  if (st == GQ_SUCCESS) {
    *out = r.result;
    snprintf(name, len, "%s", gq_context_device_name(ctx));
  }
  gq_context_free(ctx);
  gq_integrand_free(f);
  return st;
}

static void cpu_checks(void)
{
  gq_set_error_handler(count_handler);
  int st = gq_context_prestart(GQ_DEVICE_CPU - 1, 0);
  tap_ok(st == GQ_EINVAL && strstr(gq_last_error(), "bad device"), "a device below GQ_DEVICE_CPU: GQ_EINVAL (%s)",
         gq_last_error());
  handled = 0;
  gq_context_prestart_wait();
  tap_ok(1, "waiting with nothing begun returns");

  const char *quarter = "4*sqrt(1-x^2)"; /* pi, to the rule's 1.2e-9 at n = 1e6 */
  double direct = NAN, begun = NAN;
  char name_direct[128] = "", name_begun[128] = "";
  int a = run(GQ_DEVICE_CPU, 0, 0, quarter, &direct, name_direct, sizeof name_direct);
  int b = run(GQ_DEVICE_CPU, 1, GQ_PRESTART_JIT, quarter, &begun, name_begun, sizeof name_begun);
  tap_ok(a == GQ_SUCCESS && b == GQ_SUCCESS && memcmp(&direct, &begun, sizeof direct) == 0 &&
             fabs(begun - 3.14159265358979324) < 2e-9,
         "the CPU begun first: the same estimate to the bit (%.17g, %.17g)", direct, begun);

  /* AUTO: whatever gq_cuda_device_count says, begun or not */
  const int devices = gq_cuda_device_count();
  a = run(GQ_DEVICE_AUTO, 0, 0, quarter, &direct, name_direct, sizeof name_direct);
  b = run(GQ_DEVICE_AUTO, 1, GQ_PRESTART_JIT, quarter, &begun, name_begun, sizeof name_begun);
  tap_ok(a == GQ_SUCCESS && b == GQ_SUCCESS && strcmp(name_direct, name_begun) == 0 &&
             memcmp(&direct, &begun, sizeof direct) == 0,
         "AUTO begun first (%d CUDA device%s): %s, %.17g as opened directly (%s, %.17g)", devices,
         devices == 1 ? "" : "s", name_begun, begun, name_direct, direct);

  /* a device that does not exist: begun without a word, refused where opened */
  const int missing = devices + 3;
  st = gq_context_prestart(missing, GQ_PRESTART_JIT);
  tap_ok(st == GQ_SUCCESS, "beginning device %d, which does not exist, reports nothing (%d)", missing, st);
  gq_context *ctx = NULL;
  st = gq_context_open(&ctx, missing);
  char begun_msg[512];
  snprintf(begun_msg, sizeof begun_msg, "%s", gq_last_error());
  const int after_begun = handled;
  gq_context *again = NULL;
  const int st2 = gq_context_open(&again, missing);
  tap_ok(st == GQ_ENODEV && st2 == GQ_ENODEV && ctx == NULL && strcmp(begun_msg, gq_last_error()) == 0,
         "its opening fails as it does without the prestart: GQ_ENODEV, \"%s\"", begun_msg);
  tap_ok(after_begun == 1 && handled == 2,
         "the error handler ran once per failed open, never from the background (%d, %d)", after_begun, handled);
  gq_context_free(ctx);
  gq_context_free(again);
  gq_set_error_handler(NULL);

  /* begun and never opened: waiting ends it */
  gq_context_prestart(GQ_DEVICE_AUTO, GQ_PRESTART_JIT);
  gq_context_prestart(GQ_DEVICE_AUTO, GQ_PRESTART_JIT); /* a second call while the first runs adds nothing */
  gq_context_prestart_wait();
  gq_context_prestart_wait();
  tap_ok(1, "begun twice and never opened: waited for, twice");
}

/* On a GPU: an expression (NVRTC) and a built-in, begun and direct, to the bit. */
static void gpu_checks(void)
{
  const char *const texts[] = {"exp(-x)*sin(5*x)/(1+x^2)", "circle"};
  for (int t = 0; t < 2; t++) {
    double direct = NAN, begun = NAN, again = NAN;
    char name_direct[128] = "", name_begun[128] = "", name_again[128] = "";
    const int a = run(0, 0, 0, texts[t], &direct, name_direct, sizeof name_direct);
    const int b = run(0, 1, GQ_PRESTART_JIT, texts[t], &begun, name_begun, sizeof name_begun);
    const int c = run(0, 1, 0, texts[t], &again, name_again, sizeof name_again);
    if (a || b || c)
      diag("%s", gq_last_error());
    tap_ok(a == GQ_SUCCESS && b == GQ_SUCCESS && c == GQ_SUCCESS && strcmp(name_direct, name_begun) == 0 &&
               memcmp(&direct, &begun, sizeof direct) == 0 && memcmp(&direct, &again, sizeof direct) == 0 &&
               isfinite(direct),
           "%s on %s: begun first (with and without NVRTC) %.17g, %.17g; directly %.17g", texts[t], name_begun,
           begun, again, direct);
  }
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
    if (gq_cuda_device_count() == 0) {
      printf("1..0 # SKIP no CUDA device\n");
      return 77;
    }
    gpu_checks();
  } else {
    cpu_checks();
  }
  return tap_done();
}
