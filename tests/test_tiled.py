"""Maps drawn in the Tiled editor (maps/*.tmj): read like TOML maps, refused with file:line: key: message."""
import base64
import gzip
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from content.loader import MAX_FILE_BYTES, ContentError, TileMap, load_content
from content.schema import KINDS
from content.tiles import LEGEND

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "mods" / "tiled_map"
CHARS = list(LEGEND)

# A 4x3 map: lines matter, the error tests below name them.
TINY = """{
 "type": "map", "orientation": "orthogonal", "infinite": false, "version": "1.10",
 "width": 4, "height": 3, "tilewidth": 16, "tileheight": 16,
 "properties": [{"name": "name", "type": "string", "value": "Tiny"}],
 "tilesets": [{"firstgid": 1, "name": "legend", "tilecount": 9, "tilewidth": 16, "tileheight": 16,
   "tiles": [{"id": 0, "type": "floor"}, {"id": 1, "type": "wall"}, {"id": 2, "properties": [{"name": "char", "type": "string", "value": "$"}]}]}],
 "layers": [
  {"type": "tilelayer", "name": "ground", "width": 4, "height": 3,
   "data": [2, 2, 2, 2,
            2, 1, 1, 2,
            2, 2, 3, 2]},
  {"type": "objectgroup", "name": "starts", "objects": [
   {"id": 1, "name": "west", "type": "start", "point": true, "x": 24, "y": 24}
  ]}
 ]
}
"""
TINY_ROWS = ("####", "#..#", "##$#")


def write(root: Path, files: dict) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text if isinstance(text, str) else json.dumps(text, indent=1), encoding="utf-8")
    return root


def problem(tmp_path, files) -> str:
    mod = write(tmp_path / "mod", files)
    with pytest.raises(ContentError) as info:
        load_content([mod])
    text = str(info.value)
    assert "\n" not in text
    return text.replace(str(mod) + "/", "")


def legend_tileset(**over) -> dict:
    """A tileset with one tile per legend row, each classed by its row's name."""
    return {"name": "legend", "tilecount": len(CHARS), "columns": len(CHARS), "tilewidth": 32, "tileheight": 32,
            "spacing": 0, "margin": 0, "tiles": [{"id": i, "type": LEGEND[ch].name} for i, ch in enumerate(CHARS)],
            **over}


def tiled_map(rows, starts=(), props=None, tileset=None, layer=None) -> dict:
    """A Tiled JSON map of ``rows`` (legend characters), point starts at tile centres, as Tiled writes it."""
    w, h = len(rows[0]), len(rows)
    data = [CHARS.index(ch) + 1 for row in rows for ch in row]
    objects = [{"id": i + 1, "name": f"start{i}", "type": "start", "point": True, "x": x * 32 + 16, "y": y * 32 + 16,
                "width": 0, "height": 0, "rotation": 0, "visible": True} for i, (x, y) in enumerate(starts)]
    return {"compressionlevel": -1, "type": "map", "version": "1.10", "tiledversion": "1.10.2",
            "orientation": "orthogonal", "renderorder": "right-down", "infinite": False,
            "width": w, "height": h, "tilewidth": 32, "tileheight": 32, "nextlayerid": 3, "nextobjectid": 9,
            "properties": [{"name": k, "type": "string", "value": v} for k, v in (props or {}).items()],
            "tilesets": [tileset or {"firstgid": 1, **legend_tileset()}],
            "layers": [{"id": 1, "type": "tilelayer", "name": "ground", "width": w, "height": h, "x": 0, "y": 0,
                        "opacity": 1, "visible": True, "data": data, **(layer or {})},
                       {"id": 2, "type": "objectgroup", "name": "starts", "draworder": "topdown", "x": 0, "y": 0,
                        "opacity": 1, "visible": True, "objects": objects}]}


# -- the same map as TOML and as Tiled ---------------------------------------------------------------------------

def test_a_tiled_map_loads_to_the_same_tilemap_as_the_toml_one(tmp_path, content):
    outpost = content.maps["outpost"]
    doc = tiled_map(outpost.rows, outpost.starts, props={"id": "outpost", "name": "Outpost"})
    modded = load_content([write(tmp_path / "mod", {"maps/whatever.tmj": doc})])
    assert modded.maps["outpost"] == outpost
    assert isinstance(modded.maps["outpost"], TileMap)
    assert modded.content_hash != content.content_hash


