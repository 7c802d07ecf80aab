"""Brain files beyond the schema: cross-references checked, then compiled into ``ai`` objects.

The schema (content/schema.py) has already checked types and ranges. Here:
names are well formed; every state, tree, node, candidate and fact a brain
names exists; trees are trees (each node reached once from the root: no
cycles, no sharing, nothing unreachable); state parents form no cycle;
composite states have an initial child and no tree. Each problem is reported
as (key path, message) so the loader can name the file and line. Only a
brain with no problem is compiled.

Tree nodes are checked and built through the node types' own specs
(``ai.bt.NODE_TYPES``): the shape says where the children are, each key's role
says what to cross-check, and ``from_def`` builds the runtime node.
"""
from __future__ import annotations

import re

from ai import bt, htn
from ai.brain import Brain
from ai.conditions import Condition
from ai.curves import Curve
from ai.executor import Planning
from ai.hfsm import Machine, State, Transition
from ai.utility import Candidate, Emergency, Preference, ModeSelector
from content.catalog import ACTIONS, FACTS, suggest
from content.schema import BrainDef

MAX_TREE_DEPTH = 64       # levels of a behavior tree: ticking recurses once per level, far below Python's limit
MAX_STATE_DEPTH = 16      # levels of nested HFSM states
from game import TICK_HZ

NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class Checks:
    """Collects (key path, message) problems; names and facts are checked the same way in every file kind."""

    def __init__(self, known_facts):
        self.problems: list[tuple[tuple, str]] = []
        self.known = set(known_facts)

    def bad(self, path: tuple, message: str) -> None:
        self.problems.append((path, message))

    def name(self, path: tuple, value: str, what: str) -> None:
        if not NAME.match(value):
            self.bad(path, f"{what} name '{value}' must be lower case letters, digits and _ (starting with a letter)")

    def fact(self, path: tuple, name: str) -> None:
        if name not in self.known:
            self.bad(path, f"unknown fact '{name}'{suggest(name, self.known)}")

    def ref(self, path: tuple, value) -> None:
        if isinstance(value, str) and value.startswith("$"):
            self.fact(path, value[1:])

    # -- types, from the fact catalog (systems/perception.py FACTS) and the blackboard's literal writes ---------
    types: dict = {}

    def kind_of(self, value):
        """'number', 'bool', 'str' for a literal; a '$name' reference's type; None when it cannot be known."""
        if isinstance(value, bool):
            return "bool"
        if isinstance(value, (int, float)):
            return "number"
        if isinstance(value, str):
            return self.types.get(value[1:]) if value.startswith("$") else "str"
        return None

    def check_condition(self, path: tuple, fact: str, op: str, value) -> None:
        """The constant and the comparison fit the fact's type (``path``: the condition's table)."""
        kind = self.types.get(fact)
        if kind is None:
            return
        want = _WORDS[kind]
        if op not in ("==", "!=") and kind != "number":
            self.bad(path + ("op",), f"'{fact}' is {want}: only == and != compare it, not {op}")
        elif self.kind_of(value) != kind:
            self.bad(path + ("value",), f"'{fact}' is {want}, so it is compared with {want}, not {value!r}")

    def check_number(self, path: tuple, value, what: str) -> None:
        """``value`` (a literal or a '$reference') must be a number."""
        kind = self.kind_of(value)
        if kind is not None and kind != "number":
            shown = f"'{value}' is {_WORDS[kind]}" if isinstance(value, str) and value.startswith("$") \
                else f"{str(value).lower() if isinstance(value, bool) else repr(value)} is {_WORDS[kind]}"
            self.bad(path, f"{what} must be a number (a literal or a '$fact' that is a number); {shown}")

    def check_param(self, path: tuple, value, want: str, what: str) -> None:
        """An action parameter against its executor's declared type (systems/actions/*.py ``param_types``):
        'number', 'int' (a whole number: a literal int or an int/entity fact), 'bool' or 'string'. A '$name'
        whose type cannot be known here (a key a tree node writes) is left to the executor's own check."""
        if want == "number":
            self.check_number(path, value, what)
            return
        kind = self.kind_of(value)
        ref = isinstance(value, str) and value.startswith("$")
        shown = f"'{value}' is {_WORDS[kind]}" if ref and kind else (
            f"{str(value).lower() if isinstance(value, bool) else repr(value)} is "
            f"{'a number with a fraction' if isinstance(value, float) else _WORDS.get(kind, 'not plain data')}")
        if want == "int":
            fact_type = FACTS.get(value[1:], ("?", ""))[0] if ref else None
            if (kind is not None and kind != "number") or isinstance(value, float) or fact_type == "float":
                if fact_type == "float":
                    shown = f"'{value}' is a number with fractions"
                self.bad(path, f"{what} must be a whole number (a literal or a '$fact' that is a whole number); "
                               f"{shown}")
        elif want in ("bool", "string"):
            expected = "bool" if want == "bool" else "str"
            if kind is not None and kind != expected:
                self.bad(path, f"{what} must be {_WORDS[expected]} (a literal or a '$fact' that is "
                               f"{_WORDS[expected]}); {shown}")


