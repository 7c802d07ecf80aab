"""Stances (systems/reflexes.py): a player's unit without an order acquires targets, answers fire, keeps to its
leash or holds, by its stance; each choice goes through the ledger and leaves a reflex record."""
import esper

from components import Position, Stance, Team
from tests.conftest import two_teams, spawn

WIDE = ["##############################",
        "#............................#",
        "#............................#",
        "#............................#",
        "##############################"]


def units(world, team):
    world.activate()
    return sorted(e for e, t in esper.get_component(Team) if t.team == team)


def arena(make_world, blue: str, red: str):
    return make_world(WIDE, two_teams(blue, red), controllers={0: "player"})


def set_stance(world, eid, mode):
    world.activate()
    esper.component_for_entity(eid, Stance).mode = mode


def test_aggressive_units_attack_an_enemy_in_sight_and_say_why(make_world):
    world = arena(make_world, spawn("rifleman", 2, 2), spawn("rifleman", 12, 2))   # 10 tiles: in sight, not range
    blue, = units(world, 0)
    world.run(12)
    act = world.ledger.current(blue)
    assert act is not None and (act.kind, act.source) == ("attack", "reflex")
    rec = world.decisions.records("reflex", blue)[0]
    assert (rec.stance, rec.trigger, rec.action, rec.target) == ("aggressive", "enemy in sight", "attack", act.target)


def test_defensive_and_hold_units_ignore_an_enemy_out_of_range(make_world):
    for mode in ("defensive", "hold", "passive"):
        world = arena(make_world, spawn("rifleman", 2, 2), spawn("rifleman", 12, 2))
        blue, = units(world, 0)
        set_stance(world, blue, mode)
        world.run(30)
        assert world.ledger.current(blue) is None, mode
        assert esper.component_for_entity(blue, Position).x == 2.5


def test_a_defensive_unit_answers_fire_from_out_of_range_and_chases_briefly(make_world):
    # a scout (range 9) shoots a rifleman (range 6) from 8 tiles: the rifleman goes after it
    world = make_world(WIDE, two_teams(spawn("rifleman", 2, 2), spawn("scout", 10, 2), red_ai="scripted"),
                       controllers={0: "player"})
    blue, = units(world, 0)
    red, = units(world, 1)
    set_stance(world, blue, "defensive")
    chased = False
    for _ in range(200):
        world.step()
        act = world.ledger.current(blue)
        if act is not None and act.kind == "attack" and act.source == "reflex":
            chased = True
            assert world.decisions.latest("reflex", blue).trigger in (f"hit by {red}", "enemy in range")
            break
    assert chased
    rec = [r for r in world.decisions.records("reflex", blue) if r.action == "attack"]
    assert any(r.trigger == f"hit by {red}" for r in rec)


def test_hold_fires_only_from_its_place(make_world):
    world = arena(make_world, spawn("rifleman", 2, 2), spawn("rifleman", 7, 2))     # 5 tiles: in range
    blue, = units(world, 0)
    set_stance(world, blue, "hold")
    world.run(12)
    act = world.ledger.current(blue)
    assert act is not None and act.kind == "attack" and act.params.get("hold") == 1


def test_an_aggressive_chase_breaks_off_at_the_leash_and_walks_back(make_world):
    world = arena(make_world, spawn("rifleman", 2, 2), spawn("rifleman", 13, 2))
    blue, = units(world, 0)
    red, = units(world, 1)
    world.run(7)
    assert world.ledger.current(blue).kind == "attack"
    world.activate()
    rpos = esper.component_for_entity(red, Position)
    for _ in range(150):                                       # the enemy keeps backing off, out of range
        bpos = esper.component_for_entity(blue, Position)
        rpos.x = min(27.5, bpos.x + 7.0)
        world.step()
        world.activate()
        act = world.ledger.current(blue)
        if act is not None and act.kind == "move":
            break
    assert act is not None and act.kind == "move" and act.source == "reflex"
    assert world.decisions.latest("reflex", blue).trigger.startswith("leash")
    assert abs(act.params["x"] - 2.5) < 1e-9                  # back to where it stood


def test_an_order_comes_first(make_world):
    world = arena(make_world, spawn("rifleman", 2, 2), spawn("rifleman", 10, 2))
    blue, = units(world, 0)
    world.ledger.submit(0, "move", blue, params={"x": 2.5, "y": 3.5}, source="player")
    world.run(3)
    assert world.ledger.current(blue).source == "player"


def test_set_stance_goes_through_the_ledger(make_world):
    world = arena(make_world, spawn("rifleman", 2, 2), spawn("rifleman", 20, 2))
    blue, = units(world, 0)
    ok = world.ledger.submit(0, "set_stance", blue, params={"stance": "hold"}, source="player")
    bad = world.ledger.submit(0, "set_stance", blue, params={"stance": "berserk"}, source="player")
    world.run(2)
    assert esper.component_for_entity(blue, Stance).mode == "hold"
    assert ok.state == "confirmed" and bad.state == "rejected" and "stance must be one of" in bad.reason


def test_a_unit_type_default_stance_comes_from_content(content, make_world):
    assert content.units["worker"].stance == "passive" and content.units["rifleman"].stance == "aggressive"
    world = arena(make_world, spawn("worker", 2, 2), spawn("rifleman", 5, 2))
    blue, = units(world, 0)
    assert esper.component_for_entity(blue, Stance).mode == "passive"
    world.run(30)
    assert world.ledger.current(blue) is None


