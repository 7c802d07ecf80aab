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
