"""The game and replay windows under a real X server (Xvfb): pixels and input, not just 'no exception'."""
import os

import pytest

from tests.conftest import require_display  # noqa: E402

require_display()

pytestmark = pytest.mark.window


@pytest.fixture
def window(content):
    import arcade  # noqa: F401  (only imported when a display exists)
    from game.app.views.play import PlayWindow
    win = PlayWindow(content, "skirmish", 1, player_team=0)
    yield win
    win.close()


def frames(win, n):
    for _ in range(n):
        win.dispatch_events()
        win.on_update(1 / 60)
        win.on_draw()
        win.flip()


def send(win, *event):
    """Queue an input event the way the OS would, then let the window's event loop deliver it."""
    win.dispatch_event(*event)
    win.dispatch_events()


def screenshot(win):
    import arcade
    win.on_draw()
    return arcade.get_image(0, 0, win.width, win.height).convert("RGB")


def count_colour(img, rgb, tol=12, box=None):
    r0, g0, b0 = rgb
    if box is not None:
        img = img.crop(box)
    return sum(1 for r, g, b in img.getdata() if abs(r - r0) <= tol and abs(g - g0) <= tol and abs(b - b0) <= tol)


def screen_of(win, x, y):
    """Screen pixel of world point (x, y)."""
    from game.app.views.scene import TILE
    sx, sy = win.camera.project((x * TILE, (win.world.tilemap.height - y) * TILE))
    return int(sx), int(sy)


def test_team_colours_are_drawn(window):
    window.scene.set_view_team(None)                       # everything, not Blue's view under the fog of war
    frames(window, 30)
    window.scene.centre_on(window.world.tilemap.width / 2, window.world.tilemap.height / 2)
    img = screenshot(window)
    blue = count_colour(img, window.team_colors[0])
    red = count_colour(img, window.team_colors[1])
    assert blue > 200 and red > 200, (blue, red)
    assert count_colour(img, (24, 24, 28), tol=2) > 1000   # walls


def test_simulation_keeps_30hz_whatever_the_frame_rate(window):
    frames(window, 60)                   # one second of 60 fps frames
    assert window.world.tick == 30
    for _ in range(10):                  # ten frames of 0.1 s: still 30 ticks a second
        window.on_update(0.1)
    assert window.world.tick == 60


def select_rifle_squad(window):
    import arcade
    frames(window, 2)
    sx0, sy0 = screen_of(window, 2, 8)
    sx1, sy1 = screen_of(window, 11, 16)
    send(window, "on_mouse_press", sx0, sy0, arcade.MOUSE_BUTTON_LEFT, 0)
    send(window, "on_mouse_drag", sx1, sy1, sx1 - sx0, sy1 - sy0, arcade.MOUSE_BUTTON_LEFT, 0)
    send(window, "on_mouse_release", sx1, sy1, arcade.MOUSE_BUTTON_LEFT, 0)


def positions(window, eids):
    import esper
    from components import Position
    window.world.activate()
    return {e: (esper.component_for_entity(e, Position).x, esper.component_for_entity(e, Position).y) for e in eids}


def test_box_select_then_right_click_moves_units(window):
    import arcade
    select_rifle_squad(window)
    assert len(window.selected) == 10
    start = positions(window, window.selected)
    tx, ty = screen_of(window, 20, 12)
    send(window, "on_mouse_press", tx, ty, arcade.MOUSE_BUTTON_RIGHT, 0)
    frames(window, 60)
    now = positions(window, start)
    assert all(now[e][0] > start[e][0] + 2.0 for e in start)
    img = screenshot(window)
    assert count_colour(img, (255, 255, 120), tol=10) > 20   # selection rings are drawn


def test_control_groups_attack_move_and_stop_from_the_keyboard(window):
    import arcade
    select_rifle_squad(window)
    squad = list(window.selected)
    send(window, "on_key_press", arcade.key.KEY_1, arcade.key.MOD_CTRL)
    cx, cy = screen_of(window, 40, 40)                       # click empty ground: selection cleared
    send(window, "on_mouse_press", cx, cy, arcade.MOUSE_BUTTON_LEFT, 0)
    send(window, "on_mouse_release", cx, cy, arcade.MOUSE_BUTTON_LEFT, 0)
    assert window.selected == []
    send(window, "on_key_press", arcade.key.KEY_1, 0)
    assert window.selected == squad
    start = positions(window, squad)
    send(window, "on_key_press", arcade.key.A, 0)              # attack-move: A, then a left click
    assert window.attack_move_armed
    tx, ty = screen_of(window, 22, 14)
    send(window, "on_mouse_press", tx, ty, arcade.MOUSE_BUTTON_LEFT, 0)
    frames(window, 45)
    assert {window.world.ledger.current(e).kind for e in squad} == {"attack_move"}
    moved = positions(window, squad)
    assert all(moved[e][0] > start[e][0] + 1.0 for e in squad)
    send(window, "on_key_press", arcade.key.S, 0)              # stop
    frames(window, 2)
    assert all(window.world.ledger.current(e) is None for e in squad)
    still = positions(window, squad)
    frames(window, 20)
    assert positions(window, squad) == still


