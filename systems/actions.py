"""Action executors: how the host carries out each ledger action kind.

Each executor checks preconditions (at acceptance and again at start), names
the resources it reserves, starts, advances one tick at a time and reports a
terminal state with a reason. ``stop`` undoes in-world side effects of a
running action (walking, firing) when it ends for any reason. Effects are
applied only inside ``update`` while the action is still started, so an action
the ledger cancelled never has its effect afterwards.

``ActionSystem`` is the processor that advances every started action, in
ascending action id, once per tick.
"""
from __future__ import annotations

import math

import esper

from components import Ammo, Door, Health, Inventory, Mover, Pickup, Position, SquadOrder, Team, Weapon
from game.ledger import CONFIRMED, FAILED, STARTED, Action
from systems.base import System

ARRIVE = 0.15          # tiles: close enough to a waypoint goal
REPATH_TICKS = 15      # how often a chase re-plans its route


def _comp(eid: int, cls):
    return esper.try_component(eid, cls) if esper.entity_exists(eid) else None


def set_route(world, eid: int, goal_x: float, goal_y: float) -> bool:
    """Point the unit's Mover at (goal_x, goal_y): straight if the way is clear, else along A*."""
    pos = esper.component_for_entity(eid, Position)
    mover = esper.component_for_entity(eid, Mover)
    nav = world.nav
    if nav.clear_line(pos.x, pos.y, goal_x, goal_y):
        mover.path = [goal_x, goal_y]
    else:
        waypoints = nav.find_path((int(pos.x), int(pos.y)), (int(goal_x), int(goal_y)))
        if waypoints is None:
            return False
        flat = []
        for wx, wy in waypoints[1:-1]:
            flat += [wx, wy]
        mover.path = flat + [goal_x, goal_y]   # end exactly on the goal, not its tile centre
    mover.index = 0
    mover.moving = True
    return True


def halt(eid: int) -> None:
    mover = _comp(eid, Mover)
    if mover is not None:
        mover.path = []
        mover.index = 0
        mover.moving = False


def cease_fire(eid: int) -> None:
    """Stop the combat system firing for this unit (a firing action ended)."""
    weapon = _comp(eid, Weapon)
    if weapon is not None:
        weapon.target = 0


def _alive_unit(eid: int) -> bool:
    return esper.entity_exists(eid) and esper.has_component(eid, Health)


class _Base:
    default_timeout = 0
    needs = (Position, Mover)

    def check(self, world, action: Action) -> str | None:
        if not _alive_unit(action.actor):
            return "actor does not exist"
        for cls in self.needs:
            if not esper.has_component(action.actor, cls):
                return f"actor cannot {action.kind}"
        return self.check_more(world, action)

    def check_more(self, world, action: Action) -> str | None:
        return None

    def reservations(self, world, action: Action) -> list[tuple]:
        return []

    def start(self, world, action: Action) -> None:
        pass

    def stop(self, world, action: Action) -> None:
        halt(action.actor)


class _Walker(_Base):
    """Shared behaviour of actions that walk to a spot and then do something there."""

    def goal(self, world, action: Action) -> tuple[float, float]:
        raise NotImplementedError

    def check_walk(self, world, action: Action) -> str | None:
        gx, gy = self.goal(world, action)
        if not world.nav.is_walkable(int(gx), int(gy)):
            return f"tile ({int(gx)}, {int(gy)}) is not walkable"
        pos = esper.component_for_entity(action.actor, Position)
        if not world.nav.clear_line(pos.x, pos.y, gx, gy) and \
                world.nav.find_path((int(pos.x), int(pos.y)), (int(gx), int(gy))) is None:
            return "no path"
        return None

    def start(self, world, action: Action) -> None:
        action.data["nav"] = world.nav.version
        gx, gy = self.goal(world, action)
        set_route(world, action.actor, gx, gy)

    def arrived(self, world, action: Action) -> tuple[str, str] | None:
        """Walk on; returns a terminal result when walking failed, else None. Sets data['at']."""
        pos = esper.component_for_entity(action.actor, Position)
        mover = esper.component_for_entity(action.actor, Mover)
        gx, gy = self.goal(world, action)
        if not mover.moving and math.hypot(pos.x - gx, pos.y - gy) <= ARRIVE:
            action.data["at"] = 1
            return None
        if action.data.get("nav") != world.nav.version or not mover.moving:
            action.data["nav"] = world.nav.version
            if not set_route(world, action.actor, gx, gy):
                return FAILED, "path blocked"
        return None


