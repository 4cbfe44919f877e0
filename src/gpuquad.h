/* gpuquad.h — public interface of libgpuquad.
 *
 * libgpuquad estimates integrals and statistics with GPU reductions
 * (warp shuffle -> block -> global atomic accumulation), with a CPU (OpenMP)
 * backend that runs the same problems where no CUDA device is present.
 *
 * Conventions (after GSL): every name starts with gq_; functions return an
 * int status (GQ_SUCCESS or one of the GQ_E* codes below) and give results
 * through out-pointers, with the best estimate filled in before a soft error
 * is returned; gq_strerror() names a status.  The library never prints and
 * never exits: errors reach the caller as a status, gq_last_error() (a
 * thread-local message) and the replaceable error handler.
 *
 * Arguments: a NULL pointer where an object is needed, or a count of
 * elements that no object can hold (n * element size beyond PTRDIFF_MAX, as
 * an overflowed multiplication gives), is GQ_EINVAL (GQ_ENOMEM from
 * gq_alloc) with a message, never a crash.  Functions that return no status
 * record the message all the same and give a neutral value: a NULL context
 * has backend -1, device name "" and 0 threads; a NULL integrand is not a
 * built-in, has 0 dims, name "" and evaluates to NaN; a NULL reader has
 * format GQ_FORMAT_AUTO, dtype GQ_DTYPE_NONE, length -1 and name "".  A
 * NULL out-pointer means "not wanted" only where a comment says so.
 *
 * Threads: a context is not shared: use one per host thread (or guard it),
 * or one per CUDA stream.  Integrands are immutable after they are made and
 * may be shared.  Everything else is stateless, except the error handler,
 * which is process-wide: set it before starting threads.
 *
 * Compile and link:  cc prog.c $(pkg-config --cflags --libs gpuquad)
 */
#ifndef GPUQUAD_H
#define GPUQUAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes ------------------------------------------------------ */
enum {
  GQ_SUCCESS = 0,
  GQ_EINVAL  = 1,  /* invalid argument (bad limits, n out of range, ...)  */
  GQ_ENOMEM  = 2,  /* host or device allocation failed                    */
  GQ_ECUDA   = 3,  /* a CUDA runtime/driver call or kernel launch failed  */
  GQ_ENODEV  = 4,  /* no usable CUDA device (or built without CUDA)       */
  GQ_EDOM    = 5,  /* result not finite: the integrand produced NaN/Inf   */
  GQ_EIO     = 6,  /* file could not be opened, read or is truncated      */
  GQ_EFORMAT = 7,  /* file or text is malformed / unsupported format      */
  GQ_EPARSE  = 8,  /* expression could not be parsed                      */
  GQ_EUNSUP  = 9,  /* operation not supported by this backend/build       */
  GQ_ECHECK  = 10, /* result disagrees with the reference beyond tolerance */
  GQ_NSTATUS
};

const char *gq_strerror(int status);

/* The message that describes the last failure in the calling thread, with
 * details the status cannot carry ("cudaMalloc: out of memory", ...).  Never
 * NULL; "" after success.  Thread-local. */
const char *gq_last_error(void);

/* Replaceable error handler (after gsl_set_error_handler).  The library calls
 * it with the status and message of every failure before returning the status.
 * The default handler does nothing (the library never prints).  Returns the
 * previous handler; NULL restores the default. */
typedef void gq_error_handler_t(int status, const char *message);
gq_error_handler_t *gq_set_error_handler(gq_error_handler_t *handler);

/* Version: "MAJOR.MINOR.PATCH". */
const char *gq_version(void);

/* ---- contexts ---------------------------------------------------------- */
/* A context owns a backend: a CUDA device (with its stream, events and
 * scratch buffers, allocated once) or the CPU (OpenMP).  One context per host
 * thread; calls on one context must not overlap. */
typedef struct gq_context gq_context;

#define GQ_DEVICE_AUTO (-1) /* the first CUDA device if there is one, else the CPU */
#define GQ_DEVICE_CPU  (-2) /* the CPU backend                                    */
/* device >= 0 selects that CUDA device. */

enum { GQ_BACKEND_CPU = 0, GQ_BACKEND_CUDA = 1 };

/* Number of usable CUDA devices (0 without a GPU, a driver, or CUDA support). */
int gq_cuda_device_count(void);

/* Create a context on `device`.  GQ_ENODEV when a CUDA device was asked for and
 * none is usable; *ctx is NULL on failure. */
int gq_context_open(gq_context **ctx, int device);
/* Convenience form: NULL on failure (gq_last_error() says why). */
gq_context *gq_context_create(int device);
void gq_context_free(gq_context *ctx);

/* Begin opening `device` in the background and return at once: the CUDA
 * runtime and the device's primary context (~0.2 s of a short run on an
 * H200), and with GQ_PRESTART_JIT NVRTC too, which expressions are compiled
 * with.  The caller's own setup (parsing, building its problems) then
 * overlaps the opening, and the next gq_context_open (or
 * gq_cuda_device_count) waits for it and finds it done.  The CPU, or a build
 * without CUDA, starts nothing; nothing is reported here: what fails, the
 * call that needs it finds and reports.  A program that calls this must call
 * gq_context_open or gq_context_prestart_wait before it exits.  GQ_SUCCESS,
 * or GQ_EINVAL for a device number below GQ_DEVICE_CPU. */
#define GQ_PRESTART_JIT 1u
int gq_context_prestart(int device, unsigned flags);
/* Wait for what gq_context_prestart began (nothing if it began nothing). */
void gq_context_prestart_wait(void);

/* Run the context's GPU work on a caller's CUDA stream (a cudaStream_t,
 * passed as void * so this header needs no CUDA headers); NULL returns to
 * the context's own stream.  The caller keeps ownership of the stream.
 * GQ_EUNSUP on a CPU context. */
int gq_context_set_stream(gq_context *ctx, void *stream);

int gq_context_backend(const gq_context *ctx);        /* GQ_BACKEND_*          */
const char *gq_context_device_name(const gq_context *ctx); /* "NVIDIA H200", "CPU (8 threads)" */
int gq_context_threads(const gq_context *ctx);        /* CPU threads, or SMs   */

/* ---- integrands -------------------------------------------------------- */
/* Built-in integrands, each with default limits and, where known, an exact
 * antiderivative used as the reference. */
typedef struct gq_integrand gq_integrand;

const gq_integrand *gq_integrand_builtin(const char *name); /* NULL if unknown */
const gq_integrand *gq_integrand_builtin_at(size_t k);      /* k-th, NULL past the end */

/* Where gq_integrand_parse found a problem. */
typedef struct {
  int status;         /* GQ_EPARSE (the text) or GQ_EINVAL (a parameter)       */
  int in_param;       /* 0: in the text; 1: in params[param_index]             */
  size_t param_index;
  size_t column;      /* 0-based byte offset into that string, for a caret;
                         (size_t)-1 when no single place is to blame            */
  char message[192];  /* one line                                              */
} gq_parse_error;

/* An integrand from text: a built-in name, or an expression in x (gpuquad(1)
 * gives the grammar) with parameters given as "name=value" strings.  dims is
 * the number of variables the caller supplies (1 for integrals on a line:
 * x; D for Monte Carlo: x1..xD).  A built-in name returns the shared
 * built-in.  Free with gq_integrand_free (which ignores built-ins).  err
 * may be NULL. */
int gq_integrand_parse(const char *text, const char *const *params, size_t nparams, int dims,
                       gq_integrand **f, gq_parse_error *err);
void gq_integrand_free(gq_integrand *f);
int gq_integrand_is_builtin(const gq_integrand *f);
int gq_integrand_dims(const gq_integrand *f); /* variables it may use */
const char *gq_integrand_name(const gq_integrand *f);
const char *gq_integrand_formula(const gq_integrand *f);     /* "4*sqrt(1-x^2)"; an
                                         expression's canonical, parenthesised text */
const char *gq_integrand_description(const gq_integrand *f);
/* expressions: [0, 1]; a or b may be NULL */
void gq_integrand_limits(const gq_integrand *f, double *a, double *b);
double gq_integrand_eval(const gq_integrand *f, double x); /* host, double; x1 = x for D > 1 */

/* ---- Newton-Cotes rules: trapezoid, Simpson, Boole --------------------- */
typedef enum { GQ_PRECISION_DOUBLE = 0, GQ_PRECISION_FLOAT = 1 } gq_precision;

/* A composite rule on n equal intervals of width h = (b - a) / n, points
 * x_i = fma(i, h, a), i = 0..n (x_n = b):
 *   GQ_RULE_TRAPEZOID  h   (1/2, 1, 1, ..., 1, 1/2)            any n; exact up to degree 1
 *   GQ_RULE_SIMPSON    h/3 (1, 4, 2, 4, ..., 2, 4, 1)           n even; degree 3
 *   GQ_RULE_BOOLE      2h/45 (7, 32, 12, 32, 14, ..., 32, 7)    n a multiple of 4; degree 5 */
typedef enum {
  GQ_RULE_TRAPEZOID = 0,
  GQ_RULE_SIMPSON = 1,
  GQ_RULE_BOOLE = 2,
  GQ_RULE_GAUSS_LEGENDRE = 3 /* n panels of K nodes each (gq_rule_spec.nodes) */
} gq_rule;

/* Largest number of intervals: every grid index i is exact in double, so
 * x_i = fma(i, h, a) carries one rounding and nothing drifts. */
#define GQ_TRAPEZOID_MAX_N (UINT64_C(1) << 53)

typedef struct {
  double result;     /* the rule's value, e.g. T(h) = h * (f(a)/2 + f(x_1) + ... + f(b)/2) */
  double coarse;     /* a lower-order result of the same pass: trapezoid T(2h);
                        simpson S(2h) when n % 4 == 0, else T(2h); boole S(2h)          */
  double abserr;     /* discretisation error estimate (error_formula): the
                        Richardson estimate of the rule, or of the rule it
                        extrapolates (Simpson's T, Boole's S): an upper bound on
                        smooth f                                                       */
  double difference; /* |result - coarse| (the trapezoid with n = 1: twice its
                        distance from T(h/2)): for any convergence order p >= 1,
                        a bound on the error once the rule converges                   */
  uint64_t n;        /* intervals (n + 1 points)                                      */
  double kernel_ms;  /* device time of the reduction (CUDA events) or CPU time        */
  int backend;       /* GQ_BACKEND_*                                                  */
  int jit;           /* GQ_JIT_*: how the GPU kernel of an expression was obtained    */
  double compile_ms; /* NVRTC compilation or cache load, ms (0 when no JIT)           */
  uint64_t nonfinite_count; /* after GQ_EDOM: points where f is not finite            */
  double nonfinite_x;       /* ... and the first of them (NaN if none)                */
  int rule;                 /* gq_rule                                                */
  const char *error_formula; /* how abserr was formed, e.g. "|T(h) - T(2h)|/3"        */
  const char *change;  /* an infinite limit's change of variables, e.g.
                          "x = a + t/(1-t), t in [0, 1]"; "" for finite limits        */
  int dims;            /* dimensions of the box (1 for gq_integrate_rule)            */
  int nodes;           /* Gauss-Legendre: nodes per panel; 0 for Newton-Cotes        */
  double points;       /* evaluations of f: prod over dimensions of the points per
                          dimension (a double: it may pass 2^64 in principle)        */
} gq_rule_result;
typedef gq_rule_result gq_trapezoid_result;

