"""Turn a scenario definition into entities: units at their spawns, doors and pickups from the map."""
from __future__ import annotations

from collections import deque

from components import (Ammo, BrainState, Controller, Door, Health, Inventory, Memory, Mover, Pickup, Position,
                        Selectable, Squad, SquadOrder, Team, UnitKind, Weapon)
from content.schema import UnitDef
from content.tiles import LEGEND


def ticks(seconds: float, hz: int) -> int:
    return max(1, int(round(seconds * hz)))


def spawn_unit(world, unit: UnitDef, team: int, squad: int, x: float, y: float, ai: str) -> int:
    hz = world.hz
    eid = world.create_entity(
        Position(float(x), float(y)),
        Mover(speed=float(unit.speed)),
        Health(float(unit.hp), float(unit.hp)),
        Team(team),
        Weapon(range=float(unit.weapon.range), damage=float(unit.weapon.damage),
               cooldown=ticks(unit.weapon.cooldown, hz), accuracy=float(unit.weapon.accuracy)),
        Ammo(clip=unit.ammo.clip, clip_size=unit.ammo.clip, reserve=unit.ammo.reserve,
             reload_ticks=ticks(unit.ammo.reload, hz)),
        Squad(squad),
        Selectable(radius=float(unit.radius)),
        UnitKind(unit.id),
        Controller(ai),
        Inventory(),
    )
    if ai == "brain" and unit.brain:
        world.add_decider_state(eid, BrainState(brain=unit.brain), Memory())
    return eid


def free_tiles_near(world, x: int, y: int, count: int, taken: set, mirrored: bool = False) -> list[tuple[int, int]]:
    """The ``count`` walkable, untaken tiles nearest to (x, y) by 4-connected steps, in a fixed order.

    ``mirrored`` walks the neighbours in the 180-degree-rotated order, so a group spawned at the mirror
    image of another gets the mirror image of its layout (point-symmetric maps stay fair).
    """
    nav = world.nav
    sign = -1 if mirrored else 1
    out = []
    seen = {(x, y)}
    queue = deque([(x, y)])
    while queue and len(out) < count:
        cx, cy = queue.popleft()
        if nav.is_walkable(cx, cy) and (cx, cy) not in taken:
            out.append((cx, cy))
            taken.add((cx, cy))
        for nx, ny in ((cx + sign, cy), (cx - sign, cy), (cx, cy + sign), (cx, cy - sign)):
            if (nx, ny) not in seen and nav.is_walkable(nx, ny):
                seen.add((nx, ny))
                queue.append((nx, ny))
    return out


def populate(world) -> None:
    """Create the match's entities: the map's doors and pickups (row-major), one order holder per squad, units.

    The creation order is the entity ids, which the sync hash covers, so it must not change. A door needs no
    nav grid update here: the grid starts from the legend's ``walkable``, which for a door is its start state.
    """
    world.activate()
    tmap = world.tilemap
    for ty, row in enumerate(tmap.rows):
        for tx, ch in enumerate(row):
            tile = LEGEND[ch]
            if tile.door is not None:
                world.create_entity(Door(tx, ty, tile.door), Position(tx + 0.5, ty + 0.5))
            elif tile.pickup is not None:
                world.create_entity(Pickup(tx, ty, tile.pickup.kind, tile.pickup.amount),
                                    Position(tx + 0.5, ty + 0.5))
    for t, team in enumerate(world.scenario.teams):          # one entity per squad holds its orders
        for squad in sorted({spawn.squad for spawn in team.spawns}):
            world.create_entity(SquadOrder(t, squad))
    taken: set = set()
    for t, team in enumerate(world.scenario.teams):
        for spawn in team.spawns:
            unit = world.content.units[spawn.unit]
            mirrored = spawn.at[0] * 2 >= world.tilemap.width
            for tx, ty in free_tiles_near(world, spawn.at[0], spawn.at[1], spawn.count, taken, mirrored):
                spawn_unit(world, unit, t, spawn.squad, tx + 0.5, ty + 0.5, world.controllers[t])

