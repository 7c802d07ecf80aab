"""Perception: the read-only fact snapshot an NPC's brain decides on (``FACTS`` below lists every fact).

Facts are computed on demand for the NPCs that think this tick, from the
world's per-tick team index (numpy arrays of positions), the nav grid and the
ledger's reservations. Line of sight is checked only for the few nearest
enemies in sight range. ``facts_batch`` does the numpy work for every NPC that
thinks in a tick at once (distance matrices in blocks: nearest enemies, allies
near, best free cover) and gives exactly the facts ``facts`` gives one by one. What an NPC remembers between decisions (its last
sighting, when it was last hurt, whether it scouted the enemy's ground) is
its ``Memory`` component; a team shares its latest sighting (``world.intel``).
Both are decider state: saved in snapshots, outside the sync hash.

Every value is a plain Python number, bool or string (never a numpy scalar),
so facts can go straight into ledger parameters and decision records.
"""
from __future__ import annotations

import math

from bisect import bisect_left
from operator import itemgetter

import esper
import numpy as np

from game import esper_rows
from game.economy import turned
from systems import perception_jit
from components import Ammo, Door, Health, Inventory, Memory, Pickup, Position, Squad, SquadOrder, Team, UnitKind, Weapon

INF = math.inf
_first = itemgetter(0)
LOS_CHECKS = 6            # enemies in sight range whose line of sight is checked, nearest first
ALLY_RADIUS = 6.0
DEFAULT_SIGHT = 10.0      # tiles: the sight of a unit kind the content does not list (the calm test reads it too)
COVER_RADIUS = 20.0
SEARCH_MEMORY = 15.0      # seconds a sighting stays worth searching
ARRIVED = 2.5             # tiles: close enough to a search point to call it checked
HURT_MEMORY = 2.0
SPREAD = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1), (2, 0), (-2, 0), (0, 2)]
AWAY_WEIGHT = 0.5         # cover score: my distance minus this times the enemy's distance to it (capped)
AWAY_CAP = 16.0
BLOCK = 256               # thinking NPCs per numpy block in facts_batch (bounds its matrices to BLOCK x units)
DOOR_PENALTY = 1.5       # tiles added to cover behind a door (opening it), plus the detour via a key if locked

# -- what perception produces: the facts a brain may read (content/catalog.py re-exports these) -------------------
# A fact is declared here, beside the code that computes it: adding one touches this file (and its test).
#: fact name -> (type, meaning)
FACTS: dict[str, tuple[str, str]] = {
    # the NPC itself
    "x": ("float", "own position, tiles from the left edge"),
    "y": ("float", "own position, tiles from the top edge"),
    "hp": ("float", "hit points left"),
    "hp_frac": ("float", "hit points left as a fraction of the maximum, 0..1"),
    "under_fire": ("bool", "lost hit points in the last 2 seconds"),
    "clip": ("int", "rounds in the clip"),
    "clip_size": ("int", "rounds a full clip holds"),
    "clip_empty": ("bool", "the clip is empty"),
    "reserve": ("int", "rounds carried besides the clip"),
    "has_reserve": ("bool", "carries rounds besides the clip"),
    "ammo_total": ("int", "clip plus reserve"),
    "has_ammo": ("bool", "the clip holds at least one round"),
    "weapon_range": ("float", "firing range in tiles"),
    "in_cover": ("bool", "standing on a cover tile"),
    "has_key": ("bool", "carries at least one key"),
    # enemies
    "enemy_visible": ("bool", "an enemy the team sees (fog of war) is within sight range with a clear line"),
    "enemies_visible": ("int", "how many enemies are visible"),
    "nearest_enemy": ("entity", "the nearest visible enemy (absent when none)"),
    "enemy_x": ("float", "the nearest visible enemy's x (absent when none)"),
    "enemy_y": ("float", "the nearest visible enemy's y (absent when none)"),
    "enemy_distance": ("float", "distance to the nearest visible enemy in tiles (inf when none)"),
    "enemy_in_range": ("bool", "the nearest visible enemy is within weapon range with a clear line of fire"),
    "enemy_hp_frac": ("float", "the nearest visible enemy's hit points as a fraction (absent when none)"),
    "allies_near": ("int", "living allies within 6 tiles"),
    "force_ratio": ("float", "(allies near + 1) / (allies near + 1 + enemies visible), 0..1"),
    # memory and search
    "seen_ago": ("float", "seconds since this NPC last saw an enemy (inf if never)"),
    "search_known": ("bool", "there is a place worth searching: a recent sighting (own or the team's) or unscouted enemy ground"),
    "search_x": ("float", "where to search (absent when nothing is known)"),
    "search_y": ("float", "where to search (absent when nothing is known)"),
    "search_distance": ("float", "distance to the search point (inf when none)"),
    # places and supplies
    "cover_known": ("bool", "a free cover tile within 20 tiles is reachable, now or through one door it can open"),
    "cover_x": ("int", "x of the best free cover tile (absent when none)"),
    "cover_y": ("int", "y of the best free cover tile (absent when none)"),
    "cover_distance": ("float", "distance to that cover tile (inf when none)"),
    "crate_known": ("bool", "an ammunition crate the NPC can walk to is lying on the map, not claimed"),
    "crate": ("entity", "the nearest such crate (absent when none)"),
    "crate_distance": ("float", "distance to that crate (inf when none)"),
    "key_known": ("bool", "a key the NPC can walk to is lying on the map, not claimed"),
    "key": ("entity", "the nearest such key (absent when none)"),
    "cover_behind_door": ("bool", "the best cover can only be reached by opening a closed or locked door"),
    "cover_door": ("entity", "that door (absent when the cover is not behind one)"),
    "cover_door_locked": ("bool", "that door is locked (false when there is no such door)"),
    # the commander's order for the NPC's squad
    "intent_known": ("bool", "the squad has an order from its commander"),
    "intent_kind": ("str", "the order: 'hold', 'move' or 'attack' (absent when none)"),
    "intent_x": ("float", "where the order sends this NPC (the region's centre, spread per NPC; absent when none)"),
    "intent_y": ("float", "where the order sends this NPC (absent when none)"),
    "intent_distance": ("float", "distance to that point (inf when there is no order)"),
}

