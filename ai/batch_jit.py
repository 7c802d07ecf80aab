"""The batch scorer's candidate loop compiled with Numba: ``ai.batch.BatchScorer.score``'s numbers, bit for bit,
in one pass over the NPCs instead of a few dozen numpy calls per candidate.

At 1,000 army units about 60 NPCs decide in a tick, and the numpy path's cost there is its calls, not its
arithmetic: the guard brain's 5 candidates make about 60 numpy calls a tick, about 0.4 ms, whatever the number of
NPCs. This loop runs the same rule (docs/rules/utility.md, "Score") cell by cell: the gates, then per preference
the normalised input, the curve, the clamp and the weighted log, then the mean. A cell the columns cannot decide
exactly is marked for the scalar scorer, as the numpy path marks it.

Why the numbers are identical, operation by operation:

- every float comes from the same IEEE operations in the same order as the numpy expression it replaces
  (``(v - lo) * inv_span``, ``slope * x + intercept``, ``log_sum + weight * log``); Numba compiles without
  ``fastmath``, so nothing is fused or reordered;
- ``log`` and ``exp`` are the C library's, which the numpy path also calls (through ``math``, ``ai.batch._libm``);
- ``np.clip``, ``np.maximum`` and ``np.minimum`` are written out with their NaN rule (a NaN stays NaN); the sign
  of a zero may differ (``np.clip(-0.0, 0.0, 1.0)`` is ``-0.0``, the loop's ``0.0``), which no score reads: a
  clamped zero is at or below ``eps`` either way, and the curves give the same value for either zero;
- the constants (a range's ``1 / (hi - lo)``, a piecewise segment's slope, the sum of the weights) are worked out
  once in Python by the same expressions the numpy path evaluates in Python.

A scorer whose definition the loop does not cover keeps the numpy path: a gate value that is not a number a
float holds exactly (the numpy path compares every such cell in Python), a polynomial curve (Python's ``**``
rules), or a floor ``eps`` that is not a positive finite number. It is the optional extra ``fast``
(``ai.jit``); without Numba, when it cannot be imported or compile, or with ``RTS_NO_JIT=1``, the numpy path runs
(tests/test_batch_jit.py compares both on random brains and facts, and on a match's decisions).
"""
from __future__ import annotations

import math

import numpy as np

from ai import jit
from ai.conditions import exact_number as _exact
from ai.curves import LOGIT_EDGE

#: the comparisons' codes (ai.conditions.OPS), and the curves' (ai.curves.PARAMS less polynomial)
OPS = ("==", "!=", "<", "<=", ">", ">=")
LINEAR, LOGISTIC, LOGIT, STEP, PIECEWISE = range(5)
_KINDS = {"linear": LINEAR, "logistic": LOGISTIC, "logit": LOGIT, "step": STEP, "piecewise": PIECEWISE}


class Plan:
    """One ``ModeSelector``'s candidates as flat arrays for the compiled loop (``plan`` makes it).

    Gates: ``g_start[j]:g_start[j + 1]`` are candidate ``j``'s, each a fact row (``g_fact``), a comparison code
    (``g_op``) and a value (``g_val``). Preferences likewise (``p_start``): an input row, the range's ``lo`` and
    ``1 / (hi - lo)`` (NaN for an empty range or a bound a float cannot hold), the weight (NaN when a float cannot
    hold it: such a candidate is not ``valid`` anyway), the curve's code and three parameters (linear: slope,
    intercept; logistic: steepness, midpoint; logit: steepness; step: threshold, low, high), and for a piecewise
    curve its points ``q_start[k]:q_start[k + 1]`` (x, y, and the slope to the next point). Per candidate: whether
    it has preferences, whether they are valid (else every cell that passes its gates goes to the scalar scorer),
    and the sum of their weights."""
    __slots__ = ("g_start", "g_fact", "g_op", "g_val", "p_start", "p_input", "p_lo", "p_inv", "p_weight", "p_kind",
                 "p_par", "q_start", "q_x", "q_y", "q_k", "has_prefs", "valid", "w_sum", "eps", "log_eps")


