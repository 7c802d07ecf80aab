"""Weapons: cooldowns tick down; a unit with a target in range and line of fire shoots.

Shooters act in ascending entity id so the RNG draws (hit rolls) and the
order damage is summed in are the same in every run. A hit on a unit standing
on a cover tile does half damage. Death is handled by DeathSystem.
"""
from __future__ import annotations

import math

import esper

from components import Ammo, Health, Position, Weapon
from systems.base import System

COVER_FACTOR = 0.5


class CombatSystem(System):
    def run(self, world):
        nav = world.nav
        rng = world.rng
        for _eid, (weapon, pos, ammo) in sorted(esper.get_components(Weapon, Position, Ammo)):
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
            if math.hypot(tpos.x - pos.x, tpos.y - pos.y) > weapon.range:
                continue
            if not nav.clear_line(pos.x, pos.y, tpos.x, tpos.y):
                continue
            ammo.clip -= 1
            weapon.ready_in = weapon.cooldown
            if rng.random() < weapon.accuracy:
                damage = weapon.damage
                if nav.is_cover(int(tpos.x), int(tpos.y)):
                    damage *= COVER_FACTOR
                health.hp -= damage
                if damage > 0:
                    health.last_hit = world.tick
