/* t_api_hostile.c — every function of gpuquad.h, with each pointer argument
 * NULL in turn and with counts that no object can hold (SIZE_MAX, the first
 * n whose n * size overflows, the first past PTRDIFF_MAX): a GQ_E* status
 * and a message (gq_last_error and the error handler), or for a function
 * without a status its documented neutral value and a message; never a
 * crash, never success.  After each hostile call, valid calls on the same
 * context must still give exact answers; finally every kind of valid call
 * runs once more.
 *
 * On a CPU context (no argument) each hostile call runs in a child process,
 * so a crash fails one case by name; the parent runs no parallel region
 * before the last child, as libgomp's thread pool does not survive fork.
 * With the argument "cuda" (tests/api_hostile.gpu) the same calls run
 * in-process on CUDA device 0, the vectors in device memory (a CUDA context
 * does not survive fork either); exit 77 without a device. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuquad.h"
#include "tap.h"

enum { N = 8, UNEXPECTED = 15, ANY_ERROR = -1 };
#define P GQ_NAN_PROPAGATE
#define D GQ_PRECISION_DOUBLE
#define PI 3.141592653589793
#define TOO_MANY(type) (SIZE_MAX / sizeof(type) + 1) /* n * sizeof(type) overflows */
#define PAST_PTRDIFF(type) ((size_t)PTRDIFF_MAX / sizeof(type) + 1)

static gq_context *ctx;
static int cuda;                      /* the "cuda" mode: in-process, device 0 */
static double *vx, *vy, *vbuf, *vd;   /* vectors in the context's memory */
static float *vxf, *vyf;
static gq_rms_result *vrms;           /* an asynchronous rms result, likewise */
static const gq_integrand *circle;
static gq_integrand *expr;
static double x[N], y[N], buf[N], d;
static void *vp;
static gq_reader *rp;
static float xf[N], yf[N];
static gq_sum_acc sacc;
static gq_rms_acc racc;
static gq_stats_acc tacc;
static gq_rms_result rres;
static gq_stats_result tres;
static gq_trapezoid_result tr;
static gq_reference ref;
static const gq_box square = {2, {0, 0}, {1, 1}, {1, 1}};
static gq_rule_spec spec;
static gq_mc_options mo;
static gq_mc_result mr;
static gq_mc_reference mref;
static gq_stream_info info;
static char msg[256];
static const char text[] = "1\n2\n3\n4\n";
static const char *const one_param[] = {"k=2"};
static const char *const null_param[] = {NULL};
static const char *const second_null[] = {"k=2", NULL};
static int handler_calls;

static void count_handler(int status, const char *message)
{
  (void)status;
  (void)message;
  handler_calls++;
}

/* The vectors where the context computes: the host arrays on a CPU
 * context, device copies on a CUDA one. */
static int place_vectors(void)
{
  if (!cuda) {
    vx = x, vy = y, vbuf = buf, vd = &d, vxf = xf, vyf = yf, vrms = &rres;
    return GQ_SUCCESS;
  }
  void *p[7];
  const size_t bytes[7] = {sizeof x, sizeof y, sizeof buf, sizeof d, sizeof xf, sizeof yf, sizeof rres};
  const void *from[7] = {x, y, buf, &d, xf, yf, &rres};
  for (int k = 0; k < 7; k++)
    if (gq_alloc(ctx, bytes[k], &p[k]) != GQ_SUCCESS || gq_copy_to(ctx, p[k], from[k], bytes[k]) != GQ_SUCCESS)
      return GQ_ENOMEM;
  vx = p[0], vy = p[1], vbuf = p[2], vd = p[3], vxf = p[4], vyf = p[5], vrms = p[6];
  return GQ_SUCCESS;
}

/* A fresh reader over text (each case consumes its own). */
static gq_reader *rd(void)
{
  gq_reader *r;
  if (gq_reader_open_mem(text, sizeof text - 1, "text", NULL, &r, msg, sizeof msg) != GQ_SUCCESS)
    abort();
  return r;
}

/* ---- calls that must also leave their out-pointer NULL ------------------ */
static int open_status(int device)
{
  gq_context *c = (gq_context *)&c; /* not NULL: the call must clear it */
  const int status = gq_context_open(&c, device);
  return c == NULL ? status : UNEXPECTED;
}

static int alloc_status(size_t bytes)
{
  void *p = &p;
  const int status = gq_alloc(ctx, bytes, &p);
  return p == NULL ? status : UNEXPECTED;
}

