"""Behavior trees with per-NPC flat memory.

A ``Tree`` is an immutable node graph shared by every NPC that runs it; each
NPC owns only a flat list of numbers (``Tree.new_memory()``), one or more
slots per node. That makes a running tree plain data: it goes into snapshots
as it is, and ticking it allocates nothing.

Statuses (``ai.status``): ``SUCCESS``, ``FAILURE``, ``RUNNING`` (and ``IDLE`` for a node not
ticked since its last reset). Slot ``node.s`` always holds the node's status
from its last tick, so the running path can be read back for an inspector.

Composites
- ``Sequence(children, memory=True)`` / ``Selector(children, memory=True)``: with
  memory a tick resumes at the child that was RUNNING; without memory every
  tick starts again at the first child, re-ticking children that already
  succeeded (a running child that is no longer reached is halted).
- ``ReactiveSequence``: every tick re-checks its *instant* children (conditions
  and other nodes that never run across ticks) from the start, but does not
  re-run *actions* that already succeeded in this pass; when a re-checked
  condition fails the running child is halted and the sequence fails.
- ``ReactiveFallback``: every tick re-ticks its children from the start; a
  higher-priority child that succeeds or starts running halts the lower one
  that was running.
- ``Parallel(children, success, failure)``: ticks every unfinished child; SUCCESS
  once ``success`` children succeeded, FAILURE once ``failure`` failed (or
  success became impossible); the rest are halted.

Decorators: ``Inverter``, ``Repeat(n)`` (0 = forever; one completion per tick),
``Retry(n)``, ``Timeout(seconds)``, ``Cooldown(seconds)``, ``Guard(conditions)``.

Leaves: ``ConditionNode``, ``ActionLeaf`` (submits to the host through the context's
actuator and stays RUNNING until the host reports a terminal state; halting
it cancels the action), ``Wait(seconds)``, ``SetValue`` (blackboard write),
``Succeed``/``Fail``, and the ``Plan`` leaves ``Achieve`` (a GOAP goal) and
``Perform`` (an HTN task) that delegate to a planner through the context.

The host side is the ``Actuator`` protocol: ``submit(kind, target, params) ->
id or None``, ``status(id) -> (status, reason)``, ``cancel(id)``.
"""
from __future__ import annotations

from typing import Protocol

from ai.conditions import Condition, lookup, _MISSING
from ai.status import FAILURE, IDLE, RUNNING, SUCCESS, Status


class Actuator(Protocol):
    def submit(self, kind: str, target: int, params: dict) -> int | None: ...

    def status(self, action_id: int) -> tuple[int, str]: ...

    def cancel(self, action_id: int) -> None: ...


class Context:
    """What a tick sees: the NPC's memory, facts, blackboard, actuator and the game time in seconds."""
    __slots__ = ("mem", "facts", "bb", "actuator", "now", "reason", "planner", "events")

    def __init__(self, mem: list, facts: dict, bb: dict, actuator=None, now: float = 0.0, planner=None):
        self.mem = mem
        self.facts = facts
        self.bb = bb
        self.actuator = actuator
        self.now = now
        self.reason = ""          # why the last leaf failed: a string, or the failing node (formatted by why())
        self.planner = planner    # plan leaves call into it (see ai/executor.py)
        self.events = []          # (node name, what happened) this tick, for records

    def why(self) -> str:
        """The last failure as text (conditions leave just themselves, so failing is cheap)."""
        r = self.reason
        return r.failure_text() if isinstance(r, Node) else r

    def resolve(self, value):
        """A ``"$name"`` string is replaced by the fact (or blackboard value) of that name."""
        if isinstance(value, str) and value.startswith("$"):
            got = lookup(value[1:], self.facts, self.bb)
            if got is _MISSING:
                raise KeyError(value[1:])
            return got
        return value


class Node:
    """Base class. ``nslots`` slots of memory starting at ``s`` (assigned by ``Tree``)."""
    type_name = "node"
    nslots = 1
    instant = False          # never RUNNING across ticks (conditions, writes): reactive nodes re-check these

    def __init__(self, name: str = ""):
        self.name = name or self.type_name
        self.children: tuple[Node, ...] = ()
        self.s = -1

    def tick(self, ctx: Context) -> int:
        raise NotImplementedError

    def halt(self, ctx: Context) -> None:
        """Stop whatever runs below this node and forget its progress."""
        mem = ctx.mem
        for child in self.children:
            if mem[child.s] == RUNNING:
                child.halt(ctx)
        for i in range(self.s, self.s + self.nslots):
            mem[i] = 0

    def _reset(self, mem: list, status: int) -> int:
        """Finish this node: progress slots back to 0, status slot set."""
        s = self.s
        for i in range(s + 1, s + self.nslots):
            mem[i] = 0
        mem[s] = status
        return status

    def _halt_running(self, ctx: Context, start: int = 0, skip: int = -1) -> None:
        mem = ctx.mem
        children = self.children
        for j in range(start, len(children)):
            if j != skip and mem[children[j].s] == RUNNING:
                children[j].halt(ctx)

    def describe(self) -> str:
        return self.type_name

    def failure_text(self) -> str:
        return f"{self.name} failed"


