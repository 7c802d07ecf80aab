"""The decision layers' rules exactly at their boundaries (docs/rules/utility.md, docs/rules/htn.md): time in whole
ticks, score margins at 1e-9, an emergency at a reselection, the HTN depth as decomposition depth, and a dedupe that
never takes a depth cut for a failure."""
import sys

import pytest

from ai import htn
from ai.brain import RELEASE, Brain
from ai.bt import ActionLeaf, Repeat, Tree
from ai.conditions import Condition
from ai.hfsm import Machine, State
from ai.utility import EMERGENCY, HELD, ORDINARY, PRECISION, Emergency, ModeSelector
from tests.aihelpers import FakeActuator, direct, gate, guard_brain, guard_facts as facts


def selector(**kw):
    return ModeSelector([direct("engage"), direct("retreat")], **kw)


def scores(engage, retreat):
    return {"score_engage": engage, "score_retreat": retreat}


# -- time: whole ticks -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("since, now", [(0.4, 0.7), (1.1, 1.4), (10.0, 10.3), (100 / 30, 109 / 30)])
def test_a_mode_held_exactly_min_hold_may_switch(since, now):
    d = selector().decide(scores(0.2, 0.9), current="engage", held=now - since)
    assert (d.choice, d.reason) == ("retreat", ORDINARY), d.detail


@pytest.mark.parametrize("held", [8 / 30, 0.29, 0.2999])
def test_a_mode_held_less_than_min_hold_by_part_of_a_tick_is_held(held):
    d = selector().decide(scores(0.2, 0.9), current="engage", held=held)
    assert (d.choice, d.reason) == ("engage", HELD) and "< 0.3 s" in d.detail


def test_min_hold_is_counted_in_the_hosts_ticks():
    assert selector().hold_ticks == 9
    assert selector(min_hold=8.3).hold_ticks == 249                 # 8.3 * 30 = 249.00000000000003
    assert selector(min_hold=0.31).hold_ticks == 10                 # part of a tick rounds up
    assert selector(min_hold=0.3, tick_hz=10).hold_ticks == 3
    with pytest.raises(ValueError):
        selector(tick_hz=0)


def test_the_brain_switches_on_the_tick_min_hold_is_reached():
    """Through Brain.think with the host's clock (tick / 30): entered at tick 12, a better mode at tick 21 wins."""
    brain = Brain("b", selector(), Machine([State("engage"), State("retreat")]))
    st = brain.new_state()
    act = FakeActuator()
    brain.think(st, scores(0.9, 0.2), 12 / 30, act)
    assert st.mode == "engage"
    assert brain.think(st, scores(0.2, 0.9), 20 / 30, act).reason == HELD
    rec = brain.think(st, scores(0.2, 0.9), 21 / 30, act)
    assert (rec.reason, st.mode) == (ORDINARY, "retreat")


# -- score margins at 1e-9 -------------------------------------------------------------------------------------
def test_a_gain_written_as_exactly_the_margin_never_switches():
    """Every pair a -> a + 0.1 a designer writes with two decimals (0.01 -> 0.11 ... 0.89 -> 0.99): no switch,
    although floating point makes some gains 0.10000000000000003."""
    sel = selector()
    over = 0
    for i in range(1, 90):
        low, high = i / 100, (i + 10) / 100
        over += (high - low) > 0.1
        d = sel.decide(scores(low, high), current="engage", held=5.0)
        assert (d.choice, d.reason) == ("engage", HELD), (low, high, d.detail)
    assert over > 0          # the float gain did exceed 0.1 in some of these pairs: the precision is what holds them


def test_a_gain_just_above_the_margin_switches():
    d = selector().decide(scores(0.5, 0.600001), current="engage", held=5.0)
    assert (d.choice, d.reason) == ("retreat", ORDINARY)
    assert selector().gain_enough(0.1 + 2 * PRECISION) and not selector().gain_enough(0.1 + PRECISION / 2)


# -- an emergency at a reselection -----------------------------------------------------------------------------
def test_an_emergency_that_fires_at_the_release_wins_it():
    brain = guard_brain()
    st = brain.new_state()
    act = FakeActuator()
    brain.think(st, facts(), 0.0, act)
    brain.think(st, facts(enemy_alive=False), 0.2, act)               # engage invalid: switch to search, wait
    assert st.pending and st.pending_to == "search"
    act.process()
    # while engage's action was released the unit got hurt: the emergency decides, not the waiting choice
    search_ok = facts(enemy_alive=False, hp_frac=0.1)
    rec = brain.think(st, search_ok, 0.4, act)
    assert (rec.reason, rec.choice, rec.emergency, st.mode) == (EMERGENCY, "retreat", "dying", "retreat")
    assert act.kinds()[-1] == "enter_cover"
    # and no action is submitted only to be cancelled at the next decision
    before = len(act.log)
    rec = brain.think(st, search_ok, 0.6, act)
    assert rec.choice == "retreat" and not any(e[0] == "cancel" for e in act.log[before:])