static int parse_status(const char *t, const char *const *params, size_t nparams, int dims)
{
  gq_integrand *f = (gq_integrand *)&f;
  gq_parse_error err;
  const int status = gq_integrand_parse(t, params, nparams, dims, &f, &err);
  return f == NULL && err.status == status && err.message[0] ? status : UNEXPECTED;
}

static int mem_reader_status(const void *data, size_t size)
{
  gq_reader *r = (gq_reader *)&r;
  const int status = gq_reader_open_mem(data, size, "m", NULL, &r, msg, sizeof msg);
  return r == NULL && msg[0] ? status : UNEXPECTED;
}

static int fd_reader_status(int fd)
{
  gq_reader *r = (gq_reader *)&r;
  const int status = gq_reader_open_fd(fd, NULL, NULL, &r, NULL, 0);
  return r == NULL ? status : UNEXPECTED;
}

static int reader_opts_status(gq_format format, int column)
{
  gq_reader_opts o = {.format = format, .column = column};
  gq_reader *r = (gq_reader *)&r;
  const int status = gq_reader_open_mem(text, sizeof text - 1, "m", &o, &r, NULL, 0);
  return r == NULL ? status : UNEXPECTED;
}

static int mc_status(uint64_t n, int dims)
{
  gq_mc_options o = mo;
  o.n = n;
  o.dims = dims;
  return gq_mc_mean(ctx, circle, &o, &mr);
}

static int limits_are_nan(void)
{
  double a = 0, b = 0;
  gq_integrand_limits(NULL, &a, &b);
  return isnan(a) && isnan(b);
}

/* ---- the child's report ------------------------------------------------- */
/* Valid calls after the hostile one, in the same process: exact answers. */
static int still_works(void)
{
  double sum = 0;
  return gq_sum(ctx, N, vx, &sum) == GQ_SUCCESS && sum == 36.0 && gq_last_error()[0] == '\0' &&
         gq_integrand_eval(circle, 0.0) == 4.0 && gq_integrand_eval(expr, 3.0) == 6.0;
}

/* Exit code: the status (UNEXPECTED for a wrong value), 16 if
 * gq_last_error() said something, 32 if the handler ran, 64 if the valid
 * calls afterwards worked.  The message goes out as a TAP comment. */
static int report(int status)
{
  int code = status >= 0 && status < GQ_NSTATUS ? status : UNEXPECTED;
  if (gq_last_error()[0]) {
    code |= 16;
    printf("# %s\n", gq_last_error());
  }
  if (handler_calls)
    code |= 32;
  if (still_works())
    code |= 64;
  fflush(stdout);
  return code;
}

static pid_t start_case(void)
{
  fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(99);
  }
  if (pid == 0) {
    alarm(30); /* a hang fails the case as SIGALRM */
    handler_calls = 0;
  }
  return pid;
}

/* code: report()'s; want: a status, or ANY_ERROR; quiet: the call is a
 * documented no-op that need not leave a message. */
static void judge_code(int code, int want, int quiet, const char *call)
{
  const int status = code & 15;
  const int status_ok = want == ANY_ERROR ? status != GQ_SUCCESS && status != UNEXPECTED : status == want;
  const int said = quiet || (code & 48) == 48, works = (code & 64) != 0;
  tap_ok(status_ok && said && works, "%s -> %s%s%s", call,
         status == UNEXPECTED ? "a wrong value" : gq_strerror(status),
         said ? "" : ", without a message and a handler call",
         works ? "" : ", and valid calls then fail");
}

static void judge(pid_t pid, int want, int quiet, const char *call)
{
  int ws;
  if (waitpid(pid, &ws, 0) != pid) {
    perror("waitpid");
    exit(99);
  }
  if (WIFSIGNALED(ws)) {
    tap_ok(0, "%s: killed by signal %d", call, WTERMSIG(ws));
    diag("%s", strsignal(WTERMSIG(ws)));
    return;
  }
  judge_code(WEXITSTATUS(ws), want, quiet, call);
}

/* One case: in a child (CPU), or in-process (cuda). */
#define RUN_CASE(want, quiet, desc, value)            \
  do {                                                \
    if (cuda) {                                       \
      handler_calls = 0;                              \
      judge_code(report(value), want, quiet, desc);   \
    } else {                                          \
      const pid_t pid_ = start_case();                \
      if (pid_ == 0)                                  \
        _exit(report(value));                         \
      judge(pid_, want, quiet, desc);                 \
    }                                                 \
  } while (0)
/* A status call; a truth about a function without one (message required);
 * a truth about a documented no-op (no message required). */