def test_tiny_map_id_and_name_default_to_the_stem(tmp_path):
    mod = write(tmp_path / "mod", {"maps/tiny.tmj": TINY.replace('"value": "Tiny"', '"value": ""')
                                   .replace('"name": "name"', '"name": "note"')})
    tmap = load_content([mod]).maps["tiny"]
    assert tmap == TileMap("tiny", "tiny", TINY_ROWS, ((1, 1),))
    assert load_content([write(tmp_path / "mod2", {"maps/tiny.json": TINY})]).maps["tiny"].name == "Tiny"


@pytest.mark.parametrize("encode", ["base64", "zlib", "gzip"])
def test_base64_layer_data_compressed_or_not(tmp_path, content, encode):
    outpost = content.maps["outpost"]
    doc = tiled_map(outpost.rows, outpost.starts, props={"id": "outpost", "name": "Outpost"})
    packed = b"".join(g.to_bytes(4, "little") for g in doc["layers"][0]["data"])
    packed = {"base64": packed, "zlib": zlib.compress(packed), "gzip": gzip.compress(packed)}[encode]
    doc["layers"][0].update(data=base64.b64encode(packed).decode(), encoding="base64",
                            compression="" if encode == "base64" else encode)
    assert load_content([write(tmp_path / "mod", {"maps/o.tmj": doc})]).maps["outpost"] == outpost


def test_external_tsx_and_tsj_tilesets(tmp_path, content):
    outpost = content.maps["outpost"]
    tiles = "\n".join(f' <tile id="{i}" type="{LEGEND[ch].name}"/>' for i, ch in enumerate(CHARS))
    tsx = (f'<?xml version="1.0" encoding="UTF-8"?>\n<tileset version="1.10" name="legend" tilewidth="32" '
           f'tileheight="32" tilecount="{len(CHARS)}" columns="{len(CHARS)}">\n{tiles}\n</tileset>\n')
    for i, (name, text) in enumerate([("legend.tsx", tsx), ("legend.tsj", json.dumps(legend_tileset()))]):
        doc = tiled_map(outpost.rows, outpost.starts, props={"id": "outpost", "name": "Outpost"},
                        tileset={"firstgid": 1, "source": name})
        mod = write(tmp_path / f"mod{i}", {"maps/o.tmj": doc, f"maps/{name}": text})
        loaded = load_content([mod])
        assert loaded.maps["outpost"] == outpost, name
    # the tileset's bytes are part of the content hash
    again = load_content([write(tmp_path / "mod0", {"maps/legend.tsx": tsx.replace('version="1.10"', 'version="1.9"')})])
    assert again.content_hash != load_content([tmp_path / "mod1"]).content_hash


def test_a_char_property_wins_over_the_class_and_classes_ignore_case_and_separators(tmp_path):
    tileset = legend_tileset()
    tileset["tiles"][0] = {"id": 0, "type": "wall", "properties": [{"name": "char", "type": "string", "value": "c"}]}
    tileset["tiles"][8] = {"id": 8, "class": "Resource_Field"}
    doc = tiled_map(["....", ".$$."], props={"id": "m"}, tileset={"firstgid": 1, **tileset})
    assert load_content([write(tmp_path / "mod", {"maps/m.tmj": doc})]).maps["m"].rows == ("cccc", "c$$c")


def test_upper_tile_layers_cover_lower_ones_and_flip_bits_are_ignored(tmp_path):
    doc = tiled_map(["....", "...."], props={"id": "m"})
    wall = CHARS.index("#") + 1
    top = [0] * 8
    top[1], top[6] = wall, wall | 0x80000000            # flipped horizontally: still a wall
    doc["layers"].insert(1, {"type": "tilelayer", "name": "walls", "width": 4, "height": 2, "data": top,
                             "visible": False})      # hidden layers count: visibility is an editor setting
    assert load_content([write(tmp_path / "mod", {"maps/m.tmj": doc})]).maps["m"].rows == (".#..", "..#.")


