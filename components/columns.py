"""Column codec for components: the one canonical layout of component state.

Per component type: the entity ids and, per field, one column. Numeric fields
are packed as little-endian binary (float64 keeps every float's exact bit
pattern, int64, uint8 for bools); str and list fields stay msgpack lists.
The sync hash hashes exactly this, and snapshots store exactly this, so a
loaded snapshot hashes equal by construction. Few, large objects make
encoding and decoding fast (one bytes object per numeric column).
"""
from __future__ import annotations

import math
from dataclasses import MISSING
from dataclasses import fields as dataclass_fields
from operator import attrgetter

import numpy as np

from components import DECIDER_FIELDS, FIELD_TYPES, FIELDS, REGISTRY, ROW_OF, from_row

_DTYPES = {"float": "<f8", "int": "<i8", "bool": "u1"}


def _defaults(cls: type) -> dict:
    return {f.name: f.default for f in dataclass_fields(cls)}


def encode_columns(cls: type, items: list[tuple[int, object]]) -> list:
    """[(entity, component), ...] ascending -> [ids bytes, [column, ...]]. A decider field (``DECIDER_FIELDS``) is
    written as its default: its values travel beside the world (``decider_field_rows``)."""
    eids, comps = zip(*items)
    ids = np.array(eids, dtype="<i8").tobytes()
    names = FIELDS[cls]
    if len(names) == 1:
        fields = [list(map(attrgetter(names[0]), comps))]
    else:
        fields = list(zip(*map(ROW_OF[cls], comps)))
    hidden = DECIDER_FIELDS.get(cls)
    if hidden:
        defaults = _defaults(cls)
        for i, name in enumerate(names):
            if name in hidden:
                fields[i] = [defaults[name]] * len(eids)
    cols = []
    for kind, values in zip(FIELD_TYPES[cls], fields):
        dtype = _DTYPES.get(kind)
        if dtype is None:
            cols.append([list(v) for v in values] if kind == "list" else list(values))
        else:
            cols.append(np.array(values, dtype=dtype).tobytes())
    return [ids, cols]


def decode_columns(name: str, column, registry: dict = REGISTRY, pad: bool = False) -> list[tuple[int, object]]:
    """Inverse of encode_columns; ValueError on any malformed column. ``pad``: a column with fewer field columns
    than the class has fields (written before the last fields were added) gets their defaults (``--force``)."""
    cls = registry.get(name)
    if cls is None:
        raise ValueError(f"unknown component '{name}'")
    if not (isinstance(column, list) and len(column) == 2 and isinstance(column[0], bytes)
            and isinstance(column[1], list)):
        raise ValueError(f"component column '{name}' is malformed")
    raw_ids, cols = column
    if len(raw_ids) % 8:
        raise ValueError(f"component column '{name}' has a bad id list")
    ids = np.frombuffer(raw_ids, dtype="<i8").tolist()
    kinds = FIELD_TYPES[cls]
    missing = dataclass_fields(cls)[len(cols):] if pad and len(cols) < len(kinds) else None
    if len(cols) != len(kinds) and missing is None:
        raise ValueError(f"{name} needs {len(kinds)} field columns, got {len(cols)}")
    values = []
    for kind, col in zip(kinds, cols):
        dtype = _DTYPES.get(kind)
        if dtype is None:
            if not isinstance(col, list) or len(col) != len(ids):
                raise ValueError(f"a {name} column has the wrong length")
            values.append(col)
        else:
            if not isinstance(col, bytes) or len(col) != len(ids) * np.dtype(dtype).itemsize:
                raise ValueError(f"a {name} column has the wrong length")
            arr = np.frombuffer(col, dtype=dtype)
            if kind == "bool":
                if arr.size and arr.max() > 1:
                    raise ValueError(f"a {name} bool column holds values other than 0 and 1")
                values.append([bool(v) for v in arr.tolist()])
            else:
                values.append(arr.tolist())
    for f in missing or ():
        values.append([f.default_factory() if f.default is MISSING else f.default for _ in ids])
    out = []
    for eid, row in zip(ids, zip(*values) if values else ()):
        out.append((eid, from_row(cls, list(row))))
    return out


def decider_field_rows(cls: type, items: list[tuple[int, object]]) -> list[list]:
    """The decider fields (``DECIDER_FIELDS``) of the components in ``items`` (ascending entity) that do not hold
    their defaults, as rows ``[entity, value, ...]`` in the fields' order: what a snapshot saves beside the world.

    >>> from components import Stance
    >>> decider_field_rows(Stance, [(3, Stance()), (7, Stance("hold", anchored=True, anchor_x=2.5, anchor_y=4.0))])
    [[7, True, 2.5, 4.0]]
    """
    names = DECIDER_FIELDS[cls]
    defaults = _defaults(cls)
    get = attrgetter(*names) if len(names) > 1 else (lambda c: (getattr(c, names[0]),))
    plain = tuple(defaults[n] for n in names)
    return [[eid, *values] for eid, comp in items if (values := tuple(get(comp))) != plain]


def decode_decider_fields(name: str, rows) -> list[tuple[int, dict]]:
    """Inverse of ``decider_field_rows`` for the component named ``name``: [(entity, {field: value})]; ValueError
    names what does not fit (an unknown component, a row of the wrong length, a value of the wrong type).

    >>> decode_decider_fields("Stance", [[7, True, 2.5, 4]])
    [(7, {'anchored': True, 'anchor_x': 2.5, 'anchor_y': 4.0})]
    >>> decode_decider_fields("Stance", [[7, 1, 2.5, 4.0]])
    Traceback (most recent call last):
    ...
    ValueError: row 0: Stance.anchored should be bool, got int
    """
    cls = REGISTRY.get(name)
    names = DECIDER_FIELDS.get(cls) if cls is not None else None
    if not names:
        raise ValueError(f"'{name}' has no decider fields")
    kinds = dict(zip(FIELDS[cls], FIELD_TYPES[cls]))
    if not isinstance(rows, list):
        raise ValueError("should be a list of rows")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 1 + len(names) or type(row[0]) is not int:
            raise ValueError(f"row {i}: should be [entity, {', '.join(names)}]")
        values = {}
        for field, value in zip(names, row[1:]):
            kind = kinds[field]
            if kind == "float" and type(value) in (int, float) and math.isfinite(value):
                value = float(value)
            elif kind == "float" or (kind in ("bool", "int", "str") and type(value).__name__ != kind):
                raise ValueError(f"row {i}: {name}.{field} should be {'a finite ' if kind == 'float' else ''}{kind}, "
                                 f"got {type(value).__name__}")
            values[field] = value
        out.append((row[0], values))
    return out
