"""Plain-data components. No behaviour lives here.

Every component is a slotted dataclass whose fields are ints, floats, strs,
bools or lists of those (possibly nested). That restriction is what lets the
sync hash and the snapshot format treat all of them the same way: see
``REGISTRY``, ``FIELDS``, ``ROW_OF`` and ``from_row`` below.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from operator import attrgetter

from ai.brain import BrainState


@dataclass(slots=True)
class Position:
    """Centre of the entity in tile units (x right, y down)."""
    x: float
    y: float


@dataclass(slots=True)
class Mover:
    """Ability to walk, and the path currently being followed.

    ``path`` is a flat list of waypoint coordinates [x0, y0, x1, y1, ...] in
    tile units; ``index`` is the waypoint being walked to. An empty path means
    standing still.
    """
    speed: float               # tiles per second
    path: list = field(default_factory=list)
    index: int = 0
    moving: bool = False


@dataclass(slots=True)
class Health:
    hp: float
    max_hp: float
    last_hit: int = -1_000_000     # tick the unit last lost hit points


@dataclass(slots=True)
class Team:
    team: int


@dataclass(slots=True)
class Weapon:
    range: float               # tiles
    damage: float
    cooldown: int              # ticks between shots
    accuracy: float = 1.0      # chance a shot hits
    ready_in: int = 0          # ticks until the next shot is possible
    target: int = 0            # entity being fired at; 0 = none


@dataclass(slots=True)
class Ammo:
    clip: int
    clip_size: int
    reserve: int
    reload_ticks: int


@dataclass(slots=True)
class Squad:
    squad: int


@dataclass(slots=True)
class Selectable:
    radius: float = 0.4


@dataclass(slots=True)
class UnitKind:
    kind: str


@dataclass(slots=True)
class Controller:
    """Which decider owns this unit: 'scripted', 'player', 'idle', ..."""
    ai: str


@dataclass(slots=True)
class Stance:
    """How a unit acts on its own when it has no order (systems/reflexes.py): mode 'aggressive', 'defensive',
    'hold' or 'passive'. ``attacker``/``hit_tick``: who last hit it, and when (set by combat); ``anchor_x``/
    ``anchor_y``: where it stood when a reflex took it off (the leash is measured from there; ``anchored``
    false: no reflex chase under way)."""
    mode: str = "aggressive"
    attacker: int = 0
    hit_tick: int = -1_000_000
    anchored: bool = False
    anchor_x: float = 0.0
    anchor_y: float = 0.0


@dataclass(slots=True)
class Inventory:
    keys: int = 0


@dataclass(slots=True)
class Door:
    """A door tile. state: 'open', 'closed' or 'locked'."""
    tx: int
    ty: int
    state: str


@dataclass(slots=True)
class Pickup:
    """An item lying on a tile: kind 'ammo' (amount rounds) or 'key'."""
    tx: int
    ty: int
    kind: str
    amount: int = 0


@dataclass(slots=True)
class SquadOrder:
    """A squad's standing order from its commander (on the squad's own entity). kind: none, hold, move, attack."""
    team: int
    squad: int
    kind: str = "none"
    region: int = -1
    x: float = 0.0
    y: float = 0.0
    since: int = -1              # tick the order was given


@dataclass(slots=True)
class ResourceField:
    """A field of resources on tile (tx, ty): ``amount`` left to mine; at most ``slots`` workers mine it at once.

    A field blocks movement; mined out, it is removed and its tile is floor."""
    tx: int
    ty: int
    amount: int
    slots: int


@dataclass(slots=True)
class Stockpile:
    """A team's resources, on the team's own entity: what it has now, and all it has ever delivered."""
    team: int
    amount: int
    gathered: int = 0


@dataclass(slots=True)
class Building:
    """A building of type ``kind`` covering tiles [tx, tx + w) x [ty, ty + h), which block movement.

    It is under construction while ``work < work_needed`` (both in builder-ticks: each worker constructing it adds
    one per tick) and complete afterwards; a building that starts complete has ``work == work_needed``."""
    kind: str
    tx: int
    ty: int
    w: int
    h: int
    work: int
    work_needed: int

    @property
    def done(self) -> bool:
        return self.work >= self.work_needed


@dataclass(slots=True)
class Worker:
    """A unit that gathers and builds: it carries up to ``capacity`` resources and mines one every ``mine_ticks``.

    ``carrying`` is its load now; ``field`` the field it last mined (0 = none); ``mining`` the ticks spent on the
    resource it is mining now."""
    capacity: int
    mine_ticks: int
    can_build: bool
    carrying: int = 0
    field: int = 0
    mining: int = 0


@dataclass(slots=True)
class Rally:
    """Where a building sends the units it trains (``on`` False: they stay beside it)."""
    x: float = 0.0
    y: float = 0.0
    on: bool = False


@dataclass(slots=True)
class Memory:
    """What an NPC's perception remembers between decisions (decider state, not world state)."""
    seen_x: float = 0.0
    seen_y: float = 0.0
    seen_at: float = -1e9          # game seconds of the last sighting
    last_hp: float = -1.0
    hurt_at: float = -1e9          # game seconds hit points last dropped
    ignore_intel_before: float = -1e9   # team sightings up to this time were checked and found empty
    recon_done: bool = False       # the enemy's starting ground has been scouted
    order_seen: int = -1           # the tick its squad's order was given, as it last perceived it (a newer is news)


