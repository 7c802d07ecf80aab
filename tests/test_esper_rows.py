"""game/esper_rows.py builds esper's query rows exactly as esper does: the same rows in the same order."""
import dataclasses
import random

import esper
import pytest

from game import esper_rows


class A:
    pass


class B:
    pass


class C:
    pass


class D:
    pass


KINDS = (A, B, C, D)
QUERIES = [(A,), (B,), (A, B), (B, A), (A, C), (C, B, A), (A, B, C, D), (D, C), (D,), (B, D, A)]


@pytest.fixture
def scratch_world():
    esper.switch_world("esper_rows_test")
    yield
    esper.switch_world("default")
    esper.delete_world("esper_rows_test")


def both(query):
    """(esper's own rows, ours) for one query, from the same world state, through the row builders and the public
    calls (esper's cache is cleared first, so that each side builds its own answer)."""
    esper_rows.uninstall()
    try:
        esper.clear_cache()
        own = list(esper._get_components(*query))
        own_single = list(esper._get_component(query[0]))
        own_public = (esper.get_components(*query), esper.get_component(query[0]))
    finally:
        esper_rows.install()
        esper.clear_cache()
    return (own, own_single, *own_public), (list(esper._get_components(*query)), list(esper._get_component(query[0])),
                                            esper.get_components(*query), esper.get_component(query[0]))


def test_the_public_calls_hand_out_the_kept_rows_themselves_until_something_changes(scratch_world):
    """No copy of the rows for esper's cache: the list the row builder kept is the one handed out, every call until
    an entity or component comes or goes; then a new list (the old one is never changed)."""
    esper_rows.install()
    ids = [esper.create_entity(A(), B()) for _ in range(4)]
    rows = esper.get_components(A, B)
    single = esper.get_component(A)
    state = esper_rows._state()
    assert rows is state.queries[(A, B)].rows and single is state.queries[A].rows
    assert esper.get_components(A, B) is rows and esper.get_component(A) is single
    frozen = list(rows)
    esper.delete_entity(ids[0], immediate=True)
    after = esper.get_components(A, B)
    assert after is not rows and rows == frozen and len(after) == 3


@pytest.mark.parametrize("seed", range(12))
def test_the_rows_equal_esper_own_in_order_through_births_deaths_and_changes(scratch_world, seed):
    rng = random.Random(seed)
    alive = []
    compared = 0
    for step in range(60):
        for _ in range(rng.randrange(0, 12)):             # births with random component sets
            kinds = [k for k in KINDS if rng.random() < 0.6]
            alive.append(esper.create_entity(*[k() for k in kinds]))
        for e in rng.sample(alive, k=min(len(alive), rng.randrange(0, 5))):    # deaths
            esper.delete_entity(e, immediate=True)
            alive.remove(e)
        for e in rng.sample(alive, k=min(len(alive), rng.randrange(0, 4))):    # components come and go
            kind = rng.choice(KINDS)
            if esper.has_component(e, kind):
                esper.remove_component(e, kind)
            else:
                esper.add_component(e, kind())
        for query in QUERIES:
            theirs, ours = both(query)
            assert ours == theirs, (seed, step, query)
            compared += len(ours[0])
    assert compared > 1000                                  # the worlds were not empty


def test_a_query_of_a_component_nobody_has_is_empty_and_the_public_calls_use_these_rows(scratch_world):
    esper.create_entity(A(), B())
    assert esper.get_components(A, C) == [] and esper.get_component(C) == []
    assert esper_rows.installed()
    esper_rows.uninstall()
    assert not esper_rows.installed()
    esper_rows.install()
    esper_rows.install()                                   # idempotent
    assert esper_rows.installed()


@dataclasses.dataclass
class Equal:
    """A component that compares by value, as the game's dataclass components do."""
    x: int = 1


def test_a_component_replaced_by_an_equal_one_is_handed_out_as_the_new_object(scratch_world):
    keep = esper.create_entity(Equal(), A())
    gone = esper.create_entity(Equal(), A())
    first = dict(esper.get_components(Equal, A))[keep]
    first_single = dict(esper.get_component(Equal))[keep]
    replacement = Equal()
    assert replacement == first[0] and replacement is not first[0]
    esper.add_component(keep, replacement)                 # equal, but another object
    esper.delete_entity(gone, immediate=True)
    assert dict(esper.get_components(Equal, A))[keep][0] is replacement
    assert dict(esper.get_component(Equal))[keep] is replacement and first_single is not replacement


