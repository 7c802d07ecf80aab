"""Utility scoring and mode selection with hysteresis (seed 003, "效用评分与动作切换").

A *candidate* is a behaviour mode the NPC could be in (engage, search,
retreat, ...). Scoring a candidate against a read-only fact snapshot:

1. every necessary-condition **gate** must hold, else the candidate is
   *ineligible* (never a tiny score: "no ammo" is not a small chance to shoot);
2. no preferences -> score 1;
3. each **preference** reads one input, normalises it by its configured range
   ``(x - lo) / (hi - lo)`` (a finite input outside the range is clamped), passes
   it through a response curve and clamps the result to [0, 1];
4. score = weighted geometric mean ``exp(sum w*log(max(s, eps)) / sum w)`` with
   ``eps = 1e-6``. A non-finite input, weight or curve value, an invalid range,
   a non-positive weight, or a sum that overflows -> a diagnostic and the
   candidate is ineligible.

Selecting (``Selector.decide``) is deterministic: the highest score wins, ties go
to the smallest candidate id. An ordinary switch away from a feasible, running
current mode needs ``new - current > margin`` (0.1) *and* the current mode held
for ``min_hold`` seconds (0.3). Invalidation (the current mode's gates fail, or its
execution ended: target destroyed, path failed, out of ammo, action ended) and
emergencies (checked in their configured priority order) bypass both
thresholds but never a candidate's own gates. A mode that *failed* (or whose
gates failed) is not chosen again in the same decision. Nothing eligible -> idle
(``choice`` None).

Every decision returns a record (plain data) with each candidate's gate
results, each preference's raw, normalised and curved value, the scores, the
choice and the reason.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ai.conditions import Condition, lookup, _MISSING
from ai.curves import Curve

EPS = 1e-6
MARGIN = 0.1
MIN_HOLD = 0.3

# why a decision came out as it did
ORDINARY = "ordinary"            # highest score, thresholds met (or nothing was running)
INVALIDATION = "invalidation"    # the current mode became infeasible or ended
EMERGENCY = "emergency"          # an emergency picked its action
HELD = "held by hysteresis"      # a better candidate exists but the thresholds were not met
KEPT = "current is best"         # the current mode still scores highest
IDLE = "idle"                    # nothing eligible

# execution status of the current mode, as the caller reports it
RUNNING = "running"
SUCCEEDED = "succeeded"
FAILED = "failed"


@dataclass(frozen=True)
class Preference:
    input: str
    lo: float
    hi: float
    curve: Curve = field(default_factory=Curve)
    weight: float = 1.0


@dataclass(frozen=True)
class Candidate:
    id: str
    gates: tuple[Condition, ...] = ()
    preferences: tuple[Preference, ...] = ()
    state: str = ""                 # the HFSM state the mode runs in (defaults to the id)

    @property
    def mode_state(self) -> str:
        return self.state or self.id


@dataclass(frozen=True)
class Emergency:
    id: str
    when: tuple[Condition, ...]
    candidate: str


@dataclass
class Score:
    id: str
    eligible: bool
    score: float | None
    gates: list = field(default_factory=list)         # [{"gate", "actual", "ok"}]
    prefs: list = field(default_factory=list)         # [{"input", "raw", "norm", "curved", "weight"}]
    diagnostics: list = field(default_factory=list)   # strings

    def as_record(self) -> dict:
        return {"id": self.id, "eligible": self.eligible, "score": self.score, "gates": self.gates,
                "prefs": self.prefs, "diagnostics": self.diagnostics}


def _plain(value):
    """Facts in a record: numbers, bools, strings; anything else by its repr."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    return repr(value)


def score_candidate(candidate: Candidate, facts: dict, bb: dict | None = None, eps: float = EPS) -> Score:
    """Score one candidate exactly as seed 003's ScoreAction, recording every step."""
    result = Score(candidate.id, True, None)
    for gate in candidate.gates:
        ok = gate.check(facts, bb)
        result.gates.append({"gate": str(gate), "actual": _plain(gate.actual(facts, bb)), "ok": ok})
        if not ok:
            result.eligible = False
    if not result.eligible:
        return result                                    # Ineligible: preferences are not even read
    if not candidate.preferences:
        result.score = 1.0
        return result
    log_sum = 0.0
    weight_sum = 0.0
    for pref in candidate.preferences:
        raw = lookup(pref.input, facts, bb)
        entry = {"input": pref.input, "raw": _plain(None if raw is _MISSING else raw), "norm": None,
                 "curved": None, "weight": _plain(pref.weight)}
        result.prefs.append(entry)
        problem = None
        if raw is _MISSING:
            problem = f"input '{pref.input}' is missing"
        elif isinstance(raw, bool):
            raw = 1.0 if raw else 0.0
        if problem is None and not isinstance(raw, (int, float)):
            problem = f"input '{pref.input}' is not a number ({raw!r})"
        elif problem is None and not math.isfinite(raw):
            problem = f"input '{pref.input}' is not finite ({raw!r})"
        elif problem is None and not (math.isfinite(pref.lo) and math.isfinite(pref.hi) and pref.lo < pref.hi):
            problem = f"range [{pref.lo}, {pref.hi}] of '{pref.input}' is invalid"
        elif problem is None and not (math.isfinite(pref.weight) and pref.weight > 0):
            problem = f"weight {pref.weight} of '{pref.input}' is not finite and > 0"
        if problem is not None:
            result.diagnostics.append(problem)
            result.eligible = False
            return result
        norm = (float(raw) - pref.lo) / (pref.hi - pref.lo)
        norm = 0.0 if norm < 0.0 else 1.0 if norm > 1.0 else norm
        curved = pref.curve(norm)
        entry["norm"] = norm
        entry["curved"] = _plain(curved)
        if not math.isfinite(curved):
            result.diagnostics.append(f"curve {pref.curve.describe()} gave {curved!r} for '{pref.input}'")
            result.eligible = False
            return result
        s = 0.0 if curved < 0.0 else 1.0 if curved > 1.0 else curved
        log_sum += pref.weight * math.log(s if s > eps else eps)
        weight_sum += pref.weight
        if not (math.isfinite(log_sum) and math.isfinite(weight_sum)):
            result.diagnostics.append("weighted sum overflowed")
            result.eligible = False
            return result
    if not weight_sum > 0:
        result.diagnostics.append("weights sum to zero")
        result.eligible = False
        return result
    result.score = math.exp(log_sum / weight_sum)
    return result