/* ---- rules over boxes --------------------------------------------------- */
/* Product grids in 1 .. GQ_MAX_DIM dimensions: the tensor product of one
 * rule along every axis (the same rule; its own limits and n per axis). */
#define GQ_MAX_DIM 6
#define GQ_GL_MIN_NODES 2
#define GQ_GL_MAX_NODES 64

/* A rule as a value: which one, and for Gauss-Legendre its nodes per panel
 * (GQ_GL_MIN_NODES .. GQ_GL_MAX_NODES; 0 means gq_rule_default_nodes()).
 * nodes is ignored by the Newton-Cotes rules. */
typedef struct {
  gq_rule rule;
  int nodes;
} gq_rule_spec;

/* A box as a value: dims axes, [a[k], b[k]] (either may be infinite, b < a
 * negates that axis) with n[k] intervals (Newton-Cotes) or panels
 * (Gauss-Legendre) along axis k. */
typedef struct {
  int dims;
  double a[GQ_MAX_DIM], b[GQ_MAX_DIM];
  uint64_t n[GQ_MAX_DIM];
} gq_box;

/* "trapezoid", "simpson", "boole", "gauss-legendre"; NULL for a value that is no rule. */
const char *gq_rule_name(gq_rule rule);
/* The rule of that name (GQ_EINVAL, with the names, for any other). */
int gq_rule_parse(const char *name, gq_rule *rule);
/* The highest degree of polynomial the rule integrates exactly (1, 3, 5);
 * -1 for a value that is no rule. */
int gq_rule_degree(gq_rule rule);
/* GQ_SUCCESS if the rule can be used on n intervals; GQ_EINVAL otherwise,
 * naming the nearest valid n ("simpson needs an even n; nearest: 1000 or
 * 1002"). */
int gq_rule_check_n(gq_rule rule, uint64_t n);

/* How the GPU kernel for an expression integrand was obtained. */
enum {
  GQ_JIT_NONE = 0,     /* no JIT: a built-in, or the CPU backend                 */
  GQ_JIT_MISS = 1,     /* compiled with NVRTC now (and stored in the cache)      */
  GQ_JIT_HIT = 2,      /* loaded from the on-disk cache                          */
  GQ_JIT_OFF = 3,      /* compiled with NVRTC, the cache disabled                */
  GQ_JIT_LOADED = 4,   /* already loaded in this context                         */
  GQ_JIT_REJECTED = 5, /* the cached entry failed verification (damaged, another
                          key, not a regular file of the user's): compiled with
                          NVRTC, and the entry replaced                          */
  GQ_JIT_UNSAFE = 6    /* compiled with NVRTC; the cache folder is another
                          user's or others may write to it: not used at all      */
};

/* Compiled kernels are cached in $GPUQUAD_CACHE_DIR, else
 * $XDG_CACHE_HOME/gpuquad, else ~/.cache/gpuquad, keyed by a hash of the
 * source, the GPU architecture and the gpuquad version.  An entry is used
 * only if its SHA-256 and the key stored in it match and it is a regular file
 * of the user's in a folder no one else can write (GQ_JIT_REJECTED,
 * GQ_JIT_UNSAFE otherwise).  enabled = 0 neither reads nor writes the cache
 * (--no-cache). */
void gq_context_set_jit_cache(gq_context *ctx, int enabled);

/* The rule for f on [a, b] with n equal intervals (b < a gives the negated
 * integral), and its error estimate from a coarser rule of the same pass.
 * The class sums are compensated on both backends and weighed with exact
 * products, so the result is the rule's sum of the computed f(x_i) to 1-2
 * ulp.  GQ_EINVAL for NaN limits, n outside [1, GQ_TRAPEZOID_MAX_N]
 * or not allowed by the rule (gq_rule_check_n), or an unknown rule;
 * GQ_EDOM when f is not finite at some grid point: the result is then NaN
 * or Inf, nonfinite_count and nonfinite_x say where, and gq_last_error()
 * says it in words.  Both endpoints are evaluated: an integrable
 * singularity at a or b (1/sqrt(x) at 0) is GQ_EDOM; move the limit off it.
 * Either limit may be -INFINITY or INFINITY: the rule is then applied, with
 * n intervals, to f(phi(t)) phi'(t) over a finite t-interval (x = a +
 * t/(1-t) on [a, inf), x = b - t/(1-t) on (-inf, b], x = t/(1-t^2) on the
 * whole line; out->change names it, nonfinite_x is in x).  The value at an
 * infinite end is taken as g's value next to it, its limit when f(x) x^2
 * tends to a finite limit; an f that decays more slowly has no integral and
 * gives a result far off with as large an error estimate, or GQ_EDOM.
 * a == b infinite (an empty interval with no finite image) and NaN limits
 * are GQ_EINVAL. */
int gq_integrate_rule(gq_context *ctx, const gq_integrand *f, gq_rule rule, double a, double b,
                      uint64_t n, gq_precision precision, gq_rule_result *out);
/* gq_integrate_rule with GQ_RULE_TRAPEZOID. */
int gq_integrate_trapezoid(gq_context *ctx, const gq_integrand *f, double a, double b,
                           uint64_t n, gq_precision precision, gq_trapezoid_result *out);

/* The default nodes per panel of Gauss-Legendre (gq_rule_spec.nodes = 0). */
int gq_rule_default_nodes(void);
/* "trapezoid", "simpson", "boole", "gauss-legendre" or "gauss-legendre:K" as
 * a rule value; GQ_EINVAL, naming the valid forms, for anything else. */
int gq_rule_spec_parse(const char *text, gq_rule_spec *spec);
/* The highest degree in each variable that the rule integrates exactly
 * (Gauss-Legendre with K nodes: 2K - 1); -1 for no rule. */
int gq_rule_spec_degree(gq_rule_spec spec);

/* The one entry point of the rules: spec over box, a product grid, with an
 * error estimate from a lower-order rule on the same points (the results'
 * coarse, difference, abserr and error_formula say which).  Sums are
 * compensated on both backends.  In one dimension the Newton-Cotes rules
 * are gq_integrate_rule's.  An infinite limit maps its axis onto a finite
 * interval by gq_integrate_rule's change of variables.  GQ_EINVAL for dims
 * outside 1 .. GQ_MAX_DIM, an integrand that uses a variable beyond dims, NaN
 * limits, n not allowed by the rule, or a grid of more than 2^53 points;
 * GQ_EDOM where f is not finite (nonfinite_count, nonfinite_x: the first
 * such point's first coordinate). */
int gq_integrate_box(gq_context *ctx, const gq_integrand *f, gq_rule_spec spec, const gq_box *box,
                     gq_precision precision, gq_rule_result *out);

/* ---- references and checks (GSL) -------------------------------------- */
/* QAGI, QAGIU, QAGIL: GSL on (-inf, inf), [a, inf), (-inf, b] (infinite limits) */
/* SEPARABLE: a box integral of a product (or sum) of one-variable factors,
 * each factor's 1-D reference; HCUBATURE: libcubature's hcubature on the host */
enum { GQ_REFERENCE_EXACT = 0, GQ_REFERENCE_QAGS = 1, GQ_REFERENCE_QAGI = 2, GQ_REFERENCE_QAGIU = 3,
       GQ_REFERENCE_QAGIL = 4, GQ_REFERENCE_SEPARABLE = 5, GQ_REFERENCE_HCUBATURE = 6 };

typedef struct {
  double value;   /* the integral                                                 */
  double abserr;  /* its error bound (a few ulp when exact; QAGS's estimate)      */
  double l1norm;  /* integral of |f|, the scale of rounding errors                */
  int method;     /* GQ_REFERENCE_*                                               */
  double width;   /* |b - a|, the scale of underflow (infinite limits: the
                     t-interval's, 1, or 2 on the line)                           */
} gq_reference;

/* The integral of f over [a, b] from its antiderivative where known, otherwise
 * from gsl_integration_qags (relative tolerance 1e-13; with an infinite limit
 * always GSL: qagiu, qagil or qagi, NaN limits and an empty a == b infinite
 * GQ_EINVAL); the integral of |f|
 * from QAGS (1e-6) in either case.  GQ_EDOM, with GSL's reason and its best
 * estimates filled in, when there is no reference: the integral of |f| does
 * not converge (a singularity that is not integrable: f has no integral), or
 * QAGS diverges, finds a singularity it cannot integrate, or gives no finite
 * error bound.  Roundoff and the subdivision limit are not failures: QAGS's
 * estimate and error bound are used. */
int gq_integrate_reference(const gq_integrand *f, double a, double b, gq_reference *ref);

/* The integral of f over a box (gq_integrate_box's): in one dimension
 * gq_integrate_reference; in several, exact-or-GSL per factor where f
 * separates into a product or sum of one-variable factors, otherwise
 * libcubature's hcubature (relative tolerance 1e-10, a bounded number of
 * evaluations; infinite axes through the rules' change of variables).
 * GQ_EDOM when no reference could be computed (hcubature short of its
 * tolerance, or built without libcubature): the caller reports that, never
 * a pass. */
int gq_integrate_reference_box(const gq_integrand *f, const gq_box *box, gq_reference *ref);

/* Safety factor applied to the discretisation-error bound in the check. */
#define GQ_CHECK_SAFETY 4.0
/* ... and the fraction of the integral of |f| that it may never exceed. */
#define GQ_CHECK_MAX_FRACTION 0.125

/* Is |result - reference| within what the rule can be expected to miss?
 * tolerance = min(GQ_CHECK_SAFETY * difference, GQ_CHECK_MAX_FRACTION * l1norm)
 *           + 64 * eps * l1norm + 64 * tiny * width + ref->abserr,
 * where eps is the unit roundoff of the evaluation precision and tiny its
 * smallest normal number (underflow).  The cap keeps a rule that has not
 * converged (or a singularity between grid points, where the estimate grows
 * with the error) from excusing any error.  Returns GQ_SUCCESS or GQ_ECHECK,
 * and the tolerance through *tolerance; GQ_ECHECK also when the check cannot
 * be made (*tolerance NaN): a reference that is not finite, or from QAGS and
 * less accurate than the estimate's tolerance and 1e-6 of l1norm.  GQ_EINVAL for NULL r or
 * ref or an unknown precision. */
