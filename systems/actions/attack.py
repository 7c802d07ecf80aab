"""attack: fire at a target, chasing it unless held."""
from __future__ import annotations

import math

import esper

from components import Ammo, Building, Mover, Position, Team, Weapon
from game.economy import aim_point, beside
from game.ledger import CONFIRMED, FAILED
from systems.actions.base import Executor, alive_unit, cease_fire, halt, set_route

REPATH_TICKS = 15      # how often a chase re-plans its route


class AttackExecutor(Executor):
    kind = "attack"
    params = "target; hold (1 = never chase)"
    meaning = "fire at the target (a unit or a building), chasing it unless held; confirmed when it dies"
    preconditions = "the target is a living enemy unit or building and the actor's clip is not empty"
    timeout_seconds = 180.0
    needs = (Position, Mover, Weapon, Ammo, Team)

    def check_more(self, world, action):
        if not alive_unit(action.target):
            return "target does not exist"
        if not world.enemies(esper.component_for_entity(action.actor, Team).team,
                             esper.component_for_entity(action.target, Team).team):
            return "target is on the same side"
        if esper.component_for_entity(action.actor, Ammo).clip <= 0:
            return "clip empty"
        return None

    def reservations(self, world, action):
        return [("target", action.target, False)]

    def start(self, world, action):
        action.data["next_route"] = world.tick

    def update(self, world, action):
        if not alive_unit(action.target):
            return CONFIRMED, "target destroyed"
        actor = action.actor
        ammo = esper.component_for_entity(actor, Ammo)
        if ammo.clip <= 0:
            return FAILED, "clip empty" if ammo.reserve > 0 else "out of ammo"
        pos = esper.component_for_entity(actor, Position)
        weapon = esper.component_for_entity(actor, Weapon)
        tx, ty = aim_point(action.target, pos.x, pos.y)
        dist = math.hypot(pos.x - tx, pos.y - ty)
        if dist <= weapon.range and world.nav.clear_line(pos.x, pos.y, tx, ty):
            if weapon.target != action.target:
                weapon.target = action.target
                halt(world, actor)
            return None
        weapon.target = 0
        if action.params.get("hold"):
            return FAILED, "target left range"   # a held attack never chases
        mover = esper.component_for_entity(actor, Mover)
        if world.tick >= action.data["next_route"] or not mover.moving:
            action.data["next_route"] = world.tick + REPATH_TICKS
            building = esper.try_component(action.target, Building)
            if building is not None:                          # walk up to its walls
                spot = beside(world, building.tx, building.ty, building.w, building.h, pos.x, pos.y,
                              world.turns[esper.component_for_entity(actor, Team).team])
                if spot is None or not set_route(world, actor, *spot):
                    return FAILED, "no path to target"
            elif not set_route(world, actor, tx, ty):
                return FAILED, "no path to target"
        return None

    def stop(self, world, action):
        cease_fire(action.actor)
        halt(world, action.actor)
