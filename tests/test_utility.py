"""Utility scoring and selection: the rules of docs/rules/utility.md, with the spec's numbers, one by one."""
import json
import math

import pytest
from hypothesis import given, strategies as st

from ai.conditions import Condition
from ai.curves import Curve
from ai.status import FAILURE, SUCCESS
from ai.utility import (EMERGENCY, HELD, INVALIDATION, KEPT, NONE_ELIGIBLE, ORDINARY, Candidate,
                        Emergency, Preference, ModeSelector, score_candidate)
from tests.aihelpers import direct, gate

LINEAR = Curve("linear")


def prefs(*values, weight=1.0):
    return tuple(Preference(f"p{i}", 0.0, 1.0, LINEAR, weight) for i, _ in enumerate(values))


def facts_of(*values):
    return {f"p{i}": v for i, v in enumerate(values)}


# -- ScoreAction -----------------------------------------------------------------------------------------------
def test_three_equal_weight_prefs_of_0_8_score_0_8_and_so_does_one():
    three = score_candidate(Candidate("c", (), prefs(0.8, 0.8, 0.8)), facts_of(0.8, 0.8, 0.8))
    one = score_candidate(Candidate("c", (), prefs(0.8)), facts_of(0.8))
    assert three.eligible and one.eligible
    assert three.score == pytest.approx(0.8, abs=1e-12)
    assert one.score == pytest.approx(0.8, abs=1e-12)
    assert 0.8 ** 3 == pytest.approx(0.512)          # plain multiplication would have punished the count


def test_no_preferences_scores_one():
    assert score_candidate(Candidate("c"), {}).score == 1.0


def test_weighted_geometric_mean():
    cand = Candidate("c", (), (Preference("a", 0, 1, LINEAR, 3.0), Preference("b", 0, 1, LINEAR, 1.0)))
    got = score_candidate(cand, {"a": 0.5, "b": 0.9}).score
    assert got == pytest.approx(math.exp((3 * math.log(0.5) + math.log(0.9)) / 4))


def test_a_false_gate_never_scores_however_many_eps():
    cand = Candidate("shoot", (gate("has_ammo"),), prefs(1.0, 1.0))
    res = score_candidate(cand, {"has_ammo": False, **facts_of(1.0, 1.0)})
    assert not res.eligible and res.score is None
    assert res.prefs == []                           # preferences are never even read
    assert res.expanded()["gates"] == [{"gate": "has_ammo", "actual": False, "ok": False}]
    # a zero preference is only eps-small, never ineligible: vetoes belong in gates
    zero = score_candidate(Candidate("c", (), prefs(0.0)), facts_of(0.0))
    assert zero.eligible and zero.score == pytest.approx(1e-6)
    sel = ModeSelector([cand, Candidate("other", (), prefs(0.0))])
    assert sel.decide({"has_ammo": False, **facts_of(1.0, 1.0)} | {"p0": 0.0}).choice == "other"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_input_is_a_diagnostic_and_ineligible(bad):
    res = score_candidate(Candidate("c", (), prefs(0.5, 0.5)), facts_of(0.5, bad))
    assert not res.eligible
    assert res.diagnostics and "not finite" in res.diagnostics[0]
    assert res.expanded()["prefs"][1]["raw"] == repr(bad)


def test_bad_config_is_a_diagnostic_and_ineligible():
    cases = [
        Preference("p0", 1.0, 1.0, LINEAR, 1.0),        # empty range
        Preference("p0", 2.0, 1.0, LINEAR, 1.0),        # inverted range
        Preference("p0", 0.0, math.inf, LINEAR, 1.0),   # non-finite range
        Preference("p0", 0.0, 1.0, LINEAR, 0.0),        # zero weight
        Preference("p0", 0.0, 1.0, LINEAR, -1.0),       # negative weight
        Preference("p0", 0.0, 1.0, LINEAR, math.nan),   # non-finite weight
    ]
    for pref in cases:
        res = score_candidate(Candidate("c", (), (pref,)), {"p0": 0.5})
        assert not res.eligible and res.diagnostics, pref
    missing = score_candidate(Candidate("c", (), prefs(0.5)), {})
    assert not missing.eligible and "missing" in missing.diagnostics[0]
    text = score_candidate(Candidate("c", (), prefs(0.5)), {"p0": "high"})
    assert not text.eligible and "not a number" in text.diagnostics[0]


def test_overflowing_sum_is_rejected():
    huge = tuple(Preference(f"p{i}", 0.0, 1.0, LINEAR, 1e308) for i in range(3))
    res = score_candidate(Candidate("c", (), huge), facts_of(0.5, 0.5, 0.5))
    assert not res.eligible and res.diagnostics == ["weighted sum overflowed"]


