"""Load the default content and any mods layered over it, all or nothing.

Layout of a content root (the default one is this package's directory; a mod
directory has the same shape)::

    goap/*.toml       one GOAP domain per file (actions, goals)
    htn/*.toml        one HTN domain per file (primitive and compound tasks, methods)
    brains/*.toml     one NPC brain per file (utility candidates, HFSM states, behavior trees)
    units/*.toml      one unit type per file
    buildings/*.toml  one building type per file
    strategies/*.toml one strategy profile per file (how a team runs its economy and army)
    difficulties/*.toml one difficulty level per file (how an AI opponent plays: budget, reaction, income)
    commanders/*.toml one tactical commander profile per file
    maps/*.toml       one map per file (or maps/*.tmj, a map drawn in the Tiled editor: content/tiled.py)
    scenarios/*.toml  one scenario per file

Each file names its object with ``id``. A mod file whose id already exists
overrides just the fields it gives (tables merge, everything else replaces);
a new id adds an object. A Tiled map is read into the keys a TOML map has and
is always a whole map: it replaces an earlier map of its id outright, and a
later TOML file can still override its keys like any map's. Every problem
becomes a ``ContentError`` reading ``path:line: key.path: message``; the loader
builds a fresh ``Content`` and only returns it when everything validated, so
nothing is ever half-loaded.
"""
from __future__ import annotations

import copy
import hashlib
import re
import tomllib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ValidationError

from content.brains import brain_warnings, build_brain, check_brain
from content.planning import build_goap, build_htn, check_goap, check_htn
from content.schema import (KINDS, MAX_MAP_SIDE, MAX_MAP_TILES, BrainDef, BuildingDef, MapDef, ScenarioDef,
                            StrategyDef, UnitDef)
from content.catalog import suggest
from content import toml_guard
from content.tiled import MAP_SUFFIXES, ReadRefused, TiledError, read_bounded, read_map
from content.tiles import LEGEND
from content.toml_lines import key_lines, line_of

DEFAULT_ROOT = Path(__file__).resolve().parent
MAX_FILE_BYTES = 1 << 20  # 1 MiB: content files are small; bigger ones are refused


@dataclass(frozen=True)
class Problem:
    path: str
    line: int | None
    key: str
    message: str
    column: int | None = None      # with a line: ``path:line:column:``, as compilers write it

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        if self.line and self.column:
            where += f":{self.column}"
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


class ContentError(Exception):
    """One or more content problems; ``str()`` is the first one, on one line."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__(str(self.problems[0]) if self.problems else "content error")


def format_key(path) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


@dataclass
class _Source:
    """One file's contribution to an object."""
    path: str
    data: dict
    lines: dict
    text: str


@dataclass
class _Pending:
    kind: str
    id: str
    data: dict
    sources: list[_Source] = field(default_factory=list)

    def locate(self, path: tuple) -> tuple[str, int | None]:
        """File and line that wrote ``path`` (latest layer that has it)."""
        for src in reversed(self.sources):
            node = src.data
            found = True
            for part in path:
                try:
                    node = node[part]
                except (KeyError, IndexError, TypeError):
                    found = False
                    break
            if found:
                return src.path, line_of(src.lines, path) or 1
        # a missing key: blame the file that defined the object, at its deepest existing table
        src = self.sources[0]
        return src.path, line_of(src.lines, path) or 1


@dataclass(frozen=True)
class TileMap:
    """A validated map: rows of tile characters, all the same width."""
    id: str
    name: str
    rows: tuple[str, ...]
    starts: tuple[tuple[int, int], ...] = ()     # start locations: a headquarters' centre tile each

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @property
    def height(self) -> int:
        return len(self.rows)

    def tile(self, x: int, y: int) -> str:
        return self.rows[y][x]


