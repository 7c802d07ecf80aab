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
        """The comparison on an already looked-up value; missing or incomparable -> False.

        >>> c = Condition("ammo", ">", 0)
        >>> c.test(5), c.test("many"), c.test(_MISSING)
        (True, False, False)
        """
        if actual is _MISSING:
            return False
        try:
            return bool(self.fn(actual, self.value))
        except TypeError:
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
