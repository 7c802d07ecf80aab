"""Player commands turned into ledger submissions (no drawing here, so it is testable headless).

Units and buildings are told apart by ``UnitKind`` / ``Building``: a box selects units (buildings only when the
box holds no unit), a click picks the unit under the cursor, else the building whose footprint it is on.
The economy's orders (gather, return, build, train, rally) are submitted like every other order, with source
"player"; what the command card may offer (and why a button is greyed) is computed here too, from the same
rules the executors check (game/economy.py), so the window only draws it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import esper

from components import Building, Health, Position, Rally, ResourceField, Selectable, Team, UnitKind, Worker
from game import economy
from game.scenario import free_tiles_near

SOURCE = "player"
#: tiles from a right-clicked field within which the other fields share out the workers the field has no slot for
FIELD_SPREAD = 6.0


# -- what is where --------------------------------------------------------------------------------------------
def is_building(eid: int) -> bool:
    return esper.has_component(eid, Building)


def units_in_box(world, team: int, x0: float, y0: float, x1: float, y1: float) -> list[int]:
    """Own living units (not buildings) whose centre lies in the box (world tile units), ascending id."""
    lx, hx = sorted((x0, x1))
    ly, hy = sorted((y0, y1))
    world.activate()
    return sorted(eid for eid, (t, pos, _h, _k) in esper.get_components(Team, Position, Health, UnitKind)
                  if t.team == team and lx <= pos.x <= hx and ly <= pos.y <= hy)


def buildings_in_box(world, team: int, x0: float, y0: float, x1: float, y1: float) -> list[int]:
    """Own buildings whose footprint overlaps the box, ascending id."""
    lx, hx = sorted((x0, x1))
    ly, hy = sorted((y0, y1))
    world.activate()
    return sorted(eid for eid, (t, b) in esper.get_components(Team, Building)
                  if t.team == team and b.tx <= hx and lx <= b.tx + b.w and b.ty <= hy and ly <= b.ty + b.h)


def select_box(world, team: int, x0: float, y0: float, x1: float, y1: float) -> list[int]:
    """A drag box: the own units in it, or the own buildings it touches when it holds no unit."""
    return units_in_box(world, team, x0, y0, x1, y1) or buildings_in_box(world, team, x0, y0, x1, y1)


def unit_at(world, x: float, y: float, team: int | None = None, exclude_team: int | None = None) -> int | None:
    """The living unit (not a building) under (x, y) (within its radius plus a little slack), nearest first."""
    world.activate()
    best = None
    for eid, (t, pos, sel, _h, _k) in esper.get_components(Team, Position, Selectable, Health, UnitKind):
        if team is not None and t.team != team:
            continue
        if exclude_team is not None and t.team == exclude_team:
            continue
        d = math.hypot(pos.x - x, pos.y - y)
        if d <= sel.radius + 0.25 and (best is None or (d, eid) < best):
            best = (d, eid)
    return None if best is None else best[1]


def building_at(world, x: float, y: float, team: int | None = None, exclude_team: int | None = None) -> int | None:
    """The building whose footprint holds (x, y), or None."""
    world.activate()
    for eid, (t, b) in sorted(esper.get_components(Team, Building)):
        if team is not None and t.team != team:
            continue
        if exclude_team is not None and t.team == exclude_team:
            continue
        if b.tx <= x < b.tx + b.w and b.ty <= y < b.ty + b.h:
            return eid
    return None


def entity_at(world, x: float, y: float, team: int | None = None, exclude_team: int | None = None) -> int | None:
    """A click: the unit under (x, y), else the building there."""
    hit = unit_at(world, x, y, team=team, exclude_team=exclude_team)
    return hit if hit is not None else building_at(world, x, y, team=team, exclude_team=exclude_team)


def field_at(world, x: float, y: float) -> int | None:
    """The resource field on the tile holding (x, y), or None."""
    tx, ty = math.floor(x), math.floor(y)
    world.activate()
    for eid, f in esper.get_component(ResourceField):
        if f.tx == tx and f.ty == ty:
            return eid
    return None


def enemy_at(world, team: int, x: float, y: float) -> int | None:
    """A unit, else a building, of a team on another side under (x, y)."""
    world.activate()
    for pick in (unit_at, building_at):
        best = None
        for t in range(len(world.scenario.teams)):
            if world.enemies(team, t):
                hit = pick(world, x, y, team=t)
                if hit is not None and (best is None or hit < best):
                    best = hit
        if best is not None:
            return best
    return None


def live(world, selected: list[int]) -> list[int]:
    """The selected entities that still exist (units and buildings)."""
    world.activate()
    return [eid for eid in selected if esper.entity_exists(eid) and esper.has_component(eid, Health)]


def live_units(world, selected: list[int]) -> list[int]:
    """The selected living units (buildings left out: they take no unit orders)."""
    return [eid for eid in live(world, selected) if esper.has_component(eid, UnitKind)]


def is_worker(eid: int) -> bool:
    return esper.has_component(eid, Worker)


# -- unit orders ------------------------------------------------------------------------------------------
def _spread(world, selected: list[int], x: float, y: float) -> list[tuple[int, float, float]]:
    """Each selected unit's own spot near (x, y): a group spreads over the nearest free tiles (a lone unit goes to
    the point itself when it is open floor)."""
    tx, ty = math.floor(x), math.floor(y)
    open_floor = world.nav.is_walkable(tx, ty)
    through = {(tx, ty)}
    if not open_floor:                                   # on a building: spread round its whole footprint
        eid = building_at(world, x, y)
        if eid is not None:
            b = esper.component_for_entity(eid, Building)
            through = {(bx, by) for by in range(b.ty, b.ty + b.h) for bx in range(b.tx, b.tx + b.w)}
    spots = free_tiles_near(world, tx, ty, len(selected), set(), through=frozenset(through))
    out = []
    for eid, (tx, ty) in zip(selected, spots):
        gx, gy = (x, y) if len(selected) == 1 and open_floor else (tx + 0.5, ty + 0.5)
        out.append((eid, float(gx), float(gy)))
    return out


def attack_move(world, selected: list[int], x: float, y: float) -> list:
    """Walk there, fighting whatever comes within range on the way."""
    return [world.ledger.submit(world.tick, "attack_move", eid, params={"x": gx, "y": gy}, source=SOURCE)
            for eid, gx, gy in _spread(world, live_units(world, selected), x, y)]


def stop(world, selected: list[int]) -> int:
    """Cancel what the units are doing. Returns how many had something to cancel."""
    n = 0
    for eid in live_units(world, selected):
        action = world.ledger.current(eid)
        if action is not None:
            world.ledger.cancel(action.id, "stopped by player")
            n += 1
    return n


def hold(world, selected: list[int]) -> list:
    """Stand still and fire at enemies in range without chasing them."""
    return [world.ledger.submit(world.tick, "hold", eid, source=SOURCE) for eid in live_units(world, selected)]


def reload(world, selected: list[int]) -> list:
    return [world.ledger.submit(world.tick, "reload", eid, source=SOURCE) for eid in live_units(world, selected)]


def cycle_stance(world, selected: list[int]) -> list:
    """Every selected unit takes the stance after the first one's (aggressive -> defensive -> hold -> passive)."""
    import esper
    from components import Stance
    from systems.actions.set_stance import STANCES
    units = [e for e in live_units(world, selected) if esper.has_component(e, Stance)]
    if not units:
        return []
    now = esper.component_for_entity(units[0], Stance).mode
    nxt = STANCES[(STANCES.index(now) + 1) % len(STANCES)] if now in STANCES else STANCES[0]
    return [world.ledger.submit(world.tick, "set_stance", eid, params={"stance": nxt}, source=SOURCE)
            for eid in units]


