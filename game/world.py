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

import esper
import numpy as np

from ai.records import DecisionLog
from components import Health, Position, Team
from content.loader import Content
from game import TICK_HZ
from game.ledger import Ledger
from game.navgrid import NavGrid

#: decision records kept per decider in memory (replays keep every one): many small objects cost the GC
RING = 16

_world_ids = itertools.count(1)


class World:
    def __init__(self, content: Content, scenario_id: str, seed: int, *, populate: bool = True,
                 controllers: dict[int, str] | None = None, commanders: dict[int, str] | None = None):
        from game.scenario import populate as populate_world
        from systems import build_processors, build_executors
        from systems.perception import Perception

        if scenario_id not in content.scenarios:
            raise KeyError(scenario_id)
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
        self.nav = NavGrid(self.tilemap)
        self.ledger = Ledger(build_executors())
        #: k -> the map cut into k regions (systems/commander.py; static per map)
        self.region_cuts: dict = {}
        #: [tick, content hash] for every hot reload applied to this match (game/hotreload.py)
        self.content_changes: list[list] = []
        #: each team's latest enemy sighting [x, y, game seconds] shared by its NPCs (decider state)
        self.intel: list[list] = [[] for _ in self.scenario.teams]
        #: what each NPC perceives (facts for its brain), built on demand for the NPCs that decide
        self.perception = Perception(self)
        #: every decider's recent decision records (ai.records), and this tick's for a replay recorder
        self.decisions = DecisionLog(RING)
        self.winner: int | None = None
        self.over = False
        #: False while a replay drives the world: deciders stay silent, recorded requests are re-applied
        self.deciders_enabled = True
        #: the highest entity id esper has handed out (all creation goes through create_entity)
        self.last_entity = 0
        self._index_tick = -1
        self._index: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
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
        """Drop this match's esper context."""
        if self.name in esper.list_worlds():
            if esper.current_world == self.name:
                esper.switch_world("default")
            esper.delete_world(self.name)

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
        esper.process(self)
        self.tick += 1
        self._check_end()

    def run(self, ticks: int) -> None:
        for _ in range(ticks):
            if self.over:
                break
            self.step()

    def _check_end(self) -> None:
        alive = self.alive_per_team()
        standing = [team for team, n in enumerate(alive) if n > 0]
        if len(standing) <= 1:
            self.over = True
            self.winner = standing[0] if standing else None
        elif self.tick >= self.max_ticks:
            self.over = True
            self.winner = None

    # -- queries ---------------------------------------------------------------
    def alive_per_team(self) -> list[int]:
        self.activate()
        counts = [0] * len(self.scenario.teams)
        for _eid, (team, _health) in esper.get_components(Team, Health):
            counts[team.team] += 1
        return counts

    def team_index(self) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """team -> (entity ids, xs, ys) of its living units, ascending id. Built once per tick."""
        if self._index_tick != self.tick:
            rows: dict[int, list] = {}
            for eid, (team, pos, _health) in sorted(esper.get_components(Team, Position, Health)):
                rows.setdefault(team.team, []).append((eid, pos.x, pos.y))
            index = {}
            for team, items in rows.items():
                arr = np.array(items, dtype=np.float64)
                index[team] = (arr[:, 0].astype(np.int64), arr[:, 1].copy(), arr[:, 2].copy())
            self._index = index
            self._index_tick = self.tick
        return self._index

    def nearest_enemy(self, team: int, x: float, y: float) -> tuple[int, float] | None:
        """(entity, squared distance) of the closest living enemy; ties go to the lowest id."""
        best = None
        for other, (ids, xs, ys) in sorted(self.team_index().items()):
            if other == team or len(ids) == 0:
                continue
            d2 = (xs - x) ** 2 + (ys - y) ** 2
            i = int(np.argmin(d2))
            cand = (float(d2[i]), int(ids[i]))
            if best is None or cand < best:
                best = cand
        return None if best is None else (best[1], best[0])

    def summary(self) -> dict:
        from game.synchash import sync_hash
        return {
            "scenario": self.scenario_id,
            "seed": self.seed,
            "winner": None if self.winner is None else self.scenario.teams[self.winner].name,
            "winner_team": self.winner,
            "ticks": self.tick,
            "alive": {t.name: n for t, n in zip(self.scenario.teams, self.alive_per_team())},
            "sync_hash": sync_hash(self),
        }
