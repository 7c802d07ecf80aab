"""The host action ledger: the one seam between deciders and the world.

Deciders (player input, scripted AI, NPC brains, the commander) never touch
world components. They ``submit`` typed actions and may ``cancel`` them; the
host processes those requests at one point of the tick:

    submitted -> accepted | rejected(reason)
    accepted  -> started             (preconditions checked again)
    started   -> confirmed | failed(reason) | cancelled | timed_out

Exactly one terminal state per accepted action. Each active action holds the
reservations its executor asked for (a door, a pickup, a cover slot, a
target, an amount of the team's stockpile); every terminal transition releases
exactly those. A cancel takes effect before any later effect can happen, and
executors apply their effects only while the action is still started, so a
cancelled action never has its effect afterwards.

**Lanes.** An actor's actions run in lanes named by their executor (``lane``,
default "act"). A lane holds one action (``queue = 1``): accepting a new one
supersedes the old, so a unit does one thing at a time. A lane may instead be a
queue (``queue = 5`` for a building's production): new actions wait behind the
first, a full queue refuses, and only the front may start. An accepted action
starts in the tick it is accepted when it is its lane's front and its executor
is ``ready`` (production waits while the team is at its population cap); else
it stays accepted, holding its reservations, until it is.

**Reservations** are rows ``[resource..., mode]``: ``True`` holds the resource
exclusively, ``False`` shares it (every attacker of one target), and a whole
number ``n > 0`` holds ``n`` units of a pool (the team's stockpile, the gathering
slots of a field) whose size the executor checks against ``held(resource)``.
An executor may release one of its action's reservations early (a production
pays its cost when it starts: the held amount becomes spent).

Every request processed in a tick is appended to ``tick_log`` so a recorder can
write it into a replay; re-applying the same requests at the same ticks
reproduces the match without consulting any decider.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush
from typing import Protocol

from ai.status import FAILURE, RUNNING, SUCCESS

SUBMITTED = "submitted"
ACCEPTED = "accepted"
REJECTED = "rejected"
STARTED = "started"
CONFIRMED = "confirmed"
FAILED = "failed"
CANCELLED = "cancelled"
TIMED_OUT = "timed_out"

TERMINAL = frozenset({REJECTED, CONFIRMED, FAILED, CANCELLED, TIMED_OUT})
ACTIVE = frozenset({ACCEPTED, STARTED})

#: the ledger's lifecycle as the decision layers see it (``ai.status``): the one place a ledger state is mapped.
#: Only a confirmation is a success; a refusal, failure, cancel or time-out is a failure to the decider.
OUTCOME = {SUBMITTED: RUNNING, ACCEPTED: RUNNING, STARTED: RUNNING, CONFIRMED: SUCCESS,
           REJECTED: FAILURE, FAILED: FAILURE, CANCELLED: FAILURE, TIMED_OUT: FAILURE}

#: how long finished actions stay readable (ticks) before they are pruned
HISTORY_TICKS = 300
FREE_EACH_TICK = 512       # pruned actions freed a tick, at least (``Ledger._prune``)


@dataclass(slots=True)
class Action:
    id: int
    kind: str
    actor: int
    target: int
    params: dict
    submit_tick: int
    source: str = ""
    state: str = SUBMITTED
    reason: str = ""
    timeout: int = 0               # ticks after start; 0 = the kind's default
    start_tick: int = -1
    end_tick: int = -1
    reservations: list = field(default_factory=list)   # [[resource..., exclusive], ...]
    data: dict = field(default_factory=dict)            # executor scratch (part of the state)

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    @property
    def done(self) -> bool:
        return self.state in TERMINAL


class Executor(Protocol):
    """How the host carries out one action kind (see systems/actions/).

    Optional attributes the ledger reads with defaults: ``lane`` ("act"), ``queue`` (1) and ``ready(world,
    action) -> bool`` (True): see the module docstring."""
    default_timeout: int

    def check(self, world, action: Action) -> str | None:
        """Reason the action cannot run now, or None."""

    def reservations(self, world, action: Action) -> list[tuple]:
        """Resources to hold while active: tuples ending with an 'exclusive' bool."""

    def start(self, world, action: Action) -> None: ...

    def update(self, world, action: Action) -> tuple[str, str] | None:
        """Advance one tick; return (terminal_state, reason) when finished."""

    def stop(self, world, action: Action) -> None:
        """Undo in-world side effects of a running action (stop walking, stop firing)."""


class LedgerError(ValueError):
    pass


class Ledger:
    def __init__(self, executors: dict[str, Executor]):
        self.executors = executors
        self.next_id = 1
        self.actions: dict[int, Action] = {}          # recent and active, by id
        self.lanes: dict[tuple[int, str], list[int]] = {}   # (actor, lane) -> its active actions, front first
        #: the ids in every lane together (every active action), kept as actions join and leave a lane, so the
        #: executors' pass and ``active_sorted`` do not gather them from every lane each tick
        self.active_ids: set[int] = set()
        self.exclusive: dict[tuple, int] = {}         # resource -> holding action id
        self.shared: dict[tuple, set[int]] = {}       # resource -> holding action ids
        self.held: dict[tuple, int] = {}              # pool -> units held by active actions
        self.queue: list[tuple] = []                  # requests not yet processed
        self.tick_log: list[list] = []                # requests processed this tick (for replays)
        self.events: list[tuple[int, str, str]] = []  # (action id, new state, reason) this tick
        self._fronts: set[int] = set()                # accepted actions at the front of their lane, not started
        #: bumped whenever an action joins or leaves a lane or starts: what is derived from the active actions
        #: (``active_sorted``, a team's population in training) is kept until it moves
        self.version = 0
        self._active: tuple[int, tuple] = (-1, ())     # (version, active_sorted() then)
        #: (the tick it times out at, action id) of every started action with a time limit, a heap: a tick's
        #: time-outs are read off its front instead of testing every started action. Entries of actions that ended
        #: otherwise stay until their tick comes (then are dropped) or the heap is rebuilt (``_schedule``)
        self._deadlines: list[tuple[int, int]] = []
        #: (end tick, id) of ended actions in the order they ended (so by end tick): ``_prune`` takes the stale
        #: ones off the front instead of reading every kept action (at 10,000 units about 60,000, 17-27 ms a pass)
        self._ended: deque[tuple[int, int]] = deque()
        #: pruned actions not yet freed: out of ``actions`` at once, freed a share a tick (``_prune``)
        self._forgotten: list[Action] = []

    # -- deciders' side --------------------------------------------------------
    def submit(self, tick: int, kind: str, actor: int, target: int = 0, params: dict | None = None,
               source: str = "", timeout: int = 0) -> Action:
        """Queue an action; it is accepted or rejected when the ledger processes the tick."""
        action = Action(self.next_id, kind, int(actor), int(target), dict(sorted((params or {}).items())), tick,
                        source=source, timeout=int(timeout))
        self.next_id += 1
        self.actions[action.id] = action
        self.queue.append(("submit", action.id))
        return action

    def cancel(self, action_id: int, reason: str = "cancelled") -> None:
        """Queue a cancel request for an active action (ignored if it already ended)."""
        self.queue.append(("cancel", int(action_id), reason))

    def get(self, action_id: int) -> Action | None:
        return self.actions.get(action_id)

    def current(self, actor: int, lane: str = "act") -> Action | None:
        """The front action of the actor's lane (a unit's one action), or None."""
        ids = self.lanes.get((actor, lane))
        return self.actions[ids[0]] if ids else None

    def queue_of(self, actor: int, lane: str) -> list[Action]:
        """Every active action of the actor's lane, front first (a building's production queue)."""
        return [self.actions[aid] for aid in self.lanes.get((actor, lane), ())]

    def held_amount(self, pool: tuple) -> int:
        """How many units of a pool (say ``("stock", team)``) active actions hold."""
        return self.held.get(pool, 0)

    def lane_of(self, action: Action) -> tuple[str, int]:
        """(lane name, queue length) of the action's kind."""
        executor = self.executors[action.kind]
        return getattr(executor, "lane", "act"), getattr(executor, "queue", 1)

    # -- host side ------------------------------------------------------------
    def process(self, world, order=None) -> None:
        """Accept/reject queued submissions, apply cancels, start accepted actions, time out. ``order(world,
        requests)``, if given, returns the order to process the tick's requests in (the host's fair order:
        systems/ledger_system.py); ``tick_log`` keeps them in submission order, in which a replay re-submits them
        (so their action ids come out the same) before the same order is applied again."""
        self.tick_log = []
        self.events = []
        queue, self.queue = self.queue, []
        for request in queue:
            if request[0] == "cancel":
                self.tick_log.append(["cancel", request[1], request[2]])
                continue
            action = self.actions[request[1]]
            self.tick_log.append(["submit", action.id, action.kind, action.actor, action.target,
                                  action.params, action.source, action.timeout])
        if order is not None:
            queue = order(world, queue)
        for request in queue:
            if request[0] == "cancel":
                _, aid, reason = request
                action = self.actions.get(aid)
                if action is not None and action.active:
                    self._finish(world, action, CANCELLED, reason)
                continue
            self._accept(world, self.actions[request[1]])
        # start every accepted lane front (this tick's acceptances and queued ones now at the front), lowest id
        # first; a front whose executor is not ready stays accepted and is tried again next tick
        for aid in sorted(self._fronts):
            action = self.actions[aid]
            if action.state != ACCEPTED:
                self._fronts.discard(aid)
                continue
            executor = self.executors[action.kind]
            ready = getattr(executor, "ready", None)
            if ready is not None and not ready(world, action):
                continue
            self._fronts.discard(aid)
            reason = executor.check(world, action)
            if reason:
                self._finish(world, action, FAILED, reason)
                continue
            action.state = STARTED
            self.version += 1
            action.start_tick = world.tick
            self._schedule(action)
            self.events.append((action.id, STARTED, ""))
            executor.start(world, action)
        # time out every started action whose limit has run (``tick - start_tick >= limit``), lowest id first
        heap, due = self._deadlines, []
        while heap and heap[0][0] <= world.tick:
            due.append(heappop(heap)[1])
        for aid in sorted(due):
            action = self.actions.get(aid)
            if action is not None and action.state == STARTED:
                self._finish(world, action, TIMED_OUT, f"no result after {self._limit(action)} ticks")
        self._prune(world.tick)

    def _limit(self, action: Action) -> int:
        """Ticks after its start before a started action times out (0 = never)."""
        return action.timeout or self.executors[action.kind].default_timeout

    def _schedule(self, action: Action) -> None:
        """Put a started action's time-out on the heap; rebuild it from the started actions when it holds more than
        twice as many entries as the ledger keeps actions, plus 64 (entries of ended actions wait there until their
        tick comes, so this bounds it by the actions kept, not by every action ever started)."""
        limit = self._limit(action)
        if limit:
            heappush(self._deadlines, (action.start_tick + limit, action.id))
        if len(self._deadlines) > 2 * len(self.actions) + 64:
            self._deadlines = [(a.start_tick + limit, a.id) for a in self.actions.values()
                               if a.state == STARTED and (limit := self._limit(a))]
            heapify(self._deadlines)

    def _accept(self, world, action: Action) -> bool:
        executor = self.executors.get(action.kind)
        if executor is None:
            self._reject(world, action, f"unknown action kind '{action.kind}'")
            return False
        reason = executor.check(world, action)
        if reason:
            self._reject(world, action, reason)
            return False
        wanted = [tuple(r) for r in executor.reservations(world, action)]
        lane, queue = self.lane_of(action)
        lane_ids = self.lanes.get((action.actor, lane), ())
        previous = None
        if queue == 1:
            previous = self.current(action.actor, lane)
        elif len(lane_ids) >= queue:
            self._reject(world, action, f"the {lane} queue is full ({queue})")
            return False
        prev_id = previous.id if previous is not None else None
        for res in wanted:
            key, mode = res[:-1], res[-1]
            if type(mode) is not bool:
                continue                      # a pool amount: the executor's check compared it with held_amount
            owner = self.exclusive.get(key)
            holders = set(self.shared.get(key, ()))
            if owner is not None:
                holders.add(owner)
            holders.discard(prev_id)
            if holders and (mode or (owner is not None and owner != prev_id)):
                self._reject(world, action, f"{'/'.join(map(str, key))} is reserved by action {min(holders)}")
                return False
        if previous is not None:
            self._finish(world, previous, CANCELLED, f"superseded by action {action.id}")
        action.state = ACCEPTED
        self.events.append((action.id, ACCEPTED, ""))
        action.reservations = [list(res) for res in wanted]
        self._hold(action)
        return True

    def _hold(self, action: Action) -> None:
        """Put ``action`` at the back of its lane and register its reservations."""
        ids = self.lanes.setdefault((action.actor, self.lane_of(action)[0]), [])
        ids.append(action.id)
        self.active_ids.add(action.id)
        self.version += 1
        if len(ids) == 1 and action.state == ACCEPTED:
            self._fronts.add(action.id)
        for res in action.reservations:
            key, mode = tuple(res[:-1]), res[-1]
            if type(mode) is not bool:
                self.held[key] = self.held.get(key, 0) + mode
            elif mode:
                self.exclusive[key] = action.id
            else:
                self.shared.setdefault(key, set()).add(action.id)

    def _unhold(self, action: Action, res) -> None:
        key, mode = tuple(res[:-1]), res[-1]
        if type(mode) is not bool:
            left = self.held.get(key, 0) - mode
            if left > 0:
                self.held[key] = left
            else:
                self.held.pop(key, None)
        elif mode:
            if self.exclusive.get(key) == action.id:
                del self.exclusive[key]
        else:
            holders = self.shared.get(key)
            if holders is not None:
                holders.discard(action.id)
                if not holders:
                    del self.shared[key]

    def release(self, action: Action, resource: tuple) -> bool:
        """Release one reservation of an active action early (e.g. a held amount has now been spent).
        Returns whether it held one on ``resource``."""
        for i, res in enumerate(action.reservations):
            if tuple(res[:-1]) == tuple(resource):
                self._unhold(action, res)
                del action.reservations[i]
                return True
        return False

    def _reject(self, world, action: Action, reason: str) -> None:
        action.state = REJECTED
        action.reason = reason
        action.end_tick = world.tick
        self._ended.append((action.end_tick, action.id))
        self.events.append((action.id, REJECTED, reason))

    def _finish(self, world, action: Action, state: str, reason: str) -> None:
        if not action.active:
            raise LedgerError(f"action {action.id} is already {action.state}")
        was_started = action.state == STARTED
        action.state = state
        action.reason = reason
        action.end_tick = world.tick
        self._ended.append((action.end_tick, action.id))
        for res in action.reservations:
            self._unhold(action, res)
        self._fronts.discard(action.id)
        lane_key = (action.actor, self.lane_of(action)[0])
        ids = self.lanes.get(lane_key)
        if ids is not None and action.id in ids:
            ids.remove(action.id)
            self.active_ids.discard(action.id)
            self.version += 1
            if not ids:
                del self.lanes[lane_key]
            elif self.actions[ids[0]].state == ACCEPTED:
                self._fronts.add(ids[0])      # the next in the queue starts when the ledger next processes
        self.events.append((action.id, state, reason))
        if was_started:
            self.executors[action.kind].stop(world, action)

    def finish(self, world, action: Action, state: str, reason: str = "") -> None:
        """Executors end their action here (confirmed, failed, ...)."""
        if state not in (CONFIRMED, FAILED, CANCELLED, TIMED_OUT):
            raise LedgerError(f"'{state}' is not a terminal state for a started action")
        self._finish(world, action, state, reason)

    def actor_gone(self, world, actor: int) -> None:
        """The actor was destroyed: every active action of it fails, in every lane (a building's queue too)."""
        lanes = {getattr(executor, "lane", "act") for executor in self.executors.values()}    # every lane there is
        mine = sorted(aid for lane in lanes for aid in self.lanes.get((actor, lane), ()))
        for aid in mine:
            self._finish(world, self.actions[aid], FAILED, "actor died")

    def target_gone(self, world, target: int) -> None:
        """Confirm every active action aimed at ``target`` (it was destroyed)."""
        for aid in sorted(self.shared.get(("target", target), ())):
            action = self.actions[aid]
            if action.active:
                self._finish(world, action, CONFIRMED, "target destroyed")

    def active_sorted(self) -> tuple[Action, ...]:
        """Every active action (accepted or started, in any lane), ascending id; kept until ``version`` moves
        (the ledger and the deciders ask for it several times a tick)."""
        if self._active[0] != self.version:
            self._active = (self.version, tuple(map(self.actions.__getitem__, sorted(self.active_ids))))
        return self._active[1]

    def _prune(self, tick: int) -> None:
        """Every 64 ticks, forget the actions that ended more than ``HISTORY_TICKS`` ago: the front of ``_ended``
        (actions end at the tick the ledger is at, so its end ticks never fall). They leave ``actions`` then; the
        objects are freed over the next ticks, a share each tick (at 10,000 units a pass forgets 10,000-15,000
        actions, and freeing them at once took 7-12 ms of one tick)."""
        forgotten = self._forgotten
        if forgotten:
            del forgotten[-max(FREE_EACH_TICK, len(forgotten) // 16):]
        if tick % 64:
            return
        cutoff = tick - HISTORY_TICKS
        ended, actions = self._ended, self.actions
        while ended and ended[0][0] < cutoff:
            end, aid = ended.popleft()
            action = actions.get(aid)
            if action is not None and action.done and action.end_tick == end:      # (the very end it reported)
                del actions[aid]
                forgotten.append(action)

    # -- state for hashing and snapshots -----------------------------------------
    def state_rows(self) -> list:
        """[next id, active actions as full rows (ascending id), queued requests]: what the sync hash covers
        and what a snapshot stores (queued submissions' records travel with the queue)."""
        queued = [[*req] if req[0] == "cancel" else ["submit", action_to_row(self.actions[req[1]])]
                  for req in self.queue]
        return [self.next_id, [action_to_row(a) for a in self.active_sorted()], queued]


# -- snapshot support -------------------------------------------------------------
_ACTION_FIELDS = ("id", "kind", "actor", "target", "params", "submit_tick", "source", "state", "reason",
                  "timeout", "start_tick", "end_tick", "reservations", "data")
_ACTION_TYPES = (int, str, int, int, dict, int, str, str, str, int, int, int, list, dict)


def action_to_row(action: Action) -> list:
    return [getattr(action, name) for name in _ACTION_FIELDS]


def action_from_row(row) -> Action:
    if not isinstance(row, list) or len(row) != len(_ACTION_FIELDS):
        raise ValueError("an action record has the wrong shape")
    for name, kind, value in zip(_ACTION_FIELDS, _ACTION_TYPES, row):
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"action field '{name}' should be {kind.__name__}")
    action = Action(*row[:4], dict(row[4]), row[5])
    for name, value in zip(_ACTION_FIELDS[6:], row[6:]):
        setattr(action, name, value)
    if action.state not in ACTIVE and action.state not in TERMINAL and action.state != SUBMITTED:
        raise ValueError(f"action {action.id} has unknown state '{action.state}'")
    for res in action.reservations:
        if not isinstance(res, list) or len(res) < 2 or not (
                type(res[-1]) is bool or (type(res[-1]) is int and res[-1] > 0)):
            raise ValueError(f"action {action.id} has a malformed reservation")
    return action


def ledger_restore(ledger: Ledger, state) -> None:
    """Load ``Ledger.state_rows()`` output into an empty ledger; ValueError on anything malformed."""
    if not (isinstance(state, list) and len(state) == 3 and isinstance(state[0], int)
            and isinstance(state[1], list) and isinstance(state[2], list)):
        raise ValueError("ledger state is malformed")
    next_id, rows, queued = state
    actions = {}
    for row in rows:
        action = action_from_row(row)
        if not action.active:
            raise ValueError(f"action {action.id} is listed as active but is {action.state}")
        if action.id in actions:
            raise ValueError(f"action {action.id} is listed twice")
        actions[action.id] = action
    queue = []
    for req in queued:
        if isinstance(req, list) and len(req) == 2 and req[0] == "submit":
            action = action_from_row(req[1])
            if action.id in actions:
                raise ValueError(f"action {action.id} is listed twice")
            actions[action.id] = action
            queue.append(("submit", action.id))
        elif isinstance(req, list) and len(req) == 3 and req[0] == "cancel" and isinstance(req[1], int) \
                and isinstance(req[2], str):
            queue.append(("cancel", req[1], req[2]))
        else:
            raise ValueError("ledger queue entry is malformed")
    for action in actions.values():
        if action.kind not in ledger.executors:
            raise ValueError(f"action {action.id} has unknown kind '{action.kind}'")
        if action.id >= next_id:
            raise ValueError(f"action {action.id} is not below next_id {next_id}")
    ledger.next_id = next_id
    ledger.actions = actions
    ledger._ended.clear()                      # (a restored ledger holds no ended action)
    ledger._forgotten.clear()
    ledger.queue = queue
    for action in sorted(actions.values(), key=lambda a: a.id):
        if not action.active:
            continue
        lane, size = ledger.lane_of(action)
        if len(ledger.lanes.get((action.actor, lane), ())) >= size:
            raise ValueError(f"actor {action.actor} has more active {lane} actions than its lane holds")
        ledger._hold(action)
        if action.state == STARTED:
            ledger._schedule(action)
