"""Decision records: what a decider decided and why, in one typed home for every kind of decider.

Every decision the AI makes leaves a record: an NPC brain's utility selection and what its state machine,
tree and plan did (``NpcDecision``), a tactical commander's search and the orders it gave
(``CommanderDecision``). Writers build these classes; readers (``rts explain``, the inspector, the replay
viewer, ``rts report``) read the same classes, so a field has one name and one type everywhere.

Each record kind has a ``kind`` name and a ``key`` telling whose decision it is (an NPC's entity id, a
commander's team), so a log or an index is keyed by ``(kind, key)`` and any number of teams or new deciders
fit. A new kind of decider adds one class here and one line to ``RECORD_KINDS``.

On disk (replay ``D`` chunks) a record is its wire form: a plain dict of its fields plus ``kind``.
``from_wire`` checks every field's type before building the record and names the bad key in a
``RecordError``, so a damaged or hostile file is refused in one line instead of failing later::

    >>> from ai.records import CommanderDecision, from_wire, RecordError
    >>> rec = CommanderDecision(tick=90, team=1, profile="uct", algorithm="uct", playouts=2000, iterations=250,
    ...                         value=0.61, groups=[["1:0", 4, 300.0]], orders=[[0, "attack", 4]])
    >>> (rec.kind, rec.key)
    ('commander', 1)
    >>> from_wire(rec.to_wire()) == rec
    True
    >>> try:
    ...     from_wire({"kind": "commander", "tick": "soon"})
    ... except RecordError as exc:
    ...     print(exc)
    tick: expected a whole number, got str
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field, fields
from typing import ClassVar

from ai.status import RUNNING, Status


class RecordError(ValueError):
    """A wire-form record that does not fit its kind; the message starts with the key path."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


# -- field checks for the wire form ---------------------------------------------------------------------------
def _fail(path: str, what: str, value) -> RecordError:
    return RecordError(path, f"expected {what}, got {type(value).__name__}")


def _int(path, v):
    if type(v) is not int:
        raise _fail(path, "a whole number", v)
    return v


def _num(path, v):
    if type(v) not in (int, float):
        raise _fail(path, "a number", v)
    if not math.isfinite(v):
        raise RecordError(path, f"expected a finite number, got {v!r}")
    return float(v)


def _str(path, v):
    if type(v) is not str:
        raise _fail(path, "a string", v)
    return v


def _bool(path, v):
    if type(v) is not bool:
        raise _fail(path, "true or false", v)
    return v


def _opt(check):
    return lambda path, v: None if v is None else check(path, v)


def _list(check):
    def run(path, v):
        if not isinstance(v, list):
            raise _fail(path, "a list", v)
        return [check(f"{path}[{i}]", x) for i, x in enumerate(v)]
    return run


def _row(*checks, as_tuple: bool = False):
    """A fixed-length row; ``as_tuple`` for rows the writer builds as tuples (so a decoded record equals it)."""
    def run(path, v):
        if not isinstance(v, (list, tuple)) or len(v) != len(checks):
            raise RecordError(path, f"expected a row of {len(checks)} values")
        row = [check(f"{path}[{i}]", x) for i, (check, x) in enumerate(zip(checks, v))]
        return tuple(row) if as_tuple else row
    return run


def _scalar(path, v):
    """A fact value as records keep it: None, a bool, a finite number or a string."""
    if v is None or type(v) in (bool, str):
        return v
    if type(v) in (int, float) and math.isfinite(v):
        return v
    raise RecordError(path, f"expected a plain value (number, string, bool or nothing), got {type(v).__name__}")


def _status(path, v):
    _int(path, v)
    if v not in Status._value2member_map_:
        raise RecordError(path, f"expected a status (0-3), got {v}")
    return v


def _strings(path, v):
    return _list(_str)(path, v)


