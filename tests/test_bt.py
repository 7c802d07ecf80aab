"""Behavior trees: composites with and without memory, reactive nodes, decorators, actions and halting."""
import pytest

from ai.bt import (FAILURE, RUNNING, SUCCESS, ActionLeaf, ConditionNode, Context, Cooldown, Fail, Guard, Inverter,
                   Parallel, ReactiveFallback, ReactiveSequence, Repeat, Retry, Selector, Sequence, SetValue, Succeed,
                   Timeout, Tree, Wait)
from ai.conditions import Condition
from tests.aihelpers import FakeActuator


class Counter(ConditionNode):
    """A condition that counts how often it is ticked."""

    def __init__(self, fact, name=""):
        super().__init__(Condition(fact), name or fact)
        self.ticks = 0

    def tick(self, ctx):
        self.ticks += 1
        return super().tick(ctx)


def run(tree, facts=None, act=None, bb=None, now=0.0, mem=None):
    ctx = Context(mem if mem is not None else tree.new_memory(), facts if facts is not None else {},
                  bb if bb is not None else {}, act or FakeActuator(), now)
    return ctx


def test_action_stays_running_until_the_host_confirms_and_halt_cancels():
    act = FakeActuator()
    tree = Tree(ActionLeaf("move", 0, {"x": "$goal_x", "y": 3.0}))
    ctx = run(tree, {"goal_x": 7.0}, act)
    assert tree.tick(ctx) == RUNNING
    assert act.actions[1]["params"] == {"x": 7.0, "y": 3.0}
    assert tree.tick(ctx) == RUNNING and act.next_id == 2       # no second submission
    act.finish(1)
    assert tree.tick(ctx) == SUCCESS
    assert tree.tick(ctx) == RUNNING and act.next_id == 3       # a fresh pass submits again
    tree.halt(ctx)
    assert ("cancel", 2) in act.log
    assert ctx.mem == tree.new_memory()


def test_action_failure_reports_the_hosts_reason():
    act = FakeActuator()
    tree = Tree(ActionLeaf("attack", "$enemy"))
    ctx = run(tree, {"enemy": 12}, act)
    tree.tick(ctx)
    assert act.actions[1]["target"] == 12
    act.finish(1, ok=False, reason="path blocked")
    assert tree.tick(ctx) == FAILURE and "path blocked" in ctx.reason
    ctx2 = run(tree, {}, act)
    assert tree.tick(ctx2) == FAILURE and "'enemy' is unknown" in ctx2.reason


def test_sequence_with_memory_resumes_at_the_running_child():
    first = Counter("ok")
    act = FakeActuator()
    tree = Tree(Sequence([first, ActionLeaf("wait")], memory=True))
    ctx = run(tree, {"ok": True}, act)
    assert tree.tick(ctx) == RUNNING
    ctx.facts["ok"] = False
    assert tree.tick(ctx) == RUNNING            # the condition is not looked at again
    assert first.ticks == 1


def test_sequence_without_memory_restarts_each_tick_and_halts_what_it_no_longer_reaches():
    first = Counter("ok")
    act = FakeActuator()
    tree = Tree(Sequence([first, ActionLeaf("wait")], memory=False))
    ctx = run(tree, {"ok": True}, act)
    assert tree.tick(ctx) == RUNNING
    assert tree.tick(ctx) == RUNNING and first.ticks == 2
    ctx.facts["ok"] = False
    assert tree.tick(ctx) == FAILURE
    assert ("cancel", 1) in act.log


def test_selector_memory_vs_no_memory():
    act = FakeActuator()
    mem_tree = Tree(Selector([ConditionNode(Condition("urgent")), ActionLeaf("patrol")], memory=True))
    ctx = run(mem_tree, {"urgent": False}, act)
    assert mem_tree.tick(ctx) == RUNNING
    ctx.facts["urgent"] = True
    assert mem_tree.tick(ctx) == RUNNING        # stays with the running child
    act2 = FakeActuator()
    live = Tree(Selector([ConditionNode(Condition("urgent")), ActionLeaf("patrol")], memory=False))
    ctx2 = run(live, {"urgent": False}, act2)
    assert live.tick(ctx2) == RUNNING
    ctx2.facts["urgent"] = True
    assert live.tick(ctx2) == SUCCESS           # the higher-priority child wins and the patrol is halted
    assert ("cancel", 1) in act2.log


def test_reactive_sequence_rechecks_conditions_each_tick_but_not_finished_actions():
    visible = Counter("visible")
    act = FakeActuator()
    tree = Tree(ReactiveSequence([visible, ActionLeaf("approach"), ActionLeaf("shoot")]))
    ctx = run(tree, {"visible": True}, act)
    assert tree.tick(ctx) == RUNNING            # approach submitted
    act.finish(1)
    assert tree.tick(ctx) == RUNNING            # approach done -> shoot submitted
    assert act.kinds() == ["approach", "shoot"]
    assert tree.tick(ctx) == RUNNING
    assert visible.ticks == 3                   # re-checked every tick
    assert act.kinds() == ["approach", "shoot"] # approach was not run again
    ctx.facts["visible"] = False
    assert tree.tick(ctx) == FAILURE
    assert ("cancel", 2) in act.log


