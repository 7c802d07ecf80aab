"""What every action executor shares: the ``Executor`` base with its catalog row, walking, and small helpers.

An executor is how the host carries out one ledger action kind. It checks preconditions (when the ledger
accepts the action and again when it starts it), names the resources it reserves, starts, advances one tick
at a time in ``update`` and reports a terminal state with a reason. ``stop`` undoes in-world side effects of
a running action (walking, firing) when it ends for any reason. Effects are applied only inside ``update``
while the action is still started, so an action the ledger cancelled never has its effect afterwards.

Each executor class also declares its row of the action catalog (what content names and the reference
documents): ``kind``, ``params``, ``meaning``, ``preconditions`` and ``timeout_seconds``. Subclassing
``Executor`` with a ``kind`` in a module of this package is all it takes to add an action kind.
"""
from __future__ import annotations

import math

import esper
import numpy as np

from components import Ammo, Building, Health, Mover, Position, Team, Weapon
from game.economy import aim_point, fire_origin
from game import TICK_HZ
from game.ledger import FAILED, Action

ARRIVE = 0.15          # tiles: close enough to a waypoint goal


class Executor:
    """Base of every action kind. Subclasses set the catalog row and override the hooks they need.

    ``needs``: components the actor must have (checked before ``check_more``). ``lane`` and ``queue``: the
    ledger lane the kind runs in and how many of its actions the lane holds (game/ledger.py). ``actor_is_unit``:
    the actor is a living unit, so the action fails when it dies (a squad's order is not).
    """
    kind = ""                  # the action name content and the ledger use ("" = an abstract base)
    params = ""                # target and parameters, in words
    param_types: dict = {}     # parameter -> "number", "int", "bool" or "string": content validation checks them
    meaning = ""               # what it does, one line
    preconditions = ""         # what check() requires, in a designer's words
    timeout_seconds = 0.0      # game seconds after its start before the ledger times it out (0 = never)
    lane = "act"
    queue = 1
    actor_is_unit = True
    needs: tuple = (Position, Mover)
    #: ``update`` does nothing while the unit walks a route planned on the current nav grid (``Walker.arrived``
    #: returns at once and nothing else is read): the ActionSystem then skips the call. Declared per class, never
    #: inherited (a subclass that adds to ``update``, as attack_move does to move, must not be skipped).
    idle_while_walking = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.default_timeout = int(round(cls.timeout_seconds * TICK_HZ))
        cls.idle_while_walking = bool(cls.__dict__.get("idle_while_walking", False))

    def check(self, world, action: Action) -> str | None:
        """Why the action cannot run now, or None."""
        if self.actor_is_unit and not alive_unit(action.actor):
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

    def update(self, world, action: Action) -> tuple[str, str] | None:
        raise NotImplementedError

    def stop(self, world, action: Action) -> None:
        halt(world, action.actor)

    @classmethod
    def catalog_row(cls) -> dict:
        """The kind's row of the action catalog (content/catalog.py, docs/content.md)."""
        return {"params": cls.params, "meaning": cls.meaning, "preconditions": cls.preconditions,
                "timeout_seconds": cls.timeout_seconds, "param_types": dict(cls.param_types)}


def is_number(v) -> bool:
    """A finite number, as a coordinate parameter must be (a bool is not one; numpy numbers are).

    >>> [is_number(v) for v in (3, 2.5, float("nan"), True, "3", None)]
    [True, True, False, False, False, False]
    """
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return False
    if isinstance(v, int):
        return True
    if not (isinstance(v, float) or type(v).__module__ == "numpy"):
        return False
    try:
        f = float(v)
    except (TypeError, ValueError, OverflowError):
        return False
    return f == f and abs(f) != float("inf")


class Walker(Executor):
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
        action.data["doors"] = world.nav.door_version
        gx, gy = self.goal(world, action)
        set_route(world, action.actor, gx, gy)

    def arrived(self, world, action: Action) -> tuple[str, str] | None:
        """Walk on; returns a terminal result when walking failed, else None. Sets data['at'].

        The route is planned again when the unit stopped short, when a door changed since it was planned (a door
        can open a shorter way), or when the grid changed otherwise (a building, a field) and the rest of the
        route is no longer clear."""
        mover = esper.component_for_entity(action.actor, Mover)
        nav = world.nav
        if mover.moving and action.data.get("nav") == nav.version:
            # walking on a route planned on this grid: nothing to do. The ActionSystem makes this same test itself
            # for kinds that are ``idle_while_walking`` and skips the call: change both together
            return None
        pos = esper.component_for_entity(action.actor, Position)
        gx, gy = self.goal(world, action)
        if not mover.moving and math.hypot(pos.x - gx, pos.y - gy) <= ARRIVE + 1e-9:
            action.data["at"] = 1
            return None
        stale = action.data.get("nav") != nav.version
        if not mover.moving or (stale and (action.data.get("doors") != nav.door_version
                                           or not nav.route_clear(pos.x, pos.y, mover.path, mover.index))):
            action.data["nav"] = nav.version
            action.data["doors"] = nav.door_version
            if not set_route(world, action.actor, gx, gy):
                return FAILED, "path blocked"
        elif stale:
            action.data["nav"] = nav.version         # the rest of the route is still open
        return None


