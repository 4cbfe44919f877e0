"""torchquad 0.6 on the same problems as bench/bench_rules.c (issue 15), in
float64 on the GPU: median wall time of REPS integrate calls after one
warm-up (torch.cuda.synchronize around each).  Prints one line per problem:
  rule dims points integrand median_ms rel_error
Usage: python3 bench/torchquad_rules.py [REPS]"""
import math
import statistics
import sys
import time

import torch
import torchquad
from torchquad import Boole, GaussLegendre, Simpson, Trapezoid, set_up_backend

torchquad.set_log_level("ERROR")
set_up_backend("torch", data_type="float64")
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 9

problems = [
    ("simpson", Simpson, 1, 10**8 + 1),
    ("boole", Boole, 1, 10**8 + 1),
    ("trapezoid", Trapezoid, 3, 501**3),
    ("simpson", Simpson, 3, 501**3),
    ("gauss-legendre", GaussLegendre, 3, 100**3),
]
integrands = [
    ("gaussian", lambda x: torch.exp(-(x * x).sum(dim=1)),
     lambda d: (math.sqrt(math.pi) * math.erf(3.0)) ** d),
    ("polynomial", lambda x: 1.0 + (x * x).sum(dim=1), lambda d: 6.0 ** d * (1.0 + 3.0 * d)),
]
print("%-18s %4s %12s %-12s %10s %10s" % ("rule", "dims", "points", "integrand", "median_ms", "rel_error"))
for name, Rule, dims, points in problems:
    for iname, f, exact in integrands:
        rule = Rule()
        dom = [[-3.0, 3.0]] * dims

        def run():
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            v = rule.integrate(f, dim=dims, N=points, integration_domain=dom)
            torch.cuda.synchronize()
            return time.perf_counter() - t0, float(v)

        try:
            run()
            times = []
            for _ in range(reps):
                t, v = run()
                times.append(t)
            med = statistics.median(times) * 1e3
            print("%-18s %4d %12d %-12s %10.3f %10.2e" % (name, dims, points, iname, med,
                                                          abs(v - exact(dims)) / exact(dims)))
        except Exception as e:  # torchquad refuses some sizes; say so
            print("%-18s %4d %12d %-12s %10s %s" % (name, dims, points, iname, "refused", str(e)[:60]))
        sys.stdout.flush()
