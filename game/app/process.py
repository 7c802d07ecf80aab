"""Process-wide setup shared by every entry point that runs matches (the `rts` command, tournament workers,
the benchmarks). It lives apart from the CLI so that those entry points do not import each other."""
from __future__ import annotations

import gc

#: allocations (less deallocations) of objects the collector tracks between two young passes, in a tuned process
YOUNG_THRESHOLD = 1_000_000


def tune_gc() -> None:
    """Collect the youngest generation every 1,000,000 allocations instead of CPython's 700.

    A match makes no cyclic garbage (every scenario, played for thousands of ticks with the collector off, then a
    full pass: nothing unreachable), so a young pass inside a match finds nothing and costs what is alive in the
    youngest generation: in a 10,000-unit battle, every NPC decision record and ledger action made since the last
    pass, 130-190 ms a pass (ARCHITECTURE.md, performance notes). CPython counts allocations *less* deallocations,
    and records replace records, so at 100,000 such a pass came about every 130 ticks there; at 1,000,000 about
    every thousand. The threshold holds no memory a match would free: what a pass could find is only garbage made
    outside a match (the window makes about a hundred cyclic objects a second; a finished match is none, since
    ``World.close`` cuts its parts' links back to it). The application owns its process, so it sets this once at
    start-up (tests and library users keep CPython's default).
    """
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)
