import math

import esper

from components import Ammo, Health, Position, Team, Weapon
from tests.conftest import idle_teams, spawn
from game.ledger import CONFIRMED, REJECTED, STARTED

OPEN = ["############",
        "#..........#",
        "#..........#",
        "#..........#",
        "############"]


def units(world, team=None):
    world.activate()
    return sorted(e for e, t in esper.get_component(Team) if team is None or t.team == team)


def test_move_reaches_destination_at_unit_speed(make_world):
    world = make_world(OPEN, idle_teams(spawn("rifleman", 1, 1), spawn("rifleman", 10, 3)))
    blue = units(world, 0)[0]
    act = world.ledger.submit(world.tick, "move", blue, params={"x": 9.5, "y": 1.5})
    world.run(5)
    assert act.state == STARTED
    world.run(200)
    assert act.state == CONFIRMED and act.reason == "arrived"
    pos = esper.component_for_entity(blue, Position)
    assert (pos.x, pos.y) == (9.5, 1.5)
    # rifleman speed 3 tiles/s -> 8 tiles take 80 ticks at 30 Hz (plus the tick the order starts on)
    assert 80 <= act.end_tick - act.start_tick <= 82


def test_move_around_walls_and_through_open_door_only(make_world):
    rows = ["#######",
            "#..#..#",
            "#..+..#",
            "#..#..#",
            "#######"]
    world = make_world(rows, idle_teams(spawn("rifleman", 1, 2), spawn("rifleman", 5, 1)))
    blue = units(world, 0)[0]
    blocked = world.ledger.submit(world.tick, "move", blue, params={"x": 5.5, "y": 3.5})
    world.step()
    assert blocked.state == REJECTED and blocked.reason == "no path"
    door = world.ledger.submit(world.tick, "open_door", blue, target=[e for e, _ in esper.get_component(
        __import__("components").Door)][0])
    world.run(60)
    assert door.state == CONFIRMED
    move = world.ledger.submit(world.tick, "move", blue, params={"x": 5.5, "y": 3.5})
    world.run(120)
    assert move.state == CONFIRMED


def test_locked_door_needs_key(make_world):
    rows = ["#######",
            "#k.#..#",
            "#..L..#",
            "#..#..#",
            "#######"]
    world = make_world(rows, idle_teams(spawn("rifleman", 1, 3), spawn("rifleman", 5, 1)))
    from components import Door, Inventory, Pickup
    blue = units(world, 0)[0]
    door = [e for e, _ in esper.get_component(Door)][0]
    key = [e for e, _ in esper.get_component(Pickup)][0]
    first = world.ledger.submit(world.tick, "open_door", blue, door)
    world.step()
    assert first.state == REJECTED and "no key" in first.reason
    take = world.ledger.submit(world.tick, "pick_up_key", blue, key)
    world.run(60)
    assert take.state == CONFIRMED and esper.component_for_entity(blue, Inventory).keys == 1
    assert not esper.entity_exists(key)
    second = world.ledger.submit(world.tick, "open_door", blue, door)
    world.run(60)
    assert second.state == CONFIRMED
    assert esper.component_for_entity(door, Door).state == "open"
    assert esper.component_for_entity(blue, Inventory).keys == 0
    assert world.nav.is_walkable(3, 2)


def test_attack_kills_target_with_cooldown_and_removes_it(make_world):
    world = make_world(OPEN, idle_teams(spawn("rifleman", 2, 2), spawn("rifleman", 6, 2)))
    blue, red = units(world, 0)[0], units(world, 1)[0]
    esper.component_for_entity(blue, Weapon).accuracy = 1.0
    act = world.ledger.submit(world.tick, "attack", blue, red)
    hp = esper.component_for_entity(red, Health)
    shots = []
    for _ in range(400):
        before = hp.hp
        world.step()
        if not esper.entity_exists(red):
            shots.append(world.tick)
            break
        if hp.hp < before:
            shots.append(world.tick)
    assert act.state == CONFIRMED and act.reason == "target destroyed"
    # 100 hp / 9 damage -> 12 hits; 0.8 s cooldown = 24 ticks between shots
    assert len(shots) == 12
    assert all(b - a == 24 for a, b in zip(shots, shots[1:]))
    assert units(world, 1) == []
    assert world.over and world.winner == 0
    assert esper.component_for_entity(blue, Ammo).clip == 0


def test_attack_out_of_range_approaches_first(make_world):
    world = make_world(OPEN, idle_teams(spawn("rifleman", 1, 2), spawn("rifleman", 10, 2)))
    blue, red = units(world, 0)[0], units(world, 1)[0]
    world.ledger.submit(world.tick, "attack", blue, red)
    world.run(10)
    pos = esper.component_for_entity(blue, Position)
    assert pos.x > 1.5
    world.run(40)
    rpos = esper.component_for_entity(red, Position)
    assert math.hypot(pos.x - rpos.x, pos.y - rpos.y) <= 6.0 + 1e-9
    assert esper.component_for_entity(blue, Weapon).target == red


def test_cover_halves_damage(make_world):
    rows = ["#########",
            "#.......#",
            "#......c#",
            "#.......#",
            "#########"]
    world = make_world(rows, idle_teams(spawn("rifleman", 3, 2), spawn("rifleman", 7, 2) + spawn("rifleman", 7, 1)))
    blue = units(world, 0)[0]
    in_cover, in_open = units(world, 1)
    esper.component_for_entity(blue, Weapon).accuracy = 1.0
    for target in (in_cover, in_open):
        hp = esper.component_for_entity(target, Health)
        act = world.ledger.submit(world.tick, "attack", blue, target)
        world.run(3)
        assert act.state == STARTED
        assert hp.max_hp - hp.hp == (4.5 if target == in_cover else 9.0)
        world.ledger.cancel(act.id)
        world.run(30)


def test_reload_refills_clip_from_reserve_and_cancel_has_no_effect(make_world):
    world = make_world(OPEN, idle_teams(spawn("rifleman", 1, 1), spawn("rifleman", 10, 3)))
    blue = units(world, 0)[0]
    ammo = esper.component_for_entity(blue, Ammo)
    ammo.clip = 2
    full = world.ledger.submit(world.tick, "reload", blue)
    world.run(70)
    assert full.state == CONFIRMED and (ammo.clip, ammo.reserve) == (12, 38)
    ammo.clip = 0
    cancelled = world.ledger.submit(world.tick, "reload", blue)
    world.run(30)
    world.ledger.cancel(cancelled.id)
    world.run(100)
    assert cancelled.state == "cancelled"
    assert (ammo.clip, ammo.reserve) == (0, 38)


def test_scripted_match_ends_with_a_winner(content):
    from game.world import World
    world = World(content, "duel", 4)
    try:
        world.run(4000)
        assert world.over
        alive = world.alive_per_team()
        assert world.winner is not None and alive[world.winner] > 0
        assert sum(1 for n in alive if n > 0) == 1
    finally:
        world.close()
