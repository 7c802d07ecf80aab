"""One match: an esper world context plus the host state around it.

esper keeps worlds as module-global named contexts; each ``World`` owns one
context (a unique name) and switches to it before touching components, so a
process can hold several matches (tests, tournaments) side by side.
Everything that decides the next state lives here or in components: the tick
counter, the seeded RNG, the door-aware nav grid and the ledger. No wall-clock
time is read anywhere in the simulation.
"""
from __future__ import annotations

import itertools
from operator import attrgetter, itemgetter

import esper
import numpy as np

from ai.records import DecisionLog
from components import Building, Controller, Health, Position, Team, UnitKind
from game import esper_rows, fog_jit, victory
from game.fog import EDGE, Fog
from content.loader import Content
from game import TICK_HZ
from game.ledger import Ledger
from game.navgrid import NavGrid

esper_rows.install()          # esper's query rebuilds, same rows, a few times faster (game/esper_rows.py)

#: decision records kept per decider in memory (replays keep every one): many small objects cost the GC
RING = 16

_world_ids = itertools.count(1)
_get_x, _get_y = attrgetter("x"), attrgetter("y")      # a position's coordinates (team_index reads thousands a tick)


class World:
    def __init__(self, content: Content, scenario_id: str, seed: int, *, populate: bool = True,
                 controllers: dict[int, str] | None = None, commanders: dict[int, str] | None = None,
                 strategies: dict[int, str] | None = None, difficulties: dict[int, str] | None = None):
        from game.scenario import populate as populate_world
        from systems.actions import build_executors
        from systems.pipeline import build_processors
        from systems.perception import Perception

        if scenario_id not in content.scenarios:
            raise KeyError(scenario_id)
        self.closed = False         # set by ``close`` (which also cuts the parts' links back to the world)
        self.content = content
        self.scenario = content.scenarios[scenario_id]
        self.scenario_id = scenario_id
        self.tilemap = content.maps[self.scenario.map]
        self.seed = int(seed)
        self.rng = np.random.Generator(np.random.PCG64(self.seed))
        self.hz = TICK_HZ
        self.dt = 1.0 / TICK_HZ
        self.tick = 0
        self.max_ticks = self.scenario.max_ticks
        #: team index -> controller ('scripted', 'player', 'idle'); overrides the scenario
        self.controllers = [t.ai for t in self.scenario.teams]
        for team, ai in (controllers or {}).items():
            self.controllers[team] = ai
        #: team index -> commander profile id ('' = none); overrides the scenario
        self.commanders = [t.commander for t in self.scenario.teams]
        for team, name in (commanders or {}).items():
            if name and name not in content.commanders:
                raise KeyError(name)
            self.commanders[team] = name
        #: team index -> strategy profile id ('' = none); overrides the scenario
        self.strategies = [t.strategy for t in self.scenario.teams]
        for team, name in (strategies or {}).items():
            if name and name not in content.strategies:
                raise KeyError(name)
            self.strategies[team] = name
        #: team index -> difficulty level id ('' = none: the scenario's and profiles' own settings); a level
        #: (content/difficulties/) overrides the team's commander and, where a strategy runs it, its strategy
        self.difficulties = [""] * len(self.scenario.teams)
        #: team index -> how many times less often its units, brains and strategy decide (a slower reaction)
        self.think_every = [1] * len(self.scenario.teams)
        #: team index -> what its workers' deliveries are multiplied by
        self.income = [1.0] * len(self.scenario.teams)
        for team, level in sorted((difficulties or {}).items()):
            if not level:
                continue
            ddef = content.difficulties.get(level)
            if ddef is None:
                raise KeyError(level)
            self.difficulties[team] = level
            if ddef.commander and not self.strategies[team]:
                self.commanders[team] = ddef.commander
            if ddef.strategy and self.strategies[team]:
                self.strategies[team] = ddef.strategy
            self.think_every[team] = ddef.think_every
            self.income[team] = ddef.income
        self.nav = NavGrid(self.tilemap)
        self.ledger = Ledger(build_executors())
        #: entities whose Mover stopped since the ActionSystem last looked (the movers, ``halt``): it passes over
        #: walks on a current route without reading them, and this says which of them to read again (derived:
        #: not world state)
        self.stopped_movers: set[int] = set()
        #: entities whose brain the inbox woke since the BrainSystem last looked (``BrainInboxSystem``): it keeps
        #: which NPCs must decide at once between ticks instead of reading every brain (derived: not world state;
        #: a snapshot's brains keep their wake flags, read in full when the ranks are counted)
        self.woken_brains: list[int] = []
        #: k -> the map cut into k regions (systems/commander.py; static per map)
        self.region_cuts: dict = {}
        #: [tick, content hash] for every hot reload applied to this match (game/hotreload.py)
        self.content_changes: list[list] = []
        #: each team's latest enemy sighting [x, y, game seconds] shared by its NPCs (decider state)
        self.intel: list[list] = [[] for _ in self.scenario.teams]
        #: what each team sees, has explored and remembers (game/fog.py); world state
        self.fog = Fog(self, self.scenario.fog)
        #: what each NPC perceives (facts for its brain), built on demand for the NPCs that decide
        self.perception = Perception(self)
        #: every decider's recent decision records (ai.records), and this tick's for a replay recorder
        self.decisions = DecisionLog(RING)
        #: team -> its planned strategy's posture and plan (systems/strategy_planned.py; decider state)
        self.strategy_plans: dict = {}
        #: each team's side (teams on one side are allies), by team index
        self.sides = victory.sides(self)
        #: teams whose units a strategy profile runs (systems/strategy.py), not the scripted attack-nearest AI
        self.strategic_teams = frozenset(t for t, name in enumerate(self.strategies)
                                         if name and self.controllers[t] == "scripted")
        #: teams whose commander or strategy profile is marked ``sees_all`` (a difficulty option): fog of war
        #: does not bind their deciders (seen_index, known_building_index and the commander see everything)
        self.sees_all = frozenset(
            t for t in range(len(self.scenario.teams))
            if (self.commanders[t] and content.commanders[self.commanders[t]].sees_all)
            or (self.strategies[t] and content.strategies[self.strategies[t]].sees_all)
            or (self.difficulties[t] and content.difficulties[self.difficulties[t]].sees_all))
        #: each team's home quarter of the map (its start location's, or its spawns'): the turn its units break
        #: ties with, so that mirror-image teams on a symmetric map choose mirror-image tiles (game/economy.py)
        self.turns = [self._home_quarter(t) for t in range(len(self.scenario.teams))]
        #: each team's luck key: what its hit rolls and its commander's random stream are keyed on instead of its
        #: index, so that listing the teams in another order changes nothing (issue 17, fair mirrors): its home
        #: quarter, and among teams sharing that quarter their order in the scenario (quarter * 16 + that order)
        self.luck_keys = [self.turns[t] * 16 + sum(1 for u in range(t) if self.turns[u] == self.turns[t])
                          for t in range(len(self.scenario.teams))]
        #: team -> its Stockpile component (looked up once; game/economy.py)
        self.stockpiles: dict = {}
        self.winner: int | None = None       # the first team of the winning side (None: a draw, or not over)
        self.winner_side: int | None = None
        self.end_reason = ""                 # why the match ended (game/victory.py)
        self.over = False
        #: what happened this tick, for the views only (shots, deaths): NOT world state (never hashed, saved or
        #: read by a decider); cleared at the start of every tick. Rows: ("shot", shooter, target, from x, from y,
        #: to x, to y, hit, damage) and ("death", entity, team, kind, x, y, building w, building h)
        self.events: list[tuple] = []
        #: False while a replay drives the world: deciders stay silent, recorded requests are re-applied
        self.deciders_enabled = True
        #: NPC brains perceive and score in one batch per tick (systems/brains.py); False: one NPC at a time, the
        #: reference path the benchmark measures against (both decide alike)
        self.batch_brains = True
        #: True: decision records keep wall-clock timings (a commander's ``ms``); off by default, so that two runs
        #: of one seed record identical bytes (`rts match --timings` turns it on)
        self.timings = False
        #: the highest entity id esper has handed out (all creation goes through create_entity)
        self.last_entity = 0
        self._index_tick = -1
        self._index: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._index_rows: tuple = (None, {})           # (esper's rows, team -> (ids, Position components))
        self._index_by_id: dict = {}                    # entity -> its row, of the rows the groups were built from
        self._bindex_tick = -1
        self._bindex: dict = {}
        self._seen: dict[int, tuple] = {}
        self._seen_every: tuple = (None, {})         # ((tick, fog version), _seen_all() then)
        self._known_buildings: dict[int, tuple] = {}
        self._enemies: dict[int, tuple] = {}
        self._kept: dict = {}                          # name -> (what it was made of, the answer): ``kept``
        self.name = f"rts-match-{next(_world_ids)}"
        esper.switch_world(self.name)
        for priority, processor in enumerate(reversed(build_processors())):
            esper.add_processor(processor, priority=priority)
        if populate:
            populate_world(self)

    # -- context -------------------------------------------------------------
    def activate(self) -> None:
        if esper.current_world != self.name:
            esper.switch_world(self.name)

    def close(self) -> None:
        """Drop this match's esper context, and the links back to the world from its parts.

        Perception and fog keep the world they serve (``part.world``), so a world merely forgotten is cyclic
        garbage that only a collector pass frees: a process that plays match after match (a tournament worker, the
        window's restarts and replay seeks) held every finished world until the collector's rare oldest-generation
        pass. With those links cut the world and everything it holds go by reference counts as soon as the last
        reference does (tests/test_scale.py holds every scenario kind to it). The world's own fields stay readable
        (a report reads its ``hz`` after the match); its parts are not used again.

        >>> from content.loader import load_content
        >>> world = World(load_content(), "duel", 1)
        >>> world.close(); world.close()          # (a second close does nothing more)
        >>> world.closed, world.perception.world is None
        (True, True)
        """
        if self.name in esper.list_worlds():
            current = esper.current_world
            esper.switch_world(self.name)
            esper_rows.forget()
            esper.switch_world(current if current != self.name else "default")
            esper.delete_world(self.name)
        for part in list(vars(self).values()):
            if getattr(part, "world", None) is self:
                part.world = None
        self.closed = True

    # -- entities ------------------------------------------------------------------
    def create_entity(self, *components) -> int:
        self.activate()
        eid = esper.create_entity(*components)
        self.last_entity = eid
        return eid

    def add_decider_state(self, eid: int, *components) -> None:
        """Attach decider-private components (brains, memories: see components.DECIDER_COMPONENTS)."""
        self.activate()
        for comp in components:
            esper.add_component(eid, comp)

    def restore_entity(self, eid: int, components: list) -> None:
        """Recreate entity ``eid`` exactly (snapshot loading); ids must come in ascending order."""
        self.activate()
        if eid <= self.last_entity:
            raise ValueError(f"entity {eid} out of order")
        while True:
            new = esper.create_entity()
            self.last_entity = new
            if new == eid:
                break
            esper.delete_entity(new, immediate=True)
        for comp in components:
            esper.add_component(eid, comp)

    def advance_entity_counter(self, last: int) -> None:
        """Make the next created entity get id ``last + 1`` (snapshot loading)."""
        self.activate()
        while self.last_entity < last:
            new = esper.create_entity()
            esper.delete_entity(new, immediate=True)
            self.last_entity = new

    # -- the tick ----------------------------------------------------------------
    def step(self) -> None:
        """Advance exactly one fixed tick: every processor once, in the declared order."""
        if self.over:
            return
        self.activate()
        self.events.clear()
        esper.process(self)
        self.tick += 1
        self._check_end()

    def run(self, ticks: int) -> None:
        for _ in range(ticks):
            if self.over:
                break
            self.step()

    def _check_end(self) -> None:
        over, side, reason = victory.check(self)
        if over:
            self.end(side, reason)

    def home_tile(self, team: int) -> tuple[float, float] | None:
        """Where ``team`` started, in tiles: its start location, else the mean of its spawn and building points
        (None when the scenario places it nowhere in particular). A fixed property of the scenario."""
        tdef = self.scenario.teams[team]
        if tdef.start >= 0:
            x, y = self.tilemap.starts[tdef.start]
            return x, y
        points = [s.at for s in tdef.spawns if s.at is not None] + [b.at for b in tdef.buildings if b.at is not None]
        if not points:
            return None
        return sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)

    def _home_quarter(self, team: int) -> int:
        from game.economy import quarter
        home = self.home_tile(team)
        if home is None:
            return 0
        return quarter(self, home[0] + 0.5, home[1] + 0.5)

    def end(self, side: int | None, reason: str) -> None:
        """The match is over: ``side`` won (None: a draw) because of ``reason``."""
        self.over = True
        self.winner_side = side
        self.winner = None if side is None else self.sides.index(side)
        self.end_reason = reason

    # -- queries ---------------------------------------------------------------
    def enemies(self, team: int, other: int) -> bool:
        """Are the two teams on different sides?"""
        return self.sides[team] != self.sides[other]

    def alive_per_team(self) -> list[int]:
        """Living units per team (buildings are not counted). Counted in full when a unit came or a component was
        replaced; after deaths alone the dead are taken off their teams' counts (``esper_rows.dead_since``)."""
        self.activate()
        rows = esper.get_components(Team, Health, UnitKind)
        kept = self._kept.get("alive_per_team")
        if kept is not None:
            source, by_id, counts = kept
            dead = esper_rows.dead_since(rows, source, by_id)
            if dead is not None:
                if dead:
                    counts = list(counts)
                    for eid in dead:
                        counts[by_id.pop(eid)[1][0].team] -= 1
                    self._kept["alive_per_team"] = (rows, by_id, counts)
                return list(counts)
        counts = [0] * len(self.scenario.teams)
        for _eid, (team, _health, _kind) in rows:
            counts[team.team] += 1
        self._kept["alive_per_team"] = (rows, dict(zip(map(itemgetter(0), rows), rows)), counts)
        return list(counts)

    def buildings_per_team(self) -> list[int]:
        self.activate()
        counts = [0] * len(self.scenario.teams)
        for _eid, (team, _b) in esper.get_components(Team, Building):
            counts[team.team] += 1
        return counts

    def kept(self, name, made_of: tuple, make):
        """The answer ``make()`` gave when last asked for ``name`` (any hashable key), while everything in
        ``made_of`` is still the same object (esper's cached row lists, index tables, the content) or equal number
        (the ledger's version); else a new one. Never keyed on time, so keeping an answer cannot change a match
        (ARCHITECTURE.md, performance notes).

        >>> world.kept("population", (esper.get_components(UnitKind, Team), world.content), count)  # doctest: +SKIP
        """
        entry = self._kept.get(name)
        if entry is not None and len(entry[0]) == len(made_of) and \
                all(a is b or (type(a) is int and a == b) for a, b in zip(entry[0], made_of)):
            return entry[1]
        answer = make()
        self._kept[name] = (made_of, answer)
        return answer

    def may_have_controller(self, ai: str) -> bool:
        """False only when no entity has a ``Controller`` of ``ai`` ('scripted', 'player', ...): a run condition for
        the systems that act for such units (an army of brains has neither). The scan is kept while no Controller
        came, went or was replaced (deaths only take some away; nothing changes a Controller in place); without
        esper_rows' hooks it is made every time."""
        self.activate()

        def scan() -> bool:
            return any(c.ai == ai for _e, c in esper.get_component(Controller))
        stamp = esper_rows.changed_at(Controller)
        return scan() if stamp is None else self.kept(("controller", ai), (stamp,), scan)

    def team_index(self) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """team -> (entity ids, xs, ys) of its living units (not buildings), ascending id. Built once per tick."""
        if self._index_tick != self.tick:
            rows = esper.get_components(Team, Position, Health, UnitKind)
            kept = self._index_rows[0]
            dead = esper_rows.dead_since(rows, kept, self._index_by_id)
            if dead == []:                             # who is where in the table: until a unit comes or goes
                pass
            elif dead is not None:
                # only units left: the groups less the dead, taken out of the kept lists in place
                groups = {}
                for team, (ids, positions) in self._index_rows[1].items():
                    keep = esper_rows.survivors(ids, dead)
                    esper_rows.keep_in_place(keep, positions)
                    groups[team] = (ids[keep], positions)
                self._index_rows = (rows, groups)
            else:
                groups: dict[int, tuple[list, list]] = {}
                for eid, (team, pos, _health, _kind) in sorted(rows, key=itemgetter(0)):
                    ids, positions = groups.setdefault(team.team, ([], []))
                    ids.append(eid)
                    positions.append(pos)
                self._index_rows = (rows, {team: (np.array(ids, dtype=np.int64), positions)
                                           for team, (ids, positions) in groups.items()})
                self._index_by_id = dict(zip(map(itemgetter(0), rows), rows))
            self._index = {team: (ids.copy(), np.fromiter(map(_get_x, positions), np.float64, len(positions)),
                                  np.fromiter(map(_get_y, positions), np.float64, len(positions)))
                           for team, (ids, positions) in self._index_rows[1].items()}
            self._index_tick = self.tick
        return self._index

    def building_index(self) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """team -> (entity ids, centre xs, centre ys) of its buildings, ascending id. Built once per tick."""
        if self._bindex_tick != self.tick:
            rows: dict[int, list] = {}
            for eid, (team, pos, _b) in sorted(esper.get_components(Team, Position, Building)):
                rows.setdefault(team.team, []).append((eid, pos.x, pos.y))
            self._bindex = {team: (np.array([r[0] for r in items], dtype=np.int64),
                                   np.array([r[1] for r in items], dtype=np.float64),
                                   np.array([r[2] for r in items], dtype=np.float64)) for team, items in rows.items()}
            self._bindex_tick = self.tick
        return self._bindex

    def enemy_arrays(self, team: int) -> tuple[tuple, tuple]:
        """((ids, xs, ys) of every enemy unit of ``team``, the same of every enemy building), each the
        concatenation of ``team_index()`` / ``building_index()`` over the enemy teams in ascending team order.
        Built once per tick per team (weapons' target scans read it; fog does not apply to what is in range)."""
        cached = self._enemies.get(team)
        if cached is not None and cached[0] == self.tick:
            return cached[1]
        result = (self._join_enemies(team, (self.team_index(),)), self._join_enemies(team, (self.building_index(),)))
        self._enemies[team] = (self.tick, result)
        return result

    def seen_index(self, team: int) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``team_index()`` as ``team`` may know it: its own and its allies' units, and the enemy units it sees now
        (under fog of war; everything without). Built once per tick per team."""
        if not self.fog.enabled or team in self.sees_all:
            return self.team_index()
        cached = self._seen.get(team)
        if cached is not None and cached[0] == self.tick:
            return cached[1]
        index = self.team_index()
        seen_all = self._seen_all()
        out = {}
        for other, (ids, xs, ys) in index.items():
            if not self.enemies(team, other):
                out[other] = (ids, xs, ys)
                continue
            seen = seen_all[other][team]
            out[other] = (ids[seen], xs[seen], ys[seen])
        self._seen[team] = (self.tick, out)
        return out

    def _seen_all(self) -> dict[int, np.ndarray]:
        """team -> a (teams, n) bool array: which of ``team_index()[team]``'s units each team sees now. Once per
        tick for every team together: one ``Fog.corner_tiles`` over every unit and one read of the stacked visible
        grids (every viewer's ``seen_index`` reads its row)."""
        key = (self.tick, self.fog.version)
        if self._seen_every[0] == key:
            return self._seen_every[1]
        index = self.team_index()
        order = list(index)
        seen: dict[int, np.ndarray] = {}
        if order:
            xs = np.concatenate([index[t][1] for t in order])
            ys = np.concatenate([index[t][2] for t in order])
            visible = np.stack(self.fog.visible)                                     # (teams, tiles)
            if fog_jit.available():                 # the same answer in one compiled pass
                every = fog_jit.seen_by(xs, ys, visible, self.fog.width, self.fog.height, EDGE)
            else:
                every = visible[:, self.fog.corner_tiles(xs, ys)].any(axis=1)           # (teams, n)
            at = 0
            for t in order:
                n = len(index[t][0])
                seen[t] = every[:, at:at + n]
                at += n
        self._seen_every = (key, seen)
        return seen

    def known_building_index(self, team: int) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``building_index()`` as ``team`` may know it: enemy buildings it has seen and that still stand (under
        fog of war, where it last saw them). Built once per tick per team."""
        if not self.fog.enabled or team in self.sees_all:
            return self.building_index()
        cached = self._known_buildings.get(team)
        if cached is not None and cached[0] == self.tick:
            return cached[1]
        rows: dict[int, list] = {}
        for eid, (other, _kind, tx, ty, w, h, _hp, _m) in sorted(self.fog.known_buildings(team).items()):
            if esper.entity_exists(eid):
                rows.setdefault(other, []).append((eid, tx + w / 2, ty + h / 2))
        out = {other: (np.array([r[0] for r in items], dtype=np.int64), np.array([r[1] for r in items]),
                       np.array([r[2] for r in items])) for other, items in rows.items()}
        self._known_buildings[team] = (self.tick, out)
        return out

    def nearest_enemy(self, team: int, x: float, y: float, buildings: bool = False) -> tuple[int, float] | None:
        """(entity, squared distance) of the closest enemy unit ``team`` sees (with ``buildings``: or enemy
        building it knows, by its centre); ties go to the lowest id. Without fog of war every enemy is seen."""
        return self.nearest_enemies(team, [x], [y], buildings)[0]

    def nearest_enemies(self, team: int, xs, ys, buildings: bool = False) -> list[tuple[int, float] | None]:
        """``nearest_enemy`` for each point (xs[i], ys[i]), worked out in one pass (the same answers).

        >>> world.nearest_enemies(0, [3.5, 40.5], [2.5, 30.5])      # doctest: +SKIP
        [(57, 12.5), None]
        """
        n = len(xs)
        ids, exs, eys = self._enemy_rows(team, buildings)
        if not len(ids) or not n:
            return [None] * n
        px = np.asarray(xs, dtype=np.float64)[:, None]
        py = np.asarray(ys, dtype=np.float64)[:, None]
        out: list = []
        for b in range(0, n, 256):                          # bounded memory: 256 points x the enemies at a time
            d2 = (exs[None, :] - px[b:b + 256]) ** 2 + (eys[None, :] - py[b:b + 256]) ** 2
            first = np.argmin(d2, axis=1)
            rows = np.arange(len(first))
            best = d2[rows, first]
            tied = np.count_nonzero(d2 == best[:, None], axis=1) > 1
            pick = first.copy()
            for r in np.flatnonzero(tied).tolist():         # equal distances: the lowest id
                ties = np.flatnonzero(d2[r] == best[r])
                pick[r] = ties[np.argmin(ids[ties])]
            out += [(int(i), float(d)) for i, d in zip(ids[pick].tolist(), d2[rows, pick].tolist())]
        return out

    def _enemy_rows(self, team: int, buildings: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ids, xs, ys) of every enemy unit ``team`` sees (with ``buildings``: then every enemy building it knows),
        joined once for as long as ``seen_index`` and ``known_building_index`` hand out the same tables."""
        indexes = (self.seen_index(team), self.known_building_index(team)) if buildings else (self.seen_index(team),)
        return self.kept(("enemy rows", team, buildings), indexes, lambda: self._join_enemies(team, indexes))

    def _join_enemies(self, team: int, indexes: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ids, xs, ys) of ``team``'s enemies in the given index tables, one after another, each in ascending team
        order."""
        parts = [arrs for index in indexes for other, arrs in sorted(index.items())
                 if self.enemies(team, other) and len(arrs[0])]
        if not parts:
            return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
        return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))

    def summary(self) -> dict:
        """What `rts match` prints: the result, why it ended, each team's units, buildings and score, the hash."""
        from game.synchash import sync_hash
        teams = self.scenario.teams
        winners = [t.name for i, t in enumerate(teams) if self.winner_side is not None and
                   self.sides[i] == self.winner_side]
        return {
            "scenario": self.scenario_id,
            "seed": self.seed,
            "winner": " + ".join(winners) if winners else None,
            "winner_team": self.winner,
            "winners": winners,
            "reason": self.end_reason or None,
            "ticks": self.tick,
            "alive": {t.name: n for t, n in zip(teams, self.alive_per_team())},
            "buildings": {t.name: n for t, n in zip(teams, self.buildings_per_team())},
            "score": {t.name: s for t, s in zip(teams, victory.team_scores(self))},
            "sync_hash": sync_hash(self),
        }
