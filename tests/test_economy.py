"""The economy through the ledger: gather, return, build, train, rally; costs held, paid and refunded; the grid
updated tile by tile; turrets; and how a match ends."""
import esper
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components import Building, Health, Position, ResourceField, Team, UnitKind, Worker
from content.loader import load_content
from game import victory
from game.economy import available, population_cap, population_used, stockpile
from game.ledger import ACCEPTED, CANCELLED, CONFIRMED, FAILED, REJECTED, STARTED
from game.world import World
from tests.conftest import arena_mod

ROWS = [
    "########################",
    "#......................#",
    "#.$$...................#",
    "#......................#",
    "#......................#",
    "#......................#",
    "#......................#",
    "#......................#",
    "#......................#",
    "#...................$$.#",
    "#......................#",
    "########################",
]


def teams(blue_stock=500, red_stock=500, blue_workers=2, red_units="", victory_rule="elimination", extra_blue=""):
    return f"""
victory = "{victory_rule}"

[[teams]]
name = "Blue"
color = [0, 0, 255]
ai = "idle"
stock = {blue_stock}
buildings = [{{ building = "hq", at = [5, 6] }}{extra_blue}]
spawns = [{{ unit = "worker", at = [3, 4], count = {blue_workers} }}]

[[teams]]
name = "Red"
color = [255, 0, 0]
ai = "idle"
stock = {red_stock}
buildings = [{{ building = "hq", at = [18, 6] }}]
{red_units}
"""


@pytest.fixture
def econ(tmp_path):
    worlds = []

    def make(text=None, seed=1, **kw):
        mod = arena_mod(tmp_path / f"mod{len(worlds)}", ROWS, text or teams(**kw))
        world = World(load_content([mod]), "arena", seed)
        worlds.append(world)
        world.activate()
        return world

    yield make
    for w in worlds:
        w.close()


def units_of(world, team, kind=None):
    world.activate()
    return sorted(e for e, (t, k) in esper.get_components(Team, UnitKind)
                  if t.team == team and (kind is None or k.kind == kind))


def buildings(world, team, kind=None):
    world.activate()
    return sorted(e for e, (t, b) in esper.get_components(Team, Building)
                  if t.team == team and (kind is None or b.kind == kind))


def field_at(world, x, y):
    return next(e for e, f in esper.get_component(ResourceField) if (f.tx, f.ty) == (x, y))


def submit(world, kind, actor, target=0, **params):
    return world.ledger.submit(world.tick, kind, actor, target, params)


def run_until(world, cond, limit=3000):
    for _ in range(limit):
        if cond():
            return True
        world.step()
    return cond()


def test_a_worker_mines_a_load_and_delivers_it(econ):
    world = econ()
    worker = units_of(world, 0, "worker")[0]
    field = field_at(world, 2, 2)
    before = stockpile(world, 0).amount
    act = submit(world, "gather", worker, field, loads=2)
    assert run_until(world, lambda: act.done, 3000), act
    assert act.state == CONFIRMED and act.reason == "delivered 2 loads"
    cap = esper.component_for_entity(worker, Worker).capacity
    assert stockpile(world, 0).amount == before + 2 * cap and stockpile(world, 0).gathered == 2 * cap
    assert esper.component_for_entity(field, ResourceField).amount == 1500 - 2 * cap
    assert esper.component_for_entity(worker, Worker).carrying == 0
    assert not world.ledger.held                                    # the mining slot was released


def test_a_field_has_a_limited_number_of_mining_slots(econ):
    world = econ(blue_workers=3)
    w1, w2, w3 = units_of(world, 0, "worker")
    field = field_at(world, 2, 2)
    a, b, c = (submit(world, "gather", w, field) for w in (w1, w2, w3))
    world.step()
    assert a.state == STARTED and b.state == STARTED
    assert c.state == REJECTED and "mining slots are taken" in c.reason
    world.ledger.cancel(a.id)
    world.step()
    d = submit(world, "gather", w3, field)
    world.step()
    assert d.state == STARTED                                          # a's slot was given back


