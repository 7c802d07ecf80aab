"""Headless simulation throughput, reported against a baseline measured in the same run.

For each army size the skirmish is re-spawned with that many units (spawn
groups scaled in proportion) and run headless; the baseline is a bare esper
world with the same entities and the same component queries doing trivial
work, so the ratio shows what the game logic costs on this machine today.

Armies (sizes of 1,000 units and more): the ``army_N`` scenario (brains and UCT
commanders on the garrison map; another size scales the nearest one, and a size
that cannot be placed is refused) run on the batched brain path and on the
per-NPC reference path (``world.batch_brains = False``) in lockstep (two worlds
stepped in turn, so the machine's load falls on both alike): ticks/s,
mean and p99 tick time, and where a tick's time goes per system; beside them the
floor, a bare numpy pass doing the same nearest-enemy distance queries.

    rts bench [--suite sim|saves|all] [--units 50 200 1000] [--ticks 600] [--json]
    python -m benchmarks ...
"""
from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib
import json
import re
import sys
import time

import esper

from benchmarks import SUITES
from components import Ammo, Health, Mover, Position, Team, Weapon
from content.loader import Content, load_content
from game.world import World

TARGETS = {1000: 60.0, 200: 300.0}   # ticks/s the foundation issue asks for
ARMY_TARGETS = {1000: 300.0, 10000: 30.0}   # ticks/s issue 20 asks for: brains and commanders, one core



