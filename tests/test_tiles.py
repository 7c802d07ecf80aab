"""The tile legend is the one home of what a tile means: every row is consistent."""
import pytest

from content.tiles import LEGEND, Tile


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
