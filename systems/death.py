"""Remove units and buildings whose hit points ran out, at one point at the end of the tick.

Their active ledger actions fail with 'actor died' (a building's production queue too: a training under way
gives its cost back, waiting ones release what they held) and attacks aimed at them are confirmed ('target
destroyed'), releasing those actions' reservations. A destroyed building frees its footprint on the nav grid.
Deletions are batched here so the other systems' esper queries stay cached.
"""
from __future__ import annotations

import esper

from components import Building, Health, Position, Team, UnitKind
from game.economy import remove_building
from systems.base import System


class DeathSystem(System):
    def run(self, world):
        dead = sorted(eid for eid, health in esper.get_component(Health) if health.hp <= 0.0)
        for eid in dead:
            _death_event(world, eid)
            world.ledger.actor_gone(world, eid)
            world.ledger.target_gone(world, eid)
            if esper.has_component(eid, Building):
                remove_building(world, eid)
            esper.delete_entity(eid, immediate=True)


def _death_event(world, eid: int) -> None:
    """A row in ``world.events`` for the views (a fading body, a sound); not world state."""
    team = esper.try_component(eid, Team)
    building = esper.try_component(eid, Building)
    if building is not None:
        world.events.append(("death", eid, team.team if team else -1, building.kind, building.tx + building.w / 2,
                             building.ty + building.h / 2, building.w, building.h))
        return
    pos = esper.try_component(eid, Position)
    kind = esper.try_component(eid, UnitKind)
    if pos is not None:
        world.events.append(("death", eid, team.team if team else -1, kind.kind if kind else "", pos.x, pos.y, 0, 0))
