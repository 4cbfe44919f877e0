/* peers.h — the libraries gpuquad is measured against, timed in the same run
 * (bench/peers.cu, compiled by nvcc). */
#ifndef GQ_BENCH_PEERS_H
#define GQ_BENCH_PEERS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Thrust transform_reduce of 4*sqrt(1-x^2) over the interior points x = i*h,
 * i = 1..n-1 (plain double accumulation), plus the endpoints on the host:
 * the trapezoid rule for circle on [0,1] as a Thrust user writes it.  Each
 * repetition is timed with CUDA events around the call (which returns the
 * result to the host).  Returns 0 on success. */
int peer_thrust_circle(long long n, int reps, double *times_ms, double *result);

#ifdef __cplusplus
}
#endif
#endif
