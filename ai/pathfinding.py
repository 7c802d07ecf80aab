"""Grid navigation: A* over a walkability grid, line-of-movement checks, BFS.

Engine-free: a grid is a flat list of bools (row-major, ``width`` columns).
Movement is 8-connected without cutting corners past walls. Every choice is
deterministic: neighbours are expanded in a fixed order and heap ties are
broken by (f, h, insertion counter).

The examples below use this 4 x 3 map (``#`` is a wall)::

    ....
    .##.
    ....

    >>> grid = [c == "." for c in "...." ".##." "...."]
    >>> len(astar(grid, 4, 3, (0, 0), (3, 2)))
    6
"""
from __future__ import annotations

import heapq
import math
from collections import deque

from ai import paths_jit

SQRT2 = math.sqrt(2.0)
# (dx, dy, cost) in a fixed order: straight moves first, then diagonals
_STEPS = ((1, 0, 1.0), (-1, 0, 1.0), (0, 1, 1.0), (0, -1, 1.0),
          (1, 1, SQRT2), (-1, 1, SQRT2), (1, -1, SQRT2), (-1, -1, SQRT2))


def _turned_steps(turn: int) -> tuple:
    steps = _STEPS
    for _ in range(turn % 4):
        steps = tuple((-dy, dx, cost) for dx, dy, cost in steps)
    return steps


#: the neighbour order turned by 0..3 quarter turns
_STEPS_TURNED = tuple(_turned_steps(k) for k in range(4))


def octile(ax: int, ay: int, bx: int, by: int) -> float:
    """The octile distance between two tiles: the length of the shortest 8-connected path on an open grid
    (straight steps cost 1, diagonal ones sqrt(2)); A*'s heuristic.

    >>> octile(0, 0, 3, 2) == 1 + 2 * SQRT2
    True
    """
    dx = abs(ax - bx)
    dy = abs(ay - by)
    return (dx + dy) + (SQRT2 - 2.0) * min(dx, dy)


#: integer step costs: sums of them are exact, so "equally short" is an exact test, never a float's rounding
STRAIGHT = 10_000
DIAGONAL = 14_142
#: the search's heuristic, octile distance with step costs strictly below the real ones: every tile with f below
#: the shortest path's length is closed before the search ends, so every tile on *any* shortest path has its
#: exact distance when the walk back picks among them (see ``astar``)
_H_STRAIGHT = 9_999
_H_DIAGONAL = 14_140
_UNSEEN = 2 ** 31 - 1
GOAL_SEARCHES = 48         # goals whose search a PathGraph keeps going (a pathfinder each, about 0.2 MB)
#: the search to one goal at which a PathGraph works out that goal's distances over the whole map instead (the
#: count starts again when the goal's search is dropped for another, ``GOAL_SEARCHES``; compiled about 1.4 ms on
#: the 157 x 116 army map, tcod's search resolved everywhere about 5, against about 0.04 ms for each search it then
#: saves): a squad's walkers setting out to its order point ask for the same goal hundreds of times; the paths are
#: the same either way (measured at 16, 32, 48 and 128 with the compiled search: none faster than 128)
FULL_AFTER = 128
SEGMENT_CACHE = 200_000     # segment answers a PathGraph keeps for smoothing (about 20 MB), then starts afresh
#: how near a tile corner, as a fraction of its length, a straight segment may pass and still count as passing
#: through it (``segment_clear``): the positions of a unit and of its mirror image differ by rounding (about 1e-13
#: tiles after a walk), and without it one could graze a wall's corner where the other passes through it
CORNER = 1e-9


def _indexed_steps(width: int, turn: int) -> tuple:
    """(index offset, dx, dy, integer cost) in the neighbour order turned by ``turn`` quarter turns."""
    return tuple((dy * width + dx, dx, dy, DIAGONAL if dx and dy else STRAIGHT)
                 for dx, dy, _cost in _STEPS_TURNED[turn % 4])


