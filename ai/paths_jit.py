"""A path's walk back from the search's distances and its smoothing into waypoints, compiled with Numba: the same
tiles and waypoints as ``ai.pathfinding``'s Python loops, several times faster.

With thousands of walkers setting out, each plans its own path (docs/rules/paths.md): libtcod's C search gives
the distances, and then ``_walk_back`` (the rule that picks one shortest path whatever order the search took)
and ``smooth`` (the farthest tile centre a straight walk reaches, again and again) ran in Python, about 60% of
each path's time (0.15 ms of 0.25 ms on the 157 x 116 army map). This module runs those two loops compiled (both
in one call for a route, ``route``), and the search from a goal over the whole map that ``PathGraph`` makes for a
goal many walkers ask for (``distances``: exact distances, which are unique, so tcod's numbers). It
is the optional extra ``fast`` (``pip install -e '.[fast]'``, as ``ai.tactics_jit``); without Numba, when it
cannot be imported or compile (a warning says why, once), or with ``RTS_NO_JIT=1`` in the environment when a
grid's ``PathGraph`` is first used (a graph that has built its compiled arrays keeps them; a nav change makes a new
graph), ``PathGraph`` keeps its Python loops. Both give the same paths (tests/test_paths_jit.py compares them on random
grids and on the army map), so a match plays the same either way.

Why the results are identical:

- the walk back compares integer distances (the search's distances widened to 64 bits before a step's cost is
  added, as Python's integers never overflow) and tries the neighbours in the same turned order;
- a segment check is ``PathGraph.clear``'s, from the same source: ``box_open`` then ``segment_clear``, compiled
  (the same IEEE operations in the same order: Numba compiles without ``fastmath``); the Python
  smoothing keeps its answers in a store and the compiled one checks afresh, which changes no answer.

The compiled segment check of the smoothing, between tile centres, does not check array bounds: a segment from a
tile edge that runs past its end tile (which a centre-to-centre segment never does) would read outside the grid
where ``segment_clear`` raises. ``clear_many``, the checks of line of sight between units (anywhere in a tile),
runs a build of ``segment_clear`` that checks every index, and gives the question back to the Python loop when
one falls outside.
"""
from __future__ import annotations

import numpy as np

from ai import jit

_INSTALLED = jit.INSTALLED
_helpers: tuple = ()    # ai.pathfinding's box_open and segment_clear, handed in by the first ``available``


def available(box_open, segment_clear) -> bool:
    """Whether the compiled loops run: Numba installed and usable, ``RTS_NO_JIT`` not set. The first call that
    would use them imports Numba and compiles them (or loads its cache), with ``box_open`` and ``segment_clear``
    (those of ``ai.pathfinding``, handed in: that module imports this one) compiled as the smoothing's segment
    check. ``ai.pathfinding.jit_available`` asks this."""
    global _helpers
    if not _helpers:
        _helpers = (box_open, segment_clear)
    return _BUILD.available()


def _make(njit):
    if not _helpers:
        raise RuntimeError("paths_jit: call available() before using the compiled loops")
    _bind_helpers(*_helpers)
    global _walk_k, _smooth_k, _push_k, _pop_k
    _push_k = njit(cache=True)(_heap_push)
    _pop_k = njit(cache=True)(_heap_pop)
    walk = _walk_k = njit(cache=True)(_walk_back)
    smooth = _smooth_k = njit(cache=True)(_smooth)
    many = njit(cache=True)(_clear_many)
    one = njit(cache=True)(_segment_one)
    route = njit(cache=True)(_route)
    field = njit(cache=True)(_distances)
    _warm_up(walk, smooth, many, one, route, field)
    return walk, smooth, many, one, route, field


_BUILD = jit.Build("paths are walked back and smoothed in Python (the same paths, slower)", _make)


def _kernels():
    """(walk_back, smooth, clear_many, one segment, route, distances) compiled; call only where ``available`` said
    so."""
    return _BUILD.get()