def plan(scorer) -> Plan | None:
    """``scorer`` (an ``ai.batch.BatchScorer``) as a ``Plan``, or None where the compiled loop does not apply."""
    eps = scorer.eps
    if not (math.isfinite(eps) and eps > 0):
        return None
    row = {name: i for i, name in enumerate(scorer.names)}
    out = Plan()
    g_start, g_fact, g_op, g_val = [0], [], [], []
    p_start, p_input, p_lo, p_inv, p_weight, p_kind, p_par = [0], [], [], [], [], [], []
    q_start, q_x, q_y, q_k = [0], [], [], []
    has_prefs, w_sum = [], []
    for cand in scorer.candidates:
        for g in cand.gates:
            if g.op not in OPS or not _exact(g.value):
                return None
            g_fact.append(row[g.fact])
            g_op.append(OPS.index(g.op))
            g_val.append(float(g.value))
        g_start.append(len(g_fact))
        total = 0.0
        for pref in cand.preferences:
            curve = pref.curve
            kind = _KINDS.get(curve.kind)
            if kind is None:
                return None
            p = curve.params
            p_input.append(row[pref.input])
            # (the numpy path's own expressions, in Python: ``pref.lo`` and ``pref.hi`` may be ints)
            lo, hi, weight = pref.lo, pref.hi, pref.weight
            p_lo.append(float(lo) if _exact(lo) else math.nan)
            p_inv.append(1.0 / (hi - lo) if hi != lo and _exact(hi) and _exact(lo) else math.nan)
            p_weight.append(float(weight) if _exact(weight) else math.nan)
            p_kind.append(kind)
            if kind == LINEAR:
                p_par.append((p["slope"], p["intercept"], 0.0))
            elif kind == LOGISTIC:
                p_par.append((-p["steepness"], p["midpoint"], 0.0))
            elif kind == LOGIT:
                p_par.append((p["steepness"], 0.0, 0.0))
            elif kind == STEP:
                p_par.append((p["threshold"], float(p["low"]), float(p["high"])))
            else:
                p_par.append((0.0, 0.0, 0.0))
                pts = curve.points
                for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
                    q_x.append(float(x0))
                    q_y.append(float(y0))
                    q_k.append(float((y1 - y0) / (x1 - x0)))
                q_x.append(float(pts[-1][0]))         # the last point: no segment after it
                q_y.append(float(pts[-1][1]))
                q_k.append(0.0)
            q_start.append(len(q_x))
            total += weight
        p_start.append(len(p_input))
        has_prefs.append(bool(cand.preferences))
        w_sum.append(total if cand.preferences else math.nan)
    i64 = lambda v: np.array(v, dtype=np.int64)        # noqa: E731
    f64 = lambda v: np.array(v, dtype=np.float64)      # noqa: E731
    out.g_start, out.g_fact, out.g_op, out.g_val = i64(g_start), i64(g_fact), i64(g_op), f64(g_val)
    out.p_start, out.p_input, out.p_lo, out.p_inv = i64(p_start), i64(p_input), f64(p_lo), f64(p_inv)
    out.p_weight, out.p_kind = f64(p_weight), i64(p_kind)
    out.p_par = np.array(p_par, dtype=np.float64).reshape(-1, 3)
    out.q_start, out.q_x, out.q_y, out.q_k = i64(q_start), f64(q_x), f64(q_y), f64(q_k)
    out.has_prefs = np.array(has_prefs, dtype=bool)
    out.valid = np.array(scorer.valid, dtype=bool)
    out.w_sum = f64(w_sum)
    out.eps = float(eps)
    out.log_eps = math.log(eps)
    return out


def _clip01(x):
    """``np.clip(x, 0.0, 1.0)``: numpy's max then min, each keeping a NaN first argument."""
    if x != x:
        return x
    x = x if x > 0.0 else 0.0
    return x if x < 1.0 else 1.0


def _curve(kind, a, b, c, x, q_x, q_y, q_k, q0, q1):
    """``ai.batch.curve_array`` of one value."""
    if kind == 0:                                     # linear
        return a * x + b
    if kind == 1:                                     # logistic (a: -steepness)
        z = a * (x - b)
        if z > 700.0:
            return 0.0
        if z != z:
            return z
        return 1.0 / (1.0 + math.exp(z if z < 700.0 else 700.0))
    if kind == 2:                                     # logit
        if x != x:
            return x
        v = x if x > LOGIT_EDGE else LOGIT_EDGE
        v = v if v < 1.0 - LOGIT_EDGE else 1.0 - LOGIT_EDGE
        return 0.5 + math.log(v / (1.0 - v)) / a
    if kind == 3:                                     # step
        return c if x >= a else b
    out = q_y[q1 - 1]                                 # piecewise: flat beyond the last point ...
    if x <= q_x[q0]:
        return q_y[q0]                                # ... and before the first
    for k in range(q0, q1 - 1):
        if x <= q_x[k + 1]:
            return q_y[k] + q_k[k] * (x - q_x[k])
    return out


