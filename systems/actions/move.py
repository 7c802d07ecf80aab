"""move: walk to a point."""
from __future__ import annotations

from game.ledger import CONFIRMED
from systems.actions.base import Walker, is_number as _number


class MoveExecutor(Walker):
    kind = "move"
    params = "x, y (tiles)"
    param_types = {"x": "number", "y": "number"}
    meaning = "walk to a point; confirmed on arrival, fails when no path"
    preconditions = "the point is inside the map, on a walkable tile, and reachable"
    timeout_seconds = 90.0
    idle_while_walking = True     # update is arrived() and nothing else while walking

    def goal(self, world, action):
        return float(action.params.get("x", -1.0)), float(action.params.get("y", -1.0))

    def check_more(self, world, action):
        if not all(_number(action.params.get(k, -1.0)) for k in ("x", "y")):
            return "x and y must be numbers"
        gx, gy = self.goal(world, action)
        if not world.nav.in_bounds(int(gx), int(gy)) or gx < 0 or gy < 0:
            return "destination outside the map"
        return self.check_walk(world, action)

    def update(self, world, action):
        result = self.arrived(world, action)
        if result:
            return result
        if action.data.get("at"):
            return CONFIRMED, "arrived"
        return None

