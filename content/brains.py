"""Brain files beyond the schema: cross-references checked, then compiled into ``ai`` objects.

The schema (content/schema.py) has already checked types and ranges. Here:
names are well formed; every state, tree, node, candidate and fact a brain
names exists; trees are trees (each node reached once from the root: no
cycles, no sharing, nothing unreachable); state parents form no cycle;
composite states have an initial child and no tree. Each problem is reported
as (key path, message) so the loader can name the file and line. Only a
brain with no problem is compiled.
"""
from __future__ import annotations

import re

from ai import bt
from ai.brain import Brain
from ai.conditions import Condition
from ai.curves import Curve
from ai.executor import Planning
from ai.hfsm import Machine, State, Transition
from ai.utility import Candidate, Emergency, Preference, ModeSelector
from content.catalog import ACTIONS, FACTS, suggest
from content.schema import BrainDef

NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
COMPOSITES = {"sequence", "selector", "reactive_sequence", "reactive_fallback", "parallel"}
DECORATORS = {"inverter", "repeat", "retry", "timeout", "cooldown", "guard"}


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
                if node.type == "set":
                    bb_keys.add(node.key)
        super().__init__(set(FACTS) | bb_keys | set(extra_facts))

    def conditions(self, path: tuple, conds) -> None:
        for i, c in enumerate(conds):
            self.fact(path + (i, "fact"), c.fact)

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
        while stack:
            nid, where, trail = stack.pop()
            if nid not in nodes:
                self.bad(where, f"unknown node '{nid}'{suggest(nid, nodes)}")
                continue
            if nid in reached:
                kind = "cycle" if nid in trail[:-1] else "node used twice"
                self.bad(where, f"{kind}: '{nid}' is reached again (" + " -> ".join(trail) + "); a tree node has "
                                "one parent")
                continue
            reached[nid] = where
            node = nodes[nid]
            npath = base + ("nodes", nid)
            if node.type in COMPOSITES:
                for i, child in reversed(list(enumerate(node.children))):
                    stack.append((child, npath + ("children", i), trail + (child,)))
                if node.type == "parallel":
                    for policy in ("success", "failure"):
                        v = getattr(node, policy)
                        if isinstance(v, int) and not 1 <= v <= len(node.children):
                            self.bad(npath + (policy,), f"{policy} threshold {v} must be 1..{len(node.children)}")
            elif node.type in DECORATORS:
                stack.append((node.child, npath + ("child",), trail + (node.child,)))
                if node.type == "guard":
                    self.conditions(npath + ("when",), node.when)
            elif node.type == "condition":
                self.fact(npath + ("fact",), node.fact)
            elif node.type == "action":
                if node.action not in ACTIONS:
                    self.bad(npath + ("action",), f"unknown action '{node.action}'{suggest(node.action, ACTIONS)} "
                                                  f"(known: {', '.join(ACTIONS)})")
                if isinstance(node.target, str):
                    if not node.target.startswith("$"):
                        self.bad(npath + ("target",), "target must be an entity id or a '$fact'")
                    else:
                        self.ref(npath + ("target",), node.target)
                for key, value in node.params.items():
                    self.ref(npath + ("params", key), value)
            elif node.type == "set":
                self.ref(npath + ("value",), node.value)
            elif node.type == "achieve":
                if not self.b.goap:
                    self.bad(npath + ("goal",), "an 'achieve' node needs the brain to name a GOAP domain (goap = \"...\")")
                elif self.goap is not None and node.goal not in self.goap["goals"]:
                    self.bad(npath + ("goal",), f"GOAP domain '{self.b.goap}' has no goal '{node.goal}'"
                                                f"{suggest(node.goal, self.goap['goals'])}")
            elif node.type == "perform":
                if not self.b.htn:
                    self.bad(npath + ("task",), "a 'perform' node needs the brain to name an HTN domain (htn = \"...\")")
                elif self.htn is not None and node.task not in self.htn["domain"].tasks:
                    self.bad(npath + ("task",), f"HTN domain '{self.b.htn}' has no task '{node.task}'"
                                                f"{suggest(node.task, self.htn['domain'].tasks)}")
        for nid in nodes:
            if nid not in reached:
                self.bad(base + ("nodes", nid), f"node '{nid}' is not reachable from the root '{tdef.root}'")


