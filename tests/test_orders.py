"""Player orders through the ledger: attack-move fights on the way, hold never chases, stop cancels."""
import esper

from components import Health, Position, Weapon
from game import orders
from tests.conftest import idle_teams, spawn

ROWS = [
    "##############################",
    "#............................#",
    "#............................#",
    "#............................#",
    "##############################",
    "#...##########################",       # a sealed pocket: an enemy there keeps the match going
    "##############################",
]
POCKET = spawn("rifleman", 1, 5)


def units(world, team):
    from components import Team
    world.activate()
    return sorted(e for e, (t, _h) in esper.get_components(Team, Health) if t.team == team)


def test_attack_move_stops_to_fight_then_walks_on(make_world):
    world = make_world(ROWS, idle_teams(spawn("rifleman", 2, 2), spawn("scout", 12, 2) + POCKET),
                       controllers={0: "player"})
    (me,), (enemy, _pocket) = units(world, 0), units(world, 1)
    orders.attack_move(world, [me], 27.5, 2.5)
    fought_at = None
    for _ in range(600):
        world.step()
        if esper.component_for_entity(me, Weapon).target == enemy and fought_at is None:
            fought_at = esper.component_for_entity(me, Position).x
        if not esper.entity_exists(enemy) and world.ledger.current(me) is None:
            break
    assert fought_at is not None and fought_at < 12 - 3          # it stopped at range, not on top of the enemy
    assert not esper.entity_exists(enemy)
    assert esper.component_for_entity(me, Position).x > 27        # and then walked on to the point


def test_hold_fires_without_chasing_and_stop_cancels(make_world):
    world = make_world(ROWS, idle_teams(spawn("rifleman", 2, 2), spawn("rifleman", 7, 2) + spawn("scout", 20, 2)),
                       controllers={0: "player"})
    (me,) = units(world, 0)
    near, far = units(world, 1)
    orders.hold(world, [me])
    start = esper.component_for_entity(me, Position).x
    for _ in range(900):                          # a rifleman needs more than one clip for another: it reloads
        world.step()
        if not esper.entity_exists(near):
            break
    assert not esper.entity_exists(near)
    world.run(60)
    assert esper.component_for_entity(me, Position).x == start and esper.entity_exists(far)   # never chased
    assert world.ledger.current(me).kind == "hold"
    assert orders.stop(world, [me]) == 1
    world.step()
    assert world.ledger.current(me) is None


# -- the economy's orders ---------------------------------------------------------------------------------------
import pytest  # noqa: E402

from components import Building, Rally, ResourceField, Worker  # noqa: E402
from game.economy import available, stockpile  # noqa: E402
from game.ledger import CANCELLED, REJECTED  # noqa: E402


@pytest.fixture
def econ(content):
    """econ_duel with Blue played and Red idle: Blue's headquarters at tiles 6..8, its workers 35..38."""
    from game.world import World
    world = World(content, "econ_duel", 1, controllers={0: "player", 1: "idle"})
    world.activate()
    yield world
    world.close()


def workers_of(world, team):
    from components import Team, UnitKind
    world.activate()
    return sorted(e for e, (t, k) in esper.get_components(Team, UnitKind) if t.team == team and k.kind == "worker")


def hq_of(world, team):
    from components import Team
    return next(e for e, (t, b) in sorted(esper.get_components(Team, Building)) if t.team == team and b.kind == "hq")


def field_on(world, x, y):
    return next(e for e, f in esper.get_component(ResourceField) if (f.tx, f.ty) == (x, y))


def test_right_click_on_a_field_gathers_and_shares_out_its_slots(econ):
    world = econ
    workers = workers_of(world, 0)
    field = field_on(world, 5, 2)
    before = stockpile(world, 0).amount
    acts = orders.order_at(world, 0, workers, 5.5, 2.5)
    assert [a.kind for a in acts] == ["gather"] * 4 and all(a.params == {"loads": 0} for a in acts)
    targets = [a.target for a in acts]
    assert targets.count(field) == 2                       # two slots; the others go to the next fields
    assert all(esper.component_for_entity(t, ResourceField).slots for t in targets)
    world.step()
    assert all(a.state == "started" for a in acts), [(a.state, a.reason) for a in acts]
    again = orders.order_at(world, 0, workers, 5.5, 2.5)     # the same order again keeps them at work
    assert again == []
    world.run(900)
    assert stockpile(world, 0).amount > before


def test_right_click_on_the_headquarters_returns_a_load_and_moves_the_rest(econ):
    world = econ
    w1, w2 = workers_of(world, 0)[:2]
    esper.component_for_entity(w1, Worker).carrying = 5
    acts = orders.order_at(world, 0, [w1, w2], 7.5, 7.5)
    assert {(a.actor, a.kind) for a in acts} == {(w1, "return"), (w2, "move")}
    before = stockpile(world, 0).amount
    world.run(120)
    assert stockpile(world, 0).amount == before + 5


