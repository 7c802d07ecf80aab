"""Perception's compiled neighbour queries (systems/perception_jit.py) give exactly the numpy pairs' answers: the
allies counted within a radius, and each NPC's nearest enemies in sight by (squared distance, entity id), on
random points (snapped onto tile corners and cell edges, where floor() and equal distances matter) and on a
match, whose every decision and sync hash are the same with and without them."""
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


def arrays(points, snap):
    if snap:
        points = [(float(round(x)), float(round(y))) for x, y in points]
    return (np.array([p[0] for p in points], dtype=np.float64), np.array([p[1] for p in points], dtype=np.float64))


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
