"""`rts tournament`: profile A against B over many headless matches, on local worker processes or on Ray.

Game i is played with seed ``seed + i``; A commands team 0 in even games and
team 1 in odd ones, so neither profile keeps the same side of the map. The
result counts A's wins, draws and losses, with a 95% Wilson score interval on
A's win rate (and on its score rate, a draw counting half), and the wins per
side (team 0 / team 1), so a biased map or AI is visible.

A and B are commander profiles (``role="commander"``) or strategy profiles
(``role="strategy"``). Each side may have its own content layered over the
base (``mods_a`` / ``mods_b``, an A/B test of a content change): the side's
commander and strategy profiles are then read from its own layered content,
registered beside the base ones as ``NAME@A`` / ``NAME@B``; the units, maps,
brains and scenarios stay the base content's, so a side's mod may hold only
``commanders/`` and ``strategies/`` files (``check_side_mod``).

Every finished game is one JSON line in ``out`` (``--out FILE``) as soon as it
finishes; running the same tournament with the same file again plays only the
games not in it yet.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import traceback
from dataclasses import dataclass
from pathlib import Path

#: what a side's content (--mod-a / --mod-b) may change; everything else is the base content's
SIDE_KINDS = ("commanders", "strategies")


class TournamentError(Exception):
    """Bad input (a side's mod, a results file): one line for the user."""


def check_side_mod(path, flag: str) -> None:
    """A side's mod may only hold commander and strategy profiles; anything else is an error naming the file."""
    root = Path(path)
    if not root.is_dir():
        raise TournamentError(f"{flag} {path}: not a directory")
    for f in sorted(root.rglob("*")):
        if not f.is_file() or f.suffix not in (".toml", ".tmj"):
            continue
        top = f.relative_to(root).parts[0]
        if top not in SIDE_KINDS:
            raise TournamentError(f"{flag} {f}: a side's content may change only {' and '.join(SIDE_KINDS)} "
                                  f"(this file is in '{top}'); layer other changes on both sides with --mod")


def side_content(mods: tuple, mods_a: tuple, mods_b: tuple):
    """The base content (``mods``) plus each side's profiles from its own layered content, as NAME@A / NAME@B.

    Returns the base content itself when neither side has its own mods.
    """
    from game.app.backends import _content
    base = _content(mods)
    if not mods_a and not mods_b:
        return base
    commanders, strategies = dict(base.commanders), dict(base.strategies)
    digest = hashlib.blake2b(base.content_hash.encode(), digest_size=16)
    for tag, extra in (("A", mods_a), ("B", mods_b)):
        layered = _content(tuple(mods) + tuple(extra)) if extra else base
        digest.update(f"|{tag}:{layered.content_hash}".encode())
        for name, model in layered.commanders.items():
            commanders[f"{name}@{tag}"] = model
        for name, model in layered.strategies.items():
            strategies[f"{name}@{tag}"] = model
    return dataclasses.replace(base, commanders=commanders, strategies=strategies, content_hash=digest.hexdigest())


@dataclass(frozen=True)
class Setup:
    """Everything that decides a tournament's games (and keys its results file)."""
    a: str
    b: str
    scenario: str = "skirmish"
    role: str = "commander"             # or "strategy"
    mods: tuple = ()
    mods_a: tuple = ()
    mods_b: tuple = ()
    ticks: int | None = None            # cap on each game's length (None: the scenario's max_ticks)

    def key(self) -> str:
        return json.dumps([self.a, self.b, self.scenario, self.role, list(self.mods), list(self.mods_a),
                           list(self.mods_b), self.ticks])

    def job(self, seed: int, a_team: int) -> tuple:
        return (self.scenario, seed, self.a, self.b, a_team, self.role, self.mods, self.mods_a, self.mods_b,
                self.ticks)


def play_game(job: tuple) -> dict:
    """One match: a job from Setup.job -> its result (winner, length, survivors, final sync hash)."""
    scenario, seed, a, b, a_team, role, mods, mods_a, mods_b, ticks = job
    from game.world import World
    content = side_content(tuple(mods), tuple(mods_a), tuple(mods_b))
    b_team = 1 - a_team
    ab = bool(mods_a or mods_b)
    names = {a_team: f"{a}@A" if ab else a, b_team: f"{b}@B" if ab else b}
    world = World(content, scenario, seed, **{"commanders" if role == "commander" else "strategies": names})
    try:
        try:
            world.run(world.max_ticks if ticks is None else min(ticks, world.max_ticks))
        except Exception as exc:                 # a bug in a game: reported with its seed, the others play on
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{Path(frame.filename).parent.name}/{Path(frame.filename).name}:{frame.lineno}"
            return {"seed": seed, "a_team": a_team, "result": "error", "ticks": world.tick,
                    "error": f"{type(exc).__name__}: {exc} ({where})"}
        winner = world.winner
        alive = world.alive_per_team()
        return {"seed": seed, "a_team": a_team, "winner_team": winner, "ticks": world.tick,
                "result": "draw" if winner is None else ("win" if winner == a_team else "loss"),
                "a_alive": alive[a_team], "b_alive": alive[b_team], "sync_hash": world.summary()["sync_hash"]}
    finally:
        world.close()


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion.

    >>> [round(x, 3) for x in wilson(8, 10)]
    [0.49, 0.943]
    """
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def verdict(summary: dict) -> str:
    """The plain sentence of an A/B test, from the 95% interval on A's score rate (a draw counts half).

    >>> verdict({"a": "uct", "b": "uct", "games": 10, "score_rate_ci95": [0.1, 0.4]})
    'B (uct) is stronger than A (uct) at 95% confidence'
    >>> verdict({"a": "x", "b": "y", "games": 4, "score_rate_ci95": [0.2, 0.9]})
    'no significant difference after 4 games'
    """
    lo, hi = summary["score_rate_ci95"]
    if hi < 0.5:
        return f"B ({summary['b']}) is stronger than A ({summary['a']}) at 95% confidence"
    if lo > 0.5:
        return f"A ({summary['a']}) is stronger than B ({summary['b']}) at 95% confidence"
    return f"no significant difference after {summary['games']} games"


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
        out = {"a": self.a, "b": self.b, "scenario": self.scenario, "games": n, "wins": wins, "draws": draws,
               "losses": losses, "win_rate": round(wins / n, 4) if n else 0.0,
               "win_rate_ci95": [round(lo, 4), round(hi, 4)],
               "score_rate": round((wins + 0.5 * draws) / n, 4) if n else 0.0,
               "score_rate_ci95": [round(slo, 4), round(shi, 4)],
               "mean_ticks": round(sum(g["ticks"] for g in self.games) / n, 1) if n else 0.0,
               "sides": side_bias(self.games), "results": self.games}
        out["verdict"] = verdict(out)
        return out


def side_bias(games: list) -> dict:
    """Wins per side: games won by team 0 and team 1 overall, and A's wins on each side.

    >>> side_bias([{"a_team": 0, "winner_team": 0, "result": "win"}, {"a_team": 1, "winner_team": 0, "result": "loss"}])
    {'team0_wins': 2, 'team1_wins': 0, 'draws': 0, 'a_wins_as_team0': 1, 'a_wins_as_team1': 0, 'a_games_as_team0': 1, 'a_games_as_team1': 1}
    """
    return {"team0_wins": sum(g["winner_team"] == 0 for g in games),
            "team1_wins": sum(g["winner_team"] == 1 for g in games),
            "draws": sum(g["winner_team"] is None for g in games),
            "a_wins_as_team0": sum(g["result"] == "win" and g["a_team"] == 0 for g in games),
            "a_wins_as_team1": sum(g["result"] == "win" and g["a_team"] == 1 for g in games),
            "a_games_as_team0": sum(g["a_team"] == 0 for g in games),
            "a_games_as_team1": sum(g["a_team"] == 1 for g in games)}


def read_results(path, keys: set) -> dict:
    """Finished games in a results file: {(match key, seed, a_team): result}. A cut-off last line is ignored
    (the run that wrote it was stopped mid-write); any other bad line is an error naming it."""
    done = {}
    p = Path(path)
    if not p.exists():
        return done
    try:
        lines = p.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise TournamentError(f"{path}: cannot read: {exc}") from None
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            key, res = rec["match"], rec["result"]
            seed, a_team = res["seed"], res["a_team"]
        except (ValueError, KeyError, TypeError):
            if i == len(lines) - 1:
                break                                    # the last line, cut short by an interrupted run
            raise TournamentError(f"{path}:{i + 1}: not a tournament result line") from None
        if key in keys:
            done[(key, seed, a_team)] = res
    return done


def run_many(setups: list, games: int, seed: int = 1, workers: int | None = None, backend: str = "local",
             address: str | None = None, out=None, progress: bool = True, desc: str = "games") -> list[list]:
    """Play ``games`` games of every setup (all of them in one pool); returns each setup's results by seed.

    Results already in ``out`` are kept and not replayed; new ones are appended as they finish. A game that
    raises (a bug) does not stop the others: once all are played, ``TournamentError`` names the crashed games
    (seed, side, tick, the exception and where), which are not written to ``out``.
    """
    from game.app.backends import run_jobs
    keys = [s.key() for s in setups]
    done = read_results(out, set(keys)) if out else {}
    wanted = [(k, s, seed + i, i % 2) for k, s in zip(keys, setups) for i in range(games)]
    jobs = [(k, s.job(sd, at)) for k, s, sd, at in wanted if (k, sd, at) not in done]
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(wanted), initial=len(wanted) - len(jobs), desc=desc, unit="game", leave=False)
    fh = None
    crashed: list = []
    try:
        if out and jobs:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            data = Path(out).read_bytes() if Path(out).exists() else b""
            fh = open(out, "a", encoding="utf-8")
            if data and not data.endswith(b"\n"):      # drop a line cut short by an interrupted run
                fh.truncate(data.rfind(b"\n") + 1)
                fh.seek(0, 2)
        for i, res in run_jobs(play_game, [j for _k, j in jobs], backend=backend, workers=workers, address=address):
            key = jobs[i][0]
            if res["result"] == "error":             # not saved: a rerun (the bug fixed) plays it again
                crashed.append(res)
                if bar:
                    bar.update()
                continue
            done[(key, res["seed"], res["a_team"])] = res
            if fh:
                fh.write(json.dumps({"match": key, "result": res}, sort_keys=True) + "\n")
                fh.flush()
            if bar:
                bar.update()
    finally:
        if fh:
            fh.close()
        if bar:
            bar.close()
    if crashed:
        crashed.sort(key=lambda r: (r["seed"], r["a_team"]))
        saved = f"the other games are saved in {out}, " if out else ""
        first = crashed[0]
        raise TournamentError(
            f"{len(crashed)} of {len(wanted)} games crashed ({saved}a rerun plays only what is missing); first: seed "
            f"{first['seed']} (A as team {first['a_team']}) at tick {first['ticks']}: {first['error']}; seeds: "
            + ", ".join(str(r["seed"]) for r in crashed[:20]) + (" ..." if len(crashed) > 20 else ""))
    return [[done[(k, sd, at)] for kk, _s, sd, at in wanted if kk == k] for k in keys]


def run(a: str, b: str, games: int, scenario: str = "skirmish", seed: int = 1, workers: int | None = None,
        mods=(), progress: bool = True, backend: str = "local", address: str | None = None, out=None,
        mods_a=(), mods_b=(), ticks: int | None = None, role: str = "commander") -> Summary:
    setup = Setup(a, b, scenario, role, tuple(str(m) for m in mods), tuple(str(m) for m in mods_a),
                  tuple(str(m) for m in mods_b), ticks)
    (results,) = run_many([setup], games, seed, workers, backend, address, out, progress, desc=f"{a} vs {b}")
    return Summary(a, b, scenario, results)
