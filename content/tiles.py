"""The tile legend: every character a map may use and everything the game derives from it.

One row per tile character. Each consumer reads the row instead of keeping its own list of characters:

- the loader accepts exactly these characters (its "known:" list is the legend in this order) and lets units
  spawn only on a ``walkable`` tile;
- the nav grid starts from ``walkable`` and ``cover``;
- populating a match creates the row's entity on every such tile, row-major over the map: a ``Door`` in
  state ``door``, a ``Pickup`` of ``pickup.kind`` holding ``pickup.amount``, or a ``ResourceField`` holding
  ``field.amount`` that ``field.slots`` workers may mine at once;
- the commander's region cut treats every ``passable`` tile as floor and the ``door`` tiles as region
  boundaries;
- the views paint the map with ``color`` and the minimap with ``minimap``;
- docs/content.md's "Map tiles" table is generated from the rows.

Adding a tile is adding a row here (and a test of what it does). The legend is read at call time, never
copied into module-level sets, so a row added at run time (a test's monkeypatch) is seen everywhere.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

RGB = tuple[int, int, int]
DoorState = Literal["open", "closed", "locked"]


@dataclass(frozen=True, slots=True)
class PickupSpec:
    """The pickup a tile starts with: a ``components.Pickup`` of ``kind`` holding ``amount``."""
    kind: str
    amount: int


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """The resource field a tile starts with: a ``components.ResourceField`` holding ``amount``, mined by at most
    ``slots`` workers at a time. A field blocks movement; once mined out it is gone and the tile is floor."""
    amount: int
    slots: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Tile:
    """What one tile character means.

    ``walkable`` is the tile as the map is loaded: a door tile is walkable exactly when it starts open, because
    the door entity's state (not the tile) decides it once the match runs.
    """
    name: str
    description: str
    walkable: bool
    color: RGB                          # the map's pixel for this tile
    minimap: RGB                        # the minimap's pixel (floor and walls contrast more there)
    cover: bool = False                 # a unit standing on it takes half damage
    door: DoorState | None = None       # a match places a door in this state on it
    pickup: PickupSpec | None = None    # a match places this pickup on it
    field: FieldSpec | None = None      # a match places this resource field on it

    @property
    def passable(self) -> bool:
        """Walkable at the start or once its door opens: what the region cut counts as floor."""
        return self.walkable or self.door is not None


#: the map colour of floor; tiles holding an entity are painted like it, the entity's sprite goes on top
FLOOR = (58, 62, 56)

#: tile character -> its row; the order is the order the loader's "known:" list and the docs show
LEGEND: dict[str, Tile] = {
    ".": Tile(name="floor", walkable=True, color=FLOOR, minimap=(70, 74, 66),
              description="open ground"),
    "#": Tile(name="wall", walkable=False, color=(24, 24, 28), minimap=(16, 16, 18),
              description="blocks movement and line of fire"),
    "c": Tile(name="cover", walkable=True, cover=True, color=(96, 110, 70), minimap=(96, 110, 70),
              description="units standing on it take half damage and, unhurt for a few seconds, recover hit points"),
    "+": Tile(name="closed door", walkable=False, door="closed", color=FLOOR, minimap=FLOOR,
              description="blocks movement and line of fire until a unit opens it"),
    "/": Tile(name="open door", walkable=True, door="open", color=FLOOR, minimap=FLOOR,
              description="walkable"),
    "L": Tile(name="locked door", walkable=False, door="locked", color=FLOOR, minimap=FLOOR,
              description="a closed door that a unit opens by spending a key"),
    "a": Tile(name="ammo crate", walkable=True, pickup=PickupSpec("ammo", 60), color=FLOOR, minimap=FLOOR,
              description="floor with a crate on it; picked up for reserve ammunition"),
    "k": Tile(name="key", walkable=True, pickup=PickupSpec("key", 1), color=FLOOR, minimap=FLOOR,
              description="floor with a key on it; picked up to open a locked door"),
    "$": Tile(name="resource field", walkable=False, field=FieldSpec(amount=1500, slots=2), color=FLOOR,
              minimap=(70, 150, 190),
              description="a field of resources workers mine from beside it (blocks movement until mined out)"),
}
