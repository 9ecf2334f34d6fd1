#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the polynomial coefficients of pbp::math and the runtime test's reference values.

Every approximation is fitted here from scratch with mpmath (interpolation at Chebyshev nodes,
which is within a small factor of the minimax polynomial), then rounded to float/double and
printed as exact hexadecimal literals.  Run from anywhere:

    python3 tools/scripts/gen_math_coefficients.py

It rewrites runtime/core/pbp/math/coefficients.hpp and tests/runtime/math/reference_values.h.
Requires mpmath (tested with 1.3).  Deterministic: no randomness except a fixed-seed PRNG.
"""
import os
import random
import shutil
import struct
import subprocess

from mpmath import mp, mpf

mp.dps = 60
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# ---------------------------------------------------------------------------------------------
# Rounding helpers (correct rounding to binary32/binary64, subnormals included).


def round_to(v, prec, emin):
    """Rounds the mpf v to nearest-even with prec bits and minimum exponent emin (of the MSB)."""
    v = mpf(v)
    if v == 0 or not mp.isfinite(v):
        return v
    e = int(mp.floor(mp.log(abs(v), 2)))
    # guard the floor(log2) against rounding at exact powers of two
    while mpf(2) ** e > abs(v):
        e -= 1
    while mpf(2) ** (e + 1) <= abs(v):
        e += 1
    e = max(e, emin)
    ulp = mpf(2) ** (e - prec + 1)
    q = v / ulp
    n = int(mp.floor(q))
    frac = q - n
    if frac > 0.5 or (frac == 0.5 and n % 2 == 1):
        n += 1
    return n * ulp


def to_double(v):
    r = round_to(v, 53, -1022)
    if abs(r) >= mpf(2) ** 1024:
        return float("inf") if r > 0 else float("-inf")
    return float(r)


def to_single(v):
    r = round_to(v, 24, -126)
    if abs(r) >= mpf(2) ** 128:
        return float("inf") if r > 0 else float("-inf")
    return float(r)  # exact: 24 bits fit in a double


def bits_f(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_d(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def lit_d(x):
    return float(x).hex()


def lit_f(x):
    return float(x).hex() + "f"


# ---------------------------------------------------------------------------------------------
# Fitting: polynomial interpolation at Chebyshev nodes of [a, b], returned in the monomial basis.


def cheb_interp(f, a, b, n):
    a, b = mpf(a), mpf(b)
    N = n + 1
    xs = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (k + mpf(1) / 2) / N) for k in range(N)]
    A = mp.matrix(N, N)
    y = mp.matrix(N, 1)
    for i, x in enumerate(xs):
        for j in range(N):
            A[i, j] = x**j
        y[i] = f(x)
    c = mp.lu_solve(A, y)
    return [c[j] for j in range(N)]


def round_sequentially(c, f, a, b, rnd, weight):
    """Rounds the coefficients to the working format one at a time, lowest degree first, and
    refits the remaining ones (weighted least squares on Chebyshev nodes) after each rounding,
    so that the higher coefficients absorb the rounding errors of the lower ones."""
    a, b = mpf(a), mpf(b)
    n = len(c) - 1
    M = 4 * (n + 1)
    xs = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (k + mpf(1) / 2) / M) for k in range(M)]
    fs = [f(x) for x in xs]
    fixed = []
    cur = list(c)
    for j in range(n + 1):
        fixed.append(mpf(rnd(cur[j])))
        rest = n - j
        if rest == 0:
            break
        A = mp.matrix(M, rest)
        y = mp.matrix(M, 1)
        for i, x in enumerate(xs):
            w = weight(xs[i], fs[i])
            base = sum(fixed[k] * x**k for k in range(j + 1))
            for m in range(rest):
                A[i, m] = x ** (j + 1 + m) * w
            y[i] = (fs[i] - base) * w
        sol = mp.qr_solve(A, y)[0]
        cur = fixed + [sol[m] for m in range(rest)]
    return fixed


def max_rel_err(c, f, a, b, weight, m=400, rnd=None):
    a, b = mpf(a), mpf(b)
    cc = [mpf(rnd(x)) for x in c] if rnd else c
    worst = mpf(0)
    for i in range(m + 1):
        x = a + (b - a) * i / m
        p = mpf(0)
        for co in reversed(cc):
            p = p * x + co
        fx = f(x)
        worst = max(worst, abs(p - fx) * weight(x, fx))
    return worst


# ---------------------------------------------------------------------------------------------
# The approximations.

LN2 = mp.log(2)
ERFCX_K = mpf("3.75")


def exp_tail(r):  # exp(r) = 1 + r + r^2 * exp_tail(r)
    if abs(r) < mpf("1e-20"):
        return mpf(1) / 2 + r / 6
    return (mp.exp(r) - 1 - r) / r**2


def log_tail(z):  # log((1+s)/(1-s)) = 2s + s * z * log_tail(z), z = s^2
    s = mp.sqrt(z)
    if z < mpf("1e-30"):
        return mpf(2) / 3
    return (mp.log((1 + s) / (1 - s)) - 2 * s) / (s * z)


def erfcx_p(t):  # (1 + 2x) erfcx(x) with x = K (1 + t) / (1 - t)
    if t >= 1:
        return 2 / mp.sqrt(mp.pi)
    x = ERFCX_K * (1 + t) / (1 - t)
    return (1 + 2 * x) * mp.exp(x * x) * mp.erfc(x)


def erfcx_r(t):  # (erfcx_p(t) - 1) / (t + 1); erfcx(x) = (1 + (t + 1) erfcx_r(t)) / (1 + 2x)
    if t + 1 < mpf("1e-40"):
        x = mpf(0)
        return (2 - 2 / mp.sqrt(mp.pi)) * ERFCX_K / 2  # P'(-1) = dP/dx * dx/dt
    return (erfcx_p(t) - 1) / (t + 1)


NORMAL_K = mpf("5.25")


def normal_r(t):  # G(x) = erfcx(x / sqrt2), x = K (1 + t) / (1 - t): (1 + x) G(x) = 1 + (t + 1) R(t)
    if t + 1 < mpf("1e-40"):
        # d/dt [(1 + x) G(x)] at x = 0: (1 + G'(0)) * dx/dt, G'(0) = -sqrt(2/pi), dx/dt = K/2
        return (1 - mp.sqrt(2 / mp.pi)) * NORMAL_K / 2
    if t >= 1:
        return (mp.sqrt(2 / mp.pi) - 1) / 2
    x = NORMAL_K * (1 + t) / (1 - t)
    a = x / mp.sqrt(2)
    return ((1 + x) * mp.exp(a * a) * mp.erfc(a) - 1) / (t + 1)


def half_erf_scaled(w):  # erf(x / sqrt2) / (2 x) as a function of w = x^2
    x = mp.sqrt(w)
    if w < mpf("1e-30"):
        return 1 / mp.sqrt(2 * mp.pi)
    return mp.erf(x / mp.sqrt(2)) / (2 * x)


EXP_R = LN2 / 2 * mpf("1.0005")  # |r| after the reduction, with slack for the low word
LOG_Z = ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)) ** 2 * mpf("1.0001")
CENTRAL_X = mpf("1.05")  # normal_quantile's central region |x| <= ~1.04

FITS = [
    # name, function, interval, degree float, degree double
    ("exp_p", exp_tail, (-EXP_R, EXP_R), 4, 9),
    ("log_p", log_tail, (0, LOG_Z), 3, 6),
    # R enters as 1 + (t + 1) R(t): weight the error by (t + 1) / (1 + (t + 1) R(t)).
    ("erfcx_r", erfcx_r, (-1, 1), 11, 24, lambda t, r: (t + 1) / (1 + (t + 1) * r)),
    ("normal_r", normal_r, (-1, 1), 11, 24, lambda t, r: (t + 1) / (1 + (t + 1) * r)),
    # The ReLU moments' cheaper variants (normal_tails_fast): float to ~1e-6, double to ~1e-15.
    ("normal_r_fast", normal_r, (-1, 1), 8, 20, lambda t, r: (t + 1) / (1 + (t + 1) * r)),
    ("half_erf_p", half_erf_scaled, (0, CENTRAL_X**2), 7, 13),
]


def quantile_guess_fit():
    """Least-squares fit of R(t) = (a0 + a1 t + a2 t^2) / (1 + b1 t + b2 t^2 + b3 t^3) to
    t + Phi^-1(q), t = sqrt(-2 log q), over the tail q in [1e-320, 0.16] (linearised problem)."""
    ts, ys = [], []
    lo, hi = mp.sqrt(-2 * mp.log(mpf("0.16"))), mp.sqrt(-2 * mp.log(mpf("1e-320")))
    for i in range(200):
        t = lo + (hi - lo) * (mpf(i) / 199) ** 2
        q = mp.exp(-t * t / 2)
        x = -mp.sqrt(2) * mp.erfinv(1 - 2 * q) if q > mpf("1e-30") else None
        if x is None:
            x = mp.findroot(lambda u: mp.log(mp.ncdf(u)) - mp.log(q), -t + mpf("0.8"))
        ts.append(t)
        ys.append(t + x)
    # rows: a0 + a1 t + a2 t^2 - y (b1 t + b2 t^2 + b3 t^3) = y, weighted by 1/t (relative in x)
    A = mp.matrix(len(ts), 6)
    y = mp.matrix(len(ts), 1)
    for i, (t, yy) in enumerate(zip(ts, ys)):
        w = 1 / t
        row = [1, t, t * t, -yy * t, -yy * t * t, -yy * t**3]
        for j in range(6):
            A[i, j] = row[j] * w
        y[i] = yy * w
    sol = mp.qr_solve(A, y)[0]
    c = [sol[j] for j in range(6)]
    worst = mpf(0)
    for t, yy in zip(ts, ys):
        r = (c[0] + c[1] * t + c[2] * t * t) / (1 + c[3] * t + c[4] * t * t + c[5] * t**3)
        worst = max(worst, abs(r - yy) / t)
    return c, worst


def split_const(v, bits):
    """hi (with `bits` significant bits) + lo (double) of v."""
    hi = round_to(v, bits, -1022)
    return float(hi), to_double(v - hi)


def write_coefficients():
    out = []
    out.append("// SPDX-License-Identifier: Apache-2.0")
    out.append("// GENERATED by tools/scripts/gen_math_coefficients.py -- do not edit by hand.")
    out.append("// Polynomials fitted with mpmath (interpolation at Chebyshev nodes), lowest degree")
    out.append("// first; each comment states the fitted function, interval and max relative error.")
    out.append("#pragma once")
    out.append("")
    out.append("namespace pbp {")
    out.append("namespace math {")
    out.append("namespace detail {")
    out.append("")
    out.append("template <typename T>")
    out.append("struct Coefficients;")
    for tname, rnd, lit, deg_index in (("float", to_single, lit_f, 3), ("double", to_double, lit_d, 4)):
        out.append("")
        out.append("template <>")
        out.append("struct Coefficients<%s> {" % tname)
        for fit in FITS:
            name, f, (a, b), df, dd = fit[:5]
            n = df if tname == "float" else dd
            c = cheb_interp(f, a, b, n)
            weight = fit[5] if len(fit) > 5 else (lambda x, fx: 1 / abs(fx))
            err = max_rel_err(c, f, a, b, weight)
            c = round_sequentially(c, f, a, b, rnd, weight)
            err_r = max_rel_err(c, f, a, b, weight)
            out.append("  // %s on [%s, %s], degree %d: weighted fit error %s, after rounding %s" %
                       (f.__name__, mp.nstr(mpf(a), 6), mp.nstr(mpf(b), 6), n,
                        mp.nstr(err, 3), mp.nstr(err_r, 3)))
            out.append("  static constexpr %s %s[%d] = {" % (tname, name, n + 1))
            for co in c:
                out.append("      %s," % lit(rnd(co)))
            out.append("  };")
        out.append("};")
    out.append("")
    # quantile initial guess (shared, stored in both precisions)
    qc, qerr = quantile_guess_fit()
    out.append("// normal_quantile tail guess: x ~ -(t - (a0 + a1 t + a2 t^2) / (1 + b1 t + b2 t^2 +")
    out.append("// b3 t^3)), t = sqrt(-2 log q), least squares over q in [1e-320, 0.16]; max abs")
    out.append("// error of the guess / t: %s." % mp.nstr(qerr, 3))
    out.append("constexpr double kQuantileGuess[6] = {")
    for co in qc:
        out.append("    %s," % lit_d(to_double(co)))
    out.append("};")
    out.append("")
    # constants
    consts = []
    ln2_hi_d, ln2_lo_d = split_const(LN2, 53 - 12)
    ln2_hi_f, ln2_lo_f = split_const(LN2, 24 - 9)
    consts += [
        ("kLn2HiD", ln2_hi_d, "double"), ("kLn2LoD", ln2_lo_d, "double"),
        ("kLn2HiF", to_single(ln2_hi_f), "float"), ("kLn2LoF", to_single(LN2 - mpf(ln2_hi_f)), "float"),
    ]
    c_hi, c_lo = split_const(mp.log(2 * mp.pi) / 2, 53)
    consts += [("kLogSqrt2PiHiD", c_hi, "double"), ("kLogSqrt2PiLoD", c_lo, "double")]
    cf = to_single(mp.log(2 * mp.pi) / 2)
    consts += [("kLogSqrt2PiHiF", cf, "float"),
               ("kLogSqrt2PiLoF", to_single(mp.log(2 * mp.pi) / 2 - mpf(cf)), "float")]
    # value = rounded constant; Rel = (exact - rounded) / rounded; Lo = exact - rounded
    for name, v in (("InvSqrtPi", 1 / mp.sqrt(mp.pi)), ("Sqrt2OverPi", mp.sqrt(2 / mp.pi))):
        for suffix, rnd, t in (("F", to_single, "float"), ("D", to_double, "double")):
            r = rnd(v)
            consts.append(("k%s%s" % (name, suffix), r, t))
            consts.append(("k%sRel%s" % (name, suffix), rnd((v - mpf(r)) / mpf(r)), t))
    for suffix, rnd, t in (("F", to_single, "float"), ("D", to_double, "double")):
        r = rnd(LN2)
        consts.append(("kLn2%s" % suffix, r, t))
        consts.append(("kLn2Tail%s" % suffix, rnd(LN2 - mpf(r)), t))
    for name, v, t in consts:
        out.append("constexpr %s %s = %s;" % (t, name, lit_f(v) if t == "float" else lit_d(v)))
    out.append("")
    out.append("}  // namespace detail")
    out.append("}  // namespace math")
    out.append("}  // namespace pbp")
    path = os.path.join(ROOT, "runtime/core/pbp/math/coefficients.hpp")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")
    clang_format(path)
    print("wrote", path)


def clang_format(path):
    """Formats a generated file with the repository's .clang-format (if clang-format exists)."""
    exe = shutil.which("clang-format")
    if exe:
        subprocess.run([exe, "-i", "--style=file", path], cwd=ROOT, check=True)