def test_non_finite_curve_output_is_a_diagnostic():
    odd = Curve("polynomial", {"exponent": 0.5, "shift": 0.5})   # sqrt of a negative number below 0.5
    res = score_candidate(Candidate("c", (), (Preference("x", 0, 1, odd),)), {"x": 0.2})
    assert not res.eligible and "curve" in res.diagnostics[0]


def test_out_of_range_input_is_clamped_and_curve_output_clamped():
    cand = Candidate("c", (), (Preference("d", 0.0, 10.0, Curve("linear", {"slope": 2.0})),))
    res = score_candidate(cand, {"d": 25.0})
    pref = res.expanded()["prefs"][0]
    assert pref["norm"] == 1.0 and pref["curved"] == 2.0 and res.score == 1.0
    res = score_candidate(cand, {"d": -5.0})
    assert res.expanded()["prefs"][0]["norm"] == 0.0 and res.score == pytest.approx(1e-6)


def test_record_shows_raw_normalised_and_curved_values():
    cand = Candidate("c", (gate("ok"),), (Preference("d", 0.0, 20.0, Curve("linear", {"slope": -1, "intercept": 1})),))
    res = score_candidate(cand, {"ok": True, "d": 5.0})
    assert res.expanded()["prefs"] == [{"input": "d", "raw": 5.0, "norm": 0.25, "curved": 0.75, "weight": 1.0}]
    assert res.score == pytest.approx(0.75)


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6), st.lists(st.floats(0.01, 100.0), min_size=6, max_size=6))
def test_score_is_between_min_and_max_preference(values, weights):
    cand = Candidate("c", (), tuple(Preference(f"p{i}", 0, 1, LINEAR, w) for i, w in zip(range(len(values)), weights)))
    s = score_candidate(cand, facts_of(*values)).score
    lo = max(min(values), 1e-6)
    assert lo * (1 - 1e-9) <= s <= max(max(values), 1e-6) * (1 + 1e-9)


# -- curves -------------------------------------------------------------------------------------------------------
def test_curve_shapes():
    assert Curve("linear", {"slope": -1, "intercept": 1})(0.25) == 0.75
    assert Curve("polynomial", {"exponent": 2})(0.5) == 0.25
    assert Curve("logistic", {"steepness": 10, "midpoint": 0.5})(0.5) == pytest.approx(0.5)
    assert Curve("logistic")(1.0) > 0.99 and Curve("logistic")(0.0) < 0.01
    assert Curve("logit")(0.5) == pytest.approx(0.5)
    assert Curve("logit")(0.9) > 0.7 and Curve("logit")(0.1) < 0.3
    step = Curve("step", {"threshold": 0.3, "low": 0.1, "high": 0.9})
    assert (step(0.29), step(0.3)) == (0.1, 0.9)
    pw = Curve("piecewise", points=((0.0, 0.0), (0.5, 1.0), (1.0, 0.2)))
    assert (pw(0.25), pw(0.5), pw(0.75), pw(2.0)) == (0.5, 1.0, pytest.approx(0.6), 0.2)


@pytest.mark.parametrize("kind,params,points,message", [
    ("cubic", {}, (), "unknown curve type"),
    ("linear", {"steepness": 1}, (), "has no parameter"),
    ("linear", {"slope": math.nan}, (), "finite"),
    ("polynomial", {"exponent": 0}, (), "exponent > 0"),
    ("logistic", {"steepness": 0}, (), "non-zero steepness"),
    ("piecewise", {}, ((0, 0),), "at least two points"),
    ("piecewise", {}, ((0, 0), (0, 1)), "strictly increasing"),
    ("step", {}, ((0, 0), (1, 1)), "only a piecewise curve"),
])
def test_bad_curve_parameters_are_refused(kind, params, points, message):
    with pytest.raises(ValueError, match=message):
        Curve(kind, params, points)


# -- selection and hysteresis -------------------------------------------------------------------------------------
ENGAGE, SEARCH, RETREAT = direct("engage"), direct("search"), direct("retreat")


def scores(engage, search, retreat=0.0):
    return {"score_engage": engage, "score_search": search, "score_retreat": retreat}


def test_engage_0_75_vs_search_0_82_keeps_engage():
    sel = ModeSelector([ENGAGE, SEARCH, RETREAT])
    d = sel.decide(scores(0.75, 0.82), current="engage", held=5.0)
    assert (d.choice, d.switch, d.reason) == ("engage", False, HELD)
    assert "gain 0.070 is not > 0.1" in d.detail


def test_retreat_0_9_after_0_4_s_switches():
    sel = ModeSelector([ENGAGE, SEARCH, RETREAT])
    d = sel.decide(scores(0.75, 0.2, 0.9), current="engage", held=0.4)
    assert (d.choice, d.switch, d.reason) == ("retreat", True, ORDINARY)


