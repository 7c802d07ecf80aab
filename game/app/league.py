"""`rts league`: a round robin over profiles (and content variants) with Bradley-Terry ratings and intervals.

An entrant is a commander or strategy profile, optionally with its own content
layered on (``PROFILE:DIR``, e.g. ``uct:mods/deeper`` against plain ``uct``); its
games against every other entrant are a tournament (game/app/tournament.py),
so they run on either backend, resume from ``--out`` and show side bias.

Ratings are a Bradley-Terry fit (minorization-maximization, Hunter 2004) on
the Elo scale: ``P(i beats j) = 1 / (1 + 10 ** ((r_j - r_i) / 400))``, ratings
centred on 0. A draw counts half a win to each side, and every pair gets one
virtual draw so a clean sweep has a finite rating. The 95% intervals are the
2.5th and 97.5th percentiles of the ratings refit on 200 bootstrap resamples of
the games (each pairing's games resampled with replacement, a seeded RNG, so
the same games give the same intervals).

>>> r = bradley_terry(2, {(0, 1): [1.0, 1.0, 1.0, 0.0]})
>>> round(r[0] - r[1])
147
"""
from __future__ import annotations

import json
import math

import numpy as np

BOOTSTRAP = 200


def parse_entrant(text: str) -> tuple[str, tuple]:
    """``PROFILE`` or ``PROFILE:DIR`` -> (profile, extra mods).

    >>> parse_entrant("uct"), parse_entrant("uct:mods/deep")
    (('uct', ()), ('uct', ('mods/deep',)))
    """
    name, sep, mod = text.partition(":")
    return name, ((mod,) if sep and mod else ())


def bradley_terry(n: int, scores: dict, iterations: int = 200) -> list[float]:
    """Ratings (Elo scale, mean 0) of ``n`` entrants from {(i, j): [i's score in each game: 1, 0.5 or 0]}."""
    wins = np.zeros((n, n))
    for (i, j), games in scores.items():
        s = float(sum(games))
        wins[i, j] += s + 0.5                    # one virtual draw per pair
        wins[j, i] += len(games) - s + 0.5
    played = wins + wins.T
    strength = np.ones(n)
    total = wins.sum(axis=1)
    for _ in range(iterations):
        denom = np.array([sum(played[i, j] / (strength[i] + strength[j]) for j in range(n) if j != i)
                          for i in range(n)])
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1), strength)
        new /= math.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - strength)) < 1e-10:
            strength = new
            break
        strength = new
    ratings = 400 * np.log10(strength)
    return [float(r) for r in ratings - ratings.mean()]


def fit(n: int, scores: dict, seed: int = 0) -> tuple[list[float], list[list[float]]]:
    """Ratings and their bootstrap 95% intervals."""
    ratings = bradley_terry(n, scores)
    rng = np.random.Generator(np.random.PCG64(seed))
    samples = []
    pairs = sorted(scores)
    for _ in range(BOOTSTRAP):
        resampled = {}
        for p in pairs:
            games = scores[p]
            resampled[p] = [games[k] for k in rng.integers(0, len(games), len(games))] if games else []
        samples.append(bradley_terry(n, resampled, iterations=100))
    arr = np.array(samples)
    lo, hi = np.percentile(arr, 2.5, axis=0), np.percentile(arr, 97.5, axis=0)
    return ratings, [[float(a), float(b)] for a, b in zip(lo, hi)]


def summarize(entrants: list[str], pair_results: dict) -> dict:
    """{(i, j): tournament results (A = i)} -> the league table as a dict (rows sorted best first)."""
    from game.app.tournament import Summary
    n = len(entrants)
    scores = {}
    for (i, j), games in pair_results.items():
        scores[(i, j)] = [1.0 if g["result"] == "win" else 0.5 if g["result"] == "draw" else 0.0 for g in games]
    ratings, intervals = fit(n, scores)
    rows = []
    for k, name in enumerate(entrants):
        got = sum(sum(s) if i == k else len(s) - sum(s) for (i, j), s in scores.items() if k in (i, j))
        games = sum(len(s) for (i, j), s in scores.items() if k in (i, j))
        rows.append({"entrant": name, "rating": round(ratings[k], 1),
                     "rating_ci95": [round(intervals[k][0], 1), round(intervals[k][1], 1)],
                     "score": got, "games": games})
    rows.sort(key=lambda r: (-r["rating"], r["entrant"]))
    pairings = []
    for (i, j), games in sorted(pair_results.items()):
        d = Summary(entrants[i], entrants[j], "", games).as_dict()
        d.pop("results")
        d.pop("scenario")
        pairings.append(d)
    all_games = [g for games in pair_results.values() for g in games]
    return {"entrants": entrants, "table": rows, "pairings": pairings,
            "sides": {"team0_wins": sum(g["winner_team"] == 0 for g in all_games),
                      "team1_wins": sum(g["winner_team"] == 1 for g in all_games),
                      "draws": sum(g["winner_team"] is None for g in all_games)},
            "method": f"Bradley-Terry (Elo scale, mean 0; a draw is half a win; one virtual draw per pair); "
                      f"95% intervals from {BOOTSTRAP} bootstrap resamples of the games"}


def run(specs: list[str], games: int, scenario: str = "skirmish", seed: int = 1, workers: int | None = None,
        mods=(), backend: str = "local", address: str | None = None, out=None, ticks: int | None = None,
        role: str = "commander", progress: bool = True) -> dict:
    from game.app.tournament import Setup, run_many
    parsed = [parse_entrant(s) for s in specs]
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    base = tuple(str(m) for m in mods)
    setups = [Setup(parsed[i][0], parsed[j][0], scenario, role, base, parsed[i][1], parsed[j][1], ticks)
              for i, j in pairs]
    results = run_many(setups, games, seed, workers, backend, address, out, progress, desc="league")
    summary = summarize(list(specs), dict(zip(pairs, results)))
    summary.update(scenario=scenario, games_per_pairing=games, seed=seed, ticks=ticks)
    return summary


def table_lines(summary: dict) -> list[str]:
    width = max(8, *(len(r["entrant"]) for r in summary["table"]))
    out = [f"{'#':>2}  {'entrant':<{width}} {'rating':>7}  {'95% interval':<17} {'score':>7}"]
    for k, r in enumerate(summary["table"], 1):
        lo, hi = r["rating_ci95"]
        out.append(f"{k:>2}  {r['entrant']:<{width}} {r['rating']:>7.0f}  {f'{lo:.0f} .. {hi:.0f}':<17} "
                   f"{r['score']:>4g}/{r['games']}")
    s = summary["sides"]
    out.append(f"sides: team 0 won {s['team0_wins']}, team 1 won {s['team1_wins']}, {s['draws']} drawn")
    return out


def write_chart(summary: dict, path: str) -> None:
    """A PNG (or SVG/PDF) of each entrant's rating with its interval."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = list(reversed(summary["table"]))
    fig, ax = plt.subplots(figsize=(7, 1 + 0.5 * len(rows)))
    try:
        y = range(len(rows))
        ax.errorbar([r["rating"] for r in rows], list(y),
                    xerr=[[r["rating"] - r["rating_ci95"][0] for r in rows],
                          [r["rating_ci95"][1] - r["rating"] for r in rows]], fmt="o", capsize=4)
        ax.set_yticks(list(y), [r["entrant"] for r in rows])
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_xlabel("rating (Elo scale) with 95% bootstrap interval")
        ax.set_title(f"league on {summary['scenario']}, {summary['games_per_pairing']} games per pairing")
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)


def dumps(summary: dict) -> str:
    return json.dumps(summary, sort_keys=True)
