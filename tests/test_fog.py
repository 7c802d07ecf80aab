"""Fog of war (docs/rules/fog.md): sight blocked by walls, explored ground, memory that fades, deciders held to
what their team knows, and the scenario switch that lifts it."""
import copy
from types import SimpleNamespace

import esper
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from components import Building, Position, Team, UnitKind
from game.fog import UNIT_MEMORY, VIEWER, Fog
from game.world import World


def stub_world(rows: list[str]):
    tilemap = SimpleNamespace(width=len(rows[0]), height=len(rows), rows=rows)
    return SimpleNamespace(tilemap=tilemap, scenario=SimpleNamespace(teams=[None, None]))


def test_walls_block_sight_but_are_seen_themselves():
    rows = ["..........",
            "..........",
            ".....#....",
            "..........",
            ".........."]
    fog = Fog(stub_world(rows), True)
    seen = set(int(i) for i in fog._mask(2 * 10 + 2, 8))          # a viewer on (2, 2), sight 8
    tile = lambda x, y: y * 10 + x
    assert tile(4, 2) in seen and tile(5, 2) in seen               # up to the wall, and the wall
    assert tile(7, 2) not in seen and tile(9, 2) not in seen       # behind it along the row: hidden
    assert tile(7, 0) in seen and tile(7, 4) in seen               # beside the shadow: seen
    assert tile(2, 2) in seen


def test_the_sight_disk_has_the_documented_radius():
    fog = Fog(stub_world(["." * 21] * 21), True)
    seen = set(int(i) for i in fog._mask(10 * 21 + 10, 5))
    for dx in range(-7, 8):
        for dy in range(-7, 8):
            assert ((10 + dy) * 21 + 10 + dx in seen) == (dx * dx + dy * dy <= 5 * 5 + 5), (dx, dy)


def units_of(team: int) -> list[int]:
    return sorted(e for e, (t, _k) in esper.get_components(Team, UnitKind) if t.team == team)


def test_a_team_sees_only_around_its_own_and_explores(content):
    world = World(content, "skirmish", 1)
    try:
        world.run(12)
        fog = world.fog
        assert fog.enabled
        for team in (0, 1):
            vis, exp = fog.grid(team), fog.grid(team, explored=True)
            assert 0 < vis.sum() < vis.size // 2                    # some ground, far from all of it
            assert (exp >= vis).all()
            for eid in units_of(team):
                pos = esper.component_for_entity(eid, Position)
                assert fog.sees(team, pos.x, pos.y)
        # the armies start out of each other's sight: neither knows where an enemy unit is
        enemies = [esper.component_for_entity(e, Position) for e in units_of(1)]
        assert not any(fog.sees(0, p.x, p.y) for p in enemies)
        assert len(world.seen_index(0)[1][0]) == 0
        assert world.nearest_enemy(0, 10.0, 10.0) is None
        before = fog.grid(0, explored=True).sum()
        world.run(300)
        assert fog.grid(0, explored=True).sum() > before          # moving units explore
    finally:
        world.close()


def test_a_seen_unit_is_remembered_where_it_was_then_forgotten(content):
    world = World(content, "skirmish", 1)
    try:
        world.run(6)
        fog = world.fog
        scout = units_of(0)[0]
        enemy = units_of(1)[0]
        spos = esper.component_for_entity(scout, Position)
        epos = esper.component_for_entity(enemy, Position)
        home = (epos.x, epos.y)
        spot = (spos.x + 1.0, spos.y)
        epos.x, epos.y = spot                                      # the enemy walks up to the scout
        fog.update()
        assert enemy in fog.remembered_units(0)
        assert fog.remembered_units(0)[enemy][2:4] == list(spot)
        epos.x, epos.y = home                                      # and away, while the scout looks elsewhere
        for e in units_of(0):
            p = esper.component_for_entity(e, Position)
            p.x, p.y = 40.5, 44.5                                  # every unit of team 0 far off, mid-south
        fog.update()
        assert not fog.sees(0, *spot)
        assert enemy in fog.remembered_units(0)                   # not seen to leave: still remembered
        world.tick += UNIT_MEMORY + 1
        fog.update()
        assert enemy not in fog.remembered_units(0)               # faded
    finally:
        world.close()


def test_buildings_are_remembered_as_last_seen(content):
    world = World(content, "econ_duel", 1)
    try:
        world.run(6)
        fog = world.fog
        hq = next(e for e, (b, t) in esper.get_components(Building, Team) if t.team == 1 and b.kind == "hq")
        b = esper.component_for_entity(hq, Building)
        assert hq not in fog.known_buildings(0)
        worker = units_of(0)[0]
        pos = esper.component_for_entity(worker, Position)
        home = (pos.x, pos.y)
        pos.x, pos.y = b.tx - 1.5, b.ty + 0.5                      # a scout beside the enemy headquarters
        fog.update()
        assert fog.known_buildings(0)[hq][1:4] == ["hq", b.tx, b.ty]
        assert hq in world.known_building_index(0)[1][0]
        pos.x, pos.y = home
        fog.update()
        assert hq in fog.known_buildings(0)                        # out of sight, still on the map as last seen
    finally:
        world.close()


def commander_record(world, team=0):
    recs = world.decisions.records("commander", team)
    assert recs
    return recs[0]


