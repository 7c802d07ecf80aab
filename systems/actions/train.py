"""train: a building trains a unit, through its production queue of 5."""
from __future__ import annotations

import esper

from components import Building, Position, Team
from game.economy import (available, freed_hold, missing_requirements, population_cap, population_used, rally_point,
                          stockpile)
from game.ledger import CONFIRMED
from systems.actions.base import Executor, set_route

QUEUE = 5


class TrainExecutor(Executor):
    kind = "train"
    params = "unit (a unit type the building trains)"
    meaning = ("train a unit: its cost is held while it waits in the building's queue of 5, paid when training "
               "starts and refunded if cancelled; the unit appears beside the building and walks to its rally point")
    preconditions = ("the actor is the team's complete building that trains that unit; the team has completed the "
                     "unit's prerequisites and can afford it; the queue has room; training starts only when the "
                     "population cap has room")
    timeout_seconds = 0.0
    lane = "production"
    queue = QUEUE
    needs = (Building, Team, Position)

    def _team(self, action) -> int:
        return esper.component_for_entity(action.actor, Team).team

    def check_more(self, world, action):
        building = esper.component_for_entity(action.actor, Building)
        if not building.done:
            return "the building is not complete"
        unit = action.params.get("unit")
        bdef = world.content.buildings[building.kind]
        if not isinstance(unit, str) or unit not in bdef.trains:
            return f"a {building.kind} trains {', '.join(bdef.trains) or 'nothing'}, not {unit!r}"
        udef = world.content.units[unit]
        team = self._team(action)
        missing = missing_requirements(world, team, udef.requires)
        if missing:
            return f"needs {', '.join(missing)} first"
        if available(world, team, freed_hold(world, action, ("stock", team))) < udef.cost:
            return f"not enough resources ({udef.cost} needed)"
        return None

    def reservations(self, world, action):
        cost = world.content.units[action.params["unit"]].cost
        return [("stock", self._team(action), cost)] if cost else []

    def ready(self, world, action) -> bool:
        """Training waits while the team's population is at its cap."""
        team = self._team(action)
        need = world.content.units[action.params["unit"]].population
        return population_used(world, team) + need <= population_cap(world, team)

    def start(self, world, action):
        team = self._team(action)
        udef = world.content.units[action.params["unit"]]
        stockpile(world, team).amount -= udef.cost
        world.ledger.release(action, ("stock", team))        # paid: no longer held
        action.data["team"] = team
        action.data["paid"] = udef.cost
        action.data["total"] = max(1, int(round(udef.build_time * world.hz)))
        action.data["left"] = action.data["total"]

    def update(self, world, action):
        action.data["left"] -= 1
        if action.data["left"] > 0:
            return None
        from game.scenario import free_tiles_near, spawn_unit
        building = esper.component_for_entity(action.actor, Building)
        team = action.data["team"]
        tiles = [(x, y) for y in range(building.ty, building.ty + building.h)
                 for x in range(building.tx, building.tx + building.w)]
        turn = world.turns[team]
        # search from the footprint's corner that faces the same way in every quarter, so mirrored bases place
        # their new units on mirrored tiles
        right, low = {0: (False, False), 1: (True, False), 2: (True, True), 3: (False, True)}[turn]
        corner = (building.tx + (building.w - 1 if right else 0), building.ty + (building.h - 1 if low else 0))
        spots = free_tiles_near(world, *corner, 1, set(), turn=turn, through=frozenset(tiles))
        if not spots:
            action.data["left"] = world.hz                    # boxed in: try again in a second
            return None
        udef = world.content.units[action.params["unit"]]
        eid = spawn_unit(world, udef, team, 0, spots[0][0] + 0.5, spots[0][1] + 0.5, world.controllers[team])
        action.data["paid"] = 0
        rally = rally_point(world, action.actor)
        if rally is not None:
            set_route(world, eid, *rally)
        return CONFIRMED, f"trained {udef.id} #{eid}"

    def stop(self, world, action):
        """A started training that did not finish (cancelled, or its building destroyed) gives its cost back."""
        paid = action.data.get("paid", 0)
        if paid and action.state != CONFIRMED:
            stockpile(world, action.data["team"]).amount += paid
            action.data["paid"] = 0