def test_a_mined_out_field_opens_its_tile(econ):
    world = econ()
    worker = units_of(world, 0, "worker")[0]
    field = field_at(world, 3, 2)
    esper.component_for_entity(field, ResourceField).amount = 3
    assert not world.nav.is_walkable(3, 2)
    version = world.nav.version
    act = submit(world, "gather", worker, field)
    assert run_until(world, lambda: act.done)
    assert act.state == CONFIRMED and act.reason == "the field is mined out"
    assert not esper.entity_exists(field) and world.nav.is_walkable(3, 2) and world.nav.version > version
    assert stockpile(world, 0).gathered == 3


def test_return_carries_a_load_home(econ):
    world = econ()
    worker = units_of(world, 0, "worker")[0]
    esper.component_for_entity(worker, Worker).carrying = 5
    before = stockpile(world, 0).amount
    act = submit(world, "return", worker)
    assert run_until(world, lambda: act.done)
    assert act.state == CONFIRMED and stockpile(world, 0).amount == before + 5
    empty = submit(world, "return", worker)
    world.step()
    assert empty.state == REJECTED and "carries nothing" in empty.reason


def test_building_holds_the_cost_then_pays_it_and_blocks_the_grid(econ):
    world = econ(blue_workers=2)
    w1, w2 = units_of(world, 0, "worker")
    cost = world.content.buildings["depot"].cost
    act = submit(world, "build", w1, building="depot", x=9, y=3)
    world.step()
    assert act.state == STARTED
    assert stockpile(world, 0).amount == 500 and available(world, 0) == 500 - cost     # held, not paid
    rival = submit(world, "build", w2, building="depot", x=10, y=4)
    world.step()
    assert rival.state == REJECTED and "reserved by action" in rival.reason           # the site is taken
    assert run_until(world, lambda: buildings(world, 0, "depot"), 600)
    depot = buildings(world, 0, "depot")[0]
    assert stockpile(world, 0).amount == 500 - cost and available(world, 0) == 500 - cost   # paid once
    assert not world.nav.is_walkable(9, 3) and not world.nav.is_walkable(10, 4)
    b = esper.component_for_entity(depot, Building)
    hp = esper.component_for_entity(depot, Health)
    assert not b.done and hp.hp < hp.max_hp * 0.2
    help_ = submit(world, "build", w2, depot)                        # a second worker helps
    world.step()
    assert help_.state == STARTED
    start_work = b.work
    world.run(60)
    assert b.work - start_work > 60                                  # two workers: more than one unit a tick
    assert run_until(world, lambda: b.done, 1200)
    world.step()
    assert act.state == CONFIRMED and help_.state == CONFIRMED and hp.hp == pytest.approx(hp.max_hp)
    assert population_cap(world, 0) == 10 + 8


def test_a_building_needs_its_prerequisites_money_and_open_ground(econ):
    world = econ(blue_stock=100)
    worker = units_of(world, 0, "worker")[0]
    cases = [
        (dict(building="turret", x=9, y=3), "needs barracks first"),
        (dict(building="barracks", x=9, y=3), "not enough resources (150 needed)"),
        (dict(building="depot", x=1, y=1), "is not open floor"),
        (dict(building="depot", x=4, y=5), "is not open floor"),              # on the headquarters
        (dict(building="castle", x=9, y=3), "unknown building 'castle'"),
    ]
    acts = [submit(world, "build", worker, **params) for params, _ in cases]
    world.step()
    for act, (_params, reason) in zip(acts, cases):
        assert act.state == REJECTED and reason in act.reason, (act.params, act.reason)


