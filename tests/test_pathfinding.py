import math

import numpy as np

from ai.pathfinding import astar, bfs_distances, segment_clear, smooth


def grid(rows):
    return [ch != "#" for row in rows for ch in row], len(rows[0]), len(rows)


def test_straight_path_on_open_floor():
    walk, w, h = grid(["....", "....", "...."])
    path = astar(walk, w, h, (0, 0), (3, 0))
    assert path == [(0, 0), (1, 0), (2, 0), (3, 0)]


def test_path_goes_around_a_wall_and_is_shortest():
    rows = ["......",
            ".####.",
            "......"]
    walk, w, h = grid(rows)
    path = astar(walk, w, h, (0, 1), (5, 1))
    assert path[0] == (0, 1) and path[-1] == (5, 1)
    assert all(walk[y * w + x] for x, y in path)
    cost = sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(path, path[1:]))
    assert math.isclose(cost, 7.0)  # no diagonal past the wall ends: up, along five, down


def test_no_corner_cutting_between_diagonal_walls():
    rows = ["#.",
            ".#"]
    walk, w, h = grid(rows)
    assert astar(walk, w, h, (1, 0), (0, 1)) is None


def test_unreachable_and_blocked_goal_return_none():
    walk, w, h = grid(["..#..", "..#..", "..#.."])
    assert astar(walk, w, h, (0, 0), (4, 0)) is None
    assert astar(walk, w, h, (0, 0), (2, 0)) is None


def test_segment_clear_sees_walls_and_corners():
    walk, w, h = grid(["...", ".#.", "..."])
    assert segment_clear(walk, w, h, 0.5, 0.5, 2.5, 0.5)
    assert not segment_clear(walk, w, h, 0.5, 1.5, 2.5, 1.5)
    assert not segment_clear(walk, w, h, 0.5, 0.5, 2.5, 2.5)  # through the wall's centre


def test_a_pass_within_corner_of_a_tile_corner_counts_as_through_it():
    """The corner (1, 1) has a wall below-left of it: a diagonal through it is blocked (both side tiles must be open),
    one that misses it by a millionth of a tile passes on the open side, and one that misses it by less than
    ``CORNER`` of its length is taken as through it, on whichever side rounding put it: a unit and its mirror image,
    a rounding apart, get one answer. The compiled walks (line of sight's, checked, and the plain one) agree."""
    from ai import paths_jit
    from ai.pathfinding import CORNER, jit_available
    assert 1e-12 < CORNER < 1e-6                                           # the probes below straddle the band
    walk, w, h = grid(["..", "#."])
    checks = [segment_clear]
    if jit_available():
        for walker in (paths_jit._segment_clear, paths_jit._segment_checked):
            checks.append(lambda cells, *a, _f=walker: bool(_f(np.array(cells, dtype=np.bool_), *a)))
    for clear in checks:
        assert not clear(walk, w, h, 0.5, 0.5, 1.5, 1.5)                   # exactly through the corner
        assert clear(walk, w, h, 0.5 + 1e-6, 0.5, 1.5 + 1e-6, 1.5)          # above it: by the open tile (1, 0)
        assert not clear(walk, w, h, 0.5 - 1e-6, 0.5, 1.5 - 1e-6, 1.5)      # below it: into the wall (0, 1)
        for miss in (1e-12, -1e-12):                                       # a rounding either side: the corner's answer
            assert not clear(walk, w, h, 0.5 + miss, 0.5, 1.5 + miss, 1.5)