# ---------------------------------------------------------------------------------------------
# Reference values for tests/runtime/math.


def ref_erfcx(x):
    x = mpf(x)
    if x > 1e6:
        return mp.exp(x * x) * mp.erfc(x)  # mpmath handles this (asymptotic internally)
    return mp.exp(x * x) * mp.erfc(x)


def ref_quantile(p):
    p = mpf(p)
    if p > 0.5:
        return -ref_quantile(1 - p)
    g = mp.sqrt(2) * mp.erfinv(2 * p - 1)
    return mp.findroot(lambda u: mp.log(mp.ncdf(u)) - mp.log(p), g)


def ref_ndtr(x):
    return mp.ncdf(mpf(x))


REFS = [
    ("exp", lambda x: mp.exp(x),
     [-745.0, -103.5, -87.3, -20.25, -1.0, -0.5, -1e-7, 0.0, 1e-10, 0.25, 0.693359375, 1.0,
      3.5, 10.0, 50.0, 88.5, 88.75, 200.0, 709.5]),
    ("log", lambda x: mp.log(x),
     [1e-40, 1.5e-30, 1e-5, 0.25, 0.7071, 0.999, 1.0, 1.0009765625, 1.5, 2.0, 3.0, 10.0, 1e10,
      3e38]),
    ("erfcx", ref_erfcx,
     [-9.0, -3.5, -1.0, -0.5, -0.125, 0.0, 1e-8, 0.25, 0.5, 1.0, 2.0, 3.75, 5.0, 10.0, 30.0,
      100.0, 1e4, 1e6, 1e30]),
    ("normal_pdf", lambda x: mp.npdf(mpf(x)),
     [-38.5, -13.0, -5.5, -1.0, -0.25, 0.0, 1e-20, 0.75, 2.0, 8.0, 12.5, 37.0]),
    ("normal_cdf", ref_ndtr,
     [-37.5, -30.0, -13.0, -10.0, -5.25, -2.0, -1.0, -0.5, -0.0625, 0.0, 0.0625, 0.5, 1.0, 2.5,
      5.0, 8.0]),
    ("normal_pdf_over_cdf", lambda x: mp.npdf(mpf(x)) / mp.ncdf(mpf(x)),
     [-10000.0, -1000.0, -100.0, -38.0, -12.0, -5.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 5.0,
      9.0]),
    ("log_normal_cdf", lambda x: mp.log(mp.ncdf(mpf(x))),
     [-10000.0, -1000.0, -40.0, -10.0, -3.0, -1.0, -0.25, 0.0, 0.25, 1.0, 3.0, 6.0, 9.0, 12.0]),
    ("normal_quantile", ref_quantile,
     [1e-37, 1e-30, 1e-10, 1e-4, 0.01, 0.1, 0.25, 0.4, 0.5, 0.5009765625, 0.75, 0.9, 0.99,
      0.999]),
]


