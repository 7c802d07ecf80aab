"""Ledger properties under random submit / cancel / fail / timeout sequences (hypothesis)."""
import esper
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from components import Ammo, Door, Pickup, Team
from content.loader import load_content
from content.tiles import LEGEND
from game.ledger import ACCEPTED, CONFIRMED, FAILED, REJECTED, STARTED, TERMINAL, TIMED_OUT
from game.world import World
from tests.conftest import arena_mod, idle_teams, spawn

ROWS = ["##########",
        "#.a..#..c#",
        "#..k.L...#",
        "#c...+..a#",
        "##########"]

KINDS = ["move", "attack", "reload", "pickup", "pick_up_key", "open_door", "enter_cover", "wait", "dance"]

op = st.one_of(
    st.tuples(st.just("submit"), st.sampled_from(KINDS), st.integers(0, 5), st.integers(0, 9),
              st.integers(0, 9), st.integers(0, 4), st.sampled_from([0, 0, 5, 40])),
    st.tuples(st.just("cancel"), st.integers(0, 30)),
    st.tuples(st.just("fail"), st.integers(0, 30)),
    st.tuples(st.just("step"), st.integers(1, 25)),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(op, min_size=1, max_size=40))
# a reload naming a unit as its target (any target is allowed) that runs to the end: the clip fills
@example(ops=[("submit", "reload", 0, 0, 0, 0, 0), ("step", 10), ("submit", "move", 0, 0, 1, 0, 0), ("fail", 1),
              ("step", 24), ("step", 25)])
