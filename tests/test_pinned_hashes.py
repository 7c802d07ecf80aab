"""Pinned sync hashes: the simulation of the shipped scenarios does not move unless a commit says it should.

A change meant to alter the simulation updates these values in the same commit and says why; a refactoring
must leave them alone. (They moved with the economy: every team gained a stockpile entity and the world state the
nav grid's versions; then with the fairness fixes: simultaneous fire, waypoints reached within rounding, A*
and tie-breaks turned with each side's quarter of the map, walks starting from the tile on the goal's side; then with fog of war: every
decider sees only what its team sees, commanders decide on the same tick and estimate unseen squads; then with stances: every unit carries
a Stance component, world state, though AI units behave exactly as before — positions and hit points at tick
900 are unchanged; then with fair mirrors (issue 17): a point-symmetric map gets a point-symmetric region cut and
the searches break ties in an order its half turn keeps, NPCs and scripted units stagger their thinking by their
rank in their team instead of their entity id, and squads spread round an order by rank, turned with the team's
quarter — so every scenario's decisions moved.) Each match runs 900 ticks (30 s of game time), long enough for brains, plans,
commanders, doors and fights to have acted.
"""
import pytest

from game.synchash import sync_hash
from game.world import World

PINNED = {
    ("skirmish", 1): "7a867264e4c8874ca698bfbb778e85a2",     # brains + UCT commanders on both sides
    ("duel", 2): "7ff7ce072fed8a0d15fe04eeddda8326",         # the scripted attack-nearest AI
    ("uct_vs_eo", 1): "48489ad1ad48326dc3f90aaa3b4d4a64",    # UCT against Expected Outcome
}


@pytest.mark.parametrize("scenario,seed", sorted(PINNED))
def test_pinned_sync_hash(content, scenario, seed):
    world = World(content, scenario, seed)
    try:
        world.run(900)
        assert (world.tick, sync_hash(world)) == (900, PINNED[(scenario, seed)])
    finally:
        world.close()
