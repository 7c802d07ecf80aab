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

from components import REGISTRY, Door, from_row
from game import GAME_VERSION
from game.ledger import ledger_restore, ledger_snapshot
from game.synchash import component_columns, sync_hash
from saves.container import SaveError, expect, frame, read_chunks, read_file

SNAPSHOT_MAGIC = b"RTSSNAP\x00"
SNAPSHOT_VERSION = 1


def snapshot_state(world) -> dict:
    st = world.rng.bit_generator.state
    return {
        "format": SNAPSHOT_VERSION,
        "game": GAME_VERSION,
        "content_hash": world.content.content_hash,
        "scenario": world.scenario_id,
        "seed": world.seed,
        "tick": world.tick,
        "max_ticks": world.max_ticks,
        "rng": [hex(st["state"]["state"]), hex(st["state"]["inc"]), int(st["has_uint32"]), int(st["uinteger"])],
        "last_entity": world.last_entity,
        "over": world.over,
        "winner": -1 if world.winner is None else world.winner,
        "controllers": list(world.controllers),
        "components": component_columns(world),
        "ledger": ledger_snapshot(world.ledger),
        "sync_hash": sync_hash(world),
    }


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


def restore_world(path, state, content, *, force: bool = False, check_hash: bool = True):
    """Build a World from decoded snapshot state. Raises SaveError on anything wrong."""
    from game.world import World

    expect(path, state, dict, "snapshot")
    fmt = state.get("format")
    if fmt != SNAPSHOT_VERSION and not force:
        raise SaveError(path, f"snapshot format {fmt!r} is not supported (this game reads {SNAPSHOT_VERSION}); "
                              "use --force to try anyway")
    if state.get("content_hash") != content.content_hash and not force:
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
    world = World(content, scenario, seed, populate=False, controllers=dict(enumerate(controllers)))
    try:
        world.tick = _int(path, state.get("tick"), "tick")
        world.max_ticks = _int(path, state.get("max_ticks"), "max_ticks")
        world.over = expect(path, state.get("over"), bool, "over")
        winner = _int(path, state.get("winner"), "winner")
        world.winner = None if winner < 0 else winner
        rng = expect(path, state.get("rng"), list, "rng")
        try:
            s_hex, inc_hex, has32, uint = rng
            world.rng.bit_generator.state = {
                "bit_generator": "PCG64", "state": {"state": int(s_hex, 16), "inc": int(inc_hex, 16)},
                "has_uint32": int(has32), "uinteger": int(uint)}
        except (ValueError, TypeError, KeyError):
            raise SaveError(path, "rng state is malformed") from None
        comps = expect(path, state.get("components"), dict, "components")
        by_entity: dict[int, list] = {}
        for name, column in comps.items():
            cls = REGISTRY.get(name)
            if cls is None:
                raise SaveError(path, f"unknown component '{name}'")
            if not (isinstance(column, list) and len(column) == 2 and isinstance(column[0], list)
                    and isinstance(column[1], list) and len(column[0]) == len(column[1])):
                raise SaveError(path, f"component column '{name}' is malformed")
            for eid, row in zip(*column):
                if not isinstance(eid, int) or isinstance(eid, bool) or eid < 1:
                    raise SaveError(path, f"component '{name}' has a bad entity id")
                try:
                    by_entity.setdefault(eid, []).append(from_row(cls, row))
                except (TypeError, ValueError) as exc:
                    raise SaveError(path, f"entity {eid}: {exc}") from None
        last = _int(path, state.get("last_entity"), "last_entity")
        if by_entity and max(by_entity) > last:
            raise SaveError(path, "an entity id is above last_entity")
        if last > 10_000_000:
            raise SaveError(path, "last_entity is absurdly large")
        for eid in sorted(by_entity):
            world.restore_entity(eid, by_entity[eid])
        world.advance_entity_counter(last)
        for _eid, door in esper.get_component(Door):
            if not world.nav.in_bounds(door.tx, door.ty):
                raise SaveError(path, "a door lies outside the map")
            world.nav.set_door(door.tx, door.ty, door.state)
        try:
            ledger_restore(world.ledger, state.get("ledger"))
        except ValueError as exc:
            raise SaveError(path, f"ledger: {exc}") from None
        if check_hash:
            saved = state.get("sync_hash")
            now = sync_hash(world)
            if saved != now and not force:
                raise SaveError(path, f"restored world hashes to {now}, the snapshot says {saved!r}; file is corrupt")
    except BaseException:
        world.close()
        raise
    return world


def load_snapshot(path, content, *, force: bool = False):
    data = read_file(path)
    chunks = list(read_chunks(path, data, SNAPSHOT_MAGIC))
    if len(chunks) != 1 or chunks[0][0] != b"S":
        raise SaveError(path, "a snapshot file holds exactly one snapshot chunk")
    return restore_world(path, chunks[0][2], content, force=force)


__all__ = ["SaveError", "save_snapshot", "load_snapshot", "encode_snapshot", "snapshot_state", "restore_world",
           "write_atomic", "SNAPSHOT_MAGIC", "SNAPSHOT_VERSION"]