@dataclass(frozen=True)
class Content:
    units: dict[str, UnitDef]
    maps: dict[str, TileMap]
    scenarios: dict[str, ScenarioDef]
    content_hash: str
    files: tuple[str, ...]
    brains: dict = field(default_factory=dict)        # id -> compiled ai.brain.Brain
    brain_defs: dict = field(default_factory=dict)    # id -> the validated schema model (for docs and diagrams)
    commanders: dict = field(default_factory=dict)    # commander profile id -> its schema model
    buildings: dict = field(default_factory=dict)     # building type id -> its schema model
    strategies: dict = field(default_factory=dict)    # strategy profile id -> its schema model
    difficulties: dict = field(default_factory=dict)  # difficulty level id -> its schema model
    goap: dict = field(default_factory=dict)          # GOAP domain id -> its schema model
    htn: dict = field(default_factory=dict)           # HTN domain id -> its schema model
    warnings: tuple = ()                              # Problem rows for what is legal but does nothing


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


def _read_file(path: Path, shown: str, problems: list[Problem]) -> tuple[dict, str, bytes] | None:
    """A TOML content file as (data, text, raw bytes), or None after reporting why not, in one line with its line:
    a regular file of at most ``MAX_FILE_BYTES`` (a FIFO, a device or a symlink loop is refused, never read),
    UTF-8, within the nesting and number bounds of content/toml_guard.py, and valid TOML (with the line and column
    of a syntax error; an unclosed bracket is named where it was opened)."""
    try:
        raw = read_bounded(path, MAX_FILE_BYTES)
    except ReadRefused as exc:
        problems.append(Problem(shown, None, "", str(exc)))
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        problems.append(Problem(shown, line, "", "file is not valid UTF-8"))
        return None
    guard = toml_guard.scan(text)
    if guard.problem is not None:
        line, column, message = guard.problem
        problems.append(Problem(shown, line, "", message, column))
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        problems.append(_toml_syntax(shown, text, str(exc), guard))
        return None
    except (ValueError, RecursionError, MemoryError) as exc:       # the guard should leave none of these
        problems.append(Problem(shown, None, "", f"invalid TOML: {type(exc).__name__}: {str(exc)[:120]}"))
        return None
    return data, text, raw


def _toml_syntax(shown: str, text: str, msg: str, guard) -> Problem:
    """A tomllib syntax error as a problem with its line and column; at the end of the document, the line and
    column where the unclosed bracket was opened (or the last line's end)."""
    m = _TOML_LINE.search(msg)
    what = _TOML_LINE.sub("", msg).replace("(at end of document)", "").strip()
    if m:
        return Problem(shown, int(m.group(1)), "", f"invalid TOML: {what}", int(m.group(2)))
    if guard.unclosed is not None:
        line, column, bracket = guard.unclosed
        closer = "]" if bracket == "[" else "}"
        return Problem(shown, line, "", f"invalid TOML: {what}: the '{bracket}' opened here is never closed with "
                                        f"'{closer}'", column)
    lines = text.split("\n")
    return Problem(shown, len(lines), "", f"invalid TOML: {what} (at the end of the file)", len(lines[-1]) + 1)


def _read_tiled(path: Path, problems: list[Problem]) -> tuple[dict, dict, str, bytes] | None:
    """A Tiled map file as (data, key lines, text, raw) like a TOML map file's; None after reporting why not."""
    try:
        tiled = read_map(path, MAX_FILE_BYTES)
    except TiledError as exc:
        problems.extend(Problem(_display(p), line, key, message) for p, line, key, message in exc.problems)
        return None
    return tiled.data, tiled.lines, tiled.text, tiled.raw


def _kind_files(kind_dir: Path, kind: str) -> list[Path]:
    """The content files of one kind directory, by name: TOML, and for maps the Tiled maps too."""
    suffixes = (".toml",) + (MAP_SUFFIXES if kind == "maps" else ())
    return sorted(p for p in kind_dir.glob("*") if p.suffix in suffixes)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):     # not under the working directory, or a symlink loop
        return str(path)