# -- composites ----------------------------------------------------------------------------------------------
class _Ordered(Node):
    """Sequence and selector are mirror images: tick children in order while they return ``go_on``; the first
    other result ends the composite with that result; all ``go_on`` ends it with ``go_on``."""
    nslots = 2                  # status; with memory the child to resume at, without it the running child + 1
    go_on = SUCCESS

    def __init__(self, children, memory: bool = True, name: str = ""):
        super().__init__(name)
        self.children = tuple(children)
        self.memory = bool(memory)

    def tick(self, ctx):
        mem = ctx.mem
        s = self.s
        children = self.children
        go_on = self.go_on
        if self.memory:
            i = mem[s + 1]
            n = len(children)
            while i < n:
                st = children[i].tick(ctx)
                if st == go_on:
                    i += 1
                    continue
                mem[s + 1] = i if st == RUNNING else 0
                mem[s] = st
                return st
            mem[s + 1] = 0
            mem[s] = go_on
            return go_on
        running = mem[s + 1] - 1                  # the child that was running, if any
        i = 0
        for child in children:
            st = child.tick(ctx)
            if st == go_on:
                i += 1
                continue
            if running > i and mem[children[running].s] == RUNNING:
                children[running].halt(ctx)       # no longer reached: stop it
            mem[s + 1] = i + 1 if st == RUNNING else 0
            mem[s] = st
            return st
        mem[s + 1] = 0
        mem[s] = go_on
        return go_on

    def describe(self):
        return self.type_name + ("" if self.memory else " (no memory)")


class Sequence(_Ordered):
    type_name = "sequence"
    go_on = SUCCESS


class Selector(_Ordered):
    type_name = "selector"
    go_on = FAILURE


class ReactiveSequence(Node):
    type_name = "reactive_sequence"
    nslots = 2                                   # status, index of the first action not yet completed

    def __init__(self, children, name: str = ""):
        super().__init__(name)
        self.children = tuple(children)

    def tick(self, ctx):
        mem = ctx.mem
        s = self.s
        done = mem[s + 1]
        children = self.children
        for i, child in enumerate(children):
            if i < done and not child.instant:
                continue                         # an action that already succeeded in this pass
            st = child.tick(ctx)
            if st == SUCCESS:
                if i >= done:
                    done = i + 1
                continue
            self._halt_running(ctx, 0, skip=i if st == RUNNING else -1)
            if st == RUNNING:
                mem[s + 1] = done
                mem[s] = RUNNING
                return RUNNING
            return self._reset(mem, FAILURE)
        return self._reset(mem, SUCCESS)


class ReactiveFallback(Node):
    type_name = "reactive_fallback"
    nslots = 1

    def __init__(self, children, name: str = ""):
        super().__init__(name)
        self.children = tuple(children)

    def tick(self, ctx):
        mem = ctx.mem
        for i, child in enumerate(self.children):
            st = child.tick(ctx)
            if st == FAILURE:
                continue
            self._halt_running(ctx, i + 1)
            mem[self.s] = st
            return st
        mem[self.s] = FAILURE
        return FAILURE


class Parallel(Node):
    type_name = "parallel"

    def __init__(self, children, success: int | str = "all", failure: int | str = "one", name: str = ""):
        super().__init__(name)
        self.children = tuple(children)
        n = len(self.children)
        self.success = self._threshold(success, n, "success")
        self.failure = self._threshold(failure, n, "failure")
        self.nslots = 1 + n                      # status, then each child's result in this pass

    @staticmethod
    def _threshold(value, n: int, what: str) -> int:
        if value == "all":
            return n
        if value == "one":
            return 1
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= max(1, n):
            raise ValueError(f"parallel {what} policy must be 'all', 'one' or 1..{n}, got {value!r}")
        return value

    def tick(self, ctx):
        mem = ctx.mem
        s = self.s
        ok = bad = 0
        for i, child in enumerate(self.children):
            result = mem[s + 1 + i]
            if result == 0:
                st = child.tick(ctx)
                if st != RUNNING:
                    mem[s + 1 + i] = st
                    result = st
            if result == SUCCESS:
                ok += 1
            elif result == FAILURE:
                bad += 1
        n = len(self.children)
        if bad >= self.failure or n - bad < self.success:
            self._halt_running(ctx)
            return self._reset(mem, FAILURE)
        if ok >= self.success:
            self._halt_running(ctx)
            return self._reset(mem, SUCCESS)
        mem[s] = RUNNING
        return RUNNING

    def describe(self):
        return f"parallel (success {self.success}, failure {self.failure})"


