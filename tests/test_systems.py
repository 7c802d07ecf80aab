"""The tick's systems: each derives from systems.base.System, and the deciders-off rule has one home."""
import doctest
from pathlib import Path

import esper

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


def test_the_scripted_ai_and_reflexes_run_only_where_such_units_may_be(content, monkeypatch):
    """An army of brains has no scripted or player unit: neither system scans its units; a scripted unit made later
    (a new Controller: the kept answer is made again) brings the scripted AI back on the next tick. Deaths alone keep
    a 'none' answer (they only take units away)."""
    from benchmarks.run import army_content
    from components import Controller
    from systems.reflexes import ReflexSystem
    from systems.scripted_ai import ScriptedAISystem
    runs = {"scripted": 0, "reflex": 0}
    for cls, key in ((ScriptedAISystem, "scripted"), (ReflexSystem, "reflex")):
        real = cls.run
        monkeypatch.setattr(cls, "run", lambda self, world, _r=real, _k=key: runs.__setitem__(_k, runs[_k] + 1)
                            or _r(self, world))
    army, sid = army_content(content, 600)
    world = World(army, sid, 1)
    try:
        world.run(40)
        assert runs == {"scripted": 0, "reflex": 0}
        assert not world.may_have_controller("scripted") and not world.may_have_controller("player")
        assert world.may_have_controller("brain")
        eid = next(e for e, c in esper.get_component(Controller) if c.ai == "brain")
        esper.add_component(eid, Controller("scripted"))       # replaced: the answer is made again
        world.run(1)
        assert runs["scripted"] == 1 and runs["reflex"] == 0 and world.may_have_controller("scripted")
    finally:
        world.close()
    duel = World(content, "duel", 2)                           # scripted on both sides: every tick
    try:
        duel.run(10)
        assert runs["scripted"] == 11
    finally:
        duel.close()


def test_a_controller_that_comes_while_the_world_state_is_dropped_and_made_again_is_seen(content):
    """esper_rows keeps the state of the last few esper worlds: stepping more worlds in turn drops a world's state
    and makes it again, and a Controller added in between must still bring the scripted AI back (a state made
    again reads as a new stamp, not as 'never changed')."""
    from benchmarks.run import army_content
    from components import Controller
    from game import esper_rows
    army, sid = army_content(content, 600)
    world = World(army, sid, 1)
    others = [World(content, "duel", seed) for seed in range(esper_rows._WORLDS_KEPT + 1)]

    def crowd_out():
        for other in others:
            other.step()
    try:
        world.step()
        crowd_out()
        assert not world.may_have_controller("scripted")
        crowd_out()
        world.activate()
        eid = next(e for e, c in esper.get_component(Controller) if c.ai == "brain")
        esper.add_component(eid, Controller("scripted"))
        crowd_out()
        assert world.may_have_controller("scripted") and not world.may_have_controller("player")
        world.activate()
        esper.add_component(eid, Controller("player"))          # the reflexes' kind, the same way
        crowd_out()
        assert world.may_have_controller("player")
    finally:
        world.close()
        for other in others:
            other.close()
