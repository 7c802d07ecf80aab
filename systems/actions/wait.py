"""wait: stand still for a number of ticks."""
from __future__ import annotations

from game.ledger import CONFIRMED
from systems.actions.base import Executor, halt


class WaitExecutor(Executor):
    kind = "wait"
    params = "ticks"
    meaning = "stand still for a number of ticks"
    preconditions = "ticks is a whole number >= 0"
    needs = ()

    def check_more(self, world, action):
        t = action.params.get("ticks", 0)
        if not isinstance(t, int) or t < 0:
            return "wait needs a non-negative whole number of ticks"
        return None

    def start(self, world, action):
        halt(world, action.actor)
        action.data["left"] = int(action.params.get("ticks", 0))

    def update(self, world, action):
        if action.data["left"] <= 0:
            return CONFIRMED, "waited"
        action.data["left"] -= 1
        return None