def _score(vals, numeric, present, g_start, g_fact, g_op, g_val, p_start, p_input, p_lo, p_inv, p_weight, p_kind,
           p_par, q_start, q_x, q_y, q_k, has_prefs, valid, w_sum, eps, log_eps, eligible, scores, scalar):
    n = vals.shape[1]
    m = len(has_prefs)
    for i in range(n):
        for j in range(m):
            ok = True
            odd = False
            for t in range(g_start[j], g_start[j + 1]):
                f = g_fact[t]
                if present[f, i] and not numeric[f, i]:
                    odd = True                # not a number: the scalar comparison decides, the scalar scorer here
                    break
                v = vals[f, i]
                w = g_val[t]
                op = g_op[t]
                if op == 0:
                    res = v == w
                elif op == 1:
                    res = v != w
                elif op == 2:
                    res = v < w
                elif op == 3:
                    res = v <= w
                elif op == 4:
                    res = v > w
                else:
                    res = v >= w
                if not (res and numeric[f, i]):
                    ok = False
                    break
            if odd:
                scalar[i, j] = True
                continue
            if not ok:
                continue
            if not has_prefs[j]:
                eligible[i, j] = True
                scores[i, j] = 1.0
                continue
            if not valid[j]:
                scalar[i, j] = True
                continue
            log_sum = 0.0
            check = 0.0
            fast = True
            for t in range(p_start[j], p_start[j + 1]):
                f = p_input[t]
                v = vals[f, i]
                if not numeric[f, i] or not math.isfinite(v):
                    fast = False
                    break
                norm = _clip01((v - p_lo[t]) * p_inv[t])
                if not math.isfinite(norm):
                    fast = False
                    break
                curved = _curve(p_kind[t], p_par[t, 0], p_par[t, 1], p_par[t, 2], norm, q_x, q_y, q_k,
                                q_start[t], q_start[t + 1])
                if not math.isfinite(curved):
                    fast = False
                    break
                check = check + (v + curved)
                s = _clip01(curved)
                log_sum = log_sum + p_weight[t] * (math.log(s) if s > eps else log_eps)
            if not fast or not math.isfinite(check) or not math.isfinite(log_sum) or not math.isfinite(w_sum[j]):
                scalar[i, j] = True
                continue
            eligible[i, j] = True
            scores[i, j] = math.exp(log_sum / w_sum[j])


def _make(njit):
    global _clip01, _curve
    _clip01 = njit(cache=True)(_clip01)
    _curve = njit(cache=True)(_curve)
    kernel = njit(cache=True)(_score)
    i = np.zeros(2, dtype=np.int64)
    f = np.zeros(1)
    kernel(np.zeros((1, 1)), np.ones((1, 1), dtype=bool), np.ones((1, 1), dtype=bool), i, i[:0], i[:0], f[:0],
           np.array([0, 1]), np.zeros(1, dtype=np.int64), f, np.ones(1), f + 1.0, np.zeros(1, dtype=np.int64),
           np.zeros((1, 3)), np.zeros(2, dtype=np.int64), f[:0], f[:0], f[:0], np.ones(1, dtype=bool),
           np.ones(1, dtype=bool), f + 1.0, 1e-6, math.log(1e-6), np.zeros((1, 1), dtype=bool), np.zeros((1, 1)),
           np.zeros((1, 1), dtype=bool))
    return kernel


_BUILD = jit.Build("utility scoring runs on numpy (the same scores, slower)", _make)


def available() -> bool:
    """Whether the compiled loop runs (``ai.jit``): Numba installed and usable, ``RTS_NO_JIT`` not set."""
    return _BUILD.available()


def score(pl: Plan, vals: np.ndarray, numeric: np.ndarray, present: np.ndarray):
    """(eligible, scores, scalar) for the NPCs whose facts are the columns of ``vals`` (facts x NPCs, in the
    plan's fact rows) with ``numeric`` and ``present`` (``BatchScorer.columns``' masks): ``scalar`` marks the cells
    the scalar scorer must decide."""
    # (one memory order, the one compiled at set-up: ``matrix`` hands in a transposed view)
    vals, numeric, present = (np.ascontiguousarray(a) for a in (vals, numeric, present))
    n, m = vals.shape[1], len(pl.has_prefs)
    eligible = np.zeros((n, m), dtype=bool)
    scores = np.full((n, m), np.nan)
    scalar = np.zeros((n, m), dtype=bool)
    _BUILD.get()(vals, numeric, present, pl.g_start, pl.g_fact, pl.g_op, pl.g_val, pl.p_start, pl.p_input, pl.p_lo,
                 pl.p_inv, pl.p_weight, pl.p_kind, pl.p_par, pl.q_start, pl.q_x, pl.q_y, pl.q_k, pl.has_prefs,
                 pl.valid, pl.w_sum, pl.eps, pl.log_eps, eligible, scores, scalar)
    return eligible, scores, scalar
