"""Fog of war: what each team sees now, what it has explored, and what it remembers.

Every ``PERIOD`` ticks (systems/fog.py) each team's **visible** grid is recomputed from the sight of its units and
buildings: a tile is visible when it lies within a viewer's sight radius and no wall or shut door lies strictly
between the viewer's tile and it (resource fields and buildings do not block sight; a wall itself is seen).
**Explored** accumulates every tile ever visible. Each team also remembers, for the other sides:

- the **buildings** it has seen, as it last saw them (kind, footprint, hit points): a remembered building stays
  on the map until the team sees its ground again without it;
- the **units** it has seen, where and when it last saw them (kind, hit points): a memory fades after
  ``UNIT_MEMORY`` ticks, or as soon as the team sees the spot again without the unit.

This is world state (game/state.py: it is saved, hashed, and recomputed identically by a replay), because what a
decider may know is part of the rules: deciders read only this (``sees``, ``visible_units``,
``known_buildings``, ``remembered_units``), never the enemy's components directly.

Visibility is vectorised: for each (tile, radius) a viewer stands on, the flat indices of the tiles it sees are
computed once by casting rays over the opacity grid (numpy) and cached; a team's grid is one scatter of the
concatenated indices of its viewers. A door that opens or closes drops the cache.
"""
from __future__ import annotations

import math

import numpy as np

from content.tiles import LEGEND
from game import fog_jit

PERIOD = 6                 # ticks between updates (5 per second)
UNIT_MEMORY = 30 * 30      # ticks a remembered enemy unit stays remembered without being seen again
CACHE_LIMIT = 20_000       # (tile, radius) visibility masks kept
EDGE = 1e-6                # a point this close to a tile edge is on it
VIEWER = 1024              # a unit viewer's key: tile * VIEWER + sight radius (sight is capped below it)