def test_explain_says_why_a_players_unit_fired_without_an_order(content, tmp_path):
    import subprocess
    import sys

    from game.world import World
    from saves.replay import ReplayRecorder
    path = tmp_path / "p.rtsreplay"
    world = World(content, "duel", 1, controllers={0: "player"})
    rec = ReplayRecorder(path, world)
    try:
        for _ in range(400):
            world.step()
            rec.after_tick(world)
        rec.close(world)
        fired = sorted({r.entity for r in world.decisions.all("reflex") if r.action == "attack"})
        assert fired                                   # the player's idle army fought back on its own
        eid = fired[0]
        first = min(r.tick for r in world.decisions.records("reflex", eid) if r.action == "attack")
    finally:
        world.close()
    proc = subprocess.run([sys.executable, "-m", "game.app.cli", "explain", str(path), "--tick", str(first + 1),
                           "--entity", str(eid)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "on its own (stance aggressive)" in proc.stdout and "-> attack" in proc.stdout, proc.stdout


def test_the_v_key_order_cycles_the_selected_units_stance(make_world):
    from game import orders
    world = arena(make_world, spawn("rifleman", 2, 2, count=2), spawn("rifleman", 25, 2))
    a, b = units(world, 0)
    orders.cycle_stance(world, [a, b])
    world.run(2)
    assert [esper.component_for_entity(e, Stance).mode for e in (a, b)] == ["defensive", "defensive"]


def _chase(make_world):
    """A player's defensive rifleman answering a scout's fire: a reflex takes it off its post (anchored)."""
    world = make_world(WIDE, two_teams(spawn("rifleman", 2, 2), spawn("scout", 10, 2), red_ai="scripted"),
                       controllers={0: "player"})
    blue, = units(world, 0)
    set_stance(world, blue, "defensive")
    return world, blue


def _off_its_post(make_world):
    """``_chase`` run until the reflex has taken the rifleman off its post: (world, the rifleman, its Stance)."""
    world, blue = _chase(make_world)
    for _ in range(200):
        world.step()
        world.activate()
        if esper.component_for_entity(blue, Stance).anchored:
            break
    post = esper.component_for_entity(blue, Stance)
    assert post.anchored
    return world, blue, post


def test_a_player_match_with_reflex_chases_replays_exactly(make_world, tmp_path):
    """A reflex's post (where it took the unit from) is the reflex's own state, like a brain's memory: a replay
    runs no decider, so it is saved beside the world, not hashed with it, and the replay verifies (it did not: the
    recorded hashes held the posts, the re-simulation never set them)."""
    from saves.replay import ReplayRecorder, read_replay, verify
    world, blue = _chase(make_world)
    path = tmp_path / "chase.rtsreplay"
    rec = ReplayRecorder(path, world, keyframe_every=30)
    posts = 0
    for _ in range(150):
        world.step()
        rec.after_tick(world)
        stance = esper.try_component(blue, Stance)
        posts += bool(stance is not None and stance.anchored)
    rec.close(world)
    assert posts > 0                                        # the reflex did take it off its post
    result = verify(read_replay(path), world.content)
    assert result.ok, result.details


def test_a_reflex_post_survives_a_snapshot(make_world, tmp_path):
    """Saved beside the world (decider state) and restored: the loaded match goes on exactly as the one that was
    never saved, the post included."""
    from game.synchash import sync_hash
    from saves.snapshot import load_snapshot, save_snapshot
    world, blue, post = _off_its_post(make_world)
    saved = (post.anchor_x, post.anchor_y)
    save_snapshot(world, tmp_path / "chase.rtssave")
    loaded = load_snapshot(tmp_path / "chase.rtssave", world.content)
    try:
        loaded.activate()
        again = esper.component_for_entity(blue, Stance)
        assert (again.anchored, again.anchor_x, again.anchor_y) == (True, *saved)
        loaded.run(60)
        world.run(60)
        assert sync_hash(loaded) == sync_hash(world)
        loaded.activate()
        a = esper.try_component(blue, Stance)
        world.activate()
        b = esper.try_component(blue, Stance)
        assert (a is None) == (b is None) and (a is None or (a.anchored, a.anchor_x, a.anchor_y) ==
                                                 (b.anchored, b.anchor_x, b.anchor_y))
    finally:
        loaded.close()


def test_a_snapshot_written_when_the_post_was_hashed_still_loads(make_world, tmp_path, monkeypatch):
    """Before the post was decider state, a snapshot held it in its world part (and its hash): such a file loads,
    the post kept, and the world hashes as one saved now does."""
    import components.columns as columns
    import game.state as state
    from game.synchash import sync_hash
    from saves.container import frame
    from saves.snapshot import SNAPSHOT_MAGIC, load_snapshot, snapshot_state
    world, blue, post = _off_its_post(make_world)
    with monkeypatch.context() as old_writer:            # the writer before: no decider fields
        old_writer.setattr(columns, "DECIDER_FIELDS", {})
        old_writer.setattr(state, "DECIDER_FIELDS", {})
        old = snapshot_state(world)
    assert "Stance" not in old["deciders"]["fields"] and old["sync_hash"] != snapshot_state(world)["sync_hash"]
    path = tmp_path / "old.rtssave"
    path.write_bytes(SNAPSHOT_MAGIC + frame(b"S", old))
    loaded = load_snapshot(path, world.content)
    try:
        loaded.activate()
        again = esper.component_for_entity(blue, Stance)
        assert (again.anchored, again.anchor_x, again.anchor_y) == (True, post.anchor_x, post.anchor_y)
        assert sync_hash(loaded) == sync_hash(world)
    finally:
        loaded.close()
