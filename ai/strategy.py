"""A team's planned strategy, engine-free: a posture chosen by utility, decomposed by HTN into tasks (the rules:
docs/rules/strategy.md).

The host (systems/strategy_planned.py) reads a team's *strategic facts* (plain numbers and bools: income,
stockpile, population and cap, its army's value against the enemy's as scouted, threats near its base, workers,
idle production, what it has built) and asks a ``StrategyPlanner``:

1. **posture** — an ``ai.utility.ModeSelector`` over five candidates (``economy``, ``tech``, ``army``,
   ``defend``, ``attack``; and ``expand`` for a profile that wants more than one base) with the NPC brains'
   rules: hysteresis (margin, minimum hold), invalidation (the posture's gates fail) and emergencies
   (``base_attacked`` -> defend, ``all_in`` -> attack);
2. **plan** — ``ai.htn.plan`` decomposes the posture's compound task (``posture_<id>``) in ``DOMAIN`` into
   primitive tasks (``train_worker``, ``build_depot``, ``build_barracks``, ``build_armory``, ``build_turret``,
   ``build_expansion``, ``train_army``, ``scout``, ``attack``, ``defend``, ``hold``) from the facts' symbolic
   projection (``symbols``);
3. the host carries each task out as a ledger action; a step advances only when the ledger has taken its action
   (``advance``), a refused or failed one (or one that waited too long) replans from the facts of that moment.

Every number that makes one profile differ from another (``Tuning``) comes from the strategy profile's
``planner`` table (content/strategies/ai_*.toml).

    >>> planner = StrategyPlanner(Tuning())
    >>> facts = example_facts()
    >>> d = planner.decide(facts, current=None, held=0.0)
    >>> d.choice
    'economy'
    >>> planner.plan("economy", facts)
    ['build_barracks', 'hold']
    >>> planner.plan("economy", facts, blocked={"build_barracks"})      # it failed a moment ago
    ['hold']
    >>> planner.plan("economy", example_facts(barracks=1))     # more barracks are the tech posture's
    ['train_army', 'hold']
    >>> planner.upkeep(facts), planner.upkeep(example_facts(pop_free=2))    # every think, whatever the posture
    (['train_worker'], ['build_depot', 'train_worker'])
"""
from __future__ import annotations

from dataclasses import dataclass

from ai import htn
from ai.conditions import Condition, all_hold
from ai.curves import Curve
from ai.utility import Candidate, Emergency, ModeSelector, Preference

POSTURES = ("army", "attack", "defend", "economy", "expand", "tech")
#: the most steps one plan holds (a plan is short; the host replans when it is done)
MAX_STEPS = 8
#: the army orders a plan can give (the host keeps the last one until another is given)
ORDERS = ("attack", "defend", "hold")


@dataclass(frozen=True)
class Tuning:
    """A profile's numbers (content/schema.py ``PlannerDef`` holds the same fields, with their ranges)."""
    worker_target: int = 16          # gathering workers wanted
    barracks: int = 2                # production buildings wanted before the army posture saturates them
    barracks_at: int = 0             # workers before the first barracks, unless an enemy army has been seen or
                                     # the base is threatened (0: at once)
    max_barracks: int = 4
    turrets: int = 0                 # turrets the tech posture builds (defend builds one more when threatened)
    armory: bool = True              # the tech posture builds an armory (heavies)
    guard_army: int = 4              # army units kept before more buildings: tech waits for them, and under
                                     # a threat with fewer no worker is trained (the money goes to the army)
    attack_army: int = 12            # army units before an ordinary attack is considered
    attack_ratio: float = 1.5        # own army value / known enemy army value at which attacking scores full
    all_in_army: int = 40            # army units at which it attacks whatever it knows (an emergency)
    defend_value: float = 150.0      # enemy army value near the base that forces the defend posture
    economy_weight: float = 1.0      # weights of the postures' first preference (a profile's leaning)
    army_weight: float = 1.0
    tech_weight: float = 1.0
    margin: float = 0.1
    min_hold: float = 10.0           # seconds a posture holds before an ordinary switch
    bases: int = 1                   # bases it wants (headquarters by fields); 1: it never expands
    expand_below: int = 9000         # it expands when the fields by its bases hold less than this


#: the population cap beyond which the planner builds no more supply
POP_CEILING = 200


