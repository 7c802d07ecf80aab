"""The economy in the game window under a real X server (Xvfb): every input is a press and a release, and what
the player sees is checked in the screenshot's pixels."""

import pytest

from tests.conftest import require_display  # noqa: E402

require_display()

import esper  # noqa: E402

from components import Building, Health, Position, Rally, Team, UnitKind, Worker  # noqa: E402
from game.economy import available, stockpile  # noqa: E402
from tests.test_window import count_colour, frames, screen_of, screenshot, send  # noqa: E402

pytestmark = pytest.mark.window

RESOURCE = (130, 205, 245)
GHOST_FREE = (60, 220, 90)
GHOST_BLOCKED = (230, 50, 40)
SELECT = (255, 255, 120)


@pytest.fixture
def window(content):
    from game.app.views.play import PlayWindow
    win = PlayWindow(content, "econ_duel", 1, player_team=0)
    win.camera.zoom = 1.5
    win.scene.centre_on(12, 10)                 # Blue's base (headquarters on tiles 6..8) and room to build
    frames(win, 2)
    yield win
    win.close()


def click(win, x, y, button=None, modifiers=0):
    import arcade
    button = arcade.MOUSE_BUTTON_LEFT if button is None else button
    send(win, "on_mouse_motion", x, y, 0, 0)
    send(win, "on_mouse_press", x, y, button, modifiers)
    send(win, "on_mouse_release", x, y, button, modifiers)


def right_click(win, x, y):
    import arcade
    click(win, x, y, arcade.MOUSE_BUTTON_RIGHT)


def key(win, symbol, modifiers=0):
    send(win, "on_key_press", symbol, modifiers)
    send(win, "on_key_release", symbol, modifiers)


def box(win, x0, y0, x1, y1):
    """The screen box (PIL's rows from the top) of the world rectangle [x0, x1) x [y0, y1)."""
    sx0, sy0 = screen_of(win, x0, y0)
    sx1, sy1 = screen_of(win, x1, y1)
    return min(sx0, sx1), win.height - max(sy0, sy1), max(sx0, sx1), win.height - min(sy0, sy1)


def own(win, team, kind=None, comp=UnitKind):
    win.world.activate()
    out = []
    for eid, (t, c) in sorted(esper.get_components(Team, comp)):
        if t.team == team and (kind is None or c.kind == kind):
            out.append(eid)
    return out


def hq(win, team=0):
    return own(win, team, "hq", Building)[0]


def select_worker(win):
    """Click Blue's worker east of the headquarters (9.5, 7.5)."""
    worker = next(e for e in own(win, 0, "worker") if esper.component_for_entity(e, Position).x == 9.5)
    click(win, *screen_of(win, 9.5, 7.5))
    assert win.selected == [worker]
    return worker


def test_the_hud_shows_the_stockpile_and_population(window):
    frames(window, 2)
    corner = (window.width - 420, 0, window.width, 34)
    img = screenshot(window)
    assert window.stock_text.text == "resources 200    population 4/10"
    few = count_colour(img, RESOURCE, tol=40, box=corner)
    assert few > 150                                            # the text is on screen, in the resource colour
    stockpile(window.world, 0).amount = 98765
    frames(window, 1)
    more = count_colour(screenshot(window), RESOURCE, tol=40, box=corner)
    assert more > few + 30                                      # two more digits drawn


def test_buildings_and_fields_are_drawn_and_on_the_minimap(window):
    img = screenshot(window)
    blue = window.team_colors[0]
    x0, y0, x1, y1 = box(window, 6, 6, 9, 9)                   # the headquarters' footprint
    inside = count_colour(img, blue, tol=6, box=(x0 + 4, y0 + 4, x1 - 4, y1 - 4))
    assert inside > 0.6 * (x1 - x0 - 8) * (y1 - y0 - 8)         # a block of Blue (its letter aside)
    fx0, fy0, fx1, fy1 = box(window, 2, 2, 10, 3)                # the row of fields north of the base
    assert count_colour(img, (70, 150, 190), tol=30, box=(fx0, fy0, fx1, fy1)) > 8 * 40
    mx, my, mw, mh = window.scene.minimap_rect()
    mini = (int(mx), window.height - int(my + mh), int(mx + mw), window.height - int(my))
    assert count_colour(img, window.team_colors[1], tol=6, box=mini) == 0      # Red's base: never seen yet
    window.scene.set_view_team(None)                                           # a spectator's minimap
    window.scene.sync(())
    img = screenshot(window)
    assert count_colour(img, window.team_colors[1], tol=6, box=mini) >= 36     # Red's headquarters: 6 x 6 pixels


