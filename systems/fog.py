"""Fog of war in the tick: every ``game.fog.PERIOD`` ticks, each team's visible grid and memories are recomputed.

A rule of the world, not a decider: it runs while a replay re-simulates too, so the fog a replay shows and the
knowledge its deciders had are the recorded match's. It runs after death (the dead no longer see) and before
the next tick's deciders, which read it.
"""
from __future__ import annotations

from game.fog import PERIOD
from systems.base import System


class FogSystem(System):
    def run(self, world):
        if world.tick % PERIOD == 0:
            world.fog.update()
