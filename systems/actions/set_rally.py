"""set_rally: where a building's new units walk to."""
from __future__ import annotations

import esper

from components import Building, Rally
from game.ledger import CONFIRMED
from systems.actions.base import Executor


class SetRallyExecutor(Executor):
    kind = "set_rally"
    params = "x, y (tiles); on (false: units stay beside the building)"
    meaning = "set the point a building's newly trained units walk to"
    preconditions = "the actor is a building that trains units; the point is inside the map"
    lane = "rally"
    needs = (Building, Rally)

    def check_more(self, world, action):
        x, y = action.params.get("x"), action.params.get("y")
        if type(x) not in (int, float) or type(y) not in (int, float) or not world.nav.in_bounds(int(x), int(y)) \
                or x < 0 or y < 0:
            return "the rally point must be a point inside the map"
        return None

    def update(self, world, action):
        rally = esper.component_for_entity(action.actor, Rally)
        p = action.params
        rally.x, rally.y, rally.on = float(p["x"]), float(p["y"]), bool(p.get("on", True))
        return CONFIRMED, f"rally at ({rally.x:.1f}, {rally.y:.1f})" if rally.on else "rally cleared"

    def stop(self, world, action):
        pass
