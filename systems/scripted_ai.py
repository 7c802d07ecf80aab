"""The scripted 'attack nearest' decider, so whole matches play out before smarter brains exist.

It only reads the world and submits actions to the ledger. Each unit thinks
every ``PERIOD`` ticks, staggered by its rank among its team's scripted units
(by entity id) so a big army does not decide all at once and mirror-image units
of two teams decide on the same tick: reload when the clip is empty, fetch ammunition when none is
left, otherwise attack the nearest enemy unit it sees (switching when another is
much closer), or the nearest enemy building it knows once none is in sight, or,
knowing of none, attack-move to where the enemy was last seen or should be (fog
of war: game/fog.py ``hunt_point``).
A player's units act on their own by their stance (systems/reflexes.py).
A team run by a strategy profile (systems/strategy.py) is left to it.
"""
from __future__ import annotations

import math

import esper

from components import Ammo, Controller, Pickup, Position, Team, Weapon
from systems.base import Decider, deciders_on

PERIOD = 10
SWITCH_RATIO = 0.6   # retarget when a new enemy is this much closer than the current target


def _scripted_units(world) -> bool:
    """Deciders are on and some unit may be scripted (an army of brains has none: the scan of every unit is spared)."""
    return deciders_on(world) and world.may_have_controller("scripted")


class ScriptedAISystem(Decider):
    run_if = staticmethod(_scripted_units)

    def run(self, world):
        tick = world.tick
        ledger = world.ledger
        strategic = world.strategic_teams
        thinkers = []
        slots: dict = {}                 # stagger by rank within the team (mirror-image units think on the same tick)
        rows = esper.get_components(Controller, Team, Position, Ammo, Weapon)
        for eid, c in sorted(r for r in rows if r[1][0].ai == "scripted" and r[1][1].team not in strategic):
            slot = slots.get(c[1].team, 0)
            slots[c[1].team] = slot + 1
            if (slot + tick) % (PERIOD * world.think_every[c[1].team]) == 0:
                thinkers.append((eid, c))
        for eid, (ctl, team, pos, ammo, weapon) in sorted(thinkers):
            current = ledger.current(eid)
            if current is not None and current.kind in ("reload", "pickup"):
                continue
            if ammo.clip <= 0:
                if ammo.reserve > 0:
                    ledger.submit(tick, "reload", eid, source="scripted")
                else:
                    crate = self._nearest_crate(world, pos)
                    if crate is not None:
                        ledger.submit(tick, "pickup", eid, crate, source="scripted")
                continue
            nearest = world.nearest_enemy(team.team, pos.x, pos.y) or \
                world.nearest_enemy(team.team, pos.x, pos.y, buildings=True)
            if nearest is None:                         # nothing in sight: go where the enemy was, or should be
                if current is None:
                    spot = world.fog.hunt_point(team.team, pos.x, pos.y)
                    if spot is not None:
                        ledger.submit(tick, "attack_move", eid, params={"x": spot[0], "y": spot[1]}, source="scripted")
                continue
            enemy, d2 = nearest
            if current is not None and current.kind == "attack" and esper.entity_exists(current.target):
                if current.target == enemy:
                    continue
                tpos = esper.component_for_entity(current.target, Position)
                cur_d = math.hypot(tpos.x - pos.x, tpos.y - pos.y)
                if math.sqrt(d2) >= SWITCH_RATIO * cur_d:
                    continue
            ledger.submit(tick, "attack", eid, enemy, source="scripted")

    @staticmethod
    def _nearest_crate(world, pos) -> int | None:
        best = None
        for eid, (pick,) in sorted((e, (p,)) for e, p in esper.get_component(Pickup)):
            if pick.kind != "ammo" or ("pickup", eid) in world.ledger.exclusive:
                continue
            d = (pick.tx + 0.5 - pos.x) ** 2 + (pick.ty + 0.5 - pos.y) ** 2
            if best is None or d < best[0]:
                best = (d, eid)
        return None if best is None else best[1]
