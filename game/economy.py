"""The economy's rules on a running world: stockpiles, population, prerequisites, buildings on the grid.

Everything here reads or changes world state (components, the nav grid) and is called by the host: the action
executors (gather, return, build, train), scenario population and the death system. The numbers come from
content (units' and buildings' costs, build times, population; fields' amounts), never from here.

- **Stockpile**: one ``Stockpile`` component per team (on its own entity); costs are whole resources. A cost is
  held by the ledger as a pool reservation on ``("stock", team)`` while an action waits, so what a team can
  still commit is ``amount - held`` (``available``).
- **Population**: the cap is the sum of the team's *complete* buildings' ``population`` (at most
  ``POPULATION_LIMIT``); what is used is its living units' ``population`` plus the units its buildings are
  training now.
- **Prerequisites**: a unit or building type ``requires`` building types the team has completed.
- **Buildings** cover a footprint of tiles that block movement; placing one and removing one update the nav grid
  tile by tile (``NavGrid.set_blocked``), never rebuilding it.
"""
from __future__ import annotations

import esper

from components import (Building, Health, Position, Rally, Selectable, Stockpile, Team, UnitKind, Weapon, Ammo,
                        ResourceField)

POPULATION_LIMIT = 200
#: construction starts at this fraction of the building's hit points and grows to full with the work
START_HP = 0.1
#: a building's gun never runs dry: its clip is refilled by the turret system
TURRET_CLIP = 1_000_000


def stockpile(world, team: int) -> Stockpile:
    """The team's stockpile component."""
    cache = world.stockpiles
    stock = cache.get(team)
    if stock is None:
        world.activate()
        for _eid, s in esper.get_component(Stockpile):
            cache[s.team] = s
        stock = cache[team]
    return stock


def freed_hold(world, action, pool: tuple) -> int:
    """How much of ``pool`` counts as free for ``action``: what it holds itself (its check runs again when it
    starts), plus what the actor's current action in the same one-action lane holds (accepting this one
    supersedes it, releasing that). So a worker re-ordered to the field it mines, or to build again, is not
    refused by its own hold."""
    held = sum(r[-1] for r in action.reservations if tuple(r[:-1]) == pool and type(r[-1]) is int)
    lane, queue = world.ledger.lane_of(action)
    current = world.ledger.current(action.actor, lane)
    if queue == 1 and current is not None and current is not action:
        held += sum(r[-1] for r in current.reservations if tuple(r[:-1]) == pool and type(r[-1]) is int)
    return held


def available(world, team: int, own_hold: int = 0) -> int:
    """What the team can still commit: its stockpile less what the ledger holds for waiting actions (plus
    ``own_hold``, the amount the asking action itself already holds)."""
    return stockpile(world, team).amount - world.ledger.held_amount(("stock", team)) + own_hold


def buildings_of(world, team: int, done_only: bool = False) -> list[tuple[int, Building]]:
    """(entity, Building) of the team's buildings, ascending id."""
    world.activate()
    return sorted((eid, b) for eid, (b, t) in esper.get_components(Building, Team)
                  if t.team == team and (b.done or not done_only))


def completed_kinds(world, team: int) -> set[str]:
    return {b.kind for _e, b in buildings_of(world, team, done_only=True)}


def missing_requirements(world, team: int, requires) -> list[str]:
    """The building types of ``requires`` the team has not completed, in order."""
    have = completed_kinds(world, team)
    return [r for r in requires if r not in have]


def population_cap(world, team: int) -> int:
    """What the team's complete buildings house, at most ``POPULATION_LIMIT``. The team's housing buildings are
    listed once while esper hands out the same rows (``World.kept``); whether each is complete is read live."""
    world.activate()
    rows = esper.get_components(Building, Team)

    def housing() -> dict[int, list]:
        defs = world.content.buildings
        out: dict[int, list] = {}
        for _e, (b, t) in rows:
            if b.kind in defs and defs[b.kind].population:
                out.setdefault(t.team, []).append((b, defs[b.kind].population))
        return out

    listed = world.kept("housing", (rows, world.content), housing)
    return min(POPULATION_LIMIT, sum(pop for b, pop in listed.get(team, ()) if b.done))


