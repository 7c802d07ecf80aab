"""Tournament throughput per backend, where a game's time goes, and replay verification throughput.

* the same skirmish tournament (scripted vs uct_small, sides alternating) on
  the local backend and on a local Ray instance, wall time of each (Ray's
  including its start), games per hour per core, and whether every game's
  result and final sync hash are identical (target: Ray within 1.2x of local);
* where one game's time goes: a fresh Python process that imports the game,
  loading the content, and the simulation;
* replays per minute per core when verifying (``rts verify``) beside live
  matches per minute per core, on the same games.

Sizes: ``RTS_BENCH_SCALE_GAMES`` (default 20) games capped at
``RTS_BENCH_SCALE_TICKS`` ticks each (default 600, 20 s of game time; 0 = whole
matches), ``RTS_BENCH_SCALE_WORKERS`` workers (default: every core).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 1.2


def _sizes() -> tuple[int, int | None, int]:
    games = int(os.environ.get("RTS_BENCH_SCALE_GAMES", "20"))
    ticks = int(os.environ.get("RTS_BENCH_SCALE_TICKS", "600")) or None
    workers = int(os.environ.get("RTS_BENCH_SCALE_WORKERS", "0")) or (os.cpu_count() or 1)
    return games, ticks, workers


def bench_backends(games: int, ticks: int | None, workers: int) -> dict:
    from game.app.tournament import run
    out = {"games": games, "ticks_cap": ticks, "workers": workers}
    t0 = time.perf_counter()
    local = run("scripted", "uct_small", games, workers=workers, progress=False, ticks=ticks)
    out["local_s"] = time.perf_counter() - t0
    out["game_ticks"] = sum(g["ticks"] for g in local.games)
    try:
        import ray
    except ImportError:
        out["ray_s"] = None
        return out
    t0 = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    out["ray_start_s"] = time.perf_counter() - t0
    try:
        on_ray = run("scripted", "uct_small", games, workers=workers, progress=False, ticks=ticks, backend="ray")
    finally:
        ray.shutdown()
    out["ray_s"] = time.perf_counter() - t0
    key = [(g["seed"], g["winner_team"], g["ticks"], g["sync_hash"]) for g in local.games]
    out["identical"] = key == [(g["seed"], g["winner_team"], g["ticks"], g["sync_hash"]) for g in on_ray.games]
    out["ratio"] = out["ray_s"] / out["local_s"]
    return out


def bench_game_parts(ticks: int | None) -> dict:
    """One game's time: a fresh interpreter importing the game, content loading, the simulation."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import game.world, game.app.tournament"], check=True,
                   env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    process_s = time.perf_counter() - t0
    from content.loader import load_content
    from game.world import World
    t0 = time.perf_counter()
    content = load_content([])
    load_s = time.perf_counter() - t0
    world = World(content, "skirmish", 1, commanders={0: "scripted", 1: "uct_small"})
    try:
        t0 = time.perf_counter()
        world.run(world.max_ticks if ticks is None else ticks)
        sim_s = time.perf_counter() - t0
        played = world.tick
    finally:
        world.close()
    return {"process_start_s": process_s, "content_load_s": load_s, "sim_s": sim_s, "sim_ticks": played}


def bench_verify(games: int, ticks: int | None, workers: int) -> dict:
    """Record ``games`` matches, then verify them all in parallel: replays/min/core vs live matches/min/core."""
    from game.app.backends import run_jobs, verify_one
    n = max(2, min(games, 2 * workers))
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        procs = []
        for i in range(n):
            cmd = [sys.executable, "-m", "game.app.cli", "match", "--seed", str(i + 1), "--record",
                   f"{tmp}/m{i}.rtsreplay"] + (["--ticks", str(ticks)] if ticks else [])
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          env={**os.environ, "PYTHONPATH": str(root)}))
            if len(procs) >= workers:
                procs.pop(0).wait()
        for p in procs:
            p.wait()
        record_s = time.perf_counter() - t0
        jobs = [(f"{tmp}/m{i}.rtsreplay", None, False) for i in range(n)]
        t0 = time.perf_counter()
        results = [r for _i, r in run_jobs(verify_one, jobs, backend="local", workers=workers)]
        verify_s = time.perf_counter() - t0
    cores = min(workers, n)
    return {"replays": n, "all_ok": all(r["ok"] for r in results), "record_s": record_s, "verify_s": verify_s,
            "live_per_min_core": 60 * n / record_s / cores, "verify_per_min_core": 60 * n / verify_s / cores}


def run() -> dict:
    games, ticks, workers = _sizes()
    return {"backends": bench_backends(games, ticks, workers), "parts": bench_game_parts(ticks),
            "verify": bench_verify(games, ticks, workers)}


def print_report(res: dict) -> None:
    b, p, v = res["backends"], res["parts"], res["verify"]
    cap = f"capped at {b['ticks_cap']} ticks" if b["ticks_cap"] else "whole matches"
    per_core = 3600 * b["games"] / b["local_s"] / b["workers"]
    print(f"tournament: {b['games']} skirmish games (scripted vs uct_small, {cap}), {b['workers']} workers")
    print(f"  local backend {b['local_s']:.1f} s -> {per_core:.0f} games/hour/core")
    if b.get("ray_s") is None:
        print("  ray backend: not installed (pip install -e '.[cluster]')")
    else:
        ray_core = 3600 * b["games"] / b["ray_s"] / b["workers"]
        verdict = "ok" if b["ratio"] <= TARGET_RATIO else "over"
        print(f"  ray backend {b['ray_s']:.1f} s (of which starting Ray {b['ray_start_s']:.1f} s) -> "
              f"{ray_core:.0f} games/hour/core; {b['ratio']:.2f}x local (target <= {TARGET_RATIO}x: {verdict}); "
              f"results {'identical' if b['identical'] else 'DIFFERENT'}")
    print(f"one game: process start {p['process_start_s']:.2f} s, content load {p['content_load_s']:.2f} s, "
          f"simulation {p['sim_s']:.2f} s ({p['sim_ticks']} ticks, {p['sim_ticks'] / p['sim_s']:.0f} ticks/s)")
    print(f"replay verification: {v['replays']} replays, {v['verify_per_min_core']:.1f} replays/min/core vs "
          f"{v['live_per_min_core']:.1f} live matches/min/core (recording them), "
          f"{'all verified' if v['all_ok'] else 'SOME FAILED'}")
