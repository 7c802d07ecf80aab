"""Cutting a tile map into regions: k-means with shortest-path distance (every step, tie and addition:
docs/rules/commander.md, section 1 "Regions").

1. k initial centres on walkable cells, drawn with a seeded RNG (every connected
   area gets at least one, in proportion to its size, so no area is left out);
2. every walkable cell joins the centre it reaches first by a multi-source
   breadth-first search (ties: the centre listed first), so a region is always
   connected: a wall never splits one;
3. each region's new centre is its medoid: the cell with the smallest summed
   path distance to the region's cells (distances inside the region);
4. repeat 2-3 until no centre moves (or an iteration cap).

Doors are boundaries: the search never grows a region through a door cell
(its state changes during a match, and a shut door would split the region),
so a room behind a door is its own area and region. Each door cell then joins
a neighbouring region, and the region graph records the adjacencies that pass
through door cells, so a caller can drop them while the door is shut. Results
are cached per (grid, doors, k, seed).

    >>> rows = ["....#....",
    ...         "....+....",                            # + is a door
    ...         "....#...."]
    >>> walk = [c != "#" for c in "".join(rows)]
    >>> cut = kmeans(walk, 9, 3, k=2, seed=1, doors=frozenset({13}))
    >>> cut.region_of(0, 0), cut.region_of(8, 2)         # the two rooms
    (0, 1)
    >>> cut.neighbours(0), cut.neighbours(0, passable=lambda door_cells: not door_cells)   # door open / shut
    ([1], [])
"""
from __future__ import annotations

import dataclasses

from collections import deque
from dataclasses import dataclass, field

import numpy as np

MAX_ITERATIONS = 50