def move(world, selected: list[int], x: float, y: float) -> list:
    return [world.ledger.submit(world.tick, "move", eid, params={"x": gx, "y": gy}, source=SOURCE)
            for eid, gx, gy in _spread(world, selected, x, y)]


def order_at(world, team: int, selected: list[int], x: float, y: float) -> list:
    """Right-click at (x, y) with ``selected``. Returns the submitted actions.

    Units: attack the enemy unit or building there; else workers gather from a field there, help build an own
    unfinished building there, or (carrying a load) return it to an own drop-off there, and the rest move next
    to it; else everyone moves there. Buildings that train units: their rally point goes there."""
    selected = live(world, selected)
    units = [e for e in selected if esper.has_component(e, UnitKind)]
    actions = [*set_rally(world, [e for e in selected if esper.has_component(e, Rally)], x, y)]
    if not units:
        return actions
    enemy = enemy_at(world, team, x, y)
    if enemy is not None:
        actions += [world.ledger.submit(world.tick, "attack", eid, enemy, source=SOURCE) for eid in units]
        return actions
    workers = [e for e in units if is_worker(e)]
    rest = [e for e in units if not is_worker(e)]
    field = field_at(world, x, y)
    own = building_at(world, x, y, team=team)
    if workers and field is not None:
        actions += gather(world, workers, field)
    elif workers and own is not None and not esper.component_for_entity(own, Building).done:
        builders = [e for e in workers if esper.component_for_entity(e, Worker).can_build]
        actions += help_build(world, builders, own)
        rest += [e for e in workers if e not in builders]
    elif workers and own is not None and _drop_off(world, own):
        carrying = [e for e in workers if esper.component_for_entity(e, Worker).carrying > 0]
        actions += return_load(world, carrying)
        rest += [e for e in workers if e not in carrying]
    else:
        rest = units
    actions += move(world, rest, x, y)
    return actions


