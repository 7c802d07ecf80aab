"""The compiled walk back and smoothing (ai/paths_jit.py) give exactly the Python loops' tiles and waypoints, on
random grids (walls, corners, diagonal squeezes, blocked starts) and on the army map; so a match plays the same
whether Numba is installed or not."""
import math
import os

import numpy as np
import pytest

from ai import paths_jit
from ai.pathfinding import PathGraph, astar, box_open, jit_available, segment_clear

pytestmark = [pytest.mark.skipif(not paths_jit._INSTALLED, reason="numba is not installed (pip install -e '.[fast]')"),
              pytest.mark.skipif(bool(os.environ.get("RTS_NO_JIT")), reason="RTS_NO_JIT is set: one path only")]


def graphs(walkable, width, height):
    jit = PathGraph(walkable, width, height)
    plain = PathGraph(walkable, width, height)
    plain.use_jit = False
    return jit, plain


@pytest.mark.parametrize("seed", range(8))
def test_paths_and_waypoints_equal_the_python_loops_on_random_grids(seed):
    rng = np.random.default_rng(seed)
    width, height = int(rng.integers(8, 40)), int(rng.integers(8, 30))
    walkable = (rng.random(width * height) > rng.uniform(0.1, 0.4)).tolist()
    jit, plain = graphs(walkable, width, height)
    assert jit_available()
    found = 0
    for _ in range(150):
        start = (int(rng.integers(width)), int(rng.integers(height)))
        goal = (int(rng.integers(width)), int(rng.integers(height)))
        a, b = jit.path(start, goal), plain.path(start, goal)
        assert a == b == astar(walkable, width, height, start, goal), (seed, start, goal)
        if a is not None:
            found += 1
            assert jit.waypoints(a) == plain.waypoints(a)
            for turn in (1, 2, 3):
                assert jit.path(start, goal, turn) == plain.path(start, goal, turn)
    assert found > 20


@pytest.mark.parametrize("seed", range(6))
def test_a_route_is_the_waypoints_of_the_path_in_one_compiled_call(seed):
    """``PathGraph.route`` (the walk back and the smoothing in one compiled call, as ``NavGrid.find_path`` asks)
    gives ``waypoints(path(...))`` of the Python loops: every turn, starts on blocked tiles (another graph), the
    goal itself, unreachable and off-map tiles, goals searched often enough to be resolved everywhere."""
    import ai.pathfinding as pathfinding
    rng = np.random.default_rng(100 + seed)
    width, height = int(rng.integers(6, 36)), int(rng.integers(5, 28))
    walkable = (rng.random(width * height) > rng.uniform(0.05, 0.4)).tolist()
    jit, plain = graphs(walkable, width, height)
    kept = pathfinding.FULL_AFTER
    pathfinding.FULL_AFTER = 4
    try:
        goals = [(int(rng.integers(width)), int(rng.integers(height))) for _ in range(3)] + [(width, 0), (-1, 2)]
        found = 0
        for k in range(200):
            goal = goals[int(rng.integers(len(goals)))]
            start = goal if k % 25 == 0 else (int(rng.integers(-1, width + 1)), int(rng.integers(height)))
            turn = int(rng.integers(4))
            tiles = plain.path(start, goal, turn)        # (tcod's search, resolved everywhere after 4 searches)
            assert tiles == astar(walkable, width, height, start, goal, turn=turn)
            want = None if tiles is None else plain.waypoints(tiles)
            assert jit.route(start, goal, turn) == want, (seed, start, goal, turn)
            assert plain.route(start, goal, turn) == want
            found += want is not None
        assert found > 30
        assert any(entry[2] is not None for entry in jit._graphs[-1][1].values())      # some goal resolved everywhere
    finally:
        pathfinding.FULL_AFTER = kept


