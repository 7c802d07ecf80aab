"""The canonical world state, laid out once: what the sync hash covers and exactly what a snapshot stores.

``WorldState`` names the parts in their one order (the order is part of every sync hash and every save:
changing it moves every pinned hash). ``capture`` reads them off a running world, ``pack`` turns them into the
bytes the sync hash digests and a snapshot keeps, ``from_list`` reads the unpacked list back (type-checked;
the snapshot reader unpacks the bytes with its own guards), and ``restore`` puts them into a fresh world. So a loaded snapshot hashes equal by construction, and the check on
load catches any restoration bug. Adding world state (say, the teams' stockpiles) is one field here with its
capture and restore lines, in the commit that says the hashes move.

Decider state (brains, memories, team intel) is *not* here: it is saved beside this (saves/snapshot.py) but not
hashed, because replays re-run the world with every decider off (see ARCHITECTURE.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import esper
import msgpack

from components import DECIDER_FIELDS, REGISTRY, Building, Door, Mover, ResourceField
from content.tiles import LEGEND
from components.columns import decider_field_rows, decode_columns, encode_columns
from game.ledger import ledger_restore

#: the most entities a restored world may claim to have created (a bound on the id-replay loop)
MAX_ENTITY_ID = 10_000_000


@dataclass
class WorldState:
    """Everything that decides the next tick, in canonical order (field order = wire order)."""
    tick: int
    rng: list            # PCG64 state: [name, state hex, inc hex, has_uint32, uinteger]
    last_entity: int     # the highest entity id handed out (the next one is last_entity + 1)
    nav: list            # [version, door version, walkable: one byte per tile]: the grid as doors, buildings
                         # and fields leave it, and the versions walkers compare their routes with
    components: dict     # component name -> its column encoding (components/columns.py), entities ascending
    ledger: list         # Ledger.state_rows(): next id, active actions, queued requests
    fog: list            # Fog.state(): per team what it sees, has explored and remembers (game/fog.py)

    def pack(self) -> bytes:
        """The canonical bytes: what the sync hash digests and what a snapshot stores."""
        return msgpack.packb(list(astuple_shallow(self)), use_bin_type=True)

    @classmethod
    def from_list(cls, parts) -> "WorldState":
        """The inverse of ``pack``'s list; ValueError names the part that does not fit."""
        names = [f.name for f in fields(cls)]
        if not isinstance(parts, list) or len(parts) != len(names):
            raise ValueError(f"world state should have {len(names)} parts ({', '.join(names)})")
        state = cls(*parts)
        for name, kind in (("tick", int), ("rng", list), ("last_entity", int), ("nav", list),
                           ("components", dict), ("ledger", list), ("fog", list)):
            value = getattr(state, name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ValueError(f"world state part '{name}' should be {kind.__name__}")
        nav = state.nav
        if not (len(nav) == 3 and all(type(v) is int and 0 <= v < 1 << 62 for v in nav[:2])
                and isinstance(nav[2], bytes)):
            raise ValueError("world state part 'nav' should be [version, door version, walkable bytes]")
        return state


def astuple_shallow(state: WorldState) -> tuple:
    """The parts in field order, without copying them (``dataclasses.astuple`` deep-copies)."""
    return tuple(getattr(state, f.name) for f in fields(state))


def rng_state(rng) -> list:
    st = rng.bit_generator.state
    inner = st["state"]
    return [st["bit_generator"], hex(inner["state"]), hex(inner["inc"]), int(st["has_uint32"]), int(st["uinteger"])]


def component_columns(world, registry: dict = REGISTRY) -> dict[str, list]:
    """Per component type (by registry name, sorted): its column encoding; types with no entity are left out."""
    world.activate()
    columns = {}
    for name in sorted(registry):
        items = sorted(esper.get_component(registry[name]))
        if items:
            columns[name] = encode_columns(registry[name], items)
    return columns


def decider_fields(world) -> dict[str, list]:
    """Per world component type with decider fields (``DECIDER_FIELDS``, by registry name): the rows of those
    fields that do not hold their defaults (``decider_field_rows``); types with none are left out."""
    world.activate()
    out = {}
    for cls in sorted(DECIDER_FIELDS, key=lambda c: c.__name__):
        rows = decider_field_rows(cls, sorted(esper.get_component(cls)))
        if rows:
            out[cls.__name__] = rows
    return out


def without_decider_fields(state: WorldState) -> WorldState:
    """``state`` with every decider field at its default (``DECIDER_FIELDS``), as ``capture`` writes it: what a
    world restored from it hashes to. (Snapshots made before a field was decider state hold its values in the
    world part; a restored world keeps them, and hashes without them.)"""
    columns = dict(state.components)
    for cls in DECIDER_FIELDS:
        name = cls.__name__
        if name in columns:
            columns[name] = encode_columns(cls, decode_columns(name, columns[name]))
    return WorldState(state.tick, state.rng, state.last_entity, state.nav, columns, state.ledger, state.fog)


def capture(world) -> WorldState:
    """The world's state now."""
    nav = world.nav
    return WorldState(world.tick, rng_state(world.rng), world.last_entity,
                      [nav.version, nav.door_version, nav.walkable_bits()], component_columns(world),
                      world.ledger.state_rows(), world.fog.state())


def _component_problem(comp, teams: int) -> str | None:
    """What a decoded component holds that no world could: a team that does not exist, a float that is not
    finite. (Entity references are checked where they are used: restore_entity, the ledger, the fog.)"""
    team = getattr(comp, "team", None)
    if type(team) is int and not 0 <= team < teams:
        return f"team {team} does not exist (the scenario has {teams} teams)"
    for name in getattr(comp, "__slots__", ()):
        value = getattr(comp, name, None)
        if type(value) is float and not math.isfinite(value):
            return f"{name} is {value}, not a finite number"
    if type(comp) is Mover:                  # a flat list of waypoint coordinates, walked from index
        path = comp.path
        if len(path) % 2 or not all(type(v) in (int, float) and math.isfinite(v) for v in path):
            return "path should be a flat list of finite x, y coordinates"
        if not 0 <= comp.index <= len(path) // 2:
            return f"index {comp.index} is outside its path"
    return None


def column_problem(name: str, column, teams: int) -> str | None:
    """What a component column holds that no world could (see ``_component_problem``), or None."""
    for i, (eid, comp) in enumerate(decode_columns(name, column)):
        if not 1 <= eid <= MAX_ENTITY_ID:
            return f"ids[{i}]: entity id {eid} is out of range"
        problem = _component_problem(comp, teams)
        if problem:
            return f"[{i}] (entity {eid}): {problem}"
    return None


def restore(world, state: WorldState) -> None:
    """Put ``state`` into ``world`` (made with ``populate=False``). ValueError names what does not fit.

    Order matters: entities first (their ids replayed in ascending order), then the nav grid (its tiles are
    derived from the map and the Door, Building and ResourceField components, not copied, and must come out as
    the state says; its versions are copied), then the ledger, whose actions name those entities.
    """
    world.tick = state.tick
    try:
        _name, s_hex, inc_hex, has32, uint = state.rng
        world.rng.bit_generator.state = {
            "bit_generator": "PCG64", "state": {"state": int(s_hex, 16), "inc": int(inc_hex, 16)},
            "has_uint32": int(has32), "uinteger": int(uint)}
    except (ValueError, TypeError, KeyError, OverflowError):
        raise ValueError("rng state is malformed") from None
    by_entity: dict[int, list] = {}
    for name, column in state.components.items():
        try:
            decoded = decode_columns(name, column)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"component {name}: {exc}") from None
        teams = len(world.scenario.teams)
        for i, (eid, comp) in enumerate(decoded):
            if not 1 <= eid <= MAX_ENTITY_ID:
                raise ValueError(f"components.{name}.ids[{i}]: entity id {eid} is out of range")
            problem = _component_problem(comp, teams)
            if problem:
                raise ValueError(f"components.{name}[{i}] (entity {eid}): {problem}")
            by_entity.setdefault(eid, []).append(comp)
    last = state.last_entity
    if last > MAX_ENTITY_ID:
        raise ValueError("last_entity is absurdly large")
    if by_entity and max(by_entity) > last:
        raise ValueError("an entity id is above last_entity")
    for eid in sorted(by_entity):
        world.restore_entity(eid, by_entity[eid])
    world.advance_entity_counter(last)
    nav = world.nav
    for _eid, door in esper.get_component(Door):
        if not nav.in_bounds(door.tx, door.ty):
            raise ValueError("a door lies outside the map")
        nav.set_door(door.tx, door.ty, door.state)
    for _eid, b in esper.get_component(Building):
        if not (nav.in_bounds(b.tx, b.ty) and nav.in_bounds(b.tx + b.w - 1, b.ty + b.h - 1)):
            raise ValueError("a building lies outside the map")
        nav.set_blocked([(x, y) for y in range(b.ty, b.ty + b.h) for x in range(b.tx, b.tx + b.w)], True)
    fields = {(f.tx, f.ty) for _eid, f in esper.get_component(ResourceField)}
    mined_out = [(i % nav.width, i // nav.width) for i, ch in enumerate("".join(world.tilemap.rows))
                 if LEGEND[ch].field is not None and (i % nav.width, i // nav.width) not in fields]
    nav.set_blocked(mined_out, False)
    version, door_version, walkable = state.nav
    if walkable != nav.walkable_bits():
        raise ValueError("the nav grid does not match the map, its doors, buildings and fields")
    nav.version, nav.door_version = version, door_version
    try:
        ledger_restore(world.ledger, state.ledger)
    except ValueError as exc:
        raise ValueError(f"ledger: {exc}") from None
    world.fog.restore(state.fog)


__all__ = ["WorldState", "capture", "restore", "column_problem", "rng_state", "component_columns", "MAX_ENTITY_ID"]
