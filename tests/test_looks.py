"""A unit's and building's look comes from content; a sprite stays inside its mod."""
import os

import pytest

from content.loader import ContentError, load_content
from tests.conftest import GRUNT_UNIT, write_mod

UNIT = GRUNT_UNIT + '''
[look]
shape = "diamond"
colour = [255, 120, 0]
'''

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                    "0000000d49444154789c63f8ffffff7f0009fb03fd2a86e38a0000000049454e44ae426082")


def test_every_shipped_unit_type_looks_different(content):
    looks = {(u.look.shape, tuple(u.look.colour)) for u in content.units.values()}
    assert len(looks) == len(content.units) >= 4
    assert len({u.look.shape for u in content.units.values()}) == len(content.units)   # by outline alone


def test_a_mod_sprite_inside_the_mod_is_resolved(tmp_path):
    (tmp_path / "sprites").mkdir()
    (tmp_path / "sprites" / "grunt.png").write_bytes(PNG)
    write_mod(tmp_path, {"units/grunt.toml": UNIT.replace('shape = "diamond"', 'sprite = "sprites/grunt.png"')})
    content = load_content([tmp_path])
    sprite = content.units["grunt"].look.sprite
    assert os.path.isabs(sprite) and sprite.endswith("grunt.png") and os.path.isfile(sprite)
    assert content.units["grunt"].look.colour == [255, 120, 0]


def test_an_arcade_resource_is_kept_as_it_is(tmp_path):
    res = ":resources:images/topdown_tanks/tankBody_blue.png"
    write_mod(tmp_path, {"units/grunt.toml": UNIT + f'sprite = "{res}"\n'})
    assert load_content([tmp_path]).units["grunt"].look.sprite == res


@pytest.mark.parametrize("path, why", [
    ("../outside.png", "outside the mod's folder"),
    ("/etc/passwd", "outside the mod's folder"),
    ("sprites/missing.png", "not a PNG file"),
    ("units/grunt.toml", "not a PNG file"),
    ("fake.png", "not a PNG image"),
])
def test_a_bad_sprite_is_refused_naming_the_file_line_and_key(tmp_path, path, why):
    mod = tmp_path / "mod"
    mod.mkdir()
    (tmp_path / "outside.png").write_bytes(PNG)
    (mod / "fake.png").write_bytes(b"not a png at all")
    write_mod(mod, {"units/grunt.toml": UNIT + f'sprite = "{path}"\n'})
    with pytest.raises(ContentError) as exc:
        load_content([mod])
    text = str(exc.value)
    assert "grunt.toml:" in text and "look.sprite" in text and why in text, text


def test_a_link_leading_out_of_the_mod_is_refused(tmp_path):
    mod = tmp_path / "mod"
    mod.mkdir()
    (tmp_path / "outside.png").write_bytes(PNG)
    (mod / "link.png").symlink_to(tmp_path / "outside.png")
    write_mod(mod, {"units/grunt.toml": UNIT + 'sprite = "link.png"\n'})
    with pytest.raises(ContentError, match="outside the mod's folder"):
        load_content([mod])


def test_a_bad_shape_is_refused(tmp_path):
    write_mod(tmp_path, {"units/grunt.toml": UNIT.replace('"diamond"', '"hexagon"')})
    with pytest.raises(ContentError, match="grunt.toml:.*look.shape"):
        load_content([tmp_path])
