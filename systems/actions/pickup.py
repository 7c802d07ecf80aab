"""pickup: walk onto an ammunition crate or a key and take it."""
from __future__ import annotations

import esper

from components import Ammo, Inventory, Pickup
from game.ledger import CONFIRMED, FAILED
from systems.actions.base import Walker, comp


class PickupExecutor(Walker):
    """Walk onto a pickup's tile and take it (target = the pickup entity). ``only_kind`` narrows which pickups."""
    kind = "pickup"
    params = "target (a pickup)"
    meaning = "walk onto an ammunition crate or key and take it"
    preconditions = "the target is a pickup lying on a reachable tile, not claimed by another unit"
    timeout_seconds = 90.0
    only_kind = ""

    def goal(self, world, action):
        pick = esper.component_for_entity(action.target, Pickup)
        return pick.tx + 0.5, pick.ty + 0.5

    def check_more(self, world, action):
        pick = comp(action.target, Pickup)
        if pick is None:
            return "pickup does not exist"
        if self.only_kind and pick.kind != self.only_kind:
            return f"target is not a {self.only_kind}"
        return self.check_walk(world, action)

    def reservations(self, world, action):
        return [("pickup", action.target, True)]

    def update(self, world, action):
        pick = comp(action.target, Pickup)
        if pick is None:
            return FAILED, "pickup is gone"
        result = self.arrived(world, action)
        if result:
            return result
        if not action.data.get("at"):
            return None
        if pick.kind == "ammo":
            esper.component_for_entity(action.actor, Ammo).reserve += pick.amount
        elif pick.kind == "key":
            inv = comp(action.actor, Inventory)
            if inv is None:
                return FAILED, "actor cannot carry keys"
            inv.keys += pick.amount
        esper.delete_entity(action.target, immediate=True)
        return CONFIRMED, f"picked up {pick.kind}"
