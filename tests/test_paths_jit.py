"""The compiled walk back and smoothing (ai/paths_jit.py) give exactly the Python loops' tiles and waypoints, on
random grids (walls, corners, diagonal squeezes, blocked starts) and on the army map; so a match plays the same
whether Numba is installed or not."""
import os

import numpy as np
import pytest

from ai import paths_jit
from ai.pathfinding import PathGraph, astar, jit_available, segment_clear

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