def test_training_holds_pays_refunds_and_spawns_beside_the_building(econ):
    world = econ(blue_stock=200)
    hq = buildings(world, 0, "hq")[0]
    cost = world.content.units["worker"].cost
    rally = submit(world, "set_rally", hq, x=10.5, y=8.5)
    trains = [submit(world, "train", hq, unit="worker") for _ in range(3)]
    world.step()
    assert rally.state == CONFIRMED
    assert [t.state for t in trains] == [STARTED, ACCEPTED, ACCEPTED]             # a queue: only the front runs
    assert stockpile(world, 0).amount == 200 - cost and available(world, 0) == 200 - 3 * cost
    world.ledger.cancel(trains[2].id)                                          # queued: its hold is released
    world.step()
    assert trains[2].state == CANCELLED and available(world, 0) == 200 - 2 * cost
    world.ledger.cancel(trains[0].id)                                          # under way: the cost comes back
    world.step()
    assert trains[0].state == CANCELLED and stockpile(world, 0).amount == 200 - cost + cost - cost
    assert trains[1].state == STARTED                                          # the next one started
    before = set(units_of(world, 0))
    assert run_until(world, lambda: trains[1].done, 600)
    new = set(units_of(world, 0)) - before
    assert trains[1].state == CONFIRMED and len(new) == 1
    (eid,) = new
    world.run(150)
    pos = esper.component_for_entity(eid, Position)
    assert abs(pos.x - 10.5) < 0.5 and abs(pos.y - 8.5) < 0.5                    # walked to the rally point


def test_the_queue_holds_five_and_production_waits_for_population(econ):
    world = econ(blue_stock=2000, blue_workers=8)
    hq = buildings(world, 0, "hq")[0]
    assert population_used(world, 0) == 8 and population_cap(world, 0) == 10
    trains = [submit(world, "train", hq, unit="worker") for _ in range(6)]
    world.step()
    assert trains[5].state == REJECTED and "queue is full (5)" in trains[5].reason
    assert run_until(world, lambda: trains[1].done, 900)
    world.run(5)
    assert population_used(world, 0) == 10
    assert trains[2].state == ACCEPTED                                          # waiting for room
    world.run(300)
    assert trains[2].state == ACCEPTED
    depot = submit(world, "build", units_of(world, 0, "worker")[0], building="depot", x=9, y=3)
    assert run_until(world, lambda: depot.done, 1500) and depot.state == CONFIRMED
    world.step()
    assert trains[2].state == STARTED                                            # the cap rose: it started


def test_a_destroyed_building_frees_its_ground_and_gives_back_its_training(econ):
    world = econ(blue_stock=200)
    hq = buildings(world, 0, "hq")[0]
    train = submit(world, "train", hq, unit="worker")
    queued = submit(world, "train", hq, unit="worker")
    world.step()
    assert train.state == STARTED and stockpile(world, 0).amount == 150
    esper.component_for_entity(hq, Health).hp = 0.0
    world.step()
    assert train.state == FAILED and queued.state == FAILED and train.reason == "actor died"
    assert stockpile(world, 0).amount == 200 and available(world, 0) == 200
    assert all(world.nav.is_walkable(x, y) for x in range(4, 7) for y in range(5, 8))


def test_units_attack_buildings_and_a_turret_fires_back(econ):
    red_units = '[[teams.spawns]]\nunit = "rifleman"\nat = [12, 8]\ncount = 1\n'
    world = econ(red_units=red_units, extra_blue=', { building = "turret", at = [9, 8] }')
    turret = buildings(world, 0, "turret")[0]
    rifleman = units_of(world, 1, "rifleman")[0]
    hq = buildings(world, 0, "hq")[0]
    attack = submit(world, "attack", rifleman, hq)
    hurt = lambda e: esper.component_for_entity(e, Health).hp < esper.component_for_entity(e, Health).max_hp
    assert run_until(world, lambda: hurt(rifleman) or not esper.entity_exists(rifleman), 900)
    assert attack.state in (STARTED, FAILED)                              # it went for the walls; the turret shot it
    assert esper.component_for_entity(turret, Building).done


