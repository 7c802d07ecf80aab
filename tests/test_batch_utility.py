"""The batch scorer (ai/batch.py) and the scalar scorer (ai/utility.py) are one semantics: the same eligibility,
the same scores to the last bit, the same choice (near-ties included); and a match decides the same whichever path
its brains take."""
import math

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from ai.batch import BatchScorer, curve_array
from ai.conditions import Condition
from ai.curves import Curve
from ai.utility import Candidate, ModeSelector, Preference

FACTS = ("a", "b", "c", "d")

numbers = st.one_of(st.floats(-5, 5, allow_nan=False), st.integers(-3, 3), st.booleans(),
                    st.sampled_from([0.0, 1.0, 0.5, 1e-7, -0.0]))
odd = st.sampled_from([math.nan, math.inf, -math.inf, "x", None, 10 ** 400, 2 ** 53 + 1, -(2 ** 53) - 1])
fact_values = st.one_of(numbers, numbers, numbers, odd)

curves = st.one_of(
    st.builds(lambda m, b: Curve("linear", {"slope": m, "intercept": b}), st.floats(-3, 3), st.floats(-1, 2)),
    st.builds(lambda k, m, c: Curve("polynomial", {"exponent": k, "slope": m, "shift": c}),
              st.sampled_from([0.5, 1.0, 2.0, 3.0, 1.5]), st.floats(-2, 2), st.floats(-0.5, 1.0)),
    st.builds(lambda s, mid: Curve("logistic", {"steepness": s, "midpoint": mid}),
              st.floats(-40, 40).filter(lambda v: abs(v) > 1e-3), st.floats(0, 1)),
    st.builds(lambda s: Curve("logit", {"steepness": s}), st.floats(0.5, 20)),
    st.builds(lambda t, lo, hi: Curve("step", {"threshold": t, "low": lo, "high": hi}),
              st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)),
    st.builds(lambda ys: Curve("piecewise", points=[[0.0, ys[0]], [0.3, ys[1]], [0.7, ys[2]], [1.0, ys[3]]]),
              st.lists(st.floats(-0.5, 1.5), min_size=4, max_size=4)),
)
preferences = st.builds(
    lambda name, lo, span, curve, w: Preference(name, lo, lo + span, curve, w),
    st.sampled_from(FACTS), st.floats(-3, 3), st.one_of(st.floats(0.01, 6), st.just(0.0), st.just(-1.0)), curves,
    st.one_of(st.floats(0.05, 5), st.just(1.0), st.just(0.0)))
gates = st.builds(Condition, st.sampled_from(FACTS), st.sampled_from(["==", "!=", "<", "<=", ">", ">="]),
                  st.one_of(st.floats(-2, 2), st.integers(-1, 1), st.booleans(), st.just("x"), st.just(2.0 ** 53)))


@st.composite
def selectors(draw):
    n = draw(st.integers(1, 5))
    cands = [Candidate(f"m{i}", tuple(draw(st.lists(gates, max_size=2))), tuple(draw(st.lists(preferences,
                                                                                              max_size=3))))
             for i in range(n)]
    return ModeSelector(cands)


@st.composite
def snapshots(draw):
    facts = {}
    for name in FACTS:
        if draw(st.integers(0, 9)) > 0:
            facts[name] = draw(fact_values)
    return facts


