"""The tick's systems: each derives from systems.base.System, and the deciders-off rule has one home."""
import doctest
from pathlib import Path

import systems
import systems.base
from systems.pipeline import SYSTEM_ORDER
from game.world import World
from systems.base import Decider, System

DECIDERS = {"CommanderSystem", "BrainSystem", "StrategySystem", "ScriptedAISystem", "BrainInboxSystem", "ReflexSystem"}


def test_every_system_derives_from_the_base_and_the_deciders_from_decider():
    for cls in SYSTEM_ORDER:
        assert issubclass(cls, System), cls
        assert issubclass(cls, Decider) == (cls.__name__ in DECIDERS), cls
        assert "process" not in cls.__dict__, f"{cls.__name__} overrides process; implement run instead"


def test_only_the_base_reads_whether_deciders_are_on():
    root = Path(systems.__file__).parent
    readers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if "deciders_enabled" in p.read_text())
    assert readers == ["base.py"]


def test_with_deciders_off_nothing_but_the_host_runs(content):
    world = World(content, "skirmish", 1)
    try:
        world.deciders_enabled = False
        world.run(60)
        assert world.ledger.next_id == 1                     # nobody submitted anything
        assert not world.decisions.all("npc") and not world.decisions.all("commander")
        world.deciders_enabled = True
        world.run(2)
        assert world.ledger.next_id > 1
    finally:
        world.close()


def test_the_base_examples_run():
    assert doctest.testmod(systems.base).failed == 0
