"""Content loading: defaults validate; each kind of broken file is refused with file:line: key: message."""
import subprocess
import sys

import pytest

from content.loader import ContentError, load_content
from tests.conftest import GRUNT_UNIT, write_mod



def error_of(tmp_path, files):
    mod = write_mod(tmp_path / "mod", files)
    with pytest.raises(ContentError) as info:
        load_content([mod])
    return info.value


def test_default_content_loads(content):
    assert {"rifleman", "heavy", "scout"} <= set(content.units)
    assert "skirmish" in content.scenarios and "crossroads" in content.maps
    assert len(content.content_hash) == 32


def test_wrong_type_names_file_line_and_key(tmp_path):
    err = error_of(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace('speed = 2.5', 'speed = "fast"')})
    assert str(err) == f"{tmp_path / 'mod/units/grunt.toml'}:3: speed: Input should be a valid number"


def test_out_of_range_nested_key(tmp_path):
    err = error_of(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace("range = 4.0", "range = -1.0")})
    assert str(err).endswith("grunt.toml:6: weapon.range: Input should be greater than 0")


def test_missing_key_points_at_its_table(tmp_path):
    err = error_of(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace("damage = 5.0\n", "")})
    assert str(err).endswith("grunt.toml:5: weapon.damage: required key is missing")


def test_unknown_key_is_refused(tmp_path):
    err = error_of(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace("speed = 2.5", "speed = 2.5\narmour = 3")})
    assert str(err).endswith("grunt.toml:4: armour: unknown key 'armour' (did you mean 'ammo'?)")
    err = error_of(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace("speed = 2.5", "sped = 2.5")})
    assert any(str(p).endswith("grunt.toml:3: sped: unknown key 'sped' (did you mean 'speed'?)") for p in err.problems)


def test_nan_is_refused(tmp_path):
    err = error_of(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace("hp = 50.0", "hp = nan")})
    assert "grunt.toml:2: hp:" in str(err)


def test_toml_syntax_error_has_line(tmp_path):
    err = error_of(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace("speed = 2.5", "speed = = 2.5")})
    assert str(err).endswith("grunt.toml:3:9: invalid TOML: Invalid value")     # line and column


def test_bad_tile_names_its_row_line(tmp_path):
    err = error_of(tmp_path, {"maps/tiny.toml": "id = \"tiny\"\ntiles = '''\n....\n.X..\n'''\n"})
    assert str(err).endswith("tiny.toml:4: tiles[1]: unknown tile 'X' at column 2 (known: .#c+/Lak$)")


def test_ragged_map_rows(tmp_path):
    err = error_of(tmp_path, {"maps/tiny.toml": "id = \"tiny\"\ntiles = '''\n....\n...\n'''\n"})
    assert str(err).endswith("tiny.toml:4: tiles[1]: row is 3 tiles wide, the first row is 4")


def test_unknown_reference_in_scenario(tmp_path):
    scenario = """
    id = "mini"
    map = "crossroads"

    [[teams]]
    name = "A"
    color = [1, 2, 3]
    [[teams.spawns]]
    unit = "rifleman"
    at = [5, 5]

    [[teams]]
    name = "B"
    color = [1, 2, 3]
    [[teams.spawns]]
    unit = "dragon"
    at = [70, 40]
    """
    err = error_of(tmp_path, {"scenarios/mini.toml": scenario})
    assert str(err).endswith("mini.toml:15: teams[1].spawns[0].unit: unknown unit 'dragon'")


MINI = """
id = "mini"
map = "crossroads"
[[teams]]
name = "A"
color = [1, 2, 3]
spawns = [{{ unit = "rifleman", at = {a_at} }}]
[[teams]]
name = "B"
color = {b_color}
spawns = [{{ unit = "rifleman", at = [5, 5] }}]
"""


