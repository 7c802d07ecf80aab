"""The sync hash: one digest of the whole world state, computed canonically.

Component types in registry-name order, each as its entity ids ascending and
their field rows; every field by value, floats by their exact IEEE-754 bit pattern
(msgpack writes Python floats as float64); then the tick, the RNG state and
the ledger's active actions. Two worlds hash equal exactly when all of that is
equal, whatever process or run produced them.
"""
from __future__ import annotations

import hashlib

import esper
import msgpack

from components import REGISTRY, ROW_OF


def rng_state(rng) -> list:
    st = rng.bit_generator.state
    inner = st["state"]
    return [st["bit_generator"], hex(inner["state"]), hex(inner["inc"]), int(st["has_uint32"]), int(st["uinteger"])]


def component_columns(world) -> dict[str, list]:
    """Per component type (by registry name): [entity ids ascending, field rows]. Shared with snapshots."""
    world.activate()
    columns = {}
    for name in sorted(REGISTRY):
        cls = REGISTRY[name]
        items = sorted(esper.get_component(cls))
        if items:
            row_of = ROW_OF[cls]
            columns[name] = [[eid for eid, _ in items], [row_of(comp) for _, comp in items]]
    return columns


def world_state(world) -> list:
    """Everything the sync hash covers, as plain msgpack-able data."""
    return [world.tick, rng_state(world.rng), world.last_entity, world.nav.walkable_bits(),
            component_columns(world), world.ledger.state_rows()]


def sync_hash(world) -> str:
    blob = msgpack.packb(world_state(world), use_bin_type=True)
    return hashlib.blake2b(blob, digest_size=16).hexdigest()
