"""game/esper_rows.py builds esper's query rows exactly as esper does: the same rows in the same order."""
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
    """(esper's own rows, ours) for one query, from the same world state."""
    esper_rows.uninstall()
    try:
        own = list(esper._get_components(*query))
        own_single = list(esper._get_component(query[0]))
    finally:
        esper_rows.install()
    return (own, own_single), (list(esper._get_components(*query)), list(esper._get_component(query[0])))


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