def test_the_commander_searches_what_its_team_knows_and_says_so(content):
    world = World(content, "skirmish", 1)
    try:
        world.step()
        rec = commander_record(world)
        assert rec.view == "fog"
        # the enemy squads, never seen, are estimated where they started, at full strength
        assert {g[0] for g in rec.groups} >= {"1:1", "1:2", "1:3"}
        assert rec.orders                                         # it still plans: it goes looking
    finally:
        world.close()
    lifted = copy.deepcopy(content)
    name = lifted.scenarios["skirmish"].teams[0].commander
    lifted.commanders[name] = lifted.commanders[name].model_copy(update={"sees_all": True})
    world = World(lifted, "skirmish", 1)
    try:
        world.step()
        assert commander_record(world).view == "sees_all"
        assert world.seen_index(0)[1][0].size == len(units_of(1))
    finally:
        world.close()


def test_a_scenario_without_fog_sees_everything(content):
    clear = copy.deepcopy(content)
    clear.scenarios["skirmish"] = clear.scenarios["skirmish"].model_copy(update={"fog": False})
    world = World(clear, "skirmish", 1)
    try:
        world.run(6)
        assert world.fog.grid(0).all() and world.fog.grid(1, explored=True).all()
        assert commander_record(world).view == "all"
        assert world.nearest_enemy(0, 10.0, 10.0) is not None
    finally:
        world.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.sampled_from([0.0, 1e-7, 0.5, 0.9999999, 1.0])), min_size=1,
                max_size=6),
       st.lists(st.tuples(st.integers(0, 5), st.sampled_from([0.0, 1e-7, 0.5, 0.9999999, 1.0])), min_size=6,
                max_size=6),
       st.sets(st.integers(0, 8 * 6 - 1)))
def test_vectorised_sight_is_the_pointwise_rule(xs, ys, lit):
    """seen_mask / seen_at over corner_tiles agree with ``sees`` point by point, tile edges included."""
    fog = Fog.__new__(Fog)
    fog.width, fog.height = 8, 6
    fog.visible = [np.zeros(48, dtype=bool)]
    fog.visible[0][sorted(lit)] = True
    px = np.array([a + f for a, f in xs])
    py = np.array([a + f for a, f in ys[:len(xs)]])
    expected = [fog.sees(0, float(x), float(y)) for x, y in zip(px, py)]
    assert fog.seen_mask(0, px, py).tolist() == expected
    assert fog.seen_at(0, fog.corner_tiles(px, py)).tolist() == expected


@settings(max_examples=40, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 12 * 9 - 1), st.sampled_from([2, 3, 5])), max_size=14),
       st.lists(st.sets(st.tuples(st.integers(0, 12 * 9 - 1), st.sampled_from([2, 3, 5])), max_size=3),
                min_size=1, max_size=8))
def test_the_kept_unit_sight_count_is_the_union_of_the_viewers_masks(first, toggles):
    """Between updates a team's unit sight is changed by the viewers that left and came, or built afresh: after
    any sequence of viewer sets, ``count > 0`` is exactly the union of the current viewers' masks, and the count
    is how many of them see each tile."""
    rows = ["............",
            "....#.......",
            "....#...#...",
            "........#...",
            "..##........",
            "............",
            ".......##...",
            "............",
            "............"]
    fog = Fog(stub_world(rows), True)
    viewers = set(first)
    for toggle in [set()] + toggles:
        viewers ^= toggle                   # a few viewers leave or come (more than half: built afresh)
        count = fog._unit_sight(0, {tile * VIEWER + r for tile, r in viewers})
        expected = np.zeros(12 * 9, dtype=np.int64)
        for tile, r in viewers:
            expected[fog._mask(tile, r)] += 1
        assert count.tolist() == expected.tolist()
    # a step of one viewer among six changes the kept count in place
    viewers = {(13, 3), (14, 3), (27, 5), (60, 2), (61, 2), (100, 3)}
    kept = fog._unit_sight(0, {tile * VIEWER + r for tile, r in viewers})
    again = fog._unit_sight(0, {tile * VIEWER + r for tile, r in viewers - {(60, 2)} | {(62, 2)}})
    assert again is kept and kept.sum() == sum(len(fog._mask(t, r)) for t, r in viewers - {(60, 2)} | {(62, 2)})


def test_the_hunt_point_for_a_start_under_a_headquarters_is_open_ground_beside_it(content):
    """Knowing nothing, a unit looks where the enemy started; that tile lies under the enemy's headquarters, where
    no move can end, so the hunt point is the open tile nearest it (the army used to stand still instead)."""
    world = World(content, "econ_duel", 1, strategies={0: "macro", 1: "macro"})
    try:
        world.run(1)
        sx, sy = world.tilemap.starts[world.scenario.teams[1].start]
        assert not world.nav.is_walkable(sx, sy)                 # the enemy start is under its headquarters
        hx, hy = world.tilemap.starts[world.scenario.teams[0].start]
        spot = world.fog.hunt_point(0, hx + 0.5, hy + 0.5)
        assert spot is not None and world.nav.is_walkable(int(spot[0]), int(spot[1]))
        assert (spot[0] - sx - 0.5) ** 2 + (spot[1] - sy - 0.5) ** 2 <= 6 * 6 * 2
        # mirrored bases hunt mirrored spots
        other = world.fog.hunt_point(1, sx + 0.5, sy + 0.5)
        w, h = world.nav.width, world.nav.height
        assert other is not None and world.nav.is_walkable(int(other[0]), int(other[1]))
        assert abs((spot[0] - (sx + 0.5)) ** 2 + (spot[1] - (sy + 0.5)) ** 2
                   - (other[0] - (hx + 0.5)) ** 2 - (other[1] - (hy + 0.5)) ** 2) < 1e-6, (spot, other, w, h)
    finally:
        world.close()
