"""The tile legend is the one home of what a tile means: every row is consistent, and adding a row is enough."""
import esper
import pytest

from components import Pickup
from content import reference
from content.loader import ContentError, load_content
from content.tiles import LEGEND, PickupSpec, Tile
from game.app.views import palette
from systems.commander import map_regions
from tests.conftest import arena_mod, idle_teams, spawn


def _is_rgb(value) -> bool:
    return isinstance(value, tuple) and len(value) == 3 and \
        all(type(c) is int and 0 <= c <= 255 for c in value)


def row_problems(ch: str, tile: Tile) -> list[str]:
    """What is wrong with one legend row (empty when nothing is)."""
    problems = []
    if len(ch) != 1 or not ch.isprintable() or ch.isspace() or ch in "'\"":
        problems.append("a tile is one printable, non-blank character that cannot end a TOML string")
    if not tile.name or not tile.description:
        problems.append("a tile needs a name and a description")
    if tile.door not in (None, "open", "closed", "locked"):
        problems.append(f"unknown door state {tile.door!r}")
    if tile.door is not None and tile.walkable != (tile.door == "open"):
        problems.append("a door tile is walkable at the start exactly when its door starts open")
    if tile.door is not None and tile.pickup is not None:
        problems.append("a tile holds one entity: a door or a pickup")
    if tile.cover and not tile.walkable:
        problems.append("cover is stood on, so it must be walkable")
    if tile.pickup is not None and not tile.walkable:
        problems.append("a pickup is collected by standing on it, so its tile must be walkable")
    if tile.pickup is not None and (not tile.pickup.kind or type(tile.pickup.amount) is not int
                                    or tile.pickup.amount < 1):
        problems.append("a pickup needs a kind and a whole, positive amount")
    if not (_is_rgb(tile.color) and _is_rgb(tile.minimap)):
        problems.append("the map and minimap colours are RGB tuples of three 0-255 integers")
    return problems


@pytest.mark.parametrize("ch", list(LEGEND))
def test_every_legend_row_is_consistent(ch):
    assert row_problems(ch, LEGEND[ch]) == []


def test_tile_names_are_unique():
    names = [tile.name for tile in LEGEND.values()]
    assert len(names) == len(set(names))


def test_a_row_with_a_mistake_is_caught():
    assert row_problems("+", Tile(name="bad door", description="walkable while shut", walkable=True,
                                  door="closed", color=(1, 2, 3), minimap=(1, 2, 3))) != []
    assert row_problems("q", Tile(name="bad colour", description="too bright", walkable=True,
                                  color=(1, 2, 300), minimap=(1, 2, 3))) != []


# Two rows a map could gain: a resource field (a walkable tile whose entity holds an amount, as the economy
# will need) and water (blocks movement, places nothing).
ORE = Tile(name="ore field", description="ore to harvest", walkable=True, pickup=PickupSpec("ore", 500),
           color=(200, 160, 40), minimap=(220, 180, 60))
WATER = Tile(name="water", description="blocks movement", walkable=False, color=(30, 60, 160), minimap=(40, 80, 200))
ROWS = ["#######",
        "#..$..#",
        "#~~~~~#",
        "#.....#",
        "#######"]


@pytest.fixture
def new_tiles(monkeypatch):
    monkeypatch.setitem(LEGEND, "$", ORE)
    monkeypatch.setitem(LEGEND, "~", WATER)
    assert row_problems("$", ORE) == [] and row_problems("~", WATER) == []


def test_a_new_row_is_all_it_takes(new_tiles, make_world):
    # the loader accepts the new characters and lets a unit spawn on the walkable one
    world = make_world(ROWS, idle_teams(spawn("rifleman", 3, 1), spawn("rifleman", 3, 3)))
    nav = world.nav
    assert nav.is_walkable(3, 1) and not nav.is_cover(3, 1)
    assert not any(nav.is_walkable(x, 2) for x in range(7))

    # population puts the row's entity on the tile, and nothing on the tile without one
    world.activate()
    pickups = [(p.tx, p.ty, p.kind, p.amount) for _e, p in esper.get_component(Pickup)]
    assert pickups == [(3, 1, "ore", 500)]

    # the region cut: water belongs to no region and parts the map in two, the ore field is floor
    regions = map_regions(world, 2)
    assert all(regions.region_of(x, 2) < 0 for x in range(7))
    assert sorted((regions.region_of(3, 1), regions.region_of(3, 3))) == [0, 1]

    # the views paint it with its colours
    assert palette.map_image(world.tilemap).getpixel((3, 1)) == ORE.color + (255,)
    assert palette.map_image(world.tilemap, minimap=True).getpixel((1, 2)) == WATER.minimap + (255,)

    # the reference lists it
    text = reference.generate()
    assert "| `$` | ore field | yes | no | pickup `ore`, amount 500 | ore to harvest |" in text
    assert "| `~` | water | no | no | - | blocks movement |" in text


def test_the_loader_names_the_new_characters_and_refuses_a_spawn_on_a_blocking_one(new_tiles, tmp_path):
    mod = arena_mod(tmp_path, ROWS, idle_teams(spawn("rifleman", 1, 2), spawn("rifleman", 3, 3)))
    with pytest.raises(ContentError) as err:
        load_content([mod])
    assert str(err.value).endswith("teams[0].spawns[0].at: tile (1, 2) is '~', not walkable")
    mod = arena_mod(tmp_path / "bad", ["####", "#.X#", "####"], idle_teams(spawn("rifleman", 1, 1),
                                                                         spawn("rifleman", 1, 1)))
    with pytest.raises(ContentError) as err:
        load_content([mod])
    assert "unknown tile 'X' at column 3 (known: .#c+/Lak$~)" in str(err.value)