def test_colour_channel_out_of_range(tmp_path):
    err = error_of(tmp_path, {"scenarios/mini.toml": MINI.format(a_at="[5, 6]", b_color="[1, 2, 300]")})
    assert str(err).endswith("mini.toml:9: teams[1].color[2]: Input should be less than or equal to 255")


def test_wall_spawn_is_refused(tmp_path):
    err = error_of(tmp_path, {"scenarios/mini.toml": MINI.format(a_at="[0, 0]", b_color="[1, 2, 3]")})
    assert str(err).endswith("mini.toml:6: teams[0].spawns[0].at: tile (0, 0) is '#', not walkable")


def test_missing_id_and_duplicate_id(tmp_path):
    err = error_of(tmp_path, {"units/a.toml": "hp = 1.0\n"})
    assert str(err).endswith("a.toml:1: id: every content file needs a string 'id'")
    err = error_of(tmp_path / "2", {"units/a.toml": GRUNT_UNIT, "units/b.toml": GRUNT_UNIT})
    assert "b.toml:1: id: duplicate unit id 'grunt' (also in" in str(err)


def test_unknown_kind_directory_and_missing_mod(tmp_path):
    err = error_of(tmp_path, {"weapons/x.toml": "id = \"x\"\n"})
    assert "unknown content kind 'weapons'" in str(err)
    with pytest.raises(ContentError, match="mod directory does not exist"):
        load_content([tmp_path / "nope"])


def test_huge_and_non_utf8_files(tmp_path):
    mod = write_mod(tmp_path / "mod", {"units/a.toml": "id = 'a'\n"})
    (mod / "units" / "a.toml").write_bytes(b"id = 'a'\n# " + b"x" * (2 << 20))
    with pytest.raises(ContentError, match="limited to"):
        load_content([mod])
    (mod / "units" / "a.toml").write_bytes(b"id = 'a'\nname = '\xff'\n")
    with pytest.raises(ContentError, match=r"a.toml:2: file is not valid UTF-8"):
        load_content([mod])


def test_mod_overrides_one_field_and_adds_objects(tmp_path, content):
    mod = write_mod(tmp_path / "mod", {
        "units/rifleman.toml": 'id = "rifleman"\n[weapon]\ndamage = 20.0\n',
        "units/grunt.toml": GRUNT_UNIT,
    })
    layered = load_content([mod])
    rifle = layered.units["rifleman"]
    assert rifle.weapon.damage == 20.0
    assert rifle.weapon.range == content.units["rifleman"].weapon.range   # untouched fields survive
    assert rifle.hp == content.units["rifleman"].hp
    assert "grunt" in layered.units and "grunt" not in content.units
    assert layered.content_hash != content.content_hash


def test_override_error_blames_the_mod_file(tmp_path):
    err = error_of(tmp_path, {"units/rifleman.toml": 'id = "rifleman"\n[weapon]\ndamage = -2.0\n'})
    assert str(err) == f"{tmp_path / 'mod/units/rifleman.toml'}:3: weapon.damage: Input should be greater than or equal to 0"


def test_nothing_half_loaded(tmp_path):
    """One bad file refuses the whole set: no registry comes back at all."""
    mod = write_mod(tmp_path / "mod", {"units/grunt.toml": GRUNT_UNIT,
                                       "units/bad.toml": GRUNT_UNIT.replace("grunt", "bad").replace("hp = 50.0", "hp = 0.0")})
    result = None
    with pytest.raises(ContentError):
        result = load_content([mod])
    assert result is None


def test_cli_validate_reports_file_and_line(tmp_path):
    mod = write_mod(tmp_path / "mod", {"units/grunt.toml": GRUNT_UNIT.replace("clip = 6", "clip = 0")})
    proc = subprocess.run([sys.executable, "-m", "game.app.cli", "validate", "--mod", str(mod)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "grunt.toml:11: ammo.clip: Input should be greater than or equal to 1" in proc.stderr
    assert "Traceback" not in proc.stderr
    ok = subprocess.run([sys.executable, "-m", "game.app.cli", "validate"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("ok: ")
