"""The plan executor against a fake ledger: advance on confirmation only, replan on failure, cancel cleanly."""
from ai import htn
from ai.bt import Context
from ai.status import FAILURE, IDLE, RUNNING, SUCCESS
from ai.executor import Planning, StepSpec
from ai.goap import GoapAction
from tests.aihelpers import FakeActuator

GOAP = Planning(
    goap_actions=[GoapAction("reload", {"has_reserve": True}, {"has_ammo": True, "in_cover": False}, 1.0),
                  GoapAction("enter_cover", {"cover_known": True}, {"in_cover": True}, 1.0),
                  GoapAction("fetch_ammo", {}, {"has_reserve": True, "in_cover": False}, 2.0, target_type="crate")],
    goap_goals={"safe": {"has_ammo": True, "in_cover": True}},
    goap_steps={"reload": StepSpec("reload"), "enter_cover": StepSpec("enter_cover", 0, {"x": "$cover_x", "y": "$cover_y"}),
                "fetch_ammo": StepSpec("pickup")},
)
HURT = {"has_ammo": False, "in_cover": False, "has_reserve": True, "cover_known": True, "cover_x": 4, "cover_y": 9}


def ctx(facts, act, now=0.0):
    return Context([], dict(facts), {}, act, now)


def test_goap_plan_advances_only_on_confirmation():
    act = FakeActuator()
    state = {}
    runner = GOAP.bind(state)
    c = ctx(HURT, act)
    assert runner.run(c, "goap", "safe", True) == (RUNNING, "")
    assert act.kinds() == ["reload"]
    assert runner.run(c, "goap", "safe", False) == (RUNNING, "")
    assert act.kinds() == ["reload"]                               # nothing moves on without the ledger
    act.finish(1)
    assert runner.run(c, "goap", "safe", False) == (RUNNING, "")
    assert act.kinds() == ["reload", "enter_cover"] and act.actions[2]["params"] == {"x": 4, "y": 9}
    act.finish(2)
    assert runner.run(c, "goap", "safe", False) == (SUCCESS, "plan complete")
    log = [t for _time, t in state["log"]]
    assert log[0].startswith("goap safe: plan ['reload', 'enter_cover'] cost 2")
    assert "step reload: action #1 confirmed" in log and "step enter_cover: action #2 confirmed" in log


def test_a_failed_step_records_real_facts_drops_the_rest_and_replans():
    act = FakeActuator(targets={"crate": [(77, 3.0)]})
    state = {}
    runner = GOAP.bind(state)
    c = ctx(HURT, act)
    runner.run(c, "goap", "safe", True)
    act.finish(1, ok=False, reason="no reserve ammunition")        # someone else's reload? the reserve is gone
    c.facts["has_reserve"] = False
    assert runner.run(c, "goap", "safe", False) == (RUNNING, "")
    # enter_cover (the old plan's next step) was never submitted; the new plan fetches ammo first
    assert act.kinds() == ["reload", "pickup"] and act.actions[2]["target"] == 77
    text = " | ".join(t for _time, t in state["log"])
    assert "step reload: action #1 no reserve ammunition; real facts" in text and "'has_reserve': False" in text
    assert state["steps"][0][0] == "fetch_ammo@77" and state["replans"] == 1


def test_timeouts_count_as_failures_and_replanning_gives_up():
    act = FakeActuator()
    runner = GOAP.bind({})
    c = ctx(HURT, act)
    runner.run(c, "goap", "safe", True)
    for aid in range(1, 5):
        act.finish(aid, ok=False, reason="no result after 900 ticks")
        status, reason = runner.run(c, "goap", "safe", False)
    assert status == FAILURE and "gave up after 3 replans" in reason
    assert act.kinds() == ["reload"] * 4


def test_stopping_cancels_the_active_step_and_drops_the_suffix():
    act = FakeActuator()
    state = {}
    runner = GOAP.bind(state)
    c = ctx(HURT, act)
    runner.run(c, "goap", "safe", True)
    runner.stop(c, "goap", "safe")
    assert ("cancel", 1) in act.log and state["status"] == IDLE and "steps" not in state
    assert "stopped: cancelled action #1; dropped 1 unstarted steps" in state["log"][-1][1]
    act.process()
    assert act.kinds() == ["reload"]


HTN = Planning(
    htn_domain=htn.Domain(
        [htn.Primitive("enter_cover", {"cover_behind_door": False}, {"in_cover": True}),
         htn.Primitive("get_key", {"key_known": True}, {"has_key": True}),
         htn.Primitive("open_door", {"has_key": True}, {"cover_behind_door": False})],
        [htn.Compound("take_cover", (htn.Method("walk_in", {}, ("enter_cover",)),
                                     htn.Method("unlock", {}, ("get_key", "open_door", "enter_cover"))))]),
    htn_steps={"enter_cover": StepSpec("enter_cover", 0, {"x": "$cover_x", "y": "$cover_y"}),
               "get_key": StepSpec("pick_up_key", "$key"), "open_door": StepSpec("open_door", "$cover_door")},
)
BEHIND = {"cover_behind_door": True, "key_known": True, "has_key": False, "in_cover": False, "key": 55,
          "cover_door": 66, "cover_x": 3, "cover_y": 3}


def test_htn_key_door_cover_through_the_ledger():
    act = FakeActuator()
    runner = HTN.bind({})
    c = ctx(BEHIND, act)
    runner.run(c, "htn", "take_cover", True)
    assert act.kinds() == ["pick_up_key"] and act.actions[1]["target"] == 55
    act.finish(1)
    c.facts.update(has_key=True, key_known=False)
    runner.run(c, "htn", "take_cover", False)
    assert act.kinds() == ["pick_up_key", "open_door"] and act.actions[2]["target"] == 66
    act.finish(2)
    c.facts.update(cover_behind_door=False)
    runner.run(c, "htn", "take_cover", False)
    act.finish(3)
    assert runner.run(c, "htn", "take_cover", False) == (SUCCESS, "plan complete")


def test_when_getting_the_key_really_fails_no_door_is_tried_and_it_replans():
    act = FakeActuator()
    state = {}
    runner = HTN.bind(state)
    c = ctx(BEHIND, act)
    runner.run(c, "htn", "take_cover", True)
    act.finish(1, ok=False, reason="pickup is gone")              # another unit took the key
    c.facts.update(key_known=False)
    del c.facts["key"]
    status, reason = runner.run(c, "htn", "take_cover", False)
    assert status == FAILURE and "replanning: no plan for task take_cover" in reason
    assert act.kinds() == ["pick_up_key"]                        # open_door was never submitted
    text = " | ".join(t for _time, t in state["log"])
    assert "step get_key: action #1 pickup is gone; real facts" in text and "'key_known': False" in text


def test_preconditions_are_checked_again_before_each_step():
    act = FakeActuator()
    runner = HTN.bind({})
    c = ctx(BEHIND, act)
    runner.run(c, "htn", "take_cover", True)
    act.finish(1)
    c.facts.update(has_key=False)                                 # the key was lost after all
    status, reason = runner.run(c, "htn", "take_cover", False)
    assert act.kinds() == ["pick_up_key", "pick_up_key"]          # open_door not tried; replanned from the facts
    assert status == RUNNING