#define STATUS(want, call) RUN_CASE(want, 0, #call, call)
#define TRUTH(quiet, expr) RUN_CASE(GQ_SUCCESS, quiet, #expr, (expr) ? GQ_SUCCESS : UNEXPECTED)
#define SAYS(expr) TRUTH(0, expr)
#define QUIET(expr) TRUTH(1, expr)

/* One array argument of n elements: each pointer NULL, then sizes that no
 * array of that type can have. */
#define ACCUMULATE_1(fn, acc, type, a)                    \
  STATUS(GQ_EINVAL, fn(NULL, acc, N, a));                 \
  STATUS(GQ_EINVAL, fn(ctx, NULL, N, a));                 \
  STATUS(GQ_EINVAL, fn(ctx, acc, N, NULL));               \
  STATUS(GQ_EINVAL, fn(ctx, acc, SIZE_MAX, a));           \
  STATUS(GQ_EINVAL, fn(ctx, acc, TOO_MANY(type), a));     \
  STATUS(GQ_EINVAL, fn(ctx, acc, PAST_PTRDIFF(type), a))
#define ACCUMULATE_2(fn, acc, type, a, b)                 \
  STATUS(GQ_EINVAL, fn(NULL, acc, N, a, b));              \
  STATUS(GQ_EINVAL, fn(ctx, NULL, N, a, b));              \
  STATUS(GQ_EINVAL, fn(ctx, acc, N, NULL, b));            \
  STATUS(GQ_EINVAL, fn(ctx, acc, N, a, NULL));            \
  STATUS(GQ_EINVAL, fn(ctx, acc, SIZE_MAX, a, b));        \
  STATUS(GQ_EINVAL, fn(ctx, acc, TOO_MANY(type), a, b));  \
  STATUS(GQ_EINVAL, fn(ctx, acc, PAST_PTRDIFF(type), a, b))
#define ONE_SHOT_1(fn, type, a, out)                      \
  STATUS(GQ_EINVAL, fn(NULL, N, a, out));                 \
  STATUS(GQ_EINVAL, fn(ctx, N, NULL, out));               \
  STATUS(GQ_EINVAL, fn(ctx, N, a, NULL));                 \
  STATUS(GQ_EINVAL, fn(ctx, SIZE_MAX, a, out));           \
  STATUS(GQ_EINVAL, fn(ctx, TOO_MANY(type), a, out));     \
  STATUS(GQ_EINVAL, fn(ctx, PAST_PTRDIFF(type), a, out))
#define ONE_SHOT_2(fn, type, a, b, out)                   \
  STATUS(GQ_EINVAL, fn(NULL, N, a, b, out));              \
  STATUS(GQ_EINVAL, fn(ctx, N, NULL, b, out));            \
  STATUS(GQ_EINVAL, fn(ctx, N, a, NULL, out));            \
  STATUS(GQ_EINVAL, fn(ctx, N, a, b, NULL));              \
  STATUS(GQ_EINVAL, fn(ctx, SIZE_MAX, a, b, out));        \
  STATUS(GQ_EINVAL, fn(ctx, TOO_MANY(type), a, b, out));  \
  STATUS(GQ_EINVAL, fn(ctx, PAST_PTRDIFF(type), a, b, out))

static void hostile_status_and_contexts(void)
{
  QUIET(strcmp(gq_strerror(-1), "unknown status") == 0);
  QUIET(strcmp(gq_strerror(INT_MAX), "unknown status") == 0);
  QUIET(strcmp(gq_strerror(GQ_NSTATUS), "unknown status") == 0);
  QUIET(gq_version() != NULL && gq_last_error() != NULL);
  QUIET(gq_set_error_handler(gq_set_error_handler(NULL)) == NULL); /* NULL: the default, then ours back */
  QUIET(gq_cuda_device_count() >= 0);

  STATUS(GQ_EINVAL, gq_context_open(NULL, GQ_DEVICE_CPU));
  STATUS(GQ_EINVAL, open_status(-3));
  STATUS(GQ_EINVAL, open_status(INT_MIN));
  STATUS(ANY_ERROR, open_status(INT_MAX));
  SAYS(gq_context_create(-3) == NULL);
  QUIET((gq_context_free(NULL), 1));
  STATUS(GQ_EINVAL, gq_context_set_stream(NULL, NULL));
  /* NULL is the context's own stream on CUDA (a success says nothing) */
  RUN_CASE(cuda ? GQ_SUCCESS : GQ_EUNSUP, cuda, "gq_context_set_stream(ctx, NULL)", gq_context_set_stream(ctx, NULL));
  SAYS(gq_context_backend(NULL) == -1);
  SAYS(strcmp(gq_context_device_name(NULL), "") == 0);
  SAYS(gq_context_threads(NULL) == 0);
  SAYS((gq_context_set_jit_cache(NULL, 1), 1));
}