def test_start_order_follows_index_properties_and_object_shapes(tmp_path):
    doc = tiled_map(["......", "......", "......"], props={"id": "m"})
    doc["layers"][1]["objects"] = [
        {"id": 1, "type": "start", "x": 160, "y": 64, "width": 32, "height": 32,          # rectangle: centre
         "properties": [{"name": "index", "type": "int", "value": 1}]},
        {"id": 2, "class": "Start", "point": True, "x": 40, "y": 8,
         "properties": [{"name": "index", "type": "int", "value": 0}]},
        {"id": 3, "type": "start", "gid": 1, "x": 64, "y": 96, "width": 32, "height": 32,  # tile object: bottom-left
         "properties": [{"name": "index", "type": "int", "value": 2}]},
        {"id": 4, "type": "tree", "x": 0, "y": 0},                                         # not a start
    ]
    assert load_content([write(tmp_path / "mod", {"maps/m.tmj": doc})]).maps["m"].starts == ((1, 0), (5, 2), (2, 2))


# -- layering ----------------------------------------------------------------------------------------------------

def test_a_tiled_map_replaces_a_toml_map_whole_and_toml_can_override_it(tmp_path):
    rows = ["#" * 6, "#....#", "#....#", "#" * 6]
    base = write(tmp_path / "a", {"maps/arena.toml": 'id = "arena"\nname = "Arena"\nstarts = [[0, 0]]\ntiles = "..\\n.."\n'})
    tmj = write(tmp_path / "b", {"maps/arena.tmj": tiled_map(rows)})
    replaced = load_content([base, tmj]).maps["arena"]
    assert replaced == TileMap("arena", "arena", tuple(rows), ())     # nothing of the TOML map is kept
    over = write(tmp_path / "c", {"maps/arena.toml": 'id = "arena"\nname = "Small"\nstarts = [[1, 1], [4, 2]]\n'})
    both = load_content([base, tmj, over]).maps["arena"]
    assert both == TileMap("arena", "Small", tuple(rows), ((1, 1), (4, 2)))


def test_a_toml_override_putting_a_start_on_a_wall_is_blamed_on_the_toml_file(tmp_path):
    tmj = write(tmp_path / "a", {"maps/tiny.tmj": TINY})
    over = write(tmp_path / "b", {"maps/tiny.toml": 'id = "tiny"\nstarts = [[0, 0]]\n'})
    with pytest.raises(ContentError) as info:
        load_content([tmj, over])
    assert str(info.value) == (f"{over}/maps/tiny.toml:2: starts[0]: start (0, 0) is not a walkable tile of the 4x3 "
                               f"map")


def test_toml_and_tiled_maps_with_one_id_in_one_mod(tmp_path):
    msg = problem(tmp_path, {"maps/tiny.tmj": TINY, "maps/tiny.toml": 'id = "tiny"\ntiles = "..\\n.."\n'})
    assert msg == "maps/tiny.toml:1: id: duplicate map id 'tiny' (also in maps/tiny.tmj)"


# -- errors: file:line: key: message -----------------------------------------------------------------------------

def _tiny(old: str, new: str) -> dict:
    assert old in TINY
    return {"maps/tiny.tmj": TINY.replace(old, new)}


KNOWN = ", ".join(t.name for t in LEGEND.values())


