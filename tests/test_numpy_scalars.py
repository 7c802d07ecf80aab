"""numpy scalars (np.bool_, np.int64, np.float64, ...) are accepted wherever Python numbers and bools are, in every
decision layer: gates, preferences, emergencies, conditions, GOAP and HTN."""
import numpy as np
import pytest

from ai import htn
from ai.conditions import Condition, all_hold
from ai.curves import Curve
from ai.goap import GoapAction, forward, regress
from ai.utility import EMERGENCY, Candidate, Emergency, ModeSelector, Preference, score_candidate

TRUE_VALUES = [np.bool_(True), np.True_]
NUMBERS = [np.float64(0.5), np.float32(0.5), np.int64(3), np.int32(3), np.uint8(3)]


@pytest.mark.parametrize("value", TRUE_VALUES)
def test_a_gate_on_a_numpy_true_holds_and_records_a_python_bool(value):
    s = score_candidate(Candidate("engage", gates=(Condition("enemy_visible"),)), {"enemy_visible": value})
    assert s.eligible and s.gates == [("enemy_visible", True, True)]
    assert type(s.gates[0][1]) is bool
    s = score_candidate(Candidate("engage", gates=(Condition("enemy_visible"),)), {"enemy_visible": np.False_})
    assert not s.eligible and s.gates == [("enemy_visible", False, False)]


@pytest.mark.parametrize("value", NUMBERS)
def test_a_numeric_gate_on_a_numpy_number(value):
    cand = Candidate("shoot", gates=(Condition("ammo", ">", 0),))
    assert score_candidate(cand, {"ammo": value}).eligible
    assert not score_candidate(cand, {"ammo": type(value)(0)}).eligible


@pytest.mark.parametrize("value", NUMBERS)
def test_a_preference_reads_a_numpy_number_as_the_same_float(value):
    pref = Preference("x", 0.0, 4.0, Curve("linear"))
    got = score_candidate(Candidate("c", preferences=(pref,)), {"x": value})
    want = score_candidate(Candidate("c", preferences=(pref,)), {"x": float(value)})
    assert got.eligible and got.score == want.score and got.diagnostics == []
    assert got.prefs == want.prefs and type(got.prefs[0][1]) is float


def test_a_non_finite_numpy_input_is_a_diagnostic_not_a_crash():
    s = score_candidate(Candidate("c", preferences=(Preference("x", 0.0, 1.0),)), {"x": np.float64("nan")})
    assert not s.eligible and s.diagnostics == ["input 'x' is not finite (nan)"]


def test_an_emergency_and_its_gate_agree_on_a_numpy_bool():
    sel = ModeSelector([Candidate("fight"), Candidate("flee", gates=(Condition("can_flee"),))],
                       [Emergency("hurt", (Condition("hurt"),), "flee")])
    d = sel.decide({"hurt": np.True_, "can_flee": np.True_}, current="fight", held=0.0)
    assert (d.choice, d.reason) == ("flee", EMERGENCY)
    d = sel.decide({"hurt": np.True_, "can_flee": np.False_}, current="fight", held=0.0)
    assert d.choice == "fight" and d.reason != EMERGENCY      # the emergency never bypasses the gate


@pytest.mark.parametrize("op, const, value, want", [
    ("==", True, np.True_, True), ("==", False, np.False_, True), ("!=", True, np.False_, True),
    (">=", 2, np.int64(2), True), ("<", 0.25, np.float64(0.3), False), ("==", 3, np.float64(3.0), True),
])
def test_conditions_compare_numpy_scalars_as_python_values(op, const, value, want):
    assert Condition("f", op, const).check({"f": value}) is want
    assert all_hold([Condition("f", op, const)], {}, {"f": value}) is want      # from the blackboard too


def test_a_condition_constant_may_be_a_numpy_scalar():
    c = Condition("seen", "==", np.True_)
    assert c.label == "seen" and c.value is True and c.check({"seen": True})


def test_goap_plans_over_numpy_facts_and_costs():
    reload = GoapAction("reload", {"has_reserve": True}, {"has_ammo": True, "in_cover": False}, cost=np.int64(2))
    cover = GoapAction("enter_cover", {}, {"in_cover": True}, cost=np.float64(1.5))
    start = {"has_ammo": np.False_, "in_cover": np.False_, "has_reserve": np.True_}
    goal = {"has_ammo": True, "in_cover": True}
    for search in (regress, forward):
        r = search(start, goal, [reload, cover])
        assert r.names() == ["reload", "enter_cover"] and r.cost == 3.5 and type(r.cost) is float
    with pytest.raises(ValueError):
        GoapAction("x", effects={"a": True}, cost=np.float64("nan"))


def test_htn_plans_over_numpy_facts():
    domain = htn.Domain(
        [htn.Primitive("enter_cover", {"door_open": True}, {"in_cover": True}),
         htn.Primitive("get_key", {"key_known": True}, {"has_key": True}),
         htn.Primitive("unlock_door", {"has_key": True}, {"door_open": True})],
        [htn.Compound("take_cover", (htn.Method("walk_in", {}, ["enter_cover"]),
                                     htn.Method("fetch_key", {"ammo": 3}, ["get_key", "unlock_door", "enter_cover"])))])
    state = {"door_open": np.False_, "key_known": np.True_, "ammo": np.int64(3)}
    assert htn.plan(domain, state, "take_cover").plan == ["get_key", "unlock_door", "enter_cover"]