@dataclass
class Decision:
    choice: str | None            # candidate id, or None = idle
    switch: bool                  # True when the choice differs from the current mode (or restarts it)
    reason: str
    detail: str
    emergency: str | None
    scores: dict[str, Score]

    def record(self, **extra) -> dict:
        rec = {"choice": self.choice, "switch": self.switch, "reason": self.reason, "detail": self.detail,
               "emergency": self.emergency, "candidates": [s.as_record() for s in self.scores.values()]}
        rec.update(extra)
        return rec


class Selector:
    """Chooses a mode among candidates; see the module docstring for the rules."""

    def __init__(self, candidates, emergencies=(), margin: float = MARGIN, min_hold: float = MIN_HOLD,
                 eps: float = EPS):
        self.candidates = tuple(sorted(candidates, key=lambda c: c.id))   # stable id order
        ids = [c.id for c in self.candidates]
        if len(set(ids)) != len(ids):
            raise ValueError("candidate ids must be unique")
        self.by_id = {c.id: c for c in self.candidates}
        self.emergencies = tuple(emergencies)      # priority order: first is most urgent
        for em in self.emergencies:
            if em.candidate not in self.by_id:
                raise ValueError(f"emergency '{em.id}' names unknown candidate '{em.candidate}'")
        self.margin = float(margin)
        self.min_hold = float(min_hold)
        self.eps = float(eps)

    def score_all(self, facts: dict, bb: dict | None = None) -> dict[str, Score]:
        return {c.id: score_candidate(c, facts, bb, self.eps) for c in self.candidates}

    @staticmethod
    def best(scores: dict[str, Score], exclude=()) -> str | None:
        """Highest eligible score; ties go to the smallest id (scores are kept in id order)."""
        best_id, best = None, -1.0
        for cid, s in scores.items():
            if s.eligible and cid not in exclude and s.score > best:
                best_id, best = cid, s.score
        return best_id

    def decide(self, facts: dict, current: str | None = None, held: float = 0.0, status: str = RUNNING,
               status_reason: str = "", bb: dict | None = None, exclude=()) -> Decision:
        """Pick the mode for now.

        ``current``: the mode now running (None = idle); ``held``: seconds it has run; ``status``: how its
        execution stands (RUNNING, SUCCEEDED or FAILED, with ``status_reason``); ``exclude``: modes that must
        not be chosen in this decision (one just left while waiting for its actions to be released).
        """
        scores = self.score_all(facts, bb)
        exclude = set(exclude)
        invalid = None
        if current is not None:
            cur = scores.get(current)
            if cur is None:
                invalid = f"mode '{current}' no longer exists"
                exclude.add(current)
            elif not cur.eligible:
                failed = [g["gate"] for g in cur.gates if not g["ok"]] or cur.diagnostics
                invalid = f"{current}: " + ("gate failed: " + ", ".join(failed) if cur.gates else ", ".join(failed))
                exclude.add(current)
            elif status == FAILED:
                invalid = f"{current} failed: {status_reason or 'no reason given'}"
                exclude.add(current)
            elif status == SUCCEEDED:
                invalid = f"{current} ended: {status_reason or 'done'}"

        for em in self.emergencies:
            if em.candidate in exclude or not scores[em.candidate].eligible:
                continue
            if all(c.check(facts, bb) for c in em.when):
                if em.candidate == current and invalid is None:
                    return Decision(current, False, EMERGENCY, f"emergency {em.id} keeps {current}", em.id, scores)
                return Decision(em.candidate, True, EMERGENCY,
                                f"emergency {em.id}" + (f" ({invalid})" if invalid else ""), em.id, scores)

        best = self.best(scores, exclude)
        if current is None or invalid is not None:
            reason = INVALIDATION if invalid is not None else ORDINARY
            if best is None:
                detail = (invalid + "; " if invalid else "") + "no candidate is eligible"
                return Decision(None, current is not None, IDLE, detail, None, scores)
            detail = (invalid + "; " if invalid else "") + f"{best} scores {scores[best].score:.3f}"
            return Decision(best, True, reason, detail, None, scores)

        cur_score = scores[current].score
        if best == current:
            return Decision(current, False, KEPT, f"{current} scores {cur_score:.3f}", None, scores)
        new_score = scores[best].score
        gain = new_score - cur_score
        if gain > self.margin and held >= self.min_hold:
            return Decision(best, True, ORDINARY,
                            f"{best} {new_score:.3f} beats {current} {cur_score:.3f} by {gain:.3f} after {held:.2f} s",
                            None, scores)
        why = []
        if not gain > self.margin:
            why.append(f"gain {gain:.3f} is not > {self.margin:g}")
        if not held >= self.min_hold:
            why.append(f"{current} held {held:.2f} s < {self.min_hold:g} s")
        return Decision(current, False, HELD, f"{best} {new_score:.3f} vs {current} {cur_score:.3f}: " + "; ".join(why),
                        None, scores)
