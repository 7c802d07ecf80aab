"""Column codec for components: the one canonical layout of component state.

Per component type: the entity ids and, per field, one column. Numeric fields
are packed as little-endian binary (float64 keeps every float's exact bit
pattern, int64, uint8 for bools); str and list fields stay msgpack lists.
The sync hash hashes exactly this, and snapshots store exactly this, so a
loaded snapshot hashes equal by construction. Few, large objects make
encoding and decoding fast (one bytes object per numeric column).
"""
from __future__ import annotations

from operator import attrgetter

import numpy as np

from components import FIELD_TYPES, FIELDS, REGISTRY, ROW_OF, from_row

_DTYPES = {"float": "<f8", "int": "<i8", "bool": "u1"}


def encode_columns(cls: type, items: list[tuple[int, object]]) -> list:
    """[(entity, component), ...] ascending -> [ids bytes, [column, ...]]."""
    eids, comps = zip(*items)
    ids = np.array(eids, dtype="<i8").tobytes()
    names = FIELDS[cls]
    if len(names) == 1:
        fields = [list(map(attrgetter(names[0]), comps))]
    else:
        fields = list(zip(*map(ROW_OF[cls], comps)))
    cols = []
    for kind, values in zip(FIELD_TYPES[cls], fields):
        dtype = _DTYPES.get(kind)
        if dtype is None:
            cols.append([list(v) for v in values] if kind == "list" else list(values))
        else:
            cols.append(np.array(values, dtype=dtype).tobytes())
    return [ids, cols]


def decode_columns(name: str, column, registry: dict = REGISTRY) -> list[tuple[int, object]]:
    """Inverse of encode_columns; ValueError on any malformed column."""
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
    if len(cols) != len(kinds):
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
    out = []
    for eid, row in zip(ids, zip(*values) if values else ()):
        out.append((eid, from_row(cls, list(row))))
    return out