int gq_trapezoid_check(const gq_trapezoid_result *r, gq_precision precision,
                       const gq_reference *ref, double *tolerance);

/* ==== data reductions: sum, dot, rms of a difference, statistics ========= */
/* Vectors x, y are given as pointers in the context's memory: device pointers
 * on a CUDA context (gq_alloc, or your own cudaMalloc), host pointers on a CPU
 * context.  Pointers must be aligned to their element size; any offset from
 * an aligned allocation is fine (the kernels peel a misaligned head).  The
 * _f variants read float and accumulate in double.
 *
 * Every reduction is available in two shapes:
 *   one-shot:     gq_sum, gq_dot, gq_rms_diff, gq_stats (and _f): NaN and Inf
 *                 propagate as IEEE arithmetic would (GQ_NAN_PROPAGATE);
 *   accumulator:  *_acc_init, gq_*_accumulate (one chunk at a time, merged
 *                 exactly into the accumulator), *_acc_merge (two
 *                 accumulators, the second one's data after the first's) and
 *                 *_finish (with a NaN/Inf policy), for chunked or streamed
 *                 inputs and for callers that need the condition (abs_sum).
 * Sums are compensated (TwoSum per element, error-free merges), products
 * carry their rounding error (TwoProd by fma), and moments are shifted
 * double-double sums merged exactly, so the accumulators of any chunking or
 * thread count give the same result: sums, dots and the mean correctly
 * rounded or within 1 ulp, variances within 1 ulp.  Overflow: where a partial
 * sum or square overflows, the pass is redone with the terms scaled by a
 * power of two, so every result that fits in a double is given; a result
 * beyond DBL_MAX is +-Inf: with no NaN or Inf among the terms (or under
 * GQ_NAN_OMIT), an infinite result means overflow. */

#define GQ_NO_INDEX UINT64_MAX /* "no such element" in the index fields */

typedef enum {
  GQ_NAN_PROPAGATE = 0, /* NaN/Inf flow through the arithmetic (the default) */
  GQ_NAN_OMIT      = 1, /* NaN/Inf terms are left out of every statistic      */
  GQ_NAN_ERROR     = 2  /* *_finish returns GQ_EDOM if any term is not finite */
} gq_nan_policy;

/* Sum of terms t_i (x_i for a sum, x_i*y_i for a dot product). */
typedef struct {
  uint64_t n;              /* finite terms accumulated                         */
  uint64_t nan_count;      /* terms that were NaN (for dot: NaN*y, 0*Inf too)  */
  uint64_t posinf_count, neginf_count;
  double sum, sum_err;     /* compensated: the sum is (sum + sum_err) 2^scale  */
  double abs_sum;          /* sum |t_i| / 2^scale: the scale of every rounding error */
  int64_t scale;           /* 0 unless a partial sum overflowed (then the terms
                              were scaled by a power of two, exactly)          */
} gq_sum_acc;

/* rms of the difference a - b, and what a convergence check needs with it. */
typedef struct {
  uint64_t n;              /* finite pairs accumulated                         */
  uint64_t nan_count;      /* pairs where a - b or a is NaN                    */
  uint64_t inf_count;      /* other pairs where a - b or a is infinite         */
  double sq_diff, sq_diff_err; /* compensated sum (a_i - b_i)^2 / 4^scale      */
  double sq_ref, sq_ref_err; /* compensated sum a_i^2 / 4^scale                */
  double max_abs;          /* max |a_i - b_i| (not scaled; +Inf if it overflows) */
  int64_t scale;           /* 0 unless a square overflowed (see gq_sum_acc)    */
} gq_rms_acc;

typedef struct {
  double rms;              /* sqrt(mean((a_i - b_i)^2)); NaN for n = 0         */
  double max_abs;          /* max |a_i - b_i|; 0 for n = 0                     */
  double relative;         /* ||a - b||_2 / ||a||_2 (NaN if ||a|| = 0)         */
  uint64_t n;              /* pairs that entered the three numbers             */
  uint64_t nan_count, inf_count;
} gq_rms_result;

/* One pass of statistics: counts, compensated sum, Chan moments, min/max
 * with their indices (first occurrence), L1. */
typedef struct {
  uint64_t n;              /* finite values accumulated                        */
  uint64_t nan_count, posinf_count, neginf_count;
  uint64_t first_nan, first_posinf, first_neginf; /* indices, or GQ_NO_INDEX  */
  /* Moments as double-double sums about a shift K, one of the values (so
   * the cancellation in M2 = S2 - S1^2/n costs at most log2(n+1) bits of
   * 106), all in units of 2^scale: mean = K + S1/n, sum = n K + S1. */
  int64_t scale;           /* 0 unless a value or a partial overflowed        */
  double shift;            /* K / 2^scale                                      */
  double s1, s1_err;       /* sum (x_i - K) / 2^scale, compensated             */
  double s2, s2_err;       /* sum (x_i - K)^2 / 4^scale, compensated           */
  double abs_sum, abs_err; /* sum |x_i| / 2^scale (L1), compensated           */
  double min, max;         /* over the finite values (+Inf/-Inf when none)    */
  uint64_t argmin, argmax; /* their indices, or GQ_NO_INDEX                   */
} gq_stats_acc;

typedef struct {
  uint64_t total;          /* elements seen, every kind                        */
  uint64_t n;              /* elements that entered the statistics             */
  uint64_t nan_count, inf_count;
  double sum, mean;
  double var_sample, var_population; /* M2/(n-1) (NaN for n < 2), M2/n        */
  double sd_sample, sd_population;
  double min, max;         /* NaN for n = 0                                    */
  uint64_t argmin, argmax; /* GQ_NO_INDEX when there is none                  */
  double l1, l2, linf;     /* norms                                            */
} gq_stats_result;

/* Device (or, on a CPU context, host) memory for the vectors, 256-byte
 * aligned; gq_free(ctx, NULL) is a no-op.  gq_copy_to moves bytes from the
 * host into memory from gq_alloc, gq_copy_from back (memcpy on a CPU context). */
int gq_alloc(gq_context *ctx, size_t bytes, void **ptr);
void gq_free(gq_context *ctx, void *ptr);
int gq_copy_to(gq_context *ctx, void *dst, const void *host_src, size_t bytes);
int gq_copy_from(gq_context *ctx, void *host_dst, const void *src, size_t bytes);

/* Generated data, written where the context computes (the data never cross
 * PCIe), the same numbers on both backends: Philox4x32-10 with key seed,
 * x_i from word i % 4 of the call with counter i / 4 (the layout of gq_mc,
 * coordinate 0).  uniform: (w + 1/2) 2^-32 in (0, 1), in float
 * w 2^-32 + 2^-33 in (0, 1], bit for bit the same on a GPU and the CPU;
 * normal (mean 0, sd 1): Box-Muller on the word pairs (w0, w1), (w2, w3)
 * (cos for the first of a pair, sin for the second), which may differ
 * between GPU and CPU below 2^-49 |x_i| (float: 2^-20) as their sin and cos
 * do.  linspace: x_i = i / (n - 1) (x_0 = 0 when n = 1). */
typedef enum { GQ_GEN_UNIFORM = 0, GQ_GEN_NORMAL = 1, GQ_GEN_LINSPACE = 2 } gq_gen_kind;
int gq_generate(gq_context *ctx, gq_gen_kind kind, size_t n, uint64_t seed, double *x);
int gq_generate_f(gq_context *ctx, gq_gen_kind kind, size_t n, uint64_t seed, float *x);

int gq_sum_acc_init(gq_sum_acc *acc);
int gq_sum_acc_merge(gq_sum_acc *acc, const gq_sum_acc *other);
int gq_sum_accumulate(gq_context *ctx, gq_sum_acc *acc, size_t n, const double *x);
int gq_sum_accumulate_f(gq_context *ctx, gq_sum_acc *acc, size_t n, const float *x);
int gq_dot_accumulate(gq_context *ctx, gq_sum_acc *acc, size_t n, const double *x, const double *y);
int gq_dot_accumulate_f(gq_context *ctx, gq_sum_acc *acc, size_t n, const float *x, const float *y);
/* The sum under the policy: omit gives the sum of the finite terms,
 * propagate NaN if there was a NaN or both infinities, else +-Inf.  Returns
 * GQ_EDOM under GQ_NAN_ERROR when a term was not finite (*result is then the
 * propagated value). */
int gq_sum_finish(const gq_sum_acc *acc, gq_nan_policy policy, double *result);

int gq_rms_acc_init(gq_rms_acc *acc);
int gq_rms_acc_merge(gq_rms_acc *acc, const gq_rms_acc *other);
int gq_rms_accumulate(gq_context *ctx, gq_rms_acc *acc, size_t n, const double *a, const double *b);
int gq_rms_accumulate_f(gq_context *ctx, gq_rms_acc *acc, size_t n, const float *a, const float *b);
/* Propagate: any NaN makes all three NaN; otherwise any infinity makes rms
 * and max_abs +Inf and relative NaN. */
int gq_rms_finish(const gq_rms_acc *acc, gq_nan_policy policy, gq_rms_result *r);

int gq_stats_acc_init(gq_stats_acc *acc);
/* Indices of other's elements count on from acc's (other came after acc). */
int gq_stats_acc_merge(gq_stats_acc *acc, const gq_stats_acc *other);
/* The chunk's indices count on from the elements acc has seen. */
int gq_stats_accumulate(gq_context *ctx, gq_stats_acc *acc, size_t n, const double *x);
int gq_stats_accumulate_f(gq_context *ctx, gq_stats_acc *acc, size_t n, const float *x);
/* Propagate with non-finite values: sum and mean are the IEEE result (NaN, or
 * +-Inf for infinities of one sign), the variances NaN, the norms NaN (a NaN)
 * or +Inf; min/max are NaN at the first NaN, else -Inf/+Inf at the first
 * infinity of that sign, else the finite extremes.  n = 0 (or all omitted):
 * sum 0, norms 0, mean/variances/min/max NaN. */
int gq_stats_finish(const gq_stats_acc *acc, gq_nan_policy policy, gq_stats_result *s);