def test_inspector_shows_the_mind_of_a_clicked_enemy(window):
    import arcade
    import esper
    from components import BrainState, Team
    window.clock.speed = 8.0
    frames(window, 60)
    window.world.activate()
    enemy = min(e for e, _b in esper.get_component(BrainState) if esper.component_for_entity(e, Team).team == 1)
    (ex, ey), = positions(window, [enemy]).values()
    window.scene.centre_on(ex, ey)
    frames(window, 1)
    send(window, "on_key_press", arcade.key.I, 0)
    sx, sy = screen_of(window, ex, ey)
    send(window, "on_mouse_press", sx, sy, arcade.MOUSE_BUTTON_LEFT, 0)
    send(window, "on_mouse_release", sx, sy, arcade.MOUSE_BUTTON_LEFT, 0)
    assert window.show_inspector and window.inspected == enemy
    img = screenshot(window)
    panel = count_colour(img, (12, 12, 16), tol=6, box=(window.width - 330, 0, window.width, window.height))
    assert panel > 0.5 * 330 * window.height                   # the panel covers the right edge
    text = count_colour(img, (235, 235, 235), tol=30, box=(window.width - 330, 0, window.width, window.height))
    assert text > 300                                          # and says something
    assert count_colour(img, (255, 60, 220), tol=20) > 20      # the inspected unit's ring (and title)


def test_start_menu_then_the_match(content):
    import arcade
    from game.app.views.play import PlayWindow
    win = PlayWindow(content, None, 1, None)
    try:
        frames(win, 2)
        img = screenshot(win)
        assert win.world is None and count_colour(img, (235, 235, 235), tol=30) > 500
        send(win, "on_key_press", arcade.key.DOWN, 0)              # side
        send(win, "on_key_press", arcade.key.RIGHT, 0)             # Red
        send(win, "on_key_press", arcade.key.DOWN, 0)              # difficulty
        send(win, "on_key_press", arcade.key.RIGHT, 0)             # hard
        send(win, "on_key_press", arcade.key.ENTER, 0)
        assert win.world is not None and win.player_team == 1
        assert win.world.commanders == ["portfolio", ""] and win.world.controllers[1] == "player"
        frames(win, 30)
        assert win.world.tick == 15
    finally:
        win.close()


def test_replay_view_plays_pauses_and_scrubs(content, tmp_path):
    import arcade
    from game.app.views.replay_view import ReplayWindow
    from game.world import World
    from saves.replay import ReplayRecorder, read_replay
    world = World(content, "skirmish", 4)
    rec = ReplayRecorder(tmp_path / "r.rtsreplay", world)
    for _ in range(600):
        world.step()
        rec.after_tick(world)
    rec.close(world)
    world.close()
    win = ReplayWindow(content, read_replay(tmp_path / "r.rtsreplay"))
    try:
        first = screenshot(win)
        frames(win, 30)
        assert win.tick == 15                                      # playing: 30 ticks a second
        assert screenshot(win).tobytes() != first.tobytes()
        send(win, "on_key_press", arcade.key.SPACE, 0)             # pause
        frames(win, 1)
        before = screenshot(win)
        frames(win, 30)
        assert win.tick == 15
        assert screenshot(win).tobytes() == before.tobytes()       # nothing moves while paused
        x, y, w, h = win.timeline_rect()
        send(win, "on_mouse_press", int(x + w * 0.75), int(y + h / 2), arcade.MOUSE_BUTTON_LEFT, 0)
        send(win, "on_mouse_release", int(x + w * 0.75), int(y + h / 2), arcade.MOUSE_BUTTON_LEFT, 0)
        assert abs(win.tick - 450) <= 2                            # scrubbed to three quarters
        after = screenshot(win)
        assert after.tobytes() != before.tobytes()
        band = (int(x), win.height - int(y + h), int(x + w), win.height - int(y))     # PIL counts rows from the top
        assert count_colour(after, (120, 180, 255), tol=10, box=band) > 0.6 * w * 10     # the bar is 3/4 full
    finally:
        win.close()