def test_unchanged_rows_are_the_same_objects_after_a_rebuild_and_a_closed_world_is_forgotten(scratch_world):
    ids = [esper.create_entity(A(), B()) for _ in range(5)]
    before = esper.get_components(A, B)
    esper.delete_entity(ids[0], immediate=True)
    after = esper.get_components(A, B)
    assert after is not before and len(after) == 4
    assert all(any(row is old for old in before) for row in after)       # kept, not rebuilt
    assert esper_rows._LAST.get(id(esper._entities))
    esper_rows.forget()
    assert id(esper._entities) not in esper_rows._LAST


def test_closing_a_world_forgets_its_rows_and_leaves_the_current_world_current():
    from content.loader import load_content
    from game.world import World
    content = load_content()
    a, b = World(content, "skirmish", 1), World(content, "skirmish", 2)
    try:
        b.activate()
        b.step()
        b_table = id(esper._entities)
        assert esper_rows._LAST.get(b_table)
        a.activate()
        b.close()
        assert esper.current_world == a.name and b_table not in esper_rows._LAST
        a.close()
        assert esper.current_world == "default"
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("seed", range(6))
def test_after_deaths_alone_a_query_is_answered_from_its_last_rows_and_equals_esper_own(scratch_world, seed,
                                                                                         monkeypatch):
    """Deaths only (immediate and deferred) leave the other entities' order in every set as it was: the answer is
    the last rows still alive, not a rebuild; any birth, added, replaced or removed component of a queried type,
    or a cleared database, makes it rebuild (as does a change of which set is the smallest)."""
    rng = random.Random(seed)
    alive = [esper.create_entity(*[k() for k in KINDS if rng.random() < 0.7]) for _ in range(300)]
    built = []
    real = esper_rows._reuse
    monkeypatch.setattr(esper_rows, "_reuse", lambda *a: built.append(a[0]) or real(*a))
    for query in QUERIES:
        esper.get_components(*query)
    served = 0
    for step in range(40):
        built.clear()
        change = rng.random()
        for e in rng.sample(alive, k=min(len(alive), rng.randrange(1, 6))):
            esper.delete_entity(e, immediate=rng.random() < 0.5)
            alive.remove(e)
        esper.clear_dead_entities()
        if change < 0.25:                                   # a component of one type comes, goes or is replaced
            kind, e = rng.choice(KINDS), rng.choice(alive)
            if esper.has_component(e, kind) and rng.random() < 0.5:
                esper.remove_component(e, kind)
            else:
                esper.add_component(e, kind())
            touched = {kind}
        elif change < 0.35:                                 # a birth
            kinds = [k for k in KINDS if rng.random() < 0.5] or [A]
            alive.append(esper.create_entity(*[k() for k in kinds]))
            touched = set(kinds)
        else:
            touched = set()
        for query in QUERIES:
            theirs, ours = both(query)
            assert ours == theirs, (seed, step, query)
        rebuilt = {k for k in built if isinstance(k, tuple)}
        assert {q for q in QUERIES if touched & set(q)} <= rebuilt, (seed, step)   # (and where the smallest set
        served += len(QUERIES) - len(rebuilt)                                        # walked changed)
    assert served > 200
    esper.clear_database()
    esper.create_entity(A(), B())
    assert both((A, B))[0] == both((A, B))[1] and len(esper.get_components(A, B)) == 1


