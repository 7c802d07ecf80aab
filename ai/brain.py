"""An NPC's behavior stack: utility selection -> HFSM mode -> behavior tree (-> planner steps).

``Brain`` is shared by every NPC of a kind; ``BrainState`` is one NPC's
state, all plain data (it is the ``Brain`` component and goes into snapshots).
``Brain.think`` is one decision step and returns its record.

Switching modes follows the switch-and-release rule (docs/rules/utility.md, "Switch and release"):

1. the selector decides (hysteresis, invalidation, emergencies);
2. on a switch the old mode is stopped: the HFSM is left, its running tree is
   halted and every ledger action it had running is cancelled;
3. if something had to be cancelled, the switch waits (``pending``) until the
   host reports those actions terminal, i.e. their reservations are released;
   then an emergency that fires on fresh facts wins (never giving the old mode
   back); else the new candidate's gates are checked again: still
   eligible -> it is entered; not -> select again, never giving the old mode
   back in that selection; nothing eligible -> idle.
4. idle means no mode and no running action (no reservations held).

A mode whose tree finished (succeeded or failed) reports that to the next
decision as an invalidation, so the NPC re-decides at once.

The ``Brain`` docstring has a worked example: a mode that runs, ends and is
chosen again, then a switch that waits for the release of the cancelled action.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ai.bt import Context
from ai.hfsm import Machine
from ai.records import NpcDecision
from ai.status import FAILURE, RUNNING, SUCCESS
from ai.utility import EMERGENCY, ModeSelector

RELEASE = "entered after release"          # the pending candidate's gates still held once the old mode was released
RESELECT = "reselected after release"      # they did not: selected again without the old mode
WAITING = "waiting for release"


@dataclass(slots=True)
class BrainState:
    """One NPC's behavior stack, as plain data: the mode and since when, how its execution stands, a switch that
    waits for a release, the HFSM runtime (``path``, ``history``, ``mem``: ``Machine`` methods take a
    ``BrainState`` as their runtime), the blackboard, the plan state and the host's reports. ``Brain.new_state``
    makes a fresh one; ``Brain.check_state`` checks one read from a file.

    >>> from dataclasses import asdict
    >>> st = BrainState(brain="guard", mode="engage", path=["engage"], mem=[3, 1], bb={"target": 7})
    >>> BrainState(**asdict(st)) == st               # plain data: it goes through a dict (snapshots, saves) intact
    True
    >>> fresh = BrainState(brain="guard")
    >>> fresh.mode, fresh.pending, fresh.path        # idle: no mode, nothing to release, no state active
    ('', False, [])
    """
    brain: str = ""
    mode: str = ""                 # current utility candidate; "" = idle
    since: float = 0.0             # game time (s) the mode was entered
    status: int = RUNNING          # how the mode's execution stands (ai.status): RUNNING, SUCCESS or FAILURE
    status_reason: str = ""
    pending: bool = False          # a switch is waiting for the old mode's actions to be released
    pending_to: str = ""           # the candidate waiting to be entered ("" = idle)
    dropped: str = ""              # the mode just left: not given back while the switch completes
    releasing: list = field(default_factory=list)   # ledger action ids cancelled by the switch
    path: list = field(default_factory=list)        # active HFSM states, outermost first
    history: dict = field(default_factory=dict)     # composite state -> remembered child / leaf
    mem: list = field(default_factory=list)         # the active leaf tree's memory
    bb: dict = field(default_factory=dict)          # blackboard
    plan: dict = field(default_factory=dict)        # the plan executor's state (ai/executor.py)
    inbox: list = field(default_factory=list)       # host-reported ends of this NPC's actions: [[id, status, reason, tick]]
    wake: bool = False                              # the host asks for a decision on the next tick
    slot: int = -1                                  # the host's stagger slot for it, kept for its life (-1: none yet)


@dataclass(frozen=True)
class Brain:
    """An NPC kind's behavior stack, shared by every NPC of that kind; each NPC's progress is a ``BrainState``.

    ``id``: the brain's name; ``selector``: the ``ModeSelector`` over its candidates; ``machine``: the HFSM whose
    top-level states the candidates run (a candidate's ``mode_state``); ``think_every``: host ticks between
    ordinary decisions (the host keeps the schedule); ``idle_state``: a state run while no mode is chosen
    (optional); ``planning``: the ``ai.executor.Planning`` that plan leaves plan with (optional). A candidate
    whose state is unknown or not top-level, or an unknown ``idle_state``, raises ``ValueError``.

    A guard with one mode, ``engage``, which attacks while an enemy is visible; a stand-in host plays the ledger:

    >>> from ai.bt import ActionLeaf, Tree
    >>> from ai.conditions import Condition
    >>> from ai.hfsm import Machine, State
    >>> from ai.status import FAILURE, RUNNING, SUCCESS, name
    >>> from ai.utility import Candidate, ModeSelector
    >>> class Host:
    ...     def __init__(self):
    ...         self.actions, self.cancelled = {}, []
    ...     def submit(self, kind, target, params):
    ...         self.actions[len(self.actions) + 1] = (RUNNING, "")
    ...         return len(self.actions)             # the action id
    ...     def status(self, aid):
    ...         return self.actions[aid]
    ...     def cancel(self, aid):                   # the ledger answers later, once the action is released
    ...         self.cancelled.append(aid)
    >>> brain = Brain("guard", ModeSelector([Candidate("engage", gates=(Condition("enemy_visible"),))]),
    ...               Machine([State("engage", tree=Tree(ActionLeaf("attack", "$enemy")))]))
    >>> st, host, facts = brain.new_state(), Host(), {"enemy_visible": True, "enemy": 7}
    >>> rec = brain.think(st, facts, 0.0, host)
    >>> rec.choice, rec.reason, rec.state, rec.bt, rec.events
    ('engage', 'ordinary', ['engage'], ['attack'], ['attack: submitted attack #1'])
    >>> host.actions[1] = (SUCCESS, "")              # the host confirms: the tree succeeds, the mode has ended
    >>> rec = brain.think(st, facts, 0.2, host)
    >>> name(rec.status), rec.status_reason
    ('success', 'tree succeeded')
    >>> rec = brain.think(st, facts, 0.4, host)      # ... so the next decision re-decides: engage again
    >>> rec.reason, rec.detail, rec.events
    ('invalidation', 'engage ended: tree succeeded; engage scores 1.000', ['attack: submitted attack #2'])
    >>> facts["enemy_visible"] = False               # the gate fails: stop engage, cancel its action ...
    >>> rec = brain.think(st, facts, 0.6, host)
    >>> rec.choice, rec.reason, host.cancelled, st.pending
    (None, 'idle', [2], True)
    >>> brain.think(st, facts, 0.8, host).reason     # ... and wait until the host has released it
    'waiting for release'
    >>> host.actions[2] = (FAILURE, "cancelled")
    >>> rec = brain.think(st, facts, 1.0, host)
    >>> rec.phase, rec.reason, rec.detail, st.mode, st.pending
    ('release', 'reselected after release', 'nothing eligible: idle', '', False)
    >>> Brain("guard", ModeSelector([Candidate("flee")]), Machine([State("engage")]))
    Traceback (most recent call last):
    ...
    ValueError: candidate 'flee' runs unknown state 'flee'
    """
    id: str
    selector: ModeSelector
    machine: Machine
    think_every: int = 6           # host ticks between ordinary decisions
    idle_state: str = ""           # optional state run while no mode is chosen (must hold no reservations)
    planning: object = None        # ai.executor.Planning: what plan leaves (achieve / perform) plan with

    def __post_init__(self):
        for cand in self.selector.candidates:
            state = cand.mode_state
            if state not in self.machine.states:
                raise ValueError(f"candidate '{cand.id}' runs unknown state '{state}'")
            if self.machine.states[state].parent is not None:
                raise ValueError(f"candidate '{cand.id}' must run a top-level state, '{state}' has a parent")
        if self.idle_state and self.idle_state not in self.machine.states:
            raise ValueError(f"idle state '{self.idle_state}' is unknown")

    def new_state(self) -> BrainState:
        """A fresh, idle ``BrainState`` for one NPC of this brain.

        >>> from ai.hfsm import Machine, State
        >>> from ai.utility import Candidate, ModeSelector
        >>> Brain("guard", ModeSelector([Candidate("engage")]), Machine([State("engage")])).new_state().brain
        'guard'
        """
        return BrainState(brain=self.id)

    def check_state(self, st: BrainState) -> str | None:
        """Why ``st`` (e.g. read from a file) cannot run with this brain, or None.

        It checks that the modes are candidates, the status is an ``ai.status`` outcome, the state path is a path
        of the machine ending in a leaf, the tree memory fits that leaf's tree, and the ids and inbox are well
        formed.

        >>> from ai.hfsm import Machine, State
        >>> from ai.utility import Candidate, ModeSelector
        >>> brain = Brain("guard", ModeSelector([Candidate("engage")]), Machine([State("engage")]))
        >>> brain.check_state(brain.new_state()) is None
        True
        >>> brain.check_state(BrainState(brain="guard", mode="flee"))
        "unknown mode 'flee'"
        >>> brain.check_state(BrainState(brain="guard", mode="engage", path=["engage"], mem=[3, 0]))
        'tree memory has 2 slots, the tree needs 0'
        >>> brain.check_state(BrainState(brain="guard", inbox=[[2, "done", "", 9], [1, "done", "", 8]]))
        'inbox entries are not in tick order'
        """
        if st.mode and st.mode not in self.selector.by_id:
            return f"unknown mode '{st.mode}'"
        for name in (st.pending_to, st.dropped):
            if name and name not in self.selector.by_id:
                return f"unknown mode '{name}'"
        if st.status not in (RUNNING, SUCCESS, FAILURE) or type(st.status) is not int:
            return f"unknown status '{st.status}'"
        states = self.machine.states
        for i, sid in enumerate(st.path):
            if sid not in states or states[sid].parent != (st.path[i - 1] if i else None):
                return f"state path {st.path} is not a path of the machine"
        if st.path and self.machine.children[st.path[-1]]:
            return f"state path {st.path} does not end in a leaf"
        tree = self.machine.leaf_tree(st) if st.path else None
        size = tree.size if tree is not None else 0
        if len(st.mem) not in ((0, size) if tree is not None else (0,)):
            return f"tree memory has {len(st.mem)} slots, the tree needs {size}"
        if not all(type(v) in (int, float) for v in st.mem):
            return "tree memory holds something other than numbers"
        if not all(type(a) is int for a in st.releasing):
            return "releasing holds something other than action ids"
        for entry in st.inbox:
            if not (isinstance(entry, list) and len(entry) == 4 and type(entry[0]) is int and isinstance(entry[1], str)
                    and isinstance(entry[2], str) and type(entry[3]) is int):
                return "inbox entry is malformed"
        if type(st.slot) is not int or st.slot < -1:
            return "think slot is not an integer of at least -1"
        if any(a[3] > b[3] for a, b in zip(st.inbox, st.inbox[1:])):
            return "inbox entries are not in tick order"      # (the host drops expired ones by the first's tick)
        return None

    # -- one decision -----------------------------------------------------------------------------------------
    def think(self, st: BrainState, facts: dict, now: float, actuator, scores: dict | None = None,
              record_scores=None) -> NpcDecision:
        """One decision on ``facts`` at game time ``now`` (seconds); returns its record (the host adds the tick
        and the entity). ``actuator`` is the host's side of the ledger (``ai.bt.Actuator``).

        ``st`` is updated in place. While a switch waits for a release (``st.pending``) the step only checks the
        cancelled actions and, once they are released, enters the new mode (or selects again); otherwise the
        selector decides and a switch stops the old mode first. Then the active state's tree is ticked and its
        outcome becomes the mode's status. The returned ``ai.records.NpcDecision`` has ``phase`` "decide" or
        "release". The class docstring has the worked example.

        ``scores``: the candidates already scored on ``facts`` (a batch scorer's, ``ai.batch``), used instead of
        scoring here by an ordinary decision and by the choice once a switch's actions are released;
        ``record_scores``: what the record keeps as its candidates then (default: those scores; a host may pass
        ``ai.records.Deferred`` that scores in full when the record is read).
        """
        planner = self.planning.bind(st.plan) if self.planning is not None else None
        ctx = Context(st.mem, facts, st.bb, actuator, now, planner)
        cancelled: list[int] = []
        ctx_cancel = _Recorder(actuator, cancelled)
        ctx.actuator = ctx_cancel
        # the record's fields, made into one NpcDecision at the end (``_finish``)
        mode_before = st.mode or None
        held = round(now - st.since, 4) if st.mode else None
        emergency = None
        if st.pending:
            phase = "release"
            still = [aid for aid in st.releasing if actuator.status(aid)[0] == RUNNING]
            if still:
                return self._finish(st, ctx, now, phase, mode_before, held, st.pending_to or None, False, WAITING,
                                    f"actions {still} not yet released", None, [])
            target = st.pending_to or None
            if scores is None:
                scores = self.selector.score_all(facts, st.bb)
            em = self.selector.emergency(scores, facts, st.bb, {st.dropped} if st.dropped else ())
            if em is not None:                   # an emergency that fires now wins the release, as it would a decision
                target, reason = em.candidate, EMERGENCY
                detail = f"emergency {em.id} fires as {st.dropped or 'the old mode'} is released"
                emergency = em.id
            elif target is not None and scores[target].eligible:
                reason, detail = RELEASE, f"{target}'s gates still hold after the old mode was released"
            else:
                exclude = {st.dropped} if st.dropped else set()
                target = self.selector.best(scores, exclude)
                reason = RESELECT
                detail = (f"{st.pending_to} became infeasible while {st.dropped or 'the old mode'} was released; "
                          if st.pending_to else "") + (f"selected {target}" if target else "nothing eligible: idle")
            st.pending = False
            st.pending_to = st.dropped = ""
            st.releasing = []
            choice, switch = target, True
            candidates = list(scores.values()) if record_scores is None else record_scores
            self._enter(st, target, ctx, now)
        else:
            phase = "decide"
            decision = self.selector.decide(facts, st.mode or None, now - st.since, st.status, st.status_reason, st.bb,
                                            scores=scores)
            choice, switch, reason, detail = decision.choice, decision.switch, decision.reason, decision.detail
            emergency = decision.emergency
            candidates = decision.candidates if record_scores is None else record_scores
            if switch:
                old = st.mode
                self._stop(st, ctx)
                if cancelled:
                    st.pending = True
                    st.pending_to = choice or ""
                    st.dropped = old
                    st.releasing = list(cancelled)
                    detail += f"; stopping {old}: cancelled actions {cancelled}, waiting for their release"
                    return self._finish(st, ctx, now, phase, mode_before, held, choice, switch, reason, detail,
                                        emergency, candidates)
                self._enter(st, choice, ctx, now)
        if st.mode or st.path:
            status, why = self.machine.update(st, ctx)
            st.status, st.status_reason = status, (why if status != RUNNING else "")
        return self._finish(st, ctx, now, phase, mode_before, held, choice, switch, reason, detail, emergency,
                            candidates)

    def _finish(self, st: BrainState, ctx: Context, now: float, phase: str, mode_before, held, choice, switch: bool,
                reason: str, detail: str, emergency, candidates) -> NpcDecision:
        """The decision's record: the selection's fields as given, then what the state now holds (made in one call,
        not field by field: a host makes hundreds a tick)."""
        plan = ctx.planner.summary() if st.plan and ctx.planner is not None else None
        events = ctx.events
        return NpcDecision(-1, 0, now, phase, mode_before, held, choice, switch, reason, detail, emergency, candidates,
                           st.mode or None, list(st.path), self.machine.running_path(st), st.status,
                           st.status_reason, [f"{who}: {what}" for who, what in events] if events else [], plan)

    def _stop(self, st: BrainState, ctx: Context) -> None:
        self.machine.exit_all(st, ctx)
        st.mode = ""
        st.status, st.status_reason = RUNNING, ""

    def _enter(self, st: BrainState, choice: str | None, ctx: Context, now: float) -> None:
        if st.path:
            self.machine.exit_all(st, ctx)
        st.status, st.status_reason = RUNNING, ""
        if choice is None:
            st.mode = ""
            if self.idle_state:
                self.machine.enter(st, self.idle_state, ctx)
            return
        st.mode = choice
        st.since = now
        self.machine.enter(st, self.selector.by_id[choice].mode_state, ctx)

    def stop(self, st: BrainState, actuator, facts: dict | None = None, now: float = 0.0) -> list[int]:
        """Halt everything (e.g. the brain is being rebuilt): returns the cancelled action ids.

        The state is left idle with nothing pending; the host releases the cancelled actions as usual.

        >>> from ai.bt import ActionLeaf, Tree
        >>> from ai.hfsm import Machine, State
        >>> from ai.status import RUNNING
        >>> from ai.utility import Candidate, ModeSelector
        >>> class Host:                              # accepts every action as #1 and never finishes it
        ...     def submit(self, kind, target, params): return 1
        ...     def status(self, aid): return RUNNING, ""
        ...     def cancel(self, aid): print("cancel", aid)
        >>> brain = Brain("guard", ModeSelector([Candidate("engage")]),
        ...               Machine([State("engage", tree=Tree(ActionLeaf("attack", 7)))]))
        >>> st = brain.new_state()
        >>> brain.think(st, {}, 0.0, Host()).bt
        ['attack']
        >>> brain.stop(st, Host()), st.mode, st.path
        cancel 1
        ([1], '', [])
        """
        cancelled: list[int] = []
        planner = self.planning.bind(st.plan) if self.planning is not None else None
        ctx = Context(st.mem, facts or {}, st.bb, _Recorder(actuator, cancelled), now, planner)
        self.machine.exit_all(st, ctx)
        st.mode = ""
        st.pending = False
        st.pending_to = st.dropped = ""
        st.releasing = []
        st.status, st.status_reason = RUNNING, ""
        return cancelled


class _Recorder:
    """Wraps the host's actuator to note every cancel a switch causes."""
    __slots__ = ("inner", "cancelled")

    def __init__(self, inner, cancelled: list):
        self.inner = inner
        self.cancelled = cancelled

    def submit(self, kind, target, params):
        return self.inner.submit(kind, target, params)

    def status(self, action_id):
        return self.inner.status(action_id)

    def cancel(self, action_id):
        self.cancelled.append(action_id)
        self.inner.cancel(action_id)

    def __getattr__(self, name):
        return getattr(self.inner, name)