@pytest.mark.parametrize("old,new,expected", [
    ("2, 2, 3, 2]", "2, 2, 9, 2]",
     "maps/tiny.tmj:9: layers[0].data: layer 'ground', tile (2, 2): tile 8 of tileset 'legend' has no legend "
     f"character: give it a string property 'char' or a class naming a legend tile ({KNOWN})"),
    ('{"id": 1, "type": "wall"}', '{"id": 1, "type": "lava"}',
     "maps/tiny.tmj:9: layers[0].data: layer 'ground', tile (0, 0): tile 1 of tileset 'legend' (class 'lava') has "
     f"no legend character: give it a string property 'char' or a class naming a legend tile ({KNOWN})"),
    ("2, 2, 3, 2]", "2, 2, 30, 2]",
     "maps/tiny.tmj:9: layers[0].data: layer 'ground', tile (2, 2): gid 30 is past the last tile of tileset "
     "'legend' (9 tiles)"),
    ("2, 2, 3, 2]", "2, 2, 0, 2]",
     "maps/tiny.tmj:9: layers[0].data: tile (2, 2) is empty in every tile layer: every cell needs a tile"),
    ("2, 2, 3, 2]", "2, 2]",
     "maps/tiny.tmj:9: layers[0].data: layer data must be a list of 12 tile ids (4x3), got 10"),
    ('"value": "$"', '"value": "Z"',
     "maps/tiny.tmj:6: tilesets[0].tiles[2].properties[0]: tile 2: property char = 'Z' is not a legend tile "
     "(known: .#c+/Lak$)"),
    ('"x": 24, "y": 24', '"x": 8, "y": 8',
     "maps/tiny.tmj:13: layers[1].objects[0]: start 'west' (object 1) is at tile (0, 0), which is 'wall', not "
     "walkable"),
    ('"x": 24, "y": 24', '"x": 100, "y": 24',
     "maps/tiny.tmj:13: layers[1].objects[0]: start 'west' (object 1) is at tile (6, 1), outside the 4x3 map"),
    ('"x": 24, "y": 24}', '"x": 24, "y": 24, "properties": [{"name": "index", "type": "int", "value": 3}]}',
     "maps/tiny.tmj:13: layers[1].objects[0]: start indexes must be 0..0, each once; 0 is missing"),
    ('"x": 24, "y": 24}', '"x": 24, "y": 24, "template": "start.tx"}',
     "maps/tiny.tmj:13: layers[1].objects[0].template: object templates are not supported: detach the template "
     "(or export with Detach templates)"),
    ('"width": 4, "height": 3,\n   "data"', '"width": 5, "height": 3,\n   "data"',
     "maps/tiny.tmj:8: layers[0]: layer is 5x3 tiles, the map is 4x3"),
    ('"width": 4, "height": 3, "tilewidth"', '"width": 100000, "height": 3, "tilewidth"',
     "maps/tiny.tmj:3: width: 'width' must be 2..160, got 100000"),
    ('"width": 4, "height": 3, "tilewidth"', '"width": 4.0, "height": 3, "tilewidth"',
     "maps/tiny.tmj:3: width: 'width' must be a whole number, got 4.0"),
    ('"infinite": false', '"infinite": true',
     "maps/tiny.tmj:2: infinite: infinite maps are not supported: untick Infinite in the map's properties"),
    ('"orientation": "orthogonal"', '"orientation": "isometric"',
     "maps/tiny.tmj:2: orientation: only orthogonal maps are supported, got 'isometric'"),
    ('"type": "map"', '"type": "tileset"',
     "maps/tiny.tmj:2: type: this is a Tiled tileset, not a map: save tilesets beside the map as .tsx or .tsj"),
    ('"type": "tilelayer"', '"type": "hexlayer"',
     "maps/tiny.tmj:8: layers[0].type: unknown layer type 'hexlayer' (Tiled writes tilelayer, objectgroup, "
     "imagelayer or group)"),
    ('"name": "ground", ', '"name": "ground", "encoding": "base64", ',
     "maps/tiny.tmj:9: layers[0].data: Base64 layer data must be a string"),
    ('"name": "ground", ', '"name": "ground", "encoding": "xml", ',
     "maps/tiny.tmj:8: layers[0].encoding: unknown layer encoding 'xml' (use CSV or Base64)"),
    ('"tilecount": 9', '"tilecount": "nine"',
     "maps/tiny.tmj:5: tilesets[0].tilecount: 'tilecount' must be a whole number, got 'nine'"),
    ('"name": "legend", ', '',
     "maps/tiny.tmj:5: tilesets[0]: tileset: Tiled key 'name' is missing"),
    ('"value": "Tiny"', '"value": 7',
     "maps/tiny.tmj:4: name: Input should be a valid string"),
    ('[{"name": "name", "type": "string", "value": "Tiny"}]',
     '[{"name": "id", "type": "string", "value": "Not An Id"}]',
     "maps/tiny.tmj:4: id: String should match pattern '^[a-z][a-z0-9_]{0,39}$'"),
    ('"x": 24, "y": 24', '"x": 24, "y": 24,,',
     "maps/tiny.tmj:13: invalid JSON: Expecting property name enclosed in double quotes (column 79)"),
    ('"y": 24', '"y": NaN',
     "maps/tiny.tmj:13: invalid JSON: NaN is not a number JSON allows (column 76)"),
])
def test_each_error_names_file_line_key_and_why(tmp_path, old, new, expected):
    assert problem(tmp_path, _tiny(old, new)) == expected


