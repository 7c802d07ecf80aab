"""The ledger's point in the tick: accept or reject submissions, apply cancels, start actions, time out.

Requests are processed team by team, the team that goes first taking turns tick by tick (``fair_order``): in
the order the deciders submitted them, the team whose entities were made first (and decide first) would win
every contest of one tick for an exclusive resource (two units of two teams asking for the same cover tile, key
or door in the same tick), so a mirror match leaned to the team listed first (issue 17, fair mirrors).
"""
from __future__ import annotations

import esper

from components import Team
from systems.base import System


def fair_order(world, queue: list) -> list:
    """``queue`` (the ledger's requests) sorted stably by team: on tick ``t`` the teams go in the order of their
    luck keys (``World.luck_keys``: their home quarters, not their indexes) turned by ``t``, so with two teams each
    goes first on every other tick; requests of an actor without a team come first; within a team the order of
    submission is kept. Deterministic, so a replay that re-submits the tick's requests (in submission order, as
    ``Ledger.tick_log`` keeps them) gets the same order."""
    keys = world.luck_keys
    n = len(keys)
    if n < 2 or len(queue) < 2:
        return queue
    place = {t: i for i, t in enumerate(sorted(range(n), key=lambda t: (keys[t], t)))}
    shift = world.tick % n
    actions = world.ledger.actions

    def slot(request) -> int:
        action = actions.get(request[1])
        team = (esper.try_component(action.actor, Team)
                if action is not None and esper.entity_exists(action.actor) else None)
        if team is None or team.team not in place:
            return -1
        return (place[team.team] - shift) % n

    return sorted(queue, key=slot)


class LedgerSystem(System):
    def run(self, world):
        world.ledger.process(world, order=fair_order)
