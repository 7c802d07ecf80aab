"""Weapons: cooldowns tick down; a unit (or a turret) with a target in range and line of fire shoots.

Shooters act in ascending entity id so the RNG draws (hit rolls) and the
order damage is summed in are the same in every run. Fire is simultaneous: the
damage of every shot of the tick is applied after all of them, so a unit killed
this tick still fires this tick, whatever its entity id (a lower id firing
first would favour the side whose units were made first). A hit on a unit standing
on a cover tile does half damage. A building is shot at the point of its
footprint nearest the shooter (and a turret fires from its edge facing the
target), so range and line of fire are measured to its walls, not its centre.
Death is handled by DeathSystem.
"""
from __future__ import annotations

import math

import esper

from components import Ammo, Health, Position, Stance, Weapon
from game.economy import aim_point, fire_origin
from systems.base import System

COVER_FACTOR = 0.5


class CombatSystem(System):
    def run(self, world):
        nav = world.nav
        rng = world.rng
        hits: dict[int, float] = {}              # target -> damage this tick, applied once every shot is fired
        shooters: dict[int, int] = {}            # target -> the first (lowest id) shooter that hit it this tick
        events = world.events                    # for the views only (not world state)
        for eid, (weapon, pos, ammo) in sorted(esper.get_components(Weapon, Position, Ammo)):
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
            if rng.random() < weapon.accuracy:
                damage = weapon.damage
                if nav.is_cover(int(tpos.x), int(tpos.y)):
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
