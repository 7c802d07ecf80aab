"""reload: move rounds from the reserve into the clip."""
from __future__ import annotations

import esper

from components import Ammo
from game.ledger import CONFIRMED
from systems.actions.base import Executor, halt


class ReloadExecutor(Executor):
    kind = "reload"
    params = ""
    meaning = "move rounds from the reserve into the clip"
    preconditions = "the actor carries reserve rounds and its clip is not full"
    timeout_seconds = 30.0
    needs = (Ammo,)

    def check_more(self, world, action):
        ammo = esper.component_for_entity(action.actor, Ammo)
        if ammo.reserve <= 0:
            return "no reserve ammunition"
        if ammo.clip >= ammo.clip_size:
            return "clip already full"
        return None

    def start(self, world, action):
        halt(world, action.actor)
        action.data["left"] = esper.component_for_entity(action.actor, Ammo).reload_ticks

    def update(self, world, action):
        action.data["left"] -= 1
        if action.data["left"] > 0:
            return None
        ammo = esper.component_for_entity(action.actor, Ammo)
        n = min(ammo.clip_size - ammo.clip, ammo.reserve)
        ammo.clip += n
        ammo.reserve -= n
        return CONFIRMED, f"reloaded {n} rounds"

    def stop(self, world, action):
        pass
