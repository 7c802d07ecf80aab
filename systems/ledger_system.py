"""The ledger's point in the tick: accept or reject submissions, apply cancels, start actions, time out."""
from __future__ import annotations

from systems.base import System


class LedgerSystem(System):
    def run(self, world):
        world.ledger.process(world)