def test_a_side_stands_while_it_has_buildings_and_falls_with_its_headquarters(econ):
    world = econ()
    for e in units_of(world, 0):
        esper.component_for_entity(e, Health).hp = 0.0
    world.step()
    assert not world.over                                                 # Blue still has its headquarters
    esper.component_for_entity(buildings(world, 0)[0], Health).hp = 0.0
    world.step()
    assert world.over and world.winner == 1 and world.end_reason == "elimination"
    world2 = econ(victory_rule="headquarters")
    esper.component_for_entity(buildings(world2, 1, "hq")[0], Health).hp = 0.0
    world2.step()
    assert world2.over and world2.winner == 0 and world2.end_reason == "headquarters"


def test_the_time_limit_is_decided_by_score(econ):
    world = econ(blue_stock=500, red_stock=499)
    world.max_ticks = 3
    world.run(5)
    assert world.over and world.end_reason == "time limit" and world.winner == 0
    scores = victory.team_scores(world)
    assert scores[0] - scores[1] == pytest.approx(1 + world.content.units["worker"].cost * 2)
    even = econ(blue_stock=500, red_stock=500,
                red_units='[[teams.spawns]]\nunit = "worker"\nat = [20, 7]\ncount = 2\n')
    even.max_ticks = 2
    even.run(3)
    assert even.over and even.winner is None and even.summary()["winner"] is None


def test_an_economy_match_saves_loads_and_replays_exactly(content, tmp_path):
    from saves.replay import ReplayRecorder, read_replay, verify
    from saves.snapshot import load_snapshot, save_snapshot
    from game.synchash import sync_hash
    straight = World(content, "econ_duel", 4)
    straight.run(2400)
    expected = sync_hash(straight)
    straight.close()
    first = World(content, "econ_duel", 4)
    rec = ReplayRecorder(tmp_path / "e.rtsreplay", first, keyframe_every=300)
    for _ in range(1200):
        first.step()
        rec.after_tick(first)
    save_snapshot(first, tmp_path / "mid.rtssave")
    for _ in range(300):
        first.step()
        rec.after_tick(first)
    rec.close(first)
    first.close()
    loaded = load_snapshot(tmp_path / "mid.rtssave", content)
    try:
        assert len([e for e, _b in esper.get_component(Building)]) >= 2
        loaded.run(1200)
        assert sync_hash(loaded) == expected
    finally:
        loaded.close()
    assert verify(read_replay(tmp_path / "e.rtsreplay"), content).ok


ECON_KINDS = ["gather", "return", "build", "train", "set_rally", "move", "attack"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.one_of(
    st.tuples(st.just("submit"), st.sampled_from(ECON_KINDS), st.integers(0, 9), st.integers(0, 9),
              st.integers(0, 23), st.integers(0, 11), st.sampled_from(["worker", "depot", "barracks", "rifleman"])),
    st.tuples(st.just("cancel"), st.integers(0, 40)),
    st.tuples(st.just("step"), st.integers(1, 40))), min_size=1, max_size=40))
