"""kmeans_mirrored on random point-symmetric grids (odd widths, doors, rooms whose middle
line runs through the middle row so the row-major half fails and the column-major one is cut): the cut, its doors,
edges, sizes and centres are exact mirror images, and second_half gives a home and its image opposite answers."""
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ai import regions
from game.economy import quarter
from systems.commander import second_half


def noise_grid(seed, w, h, p_wall, p_door):
    rng = np.random.default_rng(seed)
    n = w * h
    walk, doors = [True] * n, set()
    for i in range(n // 2):
        r = rng.random()
        if r < p_wall:
            walk[i] = walk[n - 1 - i] = False
        elif r < p_wall + p_door:
            doors |= {i, n - 1 - i}
    return walk, frozenset(doors)


def rooms_grid(seed, w, h):
    """Rooms split by wall lines with openings and doors, point-symmetric (the middle row often cuts rooms)."""
    rng = np.random.default_rng(seed)
    n = w * h
    cols = {x for x in range(1, w - 1) if rng.random() < 0.25}
    rows = {y for y in range(1, h - 1) if rng.random() < 0.25}
    walk = [not (i % w in cols or i // w in rows) for i in range(n)]
    walk = [a and b for a, b in zip(walk, walk[::-1])]
    doors = set()
    for i in range(n // 2):
        if not walk[i]:
            r = rng.random()
            if r < 0.16:
                walk[i] = walk[n - 1 - i] = True
                if r >= 0.08:
                    doors |= {i, n - 1 - i}
    return walk, frozenset(doors)


def fake_world(w, h, homes):
    world = SimpleNamespace(tilemap=SimpleNamespace(width=w, height=h), home_tile=lambda team: homes[team])
    world.turns = [quarter(world, x + 0.5, y + 0.5) for x, y in homes]
    return world


def first_half(w, h, by_columns):
    n = w * h
    order = [(i % w) * h + i // w for i in range(n)] if by_columns else list(range(n))
    return [o < n - 1 - o for o in order]


def check(cut, walk, doors, w, h):
    n = w * h
    k, half = cut.k, cut.half
    assert k == 2 * half            # (a half with fewer cells than k / 2 has that many regions, and so has its image)
    first = first_half(w, h, cut.by_columns)
    assert all(first[i] != first[n - 1 - i] for i in range(n)) and sum(first) == n // 2
    for i in range(n):
        a, b = cut.labels[i], cut.labels[n - 1 - i]
        assert b == ((a + half) % k if a >= 0 else -1), (i, a, b)
        if walk[i] and i not in doors:
            assert a >= 0, ("walkable cell unlabelled", i)
    for r in range(half):
        x, y = cut.centres[r]
        assert cut.centres[r + half] == (w - 1 - x, h - 1 - y) and cut.sizes[r] == cut.sizes[r + half]
    image = {tuple(sorted(((a + half) % k, (b + half) % k))): frozenset(n - 1 - c for c in cells)
             for (a, b), cells in cut.edges.items()}
    assert image == cut.edges
    for i in range(n):
        x, y = i % w, i // w
        world = fake_world(w, h, [(x, y), (w - 1 - x, h - 1 - y)])
        got = [second_half(world, t, cut) for t in (0, 1)]
        assert got[0] != got[1] and got[0] == (not first[i]), ((x, y), got)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2 ** 30), st.integers(3, 17), st.integers(2, 13), st.sampled_from([2, 4, 6, 8]),
       st.floats(0.2, 0.5), st.floats(0.0, 0.15))
def test_each_half_order_gives_an_exactly_mirrored_cut(seed, w, h, k, p_wall, p_door):
    h += (w * h) % 2
    walk, doors = noise_grid(seed, w, h, p_wall, p_door)
    assert regions.is_point_symmetric(walk, doors)
    for by_columns in (False, True):
        try:
            cut = regions._kmeans_half(walk, w, h, k // 2, 1, doors, regions.MAX_ITERATIONS, by_columns=by_columns)
        except ValueError:
            continue
        assert cut.by_columns == by_columns
        check(cut, walk, doors, w, h)


@settings(max_examples=600, deadline=None)
@given(st.integers(0, 2 ** 30), st.integers(3, 25), st.integers(2, 21), st.sampled_from([2, 4, 6, 8, 10, 12]))
def test_rooms_cut_by_the_middle_row_get_the_column_half(seed, w, h, k):
    h += (w * h) % 2
    walk, doors = rooms_grid(seed, w, h)
    if not any(walk):
        return
    try:
        row = regions._kmeans_half(walk, w, h, k // 2, 1, doors, regions.MAX_ITERATIONS, by_columns=False)
    except ValueError:
        row = None
    try:
        cut = regions.kmeans_mirrored(walk, w, h, k, 1, doors)
    except ValueError:
        return
    assert cut.by_columns == (row is None) and (row is None or cut == row)   # the row half first, unchanged
    check(cut, walk, doors, w, h)


def test_row_major_second_half_on_the_middle_row():
    """Homes on the middle row of an odd height: the old rule (home quarter 2 or 3) turned both teams' orders."""
    w, h = 40, 21
    cut = regions.kmeans_mirrored([True] * (w * h), w, h, 20, 1)
    world = fake_world(w, h, [(2, 10), (w - 3, 10)])
    assert not cut.by_columns and second_half(world, 0, cut) != second_half(world, 1, cut)
