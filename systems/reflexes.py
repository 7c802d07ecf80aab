"""Reflexes: what a player's unit does on its own, by its stance, when it has no order.

Seed 001 (ch. 2): units without an order are not proactive, but they attack enemies in sight and those that
attack them. Each unit of a team the player controls has a ``Stance`` (its type's default from content,
changed by the player with ``set_stance``):

- **aggressive**: attacks the nearest enemy its team sees within its sight, or whoever hit it, and chases it
  up to ``LEASH["aggressive"]`` tiles from where it stood; past the leash it breaks off and walks back;
- **defensive**: attacks an enemy already within weapon range, or whoever hit it in the last ``HIT_MEMORY``
  ticks, chases at most ``LEASH["defensive"]`` tiles, and walks back to its post when the fight is over;
- **hold**: fires from where it stands at an enemy in weapon range (the attack carries ``hold``), never moves;
- **passive**: never fires on its own.

Every stance reloads an empty clip when idle, and an idle worker carrying a load takes it home. A unit thinks
every ``PERIOD`` ticks (staggered by entity id), and at once on the tick after it was hit. A unit busy with an
order (any action another source submitted) is left alone: orders come first, as in every RTS. Every choice is
a ledger submission with source ``"reflex"`` and leaves an ``ai.records.ReflexDecision``, so `rts explain`
can say why a unit fired without an order.
"""
from __future__ import annotations

import math

import esper

from ai.records import ReflexDecision
from components import Ammo, Controller, Position, Stance, Team, UnitKind, Weapon, Worker
from systems.base import Decider, deciders_on

PERIOD = 6                                        # ticks between a unit's looks around (reaction time 0.2 s)
HIT_MEMORY = 90                                   # ticks a unit remembers who hit it (3 s)
LEASH = {"aggressive": 10.0, "defensive": 4.0, "hold": 0.0, "passive": 0.0}   # tiles from its post
SOURCE = "reflex"


def _player_units(world) -> bool:
    """Deciders are on and some unit may be a player's (a match of AIs alone has none: the scan is spared)."""
    return deciders_on(world) and world.may_have_controller("player")


class ReflexSystem(Decider):
    run_if = staticmethod(_player_units)

    def run(self, world):
        tick = world.tick
        rows = esper.get_components(Controller, Stance, Team, Position, Ammo, Weapon)
        for eid, (ctl, stance, team, pos, ammo, weapon) in sorted(r for r in rows if r[1][0].ai == "player"):
            if (eid + tick) % PERIOD and tick - stance.hit_tick > 1:
                continue
            think(world, eid, stance, team.team, pos, ammo, weapon)


def think(world, eid: int, stance: Stance, team: int, pos: Position, ammo: Ammo, weapon: Weapon) -> None:
    """One look around for one unit (see the module docstring)."""
    ledger = world.ledger
    tick = world.tick
    current = ledger.current(eid)
    mode = stance.mode

    def act(kind: str, trigger: str, target: int = 0, params: dict | None = None) -> None:
        ledger.submit(tick, kind, eid, target, params, source=SOURCE)
        world.decisions.add(ReflexDecision(tick=tick, entity=eid, team=team, stance=mode, trigger=trigger,
                                           action=kind, target=int(target)))

    if current is not None:
        if current.source != SOURCE:
            stance.anchored = False              # obeying an order: its post is wherever the order leaves it
            return
        leash = LEASH.get(mode, 0.0)
        if current.kind == "attack" and stance.anchored and leash > 0:
            away = math.hypot(pos.x - stance.anchor_x, pos.y - stance.anchor_y)
            if away > leash:
                act("move", f"leash: {away:.1f} tiles from its post (at most {leash:g})",
                    params={"x": stance.anchor_x, "y": stance.anchor_y})
        return
    worker = esper.try_component(eid, Worker)
    if worker is not None and worker.carrying > 0:
        act("return", "idle with a load")
        return
    if ammo.clip <= 0:
        if ammo.reserve > 0:
            act("reload", "clip empty")
        return
    if mode == "passive":
        return
    udef = world.content.units.get(esper.component_for_entity(eid, UnitKind).kind)
    reach = weapon.range if mode in ("defensive", "hold") else (udef.sight if udef is not None else weapon.range)
    target, trigger = 0, ""
    nearest = world.nearest_enemy(team, pos.x, pos.y)
    if nearest is not None and nearest[1] <= reach * reach:
        target = nearest[0]
        trigger = "enemy in range" if reach == weapon.range else "enemy in sight"
    attacker = stance.attacker
    if not target and tick - stance.hit_tick <= HIT_MEMORY and attacker and esper.entity_exists(attacker):
        apos = esper.try_component(attacker, Position)
        ateam = esper.try_component(attacker, Team)
        if apos is not None and ateam is not None and world.enemies(team, ateam.team) and \
                (world.fog.sees(team, apos.x, apos.y) or team in world.sees_all):
            if mode != "hold" or math.hypot(apos.x - pos.x, apos.y - pos.y) <= weapon.range:
                target, trigger = attacker, f"hit by {attacker}"
    if target:
        if not stance.anchored:
            stance.anchored, stance.anchor_x, stance.anchor_y = True, pos.x, pos.y
        act("attack", trigger, target, {"hold": 1} if mode == "hold" else None)
        return
    if stance.anchored:
        if mode == "defensive" and math.hypot(pos.x - stance.anchor_x, pos.y - stance.anchor_y) > 1.0:
            act("move", "the fight is over: back to its post", params={"x": stance.anchor_x, "y": stance.anchor_y})
        else:
            stance.anchored = False
