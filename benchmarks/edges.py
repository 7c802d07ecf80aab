"""Issue 17's figures for the README: determinism across processes, chained saves, memory over a long run.

1. **Hash seeds.** The same match (scenario, seed) run headless in separate processes started with different
   ``PYTHONHASHSEED`` values: every process must print the same final sync hash (set and dict iteration order
   of strings changes with the hash seed; the simulation must never depend on it).
2. **Chained save and load.** One match run uninterrupted, and the same match saved and loaded again from the
   file every ``--every`` ticks (each leg a fresh world restored from the last snapshot): both final sync hashes
   must be equal.
3. **Memory over a long run.** One headless match of up to ``--long-ticks`` ticks, its resident set size (RSS,
   /proc/self/status) sampled every ``--sample`` ticks; flat means the last quarter's samples are within a few
   per cent of the first quarter's after the warm-up.

    python -m benchmarks.edges --long-ticks 50000

Prints one JSON object per part as it finishes (figures, not pass/fail; the README quotes them).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_kib() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def hash_seeds(scenario: str, seed: int, ticks: int, hash_seeds=(0, 1, 2, 12345)) -> dict:
    """The final sync hash of ``rts match`` in one process per PYTHONHASHSEED value."""
    hashes = {}
    for hs in hash_seeds:
        env = dict(os.environ, PYTHONHASHSEED=str(hs), PYTHONPATH=ROOT)
        out = subprocess.run([sys.executable, "-m", "game.app.cli", "match", "--scenario", scenario, "--seed",
                              str(seed), "--ticks", str(ticks), "--json"], env=env, capture_output=True, text=True,
                             check=True, cwd=ROOT)
        summary = json.loads(out.stdout)
        hashes[hs] = (summary["sync_hash"], summary["ticks"])
    return {"part": "hash_seeds", "scenario": scenario, "seed": seed, "ticks": sorted({t for _h, t in hashes.values()}),
            "hashes": {str(k): h for k, (h, _t) in hashes.items()},
            "same": len({h for h, _t in hashes.values()}) == 1}


def chained(scenario: str, seed: int, ticks: int, every: int, strategies: dict | None = None) -> dict:
    """Uninterrupted vs saved-and-loaded every ``every`` ticks: the two final sync hashes (``strategies``: team ->
    strategy profile, as ``rts match --strategy``)."""
    from content.loader import load_content
    from game.synchash import sync_hash
    from game.world import World
    from saves.snapshot import load_snapshot, save_snapshot
    content = load_content()
    world = World(content, scenario, seed, strategies=strategies)
    world.max_ticks = ticks
    try:
        while not world.over and world.tick < ticks:
            world.step()
        straight, end = sync_hash(world), world.tick
    finally:
        world.close()
    legs = 0
    with tempfile.TemporaryDirectory(prefix="edges-") as folder:
        path = os.path.join(folder, "leg.rtssave")
        world = World(content, scenario, seed, strategies=strategies)
        world.max_ticks = ticks
        while True:
            stop = min(ticks, world.tick + every)
            while not world.over and world.tick < stop:
                world.step()
            if world.over or world.tick >= ticks:
                break
            save_snapshot(world, path)
            world.close()
            world = load_snapshot(path, content)
            legs += 1
        chain, chain_end = sync_hash(world), world.tick
        world.close()
    return {"part": "chained", "scenario": scenario, "seed": seed, "every": every, "loads": legs,
            "strategies": {str(t): name for t, name in sorted((strategies or {}).items())},
            "ticks": [end, chain_end], "uninterrupted": straight, "chained": chain, "same": straight == chain}


def long_run(scenario: str, seed: int, ticks: int, sample: int, budget_s: float) -> dict:
    """RSS every ``sample`` ticks over one match of up to ``ticks`` ticks (stopped early after ``budget_s``)."""
    import gc
    from content.loader import load_content
    from game.world import World
    content = load_content()
    world = World(content, scenario, seed)
    world.max_ticks = ticks
    samples = [(0, rss_kib())]

    def size():
        """Units, buildings and kept decision records now, beside each RSS sample."""
        kept = sum(map(len, world.decisions.by_key.values()))
        return sum(world.alive_per_team()), sum(world.buildings_per_team()), kept
    sizes = [size()]
    started = time.perf_counter()
    stopped = ""
    try:
        while not world.over and world.tick < ticks:
            world.step()
            if world.tick % sample == 0:
                samples.append((world.tick, rss_kib()))
                sizes.append(size())
                if time.perf_counter() - started > budget_s:
                    stopped = f"stopped after {budget_s:.0f} s of wall time"
                    break
        end, reason = world.tick, world.end_reason or stopped
    finally:
        world.close()
    gc.collect()
    warm = [r for t, r in samples if t >= min(end // 4, 3000)]
    q = max(1, len(warm) // 4)
    first, last = warm[:q], warm[-q:]
    return {"part": "memory", "scenario": scenario, "seed": seed, "ticks": end, "ended": reason,
            "seconds": round(time.perf_counter() - started, 1), "samples": len(samples),
            "rss_mib_start": round(samples[0][1] / 1024, 1), "rss_mib_peak": round(max(r for _t, r in samples) / 1024, 1),
            "rss_mib_first_quarter": round(sum(first) / len(first) / 1024, 1),
            "rss_mib_last_quarter": round(sum(last) / len(last) / 1024, 1),
            "growth_last_vs_first": round(sum(last) / len(last) / (sum(first) / len(first)), 3),
            "trace": [[t, round(r / 1024, 1), *size_]
                      for (t, r), size_ in zip(samples, sizes)][:: max(1, len(samples) // 20)],
            "trace_columns": ["tick", "rss_mib", "units", "buildings", "decision_records"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.edges", description=__doc__.splitlines()[0])
    p.add_argument("--parts", default="hash_seeds,chained,memory")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--econ-ticks", type=int, default=6000, help="ticks of econ_duel for parts 1-2 (default 6000)")
    p.add_argument("--every", type=int, default=300, help="ticks between saves in part 2 (default 300)")
    p.add_argument("--long-scenario", default="econ_highlands")
    p.add_argument("--long-ticks", type=int, default=50_000)
    p.add_argument("--sample", type=int, default=500, help="ticks between RSS samples (default 500)")
    p.add_argument("--budget", type=float, default=600.0, help="wall seconds the long run may take (default 600)")
    args = p.parse_args(argv)
    parts = args.parts.split(",")
    if "hash_seeds" in parts:
        for scenario, ticks in (("skirmish", 9000), ("econ_duel", args.econ_ticks)):
            print(json.dumps(hash_seeds(scenario, args.seed, ticks)), flush=True)
    if "chained" in parts:
        for scenario, ticks in (("skirmish", 9000), ("econ_duel", args.econ_ticks)):
            print(json.dumps(chained(scenario, args.seed, ticks, args.every)), flush=True)
        # the planned strategy AIs (their plans are decider state saved beside the world)
        print(json.dumps(chained("econ_duel", args.seed, args.econ_ticks, args.every,
                                 {0: "ai_balanced", 1: "ai_rush"})), flush=True)
    if "memory" in parts:
        print(json.dumps(long_run(args.long_scenario, args.seed, args.long_ticks, args.sample, args.budget)),
              flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
