"""The collector settings of the commands that run matches (game/collector.py): set and undone as documented, and a
match plays the same (sync hash) with them as without."""
import doctest
import gc

import game.collector as collector


def test_the_module_examples_hold():
    assert doctest.testmod(collector).failed == 0


def test_a_match_plays_the_same_with_the_collector_settled():
    from content.loader import load_content
    from game.world import World
    content = load_content()
    before = gc.get_threshold()
    hashes = []
    try:
        for settle in (False, True):
            world = World(content, "skirmish", 7)
            try:
                if settle:
                    collector.settle()
                    assert gc.get_threshold()[0] == collector.YOUNG and gc.get_freeze_count() > 0
                world.run(150)
                hashes.append(world.summary()["sync_hash"])
            finally:
                world.close()
    finally:
        collector.restore(before)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
    assert hashes[0] == hashes[1]
