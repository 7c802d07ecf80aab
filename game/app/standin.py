"""A scripted stand-in for a reasonable human player, to measure the difficulty ladder (`rts ladder`).

It plays one team through the same door a person at the window uses: ledger requests with source ``"player"``
between ticks, on a team whose controller is ``"player"`` (so its idle units also act by their stances,
systems/reflexes.py). It sees only what its team sees (fog of war). Every ``APM_PERIOD`` ticks (half a second,
about a hundred and twenty orders a minute at most, a club player's pace) it:

- **retreats** a unit below ``RETREAT_HP`` of its hit points that has an enemy within ``DANGER`` tiles: it walks
  back towards its own side's start, out of the fight, until it has healed past ``RETURN_HP`` (units regain hit
  points resting on cover);
- **focuses fire**: every other fighting unit attacks the *weakest* enemy it sees within its weapon range plus
  ``REACH`` tiles (lowest hit points, ties to the nearest, then the lowest id), re-ordered only when that
  changes, so the army kills one enemy at a time instead of spreading its shots;
- **advances** when no enemy is within reach: the idle healthy units attack-move together to the nearest enemy
  the team sees, or else to where the enemy was last seen or should be (``Fog.hunt_point`` from the army's
  centre).

In an economy scenario (its team starts with buildings) it also runs **a standard build**: every
``ECON_PERIOD`` ticks the economy of the ``BUILD`` strategy profile (workers kept mining, supply ahead of the
population, the profile's build order, a mixed army trained; systems/strategy.py ``TeamView.economy``), its
orders submitted as the player's. Its army then waits at the rally point and **defends** the base (enemies seen
within ``DEFEND`` tiles of a building, systems/strategy.py, are fought), and **attacks** with ``ATTACK_AT`` units until it is down to half: the focus fire and retreats above, an advance on the nearest enemy it sees or the nearest
enemy building it knows.
"""
from __future__ import annotations

import esper

from components import Ammo, Building, Health, Position, Team, UnitKind, Weapon, Worker
from systems.strategy import TeamView

APM_PERIOD = 15          # ticks between two looks at the battle (0.5 s)
RETREAT_HP = 0.3         # a unit below this share of its hit points, with an enemy near, pulls back
RETURN_HP = 0.6          # ... until it has this share again
DANGER = 8.0             # tiles: how near an enemy makes a hurt unit pull back
REACH = 2.0              # tiles beyond weapon range a unit will walk to reach the focus target
SOURCE = "player"
ECON_PERIOD = 15         # ticks between two looks at the economy
BUILD = "macro"          # the strategy profile whose economy is the stand-in's standard build
ATTACK_AT = 40           # army units with which it attacks (and it keeps on attacking down to half of them)


class _PlayerBuild(TeamView):
    """A strategy profile's economy, submitted as the player's orders."""

    def _submit(self, kind: str, actor: int, target: int = 0, params: dict | None = None):
        return self.world.ledger.submit(self.world.tick, kind, actor, target, params or {}, source=SOURCE)


