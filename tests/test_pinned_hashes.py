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
quarter — so every scenario's decisions moved; then with keyed hit rolls (issue 17): a hit roll is keyed on the
shooter's home quarter and rank instead of being the next number of one stream drawn in entity order, and a
commander's search stream on the team's home quarter instead of its index — every hit and miss moved, and the duel
now ends at tick 881; then with the rest of fair mirrors: the ledger takes a tick's requests team by team, in an
order of the teams drawn for each tick, cover ties are broken on turned offsets and a unit on a tile edge is on cover if
either side is, and the crossroads' south storeroom is locked like the north one; then the commanders' region tie order is
turned for the team in the second half, so a tie between a region and its own image goes each side's own way; then paths (issue 20): a path is
walked back over exact integer distances found by tcod's C search, so where several paths are equally short a
walker may take another of them than the old A* did; then think scheduling (issue 20): an NPC keeps the stagger slot
it first got, so deaths no longer move its decisions, and a brain's own cancels no longer wake it.) Each match runs 900 ticks (30 s of game time) or until it ends, long enough for brains,
plans, commanders, doors and fights to have acted.
"""
import pytest

from game.synchash import sync_hash
from game.world import World

PINNED = {     # (scenario, seed) -> (the tick it stops at, the sync hash there)
    ("skirmish", 1): (900, "7324a17beb1f559e047dd91343d35d0c"),     # brains + UCT commanders on both sides
    ("duel", 2): (881, "03fc12722842cc90eea4ec3658f15633"),         # the scripted attack-nearest AI (won at 881)
    ("uct_vs_eo", 1): (900, "95906d99101759a04e0b581623756c90"),    # UCT against Expected Outcome
}


@pytest.mark.parametrize("scenario,seed", sorted(PINNED))
def test_pinned_sync_hash(content, scenario, seed):
    world = World(content, scenario, seed)
    try:
        world.run(900)
        assert (world.tick, sync_hash(world)) == PINNED[(scenario, seed)]
    finally:
        world.close()


#: an army with brains, UCT commanders and calm NPCs (the scenario's ``calm_think_every``; none of the matches
#: above sets it): ``army_2000`` scaled to 400 units as ``rts bench --units 400`` runs it, 600 ticks, in contact by
#: then. Pinned at stop 48, where the calm test's summed-area tables went: the same hash before and after
ARMY_PINNED = (400, 600, "fcdb11bba7b9052954ac50b4a1e082c6")


def test_pinned_army_sync_hash(content):
    from benchmarks.run import army_content
    units, ticks, want = ARMY_PINNED
    scaled, sid = army_content(content, units)
    assert scaled.scenarios[sid].calm_think_every > 0
    world = World(scaled, sid, 1)
    try:
        world.run(ticks)
        assert (world.tick, sync_hash(world)) == (ticks, want)
    finally:
        world.close()