def _collect_layer(root: Path, is_mod: bool, pending: dict, problems: list[Problem], hasher) -> list[str]:
    shown_root = _display(root)
    if not root.is_dir():
        problems.append(Problem(shown_root, None, "", "mod directory does not exist"))
        return []
    files: list[str] = []
    seen_here: dict[tuple[str, str], str] = {}
    for entry in sorted(root.iterdir()):
        if entry.is_dir() and not entry.name.startswith((".", "_")) and entry.name not in KINDS:
            if any(entry.glob("*.toml")) or any(entry.glob("*.tmj")):
                problems.append(Problem(_display(entry), None, "",
                                        f"unknown content kind '{entry.name}' (expected {', '.join(KINDS)})"))
        elif entry.is_file() and entry.suffix in (".toml", ".tmj") and is_mod:
            problems.append(Problem(_display(entry), None, "",
                                    f"content files belong in a kind directory ({', '.join(KINDS)})"))
    for kind in KINDS:
        kind_dir = root / kind
        if not kind_dir.is_dir():
            continue
        for path in _kind_files(kind_dir, kind):
            shown = _display(path)
            tiled = path.suffix != ".toml"
            if tiled:
                read = _read_tiled(path, problems)
                if read is None:
                    continue
                data, lines, text, raw = read
            else:
                read = _read_file(path, shown, problems)
                if read is None:
                    continue
                data, text, raw = read
                lines = key_lines(text)
            if kind in ("units", "buildings"):
                _resolve_sprite(root, data, shown, lines, problems)
            hasher.update(f"{kind}/{path.name}\0".encode())
            hasher.update(hashlib.blake2b(raw, digest_size=16).digest())
            files.append(shown)
            obj_id = data.get("id")
            if not isinstance(obj_id, str) or not obj_id:
                problems.append(Problem(shown, line_of(lines, ("id",)) or 1, "id",
                                        "every content file needs a string 'id'"))
                continue
            key = (kind, obj_id)
            if key in seen_here:
                problems.append(Problem(shown, line_of(lines, ("id",)), "id",
                                        f"duplicate {kind[:-1]} id '{obj_id}' (also in {seen_here[key]})"))
                continue
            seen_here[key] = shown
            src = _Source(shown, data, lines, text)
            if key in pending and not tiled:
                pending[key].data = _merge(pending[key].data, data)
                pending[key].sources.append(src)
            else:
                pending[key] = _Pending(kind, obj_id, copy.deepcopy(data), [src])
    return files


#: the largest sprite image a mod may ship (bytes)
MAX_SPRITE_BYTES = 4 * 1024 * 1024


def _resolve_sprite(root: Path, data: dict, shown: str, lines, problems: list[Problem]) -> None:
    """``look.sprite``: an Arcade resource stays as it is; a path is made absolute inside the content root (the mod's
    folder) and checked: a PNG file that exists, not too big, and never outside the folder (``..``, absolute paths
    and symbolic links leading out are refused)."""
    look = data.get("look")
    sprite = look.get("sprite") if isinstance(look, dict) else None
    if not isinstance(sprite, str) or not sprite or sprite.startswith(":resources:"):
        return
    line = line_of(lines, ("look", "sprite")) or line_of(lines, ("look",))
    base = root.resolve()
    try:
        path = (base / sprite).resolve()
        inside = path.is_relative_to(base) and not Path(sprite).is_absolute()
    except (OSError, ValueError):
        inside = False
    if not inside:
        problems.append(Problem(shown, line, "look.sprite", f"'{sprite}' is outside the mod's folder"))
    elif path.suffix.lower() != ".png" or not path.is_file():
        problems.append(Problem(shown, line, "look.sprite", f"'{sprite}' is not a PNG file in the mod's folder"))
    elif path.stat().st_size > MAX_SPRITE_BYTES or path.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        problems.append(Problem(shown, line, "look.sprite", f"'{sprite}' is not a PNG image of at most 4 MiB"))
    else:
        look["sprite"] = str(path)


def _clean_loc(data, loc: tuple) -> tuple:
    """Drop the tag pydantic inserts into the location of a 'type'-discriminated union member."""
    out = []
    node = data
    for i, part in enumerate(loc):
        if isinstance(node, dict) and isinstance(part, str) and node.get("type") == part and (
                part not in node or (i + 1 < len(loc) and not isinstance(node[part], (dict, list)))):
            continue                  # the union's tag (an 'action' node's tag is also one of its keys)
        out.append(part)
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            node = None
    return tuple(out)