def example_facts(**over) -> dict:
    """A team at the start of an economy match (for examples and tests)."""
    facts = {"minute": 0.0, "stock": 200.0, "income": 0.0, "workers": 4, "pop_used": 4, "pop_cap": 10,
             "pop_free": 6, "army": 0, "army_value": 0.0, "enemy_value": 0.0, "strength": 1.0,
             "threat_value": 0.0, "threat": False, "enemy_army": 0.0, "barracks": 0, "armory": 0, "turrets": 0,
             "depots": 0,
             "idle_production": 0, "hq_idle": True, "enemy_known": False, "intel_age": 999.0, "building_supply": False,
             "pending_barracks": 0, "enemy_production": 0, "bases": 1, "mine_left": 18000.0,
             "expansion_site": False}
    facts.update(over)
    return facts


def _lin(slope: float = 1.0, intercept: float = 0.0) -> Curve:
    return Curve("linear", {"slope": slope, "intercept": intercept})


def candidates(t: Tuning) -> list[Candidate]:
    """The postures over the strategic facts (see the module docstring): five, and ``expand`` when the profile
    wants more than one base."""
    return [
        # grow the economy while short of workers; less attractive under threat
        Candidate("economy", gates=(Condition("workers", "<", t.worker_target),),
                  preferences=(Preference("workers", 0.0, float(max(1, t.worker_target)), _lin(-1.0, 1.0),
                                          t.economy_weight),
                               Preference("threat_value", 0.0, 400.0, _lin(-1.0, 1.0), 0.5))),
        # buildings: production, the armory, turrets; wanted while there are fewer than wanted and money comes in
        Candidate("tech", gates=(Condition("tech_left", ">", 0),),
                  preferences=(Preference("tech_left", 0.0, 4.0, _lin(), t.tech_weight),
                               Preference("income", 0.0, 400.0, _lin(0.8, 0.2), 0.5))),
        # train: production exists; scores with idle production and money in the bank
        Candidate("army", gates=(Condition("barracks", ">", 0),),
                  preferences=(Preference("stock", 0.0, 400.0, _lin(0.7, 0.3), t.army_weight),
                               Preference("idle_production", 0.0, 3.0, _lin(0.6, 0.4), 0.5))),
        # drive enemies off the base
        Candidate("defend", gates=(Condition("threat"),),
                  preferences=(Preference("threat_value", 0.0, max(1.0, t.defend_value * 2), _lin(), 1.0),)),
        # attack once the army is big enough and stronger than what is known of the enemy's
        Candidate("attack", gates=(Condition("army", ">=", t.attack_army), Condition("intel_ok"),
                                   Condition("attack_edge", ">=", 0.0)),
                  preferences=(Preference("strength", 0.5, max(0.6, t.attack_ratio), _lin(), 1.0),
                               Preference("army", 0.0, float(max(1, t.all_in_army)), _lin(0.5, 0.5), 0.5))),
    ] + ([
        # a new headquarters by unclaimed fields once those by its bases run low (a profile with bases > 1 only):
        # 0.9-1.0, the sooner they run dry the more, so that the army posture, wanting the money it saves, does
        # not take it back before the headquarters is paid for; never under threat or before the guard stands
        Candidate("expand", gates=(Condition("bases", "<", t.bases), Condition("mine_left", "<", t.expand_below),
                                   Condition("expansion_site"), Condition("threat", value=False),
                                   Condition("army", ">=", t.guard_army)),
                  preferences=(Preference("mine_left", 0.0, float(t.expand_below), _lin(-0.1, 1.0), 1.0),)),
    ] if t.bases > 1 else [])


def emergencies(t: Tuning) -> list[Emergency]:
    return [Emergency("base_attacked", (Condition("threat_value", ">=", t.defend_value),), "defend"),
            Emergency("all_in", (Condition("army", ">=", t.all_in_army),), "attack")]


# -- the HTN domain -------------------------------------------------------------------------------------------
P = htn.Primitive
M = htn.Method
C = htn.Compound

def _guarded(primitives) -> list:
    """Every primitive also needs ``ok_<name>``: the host clears it for a task that failed a moment ago, so the
    replan takes another method instead of the same failing step."""
    return [P(p.name, {**p.preconditions, f"ok_{p.name}": True}, p.effects) for p in primitives]


