"""Process-wide setup shared by every entry point that runs matches (the `rts` command, tournament workers,
the benchmarks). It lives apart from the CLI so that those entry points do not import each other."""
from __future__ import annotations

import gc

#: allocations (less deallocations) of objects the collector tracks between two young passes, in a tuned process
YOUNG_THRESHOLD = 1_000_000

_collect_after_jobs = False


def tune_gc() -> None:
    """Collect the youngest generation every 1,000,000 allocations instead of CPython's 700, and free each job's
    garbage when the job ends (``after_job``).

    A match makes no cyclic garbage (every scenario, played for thousands of ticks with the collector off, then a
    full pass: nothing unreachable), so a young pass inside a match finds nothing and costs what is alive in the
    youngest generation: in a 10,000-unit battle, every NPC decision record and ledger action made since the last
    pass, 130-190 ms a pass (ARCHITECTURE.md, performance notes). CPython counts allocations *less* deallocations,
    and records replace records, so at 100,000 such a pass came about every 130 ticks there; at 1,000,000 about
    every thousand. The threshold holds no memory a match would free: what a pass would find is only garbage made
    outside the match (the window makes about a hundred cyclic objects a second). A finished match is such garbage
    (its world's objects point at each other), so the processes that play one match after another free it after
    each (``after_job``). The application owns its process, so it sets this once at start-up (tests and library
    users keep CPython's default).
    """
    global _collect_after_jobs
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)
    _collect_after_jobs = True


def after_job() -> None:
    """A job of a worker (a match played, a replay verified) has ended and dropped its world: in a tuned process,
    one full collection frees that world, which is cyclic garbage. Without it the finished matches piled up until
    the collector's rare oldest-generation pass (six 600-tick ``army_2000`` games in one worker: 226 -> 434 MB,
    about 42 MB a game, all of it found by a full pass at the end)."""
    if _collect_after_jobs:
        gc.collect()
