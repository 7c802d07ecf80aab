"""The tick's systems in their one order: ``SYSTEM_ORDER``, and ``build_processors`` for a new world.

deciders (commander, brains, strategies, scripted AI: they only submit to the ledger) -> the ledger -> action
executors -> turrets' targets -> movement -> combat -> recovery on cover -> resupply -> death -> brains' inboxes
(the ends of their actions).

It lives apart from ``systems/__init__.py`` so that importing one system (content's catalog imports the
action executors) does not import every system.
"""
from __future__ import annotations

from systems.actions import ActionSystem
from systems.brains import BrainInboxSystem, BrainSystem
from systems.combat import CombatSystem
from systems.commander import CommanderSystem
from systems.death import DeathSystem
from systems.fog import FogSystem
from systems.ledger_system import LedgerSystem
from systems.movement import MovementSystem
from systems.recovery import RecoverySystem
from systems.reflexes import ReflexSystem
from systems.resupply import ResupplySystem
from systems.scripted_ai import ScriptedAISystem
from systems.strategy import StrategySystem
import systems.strategy_planned  # noqa: F401  (registers the planned strategy in systems.strategy.VIEWS)
from systems.turrets import TurretSystem

SYSTEM_ORDER = (
    CommanderSystem,    # decider: every K ticks, orders squads (UCT / Expected Outcome / scripted)
    BrainSystem,        # decider: NPC brains (utility -> HFSM -> BT) submit actions
    StrategySystem,     # decider: a team's economy, production, building and attacks (strategy profiles)
    ScriptedAISystem,   # decider: submits actions
    ReflexSystem,       # decider: a player's idle units act by their stance (acquire, answer fire, leash)
    LedgerSystem,       # accept / reject / start / cancel / time out
    ActionSystem,       # executors advance started actions
    TurretSystem,       # complete buildings with a gun pick their targets
    MovementSystem,
    CombatSystem,
    RecoverySystem,     # units resting on cover regain hit points
    ResupplySystem,     # units near their supply buildings refill their ammunition
    DeathSystem,
    FogSystem,          # what each team sees now, has explored and remembers
    BrainInboxSystem,   # the ends of brains' actions, for their next decision
)


def build_processors() -> list:
    return [cls() for cls in SYSTEM_ORDER]


__all__ = ["SYSTEM_ORDER", "build_processors"]