@dataclass(frozen=True)
class Regions:
    """A map's cut: the region centres, a region label per cell, and the region graph.

    ``edges`` maps each adjacent pair ``(a, b)``, ``a < b``, to the door cells on their boundary (empty when
    some crossing avoids doors); ``sizes`` counts each region's cells; ``iterations`` is how many k-means
    rounds ran.

    >>> cut = kmeans([True] * 8, 4, 2, k=2, seed=0)      # an open 4 x 2 field
    >>> cut.k, cut.sizes, cut.edges
    (2, (4, 4), {(0, 1): frozenset()})
    """
    width: int
    height: int
    k: int
    centres: tuple[tuple[int, int], ...]          # (x, y) per region
    labels: tuple[int, ...]                       # region per cell (row-major), -1 where blocked
    edges: dict = field(default_factory=dict)     # (a, b) with a < b -> frozenset of door cells on the boundary
    sizes: tuple[int, ...] = ()
    iterations: int = 0
    half: int = 0                                 # a mirrored cut: region r's image is (r + half) % k; else 0
    by_columns: bool = False                      # a mirrored cut whose first half is in column-major order

    def __post_init__(self):
        # the labels as an array, for ``regions_of`` (not a field: equality and the cut's data are the fields')
        object.__setattr__(self, "_label_array", np.asarray(self.labels, dtype=np.int64))

    def tie_rank(self, flip: bool = False) -> tuple[int, ...]:
        """A tie-break order on regions that a mirrored cut's half turn keeps (region r and its image share
        ``r mod half``, the image after it; with ``flip``, the image first); plain region order for other cuts. A
        team whose home lies in the cut's second half passes ``flip``: then the two sides' orders are each other's
        images, also between a region and its own image, where one order for both would send both sides the
        same way (issue 17: both scripted commanders routed squads through the same middle region).

        >>> cut = kmeans_mirrored([True] * 12, 4, 3, k=4, seed=0)
        >>> cut.tie_rank(), cut.tie_rank(flip=True)
        ((0, 2, 1, 3), (1, 3, 0, 2))
        """
        if not self.half:
            return tuple(range(self.k))
        return tuple((r % self.half) * 2 + (r // self.half != flip) for r in range(self.k))

    def region_of(self, x: int, y: int) -> int:
        """The region of tile ``(x, y)``; -1 for a blocked tile or one off the map.

        >>> cut = kmeans([True, False, True, True], 2, 2, k=1)
        >>> cut.region_of(0, 0), cut.region_of(1, 0), cut.region_of(5, 5)
        (0, -1, -1)
        """
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.labels[y * self.width + x]
        return -1

    def regions_of(self, xs, ys) -> np.ndarray:
        """``region_of(int(x), int(y))`` for every point of the arrays ``xs`` and ``ys`` (tile units; ``int`` cuts
        toward zero, as a cast does): an int64 array, -1 for a blocked tile or one off the map.

        >>> cut = kmeans([True, False, True, True], 2, 2, k=1)
        >>> cut.regions_of(np.array([0.5, 1.9, 0.2, -0.5, 7.0]), np.array([0.5, 0.0, 1.99, 0.0, 0.0])).tolist()
        [0, -1, 0, 0, -1]
        """
        labels = self._label_array
        tx = np.asarray(xs, dtype=np.float64).astype(np.int64)
        ty = np.asarray(ys, dtype=np.float64).astype(np.int64)
        inside = (tx >= 0) & (tx < self.width) & (ty >= 0) & (ty < self.height)
        out = np.full(len(tx), -1, dtype=np.int64)
        out[inside] = labels[ty[inside] * self.width + tx[inside]]
        return out

    def neighbours(self, r: int, passable=None) -> list[int]:
        """Adjacent regions; ``passable(door_cells) -> bool`` can drop connections through shut doors.

        Returns region numbers in ascending order; ``passable`` is called for every edge of ``r`` (with an empty
        set for an edge that needs no door).

        >>> cut = kmeans([True] * 9, 9, 1, k=3, seed=0)    # a 9 x 1 corridor cut in three
        >>> cut.labels
        (0, 0, 0, 0, 1, 1, 1, 2, 2)
        >>> cut.neighbours(1)
        [0, 2]
        """
        out = []
        for (a, b), doors in self.edges.items():
            if r in (a, b) and (passable is None or passable(doors)):
                out.append(b if a == r else a)
        return sorted(out)

    def adjacency(self, passable=None) -> list[list[int]]:
        """``neighbours(r, passable)`` for every region ``r``: the region graph as adjacency lists.

        >>> kmeans([True] * 9, 9, 1, k=3, seed=0).adjacency()
        [[1], [0, 2], [1]]
        """
        return [self.neighbours(r, passable) for r in range(self.k)]


def _components(walk: list[bool], width: int, height: int) -> list[list[int]]:
    seen = [False] * len(walk)
    comps = []
    for start in range(len(walk)):
        if not walk[start] or seen[start]:
            continue
        seen[start] = True
        comp = [start]
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            x = cur % width
            for nxt, ok in ((cur - 1, x > 0), (cur + 1, x < width - 1), (cur - width, cur >= width),
                            (cur + width, cur + width < len(walk))):
                if ok and walk[nxt] and not seen[nxt]:
                    seen[nxt] = True
                    comp.append(nxt)
                    queue.append(nxt)
        comps.append(comp)
    return comps


def _assign(walk: list[bool], width: int, centres: list[int]) -> list[int]:
    """Multi-source BFS: each cell to the centre whose wave reaches it first (earlier centre on ties)."""
    labels = [-1] * len(walk)
    queue = deque()
    for i, c in enumerate(centres):
        labels[c] = i
        queue.append(c)
    n = len(walk)
    while queue:
        cur = queue.popleft()
        lab = labels[cur]
        x = cur % width
        for nxt, ok in ((cur - 1, x > 0), (cur + 1, x < width - 1), (cur - width, cur >= width),
                        (cur + width, cur + width < n)):
            if ok and walk[nxt] and labels[nxt] < 0:
                labels[nxt] = lab
                queue.append(nxt)
    return labels


#: sources whose BFS waves run together in one pass of ``_medoid`` (bits of a row; memory per pass:
#: region cells x MEDOID_BATCH / 8 bytes, twice)
MEDOID_BATCH = 4096


def _medoid(cells: list[int], width: int) -> int:
    """The cell of ``cells`` with the smallest summed BFS distance to all of them (moves inside the set only;
    ties: the cell listed first). Two ways to the same cell: a BFS per candidate cell, in the order of a lower
    bound on its sum and only while the bound lets it win (``_medoid_by_pruned_search``: a handful of BFS on open
    ground and on winding corridors, where the bounds are tight), or every BFS at once, bit-parallel in numpy
    (``_medoid_bits``: fast while the region is compact, whatever its shape). The pruned search runs first; on a
    compact region it hands over to the bit-parallel way once it has spent about what that way would cost.
    """
    n = len(cells)
    if n <= 2:
        return cells[0]
    index = {c: i for i, c in enumerate(cells)}
    adj = []
    for c in cells:
        x = c % width
        adj.append([j for nxt, ok in ((c - 1, x > 0), (c + 1, x < width - 1), (c - width, True), (c + width, True))
                    if ok and (j := index.get(nxt)) is not None])
    if sum(map(len, adj)) == 2 * (n - 1):               # a tree (a region is connected): every sum in one pass
        found = _medoid_of_tree(adj)
        if found is not None:
            return cells[found]
    at = np.array(cells, dtype=np.int64)
    xy = (at % width, at // width)
    ecc = _eccentricity(adj, 0)
    if ecc > SEARCH_ECCENTRICITY:
        return cells[_medoid_by_pruned_search(adj, xy=xy)]
    found = _medoid_by_pruned_search(adj, xy=xy, max_bfs=int(ecc * n * SEARCH_SHARE))
    return cells[found if found is not None else _medoid_bits(adj)]


#: the bit-parallel way costs about eccentricity x n x n/64 word operations, the per-cell search about n x n cell
#: visits (fewer when it stops early); measured, they cost the same on a one-tile winding corridor whose first
#: cell's eccentricity is about 1000, so past it the bit-parallel way is never tried (the pruned search, cheaper
#: still on such a corridor, runs to the end)
SEARCH_ECCENTRICITY = 1000
#: below that, the bit-parallel way costs about as much as eccentricity x n / 2000 of the pruned search's BFS
#: (measured at 160 x 120: an open field 19 s, 9 x 9 rooms 13 s, a maze with loops 24 s, against about 0.4 ms per
#: 1,000 cells a BFS); the search goes on while its candidates left are at most half of that
SEARCH_SHARE = 1 / 4000
#: BFS the pruned search runs before it judges from its best sum whether it will finish within its budget
PRUNE_GRACE = 32


def _medoid_of_tree(adj: list) -> int | None:
    """The first cell with the smallest summed distance in a tree (``adj`` connected, with n - 1 edges), in one
    pass: the sums from cell 0's depths, then each child's sum from its parent's, ``sum(parent) + n - 2 x size``
    (the child's subtree comes one step nearer, the rest one further). None when ``adj`` is no tree after all.

    >>> _medoid_of_tree([[1], [0, 2, 3], [1], [1]])        # a star: its centre
    1
    """
    n = len(adj)
    parent = [-1] * n
    depth = [0] * n
    order = [0]
    parent[0] = 0
    for u in order:
        for v in adj[u]:
            if parent[v] < 0:
                parent[v] = u
                depth[v] = depth[u] + 1
                order.append(v)
            elif v != parent[u]:
                return None                              # a cycle
    if len(order) != n:
        return None
    size = [1] * n
    for u in reversed(order[1:]):
        size[parent[u]] += size[u]
    total = [0] * n
    total[0] = sum(depth)
    for u in order[1:]:
        total[u] = total[parent[u]] + n - 2 * size[u]
    return min(range(n), key=total.__getitem__)


def _eccentricity(adj: list, s: int) -> int:
    """The largest BFS distance from ``s``.

    >>> _eccentricity([[1], [0, 2], [1]], 0), _eccentricity([[]], 0)
    (2, 0)
    """
    far = 0
    for far, _layer in _bfs_layers(adj, s):
        pass
    return far


def _medoid_by_search(adj: list) -> int:
    """One BFS per cell, each stopped as soon as its sum reaches the best so far (the first minimum wins)."""
    best_i, best_sum = 0, None
    for s in range(len(adj)):
        total = _summed_distance(adj, s, None if best_sum is None else best_sum - 1)
        if total is not None and (best_sum is None or total < best_sum):
            best_i, best_sum = s, total
    return best_i


def _summed_distance(adj: list, s: int, limit: int | None = None) -> int | None:
    """The sum of BFS distances from ``s`` to every cell, or None as soon as it is above ``limit`` (the search
    stops there: it cannot win any more).

    >>> _summed_distance([[1], [0, 2], [1]], 0), _summed_distance([[1], [0, 2], [1]], 0, limit=2)
    (3, None)
    """
    total = 0
    for d, layer in _bfs_layers(adj, s):
        total += d * len(layer)
        if limit is not None and total > limit:
            return None
    return total


def _distances(adj: list, s: int) -> list[int]:
    """BFS distances from ``s`` (the region is connected: every cell is reached)."""
    dist = [0] * len(adj)
    for d, layer in _bfs_layers(adj, s):
        for v in layer:
            dist[v] = d
    return dist


def _bfs_layers(adj: list, s: int):
    """Breadth-first from ``s``: yields (distance, the cells first reached at it) for distance 1, 2, ...

    >>> list(_bfs_layers([[1], [0, 2], [1]], 0))
    [(1, [1]), (2, [2])]
    """
    seen = [False] * len(adj)
    seen[s] = True
    frontier = [s]
    d = 0
    while frontier:
        d += 1
        nxt = []
        for u in frontier:
            for v in adj[u]:
                if not seen[v]:
                    seen[v] = True
                    nxt.append(v)
        if nxt:
            yield d, nxt
        frontier = nxt


def _pivot_bound(dist: np.ndarray) -> np.ndarray:
    """For every cell v, sum over cells w of |d(p, w) - d(p, v)| for the pivot p that ``dist`` is measured from:
    at most v's summed distance (the triangle inequality), exactly it on a corridor measured from its end.

    >>> _pivot_bound(np.array([0, 1, 2, 3])).tolist()
    [6, 4, 4, 6]
    """
    counts = np.bincount(dist).astype(np.int64)
    values = np.arange(len(counts), dtype=np.int64)
    c_le = np.cumsum(counts)
    s_le = np.cumsum(counts * values)
    per_value = values * c_le - s_le + (s_le[-1] - s_le) - values * (c_le[-1] - c_le)
    return per_value[dist]


def _medoid_by_pruned_search(adj: list, pivots: int = 3, xy: tuple | None = None,
                             max_bfs: int | None = None) -> int | None:
    """What ``_medoid_by_search`` finds (the first cell with the smallest summed distance), with one BFS per
    candidate only while a lower bound lets the candidate win.

    The bound is the largest of ``_pivot_bound`` over a few pivots (cell 0, then each time the cell farthest from
    the last pivot): exact on a one-tile corridor, within about the corridor's width per cell on a wider one; and,
    given the cells' columns and rows ``xy``, of the summed Manhattan distance (exact on open ground). The
    candidates are searched in the order of their bounds (then their index); the search stops once the next bound
    is above the best sum found, and each BFS stops once it cannot beat the best (a lower index wins a tie). A long
    winding region, where every cell's BFS has to visit most of the region, so costs a handful of BFS instead of
    one per cell; the worst case (a bound that prunes nothing) is the per-cell search's. With ``max_bfs``, None as
    soon as, after ``PRUNE_GRACE`` BFS, the candidates whose bounds are within the best sum found so far are more
    than that: so about ``max_bfs`` BFS at most, and ``PRUNE_GRACE`` wasted where the bounds are loose.
    """
    n = len(adj)
    if max_bfs is not None and max_bfs < 1:
        return None                                     # no budget (a small region): the bit-parallel way
    bound = np.zeros(n, dtype=np.int64)
    p = 0
    for _ in range(pivots):
        dist = np.array(_distances(adj, p), dtype=np.int64)
        np.maximum(bound, _pivot_bound(dist), out=bound)
        p = int(np.argmax(dist))                    # the first farthest cell
    if xy is not None:                              # the cells' columns and rows: the Manhattan sum is a bound too
        np.maximum(bound, _pivot_bound(xy[0]) + _pivot_bound(xy[1]), out=bound)
    order = np.lexsort((np.arange(n), bound))
    sorted_bound = bound[order]
    best_i, best_sum = n, None
    for searched, s in enumerate(order.tolist()):
        if best_sum is not None:
            if bound[s] > best_sum:
                break
            # every candidate whose bound is within the best sum so far may need its BFS: more than the budget
            # allows (once the first few BFS have brought the best sum down), and the caller takes the bit-parallel
            # way
            if max_bfs is not None and searched >= PRUNE_GRACE \
                    and int(np.searchsorted(sorted_bound, best_sum, "right")) > max_bfs:
                return None
        # a lower index wins a tie, so it may equal the best sum; a higher one must beat it
        limit = None if best_sum is None else (best_sum if s < best_i else best_sum - 1)
        total = _summed_distance(adj, s, limit)
        if total is not None and (best_sum is None or total < best_sum or (total == best_sum and s < best_i)):
            best_i, best_sum = s, total
    return best_i


def _medoid_bits(adj: list) -> int:
    """The index of the first cell with the smallest sum of BFS distances, every BFS at once.

    Every cell's BFS at once, bit-parallel: ``seen[v]`` holds one bit per source that has reached cell ``v``;
    one step ORs each cell's neighbours' rows. Distances are symmetric, so the sources newly reaching ``v`` at
    step ``d`` add ``d`` each to ``v``'s own sum. Exactly the sums a BFS per source gives, in
    O(cells x cells / 64) word operations per step.
    """
    n = len(adj)
    nbr = np.full((n, 4), n, dtype=np.intp)                 # n: a row of zeros past the end (no neighbour)
    for i, row in enumerate(adj):
        nbr[i, :len(row)] = row
    totals = np.zeros(n, dtype=np.int64)
    for lo in range(0, n, MEDOID_BATCH):
        hi = min(n, lo + MEDOID_BATCH)
        words = (hi - lo + 63) // 64
        seen = np.zeros((n + 1, words), dtype=np.uint64)
        src = np.arange(lo, hi)
        seen[src, (src - lo) // 64] = np.left_shift(np.uint64(1), ((src - lo) % 64).astype(np.uint64))
        frontier = seen.copy()
        d = 0
        while True:
            d += 1
            grown = frontier[nbr[:, 0]] | frontier[nbr[:, 1]] | frontier[nbr[:, 2]] | frontier[nbr[:, 3]]
            grown &= ~seen[:n]
            counts = np.bitwise_count(grown).sum(axis=1, dtype=np.int64)
            if not counts.any():
                break
            totals += d * counts
            seen[:n] |= grown
            frontier[:n] = grown
    return int(np.argmin(totals))


def kmeans(walk: list[bool], width: int, height: int, k: int, seed: int = 0,
           doors: frozenset = frozenset(), max_iterations: int = MAX_ITERATIONS) -> Regions:
    """k-means with path distance on a flat row-major walkability list; ``doors`` are door cells (boundaries,
    see above). Steps, ties and defaults: docs/rules/commander.md, "Regions".

    ``walk`` has ``width * height`` bools; ``k`` is the number of regions wanted (reduced to the number of
    walkable cells); ``seed`` seeds the initial centres; ``max_iterations`` caps the rounds. Raises
    ``ValueError`` when ``k < 1``, when no cell is walkable, or when ``k`` is below the number of separate
    walkable areas (each needs a region).

    >>> walk = [c == "." for c in ".....#....." ".....#....." "..........." ".....#....."]
    >>> cut = kmeans(walk, 11, 4, k=2, seed=1)
    >>> cut.centres, cut.sizes                        # each half of the map, centred on its medoid
    (((2, 1), (8, 2)), (20, 21))
    >>> kmeans([True, False, True], 3, 1, k=1)
    Traceback (most recent call last):
    ...
    ValueError: k = 1 is below the 2 separate walkable areas of the map
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    full = list(walk)
    for d in doors:
        full[d] = True
    walk = [w and i not in doors for i, w in enumerate(walk)]
    comps = _components(walk, width, height)
    total = sum(len(c) for c in comps)
    if total == 0:
        raise ValueError("the map has no walkable cell")
    if k < len(comps):
        raise ValueError(f"k = {k} is below the {len(comps)} separate walkable areas of the map")
    k = min(k, total)
    # centres per area: at least one each, the rest in proportion to size (largest remainders, stable order)
    share = [1] * len(comps)
    spare = k - len(comps)
    if spare:
        quota = [len(c) / total * spare for c in comps]
        extra = [min(int(q), len(c) - 1) for q, c in zip(quota, comps)]
        left = spare - sum(extra)
        for i in sorted(range(len(comps)), key=lambda i: (-(quota[i] - int(quota[i])), i)) * 2:
            if left <= 0:
                break
            if extra[i] < len(comps[i]) - 1:
                extra[i] += 1
                left -= 1
        share = [s + e for s, e in zip(share, extra)]
    rng = np.random.default_rng(seed)
    centres: list[int] = []
    for comp, n in zip(comps, share):
        picks = rng.choice(len(comp), size=n, replace=False)
        centres += [comp[int(i)] for i in sorted(picks)]
    iterations = 0
    medoids: dict = {}                              # a region's cells -> its medoid (the same cells, the same one)
    while True:
        labels = _assign(walk, width, centres)
        members: list[list[int]] = [[] for _ in centres]
        for cell, lab in enumerate(labels):
            if lab >= 0:
                members[lab].append(cell)
        new = []
        for m in members:                           # a region whose cells did not change keeps its medoid
            key = tuple(m)
            if key not in medoids:
                medoids[key] = _medoid(m, width)
            new.append(medoids[key])
        iterations += 1
        if new == centres or iterations >= max_iterations:
            centres = new
            labels = _assign(walk, width, centres)
            break
        centres = new
    return _finish(walk, width, centres, labels, doors, iterations)


def _finish(walk: list[bool], width: int, centres: list[int], labels: list[int], doors, iterations: int,
            label_doors: bool = True) -> Regions:
    """Doors join a region beside them (unless already labelled: ``label_doors`` False); then the region graph and
    sizes (steps 8-9 of the rules)."""
    n = len(walk)
    for d in sorted(doors) if label_doors else ():                         # a door joins the lowest-numbered region beside it
        x = d % width
        beside = [labels[c] for c, ok in ((d - 1, x > 0), (d + 1, x < width - 1), (d - width, d >= width),
                                           (d + width, d + width < n)) if ok and labels[c] >= 0 and walk[c]]
        if beside:
            labels[d] = min(beside)
    edges: dict = {}
    for cell, lab in enumerate(labels):
        if lab < 0:
            continue
        x = cell % width
        for nxt, ok in ((cell + 1, x < width - 1), (cell + width, cell + width < len(walk))):
            if ok and labels[nxt] >= 0 and labels[nxt] != lab:
                a, b = sorted((lab, labels[nxt]))
                door_cells = {c for c in (cell, nxt) if c in doors}
                prev = edges.get((a, b))
                # an adjacency is door-free if any of its crossings avoids doors
                if prev is None:
                    edges[(a, b)] = frozenset(door_cells) if door_cells else frozenset()
                elif prev and not door_cells:
                    edges[(a, b)] = frozenset()
                elif prev and door_cells:
                    edges[(a, b)] = prev | door_cells
    sizes = tuple(sum(1 for lab in labels if lab == i) for i in range(len(centres)))
    return Regions(width, len(walk) // width, len(centres), tuple((c % width, c // width) for c in centres), tuple(labels),
                   dict(sorted(edges.items())), sizes, iterations)


def is_point_symmetric(walk: list[bool], doors: frozenset = frozenset()) -> bool:
    """Whether the grid (walkable cells and doors) is its own image under a half turn about the map's centre.

    >>> is_point_symmetric([True, False, False, True]), is_point_symmetric([True, True, False, False])
    (True, False)
    """
    n = len(walk)
    return all(walk[i] == walk[n - 1 - i] for i in range(n)) and all(n - 1 - d in doors for d in doors)


def kmeans_mirrored(walk: list[bool], width: int, height: int, k: int, seed: int = 0,
                    doors: frozenset = frozenset(), max_iterations: int = MAX_ITERATIONS) -> Regions:
    """A cut of a point-symmetric map that is point-symmetric too (fair to both sides of a mirror match): ``kmeans``
    with ``k // 2`` regions on the first half of the cells in row-major order (cell ``i`` with ``i < n - 1 - i``),
    each region ``r`` of it mirrored as region ``r + k // 2`` on the other half. When that half holds more separate
    areas than ``k // 2`` (the middle line cuts through a row of rooms), the first half in column-major order is cut
    instead (``by_columns``: cell ``(x, y)`` at ``x * height + y``; the half turn maps that order onto itself too, so
    it also holds one cell of each image pair). Needs an even ``k`` and an even number of cells (no cell is its own
    image); raises ``ValueError`` otherwise, or when both halves hold more separate areas than ``k // 2``.

    >>> cut = kmeans_mirrored([True] * 12, 4, 3, k=4, seed=0)          # an open 4 x 3 field
    >>> [cut.labels[i] for i in range(12)] == [(cut.labels[11 - i] + 2) % 4 for i in range(12)]
    True
    >>> cut.centres[0], cut.centres[2]                                # centre r and r + k/2: images of each other
    ((1, 0), (2, 2))
    >>> rooms = [c != "#" for c in "....#...." "....#...." "....#...." "....#...."]   # two rooms of 4 x 4
    >>> cut = kmeans_mirrored(rooms, 9, 4, k=2)      # the middle row cuts both rooms: the columns' half holds one
    >>> cut.by_columns, cut.labels[0], cut.labels[35], cut.centres
    (True, 0, 1, ((1, 1), (7, 2)))
    """
    n = len(walk)
    if k % 2 or n % 2:
        raise ValueError("a mirrored cut needs an even k and an even number of cells")
    try:
        return _kmeans_half(walk, width, height, k // 2, seed, doors, max_iterations, by_columns=False)
    except ValueError:
        return _kmeans_half(walk, width, height, k // 2, seed, doors, max_iterations, by_columns=True)


def _kmeans_half(walk: list[bool], width: int, height: int, half_k: int, seed: int, doors: frozenset,
                 max_iterations: int, by_columns: bool) -> Regions:
    """``kmeans_mirrored`` on the half of the cells first in row-major (or column-major) order."""
    n = len(walk)
    if by_columns:
        order = [(i % width) * height + i // width for i in range(n)]
        first = [o < n - 1 - o for o in order]
    else:
        first = [i < n - 1 - i for i in range(n)]
    half = [w and f for w, f in zip(walk, first)]
    cut = kmeans(half, width, height, half_k, seed, frozenset(d for d in doors if first[d]), max_iterations)
    labels = list(cut.labels)
    for i in range(n):
        if not first[i]:
            j = n - 1 - i
            labels[i] = labels[j] + cut.k if labels[j] >= 0 else -1
    centres = [y * width + x for x, y in cut.centres]
    centres += [n - 1 - c for c in centres]
    out = _finish([w and i not in doors for i, w in enumerate(walk)], width, centres, labels, doors, cut.iterations,
                  label_doors=False)           # each half's doors were labelled in it (a min across halves is not fair)
    return dataclasses.replace(out, half=cut.k, by_columns=by_columns)    # (fewer cells than k // 2: cut.k of them)


_CACHE: dict = {}


def regions_for(walk: list[bool], width: int, height: int, k: int, seed: int = 0,
                doors: frozenset = frozenset(), mirrored: bool = False) -> Regions:
    """``kmeans`` (``kmeans_mirrored`` when ``mirrored``) cached per (grid, doors, k, seed): a map is cut once per
    process.

    >>> walk = [True] * 12
    >>> regions_for(walk, 4, 3, 2) is regions_for(walk, 4, 3, 2)
    True
    """
    key = (bytes(walk), width, height, k, seed, doors, mirrored)
    got = _CACHE.get(key)
    if got is None:
        got = (kmeans_mirrored if mirrored else kmeans)(walk, width, height, k, seed, doors)
        _CACHE[key] = got
    return got
