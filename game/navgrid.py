"""The walkability grid of a running match: static tiles, door states, buildings and resource fields.

Pathfinding reads ``walkable`` (a flat row-major list of bools, fast to index from Python). ``version`` is
bumped whenever any tile changes (so cached paths and areas know they are stale) and ``door_version`` whenever a
door does; both are world state (game/state.py), because walkers compare them with the versions they planned
under. A numpy view is available for vectorised consumers.

Changes are incremental: a door opening, a building placed or destroyed, a field mined out set just their tiles.
A unit walking somewhere plans again after a door change (a door can open a shorter way), but after a building
or a field only when the rest of its route is no longer clear (``route_clear``), so placing a building does not
make every walker on the map plan again.
"""
from __future__ import annotations

import math

import numpy as np

from ai.pathfinding import PathGraph, bfs_labels
from content.loader import TileMap
from content.tiles import LEGEND


#: a point this close to a tile edge is on the edge (``on_cover``)
EDGE = 1e-6


class NavGrid:
    def __init__(self, tilemap: TileMap):
        self.tilemap = tilemap
        self.width = tilemap.width
        self.height = tilemap.height
        tiles = [LEGEND[ch] for row in tilemap.rows for ch in row]
        self.walkable: list[bool] = [t.walkable for t in tiles]     # a door's row says whether it starts open
        self.cover: list[bool] = [t.cover for t in tiles]
        self.version = 0
        self.door_version = 0
        self.doors: set[int] = {i for i, t in enumerate(tiles) if t.door is not None}
        self._cache: dict[tuple, list | None] = {}
        self._labels: list[int] | None = None
        self._labels_version = -1
        self._graph: PathGraph | None = None    # the search over the grid as it is now (dropped on a change)

    # -- changes ---------------------------------------------------------------
    def set_door(self, tx: int, ty: int, state: str) -> None:
        i = ty * self.width + tx
        open_now = state == "open"
        if self.walkable[i] != open_now:
            self.walkable[i] = open_now
            self.version += 1
            self.door_version += 1
            self._cache.clear()
            self._graph = None

    def set_blocked(self, tiles, blocked: bool) -> None:
        """Block (a building placed) or free (a building destroyed, a field mined out) these tiles."""
        changed = False
        for tx, ty in tiles:
            i = ty * self.width + tx
            if self.walkable[i] == blocked:
                self.walkable[i] = not blocked
                changed = True
        if changed:
            self.version += 1
            self._cache.clear()
            self._graph = None

    def route_clear(self, x: float, y: float, path: list, index: int) -> bool:
        """Is the rest of a route still open: from (x, y) through the flat waypoints ``path`` from ``index`` on?"""
        px, py = x, y
        for i in range(index * 2, len(path) - 1, 2):
            if not self.clear_line(px, py, path[i], path[i + 1]):
                return False
            px, py = path[i], path[i + 1]
        return True

    # -- queries -------------------------------------------------------------
    def in_bounds(self, tx: int, ty: int) -> bool:
        return 0 <= tx < self.width and 0 <= ty < self.height

    def is_walkable(self, tx: int, ty: int) -> bool:
        return self.in_bounds(tx, ty) and self.walkable[ty * self.width + tx]

    def is_door(self, tx: int, ty: int) -> bool:
        return self.in_bounds(tx, ty) and ty * self.width + tx in self.doors

    def is_cover(self, tx: int, ty: int) -> bool:
        return self.in_bounds(tx, ty) and self.cover[ty * self.width + tx]

    def on_cover(self, x: float, y: float) -> bool:
        """Whether a unit standing at the point (x, y) is on cover. A point on a tile edge (within ``EDGE``: walks
        accumulate rounding) touches the tiles on both sides and counts if either is cover: ``int`` alone would put it on the tile after the edge, and a
        half turn maps that to the tile *before* the mirror image's edge, so mirror-image units standing on
        mirror-image edges would be judged differently (issue 17, fair mirrors)."""
        xs = {math.floor(x - EDGE), math.floor(x + EDGE)}
        ys = {math.floor(y - EDGE), math.floor(y + EDGE)}
        return any(self.is_cover(a, b) for a in xs for b in ys)

    def paths(self) -> PathGraph:
        """The path search and segment checks over the grid as it is now (built again after a change)."""
        if self._graph is None:
            self._graph = PathGraph(self.walkable, self.width, self.height)
        return self._graph

    def clear_line(self, x0: float, y0: float, x1: float, y1: float) -> bool:
        """``segment_clear`` on the grid as it is now (``PathGraph.clear``: the same answer, faster in the open)."""
        return self.paths().clear(x0, y0, x1, y1)

    def clear_lines(self, x0, y0, x1, y1) -> list[bool]:
        """``clear_line`` of many segments at once (``PathGraph.clear_many``: the same answers)."""
        return self.paths().clear_many(x0, y0, x1, y1)

    def find_path(self, start: tuple[int, int], goal: tuple[int, int]) -> list[tuple[float, float]] | None:
        """Smoothed waypoints (tile centres) from start tile to goal tile, or None. Cached per door state."""
        key = (start, goal)
        if key in self._cache:
            cached = self._cache[key]
            return None if cached is None else list(cached)
        # the neighbour order turned with the start's quarter of the map: mirror-image searches find mirror paths
        right, lower = start[0] * 2 + 1 >= self.width, start[1] * 2 + 1 >= self.height
        turn = (1 if right else 0) if not lower else (2 if right else 3)
        graph = self.paths()
        result = graph.route(start, goal, turn=turn)
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[key] = result
        return None if result is None else list(result)

    def component(self, tx: int, ty: int) -> int:
        """Label of the walkable area around (tx, ty) (-1 for a blocked tile); recomputed when a door changes.

        8-connected moves never cut corners, so 4-connected areas are exactly the sets A* can connect.
        """
        labels = self._labels if self._labels_version == self.version else self.area_labels()
        return labels[ty * self.width + tx] if self.in_bounds(tx, ty) else -1

    def area_labels(self) -> list[int]:
        """``component`` of every tile, row-major (the list kept until a door changes the grid: only read it)."""
        if self._labels_version != self.version:
            self._labels = bfs_labels(self.walkable, self.width, self.height)
            self._labels_version = self.version
        return self._labels

    def reachable(self, x: float, y: float, gx: int, gy: int) -> bool:
        """Can a unit at (x, y) walk to tile (gx, gy) with the doors as they are?"""
        tx, ty = int(x), int(y)
        goal = self.component(gx, gy)
        if goal < 0:
            return False
        start = self.component(tx, ty)
        if start >= 0:
            return start == goal
        return self.find_path((tx, ty), (gx, gy)) is not None   # standing on a blocked tile (a door that closed)

    def walkable_bits(self) -> bytes:
        return bytes(self.walkable)

    def as_array(self) -> np.ndarray:
        return np.array(self.walkable, dtype=bool).reshape(self.height, self.width)