def test_a_bad_file_name_needs_an_id_property(tmp_path):
    assert problem(tmp_path, {"maps/My Map.tmj": TINY}) == (
        "maps/My Map.tmj:1: the file name 'My Map' is not a map id (a-z, 0-9, _, starting with a letter): rename the "
        "file or give the map a string property 'id'")


def test_start_index_mix_and_duplicates(tmp_path):
    doc = tiled_map(["....", "...."], starts=[(0, 0), (1, 0), (2, 0)], props={"id": "m"})
    objs = doc["layers"][1]["objects"]
    objs[0]["properties"] = [{"name": "index", "type": "int", "value": 0}]
    assert problem(tmp_path, {"maps/m.tmj": json.dumps(doc)}) == (
        "maps/m.tmj:1: layers[1].objects[1]: give every start an 'index' property, or none of them (they then "
        "follow file order)")
    for o in objs:
        o["properties"] = [{"name": "index", "type": "int", "value": 1}]
    assert problem(tmp_path, {"maps/m.tmj": json.dumps(doc)}) == \
        "maps/m.tmj:1: layers[1].objects[1]: start index 1 is used twice"


def test_errors_in_an_external_tileset_name_that_file(tmp_path):
    tsx = ('<?xml version="1.0" encoding="UTF-8"?>\n<tileset name="t" tilewidth="16" tileheight="16" tilecount="2" '
           'columns="2">\n <tile id="0" type="floor"/>\n <tile id="1">\n  <properties>\n'
           '   <property name="char" value="@"/>\n  </properties>\n </tile>\n</tileset>\n')
    tmj = TINY.replace('{"firstgid": 1, "name": "legend"', '{"firstgid": 1, "source": "t.tsx"}, {"firstgid": 50, '
                                                            '"name": "legend"')
    assert problem(tmp_path, {"maps/tiny.tmj": tmj, "maps/t.tsx": tsx}) == \
        "maps/t.tsx:6: tile[id=1].properties.char: tile 1: property char = '@' is not a legend tile (known: .#c+/Lak$)"
    tsj = json.dumps({"name": "t", "tilecount": 2, "tilewidth": 16, "tileheight": 16,
                      "tiles": [{"id": 0, "properties": [{"name": "char", "type": "string", "value": "@"}]}]}, indent=1)
    assert problem(tmp_path, {"maps/tiny.tmj": tmj.replace("t.tsx", "t.tsj"), "maps/t.tsj": tsj}) == \
        "maps/t.tsj:10: tiles[0].properties[0]: tile 0: property char = '@' is not a legend tile (known: .#c+/Lak$)"
    assert problem(tmp_path, {"maps/tiny.tmj": tmj.replace("t.tsx", "gone.tsx")}) == \
        "maps/tiny.tmj:5: tilesets[0].source: tileset 'gone.tsx': cannot read file: No such file or directory"
    assert problem(tmp_path, {"maps/tiny.tmj": tmj, "maps/t.tsx": "<tileset name='t'>"}) == \
        "maps/t.tsx: invalid XML: no element found (line 1, column 19)"


# -- hostile files: refused in one line, nothing read outside the map's directory ----------------------------------

def _hostile(tmp_path, files, links=()):
    mod = write(tmp_path / "mod", files)
    for link, target in links:
        os.symlink(target, mod / link)
    with pytest.raises(ContentError) as info:
        load_content([mod])
    text = str(info.value)
    assert "\n" not in text
    return text.replace(str(mod) + "/", "")


