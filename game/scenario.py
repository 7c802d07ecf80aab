"""Turn a scenario definition into entities: the map's doors, pickups and fields, the teams' stockpiles,
starting buildings and units."""
from __future__ import annotations

from collections import deque

from components import (Ammo, BrainState, Controller, Door, Health, Inventory, Memory, Mover, Pickup, Position,
                        ResourceField, Selectable, Squad, SquadOrder, Stance, Stockpile, Team, UnitKind, Weapon, Worker)
from content.schema import UnitDef
from content.tiles import LEGEND
from game.economy import footprint_tiles, place_building, quarter


def ticks(seconds: float, hz: int) -> int:
    return max(1, int(round(seconds * hz)))


def unit_weapon(unit: UnitDef, hz: int) -> Weapon:
    """The Weapon component a unit of type ``unit`` starts with."""
    return Weapon(range=float(unit.weapon.range), damage=float(unit.weapon.damage),
                  cooldown=ticks(unit.weapon.cooldown, hz), accuracy=float(unit.weapon.accuracy))


def spawn_unit(world, unit: UnitDef, team: int, squad: int, x: float, y: float, ai: str) -> int:
    hz = world.hz
    comps = [
        Position(float(x), float(y)),
        Mover(speed=float(unit.speed)),
        Health(float(unit.hp), float(unit.hp)),
        Team(team),
        unit_weapon(unit, hz),
        Ammo(clip=unit.ammo.clip, clip_size=unit.ammo.clip, reserve=unit.ammo.reserve,
             reload_ticks=ticks(unit.ammo.reload, hz)),
        Squad(squad),
        Selectable(radius=float(unit.radius)),
        UnitKind(unit.id),
        Controller(ai),
        Inventory(),
        Stance(unit.stance),
    ]
    if unit.worker is not None:
        comps.append(Worker(capacity=unit.worker.capacity, mine_ticks=ticks(1.0 / unit.worker.gather_rate, hz),
                            can_build=unit.worker.build))
    eid = world.create_entity(*comps)
    if ai == "brain" and unit.brain:
        world.add_decider_state(eid, BrainState(brain=unit.brain), Memory())
    return eid


#: the neighbour order of a layout as seen from the top-left quarter; quarter k turns it by k x 90 degrees
_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def free_tiles_near(world, x: int, y: int, count: int, taken: set, mirrored: bool = False, turn: int | None = None,
                    through=frozenset()) -> list[tuple[int, int]]:
    """The ``count`` walkable, untaken tiles nearest to (x, y) by 4-connected steps, in a fixed order.

    ``mirrored`` walks the neighbours in the 180-degree-rotated order, so a group spawned at the mirror
    image of another gets the mirror image of its layout (point-symmetric maps stay fair); ``turn`` (0-3) turns
    the order by that many quarter turns instead (maps symmetric under quarter turns). ``through``: blocked
    tiles the search may cross (a building the group stands around).
    """
    nav = world.nav
    k = (2 if mirrored else 0) if turn is None else turn
    steps = _STEPS
    for _ in range(k):
        steps = tuple((-dy, dx) for dx, dy in steps)
    out = []
    seen = {(x, y)}
    queue = deque([(x, y)])
    while queue and len(out) < count:
        cx, cy = queue.popleft()
        if nav.is_walkable(cx, cy) and (cx, cy) not in taken:
            out.append((cx, cy))
            taken.add((cx, cy))
        for dx, dy in steps:
            nx, ny = cx + dx, cy + dy
            if (nx, ny) not in seen and (nav.is_walkable(nx, ny) or (nx, ny) in through):
                seen.add((nx, ny))
                queue.append((nx, ny))
    return out


def populate(world) -> None:
    """Create the match's entities, in an order the entity ids (and so the sync hash) depend on: the map's
    doors, pickups and resource fields (row-major), one order holder per squad, the teams' starting buildings,
    their units, then one stockpile per team.

    A door or a field needs no nav grid update here: the grid starts from the legend's ``walkable``, which for a
    door is its start state and for a field is blocked. A starting building blocks its footprint.
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
            elif tile.field is not None:
                world.create_entity(ResourceField(tx, ty, tile.field.amount, tile.field.slots),
                                    Position(tx + 0.5, ty + 0.5))
    teams = world.scenario.teams
    for t, team in enumerate(teams):          # one entity per squad holds its orders
        for squad in sorted({spawn.squad for spawn in team.spawns}):
            world.create_entity(SquadOrder(t, squad))
    around: dict[int, set] = {}              # team -> the tiles of the building at its start (units gather round it)
    for t, team in enumerate(teams):
        start = tmap.starts[team.start] if team.start >= 0 else None
        for spec in team.buildings:
            bdef = world.content.buildings[spec.building]
            cx, cy = spec.at if spec.at is not None else start
            left, top, w, h = bdef.footprint(cx, cy)
            place_building(world, spec.building, t, left, top, complete=True)
            if spec.at is None:
                around.setdefault(t, set()).update(footprint_tiles(left, top, w, h))
    taken: set = set()
    for t, team in enumerate(teams):
        start = tmap.starts[team.start] if team.start >= 0 else None
        for spawn in team.spawns:
            unit = world.content.units[spawn.unit]
            if spawn.at is not None:
                mirrored = spawn.at[0] * 2 >= world.tilemap.width
                spots = free_tiles_near(world, spawn.at[0], spawn.at[1], spawn.count, taken, mirrored)
            else:
                spots = free_tiles_near(world, start[0], start[1], spawn.count, taken,
                                        turn=quarter(world, *start), through=around.get(t, frozenset()))
            for tx, ty in spots:
                spawn_unit(world, unit, t, spawn.squad, tx + 0.5, ty + 0.5, world.controllers[t])
    for t, team in enumerate(teams):
        world.create_entity(Stockpile(t, team.stock))
