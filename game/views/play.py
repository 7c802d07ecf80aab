"""`rts play`: the Arcade window. The only module family that imports arcade.

The window never steps the simulation by frame time: a FixedStepClock turns
real frame times into whole 30 Hz ticks. Input becomes ledger submissions via
game.orders, exactly like any other decider.

Controls: left-drag or click to select your units (shift adds), right-click
to move or to attack the enemy under the cursor, arrow keys / WASD or
middle-drag to pan, mouse wheel to zoom, space to pause, +/- for game speed,
Esc to quit.
"""
from __future__ import annotations

import arcade
import esper

from components import Door, Health, Pickup, Position, Selectable, Team
from game.loop import FixedStepClock
from game.orders import order_at, unit_at, units_in_box
from game.world import World

TILE = 16
TILE_COLORS = {
    ".": (58, 62, 56), "c": (96, 110, 70), "#": (24, 24, 28), "a": (58, 62, 56), "k": (58, 62, 56),
    "+": (58, 62, 56), "/": (58, 62, 56), "L": (58, 62, 56),
}
DOOR_COLORS = {"open": (150, 110, 60), "closed": (120, 70, 30), "locked": (170, 40, 170)}
PICKUP_COLORS = {"ammo": (230, 200, 60), "key": (250, 250, 250)}
PAN_SPEED = 600.0


