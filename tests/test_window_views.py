"""What the player sees and hears (issue 14): fog of war, tracers, order markers, the Esc menu, F1 help, the start
menu by keys and clicks, the replay viewer's team views, and silence without an audio device. Keys and buttons
are pressed AND released, as the OS sends them; pixels of screenshots are checked."""

import esper
import pytest

from tests.conftest import require_display  # noqa: E402

require_display()

from components import Position, Team, UnitKind  # noqa: E402
from tests.test_window import count_colour, frames, screen_of, screenshot, select_rifle_squad, send  # noqa: E402

pytestmark = pytest.mark.window


@pytest.fixture
def window(content):
    from game.app.views.play import PlayWindow
    win = PlayWindow(content, "skirmish", 1, player_team=0, mute=True)
    yield win
    win.close()


def press(win, symbol, modifiers=0):
    send(win, "on_key_press", symbol, modifiers)
    send(win, "on_key_release", symbol, modifiers)


def click(win, x, y, button=None, modifiers=0):
    import arcade
    button = arcade.MOUSE_BUTTON_LEFT if button is None else button
    send(win, "on_mouse_press", x, y, button, modifiers)
    send(win, "on_mouse_release", x, y, button, modifiers)


def pixel(img, x, y):
    return img.getpixel((x, img.height - 1 - y))


def test_an_unexplored_cell_is_black_and_on_the_minimap_too(window):
    frames(window, 10)
    world = window.world
    explored = world.fog.grid(0, explored=True)
    ys, xs = (~explored).nonzero()
    assert len(xs), "the whole map is explored at the start?"
    # the unexplored tile nearest the view's centre that is not a wall (walls are dark already)
    cx, cy = window.to_world(window.width / 2, window.height / 2)
    rows = world.tilemap.rows
    tx, ty = min(((x, y) for x, y in zip(xs, ys) if rows[y][x] != "#"),
                 key=lambda p: (p[0] - cx) ** 2 + (p[1] - cy) ** 2)
    window.scene.centre_on(tx + 0.5, ty + 0.5)
    img = screenshot(window)
    sx, sy = screen_of(window, tx + 0.5, ty + 0.5)
    assert max(pixel(img, sx, sy)) <= 12, pixel(img, sx, sy)
    # the same cell on the minimap
    mx, my, _w, _h = window.scene.minimap_rect()
    s = window.scene.MINIMAP_SCALE
    assert max(pixel(img, int(mx + (tx + 0.5) * s), int(my + (world.tilemap.height - ty - 0.5) * s))) <= 12
    # with the fog off for the view (a spectator) the same cell shows its floor
    window.scene.set_view_team(None)
    window.scene.sync(())
    assert max(pixel(screenshot(window), sx, sy)) > 12


def test_an_enemy_outside_vision_is_not_drawn(window):
    frames(window, 10)
    world = window.world
    world.activate()
    hidden = [(e, p) for e, (p, t, _k) in esper.get_components(Position, Team, UnitKind)
              if t.team == 1 and not world.fog.sees(0, p.x, p.y)]
    assert hidden
    eid, pos = hidden[0]
    window.scene.centre_on(pos.x, pos.y)
    red = window.team_colors[1]
    img = screenshot(window)
    sx, sy = screen_of(window, pos.x, pos.y)
    box = (sx - 40, img.height - sy - 40, sx + 40, img.height - sy + 40)
    assert count_colour(img, red, box=box) == 0
    window.scene.set_view_team(None)                          # seen by a spectator: there it is
    window.scene.sync(())
    assert count_colour(screenshot(window), red, box=box) > 10


def test_tracers_appear_in_a_fight(window):
    from game import orders
    from game.app.views.palette import TRACER
    frames(window, 2)
    world = window.world
    world.activate()
    mine = sorted(e for e, (t, _k) in esper.get_components(Team, UnitKind) if t.team == 0)
    orders.attack_move(world, mine, 40, 15)
    window.clock.speed = 8
    for _ in range(400):
        frames(window, 1)
        shots = window.scene.effects.shots
        if len(shots) >= 3:
            break
    assert len(shots) >= 3, "no fight within 400 frames"
    xs, ys = [s[1] for s in shots], [s[2] for s in shots]
    window.camera.position = (sum(xs) / len(xs), sum(ys) / len(ys))
    window.clock.paused = True
    shown = count_colour(screenshot(window), TRACER, tol=20)
    assert shown > 10
    frames(window, 30)                                        # paused: they hold still
    assert count_colour(screenshot(window), TRACER, tol=20) == shown
    effects = window.scene.effects
    effects.update(effects.TRACER_S + 0.01)                   # their time passed: they are gone
    assert count_colour(screenshot(window), TRACER, tol=20) == 0


