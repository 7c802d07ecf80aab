"""set_rally: where a building's new units walk to."""
from __future__ import annotations

import esper
import numpy as np

from components import Building, Rally
from game.ledger import CONFIRMED
from systems.actions.base import Executor, is_number


class SetRallyExecutor(Executor):
    kind = "set_rally"
    params = "x, y (tiles); on (false: units stay beside the building)"
    meaning = "set the point a building's newly trained units walk to"
    preconditions = "the actor is a building that trains units; the point is inside the map"
    param_types = {"x": "number", "y": "number", "on": "bool"}
    lane = "rally"
    needs = (Building, Rally)

    def check_more(self, world, action):
        x, y = action.params.get("x"), action.params.get("y")
        if not (is_number(x) and is_number(y)) or x < 0 or y < 0 or not world.nav.in_bounds(int(x), int(y)):
            return "the rally point must be a point inside the map"
        if not isinstance(action.params.get("on", True), (bool, np.bool_)):
            return "on must be true or false"
        return None

    def update(self, world, action):
        rally = esper.component_for_entity(action.actor, Rally)
        p = action.params
        rally.x, rally.y, rally.on = float(p["x"]), float(p["y"]), bool(p.get("on", True))
        return CONFIRMED, f"rally at ({rally.x:.1f}, {rally.y:.1f})" if rally.on else "rally cleared"

    def stop(self, world, action):
        pass
