"""Walk every moving unit along its waypoints at its speed, one fixed tick at a time."""
from __future__ import annotations

import math

import esper

from components import Mover, Position
from systems.base import System


#: a waypoint within this much more than the tick's step is reached: stepping 0.1 tile at a time, a unit walking
#: right and its mirror image walking left accumulate different rounding errors, and without this one of them
#: would arrive a tick later (a side bias on mirrored maps)
SNAP = 1e-9


class MovementSystem(System):
    def run(self, world):
        dt = world.dt
        stopped = world.stopped_movers        # (the ActionSystem reads which walkers stopped)
        for eid, (pos, mover) in esper.get_components(Position, Mover):
            if not mover.moving:
                continue
            budget = mover.speed * dt
            path = mover.path
            while budget > 0.0:
                i = mover.index * 2
                if i >= len(path):
                    mover.moving = False
                    mover.path = []
                    mover.index = 0
                    stopped.add(eid)
                    break
                dx = path[i] - pos.x
                dy = path[i + 1] - pos.y
                d = math.hypot(dx, dy)
                if d <= budget + SNAP:
                    pos.x = path[i]
                    pos.y = path[i + 1]
                    budget -= d
                    mover.index += 1
                else:
                    f = budget / d
                    pos.x += dx * f
                    pos.y += dy * f
                    budget = 0.0
            if mover.moving and mover.index * 2 >= len(path):
                mover.moving = False
                mover.path = []
                mover.index = 0
                stopped.add(eid)
