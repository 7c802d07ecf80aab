"""Fog's compiled sight counts (game/fog_jit.py) add exactly the numpy masks' tiles (``Fog._mask``): on the army
map's walls and on random walls, for every sight radius of the shipped units, on tiles at the map's edges and
corners; and a match sees, decides and hashes the same with and without them."""
import os

import numpy as np
import pytest

from game import fog_jit
from game.fog import VIEWER

pytestmark = [pytest.mark.skipif(not fog_jit._INSTALLED, reason="numba is not installed (pip install -e '.[fast]')"),
              pytest.mark.skipif(bool(os.environ.get("RTS_NO_JIT")), reason="RTS_NO_JIT is set: one path only")]


@pytest.fixture
def world():
    from benchmarks.run import army_content
    from content.loader import load_content
    from game.world import World
    content, sid = army_content(load_content(), 200)
    w = World(content, sid, 1)
    yield w
    w.close()


@pytest.mark.parametrize("walls", ["map", 0.1, 0.3, 0.6])
def test_counts_equal_the_sum_of_the_numpy_masks(world, walls):
    fog = world.fog
    rng = np.random.default_rng(len(str(walls)))
    if walls != "map":
        fog._opaque2d = rng.random((fog.height, fog.width)) < walls
        fog._cache.clear()
    w, h = fog.width, fog.height
    edges = [0, w - 1, (h - 1) * w, h * w - 1, w // 2, (h - 1) * w + 3, 5 * w, 5 * w + w - 1]
    assert fog_jit.available()
    for radius in (1, 4, 8, 10, 12, 16):
        tiles = sorted(set(rng.integers(0, w * h, 120).tolist()) | set(edges))
        viewers = [t * VIEWER + radius for t in tiles]
        want = np.zeros(w * h, dtype=np.int64)
        for t in tiles:
            want[fog._mask(t, radius)] += 1
        got = np.zeros(w * h, dtype=np.int64)
        fog._add_sight(viewers, got, 1)
        assert got.tolist() == want.tolist(), radius
        assert want.max() > 1 and (want == 0).any()
        fog._add_sight(viewers[::2], got, -1)                   # what a viewer that leaves takes away
        for t in tiles[::2]:
            want[fog._mask(t, radius)] -= 1
        assert got.tolist() == want.tolist(), radius


def test_a_match_sees_alike_with_and_without_the_compiled_counts(monkeypatch):
    """600 units of the army map (fog of war on) for 150 ticks: every fog update's visible grids, every decision
    record and the sync hash."""
    from benchmarks.run import army_content
    from content.loader import load_content
    from game.fog import Fog
    from game.world import World
    content, sid = army_content(load_content(), 600)
    real = Fog.update
    out = []
    for jit in (True, False):
        grids = []

        def update(self, _grids=grids):
            real(self)
            _grids.append([g.copy() for g in self.visible])
        monkeypatch.setattr(fog_jit, "available", lambda jit=jit: jit)
        monkeypatch.setattr(Fog, "update", update)
        world = World(content, sid, 5)
        world.decisions.collect = True
        try:
            assert world.fog.enabled
            world.run(150)
            recs = [r.to_wire() for r in world.decisions.take() if r.kind == "npc"]
            out.append((world.summary()["sync_hash"], recs, grids))
        finally:
            world.close()
    assert len(out[0][2]) >= 20 and len(out[0][1]) > 1000
    assert out[0][:2] == out[1][:2]
    assert all((a == b).all() for ga, gb in zip(out[0][2], out[1][2]) for a, b in zip(ga, gb))
    assert len(out[0][2]) == len(out[1][2])


def test_which_points_each_team_sees_equals_the_corner_tiles_rule(world):
    """``seen_by`` (the tick's one pass over every unit) against ``Fog.seen_at`` of ``Fog.corner_tiles``: random
    visible grids; points inside tiles, on tile edges and corners (both sides count), on and beyond the map's edges;
    three teams."""
    fog = world.fog
    w, h = fog.width, fog.height
    rng = np.random.default_rng(9)
    xs = np.concatenate([rng.uniform(-2, w + 2, 400), rng.integers(0, w + 1, 200).astype(float),
                         [0.0, w, w - 1e-7, 1e-7, 3.0 - 1e-6, 3.0 + 1e-6, 3.0 - 2e-6]])
    ys = np.concatenate([rng.uniform(-2, h + 2, 400), rng.integers(0, h + 1, 200).astype(float),
                         [0.0, h, h - 1e-7, 1e-7, 4.0, 4.0, 4.0]])
    assert fog_jit.available()
    for density in (0.02, 0.3, 0.9):
        visible = rng.random((3, w * h)) < density
        got = fog_jit.seen_by(xs, ys, visible, w, h, 1e-6)
        corners = fog.corner_tiles(xs, ys)
        want = np.stack([visible[t][corners].any(axis=0) for t in range(3)])
        assert got.tolist() == want.tolist()
        assert 0 < got.sum() < got.size