# -- decorators -------------------------------------------------------------------------------------------------
class Decorator(Node):
    def __init__(self, child: Node, name: str = ""):
        super().__init__(name)
        self.children = (child,)

    @property
    def child(self) -> Node:
        return self.children[0]


class Inverter(Decorator):
    type_name = "inverter"

    @property
    def instant(self):
        return self.child.instant

    def tick(self, ctx):
        st = self.child.tick(ctx)
        if st == SUCCESS:
            st = FAILURE
        elif st == FAILURE:
            st = SUCCESS
        ctx.mem[self.s] = st
        return st


class Repeat(Decorator):
    """Run the child ``times`` times (0 = forever); fails as soon as the child fails."""
    type_name = "repeat"
    nslots = 2

    def __init__(self, child: Node, times: int = 0, name: str = ""):
        super().__init__(child, name)
        if isinstance(times, bool) or not isinstance(times, int) or times < 0:
            raise ValueError("repeat times must be a whole number >= 0 (0 = forever)")
        self.times = times

    def tick(self, ctx):
        mem = ctx.mem
        s = self.s
        st = self.child.tick(ctx)
        if st == FAILURE:
            return self._reset(mem, FAILURE)
        if st == SUCCESS:
            mem[s + 1] += 1
            if self.times and mem[s + 1] >= self.times:
                return self._reset(mem, SUCCESS)
        mem[s] = RUNNING                         # the child restarts on the next tick
        return RUNNING

    def describe(self):
        return f"repeat {self.times or 'forever'}"


class Retry(Decorator):
    """Run the child until it succeeds, at most ``attempts`` times."""
    type_name = "retry"
    nslots = 2

    def __init__(self, child: Node, attempts: int = 3, name: str = ""):
        super().__init__(child, name)
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
            raise ValueError("retry attempts must be a whole number >= 1")
        self.attempts = attempts

    def tick(self, ctx):
        mem = ctx.mem
        s = self.s
        st = self.child.tick(ctx)
        if st == SUCCESS:
            return self._reset(mem, SUCCESS)
        if st == FAILURE:
            mem[s + 1] += 1
            if mem[s + 1] >= self.attempts:
                return self._reset(mem, FAILURE)
        mem[s] = RUNNING
        return RUNNING

    def describe(self):
        return f"retry {self.attempts}"


def _check_seconds(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < 1e9):
        raise ValueError(f"{what} must be a number of seconds > 0")
    return float(value)


class Timeout(Decorator):
    """Fail (halting the child) when it has not finished within ``seconds``."""
    type_name = "timeout"
    nslots = 3                                   # status, started flag, start time

    def __init__(self, child: Node, seconds: float, name: str = ""):
        super().__init__(child, name)
        self.seconds = _check_seconds(seconds, "timeout")

    def tick(self, ctx):
        mem = ctx.mem
        s = self.s
        if not mem[s + 1]:
            mem[s + 1] = 1
            mem[s + 2] = ctx.now
        elif ctx.now - mem[s + 2] >= self.seconds:
            if mem[self.child.s] == RUNNING:
                self.child.halt(ctx)
            ctx.reason = f"{self.name}: timed out after {self.seconds:g} s"
            return self._reset(mem, FAILURE)
        st = self.child.tick(ctx)
        if st == RUNNING:
            mem[s] = RUNNING
            return RUNNING
        return self._reset(mem, st)

    def describe(self):
        return f"timeout {self.seconds:g} s"


class Cooldown(Decorator):
    """After the child finishes, fail without ticking it for ``seconds``."""
    type_name = "cooldown"
    nslots = 2                                   # status, ready-at time

    def __init__(self, child: Node, seconds: float, name: str = ""):
        super().__init__(child, name)
        self.seconds = _check_seconds(seconds, "cooldown")

    def tick(self, ctx):
        mem = ctx.mem
        s = self.s
        if ctx.now < mem[s + 1]:
            mem[s] = FAILURE
            ctx.reason = f"{self.name}: cooling down"
            return FAILURE
        st = self.child.tick(ctx)
        mem[s] = st
        if st != RUNNING:
            mem[s + 1] = ctx.now + self.seconds
        return st

    def halt(self, ctx):
        ready = ctx.mem[self.s + 1]              # halting does not reset the cooldown clock
        super().halt(ctx)
        ctx.mem[self.s + 1] = ready

    def describe(self):
        return f"cooldown {self.seconds:g} s"