static void hostile_integrands(void)
{
  QUIET(gq_integrand_builtin(NULL) == NULL);
  QUIET(gq_integrand_builtin_at(SIZE_MAX) == NULL);
  STATUS(GQ_EINVAL, parse_status(NULL, NULL, 0, 1));
  STATUS(GQ_EINVAL, gq_integrand_parse("x", NULL, 0, 1, NULL, NULL));
  STATUS(GQ_EINVAL, parse_status("k*x", NULL, 1, 1));
  STATUS(GQ_EINVAL, parse_status("circle", NULL, 1, 1));
  STATUS(GQ_EINVAL, parse_status("k*x", null_param, 1, 1));
  STATUS(GQ_EINVAL, parse_status("k", null_param, 1, 1));
  STATUS(GQ_EINVAL, parse_status("circle", null_param, 1, 1));
  STATUS(GQ_EINVAL, parse_status("k*x", second_null, 2, 1));
  STATUS(GQ_EINVAL, parse_status("k*x", one_param, SIZE_MAX, 1));
  STATUS(GQ_EINVAL, parse_status("k*x", one_param, TOO_MANY(char *), 1));
  STATUS(GQ_EINVAL, parse_status("k*x", one_param, PAST_PTRDIFF(char *), 1));
  STATUS(GQ_EINVAL, parse_status("x", NULL, 0, 0));
  STATUS(GQ_EINVAL, parse_status("x", NULL, 0, -1));
  STATUS(GQ_EINVAL, parse_status("x", NULL, 0, INT_MIN));
  STATUS(GQ_EINVAL, parse_status("x", NULL, 0, INT_MAX));
  QUIET((gq_integrand_free(NULL), 1));
  SAYS(gq_integrand_is_builtin(NULL) == 0);
  SAYS(gq_integrand_dims(NULL) == 0);
  SAYS(strcmp(gq_integrand_name(NULL), "") == 0);
  SAYS(strcmp(gq_integrand_formula(NULL), "") == 0);
  SAYS(strcmp(gq_integrand_description(NULL), "") == 0);
  SAYS(limits_are_nan());
  QUIET((gq_integrand_limits(circle, NULL, NULL), 1));
  SAYS(isnan(gq_integrand_eval(NULL, 0.5)));
}

static void hostile_trapezoid_and_mc(void)
{
  STATUS(GQ_EINVAL, gq_integrate_trapezoid(NULL, circle, 0, 1, N, D, &tr));
  STATUS(GQ_EINVAL, gq_integrate_trapezoid(ctx, NULL, 0, 1, N, D, &tr));
  STATUS(GQ_EINVAL, gq_integrate_trapezoid(ctx, circle, 0, 1, N, D, NULL));
  STATUS(GQ_EINVAL, gq_integrate_trapezoid(ctx, circle, 0, 1, 0, D, &tr));
  STATUS(GQ_EINVAL, gq_integrate_trapezoid(ctx, circle, 0, 1, UINT64_MAX, D, &tr));
  STATUS(GQ_EINVAL, gq_integrate_reference(NULL, 0, 1, &ref));
  STATUS(GQ_EINVAL, gq_integrate_reference(circle, 0, 1, NULL));
  STATUS(GQ_EINVAL, gq_integrate_reference_box(NULL, &square, &ref));
  STATUS(GQ_EINVAL, gq_integrate_reference_box(circle, NULL, &ref));
  STATUS(GQ_EINVAL, gq_integrate_reference_box(circle, &square, NULL));
  STATUS(GQ_EINVAL, gq_rule_spec_parse(NULL, &spec));
  STATUS(GQ_EINVAL, gq_rule_spec_parse("simpson", NULL));
  STATUS(GQ_EINVAL, gq_trapezoid_check(NULL, D, &ref, &d));
  STATUS(GQ_EINVAL, gq_trapezoid_check(&tr, D, NULL, &d));
  STATUS(GQ_EINVAL, gq_trapezoid_check(NULL, D, NULL, NULL));

  SAYS((gq_mc_options_init(NULL), 1));
  STATUS(GQ_EINVAL, gq_mc_mean(NULL, circle, &mo, &mr));
  STATUS(GQ_EINVAL, gq_mc_mean(ctx, NULL, &mo, &mr));
  STATUS(GQ_EINVAL, gq_mc_mean(ctx, circle, NULL, &mr));
  STATUS(GQ_EINVAL, gq_mc_mean(ctx, circle, &mo, NULL));
  STATUS(GQ_EINVAL, mc_status(UINT64_MAX, 1));
  STATUS(GQ_EINVAL, mc_status(1000, INT_MAX));
  STATUS(GQ_EINVAL, mc_status(1000, INT_MIN));
  STATUS(GQ_EINVAL, gq_mc_reference_gsl(NULL, &mo, &mref));
  STATUS(GQ_EINVAL, gq_mc_reference_gsl(circle, NULL, &mref));
  STATUS(GQ_EINVAL, gq_mc_reference_gsl(circle, &mo, NULL));
  STATUS(GQ_EINVAL, gq_mc_check(NULL, &mref, &d));
  STATUS(GQ_EINVAL, gq_mc_check(&mr, NULL, &d));
  STATUS(GQ_EINVAL, gq_mc_check(NULL, NULL, NULL));
}

