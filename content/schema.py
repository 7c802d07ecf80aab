"""The content schema: one pydantic model per file kind.

Every field carries a type, a default where one makes sense, its allowed range
and a one-line description, so the reference documentation can be generated
from these models and cannot drift from what the loader enforces.
Models are strict: no silent "5" -> 5 coercion, no unknown keys, no NaN/inf.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from ai import bt
from ai.portfolio import SCRIPTS as PORTFOLIO_SCRIPTS

ID_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
Byte = Annotated[int, Field(ge=0, le=255)]
Coord = Annotated[int, Field(ge=0, le=4095)]

class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False,
                              frozen=True)


class WeaponDef(Strict):
    range: float = Field(gt=0, le=40, description="firing range in tiles")
    damage: float = Field(ge=0, le=10000, description="hit points removed per shot")
    cooldown: float = Field(gt=0, le=60, description="seconds between shots")
    accuracy: float = Field(default=0.75, ge=0, le=1, description="chance that a shot hits (a roll keyed on the seed, the tick, the shooter's team and rank)")


class AmmoDef(Strict):
    clip: int = Field(ge=1, le=1000, description="rounds in a full clip")
    reserve: int = Field(default=0, ge=0, le=100000, description="rounds carried besides the clip")
    reload: float = Field(default=2.0, gt=0, le=60, description="seconds a reload takes")


IdList = list[Annotated[str, Field(pattern=ID_PATTERN)]]


class WorkerDef(Strict):
    """What a worker does besides fighting: gather resources and construct buildings."""
    gather_rate: float = Field(default=2.0, gt=0, le=100, description="resources mined per second at a field")
    capacity: int = Field(default=8, ge=1, le=1000, description="resources carried back per trip")
    build: bool = Field(default=True, description="can construct buildings (and help construct them)")


class LookDef(Strict):
    """How a unit or building type is drawn, so every type is told apart at a glance. A unit is its ``shape`` in
    its team's colour with a mark of ``colour`` in the middle (or ``sprite``, tinted in the team colour); a
    building is its footprint in its team's colour with its initial in ``colour`` (or ``sprite`` over the
    footprint). ``shape`` and ``size`` are for units."""
    shape: Literal["circle", "square", "triangle", "diamond"] = Field(default="circle",
                                                                     description="a unit's outline")
    colour: list[Annotated[int, Field(ge=0, le=255)]] = Field(
        default_factory=lambda: [250, 250, 250], min_length=3, max_length=3,
        description="the type's mark: a unit's centre mark, a building's letter (red, green, blue 0-255)")
    size: float = Field(default=0.0, ge=0, le=2.0, description="a unit's drawn radius in tiles (0: its radius)")
    sprite: str = Field(default="", max_length=200,
                        description="a PNG image inside the mod, as a path relative to the mod's folder (never "
                                    "outside it), or an Arcade resource (':resources:images/...'); drawn tinted in "
                                    "the team's colour instead of the shape")


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
    brain: str = Field(default="", pattern=r"^([a-z][a-z0-9_]{0,39})?$",
                       description="brain id that drives this unit on a team with ai = \"brain\" (empty: none)")
    cost: int = Field(default=50, ge=0, le=100_000, description="resources a building pays to train it")
    build_time: float = Field(default=15.0, gt=0, le=3600, description="seconds a building takes to train it")
    population: int = Field(default=1, ge=0, le=100, description="population it takes up while alive or in training")
    requires: IdList = Field(default_factory=list, max_length=16,
                             description="building types the team must have completed before it can be trained")
    worker: WorkerDef | None = Field(default=None, description="gathering and construction (workers only)")
    stance: Literal["aggressive", "defensive", "hold", "passive"] = Field(
        default="aggressive", description="what the unit does without an order (a player's units; the player "
        "can change it): aggressive: attacks enemies in sight and chases within a leash; defensive: returns fire "
        "and fires at enemies in range, chasing briefly; hold: fires from where it stands; passive: never fires "
        "on its own")
    look: LookDef = Field(default_factory=LookDef, description="how it is drawn")


class BuildingDef(Strict):
    """A building type (file kind ``buildings/``): a footprint on the grid that blocks movement, built by workers."""
    id: str = Field(pattern=ID_PATTERN, description="stable id other files refer to")
    name: str = Field(default="", max_length=60, description="display name (defaults to the id)")
    hp: float = Field(gt=0, le=1_000_000, description="hit points when complete (construction starts at a tenth)")
    size: list[Annotated[int, Field(ge=1, le=8)]] = Field(min_length=2, max_length=2,
                                                          description="footprint [width, height] in tiles")
    cost: int = Field(default=100, ge=0, le=1_000_000, description="resources paid when construction begins")
    build_time: float = Field(default=30.0, gt=0, le=3600,
                              description="seconds one worker takes to construct it (each helper adds one more)")
    population: int = Field(default=0, ge=0, le=200, description="population cap it adds once complete")
    drop_off: bool = Field(default=False, description="workers deliver resources here")
    resupply: float = Field(default=0.0, ge=0, le=50, description="> 0: the team's units within this many tiles of "
                                                                   "it refill their reserve ammunition (once complete)")
    headquarters: bool = Field(default=False, description="counts as a headquarters for the 'headquarters' victory")
    trains: IdList = Field(default_factory=list, max_length=16, description="unit types it trains (5 in its queue)")
    requires: IdList = Field(default_factory=list, max_length=16,
                             description="building types the team must have completed before it can be placed")
    sight: float = Field(default=8.0, gt=0, le=100, description="how far it sees, in tiles")
    weapon: WeaponDef | None = Field(default=None, description="a gun: the building fires at enemies in range "
                                                              "on its own once complete (a turret)")
    look: LookDef = Field(default_factory=lambda: LookDef(colour=[20, 20, 24]),
                          description="how it is drawn (its letter's colour, or a sprite over its footprint)")

    def footprint(self, cx: int, cy: int) -> tuple[int, int, int, int]:
        """(left, top, width, height) of this building centred on tile (cx, cy); an even side puts the centre
        tile left of (or above) the middle."""
        w, h = self.size
        return cx - (w - 1) // 2, cy - (h - 1) // 2, w, h


#: the largest map: a side and the tiles in all. Loading one costs most in the commander's region cut
#: (ai/regions.py; the nav grid and the fog's sight rays cost far less); docs/content.md states the budget
MAX_MAP_SIDE = 160
MAX_MAP_TILES = 19_200          # 160 x 120: room for the 10,000-unit garrison map (157 x 116)


class MapDef(Strict):
    """A tile map (file kind ``maps/``). ``tiles`` is a multi-line string, one row a line. At most 160 tiles a
    side and 19,200 in all (160 x 120, room for the garrison map's armies of 10,000): loading a map costs most in
    the commander's region cut (ai/regions.py, once per map and process). Measured at 160 x 120 with
    ``python -m benchmarks.map_cut``, one run each on a shared 2-core machine under a load of about 4, cut as one
    region (a commander with regions = 1): a one-tile winding corridor 0.1 s, a two-tile one 0.3 s, a one-tile
    maze 0.1 s, an open field 0.2 s, 9 x 9 rooms 2.3 s, and the worst shape found, the maze with 300 extra
    openings (loops everywhere) 24 s; an open field as the default 20 regions 1.8 s; the garrison map (157 x 116,
    twenty rooms) 0.2 s (before the pruned and tree medoids: 26, 34, 18, 25, 20 and 25 s, 7.7 s and 0.4 s). The
    nav grid and the fog's sight rays cost far less (linear in the tiles)."""
    id: str = Field(pattern=ID_PATTERN, description="stable id scenarios refer to")
    name: str = Field(default="", max_length=60, description="display name")
    tiles: str = Field(min_length=1, max_length=200_000,
                       description="rows of tile characters (the Map tiles table lists them); 2 to 160 "
                                   "tiles each way and at most 19,200 tiles (160 x 120) in all")
    starts: list[Annotated[list[Coord], Field(min_length=2, max_length=2)]] = Field(
        default_factory=list, max_length=16,
        description="start locations [x, y], the centre tile of a team's headquarters (scenarios pick them by index)")


class SpawnDef(Strict):
    unit: str = Field(pattern=ID_PATTERN, description="unit type id to spawn")
    at: list[Coord] | None = Field(default=None, min_length=2, max_length=2,
                                   description="tile [x, y] the group is centred on (default: the team's start "
                                               "location, beside its headquarters)")
    count: int = Field(default=1, ge=1, le=5000, description="units in the group, placed on the nearest free floor tiles")
    squad: int = Field(default=0, ge=0, le=1000, description="squad number the group belongs to")


class BuildingSpawnDef(Strict):
    building: str = Field(pattern=ID_PATTERN, description="building type id")
    at: list[Coord] | None = Field(default=None, min_length=2, max_length=2,
                                   description="its centre tile [x, y] (default: the team's start location)")


class TeamDef(Strict):
    name: str = Field(min_length=1, max_length=30, description="team name shown in summaries")
    color: list[Byte] = Field(min_length=3, max_length=3, description="RGB colour, each 0-255")
    ai: Literal["scripted", "brain", "player", "idle"] = Field(
        default="scripted", description="who controls the team: the scripted attack-nearest AI, each unit's brain, "
                                        "the player, or nobody")
    spawns: list[SpawnDef] = Field(default_factory=list, max_length=200,
                                   description="groups of units the team starts with")
    commander: str = Field(default="", description="commander profile that orders the team's squads ('' = none)")
    side: int = Field(default=-1, ge=-1, le=7, description="teams with the same side are allies (-1: a side of "
                                                           "its own, the team's index)")
    start: int = Field(default=-1, ge=-1, le=15, description="the map start location the team begins at (-1: none)")
    stock: int = Field(default=0, ge=0, le=1_000_000, description="resources the team starts with")
    buildings: list[BuildingSpawnDef] = Field(default_factory=list, max_length=64,
                                              description="complete buildings the team starts with")
    strategy: str = Field(default="", description="strategy profile that runs the team's economy and army "
                                                  "('' = none; strategies/ files)")


MAX_PLAYOUTS = 10_000
MAX_LEAVES_PER_BATCH = 1250     # playouts / batch: tree leaves (UCT) or rounds (EO) one decision runs
MAX_PORTFOLIO_PLAYOUTS = 1000   # the portfolio search's playouts run one at a time (plain Python, not batched)


class CommanderDef(Strict):
    """A tactical commander profile (file kind ``commanders/``): how a team's squads are given orders.

    The search is bounded by playouts only, so every run of a seed decides the same (the wall-clock
    ``time_budget_ms`` of earlier versions is refused with a message that says so). The work of one decision
    grows with playouts x horizon x regions and with playouts / batch (one tree leaf per batch); the maxima keep
    one decision within 2 s on one core (docs/rules/commander.md has the measurements)."""
    id: str = Field(pattern=ID_PATTERN, description="stable id scenarios and `rts tournament` refer to")
    name: str = Field(default="", max_length=60, description="display name")
    algorithm: Literal["uct", "eo", "portfolio", "scripted"] = Field(
        default="uct", description="uct: bandit tree search; eo: flat Monte Carlo (Expected Outcome); portfolio: "
                                   "greedy search over scripted squad behaviours (SparCraft's Portfolio Greedy "
                                   "Search); scripted: every squad attacks the nearest enemy squad")
    playouts: int = Field(default=2000, ge=1, le=MAX_PLAYOUTS,
                          description="search budget in abstract playouts (deterministic: never wall-clock); at most "
                                      f"{MAX_LEAVES_PER_BATCH} x batch. At every maximum (10,000 playouts, horizon 6, "
                                      "64 regions) one decision stays within 2 s on one core")
    exploration: float = Field(default=0.7, ge=0, le=10, description="UCB1 exploration constant")
    horizon: int = Field(default=3, ge=1, le=6, description="rounds (simulate steps) searched ahead")
    playout: Literal["random", "scripted"] = Field(default="scripted", description="playout policy for both sides")
    batch: int = Field(default=8, ge=1, le=1024, description="playouts per tree leaf (run together)")
    leaves: int = Field(default=8, ge=1, le=256, description="tree leaves gathered per numpy batch")
    evaluation: Literal["strength", "hp", "count", "ltd2"] = Field(
        default="strength", description="force balance: hit points x damage rate, hit points, or unit count (each "
                                        "own / (own + enemy)); ltd2: SparCraft's LTD2, the sum over units of "
                                        "sqrt(hp) x damage rate, own minus enemy")
    step_seconds: float = Field(default=10.0, gt=0, le=120, description="game seconds one simulate step covers")
    every: int = Field(default=90, ge=1, le=100_000, description="ticks between decisions")
    regions: int = Field(default=20, ge=1, le=64, description="how many regions the map is cut into (k-means)")
    portfolio: list[Literal[PORTFOLIO_SCRIPTS]] = Field(
        default=list(PORTFOLIO_SCRIPTS), min_length=1, max_length=len(PORTFOLIO_SCRIPTS),
        description="portfolio search: the scripts a squad may follow, the first the default every squad starts on")
    iterations: int = Field(default=1, ge=1, le=10, description="portfolio search: greedy improvement passes over "
                                                                 "the squads per improvement")
    responses: int = Field(default=0, ge=0, le=5, description="portfolio search: times the opponent's scripts are "
                                                              "improved against ours (ours again after each)")
    determinize: bool = Field(default=False, description="portfolio and eo: sample where hidden enemy squads are "
                                                         "for each playout instead of planning on one estimate")
    samples: int = Field(default=4, ge=1, le=32, description="portfolio search with determinize: sampled states "
                                                            "each evaluation averages (one playout each)")
    hidden_spread: int = Field(default=2, ge=0, le=6, description="determinize: a hidden squad is sampled in a "
                                                                 "region at most this many hops from its estimate")
    sees_all: bool = Field(default=False, description="ignore fog of war: its team's deciders see every enemy "
                                                      "(a difficulty option; `rts explain` says so)")

    @model_validator(mode="before")
    @classmethod
    def _no_wall_clock(cls, data):
        if isinstance(data, dict) and "time_budget_ms" in data:
            raise ValueError("time_budget_ms is gone: a commander's search is bounded by 'playouts' only, so two "
                             "runs of a seed decide alike (remove the key; raise playouts for a stronger search)")
        return data

    @model_validator(mode="after")
    def _portfolio_and_sampling(self):
        if len(set(self.portfolio)) != len(self.portfolio):
            raise ValueError("portfolio names a script twice")
        if self.algorithm == "portfolio" and self.playouts > MAX_PORTFOLIO_PLAYOUTS:
            raise ValueError(f"playouts {self.playouts}: the portfolio search runs at most {MAX_PORTFOLIO_PLAYOUTS} "
                             f"(its playouts are not batched)")
        if self.determinize and self.algorithm not in ("portfolio", "eo"):
            raise ValueError(f"determinize works with algorithm portfolio or eo, not {self.algorithm} (a UCT tree "
                             f"holds the opponents' moves for one placement)")
        return self

    @model_validator(mode="after")
    def _bounded_rounds(self):
        if self.algorithm != "scripted" and self.playouts > MAX_LEAVES_PER_BATCH * self.batch:
            raise ValueError(f"playouts {self.playouts} with batch {self.batch} is {-(-self.playouts // self.batch)} "
                             f"search rounds; at most {MAX_LEAVES_PER_BATCH} (raise batch to at least "
                             f"{-(-self.playouts // MAX_LEAVES_PER_BATCH)} or lower playouts)")
        return self


class PlannerDef(Strict):
    """The numbers of a planned strategy (a strategy profile's ``planner`` table; ai/strategy.py ``Tuning``,
    docs/rules/strategy.md)."""
    worker_target: int = Field(default=16, ge=1, le=100, description="gathering workers it wants")
    barracks: int = Field(default=2, ge=1, le=10, description="barracks it builds before saving for the army")
    max_barracks: int = Field(default=4, ge=1, le=12, description="barracks it builds while money piles up")
    barracks_at: int = Field(default=0, ge=0, le=100, description="workers it has before its first barracks, "
                             "unless an enemy army has been seen or its base is threatened (0: at once)")
    turrets: int = Field(default=0, ge=0, le=10, description="turrets the tech posture builds (one more when "
                                                             "the base is threatened)")
    armory: bool = Field(default=True, description="the tech posture builds an armory (heavy units)")
    guard_army: int = Field(default=4, ge=0, le=200, description="army units kept before more buildings (tech "
                            "waits for them; under a threat with fewer, no worker is trained)")
    scout_workers: int = Field(default=0, ge=0, le=100, description="workers it has when one walks to where the "
                               "enemy should be, once, if no enemy building is known yet (0: never)")
    attack_army: int = Field(default=12, ge=1, le=200, description="army units before attacking is considered")
    attack_ratio: float = Field(default=1.5, gt=0.6, le=10.0, description="own army value over the enemy's "
                                "known army value at which attacking scores highest")
    all_in_army: int = Field(default=40, ge=1, le=200, description="army units at which it attacks (emergency)")
    defend_value: float = Field(default=150.0, gt=0, le=10000.0, description="enemy army value near the base "
                                "that forces the defend posture (emergency)")
    economy_weight: float = Field(default=1.0, gt=0, le=10.0, description="weight of the economy posture")
    army_weight: float = Field(default=1.0, gt=0, le=10.0, description="weight of the army posture")
    tech_weight: float = Field(default=1.0, gt=0, le=10.0, description="weight of the tech posture")
    margin: float = Field(default=0.1, ge=0, le=1.0, description="score a posture must gain to replace another")
    min_hold: float = Field(default=10.0, ge=0, le=600.0, description="seconds a posture holds before an "
                                                                     "ordinary switch")
    bases: int = Field(default=1, ge=1, le=6, description="bases it wants: its start and headquarters it builds "
                       "by unclaimed fields (1: it never expands)")
    expand_below: int = Field(default=9000, ge=0, le=1_000_000, description="it expands when the fields its "
                              "bases reach hold fewer resources than this")
    flee: float = Field(default=6.0, ge=0, le=30.0, description="tiles: a worker flees armed enemies this near "
                                                                "(0: never)")
    militia: float = Field(default=0.0, ge=0, le=100.0, description="the free workers attack the enemies that "
                           "threaten the base when they and the army at home are at least this many times as many "
                           "(0: never; they flee armed enemies)")


class StrategyDef(Strict):
    """A strategy profile (file kind ``strategies/``): how a team runs its economy, builds and attacks.

    The scripted strategy (systems/strategy.py) keeps ``workers`` gatherers busy, places the ``build`` order's
    buildings in turn (supply depots whenever the population cap is near), trains its army in the ``army`` mix
    and attacks the nearest enemy with everything once the army reaches ``attack_at`` units.
    """
    id: str = Field(pattern=ID_PATTERN, description="stable id scenarios refer to")
    name: str = Field(default="", max_length=60, description="display name")
    algorithm: Literal["scripted", "planned"] = Field(
        default="scripted", description="scripted: a fixed build order and mix; planned: a posture by utility "
                                        "and an HTN plan (docs/rules/strategy.md), tuned by ``planner``")
    planner: PlannerDef = Field(default_factory=PlannerDef, description="the planned strategy's numbers")
    workers: int = Field(default=8, ge=0, le=200, description="gathering workers it keeps (it trains up to this)")
    build: IdList = Field(default_factory=list, max_length=64,
                          description="buildings to place, in order (a building type listed twice is built twice)")
    supply: str = Field(default="depot", pattern=ID_PATTERN,
                        description="the building it adds whenever the population cap is near")
    supply_margin: int = Field(default=3, ge=0, le=50, description="build supply when the free population is this low")
    army: dict[Annotated[str, Field(pattern=ID_PATTERN)], Annotated[float, Field(gt=0, le=1000)]] = Field(
        default_factory=dict, max_length=16, description="unit type -> weight in the army mix it trains")
    attack_at: int = Field(default=8, ge=1, le=500, description="army size at which it attacks")
    workers_fight: bool = Field(default=False, description="its workers join the attack (a worker rush)")
    max_army: int = Field(default=200, ge=1, le=1000, description="it stops training army units at this many")
    sees_all: bool = Field(default=False, description="ignore fog of war: its team's deciders see every enemy "
                                                      "(a difficulty option; `rts explain` says so)")


class DifficultyDef(Strict):
    """A difficulty level (file kind ``difficulties/``): how an AI opponent plays, chosen in `rts play`'s start
    menu, `rts play --difficulty` and `rts match --difficulty TEAM=LEVEL`. It changes the team's commander
    (search budget, how often it decides), its strategy in economy scenarios, how fast its units react (their
    deciders think ``think_every`` times less often) and its income."""
    id: str = Field(pattern=ID_PATTERN, description="stable id (the level's name on the command line)")
    name: str = Field(default="", max_length=60, description="display name")
    rank: int = Field(default=0, ge=0, le=100, description="order in menus and reports, easiest first")
    description: str = Field(default="", max_length=200, description="one line for the start menu")
    commander: str = Field(default="", pattern=r"^([a-z][a-z0-9_]{0,39})?$",
                           description="commander profile for the team's squads ('' = the scenario's)")
    strategy: str = Field(default="", pattern=r"^([a-z][a-z0-9_]{0,39})?$",
                          description="strategy profile in economy scenarios ('' = the scenario's)")
    think_every: int = Field(default=1, ge=1, le=10, description="the team's units, brains and strategy decide "
                             "this many times less often (a slower reaction)")
    income: float = Field(default=1.0, ge=0.25, le=4.0, description="multiplies what the team's workers deliver")
    sees_all: bool = Field(default=False, description="its deciders ignore fog of war (a cheat, said in "
                                                      "`rts explain`)")


class ScenarioDef(Strict):
    """A match setup (file kind ``scenarios/``)."""
    id: str = Field(pattern=ID_PATTERN, description="name used by `rts match --scenario`")
    name: str = Field(default="", max_length=60, description="display name")
    map: str = Field(pattern=ID_PATTERN, description="map id")
    max_ticks: int = Field(default=9000, ge=1, le=1_080_000,
                           description="ticks after which the match ends: decided by score, a draw only on equal "
                                       "scores; at most 10 hours of game time (1,080,000 ticks at 30 Hz), and a "
                                       "scenario starts with at most 10,000 units in all")
    fog: bool = Field(default=True, description="fog of war: each team sees only what its units and buildings "
                                                "see, remembers buildings as last seen (false: everyone sees all)")
    victory: Literal["elimination", "headquarters"] = Field(
        default="elimination", description="elimination: a side loses when it has no units and no buildings left; "
                                           "headquarters: also when its last headquarters falls")
    calm_think_every: int = Field(
        default=0, ge=0, le=300,
        description="level of detail for big battles: an NPC that sees no enemy (within its sight and in line of "
                    "sight, as its facts would say), that was not hurt since it last decided and that has perceived its "
                    "squad's latest order decides only every this many ticks instead of its brain's think_every (0: "
                    "off; docs/rules/utility.md, 'Calm NPCs')")
    teams: list[TeamDef] = Field(min_length=2, max_length=8, description="the teams, team 0 first")


# -- brains -------------------------------------------------------------------------------------------------
Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
Scalar = Union[bool, int, float, str]
#: a constant, or "$name" for a fact / blackboard value read when the node runs
Param = Union[bool, int, float, str]


class ConditionDef(Strict):
    """A comparison ``fact op value`` (gates, emergencies, guards, transitions, condition nodes)."""
    fact: Name = Field(description="fact (or blackboard key) to read")
    op: Literal["==", "!=", "<", "<=", ">", ">="] = Field(default="==", description="comparison")
    value: Scalar = Field(default=True, description="constant to compare with (default true: 'fact is true')")


class CurveDef(Strict):
    """A response curve over the normalised input x in [0, 1]; its output is clamped to [0, 1]."""
    type: Literal["linear", "polynomial", "logistic", "logit", "step", "piecewise"] = Field(
        default="linear", description="linear: slope*x+intercept; polynomial: slope*(x-shift)^exponent+intercept; "
                                      "logistic: 1/(1+exp(-steepness*(x-midpoint))); logit: 0.5+ln(x/(1-x))/steepness; "
                                      "step: high if x >= threshold else low; piecewise: straight lines through points")
    slope: float | None = Field(default=None, description="linear, polynomial (default 1)")
    intercept: float | None = Field(default=None, description="linear, polynomial (default 0)")
    exponent: float | None = Field(default=None, description="polynomial, > 0 (default 2)")
    shift: float | None = Field(default=None, description="polynomial (default 0)")
    steepness: float | None = Field(default=None, description="logistic, logit; non-zero (default 10)")
    midpoint: float | None = Field(default=None, description="logistic (default 0.5)")
    threshold: float | None = Field(default=None, description="step (default 0.5)")
    low: float | None = Field(default=None, description="step: value below the threshold (default 0)")
    high: float | None = Field(default=None, description="step: value at or above the threshold (default 1)")
    points: list[Annotated[list[float], Field(min_length=2, max_length=2)]] | None = Field(
        default=None, max_length=64, description="piecewise: [[x, y], ...] with strictly increasing x")

    @model_validator(mode="after")
    def _builds(self):
        from ai.curves import Curve
        params = {k: v for k, v in self.model_dump(exclude={"type", "points"}).items() if v is not None}
        Curve(self.type, params, tuple(tuple(p) for p in self.points or ()))
        return self


class PreferenceDef(Strict):
    input: Name = Field(description="fact to read")
    range: list[float] = Field(min_length=2, max_length=2,
                               description="[low, high]: the input is normalised to (x - low) / (high - low), clamped")
    curve: CurveDef = Field(default_factory=CurveDef, description="response curve (default: linear identity)")
    weight: float = Field(default=1.0, gt=0, le=1e6, description="weight in the weighted geometric mean, > 0")

    @field_validator("range")
    @classmethod
    def _ordered(cls, value):
        if not value[0] < value[1]:
            raise ValueError(f"range low {value[0]} must be below high {value[1]}")
        return value


class CandidateDef(Strict):
    """A behaviour mode the utility selector can choose."""
    state: str = Field(default="", description="top-level HFSM state the mode runs (default: the candidate id)")
    gates: list[ConditionDef] = Field(default_factory=list, max_length=32,
                                      description="necessary conditions: any false -> ineligible")
    preferences: list[PreferenceDef] = Field(default_factory=list, max_length=32,
                                             description="scored inputs (none: score 1)")


class EmergencyDef(Strict):
    id: Name = Field(description="emergency name shown in decision records")
    when: list[ConditionDef] = Field(min_length=1, max_length=16, description="all must hold")
    candidate: Name = Field(description="candidate to switch to, bypassing hysteresis (never its gates)")


class UtilityDef(Strict):
    margin: float = Field(default=0.1, ge=0, le=1, description="an ordinary switch needs new - current > margin")
    min_hold: float = Field(default=0.3, ge=0, le=60, description="...and the current mode held this many seconds")


class TransitionDef(Strict):
    to: str = Field(description="state to go to")
    when: list[ConditionDef] = Field(default_factory=list, max_length=16, description="guard conditions, all must hold")
    on: Literal["", "done", "failed"] = Field(default="", description="also require the leaf's tree to have "
                                                                      "finished this way ('' = conditions only)")


class StateDef(Strict):
    parent: str = Field(default="", description="enclosing state ('' = top level)")
    initial: str = Field(default="", description="child entered first (composite states)")
    history: Literal["none", "shallow", "deep"] = Field(default="none",
                                                         description="re-enter the remembered child (shallow) or leaf (deep)")
    tree: str = Field(default="", description="behavior tree this leaf state runs ('' = none)")
    transitions: list[TransitionDef] = Field(default_factory=list, max_length=32,
                                             description="checked outermost state first while active")
    on_enter: dict[str, Param] = Field(default_factory=dict, description="blackboard writes when entered")
    on_exit: dict[str, Param] = Field(default_factory=dict, description="blackboard writes when left")


# -- behavior-tree nodes: one model per node type, generated from the specs beside the runtime (ai/bt.py) --------
#: the keys a node's shape adds before its own: how it names its children
_SHAPE_FIELDS = {
    bt.COMPOSITE: {"children": (list[str], Field(min_length=1, max_length=64,
                                                 description="child node names, in order"))},
    bt.DECORATOR: {"child": (str, Field(description="the decorated node"))},
    bt.LEAF: {},
}

#: bt.KEY_TYPES -> the pydantic type of a key's value
_KEY_TYPES = {
    "bool": bool,
    "int": int,
    "float": float,
    "text": str,
    "name": Name,
    "scalar": Scalar,
    "target": Union[int, str],
    "params": dict[str, Param],
    "conditions": list[ConditionDef],
}


def _key_field(key: bt.Key) -> tuple:
    """(type, Field) of one node key: its choices, bounds, default and description."""
    annotation = _KEY_TYPES[key.type]
    if key.choices:
        words = Literal[key.choices]
        annotation = words if key.type == "text" else Union[annotation, words]
    limits = {"ge": key.ge, "gt": key.gt, "le": key.le, "min_length": key.min_len, "max_length": key.max_len}
    limits = {k: v for k, v in limits.items() if v is not None}
    if key.default is bt.REQUIRED:
        return annotation, Field(description=key.doc, **limits)
    return annotation, Field(default=key.default, description=key.doc, **limits)


def _node_model(cls: type[bt.Node]) -> type[Strict]:
    """The strict model of node type ``cls``'s table: its shape's keys, ``type``, then its own keys."""
    fields = dict(_SHAPE_FIELDS[cls.shape])
    fields["type"] = (Literal[cls.type_name], ...)
    fields.update((key.name, _key_field(key)) for key in cls.keys)
    name = "".join(part.title() for part in cls.type_name.split("_")) + "NodeDef"
    return create_model(name, __base__=Strict, __doc__=cls.doc, __module__=__name__, **fields)


#: node type -> the model of its table, in ai.bt's order (the reference documents them in it)
NODE_DEFS: dict[str, type[Strict]] = {type_name: _node_model(cls) for type_name, cls in bt.NODE_TYPES.items()}
NodeDef = Annotated[Union[tuple(NODE_DEFS.values())], Field(discriminator="type")]


class TreeDef(Strict):
    root: str = Field(description="name of the root node")
    nodes: dict[str, NodeDef] = Field(min_length=1, max_length=512,
                                      description="node name -> node table (its 'type' picks the kind)")


class BrainDef(Strict):
    """An NPC brain (file kind ``brains/``): utility candidates choose a mode, the HFSM runs it, trees act."""
    id: str = Field(pattern=ID_PATTERN, description="stable id unit types refer to")
    name: str = Field(default="", max_length=60, description="display name")
    think_every: int = Field(default=6, ge=1, le=300, description="ticks between ordinary decisions (staggered by a slot each NPC keeps for life)")
    idle_state: str = Field(default="", description="state run while no candidate is eligible ('' = none; "
                                                    "must not hold reservations)")
    utility: UtilityDef = Field(default_factory=UtilityDef, description="switching thresholds")
    candidates: dict[str, CandidateDef] = Field(min_length=1, max_length=64, description="mode name -> candidate")
    emergencies: list[EmergencyDef] = Field(default_factory=list, max_length=16,
                                            description="checked in this order (first = most urgent)")
    states: dict[str, StateDef] = Field(min_length=1, max_length=256, description="HFSM state name -> state")
    trees: dict[str, TreeDef] = Field(default_factory=dict, max_length=128, description="tree name -> tree")
    goap: str = Field(default="", description="GOAP domain id (goap/ files) that 'achieve' nodes plan with")
    htn: str = Field(default="", description="HTN domain id (htn/ files) that 'perform' nodes plan with")
    max_replans: int = Field(default=3, ge=0, le=100, description="times a failed plan is made again before the "
                                                                  "plan node fails")


# -- planning domains ---------------------------------------------------------------------------------------------
Facts = dict[str, Scalar]


class GoapActionDef(Strict):
    """A GOAP action: what it needs, what it changes, what it costs, and the host action that carries it out."""
    action: str = Field(description="host action kind submitted for this step")
    target: Union[int, str] = Field(default=0, description="target entity: '$fact' or 0 (see target_type)")
    target_type: str = Field(default="", description="one instance per target of this type the host offers "
                                                     "('crate', 'key'); the step then targets that instance")
    params: dict[str, Param] = Field(default_factory=dict, description="action parameters; '$fact' reads a fact")
    pre: Facts = Field(default_factory=dict, description="facts that must hold before")
    effects: Facts = Field(min_length=1, description="facts it sets")
    cost: float = Field(default=1.0, ge=0, le=1e6, description="non-negative cost")
    cost_per_tile: float = Field(default=0.0, ge=0, le=1e3, description="added per tile to the instance's target")


class GoapDef(Strict):
    """A GOAP domain (file kind ``goap/``): actions and goals over finite key -> value facts."""
    id: str = Field(pattern=ID_PATTERN, description="stable id brains refer to")
    budget: int = Field(default=5000, ge=1, le=20_000, description="node expansions before 'budget exhausted'; at "
                        "the maximum one plan stays within 0.2 s on one core by regression (0.25 s measured for "
                        "50,000 on a shared 2-core machine)")
    actions: dict[str, GoapActionDef] = Field(min_length=1, max_length=256, description="action name -> action")
    goals: dict[str, Facts] = Field(min_length=1, max_length=64, description="goal name -> facts to reach")


class HtnPrimitiveDef(Strict):
    """An HTN primitive task and the host action that carries it out."""
    action: str = Field(description="host action kind submitted for this step")
    target: Union[int, str] = Field(default=0, description="target entity: '$fact' or 0")
    params: dict[str, Param] = Field(default_factory=dict, description="action parameters; '$fact' reads a fact")
    pre: Facts = Field(default_factory=dict, description="facts that must hold before")
    effects: Facts = Field(default_factory=dict, description="facts it sets in the planner's temporary state")


class HtnMethodDef(Strict):
    name: str = Field(description="method name shown in traces")
    pre: Facts = Field(default_factory=dict, description="facts that must hold to try this method")
    subtasks: list[str] = Field(min_length=1, max_length=32, description="tasks it expands into, in order")


class HtnCompoundDef(Strict):
    """An HTN compound task: methods tried in order."""
    methods: list[HtnMethodDef] = Field(min_length=1, max_length=32, description="tried in this order")


class HtnDef(Strict):
    """An HTN domain (file kind ``htn/``)."""
    id: str = Field(pattern=ID_PATTERN, description="stable id brains refer to")
    depth_limit: int = Field(default=64, ge=1, le=1000, description="decomposition depth limit: compound tasks "
                             "nested in this many others are not decomposed (primitive steps do not count)")
    budget: int = Field(default=5000, ge=1, le=10_000, description="task lists examined before 'budget exhausted'; "
                        "at the maximum one plan stays within 1 s on one core (8.3 s measured for 100,000 on a "
                        "shared 2-core machine)")
    primitives: dict[str, HtnPrimitiveDef] = Field(min_length=1, max_length=256, description="name -> primitive task")
    compounds: dict[str, HtnCompoundDef] = Field(default_factory=dict, max_length=256,
                                                 description="name -> compound task")


#: directory name -> model
KINDS: dict[str, type[Strict]] = {
    "goap": GoapDef,
    "htn": HtnDef,
    "brains": BrainDef,
    "units": UnitDef,
    "buildings": BuildingDef,
    "strategies": StrategyDef,
    "commanders": CommanderDef,
    "difficulties": DifficultyDef,
    "maps": MapDef,
    "scenarios": ScenarioDef,
}
