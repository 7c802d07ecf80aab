"""The actions' point in the tick: every started action's executor advances one tick, lowest action id first."""
from __future__ import annotations

from game.ledger import STARTED
from systems.actions.base import alive_unit
from systems.base import System


class ActionSystem(System):
    """Advance every started action one tick, lowest action id first; an action whose unit died fails."""

    def run(self, world):
        ledger = world.ledger
        executors = ledger.executors
        for action in ledger.active_sorted():
            if action.state != STARTED:
                continue
            executor = executors[action.kind]
            if executor.actor_is_unit and not alive_unit(action.actor):
                ledger.actor_gone(world, action.actor)
                continue
            result = executor.update(world, action)
            if result is not None and action.state == STARTED:
                ledger.finish(world, action, *result)