class _Checker(Checks):
    def __init__(self, bdef: BrainDef, extra_facts=(), goap_domains=None, htn_domains=None):
        self.b = bdef
        self.goap = (goap_domains or {}).get(bdef.goap) if bdef.goap else None
        self.htn = (htn_domains or {}).get(bdef.htn) if bdef.htn else None
        self.goap_known = goap_domains or {}
        self.htn_known = htn_domains or {}
        bb_keys = set()
        for sdef in bdef.states.values():
            bb_keys |= set(sdef.on_enter) | set(sdef.on_exit)
        for tdef in bdef.trees.values():
            for node in tdef.nodes.values():
                bb_keys |= {getattr(node, key.name) for key in bt.NODE_TYPES[node.type].keys if key.role == "writes"}
        super().__init__(set(FACTS) | bb_keys | set(extra_facts))
        self.types = _fact_types(bdef, bb_keys)

    def conditions(self, path: tuple, conds) -> None:
        for i, c in enumerate(conds):
            self.fact(path + (i, "fact"), c.fact)
            self.check_condition(path + (i,), c.fact, c.op, c.value)

    def run(self) -> list[tuple[tuple, str]]:
        b = self.b
        states = b.states
        for sid in states:
            self.name(("states", sid), sid, "state")
        for tid in b.trees:
            self.name(("trees", tid), tid, "tree")
        for cid, cand in b.candidates.items():
            self.name(("candidates", cid), cid, "candidate")
            target = cand.state or cid
            where = ("candidates", cid, "state") if cand.state else ("candidates", cid)
            if target not in states:
                self.bad(where, f"candidate '{cid}' runs unknown state '{target}'{suggest(target, states)}")
            elif states[target].parent:
                self.bad(where, f"candidate '{cid}' must run a top-level state; '{target}' is inside "
                                f"'{states[target].parent}'")
            self.conditions(("candidates", cid, "gates"), cand.gates)
            for i, pref in enumerate(cand.preferences):
                self.fact(("candidates", cid, "preferences", i, "input"), pref.input)
                kind = self.types.get(pref.input)
                if kind is not None and kind != "number" and kind != "bool":
                    self.bad(("candidates", cid, "preferences", i, "input"),
                             f"'{pref.input}' is {_WORDS[kind]}; a preference reads a number")
        for i, em in enumerate(b.emergencies):
            if em.candidate not in b.candidates:
                self.bad(("emergencies", i, "candidate"),
                         f"unknown candidate '{em.candidate}'{suggest(em.candidate, b.candidates)}")
            self.conditions(("emergencies", i, "when"), em.when)
        if b.goap and b.goap not in self.goap_known:
            self.bad(("goap",), f"unknown GOAP domain '{b.goap}'{suggest(b.goap, self.goap_known)}")
        if b.htn and b.htn not in self.htn_known:
            self.bad(("htn",), f"unknown HTN domain '{b.htn}'{suggest(b.htn, self.htn_known)}")
        if b.idle_state and b.idle_state not in states:
            self.bad(("idle_state",), f"unknown state '{b.idle_state}'{suggest(b.idle_state, states)}")
        self._states()
        for tid, tdef in b.trees.items():
            self._tree(tid, tdef)
        return self.problems

    def _states(self) -> None:
        states = self.b.states
        children: dict[str, list[str]] = {sid: [] for sid in states}
        for sid, sdef in states.items():
            if sdef.parent:
                if sdef.parent not in states:
                    self.bad(("states", sid, "parent"), f"unknown parent state '{sdef.parent}'{suggest(sdef.parent, states)}")
                else:
                    children[sdef.parent].append(sid)
        for sid in states:
            seen = [sid]
            p = states[sid].parent
            while p and p in states:
                if p in seen:
                    self.bad(("states", sid, "parent"), "parent cycle: " + " -> ".join(seen + [p]))
                    break
                seen.append(p)
                if len(seen) > MAX_STATE_DEPTH:
                    self.bad(("states", sid, "parent"), f"state '{sid}' is nested more than {MAX_STATE_DEPTH} "
                                                        f"levels deep; state machines are limited to that")
                    break
                p = states[p].parent
        for sid, sdef in states.items():
            kids = children[sid]
            if kids:
                if not sdef.initial:
                    self.bad(("states", sid), f"composite state '{sid}' needs 'initial' (one of: {', '.join(kids)})")
                elif sdef.initial not in kids:
                    self.bad(("states", sid, "initial"), f"initial '{sdef.initial}' is not a child of '{sid}' "
                                                         f"(children: {', '.join(kids)})")
                if sdef.tree:
                    self.bad(("states", sid, "tree"), f"composite state '{sid}' cannot run a tree; give it to a leaf")
            elif sdef.initial:
                self.bad(("states", sid, "initial"), f"state '{sid}' has no children to start in")
            if sdef.tree and sdef.tree not in self.b.trees:
                self.bad(("states", sid, "tree"), f"unknown tree '{sdef.tree}'{suggest(sdef.tree, self.b.trees)}")
            for i, tr in enumerate(sdef.transitions):
                if tr.to not in states:
                    self.bad(("states", sid, "transitions", i, "to"),
                             f"transition to missing state '{tr.to}'{suggest(tr.to, states)}")
                self.conditions(("states", sid, "transitions", i, "when"), tr.when)
            for hook in ("on_enter", "on_exit"):
                for key, value in getattr(sdef, hook).items():
                    self.name(("states", sid, hook, key), key, "blackboard key")
                    self.ref(("states", sid, hook, key), value)

    def _tree(self, tid: str, tdef) -> None:
        nodes = tdef.nodes
        base = ("trees", tid)
        for nid in nodes:
            self.name(base + ("nodes", nid), nid, "node")
        if tdef.root not in nodes:
            self.bad(base + ("root",), f"root '{tdef.root}' is not a node of tree '{tid}'{suggest(tdef.root, nodes)}")
            return
        reached: dict[str, tuple] = {}
        stack = [(tdef.root, base + ("root",), (tdef.root,))]
        too_deep = False
        while stack:
            nid, where, trail = stack.pop()
            if nid not in nodes:
                self.bad(where, f"unknown node '{nid}'{suggest(nid, nodes)}")
                continue
            if len(trail) > MAX_TREE_DEPTH and nid not in trail[:-1]:
                if not too_deep:
                    self.bad(where, f"tree '{tid}' is more than {MAX_TREE_DEPTH} nodes deep here "
                                    f"({' -> '.join(trail[:3])} -> ... -> {nid}); trees are limited to "
                                    f"{MAX_TREE_DEPTH} levels")
                too_deep = True
                reached[nid] = where
                continue
            if nid in reached:
                kind = "cycle" if nid in trail[:-1] else "node used twice"
                self.bad(where, f"{kind}: '{nid}' is reached again (" + " -> ".join(trail) + "); a tree node has "
                                "one parent")
                continue
            reached[nid] = where
            node = nodes[nid]
            npath = base + ("nodes", nid)
            for child, below in reversed(_children(node)):
                stack.append((child, npath + below, trail + (child,)))
            for key in bt.NODE_TYPES[node.type].keys:
                if key.role:
                    self.ROLE_CHECKS[key.role](self, npath + (key.name,), getattr(node, key.name), node)
        for nid in nodes:
            if nid not in reached and not too_deep:
                self.bad(base + ("nodes", nid), f"node '{nid}' is not reachable from the root '{tdef.root}'")

    # -- one check per key role (ai.bt.ROLES): (key path, the key's value, the node's table) ------------------
    def _fact_key(self, path, value, node) -> None:
        self.fact(path, value)
        if hasattr(node, "op") and hasattr(node, "value"):          # a condition node: fact op value
            self.check_condition(path[:-1], value, node.op, node.value)

    def _written_key(self, path, value, node) -> None:
        """Nothing to check: ``__init__`` made the key a known fact for the whole brain."""

    def _ref_key(self, path, value, node) -> None:
        if isinstance(value, dict):
            for name, item in value.items():
                self.ref(path + (name,), item)
        else:
            self.ref(path, value)

    def _entity_key(self, path, value, node) -> None:
        if isinstance(value, str):
            if not value.startswith("$"):
                self.bad(path, f"{path[-1]} must be an entity id or a '$fact'")
            else:
                self.ref(path, value)

    def _action_key(self, path, value, node) -> None:
        if value not in ACTIONS:
            self.bad(path, f"unknown action '{value}'{suggest(value, ACTIONS)} (known: {', '.join(ACTIONS)})")
            return
        params = getattr(node, "params", None) or {}
        for name, want in ACTIONS[value].get("param_types", {}).items():
            if name in params:
                self.check_param(path[:-1] + ("params", name), params[name], want, f"{value}'s {name}")

    def _conditions_key(self, path, value, node) -> None:
        self.conditions(path, value)

    def _threshold_key(self, path, value, node) -> None:
        n = len(node.children)
        if isinstance(value, int) and not 1 <= value <= n:
            self.bad(path, f"{path[-1]} threshold {value} must be 1..{n}")

    def _goap_goal_key(self, path, value, node) -> None:
        if not self.b.goap:
            self.bad(path, f"{_article(node.type)} '{node.type}' node needs the brain to name a GOAP domain "
                           f"(goap = \"...\")")
        elif self.goap is not None and value not in self.goap["goals"]:
            self.bad(path, f"GOAP domain '{self.b.goap}' has no goal '{value}'{suggest(value, self.goap['goals'])}")

    def _htn_task_key(self, path, value, node) -> None:
        if not self.b.htn:
            self.bad(path, f"{_article(node.type)} '{node.type}' node needs the brain to name an HTN domain "
                           f"(htn = \"...\")")
        elif self.htn is not None and value not in self.htn["domain"].tasks:
            self.bad(path, f"HTN domain '{self.b.htn}' has no task '{value}'{suggest(value, self.htn['domain'].tasks)}")

    ROLE_CHECKS = {"fact": _fact_key, "writes": _written_key, "ref": _ref_key, "entity": _entity_key,
                   "action": _action_key, "conditions": _conditions_key, "threshold": _threshold_key,
                   "goap_goal": _goap_goal_key, "htn_task": _htn_task_key}


