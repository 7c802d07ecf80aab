"""Fog of war figures, each beside a baseline measured in the same run.

A generated 128x96 map with wall blocks, four teams with 10 buildings each in its corners and 100 riflemen each
round its centre, in sight of each other (400 units, 40 buildings: the armies fight, so the same things happen
with and without fog and the difference is the fog's cost), played by the scripted AI for ``TICKS`` ticks twice in one process, the two runs taking turns of ``CHUNK`` ticks:
with fog of war and with the scenario's ``fog = false``. Reported: the cost of one fog update (all four teams' visibility,
explored ground and memories, ``game/fog.py``), the mean over the updates of the measured run, beside the cost of
one simulation tick, and the tick rate with fog against the rate without it (the target: within 15%, i.e. a ratio
of at least 0.85). The fog updates every 6 ticks, so its share of a tick is a sixth of its cost.

Times are this process's CPU time (``time.process_time``), so other work on a shared machine does not tilt the
ratio. The whole measurement is made ``ROUNDS`` times on fresh worlds; the worlds are deterministic, so a chunk
of ticks does the same work in every round, and its time is taken as the least over the rounds (the rest is
interference: a burst of load, a cache flushed by another process), and the objects built before the clock
starts are frozen out of the garbage collector's passes. The rates and the ratio are the sums of
those least times; each round's own ratio is reported beside them, to show the spread.
"""
from __future__ import annotations

import gc
import tempfile
import time
from pathlib import Path

TICKS = 300
ROUNDS = 5                  # whole measurements; each chunk's least time over them is kept
WARMUP = 30                 # ticks both worlds play before the clock starts
CHUNK = 30                  # ticks each world plays before the other's turn
TARGET_RATIO = 0.85
CLOCK = time.process_time
W, H = 128, 96
CORNERS = [(12, 12), (W - 13, 12), (W - 13, H - 13), (12, H - 13)]


def _map_rows() -> list[str]:
    rows = [["." for _ in range(W)] for _ in range(H)]
    for x in range(W):
        rows[0][x] = rows[H - 1][x] = "#"
    for y in range(H):
        rows[y][0] = rows[y][W - 1] = "#"
    # wall blocks on a lattice, point-symmetric, clear of the corners where the teams start
    for by in range(27, H - 27, 12):
        for bx in range(28, W - 28, 14):
            for y in range(by, by + 3):
                for x in range(bx, bx + 5):
                    rows[y][x] = "#"
                    rows[H - 1 - y][W - 1 - x] = "#"
    return ["".join(r) for r in rows]


def _mod(root: Path) -> Path:
    (root / "maps").mkdir(parents=True)
    (root / "scenarios").mkdir()
    starts = ", ".join(f"[{x}, {y}]" for x, y in CORNERS)
    (root / "maps" / "fogbench.toml").write_text(
        f'id = "fogbench"\nstarts = [{starts}]\ntiles = \'\'\'\n' + "\n".join(_map_rows()) + "\n'''\n")
    for fog in (True, False):
        teams = []
        for t, (cx, cy) in enumerate(CORNERS):
            sx = 1 if cx < W // 2 else -1
            sy = 1 if cy < H // 2 else -1
            buildings = ", ".join(f'{{ building = "depot", at = [{cx + sx * (2 + 3 * (i % 5))}, '
                                  f'{cy + sy * (6 + 3 * (i // 5))}] }}' for i in range(10))
            teams.append(f'[[teams]]\nname = "T{t}"\ncolor = [{40 + 50 * t}, 100, 200]\nai = "scripted"\nside = {t}\n'
                         f'start = {t}\nbuildings = [{buildings}]\n'
                         f'spawns = [{{ unit = "rifleman", count = 100, at = [{W // 2 - sx * 2}, {H // 2 - sy * 2}] }}]\n')
        (root / "scenarios" / f"fogbench_{'on' if fog else 'off'}.toml").write_text(
            f'id = "fogbench_{"on" if fog else "off"}"\nmap = "fogbench"\nfog = {"true" if fog else "false"}\n'
            f'max_ticks = 100000\n\n' + "\n".join(teams))
    return root


def _census(world) -> tuple[int, int]:
    import esper
    from components import Building, UnitKind
    world.activate()
    return len(esper.get_component(UnitKind)), len(esper.get_component(Building))


def _timed_fog(world) -> list:
    """Time every fog update of ``world`` from now on: returns the list the seconds of each are appended to."""
    spent: list[float] = []
    update = world.fog.update

    def timed() -> None:
        start = CLOCK()
        update()
        spent.append(CLOCK() - start)
    world.fog.update = timed
    return spent