@settings(max_examples=300, deadline=None)
@given(selectors(), st.lists(snapshots(), min_size=1, max_size=6))
def test_batch_and_scalar_scorers_agree_on_eligibility_scores_and_choice(sel, snaps):
    scorer = BatchScorer(sel)
    bbs = [{"d": 0.25} for _ in snaps]
    ok, scores = scorer.score(snaps, bbs)
    for i, facts in enumerate(snaps):
        scalar = sel.score_all(facts, bbs[i])
        for j, cid in enumerate(scorer.ids):
            assert bool(ok[i, j]) == scalar[cid].eligible, (cid, facts)
            if scalar[cid].eligible:
                assert scores[i, j] == scalar[cid].score, (cid, facts, scores[i, j], scalar[cid].score)
        batch = scorer.scores_for(ok[i].tolist(), scores[i].tolist(), facts, bbs[i])
        assert ModeSelector.best(batch) == ModeSelector.best(scalar)
        for current in (None, *scorer.ids):
            a = sel.decide(facts, current, 1.0, bb=bbs[i],
                           scores=scorer.scores_for(ok[i].tolist(), scores[i].tolist(), facts, bbs[i], current))
            b = sel.decide(facts, current, 1.0, bb=bbs[i])
            assert (a.choice, a.switch, a.reason, a.detail) == (b.choice, b.switch, b.reason, b.detail)


def test_curve_arrays_follow_the_scalar_curves():
    xs = [i / 40 for i in range(41)]
    import numpy as np
    for curve in (Curve("linear", {"slope": -1.0, "intercept": 1.0}), Curve("polynomial", {"exponent": 0.5}),
                  Curve("logistic"), Curve("logit"), Curve("step", {"threshold": 0.3}),
                  Curve("piecewise", points=[[0.1, 1.0], [0.5, 0.2], [0.9, 0.4]])):
        got = curve_array(curve, np.array(xs)).tolist()
        assert got == [curve(x) for x in xs], curve.describe()


def test_the_choice_after_a_release_is_the_same_from_the_batch_s_scores():
    """Once a switch's actions are released, a brain given the batch's row (as the host gives it, with the record
    scored when read) makes the scalar path's choice in each of the release's outcomes: an emergency that fires
    now, the waiting mode still eligible, and a reselection when it is not; the records agree."""
    from ai.brain import Brain, BrainState
    from ai.hfsm import Machine, State
    from ai.records import Deferred
    from ai.status import SUCCESS
    from ai.utility import Emergency
    sel = ModeSelector([Candidate("fight", gates=(Condition("armed"),), preferences=(Preference("hp", 0, 1),)),
                        Candidate("flee", preferences=(Preference("danger", 0, 1),)),
                        Candidate("rest", preferences=(Preference("hp", 0, 1),))],
                       emergencies=[Emergency("low_hp", (Condition("hp", "<", 0.2),), "flee")])
    brain = Brain("t", sel, Machine([State("fight"), State("flee"), State("rest")]))
    scorer = BatchScorer(sel)

    class Host:                                            # every action already released
        def status(self, aid):
            return (SUCCESS, "")

        def submit(self, kind, target, params):
            return 1

        def cancel(self, aid):
            pass
    cases = [({"armed": True, "hp": 0.1, "danger": 0.3}, "emergency"),
             ({"armed": True, "hp": 0.9, "danger": 0.3}, "release"),
             ({"armed": False, "hp": 0.9, "danger": 0.95}, "reselect")]
    ok, sc = scorer.score([facts for facts, _ in cases])
    for i, (facts, outcome) in enumerate(cases):
        recs = []
        for batched in (False, True):
            st_ = BrainState()
            st_.pending, st_.pending_to, st_.dropped, st_.releasing = True, "fight", "rest", [7]
            kw = {}
            if batched:
                kw = {"scores": scorer.scores_for(ok[i].tolist(), sc[i].tolist(), facts, None),
                      "record_scores": Deferred(lambda f=facts: list(sel.score_all(f).values()))}
            rec = brain.think(st_, facts, 1.0, Host(), **kw)
            if isinstance(rec.candidates, Deferred):
                rec.candidates = rec.candidates()
            recs.append((rec.choice, rec.reason, rec.detail, rec.emergency, rec.candidates, st_.mode))
        assert recs[0] == recs[1], outcome
        assert {"emergency": "flee", "release": "fight", "reselect": "flee"}[outcome] == recs[0][0]


