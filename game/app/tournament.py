"""`rts tournament`: commander profile A against B over many headless matches, in parallel worker processes.

Game i is played with seed ``seed + i``; A commands team 0 in even games and
team 1 in odd ones, so neither profile keeps the same side of the map. The
result counts A's wins, draws and losses, with a 95% Wilson score interval on
A's win rate (and on its score rate, a draw counting half).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from multiprocessing import get_context

_CONTENT = None


def _init(mods: list[str]) -> None:
    global _CONTENT
    from content.loader import load_content
    from game.app.process import tune_gc
    tune_gc()
    _CONTENT = load_content(mods)


def play_game(args: tuple) -> dict:
    """One match: (scenario, seed, a profile, b profile, a's team) -> its result."""
    scenario, seed, a, b, a_team = args
    from game.world import World
    b_team = 1 - a_team
    world = World(_CONTENT, scenario, seed, commanders={a_team: a, b_team: b})
    try:
        world.run(world.max_ticks)
        winner = world.winner
        alive = world.alive_per_team()
        return {"seed": seed, "a_team": a_team, "winner_team": winner, "ticks": world.tick,
                "result": "draw" if winner is None else ("win" if winner == a_team else "loss"),
                "a_alive": alive[a_team], "b_alive": alive[b_team]}
    finally:
        world.close()


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Summary:
    a: str
    b: str
    scenario: str
    games: list

    def as_dict(self) -> dict:
        n = len(self.games)
        wins = sum(g["result"] == "win" for g in self.games)
        draws = sum(g["result"] == "draw" for g in self.games)
        losses = n - wins - draws
        lo, hi = wilson(wins, n)
        slo, shi = wilson(wins + 0.5 * draws, n)
        return {"a": self.a, "b": self.b, "scenario": self.scenario, "games": n, "wins": wins, "draws": draws,
                "losses": losses, "win_rate": round(wins / n, 4) if n else 0.0, "win_rate_ci95": [round(lo, 4),
                                                                                                 round(hi, 4)],
                "score_rate": round((wins + 0.5 * draws) / n, 4) if n else 0.0,
                "score_rate_ci95": [round(slo, 4), round(shi, 4)],
                "mean_ticks": round(sum(g["ticks"] for g in self.games) / n, 1) if n else 0.0,
                "results": self.games}


def run(a: str, b: str, games: int, scenario: str = "skirmish", seed: int = 1, workers: int | None = None,
        mods: list[str] = (), progress: bool = True) -> Summary:
    jobs = [(scenario, seed + i, a, b, i % 2) for i in range(games)]
    workers = max(1, min(workers or os.cpu_count() or 1, games))
    results = []
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=games, desc=f"{a} vs {b}", unit="game", leave=False)
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
    results.sort(key=lambda r: r["seed"])
    return Summary(a, b, scenario, results)
