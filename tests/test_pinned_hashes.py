"""Pinned sync hashes: the simulation of the shipped scenarios does not move unless a commit says it should.

A change meant to alter the simulation updates these values in the same commit and says why; a refactoring
must leave them alone. (They moved with the economy: every team gained a stockpile entity and the world state the
nav grid's versions; then with the fairness fixes: simultaneous fire, waypoints reached within rounding, A*
and tie-breaks turned with each side's quarter of the map, walks starting from the tile on the goal's side.) Each match runs 900 ticks (30 s of game time), long enough for brains, plans,
commanders, doors and fights to have acted.
"""
import pytest

from game.synchash import sync_hash
from game.world import World

PINNED = {
    ("skirmish", 1): "1eb9c1a9af4db4c3b00865a070f4cbdc",     # brains + UCT commanders on both sides
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