def test_the_module_examples_run():
    """The docstring examples (install, the rows, ``unchanged``, ``only_left``, ``changed_at``)."""
    import doctest
    result = doctest.testmod(esper_rows, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0
    esper.switch_world("default")


def test_the_public_stand_in_for_the_entity_table_reads_the_same():
    """``esper_rows.table()`` falls back to esper's public calls for an esper without ``_entities``: the same
    components, the same misses."""
    import esper

    from game import esper_rows
    esper.switch_world("public_table_test")
    try:
        a = esper.create_entity(1, "x")
        b = esper.create_entity(2.5)
        real, public = esper_rows.table(), esper_rows._PUBLIC_TABLE
        for eid in (a, b):
            for ct in (int, str, float, bytes):
                assert (ct in real[eid]) == (ct in public[eid])
                assert real[eid].get(ct) is public[eid].get(ct)
                if ct in real[eid]:
                    assert real[eid][ct] is public[eid][ct]
        assert public.get(99999) is None and real.get(99999) is None
        with pytest.raises(KeyError):
            public[99999]
    finally:
        esper.switch_world("default")
        esper.delete_world("public_table_test")


@pytest.mark.parametrize("seed", range(8))
def test_deaths_found_from_the_deletion_log_while_deferred_deletions_wait(scratch_world, seed):
    """After deaths alone the dead rows are found from the deletion log (``_Answer.mark``), not by asking every row:
    with deferred deletions waiting across queries, immediate ones between them, and the deferred ones done later,
    every answer still equals esper's own, and most answers were made from the log."""
    rng = random.Random(100 + seed)
    alive = [esper.create_entity(*[k() for k in KINDS if rng.random() < 0.7]) for _ in range(400)]
    for query in QUERIES:
        esper.get_components(*query)
    from_log = []
    waiting = []
    for step in range(60):
        roll = rng.random()
        if roll < 0.4 and alive:                     # a deferred deletion: still in every set until it is done
            e = alive.pop(rng.randrange(len(alive)))
            esper.delete_entity(e)
            waiting.append(e)
        elif roll < 0.75 and alive:
            esper.delete_entity(alive.pop(rng.randrange(len(alive))), immediate=True)
        elif roll < 0.85:
            esper.clear_dead_entities()
            waiting.clear()
        for query in rng.sample(QUERIES, 4):
            before = esper_rows._state().queries.get(query)
            ours = esper.get_components(*query)
            answer = esper_rows._state().queries[query]
            if before is not None and ours is not before.rows and answer.ids is not None:
                from_log.append(query)                  # made from the last answer by the log (it keeps ids)
            esper_rows.uninstall()
            try:
                esper.clear_cache()
                theirs = list(esper._get_components(*query))
            finally:
                esper_rows.install()
            assert ours == theirs, (seed, step, query)
            assert all(row[0] not in waiting or row[0] in esper._entities for row in ours)
    assert len(from_log) > 30


def test_left_names_the_dead_between_two_answers_one_step_back(scratch_world):
    """``left(rows, kept)``: the entities whose rows a later answer dropped from an earlier one, when it was made from
    it by deaths alone; None otherwise (two answers back, or anything else changed)."""
    ids = [esper.create_entity(A(), B()) for _ in range(6)]
    first = esper.get_components(A, B)
    esper.delete_entity(ids[1], immediate=True)
    esper.delete_entity(ids[4], immediate=True)
    second = esper.get_components(A, B)
    assert esper_rows.left(second, first) == [ids[1], ids[4]]
    assert esper_rows.only_left(second, first, dict(zip(map(esper_rows._first, first), first)))
    esper.delete_entity(ids[0], immediate=True)
    third = esper.get_components(A, B)
    assert esper_rows.left(third, second) == [ids[0]] and esper_rows.left(third, first) is None
    esper.add_component(ids[2], C())
    esper.create_entity(A(), B())
    fourth = esper.get_components(A, B)
    assert esper_rows.left(fourth, third) is None and esper_rows.left(third, third) == []


def test_a_deferred_deletion_the_log_does_not_hold_makes_the_next_answer_ask_every_row():
    """A waiting deferred deletion the log no longer holds (this world's kept state was dropped when more than
    ``_WORLDS_KEPT`` other worlds were used, or more than ``GONE_KEPT`` deletions came after it): the answer made
    while it waits does not trust the log, so once it is done its row is gone, as in esper's own answer."""
    esper_rows.install()
    own = lambda *q: [r[0] for r in esper_rows._ORIGINAL[1](*q)]           # noqa: E731
    try:
        esper.switch_world("deferred_a")
        e1, e2, _e3 = (esper.create_entity(C(), D()) for _ in range(3))
        esper.get_components(D, C)
        esper.delete_entity(e1)                          # deferred, logged in this world's kept state
        for i in range(esper_rows._WORLDS_KEPT):         # other worlds used: that state is dropped
            esper.switch_world(f"deferred_other{i}")
            esper.create_entity(C())
        esper.switch_world("deferred_a")
        esper.delete_entity(e2)                          # deferred, logged in the new state
        esper.create_entity(A())
        esper.get_components(D, C)                       # made while both wait
        esper.clear_dead_entities()
        assert [r[0] for r in esper.get_components(D, C)] == own(D, C) == [_e3]
        esper.switch_world("deferred_b")
        f1, f2, f3 = (esper.create_entity(C(), D()) for _ in range(3))
        esper.delete_entity(f1)                          # deferred
        for _ in range(esper_rows.GONE_KEPT):            # then more deletions than the log keeps
            esper.delete_entity(esper.create_entity(), immediate=True)
        esper.delete_entity(f2)
        esper.get_components(D, C)
        esper.clear_dead_entities()
        assert [r[0] for r in esper.get_components(D, C)] == own(D, C) == [f3]
    finally:
        esper.switch_world("default")
        for name in ["deferred_a", "deferred_b"] + [f"deferred_other{i}" for i in range(esper_rows._WORLDS_KEPT)]:
            if name in esper._context_map:          # (a failed assertion may leave some never made)
                esper.delete_world(name)
