"""GOAP and HTN domain files beyond the schema: names, facts, action kinds and task references, then compiled.

Each problem is (key path, message) for the loader to locate. A domain with a
problem is not compiled, so nothing half-checked reaches a brain.
"""
from __future__ import annotations

from ai import goap, htn
from ai.executor import StepSpec
from content.brains import Checks, fact_types
from content.catalog import ACTIONS, FACTS, TARGET_TYPES, suggest
from content.schema import GoapDef, HtnDef


class _Checks(Checks):
    def __init__(self):
        super().__init__(FACTS)
        self.types = fact_types()          # a step's '$name' reads a fact of the catalog

    def facts(self, path, facts: dict):
        for key in facts:
            self.fact(path + (key,), key)

    def step(self, path, d):
        if d.action not in ACTIONS:
            self.bad(path + ("action",), f"unknown action '{d.action}'{suggest(d.action, ACTIONS)} "
                                         f"(known: {', '.join(ACTIONS)})")
        if isinstance(d.target, str):
            if not d.target.startswith("$"):
                self.bad(path + ("target",), "target must be an entity id or a '$fact'")
            else:
                self.ref(path + ("target",), d.target)
        for key, value in d.params.items():
            self.ref(path + ("params", key), value)
        if d.action in ACTIONS:
            for key, want in ACTIONS[d.action].get("param_types", {}).items():
                if key in d.params:
                    self.check_param(path + ("params", key), d.params[key], want, f"{d.action}'s {key}")
        self.facts(path + ("pre",), d.pre)
        self.facts(path + ("effects",), d.effects)


def check_goap(gdef: GoapDef) -> list[tuple[tuple, str]]:
    c = _Checks()
    for name, a in gdef.actions.items():
        path = ("actions", name)
        c.name(path, name, "action")
        c.step(path, a)
        if a.target_type:
            if a.target_type not in TARGET_TYPES:
                c.bad(path + ("target_type",), f"unknown target type '{a.target_type}' "
                                               f"(known: {', '.join(TARGET_TYPES)})")
            if a.target:
                c.bad(path + ("target",), "give either target or target_type, not both")
    for name, facts in gdef.goals.items():
        c.name(("goals", name), name, "goal")
        if not facts:
            c.bad(("goals", name), f"goal '{name}' names no facts")
        c.facts(("goals", name), facts)
    return c.problems


def check_htn(hdef: HtnDef) -> list[tuple[tuple, str]]:
    c = _Checks()
    for name, p in hdef.primitives.items():
        c.name(("primitives", name), name, "task")
        c.step(("primitives", name), p)
    known = set(hdef.primitives) | set(hdef.compounds)
    for name, comp in hdef.compounds.items():
        c.name(("compounds", name), name, "task")
        if name in hdef.primitives:
            c.bad(("compounds", name), f"'{name}' is both a primitive and a compound task")
        for i, m in enumerate(comp.methods):
            c.facts(("compounds", name, "methods", i, "pre"), m.pre)
            for j, sub in enumerate(m.subtasks):
                if sub not in known:
                    c.bad(("compounds", name, "methods", i, "subtasks", j), f"unknown task '{sub}'{suggest(sub, known)}")
    return c.problems


def build_goap(gdef: GoapDef) -> dict:
    actions = [goap.GoapAction(name, dict(a.pre), dict(a.effects), a.cost, a.target_type, a.cost_per_tile)
               for name, a in gdef.actions.items()]
    steps = {name: StepSpec(a.action, a.target, dict(a.params)) for name, a in gdef.actions.items()}
    return {"actions": actions, "goals": {n: dict(f) for n, f in gdef.goals.items()}, "steps": steps,
            "budget": gdef.budget}


def build_htn(hdef: HtnDef) -> dict:
    prims = [htn.Primitive(n, dict(p.pre), dict(p.effects)) for n, p in hdef.primitives.items()]
    comps = [htn.Compound(n, tuple(htn.Method(m.name, dict(m.pre), tuple(m.subtasks)) for m in c.methods))
             for n, c in hdef.compounds.items()]
    steps = {n: StepSpec(p.action, p.target, dict(p.params)) for n, p in hdef.primitives.items()}
    return {"domain": htn.Domain(prims, comps), "steps": steps, "depth_limit": hdef.depth_limit,
            "budget": hdef.budget}
