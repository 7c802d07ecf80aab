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

The ``Tree`` docstring has a worked example; each node class has a short one of
its own (``ActionLeaf``'s runs against a stand-in host).

Content specs: a class that sets ``type_name`` is a node type brain files can
use, registered in ``NODE_TYPES`` by that class statement alone. Beside its
runtime it declares, as plain data, what its table in a brain file holds: its
``shape`` (leaf, composite with ``children``, decorator with one ``child``), its
``keys`` (``Key``: name, value type, default, bounds, a one-line description
and the ``role`` the content checker cross-checks) and a one-line ``doc``; its
``from_def`` classmethod turns a validated table into the runtime node. The
content layer generates the pydantic models, the checks, the builder and the
reference from that registry, so a new node type is written here and nowhere
else (ai/ itself never imports pydantic or the content layer). The content
layer builds its models when it is first imported: a node type defined in
another module must be imported before it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ai.conditions import OPS, Condition, lookup, truth, _MISSING
from ai.status import FAILURE, IDLE, RUNNING, SUCCESS, Status


class Actuator(Protocol):
    """The host's side of the ledger, as the ``ActionLeaf`` (and the plan executor) call it.

    - ``submit(kind, target, params)``: start an action of ``kind`` on entity ``target`` (0 = none) with
      ``params`` (every ``$name`` already resolved); returns its id (a positive int), or None (or 0) when the host
      refuses it;
    - ``status(action_id)``: ``(status, reason)`` with an ``ai.status`` value: RUNNING while it goes on, SUCCESS
      once the host confirmed it, FAILURE (the reason says why: refused, failed, cancelled, timed out);
    - ``cancel(action_id)``: ask the host to stop it; it becomes terminal when the host says so (a later
      ``status``), which is when its reservations are released.

    Any object with these three methods will do: ``ActionLeaf`` has a stand-in host in its example.
    """

    def submit(self, kind: str, target: int, params: dict) -> int | None: ...

    def status(self, action_id: int) -> tuple[int, str]: ...

    def cancel(self, action_id: int) -> None: ...


class Context:
    """What a tick sees: the NPC's memory, facts, blackboard, actuator and the game time in seconds.

    ``mem`` is the tree's memory (``Tree.new_memory()``), ``facts`` the read-only fact snapshot, ``bb`` the NPC's
    blackboard (writable; a fact of the same name wins when read), ``actuator`` the host (``Actuator``; only
    action leaves need one), ``now`` the game time in seconds and ``planner`` what plan leaves call (ai/executor.py).
    A tick leaves ``reason`` (why the last leaf failed, see ``why``) and appends to ``events`` (what leaves did).

    >>> ctx = Context([], {"enemy": 12}, {"enemy": 5, "post": 3})
    >>> ctx.resolve("$enemy"), ctx.resolve("$post"), ctx.resolve("north")     # facts win over the blackboard
    (12, 3, 'north')
    >>> ctx.resolve("$ally")
    Traceback (most recent call last):
    ...
    KeyError: 'ally'
    """
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
        """The last failure as text (conditions leave just themselves, so failing is cheap).

        >>> from ai.conditions import Condition
        >>> from ai.status import name
        >>> tree = Tree(ConditionNode(Condition("has_ammo"), name="armed"))
        >>> ctx = Context(tree.new_memory(), {"has_ammo": False}, {})
        >>> name(tree.tick(ctx)), ctx.why()
        ('failure', 'armed: has_ammo is false')
        """
        r = self.reason
        return r.failure_text() if isinstance(r, Node) else r

    def resolve(self, value):
        """A ``"$name"`` string is replaced by the fact (or blackboard value) of that name; any other value is
        returned as it is. Raises ``KeyError`` (the name) when neither holds it. See the class example."""
        if isinstance(value, str) and value.startswith("$"):
            got = lookup(value[1:], self.facts, self.bb)
            if got is _MISSING:
                raise KeyError(value[1:])
            return got
        return value


# -- content specs ------------------------------------------------------------------------------------------
#: how a node's table in a brain file names its children
LEAF, COMPOSITE, DECORATOR = "leaf", "composite", "decorator"

#: what a key's value may be; content/schema.py maps each to a pydantic type
KEY_TYPES = {
    "bool": "true or false",
    "int": "a whole number (with ``choices``: or one of those words)",
    "float": "a finite number",
    "text": "a string (with ``choices``: one of those words)",
    "name": "a name: a-z, 0-9, _ (starting with a letter)",
    "scalar": "a constant: boolean, integer, number or string",
    "target": "an entity id or a string",
    "params": "a table: name -> scalar",
    "conditions": "a list of conditions (tables of fact, op, value)",
}

#: what the content checker (content/brains.py, one check per role) cross-checks a key's value against
ROLES = {
    "fact": "a fact (or blackboard key) the node reads: it must exist",
    "writes": "a blackboard key the node writes: the brain may read it like a fact",
    "ref": "a '$name' value (in a table: each value) reads that fact: it must exist",
    "entity": "an entity id, or a '$fact' naming one",
    "action": "an action kind the host knows",
    "conditions": "each condition's fact must exist",
    "threshold": "where a number: a count of the node's children (1..how many it has)",
    "goap_goal": "a goal of the GOAP domain the brain names (it must name one)",
    "htn_task": "a task of the HTN domain the brain names (it must name one)",
}


class _Required:
    def __repr__(self):
        return "REQUIRED"


#: the default of a key that a brain file must give
REQUIRED = _Required()


@dataclass(frozen=True, slots=True)
class Key:
    """One key of a node type's table in a brain file, as plain data.

    ``type`` is one of ``KEY_TYPES`` and ``role`` one of ``ROLES`` (or "" when there is nothing to cross-check);
    ``ge``/``gt``/``le`` bound a number, ``min_len``/``max_len`` a list; ``doc`` is the one line the content
    reference shows. A key without a ``default`` (``REQUIRED``) must be given in the brain file; ``choices`` (for
    'int' and 'text' keys) are the words it accepts. An unknown type or role, or choices on another type, raise
    ``ValueError`` when the key is built.

    >>> [(k.name, k.type, k.default, k.gt, k.le) for k in Wait.keys]       # a wait needs its seconds, in (0, 3600]
    [('seconds', 'float', REQUIRED, 0, 3600)]
    >>> Key("memory", "bool", "resume at the running child", default=True).default
    True
    >>> Key("x", "number", "a number")
    Traceback (most recent call last):
    ...
    ValueError: key 'x': unknown type 'number' (known: bool, int, float, text, name, scalar, target, params, conditions)
    """
    name: str
    type: str
    doc: str
    default: object = REQUIRED
    role: str = ""
    choices: tuple = ()
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    min_len: int | None = None
    max_len: int | None = None

    def __post_init__(self):
        if self.type not in KEY_TYPES:
            raise ValueError(f"key '{self.name}': unknown type '{self.type}' (known: {', '.join(KEY_TYPES)})")
        if self.role and self.role not in ROLES:
            raise ValueError(f"key '{self.name}': unknown role '{self.role}' (known: {', '.join(ROLES)})")
        if self.choices and self.type not in ("int", "text"):
            raise ValueError(f"key '{self.name}': only 'int' and 'text' keys take choices")


#: type name -> node class, in the order the classes were defined (the content reference lists them so)
NODE_TYPES: dict[str, type[Node]] = {}


class Node:
    """Base class. ``nslots`` slots of memory starting at ``s`` (assigned by ``Tree``).

    A subclass that sets ``type_name`` is a content node type (see the module docstring): it registers itself
    in ``NODE_TYPES`` and must say in ``doc`` what it does; subclasses without their own ``type_name`` (shared
    bases, test doubles) are not registered. A second class with a type name already taken, or one without a
    ``doc`` of its own, raises ``TypeError`` at its class statement and is not registered.

    A subclass implements ``tick(ctx)``: it returns a status and leaves it in ``ctx.mem[self.s]``. One that runs
    across ticks keeps its progress in further slots (``nslots``); one that never does sets ``instant = True``,
    so that reactive composites re-check it. ``name`` is the node's name in its tree (its type name when not
    given).

    >>> NODE_TYPES["wait"] is Wait, Wait.shape, Sequence.shape, Wait(2.0).name
    (True, 'leaf', 'composite', 'wait')
    >>> class Flag(Node):                    # a node type of its own, with one key
    ...     type_name = "doc_flag"
    ...     doc = "Succeeds when a fact is true."
    ...     keys = (Key("fact", "name", "fact (or blackboard key) to read", role="fact"),)
    ...     instant = True
    ...     def __init__(self, fact, name=""):
    ...         super().__init__(name)
    ...         self.fact = fact
    ...     def tick(self, ctx):
    ...         ctx.mem[self.s] = SUCCESS if ctx.facts.get(self.fact) else FAILURE
    ...         return ctx.mem[self.s]
    >>> NODE_TYPES["doc_flag"] is Flag       # the class statement alone registered it
    True
    >>> from types import SimpleNamespace    # the content builder hands from_def a validated table
    >>> node = Flag.from_def("seen", SimpleNamespace(fact="enemy_visible"), ())
    >>> node.name, Tree(node).tick(Context([0], {"enemy_visible": True}, {})) == SUCCESS
    ('seen', True)
    >>> del NODE_TYPES["doc_flag"]           # only so that this example leaves the registry as it found it
    >>> class Wait2(Wait):
    ...     type_name = "wait"
    ...     doc = "Another wait."
    Traceback (most recent call last):
    ...
    TypeError: node type 'wait' is defined twice (Wait and Wait2)
    """
    type_name = "node"
    shape = LEAF
    doc = ""                 # one line for modders: what the node does (the content reference shows it)
    keys: tuple[Key, ...] = ()
    nslots = 1
    instant = False          # never RUNNING across ticks (conditions, writes): reactive nodes re-check these

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "type_name" not in cls.__dict__:
            return
        if cls.type_name in NODE_TYPES:
            raise TypeError(f"node type '{cls.type_name}' is defined twice ({NODE_TYPES[cls.type_name].__name__} "
                            f"and {cls.__name__})")
        if "doc" not in cls.__dict__ or not cls.doc:
            raise TypeError(f"node type '{cls.type_name}' needs a one-line doc of its own")
        NODE_TYPES[cls.type_name] = cls

    def __init__(self, name: str = ""):
        self.name = name or self.type_name
        self.children: tuple[Node, ...] = ()
        self.s = -1

    @classmethod
    def from_def(cls, name: str, d, children: tuple) -> Node:
        """The node that the validated table ``d`` (its keys as attributes) describes, named ``name``, given its
        children already built. By default each key goes to the constructor as the keyword of the same name, so
        a node type overrides this only where its content keys and its constructor differ."""
        return cls(name=name, **cls._key_values(d))

    @classmethod
    def _key_values(cls, d) -> dict:
        return {key.name: getattr(d, key.name) for key in cls.keys}

    def tick(self, ctx: Context) -> int:
        """Run this node once: returns SUCCESS, FAILURE or RUNNING and leaves it in ``ctx.mem[self.s]``."""
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
        """The node's settings in one line, as `rts graph` shows them under its type and name ("" when none).

        >>> Wait(2.0).describe(), Retry(Succeed(), 5).describe(), Succeed().describe()
        ('2 s', '5 attempts', '')
        """
        return ""

    def failure_text(self) -> str:
        """Why this node failed, in words (``Context.why`` asks a node that left itself as the reason)."""
        return f"{self.name} failed"


# -- composites ----------------------------------------------------------------------------------------------
class Composite(Node):
    """A node over an ordered list of children (``children`` in a brain file: their node names).

    >>> [child.name for child in Sequence([Succeed(), Wait(1.0, name="pause")]).children]
    ['succeed', 'pause']
    """
    shape = COMPOSITE

    def __init__(self, children, name: str = ""):
        super().__init__(name)
        self.children = tuple(children)

    @classmethod
    def from_def(cls, name, d, children):
        return cls(children, name=name, **cls._key_values(d))


class _Ordered(Composite):
    """Sequence and selector are mirror images: tick children in order while they return ``go_on``; the first
    other result ends the composite with that result; all ``go_on`` ends it with ``go_on``."""
    nslots = 2                  # status; with memory the child to resume at, without it the running child + 1
    go_on = SUCCESS
    keys = (Key("memory", "bool", "resume at the running child (false: restart from the first each tick)",
                default=True),)

    def __init__(self, children, memory: bool = True, name: str = ""):
        super().__init__(children, name)
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
        return "" if self.memory else "no memory"


class Sequence(_Ordered):
    """Tick the children in order while they succeed: FAILURE or RUNNING from one ends the tick with it; SUCCESS
    once the last one succeeded.

    ``children``: the nodes in order; ``memory``: True (the default) resumes at the child that was RUNNING,
    False starts again at the first child every tick (a running child no longer reached is halted).

    >>> from ai.conditions import Condition
    >>> from ai.status import name
    >>> for memory in (True, False):
    ...     tree = Tree(Sequence([ConditionNode(Condition("has_ammo")), Wait(1.0)], memory=memory))
    ...     ctx = Context(tree.new_memory(), {"has_ammo": True}, {}, now=0.0)
    ...     first = tree.tick(ctx)                   # the condition holds, the wait starts
    ...     ctx.facts["has_ammo"], ctx.now = False, 1.0
    ...     print(memory, name(first), name(tree.tick(ctx)))
    True running success
    False running failure
    """
    type_name = "sequence"
    doc = "Succeeds when every child succeeds, in order."
    go_on = SUCCESS


class Selector(_Ordered):
    """Tick the children in order while they fail: SUCCESS or RUNNING from one ends the tick with it; FAILURE
    once the last one failed. ``memory`` as for ``Sequence``.

    >>> from ai.conditions import Condition
    >>> from ai.status import name
    >>> tree = Tree(Selector([ConditionNode(Condition("in_cover")), SetValue("wants_cover", True)]))
    >>> ctx = Context(tree.new_memory(), {"in_cover": False}, {})
    >>> name(tree.tick(ctx)), ctx.bb                 # the first child failed, the second succeeded
    ('success', {'wants_cover': True})
    """
    type_name = "selector"
    doc = "Succeeds with the first child that succeeds."
    go_on = FAILURE


class ReactiveSequence(Composite):
    """A sequence that re-checks its instant children (conditions, writes) from the start every tick; an action
    that already succeeded in this pass is not re-run. When a re-checked child fails, the running child is
    halted and the sequence fails.

    >>> from ai.conditions import Condition
    >>> from ai.status import name
    >>> tree = Tree(ReactiveSequence([ConditionNode(Condition("enemy_visible")), Wait(5.0, name="aim")]))
    >>> ctx = Context(tree.new_memory(), {"enemy_visible": True}, {}, now=0.0)
    >>> name(tree.tick(ctx)), tree.running_path(ctx.mem)
    ('running', ['reactive_sequence', 'aim'])
    >>> ctx.facts["enemy_visible"] = False           # checked again on the next tick: the aim is halted
    >>> name(tree.tick(ctx)), tree.running_path(ctx.mem)
    ('failure', [])
    """
    type_name = "reactive_sequence"
    doc = "A sequence that re-checks its conditions every tick (finished actions are not re-run)."
    nslots = 2                                   # status, index of the first action not yet completed

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


class ReactiveFallback(Composite):
    """A selector that ticks its children from the first every tick: when a higher-priority child succeeds or
    starts running, the lower one that was running is halted.

    >>> from ai.conditions import Condition
    >>> from ai.status import name
    >>> fight = Sequence([ConditionNode(Condition("enemy_visible")), Wait(2.0, name="shoot")], name="fight")
    >>> tree = Tree(ReactiveFallback([fight, Wait(10.0, name="patrol")]))
    >>> ctx = Context(tree.new_memory(), {"enemy_visible": False}, {}, now=0.0)
    >>> name(tree.tick(ctx)), tree.running_path(ctx.mem)
    ('running', ['reactive_fallback', 'patrol'])
    >>> ctx.facts["enemy_visible"] = True            # the fight takes over; the patrol is halted
    >>> name(tree.tick(ctx)), tree.running_path(ctx.mem)
    ('running', ['reactive_fallback', 'fight', 'shoot'])
    """
    type_name = "reactive_fallback"
    doc = "A selector that re-ticks higher-priority children every tick, halting a lower running one."
    nslots = 1

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


class Parallel(Composite):
    """Tick every unfinished child each tick: SUCCESS once ``success`` children succeeded, FAILURE once ``failure``
    children failed (or ``success`` can no longer be reached); the children still running are then halted.

    ``success`` and ``failure`` are 'all', 'one' or a count from 1 to the number of children (a ``ValueError``
    otherwise).

    >>> from ai.status import name
    >>> tree = Tree(Parallel([Wait(1.0, name="reload"), Wait(3.0, name="cover")], success="one"))
    >>> ctx = Context(tree.new_memory(), {}, {}, now=0.0)
    >>> name(tree.tick(ctx))
    'running'
    >>> ctx.now = 1.0                                # one success is enough: the other wait is halted
    >>> name(tree.tick(ctx)), tree.running_path(ctx.mem)
    ('success', [])
    >>> Parallel([Succeed()], success=2)
    Traceback (most recent call last):
    ...
    ValueError: parallel success policy must be 'all', 'one' or 1..1, got 2
    """
    type_name = "parallel"
    doc = "Ticks all children; succeeds or fails by thresholds."
    keys = (Key("success", "int", "successes needed", default="all", choices=("all", "one"), role="threshold"),
            Key("failure", "int", "failures that fail it", default="one", choices=("all", "one"), role="threshold"))

    def __init__(self, children, success: int | str = "all", failure: int | str = "one", name: str = ""):
        super().__init__(children, name)
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
        return f"success {self.success}, failure {self.failure}"


# -- decorators -------------------------------------------------------------------------------------------------
class Decorator(Node):
    """A node over one child (``child`` in a brain file: its node name).

    >>> Inverter(Wait(1.0, name="pause")).child.name
    'pause'
    """
    shape = DECORATOR

    def __init__(self, child: Node, name: str = ""):
        super().__init__(name)
        self.children = (child,)

    @property
    def child(self) -> Node:
        """The one child."""
        return self.children[0]

    @classmethod
    def from_def(cls, name, d, children):
        return cls(children[0], name=name, **cls._key_values(d))


class Inverter(Decorator):
    """SUCCESS for the child's FAILURE and the other way round; RUNNING stays RUNNING. Instant when its child is.

    >>> from ai.conditions import Condition
    >>> from ai.status import name
    >>> tree = Tree(Inverter(ConditionNode(Condition("alarm"))))
    >>> name(tree.tick(Context(tree.new_memory(), {"alarm": False}, {})))
    'success'
    """
    type_name = "inverter"
    doc = "Swaps success and failure."

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
    """Run the child ``times`` times (0 = forever); fails as soon as the child fails.

    One completion per tick: after each success it is RUNNING and the child starts again on the next tick. A
    ``times`` that is not a whole number >= 0 raises ``ValueError``.

    >>> from ai.status import name
    >>> tree = Tree(Repeat(Succeed(), times=3))
    >>> ctx = Context(tree.new_memory(), {}, {})
    >>> [name(tree.tick(ctx)) for _ in range(4)]     # done after the third success, then a fresh round
    ['running', 'running', 'success', 'running']
    """
    type_name = "repeat"
    doc = "Runs the child again after each success; fails when it fails."
    keys = (Key("times", "int", "successes needed (0 = forever)", default=0, ge=0, le=1_000_000),)
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
        return f"{self.times} times" if self.times else "forever"


class Retry(Decorator):
    """Run the child until it succeeds, at most ``attempts`` times.

    After a failure it is RUNNING and the child is tried again on the next tick; the ``attempts``-th failure
    fails it. ``attempts`` must be a whole number >= 1 (a ``ValueError`` otherwise).

    >>> from ai.conditions import Condition
    >>> from ai.status import name
    >>> tree = Tree(Retry(ConditionNode(Condition("door_open")), attempts=2))
    >>> ctx = Context(tree.new_memory(), {"door_open": False}, {})
    >>> [name(tree.tick(ctx)) for _ in range(2)]     # two failures: it gives up
    ['running', 'failure']
    >>> name(tree.tick(ctx))                         # a fresh round: the first attempt fails
    'running'
    >>> ctx.facts["door_open"] = True                # the second one succeeds
    >>> name(tree.tick(ctx))
    'success'
    """
    type_name = "retry"
    doc = "Runs the child again after each failure."
    keys = (Key("attempts", "int", "attempts before giving up", default=3, ge=1, le=1_000_000),)
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
        return f"{self.attempts} attempts"


def _check_seconds(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < 1e9):
        raise ValueError(f"{what} must be a number of seconds > 0")
    return float(value)


class Timeout(Decorator):
    """Fail (halting the child) when it has not finished within ``seconds`` of game time from its first tick.

    >>> from ai.status import name
    >>> tree = Tree(Timeout(Wait(10.0), seconds=2.0))
    >>> ctx = Context(tree.new_memory(), {}, {}, now=0.0)
    >>> name(tree.tick(ctx))
    'running'
    >>> ctx.now = 2.0
    >>> name(tree.tick(ctx)), ctx.why(), tree.running_path(ctx.mem)
    ('failure', 'timeout: timed out after 2 s', [])
    """
    type_name = "timeout"
    doc = "Fails (halting the child) when it runs too long."
    keys = (Key("seconds", "float", "game seconds allowed", gt=0, le=3600),)
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
        return f"{self.seconds:g} s"


class Cooldown(Decorator):
    """After the child finishes (either way), fail without ticking it for ``seconds``; halting it does not
    reset the clock.

    >>> from ai.status import name
    >>> tree = Tree(Cooldown(Succeed(name="shout"), seconds=5.0))
    >>> ctx = Context(tree.new_memory(), {}, {}, now=0.0)
    >>> name(tree.tick(ctx))
    'success'
    >>> ctx.now = 1.0
    >>> name(tree.tick(ctx)), ctx.why()
    ('failure', 'cooldown: cooling down')
    >>> ctx.now = 5.0
    >>> name(tree.tick(ctx))
    'success'
    """
    type_name = "cooldown"
    doc = "After the child finishes, fails without ticking it for a while."
    keys = (Key("seconds", "float", "game seconds to wait", gt=0, le=3600),)
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
        return f"{self.seconds:g} s"


class Guard(Decorator):
    """Tick the child only while every condition holds; when one fails the child is halted and the guard fails.

    ``conditions``: ``ai.conditions.Condition`` values, checked in order on facts and blackboard every tick.

    >>> from ai.conditions import Condition
    >>> from ai.status import name
    >>> tree = Tree(Guard(Wait(3.0), [Condition("hp", ">", 20)]))
    >>> ctx = Context(tree.new_memory(), {"hp": 50}, {}, now=0.0)
    >>> name(tree.tick(ctx))
    'running'
    >>> ctx.facts["hp"] = 10
    >>> name(tree.tick(ctx)), ctx.why(), tree.running_path(ctx.mem)
    ('failure', 'guard: guard failed: hp > 20', [])
    """
    type_name = "guard"
    doc = "Ticks the child only while all conditions hold; halts it when one fails."
    keys = (Key("when", "conditions", "conditions", role="conditions", min_len=1, max_len=16),)

    def __init__(self, child: Node, conditions, name: str = ""):
        super().__init__(child, name)
        self.conditions = tuple(conditions)

    @classmethod
    def from_def(cls, name, d, children):
        return cls(children[0], [Condition(c.fact, c.op, c.value) for c in d.when], name)

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
        return "if " + " and ".join(map(str, self.conditions))


# -- leaves ---------------------------------------------------------------------------------------------------
class ConditionNode(Node):
    """SUCCESS when ``condition`` (an ``ai.conditions.Condition``) holds on the facts, else on the blackboard;
    FAILURE otherwise (a missing name fails), leaving itself as the reason. Instant.

    >>> from ai.conditions import Condition
    >>> from ai.status import name
    >>> tree = Tree(ConditionNode(Condition("ammo", ">", 0)))
    >>> ctx = Context(tree.new_memory(), {}, {})
    >>> name(tree.tick(ctx)), ctx.why()
    ('failure', 'condition: ammo > 0 is false')
    >>> ctx.bb["ammo"] = 3                           # no such fact: the blackboard answers
    >>> name(tree.tick(ctx)), tree.root.describe()
    ('success', 'if ammo > 0')
    """
    type_name = "condition"
    doc = "Succeeds when ``fact op value`` holds."
    keys = (Key("fact", "name", "fact (or blackboard key) to read", role="fact"),
            Key("op", "text", "comparison", default="==", choices=tuple(OPS)),
            Key("value", "scalar", "constant to compare with", default=True))
    instant = True

    def __init__(self, condition: Condition, name: str = ""):
        super().__init__(name)
        self.condition = condition
        self.fact = condition.fact
        self.compare = condition.fn                # Condition.test, inlined in tick (trees tick it most)
        self.value = condition.value
        self.flag = condition.op == "==" and condition.value is True     # "fact is true": a bool answers at once

    @classmethod
    def from_def(cls, name, d, children):
        return cls(Condition(d.fact, d.op, d.value), name)

    def tick(self, ctx):
        actual = ctx.facts.get(self.fact, _MISSING)
        if actual is _MISSING:
            actual = ctx.bb.get(self.fact, _MISSING)
        if self.flag and (actual is True or actual is False):
            held = actual
        elif actual is _MISSING:
            held = False
        else:                                      # Condition.test: incomparable is false; numpy truths count
            try:
                held = self.compare(actual, self.value)
                held = held is True or (held is not False and truth(held))
            except (TypeError, ValueError):
                held = False
        if held is True:
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
    """Submit ``kind`` to the host and wait for its terminal state. ``$name`` params read facts/blackboard.

    ``target``: an entity id or ``"$name"`` (0 = none); ``params``: the action's parameters; ``name``: defaults
    to ``kind``. The first tick submits through ``ctx.actuator`` (FAILURE when a ``$name`` is unknown, the
    target is not an entity or the host refuses); later ticks ask the host for its status: RUNNING until it
    is terminal, then SUCCESS (confirmed) or FAILURE with the host's reason. Halting it cancels the action.
    Each submission, end and cancel is noted in ``ctx.events``.

    >>> from ai.status import FAILURE, RUNNING, SUCCESS, name
    >>> class Host:                                  # a stand-in for the host's ledger
    ...     def __init__(self):
    ...         self.actions, self.cancelled = {}, []
    ...     def submit(self, kind, target, params):
    ...         self.last = (kind, target, params)
    ...         self.actions[len(self.actions) + 1] = (RUNNING, "")
    ...         return len(self.actions)             # the action id
    ...     def status(self, aid):
    ...         return self.actions[aid]
    ...     def cancel(self, aid):
    ...         self.cancelled.append(aid)
    >>> host = Host()
    >>> tree = Tree(ActionLeaf("move", "$enemy", {"speed": "$run_speed"}))
    >>> ctx = Context(tree.new_memory(), {"enemy": 7, "run_speed": 2.5}, {}, host)
    >>> name(tree.tick(ctx)), host.last              # submitted, its '$name' values read from the facts
    ('running', ('move', 7, {'speed': 2.5}))
    >>> name(tree.tick(ctx)), len(host.actions)      # the host has not answered: still running, not resubmitted
    ('running', 1)
    >>> host.actions[1] = (SUCCESS, "")              # the host confirms
    >>> name(tree.tick(ctx)), ctx.events
    ('success', [('move', 'submitted move #1'), ('move', 'move #1 confirmed')])
    >>> name(tree.tick(ctx))                         # a new pass submits action 2 ...
    'running'
    >>> tree.halt(ctx); host.cancelled               # ... and halting the tree cancels it
    [2]
    >>> name(tree.tick(ctx))                         # action 3, which the host fails
    'running'
    >>> host.actions[3] = (FAILURE, "path blocked")
    >>> name(tree.tick(ctx)), ctx.why()              # the host's reason is the failure's
    ('failure', 'move: path blocked')
    """
    type_name = "action"
    doc = "Submits an action to the host ledger; running until the ledger reports its end. Halting cancels it."
    keys = (Key("action", "text", "action kind (see the action table)", role="action"),
            Key("target", "target", "target entity: '$fact' (e.g. '$nearest_enemy') or 0", default=0, role="entity"),
            Key("params", "params", "action parameters; '$fact' reads a fact", default={}, role="ref"))
    nslots = 2                                   # status, action id

    def __init__(self, kind: str, target=0, params: dict | None = None, name: str = ""):
        super().__init__(name or kind)
        self.kind = kind
        self.target = target
        self.params = dict(params or {})

    @classmethod
    def from_def(cls, name, d, children):
        return cls(d.action, d.target, dict(d.params), name)

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
    """RUNNING until ``seconds`` of game time have passed since it started (no host action).

    ``seconds`` must be a number > 0 (a ``ValueError`` otherwise).

    >>> from ai.status import name
    >>> tree = Tree(Wait(2.0))
    >>> ctx = Context(tree.new_memory(), {}, {}, now=10.0)
    >>> name(tree.tick(ctx))                         # started at 10 s: done at 12 s
    'running'
    >>> ctx.now = 11.5
    >>> name(tree.tick(ctx))
    'running'
    >>> ctx.now = 12.0
    >>> name(tree.tick(ctx))
    'success'
    """
    type_name = "wait"
    doc = "Running until some game time has passed (no ledger action)."
    keys = (Key("seconds", "float", "game seconds", gt=0, le=3600),)
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
        return f"{self.seconds:g} s"


class SetValue(Node):
    """Write ``value`` (a constant or a ``$name``) into the blackboard under ``key``; succeeds (fails when the
    ``$name`` is unknown). Instant.

    >>> from ai.status import name
    >>> tree = Tree(SetValue("target", "$nearest_enemy"))
    >>> ctx = Context(tree.new_memory(), {"nearest_enemy": 42}, {})
    >>> name(tree.tick(ctx)), ctx.bb
    ('success', {'target': 42})
    >>> ctx.facts = {}
    >>> name(tree.tick(ctx)), ctx.why()
    ('failure', "set: 'nearest_enemy' is unknown")
    """
    type_name = "set"
    doc = "Writes a blackboard value and succeeds."
    keys = (Key("key", "name", "blackboard key", role="writes"),
            Key("value", "scalar", "constant, or '$fact'", role="ref"))
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
        return f"{self.key} = {self.value}"


class Succeed(Node):
    """Always SUCCESS (a placeholder, or the last resort of a selector). Instant.

    >>> Tree(Succeed()).tick(Context([0], {}, {})) == SUCCESS
    True
    """
    type_name = "succeed"
    doc = "Always succeeds."
    instant = True

    def tick(self, ctx):
        ctx.mem[self.s] = SUCCESS
        return SUCCESS


class Fail(Node):
    """Always FAILURE, with itself as the reason. Instant.

    >>> tree = Tree(Fail(name="never"))
    >>> ctx = Context(tree.new_memory(), {}, {})
    >>> tree.tick(ctx) == FAILURE, ctx.why()
    (True, 'never: fails by design')
    """
    type_name = "fail"
    doc = "Always fails."
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

    The leaf calls ``ctx.planner.run(ctx, mode, goal, fresh)`` every tick (``fresh``: it was not RUNNING before,
    so a new plan is wanted) and returns its status; halting a running leaf calls ``ctx.planner.stop(ctx, mode,
    goal)``. Without a planner it fails. ai/executor.py's ``PlanRunner`` has the example with a real planner.

    >>> from ai.status import name
    >>> class Planner:                               # a stand-in for ai.executor.PlanRunner
    ...     def run(self, ctx, mode, goal, fresh):
    ...         print("run", mode, goal, "fresh" if fresh else "going on")
    ...         return RUNNING, ""
    ...     def stop(self, ctx, mode, goal):
    ...         print("stop", mode, goal)
    >>> tree = Tree(Achieve("safe"))
    >>> ctx = Context(tree.new_memory(), {}, {}, planner=Planner())
    >>> name(tree.tick(ctx))
    run goap safe fresh
    'running'
    >>> name(tree.tick(ctx))
    run goap safe going on
    'running'
    >>> tree.halt(ctx)
    stop goap safe
    >>> ctx.planner = None
    >>> name(tree.tick(ctx)), ctx.why()
    ('failure', 'goap:safe: no planner attached')
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
    """Plan with GOAP (ai/goap.py) towards ``goal`` and run the plan (see ``Plan``).

    >>> leaf = Achieve("safe")
    >>> leaf.name, leaf.mode, leaf.describe()
    ('goap:safe', 'goap', 'GOAP goal safe')
    """
    type_name = "achieve"
    doc = ("Reaches a GOAP goal of the brain's GOAP domain: plans, then runs the plan step by step through the "
           "ledger.")
    keys = (Key("goal", "text", "goal name in the brain's GOAP domain", role="goap_goal"),)
    mode = "goap"

    def describe(self):
        return f"GOAP goal {self.goal}"


class Perform(Plan):
    """Decompose the HTN task ``task`` (ai/htn.py) and run the steps (see ``Plan``).

    >>> leaf = Perform("take_cover")
    >>> leaf.name, leaf.goal, leaf.describe()
    ('htn:take_cover', 'take_cover', 'HTN task take_cover')
    """
    type_name = "perform"
    doc = "Performs an HTN task of the brain's HTN domain: decomposes it, then runs the steps through the ledger."
    keys = (Key("task", "text", "task name in the brain's HTN domain", role="htn_task"),)
    mode = "htn"

    def __init__(self, task: str, name: str = ""):
        super().__init__(task, name)

    def describe(self):
        return f"HTN task {self.goal}"


# -- the tree -----------------------------------------------------------------------------------------------
class Tree:
    """A root node with memory slots assigned depth-first; shared by every NPC running it.

    ``root``: the top node; ``name``: the tree's name (in messages). Building it numbers every node's slots
    (``nodes`` in depth-first order, ``size`` slots in all); a node that appears twice raises ``ValueError``
    (trees cannot share nodes or loop). Each NPC keeps its own ``new_memory()`` and ticks with it in its
    ``Context``.

    A guard that patrols until it is hurt, then flees; the selector has no memory, so the flight is checked
    again on every tick:

    >>> from ai.conditions import Condition
    >>> from ai.status import name
    >>> tree = Tree(Selector([
    ...     Sequence([ConditionNode(Condition("hp", "<", 30), name="hurt"), SetValue("fleeing", True)],
    ...              name="flee"),
    ...     Wait(3.0, name="patrol"),
    ... ], memory=False), name="guard")
    >>> [node.name for node in tree.nodes], tree.size
    (['selector', 'flee', 'hurt', 'set', 'patrol'], 8)
    >>> ctx = Context(tree.new_memory(), {"hp": 100}, {}, now=0.0)
    >>> name(tree.tick(ctx)), ctx.why(), tree.running_path(ctx.mem)
    ('running', 'hurt: hp < 30 is false', ['selector', 'patrol'])
    >>> ctx.facts["hp"] = 20                         # the flight wins; the running patrol is halted
    >>> name(tree.tick(ctx)), ctx.bb, tree.running_path(ctx.mem)
    ('success', {'fleeing': True}, [])
    >>> leaf = Succeed()
    >>> Tree(Sequence([leaf, leaf]), name="twice")
    Traceback (most recent call last):
    ...
    ValueError: node 'succeed' appears twice in tree 'twice' (trees cannot share or loop)
    """

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
        """Fresh memory for one NPC: ``size`` zeros (every node IDLE).

        >>> Tree(Sequence([Succeed(), Wait(1.0)])).new_memory()      # 2 + 1 + 2 slots
        [0, 0, 0, 0, 0]
        """
        return [0] * self.size

    def tick(self, ctx: Context) -> int:
        """Tick the root once with ``ctx`` (whose ``mem`` is this tree's memory); returns its status."""
        return self.root.tick(ctx)

    def halt(self, ctx: Context) -> None:
        """Stop what runs (cancelling its host actions) and reset the memory to IDLE.

        >>> tree = Tree(Wait(5.0))
        >>> ctx = Context(tree.new_memory(), {}, {}, now=1.0)
        >>> tree.tick(ctx) == RUNNING, ctx.mem           # the wait's slots: its status (RUNNING), its end time
        (True, [3, 6.0])
        >>> tree.halt(ctx); ctx.mem
        [0, 0]
        """
        if ctx.mem[self.root.s] == RUNNING:
            self.root.halt(ctx)
        else:
            for i in range(self.size):
                ctx.mem[i] = 0

    def running_path(self, mem: list) -> list[str]:
        """Names of the RUNNING nodes from the root down (what the NPC is doing now); see the class example."""
        path = []
        node = self.root
        while mem[node.s] == RUNNING:
            path.append(node.name)
            for child in node.children:          # the first running child (at most one runs)
                if mem[child.s] == RUNNING:
                    node = child
                    break
            else:
                break
        return path