def test_build_places_a_site_that_a_right_click_helps_finish(econ):
    world = econ
    workers = workers_of(world, 0)
    assert orders.site_check(world, 0, "depot", 12, 6)[0] == orders.FREE
    assert orders.site_check(world, 0, "depot", 7, 7)[0] == orders.BLOCKED      # the headquarters
    assert orders.site_check(world, 0, "depot", 15, 5)[0] == orders.BLOCKED     # a wall
    act = orders.build(world, workers, "depot", 12, 6)
    assert act.actor == workers[0]                        # the nearest worker (9.5, 7.5)
    assert orders.site_check(world, 0, "depot", 13, 7)[0] == orders.BLOCKED     # claimed by that order
    world.run(90)
    site = next(e for e, b in esper.get_component(Building) if (b.kind, b.tx, b.ty) == ("depot", 12, 6))
    assert not esper.component_for_entity(site, Building).done
    assert stockpile(world, 0).amount == 200 - 100
    helper = workers[1]
    (help_act,) = orders.order_at(world, 0, [helper], 12.5, 6.5)
    assert (help_act.kind, help_act.target) == ("build", site)
    world.step()
    assert help_act.state == "started", help_act.reason
    world.run(30 * 12)
    assert esper.component_for_entity(site, Building).done      # 20 s of work by two workers


def test_the_builder_is_the_nearest_worker_not_already_placing(econ):
    world = econ
    workers = workers_of(world, 0)
    first = orders.build(world, workers, "depot", 12, 6)
    world.step()
    second = orders.build(world, workers, "depot", 12, 10)
    assert second.actor != first.actor


def test_train_queues_at_the_shortest_queue_and_cancel_refunds(econ):
    world = econ
    hq = hq_of(world, 0)
    a = orders.train(world, [hq], "worker")
    b = orders.train(world, [hq], "worker")
    world.step()
    assert [x.id for x in world.ledger.queue_of(hq, "production")] == [a.id, b.id]
    assert a.state == "started" and b.state == "accepted"
    assert stockpile(world, 0).amount == 150 and available(world, 0) == 100     # a paid, b held
    orders.cancel(world, b)
    world.step()
    assert b.state == CANCELLED and available(world, 0) == 150
    orders.cancel(world, a)
    world.step()
    assert a.state == CANCELLED and stockpile(world, 0).amount == 200          # a running one is refunded
    c = orders.train(world, [hq], "worker")
    n = len(workers_of(world, 0))
    world.run(30 * 12 + 5)
    assert c.state == "confirmed" and len(workers_of(world, 0)) == n + 1
    assert orders.train(world, [hq], "rifleman") is None                   # a headquarters trains workers only


def test_right_click_with_a_building_selected_sets_its_rally_point(econ):
    world = econ
    hq = hq_of(world, 0)
    (act,) = orders.order_at(world, 0, [hq], 14.0, 12.0)
    assert act.kind == "set_rally"
    world.step()
    rally = esper.component_for_entity(hq, Rally)
    assert (rally.on, rally.x, rally.y) == (True, 14.0, 12.0)


def test_the_command_card_says_why_a_button_is_greyed(econ):
    world = econ
    opts = {o.id: o for o in orders.build_options(world, 0)}
    assert list(opts)[:3] == ["depot", "barracks", "hq"]                      # no prerequisites first, by cost
    assert opts["depot"].ok and opts["barracks"].ok
    assert opts["hq"].problem == "needs 400 resources (you have 200)"
    assert opts["armory"].problem == "needs a Barracks first"
    hq = hq_of(world, 0)
    (worker,) = orders.train_options(world, [hq])
    assert worker.id == "worker" and worker.ok and worker.cost == 50
    stockpile(world, 0).amount = 20
    assert orders.train_options(world, [hq])[0].problem == "needs 50 resources (you have 20)"
    keys = orders.hotkeys([o.id for o in opts.values()], [o.name for o in opts.values()], "ashrin")
    assert keys == {"depot": "d", "barracks": "b", "hq": "q", "turret": "t", "armory": "m"}


def test_selection_prefers_units_and_finds_buildings_and_idle_workers(econ):
    world = econ
    hq = hq_of(world, 0)
    workers = workers_of(world, 0)
    assert orders.select_box(world, 0, 4, 4, 11, 11) == workers              # units first
    assert orders.select_box(world, 0, 6.2, 6.2, 6.8, 6.8) == [hq]           # no unit in the box: the building
    assert orders.entity_at(world, 7.0, 6.3, team=0) == hq
    assert orders.unit_at(world, 7.5, 7.5) is None                         # buildings are not units
    assert orders.idle_workers(world, 0) == workers
    assert orders.next_idle_worker(world, 0, workers[1]) == workers[2]
    assert orders.next_idle_worker(world, 0, workers[-1]) == workers[0]
    orders.order_at(world, 0, [workers[0]], 5.5, 2.5)
    world.step()
    assert orders.idle_workers(world, 0) == workers[1:]
    assert orders.stop(world, [hq]) == 0                                     # unit orders leave buildings alone
    assert orders.hold(world, [hq]) == []


def test_a_worker_with_a_building_to_place_counts_as_busy_at_once(econ):
    world = econ
    workers = workers_of(world, 0)
    first = orders.build(world, workers[:1], "depot", 12, 6)
    assert orders.placing(world, first.actor)                           # submitted, not yet processed
    assert orders.builder_for(world, workers[:2], 13, 7) == workers[1]
    world.run(200)
    assert not orders.placing(world, first.actor)                       # placed: it is building now


def test_right_click_on_an_enemy_building_attacks_it(econ):
    world = econ
    workers = workers_of(world, 0)
    enemy_hq = hq_of(world, 1)
    acts = orders.order_at(world, 0, workers[:2], 40.5, 28.5)
    assert [(a.kind, a.target) for a in acts] == [("attack", enemy_hq)] * 2
    world.step()
    assert all(a.state == "started" for a in acts), [a.reason for a in acts]
