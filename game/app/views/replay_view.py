"""`rts replay FILE --view`: a recorded match in the window.

The world is re-simulated from the recorded ledger requests (every decider off: nothing is re-planned or
searched); the timeline seeks through the nearest keyframe; the inspector shows the *recorded* decision records
of the NPC under the cursor and of its commander.

Controls: space play/pause, + / - speed, left / right arrow 5 s back / forward, click or drag the timeline to
seek, I inspector (click a unit to inspect it), F whose view: everything, or one team's under its fog of war
(cycles), mouse wheel zoom (to the cursor), middle drag to pan, Esc quit. Shots, hits and deaths are drawn and
heard as in the game (``--mute``).
"""
from __future__ import annotations

import arcade
import esper

from components import Team
from game.app import explain as ex
from game.loop import FixedStepClock
from game.orders import unit_at
from game.app.views import palette
from game.app.views.inspector import InspectorPanel
from game.app.views.scene import Scene, run_frames, squad_orders, zoom_to_cursor
from game.app.views.sound import Sounds
from saves.replay import apply_requests, seek, step_loaded

TIMELINE_H = 18


class ReplayWindow(arcade.Window):
    def __init__(self, content, replay, width: int = 1280, height: int = 720, force: bool = False,
                 mute: bool = False):
        super().__init__(width, height, f"rts replay: {replay.path}", update_rate=1 / 60, vsync=False)
        arcade.set_background_color(palette.BACKGROUND)
        self.content = content
        self.replay = replay
        self.force = force
        self.index = replay.records                                  # decision records, read on demand
        self.commander_ticks = self.index.ticks("commander")
        self.start_tick = replay.start_tick
        self.end_tick = replay.end_state_tick
        self.world = seek(replay, content, self.start_tick, force=force)
        self.scene = Scene(self, self.world)
        self.sounds = Sounds(muted=mute)
        self.clock = FixedStepClock(self.world.hz)
        self.inspector = InspectorPanel(self)
        self.show_inspector = False
        self.inspected: int | None = None
        self.scrubbing = False
        self.pan_drag = None
        self.hud = arcade.Text("", 10, height - 24, palette.TEXT, 14)
        self.scene.sync(())

    # -- time ---------------------------------------------------------------------------------------------------
    @property
    def tick(self) -> int:
        return self.world.tick

    def seek_to(self, tick: int) -> None:
        """Jump to ``tick`` through the nearest keyframe at or before it."""
        tick = max(self.start_tick, min(self.end_tick, int(tick)))
        if tick == self.world.tick:
            return
        if tick > self.world.tick and tick - self.world.tick <= self.world.hz * 5:
            self.advance(tick - self.world.tick)                    # close ahead: just play on
            return
        old = self.world
        self.world = seek(self.replay, self.content, tick, force=self.force)
        old.close()
        view = self.scene.view_team
        self.scene.set_world(self.world)
        self.scene.set_view_team(view)
        self.scene.sync(())

    def advance(self, ticks: int) -> int:
        """Play ``ticks`` recorded ticks; returns how many were played (fewer at the end)."""
        n = 0
        world = self.world
        while n < ticks and world.tick < self.end_tick and not world.over:
            apply_requests(world, self.replay.requests.get(world.tick, []), self.replay.path)
            step_loaded(world, self.replay.path)
            if world.events and ticks <= 8:                       # playing, not skipping ahead
                self.scene.effects.add(world.events)
                if any(e[0] == "shot" for e in world.events):
                    self.sounds.play("shot")
                if any(e[0] == "death" for e in world.events):
                    self.sounds.play("death")
            n += 1
        return n

    # -- frame ----------------------------------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        self.scene.effects.update(delta_time)
        self.sounds.update(delta_time)
        steps = self.clock.advance(delta_time)
        if steps and self.advance(steps) < steps:
            self.clock.paused = True                                    # the end: stop there
        alive = self.scene.sync(())
        if self.inspected is not None and self.inspected not in alive:
            self.inspected = None

    def timeline_rect(self) -> tuple[float, float, float, float]:
        right = self.width - (340 if self.show_inspector else 0) - 20
        return 200, 8, right - 200, TIMELINE_H

    def on_draw(self) -> None:
        self.clear()
        world = self.world
        overlay = None
        if self.show_inspector:
            from systems.commander import map_regions
            names = [n for n in world.commanders if n]
            k = world.content.commanders[names[0]].regions if names and names[0] in world.content.commanders else 20
            overlay = (map_regions(world, k), squad_orders(world))
        self.scene.draw_world((), self.inspected if self.show_inspector else None, overlay)
        self.scene.hud.use()
        state = "paused" if self.clock.paused else f"playing x{self.clock.speed:g}"
        view = "all" if self.scene.view_team is None else world.scenario.teams[self.scene.view_team].name
        self.hud.text = (f"replay  tick {world.tick} / {self.end_tick}  ({world.tick / world.hz:.1f} s)  {state}  |  "
                         f"view {view} (F)  |  " +
                         "  ".join(f"{t.name} {n}" for t, n in zip(world.scenario.teams, world.alive_per_team())))
        self.hud.draw()
        x, y, w, h = self.timeline_rect()
        arcade.draw_lrbt_rectangle_filled(x, x + w, y, y + h, (40, 40, 48))
        span = max(1, self.end_tick - self.start_tick)
        done = (world.tick - self.start_tick) / span
        arcade.draw_lrbt_rectangle_filled(x, x + w * done, y, y + h, palette.AMMO)
        for k in self.replay.keyframes:                            # keyframes as ticks on the bar
            kx = x + w * (k - self.start_tick) / span
            arcade.draw_line(kx, y, kx, y + h, palette.DIM, 1)
        for tick in self.commander_ticks:                               # every team's commander decisions
            mx = x + w * (tick - self.start_tick) / span
            arcade.draw_line(mx, y + h, mx, y + h + 4, palette.SELECT, 1)
        self.scene.draw_minimap()
        if self.show_inspector:
            self._draw_inspector()

    def _draw_inspector(self) -> None:
        world = self.world
        eid = self.inspected
        if eid is None:
            self.inspector.draw("inspector: click a unit", None)
            return
        record = self.index.at("npc", eid, world.tick)
        explanation = None if record is None else ex.explain(record, lambda aid: _ledger_state(world, aid))
        team = esper.component_for_entity(eid, Team).team if esper.entity_exists(eid) else None
        commander = self.index.at("commander", team, world.tick) if team is not None else None
        title = f"entity {eid}  (recorded at tick {record.tick})" if record else f"entity {eid}"
        self.inspector.draw(title, explanation, commander)

    # -- input ---------------------------------------------------------------------------------------------------
    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol == k.ESCAPE:
            self.close()
        elif symbol == k.SPACE:
            if self.world.tick >= self.end_tick:
                self.seek_to(self.start_tick)
            self.clock.paused = not self.clock.paused
        elif symbol in (k.PLUS, k.EQUAL, k.NUM_ADD):
            self.clock.speed = min(16.0, self.clock.speed * 2)
        elif symbol in (k.MINUS, k.NUM_SUBTRACT):
            self.clock.speed = max(0.25, self.clock.speed / 2)
        elif symbol == k.LEFT:
            self.seek_to(self.world.tick - 5 * self.world.hz)
        elif symbol == k.RIGHT:
            self.seek_to(self.world.tick + 5 * self.world.hz)
        elif symbol == k.I:
            self.show_inspector = not self.show_inspector
        elif symbol == k.F:
            self.cycle_view()

    def cycle_view(self) -> None:
        """Everything, then each team's view under its fog of war, then everything again."""
        n = len(self.world.scenario.teams)
        view = self.scene.view_team
        self.scene.set_view_team(0 if view is None else (view + 1 if view + 1 < n else None))
        self.scene.sync(())

    def _timeline_tick(self, x: float, y: float) -> int | None:
        tx, ty, w, h = self.timeline_rect()
        if not (ty - 4 <= y <= ty + h + 6) or not (tx <= x <= tx + w):
            return None
        return int(round(self.start_tick + (x - tx) / w * (self.end_tick - self.start_tick)))

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        if button == arcade.MOUSE_BUTTON_LEFT:
            tick = self._timeline_tick(x, y)
            if tick is not None:
                self.scrubbing = True
                self.seek_to(tick)
                return
            spot = self.scene.minimap_hit(x, y)
            if spot is not None:
                self.scene.centre_on(*spot)
                return
            wx, wy = self.scene.to_world(x, y)
            hit = unit_at(self.world, wx, wy)
            if hit is not None:
                self.inspected = hit
                self.show_inspector = True
        elif button == arcade.MOUSE_BUTTON_MIDDLE:
            self.pan_drag = True

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int) -> None:
        if self.scrubbing:
            tx, _ty, w, _h = self.timeline_rect()
            x = min(max(x, tx), tx + w)
            self.seek_to(self.start_tick + (x - tx) / w * (self.end_tick - self.start_tick))
        elif self.pan_drag:
            cx, cy = self.scene.camera.position
            self.scene.camera.position = (cx - dx / self.scene.camera.zoom, cy - dy / self.scene.camera.zoom)

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        self.scrubbing = False
        self.pan_drag = None

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        zoom_to_cursor(self.scene.camera, x, y, scroll_y)

    def close(self) -> None:
        self.world.close()
        super().close()


def _ledger_state(world, aid: int):
    action = world.ledger.get(aid)
    return None if action is None else [action.state, action.reason]


def run_replay_view(content, replay, force: bool = False, frames: int | None = None,
                    screenshot: str | None = None, mute: bool = False) -> int:
    window = ReplayWindow(content, replay, force=force, mute=mute)
    if frames is None:
        arcade.run()
        return 0
    run_frames(window, frames, screenshot)        # a scripted run: tests and screenshots
    return 0
