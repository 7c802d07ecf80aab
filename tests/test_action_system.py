"""The ActionSystem passes over walks whose update would do nothing (move and enter_cover on a current route)."""
import pytest

from content.loader import load_content
from game.world import World
from systems.actions import executor_classes
from systems.actions.attack_move import AttackMoveExecutor
from systems.actions.enter_cover import EnterCoverExecutor
from systems.actions.move import MoveExecutor


def test_only_the_classes_that_declare_it_are_idle_while_walking():
    """attack_move extends move's update (it looks for enemies every tick): the flag must not be inherited."""
    assert MoveExecutor.idle_while_walking and EnterCoverExecutor.idle_while_walking
    assert not AttackMoveExecutor.idle_while_walking
    for kind, cls in executor_classes().items():
        assert cls.idle_while_walking == bool(cls.__dict__.get("idle_while_walking", False)), kind


def _play(content, sid, seed, ticks, skip: bool, monkeypatch):
    calls = {"n": 0}
    for cls in (MoveExecutor, EnterCoverExecutor):
        real = cls.update

        def counted(self, world, action, _real=real):
            calls["n"] += 1
            return _real(self, world, action)
        monkeypatch.setattr(cls, "update", counted)
        monkeypatch.setattr(cls, "idle_while_walking", skip)
    world = World(content, sid, seed)
    world.decisions.collect = True
    versions = set()
    try:
        events = []
        for _ in range(ticks):
            world.step()
            versions.add(world.nav.version)
            events.append(list(world.ledger.events))
        recs = [r.to_wire() for r in world.decisions.take()]
        return (world.summary()["sync_hash"], events, recs), calls["n"], len(versions)
    finally:
        world.close()
        monkeypatch.undo()


@pytest.mark.parametrize("sid, seed, ticks", [("skirmish", 1, 900), ("skirmish", 3, 900), ("army_600", 5, 150)])
def test_a_match_is_the_same_with_and_without_passing_over_walks(sid, seed, ticks, monkeypatch):
    """Every ledger event of every tick, every decision record and the hash; the skirmish's doors open (the nav grid
    changes under walkers, who must then be updated: in seed 1 a door opens in the middle of the actions' pass, and
    the walks after it in that pass are stale), the army's walkers are passed over thousands of times."""
    content = load_content()
    if sid == "army_600":
        from benchmarks.run import army_content
        content, sid = army_content(content, 600)
    fast, fast_calls, versions = _play(content, sid, seed, ticks, True, monkeypatch)
    slow, slow_calls, _ = _play(content, sid, seed, ticks, False, monkeypatch)
    assert fast == slow
    assert slow_calls - fast_calls > (1000 if sid.startswith("army") else 100)
    if sid == "skirmish":
        assert versions > 1