@pytest.mark.parametrize("case", [
    # an input only on the blackboard: the scalar's fast loop reads the snapshot, its other way divides
    ([Candidate("a", preferences=(Preference("x", 0.0, 10.0),))], {}, {"x": 3.0}),
    # two huge inputs overflow the scalar's check sum: its other way again
    ([Candidate("a", preferences=(Preference("big", 0, 1, weight=1e-300), Preference("big2", 0, 1, weight=1e-300),
                                  Preference("x", 0, 10)))], {"big": 1.7e308, "big2": 1.7e308, "x": 3.0}, None),
    # 0 * inf normalised: NaN, which a piecewise or step curve would map to a number
    ([Candidate("a", preferences=(Preference("x", 0.0, 5e-324, Curve("piecewise", points=[[0, 0.2], [1, 0.9]])),))],
     {"x": 0.0}, None),
    ([Candidate("a", preferences=(Preference("x", -1e308, 1e308, Curve("step", {"threshold": 0.5})),))],
     {"x": 1e308}, None),
    # a range bound or a gate value that is an int a float cannot hold
    ([Candidate("a", preferences=(Preference("x", -(2 ** 53 + 1), 1),))], {"x": 1}, None),
    ([Candidate("a", gates=(Condition("x", ">=", 2 ** 53 + 1),))], {"x": 2 ** 53}, None),
    ([Candidate("a", gates=(Condition("x", "==", 2 ** 53 + 1),))], {"x": 2.0 ** 53}, None),
    ([Candidate("a", gates=(Condition("x", "<", 10 ** 400),))], {"x": 1.0}, None),
])
def test_cells_the_scalar_scores_its_other_way_are_left_to_it(case):
    """The scalar scorer's fast loop hands some cells to its other way (``_score_checked``), which normalises by a
    division; the batch hands the same cells to the scalar scorer, so they agree to the last bit there too (a
    review's random search found each of these)."""
    cands, facts, bb = case
    sel = ModeSelector(cands)
    ok, sc = BatchScorer(sel).score([facts], [bb])
    want = sel.score_all(facts, bb)["a"]
    assert bool(ok[0, 0]) == want.eligible
    assert (not want.eligible) or sc[0, 0] == want.score, (sc[0, 0], want.score)


def test_eps_of_zero_raises_only_where_the_scalar_does():
    """A selector with ``eps = 0`` (a library user's): log(0) is only taken for a value at 0, on both paths."""
    sel = ModeSelector([Candidate("a", preferences=(Preference("x", 0.0, 1.0),)), Candidate("b")], eps=0.0)
    ok, sc = BatchScorer(sel).score([{"x": 0.5}])
    assert sc[0].tolist() == [sel.score_all({"x": 0.5})["a"].score, 1.0]
    with pytest.raises(ValueError):
        sel.score_all({"x": 0.0})
    with pytest.raises(ValueError):
        BatchScorer(sel).score([{"x": 0.0}])


def test_an_int_a_float_cannot_hold_is_compared_and_scored_as_python_does():
    """A fact that is an int past 2**53 (which a float would round) is left to the scalar comparison and scorer:
    ``2**53 + 1 > 2.0**53`` holds in Python, not between the rounded floats."""
    big = 2 ** 53 + 1
    sel = ModeSelector([Candidate("g", gates=(Condition("n", ">", 2.0 ** 53),)),
                        Candidate("p", preferences=(Preference("n", 0.0, 2.0 ** 54),))])
    scorer = BatchScorer(sel)
    for facts in ({"n": big}, {"n": -big}, {"n": 3}):
        ok, sc = scorer.score([facts, {"n": 1}])
        scalar = sel.score_all(facts)
        assert bool(ok[0, 0]) == scalar["g"].eligible and bool(ok[0, 1]) == scalar["p"].eligible, facts
        assert sc[0, 1] == scalar["p"].score, facts
    assert sel.score_all({"n": big})["g"].eligible