def _model_at(tp, node):
    """The pydantic model class that ``tp`` (an annotation) stands for at ``node`` (the data there), or None:
    Annotated, Optional, list and dict are looked through; a union of models is resolved by the node's 'type'."""
    for _ in range(16):                                  # bounded: annotations nest a few levels at most
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            return tp
        origin = typing.get_origin(tp)
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if origin is typing.Annotated:
            tp = args[0]
        elif origin in (typing.Union, types.UnionType):
            models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
            if len(args) == 1:
                tp = args[0]
                continue
            tag = node.get("type") if isinstance(node, dict) else None
            for m in models:
                field = m.model_fields.get("type")
                if field is not None and tag in typing.get_args(field.annotation):
                    return m
            return models[0] if len(models) == 1 else None
        else:
            return None
    return None


def _known_keys(kind: str, data, loc: tuple) -> list[str] | None:
    """The keys the schema allows in the table holding ``loc``'s last key (for "did you mean"), or None."""
    model, node = KINDS[kind], data
    try:
        for part in loc[:-1]:
            if isinstance(model, type) and issubclass(model, BaseModel):
                field = model.model_fields.get(part)
                if field is None:
                    return None
                model = field.annotation
            else:                                        # an item of a list or dict: its element type
                args = [a for a in typing.get_args(_unwrap(model)) if a is not type(None)]
                model = args[-1] if args else None
            node = node[part]
            model = _model_at(model, node) or model
        model = _model_at(model, node)
        return list(model.model_fields) if model is not None else None
    except (KeyError, IndexError, TypeError):
        return None


def _unwrap(tp):
    """``tp`` without Annotated and Optional layers (for list and dict element types)."""
    for _ in range(16):
        origin = typing.get_origin(tp)
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if origin is typing.Annotated or (origin in (typing.Union, types.UnionType) and len(args) == 1):
            tp = args[0]
        else:
            return tp
    return tp


_SCALAR_TAGS = {"bool", "int", "float", "str"}


def _missing_at(data, loc: tuple) -> bool:
    """Whether ``loc`` names nothing in ``data`` (a tag pydantic added to a location, not a key)."""
    node = data
    for part in loc:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return True
    return False


def _validate_model(item: _Pending, problems: list[Problem]):
    model = KINDS[item.kind]
    try:
        return model.model_validate(item.data)
    except ValidationError as exc:
        said = set()
        for err in exc.errors():
            loc = _clean_loc(item.data, tuple(err["loc"]))
            msg = err["msg"]
            if loc and loc[-1] in _SCALAR_TAGS and _missing_at(item.data, loc):
                # one error per member of a scalar union (params.x.bool, params.x.int, ...): say it once, in words
                loc, msg = loc[:-1], "should be a number, true or false, or text"
                if loc in said:
                    continue
                said.add(loc)
            if err["type"] == "missing":
                msg = "required key is missing"
            elif err["type"] == "union_tag_invalid":
                ctx = err.get("ctx", {})
                loc = loc + ("type",)
                msg = f"unknown type '{ctx.get('tag')}' (known: {ctx.get('expected_tags')})"
            elif err["type"] == "union_tag_not_found":
                msg = "needs a 'type'"
            elif err["type"] == "extra_forbidden" and loc and isinstance(loc[-1], str):
                known = _known_keys(item.kind, item.data, loc)
                msg = f"unknown key '{loc[-1]}'" + (suggest(loc[-1], known) if known else "")
            elif msg.startswith("Value error, "):
                msg = msg[len("Value error, "):]
            path, line = item.locate(loc)
            problems.append(Problem(path, line, format_key(loc), msg))
        return None


def _report(item: _Pending, found, problems: list[Problem]) -> bool:
    for loc, message in found:
        path, line = item.locate(loc)
        problems.append(Problem(path, line, format_key(loc), message))
    return not found


def _check_domain(item: _Pending, model, check, build, problems: list[Problem]):
    """A GOAP or HTN domain: checked, then compiled (None when it has a problem)."""
    if not _report(item, check(model), problems):
        return None
    try:
        return build(model)
    except ValueError as exc:
        path, line = item.locate(())
        problems.append(Problem(path, line, "", f"{item.kind} domain '{model.id}' cannot be built: {exc}"))
        return None