def _drop_off(world, eid: int) -> bool:
    b = esper.component_for_entity(eid, Building)
    bdef = world.content.buildings.get(b.kind)
    return b.done and bdef is not None and bdef.drop_off


# -- the economy's orders -----------------------------------------------------------------------------------
def gather(world, workers: list[int], field: int) -> list:
    """Mine ``field`` until stopped. Workers the field has no free slot for go to the nearest other fields (within
    ``FIELD_SPREAD`` tiles) that have one; a worker already mining one of those fields keeps mining it."""
    world.activate()
    home = esper.component_for_entity(field, ResourceField)
    near = []
    for eid, f in esper.get_component(ResourceField):
        d = math.hypot(f.tx - home.tx, f.ty - home.ty)
        if f.amount > 0 and d <= FIELD_SPREAD:
            near.append((d, eid, f))
    near.sort(key=lambda row: (row[0], row[1]))
    free = {eid: f.slots - world.ledger.held_amount(("field", eid)) for _d, eid, f in near}
    ledger = world.ledger
    actions = []
    waiting = []
    for w in live_units(world, workers):
        current = ledger.current(w)
        if current is not None and current.kind == "gather" and current.target in free:
            continue                                     # already mining one of these fields: leave it be
        waiting.append(w)
    pos = {w: esper.component_for_entity(w, Position) for w in waiting}
    waiting.sort(key=lambda w: (math.hypot(pos[w].x - home.tx - 0.5, pos[w].y - home.ty - 0.5), w))
    for w in waiting:
        target = next((eid for _d, eid, _f in near if free[eid] > 0), field)
        if target in free:
            free[target] -= 1
        actions.append(ledger.submit(world.tick, "gather", w, target, {"loads": 0}, source=SOURCE))
    return actions


def return_load(world, workers: list[int]) -> list:
    """Carry the load to the nearest drop-off."""
    return [world.ledger.submit(world.tick, "return", w, source=SOURCE) for w in live_units(world, workers)]


def help_build(world, workers: list[int], site: int) -> list:
    """Work on the team's unfinished building ``site``."""
    return [world.ledger.submit(world.tick, "build", w, site, source=SOURCE) for w in live_units(world, workers)]


def placement(world, kind: str, x: float, y: float) -> tuple[int, int]:
    """The footprint's top-left tile for a building of ``kind`` centred as near (x, y) as the grid allows."""
    w, h = world.content.buildings[kind].size
    return math.floor(x - w / 2 + 0.5), math.floor(y - h / 2 + 0.5)


