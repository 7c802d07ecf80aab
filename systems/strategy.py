"""Scripted strategies: a team's economy, buildings, production and attacks from a strategy profile.

The baseline opponents an RTS ships (microRTS's worker, light and heavy rushes; a balanced macro build) are one
algorithm with different numbers, given by a ``strategies/`` profile (content/schema.py ``StrategyDef``):

- **workers**: every idle worker carrying a load takes it home; every other idle worker mines the nearest field
  with a free slot near one of the team's drop-offs; the team trains workers up to ``workers`` gatherers (a rush
  that lets ``workers_fight`` keeps training them, and those beyond the gatherers fight);
- **buildings**: supply (``supply``) whenever the free population is at most ``supply_margin``, then the
  ``build`` order in turn, each placed on the first free site around the headquarters (nearest first, ties
  turned with the team's quarter of the map so mirrored bases build mirrored); an unfinished building nobody
  works on gets the nearest worker;
- **army**: every production building with room in its queue trains the unit of the ``army`` mix the team is
  furthest below, up to ``max_army``; new units rally between the base and the map's centre;
- **attack**: with ``attack_at`` or more army units the army attacks — the nearest enemy unit within 10 tiles,
  else the nearest enemy building or unit anywhere; below that it defends: enemies within 14 tiles of a building
  are attacked, the rest of the army waits at the rally point. A unit that has shot itself dry walks back to the
  rally point, where the base's buildings rearm it (systems/resupply.py).

It is a decider like any other: it reads the world and only submits to the ledger (source "strategy"). The team
thinks every ``PERIOD`` ticks and each unit every ``UNIT_PERIOD`` ticks, staggered, so nothing piles onto one
tick. It keeps no state of its own: everything it decides follows from the world and the ledger.
"""
from __future__ import annotations

import math

import esper
import numpy as np

from components import Ammo, Building, Position, ResourceField, Team, UnitKind, Worker
from game.economy import (available, missing_requirements, near_key, population_cap, population_used, rally_point,
                          site_problem, turned)
from systems.base import Decider

PERIOD = 15               # ticks between a team's economic decisions
UNIT_PERIOD = 10          # ticks between one army unit's decisions
ENGAGE = 10.0             # tiles: an attacking unit fights enemies this close before marching on
DEFEND = 14.0             # tiles: enemies this close to a building are driven off
FIELD_REACH = 14.0        # tiles: fields this close to a drop-off are mined
SITE_RADIUS = 30          # tiles from the headquarters searched for a building site (nearest first: a full
                          # base spills outward instead of stopping at supply cap with money in the bank)
QUEUE_TARGET = 2          # trainings a strategy keeps queued per building
SOURCE = "strategy"


class StrategySystem(Decider):
    def run(self, world):
        profiles = world.content.strategies
        teams = [t for t in sorted(world.strategic_teams) if profiles.get(world.strategies[t]) is not None]
        if not teams:
            return
        # every team on the same tick, none sees the world later (a difficulty's think_every slows one team)
        slow = world.think_every
        units, workers = self._rosters(teams)
        for team in teams:
            profile = profiles[world.strategies[team]]
            view = VIEWS[profile.algorithm](world, team, profile, units[team], workers[team])
            if world.tick % (PERIOD * slow[team]) == 0:
                view.economy()
            view.army()

    _roster_memo: tuple = (None, None, None, None)

    def _rosters(self, teams: list[int]) -> tuple[dict[int, list], dict[int, list]]:
        """team -> (eid, kind, pos) of its living units, and team -> (eid, pos, worker) of its workers, ascending
        ids. Kept while esper hands out the same cached rows (it makes new ones when an entity or a component comes
        or goes; positions are the live components): the views only read them."""
        rows = esper.get_components(Team, UnitKind, Position)
        worker_rows = esper.get_component(Worker)
        memo_rows, memo_workers, memo_teams, out = self._roster_memo
        if memo_rows is rows and memo_workers is worker_rows and memo_teams == teams:
            return out
        units: dict[int, list] = {t: [] for t in teams}
        workers: dict[int, list] = {t: [] for t in teams}
        worker_of = dict(worker_rows)
        for eid, (t, kind, pos) in sorted(rows):
            mine = units.get(t.team)
            if mine is None:
                continue
            mine.append((eid, kind.kind, pos))
            w = worker_of.get(eid)
            if w is not None:
                workers[t.team].append((eid, pos, w))
        self._roster_memo = (rows, worker_rows, list(teams), (units, workers))
        return units, workers