def _distances_to(walkable: list, width: int, height: int, goal_i: int, start_i: int,
                  max_expansions: int) -> list | None:
    """Exact step-cost distances to ``goal_i`` for every tile on a shortest path from ``start_i`` (an A* search
    run from the goal towards the start). The start tile may be blocked (it is entered, never left). None when
    the start cannot be reached within ``max_expansions`` closed tiles."""
    sx, sy = start_i % width, start_i // width
    hs, hd = _H_STRAIGHT, _H_DIAGONAL - 2 * _H_STRAIGHT
    steps = _indexed_steps(width, 0)
    dist = [_UNSEEN] * (width * height)
    dist[goal_i] = 0
    closed = bytearray(width * height)
    heap = [(0, 0, goal_i)]
    push = heapq.heappush
    pop = heapq.heappop
    counter = 0
    expansions = 0
    while heap:
        _f, _c, cur = pop(heap)
        if closed[cur]:
            continue
        if cur == start_i:
            return dist
        closed[cur] = 1
        expansions += 1
        if expansions > max_expansions:
            return None
        cx = cur % width
        cy = cur // width
        gc = dist[cur]
        for off, dx, dy, cost in steps:
            nx = cx + dx
            ny = cy + dy
            if nx < 0 or ny < 0 or nx >= width or ny >= height:
                continue
            ni = cur + off
            if closed[ni] or not (walkable[ni] or ni == start_i):
                continue
            if dx and dy and not (walkable[cur + dx] and walkable[cur + dy * width]):
                continue  # no squeezing diagonally past a wall corner
            ng = gc + cost
            if ng < dist[ni]:
                dist[ni] = ng
                counter += 1
                ddx = nx - sx if nx > sx else sx - nx
                ddy = ny - sy if ny > sy else sy - ny
                push(heap, (ng + hs * (ddx + ddy) + hd * (ddx if ddx < ddy else ddy), counter, ni))
    return None


