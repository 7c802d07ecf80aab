"""One outcome vocabulary for every decision layer: behavior trees, modes, plans and the host's answers.

A behavior-tree node, a utility mode, a plan and a host action all stand in one of four ways::

    >>> from ai.status import Status, SUCCESS, RUNNING, name
    >>> Status(SUCCESS) is Status.SUCCESS
    True
    >>> name(RUNNING)
    'running'

The module-level constants are plain ``int`` values of ``Status``, because they go into per-NPC memory
(flat lists of numbers that snapshots store as they are) and the hot loops compare them. The host's ledger
has a richer lifecycle (accepted, started, confirmed, failed, cancelled, timed out); it is mapped to these
four outcomes once, at the ledger boundary (``game.ledger.OUTCOME``), so no decision layer ever reads a
ledger state.
"""
from __future__ import annotations

from enum import IntEnum


class Status(IntEnum):
    """How a node, mode, plan or action stands."""
    IDLE = 0        # not started, or stopped before it ended (a halted node, a stopped plan)
    SUCCESS = 1     # ended well (a tree succeeded, a mode's work is done, a plan completed, the host confirmed)
    FAILURE = 2     # ended badly (a condition failed, a mode failed, a plan gave up, the host refused or failed it)
    RUNNING = 3     # still going


IDLE, SUCCESS, FAILURE, RUNNING = (int(s) for s in Status)


def name(status: int) -> str:
    """The lower-case name of a status value (``'success'``), or ``'?'`` for a value that is not one."""
    try:
        return Status(status).name.lower()
    except ValueError:
        return "?"


__all__ = ["Status", "IDLE", "SUCCESS", "FAILURE", "RUNNING", "name"]