def test_a_segment_ending_beside_a_corner_stops_on_its_end_tile():
    """A segment whose end lies within ``CORNER`` of a tile corner, in one of the two tiles beside it, is walked to
    that tile and no further (the corner rule checks both side tiles, then the walk ends there instead of stepping
    past the end): where the tiles round the corner are open, every rounding of such an end gives one answer, and
    a segment gives the answer of its reverse. A corner on the map's edge is blocked (the tile beyond it is off the
    map) and is never read."""
    from ai.pathfinding import PathGraph
    walk = [True] * 9
    assert segment_clear(walk, 3, 3, 0.5, 0.5, 1 + 1e-12, 1 - 1e-12)
    assert segment_clear(walk, 3, 3, 2.5, 2.5, 2 - 1e-12, 2 + 1e-12)
    rows = ["#" * 10] + ["#" + "." * 8 + "#" for _ in range(8)] + ["#" * 10]
    rows[4] = rows[4][:3] + "#" + rows[4][4:]                              # a wall at (3, 4), away from (5, 5)
    walk, w, h = grid(rows)
    graph = PathGraph(walk, w, h)
    # towards the corner (5, 5) from each of the four directions, each passing tile corners on the way
    for start in ((3.5, 3.2), (7.5, 3.5), (7.5, 7.5), (2.5, 7.5)):
        answers = set()
        for ex in (-1e-13, 0.0, 1e-13):
            for ey in (-1e-13, 0.0, 1e-13):
                x1, y1 = 5 + ex, 5 + ey
                there = segment_clear(walk, w, h, *start, x1, y1)
                assert there == segment_clear(walk, w, h, x1, y1, *start) == graph.clear(*start, x1, y1) \
                    == graph.clear(x1, y1, *start)
                answers.add(there)
        assert answers == {True}, start
    # an end within CORNER of a corner on the map's top edge: blocked, whatever the tile the old walk read off it
    edge = [True] * 12
    edge[1 * 4 + 2] = False
    for elsewhere in (True, False):                                        # (the tile a wrapped index used to read)
        edge[2 * 4 + 1] = elsewhere
        assert not segment_clear(edge, 4, 3, 0.5, 1.5, 2.0000000000001, 0.0)


def test_smooth_drops_needless_waypoints():
    walk, w, h = grid(["......", "......"])
    path = astar(walk, w, h, (0, 0), (5, 1))
    assert smooth(walk, w, h, path) == [(0.5, 0.5), (5.5, 1.5)]


def test_bfs_distances():
    walk, w, h = grid(["...", "##.", "..."])
    d = bfs_distances(walk, w, h, [(0, 0)])
    assert d[0] == 0 and d[2] == 2 and d[2 * w + 0] == 6 and d[1 * w + 0] == -1


def test_locked_door_blocks_the_path_until_opened(make_world):
    from tests.conftest import idle_teams, spawn
    rows = ["#######",
            "#..#..#",
            "#..L..#",
            "#..#..#",
            "#######"]
    world = make_world(rows, idle_teams(spawn("rifleman", 1, 2), spawn("rifleman", 5, 2)))
    nav = world.nav
    assert nav.find_path((1, 2), (5, 2)) is None
    nav.set_door(3, 2, "open")
    path = nav.find_path((1, 2), (5, 2))
    assert path is not None and path[-1] == (5.5, 2.5)
    nav.set_door(3, 2, "closed")
    assert nav.find_path((1, 2), (5, 2)) is None


# -- the C search (tcod) and the Python one give the same path; mirror searches give mirror paths ----------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from ai.pathfinding import DIAGONAL, STRAIGHT, PathGraph  # noqa: E402


def _length(path):
    return sum(DIAGONAL if a[0] != b[0] and a[1] != b[1] else STRAIGHT for a, b in zip(path, path[1:]))


@st.composite
def _maps(draw):
    w = draw(st.integers(2, 12))
    h = draw(st.integers(2, 10))
    walk = draw(st.lists(st.booleans(), min_size=w * h, max_size=w * h))
    tiles = st.tuples(st.integers(0, w - 1), st.integers(0, h - 1))
    return walk, w, h, draw(tiles), draw(tiles), draw(st.integers(0, 3))


@settings(max_examples=300, deadline=None)
@given(_maps())
def test_the_c_search_returns_the_python_search_s_path(case):
    walk, w, h, start, goal, turn = case
    expected = astar(walk, w, h, start, goal, turn=turn)
    assert PathGraph(walk, w, h).path(start, goal, turn=turn) == expected
    if expected is not None:    # and it is a legal path: open tiles, single steps, no corner cut
        assert expected[0] == start and expected[-1] == goal
        for (ax, ay), (bx, by) in zip(expected, expected[1:]):
            assert max(abs(ax - bx), abs(ay - by)) == 1 and walk[by * w + bx]
            if ax != bx and ay != by:
                assert walk[ay * w + bx] and walk[by * w + ax]


def test_numpy_integer_tiles_are_answered_as_python_ones():
    """A start and goal given as numpy integers (the same tile, another tile, no path) get the answers Python
    integers get, from ``path`` and from ``route``."""
    import numpy as np
    walk, w, h = grid(["....", ".#..", "...#"])
    graph = PathGraph(walk, w, h)
    for start, goal in (((1, 2), (1, 2)), ((0, 0), (2, 2)), ((0, 0), (3, 2)), ((3, 0), (0, 2))):
        as_numpy = tuple(np.int64(v) for v in start), tuple(np.int64(v) for v in goal)
        assert graph.path(*as_numpy) == graph.path(start, goal) == astar(walk, w, h, start, goal)
        assert graph.route(*as_numpy) == graph.route(start, goal)