# -- helpers ------------------------------------------------------------------------------------------------
def comp(eid: int, cls):
    """The entity's component of ``cls``, or None (also when the entity is gone)."""
    return esper.try_component(eid, cls) if esper.entity_exists(eid) else None


def alive_unit(eid: int) -> bool:
    return esper.entity_exists(eid) and esper.has_component(eid, Health)


def start_tile(x: float, y: float, goal_x: float, goal_y: float) -> tuple[int, int]:
    """The tile a walk from (x, y) starts in. A point exactly on a tile edge belongs to the tile on the goal's side:
    plain ``int()`` would give the tile on its right or below for a unit and for its mirror image alike, and on a
    symmetric map the two would plan from different tiles (a side bias)."""
    ex = 1e-6 if goal_x > x else -1e-6 if goal_x < x else 0.0
    ey = 1e-6 if goal_y > y else -1e-6 if goal_y < y else 0.0
    return int(x + ex), int(y + ey)


def set_route(world, eid: int, goal_x: float, goal_y: float) -> bool:
    """Point the unit's Mover at (goal_x, goal_y): straight if the way is clear, else along a shortest path (docs/rules/paths.md)."""
    pos = esper.component_for_entity(eid, Position)
    mover = esper.component_for_entity(eid, Mover)
    nav = world.nav
    if nav.clear_line(pos.x, pos.y, goal_x, goal_y):
        mover.path = [goal_x, goal_y]
    else:
        waypoints = nav.find_path(start_tile(pos.x, pos.y, goal_x, goal_y), (int(goal_x), int(goal_y)))
        if waypoints is None:
            return False
        flat = []
        for wx, wy in waypoints[1:-1]:
            flat += [wx, wy]
        mover.path = flat + [goal_x, goal_y]   # end exactly on the goal, not its tile centre
    mover.index = 0
    mover.moving = True
    return True


def halt(world, eid: int) -> None:
    """Stop walking (and tell the ActionSystem: ``World.stopped_movers``)."""
    mover = comp(eid, Mover)
    if mover is not None:
        if mover.moving:
            world.stopped_movers.add(eid)
        mover.path = []
        mover.index = 0
        mover.moving = False


def cease_fire(eid: int) -> None:
    """Stop the combat system firing for this unit (a firing action ended)."""
    weapon = comp(eid, Weapon)
    if weapon is not None:
        weapon.target = 0


def enemy_in_range(world, eid: int) -> int:
    """The nearest living enemy unit within weapon range and line of fire, else the nearest enemy building so
    (0 if none; ties to the lowest id). A turret (a building) measures from its edge facing the target."""
    pos = esper.component_for_entity(eid, Position)
    weapon = esper.component_for_entity(eid, Weapon)
    team = esper.component_for_entity(eid, Team).team
    r2 = weapon.range * weapon.range
    shooter_is_building = esper.has_component(eid, Building)
    units, buildings = world.enemy_arrays(team)
    for ids, xs, ys in (units, buildings):
        # a building is measured to its nearest wall (and a turret from its own), so a centre up to half a large
        # footprint further away may still be in range
        slack = 0.0 if ids is units[0] and not shooter_is_building else 6.0
        if not len(ids):
            continue
        d2 = (xs - pos.x) ** 2 + (ys - pos.y) ** 2
        near = np.flatnonzero(d2 <= (weapon.range + slack) ** 2)
        # nearest first, ties to the lowest id (the same answer as scanning each enemy team and keeping the best)
        for i in near[np.lexsort((ids[near], d2[near]))]:
            target = int(ids[i])
            sx, sy = fire_origin(eid, float(xs[i]), float(ys[i]))
            ax, ay = aim_point(target, sx, sy)
            dd = (ax - sx) ** 2 + (ay - sy) ** 2
            if dd <= r2 and world.nav.clear_line(sx, sy, ax, ay):
                return target
    return 0


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