DOMAIN = htn.Domain(
    _guarded([P("train_worker", {"worker_short": True, "hq_idle": True}, {"hq_idle": False}),
     P("build_depot", {"need_supply": True}, {"need_supply": False}),
     P("build_barracks", {"barracks_short": True, "can_barracks": True}, {"barracks_short": False}),
     P("build_armory", {"armory_wanted": True, "has_barracks": True}, {"armory_wanted": False}),
     P("build_turret", {"turret_wanted": True, "has_barracks": True}, {"turret_wanted": False}),
     P("train_army", {"has_barracks": True}, {}),
     P("build_expansion", {"expansion_site": True}, {"expansion_site": False}),
     P("scout", {"enemy_known": False, "has_army": True}, {"enemy_known": True}),
     P("attack", {"has_army": True}, {"order": "attack"}),
     P("defend", {}, {"order": "defend"}),
     P("hold", {}, {"order": "hold"})]),
    [C("upkeep", (M("supply_first", {"need_supply": True}, ["build_depot", "workers", "reinforce"]),
                  M("workers_only", {}, ["workers", "reinforce"]))),
     C("reinforce", (M("spend", {"has_barracks": True}, ["train_army"]),
                     M("save", {}, []))),
     C("workers", (M("one_more", {"worker_short": True, "hq_idle": True}, ["train_worker"]),
                   M("enough", {}, []))),
     C("production", (M("first_barracks", {"barracks_short": True, "can_barracks": True}, ["build_barracks"]),
                      M("have_it", {}, []))),
     C("first_production", (M("first_barracks", {"no_barracks": True, "can_barracks": True}, ["build_barracks"]),
                            M("have_one", {}, []))),
     C("posture_economy", (M("grow", {}, ["first_production", "some_army", "hold"]),)),
     C("posture_tech", (M("barracks", {"barracks_short": True, "can_barracks": True},
                          ["build_barracks", "some_army"]),
                        M("armory", {"armory_wanted": True, "has_barracks": True}, ["build_armory", "some_army"]),
                        M("turret", {"turret_wanted": True, "has_barracks": True}, ["build_turret", "some_army"]),
                        M("nothing_left", {}, ["some_army", "hold"]))),
     C("some_army", (M("one_unit", {"has_barracks": True}, ["train_army"]),
                     M("none_yet", {}, []))),
     C("posture_army", (M("scout_and_train", {"has_barracks": True, "enemy_known": False, "army_to_scout": True},
                          ["production", "scout", "train_army", "hold"]),
                        M("train", {"has_barracks": True}, ["production", "train_army", "hold"]),
                        M("no_barracks", {}, ["production"]))),
     C("posture_defend", (M("fight", {"has_army": True}, ["defend", "train_army", "turret_if_wanted"]),
                          M("build_up", {"has_barracks": True}, ["defend", "train_army"]),
                          M("workers_fight", {}, ["defend", "production"]))),
     C("turret_if_wanted", (M("turret", {"turret_wanted": True, "has_barracks": True}, ["build_turret"]),
                            M("no_turret", {}, []))),
     C("posture_expand", (M("expand", {"expansion_site": True}, ["build_expansion", "some_army"]),
                          M("no_site", {}, ["some_army", "hold"]))),
     C("posture_attack", (M("scout_first", {"enemy_known": False, "has_army": True}, ["scout", "attack",
                                                                                        "train_army"]),
                          M("strike", {"has_army": True}, ["attack", "train_army"]),
                          M("no_army", {}, ["production"]))),
     ])


PRIMITIVES = tuple(sorted(n for n, task in DOMAIN.tasks.items() if isinstance(task, htn.Primitive)))


def symbols(facts: dict, t: Tuning, blocked=()) -> dict:
    """The facts' symbolic projection the HTN domain plans over (bools and the army order); ``blocked``: tasks
    that failed a moment ago (their ``ok_`` symbol is false)."""
    out = _symbols(facts, t)
    out.update({f"ok_{name}": name not in blocked for name in PRIMITIVES})
    return out


def barracks_due(facts: dict, t: Tuning) -> bool:
    """May a barracks be built now? Always once one stands or is under way; the first waits for ``barracks_at``
    workers unless the enemy is known to have production (a barracks seen), an enemy army has been seen or the
    base is threatened: a rush is answered at once.

    >>> t = Tuning(barracks_at=8)
    >>> barracks_due(example_facts(workers=6), t), barracks_due(example_facts(workers=8), t)
    (False, True)
    >>> barracks_due(example_facts(workers=6, enemy_army=50.0), t), barracks_due(example_facts(enemy_production=1), t)
    (True, True)
    """
    return (facts["barracks"] + facts.get("pending_barracks", 0) > 0 or facts["workers"] >= t.barracks_at
            or facts["threat"] or facts["enemy_army"] > 0 or facts.get("enemy_production", 0) > 0)