_WORDS = {"number": "a number", "bool": "true or false", "str": "text"}
_FACT_KINDS = {"float": "number", "int": "number", "entity": "number", "bool": "bool", "str": "str"}


def fact_types() -> dict:
    """Fact name -> 'number', 'bool' or 'str', from the fact catalog (systems/perception.py FACTS)."""
    return {name: _FACT_KINDS[t] for name, (t, _doc) in FACTS.items() if t in _FACT_KINDS}


def _fact_types(bdef: BrainDef, bb_keys) -> dict:
    """Fact or blackboard key -> 'number', 'bool' or 'str' where it is known: the fact catalog's types, and a
    blackboard key that on_enter / on_exit hooks only ever set to values of one type (a key a tree node writes,
    or set to mixed types, is not known, so it is not checked)."""
    out = fact_types()
    written: dict = {}
    for sdef in bdef.states.values():
        for hook in (sdef.on_enter, sdef.on_exit):
            for key, value in hook.items():
                if isinstance(value, bool):
                    kind = "bool"
                elif isinstance(value, (int, float)):
                    kind = "number"
                elif isinstance(value, str) and value.startswith("$"):
                    t = FACTS.get(value[1:], ("?", ""))[0]
                    kind = _FACT_KINDS.get(t)
                else:
                    kind = "str"
                written.setdefault(key, set()).add(kind)
    node_written = set()
    for tdef in bdef.trees.values():
        for node in tdef.nodes.values():
            node_written |= {getattr(node, key.name) for key in bt.NODE_TYPES[node.type].keys if key.role == "writes"}
    for key, kinds in written.items():
        if key not in out and key not in node_written and len(kinds) == 1 and None not in kinds:
            out[key] = next(iter(kinds))
    return out


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _children(node) -> list[tuple[str, tuple]]:
    """(child node name, its key path below the node) for each child a node's table names, in order."""
    shape = bt.NODE_TYPES[node.type].shape
    if shape == bt.COMPOSITE:
        return [(child, ("children", i)) for i, child in enumerate(node.children)]
    if shape == bt.DECORATOR:
        return [(node.child, ("child",))]
    return []