def write_references():
    out = []
    out.append("// SPDX-License-Identifier: Apache-2.0")
    out.append("// GENERATED by tools/scripts/gen_math_coefficients.py -- do not edit by hand.")
    out.append("// Correctly rounded results (mpmath, 60 digits) stored as exact bit patterns;")
    out.append("// every argument is exactly representable in float and in double.")
    out.append("#pragma once")
    out.append("#include <stdint.h>")
    out.append("")
    out.append("struct PbpMathReference {")
    out.append("  float x_float;")
    out.append("  double x_double;")
    out.append("  uint32_t result_float_bits;")
    out.append("  uint64_t result_double_bits;")
    out.append("};")
    for name, f, xs in REFS:
        out.append("")
        out.append("static const PbpMathReference kReference_%s[] = {" % name)
        for x in xs:
            xf = to_single(mpf(x))
            # the double argument is the float argument, so both sets test the same point
            v = f(mpf(xf))
            rf, rd = to_single(v), to_double(v)
            out.append("    {%s, %s, 0x%08xu, 0x%016xull},  // %s" %
                       (lit_f(xf), lit_d(xf), bits_f(rf), bits_d(rd), mp.nstr(v, 17)))
        out.append("};")
    path = os.path.join(ROOT, "tests/runtime/math/reference_values.h")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")
    clang_format(path)
    print("wrote", path)


if __name__ == "__main__":
    random.seed(12345)
    write_coefficients()
    write_references()