# -- the record kinds -------------------------------------------------------------------------------------------
class Record:
    """Behaviour shared by every record kind: its key and the wire form (each kind is a slotted dataclass)."""
    __slots__ = ()
    kind: ClassVar[str] = ""
    key_field: ClassVar[str] = ""
    #: how many of one decider's records of this kind a live match keeps in memory (``DecisionLog``); None: the
    #: log's ring. A kind written by every unit several times a second keeps few: each kept record is a handful of
    #: objects the garbage collector walks on every pass (replays and ``collect`` take every record regardless)
    keep: ClassVar[int | None] = None
    _SPEC: ClassVar[tuple] = ()                 # (field name, check, nested record class or None)

    @property
    def key(self) -> int:
        """Whose decision this is (the value of the kind's ``key_field``)."""
        return getattr(self, self.key_field)

    def to_wire(self) -> dict:
        """Plain data for msgpack and JSON: the fields by name plus ``kind``."""
        out = {"kind": self.kind}
        for name, _check, nested in self._SPEC:
            value = getattr(self, name)
            if nested is not None and value is not None:
                value = [v.to_wire() for v in value] if isinstance(value, list) else value.to_wire()
            out[name] = value
        return out

    @classmethod
    def from_wire(cls, data, path: str = ""):
        """Build the record from its wire form, checking every field; RecordError names the bad key."""
        if not isinstance(data, dict):
            raise RecordError(path, f"expected a table, got {type(data).__name__}")
        values = {}
        for f in fields(cls):
            spec = next((s for s in cls._SPEC if s[0] == f.name), None)
            if spec is None:
                continue
            name, check, nested = spec
            where = f"{path}.{name}" if path else name
            if name not in data:
                raise RecordError(where, "missing")
            value = data[name]
            if check is _LIST_OF_RECORDS:
                if not isinstance(value, list):
                    raise _fail(where, "a list", value)
                value = [nested.from_wire(v, f"{where}[{i}]") for i, v in enumerate(value)]
            elif check is _ONE_RECORD:
                value = None if value is None else nested.from_wire(value, where)
            else:
                value = check(where, value)
            values[name] = value
        return cls(**values)


_LIST_OF_RECORDS = object()     # marks a field holding a list of nested records
_ONE_RECORD = object()          # marks a field holding one nested record (or None)


@dataclass(slots=True, eq=True)
class CandidateScore(Record):
    """One utility candidate scored against one fact snapshot (ai/utility.py).

    ``gates`` are rows ``[gate, actual, ok]`` and ``prefs`` rows ``[input, raw, normalised, curved, weight]``
    (rows rather than dicts keep a decision of 8 candidates x 4 preferences fast; ``GATE_FIELDS`` and
    ``PREF_FIELDS`` name the columns and ``expanded`` gives named dicts for people and JSON). An ineligible
    candidate has no score; ``diagnostics`` say why when it is not a gate.
    """
    id: str
    eligible: bool
    score: float | None
    gates: list = field(default_factory=list)
    prefs: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)

    kind: ClassVar[str] = "candidate"
    GATE_FIELDS: ClassVar[tuple] = ("gate", "actual", "ok")
    PREF_FIELDS: ClassVar[tuple] = ("input", "raw", "norm", "curved", "weight")

    def to_wire(self) -> dict:
        return {"id": self.id, "eligible": self.eligible, "score": self.score, "gates": [list(g) for g in self.gates],
                "prefs": [list(p) for p in self.prefs], "diagnostics": list(self.diagnostics)}

    def expanded(self) -> dict:
        """The candidate with its gate and preference rows as named dicts."""
        out = self.to_wire()
        out["gates"] = [dict(zip(self.GATE_FIELDS, g)) for g in self.gates]
        out["prefs"] = [dict(zip(self.PREF_FIELDS, p)) for p in self.prefs]
        return out

    def failed_gates(self) -> list[str]:
        return [g[0] for g in self.gates if not g[2]]


