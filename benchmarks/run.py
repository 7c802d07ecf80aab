"""Headless simulation throughput, reported against a baseline measured in the same run.

For each army size the skirmish is re-spawned with that many units (spawn
groups scaled in proportion) and run headless; the baseline is a bare esper
world with the same entities and the same component queries doing trivial
work, so the ratio shows what the game logic costs on this machine today.

    rts bench [--suite sim|saves|all] [--units 50 200 1000] [--ticks 600] [--json]
    python -m benchmarks ...
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import time

import esper

from benchmarks import SUITES
from components import Ammo, Health, Mover, Position, Team, Weapon
from content.loader import Content, load_content
from game.world import World

TARGETS = {1000: 60.0, 200: 300.0}   # ticks/s the foundation issue asks for



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


def run(units_list: list[int], ticks: int) -> list[dict]:
    content = load_content()
    rows = []
    for n in units_list:
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


def main(args) -> int:
    from game.app.process import tune_gc
    tune_gc()                                  # as the game itself runs (python -m benchmarks too)
    suite = getattr(args, "suite", "all")
    out = {}
    if suite in ("sim", "all"):
        out["headless_ticks"] = run(args.units, args.ticks)
        if not args.json:
            print_table(out["headless_ticks"])
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
    return main(parser.parse_args(argv))