def test_the_placement_ghost_is_green_on_free_ground_and_red_on_a_blocked_site(window):
    import arcade
    select_worker(window)
    key(window, arcade.key.D)                                   # a supply depot
    assert window.placing == "depot"
    send(window, "on_mouse_motion", *screen_of(window, 14, 8), 0, 0)
    img = screenshot(window)
    ghost = box(window, 12, 6, 16, 10)
    assert count_colour(img, GHOST_FREE, tol=8, box=ghost) > 60
    assert count_colour(img, GHOST_BLOCKED, tol=8, box=ghost) == 0
    send(window, "on_mouse_motion", *screen_of(window, 7.5, 7.5), 0, 0)     # on the headquarters
    img = screenshot(window)
    ghost = box(window, 5, 5, 10, 10)
    assert count_colour(img, GHOST_BLOCKED, tol=8, box=ghost) > 60
    assert count_colour(img, GHOST_FREE, tol=8, box=ghost) == 0
    click(window, *screen_of(window, 7.5, 7.5))                 # refused there: still placing, nothing ordered
    assert window.placing == "depot" and "cannot place it there" in window.notice
    right_click(window, *screen_of(window, 14, 8))              # right click cancels
    assert window.placing is None
    img = screenshot(window)
    assert count_colour(img, GHOST_FREE, tol=8) == 0


def test_placing_a_depot_orders_the_build_and_the_site_appears(window):
    import arcade
    worker = select_worker(window)
    key(window, arcade.key.D)
    click(window, *screen_of(window, 14, 8))                    # footprint 13..14 x 7..8
    assert window.placing is None
    action = window.world.ledger.current(worker) or window.tracked[0]
    assert (action.kind, action.params, action.source) == ("build", {"building": "depot", "x": 13, "y": 7}, "player")
    frames(window, 150)
    sites = own(window, 0, "depot", Building)
    assert len(sites) == 1
    b = esper.component_for_entity(sites[0], Building)
    assert (b.tx, b.ty) == (13, 7) and not b.done
    assert stockpile(window.world, 0).amount == 100
    img = screenshot(window)
    x0, y0, x1, y1 = box(window, 13, 7, 15, 9)
    stripes = count_colour(img, window.team_colors[0], tol=6, box=(x0, y0, x1, y1))
    assert stripes > 0.25 * (x1 - x0) * (y1 - y0)               # a striped site in Blue
    bar = count_colour(img, (240, 200, 60), tol=10, box=(x0, y0 - 10, x1, y0 + 2))
    assert bar > 0                                               # and its progress bar


