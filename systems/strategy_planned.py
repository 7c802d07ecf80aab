"""The planned strategy's host side: a team's strategic facts, its posture and HTN plan carried out through the
ledger, and workers that flee danger or fight back (the rules: docs/rules/strategy.md).

A strategy profile with ``algorithm = "planned"`` is run here (systems/strategy.py hands the team over); the
decisions themselves are ai/strategy.py's, engine-free. Every team think (``PERIOD`` ticks, as the scripted
strategy):

1. the facts are read (``facts``): only what the team may know under fog of war (seen enemies, remembered ones,
   known buildings);
2. the current step's ledger action is checked: taken (accepted, started or confirmed) -> the plan advances;
   refused, failed, cancelled or timed out -> the plan is made again from the facts of now (a replan);
3. the posture is chosen (``StrategyPlanner.decide``, hysteresis and emergencies); a new posture, a finished
   plan or a failed step makes a new plan;
4. the current step is carried out: a train or build step submits one ledger action and waits for the ledger,
   an army order (attack, defend, hold, scout) takes effect at once, a step that cannot be paid for waits, and
   one that waits more than ``PATIENCE`` thinks fails (a replan);
5. standing work as the scripted strategy does it: unfinished buildings get a builder, rally points, idle
   workers gather (``workers`` below: a worker in danger flees to the far side of its headquarters, or fights
   back when the danger is only enemy workers it outnumbers, and goes back to mining when the danger is gone).

The plan state lives on the world (``World.strategy_plans``: decider state, like brains' memories) and is saved
beside the world in a snapshot (``plans_state`` / ``restore_plans``), so a loaded save goes on with the same plan. Each decision that changes the posture or the plan (and one every
``RECORD_EVERY`` thinks) is an ``ai.records.StrategyDecision``.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import esper
import numpy as np

from ai.records import PlanRecord, StrategyDecision
from ai.status import FAILURE, RUNNING
from ai.strategy import StrategyPlanner, Tuning
from components import Building, Health, Position, ResourceField, Stance, UnitKind
from game.economy import near_key, population_cap, population_used, stockpile, walkable_near
from game.ledger import ACCEPTED, CONFIRMED, STARTED, SUBMITTED
from systems.reflexes import HIT_MEMORY
from systems.strategy import ENGAGE, FIELD_REACH, SOURCE, VIEWS, TeamView

SCOUT_WATCH = 1800       # ticks (60 s) the scouting worker watches the enemy's base for an army at most
BLOCK_TICKS = 600        # a task that failed is not planned again for this long (20 s)
PATIENCE = 40            # thinks (20 s) a step may wait for money or a free building before it fails
RECORD_EVERY = 20        # thinks between decision records when nothing changes
INCOME_WINDOW = 60.0     # seconds over which income is measured
MAX_TRAIN_PER_STEP = 12  # trainings one train_army step submits at most (one per building with room)
PARITY = 1.0             # the unseen enemy army is estimated at this share of its own (after the trade so far)
LOG_LIMIT = 16
LEASH = 16.0             # tiles from the headquarters a defending unit chases an enemy
BASE_RADIUS = 15.0       # tiles from the headquarters within which threats are fought
DEFEND_RADIUS = 9.0      # tiles: enemies this close to one of its buildings threaten the base
TAKEN = (ACCEPTED, STARTED, CONFIRMED)
OUTSKIRTS_ODDS = 3.0     # army value at home over a raid's value at which raiders at outlying buildings are fought
EXPAND_CLUSTER = 6.0     # tiles: unclaimed fields this close to a field are its expansion
EXPAND_MIN = 3000        # resources an expansion's fields must hold
EXPAND_SITE = 8          # tiles from an expansion's fields' centre searched for its headquarters' site
EXPAND_TRIES = 6         # expansions (nearest first) whose fields are searched for a free site at most
EXPAND_CLEAR = 20.0      # tiles an expansion's fields keep from every enemy building the team knows

_planners: dict = {}


def planner_for(profile) -> StrategyPlanner:
    """One planner per profile (its candidates and domain are built once)."""
    key = (profile.id, profile.planner)
    planner = _planners.get(key)
    if planner is None:
        fields_ = Tuning.__dataclass_fields__
        tuning = Tuning(**{k: getattr(profile.planner, k) for k in fields_})
        planner = _planners[key] = StrategyPlanner(tuning)
    return planner


@dataclass
class PlanState:
    """One team's planned strategy between thinks (decider state)."""
    posture: str | None = None
    since: int = 0                      # tick the posture was entered
    goal: str = ""
    steps: list = field(default_factory=list)
    rows: list = field(default_factory=list)     # per step: [step, ledger action id, state]
    index: int = 0
    action: int = 0                     # the current step's ledger action (0: none yet)
    waited: int = 0                     # thinks the current step has waited
    replans: int = 0
    order: str = "hold"                 # the army's standing order
    log: deque = field(default_factory=lambda: deque(maxlen=LOG_LIMIT))
    income: deque = field(default_factory=lambda: deque(maxlen=256))   # (tick, gathered)
    fleeing: set = field(default_factory=set)
    thinks: int = 0
    scout: int = 0                      # the unit sent scouting (0: none)
    last_seen: int = -1                 # tick an enemy army unit or building was last in sight
    army_seen: int = -1                 # tick an enemy army unit was last in sight
    lost: float = 0.0                   # army value it has lost, and enemy value it has seen die, so far
    killed: float = 0.0
    own_before: dict = field(default_factory=dict)     # its army units' values last think
    enemy_before: dict = field(default_factory=dict)   # the enemy units' values it saw last think
    failed: dict = field(default_factory=dict)   # task -> tick it last failed (not planned for BLOCK_TICKS)
    scouted: float = 0.0                # the enemy army value it has scouted: the most seen at once, less kills
    worker_scout: int = 0               # the worker sent to look for the enemy (0: none sent yet)
    scout_tick: int = -1                # tick it was sent, while it is out watching (-1: not out)


    # -- saved with the match (decider state, saves/snapshot.py) ------------------------------------------------
    def to_wire(self) -> dict:
        """Plain msgpack-able data: every field, deques and sets as lists, dicts as sorted [key, value] pairs.

        >>> PlanState(posture="army", failed={"build_depot": 90}).to_wire()["failed"]
        [['build_depot', 90]]
        """
        out = {}
        for name in _WIRE:
            value = getattr(self, name)
            if isinstance(value, deque):
                value = [list(item) for item in value]
            elif isinstance(value, set):
                value = sorted(value)
            elif isinstance(value, dict):
                value = [[k, v] for k, v in sorted(value.items())]
            out[name] = value
        return out

    @classmethod
    def from_wire(cls, data, postures) -> "PlanState":
        """``to_wire``'s inverse; ValueError names the field that does not fit (a posture outside ``postures``,
        a wrong type, a list longer than the running strategy ever keeps).

        >>> PlanState.from_wire(PlanState(posture="army").to_wire(), {"army"}).posture
        'army'
        """
        if not isinstance(data, dict) or not set(_WIRE) - _ADDED <= set(data) <= set(_WIRE):
            raise ValueError(f"should have the fields {', '.join(_WIRE)}")
        st = cls()
        for name, check in _WIRE.items():
            if name not in data:
                continue                    # a field added since the save was made: its default
            try:
                value = check(data[name])
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{name}: {exc or 'malformed'}") from None
            setattr(st, name, value)
        if st.posture is not None and st.posture not in postures:
            raise ValueError(f"posture: '{st.posture}' is not one of this profile's postures")
        return st


