"""HFSM semantics and the whole brain (utility -> HFSM -> BT) against a fake host ledger."""
import pytest

from ai.brain import RELEASE, RESELECT, WAITING, Brain
from ai.bt import FAILURE, RUNNING, ActionLeaf, ConditionNode, Context, Tree
from ai.conditions import Condition
from ai.hfsm import Machine, MachineError, Runtime, State, Transition
from ai.utility import EMERGENCY, INVALIDATION, NONE_ELIGIBLE, ModeSelector
from tests.aihelpers import FakeActuator, guard_brain, guard_facts as facts


def ctx_for(rt, facts=None, act=None, bb=None):
    return Context(rt.mem, facts or {}, bb if bb is not None else {}, act or FakeActuator(), 0.0)


def engage_machine(history="none"):
    return Machine([
        State("engage", initial="approach", history=history),
        State("approach", parent="engage", tree=Tree(ActionLeaf("move", 0, {"x": "$ex"})),
              transitions=(Transition("shoot", (Condition("in_range"),)),)),
        State("shoot", parent="engage", tree=Tree(ActionLeaf("attack", "$enemy")),
              transitions=(Transition("approach", (Condition("in_range", "==", False),)),)),
        State("search", tree=Tree(ActionLeaf("move", 0, {"x": "$sx"})), on_enter=(("searching", True),),
              on_exit=(("searching", False),)),
    ])


def test_guarded_transitions_halt_the_leaving_states_tree():
    m = engage_machine()
    rt = Runtime()
    act = FakeActuator()
    bb = {}
    facts = {"in_range": False, "ex": 5.0, "enemy": 9, "sx": 1.0}
    ctx = ctx_for(rt, facts, act, bb)
    m.enter(rt, "engage", ctx)
    assert rt.path == ["engage", "approach"]
    assert m.update(rt, ctx) == (RUNNING, "")
    assert act.kinds() == ["move"]
    facts["in_range"] = True
    m.update(rt, ctx)
    assert rt.path == ["engage", "shoot"]
    assert ("cancel", 1) in act.log and act.kinds() == ["move", "attack"]
    m.enter(rt, "search", ctx)
    assert ("cancel", 2) in act.log and bb["searching"] is True
    m.exit_all(rt, ctx)
    assert rt.path == [] and bb["searching"] is False


def test_history_resumes_the_child_that_was_active():
    for kind, expect in (("none", ["engage", "approach"]), ("shallow", ["engage", "shoot"])):
        m = engage_machine(kind)
        rt = Runtime()
        ctx = ctx_for(rt, {"in_range": True, "ex": 1.0, "enemy": 2, "sx": 0.0})
        m.enter(rt, "engage", ctx)
        m.update(rt, ctx)
        assert rt.path == ["engage", "shoot"]
        m.enter(rt, "search", ctx)
        m.enter(rt, "engage", ctx)
        assert rt.path == expect, kind


def test_deep_history_restores_the_leaf():
    m = Machine([
        State("a", initial="b", history="deep"),
        State("b", parent="a", initial="b1"),
        State("b1", parent="b"), State("b2", parent="b"),
        State("c"),
    ])
    rt = Runtime()
    ctx = ctx_for(rt)
    m.enter(rt, "b2", ctx)
    assert rt.path == ["a", "b", "b2"]
    m.enter(rt, "c", ctx)
    m.enter(rt, "a", ctx)
    assert rt.path == ["a", "b", "b2"]


def test_done_and_failed_transitions_and_reporting_the_end():
    m = Machine([
        State("retreat", initial="run"),
        State("run", parent="retreat", tree=Tree(ActionLeaf("enter_cover")), transitions=(Transition("hold", on="done"),)),
        State("hold", parent="retreat", tree=Tree(ActionLeaf("attack", 3))),
    ])
    rt = Runtime()
    act = FakeActuator()
    ctx = ctx_for(rt, {}, act)
    m.enter(rt, "retreat", ctx)
    m.update(rt, ctx)
    act.finish(1)
    assert m.update(rt, ctx) == (RUNNING, "") and rt.path == ["retreat", "hold"]
    m.update(rt, ctx)
    act.finish(2, ok=False, reason="out of ammo")
    status, reason = m.update(rt, ctx)
    assert status == FAILURE and "out of ammo" in reason


