"""order: a commander's standing order to a squad."""
from __future__ import annotations

from components import SquadOrder
from game.ledger import CONFIRMED
from systems.actions.base import Executor, comp

ORDER_KINDS = ("hold", "move", "attack")


class OrderExecutor(Executor):
    """A commander's order to a squad (actor = the squad's entity): it stands until the next order."""
    kind = "order"
    params = "kind, region, x, y (actor: a squad)"
    meaning = "a commander's standing order to a squad"
    preconditions = "the actor is a squad; kind is hold, move or attack; the region is a number; the point is on the map"
    actor_is_unit = False        # a squad entity: it has no hit points and never dies
    needs = ()

    def check_more(self, world, action):
        order = comp(action.actor, SquadOrder)
        if order is None:
            return "actor is not a squad"
        p = action.params
        if p.get("kind") not in ORDER_KINDS:
            return f"order kind must be one of {', '.join(ORDER_KINDS)}"
        if not isinstance(p.get("region"), int) or isinstance(p.get("region"), bool) or p["region"] < 0:
            return "order needs a region number"
        for key in ("x", "y"):
            if not isinstance(p.get(key), float):
                return f"order needs a point ({key})"
        if not world.nav.in_bounds(int(p["x"]), int(p["y"])):
            return "order point is outside the map"
        return None

    def update(self, world, action):
        order = comp(action.actor, SquadOrder)
        p = action.params
        order.kind, order.region, order.x, order.y, order.since = p["kind"], p["region"], p["x"], p["y"], world.tick
        return CONFIRMED, f"{p['kind']} region {p['region']}"

    def stop(self, world, action):
        pass