def test_a_near_tie_breaks_alike_on_both_scorers_and_in_a_release():
    """Two candidates whose scalar scores are equal to the last bit (a's weighted mean of two preferences lands on
    b's one): the batch scores them equal too, so ``best`` (ties to the smaller id), ``decide`` and a brain's
    choice once a switch's actions are released pick the same. numpy's own log and exp on AVX-512 gave a the last
    bit less here, and b won on the batch path."""
    import numpy as np

    from ai.brain import Brain, BrainState
    from ai.hfsm import Machine, State
    from ai.status import SUCCESS
    sel = ModeSelector([Candidate("a", preferences=(Preference("x", 0, 1), Preference("y", 0, 1))),
                        Candidate("b", preferences=(Preference("z", 0, 1),)),
                        Candidate("c", gates=(Condition("ok"),))])
    facts = {"x": 0.5989050674111429, "y": 0.4861751453151349, "z": 0.5396042607120362, "ok": False}
    scalar = sel.score_all(facts)
    assert scalar["a"].score == scalar["b"].score           # the tie this test is about
    scorer = BatchScorer(sel)
    ok, sc = scorer.score([facts])
    assert sc[0, 0] == sc[0, 1] == scalar["a"].score
    batch = scorer.scores_for(ok[0].tolist(), sc[0].tolist(), facts, None)
    assert ModeSelector.best(batch) == ModeSelector.best(scalar) == "a"
    assert sel.decide(facts, scores=batch).choice == sel.decide(facts).choice == "a"

    class Host:                                            # every action already released
        def status(self, aid):
            return (SUCCESS, "")
    brain = Brain("t", sel, Machine([State("a"), State("b"), State("c")]))
    picks = []
    for scores in (None, batch):
        st_ = BrainState()
        st_.pending, st_.pending_to = True, "c"              # c became ineligible while the old mode was released
        picks.append(brain.think(st_, facts, 1.0, Host(), scores=scores).choice)
    assert picks == ["a", "a"]
    assert np.isfinite(sc[0, :2]).all()


@pytest.mark.parametrize("sid, ticks", [("skirmish", 240), ("army_300", 150)])
def test_a_match_decides_alike_on_the_batch_and_the_per_npc_path(sid, ticks):
    """Every NPC decision record (choice, reason, every candidate's gates, preferences and score) and the sync
    hash are the same whichever way the brains perceive and score. The army has calm NPCs: the batch takes the
    sightings its calm test found, the per-NPC path looks again."""
    from benchmarks.run import army_content
    from content.loader import load_content
    from game.world import World
    content = load_content()
    if sid.startswith("army"):
        content, sid = army_content(content, int(sid[5:]))
    out = []
    for batch in (False, True):
        world = World(content, sid, 3)
        world.batch_brains = batch
        world.decisions.collect = True              # every decision of the match, not only each NPC's last two
        try:
            world.run(ticks)
            recs = [r.to_wire() for r in world.decisions.take() if r.kind == "npc"]
            out.append((world.summary()["sync_hash"], recs))
        finally:
            world.close()
    assert out[0][1] and any(c["prefs"] for r in out[0][1] for c in r["candidates"])
    assert out[0] == out[1]


coords = st.floats(0, 60, allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None)
@given(points=st.lists(st.tuples(coords, coords), max_size=40), queries=st.lists(st.tuples(coords, coords), max_size=12),
       size=st.floats(0.5, 20), snap=st.booleans())
def test_the_cell_index_pairs_every_query_with_every_point_within_its_cell_size_once(points, queries, size, snap):
    """perception's CellIndex: no point within ``size`` of a query is missed, none is paired twice, and the pairs
    come query by query (which facts_batch's exact re-measuring relies on)."""
    import numpy as np

    from systems.perception import CellIndex
    if snap:          # points on tile corners and cell edges, where floor() and ties matter
        points = [(float(round(x)), float(round(y))) for x, y in points]
        queries = [(float(round(x)), float(round(y))) for x, y in queries]
    px = np.array([p[0] for p in points], dtype=np.float64)
    py = np.array([p[1] for p in points], dtype=np.float64)
    qx = np.array([q[0] for q in queries], dtype=np.float64)
    qy = np.array([q[1] for q in queries], dtype=np.float64)
    if not len(px):
        return
    q, j = CellIndex(px, py, size).pairs(qx, qy)
    got = list(zip(q.tolist(), j.tolist()))
    assert len(got) == len(set(got))
    assert q.tolist() == sorted(q.tolist())
    for a, (x, y) in enumerate(queries):
        for b, (u, v) in enumerate(points):
            if (u - x) ** 2 + (v - y) ** 2 <= size * size:
                assert (a, b) in got, (a, b)