class TeamView:
    """One team's situation this tick, and the decisions of its strategy. What only the economy needs (the
    buildings, the ledger's builds and trainings, the budget) is read when it is first asked for."""

    defend_radius = DEFEND       # tiles: enemies this close to one of its buildings are threats

    def __init__(self, world, team: int, profile, units: list, workers: list):
        self.world = world
        self.team = team
        self.p = profile
        self.units = units       # (eid, kind, pos) of living units, ascending
        self.workers = workers   # (eid, pos, worker) of workers, ascending
        self._worker_ids = {e for e, _p, _w in workers}
        self._buildings = None
        self._ledger_read = False
        self._fighters = None

    @property
    def buildings(self) -> list:
        if self._buildings is None:
            self._buildings = [(eid, b) for eid, (b, t) in sorted(esper.get_components(Building, Team))
                               if t.team == self.team]
        return self._buildings

    def _read_ledger(self) -> None:
        """The team's builds under way and trainings queued, and what it can spend."""
        building_ids = {e for e, _b in self.buildings}
        self.pending_builds: dict[str, int] = {}   # building kind -> build actions placing one now
        self.builders: dict[int, int] = {}          # worker -> site (0: a new building) it builds
        self.queued: dict[str, int] = {}            # unit kind -> trainings queued or under way
        self.sent: dict[int, int] = {}              # building -> trainings submitted to it this think (the ledger
                                                    # shows them in its queue only once it has accepted them)
        for action in self.world.ledger.active_sorted():
            if action.kind == "build" and action.actor in self._worker_ids:
                self.builders[action.actor] = action.target
                if not action.target:
                    kind = action.params.get("building", "")
                    self.pending_builds[kind] = self.pending_builds.get(kind, 0) + 1
            elif action.kind == "train" and action.actor in building_ids:
                unit = action.params.get("unit", "")
                self.queued[unit] = self.queued.get(unit, 0) + 1
        self.budget = available(self.world, self.team)
        self._ledger_read = True

    # -- the economy ------------------------------------------------------------------------------------------
    def economy(self) -> None:
        if not self.buildings:
            return
        self._read_ledger()
        self._help_unfinished()
        self._supply() or self._build_order()
        self._train_workers()
        self._train_army()
        self._rally()
        self._gather()

    def gatherers(self) -> list:
        """The workers that mine (a worker rush sends the rest to fight)."""
        if not self.p.workers_fight:
            return self.workers
        return self.workers[:self.p.workers]

    def _submit(self, kind: str, actor: int, target: int = 0, params: dict | None = None):
        return self.world.ledger.submit(self.world.tick, kind, actor, target, params or {}, source=SOURCE)

    def _count(self, kind: str) -> int:
        return sum(1 for _e, b in self.buildings if b.kind == kind) + self.pending_builds.get(kind, 0)

    def _headquarters(self) -> tuple[float, float]:
        """The centre of the team's headquarters (or another drop-off, else any building); a team that has lost
        every building falls back on where it started (its army still rallies and its workers still build there),
        and one placed nowhere in particular on the map's centre."""
        defs = self.world.content.buildings
        for _eid, b in self.buildings:
            if defs[b.kind].headquarters or defs[b.kind].drop_off:
                return b.tx + b.w / 2, b.ty + b.h / 2
        if self.buildings:
            b = self.buildings[0][1]
            return b.tx + b.w / 2, b.ty + b.h / 2
        home = self.world.home_tile(self.team)
        if home is not None:
            return home[0] + 0.5, home[1] + 0.5
        return self.world.tilemap.width / 2, self.world.tilemap.height / 2

    def _help_unfinished(self) -> None:
        worked = set(self.builders.values())
        for eid, b in self.buildings:
            if b.done or eid in worked:
                continue
            worker = self._nearest_free_worker(b.tx + b.w / 2, b.ty + b.h / 2)
            if worker is not None:
                self._submit("build", worker, eid)
                self.builders[worker] = eid

    def _supply(self) -> bool:
        world = self.world
        free = population_cap(world, self.team) - population_used(world, self.team)
        if free > self.p.supply_margin or population_cap(world, self.team) >= 200:
            return False
        if self.pending_builds.get(self.p.supply) or any(not b.done and b.kind == self.p.supply
                                                          for _e, b in self.buildings):
            return True                         # one is on its way: spend on nothing else big meanwhile
        return self._place(self.p.supply)

    def _build_order(self) -> bool:
        wanted: dict[str, int] = {}
        for kind in self.p.build:
            wanted[kind] = wanted.get(kind, 0) + 1
            if self._count(kind) < wanted[kind]:
                return self._place(kind)
        return False

    def _place(self, kind: str, site: tuple[int, int] | None = None) -> bool:
        """Send a worker to put a ``kind`` on ``site`` (default: the first free site, ``find_site``); True when that
        is under way (or must wait for money, which it then saves)."""
        world = self.world
        bdef = world.content.buildings[kind]
        if missing_requirements(world, self.team, bdef.requires):
            return False
        if self.budget < bdef.cost:
            return True
        if site is None:
            site = self.find_site(kind)
        if site is None:
            return False
        w, h = bdef.size
        worker = self._nearest_free_worker(site[0] + w / 2, site[1] + h / 2)
        if worker is None:
            return False
        self._submit("build", worker, 0, {"building": kind, "x": site[0], "y": site[1]})
        self.builders[worker] = 0
        self.pending_builds[kind] = self.pending_builds.get(kind, 0) + 1
        self.budget -= bdef.cost
        return True

    def find_site(self, kind: str, around: tuple[float, float] | None = None,
                  radius: int = SITE_RADIUS) -> tuple[int, int] | None:
        """The top-left tile of the nearest free site for ``kind`` within ``radius`` tiles of ``around`` (default:
        the headquarters): open floor with no unit on it, a free ring of one tile round it (so lanes stay open), no
        field within two tiles (so mining lanes stay open) and clear of the army's rally point. Distances and ties
        are taken between footprint centres and turned with the team's quarter of the map, so mirrored bases pick
        mirrored sites."""
        world = self.world
        nav = world.nav
        w, h = world.content.buildings[kind].size
        hx, hy = self._headquarters() if around is None else around
        k = world.turns[self.team]
        fields = [(f.tx, f.ty) for _e, f in esper.get_component(ResourceField)]
        blocked = set()
        for _e, b in esper.get_component(Building):
            for y in range(b.ty - 1, b.ty + b.h + 1):
                for x in range(b.tx - 1, b.tx + b.w + 1):
                    blocked.add((x, y))
        for _e, (pos, _kind) in esper.get_components(Position, UnitKind):
            blocked.add((int(pos.x), int(pos.y)))
        rx0, ry0 = self.rally_spot()
        for y in range(int(ry0) - 2, int(ry0) + 3):
            for x in range(int(rx0) - 2, int(rx0) + 3):
                blocked.add((x, y))
        candidates = []
        for y in range(int(hy) - radius, int(hy) + radius + 1):
            for x in range(int(hx) - radius, int(hx) + radius + 1):
                ox, oy = x + w / 2 - hx, y + h / 2 - hy
                d2 = ox * ox + oy * oy
                if d2 < 9 or d2 > radius * radius:
                    continue
                for _ in range(k):                       # ties broken the same way in every quarter
                    ox, oy = oy, -ox
                candidates.append((d2, oy, ox, x, y))
        candidates.sort()
        for _d2, _oy, _ox, x, y in candidates:
            ring = [(xx, yy) for yy in range(y - 1, y + h + 1) for xx in range(x - 1, x + w + 1)]
            if any(t in blocked or not nav.is_walkable(*t) for t in ring):
                continue
            if any(x - 2 <= fx < x + w + 2 and y - 2 <= fy < y + h + 2 for fx, fy in fields):
                continue
            if site_problem(world, kind, x, y, units=False) is None:
                return x, y
        return None

    def _turned(self, dx: float, dy: float) -> tuple[float, float]:
        """An offset turned into the top-left quarter's frame, so mirrored bases break ties the same way."""
        hx, hy = self._headquarters()
        return turned(dx, dy, self.world.turns[self.team])

    def _nearest_free_worker(self, x: float, y: float) -> int | None:
        best = None
        for eid, pos, _w in self.gatherers():
            if eid in self.builders:
                continue
            dx, dy = pos.x - x, pos.y - y
            key = (near_key(dx * dx + dy * dy),) + self._turned(round(dx, 6), round(dy, 6)) + (eid,)
            if best is None or key < best:
                best = key
        return None if best is None else best[-1]

    def _trainers(self, unit: str) -> list[int]:
        """Complete buildings of the team that train ``unit`` and have room in the strategy's queue target."""
        world = self.world
        defs = world.content.buildings
        out = []
        for eid, b in self.buildings:
            if b.done and unit in defs[b.kind].trains and \
                    len(world.ledger.queue_of(eid, "production")) + self.sent.get(eid, 0) < QUEUE_TARGET:
                out.append(eid)
        return out

    def _train(self, unit: str) -> bool:
        world = self.world
        udef = world.content.units[unit]
        if self.budget < udef.cost or missing_requirements(world, self.team, udef.requires):
            return False
        trainers = self._trainers(unit)
        if not trainers:
            return False
        self._submit("train", trainers[0], 0, {"unit": unit})
        self.sent[trainers[0]] = self.sent.get(trainers[0], 0) + 1
        self.queued[unit] = self.queued.get(unit, 0) + 1
        self.budget -= udef.cost
        return True

    def _worker_kind(self) -> str | None:
        defs = self.world.content.buildings
        for _eid, b in self.buildings:
            for unit in defs[b.kind].trains:
                if self.world.content.units[unit].worker is not None:
                    return unit
        return None

    def _train_workers(self) -> None:
        kind = self._worker_kind()
        if kind is None:
            return
        target = self.p.max_army if self.p.workers_fight else self.p.workers
        if len(self.workers) + self.queued.get(kind, 0) < target:
            self._train(kind)

    def army_units(self) -> list:
        """(eid, pos) of the units that fight: every non-worker, and the workers a rush sends (worked out once per
        view; callers only read it)."""
        if self._fighters is None:
            fighters = [(e, pos) for e, kind, pos in self.units if e not in self._worker_ids]
            if self.p.workers_fight:
                fighters += [(e, pos) for e, pos, _w in self.workers[self.p.workers:]]
            self._fighters = sorted(fighters)
        return self._fighters

    def _train_army(self) -> None:
        mix = self.p.army
        if not mix:
            return
        order, size = self.train_order(mix)
        if size >= self.p.max_army:
            return
        for unit in order:
            if self._train(unit):
                return

    def train_order(self, mix: dict) -> tuple[list[str], int]:
        """The unit types of the army ``mix``, the one the army (living and queued) is furthest below its share
        of first (ties: the smaller id), and the army's size so counted."""
        counts: dict[str, int] = {}
        for _e, kind, _p in self.units:
            counts[kind] = counts.get(kind, 0) + 1
        size = sum(counts.get(k, 0) + self.queued.get(k, 0) for k in mix)
        total = sum(mix.values())
        order = sorted(mix, key=lambda k: ((counts.get(k, 0) + self.queued.get(k, 0)) - mix[k] / total * (size + 1), k))
        return order, size

    def rally_spot(self) -> tuple[float, float]:
        """Between the headquarters and the map's centre, four tiles out: where the army waits."""
        world = self.world
        hx, hy = self._headquarters()
        mx, my = world.tilemap.width / 2, world.tilemap.height / 2
        d = math.hypot(mx - hx, my - hy) or 1.0
        x, y = hx + (mx - hx) / d * 6, hy + (my - hy) / d * 6
        from game.scenario import free_tiles_near
        spots = free_tiles_near(world, int(x), int(y), 1, set(), turn=world.turns[self.team])
        return (spots[0][0] + 0.5, spots[0][1] + 0.5) if spots else (hx, hy)

    def _rally(self) -> None:
        defs = self.world.content.buildings
        for eid, b in self.buildings:
            if b.done and defs[b.kind].trains and rally_point(self.world, eid) is None and \
                    self.world.ledger.current(eid, "rally") is None:
                x, y = self.rally_spot()
                self._submit("set_rally", eid, 0, {"x": x, "y": y})

    def _gather(self) -> None:
        world = self.world
        ledger = world.ledger
        defs = world.content.buildings
        drops = [b for _e, b in self.buildings if b.done and defs[b.kind].drop_off]
        if not drops:
            return
        fields = []
        for fid, f in sorted(esper.get_component(ResourceField)):
            near = min(((f.tx + 0.5 - (d.tx + d.w / 2)) ** 2 + (f.ty + 0.5 - (d.ty + d.h / 2)) ** 2) for d in drops)
            if near <= FIELD_REACH * FIELD_REACH:
                fields.append([fid, f, f.slots - ledger.held_amount(("field", fid))])
        for eid, pos, worker in self.gatherers():
            if eid in self.builders or ledger.current(eid) is not None:
                continue
            if worker.carrying >= worker.capacity:
                self._submit("return", eid)
                continue
            best = None
            for entry in fields:
                fid, f, free = entry
                if free <= 0:
                    continue
                dx, dy = f.tx + 0.5 - pos.x, f.ty + 0.5 - pos.y
                key = (near_key(dx * dx + dy * dy),) + self._turned(round(dx, 6), round(dy, 6))   # ties: turned
                if best is None or key < best[0]:
                    best = (key, fid, entry)
            if best is None:
                if worker.carrying:
                    self._submit("return", eid)
                continue
            best[2][2] -= 1
            self._submit("gather", eid, best[1])

    # -- the army ---------------------------------------------------------------------------------------------
    def army(self) -> None:
        world = self.world
        tick = world.tick
        fighters = self.army_units()
        if not fighters:
            return
        attacking = self.attacking(len(fighters))
        ledger = world.ledger
        rally = None
        threats = None
        period = UNIT_PERIOD * world.think_every[self.team]
        # staggered by the unit's place in its army, the same on every side
        thinking = [(eid, pos) for i, (eid, pos) in enumerate(fighters) if not (i + tick) % period]
        if not thinking:
            return
        nearest = world.nearest_enemies(self.team, [p.x for _e, p in thinking], [p.y for _e, p in thinking])
        nearest_any = None                                  # units or buildings: asked for when first needed
        for k, (eid, pos) in enumerate(thinking):
            current = ledger.current(eid)
            ammo = esper.try_component(eid, Ammo)
            if ammo is not None and ammo.clip <= 0:
                if ammo.reserve > 0:
                    if current is None or current.kind != "reload":
                        self._submit("reload", eid)
                elif current is None or current.kind != "move":      # shot dry: home to rearm
                    if rally is None:
                        rally = self.rally_spot()
                    self._submit("move", eid, 0, {"x": rally[0], "y": rally[1]})
                continue
            if current is not None and current.kind in ("reload", "build"):
                continue
            near = nearest[k]
            if attacking:
                if near is not None and near[1] <= ENGAGE * ENGAGE:
                    target = near[0]
                else:
                    if nearest_any is None:
                        nearest_any = world.nearest_enemies(self.team, [p.x for _e, p in thinking],
                                                            [p.y for _e, p in thinking], buildings=True)
                    target = (nearest_any[k] or near or (0, 0))[0]
                if not target:                              # none in sight or known: look where they should be
                    if current is None or current.kind != "attack_move":
                        spot = world.fog.hunt_point(self.team, pos.x, pos.y)
                        if spot is not None:
                            self._submit("attack_move", eid, 0, {"x": spot[0], "y": spot[1]})
                    continue
                if target and not (current is not None and current.kind == "attack" and current.target == target):
                    if current is None or current.kind != "attack" or near is not None and \
                            near[1] <= ENGAGE * ENGAGE and current.target != near[0]:
                        self._submit("attack", eid, target)
                continue
            if threats is None:
                threats = self._threats()
            if threats:
                target = min(threats, key=lambda t: ((t[1] - pos.x) ** 2 + (t[2] - pos.y) ** 2, t[0]))[0]
                if current is None or current.kind != "attack" or current.target != target:
                    self._submit("attack", eid, target)
                continue
            if current is None:
                if rally is None:
                    rally = self.rally_spot()
                if (pos.x - rally[0]) ** 2 + (pos.y - rally[1]) ** 2 > 16.0:
                    self._submit("move", eid, 0, {"x": rally[0], "y": rally[1]})

    def attacking(self, size: int) -> bool:
        """Whether the army attacks now: once it is ``attack_at`` units strong."""
        return size >= self.p.attack_at

    def _threats(self) -> list[tuple[int, float, float]]:
        """Enemy units the team sees within ``defend_radius`` tiles of one of its buildings (one numpy pass: enemies x
        buildings)."""
        if not self.buildings:
            return []
        rects = np.array([(b.tx, b.ty, b.tx + b.w, b.ty + b.h) for _e, b in self.buildings], dtype=np.float64)
        out = []
        for other, (ids, xs, ys) in sorted(self.world.seen_index(self.team).items()):
            if not self.world.enemies(self.team, other) or not len(ids):
                continue
            dx = np.maximum(np.maximum(rects[None, :, 0] - xs[:, None], 0.0), xs[:, None] - rects[None, :, 2])
            dy = np.maximum(np.maximum(rects[None, :, 1] - ys[:, None], 0.0), ys[:, None] - rects[None, :, 3])
            near = ((dx * dx + dy * dy) <= self.defend_radius ** 2).any(axis=1)
            out += [(int(ids[i]), float(xs[i]), float(ys[i])) for i in np.flatnonzero(near)]
        return out


#: a strategy profile's ``algorithm`` -> the class that runs a team with it (systems/strategy_planned.py adds
#: "planned"; systems/pipeline.py imports it)
VIEWS: dict[str, type] = {"scripted": TeamView}

__all__ = ["StrategySystem", "TeamView", "VIEWS"]