def _int(v, lo: int = -1, hi: int = 1 << 62) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise ValueError(f"expected a whole number from {lo} to {hi}, got {v!r}")
    return v


def _num(v) -> float:
    if type(v) not in (int, float) or not math.isfinite(v):
        raise ValueError(f"expected a finite number, got {v!r}")
    return float(v)


def _str(v) -> str:
    if not isinstance(v, str) or len(v) > 200:
        raise ValueError(f"expected a short string, got {type(v).__name__}")
    return v


def _list(v, most: int, item) -> list:
    if not isinstance(v, list) or len(v) > most:
        raise ValueError(f"expected a list of at most {most} items")
    return [item(x) for x in v]


def _pair(first, second):
    def check(v):
        if not isinstance(v, list) or len(v) != 2:
            raise ValueError("expected a [key, value] pair")
        return first(v[0]), second(v[1])
    return check


def _row(v) -> list:
    if not isinstance(v, list) or len(v) != 3:
        raise ValueError("a plan row should be [step, action, state]")
    return [_str(v[0]), _int(v[1], 0), _str(v[2])]


#: PlanState's fields on the wire, each with its check (the limits are what the running strategy ever holds,
#: with room: a plan is a handful of steps, the log and income windows are bounded deques)
_WIRE = {
    "posture": lambda v: None if v is None else _str(v), "since": _int, "goal": _str,
    "steps": lambda v: _list(v, 256, _str), "rows": lambda v: _list(v, 256, _row),
    "index": lambda v: _int(v, 0), "action": lambda v: _int(v, 0), "waited": lambda v: _int(v, 0),
    "replans": lambda v: _int(v, 0), "order": _str,
    "log": lambda v: deque(([t, text] for t, text in _list(v, LOG_LIMIT, _pair(_num, _str))), maxlen=LOG_LIMIT),
    "income": lambda v: deque(_list(v, 256, _pair(_int, _int)), maxlen=256),
    "fleeing": lambda v: set(_list(v, 1 << 16, lambda e: _int(e, 0))), "thinks": lambda v: _int(v, 0),
    "scout": lambda v: _int(v, 0), "last_seen": _int, "army_seen": _int, "lost": _num, "killed": _num,
    "own_before": lambda v: dict(_list(v, 1 << 16, _pair(lambda e: _int(e, 0), _num))),
    "enemy_before": lambda v: dict(_list(v, 1 << 16, _pair(lambda e: _int(e, 0), _num))),
    "failed": lambda v: dict(_list(v, 256, _pair(_str, _int))),
    "scouted": _num, "worker_scout": lambda v: _int(v, 0), "scout_tick": _int,
}
#: fields added after saves with plans were first written: a save without them loads with their defaults
_ADDED = {"scouted", "worker_scout", "scout_tick"}


def plans_state(world) -> list:
    """Every team's plan state, [[team, PlanState.to_wire()], ...] ascending: saved beside the world."""
    return [[team, st.to_wire()] for team, st in sorted(world.strategy_plans.items())]


def restore_plans(world, rows) -> None:
    """Put ``plans_state`` output into ``world``; ValueError names the team and field that do not fit."""
    if not isinstance(rows, list):
        raise ValueError("should be a list of [team, plan state]")
    plans = {}
    for row in rows:
        if not (isinstance(row, list) and len(row) == 2 and type(row[0]) is int):
            raise ValueError("should be a list of [team, plan state]")
        team = row[0]
        name = world.strategies[team] if 0 <= team < len(world.strategies) else ""
        profile = world.content.strategies.get(name) if name else None
        if profile is None or profile.algorithm != "planned" or team in plans:
            raise ValueError(f"team {team} does not play a planned strategy here (or is listed twice)")
        postures = {c.id for c in planner_for(profile).selector.candidates}
        try:
            plans[team] = PlanState.from_wire(row[1], postures)
        except ValueError as exc:
            raise ValueError(f"team {team}: {exc}") from None
    world.strategy_plans = plans


def value_of(world, kind: str, hp: float, max_hp: float) -> float:
    udef = world.content.units.get(kind)
    return 0.0 if udef is None or max_hp <= 0 else udef.cost * max(0.0, hp) / max_hp


