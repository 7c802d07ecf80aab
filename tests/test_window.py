"""The play window under a real X server (Xvfb): pixels and input, not just 'no exception'."""
import os

import pytest

if not os.environ.get("DISPLAY"):
    if os.environ.get("CI"):
        pytest.fail("window tests need a display in CI: run pytest under xvfb-run", pytrace=False)
    pytest.skip("no display (run under xvfb-run)", allow_module_level=True)

pytestmark = pytest.mark.window


@pytest.fixture
def window(content):
    import arcade  # noqa: F401  (only imported when a display exists)
    from game.views.play import PlayWindow
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


def count_colour(img, rgb, tol=12):
    r0, g0, b0 = rgb
    return sum(1 for r, g, b in img.getdata() if abs(r - r0) <= tol and abs(g - g0) <= tol and abs(b - b0) <= tol)


def test_team_colours_are_drawn(window):
    frames(window, 30)
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


def test_box_select_then_right_click_moves_units(window):
    import arcade
    import esper
    from components import Position
    world = window.world
    frames(window, 2)
    # drag a box around Blue's rifle squad (spawned around tile (6, 12))
    sx0, sy0 = window.camera.project((2 * 16, (world.tilemap.height - 8) * 16))
    sx1, sy1 = window.camera.project((11 * 16, (world.tilemap.height - 16) * 16))
    send(window, "on_mouse_press", int(sx0), int(sy0), arcade.MOUSE_BUTTON_LEFT, 0)
    send(window, "on_mouse_drag", int(sx1), int(sy1), int(sx1 - sx0), int(sy1 - sy0), arcade.MOUSE_BUTTON_LEFT, 0)
    send(window, "on_mouse_release", int(sx1), int(sy1), arcade.MOUSE_BUTTON_LEFT, 0)
    assert len(window.selected) == 10
    world.activate()
    start = {e: (esper.component_for_entity(e, Position).x, esper.component_for_entity(e, Position).y)
             for e in window.selected}
    tx, ty = window.camera.project((20 * 16, (world.tilemap.height - 12) * 16))
    send(window, "on_mouse_press", int(tx), int(ty), arcade.MOUSE_BUTTON_RIGHT, 0)
    frames(window, 60)
    moved = [e for e in start if esper.component_for_entity(e, Position).x > start[e][0] + 2.0]
    assert len(moved) == 10
    img = screenshot(window)
    assert count_colour(img, (255, 255, 120), tol=10) > 20   # selection rings are drawn
