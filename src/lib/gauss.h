/* gauss.h — Gauss-Legendre rules on [-1, 1] and the embedded lower-order
 * rule of their error estimate (gauss.c).  Internal: the product grids
 * (product.c, the kernels' weights) and the tests read them. */
#ifndef GQ_GAUSS_H
#define GQ_GAUSS_H

#include "gpuquad.h"

/* The K-node Gauss-Legendre rule on [-1, 1], GQ_GL_MIN_NODES <= K <=
 * GQ_GL_MAX_NODES (GQ_EINVAL otherwise): x[0..K-1] ascending, the nodes, and
 * w[0..K-1] their weights, each the double nearest the true value or next
 * to it (within 1 ulp); x[K-1-j] = -x[j] and w[K-1-j] = w[j] exactly (the
 * middle node of an odd K is 0).  w_lower[0..K-1] (may be NULL): the weights,
 * on the same nodes, of the lower-order rule of the error estimate, which
 * needs no other value of f: the interpolatory rule on the K - 1 nodes left
 * when node gq_gauss_legendre_dropped(K) is dropped (its weight there is
 * exactly 0).  Computed once, at the first call, for every K; thread-safe. */
int gq_gauss_legendre(int K, double *x, double *w, double *w_lower);

/* The degree of polynomial that the lower rule integrates exactly: K - 2
 * (and not one higher; gauss.c says why). */
int gq_gauss_legendre_lower_degree(int K);

/* The index (into x) of the node that the lower rule drops: the middle
 * node, or for an even K the first one above 0. */
int gq_gauss_legendre_dropped(int K);

#endif