class MoveExecutor(_Walker):
    default_timeout = 90 * 30

    def goal(self, world, action):
        return float(action.params.get("x", -1.0)), float(action.params.get("y", -1.0))

    def check_more(self, world, action):
        gx, gy = self.goal(world, action)
        if not world.nav.in_bounds(int(gx), int(gy)) or gx < 0 or gy < 0:
            return "destination outside the map"
        return self.check_walk(world, action)

    def update(self, world, action):
        result = self.arrived(world, action)
        if result:
            return result
        if action.data.get("at"):
            return CONFIRMED, "arrived"
        return None


class AttackExecutor(_Base):
    default_timeout = 180 * 30
    needs = (Position, Mover, Weapon, Ammo, Team)

    def check_more(self, world, action):
        if not _alive_unit(action.target):
            return "target does not exist"
        if esper.component_for_entity(action.target, Team).team == esper.component_for_entity(action.actor, Team).team:
            return "target is on the same team"
        if esper.component_for_entity(action.actor, Ammo).clip <= 0:
            return "clip empty"
        return None

    def reservations(self, world, action):
        return [("target", action.target, False)]

    def start(self, world, action):
        action.data["next_route"] = world.tick

    def update(self, world, action):
        if not _alive_unit(action.target):
            return CONFIRMED, "target destroyed"
        actor = action.actor
        ammo = esper.component_for_entity(actor, Ammo)
        if ammo.clip <= 0:
            return FAILED, "clip empty" if ammo.reserve > 0 else "out of ammo"
        pos = esper.component_for_entity(actor, Position)
        weapon = esper.component_for_entity(actor, Weapon)
        tpos = esper.component_for_entity(action.target, Position)
        dist = math.hypot(pos.x - tpos.x, pos.y - tpos.y)
        if dist <= weapon.range and world.nav.clear_line(pos.x, pos.y, tpos.x, tpos.y):
            if weapon.target != action.target:
                weapon.target = action.target
                halt(actor)
            return None
        weapon.target = 0
        if action.params.get("hold"):
            return FAILED, "target left range"   # a held attack never chases
        mover = esper.component_for_entity(actor, Mover)
        if world.tick >= action.data["next_route"] or not mover.moving:
            action.data["next_route"] = world.tick + REPATH_TICKS
            if not set_route(world, actor, tpos.x, tpos.y):
                return FAILED, "no path to target"
        return None

    def stop(self, world, action):
        cease_fire(action.actor)
        halt(action.actor)


class ReloadExecutor(_Base):
    default_timeout = 30 * 30
    needs = (Ammo,)

    def check_more(self, world, action):
        ammo = esper.component_for_entity(action.actor, Ammo)
        if ammo.reserve <= 0:
            return "no reserve ammunition"
        if ammo.clip >= ammo.clip_size:
            return "clip already full"
        return None

    def start(self, world, action):
        halt(action.actor)
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


class PickupExecutor(_Walker):
    """Walk onto a pickup's tile and take it (target = pickup entity); 'pick_up_key' is the same for keys."""
    default_timeout = 90 * 30

    def __init__(self, only_kind: str | None = None):
        self.only_kind = only_kind

    def goal(self, world, action):
        pick = esper.component_for_entity(action.target, Pickup)
        return pick.tx + 0.5, pick.ty + 0.5

    def check_more(self, world, action):
        pick = _comp(action.target, Pickup)
        if pick is None:
            return "pickup does not exist"
        if self.only_kind and pick.kind != self.only_kind:
            return f"target is not a {self.only_kind}"
        return self.check_walk(world, action)

    def reservations(self, world, action):
        return [("pickup", action.target, True)]

    def update(self, world, action):
        pick = _comp(action.target, Pickup)
        if pick is None:
            return FAILED, "pickup is gone"
        result = self.arrived(world, action)
        if result:
            return result
        if not action.data.get("at"):
            return None
        if pick.kind == "ammo":
            esper.component_for_entity(action.actor, Ammo).reserve += pick.amount
        elif pick.kind == "key":
            inv = _comp(action.actor, Inventory)
            if inv is None:
                return FAILED, "actor cannot carry keys"
            inv.keys += pick.amount
        esper.delete_entity(action.target, immediate=True)
        return CONFIRMED, f"picked up {pick.kind}"


