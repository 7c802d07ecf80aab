"""Maps authored in the Tiled editor: ``maps/<name>.tmj`` (or ``.json``), Tiled's JSON map format.

The loader hands every such file to ``read_map``, which turns it into exactly what a TOML map file holds — ``id``,
``name``, ``tiles`` (rows of legend characters) and ``starts`` — plus, for each of those keys, the line of the
``.tmj`` that wrote it. From there a Tiled map is layered, validated and built into a ``TileMap`` like any other
map. The rules a modder follows (docs/modding.md, "Maps in Tiled", says the same):

- **Tiles.** A tile of a tileset stands for the legend character in its string property ``char``; without one,
  for the legend tile whose ``name`` its class (Tiled's "Class", formerly "Type") names — ``wall``,
  ``resource field``, ``closed door``... (case, ``_`` and ``-`` do not matter). Every tile layer counts, hidden or
  not, bottom to top: a tile covers what the layers below have there. Every cell must end up with a tile.
- **Starts.** Objects of class ``start`` in any object layer, each at the tile under its centre (a point object:
  under the point; a tile object hangs from its bottom-left corner, as Tiled draws it). An int property ``index``
  orders them (0, 1, ... once each); without one on every start, they follow file order. Other objects are
  ignored.
- **Map properties.** A string property ``id`` (default: the file's stem) and ``name`` (default: the stem).
- **Tilesets** are embedded, or external ``.tsx`` / ``.tsj`` files in the map's own directory: a ``source`` that
  is a path (``../x.tsx``, ``sub/x.tsx``, an absolute path) or a link leading elsewhere is refused.
- Orthogonal, finite maps only; layer data as CSV (a JSON array) or Base64, uncompressed, zlib or gzip.

Reading is bounded and never executes anything: each file (map and tilesets) is opened only if it is a regular
file, read up to ``max_bytes``, its JSON nesting capped before ``json`` recurses, the declared map size capped
(2..160 each way, 19,200 tiles in all: any map's limits) before any grid is allocated, Base64 data decompressed
to at most the size the map needs, and an external ``.tsx`` parsed with a DOCTYPE or an entity refused. Object templates (which name other files) are
refused. The typed model comes from pytiled_parser (what Arcade reads Tiled maps with), fed the checked raw
data, never a path: this module does all the file reading.

Errors are ``TiledError``: a list of ``(file, line, key, message)`` in the loader's ``file:line: key: message``
shape, keys being paths into the JSON (``layers[0].data``, ``layers[2].objects[1]``) or, in a ``.tsx``,
``tile[id=3]``.
"""
from __future__ import annotations

import base64
import binascii
import copy
import math
import os
import re
import stat
import struct
import zlib
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from xml.etree import ElementTree
from xml.parsers import expat

from content.json_lines import JsonError, line_of, parse as parse_json
from content.schema import ID_PATTERN, MAX_MAP_SIDE, MAX_MAP_TILES, MapDef
from content.tiles import LEGEND

MAP_SUFFIXES = (".tmj", ".json")            # in maps/: read as Tiled maps
TILESET_SUFFIXES = (".tsx", ".tsj")          # what a map's tileset ``source`` may name (a .json beside
                                            # the map would be read as a map)
MAX_SIDE = MAX_MAP_SIDE                     # the loader's limit for any map (content/schema.py)
MAX_TILESETS = 64
#: what a TOML map's ``tiles`` may hold, so a Tiled map is never refused later for a size it was let through with
MAX_TILES_TEXT = next(m.max_length for m in MapDef.model_fields["tiles"].metadata if hasattr(m, "max_length"))
MAX_DEPTH = 64                              # JSON/XML nesting (a map nests a group layer in about 2 levels)
MAX_TILE_PIXELS = 4096
_FLIPS = 0xF0000000                          # Tiled's flip/rotate bits on a gid
START_CLASS = "start"


