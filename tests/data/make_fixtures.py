"""make_fixtures.py DIR — real-world data files for tests/data_files.sh,
written by numpy, Python's csv and zipfile modules, and the values gpuquad
must find in them (DIR/expected, one "name value" per line, values as
float.hex so the comparison is exact).

Every array's sum is computed here the way gpuquad reads it: the values
widened to double (numpy's astype(float64), which rounds int64/uint64 beyond
2^53 to nearest) and summed exactly (math.fsum).
"""
import csv
import io
import math
import os
import struct
import sys
import zipfile
import zlib

import numpy as np

out = sys.argv[1]
expected = []


def path(name):
    return os.path.join(out, name)


def expect(name, value):
    expected.append("%s %s" % (name, float(value).hex()))


def exact_sum(a):
    return math.fsum(np.asarray(a).astype(np.float64).ravel().tolist())


# ---- .npy of every integer, bool and float16 dtype, both byte orders -------
rng = np.random.default_rng(24)
for code in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1", "f2"]:
    dt = np.dtype(code)
    if dt.kind == "b":
        a = rng.integers(0, 2, 1000).astype(bool)
    elif dt.kind == "f":
        a = rng.normal(0, 1000, 1000).astype(dt)
    else:
        info = np.iinfo(dt)
        # values over 2^40 at most, so that the sum is exact; the ends of
        # the types up to 32 bits included
        lo, hi = max(info.min, -2**40), min(info.max, 2**40)
        a = rng.integers(lo, hi, 1000, endpoint=True, dtype=dt)
        if dt.itemsize <= 4:
            a[0], a[1] = info.min, info.max
    for order in "<>":
        if dt.itemsize == 1 and order == ">":
            continue
        name = "%s%s" % ("le" if order == "<" else "be", code)
        np.save(path(name + ".npy"), a.astype(dt.newbyteorder(order)))
        expect(name + ".sum", exact_sum(a))
        expect(name + ".min", a.astype(np.float64).min())
        expect(name + ".max", a.astype(np.float64).max())

# float16 specials: inf and nan under --nan=omit; subnormals exact
h = np.array([np.inf, -np.inf, np.nan, 6e-8, -0.0, 65504, 1.0009765625], dtype="<f2")
np.save(path("special_f2.npy"), h)
expect("special_f2.sum", exact_sum(h[np.isfinite(h)]))

# int64 and uint64 beyond 2^53: rounded to nearest, counted
big = np.array([2**53 + 1, 2**62 + 1, -(2**53) - 3, 7, 2**53], dtype="<i8")
np.save(path("big_i8.npy"), big)
expect("big_i8.sum", exact_sum(big))
ubig = np.array([2**64 - 1, 2**63 + 1, 5], dtype="<u8")
np.save(path("big_u8.npy"), ubig)
expect("big_u8.sum", exact_sum(ubig))

# raw files (native order) for --dtype, and for standard input
r16 = rng.integers(-32768, 32767, 4096, dtype=np.int16)
r16.tofile(path("r16.raw"))
expect("r16.sum", exact_sum(r16))
ru8 = rng.integers(0, 255, 333, dtype=np.uint8)
ru8.tofile(path("u8.bin"))
expect("u8.sum", exact_sum(ru8))
rf16 = rng.normal(0, 10, 500).astype(np.float16)
rf16.tofile(path("h.raw"))
expect("h.sum", exact_sum(rf16))

# ---- .npz archives: stored, deflated, one array, zip64 ----------------------
x = rng.normal(0, 1, 3000)
y = rng.normal(0, 1, 3000)
n16 = rng.integers(-1000, 1000, 3000, dtype=np.int16)
np.savez(path("stored.npz"), x=x, y=y, n16=n16)
np.savez_compressed(path("deflated.npz"), x=x, y=y, n16=n16)
np.savez(path("one.npz"), x)  # the name numpy gives it: arr_0
expect("x.sum", exact_sum(x))
expect("n16.sum", exact_sum(n16))
with zipfile.ZipFile(path("force64.npz"), "w") as z:  # zip64 extra in the local header
    with z.open("x.npy", "w", force_zip64=True) as f:
        np.lib.format.write_array(f, x)