def _symbols(facts: dict, t: Tuning) -> dict:
    barracks = facts["barracks"] + facts.get("pending_barracks", 0)
    return {
        # under threat the money goes to the army first (a worker more does not stop a rush)
        "worker_short": facts["workers"] < t.worker_target and not (facts["threat"] and facts["army"] < t.guard_army),
        "hq_idle": bool(facts["hq_idle"]),
        # supply ahead of production: two free places per barracks (each trains about one unit at a time)
        "need_supply": facts["pop_free"] <= min(12, 3 + 2 * facts["barracks"]) and facts["pop_cap"] < POP_CEILING
                       and not facts["building_supply"],
        "barracks_short": barracks < (t.max_barracks if facts["stock"] >= 300 else t.barracks),
        "can_barracks": barracks < t.max_barracks and barracks_due(facts, t),
        "has_barracks": facts["barracks"] > 0,
        "no_barracks": barracks == 0,
        "armory_wanted": t.armory and not facts["armory"] and facts["barracks"] > 0,
        "turret_wanted": facts["barracks"] > 0 and (facts["turrets"] < t.turrets
                                                   or facts["threat"] and facts["turrets"] < t.turrets + 1),
        "has_army": facts["army"] > 0,
        "enemy_known": facts["intel_age"] < 45.0,
        "army_to_scout": facts["army"] >= 6,
        "expansion_site": bool(facts.get("expansion_site", False)),
        "order": "",
    }


def tech_left(facts: dict, t: Tuning) -> int:
    """How many of the buildings the profile wants are still missing (the tech posture's fact)."""
    barracks = facts["barracks"] + facts.get("pending_barracks", 0)
    if barracks and facts["army"] < t.guard_army:
        return 0                        # a barracks and no guard yet: the guard comes before more buildings
    left = max(0, t.barracks - barracks) if barracks_due(facts, t) else 0
    if t.armory and not facts["armory"] and facts["barracks"] > 0:
        left += 1
    if facts["barracks"] > 0:
        left += max(0, t.turrets - facts["turrets"])
    if facts["stock"] >= 300 and barracks < t.max_barracks and barracks_due(facts, t):
        left += 1
    return left


#: strength an attack needs to start, as a share of the profile's ``attack_ratio``, and to go on
START_SHARE = 0.8
KEEP_STRENGTH = 0.6


def attack_edge(facts: dict, t: Tuning, attacking: bool) -> float:
    """How far the army's strength is above what an attack needs: ``START_SHARE`` x ``attack_ratio`` to start
    one, ``KEEP_STRENGTH`` to go on with one (a gate with hysteresis: an attack is not called off, and the army
    caught retreating, the moment a few more enemies come in sight). An army of ``all_in_army`` units that can no
    longer grow (nothing coming in, or its supply at ``POP_CEILING`` and full) starts one at ``KEEP_STRENGTH`` too:
    waiting cannot win it the edge, so it attacks an equal army, though still not a far stronger one (two equal
    AIs each waiting for an edge sat at home, maxed out on empty fields, to the time limit). While it can still
    grow it waits for the edge: an equal army attacked at its own base, under its turrets, wins.

    >>> t = Tuning(attack_ratio=2.0, all_in_army=40)
    >>> growing = {"strength": 1.0, "army": 40, "income": 900.0, "pop_cap": 120, "pop_free": 0}
    >>> attack_edge({**growing, "strength": 1.5}, t, False), attack_edge(growing, t, False)
    (-0.1, -0.6)
    >>> attack_edge(growing, t, True), attack_edge({**growing, "income": 0.0}, t, False)
    (0.4, 0.4)
    >>> maxed, small = {**growing, "pop_cap": 200}, {**growing, "army": 39, "income": 0.0}
    >>> attack_edge(maxed, t, False), attack_edge(small, t, False)
    (0.4, -0.6)
    """
    bar = KEEP_STRENGTH if attacking or all_in(facts, t) else START_SHARE * t.attack_ratio
    return round(facts["strength"] - bar, 6)


