"""set_stance: how a unit acts on its own when it has no order (systems/reflexes.py)."""
from __future__ import annotations

import esper

from components import Stance
from game.ledger import CONFIRMED
from systems.actions.base import Executor

#: the stances a unit can take, from most to least eager to fight (a key cycles them in this order)
STANCES = ("aggressive", "defensive", "hold", "passive")


class SetStanceExecutor(Executor):
    kind = "set_stance"
    params = "stance: aggressive, defensive, hold or passive"
    meaning = "change what the unit does without an order (it keeps doing what it is doing now)"
    preconditions = "the actor is a living unit; the stance is one of the four"
    lane = "stance"
    needs = (Stance,)

    def check_more(self, world, action):
        if action.params.get("stance") not in STANCES:
            return "the stance must be one of " + ", ".join(STANCES)
        return None

    def update(self, world, action):
        stance = esper.component_for_entity(action.actor, Stance)
        stance.mode = action.params["stance"]
        stance.anchored = False
        return CONFIRMED, f"stance {stance.mode}"

    def stop(self, world, action):
        pass