def check_brain(bdef: BrainDef, extra_facts=(), goap_domains=None, htn_domains=None) -> list[tuple[tuple, str]]:
    """``goap_domains`` / ``htn_domains``: compiled domains by id (content/planning.py)."""
    return _Checker(bdef, extra_facts, goap_domains, htn_domains).run()


# -- compiling -----------------------------------------------------------------------------------------------------
def _cond(c) -> Condition:
    return Condition(c.fact, c.op, c.value)


def _curve(cdef) -> Curve:
    params = {k: v for k, v in cdef.model_dump(exclude={"type", "points"}).items() if v is not None}
    return Curve(cdef.type, params, tuple(tuple(p) for p in cdef.points or ()))


def build_node(nid: str, nodes: dict, make_plan=None) -> bt.Node:
    node = nodes[nid]
    t = node.type
    if t in COMPOSITES:
        kids = [build_node(c, nodes, make_plan) for c in node.children]
        if t == "sequence":
            return bt.Sequence(kids, node.memory, nid)
        if t == "selector":
            return bt.Selector(kids, node.memory, nid)
        if t == "reactive_sequence":
            return bt.ReactiveSequence(kids, nid)
        if t == "reactive_fallback":
            return bt.ReactiveFallback(kids, nid)
        return bt.Parallel(kids, node.success, node.failure, nid)
    if t in DECORATORS:
        child = build_node(node.child, nodes, make_plan)
        if t == "inverter":
            return bt.Inverter(child, nid)
        if t == "repeat":
            return bt.Repeat(child, node.times, nid)
        if t == "retry":
            return bt.Retry(child, node.attempts, nid)
        if t == "timeout":
            return bt.Timeout(child, node.seconds, nid)
        if t == "cooldown":
            return bt.Cooldown(child, node.seconds, nid)
        return bt.Guard(child, [_cond(c) for c in node.when], nid)
    if t == "condition":
        return bt.ConditionNode(Condition(node.fact, node.op, node.value), nid)
    if t == "action":
        return bt.ActionLeaf(node.action, node.target, dict(node.params), nid)
    if t == "wait":
        return bt.Wait(node.seconds, nid)
    if t == "set":
        return bt.SetValue(node.key, node.value, nid)
    if t == "succeed":
        return bt.Succeed(nid)
    if t == "fail":
        return bt.Fail(nid)
    if t == "achieve":
        return bt.Achieve(node.goal, nid)
    if t == "perform":
        return bt.Perform(node.task, nid)
    raise ValueError(f"node type '{t}' cannot be built")   # pragma: no cover - the schema lists every type


def build_planning(bdef: BrainDef, goap_domains=None, htn_domains=None) -> Planning | None:
    g = (goap_domains or {}).get(bdef.goap) if bdef.goap else None
    h = (htn_domains or {}).get(bdef.htn) if bdef.htn else None
    if g is None and h is None:
        return None
    return Planning(goap_actions=list(g["actions"]) if g else [], goap_goals=dict(g["goals"]) if g else {},
                    goap_steps=dict(g["steps"]) if g else {}, htn_domain=h["domain"] if h else None,
                    htn_steps=dict(h["steps"]) if h else {}, budget=g["budget"] if g else 5000,
                    depth_limit=h["depth_limit"] if h else 64, max_replans=bdef.max_replans)


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
    selector = ModeSelector(candidates, emergencies, bdef.utility.margin, bdef.utility.min_hold)
    return Brain(bdef.id, selector, Machine(states), bdef.think_every, bdef.idle_state,
                 build_planning(bdef, goap_domains, htn_domains))
