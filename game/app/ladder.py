"""`rts ladder`: the scripted stand-in for a human (game/app/standin.py) against the AI at each difficulty level.

Game i of a level is played with seed ``seed + i``; the stand-in plays team 0 in even games and team 1 in odd
ones, so neither side of the map is favoured. Each level's row gives the stand-in's wins, draws and losses, its
win rate with a 95% Wilson interval, and its wins per side. The AI's win rate is the rest: easy should lose
to the stand-in often, hard should beat it most of the time.
"""
from __future__ import annotations

import os
from multiprocessing import get_context

from game.app.tournament import wilson

_CONTENT = None


def _init(mods: list[str]) -> None:
    global _CONTENT
    from content.loader import load_content
    from game.app.process import tune_gc
    tune_gc()
    _CONTENT = load_content(mods)


def play_game(job: tuple) -> dict:
    """(scenario, seed, level, stand-in's team, tick limit or None) -> the game's result."""
    scenario, seed, level, team, ticks = job
    from game.app.standin import StandIn
    from game.world import World
    teams = len(_CONTENT.scenarios[scenario].teams)
    world = World(_CONTENT, scenario, seed, controllers={team: "player"}, commanders={team: ""},
                  difficulties={t: level for t in range(teams) if t != team})
    try:
        limit = min(world.max_ticks, ticks) if ticks else world.max_ticks
        player = StandIn(world, team)
        while not world.over and world.tick < limit:
            player.act()
            world.step()
        if not world.over:
            world.max_ticks = world.tick
            world.step()                                      # decided by score at the limit
        winner = world.winner
        return {"level": level, "seed": seed, "team": team, "winner_team": winner, "ticks": world.tick,
                "result": "draw" if winner is None else ("win" if winner == team else "loss")}
    finally:
        world.close()


def summarize(level: str, games: list[dict]) -> dict:
    n = len(games)
    wins = sum(g["result"] == "win" for g in games)
    draws = sum(g["result"] == "draw" for g in games)
    lo, hi = wilson(wins, n)
    per_side = {}
    for g in games:
        side = per_side.setdefault(str(g["team"]), [0, 0])
        side[0] += g["result"] == "win"
        side[1] += 1
    return {"level": level, "games": n, "standin_wins": wins, "draws": draws, "standin_losses": n - wins - draws,
            "standin_win_rate": round(wins / n, 4) if n else 0.0, "standin_win_rate_ci95": [round(lo, 4), round(hi, 4)],
            "standin_wins_per_side": per_side,
            "mean_ticks": round(sum(g["ticks"] for g in games) / n, 1) if n else 0.0}


def run(levels: list[str], games: int, scenario: str = "skirmish", seed: int = 1, workers: int | None = None,
        mods: list[str] = (), ticks: int | None = None, progress: bool = True) -> list[dict]:
    jobs = [(scenario, seed + i, level, i % 2, ticks) for level in levels for i in range(games)]
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
    results = []
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(jobs), desc="ladder", unit="game", leave=False)
    if workers == 1:
        _init(list(mods))
        for job in jobs:
            results.append(play_game(job))
            if bar:
                bar.update()
    else:
        with get_context("fork").Pool(workers, initializer=_init, initargs=(list(mods),)) as pool:
            for res in pool.imap_unordered(play_game, jobs):
                results.append(res)
                if bar:
                    bar.update()
    if bar:
        bar.close()
    return [summarize(level, sorted((r for r in results if r["level"] == level), key=lambda r: r["seed"]))
            for level in levels]
