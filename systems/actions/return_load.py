"""return: carry the load to the nearest drop-off and deliver it."""
from __future__ import annotations

import esper

from components import Building, Position, Team, Worker
from game.ledger import CONFIRMED, FAILED
from systems.actions.base import Walker, comp
from systems.actions.gather import deliver, nearest_drop_off


class ReturnExecutor(Walker):
    kind = "return"
    params = ""
    meaning = "carry the load to the nearest drop-off and deliver it into the team's stockpile"
    preconditions = "the actor is a worker carrying resources; its team has a complete drop-off it can reach"
    timeout_seconds = 90.0
    needs = (Position, Worker, Team)

    def goal(self, world, action):
        return action.data.get("gx", -1.0), action.data.get("gy", -1.0)

    def check_more(self, world, action):
        if esper.component_for_entity(action.actor, Worker).carrying <= 0:
            return "the worker carries nothing"
        pos = esper.component_for_entity(action.actor, Position)
        drop = nearest_drop_off(world, esper.component_for_entity(action.actor, Team).team, pos.x, pos.y)
        if drop is None:
            return "the team has no reachable drop-off"
        action.data["drop"] = drop[0]
        action.data["gx"], action.data["gy"] = drop[1]
        return None

    def update(self, world, action):
        if comp(action.data["drop"], Building) is None:
            reason = self.check_more(world, action)                # destroyed on the way: the next nearest
            if reason:
                return (CONFIRMED if "carries nothing" in reason else FAILED), reason
            self.start(world, action)
            return None
        result = self.arrived(world, action)
        if result:
            return result
        if not action.data.get("at"):
            return None
        load = deliver(world, action.actor, esper.component_for_entity(action.actor, Worker))
        return CONFIRMED, f"delivered {load}"