def check_brain(bdef: BrainDef, extra_facts=(), goap_domains=None, htn_domains=None) -> list[tuple[tuple, str]]:
    """``goap_domains`` / ``htn_domains``: compiled domains by id (content/planning.py)."""
    return _Checker(bdef, extra_facts, goap_domains, htn_domains).run()


# -- compiling -----------------------------------------------------------------------------------------------------
def _cond(c) -> Condition:
    return Condition(c.fact, c.op, c.value)


def _curve(cdef) -> Curve:
    params = {k: v for k, v in cdef.model_dump(exclude={"type", "points"}).items() if v is not None}
    return Curve(cdef.type, params, tuple(tuple(p) for p in cdef.points or ()))


def _satisfiable(conds) -> bool:
    """Whether some value satisfies every condition in ``conds`` (all on one fact). Exact for the comparisons a
    condition can make: if any value does, one of the constants, a midpoint between two, or one past the extremes
    does."""
    consts = [c.value for c in conds]
    nums = sorted({float(v) for v in consts if isinstance(v, (int, float)) and not isinstance(v, bool)})
    trial = list(consts) + [True, False]
    if nums:
        trial += [nums[0] - 1.0, nums[-1] + 1.0] + [(a + b) / 2 for a, b in zip(nums, nums[1:])]
    return any(all(_cond(c).test(v) for c in conds) for v in trial)


