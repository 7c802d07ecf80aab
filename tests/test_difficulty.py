"""Difficulty levels (content/difficulties/): what each changes, that it is saved, and that bad ones are named."""
import esper
import pytest

from components import Stockpile
from content.loader import ContentError, load_content
from game.world import World
from tests.conftest import write_mod


def test_levels_change_the_commander_the_reaction_the_income_and_the_fog(content):
    assert [d for d in sorted(content.difficulties, key=lambda d: content.difficulties[d].rank)] == \
        ["easy", "normal", "hard", "brutal"]
    world = World(content, "skirmish", 1, controllers={0: "player"}, commanders={0: ""},
                  difficulties={1: "easy"})
    try:
        assert world.commanders == ["", "uct_easy"] and world.think_every == [1, 3] and world.income == [1.0, 0.7]
        assert world.sees_all == frozenset()
    finally:
        world.close()
    world = World(content, "skirmish", 1, difficulties={1: "brutal"})
    try:
        assert world.commanders[1] == "portfolio" and world.income == [1.0, 1.5] and world.sees_all == frozenset()
    finally:
        world.close()


def test_a_difficulty_can_see_through_the_fog(tmp_path):
    """``sees_all`` is a difficulty option (no shipped level uses it: it made the portfolio searcher warier)."""
    mod = tmp_path / "mod" / "difficulties"
    mod.mkdir(parents=True)
    (mod / "seer.toml").write_text('id = "seer"\nname = "Seer"\nrank = 4\ncommander = "portfolio"\nsees_all = true\n')
    world = World(load_content([tmp_path / "mod"]), "skirmish", 1, difficulties={1: "seer"})
    try:
        assert world.commanders[1] == "portfolio" and 1 in world.sees_all and 0 not in world.sees_all
    finally:
        world.close()


def test_income_multiplies_deliveries(content):
    gathered = []
    for level in ("easy", "hard"):
        world = World(content, "econ_duel", 1, difficulties={0: level, 1: level})
        try:
            world.run(1500)
            world.activate()
            gathered.append(sorted((s.team, s.gathered) for _e, s in esper.get_component(Stockpile)))
        finally:
            world.close()
    easy, hard = gathered
    assert all(h[1] > e[1] * 1.4 for e, h in zip(easy, hard)), (easy, hard)


def test_an_easy_team_thinks_less_often(content):
    counts = {}
    for level in ("normal", "easy"):
        world = World(content, "skirmish", 1, difficulties={0: level, 1: level})
        try:
            world.decisions.collect = True
            counts[level] = 0
            for _ in range(300):
                world.step()
                counts[level] += sum(1 for r in world.decisions.take() if r.kind == "npc")
        finally:
            world.close()
    assert counts["easy"] < counts["normal"] * 0.6, counts


def test_a_save_keeps_the_levels(content, tmp_path):
    from saves.snapshot import load_snapshot, save_snapshot
    world = World(content, "skirmish", 2, difficulties={1: "easy"})
    try:
        world.run(60)
        save_snapshot(world, tmp_path / "s.rtssave")
        loaded = load_snapshot(tmp_path / "s.rtssave", content)
        try:
            assert loaded.difficulties == ["", "easy"] and loaded.think_every == [1, 3] and loaded.income[1] == 0.7
        finally:
            loaded.close()
    finally:
        world.close()


def test_a_level_naming_an_unknown_profile_is_refused_at_its_line(tmp_path):
    mod = write_mod(tmp_path / "mod", {"difficulties/silly.toml": 'id = "silly"\ncommander = "uctt"\n'})
    with pytest.raises(ContentError) as err:
        load_content([mod])
    assert "silly.toml" in str(err.value) and "unknown commander profile 'uctt'" in str(err.value)
    assert "did you mean 'uct'" in str(err.value) or "uct" in str(err.value)