ALL_COMPONENTS: tuple[type, ...] = (
    Position, Mover, Health, Team, Weapon, Ammo, Squad, Selectable, UnitKind,
    Controller, Inventory, Door, Pickup, SquadOrder, ResourceField, Stockpile, Building, Worker, Rally, Stance,
)


#: Deciders' private state: saved in snapshots, but outside the sync hash (a replay re-applies the recorded
#: requests with every decider switched off, so their state is not part of what must replay identically).
#: ``BrainState`` (ai/brain.py) is an NPC's behavior-stack state; its wire name in saves is "Brain".
DECIDER_COMPONENTS: tuple[type, ...] = (BrainState, Memory)

#: Fields of world components that are deciders' private state, like ``DECIDER_COMPONENTS``: the world's column
#: encoding (the sync hash, a snapshot's world) holds their defaults, and snapshots carry the values beside it. A
#: Stance's post is where a reflex (a decider: systems/reflexes.py) took the unit from; a replay runs no decider,
#: so it cannot set it again, and a replay of a player's match did not verify while the hash held it.
DECIDER_FIELDS: dict[type, tuple[str, ...]] = {Stance: ("anchored", "anchor_x", "anchor_y")}

#: component name -> class, in a fixed order (the wire names in saves)
REGISTRY: dict[str, type] = {cls.__name__: cls for cls in ALL_COMPONENTS}
DECIDER_REGISTRY: dict[str, type] = {"Brain": BrainState, "Memory": Memory}

#: class -> tuple of field names in declaration order
FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls)) for cls in ALL_COMPONENTS + DECIDER_COMPONENTS
}


def is_plain(value, depth: int = 0) -> bool:
    """None, bool, int, float, str, or lists / str-keyed dicts of those (nested at most 16 deep)."""
    if value is None or type(value) in (bool, int, float, str):
        return True
    if depth >= 16:
        return False
    if isinstance(value, (list, tuple)):
        return all(is_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(type(k) is str and is_plain(v, depth + 1) for k, v in value.items())
    return False


_TYPE_CHECKS = {
    "float": lambda v: type(v) is float,
    "int": lambda v: type(v) is int,
    "bool": lambda v: type(v) is bool,
    "str": lambda v: type(v) is str,
    "list": lambda v: isinstance(v, (list, tuple)) and is_plain(v),
    "dict": lambda v: isinstance(v, dict) and is_plain(v),
}

#: class -> tuple of field type names ('float', 'int', 'bool', 'str', 'list', 'dict')
FIELD_TYPES: dict[type, tuple[str, ...]] = {
    cls: tuple(str(f.type) for f in fields(cls)) for cls in ALL_COMPONENTS + DECIDER_COMPONENTS
}


def _getter(cls):
    names = FIELDS[cls]
    if len(names) == 1:
        name = names[0]
        return lambda c: (getattr(c, name),)
    return attrgetter(*names)


#: class -> fast function returning the field values as a tuple (lists not copied: for packing at once)
ROW_OF = {cls: _getter(cls) for cls in ALL_COMPONENTS + DECIDER_COMPONENTS}


def from_row(cls: type, row: list):
    """Rebuild a component from a ``ROW_OF`` row; ValueError names the first bad field."""
    names = FIELDS[cls]
    if not isinstance(row, (list, tuple)) or len(row) != len(names):
        raise ValueError(f"{cls.__name__} needs {len(names)} fields")
    for name, kind, value in zip(names, FIELD_TYPES[cls], row):
        if not _TYPE_CHECKS[kind](value):
            raise ValueError(f"{cls.__name__}.{name} should be {kind}, got {type(value).__name__}")
    return cls(*[copy.deepcopy(v) if isinstance(v, (list, tuple, dict)) else v for v in row])