def _check_brain(item: _Pending, bdef: BrainDef, problems: list[Problem], goap_domains: dict, htn_domains: dict):
    """Cross-references of a brain; compiled into ai objects only when it has none."""
    if not _report(item, check_brain(bdef, goap_domains=goap_domains, htn_domains=htn_domains), problems):
        return None
    try:
        return build_brain(bdef, goap_domains, htn_domains)
    except ValueError as exc:   # the ai constructors' own guards: a check above should have caught it
        path, line = item.locate(())
        problems.append(Problem(path, line, "", f"brain '{bdef.id}' cannot be built: {exc}"))
        return None



def _size_problem(width: int, height: int) -> str:
    """Why a map of this size is refused ('' when it is not): content/schema.py's MAX_MAP_SIDE and
    MAX_MAP_TILES, which keep loading one within the budget docs/content.md states."""
    if not (2 <= width <= MAX_MAP_SIDE and 2 <= height <= MAX_MAP_SIDE):
        return f"map must be 2..{MAX_MAP_SIDE} tiles each way, got {width}x{height}"
    if width * height > MAX_MAP_TILES:
        return f"map must have at most {MAX_MAP_TILES} tiles in all (160 x 120), got {width}x{height} = {width * height}"
    return ""

def _tile_rows(item: _Pending, mdef: MapDef, problems: list[Problem]) -> TileMap | None:
    path, line = item.locate(("tiles",))
    text_line = line or 1
    # a multi-line string that opens with a newline starts its rows on the next line
    src = next(s for s in reversed(item.sources) if "tiles" in s.data)
    src_lines = src.text.splitlines()
    header = src_lines[text_line - 1] if text_line <= len(src_lines) else ""
    first_row_line = text_line + 1 if header.rstrip().endswith(("'''", '"""')) else text_line
    rows = [r.rstrip("\r") for r in mdef.tiles.split("\n")]
    while rows and not rows[-1].strip():
        rows.pop()
    if not rows:
        problems.append(Problem(path, text_line, "tiles", "map has no rows"))
        return None
    width = len(rows[0])
    ok = True
    if len(rows) > MAX_MAP_SIDE or width > MAX_MAP_SIDE:
        problems.append(Problem(path, text_line, "tiles", _size_problem(width, len(rows))))
        return None
    for r, row in enumerate(rows):              # every bad row at once (at most 128 of them): width, then tiles
        if len(row) != width:
            problems.append(Problem(path, first_row_line + r, f"tiles[{r}]",
                                    f"row is {len(row)} tiles wide, the first row is {width}"))
            ok = False
        bad = [(c, ch) for c, ch in enumerate(row) if ch not in LEGEND]
        if bad:
            c, ch = bad[0]
            more = f" and {len(bad) - 1} more" if len(bad) > 1 else ""
            problems.append(Problem(path, first_row_line + r, f"tiles[{r}]",
                                    f"unknown tile {ch!r} at column {c + 1}{more} (known: {''.join(LEGEND)})"))
            ok = False
    if ok and _size_problem(width, len(rows)):
        problems.append(Problem(path, text_line, "tiles", _size_problem(width, len(rows))))
        ok = False
    if ok:
        for i, (x, y) in enumerate(mdef.starts):
            if not (0 <= x < width and 0 <= y < len(rows)) or not LEGEND[rows[y][x]].walkable:
                spath, sline = item.locate(("starts", i))
                problems.append(Problem(spath, sline, f"starts[{i}]", f"start ({x}, {y}) is not a walkable tile of "
                                                                      f"the {width}x{len(rows)} map"))
                ok = False
    return TileMap(mdef.id, mdef.name or mdef.id, tuple(rows), tuple((x, y) for x, y in mdef.starts)) if ok else None


def _bad(item: _Pending, problems: list[Problem], loc: tuple, message: str) -> None:
    path, line = item.locate(loc)
    problems.append(Problem(path, line, format_key(loc), message))


def _ids_known(item: _Pending, problems: list[Problem], loc: tuple, ids, known: dict, what: str) -> bool:
    ok = True
    for i, name in enumerate(ids):
        if name not in known:
            _bad(item, problems, loc + (i,), f"unknown {what} '{name}'{suggest(name, known)}")
            ok = False
    return ok


def _check_unit(item: _Pending, udef: UnitDef, buildings: dict, problems: list[Problem]) -> bool:
    return _ids_known(item, problems, ("requires",), udef.requires, buildings, "building")


