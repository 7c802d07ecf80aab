"""Pinned sync hashes: the simulation of the shipped scenarios does not move unless a commit says it should.

A change meant to alter the simulation updates these values in the same commit and says why; a refactoring
must leave them alone. Each match runs 900 ticks (30 s of game time), long enough for brains, plans,
commanders, doors and fights to have acted.
"""
import pytest

from game.synchash import sync_hash
from game.world import World

PINNED = {
    ("skirmish", 1): "29eaef86d6de1e8d4f98aa38b9d02063",     # brains + UCT commanders on both sides
    ("duel", 2): "fdc5be91d9b6545ed1b317fed676694f",         # the scripted attack-nearest AI
    ("uct_vs_eo", 1): "34f80169392c23f09fd3f801ba6bf791",    # UCT against Expected Outcome
}


@pytest.mark.parametrize("scenario,seed", sorted(PINNED))
def test_pinned_sync_hash(content, scenario, seed):
    world = World(content, scenario, seed)
    try:
        world.run(900)
        assert (world.tick, sync_hash(world)) == (900, PINNED[(scenario, seed)])
    finally:
        world.close()