def pending_sites(world, team: int) -> list[tuple[str, int, int]]:
    """(kind, x, y) of the team's build orders that have not placed their building yet."""
    out = []
    builds = [a for a in world.ledger.actions.values()                           # submitted ones too
              if a.kind == "build" and not a.target and not a.done and not a.data.get("site")]
    for action in sorted(builds, key=lambda a: a.id):
        p = action.params
        if p.get("building") in world.content.buildings and type(p.get("x")) is int and type(p.get("y")) is int \
                and esper.entity_exists(action.actor) and esper.component_for_entity(action.actor, Team).team == team:
            out.append((p["building"], p["x"], p["y"]))
    return out


FREE, UNITS, BLOCKED = "free", "units", "blocked"


def site_check(world, team: int, kind: str, tx: int, ty: int, builder: int = 0) -> tuple[str, str]:
    """(FREE | UNITS | BLOCKED, why) for placing ``kind`` at (tx, ty): BLOCKED when the ground is not open floor,
    holds a building or field, or another build order has claimed it; UNITS when only units stand on it (the
    builder waits a few seconds for them to walk off)."""
    problem = economy.site_problem(world, kind, tx, ty, units=False)
    if problem:
        return BLOCKED, problem
    w, h = world.content.buildings[kind].size
    mine = set(economy.footprint_tiles(tx, ty, w, h))
    for other, ox, oy in pending_sites(world, team):
        if mine & set(economy.footprint_tiles(ox, oy, *world.content.buildings[other].size)):
            return BLOCKED, "another build order has claimed this ground"
    problem = economy.site_problem(world, kind, tx, ty, ignore=builder)
    if problem:
        return UNITS, problem + " (the builder waits for it to move)"
    return FREE, ""


def placing_workers(world) -> set[int]:
    """The workers on their way to place a building: a build order, submitted or under way, whose building is not
    there yet."""
    return {a.actor for a in world.ledger.actions.values()
            if a.kind == "build" and not a.target and not a.done and not a.data.get("site")}


def placing(world, worker: int) -> bool:
    return worker in placing_workers(world)


def builder_for(world, workers: list[int], tx: float, ty: float) -> int | None:
    """The selected worker that should build at (tx, ty): one not already on its way to place a building, nearest
    first (ties to the lowest id); any nearest builder when all are busy."""
    best = None
    busy = placing_workers(world)
    for w in live_units(world, workers):
        worker = esper.try_component(w, Worker)
        if worker is None or not worker.can_build:
            continue
        pos = esper.component_for_entity(w, Position)
        key = (w in busy, math.hypot(pos.x - tx, pos.y - ty), w)
        if best is None or key < best:
            best = key
    return None if best is None else best[2]


def build(world, workers: list[int], kind: str, tx: int, ty: int):
    """One of the selected workers (``builder_for``) constructs a ``kind`` with its top-left tile at (tx, ty).
    Returns the action, or None when no selected worker can build."""
    w, h = world.content.buildings[kind].size
    builder = builder_for(world, workers, tx + w / 2, ty + h / 2)
    if builder is None:
        return None
    return world.ledger.submit(world.tick, "build", builder, params={"building": kind, "x": int(tx), "y": int(ty)},
                               source=SOURCE)


def queue_size(world) -> int:
    """How many trainings a building's production queue holds."""
    return getattr(world.ledger.executors["train"], "queue", 1)


def trainers(world, buildings: list[int], unit: str) -> list[int]:
    """The selected complete buildings that train ``unit``, shortest queue first (ties to the lowest id)."""
    rows = []
    for eid in live(world, buildings):
        b = esper.try_component(eid, Building)
        if b is None or not b.done or unit not in world.content.buildings[b.kind].trains:
            continue
        rows.append((len(world.ledger.queue_of(eid, "production")), eid))
    return [eid for _n, eid in sorted(rows)]


def train(world, buildings: list[int], unit: str):
    """Queue ``unit`` at the selected building with the shortest queue. Returns the action, or None when none of
    them trains it."""
    rows = trainers(world, buildings, unit)
    if not rows:
        return None
    return world.ledger.submit(world.tick, "train", rows[0], params={"unit": unit}, source=SOURCE)