def test_without_an_emergency_the_release_enters_the_waiting_choice():
    brain = guard_brain()
    st = brain.new_state()
    act = FakeActuator()
    brain.think(st, facts(), 0.0, act)
    brain.think(st, facts(enemy_alive=False), 0.2, act)
    act.process()
    rec = brain.think(st, facts(enemy_alive=False), 0.4, act)
    assert (rec.reason, st.mode, rec.emergency) == (RELEASE, "search", None)


def test_an_emergency_never_gives_the_dropped_mode_back_at_the_release():
    sel = ModeSelector([direct("engage", gates=[gate("enemy_alive")]), direct("search")],
                       [Emergency("cornered", (Condition("cornered"),), "engage")])
    brain = Brain("g", sel, Machine([State("engage", tree=Tree(Repeat(ActionLeaf("attack", "$enemy")))),
                                     State("search", tree=Tree(ActionLeaf("move", 0, {"x": 1.0})))]))
    st = brain.new_state()
    act = FakeActuator()
    brain.think(st, facts(score_search=0.1), 0.0, act)
    brain.think(st, facts(score_search=0.9), 1.0, act)                # ordinary switch to search, waits
    assert st.pending and st.dropped == "engage"
    act.process()
    rec = brain.think(st, facts(score_search=0.9, cornered=True), 1.1, act)
    assert st.mode == "search" and rec.emergency is None


# -- HTN: decomposition depth ----------------------------------------------------------------------------------
def chain_domain(n):
    prims = [htn.Primitive(f"p{i}", {}, {f"done{i}": True}) for i in range(n)]
    return htn.Domain(prims, [htn.Compound("all", (htn.Method("in_a_row", {}, [p.name for p in prims]),))])


@pytest.mark.parametrize("limit", [1, 2, 16])
def test_primitive_steps_do_not_count_against_the_depth_limit(limit):
    result = htn.plan(chain_domain(20), {}, "all", depth_limit=limit)
    assert result.ok and len(result.plan) == 20


def nested_domain(levels):
    """c0 -> c1 -> ... -> c{levels-1} -> leaf: the leaf is nested in ``levels`` compound tasks."""
    comps = [htn.Compound(f"c{i}", (htn.Method(f"m{i}", {}, [f"c{i + 1}" if i + 1 < levels else "leaf"]),))
             for i in range(levels)]
    return htn.Domain([htn.Primitive("leaf", {}, {"ok": True})], comps)


def test_the_depth_limit_counts_nested_compound_tasks():
    domain = nested_domain(5)                                       # c4 sits at decomposition depth 4
    assert htn.plan(domain, {}, "c0", depth_limit=5).plan == ["leaf"]
    cut = htn.plan(domain, {}, "c0", depth_limit=4)
    assert not cut.ok and any("depth limit 4 reached at c4" in line for _, line in cut.trace)


def test_a_depth_cut_is_not_remembered_as_a_failure():
    """The long way reaches `target` too deep and is cut; the short way reaches the same task from the same state
    and must be tried (the dedupe once called it 'already explored')."""
    domain = htn.Domain(
        [htn.Primitive("act", {}, {"done": True})],
        [htn.Compound("top", (htn.Method("long_way", {}, ["a"]), htn.Method("short_way", {}, ["target"]))),
         htn.Compound("a", (htn.Method("via_b", {}, ["b"]),)),
         htn.Compound("b", (htn.Method("via_target", {}, ["target"]),)),
         htn.Compound("target", (htn.Method("do_it", {}, ["act"]),))])
    result = htn.plan(domain, {}, "top", depth_limit=3)
    assert result.plan == ["act"]
    lines = [line for _, line in result.trace]
    assert "depth limit 3 reached at target" in lines and "top: trying method short_way -> ['target']" in lines


def test_the_dedupe_still_cuts_a_repeat_with_no_more_room():
    again = htn.Domain([], [htn.Compound("loop", (htn.Method("again", {}, ["loop"]),))])
    result = htn.plan(again, {}, "loop", depth_limit=50)
    assert result.status == htn.NO_PLAN and result.nodes == 2      # the repeat is deeper: cut by the dedupe


@pytest.mark.parametrize("limit", [1000, 5000])
def test_a_method_recursing_on_its_first_subtask_needs_no_python_recursion(limit):
    domain = htn.Domain([htn.Primitive("step", {}, {"n": 1})],
                        [htn.Compound("deep", (htn.Method("down", {}, ["deep", "step"]),
                                               htn.Method("stop", {}, ["step"])))])
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(200)                  # far below the depth: only an explicit stack gets through
    try:
        result = htn.plan(domain, {}, "deep", depth_limit=limit, budget=20_000)
    finally:
        sys.setrecursionlimit(old)
    assert result.ok and len(result.plan) == limit
