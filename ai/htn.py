"""Hierarchical task network planning (seed 003, "HTN分解与状态推进").

A planner node holds a temporary state, the list of pending tasks and the
plan so far. The first pending task is taken: a *primitive* task whose
preconditions hold applies its effects to the temporary state and joins the
plan; a *compound* task tries its methods in order, each putting its subtasks
at the head of the list. When a method fails, every temporary effect applied
since it was chosen is rolled back (an undo log, so the trace can show it)
before the next method is tried. (temporary state, pending tasks) pairs
already explored are not explored again, and decomposition stops at a depth
limit, so recursive methods cannot expand forever.

Planning never touches the world: the temporary state is a copy of the fact
snapshot, and the result is only a list of primitive tasks for the executor.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ai.goap import BUDGET, NO_PLAN, PLAN, satisfied

DEFAULT_DEPTH = 64


@dataclass(frozen=True)
class Primitive:
    name: str
    preconditions: dict = field(default_factory=dict)
    effects: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Method:
    name: str
    preconditions: dict = field(default_factory=dict)
    subtasks: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "subtasks", tuple(self.subtasks))


@dataclass(frozen=True)
class Compound:
    name: str
    methods: tuple = ()


class Domain:
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
    status: str
    plan: list = field(default_factory=list)       # primitive task names in order
    events: list = field(default_factory=list)     # (depth, kind, *details): cheap to record, see ``trace``
    nodes: int = 0

    @property
    def ok(self) -> bool:
        return self.status == PLAN

    @property
    def trace(self) -> list[tuple[int, str]]:
        """(depth, what happened) for every step of the search: methods tried, failures, rollbacks."""
        return [(e[0], _TRACE[e[1]].format(*e[2:])) for e in self.events]


class _Search:
    def __init__(self, domain: Domain, state: dict, depth_limit: int, budget: int):
        self.domain = domain
        self.state = dict(state)                    # the temporary state (a copy)
        self.depth_limit = depth_limit
        self.budget = budget
        self.seen: set = set()
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

    def solve(self, tasks: tuple, plan: list, depth: int) -> bool:
        if not tasks:
            return True
        if self.nodes >= self.budget:
            self.exhausted = True
            return False
        self.nodes += 1
        key = (frozenset(self.state.items()), tasks)
        if key in self.seen:
            self.trace.append((depth, "dup", list(tasks)))
            return False
        self.seen.add(key)
        if depth >= self.depth_limit:
            self.trace.append((depth, "depth", self.depth_limit, tasks[0]))
            return False
        head, rest = tasks[0], tasks[1:]
        task = self.domain.tasks[head]
        if isinstance(task, Primitive):
            if not satisfied(self.state, task.preconditions):
                missing = {k: v for k, v in task.preconditions.items() if self.state.get(k, _ABSENT) != v}
                self.trace.append((depth, "pre", head, missing))
                return False
            undo = self.apply(task.effects)
            plan.append(head)
            self.trace.append((depth, "apply", head, task.effects))
            if self.solve(rest, plan, depth + 1):
                return True
            plan.pop()
            self.rollback(undo)
            self.trace.append((depth, "rollback", head, task.effects))
            return False
        for method in task.methods:
            if not satisfied(self.state, method.preconditions):
                missing = {k: v for k, v in method.preconditions.items() if self.state.get(k, _ABSENT) != v}
                self.trace.append((depth, "skip", head, method.name, missing))
                continue
            self.trace.append((depth, "try", head, method.name, list(method.subtasks)))
            if self.solve(method.subtasks + rest, plan, depth + 1):
                return True
            # every primitive below rolled back what it applied when its branch failed
            self.trace.append((depth, "failed", head, method.name))
            if self.exhausted:
                return False
        return False


_ABSENT = object()


def plan(domain: Domain, state: dict, task: str, *, depth_limit: int = DEFAULT_DEPTH,
         budget: int = 100_000) -> Result:
    """Decompose ``task`` from ``state``. PLAN with the primitive tasks, NO_PLAN, or BUDGET when ``budget``
    nodes were explored without an answer."""
    if task not in domain.tasks:
        raise KeyError(task)
    search = _Search(domain, state, depth_limit, budget)
    steps: list = []
    if search.solve((task,), steps, 0):
        return Result(PLAN, steps, search.trace, search.nodes)
    return Result(BUDGET if search.exhausted else NO_PLAN, [], search.trace, search.nodes)