class StandIn:
    """``StandIn(world, team).act()`` once per tick (it acts every ``APM_PERIOD`` ticks)."""

    def __init__(self, world, team: int):
        self.world = world
        self.team = team
        self.retreating: set[int] = set()
        self.home = self._home()
        world.activate()
        self.economic = BUILD in world.content.strategies and any(
            t.team == team for _e, (t, _b) in esper.get_components(Team, Building))
        self.attacking = False

    def _home(self) -> tuple[float, float]:
        world = self.world
        tdef = world.scenario.teams[self.team]
        if tdef.start >= 0:
            sx, sy = world.tilemap.starts[tdef.start]
            return sx + 0.5, sy + 0.5
        world.activate()
        pts = [(p.x, p.y) for _e, (p, t) in esper.get_components(Position, Team) if t.team == self.team]
        return (sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)) if pts else (0.0, 0.0)

    def _build(self) -> _PlayerBuild:
        world, team = self.world, self.team
        units, workers = [], []
        for eid, (t, kind, pos) in sorted(esper.get_components(Team, UnitKind, Position)):
            if t.team != team:
                continue
            units.append((eid, kind.kind, pos))
            w = esper.try_component(eid, Worker)
            if w is not None:
                workers.append((eid, pos, w))
        return _PlayerBuild(world, team, world.content.strategies[BUILD], units, workers)

    def act(self) -> None:
        world = self.world
        if world.over:
            return
        build = None
        if self.economic and world.tick % ECON_PERIOD == 0:
            world.activate()
            build = self._build()
            build.economy()
        if world.tick % APM_PERIOD:
            return
        world.activate()
        ledger, tick, team = world.ledger, world.tick, self.team
        army = [(eid, pos, health, weapon) for eid, (t, pos, health, weapon, _a) in
                sorted(esper.get_components(Team, Position, Health, Weapon, Ammo))
                if t.team == team and not esper.has_component(eid, Worker)]
        if not army:
            return
        enemies = []                                  # (entity, x, y, hp) of the enemy units the team sees
        for other, (ids, xs, ys) in sorted(world.seen_index(team).items()):
            if not world.enemies(team, other):
                continue
            for eid, x, y in zip(ids.tolist(), xs.tolist(), ys.tolist()):
                enemies.append((eid, x, y, esper.component_for_entity(eid, Health).hp))
        defended: set[int] = set()
        if self.economic:
            if build is None:
                build = self._build()
            size = len(army)
            self.attacking = size >= (ATTACK_AT // 2 if self.attacking else ATTACK_AT)
            if not self.attacking:
                # at home: focus fire on what comes near the base, the rest waits at the rally point
                defended = {eid for eid, _x, _y in build._threats()}
                enemies = [e for e in enemies if e[0] in defended]
        self.retreating &= {eid for eid, _p, _h, _w in army}     # the dead retreat no more
        recalled: set[int] = set()
        idle = []
        for eid, pos, health, weapon in army:
            frac = health.hp / health.max_hp
            near = [e for e in enemies if (e[1] - pos.x) ** 2 + (e[2] - pos.y) ** 2 <= DANGER * DANGER]
            if eid in self.retreating and (frac >= RETURN_HP or not near):
                self.retreating.discard(eid)
            if frac < RETREAT_HP and near or eid in self.retreating:
                if eid not in self.retreating:
                    self.retreating.add(eid)
                    ledger.submit(tick, "move", eid, params={"x": self.home[0], "y": self.home[1]}, source=SOURCE)
                continue
            reach = weapon.range + REACH
            best = None
            for e in enemies:
                d2 = (e[1] - pos.x) ** 2 + (e[2] - pos.y) ** 2
                if d2 <= reach * reach:
                    key = (round(e[3], 6), round(d2, 6), e[0])
                    if best is None or key < best[0]:
                        best = (key, e[0])
            current = ledger.current(eid)
            if best is not None:
                if current is None or current.kind != "attack" or current.target != best[1]:
                    ledger.submit(tick, "attack", eid, best[1], source=SOURCE)
            elif current is None:
                idle.append(pos)
            elif self.economic and not self.attacking and current.kind in ("attack", "attack_move") and \
                    current.target not in defended:
                recalled.add(eid)                     # an attack called off: back to defend the base
                idle.append(pos)
        if idle and self.economic and not self.attacking:
            rally = build.rally_spot()
            for eid, pos, _h, _w in army:
                if eid in self.retreating or ledger.current(eid) is not None and eid not in recalled:
                    continue
                if enemies:                           # the nearest intruder
                    e = min(enemies, key=lambda e: (round((e[1] - pos.x) ** 2 + (e[2] - pos.y) ** 2, 6), e[0]))
                    ledger.submit(tick, "attack", eid, e[0], source=SOURCE)
                elif (pos.x - rally[0]) ** 2 + (pos.y - rally[1]) ** 2 > 9.0:
                    ledger.submit(tick, "move", eid, params={"x": rally[0], "y": rally[1]}, source=SOURCE)
            return
        if idle:
            cx = sum(p.x for p in idle) / len(idle)
            cy = sum(p.y for p in idle) / len(idle)
            known = world.nearest_enemy(team, cx, cy, buildings=True) if self.economic and not enemies else None
            if known is not None:                     # no enemy unit in sight: its nearest known building
                for eid, _pos, _h, _w in army:
                    if eid not in self.retreating and ledger.current(eid) is None:
                        ledger.submit(tick, "attack", eid, known[0], source=SOURCE)
                return
            if enemies:
                e = min(enemies, key=lambda e: (round((e[1] - cx) ** 2 + (e[2] - cy) ** 2, 6), e[0]))
                spot = (e[1], e[2])
            else:
                spot = world.fog.hunt_point(team, cx, cy)
            if spot is not None:
                for eid, pos, _h, _w in army:
                    if eid not in self.retreating and ledger.current(eid) is None:
                        ledger.submit(tick, "attack_move", eid, params={"x": spot[0], "y": spot[1]}, source=SOURCE)
