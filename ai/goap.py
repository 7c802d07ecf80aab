"""Goal-oriented action planning over finite key -> value facts.

Two searches over the same action model, so they can be compared (every rule, tie-break and default:
docs/rules/goap.md):

- ``regress`` — the regression planner: start from the goal's required
  facts, pick actions whose effects satisfy some of them (``satisfies_any``) and
  conflict with none (``conflicts_with``), remove what they assign
  (``remove_assigned``), merge in their preconditions with a contradiction check
  (``merge_requirements``), and stop when the start state satisfies what is left.
  The open queue is ordered by (cost, stable action ids); ``best_cost`` is kept
  per canonical fact set, so zero-cost cycles end (a set is re-queued only when
  its cost improves); an expansion budget (default 5000) ends the search with
  ``BUDGET``, which is not ``NO_PLAN``.
- ``forward`` — forward A*: states are whole fact maps, successors apply an
  applicable action's effects, ``h`` counts unsatisfied goal facts. Plain
  counting (``heuristic="count"``) can overestimate when an action is
  cheaper than the facts it fixes; the default multiplies the count by the
  cheapest cost per fixed fact, which keeps it admissible and consistent, so both
  searches return the same optimal cost.

An action has a name, preconditions, effects, a non-negative cost, an optional
target type (one definition serves every target actor of that type: it is
instantiated once per target the host offers) and an optional
procedural precondition checked against the fact snapshot. Planning works on
copies; it never writes anything back.

A hurt guard with no ammunition who wants to be armed and in cover: reloading
takes it out of cover, so it must reload first.

    >>> reload = GoapAction("reload", {"has_reserve": True}, {"has_ammo": True, "in_cover": False})
    >>> enter_cover = GoapAction("enter_cover", {}, {"in_cover": True})
    >>> start = {"has_ammo": False, "in_cover": False, "has_reserve": True}
    >>> regress(start, {"has_ammo": True, "in_cover": True}, [reload, enter_cover]).names()
    ['reload', 'enter_cover']
"""
from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field

from ai.conditions import as_number, plain_scalar

PLAN = "plan"
NO_PLAN = "no plan"
BUDGET = "budget exhausted"
DEFAULT_BUDGET = 5000


def canon(facts: dict) -> tuple:
    """The canonical (fixed key order) form of a fact set, used as a dictionary key.

    >>> canon({"b": 1, "a": True}) == canon({"a": True, "b": 1})
    True
    >>> canon({"b": 1, "a": True})
    (('a', True), ('b', 1))
    """
    return tuple(sorted(facts.items()))


def satisfies_any(effects: dict, required: dict) -> bool:
    """At least one effect assigns a required key its required value.

    >>> satisfies_any({"in_cover": True}, {"in_cover": True, "has_ammo": True})
    True
    >>> satisfies_any({"in_cover": False}, {"in_cover": True})
    False
    """
    for key, value in effects.items():
        if key in required and required[key] == value:
            return True
    return False


def conflicts_with(effects: dict, required: dict) -> bool:
    """Some effect assigns a required key another value (false is an explicit value too).

    >>> conflicts_with({"has_ammo": True, "in_cover": False}, {"has_ammo": True, "in_cover": True})
    True
    >>> conflicts_with({"has_ammo": True}, {"in_cover": True})
    False
    """
    for key, value in effects.items():
        if key in required and required[key] != value:
            return True
    return False


def remove_assigned(required: dict, effects: dict) -> dict:
    """``required`` without the keys ``effects`` assign (whatever value they assign).

    >>> remove_assigned({"has_ammo": True, "in_cover": True}, {"in_cover": True})
    {'has_ammo': True}
    """
    return {k: v for k, v in required.items() if k not in effects}


def merge_requirements(remaining: dict, preconditions: dict) -> dict | None:
    """``remaining`` plus ``preconditions``; None when a key would need two values (a contradiction).

    >>> merge_requirements({"has_ammo": True}, {"has_reserve": True})
    {'has_ammo': True, 'has_reserve': True}
    >>> merge_requirements({"in_cover": True}, {"in_cover": False}) is None
    True
    """
    out = dict(remaining)
    for key, value in preconditions.items():
        if key in out and out[key] != value:
            return None
        out[key] = value
    return out


def satisfied(state: dict, required: dict) -> bool:
    """Every required pair holds in ``state``; an absent key is not ``False``, it simply fails.

    >>> satisfied({"has_key": False, "door": "open"}, {"door": "open"})
    True
    >>> satisfied({}, {"has_key": False})
    False
    """
    for key, value in required.items():
        if key not in state or state[key] != value:
            return False
    return True