@pytest.mark.parametrize("source,why", [
    ("../../secret.tsx", "tileset source '../../secret.tsx' must be a file in the map's directory (like "
                         "'terrain.tsx'), not a path"),
    ("/etc/passwd", "tileset source '/etc/passwd' must be a file in the map's directory (like 'terrain.tsx'), "
                    "not a path"),
    ("sub\\\\x.tsx", "tileset source 'sub\\x.tsx' must be a file in the map's directory (like 'terrain.tsx'), "
                     "not a path"),
    ("..", "tileset source '..' must be a file in the map's directory (like 'terrain.tsx'), not a path"),
    ("legend.png", "tileset source 'legend.png' must be a .tsx or .tsj file"),
])
def test_a_tileset_path_leaving_the_directory_is_refused(tmp_path, source, why):
    tmj = TINY.replace('{"firstgid": 1, "name": "legend"', '{"firstgid": 1, "source": "%s"}, {"firstgid": 50, '
                                                           '"name": "legend"' % source)
    write(tmp_path, {"secret.tsx": "<tileset/>"})
    assert _hostile(tmp_path, {"maps/tiny.tmj": tmj}) == f"maps/tiny.tmj:5: tilesets[0].source: {why}"


def test_a_tileset_link_leading_outside_is_refused(tmp_path):
    outside = write(tmp_path / "elsewhere", {"t.tsx": "<tileset/>"}) / "t.tsx"
    tmj = TINY.replace('{"firstgid": 1, "name": "legend"', '{"firstgid": 1, "source": "t.tsx"}, {"firstgid": 50, '
                                                           '"name": "legend"')
    assert _hostile(tmp_path, {"maps/tiny.tmj": tmj}, links=[("maps/t.tsx", outside)]) == \
        "maps/tiny.tmj:5: tilesets[0].source: tileset source 't.tsx' leads outside the map's directory"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_non_regular_files_are_refused_without_blocking(tmp_path):
    mod = write(tmp_path / "mod", {"maps/tiny.tmj": TINY.replace(
        '{"firstgid": 1, "name": "legend"', '{"firstgid": 1, "source": "t.tsx"}, {"firstgid": 50, "name": "legend"')})
    os.mkfifo(mod / "maps" / "t.tsx")
    with pytest.raises(ContentError) as info:
        load_content([mod])
    assert str(info.value) == f"{mod}/maps/tiny.tmj:5: tilesets[0].source: tileset 't.tsx': not a regular file"
    os.mkfifo(mod / "maps" / "pipe.tmj")
    with pytest.raises(ContentError) as info:
        load_content([mod])
    assert f"{mod}/maps/pipe.tmj: not a regular file" in [str(p) for p in info.value.problems]


def test_huge_files_deep_nesting_and_bombs_are_refused(tmp_path):
    big = TINY.replace('"version": "1.10"', '"version": "' + "x" * MAX_FILE_BYTES + '"')
    assert _hostile(tmp_path / "a", {"maps/tiny.tmj": big}) == \
        f"maps/tiny.tmj: file is {len(big)} bytes; content files are limited to {MAX_FILE_BYTES}"
    deep = TINY.replace('"version": "1.10"', '"version": ' + "[" * 5000 + "]" * 5000)
    assert _hostile(tmp_path / "b", {"maps/tiny.tmj": deep}) == \
        "maps/tiny.tmj:2: invalid JSON: nesting is deeper than 64 levels (column 139)"
    # a declared size far past the limit is refused before anything is allocated for it
    huge = TINY.replace('"width": 4, "height": 3,', '"width": 1000000000, "height": 1000000000,', 1)
    assert _hostile(tmp_path / "c", {"maps/tiny.tmj": huge}) == \
        "maps/tiny.tmj:3: width: 'width' must be 2..160, got 1000000000"
    # zlib data inflating far past the 12 tile ids the map needs is cut off at 49 bytes
    bomb = base64.b64encode(zlib.compress(b"\1\0\0\0" * 10_000_000)).decode()
    assert len(bomb) < 100_000
    text = TINY.replace('"name": "ground", ', '"name": "ground", "encoding": "base64", "compression": "zlib", ')
    text = text.replace(text[text.index('"data": ['):text.index("]},\n  {") + 1], f'"data": "{bomb}"')
    assert _hostile(tmp_path / "d", {"maps/tiny.tmj": text}) == \
        "maps/tiny.tmj:9: layers[0].data: layer data holds more than the 12 tile ids the map needs (4x3)"


