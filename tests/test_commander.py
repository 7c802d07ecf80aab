"""The commander in the game: orders through the ledger, NPCs that follow them, determinism, replays, tournaments."""
import json
import subprocess
import sys

import esper
import pytest

from components import BrainState, Position, Squad, SquadOrder, Team
from game.world import World
from saves.replay import ReplayRecorder, read_replay, verify
from systems.commander import SquadColumns, abstract, map_regions, squad_entities
from tests.conftest import write_mod


def orders_of(world):
    world.activate()
    return {(o.team, o.squad): (o.kind, o.region) for _e, o in sorted(esper.get_component(SquadOrder))}


def test_orders_go_through_the_ledger_and_npcs_read_them(content):
    world = World(content, "skirmish", 3)
    try:
        world.step()
        world.step()
        submitted = [a for a in world.ledger.actions.values() if a.kind == "order"]
        assert submitted and all(a.source == "commander" for a in submitted)
        assert all(a.state == "confirmed" for a in submitted)
        orders = orders_of(world)
        assert all(kind in ("hold", "move", "attack") for kind, _r in orders.values()), orders
        records = world.decisions.records("commander", 0)
        assert records[0].kind == "commander" and records[0].algorithm == "uct"
        assert records[0].playouts == 2000 and records[0].orders
        # an NPC of a squad with an order sees it as facts
        blue_squad = next(k for k in orders if k[0] == 0)
        npc = next(e for e, _b in esper.get_component(BrainState)
                   if esper.component_for_entity(e, Squad).squad == blue_squad[1]
                   and esper.component_for_entity(e, Team).team == 0)
        facts = world.perception.facts(npc, 0.1)
        assert facts["intent_known"] and facts["intent_kind"] == orders[blue_squad][0]
        regs = map_regions(world, 20)
        assert regs.region_of(int(facts["intent_x"]), int(facts["intent_y"])) in (orders[blue_squad][1], -1) or \
            abs(facts["intent_x"] - (regs.centres[orders[blue_squad][1]][0] + 0.5)) <= 2
    finally:
        world.close()


def test_same_seed_gives_the_same_orders_and_squads_follow_them(content):
    runs = []
    for _ in range(2):
        world = World(content, "skirmish", 5)
        history = []
        for _t in range(400):
            world.step()
            if world.tick % 90 == 3:
                history.append(orders_of(world))
        runs.append((history, world.summary()["sync_hash"]))
        # the guards advance: some NPC chose the 'advance' mode to follow an order
        assert any(r.mode == "advance" for r in world.decisions.all("npc"))
        world.close()
    assert runs[0] == runs[1]


def test_abstraction_groups_squads_by_region_and_closed_doors_cut_edges(content):
    world = World(content, "skirmish", 1)
    try:
        regs = map_regions(world, 20)
        adjacency, specs, state, keys = abstract(world, regs)
        assert keys == sorted(keys) and len(keys) == 6                     # three squads a side
        assert all(spec.dps > 0 and spec.max_hp > 0 for spec in specs)
        assert all(0 <= r < regs.k for r in state.region)
        door_edges = [pair for pair, cells in regs.edges.items() if cells]
        assert door_edges
        closed = [pair for pair in door_edges if any(not world.nav.walkable[c] for c in regs.edges[pair])]
        for a, b in closed:                                              # a shut door is no way through
            assert b not in adjacency[a]
        assert squad_entities(world).keys() == set(keys)
    finally:
        world.close()


@pytest.mark.parametrize("profile, message", [
    ('time_budget_ms = 3.0', "time_budget_ms is gone: a commander's search is bounded by 'playouts' only"),
    ('playouts = 100000', "Input should be less than or equal to 10000"),
    ('horizon = 20', "Input should be less than or equal to 6"),
    ('regions = 200', "Input should be less than or equal to 64"),
    ('playouts = 10000\nbatch = 1', "playouts 10000 with batch 1 is 10000 search rounds; at most 1250 (raise batch "
                                    "to at least 8 or lower playouts)"),
    ('algorithm = "portfolio"\nplayouts = 5000', "playouts 5000: the portfolio search runs at most 1000"),
    ('algorithm = "portfolio"\nportfolio = ["hold", "hold"]', "portfolio names a script twice"),
    ('algorithm = "portfolio"\nportfolio = ["charge"]', "Input should be 'attack_nearest', 'attack_weakest'"),
    ('determinize = true', "determinize works with algorithm portfolio or eo, not uct"),
    ('algorithm = "portfolio"\niterations = 50', "Input should be less than or equal to 10"),
])
def test_a_commander_profile_is_bounded_in_playouts_never_wall_clock(tmp_path, profile, message):
    """The work of one decision is bounded by the schema, and never by a clock (so a seed always decides alike)."""
    from content.loader import ContentError, load_content
    mod = write_mod(tmp_path / "mod", {"commanders/uct.toml": f'id = "uct"\n{profile}\n'})
    with pytest.raises(ContentError) as err:
        load_content([mod])
    assert "commanders/uct.toml:" in str(err.value) and message in str(err.value), str(err.value)


