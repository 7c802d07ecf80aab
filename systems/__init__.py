"""esper processors, one concern each, run every tick in ``SYSTEM_ORDER``.

deciders (commander, brains, scripted AI: they only submit to the ledger) -> the ledger -> action executors
-> movement -> combat -> recovery on cover -> death -> brains' inboxes (the ends of their actions).
"""
from __future__ import annotations

from systems.actions import ActionSystem, build_executors
from systems.brains import BrainInboxSystem, BrainSystem
from systems.combat import CombatSystem
from systems.commander import CommanderSystem
from systems.death import DeathSystem
from systems.ledger_system import LedgerSystem
from systems.movement import MovementSystem
from systems.recovery import RecoverySystem
from systems.scripted_ai import ScriptedAISystem

SYSTEM_ORDER = (
    CommanderSystem,    # decider: every K ticks, orders squads (UCT / Expected Outcome / scripted)
    BrainSystem,        # decider: NPC brains (utility -> HFSM -> BT) submit actions
    ScriptedAISystem,   # decider: submits actions
    LedgerSystem,       # accept / reject / start / cancel / time out
    ActionSystem,       # executors advance started actions
    MovementSystem,
    CombatSystem,
    RecoverySystem,     # units resting on cover regain hit points
    DeathSystem,
    BrainInboxSystem,   # the ends of brains' actions, for their next decision
)


def build_processors() -> list:
    return [cls() for cls in SYSTEM_ORDER]


__all__ = ["SYSTEM_ORDER", "build_processors", "build_executors"]
