"""Pinned sync hashes: the simulation of the shipped scenarios does not move unless a commit says it should.

A change meant to alter the simulation updates these values in the same commit and says why; a refactoring
must leave them alone. (They moved once, with the economy: every team gained a stockpile entity and the world
state the nav grid's versions, so the bytes hashed changed while the firefights played out exactly as before.) Each match runs 900 ticks (30 s of game time), long enough for brains, plans,
commanders, doors and fights to have acted.
"""
import pytest

from game.synchash import sync_hash
from game.world import World

PINNED = {
    ("skirmish", 1): "9f3c14e8b7cb93e87b12e7703b2b56a8",     # brains + UCT commanders on both sides
    ("duel", 2): "81b011910d11be4547e27b04788a9cd2",         # the scripted attack-nearest AI
    ("uct_vs_eo", 1): "1d18b7b540262297e8349c2055c25e63",    # UCT against Expected Outcome
}


@pytest.mark.parametrize("scenario,seed", sorted(PINNED))
def test_pinned_sync_hash(content, scenario, seed):
    world = World(content, scenario, seed)
    try:
        world.run(900)
        assert (world.tick, sync_hash(world)) == (900, PINNED[(scenario, seed)])
    finally:
        world.close()
