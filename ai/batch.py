"""Utility scoring for many NPCs at once: the scoring rule of ai/utility.py on numpy columns.

``BatchScorer(selector).score(facts_list, bbs)`` scores every candidate of one ``ModeSelector`` for a list of
NPCs that share it (one brain definition) and returns ``(eligible, scores)``, two arrays of shape
``(NPCs, candidates)`` in the selector's candidate (id) order; an ineligible cell's score is ``nan``. The rule is
the scalar one (docs/rules/utility.md, "Score"), applied column-wise:

1. each fact a gate or preference reads is gathered once per NPC into a float column (the snapshot first, then
   the blackboard, as the scalar scorer reads them);
2. gates are masks: the comparison on the column; a missing fact fails the gate;
3. preferences, for the NPCs that passed the gates: ``(raw - lo) / (hi - lo)`` clamped to [0, 1], the curve as
   an array function (``curve_array``), clamped to [0, 1], and the weighted geometric mean as
   ``exp(sum w * log(max(s, eps)) / sum w)``, summed in the preferences' order (the seed's zero rule: a value at
   or below ``eps`` counts as ``eps``); the arithmetic in the scalar scorer's order, ``log`` and ``exp`` the
   ``math`` module's (numpy's may differ from the C library's in the last bit), so the scores are the scalar
   ones to the last bit;
4. any cell the columns cannot decide exactly as the scalar scorer would is scored by the scalar scorer itself,
   so the diagnostics and the outcome are the scalar ones by construction: a fact that is not a number, or an int
   a float cannot hold (a fact, a gate value, a range bound or weight), an input read from the blackboard, a
   non-finite input, normalised value, curve value or sum of inputs and curve values (those the scalar's own fast
   loop hands to its other way, ``_score_checked``, which normalises by a division), a bad range or weight.

With the optional ``fast`` extra (Numba) steps 2 and 3 run as one compiled loop over a (facts, NPCs) matrix
(``ai.batch_jit``; ``matrix`` reads it): the same operations in the same order, so the same bits, and the cells it
cannot decide marked for the scalar scorer as above.

Hysteresis, emergencies and the release rule stay per NPC (``ModeSelector.decide`` and ``Brain.think`` with
``scores=``):
``BatchScorer.scores_for`` turns one NPC's row into the ``CandidateScore`` dict ``decide`` reads; rows
for an ineligible candidate carry its gates (the scalar scorer's record), so an invalidation names them.
``tests/test_batch_utility.py`` checks, by property, that both scorers give the same eligibility and the same
scores to the last bit and choose the same candidate, near-ties included.

    >>> from ai.conditions import Condition
    >>> from ai.utility import Candidate, ModeSelector, Preference
    >>> sel = ModeSelector([Candidate("engage", (Condition("has_ammo"),), (Preference("hp_frac", 0.0, 1.0),)),
    ...                     Candidate("flee", preferences=(Preference("danger", 0.0, 1.0),))])
    >>> ok, s = BatchScorer(sel).score([{"has_ammo": True, "hp_frac": 0.8, "danger": 0.5},
    ...                                 {"has_ammo": False, "hp_frac": 0.8, "danger": 0.5}])
    >>> ok.tolist(), [round(v, 3) for v in s[0].tolist()]
    ([[True, True], [False, True]], [0.8, 0.5])
"""
from __future__ import annotations

import itertools
import math
from operator import itemgetter

import numpy as np

from ai import batch_jit
from ai.conditions import _MISSING, EXACT_INT, exact_number, truth
from ai.curves import LOGIT_EDGE, Curve
from ai.records import CandidateScore

_NUMERIC = (float, int, bool)
_NUMERIC_SET = frozenset(_NUMERIC)
def _plain_numbers(values: list) -> bool:
    """Whether every value is a plain float, int or bool that a float holds exactly (``exact_number`` of each, with
    one type check for the list).

    >>> _plain_numbers([0.5, 2, True]), _plain_numbers([0.5, 2 ** 60]), _plain_numbers([0.5, None])
    (True, False, False)
    """
    types = set(map(type, values))
    return types <= _NUMERIC_SET and (int not in types
                                      or all(-EXACT_INT <= v <= EXACT_INT for v in values if type(v) is int))


