"""Buildings with a gun (turrets) pick their own targets: the nearest enemy in range, once complete.

A turret has no decider and takes no ledger action: like a unit's weapon cooldown, choosing what it fires at is
a rule of the world, so it also runs while a replay re-simulates. It looks again every ``PERIOD`` ticks
(staggered by entity id) and at once when its target is gone; the combat system does the firing.
"""
from __future__ import annotations

import esper

from components import Building, Health, Weapon
from systems.actions.base import enemy_in_range
from systems.base import System

PERIOD = 10


class TurretSystem(System):
    def run(self, world):
        tick = world.tick
        for eid, (building, weapon) in sorted(esper.get_components(Building, Weapon)):
            if not building.done:
                weapon.target = 0
                continue
            target = weapon.target
            gone = target and (not esper.entity_exists(target) or esper.component_for_entity(target, Health).hp <= 0)
            if gone or (eid + tick) % PERIOD == 0:
                weapon.target = enemy_in_range(world, eid)
