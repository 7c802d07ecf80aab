"""The sync hash: one digest of the whole world state (game/state.py), the same in every process and run.

BLAKE2b over ``WorldState.pack()``: component types in registry-name order in their column encoding (entity
ids ascending; numeric fields as little-endian binary, so floats by their exact IEEE-754 bit pattern), the
tick, the RNG state, the nav grid and the ledger's active and queued actions. Two worlds hash equal exactly
when all of that is equal.
"""
from __future__ import annotations

import hashlib

from game.state import capture


def hash_bytes(blob: bytes) -> str:
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


def sync_hash(world) -> str:
    return hash_bytes(capture(world).pack())