def test_the_path_is_shortest_and_independent_of_a_start_shut_in():
    rows = ["........",
            ".######.",
            ".#....#.",
            ".#.##.#.",
            "........"]
    walk, w, h = grid(rows)
    path = astar(walk, w, h, (0, 0), (4, 2))
    # down the left side and in by the gap at (2, 3): ten straight steps (the diagonals into the gap cut corners)
    assert path is not None and _length(path) == 10 * STRAIGHT
    walk[0] = False     # a door shut under the start: it may still be left
    assert PathGraph(walk, w, h).path((0, 0), (4, 2)) == astar(walk, w, h, (0, 0), (4, 2)) == path


@settings(max_examples=150, deadline=None)
@given(_maps())
def test_a_half_turned_search_on_a_point_symmetric_map_finds_the_half_turned_path(case):
    walk, w, h, start, goal, turn = case
    for y in range(h):      # make the map point-symmetric: the second half mirrors the first
        for x in range(w):
            if y * w + x > (h - 1 - y) * w + (w - 1 - x):
                walk[y * w + x] = walk[(h - 1 - y) * w + (w - 1 - x)]
    half = (lambda p: (w - 1 - p[0], h - 1 - p[1]))
    path = PathGraph(walk, w, h).path(start, goal, turn=turn)
    image = PathGraph(walk, w, h).path(half(start), half(goal), turn=turn + 2)
    assert image == (None if path is None else [half(p) for p in path])


@settings(max_examples=300, deadline=None)
@given(_maps(), st.lists(st.floats(0, 1, exclude_max=True), min_size=4, max_size=4))
def test_the_box_shortcut_answers_as_the_segment_walk(case, fractions):
    walk, w, h, _start, _goal, _turn = case
    x0, y0, x1, y1 = (f * n for f, n in zip(fractions, (w, h, w, h)))
    graph = PathGraph(walk, w, h)
    assert graph.clear(x0, y0, x1, y1) == segment_clear(walk, w, h, x0, y0, x1, y1)
    tiles = [(x, y) for x in range(w) for y in range(h) if walk[y * w + x]][:2]
    if len(tiles) == 2 and (path := graph.path(*tiles)) is not None:
        assert graph.waypoints(path) == smooth(walk, w, h, path)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.booleans(), st.sampled_from([1, 3, None]))
def test_searches_that_go_on_from_an_earlier_search_to_the_same_goal_find_the_fresh_search_s_path(seed, few, full):
    """``PathGraph`` keeps each goal's search going from one start to the next (tcod reorders its frontier for
    the new start), and after ``FULL_AFTER`` searches to a goal resolves it over the whole map and walks later
    starts back at once: every path equals ``astar``'s from scratch, whatever the order of starts and goals, with
    starts shut in (another graph), more goals than it keeps (the oldest search cleared for a new goal), and goals
    resolved everywhere after their first search, after their third, or (``None``) not in these 60."""
    import random

    import ai.pathfinding as pathfinding
    rng = random.Random(seed)
    w, h = rng.randint(6, 24), rng.randint(5, 18)
    walk = [rng.random() > rng.uniform(0.05, 0.35) for _ in range(w * h)]
    graph = PathGraph(walk, w, h)
    kept, kept_full = pathfinding.GOAL_SEARCHES, pathfinding.FULL_AFTER
    if few:
        pathfinding.GOAL_SEARCHES = 2
    pathfinding.FULL_AFTER = full or 10 ** 6
    try:
        goals = [(rng.randrange(w), rng.randrange(h)) for _ in range(4)]
        for _ in range(60):
            start, goal, turn = (rng.randrange(w), rng.randrange(h)), rng.choice(goals), rng.randrange(4)
            assert graph.path(start, goal, turn=turn) == astar(walk, w, h, start, goal, turn=turn), (start, goal)
        finders = graph._graphs.get(-1, (None, {}))[1]
        assert len(finders) <= (2 if few else 4)
        # a goal kept has its whole-map distances exactly when it was searched FULL_AFTER times since it was kept
        # (at its first search with 1; none in these 60 with None)
        assert all((entry[2] is not None) == (entry[1] >= (full or 10 ** 6)) for entry in finders.values())
        if full == 1:
            assert all(entry[2] is not None for entry in finders.values())
    finally:
        pathfinding.GOAL_SEARCHES, pathfinding.FULL_AFTER = kept, kept_full
