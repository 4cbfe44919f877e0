"""torchquad 0.6's VEGAS (GPU, float64) and, where it is installed, Lepage's
vegas (CPU, all cores) on bench/bench_vegas.cu's 4-D peak
exp(-100 |x - 1/2|^2) on [0,1]^4, exact (sqrt(pi)/10 erf 5)^4: median wall
time of REPS calls after one warm-up (torch.cuda.synchronize around each),
the error and each code's own error estimate where it gives one.
Prints one line per run:
  peer N median_ms error stderr
Usage: python3 bench/torchquad_vegas.py [REPS]"""
import math
import statistics
import sys
import time

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
exact = (math.sqrt(math.pi) / 10.0 * math.erf(5.0)) ** 4
print("%-18s %12s %10s %11s %11s" % ("peer", "N", "median_ms", "error", "stderr"))


def timed(name, n, run):
    try:
        run()
        times, value, err = [], None, None
        for _ in range(reps):
            t0 = time.perf_counter()
            value, err = run()
            times.append(time.perf_counter() - t0)
        print("%-18s %12d %10.3f %11.3g %11s" % (name, n, statistics.median(times) * 1e3, value - exact,
                                                 "%.3g" % err if err is not None else "-"))
    except Exception as e:  # a peer that refuses a size: say so
        print("%-18s %12d %10s %s" % (name, n, "refused", str(e)[:60]))
    sys.stdout.flush()


try:
    import torch
    import torchquad
    from torchquad import VEGAS, set_up_backend

    torchquad.set_log_level("ERROR")
    set_up_backend("torch", data_type="float64")

    def peak(x):
        return torch.exp(-100.0 * ((x - 0.5) ** 2).sum(dim=1))

    for n in (10**6, 10**7, 10**8):
        def run(n=n):
            torch.cuda.synchronize()
            v = VEGAS().integrate(peak, dim=4, N=n, integration_domain=[[0.0, 1.0]] * 4, seed=2026)
            torch.cuda.synchronize()
            return float(v), None

        timed("torchquad_vegas", n, run)
except ImportError as e:
    print("%-18s %12s %10s %s" % ("torchquad_vegas", "-", "missing", e))

try:
    import numpy as np
    import vegas

    def peak_batch(x):
        return np.exp(-100.0 * ((x - 0.5) ** 2).sum(axis=1))

    for n in (2 * 10**6, 2 * 10**7):
        def run(n=n):
            integ = vegas.Integrator([[0, 1]] * 4)
            integ(vegas.batchintegrand(peak_batch), nitn=5, neval=n // 15)  # warm-up of the grid
            r = integ(vegas.batchintegrand(peak_batch), nitn=10, neval=n // 15)
            return r.mean, r.sdev

        timed("lepage_vegas_cpu", n, run)
except ImportError as e:
    print("%-18s %12s %10s %s" % ("lepage_vegas_cpu", "-", "missing", e))

# The ladder (bench_vegas's, for the peers): wall ms of one call to a
# relative error of 1e-4 .. 1e-8, n doubled from 2^16 while a call takes
# under LADDER_MS.  Lepage's vegas reports a standard error, which is what
# bench_vegas's ladder reads for gpuquad; torchquad's VEGAS reports none, so
# its rung is the root-mean-square relative error over three seeds (the true
# error, which a standard error estimates).
LADDER_MS = 3000.0
TARGETS = (1e-4, 1e-5, 1e-6, 1e-7, 1e-8)


def ladder(name, call):
    """call(n) -> (ms, relative error); prints the first n meeting each target."""
    reached = {}
    log2n = 16
    while log2n <= 34 and len(reached) < len(TARGETS):
        try:
            ms, rel = call(1 << log2n)
        except Exception as e:  # a peer that refuses a size ends its ladder
            print("# %s refused 2^%d: %s" % (name, log2n, str(e)[:60]))
            break
        for t in TARGETS:
            if t not in reached and rel <= t:
                reached[t] = "%.3f (%d)" % (ms, log2n)
        if ms > LADDER_MS:
            break
        log2n += 1
    print("%-16s" % name + "".join(" %16s" % reached.get(t, "-") for t in TARGETS))
    sys.stdout.flush()


print("\n# ladder: wall ms to a relative error of 1e-4 .. 1e-8 on the 4-D peak (n doubled from 2^16; "
      "'-' beyond the largest n tried); the n reached in parentheses (log2)")
print("%-16s" % "method" + "".join(" %16s" % ("%g" % t) for t in TARGETS))
try:
    def torchquad_rung(n):
        runs, times = [], []
        for seed in (1, 2, 3):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            v = VEGAS().integrate(peak, dim=4, N=n, integration_domain=[[0.0, 1.0]] * 4, seed=seed)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
            runs.append((float(v) - exact) / exact)
        return statistics.median(times) * 1e3, math.sqrt(sum(r * r for r in runs) / len(runs))

    torchquad_rung(1 << 16)  # warm-up
    ladder("torchquad_vegas", torchquad_rung)
except NameError as e:
    print("%-16s missing (%s)" % ("torchquad_vegas", e))

try:
    def lepage_rung(n):
        t0 = time.perf_counter()
        integ = vegas.Integrator([[0, 1]] * 4)
        integ(vegas.batchintegrand(peak_batch), nitn=5, neval=max(n // 15, 1000))
        r = integ(vegas.batchintegrand(peak_batch), nitn=10, neval=max(n // 15, 1000))
        return (time.perf_counter() - t0) * 1e3, r.sdev / abs(r.mean)

    vegas.Integrator  # NameError where vegas is missing
    ladder("lepage_vegas_cpu", lepage_rung)
except NameError as e:
    print("%-16s missing (%s)" % ("lepage_vegas_cpu", e))