class TiledError(Exception):
    """One or more problems with a Tiled map, each ``(path, line, key, message)``."""

    def __init__(self, problems: list[tuple[Path, int | None, str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{p}:{ln}: {k}: {m}" for p, ln, k, m in problems[:1]))


@dataclass
class MapFile:
    """A Tiled map as a TOML map file would hold it."""
    data: dict                      # id, name, tiles, starts
    lines: dict                     # (key,) / ("starts", i) -> line in the .tmj
    text: str                       # the map's JSON text
    raw: bytes                      # what the content hash covers: the map's bytes and its external tilesets'


def format_key(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def _norm(name: str) -> str:
    return " ".join(re.sub(r"[_\-]", " ", name).lower().split())


def legend_by_name() -> dict[str, str]:
    """Normalised legend tile name -> its character (read at call time, like every legend consumer)."""
    return {_norm(tile.name): ch for ch, tile in LEGEND.items()}


class _Doc:
    """One JSON (or XML) file being read: its path, key lines and the problems found in it."""

    def __init__(self, path: Path, lines: dict, problems: list):
        self.path = path
        self.lines = lines
        self.problems = problems

    def line(self, loc: tuple) -> int | None:
        return line_of(self.lines, loc) or 1

    def bad(self, loc: tuple, message: str) -> None:
        self.problems.append((self.path, self.line(loc), format_key(loc), message))


class _Refused(Exception):
    """Why a file was refused, in one line (``read_bounded`` raises it; the loader reads TOML files with it too)."""


# -- reading files ---------------------------------------------------------------------------------------------

def _read_bounded(path: Path, max_bytes: int) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes``; else _Refused with why.

    Opened non-blocking so a FIFO cannot stall the loader, checked with fstat on the open descriptor (no race
    with a swapped file), read to at most one byte past the limit.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise _Refused(f"cannot read file: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _Refused("not a regular file")
        if st.st_size > max_bytes:
            raise _Refused(f"file is {st.st_size} bytes; content files are limited to {max_bytes}")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        raw = b"".join(chunks)
        if len(raw) > max_bytes:
            raise _Refused(f"file is over {max_bytes} bytes; content files are limited to {max_bytes}")
        return raw
    except OSError as exc:
        raise _Refused(f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _read_json(path: Path, raw: bytes, problems: list) -> tuple[object, dict, str] | None:
    """``raw`` (the bytes of ``path``) as JSON: (value, key lines, text), or None after reporting why not."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append((path, raw[:exc.start].count(b"\n") + 1, "", "file is not valid UTF-8"))
        return None
    try:
        value, lines = parse_json(text, MAX_DEPTH)
    except JsonError as exc:
        col = f" (column {exc.column})" if exc.column else ""
        problems.append((path, exc.line, "", f"invalid JSON: {exc.message}{col}"))
        return None
    return value, lines, text


def _read_xml(path: Path, raw: bytes) -> tuple[ElementTree.Element, dict]:
    """An XML tileset as an ElementTree, with each element's line; DOCTYPEs and entities refused."""
    parser = expat.ParserCreate()
    builder = ElementTree.TreeBuilder()
    lines: dict = {}
    depth = 0

    def start(tag, attrs):
        nonlocal depth
        depth += 1
        if depth > MAX_DEPTH:
            raise _Refused(f"XML nesting is deeper than {MAX_DEPTH} levels (line {parser.CurrentLineNumber})")
        lines[builder.start(tag, attrs)] = parser.CurrentLineNumber

    def end(tag):
        nonlocal depth
        depth -= 1
        builder.end(tag)

    def refuse(*_args):
        raise _Refused(f"a DOCTYPE or entity declaration is not allowed in a tileset (line {parser.CurrentLineNumber})")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    try:
        parser.Parse(raw, True)
    except expat.ExpatError as exc:
        raise _Refused(f"invalid XML: {expat.ErrorString(exc.code)} (line {exc.lineno}, column {exc.offset + 1})") \
            from None
    return builder.close(), lines


def _lib(what: str, call):
    """Run a pytiled_parser call on checked raw data: (its result, None) or (None, why it failed)."""
    try:
        return call(), None
    except KeyError as exc:
        return None, f"{what}: Tiled key '{exc.args[0]}' is missing"
    except (ValueError, TypeError, AttributeError, AssertionError, IndexError, RuntimeError,
            NotImplementedError, OverflowError) as exc:
        return None, f"{what} cannot be read: {exc}"[:300]


# -- checks on raw JSON ------------------------------------------------------------------------------------------

def _is_int(v) -> bool:
    return type(v) is int


def _int_at(doc: _Doc, obj: dict, loc: tuple, key: str, lo: int, hi: int) -> int | None:
    if key not in obj:
        doc.bad(loc, f"required key '{key}' is missing")
        return None
    v = obj[key]
    if not _is_int(v):
        doc.bad(loc + (key,), f"'{key}' must be a whole number, got {v!r}"[:200])
        return None
    if not lo <= v <= hi:
        doc.bad(loc + (key,), f"'{key}' must be {lo}..{hi}, got {v}")
        return None
    return v


def _props(doc: _Doc, raw, loc: tuple) -> dict | None:
    """A Tiled ``properties`` list checked and parsed: name -> (value, its loc)."""
    from pytiled_parser.parsers.json.properties import parse as parse_properties
    if raw is None:
        return {}
    if not isinstance(raw, list):
        doc.bad(loc, "'properties' must be a list of {name, type, value}")
        return None
    out = {}
    for i, prop in enumerate(raw):
        if not isinstance(prop, dict) or not isinstance(prop.get("name"), str) or "value" not in prop \
                or not isinstance(prop.get("type", "string"), str):
            doc.bad(loc + (i,), "a property needs a string 'name', a 'type' and a 'value'")
            return None
        parsed, why = _lib(f"property '{prop['name']}'", lambda: parse_properties([{"type": "string", **prop}]))
        if why:
            doc.bad(loc + (i,), why)
            return None
        out[prop["name"]] = (parsed[prop["name"]], loc + (i,))
    return out


# -- tilesets ---------------------------------------------------------------------------------------------------

@dataclass
class _Tileset:
    firstgid: int
    name: str
    tilecount: int
    chars: dict          # local tile id -> legend character
    classes: dict        # local tile id -> its class (for the error message of a tile with no character)


def _tile_char(ts: _Tileset, tile_id: int, class_, char, by_name: dict) -> str | None:
    """Record tile ``tile_id``'s legend character from its ``char`` property or else its class. A ``char`` that is
    no legend character is an error (returned) even when no map cell uses the tile."""
    if isinstance(class_, str) and class_:
        ts.classes[tile_id] = class_
    if char is not None:
        if not isinstance(char, str) or char not in LEGEND:
            return f"tile {tile_id}: property char = {char!r} is not a legend tile (known: {''.join(LEGEND)})"[:300]
        ts.chars[tile_id] = char
    elif isinstance(class_, str) and _norm(class_) in by_name:
        ts.chars[tile_id] = by_name[_norm(class_)]
    return None


def _json_tileset(doc: _Doc, raw: dict, loc: tuple, firstgid: int, by_name: dict) -> _Tileset | None:
    from pytiled_parser.parsers.json.tileset import parse as parse_tileset
    if raw.get("type", "tileset") != "tileset":
        doc.bad(loc + ("type",), f"a tileset's type must be \"tileset\", got {raw.get('type')!r}"[:200])
        return None
    tiles = raw.get("tiles", [])
    if not isinstance(tiles, list) or not all(isinstance(t, dict) for t in tiles):
        doc.bad(loc + ("tiles",), "'tiles' must be a list of tile objects")
        return None
    tilecount = _int_at(doc, raw, loc, "tilecount", 0, 1 << 20)
    if tilecount is None:
        return None
    # only what the game reads goes to the parser: no collision shapes (their objects could name template files),
    # no terrain sets, and the spacing keys Tiled always writes default to 0 for hand-written files
    clean = {k: v for k, v in raw.items() if k not in ("wangsets", "terrains", "tiles", "firstgid", "source")}
    clean.setdefault("spacing", 0)
    clean.setdefault("margin", 0)
    clean["tiles"] = [{k: v for k, v in t.items() if k != "objectgroup"} for t in tiles]
    for j, t in enumerate(clean["tiles"]):
        if not _is_int(t.get("id")) or t["id"] < 0:
            doc.bad(loc + ("tiles", j), "a tile needs a whole-number 'id' >= 0")
            return None
    parsed, why = _lib("tileset", lambda: parse_tileset(copy.deepcopy(clean), firstgid, "utf-8"))
    if why:
        doc.bad(loc, why)
        return None
    ts = _Tileset(firstgid, parsed.name, tilecount, {}, {})
    for j, t in enumerate(tiles):
        props = _props(doc, t.get("properties"), loc + ("tiles", j, "properties"))
        if props is None:
            return None
        char, char_loc = props.get("char", (None, loc + ("tiles", j)))
        why = _tile_char(ts, t["id"], parsed.tiles[t["id"]].class_, char, by_name)
        if why:
            doc.bad(char_loc, why)
            return None
    return ts


def _xml_tileset(doc: _Doc, raw: bytes, firstgid: int, by_name: dict) -> _Tileset | None:
    from pytiled_parser.parsers.tmx.tileset import parse as parse_tileset
    try:
        root, lines = _read_xml(doc.path, raw)
    except _Refused as exc:
        doc.problems.append((doc.path, None, "", str(exc)))
        return None
    if root.tag != "tileset":
        doc.problems.append((doc.path, lines.get(root), "", f"the root element is <{root.tag}>, not <tileset>"))
        return None
    # the game reads names, classes and properties: drop collision shapes (and any template they name) and terrains
    for tile in root.findall("tile"):
        for og in tile.findall("objectgroup"):
            tile.remove(og)
    for ws in root.findall("wangsets") + root.findall("terraintypes"):
        root.remove(ws)
    parsed, why = _lib("tileset", lambda: parse_tileset(root, firstgid, "utf-8"))
    if why:
        doc.problems.append((doc.path, lines.get(root), "tileset", why))
        return None
    ts = _Tileset(firstgid, parsed.name, parsed.tile_count, {}, {})
    for el in root.findall("tile"):
        tile_id = int(el.attrib["id"])
        char, where, key = None, lines.get(el), f"tile[id={tile_id}]"
        for prop in el.findall("properties/property"):
            if prop.attrib.get("name") == "char":
                char, where, key = prop.attrib.get("value", prop.text), lines.get(prop), key + ".properties.char"
        why = _tile_char(ts, tile_id, parsed.tiles[tile_id].class_, char, by_name)
        if why:
            doc.problems.append((doc.path, where, key, why))
            return None
    return ts


def _tileset_file(map_path: Path, source) -> Path:
    """The external tileset ``source`` names, only if it is a file beside the map (after links are resolved)."""
    if not isinstance(source, str) or not source:
        raise _Refused("'source' must be a tileset file name")
    if "/" in source or "\\" in source or source in (".", "..") or ":" in source:
        raise _Refused(f"tileset source '{source}' must be a file in the map's directory (like "
                       f"'terrain.tsx'), not a path")
    if not source.lower().endswith(TILESET_SUFFIXES):
        raise _Refused(f"tileset source '{source}' must be a .tsx or .tsj file")
    try:
        folder = map_path.parent.resolve()
        target = (map_path.parent / source).resolve()
    except (OSError, RuntimeError):                 # Python 3.11 raises RuntimeError for a symlink loop
        raise _Refused(f"tileset source '{source}' is a symlink loop") from None
    if target.parent != folder:
        raise _Refused(f"tileset source '{source}' leads outside the map's directory")
    return map_path.parent / source


def _tilesets(doc: _Doc, raw_list, max_bytes: int, by_name: dict, extra_raw: list) -> list[_Tileset] | None:
    if not isinstance(raw_list, list) or not raw_list:
        doc.bad(("tilesets",), "a map needs at least one tileset in 'tilesets'")
        return None
    if len(raw_list) > MAX_TILESETS:
        doc.bad(("tilesets",), f"a map may use at most {MAX_TILESETS} tilesets, got {len(raw_list)}")
        return None
    out: list[_Tileset] = []
    for i, entry in enumerate(raw_list):
        loc = ("tilesets", i)
        if not isinstance(entry, dict):
            doc.bad(loc, "a tileset entry must be an object")
            return None
        firstgid = _int_at(doc, entry, loc, "firstgid", 1, (1 << 28) - 1)
        if firstgid is None:
            return None
        if "source" not in entry:
            ts = _json_tileset(doc, entry, loc, firstgid, by_name)
        else:
            try:
                path = _tileset_file(doc.path, entry["source"])
            except _Refused as exc:
                doc.bad(loc + ("source",), str(exc))
                return None
            try:
                raw = _read_bounded(path, max_bytes)
            except _Refused as exc:
                doc.bad(loc + ("source",), f"tileset '{entry['source']}': {exc}")
                return None
            extra_raw.append(path.name.encode() + b"\0" + raw)
            if path.suffix.lower() == ".tsx":
                ts = _xml_tileset(_Doc(path, {}, doc.problems), raw, firstgid, by_name)
            else:
                read = _read_json(path, raw, doc.problems)
                if read is None:
                    return None
                value, lines, _text = read
                sub = _Doc(path, lines, doc.problems)
                if not isinstance(value, dict):
                    sub.bad((), "a tileset file must hold a JSON object")
                    return None
                ts = _json_tileset(sub, value, (), firstgid, by_name)
        if ts is None:
            return None
        out.append(ts)
    out.sort(key=lambda t: t.firstgid)
    for a, b in zip(out, out[1:]):
        if a.firstgid == b.firstgid:
            doc.bad(("tilesets",), f"tilesets '{a.name}' and '{b.name}' both start at gid {a.firstgid}")
            return None
    return out


# -- layers -----------------------------------------------------------------------------------------------------

def _layers(doc: _Doc, raw_list, loc: tuple, out: list) -> bool:
    """Flatten the layer tree (group layers included) into ``out`` as (loc, raw layer), file order."""
    if not isinstance(raw_list, list):
        doc.bad(loc, "'layers' must be a list")
        return False
    for i, layer in enumerate(raw_list):
        here = loc + (i,)
        if not isinstance(layer, dict):
            doc.bad(here, "a layer must be an object")
            return False
        kind = layer.get("type")
        if kind == "group":
            if not _layers(doc, layer.get("layers", []), here + ("layers",), out):
                return False
        elif kind in ("tilelayer", "objectgroup", "imagelayer"):
            out.append((here, layer))
        else:
            doc.bad(here + ("type",), f"unknown layer type {kind!r} (Tiled writes tilelayer, objectgroup, "
                                      f"imagelayer or group)"[:200])
            return False
    return True


def _layer_defaults(layer: dict) -> dict:
    """The editor-only keys Tiled always writes, defaulted so that a hand-written file needs only what matters."""
    out = {"name": "", "opacity": 1, "visible": True, **layer}
    if out.get("type") == "objectgroup":
        out.setdefault("draworder", "topdown")
        out["objects"] = [{"id": 0, "name": "", "width": 0, "height": 0, "rotation": 0, "visible": True, **o}
                          for o in out.get("objects", [])]
    return out


def _tile_data(doc: _Doc, layer: dict, loc: tuple, width: int, height: int) -> list[int] | None:
    """A tile layer's gids, row-major, exactly width x height of them (decoded with bounded decompression)."""
    if "chunks" in layer or "data" not in layer:
        doc.bad(loc, "a tile layer needs 'data' (infinite maps, stored in chunks, are not supported: untick "
                     "Infinite in the map's properties)")
        return None
    lw, lh = layer.get("width", width), layer.get("height", height)
    if (lw, lh) != (width, height):
        doc.bad(loc, f"layer is {lw}x{lh} tiles, the map is {width}x{height}")
        return None
    n = width * height
    encoding = layer.get("encoding", "csv")
    data = layer["data"]
    if encoding == "csv":
        if not isinstance(data, list) or len(data) != n:
            size = len(data) if isinstance(data, list) else type(data).__name__
            doc.bad(loc + ("data",), f"layer data must be a list of {n} tile ids ({width}x{height}), got {size}")
            return None
        if not set(map(type, data)) <= {int} or (data and not 0 <= min(data) <= max(data) <= 0xFFFFFFFF):
            doc.bad(loc + ("data",), "layer data must be whole numbers 0..4294967295 (tile gids)")
            return None
        return data
    if encoding != "base64":
        doc.bad(loc + ("encoding",), f"unknown layer encoding {encoding!r} (use CSV or Base64)"[:200])
        return None
    if not isinstance(data, str):
        doc.bad(loc + ("data",), "Base64 layer data must be a string")
        return None
    compression = layer.get("compression", "")
    try:
        packed = base64.b64decode(data, validate=True)
        if compression in ("zlib", "gzip"):
            inflater = zlib.decompressobj(47)            # zlib or gzip header, detected
            packed = inflater.decompress(packed, 4 * n + 1)
        elif compression != "":
            doc.bad(loc + ("compression",), f"layer compression {compression!r} is not supported (use zlib, gzip "
                                            f"or none)"[:200])
            return None
    except (binascii.Error, ValueError, zlib.error) as exc:
        doc.bad(loc + ("data",), f"layer data cannot be decoded: {exc}")
        return None
    if len(packed) != 4 * n:
        held = f"more than the {n}" if len(packed) > 4 * n else f"{len(packed) / 4:g} tile ids, not the {n}"
        doc.bad(loc + ("data",), f"layer data holds {held} tile ids the map needs ({width}x{height})")
        return None
    return list(struct.unpack(f"<{n}I", packed))


def _char_finder(tilesets: list[_Tileset]):
    firsts = [t.firstgid for t in tilesets]

    def find(gid: int) -> tuple[str | None, str]:
        """(the legend character of ``gid``, or None and why it has none)."""
        gid &= ~_FLIPS
        ts = None
        for t, first in zip(tilesets, firsts):
            if first <= gid:
                ts = t
        if ts is None:
            return None, f"gid {gid} belongs to no tileset"
        local = gid - ts.firstgid
        if local in ts.chars:
            return ts.chars[local], ""
        if local >= ts.tilecount and local not in ts.classes:
            return None, f"gid {gid} is past the last tile of tileset '{ts.name}' ({ts.tilecount} tiles)"
        cls = ts.classes.get(local)
        return None, (f"tile {local} of tileset '{ts.name}'" + (f" (class '{cls}')" if cls else "") +
                      " has no legend character: give it a string property 'char' or a class naming a legend tile (" +
                      ", ".join(t.name for t in LEGEND.values()) + ")")
    return find


# -- the map ----------------------------------------------------------------------------------------------------

def read_map(path: Path, max_bytes: int) -> MapFile:
    """Read the Tiled JSON map at ``path`` into a TOML map file's keys. Raises TiledError."""
    problems: list = []
    result = _read_map(path, max_bytes, problems)
    if problems or result is None:
        raise TiledError(problems or [(path, None, "", "not a Tiled map")])
    return result


def _read_map(path: Path, max_bytes: int, problems: list) -> MapFile | None:
    from pytiled_parser.parsers.json.layer import parse as parse_layer
    try:
        raw = _read_bounded(path, max_bytes)
    except _Refused as exc:
        problems.append((path, None, "", str(exc)))
        return None
    read = _read_json(path, raw, problems)
    if read is None:
        return None
    raw_map, lines, text = read
    doc = _Doc(path, lines, problems)
    if not isinstance(raw_map, dict):
        doc.bad((), "a Tiled map file holds a JSON object")
        return None
    kind = raw_map.get("type", "map")
    if kind == "tileset":
        doc.bad(("type",), "this is a Tiled tileset, not a map: save tilesets beside the map as .tsx or .tsj")
        return None
    if kind != "map":
        doc.bad(("type",), f"a Tiled map's type is \"map\", got {kind!r}"[:200])
        return None
    if raw_map.get("orientation", "orthogonal") != "orthogonal":
        doc.bad(("orientation",), f"only orthogonal maps are supported, got {raw_map.get('orientation')!r}"[:200])
        return None
    if raw_map.get("infinite", False) is not False:
        doc.bad(("infinite",), "infinite maps are not supported: untick Infinite in the map's properties")
        return None
    width = _int_at(doc, raw_map, (), "width", 2, MAX_SIDE)
    height = _int_at(doc, raw_map, (), "height", 2, MAX_SIDE)
    tw = _int_at(doc, raw_map, (), "tilewidth", 1, MAX_TILE_PIXELS)
    th = _int_at(doc, raw_map, (), "tileheight", 1, MAX_TILE_PIXELS)
    if None in (width, height, tw, th):
        return None
    if width * height > MAX_MAP_TILES:
        doc.bad(("width",), f"a {width}x{height} map has {width * height} tiles; a map may have at most "
                            f"{MAX_MAP_TILES} (160 x 120)")
        return None
    if (width + 1) * height - 1 > MAX_TILES_TEXT:
        doc.bad(("width",), f"a {width}x{height} map is too big: a map's rows, one line break each, may hold at most "
                            f"{MAX_TILES_TEXT} characters")
        return None

    # map properties: id and name
    props = _props(doc, raw_map.get("properties"), ("properties",))
    if props is None:
        return None
    map_id, id_loc = props.get("id", (path.stem, None))
    if id_loc is None and not re.fullmatch(ID_PATTERN, map_id):
        doc.bad((), f"the file name '{path.stem}' is not a map id (a-z, 0-9, _, starting with a letter): rename "
                    f"the file or give the map a string property 'id'")
        return None
    name, name_loc = props.get("name", (path.stem, None))
    out_lines = {("id",): doc.line(id_loc) if id_loc else 1, ("name",): doc.line(name_loc) if name_loc else 1}

    extra_raw: list[bytes] = []
    by_name = legend_by_name()
    tilesets = _tilesets(doc, raw_map.get("tilesets"), max_bytes, by_name, extra_raw)
    if tilesets is None:
        return None
    flat: list = []
    if not _layers(doc, raw_map.get("layers"), ("layers",), flat):
        return None

    # tile layers, bottom to top: each non-empty cell covers the layers below
    find = _char_finder(tilesets)
    grid: list[str | None] = [None] * (width * height)
    first_tiles = None
    for loc, layer in flat:
        if layer.get("type") != "tilelayer":
            continue
        data = _tile_data(doc, layer, loc, width, height)
        if data is None:
            return None
        typed = {k: v for k, v in layer.items() if k not in ("data", "encoding", "compression")}
        typed.update(data=data, width=width, height=height)
        parsed, why = _lib("tile layer", lambda: parse_layer(_layer_defaults(typed), "utf-8"))
        if why:
            doc.bad(loc, why)
            return None
        if first_tiles is None:
            first_tiles = loc + ("data",)
        gids = list(chain.from_iterable(parsed.data))
        chars, unmapped = {}, {}
        for gid in set(gids) - {0}:           # each distinct gid once; 0 is an empty cell
            chars[gid], unmapped[gid] = find(gid)
        bad = [gid for gid, ch in chars.items() if ch is None]
        if bad:
            y, x = divmod(min(gids.index(gid) for gid in bad), width)     # the first one, row-major
            doc.bad(loc + ("data",), f"layer '{parsed.name}', tile ({x}, {y}): {unmapped[gids[y * width + x]]}")
            return None
        grid = [chars[g] if g else below for g, below in zip(gids, grid)]
    if first_tiles is None:
        doc.bad(("layers",), "the map has no tile layer")
        return None
    if None in grid:
        empty = grid.count(None)
        y, x = divmod(grid.index(None), width)
        more = f" (and {empty - 1} more)" if empty > 1 else ""
        doc.bad(first_tiles, f"tile ({x}, {y}) is empty in every tile layer{more}: every cell needs a tile")
        return None
    rows = ["".join(grid[r * width:(r + 1) * width]) for r in range(height)]
    out_lines[("tiles",)] = doc.line(first_tiles)

    starts = _starts(doc, flat, rows, tw, th, parse_layer)
    if starts is None:
        return None
    data = {"id": map_id, "name": name, "tiles": "\n".join(rows), "starts": [list(xy) for xy, _loc in starts]}
    if starts:
        out_lines[("starts",)] = doc.line(starts[0][1])
    for i, (_xy, loc) in enumerate(starts):
        out_lines[("starts", i)] = doc.line(loc)
    return MapFile(data, out_lines, text, raw + b"".join(b"\0" + r for r in extra_raw))


def _starts(doc: _Doc, flat: list, rows: list[str], tw: int, th: int, parse_layer) -> list | None:
    """Start objects as [((x, y), loc)] in start order, each checked against the map."""
    width, height = len(rows[0]), len(rows)
    found = []          # (index or None, (x, y), loc)
    for loc, layer in flat:
        if layer.get("type") != "objectgroup":
            continue
        objects = layer.get("objects", [])
        if not isinstance(objects, list) or not all(isinstance(o, dict) for o in objects):
            doc.bad(loc + ("objects",), "'objects' must be a list of objects")
            return None
        for j, obj in enumerate(objects):
            if "template" in obj:
                doc.bad(loc + ("objects", j, "template"), "object templates are not supported: detach the template "
                                                          "(or export with Detach templates)")
                return None
        parsed, why = _lib("object layer", lambda: parse_layer(_layer_defaults(layer), "utf-8"))
        if why:
            doc.bad(loc, why)
            return None
        for j, obj in enumerate(parsed.tiled_objects):
            if not isinstance(obj.class_, str) or _norm(obj.class_) != START_CLASS:
                continue
            oloc = loc + ("objects", j)
            label = f"start '{obj.name}' (object {obj.id})" if obj.name else f"start object {obj.id}"
            x, y, w, h = obj.coordinates.x, obj.coordinates.y, obj.size.width, obj.size.height
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                       for v in (x, y, w, h)):
                doc.bad(oloc, f"{label}: x, y, width and height must be numbers")
                return None
            cy = y - h / 2 if getattr(obj, "gid", None) else y + h / 2       # a tile object hangs from its bottom
            tx, ty = math.floor((x + w / 2) / tw), math.floor(cy / th)
            if not (0 <= tx < width and 0 <= ty < height):
                doc.bad(oloc, f"{label} is at tile ({tx}, {ty}), outside the {width}x{height} map")
                return None
            tile = LEGEND[rows[ty][tx]]
            if not tile.walkable:
                doc.bad(oloc, f"{label} is at tile ({tx}, {ty}), which is '{tile.name}', not walkable")
                return None
            index = obj.properties.get("index")
            if index is not None and (not _is_int(index) or not 0 <= index < 16):
                doc.bad(oloc, f"{label}: property 'index' must be a whole number 0..15, got {index!r}"[:200])
                return None
            found.append((index, (tx, ty), oloc))
    with_index = [f for f in found if f[0] is not None]
    if with_index and len(with_index) != len(found):
        loc = next(f[2] for f in found if f[0] is None)
        doc.bad(loc, "give every start an 'index' property, or none of them (they then follow file order)")
        return None
    if with_index:
        seen: dict[int, tuple] = {}
        for index, _xy, loc in found:
            if index in seen:
                doc.bad(loc, f"start index {index} is used twice")
                return None
            seen[index] = loc
        missing = sorted(set(range(len(found))) - set(seen))
        if missing:
            doc.bad(found[0][2], f"start indexes must be 0..{len(found) - 1}, each once; {missing[0]} is missing")
            return None
        found.sort(key=lambda f: f[0])
    return [(xy, loc) for _i, xy, loc in found]


__all__ = ["MAP_SUFFIXES", "TILESET_SUFFIXES", "MapFile", "TiledError", "legend_by_name", "read_map"]


# the bounded reader, for the other content readers (content/loader.py reads TOML files with it)
read_bounded = _read_bounded
ReadRefused = _Refused