/* One-shot forms (GQ_NAN_PROPAGATE).  n = 0 gives the identity on every
 * path (one-shot, asynchronous, accumulate, an empty stream) and no backend
 * runs (for a stream: where the reader knows its length is 0; one that does
 * not is read until it ends); x and y may then be NULL: a sum or a dot is 0; an rms result has n 0,
 * rms NaN, max_abs 0, relative NaN; statistics are as gq_stats_finish gives
 * them for n = 0 (total 0, sum 0, norms 0, mean/variances/min/max NaN, no
 * argmin/argmax); an accumulate call leaves the accumulator as it was.  (The
 * n of gq_integrate_trapezoid and gq_mc_mean counts a rule's intervals or
 * samples, not data: they need n >= 1 and n >= 2.) */
int gq_sum(gq_context *ctx, size_t n, const double *x, double *result);
#define GQ_HAVE_SUM 1 /* gpuquad bench times gq_sum as the production path */

/* Asynchronous forms, for solvers that keep their vectors on the GPU and for
 * CUDA graph capture: enqueue the reduction on the context's stream (see
 * gq_context_set_stream) and leave the finished result in device memory at
 * d_result; nothing is copied back and nothing waits.  One kernel launch, no
 * allocation, no memset.  NaN and Inf propagate through the arithmetic (no
 * classifying pass).  n = 0 writes the one-shot form's result for no
 * elements (see above) in place of the reduction, still on the stream and
 * in stream order.  Calls on one context run in stream order; the context
 * scratch is reused, so do not run two at once on different streams of one
 * context.  GQ_EUNSUP on a CPU context. */
int gq_sum_async(gq_context *ctx, size_t n, const double *x, double *d_result);
int gq_dot_async(gq_context *ctx, size_t n, const double *x, const double *y, double *d_result);
int gq_rms_diff_async(gq_context *ctx, size_t n, const double *x, const double *y, gq_rms_result *d_result);
int gq_sum_f(gq_context *ctx, size_t n, const float *x, double *result);
int gq_dot(gq_context *ctx, size_t n, const double *x, const double *y, double *result);
int gq_dot_f(gq_context *ctx, size_t n, const float *x, const float *y, double *result);
int gq_rms_diff(gq_context *ctx, size_t n, const double *x, const double *y, gq_rms_result *r);
int gq_rms_diff_f(gq_context *ctx, size_t n, const float *x, const float *y, gq_rms_result *r);
int gq_stats(gq_context *ctx, size_t n, const double *x, gq_stats_result *s);
int gq_stats_f(gq_context *ctx, size_t n, const float *x, gq_stats_result *s);

/* ---- readers: vectors from files, standard input or memory ------------
 * A reader turns its input into chunks of numbers for the gq_*_stream
 * reductions below, so inputs larger than memory work.  Formats (gpuquad(1),
 * "Data for dot, rms and stats", has the details):
 *   npy   NumPy .npy (versions 1-3; <f8 <f4 >f8 >f4 =f8 =f4; any shape;
 *         integer, bool and f2 dtypes too: the data section at the end);
 *   npz   one array of a NumPy .npz archive (the data section);
 *   raw   headerless f64 (or f32, or opts.raw_dtype) in native byte order,
 *         after opts.offset bytes;
 *   text  one number per line, or column opts.column of comma- or
 *         whitespace-separated rows; '#' starts a comment.
 * GQ_FORMAT_AUTO chooses by extension (.npy; .txt .csv .dat .tsv; .bin .raw
 * .f64 .f32), else sniffs: the npy magic means npy, anything else is text.
 * Failures: GQ_EIO (open, read, truncated), GQ_EFORMAT (malformed or
 * unsupported content), GQ_EINVAL (bad options, NULL pointers), GQ_ENOMEM;
 * the message starts with the input's name and goes to msg (msglen bytes,
 * msg may be NULL) as well as to gq_last_error(). */
typedef enum {
  GQ_DTYPE_NONE = 0,  /* in options: "not given" (raw defaults to f64) */
  GQ_DTYPE_F64  = 1,
  GQ_DTYPE_F32  = 2,
  /* stored types, widened to f64 on reading (the data section below) */
  GQ_DTYPE_F16  = 3,
  GQ_DTYPE_I8   = 4,
  GQ_DTYPE_I16  = 5,
  GQ_DTYPE_I32  = 6,
  GQ_DTYPE_I64  = 7,
  GQ_DTYPE_U8   = 8,
  GQ_DTYPE_U16  = 9,
  GQ_DTYPE_U32  = 10,
  GQ_DTYPE_U64  = 11,
  GQ_DTYPE_BOOL = 12
} gq_dtype;

typedef enum {
  GQ_FORMAT_AUTO = 0,
  GQ_FORMAT_NPY  = 1,
  GQ_FORMAT_RAW  = 2,
  GQ_FORMAT_TEXT = 3,
  GQ_FORMAT_NPZ  = 4   /* one array of a NumPy .npz archive */
} gq_format;

/* All-zero options ({0}, or a NULL pointer) mean: format by extension/sniff,
 * raw as f64 at offset 0, text one number per line. */
typedef struct {
  gq_format format;
  gq_dtype  raw_dtype;  /* raw only */
  uint64_t  offset;     /* raw only: bytes to skip before the data */
  int       column;     /* text only: 1-based column; 0 = one number per line */
  /* the data section below: */
  int         header;       /* text only: GQ_HEADER_AUTO (0), _YES or _NO     */
  const char *column_name;  /* text only: the column under this header name   */
  const char *member;       /* npz only: the array's name (NULL: the only one) */
} gq_reader_opts;

typedef struct gq_reader gq_reader;

/* Open path ("-" = standard input).  On failure *r is NULL. */
int gq_reader_open(const char *path, const gq_reader_opts *opts,
                   gq_reader **r, char *msg, size_t msglen);
/* Read from an open descriptor, named `name` in messages (NULL: "<fd>"); the
 * reader does not close fd.  Pipes and sockets are streamed. */
int gq_reader_open_fd(int fd, const char *name, const gq_reader_opts *opts,
                      gq_reader **r, char *msg, size_t msglen);
/* Read from memory (size bytes, not copied: they must outlive the reader). */
int gq_reader_open_mem(const void *data, size_t size, const char *name,
                       const gq_reader_opts *opts, gq_reader **r,
                       char *msg, size_t msglen);
void gq_reader_close(gq_reader *r);  /* NULL is fine */

gq_format   gq_reader_format(const gq_reader *r);  /* never AUTO for an open reader */
gq_dtype    gq_reader_dtype(const gq_reader *r);   /* delivered type; text -> F64 */
const char *gq_reader_name(const gq_reader *r);
/* Elements if known before reading (npy; raw from a regular file or
 * memory), else -1 (text; raw from a pipe). */
int64_t     gq_reader_length(const gq_reader *r);

/* Streaming from files: a reader (above) is consumed in chunks.
 * On a CUDA context the chunks go through two pinned host buffers (allocated
 * on the first streaming call, kept by the context): the copy of chunk k+1
 * (cudaMemcpyAsync, its own stream) overlaps the reduction of chunk k, and
 * the disk read of chunk k+2 overlaps both.  float32 data stay float32 across
 * PCIe.  For two inputs of different dtypes the float32 one is widened on the
 * host.  Lengths that differ are GQ_EINVAL, naming both.  info may be NULL. */
typedef struct {
  uint64_t elements;       /* per input                                        */
  double bytes;            /* bytes read from the inputs, all together         */
  double wall_ms;          /* the whole streamed reduction                     */
  double read_ms;          /* time the host spent in the reader (disk, parse)  */
  double copy_ms;          /* host-to-device copies (CUDA events); 0 on a CPU  */
  double compute_ms;       /* reductions (CUDA events, or CPU time)            */
  const char *bound;       /* "disk", "PCIe" or "GPU"/"CPU": the busiest side  */
} gq_stream_info;
int gq_sum_stream(gq_context *ctx, gq_reader *x, gq_sum_acc *acc, gq_stream_info *info);
int gq_dot_stream(gq_context *ctx, gq_reader *x, gq_reader *y, gq_sum_acc *acc, gq_stream_info *info);
int gq_rms_stream(gq_context *ctx, gq_reader *a, gq_reader *b, gq_rms_acc *acc, gq_stream_info *info);
int gq_stats_stream(gq_context *ctx, gq_reader *x, gq_stats_acc *acc, gq_stream_info *info);
/* ==== end of data reductions =========================================== */

/* ---- Monte Carlo means and integrals (gpuquad mc) ----------------------- */
#define GQ_MC_MAX_DIMS 16
/* Largest n: sample indices and the Philox counters stay below 2^63. */
#define GQ_MC_MAX_N (UINT64_C(1) << 63)

typedef enum { GQ_MC_UNIFORM = 0, GQ_MC_NORMAL = 1 } gq_mc_dist;

/* Where a run stands, after each batch of samples. */
typedef struct {
  uint64_t done, n;      /* samples so far, and asked for       */
  double mean, se;       /* running estimate of E f and its standard error */
  double elapsed_ms;     /* wall time since the call started    */
} gq_mc_progress;
typedef void gq_mc_progress_fn(const gq_mc_progress *p, void *user);

typedef struct {
  int dims;                      /* 1..GQ_MC_MAX_DIMS                          */
  double a[GQ_MC_MAX_DIMS];      /* uniform: the box [a_d, b_d], a_d <= b_d    */
  double b[GQ_MC_MAX_DIMS];
  gq_mc_dist dist;
  uint64_t n;                    /* samples, 2..GQ_MC_MAX_N                    */
  uint64_t seed;
  gq_precision precision;        /* f in double or float; sums in double      */
  double tol;                    /* > 0: stop once the standard error of the
                                    mean of f is below tol, n being the most
                                    samples to draw (0: draw all n)            */
  gq_mc_progress_fn *progress;   /* called after each batch, or NULL          */
  void *progress_user;
  unsigned blocks;               /* GPU grid, 0: as many as stay resident     */
} gq_mc_options;

/* dims = 1 on [0, 1], uniform, n = 1e6, seed 0, fused, double, no tol.
 * GQ_EINVAL for NULL. */
int gq_mc_options_init(gq_mc_options *opt);

typedef struct {
  double mean;       /* of f over the samples                               */
  double sd;         /* sample standard deviation (n - 1)                   */
  double se;         /* standard error of the mean, sd / sqrt(n)            */
  double ci_low, ci_high; /* 95% confidence interval, mean -/+ 1.96 se      */
  double volume;     /* of the box (uniform), +Inf if it overflows a double;
                        1 for the normal distribution                       */
  double integral;   /* volume * mean: the integral of f over the box, or
                        E f(X) for X ~ N(0, I); scaled, so exact whenever
                        it is representable, even where the volume is not  */
  double integral_se; /* volume * se                                        */
  uint64_t n;        /* samples used (< the n asked for when tol stopped it) */
  uint64_t seed;
  int stopped_by_tol; /* tol > 0 and the standard error fell below it; 0
                         with tol > 0: all n samples drawn, tol not reached */
  double kernel_ms;  /* device time (CUDA events) or CPU time of the sampling */
  int backend;       /* GQ_BACKEND_*                                        */
  int jit;           /* GQ_JIT_*                                            */
  double compile_ms;
  gq_precision precision; /* f's evaluation: the scale of its rounding     */
} gq_mc_result;

