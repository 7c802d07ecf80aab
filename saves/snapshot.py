"""Snapshots: the whole world (entities, RNG, ledger, tick) as one versioned msgpack chunk.

Components are stored column-wise — per component type, the list of entity
ids and the list of field rows — which keeps names out of every row and makes
1000-unit snapshots small; the body is zlib-compressed (level 1). Loading
rebuilds a World whose sync hash must equal the one saved, or it is refused.
"""
from __future__ import annotations

import os
import tempfile

import esper

from components import DECIDER_FIELDS, DECIDER_REGISTRY, REGISTRY
from components.columns import decode_columns, decode_decider_fields
from game import GAME_VERSION
from game.state import (WorldState, capture, column_problem, component_columns, decider_fields, restore,
                        without_decider_fields)
from game.synchash import hash_bytes, sync_hash
from saves.container import InflateBudget, SaveError, checked, expect, frame, read_chunks, read_file, unpack_body
from saves.schema import SNAPSHOT, WORLD

SNAPSHOT_MAGIC = b"RTSSNAP\x00"
MAX_SNAPSHOT = 256 << 20       # the largest snapshot file read
#: 5: a brain keeps its think slot (``BrainState.slot``); 4: a memory keeps the squad order it last perceived; 3: the world state has a fog part (game/fog.py); 2: a
#: brain's mode status is an int
SNAPSHOT_VERSION = 5


def decider_state(world) -> dict:
    """The deciders' private state (brains, memories, team intel, planned strategies' plans, the decider fields of
    world components such as a reflex's post): saved, but not in the sync hash."""
    from systems.strategy_planned import plans_state
    return {"components": component_columns(world, DECIDER_REGISTRY), "intel": [list(i) for i in world.intel],
            "plans": plans_state(world), "fields": decider_fields(world)}


def snapshot_state(world) -> dict:
    """Snapshot metadata plus ``world``: the msgpack bytes of exactly what the sync hash covers (and, beside it,
    the deciders' state)."""
    blob = capture(world).pack()
    return {
        "format": SNAPSHOT_VERSION,
        "game": GAME_VERSION,
        "content_hash": world.content.content_hash,
        "scenario": world.scenario_id,
        "seed": world.seed,
        "tick": world.tick,
        "max_ticks": world.max_ticks,
        "over": world.over,
        "winner": -1 if world.winner is None else world.winner,
        "controllers": list(world.controllers),
        "commanders": list(world.commanders),
        "strategies": list(world.strategies),
        "difficulties": list(world.difficulties),
        "winner_side": -1 if world.winner_side is None else world.winner_side,
        "reason": world.end_reason,
        "world": blob,
        "sync_hash": hash_bytes(blob),
        "deciders": decider_state(world),
    }


def world_parts(path, state: dict, pos: int | None = None) -> WorldState:
    """Decode a snapshot's ``world`` bytes into the canonical world state (game/state.py), checked against
    saves/schema.py's WORLD (``pos``: the chunk's byte offset, for the message)."""
    blob = expect(path, state.get("world"), bytes, "world")
    parts = checked(path, pos, WORLD, unpack_body(path, b"W", blob, pos), "world")
    try:
        return WorldState.from_list(parts)
    except ValueError as exc:
        raise SaveError(path, str(exc)) from None


def check_snapshot(path, pos, state, at: str = "snapshot") -> WorldState:
    """Everything about a decoded snapshot (or keyframe) that needs no content, checked when its chunk is read:
    the declared schema (saves/schema.py's SNAPSHOT and WORLD), that its world bytes hash to the sync hash it
    states, that a winner and every team column name one of its teams, and that every float is finite. Returns
    the decoded world state."""
    checked(path, pos, SNAPSHOT, state, at)
    where = "" if pos is None else f"chunk at byte {pos}: "
    teams = len(state["controllers"])
    for key in ("winner", "winner_side"):
        if state.get(key, -1) >= teams:
            raise SaveError(path, f"{where}{at}.{key}: team {state[key]} does not exist (the snapshot has "
                                  f"{teams} teams)")
    if hash_bytes(state["world"]) != state["sync_hash"]:
        raise SaveError(path, f"{where}{at}.world: its bytes hash to {hash_bytes(state['world'])}, the snapshot "
                              f"says {state['sync_hash'][:40]!r}; file is corrupt")
    parts = world_parts(path, state, pos)
    for name, column in parts.components.items():
        try:
            problem = column_problem(name, column, teams)
        except (TypeError, ValueError) as exc:
            problem = str(exc)
        if problem:
            raise SaveError(path, f"{where}world.components.{name}: {problem}")
    return parts