class PlannedTeam(TeamView):
    """A team run by a planned strategy profile: TeamView's primitives (placing, training, gathering, the army)
    driven by a posture and a plan."""

    defend_radius = DEFEND_RADIUS

    def __init__(self, world, team, profile, units, workers):
        super().__init__(world, team, profile, units, workers)
        plans = world.strategy_plans
        self.state = plans.get(team)
        if self.state is None:
            self.state = plans[team] = PlanState()
        self.planner = planner_for(profile)
        self.last = None
        self.army_saving = False        # a train_army of this think already saves for the army's next unit

    def _submit(self, kind, actor, target=0, params=None):
        self.last = super()._submit(kind, actor, target, params)
        return self.last

    # -- facts -----------------------------------------------------------------------------------------------
    def facts(self) -> dict:
        world, team = self.world, self.team
        defs = world.content.buildings
        st = self.state
        gathered = stockpile(world, team).gathered
        st.income.append((world.tick, gathered))
        while st.income and world.tick - st.income[0][0] > INCOME_WINDOW * world.hz:
            st.income.popleft()
        t0, g0 = st.income[0]
        minutes = max(1e-9, (world.tick - t0) / world.hz / 60.0)
        income = (gathered - g0) / minutes if world.tick > t0 else 0.0
        kinds: dict[str, int] = {}
        done: dict[str, int] = {}
        for _e, b in self.buildings:
            kinds[b.kind] = kinds.get(b.kind, 0) + 1
            if b.done:
                done[b.kind] = done.get(b.kind, 0) + 1
        for kind, n in self.pending_builds.items():
            kinds[kind] = kinds.get(kind, 0) + n
        supply = self.p.supply
        army_value = 0.0
        army = 0
        own = {}
        for eid, kind, _pos in self.units:
            if eid in self._worker_ids:
                continue
            h = esper.component_for_entity(eid, Health)
            own[eid] = value_of(world, kind, h.hp, h.max_hp)
            army_value += own[eid]
            army += 1
        known_value, threat_value, seen_now, seen_army, known_army = self._enemy_values()
        # the trade so far: army value it lost, and enemy value it saw last think that is gone now (killed)
        st.lost += sum(v for e, v in st.own_before.items() if not esper.entity_exists(e))
        killed = sum(v for e, v in st.enemy_before.items() if not esper.entity_exists(e))
        st.killed += killed
        # the enemy army it has scouted: what it has seen of it at most at once (seen now or remembered), less
        # what it has seen die since; an army out of sight is not gone, and a rush seen at home is still coming
        st.scouted = max(0.0, st.scouted - killed, known_army)
        st.own_before, st.enemy_before = own, self._seen_values
        if seen_now:
            st.last_seen = world.tick
        if seen_army:
            st.army_seen = world.tick
        # what is not in sight is not gone: the enemy is taken to earn and spend as it does, so its army is
        # estimated at its own army's value plus what it lost less what it killed (never less than it knows of)
        estimate = max(0.0, army_value + st.lost - st.killed) * PARITY
        enemy_value = max(known_value, estimate, st.scouted)
        intel_age = 999.0 if st.last_seen < 0 else min(999.0, (world.tick - st.last_seen) / world.hz)
        hq = self._hq_id()
        idle = sum(1 for eid, b in self.buildings if b.done and b.kind != "hq" and defs[b.kind].trains
                   and not world.ledger.queue_of(eid, "production"))
        known = False
        enemy_production = 0            # enemy buildings that train an army (not headquarters) it knows of
        for other, (ids, _x, _y) in world.known_building_index(team).items():
            if world.enemies(team, other) and len(ids):
                known = True
                for eid in ids.tolist():
                    bdef = defs.get(esper.component_for_entity(eid, Building).kind)
                    enemy_production += bdef is not None and bool(bdef.trains) and not bdef.headquarters
        cap, used = population_cap(world, team), population_used(world, team)
        bases, mine_left = self._bases()
        facts = {
            "minute": round(world.tick / world.hz / 60.0, 3),
            "stock": float(self.budget), "income": round(income, 3), "workers": len(self.workers),
            "pop_used": used, "pop_cap": cap, "pop_free": cap - used,
            "army": army, "army_value": round(army_value, 3), "enemy_value": round(enemy_value, 3),
            "strength": round(army_value / max(enemy_value, 50.0), 3),
            "threat_value": round(threat_value, 3), "threat": threat_value > 0, "enemy_army": round(st.scouted, 3),
            "barracks": done.get("barracks", 0), "pending_barracks": kinds.get("barracks", 0) - done.get("barracks", 0),
            "armory": kinds.get("armory", 0), "turrets": kinds.get("turret", 0), "depots": kinds.get(supply, 0),
            "building_supply": kinds.get(supply, 0) > done.get(supply, 0),
            "idle_production": idle,
            "hq_idle": hq is not None and len(world.ledger.queue_of(hq, "production")) < 2,
            "enemy_known": known, "intel_age": round(intel_age, 2), "enemy_production": enemy_production,
            "bases": bases, "mine_left": round(mine_left, 3), "expansion_site": False,
        }
        # looked for only while every other gate of the expand posture holds (it searches the map)
        facts["expansion_site"] = self.planner.expansion_wanted(facts) and self.expansion() is not None
        return facts

    # -- bases ----------------------------------------------------------------------------------------------
    def _drop_offs(self) -> list[tuple[float, float]]:
        """Centres of its drop-offs: standing, under construction, or being placed by a build action now."""
        defs = self.world.content.buildings
        out = [(b.tx + b.w / 2, b.ty + b.h / 2) for _e, b in self.buildings if defs[b.kind].drop_off]
        for action in self.world.ledger.active_sorted():
            if action.kind == "build" and not action.target and not action.data.get("site") \
                    and action.actor in self._worker_ids:           # not yet placed (then it is a building)
                bdef = defs.get(action.params.get("building", ""))
                if bdef is not None and bdef.drop_off:
                    w, h = bdef.size
                    out.append((action.params.get("x", 0) + w / 2, action.params.get("y", 0) + h / 2))
        return out

    def _bases(self) -> tuple[int, float]:
        """Its bases (drop-offs standing, building or being placed) and the resources left in the fields its
        complete drop-offs reach (``FIELD_REACH``, as its workers mine)."""
        defs = self.world.content.buildings
        done = [(b.tx + b.w / 2, b.ty + b.h / 2) for _e, b in self.buildings if b.done and defs[b.kind].drop_off]
        r2 = FIELD_REACH * FIELD_REACH
        left = 0.0
        for _fid, f in esper.get_component(ResourceField):
            if any((f.tx + 0.5 - x) ** 2 + (f.ty + 0.5 - y) ** 2 <= r2 for x, y in done):
                left += f.amount
        return len(self._drop_offs()), left

    def _hq_kind(self) -> str | None:
        """The headquarters building it expands with (the first by id)."""
        defs = self.world.content.buildings
        kinds = sorted(k for k, b in defs.items() if b.headquarters and b.drop_off)
        return kinds[0] if kinds else None

    def expansion(self) -> tuple[int, int] | None:
        """The site of its next base: the top-left tile for a headquarters by the nearest unclaimed fields.

        Unclaimed: no drop-off of its own within ``FIELD_REACH`` and no enemy building it knows within
        ``EXPAND_CLEAR``. Each such field with the unclaimed fields within ``EXPAND_CLUSTER`` of it is a
        candidate if they hold ``EXPAND_MIN``; nearest to its headquarters first (ties: offsets turned with its
        quarter), the headquarters goes on the nearest free site within ``EXPAND_SITE`` of the first candidate's
        fields' centre that has one (``find_site``; ``EXPAND_TRIES`` candidates at most: its own outlying
        buildings may fill the ground by the nearest). None: no such fields or no site."""
        world, team = self.world, self.team
        kind = self._hq_kind()
        if kind is None:
            return None
        drops = self._drop_offs()
        enemy = [(float(x), float(y)) for other, (ids, xs, ys) in sorted(world.known_building_index(team).items())
                 if world.enemies(team, other) for x, y in zip(xs.tolist(), ys.tolist())]
        reach2, clear2 = FIELD_REACH * FIELD_REACH, EXPAND_CLEAR * EXPAND_CLEAR
        free = []
        for fid, f in sorted(esper.get_component(ResourceField)):
            fx, fy = f.tx + 0.5, f.ty + 0.5
            if f.amount <= 0 or any((fx - x) ** 2 + (fy - y) ** 2 <= reach2 for x, y in drops) \
                    or any((fx - x) ** 2 + (fy - y) ** 2 <= clear2 for x, y in enemy):
                continue
            free.append((fid, fx, fy, f.amount))
        if not free:
            return None
        hx, hy = self._headquarters()
        c2 = EXPAND_CLUSTER * EXPAND_CLUSTER
        candidates = []
        for fid, fx, fy, _amount in free:
            group = [(gx, gy, a) for _g, gx, gy, a in free if (gx - fx) ** 2 + (gy - fy) ** 2 <= c2]
            if sum(a for _x, _y, a in group) < EXPAND_MIN:
                continue
            dx, dy = fx - hx, fy - hy
            n = len(group)
            centre = (round(sum(x for x, _y, _a in group) / n, 6), round(sum(y for _x, y, _a in group) / n, 6))
            candidates.append(((near_key(dx * dx + dy * dy),) + self._turned(round(dx, 6), round(dy, 6)), centre))
        tried = set()
        for _key, centre in sorted(candidates):
            if centre in tried:
                continue
            tried.add(centre)
            site = self.find_site(kind, centre, EXPAND_SITE)
            if site is not None or len(tried) >= EXPAND_TRIES:
                return site
        return None


    def _hq_id(self) -> int | None:
        defs = self.world.content.buildings
        for eid, b in self.buildings:
            if b.done and defs[b.kind].headquarters:
                return eid
        return None

    def _enemy_values(self) -> tuple[float, float, bool, bool, float]:
        """The value of the enemy units the team knows (seen now, or remembered; workers too: a worker rush
        fights with them), of the part of them it sees near its buildings, whether it sees an enemy army unit or
        building now, whether it sees an enemy army unit now, and the value of the enemy army units (not
        workers) it knows."""
        world, team = self.world, self.team
        seen = set()
        self._seen_values = {}
        army = 0.0
        soldiers = 0.0
        seen_army = False
        units = world.content.units
        threat_ids = {eid for eid, _x, _y in self._threats()}
        threat = 0.0
        for other, (ids, _xs, _ys) in sorted(world.seen_index(team).items()):
            if not world.enemies(team, other):
                continue
            for eid in ids.tolist():
                seen.add(eid)
                kind = esper.component_for_entity(eid, UnitKind).kind
                h = esper.component_for_entity(eid, Health)
                v = value_of(world, kind, h.hp, h.max_hp)
                if eid in threat_ids:
                    threat += v
                army += v
                if units[kind].worker is None:
                    soldiers += v
                    seen_army = True
                self._seen_values[eid] = v
        if world.fog.enabled and team not in world.sees_all:
            for eid, row in sorted(world.fog.remembered_units(team).items()):
                if eid in seen or units.get(row[1]) is None:
                    continue
                v = value_of(world, row[1], row[4], row[5])
                army += v
                soldiers += v if units[row[1]].worker is None else 0.0
        seen_now = False
        if not seen_army:
            fog = world.fog
            for other, (ids, xs, ys) in sorted(world.known_building_index(team).items()):
                if world.enemies(team, other) and len(ids) and (not fog.enabled or any(
                        fog.sees(team, float(x), float(y)) for x, y in zip(xs.tolist(), ys.tolist()))):
                    seen_now = True
                    break
        return army, threat, seen_now or seen_army, seen_army, soldiers

    # -- the think ---------------------------------------------------------------------------------------------
    def economy(self) -> None:
        """The team's think (``PERIOD`` ticks): facts, the ledger's verdict, the posture, the plan, standing work."""
        if not self.buildings:
            return
        self._read_ledger()
        world = self.world
        st = self.state
        if st.worker_scout and st.scout_tick >= 0:
            self.builders.setdefault(st.worker_scout, -1)   # out scouting: never a builder or a miner this think
        st.thinks += 1
        facts = self.facts()
        changed = False
        status = RUNNING
        # 1. the ledger's verdict on the step under way
        if st.action:
            action = world.ledger.get(st.action)
            state = action.state if action is not None else CONFIRMED   # pruned: it ended long ago, taken
            if state in TAKEN:
                self._row(st.index, st.action, state)
                changed = True
                st.index += 1
                st.action, st.waited = 0, 0
            elif state != SUBMITTED:
                reason = action.reason if action is not None else ""
                self._row(st.index, st.action, f"{state}: {reason}" if reason else state)
                self._log(f"step {st.steps[st.index]} {state}" + (f" ({reason})" if reason else "") + "; replan")
                st.failed[st.steps[st.index]] = world.tick
                st.steps, st.action, st.waited = [], 0, 0
                st.replans += 1
                status = FAILURE
                changed = True
        # 2. the posture
        held = (world.tick - st.since) / world.hz if st.posture is not None else 0.0
        decision = self.planner.decide(facts, st.posture, held)
        before = st.posture
        if decision.choice != st.posture or decision.switch:
            st.posture = decision.choice
            st.since = world.tick
            st.order = "hold"                   # an attack ends with its posture (an attack plan orders it again)
            st.steps = []
            changed = True
            self._log(f"posture {before} -> {decision.choice} ({decision.reason})")
        # 3. a plan when there is none (or it is done)
        if st.posture is not None and (not st.steps or st.index >= len(st.steps)):
            if not self._new_plan(facts):
                changed = True
        # 4. the standing needs (supply, a worker), then the plan's steps until one waits for the ledger or for
        #    money, then reinforcements on idle production with what is left (a step saving for a building is not
        #    starved by the trainings, each cheaper, that would otherwise take every coin before it)
        #    Until the guard (``guard_army``) stands, once an enemy army has been seen (or a threat is at the
        #    base), its reinforcements come first of all: a rush seen coming finds a few units, not a barracks
        #    idle while every coin went to workers.
        upkeep = self._upkeep_steps(facts)
        guard_first = facts["army"] < self.planner.tuning.guard_army and (
            facts["threat"] or facts["enemy_army"] > 0)
        if guard_first:
            self._upkeep([s for s in upkeep if s == "train_army"])
        self._upkeep([s for s in upkeep if s != "train_army"])
        if self._steps():
            status = FAILURE
            changed = True
        if not guard_first:
            self._upkeep([s for s in upkeep if s == "train_army"])
        if changed or st.thinks % RECORD_EVERY == 1:
            self._record(facts, decision, before, status)
        # 5. standing work
        self._leash()
        self._help_unfinished()
        self._rally()
        self._worker_scout(facts)
        self.workers_think()

    def _worker_scout(self, facts: dict) -> None:
        """Once, at ``scout_workers`` workers and with no enemy building known (under fog of war): the newest
        worker not building walks to where the enemy should be (``Fog.hunt_point``) and waits there, to see
        whether the enemy trains an army before its army comes. While out it is busy (not sent to mine, and it
        does not flee: what shoots at it is what it came to see); it goes back to mining once it has seen an
        enemy army unit, after ``SCOUT_WATCH`` ticks, or if it died."""
        world, st = self.world, self.state
        if st.worker_scout and st.scout_tick >= 0:
            eid = st.worker_scout
            if not esper.entity_exists(eid) or st.scouted > 0 \
                    or world.tick - st.scout_tick > SCOUT_WATCH:
                st.scout_tick = -1              # back to work: ``_gather`` takes it in this think
                if self.builders.get(eid) == -1:
                    del self.builders[eid]
                self._log(f"worker {eid} is back from scouting")
            return
        wanted = self.p.planner.scout_workers
        if not wanted or st.worker_scout or facts["enemy_known"] or len(self.workers) < wanted \
                or not world.fog.enabled or self.team in world.sees_all:
            return
        free = [(e, p) for e, p, _w in self.workers if e not in self.builders and e not in st.fleeing]
        if not free:
            return
        eid, pos = free[-1]
        spot = world.fog.hunt_point(self.team, pos.x, pos.y)
        if spot is None:
            return
        self._submit("move", eid, 0, {"x": spot[0], "y": spot[1]})
        st.worker_scout, st.scout_tick = eid, world.tick
        self.builders[eid] = -1                 # busy: not sent to mine this think
        self._log(f"worker {eid} scouts toward ({spot[0]:.0f}, {spot[1]:.0f})")

    def _steps(self) -> bool:
        """Carry out the plan's steps in order until one waits for the ledger or for money; True when a step
        failed (the plan is dropped: a replan next think)."""
        st = self.state
        failed = False
        for _ in range(len(st.steps) + 1):
            if st.action or st.index >= len(st.steps):
                break
            outcome = self._do(st.steps[st.index])
            step = st.steps[st.index]
            if outcome == "busy":
                outcome = "done"                # production is full: the step has nothing to add now
            if outcome == "action":
                st.action = self.last.id
                self._row(st.index, st.action, SUBMITTED)
                break
            if outcome == "done":
                self._row(st.index, 0, "done")
                st.index += 1
                st.waited = 0
                continue
            if outcome == "wait":
                st.waited += 1
                self._row(st.index, 0, f"waiting {st.waited}")
                if st.waited > PATIENCE:
                    self._drop_plan(st, step, f"step {step} waited {PATIENCE} thinks; replan")
                    failed = True
                break
            # failed outright: replan from the facts now (next think)
            self._row(st.index, 0, f"failed: {outcome}")
            self._drop_plan(st, step, f"step {step} failed ({outcome}); replan")
            failed = True
            break
        return failed

    def _blocked(self) -> set[str]:
        """The tasks that failed less than ``BLOCK_TICKS`` ago (not planned again yet)."""
        tick = self.world.tick
        return {task for task, when in self.state.failed.items() if tick - when < BLOCK_TICKS}

    def _upkeep_steps(self, facts: dict) -> list[str]:
        """The standing tasks of this think (``StrategyPlanner.upkeep``), less those that failed a moment ago;
        the reinforcements (``train_army``) are never held back by a plan's ``train_army`` step that waited too
        long for money (with no barracks free or nothing trainable they only do nothing)."""
        return self.planner.upkeep(facts, self._blocked() - {"train_army"})

    def _upkeep(self, steps: list[str]) -> None:
        """Do the standing tasks ``steps``, each once: what the ledger makes of them is in the next think's facts
        (a worker more, a depot under way), so nothing waits on them."""
        st = self.state
        for step in steps:
            outcome = self._do(step)
            if outcome not in ("action", "done", "wait", "busy"):
                if step not in self._blocked():
                    self._log(f"upkeep {step} failed ({outcome})")
                st.failed[step] = self.world.tick

    def _new_plan(self, facts: dict) -> bool:
        """Plan for the posture from the facts of now; True when the plan is the one that just ran to its end
        again (a plan done within one think, such as ``train_army, hold`` with production full, repeats every
        think: it is neither logged nor recorded again)."""
        st = self.state
        finished = list(st.steps) if st.steps and st.index >= len(st.steps) else None
        goal = f"posture_{st.posture}"
        repeat = finished is not None and st.goal == goal
        st.steps = self.planner.plan(st.posture, facts, self._blocked())
        repeat = repeat and st.steps == finished
        st.goal = goal
        st.rows = [[s, 0, "pending"] for s in st.steps]
        st.index, st.action, st.waited = 0, 0, 0
        if not repeat:
            self._log(f"plan {st.goal}: {', '.join(st.steps) or '(none)'}")
        return repeat

    def _row(self, index: int, action: int, state: str) -> None:
        rows = self.state.rows
        if 0 <= index < len(rows):
            rows[index] = [rows[index][0], int(action), state]

    def _log(self, text: str) -> None:
        self.state.log.append([round(self.world.tick / self.world.hz, 2), text])

    def _drop_plan(self, st, step: str, why: str) -> None:
        """A step that failed or waited too long: it is blocked for a while and the plan is remade next think."""
        self._log(why)
        st.failed[step] = self.world.tick
        st.replans += 1
        st.steps, st.waited = [], 0

    # -- steps -----------------------------------------------------------------------------------------------
    def _do(self, step: str) -> str:
        """Carry out one step: "action" (a ledger action was submitted: ``self.last``), "done" (an order that
        takes effect at once), "wait" (not affordable yet, or no building free), or why it failed."""
        st = self.state
        self.last = None
        if step in ("attack", "defend", "hold"):
            st.order = step
            return "done"
        if step == "scout":
            return self._scout()
        if step == "train_worker":
            kind = self._worker_kind()
            return "failed: no worker type" if kind is None else self._train_step(kind)
        if step == "train_army":
            return self._train_army_step()
        if step == "build_expansion":
            site = self.expansion()
            return "no site for an expansion" if site is None else self._build_step(self._hq_kind(), site)
        if step.startswith("build_"):
            kind = self.p.supply if step == "build_depot" else step[len("build_"):]
            if kind not in self.world.content.buildings:
                return f"unknown building '{kind}'"
            return self._build_step(kind)
        return f"unknown step '{step}'"

    def _build_step(self, kind: str, site: tuple[int, int] | None = None) -> str:
        """Place a ``kind`` (on ``site``, default: the nearest free site round the headquarters)."""
        placed = self._place(kind, site)
        if self.last is not None:
            return "action"
        if not placed:
            return "no site or builder"
        self.budget -= self.world.content.buildings[kind].cost    # saved for: nothing later spends it
        return "wait"

    def _train_step(self, unit: str) -> str:
        world = self.world
        udef = world.content.units[unit]
        from game.economy import missing_requirements
        if missing_requirements(world, self.team, udef.requires):
            return f"{unit} needs {', '.join(udef.requires)}"
        if not self._trainers(unit):
            return "busy"                   # every building that trains it has its queue full: nothing to add
        if self.budget < udef.cost:
            self.budget -= udef.cost        # saved for: the steps after this one do not spend it meanwhile
            return "wait"
        self._train(unit)
        return "action" if self.last is not None else "wait"

    def _train_army_step(self) -> str:
        """One training on every production building with room in its queue (as far as the money goes), each
        the unit of the mix the army is furthest below; the step's action is the first of them. When a
        train_army earlier in the think (the upkeep's reinforcements) already saves for the army's next unit,
        a second one has nothing to add: "done" (not a wait, which after ``PATIENCE`` thinks would fail the
        step and block the reinforcements with it)."""
        if self.army_saving:
            return "done"
        first = None
        outcome = "wait"
        for _ in range(MAX_TRAIN_PER_STEP):
            outcome = self._train_one_army()
            if outcome != "action":
                break
            first = first or self.last
        if first is not None:
            self.last = first
            return "action"
        self.army_saving = outcome == "wait"
        return outcome

    def _train_one_army(self) -> str:
        order, _size = self.train_order(self.p.army or {"rifleman": 1.0})
        from game.economy import missing_requirements
        busy = False
        for unit in order:
            udef = self.world.content.units[unit]
            if missing_requirements(self.world, self.team, udef.requires):
                continue
            outcome = self._train_step(unit)
            if outcome in ("action", "wait"):
                # the unit the army lacks most is waited for, not swapped for a cheaper one the money covers now
                return outcome
            busy = busy or outcome == "busy"
        return "busy" if busy else "nothing to train"

    def _scout(self) -> str:
        """Send the army's fastest unit to where the enemy should be; done once it is on its way."""
        world = self.world
        fighters = self.army_units()
        if not fighters:
            return "no unit to scout with"
        speed = lambda e: world.content.units[esper.component_for_entity(e, UnitKind).kind].speed
        eid, pos = min(fighters, key=lambda f: (-speed(f[0]), f[0]))
        spot = world.fog.hunt_point(self.team, pos.x, pos.y) if world.fog.enabled else None
        if spot is None:
            return "done"                   # nothing hidden to look for
        spot = walkable_near(world, spot[0], spot[1], world.turns[self.team])
        if spot is None:
            return "no open ground where the enemy should be"
        self._submit("attack_move", eid, 0, {"x": spot[0], "y": spot[1]})
        self.state.scout = eid
        return "action"

    # -- the army ----------------------------------------------------------------------------------------------
    def attacking(self, size: int) -> bool:
        """The army follows the plan's standing order: attack (everything, as the scripted attack), otherwise
        drive off enemies near the base and wait at the rally point."""
        return self.state.order == "attack"

    def _threats(self) -> list[tuple[int, float, float]]:
        """Enemy units it sees within ``defend_radius`` tiles of one of its buildings and within ``BASE_RADIUS``
        of one of its headquarters, an expansion's too (a base is defended where its turrets and reinforcements
        are, not out in the open), those it sees near its army at home (``_near_army``) and those that hit one of
        its units (``_attackers``). Enemies at its outlying buildings (within ``defend_radius`` of one, further
        than ``BASE_RADIUS`` from every headquarters), and those that hit one of its units there, are threats too
        when its army at home outweighs them, and the enemy army it has scouted, ``OUTSKIRTS_ODDS`` to one
        (``_outweighs``): a raid picking off builders and depots at the edge of the base is driven off by the army
        that can crush it, while a few raiders in sight do not lure it out to an army it knows is there."""
        hx, hy = self._headquarters()
        defs = self.world.content.buildings
        bases = [(b.tx + b.w / 2, b.ty + b.h / 2) for _e, b in self.buildings if defs[b.kind].headquarters] \
            or [(hx, hy)]
        r2 = BASE_RADIUS * BASE_RADIUS
        out, outskirts = [], []
        for t in super()._threats():
            (out if any((t[1] - x) ** 2 + (t[2] - y) ** 2 <= r2 for x, y in bases) else outskirts).append(t)
        known = {t[0] for t in out}
        out += self._near_army(hx, hy, known)
        hits = self._attackers(hx, hy)
        for attacker, x, y, far in hits:             # those that hit one of its units, within the leash
            if not far and attacker not in known:
                known.add(attacker)
                out.append((attacker, x, y))
        known.update(t[0] for t in outskirts)
        for attacker, x, y, far in hits:             # and beyond it, at one of its buildings
            if far and attacker not in known and self._in_outskirts(x, y):
                known.add(attacker)
                outskirts.append((attacker, x, y))
        if outskirts and self._outweighs(outskirts, hx, hy):
            out += outskirts
        return out

    def _outweighs(self, enemies: list, hx: float, hy: float) -> bool:
        """Does its army at home (within ``LEASH`` of the headquarters) outweigh these enemies, and the enemy army
        it has scouted (``PlanState.scouted``: raiders in sight may be the edge of an army out of it),
        ``OUTSKIRTS_ODDS`` to one, by value (``value_of``)?"""
        world = self.world
        r2 = LEASH * LEASH
        home = 0.0
        for eid, pos in self.army_units():
            if (pos.x - hx) ** 2 + (pos.y - hy) ** 2 <= r2:
                h = esper.component_for_entity(eid, Health)
                home += value_of(world, esper.component_for_entity(eid, UnitKind).kind, h.hp, h.max_hp)
        raid = 0.0
        for eid, _x, _y in enemies:
            kind = esper.try_component(eid, UnitKind)
            h = esper.try_component(eid, Health)
            if kind is not None and h is not None:
                raid += value_of(world, kind.kind, h.hp, h.max_hp)
        return home > 0 and home >= OUTSKIRTS_ODDS * max(raid, self.state.scouted)

    def _in_outskirts(self, x: float, y: float) -> bool:
        """Within ``defend_radius`` tiles of one of its buildings (measured to the footprint's edge)."""
        r = self.defend_radius
        for _e, b in self.buildings:
            dx = max(b.tx - x, 0.0, x - (b.tx + b.w))
            dy = max(b.ty - y, 0.0, y - (b.ty + b.h))
            if dx * dx + dy * dy <= r * r:
                return True
        return False

    def _near_army(self, hx: float, hy: float, known: set) -> list[tuple[int, float, float]]:
        """Enemies it sees within ``ENGAGE`` tiles of one of its army units at home (within ``LEASH`` tiles of the
        headquarters), themselves within ``LEASH`` of it: a unit at the rally point fights what comes in sight, as
        a player's unit does, instead of waiting while a longer-ranged raider shoots from just outside the base."""
        r2 = LEASH * LEASH
        inside = []                              # enemies it sees within the leash: the only ones that can count
        for other, (ids, xs, ys) in sorted(self.world.seen_index(self.team).items()):
            if not self.world.enemies(self.team, other) or not len(ids):
                continue
            leashed = (xs - hx) ** 2 + (ys - hy) ** 2 <= r2
            if leashed.any():
                inside.append((ids, xs, ys, leashed))
        if not inside:
            return []
        home = [(p.x, p.y) for _e, p in self.army_units() if (p.x - hx) ** 2 + (p.y - hy) ** 2 <= r2]
        if not home:
            return []
        mine = np.array(home)
        out = []
        for ids, xs, ys, leashed in inside:
            d2 = (xs[:, None] - mine[None, :, 0]) ** 2 + (ys[:, None] - mine[None, :, 1]) ** 2
            near = (d2 <= ENGAGE * ENGAGE).any(axis=1) & leashed
            for i in np.flatnonzero(near):
                if int(ids[i]) not in known:
                    known.add(int(ids[i]))
                    out.append((int(ids[i]), float(xs[i]), float(ys[i])))
        return out

    def _attackers(self, hx: float, hy: float) -> list[tuple[int, float, float, bool]]:
        """(attacker, x, y, further than ``LEASH`` from the headquarters) for each of its units (by id) that an
        enemy hit in the last ``HIT_MEMORY`` ticks: fire answered, as a player's unit answers it
        (systems/reflexes.py), so a longer-ranged raider cannot pick off the units waiting at the rally point, or
        the workers, from outside the base's reach (``_threats`` takes those within the leash, and those beyond it
        at one of its buildings)."""
        world = self.world
        since = world.tick - HIT_MEMORY
        hit = [(eid, stance) for eid, stance in esper.get_component(Stance) if stance.hit_tick >= since]
        if not hit:
            return []
        mine = {e for e, _p in self.army_units()} | {e for e, _p, _w in self.workers}
        out = []
        for eid, stance in sorted((h for h in hit if h[0] in mine), key=lambda h: h[0]):
            attacker = stance.attacker
            pos = esper.try_component(attacker, Position) if esper.entity_exists(attacker) else None
            if pos is not None:
                out.append((attacker, pos.x, pos.y, (pos.x - hx) ** 2 + (pos.y - hy) ** 2 > LEASH * LEASH))
        return out

    def _leash(self) -> None:
        """Unless the order is to attack, a unit chasing an enemy further than ``LEASH`` tiles from the
        headquarters comes back to the rally point (a defence does not follow the enemy home), unless it is
        attacking a threat at one of its outlying buildings (``_threats``, "the outskirts")."""
        if self.state.order == "attack":
            return
        world = self.world
        hx, hy = self._headquarters()
        rally = None
        threats = None
        for eid, pos in self.army_units():
            if (pos.x - hx) ** 2 + (pos.y - hy) ** 2 <= LEASH * LEASH:
                continue
            current = world.ledger.current(eid)
            if current is None or current.kind not in ("attack", "attack_move") or eid == self.state.scout:
                continue
            if current.kind == "attack" and self._in_outskirts(pos.x, pos.y):
                if threats is None:
                    threats = {t[0] for t in self._threats()}
                if current.target in threats:
                    continue                      # driving off a raid at its outlying buildings
            if rally is None:
                rally = self.rally_spot()
            self._submit("move", eid, 0, {"x": rally[0], "y": rally[1]})

    def army_units(self) -> list:
        units = super().army_units()
        scout = self.state.scout
        if scout and self.state.order != "attack":
            current = self.world.ledger.current(scout)
            if current is not None and current.kind == "attack_move":
                units = [u for u in units if u[0] != scout]       # the scout keeps walking
        return units

    # -- workers with brains --------------------------------------------------------------------------------
    def workers_think(self) -> None:
        """Each worker (unless the whole crew is sent against the threats at the base: ``_militia``): in danger
        (armed enemies within ``flee`` tiles, or the enemy that hit it in the last ``HIT_MEMORY`` ticks, wherever
        it shoots from), fight back when the danger is only enemy workers and the workers about outnumber them,
        else run to the far side of the headquarters; when the danger has gone, back to work (``_gather``: mine
        the nearest free field, or take a load home)."""
        world, team = self.world, self.team
        flee = float(self.p.planner.flee)
        st = self.state
        if self._militia():
            pass                                # every free worker is fighting the threats at the base
        elif flee > 0 and self.workers:
            ex, ey, ew, at = [], [], [], {}
            for other, (ids, xs, ys) in sorted(world.seen_index(team).items()):
                if not world.enemies(team, other) or not len(ids):
                    continue
                for i, eid in enumerate(ids.tolist()):
                    at[eid] = len(ex)
                    ex.append(float(xs[i]))
                    ey.append(float(ys[i]))
                    ew.append(world.content.units[esper.component_for_entity(eid, UnitKind).kind].worker is not None)
            # an enemy that hit a worker a moment ago is danger even unseen (a scout shoots from 9 tiles, past a
            # worker's sight): the shot shows where it came from
            for eid, _p, _w in self.workers:
                stance = esper.try_component(eid, Stance)
                if stance is None or world.tick - stance.hit_tick > HIT_MEMORY or stance.attacker in at \
                        or not esper.entity_exists(stance.attacker):
                    continue
                apos = esper.try_component(stance.attacker, Position)
                kind = esper.try_component(stance.attacker, UnitKind)
                if apos is None or kind is None:
                    continue
                at[stance.attacker] = len(ex)
                ex.append(float(apos.x))
                ey.append(float(apos.y))
                ew.append(world.content.units[kind.kind].worker is not None)
            mine = np.array([(p.x, p.y) for _e, p, _w in self.workers])
            hx, hy = self._headquarters()
            if ex:
                exs, eys, eworker = np.array(ex), np.array(ey), np.array(ew)
                army_near = sum(1 for _e, p in self.army_units() if (p.x - hx) ** 2 + (p.y - hy) ** 2 < 225)
                for eid, pos, _w in self.workers:
                    if eid in self.builders:
                        continue
                    d2 = (exs - pos.x) ** 2 + (eys - pos.y) ** 2
                    near = d2 <= flee * flee
                    # the enemy that hit it a moment ago is danger too, however far it shoots from (a scout's
                    # range is 9, past the flee distance: the miners were shot down at their work)
                    stance = esper.try_component(eid, Stance)
                    if stance is not None and world.tick - stance.hit_tick <= HIT_MEMORY and stance.attacker in at:
                        near[at[stance.attacker]] = True
                    if not near.any():
                        continue
                    n_enemy = int(near.sum())
                    only_workers = bool(eworker[near].all())
                    friends = int((((mine[:, 0] - pos.x) ** 2 + (mine[:, 1] - pos.y) ** 2) <= 64).sum())
                    current = world.ledger.current(eid)
                    if only_workers and friends + army_near >= n_enemy:
                        target_i = int(np.flatnonzero(near)[np.argmin(d2[near])])
                        # the enemy worker nearest: find its id again from the seen index order
                        target = self._enemy_id_at(exs[target_i], eys[target_i])
                        if target and (current is None or current.kind != "attack" or current.target != target):
                            self._submit("attack", eid, target)
                            self.builders[eid] = -1          # busy: not sent to mine this think
                        continue
                    i = int(np.argmin(d2))
                    dx, dy = hx - exs[i], hy - eys[i]
                    d = math.hypot(dx, dy) or 1.0
                    tx, ty = hx + dx / d * 4.0, hy + dy / d * 4.0
                    tx = min(max(tx, 0.5), world.tilemap.width - 0.5)
                    ty = min(max(ty, 0.5), world.tilemap.height - 0.5)
                    if eid not in st.fleeing or current is None or current.kind != "move":
                        self._submit("move", eid, 0, {"x": tx, "y": ty})
                    st.fleeing.add(eid)
                    self.builders[eid] = -1
            # the danger has gone for those still marked: back to work
            for eid, pos, _w in self.workers:
                if eid in st.fleeing and self.builders.get(eid) != -1:
                    st.fleeing.discard(eid)
                    current = world.ledger.current(eid)
                    if current is not None and current.kind == "move":
                        world.ledger.cancel(current.id, "danger gone")
                        self.builders[eid] = -1             # idle from next think, then mines
        st.fleeing &= {e for e, _p, _w in self.workers}
        # a worker that fought back does not chase its attacker home: past BASE_RADIUS it goes back to work
        if self.workers and self.buildings:
            hx, hy = self._headquarters()
            for eid, pos, _w in self.workers:
                if (pos.x - hx) ** 2 + (pos.y - hy) ** 2 <= BASE_RADIUS * BASE_RADIUS:
                    continue
                current = world.ledger.current(eid)
                if current is not None and current.kind == "attack" and current.source == SOURCE:
                    world.ledger.cancel(current.id, "too far from home")
                    self.builders[eid] = -1         # idle from next think, then mines
        self._gather()

    def _militia(self) -> bool:
        """A profile's ``militia``: when enemies threaten the base (``_threats``) and the free workers plus the
        army at home are at least ``militia`` times as many, every free worker attacks the threat nearest it, as
        a player pulls miners against an early raid that would otherwise pick them and each new unit off one by
        one; they go back to work when the threats are gone (or past ``BASE_RADIUS``, below). Returns whether
        the workers were sent."""
        ratio = float(self.p.planner.militia)
        if ratio <= 0 or not self.workers or not self.buildings:
            return False
        threats = self._threats()
        if not threats:
            return False
        hx, hy = self._headquarters()
        free = [(eid, pos) for eid, pos, _w in self.workers if eid not in self.builders]
        home = sum(1 for _e, p in self.army_units() if (p.x - hx) ** 2 + (p.y - hy) ** 2 <= LEASH * LEASH)
        if not free or len(free) + home < ratio * len(threats):
            return False
        txs = np.array([t[1] for t in threats])
        tys = np.array([t[2] for t in threats])
        ledger = self.world.ledger
        for eid, pos in free:
            target = threats[int(np.argmin((txs - pos.x) ** 2 + (tys - pos.y) ** 2))][0]
            current = ledger.current(eid)
            if current is None or current.kind != "attack" or current.target != target:
                self._submit("attack", eid, target)
            self.builders[eid] = -1              # busy: not sent to mine this think
            self.state.fleeing.discard(eid)
        return True

    def _enemy_id_at(self, x: float, y: float) -> int:
        found = self.world.nearest_enemy(self.team, x, y)
        return found[0] if found is not None else 0

    def _record(self, facts: dict, decision, before, status) -> None:
        st = self.state
        world = self.world
        plan = PlanRecord(mode="htn", goal=st.goal, steps=list(st.steps), index=min(st.index, len(st.steps)),
                          action=int(st.action), status=int(status), replans=st.replans, log=[list(r) for r in st.log])
        rec = StrategyDecision(
            tick=world.tick, team=self.team, profile=self.p.id, posture_before=before, posture=st.posture,
            switch=bool(decision.switch), reason=decision.reason, detail=decision.detail,
            emergency=decision.emergency, candidates=decision.candidates, order=st.order,
            facts=[[k, facts[k]] for k in sorted(facts)], steps=[list(r) for r in st.rows], plan=plan)
        world.decisions.add(rec)


VIEWS["planned"] = PlannedTeam

__all__ = ["PlannedTeam", "PlanState", "planner_for"]