static void hostile_memory(void)
{
  STATUS(GQ_EINVAL, gq_alloc(NULL, N, &vp));
  STATUS(GQ_EINVAL, gq_alloc(ctx, N, NULL));
  STATUS(GQ_ENOMEM, alloc_status(SIZE_MAX));
  STATUS(GQ_ENOMEM, alloc_status(SIZE_MAX - 255)); /* rounded up to 256 bytes: wraps to 0 */
  STATUS(GQ_ENOMEM, alloc_status(SIZE_MAX - 254));
  STATUS(GQ_ENOMEM, alloc_status(SIZE_MAX / 2 + 1));
  STATUS(GQ_ENOMEM, alloc_status((size_t)PTRDIFF_MAX + 1));
  QUIET((gq_free(ctx, NULL), 1));
  SAYS((gq_free(NULL, malloc(1)), 1));
  STATUS(GQ_EINVAL, gq_copy_to(NULL, vbuf, x, sizeof x));
  STATUS(GQ_EINVAL, gq_copy_to(ctx, NULL, x, sizeof x));
  STATUS(GQ_EINVAL, gq_copy_to(ctx, vbuf, NULL, sizeof x));
  STATUS(GQ_EINVAL, gq_copy_to(ctx, vbuf, x, SIZE_MAX));
  STATUS(GQ_EINVAL, gq_copy_to(ctx, vbuf, x, (size_t)PTRDIFF_MAX + 1));
  STATUS(GQ_EINVAL, gq_copy_from(NULL, buf, vx, sizeof x));
  STATUS(GQ_EINVAL, gq_copy_from(ctx, NULL, vx, sizeof x));
  STATUS(GQ_EINVAL, gq_copy_from(ctx, buf, NULL, sizeof x));
  STATUS(GQ_EINVAL, gq_copy_from(ctx, buf, vx, SIZE_MAX));
  STATUS(GQ_EINVAL, gq_copy_from(ctx, buf, vx, (size_t)PTRDIFF_MAX + 1));
  STATUS(GQ_EINVAL, gq_generate(NULL, GQ_GEN_UNIFORM, N, 1, vbuf));
  STATUS(GQ_EINVAL, gq_generate(ctx, GQ_GEN_UNIFORM, N, 1, NULL));
  STATUS(GQ_EINVAL, gq_generate(ctx, (gq_gen_kind)99, N, 1, vbuf));
  STATUS(GQ_EINVAL, gq_generate(ctx, (gq_gen_kind)-1, N, 1, vbuf));
  STATUS(GQ_EINVAL, gq_generate(ctx, GQ_GEN_LINSPACE, SIZE_MAX, 1, vbuf));
  STATUS(GQ_EINVAL, gq_generate(ctx, GQ_GEN_UNIFORM, TOO_MANY(double), 1, vbuf));
  STATUS(GQ_EINVAL, gq_generate(ctx, GQ_GEN_NORMAL, PAST_PTRDIFF(double), 1, vbuf));
  STATUS(GQ_EINVAL, gq_generate_f(NULL, GQ_GEN_UNIFORM, N, 1, vxf));
  STATUS(GQ_EINVAL, gq_generate_f(ctx, GQ_GEN_UNIFORM, N, 1, NULL));
  STATUS(GQ_EINVAL, gq_generate_f(ctx, GQ_GEN_LINSPACE, SIZE_MAX, 1, vxf));
  STATUS(GQ_EINVAL, gq_generate_f(ctx, GQ_GEN_UNIFORM, TOO_MANY(float), 1, vxf));
  STATUS(GQ_EINVAL, gq_generate_f(ctx, GQ_GEN_NORMAL, PAST_PTRDIFF(float), 1, vxf));
}

