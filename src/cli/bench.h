/* bench.h — `gpuquad bench`: the types, operators and methods it compares, and
 * the interface of its device side (kernels/bench/, linked into the program
 * only in CUDA builds). */
#ifndef GQ_BENCH_H
#define GQ_BENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { GQB_INT32, GQB_INT64, GQB_FLOAT, GQB_DOUBLE, GQB_NTYPES } gqb_type;
/* ARGMAX: the largest double and its index (the smallest index among ties),
 * a combine with no native atomic. */
typedef enum { GQB_SUM, GQB_MIN, GQB_MAX, GQB_ARGMAX, GQB_NOPS } gqb_op;

/* A method's result, widened: integer types in i (int32 sign-extended),
 * floating types in f (float widened exactly), ARGMAX in (f, index). */
typedef struct {
  int64_t i;
  double f;
  int64_t index;
} gqb_value;

size_t gqb_type_size(gqb_type type);
const char *gqb_type_name(gqb_type type); /* "int32", ... */
const char *gqb_op_name(gqb_op op);       /* "sum", ...   */
int gqb_type_parse(const char *text);     /* -1 if unknown */
int gqb_op_parse(const char *text);

/* ---- methods (bench_methods.c) ------------------------------------------- */
/* Ids 1..GQB_NMETHODS: the classic sequence 1-18 of the issue, then the
 * library's production path. */
enum { GQB_PRODUCTION = 19, GQB_NMETHODS = 19 };

typedef struct {
  int id;
  const char *name;        /* --method=NAME          */
  const char *description; /* one line for --list     */
} gqb_method;

const gqb_method *gqb_method_at(int id);           /* NULL outside 1..GQB_NMETHODS */
const gqb_method *gqb_method_find(const char *text); /* a name or a number */

/* Why `id` does not run `type` x `op` (a reduction with no native atomic, a
 * library without that operation, ...), or NULL when it does. */
const char *gqb_method_not_applicable(int id, gqb_type type, gqb_op op);

/* ---- device side (kernels/bench/driver.cu; CUDA builds only) -------------- */
/* Every function returns a GQ_* status (gpuquad.h) and, on failure, a message
 * in err[errlen]. */
typedef struct gqb_device gqb_device;

/* Opens `device` with buffers for max_n elements of any type. */
int gqb_device_open(int device, size_t max_n, gqb_device **dev, char *err, size_t errlen);
void gqb_device_close(gqb_device *dev);
const char *gqb_device_name(const gqb_device *dev);
/* Opens cuBLAS (dlopen) and its handle on the first call, for method 18:
 * NULL when it runs, else why not (the row is then n/a with that reason). */
const char *gqb_device_cublas(gqb_device *dev);
int gqb_device_sms(const gqb_device *dev);
/* The data buffer (device memory) that gqb_generate filled. */
const void *gqb_device_data(const gqb_device *dev);
void *gqb_device_stream(gqb_device *dev); /* its cudaStream_t, where every method is timed */

/* Fills the first n elements of the data buffer on the device (never zero;
 * kernels/bench/generate.cu describes the values) and copies them to h_copy. */
int gqb_generate(gqb_device *dev, gqb_type type, size_t n, void *h_copy, char *err, size_t errlen);

/* One run of a method on the data; *depth is an upper bound on the height of
 * its addition tree (the bound the floating-point check uses), or 0 where the
 * method's insides are not known (the libraries). */
int gqb_run(gqb_device *dev, int method, gqb_type type, gqb_op op, size_t n, gqb_value *result,
            uint64_t *depth, char *err, size_t errlen);

/* Two warm-up runs, then reps runs each timed with CUDA events: us[reps]. */
int gqb_time(gqb_device *dev, int method, gqb_type type, gqb_op op, size_t n, int reps, double *us,
             char *err, size_t errlen);

/* A host call (the production path, which returns its result to the host)
 * timed like gqb_time: call(arg) returns a GQ_* status. */
int gqb_time_call(gqb_device *dev, int (*call)(void *arg), void *arg, int reps, double *us, char *err,
                  size_t errlen);

/* A copy kernel over bytes of the data buffer into a second buffer, timed
 * like gqb_time: us[reps].  It moves 2 * bytes. */
int gqb_copy_time(gqb_device *dev, size_t bytes, int reps, double *us, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
