"""gather: mine a resource field and carry each load to the nearest drop-off, again and again."""
from __future__ import annotations

import esper

from components import Building, Position, ResourceField, Stockpile, Team, Worker
from game.economy import beside, freed_hold, remove_field, stockpile, touching
from game.ledger import CONFIRMED, FAILED
from systems.actions.base import Walker, comp, set_route

TO_FIELD, MINING, TO_DROP = 0, 1, 2


def nearest_drop_off(world, team: int, x: float, y: float) -> tuple[int, tuple[float, float]] | None:
    """(building, the tile beside it to stand on) of the team's nearest complete drop-off the unit at (x, y) can
    reach; ties to the lowest id."""
    defs = world.content.buildings
    best = None
    for eid, (b, t) in sorted(esper.get_components(Building, Team)):
        if t.team != team or not b.done or not defs[b.kind].drop_off:
            continue
        spot = beside(world, b.tx, b.ty, b.w, b.h, x, y, world.turns[team])
        if spot is None:
            continue
        d = (spot[0] - x) ** 2 + (spot[1] - y) ** 2
        if best is None or (d, eid) < best[:2]:
            best = (d, eid, spot)
    return None if best is None else (best[1], best[2])


def deliver(world, actor: int, worker: Worker) -> int:
    """Put the worker's load into its team's stockpile; returns how much it was."""
    team = esper.component_for_entity(actor, Team).team
    load = worker.carrying
    income = world.income[team]
    if income != 1.0:                              # a difficulty's handicap or bonus (content/difficulties/)
        load = int(load * income + 0.5)
    stock: Stockpile = stockpile(world, team)
    stock.amount += load
    stock.gathered += load
    worker.carrying = 0
    return load


class GatherExecutor(Walker):
    kind = "gather"
    params = "target (a resource field); loads (how many loads to deliver, 0 = until stopped)"
    meaning = ("walk beside the field, mine a load, carry it to the nearest drop-off, deliver it, and go back; "
               "confirmed after `loads` deliveries or when the field is mined out")
    preconditions = ("the actor is a worker; the field has resources and a free mining slot (it holds one while the "
                     "action lasts) and a reachable tile beside it; its team has a complete drop-off")
    timeout_seconds = 0.0
    needs = (Position, Worker, Team)

    def goal(self, world, action):
        return action.data["gx"], action.data["gy"]

    def _slots_free(self, world, action, field: ResourceField) -> bool:
        pool = ("field", action.target)
        return world.ledger.held_amount(pool) - freed_hold(world, action, pool) < field.slots

    def check_more(self, world, action):
        field = comp(action.target, ResourceField)
        if field is None or field.amount <= 0:
            return "target is not a field with resources"
        loads = action.params.get("loads", 0)
        if type(loads) is not int or loads < 0:
            return "loads must be a whole number >= 0"
        if not self._slots_free(world, action, field):
            return f"the field's {field.slots} mining slots are taken"
        pos = esper.component_for_entity(action.actor, Position)
        team = esper.component_for_entity(action.actor, Team).team
        if beside(world, field.tx, field.ty, 1, 1, pos.x, pos.y, world.turns[team]) is None:
            return "no reachable tile beside the field"
        if nearest_drop_off(world, team, pos.x, pos.y) is None:
            return "the team has no reachable drop-off"
        return None

    def reservations(self, world, action):
        return [("field", action.target, 1)]

    def _go(self, world, action, phase: int, spot: tuple[float, float]) -> bool:
        action.data.update(phase=phase, gx=spot[0], gy=spot[1], nav=world.nav.version, doors=world.nav.door_version)
        action.data.pop("at", None)
        return set_route(world, action.actor, spot[0], spot[1])

    def start(self, world, action):
        pos = esper.component_for_entity(action.actor, Position)
        field = esper.component_for_entity(action.target, ResourceField)
        worker = esper.component_for_entity(action.actor, Worker)
        action.data["delivered"] = 0
        if worker.carrying >= worker.capacity:
            drop = nearest_drop_off(world, esper.component_for_entity(action.actor, Team).team, pos.x, pos.y)
            self._go(world, action, TO_DROP, drop[1])
        else:
            turn = world.turns[esper.component_for_entity(action.actor, Team).team]
            self._go(world, action, TO_FIELD, beside(world, field.tx, field.ty, 1, 1, pos.x, pos.y, turn))

    def update(self, world, action):
        actor = action.actor
        worker = esper.component_for_entity(actor, Worker)
        field = comp(action.target, ResourceField)
        phase = action.data["phase"]
        if phase != TO_DROP and field is None:
            if worker.carrying > 0:
                return self._to_drop(world, action)
            return CONFIRMED, "the field is mined out"
        if phase == MINING:
            worker.mining += 1
            if worker.mining < worker.mine_ticks:
                return None
            worker.mining = 0
            field.amount -= 1
            worker.carrying += 1
            worker.field = action.target
            if field.amount <= 0:
                remove_field(world, action.target)
                esper.delete_entity(action.target, immediate=True)
            if worker.carrying >= worker.capacity or field.amount <= 0:
                return self._to_drop(world, action)
            return None
        result = self.arrived(world, action)
        if result:
            return result
        if phase == TO_DROP:
            drop = comp(action.data["drop"], Building)
            pos = esper.component_for_entity(actor, Position)
            if drop is None:                                   # destroyed on the way: the next nearest
                return self._to_drop(world, action)
            if not action.data.get("at") and not touching(drop.tx, drop.ty, drop.w, drop.h, pos.x, pos.y):
                return None
            if deliver(world, actor, worker):
                action.data["delivered"] += 1
            loads = action.params.get("loads", 0)
            if loads and action.data["delivered"] >= loads:
                return CONFIRMED, f"delivered {action.data['delivered']} loads"
            field = comp(action.target, ResourceField)
            if field is None:
                return CONFIRMED, "the field is mined out"
            spot = beside(world, field.tx, field.ty, 1, 1, pos.x, pos.y,
                          world.turns[esper.component_for_entity(actor, Team).team])
            if spot is None or not self._go(world, action, TO_FIELD, spot):
                return FAILED, "no way back to the field"
            return None
        if action.data.get("at"):                              # beside the field: mine
            action.data["phase"] = MINING
        return None

    def _to_drop(self, world, action):
        pos = esper.component_for_entity(action.actor, Position)
        drop = nearest_drop_off(world, esper.component_for_entity(action.actor, Team).team, pos.x, pos.y)
        if drop is None:
            return FAILED, "no drop-off left"
        action.data["drop"] = drop[0]
        if not self._go(world, action, TO_DROP, drop[1]):
            return FAILED, "no way to the drop-off"
        return None

    def stop(self, world, action):
        super().stop(world, action)
        worker = comp(action.actor, Worker)
        if worker is not None:
            worker.mining = 0
