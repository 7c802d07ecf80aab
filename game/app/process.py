"""Process-wide setup shared by every entry point that runs matches (the `rts` command, tournament workers,
the benchmarks). It lives apart from the CLI so that those entry points do not import each other."""
from __future__ import annotations

import gc


def tune_gc() -> None:
    """Collect the youngest generation every 100,000 allocations instead of CPython's 700.

    NPC decisions allocate many short-lived records; the default threshold cost a fifth of a 1000-NPC tick. In a
    10,000-unit battle a young pass costs what is alive in the youngest generation and what it points at: the
    NPCs' latest decision records (each NPC keeps two, replaced as it decides, so they pile up there between passes)
    and the query rows rebuilt as units die, about the same whenever the pass comes, so fewer passes cost less
    (20,000 -> 100,000: the collector 4.6 -> 1.0 ms a tick there; ARCHITECTURE.md, performance notes). A match makes
    no cyclic garbage (2,000 units, 300 ticks with the collector off: nothing unreachable), so the threshold only
    decides how often those passes run, not how much memory is held. The application owns its process, so it sets
    this once at start-up (tests and library users keep CPython's default).
    """
    gc.set_threshold(100000, 20, 20)