def test_watch_shows_a_broken_file_on_screen_and_keeps_playing(content, tmp_path):
    from content.loader import load_content
    from game.app.views.play import PlayWindow
    from tests.conftest import write_mod
    mod = write_mod(tmp_path / "mod", {"units/scout.toml": 'id = "scout"\nspeed = 5.0\n'})
    win = PlayWindow(load_content([mod]), "skirmish", 1, None, watch=True, mods=[mod])
    try:
        frames(win, 10)
        old = win.world.content
        write_mod(mod, {"units/scout.toml": 'id = "scout"\nspeed = "fast"\n'})
        path = mod / "units" / "scout.toml"
        import os
        import time
        os.utime(path, ns=(time.time_ns(), time.time_ns() + 10 ** 9))
        frames(win, 40)                                        # the watcher looks every half second
        assert win.world.content is old
        assert f"{path}:2: speed: Input should be a valid number" in win.reload_error
        tick = win.world.tick
        frames(win, 30)
        assert win.world.tick > tick                           # the game goes on with the old content
        img = screenshot(win)
        red = count_colour(img, (255, 110, 90), tol=40, box=(0, 60, win.width, 100))
        assert red > 100                                       # the error is on screen
        write_mod(mod, {"units/scout.toml": 'id = "scout"\nspeed = 5.5\n'})
        os.utime(path, ns=(time.time_ns(), time.time_ns() + 2 * 10 ** 9))
        frames(win, 40)
        assert win.reload_error == "" and win.world.content is not old
        assert win.world.content.units["scout"].speed == 5.5
    finally:
        win.close()


def test_a_played_match_is_recorded_and_can_be_explained(content, tmp_path):
    import arcade
    import json
    import subprocess
    import sys
    from game.app.views.play import PlayWindow
    rec = tmp_path / "last.rtsreplay"
    win = PlayWindow(content, "skirmish", 1, player_team=0, record=str(rec))
    frames(win, 240)                                           # four seconds of play
    for key in (arcade.key.ESCAPE, arcade.key.DOWN, arcade.key.DOWN, arcade.key.ENTER, arcade.key.UP,
                arcade.key.ENTER):                             # Esc, Quit, Yes: the recording is finished
        win.on_key_press(key, 0)
    assert rec.exists()
    out = subprocess.run([sys.executable, "-m", "game.app.cli", "replay", str(rec), "--to", "100", "--json"],
                         capture_output=True, text=True)
    units = json.loads(out.stdout)["units"]
    npc = next(u["entity"] for u in units if u["team"] == 1)
    why = subprocess.run([sys.executable, "-m", "game.app.cli", "explain", str(rec), "--tick", "100", "--entity", str(npc)],
                         capture_output=True, text=True)
    assert why.returncode == 0 and "candidates:" in why.stdout, why.stderr


def test_an_unwritable_recording_path_only_warns(content, tmp_path, capsys):
    from game.app.views.play import PlayWindow
    win = PlayWindow(content, "duel", 1, player_team=0, record=str(tmp_path / "missing" / "dir" / "r.rtsreplay"))
    try:
        frames(win, 5)
        assert win.recorder is None and win.world.tick > 0
    finally:
        win.close()
    assert "cannot record to" in capsys.readouterr().err


def test_a_terminated_game_saves_its_replay(tmp_path):
    """`rts play` stopped by SIGTERM (or Ctrl+C) ends as the close button does: the replay so far is written (no
    .part file left) and verifies, and the command says it was interrupted."""
    import signal
    import subprocess
    import sys
    import time
    rec = tmp_path / "game.rtsreplay"
    proc = subprocess.Popen([sys.executable, "-m", "game.app.cli", "play", "--scenario", "skirmish", "--spectate",
                             "--mute", "--record", str(rec)], stderr=subprocess.PIPE, text=True)
    try:
        part = tmp_path / "game.rtsreplay.part"
        deadline = time.monotonic() + 60
        while not part.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert part.exists(), "the game did not start recording"
        time.sleep(2.0)                           # some ticks are played and recorded
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "interrupted" in err and "replay saved" in err, err
    assert rec.exists() and not part.exists()
    verify = subprocess.run([sys.executable, "-m", "game.app.cli", "replay", str(rec), "--verify"],
                            capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0 and "verified" in verify.stdout + verify.stderr, verify.stderr


def test_a_paused_match_holds_its_effects_still(window):
    """Space pauses the match and its fading effects with it (a body fades again once the match runs on), as in
    any RTS; before, the effects aged by the wall clock while paused."""
    import arcade
    import esper
    from components import Position, Team
    win = window
    frames(win, 2)
    win.world.activate()
    x, y = next((p.x, p.y) for _e, (p, t) in sorted(esper.get_components(Position, Team)) if t.team == 0)
    send(win, "on_key_press", arcade.key.SPACE, 0)
    send(win, "on_key_release", arcade.key.SPACE, 0)
    assert win.clock.paused
    win.scene.effects.add([("death", 0, 1, "rifleman", x + 1.0, y, 0, 0)])   # a body beside our first unit
    frames(win, 1)
    before = screenshot(win)
    frames(win, 120)                                         # two seconds: longer than a body lasts
    assert screenshot(win).tobytes() == before.tobytes()
    assert win.scene.effects.deaths
    send(win, "on_key_press", arcade.key.SPACE, 0)
    send(win, "on_key_release", arcade.key.SPACE, 0)
    frames(win, 120)
    assert not win.scene.effects.deaths                      # running again, it faded