@dataclass(frozen=True)
class GoapAction:
    """An action definition: ``name``, ``preconditions`` and ``effects`` (fact maps; at least one effect), a
    finite ``cost >= 0``; optionally a ``target_type`` (one instance per target the host offers, costing
    ``cost + cost_per_tile * distance``) and ``procedural(snapshot, target) -> bool``, checked once when the
    instances are made. Raises ``ValueError`` for a bad cost or no effects.

    >>> GoapAction("reload", {"has_reserve": True}, {"has_ammo": True}).cost
    1.0
    >>> GoapAction("idle", cost=-1.0, effects={"rested": True})
    Traceback (most recent call last):
    ...
    ValueError: action 'idle' needs a finite cost >= 0
    """
    name: str
    preconditions: dict = field(default_factory=dict)
    effects: dict = field(default_factory=dict)
    cost: float = 1.0
    target_type: str = ""              # '' = no target; else one instance per target of this type
    cost_per_tile: float = 0.0         # added per tile of distance to the instance's target
    procedural: object = None          # optional f(snapshot, target) -> bool, checked against the fact snapshot

    def __post_init__(self):
        cost, per_tile = as_number(self.cost), as_number(self.cost_per_tile)      # numpy scalars count as numbers
        if cost is None or type(plain_scalar(self.cost)) is bool or not (math.isfinite(cost) and cost >= 0):
            raise ValueError(f"action '{self.name}' needs a finite cost >= 0")
        if per_tile is None or not (math.isfinite(per_tile) and per_tile >= 0):
            raise ValueError(f"action '{self.name}' needs a finite cost_per_tile >= 0")
        object.__setattr__(self, "cost", cost)
        object.__setattr__(self, "cost_per_tile", per_tile)
        if not self.effects:
            raise ValueError(f"action '{self.name}' has no effects")


@dataclass(frozen=True)
class Step:
    """An action instance: its definition, the chosen target (0 = none), its cost and stable id.

    ``sid`` is the instance's place in ``instantiate``'s list, the tie-break of both searches.

    >>> Step(GoapAction("grab_crate", effects={"has_reserve": True}), 7, 1.3, 0).name
    'grab_crate@7'
    """
    action: GoapAction
    target: int
    cost: float
    sid: int

    @property
    def name(self) -> str:
        """The action's name, with ``@target`` for a typed action's instance (see the class example)."""
        return self.action.name if not self.target else f"{self.action.name}@{self.target}"


@dataclass
class Result:
    """What a search returns: ``status`` (``PLAN``, ``NO_PLAN`` or ``BUDGET``), the ``steps`` in execution
    order, their total ``cost`` (None without a plan), the ``expansions`` made, and with ``trace=True`` the
    expanded states and the rejected actions with reasons.

    >>> r = regress({"a": True}, {"a": True}, [GoapAction("x", effects={"a": True})])
    >>> r.ok, r.names(), r.cost, r.expansions         # the start already satisfies the goal
    (True, [], 0.0, 0)
    """
    status: str
    steps: list = field(default_factory=list)     # Step, in execution order
    cost: float | None = None
    expansions: int = 0
    trace: dict | None = None                     # expanded states, rejected actions with reasons

    @property
    def ok(self) -> bool:
        """True when a plan was found.

        >>> regress({}, {"a": True}, [GoapAction("x", {"b": True}, {"a": True})]).ok    # nothing makes b true
        False
        """
        return self.status == PLAN

    def names(self) -> list[str]:
        """The steps' names (``name@target`` for a typed action's instance).

        >>> regress({}, {"a": True}, [GoapAction("x", {}, {"a": True})]).names()
        ['x']
        """
        return [s.name for s in self.steps]


def instantiate(actions, snapshot: dict | None = None, targets=None) -> tuple[list[Step], list]:
    """Action instances in stable order (name, target): one per target for a typed action.

    ``targets(type) -> [(entity, distance), ...]`` is the host's list; ``snapshot`` feeds procedural
    preconditions. Returns (steps, rejected [(name, reason)]).

    >>> grab = GoapAction("grab_crate", {}, {"has_reserve": True}, cost=1.0, target_type="crate", cost_per_tile=0.1)
    >>> steps, rejected = instantiate([grab], targets=lambda kind: [(7, 3.0), (5, 10.0)])
    >>> [(s.name, s.cost, s.sid) for s in steps]      # by target entity; cost 1 + 0.1 per tile
    [('grab_crate@5', 2.0, 0), ('grab_crate@7', 1.3, 1)]
    >>> instantiate([grab], targets=lambda kind: [])
    ([], [('grab_crate', "no target of type 'crate'")])
    >>> unlock = GoapAction("unlock", {}, {"door_open": True}, procedural=lambda snap, target: snap["has_key"])
    >>> instantiate([unlock], {"has_key": False})
    ([], [('unlock', 'procedural precondition is false')])
    """
    steps: list[Step] = []
    rejected = []
    for action in sorted(actions, key=lambda a: a.name):
        if action.target_type:
            offered = sorted(targets(action.target_type) if targets else [])
            if not offered:
                rejected.append((action.name, f"no target of type '{action.target_type}'"))
            instances = [(t, action.cost + action.cost_per_tile * d) for t, d in offered]
        else:
            instances = [(0, action.cost)]
        for target, cost in instances:
            if action.procedural is not None and not action.procedural(snapshot or {}, target):
                rejected.append((action.name if not target else f"{action.name}@{target}",
                                 "procedural precondition is false"))
                continue
            steps.append(Step(action, target, cost, len(steps)))
    return steps, rejected


