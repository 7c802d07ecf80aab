"""Hierarchical finite state machines whose leaf states run behavior trees.

States form a forest (``parent`` links). A composite state names its
``initial`` child and may keep ``history``: 'shallow' re-enters the child that
was active when it was left, 'deep' re-enters the exact leaf. Entering a
state runs ``on_enter`` from the outermost entered state inwards; leaving runs
``on_exit`` from the leaf outwards, and the leaf's running behavior tree is
halted first (so its ledger actions are cancelled) before anything else.

Transitions belong to a state and fire while that state is active:
``when`` conditions over facts and blackboard (guards), and optionally
``on`` = 'done' / 'failed' (the active leaf's tree finished that way).
Each update checks the active states' transitions outermost first (a parent
can interrupt any child), takes at most one, then ticks the leaf's tree.
When the tree finishes and no 'done'/'failed' transition handles it, the
machine reports the result to its caller (the mode ended).

The runtime (``Runtime``: active path, history, tree memory) is plain data so
that it can live in a component and go into snapshots; the ``Machine`` and its
trees are shared by every NPC. The ``Machine`` docstring has a worked example.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ai.bt import Context, Tree
from ai.conditions import Condition
from ai.status import FAILURE, RUNNING, SUCCESS

HISTORY_KINDS = ("none", "shallow", "deep")
EVENTS = ("", "done", "failed")


@dataclass(frozen=True)
class Transition:
    """Go to state ``to`` when every ``when`` condition holds; with ``on`` = 'done' or 'failed', only when the
    active leaf's tree has just finished that way. Raises ``ValueError`` for another ``on``.

    >>> Transition("flee", (Condition("hp", "<", 20),)).on
    ''
    >>> Transition("search", on="maybe")
    Traceback (most recent call last):
    ...
    ValueError: transition event must be 'done' or 'failed', got 'maybe'
    """
    to: str
    when: tuple[Condition, ...] = ()
    on: str = ""                                 # '' (conditions only), 'done' or 'failed'

    def __post_init__(self):
        if self.on not in EVENTS:
            raise ValueError(f"transition event must be 'done' or 'failed', got '{self.on}'")


@dataclass(frozen=True)
class State:
    """A state: its ``parent`` (None = top level), for a composite state its ``initial`` child and ``history``
    ('none', 'shallow', 'deep'), for a leaf its behavior ``tree``, its ``transitions``, and ``on_enter`` /
    ``on_exit`` hooks: ``(key, value)`` blackboard writes (``"$fact"`` values resolved) or callables ``f(ctx)``.

    >>> State("combat", initial="approach", history="shallow").history
    'shallow'
    """
    id: str
    parent: str | None = None
    initial: str | None = None
    history: str = "none"
    tree: Tree | None = None
    transitions: tuple[Transition, ...] = ()
    on_enter: tuple = ()          # (key, value) blackboard writes or callables f(ctx)
    on_exit: tuple = ()

    def __post_init__(self):
        if self.history not in HISTORY_KINDS:
            raise ValueError(f"history must be one of {', '.join(HISTORY_KINDS)}, got '{self.history}'")


@dataclass
class Runtime:
    """One NPC's machine state: the active path (outermost first), history, the leaf tree's memory.

    >>> Runtime()                                       # nothing active yet
    Runtime(path=[], history={}, mem=[])
    """
    path: list = field(default_factory=list)
    history: dict = field(default_factory=dict)
    mem: list = field(default_factory=list)


class MachineError(ValueError):
    """A machine whose states do not fit together (raised when the ``Machine`` is built or entered).

    >>> issubclass(MachineError, ValueError)            # content loading reports it like any bad value
    True
    """


class Machine:
    """The state forest, shared by every NPC that runs it; each NPC's progress is a ``Runtime``.

    Building it checks the structure and raises ``MachineError``: duplicate ids, unknown parents, parent cycles,
    a composite state without a valid ``initial`` child or with a tree, an ``initial`` on a leaf, a transition to
    a missing state.

    >>> from ai.bt import Context, Succeed, Tree, Wait
    >>> from ai.status import name
    >>> m = Machine([
    ...     State("combat", initial="approach", history="shallow",
    ...           transitions=(Transition("flee", (Condition("hp", "<", 20),)),)),
    ...     State("approach", parent="combat", tree=Tree(Wait(1.0)),
    ...           transitions=(Transition("shoot", (Condition("in_range"),)),)),
    ...     State("shoot", parent="combat", tree=Tree(Wait(5.0))),
    ...     State("flee", tree=Tree(Succeed())),
    ... ])
    >>> rt = Runtime()
    >>> ctx = Context([], {"hp": 100, "in_range": False}, {})
    >>> m.enter(rt, "combat", ctx); rt.path                # entering a composite descends to its initial leaf
    ['combat', 'approach']
    >>> ctx.facts["in_range"] = True
    >>> status, _ = m.update(rt, ctx)                       # the leaf's own guard fires, then the new tree ticks
    >>> name(status), rt.path
    ('running', ['combat', 'shoot'])
    >>> ctx.facts["hp"] = 10
    >>> status, reason = m.update(rt, ctx)                  # the parent's guard interrupts its child: outermost first
    >>> rt.path, name(status), reason                       # flee's tree succeeded at once: the mode ended
    (['flee'], 'success', 'tree succeeded')
    >>> m.enter(rt, "combat", ctx); rt.path                 # shallow history: back to the child last active
    ['combat', 'shoot']
    >>> Machine([State("a", parent="b")])
    Traceback (most recent call last):
    ...
    ai.hfsm.MachineError: state 'a' has unknown parent 'b'
    """

    def __init__(self, states):
        self.states: dict[str, State] = {}
        for st in states:
            if st.id in self.states:
                raise MachineError(f"state '{st.id}' is defined twice")
            self.states[st.id] = st
        self.children: dict[str, list[str]] = {sid: [] for sid in self.states}
        for st in self.states.values():
            if st.parent is not None:
                if st.parent not in self.states:
                    raise MachineError(f"state '{st.id}' has unknown parent '{st.parent}'")
                self.children[st.parent].append(st.id)
        for sid in self.states:
            seen = {sid}
            p = self.states[sid].parent
            while p is not None:
                if p in seen:
                    raise MachineError(f"state '{sid}' is its own ancestor (parent cycle through '{p}')")
                seen.add(p)
                p = self.states[p].parent
        for st in self.states.values():
            kids = self.children[st.id]
            if kids:
                if st.initial is None:
                    raise MachineError(f"composite state '{st.id}' needs an initial child")
                if st.initial not in kids:
                    raise MachineError(f"initial '{st.initial}' of '{st.id}' is not one of its children")
                if st.tree is not None:
                    raise MachineError(f"composite state '{st.id}' cannot run a tree; only leaf states do")
            elif st.initial is not None:
                raise MachineError(f"state '{st.id}' names an initial child but has no children")
            for tr in st.transitions:
                if tr.to not in self.states:
                    raise MachineError(f"state '{st.id}' has a transition to missing state '{tr.to}'")

    # -- structure -------------------------------------------------------------------------------------------
    def lineage(self, sid: str) -> list[str]:
        """Ancestors of ``sid`` and itself, outermost first.

        >>> Machine([State("combat", initial="shoot"), State("shoot", parent="combat")]).lineage("shoot")
        ['combat', 'shoot']
        """
        out = []
        while sid is not None:
            out.append(sid)
            sid = self.states[sid].parent
        out.reverse()
        return out

    def top(self, sid: str) -> str:
        """The top-level state above ``sid`` (``sid`` itself at the top).

        >>> Machine([State("combat", initial="shoot"), State("shoot", parent="combat")]).top("shoot")
        'combat'
        """
        return self.lineage(sid)[0]

    def leaf_tree(self, rt: Runtime) -> Tree | None:
        """The behavior tree of the active leaf state (None when nothing is active or the leaf has no tree).

        >>> from ai.bt import Context, Tree, Wait
        >>> m, rt = Machine([State("guard", tree=Tree(Wait(2.0)))]), Runtime()
        >>> m.leaf_tree(rt) is None
        True
        >>> m.enter(rt, "guard", Context([], {}, {})); m.leaf_tree(rt) is m.states["guard"].tree
        True
        """
        return self.states[rt.path[-1]].tree if rt.path else None

    # -- entering and leaving ----------------------------------------------------------------------------------
    def _run_hooks(self, hooks, ctx: Context) -> None:
        for hook in hooks:
            if callable(hook):
                hook(ctx)
            else:
                key, value = hook
                ctx.bb[key] = ctx.resolve(value)

    def _exit_to(self, rt: Runtime, depth: int, ctx: Context) -> None:
        """Leave active states until only ``depth`` remain; the leaf's tree is halted first."""
        if len(rt.path) <= depth:
            return
        tree = self.leaf_tree(rt)
        if tree is not None and rt.mem:
            ctx.mem = rt.mem
            tree.halt(ctx)
        rt.mem = []
        leaf = rt.path[-1]
        while len(rt.path) > depth:
            sid = rt.path.pop()
            self._run_hooks(self.states[sid].on_exit, ctx)
            parent = self.states[sid].parent
            if parent is not None:
                kind = self.states[parent].history
                if kind == "shallow":
                    rt.history[parent] = sid
                elif kind == "deep":
                    rt.history[parent] = leaf

    def exit_all(self, rt: Runtime, ctx: Context) -> None:
        """Leave every active state: the leaf's tree is halted first (cancelling its ledger actions), then the
        ``on_exit`` hooks run from the leaf outwards and history is remembered.

        >>> from ai.bt import Context
        >>> m, rt, ctx = Machine([State("idle")]), Runtime(), Context([], {}, {})
        >>> m.enter(rt, "idle", ctx); m.exit_all(rt, ctx); rt.path
        []
        """
        self._exit_to(rt, 0, ctx)

    def enter(self, rt: Runtime, target: str, ctx: Context) -> None:
        """Make ``target`` active (leaving what must be left), then descend to a leaf.

        States shared by the old and the new path stay active (their hooks do not run again); entering a state
        that is already active restarts it. Descending takes the remembered child (history) or the ``initial``
        one; the leaf gets fresh tree memory. Raises ``MachineError`` for an unknown state. See the class example.

        >>> from ai.bt import Context
        >>> Machine([State("idle")]).enter(Runtime(), "patrol", Context([], {}, {}))
        Traceback (most recent call last):
        ...
        ai.hfsm.MachineError: unknown state 'patrol'
        """
        if target not in self.states:
            raise MachineError(f"unknown state '{target}'")
        line = self.lineage(target)
        common = 0
        while common < len(rt.path) and common < len(line) and rt.path[common] == line[common]:
            common += 1
        if common == len(line):                   # re-entering an active state: restart it
            common -= 1
        self._exit_to(rt, common, ctx)
        for sid in line[common:]:
            rt.path.append(sid)
            self._run_hooks(self.states[sid].on_enter, ctx)
        self._descend(rt, ctx)

    def _descend(self, rt: Runtime, ctx: Context) -> None:
        sid = rt.path[-1]
        while self.children[sid]:
            st = self.states[sid]
            remembered = rt.history.get(sid) if st.history != "none" else None
            if st.history == "deep" and remembered in self.states:
                below = self.lineage(remembered)[len(rt.path):]
                for nxt in below:
                    rt.path.append(nxt)
                    self._run_hooks(self.states[nxt].on_enter, ctx)
                sid = rt.path[-1]
                continue
            nxt = remembered if remembered in self.children[sid] else st.initial
            rt.path.append(nxt)
            self._run_hooks(self.states[nxt].on_enter, ctx)
            sid = nxt
        tree = self.states[sid].tree
        rt.mem = tree.new_memory() if tree is not None else []

    # -- running ------------------------------------------------------------------------------------------------
    def update(self, rt: Runtime, ctx: Context) -> tuple[int, str]:
        """One step: at most one guarded transition, then the leaf's tree. Returns (status, reason).

        Guards are checked over the active path outermost first, each state's transitions in order; the first
        that holds is taken. Then the leaf's tree ticks: RUNNING -> ``(RUNNING, "")``; finished -> a matching
        'done' / 'failed' transition is taken (and the result is RUNNING), else the tree is reset and its result
        returned with the reason. No active state -> FAILURE. See the class example.

        >>> from ai.bt import Context, Tree, Wait
        >>> from ai.status import name
        >>> m, rt, ctx = Machine([State("guard", tree=Tree(Wait(2.0)))]), Runtime(), Context([], {}, {}, now=0.0)
        >>> m.enter(rt, "guard", ctx)
        >>> name(m.update(rt, ctx)[0])                   # the wait has started
        'running'
        >>> ctx.now = 2.5
        >>> m.update(rt, ctx)[1]                         # it is over: the mode ends
        'tree succeeded'
        """
        if not rt.path:
            return FAILURE, "no state is active"
        facts, bb = ctx.facts, ctx.bb
        taken = self._guarded(rt, "", facts, bb)
        if taken is not None:
            ctx.events.append((taken[0], f"transition to {taken[1].to}"))
            self.enter(rt, taken[1].to, ctx)
        tree = self.leaf_tree(rt)
        if tree is None:
            return RUNNING, ""
        ctx.mem = rt.mem
        ctx.reason = ""
        st = tree.tick(ctx)
        if st == RUNNING:
            return RUNNING, ""
        event = "done" if st == SUCCESS else "failed"
        reason = ctx.why()
        taken = self._guarded(rt, event, facts, bb)
        if taken is not None:
            ctx.events.append((taken[0], f"{event}: transition to {taken[1].to}"))
            self.enter(rt, taken[1].to, ctx)
            return RUNNING, ""
        rt.mem = tree.new_memory()               # finished: the next update starts the tree afresh
        return st, reason or ("tree succeeded" if st == SUCCESS else "tree failed")

    def _guarded(self, rt: Runtime, event: str, facts: dict, bb: dict):
        """(state, transition) of the first transition on ``event`` ('' = conditions only) whose conditions all
        hold, over the active path outermost first and each state's transitions in order; None when none does."""
        states = self.states
        for sid in rt.path:
            for tr in states[sid].transitions:
                if tr.on != event:
                    continue
                for cond in tr.when:
                    if not cond.check(facts, bb):
                        break
                else:
                    return sid, tr
        return None

    def running_path(self, rt: Runtime) -> list[str]:
        """Names of the RUNNING nodes of the active leaf's tree, root first (empty when nothing runs).

        >>> from ai.bt import Context, Tree, Wait
        >>> m, rt, ctx = Machine([State("guard", tree=Tree(Wait(2.0)))]), Runtime(), Context([], {}, {})
        >>> m.enter(rt, "guard", ctx); m.running_path(rt)
        []
        >>> _ = m.update(rt, ctx); m.running_path(rt)
        ['wait']
        """
        tree = self.leaf_tree(rt)
        return tree.running_path(rt.mem) if tree is not None and rt.mem else []