def curve_array(curve: Curve, x: np.ndarray) -> np.ndarray:
    """``curve`` applied to every value of ``x`` (in [0, 1]) exactly as ai/curves.py computes it, bit for bit.

    The arithmetic is numpy's in the scalar formulas' order (IEEE operations give the same bits); ``exp`` and
    ``log`` are ``math``'s, the scalar curves' own, mapped over the values (``_libm``): numpy's may run vector code
    that differs from the C library's in the last bit (numpy on AVX-512), and a near-tie between two candidates
    would then break one way on one path and the other on the other. The polynomial curve is the scalar curve's
    own function over the values (its ``**`` has Python's special cases).

    >>> curve_array(Curve("step", {"threshold": 0.3}), np.array([0.2, 0.4])).tolist()
    [0.0, 1.0]
    >>> curve_array(Curve("piecewise", points=[[0, 1], [0.5, 0.2], [1, 0]]), np.array([0.0, 0.25, 1.0])).tolist()
    [1.0, 0.6, 0.0]
    """
    p = curve.params
    kind = curve.kind
    if kind == "polynomial":
        return np.fromiter(map(curve.fn, x.tolist()), np.float64, len(x))
    with np.errstate(all="ignore"):
        if kind == "linear":
            return p["slope"] * x + p["intercept"]
        if kind == "logistic":
            z = -p["steepness"] * (x - p["midpoint"])
            return np.where(z > 700, 0.0, 1.0 / (1.0 + _libm(math.exp, np.minimum(z, 700.0))))
        if kind == "logit":
            v = np.minimum(np.maximum(x, LOGIT_EDGE), 1.0 - LOGIT_EDGE)
            return 0.5 + _libm(math.log, v / (1.0 - v)) / p["steepness"]
        if kind == "step":
            return np.where(x >= p["threshold"], float(p["high"]), float(p["low"]))
        pts = curve.points
        out = np.full(x.shape, float(pts[-1][1]))
        done = x <= pts[0][0]
        out[done] = pts[0][1]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            here = ~done & (x <= x1)
            out[here] = y0 + (y1 - y0) / (x1 - x0) * (x[here] - x0)
            done |= here
        return out


def _libm(fn, values: np.ndarray) -> np.ndarray:
    """``fn`` (``math.log`` or ``math.exp``) of every value, as the scalar scorer computes it (see ``curve_array``)."""
    return np.fromiter(map(fn, values.tolist()), np.float64, len(values))