CandidateScore._SPEC = (
    ("id", _str, None), ("eligible", _bool, None), ("score", _opt(_num), None),
    ("gates", _list(_row(_str, _scalar, _bool, as_tuple=True)), None),
    ("prefs", _list(_row(_str, _scalar, _opt(_scalar), _opt(_scalar), _scalar, as_tuple=True)), None),
    ("diagnostics", _strings, None),
)


@dataclass(slots=True, eq=True)
class PlanRecord(Record):
    """The plan an NPC is carrying out (ai/executor.py): its steps, the one under way and how it went."""
    mode: str                 # "goap" or "htn" ("" while no plan stands: see the log)
    goal: str                 # the GOAP goal or HTN task
    steps: list = field(default_factory=list)          # step names in order
    index: int = 0            # the step under way (== len(steps) once complete)
    action: int = 0           # the ledger action of that step (0 = none)
    status: int = RUNNING     # ai.status
    replans: int = 0
    log: list = field(default_factory=list)            # [[game seconds, what happened], ...], the latest few

    kind: ClassVar[str] = "plan"

    @property
    def step(self) -> str | None:
        """The step under way, or None when the plan has no step left."""
        return self.steps[self.index] if 0 <= self.index < len(self.steps) else None


PlanRecord._SPEC = (
    ("mode", _str, None), ("goal", _str, None), ("steps", _strings, None), ("index", _int, None),
    ("action", _int, None), ("status", _status, None), ("replans", _int, None),
    ("log", _list(_row(_num, _str)), None),
)


@dataclass(slots=True, eq=True)
class NpcDecision(Record):
    """One decision of an NPC's behavior stack (ai/brain.py): the utility selection, then what ran.

    ``phase`` is "decide" (an ordinary selection) or "release" (a switch that waited for the old mode's
    ledger actions to be released). ``reason`` is the selection's verdict (ai/utility.py: ordinary,
    invalidation, emergency, held by hysteresis, current is best, idle; ai/brain.py: the release verdicts)
    and ``detail`` says it in words. After the selection: the mode, the HFSM state path, the running
    behavior-tree path, the mode's status (ai.status), the tree's events and the plan.
    """
    tick: int = -1            # the host sets tick and entity
    entity: int = 0
    time: float = 0.0         # game seconds
    phase: str = "decide"
    mode_before: str | None = None
    held: float | None = None             # seconds the previous mode had run (None when idle)
    choice: str | None = None
    switch: bool = False
    reason: str = ""
    detail: str = ""
    emergency: str | None = None
    candidates: list = field(default_factory=list)     # CandidateScore, in candidate id order
    mode: str | None = None
    state: list = field(default_factory=list)
    bt: list = field(default_factory=list)
    status: int = RUNNING
    status_reason: str = ""
    events: list = field(default_factory=list)
    plan: PlanRecord | None = None

    kind: ClassVar[str] = "npc"
    key_field: ClassVar[str] = "entity"
    keep: ClassVar[int | None] = 2       # the latest (the window's inspector) and the one before

    def candidate(self, cid: str) -> CandidateScore | None:
        return next((c for c in self.candidates if c.id == cid), None)


NpcDecision._SPEC = (
    ("tick", _int, None), ("entity", _int, None), ("time", _num, None), ("phase", _str, None),
    ("mode_before", _opt(_str), None), ("held", _opt(_num), None), ("choice", _opt(_str), None),
    ("switch", _bool, None), ("reason", _str, None), ("detail", _str, None), ("emergency", _opt(_str), None),
    ("candidates", _LIST_OF_RECORDS, CandidateScore), ("mode", _opt(_str), None), ("state", _strings, None),
    ("bt", _strings, None), ("status", _status, None), ("status_reason", _str, None), ("events", _strings, None),
    ("plan", _ONE_RECORD, PlanRecord),
)


