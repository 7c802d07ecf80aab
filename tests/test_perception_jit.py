"""Perception's compiled neighbour queries (systems/perception_jit.py) give exactly the numpy pairs' answers: the cell
index's table, the allies counted within a radius, and each NPC's nearest enemies in sight by (squared distance,
entity id), on random points (snapped onto tile corners and cell edges, where floor() and equal distances matter)
and on a match, whose every decision and sync hash are the same with and without them."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from systems import perception_jit
from systems.perception import CellIndex

pytestmark = [pytest.mark.skipif(not perception_jit._INSTALLED,
                                 reason="numba is not installed (pip install -e '.[fast]')"),
              pytest.mark.skipif(bool(os.environ.get("RTS_NO_JIT")), reason="RTS_NO_JIT is set: one path only")]

coords = st.floats(-3, 40, allow_nan=False, allow_infinity=False)
near = st.floats(-2, 12, allow_nan=False, allow_infinity=False)        # among a 10 x 10 patch of cover tiles


def arrays(points, snap):
    if snap:
        points = [(float(round(x)), float(round(y))) for x, y in points]
    return (np.array([p[0] for p in points], dtype=np.float64), np.array([p[1] for p in points], dtype=np.float64))


@settings(max_examples=300, deadline=None)
@given(points=st.lists(st.tuples(coords, coords), min_size=1, max_size=80),
       size=st.sampled_from([0.5, 1.0, 2.5, 7.0, 12.0]) | st.floats(0.3, 30), snap=st.booleans())
def test_the_compiled_cell_table_is_the_numpy_one(points, size, snap):
    """The cell index made in one compiled pass (a counting sort) has the numpy construction's order, sorted keys,
    cell starts and bounds, points on cell edges and many in one cell included."""
    assert perception_jit.available()
    px, py = arrays(points, snap)
    compiled = CellIndex(px, py, size)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(perception_jit, "available", lambda: False)
        plain = CellIndex(px, py, size)
    for name in ("order", "keys", "starts"):
        assert getattr(compiled, name).tolist() == getattr(plain, name).tolist(), name
    assert (compiled.x0, compiled.y0, compiled.cols, compiled.rows) == (plain.x0, plain.y0, plain.cols, plain.rows)
    assert all(type(v) is int for v in (compiled.x0, compiled.y0, compiled.cols, compiled.rows))


@settings(max_examples=200, deadline=None)
@given(points=st.lists(st.tuples(coords, coords), min_size=1, max_size=60),
       queries=st.lists(st.tuples(coords, coords), min_size=1, max_size=15),
       radius=st.floats(0.5, 9), snap=st.booleans())
def test_counts_within_a_radius_equal_the_numpy_pairs(points, queries, radius, snap):
    assert perception_jit.available()
    px, py = arrays(points, snap)
    qx, qy = arrays(queries, snap)
    cells = CellIndex(px, py, radius + 1.0)
    got = perception_jit.count_within(cells, px, py, qx, qy, radius * radius)
    q, j = cells.pairs(qx, qy)                       # the numpy path's count (systems/perception.py)
    d2 = (px[j] - qx[q]) ** 2 + (py[j] - qy[q]) ** 2
    want = np.bincount(q[d2 <= radius * radius], minlength=len(qx))
    brute = [int(np.sum((px - x) ** 2 + (py - y) ** 2 <= radius * radius)) for x, y in zip(qx, qy)]
    assert got.tolist() == want.tolist() == brute


@settings(max_examples=200, deadline=None)
@given(points=st.lists(st.tuples(coords, coords), min_size=1, max_size=60),
       queries=st.lists(st.tuples(coords, coords, st.floats(0.5, 12)), min_size=1, max_size=15),
       k=st.integers(1, 7), snap=st.booleans(), seed=st.integers(0, 10 ** 6))
def test_the_nearest_in_range_equal_the_numpy_lexsort(points, queries, k, snap, seed):
    """Equal distances are common when snapped (and several units may share a spot): the lower id goes first."""
    px, py = arrays(points, snap)
    qx, qy = arrays([(x, y) for x, y, _r in queries], snap)
    r2 = np.array([r * r for _x, _y, r in queries])
    ids = np.random.default_rng(seed).permutation(10 * len(px))[:len(px)].astype(np.int64) + 1
    cells = CellIndex(px, py, float(np.sqrt(r2.max())) + 1.0)
    found, dist, count = perception_jit.nearest_within(cells, px, py, ids, qx, qy, r2, k)
    for i in range(len(qx)):
        d2 = (px - qx[i]) ** 2 + (py - qy[i]) ** 2
        inside = np.flatnonzero(d2 <= r2[i])
        want = inside[np.lexsort((ids[inside], d2[inside]))][:k]
        assert count[i] == len(want)
        assert found[i, :count[i]].tolist() == want.tolist()
        assert dist[i, :count[i]].tolist() == d2[want].tolist()
        assert (found[i, count[i]:] == -1).all()


@settings(max_examples=200, deadline=None)
@given(tiles=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=60, unique=True),
       npcs=st.lists(st.tuples(near, near, st.integers(0, 3), st.booleans(), coords, coords),
                     min_size=1, max_size=12),
       radius=st.floats(2, 12), snap=st.booleans(), jitter=st.booleans(), seed=st.integers(0, 10 ** 6))
def test_the_cover_picked_equals_the_scalar_rule(tiles, npcs, radius, snap, jitter, seed):
    """Per NPC, the compiled cover pick is ``best_cover``'s (the per-NPC path's rule) over the tiles it may take:
    in reach, in its area, not taken by another unit; ties within a millionth broken by the turned offset. Snapped
    NPCs stand on tile corners, where several tiles are equally near; jittered ones a billionth off, where scores
    differ by less than the millionth and the turned offsets decide."""
    from systems.perception import best_cover
    rng = np.random.default_rng(seed)
    cover = np.array(tiles, dtype=np.float64)
    cx, cy = cover[:, 0] + 0.5, cover[:, 1] + 0.5
    m = len(tiles)
    labels = (rng.random(m) < 0.2).astype(np.int64)         # (most tiles free and in one area: ties to break)
    occupants = np.stack([np.where(rng.random(m) < 0.2, rng.integers(1, 3, m), 0), rng.integers(1, 4, m)], axis=1)
    holders = np.where(rng.random(m) < 0.1, rng.integers(1, 4, m), 0)
    px, py = arrays([(x, y) for x, y, *_ in npcs], snap)
    if jitter:
        px = px + rng.uniform(-1e-9, 1e-9, len(px))
        py = py + rng.uniform(-1e-9, 1e-9, len(py))
    ex, ey = arrays([(a, b) for *_, a, b in npcs], snap)
    turns = np.array([t for _x, _y, t, *_ in npcs], dtype=np.int64)
    seen = np.array([s for _x, _y, _t, s, _a, _b in npcs], dtype=bool)
    here = (rng.random(len(npcs)) < 0.2).astype(np.int64)
    me = rng.integers(1, 4, len(npcs))
    cells = CellIndex(cx, cy, radius + 1.0)
    pick, dist = perception_jit.best_cover(cells, cx, cy, cover[:, 0], cover[:, 1], labels, occupants, holders,
                                           px, py, here, me, seen, ex, ey, turns, radius, 0.5, 16.0)
    for i in range(len(npcs)):
        d = np.hypot(cx - px[i], cy - py[i])
        taken = ((occupants[:, 0] > 0) & ((occupants[:, 0] > 1) | (occupants[:, 1] != me[i]))) | \
            ((holders != 0) & (holders != me[i]))
        ok = (d <= radius) & (labels == here[i]) & ~taken
        score = d - 0.5 * np.minimum(np.hypot(cx - ex[i], cy - ey[i]), 16.0) if seen[i] else d
        total = np.where(ok, score, np.inf)
        want = best_cover(cover, total, float(px[i]), float(py[i]), int(turns[i])) if ok.any() else -1
        assert pick[i] == want
        if want >= 0:
            assert dist[i] == d[want]


def test_cover_near_ties_go_by_the_turned_offset():
    """A unit a billionth off the corner of four cover tiles: their distances differ by less than the millionth,
    so the tile is chosen by the offset turned with the team's quarter, as ``best_cover`` does (not the nearest)."""
    from systems.perception import best_cover
    cover = np.array([(4, 4), (5, 4), (4, 5), (5, 5)], dtype=np.float64)
    cx, cy = cover[:, 0] + 0.5, cover[:, 1] + 0.5
    zero = np.zeros(4, dtype=np.int64)
    picks = set()
    for turn in range(4):
        for off in (1e-9, -1e-9):
            px, py = np.array([5 + off]), np.array([5 + off / 3])
            pick, _d = perception_jit.best_cover(CellIndex(cx, cy, 9.0), cx, cy, cover[:, 0], cover[:, 1], zero,
                                                 np.stack([zero, zero], axis=1), zero, px, py, zero[:1], zero[:1] + 1,
                                                 np.array([False]), px, py, np.array([turn]), 8.0, 0.5, 16.0)
            want = best_cover(cover, np.hypot(cx - px[0], cy - py[0]), float(px[0]), float(py[0]), turn)
            assert pick[0] == want
            picks.add(want)
    assert picks == {0, 1, 2, 3}               # each quarter its own corner: not the nearest tile every time


def test_a_match_decides_alike_with_and_without_the_compiled_queries(monkeypatch):
    """600 units of the army map for 150 ticks, past first contact: every decision record and the sync hash."""
    from benchmarks.run import army_content
    from content.loader import load_content
    from game.world import World
    from systems.perception import Perception
    content, sid = army_content(load_content(), 600)
    real = Perception.facts_batch
    out = []
    for jit in (True, False):
        facts = []
        monkeypatch.setattr(perception_jit, "available", lambda jit=jit: jit)

        def kept(self, eids, now, seen=None, _facts=facts):
            got = real(self, eids, now, seen)
            _facts.extend(got)
            return got
        monkeypatch.setattr(Perception, "facts_batch", kept)
        world = World(content, sid, 5)
        world.batch_brains = True
        world.decisions.collect = True
        try:
            world.run(150)
            recs = [r.to_wire() for r in world.decisions.take() if r.kind == "npc"]
            out.append((world.summary()["sync_hash"], recs, facts))
        finally:
            world.close()
    assert len(out[0][1]) > 1000 and sum(f["enemy_visible"] for f in out[0][2]) > 500
    assert sum(f["allies_near"] > 5 for f in out[0][2]) > 500
    assert out[0] == out[1]
