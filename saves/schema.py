"""The declared shape of every chunk kind in snapshot and replay files, checked when a chunk is decoded.

A schema is a small tree of checkers (``Int``, ``Num``, ``Str``, ``Bool``, ``Bytes``, ``List``, ``Row``,
``Record``, ``MapOf``, ``Opt``, ``OneOf``); ``check`` walks a decoded value with one and raises
``SchemaError`` naming the key path of the first value that does not fit and what was expected, in a
designer's words. Every bound is explicit: whole numbers within 64 bits and a stated range, finite floats,
strings and lists no longer than a stated length (and never longer than the file, since msgpack caps every
length by the bytes that follow). The readers (saves/replay.py, saves/snapshot.py, game/state.py) turn a
``SchemaError`` into a one-line ``SaveError`` with the file and the chunk's byte offset.

>>> check(Record({"tick": Int(0, 10)}), {"tick": 11}, "header")
Traceback (most recent call last):
...
saves.schema.SchemaError: header.tick: expected a whole number from 0 to 10, got 11
>>> check(List(Num()), [1.5, float("nan")], "x")
Traceback (most recent call last):
...
saves.schema.SchemaError: x[1]: expected a finite number, got nan
"""
from __future__ import annotations

import math

INT64 = (-(1 << 63), (1 << 63) - 1)
UINT64_MAX = (1 << 64) - 1
#: the most ticks a file may name (a tick limit, a tick, a period): the content schema's maximum max_ticks
MAX_TICKS = 10_000_000
#: the most teams a file may name (controllers, commanders, team columns)
MAX_TEAMS = 64
SHORT = 256          # names, ids, hashes, reasons
LONG = 4096          # paths (mods)


class SchemaError(ValueError):
    """A decoded value that does not fit its schema; ``at`` is the key path, ``message`` what was expected."""

    def __init__(self, at: str, message: str):
        super().__init__(f"{at}: {message}")
        self.at = at
        self.message = message


def _kind(value) -> str:
    return "nothing" if value is None else type(value).__name__


class Schema:
    what = "a value"

    def check(self, value, at: str):       # pragma: no cover - every schema overrides it
        raise NotImplementedError

    def fail(self, value, at: str, what: str | None = None):
        shown = repr(value) if type(value) in (int, float, bool) or value is None else _kind(value)
        raise SchemaError(at, f"expected {what or self.what}, got {shown}")


class Int(Schema):
    def __init__(self, lo: int = INT64[0], hi: int = INT64[1]):
        self.lo, self.hi = lo, hi
        self.what = f"a whole number from {lo} to {hi}"

    def check(self, value, at):
        if type(value) is not int:
            self.fail(value, at, "a whole number")
        if not self.lo <= value <= self.hi:
            self.fail(value, at)
        return value


class Num(Schema):
    """A finite number (an int or a float), optionally within [lo, hi]."""

    def __init__(self, lo: float = -math.inf, hi: float = math.inf):
        self.lo, self.hi = lo, hi
        self.what = "a finite number" + ("" if math.isinf(lo) and math.isinf(hi) else f" from {lo} to {hi}")

    def check(self, value, at):
        if type(value) not in (int, float):
            self.fail(value, at, "a number")
        if type(value) is float and not math.isfinite(value):
            self.fail(value, at, "a finite number")
        if type(value) is int and not INT64[0] <= value <= UINT64_MAX:
            self.fail(value, at, "a number within 64 bits")
        if not self.lo <= value <= self.hi:
            self.fail(value, at)
        return value


class Str(Schema):
    def __init__(self, max_len: int = SHORT, choices: frozenset | None = None):
        self.max_len, self.choices = max_len, choices
        self.what = (f"one of {', '.join(sorted(choices))}" if choices else f"a string of at most {max_len} characters")

    def check(self, value, at):
        if type(value) is not str:
            self.fail(value, at, "a string")
        if len(value) > self.max_len or (self.choices is not None and value not in self.choices):
            raise SchemaError(at, f"expected {self.what}, got {value[:40]!r}")
        return value