def test_a_right_click_leaves_a_move_marker(window):
    import arcade
    from game.app.views.palette import MOVE_MARK
    select_rifle_squad(window)
    assert window.selected
    tx, ty = screen_of(window, 20, 12)
    before = count_colour(screenshot(window), MOVE_MARK, tol=20, box=(tx - 20, window.height - ty - 20,
                                                                        tx + 20, window.height - ty + 20))
    click(window, tx, ty, arcade.MOUSE_BUTTON_RIGHT)
    frames(window, 2)
    box = (tx - 20, window.height - ty - 20, tx + 20, window.height - ty + 20)
    assert count_colour(screenshot(window), MOVE_MARK, tol=20, box=box) > before + 10
    frames(window, 60)
    assert count_colour(screenshot(window), MOVE_MARK, tol=20, box=box) <= before


def test_esc_opens_the_menu_which_pauses_resumes_and_restarts_after_asking(window):
    import arcade
    k = arcade.key
    frames(window, 30)
    press(window, k.ESCAPE)
    assert window.game_menu is not None and window.world is not None
    tick = window.world.tick
    frames(window, 30)
    assert window.world.tick == tick                           # paused behind the menu
    img = screenshot(window)
    from game.app.views import palette
    assert count_colour(img, palette.BUTTON_HOT, tol=4) > 2000   # the highlighted item
    press(window, k.DOWN)                                      # Restart
    press(window, k.ENTER)
    assert window.game_menu.confirm == "Restart" and window.game_menu.row == 1
    press(window, k.ENTER)                                     # "No"
    assert window.game_menu.confirm is None and window.world.tick == tick
    press(window, k.ESCAPE)                                    # resume
    assert window.game_menu is None
    frames(window, 30)
    assert window.world.tick == tick + 15
    press(window, k.ESCAPE)
    press(window, k.DOWN)
    press(window, k.ENTER)
    press(window, k.UP)                                        # "Yes"
    press(window, k.ENTER)
    assert window.game_menu is None and window.world.tick == 0  # a new match
    # quitting by clicks: Quit, then Yes
    press(window, k.ESCAPE)
    menu = window.game_menu
    bx, by, bw, bh = menu.item_box(2)
    click(window, bx + bw / 2, by + bh / 2)
    assert menu.confirm == "Quit"
    bx, by, bw, bh = menu.item_box(0)
    closed = []
    window.close = lambda: closed.append(True)
    click(window, bx + bw / 2, by + bh / 2)
    assert closed == [True]


def test_f1_shows_the_keys(window):
    import arcade
    frames(window, 2)
    before = count_colour(screenshot(window), (255, 255, 120), tol=10)
    press(window, arcade.key.F1)
    assert window.show_help
    after = count_colour(screenshot(window), (255, 255, 120), tol=10)
    assert after > before + 500                                # the keys, in yellow
    press(window, arcade.key.F1)
    assert not window.show_help


def test_the_start_menu_by_arrow_keys_and_by_clicks(content):
    import arcade
    from game.app.views.play import PlayWindow
    k = arcade.key
    win = PlayWindow(content, None, 1, None, mute=True)
    try:
        frames(win, 2)
        menu = win.menu
        press(win, k.DOWN)                                     # side
        press(win, k.RIGHT)                                    # Red
        assert menu.row == 1 and menu.value("side") == "Red"
        bx, by, bw, bh = menu.row_box(2)                       # click the difficulty row's right half: on
        before = menu.choice["difficulty"]
        click(win, bx + bw * 0.75, by + bh / 2)
        assert menu.row == 2 and menu.choice["difficulty"] == (before + 1) % 3
        click(win, bx + bw * 0.25, by + bh / 2)                # left half: back
        assert menu.choice["difficulty"] == before
        assert win.world is None                               # a click on a row does not start
        bx, by, bw, bh = menu.row_box(len(menu.rows))          # Start
        click(win, bx + bw / 2, by + bh / 2)
        assert win.world is not None and win.player_team == 1
        frames(win, 5)
        # as Red, the camera starts on Red's army, not the map's centre (zoomed in: the map is one screen wide)
        win.camera.zoom = 2.0
        win._start_camera()
        win.world.activate()
        reds = [p for _e, (p, t, _k) in esper.get_components(Position, Team, UnitKind) if t.team == 1]
        x, y = win.to_world(win.width / 2, win.height / 2)
        mx = sum(p.x for p in reds) / len(reds)
        assert abs(x - mx) < abs(win.world.tilemap.width / 2 - mx)
    finally:
        win.close()