@dataclass(slots=True, eq=True)
class CommanderDecision(Record):
    """One decision of a team's tactical commander (systems/commander.py, ai/tactics.py).

    ``groups`` are rows ``[name, region, hit points]`` (the abstract state searched), ``orders`` rows
    ``[squad, order kind, region]`` (what each squad was told, changed or not), ``stats`` rows
    ``[option, playouts, mean value]`` (the search's view of the options at the root).
    """
    tick: int
    team: int
    profile: str
    algorithm: str
    playouts: int
    iterations: int
    value: float
    groups: list = field(default_factory=list)
    orders: list = field(default_factory=list)
    stats: list = field(default_factory=list)
    ms: float = 0.0           # wall-clock milliseconds the search took, 0 unless timings were asked for (`--timings`)
    view: str = "all"         # what it searched on: "fog" (what its team sees and remembers, unseen squads
                              # estimated), "sees_all" (its profile ignores fog) or "all" (no fog in the match)

    kind: ClassVar[str] = "commander"
    key_field: ClassVar[str] = "team"


CommanderDecision._SPEC = (
    ("tick", _int, None), ("team", _int, None), ("profile", _str, None), ("algorithm", _str, None),
    ("playouts", _int, None), ("iterations", _int, None), ("value", _num, None),
    ("groups", _list(_row(_str, _int, _num)), None), ("orders", _list(_row(_int, _str, _int)), None),
    ("stats", _list(_row(_str, _int, _num)), None), ("ms", _num, None), ("view", _str, None),
)

@dataclass(slots=True, eq=True)
class ReflexDecision(Record):
    """An automatic choice of a player's unit under its stance (systems/reflexes.py): it acquired a target,
    answered fire, broke off a chase at its leash, reloaded or took a load home, without an order.

    ``trigger`` says what set it off ("enemy in sight", "hit by 12", "leash 8.0 tiles", ...), ``action`` the
    ledger action kind it submitted (with ``target``, 0 for none) and ``stance`` the unit's stance then.
    """
    tick: int
    entity: int
    team: int
    stance: str
    trigger: str
    action: str
    target: int = 0

    kind: ClassVar[str] = "reflex"
    key_field: ClassVar[str] = "entity"


ReflexDecision._SPEC = (
    ("tick", _int, None), ("entity", _int, None), ("team", _int, None), ("stance", _str, None),
    ("trigger", _str, None), ("action", _str, None), ("target", _int, None),
)

@dataclass(slots=True, eq=True)
class StrategyDecision(Record):
    """One decision of a team's planned strategy (ai/strategy.py, systems/strategy_planned.py): the posture's
    utility selection and the HTN plan carried out through the ledger.

    ``facts`` are rows ``[fact, value]`` (the strategic facts it decided on), ``candidates`` the postures'
    ``CandidateScore`` (gates, preferences, scores), ``steps`` rows ``[task, ledger action id, state]`` (each
    plan step's ledger state: pending, submitted, accepted, started, confirmed, done for an order, waiting n,
    or the failure), ``order`` the army's standing order, ``plan`` the plan with its log.
    """
    tick: int
    team: int
    profile: str
    posture_before: str | None = None
    posture: str | None = None
    switch: bool = False
    reason: str = ""
    detail: str = ""
    emergency: str | None = None
    candidates: list = field(default_factory=list)
    order: str = "hold"
    facts: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    plan: PlanRecord | None = None

    kind: ClassVar[str] = "strategy"
    key_field: ClassVar[str] = "team"


StrategyDecision._SPEC = (
    ("tick", _int, None), ("team", _int, None), ("profile", _str, None), ("posture_before", _opt(_str), None),
    ("posture", _opt(_str), None), ("switch", _bool, None), ("reason", _str, None), ("detail", _str, None),
    ("emergency", _opt(_str), None), ("candidates", _LIST_OF_RECORDS, CandidateScore), ("order", _str, None),
    ("facts", _list(_row(_str, _scalar)), None), ("steps", _list(_row(_str, _int, _str)), None),
    ("plan", _ONE_RECORD, PlanRecord),
)