def _warm_up(walk, smooth, many, one, route, field) -> None:
    walkable = np.ones(4, dtype=np.uint8)
    dist = np.array([1, 0, 2, 1], dtype=np.int32)
    steps = np.array([[1, 1, 0, 2], [2, 0, 1, 2], [-1, -1, 0, 2], [-2, 0, -1, 2]], dtype=np.int64)
    out = np.empty(4, dtype=np.int64)
    walk(dist, walkable, 2, 0, 1, steps, out)
    table = np.zeros((3, 3), dtype=np.int64)
    smooth(np.array([0, 1], dtype=np.int64), np.array([0, 0], dtype=np.int64), walkable, 2, 2, table,
           np.empty(2, dtype=np.int64))
    point = np.array([0.5])
    many(point, point, point, point, walkable, 2, 2, table, np.empty(1, dtype=np.uint8))
    one(walkable, 2, 2, table, 0.5, 0.5, 1.5, 1.5)
    buf = np.empty((4, 4), dtype=np.int64)
    route(dist, walkable, 2, 2, table, 0, 1, steps, buf)
    field(walkable, 2, 2, 0, steps, np.empty(4, dtype=np.int32), np.empty(33, dtype=np.int64))


def steps_array(steps: tuple) -> np.ndarray:
    """``ai.pathfinding._indexed_steps`` as an (8, 4) array: index offset, dx, dy, cost."""
    return np.array(steps, dtype=np.int64)


