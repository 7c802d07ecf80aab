"""esper's query rebuild, done in C-speed comprehensions instead of a generator per row; the same rows in the same
order.

esper keeps the rows of every query (``get_components(A, B)``) until any entity or component comes or goes, then
drops them all; the next call rebuilds its query row by row in a Python generator, building each row's tuple
from another generator (about 1.7 us a row). In an army match units die on most ticks, so every query of the
tick is rebuilt: at 2,000 units in contact that was a sixth of the tick. ``install`` swaps esper's two row
builders (``_get_component`` and ``_get_components``, which ``get_component`` and ``get_components`` call by
name) for these, which walk the same smallest component set in the same order and keep the entities that have
every other component, building each row with one ``operator.itemgetter`` call; and its two public calls
(``get_component`` and ``get_components``) for ones that cache the rows built here as they are, where esper's
copy them into a new list. A row whose components are the
very objects of the query's last row for that entity is handed out as that last row (``_reuse``), so a rebuild
leaves the garbage collector only the rows that changed to walk.

It also counts changes for readers that keep answers between ticks: ``changed_at`` (a component type's last
change) and ``deleted_since`` (the entities deleted since a mark), through hooks on esper's calls that make them.

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

import itertools
from collections import deque
from operator import is_, itemgetter

import esper
import numpy as np

_first = itemgetter(0)
_ORIGINAL = (getattr(esper, "_get_component", None), getattr(esper, "_get_components", None))
_ORIGINAL_PUBLIC = (getattr(esper, "get_component", None), getattr(esper, "get_components", None))


_STAMPS = itertools.count(1)
GONE_KEPT = 1 << 16           # deletions remembered per world for ``deleted_since`` (a reader further behind hears None)

#: per esper world (the identity of its entity table; the last few worlds): its ``_Rows``
_LAST: dict[int, "_Rows"] = {}
_WORLDS_KEPT = 4


class _Rows:
    """One esper world's kept query answers, and when each component type last gained or lost a component.

    ``gen`` is the stamp of the last change seen by the hooks below (an entity created with components, a
    component added, replaced or removed: one count over every world); ``touched[type]`` is the stamp of that
    type's last change. Deleting an entity is not counted: it only takes its entity out of each set, which leaves
    the other members' order in a set as it was. ``queries[key]`` is the query's last ``_Answer``.
    """
    __slots__ = ("gen", "touched", "queries", "born", "gone", "gone_count")

    def __init__(self):
        self.gen = 0
        #: the stamp of this state's making: a type not changed since reads as this (``changed_at``), so a state
        #: made again after it was dropped never repeats a stamp an earlier one handed out
        self.born = next(_STAMPS)
        self.touched: dict = {}
        self.queries: dict = {}
        #: the last ``GONE_KEPT`` entities deleted (``delete_entity``, at the request), and how many ever were
        self.gone: deque = deque(maxlen=GONE_KEPT)
        self.gone_count = 0

    def changed_at(self, component_type) -> int:
        """``changed_at`` for this world."""
        return self.touched.get(component_type, self.born)

    def deletion_mark(self) -> tuple:
        """``deletion_mark`` for this world."""
        return self.born, self.gone_count


def _state() -> _Rows:
    world = id(esper._entities)
    rows = _LAST.get(world)
    if rows is None:
        if len(_LAST) >= _WORLDS_KEPT:
            del _LAST[next(iter(_LAST))]
        rows = _LAST[world] = _Rows()
    return rows


def _touch(*component_types) -> None:
    st = _state()
    gen = st.gen = next(_STAMPS)          # one count for every world: a stamp is never given to two changes
    touched = st.touched
    for ct in component_types:
        touched[ct] = gen


class _Answer:
    """One query's kept answer. ``built``: the change stamp it was built at (``_Rows.gen``); ``walk``: the component
    set walked, and ``size``, that set's size when ``rows`` were made; ``rows``: the answer. After deaths alone a
    new answer is these rows less the dead (``_answer``), and keeps ``parent``, the rows it was made from, and
    ``dead``, the entities whose rows it dropped (one answer back only: ``left``). ``ids``: the rows' entities as an
    array, made at the first deaths after a build; ``mark``: the deletion count (``_Rows.gone_count``) up to which
    every deletion is out of ``rows`` (a deferred deletion not done yet holds it back; -1: not known)."""
    __slots__ = ("built", "walk", "size", "rows", "ids", "mark", "parent", "dead")

    def __init__(self, built: int, walk, rows: list, mark: int, ids=None, parent: list | None = None,
                 dead: list | None = None):
        self.built = built
        self.walk = walk
        self.size = len(walk)
        self.rows = rows
        self.ids = ids
        self.mark = mark
        self.parent = parent
        self.dead = dead


def _answer(key, walk, types) -> list | None:
    """The rows of ``key`` without building them, when only entity deletions happened since its last answer:
    then its entities are those of the last answer still in the walked set, in the same order (a set keeps its
    members' order when others leave it), and their components are the same objects.

    The dead are found from the deletion log (``_Rows.gone``), not by asking every row: the logged entities no
    longer in the walked set are looked up among the rows' entities in one array operation, and the rows between
    them are copied as slices (at 10,000 units about 0.05 ms a query, where asking each row took 0.7, on most
    ticks of a fight). Where the log does not reach back to the last answer, every row is asked."""
    st = _state()
    kept = st.queries.get(key)
    if kept is None:
        return None
    if kept.walk is not walk:
        return None
    touched = st.touched
    for ct in types:
        if touched.get(ct, 0) > kept.built:
            return None
    if kept.size == len(walk):
        return kept.rows
    rows = kept.rows                           # entities left: keep the rows of those still there
    new = st.gone_count - kept.mark
    if kept.mark < 0 or new <= 0 or new > len(st.gone):
        left = [row for row in rows if row[0] in walk]
        dead = [row[0] for row in rows if row[0] not in walk]
        st.queries[key] = _Answer(kept.built, walk, left, _mark(st), None, rows, dead)
        return left
    latest = list(itertools.islice(reversed(st.gone), new))[::-1]      # deleted since the mark, in order
    gone = [e for e in latest if e not in walk]
    waiting = [i for i, e in enumerate(latest) if e in walk]           # a deferred deletion not done yet
    mark = kept.mark + waiting[0] if waiting else st.gone_count
    ids = kept.ids
    if ids is None:
        ids = np.fromiter(map(_first, rows), np.int64, len(rows))
    keep = survivors(ids, gone)
    at = np.flatnonzero(~keep).tolist()
    if not at:                                 # none of the dead had a row here: the same answer
        kept.size, kept.mark, kept.ids = len(walk), mark, ids
        return rows
    left = []
    start = 0
    for i in at:
        left += rows[start:i]
        start = i + 1
    left += rows[start:]
    st.queries[key] = _Answer(kept.built, walk, left, mark, ids[keep], rows, ids[~keep].tolist())
    return left


def _mark(st: "_Rows") -> int:
    """The deletion count a new answer accounts for: every deletion so far, unless a deferred one is still waiting
    (``esper._dead_entities``: its entity is still in the sets, and so in the rows); then the log position of the
    earliest waiting one, so that the answer after it is done finds it in the log; -1 (not known: the next answer
    asks every row) when the log does not hold every waiting one (this world's kept state was dropped and made
    again since one was asked for, or more than ``GONE_KEPT`` deletions came after it)."""
    waiting = esper._dead_entities
    if not waiting:
        return st.gone_count
    earliest = -1
    found = set()
    for back, e in enumerate(reversed(st.gone)):
        if e in waiting:
            earliest = back
            found.add(e)
    if len(found) < len(waiting):            # a waiting deletion the log does not hold: not known
        return -1
    return st.gone_count - 1 - earliest


def _reuse(key, rows: list, single: bool, walk) -> list:
    """``rows`` with each row whose components are the very objects of this query's last row for its entity
    replaced by that last row (identity, never equality: a component replaced by an equal one is a new row), kept
    as the query's answer. A rebuild after a change then keeps the rows it can, and the new ones it built for
    them are freed at once: the collector would otherwise walk tens of thousands of fresh row tuples (two per
    row) on its next pass, after every tick where a unit died. ``single``: rows are (entity, component)."""
    st = _state()
    kept = st.queries.get(key)
    if kept is not None:
        get = dict(zip(map(_first, kept.rows), kept.rows)).get
        if single:
            rows = [old if (old := get(row[0])) is not None and old[1] is row[1] else row for row in rows]
        else:
            rows = [old if (old := get(row[0])) is not None and all(map(is_, old[1], row[1])) else row
                    for row in rows]
    st.queries[key] = _Answer(st.gen, walk, rows, _mark(st))
    return rows


def _component_list(component_type) -> list:
    """The rows of ``esper._get_component``: (entity, component) for every entity with the component."""
    comp_set = esper._components.get(component_type)
    if comp_set is None:
        return []
    rows = _answer(component_type, comp_set, (component_type,))
    if rows is not None:
        return rows
    entity_db = esper._entities
    return _reuse(component_type, [(entity, entity_db[entity][component_type]) for entity in comp_set], True,
                  comp_set)


def _component_rows(component_type):
    """``esper._get_component``."""
    return iter(_component_list(component_type))


def _components_list(*component_types) -> list:
    """The rows of ``esper._get_components``: (entity, (components...)) for every entity with all of them,
    walking the first of the smallest component sets, as esper does."""
    if not component_types:
        return []
    comp_db = esper._components
    sets = []
    for ct in component_types:
        comp_set = comp_db.get(ct)
        if comp_set is None:
            return []
        sets.append(comp_set)
    smallest = 0
    for i in range(1, len(sets)):
        if len(sets[i]) < len(sets[smallest]):
            smallest = i
    walk = sets[smallest]
    rows = _answer(component_types, walk, component_types)
    if rows is not None:
        return rows
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
    return _reuse(component_types, rows, False, walk)


def _components_rows(*component_types):
    """``esper._get_components``."""
    return iter(_components_list(*component_types))


def get_component(component_type) -> list:
    """``esper.get_component`` answering with the kept row list itself: esper's own copies the rows into a new list
    for its cache, and at 10,000 units two lists of ~9,000 rows per query after every tick with a death were what
    the collector's passes spent their time reading. Callers never change the list they are handed (esper's own
    cached list is shared the same way), and the rows here are never changed in place: a new answer is a new
    list."""
    if esper._cache_dirty:
        esper._clear_cache_now()
    cache = esper._get_component_cache
    rows = cache.get(component_type)
    if rows is None:
        rows = cache[component_type] = _component_list(component_type)
    return rows


def get_components(*component_types) -> list:
    """``esper.get_components`` answering with the kept row list itself (see ``get_component``)."""
    if esper._cache_dirty:
        esper._clear_cache_now()
    cache = esper._get_components_cache
    rows = cache.get(component_types)
    if rows is None:
        rows = cache[component_types] = _components_list(*component_types)
    return rows


def unchanged(rows: list, kept: list | None) -> bool:
    """Whether ``rows``, a query's answer now, are ``kept``, an earlier answer of the same query, row for row as the
    very tuples: then no entity the query reads came or went and none of its components was replaced (a rebuilt
    row whose components are the same objects is handed out as the same tuple). For callers that keep something
    derived from a query's rows between ticks; without ``install`` the rows are new tuples and this says False.

    >>> unchanged([(1, "a")], None), (lambda r: unchanged(r, list(r)))([(1, "a")])
    (False, True)
    """
    return kept is not None and (rows is kept or (len(rows) == len(kept) and all(map(is_, rows, kept))))


def only_left(rows: list, kept: list | None, kept_by_id: dict) -> bool:
    """Whether ``rows`` are ``kept`` less some entities and nothing else changed: fewer rows, each the very tuple
    kept for its entity (``kept_by_id``: entity -> its row in ``kept``). Entities leaving do not change the
    others' rows (see ``_answer``), so what was derived from ``kept`` holds for the survivors. Answered without
    reading the rows when ``rows`` was made from ``kept`` by deaths (``left``).

    >>> a, b = (1, "a"), (2, "b")
    >>> only_left([b], [a, b], {1: a, 2: b}), only_left([(2, "b")], [a, b], {1: a, 2: b})
    (True, False)
    """
    if kept is None or len(rows) >= len(kept):
        return False
    return left(rows, kept) is not None or all(map(is_, rows, map(kept_by_id.get, map(_first, rows))))


def left(rows: list, kept: list | None) -> list | None:
    """The entities whose rows a query's answer ``rows`` dropped from ``kept``, its answer before, when ``rows`` was
    made from ``kept`` by deaths alone (in ``kept``'s order); ``[]`` when they are the same list; None when that is
    not known: anything else changed, ``kept`` is more than one answer back, or these are not these hooks' answers.
    A reader that keeps something made from ``kept`` takes the dead out of it instead of comparing every row."""
    if kept is None:
        return None
    if rows is kept:
        return []
    st = hooked()
    if st is None:
        return None
    for answer in st.queries.values():
        if answer.rows is rows:
            return list(answer.dead) if answer.parent is kept and answer.dead is not None else None
    return None


def dead_since(rows: list, kept: list | None, kept_by_id: dict) -> list | None:
    """The entities whose rows ``rows`` lacks, when it is ``kept`` less some entities and nothing else changed
    (``only_left``; ``[]`` when nothing changed at all, ``unchanged``): from ``left`` when ``rows`` was made from
    ``kept`` by deaths, else by comparing every row. None when anything else changed.

    >>> a, b = (1, "a"), (2, "b")
    >>> dead_since([b], [a, b], {1: a, 2: b}), dead_since([a, b], [a, b], {})
    ([1], [])
    >>> dead_since([(2, "b")], [a, b], {1: a, 2: b}) is None        # a new row for 2: not deaths alone
    True
    """
    if unchanged(rows, kept):
        return []
    dead = left(rows, kept)
    if dead is not None:
        return dead
    if not only_left(rows, kept, kept_by_id):
        return None
    alive = set(map(_first, rows))
    return [e for e in map(_first, kept) if e not in alive]


def survivors(ids: np.ndarray, dead: list) -> np.ndarray:
    """A mask of ``ids`` (entity ids) without ``dead``: one comparison per dead entity when they are few.

    >>> survivors(np.array([4, 7, 9]), [7]).tolist()
    [True, False, True]
    """
    if len(dead) > 16:
        return ~np.isin(ids, np.asarray(dead, dtype=np.int64))
    keep = np.ones(len(ids), dtype=bool)
    for e in dead:
        keep &= ids != e
    return keep


def keep_in_place(keep: np.ndarray, *lists: list) -> None:
    """Take out of each of ``lists`` (parallel to the mask ``keep``) the items where ``keep`` is False, in place:
    a few deletions move pointers only, where a copy of a list of thousands touches every object it holds (their
    reference counts), memory traffic that at 10,000 units costs more than the rest of the work.

    >>> names, ages = ["a", "b", "c"], [1, 2, 3]
    >>> keep_in_place(np.array([True, False, True]), names, ages); names, ages
    (['a', 'c'], [1, 3])
    """
    for i in reversed(np.flatnonzero(~keep).tolist()):
        for items in lists:
            del items[i]


def changed_at(component_type) -> int | None:
    """A stamp of the last time a component of ``component_type`` came, went or was replaced in the current esper
    world (an entity created with one counts; an entity deleted does not), or of the making of this world's kept
    state when none did since (the state of a world unused for a while is dropped and made again: a new stamp, never
    one handed out before), or None when these hooks are not installed (then nothing may be kept on it). An
    answer that only deaths can make false, such as "no entity has a component like this", holds while the stamp
    is the same.

    >>> install(); esper.switch_world("changed_at_doctest")
    >>> before = changed_at(int); e = esper.create_entity(1); after = changed_at(int)
    >>> after != before, (esper.delete_entity(e, immediate=True), changed_at(int))[1] == after
    (True, True)
    >>> esper.switch_world("default"); esper.delete_world("changed_at_doctest")
    """
    st = hooked()
    return None if st is None else st.changed_at(component_type)


def table() -> dict:
    """The current esper world's entity table, entity -> {component type: component}: what esper's own
    ``component_for_entity`` reads (``table()[eid][Position]`` is ``component_for_entity(eid, Position)``, and
    ``table()[eid].get(Squad)`` is ``try_component(eid, Squad)`` for a live entity), for a loop that reads several
    components of many entities without a call per component. Ask for it per use: ``esper.switch_world`` rebinds
    it. Callers only read it.

    >>> esper.switch_world("table_doctest"); e = esper.create_entity(1, "x")
    >>> table()[e][int], table()[e].get(float), table()[e][str] is esper.component_for_entity(e, str)
    (1, None, True)
    >>> esper.switch_world("default"); esper.delete_world("table_doctest")
    """
    entities = getattr(esper, "_entities", None)
    return entities if entities is not None else _PUBLIC_TABLE


class _PublicEntity:
    """One entity's components through esper's public calls (``table`` for an esper without its table)."""
    __slots__ = ("eid",)

    def __init__(self, eid):
        self.eid = eid

    def __getitem__(self, component_type):
        return esper.component_for_entity(self.eid, component_type)

    def __contains__(self, component_type):
        return esper.has_component(self.eid, component_type)

    def get(self, component_type, default=None):
        found = esper.try_component(self.eid, component_type)
        return default if found is None else found


class _PublicTable:
    """``table()``'s reads (``[eid]``, ``.get(eid)``) through esper's public calls."""

    def __getitem__(self, eid):
        if not esper.entity_exists(eid):
            raise KeyError(eid)
        return _PublicEntity(eid)

    def get(self, eid, default=None):
        return _PublicEntity(eid) if esper.entity_exists(eid) else default


_PUBLIC_TABLE = _PublicTable()


def hooked() -> "_Rows | None":
    """The current esper world's kept state when these hooks count its changes, else None. A reader that asks
    after the same changes many times in a pass may compare its ``gen`` (any component came, went or was
    replaced) and ``gone_count`` (entities deleted) between calls instead of asking again."""
    if not installed() or not all(getattr(esper, name) is hook for name, hook in _HOOKS.items()):
        return None
    return _state()


def deletion_mark() -> tuple | None:
    """A mark of the deletions so far in the current esper world, for ``deleted_since``; None without the hooks."""
    st = hooked()
    return None if st is None else st.deletion_mark()


def deleted_since(mark: tuple | None) -> list | None:
    """The entities deleted in the current esper world since ``mark`` (``deletion_mark``), in the order deleted
    (asked to be: a deferred deletion counts when asked for); None when that is not known (no mark or no hooks,
    the world's kept state was dropped and made again, or more than ``GONE_KEPT`` went since).

    >>> install(); esper.switch_world("deleted_doctest")
    >>> a, b = esper.create_entity(1), esper.create_entity(2); mark = deletion_mark()
    >>> esper.delete_entity(b); esper.delete_entity(a, immediate=True); deleted_since(mark) == [b, a]
    True
    >>> deleted_since(deletion_mark()), deleted_since(None)
    ([], None)
    >>> esper.switch_world("default"); esper.delete_world("deleted_doctest")
    """
    now = deletion_mark()
    if mark is None or now is None or mark[0] != now[0] or now[1] - mark[1] > GONE_KEPT:
        return None
    st = _state()
    new = now[1] - mark[1]
    return list(itertools.islice(reversed(st.gone), new))[::-1] if new else []    # (from the recent end)


def forget() -> None:
    """Drop the last rows kept for the current esper world (before the world is deleted)."""
    _LAST.pop(id(esper._entities), None)


def installed() -> bool:
    return esper._get_components is _components_rows and esper._get_component is _component_rows and \
        esper.get_components is get_components and esper.get_component is get_component


_HOOKED = ("create_entity", "add_component", "remove_component", "try_remove_component", "clear_database",
           "delete_entity")
_ESPER_OWN = {name: getattr(esper, name, None) for name in _HOOKED}


def _create_entity(*components):
    entity = _ESPER_OWN["create_entity"](*components)
    if components:
        _touch(*map(type, components))
    return entity


def _add_component(entity, component_instance, type_alias=None):
    _ESPER_OWN["add_component"](entity, component_instance, type_alias)
    _touch(type_alias or type(component_instance))


def _remove_component(entity, component_type):
    try:
        return _ESPER_OWN["remove_component"](entity, component_type)
    finally:
        _touch(component_type)


def _try_remove_component(entity, component_type):
    try:
        return _ESPER_OWN["try_remove_component"](entity, component_type)
    finally:
        _touch(component_type)


def _delete_entity(entity, immediate=False):
    _ESPER_OWN["delete_entity"](entity, immediate)
    st = _state()
    st.gone.append(entity)
    st.gone_count += 1


def _clear_database():
    _ESPER_OWN["clear_database"]()
    forget()


_HOOKS = {"create_entity": _create_entity, "add_component": _add_component, "remove_component": _remove_component,
          "try_remove_component": _try_remove_component, "clear_database": _clear_database,
          "delete_entity": _delete_entity}


def install() -> None:
    """Use these row builders in esper, and count its component changes (idempotent); nothing happens if esper's
    internals are not as expected. The counting stays after ``uninstall``, so kept answers stay true."""
    if None in _ORIGINAL or None in _ORIGINAL_PUBLIC or None in _ESPER_OWN.values() or \
            not all(hasattr(esper, n) for n in ("_components", "_entities", "_cache_dirty", "_dead_entities",
                                                "_clear_cache_now",
                                                "_get_component_cache", "_get_components_cache")):
        return                                     # pragma: no cover - another esper
    for name, hook in _HOOKS.items():
        setattr(esper, name, hook)
    esper._get_component = _component_rows
    esper._get_components = _components_rows
    esper.get_component = get_component
    esper.get_components = get_components


def uninstall() -> None:
    """esper's own row builders again (tests compare the two)."""
    if None not in _ORIGINAL:
        esper._get_component, esper._get_components = _ORIGINAL
        esper.get_component, esper.get_components = _ORIGINAL_PUBLIC