def test_a_profile_at_every_maximum_loads(tmp_path):
    from content.loader import load_content
    mod = write_mod(tmp_path / "mod", {"commanders/uct.toml": 'id = "uct"\nplayouts = 10000\nhorizon = 6\n'
                                                              'regions = 64\nbatch = 8\n'})
    assert load_content([mod]).commanders["uct"].playouts == 10000


def rts(*args):
    return subprocess.run([sys.executable, "-m", "game.app.cli", *args], capture_output=True, text=True, timeout=300)


def test_tournament_reports_wins_draws_losses_with_an_interval():
    proc = rts("tournament", "--a", "scripted", "--b", "uct_small", "--games", "2", "--workers", "2", "--json",
               "--no-progress")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["games"] == 2 and out["wins"] + out["draws"] + out["losses"] == 2
    lo, hi = out["win_rate_ci95"]
    assert 0.0 <= lo <= out["win_rate"] <= hi <= 1.0
    assert [g["a_team"] for g in out["results"]] == [0, 1]               # sides alternate
    bad = rts("tournament", "--a", "nope", "--b", "uct", "--games", "1")
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "error: --a/--b: unknown commander profile 'nope' (known: eo, portfolio, portfolio_fog, scripted, uct, uct_easy, uct_hard, uct_ltd2, uct_small; strategy "
        "profiles: ai_balanced, ai_rush, ai_turtle, heavy_rush, macro, scout_rush, worker_rush)"]


def test_scenarios_pit_uct_against_each_other_commander(content):
    expected = {"skirmish": ("uct", "uct"), "uct_vs_scripted": ("uct", "scripted"), "uct_vs_eo": ("uct", "eo"),
                "uct_vs_small": ("uct", "uct_small")}
    for sid, pair in expected.items():
        assert tuple(t.commander for t in content.scenarios[sid].teams) == pair
    assert content.commanders["eo"].playouts == content.commanders["uct"].playouts      # equal playouts


def test_the_portfolio_commander_orders_squads_within_its_playout_budget(content):
    runs = []
    for _ in range(2):
        world = World(content, "skirmish", 4, commanders={0: "portfolio", 1: "scripted"})
        try:
            world.run(200)
            records = world.decisions.records("commander", 0)
            assert records and all(r.algorithm == "portfolio" for r in records)
            assert all(0 < r.playouts <= content.commanders["portfolio"].playouts for r in records)
            assert records[0].orders and all(kind in ("hold", "move", "attack") for _s, kind, _r in records[0].orders)
            runs.append(([(r.orders, r.stats) for r in records], world.summary()["sync_hash"]))
        finally:
            world.close()
    assert runs[0] == runs[1]                                            # deterministic: playouts, never a clock


@pytest.mark.parametrize("profile", ["portfolio_fog", "uct"])
def test_decisions_under_fog_do_not_depend_on_hidden_truth(content, profile):
    """Red's squads are where Blue cannot see them: moving them about changes nothing Blue decides (its state holds
    estimates and, with determinization, samples drawn from the world's seed), while the truth did change."""
    from systems.commander import decide, hidden_groups
    decisions, truths = [], []
    for swap in (False, True):
        world = World(content, "skirmish", 2, commanders={0: profile, 1: "scripted"})
        try:
            world.activate()
            if swap:                     # red's riflemen and scouts trade places (all out of Blue's sight)
                red = {s: [p for _e, (p, t, q) in sorted(esper.get_components(Position, Team, Squad))
                           if t.team == 1 and q.squad == s] for s in (1, 3)}
                for a, b in zip(red[1], red[3]):
                    assert not world.fog.sees(0, a.x, a.y) and not world.fog.sees(0, b.x, b.y)
                    a.x, b.x, a.y, b.y = b.x, a.x, b.y, a.y
            regs = map_regions(world, content.commanders[profile].regions)
            _adj, _specs, fogged, keys = abstract(world, regs, viewer=0)
            assert hidden_groups(world, 0, keys) == [g for g, k in enumerate(keys) if k[0] == 1]
            rec = decide(world, 0, content.commanders[profile])
            decisions.append((fogged, rec.orders, rec.stats, rec.groups, rec.value))
            truths.append(abstract(world, regs)[2])
        finally:
            world.close()
    assert truths[0] != truths[1]                                        # the hidden truth differs...
    assert decisions[0] == decisions[1]                                  # ...and no decision shows it


