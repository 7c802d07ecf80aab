"""esper's query rebuild, done in C-speed comprehensions instead of a generator per row; the same rows in the same
order.

esper keeps the rows of every query (``get_components(A, B)``) until any entity or component comes or goes, then
drops them all; the next call rebuilds its query row by row in a Python generator, building each row's tuple
from another generator (about 1.7 us a row). In an army match units die on most ticks, so every query of the
tick is rebuilt: at 2,000 units in contact that was a sixth of the tick. ``install`` swaps esper's two row
builders (``_get_component`` and ``_get_components``, which ``get_component`` and ``get_components`` call by
name) for these, which walk the same smallest component set in the same order and keep the entities that have
every other component, building each row with one ``operator.itemgetter`` call. A row whose components are the
very objects of the query's last row for that entity is handed out as that last row (``_reuse``), so a rebuild
leaves the garbage collector only the rows that changed to walk.

The rows are equal to esper's, in the same order (tests/test_esper_rows.py compares them on random worlds), so
no match changes. Nothing else of esper is touched; if a later esper lacks the internals read here, ``install``
leaves esper as it is.

>>> import esper
>>> install()
>>> esper.switch_world("esper_rows_doctest")
>>> a = esper.create_entity(1, "x"); b = esper.create_entity(2); c = esper.create_entity(3, "y", 0.5)
>>> esper.get_components(int, str)
[(1, (1, 'x')), (3, (3, 'y'))]
>>> esper.switch_world("default"); esper.delete_world("esper_rows_doctest")
"""
from __future__ import annotations

from operator import is_, itemgetter

import esper

_first = itemgetter(0)
_ORIGINAL = (getattr(esper, "_get_component", None), getattr(esper, "_get_components", None))


#: per esper world (the identity of its entity table; the last few worlds): query -> {entity: its last row}
_LAST: dict[int, dict] = {}
_WORLDS_KEPT = 4


def _last_rows(key) -> dict:
    """The rows this query gave last time in the current esper world (entity -> row)."""
    world = id(esper._entities)
    per_world = _LAST.get(world)
    if per_world is None:
        if len(_LAST) >= _WORLDS_KEPT:
            del _LAST[next(iter(_LAST))]
        per_world = _LAST[world] = {}
    last = per_world.get(key)
    if last is None:
        last = per_world[key] = {}
    return last


def _reuse(key, rows: list, single: bool) -> list:
    """``rows`` with each row whose components are the very objects of this query's last row for its entity
    replaced by that last row (identity, never equality: a component replaced by an equal one is a new row), and
    the last rows updated. A rebuild after a death then keeps the rows it can, and the new ones it built for
    them are freed at once: the collector would otherwise walk tens of thousands of fresh row tuples (two per
    row) on its next pass, after every tick where a unit died. ``single``: rows are (entity, component)."""
    last = _last_rows(key)
    get = last.get
    if single:
        out = [old if (old := get(row[0])) is not None and old[1] is row[1] else row for row in rows]
    else:
        out = [old if (old := get(row[0])) is not None and all(map(is_, old[1], row[1])) else row for row in rows]
    last.clear()
    last.update(zip(map(_first, out), out))
    return out


def _component_rows(component_type):
    """``esper._get_component``: (entity, component) for every entity with the component."""
    comp_set = esper._components.get(component_type)
    if comp_set is None:
        return iter(())
    entity_db = esper._entities
    return iter(_reuse(component_type, [(entity, entity_db[entity][component_type]) for entity in comp_set], True))


def _components_rows(*component_types):
    """``esper._get_components``: (entity, (components...)) for every entity with all of them, walking the first of
    the smallest component sets, as esper does."""
    if not component_types:
        return iter(())
    comp_db = esper._components
    sets = []
    for ct in component_types:
        comp_set = comp_db.get(ct)
        if comp_set is None:
            return iter(())
        sets.append(comp_set)
    smallest = 0
    for i in range(1, len(sets)):
        if len(sets[i]) < len(sets[smallest]):
            smallest = i
    walk = sets[smallest]
    entity_db = esper._entities
    if len(component_types) == 1:
        (ct,) = component_types
        rows = [(entity, (entity_db[entity][ct],)) for entity in walk]
    else:
        row = itemgetter(*component_types)
        others = [s for i, s in enumerate(sets) if i != smallest]
        keep = walk.intersection(*others)
        if len(keep) == len(walk):
            rows = [(entity, row(entity_db[entity])) for entity in walk]
        else:
            rows = [(entity, row(entity_db[entity])) for entity in walk if entity in keep]
    return iter(_reuse(component_types, rows, False))


def forget() -> None:
    """Drop the last rows kept for the current esper world (before the world is deleted)."""
    _LAST.pop(id(esper._entities), None)


def installed() -> bool:
    return esper._get_components is _components_rows and esper._get_component is _component_rows


def install() -> None:
    """Use these row builders in esper (idempotent); nothing happens if esper's internals are not as expected."""
    if None in _ORIGINAL or not all(hasattr(esper, n) for n in ("_components", "_entities")):
        return                                     # pragma: no cover - another esper
    esper._get_component = _component_rows
    esper._get_components = _components_rows


def uninstall() -> None:
    """esper's own row builders again (tests compare the two)."""
    if None not in _ORIGINAL:
        esper._get_component, esper._get_components = _ORIGINAL