static void hostile_reductions(void)
{
  SAYS((gq_sum_acc_init(NULL), 1));
  SAYS((gq_rms_acc_init(NULL), 1));
  SAYS((gq_stats_acc_init(NULL), 1));
  SAYS((gq_sum_acc_merge(NULL, &sacc), 1));
  SAYS((gq_sum_acc_merge(&sacc, NULL), 1));
  SAYS((gq_rms_acc_merge(NULL, &racc), 1));
  SAYS((gq_rms_acc_merge(&racc, NULL), 1));
  SAYS((gq_stats_acc_merge(NULL, &tacc), 1));
  SAYS((gq_stats_acc_merge(&tacc, NULL), 1));

  ACCUMULATE_1(gq_sum_accumulate, &sacc, double, vx);
  ACCUMULATE_1(gq_sum_accumulate_f, &sacc, float, vxf);
  ACCUMULATE_2(gq_dot_accumulate, &sacc, double, vx, vy);
  ACCUMULATE_2(gq_dot_accumulate_f, &sacc, float, vxf, vyf);
  ACCUMULATE_2(gq_rms_accumulate, &racc, double, vx, vy);
  ACCUMULATE_2(gq_rms_accumulate_f, &racc, float, vxf, vyf);
  ACCUMULATE_1(gq_stats_accumulate, &tacc, double, vx);
  ACCUMULATE_1(gq_stats_accumulate_f, &tacc, float, vxf);

  STATUS(GQ_EINVAL, gq_sum_finish(NULL, P, &d));
  STATUS(GQ_EINVAL, gq_sum_finish(&sacc, P, NULL));
  STATUS(GQ_EINVAL, gq_rms_finish(NULL, P, &rres));
  STATUS(GQ_EINVAL, gq_rms_finish(&racc, P, NULL));
  STATUS(GQ_EINVAL, gq_stats_finish(NULL, P, &tres));
  STATUS(GQ_EINVAL, gq_stats_finish(&tacc, P, NULL));

  ONE_SHOT_1(gq_sum, double, vx, &d);
  ONE_SHOT_1(gq_sum_f, float, vxf, &d);
  ONE_SHOT_2(gq_dot, double, vx, vy, &d);
  ONE_SHOT_2(gq_dot_f, float, vxf, vyf, &d);
  ONE_SHOT_2(gq_rms_diff, double, vx, vy, &rres);
  ONE_SHOT_2(gq_rms_diff_f, float, vxf, vyf, &rres);
  ONE_SHOT_1(gq_stats, double, vx, &tres);
  ONE_SHOT_1(gq_stats_f, float, vxf, &tres);

  const int async = cuda ? GQ_SUCCESS : GQ_EUNSUP;
  STATUS(GQ_EINVAL, gq_sum_async(NULL, N, vx, vd));
  STATUS(GQ_EINVAL, gq_sum_async(ctx, N, NULL, vd));
  STATUS(GQ_EINVAL, gq_sum_async(ctx, N, vx, NULL));
  STATUS(ANY_ERROR, gq_sum_async(ctx, SIZE_MAX, vx, vd));
  STATUS(ANY_ERROR, gq_sum_async(ctx, TOO_MANY(double), vx, vd));
  QUIET(gq_sum_async(ctx, N, vx, vd) == async);
  STATUS(GQ_EINVAL, gq_dot_async(NULL, N, vx, vy, vd));
  STATUS(GQ_EINVAL, gq_dot_async(ctx, N, NULL, vy, vd));
  STATUS(GQ_EINVAL, gq_dot_async(ctx, N, vx, NULL, vd));
  STATUS(GQ_EINVAL, gq_dot_async(ctx, N, vx, vy, NULL));
  STATUS(ANY_ERROR, gq_dot_async(ctx, PAST_PTRDIFF(double), vx, vy, vd));
  QUIET(gq_dot_async(ctx, N, vx, vy, vd) == async);
  STATUS(GQ_EINVAL, gq_rms_diff_async(NULL, N, vx, vy, vrms));
  STATUS(GQ_EINVAL, gq_rms_diff_async(ctx, N, NULL, vy, vrms));
  STATUS(GQ_EINVAL, gq_rms_diff_async(ctx, N, vx, NULL, vrms));
  STATUS(GQ_EINVAL, gq_rms_diff_async(ctx, N, vx, vy, NULL));
  STATUS(ANY_ERROR, gq_rms_diff_async(ctx, SIZE_MAX, vx, vy, vrms));
  QUIET(gq_rms_diff_async(ctx, N, vx, vy, vrms) == async);
}

