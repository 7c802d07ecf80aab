"""The sync hash: one digest of the whole world state, computed canonically.

Entities in ascending id order; each entity's components in registry-name
order; every field by value, floats by their exact IEEE-754 bit pattern
(msgpack writes Python floats as float64); then the tick, the RNG state and
the ledger's active actions. Two worlds hash equal exactly when all of that is
equal, whatever process or run produced them.
"""
from __future__ import annotations

import hashlib

import esper
import msgpack

from components import to_row


def rng_state(rng) -> list:
    st = rng.bit_generator.state
    inner = st["state"]
    return [st["bit_generator"], hex(inner["state"]), hex(inner["inc"]), int(st["has_uint32"]), int(st["uinteger"])]


def entity_rows(world) -> list:
    world.activate()
    rows = []
    for eid in sorted(esper.get_entities()):
        comps = sorted(esper.components_for_entity(eid), key=lambda c: type(c).__name__)
        rows.append([eid, [[type(c).__name__, to_row(c)] for c in comps]])
    return rows


def world_state(world) -> list:
    """Everything the sync hash covers, as plain msgpack-able data."""
    return [world.tick, rng_state(world.rng), world.nav.walkable_bits(), entity_rows(world),
            world.ledger.state_rows()]


def sync_hash(world) -> str:
    blob = msgpack.packb(world_state(world), use_bin_type=True)
    return hashlib.blake2b(blob, digest_size=16).hexdigest()