/* The mean of f over n samples, X uniform on the box or standard normal, with
 * Philox4x32-10 counters assigned by sample index: the same (f, options) on
 * the same backend gives the same result.  GQ_EINVAL for bad options (dims,
 * a_d > b_d, non-finite limits or widths, n < 2, f using more variables than
 * dims, the host API on the CPU); GQ_EDOM when f is not finite at some sample
 * (the estimate is then NaN or Inf), or when the integral (volume * mean)
 * overflows a double. */
int gq_mc_mean(gq_context *ctx, const gq_integrand *f, const gq_mc_options *opt, gq_mc_result *r);

/* The check: an independent estimate on the host with GSL. */
enum { GQ_MC_REFERENCE_VEGAS = 0, GQ_MC_REFERENCE_PLAIN = 1, GQ_MC_REFERENCE_EXACT = 2 };
typedef struct {
  double value;  /* of the integral (uniform) or of E f(X) (normal)         */
  double se;     /* its standard error (0 for an exact value)               */
  double chisq;  /* VEGAS: chi^2 per degree of freedom of its iterations    */
  uint64_t calls;
  int method;    /* GQ_MC_REFERENCE_*                                       */
} gq_mc_reference;

#define GQ_MC_CHECK_CALLS 500000 /* function calls the reference may make  */
/* |z| beyond this fails the check.  With two independent, roughly normal
 * estimates, |z| > 5 happens by chance with probability 6e-7: a failure
 * means a wrong result (or a reference whose error estimate is unreliable:
 * VEGAS on a very peaked f), not bad luck. */
#define GQ_MC_CHECK_Z 5.0

/* VEGAS (gsl_monte_vegas_integrate: a warm-up of 10^4 calls, then
 * GQ_MC_CHECK_CALLS) for a uniform box; plain Monte Carlo with gsl_rng_mt19937
 * (GQ_MC_CHECK_CALLS samples) for the normal distribution.  Deterministic.
 * For f of x1 alone GSL's QAGS/QAGI first decide whether f has a mean and a
 * variance: GQ_EDOM (no reference, the check cannot be made) when the
 * integral of |f| or of f^2 does not converge.  In more dimensions, GQ_EDOM
 * when the reference's runs disagree (chi^2 per degree of freedom > 5). */
int gq_mc_reference_gsl(const gq_integrand *f, const gq_mc_options *opt, gq_mc_reference *ref);

/* Whether f has a mean and a variance under opt's distribution, as far as GSL
 * can tell: for f of x1 alone, QAGS (QAGI for the normal distribution) on
 * |f| and f^2; GQ_EDOM, saying which, when either does not converge (no
 * check, against GSL or an exact value, can then be made); GQ_SUCCESS
 * otherwise, also where f uses more variables and no quadrature decides. */
int gq_mc_moments_exist(const gq_integrand *f, const gq_mc_options *opt);

/* z = (r->integral - ref->value) / sqrt(r->integral_se^2 + ref->se^2 + rho^2),
 * rho the rounding the standard errors do not see (64 roundings of f in its
 * precision, one per reference call, underflow): with zero variance (a
 * constant f) z stays finite.  GQ_SUCCESS when |z| <= GQ_MC_CHECK_Z, else
 * GQ_ECHECK (also when either value is not finite: no check can be made);
 * GQ_EINVAL for NULL r or ref. */
int gq_mc_check(const gq_mc_result *r, const gq_mc_reference *ref, double *z);

/* ---- data ---- */
/* The integral of sampled data: samples y_0..y_{n-1} at abscissae x_i (x
 * NULL: spaced dx apart), as scipy.integrate.trapezoid and
 * scipy.integrate.simpson (scipy >= 1.11) compute it, every sum compensated:
 *   GQ_RULE_TRAPEZOID  sum (x_{i+1} - x_i) (y_i + y_{i+1}) / 2; with a spacing
 *                      dx (sum y - (y_0 + y_{n-1})/2)
 *   GQ_RULE_SIMPSON    the composite rule over the panels x_{2k}..x_{2k+2}
 *                      (the parabola through three samples, any spacing);
 *                      for an even n the last interval by Cartwright's
 *                      correction, and n = 2 the trapezoid, as scipy
 * y and x are n doubles (is_float = 0) or n floats, widened to double before
 * any arithmetic, in the context's memory: device pointers on a CUDA
 * context, host pointers on the CPU.  Decreasing x gives the signed integral
 * and dx may be negative or 0, as in scipy.  GQ_EINVAL: n < 2 (scipy gives 0
 * for fewer samples), another rule, dx not finite, an x_i that is NaN or
 * infinite.  GQ_EDOM when a y_i is not finite: out->value is then the IEEE
 * result (NaN or +-inf) and out->first_bad the first such i.  Finite samples
 * whose integral exceeds DBL_MAX give +-inf and GQ_SUCCESS.  Whole arrays,
 * no streaming: data larger than memory are not taken. */
typedef struct {
  double value;       /* the integral                                            */
  double abs_sum;     /* sum of |terms| (times the spacing): the rounding's scale */
  uint64_t n;         /* samples                                                 */
  uint64_t first_bad; /* after GQ_EDOM, the first y_i not finite; else GQ_NO_INDEX */
} gq_samples_result;

int gq_integrate_samples(gq_context *ctx, const void *y, const void *x, size_t n, double dx, gq_rule rule,
                         int is_float, gq_samples_result *out);

/* ---- hist ---- */
/* Histograms and binned sums (gpuquad hist), numpy's bins: K equal bins on
 * [lo, hi], edges e_k = k ((hi - lo) / K) + lo as numpy.linspace rounds them
 * (e_K = hi exactly), bin k = [e_k, e_{k+1}), the last bin closed: hi falls in
 * bin K - 1.  A value's bin is numpy.histogram's: ((x - lo) / (hi - lo)) K
 * truncated, then moved one bin down or up where x lies across the computed
 * edges, so every value on an edge lands where numpy puts it, on both
 * backends.  Values below lo (-inf too) count in `under`, above hi (+inf) in
 * `over`, NaN in `nan`; none of them enter a bin or a sum.  Two dimensions
 * (numpy.histogram2d): bins[0] x bins[1] cells, row-major (the x bin first);
 * a point with a NaN coordinate counts in nan, else one outside its range
 * counts in under if a coordinate is below its lo, else in over.
 *
 * The accumulator holds 64-bit counts on the host; gq_hist_accumulate adds a
 * chunk of data that lives in the context's memory (device pointers on a
 * CUDA context, host pointers on a CPU context), so chunks and contexts can
 * be merged.  Counts are exact on both backends and identical to numpy's and
 * GSL's.  With values, each bin also sums the values of its elements
 * (scipy.stats.binned_statistic's sum, and the mean from it). */
typedef enum {
  GQ_HIST_AUTO = 0,    /* by the number of bins (gq_hist_method_for)            */
  GQ_HIST_GLOBAL = 1,  /* one global 64-bit atomic per element                  */
  GQ_HIST_SHARED = 2,  /* privatised 32-bit bins in each block's shared memory  */
  GQ_HIST_MATCH = 3,   /* SHARED, warp-aggregated: __match_any_sync finds the
                          lanes with one key, one leader adds for them           */
  GQ_HIST_BALLOT = 4,  /* SHARED, warp-aggregated by the ballot/shuffle loop    */
  GQ_HIST_CLUSTER = 5, /* bins spread over a thread-block cluster's distributed
                          shared memory (sm_90); GLOBAL on older devices        */
  GQ_HIST_NMETHODS
} gq_hist_method;

/* What the bins sum: nothing, values with plain double atomics (each bin's sum
 * within n_k eps sum |v| of exact, the order unspecified), or values with a
 * compensated sum whose leading part is replaced by compare-and-swap so that
 * each addition's exact rounding error is kept (TwoSum) and added apart: the
 * sum within 2 eps |sum| + n_k eps^2 sum |v|. */
typedef enum { GQ_HIST_COUNTS = 0, GQ_HIST_SUMS = 1, GQ_HIST_SUMS_COMPENSATED = 2 } gq_hist_kind;

#define GQ_HIST_MAX_BINS (UINT32_C(1) << 26) /* cells, all axes together */

typedef struct {
  int dims;                  /* 1 or 2                                          */
  uint32_t bins[2];          /* per axis (bins[1] = 1 in one dimension)         */
  double lo[2], hi[2];       /* per axis, lo < hi, both finite                  */
  size_t cells;              /* bins[0] * bins[1]                               */
  gq_hist_kind kind;
  uint64_t *counts;          /* cells counts                                    */
  double *sums, *sums_err;   /* cells each with values (the sum of bin k is
                                sums[k] + sums_err[k]), NULL for counts        */
  uint64_t under, over, nan; /* elements in no bin                              */
  uint64_t total;            /* elements seen                                   */
  int method;                /* the gq_hist_method that ran last               */
  double kernel_ms;          /* its time (CUDA events, or CPU time), summed     */
} gq_hist;

/* A zeroed accumulator of K bins on [lo, hi] (1-D), or kx x ky cells on
 * [xlo, xhi] x [ylo, yhi] (counts only).  GQ_EINVAL for K = 0, more cells than
 * GQ_HIST_MAX_BINS, lo >= hi, a limit, hi - lo or K / (hi - lo) not finite
 * (a range too narrow for K bins), an unknown kind;
 * *h NULL on failure.  Free with gq_hist_free (NULL is fine). */
int gq_hist_create(gq_hist **h, uint32_t bins, double lo, double hi, gq_hist_kind kind);
int gq_hist2d_create(gq_hist **h, uint32_t kx, double xlo, double xhi, uint32_t ky, double ylo, double yhi);
void gq_hist_free(gq_hist *h);
/* Zero the counts and sums, keeping the shape. */
int gq_hist_reset(gq_hist *h);
/* h += other: counts add, sums merge by TwoSum.  GQ_EINVAL unless the two
 * have the same dims, bins, limits and kind. */
int gq_hist_merge(gq_hist *h, const gq_hist *other);

/* Edge k (0 .. bins) of an axis, as numpy.linspace gives it; NaN out of range. */
double gq_hist_edge(const gq_hist *h, int axis, uint32_t k);
/* The bin of x on an axis: 0 .. bins - 1, or bins (below lo), bins + 1
 * (above hi), bins + 2 (NaN); the one computation both backends run. */
