"""Hot reload through its API (what `rts play --watch` calls between ticks)."""
import os
import time

import esper

from components import BrainState, Health
from content.loader import load_content
from game.app import hotreload
from game.world import World
from saves.replay import ReplayRecorder, read_replay, verify
from tests.conftest import arena_mod, spawn, write_mod
from tests.test_brains import brain_teams

ROWS = [
    "##############################",
    "#............................#",
    "#.c..........................#",
    "#............................#",
    "##############################",
]
# retreat's preferences with the weight moved onto "cover is close": a hurt guard now prefers cover
HEAVY_COVER = '''
id = "guard"
[candidates.retreat]
preferences = [
  { input = "hp_frac", range = [0.0, 1.0], curve = { type = "logistic", steepness = -10.0, midpoint = 0.35 }, weight = 0.1 },
  { input = "under_fire", range = [0.0, 1.0], curve = { type = "step", threshold = 0.5, low = 0.5, high = 1.0 }, weight = 0.1 },
  { input = "cover_distance", range = [0.0, 20.0], curve = { type = "linear", slope = -0.6, intercept = 1.0 }, weight = 5.0 },
]
'''


def setup(tmp_path):
    mod = arena_mod(tmp_path / "mod", ROWS, brain_teams(spawn("rifleman", 4, 2), spawn("rifleman", 12, 2)))
    world = World(load_content([mod]), "arena", 1)
    world.activate()
    guard = min(e for e, _b in esper.get_component(BrainState))
    esper.component_for_entity(guard, Health).hp = 45.0
    return mod, world, guard


def first_mode(records, guard, after_tick):
    """The guard's first decision with a mode at or after ``after_tick`` among ``records`` (the log's ``take``:
    a live match keeps only an NPC's last two)."""
    for rec in records:
        if rec.kind == "npc" and rec.entity == guard and rec.tick >= after_tick and rec.mode:
            return rec
    return None


def test_a_valid_change_rebuilds_brains_and_alters_behaviour(tmp_path):
    mod, world, guard = setup(tmp_path)
    try:
        world.run(20)
        assert world.decisions.latest("npc", guard).mode == "engage"
        running = world.ledger.current(guard)
        assert running is not None and running.source == "brain"
        write_mod(mod, {"brains/guard.toml": HEAVY_COVER})
        result = hotreload.reload(world, [mod])
        assert result.ok and result.brains_rebuilt == 1 and result.actions_cancelled == 1, result.message()
        assert world.content.content_hash == result.content_hash
        assert world.content_changes == [[20, result.content_hash]]
        tick = world.tick
        world.decisions.collect = True                # every record from here on, not only the last two kept
        world.step()
        cancelled = world.ledger.get(running.id)
        assert cancelled.state == "cancelled" and cancelled.reason == "cancelled by brain"
        assert not [k for k, v in world.ledger.exclusive.items() if v == running.id]      # reservations released
        world.run(5)
        rec = first_mode(world.decisions.take(), guard, tick)
        assert rec.mode == "retreat", rec.detail
        retreat = rec.candidate("retreat")
        assert [p[4] for p in retreat.prefs] == [0.1, 0.1, 5.0]                       # the new weights
    finally:
        world.close()


def test_an_invalid_change_keeps_the_old_content_and_says_where(tmp_path):
    mod, world, guard = setup(tmp_path)
    try:
        world.run(20)
        before = world.content
        brain = esper.component_for_entity(guard, BrainState)
        broken = HEAVY_COVER.replace('steepness = -10.0', 'steepness = 0.0')
        write_mod(mod, {"brains/guard.toml": broken})
        result = hotreload.reload(world, [mod])
        assert not result.ok
        line = broken.strip("\n").splitlines().index(next(l for l in broken.strip("\n").splitlines()
                                                         if "steepness = 0.0" in l)) + 1
        assert f"guard.toml:{line}: candidates.retreat.preferences[0].curve: " in result.error
        assert "non-zero steepness" in result.error and result.message().startswith("reload refused, old content kept")
        assert world.content is before and world.content_changes == []
        assert esper.component_for_entity(guard, BrainState) is brain                         # the brain was not touched
        world.run(10)
        assert world.decisions.latest("npc", guard).mode == "engage"
    finally:
        world.close()


def test_the_watcher_sees_changes_and_the_replay_records_the_content_in_force(tmp_path):
    mod, world, guard = setup(tmp_path)
    watcher = hotreload.ContentWatcher([mod])
    assert watcher.changed() == []
    rec = ReplayRecorder(tmp_path / "r.rtsreplay", world, mods=[str(mod)])
    try:
        for _ in range(20):
            world.step()
            rec.after_tick(world)
        path = write_mod(mod, {"brains/guard.toml": HEAVY_COVER}) / "brains" / "guard.toml"
        os.utime(path, ns=(time.time_ns(), time.time_ns() + 10 ** 9))
        assert [p for p in watcher.changed() if p.endswith("guard.toml")]
        assert hotreload.reload(world, [mod]).ok
        for _ in range(40):
            world.step()
            rec.after_tick(world)
        rec.close(world)
    finally:
        world.close()
    replay = read_replay(tmp_path / "r.rtsreplay")
    assert [t for t, _h in replay.content_changes] == [20]
    assert verify(replay, load_content([mod])).ok


def test_changed_unit_stats_apply_to_living_units(tmp_path):
    """A changed rifleman (speed, hit points, weapon, ammo, sight) applies to the riflemen already on the map."""
    from components import Ammo, Mover, UnitKind, Weapon
    mod, world, guard = setup(tmp_path)
    try:
        world.run(3)
        riflemen = sorted(e for e, k in esper.get_component(UnitKind) if k.kind == "rifleman")
        text = (hotreload.DEFAULT_ROOT / "units/rifleman.toml").read_text()
        text = (text.replace("speed = 3.0", "speed = 4.5").replace("hp = 100.0", "hp = 200.0")
                .replace("range = 6.0", "range = 7.5").replace("cooldown = 0.8", "cooldown = 0.4")
                .replace("clip = 12", "clip = 5").replace("sight = 12.0", "sight = 15.0"))
        write_mod(mod, {"units/rifleman.toml": text})
        result = hotreload.reload(world, [mod])
        assert result.ok and f"unit stats applied to {len(riflemen)} living units" in result.message(), result.message()
        world.activate()
        for e in riflemen:
            assert esper.component_for_entity(e, Mover).speed == 4.5
            health = esper.component_for_entity(e, Health)
            assert health.max_hp == 200.0
            weapon = esper.component_for_entity(e, Weapon)
            assert (weapon.range, weapon.cooldown) == (7.5, 12) and weapon.ready_in <= 12
            ammo = esper.component_for_entity(e, Ammo)
            assert ammo.clip_size == 5 and ammo.clip <= 5
        assert esper.component_for_entity(guard, Health).hp == 90.0          # 45 of 100 -> 90 of 200
        assert world.perception.sight["rifleman"] == 15.0
        world.run(5)                                                        # and the match runs on
    finally:
        world.close()
