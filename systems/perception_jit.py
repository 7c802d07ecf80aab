"""Perception's two neighbour queries compiled with Numba: the same answers as ``systems.perception``'s numpy
pairs, without building the pairs.

At 10,000 units in a melee each thinking NPC has about 180 allies within ``ALLY_RADIUS`` and the numpy path
builds every (NPC, unit) pair of the 3 x 3 cells round it (a million a tick), measures them and sorts the enemy
pairs to keep each NPC's nearest: about a fifth of perception's time. These loops walk the same cells
(``CellIndex``'s, handed in as a dense table of cell starts) and keep only a count, or the ``k`` nearest in a
small sorted buffer.

Why the answers are identical: the squared distance is computed by the same IEEE operations in the same order as
the numpy expression ``(px[j] - qx) ** 2 + (py[j] - qy) ** 2`` (numpy squares by multiplying; Numba compiles
without ``fastmath``, so nothing is fused or reordered); the pairs considered are the same cells' points; the
nearest are ordered by (squared distance, entity id), the numpy path's lexsort, and ids are unique.

It is the optional extra ``fast`` (``ai.jit``: without Numba, when it cannot be imported or compile, or with
``RTS_NO_JIT=1``, perception keeps its numpy pairs (tests/test_perception_jit.py compares both on random points
and on a 600-unit match's facts).
"""
from __future__ import annotations

import numpy as np

from ai import jit

_INSTALLED = jit.INSTALLED


def _make(njit):
    global _spans
    _spans = njit(cache=True)(_cell_spans)
    count = njit(cache=True)(_count_within)
    nearest = njit(cache=True)(_nearest_within)
    pts = np.array([0.5, 1.5])
    starts = np.array([0, 0, 0, 0, 0, 2, 2, 2, 2, 2], dtype=np.int64)
    order = np.array([0, 1], dtype=np.int64)
    q = np.array([1.0])
    count(starts, order, pts, pts, 3, 3, 0, 0, 2.0, q, q, 4.0)
    nearest(starts, order, pts, pts, order, 3, 3, 0, 0, 2.0, q, q, np.array([4.0]), 2)
    return count, nearest


_BUILD = jit.Build("perception pairs its units with numpy (the same facts, slower)", _make)


def available() -> bool:
    """Whether the compiled loops run (``ai.jit``): Numba installed and usable, ``RTS_NO_JIT`` not set."""
    return _BUILD.available()


def count_within(cells, px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray, r2: float) -> np.ndarray:
    """Per query point, how many of the points (``px``, ``py``), indexed by ``cells`` (a ``CellIndex`` of them),
    lie within squared distance ``r2`` (``r2`` at most the cell size squared)."""
    return _BUILD.get()[0](cells.starts, cells.order, px, py, cells.cols, cells.rows, cells.x0, cells.y0, cells.size,
                           qx, qy, r2)


def nearest_within(cells, px: np.ndarray, py: np.ndarray, ids: np.ndarray, qx: np.ndarray, qy: np.ndarray,
                   r2: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query point ``i``, its at most ``k`` nearest points within squared distance ``r2[i]``, by (squared
    distance, id): (``found``: n x k point indices, -1 past the end; ``d2``: their squared distances; ``count``)."""
    if k <= 0:
        n = len(qx)
        return np.full((n, 0), -1, dtype=np.int64), np.zeros((n, 0)), np.zeros(n, dtype=np.int64)
    return _BUILD.get()[1](cells.starts, cells.order, px, py, ids, cells.cols, cells.rows, cells.x0, cells.y0,
                           cells.size, qx, qy, r2, k)


_spans = None           # ``_cell_spans`` compiled (the loops call it)


def _cell_spans(starts, cols, rows, x0, y0, size, x, y, spans):
    """The 3 x 3 cells round (x, y) that lie in the table, as ranges of ``order`` (``spans``: 9 x 2, filled row by
    row with the cells' (start, end), empty where a cell is off the table): ``CellIndex.pairs``' cells."""
    cx = int(np.floor(x / size)) - x0 + 1
    cy = int(np.floor(y / size)) - y0 + 1
    c = 0
    for yy in range(cy - 1, cy + 2):
        for xx in range(cx - 1, cx + 2):
            if yy < 0 or yy >= rows or xx < 0 or xx >= cols:
                spans[c, 0] = spans[c, 1] = 0
            else:
                spans[c, 0] = starts[yy * cols + xx]
                spans[c, 1] = starts[yy * cols + xx + 1]
            c += 1


def _count_within(starts, order, px, py, cols, rows, x0, y0, size, qx, qy, r2):
    n = len(qx)
    out = np.zeros(n, dtype=np.int64)
    spans = np.empty((9, 2), dtype=np.int64)
    for i in range(n):
        x, y = qx[i], qy[i]
        _spans(starts, cols, rows, x0, y0, size, x, y, spans)
        c = 0
        for cell in range(9):
            for s in range(spans[cell, 0], spans[cell, 1]):
                p = order[s]
                if (px[p] - x) ** 2 + (py[p] - y) ** 2 <= r2:
                    c += 1
        out[i] = c
    return out


def _nearest_within(starts, order, px, py, ids, cols, rows, x0, y0, size, qx, qy, r2, k):
    n = len(qx)
    found = np.full((n, k), -1, dtype=np.int64)
    dist = np.zeros((n, k))
    count = np.zeros(n, dtype=np.int64)
    spans = np.empty((9, 2), dtype=np.int64)
    for i in range(n):
        x, y, lim = qx[i], qy[i], r2[i]
        _spans(starts, cols, rows, x0, y0, size, x, y, spans)
        m = 0
        for cell in range(9):
            for s in range(spans[cell, 0], spans[cell, 1]):
                p = order[s]
                d2 = (px[p] - x) ** 2 + (py[p] - y) ** 2
                if d2 > lim:
                    continue
                pid = ids[p]
                if m == k:                   # full: only a point before the last one kept gets in
                    last = found[i, k - 1]
                    if d2 > dist[i, k - 1] or (d2 == dist[i, k - 1] and pid > ids[last]):
                        continue
                    pos = k - 1
                else:
                    pos = m
                    m += 1
                while pos > 0:
                    before = found[i, pos - 1]
                    if dist[i, pos - 1] < d2 or (dist[i, pos - 1] == d2 and ids[before] < pid):
                        break
                    found[i, pos] = before
                    dist[i, pos] = dist[i, pos - 1]
                    pos -= 1
                found[i, pos] = p
                dist[i, pos] = d2
        count[i] = m
    return found, dist, count
