"""World's per-tick spatial queries against their plain definitions: the cached and joined tables give the
same answers as a walk over the entities (seeded points, ties included)."""
import numpy as np

from game.economy import population_cap, population_used
from game.world import World


def _brute_nearest(world, team, x, y, buildings):
    best = None
    indexes = [world.seen_index(team)] + ([world.known_building_index(team)] if buildings else [])
    for index in indexes:
        for other, (ids, xs, ys) in index.items():
            if not world.enemies(team, other):
                continue
            for eid, ex, ey in zip(ids.tolist(), xs.tolist(), ys.tolist()):
                cand = ((ex - x) ** 2 + (ey - y) ** 2, eid)
                if best is None or cand < best:
                    best = cand
    return None if best is None else (best[1], best[0])


def test_nearest_enemies_is_the_least_distance_with_ties_to_the_lowest_id(content):
    world = World(content, "econ_duel", 3, strategies={0: "ai_balanced", 1: "worker_rush"})
    try:
        rng = np.random.default_rng(7)
        checked = ties = 0
        for _ in range(4):
            world.run(1500)
            for team in (0, 1):
                for buildings in (False, True):
                    xs = list(rng.uniform(0, world.tilemap.width, 40))
                    ys = list(rng.uniform(0, world.tilemap.height, 40))
                    got = world.nearest_enemies(team, xs, ys, buildings)
                    for x, y, answer in zip(xs, ys, got):
                        want = _brute_nearest(world, team, x, y, buildings)
                        assert answer == want
                        assert world.nearest_enemy(team, x, y, buildings) == want
                        checked += 1
        # exact ties: two enemies moved off the map, 4 tiles apart; points on their bisector are as near to both
        world.sees_all = world.sees_all | {0}
        ids = world.team_index()[1][0]
        a, b = int(ids[-1]), int(ids[-2])
        import esper
        from components import Position
        world.activate()
        esper.component_for_entity(a, Position).x, esper.component_for_entity(a, Position).y = -50.0, -50.0
        esper.component_for_entity(b, Position).x, esper.component_for_entity(b, Position).y = -46.0, -50.0
        world._index_tick = -1                                 # the tables are re-read from the moved units
        points = [(-48.0, -50.0), (-48.0, -47.0), (-48.0, -53.0)]
        got = world.nearest_enemies(0, [p[0] for p in points], [p[1] for p in points])
        for (x, y), answer in zip(points, got):
            assert answer == _brute_nearest(world, 0, x, y, False)
            assert answer[0] == min(a, b) and answer[1] in (4.0, 13.0)
            ties += 1
        # a unit and a building at equal distance: the building (made first, the lower id) although the joined
        # table lists units before buildings
        building = int(world.building_index()[1][0][0])
        assert building < a
        esper.component_for_entity(b, Position).x = 100.0
        pos = esper.component_for_entity(building, Position)
        pos.x, pos.y = -46.0, -50.0
        world._index_tick = world._bindex_tick = -1
        answer = world.nearest_enemies(0, [-48.0], [-50.0], buildings=True)[0]
        assert answer == (building, 4.0) == _brute_nearest(world, 0, -48.0, -50.0, True)
        ties += 1
        assert checked > 500 and ties > 0
    finally:
        world.close()


def test_kept_population_and_standing_answers_equal_a_fresh_count(content):
    world = World(content, "econ_duel", 2, strategies={0: "macro", 1: "heavy_rush"})
    try:
        from game import victory
        for _ in range(30):
            world.run(400)
            for team in (0, 1):
                used = population_used(world, team)
                cap = population_cap(world, team)
                world._kept.clear()                            # forget: count again from the world
                assert population_used(world, team) == used
                assert cap == population_cap(world, team)
            standing = victory.standing_teams(world)
            world._kept.clear()
            assert victory.standing_teams(world) == standing
            if world.over:
                break
    finally:
        world.close()


def test_a_kept_answer_is_made_again_when_what_it_is_made_of_changes(content):
    world = World(content, "skirmish", 1)
    try:
        a, b = object(), object()
        made = []

        def make():
            made.append(1)
            return len(made)
        assert world.kept("k", (a, 3), make) == 1
        assert world.kept("k", (a, 3), make) == 1                  # the same object, the same number: kept
        assert world.kept("k", (a, 4), make) == 2                  # a number moved
        assert world.kept("k", (b, 4), make) == 3                  # another object
        assert world.kept("k", (b, 4, a), make) == 4               # made of more things: not the same answer
        assert world.kept("k", (b, 4), make) == 5                  # nor of fewer
        assert world.kept(("k", 2), (b, 4), make) == 6             # any hashable name, each its own answer
    finally:
        world.close()


def test_living_units_per_team_kept_through_deaths_equal_a_fresh_count(content):
    """``alive_per_team`` takes the dead off the kept counts after deaths alone (and counts again after a birth):
    every few ticks of a firefight and of an economy (units made) it equals a count from the world."""
    import esper
    from components import Health, Team, UnitKind
    for scenario, strategies, step in (("skirmish", None, 5), ("econ_duel", {0: "ai_balanced", 1: "worker_rush"}, 40)):
        world = World(content, scenario, 2, strategies=strategies)
        try:
            seen = set()
            for _ in range(160):
                world.run(step)
                got = world.alive_per_team()
                want = [0] * len(world.scenario.teams)
                for _eid, (team, _h, _k) in esper.get_components(Team, Health, UnitKind):
                    want[team.team] += 1
                assert got == want, (scenario, world.tick)
                seen.add(tuple(got))
                if world.over:
                    break
            assert len(seen) > 3, scenario                    # the counts moved (deaths, and births in the economy)
        finally:
            world.close()