def test_a_production_button_trains_a_worker_and_cancelling_refunds(window):
    import arcade
    world = window.world
    base = hq(window)
    click(window, *screen_of(window, 7.5, 7.0))                  # the headquarters
    assert window.selected == [base]
    frames(window, 1)
    button = next(b for b in window.card.buttons if b.what == "train" and b.which == "worker")
    for _ in range(2):                                           # two workers: one trains, one waits
        click(window, int(button.left + 20), int(button.bottom + 10))
    frames(window, 2)
    queue = world.ledger.queue_of(base, "production")
    assert [a.params["unit"] for a in queue] == ["worker", "worker"]
    assert stockpile(world, 0).amount == 150 and available(world, 0) == 100
    slots = [b for b in window.card.buttons if b.what == "queue"]
    assert [s.which for s in slots] == [a.id for a in queue]
    frames(window, 60)                                           # a second of the 12: the first slot fills
    img = screenshot(window)
    slot = (int(slots[0].left), window.height - int(slots[0].bottom + 24), int(slots[0].left + 84),
            window.height - int(slots[0].bottom))
    filled = count_colour(img, (40, 100, 120), tol=4, box=slot)
    assert 40 < filled < 0.3 * 84 * 24
    click(window, int(slots[1].left + 10), int(slots[1].bottom + 10))   # cancel the waiting one
    frames(window, 2)
    assert available(world, 0) == 150 and len(world.ledger.queue_of(base, "production")) == 1
    window.clock.speed = 8.0
    workers = len(own(window, 0, "worker"))
    frames(window, 100)                                          # 12 s of training at 8x
    assert len(own(window, 0, "worker")) == workers + 1          # the unit appeared
    new = max(own(window, 0, "worker"))
    pos = esper.component_for_entity(new, Position)
    img = screenshot(window)
    sx, sy = screen_of(window, pos.x, pos.y)
    assert count_colour(img, window.team_colors[0], tol=6, box=(sx - 5, window.height - sy - 5, sx + 5,
                                                                window.height - sy + 5)) > 20     # drawn
    assert stockpile(world, 0).amount == 150
    key(window, arcade.key.W)                                    # by its hotkey this time, then cancel it running
    frames(window, 2)
    (running,) = world.ledger.queue_of(base, "production")
    assert running.state == "started" and stockpile(world, 0).amount == 100
    slot = next(b for b in window.card.buttons if b.what == "queue")
    click(window, int(slot.left + 10), int(slot.bottom + 10))
    frames(window, 2)
    assert stockpile(world, 0).amount == 150                     # refunded


def test_right_click_on_a_field_makes_the_worker_gather(window):
    worker = select_worker(window)
    right_click(window, *screen_of(window, 8.5, 2.5))
    frames(window, 2)
    action = window.world.ledger.current(worker)
    assert action.kind == "gather" and action.source == "player" and action.params == {"loads": 0}
    window.clock.speed = 8.0
    before = stockpile(window.world, 0).amount
    seen_load = False
    for _ in range(60):
        frames(window, 2)
        if esper.component_for_entity(worker, Worker).carrying > 0 and worker in window.scene.load_sprites:
            sprite = window.scene.load_sprites[worker]
            img = screenshot(window)
            sx, sy = window.camera.project((sprite.center_x, sprite.center_y))
            spot = (int(sx) - 6, window.height - int(sy) - 6, int(sx) + 6, window.height - int(sy) + 6)
            seen_load = seen_load or count_colour(img, RESOURCE, tol=20, box=spot) >= 9
        if stockpile(window.world, 0).amount > before:
            break
    assert seen_load                                              # the load is drawn beside the worker
    assert stockpile(window.world, 0).amount > before             # and delivered


def test_a_building_in_a_control_group_and_its_rally_point(window):
    import arcade
    base = hq(window)
    click(window, *screen_of(window, 7.5, 7.0))
    key(window, arcade.key.KEY_2, arcade.key.MOD_CTRL)
    click(window, *screen_of(window, 16, 14))                   # empty ground: nothing selected
    assert window.selected == []
    key(window, arcade.key.KEY_2)
    assert window.selected == [base]
    right_click(window, *screen_of(window, 14, 12))
    frames(window, 2)
    rally = esper.component_for_entity(base, Rally)
    assert rally.on and abs(rally.x - 14) < 0.1 and abs(rally.y - 12) < 0.1
    img = screenshot(window)
    assert count_colour(img, SELECT, tol=10, box=box(window, 9, 8, 14.5, 12.5)) > 20    # the rally line and mark


def test_the_idle_worker_key_selects_and_centres_on_one(window):
    import arcade
    world = window.world
    window.scene.centre_on(30, 30)
    key(window, arcade.key.PERIOD)
    (first,) = window.selected
    assert esper.has_component(first, Worker) and world.ledger.current(first) is None
    pos = esper.component_for_entity(first, Position)
    cx, cy = window.camera.position
    assert (abs(cx / 16 - pos.x) < 0.01 and abs(world.tilemap.height - cy / 16 - pos.y) < 0.01)
    key(window, arcade.key.PERIOD)
    assert window.selected != [first]                            # the next one


