"""The content reference, generated from the schema models and the catalogue (so it cannot drift).

``rts docs`` writes it to docs/content.md; ``rts docs --check`` (and a test) fail when the file is stale.
Every file kind, every table inside one, every behavior-tree node type, every key with its type, default,
allowed range and meaning, then the facts brains can read, the actions they can ask for and the map tiles
(from the tile legend).
"""
from __future__ import annotations

import typing

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from content import schema
from content.catalog import ACTIONS, FACTS, TARGET_TYPES
from content.tiles import LEGEND, Tile

#: (heading, model, where it appears) in the order the reference lists them
SECTIONS = [
    ("Unit (`units/*.toml`)", schema.UnitDef, "one unit type per file"),
    ("Unit weapon (`[weapon]` in a unit)", schema.WeaponDef, ""),
    ("Unit ammunition (`[ammo]` in a unit)", schema.AmmoDef, ""),
    ("Worker (`[worker]` in a unit)", schema.WorkerDef, ""),
    ("Look (`[look]` in a unit or a building)", schema.LookDef,
     "A sprite path is checked when the content loads: a PNG file inside the mod's folder (a path relative to it; "
     "`..`, absolute paths and links leading out are refused) of at most 4 MiB, or an Arcade resource such as "
     "`:resources:images/topdown_tanks/tankBody_blue.png`. The docs/modding.md section *How a type looks* shows it."),
    ("Building (`buildings/*.toml`)", schema.BuildingDef, "one building type per file"),
    ("Strategy profile (`strategies/*.toml`)", schema.StrategyDef, "one strategy per file"),
    ("Planned strategy (`[planner]` in a strategy profile)", schema.PlannerDef,
     "read when `algorithm = \"planned\"`; docs/rules/strategy.md says what each number does"),
    ("Difficulty level (`difficulties/*.toml`)", schema.DifficultyDef, "one level per file"),
    ("Brain (`brains/*.toml`)", schema.BrainDef, "one NPC brain per file"),
    ("Utility thresholds (`[utility]` in a brain)", schema.UtilityDef, ""),
    ("Utility candidate (`[candidates.NAME]` in a brain)", schema.CandidateDef, ""),
    ("Preference (an item of a candidate's `preferences`)", schema.PreferenceDef, ""),
    ("Response curve (`curve = { ... }` in a preference)", schema.CurveDef, ""),
    ("Condition (gates, `when` lists, condition nodes)", schema.ConditionDef, ""),
    ("Emergency (`[[emergencies]]` in a brain)", schema.EmergencyDef, ""),
    ("HFSM state (`[states.NAME]` in a brain)", schema.StateDef, ""),
    ("HFSM transition (an item of a state's `transitions`)", schema.TransitionDef, ""),
    ("Behavior tree (`[trees.NAME]` in a brain)", schema.TreeDef, ""),
    ("GOAP domain (`goap/*.toml`)", schema.GoapDef, "one GOAP domain per file"),
    ("GOAP action (`[actions.NAME]` in a GOAP domain)", schema.GoapActionDef, ""),
    ("HTN domain (`htn/*.toml`)", schema.HtnDef, "one HTN domain per file"),
    ("HTN primitive task (`[primitives.NAME]` in an HTN domain)", schema.HtnPrimitiveDef, ""),
    ("HTN compound task (`[compounds.NAME]` in an HTN domain)", schema.HtnCompoundDef, ""),
    ("HTN method (an item of a compound task's `methods`)", schema.HtnMethodDef, ""),
    ("Commander profile (`commanders/*.toml`)", schema.CommanderDef, "one tactical commander per file"),
    ("Map (`maps/*.toml`)", schema.MapDef, "one map per file; a map drawn in the Tiled editor, `maps/*.tmj`, "
                                           "gives the same keys: see \"Maps in Tiled\" in modding.md"),
    ("Scenario (`scenarios/*.toml`)", schema.ScenarioDef, "one match setup per file"),
    ("Team (`[[teams]]` in a scenario)", schema.TeamDef, ""),
    ("Starting building (an item of a team's `buildings`)", schema.BuildingSpawnDef, ""),
    ("Spawn group (`[[teams.spawns]]` in a team)", schema.SpawnDef, ""),
]


def _type_name(annotation) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is type(None):
        return "none"
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin is typing.Literal:
        return " \\| ".join(f'"{a}"' if isinstance(a, str) else str(a) for a in args)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        names = [_type_name(a) for a in args if a is not type(None)]
        return " or ".join(dict.fromkeys(names)) + (" (optional)" if type(None) in args else "")
    if origin is list:
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin is dict:
        return f"table: name -> {_type_name(args[1])}" if args else "table"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"table ({annotation.__name__.removesuffix('Def')})"
    return {str: "string", int: "integer", float: "number", bool: "boolean"}.get(annotation, str(annotation))


def _range(info: FieldInfo) -> str:
    parts = []
    unit = "characters" if info.annotation is str else "items"
    for m in info.metadata:
        if isinstance(m, Ge):
            parts.append(f">= {m.ge}")
        elif isinstance(m, Gt):
            parts.append(f"> {m.gt}")
        elif isinstance(m, Le):
            parts.append(f"<= {m.le}")
        elif isinstance(m, Lt):
            parts.append(f"< {m.lt}")
        elif isinstance(m, MinLen):
            parts.append(f"at least {m.min_length} {unit}")
        elif isinstance(m, MaxLen):
            parts.append(f"at most {m.max_length} {unit}")
        elif hasattr(m, "pattern") and m.pattern:
            if "a-z" in m.pattern:
                parts.append("a name: a-z, 0-9, _ (starts with a letter)" + (", or empty" if m.pattern.endswith(")?$")
                                                                              else ""))
            else:
                parts.append(f"matches {m.pattern}")
    return ", ".join(parts)