class Hex(Str):
    """A hexadecimal number as the RNG state writes it ('0x...'), of at most ``bits`` bits."""

    def __init__(self, bits: int = 128):
        super().__init__(2 + (bits + 3) // 4)
        self.bits = bits
        self.what = f"a hexadecimal number of at most {bits} bits"

    def check(self, value, at):
        super().check(value, at)
        try:
            n = int(value, 16)
        except ValueError:
            n = -1
        if not 0 <= n < 1 << self.bits:
            raise SchemaError(at, f"expected {self.what}, got {value[:40]!r}")
        return value


class Bool(Schema):
    what = "true or false"

    def check(self, value, at):
        if type(value) is not bool:
            self.fail(value, at)
        return value


class Bytes(Schema):
    what = "bytes"

    def __init__(self, max_len: int | None = None):
        self.max_len = max_len

    def check(self, value, at):
        if type(value) is not bytes or (self.max_len is not None and len(value) > self.max_len):
            self.fail(value, at)
        return value


class Null(Schema):
    what = "nothing"

    def check(self, value, at):
        if value is not None:
            self.fail(value, at)
        return value


class Opt(Schema):
    def __init__(self, inner: Schema):
        self.inner = inner
        self.what = f"{inner.what} or nothing"

    def check(self, value, at):
        return None if value is None else self.inner.check(value, at)


class OneOf(Schema):
    """The first alternative whose type fits (alternatives of distinct types: int vs str vs bool ...)."""

    def __init__(self, *options: Schema):
        self.options = options
        self.what = " or ".join(o.what for o in options)

    def check(self, value, at):
        for option in self.options:
            try:
                return option.check(value, at)
            except SchemaError:
                continue
        self.fail(value, at)


class List(Schema):
    def __init__(self, item: Schema, max_len: int | None = None, min_len: int = 0):
        self.item, self.max_len, self.min_len = item, max_len, min_len
        self.what = "a list" + (f" of at most {max_len} entries" if max_len is not None else "")

    def check(self, value, at):
        if type(value) is not list:
            self.fail(value, at)
        if (self.max_len is not None and len(value) > self.max_len) or len(value) < self.min_len:
            raise SchemaError(at, f"expected {self.what}" + (f" and at least {self.min_len}" if self.min_len else "")
                              + f", got {len(value)}")
        check = self.item.check
        for i, item in enumerate(value):
            check(item, f"{at}[{i}]")
        return value


class Row(Schema):
    """A fixed-length list, one schema per position (``names`` for messages: ``at[2]`` reads ``at.actor``)."""

    def __init__(self, *items: Schema, names: tuple[str, ...] | None = None):
        self.items, self.names = items, names
        self.what = f"a row of {len(items)} values"

    def check(self, value, at):
        if type(value) is not list or len(value) != len(self.items):
            self.fail(value, at, self.what + (f" ({', '.join(self.names)})" if self.names else ""))
        for i, (schema, item) in enumerate(zip(self.items, value)):
            schema.check(item, f"{at}.{self.names[i]}" if self.names else f"{at}[{i}]")
        return value


class Record(Schema):
    """A map with string keys: ``fields`` required unless in ``optional``; other keys checked by ``extra``
    (refused when ``extra`` is None)."""

    def __init__(self, fields: dict, optional: frozenset = frozenset(), extra: Schema | None = None,
                 max_len: int = 1024):
        self.fields, self.optional, self.extra, self.max_len = fields, frozenset(optional), extra, max_len
        self.what = "a map"

    def check(self, value, at):
        if type(value) is not dict:
            self.fail(value, at)
        if len(value) > self.max_len:
            raise SchemaError(at, f"expected a map of at most {self.max_len} keys, got {len(value)}")
        for key, schema in self.fields.items():
            if key in value:
                schema.check(value[key], f"{at}.{key}")
            elif key not in self.optional:
                raise SchemaError(f"{at}.{key}", "is missing")
        for key, item in value.items():
            if key in self.fields:
                continue
            if type(key) is not str:
                raise SchemaError(at, f"expected string keys, got {_kind(key)}")
            if self.extra is None:
                raise SchemaError(f"{at}.{key}", "is not a known key")
            self.extra.check(item, f"{at}.{key}")
        return value


class MapOf(Schema):
    def __init__(self, key: Schema, value: Schema, max_len: int | None = None):
        self.key, self.value, self.max_len = key, value, max_len
        self.what = "a map"

    def check(self, value, at):
        if type(value) is not dict:
            self.fail(value, at)
        if self.max_len is not None and len(value) > self.max_len:
            raise SchemaError(at, f"expected a map of at most {self.max_len} keys, got {len(value)}")
        for k, v in value.items():
            self.key.check(k, f"{at}<key {str(k)[:20]}>")
            self.value.check(v, f"{at}.{k}")
        return value


class Plain(Schema):
    """Any plain msgpack value (nothing a file could smuggle in: no timestamps or extension types, whole
    numbers within 64 bits, finite floats unless ``finite`` is off), nested at most ``depth`` deep."""
    what = "plain data (numbers, strings, bools, lists, maps)"

    def __init__(self, depth: int = 8, finite: bool = True):
        self.depth, self.finite = depth, finite

    def check(self, value, at, depth: int = 0):
        t = type(value)
        if value is None or t in (bool, str, bytes):
            return value
        if t is int:
            if not INT64[0] <= value <= UINT64_MAX:
                self.fail(value, at, "a whole number within 64 bits")
            return value
        if t is float:
            if self.finite and not math.isfinite(value):
                self.fail(value, at, "a finite number")
            return value
        if depth >= self.depth:
            raise SchemaError(at, f"is nested more than {self.depth} deep")
        if t is list:
            for i, item in enumerate(value):
                self.check(item, f"{at}[{i}]", depth + 1)
            return value
        if t is dict:
            for k, v in value.items():
                if type(k) not in (str, int):
                    raise SchemaError(at, f"expected string or number keys, got {_kind(k)}")
                self.check(v, f"{at}.{k}", depth + 1)
            return value
        self.fail(value, at)


def check(schema: Schema, value, at: str):
    """Check ``value`` against ``schema``; SchemaError names the key path (starting at ``at``)."""
    return schema.check(value, at)


# -- the chunk kinds --------------------------------------------------------------------------------------------
TICK = Int(0, MAX_TICKS)
PERIOD = Int(1, MAX_TICKS)
NAMES = List(Str(SHORT), MAX_TEAMS)
SCALAR = OneOf(Null(), Bool(), Int(), Num(), Str(LONG))
#: action parameters whose type the executors rely on (any other parameter is a plain scalar)
PARAMS = Record({"x": Num(-1e9, 1e9), "y": Num(-1e9, 1e9), "region": Int(-1, 1 << 31), "unit": Str(),
                 "building": Str(), "kind": Str(), "loads": Int(0, 1 << 31), "ticks": Int(0, MAX_TICKS),
                 },
                optional=frozenset({"x", "y", "region", "unit", "building", "kind", "loads", "ticks"}),
                extra=OneOf(SCALAR, List(SCALAR, 64)), max_len=64)
ENTITY = Int(0, 1 << 40)
ACTION_ID = Int(0, 1 << 62)
#: a reservation: [resource..., mode]; a resource part is a string or a whole number (it is a dict key)
RESERVATION = List(OneOf(Str(), Int(), Bool()), 8, min_len=2)
ACTION_ROW = Row(ACTION_ID, Str(), ENTITY, ENTITY, PARAMS, TICK, Str(), Str(), Str(LONG), Int(0, MAX_TICKS),
                 Int(-1, MAX_TICKS), Int(-1, MAX_TICKS), List(RESERVATION, 64),
                 MapOf(Str(), OneOf(SCALAR, List(SCALAR, 64)), 64),
                 names=("id", "kind", "actor", "target", "params", "submit_tick", "source", "state", "reason",
                        "timeout", "start_tick", "end_tick", "reservations", "data"))
LEDGER = Row(ACTION_ID, List(ACTION_ROW), List(OneOf(Row(Str(choices=frozenset({"submit"})), ACTION_ROW),
                                                     Row(Str(choices=frozenset({"cancel"})), ACTION_ID, Str(LONG)))),
             names=("next_id", "active", "queue"))
RNG = Row(Str(choices=frozenset({"PCG64"})), Hex(128), Hex(128), Int(0, 1), Int(0, (1 << 32) - 1),
          names=("bit_generator", "state", "inc", "has_uint32", "uinteger"))
COLUMN = Row(Bytes(), List(Plain(4)), names=("ids", "fields"))
WORLD = Row(TICK, RNG, Int(0, 10_000_000), Row(Int(0, 1 << 62), Int(0, 1 << 62), Bytes()),
            MapOf(Str(), COLUMN, 256), LEDGER, List(Plain(6), 4 * MAX_TEAMS),
            names=("tick", "rng", "last_entity", "nav", "components", "ledger", "fog"))

SNAPSHOT = Record({
    "format": Int(0, 1 << 31), "game": Str(), "content_hash": Str(), "scenario": Str(), "seed": Int(0, UINT64_MAX),
    "tick": TICK, "max_ticks": TICK, "over": Bool(), "winner": Int(-1, MAX_TEAMS - 1), "controllers": NAMES,
    "commanders": NAMES, "strategies": NAMES, "difficulties": NAMES, "winner_side": Int(-1, MAX_TEAMS - 1),
    "reason": Str(LONG),
    "world": Bytes(), "sync_hash": Str(), "deciders": Opt(Record({
        "components": MapOf(Str(), COLUMN, 256),
        "intel": List(List(Num(), 3), MAX_TEAMS),
        # each planned strategy's plan: [team, its fields] (checked field by field by restore_plans)
        "plans": List(Row(Int(0, MAX_TEAMS - 1), Plain(4)), MAX_TEAMS),
        # decider fields of world components: name -> rows [entity, value, ...] (checked by decode_decider_fields)
        "fields": MapOf(Str(), List(Plain(2), 1 << 22), 16)}, optional=frozenset({"plans", "fields"}))),
}, optional=frozenset({"game", "commanders", "strategies", "difficulties", "winner_side", "reason", "deciders"}),
   extra=Plain(4))

HEADER = Record({
    "format": Int(0, 1 << 31), "game": Str(), "content_hash": Str(), "scenario": Str(), "seed": Int(0, UINT64_MAX),
    "max_ticks": TICK, "start_tick": TICK, "controllers": NAMES, "commanders": NAMES, "strategies": NAMES,
    "difficulties": NAMES, "mods": List(Str(LONG), 64), "keyframe_every": PERIOD, "hash_every": PERIOD,
    "timings": Bool(),
}, optional=frozenset({"game", "controllers", "commanders", "strategies", "difficulties", "mods",
                       "timings"}), extra=Plain(4))

SUBMIT = Row(Str(choices=frozenset({"submit"})), ACTION_ID, Str(), ENTITY, ENTITY, PARAMS, Str(), Int(0, MAX_TICKS),
             names=("op", "id", "kind", "actor", "target", "params", "source", "timeout"))
CANCEL = Row(Str(choices=frozenset({"cancel"})), ACTION_ID, Str(LONG), names=("op", "id", "reason"))


class Request(Schema):
    what = "a request (['submit', ...] or ['cancel', ...])"

    def check(self, value, at):
        if type(value) is list and value and value[0] == "cancel":
            return CANCEL.check(value, at)
        if type(value) is list and value and value[0] == "submit":
            return SUBMIT.check(value, at)
        self.fail(value, at)


TICKS = List(Row(TICK, List(Request(), 1 << 16), Opt(Str()), names=("tick", "requests", "hash")), 1 << 16)
CHANGE = Row(TICK, Str(), names=("tick", "content_hash"))
END = Record({"scenario": Str(), "seed": Int(0, UINT64_MAX), "winner": Opt(Str()), "winner_team": Opt(Int(0, MAX_TEAMS)),
              "winners": NAMES, "reason": Opt(Str(LONG)), "ticks": TICK, "alive": MapOf(Str(), Int(0, 1 << 40), MAX_TEAMS),
              "buildings": MapOf(Str(), Int(0, 1 << 40), MAX_TEAMS), "score": MapOf(Str(), Num(), MAX_TEAMS),
              "sync_hash": Str()},
             optional=frozenset({"winner", "winner_team", "winners", "buildings", "score", "alive", "reason"}),
             extra=Plain(4))
DECISIONS = List(Plain(8))

__all__ = ["SchemaError", "check", "Int", "Num", "Str", "Hex", "Bool", "Bytes", "Null", "Opt", "OneOf", "List",
           "Row", "Record", "MapOf", "Plain", "MAX_TICKS", "MAX_TEAMS", "HEADER", "SNAPSHOT", "WORLD", "TICKS",
           "CHANGE", "END", "DECISIONS", "LEDGER", "ACTION_ROW"]