def cancel(world, action) -> None:
    """Cancel a queued or running action (a training is refunded)."""
    world.ledger.cancel(action.id, "cancelled by player")


def set_rally(world, buildings: list[int], x: float, y: float) -> list:
    """New units of these buildings walk to (x, y)."""
    return [world.ledger.submit(world.tick, "set_rally", eid, params={"x": float(x), "y": float(y)}, source=SOURCE)
            for eid in live(world, buildings) if esper.has_component(eid, Rally)]


def idle_workers(world, team: int) -> list[int]:
    """The team's workers doing nothing (no action), ascending id."""
    world.activate()
    ledger = world.ledger
    return sorted(eid for eid, (t, _w, _h) in esper.get_components(Team, Worker, Health)
                  if t.team == team and ledger.current(eid) is None)


def next_idle_worker(world, team: int, after: int | None = None) -> int | None:
    """The idle worker after ``after`` (by id, wrapping round), or None when none is idle."""
    idle = idle_workers(world, team)
    if not idle:
        return None
    later = [e for e in idle if after is not None and e > after]
    return later[0] if later else idle[0]


# -- the command card -----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Option:
    """One button of the command card: a building to place or a unit to train."""
    id: str
    name: str
    cost: int
    seconds: float
    problem: str = ""              # why it cannot be chosen now ("" = it can)
    note: str = ""                 # something to know that does not stop it (a training waits for population)

    @property
    def ok(self) -> bool:
        return not self.problem


def _names(world, kinds) -> str:
    defs = world.content.buildings
    return ", ".join(defs[k].name or k if k in defs else k for k in kinds)


def _afford(world, team: int, cost: int) -> str:
    have = economy.available(world, team)
    return "" if have >= cost else f"needs {cost} resources (you have {have})"


def build_options(world, team: int) -> list[Option]:
    """Every building type, those without prerequisites first, then by cost and id."""
    out = []
    defs = world.content.buildings
    for kind in sorted(defs, key=lambda k: (bool(defs[k].requires), defs[k].cost, k)):
        bdef = defs[kind]
        missing = economy.missing_requirements(world, team, bdef.requires)
        problem = f"needs a {_names(world, missing)} first" if missing else _afford(world, team, bdef.cost)
        out.append(Option(kind, bdef.name or kind, bdef.cost, bdef.build_time, problem))
    return out


def train_options(world, buildings: list[int]) -> list[Option]:
    """The units the selected buildings train, in their content order."""
    team = None
    kinds: list[str] = []
    done = False
    for eid in live(world, buildings):
        b = esper.try_component(eid, Building)
        if b is None:
            continue
        team = esper.component_for_entity(eid, Team).team
        done = done or b.done
        for unit in world.content.buildings[b.kind].trains:
            if unit not in kinds:
                kinds.append(unit)
    out = []
    size = queue_size(world)
    used = economy.population_used(world, team) if kinds else 0
    cap = economy.population_cap(world, team) if kinds else 0
    for unit in kinds:
        udef = world.content.units[unit]
        missing = economy.missing_requirements(world, team, udef.requires)
        problem = ""
        if not done:
            problem = "the building is under construction"
        elif missing:
            problem = f"needs a {_names(world, missing)} first"
        elif not any(len(world.ledger.queue_of(e, "production")) < size for e in trainers(world, buildings, unit)):
            problem = f"the production queue is full ({size})"
        else:
            problem = _afford(world, team, udef.cost)
        note = ""
        if used + udef.population > cap:
            note = "population cap reached: training waits for a supply building"
        out.append(Option(unit, udef.name or unit, udef.cost, udef.build_time, problem, note))
    return out


def hotkeys(ids: list[str], names: list[str], reserved: str) -> dict[str, str]:
    """A letter for each id: the first of its id's letters, then its name's, that no earlier id took and
    ``reserved`` does not hold; else the first free letter of the alphabet."""
    used = set(reserved.lower())
    out = {}
    for ident, name in zip(ids, names):
        for ch in (ident + name + "abcdefghijklmnopqrstuvwxyz").lower():
            if ch.isalpha() and ch.isascii() and ch not in used:
                out[ident] = ch
                used.add(ch)
                break
    return out