def test_random_action_sequences_keep_the_ledger_honest(tmp_path_factory, ops):
    mod = arena_mod(tmp_path_factory.mktemp("mod"), ROWS,
                    idle_teams(spawn("rifleman", 1, 1, 3), spawn("rifleman", 7, 2, 3)))
    world = World(load_content([mod]), "arena", 1)
    world._check_end = lambda: None   # keep ticking even after one side is wiped out
    try:
        world.activate()
        units = sorted(e for e, _ in esper.get_component(Team))
        doors = sorted(e for e, _ in esper.get_component(Door))
        pickups = sorted(e for e, _ in esper.get_component(Pickup))
        targets = {"attack": units, "open_door": doors, "pickup": pickups, "pick_up_key": pickups}
        floor = [(x, y) for y, row in enumerate(ROWS) for x, ch in enumerate(row) if LEGEND[ch].walkable]
        cover = [(x, y) for y, row in enumerate(ROWS) for x, ch in enumerate(row) if LEGEND[ch].cover]
        for eid in units[::2]:
            esper.component_for_entity(eid, Ammo).clip = 1   # so reloads and empty clips happen
        history: dict[int, list[str]] = {}
        submitted = []

        def observe_tick(before):
            ledger = world.ledger
            for aid, state, _reason in ledger.events:
                history.setdefault(aid, []).append(state)
                if state == TIMED_OUT:                          # on the very tick its limit ran out
                    action = ledger.get(aid)
                    assert action.end_tick - action.start_tick == ledger._limit(action) > 0
            for action in ledger.active_sorted():               # and none still started past it
                limit = ledger._limit(action)
                assert action.state != STARTED or not limit or world.tick - 1 - action.start_tick < limit
            assert len(ledger._deadlines) <= 2 * len(ledger.actions) + 65
            confirmed = {(a.kind, a.actor, a.target) for a in (world.ledger.get(aid) for aid, s, _ in
                         world.ledger.events if s == CONFIRMED) if a}
            # no effect without its action confirming in that very tick (so none after a cancel)
            for eid, clip in before["clips"].items():
                ammo = esper.try_component(eid, Ammo) if esper.entity_exists(eid) else None
                if ammo is not None and ammo.clip > clip:      # a reload of this unit's (whatever target it named)
                    assert any(k == "reload" and a == eid for k, a, _t in confirmed)
            for pid in before["pickups"]:
                if not esper.entity_exists(pid):
                    assert any(k in ("pickup", "pick_up_key") and t == pid for k, _a, t in confirmed)
            for did, state in before["doors"].items():
                if esper.component_for_entity(did, Door).state != state:
                    assert any(k == "open_door" and t == did for k, _a, t in confirmed)
            check_reservations(world)

        def snapshot_before():
            return {"clips": {e: a.clip for e, a in esper.get_component(Ammo)},
                    "pickups": [e for e, _ in esper.get_component(Pickup)],
                    "doors": {e: d.state for e, d in esper.get_component(Door)}}

        for item in ops:
            if item[0] == "submit":
                _, kind, actor_i, target_i, x, y, timeout = item
                actor = units[actor_i % len(units)]
                pool = targets.get(kind, units + doors + pickups)
                target = pool[target_i % len(pool)] if target_i < 8 else target_i  # sometimes a bogus id
                params = {}
                if kind == "move":
                    tx, ty = floor[(x * 5 + y) % len(floor)] if x < 8 else (x, y)
                    params = {"x": tx + 0.5, "y": ty + 0.5}
                elif kind == "enter_cover":
                    params = dict(zip("xy", cover[x % len(cover)])) if x < 8 else {"x": x, "y": y}
                elif kind == "wait":
                    params = {"ticks": x * 3}
                submitted.append(world.ledger.submit(world.tick, kind, actor, target, params, timeout=timeout))
            elif item[0] == "cancel" and submitted:
                world.ledger.cancel(submitted[item[1] % len(submitted)].id)
            elif item[0] == "fail" and submitted:
                action = submitted[item[1] % len(submitted)]
                if action.state == STARTED:
                    world.ledger.finish(world, action, FAILED, "the host says no")
                    history.setdefault(action.id, []).append(FAILED)
                    check_reservations(world)
            elif item[0] == "step":
                for _ in range(item[1]):
                    before = snapshot_before()
                    world.step()
                    observe_tick(before)
        # wind down: process what is queued, cancel everything still active, let the ledger process that
        before = snapshot_before()
        world.step()
        observe_tick(before)
        for action in submitted:
            if action.active:
                world.ledger.cancel(action.id, "wind down")
        before = snapshot_before()
        world.step()
        observe_tick(before)
        for action in submitted:
            states = history.get(action.id, [])
            terminal = [s for s in states if s in TERMINAL]
            assert len(terminal) == 1, (action, states)
            assert action.state == terminal[0]
            event(f"{action.kind} {terminal[0]} {action.reason[:25]}")
            if terminal[0] == REJECTED:
                assert states == [REJECTED]
            else:
                assert states[0] == ACCEPTED
                assert states.index(terminal[0]) == len(states) - 1
                assert all(s in (ACCEPTED, STARTED) for s in states[:-1])
        assert not world.ledger.exclusive and not world.ledger.shared and not world.ledger.lanes and not world.ledger.held
    finally:
        world.close()


def check_reservations(world):
    ledger = world.ledger
    expected_ex, expected_sh = {}, {}
    for action in ledger.active_sorted():
        assert action.active
        for res in action.reservations:
            key = tuple(res[:-1])
            if res[-1]:
                assert key not in expected_ex, "two active actions hold one exclusive resource"
                expected_ex[key] = action.id
            else:
                expected_sh.setdefault(key, set()).add(action.id)
    assert ledger.exclusive == expected_ex
    assert ledger.shared == expected_sh
    assert sorted(aid for ids in ledger.lanes.values() for aid in ids) == [a.id for a in ledger.active_sorted()]
    # the kept set of active ids is every action in a lane, and every action whose state is active
    assert ledger.active_ids == {aid for ids in ledger.lanes.values() for aid in ids}
    assert ledger.active_ids == {aid for aid, a in ledger.actions.items() if a.active}


