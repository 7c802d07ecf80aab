"""The base of every system: one concern of the tick, with a run condition owned here.

A system implements ``run(world)``; the base's ``process`` (what esper calls once per tick, in
``systems.pipeline.SYSTEM_ORDER``) runs it only when the class's ``run_if(world)`` holds, as Bevy's ``run_if`` does.
Deciders (the commander, brains, the scripted AI, the brains' inboxes) derive from ``Decider``, whose
condition is that deciders are on: a replay re-applies the recorded ledger requests with every decider off,
and that rule lives here instead of in each decider.

    >>> class Counter(System):
    ...     def run(self, world):
    ...         world.count += 1
    >>> class Quiet(Decider):
    ...     def run(self, world):
    ...         world.count += 100
    >>> class FakeWorld:
    ...     count = 0
    ...     deciders_enabled = False          # as while a replay drives the world
    >>> w = FakeWorld()
    >>> Counter().process(w); Quiet().process(w); w.count
    1
"""
from __future__ import annotations

import esper


def always(world) -> bool:
    return True


def deciders_on(world) -> bool:
    """Deciders run in a live match, and are silent while a replay re-applies recorded requests."""
    return world.deciders_enabled


class System(esper.Processor):
    """One concern of the tick. Subclasses implement ``run``; ``run_if`` decides whether it runs this tick."""
    run_if = staticmethod(always)

    def process(self, world) -> None:
        if self.run_if(world):
            self.run(world)

    def run(self, world) -> None:
        raise NotImplementedError


class Decider(System):
    """A system that decides: it reads the world and only submits to the ledger; off while a replay runs."""
    run_if = staticmethod(deciders_on)
