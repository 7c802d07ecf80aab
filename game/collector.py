"""How the commands that run matches set Python's garbage collector: once a match is set up, what exists is set
aside (``gc.freeze``) and the youngest generation is collected every ``YOUNG`` net allocations instead of 700.

Why: a match of thousands of units keeps hundreds of thousands of objects alive (components, rows, records) and
allocates thousands more a tick (facts, decision records, esper's rows). With CPython's default thresholds, at
10,000 units in contact the collector took about 28 ms of a 135 ms tick: the youngest generation every 700 net
allocations (about 12 passes a tick), the middle one every tenth of those (7.5 ms each), and a full pass over the
760,000 tracked objects every 15 ticks or so (over 100 ms, the p99). Frozen, the objects made at set-up are never
walked again; with a larger first threshold the middle generation is rarely reached. Measured on one world, 10,000
units in contact, 60 ticks: 148 -> 124 ms a tick, p99 418 -> 313 ms; 1,000 units: no change (docs: README,
"Armies"). Nothing a match decides depends on the collector (no finalizer touches the simulation), so sync
hashes do not move.

Reference cycles among frozen objects that later become garbage are kept until the next ``settle`` (which
unfreezes first, so a process that runs match after match frees the last one's cycles); objects that are not
in cycles are freed as usual, by their reference counts.

>>> import gc
>>> before = gc.get_threshold()
>>> settle()
>>> gc.get_threshold()[0] == YOUNG and gc.get_freeze_count() > 0
True
>>> restore(before)
>>> gc.get_threshold() == before and gc.get_freeze_count() == 0
True
"""
from __future__ import annotations

import gc

YOUNG = 10_000          # net allocations between passes over the youngest generation (CPython's default: 700)


def settle() -> None:
    """Call once a match is set up, before its first tick (again for the next match in the same process)."""
    gc.unfreeze()                  # the previous match's objects go back to the collector first
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)


def restore(threshold: tuple) -> None:
    """Undo ``settle``: unfreeze and put back ``threshold`` (``gc.get_threshold()`` from before)."""
    gc.unfreeze()
    gc.set_threshold(*threshold)
