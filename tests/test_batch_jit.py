"""The batch scorer's compiled loop (ai/batch_jit.py) and its numpy path give the same eligibility and the same
scores to the last bit; the loop runs for the brains the game ships, and a match decides alike on either path."""
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ai import batch_jit, jit
from ai.batch import BatchScorer
from ai.conditions import Condition
from ai.curves import Curve
from ai.utility import Candidate, ModeSelector, Preference
from tests.test_batch_utility import FACTS, curves, fact_values, gates, preferences, snapshots

pytestmark = [pytest.mark.skipif(not jit.INSTALLED, reason="numba is not installed (pip install -e '.[fast]')"),
              pytest.mark.skipif(bool(os.environ.get("RTS_NO_JIT")), reason="RTS_NO_JIT is set: one path only")]

# the curves the loop covers (a polynomial keeps the numpy path: tested below), and integer parameters and points
loop_curves = st.one_of(
    curves.filter(lambda c: c.kind != "polynomial"),
    st.builds(lambda m: Curve("linear", {"slope": m, "intercept": 1}), st.integers(-2, 2)),
    st.builds(lambda ys: Curve("piecewise", points=[[0, ys[0]], [1, ys[1]]]), st.lists(st.integers(-1, 2), min_size=2,
                                                                                     max_size=2)),
)
loop_preferences = st.builds(
    lambda name, lo, span, curve, w: Preference(name, lo, lo + span, curve, w),
    st.sampled_from(FACTS), st.floats(-3, 3) | st.integers(-2, 2),
    st.one_of(st.floats(0.01, 6), st.integers(1, 4), st.just(0.0), st.just(-1.0)), loop_curves,
    st.one_of(st.floats(0.05, 5), st.just(1.0), st.just(2), st.just(0.0)))
loop_gates = st.builds(Condition, st.sampled_from(FACTS), st.sampled_from(["==", "!=", "<", "<=", ">", ">="]),
                       st.one_of(st.floats(-2, 2), st.integers(-1, 1), st.booleans()))


@st.composite
def selectors(draw, gate=loop_gates, pref=loop_preferences):
    n = draw(st.integers(1, 5))
    return ModeSelector([Candidate(f"m{i}", tuple(draw(st.lists(gate, max_size=2))),
                                   tuple(draw(st.lists(pref, max_size=3)))) for i in range(n)])


def both(sel, snaps, bbs):
    """(eligible, scores) from the compiled loop, then from the numpy path, of one selector."""
    assert batch_jit.available()
    compiled = BatchScorer(sel)
    plain = BatchScorer(sel)
    plain._plan = None
    return compiled.score(snaps, bbs), plain.score(snaps, bbs), compiled


def same(a, b):
    """The same eligibility, and every score the same double (NaN where ineligible)."""
    assert a[0].tolist() == b[0].tolist()
    assert a[1].tobytes() == b[1].tobytes(), (a[1], b[1])


@settings(max_examples=400, deadline=None)
@given(selectors(), st.lists(snapshots(), min_size=1, max_size=8), st.booleans())
def test_the_loop_gives_the_numpy_path_s_bits(sel, snaps, with_bb):
    bbs = [{"d": 0.25, "a": "x"} for _ in snaps] if with_bb else None
    loop, numpy_path, scorer = both(sel, snaps, bbs)
    assert scorer._plan is not None
    same(loop, numpy_path)


@settings(max_examples=200, deadline=None)
@given(selectors(gates, preferences), st.lists(snapshots(), min_size=1, max_size=6))
def test_any_selector_scores_alike_whether_or_not_the_loop_takes_it(sel, snaps):
    """The general strategies: polynomial curves, a string or a 2**53 gate value (those keep the numpy path)."""
    loop, numpy_path, _scorer = both(sel, snaps, [{"d": 0.25} for _ in snaps])
    same(loop, numpy_path)


