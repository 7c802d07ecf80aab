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


def astar(walkable: list, width: int, height: int, start: tuple[int, int], goal: tuple[int, int],
          max_expansions: int = 50_000, turn: int = 0) -> list[tuple[int, int]] | None:
    """Shortest 8-connected tile path from ``start`` to ``goal`` (both included).

    Returns None when the goal is unreachable, not walkable, or the expansion
    budget runs out. The start tile need not be walkable (a unit may stand in a
    doorway that just closed); every other tile of the path is.

    ``walkable`` is a flat row-major list of ``width * height`` bools; tiles are ``(x, y)``;
    ``max_expansions`` caps the tiles closed. ``turn`` (0-3) turns the neighbour order by that many quarter
    turns: where several shortest paths tie, a search and its mirror image on a symmetric map then pick mirror
    images of one path (a fixed order would favour one direction, and so one side).

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
    # neighbours as (index offset, dx, dy, cost); bounds are checked on x and y as before. The octile heuristic
    # is inlined (same arithmetic as ``octile``), closed tiles are a bytearray: the same search, fewer calls
    steps = tuple((dy * width + dx, dx, dy, cost) for dx, dy, cost in _STEPS_TURNED[turn % 4])
    inf = math.inf
    g = [inf] * (width * height)
    g[start_i] = 0.0
    parent = {start_i: -1}
    closed = bytearray(width * height)
    counter = 0
    k = SQRT2 - 2.0
    h0 = octile(sx, sy, gx, gy)
    heap = [(h0, h0, 0, start_i)]
    push = heapq.heappush
    pop = heapq.heappop
    expansions = 0
    while heap:
        _f, _h, _c, cur = pop(heap)
        if closed[cur]:
            continue
        if cur == goal_i:
            path = []
            while cur != -1:
                path.append((cur % width, cur // width))
                cur = parent[cur]
            path.reverse()
            return path
        closed[cur] = 1
        expansions += 1
        if expansions > max_expansions:
            return None
        cx = cur % width
        cy = cur // width
        gc = g[cur]
        for off, dx, dy, cost in steps:
            nx = cx + dx
            ny = cy + dy
            if nx < 0 or ny < 0 or nx >= width or ny >= height:
                continue
            ni = cur + off
            if not walkable[ni] or closed[ni]:
                continue
            if dx and dy and not (walkable[cur + dx] and walkable[cur + dy * width]):
                continue  # no squeezing diagonally past a wall corner
            ng = gc + cost
            if ng < g[ni]:
                g[ni] = ng
                parent[ni] = cur
                counter += 1
                ddx = nx - gx if nx > gx else gx - nx
                ddy = ny - gy if ny > gy else gy - ny
                h = (ddx + ddy) + k * (ddx if ddx < ddy else ddy)
                push(heap, (ng + h, h, counter, ni))
    return None


def segment_clear(walkable: list, width: int, height: int,
                  x0: float, y0: float, x1: float, y1: float) -> bool:
    """True when every tile the segment (x0,y0)-(x1,y1) passes through is walkable.

    Coordinates are continuous tile units (tile (i, j) spans [i, i+1) x [j, j+1)).
    Walks the exact tile sequence (Amanatides & Woo); where the segment passes
    exactly through a tile corner both side tiles must be walkable.

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
        if t_mx < t_my:
            t_mx += t_dx
            tx += step_x
        elif t_my < t_mx:
            t_my += t_dy
            ty += step_y
        else:  # through a corner: both neighbours must be open
            if not (walkable[ty * width + tx + step_x] and walkable[(ty + step_y) * width + tx]):
                return False
            t_mx += t_dx
            t_my += t_dy
            tx += step_x
            ty += step_y
        if not (0 <= tx < width and 0 <= ty < height):
            return False
    return False


def smooth(walkable: list, width: int, height: int, path: list[tuple[int, int]]) -> list[tuple[float, float]]:
    """Tile path -> waypoints at tile centres, dropping those a straight walk can skip.

    The first and last points are always kept; from each kept point the walk goes to the farthest later point
    it reaches by a clear straight segment (``segment_clear``).

    >>> grid = [c == "." for c in "...." ".##." "...."]
    >>> smooth(grid, 4, 3, astar(grid, 4, 3, (0, 0), (3, 2)))
    [(0.5, 0.5), (3.5, 0.5), (3.5, 2.5)]
    """
    if not path:
        return []
    pts = [(x + 0.5, y + 0.5) for x, y in path]
    out = [pts[0]]
    i = 0
    last = len(pts) - 1
    while i < last:
        j = i + 1
        while j < last and segment_clear(walkable, width, height, pts[i][0], pts[i][1], pts[j + 1][0], pts[j + 1][1]):
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
