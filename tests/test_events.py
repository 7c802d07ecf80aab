"""world.events: what happened this tick, for the views (tracers, deaths, sounds); never world state."""
from game.synchash import sync_hash
from game.world import World


def test_shots_and_deaths_are_listed_per_tick_and_do_not_touch_the_hash(content):
    world = World(content, "skirmish", 1)
    twin = World(content, "skirmish", 1)
    shots = deaths = 0
    for _ in range(1500):
        world.step()
        twin.step()
        twin.events.clear()                       # what a view does with them cannot change the match
        for row in world.events:
            assert row[0] in ("shot", "death")
            if row[0] == "shot":
                _kind, shooter, target, fx, fy, tx, ty, hit, damage = row
                assert shooter != target and (damage > 0) == hit
                shots += 1
            else:
                deaths += 1
        if world.over:
            break
    assert shots > 50 and deaths > 3, (shots, deaths)
    assert sync_hash(world) == sync_hash(twin)
    n = len(world.events)
    world.step()
    assert len(world.events) < n + 200                # cleared every tick, not accumulated
    world.close()
    twin.close()
