"""GOAP (regression and forward A*) and HTN: the spec's checks (docs/rules/goap.md, htn.md), budgets, ties, and agreement on optimal cost."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from ai import goap, htn
from ai.goap import BUDGET, NO_PLAN, PLAN, GoapAction, forward, regress

RELOAD = GoapAction("reload", {"has_reserve": True}, {"has_ammo": True, "in_cover": False}, 1.0)
ENTER_COVER = GoapAction("enter_cover", {}, {"in_cover": True}, 1.0)
SAFE = {"has_ammo": True, "in_cover": True}


# -- the spec's three regression checks (docs/rules/goap.md) --------------------------------------------------------------------------
def test_a_goal_breaking_last_action_is_rejected_in_that_position():
    rush = GoapAction("rush_for_ammo", {}, {"has_ammo": True, "in_cover": False}, 1.0)
    result = regress({"has_ammo": False, "in_cover": False}, SAFE, [rush, ENTER_COVER], trace=True)
    assert result.names() == ["rush_for_ammo", "enter_cover"] and result.cost == 2.0
    first = [r for r in result.trace["rejected"] if r[0] == "rush_for_ammo"][0]
    assert "breaks a required fact" in first[1]       # rejected as the last action, not banned for good


def test_destroy_then_rebuild_reload_then_enter_cover():
    start = {"has_ammo": False, "in_cover": True, "has_reserve": True}
    result = regress(start, SAFE, [RELOAD, ENTER_COVER], trace=True)
    assert result.status == PLAN and result.names() == ["reload", "enter_cover"] and result.cost == 2.0
    assert result.trace["final_cost"] == 2.0 and result.trace["expanded"]
    assert forward(start, SAFE, [RELOAD, ENTER_COVER]).cost == 2.0


def test_a_zero_cost_loop_terminates():
    on = GoapAction("switch_on", {}, {"light": "on"}, 0.0)
    off = GoapAction("switch_off", {}, {"light": "off"}, 0.0)
    swap = GoapAction("swap", {"light": "on"}, {"light": "off", "toggled": True}, 0.0)
    unreachable = regress({"light": "off", "door": "shut"}, {"door": "open"}, [on, off, swap])
    assert unreachable.status == NO_PLAN and unreachable.expansions < 10
    reachable = regress({"light": "off", "toggled": False}, {"toggled": True, "light": "on"}, [on, off, swap])
    assert reachable.ok and reachable.cost == 0.0 and reachable.names() == ["switch_on", "swap", "switch_on"]


# -- budgets, ties, values, targets ----------------------------------------------------------------------------
def counter_domain(n):
    return [GoapAction(f"step{i}", {"at": i}, {"at": i + 1}, 1.0) for i in range(n)]


def test_budget_exhausted_is_not_no_plan():
    acts = counter_domain(60)
    assert regress({"at": 0}, {"at": 60}, acts).cost == 60.0
    short = regress({"at": 0}, {"at": 60}, acts, budget=10)
    assert short.status == BUDGET and short.expansions == 10
    assert regress({"at": 0}, {"at": 99}, acts).status == NO_PLAN
    assert forward({"at": 0}, {"at": 60}, acts, budget=10).status == BUDGET


def test_ties_are_broken_by_stable_action_id_whatever_the_input_order():
    a = GoapAction("a_take_ladder", {}, {"up": True}, 2.0)
    b = GoapAction("b_take_stairs", {}, {"up": True}, 2.0)
    for order in ([a, b], [b, a]):
        for _ in range(3):
            assert regress({"up": False}, {"up": True}, order).names() == ["a_take_ladder"]
            assert forward({"up": False}, {"up": True}, order).names() == ["a_take_ladder"]


def test_multi_valued_facts():
    acts = [GoapAction("buy_pistol", {"money": "some"}, {"weapon": "pistol", "money": "none"}, 1.0),
            GoapAction("earn", {}, {"money": "some"}, 3.0),
            GoapAction("upgrade", {"weapon": "pistol"}, {"weapon": "rifle"}, 1.0)]
    result = regress({"weapon": "none", "money": "none"}, {"weapon": "rifle"}, acts)
    assert result.names() == ["earn", "buy_pistol", "upgrade"] and result.cost == 5.0


def test_one_definition_serves_many_targets_and_procedural_preconditions():
    fetch = GoapAction("fetch_ammo", {}, {"has_reserve": True}, 1.0, target_type="crate", cost_per_tile=0.5)
    offered = {"crate": [(31, 10.0), (17, 4.0), (44, 4.0)]}
    result = regress({"has_reserve": False}, {"has_reserve": True}, [fetch], targets=lambda t: offered.get(t, []))
    assert [(s.name, s.target, s.cost) for s in result.steps] == [("fetch_ammo@17", 17, 3.0)]
    none = regress({"has_reserve": False}, {"has_reserve": True}, [fetch], targets=lambda t: [], trace=True)
    assert none.status == NO_PLAN and ("fetch_ammo", "no target of type 'crate'") in none.trace["rejected"]
    picky = GoapAction("fetch_ammo", {}, {"has_reserve": True}, 1.0, target_type="crate",
                   procedural=lambda snap, target: target != 17 and snap["safe"])
    result = regress({"has_reserve": False}, {"has_reserve": True}, [picky], snapshot={"safe": True},
                     targets=lambda t: offered[t])
    assert result.steps[0].target == 31


def test_bad_actions_are_refused():
    with pytest.raises(ValueError, match="cost >= 0"):
        GoapAction("x", {}, {"a": 1}, -1.0)
    with pytest.raises(ValueError, match="no effects"):
        GoapAction("x", {}, {}, 1.0)


# -- three searches agree on the optimal cost ---------------------------------------------------------------------
KEYS = ("a", "b", "c")


def brute_force(start, goal, actions):
    """Every reachable state by breadth-first search, then relax the edges until nothing improves."""
    steps, _ = goap.instantiate(actions)
    seen = {goap.canon(start): dict(start)}
    frontier = [dict(start)]
    edges = []
    while frontier:
        nxt = []
        for state in frontier:
            for s in steps:
                if goap.satisfied(state, s.action.preconditions):
                    new = dict(state)
                    new.update(s.action.effects)
                    edges.append((goap.canon(state), goap.canon(new), s.cost))
                    if goap.canon(new) not in seen:
                        seen[goap.canon(new)] = new
                        nxt.append(new)
        frontier = nxt
    cost = {k: math.inf for k in seen}
    cost[goap.canon(start)] = 0.0
    for _ in range(len(seen)):
        for a, b, c in edges:
            if cost[a] + c < cost[b]:
                cost[b] = cost[a] + c
    reach = [cost[k] for k, s in seen.items() if goap.satisfied(s, goal)]
    return min(reach) if reach else None


facts = st.fixed_dictionaries({k: st.sampled_from([0, 1]) for k in KEYS})
partial = st.dictionaries(st.sampled_from(KEYS), st.sampled_from([0, 1]), max_size=2)
effects = st.dictionaries(st.sampled_from(KEYS), st.sampled_from([0, 1]), min_size=1, max_size=2)
actions = st.lists(st.tuples(partial, effects, st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])), min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(facts, st.dictionaries(st.sampled_from(KEYS), st.sampled_from([0, 1]), min_size=1, max_size=3), actions)
def test_regression_forward_and_brute_force_agree_on_optimal_cost(start, goal, acts):
    domain = [GoapAction(f"act{i}", pre, eff, cost) for i, (pre, eff, cost) in enumerate(acts)]
    truth = brute_force(start, goal, domain)
    back = regress(start, goal, domain)
    fwd = forward(start, goal, domain)
    if truth is None:
        assert back.status == NO_PLAN and fwd.status == NO_PLAN
        return
    assert back.ok and fwd.ok
    assert back.cost == pytest.approx(truth) and fwd.cost == pytest.approx(truth)
    # and the regression plan really works when executed forward
    state = dict(start)
    for s in back.steps:
        assert goap.satisfied(state, s.action.preconditions)
        state.update(s.action.effects)
    assert goap.satisfied(state, goal)


# -- HTN ----------------------------------------------------------------------------------------------------------
def door_domain(extra_methods=(), extra_primitives=()):
    prims = [
        htn.Primitive("enter_cover", {"cover_behind_door": False}, {"in_cover": True}),
        htn.Primitive("get_key", {"key_known": True}, {"has_key": True}),
        htn.Primitive("open_door", {"has_key": True}, {"cover_behind_door": False, "door_locked": False}),
        *extra_primitives,
    ]
    methods = (htn.Method("walk_in", {}, ("enter_cover",)),
               *extra_methods,
               htn.Method("unlock_then_walk_in", {}, ("get_key", "open_door", "enter_cover")))
    return htn.Domain(prims, [htn.Compound("take_cover", methods)])


LOCKED = {"cover_behind_door": True, "door_locked": True, "key_known": True, "has_key": False, "in_cover": False}


def test_htn_locked_door_tries_walk_in_then_key_door_cover():
    result = htn.plan(door_domain(), LOCKED, "take_cover")
    assert result.ok and result.plan == ["get_key", "open_door", "enter_cover"]
    text = [t for _d, t in result.trace]
    assert any("trying method walk_in" in t for t in text)
    assert any("enter_cover: preconditions fail {'cover_behind_door': False}" in t for t in text)
    assert htn.plan(door_domain(), dict(LOCKED, cover_behind_door=False), "take_cover").plan == ["enter_cover"]
    assert htn.plan(door_domain(), dict(LOCKED, key_known=False), "take_cover").status == NO_PLAN


def test_a_failed_method_rolls_back_its_temporary_effects():
    jammed = htn.Primitive("force_door", {"has_key": True, "jammed": False}, {"cover_behind_door": False})
    window = htn.Primitive("climb_window", {"has_key": False}, {"cover_behind_door": False})
    domain = door_domain(extra_methods=(htn.Method("key_then_force", {}, ("get_key", "force_door", "enter_cover")),
                                        htn.Method("window", {}, ("climb_window", "enter_cover"))),
                         extra_primitives=(jammed, window))
    state = dict(LOCKED, jammed=True)
    result = htn.plan(domain, state, "take_cover")
    # get_key's has_key=True was rolled back when force_door failed; otherwise climb_window could not run
    assert result.plan == ["climb_window", "enter_cover"]
    text = [t for _d, t in result.trace]
    assert "get_key: rolled back {'has_key': True}" in text
    assert any("method key_then_force failed, its temporary effects rolled back" in t for t in text)
    assert state == dict(LOCKED, jammed=True)          # the caller's state is never written


def test_the_trace_names_what_was_missing_then_not_after_later_steps():
    # the search records a failed check cheaply and works out its missing preconditions only when the trace is
    # read; what it names must be the state at the check, although later steps write the same keys
    domain = htn.Domain([htn.Primitive("open", {"has_key": True, "awake": True}, {"door_open": True}),
                         htn.Primitive("get_key", {}, {"has_key": True}),
                         htn.Primitive("wake", {}, {"awake": True})],
                        [htn.Compound("enter", (htn.Method("try_door", {"awake": True}, ("open",)),
                                                htn.Method("prepare", {}, ("open",)),
                                                htn.Method("slowly", {}, ("get_key", "wake", "open"))))])
    result = htn.plan(domain, {"has_key": False, "awake": False, "weather": "rain"}, "enter")
    assert result.plan == ["get_key", "wake", "open"]
    text = [t for _d, t in result.trace]
    assert "enter: method try_door skipped, preconditions fail {'awake': True}" in text
    assert "open: preconditions fail {'has_key': True, 'awake': True}" in text     # both false then, true now
    assert text[-1] == "open: applied {'door_open': True}"


def _reference_plan(domain, state, task, depth_limit):
    """The rules of docs/rules/htn.md written as a plain recursive search (no frames, no undo log: each level gets
    a new state dict; the dedupe keyed on the whole state): the plan or None, and the task lists examined."""
    seen = {}
    nodes = 0

    def solve(tasks, state):
        nonlocal nodes
        if not tasks:
            return []
        nodes += 1
        (name, depth), rest = tasks[0], tasks[1:]
        t = domain.tasks[name]
        primitive = isinstance(t, htn.Primitive)
        if primitive and not all(k in state and state[k] == v for k, v in t.preconditions.items()):
            return None                                  # fails at once: not remembered
        if not primitive and depth >= depth_limit:
            return None
        key = (frozenset(state.items()), tuple(n for n, _d in tasks))
        depths = tuple(d for _n, d in tasks)
        before = seen.get(key)
        if before is not None and all(b <= d for b, d in zip(before, depths)):
            return None                                  # explored with as much room
        seen[key] = depths
        if primitive:
            tail = solve(rest, {**state, **t.effects})
            return None if tail is None else [name] + tail
        for m in t.methods:
            if all(k in state and state[k] == v for k, v in m.preconditions.items()):
                got = solve(tuple((sub, depth + 1) for sub in m.subtasks) + rest, state)
                if got is not None:
                    return got
        return None
    plan = solve(((task, 0),), dict(state))
    return plan, nodes


_keys = st.sampled_from("abcd")
_pairs = st.dictionaries(_keys, st.booleans(), max_size=2)


@settings(max_examples=1000, deadline=None)
@given(st.data())
def test_htn_finds_the_plan_and_examines_the_lists_a_plain_recursive_search_of_its_rules_does(data):
    prims = [htn.Primitive(f"p{i}", data.draw(_pairs), data.draw(_pairs)) for i in range(data.draw(st.integers(1, 4)))]
    names = [p.name for p in prims] + [f"c{i}" for i in range(data.draw(st.integers(1, 3)))]
    comps = [htn.Compound(c, tuple(htn.Method(f"{c}m{j}", data.draw(st.dictionaries(_keys, st.booleans(), max_size=1)),
                                              data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3)))
                                   for j in range(data.draw(st.integers(1, 3)))))
             for c in names[len(prims):]]
    domain = htn.Domain(prims, comps)
    state = data.draw(st.dictionaries(_keys, st.booleans()))
    depth_limit = data.draw(st.integers(1, 4))
    result = htn.plan(domain, state, "c0", depth_limit=depth_limit, budget=100_000)
    expected, nodes = _reference_plan(domain, state, "c0", depth_limit)
    assert (result.plan if result.ok else None) == expected and result.nodes == nodes


def test_htn_dedup_and_depth_limit_stop_recursion():
    loop = htn.Domain([htn.Primitive("look", {}, {})],
                      [htn.Compound("wander", (htn.Method("again", {}, ("look", "wander")),))])
    result = htn.plan(loop, {}, "wander")
    assert result.status == NO_PLAN and result.nodes < 10
    assert any("already explored" in t for _d, t in result.trace)
    count = htn.Domain([htn.Primitive("tick_up", {}, {})] +
                       [htn.Primitive(f"set{i}", {}, {"n": i}) for i in range(100)],
                       [htn.Compound("climb", tuple(htn.Method(f"m{i}", {"n": i - 1} if i else {},
                                                              (f"set{i}", "climb")) for i in range(100)))])
    result = htn.plan(count, {}, "climb", depth_limit=12)
    assert result.status == NO_PLAN and any("depth limit 12" in t for _d, t in result.trace)


def test_htn_domain_checks():
    with pytest.raises(ValueError, match="unknown task"):
        htn.Domain([], [htn.Compound("x", (htn.Method("m", {}, ("nope",)),))])
    with pytest.raises(ValueError, match="no methods"):
        htn.Domain([], [htn.Compound("x", ())])