def test_a_big_gain_waits_for_the_minimum_hold_time():
    sel = ModeSelector([ENGAGE, SEARCH, RETREAT])
    d = sel.decide(scores(0.75, 0.2, 0.9), current="engage", held=0.29)
    assert (d.choice, d.reason) == ("engage", HELD) and "held 0.29 s < 0.3 s" in d.detail
    d = sel.decide(scores(0.75, 0.2, 0.9), current="engage", held=0.3)
    assert d.choice == "retreat"


def test_thresholds_are_configurable():
    sel = ModeSelector([ENGAGE, SEARCH], margin=0.05, min_hold=0.0)
    assert sel.decide(scores(0.75, 0.82), current="engage", held=0.0).choice == "search"


def test_invalidation_bypasses_both_thresholds():
    engage = direct("engage", gates=[gate("enemy_alive")])
    sel = ModeSelector([engage, SEARCH])
    d = sel.decide({"enemy_alive": False, **scores(0.75, 0.2)}, current="engage", held=0.05)
    assert (d.choice, d.switch, d.reason) == ("search", True, INVALIDATION)
    assert "gate failed: enemy_alive" in d.detail


@pytest.mark.parametrize("status,reason", [(FAILURE, "path blocked"), (FAILURE, "out of ammo")])
def test_a_failed_mode_is_left_at_once_and_not_chosen_again(status, reason):
    sel = ModeSelector([ENGAGE, SEARCH])
    d = sel.decide(scores(0.9, 0.2), current="engage", held=0.05, status=status, status_reason=reason)
    assert (d.choice, d.reason) == ("search", INVALIDATION) and reason in d.detail


def test_an_ended_mode_may_restart_fresh():
    sel = ModeSelector([ENGAGE, SEARCH])
    d = sel.decide(scores(0.9, 0.2), current="engage", held=0.05, status=SUCCESS, status_reason="target destroyed")
    assert (d.choice, d.switch, d.reason) == ("engage", True, INVALIDATION)


def test_emergencies_go_in_priority_order_bypass_thresholds_but_not_gates():
    retreat = direct("retreat", gates=[gate("cover_known")])
    reload_ = direct("reload", gates=[gate("reserve", ">", 0)])
    ems = [Emergency("dying", (Condition("hp_frac", "<", 0.2),), "retreat"),
           Emergency("empty", (Condition("clip", "==", 0),), "reload")]
    sel = ModeSelector([ENGAGE, retreat, reload_], ems)
    base = {"score_engage": 0.9, "score_retreat": 0.1, "score_reload": 0.1, "reserve": 10, "cover_known": True}
    d = sel.decide(base | {"hp_frac": 0.1, "clip": 0}, current="engage", held=0.01)
    assert (d.choice, d.reason, d.emergency) == ("retreat", EMERGENCY, "dying")
    d = sel.decide(base | {"hp_frac": 0.1, "clip": 0, "cover_known": False}, current="engage", held=0.01)
    assert (d.choice, d.emergency) == ("reload", "empty")           # retreat's own gate still rules
    d = sel.decide(base | {"hp_frac": 0.1, "clip": 0}, current="retreat", held=0.01)
    assert (d.choice, d.switch, d.emergency) == ("retreat", False, "dying")
    d = sel.decide(base | {"hp_frac": 0.9, "clip": 5}, current="engage", held=0.01)
    assert (d.choice, d.reason) == ("engage", KEPT)


def test_ties_go_to_the_smallest_id():
    sel = ModeSelector([direct("b"), direct("a"), direct("c")])
    d = sel.decide({"score_a": 0.5, "score_b": 0.5, "score_c": 0.5})
    assert d.choice == "a"


def test_nothing_eligible_is_idle():
    sel = ModeSelector([direct("engage", gates=[gate("enemy")])])
    d = sel.decide({"enemy": False, "score_engage": 1.0}, current="engage", held=3.0)
    assert (d.choice, d.switch, d.reason) == (None, True, NONE_ELIGIBLE)
    d = sel.decide({"enemy": False, "score_engage": 1.0})
    assert (d.choice, d.switch, d.reason) == (None, False, NONE_ELIGIBLE)


def test_decision_record_is_plain_data():
    import msgpack
    from ai.records import NpcDecision, from_wire
    sel = ModeSelector([ENGAGE, direct("search", gates=[gate("lost")])])
    d = sel.decide({"lost": False, "score_engage": math.nan, "score_search": 0.3})
    rec = NpcDecision(tick=4, entity=9, choice=d.choice, reason=d.reason, detail=d.detail, candidates=d.candidates)
    wire = rec.to_wire()
    assert msgpack.unpackb(msgpack.packb(wire)) == json.loads(json.dumps(wire))
    assert from_wire(msgpack.unpackb(msgpack.packb(wire))) == rec          # what a replay reads back is the record
    engage = rec.candidate("engage")
    assert engage.eligible is False and engage.diagnostics
