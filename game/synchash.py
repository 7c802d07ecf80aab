"""The sync hash: one digest of the whole world state, computed canonically.

Component types in registry-name order, each in the column encoding of
components/columns.py (entity ids ascending; numeric fields as little-endian
binary, so floats by their exact IEEE-754 bit pattern); then the tick, the RNG state and
the ledger's active actions. Two worlds hash equal exactly when all of that is
equal, whatever process or run produced them.
"""
from __future__ import annotations

import hashlib

import esper
import msgpack

from components import REGISTRY
from components.columns import encode_columns


def rng_state(rng) -> list:
    st = rng.bit_generator.state
    inner = st["state"]
    return [st["bit_generator"], hex(inner["state"]), hex(inner["inc"]), int(st["has_uint32"]), int(st["uinteger"])]


def component_columns(world, registry: dict = REGISTRY) -> dict[str, list]:
    """Per component type (by registry name): its column encoding. Shared with snapshots."""
    world.activate()
    columns = {}
    for name in sorted(registry):
        items = sorted(esper.get_component(registry[name]))
        if items:
            columns[name] = encode_columns(registry[name], items)
    return columns


def world_state(world) -> list:
    """Everything the sync hash covers, as plain msgpack-able data."""
    return [world.tick, rng_state(world.rng), world.last_entity, world.nav.walkable_bits(),
            component_columns(world), world.ledger.state_rows()]


def hash_bytes(blob: bytes) -> str:
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


def sync_hash(world) -> str:
    return hash_bytes(msgpack.packb(world_state(world), use_bin_type=True))
