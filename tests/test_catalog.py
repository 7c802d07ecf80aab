"""The catalog of what brains may name is derived from the host code that provides it, and holds equal to it."""
import math
import sys
import textwrap

from content.catalog import ACTIONS, FACTS, TARGET_TYPES
from content.reference import generate
from game import TICK_HZ
from game.world import World
from systems.actions import Executor, build_executors, discover, executor_classes


def test_every_action_kind_has_a_complete_catalog_row():
    classes = executor_classes()
    assert list(ACTIONS) == list(classes) == sorted(classes) and set(build_executors()) == set(ACTIONS)
    for kind, cls in classes.items():
        row = ACTIONS[kind]
        assert cls.kind == kind and row["meaning"] and row["preconditions"], kind
        assert isinstance(row["params"], str)
        assert row["timeout_seconds"] >= 0 and cls.default_timeout == round(row["timeout_seconds"] * TICK_HZ)


def test_the_reference_lists_every_action_with_its_row():
    text = generate()
    table = text[text.index("## Actions"):].split("\n## ")[0].splitlines()
    for kind, row in ACTIONS.items():
        line = next(ln for ln in table if ln.startswith(f"| `{kind}` |"))
        assert row["meaning"].split(";")[0] in line and row["preconditions"].split(";")[0] in line
        assert (f"{row['timeout_seconds']:g} s" if row["timeout_seconds"] else "none") in line


def test_a_new_module_in_an_action_package_is_an_action_kind(tmp_path, monkeypatch):
    pkg = tmp_path / "more_actions"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "salute.py").write_text(textwrap.dedent('''
        from game.ledger import CONFIRMED
        from systems.actions.base import Executor

        class SaluteExecutor(Executor):
            kind = "salute"
            params = ""
            meaning = "stand to attention for a moment"
            preconditions = "the actor is alive"
            timeout_seconds = 2.5
            needs = ()

            def update(self, world, action):
                return CONFIRMED, "saluted"
    '''))
    (pkg / "helpers.py").write_text("VALUE = 1\n")          # a module without an executor adds nothing
    monkeypatch.syspath_prepend(str(tmp_path))
    found = discover("more_actions", [str(pkg)])
    assert list(found) == ["salute"] and issubclass(found["salute"], Executor)
    assert found["salute"].default_timeout == 75 and found["salute"].catalog_row()["meaning"].startswith("stand")
    (pkg / "salute2.py").write_text((pkg / "salute.py").read_text().replace("SaluteExecutor", "Salute2"))
    sys.modules.pop("more_actions", None)
    try:
        discover("more_actions", [str(pkg)])
    except ValueError as exc:
        assert "action kind 'salute' is defined twice" in str(exc)
    else:
        raise AssertionError("a duplicate kind was accepted")


def test_perception_produces_only_catalogued_facts_and_every_one_of_them(content):
    """Run matches that visit every situation perception knows (doors, keys, crates, orders, fights) and compare
    what it produced with the one FACTS table."""
    produced: set = set()
    for scenario, seed in (("skirmish", 1), ("skirmish", 2), ("uct_vs_scripted", 3)):
        world = World(content, scenario, seed)
        original = world.perception.facts

        def spy(eid, now, *batched, original=original):        # batched: facts_batch's precomputed part
            facts = original(eid, now, *batched)
            assert all(not isinstance(v, float) or not math.isnan(v) for v in facts.values())
            produced.update(facts)
            return facts

        world.perception.facts = spy
        try:
            world.run(2400)
        finally:
            world.close()
    assert produced <= set(FACTS), produced - set(FACTS)
    assert produced == set(FACTS), f"declared but never produced: {sorted(set(FACTS) - produced)}"
    assert set(TARGET_TYPES) == {"crate", "key"}