def encode_snapshot(world) -> bytes:
    return SNAPSHOT_MAGIC + frame(b"S", snapshot_state(world))


def write_atomic(path, data: bytes) -> None:
    """Write to a temporary file beside ``path`` and rename it into place."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_snapshot(world, path) -> None:
    write_atomic(path, encode_snapshot(world))


def _int(path, value, what):
    return expect(path, value, int, what)


def restore_world(path, state, content, *, force: bool = False, check_hash: bool = True, content_ok: bool = False,
                  pos: int | None = None):
    """Build a World from decoded snapshot state. Raises SaveError on anything wrong. ``content_ok``: the caller
    knows the snapshot's content and the loaded one belong to the same match (a replay with hot reloads);
    ``pos``: the chunk's byte offset, named in messages. Nothing is half-applied: a refused state closes the
    world it was building."""
    from game.world import World

    parts = check_snapshot(path, pos, state)
    fmt = state.get("format")
    if fmt != SNAPSHOT_VERSION and not force:
        raise SaveError(path, f"snapshot format {fmt!r} is not supported (this game reads {SNAPSHOT_VERSION}); "
                              "use --force to try anyway")
    if state.get("content_hash") != content.content_hash and not (force or content_ok):
        raise SaveError(path, f"snapshot was made with content {state.get('content_hash')!r}, loaded content is "
                              f"{content.content_hash} (different files or mods); use --force to load anyway")
    scenario = expect(path, state.get("scenario"), str, "scenario")
    if scenario not in content.scenarios:
        raise SaveError(path, f"snapshot needs scenario '{scenario}', which the loaded content lacks")
    seed = _int(path, state.get("seed"), "seed")
    if seed < 0:
        raise SaveError(path, "seed should be >= 0")
    controllers = expect(path, state.get("controllers"), list, "controllers")
    teams = len(content.scenarios[scenario].teams)
    if len(controllers) != teams or not all(isinstance(c, str) for c in controllers):
        raise SaveError(path, "controllers do not match the scenario's teams")
    commanders = state.get("commanders", [""] * teams)
    if not (isinstance(commanders, list) and len(commanders) == teams and all(isinstance(c, str) for c in commanders)):
        raise SaveError(path, "commanders do not match the scenario's teams")
    for name in commanders:
        if name and name not in content.commanders:
            raise SaveError(path, f"snapshot needs commander '{name}', which the loaded content lacks")
    strategies = state.get("strategies", [""] * teams)
    if not (isinstance(strategies, list) and len(strategies) == teams and all(isinstance(s, str) for s in strategies)):
        raise SaveError(path, "strategies do not match the scenario's teams")
    for name in strategies:
        if name and name not in content.strategies:
            raise SaveError(path, f"snapshot needs strategy '{name}', which the loaded content lacks")
    difficulties = state.get("difficulties", [""] * teams)
    if not (isinstance(difficulties, list) and len(difficulties) == teams
            and all(isinstance(d, str) for d in difficulties)):
        raise SaveError(path, "difficulties do not match the scenario's teams")
    for name in difficulties:
        if name and name not in content.difficulties:
            raise SaveError(path, f"snapshot needs difficulty level '{name}', which the loaded content lacks")
    where = "" if pos is None else f"chunk at byte {pos}: "
    world = World(content, scenario, seed, populate=False, controllers=dict(enumerate(controllers)),
                  commanders=dict(enumerate(commanders)), strategies=dict(enumerate(strategies)),
                  difficulties=dict(enumerate(difficulties)))
    try:
        world.max_ticks = _int(path, state.get("max_ticks"), "max_ticks")
        world.over = expect(path, state.get("over"), bool, "over")
        winner = _int(path, state.get("winner"), "winner")
        world.winner = None if winner < 0 else winner
        side = _int(path, state.get("winner_side", -1 if winner < 0 else winner), "winner_side")
        world.winner_side = None if side < 0 else side
        world.end_reason = expect(path, state.get("reason", ""), str, "reason")
        try:
            restore(world, parts)
        except ValueError as exc:
            raise SaveError(path, f"{where}world.{exc}") from None
        _restore_deciders(path, world, state.get("deciders"), where, pad=force)
        if check_hash:
            saved = state.get("sync_hash")
            if any(cls.__name__ in parts.components for cls in DECIDER_FIELDS):
                # an older snapshot may hold decider fields' values in its world part (a reflex's post): the world
                # restored from it keeps them, and hashes with their defaults
                saved = hash_bytes(without_decider_fields(parts).pack())
            now = sync_hash(world)
            if saved != now and not force:
                raise SaveError(path, f"restored world hashes to {now}, the snapshot says {saved!r}; file is corrupt")
    except BaseException:
        world.close()
        raise
    return world


def _restore_deciders(path, world, deciders, where: str = "", pad: bool = False) -> None:
    """Brains, memories, team intel, planned strategies' plans and decider fields; they must belong to entities
    that exist (with the component, for a field), name known brains and postures of the team's strategy profile.
    ``pad`` (``--force``): a brain or memory written before its last fields were added takes their defaults."""
    if deciders is None:
        return                                   # a snapshot without deciders: they start afresh
    expect(path, deciders, dict, "deciders")
    comps = expect(path, deciders.get("components"), dict, "deciders.components")
    intel = expect(path, deciders.get("intel"), list, "deciders.intel")
    if len(intel) != len(world.intel) or not all(
            isinstance(i, list) and (not i or (len(i) == 3 and all(type(v) in (int, float) for v in i)))
            for i in intel):
        raise SaveError(path, where + "deciders.intel is malformed")
    world.intel = [[float(v) for v in i] for i in intel]
    for name, column in comps.items():
        try:
            decoded = decode_columns(name, column, DECIDER_REGISTRY, pad)   # --force: an older memory's defaults
        except (TypeError, ValueError) as exc:
            raise SaveError(path, f"{where}decider component {name}: {exc}") from None
        for eid, comp in decoded:
            if not esper.entity_exists(eid):
                raise SaveError(path, f"{where}decider component {name} belongs to missing entity {eid}")
            if name == "Brain":
                bdef = world.content.brains.get(comp.brain)
                if bdef is None:
                    raise SaveError(path, f"{where}entity {eid} runs brain '{comp.brain}', which the loaded content "
                                          "lacks")
                problem = bdef.check_state(comp)
                if problem:
                    raise SaveError(path, f"{where}entity {eid}'s brain state does not fit brain '{comp.brain}': "
                                          f"{problem}")
            esper.add_component(eid, comp)
    for name, rows in (deciders.get("fields") or {}).items():   # older snapshots have none: defaults
        try:
            decoded = decode_decider_fields(name, rows)
        except ValueError as exc:
            raise SaveError(path, f"{where}deciders.fields.{name}: {exc}") from None
        cls = REGISTRY[name]
        for eid, values in decoded:
            comp = esper.try_component(eid, cls) if esper.entity_exists(eid) else None
            if comp is None:
                raise SaveError(path, f"{where}deciders.fields.{name}: entity {eid} has no {name}")
            for field, value in values.items():
                setattr(comp, field, value)
    plans = deciders.get("plans")
    if plans is not None:                        # older snapshots have none: the plans start afresh
        from systems.strategy_planned import restore_plans
        try:
            restore_plans(world, plans)
        except ValueError as exc:
            raise SaveError(path, f"{where}deciders.plans: {exc}") from None


def load_snapshot(path, content, *, force: bool = False):
    data = read_file(path, MAX_SNAPSHOT)
    chunks = list(read_chunks(path, data, SNAPSHOT_MAGIC, InflateBudget(len(data))))
    if len(chunks) != 1 or chunks[0][0] != b"S":
        raise SaveError(path, "a snapshot file holds exactly one snapshot chunk")
    return restore_world(path, chunks[0][2], content, force=force, pos=chunks[0][1])


__all__ = ["SaveError", "save_snapshot", "load_snapshot", "encode_snapshot", "snapshot_state", "restore_world",
           "write_atomic", "SNAPSHOT_MAGIC", "SNAPSHOT_VERSION"]