static void hostile_readers_and_streams(void)
{
  STATUS(GQ_EINVAL, gq_reader_open(NULL, NULL, &rp, msg, sizeof msg));
  STATUS(GQ_EINVAL, gq_reader_open("x.txt", NULL, NULL, msg, sizeof msg));
  STATUS(GQ_EINVAL, gq_reader_open(NULL, NULL, NULL, NULL, 0));
  STATUS(GQ_EINVAL, gq_reader_open_fd(0, "fd", NULL, NULL, msg, sizeof msg));
  STATUS(GQ_EINVAL, fd_reader_status(-1));
  STATUS(GQ_EINVAL, fd_reader_status(INT_MIN));
  STATUS(GQ_EIO, fd_reader_status(INT_MAX));
  STATUS(GQ_EIO, gq_reader_open("/nonexistent/x.txt", NULL, &rp, NULL, 0));
  STATUS(GQ_EINVAL, mem_reader_status(NULL, 8));
  STATUS(GQ_EINVAL, mem_reader_status(text, SIZE_MAX));
  STATUS(GQ_EINVAL, mem_reader_status(text, (size_t)PTRDIFF_MAX + 1));
  STATUS(GQ_EINVAL, gq_reader_open_mem(text, 8, "m", NULL, NULL, msg, sizeof msg));
  STATUS(GQ_EINVAL, reader_opts_status((gq_format)99, 0));
  STATUS(GQ_EINVAL, reader_opts_status(GQ_FORMAT_TEXT, -1));
  QUIET((gq_reader_close(NULL), 1));
  SAYS(gq_reader_format(NULL) == GQ_FORMAT_AUTO);
  SAYS(gq_reader_dtype(NULL) == GQ_DTYPE_NONE);
  SAYS(gq_reader_length(NULL) == -1);
  SAYS(strcmp(gq_reader_name(NULL), "") == 0);

  STATUS(GQ_EINVAL, gq_sum_stream(NULL, rd(), &sacc, &info));
  STATUS(GQ_EINVAL, gq_sum_stream(ctx, NULL, &sacc, &info));
  STATUS(GQ_EINVAL, gq_sum_stream(ctx, rd(), NULL, &info));
  STATUS(GQ_EINVAL, gq_sum_stream(ctx, NULL, NULL, NULL));
  STATUS(GQ_EINVAL, gq_dot_stream(NULL, rd(), rd(), &sacc, &info));
  STATUS(GQ_EINVAL, gq_dot_stream(ctx, NULL, rd(), &sacc, &info));
  STATUS(GQ_EINVAL, gq_dot_stream(ctx, rd(), NULL, &sacc, &info));
  STATUS(GQ_EINVAL, gq_dot_stream(ctx, rd(), rd(), NULL, &info));
  { /* one reader as both inputs: refused, not read as two halves */
    gq_reader *same = rd();
    STATUS(GQ_EINVAL, gq_dot_stream(ctx, same, same, &sacc, &info));
    STATUS(GQ_EINVAL, gq_rms_stream(ctx, same, same, &racc, &info));
    gq_reader_close(same);
  }
  STATUS(GQ_EINVAL, gq_rms_stream(NULL, rd(), rd(), &racc, &info));
  STATUS(GQ_EINVAL, gq_rms_stream(ctx, NULL, rd(), &racc, &info));
  STATUS(GQ_EINVAL, gq_rms_stream(ctx, rd(), NULL, &racc, &info));
  STATUS(GQ_EINVAL, gq_rms_stream(ctx, rd(), rd(), NULL, &info));
  STATUS(GQ_EINVAL, gq_stats_stream(NULL, rd(), &tacc, &info));
  STATUS(GQ_EINVAL, gq_stats_stream(ctx, NULL, &tacc, &info));
  STATUS(GQ_EINVAL, gq_stats_stream(ctx, rd(), NULL, &info));
}

