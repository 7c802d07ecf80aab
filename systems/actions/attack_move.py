"""attack_move: walk to a point, fighting whatever comes within range on the way."""
from __future__ import annotations

import esper

from components import Ammo, Mover, Position, Team, Weapon
from game.ledger import CONFIRMED
from systems.actions.base import cease_fire, enemy_in_range, halt, reload_in_place
from systems.actions.move import MoveExecutor


class AttackMoveExecutor(MoveExecutor):
    """Walk to a point, stopping to fire at any enemy that comes within range; confirmed on arrival."""
    kind = "attack_move"
    params = "x, y (tiles)"
    meaning = "walk to a point, stopping to fire at enemies that come within range"
    preconditions = "the point is inside the map, on a walkable tile, and reachable; the actor has a weapon"
    timeout_seconds = 180.0
    needs = (Position, Mover, Weapon, Ammo, Team)

    def update(self, world, action):
        actor = action.actor
        weapon = esper.component_for_entity(actor, Weapon)
        ammo = esper.component_for_entity(actor, Ammo)
        reload_in_place(action, ammo)
        enemy = enemy_in_range(world, actor) if ammo.clip > 0 else 0
        if enemy:
            if weapon.target != enemy:
                weapon.target = enemy
                halt(world, actor)
            return None
        if weapon.target:
            weapon.target = 0
            action.data.pop("at", None)
            action.data["nav"] = -1                 # walk on after the fight
        result = self.arrived(world, action)
        if result:
            return result
        return (CONFIRMED, "arrived") if action.data.get("at") else None

    def stop(self, world, action):
        cease_fire(action.actor)
        halt(world, action.actor)
