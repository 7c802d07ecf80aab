import math

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