def population_used(world, team: int) -> int:
    """Living units' population plus the units the team's buildings are training now (started).

    Worked out for every team at once and kept (``World.kept``) until a unit is made or removed (esper hands out a
    new cached row list then) or an action joins, starts or leaves the ledger (its ``version``): training
    buildings ask for it every tick while they wait at the cap."""
    world.activate()
    rows = esper.get_components(UnitKind, Team)

    def count() -> dict:
        units = world.content.units
        used: dict = {}
        for _e, (k, t) in rows:
            if k.kind in units:
                used[t.team] = used.get(t.team, 0) + units[k.kind].population
        for action in world.ledger.active_sorted():
            if action.kind == "train" and action.state == "started":
                owner = action.data.get("team")
                used[owner] = used.get(owner, 0) + units[action.params["unit"]].population
        return used

    return world.kept("population", (rows, world.ledger.version, world.content), count).get(team, 0)


# -- buildings on the grid ------------------------------------------------------------------------------------
def footprint_tiles(tx: int, ty: int, w: int, h: int) -> list[tuple[int, int]]:
    return [(x, y) for y in range(ty, ty + h) for x in range(tx, tx + w)]


def site_problem(world, kind: str, tx: int, ty: int, ignore: int = 0, units: bool = True) -> str | None:
    """Why a building of ``kind`` cannot be placed with its top-left tile at (tx, ty) now, or None.

    Every footprint tile must be inside the map, open floor (not a wall, door or field) and free of buildings and
    (with ``units``) of units other than ``ignore`` (the builder, which steps aside)."""
    bdef = world.content.buildings.get(kind)
    if bdef is None:
        return f"unknown building '{kind}'"
    w, h = bdef.size
    nav = world.nav
    for x, y in footprint_tiles(tx, ty, w, h):
        if not nav.in_bounds(x, y):
            return f"tile ({x}, {y}) is outside the map"
        if not nav.is_walkable(x, y) or nav.is_door(x, y):
            return f"tile ({x}, {y}) is not open floor"
    if not units:
        return None
    world.activate()
    for eid, (pos, _h) in esper.get_components(Position, Health):
        if eid != ignore and esper.has_component(eid, UnitKind) and tx <= pos.x < tx + w and ty <= pos.y < ty + h:
            return f"unit {eid} stands on the site"
    return None


def place_building(world, kind: str, team: int, tx: int, ty: int, complete: bool) -> int:
    """Create a building entity (complete, or a construction site at a tenth of its hit points) and block its
    footprint on the nav grid. Returns the entity."""
    bdef = world.content.buildings[kind]
    w, h = bdef.size
    needed = max(1, int(round(bdef.build_time * world.hz)))
    hp = float(bdef.hp) if complete else float(bdef.hp) * START_HP
    comps = [Position(tx + w / 2, ty + h / 2), Team(team), Health(hp, float(bdef.hp)),
             Building(kind, tx, ty, w, h, needed if complete else 0, needed), Selectable(radius=min(w, h) / 2)]
    if bdef.trains:
        comps.append(Rally())
    if bdef.weapon is not None:
        comps.append(Weapon(range=float(bdef.weapon.range), damage=float(bdef.weapon.damage),
                            cooldown=max(1, int(round(bdef.weapon.cooldown * world.hz))),
                            accuracy=float(bdef.weapon.accuracy)))
        comps.append(Ammo(clip=TURRET_CLIP, clip_size=TURRET_CLIP, reserve=0, reload_ticks=1))
    eid = world.create_entity(*comps)
    world.nav.set_blocked(footprint_tiles(tx, ty, w, h), True)
    return eid


def remove_building(world, eid: int) -> None:
    """Free a destroyed building's footprint on the nav grid (the entity itself is deleted by the caller)."""
    b = esper.component_for_entity(eid, Building)
    world.nav.set_blocked(footprint_tiles(b.tx, b.ty, b.w, b.h), False)


def remove_field(world, eid: int) -> None:
    """A mined-out field: its tile becomes floor."""
    f = esper.component_for_entity(eid, ResourceField)
    world.nav.set_blocked([(f.tx, f.ty)], False)


def rally_point(world, eid: int) -> tuple[float, float] | None:
    rally = esper.try_component(eid, Rally)
    return (rally.x, rally.y) if rally is not None and rally.on else None


# -- fairness on symmetric maps -----------------------------------------------------------------------------------
def quarter(world, x: float, y: float) -> int:
    """Which quarter of the map (x, y) lies in, clockwise from the top-left: 0, 1, 2, 3."""
    right, lower = x * 2 >= world.tilemap.width, y * 2 >= world.tilemap.height
    return (1 if right else 0) if not lower else (2 if right else 3)


