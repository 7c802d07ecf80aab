"""The canonical world state (game/state.py) is the one layout behind both the sync hash and snapshots."""
import re

import pytest

from game.state import WorldState, astuple_shallow, capture, restore
from game.synchash import hash_bytes, sync_hash
from game.world import World
from saves.snapshot import snapshot_state


def test_the_hash_and_the_snapshot_are_the_same_bytes(content):
    world = World(content, "skirmish", 4)
    try:
        world.run(120)
        blob = capture(world).pack()
        state = snapshot_state(world)
        assert state["world"] == blob and state["sync_hash"] == hash_bytes(blob) == sync_hash(world)
    finally:
        world.close()


def test_restoring_a_captured_state_gives_it_back(content):
    world = World(content, "skirmish", 4)
    fresh = World(content, "skirmish", 4, populate=False)
    try:
        world.run(200)
        state = capture(world)
        restore(fresh, WorldState.from_list(list(astuple_shallow(state))))
        assert capture(fresh) == state and sync_hash(fresh) == sync_hash(world)
    finally:
        world.close()
        fresh.close()


@pytest.mark.parametrize("parts,message", [
    ([1, 2, 3], "world state should have 7 parts (tick, rng, last_entity, nav, components, ledger, fog)"),
    ([True, [], 0, [], {}, [], []], "world state part 'tick' should be int"),
    ([0, [], 0, "walls", {}, [], []], "world state part 'nav' should be list"),
    ([0, [], 0, [1, 2, "walls"], {}, [], []], "world state part 'nav' should be [version, door version, walkable bytes]"),
])
def test_a_state_that_does_not_fit_the_layout_is_named(parts, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        WorldState.from_list(parts)