def test_panning_stays_on_the_map_and_zoom_keeps_the_cursor_point(window):
    import arcade
    frames(window, 2)
    send(window, "on_key_press", arcade.key.LEFT, 0)
    frames(window, 240)                                        # four seconds of panning left
    send(window, "on_key_release", arcade.key.LEFT, 0)
    x, _y = window.to_world(0, window.height / 2)
    assert -0.01 <= x < 1.0                                    # the left edge of the map, not black beyond
    cursor = (900, 500)
    before = window.to_world(*cursor)
    send(window, "on_mouse_scroll", *cursor, 0, 3)
    after = window.to_world(*cursor)
    assert abs(before[0] - after[0]) < 0.6 and abs(before[1] - after[1]) < 0.6


def test_a_double_tapped_group_key_jumps_to_the_group(window):
    import arcade
    select_rifle_squad(window)
    press(window, arcade.key.KEY_1, arcade.key.MOD_CTRL)
    window.camera.zoom = 2.0                                   # the map is one screen wide at zoom 1
    window.scene.centre_on(60, 30)
    window.clamp_camera()
    far = window.camera.position
    press(window, arcade.key.KEY_1)
    assert window.camera.position == far                       # one tap selects
    press(window, arcade.key.KEY_1)
    assert window.camera.position != far                       # two jump there
    x, y = window.to_world(window.width / 2, window.height / 2)
    assert x <= 20.01                                          # (clamped: the view stays on the map)


def test_the_replay_viewer_cycles_whose_view(content, tmp_path):
    import arcade
    from game.app.views.replay_view import ReplayWindow
    from game.world import World
    from saves.replay import ReplayRecorder, read_replay
    world = World(content, "skirmish", 4)
    rec = ReplayRecorder(tmp_path / "r.rtsreplay", world)
    for _ in range(60):
        world.step()
        rec.after_tick(world)
    rec.close(world)
    world.close()
    win = ReplayWindow(content, read_replay(tmp_path / "r.rtsreplay"), mute=True)
    try:
        frames(win, 2)
        dark = lambda img: count_colour(img, (0, 0, 0), tol=3)  # noqa: E731
        everything = dark(screenshot(win))
        seen = []
        for _ in range(3):
            press(win, arcade.key.F)
            seen.append(win.scene.view_team)
            frames(win, 1)
            if win.scene.view_team is not None:
                assert dark(screenshot(win)) > everything + 10000   # the fog: black where that team never looked
        assert seen == [0, 1, None]
    finally:
        win.close()


def test_sound_never_fails_without_an_audio_device():
    from game.app.views.sound import Sounds
    sounds = Sounds()
    for name in ("shot", "hit", "death", "ack", "alert"):
        sounds.update(1.0)
        sounds.play(name)                                      # plays, or turns sound off quietly: never raises
    sounds.update(1.0)
    sounds.play("shot")
    assert sounds.play("shot") is False                        # rate-limited (or off)
    assert Sounds(muted=True).play("alert") is False


@pytest.mark.parametrize("name", ["game.app.views.scene", "game.app.views.play", "game.app.views.sound"])
def test_the_views_docstring_examples(name):
    import doctest
    import importlib
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result


def test_the_inspector_never_covers_the_unit_it_inspects(window):
    import arcade
    from game.app.views.inspector import WIDTH
    frames(window, 2)
    world = window.world
    world.activate()
    mine = sorted(e for e, (t, _k) in esper.get_components(Team, UnitKind) if t.team == 0)
    window.camera.zoom = 2.0
    pos = esper.component_for_entity(mine[0], Position)
    window.scene.centre_on(pos.x - 15, pos.y)                  # the unit near the right edge of the screen
    sx, sy = screen_of(window, pos.x, pos.y)
    assert sx > window.width - WIDTH
    click(window, sx, sy)
    press(window, arcade.key.I)
    frames(window, 1)
    assert window.show_inspector and window.inspected == mine[0]
    sx, _ = screen_of(window, pos.x, pos.y)
    assert sx < window.width - WIDTH - 20


