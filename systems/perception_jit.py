"""Perception's neighbour queries and cover search compiled with Numba: the same answers as
``systems.perception``'s numpy pairs, without building the pairs.

At 10,000 units in a melee each thinking NPC has about 180 allies within ``ALLY_RADIUS`` and the numpy path
builds every (NPC, unit) pair of the 3 x 3 cells round it (a million a tick), measures them and sorts the enemy
pairs to keep each NPC's nearest: about a fifth of perception's time. These loops walk the same cells
(``CellIndex``'s, handed in as a dense table of cell starts) and keep only a count, or the ``k`` nearest in a
small sorted buffer. The cover search walks the cover tiles of the cells round each NPC twice: the lowest score,
then the tie-break among those within a millionth of it (``best_cover``). The cell index itself is made in one
pass too (``cell_table``: a counting sort, the numpy construction's stable argsort and ``searchsorted`` being
a dozen calls, about 35 us, for each of the four indexes a tick even at 1,000 units).

Why the answers are identical: the squared distance is computed by the same IEEE operations in the same order as
the numpy expression ``(px[j] - qx) ** 2 + (py[j] - qy) ** 2`` (numpy squares by multiplying; Numba compiles
without ``fastmath``, so nothing is fused or reordered); the pairs considered are the same cells' points; the
nearest are ordered by (squared distance, entity id), the numpy path's lexsort, and ids are unique.

It is the optional extra ``fast`` (``ai.jit``: without Numba, when it cannot be imported or compile, or with
``RTS_NO_JIT=1``, perception keeps its numpy pairs (tests/test_perception_jit.py compares both on random points
and on a 600-unit match's facts).
"""
from __future__ import annotations

import math

import numpy as np

from ai import jit

_INSTALLED = jit.INSTALLED


def _make(njit):
    global _spans, _score
    _spans = njit(cache=True)(_cell_spans)
    _score = njit(cache=True)(_cover_score)
    count = njit(cache=True)(_count_within)
    nearest = njit(cache=True)(_nearest_within)
    cover = njit(cache=True)(_best_cover)
    pts = np.array([0.5, 1.5])
    starts = np.array([0, 0, 0, 0, 0, 2, 2, 2, 2, 2], dtype=np.int64)
    order = np.array([0, 1], dtype=np.int64)
    q = np.array([1.0])
    count(starts, order, pts, pts, 3, 3, 0, 0, 2.0, q, q, 4.0)
    nearest(starts, order, pts, pts, order, 3, 3, 0, 0, 2.0, q, q, np.array([4.0]), 2)
    one = np.array([1], dtype=np.int64)
    cover(starts, order, pts, pts, pts - 0.5, pts - 0.5, 3, 3, 0, 0, 2.0, order, order, order, order,
          q, q, one, one, np.array([True]), q, q, one, 20.0, 0.5, 16.0)
    table = njit(cache=True)(_cell_table)
    table(pts, pts, 2.0)
    return count, nearest, cover, table


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


def best_cover(cells, cx: np.ndarray, cy: np.ndarray, tile_x: np.ndarray, tile_y: np.ndarray, labels: np.ndarray,
               occupants: np.ndarray, holders: np.ndarray, px: np.ndarray, py: np.ndarray, here: np.ndarray,
               me: np.ndarray, seen: np.ndarray, ex: np.ndarray, ey: np.ndarray, turns: np.ndarray, radius: float,
               away_weight: float, away_cap: float) -> tuple[np.ndarray, np.ndarray]:
    """Per NPC (at ``px``, ``py``, in walkable area ``here``, entity ``me``, facing the enemy at ``ex``, ``ey`` where
    ``seen``, its team's quarter ``turns``): the cover tile ``Perception._cover_batch`` picks among the tiles at
    (``cx``, ``cy``), indexed by ``cells``, as (tile index or -1, its distance). The same rule, tile by tile: in
    reach (``radius``), in the same area, not taken by another unit (``occupants``: count and one occupant;
    ``holders``: an enter_cover action's actor); scored by distance less ``away_weight`` times the enemy's distance
    to it (capped at ``away_cap``); the lowest score, and among those within a millionth of it the lowest offset
    turned with the quarter (``game.economy.turned``), then the lowest index."""
    return _BUILD.get()[2](cells.starts, cells.order, cx, cy, tile_x, tile_y, cells.cols, cells.rows, cells.x0,
                           cells.y0, cells.size, labels, occupants[:, 0].copy(), occupants[:, 1].copy(), holders,
                           px, py, here, me, seen, ex, ey, turns, radius, away_weight, away_cap)


