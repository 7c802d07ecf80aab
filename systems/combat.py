"""Weapons: cooldowns tick down; a unit (or a turret) with a target in range and line of fire shoots.

Shooters act in ascending entity id so the order damage is summed in is the
same in every run. A hit roll is not the next number of one stream shared by
everyone (where the team whose units were made first would take the first
draws of every tick) but a number keyed on (world seed, tick, the shooter's
team's luck key, its rank among its team's armed entities by entity id):
``hit_roll``. The luck key is the team's home quarter (``World.luck_keys``),
not its index, so a match with its teams listed the other way round plays
out identically (tests/test_fairness.py), and one unit more or less in one
team does not shift the other team's luck. Fire is simultaneous: the
damage of every shot of the tick is applied after all of them, so a unit killed
this tick still fires this tick, whatever its entity id (a lower id firing
first would favour the side whose units were made first). A hit on a unit standing
on a cover tile does half damage. A building is shot at the point of its
footprint nearest the shooter (and a turret fires from its edge facing the
target), so range and line of fire are measured to its walls, not its centre.
Death is handled by DeathSystem.
"""
from __future__ import annotations

import hashlib
import math
import struct

import esper

from components import Ammo, Health, Position, Stance, Team, Weapon
from game.economy import aim_point, fire_origin
from systems.base import System

COVER_FACTOR = 0.5
_KEY = struct.Struct("<QQQQ")
_MASK = (1 << 64) - 1


def hit_roll(seed: int, tick: int, luck_key: int, rank: int) -> float:
    """A uniform number in [0, 1) for one shot, keyed: the first 53 bits of BLAKE2b over the four integers."""
    digest = hashlib.blake2b(_KEY.pack(seed & _MASK, tick & _MASK, luck_key & _MASK, rank & _MASK),
                             digest_size=8).digest()
    return (int.from_bytes(digest, "little") >> 11) * (1.0 / (1 << 53))


class CombatSystem(System):
    def run(self, world):
        nav = world.nav
        seed, tick, luck = world.seed, world.tick, world.luck_keys
        ranks: dict[int, int] = {}               # team -> armed entities of that team met so far (ascending id)
        hits: dict[int, float] = {}              # target -> damage this tick, applied once every shot is fired
        shooters: dict[int, int] = {}            # target -> the first (lowest id) shooter that hit it this tick
        events = world.events                    # for the views only (not world state)
        for eid, (weapon, pos, ammo, team) in sorted(esper.get_components(Weapon, Position, Ammo, Team)):
            rank = ranks.get(team.team, 0)
            ranks[team.team] = rank + 1
            if weapon.ready_in > 0:
                weapon.ready_in -= 1
            target = weapon.target
            if not target or weapon.ready_in > 0:
                continue
            if not esper.entity_exists(target):
                weapon.target = 0
                continue
            health = esper.try_component(target, Health)
            tpos = esper.try_component(target, Position)
            if health is None or tpos is None or health.hp <= 0.0 or ammo.clip <= 0:
                continue
            sx, sy = fire_origin(eid, tpos.x, tpos.y)
            ax, ay = aim_point(target, sx, sy)
            if math.hypot(ax - sx, ay - sy) > weapon.range:
                continue
            if not nav.clear_line(sx, sy, ax, ay):
                continue
            ammo.clip -= 1
            weapon.ready_in = weapon.cooldown
            damage = 0.0
            if hit_roll(seed, tick, luck[team.team], rank) < weapon.accuracy:
                damage = weapon.damage
                if nav.on_cover(tpos.x, tpos.y):
                    damage *= COVER_FACTOR
                hits[target] = hits.get(target, 0.0) + damage
                shooters.setdefault(target, eid)
            events.append(("shot", eid, target, sx, sy, ax, ay, damage > 0, damage))
        for target in sorted(hits):
            damage = hits[target]
            health = esper.component_for_entity(target, Health)
            health.hp -= damage
            if damage > 0:
                health.last_hit = world.tick
                stance = esper.try_component(target, Stance)
                if stance is not None:                # who hit it, for its stance to answer (systems/reflexes.py)
                    stance.attacker, stance.hit_tick = shooters[target], world.tick
