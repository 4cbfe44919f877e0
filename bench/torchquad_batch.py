"""torchquad 0.6 on issue 23's sweep, in float64 on the GPU: the integrals of
sin(k x)/(1+x) on [0, pi], k = 1 .. K, with N = 10^5 + 1 trapezoid points
each, (1) looping over k, one integrate call per k (K_LOOP values of k,
timed, and scaled to K), and (2) vectorised: one integrate call whose
integrand returns all the k at once (shape [N, chunk]), in chunks of k that
fit the GPU's memory.  Median wall time of REPS after one warm-up, with
torch.cuda.synchronize around each.  Prints one line per method:
  method k_timed seconds seconds_for_K max_abs_diff_vs_loop
Usage: python3 bench/torchquad_batch.py [REPS [K [K_LOOP [CHUNK]]]]
  (default 3, 10000, 1000, 500)"""
import statistics
import sys
import time

import torch
import torchquad
from torchquad import Trapezoid, set_up_backend

torchquad.set_log_level("ERROR")
set_up_backend("torch", data_type="float64")
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
K = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
k_loop = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
chunk = int(sys.argv[4]) if len(sys.argv) > 4 else 500
N = 10**5 + 1
dom = [[0.0, torch.pi]]
rule = Trapezoid()


def timed(fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    v = fn()
    torch.cuda.synchronize()
    return time.perf_counter() - t0, v


def loop(count):
    out = []
    for k in range(1, count + 1):
        out.append(float(rule.integrate(lambda x, k=k: torch.sin(k * x[:, 0]) / (1 + x[:, 0]), dim=1, N=N,
                                        integration_domain=dom)))
    return out


def vectorised(count):
    out = []
    for first in range(1, count + 1, chunk):
        ks = torch.arange(first, min(first + chunk, count + 1), dtype=torch.float64, device="cuda")
        v = rule.integrate(lambda x: torch.sin(x[:, :1] * ks[None, :]) / (1 + x[:, :1]), dim=1, N=N,
                           integration_domain=dom)
        out.extend(v.tolist())
    return out


print("%-12s %8s %10s %14s %14s" % ("method", "k_timed", "seconds", "seconds_for_K", "max_abs_diff"))
timed(lambda: loop(10))
times = []
for _ in range(reps):
    t, reference = timed(lambda: loop(k_loop))
    times.append(t)
med = statistics.median(times)
print("%-12s %8d %10.3f %14.3f %14s" % ("loop", k_loop, med, med * K / k_loop, "-"))
try:
    timed(lambda: vectorised(chunk))
    times = []
    for _ in range(reps):
        t, values = timed(lambda: vectorised(K))
        times.append(t)
    med = statistics.median(times)
    diff = max(abs(a - b) for a, b in zip(values[:k_loop], reference))
    print("%-12s %8d %10.3f %14.3f %14.3g" % ("vectorised", K, med, med, diff))
except Exception as e:  # torchquad versions without vector-valued integrands
    print("%-12s unsupported: %s" % ("vectorised", str(e).splitlines()[0][:100]))