#: every kind of top-level decision record, by its ``kind`` name
RECORD_KINDS: dict[str, type[Record]] = {cls.kind: cls for cls in (NpcDecision, CommanderDecision, ReflexDecision,
                                                                   StrategyDecision)}


def from_wire(data, path: str = "") -> Record:
    """A record of any kind from its wire form (see the module docstring)."""
    if not isinstance(data, dict):
        raise RecordError(path, f"expected a table, got {type(data).__name__}")
    kind = data.get("kind")
    cls = RECORD_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RecordError(f"{path}.kind" if path else "kind",
                          f"unknown record kind {kind!r} (known: {', '.join(RECORD_KINDS)})")
    return cls.from_wire(data, path)


def wire_key(data) -> tuple[str, int, int] | None:
    """(kind, key, tick) of a wire-form record, checked cheaply; None when they are missing or mistyped."""
    if not isinstance(data, dict):
        return None
    cls = RECORD_KINDS.get(data.get("kind")) if isinstance(data.get("kind"), str) else None
    if cls is None:
        return None
    key, tick = data.get(cls.key_field), data.get("tick")
    if type(key) is not int or type(tick) is not int:
        return None
    return cls.kind, key, tick


# -- keeping and finding records ------------------------------------------------------------------------------
class Deferred:
    """A record field worked out only when the record is read: a host that decides for thousands of NPCs keeps
    ``fn`` (e.g. scoring every candidate in full on the decision's facts) instead of the value, and
    ``DecisionLog`` calls it when a record is handed out (``records``, ``latest``, ``all``, ``take``); records
    that fall out of the ring unread never pay for it.

    >>> rec = NpcDecision(tick=1, entity=7, candidates=Deferred(lambda: [CandidateScore("a", True, 1.0)]))
    >>> log = DecisionLog()
    >>> log.add(rec)
    >>> [c.id for c in log.latest("npc", 7).candidates]
    ['a']
    """
    __slots__ = ("fn", "args")

    def __init__(self, fn, *args):
        self.fn = fn
        self.args = args              # ``fn(*args)`` when read: no closure (fewer objects kept per record)

    def __call__(self):
        return self.fn(*self.args)


def _resolved(rec):
    if type(getattr(rec, "candidates", None)) is Deferred:
        rec.candidates = rec.candidates()
    return rec


class DecisionLog:
    """The records a running match keeps: the last ``ring`` per decider (or the kind's own ``keep``: an NPC's
    last 2), and, while ``collect`` is set, every record of the tick for a reader that wants them all (a replay
    recorder, a test following one NPC).

    >>> log = DecisionLog(ring=2)
    >>> for t in (1, 2, 3):
    ...     log.add(CommanderDecision(tick=t, team=0, profile="p", algorithm="uct", playouts=1, iterations=1,
    ...                               value=0.5))
    >>> [r.tick for r in log.records("commander", 0)], log.latest("commander", 0).tick
    ([2, 3], 3)
    """

    def __init__(self, ring: int = 16):
        self.ring = ring
        self.by_key: dict[tuple[str, int], deque] = {}
        self.pending: list[Record] = []
        self.collect = False           # a replay recorder sets this and takes the records every tick

    def add(self, rec: Record) -> None:
        key = (rec.kind, rec.key)
        buf = self.by_key.get(key)
        if buf is None:
            keep = rec.keep
            buf = self.by_key[key] = deque(maxlen=self.ring if keep is None else min(keep, self.ring))
        buf.append(rec)
        if self.collect:
            self.pending.append(_resolved(rec))

    def take(self) -> list[Record]:
        """The records added since the last call (only while ``collect`` is set)."""
        out, self.pending = self.pending, []
        return out

    def records(self, kind: str, key: int) -> list[Record]:
        return [_resolved(r) for r in self.by_key.get((kind, key), ())]

    def latest(self, kind: str, key: int) -> Record | None:
        buf = self.by_key.get((kind, key))
        return _resolved(buf[-1]) if buf else None

    def all(self, kind: str) -> list[Record]:
        """Every kept record of a kind, by tick then key."""
        out = [_resolved(r) for (k, _key), buf in self.by_key.items() if k == kind for r in buf]
        out.sort(key=lambda r: (r.tick, r.key))
        return out