def walk_back(dist: np.ndarray, walkable: np.ndarray, width: int, start_i: int, goal_i: int,
              steps: np.ndarray) -> list[tuple[int, int]]:
    """``ai.pathfinding._walk_back`` on a flat distance array and a flat uint8 walkable array."""
    out = np.empty(len(walkable), dtype=np.int64)
    n = _kernels()[0](dist, walkable, width, start_i, goal_i, steps, out)
    if n < 0:   # cannot happen with exact distances; refuse rather than loop
        raise AssertionError("path walk-back found no closer neighbour")
    flat = out[:n].tolist()
    return [(i % width, i // width) for i in flat]


def smooth(tiles: list[tuple[int, int]], walkable: np.ndarray, width: int, height: int,
           table: np.ndarray) -> list[tuple[float, float]]:
    """``ai.pathfinding.smooth`` with ``PathGraph.clear`` for the segment checks; ``table`` is the summed-area
    table of blocked tiles, (height + 1) x (width + 1)."""
    if not tiles:
        return []
    xs = np.array([t[0] for t in tiles], dtype=np.int64)
    ys = np.array([t[1] for t in tiles], dtype=np.int64)
    out = np.empty(len(tiles), dtype=np.int64)
    n = _kernels()[1](xs, ys, walkable, width, height, table, out)
    return [(tiles[i][0] + 0.5, tiles[i][1] + 0.5) for i in out[:n].tolist()]


def route(dist: np.ndarray, walkable: np.ndarray, width: int, height: int, table: np.ndarray, start_i: int,
          goal_i: int, steps: np.ndarray, buf: np.ndarray) -> list[tuple[float, float]]:
    """``smooth(walk_back(...))`` in one compiled call: the waypoints of the path walked back from ``start_i`` to
    ``goal_i``, without building the tile list in between (about 4 us against 22 for the two calls on the army
    map). ``buf``: a (4, width * height) int64 array the call may write in (a graph keeps one)."""
    n = _kernels()[4](dist, walkable, width, height, table, start_i, goal_i, steps, buf)
    if n < 0:   # cannot happen with exact distances; refuse rather than loop
        raise AssertionError("path walk-back found no closer neighbour")
    xs = buf[1, :n].tolist()
    ys = buf[2, :n].tolist()
    return [(x + 0.5, y + 0.5) for x, y in zip(xs, ys)]


def distances(walkable: np.ndarray, width: int, height: int, goal_i: int, steps: np.ndarray) -> np.ndarray:
    """The exact distance to ``goal_i`` (a walkable tile) of every tile, as a flat int32 array: 2**31 - 1 where it
    cannot be reached, blocked tiles included. A search from the goal over the whole map (Dijkstra's: a tile is
    final when it leaves the heap), on the grid's rules: 8 steps (``steps``, an (8, 4) array of index offset, dx,
    dy, integer cost), onto walkable tiles only, a diagonal only with both tiles beside it walkable. Shortest
    distances are unique, so these are the distances tcod's search resolved everywhere gives on every walkable
    tile (about 1.4 ms on the army map against its 5)."""
    size = len(walkable)
    dist = np.empty(size, dtype=np.int32)
    heap = np.empty(8 * size + 1, dtype=np.int64)
    _kernels()[5](walkable, width, height, goal_i, steps, dist, heap)
    return dist


def clear_many(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray, walkable: np.ndarray, width: int,
               height: int, table: np.ndarray) -> np.ndarray:
    """``PathGraph.clear`` of every segment (x0[k], y0[k]) - (x1[k], y1[k]) (float64 arrays) as a bool array, in one
    compiled loop; None when a check read outside the grid (where ``segment_clear`` on a list would raise or wrap
    round): the caller then asks ``PathGraph.clear`` one segment at a time, which gives its own answer or error."""
    out = np.empty(len(x0), dtype=np.uint8)
    try:
        _kernels()[2](x0, y0, x1, y1, walkable, width, height, table, out)
    except IndexError:
        return None
    return out.view(np.bool_)


def segment(walkable: np.ndarray, width: int, height: int, table: np.ndarray,
            x0: float, y0: float, x1: float, y1: float) -> bool | None:
    """``PathGraph.clear`` of one segment between any two points: ``box_open`` on ``table``, else ``segment_clear``,
    compiled in one call (the box test in Python cost three times the compiled call), the walk with every index
    checked; None where a check read outside the grid (the caller asks ``segment_clear`` itself, which answers or
    raises as it does)."""
    try:
        return bool(_kernels()[3](walkable, width, height, table, x0, y0, x1, y1))
    except IndexError:
        return None


# -- the loops Numba compiles (plain Python too: tests run them uncompiled against the originals) ------------------
def _walk_back(dist, walkable, width, start_i, goal_i, steps, out):
    size = len(walkable)
    cur = start_i
    n = 0
    out[n] = cur
    n += 1
    while cur != goal_i:
        here = np.int64(dist[cur])
        cx = cur % width
        found = False
        for k in range(steps.shape[0]):
            off = steps[k, 0]
            dx = steps[k, 1]
            dy = steps[k, 2]
            ni = cur + off
            nx = cx + dx
            if nx < 0 or nx >= width or ni < 0 or ni >= size or walkable[ni] == 0:
                continue
            if dx != 0 and dy != 0 and not (walkable[cur + dx] != 0 and walkable[cur + dy * width] != 0):
                continue
            if np.int64(dist[ni]) + steps[k, 3] == here:
                cur = ni
                found = True
                break
        if not found:
            return -1
        out[n] = cur
        n += 1
    return n


def _clear(walkable, width, height, table, x0, y0, x1, y1):
    """``PathGraph.clear``: the box test, else the segment walked (both ``ai.pathfinding``'s, compiled)."""
    return _box_open(table, width, height, x0, y0, x1, y1) or _segment_clear(walkable, width, height, x0, y0, x1, y1)


def _smooth(xs, ys, walkable, width, height, table, out):
    last = len(xs) - 1
    n = 0
    out[n] = 0
    n += 1
    i = 0
    while i < last:
        j = i + 1
        while j < last and _clear(walkable, width, height, table, xs[i] + 0.5, ys[i] + 0.5,
                                  xs[j + 1] + 0.5, ys[j + 1] + 0.5):
            j += 1
        out[n] = j
        n += 1
        i = j
    return n


_walk_k = _smooth_k = None     # the two loops above, compiled (``_make``), for ``_route`` to call


def _route(dist, walkable, width, height, table, start_i, goal_i, steps, buf):
    """``_walk_back`` into ``buf[0]``, the tiles' x and y into ``buf[1]`` and ``buf[2]``, ``_smooth`` over them
    into ``buf[3]``; then the kept tiles' x and y written over the front of ``buf[1]`` and ``buf[2]``. Returns how
    many were kept (-1: the walk back found no closer neighbour)."""
    n = _walk_k(dist, walkable, width, start_i, goal_i, steps, buf[0])
    if n < 0:
        return -1
    for k in range(n):
        buf[1, k] = buf[0, k] % width
        buf[2, k] = buf[0, k] // width
    m = _smooth_k(buf[1, :n], buf[2, :n], walkable, width, height, table, buf[3])
    for k in range(m):              # (buf[3] is increasing, so each kept tile is read before it is written over)
        i = buf[3, k]
        buf[1, k] = buf[1, i]
        buf[2, k] = buf[2, i]
    return m


def _heap_push(heap, n, key):
    """Put ``key`` into the binary min-heap ``heap[:n]``; returns the new size."""
    j = n
    while j > 0:
        p = (j - 1) // 2
        if heap[p] <= key:
            break
        heap[j] = heap[p]
        j = p
    heap[j] = key
    return n + 1


def _heap_pop(heap, n):
    """Take the least key out of the binary min-heap ``heap[:n]`` (n > 0); returns (key, the new size)."""
    key = heap[0]
    n -= 1
    last = heap[n]
    i = 0                              # the last entry sifted down from the root
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and heap[c + 1] < heap[c]:
            c += 1
        if heap[c] >= last:
            break
        heap[i] = heap[c]
        i = c
    if n > 0:
        heap[i] = last
    return key, n


_push_k = _pop_k = None        # the two above, compiled (``_make``), for ``_distances`` to call


def _distances(walkable, width, height, goal_i, steps, dist, heap):
    """``distances`` into ``dist``; ``heap``: room for every push (at most 8 a tile, one per neighbour that brings
    it nearer, plus the goal), as distance * size + tile, a binary heap with stale entries skipped. Returns how many
    entries were pushed."""
    size = width * height
    for i in range(size):
        dist[i] = 2147483647
    dist[goal_i] = 0
    n = _push_k(heap, 0, goal_i)
    pushed = 1
    while n > 0:
        key, n = _pop_k(heap, n)
        d = key // size
        cur = key % size
        if d > dist[cur]:
            continue                   # a stale entry: the tile was settled nearer
        cx = cur % width
        cy = cur // width
        for k in range(steps.shape[0]):
            dx = steps[k, 1]
            dy = steps[k, 2]
            nx = cx + dx
            ny = cy + dy
            if nx < 0 or ny < 0 or nx >= width or ny >= height:
                continue
            ni = ny * width + nx
            if walkable[ni] == 0:
                continue
            if dx != 0 and dy != 0 and (walkable[cy * width + nx] == 0 or walkable[ny * width + cx] == 0):
                continue
            nd = d + steps[k, 3]
            if nd < dist[ni]:
                dist[ni] = nd
                n = _push_k(heap, n, nd * size + ni)
                pushed += 1
    return pushed


#: coordinates beyond this (and NaN) go back to the Python check: compiled, ``floor`` of NaN, of an infinity or of
#: a float past 2**63 gives INT64_MIN where Python raises or answers with a huge int, and the box test would read
#: outside its table. No point of a map comes near it
FAR = 1e15


def _near(x0, y0, x1, y1):
    """Raise IndexError (the compiled loops' "ask the Python check") unless all four coordinates lie within FAR."""
    if not (-FAR < x0 < FAR and -FAR < y0 < FAR and -FAR < x1 < FAR and -FAR < y1 < FAR):
        raise IndexError("a coordinate is not a finite number near the grid")


def _segment_one(walkable, width, height, table, x0, y0, x1, y1):
    # a cached build that calls the checked one (which Numba does not cache: see ``_bind_helpers``), so a process
    # loads it instead of compiling the checked walk for scalar arguments on its first use (0.65 s)
    _near(x0, y0, x1, y1)
    return _box_open(table, width, height, x0, y0, x1, y1) or _segment_checked(walkable, width, height, x0, y0, x1, y1)


def _clear_many(x0, y0, x1, y1, walkable, width, height, table, out):
    for k in range(len(x0)):
        _near(x0[k], y0[k], x1[k], y1[k])
        out[k] = _box_open(table, width, height, x0[k], y0[k], x1[k], y1[k]) or \
            _segment_checked(walkable, width, height, x0[k], y0[k], x1[k], y1[k])


_clear_py = _clear
_near_py = _near
_box_open = _segment_clear = _segment_checked = None   # ai.pathfinding's own, compiled (``_bind_helpers``)


def _bind_helpers(box_open, segment_clear) -> None:
    """Numba compiles a function's callees only if they are compiled functions too: ``_clear`` and the very
    ``box_open`` and ``segment_clear`` of ``ai.pathfinding`` (their list indexing reads arrays the same way).

    Numba's cache knows a cached function by its own file's stamp, not its callees': the loops here that call
    ``segment_clear`` (with ``CORNER``, its corner tolerance) keep an old build of it until this file changes
    too. A change to either of those in ``ai.pathfinding`` comes with an edit here (this note was the last: the
    corner walk stops on an end tile beside the corner, and a corner on the map's edge is blocked)."""
    global _box_open, _segment_clear, _segment_checked, _clear, _near
    from numba import njit

    _near = njit(cache=True)(_near_py)
    _box_open = njit(cache=True)(box_open)
    _segment_clear = njit(cache=True)(segment_clear)
    # for segments between any two points (line of sight between units): every index checked, an IndexError
    # where the list would raise one (a negative index wraps round in both). Not cached: Numba's cache keys a
    # function by its source, not by these options, and would hand back the unchecked build
    _segment_checked = njit(boundscheck=True)(segment_clear)
    _clear = njit(cache=True)(_clear_py)