@pytest.mark.parametrize("seed", range(10))
def test_the_compiled_whole_map_distances_are_tcod_s_on_every_walkable_tile(seed):
    """``paths_jit.distances`` (the compiled search from a goal over the whole map) gives tcod's search resolved
    everywhere on every walkable tile, including the unreachable ones, and 2**31 - 1 on every blocked one, on random
    grids with walls, diagonal squeezes and closed-off pockets, from goals anywhere on them."""
    rng = np.random.default_rng(300 + seed)
    width, height = int(rng.integers(3, 40)), int(rng.integers(3, 30))
    walkable = (rng.random(width * height) > rng.uniform(0.0, 0.5)).tolist()
    graph = PathGraph(walkable, width, height)
    jit = graph._compiled()
    tcod_graph, _ = graph._graph(-1)
    import tcod.path
    open_tiles = np.array(walkable, dtype=bool)
    goals = np.flatnonzero(open_tiles)
    for goal_i in rng.choice(goals, size=min(12, len(goals)), replace=False).tolist():
        finder = tcod.path.Pathfinder(tcod_graph)
        finder.add_root((goal_i // width, goal_i % width))
        finder.resolve(None)
        want = finder.distance.ravel()
        got = paths_jit.distances(jit[0], width, height, goal_i, jit[2][0])
        assert got.dtype == want.dtype and (got[open_tiles] == want[open_tiles]).all(), (seed, goal_i)
        assert (got[~open_tiles] == 2 ** 31 - 1).all()


def test_the_whole_map_search_s_heap_gives_its_keys_in_order_and_stays_in_its_room(monkeypatch):
    """The binary heap of ``_distances`` (``_heap_push`` and ``_heap_pop``, compiled and as Python) gives back any
    keys least first; and the search, run as Python (every index checked) on the helpers as Python, pushes at most
    8 entries a tile plus the goal (the heap's room in ``distances``) and finds the compiled search's distances."""
    assert jit_available()
    rng = np.random.default_rng(9)
    for push, pop in ((paths_jit._heap_push, paths_jit._heap_pop), (paths_jit._push_k, paths_jit._pop_k)):
        keys = rng.integers(0, 50, size=300).astype(np.int64)        # many equal keys too
        heap, n = np.empty(300, dtype=np.int64), 0
        for k in keys.tolist():
            n = push(heap, n, k)
        out = []
        while n:
            key, n = pop(heap, n)
            out.append(int(key))
        assert out == sorted(keys.tolist())
    monkeypatch.setattr(paths_jit, "_push_k", paths_jit._heap_push)
    monkeypatch.setattr(paths_jit, "_pop_k", paths_jit._heap_pop)
    for seed in range(4):
        rng = np.random.default_rng(400 + seed)
        width, height = int(rng.integers(4, 30)), int(rng.integers(4, 24))
        walkable = (rng.random(width * height) > rng.uniform(0.0, 0.4)).tolist()
        jit = PathGraph(walkable, width, height)._compiled()
        size = width * height
        for goal_i in [i for i, ok in enumerate(walkable) if ok][::7]:
            dist, heap = np.empty(size, dtype=np.int32), np.empty(8 * size + 1, dtype=np.int64)
            pushed = paths_jit._distances(jit[0], width, height, goal_i, jit[2][0], dist, heap)
            assert 1 <= pushed <= 8 * size + 1
            assert (dist == paths_jit.distances(jit[0], width, height, goal_i, jit[2][0])).all()


def test_the_compiled_segment_check_equals_segment_clear_on_corners_and_edges():
    assert jit_available()                            # compiles the loops and binds the compiled helpers
    compiled = (paths_jit._box_open, paths_jit._segment_clear, paths_jit._clear)
    assert {type(f).__name__ for f in compiled} == {"CPUDispatcher"}
    rng = np.random.default_rng(5)
    width, height = 12, 9
    walkable = (rng.random(width * height) > 0.25).tolist()
    grid = np.array(walkable, dtype=np.uint8)
    table = np.array(PathGraph(walkable, width, height)._summed_table(), dtype=np.int64)
    points = [float(v) for v in (0.0, 0.5, 1.0, 2.5, 3.0, 4.999999, 5.0, 7.5, 8.25, 11.5, 12.0, -0.5)]
    checked = 0
    for _ in range(3000):
        x0, y0, x1, y1 = (float(rng.choice(points)) for _ in range(4))
        want = segment_clear(walkable, width, height, x0, y0, x1, y1)
        assert paths_jit._segment_clear(grid, width, height, x0, y0, x1, y1) == want, (x0, y0, x1, y1)
        assert paths_jit._clear(grid, width, height, table, x0, y0, x1, y1) == \
            PathGraph(walkable, width, height).clear(x0, y0, x1, y1)
        checked += want
    assert checked > 100


def test_the_army_map_plans_the_same_routes_both_ways():
    from content.loader import load_content
    from game.world import World
    world = World(load_content(), "army_2000", 1)
    try:
        nav = world.nav
        jit, plain = graphs(nav.walkable, nav.width, nav.height)
        rng = np.random.default_rng(3)
        open_tiles = [i for i, w in enumerate(nav.walkable) if w]
        routes = 0
        for _ in range(120):
            s, g = (int(open_tiles[k]) for k in rng.integers(len(open_tiles), size=2))
            start, goal = (s % nav.width, s // nav.width), (g % nav.width, g // nav.width)
            a = jit.path(start, goal)
            assert a == plain.path(start, goal)
            if a is not None:
                routes += len(a) > 20
                assert jit.waypoints(a) == plain.waypoints(a)
        assert routes > 30
    finally:
        world.close()


def test_many_segment_checks_at_once_equal_one_at_a_time_anywhere_in_tiles():
    """``PathGraph.clear_many`` (line of sight between units: points anywhere in a tile, on its edges, outside the
    map) gives ``clear``'s answer for every segment, compiled or not; on a grid without a wall round it some corner
    checks reach past the last row, where ``clear`` raises IndexError: the compiled loop hands such a batch back
    to ``clear``, which raises the same."""
    rng = np.random.default_rng(11)
    for width, height, walled in ((14, 10, True), (9, 7, False), (6, 5, False)):
        walkable = (rng.random(width * height) > 0.15).tolist()
        if walled:
            for t in range(width * height):
                if t % width in (0, width - 1) or t // width in (0, height - 1):
                    walkable[t] = False
        jit, plain = graphs(walkable, width, height)

        def coord(top):
            if rng.random() < 0.5:
                return float(int(rng.integers(-1, top + 1)) + rng.choice([0.0, 0.5, 1.0, 0.999999]))
            return float(rng.uniform(-1, top + 1))
        x0 = [coord(width) for _ in range(3000)]
        y0 = [coord(height) for _ in range(3000)]
        x1 = [x + float(rng.choice([0.0, 1.0, -1.0, 2.0, rng.uniform(-5, 5)])) for x in x0]
        y1 = [y + float(rng.choice([0.0, 1.0, -1.0, 2.0, rng.uniform(-5, 5)])) for y in y0]
        want = []
        for a, b, c, d in zip(x0, y0, x1, y1):
            try:
                want.append(plain.clear(a, b, c, d))
            except IndexError:
                want.append(None)
        safe = [k for k, w in enumerate(want) if w is not None]
        got = jit.clear_many(np.array(x0)[safe], np.array(y0)[safe], np.array(x1)[safe], np.array(y1)[safe])
        assert got == [want[k] for k in safe] == plain.clear_many([x0[k] for k in safe], [y0[k] for k in safe],
                                                                  [x1[k] for k in safe], [y1[k] for k in safe])
        assert 300 < sum(got) < len(got) - 300
    assert jit.clear_many([], [], [], []) == []
    # a diagonal through tile corners that ends on a corner of the last row stops on its end tile (beside that
    # corner) instead of walking past it into the row below the map, compiled or not
    walkable = [True] * 30
    walkable[4 * 6 + 4] = False             # the box of the two end tiles is not open: the segment is walked
    jit, plain = graphs(walkable, 6, 5)
    assert plain.clear(4.0, 2.0, 2.0, 4.0)
    assert jit.clear_many(np.array([0.5, 4.0]), np.array([0.5, 2.0]), np.array([1.5, 2.0]), np.array([0.5, 4.0])) == \
        [True, True]


def test_one_segment_between_any_points_answers_or_raises_as_the_python_check():
    """PathGraph.clear's compiled walk (points anywhere in a tile, on edges and corners, and off the grid, where
    the list either raises or wraps round): the same answer, or the same error."""
    rng = np.random.default_rng(11)
    width, height = 14, 10
    walkable = (rng.random(width * height) > 0.3).tolist()
    jit, plain = graphs(walkable, width, height)
    assert jit_available() and jit._compiled() is not None and plain._compiled() is None
    points = [float(v) for v in (-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 3.5, 6.0, 6.999999, 9.0, 9.5, 10.0, 13.5, 14.0,
                                 14.5)]
    walked = 0
    table = jit._summed_table()
    for _ in range(6000):
        seg = [float(rng.choice(points)) if rng.random() < 0.5 else float(rng.uniform(-1, 15)) for _ in range(4)]
        outcome = []
        for graph in (jit, plain):
            try:
                outcome.append(("answer", graph.clear(*seg)))
            except Exception as exc:             # the list's own error, raised the same way by both
                outcome.append(("error", type(exc)))
        assert outcome[0] == outcome[1], seg
        walked += outcome[0][0] == "answer" and not box_open(table, width, height, *seg)   # the compiled walk ran
    assert walked > 2000


FAR_OFF = [math.nan, math.inf, -math.inf, 1e300, -1e300, 2.0 ** 63, -(2.0 ** 63), 1e15, -1e15, 1e15 - 1.0]


@pytest.mark.parametrize("bad", FAR_OFF)
def test_not_finite_or_far_off_coordinates_answer_or_raise_as_the_python_check(bad):
    """Compiled, ``floor`` of NaN, an infinity or a float past 2**63 is INT64_MIN (Python raises, or answers with a
    huge int): such a segment is handed back to the Python check, in one check and in a batch."""
    jit, plain = graphs([c == "." for c in "...." ".##." "...."], 4, 3)
    for seg in ((bad, 0.5, 3.5, 0.5), (0.5, bad, 3.5, 0.5), (0.5, 0.5, bad, 0.5), (1.5, 0.5, 1.5, bad)):
        outcome = []
        for graph in (jit, plain):
            try:
                outcome.append(("answer", graph.clear(*seg)))
            except Exception as exc:
                outcome.append(("error", type(exc)))
            try:
                outcome.append(("answers", graph.clear_many(*([v] for v in seg))))
            except Exception as exc:
                outcome.append(("error", type(exc)))
        assert outcome[:2] == outcome[2:], seg