class _Bits:
    """Fact sets as integers: one bit per (key, value) pair the problem mentions.

    A requirement set holds at most one pair per key, so with ``keys[k]`` the bits of every pair of key ``k``:
    satisfies_any = effect bits & required; conflicts_with = required & effect-key bits & ~effect bits;
    remove_assigned = required & ~effect-key bits; merge = a contradiction test, then or.
    """

    def __init__(self, facts_sets):
        self.bit: dict = {}
        self.key_bits: dict = {}
        for facts in facts_sets:
            for pair in facts.items():
                if pair not in self.bit:
                    b = 1 << len(self.bit)
                    self.bit[pair] = b
                    self.key_bits[pair[0]] = self.key_bits.get(pair[0], 0) | b
        self.pairs = {b: pair for pair, b in self.bit.items()}

    def of(self, facts: dict) -> tuple[int, int]:
        """(bits of the pairs, bits of every pair of the keys mentioned)."""
        bits = keys = 0
        for pair in facts.items():
            bits |= self.bit[pair]
            keys |= self.key_bits[pair[0]]
        return bits, keys

    def decode(self, bits: int) -> dict:
        out = {}
        while bits:
            low = bits & -bits
            k, v = self.pairs[low]
            out[k] = v
            bits ^= low
        return dict(sorted(out.items()))


def regress(start: dict, goal: dict, actions, *, budget: int = DEFAULT_BUDGET, snapshot: dict | None = None,
            targets=None, trace: bool = False) -> Result:
    """Regression search from ``goal`` back to ``start`` (rules: docs/rules/goap.md, "Regression search").

    ``actions`` are ``GoapAction`` definitions; ``budget`` caps the expansions; ``snapshot`` (default: ``start``)
    feeds procedural preconditions; ``targets(type) -> [(entity, distance)]`` offers typed actions' targets;
    ``trace`` records what was expanded and rejected. Returns a ``Result``: the cheapest plan (ties: the stable
    action ids from the goal backwards), ``NO_PLAN`` when the search space is exhausted, or ``BUDGET``.

    >>> reload = GoapAction("reload", {"has_reserve": True}, {"has_ammo": True, "in_cover": False})
    >>> cover = GoapAction("enter_cover", {}, {"in_cover": True})
    >>> grab = GoapAction("grab_crate", {}, {"has_reserve": True}, target_type="crate", cost_per_tile=0.1)
    >>> start = {"has_ammo": False, "in_cover": False, "has_reserve": False}
    >>> r = regress(start, {"has_ammo": True, "in_cover": True}, [reload, cover, grab],
    ...             targets=lambda kind: [(7, 3.0), (5, 10.0)])
    >>> r.names(), r.cost                              # the nearer crate
    (['grab_crate@7', 'reload', 'enter_cover'], 3.3)
    >>> regress(start, {"has_ammo": True}, [reload, cover, grab], budget=1).status
    'budget exhausted'
    >>> loop = GoapAction("loop", {"a": True}, {"a": True}, cost=0.0)   # a zero-cost cycle ends
    >>> regress({}, {"a": True}, [loop]).status
    'no plan'
    """
    steps, pre_rejected = instantiate(actions, snapshot if snapshot is not None else start, targets)
    log = {"expanded": [], "rejected": list(pre_rejected)} if trace else None
    bits = _Bits([start, goal] + [s.action.effects for s in steps] + [s.action.preconditions for s in steps])
    start_bits = bits.of(start)[0]
    compiled = []
    for step in steps:
        eff, eff_keys = bits.of(step.action.effects)
        pre, pre_keys = bits.of(step.action.preconditions)
        compiled.append((eff, eff_keys, pre, pre_keys, step))
    goal_bits = bits.of(goal)[0]
    best = {goal_bits: 0.0}
    counter = itertools.count()
    # (cost, action ids from the goal backwards, tie counter, required bits, plan backwards)
    open_: list = [(0.0, (), next(counter), goal_bits, ())]
    expansions = 0
    push, pop = heapq.heappush, heapq.heappop
    while open_:
        cost, ids, _c, required, back = pop(open_)
        if cost != best[required]:
            continue                                   # a cheaper way to this fact set was queued later
        if not required & ~start_bits:                 # the start state satisfies everything left
            plan = list(reversed(back))
            if log is not None:
                log["final_cost"] = cost
            return Result(PLAN, plan, cost, expansions, log)
        if expansions >= budget:
            if log is not None:
                log["final_cost"] = None
            return Result(BUDGET, [], None, expansions, log)
        expansions += 1
        if log is not None:
            log["expanded"].append({"required": bits.decode(required), "cost": cost})
        for eff, eff_keys, pre, pre_keys, step in compiled:
            if not eff & required:
                continue                               # satisfies nothing required here
            if required & eff_keys & ~eff:
                if log is not None:
                    log["rejected"].append((step.name, f"an effect breaks a required fact in {bits.decode(required)}"))
                continue
            remaining = required & ~eff_keys
            if remaining & pre_keys & ~pre:
                if log is not None:
                    log["rejected"].append((step.name, f"preconditions contradict what is still required "
                                                       f"in {bits.decode(required)}"))
                continue
            remaining |= pre
            new_cost = cost + step.cost
            old = best.get(remaining)
            if old is not None and new_cost >= old:
                continue
            best[remaining] = new_cost
            push(open_, (new_cost, ids + (step.sid,), next(counter), remaining, back + (step,)))
    if log is not None:
        log["final_cost"] = None
    return Result(NO_PLAN, [], None, expansions, log)


