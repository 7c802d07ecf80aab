"""Tactical planning over regions: an abstract forward model, Expected Outcome and UCT.

Every rule, default and tie-break, and where the model departs from its sources:
docs/rules/commander.md (sections 3-7).

**State.** Forces are *groups* (a squad of one team): region, hit points, and
the task they were given. Static per group: team, full hit points, damage per
second at full strength (it scales with the hit points left, so a weakened
group hits less: Lanchester's square law emerges), range class.

**Actions**: giving a group a task is instantaneous and
changes nothing else — hold, attack in its region, or move to an adjacent
region — and a separate *simulate t* step lets time pass: moving groups
arrive, then every region with opposing groups fights for t seconds in a few
sub-steps (simultaneous attrition; a group's fire is shared over the enemy
groups in proportion to their hit points; attacking groups fire at full rate,
holding groups at 0.9 and take 0.8 of the damage, moving groups fire at 0.5).

**Evaluation** by force balance from one team's view, in [0, 1]:
``strength`` (hit points x damage rate, Lanchester strength; default), ``hp``,
``count``, or ``ltd2`` (SparCraft's LTD2: the sum over units of sqrt(hp) x damage
rate, own minus enemy, scaled into [0, 1] by the total at full strength).

**Expected Outcome**: flat Monte Carlo over the searching team's
joint assignments (all of them, or a seeded sample when there are more than
``cap``), playouts split evenly.

**UCT** (with Gelly et al.'s minimax and incremental-tree changes): UCB1 at every node; a round
is my groups' decisions, then the opponent's (minimising nodes), then a
simulate step; one node is added per iteration; the rest of the horizon is a
playout (``random`` or ``scripted`` attack-nearest). Playouts run in numpy
batches (``batch`` per iteration, counted as ``batch`` visits). The budget is a
number of playouts (deterministic for a given seed); an optional time budget
uses a clock the caller passes in.

Nothing here knows the game: the host builds the groups and the region graph.

A blue group of 200 hit points in region 0, a red one of 100 in region 1, both
dealing 10 damage per second at full strength; the examples below reuse it:

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> state = new_state([0, 1], [200.0, 100.0])
    >>> evaluate(model, specs, state, team=0)            # strength 200*10 against 100*10
    0.6666666666666666
    >>> expected_outcome(model, specs, state, 0, playouts=400, policy="scripted").actions
    {0: (0, 0)}

(blue holds: ``(HOLD, region 0)``; the scripted red walks in and fights at half rate.)
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ai import tactics_jit

HOLD, ATTACK, MOVE = 0, 1, 2
TASK_NAMES = {HOLD: "hold", ATTACK: "attack", MOVE: "move"}
FIRE = {HOLD: 0.9, ATTACK: 1.0, MOVE: 0.5}
TAKEN = {HOLD: 0.8, ATTACK: 1.0, MOVE: 1.0}
# the same as arrays, shared by every Batch and never written
_FIRE = np.array([FIRE[HOLD], FIRE[ATTACK], FIRE[MOVE]])
_TAKEN = np.array([TAKEN[HOLD], TAKEN[ATTACK], TAKEN[MOVE]])
EVALUATIONS = ("strength", "hp", "count", "ltd2")
POLICIES = ("random", "scripted")

#: run ``playout_many`` through ai/tactics_jit.py when Numba is installed (the same numbers; tests flip it to compare)
USE_JIT = True


@dataclass(frozen=True)
class GroupSpec:
    """The fixed part of a group: ``team``, ``max_hp``, ``dps`` at full strength (the fire now is
    ``dps * hp / max_hp``), one unit's hit points (for the ``count`` evaluation), range class, and whether it can
    move at all.

    >>> GroupSpec("blue:0", team=0, max_hp=300.0, dps=12.0).mobile
    True
    """
    name: str
    team: int
    max_hp: float          # hit points at full strength
    dps: float             # damage per second at full strength
    unit_hp: float = 100.0 # one unit's hit points (for counting units)
    range_class: int = 0   # 0 short, 1 long (part of the abstract state the host reports)
    mobile: bool = True    # False: can only hold or attack where it is (an entrenched position)


@dataclass(frozen=True)
class Model:
    """The region graph and the model's settings: ``adjacency`` (region -> adjacent regions), the seconds one
    simulate step covers and its sub-steps, the evaluation (``strength``, ``hp``, ``count`` or ``ltd2``), and
    ``rank``, the tie-break order of regions (each region's neighbours are listed, and shortest routes found, in
    that order; default ascending: a mirrored map's cut passes one its half turn keeps). Built with it:
    ``hops`` (region graph distances, 10**6 = unreachable) and ``nexthop`` (first region of a shortest route).

    >>> model = Model(((1,), (0, 2), (1,)))
    >>> model.regions, model.hops[0].tolist(), model.nexthop[0].tolist()
    (3, [0, 1, 2], [0, 1, 1])
    >>> Model(((),), evaluation="morale")
    Traceback (most recent call last):
    ...
    ValueError: evaluation must be one of strength, hp, count, ltd2
    """
    adjacency: tuple                      # region -> tuple of adjacent regions
    step_seconds: float = 10.0
    substeps: int = 3
    evaluation: str = "strength"
    rank: tuple = None                    # tie-break order of regions (None: ascending); neighbours are listed by it
    tie: tuple = field(default=None, compare=False, repr=False)            # ``rank`` or ascending: ties go low
    hops: np.ndarray = field(default=None, compare=False, repr=False)      # (R, R) region graph distance
    nexthop: np.ndarray = field(default=None, compare=False, repr=False)   # (R, R) first step on a shortest route

    def __post_init__(self):
        if self.evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation must be one of {', '.join(EVALUATIONS)}")
        rank = self.rank if self.rank is not None else tuple(range(len(self.adjacency)))
        object.__setattr__(self, "tie", tuple(rank))
        adj = tuple(tuple(sorted(a, key=lambda r: (rank[r], r))) for a in self.adjacency)
        object.__setattr__(self, "adjacency", adj)
        r = len(adj)
        hops = np.full((r, r), 10 ** 6, dtype=np.int64)
        nxt = np.tile(np.arange(r), (r, 1))
        for s in range(r):                       # BFS from every region
            hops[s, s] = 0
            frontier = [s]
            first = {s: s}
            while frontier:
                new = []
                for u in frontier:
                    for v in adj[u]:
                        if hops[s, v] > hops[s, u] + 1:
                            hops[s, v] = hops[s, u] + 1
                            first[v] = v if u == s else first[u]
                            new.append(v)
                frontier = new
            for v, f in first.items():
                nxt[s, v] = f
        object.__setattr__(self, "hops", hops)
        object.__setattr__(self, "nexthop", nxt)
        deg = np.array([len(a) for a in adj], dtype=np.int64)
        width = max(1, int(deg.max()) if r else 1)
        table = np.full((r, width), -1, dtype=np.int64)
        for i, a in enumerate(adj):
            table[i, :len(a)] = a
        object.__setattr__(self, "_deg", deg)
        object.__setattr__(self, "_nb", table)

    @property
    def regions(self) -> int:
        """How many regions the graph has (see the class example)."""
        return len(self.adjacency)


@dataclass
class State:
    """Per group: region, hit points, task and the task's target region (lists: fast to copy and index).

    >>> s = new_state([0, 1], [200.0, 100.0])
    >>> t = s.copy(); t.hp[1] = 0.0
    >>> s.hp, t.hp                                     # a copy is independent
    ([200.0, 100.0], [200.0, 0.0])
    """
    region: list
    hp: list
    task: list
    target: list

    def copy(self) -> "State":
        """An independent copy (see the class example)."""
        return State(list(self.region), list(self.hp), list(self.task), list(self.target))


def new_state(regions, hps) -> State:
    """The state with each group in ``regions[g]`` with ``hps[g]`` hit points, holding where it is.

    >>> new_state([0, 1], [200, 100])
    State(region=[0, 1], hp=[200.0, 100.0], task=[0, 0], target=[0, 1])
    """
    return State(list(regions), [float(h) for h in hps], [HOLD] * len(regions), list(regions))


def legal_actions(model: Model, specs, state: State, g: int) -> list[tuple[int, int]]:
    """(task, target region) choices for group ``g``; a destroyed group only holds.

    In order: hold, attack where it is, then a move to each adjacent region (ascending); an immobile group
    only holds or attacks.

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> legal_actions(model, specs, new_state([0, 1], [200.0, 100.0]), 1) == [(HOLD, 1), (ATTACK, 1), (MOVE, 0), (MOVE, 2)]
    True
    >>> legal_actions(model, specs, new_state([0, 1], [200.0, 0.0]), 1)
    [(0, 1)]
    """
    r = state.region[g]
    if state.hp[g] <= 0:
        return [(HOLD, r)]
    if not specs[g].mobile:
        return [(HOLD, r), (ATTACK, r)]
    return [(HOLD, r), (ATTACK, r)] + [(MOVE, n) for n in model.adjacency[r]]


def assign(state: State, g: int, action: tuple[int, int]) -> None:
    """Give group ``g`` the task ``action = (task, target region)``; nothing else changes until ``simulate``.

    >>> s = new_state([0, 1], [200.0, 100.0]); assign(s, 0, (MOVE, 1)); s.region, s.task, s.target
    ([0, 1], [2, 0], [1, 1])
    """
    state.task[g], state.target[g] = action


# -- the scalar model (tree descent, the plain-Python playout loop) ------------------------------------------------
def simulate(model: Model, specs, state: State) -> None:
    """*Simulate t*: moves complete, then every contested region fights for t seconds (in place).

    Rules and constants: docs/rules/commander.md, section 3. Blue moves into red's region (firing at half
    rate) while red attacks:

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> s = new_state([0, 1], [200.0, 100.0])
    >>> assign(s, 0, (MOVE, 1)); assign(s, 1, (ATTACK, 1))
    >>> simulate(model, specs, s)
    >>> s.region, [round(hp, 1) for hp in s.hp]
    ([1, 1], [115.7, 57.9])
    """
    n = len(specs)
    for g in range(n):
        if state.task[g] == MOVE and state.hp[g] > 0:
            state.region[g] = state.target[g]
    dt = model.step_seconds / model.substeps
    teams = [s.team for s in specs]
    for _ in range(model.substeps):
        # fire per (region, team), and hit points per (region, team) to share it over
        fire: dict = {}
        held: dict = {}
        for g in range(n):
            hp = state.hp[g]
            if hp <= 0:
                continue
            key = (state.region[g], teams[g])
            spec = specs[g]
            fire[key] = fire.get(key, 0.0) + spec.dps * (hp / spec.max_hp) * FIRE[state.task[g]]
            held[key] = held.get(key, 0.0) + hp
        if len({r for r, _t in fire}) == len(fire):
            return                                   # no region holds two teams: nothing to fight
        damage = [0.0] * n
        for g in range(n):
            hp = state.hp[g]
            if hp <= 0:
                continue
            r, team = state.region[g], teams[g]
            incoming = 0.0
            for (rr, tt), f in fire.items():
                if rr == r and tt != team:
                    incoming += f
            if incoming:
                damage[g] = incoming * dt * (hp / held[(r, team)]) * TAKEN[state.task[g]]
        for g in range(n):
            if damage[g]:
                state.hp[g] = max(0.0, state.hp[g] - damage[g])


def ltd2_value(spec: GroupSpec, hp: float) -> float:
    """LTD2 of one group (Churchill, Saffidine and Buro 2012; SparCraft): the sum over its units of
    sqrt(unit hp) x the unit's damage rate. The abstract state keeps a group's total hit points only, so its
    ``ceil(hp / unit_hp)`` live units are taken to share them evenly, each dealing ``dps * unit_hp / max_hp``:
    ``sqrt(units * hp) * dps * unit_hp / max_hp``.

    >>> spec = GroupSpec("blue", 0, max_hp=400.0, dps=20.0, unit_hp=100.0)     # four units of 100 hp, 5 dps each
    >>> ltd2_value(spec, 400.0), ltd2_value(spec, 100.0), ltd2_value(spec, 0.0)  # 4 x sqrt(100) x 5; 1 x 10 x 5
    (200.0, 50.0, 0.0)
    """
    if hp <= 0:
        return 0.0
    units = math.ceil(hp / spec.unit_hp - 1e-9)
    return math.sqrt(units * hp) * spec.dps * spec.unit_hp / spec.max_hp


def evaluate(model: Model, specs, state: State, team: int) -> float:
    """Force balance from ``team``'s view in [0, 1] (0.5 = even).

    Per live group ``strength`` counts ``hp * dps * hp / max_hp``, ``hp`` its hit points, ``count`` its units
    left; the result is ``mine / (mine + theirs)``. ``ltd2`` is a difference, as in SparCraft: ``0.5 + (mine -
    theirs) / (2 * full)`` with ``full`` the LTD2 of every group at full strength, so it orders states exactly as
    LTD2's own-minus-enemy does (a ratio would not: 30 against 10 and 120 against 100).

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> s = new_state([0, 1], [200.0, 100.0])
    >>> evaluate(model, specs, s, 0), evaluate(model, specs, s, 1)
    (0.6666666666666666, 0.3333333333333333)
    >>> evaluate(Model(model.adjacency, evaluation="hp"), specs, new_state([0, 1], [100.0, 100.0]), 0)
    0.5
    """
    if model.evaluation == "ltd2":
        mine = sum(ltd2_value(spec, hp) for spec, hp in zip(specs, state.hp) if spec.team == team)
        theirs = sum(ltd2_value(spec, hp) for spec, hp in zip(specs, state.hp) if spec.team != team)
        full = sum(ltd2_value(spec, spec.max_hp) for spec in specs)
        return 0.5 if full <= 0 else 0.5 + (mine - theirs) / (2.0 * full)
    mine = theirs = 0.0
    for spec, hp in zip(specs, state.hp):
        if hp <= 0:
            continue
        if model.evaluation == "strength":
            v = hp * spec.dps * (hp / spec.max_hp)
        elif model.evaluation == "hp":
            v = hp
        else:
            v = math.ceil(hp / spec.unit_hp - 1e-9)
        if spec.team == team:
            mine += v
        else:
            theirs += v
    total = mine + theirs
    return 0.5 if total <= 0 else mine / total


def determinize(model: Model, state: State, hidden: dict, rng) -> State:
    """A copy of ``state`` with each hidden group ``g`` (``hidden = {g: hops}``) placed in a region drawn uniformly
    from those within ``hops`` region hops of where it is estimated (seed 001, p. 52: hidden units sampled for a
    playout instead of known). Groups are drawn in ascending order, one ``rng.integers`` each.

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> s = new_state([0, 1], [200.0, 100.0])
    >>> sorted({determinize(model, s, {1: 1}, np.random.default_rng(k)).region[1] for k in range(40)})
    [0, 1, 2]
    >>> determinize(model, s, {1: 0}, np.random.default_rng(0)).region, s.region     # 0 hops: where it is
    ([0, 1], [0, 1])
    """
    out = state.copy()
    for g in sorted(hidden):
        around = np.flatnonzero(model.hops[state.region[g]] <= int(hidden[g]))
        out.region[g] = int(around[int(rng.integers(len(around)))])
        out.target[g] = out.region[g]
    return out


def alive_teams(specs, state: State) -> set:
    """The teams with at least one group above 0 hit points.

    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> alive_teams(specs, new_state([0, 1], [200.0, 100.0])), alive_teams(specs, new_state([0, 1], [5.0, 0.0]))
    ({0, 1}, {0})
    """
    return {s.team for s, hp in zip(specs, state.hp) if hp > 0}


def policy_action(model: Model, specs, state: State, g: int, policy: str, rng) -> tuple[int, int]:
    """A playout policy's choice for one group: uniformly random, or scripted attack-nearest.

    ``policy`` is ``"random"`` (one ``rng.integers`` draw over ``legal_actions``) or ``"scripted"``.

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> s = new_state([0, 1], [200.0, 100.0])
    >>> policy_action(model, specs, s, 0, "random", np.random.default_rng(0)) in legal_actions(model, specs, s, 0)
    True
    >>> policy_action(model, specs, s, 0, "scripted", None)
    (2, 1)
    """
    if state.hp[g] <= 0:
        return (HOLD, state.region[g])
    if policy == "random":
        options = legal_actions(model, specs, state, g)
        return options[int(rng.integers(len(options)))]
    return scripted_action(model, specs, state, g)


def scripted_action(model: Model, specs, state: State, g: int) -> tuple[int, int]:
    """Attack-nearest: fight where an enemy is, else step toward the nearest enemy group (fewest region hops).

    Ties go to the lowest group index; no enemy left, an unreachable one, or an immobile group -> hold.

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> scripted_action(model, specs, new_state([0, 2], [200.0, 100.0]), 0) == (MOVE, 1)
    True
    >>> scripted_action(model, specs, new_state([1, 1], [200.0, 100.0]), 0) == (ATTACK, 1)
    True
    """
    r = state.region[g]
    team = specs[g].team
    best = None
    for h, spec in enumerate(specs):
        if spec.team != team and state.hp[h] > 0:
            d = int(model.hops[r, state.region[h]])
            if best is None or (d, h) < best:
                best = (d, h)
    if best is None:
        return (HOLD, r)
    if best[0] == 0:
        return (ATTACK, r)
    if best[0] >= 10 ** 6 or not specs[g].mobile:
        return (HOLD, r)
    return (MOVE, int(model.nexthop[r, state.region[best[1]]]))


def playout(model: Model, specs, state: State, team: int, order: list, start: int, rounds: int, policy: str,
            rng) -> float:
    """Plain-Python playout: groups ``order[start:]`` choose, simulate; then ``rounds`` more full rounds.

    Works on a copy; stops early once fewer than two teams are left. Returns ``evaluate`` for ``team``. The
    searches use the batched ``playout_many``; this is its reference.

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> s = new_state([1, 1], [200.0, 100.0])           # both in region 1: they fight
    >>> round(playout(model, specs, s, 0, [0, 1], 0, 2, "scripted", None), 3)
    1.0
    """
    s = state.copy()
    for k in range(start, len(order)):
        assign(s, order[k], policy_action(model, specs, s, order[k], policy, rng))
    simulate(model, specs, s)
    for _ in range(rounds):
        if len(alive_teams(specs, s)) < 2:
            break
        for g in order:
            assign(s, g, policy_action(model, specs, s, g, policy, rng))
        simulate(model, specs, s)
    return evaluate(model, specs, s, team)


# -- the batched model (numpy: many playouts at once) ---------------------------------------------------------------
class Groups:
    """The groups' fixed parts (``GroupSpec``) as arrays, made once per search and shared by its batches (a
    search makes a ``Batch`` for every round of playouts; the specs do not change within it). Nothing writes them
    (they stay writable for the compiled playouts, as ``_FIRE`` does).

    >>> g = Groups([GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0, mobile=False)])
    >>> g.team.tolist(), g.mobile.tolist(), g.teams
    ([0, 1], [True, False], 2)
    """
    __slots__ = ("team", "max_hp", "dps", "unit_hp", "mobile", "ltd2_full", "teams")

    def __init__(self, specs):
        self.team = np.array([s.team for s in specs], dtype=np.int64)
        self.max_hp = np.array([s.max_hp for s in specs], dtype=np.float64)
        self.dps = np.array([s.dps for s in specs], dtype=np.float64)
        self.unit_hp = np.array([s.unit_hp for s in specs], dtype=np.float64)
        self.mobile = np.array([s.mobile for s in specs], dtype=bool)
        self.ltd2_full = sum(ltd2_value(s, s.max_hp) for s in specs)
        self.teams = int(self.team.max()) + 1 if len(specs) else 1


class Batch:
    """Many copies of states as (B, G) arrays, advanced together; the same rules as ``simulate``.

    Rows may come from different states (``Batch(model, specs, [s1, s2], reps)``: each state repeated ``reps``
    times), and ``choose``/``simulate`` take masks, so playouts from different tree leaves share numpy calls.

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> b = Batch(model, specs, new_state([1, 1], [200.0, 100.0]), reps=3)
    >>> b.choose(np.ones((3, 2), dtype=bool), "scripted", None)
    >>> b.task.tolist()                                   # both attack where they stand
    [[1, 1], [1, 1], [1, 1]]
    >>> b.simulate()
    >>> b.hp.round(1).tolist()[0], b.evaluate(0).round(4).tolist()
    ([131.5, 14.8], [0.9752, 0.9752, 0.9752])
    """

    def __init__(self, model: Model, specs, states, reps: int, groups: "Groups | None" = None):
        if isinstance(states, State):
            states = [states]
        groups = groups if groups is not None else Groups(specs)
        self.model = model
        self.b = len(states) * reps
        self.g = len(specs)
        self.team, self.max_hp, self.dps = groups.team, groups.max_hp, groups.dps
        self.unit_hp, self.mobile = groups.unit_hp, groups.mobile
        self._ltd2_full = groups.ltd2_full
        self.teams = groups.teams
        self.region = np.repeat(np.array([st.region for st in states], dtype=np.int64), reps, axis=0)
        self.hp = np.repeat(np.array([st.hp for st in states], dtype=np.float64), reps, axis=0)
        self.task = np.repeat(np.array([st.task for st in states], dtype=np.int64), reps, axis=0)
        self.target = np.repeat(np.array([st.target for st in states], dtype=np.int64), reps, axis=0)
        self._fire = _FIRE
        self._taken = _TAKEN
        self._rows = np.arange(self.b)[:, None]

    def choose(self, mask: np.ndarray, policy: str, rng) -> None:
        """Give the groups where ``mask`` (B, G) is true a task by the playout policy (dead ones hold).

        The random policy draws ``rng.random((B, G))`` for every entry on each call, masked or not.

        >>> model = Model(((1,), (0,)))
        >>> specs = [GroupSpec("blue", 0, 100.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
        >>> b = Batch(model, specs, new_state([0, 1], [100.0, 100.0]), reps=2)
        >>> b.choose(np.array([[True, False], [True, False]]), "scripted", None)   # only blue chooses
        >>> b.task.tolist(), b.target.tolist()
        ([[2, 0], [2, 0]], [[1, 1], [1, 1]])
        """
        m = self.model
        reg = self.region
        alive = (self.hp > 0) & mask
        if policy == "random":
            deg = np.where(self.mobile[None, :], m._deg[reg], 0)
            pick = np.floor(rng.random(reg.shape) * (deg + 2)).astype(np.int64)
            nb = m._nb[reg, np.maximum(pick - 2, 0)]
            task = np.where(pick == 0, HOLD, np.where(pick == 1, ATTACK, MOVE))
            target = np.where(pick >= 2, nb, reg)
        else:
            # nearest live enemy group by hops (ties: lowest group index), then attack or step toward it
            enemy = self.team[None, :] != self.team[:, None]                       # (G, G)
            d = m.hops[reg[:, :, None], reg[:, None, :]].astype(np.float64)        # (B, G, G)
            d = np.where(enemy[None, :, :] & (self.hp[:, None, :] > 0), d, np.inf)
            near = np.argmin(d, axis=2)
            dist = np.take_along_axis(d, near[:, :, None], axis=2)[:, :, 0]
            goal = np.take_along_axis(reg, near, axis=1)
            step = m.nexthop[reg, goal]
            movable = np.isfinite(dist) & (dist < 10 ** 6) & self.mobile[None, :]
            task = np.where(dist == 0, ATTACK, np.where(movable, MOVE, HOLD))
            target = np.where(task == MOVE, step, reg)
        self.task = np.where(alive, task, np.where(mask, HOLD, self.task))
        self.target = np.where(alive, target, np.where(mask, reg, self.target))

    def simulate(self, active: np.ndarray | None = None) -> None:
        """Simulate t in every row (or only where ``active`` (B,) is true), by the rules of ``simulate``.

        >>> model = Model(((),))
        >>> specs = [GroupSpec("blue", 0, 100.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
        >>> b = Batch(model, specs, new_state([0, 0], [100.0, 100.0]), reps=2)
        >>> b.simulate(active=np.array([True, False]))
        >>> b.hp.round(1).tolist()                     # both held and fought; the second row did not run
        [[43.9, 43.9], [100.0, 100.0]]
        """
        m = self.model
        moving = (self.task == MOVE) & (self.hp > 0)
        if active is not None:
            moving &= active[:, None]
        self.region = np.where(moving, self.target, self.region)
        dt = m.step_seconds / m.substeps
        r_count = m.regions
        nbins = self.b * r_count * self.teams
        key = (self._rows * r_count + self.region) * self.teams + self.team[None, :]    # (B, G)
        flat = key.ravel()
        fire_rate = self._fire[self.task]
        taken = self._taken[self.task] * dt
        if active is not None:
            taken = taken * active[:, None]
        rows = self._rows
        region = self.region
        team = self.team[None, :]
        for _ in range(m.substeps):
            hp = self.hp
            alive = hp > 0
            fire = np.where(alive, self.dps * (hp / self.max_hp) * fire_rate, 0.0)
            fire_bin = np.bincount(flat, fire.ravel(), nbins).reshape(self.b, r_count, self.teams)
            held_bin = np.bincount(flat, np.where(alive, hp, 0.0).ravel(), nbins)
            incoming = fire_bin.sum(axis=2)[rows, region] - fire_bin[rows, region, team]
            share = np.where(alive, hp / np.maximum(held_bin[key], 1e-12), 0.0)
            self.hp = np.maximum(0.0, hp - incoming * share * taken)

    def evaluate(self, team: int) -> np.ndarray:
        """``evaluate`` for every row: shape (B,).

        >>> specs = [GroupSpec("blue", 0, 100.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
        >>> Batch(Model(((),)), specs, [new_state([0, 0], [100.0, 0.0]), new_state([0, 0], [50.0, 50.0])], 1).evaluate(0)
        array([1. , 0.5])
        """
        hp = self.hp
        ev = self.model.evaluation
        if ev == "ltd2":
            per_unit = self.dps * self.unit_hp / self.max_hp
            units = np.ceil(np.maximum(hp, 0.0) / self.unit_hp - 1e-9)
            v = np.where(hp > 0, np.sqrt(np.maximum(units * hp, 0.0)) * per_unit, 0.0)
            mine = v[:, self.team == team].sum(axis=1)
            theirs = v[:, self.team != team].sum(axis=1)
            full = self._ltd2_full
            return 0.5 + (mine - theirs) / (2.0 * full) if full > 0 else np.full(self.b, 0.5)
        if ev == "strength":
            v = hp * self.dps * (hp / self.max_hp)
        elif ev == "hp":
            v = hp.copy()
        else:
            v = np.ceil(hp / self.unit_hp - 1e-9)
        v = np.where(hp > 0, v, 0.0)
        mine = v[:, self.team == team].sum(axis=1)
        theirs = v[:, self.team != team].sum(axis=1)
        total = mine + theirs
        return np.where(total > 0, mine / np.where(total > 0, total, 1.0), 0.5)


def _masks(order: list, g: int, starts) -> np.ndarray:
    """(len(starts), G) masks: for each start (0 to ``len(order)``), the groups ``order[start:]`` (the rest of its
    round), as one comparison of each group's place in ``order`` with the starts.

    >>> _masks([2, 0], 3, [0, 1, 2]).tolist()
    [[True, False, True], [True, False, False], [False, False, False]]
    """
    place = np.full(g, -1, dtype=np.int64)                  # (a group not in the order: never in a mask)
    place[order] = np.arange(len(order))
    return place[None, :] >= np.asarray(starts, dtype=np.int64).reshape(-1, 1)


def playout_many(model: Model, specs, states: list, team: int, order: list, starts: list, rounds: list,
                 policy: str, rng, reps: int, groups: Groups | None = None) -> np.ndarray:
    """``reps`` playouts from each of ``states`` in one batch: groups ``order[start:]`` choose and the round is
    simulated, then ``rounds[i]`` more full rounds. Returns values shaped (len(states), reps).

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> near, apart = new_state([1, 1], [200.0, 100.0]), new_state([0, 2], [200.0, 100.0])
    >>> playout_many(model, specs, [near, apart], 0, [0, 1], [0, 0], [0, 0], "scripted", None, 2).round(3).tolist()
    [[0.975, 0.975], [0.811, 0.811]]
    """
    batch = Batch(model, specs, states, reps, groups)
    first = np.repeat(_masks(order, len(specs), starts), reps, axis=0)
    left = np.repeat(np.array(rounds, dtype=np.int64), reps)
    if USE_JIT and tactics_jit.available(batch.teams):
        everyone = np.zeros(len(specs), dtype=bool)
        everyone[order] = True
        tactics_jit.run(batch, first, everyone, left, policy, rng)      # the same numbers, compiled
        return batch.evaluate(team).reshape(len(states), reps)
    batch.choose(first, policy, rng)
    batch.simulate()
    everyone = np.zeros((batch.b, len(specs)), dtype=bool)
    everyone[:, order] = True
    for k in range(int(left.max()) if len(left) else 0):
        active = left > k
        batch.choose(everyone & active[:, None], policy, rng)
        batch.simulate(active)
    return batch.evaluate(team).reshape(len(states), reps)


def playout_batch(model: Model, specs, state: State, team: int, order: list, start: int, rounds: int, policy: str,
                  rng, b: int) -> np.ndarray:
    """``b`` playouts from one state at once, the same procedure as ``playout``. Returns their values.

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> s = new_state([1, 1], [200.0, 100.0])
    >>> batched = playout_batch(model, specs, s, 0, [0, 1], 0, 2, "scripted", None, 4)
    >>> bool(np.allclose(batched, playout(model, specs, s, 0, [0, 1], 0, 2, "scripted", None)))
    True
    """
    return playout_many(model, specs, [state], team, order, [start], [rounds], policy, rng, b)[0]


# -- search ------------------------------------------------------------------------------------------------------
@dataclass
class Decision:
    """A search's answer: ``actions`` per group index of the searching team, the chosen line's mean ``value``,
    the ``playouts`` and ``iterations`` spent, root ``stats`` rows ``[option, playouts, mean]`` and the
    algorithm's name.

    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> d = scripted(Model(((1,), (0,))), specs, new_state([0, 1], [200.0, 100.0]), 0)
    >>> d.algorithm, d.actions == {0: (MOVE, 1)}, d.playouts
    ('scripted', True, 0)
    """
    actions: dict                 # group index -> (task, target region) for the searching team's groups
    value: float                  # the chosen line's mean value for the searching team
    playouts: int
    iterations: int
    stats: list = field(default_factory=list)   # per root option: [label, visits, mean]
    algorithm: str = ""


def _order(specs, state: State, team: int) -> list[int]:
    """Who decides in a round: the searching team's live groups, then everyone else's (stable index order)."""
    mine = [g for g, s in enumerate(specs) if s.team == team and state.hp[g] > 0]
    others = [g for g, s in enumerate(specs) if s.team != team and state.hp[g] > 0]
    return mine + others


class _Node:
    __slots__ = ("visits", "value", "children", "untried", "depth")

    def __init__(self, untried, depth):
        self.visits = 0
        self.value = 0.0
        self.children: dict = {}
        self.untried = untried
        self.depth = depth


def uct(model: Model, specs, state: State, team: int, *, playouts: int = 2000, batch: int = 8, leaves: int = 8,
        exploration: float = 0.7, horizon: int = 3, policy: str = "random", rng=None, time_budget: float = 0.0,
        clock=None) -> Decision:
    """UCT over rounds of group decisions (see the module docstring). ``playouts`` is the budget.

    Each iteration selects a path by UCB1 (maximising at the searching team's nodes, minimising at the
    opponent's), adds one node, and plays ``batch`` playouts from it. ``leaves`` iterations are gathered before
    their playouts run as one numpy batch; while gathered, a path carries a virtual loss (its visits count, its
    value as the worst for whoever chose it) so the next selections spread out.

    ``exploration`` is the UCB1 constant, ``horizon`` the rounds searched, ``policy`` the playout policy,
    ``rng`` a ``numpy`` generator (default: seed 0); ``time_budget`` seconds with ``clock`` stop it early.
    Rules: docs/rules/commander.md, section 5. The same seed gives the same decision:

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> s = new_state([0, 1], [200.0, 100.0])
    >>> d = uct(model, specs, s, 0, playouts=400, rng=np.random.default_rng(7))
    >>> d.playouts, list(d.actions), d.actions[0] in legal_actions(model, specs, s, 0)
    (400, [0], True)
    >>> d == uct(model, specs, s, 0, playouts=400, rng=np.random.default_rng(7))
    True
    >>> sum(visits for _option, visits, _mean in d.stats)
    400
    """
    if policy not in POLICIES:
        raise ValueError(f"playout policy must be one of {', '.join(POLICIES)}")
    rng = rng if rng is not None else np.random.default_rng(0)
    order = _order(specs, state, team)
    mine = sum(1 for g in order if specs[g].team == team)
    per_round = len(order)
    if not mine or len(alive_teams(specs, state)) < 2:
        return Decision({}, evaluate(model, specs, state, team), 0, 0, algorithm="uct")
    max_depth = per_round * horizon
    maximising = [specs[order[d]].team == team for d in range(per_round)]
    groups = Groups(specs)                # the specs as arrays, once for every batch of playouts

    shuffle = rng.shuffle

    def options(s: State, depth: int):
        # (shuffling the list makes the swaps ``rng.permutation`` would make of its indexes, with the same draws)
        acts = legal_actions(model, specs, s, order[depth % per_round])
        shuffle(acts)
        return acts

    root = _Node(options(state, 0), 0)
    done = 0
    iterations = 0
    deadline = clock() + time_budget if time_budget and clock is not None else None
    log = math.log
    sqrt = math.sqrt
    while done < playouts:
        if deadline is not None and iterations and clock() >= deadline:
            break
        gathered = []                     # (state, path with virtual losses, depth)
        for _ in range(min(leaves, max(1, (playouts - done) // batch))):
            s = state.copy()
            node = root
            path = [(root, 0.0)]
            while True:
                depth = node.depth
                if depth >= max_depth:
                    break
                g = order[depth % per_round]
                maximise = maximising[depth % per_round]
                if node.untried:
                    action = node.untried.pop()
                    assign(s, g, action)
                    if (depth + 1) % per_round == 0:
                        simulate(model, specs, s)
                    child = _Node(options(s, depth + 1) if depth + 1 < max_depth else [], depth + 1)
                    node.children[action] = child
                    node = child
                    path.append((child, 0.0 if maximise else 1.0))
                    break
                ln_n = log(node.visits)
                best, best_key = None, -math.inf
                for action, child in node.children.items():
                    mean = child.value / child.visits
                    key = (mean if maximise else 1.0 - mean) + exploration * sqrt(ln_n / child.visits)
                    if key > best_key:
                        best, best_key = action, key
                assign(s, g, best)
                if (depth + 1) % per_round == 0:
                    simulate(model, specs, s)
                node = node.children[best]
                path.append((node, 0.0 if maximise else 1.0))
            for n, worst in path:         # virtual loss until the playouts are in
                n.visits += batch
                n.value += worst * batch
            gathered.append((s, path, node.depth))
            iterations += 1
        pending = [(i, s, depth) for i, (s, _p, depth) in enumerate(gathered)
                   if depth < max_depth and len(alive_teams(specs, s)) >= 2]
        # a leaf past the horizon or with one team left is its own value; the others' come from their playouts
        played = {i for i, _s, _d in pending}
        sums = [0.0 if i in played else evaluate(model, specs, s, team) * batch
                for i, (s, _p, _d) in enumerate(gathered)]
        if pending:
            values = playout_many(model, specs, [s for _i, s, _d in pending], team, order,
                                  [d % per_round for _i, _s, d in pending],
                                  [horizon - d // per_round - 1 for _i, _s, d in pending], policy, rng, batch, groups)
            for (i, _s, _d), row in zip(pending, values):
                sums[i] = float(row.sum())
        for (s, path, _d), total in zip(gathered, sums):
            for n, worst in path:
                n.value += total - worst * batch      # the virtual loss out, the real values in
            done += batch
    # the decision: the most visited line through the searching team's groups (they decide first)
    actions = {}
    node = root
    stats = []
    for k in range(mine):
        if not node.children:
            break
        action, child = max(node.children.items(), key=lambda kv: (kv[1].visits, kv[1].value))
        if k == 0:
            stats = [[f"{TASK_NAMES[a[0]]} {a[1]}", c.visits, round(c.value / c.visits, 4)]
                     for a, c in sorted(node.children.items())]
        actions[order[k]] = action
        node = child
    value = root.value / root.visits if root.visits else 0.5
    return Decision(actions, value, done, iterations, stats, "uct")


def expected_outcome(model: Model, specs, state: State, team: int, *, playouts: int = 2000, batch: int = 8,
                     horizon: int = 3, policy: str = "random", rng=None, cap: int = 64, time_budget: float = 0.0,
                     clock=None, hidden=None) -> Decision:
    """Flat Monte Carlo over joint assignments of the searching team's groups (Expected Outcome).

    The playouts are split evenly over the joint actions (round robin, ``batch`` at a time) and run in numpy
    batches of many joint actions at once. More than ``cap`` joint actions -> a seeded sample of ``cap``.
    ``hidden`` ({group: hops}): each playout starts from its own ``determinize`` sample of the hidden groups. Rules:
    docs/rules/commander.md, section 6. Walking into the enemy's region (firing at half rate) is the worst option
    here:

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> d = expected_outcome(model, specs, new_state([0, 1], [200.0, 100.0]), 0, playouts=400, policy="scripted")
    >>> d.actions, d.playouts
    ({0: (0, 0)}, 400)
    >>> [row[0] for row in d.stats]                   # best first
    ['hold 0', 'attack 0', 'move 1']
    """
    if policy not in POLICIES:
        raise ValueError(f"playout policy must be one of {', '.join(POLICIES)}")
    rng = rng if rng is not None else np.random.default_rng(0)
    order = _order(specs, state, team)
    mine = [g for g in order if specs[g].team == team]
    if not mine or len(alive_teams(specs, state)) < 2:
        return Decision({}, evaluate(model, specs, state, team), 0, 0, algorithm="eo")
    choices = [legal_actions(model, specs, state, g) for g in mine]
    size = math.prod(len(c) for c in choices)
    if size <= cap:
        joint = list(itertools.product(*choices))
    else:
        seen = set()
        joint = []
        while len(joint) < cap:
            pick = tuple(c[int(rng.integers(len(c)))] for c in choices)
            if pick not in seen:
                seen.add(pick)
                joint.append(pick)
    starts = []
    for option in joint:
        s = state.copy()
        for g, action in zip(mine, option):
            assign(s, g, action)
        starts.append(s)
    totals = np.zeros(len(joint))
    counts = np.zeros(len(joint), dtype=np.int64)
    done = 0
    iterations = 0
    deadline = clock() + time_budget if time_budget and clock is not None else None
    per_call = max(1, 64 // batch)           # how many joint actions share one numpy batch
    cursor = 0
    groups = Groups(specs)
    while done < playouts:
        if deadline is not None and iterations and clock() >= deadline:
            break
        take = []
        while len(take) < per_call and done + batch * (len(take) + 1) <= max(playouts, batch):
            take.append(cursor % len(joint))
            cursor += 1
        if not take:
            break
        if hidden:                               # one sampled placement of the hidden groups per playout
            rows = [determinize(model, starts[i], hidden, rng) for i in take for _ in range(batch)]
            values = playout_many(model, specs, rows, team, order, [len(mine)] * len(rows), [horizon - 1] * len(rows),
                                  policy, rng, 1, groups).reshape(len(take), batch)
        else:
            values = playout_many(model, specs, [starts[i] for i in take], team, order, [len(mine)] * len(take),
                                  [horizon - 1] * len(take), policy, rng, batch, groups)
        for i, row in zip(take, values):
            totals[i] += float(row.sum())
            counts[i] += batch
        done += batch * len(take)
        iterations += len(take)
    means = np.where(counts > 0, totals / np.maximum(counts, 1), -1.0)
    best = int(np.argmax(means))                  # ties: the first joint action
    stats = sorted(([" ".join(f"{TASK_NAMES[a[0]]} {a[1]}" for a in joint[i]), int(counts[i]), round(float(means[i]), 4)]
                    for i in range(len(joint)) if counts[i]), key=lambda row: -row[2])[:10]
    return Decision(dict(zip(mine, joint[best])), float(means[best]), done, iterations, stats, "eo")


def scripted(model: Model, specs, state: State, team: int) -> Decision:
    """The scripted commander: every group attacks the nearest enemy group (attack-nearest).

    >>> model = Model(((1,), (0, 2), (1,)))          # three regions in a row: 0 - 1 - 2
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> scripted(model, specs, new_state([0, 1], [200.0, 100.0]), 0).actions == {0: (MOVE, 1)}
    True
    """
    actions = {g: scripted_action(model, specs, state, g) for g, s in enumerate(specs)
               if s.team == team and state.hp[g] > 0}
    return Decision(actions, evaluate(model, specs, state, team), 0, 0, algorithm="scripted")


def ucb1(means_fn, arms: int, pulls: int, rng, exploration: float = math.sqrt(2)) -> list[int]:
    """Plain UCB1 on a bandit: ``means_fn(arm, rng) -> reward in [0, 1]``. Returns pull counts.

    Each arm once, then the arm maximising ``mean + exploration * sqrt(ln n / pulls)`` (ties: lowest arm);
    docs/rules/commander.md, section 7. The better arm gets most pulls:

    >>> ucb1(lambda arm, rng: (0.2, 0.8)[arm], arms=2, pulls=50, rng=None)
    [8, 42]
    """
    counts = [0] * arms
    sums = [0.0] * arms
    for a in range(arms):
        sums[a] += means_fn(a, rng)
        counts[a] += 1
    for n in range(arms, pulls):
        ln_n = math.log(n)
        a = max(range(arms), key=lambda i: (sums[i] / counts[i] + exploration * math.sqrt(ln_n / counts[i]), -i))
        sums[a] += means_fn(a, rng)
        counts[a] += 1
    return counts
