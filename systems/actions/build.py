"""build: construct a building (place a new one, or help with one under construction)."""
from __future__ import annotations

import esper

from components import Building, Health, Position, Team, Worker
from game.economy import (START_HP, available, beside, footprint_tiles, freed_hold, missing_requirements,
                          place_building, site_problem, stockpile, touching)
from game.ledger import CONFIRMED, FAILED
from systems.actions.base import Walker, comp, halt

#: seconds a builder waits beside a site that units stand on before it gives up
SITE_PATIENCE = 5.0


class BuildExecutor(Walker):
    kind = "build"
    params = ("building, x, y (the footprint's top-left tile) for a new building; or target (the team's building "
              "under construction) to help")
    meaning = ("walk to the site, pay the cost and construct; each worker on it adds its work, so helpers speed it "
               "up; confirmed when the building is complete")
    preconditions = ("the actor is a worker that can build; a new building: its prerequisites are complete, the team "
                     "can afford it (the cost is held until it is paid) and the footprint is open floor with no "
                     "building or unit on it; helping: the target is the team's unfinished building")
    param_types = {"building": "string", "x": "int", "y": "int"}
    timeout_seconds = 0.0
    needs = (Position, Worker, Team)

    def goal(self, world, action):
        return action.data["gx"], action.data["gy"]

    def _new(self, action) -> bool:
        return not action.target

    def check_more(self, world, action):
        actor = action.actor
        if not esper.component_for_entity(actor, Worker).can_build:
            return "the actor cannot build"
        team = esper.component_for_entity(actor, Team).team
        pos = esper.component_for_entity(actor, Position)
        if not self._new(action):
            site = comp(action.target, Building)
            if site is None or esper.component_for_entity(action.target, Team).team != team:
                return "target is not the team's building"
            if site.done:
                return "the building is already complete"
            spot = beside(world, site.tx, site.ty, site.w, site.h, pos.x, pos.y, world.turns[team])
            if spot is None:
                return "no reachable tile beside the building"
            action.data["gx"], action.data["gy"] = spot
            return None
        kind = action.params.get("building")
        bdef = world.content.buildings.get(kind) if isinstance(kind, str) else None
        if bdef is None:
            return f"unknown building {kind!r}"
        x, y = action.params.get("x"), action.params.get("y")
        if type(x) is not int or type(y) is not int:
            return "a new building needs whole-number tiles x and y (its top-left corner)"
        missing = missing_requirements(world, team, bdef.requires)
        if missing:
            return f"needs {', '.join(missing)} first"
        if available(world, team, freed_hold(world, action, ("stock", team))) < bdef.cost:
            return f"not enough resources ({bdef.cost} needed)"
        problem = site_problem(world, kind, x, y, units=False)   # units on it are waited for when the builder arrives
        if problem:
            return problem
        w, h = bdef.size
        spot = beside(world, x, y, w, h, pos.x, pos.y, world.turns[team])
        if spot is None:
            return "no reachable tile beside the site"
        action.data["gx"], action.data["gy"] = spot
        return None

    def reservations(self, world, action):
        if not self._new(action):
            return []
        bdef = world.content.buildings[action.params["building"]]
        team = esper.component_for_entity(action.actor, Team).team
        tiles = [("site", x, y, True) for x, y in footprint_tiles(action.params["x"], action.params["y"], *bdef.size)]
        return ([("stock", team, bdef.cost)] if bdef.cost else []) + tiles

    def start(self, world, action):
        action.data["site"] = action.target
        action.data["waited"] = 0
        super().start(world, action)

    def update(self, world, action):
        site_id = action.data["site"]
        if site_id:
            site = comp(site_id, Building)
            if site is None:
                return FAILED, "the building was destroyed"
            if site.done:
                return CONFIRMED, "built"
        actor = action.actor
        pos = esper.component_for_entity(actor, Position)
        if site_id:
            rect = (site.tx, site.ty, site.w, site.h)
        else:
            rect = (action.params["x"], action.params["y"], *world.content.buildings[action.params["building"]].size)
        inside = rect[0] <= pos.x < rect[0] + rect[2] and rect[1] <= pos.y < rect[1] + rect[3]
        if inside or not touching(*rect, pos.x, pos.y):     # walk to the tile beside it (out of it, if on it)
            result = self.arrived(world, action)
            if result:
                return result
            if not action.data.get("at"):
                return None
        halt(world, actor)
        if not site_id:
            return self._place(world, action)
        return self._work(world, action, site_id)

    def _place(self, world, action):
        kind, x, y = action.params["building"], action.params["x"], action.params["y"]
        problem = site_problem(world, kind, x, y, units=False)
        if problem:
            return FAILED, problem
        problem = site_problem(world, kind, x, y, ignore=action.actor)
        if problem:
            action.data["waited"] += 1                          # wait for the units to walk off
            if action.data["waited"] >= SITE_PATIENCE * world.hz:
                return FAILED, f"site blocked: {problem}"
            return None
        team = esper.component_for_entity(action.actor, Team).team
        cost = world.content.buildings[kind].cost
        stockpile(world, team).amount -= cost
        world.ledger.release(action, ("stock", team))              # the held cost is spent now
        for tile in footprint_tiles(x, y, *world.content.buildings[kind].size):
            world.ledger.release(action, ("site",) + tile)         # the building itself holds the ground now
        action.data["site"] = place_building(world, kind, team, x, y, complete=False)
        return None

    def _work(self, world, action, site_id: int):
        site = esper.component_for_entity(site_id, Building)
        health = esper.component_for_entity(site_id, Health)
        site.work += 1
        health.hp = min(health.max_hp, health.hp + health.max_hp * (1.0 - START_HP) / site.work_needed)
        if site.done:
            return CONFIRMED, "built"
        return None