@pytest.mark.parametrize("states,message", [
    ([State("a", parent="zz")], "unknown parent"),
    ([State("a", transitions=(Transition("nowhere"),))], "missing state 'nowhere'"),
    ([State("a", initial="b"), State("b", parent="c"), State("c", parent="b")], "own ancestor"),
    ([State("a"), State("b", parent="a")], "needs an initial child"),
    ([State("a", initial="b", tree=Tree(ConditionNode(Condition("x")))), State("b", parent="a")], "cannot run a tree"),
])
def test_bad_machines_are_refused(states, message):
    with pytest.raises(MachineError, match=message):
        Machine(states)


# -- the whole brain -------------------------------------------------------------------------------------------
def test_enemy_destroyed_after_0_05_s_leaves_engage_cancels_it_and_enters_search():
    brain = guard_brain()
    st = brain.new_state()
    act = FakeActuator()
    rec = brain.think(st, facts(), 10.0, act)
    assert (rec.choice, st.mode, act.kinds()) == ("engage", "engage", ["attack"])
    # the enemy is destroyed 0.05 s later; search scores only 0.2
    rec = brain.think(st, facts(enemy_alive=False), 10.05, act)
    assert rec.reason == INVALIDATION and rec.choice == "search" and rec.switch
    assert ("cancel", 1) in act.log and st.mode == "" and st.pending
    assert "waiting for their release" in rec.detail
    rec = brain.think(st, facts(enemy_alive=False), 10.05, act)       # the ledger has not processed it yet
    assert rec.reason == WAITING and act.kinds() == ["attack"]
    act.process()                                                     # host cancels and releases
    rec = brain.think(st, facts(enemy_alive=False), 10.1, act)
    assert (rec.reason, rec.choice, st.mode) == (RELEASE, "search", "search")
    assert act.kinds() == ["attack", "move"] and act.running() == [2]


def test_a_candidate_that_became_infeasible_during_release_is_not_entered_and_the_old_mode_not_given_back():
    brain = guard_brain()
    st = brain.new_state()
    act = FakeActuator()
    brain.think(st, facts(score_engage=0.3, score_retreat=0.9, cover_known=True), 0.0, act)
    assert st.mode == "retreat"
    brain.think(st, facts(score_engage=0.9, score_retreat=0.3), 1.0, act)      # engage now wins by 0.6
    assert st.pending and st.pending_to == "engage" and st.dropped == "retreat"
    act.process()
    # meanwhile the enemy died: engage is infeasible; retreat (the old mode) scores best of the rest but is not given back
    rec = brain.think(st, facts(enemy_alive=False, score_engage=0.9, score_retreat=0.95), 1.05, act)
    assert rec.reason == RESELECT and rec.choice == "search" and st.mode == "search"
    assert "engage became infeasible" in rec.detail


def test_emergency_switches_at_once_and_nothing_feasible_means_idle_without_actions():
    brain = guard_brain()
    st = brain.new_state()
    act = FakeActuator()
    brain.think(st, facts(), 0.0, act)
    rec = brain.think(st, facts(hp_frac=0.1), 0.01, act)
    assert rec.reason == EMERGENCY and rec.emergency == "dying"
    act.process()
    brain.think(st, facts(hp_frac=0.1), 0.05, act)
    assert st.mode == "retreat"
    # nothing eligible at all: idle, and every action it had is cancelled
    idle_facts = facts(enemy_alive=False, cover_known=False, score_search=0.2)
    sel = brain.selector
    brain_no_search = Brain("g2", ModeSelector([c for c in sel.candidates if c.id != "search"], sel.emergencies),
                               brain.machine)
    rec = brain_no_search.think(st, idle_facts, 1.0, act)
    assert rec.reason == NONE_ELIGIBLE and st.pending
    act.process()
    rec = brain_no_search.think(st, idle_facts, 1.05, act)
    assert rec.choice is None and st.mode == "" and st.path == [] and act.running() == []


def test_a_mode_whose_tree_ended_redecides():
    brain = guard_brain()
    st = brain.new_state()
    act = FakeActuator()
    brain.think(st, facts(score_search=0.9, score_engage=0.1), 0.0, act)
    assert st.mode == "search"
    act.finish(1, ok=False, reason="path blocked")
    brain.think(st, facts(score_search=0.9, score_engage=0.1), 0.2, act)
    assert st.status == FAILURE and "path blocked" in st.status_reason
    rec = brain.think(st, facts(score_search=0.9, score_engage=0.1), 0.25, act)
    assert rec.reason == INVALIDATION and rec.choice == "engage"     # search failed: not chosen again now


