"""The compiled playouts (ai/tactics_jit.py) give exactly the numpy path's numbers: same values, same generator
state after, on random models and on the commander's real decisions; so replays verify whichever is installed."""
import os

import numpy as np
import pytest

from ai import tactics, tactics_jit
from ai.tactics import GroupSpec, Model, State

pytestmark = [pytest.mark.skipif(not tactics_jit.installed(), reason="numba is not installed (pip install -e '.[fast]')"),
              pytest.mark.skipif(bool(os.environ.get("RTS_NO_JIT")), reason="RTS_NO_JIT is set: one path only")]


def both(monkeypatch, fn):
    """``fn()`` on the compiled path and on the numpy path, each with a fresh generator of the same seed: the
    results and what each generator draws next."""
    out = []
    for jit in (True, False):
        monkeypatch.setattr(tactics, "USE_JIT", jit)
        rng = np.random.default_rng(11)
        out.append((fn(rng), rng.random()))
    return out


def random_case(r: np.random.Generator, teams: int = 2):
    n = int(r.integers(1, 9))
    adjacency = [set() for _ in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            if r.random() < 0.35:
                adjacency[a].add(b)
                adjacency[b].add(a)
    model = Model(tuple(tuple(sorted(a)) for a in adjacency), substeps=int(r.integers(1, 4)),
                  step_seconds=float(r.choice([5.0, 10.0, 7.3])),
                  evaluation=str(r.choice(["strength", "hp", "count", "ltd2"])))
    g = int(r.integers(1, 9))
    specs = [GroupSpec(f"g{i}", int(i % teams if i < teams else r.integers(0, teams)), float(r.uniform(50, 400)),
                       float(r.uniform(1, 30)), mobile=bool(r.random() < 0.85)) for i in range(g)]
    states = []
    for _ in range(int(r.integers(1, 5))):
        hp = [0.0 if r.random() < 0.15 else float(r.uniform(0.1, 1.0)) * s.max_hp for s in specs]
        region = [int(r.integers(0, n)) for _ in specs]
        states.append(State(region, hp, [int(r.integers(0, 3)) for _ in specs], region[:]))
    return model, specs, states


@pytest.mark.parametrize("policy", ["scripted", "random"])
def test_compiled_playouts_equal_the_numpy_path_on_random_models(monkeypatch, policy):
    r = np.random.default_rng(2024)
    checked = 0
    for _ in range(150):
        model, specs, states = random_case(r)
        order = [g for g in range(len(specs)) if r.random() < 0.9] or [0]
        starts = [int(r.integers(0, len(order) + 1)) for _ in states]
        rounds = [int(r.integers(-1, 4)) for _ in states]          # -1: as 0 (expected_outcome with horizon 0)
        reps = int(r.integers(1, 9))
        (a, next_a), (b, next_b) = both(monkeypatch, lambda rng: tactics.playout_many(
            model, specs, states, 0, order, starts, rounds, policy, rng, reps))
        assert a.shape == b.shape == (len(states), reps)
        assert np.array_equal(a, b), (model, specs, states, order, starts, rounds)
        assert next_a == next_b                      # the random policy drew the same numbers
        checked += int(np.any((a != 0.5) & (a != 0.0) & (a != 1.0)))
    assert checked > 30                              # most cases fought: the comparison is not between idle rows


def test_three_teams_keep_the_numpy_path():
    assert tactics_jit.available(2) and not tactics_jit.available(3)


def test_a_commander_decides_alike_on_either_path(monkeypatch):
    from content.loader import load_content
    from game.world import World
    from systems import commander
    content = load_content()
    decisions = []
    for jit in (True, False):
        monkeypatch.setattr(tactics, "USE_JIT", jit)
        world = World(content, "skirmish", 3)
        try:
            world.run(400)                               # squads have spread and met by now
            got = []
            for name in ("uct", "uct_ltd2", "eo", "uct_small"):
                rec = commander.decide(world, 0, content.commanders[name])
                got.append((name, rec.orders, rec.value, rec.stats, rec.playouts))
            decisions.append(got)
        finally:
            world.close()
    assert decisions[0] == decisions[1]


def test_a_numba_that_cannot_be_imported_falls_back_to_numpy_with_one_warning(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "numba", None)          # importing it raises ImportError
    monkeypatch.setattr(tactics_jit._BUILD, "built", None)
    with pytest.warns(RuntimeWarning, match="numba is installed but cannot be used .*import of numba halted"):
        assert not tactics_jit.available(2)
    assert not tactics_jit.available(2)                      # decided once: no second warning, no second try
    model = Model(((1,), (0,)))
    specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    got = tactics.playout_many(model, specs, [tactics.new_state([0, 1], [200.0, 100.0])], 0, [0, 1], [0], [1],
                               "scripted", None, 2)
    assert got.shape == (1, 2) and 0.5 < got[0, 0] <= 1.0