class Guard(Decorator):
    """Tick the child only while every condition holds; when one fails the child is halted."""
    type_name = "guard"

    def __init__(self, child: Node, conditions, name: str = ""):
        super().__init__(child, name)
        self.conditions = tuple(conditions)

    def tick(self, ctx):
        facts, bb = ctx.facts, ctx.bb
        for cond in self.conditions:
            if not cond.check(facts, bb):
                if ctx.mem[self.child.s] == RUNNING:
                    self.child.halt(ctx)
                ctx.reason = f"{self.name}: guard failed: {cond}"
                ctx.mem[self.s] = FAILURE
                return FAILURE
        st = self.child.tick(ctx)
        ctx.mem[self.s] = st
        return st

    def describe(self):
        return "guard " + ", ".join(map(str, self.conditions))


# -- leaves ---------------------------------------------------------------------------------------------------
class ConditionNode(Node):
    type_name = "condition"
    instant = True

    def __init__(self, condition: Condition, name: str = ""):
        super().__init__(name)
        self.condition = condition
        self.fact = condition.fact
        self.test = condition.test

    def tick(self, ctx):
        actual = ctx.facts.get(self.fact, _MISSING)
        if actual is _MISSING:
            actual = ctx.bb.get(self.fact, _MISSING)
        if self.test(actual):
            ctx.mem[self.s] = SUCCESS
            return SUCCESS
        ctx.reason = self                          # formatted only if someone asks (Context.why)
        ctx.mem[self.s] = FAILURE
        return FAILURE

    def failure_text(self) -> str:
        return f"{self.name}: {self.condition} is false"

    def describe(self):
        return f"if {self.condition}"


class ActionLeaf(Node):
    """Submit ``kind`` to the host and wait for its terminal state. ``$name`` params read facts/blackboard."""
    type_name = "action"
    nslots = 2                                   # status, action id

    def __init__(self, kind: str, target=0, params: dict | None = None, name: str = ""):
        super().__init__(name or kind)
        self.kind = kind
        self.target = target
        self.params = dict(params or {})

    def tick(self, ctx):
        mem = ctx.mem
        s = self.s
        aid = mem[s + 1]
        if not aid:
            try:
                target = ctx.resolve(self.target)
                params = {k: ctx.resolve(v) for k, v in self.params.items()}
            except KeyError as exc:
                ctx.reason = f"{self.name}: '{exc.args[0]}' is unknown"
                return self._reset(mem, FAILURE)
            if not isinstance(target, int) or isinstance(target, bool):
                ctx.reason = f"{self.name}: target {target!r} is not an entity"
                return self._reset(mem, FAILURE)
            aid = ctx.actuator.submit(self.kind, target, params)
            if not aid:
                ctx.reason = f"{self.name}: could not be submitted"
                return self._reset(mem, FAILURE)
            mem[s + 1] = aid
            ctx.events.append((self.name, f"submitted {self.kind} #{aid}"))
            mem[s] = RUNNING
            return RUNNING
        st, reason = ctx.actuator.status(aid)
        if st == RUNNING:
            mem[s] = RUNNING
            return RUNNING
        ctx.events.append((self.name, f"{self.kind} #{aid} {'confirmed' if st == SUCCESS else reason}"))
        if st == FAILURE:
            ctx.reason = f"{self.name}: {reason}"
        return self._reset(mem, st)

    def halt(self, ctx):
        aid = ctx.mem[self.s + 1]
        if aid and ctx.mem[self.s] == RUNNING:
            ctx.actuator.cancel(aid)
            ctx.events.append((self.name, f"cancelled {self.kind} #{aid}"))
        super().halt(ctx)

    def describe(self):
        extra = "".join(f" {k}={v}" for k, v in self.params.items())
        return f"{self.kind}{' ' + str(self.target) if self.target else ''}{extra}"


class Wait(Node):
    """RUNNING until ``seconds`` of game time have passed since it started (no host action)."""
    type_name = "wait"
    nslots = 2                                   # status, end time

    def __init__(self, seconds: float, name: str = ""):
        super().__init__(name)
        self.seconds = _check_seconds(seconds, "wait")

    def tick(self, ctx):
        mem = ctx.mem
        s = self.s
        if mem[s] != RUNNING:
            mem[s + 1] = ctx.now + self.seconds
        if ctx.now >= mem[s + 1]:
            return self._reset(mem, SUCCESS)
        mem[s] = RUNNING
        return RUNNING

    def describe(self):
        return f"wait {self.seconds:g} s"


