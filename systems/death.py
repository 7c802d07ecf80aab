"""Remove units whose hit points ran out, at one point at the end of the tick.

Their active ledger action fails with 'actor died' and attacks aimed at them
are confirmed ('target destroyed'), releasing those actions' reservations.
Deletions are batched here so the other systems' esper queries stay cached.
"""
from __future__ import annotations

import esper

from components import Health
from systems.base import System


class DeathSystem(System):
    def run(self, world):
        dead = sorted(eid for eid, health in esper.get_component(Health) if health.hp <= 0.0)
        for eid in dead:
            world.ledger.actor_gone(world, eid)
            world.ledger.target_gone(world, eid)
            esper.delete_entity(eid, immediate=True)
