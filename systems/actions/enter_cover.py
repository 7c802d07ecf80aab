"""enter_cover: walk onto a cover tile and hold it."""
from __future__ import annotations

from game.ledger import CONFIRMED
from systems.actions.base import Walker, is_number as _number


class EnterCoverExecutor(Walker):
    kind = "enter_cover"
    params = "x, y (a cover tile)"
    param_types = {"x": "number", "y": "number"}
    meaning = "walk onto a cover tile and hold it (exclusively)"
    preconditions = "the tile is cover, reachable, and not held by another unit"
    timeout_seconds = 90.0
    idle_while_walking = True     # update is arrived() and nothing else while walking

    def goal(self, world, action):
        return int(action.params.get("x", -1)) + 0.5, int(action.params.get("y", -1)) + 0.5

    def check_more(self, world, action):
        if not all(_number(action.params.get(k, -1)) for k in ("x", "y")):
            return "x and y must be numbers"
        x, y = int(action.params.get("x", -1)), int(action.params.get("y", -1))
        if not world.nav.is_cover(x, y):
            return f"tile ({x}, {y}) is not cover"
        return self.check_walk(world, action)

    def reservations(self, world, action):
        if not all(_number(action.params.get(k)) for k in ("x", "y")):
            return []                                   # check_more refuses it
        return [("cover", int(action.params["x"]), int(action.params["y"]), True)]

    def update(self, world, action):
        result = self.arrived(world, action)
        if result:
            return result
        return (CONFIRMED, "in cover") if action.data.get("at") else None