class OpenDoorExecutor(_Walker):
    default_timeout = 90 * 30

    def goal(self, world, action):
        return action.data.get("gx", -1.0), action.data.get("gy", -1.0)

    def _stand_tile(self, world, action) -> tuple[float, float] | None:
        door = esper.component_for_entity(action.target, Door)
        pos = esper.component_for_entity(action.actor, Position)
        options = []
        for nx, ny in ((door.tx, door.ty + 1), (door.tx, door.ty - 1), (door.tx + 1, door.ty), (door.tx - 1, door.ty)):
            if world.nav.is_walkable(nx, ny):
                options.append((math.hypot(pos.x - nx - 0.5, pos.y - ny - 0.5), nx, ny))
        for _d, nx, ny in sorted(options):
            if world.nav.clear_line(pos.x, pos.y, nx + 0.5, ny + 0.5) or \
                    world.nav.find_path((int(pos.x), int(pos.y)), (nx, ny)) is not None:
                return nx + 0.5, ny + 0.5
        return None

    def check_more(self, world, action):
        door = _comp(action.target, Door)
        if door is None:
            return "door does not exist"
        if door.state == "open":
            return "door is already open"
        if door.state == "locked":
            inv = _comp(action.actor, Inventory)
            if inv is None or inv.keys <= 0:
                return "door is locked and actor has no key"
        spot = self._stand_tile(world, action)
        if spot is None:
            return "no path to the door"
        action.data["gx"], action.data["gy"] = spot
        return None

    def reservations(self, world, action):
        return [("door", action.target, True)]

    def update(self, world, action):
        door = _comp(action.target, Door)
        if door is None:
            return FAILED, "door is gone"
        if door.state == "open":
            return CONFIRMED, "door already open"
        result = self.arrived(world, action)
        if result:
            return result
        if not action.data.get("at"):
            return None
        if door.state == "locked":
            inv = _comp(action.actor, Inventory)
            if inv is None or inv.keys <= 0:
                return FAILED, "no key"
            inv.keys -= 1
        door.state = "open"
        world.nav.set_door(door.tx, door.ty, "open")
        return CONFIRMED, "door opened"


class EnterCoverExecutor(_Walker):
    default_timeout = 90 * 30

    def goal(self, world, action):
        return int(action.params.get("x", -1)) + 0.5, int(action.params.get("y", -1)) + 0.5

    def check_more(self, world, action):
        x, y = int(action.params.get("x", -1)), int(action.params.get("y", -1))
        if not world.nav.is_cover(x, y):
            return f"tile ({x}, {y}) is not cover"
        return self.check_walk(world, action)

    def reservations(self, world, action):
        return [("cover", int(action.params["x"]), int(action.params["y"]), True)]

    def update(self, world, action):
        result = self.arrived(world, action)
        if result:
            return result
        return (CONFIRMED, "in cover") if action.data.get("at") else None


def enemy_in_range(world, eid: int) -> int:
    """The nearest living enemy within weapon range and line of fire (0 if none; ties to the lowest id)."""
    pos = esper.component_for_entity(eid, Position)
    weapon = esper.component_for_entity(eid, Weapon)
    team = esper.component_for_entity(eid, Team).team
    best = None
    r2 = weapon.range * weapon.range
    for other, (ids, xs, ys) in sorted(world.team_index().items()):
        if other == team or not len(ids):
            continue
        d2 = (xs - pos.x) ** 2 + (ys - pos.y) ** 2
        for i in d2.argsort(kind="stable"):
            if d2[i] > r2:
                break
            if world.nav.clear_line(pos.x, pos.y, float(xs[i]), float(ys[i])):
                cand = (float(d2[i]), int(ids[i]))
                if best is None or cand < best:
                    best = cand
                break
    return 0 if best is None else best[1]


