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
    versions = set()
    try:
        played, _end = _record(content, sid, seed, ticks, after=lambda world: versions.add(world.nav.version))
        return played, calls["n"], len(versions)
    finally:
        monkeypatch.undo()


def _scenario(sid):
    """The content and scenario id to play: ``army_600`` is the army scenario scaled to 600 units."""
    if sid == "army_600":
        from benchmarks.run import army_content
        return army_content(load_content(), 600)
    return load_content(), sid


def _record(content, sid, seed, ticks, meddle=None, after=None, end=None):
    """Play ``ticks`` ticks: (the sync hash, every tick's ledger events, every decision record), and what
    ``end(world)`` says before the world closes; ``meddle(world)`` runs before each tick, ``after(world)`` after."""
    world = World(content, sid, seed)
    world.decisions.collect = True
    try:
        events = []
        for _ in range(ticks):
            if meddle is not None:
                meddle(world)
            world.step()
            if after is not None:
                after(world)
            events.append(list(world.ledger.events))
        recs = [r.to_wire() for r in world.decisions.take()]
        return (world.summary()["sync_hash"], events, recs), (end(world) if end is not None else None)
    finally:
        world.close()


@pytest.mark.parametrize("sid, seed, ticks", [("skirmish", 1, 900), ("skirmish", 5, 900), ("army_600", 5, 150)])
def test_a_match_is_the_same_with_and_without_passing_over_walks(sid, seed, ticks, monkeypatch):
    """Every ledger event of every tick, every decision record and the hash; the skirmish's doors open (the nav grid
    changes under walkers, who must then be updated: in seed 1 a door opens in the middle of the actions' pass, and
    the walks after it in that pass are stale), the army's walkers are passed over thousands of times."""
    content, sid = _scenario(sid)
    fast, fast_calls, versions = _play(content, sid, seed, ticks, True, monkeypatch)
    slow, slow_calls, _ = _play(content, sid, seed, ticks, False, monkeypatch)
    assert fast == slow
    assert slow_calls - fast_calls > (1000 if sid.startswith("army") else 100)
    if sid == "skirmish":
        assert versions > 1


def _run_parked(content, sid, seed, ticks, park: bool, monkeypatch, meddle=None):
    """Play with parking on or off (passing over walks on in both); ``meddle(world)`` runs before each tick."""
    from systems.actions.system import ActionSystem
    monkeypatch.setattr(ActionSystem, "park", park)
    pushed = {"n": 0}
    real = ActionSystem._unpark

    def counted(self, aids, heap, after):
        aids = list(aids)
        if heap is not None:
            pushed["n"] += sum(1 for aid in aids if aid in self._parked and aid > after)
        return real(self, aids, heap, after)
    monkeypatch.setattr(ActionSystem, "_unpark", counted)

    def parked(world):
        import esper
        world.activate()
        system = next(p for p in esper._processors if isinstance(p, ActionSystem))
        # bounded by the active actions: a walk that ended is dropped at the next pass at the latest (one ended by
        # a death after the last pass of the match may still be there)
        assert len(system._parked) <= len(world.ledger.active_sorted())
        return len(system._parked)
    try:
        played, kept = _record(content, sid, seed, ticks, meddle=meddle, end=parked)
        return played, pushed["n"], kept
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("sid, seed, ticks", [("skirmish", 1, 900), ("econ_duel", 2, 1500), ("army_600", 5, 200)])
def test_parked_walks_change_nothing(sid, seed, ticks, monkeypatch):
    """Walks parked between passes (read again only when their unit stops, is deleted, a Mover or Health changes or
    the grid does) give every event, record and hash of the pass that tests every walk every tick: the skirmish
    opens doors (in seed 1 in the middle of a pass: the parked walks after it are tested at their turn in that
    pass), the economy trains units (new Movers), gathers and builds; the army parks hundreds of walks."""
    content, sid = _scenario(sid)
    parked, pushed, kept = _run_parked(content, sid, seed, ticks, True, monkeypatch)
    tested, _pushed, none_kept = _run_parked(content, sid, seed, ticks, False, monkeypatch)
    assert parked == tested
    assert none_kept == 0
    if sid.startswith("army"):
        assert kept > 50                         # most walks stay parked between passes
    if sid == "skirmish":
        assert pushed > 0                        # a door opened mid-pass: parked walks after it tested in that pass


@pytest.mark.parametrize("how", ["deleted", "no_health", "halted"])
def test_a_parked_walk_is_tested_again_when_its_unit_changes(how, monkeypatch):
    """A parked walk whose unit is taken out of the world without the death system (which ends its actions first),
    loses its Health, or is halted by an action of another lane (none of today's unit actions runs beside a walk:
    a stand-in does, in the stance lane, running from early on so that its id comes before the walks it halts):
    the walk is tested again, at its turn in the same pass when that is still to come, exactly as when every walk
    is tested every tick."""
    import esper

    from benchmarks.run import army_content
    from components import BrainState, Health, Mover
    from game.ledger import STARTED
    from systems.actions.base import halt
    from systems.actions.set_stance import SetStanceExecutor
    content, sid = army_content(load_content(), 600)
    if how == "halted":
        def update(self, world, action):
            if world.tick >= 40:
                halt(world, action.actor)
            return None                          # runs on, every tick
        for name, value in (("needs", ()), ("check_more", lambda self, world, action: None), ("update", update)):
            monkeypatch.setattr(SetStanceExecutor, name, value)

    seen = {"parked": []}

    def meddle(world):
        world.activate()
        if how == "halted" and world.tick == 5:
            for eid in sorted(e for e, _b in esper.get_component(BrainState))[::25]:
                world.ledger.submit(world.tick, "set_stance", eid, params={"stance": "hold"})
        if how != "halted" and world.tick == 40:
            # the lowest walk on its way (the same in both runs); parked in the run that parks
            aid, victim = min((a.id, a.actor) for a in world.ledger.active_sorted() if a.kind == "move" and
                              a.state == STARTED and esper.component_for_entity(a.actor, Mover).moving)
            system = next(p for p in esper._processors if type(p).__name__ == "ActionSystem")
            seen["parked"].append(aid in system._parked)
            if how == "deleted":
                esper.delete_entity(victim, immediate=True)
            else:
                esper.remove_component(victim, Health)
                esper.remove_component(victim, BrainState)          # (no longer a unit that thinks)
    parked, pushed, _k = _run_parked(content, sid, 5, 60, True, monkeypatch, meddle)
    if how == "halted":                          # _run_parked undid the stand-in: put it back for the second run
        for name, value in (("needs", ()), ("check_more", lambda self, world, action: None), ("update", update)):
            monkeypatch.setattr(SetStanceExecutor, name, value)
    tested, _p, _k = _run_parked(content, sid, 5, 60, False, monkeypatch, meddle)
    assert parked == tested
    reasons = {reason for tick in parked[1] for _aid, _state, reason in tick}
    if how == "halted":
        assert pushed > 0                        # halted by an earlier action of the pass, tested at their turn
    else:
        assert "actor died" in reasons and seen["parked"] == [True, False]     # parked, then not (no parking)