def test_brain_state_is_plain_data():
    import dataclasses
    import msgpack
    brain = guard_brain()
    st = brain.new_state()
    act = FakeActuator()
    brain.think(st, facts(), 0.0, act)
    plain = dataclasses.asdict(st)
    assert msgpack.unpackb(msgpack.packb(plain), strict_map_key=True) == plain


def test_guards_outermost_first_then_in_order_read_the_blackboard_and_done_guards_must_hold():
    """Of the guards that hold, the outermost state's is taken (then the first listed of that state's); a guard
    reads the blackboard where the facts lack the key; a 'done' transition whose condition fails is not taken, and
    the tree's end is the result."""
    def leaf_tree():
        return Tree(ActionLeaf("noop", 0))

    def machine():
        return Machine([
            State("top", initial="mid", transitions=(Transition("other", (Condition("go_top"),)),)),
            State("mid", parent="top", initial="leaf",
                  transitions=(Transition("x1", (Condition("go_mid"),)), Transition("x2", (Condition("go_mid"),)))),
            State("leaf", parent="mid", tree=leaf_tree(),
                  transitions=(Transition("x3", (Condition("go_leaf"),)),
                               Transition("after", (Condition("allow"),), on="done"))),
            *(State(sid, tree=leaf_tree()) for sid in ("other", "x1", "x2", "x3", "after")),
        ])
    cases = (({"go_top": True, "go_mid": True, "go_leaf": True}, {}, ["other"]),
             ({"go_mid": True, "go_leaf": True}, {}, ["x1"]),
             ({}, {"go_leaf": True}, ["x3"]),
             ({"go_leaf": False}, {"go_leaf": True}, ["top", "mid", "leaf"]))     # a fact wins over the blackboard
    for known, bb, path in cases:
        m, rt, act = machine(), Runtime(), FakeActuator()
        ctx = ctx_for(rt, known, act, bb)
        m.enter(rt, "top", ctx)
        assert m.update(rt, ctx) == (RUNNING, "") and rt.path == path, (known, bb)
    from ai.status import SUCCESS
    for allow, result, path in ((False, (SUCCESS, "tree succeeded"), ["top", "mid", "leaf"]),
                                (True, (RUNNING, ""), ["after"])):
        m, rt, act = machine(), Runtime(), FakeActuator()
        ctx = ctx_for(rt, {"allow": allow}, act)
        m.enter(rt, "top", ctx)
        m.update(rt, ctx)
        act.finish(1)
        assert m.update(rt, ctx) == result and rt.path == path, allow


def test_the_records_of_a_waiting_switch_and_of_an_emergency_at_its_release_in_full():
    """Every field of the record while a switch waits for its actions, and of the release that an emergency wins."""
    from dataclasses import fields

    from ai.records import NpcDecision
    assert [f.name for f in fields(NpcDecision)] == [                 # (Brain._finish makes it positionally)
        "tick", "entity", "time", "phase", "mode_before", "held", "choice", "switch", "reason", "detail",
        "emergency", "candidates", "mode", "state", "bt", "status", "status_reason", "events", "plan"]
    brain = guard_brain()
    st = brain.new_state()
    act = FakeActuator()
    brain.think(st, facts(), 10.0, act)
    brain.think(st, facts(enemy_alive=False), 10.05, act)            # engage -> search, waits for attack #1
    rec = brain.think(st, facts(enemy_alive=False), 10.1, act)
    assert rec.to_wire() == {
        "kind": "npc", "tick": -1, "entity": 0, "time": 10.1, "phase": "release", "mode_before": None, "held": None,
        "choice": "search", "switch": False, "reason": WAITING, "detail": "actions [1] not yet released",
        "emergency": None, "candidates": [], "mode": None, "state": [], "bt": [], "status": RUNNING,
        "status_reason": "", "events": [], "plan": None}
    act.process()
    rec = brain.think(st, facts(enemy_alive=False, hp_frac=0.1), 10.15, act)
    wire = rec.to_wire()
    assert [c["id"] for c in wire.pop("candidates")] == ["engage", "retreat", "search"]
    assert wire == {
        "kind": "npc", "tick": -1, "entity": 0, "time": 10.15, "phase": "release", "mode_before": None,
        "held": None, "choice": "retreat", "switch": True, "reason": EMERGENCY,
        "detail": "emergency dying fires as engage is released", "emergency": "dying", "mode": "retreat",
        "state": ["retreat"], "bt": ["enter_cover"], "status": RUNNING, "status_reason": "",
        "events": ["enter_cover: submitted enter_cover #2"], "plan": None}
