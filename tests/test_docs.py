"""The content reference is generated from the schema and checked in: it must be current and complete."""
import typing

from pydantic import BaseModel

from content import reference, schema


def test_the_checked_in_reference_is_current():
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "docs" / "content.md"
    assert path.read_text(encoding="utf-8") == reference.generate(), "run `rts docs` and commit docs/content.md"


def models_below(model, seen):
    """Every schema model reachable from ``model`` through its fields."""
    if model in seen:
        return
    seen.add(model)
    for info in model.model_fields.values():
        stack = [info.annotation]
        while stack:
            ann = stack.pop()
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                models_below(ann, seen)
            stack.extend(typing.get_args(ann))


def test_every_file_kind_table_and_node_type_is_documented():
    seen: set = set()
    for model in schema.KINDS.values():
        models_below(model, seen)
    documented = {m for _h, m, _w in reference.SECTIONS} | set(schema.NODE_DEFS.values())
    assert seen - documented == set(), sorted(m.__name__ for m in seen - documented)
    text = reference.generate()
    for node_type in schema.NODE_DEFS:
        assert f"### `{node_type}`" in text
    for name in ("enemy_visible", "intent_kind", "cover_behind_door", "attack_move", "pick_up_key"):
        assert f"`{name}`" in text