def test_outcomes_are_visible_on_the_next_tick_and_superseding_cancels(content):
    world = World(content, "duel", 1, controllers={0: "idle", 1: "idle"})
    try:
        world.activate()
        blue = sorted(e for e, t in esper.get_component(Team) if t.team == 0)[0]
        first = world.ledger.submit(world.tick, "move", blue, params={"x": 20.5, "y": 24.5})
        assert first.state == "submitted"
        world.step()
        assert first.state == STARTED
        second = world.ledger.submit(world.tick, "wait", blue, params={"ticks": 3})
        world.step()
        assert first.state == "cancelled" and first.reason == f"superseded by action {second.id}"
        world.run(5)
        assert second.state == CONFIRMED
        bad = world.ledger.submit(world.tick, "dance", blue)
        world.step()
        assert bad.state == REJECTED and "unknown action kind" in bad.reason
    finally:
        world.close()


def test_a_restored_snapshot_times_out_on_the_same_tick(content, tmp_path):
    """The time-out heap is not saved: a snapshot's started actions are scheduled again when it is loaded."""
    from saves.snapshot import load_snapshot, save_snapshot
    world = World(content, "duel", 1, controllers={0: "idle", 1: "idle"})
    try:
        world.activate()
        blue = sorted(e for e, t in esper.get_component(Team) if t.team == 0)
        acts = [world.ledger.submit(world.tick, "move", eid, params={"x": 60.5, "y": 24.5}, timeout=t)
                for eid, t in zip(blue, (9, 14))]
        world.run(4)
        assert [a.state for a in acts] == [STARTED, STARTED]
        save_snapshot(world, tmp_path / "s.rtssave")
        world.run(20)
        want = [(a.state, a.end_tick) for a in acts]
    finally:
        world.close()
    assert want == [(TIMED_OUT, acts[0].start_tick + 9), (TIMED_OUT, acts[1].start_tick + 14)]
    again = load_snapshot(tmp_path / "s.rtssave", content)
    try:
        again.run(20)
        assert [(again.ledger.get(a.id).state, again.ledger.get(a.id).end_tick) for a in acts] == want
    finally:
        again.close()


def test_timeout(content):
    world = World(content, "duel", 1, controllers={0: "idle", 1: "idle"})
    try:
        world.activate()
        blue = sorted(e for e, t in esper.get_component(Team) if t.team == 0)[0]
        act = world.ledger.submit(world.tick, "move", blue, params={"x": 60.5, "y": 24.5}, timeout=10)
        world.run(12)
        assert act.state == "timed_out" and not world.ledger.lanes
    finally:
        world.close()


def test_time_outs_stay_exact_after_the_heap_is_rebuilt(content, monkeypatch):
    """A unit re-ordered every tick leaves one heap entry per superseded action until its deadline; when those
    outnumber the live actions the heap is rebuilt from the started ones, and a time-out scheduled before the
    rebuild still lands on its tick."""
    import game.ledger as ledger_module
    rebuilds = []
    real = ledger_module.heapify
    monkeypatch.setattr(ledger_module, "heapify", lambda heap: rebuilds.append(len(heap)) or real(heap))
    world = World(content, "duel", 1, controllers={0: "idle", 1: "idle"})
    try:
        world.activate()
        blue = sorted(e for e, t in esper.get_component(Team) if t.team == 0)
        long_wait = world.ledger.submit(world.tick, "wait", blue[1], params={"ticks": 5000}, timeout=750)
        for _ in range(760):
            world.ledger.submit(world.tick, "wait", blue[0], params={"ticks": 5000}, timeout=1000)
            world.step()
        assert rebuilds and len(world.ledger._deadlines) <= 2 * len(world.ledger.actions) + 65
        assert long_wait.state == TIMED_OUT and long_wait.end_tick == long_wait.start_tick + 750
        last = world.ledger.submit(world.tick, "wait", blue[0], params={"ticks": 5000}, timeout=5)
        world.run(8)
        assert last.state == TIMED_OUT and last.end_tick == last.start_tick + 5
    finally:
        world.close()