class SetValue(Node):
    """Write ``value`` (a constant or a ``$name``) into the blackboard under ``key``; succeeds."""
    type_name = "set"
    instant = True

    def __init__(self, key: str, value, name: str = ""):
        super().__init__(name)
        self.key = key
        self.value = value

    def tick(self, ctx):
        try:
            ctx.bb[self.key] = ctx.resolve(self.value)
        except KeyError as exc:
            ctx.reason = f"{self.name}: '{exc.args[0]}' is unknown"
            ctx.mem[self.s] = FAILURE
            return FAILURE
        ctx.mem[self.s] = SUCCESS
        return SUCCESS

    def describe(self):
        return f"set {self.key} = {self.value}"


class Succeed(Node):
    type_name = "succeed"
    instant = True

    def tick(self, ctx):
        ctx.mem[self.s] = SUCCESS
        return SUCCESS


class Fail(Node):
    type_name = "fail"
    instant = True

    def tick(self, ctx):
        ctx.mem[self.s] = FAILURE
        ctx.reason = self
        return FAILURE

    def failure_text(self) -> str:
        return f"{self.name}: fails by design"


class Plan(Node):
    """Reach ``goal`` through the context's planner, which plans with ``mode`` ('goap' or 'htn').

    The plan itself lives with the context's planner (ai/executor.py), which submits each step to the host
    and advances only on confirmation; this leaf is RUNNING while the plan runs and halting it cancels it.
    Its two content types are ``Achieve`` (a GOAP goal) and ``Perform`` (an HTN task); the planner's API
    calls either its ``goal``.
    """
    mode = ""                # the planner ai/executor.py runs for this leaf: "goap" or "htn"

    def __init__(self, goal: str, name: str = ""):
        super().__init__(name or f"{self.mode}:{goal}")
        self.goal = goal

    def tick(self, ctx):
        if ctx.planner is None:
            ctx.reason = f"{self.name}: no planner attached"
            ctx.mem[self.s] = FAILURE
            return FAILURE
        fresh = ctx.mem[self.s] != RUNNING
        st, reason = ctx.planner.run(ctx, self.mode, self.goal, fresh)
        if st == FAILURE:
            ctx.reason = f"{self.name}: {reason}"
        ctx.mem[self.s] = st
        return st

    def halt(self, ctx):
        if ctx.mem[self.s] == RUNNING and ctx.planner is not None:
            ctx.planner.stop(ctx, self.mode, self.goal)
        super().halt(ctx)


class Achieve(Plan):
    """Plan with GOAP (ai/goap.py) towards ``goal`` and run the plan."""
    type_name = "achieve"
    mode = "goap"

    def describe(self):
        return f"achieve {self.goal}"


class Perform(Plan):
    """Decompose the HTN task ``task`` (ai/htn.py) and run the steps."""
    type_name = "perform"
    mode = "htn"

    def __init__(self, task: str, name: str = ""):
        super().__init__(task, name)

    def describe(self):
        return f"perform {self.goal}"


# -- the tree -----------------------------------------------------------------------------------------------
class Tree:
    """A root node with memory slots assigned depth-first; shared by every NPC running it."""

    def __init__(self, root: Node, name: str = ""):
        self.root = root
        self.name = name
        self.nodes: list[Node] = []
        size = 0
        stack = [root]
        seen = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                raise ValueError(f"node '{node.name}' appears twice in tree '{name}' (trees cannot share or loop)")
            seen.add(id(node))
            node.s = size
            size += node.nslots
            self.nodes.append(node)
            stack.extend(reversed(node.children))
        self.size = size

    def new_memory(self) -> list:
        return [0] * self.size

    def tick(self, ctx: Context) -> int:
        return self.root.tick(ctx)

    def halt(self, ctx: Context) -> None:
        if ctx.mem[self.root.s] == RUNNING:
            self.root.halt(ctx)
        else:
            for i in range(self.size):
                ctx.mem[i] = 0

    def running_path(self, mem: list) -> list[str]:
        """Names of the RUNNING nodes from the root down (what the NPC is doing now)."""
        path = []
        node = self.root
        while node is not None and mem[node.s] == RUNNING:
            path.append(node.name)
            node = next((c for c in node.children if mem[c.s] == RUNNING), None)
        return path