@settings(max_examples=200, deadline=None)
@given(selectors(), st.lists(st.fixed_dictionaries({name: fact_values for name in FACTS}), min_size=1, max_size=8))
def test_every_fact_present_reads_as_the_columns_do(sel, snaps):
    """``matrix``'s one-call read (every NPC holds every fact) equals ``columns`` stacked, and falls back to it
    for a value that is not a plain number a float holds (a string, None, 10**400, a NaN is still a number)."""
    scorer = BatchScorer(sel)
    vals, numeric, present = scorer.matrix(snaps, None)
    cols = scorer.columns(snaps, None)
    n = len(snaps)
    assert vals.shape == numeric.shape == present.shape == (len(scorer.names), n)
    for r, name in enumerate(scorer.names):
        want_vals, want_numeric, want_present, _raw = cols[name]
        assert vals[r].tobytes() == np.asarray(want_vals, dtype=np.float64).tobytes()
        assert numeric[r].tolist() == list(want_numeric) and present[r].tolist() == list(want_present)


def same_as_scalar(sel, snaps, got):
    """``got`` (eligible, scores) is the scalar scorer's, score for score, to the last bit."""
    ids = BatchScorer(sel).ids
    recs = [sel.score_all(f) for f in snaps]
    want = np.array([[r[c].score if r[c].eligible else np.nan for c in ids] for r in recs])
    want = want.reshape(len(snaps), len(ids))
    assert got[0].tolist() == [[r[c].eligible for c in ids] for r in recs]
    assert got[1].tobytes() == want.tobytes(), (got[1], want)


full_mantissa = st.floats(-4, 4, allow_nan=False, allow_infinity=False).map(lambda v: v * (1 + 2 ** -40))
dense_preferences = st.builds(
    lambda name, lo, span, curve, w: Preference(name, lo, lo + span, curve, w),
    st.sampled_from(FACTS), st.floats(-2, 1), st.floats(0.05, 5), curves.filter(lambda c: c.kind != "polynomial"),
    st.floats(0.05, 4))


@settings(max_examples=300, deadline=None)
@given(selectors(loop_gates, dense_preferences),
       st.lists(st.fixed_dictionaries({name: full_mantissa for name in FACTS}), min_size=1, max_size=8))
def test_valid_brains_on_ordinary_facts_score_in_the_loop_as_the_scalar_does(sel, snaps):
    """Every fact present, every value an ordinary float with a full mantissa, every preference valid: the cells
    the loop decides itself (the army's case), each compared with the numpy path and the scalar scorer."""
    loop, numpy_path, _scorer = both(sel, snaps, None)
    same(loop, numpy_path)
    same_as_scalar(sel, snaps, loop)


@pytest.mark.parametrize("name, sel, snaps", [
    ("a value on a piecewise curve's inner point", ModeSelector([Candidate("p", preferences=(
        Preference("x", 0.0, 1.0, Curve("piecewise", points=[[0, 0.2], [0.3, 0.9], [1, 0.2]])),))]), [{"x": 0.3}]),
    ("weights whose sum overflows", ModeSelector([Candidate("w", preferences=(
        Preference("x", 0.0, 1.0, weight=1e308), Preference("x", 0.0, 1.0, weight=1e308)))]), [{"x": 1.0}]),
    ("a weighted log that overflows", ModeSelector([Candidate("l", preferences=(
        Preference("x", 0.0, 1.0, weight=1e308),))]), [{"x": 0.0}]),
    ("a normalised value of inf * 0", ModeSelector([Candidate("n", preferences=(
        Preference("x", -1e308, 1e308, Curve("piecewise", points=[[0, 1], [1, 0.5]])),))]), [{"x": 1e308}]),
    ("the logistic at its cap", ModeSelector([Candidate("z", preferences=(
        Preference("x", 0.0, 1.0, Curve("logistic", {"steepness": -700.0, "midpoint": 0.0})),))], eps=5e-324),
     [{"x": 1.0}]),
    ("a check sum that overflows", ModeSelector([Candidate("k", preferences=(
        Preference("a", 0.0, 1.7e308), Preference("b", 0.0, 1.7e308)))]),
     [{"a": 9e307 + i * 1.1e306, "b": 9.1e307} for i in range(8)]),
    ("inf * 0 beside an ordinary preference", ModeSelector([Candidate("n", preferences=(
        Preference("x", -1e308, 1e308), Preference("y", 0.0, 0.37)))]),
     [{"x": 1e308, "y": 0.29 * i / 97} for i in range(1, 97)]),
])
def test_overflows_and_edges_score_alike_on_every_path(name, sel, snaps):
    loop, numpy_path, scorer = both(sel, snaps, None)
    assert scorer._plan is not None, name
    same(loop, numpy_path)
    same_as_scalar(sel, snaps, loop)