def zip64_stored(file, name, data):
    """A stored zip64 member whose central directory entry and end record are
    in their zip64 forms (what numpy's zipfile writes past 4 GiB)."""
    crc = zlib.crc32(data)
    nm = name.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(nm), 20)
    local += nm + struct.pack("<HHQQ", 1, 16, len(data), len(data)) + data
    cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(nm), 28,
                     0, 0, 0, 0, 0xFFFFFFFF)
    cd += nm + struct.pack("<HHQQQ", 1, 24, len(data), len(data), 0)
    cd_off = len(local)
    z64_off = cd_off + len(cd)
    end64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 1, 1, len(cd), cd_off)
    locator = struct.pack("<IIQI", 0x07064B50, 0, z64_off, 1)
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(file, "wb") as f:
        f.write(local + cd + end64 + locator + eocd)


buf = io.BytesIO()
np.lib.format.write_array(buf, n16)
zip64_stored(path("zip64.npz"), "n16.npy", buf.getvalue())
assert (np.load(path("zip64.npz"))["n16"] == n16).all()  # Python's zipfile reads it as we mean it

# hostile archives: truncated, index cut, deflated data corrupted, sizes lying
whole = open(path("deflated.npz"), "rb").read()
open(path("trunc.npz"), "wb").write(whole[: len(whole) // 2])
open(path("tail_cut.npz"), "wb").write(whole[:-10])
bad = bytearray(whole)
off = whole.index(b"PK\x03\x04")  # first member: its data start after the local header
nlen, xlen = struct.unpack("<HH", whole[off + 26 : off + 30])
data0 = off + 30 + nlen + xlen
for k in range(200, 260):
    bad[data0 + k] ^= 0x5A
open(path("corrupt.npz"), "wb").write(bytes(bad))
badcrc = bytearray(whole)
cd0 = whole.index(b"PK\x01\x02")  # first entry's CRC-32: its data inflate to other bytes than it says
badcrc[cd0 + 16 : cd0 + 20] = struct.pack("<I", zlib.crc32(b"not this") & 0xFFFFFFFF)
open(path("badcrc.npz"), "wb").write(bytes(badcrc))
stored = bytearray(open(path("stored.npz"), "rb").read())
cd = stored.rindex(b"PK\x01\x02")  # last entry: its local header offset points past the end
stored[cd + 42 : cd + 46] = struct.pack("<I", len(stored) + 1000)
open(path("badoffset.npz"), "wb").write(bytes(stored))
open(path("notzip.npz"), "wb").write(b"PK\x03\x04" + b"\0" * 40)

# ---- CSV as Python's csv module writes it: CRLF, quotes, a BOM --------------
t = np.arange(0.0, 2.0, 0.125)
v = np.sin(t) * 3
rows = [["time", "pressure, kPa", "note"]]
for i, (ti, vi) in enumerate(zip(t, v)):
    rows.append([repr(float(ti)), "" if i % 5 == 3 else ("NA" if i % 7 == 6 else repr(float(vi))), "a,b" if i % 2 else "c"])
with open(path("table.csv"), "w", newline="", encoding="utf-8-sig") as f:
    csv.writer(f).writerows(rows)
kept = [vi for i, vi in enumerate(v) if not (i % 5 == 3 or i % 7 == 6)]
expect("table.pressure.sum", math.fsum(kept))
expect("table.pressure.n", len(kept))
expect("table.time.sum", math.fsum(t.tolist()))
# the same table as a TSV with empty cells
with open(path("table.tsv"), "w", newline="") as f:
    w = csv.writer(f, delimiter="\t")
    for row in rows:
        w.writerow([c if c != "NA" else "" for c in row])
# integrate DATA by names: y = 2x on x in [0, 3]: the trapezoid is exact, 9
with open(path("line.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["x", "y"])
    for xi in np.linspace(0, 3, 31):
        w.writerow([repr(float(xi)), repr(float(2 * xi))])

# numpy.savetxt's header is a comment line; genfromtxt(names=True) reads names from it
st = rng.integers(-100, 100, (50, 3)).astype(np.float64)
np.savetxt(path("savetxt.csv"), st, delimiter=",", header="a,b,c")
expect("savetxt.b.sum", math.fsum(st[:, 1].tolist()))

open(path("expected"), "w").write("\n".join(expected) + "\n")