def _check_building(item: _Pending, bdef: BuildingDef, units: dict, buildings: dict, problems: list[Problem]) -> bool:
    ok = _ids_known(item, problems, ("trains",), bdef.trains, units, "unit")
    ok &= _ids_known(item, problems, ("requires",), bdef.requires, buildings, "building")
    if bdef.id in bdef.requires:
        _bad(item, problems, ("requires",), f"building '{bdef.id}' cannot require itself")
        ok = False
    return ok


def _check_strategy(item: _Pending, sdef: StrategyDef, units: dict, buildings: dict, problems: list[Problem]) -> bool:
    ok = _ids_known(item, problems, ("build",), sdef.build, buildings, "building")
    ok &= _ids_known(item, problems, ("army",), list(sdef.army), units, "unit")
    if sdef.supply not in buildings:
        _bad(item, problems, ("supply",), f"unknown building '{sdef.supply}'{suggest(sdef.supply, buildings)}")
        ok = False
    return ok


MAX_START_UNITS = 10_000    # units a scenario starts with, all teams together (every tick's work grows with them)


class _Nav:
    """The start-of-match walkability game/scenario.py places spawns on: the legend's, less building footprints."""

    def __init__(self, tmap: TileMap, blocked):
        self.tmap, self.blocked = tmap, blocked

    def is_walkable(self, x: int, y: int) -> bool:
        t = self.tmap
        return 0 <= x < t.width and 0 <= y < t.height and LEGEND[t.tile(x, y)].walkable and (x, y) not in self.blocked


class _Placing:
    """What ``game.scenario.free_tiles_near`` reads of a world: its nav grid and map."""

    def __init__(self, tmap: TileMap, blocked):
        self.nav, self.tilemap = _Nav(tmap, blocked), tmap


def _check_spawn_room(item: _Pending, sdef: ScenarioDef, tmap: TileMap, footprints: dict, around: dict,
                      problems: list[Problem]) -> bool:
    """Every spawn places its whole count, placed exactly as a match places them (game/scenario.py): else the
    first spawn that does not fit is refused, naming how many of its units fit."""
    from game.economy import quarter
    from game.scenario import free_tiles_near
    total = sum(spawn.count for team in sdef.teams for spawn in team.spawns)
    if total > MAX_START_UNITS:
        _bad(item, problems, ("teams",), f"the teams start with {total} units together; a scenario is limited to "
                                         f"{MAX_START_UNITS}")
        return False
    world = _Placing(tmap, set(footprints))
    taken: set = set()
    for t, team in enumerate(sdef.teams):
        start = tmap.starts[team.start] if team.start >= 0 else None
        for s, spawn in enumerate(team.spawns):
            if spawn.at is not None:
                x, y = spawn.at
                spots = free_tiles_near(world, x, y, spawn.count, taken, x * 2 >= tmap.width)
            else:
                x, y = start
                spots = free_tiles_near(world, x, y, spawn.count, taken, turn=quarter(world, x, y),
                                        through=around.get(t, frozenset()))
            if len(spots) < spawn.count:
                _bad(item, problems, ("teams", t, "spawns", s, "count"),
                     f"team '{team.name}' spawn {s} ({spawn.count} x '{spawn.unit}') cannot be placed: only "
                     f"{len(spots)} fit on the free floor reachable from ({x}, {y})")
                return False
    return True