def scaled_content(content: Content, total: int, ai: str | None = None,
                   commander: str | None = None) -> tuple[Content, str]:
    """The skirmish re-spawned with ``total`` units (spawn groups scaled in proportion); ``ai`` overrides every
    team's controller ('scripted', 'brain', ...), ``commander`` every team's commander profile ('' = none)."""
    base = content.scenarios["skirmish"]
    per_team = total // len(base.teams)
    teams = []
    for t, team in enumerate(base.teams):
        weights = [sp.count for sp in team.spawns]
        counts = [per_team * w // sum(weights) for w in weights]
        counts[0] += per_team - sum(counts)
        spawns = [sp.model_copy(update={"count": max(1, c)}) for sp, c in zip(team.spawns, counts)]
        update = {"spawns": spawns}
        if ai is not None:
            update["ai"] = ai
        if commander is not None:
            update["commander"] = commander
        teams.append(team.model_copy(update=update))
    sid = f"bench_{total}" + (f"_{ai}" if ai else "") + (f"_{commander or 'nocmd'}" if commander is not None else "")
    scenario = base.model_copy(update={"id": sid, "teams": teams, "max_ticks": 10_000_000})
    scenarios = dict(content.scenarios)
    scenarios[sid] = scenario
    return dataclasses.replace(content, scenarios=scenarios), sid


def measure_sim(content: Content, sid: str, ticks: int, seed: int = 1) -> dict:
    world = World(content, sid, seed)
    units = sum(world.alive_per_team())
    try:
        start = time.perf_counter()
        world.run(ticks)
        elapsed = time.perf_counter() - start
        return {"units": units, "ticks": world.tick, "seconds": elapsed, "tps": world.tick / elapsed,
                "alive_at_end": sum(world.alive_per_team())}
    finally:
        world.close()


class _BareProcessor(esper.Processor):
    def process(self):
        for _e, (pos, mover) in esper.get_components(Position, Mover):
            pos.x += 0.0 * mover.speed
        for _e, (weapon, _pos, _ammo) in esper.get_components(Weapon, Position, Ammo):
            if weapon.ready_in > 0:
                weapon.ready_in -= 1
        for _e, health in esper.get_component(Health):
            if health.hp <= 0.0:
                pass


def measure_baseline(units: int, ticks: int) -> dict:
    name = f"bench-baseline-{units}"
    esper.switch_world(name)
    try:
        for i in range(units):
            esper.create_entity(Position(float(i % 80), float(i // 80)), Mover(3.0), Health(100.0, 100.0),
                                Team(i % 2), Weapon(6.0, 9.0, 24), Ammo(12, 12, 48, 60))
        esper.add_processor(_BareProcessor())
        start = time.perf_counter()
        for _ in range(ticks):
            esper.process()
        elapsed = time.perf_counter() - start
        return {"ticks": ticks, "seconds": elapsed, "tps": ticks / elapsed}
    finally:
        esper.switch_world("default")
        esper.delete_world(name)


ARMY_MIN = 1000        # sizes from this many units up also get the army table


class BenchError(ValueError):
    """A measurement that cannot be made as asked (one line for the command: ``rts bench`` exits with status 2)."""


def check_request(units_list: list[int], ticks: int, warmup: int, content: Content | None = None) -> None:
    """Refuse, before anything is measured, what the army table could not measure as asked: a negative warm-up, a
    warm-up that reaches the scenario's last tick (nothing would be left to measure), or a scaled army (a size with
    no ``army_N`` scenario of its own) that its map cannot hold: each such world is made and closed to find out
    (at 10,000 units about a second; its first tick is not run). Raises ``BenchError``."""
    if warmup < 0:
        raise BenchError(f"--warmup {warmup}: expected 0 or more ticks")
    if ticks < 1:
        raise BenchError(f"--ticks {ticks}: expected at least 1 tick")
    sizes = sorted({n for n in units_list if n >= ARMY_MIN})
    if not sizes:
        return
    content = content or load_content()
    own = army_sizes(content)
    for n in sizes:
        try:
            scaled, sid = army_content(content, n)
        except ValueError as exc:
            raise BenchError(f"--units {n}: {exc}") from None
        last = scaled.scenarios[sid].max_ticks
        if 1 + warmup >= last:
            raise BenchError(f"--warmup {warmup}: the {sid} match ends at tick {last}, so at most {last - 2} "
                             f"warm-up ticks leave one to measure")
        if n not in own:
            try:
                _place_army(scaled, sid, 1)[0].close()
            except ValueError as exc:
                raise BenchError(f"--units {n}: {exc}") from None


def army_sizes(content: Content) -> list[int]:
    """The sizes of the ``army_N`` scenarios, ascending."""
    return sorted(int(sid[5:]) for sid in content.scenarios if sid.startswith("army_") and sid[5:].isdigit())


def army_content(content: Content, total: int) -> tuple[Content, str]:
    """The ``army_<total>`` scenario, or the nearest larger army scaled down to ``total`` (the largest scaled up);
    ``ValueError`` when the scaled armies cannot all be placed (see ``measure_army``)."""
    armies = army_sizes(content)
    if not armies:
        raise ValueError("no army_N scenario")
    if total in armies:
        return content, f"army_{total}"
    base_n = next((n for n in armies if n >= total), armies[-1])
    base = content.scenarios[f"army_{base_n}"]
    teams = []
    per_team = total // len(base.teams)
    for team in base.teams:
        k = len(team.spawns)
        counts = [per_team // k + (1 if i < per_team % k else 0) for i in range(k)]
        teams.append(team.model_copy(update={"spawns": [sp.model_copy(update={"count": c})
                                                        for sp, c in zip(team.spawns, counts) if c > 0]}))
    sid = f"army_{total}_scaled"
    scenarios = dict(content.scenarios)
    scenarios[sid] = base.model_copy(update={"id": sid, "teams": teams})
    return dataclasses.replace(content, scenarios=scenarios), sid


def _system_times(world) -> dict:
    """Wrap every processor's ``process`` to add its seconds to a dict (name -> seconds)."""
    spent: dict[str, float] = {}
    for proc in esper._processors:             # the world's processors, in tick order
        inner = proc.process
        name = type(proc).__name__

        def timed(*a, _inner=inner, _name=name, **kw):
            t0 = time.perf_counter()
            _inner(*a, **kw)
            spent[_name] = spent.get(_name, 0.0) + time.perf_counter() - t0
        proc.process = timed
    return spent


class _CollectorClock:
    """The garbage collector's seconds, added as ``"collector"`` to the dict in ``into`` (the world being stepped
    then); a pass runs inside whichever system allocated last, so these seconds are also inside that system's."""

    def __init__(self):
        self.into: dict | None = None
        self._start = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        elif self.into is not None:
            self.into["collector"] = self.into.get("collector", 0.0) + time.perf_counter() - self._start

    def __enter__(self):
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self)


DECISIONS = "decisions"      # _PhaseClock's count of NPC decisions (Brain.think calls), beside its seconds


class _PhaseClock:
    """Seconds spent in the parts of the brains' tick, added per phase to the dict in ``into`` (the world being
    stepped then): perception (``Perception.facts_batch``: facts of every NPC deciding this tick), scoring
    (``BatchScorer.score`` and ``scores_for``), deciding (``Brain.think``: selector, HFSM and tree), the calm test
    (``Calm``) and records (``DecisionLog.add``); the brains' time less these is choosing who decides and the
    rest. The methods are wrapped while the clock is entered (the classes', so every world's count) and put back
    on exit; nothing a match decides depends on it."""

    def __init__(self):
        from ai.batch import BatchScorer
        from ai.brain import Brain
        from ai.records import DecisionLog
        from systems.brains import Calm
        from systems.perception import Perception
        self.into: dict | None = None
        self._wrapped = [(Perception, "facts_batch", "perception"), (Perception, "_cover_batch", "cover"),
                         (BatchScorer, "score", "scoring"), (BatchScorer, "scores_for", "scoring"),
                         (Brain, "think", "deciding"), (Calm, "many", "calm test"),
                         (DecisionLog, "add", "records")]
        self._saved: list = []

    def __enter__(self):
        for cls, name, phase in self._wrapped:
            inner = cls.__dict__[name]
            self._saved.append((cls, name, inner))

            def timed(*a, _inner=inner, _phase=phase, **kw):
                t0 = time.perf_counter()
                try:
                    return _inner(*a, **kw)
                finally:
                    if self.into is not None:
                        self.into[_phase] = self.into.get(_phase, 0.0) + time.perf_counter() - t0
                        if _phase == "deciding":          # one NPC's decision: counted, for the time per decision
                            self.into[DECISIONS] = self.into.get(DECISIONS, 0) + 1
            setattr(cls, name, timed)
        return self

    def __exit__(self, *exc):
        for cls, name, inner in reversed(self._saved):
            setattr(cls, name, inner)
        self._saved.clear()


def _place_army(content: Content, sid: str, seed: int) -> tuple[World, int]:
    """A new world of the scenario and its units; ValueError (the world closed) when not every unit it asks for was
    placed."""
    world = World(content, sid, seed)
    want = sum(sp.count for team in world.scenario.teams for sp in team.spawns)
    units = sum(world.alive_per_team())
    if units != want:
        world.close()
        raise ValueError(f"scenario '{sid}' asks for {want} units but only {units} fit on its map")
    return world, units


def _open_army(content: Content, sid: str, batched: bool, seed: int) -> tuple:
    """A world of the scenario, its first tick run (the region cut); refused when not every unit was placed."""
    t0 = time.perf_counter()
    world, units = _place_army(content, sid, seed)
    world.batch_brains = batched
    world.run(1)
    return world, units, time.perf_counter() - t0


def _summary(world, units: int, setup: float, times: list, spent: dict, phases: dict | None = None) -> dict:
    if not times:                           # (the match ended in the warm-up: by elimination, before its last tick)
        raise BenchError(f"the match ended at tick {world.tick}, before the first measured tick: ask for fewer "
                         f"--warmup ticks")
    total = sum(times)
    times = sorted(times)
    return {"units": units, "ticks": len(times), "setup_s": round(setup, 2), "tps": round(len(times) / total, 2),
            "mean_ms": round(1000 * total / len(times), 2),
            "p99_ms": round(1000 * times[min(len(times) - 1, int(0.99 * len(times)))], 2),
            "max_ms": round(1000 * times[-1], 2),
            "systems_ms": {k: round(1000 * v / len(times), 2) for k, v in sorted(spent.items(), key=lambda kv: -kv[1])
                           if k != "collector"},
            "collector_ms": round(1000 * spent.get("collector", 0.0) / len(times), 2),
            "brains_ms": {k: round(1000 * v / len(times), 2) for k, v in (phases or {}).items() if k != DECISIONS},
            "decisions_per_tick": round((phases or {}).get(DECISIONS, 0) / len(times), 1),
            "sync_hash": world.summary()["sync_hash"]}


def measure_army(content: Content, sid: str, ticks: int, batched: bool, seed: int = 1, warmup: int = 0) -> dict:
    """Ticks/s, mean and p99 tick time of ``ticks`` ticks after the first (which cuts the map into regions) and
    ``warmup`` more (e.g. past the armies setting out, when every walker plans its path)."""
    world, units, setup = _open_army(content, sid, batched, seed)
    try:
        world.run(warmup)
        world.activate()
        spent = _system_times(world)
        times = []
        with _CollectorClock() as clock:
            clock.into = spent
            for _ in range(ticks):
                if world.over:
                    break
                t = time.perf_counter()
                world.step()
                times.append(time.perf_counter() - t)
        return _summary(world, units, setup, times, spent)
    finally:
        world.close()


#: ticks in each chunk of ``measure_lockstep`` (each world runs one or two chunks before the other's turn)
LOCKSTEP_CHUNK = 10


def measure_lockstep(content: Content, sid: str, ticks: int, seed: int = 1, warmup: int = 0) -> tuple[dict, dict]:
    """``measure_army`` for the batched and the per-NPC path at once: two worlds of the same match stepped in
    turn in chunks of ``LOCKSTEP_CHUNK`` ticks (which goes first alternates from chunk to chunk, so after the first
    chunk each world runs two chunks at a time), so that the machine's load falls on both alike. (Stepped tick by
    tick, two worlds of 10,000 units evicted each other's objects from the caches on every tick: the batched world
    took 91-93 ms a tick there against about 66 alone; a user runs one world.)"""
    worlds = []
    try:
        for batched in (True, False):
            worlds.append(_open_army(content, sid, batched, seed))
        for _ in range(warmup):
            for world, _u, _s in worlds:
                world.step()
        spent = []
        for world, _u, _s in worlds:
            world.activate()
            spent.append(_system_times(world))
        times: list[list] = [[], []]
        phases: list[dict] = [{}, {}]
        with _CollectorClock() as clock, _PhaseClock() as phase_clock:
            for start in range(0, ticks, LOCKSTEP_CHUNK):
                for k in ((0, 1) if (start // LOCKSTEP_CHUNK) % 2 == 0 else (1, 0)):
                    clock.into = spent[k]
                    phase_clock.into = phases[k]
                    world = worlds[k][0]
                    for _ in range(min(LOCKSTEP_CHUNK, ticks - start)):
                        if world.over:                  # (the same match: both end on the same tick)
                            break
                        t = time.perf_counter()
                        world.step()
                        times[k].append(time.perf_counter() - t)
        return tuple(_summary(w, u, s, times[k], spent[k], phases[k]) for k, (w, u, s) in enumerate(worlds))
    finally:
        for world, _u, _s in worlds:
            world.close()


def measure_floor(units: int, ticks: int, think_every: int = 6, seed: int = 1) -> dict:
    """The floor: per tick, a sixth of the units find their 6 nearest enemies by numpy distances (nothing else)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    xs, ys = rng.uniform(0, 157, units), rng.uniform(0, 116, units)
    half = units // 2
    times = []
    for tick in range(ticks):
        t = time.perf_counter()
        for team in (0, 1):
            lo, hi = (0, half) if team == 0 else (half, units)
            elo, ehi = (half, units) if team == 0 else (0, half)
            mine = np.arange(lo + tick % think_every, hi, think_every)
            for c in range(0, len(mine), 256):
                rows = mine[c:c + 256]
                d2 = (xs[rows, None] - xs[None, elo:ehi]) ** 2 + (ys[rows, None] - ys[None, elo:ehi]) ** 2
                np.argpartition(d2, 6, axis=1)[:, :6]
        times.append(time.perf_counter() - t)
    total = sum(times)
    return {"tps": round(ticks / total, 1), "mean_ms": round(1000 * total / ticks, 3)}


def measure_paths(content: Content, sid: str = "army_2000", searches: int = 200, seed: int = 1) -> dict:
    """Path searches on the army map between random open tiles (the turn each walker's start gives): the C
    search (``PathGraph``, tcod) against the same rule in Python (``astar``), which must return the same paths."""
    import random

    from ai.pathfinding import PathGraph, astar
    world = World(content, sid, seed)
    try:
        nav = world.nav
        walk, w, h = list(nav.walkable), nav.width, nav.height
    finally:
        world.close()
    cells = [i for i, ok in enumerate(walk) if ok]
    rnd = random.Random(seed)
    pairs = [((a % w, a // w), (b % w, b // w), k % 4) for k, (a, b) in enumerate(rnd.sample(cells, 2)
                                                                                  for _ in range(searches))]
    graph = PathGraph(walk, w, h)
    graph.use_jit = False               # the search itself, walked back in Python as astar does
    graph.path(*pairs[0][:2])           # the graph is built on the first search of a grid state; timed apart
    t0 = time.perf_counter()
    built = PathGraph(walk, w, h)
    built.use_jit = False
    built.path(*pairs[0][:2])
    build_ms = 1000 * (time.perf_counter() - t0)
    t0 = time.perf_counter()
    fast = [graph.path(s, g, turn=k) for s, g, k in pairs]
    c_ms = 1000 * (time.perf_counter() - t0) / searches
    t0 = time.perf_counter()
    slow = [astar(walk, w, h, s, g, turn=k) for s, g, k in pairs]
    py_ms = 1000 * (time.perf_counter() - t0) / searches
    # a walker's whole route as the game asks for it (``PathGraph.route``): the search, the walk back and the
    # waypoints; with ai.paths_jit's compiled walk back and smoothing in one call (the `fast` extra) and with the
    # Python loops, on the same C search
    compiled = PathGraph(walk, w, h)
    compiled.path(*pairs[0][:2])
    routes = {}
    for name, g in (("compiled", compiled), ("python", graph)):
        t0 = time.perf_counter()
        out = [g.route(s, e, turn=k) for s, e, k in pairs]
        routes[name] = (1000 * (time.perf_counter() - t0) / searches, out)
    return {"map": f"{w}x{h}", "searches": searches, "c_ms": round(c_ms, 3), "python_ms": round(py_ms, 3),
            "speedup": round(py_ms / c_ms, 1), "same_paths": fast == slow, "graph_build_ms": round(build_ms, 2),
            "route_ms": round(routes["compiled"][0], 3), "route_python_loops_ms": round(routes["python"][0], 3),
            "routes_compiled": compiled._compiled() is not None,
            "same_routes": routes["compiled"][1] == routes["python"][1]}


def run_armies(units_list: list[int], ticks: int, warmup: int = 0) -> list[dict]:
    content = load_content()
    rows = []
    for n in units_list:
        if n < ARMY_MIN:
            continue
        scaled, sid = army_content(content, n)
        batched, ref = measure_lockstep(scaled, sid, ticks, warmup=warmup)
        rows.append({"units": batched["units"], "scenario": sid, "warmup": warmup, "batched": batched, "per_npc": ref,
                     "speedup": round(batched["tps"] / ref["tps"], 2),
                     "same_hash": batched["sync_hash"] == ref["sync_hash"] and batched["ticks"] == ref["ticks"],
                     "floor": measure_floor(n, ticks), "target_tps": ARMY_TARGETS.get(n),
                     "meets_target": None if n not in ARMY_TARGETS else batched["tps"] >= ARMY_TARGETS[n]})
    return rows


def print_armies(rows: list[dict]) -> None:
    print(f"{'units':>6} {'ticks':>6} {'ticks/s':>8} {'mean ms':>8} {'p99 ms':>8} {'per-NPC ticks/s':>16} "
          f"{'p99 ms':>8} {'speedup':>8} {'hash':>5} {'floor ticks/s':>14} {'target':>10}")
    for r in rows:
        b, p, f = r["batched"], r["per_npc"], r["floor"]
        target = "-" if r["target_tps"] is None else f"{r['target_tps']:.0f} {'ok' if r['meets_target'] else 'MISS'}"
        print(f"{r['units']:>6} {b['ticks']:>6} {b['tps']:>8.2f} {b['mean_ms']:>8.1f} {b['p99_ms']:>8.1f} "
              f"{p['tps']:>16.2f} {p['p99_ms']:>8.1f} {r['speedup']:>7.2f}x {'same' if r['same_hash'] else 'DIFF':>5} "
              f"{f['tps']:>14.1f} {target:>10}")
    for r in rows:
        print(f"  {r['units']} units: first tick with the region cut {r['batched']['setup_s']:.1f} s; measured after "
              f"{r['warmup']} more ticks; {r['batched']['decisions_per_tick']:.0f} NPC decisions a tick")
    print_breakdown(rows)


#: the brains' phases in ``breakdown``, as ``_PhaseClock`` names them, with their labels
BRAIN_PHASES = (("perception", "perception (facts of those deciding)"), ("cover", "of it the cover search"),
                ("calm test", "the calm test"), ("deciding", "deciding (selector, HFSM, tree)"),
                ("scoring", "scoring"), ("records", "records"))


def breakdown(rows: list[dict]) -> list[tuple[str, list[float]]]:
    """Where each millisecond of the batched world's mean tick goes, one column per army size (``run_armies``'
    rows): the tick, the brains and their phases (``_PhaseClock``'s: the actuators' submits and status reads are
    inside deciding, and records count every record kept, the commanders' and reflexes' too; the brains' rest is
    choosing who decides and making each decision's actuator), every other system (largest first in the largest
    army's column), the time between the systems, and the collector (whose passes lie inside the systems that ran
    them); then decisions a tick and the brains' microseconds per decision.

    >>> r = {"batched": {"mean_ms": 5.0, "systems_ms": {"BrainSystem": 3.0, "LedgerSystem": 1.5},
    ...      "brains_ms": {"perception": 1.0, "cover": 0.25, "deciding": 1.5}, "collector_ms": 0.0,
    ...      "decisions_per_tick": 50}}
    >>> [(label, v[0]) for label, v in breakdown([r])][:4]
    [('the whole tick (mean)', 5.0), ('brains', 3.0), ('  perception (facts of those deciding)', 1.0), ('    of it the cover search', 0.25)]
    >>> [(label, v[0]) for label, v in breakdown([r])][-5:]
    [('ledger', 1.5), ('between the systems', 0.5), ('the collector (inside the systems)', 0.0), ('decisions a tick', 50), ('brains per decision (us)', 60.0)]
    """
    batched = [r["batched"] for r in rows]
    out: list[tuple[str, list[float]]] = [("the whole tick (mean)", [b["mean_ms"] for b in batched]),
                                          ("brains", [b["systems_ms"].get("BrainSystem", 0.0) for b in batched])]
    for key, label in BRAIN_PHASES:
        if any(key in b["brains_ms"] for b in batched):
            out.append(("    " + label if key == "cover" else "  " + label,
                        [b["brains_ms"].get(key, 0.0) for b in batched]))
    out.append(("  choosing who decides, the rest",
                [round(b["systems_ms"].get("BrainSystem", 0.0)
                       - sum(v for k, v in b["brains_ms"].items() if k != "cover"), 2) for b in batched]))
    largest = max(range(len(rows)), key=lambda i: rows[i].get("units", 0))
    others = sorted({k for b in batched for k in b["systems_ms"] if k != "BrainSystem"},
                    key=lambda k: (-batched[largest]["systems_ms"].get(k, 0.0), k))
    for name in others:
        label = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name.removesuffix("System")).lower()     # BrainInbox: brain inbox
        out.append((label, [b["systems_ms"].get(name, 0.0) for b in batched]))
    out.append(("between the systems", [round(b["mean_ms"] - sum(b["systems_ms"].values()), 2) for b in batched]))
    out.append(("the collector (inside the systems)", [b["collector_ms"] for b in batched]))
    out.append(("decisions a tick", [b["decisions_per_tick"] for b in batched]))
    out.append(("brains per decision (us)", [round(1000 * b["systems_ms"].get("BrainSystem", 0.0) / b["decisions_per_tick"], 1)
                                             if b["decisions_per_tick"] else 0.0 for b in batched]))
    return out


def print_breakdown(rows: list[dict]) -> None:
    table = breakdown(rows)
    width = max(len(label) for label, _v in table)
    print("  where the batched world's milliseconds go, per tick:")
    print(f"    {'':<{width}} " + " ".join(f"{r['units']:>9,}" for r in rows))
    for label, values in table:
        print(f"    {label:<{width}} " + " ".join(f"{v:>9.1f}" if label == "decisions a tick" else f"{v:>9.2f}"
                                                   for v in values))


def run(units_list: list[int], ticks: int) -> list[dict]:
    content = load_content()
    rows = []
    for n in units_list:
        if n > ARMY_MIN:
            continue        # the skirmish map has no room for more: bigger sizes are the army table's
        # the foundation's figure: scripted armies, no commander (as when the target was set)
        scaled, sid = scaled_content(content, n, ai="scripted", commander="")
        sim = measure_sim(scaled, sid, ticks)
        base = measure_baseline(sim["units"], ticks)
        rows.append({
            "units": sim["units"], "ticks": sim["ticks"], "sim_tps": round(sim["tps"], 1),
            "baseline_tps": round(base["tps"], 1), "ratio": round(sim["tps"] / base["tps"], 4),
            "realtime_x": round(sim["tps"] / 30.0, 2), "alive_at_end": sim["alive_at_end"],
            "target_tps": TARGETS.get(n), "meets_target": None if n not in TARGETS else sim["tps"] >= TARGETS[n],
        })
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"{'units':>6} {'ticks':>6} {'sim ticks/s':>12} {'bare esper ticks/s':>19} {'sim/bare':>9} "
          f"{'x realtime':>10} {'target':>8}")
    for r in rows:
        target = "-" if r["target_tps"] is None else f"{r['target_tps']:.0f} {'ok' if r['meets_target'] else 'MISS'}"
        print(f"{r['units']:>6} {r['ticks']:>6} {r['sim_tps']:>12.1f} {r['baseline_tps']:>19.1f} "
              f"{r['ratio']:>9.3f} {r['realtime_x']:>10.2f} {target:>8}")


def interpreter() -> dict:
    """Which Python ran the figures: its version, executable and build (the same code runs faster on a CPython built
    with profile-guided and link-time optimisation, so figures from two interpreters are not comparable)."""
    import os
    import platform
    import sys
    import sysconfig
    configured = sysconfig.get_config_var("CONFIG_ARGS") or ""
    # what the build says of itself (a distribution that builds twice may report its shared build's options only)
    flags = [name for option, name in (("--enable-optimizations", "PGO"), ("--with-lto", "LTO")) if option in configured]
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "executable": os.path.realpath(sys.executable), "build": " ".join(platform.python_build()),
            "compiler": platform.python_compiler(), "optimizations": " and ".join(flags) or "none configured"}


def main(args) -> int:
    from game.app.process import tune_gc
    tune_gc()                                  # as the game itself runs (python -m benchmarks too)
    suite = getattr(args, "suite", "all")
    if suite in ("sim", "all"):
        check_request(args.units, args.ticks, getattr(args, "warmup", 0))
    out = {"interpreter": interpreter()}
    if not args.json:
        py = out["interpreter"]
        print(f"{py['implementation']} {py['python']} ({py['build']}; {py['compiler']}; optimizations: "
              f"{py['optimizations']}) at {py['executable']}")
    if suite in ("sim", "all"):
        out["headless_ticks"] = run(args.units, args.ticks)
        if not args.json:
            print_table(out["headless_ticks"])
        out["armies"] = run_armies(args.units, args.ticks, getattr(args, "warmup", 0))
        if out["armies"] and not args.json:
            print("\narmies with brains and UCT commanders (batched brains; per-NPC = the reference path; "
                  "floor = numpy nearest-enemy queries alone):")
            print_armies(out["armies"])
        if out["armies"]:
            out["paths"] = measure_paths(load_content())
            if not args.json:
                p = out["paths"]
                print(f"  paths on the {p['map']} army map, {p['searches']} searches: C search (tcod) {p['c_ms']:.2f} "
                      f"ms, the same rule in Python {p['python_ms']:.2f} ms ({p['speedup']:.1f}x), same paths: "
                      f"{'yes' if p['same_paths'] else 'NO'}; the C graph built on a grid change "
                      f"{p['graph_build_ms']:.1f} ms")
                walked = "compiled (the fast extra)" if p["routes_compiled"] else "Python (no Numba: the same loops)"
                print(f"  a whole route (search, walk back, waypoints): {p['route_ms']:.3f} ms with the walk back "
                      f"and smoothing {walked}, {p['route_python_loops_ms']:.3f} ms with the Python loops; same "
                      f"routes: {'yes' if p['same_routes'] else 'NO'}")
    for name in SUITES[1:-1]:                    # saves, brains, ... each a module with run() and print_report()
        if suite in (name, "all"):
            module = importlib.import_module(f"benchmarks.{name}")
            out[name] = module.run()
            if not args.json:
                print()
                module.print_report(out[name])
    if args.json:
        print(json.dumps(out, sort_keys=True))
    return 0


def cli(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--units", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--ticks", type=int, default=600)
    parser.add_argument("--suite", choices=SUITES, default="all")
    parser.add_argument("--warmup", type=int, default=0, help="army table: ticks run before measuring")
    try:
        return main(parser.parse_args(argv))
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