uint32_t gq_hist_bin(const gq_hist *h, int axis, double x);

/* Add n elements: x (and y for 2-D; values, n of them, when kind sums, else
 * NULL) in the context's memory.  method GQ_HIST_AUTO picks by the cells
 * (gq_hist_method_for); the CPU ignores the method (private bins per thread,
 * merged) but records the one asked for.  n = 0 leaves h as it was. */
int gq_hist_accumulate(gq_context *ctx, gq_hist *h, size_t n, const double *x, const double *y,
                       const double *values, gq_hist_method method);
/* The method GQ_HIST_AUTO runs for these cells and kind on this CUDA
 * context; GQ_HIST_AUTO on a CPU context (it has one method). */
gq_hist_method gq_hist_method_for(const gq_context *ctx, const gq_hist *h);
/* "auto", "global", "shared", "match", "ballot", "cluster"; NULL for no method. */
const char *gq_hist_method_name(gq_hist_method method);
int gq_hist_method_parse(const char *name, gq_hist_method *method);

/* The reference: GSL's gsl_histogram (gsl_histogram2d in 2-D) with its
 * ranges set to the edges above, fed the same host data with
 * gsl_histogram_increment (gsl_histogram_accumulate with values).  GSL's
 * bins are [r_k, r_{k+1}) with the upper limit excluded, so a value equal to
 * hi is counted apart and moved into the last bin, as numpy's closed last
 * bin does; values GSL refuses count in under, over or nan by the rules
 * above.  *ref is a new accumulator of h's shape; with values and abs_ref
 * not NULL, *abs_ref is another whose sums are those of |v| (the scale of
 * the sums' rounding errors, for gq_hist_check). */
int gq_hist_reference(const gq_hist *h, size_t n, const double *x, const double *y, const double *values,
                      gq_hist **ref, gq_hist **abs_ref);
/* Counts (bins, under, over, nan) equal, and every sum within its bound
 * 4 (n_k + 2) eps A_k, where n_k is the bin's count and A_k its sum of |v|
 * from abs_ref (abs_ref NULL: |the reference's sum|, a bound only for values
 * of one sign).  GQ_SUCCESS or GQ_ECHECK with the first difference in
 * gq_last_error(); *worst (may be NULL) the largest |difference| / bound. */
int gq_hist_check(const gq_hist *h, const gq_hist *ref, const gq_hist *abs_ref, double *worst);

/* ---- scan ---- */
/* Prefix sums (scans) and cumulative integrals.  Pointers are in the
 * context's memory (device memory on a CUDA context, host memory on a CPU
 * one), aligned to their element size; y may be x (in place).
 *
 * Doubles and floats are summed as compensated pairs (TwoSum per element):
 * y_i is within u |P_i| + 2 i u^2 sum_{j<=i} |x_j| of the exact prefix P_i
 * (u the unit roundoff of y's type; for floats the pairs are doubles, so the
 * second term is negligible): the correctly rounded prefix but for the last
 * bit.  64-bit integers are exact, wrapping modulo 2^64 on overflow.  NaN
 * and Inf propagate as IEEE addition does. */
typedef enum { GQ_SCAN_F64 = 0, GQ_SCAN_F32 = 1, GQ_SCAN_I64 = 2 } gq_scan_type;
/* GPU methods (the CPU backend has one: two OpenMP passes over fixed chunks,
 * which LOOKBACK and THREE_PHASE both name there): LOOKBACK, one pass with
 * decoupled look-back (reads and writes each element once); THREE_PHASE,
 * tile totals, a scan of them, and a second pass over the tiles (reads
 * twice); CUB, cub::DeviceScan's sums in the element's type, NOT compensated
 * (y_i within i u sum|x_j|; the baseline), a nonzero carry added by one more
 * pass (GQ_EUNSUP on a CPU context). */
typedef enum { GQ_SCAN_LOOKBACK = 0, GQ_SCAN_THREE_PHASE = 1, GQ_SCAN_CUB = 2 } gq_scan_method;
/* The running total of a stream of scans: sum + err for floating types
 * (a compensated pair), isum for GQ_SCAN_I64.  All zero: nothing before. */
typedef struct {
  double sum, err;
  int64_t isum;
} gq_scan_carry;

/* y_i = carry + x_0 + ... + x_i (inclusive), or carry + x_0 + ... + x_{i-1}
 * (exclusive: y_0 = carry), over n elements; carry (NULL: zero) becomes the
 * total of everything, so that chunk after chunk of a stream scan as one.
 * n = 0 leaves y and the carry alone (x and y may then be NULL).  Returns
 * when the scan is done.  GQ_EINVAL for an unknown type or method or NULL
 * pointers with n > 0. */
int gq_scan(gq_context *ctx, gq_scan_type type, int exclusive, gq_scan_method method, size_t n, const void *x,
            void *y, gq_scan_carry *carry);

/* Values a cumulative integral writes for n intervals keeping every K-th:
 * F_0, F_K, F_2K, ... and F_n at the end (n / K + 1, one more when K does not
 * divide n); 0 for every == 0. */
uint64_t gq_cumulative_count(uint64_t n, uint64_t every);

/* The cumulative integral of f on [a, b] with n intervals (x_i = fma(i, h,
 * a), x_n = b), F_0 = 0, written to out (gq_cumulative_count(n, every)
 * doubles in the context's memory) for i = 0, every, 2 every, ... and n:
 *   GQ_RULE_TRAPEZOID  F_i = h (f_0/2 + f_1 + ... + f_{i-1} + f_i/2)
 *                      (scipy.integrate.cumulative_trapezoid, initial=0);
 *   GQ_RULE_SIMPSON    scipy.integrate.cumulative_simpson (initial=0) for
 *                      equal intervals: the interval [x_j, x_{j+1}] gets
 *                      h/12 (5 f_j + 8 f_{j+1} - f_{j+2}) for even j, and
 *                      h/12 (-f_{j-1} + 8 f_j + 5 f_{j+1}) for odd j and the
 *                      last interval; F at even i is the composite Simpson
 *                      rule on [a, x_i]; any n (n = 1: the trapezoid).
 * F_n is gq_integrate_rule's result (Simpson: for even n) to within
 * 2 u |T| + 4 n u^2 h sum|f_i| (trapezoid; compensated sums of the same
 * terms in other orders), plus 4 u h sum|f_i| for Simpson (its terms round).
 * f in double.  Boole and Gauss-Legendre are GQ_EUNSUP.
 * GQ_EINVAL for infinite or NaN limits, n outside [1, GQ_TRAPEZOID_MAX_N],
 * every == 0, NULL pointers; GQ_EDOM when F_n is not finite (f is not
 * finite somewhere; the values are written all the same).  On a GPU an
 * expression's kernel is compiled by NVRTC as for gq_integrate_rule;
 * kernel_ms (may be NULL) gets the device time, or the CPU time. */
int gq_cumulative_integral(gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n,
                           gq_rule rule, double *out, uint64_t every, double *kernel_ms);
/* A cumulative integral divided among processes: on a context with a share
 * (rank of ranks, gq_context_set_share), gq_cumulative_integral computes
 * the values [*first_value, *first_value + *values) of the whole's
 * gq_cumulative_count(n, every), at the grid points [*first_point,
 * *first_point + *points), into out[0 .. *values) — the ranges this
 * function gives (contiguous in rank order, whole multiples of every and of
 * the CPU's chunks; *values = 0 for a rank left without points).  Each rank
 * sums its terms, the ranks' sums are combined, and each writes its values
 * from the prefix before its range: on CPU contexts bitwise one process's
 * values, on GPUs within the scan's bound.  Every rank fails (GQ_EDOM) when
 * F(b) is not finite. */
void gq_cumulative_share(uint64_t n, uint64_t every, int rank, int ranks, uint64_t *first_value, uint64_t *values,
                         uint64_t *first_point, uint64_t *points);

/* ---- adaptive ---- */
/* Globally adaptive cubature to a requested accuracy in 1 to
 * GQ_ADAPTIVE_MAX_DIM dimensions (gpuquad --rule=adaptive).  Each pass
 * evaluates every new region in parallel (a warp or half a warp per region
 * on the GPU, whose region store stays in device memory; an OpenMP loop on
 * the CPU: the same rules and decisions), with G7-K15 and
 * QUADPACK's error estimate in one dimension and Genz-Malik's degree-7 rule
 * with its embedded degree-5 rule in several; then it splits the regions
 * with the largest errors (bisection along the axis of largest fourth
 * difference) and retires regions whose error is negligible against the
 * tolerance (their estimate and error become part of a finished sum, so
 * memory stays bounded).  The error estimate is the sum of the regions'. */
#define GQ_ADAPTIVE_MAX_DIM 8
#define GQ_ADAPTIVE_DEFAULT_MAX_EVALS UINT64_C(1000000000)
#define GQ_ADAPTIVE_DEFAULT_MAX_REGIONS UINT64_C(1048576)      /* the CPU's store */
#define GQ_ADAPTIVE_DEFAULT_MAX_REGIONS_GPU UINT64_C(16777216) /* the device's store, grown on demand */

typedef struct {
  int dims;                        /* 1 .. GQ_ADAPTIVE_MAX_DIM                     */
  double a[GQ_ADAPTIVE_MAX_DIM];   /* limits per axis; either may be infinite (the */
  double b[GQ_ADAPTIVE_MAX_DIM];   /* box rules' change of variables), b < a negates */
  double epsrel, epsabs;           /* stop when error <= max(epsabs, epsrel |I|)  */
  uint64_t max_evals;              /* evaluations of f at most (>= one pass)       */
  uint64_t max_regions;            /* regions held at once at most; 0: the backend's */
                                   /* default (GQ_ADAPTIVE_DEFAULT_MAX_REGIONS[_GPU]) */
} gq_adaptive_options;

/* dims = 1 on [0, 1], epsrel 1e-6, epsabs 0, the default limits (max_regions 0: the
 * backend's).  GQ_EINVAL for NULL. */
int gq_adaptive_options_init(gq_adaptive_options *opt);

/* Why the subdivision stopped. */
typedef enum {
  GQ_ADAPTIVE_REACHED = 0,     /* error <= max(epsabs, epsrel |I|)                        */
  GQ_ADAPTIVE_MAX_EVALS = 1,   /* the next pass would pass max_evals                      */
  GQ_ADAPTIVE_MAX_REGIONS = 2, /* the region store is full                                */
  GQ_ADAPTIVE_ROUNDOFF = 3     /* the regions left to split are too narrow to cut in two  */
} gq_adaptive_stop;

