/* gpuquad.h — public interface of libgpuquad.
 *
 * libgpuquad estimates integrals and statistics with GPU reductions
 * (warp shuffle -> block -> global atomic accumulation), with a CPU (OpenMP)
 * backend that runs the same problems where no CUDA device is present.
 *
 * Conventions (after GSL): every name starts with gq_; functions return an
 * int status (GQ_SUCCESS or one of the GQ_E* codes below) and give results
 * through out-pointers; gq_strerror() names a status.  The library never
 * prints and never exits: errors reach the caller as a status, an optional
 * message buffer, and the replaceable error handler.
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

#ifdef __cplusplus
}
#endif
#endif /* GPUQUAD_H */