/* ---- valid calls, each kind once ------------------------------------------ */
static void valid_calls(void)
{
  gq_trapezoid_result r = {0};
  gq_reference exact = {0};
  double tol = NAN;
  int ok = gq_integrate_trapezoid(ctx, circle, 0, 1, 1000, D, &r) == GQ_SUCCESS &&
           gq_integrate_reference(circle, 0, 1, &exact) == GQ_SUCCESS &&
           gq_trapezoid_check(&r, D, &exact, &tol) == GQ_SUCCESS && fabs(r.result - PI) < 1e-4;
  tap_ok(ok, "valid: the trapezoid rule for circle on [0, 1] passes its check (%.17g)", r.result);

  double *dev = NULL, back[N] = {0}, sum = 0;
  ok = gq_alloc(ctx, sizeof x, (void **)&dev) == GQ_SUCCESS && dev && gq_copy_to(ctx, dev, x, sizeof x) == GQ_SUCCESS &&
       gq_sum(ctx, N, dev, &sum) == GQ_SUCCESS && gq_copy_from(ctx, back, dev, sizeof back) == GQ_SUCCESS;
  tap_ok(ok && sum == 36.0 && memcmp(back, x, sizeof x) == 0,
         "valid: gq_alloc, gq_copy_to, gq_sum = %g (36), gq_copy_from", sum);
  ok = dev && gq_generate(ctx, GQ_GEN_LINSPACE, 5, 0, dev) == GQ_SUCCESS &&
       gq_copy_from(ctx, back, dev, 5 * sizeof *back) == GQ_SUCCESS;
  tap_ok(ok && back[0] == 0.0 && back[1] == 0.25 && back[4] == 1.0, "valid: gq_generate linspace 0, %g, ..., %g",
         back[1], back[4]);
  gq_free(ctx, dev);

  gq_stats_result s = {0};
  gq_rms_result rr = {0};
  double dot = 0;
  ok = gq_stats(ctx, N, vx, &s) == GQ_SUCCESS;
  tap_ok(ok && s.mean == 4.5 && s.var_population == 5.25 && s.argmax == N - 1,
         "valid: gq_stats of 1..8: mean %g (4.5), population variance %g (5.25)", s.mean, s.var_population);
  ok = gq_dot(ctx, N, vx, vy, &dot) == GQ_SUCCESS && gq_rms_diff(ctx, N, vy, vx, &rr) == GQ_SUCCESS;
  tap_ok(ok && dot == 408.0 && rr.max_abs == 8.0, "valid: gq_dot = %g (408), rms max |y - x| = %g (8)", dot,
         rr.max_abs);

  gq_sum_acc acc;
  gq_sum_acc_init(&acc);
  gq_reader *r1 = rd();
  double streamed = 0;
  ok = gq_sum_stream(ctx, r1, &acc, &info) == GQ_SUCCESS &&
       gq_sum_finish(&acc, GQ_NAN_PROPAGATE, &streamed) == GQ_SUCCESS;
  tap_ok(ok && streamed == 10.0 && info.elements == 4 && gq_reader_format(r1) == GQ_FORMAT_TEXT &&
             gq_reader_dtype(r1) == GQ_DTYPE_F64 && strcmp(gq_reader_name(r1), "text") == 0,
         "valid: gq_sum_stream over a memory reader: %g (10)", streamed);
  gq_reader_close(r1);

  gq_mc_options o;
  gq_mc_options_init(&o);
  o.n = 4096;
  gq_mc_result m = {0};
  ok = gq_mc_mean(ctx, circle, &o, &m) == GQ_SUCCESS;
  tap_ok(ok && fabs(m.integral - PI) < 6 * m.integral_se, "valid: gq_mc_mean of circle: %.6g +- %.2g", m.integral,
         m.integral_se);
  tap_ok(gq_last_error()[0] == '\0', "after success gq_last_error() is empty ('%s')", gq_last_error());
}

int main(int argc, char **argv)
{
  cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  if (cuda && gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    return 77;
  }
  gq_set_error_handler(count_handler);
  for (int k = 0; k < N; k++) {
    x[k] = k + 1;
    y[k] = 2 * (k + 1);
    xf[k] = (float)x[k];
    yf[k] = (float)y[k];
  }
  gq_parse_error err;
  if (gq_context_open(&ctx, cuda ? 0 : GQ_DEVICE_CPU) != GQ_SUCCESS || place_vectors() != GQ_SUCCESS ||
      !(circle = gq_integrand_builtin("circle")) ||
      gq_integrand_parse("k*x", one_param, 1, 1, &expr, &err) != GQ_SUCCESS) {
    printf("Bail out! cannot set up: %s\n", gq_last_error());
    return 99;
  }
  diag("%s", gq_context_device_name(ctx));
  gq_mc_options_init(&mo);
  gq_sum_acc_init(&sacc);
  gq_rms_acc_init(&racc);
  gq_stats_acc_init(&tacc);

  hostile_status_and_contexts();
  hostile_integrands();
  hostile_trapezoid_and_mc();
  hostile_memory();
  hostile_reductions();
  hostile_readers_and_streams();
  valid_calls();

  gq_integrand_free(expr);
  gq_context_free(ctx);
  return tap_done();
}
