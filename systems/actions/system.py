"""The actions' point in the tick: every started action's executor advances one tick, lowest action id first."""
from __future__ import annotations

import esper

from components import Health, Mover
from game.ledger import STARTED
from systems.actions.base import alive_unit
from systems.base import System


class ActionSystem(System):
    """Advance every started action one tick, lowest action id first; an action whose unit died fails.

    An action whose kind is ``idle_while_walking`` (move, enter_cover) and whose living unit is walking a route
    planned on the current nav grid is passed over: its ``update`` would return at once without reading or
    changing anything (``Walker.arrived``), and in a large battle most started actions are such walks. The test
    reads esper's entity table directly, as ``alive_unit`` and ``component_for_entity`` do, without their calls.
    """

    def run(self, world):
        ledger = world.ledger
        executors = ledger.executors
        nav = world.nav                         # its version is read per action: an update can open a door
        entities = getattr(esper, "_entities", None)          # read per tick: esper.switch_world rebinds them
        dead = getattr(esper, "_dead_entities", None)
        skip = entities is not None and dead is not None     # (another esper without them: no passing over)
        for action in ledger.active_sorted():
            if action.state != STARTED:
                continue
            executor = executors[action.kind]
            if skip and executor.idle_while_walking and action.data.get("nav") == nav.version:
                comps = entities.get(action.actor)
                if comps is not None and Health in comps and action.actor not in dead:
                    mover = comps.get(Mover)
                    if mover is not None and mover.moving:
                        continue
            if executor.actor_is_unit and not alive_unit(action.actor):
                ledger.actor_gone(world, action.actor)
                continue
            result = executor.update(world, action)
            if result is not None and action.state == STARTED:
                ledger.finish(world, action, *result)