def reload_in_place(action: Action, ammo: Ammo) -> bool:
    """An empty clip with rounds in reserve is refilled over the unit's reload time (held and attack-move orders
    reload by themselves). True while reloading."""
    left = action.data.get("reload_left")
    if left is None:
        if ammo.clip > 0 or ammo.reserve <= 0:
            return False
        action.data["reload_left"] = ammo.reload_ticks
        return True
    if left > 1:
        action.data["reload_left"] = left - 1
        return True
    n = min(ammo.clip_size - ammo.clip, ammo.reserve)
    ammo.clip += n
    ammo.reserve -= n
    del action.data["reload_left"]
    return False


class AttackMoveExecutor(MoveExecutor):
    """Walk to a point, stopping to fire at any enemy that comes within range; confirmed on arrival."""
    default_timeout = 180 * 30
    needs = (Position, Mover, Weapon, Ammo, Team)

    def update(self, world, action):
        actor = action.actor
        weapon = esper.component_for_entity(actor, Weapon)
        ammo = esper.component_for_entity(actor, Ammo)
        reload_in_place(action, ammo)
        enemy = enemy_in_range(world, actor) if ammo.clip > 0 else 0
        if enemy:
            if weapon.target != enemy:
                weapon.target = enemy
                halt(actor)
            return None
        if weapon.target:
            weapon.target = 0
            action.data.pop("at", None)
            action.data["nav"] = -1                 # walk on after the fight
        result = self.arrived(world, action)
        if result:
            return result
        return (CONFIRMED, "arrived") if action.data.get("at") else None

    def stop(self, world, action):
        cease_fire(action.actor)
        halt(action.actor)


class HoldExecutor(_Base):
    """Stand still and fire at enemies in range without ever chasing them; lasts until replaced or cancelled."""
    needs = (Position, Mover, Weapon, Ammo, Team)

    def start(self, world, action):
        halt(action.actor)

    def update(self, world, action):
        weapon = esper.component_for_entity(action.actor, Weapon)
        ammo = esper.component_for_entity(action.actor, Ammo)
        reload_in_place(action, ammo)
        weapon.target = enemy_in_range(world, action.actor) if ammo.clip > 0 else 0
        return None

    def stop(self, world, action):
        cease_fire(action.actor)


class WaitExecutor(_Base):
    needs = ()

    def check_more(self, world, action):
        t = action.params.get("ticks", 0)
        if not isinstance(t, int) or t < 0:
            return "wait needs a non-negative whole number of ticks"
        return None

    def start(self, world, action):
        halt(action.actor)
        action.data["left"] = int(action.params.get("ticks", 0))

    def update(self, world, action):
        if action.data["left"] <= 0:
            return CONFIRMED, "waited"
        action.data["left"] -= 1
        return None


ORDER_KINDS = ("hold", "move", "attack")


class OrderExecutor:
    """A commander's order to a squad (actor = the squad's entity): it stands until the next order."""
    default_timeout = 0

    def check(self, world, action):
        order = _comp(action.actor, SquadOrder)
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

    def reservations(self, world, action):
        return []

    def start(self, world, action):
        pass

    def update(self, world, action):
        order = _comp(action.actor, SquadOrder)
        p = action.params
        order.kind, order.region, order.x, order.y, order.since = p["kind"], p["region"], p["x"], p["y"], world.tick
        return CONFIRMED, f"{p['kind']} region {p['region']}"

    def stop(self, world, action):
        pass


def build_executors() -> dict:
    return {
        "move": MoveExecutor(),
        "attack": AttackExecutor(),
        "reload": ReloadExecutor(),
        "pickup": PickupExecutor(),
        "pick_up_key": PickupExecutor("key"),
        "open_door": OpenDoorExecutor(),
        "enter_cover": EnterCoverExecutor(),
        "wait": WaitExecutor(),
        "order": OrderExecutor(),
        "attack_move": AttackMoveExecutor(),
        "hold": HoldExecutor(),
    }


class ActionSystem(System):
    """Advance every started action one tick, lowest action id first."""

    def run(self, world):
        ledger = world.ledger
        for action in ledger.active_sorted():
            if action.state != STARTED:
                continue
            if action.kind != "order" and not _alive_unit(action.actor):
                ledger.actor_gone(world, action.actor)
                continue
            result = ledger.executors[action.kind].update(world, action)
            if result is not None and action.state == STARTED:
                ledger.finish(world, action, *result)