def forward(start: dict, goal: dict, actions, *, budget: int = DEFAULT_BUDGET, snapshot: dict | None = None,
            targets=None, heuristic: str = "admissible", trace: bool = False) -> Result:
    """Forward A* from ``start`` until ``goal`` holds (rules: docs/rules/goap.md, "Forward A*").

    Arguments as for ``regress``; ``heuristic`` is ``"admissible"`` (unsatisfied goal facts times the cheapest
    cost per effect: optimal) or ``"count"`` (unsatisfied goal facts: can overestimate). Returns a ``Result``.

    >>> both = GoapAction("both", {}, {"a": True, "b": True}, cost=1.0)
    >>> only_a = GoapAction("only_a", {}, {"a": True}, cost=0.4)
    >>> only_b = GoapAction("only_b", {}, {"b": True}, cost=0.4)
    >>> forward({}, {"a": True, "b": True}, [both, only_a, only_b]).cost
    0.8
    >>> forward({}, {"a": True, "b": True}, [both, only_a, only_b], heuristic="count").cost   # overestimates
    1.0
    """
    steps, pre_rejected = instantiate(actions, snapshot if snapshot is not None else start, targets)
    log = {"expanded": [], "rejected": list(pre_rejected)} if trace else None
    goal = dict(goal)
    if heuristic == "count":
        per_fact = 1.0
    elif heuristic == "admissible":
        per_fact = min((s.cost / len(s.action.effects) for s in steps), default=0.0)
    else:
        raise ValueError(f"unknown heuristic '{heuristic}'")

    def h(state):
        return per_fact * sum(1 for k, v in goal.items() if state.get(k, _UNSET) != v)

    start = dict(start)
    g = {canon(start): 0.0}
    counter = itertools.count()
    open_: list = [(h(start), 0.0, (), next(counter), start, ())]
    closed = set()
    expansions = 0
    while open_:
        _f, cost, ids, _c, state, plan = heapq.heappop(open_)
        key = canon(state)
        if key in closed or cost != g.get(key):
            continue
        if satisfied(state, goal):
            if log is not None:
                log["final_cost"] = cost
            return Result(PLAN, list(plan), cost, expansions, log)
        if expansions >= budget:
            return Result(BUDGET, [], None, expansions, log)
        expansions += 1
        closed.add(key)
        if log is not None:
            log["expanded"].append({"state": dict(state), "cost": cost})
        for step in steps:
            if not satisfied(state, step.action.preconditions):
                continue
            nxt = dict(state)
            nxt.update(step.action.effects)
            nkey = canon(nxt)
            new_cost = cost + step.cost
            if nkey in closed or new_cost >= g.get(nkey, math.inf):
                continue
            g[nkey] = new_cost
            heapq.heappush(open_, (new_cost + h(nxt), new_cost, ids + (step.sid,), next(counter), nxt, plan + (step,)))
    return Result(NO_PLAN, [], None, expansions, log)


_UNSET = object()
