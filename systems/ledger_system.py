"""The ledger's point in the tick: accept or reject submissions, apply cancels, start actions, time out.

Requests are processed team by team, in an order of the teams drawn afresh every tick (``fair_order``): in the
order the deciders submitted them, the team whose entities were made first (and decide first) would win every
contest of one tick for an exclusive resource (two units of two teams asking for the same cover tile, key or door
in the same tick), so a mirror match leaned to the team listed first (issue 17, fair mirrors). Taking turns by
tick parity is not enough: NPCs think every 6 ticks on slots set by their rank and commanders every 90, so the
contests of a mirror match can fall on ticks of one parity far more often than the other, and one side would win
them.
"""
from __future__ import annotations

import esper

from components import Team
from systems.base import System
from systems.combat import hit_roll


def team_order(seed: int, tick: int, luck_keys: list) -> dict:
    """team -> its place in this tick's order: the teams sorted by a number keyed on (seed, tick, luck key)
    (``systems.combat.hit_roll`` with rank -1), a fair draw every tick whatever the schedule of the deciders, and
    keyed on the teams' home quarters, not their indexes."""
    rolls = sorted((hit_roll(seed, tick, key, -1), key, t) for t, key in enumerate(luck_keys))
    return {t: i for i, (_roll, _key, t) in enumerate(rolls)}


def fair_order(world, queue: list) -> list:
    """``queue`` (the ledger's requests) sorted stably by the actor's team in ``team_order``; requests of an actor
    without a team come first; within a team the order of submission is kept. Deterministic, so a replay that
    re-submits the tick's requests (in submission order, as ``Ledger.tick_log`` keeps them) gets the same order."""
    if len(world.luck_keys) < 2 or len(queue) < 2:
        return queue
    place = team_order(world.seed, world.tick, world.luck_keys)
    actions = world.ledger.actions

    def slot(request) -> int:
        action = actions.get(request[1])
        team = (esper.try_component(action.actor, Team)
                if action is not None and esper.entity_exists(action.actor) else None)
        if team is None or team.team not in place:
            return -1
        return place[team.team]

    return sorted(queue, key=slot)


class LedgerSystem(System):
    def run(self, world):
        world.ledger.process(world, order=fair_order)