def cell_table(xs: np.ndarray, ys: np.ndarray, size: float) -> tuple:
    """``CellIndex``'s table of the points (``xs``, ``ys``, at least one) in cells of ``size``: (order, keys,
    starts, x0, y0, cols, rows), as its numpy construction makes them (a counting sort is the stable argsort of
    the cell keys; a cell's start is the number of keys below it, ``searchsorted``'s left side)."""
    return _BUILD.get()[3](np.ascontiguousarray(xs, dtype=np.float64), np.ascontiguousarray(ys, dtype=np.float64),
                           float(size))


def _cell_table(xs, ys, size):
    n = len(xs)
    cx = np.empty(n, dtype=np.int64)
    cy = np.empty(n, dtype=np.int64)
    for i in range(n):
        cx[i] = int(np.floor(xs[i] / size))
        cy[i] = int(np.floor(ys[i] / size))
    x0, y0 = cx.min(), cy.min()
    cols = cx.max() - x0 + 3
    rows = cy.max() - y0 + 3
    key = (cy - y0 + 1) * cols + (cx - x0 + 1)
    starts = np.zeros(rows * cols + 1, dtype=np.int64)
    for i in range(n):
        starts[key[i] + 1] += 1
    for c in range(rows * cols):
        starts[c + 1] += starts[c]
    fill = starts[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):                      # ascending point index within a cell: the stable argsort's order
        order[fill[key[i]]] = i
        fill[key[i]] += 1
    return order, key[order], starts, x0, y0, cols, rows


_spans = None           # ``_cell_spans`` compiled (the loops call it)
_score = None           # ``_cover_score`` compiled


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


def _cover_score(cx, cy, labels, occ_count, occ_id, holders, j, area, who, x, y, seen, ex, ey, radius, away_weight,
                 away_cap):
    """(distance, score) of cover tile ``j`` for the NPC ``who`` at (x, y) in walkable area ``area``:
    ``_cover_batch``'s expressions, the same operations in the same order (``math.hypot`` is the C library's, as
    ``np.hypot`` is); the score is infinite where the NPC may not take the tile (another area, taken by another
    unit, out of reach)."""
    if labels[j] != area or (occ_count[j] > 0 and (occ_count[j] > 1 or occ_id[j] != who)) or \
            (holders[j] != 0 and holders[j] != who):
        return 0.0, np.inf
    d = math.hypot(cx[j] - x, cy[j] - y)
    if d > radius:
        return d, np.inf
    if seen:
        return d, d - away_weight * min(math.hypot(cx[j] - ex, cy[j] - ey), away_cap)
    return d, d


def _best_cover(starts, order, cx, cy, tile_x, tile_y, cols, rows, x0, y0, size, labels, occ_count, occ_id, holders,
                px, py, here, me, seen, ex, ey, turns, radius, away_weight, away_cap):
    n = len(px)
    best = np.full(n, -1, dtype=np.int64)
    best_d = np.zeros(n)
    spans = np.empty((9, 2), dtype=np.int64)
    for i in range(n):
        x, y, area, who = px[i], py[i], here[i], me[i]
        _spans(starts, cols, rows, x0, y0, size, x, y, spans)
        low = np.inf
        for cell in range(9):                    # the lowest score of the tiles this NPC may take
            for s in range(spans[cell, 0], spans[cell, 1]):
                _d, score = _score(cx, cy, labels, occ_count, occ_id, holders, order[s], area, who, x, y, seen[i],
                                   ex[i], ey[i], radius, away_weight, away_cap)
                if score < low:
                    low = score
        if low == np.inf:
            continue
        bound = low + 1e-6
        pick = -1
        pick_d = 0.0
        k0 = 0.0
        k1 = 0.0
        for cell in range(9):                    # of those within a millionth: the lowest turned offset, then index
            for s in range(spans[cell, 0], spans[cell, 1]):
                j = order[s]
                d, score = _score(cx, cy, labels, occ_count, occ_id, holders, j, area, who, x, y, seen[i], ex[i],
                                  ey[i], radius, away_weight, away_cap)
                if score > bound:
                    continue
                dx = tile_x[j] + 0.5 - x
                dy = tile_y[j] + 0.5 - y
                for _ in range(turns[i]):
                    dx, dy = dy, -dx
                a, b = dy, dx                    # turned's result
                if pick < 0 or a < k0 or (a == k0 and (b < k1 or (b == k1 and j < pick))):
                    pick, pick_d, k0, k1 = j, d, a, b
        best[i] = pick
        best_d[i] = pick_d
    return best, best_d