def test_random_economy_actions_keep_every_hold_and_stockpile_honest(tmp_path_factory, ops):
    """Whatever is submitted and cancelled: a stockpile never goes negative, what the ledger holds is exactly what
    its active actions hold, and after everything ends nothing is held and no cost was lost or made up."""
    mod = arena_mod(tmp_path_factory.mktemp("econ"), ROWS, teams(blue_stock=600, red_stock=600))
    world = World(load_content([mod]), "arena", 1)
    world._check_end = lambda: None
    try:
        world.activate()
        submitted = []

        def check():
            held: dict = {}
            for action in world.ledger.active_sorted():
                for res in action.reservations:
                    if type(res[-1]) is int:
                        held[tuple(res[:-1])] = held.get(tuple(res[:-1]), 0) + res[-1]
            assert held == world.ledger.held
            for t in (0, 1):
                assert stockpile(world, t).amount >= 0 and available(world, t) >= 0

        def ledger_of_costs():
            """Resources spent on buildings and units that exist, plus what is paid for trainings under way."""
            spent = 0
            for e, (b, t) in esper.get_components(Building, Team):
                if t.team == 0 and e not in initial:
                    spent += world.content.buildings[b.kind].cost
            for action in world.ledger.active_sorted():
                spent += action.data.get("paid", 0) if action.kind == "train" and action.data.get("team") == 0 else 0
            return spent

        initial = set(buildings(world, 0))
        initial_units = set(units_of(world, 0))
        for item in ops:
            if item[0] == "submit":
                _, kind, actor_i, target_i, x, y, what = item
                actors = units_of(world, 0) + buildings(world, 0)
                targets = [e for e, _f in esper.get_component(ResourceField)] + buildings(world, 0) + units_of(world, 1)
                actor = actors[actor_i % len(actors)]
                target = targets[target_i % len(targets)] if target_i < 8 else 0
                params = {"x": x, "y": y, "building": what, "unit": what}
                if kind in ("move", "set_rally"):
                    params = {"x": x + 0.5, "y": y + 0.5}
                submitted.append(world.ledger.submit(world.tick, kind, actor, target, params))
            elif item[0] == "cancel" and submitted:
                world.ledger.cancel(submitted[item[1] % len(submitted)].id)
            else:
                for _ in range(item[1]):
                    world.step()
                    check()
        world.step()                          # what is still queued is accepted or refused ...
        check()
        for action in submitted:              # ... then everything still active is cancelled
            if action.active:
                world.ledger.cancel(action.id, "wind down")
        world.step()
        check()
        assert not world.ledger.held
        assert all(action.done for action in submitted)
        gathered = stockpile(world, 0).gathered
        trained = sum(world.content.units[kd.kind].cost for e, (t, kd) in esper.get_components(Team, UnitKind)
                      if t.team == 0 and e not in initial_units)
        assert stockpile(world, 0).amount == 600 + gathered - ledger_of_costs() - trained
    finally:
        world.close()


def test_re_ordering_a_worker_is_not_refused_by_its_own_hold(econ):
    world = econ(blue_workers=2, blue_stock=100)
    w1, w2 = units_of(world, 0, "worker")
    field = field_at(world, 2, 2)
    a, b = submit(world, "gather", w1, field), submit(world, "gather", w2, field)
    world.step()
    assert a.state == STARTED and b.state == STARTED                 # both slots taken
    again = submit(world, "gather", w1, field, loads=1)              # the same worker, re-ordered to its field
    world.step()
    assert again.state == STARTED and a.state == CANCELLED
    build = submit(world, "build", w2, building="depot", x=9, y=3)   # 100 of 100 held
    world.step()
    assert build.state == STARTED and available(world, 0) == 0
    moved = submit(world, "build", w2, building="depot", x=12, y=3)  # changing its mind: the old hold is freed
    world.step()
    assert moved.state == STARTED and build.state == CANCELLED and available(world, 0) == 0


@pytest.mark.parametrize("strategy", ["macro", "scout_rush", "worker_rush", "heavy_rush", "ai_balanced", "ai_rush"])
def test_a_scripted_strategy_that_lost_every_building_plays_on_from_home(content, strategy):
    # found by a 100-game tournament on econ_highlands: a macro team whose buildings were all razed while units
    # lived crashed the whole match (its rally point and building sites are measured from its headquarters)
    world = World(content, "econ_duel", 1, strategies={0: strategy, 1: strategy})
    try:
        world.run(300)
        world.activate()
        world.activate()
        for eid, (team, _b, health) in list(esper.get_components(Team, Building, Health)):
            if team.team == 0:
                health.hp = -health.max_hp       # razed (overkill: a site's builders add hit points before deaths)
        world.run(1)
        assert not buildings(world, 0) and units_of(world, 0)
        world.run(600)                           # several economy thinks and every army tick: no exception
        home = world.home_tile(0)
        assert home is not None
        assert not world.over or world.winner != 0
    finally:
        world.close()