def test_a_unit_standing_still_shows_its_hurt_and_selection_bars_as_they_change(window):
    """The scene passes over a unit whose place, health, sight and selection are as last frame: a unit that stands
    still still gets its health bar when hurt, the low colour when badly hurt, its ammo bar while selected, and
    loses them when healed and deselected (pixels of the window)."""
    from components import Ammo, Health
    from game.app.views.palette import AMMO, HP, HP_LOW
    window.clock.paused = True
    frames(window, 3)
    world = window.world
    world.activate()
    eid, pos = next((e, p) for e, (p, t, _k) in sorted(esper.get_components(Position, Team, UnitKind))
                    if t.team == 0)
    window.scene.centre_on(pos.x, pos.y)
    health = esper.component_for_entity(eid, Health)
    sx, sy = screen_of(window, pos.x, pos.y)

    def bars(selected=()):
        window.selected = list(selected)
        window.scene.sync(selected)
        img = screenshot(window)
        box = (sx - 14, img.height - sy - 22, sx + 14, img.height - sy)      # the bars above the unit
        return count_colour(img, HP, box=box), count_colour(img, HP_LOW, box=box), count_colour(img, AMMO, box=box)

    assert bars() == (0, 0, 0)
    full = health.hp
    health.hp = 0.6 * full
    hp, low, ammo = bars()
    assert hp > 8 and low == 0 and ammo == 0
    health.hp = 0.2 * full
    hp, low, ammo = bars()
    assert hp == 0 and low > 3 and ammo == 0
    hp, low, ammo = bars([eid])
    assert low > 3 and ammo > 3
    clip = esper.component_for_entity(eid, Ammo)
    clip.clip = clip.clip_size // 4                 # selected and standing still: its ammo bar follows the clip
    _hp, _low, quarter = bars([eid])
    assert 0 < quarter < ammo * 0.6
    health.hp = full
    hp, low, ammo = bars([eid])                     # selected: the health bar shows at full health too
    assert hp > 8 and ammo > 3
    assert bars() == (0, 0, 0)


def test_the_minimap_dots_every_unit_the_view_sees_and_no_hidden_enemy(window):
    """Minimap dots in the team colours: under Blue's view a Red unit Blue does not see has no dot where it
    stands, and every Blue unit has one; a spectator's minimap dots that Red unit (pixels of the window)."""
    frames(window, 10)
    world = window.world
    world.activate()
    mx, my, _w, _h = window.scene.minimap_rect()
    s = window.scene.MINIMAP_SCALE

    def dot(img, x, y, rgb):
        px, py = int(mx + x * s), int(my + (world.tilemap.height - y) * s)
        box = (px - 2, img.height - py - 2, px + 3, img.height - py + 3)
        return count_colour(img, rgb, box=box)

    units = [(p.x, p.y, t.team, world.fog.sees(0, p.x, p.y))
             for _e, (p, t, _k) in sorted(esper.get_components(Position, Team, UnitKind))]
    hidden = [(x, y) for x, y, team, seen in units if team == 1 and not seen
              and all(abs(x - ox) > 3 or abs(y - oy) > 3 for ox, oy, ot, _s in units if ot == 0)]
    assert hidden
    red, blue = window.team_colors[1], window.team_colors[0]
    img = screenshot(window)
    assert all(dot(img, x, y, blue) > 0 for x, y, team, _s in units if team == 0)
    assert all(dot(img, x, y, red) == 0 for x, y in hidden)
    window.scene.set_view_team(None)
    img = screenshot(window)
    assert all(dot(img, x, y, red) > 0 for x, y in hidden)


def test_a_door_is_drawn_in_the_colour_of_its_state_as_it_changes(window):
    """Doors are recoloured only when their state changes: a door shut and locked while nothing else moves is
    drawn closed, then locked, then open again (pixels of the window)."""
    from components import Door
    from game.app.views.palette import DOOR
    window.clock.paused = True
    window.scene.set_view_team(None)
    frames(window, 2)
    world = window.world
    world.activate()
    eid, door = sorted(esper.get_component(Door))[0]
    window.scene.centre_on(door.tx + 0.5, door.ty + 0.5)
    sx, sy = screen_of(window, door.tx + 0.5, door.ty + 0.5)

    def pixels(state):
        window.scene.sync(())
        img = screenshot(window)
        return count_colour(img, DOOR[state], tol=6, box=(sx - 6, img.height - sy - 6, sx + 6, img.height - sy + 6))

    first = door.state
    assert pixels(first) > 50
    for state in [s for s in ("closed", "locked", "open") if s != first] + [first]:
        door.state = state
        assert pixels(state) > 50, state
