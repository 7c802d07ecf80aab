"""Behavior-tree node types have one home, their class in ai/bt.py: the schema, the checker, the builder, the
reference and `rts graph` all read the registry (``ai.bt.NODE_TYPES``), so a node type defined once is usable
in brain files with nothing else edited."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ai import bt
from content import reference, schema
from content.brains import _Checker
from content.loader import load_content
from tests.conftest import write_mod
from tests.test_brain_content import BRAIN

ROOT = Path(__file__).resolve().parent.parent


def _sample(key: bt.Key):
    """A value that key ``key`` accepts in the default content (a goal and a task of the guard domains)."""
    by_role = {"fact": "enemy_distance", "action": "wait", "goap_goal": "safe", "htn_task": "enter_cover",
               "conditions": [{"fact": "enemy_visible"}]}  # a number fact: the sample scalar is 1
    if key.role in by_role:
        return by_role[key.role]
    if key.choices:
        return key.choices[0]
    if key.type in ("int", "float"):
        low = key.ge if key.ge is not None else (key.gt + 1 if key.gt is not None else 1)
        return int(low) if key.type == "int" else float(low)
    return {"bool": False, "text": "x", "name": "x", "scalar": 1, "target": 0, "params": {"x": 1}}[key.type]


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml, value)) + "]"
    return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"


def every_type_brain() -> str:
    """A brain whose one tree holds a node of every registered type, every key given; composites and decorators
    get a `succeed` leaf of their own."""
    nodes = {"root": {"type": "sequence", "children": [f"n_{t}" for t in bt.NODE_TYPES]}}
    for type_name, cls in bt.NODE_TYPES.items():
        table = {"type": type_name}
        leaf = f"n_{type_name}_child"
        if cls.shape == bt.COMPOSITE:
            table["children"] = [leaf]
        elif cls.shape == bt.DECORATOR:
            table["child"] = leaf
        if cls.shape != bt.LEAF:
            nodes[leaf] = {"type": "succeed"}
        table.update((key.name, _sample(key)) for key in cls.keys)
        nodes[f"n_{type_name}"] = table
    lines = ['id = "every"', 'goap = "guard"', 'htn = "guard"', "[candidates.run]", "[states.run]", 'tree = "all"',
             "[trees.all]", 'root = "root"']
    lines += [f"nodes.{name} = {_toml(table)}" for name, table in nodes.items()]
    return "\n".join(lines) + "\n"


def test_every_node_type_is_accepted_checked_built_described_and_drawn(tmp_path):
    from game.app.graph import brain_drawing
    content = load_content([write_mod(tmp_path / "mod", {"brains/every.toml": every_type_brain()})])
    tree = content.brains["every"].machine.states["run"].tree
    built = {node.name: node for node in tree.nodes}
    labels = [box.lines for box in brain_drawing(content.brain_defs["every"]).boxes]
    for type_name, cls in bt.NODE_TYPES.items():
        node = built[f"n_{type_name}"]
        assert type(node) is cls
        detail = node.describe()
        assert [f"{type_name} n_{type_name}"] + ([detail] if detail else []) in labels, type_name


def test_every_node_type_has_a_reference_section_with_its_doc_and_keys():
    text = reference.generate()
    sections = text.split("\n### ")[1:]
    assert [s.split("`")[1] for s in sections] == list(bt.NODE_TYPES)
    for section, cls in zip(sections, bt.NODE_TYPES.values()):
        assert cls.doc.replace("``", "`") in section
        for key in cls.keys:
            assert f"| `{key.name}` |" in section and key.doc in section
        shape_key = {bt.COMPOSITE: "| `children` |", bt.DECORATOR: "| `child` |"}.get(cls.shape)
        assert shape_key is None or shape_key in section


def test_the_content_layer_knows_every_key_type_and_role():
    assert set(schema._KEY_TYPES) == set(bt.KEY_TYPES)
    assert set(_Checker.ROLE_CHECKS) == set(bt.ROLES)


def test_a_node_type_must_be_unique_documented_and_use_known_types():
    with pytest.raises(TypeError, match="node type 'wait' is defined twice"):
        class Wait2(bt.Wait):
            type_name = "wait"
            doc = "Another wait."
    with pytest.raises(TypeError, match="needs a one-line doc"):
        class Undocumented(bt.Succeed):
            type_name = "undocumented"
    with pytest.raises(ValueError, match="unknown type 'number'"):
        bt.Key("x", "number", "a number")
    with pytest.raises(ValueError, match="unknown role 'fakt'"):
        bt.Key("x", "name", "a fact", role="fakt")
    assert "undocumented" not in bt.NODE_TYPES and bt.NODE_TYPES["wait"] is bt.Wait


#: a node type defined outside ai/bt.py, the way a real one is: a class statement (run in a fresh interpreter,
#: before the content layer is imported, so this process's registry stays as it is)
NEW_TYPE = r'''
import json
import sys

from ai import bt
from ai.status import FAILURE


class Unless(bt.Decorator):
    """Fail without ticking the child while ``fact`` is above ``limit``."""
    type_name = "unless"
    doc = "Ticks the child only while a fact is at most a limit."
    keys = (bt.Key("fact", "name", "fact (or blackboard key) to read", role="fact"),
            bt.Key("limit", "int", "the highest value that lets the child run", default=0, ge=0, le=9))

    def __init__(self, child, fact, limit=0, name=""):
        super().__init__(child, name)
        self.fact = fact
        self.limit = limit

    def tick(self, ctx):
        if ctx.facts.get(self.fact, 0) > self.limit:
            ctx.mem[self.s] = FAILURE
            return FAILURE
        st = self.child.tick(ctx)
        ctx.mem[self.s] = st
        return st

    def describe(self):
        return f"unless {self.fact} > {self.limit}"


from content.loader import ContentError, load_content
from content.reference import generate
from game.app.graph import write

good, svg, *bad = sys.argv[1:]
content = load_content([good])
tree = content.brains["sentry"].machine.states["look"].tree
out = {"nodes": [(type(n).__name__, n.name, n.nslots) for n in tree.nodes], "size": tree.size,
       "describe": tree.root.describe()}
ctx = bt.Context(tree.new_memory(), {"enemy_visible": True}, {})
out["ticks"] = [tree.tick(ctx)]
ctx.facts["enemy_visible"] = False
out["ticks"].append(tree.tick(ctx))
write(content, "sentry", svg)
out["docs"] = [line for line in generate().split("### `unless`")[1].split("\n## ")[0].splitlines() if line]
out["problems"] = []
for mod in bad:
    try:
        load_content([mod])
    except ContentError as exc:
        out["problems"].append([str(p) for p in exc.problems])
print(json.dumps(out))
'''


def test_a_node_type_defined_once_is_loaded_checked_built_described_drawn_and_documented(tmp_path):
    def brain(idle: str) -> dict:
        nodes = f'nodes.idle = {{ type = "unless", {idle} }}\nnodes.nap = {{ type = "wait", seconds = 1.0 }}'
        return {"brains/sentry.toml": BRAIN.replace('nodes.idle = { type = "wait", seconds = 1.0 }', nodes)}
    tables = ['child = "nap", fact = "enemy_visible"', 'child = "nap", fact = "enemy_visibel"',
              'child = "nap", fact = "enemy_visible", limit = 10', 'fact = "enemy_visible"']
    mods = [write_mod(tmp_path / f"mod{i}", brain(table)) for i, table in enumerate(tables)]
    script = tmp_path / "new_type.py"
    script.write_text(textwrap.dedent(NEW_TYPE), encoding="utf-8")
    svg = tmp_path / "sentry.svg"
    proc = subprocess.run([sys.executable, str(script), str(mods[0]), str(svg), *map(str, mods[1:])],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["nodes"] == [["Unless", "idle", 1], ["Wait", "nap", 2]] and out["size"] == 3
    assert out["describe"] == "unless enemy_visible > 0"
    assert out["ticks"] == [bt.FAILURE, bt.RUNNING]
    text = svg.read_text()
    assert ">unless idle</text>" in text and ">unless enemy_visible &gt; 0</text>" in text
    assert out["docs"] == ["Ticks the child only while a fact is at most a limit.",
                           "| key | type | default | allowed | meaning |",
                           "|---|---|---|---|---|",
                           "| `child` | string | **required** |  | the decorated node |",
                           "| `fact` | string | **required** | a name: a-z, 0-9, _ (starts with a letter) | fact (or "
                           "blackboard key) to read |",
                           "| `limit` | integer | `0` | >= 0, <= 9 | the highest value that lets the child run |"]
    line = 24                                   # the line of nodes.idle in the brain file
    first, second, third = out["problems"]
    assert len(first) == 1 and first[0].endswith(f"sentry.toml:{line}: trees.look.nodes.idle.fact: unknown fact "
                                                 "'enemy_visibel' (did you mean 'enemy_visible'?)"), first
    assert len(second) == 1 and second[0].endswith(f"sentry.toml:{line}: trees.look.nodes.idle.limit: Input "
                                                   "should be less than or equal to 9"), second
    assert len(third) == 1 and third[0].endswith(f"sentry.toml:{line}: trees.look.nodes.idle.child: required key "
                                                 "is missing"), third
