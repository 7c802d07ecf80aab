"""Economy figures, each beside a baseline measured in the same run.

- **A macro mirror in real time**: two scripted macro opponents on the large map (econ_highlands) for ten
  minutes of game time (18,000 ticks), headless on one core: ticks per second as a multiple of real time (the
  target is 20x), with the peak numbers of units and buildings on the map (the target's match reaches 150 and
  30). Beside it, the firefight skirmish (scripted armies) run for the same ticks in the same process, so a slow
  machine shows as a lower baseline too.
- **The planned AI in real time**: the same map and ticks with the planned strategy AIs on both sides
  (``ai_balanced`` against ``ai_rush``: their posture choice, HTN plans, workers' thinking and armies), as a
  multiple of real time beside the scripted mirror's in the same run (the target is 10x).
- **Placing a building updates the grid in place**: blocking a 3x3 footprint (and freeing it again) on the
  match's nav grid (its tiles, and the path cache dropped), beside rebuilding the grid from the map and every
  building and field with its walkable areas, as a naive host would; the areas (connected components, which
  perception and `reachable` read) are relabelled lazily, on the next query after a change, and that cost is
  reported on its own.
"""
from __future__ import annotations

import time
import timeit

TARGETS = {"realtime_x": 20.0, "units": 150, "buildings": 30, "ai_realtime_x": 10.0}
#: the planned strategy AIs of the AI match (team -> strategy profile)
AI_STRATEGIES = {0: "ai_balanced", 1: "ai_rush"}


def bench_match(ticks: int = 18_000, scenario: str = "econ_highlands", seed: int = 1,
                strategies: dict | None = None) -> dict:
    """``strategies``: team -> strategy profile (the scenario's scripted ones by default)."""
    from content.loader import load_content
    from game.world import World
    content = load_content()
    world = World(content, scenario, seed, strategies=strategies)
    peak_units = peak_buildings = 0
    try:
        start = time.perf_counter()
        while world.tick < ticks and not world.over:
            world.step()
            if world.tick % 150 == 0:
                peak_units = max(peak_units, sum(world.alive_per_team()))
                peak_buildings = max(peak_buildings, sum(world.buildings_per_team()))
        elapsed = time.perf_counter() - start
        played = world.tick
        summary = world.summary()
    finally:
        world.close()
    firefight = World(content, "skirmish", seed, controllers={0: "scripted", 1: "scripted"},
                      commanders={0: "", 1: ""})
    try:
        start = time.perf_counter()
        firefight.run(min(ticks, 3000))
        base_elapsed = time.perf_counter() - start
        base_ticks = firefight.tick
    finally:
        firefight.close()
    tps = played / elapsed
    return {"scenario": scenario, "strategies": list(world.strategies), "ticks": played, "seconds": round(elapsed, 2), "tps": round(tps, 1),
            "realtime_x": round(tps / 30.0, 1), "peak_units": peak_units, "peak_buildings": peak_buildings,
            "winner": summary["winner"], "reason": summary["reason"],
            "firefight_tps": round(base_ticks / base_elapsed, 1),
            "meets_target": tps / 30.0 >= TARGETS["realtime_x"] and peak_units >= TARGETS["units"]
            and peak_buildings >= TARGETS["buildings"] if ticks >= 18_000 else None}


def bench_grid(scenario: str = "econ_highlands") -> dict:
    from components import Building, ResourceField
    from content.loader import load_content
    from game.economy import footprint_tiles
    from game.navgrid import NavGrid
    from game.world import World
    import esper
    content = load_content()
    world = World(content, scenario, 1)
    try:
        world.run(2400)                                   # a base with a few buildings and mined fields
        nav = world.nav
        spot = next((x, y) for y in range(nav.height // 2, nav.height - 3) for x in range(nav.width // 3, nav.width - 3)
                    if all(nav.is_walkable(xx, yy) for xx, yy in footprint_tiles(x, y, 3, 3)))
        tiles = footprint_tiles(*spot, 3, 3)

        def place_and_free():
            nav.set_blocked(tiles, True)
            nav.set_blocked(tiles, False)

        def areas():
            nav.version += 1                              # as after a change: the next query relabels the areas
            nav.component(0, 0)

        world.activate()
        buildings = [b for _e, b in esper.get_component(Building)]
        fields = {(f.tx, f.ty) for _e, f in esper.get_component(ResourceField)}

        def rebuild():
            fresh = NavGrid(world.tilemap)
            for b in buildings:
                fresh.set_blocked(footprint_tiles(b.tx, b.ty, b.w, b.h), True)
            mined = [(x, y) for y, row in enumerate(world.tilemap.rows) for x, ch in enumerate(row)
                     if ch == "$" and (x, y) not in fields]
            fresh.set_blocked(mined, False)
            fresh.component(0, 0)
            return fresh

        assert rebuild().walkable == nav.walkable
        incremental = min(timeit.repeat(place_and_free, number=200, repeat=5)) / 400
        relabel = min(timeit.repeat(areas, number=5, repeat=5)) / 5
        full = min(timeit.repeat(rebuild, number=5, repeat=5)) / 5
    finally:
        world.close()
    return {"map": world.tilemap.id, "size": f"{world.tilemap.width}x{world.tilemap.height}",
            "buildings": len(buildings), "update_ms": round(incremental * 1000, 4),
            "areas_ms": round(relabel * 1000, 3), "rebuild_ms": round(full * 1000, 3),
            "ratio": round(full / incremental, 1)}


def run() -> dict:
    return {"match": bench_match(), "ai_match": bench_match(strategies=AI_STRATEGIES), "grid": bench_grid()}


def print_report(out: dict) -> None:
    m, g = out["match"], out["grid"]
    ok = {True: "ok", False: "MISS", None: "-"}[m["meets_target"]]
    print(f"economy: {m['scenario']} macro mirror, {m['ticks']} ticks in {m['seconds']} s = {m['tps']} ticks/s, "
          f"{m['realtime_x']}x real time (target {TARGETS['realtime_x']:g}x) [{ok}]")
    print(f"  peak {m['peak_units']} units (target {TARGETS['units']}), {m['peak_buildings']} buildings "
          f"(target {TARGETS['buildings']}); result: {m['winner'] or 'draw'} ({m['reason'] or 'not over'}); "
          f"baseline: the scripted skirmish runs {m['firefight_tps']} ticks/s in this process")
    a = out.get("ai_match")
    if a is not None:
        ok = "ok" if a["realtime_x"] >= TARGETS["ai_realtime_x"] else "MISS"
        print(f"  the planned AIs ({' vs '.join(a['strategies'])}) on the same map: {a['ticks']} ticks in "
              f"{a['seconds']} s = {a['tps']} ticks/s, {a['realtime_x']}x real time (target "
              f"{TARGETS['ai_realtime_x']:g}x) [{ok}], {round(a['tps'] / m['tps'], 2)}x the scripted mirror's rate; "
              f"peak {a['peak_units']} units, {a['peak_buildings']} buildings; result: {a['winner'] or 'draw'} "
              f"({a['reason'] or 'not over'})")
    print(f"  placing or destroying a building on the {g['size']} grid ({g['buildings']} buildings): "
          f"{g['update_ms']} ms in place ({g['ratio']}x faster than rebuilding the grid, {g['rebuild_ms']} ms); "
          f"the walkable areas are relabelled when next asked for, {g['areas_ms']} ms")
