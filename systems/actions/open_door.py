"""open_door: walk next to a door and open it."""
from __future__ import annotations

import math

import esper

from components import Door, Inventory, Position
from game.ledger import CONFIRMED, FAILED
from systems.actions.base import Walker, comp


class OpenDoorExecutor(Walker):
    kind = "open_door"
    params = "target (a door)"
    meaning = "walk next to a door and open it; a locked door uses up a key"
    preconditions = "the door is shut, a tile beside it is reachable, and a locked one needs a key in the inventory"
    timeout_seconds = 90.0

    def goal(self, world, action):
        return action.data.get("gx", -1.0), action.data.get("gy", -1.0)

    def _stand_tile(self, world, action) -> tuple[float, float] | None:
        door = esper.component_for_entity(action.target, Door)
        pos = esper.component_for_entity(action.actor, Position)
        options = []
        for nx, ny in ((door.tx, door.ty + 1), (door.tx, door.ty - 1), (door.tx + 1, door.ty), (door.tx - 1, door.ty)):
            if world.nav.is_walkable(nx, ny):
                options.append((math.hypot(pos.x - nx - 0.5, pos.y - ny - 0.5), nx, ny))
        for _d, nx, ny in sorted(options):
            if world.nav.clear_line(pos.x, pos.y, nx + 0.5, ny + 0.5) or \
                    world.nav.find_path((int(pos.x), int(pos.y)), (nx, ny)) is not None:
                return nx + 0.5, ny + 0.5
        return None

    def check_more(self, world, action):
        door = comp(action.target, Door)
        if door is None:
            return "door does not exist"
        if door.state == "open":
            return "door is already open"
        if door.state == "locked":
            inv = comp(action.actor, Inventory)
            if inv is None or inv.keys <= 0:
                return "door is locked and actor has no key"
        spot = self._stand_tile(world, action)
        if spot is None:
            return "no path to the door"
        action.data["gx"], action.data["gy"] = spot
        return None

    def reservations(self, world, action):
        return [("door", action.target, True)]

    def update(self, world, action):
        door = comp(action.target, Door)
        if door is None:
            return FAILED, "door is gone"
        if door.state == "open":
            return CONFIRMED, "door already open"
        result = self.arrived(world, action)
        if result:
            return result
        if not action.data.get("at"):
            return None
        if door.state == "locked":
            inv = comp(action.actor, Inventory)
            if inv is None or inv.keys <= 0:
                return FAILED, "no key"
            inv.keys -= 1
        door.state = "open"
        world.nav.set_door(door.tx, door.ty, "open")
        return CONFIRMED, "door opened"