def brain_warnings(bdef: BrainDef) -> list[tuple[tuple, str]]:
    """What is legal but cannot do anything, as (key path, message): a state nothing enters (no candidate runs
    it, it is not the idle state, no transition leads to it, it is not its parent's initial state), and a
    candidate whose own gates contradict each other (it can never be chosen)."""
    out = []
    states = bdef.states
    start = [c.state or cid for cid, c in bdef.candidates.items()] + ([bdef.idle_state] if bdef.idle_state else [])
    reached: set[str] = set()
    todo = [s for s in start if s in states]
    while todo:
        sid = todo.pop()
        if sid in reached:
            continue
        reached.add(sid)
        sdef = states[sid]
        more = [tr.to for tr in sdef.transitions] + ([sdef.initial] if sdef.initial else [])
        if sdef.parent:
            more.append(sdef.parent)
        todo.extend(m for m in more if m in states and m not in reached)
    for sid in states:
        if sid not in reached:
            out.append((("states", sid), f"state '{sid}' is unreachable: no candidate runs it, no transition "
                                         f"leads to it and it is no parent's initial state"))
    for cid, cand in bdef.candidates.items():
        by_fact: dict[str, list] = {}
        for g in cand.gates:
            by_fact.setdefault(g.fact, []).append(g)
        for fact, conds in by_fact.items():
            if len(conds) > 1 and not _satisfiable(conds):
                labels = " and ".join(_cond(c).label for c in conds)
                out.append((("candidates", cid, "gates"), f"candidate '{cid}' is never chosen: its gates {labels} "
                                                          f"cannot all hold"))
                break
    return out


def build_node(nid: str, nodes: dict) -> bt.Node:
    """The runtime node ``nid`` of a checked tree (``nodes``: node name -> validated table), children first."""
    node = nodes[nid]
    children = tuple(build_node(child, nodes) for child, _below in _children(node))
    return bt.NODE_TYPES[node.type].from_def(nid, node, children)


def build_planning(bdef: BrainDef, goap_domains=None, htn_domains=None) -> Planning | None:
    g = (goap_domains or {}).get(bdef.goap) if bdef.goap else None
    h = (htn_domains or {}).get(bdef.htn) if bdef.htn else None
    if g is None and h is None:
        return None
    return Planning(goap_actions=list(g["actions"]) if g else [], goap_goals=dict(g["goals"]) if g else {},
                    goap_steps=dict(g["steps"]) if g else {}, htn_domain=h["domain"] if h else None,
                    htn_steps=dict(h["steps"]) if h else {}, budget=g["budget"] if g else 5000,
                    depth_limit=h["depth_limit"] if h else 64,
                    htn_budget=h["budget"] if h else htn.DEFAULT_BUDGET, max_replans=bdef.max_replans)


def build_brain(bdef: BrainDef, goap_domains=None, htn_domains=None) -> Brain:
    """Compile a checked brain into shared ai objects (trees, machine, selector, planning)."""
    trees = {tid: bt.Tree(build_node(t.root, t.nodes), tid) for tid, t in bdef.trees.items()}
    states = []
    for sid, s in bdef.states.items():
        states.append(State(
            sid, s.parent or None, s.initial or None, s.history, trees[s.tree] if s.tree else None,
            tuple(Transition(tr.to, tuple(_cond(c) for c in tr.when), tr.on) for tr in s.transitions),
            tuple(s.on_enter.items()), tuple(s.on_exit.items())))
    candidates = [Candidate(cid, tuple(_cond(g) for g in c.gates),
                            tuple(Preference(p.input, p.range[0], p.range[1], _curve(p.curve), p.weight)
                                  for p in c.preferences), c.state)
                  for cid, c in bdef.candidates.items()]
    emergencies = [Emergency(e.id, tuple(_cond(c) for c in e.when), e.candidate) for e in bdef.emergencies]
    selector = ModeSelector(candidates, emergencies, bdef.utility.margin, bdef.utility.min_hold, tick_hz=TICK_HZ)
    return Brain(bdef.id, selector, Machine(states), bdef.think_every, bdef.idle_state,
                 build_planning(bdef, goap_domains, htn_domains))