#: target types a GOAP action may name: the host offers every such entity (with its distance) to the planner
TARGET_TYPES: dict[str, str] = {
    "crate": "ammunition crates lying on the map and not claimed by another unit",
    "key": "keys lying on the map and not claimed by another unit",
}


def best_cover(cover: np.ndarray, total: np.ndarray, x: float, y: float, turn: int) -> int:
    """The index of the lowest score of ``total`` (one per cover tile), scores compared to a millionth, ties broken
    on the tile's offset from (x, y) turned with the team's quarter (game.economy.turned), then on the index. The
    first minimum alone would be the first tile in row-major order, which a half turn reverses: mirror-image units
    would pick tiles that are not mirror images (issue 17, fair mirrors)."""
    i = int(np.argmin(total))
    if not np.isfinite(total[i]):
        return i
    ties = np.flatnonzero(total <= total[i] + 1e-6).tolist()
    if len(ties) == 1:
        return i
    return min(ties, key=lambda j: (turned(cover[j, 0] + 0.5 - x, cover[j, 1] + 0.5 - y, turn), j))


class CellIndex:
    """Points bucketed into square cells of side ``size``, to find the points near many query points at once.

    ``pairs(qx, qy)`` gives every (query, point) pair whose point lies in the 3 x 3 cells round the query's cell,
    as two index arrays, queries ascending and, per query, the cells row by row with each cell's points in their
    order in the arrays given: so every point within ``size`` of a query (and some farther ones) is paired with
    it, and the caller measures exactly. Memory and time grow with the pairs found, not with queries x points.

    >>> cells = CellIndex(np.array([0.5, 1.5, 9.5]), np.array([0.5, 0.5, 9.5]), 2.0)
    >>> q, j = cells.pairs(np.array([1.0, 9.0]), np.array([1.0, 9.0]))
    >>> q.tolist(), j.tolist()
    ([0, 0, 1], [0, 1, 2])
    """

    def __init__(self, xs: np.ndarray, ys: np.ndarray, size: float):
        self.size = size
        if len(xs) and xs.dtype == ys.dtype == np.float64 and perception_jit.available():
            # the same table in one compiled pass (a counting sort; float64 points, as the game's are: the numpy
            # path below divides float32 ones in float32)
            self.order, self.keys, self.starts, x0, y0, cols, rows = perception_jit.cell_table(xs, ys, size)
            self.x0, self.y0, self.cols, self.rows = int(x0), int(y0), int(cols), int(rows)
            return
        cx = np.floor(xs / size).astype(np.int64)
        cy = np.floor(ys / size).astype(np.int64)
        self.x0, self.y0 = (int(cx.min()), int(cy.min())) if len(cx) else (0, 0)
        self.cols = (int(cx.max()) - self.x0 + 3) if len(cx) else 1
        self.rows = (int(cy.max()) - self.y0 + 3) if len(cy) else 1
        key = (cy - self.y0 + 1) * self.cols + (cx - self.x0 + 1)
        self.order = np.argsort(key, kind="stable")
        self.keys = key[self.order]
        # where each cell's points start in ``order`` (cells row by row, one past the last): the compiled
        # queries' table (systems/perception_jit.py)
        self.starts = np.searchsorted(self.keys, np.arange(self.rows * self.cols + 1))

    def pairs(self, qx: np.ndarray, qy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(qx)
        cx = np.floor(qx / self.size).astype(np.int64) - self.x0 + 1
        cy = np.floor(qy / self.size).astype(np.int64) - self.y0 + 1
        los, counts = [], []
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                x, y = cx + dx, cy + dy
                key = np.where((x >= 0) & (x < self.cols) & (y >= 0), y * self.cols + x, -1)
                lo = np.searchsorted(self.keys, key, "left")
                hi = np.searchsorted(self.keys, key, "right")
                los.append(lo)
                counts.append(np.where(key >= 0, hi - lo, 0))
        lo = np.stack(los, axis=1).ravel()              # query-major: query 0's nine cells, then query 1's, ...
        count = np.stack(counts, axis=1).ravel()
        total = int(count.sum())
        q = np.repeat(np.repeat(np.arange(n, dtype=np.int64), 9), count)
        starts = np.repeat(lo - (np.cumsum(count) - count), count)
        j = self.order[starts + np.arange(total, dtype=np.int64)]
        return q, j


def _off_edge(v: float, own: float) -> float:
    """A scouting target's coordinate ``v`` moved half a tile further from ``own`` (its team's own ground) when it
    lies on a tile edge, else ``v``. ``int`` puts an edge on the tile after it, which a half turn maps to the tile
    before its image's edge: two mirror-image teams' targets would sit in different tiles of their rooms (on the
    garrison map one team's target was a door, the other's the floor beyond one). Away from its own ground both
    sides' targets are each other's images.

    >>> _off_edge(118.0, 39.0), _off_edge(39.0, 118.0), _off_edge(58.5, 57.5), _off_edge(40.0, 40.0)
    (118.5, 38.5, 58.5, 40.0)
    """
    if v != math.floor(v) or v == own:
        return v
    return v + 0.5 if v > own else v - 0.5


class Perception:
    """Static per-match data plus the fact builder; one per World (``world.perception``)."""

    def __init__(self, world):
        self.world = world
        nav = world.nav
        cover = [(i % nav.width, i // nav.width) for i, c in enumerate(nav.cover) if c]
        self.cover = np.array(cover, dtype=np.float64).reshape(-1, 2)
        # its columns as contiguous arrays (the compiled cover search was compiled for those: a strided column
        # view compiled a second version on the first tick)
        self._cover_x, self._cover_y = self.cover[:, 0].copy(), self.cover[:, 1].copy()
        self.cover_tiles = [(int(x), int(y)) for x, y in cover]
        self._cover_flat = np.array([y * nav.width + x for x, y in self.cover_tiles], dtype=np.int64)
        self.sight = {uid: float(u.sight) for uid, u in world.content.units.items()}
        # where each team's enemies started: the first place worth scouting
        spawns: dict[int, list] = {}
        for t, team in enumerate(world.scenario.teams):
            start = world.tilemap.starts[team.start] if team.start >= 0 else None
            spawns[t] = [((s.at or start)[0] + 0.5, (s.at or start)[1] + 0.5) for s in team.spawns]
        self._links_version = -1
        self._cover_tick = -1
        self._cells_tick = -1
        self._cells: dict = {}              # (team, other team, cell size) -> (xs, ys, their CellIndex), this tick
        self._cover_cells: CellIndex | None = None       # the cover tiles' cell index (they never move)
        self._cover_at: np.ndarray | None = None
        self._areas_arr = np.zeros(0, dtype=np.int64)
        self._labels = np.zeros(0, dtype=np.int64)     # the cover tiles' areas (``_areas``)
        self._areas_version = -1
        self._pickups_tick = -1
        self._pickups_version = -1
        self._orders_tick = -1
        self._orders_by: dict = {}
        self._slot_rows: list | None = None  # the (Team, Squad) rows the squads were grouped from, and by entity
        self._slot_by_id: dict = {}
        self._squad_keys: dict = {}         # (team, squad) -> its code; members sorted by (code, id); code bounds
        self._squad_codes = self._squad_ids = np.zeros(0, dtype=np.int64)
        self._squad_lists: dict = {}                # code -> its members' ids as a list, made when first asked
        self._squad_bounds: list = [0]
        self._links: list[tuple[int, str, frozenset]] = []
        self.enemy_ground: dict[int, tuple[float, float]] = {}
        perception_jit.available()          # loads (or compiles) its loops now, at set-up, not in the first tick
        for t in spawns:
            pts = [p for other, ps in spawns.items() if other != t for p in ps]
            if pts:
                gx, gy = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
                own = spawns[t]
                if own:     # on a tile edge: half a tile on, away from its own ground (``_off_edge``)
                    gx = _off_edge(gx, sum(p[0] for p in own) / len(own))
                    gy = _off_edge(gy, sum(p[1] for p in own) / len(own))
                self.enemy_ground[t] = (gx, gy)

    def facts_batch(self, eids: list[int], now: float, seen: dict | None = None) -> list[dict]:
        """``facts`` for every NPC of ``eids`` (ascending ids), in that order, with the numpy work done for all of
        them at once: the enemies each sees (``sightings``; ``seen`` may hold them already for some, by entity, as
        the calm test found them this tick); the allies near each (where Numba runs, a compiled loop over the cells
        instead of numpy pairs: ``systems.perception_jit``); and the best free cover tile for every NPC whose area
        has no shut door to weigh (the others are looked up one by one). The facts are exactly ``facts(eid, now)``'s
        (tests/test_batch_utility.py compares whole matches, tests/test_perception_jit.py both paths)."""
        world = self.world
        n = len(eids)
        if n == 0:
            return []
        xs, ys, teams, sights = self._where(eids)
        if seen:
            visible = [seen.get(eid) for eid in eids]
            rest = [i for i, v in enumerate(visible) if v is None]
            if rest:
                at = np.asarray(rest, dtype=np.int64)
                for i, v in zip(rest, self.sightings(xs[at], ys[at], teams[at], sights[at])):
                    visible[i] = v
        else:
            visible = self.sightings(xs, ys, teams, sights)
        jit = perception_jit.available()
        allies = np.zeros(n, dtype=np.int64)
        for team in sorted(set(teams.tolist())):
            rows = np.flatnonzero(teams == team)
            own = world.seen_index(team).get(team)
            if own is not None and len(own[0]):
                cells = CellIndex(own[1], own[2], ALLY_RADIUS + 1.0)
                if jit:                         # the same counts, without building the pairs
                    allies[rows] = perception_jit.count_within(cells, own[1], own[2], xs[rows], ys[rows],
                                                               ALLY_RADIUS * ALLY_RADIUS) - 1
                else:
                    for b in range(0, len(rows), BLOCK):
                        block = rows[b:b + BLOCK]
                        q, j = cells.pairs(xs[block], ys[block])
                        d2 = (own[1][j] - xs[block][q]) ** 2 + (own[2][j] - ys[block][q]) ** 2
                        allies[block] = np.bincount(q[d2 <= ALLY_RADIUS * ALLY_RADIUS], minlength=len(block)) - 1
        covers = self._cover_batch(eids, xs, ys, visible, teams)
        allies_l = allies.tolist()
        return [self.facts(eid, now, (visible[i], allies_l[i], covers[i])) for i, eid in enumerate(eids)]

    def _where(self, eids: list[int]) -> tuple:
        """(xs, ys, teams, sight ranges) of the units ``eids``, as arrays."""
        n = len(eids)
        xs = [0.0] * n                        # (lists filled here, made arrays once: not an array write per item)
        ys = [0.0] * n
        teams = [0] * n
        sights = [0.0] * n
        table = esper_rows.table()
        sight = self.sight
        for i, eid in enumerate(eids):
            comps = table[eid]
            pos = comps[Position]
            xs[i] = pos.x
            ys[i] = pos.y
            teams[i] = comps[Team].team
            sights[i] = sight.get(comps[UnitKind].kind, DEFAULT_SIGHT)
        return (np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64), np.array(teams, dtype=np.int64),
                np.array(sights, dtype=np.float64))

    def sightings(self, xs: np.ndarray, ys: np.ndarray, teams: np.ndarray, sights: np.ndarray) -> list[list]:
        """Per unit at these points, of these teams and sight ranges (``_where``'s arrays for NPCs in ascending id
        order): the enemies it sees now, as ``facts`` finds them (its ``enemy_*`` facts read the first):
        ``(squared distance, id, x, y)`` nearest first, ``_enemies_near``'s list. Reads only the world (positions,
        what each team sees, the grid), so it may be asked before any NPC of the tick decides.

        Per team, the enemies its team sees are put in cells once; each NPC's nearest ones in its sight range come
        from the cells round it (in blocks of ``BLOCK`` rows, so memory stays bounded; a compiled loop where Numba
        runs), and line of sight is then checked for at most ``LOS_CHECKS`` of them, as one at a time
        (``NavGrid.clear_lines``, one compiled loop for the block where Numba runs)."""
        world = self.world
        nav = world.nav
        n = len(xs)
        jit = perception_jit.available()
        visible: list[list] = [[] for _ in range(n)]
        for team in sorted(set(teams.tolist())):
            rows = np.flatnonzero(teams == team)
            for other, (ids, oxs, oys) in sorted(world.seen_index(team).items()):
                if not world.enemies(team, other) or len(ids) == 0:
                    continue
                cells = self._enemy_cells(team, other, oxs, oys, float(sights[rows].max()) + 1.0)
                for block in ((rows,) if jit else (rows[b:b + BLOCK] for b in range(0, len(rows), BLOCK))):
                    # (NPC row, enemy index, squared distance): each NPC's LOS_CHECKS nearest in sight range,
                    # nearest first, ties by entity id
                    if jit:
                        found, dist, count = perception_jit.nearest_within(
                            cells, oxs, oys, ids, xs[block], ys[block], sights[block] * sights[block], LOS_CHECKS)
                        keep = found >= 0
                        me, jj, dd2 = np.repeat(block, count), found[keep], dist[keep]
                    else:
                        q, j = cells.pairs(xs[block], ys[block])
                        d2 = (oxs[j] - xs[block][q]) ** 2 + (oys[j] - ys[block][q]) ** 2
                        inside = d2 <= (sights[block] * sights[block])[q]
                        q, j, d2 = q[inside], j[inside], d2[inside]
                        order = np.lexsort((ids[j], d2, q))
                        q, j, d2 = q[order], j[order], d2[order]
                        first = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if len(q) else q
                        rank = np.arange(len(q)) - np.repeat(first, np.diff(np.r_[first, len(q)]))
                        keep = rank < LOS_CHECKS
                        me, jj, dd2 = block[q[keep]], j[keep], d2[keep]
                    ex, ey = oxs[jj], oys[jj]
                    ok = np.array(nav.clear_lines(xs[me], ys[me], ex, ey), dtype=bool)
                    for i, e, dd, x, y in zip(me[ok].tolist(), ids[jj[ok]].tolist(), dd2[ok].tolist(),
                                              ex[ok].tolist(), ey[ok].tolist()):
                        visible[i].append((dd, e, x, y))
        for v in visible:
            v.sort()
        return visible

    def _enemy_cells(self, team: int, other: int, xs: np.ndarray, ys: np.ndarray, size: float) -> CellIndex:
        """The ``CellIndex`` of ``other``'s units as ``team`` sees them this tick (``xs``, ``ys``: its
        ``seen_index`` row), in cells of ``size``: made once a tick, for the calm test and the decisions alike (and
        again if that row is a new array: the index was built again within the tick)."""
        tick = self.world.tick
        if self._cells_tick != tick:
            self._cells = {}
            self._cells_tick = tick
        key = (team, other, size)
        kept = self._cells.get(key)
        if kept is not None and kept[0] is xs and kept[1] is ys:
            return kept[2]
        cells = CellIndex(xs, ys, size)             # (new arrays: the index was built again within the tick)
        self._cells[key] = (xs, ys, cells)
        return cells

    def _cover_batch(self, eids: list[int], xs: np.ndarray, ys: np.ndarray, visible: list, teams: np.ndarray) -> list:
        """Per NPC: the cover facts as ``_cover`` finds them, or None where ``_cover`` must look (the NPC stands
        on cover, is off the walkable areas, or a shut door borders its area)."""
        n = len(eids)
        out: list = [None] * n
        if not len(self.cover):
            return out
        world = self.world
        nav = world.nav
        labels, occupants, holders = self._cover_state()
        # the NPCs this search answers for, all at once: not on cover, on a walkable area, and no shut door borders
        # that area (``_doors_from`` would find one); ``int`` of each coordinate, toward zero
        tx = xs.astype(np.int64)
        ty = ys.astype(np.int64)
        inside = (tx >= 0) & (tx < nav.width) & (ty >= 0) & (ty < nav.height)
        tile = np.where(inside, ty * nav.width + tx, 0)
        here_all = np.where(inside, self._areas()[tile], -1)
        bordered = sorted({a for _door, _state, areas in self.door_links() if len(areas) > 1 for a in areas})
        ok = inside & (self._cover_at[tile] < 0) & (here_all >= 0) & ~np.isin(here_all, bordered)
        cand = np.flatnonzero(ok)
        if not len(cand):
            return out
        cand_here = here_all[cand]
        eid_arr = np.asarray(eids, dtype=np.int64)
        cx = self.cover[:, 0] + 0.5
        cy = self.cover[:, 1] + 0.5
        if self._cover_cells is None:
            self._cover_cells = CellIndex(cx, cy, COVER_RADIUS + 1.0)
        # each candidate's nearest visible enemy, whose distance to a tile counts in its score (none: 0, 0)
        away = [visible[i][0] if visible[i] else None for i in cand.tolist()]
        seen_c = np.array([a is not None for a in away], dtype=bool)
        ex_c = np.array([a[2] if a is not None else 0.0 for a in away])
        ey_c = np.array([a[3] if a is not None else 0.0 for a in away])
        if perception_jit.available():          # the same rule, tile by tile in a compiled loop, no pairs built
            pick, dist = perception_jit.best_cover(
                self._cover_cells, cx, cy, self._cover_x, self._cover_y, labels, occupants, holders,
                xs[cand], ys[cand], cand_here, eid_arr[cand], seen_c, ex_c, ey_c,
                np.asarray(world.turns, dtype=np.int64)[teams[cand]], COVER_RADIUS, AWAY_WEIGHT, AWAY_CAP)
            tiles = self.cover_tiles
            for i, k, d in zip(cand.tolist(), pick.tolist(), dist.tolist()):
                out[i] = () if k < 0 else (*tiles[k], d)
            return out
        occupied = occupants[:, 0] > 0
        crowded = occupants[:, 0] > 1
        held = holders != 0
        for b in range(0, len(cand), BLOCK):
            idx = cand[b:b + BLOCK]
            here = cand_here[b:b + BLOCK]
            me = eid_arr[idx]
            part = idx.tolist()
            px, py = xs[idx], ys[idx]
            # (NPC, cover tile) pairs in reach: the tiles in the 3 x 3 cells round each NPC, measured exactly
            q, j = self._cover_cells.pairs(px, py)
            d = np.hypot(cx[j] - px[q], cy[j] - py[q])
            keep = (d <= COVER_RADIUS) & (labels[j] == here[q]) & \
                ~((occupied[j] & (crowded[j] | (occupants[j, 1] != me[q]))) | (held[j] & (holders[j] != me[q])))
            q, j, d = q[keep], j[keep], d[keep]
            seen, ex, ey = seen_c[b:b + BLOCK], ex_c[b:b + BLOCK], ey_c[b:b + BLOCK]
            score = np.where(seen[q], d - AWAY_WEIGHT * np.minimum(np.hypot(cx[j] - ex[q], cy[j] - ey[q]), AWAY_CAP), d)
            # per NPC the lowest score (the lowest tile index among equal ones), and how many come within a
            # millionth of it: best_cover's rule, on the tiles in reach only (the others score infinity there)
            order = np.lexsort((j, score, q))
            q, j, d, score = q[order], j[order], d[order], score[order]
            first = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if len(q) else q
            size = np.diff(np.r_[first, len(q)])
            tie = score <= np.repeat(score[first] + 1e-6, size)
            ties = np.add.reduceat(tie, first).tolist() if len(q) else []
            for i in part:
                out[i] = ()
            for f, n_tie, r in zip(first.tolist(), ties, q[first].tolist()):
                i = part[r]
                k = f
                if n_tie > 1:
                    x, y, turn = float(xs[i]), float(ys[i]), world.turns[int(teams[i])]
                    k = min(range(f, f + n_tie), key=lambda t: (turned(self.cover[j[t], 0] + 0.5 - x,
                                                                       self.cover[j[t], 1] + 0.5 - y, turn), j[t]))
                ctx_, cty = self.cover_tiles[int(j[k])]
                out[i] = (ctx_, cty, float(d[k]))
        return out

    def facts(self, eid: int, now: float, pre: tuple | None = None) -> dict:
        world = self.world
        comps = esper_rows.table()[eid]             # the unit's components, read here without a call each
        pos = comps[Position]
        health = comps[Health]
        ammo = comps[Ammo]
        weapon = comps[Weapon]
        team = comps[Team].team
        mem = comps[Memory]
        kind = comps[UnitKind].kind
        inv = comps.get(Inventory)
        x, y = pos.x, pos.y
        nav = world.nav
        tx, ty = int(x), int(y)

        if mem.last_hp >= 0 and health.hp < mem.last_hp:
            mem.hurt_at = now
        mem.last_hp = health.hp
        clip, reserve = ammo.clip, ammo.reserve
        in_cover = nav.is_cover(tx, ty)
        f = {
            "x": x, "y": y, "hp": health.hp, "hp_frac": max(0.0, health.hp / health.max_hp),
            "under_fire": now - mem.hurt_at < HURT_MEMORY,
            "clip": clip, "clip_size": ammo.clip_size, "clip_empty": clip <= 0, "reserve": reserve,
            "has_reserve": reserve > 0,
            "ammo_total": clip + reserve, "has_ammo": clip > 0, "weapon_range": weapon.range,
            "in_cover": in_cover, "has_key": inv is not None and inv.keys > 0,
        }

        # -- enemies and allies ----------------------------------------------------------------------------
        if pre is not None:                       # facts_batch worked these out for every thinking NPC at once
            visible, allies, cover = pre
        else:
            visible, allies, cover = self._enemies_near(team, kind, x, y), None, None
        if allies is None:
            allies = 0
            own = world.seen_index(team).get(team)
            if own is not None and len(own[0]):
                _ids, axs, ays = own
                allies = int(np.count_nonzero((axs - x) ** 2 + (ays - y) ** 2 <= ALLY_RADIUS * ALLY_RADIUS)) - 1
        f["enemy_visible"] = bool(visible)
        f["enemies_visible"] = len(visible)
        f["allies_near"] = max(0, allies)
        f["force_ratio"] = (f["allies_near"] + 1) / (f["allies_near"] + 1 + len(visible))
        if visible:
            d2, enemy, ex, ey = visible[0]
            dist = math.sqrt(d2)
            ehealth = esper_rows.table()[enemy][Health]
            # (keys set one by one: a dict's update with keywords builds a dict of them first, per NPC)
            f["nearest_enemy"] = enemy
            f["enemy_x"] = ex
            f["enemy_y"] = ey
            f["enemy_distance"] = dist
            f["enemy_in_range"] = dist <= weapon.range
            f["enemy_hp_frac"] = max(0.0, ehealth.hp / ehealth.max_hp)
            mem.seen_x, mem.seen_y, mem.seen_at = ex, ey, now
            intel = world.intel[team]
            if not intel or intel[2] < now:
                world.intel[team] = [ex, ey, now]
        else:
            f["enemy_distance"] = INF
            f["enemy_in_range"] = False
        f["seen_ago"] = now - mem.seen_at if mem.seen_at > -1e8 else INF

        # -- where to search -------------------------------------------------------------------------------------
        target = None
        if not visible:
            intel = world.intel[team]
            if now - mem.seen_at < SEARCH_MEMORY:
                target = ("own", mem.seen_x, mem.seen_y)
            elif intel and now - intel[2] < SEARCH_MEMORY and intel[2] > mem.ignore_intel_before:
                target = ("team", intel[0], intel[1])
            elif not mem.recon_done and team in self.enemy_ground:
                gx, gy = self.enemy_ground[team]
                target = ("recon", gx, gy)
            if target is not None and math.hypot(target[1] - x, target[2] - y) <= ARRIVED:
                if target[0] == "own":
                    mem.seen_at = -1e9
                elif target[0] == "team":
                    mem.ignore_intel_before = intel[2]
                else:
                    mem.recon_done = True
                target = None
        f["search_known"] = target is not None
        if target is not None:
            f["search_x"] = float(target[1])
            f["search_y"] = float(target[2])
            f["search_distance"] = math.hypot(target[1] - x, target[2] - y)
        else:
            f["search_distance"] = INF

        # -- the squad's order ------------------------------------------------------------------------------------
        self._intent(f, eid, team, x, y, comps.get(Squad), mem)
        # -- cover ------------------------------------------------------------------------------------------------
        if cover is None:
            self._cover(f, eid, x, y, tx, ty, in_cover, visible)
        else:
            f["cover_behind_door"] = False
            f["cover_door_locked"] = False
            f["cover_known"] = False
            f["cover_distance"] = INF
            if cover:
                f["cover_known"] = True
                f["cover_x"] = cover[0]
                f["cover_y"] = cover[1]
                f["cover_distance"] = cover[2]
        # -- pickups ---------------------------------------------------------------------------------------------
        self._pickups(f, eid, x, y)
        return f

    def _enemies_near(self, team: int, kind: str, x: float, y: float) -> list:
        """(squared distance, id, x, y) of the enemies ``team`` sees within the unit's sight range with a clear
        line, nearest first; line of sight is checked for the ``LOS_CHECKS`` nearest of each enemy team."""
        world = self.world
        nav = world.nav
        index = world.seen_index(team)            # under fog of war: only the enemies the team sees now
        sight = self.sight.get(kind, DEFAULT_SIGHT)
        visible = []
        for other, (ids, xs, ys) in sorted(index.items()):
            if not world.enemies(team, other) or len(ids) == 0:
                continue
            d2 = (xs - x) ** 2 + (ys - y) ** 2
            near = np.flatnonzero(d2 <= sight * sight)
            if near.size:
                for i in near[np.lexsort((ids[near], d2[near]))][:LOS_CHECKS]:
                    ex, ey = float(xs[i]), float(ys[i])
                    if nav.clear_line(x, y, ex, ey):
                        visible.append((float(d2[i]), int(ids[i]), ex, ey))
        visible.sort()
        return visible

    def orders(self) -> dict:
        """(team, squad) -> SquadOrder, built once per tick."""
        if self._orders_tick != self.world.tick:
            self._orders_by = {(o.team, o.squad): o for _e, o in esper.get_component(SquadOrder)}
            self._orders_tick = self.world.tick
            rows = esper.get_components(Team, Squad)
            kept = self._slot_rows
            # the members of each squad by entity id (a unit's rank there is where it stands at the order), kept
            # until the rows change: when units only died (esper_rows hands out the survivors' rows unchanged) the
            # dead are taken out; when a unit came or was put in another squad (a new Squad component: nothing
            # changes a Team or Squad in place) they are grouped afresh
            dead = esper_rows.dead_since(rows, kept, self._slot_by_id)
            if dead == []:
                pass
            elif dead is not None:
                alive = esper_rows.survivors(self._squad_ids, dead)
                self._squad_rows(self._squad_codes[alive], self._squad_ids[alive])
                self._slot_rows = rows
            else:
                keys: dict = {}
                codes = [keys.setdefault((team.team, squad.squad), len(keys)) for _e, (team, squad) in rows]
                self._squad_keys = keys
                self._squad_rows(np.array(codes, dtype=np.int64), np.fromiter(map(_first, rows), np.int64, len(rows)))
                self._slot_rows = rows
                self._slot_by_id = dict(zip(map(_first, rows), rows))
        return self._orders_by

    def _squad_rows(self, codes: np.ndarray, ids: np.ndarray) -> None:
        order = np.lexsort((ids, codes))             # squad by squad, each by entity id
        self._squad_codes, self._squad_ids = codes[order], ids[order]
        self._squad_lists = {}
        n = len(self._squad_keys)
        self._squad_bounds = np.searchsorted(self._squad_codes, np.arange(n + 1)).tolist()

    def squad_rank(self, eid: int, team: int, squad: int) -> int:
        """The unit's rank in its squad by entity id (0 for the lowest id); valid after ``orders()`` this tick."""
        code = self._squad_keys.get((team, squad))
        if code is None:
            return 0
        members = self._squad_lists.get(code)
        if members is None:                          # a rank is a bisect, not a numpy call; only the squads asked
            lo, hi = self._squad_bounds[code], self._squad_bounds[code + 1]
            members = self._squad_lists[code] = self._squad_ids[lo:hi].tolist()
        return bisect_left(members, eid)

    def _intent(self, f: dict, eid: int, team: int, x: float, y: float, squad: Squad | None, mem: Memory) -> None:
        order = self.orders().get((team, squad.squad)) if squad is not None else None
        if order is not None:
            mem.order_seen = order.since          # perceived: the calm test waits for a newer one (systems/brains.py)
        if order is None or order.kind == "none":
            f["intent_known"] = False
            f["intent_distance"] = INF
            return
        # squad members spread over the tiles around the order's point instead of piling onto one
        nav = self.world.nav
        # by rank in the squad, turned with the team's home quarter: mirror-image squads spread as mirror images
        dx, dy = SPREAD[self.squad_rank(eid, team, squad.squad) % len(SPREAD)]
        for _ in range(self.world.turns[team]):
            dx, dy = -dy, dx
        ix, iy = order.x + dx, order.y + dy
        if not nav.is_walkable(int(ix), int(iy)):
            ix, iy = order.x, order.y
        f["intent_known"] = True
        f["intent_kind"] = order.kind
        f["intent_x"] = ix
        f["intent_y"] = iy
        f["intent_distance"] = math.hypot(ix - x, iy - y)

    def door_links(self) -> list[tuple[int, str, frozenset]]:
        """(door entity, state, walkable areas next to it) for every door that is not open; per door change."""
        nav = self.world.nav
        if self._links_version != nav.version:
            links = []
            for eid, door in sorted(esper.get_component(Door)):
                if door.state == "open":
                    continue
                areas = {nav.component(door.tx + dx, door.ty + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
                areas.discard(-1)
                links.append((eid, door.state, frozenset(areas)))
            self._links = links
            self._links_version = nav.version
        return self._links

    def _door_between(self, here: int, there: int) -> tuple[int, str] | None:
        for eid, state, areas in self.door_links():
            if here in areas and there in areas:
                return eid, state
        return None

    def _cover(self, f: dict, eid: int, x: float, y: float, tx: int, ty: int, in_cover: bool, visible) -> None:
        """The best free cover tile: reachable now, or behind one closed or locked door (with a penalty)."""
        world = self.world
        f["cover_behind_door"] = False
        f["cover_door_locked"] = False
        if in_cover:
            f.update(cover_known=True, cover_x=tx, cover_y=ty, cover_distance=0.0)
            return
        f["cover_known"] = False
        f["cover_distance"] = INF
        if not len(self.cover):
            return
        cx = self.cover[:, 0] + 0.5
        cy = self.cover[:, 1] + 0.5
        d = np.hypot(cx - x, cy - y)
        score = d.copy()
        if visible:                       # prefer cover away from the enemy: a hurt NPC falls back
            _d2, _e, ex, ey = visible[0]
            score -= AWAY_WEIGHT * np.minimum(np.hypot(cx - ex, cy - ey), AWAY_CAP)
        nav = world.nav
        here = nav.component(tx, ty)
        if here < 0:
            return
        labels, occupants, holders = self._cover_state()
        free = ~(((occupants[:, 0] > 0) & ((occupants[:, 0] > 1) | (occupants[:, 1] != eid))) |
                 ((holders != 0) & (holders != eid)))
        near = (d <= COVER_RADIUS) & free
        total = np.where(near & (labels == here), score, np.inf)
        door_of = {}
        for other, door in self._doors_from(here).items():
            behind = near & (labels == other)
            if not behind.any():
                continue
            if world.ledger.exclusive.get(("door", door[0])) not in (None, *self._mine(eid)):
                continue                          # another unit is already at that door
            extra = DOOR_PENALTY
            if door[1] == "locked" and not f["has_key"]:
                detour = self._key_detour(eid, x, y, door[0])
                if detour is None:
                    continue                      # no key in reach: that cover cannot be had
                extra += detour
            total = np.where(behind, np.minimum(total, score + extra), total)
            door_of[other] = door
        i = best_cover(self.cover, total, x, y, world.turns[esper.component_for_entity(eid, Team).team])
        if not np.isfinite(total[i]):
            return
        ctx_, cty = self.cover_tiles[i]
        f.update(cover_known=True, cover_x=ctx_, cover_y=cty, cover_distance=float(d[i]))
        door = door_of.get(int(labels[i])) if labels[i] != here else None
        if door is not None:
            f.update(cover_behind_door=True, cover_door=door[0], cover_door_locked=door[1] == "locked")

    def _areas(self) -> np.ndarray:
        """The walkable area of every tile (``NavGrid.component``, row-major, -1 where blocked), as an array kept until
        a door changes the grid."""
        nav = self.world.nav
        if self._areas_version != nav.version:
            self._areas_arr = np.array(nav.area_labels(), dtype=np.int64)
            self._labels = self._areas_arr[self._cover_flat]         # the cover tiles' areas, for _cover_state
            self._areas_version = nav.version
        return self._areas_arr

    def _cover_state(self):
        """Per cover tile, built once per tick: its walkable area, (how many units stand on it, one of them),
        and the unit holding it through an enter_cover action (0 if none)."""
        world = self.world
        nav = world.nav
        self._areas()                           # (the cover tiles' areas, kept per grid version)
        if self._cover_tick != world.tick:
            index = {t: i for i, t in enumerate(self.cover_tiles)}
            if self._cover_at is None:          # tile -> its cover index, -1 where the tile is not cover
                self._cover_at = np.full(nav.width * nav.height, -1, dtype=np.int64)
                for i, (x, y) in enumerate(self.cover_tiles):
                    self._cover_at[y * nav.width + x] = i
            occupants = np.zeros((len(self.cover_tiles), 2), dtype=np.int64)
            teams = list(world.team_index().values())
            if teams:
                ids = np.concatenate([t[0] for t in teams])
                tx = np.concatenate([t[1] for t in teams]).astype(np.int64)    # int() of each: toward zero
                ty = np.concatenate([t[2] for t in teams]).astype(np.int64)
                inside = (tx >= 0) & (tx < nav.width) & (ty >= 0) & (ty < nav.height)
                at = np.full(len(ids), -1, dtype=np.int64)
                at[inside] = self._cover_at[ty[inside] * nav.width + tx[inside]]
                on = np.flatnonzero(at >= 0)
                occupants[:, 0] = np.bincount(at[on], minlength=len(self.cover_tiles))
                last = np.full(len(self.cover_tiles), -1, dtype=np.int64)
                np.maximum.at(last, at[on], on)         # per tile the last unit on it in team, then id, order
                occupants[:, 1] = np.where(last >= 0, ids[last], 0)
            holders = np.zeros(len(self.cover_tiles), dtype=np.int64)
            ledger = world.ledger
            for key, aid in ledger.exclusive.items():
                if key[0] == "cover":
                    i = index.get((key[1], key[2]))
                    if i is not None:
                        holders[i] = ledger.actions[aid].actor
            self._occupants, self._holders = occupants, holders
            self._cover_tick = world.tick
        return self._labels, self._occupants, self._holders

    def _doors_from(self, here: int) -> dict:
        """Area -> (door, state) for the areas one shut door away from ``here``."""
        out = {}
        for eid, state, areas in self.door_links():
            if here in areas:
                for other in sorted(areas - {here}):
                    out.setdefault(other, (eid, state))
        return out

    def _mine(self, eid: int) -> tuple:
        action = self.world.ledger.current(eid)
        return (action.id,) if action is not None else ()

    def _key_detour(self, eid: int, x: float, y: float, door: int) -> float | None:
        """How much further it is to walk to the door by way of the nearest reachable key (None: no key)."""
        keys = self.targets(eid, "key")
        if not keys:
            return None
        d = esper.component_for_entity(door, Door)
        dx, dy = d.tx + 0.5, d.ty + 0.5
        key = esper.component_for_entity(keys[0][0], Pickup)
        kx, ky = key.tx + 0.5, key.ty + 0.5
        return max(0.0, keys[0][1] + math.hypot(kx - dx, ky - dy) - math.hypot(x - dx, y - dy))

    def targets(self, eid: int, kind: str) -> list[tuple[int, float]]:
        """Unclaimed pickups of a kind ('crate' = ammunition, 'key') the NPC can walk to, nearest first."""
        nav = self.world.nav
        items = self._pickups_now().get("ammo" if kind == "crate" else kind)
        if not items:                                 # none of that kind on the map (an army's map has none)
            return []
        pos = esper.component_for_entity(eid, Position)
        here = nav.component(int(pos.x), int(pos.y))
        if here < 0:
            return []
        out = [(pid, math.hypot(px - pos.x, py - pos.y))
               for pid, px, py, area, holder in items if area == here and holder in (0, eid)]
        out.sort(key=lambda t: (t[1], t[0]))
        return out

    def _pickups_now(self) -> dict:
        """kind -> [(pickup, x, y, walkable area, holder or 0)] of the pickups on the map, ascending id; built once
        per tick (and again when a door changes the areas)."""
        world = self.world
        nav = world.nav
        if self._pickups_tick != world.tick or self._pickups_version != nav.version:
            ledger = world.ledger
            by_kind: dict = {}
            for pid, pick in sorted(esper.get_component(Pickup)):
                holder = ledger.exclusive.get(("pickup", pid))
                by_kind.setdefault(pick.kind, []).append(
                    (pid, pick.tx + 0.5, pick.ty + 0.5, nav.component(pick.tx, pick.ty),
                     0 if holder is None else ledger.actions[holder].actor))
            self._pickups_by = by_kind
            self._pickups_tick = world.tick
            self._pickups_version = nav.version
        return self._pickups_by

    def _pickups(self, f: dict, eid: int, x: float, y: float) -> None:
        any_here = bool(self._pickups_now())          # none on the map (an army's): no lookups per NPC
        crates = self.targets(eid, "crate") if any_here else ()
        keys = self.targets(eid, "key") if any_here else ()
        f["crate_known"] = bool(crates)
        f["crate_distance"] = crates[0][1] if crates else INF
        if crates:
            f["crate"] = crates[0][0]
        f["key_known"] = bool(keys)
        if keys:
            f["key"] = keys[0][0]