def near_key(d2: float) -> float:
    """A squared distance rounded to a millionth of a tile, for comparing: positions drift by float rounding
    (a unit and its mirror image a few ulps apart), and two candidates that are equally near must tie, so that
    the turned tie-break below decides, the same way for both sides."""
    return round(d2, 6)


def turned(dx: float, dy: float, k: int) -> tuple[float, float]:
    """The offset (dx, dy) seen from the top-left quarter's frame when it was taken in quarter ``k``: ties broken
    on turned offsets come out the same for mirror-image units on maps symmetric under half or quarter turns."""
    for _ in range(k):
        dx, dy = dy, -dx
    return dy, dx


# -- where a unit stands to work at a footprint ----------------------------------------------------------------
def beside(world, tx: int, ty: int, w: int, h: int, x: float, y: float, turn: int = 0) -> tuple[float, float] | None:
    """The centre of the walkable tile next to the footprint [tx, tx+w) x [ty, ty+h) nearest to (x, y) that a
    unit at (x, y) can reach (ties broken on offsets turned by ``turn``, the unit's team's quarter:
    ``world.turns``); None when there is none."""
    nav = world.nav
    ring = ((nx, ny) for ny in range(ty - 1, ty + h + 1) for nx in range(tx - 1, tx + w + 1)
            if not (tx <= nx < tx + w and ty <= ny < ty + h))
    return nearest_tile(((nx, ny) for nx, ny in ring
                         if nav.is_walkable(nx, ny) and nav.reachable(x, y, nx, ny)), x, y, turn)


def nearest_tile(tiles, x: float, y: float, turn: int = 0) -> tuple[float, float] | None:
    """The centre of the tile of ``tiles`` (tx, ty) nearest to (x, y): distances compared at ``near_key``'s
    precision, ties broken on offsets turned by ``turn`` (the team's quarter), then on the tile; None when
    ``tiles`` is empty.

    >>> nearest_tile([(3, 0), (0, 3), (1, 1)], 0.5, 0.5)
    (1.5, 1.5)
    """
    best = None
    for tx, ty in tiles:
        dx, dy = tx + 0.5 - x, ty + 0.5 - y
        cand = (near_key(dx * dx + dy * dy),) + turned(round(dx, 6), round(dy, 6), turn) + (tx, ty)
        if best is None or cand < best:
            best = cand
    return None if best is None else (best[3] + 0.5, best[4] + 0.5)


def walkable_near(world, x: float, y: float, turn: int, reach: int = 6) -> tuple[float, float] | None:
    """The centre of the walkable tile nearest to (x, y) within ``reach`` tiles (ties broken on offsets turned
    with the team's quarter), or None."""
    nav = world.nav
    cx, cy = int(x), int(y)
    return nearest_tile(((tx, ty) for ty in range(cy - reach, cy + reach + 1)
                         for tx in range(cx - reach, cx + reach + 1)
                         if nav.in_bounds(tx, ty) and nav.is_walkable(tx, ty)), x, y, turn)


def touching(tx: int, ty: int, w: int, h: int, x: float, y: float, reach: float = 0.75) -> bool:
    """Is the point (x, y) within ``reach`` tiles of the footprint's edge?"""
    dx = max(tx - x, 0.0, x - (tx + w))
    dy = max(ty - y, 0.0, y - (ty + h))
    return dx * dx + dy * dy <= reach * reach + 1e-9     # within rounding, as for a unit and its mirror image


def aim_point(eid: int, from_x: float, from_y: float) -> tuple[float, float]:
    """Where a shot from (from_x, from_y) at ``eid`` lands: a unit's position, or the point of a building's
    footprint nearest to the shooter, nudged just outside it so the line of fire ends on open ground."""
    b = esper.try_component(eid, Building)
    pos = esper.component_for_entity(eid, Position)
    if b is None:
        return pos.x, pos.y
    return _edge_point(b, from_x, from_y)


def _edge_point(b: Building, x: float, y: float, nudge: float = 0.01) -> tuple[float, float]:
    cx = min(max(x, b.tx), b.tx + b.w)
    cy = min(max(y, b.ty), b.ty + b.h)
    if cx == b.tx:
        cx -= nudge
    elif cx == b.tx + b.w:
        cx += nudge
    if cy == b.ty:
        cy -= nudge
    elif cy == b.ty + b.h:
        cy += nudge
    return cx, cy


def fire_origin(eid: int, at_x: float, at_y: float) -> tuple[float, float]:
    """Where a shot by ``eid`` at (at_x, at_y) leaves from: a unit's position, or a building's edge facing it."""
    return aim_point(eid, at_x, at_y)