def _check_scenario(item: _Pending, sdef: ScenarioDef, units: dict, maps: dict,
                    problems: list[Problem], commanders: dict, buildings: dict, strategies: dict) -> bool:
    ok = True
    names: dict[str, int] = {}
    for t, team in enumerate(sdef.teams):
        key = team.name.strip().casefold()
        if key in names:
            _bad(item, problems, ("teams", t, "name"), f"team name '{team.name}' is already team {names[key]}'s; "
                                                       f"team names must be unique (results name teams by them)")
            ok = False
        names.setdefault(key, t)
    for t, team in enumerate(sdef.teams):
        if team.commander and team.commander not in commanders:
            _bad(item, problems, ("teams", t, "commander"),
                 f"unknown commander '{team.commander}'{suggest(team.commander, commanders)}")
            ok = False
        if team.strategy and team.strategy not in strategies:
            _bad(item, problems, ("teams", t, "strategy"),
                 f"unknown strategy '{team.strategy}'{suggest(team.strategy, strategies)}")
            ok = False
        if not team.spawns and not team.buildings:
            _bad(item, problems, ("teams", t), f"team '{team.name}' starts with no units and no buildings")
            ok = False
    if sdef.map not in maps:
        _bad(item, problems, ("map",), f"unknown map '{sdef.map}'")
        return False
    tmap = maps[sdef.map]
    taken: dict[tuple[int, int], str] = {}
    around: dict[int, set] = {}
    for t, team in enumerate(sdef.teams):
        start = None
        if team.start >= 0:
            if team.start >= len(tmap.starts):
                _bad(item, problems, ("teams", t, "start"),
                     f"map '{tmap.id}' has {len(tmap.starts)} start locations (0..{len(tmap.starts) - 1})")
                ok = False
            else:
                start = tmap.starts[team.start]
        for s, spawn in enumerate(team.spawns):
            if spawn.unit not in units:
                _bad(item, problems, ("teams", t, "spawns", s, "unit"), f"unknown unit '{spawn.unit}'")
                ok = False
            elif team.ai == "brain" and not units[spawn.unit].brain:
                _bad(item, problems, ("teams", t, "spawns", s, "unit"),
                     f"unit '{spawn.unit}' has no brain, but team '{team.name}' has ai = \"brain\"")
                ok = False
            if spawn.at is None:
                if start is None and team.start < 0:
                    _bad(item, problems, ("teams", t, "spawns", s),
                         "a spawn without 'at' needs the team to have a start location ('start')")
                    ok = False
                continue
            x, y = spawn.at
            if not (0 <= x < tmap.width and 0 <= y < tmap.height):
                _bad(item, problems, ("teams", t, "spawns", s, "at"),
                     f"tile ({x}, {y}) is outside map '{tmap.id}' ({tmap.width}x{tmap.height})")
                ok = False
            elif not LEGEND[tmap.tile(x, y)].walkable:
                _bad(item, problems, ("teams", t, "spawns", s, "at"), f"tile ({x}, {y}) is '{tmap.tile(x, y)}', not walkable")
                ok = False
        for b, spec in enumerate(team.buildings):
            loc = ("teams", t, "buildings", b)
            if spec.building not in buildings:
                _bad(item, problems, loc + ("building",),
                     f"unknown building '{spec.building}'{suggest(spec.building, buildings)}")
                ok = False
                continue
            centre = spec.at if spec.at is not None else start
            if centre is None:
                if team.start < 0:
                    _bad(item, problems, loc, "a building without 'at' needs the team to have a start location ('start')")
                    ok = False
                continue
            left, top, w, h = buildings[spec.building].footprint(*centre)
            for yy in range(top, top + h):
                for xx in range(left, left + w):
                    where = loc + ("at",) if spec.at is not None else ("teams", t, "start")
                    if not (0 <= xx < tmap.width and 0 <= yy < tmap.height) or not LEGEND[tmap.tile(xx, yy)].walkable \
                            or LEGEND[tmap.tile(xx, yy)].door is not None:
                        _bad(item, problems, where, f"building '{spec.building}' at {tuple(centre)} needs tile "
                                                    f"({xx}, {yy}) to be open floor")
                        ok = False
                        break
                    if (xx, yy) in taken:
                        _bad(item, problems, where, f"building '{spec.building}' at {tuple(centre)} overlaps "
                                                    f"{taken[(xx, yy)]}")
                        ok = False
                        break
                    taken[(xx, yy)] = f"team {t}'s '{spec.building}'"
                    if spec.at is None:
                        around.setdefault(t, set()).add((xx, yy))
                else:
                    continue
                break
    if ok:
        ok = _check_spawn_room(item, sdef, tmap, taken, around, problems)
    return ok


