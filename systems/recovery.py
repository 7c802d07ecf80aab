"""Units resting on cover recover: after RESPITE ticks without losing hit points, RATE hit points a second.

So a hurt unit that falls back to cover can regroup and return, instead of
hiding for the rest of the match. Runs after combat (a hit this tick resets
the respite) and before death (a unit at 0 hit points never recovers).
"""
from __future__ import annotations

import esper

from components import Health, Position
from systems.base import System

RESPITE = 4 * 30       # ticks without damage before recovery starts
RATE = 3.0             # hit points per second


class RecoverySystem(System):
    def run(self, world):
        nav = world.nav
        gain = RATE * world.dt
        tick = world.tick
        for _eid, (health, pos) in esper.get_components(Health, Position):
            if 0.0 < health.hp < health.max_hp and tick - health.last_hit >= RESPITE \
                    and nav.on_cover(pos.x, pos.y):
                health.hp = min(health.max_hp, health.hp + gain)