typedef struct {
  double estimate;        /* the sum of the regions' estimates                      */
  double abserr;          /* the sum of their error estimates                       */
  double tolerance;       /* max(epsabs, epsrel |estimate|)                         */
  int reached;            /* abserr <= tolerance                                    */
  gq_adaptive_stop stop;
  uint64_t evaluations;   /* of f                                                   */
  uint64_t regions;       /* in the final partition (held and retired)              */
  uint64_t passes;
  uint64_t max_held;      /* the most regions held at once                          */
  int dims;
  const char *rule;       /* "gauss-kronrod G7-K15" or "genz-malik 7-5"             */
  const char *change;     /* an infinite limit's change of variables, or ""         */
  double kernel_ms;       /* device time of the evaluations (CUDA events) or CPU time */
  double compile_ms;      /* NVRTC compilation or cache load                        */
  int jit;                /* GQ_JIT_*                                               */
  int backend;            /* GQ_BACKEND_*                                           */
} gq_adaptive_result;

/* The integral of f over the box of opt, to max(epsabs, epsrel |I|).
 * GQ_SUCCESS whether or not the accuracy was reached: r->reached and
 * r->stop say which, with the estimate and the error reached filled in.
 * GQ_EINVAL for dims outside 1 .. GQ_ADAPTIVE_MAX_DIM, an integrand using a
 * variable beyond dims, NaN or empty-infinite limits, epsrel < 0 or NaN,
 * epsabs < 0 or NaN, both zero, epsrel > 0 below 50 eps (unreachable in
 * double), max_evals below one pass, max_regions below the first pass'
 * regions; GQ_EDOM when f is not finite at a point of a rule (the message
 * names the region); GQ_ENOMEM when the store cannot be allocated. */
int gq_integrate_adaptive(gq_context *ctx, const gq_integrand *f, const gq_adaptive_options *opt,
                          gq_adaptive_result *r);
/* "reached", "max-evals", "max-regions", "roundoff"; NULL for no such value. */
const char *gq_adaptive_stop_name(gq_adaptive_stop stop);
/* ---- vegas ---- */
/* Two samplers for gq_mc_options' uniform box (dist GQ_MC_UNIFORM, no tol),
 * both on either backend with the same points per seed.
 *
 * VEGAS+ (G. P. Lepage, "Adaptive multidimensional integration: VEGAS
 * enhanced", J. Comput. Phys. 439, 2021): each axis has a grid of `bins`
 * increments through which the points are mapped (importance sampling), and
 * the box is cut into strata^dims hypercubes, each given at least 2 of the
 * iteration's samples (adaptive stratification).  After each iteration the
 * grids are refined from the smoothed, damped (alpha) bin weights of (f J)^2
 * and the samples reallocated in proportion to sigma_h^beta, sigma_h f J's
 * spread in hypercube h.  opt->n samples are split evenly over warmup +
 * iterations passes (the remainder of the division is not drawn; strata: the
 * most with >= 4 samples a hypercube, at most 2^16 hypercubes); the estimate
 * is the weighted average of the iterations after the warm-up, weights
 * 1 / sigma_i^2. */
#define GQ_VEGAS_MAX_BINS 4096
#define GQ_VEGAS_MAX_ITERATIONS 1000
typedef struct {
  int iterations; /* averaged, 1..GQ_VEGAS_MAX_ITERATIONS (default 10)        */
  int warmup;     /* adapt only, 0..GQ_VEGAS_MAX_ITERATIONS (default 5)       */
  int bins;       /* increments per axis, 2..GQ_VEGAS_MAX_BINS (default 512),
                     at most (samples per iteration) / 8                     */
  double alpha;   /* grid damping: 0 (the grid stays even) .. 2 (default 0.5) */
  double beta;    /* stratification: 0 (even) .. 1 (default 0.75)            */
} gq_vegas_options;

/* The defaults above.  GQ_EINVAL for NULL. */
int gq_vegas_options_init(gq_vegas_options *v);

typedef struct {
  gq_mc_result mc; /* integral and integral_se (sqrt(1 / sum 1/sigma_i^2));
                      mean and se the same over the volume; sd = se sqrt(n),
                      the spread plain sampling would need for that se;
                      ci_low, ci_high: +-1.96 se; n = every evaluation,
                      warm-up included                                      */
  double chi2_dof; /* sum (I_i - I)^2 / sigma_i^2 / (iterations - 1) over the
                      iterations averaged (0 for a single one)              */
  double chi2_q;   /* its upper tail probability: below GQ_VEGAS_CHI2_Q the
                      iterations disagree and the error is not to be trusted */
  int iterations;  /* averaged                                              */
  int strata;      /* hypercubes per axis                                   */
  int bins;        /* increments per axis used                              */
} gq_vegas_result;
/* The chi^2 alarm: a chance of 1e-5 for consistent iterations. */
#define GQ_VEGAS_CHI2_Q 1e-5

/* VEGAS+ for the integral of f over opt's box.  GQ_EINVAL for bad options
 * (those of gq_mc_mean, the normal distribution, a tolerance, v's ranges,
 * fewer than 8 samples a pass, n above 2^44); GQ_EDOM when f is not finite
 * at a sample or the integral overflows. */
int gq_mc_vegas(gq_context *ctx, const gq_integrand *f, const gq_mc_options *opt, const gq_vegas_options *v,
                gq_vegas_result *r);

/* Owen-scrambled Sobol points (sobol.h: Joe-Kuo directions, Burley's hashed
 * nested uniform scrambling): `scramblings` independent scramblings of the
 * first m points of the sequence, m = opt->n / scramblings rounded up to a
 * power of two (so r->n may exceed opt->n; at most 2^32).  The mean is the
 * average of the scramblings' means, se their standard deviation over
 * sqrt(scramblings), and the 95% interval mean -+ t se with Student's t of
 * scramblings - 1 degrees of freedom; sd is the pooled spread of f over all
 * points.  scramblings 2..GQ_SOBOL_MAX_SCRAMBLINGS; errors as gq_mc_vegas. */
#define GQ_SOBOL_SCRAMBLINGS 16
#define GQ_SOBOL_MAX_SCRAMBLINGS 4096
int gq_mc_sobol(gq_context *ctx, const gq_integrand *f, const gq_mc_options *opt, int scramblings,
                gq_mc_result *r);
/* ---- determ ---- */
/* Deterministic mode (issue 20): results that do not depend on how the work
 * was cut.  On a deterministic context the data reductions accumulate
 * exactly — every term, and every product x y, a^2 - 2ab + b^2, x^2, goes
 * into a fixed-point accumulator that spans 2^-2176 .. 2^2176, so nothing
 * is rounded until the end — and round once:
 *   sum, dot           correctly rounded (to nearest, ties to even);
 *   stats              sum and mean correctly rounded, variances and sd
 *                      within 1 ulp of exact, min/max with their first
 *                      index, L1 correctly rounded, L2 within 1 ulp;
 *   rms                sqrt of the correctly rounded sum of squares / n,
 *                      within 1 ulp; max_abs exact, relative within 1 ulp;
 * the same bits for any thread count, grid, chunking or stream chunk size,
 * on the CPU and on a CUDA device.  NaN/Inf are counted and treated by the
 * NaN policy as the other accumulators treat them.  The one-shot forms
 * (gq_sum, gq_dot, gq_rms_diff, gq_stats and _f) take the exact path on a
 * deterministic context; the double-double accumulators (gq_*_accumulate,
 * gq_*_stream, gq_*_async) are the same on either context: for exact
 * chunked or streamed sums use the exact accumulator below (gq_exact_*),
 * which merges exactly in any order and works on any context.
 * Integrals (gq_integrate_rule, gq_integrate_box) and plain Monte Carlo
 * (gq_mc_mean) sum their terms f(x_i), w f(x) and the shifted moments
 * exactly on either backend and round once per sum (per batch for Monte
 * Carlo): the same bits for any thread count, launch grid and share (any
 * number of ranks, see ---- mpi ----), and on the CPU and a GPU where f
 * uses only correctly rounded operations (+ - * / sqrt); so does
 * gq_mc_sobol.  VEGAS is not covered (see gpuquad(1)). */
int gq_context_set_deterministic(gq_context *ctx, int on); /* on: 0 or 1 */
int gq_context_deterministic(const gq_context *ctx);        /* 0 or 1   */

typedef enum { GQ_EXACT_SUM = 0, GQ_EXACT_DOT = 1, GQ_EXACT_RMS = 2, GQ_EXACT_STATS = 3 } gq_exact_kind;
typedef struct gq_exact_acc gq_exact_acc; /* about 3.3 KiB */
int gq_exact_acc_create(gq_exact_kind kind, gq_exact_acc **acc);
void gq_exact_acc_free(gq_exact_acc *acc);
/* other's data after acc's (stats indices count on); both of one kind. */
int gq_exact_acc_merge(gq_exact_acc *acc, const gq_exact_acc *other);
/* An accumulator is plain bytes (no pointers): gq_exact_acc_size() of them
 * copied to another process of the same build (MPI, a file) and merged
 * there give the same bits as one process's. */
size_t gq_exact_acc_size(void);
/* One chunk in the context's memory (y: the second vector of dot and rms,
 * else NULL), on any context. */
int gq_exact_accumulate(gq_context *ctx, gq_exact_acc *acc, size_t n, const double *x, const double *y);
int gq_exact_accumulate_f(gq_context *ctx, gq_exact_acc *acc, size_t n, const float *x, const float *y);
/* A reader's chunks (y for dot and rms), on the context's backend. */
int gq_exact_stream(gq_context *ctx, gq_reader *x, gq_reader *y, gq_exact_acc *acc, gq_stream_info *info);
/* Finishes under a NaN policy, as gq_sum_finish, gq_rms_finish and
 * gq_stats_finish define them; abs_sum (may be NULL) gets sum |t_i|. */
