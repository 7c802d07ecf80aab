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

from ai.goap import BUDGET, NO_PLAN, PLAN

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
        #: the state keys some primitive writes, in a fixed order (the only facts a plan search can change); read
        #: once here, so a primitive's effects changed after the domain is built need a new ``Domain``
        self.written: tuple = tuple(sorted({k for t in self.tasks.values() if isinstance(t, Primitive)
                                            for k in t.effects}, key=str))


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
    #                                                (task lists in details are tuples; ``trace`` shows lists)
    nodes: int = 0
    #: (the domain's written keys, the search's temporary state): with an event's written values, what a failed
    #: precondition check read (``trace`` works out what was missing only when asked)
    facts: tuple = ((), None)

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
        out = []
        for e in self.events:
            details = e[2:]
            if e[1] in ("pre", "skip"):                # ..., the preconditions, the written values then
                details = details[:-2] + (self._missing(*details[-2:]),)
            out.append((e[0], _TRACE[e[1]].format(*(list(x) if isinstance(x, tuple) else x for x in details))))
        return out

    def _missing(self, pre: dict, current: tuple) -> dict:
        written, state = self.facts
        at = dict(zip(written, current))              # the keys a primitive writes, as they were then
        return {k: v for k, v in pre.items() if (at[k] if k in at else state.get(k, _ABSENT)) != v}


def _search(domain: Domain, state: dict, task: str, depth_limit: int, budget: int) -> Result:
    """The depth-first search of docs/rules/htn.md, without Python recursion: it keeps one frame per task
    list being solved on an explicit stack, so neither a deep decomposition nor a long plan can exhaust the
    interpreter's stack. A task list is two tuples, its task names and their decomposition depths (the number of
    compound tasks a task is nested in: the root is at 0, a method's subtasks are one deeper than their
    compound). The search ends at once when the budget runs out.

    A frame is ``[task names, their depths, undo log or None, index]``: a primitive head keeps what its effects
    overwrote (to roll back if the rest fails) and, as its index, the written values from before it; a
    compound head the index of the next method to try. The dedupe key of a task list is its task names with
    the values of the keys some primitive writes (``Domain`` lists them), kept up to date at each apply and
    rollback: the other facts of the temporary state cannot change during one search, so they need not be
    read at every node."""
    state = dict(state)                             # the temporary state (a copy)
    plan: list = []
    trace: list = []
    seen: dict = {}                                 # (written values, task names) -> the depths explored at
    tasks_of, written = domain.tasks, domain.written
    remember = seen.setdefault
    current = tuple([state.get(k, _ABSENT) for k in written])     # the written keys' values now
    nodes = 0
    frames: list = []
    # the task list to enter next as (names, depths), or None when the top frame goes on: a compound head tries
    # its next method (``fresh``: its first), a primitive head rolls back
    pending = ((task,), (0,))
    fresh = False
    while True:
        if pending is not None:
            names, depths = pending
            pending = None
            if not names:                           # nothing left to do: the plan is whole (every frame succeeds)
                return Result(PLAN, plan, trace, nodes, (written, state))
            if nodes >= budget:
                return Result(BUDGET, [], trace, nodes, (written, state))
            else:
                nodes += 1
                head = names[0]
                depth = depths[0]
                t = tasks_of[head]
                go = 0                                  # 2: the head applies, 3: it decomposes
                # a list that fails at once (its head's preconditions, or the depth limit) is not remembered:
                # it would fail the same way again, and checking is cheaper than a dedupe key
                if isinstance(t, Primitive):
                    pre = t.preconditions
                    for k, v in pre.items():
                        if state.get(k, _ABSENT) != v:
                            trace.append((depth, "pre", head, pre, current))
                            break
                    else:
                        go = 2
                elif depth >= depth_limit:
                    trace.append((depth, "depth", depth_limit, head))
                else:
                    go = 3
                fresh = False
                if go:
                    key = (current, names)
                    before = remember(key, depths)
                    # explored before with as much room (every task no deeper) -> it failed then and fails
                    # now; explored only deeper (a depth cut may have ended it) -> try again with the room
                    # there is now
                    if before is not depths and all(b <= d for b, d in zip(before, depths)):
                        trace.append((depth, "dup", names))
                    elif go == 2:
                        if before is not depths:
                            seen[key] = depths
                        effects = t.effects
                        undo = [(k, state.get(k, _ABSENT)) for k in effects]
                        state.update(effects)
                        plan.append(head)
                        trace.append((depth, "apply", head, effects))
                        frames.append([names, depths, undo, current])
                        current = tuple([state.get(k, _ABSENT) for k in written])
                        pending = (names[1:], depths[1:])
                        continue
                    else:
                        if before is not depths:
                            seen[key] = depths
                        frames.append([names, depths, None, 0])
                        fresh = True
        if not frames:
            return Result(NO_PLAN, [], trace, nodes, (written, state))
        frame = frames[-1]
        names, depths, undo, index = frame
        if undo is not None:                        # a primitive head whose rest failed
            plan.pop()
            for k, old in reversed(undo):
                if old is _ABSENT:
                    state.pop(k, None)
                else:
                    state[k] = old
            current = index                         # the written values from before the apply
            head = names[0]
            trace.append((depths[0], "rollback", head, tasks_of[head].effects))
            frames.pop()
            continue
        head = names[0]
        depth = depths[0]
        methods = tasks_of[head].methods
        if not fresh:                               # the method tried last failed
            # every primitive below rolled back what it applied when its branch failed
            trace.append((depth, "failed", head, methods[index - 1].name))
        while index < len(methods):
            method = methods[index]
            index += 1
            pre = method.preconditions
            for k, v in pre.items():
                if state.get(k, _ABSENT) != v:
                    trace.append((depth, "skip", head, method.name, pre, current))
                    break
            else:
                subtasks = method.subtasks
                trace.append((depth, "try", head, method.name, subtasks))
                frame[3] = index
                pending = (subtasks + names[1:], (depth + 1,) * len(subtasks) + depths[1:])
                break
        else:
            frames.pop()
            fresh = False


class _Absent:
    """What the temporary state holds for a key it lacks: unequal to every value, whatever that value's own
    ``__eq__``/``__ne__`` say (the left operand's answer wins), so an absent key fails every precondition as in
    ``ai.goap.satisfied``; hashable, so it can stand in a dedupe key."""
    __slots__ = ()

    def __eq__(self, other):
        return other is self

    def __ne__(self, other):
        return other is not self

    __hash__ = object.__hash__

    def __repr__(self):
        return "<absent>"


_ABSENT = _Absent()


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
    return _search(domain, state, task, depth_limit, budget)