def _default(info: FieldInfo) -> str:
    if info.default is PydanticUndefined and info.default_factory is None:
        return "**required**"
    value = info.default_factory() if info.default_factory is not None else info.default
    if isinstance(value, BaseModel):
        return "(all defaults)"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if value is None:
        return "(none)"
    if value == [] or value == {}:
        return "empty"
    return f"`{value}`"


def _doc(model) -> str:
    """The model's docstring as one sentence of markdown (reST ``code`` becomes `code`, file-kind notes go)."""
    import re
    text = " ".join((model.__doc__ or "").split())
    text = re.sub(r"\s*\(file kind ``[^`]*``\)", "", text)
    return text.replace("``", "`")


def _esc(text: str) -> str:
    return text.replace("|", "\\|")


def model_table(model: type[BaseModel], skip=()) -> list[str]:
    out = ["| key | type | default | allowed | meaning |", "|---|---|---|---|---|"]
    for name, info in model.model_fields.items():
        if name in skip:
            continue
        out.append(f"| `{name}` | {_esc(_type_name(info.annotation))} | {_esc(_default(info))} | "
                   f"{_esc(_range(info))} | {_esc(info.description or '')} |")
    return out


def generate() -> str:
    lines = [
        "# Content reference",
        "",
        "Generated from the content schema by `rts docs` — do not edit by hand; `rts docs --check` (run by the "
        "tests) fails when this file is out of date. Every file is TOML and names its object with `id`; a mod "
        "file with an existing id changes only the keys it gives (tables merge). A mistake is reported as "
        "`file:line: key.path: message` and nothing is loaded. See [modding.md](modding.md) for a walkthrough.",
        "",
    ]
    for heading, model, where in SECTIONS:
        lines += [f"## {heading}", ""]
        doc = _doc(model)
        if where or doc:
            lines += [" ".join(x for x in (doc, f"({where})" if where else "") if x), ""]
        lines += model_table(model) + [""]
    lines += ["## Behavior-tree nodes (`nodes.NAME = { type = \"...\", ... }` in a tree)", "",
              "Every node is a table with a `type`; children are named by their node names. Composites take "
              "`children`, decorators one `child`.", ""]
    for node_type, model in schema.NODE_DEFS.items():
        lines += [f"### `{node_type}`", "", _doc(model), ""]
        rows = model_table(model, skip=("type",))
        lines += rows if len(rows) > 2 else ["(no other keys)"]
        lines.append("")
    lines += ["## Facts a brain can read", "",
              "Conditions, preferences and `$name` parameters read these (or a blackboard key a `set` node or "
              "`on_enter` wrote). A fact that does not apply is absent: a condition on it is false, a preference "
              "reading it is diagnosed and its candidate is ineligible, an action needing it fails.", "",
              "| fact | type | meaning |", "|---|---|---|"]
    lines += [f"| `{name}` | {kind} | {_esc(meaning)} |" for name, (kind, meaning) in FACTS.items()]
    lines += ["", "## Actions (what `action = \"...\"` may name)", "",
              "Each is carried out by the host's ledger: accepted only when its preconditions hold (checked again when "
              "it starts), and timed out when it has no result after its time-out (a node or plan may set another).",
              "", "| action | parameters | what the host does | preconditions | time-out |", "|---|---|---|---|---|"]
    for name, row in ACTIONS.items():
        timeout = f"{row['timeout_seconds']:g} s" if row["timeout_seconds"] else "none"
        lines.append(f"| `{name}` | {_esc(row['params']) or '-'} | {_esc(row['meaning'])} | "
                     f"{_esc(row['preconditions']) or '-'} | {timeout} |")
    lines += ["", "## GOAP target types (`target_type = \"...\"`)", "", "| type | the host offers |", "|---|---|"]
    lines += [f"| `{name}` | {_esc(meaning)} |" for name, meaning in TARGET_TYPES.items()]
    lines += ["", "## Map tiles", "",
              "In a Tiled map (`maps/*.tmj`) a tile stands for the row its class names (`name`, case and `_` "
              "ignored), or for the tile character in its string property `char`.", "",
              "| tile | name | walkable at start | cover | entity placed on it | meaning |",
              "|---|---|---|---|---|---|"]
    lines += [f"| `{ch}` | {_esc(tile.name)} | {'yes' if tile.walkable else 'no'} | {'yes' if tile.cover else 'no'} | "
              f"{_placed(tile)} | {_esc(tile.description)} |" for ch, tile in LEGEND.items()]
    return "\n".join(lines) + "\n"


def _placed(tile: Tile) -> str:
    """The entity a match creates on the tile, in words."""
    if tile.door is not None:
        return f"door ({tile.door})"
    if tile.pickup is not None:
        return f"pickup `{tile.pickup.kind}`, amount {tile.pickup.amount}"
    if tile.field is not None:
        return f"resource field, amount {tile.field.amount}, {tile.field.slots} workers at a time"
    return "-"