class RecordIndex:
    """Recorded decisions by (kind, key) and tick, for "the last decision at or before tick T".

    Built from wire-form records (a replay's); each record is checked and turned into its class only when
    it is asked for, so opening a long replay does not decode every decision.

    >>> wire = [CommanderDecision(tick=t, team=1, profile="p", algorithm="uct", playouts=1, iterations=1,
    ...                           value=0.5).to_wire() for t in (0, 90, 180)]
    >>> index = RecordIndex(wire)
    >>> index.at("commander", 1, 100).tick, index.at("commander", 1, 89).tick, index.at("commander", 0, 100)
    (90, 0, None)
    """

    def __init__(self, wire_records, path: str = "decisions"):
        self.path = path
        self._by_key: dict[tuple[str, int], list] = {}
        for i, data in enumerate(wire_records):
            head = wire_key(data)
            if head is None:
                from_wire(data, f"{path}[{i}]")          # raises, naming what is wrong
                raise RecordError(f"{path}[{i}]", "malformed record")   # pragma: no cover - from_wire raised
            kind, key, tick = head
            self._by_key.setdefault((kind, key), []).append((tick, i, data))
        for rows in self._by_key.values():
            rows.sort(key=lambda r: (r[0], r[1]))
        self._ticks = {k: [r[0] for r in rows] for k, rows in self._by_key.items()}
        self._decoded: dict[int, Record] = {}

    def _get(self, row) -> Record:
        _tick, i, data = row
        rec = self._decoded.get(i)
        if rec is None:
            rec = self._decoded[i] = from_wire(data, f"{self.path}[{i}]")
        return rec

    def keys(self, kind: str) -> list[int]:
        """Every key (entity, team) with records of ``kind``, ascending."""
        return sorted(key for k, key in self._by_key if k == kind)

    def first_tick(self, kind: str, key: int) -> int | None:
        ticks = self._ticks.get((kind, key))
        return ticks[0] if ticks else None

    def at(self, kind: str, key: int, tick: int) -> Record | None:
        """The last record of (kind, key) made at or before ``tick``."""
        ticks = self._ticks.get((kind, key))
        if not ticks:
            return None
        i = bisect_right(ticks, tick)
        return self._get(self._by_key[(kind, key)][i - 1]) if i else None

    def around(self, kind: str, key: int, tick: int, before: int = 3) -> list[Record]:
        ticks = self._ticks.get((kind, key), [])
        i = bisect_right(ticks, tick)
        return [self._get(r) for r in self._by_key.get((kind, key), [])[max(0, i - before):i]]

    def all(self, kind: str) -> list[Record]:
        """Every record of a kind, by tick then key."""
        rows = [(r[0], key, r) for (k, key), rs in self._by_key.items() if k == kind for r in rs]
        rows.sort(key=lambda t: (t[0], t[1], t[2][1]))
        return [self._get(r) for _t, _k, r in rows]

    def ticks(self, kind: str) -> list[int]:
        """The ticks of every record of a kind (cheap: nothing is decoded)."""
        return sorted(r[0] for (k, _key), rs in self._by_key.items() if k == kind for r in rs)


__all__ = ["Record", "RecordError", "CandidateScore", "PlanRecord", "NpcDecision", "CommanderDecision",
           "ReflexDecision", "StrategyDecision", "RECORD_KINDS", "from_wire", "wire_key", "DecisionLog", "RecordIndex"]
