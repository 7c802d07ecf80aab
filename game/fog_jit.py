"""Fog of war's sight counts compiled with Numba: each viewer's mask made and added to a team's count in one loop,
the same tiles as ``Fog._mask``.

A team's visible grid is the union of its viewers' masks (the tiles a unit on a tile sees with its sight
radius), kept as a count per tile and changed by the viewers that left and came (game/fog.py). The numpy path
makes each (tile, radius) mask once, about 28 us of numpy calls, caches it and adds it with one indexed add. When
an army sets out or a melee shifts, thousands of units step onto tiles no one stood on before: 8,196 new masks,
229 ms, in one fog update of 10,000 units setting out, the worst tick of that run. This loop makes and adds the
masks of all the viewers that came or left, about 3 us each, without keeping them.

Why the counts are identical: the rule is ``Fog._mask``'s, on the same tables: a disk offset is seen when it lies
on the map and no opaque tile in the viewer's sight square blocks its ray (``Fog._rays``' shadow table, read here
as each offset's list of blocked rays, ``Fog._blocks``); each seen tile of each viewer gets ``delta`` once, as
``count[mask] += delta`` does. Only integers and booleans are involved.

The tick's question of which units each team sees (``World._seen_all``: ``Fog.corner_tiles`` of every unit, read
in every team's visible grid, about a dozen numpy calls and a (teams, 4, units) gather) is one pass too
(``seen_by``): the same floor and clamp of each nudged coordinate, the same four tiles.

It is the optional extra ``fast`` (``ai.jit``: without Numba, when it cannot be imported or compile, or with
``RTS_NO_JIT=1``, the masks are made, cached and added by numpy (tests/test_fog_jit.py compares both).
"""
from __future__ import annotations

import numpy as np

from ai import jit

_INSTALLED = jit.INSTALLED


def _make(njit):
    kernel = njit(cache=True)(_add_sight)
    one = np.zeros(1, dtype=np.int64)
    kernel(one, 0, one, one, np.zeros(2, dtype=np.int64), one, np.zeros((1, 1), dtype=np.uint8), 1, 1,
           np.zeros(1, dtype=np.int64), 1)
    global _clamped
    _clamped = njit(cache=True)(_clamped)
    seen = njit(cache=True)(_seen_by)
    seen(np.ones(1), np.ones(1), np.zeros((1, 4), dtype=np.bool_), 2, 2, 1e-6)
    return kernel, seen


_BUILD = jit.Build("fog masks are made one at a time with numpy (the same grids, slower)", _make)


def available() -> bool:
    """Whether the compiled loop runs (``ai.jit``): Numba installed and usable, ``RTS_NO_JIT`` not set."""
    return _BUILD.available()


def add_sight(tiles: np.ndarray, radius: int, dx: np.ndarray, dy: np.ndarray, blocks_start: np.ndarray,
              blocks: np.ndarray, opaque: np.ndarray, width: int, height: int, into: np.ndarray,
              delta: int) -> None:
    """Add ``delta`` to ``into`` (a flat count per tile) at every tile the viewers with sight ``radius`` on the
    flat tiles ``tiles`` see: the disk offsets (``dx``, ``dy``), for each offset of the (2r+1)^2 sight square the
    rays an opaque tile there blocks (``blocks[blocks_start[o]:blocks_start[o + 1]]``), the opaque grid (height x
    width, uint8)."""
    _BUILD.get()[0](tiles, radius, dx, dy, blocks_start, blocks, opaque, width, height, into, delta)


def seen_by(xs: np.ndarray, ys: np.ndarray, visible: np.ndarray, width: int, height: int, edge: float) -> np.ndarray:
    """(teams, n) bool: which of the points (``xs``, ``ys``) each team sees, ``visible`` being the teams' visible
    grids stacked (teams, width * height): ``Fog.seen_at`` of ``Fog.corner_tiles`` for every team, in one pass (a
    point on a tile edge counts on the tiles on both sides, each coordinate nudged by ``edge`` both ways, floored
    and clamped to the map as ``corner_tiles`` does)."""
    return _BUILD.get()[1](np.ascontiguousarray(xs, dtype=np.float64), np.ascontiguousarray(ys, dtype=np.float64),
                           np.ascontiguousarray(visible, dtype=np.bool_), int(width), int(height), float(edge))


def _clamped(v, edge, top):
    t = np.floor(v + edge)
    t = t if t > 0.0 else 0.0                 # (np.maximum then np.minimum, as corner_tiles clamps)
    t = t if t < top else top
    return int(t)


def _seen_by(xs, ys, visible, width, height, edge):
    teams = visible.shape[0]
    n = len(xs)
    out = np.zeros((teams, n), dtype=np.bool_)
    right, bottom = float(width - 1), float(height - 1)
    for i in range(n):
        x0 = _clamped(xs[i], -edge, right)
        x1 = _clamped(xs[i], edge, right)
        y0 = _clamped(ys[i], -edge, bottom) * width
        y1 = _clamped(ys[i], edge, bottom) * width
        for t in range(teams):
            row = visible[t]
            out[t, i] = row[y0 + x0] or row[y0 + x1] or row[y1 + x0] or row[y1 + x1]
    return out


def _add_sight(tiles, radius, dx, dy, blocks_start, blocks, opaque, width, height, into, delta):
    side = 2 * radius + 1
    nr = len(dx)
    blocked = np.zeros(nr, dtype=np.bool_)
    for m in range(len(tiles)):
        tile = tiles[m]
        vx = tile % width
        vy = tile // width
        blocked[:] = False
        for oy in range(max(0, vy - radius), min(height, vy + radius + 1)):
            for ox in range(max(0, vx - radius), min(width, vx + radius + 1)):
                if opaque[oy, ox]:
                    row = (oy - vy + radius) * side + (ox - vx + radius)
                    for s in range(blocks_start[row], blocks_start[row + 1]):
                        blocked[blocks[s]] = True
        for i in range(nr):
            tx = vx + dx[i]
            ty = vy + dy[i]
            if tx >= 0 and ty >= 0 and tx < width and ty < height and not blocked[i]:
                into[ty * width + tx] += delta
