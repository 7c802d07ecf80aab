"""Hierarchical task network planning (the rules, step by step: docs/rules/htn.md).

A planner node holds a temporary state, the list of pending tasks and the
plan so far. The first pending task is taken: a *primitive* task whose
preconditions hold applies its effects to the temporary state and joins the
plan; a *compound* task tries its methods in order, each putting its subtasks
at the head of the list. When a method fails, every temporary effect applied
since it was chosen is rolled back (an undo log, so the trace can show it)
before the next method is tried. (temporary state, pending tasks) pairs
already explored with at least as much depth to spare are not explored again,
and decomposition stops at a depth limit (nested compound tasks), so recursive
methods cannot expand forever. The search keeps its own stack: no Python
recursion, whatever the depth limit.

Planning never touches the world: the temporary state is a copy of the fact
snapshot, and the result is only a list of primitive tasks for the executor.

A guard whose cover is behind a locked door: walking in fails, so the second
method fetches the key first.

    >>> domain = Domain(
    ...     [Primitive("enter_cover", {"door_open": True}, {"in_cover": True}),
    ...      Primitive("get_key", {"key_known": True}, {"has_key": True}),
    ...      Primitive("unlock_door", {"has_key": True}, {"door_open": True})],
    ...     [Compound("take_cover", (Method("walk_in", {}, ["enter_cover"]),
    ...                              Method("fetch_key", {}, ["get_key", "unlock_door", "enter_cover"])))])
    >>> plan(domain, {"door_open": False, "key_known": True}, "take_cover").plan
    ['get_key', 'unlock_door', 'enter_cover']
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ai.goap import BUDGET, NO_PLAN, PLAN, satisfied

DEFAULT_DEPTH = 64
DEFAULT_BUDGET = 5000       # task lists examined before 'budget exhausted' (content may raise it to 10,000)


@dataclass(frozen=True)
class Primitive:
    """A task the host can carry out: it applies when its ``preconditions`` hold and writes its ``effects``.

    >>> Primitive("get_key", {"key_known": True}, {"has_key": True}).effects
    {'has_key': True}
    """
    name: str
    preconditions: dict = field(default_factory=dict)
    effects: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Method:
    """One way to do a compound task: when its ``preconditions`` hold, do ``subtasks`` (task names) in order.

    >>> Method("walk_in", {"door_open": True}, ["enter_cover"]).subtasks   # kept as a tuple
    ('enter_cover',)
    """
    name: str
    preconditions: dict = field(default_factory=dict)
    subtasks: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "subtasks", tuple(self.subtasks))


@dataclass(frozen=True)
class Compound:
    """A task done by the first of its ``methods`` (tried in order) that leads to a full plan.

    >>> take_cover = Compound("take_cover", (Method("walk_in", {"door_open": True}, ["enter_cover"]),))
    >>> [m.name for m in take_cover.methods]
    ['walk_in']
    """
    name: str
    methods: tuple = ()


class Domain:
    """Primitive and compound tasks by name (``tasks``). Raises ``ValueError`` when a name is defined twice, a
    compound has no methods, or a method names an unknown task.

    >>> Domain([Primitive("a")], [Compound("c", (Method("m", {}, ["b"]),))])
    Traceback (most recent call last):
    ...
    ValueError: method 'm' of 'c' names unknown task 'b'
    """

    def __init__(self, primitives=(), compounds=()):
        self.tasks: dict = {}
        for task in list(primitives) + list(compounds):
            if task.name in self.tasks:
                raise ValueError(f"task '{task.name}' is defined twice")
            self.tasks[task.name] = task
        for task in compounds:
            if not task.methods:
                raise ValueError(f"compound task '{task.name}' has no methods")
            for method in task.methods:
                for sub in method.subtasks:
                    if sub not in self.tasks:
                        raise ValueError(f"method '{method.name}' of '{task.name}' names unknown task '{sub}'")


_TRACE = {
    "dup": "already explored {0} from this state",
    "depth": "depth limit {0} reached at {1}",
    "pre": "{0}: preconditions fail {1}",
    "apply": "{0}: applied {1}",
    "rollback": "{0}: rolled back {1}",
    "skip": "{0}: method {1} skipped, preconditions fail {2}",
    "try": "{0}: trying method {1} -> {2}",
    "failed": "{0}: method {1} failed, its temporary effects rolled back",
}


@dataclass
class Result:
    """``status`` (``PLAN``, ``NO_PLAN`` or ``BUDGET``), the ``plan`` (primitive task names in order), the search
    ``events`` and the number of ``nodes`` (task lists) examined.

    >>> result = plan(Domain([Primitive("open", {"has_key": True}, {"door_open": True})]), {}, "open")
    >>> result.ok, result.status, result.plan
    (False, 'no plan', [])
    """
    status: str
    plan: list = field(default_factory=list)       # primitive task names in order
    events: list = field(default_factory=list)     # (depth, kind, *details): cheap to record, see ``trace``
    nodes: int = 0

    @property
    def ok(self) -> bool:
        """True when a plan was found (see the class example)."""
        return self.status == PLAN

    @property
    def trace(self) -> list[tuple[int, str]]:
        """(depth, what happened) for every step of the search: methods tried, failures, rollbacks.

        >>> domain = Domain([Primitive("open", {"has_key": True}, {"door_open": True}), Primitive("wait")],
        ...                 [Compound("enter", (Method("unlock", {}, ["open"]), Method("wait_it_out", {}, ["wait"])))])
        >>> for depth, line in plan(domain, {}, "enter").trace:
        ...     print(depth, line)
        0 enter: trying method unlock -> ['open']
        1 open: preconditions fail {'has_key': True}
        0 enter: method unlock failed, its temporary effects rolled back
        0 enter: trying method wait_it_out -> ['wait']
        1 wait: applied {}
        """
        return [(e[0], _TRACE[e[1]].format(*e[2:])) for e in self.events]


class _Search:
    """The depth-first search of docs/rules/htn.md, without Python recursion: each task list being solved is a
    generator on an explicit stack (``run``), so neither a deep decomposition nor a long plan can exhaust the
    interpreter's stack. A pending task is ``(name, depth)``: its decomposition depth, the number of compound
    tasks it is nested in (the root is at 0; a method's subtasks are one deeper than their compound)."""

    def __init__(self, domain: Domain, state: dict, depth_limit: int, budget: int):
        self.domain = domain
        self.state = dict(state)                    # the temporary state (a copy)
        self.depth_limit = depth_limit
        self.budget = budget
        self.seen: dict = {}                        # (state, task names) -> the depths it was explored at
        self.trace: list = []
        self.nodes = 0
        self.exhausted = False

    def apply(self, effects: dict) -> list:
        undo = [(k, self.state.get(k, _ABSENT)) for k in effects]
        self.state.update(effects)
        return undo

    def rollback(self, undo: list) -> None:
        for key, old in reversed(undo):
            if old is _ABSENT:
                self.state.pop(key, None)
            else:
                self.state[key] = old

    def run(self, task: str, plan: list) -> bool:
        """Solve ``((task, 0),)``; the stack of generators stands in for recursion."""
        stack = [self.solve(((task, 0),), plan)]
        value = None
        while True:
            try:
                child = stack[-1].send(value)
            except StopIteration as stop:
                stack.pop()
                value = stop.value
                if not stack:
                    return value
                continue
            if not child:                           # an empty task list: success, without a frame
                value = True
                continue
            stack.append(self.solve(child, plan))
            value = None

    def solve(self, tasks: tuple, plan: list):
        """One task list: yields the task lists to solve next and receives whether they succeeded."""
        if self.nodes >= self.budget:
            self.exhausted = True
            return False
        self.nodes += 1
        (head, depth), rest = tasks[0], tasks[1:]
        names = tuple(name for name, _ in tasks)
        depths = tuple(d for _, d in tasks)
        key = (frozenset(self.state.items()), names)
        before = self.seen.get(key)
        # explored before with as much room (every task no deeper) -> it failed then and fails now; explored only
        # deeper (a depth cut may have ended it) -> try again with the room there is now
        if before is not None and all(b <= d for b, d in zip(before, depths)):
            self.trace.append((depth, "dup", list(names)))
            return False
        self.seen[key] = depths
        task = self.domain.tasks[head]
        if isinstance(task, Primitive):
            if not satisfied(self.state, task.preconditions):
                missing = {k: v for k, v in task.preconditions.items() if self.state.get(k, _ABSENT) != v}
                self.trace.append((depth, "pre", head, missing))
                return False
            undo = self.apply(task.effects)
            plan.append(head)
            self.trace.append((depth, "apply", head, task.effects))
            if (yield rest):
                return True
            plan.pop()
            self.rollback(undo)
            self.trace.append((depth, "rollback", head, task.effects))
            return False
        if depth >= self.depth_limit:
            self.trace.append((depth, "depth", self.depth_limit, head))
            return False
        for method in task.methods:
            if not satisfied(self.state, method.preconditions):
                missing = {k: v for k, v in method.preconditions.items() if self.state.get(k, _ABSENT) != v}
                self.trace.append((depth, "skip", head, method.name, missing))
                continue
            self.trace.append((depth, "try", head, method.name, list(method.subtasks)))
            if (yield tuple((sub, depth + 1) for sub in method.subtasks) + rest):
                return True
            # every primitive below rolled back what it applied when its branch failed
            self.trace.append((depth, "failed", head, method.name))
            if self.exhausted:
                return False
        return False


_ABSENT = object()


def plan(domain: Domain, state: dict, task: str, *, depth_limit: int = DEFAULT_DEPTH,
         budget: int = DEFAULT_BUDGET) -> Result:
    """Decompose ``task`` from ``state``. PLAN with the primitive tasks, NO_PLAN, or BUDGET when ``budget``
    nodes were explored without an answer.

    ``state`` is copied (the temporary state); ``depth_limit`` bounds the decomposition depth: a compound task
    nested in ``depth_limit`` others is not decomposed (primitive steps do not count, so a method of 20
    primitives plans with ``depth_limit=1``). Raises ``KeyError`` for an unknown ``task``.

    A failed branch rolls back what it applied, so the second method starts from the original state:

    >>> domain = Domain(
    ...     [Primitive("grab", {}, {"holding": True}), Primitive("climb", {"holding": False}, {"up": True})],
    ...     [Compound("get_up", (Method("grab_then_climb", {}, ["grab", "climb"]),
    ...                          Method("just_climb", {}, ["climb"])))])
    >>> result = plan(domain, {"holding": False}, "get_up")
    >>> result.status, result.plan
    ('plan', ['climb'])

    A method that only repeats its own task is cut instead of recursing forever:

    >>> again = Domain([], [Compound("loop", (Method("again", {}, ["loop"]),))])
    >>> plan(again, {}, "loop").status
    'no plan'

    No Python recursion: a method recursing on its first subtask runs to the depth limit, whatever it is:

    >>> count = Domain([Primitive("step", {}, {"n": 1})],
    ...                [Compound("deep", (Method("down", {}, ["deep", "step"]), Method("stop", {}, ["step"])))])
    >>> result = plan(count, {}, "deep", depth_limit=5000, budget=20_000)
    >>> result.status, len(result.plan)
    ('plan', 5000)
    """
    if task not in domain.tasks:
        raise KeyError(task)
    search = _Search(domain, state, depth_limit, budget)
    steps: list = []
    if search.run(task, steps):
        return Result(PLAN, steps, search.trace, search.nodes)
    return Result(BUDGET if search.exhausted else NO_PLAN, [], search.trace, search.nodes)