def test_a_tsx_with_a_doctype_or_entities_is_refused(tmp_path):
    tsx = ('<?xml version="1.0"?>\n<!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>\n'
           '<tileset name="&b;" tilewidth="16" tileheight="16" tilecount="1" columns="1"/>\n')
    tmj = TINY.replace('{"firstgid": 1, "name": "legend"', '{"firstgid": 1, "source": "t.tsx"}, {"firstgid": 50, '
                                                           '"name": "legend"')
    assert _hostile(tmp_path, {"maps/tiny.tmj": tmj, "maps/t.tsx": tsx}) == \
        "maps/t.tsx: a DOCTYPE or entity declaration is not allowed in a tileset (line 2)"


WRONG = [None, True, -1, 0, 3.5, 10**12, "text", "", [], [1, 2], {}, {"a": 1}, [{"x": 1}]]


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list) and len(node) < 20:
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


TINY_DOC = json.loads(TINY)
TINY_PATHS = [p for p in _paths(TINY_DOC) if p]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(TINY_PATHS), st.sampled_from(WRONG), st.booleans())
def test_any_wrong_value_anywhere_is_loaded_or_refused_in_one_line(tmp_path_factory, path, value, delete):
    """Whatever replaces (or removes) any value of a good map: it loads, or ContentError names the file — never
    another exception."""
    doc = json.loads(TINY)
    node = doc
    for part in path[:-1]:
        node = node[part]
    if delete and isinstance(node, dict):
        del node[path[-1]]
    else:
        node[path[-1]] = value
    mod = write(tmp_path_factory.mktemp("fuzz"), {"maps/tiny.tmj": json.dumps(doc, indent=1)})
    try:
        load_content([mod])
    except ContentError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(mod / "maps" / "tiny.tmj")), str(exc)
# -- the example mod ---------------------------------------------------------------------------------------------

