"""Conditions over an NPC's read-only facts: the gates of utility candidates, BT condition leaves, HFSM guards.

A condition reads one named value (from the fact snapshot first, then the
blackboard) and compares it with a constant. Engine-free: facts are a plain
``dict``; nothing here knows what produced them. How gates use them:
docs/rules/utility.md ("Gates").

    >>> Condition("ammo", ">", 0).check({"ammo": 3})
    True
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field

OPS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}

_MISSING = object()


def plain_scalar(value):
    """A numpy scalar (``np.bool_``, ``np.int64``, ``np.float64``, ...) as the Python value it holds; anything
    else unchanged. Every decision layer accepts numpy scalars wherever it accepts Python numbers and bools, and
    reads them through this (ai/ does not import numpy: a numpy scalar is recognised by its type's module).

    >>> import numpy as np
    >>> plain_scalar(np.bool_(True)) is True, type(plain_scalar(np.int64(3))), plain_scalar("x")
    (True, <class 'int'>, 'x')
    """
    kind = type(value)
    if kind.__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        try:
            return value.item()
        except (AttributeError, TypeError, ValueError):
            return value
    return value


def truth(result) -> bool:
    """Whether a comparison's result counts as true: exactly ``True`` or a numpy ``True`` (a comparison with a
    numpy scalar returns ``np.bool_``). Anything else (an array, an object's odd ``__eq__``) is false.

    >>> import numpy as np
    >>> truth(True), truth(np.float64(2.0) > 1), truth(np.bool_(False)), truth(1)
    (True, True, False, False)
    """
    if result is True:
        return True
    if result is False:
        return False
    return plain_scalar(result) is True


#: ints up to this size (either sign) are exactly floats
EXACT_INT = 2 ** 53


def exact_number(value) -> bool:
    """A float, or an int (or bool) a float holds exactly: a value that compares and subtracts as a float does
    just as Python does (the batch scorers' test, ``ai.batch`` and ``ai.batch_jit``).

    >>> exact_number(0.5), exact_number(True), exact_number(2 ** 53), exact_number(2 ** 53 + 1), exact_number("1")
    (True, True, True, False, False)
    """
    return type(value) is float or (type(value) in (int, bool) and -EXACT_INT <= value <= EXACT_INT)


def as_number(value) -> float | None:
    """``value`` as a float when it is a number: ``bool``, ``int``, ``float`` or their numpy scalars; else None.
    An int too large for a float is ``inf`` (so a caller reports it as not finite).

    >>> import numpy as np
    >>> as_number(True), as_number(np.int64(4)), as_number(np.float32(0.5)), as_number("3"), as_number(None)
    (1.0, 4.0, 0.5, None, None)
    """
    value = plain_scalar(value)
    kind = type(value)
    if kind is float:
        return value
    if kind is int or kind is bool:
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return None


def lookup(name: str, facts: dict, bb: dict | None = None):
    """The value of ``name``: the fact snapshot wins over the blackboard; a missing name is ``_MISSING``.

    >>> lookup("x", {"x": 1}, {"x": 2}), lookup("y", {"x": 1}, {"y": 2})
    (1, 2)
    >>> lookup("z", {}) is _MISSING
    True
    """
    value = facts.get(name, _MISSING)
    if value is _MISSING and bb is not None:
        value = bb.get(name, _MISSING)
    return value


@dataclass(frozen=True, slots=True)
class Condition:
    """``fact op value``; with the defaults (``== True``) it reads "fact is true".

    ``op`` is a key of ``OPS``; ``value`` a constant (a float must be finite). ``label`` is computed: how
    decision records show the condition. An unknown ``op`` or a non-finite value raises ``ValueError``.

    >>> Condition("enemy_visible").label, Condition("has_key", value=False).label
    ('enemy_visible', 'not has_key')
    >>> str(Condition("hp_frac", "<", 0.25))
    'hp_frac < 0.25'
    >>> Condition("hp", "~", 1)
    Traceback (most recent call last):
    ...
    ValueError: unknown comparison '~' (known: == != < <= > >=)
    """
    fact: str
    op: str = "=="
    value: object = True
    label: str = field(default="", compare=False)     # how records show it (computed)
    fn: object = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "value", plain_scalar(self.value))
        if self.op not in OPS:
            raise ValueError(f"unknown comparison '{self.op}' (known: {' '.join(OPS)})")
        if isinstance(self.value, float) and not math.isfinite(self.value):
            raise ValueError("a condition compares with a finite value")
        if self.op == "==" and self.value is True:
            label = self.fact
        elif self.op == "==" and self.value is False:
            label = f"not {self.fact}"
        else:
            label = f"{self.fact} {self.op} {self.value!r}"
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "fn", OPS[self.op])

    def test(self, actual) -> bool:
        """The comparison on an already looked-up value; missing or incomparable -> False. Numpy scalars compare
        as the Python values they hold; the result must be true by ``truth`` (the rule gates use too).

        >>> import numpy as np
        >>> c = Condition("ammo", ">", 0)
        >>> c.test(5), c.test("many"), c.test(_MISSING), c.test(np.int64(2)), Condition("seen").test(np.bool_(True))
        (True, False, False, True, True)
        """
        if actual is _MISSING:
            return False
        try:
            return truth(self.fn(actual, self.value))
        except (TypeError, ValueError):
            return False

    def check(self, facts: dict, bb: dict | None = None) -> bool:
        """True when the comparison holds; a missing fact or an incomparable value is simply false.

        ``facts`` is the read-only snapshot, ``bb`` the blackboard (read when the fact is not in the snapshot).

        >>> c = Condition("door", "==", "open")
        >>> c.check({"door": "open"}), c.check({}, {"door": "locked"}), c.check({})
        (True, False, False)
        """
        actual = facts.get(self.fact, _MISSING)
        if actual is _MISSING and bb is not None:
            actual = bb.get(self.fact, _MISSING)
        return self.test(actual)

    def actual(self, facts: dict, bb: dict | None = None):
        """The value the condition reads (None when missing), for records.

        >>> Condition("ammo", ">", 0).actual({"ammo": 0}), Condition("ammo").actual({})
        (0, None)
        """
        value = lookup(self.fact, facts, bb)
        return None if value is _MISSING else value

    def __str__(self) -> str:
        return self.label


def all_hold(conditions, facts: dict, bb: dict | None = None) -> bool:
    """True when every condition holds (an empty list holds); stops at the first that does not.

    >>> all_hold([Condition("a"), Condition("n", ">=", 2)], {"a": True, "n": 2}), all_hold([], {})
    (True, True)
    """
    for cond in conditions:
        if not cond.check(facts, bb):
            return False
    return True