def _walk_back(dist, walkable: list, width: int, start_i: int, goal_i: int, turn: int) -> list[tuple[int, int]]:
    """From the start, step each time to the first neighbour (in the turned order) one step closer to the goal
    by exactly that step's cost. ``dist`` is indexed by flat tile index (a list or a flat numpy array)."""
    steps = _indexed_steps(width, turn)
    size = len(walkable)
    cur = start_i
    path = [(cur % width, cur // width)]
    while cur != goal_i:
        here = dist[cur]
        cx = cur % width
        for off, dx, dy, cost in steps:
            ni = cur + off
            nx = cx + dx
            if nx < 0 or nx >= width or ni < 0 or ni >= size or not walkable[ni]:
                continue
            if dx and dy and not (walkable[cur + dx] and walkable[cur + dy * width]):
                continue
            if dist[ni] + cost == here:
                cur = ni
                break
        else:   # cannot happen with exact distances; refuse rather than loop
            raise AssertionError("path walk-back found no closer neighbour")
        path.append((cur % width, cur // width))
    return path


def astar(walkable: list, width: int, height: int, start: tuple[int, int], goal: tuple[int, int],
          max_expansions: int = 50_000, turn: int = 0) -> list[tuple[int, int]] | None:
    """Shortest 8-connected tile path from ``start`` to ``goal`` (both included).

    Returns None when the goal is unreachable, not walkable, or the expansion
    budget runs out. The start tile need not be walkable (a unit may stand in a
    doorway that just closed); every other tile of the path is.

    ``walkable`` is a flat row-major list of ``width * height`` bools; tiles are ``(x, y)``;
    ``max_expansions`` caps the tiles closed. Straight steps cost ``STRAIGHT`` and diagonal ones ``DIAGONAL``
    (integers in the ratio sqrt(2)), so path lengths compare exactly.

    Which of several equally short paths: an A* search from the goal gives the exact distance to the goal of
    every tile on any shortest path (its heuristic is strictly below the true cost, so none of them is left
    open), and the path is walked back from the start taking, at each tile, the first neighbour in a fixed
    order that is closer by exactly the step's cost. The result is a function of the map alone, not of the
    search's order, so ``PathGraph`` (the same rule on tcod's C search) returns the very same path.
    ``turn`` (0-3) turns the neighbour order by that many quarter turns: a search and its mirror image on a
    symmetric map then pick mirror images of one path (a fixed order would favour one direction, and so one
    side).

    >>> grid = [c == "." for c in "...." ".##." "...."]
    >>> astar(grid, 4, 3, (0, 0), (3, 2))              # around the wall, never diagonally past its corner
    [(0, 0), (1, 0), (2, 0), (3, 0), (3, 1), (3, 2)]
    >>> astar(grid, 4, 3, (0, 0), (1, 1)) is None      # the goal is a wall
    True
    """
    sx, sy = start
    gx, gy = goal
    if not (0 <= gx < width and 0 <= gy < height and 0 <= sx < width and 0 <= sy < height):
        return None
    goal_i = gy * width + gx
    if not walkable[goal_i]:
        return None
    start_i = sy * width + sx
    if start_i == goal_i:
        return [start]
    dist = _distances_to(walkable, width, height, goal_i, start_i, max_expansions)
    if dist is None:
        return None
    return _walk_back(dist, walkable, width, start_i, goal_i, turn)


class PathGraph:
    """``astar``'s paths from libtcod's C search (``tcod.path``), about 5x faster on a 157 x 116 map; without tcod
    installed, ``astar`` itself. Either way the same path (``astar``'s docstring says why). Build one per
    state of the grid: it copies ``walkable``.

    >>> grid = [c == "." for c in "...." ".##." "...."]
    >>> PathGraph(grid, 4, 3).path((0, 0), (3, 2)) == astar(grid, 4, 3, (0, 0), (3, 2))
    True
    """

    def __init__(self, walkable: list, width: int, height: int):
        self.walkable = list(walkable)
        self.width = width
        self.height = height
        self._table: list | None = None          # summed-area table of blocked tiles (``clear``)
        self._segments: dict[int, bool] = {}     # (from tile, to tile) -> clear, for ``waypoints``
        #: start opened (-1: none) -> (tcod graph, {goal: [its pathfinder, searches, whole-map distances or None]})
        self._graphs: dict[int, tuple] = {}
        self._jit: tuple | None = None          # the arrays the compiled loops read (``_compiled``)
        self._buf = None                        # the compiled route's work array (``route``)
        #: walk paths back and smooth them with ai.paths_jit's compiled loops when they are available (tests turn
        #: it off to compare the two)
        self.use_jit = True
        try:
            import numpy as np
            import tcod.path
        except ImportError:     # pragma: no cover - tcod is a dependency; the Python search is the same rule
            self._np = None
        else:
            self._np = np
            self._tcod = tcod.path
            self._cost = np.array(self.walkable, dtype=np.int8).reshape(height, width)

    def _graph(self, opened: int) -> tuple:
        """(tcod graph, its pathfinders by goal tile) over the grid with tile ``opened`` enterable (-1: none)."""
        found = self._graphs.get(opened)
        if found is not None:
            return found
        np = self._np
        cost = self._cost
        if opened >= 0:     # a start on a blocked tile (a door shut under it) may be entered, never left
            cost = cost.copy()
            cost[opened // self.width, opened % self.width] = 1
        walk = self._cost.astype(bool)
        graph = self._tcod.CustomGraph((self.height, self.width))
        for dx, dy, _c in _STEPS:
            edge = DIAGONAL if dx and dy else STRAIGHT
            if not (dx and dy):
                graph.add_edge((dy, dx), edge, cost=cost)
                continue
            ok = np.zeros_like(walk)     # a diagonal step needs both tiles beside it open
            ys = slice(max(0, -dy), self.height - max(0, dy))
            xs = slice(max(0, -dx), self.width - max(0, dx))
            ok[ys, xs] = walk[ys, slice(xs.start + dx, xs.stop + dx)] & walk[slice(ys.start + dy, ys.stop + dy), xs]
            graph.add_edge((dy, dx), edge, cost=cost, condition=ok.view(np.int8))
        graph.set_heuristic(cardinal=_H_STRAIGHT, diagonal=_H_DIAGONAL)
        if opened >= 0:
            self._graphs = {k: v for k, v in self._graphs.items() if k < 0}    # one opened start kept
        found = self._graphs[opened] = (graph, {})
        return found

    def _finder(self, opened: int, goal_i: int) -> list:
        """[pathfinder, searches so far, whole-map distances (None until resolved everywhere)] for ``goal_i`` on the
        graph with ``opened`` enterable: the pathfinder searching from ``goal_i``, rooted there and resolved as far
        as the searches to that goal so far took it. A search to a goal some walker already searched goes on from
        where that one stopped (tcod puts the frontier in order for the new start); the distances it leaves on
        every tile of a shortest path are exact all the same, which is all the walk back reads (``astar``'s
        docstring). At the ``FULL_AFTER``-th search the goal's distances are worked out over the whole map instead
        (``_search``), and later walkers to it are walked back at once (exact distances everywhere: the same
        walk). At most ``GOAL_SEARCHES`` goals per graph are kept; the oldest one's pathfinder is cleared for the
        new goal."""
        graph, finders = self._graph(opened)
        entry = finders.pop(goal_i, None)
        if entry is None:
            if len(finders) >= GOAL_SEARCHES:
                finder = finders.pop(next(iter(finders)))[0]
                self._reset(finder)
            else:
                finder = self._tcod.Pathfinder(graph)
            finder.add_root((goal_i // self.width, goal_i % self.width))
            entry = [finder, 0, None]
        finders[goal_i] = entry                  # the most recently used last
        return entry

    def _reset(self, finder) -> None:
        """``finder.clear()`` less its one costly part: clear() builds a new travel array (an index grid made
        through ``meshgrid``, about 0.2 ms on a 157 x 116 map, more than a typical search), which a path walked
        back from the distances never reads. So only the distances and the frontier are reset, as clear() does;
        a tcod whose pathfinder lacks these parts is cleared the public way."""
        try:
            distance = finder._distance
            frontier = finder._frontier_p
            reset = self._tcod.lib.TCOD_frontier_clear
        except AttributeError:      # pragma: no cover - another tcod's insides
            finder.clear()
            return
        distance[...] = self._np.iinfo(distance.dtype).max
        reset(frontier)

    def clear(self, x0: float, y0: float, x1: float, y1: float) -> bool:
        """``segment_clear`` on this grid, answered at once when no tile of the box the two points' tiles span is
        blocked (a segment never leaves that box), from a summed-area table of blocked tiles built on first use.

        >>> grid = [c == "." for c in "...." ".##." "...."]
        >>> g = PathGraph(grid, 4, 3)
        >>> g.clear(0.5, 0.5, 3.5, 0.5), g.clear(0.5, 0.5, 3.5, 2.5)
        (True, False)
        """
        jit = self._compiled()
        if jit is not None and type(x0) is float and type(y0) is float and type(x1) is float and type(y1) is float:
            # the box test and the walk compiled, every index checked (``ai.paths_jit``); other argument types
            # (ints, numpy scalars) take the Python check rather than a new compiled build inside a tick
            found = paths_jit.segment(jit[0], self.width, self.height, jit[1], x0, y0, x1, y1)
            if found is not None:
                return found
        else:
            table = self._table
            if table is None:
                table = self._summed_table()
            if box_open(table, self.width, self.height, x0, y0, x1, y1):
                return True
        return segment_clear(self.walkable, self.width, self.height, x0, y0, x1, y1)

    def clear_many(self, x0, y0, x1, y1) -> list[bool]:
        """``clear`` of each segment (x0[k], y0[k]) - (x1[k], y1[k]) (four equal-length float sequences), in one
        compiled loop when ``ai.paths_jit`` runs (the same answers), else one at a time.

        >>> g = PathGraph([c == "." for c in "...." ".##." "...."], 4, 3)
        >>> g.clear_many([0.5, 0.5], [0.5, 0.5], [3.5, 3.5], [0.5, 2.5])
        [True, False]
        """
        jit = self._compiled() if len(x0) else None
        if jit is not None:
            np = self._np
            found = paths_jit.clear_many(np.asarray(x0, dtype=np.float64), np.asarray(y0, dtype=np.float64),
                                         np.asarray(x1, dtype=np.float64), np.asarray(y1, dtype=np.float64),
                                         jit[0], self.width, self.height, jit[1])
            if found is not None:
                return found.tolist()
        check = self.clear
        return [check(float(a), float(b), float(c), float(d)) for a, b, c, d in zip(x0, y0, x1, y1)]

    def _summed_table(self) -> list:
        """The summed-area table of blocked tiles, (height + 1) rows of (width + 1), built once."""
        width = self.width
        table = [[0] * (width + 1)]
        for y in range(self.height):
            row = [0]
            run = 0
            above = table[-1]
            for x in range(width):
                run += not self.walkable[y * width + x]
                row.append(above[x + 1] + run)
            table.append(row)
        self._table = table
        return table

    def _compiled(self):
        """(walkable as uint8, the summed-area table as an array, the neighbour steps of each turn as arrays) for
        ``ai.paths_jit``, or None when its compiled loops are not available (no Numba, ``RTS_NO_JIT``, ``use_jit``
        off): then the Python loops run. Once a graph has built them it keeps them (``RTS_NO_JIT`` is read until then:
        the segment checks ask this for every segment, and reading the environment cost as much as the check)."""
        if not self.use_jit:
            return None
        if self._jit is None:
            if self._np is None or not jit_available():
                return None
            np = self._np
            table = self._table if self._table is not None else self._summed_table()
            steps = tuple(paths_jit.steps_array(_indexed_steps(self.width, turn)) for turn in range(4))
            self._jit = (np.array(self.walkable, dtype=np.uint8), np.array(table, dtype=np.int64), steps)
        return self._jit

    def waypoints(self, tiles: list[tuple[int, int]]) -> list[tuple[float, float]]:
        """``smooth(walkable, width, height, tiles)``, with ``clear`` for the segment checks, each answer kept
        for this grid (smoothing joins tile centres, and walkers setting out from nearby tiles through the same
        corridors ask the same joins: 285,573 checks were 107,065 distinct ones while 5,000 units set out); at
        most ``SEGMENT_CACHE`` answers are kept, then the store starts afresh. With the compiled loops
        (``ai.paths_jit``) the same waypoints, the checks made afresh in compiled code."""
        jit = self._compiled()
        if jit is not None:
            return paths_jit.smooth(tiles, jit[0], self.width, self.height, jit[1])
        width = self.width
        size = width * self.height
        known = self._segments
        if len(known) > SEGMENT_CACHE:
            known.clear()
        check = self.clear

        def clear(x0, y0, x1, y1):
            key = (int(y0) * width + int(x0)) * size + int(y1) * width + int(x1)
            found = known.get(key)
            if found is None:
                found = known[key] = check(x0, y0, x1, y1)
            return found
        return smooth(self.walkable, width, self.height, tiles, clear)

    def _search(self, start: tuple[int, int], goal: tuple[int, int]):
        """The search behind ``path`` and ``route``: None when there is no path (a tile off the map, the goal
        blocked, the goal not reachable), else (the distances as a flat array, or None when the start is the goal;
        the start's flat index; the goal's)."""
        width, height = self.width, self.height
        sx, sy = start
        gx, gy = goal
        if not (0 <= gx < width and 0 <= gy < height and 0 <= sx < width and 0 <= sy < height):
            return None
        goal_i = gy * width + gx
        if not self.walkable[goal_i]:
            return None
        start_i = sy * width + sx
        if start_i == goal_i:
            return None, start_i, goal_i
        opened = -1 if self.walkable[start_i] else start_i
        entry = self._finder(opened, goal_i)
        flat = entry[2]
        if flat is None:
            entry[1] += 1
            finder = entry[0]
            if entry[1] < FULL_AFTER:
                finder.resolve((sy, sx))
                flat = finder.distance.ravel()
            else:                            # every tile's distance, once: later walkers need no search
                jit = self._compiled() if opened < 0 else None     # (a start shut in: tcod's graph opens it)
                if jit is not None:
                    flat = entry[2] = paths_jit.distances(jit[0], width, height, goal_i, jit[2][0])
                else:
                    finder.resolve(None)
                    flat = entry[2] = finder.distance.ravel()
        if flat[start_i] >= _UNSEEN:
            return None
        return flat, start_i, goal_i

    def path(self, start: tuple[int, int], goal: tuple[int, int], turn: int = 0) -> list[tuple[int, int]] | None:
        """``astar(walkable, width, height, start, goal, turn=turn)``."""
        if self._np is None:
            return astar(self.walkable, self.width, self.height, start, goal, turn=turn)
        found = self._search(start, goal)
        if found is None:
            return None
        flat, start_i, goal_i = found
        if flat is None:
            return [start]
        width = self.width
        jit = self._compiled()
        if jit is not None:
            return paths_jit.walk_back(flat, jit[0], width, start_i, goal_i, jit[2][turn % 4])
        dist = memoryview(flat)      # items read as Python ints (no numpy scalar arithmetic)
        return _walk_back(dist, self.walkable, width, start_i, goal_i, turn)

    def route(self, start: tuple[int, int], goal: tuple[int, int], turn: int = 0) -> list[tuple[float, float]] | None:
        """``waypoints(path(start, goal, turn))``, or None where there is no path; with the compiled loops the walk
        back and the smoothing run in one call, without the tile list between them."""
        jit = self._compiled()
        if jit is None:
            tiles = self.path(start, goal, turn)
            return None if tiles is None else self.waypoints(tiles)
        found = self._search(start, goal)
        if found is None:
            return None
        flat, start_i, goal_i = found
        if flat is None:
            return [(start[0] + 0.5, start[1] + 0.5)]
        if self._buf is None:
            self._buf = self._np.empty((4, len(self.walkable)), dtype=self._np.int64)
        return paths_jit.route(flat, jit[0], self.width, self.height, jit[1], start_i, goal_i, jit[2][turn % 4],
                               self._buf)


def jit_available() -> bool:
    """Whether ``PathGraph`` walks back and smooths with ``ai.paths_jit``'s compiled loops (``box_open`` and
    ``segment_clear`` compiled with them)."""
    return paths_jit.available(box_open, segment_clear)


def box_open(table, width: int, height: int, x0: float, y0: float, x1: float, y1: float) -> bool:
    """True when no tile of the box the two points' tiles span is blocked (a segment between them never leaves
    that box), read from ``table``, the summed-area table of blocked tiles ((height + 1) rows of (width + 1): lists
    or a 2-D array; ``PathGraph`` builds it). False says only that the box is not open.

    >>> table = PathGraph([c == "." for c in "...." ".##." "...."], 4, 3)._summed_table()
    >>> box_open(table, 4, 3, 0.5, 0.5, 3.5, 0.5), box_open(table, 4, 3, 0.5, 0.5, 3.5, 2.5)
    (True, False)
    """
    ax, bx = (x0, x1) if x0 <= x1 else (x1, x0)
    ay, by = (y0, y1) if y0 <= y1 else (y1, y0)
    ax, bx, ay, by = int(math.floor(ax)), int(math.floor(bx)), int(math.floor(ay)), int(math.floor(by))
    return 0 <= ax and bx < width and 0 <= ay and by < height and \
        table[by + 1][bx + 1] - table[ay][bx + 1] - table[by + 1][ax] + table[ay][ax] == 0


def segment_clear(walkable: list, width: int, height: int,
                  x0: float, y0: float, x1: float, y1: float) -> bool:
    """True when every tile the segment (x0,y0)-(x1,y1) passes through is walkable.

    Coordinates are continuous tile units (tile (i, j) spans [i, i+1) x [j, j+1)).
    Walks the exact tile sequence (Amanatides & Woo); where the segment passes
    through a tile corner both side tiles must be walkable (a corner on the map's
    edge is blocked). A pass within ``CORNER`` of a corner (as a fraction of the
    segment) counts as through it, and a segment that ends there ends in whichever
    side tile holds its end: where the tiles round the corner are open, two walks
    that are each other's mirror image, a rounding apart, get the same answer.

    >>> grid = [c == "." for c in "...." ".##." "...."]
    >>> segment_clear(grid, 4, 3, 0.5, 0.5, 3.5, 0.5), segment_clear(grid, 4, 3, 0.5, 0.5, 3.5, 2.5)
    (True, False)
    """
    tx = int(math.floor(x0))
    ty = int(math.floor(y0))
    ex = int(math.floor(x1))
    ey = int(math.floor(y1))
    if not (0 <= ex < width and 0 <= ey < height and 0 <= tx < width and 0 <= ty < height):
        return False
    dx = x1 - x0
    dy = y1 - y0
    step_x = 1 if dx > 0 else -1
    step_y = 1 if dy > 0 else -1
    t_dx = abs(1.0 / dx) if dx != 0 else math.inf
    t_dy = abs(1.0 / dy) if dy != 0 else math.inf
    if dx > 0:
        t_mx = (tx + 1 - x0) * t_dx
    elif dx < 0:
        t_mx = (x0 - tx) * t_dx
    else:
        t_mx = math.inf
    if dy > 0:
        t_my = (ty + 1 - y0) * t_dy
    elif dy < 0:
        t_my = (y0 - ty) * t_dy
    else:
        t_my = math.inf
    limit = abs(ex - tx) + abs(ey - ty) + 2
    for _ in range(limit * 2):
        if not walkable[ty * width + tx]:
            return False
        if tx == ex and ty == ey:
            return True
        if t_mx < t_my - CORNER:
            t_mx += t_dx
            tx += step_x
        elif t_my < t_mx - CORNER:
            t_my += t_dy
            ty += step_y
        else:  # through a corner (or within CORNER of one): both neighbours must be open
            nx = tx + step_x
            ny = ty + step_y
            if not (0 <= nx < width and 0 <= ny < height):
                return False  # a corner on the map's edge: the tile beyond it is off the map, as a wall
            if not (walkable[ty * width + nx] and walkable[ny * width + tx]):
                return False
            if (ty == ey and nx == ex) or (tx == ex and ny == ey):
                return True   # it ends in one of them, at the corner or within CORNER of it: no step past the end
            t_mx += t_dx
            t_my += t_dy
            tx += step_x
            ty += step_y
        if not (0 <= tx < width and 0 <= ty < height):
            return False
    return False


def smooth(walkable: list, width: int, height: int, path: list[tuple[int, int]],
           clear=None) -> list[tuple[float, float]]:
    """Tile path -> waypoints at tile centres, dropping those a straight walk can skip.

    The first and last points are always kept; from each kept point the walk goes to the farthest later point
    it reaches by a clear straight segment (``segment_clear``, or ``clear``: a function of (x0, y0, x1, y1)
    giving the same answers faster, as ``PathGraph.clear``).

    >>> grid = [c == "." for c in "...." ".##." "...."]
    >>> smooth(grid, 4, 3, astar(grid, 4, 3, (0, 0), (3, 2)))
    [(0.5, 0.5), (3.5, 0.5), (3.5, 2.5)]
    """
    if not path:
        return []
    if clear is None:
        def clear(x0, y0, x1, y1):
            return segment_clear(walkable, width, height, x0, y0, x1, y1)
    pts = [(x + 0.5, y + 0.5) for x, y in path]
    out = [pts[0]]
    i = 0
    last = len(pts) - 1
    while i < last:
        j = i + 1
        while j < last and clear(pts[i][0], pts[i][1], pts[j + 1][0], pts[j + 1][1]):
            j += 1
        out.append(pts[j])
        i = j
    return out


def bfs_distances(walkable: list, width: int, height: int, sources: list[tuple[int, int]]) -> list[int]:
    """4-connected breadth-first step distance from the nearest source; -1 where unreachable.

    Returns a flat row-major list; a source on a blocked tile is ignored.

    >>> grid = [c == "." for c in "...." ".##." "...."]
    >>> bfs_distances(grid, 4, 3, [(0, 0)])
    [0, 1, 2, 3, 1, -1, -1, 4, 2, 3, 4, 5]
    """
    dist = [-1] * (width * height)
    queue = deque()
    for x, y in sources:
        i = y * width + x
        if walkable[i] and dist[i] < 0:
            dist[i] = 0
            queue.append(i)
    while queue:
        cur = queue.popleft()
        cx = cur % width
        d = dist[cur] + 1
        for ni, ok in ((cur + 1, cx + 1 < width), (cur - 1, cx > 0),
                       (cur + width, cur + width < len(dist)), (cur - width, cur >= width)):
            if ok and walkable[ni] and dist[ni] < 0:
                dist[ni] = d
                queue.append(ni)
    return dist


def bfs_labels(walkable: list, width: int, height: int) -> list[int]:
    """Connected-area label per tile (4-connected walkable tiles share one; blocked tiles get -1).

    Labels are numbered in row-major order of each area's first tile, so they are the same every run.

    >>> grid = [c == "." for c in "..#.." "..#.."]     # a wall splits a 5 x 2 map in two
    >>> bfs_labels(grid, 5, 2)
    [0, 0, -1, 1, 1, 0, 0, -1, 1, 1]
    """
    labels = [-1] * (width * height)
    label = 0
    for start in range(width * height):
        if not walkable[start] or labels[start] >= 0:
            continue
        labels[start] = label
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            x = cur % width
            for nxt, ok in ((cur - 1, x > 0), (cur + 1, x < width - 1), (cur - width, cur >= width),
                            (cur + width, cur + width < width * height)):
                if ok and walkable[nxt] and labels[nxt] < 0:
                    labels[nxt] = label
                    queue.append(nxt)
        label += 1
    return labels