def all_in(facts: dict, t: Tuning) -> bool:
    """Can the army no longer grow? ``all_in_army`` units or more, and nothing coming in or its supply at
    ``POP_CEILING`` and full: waiting at home cannot make it stronger.

    >>> t = Tuning(all_in_army=40)
    >>> growing = {"army": 40, "income": 900.0, "pop_cap": 120, "pop_free": 0}
    >>> all_in(growing, t), all_in({**growing, "income": 0.0}, t), all_in({**growing, "pop_cap": 200}, t)
    (False, True, True)
    """
    maxed = facts["pop_cap"] >= POP_CEILING and facts["pop_free"] <= 0
    return facts["army"] >= t.all_in_army and (facts["income"] <= 0.0 or maxed)


#: seconds since the team last saw an enemy army unit or building within which it knows enough to attack
INTEL_AGE = 60.0


def intel_ok(facts: dict, t: Tuning) -> bool:
    """Does the team know enough to attack? It saw an enemy army unit or building in the last ``INTEL_AGE``
    seconds, or its army can no longer grow (``all_in``). An army at its ceiling attacks blind, as a player
    attack-moves a maxed army: the attack plan sends a scout ahead (``scout_first``) and the army hunts where the
    enemy was last seen or should be. Without this, a team whose scouts died to enemy workers before they saw a
    building or a soldier (a worker rush fights with workers, which are not intel) sat at home with 144 units,
    estimating the enemy it never saw again at its own strength, to the time limit.

    >>> t = Tuning(all_in_army=40)
    >>> maxed = {"army": 40, "income": 900.0, "pop_cap": 200, "pop_free": 0, "intel_age": 999.0}
    >>> growing = {**maxed, "pop_cap": 120}
    >>> intel_ok(maxed, t), intel_ok(growing, t), intel_ok({**growing, "intel_age": 59.5}, t)
    (True, False, True)
    """
    return facts["intel_age"] < INTEL_AGE or all_in(facts, t)


class StrategyPlanner:
    """The posture selector and the plan maker for one profile (``Tuning``); holds no match state."""

    def __init__(self, tuning: Tuning):
        self.tuning = tuning
        self.selector = ModeSelector(candidates(tuning), emergencies(tuning), margin=tuning.margin,
                                     min_hold=tuning.min_hold)

    def decide(self, facts: dict, current: str | None, held: float, status=None, status_reason: str = ""):
        """The posture for now (an ``ai.utility.Decision``)."""
        facts = dict(facts)
        facts["tech_left"] = tech_left(facts, self.tuning)
        facts["attack_edge"] = attack_edge(facts, self.tuning, current == "attack")
        facts["intel_ok"] = intel_ok(facts, self.tuning)
        if status is None:
            return self.selector.decide(facts, current, held)
        return self.selector.decide(facts, current, held, status=status, status_reason=status_reason)

    def expansion_wanted(self, facts: dict) -> bool:
        """Do the ``expand`` posture's gates hold but for ``expansion_site``, which the host looks for only then
        (it searches the map)? False for a profile that never expands (no such posture).

        >>> low = example_facts(army=10, mine_left=5000.0)
        >>> StrategyPlanner(Tuning(bases=2)).expansion_wanted(low), StrategyPlanner(Tuning()).expansion_wanted(low)
        (True, False)
        >>> StrategyPlanner(Tuning(bases=2)).expansion_wanted({**low, "threat": True})
        False
        """
        expand = self.selector.by_id.get("expand")
        return expand is not None and all_hold([g for g in expand.gates if g.fact != "expansion_site"], facts)

    def plan(self, posture: str, facts: dict, blocked=()) -> list[str]:
        """The posture's tasks, in order (empty when the domain finds none); ``blocked`` tasks are not planned."""
        return self.plan_task(f"posture_{posture}", facts, blocked)

    def upkeep(self, facts: dict, blocked=()) -> list[str]:
        """The standing tasks of every think, whatever the posture: supply when it runs short, a worker while
        there are too few (``upkeep`` in ``DOMAIN``)."""
        return self.plan_task("upkeep", facts, blocked)

    def plan_task(self, task: str, facts: dict, blocked=()) -> list[str]:
        result = htn.plan(DOMAIN, symbols(facts, self.tuning, blocked), task, depth_limit=8, budget=500)
        return result.plan[:MAX_STEPS] if result.ok else []


__all__ = ["POSTURES", "ORDERS", "Tuning", "StrategyPlanner", "DOMAIN", "candidates", "emergencies", "symbols",
           "example_facts", "tech_left", "barracks_due"]
