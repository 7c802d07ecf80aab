"""Engine-free helpers for testing ai/: a fake host actuator and quick candidate builders."""
from __future__ import annotations

from ai.brain import Brain
from ai.bt import FAILURE, RUNNING, SUCCESS, ActionLeaf, Repeat, Tree
from ai.conditions import Condition
from ai.curves import Curve
from ai.hfsm import Machine, State
from ai.utility import Candidate, Emergency, ModeSelector, Preference


class FakeActuator:
    """Stands in for the ledger: actions stay running until the test resolves them."""

    def __init__(self, targets=None):
        self.next_id = 1
        self.actions: dict[int, dict] = {}
        self.log: list[tuple] = []
        self.offered = dict(targets or {})       # target type -> [(entity, distance)]

    def targets(self, kind):
        return list(self.offered.get(kind, []))

    def submit(self, kind, target, params):
        aid = self.next_id
        self.next_id += 1
        self.actions[aid] = {"kind": kind, "target": target, "params": dict(params), "state": RUNNING, "reason": ""}
        self.log.append(("submit", aid, kind))
        return aid

    def status(self, aid):
        a = self.actions.get(aid)
        if a is None:
            return FAILURE, "unknown action"
        return a["state"], a["reason"]

    def cancel(self, aid):
        self.log.append(("cancel", aid))
        a = self.actions[aid]
        if a["state"] == RUNNING:
            a["pending_cancel"] = True

    def process(self):
        """What the host's ledger does at its point of the tick: apply the queued cancels."""
        for a in self.actions.values():
            if a.pop("pending_cancel", False) and a["state"] == RUNNING:
                a["state"], a["reason"] = FAILURE, "cancelled"

    def finish(self, aid, ok=True, reason=""):
        self.actions[aid]["state"] = SUCCESS if ok else FAILURE
        self.actions[aid]["reason"] = reason or ("confirmed" if ok else "failed")

    def running(self):
        return sorted(aid for aid, a in self.actions.items() if a["state"] == RUNNING)

    def kinds(self):
        return [a["kind"] for _aid, a in sorted(self.actions.items())]


def direct(cid: str, gates=(), state: str = "") -> Candidate:
    """A candidate whose score is exactly the fact ``score_<cid>`` (one linear preference over [0, 1])."""
    return Candidate(cid, tuple(gates), (Preference(f"score_{cid}", 0.0, 1.0, Curve("linear")),), state)


def gate(fact, op="==", value=True) -> Condition:
    return Condition(fact, op, value)


def guard_brain() -> Brain:
    """A three-mode guard: engage (gated on enemy_alive), search, retreat (gated on cover_known), with a 'dying'
    emergency (hp_frac < 0.2) to retreat; scores come from the ``score_<mode>`` facts (``guard_facts``)."""
    selector = ModeSelector([direct("engage", gates=[gate("enemy_alive")]), direct("search"),
                             direct("retreat", gates=[gate("cover_known")])],
                            [Emergency("dying", (Condition("hp_frac", "<", 0.2),), "retreat")])
    machine = Machine([
        State("engage", tree=Tree(Repeat(ActionLeaf("attack", "$enemy")))),
        State("search", tree=Tree(ActionLeaf("move", 0, {"x": 1.0}))),
        State("retreat", tree=Tree(ActionLeaf("enter_cover"))),
    ])
    return Brain("guard", selector, machine)


def guard_facts(**kw) -> dict:
    """Facts for ``guard_brain``: an enemy (entity 7) alive, cover known, full health; ``kw`` overrides."""
    base = {"enemy_alive": True, "enemy": 7, "cover_known": True, "hp_frac": 1.0,
            "score_engage": 0.75, "score_search": 0.2, "score_retreat": 0.1}
    base.update(kw)
    return base