class PlayWindow(arcade.Window):
    def __init__(self, content, scenario: str, seed: int, player_team: int | None,
                 width: int = 1280, height: int = 720):
        super().__init__(width, height, "rts: " + content.scenarios[scenario].name, update_rate=1 / 60,
                         vsync=False)
        controllers = {player_team: "player"} if player_team is not None else {}
        self.world = World(content, scenario, seed, controllers=controllers)
        self.player_team = player_team
        self.clock = FixedStepClock(self.world.hz)
        self.selected: list[int] = []
        self.drag_start: tuple[float, float] | None = None
        self.drag_now: tuple[float, float] | None = None
        self.pan_drag: tuple[float, float] | None = None
        self.keys_down: set[int] = set()
        self.camera = arcade.Camera2D()
        self.hud_camera = arcade.Camera2D()
        h = self.world.tilemap.height
        self.camera.position = (self.world.tilemap.width * TILE / 2, h * TILE / 2)
        self.team_colors = [tuple(t.color) for t in self.world.scenario.teams]
        self._build_map()
        self.unit_sprites = arcade.SpriteList()
        self.sprite_of: dict[int, arcade.Sprite] = {}
        self.hud = arcade.Text("", 10, height - 24, (240, 240, 240), 14)
        self.banner = arcade.Text("", width / 2, height / 2, (255, 255, 255), 32, anchor_x="center")
        arcade.set_background_color((10, 10, 14))
        self._sync_units()

    # -- coordinates ------------------------------------------------------------
    def to_screen(self, x: float, y: float) -> tuple[float, float]:
        return x * TILE, (self.world.tilemap.height - y) * TILE

    def to_world(self, sx: float, sy: float) -> tuple[float, float]:
        wx, wy, *_ = self.camera.unproject((sx, sy))
        return wx / TILE, self.world.tilemap.height - wy / TILE

    # -- scene ------------------------------------------------------------------
    def _build_map(self) -> None:
        self.map_sprites = arcade.SpriteList(use_spatial_hash=False)
        tmap = self.world.tilemap
        for ty, row in enumerate(tmap.rows):
            for tx, ch in enumerate(row):
                cx, cy = self.to_screen(tx + 0.5, ty + 0.5)
                self.map_sprites.append(arcade.SpriteSolidColor(TILE, TILE, cx, cy, TILE_COLORS[ch]))
        self.object_sprites = arcade.SpriteList()
        self.door_sprites: dict[int, arcade.Sprite] = {}
        self.pickup_sprites: dict[int, arcade.Sprite] = {}
        self.world.activate()
        for eid, door in sorted(esper.get_component(Door)):
            cx, cy = self.to_screen(door.tx + 0.5, door.ty + 0.5)
            sprite = arcade.SpriteSolidColor(TILE, TILE, cx, cy, DOOR_COLORS[door.state])
            self.door_sprites[eid] = sprite
            self.object_sprites.append(sprite)
        for eid, pick in sorted(esper.get_component(Pickup)):
            cx, cy = self.to_screen(pick.tx + 0.5, pick.ty + 0.5)
            sprite = arcade.SpriteSolidColor(TILE // 2, TILE // 2, cx, cy, PICKUP_COLORS[pick.kind])
            self.pickup_sprites[eid] = sprite
            self.object_sprites.append(sprite)

    def _sync_units(self) -> None:
        world = self.world
        world.activate()
        alive = set()
        for eid, (pos, team, sel, _h) in esper.get_components(Position, Team, Selectable, Health):
            alive.add(eid)
            sprite = self.sprite_of.get(eid)
            if sprite is None:
                radius = max(3, int(sel.radius * TILE))
                sprite = arcade.SpriteCircle(radius, self.team_colors[team.team])
                self.sprite_of[eid] = sprite
                self.unit_sprites.append(sprite)
            sprite.center_x, sprite.center_y = self.to_screen(pos.x, pos.y)
        for eid in [e for e in self.sprite_of if e not in alive]:
            self.sprite_of.pop(eid).remove_from_sprite_lists()
        for eid, sprite in self.door_sprites.items():
            door = esper.try_component(eid, Door)
            if door is not None:
                sprite.color = DOOR_COLORS[door.state]
        for eid in [e for e in self.pickup_sprites if not esper.entity_exists(e)]:
            self.pickup_sprites.pop(eid).remove_from_sprite_lists()
        self.selected = [e for e in self.selected if e in alive]

    # -- frame ------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        dx = dy = 0.0
        k = arcade.key
        if self.keys_down & {k.LEFT, k.A}:
            dx -= 1
        if self.keys_down & {k.RIGHT, k.D}:
            dx += 1
        if self.keys_down & {k.UP, k.W}:
            dy += 1
        if self.keys_down & {k.DOWN, k.S}:
            dy -= 1
        if dx or dy:
            x, y = self.camera.position
            step = PAN_SPEED * delta_time / self.camera.zoom
            self.camera.position = (x + dx * step, y + dy * step)
        for _ in range(self.clock.advance(delta_time)):
            self.world.step()
        self._sync_units()

    def on_draw(self) -> None:
        self.clear()
        self.camera.use()
        self.map_sprites.draw()
        self.object_sprites.draw()
        self.unit_sprites.draw()
        for eid in self.selected:
            sprite = self.sprite_of.get(eid)
            if sprite is not None:
                arcade.draw_circle_outline(sprite.center_x, sprite.center_y, sprite.width / 2 + 3,
                                           (255, 255, 120), 2)
                health = esper.try_component(eid, Health)
                if health is not None:
                    frac = max(0.0, health.hp / health.max_hp)
                    left = sprite.center_x - 8
                    top = sprite.center_y + sprite.height / 2 + 6
                    arcade.draw_lrbt_rectangle_filled(left, left + 16, top - 3, top, (60, 0, 0))
                    arcade.draw_lrbt_rectangle_filled(left, left + 16 * frac, top - 3, top, (60, 220, 60))
        if self.drag_start and self.drag_now:
            (x0, y0), (x1, y1) = self.drag_start, self.drag_now
            sx0, sy0 = self.to_screen(x0, y0)
            sx1, sy1 = self.to_screen(x1, y1)
            arcade.draw_lrbt_rectangle_outline(min(sx0, sx1), max(sx0, sx1), min(sy0, sy1), max(sy0, sy1),
                                               (255, 255, 120), 1)
        self.hud_camera.use()
        world = self.world
        alive = world.alive_per_team()
        parts = [f"{t.name} {n}" for t, n in zip(world.scenario.teams, alive)]
        state = "paused" if self.clock.paused else f"x{self.clock.speed:g}"
        self.hud.text = (f"tick {world.tick}  {state}  |  " + "  ".join(parts) +
                         f"  |  selected {len(self.selected)}")
        self.hud.draw()
        if world.over:
            if world.winner is None:
                self.banner.text = "Draw"
            elif self.player_team is None:
                self.banner.text = f"{world.scenario.teams[world.winner].name} wins"
            else:
                self.banner.text = "Victory" if world.winner == self.player_team else "Defeat"
            self.banner.draw()

    # -- input ------------------------------------------------------------------
    def on_key_press(self, symbol: int, modifiers: int) -> None:
        self.keys_down.add(symbol)
        if symbol == arcade.key.SPACE:
            self.clock.paused = not self.clock.paused
        elif symbol in (arcade.key.PLUS, arcade.key.EQUAL, arcade.key.NUM_ADD):
            self.clock.speed = min(8.0, self.clock.speed * 2)
        elif symbol in (arcade.key.MINUS, arcade.key.NUM_SUBTRACT):
            self.clock.speed = max(0.25, self.clock.speed / 2)
        elif symbol == arcade.key.ESCAPE:
            self.close()

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        self.keys_down.discard(symbol)

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        wx, wy = self.to_world(x, y)
        if button == arcade.MOUSE_BUTTON_LEFT:
            self.drag_start = (wx, wy)
            self.drag_now = (wx, wy)
        elif button == arcade.MOUSE_BUTTON_RIGHT and self.player_team is not None and self.selected:
            order_at(self.world, self.player_team, self.selected, wx, wy)
        elif button == arcade.MOUSE_BUTTON_MIDDLE:
            self.pan_drag = (x, y)

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int) -> None:
        if self.drag_start is not None:
            self.drag_now = self.to_world(x, y)
        if self.pan_drag is not None:
            cx, cy = self.camera.position
            self.camera.position = (cx - dx / self.camera.zoom, cy - dy / self.camera.zoom)

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        if button == arcade.MOUSE_BUTTON_MIDDLE:
            self.pan_drag = None
            return
        if button != arcade.MOUSE_BUTTON_LEFT or self.drag_start is None:
            return
        x0, y0 = self.drag_start
        x1, y1 = self.to_world(x, y)
        self.drag_start = self.drag_now = None
        if self.player_team is None:
            return
        if abs(x1 - x0) < 0.3 and abs(y1 - y0) < 0.3:
            hit = unit_at(self.world, x1, y1, team=self.player_team)
            picked = [hit] if hit is not None else []
        else:
            picked = units_in_box(self.world, self.player_team, x0, y0, x1, y1)
        if modifiers & arcade.key.MOD_SHIFT:
            self.selected = sorted(set(self.selected) | set(picked))
        else:
            self.selected = picked

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        zoom = self.camera.zoom * (1.1 ** scroll_y)
        self.camera.zoom = max(0.4, min(4.0, zoom))

    def on_close(self) -> None:
        self.world.close()
        super().on_close()


def run_play(content, scenario: str, seed: int, player_team: int | None,
             frames: int | None = None, screenshot: str | None = None) -> int:
    window = PlayWindow(content, scenario, seed, player_team)
    if frames is None:
        arcade.run()
        return 0
    # scripted run (used by tests and for screenshots): fixed 1/60 s frames
    for _ in range(frames):
        window.dispatch_events()
        window.on_update(1 / 60)
        window.on_draw()
        window.flip()
    if screenshot:
        arcade.get_image(0, 0, window.width, window.height).save(screenshot)
    window.close()
    return 0
