"""Response curves: a normalised input x in [0, 1] -> a preference value (clamped to [0, 1] by the scorer).

Kinds and parameters (every parameter has a default, so ``Curve("linear")`` is the identity):

- ``linear``      y = slope * x + intercept                        (slope 1, intercept 0)
- ``polynomial``  y = slope * (x - shift) ** exponent + intercept    (exponent 2, slope 1, shift 0, intercept 0);
                  exponent > 0; a negative base with a non-integer exponent is not a number -> diagnostic
- ``logistic``    y = 1 / (1 + exp(-steepness * (x - midpoint)))     (steepness 10, midpoint 0.5); steepness != 0
- ``logit``       y = 0.5 + ln(x / (1 - x)) / steepness, x kept in [1e-6, 1 - 1e-6]
                  (steepness 10): the inverse of the logistic, steep at both ends
- ``step``        y = high if x >= threshold else low                (threshold 0.5, low 0, high 1)
- ``piecewise``   linear interpolation through ``points`` [[x, y], ...] with strictly increasing x;
                  flat beyond the first and last point

Bad parameters raise ``ValueError`` when the curve is built, so content naming
one is refused at load time with its file, line and key. The rules are in
docs/rules/utility.md ("Curves").

    >>> Curve("step", {"threshold": 0.3})(0.4)
    1.0
    >>> Curve("polynomial", {"exponent": 0})
    Traceback (most recent call last):
    ...
    ValueError: a polynomial curve needs exponent > 0
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

#: kind -> {parameter: default}
PARAMS: dict[str, dict[str, float]] = {
    "linear": {"slope": 1.0, "intercept": 0.0},
    "polynomial": {"exponent": 2.0, "slope": 1.0, "shift": 0.0, "intercept": 0.0},
    "logistic": {"steepness": 10.0, "midpoint": 0.5},
    "logit": {"steepness": 10.0},
    "step": {"threshold": 0.5, "low": 0.0, "high": 1.0},
    "piecewise": {},
}

LOGIT_EDGE = 1e-6


def _finite(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"curve parameter '{name}' must be a number")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"curve parameter '{name}' must be finite")
    return value


@dataclass(frozen=True)
class Curve:
    """A response curve: ``kind`` (a key of ``PARAMS``), its ``params`` (missing ones take the defaults) and,
    for ``piecewise``, its ``points``. Raises ``ValueError`` for an unknown kind or parameter, a non-finite
    parameter, or parameters that make no curve. Calling it gives the raw value for a normalised input.

    >>> Curve().params                                  # linear, the identity
    {'slope': 1.0, 'intercept': 0.0}
    >>> Curve("logistic", {"midpoint": 0.3})(0.3)
    0.5
    >>> Curve("piecewise", points=[[0, 0], [0.5, 1], [1, 0]])(0.75)
    0.5
    >>> Curve("linear", {"steepness": 2})
    Traceback (most recent call last):
    ...
    ValueError: a linear curve has no parameter 'steepness' (it takes: slope, intercept)
    """
    kind: str = "linear"
    params: dict = field(default_factory=dict)
    points: tuple = ()

    def __post_init__(self):
        if self.kind not in PARAMS:
            raise ValueError(f"unknown curve type '{self.kind}' (known: {', '.join(PARAMS)})")
        unknown = set(self.params) - set(PARAMS[self.kind])
        if unknown:
            raise ValueError(f"a {self.kind} curve has no parameter '{sorted(unknown)[0]}' "
                             f"(it takes: {', '.join(PARAMS[self.kind]) or 'points'})")
        values = dict(PARAMS[self.kind])
        for name, value in self.params.items():
            values[name] = _finite(name, value)
        object.__setattr__(self, "params", values)
        if self.kind == "polynomial" and values["exponent"] <= 0:
            raise ValueError("a polynomial curve needs exponent > 0")
        if self.kind in ("logistic", "logit") and values["steepness"] == 0:
            raise ValueError(f"a {self.kind} curve needs a non-zero steepness")
        if self.kind == "piecewise":
            pts = tuple((_finite("points", x), _finite("points", y)) for x, y in (self._pairs(self.points)))
            if len(pts) < 2:
                raise ValueError("a piecewise curve needs at least two points")
            if any(b[0] <= a[0] for a, b in zip(pts, pts[1:])):
                raise ValueError("piecewise points need strictly increasing x")
            object.__setattr__(self, "points", pts)
        elif self.points:
            raise ValueError(f"only a piecewise curve takes points, not a {self.kind} curve")
        object.__setattr__(self, "fn", self._build())

    @staticmethod
    def _pairs(points):
        out = []
        for p in points:
            if not isinstance(p, (list, tuple)) or len(p) != 2:
                raise ValueError("piecewise points are [x, y] pairs")
            out.append(p)
        return out

    def _build(self):
        p = self.params
        kind = self.kind
        if kind == "linear":
            m, b = p["slope"], p["intercept"]
            return lambda x: m * x + b
        if kind == "polynomial":
            k, m, c, b = p["exponent"], p["slope"], p["shift"], p["intercept"]

            def poly(x):
                base = x - c
                if base < 0 and k != int(k):
                    return math.nan
                try:
                    return m * base ** k + b
                except OverflowError:
                    return math.inf
            return poly
        if kind == "logistic":
            s, mid = p["steepness"], p["midpoint"]

            def logistic(x):
                z = -s * (x - mid)
                if z > 700:
                    return 0.0
                return 1.0 / (1.0 + math.exp(z))
            return logistic
        if kind == "logit":
            s = p["steepness"]

            def logit(x):
                x = min(max(x, LOGIT_EDGE), 1.0 - LOGIT_EDGE)
                return 0.5 + math.log(x / (1.0 - x)) / s
            return logit
        if kind == "step":
            t, lo, hi = p["threshold"], p["low"], p["high"]
            return lambda x: hi if x >= t else lo
        pts = self.points
        first_x, first_y = pts[0]
        last_y = pts[-1][1]
        # (end x, start x, start y, slope) per segment, scanned in order: curves have few points
        segments = tuple((x1, x0, y0, (y1 - y0) / (x1 - x0)) for (x0, y0), (x1, y1) in zip(pts, pts[1:]))

        def piecewise(x):
            if x <= first_x:
                return first_y if x == x else math.nan
            for x1, x0, y0, slope in segments:
                if x <= x1:
                    return y0 + slope * (x - x0)
            return last_y if x == x else math.nan
        return piecewise

    def __call__(self, x: float) -> float:
        """The raw curve value (may be outside [0, 1] or not finite: the scorer checks). ``fn`` is the same
        function without the float() guard, for hot loops: it never raises on x in [0, 1].

        >>> Curve("linear", {"slope": 2.0})(0.75)          # the scorer clamps this to 1
        1.5
        >>> Curve("logit")(0.5)
        0.5
        """
        return float(self.fn(x))

    def describe(self) -> str:
        """The curve in one line, as decision records and diagnostics show it.

        >>> Curve("step", {"threshold": 0.25}).describe()
        'step threshold=0.25 low=0 high=1'
        >>> Curve("piecewise", points=[[0, 1], [1, 0]]).describe()
        'piecewise (0,1) (1,0)'
        """
        if self.kind == "piecewise":
            return "piecewise " + " ".join(f"({x:g},{y:g})" for x, y in self.points)
        return self.kind + " " + " ".join(f"{k}={v:g}" for k, v in self.params.items())