def _abstract_reference(world, regs, viewer):
    """The squads' groups as one unit at a time in plain Python: members in entity order, known enemy units where
    seen or remembered, unknown squads estimated, a Counter of regions and sums added one member at a time."""
    import collections

    from systems.commander import estimate_unseen, second_half
    world.activate()
    fog = world.fog if viewer is not None and world.fog.enabled else None
    memory = fog.remembered_units(viewer) if fog is not None else {}
    members = collections.defaultdict(list)
    from components import Health, UnitKind, Weapon
    for eid, (team, squad, pos, health, weapon, _k) in sorted(
            esper.get_components(Team, Squad, Position, Health, Weapon, UnitKind)):
        x, y, hp, max_hp = pos.x, pos.y, health.hp, health.max_hp
        if fog is not None and world.enemies(viewer, team.team) and not fog.sees(viewer, x, y):   # (the fog's rule)
            if eid not in memory:
                continue
            x, y, hp, max_hp = memory[eid][2:6]
        members[(team.team, squad.squad)].append((x, y, hp, max_hp, weapon))
    if fog is not None:
        for key, x, y, hp, weapon, count in estimate_unseen(world, viewer, set(members)):
            members[key].extend([(x, y, hp, hp, weapon)] * count)
    out = []
    for key in sorted(members):
        units = members[key]
        votes = collections.Counter(regs.region_of(int(x), int(y)) for x, y, *_ in units)
        rank = regs.tie_rank(second_half(world, key[0], regs))
        region = min(votes.items(), key=lambda kv: (-kv[1], rank[kv[0]] if kv[0] >= 0 else -1, kv[0]))[0]
        if region < 0:
            continue
        hp = max_hp = dps = ranges = 0.0
        for _x, _y, unit_hp, unit_max, w in units:          # one after another (3.12's sum() compensates)
            hp += unit_hp
            max_hp += unit_max
            dps += w.damage * w.accuracy * world.hz / max(1, w.cooldown)
            ranges += w.range
        long_range = ranges / len(units) > 5.0
        out.append((key, region, hp, max_hp, dps * max_hp / max(hp, 1e-9), max_hp / len(units), int(long_range)))
    return out


@pytest.mark.parametrize("sid", ["econ_duel", "skirmish"])
def test_abstract_matches_a_unit_by_unit_reference(content, sid):
    """``abstract`` reads the squads as columns (``SquadColumns``, read once a tick for every team; bincount sums,
    which add in the order listed); its groups are the same floats, bit for bit, as adding each squad's members one
    at a time, for every viewer, with and without fog (the commander's decisions, and so every match's sync hash,
    rest on them)."""
    world = World(content, sid, 2)
    try:
        checked = 0
        for _ in range(6):
            world.run(200)
            if world.over:
                break
            regs = map_regions(world, 12)
            columns = SquadColumns(world)           # read once for every viewer, as the commanders' tick does
            for viewer in (None, 0, 1):
                _adj, specs, state, keys = abstract(world, regs, viewer=viewer, columns=columns)
                assert abstract(world, regs, viewer=viewer)[1] == specs
                got = [(key, state.region[g], state.hp[g], s.max_hp, s.dps, s.unit_hp, s.range_class)
                       for g, (key, s) in enumerate(zip(keys, specs))]
                want = _abstract_reference(world, regs, viewer)
                assert [(k, r, float(h), float(m), d, u, c) for k, r, h, m, d, u, c in want] == got
                checked += len(got)
        assert checked > 20
    finally:
        world.close()


def test_a_commanders_model_is_made_once_per_graph_profile_and_tie_order(content):
    """The tactical model is shared by the decisions that ask for the same region graph, step, evaluation and tie
    order (it is frozen and its tables only read), and equals one made afresh; another tie order is another."""
    from ai import tactics
    from systems import commander
    adjacency = ((1,), (0, 2), (1,))
    a = commander._model(adjacency, 10.0, "strength", (0, 1, 2))
    assert commander._model(adjacency, 10.0, "strength", (0, 1, 2)) is a
    fresh = tactics.Model(adjacency, 10.0, 3, "strength", (0, 1, 2))
    assert a == fresh and a.hops.tolist() == fresh.hops.tolist() and a.nexthop.tolist() == fresh.nexthop.tolist()
    other = commander._model(adjacency, 10.0, "strength", (2, 1, 0))
    assert other is not a and other.tie == (2, 1, 0)
