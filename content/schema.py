"""The content schema: one pydantic model per file kind.

Every field carries a type, a default where one makes sense, its allowed range
and a one-line description, so the reference documentation can be generated
from these models and cannot drift from what the loader enforces.
Models are strict: no silent "5" -> 5 coercion, no unknown keys, no NaN/inf.
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

ID_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
Byte = Annotated[int, Field(ge=0, le=255)]
Coord = Annotated[int, Field(ge=0, le=4095)]

#: tile characters a map may use, and what they mean
TILE_LEGEND: dict[str, str] = {
    ".": "floor",
    "#": "wall (blocks movement)",
    "c": "cover (walkable; units standing on it take half damage)",
    "+": "closed door (blocks movement until opened)",
    "/": "open door (walkable)",
    "L": "locked door (blocks movement; opening needs a key)",
    "a": "ammo crate on floor (walkable; picked up for reserve ammunition)",
    "k": "key on floor (walkable; picked up to open a locked door)",
}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False,
                              frozen=True)


class WeaponDef(Strict):
    range: float = Field(gt=0, le=40, description="firing range in tiles")
    damage: float = Field(ge=0, le=10000, description="hit points removed per shot")
    cooldown: float = Field(gt=0, le=60, description="seconds between shots")
    accuracy: float = Field(default=0.75, ge=0, le=1, description="chance that a shot hits (rolled on the world's seeded RNG)")


class AmmoDef(Strict):
    clip: int = Field(ge=1, le=1000, description="rounds in a full clip")
    reserve: int = Field(default=0, ge=0, le=100000, description="rounds carried besides the clip")
    reload: float = Field(default=2.0, gt=0, le=60, description="seconds a reload takes")


class UnitDef(Strict):
    """A unit type (file kind ``units/``)."""
    id: str = Field(pattern=ID_PATTERN, description="stable id other files refer to")
    name: str = Field(default="", max_length=60, description="display name (defaults to the id)")
    hp: float = Field(gt=0, le=100000, description="maximum and starting hit points")
    speed: float = Field(gt=0, le=20, description="walking speed in tiles per second")
    radius: float = Field(default=0.35, ge=0.1, le=0.5, description="selection and drawing radius in tiles")
    sight: float = Field(default=10.0, gt=0, le=100, description="how far the unit notices enemies, in tiles")
    weapon: WeaponDef = Field(description="the unit's gun")
    ammo: AmmoDef = Field(description="clip, reserve and reload time")


class MapDef(Strict):
    """A tile map (file kind ``maps/``). ``tiles`` is a multi-line string, one row a line."""
    id: str = Field(pattern=ID_PATTERN, description="stable id scenarios refer to")
    name: str = Field(default="", max_length=60, description="display name")
    tiles: str = Field(min_length=1, max_length=200_000,
                       description="rows of tile characters: " + ", ".join(
                           f"'{k}' {v.split(' (')[0]}" for k, v in TILE_LEGEND.items()))


class SpawnDef(Strict):
    unit: str = Field(pattern=ID_PATTERN, description="unit type id to spawn")
    at: list[Coord] = Field(min_length=2, max_length=2, description="tile [x, y] the group is centred on")
    count: int = Field(default=1, ge=1, le=5000, description="units in the group, placed on the nearest free floor tiles")
    squad: int = Field(default=0, ge=0, le=1000, description="squad number the group belongs to")


class TeamDef(Strict):
    name: str = Field(min_length=1, max_length=30, description="team name shown in summaries")
    color: list[Byte] = Field(min_length=3, max_length=3, description="RGB colour, each 0-255")
    ai: Literal["scripted", "player", "idle"] = Field(
        default="scripted", description="who controls the team: scripted attack-nearest AI, the player, or nobody")
    spawns: list[SpawnDef] = Field(min_length=1, max_length=200, description="groups of units the team starts with")


class ScenarioDef(Strict):
    """A match setup (file kind ``scenarios/``)."""
    id: str = Field(pattern=ID_PATTERN, description="name used by `rts match --scenario`")
    name: str = Field(default="", max_length=60, description="display name")
    map: str = Field(pattern=ID_PATTERN, description="map id")
    max_ticks: int = Field(default=9000, ge=1, le=10_000_000, description="ticks after which the match is a draw")
    teams: list[TeamDef] = Field(min_length=2, max_length=8, description="the sides, team 0 first")


#: directory name -> model
KINDS: dict[str, type[Strict]] = {
    "units": UnitDef,
    "maps": MapDef,
    "scenarios": ScenarioDef,
}