class BatchScorer:
    """The scorer of one ``ModeSelector`` for many NPCs; built once per brain definition."""

    def __init__(self, selector):
        self.selector = selector
        self.candidates = selector.candidates
        self.ids = tuple(c.id for c in self.candidates)
        self.eps = selector.eps
        names: list[str] = []
        for cand in self.candidates:
            for g in cand.gates:
                if g.fact not in names:
                    names.append(g.fact)
            for pref in cand.preferences:
                if pref.input not in names:
                    names.append(pref.input)
        self.names = tuple(names)
        #: per candidate: whether its preferences are well configured and their range and weight are numbers a float
        #: holds exactly (else every cell goes to the scalar scorer, which subtracts an int range bound exactly)
        self.valid = tuple(all(p.config_problem() is None and all(exact_number(v) for v in (p.lo, p.hi, p.weight))
                               for p in c.preferences) for c in self.candidates)
        #: per candidate id: the record ``scores_for`` hands out for it when ineligible (made once; read only)
        self._ineligible = {c.id: CandidateScore(c.id, False, None, (), (), ()) for c in self.candidates}
        self._plan = batch_jit.plan(self)       # the compiled loop's arrays (None: this scorer keeps numpy's)
        #: one NPC's facts in ``names``' order as a tuple (KeyError when one is missing); None without facts
        self._row = (itemgetter(*names) if len(names) > 1 else (lambda facts, _n=names[0]: (facts[_n],))) \
            if names else None

    def columns(self, facts_list: list[dict], bbs) -> dict:
        """fact -> (values as floats, numeric mask, present mask, the raw values): one pass over the snapshots."""
        out = {}
        missing = _MISSING
        n = len(facts_list)
        for name in self.names:
            raw = [facts.get(name, missing) for facts in facts_list]
            # every NPC has it as a plain number a float holds exactly: the usual case (an int past 2**53 would
            # round, where Python compares and subtracts it exactly: the general way below leaves it to the scalar)
            if _plain_numbers(raw):
                vals = np.array(raw, dtype=np.float64)
                every = np.ones(n, dtype=bool)
                out[name] = (vals, every, every.copy(), raw)
                continue
            own = [v is not missing for v in raw]
            if bbs is not None:
                for i, v in enumerate(raw):
                    if v is missing and bbs[i] is not None:
                        raw[i] = bbs[i].get(name, missing)
            # a number the scalar scorer's fast loop reads itself: not one from the blackboard (that loop reads only
            # the snapshot, and the scalar's other way normalises by a division), not an int a float rounds
            numeric = [mine and exact_number(v) for v, mine in zip(raw, own)]
            vals = np.array([v if ok else 0.0 for v, ok in zip(raw, numeric)], dtype=np.float64)
            present = np.array([v is not missing for v in raw], dtype=bool)
            out[name] = (vals, np.array(numeric, dtype=bool), present, [None if v is missing else v for v in raw])
        return out

    def matrix(self, facts_list: list[dict], bbs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``columns`` as three (facts, NPCs) arrays in ``names``' order: values, numeric mask, present mask. When
        every NPC's facts are a plain ``dict`` holding every fact as a plain number a float holds exactly (the usual
        case), one row per NPC is read with one call and the whole is converted at once; otherwise ``columns``,
        stacked.

        >>> from ai.utility import Candidate, ModeSelector, Preference
        >>> scorer = BatchScorer(ModeSelector([Candidate("a", preferences=(Preference("x", 0.0, 1.0),
        ...                                                                Preference("y", 0.0, 1.0)))]))
        >>> vals, numeric, present = scorer.matrix([{"x": 0.5, "y": True}, {"x": 2, "y": 0.25}], None)
        >>> vals.tolist(), bool(numeric.all()), present.shape
        ([[0.5, 2.0], [1.0, 0.25]], True, (2, 2))
        """
        names = self.names
        n, f = len(facts_list), len(names)
        get = self._row
        # (only plain dicts: a dict subclass may answer a missing key, which ``columns``' ``get`` never asks)
        if get is not None and all(type(facts) is dict for facts in facts_list):
            try:
                rows = list(map(get, facts_list))
            except KeyError:                            # a fact missing somewhere: the general way
                rows = None
            if rows is not None:
                flat = list(itertools.chain.from_iterable(rows))
                if _plain_numbers(flat):
                    every = np.ones((f, n), dtype=bool)
                    return np.array(flat, dtype=np.float64).reshape(n, f).T, every, every.copy()
        cols = self.columns(facts_list, bbs)
        return (np.array([cols[name][0] for name in names], dtype=np.float64).reshape(f, n),
                np.array([cols[name][1] for name in names], dtype=bool).reshape(f, n),
                np.array([cols[name][2] for name in names], dtype=bool).reshape(f, n))

    def score(self, facts_list: list[dict], bbs=None) -> tuple[np.ndarray, np.ndarray]:
        """(eligible, score) arrays of shape (NPCs, candidates); ``bbs``: each NPC's blackboard (or None)."""
        n, m = len(facts_list), len(self.candidates)
        eligible = np.zeros((n, m), dtype=bool)
        scores = np.full((n, m), np.nan)
        if n == 0:
            return eligible, scores
        eps = self.eps
        if self._plan is not None and batch_jit.available():
            eligible, scores, scalar = batch_jit.score(self._plan, *self.matrix(facts_list, bbs))
            cands = self.candidates
            for i, j in zip(*(a.tolist() for a in np.nonzero(scalar))):     # the cells the columns cannot decide
                rec = cands[j].scorer(facts_list[i], None if bbs is None else bbs[i], eps)
                eligible[i, j] = rec.eligible
                if rec.eligible:
                    scores[i, j] = rec.score
            return eligible, scores
        cols = self.columns(facts_list, bbs)
        log_eps = None                          # math.log(eps), when some value is at or below eps (as the scalar)
        for j, cand in enumerate(self.candidates):
            ok = np.ones(n, dtype=bool)
            for g in cand.gates:
                vals, numeric, present, raw = cols[g.fact]
                value = g.value
                if exact_number(value):
                    res = g.fn(vals, float(value)) & numeric
                    odd = present & ~numeric               # not a number: the scalar comparison decides
                else:
                    res = np.zeros(n, dtype=bool)
                    odd = present
                for i in np.flatnonzero(odd & ok).tolist():
                    try:
                        res[i] = truth(g.fn(raw[i], value))
                    except (TypeError, ValueError):
                        res[i] = False
                ok &= res
            if not cand.preferences:
                eligible[:, j] = ok
                scores[ok, j] = 1.0
                continue
            rows = np.flatnonzero(ok)                 # the preferences of the NPCs that passed the gates only
            k = len(rows)
            if k == 0:
                continue
            scalar = np.ones(k, dtype=bool) if not self.valid[j] else np.zeros(k, dtype=bool)
            log_sum = np.zeros(k)
            weight_sum = 0.0
            check = np.zeros(k)           # the scalar's sum of every input and curve value: not finite -> its other way
            with np.errstate(all="ignore"):
                for pref in cand.preferences:
                    vals, numeric, present, _raw = cols[pref.input]
                    vals = vals[rows]
                    scalar |= ~(numeric[rows] & np.isfinite(vals))
                    inv_span = 1.0 / (pref.hi - pref.lo) if pref.hi != pref.lo else math.nan
                    norm = np.clip((vals - pref.lo) * inv_span, 0.0, 1.0)
                    scalar |= ~np.isfinite(norm)              # (0 * inf: the scalar's other way divides instead)
                    curved = curve_array(pref.curve, norm)
                    scalar |= ~np.isfinite(curved)
                    check = check + (vals + curved)
                    s = np.clip(curved, 0.0, 1.0)
                    at = np.flatnonzero(s > eps)
                    if len(at) < k and log_eps is None:
                        log_eps = math.log(eps)                  # (ValueError for eps <= 0, as the scalar raises)
                    logs = np.full(k, log_eps if log_eps is not None else 0.0)
                    logs[at] = _libm(math.log, s[at])
                    log_sum = log_sum + pref.weight * logs
                    weight_sum += pref.weight
            fast = ~scalar & np.isfinite(check) & np.isfinite(log_sum) & math.isfinite(weight_sum)
            eligible[rows[fast], j] = True
            # (valid weights are > 0 and every log <= 0: each exp is of a number <= 0, never an overflow)
            scores[rows[fast], j] = _libm(math.exp, log_sum[fast] / weight_sum)
            for i in rows[~fast].tolist():              # the few cells the columns cannot decide exactly
                rec = cand.scorer(facts_list[i], None if bbs is None else bbs[i], eps)
                eligible[i, j] = rec.eligible
                if rec.eligible:
                    scores[i, j] = rec.score
        return eligible, scores

    def scores_for(self, ok_row: list, score_row: list, facts: dict, bb, current: str | None = None) -> dict:
        """One NPC's row (``eligible[i].tolist()``, ``scores[i].tolist()``) as the ``{id: CandidateScore}`` that
        ``ModeSelector.decide(scores=...)`` reads. Only what deciding needs is filled in: the current mode, when
        ineligible, gets the scalar scorer's record (its failed gates name the invalidation); the full records,
        for decision logs, are ``ModeSelector.score_all``'s (equal by construction). These are read, never changed
        or kept: an ineligible candidate's is one shared record, and the empty rows are tuples."""
        out = {}
        ineligible = self._ineligible
        for cand, ok, s in zip(self.candidates, ok_row, score_row):
            cid = cand.id
            if ok:
                out[cid] = CandidateScore(cid, True, s, (), (), ())
            elif cid == current:
                out[cid] = cand.scorer(facts, bb, self.eps)
            else:
                out[cid] = ineligible[cid]
        return out
