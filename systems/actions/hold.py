"""hold: stand still and fire at enemies in range, never chasing."""
from __future__ import annotations

import esper

from components import Ammo, Mover, Position, Team, Weapon
from systems.actions.base import Executor, cease_fire, enemy_in_range, halt, reload_in_place


class HoldExecutor(Executor):
    """Stand still and fire at enemies in range without ever chasing them; lasts until replaced or cancelled."""
    kind = "hold"
    params = ""
    meaning = "stand still and fire at enemies in range, never chasing; lasts until replaced or cancelled"
    preconditions = "the actor has a weapon"
    needs = (Position, Mover, Weapon, Ammo, Team)

    def start(self, world, action):
        halt(world, action.actor)

    def update(self, world, action):
        weapon = esper.component_for_entity(action.actor, Weapon)
        ammo = esper.component_for_entity(action.actor, Ammo)
        reload_in_place(action, ammo)
        weapon.target = enemy_in_range(world, action.actor) if ammo.clip > 0 else 0
        return None

    def stop(self, world, action):
        cease_fire(action.actor)