def test_facts_in_a_dict_subclass_are_read_as_the_scalar_reads_them():
    """A mapping that answers a missing key (a Counter, a defaultdict) is read by ``get``, as the scalar reads it:
    the missing fact fails its gate and is not added to the facts."""
    from collections import Counter, defaultdict
    sel = ModeSelector([Candidate("a", (Condition("b", "<", 1),), (Preference("x", 0.0, 1.0),))])
    for snaps in ([Counter({"x": 0.5}), Counter({"x": 0.25, "b": 0})],
                  [defaultdict(float, {"x": 0.5}), defaultdict(float, {"x": 0.25, "b": 0})]):
        loop, numpy_path, _scorer = both(sel, snaps, None)
        same(loop, numpy_path)
        same_as_scalar(sel, snaps, loop)
        assert loop[0][:, 0].tolist() == [False, True] and "b" not in snaps[0]


def test_the_loop_takes_the_shipped_brains_and_leaves_what_it_cannot_copy():
    from content.loader import load_content
    content = load_content()
    for bdef in content.brains.values():
        assert batch_jit.plan(BatchScorer(bdef.selector)) is not None, bdef.id
    pref = (Preference("a", 0.0, 1.0),)
    left = [ModeSelector([Candidate("p", preferences=(Preference("a", 0, 1, Curve("polynomial")),))]),
            ModeSelector([Candidate("g", (Condition("a", "==", "x"),), pref)]),
            ModeSelector([Candidate("g", (Condition("a", ">", 2 ** 53 + 1),), pref)]),
            ModeSelector([Candidate("e", (), pref)], eps=0.0)]
    for sel in left:
        assert batch_jit.plan(BatchScorer(sel)) is None


def test_edge_values_score_alike():
    """Ranges and curves at their edges: an empty range, a value on a piecewise point, the logistic's cap, an
    integer range, signed zeros, and a weight of zero (every cell to the scalar scorer)."""
    cands = [Candidate("flat", preferences=(Preference("a", 1.0, 1.0),)),
             Candidate("pw", preferences=(
                 Preference("a", 0, 1, Curve("piecewise", points=[[0, 1], [0.5, 0], [1, 1]])),)),
             Candidate("cap", preferences=(Preference("b", 0.0, 1.0, Curve("logistic", {"steepness": -1500.0})),)),
             Candidate("ints", (Condition("c", ">=", 0),), (Preference("c", -2, 3, Curve("logit")),)),
             Candidate("zero_w", preferences=(Preference("a", 0.0, 1.0, weight=0.0),)),
             Candidate("step", preferences=(Preference("b", 0.0, 1.0, Curve("step", {"threshold": 0.0})),))]
    sel = ModeSelector(cands)
    snaps = [{"a": a, "b": b, "c": c} for a in (0.0, -0.0, 0.5, 1.0, 2.0) for b in (0.0, -0.0, 1e-300, 0.47, 1.0)
             for c in (-2, 0, 3, 7)]
    loop, numpy_path, scorer = both(sel, snaps, None)
    assert scorer._plan is not None
    same(loop, numpy_path)
    truth = [sel.score_all(f) for f in snaps]
    for i, rec in enumerate(truth):
        for j, cid in enumerate(scorer.ids):
            assert bool(loop[0][i, j]) == rec[cid].eligible
            if rec[cid].eligible:
                assert loop[1][i, j] == rec[cid].score
    pw = scorer.ids.index("pw")                      # (the columns are in the selector's candidate order)
    assert loop[0][:, pw].all() and not math.isnan(loop[1][0, pw])
    assert not loop[0][:, scorer.ids.index("zero_w")].any()


def test_a_match_decides_alike_on_the_loop_and_the_numpy_path(monkeypatch):
    """300 units of the army map for 150 ticks, past first contact: every decision record and the sync hash."""
    from benchmarks.run import army_content
    from content.loader import load_content
    from game.world import World
    content, sid = army_content(load_content(), 300)
    out = []
    for loop in (True, False):
        monkeypatch.setattr(batch_jit, "available", lambda loop=loop: loop)
        world = World(content, sid, 4)
        world.decisions.collect = True
        try:
            world.run(150)
            recs = [r.to_wire() for r in world.decisions.take() if r.kind == "npc"]
            out.append((world.summary()["sync_hash"], recs))
        finally:
            world.close()
    assert len(out[0][1]) > 500
    assert out[0] == out[1]
