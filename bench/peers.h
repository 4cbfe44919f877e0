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

/* ---- data reductions (bench_reduce) ----------------------------------------
 * Each call does the whole job a user of the library would do and returns
 * the result on the host (synchronous), so it can be timed like gpuquad's
 * one-shot calls.  peer_reduce_setup allocates the handles and workspaces
 * once, for vectors of up to n doubles. */
int peer_reduce_setup(long long n);
void peer_reduce_teardown(void);
/* cuBLAS cublasDdot (host pointer mode). */
int peer_cublas_ddot(const double *d_x, const double *d_y, long long n, double *result);
/* CUB cub::DeviceReduce::Sum into device memory, then the copy back. */
int peer_cub_sum(const double *d_x, long long n, double *result);
/* rms, max |a-b| and ||a-b||/||a|| in three separate passes: CUB Sum of
 * (a-b)^2, CUB Max of |a-b| (transform iterators, no temporary vector), and
 * cublasDnrm2(a). */
int peer_three_pass_rms(const double *d_a, const double *d_b, long long n, double out[3]);
/* Host-to-device bandwidth from pinned memory, GB/s (median of 5 copies). */
double peer_h2d_gbps(size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