def test_pruning_forgets_exactly_the_actions_that_ended_more_than_the_history_ago(content):
    """Every 64 ticks the ledger forgets the actions that ended more than ``HISTORY_TICKS`` ticks before, and only
    those (taken off the front of the ended actions in the order they ended, not found by reading every action):
    checked against every end the ledger reported, over a skirmish long enough to prune several times."""
    from game.ledger import HISTORY_TICKS
    world = World(content, "skirmish", 2)
    try:
        ended: dict[int, int] = {}
        pruned_at = 0
        for _ in range(HISTORY_TICKS + 5 * 64 + 3):
            tick = world.tick                              # (the tick being stepped: step() counts it after)
            world.step()
            ledger = world.ledger
            for aid, state, _reason in ledger.events:
                if state in TERMINAL:
                    ended[aid] = tick
            if tick % 64 == 63:
                assert not ledger._forgotten                   # what a pass forgot is freed before the next
            if tick % 64 == 0 and tick > HISTORY_TICKS:
                cutoff = tick - HISTORY_TICKS
                kept = {aid for aid, a in ledger.actions.items() if a.done}
                # (an action may end after the prune in the tick: its end is this tick, far from the cutoff)
                assert kept == {aid for aid, end in ended.items() if end >= cutoff}
                assert all(a.end_tick == ended[aid] for aid, a in ledger.actions.items() if a.done)
                pruned_at += 1
        assert pruned_at >= 5 and len(ended) > 300
    finally:
        world.close()


def test_pruning_keeps_what_the_rule_keeps_with_rejections_time_outs_and_queues():
    """The kept actions, after every tick, are those the rule keeps (every 64 ticks, forget what ended more than
    ``HISTORY_TICKS`` ago), worked out from every action ever submitted: rejected, timed out, cancelled,
    superseded and finished ones alike (a stub executor, random traffic); and a snapshot that lists one action
    twice is refused."""
    import random
    from types import SimpleNamespace

    import pytest

    from game.ledger import CANCELLED, HISTORY_TICKS, Ledger, action_to_row, ledger_restore

    class Job:
        default_timeout = 0

        def check(self, world, action):
            return "refused" if action.params.get("bad") else None

        def reservations(self, world, action):
            return []

        def start(self, world, action):
            pass

        def stop(self, world, action):
            pass

    ledger = Ledger({"job": Job()})
    rng = random.Random(5)
    every = {}                                  # every action submitted, by id
    kept = set()
    seen = {state: 0 for state in TERMINAL}
    for tick in range(1200):
        world = SimpleNamespace(tick=tick)
        for _ in range(rng.randrange(5)):
            action = ledger.submit(tick, "job", rng.randrange(30), 0, {"bad": rng.random() < 0.2},
                                   timeout=rng.choice([0, 0, rng.randrange(1, 40)]))
            every[action.id] = action
            kept.add(action.id)
        active = [a for a in ledger.active_sorted()]
        for action in rng.sample(active, min(len(active), rng.randrange(3))):
            ledger.cancel(action.id)
        ledger.process(world)
        for action in [a for a in ledger.active_sorted() if a.state == STARTED]:
            if rng.random() < 0.05:
                ledger.finish(world, action, rng.choice([CONFIRMED, FAILED]))
        for _aid, state, _reason in ledger.events:
            if state in seen:
                seen[state] += 1
        if tick % 64 == 0:
            kept -= {aid for aid in kept if every[aid].done and every[aid].end_tick < tick - HISTORY_TICKS}
        assert set(ledger.actions) == kept, tick
    assert all(n > 20 for n in seen.values()), seen          # every way of ending was pruned
    assert seen[CANCELLED] > 20 and len(every) > 2000
    row = action_to_row(every[max(every)])
    row[7] = STARTED
    with pytest.raises(ValueError, match="listed twice"):
        ledger_restore(Ledger({"job": Job()}), [max(every) + 1, [row, list(row)], []])
