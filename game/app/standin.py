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

It plays the firefight scenarios (squads, no economy); an economy stand-in with a standard build is not written
yet.
"""
from __future__ import annotations

import esper

from components import Ammo, Health, Position, Team, Weapon, Worker

APM_PERIOD = 15          # ticks between two looks at the battle (0.5 s)
RETREAT_HP = 0.3         # a unit below this share of its hit points, with an enemy near, pulls back
RETURN_HP = 0.6          # ... until it has this share again
DANGER = 8.0             # tiles: how near an enemy makes a hurt unit pull back
REACH = 2.0              # tiles beyond weapon range a unit will walk to reach the focus target
SOURCE = "player"


class StandIn:
    """``StandIn(world, team).act()`` once per tick (it acts every ``APM_PERIOD`` ticks)."""

    def __init__(self, world, team: int):
        self.world = world
        self.team = team
        self.retreating: set[int] = set()
        self.home = self._home()

    def _home(self) -> tuple[float, float]:
        world = self.world
        tdef = world.scenario.teams[self.team]
        if tdef.start >= 0:
            sx, sy = world.tilemap.starts[tdef.start]
            return sx + 0.5, sy + 0.5
        world.activate()
        pts = [(p.x, p.y) for _e, (p, t) in esper.get_components(Position, Team) if t.team == self.team]
        return (sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)) if pts else (0.0, 0.0)

    def act(self) -> None:
        world = self.world
        if world.over or world.tick % APM_PERIOD:
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
        if idle:
            cx = sum(p.x for p in idle) / len(idle)
            cy = sum(p.y for p in idle) / len(idle)
            if enemies:
                e = min(enemies, key=lambda e: (round((e[1] - cx) ** 2 + (e[2] - cy) ** 2, 6), e[0]))
                spot = (e[1], e[2])
            else:
                spot = world.fog.hunt_point(team, cx, cy)
            if spot is not None:
                for eid, pos, _h, _w in army:
                    if eid not in self.retreating and ledger.current(eid) is None:
                        ledger.submit(tick, "attack_move", eid, params={"x": spot[0], "y": spot[1]}, source=SOURCE)