@pytest.mark.parametrize("jit", [False, True], ids=["numpy", "compiled"])
def test_batched_cover_and_sight_equal_the_per_npc_facts_where_cover_tiles_tie(monkeypatch, jit):
    """facts_batch's cover search (cover tiles in reach from a cell index, best_cover's rule on them) and its line
    of sight checks (one compiled loop where Numba runs) give each NPC the per-NPC path's facts, also where several
    cover tiles score within a millionth: every unit put on a spot (tile centre or corner) of the army map (open
    doors, so the batch path decides cover) that is equally far from two or more cover tiles."""
    import esper
    import numpy as np

    import systems.perception as perception
    from benchmarks.run import army_content
    from components import Controller, Position
    from content.loader import load_content
    from game.world import World
    from systems import perception_jit
    if jit and not perception_jit.available():
        pytest.skip("numba is not installed or RTS_NO_JIT is set: the numpy path only")
    monkeypatch.setattr(perception_jit, "available", lambda: jit)
    ties = []
    real = perception.turned
    monkeypatch.setattr(perception, "turned", lambda *a: ties.append(a) or real(*a))
    content, sid = army_content(load_content(), 120)
    world = World(content, sid, 2)
    try:
        world.run(2)
        world.activate()
        nav = world.nav
        cx, cy = world.perception.cover[:, 0] + 0.5, world.perception.cover[:, 1] + 0.5
        spots = []
        for t, open_ in enumerate(nav.walkable):
            if open_ and not nav.cover[t]:
                for x, y in ((t % nav.width + 0.5, t // nav.width + 0.5), (t % nav.width, t // nav.width)):
                    d = np.hypot(cx - x, cy - y)
                    d = d[d <= perception.COVER_RADIUS]
                    if len(d) > 1 and np.sum(d <= d.min() + 1e-6) > 1:
                        spots.append((float(x), float(y)))
        rng = np.random.default_rng(4)
        npcs = []
        for eid, (pos, ctl) in sorted(esper.get_components(Position, Controller)):
            pos.x, pos.y = spots[int(rng.integers(len(spots)))]
            if ctl.ai == "brain":
                npcs.append(eid)
        world.tick += 1                    # the per-tick indexes are built afresh from the moved units
        keys = ("cover_known", "cover_x", "cover_y", "cover_distance", "cover_behind_door", "enemy_visible",
                "enemy_distance", "enemy_x", "enemy_y", "enemy_in_range", "enemies_visible", "allies_near")
        batched = world.perception.facts_batch(npcs, world.tick * world.dt)
        before = len(ties)          # (the per-NPC rule's tie-breaks: the compiled batch breaks its own inside)
        one_by_one = [world.perception.facts(eid, world.tick * world.dt) for eid in npcs]
        tied = len(ties) - before
        assert tied > 20 and len(npcs) > 50
        assert sum(f["cover_known"] for f in batched) > 50 and sum(f["enemy_visible"] for f in batched) > 10
        for a, b in zip(batched, one_by_one):
            assert {k: a.get(k) for k in keys} == {k: b.get(k) for k in keys}
        # who stands on each cover tile: how many, and the last of them in team then id order
        for k, (eid, (pos, _ctl)) in enumerate(sorted(esper.get_components(Position, Controller))[:40]):
            x, y = world.perception.cover_tiles[k % 7 * 3]
            pos.x, pos.y = x + (k % 5) / 5, y + 0.5
        world.tick += 1
        _labels, occupants, _holders = world.perception._cover_state()
        tiles = {t: i for i, t in enumerate(world.perception.cover_tiles)}
        want = [[0, 0] for _ in tiles]
        for ids, xs, ys in world.team_index().values():
            for e, x, y in zip(ids.tolist(), xs.tolist(), ys.tolist()):
                if (int(x), int(y)) in tiles:
                    want[tiles[int(x), int(y)]] = [want[tiles[int(x), int(y)]][0] + 1, e]
        assert occupants.tolist() == want and max(n for n, _e in want) > 1
    finally:
        world.close()


def _columns_one_by_one(scorer, facts_list, bbs):
    """``BatchScorer.columns`` without its all-numbers shortcut: every value looked at on its own (an int a float
    cannot hold exactly, or a value read from the blackboard, is not a number here: the scalar scorer reads it)."""
    from ai.batch import _MISSING, _NUMERIC
    import numpy as np
    out = {}
    for name in scorer.names:
        raw = [facts.get(name, _MISSING) for facts in facts_list]
        own = [v is not _MISSING for v in raw]
        if bbs is not None:
            raw = [bbs[i].get(name, _MISSING) if v is _MISSING and bbs[i] is not None else v for i, v in enumerate(raw)]
        numeric = [type(v) in _NUMERIC and (type(v) is not int or abs(v) <= 2 ** 53) and mine
                   for v, mine in zip(raw, own)]
        vals = np.array([v if ok else 0.0 for v, ok in zip(raw, numeric)], dtype=np.float64)
        out[name] = (vals.tolist(), numeric, [v is not _MISSING for v in raw],
                     [None if v is _MISSING else v for v in raw])
    return out


@settings(max_examples=300, deadline=None)
@given(selectors(), st.lists(snapshots(), min_size=1, max_size=6),
       st.one_of(st.none(), st.lists(st.one_of(st.none(), snapshots()), min_size=6, max_size=6)), st.booleans())
def test_the_columns_equal_reading_each_value_on_its_own(sel, snaps, bbs, full):
    """All-number columns (every NPC has the fact as a float, int or bool) take a shortcut; mixed ones, missing
    facts (read from the blackboard), huge ints, NaN and strings do not: the columns are the same either way."""
    import numpy as np
    if full:                                   # every fact present as a plain number in every snapshot
        snaps = [{name: float(i + k) if k % 2 else (i + k) % 3 for k, name in enumerate(FACTS)}
                 for i in range(len(snaps))]
    bbs = None if bbs is None else bbs[:len(snaps)]
    scorer = BatchScorer(sel)
    got = scorer.columns(snaps, bbs)
    want = _columns_one_by_one(scorer, snaps, bbs)
    assert set(got) == set(want)
    for name, (vals, numeric, present, raw) in got.items():
        w_vals, w_numeric, w_present, w_raw = want[name]
        assert np.array_equal(vals, np.array(w_vals), equal_nan=True), name
        assert numeric.tolist() == w_numeric and present.tolist() == w_present
        assert [type(v) for v in raw] == [type(v) for v in w_raw]
        assert all(a is b or a == b or (a != a and b != b) for a, b in zip(raw, w_raw))


def test_a_gate_comparison_that_raises_value_error_is_false_on_every_path():
    """A fact whose comparison raises ``ValueError`` (a library user's object) fails its gate, as an incomparable
    value does: for the scalar scorer, the batch and ``Condition.test`` alike (the scalar once raised)."""
    class Odd:
        def __gt__(self, other):
            raise ValueError("cannot order this")
    sel = ModeSelector([Candidate("a", gates=(Condition("x", ">", 1),)), Candidate("b")])
    want = sel.score_all({"x": Odd()})
    assert want["a"].eligible is False and want["b"].eligible is True
    ok, sc = BatchScorer(sel).score([{"x": Odd()}, {"x": 2}])
    assert ok.tolist() == [[False, True], [True, True]]
    assert Condition("x", ">", 1).test(Odd()) is False