def test_reactive_fallback_lets_a_higher_priority_child_take_over():
    act = FakeActuator()
    tree = Tree(ReactiveFallback([Sequence([ConditionNode(Condition("danger")), ActionLeaf("flee")]), ActionLeaf("patrol")]))
    ctx = run(tree, {"danger": False}, act)
    assert tree.tick(ctx) == RUNNING and act.kinds() == ["patrol"]
    ctx.facts["danger"] = True
    assert tree.tick(ctx) == RUNNING and act.kinds() == ["patrol", "flee"]
    assert ("cancel", 1) in act.log


def test_parallel_policies():
    act = FakeActuator()
    tree = Tree(Parallel([ActionLeaf("a"), ActionLeaf("b")], success="all", failure="one"))
    ctx = run(tree, {}, act)
    assert tree.tick(ctx) == RUNNING
    act.finish(1)
    assert tree.tick(ctx) == RUNNING            # a done, b still running; a is not resubmitted
    assert act.next_id == 3
    act.finish(2)
    assert tree.tick(ctx) == SUCCESS
    act = FakeActuator()
    one = Tree(Parallel([ActionLeaf("a"), ActionLeaf("b")], success="one", failure="all"))
    ctx = run(one, {}, act)
    one.tick(ctx)
    act.finish(2)
    assert one.tick(ctx) == SUCCESS and ("cancel", 1) in act.log
    act = FakeActuator()
    fail = Tree(Parallel([ActionLeaf("a"), ActionLeaf("b")], success="all", failure="one"))
    ctx = run(fail, {}, act)
    fail.tick(ctx)
    act.finish(1, ok=False)
    assert fail.tick(ctx) == FAILURE and ("cancel", 2) in act.log
    with pytest.raises(ValueError):
        Parallel([Succeed()], success=3)


def test_decorators():
    ctx = run(Tree(Inverter(Fail())))
    assert Tree(Inverter(Fail())).tick(ctx) == SUCCESS
    # repeat 3 times: one completion per tick
    rep = Tree(Repeat(Succeed(), 3))
    ctx = run(rep)
    assert [rep.tick(ctx) for _ in range(3)] == [RUNNING, RUNNING, SUCCESS]
    # retry: fails twice then gives up
    act = FakeActuator()
    retry = Tree(Retry(ActionLeaf("open_door"), 2))
    ctx = run(retry, {}, act)
    retry.tick(ctx)
    act.finish(1, ok=False)
    assert retry.tick(ctx) == RUNNING
    assert retry.tick(ctx) == RUNNING and act.next_id == 3
    act.finish(2, ok=False)
    assert retry.tick(ctx) == FAILURE


def test_timeout_halts_the_child_and_fails():
    act = FakeActuator()
    tree = Tree(Timeout(ActionLeaf("move"), 1.0))
    ctx = run(tree, {}, act, now=10.0)
    assert tree.tick(ctx) == RUNNING
    ctx.now = 10.5
    assert tree.tick(ctx) == RUNNING
    ctx.now = 11.0
    assert tree.tick(ctx) == FAILURE and ("cancel", 1) in act.log and "timed out" in ctx.reason


def test_cooldown_blocks_the_child_after_it_finished():
    tree = Tree(Cooldown(Succeed(), 2.0))
    ctx = run(tree, now=0.0)
    assert tree.tick(ctx) == SUCCESS
    ctx.now = 1.9
    assert tree.tick(ctx) == FAILURE and "cooling down" in ctx.reason
    ctx.now = 2.0
    assert tree.tick(ctx) == SUCCESS


def test_guard_halts_its_child_when_a_condition_fails():
    act = FakeActuator()
    tree = Tree(Guard(ActionLeaf("reload"), [Condition("safe")]))
    ctx = run(tree, {"safe": True}, act)
    assert tree.tick(ctx) == RUNNING
    ctx.facts["safe"] = False
    assert tree.tick(ctx) == FAILURE and ("cancel", 1) in act.log


def test_wait_set_and_blackboard_refs():
    tree = Tree(Sequence([SetValue("spot", "$here"), Wait(0.5), ActionLeaf("move", 0, {"x": "$spot"})]))
    act = FakeActuator()
    ctx = run(tree, {"here": 4.0}, act, now=1.0)
    assert tree.tick(ctx) == RUNNING and ctx.bb["spot"] == 4.0
    ctx.now = 1.5
    assert tree.tick(ctx) == RUNNING
    assert act.actions[1]["params"] == {"x": 4.0}


def test_running_path_and_memory_is_plain_numbers():
    import msgpack
    act = FakeActuator()
    tree = Tree(Selector([ConditionNode(Condition("x"), "check"), Sequence([Succeed(), ActionLeaf("go", name="go")],
                                                                            name="do")], name="root"))
    ctx = run(tree, {"x": False}, act)
    tree.tick(ctx)
    assert tree.running_path(ctx.mem) == ["root", "do", "go"]
    assert msgpack.unpackb(msgpack.packb(ctx.mem)) == ctx.mem


def test_a_node_cannot_appear_twice():
    leaf = Succeed()
    with pytest.raises(ValueError, match="appears twice"):
        Tree(Sequence([leaf, leaf]))