def rts(*args):
    return subprocess.run([sys.executable, "-m", "game.app.cli", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


def test_the_example_tileset_names_every_legend_tile():
    """A new legend row needs a tile in the example tileset (and the modding guide's table)."""
    tsx = (EXAMPLE / "maps" / "terrain.tsx").read_text()
    for tile in LEGEND.values():
        assert f'type="{tile.name}"' in tsx or f'class="{tile.name}"' in tsx, tile.name


def test_the_example_mod_validates_and_plays(tmp_path):
    content = load_content([EXAMPLE])
    islands = content.maps["islands"]
    assert len(islands.starts) == 2 and "$" in "".join(islands.rows)
    assert rts("validate", "--mod", str(EXAMPLE)).returncode == 0
    proc = rts("match", "--mod", str(EXAMPLE), "--scenario", "islands_duel", "--seed", "1", "--ticks", "600")
    assert proc.returncode == 0, proc.stderr



def test_the_content_watcher_sees_tiled_maps_and_tilesets(tmp_path):
    from game.app.hotreload import ContentWatcher
    mod = write(tmp_path / "mod", {"maps/tiny.tmj": TINY, "maps/t.tsx": "<tileset/>", "maps/notes.txt": "x"})
    watcher = ContentWatcher([mod])
    assert {Path(p).name for p in watcher.stamp} >= {"tiny.tmj", "t.tsx"}
    assert "notes.txt" not in {Path(p).name for p in watcher.stamp}
    (mod / "maps" / "t.tsx").write_text("<tileset name='changed'/>")
    assert [Path(p).name for p in watcher.changed()] == ["t.tsx"]


def test_a_tiled_map_outside_maps_is_reported_not_ignored(tmp_path):
    mod = write(tmp_path / "mod", {"map/islands.tmj": TINY, "islands.tmj": TINY})
    with pytest.raises(ContentError) as info:
        load_content([mod])
    kinds = ", ".join(KINDS)
    assert [str(p) for p in info.value.problems] == [
        f"{mod}/islands.tmj: content files belong in a kind directory ({kinds})",
        f"{mod}/map: unknown content kind 'map' (expected {kinds})"]


def test_non_utf8_and_deeply_nested_xml_are_refused(tmp_path):
    assert _hostile(tmp_path / "a", {"maps/tiny.tmj": b'{"a":\n "\xff"}'}) == \
        "maps/tiny.tmj:2: file is not valid UTF-8"
    tsx = "<tileset>" + "<x>" * 100 + "</x>" * 100 + "</tileset>"
    tmj = TINY.replace('{"firstgid": 1, "name": "legend"', '{"firstgid": 1, "source": "t.tsx"}, {"firstgid": 50, '
                                                           '"name": "legend"')
    assert _hostile(tmp_path / "b", {"maps/tiny.tmj": tmj, "maps/t.tsx": tsx}) == \
        "maps/t.tsx: XML nesting is deeper than 64 levels (line 1)"


# -- the largest map (issue 19.2): a Tiled map is held to the TOML map's limits, before any grid is allocated --------

@pytest.mark.parametrize("width, height, key, why", [
    (161, 10, "width", "'width' must be 2..160, got 161"),
    (10, 161, "height", "'height' must be 2..160, got 161"),
    (140, 140, "width", "a 140x140 map has 19600 tiles; a map may have at most 19200 (160 x 120)"),
])
def test_a_tiled_map_over_the_maximum_is_refused_in_one_line(tmp_path, width, height, key, why):
    msg = _hostile(tmp_path, {"maps/big.tmj": tiled_map(["." * width] * height)})
    assert msg.startswith("maps/big.tmj:") and msg.endswith(f": {key}: {why}"), msg


def test_a_tiled_map_at_the_maximum_loads(tmp_path):
    content = load_content([write(tmp_path / "mod", {"maps/big.tmj": tiled_map(["." * 160] * 120)})])
    assert (content.maps["big"].width, content.maps["big"].height) == (160, 120)


def _claim(width: int, height: int, base64_data: bool = False) -> str:
    """TINY (12 tile ids of data) claiming a ``width`` x ``height`` map."""
    text = TINY.replace('"width": 4, "height": 3, "tilewidth"', f'"width": {width}, "height": {height}, "tilewidth"')
    text = text.replace('"width": 4, "height": 3,\n   "data"', f'"width": {width}, "height": {height},\n   "data"')
    if base64_data:
        text = text.replace('"name": "ground", ', '"name": "ground", "encoding": "base64", ')
        text = text.replace(text[text.index('"data": ['):text.index("]},\n  {") + 1],
                            '"data": "' + base64.b64encode(bytes(48)).decode() + '"')
    return text


@pytest.mark.parametrize("width, height, base64_data, why", [
    (1_000_000_000, 1_000_000_000, False, "maps/tiny.tmj:3: width: 'width' must be 2..160, got 1000000000"),
    (150, 150, False, "maps/tiny.tmj:3: width: a 150x150 map has 22500 tiles; a map may have at most 19200 (160 x 120)"),
    (160, 120, False, "maps/tiny.tmj:9: layers[0].data: layer data must be a list of 19200 tile ids (160x120), got 12"),
    (160, 120, True, "maps/tiny.tmj:9: layers[0].data: layer data holds 12 tile ids, not the 19200 tile ids the map "
                     "needs (160x120)"),
])
def test_a_big_claim_with_little_data_is_refused_before_allocating_for_it(tmp_path, width, height, base64_data, why):
    import tracemalloc
    from content.tiled import TiledError, read_map
    assert _hostile(tmp_path / "load", {"maps/tiny.tmj": _claim(width, height, base64_data=base64_data)}) == why
    path = write(tmp_path / "read", {"maps/tiny.tmj": _claim(width, height, base64_data=base64_data)}) / "maps/tiny.tmj"
    read_map(write(tmp_path / "warm", {"maps/tiny.tmj": TINY}) / "maps/tiny.tmj", MAX_FILE_BYTES)   # imports done
    tracemalloc.start()
    try:
        with pytest.raises(TiledError):
            read_map(path, MAX_FILE_BYTES)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # nothing that scales with the claim: at most the largest map's cell list (19,200 slots, 150 KiB) and parsing
    assert peak < 1 << 20, peak
