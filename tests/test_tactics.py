"""Regions and tactical search: k-means on paths, UCB1, the abstract model, UCT and Expected Outcome."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ai import regions, tactics
from ai.tactics import ATTACK, HOLD, MOVE, GroupSpec, Model, new_state
from benchmarks.map_cut import dfs_maze
from content.tiles import LEGEND


def grid(rows):
    """The plain arrays the region cut takes, read from the tile legend as the commander reads a map."""
    walk = [LEGEND[ch].passable for row in rows for ch in row]
    doors = frozenset(y * len(rows[0]) + x for y, row in enumerate(rows) for x, ch in enumerate(row)
                      if LEGEND[ch].door is not None)
    return walk, len(rows[0]), len(rows), doors


def connected(cells, width):
    cells = set(cells)
    start = next(iter(cells))
    seen = {start}
    stack = [start]
    while stack:
        c = stack.pop()
        x = c % width
        for n, ok in ((c - 1, x > 0), (c + 1, x < width - 1), (c - width, True), (c + width, True)):
            if ok and n in cells and n not in seen:
                seen.add(n)
                stack.append(n)
    return seen == cells


ROOMS = [
    "##################",
    "#.......#........#",
    "#.......#........#",
    "#.......+........#",
    "#.......#........#",
    "#########........#",
    "#....#...........#",
    "#....#...........#",
    "##################",
]


def check_regions(rows, k, seed=3):
    walk, w, h, doors = grid(rows)
    r = regions.kmeans(walk, w, h, k, seed, doors)
    walkable = [i for i, ok in enumerate(walk) if ok]
    assert all(r.labels[i] >= 0 for i in walkable)                   # every walkable tile is covered
    assert all(r.labels[i] == -1 for i, ok in enumerate(walk) if not ok)
    for lab in range(r.k):
        cells = [i for i, v in enumerate(r.labels) if v == lab]
        assert cells and connected(cells, w), f"region {lab} is split"  # never split by a wall
        cx, cy = r.centres[lab]
        assert r.labels[cy * w + cx] == lab
    return r, w


def test_regions_cover_every_tile_are_connected_and_stable():
    r, w = check_regions(ROOMS, 5)
    assert r.k == 5 and r == regions.kmeans(*grid(ROOMS)[:3], 5, 3, grid(ROOMS)[3])
    # the room behind the door is a region of its own, joined to its neighbour through the door
    door = 3 * w + 8
    assert any(door in cells for cells in r.edges.values())
    assert r.neighbours(r.labels[door], passable=lambda cells: not cells) != r.neighbours(r.labels[door])


def test_disconnected_areas_each_get_a_region():
    rows = ["##########", "#...#....#", "#...#....#", "##########"]
    r, w = check_regions(rows, 3)
    left = {r.labels[1 * w + 1]}
    right = {r.labels[1 * w + 6]}
    assert left.isdisjoint(right) and all(not set(pair) <= left | right or not (set(pair) & left and set(pair) & right)
                                          for pair in r.edges)
    with pytest.raises(ValueError, match="below the 2 separate walkable areas"):
        regions.kmeans(*grid(rows)[:3], 1, 0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 16), st.integers(2, 6))
def test_random_maps_give_connected_covering_regions(seed, k):
    rng = np.random.default_rng(seed)
    w, h = 14, 9
    rows = ["#" * w] + ["#" + "".join("#" if rng.random() < 0.22 else "." for _ in range(w - 2)) + "#"
                        for _ in range(h - 2)] + ["#" * w]
    walk, _, _, doors = grid(rows)
    comps = len(regions._components(walk, w, h))
    if comps == 0 or k < comps:
        return
    check_regions(rows, k, seed)


def _cut_both_ways(monkeypatch, walk, w, h, k, seed, doors):
    """The cut as it comes, with the pruned search forced (to the end) and with the bit-parallel medoid forced."""
    fast = regions.kmeans(walk, w, h, k, seed, doors)
    monkeypatch.setattr(regions, "_medoid_of_tree", lambda adj: None)   # trees too take the forced way
    monkeypatch.setattr(regions, "SEARCH_ECCENTRICITY", -1)
    slow = regions.kmeans(walk, w, h, k, seed, doors)
    monkeypatch.setattr(regions, "SEARCH_ECCENTRICITY", 10 ** 9)
    monkeypatch.setattr(regions, "SEARCH_SHARE", 0)                     # no search: straight to the bits
    bits = regions.kmeans(walk, w, h, k, seed, doors)
    monkeypatch.undo()
    return fast, slow, bits


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 16), st.integers(1, 9), st.floats(0.0, 0.5))
def test_both_medoid_ways_give_the_same_cut(seed, k, blocked):
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(1, 16)), int(rng.integers(1, 12))
    walk = [bool(rng.random() >= blocked) for _ in range(w * h)]
    if not any(walk) or k < len(regions._components(walk, w, h)):
        return
    with pytest.MonkeyPatch.context() as mp:
        fast, slow, bits = _cut_both_ways(mp, walk, w, h, k, seed, frozenset())
    assert fast == slow == bits


def test_shipped_maps_are_cut_as_the_per_cell_search_cuts_them(monkeypatch):
    """The faster medoids change no region of a shipped map (the commander's input; pinned hashes rest on it): the
    cut as it comes, with the pruned search forced and with the bit-parallel way forced (each, its own way, as
    the cut was before the pruned search and the tree pass) are one."""
    from content.loader import load_content
    content = load_content()
    for mid in sorted(content.maps):
        tmap = content.maps[mid]
        walk, w, h, doors = grid(tmap.rows)
        fast, slow, bits = _cut_both_ways(monkeypatch, walk, w, h, 20, 1, doors)
        assert fast == slow == bits, mid


def _largest_area_adj(walk, w, h):
    comp = max(regions._components(walk, w, h), key=len)
    comp.sort()
    index = {c: i for i, c in enumerate(comp)}
    adj = [[index[m] for m, ok in ((c - 1, c % w > 0), (c + 1, c % w < w - 1), (c - w, True), (c + w, True))
            if ok and m in index] for c in comp]
    return adj, (np.array([c % w for c in comp]), np.array([c // w for c in comp]))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 16), st.floats(0.0, 0.55), st.booleans())
def test_the_pruned_search_finds_the_per_cell_searchs_medoid(seed, blocked, winding):
    """Exactly the cell the per-cell search finds (ties included) on random areas and on winding corridors with
    random dead ends and loops (where its bound is exact or nearly)."""
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(2, 24)), int(rng.integers(2, 16))
    if winding:                                   # lanes on even rows, a turn at alternating ends, random extras
        walk = [y % 2 == 0 or (x == (w - 1 if y % 4 == 1 else 0)) or rng.random() < blocked / 4
                for y in range(h) for x in range(w)]
    else:
        walk = [bool(rng.random() >= blocked) for _ in range(w * h)]
    if not any(walk):
        return
    adj, xy = _largest_area_adj(walk, w, h)
    assert regions._medoid_by_pruned_search(adj) == regions._medoid_by_search(adj) \
        == regions._medoid_by_pruned_search(adj, xy=xy)
    if sum(map(len, adj)) == 2 * (len(adj) - 1):
        assert regions._medoid_of_tree(adj) == regions._medoid_by_search(adj)
    else:
        assert regions._medoid_of_tree(adj) is None


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 16))
def test_a_tree_medoid_is_the_per_cell_searchs(seed):
    """Random mazes (depth-first, one-tile passages: trees with branches, where the pruned search's bounds are
    loose) get the cell the per-cell search finds."""
    rng = np.random.default_rng(seed)
    cw, ch = int(rng.integers(1, 12)), int(rng.integers(1, 9))
    w, h = 2 * cw - 1, 2 * ch - 1
    walk = [False] * (w * h)
    for x, y in dfs_maze(cw, ch, lambda opts: opts[int(rng.integers(len(opts)))]):
        walk[y * w + x] = True
    adj, _xy = _largest_area_adj(walk, w, h)
    assert len(adj) == sum(walk)
    assert regions._medoid_of_tree(adj) == regions._medoid_by_search(adj)


def test_a_winding_corridor_takes_the_search_and_open_ground_the_bits():
    adj = [[j for j in (i - 1, i + 1) if 0 <= j < 1200] for i in range(1200)]
    assert regions._eccentricity(adj, 0) > regions.SEARCH_ECCENTRICITY
    assert regions._medoid_by_search(adj) == 599 == regions._medoid_bits(adj)   # the middle (first of the two)
    assert regions._medoid_by_pruned_search(adj) == 599


def test_ucb1_finds_the_best_arm_of_a_known_bandit():
    means = [0.2, 0.5, 0.8, 0.45]
    counts = tactics.ucb1(lambda a, rng: float(rng.random() < means[a]), 4, 3000, np.random.default_rng(7))
    assert counts.index(max(counts)) == 2 and counts[2] > 0.7 * sum(counts)


LINE = Model(adjacency=((1,), (0, 2), (1,)), step_seconds=6.0)


def test_simulate_attrition_moves_and_evaluation():
    specs = [GroupSpec("a", 0, 100.0, 10.0), GroupSpec("e", 1, 100.0, 10.0)]
    s = new_state([0, 0], [100.0, 100.0])
    tactics.assign(s, 0, (ATTACK, 0))
    tactics.assign(s, 1, (ATTACK, 0))
    tactics.simulate(LINE, specs, s)
    assert s.hp[0] == pytest.approx(s.hp[1]) and 0 < s.hp[0] < 100
    assert tactics.evaluate(LINE, specs, s, 0) == pytest.approx(0.5)
    far = new_state([0, 2], [100.0, 100.0])
    tactics.assign(far, 0, (MOVE, 1))
    tactics.simulate(LINE, specs, far)
    assert far.region == [1, 2] and far.hp == [100.0, 100.0]
    cover = new_state([0, 0], [100.0, 100.0])
    tactics.assign(cover, 0, (HOLD, 0))
    tactics.assign(cover, 1, (ATTACK, 0))
    tactics.simulate(LINE, specs, cover)
    assert cover.hp[0] > cover.hp[1]                   # holding: fires at 0.9, takes 0.8


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 20))
def test_batched_simulation_matches_the_plain_python_one(seed):
    rng = np.random.default_rng(seed)
    adjacency = ((1, 2), (0, 3), (0, 3), (1, 2))
    model = Model(adjacency, evaluation=["strength", "hp", "count", "ltd2"][seed % 4])
    specs = [GroupSpec(f"g{i}", i % 2, 100.0 + 10 * i, 5.0 + i, 25.0) for i in range(6)]
    s = new_state([int(x) for x in rng.integers(0, 4, 6)], [float(x) for x in rng.uniform(0, 150, 6)])
    for g in range(6):
        opts = tactics.legal_actions(model, specs, s, g)
        tactics.assign(s, g, opts[int(rng.integers(len(opts)))])
    batch = tactics.Batch(model, specs, s, 3)
    tactics.simulate(model, specs, s)
    batch.simulate()
    for b in range(3):
        assert batch.region[b].tolist() == s.region
        assert np.allclose(batch.hp[b], s.hp)
        assert batch.evaluate(0)[b] == pytest.approx(tactics.evaluate(model, specs, s, 0))


def ltd2_by_hand(specs, hp, team):
    """SparCraft's LTD2 written out unit by unit: each group's live units share its hit points evenly."""
    total = 0.0
    for spec, h in zip(specs, hp):
        units = int(np.ceil(h / spec.unit_hp - 1e-9)) if h > 0 else 0
        per_unit_dps = spec.dps / (spec.max_hp / spec.unit_hp)
        value = sum(np.sqrt(h / units) * per_unit_dps for _ in range(units))
        total += value if spec.team == team else -value
    return total


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 400.0), min_size=8, max_size=8))
def test_ltd2_orders_states_as_own_minus_enemy_ltd2(hps):
    """Any two states compare under the ltd2 evaluation as their LTD2 differences (own minus enemy) do."""
    model = Model(((),), evaluation="ltd2")
    specs = [GroupSpec("b0", 0, 400.0, 20.0, 100.0), GroupSpec("b1", 0, 200.0, 30.0, 50.0),
             GroupSpec("r0", 1, 400.0, 20.0, 100.0), GroupSpec("r1", 1, 300.0, 12.0, 100.0)]
    a = new_state([0] * 4, [min(h, spec.max_hp) for h, spec in zip(hps[:4], specs)])
    b = new_state([0] * 4, [min(h, spec.max_hp) for h, spec in zip(hps[4:], specs)])
    da, db = ltd2_by_hand(specs, a.hp, 0), ltd2_by_hand(specs, b.hp, 0)
    va, vb = tactics.evaluate(model, specs, a, 0), tactics.evaluate(model, specs, b, 0)
    assert 0.0 <= va <= 1.0 and 0.0 <= vb <= 1.0
    if abs(da - db) > 1e-6:
        assert (va > vb) == (da > db), (da, db, va, vb)
    assert tactics.evaluate(model, specs, a, 1) == pytest.approx(1.0 - va)      # zero-sum
    batch = tactics.Batch(model, specs, [a, b], 1)
    assert np.allclose(batch.evaluate(0), [va, vb])


def test_ltd2_prefers_spread_damage_less_and_differs_from_the_force_ratio():
    """LTD2 values a unit by sqrt(hp) (a whole unit lost costs more than the same damage spread thin), and as a
    difference it ranks 120 against 90 above 30 against 10, which a force ratio ranks the other way round."""
    model = Model(((),), evaluation="ltd2")
    spec = GroupSpec("r", 1, 400.0, 20.0, 100.0)
    assert tactics.ltd2_value(spec, 300.0) == pytest.approx(3 * np.sqrt(100.0) * 5.0)   # 3 whole units: 150
    assert tactics.ltd2_value(spec, 400.0) == pytest.approx(4 * np.sqrt(100.0) * 5.0)
    ratio = Model(((),), evaluation="strength")
    big = [GroupSpec("b", 0, 1200.0, 12.0, 100.0), GroupSpec("r", 1, 1200.0, 12.0, 100.0)]
    near_even = new_state([0, 0], [1200.0, 900.0])      # LTD2 120 - 90
    lopsided = new_state([0, 0], [300.0, 100.0])        # LTD2 30 - 10
    assert tactics.evaluate(ratio, big, lopsided, 0) > tactics.evaluate(ratio, big, near_even, 0)
    assert tactics.evaluate(model, big, near_even, 0) > tactics.evaluate(model, big, lopsided, 0)


def pincer():
    """Two of our groups either side of an entrenched enemy: only attacking together wins."""
    specs = [GroupSpec("west", 0, 100.0, 10.0), GroupSpec("east", 0, 100.0, 10.0),
             GroupSpec("fort", 1, 160.0, 16.0, mobile=False)]
    return specs, new_state([0, 2, 1], [100.0, 100.0, 160.0])


def test_uct_finds_the_winning_move_in_a_hand_built_position():
    specs, s = pincer()
    d = tactics.uct(LINE, specs, s, 0, playouts=4000, batch=8, horizon=3, policy="scripted",
                    rng=np.random.default_rng(1))
    assert d.actions == {0: (MOVE, 1), 1: (MOVE, 1)}, d.stats
    assert d.playouts == 4000 and d.iterations == 500
    # and it is right: together they take the fort, one alone is lost
    for plan, fort_falls, ours_lost in (({0: (MOVE, 1), 1: (MOVE, 1)}, True, 0),
                                        ({0: (MOVE, 1), 1: (HOLD, 2)}, False, 1)):
        t = s.copy()
        for g, a in plan.items():
            tactics.assign(t, g, a)
        tactics.assign(t, 2, (ATTACK, 1))
        tactics.simulate(LINE, specs, t)
        for _ in range(3):                                 # then everyone fights where they stand
            for g in range(3):
                tactics.assign(t, g, (ATTACK, t.region[g]))
            tactics.simulate(LINE, specs, t)
        assert (t.hp[2] == 0) == fort_falls and sum(h == 0 for h in t.hp[:2]) == ours_lost


def test_expected_outcome_finds_it_too_and_scripted_attacks_nearest():
    specs, s = pincer()
    d = tactics.expected_outcome(LINE, specs, s, 0, playouts=2000, horizon=3, policy="scripted",
                                 rng=np.random.default_rng(1))
    assert d.actions == {0: (MOVE, 1), 1: (MOVE, 1)}
    assert tactics.scripted(LINE, specs, s, 0).actions == {0: (MOVE, 1), 1: (MOVE, 1)}


def test_same_iterations_and_seed_give_the_same_decision():
    specs = [GroupSpec(f"b{i}", 0, 120.0, 9.0) for i in range(4)] + [GroupSpec(f"r{i}", 1, 120.0, 9.0) for i in range(4)]
    model = Model(tuple(tuple(n for n in (i - 1, i + 1) if 0 <= n < 20) for i in range(20)))
    s = new_state([0, 3, 6, 9, 19, 16, 13, 10], [120.0] * 8)
    runs = [tactics.uct(model, specs, s, 0, playouts=800, rng=np.random.default_rng(42)) for _ in range(3)]
    assert all(r.actions == runs[0].actions and r.stats == runs[0].stats for r in runs)
    other = tactics.uct(model, specs, s, 0, playouts=800, rng=np.random.default_rng(43))
    assert other.playouts == 800


def test_time_budget_uses_the_callers_clock():
    specs, s = pincer()
    ticks = iter(range(1000))
    d = tactics.uct(LINE, specs, s, 0, playouts=10 ** 6, leaves=8, time_budget=5, clock=lambda: next(ticks))
    assert 0 < d.iterations <= 5 * 8 and d.playouts < 10 ** 6     # the clock is read once per gathered batch


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 20), st.sampled_from([2, 4, 6]))
def test_a_point_symmetric_map_gets_a_point_symmetric_cut(seed, k):
    """Fair mirrors: the cut of a map that is its own image under a half turn is its own image too (region r's image
    is r + k/2), every region is connected, and the tie order the searches use is kept by the half turn."""
    rng = np.random.default_rng(seed)
    w, h = 10, 6
    n = w * h
    walk = [True] * n
    for i in range(n // 2):                      # random walls, mirrored
        if rng.random() < 0.15:
            walk[i] = walk[n - 1 - i] = False
    assert regions.is_point_symmetric(walk)
    try:
        cut = regions.kmeans_mirrored(walk, w, h, k, seed=1)
    except ValueError:
        return                                   # the half has more separate areas than k / 2: plain cut then
    assert cut.half == k // 2
    for i in range(n):
        if walk[i]:
            assert cut.labels[n - 1 - i] == (cut.labels[i] + cut.half) % cut.k
    for lab in range(cut.k):
        cells = [i for i, v in enumerate(cut.labels) if v == lab]
        assert cells and connected(cells, w)
    rank = cut.tie_rank()
    assert sorted(rank) == list(range(cut.k))
    turned = cut.tie_rank(flip=True)             # the other side's order: the image of this one, region for region
    assert all(turned[(r + cut.half) % cut.k] == rank[r] for r in range(cut.k))
    model = Model(tuple(tuple(a) for a in cut.adjacency()), rank=rank)
    for r in range(cut.k):                       # a region's neighbours in tie order: the image's, imaged
        image = [(x + cut.half) % cut.k for x in model.adjacency[r]]
        assert [rank[x] // 2 for x in image] == [rank[x] // 2 for x in model.adjacency[(r + cut.half) % cut.k]]
    assert not regions.is_point_symmetric([True, True, False, False])


def test_the_tie_order_lists_neighbours_and_routes():
    model = Model(((1, 2), (0, 3), (0, 3), (1, 2)), rank=(0, 3, 1, 2))     # a ring 0-1-3-2-0; region 2 before 1
    assert model.adjacency[0] == (2, 1) and model.nexthop[0, 3] == 2
    assert Model(((1, 2), (0, 3), (0, 3), (1, 2))).nexthop[0, 3] == 1      # ascending by default


def test_expected_outcome_samples_hidden_groups_per_playout():
    """Determinization in Expected Outcome: each playout starts from its own placement of the hidden groups."""
    specs = [GroupSpec("b", 0, 200.0, 10.0), GroupSpec("r", 1, 150.0, 10.0)]
    model = Model(((1,), (0, 2), (1, 3), (2,)))
    s = new_state([1, 2], [200.0, 150.0])
    plain = tactics.expected_outcome(model, specs, s, 0, playouts=320, policy="scripted", rng=np.random.default_rng(3))
    still = tactics.expected_outcome(model, specs, s, 0, playouts=320, policy="scripted", rng=np.random.default_rng(3),
                                     hidden={1: 0})
    assert still.stats == plain.stats                  # a spread of 0 hops: every sample is the estimate
    spread = [tactics.expected_outcome(model, specs, s, 0, playouts=320, policy="scripted",
                                       rng=np.random.default_rng(3), hidden={1: 2}) for _ in range(2)]
    assert spread[0] == spread[1]                      # seeded
    assert spread[0].stats != plain.stats              # the placements vary, and so do the values
    assert spread[0].playouts == 320


def test_uct_shuffles_a_nodes_options_as_a_permutation_of_their_indexes_would():
    """UCT orders a new node's untried options by shuffling the list in place (``rng.shuffle``), which makes the
    swaps ``rng.permutation`` of its indexes makes, from the same draws: the decisions and the stream after stay
    those of the permutation it replaced (and so every commander's sync hash)."""
    for seed in range(100):
        for n in range(12):
            a, b = np.random.default_rng(seed), np.random.default_rng(seed)
            acts = [(HOLD, k) for k in range(n)]
            by_index = [acts[i] for i in a.permutation(n)]
            shuffled = list(acts)
            b.shuffle(shuffled)
            assert shuffled == by_index and a.random() == b.random()


def test_the_playout_masks_hold_the_rest_of_each_round():
    """``_masks`` (one comparison of each group's place in the order with the starts) against its definition:
    row i holds exactly the groups ``order[starts[i]:]``, on random orders that leave groups out."""
    import random

    import numpy as np

    from ai.tactics import _masks
    rng = random.Random(5)
    for _ in range(2000):
        g = rng.randint(1, 24)
        order = rng.sample(range(g), rng.randint(0, g))
        starts = [rng.randint(0, len(order)) for _ in range(rng.randint(0, 9))]
        want = np.zeros((len(starts), g), dtype=bool)
        for i, start in enumerate(starts):
            want[i, order[start:]] = True
        got = _masks(order, g, starts)
        assert got.dtype == bool and got.shape == want.shape and (got == want).all()