def _round(content, ticks: int, chunk: int) -> dict:
    """One measurement: fresh worlds with and without fog, advancing in turns of ``chunk`` ticks, so a burst of
    load on a shared machine slows both alike."""
    from game.world import World
    worlds = {"on": World(content, "fogbench_on", 1), "off": World(content, "fogbench_off", 1)}
    try:
        units, buildings = _census(worlds["on"])
        # the first fog update casts every viewer's rays (a one-time cost, like loading the map): reported
        # apart, then both worlds play WARMUP ticks before the steady rates are measured
        worlds["on"].activate()
        start = CLOCK()
        worlds["on"].fog.update()
        first = CLOCK() - start
        for world in worlds.values():
            world.activate()
            world.run(WARMUP)
        updates = _timed_fog(worlds["on"])
        # what both worlds built so far is kept out of the collector's passes (gc.freeze): a full pass over two
        # worlds' objects, landing in one world's chunk or the other's by allocation count, swung a round's ratio
        # by +-0.1; the collector still runs over what the measured ticks allocate
        gc.collect()
        gc.freeze()
        spent: dict[str, list[float]] = {"on": [], "off": []}      # seconds of each chunk
        done = 0
        while done < ticks:
            step = min(chunk, ticks - done)
            for name in ("on", "off") if (done // chunk) % 2 == 0 else ("off", "on"):
                world = worlds[name]
                world.activate()
                start = CLOCK()
                world.run(step)
                spent[name].append(CLOCK() - start)
            done += step
        alive = _census(worlds["on"])[0]
    finally:
        gc.unfreeze()
        for world in worlds.values():
            world.close()
    return {"units": units, "buildings": buildings, "alive_at_end": alive, "first": first,
            "update": sum(updates) / max(1, len(updates)), "on": spent["on"], "off": spent["off"],
            "ratio": sum(spent["off"]) / sum(spent["on"])}


def run(ticks: int = TICKS, chunk: int = CHUNK, rounds: int = ROUNDS) -> dict:
    """``rounds`` measurements of ``ticks`` ticks each way. The worlds are deterministic, so each chunk of ticks
    does the same work in every round: its time is the least over the rounds (as ``timeit`` advises: the rest is
    other work on the machine), and the rates and their ratio are those sums."""
    from content.loader import load_content
    from game.world import World
    with tempfile.TemporaryDirectory() as tmp:
        content = load_content([_mod(Path(tmp) / "fogbench")])
        warm = World(content, "fogbench_off", 1)               # warm caches and imports
        warm.activate()
        warm.run(30)
        warm.close()
        measured = [_round(content, ticks, chunk) for _ in range(rounds)]
    on = sum(min(times) for times in zip(*(r["on"] for r in measured)))
    off = sum(min(times) for times in zip(*(r["off"] for r in measured)))
    ratio = off / on
    mid = sorted(measured, key=lambda r: r["update"])[len(measured) // 2]
    return {"map": f"{W}x{H}", "teams": 4, "units": mid["units"], "buildings": mid["buildings"],
            "alive_at_end": mid["alive_at_end"], "ticks": ticks, "rounds": rounds,
            "round_ratios": sorted(round(r["ratio"], 3) for r in measured),
            "fog_update_ms": round(mid["update"] * 1000, 3), "first_update_ms": round(mid["first"] * 1000, 1),
            "tick_ms_without_fog": round(off / ticks * 1000, 3),
            "tick_ms_with_fog": round(on / ticks * 1000, 3), "tps_with_fog": round(ticks / on, 1),
            "tps_without_fog": round(ticks / off, 1), "rate_ratio": round(ratio, 3),
            "meets_target": ratio >= TARGET_RATIO}


def print_report(out: dict) -> None:
    ok = "ok" if out["meets_target"] else "MISS"
    print(f"fog: {out['map']} map, {out['teams']} teams, {out['units']} units ({out['alive_at_end']} alive at the end), "
          f"{out['buildings']} buildings, {out['ticks']} ticks each way")
    print(f"  one fog update (every 6 ticks) {out['fog_update_ms']} ms beside one tick {out['tick_ms_without_fog']} ms "
          f"without fog; the first update (every viewer's rays cast once) {out['first_update_ms']} ms")
    print(f"  {out['tps_with_fog']} ticks/s with fog, {out['tps_without_fog']} without: ratio {out['rate_ratio']} "
          f"(each chunk's least time over {out['rounds']} rounds; each round's own ratio: {out['round_ratios']}) "
          f"(target >= {TARGET_RATIO}) [{ok}]")