int gq_exact_sum_finish(const gq_exact_acc *acc, gq_nan_policy policy, double *result, double *abs_sum);
int gq_exact_rms_finish(const gq_exact_acc *acc, gq_nan_policy policy, gq_rms_result *r);
int gq_exact_stats_finish(const gq_exact_acc *acc, gq_nan_policy policy, gq_stats_result *s);
/* ---- mpi ---- */
/* Shares: a context that computes one share of the work of a group of
 * processes (the ranks of mpirun, say) and combines the partial results
 * through a step the caller supplies, so the library links no communication
 * library.
 *
 * With a share set (rank r of k), gq_integrate_rule, gq_integrate_box,
 * gq_mc_mean and gq_mc_sobol sum only rank r's terms: a 1-D grid's interior
 * points in k contiguous index ranges; a product grid's points by ranges of
 * the outermost axis (the last: its intervals' points, or its
 * Gauss-Legendre panels); each Monte Carlo batch's samples by ranges of
 * whole Philox quads (four samples), or of a Sobol scrambling's point
 * indices (runs of four), so every point and every sample is the one a
 * single process evaluates.  gq_integrate_adaptive evaluates rank r's contiguous
 * slice of each pass's new regions and the combine assembles every
 * region's results on every rank (by windows of 65536 regions, after a
 * combine of no bytes that agrees on the ranks' status), so every rank
 * holds the same regions, makes the same decisions and returns one
 * process's result bit for bit on the same backend.  Wherever a partial
 * result is complete (a rule's class sums, a product grid's pair of sums,
 * the count of points where f is not finite, a batch's moments, a window
 * of regions) every rank calls combine, in the same order, with its partial
 * as bytes (0 bytes: the status alone), the merge that joins two of them,
 * and its status.  combine must leave in partial, on every rank, the merge
 * in rank order of all the ranks' partials (acc = partial of rank 0, then
 * merge(acc, partial of rank 1), ...), and return GQ_SUCCESS, or the status
 * of the first rank that failed (then partial need not be written).  The
 * ranks then finish identically, so their results, statuses and every
 * further step (an overflow's rescaled rerun, --tol's stopping) agree.
 * On a deterministic context the partials of the rules, boxes and Monte
 * Carlo batches are exact (merged exactly, rounded once after the
 * combine), so the results are bitwise those of one process for any
 * number of ranks; otherwise they are compensated sums, merged in another
 * order than one process's, and agree with it to an ulp or two.
 * Data reductions take shares through their accumulators instead: a rank
 * reduces its range (gq_share_range, gq_generate_range) and the
 * accumulators merge in rank order (gq_*_acc_merge, whose stats indices
 * count on), the accumulator structs being plain bytes.  gq_mc_vegas divides
 * each pass's hypercubes and combines their sums and training cells (on CPU
 * contexts bitwise one process's run).
 * gq_integrate_samples takes a rank's samples and combines (---- mdata ----).
 * Other calls on a shared context compute everything on every rank. */
typedef void gq_merge_fn(void *acc, const void *other);
typedef int gq_combine_fn(void *partial, size_t bytes, gq_merge_fn *merge, int status, void *user);
typedef struct {
  int rank, ranks;        /* 0 <= rank < ranks                                 */
  gq_combine_fn *combine; /* called by every rank at the same points           */
  void *user;
} gq_share;

/* Set the share (a copy is kept), or with NULL or ranks = 1 compute the
 * whole again.  GQ_EINVAL for a NULL context, rank outside [0, ranks) or no
 * combine. */
int gq_context_set_share(gq_context *ctx, const gq_share *share);

/* Rank's share of n items in units of unit (>= 1; the last unit may be
 * partial): [*first, *first + *count), contiguous and in rank order, every
 * boundary a multiple of unit but the end n, the first ranks one unit longer
 * where the units do not divide evenly, and empty shares at n where they
 * run out. */
void gq_share_range(uint64_t n, uint64_t unit, int rank, int ranks, uint64_t *first, uint64_t *count);

/* Elements [first, first + count) of gq_generate's vector of n (first a
 * multiple of 4): a rank generates its share and the whole is the same for
 * any number of ranks.  x holds count elements.  GQ_EINVAL for a first that
 * is no multiple of 4, or a range beyond n. */
int gq_generate_range(gq_context *ctx, gq_gen_kind kind, size_t n, size_t first, size_t count, uint64_t seed,
                      double *x);
int gq_generate_range_f(gq_context *ctx, gq_gen_kind kind, size_t n, size_t first, size_t count, uint64_t seed,
                        float *x);
/* ---- batch ---- */
/* Many integrals of one expression, one per parameter set (issue 23): the
 * expression text (gq_integrand_parse's, in x or x1..xD) with nparams
 * parameters named names[0..nparams-1], and count parameter sets, set i
 * holding values[i * nparams + j] for names[j].  Each problem is
 * gq_integrate_box(ctx, f_i, spec, box, precision, &results[i]) with f_i the
 * expression at set i, so each result is bitwise that call's alone; on a GPU
 * the expression is compiled once and its parameters are read at run time.
 * statuses[i] receives each problem's status (results[i] filled as far as
 * that call fills it).  Returns GQ_SUCCESS when every problem succeeded,
 * otherwise the first failing problem's status (gq_last_error() says which);
 * GQ_EINVAL for NULL arguments, nparams beyond 64, or a name that no
 * "name=value" can carry.  count 0 does nothing. */
int gq_integrate_box_batch(gq_context *ctx, const char *text, const char *const *names, size_t nparams,
                           const double *values, size_t count, gq_rule_spec spec, const gq_box *box,
                           gq_precision precision, gq_rule_result *results, int *statuses);

/* ---- progress and plots ---- */
/* Progress of long work (issue 24): fn(done, total, unit, user) is called on
 * the calling thread, between pieces of work, never from a kernel or a
 * worker thread: after parts of the CPU backend's loop over grid points
 * (gq_integrate_*, unit "points"), after each batch of Monte Carlo samples
 * ("samples"), each VEGAS iteration ("iterations"), each adaptive pass
 * ("evaluations"), each chunk read by gq_*_stream ("bytes").  Within one
 * task done never decreases and never passes a nonzero total; total is 0
 * where the work is not known in advance (adaptive cubature, which stops
 * at its tolerance; a stream of text).  A task that ends, at its planned
 * size or early (a tolerance met), ends with a call where done == total.
 * One library call may run a few tasks in turn (a reference, a second
 * pass), each starting again from 0.  Results are bitwise the same with or
 * without a callback; unset (fn NULL, the default) it costs a test per
 * piece.  GQ_EINVAL for a NULL context. */
typedef void gq_progress_fn(uint64_t done, uint64_t total, const char *unit, void *user);
int gq_context_set_progress(gq_context *ctx, gq_progress_fn *fn, void *user);

/* f at the point x[0 .. gq_integrand_dims(f) - 1], on the host, in double
 * (what a plot of f draws; gq_integrand_eval is the line's x).  NaN for a
 * NULL argument. */
double gq_integrand_eval_point(const gq_integrand *f, const double *x);

/* ---- data ---- */
/* Real-world data files (issue 24), for the readers above.
 *   Text: a header line, taken when opts.header is GQ_HEADER_YES, or, when
 *   it is GQ_HEADER_AUTO, when no cell of the first line (blank and '#'
 *   lines skipped) is a number and one starts like a name (a letter, '_', a
 *   quote or a UTF-8 character) and is no NA spelling; opts.column_name
 *   picks a column by that header, or where the first row is data by a
 *   commented first line ("# a,b", numpy.savetxt's header) (an unknown name
 *   is GQ_EINVAL listing the names; a name twice is GQ_EINVAL).  Cells "" NA N/A n/a NULL null None
 *   <NA> (and nan) read as NaN, for the NaN policy to handle.  Fields in
 *   double quotes may hold commas ("1,5" is one cell; "" is a quote); a
 *   UTF-8 byte-order mark is skipped; in a .tsv file each tab separates
 *   (two tabs: an empty cell), elsewhere commas and runs of blanks do.
 *   Binary (npy descr, raw opts.raw_dtype): f16, int8..int64, uint8..uint64
 *   and bool are delivered as f64 (gq_reader_dtype), exactly except int64
 *   and uint64 values that no double holds (beyond 2^53): those round to
 *   nearest and are counted (gq_reader_inexact).  npy: either byte order
 *   ('|' for one-byte types).  raw: native byte order.
 *   npz: "PATH.npz:NAME" (gq_reader_open; or opts.member) is the array NAME
 *   (NAME.npy in the archive) of a NumPy .npz, stored or deflated (deflated
 *   needs zlib: GQ_EUNSUP without it), zip64 included; PATH.npz alone is its
 *   only array.  The archive must be a file or memory (its index is at its
 *   end), not a pipe.  Chosen by the .npz extension or the zip magic.
 *   Raw data from a pipe or standard input: with opts.raw_dtype set and no
 *   format, input that is neither npy nor npz is raw. */
typedef enum { GQ_HEADER_AUTO = 0, GQ_HEADER_YES = 1, GQ_HEADER_NO = -1 } gq_header;

/* "f64", "int32", "bool", ... ("" for a value that is no dtype). */
const char *gq_dtype_name(gq_dtype t);
/* The dtype named by its name above or numpy's (float64, float16, half,
 * int8, uint64, and the codes f8 f4 f2 i1 i2 i4 i8 u1 u2 u4 u8 b1);
 * GQ_EINVAL listing the names for any other. */
int gq_dtype_from_name(const char *name, gq_dtype *t);
/* "npy", "npz", "raw", "text" ("auto" for GQ_FORMAT_AUTO). */
const char *gq_format_name(gq_format f);
/* The dtype stored in the input (gq_reader_dtype is the one delivered). */
gq_dtype gq_reader_stored_dtype(const gq_reader *r);
/* int64/uint64 values read so far that a double could not hold exactly. */
uint64_t gq_reader_inexact(const gq_reader *r);

/* ---- mdata ---- */
/* A stream of scans divided among processes (gpuquad scan under mpirun):
 * each scans its part from zero to learn its total (the carry gq_scan ends
 * with), and then its part again from the merge of the totals of the parts
 * before it, in order.  carry becomes the carry of carry's elements followed
 * by later's: TwoSum of the sums, the errors added (the merge gq_scan's own
 * chunks use), integers added modulo 2^64.  Integer-valued data whose sums
 * stay below 2^53 merge exactly, so their scan is the same for every
 * division; other doubles stay within gq_scan's bound.  GQ_EINVAL for NULL. */
int gq_scan_carry_merge(gq_scan_carry *carry, const gq_scan_carry *later);

/* Sampled data divided among processes (gpuquad integrate DATA under
 * mpirun): on a context with a share (rank of ranks), gq_integrate_samples
 * takes n, the whole's number of samples, and in y and x (NULL where count
 * is 0) only this rank's samples [first, first + count) given here: the
 * samples of its range of the panels (the trapezoid's intervals, Simpson's
 * pairs of intervals), their end samples held by both neighbours, and for
 * Simpson on an even n the last rank the last interval's three.  Each rank
 * sums its panels; the sums are combined in rank order, and so is the
 * search for the first sample that is not finite (out->first_bad, the
 * whole's index).  The integral agrees with one process's to the rounding
 * of the compensated merges. */
void gq_samples_share(uint64_t n, gq_rule rule, int rank, int ranks, uint64_t *first, uint64_t *count);

#ifdef __cplusplus
}
#endif
#endif /* GPUQUAD_H */
