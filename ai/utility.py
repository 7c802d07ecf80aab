"""Utility scoring and mode selection with hysteresis (the rules: docs/rules/utility.md).

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

Selecting (``ModeSelector.decide``) is deterministic: the highest score wins, ties go
to the smallest candidate id. An ordinary switch away from a feasible, running
current mode needs ``new - current > margin`` (0.1) *and* the current mode held
for ``min_hold`` seconds (0.3); both exactly at the boundary: time in whole host ticks
(``held_enough``), the gain above the margin by more than ``PRECISION`` = 1e-9 (``gain_enough``). Invalidation (the current mode's gates fail, or its
execution ended: target destroyed, path failed, out of ammo, action ended) and
emergencies (checked in their configured priority order) bypass both
thresholds but never a candidate's own gates. A mode that *failed* (or whose
gates failed) is not chosen again in the same decision. Nothing eligible -> idle
(``choice`` None).

Every decision returns a ``Decision`` holding, per candidate, an
``ai.records.CandidateScore``: each gate's result, each preference's raw,
normalised and curved value, and the score; with the choice and the reason.

The ``ModeSelector`` docstring has a worked example: hysteresis holding and
then allowing a switch, an invalidation and an emergency.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ai.conditions import Condition, _MISSING, as_number, plain_scalar, truth
from ai.curves import Curve
from ai.records import CandidateScore
from ai.status import FAILURE, RUNNING, SUCCESS

EPS = 1e-6
MARGIN = 0.1
MIN_HOLD = 0.3
TICK_HZ = 30            # the host's ticks per second (game.TICK_HZ): time thresholds are counted in its ticks
PRECISION = 1e-9        # score margins are compared at this precision: gain must exceed margin + PRECISION

# why a decision came out as it did
ORDINARY = "ordinary"            # highest score, thresholds met (or nothing was running)
INVALIDATION = "invalidation"    # the current mode became infeasible or ended
EMERGENCY = "emergency"          # an emergency picked its action
HELD = "held by hysteresis"      # a better candidate exists but the thresholds were not met
KEPT = "current is best"         # the current mode still scores highest
NONE_ELIGIBLE = "idle"           # nothing eligible

# the execution status of the current mode, as the caller reports it, is an ai.status value:
# RUNNING, SUCCESS (its work is done) or FAILURE


@dataclass(frozen=True)
class Preference:
    """One consideration of a candidate: read the number ``input`` (a fact, else the blackboard), normalise it by
    ``(x - lo) / (hi - lo)`` clamped to [0, 1], pass it through ``curve`` (ai/curves.py; linear by default) and
    give it ``weight`` in the candidate's weighted geometric mean.

    A bad range or weight is not refused here: ``config_problem`` names it, and the scorer makes the candidate
    ineligible with that diagnostic.

    >>> from ai.curves import Curve
    >>> near = Preference("enemy_distance", 0.0, 8.0, Curve("linear", {"slope": -1.0, "intercept": 1.0}))
    >>> score_candidate(Candidate("engage", preferences=(near,)), {"enemy_distance": 2.0}).prefs
    [('enemy_distance', 2.0, 0.25, 0.75, 1.0)]
    """
    input: str
    lo: float
    hi: float
    curve: Curve = field(default_factory=Curve)
    weight: float = 1.0

    def config_problem(self) -> str | None:
        """A bad configuration (the scorer turns it into a diagnostic), or None.

        >>> Preference("hp", 0.0, 100.0).config_problem() is None
        True
        >>> Preference("hp", 100.0, 0.0).config_problem()
        "range [100.0, 0.0] of 'hp' is invalid"
        """
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo < self.hi):
            return f"range [{self.lo}, {self.hi}] of '{self.input}' is invalid"
        if not (math.isfinite(self.weight) and self.weight > 0):
            return f"weight {self.weight} of '{self.input}' is not finite and > 0"
        return None


@dataclass(frozen=True)
class Candidate:
    """A mode the NPC could be in. ``id``: its name; ``gates``: conditions (``ai.conditions.Condition``) that must
    all hold, else it is ineligible; ``preferences``: what scores it (none: the score is 1); ``state``: the
    top-level HFSM state it runs (default: the id). ``scorer`` is built from the rest when the candidate is
    made (``score_candidate`` calls it).

    >>> from ai.conditions import Condition
    >>> hunt = Candidate("hunt", gates=(Condition("has_ammo"),), state="engage")
    >>> hunt.mode_state, score_candidate(hunt, {"has_ammo": True}).score
    ('engage', 1.0)
    >>> score_candidate(hunt, {}).eligible           # a missing fact fails its gate
    False
    """
    id: str
    gates: tuple[Condition, ...] = ()
    preferences: tuple[Preference, ...] = ()
    state: str = ""                 # the HFSM state the mode runs in (defaults to the id)
    scorer: object = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "scorer", make_scorer(self))

    @property
    def mode_state(self) -> str:
        """The HFSM state the mode runs: ``state``, or the id when it is empty."""
        return self.state or self.id


@dataclass(frozen=True)
class Emergency:
    """When every ``when`` condition holds, switch to ``candidate`` at once, bypassing the margin and the hold time
    (but never the candidate's own gates). A selector checks its emergencies in the order it was given them, most
    urgent first; ``ModeSelector`` has an example.

    >>> from ai.conditions import Condition
    >>> low_hp = Emergency("low_hp", (Condition("hp", "<", 20),), "retreat")
    >>> [c.check({"hp": 10}) for c in low_hp.when]
    [True]
    """
    id: str
    when: tuple[Condition, ...]
    candidate: str


def _plain(value):
    """Facts in a record: numbers, bools, strings (numpy scalars as their Python value); anything else by its repr.

    >>> import numpy as np
    >>> _plain(np.bool_(True)), _plain(np.int64(3)), _plain(np.float64(0.5)), _plain(float("nan"))
    (True, 3, 0.5, 'nan')
    """
    value = plain_scalar(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else repr(value)
    return repr(value)


def _ineligible(cid, gates, prefs, problem) -> CandidateScore:
    return CandidateScore(cid, False, None, gates, prefs, [problem] if problem else [])


_SIMPLE = frozenset({bool, int, str, type(None)})


def score_candidate(candidate: Candidate, facts: dict, bb: dict | None = None, eps: float = EPS) -> CandidateScore:
    """Score one candidate by the scoring rule (docs/rules/utility.md, "Score"), recording every step.

    Returns an ``ai.records.CandidateScore``::

        >>> from ai.conditions import Condition
        >>> cand = Candidate("engage", gates=(Condition("enemy_visible"),),
        ...                  preferences=(Preference("hp_frac", 0.0, 1.0, weight=2.0),))
        >>> s = score_candidate(cand, {"enemy_visible": True, "hp_frac": 0.5})
        >>> s.eligible, round(s.score, 3)
        (True, 0.5)
        >>> score_candidate(cand, {"enemy_visible": False, "hp_frac": 0.5}).failed_gates()
        ['enemy_visible']
    """
    return candidate.scorer(facts, bb, eps)


def make_scorer(candidate: Candidate):
    """The hot loop for one candidate, with its gates and preferences bound as closure constants."""
    cid = candidate.id
    gate_rows = tuple((g.fact, g.fn, g.value, g.label) for g in candidate.gates)
    pref_rows = tuple((p.input, p.lo, 1.0 / (p.hi - p.lo) if p.hi != p.lo else math.nan, p.curve.fn, p.weight)
                      for p in candidate.preferences)
    valid = all(p.config_problem() is None for p in candidate.preferences)
    no_prefs = not pref_rows
    missing = _MISSING
    simple = _SIMPLE
    plain = _plain
    log = math.log
    exp = math.exp
    Score = CandidateScore

    def scorer(facts: dict, bb: dict | None, eps: float) -> CandidateScore:
        gates = []
        eligible = True
        get = facts.get
        for fact, fn, value, label in gate_rows:
            actual = get(fact, missing)
            if actual is missing and bb is not None:
                actual = bb.get(fact, missing)
            if actual is missing:
                gates.append((label, None, False))
                eligible = False
                continue
            try:
                ok = truth(fn(actual, value))
            except (TypeError, ValueError):              # incomparable: false (as ``Condition.test`` and the batch)
                ok = False
            gates.append((label, actual if type(actual) in simple else plain(actual), ok))
            if not ok:
                eligible = False
        if not eligible:                                 # Ineligible: preferences are not even read
            return Score(cid, False, None, gates, [], [])
        if no_prefs:
            return Score(cid, True, 1.0, gates, [], [])
        if not valid:
            return _score_checked(candidate, facts, bb, eps, gates, [])
        prefs = []
        append = prefs.append
        log_sum = 0.0
        weight_sum = 0.0
        check = 0.0          # sum of every input and curve value: not finite iff one of them is not (or overflowed)
        try:
            for name, lo, inv_span, fn, weight in pref_rows:
                raw = get(name, missing)
                norm = (raw - lo) * inv_span              # TypeError for a missing or non-numeric input
                norm = 0.0 if norm < 0.0 else 1.0 if norm > 1.0 else norm
                curved = fn(norm)
                check += raw + curved
                append((name, raw, norm, curved, weight))
                s = 0.0 if curved < 0.0 else 1.0 if curved > 1.0 else curved
                log_sum += weight * log(s if s > eps else eps)
                weight_sum += weight
        except (TypeError, OverflowError):        # OverflowError: an int too large for a float
            return _score_checked(candidate, facts, bb, eps, gates, [])
        if check - check != 0.0 or type(check) is not float:
            return _score_checked(candidate, facts, bb, eps, gates, [])   # it names the value, or finds none
        # once a sum is infinite it stays non-finite, so one check after the loop sees any overflow
        if log_sum - log_sum != 0.0 or weight_sum - weight_sum != 0.0:
            return _ineligible(cid, gates, prefs, "weighted sum overflowed")
        return Score(cid, True, exp(log_sum / weight_sum), gates, prefs, [])

    return scorer


def _score_checked(candidate: Candidate, facts: dict, bb, eps: float, gates: list, prefs: list) -> CandidateScore:
    """The preference loop with every check spelled out: runs when the fast loop met something to diagnose."""
    log_sum = 0.0
    weight_sum = 0.0
    for pref in candidate.preferences:
        name = pref.input
        raw = facts.get(name, _MISSING)
        if raw is _MISSING and bb is not None:
            raw = bb.get(name, _MISSING)
        weight_rec = _plain(pref.weight)
        number = as_number(raw) if raw is not _MISSING else None
        if number is not None:
            raw = number
        else:
            prefs.append((name, None if raw is _MISSING else _plain(raw), None, None, weight_rec))
            problem = f"input '{name}' is missing" if raw is _MISSING else f"input '{name}' is not a number ({raw!r})"
            return _ineligible(candidate.id, gates, prefs, problem)
        if not math.isfinite(raw):
            prefs.append((name, repr(raw), None, None, weight_rec))
            return _ineligible(candidate.id, gates, prefs, f"input '{name}' is not finite ({raw!r})")
        problem = pref.config_problem()
        if problem is not None:
            prefs.append((name, raw, None, None, weight_rec))
            return _ineligible(candidate.id, gates, prefs, problem)
        norm = min(1.0, max(0.0, (raw - pref.lo) / (pref.hi - pref.lo)))
        curved = pref.curve(norm)
        if not math.isfinite(curved):
            prefs.append((name, raw, norm, repr(curved), weight_rec))
            return _ineligible(candidate.id, gates, prefs,
                               f"curve {pref.curve.describe()} gave {curved!r} for '{name}'")
        prefs.append((name, raw, norm, curved, weight_rec))
        s = min(1.0, max(0.0, curved))
        log_sum += pref.weight * math.log(max(s, eps))
        weight_sum += pref.weight
        if not (math.isfinite(log_sum) and math.isfinite(weight_sum)):
            return _ineligible(candidate.id, gates, prefs, "weighted sum overflowed")
    if not weight_sum > 0:
        return _ineligible(candidate.id, gates, prefs, "weights sum to zero")
    return CandidateScore(candidate.id, True, math.exp(log_sum / weight_sum), gates, prefs, [])


def hold_ticks(min_hold: float, tick_hz: int = TICK_HZ) -> int:
    """The whole ticks a ``min_hold`` of seconds stands for: rounded up, after rounding ``min_hold * tick_hz`` to
    1e-6 of a tick (``8.3 * 30`` is ``249.00000000000003``, which is 249 ticks, not 250).

    >>> hold_ticks(0.3), hold_ticks(8.3), hold_ticks(0.31), hold_ticks(0.0), hold_ticks(0.3, 10)
    (9, 249, 10, 0, 3)
    """
    return math.ceil(round(min_hold * tick_hz, 6))


@dataclass
class Decision:
    """What ``ModeSelector.decide`` chose and why.

    ``choice``: a candidate id, None = idle; ``switch``: the current mode is to be left and the choice entered
    (another mode, idle, or the same mode restarted); ``reason``: ``ORDINARY``, ``INVALIDATION``, ``EMERGENCY``, ``HELD``, ``KEPT`` or
    ``NONE_ELIGIBLE``; ``detail``: the same in words, with the scores; ``emergency``: the emergency that fired,
    or None; ``scores``: every candidate's ``ai.records.CandidateScore`` by id, in id order.

    >>> d = ModeSelector([Candidate("patrol"), Candidate("guard")]).decide({})
    >>> d.choice, d.switch, d.reason, d.detail       # equal scores: the smallest id wins
    ('guard', True, 'ordinary', 'guard scores 1.000')
    >>> [c.id for c in d.candidates]
    ['guard', 'patrol']
    """
    choice: str | None            # candidate id, or None = idle
    switch: bool                  # True when the choice differs from the current mode (or restarts it)
    reason: str
    detail: str
    emergency: str | None
    scores: dict[str, CandidateScore]     # every candidate's score, in candidate id order

    @property
    def candidates(self) -> list[CandidateScore]:
        """The scores as a list, in candidate id order (what decision records hold)."""
        return list(self.scores.values())


class ModeSelector:
    """Chooses a mode among candidates; see the module docstring for the rules.

    ``candidates``: the ``Candidate`` values (kept in id order; ids must be unique, else ``ValueError``);
    ``emergencies``: ``Emergency`` values, most urgent first (each must name a candidate, else ``ValueError``);
    ``margin``: how much better a candidate must score to replace a running mode; ``min_hold``: the seconds a
    mode must have run before an ordinary switch away from it; ``eps``: the floor of a preference's value in the mean.

    >>> from ai.conditions import Condition
    >>> sel = ModeSelector(
    ...     [Candidate("engage", (Condition("has_ammo"),), (Preference("enemy_near", 0.0, 1.0),)),
    ...      Candidate("retreat", preferences=(Preference("danger", 0.0, 1.0),))],
    ...     emergencies=[Emergency("low_hp", (Condition("hp", "<", 20),), "retreat")])
    >>> facts = {"has_ammo": True, "enemy_near": 0.6, "danger": 0.5, "hp": 100}
    >>> d = sel.decide(facts)                        # nothing runs yet: the best wins
    >>> d.choice, d.switch, d.reason
    ('engage', True, 'ordinary')
    >>> facts["danger"] = 0.65                       # better, but not by more than the margin (0.1)
    >>> d = sel.decide(facts, current="engage", held=5.0)
    >>> d.choice, d.switch, d.reason, d.detail
    ('engage', False, 'held by hysteresis', 'retreat 0.650 vs engage 0.600: gain 0.050 is not > 0.1')
    >>> facts["danger"] = 0.9                        # better by enough, but engage has not run for 0.3 s
    >>> sel.decide(facts, current="engage", held=0.1).detail
    'retreat 0.900 vs engage 0.600: engage held 0.10 s < 0.3 s'
    >>> sel.decide(facts, current="engage", held=0.5).detail
    'retreat 0.900 beats engage 0.600 by 0.300 after 0.50 s'
    >>> facts["has_ammo"] = False                    # invalidation: engage's gate fails, no thresholds apply
    >>> d = sel.decide(facts, current="engage", held=0.1)
    >>> d.choice, d.reason, d.detail
    ('retreat', 'invalidation', 'engage: gate failed: has_ammo; retreat scores 0.900')
    >>> facts.update(has_ammo=True, danger=0.1, hp=10)       # retreat scores low, but the emergency fires
    >>> d = sel.decide(facts, current="engage", held=0.0)
    >>> d.choice, d.reason, d.emergency
    ('retreat', 'emergency', 'low_hp')
    """

    def __init__(self, candidates, emergencies=(), margin: float = MARGIN, min_hold: float = MIN_HOLD,
                 eps: float = EPS, tick_hz: int = TICK_HZ):
        self.candidates = tuple(sorted(candidates, key=lambda c: c.id))   # stable id order
        ids = [c.id for c in self.candidates]
        if len(set(ids)) != len(ids):
            raise ValueError("candidate ids must be unique")
        self.by_id = {c.id: c for c in self.candidates}
        self._scorers = tuple((c.id, c.scorer) for c in self.candidates)
        self.emergencies = tuple(emergencies)      # priority order: first is most urgent
        for em in self.emergencies:
            if em.candidate not in self.by_id:
                raise ValueError(f"emergency '{em.id}' names unknown candidate '{em.candidate}'")
        self.margin = float(margin)
        self.min_hold = float(min_hold)
        self.eps = float(eps)
        self.tick_hz = int(tick_hz)
        if self.tick_hz < 1:
            raise ValueError("tick_hz must be a whole number of ticks per second >= 1")
        self.hold_ticks = hold_ticks(self.min_hold, self.tick_hz)

    def held_enough(self, held: float) -> bool:
        """Whether a mode that has run ``held`` seconds may be left by an ordinary switch: both are counted in
        whole ticks (the ticks completed: ``held * tick_hz`` rounded to 1e-6 of a tick, then down), so a mode held
        exactly ``min_hold`` may switch although ``0.7 - 0.4`` is ``0.29999999999999993`` in floating point, and
        one held 0.29 s (8.7 ticks) may not.

        >>> sel = ModeSelector([Candidate("a")])                 # min_hold 0.3 s = 9 ticks at 30 Hz
        >>> sel.hold_ticks, sel.held_enough(0.7 - 0.4), sel.held_enough(0.29), sel.held_enough(8 / 30)
        (9, True, False, False)
        """
        return math.floor(round(held * self.tick_hz, 6)) >= self.hold_ticks

    def gain_enough(self, gain: float) -> bool:
        """Whether a score ``gain`` beats the margin: strictly greater at ``PRECISION`` (1e-9), so a gain a designer
        reads as exactly the margin (``0.18 - 0.08`` is ``0.09999999999999999``, other pairs give
        ``0.10000000000000003``) never switches, and one of ``margin + 1e-6`` does.

        >>> sel = ModeSelector([Candidate("a")])
        >>> sel.gain_enough(0.18 - 0.08), sel.gain_enough(0.1 + 3e-17), sel.gain_enough(0.100001)
        (False, False, True)
        """
        return gain - self.margin > PRECISION

    def emergency(self, scores: dict[str, CandidateScore], facts: dict, bb: dict | None = None, exclude=()):
        """The first emergency (priority order) whose candidate is eligible and not excluded and whose ``when``
        conditions all hold, or None. ``decide`` and a brain's reselection after a release both ask this, so an
        emergency that fires at either wins it.

        >>> from ai.conditions import Condition
        >>> sel = ModeSelector([Candidate("fight"), Candidate("flee")],
        ...                    emergencies=[Emergency("low_hp", (Condition("hp", "<", 20),), "flee")])
        >>> scores = sel.score_all({"hp": 10})
        >>> sel.emergency(scores, {"hp": 10}).id, sel.emergency(scores, {"hp": 10}, None, {"flee"})
        ('low_hp', None)
        """
        for em in self.emergencies:
            if em.candidate in exclude or not scores[em.candidate].eligible:
                continue
            if all(c.check(facts, bb) for c in em.when):
                return em
        return None

    def score_all(self, facts: dict, bb: dict | None = None) -> dict[str, CandidateScore]:
        """Every candidate scored on ``facts`` (and the blackboard ``bb``): id -> ``CandidateScore``, in id order.

        >>> from ai.conditions import Condition
        >>> scores = ModeSelector([Candidate("search"), Candidate("engage", (Condition("enemy_visible"),))]
        ...                       ).score_all({"enemy_visible": False})
        >>> [(cid, s.eligible, s.score) for cid, s in scores.items()]
        [('engage', False, None), ('search', True, 1.0)]
        """
        eps = self.eps
        return {cid: scorer(facts, bb, eps) for cid, scorer in self._scorers}

    @staticmethod
    def best(scores: dict[str, CandidateScore], exclude=()) -> str | None:
        """Highest eligible score; ties go to the smallest id (scores are kept in id order). None when no candidate
        outside ``exclude`` is eligible.

        >>> scores = ModeSelector([Candidate("b"), Candidate("a")]).score_all({})
        >>> ModeSelector.best(scores), ModeSelector.best(scores, exclude={"a"}), ModeSelector.best(scores, {"a", "b"})
        ('a', 'b', None)
        """
        best_id, best = None, -1.0
        for cid, s in scores.items():
            if s.eligible and cid not in exclude and s.score > best:
                best_id, best = cid, s.score
        return best_id

    def decide(self, facts: dict, current: str | None = None, held: float = 0.0, status: int = RUNNING,
               status_reason: str = "", bb: dict | None = None, exclude=(), scores: dict | None = None) -> Decision:
        """Pick the mode for now.

        ``current``: the mode now running (None = idle); ``held``: seconds it has run; ``status``: how its
        execution stands (``ai.status`` RUNNING, SUCCESS or FAILURE, with ``status_reason``); ``exclude``: modes that must
        not be chosen in this decision (one just left while waiting for its actions to be released); ``scores``:
        the candidates already scored on these facts (``ai.batch.BatchScorer.scores_for``; default: scored here).
        Returns the ``Decision``; the class docstring shows hysteresis, invalidation and an emergency.

        >>> sel = ModeSelector([Candidate("engage")])
        >>> d = sel.decide({}, current="engage", held=2.0, status=FAILURE, status_reason="target lost")
        >>> d.choice, d.switch, d.reason, d.detail       # a failed mode is not chosen again in this decision
        (None, True, 'idle', 'engage failed: target lost; no candidate is eligible')
        >>> sel.decide({}, current="engage", held=2.0, status=SUCCESS).detail     # its work is done: chosen afresh
        'engage ended: done; engage scores 1.000'
        """
        if scores is None:
            scores = self.score_all(facts, bb)
        exclude = set(exclude)
        invalid = None
        if current is not None:
            cur = scores.get(current)
            if cur is None:
                invalid = f"mode '{current}' no longer exists"
                exclude.add(current)
            elif not cur.eligible:
                failed = cur.failed_gates()
                invalid = f"{current}: " + ("gate failed: " + ", ".join(failed) if failed
                                            else ", ".join(cur.diagnostics))
                exclude.add(current)
            elif status == FAILURE:
                invalid = f"{current} failed: {status_reason or 'no reason given'}"
                exclude.add(current)
            elif status == SUCCESS:
                invalid = f"{current} ended: {status_reason or 'done'}"

        em = self.emergency(scores, facts, bb, exclude)
        if em is not None:
            if em.candidate == current and invalid is None:
                return Decision(current, False, EMERGENCY, f"emergency {em.id} keeps {current}", em.id, scores)
            return Decision(em.candidate, True, EMERGENCY,
                            f"emergency {em.id}" + (f" ({invalid})" if invalid else ""), em.id, scores)

        best = self.best(scores, exclude)
        if current is None or invalid is not None:
            reason = INVALIDATION if invalid is not None else ORDINARY
            if best is None:
                detail = (invalid + "; " if invalid else "") + "no candidate is eligible"
                return Decision(None, current is not None, NONE_ELIGIBLE, detail, None, scores)
            detail = (invalid + "; " if invalid else "") + f"{best} scores {scores[best].score:.3f}"
            return Decision(best, True, reason, detail, None, scores)

        cur_score = scores[current].score
        if best == current:
            return Decision(current, False, KEPT, f"{current} scores {cur_score:.3f}", None, scores)
        new_score = scores[best].score
        gain = new_score - cur_score
        gain_ok, held_ok = self.gain_enough(gain), self.held_enough(held)
        if gain_ok and held_ok:
            return Decision(best, True, ORDINARY,
                            f"{best} {new_score:.3f} beats {current} {cur_score:.3f} by {gain:.3f} after {held:.2f} s",
                            None, scores)
        why = []
        if not gain_ok:
            why.append(f"gain {gain:.3f} is not > {self.margin:g}")
        if not held_ok:
            why.append(f"{current} held {held:.2f} s < {self.min_hold:g} s")
        return Decision(current, False, HELD, f"{best} {new_score:.3f} vs {current} {cur_score:.3f}: " + "; ".join(why),
                        None, scores)
