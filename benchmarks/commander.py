"""Tactical search figures, each beside a baseline measured in the same run.

- abstract playouts per second on one core, 20 regions and 8 groups (a 4 x 5 grid of regions, four squads a
  side): numpy-batched playouts beside the plain-Python playout loop running the same model;
- one commander decision at the default profile (UCT, 2000 playouts) on the skirmish's real starting position,
  beside the scripted attack-nearest commander on the same position, and (with the `fast` extra) beside the same
  decision on the numpy path.

UCT's win rate against the scripted commander is measured by `rts tournament --a uct --b scripted --games 100`
(minutes, so not part of this benchmark).
"""
from __future__ import annotations

import time
import timeit

import numpy as np

from ai import tactics, tactics_jit
from ai.tactics import GroupSpec, Model, new_state

TARGETS = {"playouts_per_s": 10_000.0, "decision_ms": 10.0}      # decision: issue 20 (was 50 ms)


def grid_case():
    adjacency = []
    for i in range(20):
        x, y = i % 5, i // 5
        adjacency.append(tuple(j for j, ok in ((i - 1, x > 0), (i + 1, x < 4), (i - 5, y > 0), (i + 5, y < 3)) if ok))
    model = Model(tuple(adjacency))
    specs = [GroupSpec(f"blue{i}", 0, 300.0, 12.0) for i in range(4)] + \
            [GroupSpec(f"red{i}", 1, 300.0, 12.0) for i in range(4)]
    state = new_state([0, 5, 10, 15, 4, 9, 14, 19], [300.0] * 8)
    return model, specs, state


def bench_playouts(n: int = 4000, horizon: int = 3, policy: str = "scripted") -> dict:
    model, specs, state = grid_case()
    order = list(range(8))
    rng = np.random.default_rng(1)
    batched = min(timeit.repeat(lambda: tactics.playout_batch(model, specs, state, 0, order, 0, horizon - 1, policy,
                                                              rng, n), number=1, repeat=5))
    plain_n = max(50, n // 10)
    plain = min(timeit.repeat(lambda: [tactics.playout(model, specs, state, 0, order, 0, horizon - 1, policy, rng)
                                       for _ in range(plain_n)], number=1, repeat=3))
    return {"regions": 20, "groups": 8, "horizon": horizon, "policy": policy,
            "batched_per_s": round(n / batched), "plain_per_s": round(plain_n / plain),
            "speedup": round((n / batched) / (plain_n / plain), 1)}


def bench_decision(repeat: int = 5) -> dict:
    from content.loader import load_content
    from game.world import World
    from systems import commander
    content = load_content()
    world = World(content, "skirmish", 1)
    try:
        profile = content.commanders["uct"]
        commander.map_regions(world, profile.regions)          # the map's cut is made once per process
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            rec = commander.decide(world, 0, profile)
            times.append((time.perf_counter() - start) * 1000)
        compiled = tactics.USE_JIT and tactics_jit.available(2)
        numpy_times = []
        if compiled:                                            # the numpy path on the same position, same run
            tactics.USE_JIT = False
            try:
                for _ in range(repeat):
                    start = time.perf_counter()
                    commander.decide(world, 0, profile)
                    numpy_times.append((time.perf_counter() - start) * 1000)
            finally:
                tactics.USE_JIT = True
        scripted = content.commanders["scripted"]
        s_times = []
        for _ in range(repeat):
            start = time.perf_counter()
            commander.decide(world, 0, scripted)
            s_times.append((time.perf_counter() - start) * 1000)
        return {"profile": "uct", "playouts": rec.playouts, "decision_ms": round(min(times), 1),
                "compiled": compiled, "numpy_ms": round(min(numpy_times), 1) if numpy_times else None,
                "scripted_ms": round(min(s_times), 2), "groups": len(rec.groups)}
    finally:
        world.close()


def run() -> dict:
    return {"playouts": bench_playouts(), "decision": bench_decision()}


def print_report(r: dict) -> None:
    p, d = r["playouts"], r["decision"]
    ok = "ok" if p["batched_per_s"] >= TARGETS["playouts_per_s"] else "MISS"
    print(f"abstract playouts ({p['regions']} regions, {p['groups']} groups, horizon {p['horizon']}, {p['policy']}): "
          f"{p['batched_per_s']}/s batched, plain-Python loop {p['plain_per_s']}/s ({p['speedup']}x) "
          f"(target >= {TARGETS['playouts_per_s']:g}/s {ok})")
    ok = "ok" if d["decision_ms"] <= TARGETS["decision_ms"] else "MISS"
    path = (f"compiled playouts; the numpy path {d['numpy_ms']:.1f} ms" if d["compiled"]
            else "numpy playouts: pip install -e '.[fast]' for the compiled ones")
    print(f"commander decision (UCT, {d['playouts']} playouts, {d['groups']} squads): {d['decision_ms']:.1f} ms "
          f"({path}), scripted attack-nearest {d['scripted_ms']:.2f} ms (target <= {TARGETS['decision_ms']:g} ms {ok})")
