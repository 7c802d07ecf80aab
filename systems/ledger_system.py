"""The ledger's point in the tick: accept or reject submissions, apply cancels, start actions, time out."""
from __future__ import annotations

import esper


class LedgerSystem(esper.Processor):
    def process(self, world):
        world.ledger.process(world)