def load_content(mods: list[str | Path] = (), root: str | Path | None = None) -> Content:
    """Load default content plus ``mods`` (applied in order). Raises ContentError."""
    problems: list[Problem] = []
    pending: dict[tuple[str, str], _Pending] = {}
    hasher = hashlib.blake2b(digest_size=16)
    files: list[str] = []
    warnings: list[Problem] = []
    layers = [(Path(root) if root else DEFAULT_ROOT, False)] + [(Path(m), True) for m in mods]
    for layer, is_mod in layers:
        files += _collect_layer(layer, is_mod, pending, problems, hasher)

    models: dict[str, dict] = {kind: {} for kind in KINDS}
    items = sorted(pending.values(), key=lambda p: (list(KINDS).index(p.kind), p.id))
    for item in items:
        model = _validate_model(item, problems)
        if model is not None:
            models[item.kind][item.id] = (item, model)

    goap_domains = {}
    for gid, (item, gdef) in models["goap"].items():
        built = _check_domain(item, gdef, check_goap, build_goap, problems)
        goap_domains[gid] = built
    htn_domains = {}
    for hid, (item, hdef) in models["htn"].items():
        built = _check_domain(item, hdef, check_htn, build_htn, problems)
        htn_domains[hid] = built
    good_goap = {k: v for k, v in goap_domains.items() if v is not None}
    good_htn = {k: v for k, v in htn_domains.items() if v is not None}
    brains = {}
    brain_defs = {}
    for bid, (item, bdef) in models["brains"].items():
        if (bdef.goap in goap_domains and goap_domains[bdef.goap] is None) or \
                (bdef.htn in htn_domains and htn_domains[bdef.htn] is None):
            continue                      # its domain's own problems are reported; do not pile on
        compiled = _check_brain(item, bdef, problems, good_goap, good_htn)
        if compiled is not None:
            brains[bid] = compiled
            brain_defs[bid] = bdef
            for loc, message in brain_warnings(bdef):
                path, line = item.locate(loc)
                warnings.append(Problem(path, line, format_key(loc), message))
    units = {}
    for uid, (item, udef) in models["units"].items():
        if udef.brain and udef.brain not in models["brains"]:
            path, line = item.locate(("brain",))
            problems.append(Problem(path, line, "brain", f"unknown brain '{udef.brain}'"
                                                         f"{suggest(udef.brain, models['brains'])}"))
            continue
        if _check_unit(item, udef, models["buildings"], problems):
            units[uid] = udef
    buildings = {bid: bdef for bid, (item, bdef) in models["buildings"].items()
                 if _check_building(item, bdef, models["units"], models["buildings"], problems)}
    strategies = {sid: sdef for sid, (item, sdef) in models["strategies"].items()
                  if _check_strategy(item, sdef, models["units"], models["buildings"], problems)}
    commanders = {cid: m for cid, (_, m) in models["commanders"].items()}
    difficulties = {}
    for did, (item, ddef) in models["difficulties"].items():
        ok = True
        for key, known, what in (("commander", commanders, "commander profile"),
                                 ("strategy", strategies, "strategy profile")):
            name = getattr(ddef, key)
            if name and name not in known:
                path, line = item.locate((key,))
                problems.append(Problem(path, line, key, f"unknown {what} '{name}'{suggest(name, known)}"))
                ok = False
        if ok:
            difficulties[did] = ddef
    maps: dict[str, TileMap] = {}
    for mid, (item, mdef) in models["maps"].items():
        tmap = _tile_rows(item, mdef, problems)
        if tmap is not None:
            maps[mid] = tmap
    scenarios: dict[str, ScenarioDef] = {}
    for sid, (item, sdef) in models["scenarios"].items():
        if _check_scenario(item, sdef, units, maps, problems, commanders, buildings, strategies):
            scenarios[sid] = sdef

    if problems:
        raise ContentError(problems)
    return Content(units=units, maps=maps, scenarios=scenarios,
                   content_hash=hasher.hexdigest(), files=tuple(files), brains=brains, brain_defs=brain_defs,
                   commanders=commanders, buildings=buildings, strategies=strategies, difficulties=difficulties,
                   goap={k: m for k, (_i, m) in models["goap"].items()},
                   htn={k: m for k, (_i, m) in models["htn"].items()}, warnings=tuple(warnings))


__all__ = ["Content", "ContentError", "Problem", "TileMap", "UnitDef", "MapDef", "ScenarioDef", "BrainDef",
           "load_content", "DEFAULT_ROOT"]