def test_the_start_menu_offers_the_opponents_strategy_for_an_economy_scenario(content):
    import arcade
    from game.app.views.play import PlayWindow
    win = PlayWindow(content, None, 1, None)
    try:
        menu = win.menu
        while menu.value("scenario") != "econ_duel":
            key(win, arcade.key.RIGHT)
        assert menu.rows == ["scenario", "side", "opponent", "difficulty"] and menu.value("opponent") == "macro"
        key(win, arcade.key.DOWN)
        key(win, arcade.key.DOWN)                                # opponent
        while menu.value("opponent") != "worker_rush":
            key(win, arcade.key.RIGHT)
        frames(win, 1)
        img = screenshot(win)
        assert count_colour(img, (235, 235, 235), tol=30) > 500
        key(win, arcade.key.ENTER)
        world = win.world
        assert win.player_team == 0 and world.strategies == ["macro", "worker_rush"]
        assert world.commanders == ["", ""] and world.strategic_teams == frozenset({1})
        frames(win, 4)
        assert world.tick == 2
    finally:
        win.close()


def test_health_bars_of_hurt_buildings(window):
    base = hq(window)
    window.world.activate()
    esper.component_for_entity(base, Health).hp = 300.0
    frames(window, 1)
    img = screenshot(window)
    x0, y0, x1, y1 = box(window, 6, 6, 9, 9)
    assert count_colour(img, (230, 80, 40), tol=10, box=(x0, y0 - 10, x1, y0 + 2)) > 10    # low: orange


def test_shift_keeps_placing_one_building_per_selected_worker(window):
    import arcade
    world = window.world
    x0, y0 = screen_of(window, 4.2, 4.2)
    x1, y1 = screen_of(window, 10.8, 10.8)
    send(window, "on_mouse_press", x0, y0, arcade.MOUSE_BUTTON_LEFT, 0)
    send(window, "on_mouse_drag", x1, y1, x1 - x0, y1 - y0, arcade.MOUSE_BUTTON_LEFT, 0)
    send(window, "on_mouse_release", x1, y1, arcade.MOUSE_BUTTON_LEFT, 0)
    workers = list(window.selected)
    assert len(workers) == 4 and all(esper.has_component(e, Worker) for e in workers)
    stockpile(world, 0).amount = 1000
    frames(window, 2)
    key(window, arcade.key.D)
    shift = arcade.key.MOD_SHIFT
    for x in (13, 16, 19, 22, 25):                               # five depots, four workers
        click(window, *screen_of(window, x, 13), modifiers=shift)
    assert window.placing == "depot"                             # shift: still placing
    builds = [a for a in window.tracked if a.kind == "build"]
    assert sorted(a.actor for a in builds) == sorted(workers)    # one each
    assert "every selected worker already has a building to place" in window.notice
    key(window, arcade.key.ESCAPE)                               # Esc ends placing; the window stays open
    assert window.placing is None and window.world is not None
    frames(window, 2)
    img = screenshot(window)
    outlines = count_colour(img, GHOST_FREE, tol=8, box=box(window, 12, 12, 24, 16))
    assert outlines > 4 * 40                                      # the four claimed sites, outlined


def test_an_enemy_workers_load_out_of_sight_is_not_drawn(window):
    """The carried load is a light-blue square beside a worker: Red's, in Red's unexplored base, must not show
    through Blue's fog (it did: every carrying worker's load was drawn)."""
    world = window.world
    red = next(e for e in own(window, 1, "worker"))
    pos = esper.component_for_entity(red, Position)
    assert not world.fog.sees(0, pos.x, pos.y)
    esper.component_for_entity(red, Worker).carrying = 5
    window.clock.paused = True                            # the world stays as set up here
    window.scene.centre_on(pos.x, pos.y)

    def load_pixels():
        window.scene.sync(set())
        img = screenshot(window)
        sx, sy = screen_of(window, pos.x, pos.y)
        spot = (sx - 2, window.height - sy - 4, sx + 14, window.height - sy + 12)
        return count_colour(img, RESOURCE, tol=20, box=spot)

    assert load_pixels() < 9 and red not in window.scene.load_sprites
    window.scene.set_view_team(None)                      # the all-seeing view draws it
    assert load_pixels() >= 9 and red in window.scene.load_sprites