def edge_tiles(v: float, size: int) -> set[int]:
    """The tile index (along one axis) of coordinate ``v``, or both when ``v`` lies on a tile edge (to a
    millionth): positions drift by float rounding, and a unit and its mirror image must see alike."""
    return {min(size - 1, max(0, int(math.floor(v - EDGE)))), min(size - 1, max(0, int(math.floor(v + EDGE))))}


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct values of a non-empty 1-d array, ascending: ``np.unique``'s answer, by a sort and a
    neighbour compare (numpy 2's hashing ``unique`` costs four times as much on the ~1,600 keys of an update).

    >>> _distinct(np.array([5, 1, 5, 3, 1])).tolist()
    [1, 3, 5]
    """
    ordered = np.sort(keys)
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


class Fog:
    """The fog state of one match (``world.fog``)."""

    def __init__(self, world, enabled: bool):
        self.world = world
        self.enabled = enabled
        tmap = world.tilemap
        self.width, self.height = tmap.width, tmap.height
        n = len(world.scenario.teams)
        size = self.width * self.height
        self.visible = [np.zeros(size, dtype=bool) for _ in range(n)]
        self.explored = [np.zeros(size, dtype=bool) for _ in range(n)]
        #: team -> {building entity: [team, kind, tx, ty, w, h, hp, max_hp]} as last seen
        self.buildings: list[dict[int, list]] = [{} for _ in range(n)]
        #: team -> {unit entity: [team, kind, x, y, hp, max_hp, tick seen]} as last seen
        self.units: list[dict[int, list]] = [{} for _ in range(n)]
        #: bumped whenever the grids change (views rebuild their fog texture only then)
        self.version = 0
        self._opaque = np.array([LEGEND[ch].name == "wall" for row in tmap.rows for ch in row], dtype=bool)
        self._opaque2d = self._opaque.reshape(self.height, self.width)
        self._doors_version = -1
        self._cache: dict[tuple[int, int], np.ndarray] = {}
        self._rays_cache: dict[int, tuple] = {}
        self._blocks_cache: dict[int, tuple] = {}
        self._foot_cache: tuple | None = None
        self._bstatic: dict[int, tuple] = {}       # building -> ((team, kind, tx, ty, w, h), its (tile, sight) viewers)
        self._standing: dict[int, tuple] = {}       # team -> (its buildings' viewers, the tiles they see)
        self._watch: dict[int, tuple] = {}          # team -> (its units' viewers, how many of them see each tile)
        if not enabled:
            for grid in self.visible + self.explored:
                grid[:] = True
        else:
            fog_jit.available()             # loads (or compiles) its loop now, at set-up, not in the first update

    # -- what deciders and views may read ------------------------------------------------------------------------
    def sees(self, team: int, x: float, y: float) -> bool:
        """Does ``team`` see the point (x, y) now? (Always, with fog off.) A point on a tile edge (to a millionth)
        is seen when a tile on either side is."""
        grid = self.visible[team]
        w = self.width
        for tx in edge_tiles(x, self.width):
            for ty in edge_tiles(y, self.height):
                if grid[ty * w + tx]:
                    return True
        return False

    def seen_mask(self, team: int, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """``sees`` for arrays of points at once."""
        return self.seen_at(team, self.corner_tiles(xs, ys))

    def corner_tiles(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """A (4, n) array of flat tile indices: the tiles each point lies in, nudged by ``EDGE`` both ways along
        both axes (the same tile four times for a point not on an edge). Any viewer's ``seen_at`` reads it, so
        it can be computed once per tick for every unit.

        >>> fog = Fog.__new__(Fog); fog.width, fog.height = 4, 3
        >>> fog.corner_tiles(np.array([1.5, 2.0]), np.array([0.5, 1.0])).T.tolist()
        [[1, 1, 1, 1], [1, 2, 5, 6]]
        """
        w, h = self.width, self.height
        nudge = np.array([[-EDGE], [EDGE]])
        txs = np.minimum(np.maximum(np.floor(xs + nudge), 0), w - 1).astype(np.int64)     # (2, n)
        tys = np.minimum(np.maximum(np.floor(ys + nudge), 0), h - 1).astype(np.int64) * w
        return (tys[:, None, :] + txs[None, :, :]).reshape(4, len(xs))

    def seen_at(self, team: int, corners: np.ndarray) -> np.ndarray:
        """Which points ``team`` sees now, from their ``corner_tiles``."""
        return self.visible[team][corners].any(axis=0)

    def grid(self, team: int, explored: bool = False) -> np.ndarray:
        """The team's visible (or explored) tiles as a (height, width) bool array (a view: do not write)."""
        flat = self.explored[team] if explored else self.visible[team]
        return flat.reshape(self.height, self.width)

    def known_buildings(self, team: int) -> dict[int, list]:
        """Enemy buildings as ``team`` last saw them: entity -> [team, kind, tx, ty, w, h, hp, max_hp]."""
        return self.buildings[team]

    def remembered_units(self, team: int) -> dict[int, list]:
        """Enemy units ``team`` remembers: entity -> [team, kind, x, y, hp, max_hp, tick last seen]."""
        return self.units[team]

    def hunt_point(self, team: int, x: float, y: float) -> tuple[float, float] | None:
        """Where a unit of ``team`` at (x, y) goes looking for the enemy when it sees none: the nearest enemy unit
        it remembers, else the nearest enemy building it knows, else the nearest enemy start (or spawn) it has not
        explored; a spot no unit can stand on (a start under its headquarters) gives the open tile nearest it. None
        when it knows of nothing left to look for."""
        world = self.world
        spots = [(row[2], row[3]) for row in self.units[team].values()]
        if not spots:
            spots = [(tx + w / 2, ty + h / 2) for _o, _k, tx, ty, w, h, _hp, _m in self.buildings[team].values()]
        if not spots:
            for other, tdef in enumerate(world.scenario.teams):
                if not world.enemies(team, other):
                    continue
                if tdef.start >= 0:
                    sx, sy = world.tilemap.starts[tdef.start]
                    spots.append((sx + 0.5, sy + 0.5))
                spots += [(s.at[0] + 0.5, s.at[1] + 0.5) for s in tdef.spawns if s.at is not None]
            unexplored = [p for p in spots if not self.explored[team][int(p[1]) * self.width + int(p[0])]]
            spots = unexplored or ([] if self.enabled else spots)
        if not spots:
            return None
        from game.economy import near_key, turned, walkable_near
        k = world.turns[team]
        spot = min(spots, key=lambda p: (near_key((p[0] - x) ** 2 + (p[1] - y) ** 2),)
                   + turned(round(p[0] - x, 6), round(p[1] - y, 6), k))
        if world.nav.is_walkable(int(spot[0]), int(spot[1])):
            return spot
        # a start under its headquarters, a building's centre: the open tile nearest it (else no move is taken)
        return walkable_near(world, spot[0], spot[1], k) or spot

    # -- the update ------------------------------------------------------------------------------------------
    def _sync_doors(self) -> None:
        nav = self.world.nav
        if self._doors_version == nav.door_version:
            return
        import esper
        from components import Door
        opaque = np.array([LEGEND[ch].name == "wall" for row in self.world.tilemap.rows for ch in row], dtype=bool)
        for _eid, door in esper.get_component(Door):
            if door.state != "open":
                opaque[door.ty * self.width + door.tx] = True
        self._opaque = opaque
        self._opaque2d = opaque.reshape(self.height, self.width)
        self._cache.clear()
        self._standing.clear()
        self._watch.clear()
        self._doors_version = nav.door_version

    def _rays(self, radius: int) -> tuple:
        """For a sight ``radius``, position-free: the disk's tile offsets (dx, dy) and, per offset, the offsets of
        the tiles its ray passes through (every sample point strictly between the two tile centres; a point on a
        tile edge counts the tiles on both sides) with a mask of those that can block (not the two end tiles),
        kept as the table of which rays each nearby offset blocks. Cached per radius."""
        rays = self._rays_cache.get(radius)
        if rays is not None:
            return rays
        r = radius
        dy, dx = np.mgrid[-r:r + 1, -r:r + 1]
        dx, dy = dx.ravel(), dy.ravel()
        near = dx * dx + dy * dy <= r * r + r        # the disk (a little round, as RTS sight circles are drawn)
        dx, dy = dx[near], dy[near]
        steps = max(2, 2 * r)
        t = (np.arange(1, steps) / steps)[None, :]        # points strictly between the two tile centres
        fx = 0.5 + dx[:, None].astype(np.float64) * t     # (relative to the viewer's tile: its index is integer,
        fy = 0.5 + dy[:, None].astype(np.float64) * t     # so floor(v + f) = v + floor(f) exactly)
        pxs, pys = [], []
        # a point exactly on a tile edge looks at the tiles on both sides (either blocks): plain floor() would
        # pick the one to its right or below, for a ray and for its mirror image alike (a side bias)
        for ex in (-1e-9, 1e-9):
            for ey in (-1e-9, 1e-9):
                pxs.append(np.floor(fx + ex).astype(np.int64))
                pys.append(np.floor(fy + ey).astype(np.int64))
        px, py = np.concatenate(pxs, axis=1), np.concatenate(pys, axis=1)
        can_block = ~(((px == 0) & (py == 0)) | ((px == dx[:, None]) & (py == dy[:, None])))
        # the same relation turned round: shadows[o, i] is True when an opaque tile at offset o blocks ray i, so a
        # viewer's mask needs only the few opaque tiles near it, not every sample of every ray
        side = 2 * r + 1
        shadows = np.zeros((side * side, len(dx)), dtype=bool)
        ray_of = np.broadcast_to(np.arange(len(dx))[:, None], px.shape)
        shadows[((py + r) * side + (px + r))[can_block], ray_of[can_block]] = True
        rays = (dx, dy, shadows)
        self._rays_cache[radius] = rays
        return rays

    def _blocks(self, radius: int) -> tuple[np.ndarray, np.ndarray]:
        """``_rays``' shadow table as lists: for each offset of the sight square (row by row), the rays an opaque
        tile there blocks (ascending), as (where each offset's list starts, the lists one after another)."""
        out = self._blocks_cache.get(radius)
        if out is None:
            shadows = self._rays(radius)[2]
            rows, rays = np.nonzero(shadows)
            out = self._blocks_cache[radius] = (np.searchsorted(rows, np.arange(len(shadows) + 1)).astype(np.int64),
                                                rays.astype(np.int64))
        return out

    def _add_sight(self, viewers, count: np.ndarray, delta: int) -> None:
        """Add ``delta`` to ``count`` at every tile of each viewer's mask (``tile * VIEWER + radius`` keys); where
        Numba runs, one compiled loop per radius makes the masks and adds them (game/fog_jit.py: the same tiles)."""
        if not fog_jit.available():
            for v in viewers:
                count[self._mask(v // VIEWER, v % VIEWER)] += delta       # (a mask lists each tile once)
            return
        by_radius: dict[int, list] = {}
        for v in viewers:
            by_radius.setdefault(v % VIEWER, []).append(v // VIEWER)
        opaque = self._opaque2d.view(np.uint8)
        for radius, tiles in sorted(by_radius.items()):
            dx, dy, _shadows = self._rays(radius)
            start, blocks = self._blocks(radius)
            fog_jit.add_sight(np.array(sorted(tiles), dtype=np.int64), radius, dx, dy, start, blocks, opaque,
                              self.width, self.height, count, delta)

    def _mask(self, tile: int, radius: int) -> np.ndarray:
        """Flat indices of the tiles a viewer on ``tile`` with sight ``radius`` sees (cached)."""
        key = (tile, radius)
        mask = self._cache.get(key)
        if mask is not None:
            return mask
        w, h = self.width, self.height
        vx, vy = tile % w, tile // w
        dx, dy, shadows = self._rays(radius)
        tx, ty = vx + dx, vy + dy
        ok = (tx >= 0) & (ty >= 0) & (tx < w) & (ty < h)
        # the opaque tiles within the sight square (all inside the map) and the rays each of them blocks
        x0, y0 = max(0, vx - radius), max(0, vy - radius)
        oy, ox = np.nonzero(self._opaque2d[y0:vy + radius + 1, x0:vx + radius + 1])
        if len(ox):
            side = 2 * radius + 1
            ok &= ~shadows[(oy + (y0 - vy + radius)) * side + (ox + (x0 - vx + radius))].any(axis=0)
        mask = (ty[ok] * w + tx[ok]).astype(np.int64)
        if len(self._cache) >= CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = mask
        return mask

    def _unit_sight(self, team: int, seen: set) -> np.ndarray:
        """How many of the team's distinct unit viewers (``tile * VIEWER + radius`` keys) see each flat tile:
        kept from the last update and changed by the viewers that left and came (between two updates most units
        keep their tile, or a few step one further), built afresh when more than half changed or the doors did.
        ``count > 0`` is the union of the viewers' masks, whichever way the count was reached."""
        kept = self._watch.get(team)
        if kept is not None:
            old, count = kept
            gone, came = old - seen, seen - old
            if len(gone) + len(came) <= len(seen) // 2:
                self._add_sight(gone, count, -1)
                self._add_sight(came, count, 1)
                self._watch[team] = (seen, count)
                return count
        size = self.width * self.height
        if seen and fog_jit.available():
            count = np.zeros(size, dtype=np.int64)
            self._add_sight(seen, count, 1)
        elif seen:
            count = np.bincount(np.concatenate([self._mask(v // VIEWER, v % VIEWER) for v in seen]), minlength=size)
        else:
            count = np.zeros(size, dtype=np.int64)
        self._watch[team] = (seen, count)
        return count

    def _standing_sight(self, team: int, seen: set) -> np.ndarray:
        """The flat tiles a team's buildings see: buildings seldom change, so the union of their masks is kept
        while the same (tile, radius) viewers stand (and the doors stay as they are)."""
        key = frozenset(seen)
        cached = self._standing.get(team)
        if cached is not None and cached[0] == key:
            return cached[1]
        tiles = np.unique(np.concatenate([self._mask(tile, r) for tile, r in seen]))
        self._standing[team] = (key, tiles)
        return tiles

    def _footprints(self, b_keys: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The flat tile indices of every building's footprint (clipped to the map), one building after another,
        where each building's run starts, and which buildings have a tile on the map at all (a building off it,
        which placing never makes, gets a run of one tile and is never in sight):
        ``np.logical_or.reduceat(grid[foot], starts) & on_map`` says which buildings have a tile in sight. Cached
        while the buildings' boxes stay the same."""
        boxes = tuple(key[2:6] for key in b_keys)
        cached = self._foot_cache
        if cached is not None and cached[0] == boxes:
            return cached[1]
        w, h = self.width, self.height
        runs, starts, on_map, at = [], [], [], 0
        for tx, ty, bw, bh in boxes:
            xs = np.arange(max(0, tx), min(tx + bw, w))
            ys = np.arange(max(0, ty), min(ty + bh, h))
            tiles = (ys[:, None] * w + xs[None, :]).ravel()
            on_map.append(bool(len(tiles)))
            runs.append(tiles if len(tiles) else np.zeros(1, dtype=np.int64))
            starts.append(at)
            at += len(runs[-1])
        foot = np.concatenate(runs).astype(np.int64) if runs else np.zeros(0, dtype=np.int64)
        out = (foot, np.array(starts, dtype=np.int64), np.array(on_map, dtype=bool))
        self._foot_cache = (boxes, out)
        return out

    def update(self) -> None:
        """Recompute every team's visible grid and memories from where its units and buildings are now."""
        if not self.enabled:
            return
        import esper
        from components import Building, Health, Position, Team, UnitKind
        world = self.world
        self._sync_doors()
        w = self.width
        units = world.content.units
        bdefs = world.content.buildings
        viewers: list[set] = [set() for _ in self.visible]       # per team: tile * VIEWER + sight
        b_viewers: list[set] = [set() for _ in self.visible]
        rows = sorted(esper.get_components(Team, Position, Health, UnitKind))
        n = len(rows)
        comps = [c for _e, c in rows]
        eids = [eid for eid, _c in rows]
        teams = [c[0].team for c in comps]
        kinds = [c[3].kind for c in comps]
        healths = [c[2] for c in comps]
        u_team = np.array(teams, dtype=np.int64)
        u_x = np.array([c[1].x for c in comps], dtype=np.float64)
        u_y = np.array([c[1].y for c in comps], dtype=np.float64)
        sight_of = {k: (int(math.ceil(units[k].sight)) if k in units else 8) for k in set(kinds)}
        u_sight = np.array([sight_of[k] for k in kinds], dtype=np.int64)
        # a unit on a tile edge (to a millionth) sees from the tiles on both sides (edge_tiles, vectorised); the
        # same corner tiles tell which units each team sees
        corners = self.corner_tiles(u_x, u_y)
        size = w * self.height
        if n:
            # one (team, tile, sight) key per distinct viewer, sorted, so each team's viewers are one run
            keys = _distinct(((u_team * size + corners) * VIEWER + u_sight).ravel())
            bounds = np.searchsorted(keys, np.arange(len(viewers) + 1) * (size * VIEWER)).tolist()
            keys = (keys % (size * VIEWER)).tolist()
            for team in range(len(viewers)):
                viewers[team] = set(keys[bounds[team]:bounds[team + 1]])
        tick = world.tick
        b_eid, b_team, b_health, b_keys = [], [], [], []
        statics, fresh = self._bstatic, {}
        for eid, (team, b, health) in sorted(esper.get_components(Team, Building, Health)):
            key = (team.team, b.kind, b.tx, b.ty, b.w, b.h)
            static = statics.get(eid)
            if static is None or static[0] != key:
                bdef = bdefs.get(b.kind)
                sight = int(math.ceil(bdef.sight)) if bdef is not None else 6
                # a building sees from its middle tile(s): all of them when a side is even, so a building and its
                # mirror image see mirror-image ground
                static = (key, tuple((cy * w + cx, sight) for cy in {b.ty + (b.h - 1) // 2, b.ty + b.h // 2}
                                     for cx in {b.tx + (b.w - 1) // 2, b.tx + b.w // 2}))
            fresh[eid] = static
            b_viewers[team.team].update(static[1])
            b_eid.append(eid)
            b_team.append(team.team)
            b_keys.append(key)
            b_health.append(health)
        self._bstatic = fresh
        foot, starts, on_map = self._footprints(b_keys)
        sides = world.sides
        side_arr = np.array(sides, dtype=np.int64)
        u_side = side_arr[u_team]
        b_side = side_arr[np.array(b_team, dtype=np.int64)]
        # each team's visible grid and explored ground, and the enemy units it spots
        spotted_by = []
        for team, seen in enumerate(viewers):
            grid = self.visible[team]
            np.greater(self._unit_sight(team, seen), 0, out=grid)
            if b_viewers[team]:
                grid[self._standing_sight(team, b_viewers[team])] = True
            self.explored[team] |= grid
            others = np.flatnonzero(u_side != sides[team])
            spotted_by.append(others[self.seen_at(team, corners[:, others])].tolist())
        # one memory row per spotted unit, shared by every team that sees it (rows are replaced, never changed in
        # place)
        xs, ys = u_x.tolist(), u_y.tolist()
        unit_rows = {i: [teams[i], kinds[i], xs[i], ys[i], healths[i].hp, healths[i].max_hp, tick]
                     for i in set().union(*spotted_by)}
        # what each team sees of the other sides, and what it forgets: a remembered unit out of sight now is
        # forgotten once its memory is too old or the spot it is remembered at is in sight (every team's
        # remembered spots read at once)
        stale_by, last = [], []
        for team, spotted in enumerate(spotted_by):
            memory = self.units[team]
            spotted_eids = [eids[i] for i in spotted]
            memory.update(zip(spotted_eids, [unit_rows[i] for i in spotted]))
            stale = list(memory.keys() - spotted_eids)                # (which, not in what order)
            stale_by.append(stale)
            last += [memory[e] for e in stale]
        if last:
            spots = self.corner_tiles(np.array([row[2] for row in last], dtype=np.float64),
                                      np.array([row[3] for row in last], dtype=np.float64))
            too_old = tick - np.array([row[6] for row in last], dtype=np.int64) > UNIT_MEMORY
            at = 0
            for team, stale in enumerate(stale_by):
                part = slice(at, at + len(stale))
                at += len(stale)
                forget = too_old[part] | self.visible[team][spots[:, part]].any(axis=0)
                memory = self.units[team]
                for i in np.flatnonzero(forget).tolist():
                    del memory[stale[i]]
        present = set(b_eid)
        b_rows: dict[int, list] = {}
        for team in range(len(spotted_by)):
            grid = self.visible[team]
            known = self.buildings[team]
            if b_eid:
                # an enemy building is in sight when any tile of its footprint is: remembered as it is now (one
                # row per building, shared by the teams that see it)
                in_sight = np.logical_or.reduceat(grid[foot], starts) & on_map & (b_side != sides[team])
                for i in np.flatnonzero(in_sight).tolist():
                    row = b_rows.get(i)
                    if row is None:
                        row = b_rows[i] = [*b_keys[i], b_health[i].hp, b_health[i].max_hp]
                    known[b_eid[i]] = row
            square = grid.reshape(self.height, w)
            for eid in [eid for eid in known if eid not in present]:
                _o, _k, tx, ty, bw, bh, _hp, _m = known[eid]
                if square[ty:ty + bh, tx:tx + bw].any():
                    del known[eid]                       # its ground is seen, and it is not there: gone
        self.version += 1

    # -- world state ---------------------------------------------------------------------------------------------
    def state(self) -> list:
        """[enabled, per team: [visible bits, explored bits, buildings rows, units rows]] (game/state.py)."""
        out = []
        for team in range(len(self.visible)):
            out.append([np.packbits(self.visible[team]).tobytes(), np.packbits(self.explored[team]).tobytes(),
                         [[eid] + row for eid, row in sorted(self.buildings[team].items())],
                         [[eid] + row for eid, row in sorted(self.units[team].items())]])
        return [self.enabled, out]

    def restore(self, state) -> None:
        """Load ``state()`` output; ValueError on anything malformed."""
        if not (isinstance(state, list) and len(state) == 2 and type(state[0]) is bool and isinstance(state[1], list)
                and len(state[1]) == len(self.visible)):
            raise ValueError("fog state is malformed")
        if state[0] != self.enabled:
            raise ValueError("fog state says fog is " + ("on" if state[0] else "off") + ", the scenario otherwise")
        size = self.width * self.height
        nbytes = (size + 7) // 8
        for team, part in enumerate(state[1]):
            if not (isinstance(part, list) and len(part) == 4 and isinstance(part[0], bytes) and
                    isinstance(part[1], bytes) and len(part[0]) == nbytes and len(part[1]) == nbytes and
                    isinstance(part[2], list) and isinstance(part[3], list)):
                raise ValueError(f"fog state of team {team} is malformed")
            self.visible[team] = np.unpackbits(np.frombuffer(part[0], dtype=np.uint8))[:size].astype(bool)
            self.explored[team] = np.unpackbits(np.frombuffer(part[1], dtype=np.uint8))[:size].astype(bool)
            buildings, units = {}, {}
            for row in part[2]:
                if not (isinstance(row, list) and len(row) == 9 and all(type(v) is int for v in row[:2])
                        and isinstance(row[2], str) and all(type(v) is int for v in row[3:7])
                        and all(type(v) is float for v in row[7:])):
                    raise ValueError(f"a remembered building of team {team} is malformed")
                buildings[row[0]] = row[1:]
            for row in part[3]:
                if not (isinstance(row, list) and len(row) == 8 and all(type(v) is int for v in row[:2])
                        and isinstance(row[2], str) and all(type(v) is float for v in row[3:7])
                        and type(row[7]) is int):
                    raise ValueError(f"a remembered unit of team {team} is malformed")
                units[row[0]] = row[1:]
            self.buildings[team], self.units[team] = buildings, units
        self.version += 1
