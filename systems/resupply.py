"""Units near their team's supply buildings refill their reserve ammunition.

A complete building whose type has ``resupply = R`` (content: the headquarters and barracks) hands out one
clip's worth of rounds every ``PERIOD`` ticks to each unit of its team within R tiles of its walls whose
reserve is below what its type starts with, so an army that shot itself dry walks home to rearm. A rule of
the world (it runs during replays too), in ascending entity order.
"""
from __future__ import annotations

import esper

from components import Ammo, Building, Position, Team, UnitKind
from systems.base import System

PERIOD = 60               # ticks between refills (2 s)


class ResupplySystem(System):
    def run(self, world):
        if world.tick % PERIOD:
            return
        defs = world.content.buildings
        depots: dict[int, list] = {}
        for _eid, (b, team) in esper.get_components(Building, Team):
            bdef = defs.get(b.kind)
            if bdef is not None and bdef.resupply > 0 and b.done:
                depots.setdefault(team.team, []).append((b.tx, b.ty, b.w, b.h, bdef.resupply))
        if not depots:
            return
        units = world.content.units
        for _eid, (ammo, pos, team, kind) in sorted(esper.get_components(Ammo, Position, Team, UnitKind)):
            full = units[kind.kind].ammo.reserve if kind.kind in units else 0
            if ammo.reserve >= full:
                continue
            for tx, ty, w, h, reach in depots.get(team.team, ()):
                dx = max(tx - pos.x, 0.0, pos.x - (tx + w))
                dy = max(ty - pos.y, 0.0, pos.y - (ty + h))
                if dx * dx + dy * dy <= reach * reach:
                    ammo.reserve = min(full, ammo.reserve + ammo.clip_size)
                    break
