"""`rts play`: the game window. Views are the only modules that import arcade.

A start menu picks the scenario, your side and the difficulty (the enemy commander's budget) unless the command
line did. The window never steps the simulation by frame time: a FixedStepClock turns real frame times into
whole 30 Hz ticks. Every order becomes a ledger submission through game.orders, like any other decider's.

Controls
  left click / drag      select your units (shift adds), or a building (a box with no unit in it selects
                         buildings); with the inspector open, click any unit to inspect it
  right click            move there, or attack the enemy unit or building under the cursor; workers: gather
                         from a field, help build an own unfinished building, return a load to an own drop-off;
                         buildings: set their rally point
  A then left click      attack-move (fight whatever comes in range on the way)
  S / H / R              stop / hold position (fire without chasing) / reload
  workers: the letter    of a building on the command card (D depot, B barracks, ...), then left click places it
                         (shift: keep placing), right click or Esc cancels
  buildings: the letter  of a unit on the command card trains it; click a queue slot to cancel (refunded)
  . or F1                select the next idle worker and centre on it
  Ctrl+1..9, 1..9        store / recall a control group (units and buildings)
  arrows, middle drag    pan; mouse wheel: zoom; click the minimap to jump there
  space, + / -           pause, game speed
  I                      AI inspector (the inspected NPC's mind and the commander's regions and orders)
  Esc                    cancel placing or attack-move, else quit

The match is recorded (``--record``, default last.rtsreplay) so it can be replayed and explained afterwards.
With ``--watch`` changed content files are reloaded while the game runs (game/hotreload.py): brains are rebuilt
between ticks; a file with a mistake leaves the old content in force and its error is shown on screen.
"""
from __future__ import annotations

import arcade
import esper

from components import Team
import signal
import sys

from game.app import entities
from game.app import explain as ex
from game import economy, orders
from game.ledger import REJECTED, SUBMITTED
from game.loop import FixedStepClock
from game.app.views import palette
from game.app.views.command import CommandCard
from game.app.views.inspector import WIDTH as INSPECTOR_WIDTH, InspectorPanel
from game.app.views.scene import TILE, Scene, run_frames, squad_orders, zoom_to_cursor
from game.app.views.sound import Sounds
from game.world import World

PAN_SPEED = 600.0
#: the mouse this close to the window's edge pans the view (pixels)
EDGE = 6
#: a group key pressed twice within this many seconds centres the view on the group
DOUBLE_TAP = 0.4
#: an under-attack alert at most this often (seconds)
ALERT_GAP = 6.0
HELP = [
    ("left click / drag", "select your units (shift adds); a box with no unit selects buildings"),
    ("right click", "move, or attack what is under the cursor; workers gather, build, return loads"),
    ("A then left click", "attack-move: fight whatever comes in range on the way"),
    ("S  H  R", "stop, hold position (fire without chasing), reload"),
    ("V", "cycle the selected units' stance: aggressive, defensive, hold, passive"),
    ("letters on the card", "workers: place that building; buildings: train that unit"),
    (".", "select the next idle worker"),
    ("Ctrl+1..9, 1..9", "store / recall a group; press twice to jump to it"),
    ("arrows, screen edge", "pan (middle drag too); wheel zooms to the cursor; click the minimap"),
    ("space, + / -", "pause, game speed"),
    ("I", "AI inspector"),
    ("F1", "this help"),
    ("Esc", "menu (resume, restart, quit)"),
]


def levels(content) -> list[str]:
    """The difficulty levels of the content (content/difficulties/), easiest first."""
    return sorted(content.difficulties, key=lambda d: (content.difficulties[d].rank, d))

DIGITS = {getattr(arcade.key, f"KEY_{i}"): i for i in range(1, 10)}


def is_economy(scenario) -> bool:
    """Does the scenario play the economy (a team starts with buildings, resources or a strategy)?"""
    return any(t.buildings or t.stock or t.strategy for t in scenario.teams)


def make_world(content, scenario: str, seed: int, player_team: int | None, difficulty: str | None,
               strategy: str | None = None) -> World:
    """``difficulty``: the level (content/difficulties/) every team but yours plays at: its commander, reaction,
    income (and strategy, where one runs the team); ``strategy``: the strategy profile that runs every team but
    yours."""
    teams = content.scenarios[scenario].teams
    controllers = {player_team: "player"} if player_team is not None else {}
    strategies = {t: strategy for t in range(len(teams)) if t != player_team} if strategy else {}
    commanders = {}
    difficulties = {t: difficulty for t in range(len(teams)) if t != player_team} if difficulty else {}
    if player_team is not None:
        commanders[player_team] = ""                   # your squads take your orders, not a commander's
    return World(content, scenario, seed, controllers=controllers, commanders=commanders, strategies=strategies,
                 difficulties=difficulties)


class PlayWindow(arcade.Window):
    def __init__(self, content, scenario: str | None, seed: int, player_team: int | None,
                 difficulty: str | None = "normal", width: int = 1280, height: int = 720,
                 record: str | None = None, watch: bool = False, mods: list | None = None,
                 strategy: str | None = None, mute: bool = False):
        super().__init__(width, height, "rts", update_rate=1 / 60, vsync=False)
        self.sounds = Sounds(muted=mute)
        self.game_menu: GameMenu | None = None
        self.show_help = False
        self.stop_requested = False                   # set by run_play on Ctrl+C or SIGTERM
        self.alert_text = arcade.Text("", width / 2, height - 70, (255, 120, 100), 16, anchor_x="center", bold=True)
        self.panel_texts: list = []
        self.help_texts = []
        self.mouse_inside = False
        self.show_inspector = False
        self.mouse = (width / 2, height / 2)
        arcade.set_background_color(palette.BACKGROUND)
        self.content = content
        self.seed = seed
        self.menu = None
        self.record_path = record
        self.recorder = None
        self.mods = [str(m) for m in mods or []]
        self.watcher = None
        self.watch_timer = 0.0
        self.reload_error = ""
        self.reload_note = ""
        self.note_timer = 0.0
        self.error_text = arcade.Text("", 10, 40, (255, 110, 90), 13, width=width - 20, multiline=True)
        if watch:
            from game.app.hotreload import ContentWatcher
            self.watcher = ContentWatcher(self.mods)
        self.hud = arcade.Text("", 10, height - 24, palette.TEXT, 14)
        self.stock_text = arcade.Text("", width - 12, height - 24, palette.RESOURCE, 14, anchor_x="right")
        self.notice_text = arcade.Text("", 10, 0, palette.GHOST_UNITS, 12)
        self.card = CommandCard(self)
        self.hint = arcade.Text("", 10, height - 46, palette.DIM, 12)
        self.banner = arcade.Text("", width / 2, height / 2 + 20, (255, 255, 255), 40, anchor_x="center")
        self.sub = arcade.Text("", width / 2, height / 2 - 20, palette.TEXT, 16, anchor_x="center")
        self.inspector = InspectorPanel(self)
        self.keys_down: set[int] = set()              # (a key released in the start menu must find it)
        self.world = None
        if scenario is None:
            self.menu = StartMenu(self, content)
        else:
            self.start(scenario, player_team, difficulty, strategy)

    # -- starting a match -------------------------------------------------------------------------------------
    def start(self, scenario: str, player_team: int | None, difficulty: str | None,
              strategy: str | None = None) -> None:
        self._stop_recording()
        if self.world is not None:
            self.world.close()
        self.menu = None
        self.scenario_id = scenario
        self.player_team = player_team
        self.difficulty = difficulty
        self.strategy = strategy
        self.world = make_world(self.content, scenario, self.seed, player_team, difficulty, strategy)
        self.economy = is_economy(self.world.scenario)
        self.set_caption(f"rts: {self.world.scenario.name or scenario}")
        self.clock = FixedStepClock(self.world.hz)
        self.scene = Scene(self, self.world, view_team=player_team)
        self.game_menu = None
        self.alert_timer = 0.0
        self.last_alert = -1e9
        self.last_group = (None, -1e9)
        self.now = 0.0
        self._start_camera()
        self.selected: list[int] = []
        self.inspected: int | None = None
        self.groups: dict[int, list[int]] = {}
        self.drag_start = self.drag_now = None
        self.pan_drag = None
        self.keys_down: set[int] = set()
        self.attack_move_armed = False
        self.show_inspector = False
        self.placing: str | None = None               # the building type being placed (its ghost follows the mouse)
        self.mouse = (self.width / 2, self.height / 2)
        self.notice = ""
        self.notice_timer = 0.0
        self.tracked: list = []                        # the player's economy orders, until the ledger accepts them
        self.scene.sync(self.selected)
        if self.record_path:
            from saves.replay import ReplayRecorder
            try:
                self.recorder = ReplayRecorder(self.record_path, self.world, mods=self.mods)
            except OSError as exc:
                print(f"warning: cannot record to {self.record_path}: {exc.strerror or exc}; playing without a "
                      "recording", file=sys.stderr)

    def _start_camera(self) -> None:
        """Centre on your army (the middle of your units), else your base, else the map's centre."""
        world = self.world
        world.activate()
        from components import Building, Position, UnitKind
        tmap = world.tilemap
        team = self.player_team
        spots = []
        if team is not None:
            spots = [(p.x, p.y) for _e, (p, t, _k) in esper.get_components(Position, Team, UnitKind) if t.team == team]
            if not spots:
                spots = [(b.tx + b.w / 2, b.ty + b.h / 2) for _e, (b, t) in esper.get_components(Building, Team)
                         if t.team == team]
        if spots:
            self.scene.centre_on(sum(x for x, _ in spots) / len(spots), sum(y for _, y in spots) / len(spots))
        else:
            self.scene.centre_on(tmap.width / 2, tmap.height / 2)
        self.clamp_camera()

    def clamp_camera(self) -> None:
        """Keep the view's centre on the map, so panning never leaves it for black."""
        tmap = self.world.tilemap
        zoom = self.camera.zoom
        shift = (INSPECTOR_WIDTH if self.show_inspector else 0) / 2 / zoom   # the panel covers the right side
        x, y = self.camera.position
        x, y = clamp_view((x - shift, y), zoom, self.width - 2 * shift * zoom, self.height, tmap.width * TILE,
                          tmap.height * TILE)
        self.camera.position = (x + shift, y)

    def _uncover_inspected(self) -> None:
        """The inspector panel never covers the unit it inspects: the view moves it left of the panel."""
        if not self.show_inspector or self.inspected is None or not esper.entity_exists(self.inspected):
            return
        from components import Position
        pos = esper.try_component(self.inspected, Position)
        if pos is None:
            return
        sx, _sy, *_ = self.camera.project(self.scene.to_screen(pos.x, pos.y))
        free = self.width - INSPECTOR_WIDTH
        if sx > free - 24:
            x, y = self.camera.position
            self.camera.position = (x + (sx - free / 2) / self.camera.zoom, y)
            self.clamp_camera()

    def _stop_recording(self) -> None:
        if self.recorder is not None:
            self.recorder.close(self.world)
            self.recorder = None
            print(f"replay saved to {self.record_path} (ask `rts explain {self.record_path} --tick T --entity E`)",
                  file=sys.stderr)

    def _watch(self, delta_time: float) -> None:
        """Every half second: reload changed content files (all validated first; a mistake keeps the old)."""
        self.watch_timer += delta_time
        if self.watch_timer < 0.5:
            return
        self.watch_timer = 0.0
        changed = self.watcher.changed()
        if not changed:
            return
        from game.app.hotreload import reload
        result = reload(self.world, self.mods)
        print(result.message(), file=sys.stderr)
        if result.ok:
            self.content = self.world.content
            self.reload_error = ""
            self.reload_note = result.message()
            self.note_timer = 4.0
        else:
            self.reload_error = result.message()

    # compatibility with code written against the first window
    @property
    def camera(self):
        return self.scene.camera

    @property
    def team_colors(self):
        return self.scene.team_colors

    def to_world(self, sx: float, sy: float) -> tuple[float, float]:
        return self.scene.to_world(sx, sy)

    # -- frame --------------------------------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        if self.stop_requested:                           # Ctrl+C or SIGTERM (run_play): end between two ticks
            self.close()
            return
        if self.menu is not None or self.world is None:
            return
        self.now += delta_time
        self.sounds.update(delta_time)
        if not self.clock.paused and self.game_menu is None:
            self.scene.effects.update(delta_time)         # a paused match's tracers and bodies hold still
        self.alert_timer = max(0.0, self.alert_timer - delta_time)
        if self.game_menu is not None:
            return                                        # the in-game menu pauses the match
        dx = dy = 0.0
        k = arcade.key
        mx, my = self.mouse
        if self.mouse_inside and not self.drag_start:     # edge scrolling
            dx = -1 if mx < EDGE else 1 if mx > self.width - EDGE else 0
            dy = -1 if my < EDGE else 1 if my > self.height - EDGE else 0
        if self.keys_down & {k.LEFT}:
            dx -= 1
        if self.keys_down & {k.RIGHT}:
            dx += 1
        if self.keys_down & {k.UP}:
            dy += 1
        if self.keys_down & {k.DOWN}:
            dy -= 1
        if dx or dy:
            x, y = self.camera.position
            step = PAN_SPEED * delta_time / self.camera.zoom
            self.camera.position = (x + dx * step, y + dy * step)
            self.clamp_camera()
        if self.watcher is not None:
            self._watch(delta_time)
        self.note_timer = max(0.0, self.note_timer - delta_time)
        self.notice_timer = max(0.0, self.notice_timer - delta_time)
        for _ in range(self.clock.advance(delta_time)):
            if self.world.over:
                break
            self.world.step()
            self._events(self.world.events)
            if self.recorder is not None:
                self.recorder.after_tick(self.world)
        if self.world.over:
            self._stop_recording()
        alive = self.scene.sync(self.selected)
        self.selected = [e for e in self.selected if e in alive]
        for key, members in list(self.groups.items()):
            self.groups[key] = [e for e in members if e in alive]
        if self.inspected is not None and self.inspected not in alive:
            self.inspected = None
        self._uncover_inspected()
        self._check_tracked()

    # -- feedback on orders ------------------------------------------------------------------------------------
    def _events(self, events) -> None:
        """After a tick: tracers, flashes and bodies on screen, their sounds, and an alert when your units or
        buildings are hit where you are not looking."""
        if not events:
            return
        scene = self.scene
        scene.effects.add(events)
        team = self.player_team
        shot = hit = False
        for row in events:
            if row[0] == "shot":
                _k, _shooter, target, fx, fy, tx, ty, was_hit, _d = row
                if scene.sees_point(fx, fy) or scene.sees_point(tx, ty):
                    shot = True
                    hit = hit or was_hit
                if team is not None and was_hit and self.now - self.last_alert > ALERT_GAP:
                    victim = esper.try_component(target, Team) if esper.entity_exists(target) else None
                    if victim is not None and victim.team == team and not self._on_screen(tx, ty):
                        self._alert(tx, ty, "building" if self._is_building(target) else "unit")
            elif row[0] == "death" and scene.sees_point(row[4], row[5]):
                self.sounds.play("destroyed" if row[6] else "death")
        if shot:
            self.sounds.play("shot")
        if hit:
            self.sounds.play("hit")

    @staticmethod
    def _is_building(eid: int) -> bool:
        from components import Building
        return esper.has_component(eid, Building)

    def _on_screen(self, x: float, y: float) -> bool:
        sx, sy, *_ = self.camera.project(self.scene.to_screen(x, y))
        return 0 <= sx <= self.width and 0 <= sy <= self.height

    def _alert(self, x: float, y: float, what: str) -> None:
        self.last_alert = self.now
        self.alert_timer = 4.0
        self.alert_pos = (x, y)
        self.alert_text.text = f"Your {'base' if what == 'building' else 'units'} are under attack (minimap)"
        self.scene.effects.ping(x, y)
        self.sounds.play("alert")

    def say(self, text: str, seconds: float = 4.0) -> None:
        """A line above the command card: why an order could not be given or was refused."""
        self.notice = text
        self.notice_timer = seconds

    def track(self, actions) -> None:
        """Watch the player's economy orders until the ledger decides; a refusal is said on screen."""
        for action in actions if isinstance(actions, list) else [actions]:
            if action is not None and action.kind != "move":
                self.tracked.append(action)

    def _check_tracked(self) -> None:
        keep = []
        for action in self.tracked:
            if action.state == SUBMITTED:
                keep.append(action)
            elif action.state == REJECTED:
                self.say(f"{action.kind}: {action.reason}")
        self.tracked = keep

    def on_draw(self) -> None:
        self.clear()
        if self.menu is not None:
            self.menu.draw()
            return
        if self.world is None:
            return
        world = self.world
        overlay = None
        if self.show_inspector:
            from systems.commander import map_regions
            profiles = [world.content.commanders.get(n) for n in world.commanders if n]
            k = profiles[0].regions if profiles else 20
            overlay = (map_regions(world, k), squad_orders(world))
        self.scene.draw_world(self.selected, self.inspected if self.show_inspector else None, overlay)
        if self.player_team is not None and self.economy:
            self._draw_sites()
        if self.drag_start and self.drag_now:
            (x0, y0), (x1, y1) = self.drag_start, self.drag_now
            sx0, sy0 = self.scene.to_screen(x0, y0)
            sx1, sy1 = self.scene.to_screen(x1, y1)
            arcade.draw_lrbt_rectangle_outline(min(sx0, sx1), max(sx0, sx1), min(sy0, sy1), max(sy0, sy1),
                                               palette.SELECT, 1)
        self.scene.hud.use()
        alive = world.alive_per_team()
        parts = [f"{t.name} {n}" for t, n in zip(world.scenario.teams, alive)]
        state = "paused" if self.clock.paused else f"x{self.clock.speed:g}"
        self.hud.text = (f"{world.tick / world.hz:6.1f} s  {state}  |  " + "  ".join(parts) +
                         f"  |  selected {len(self.selected)}")
        self.hud.draw()
        if self.economy:
            self._draw_stock()
        if self.attack_move_armed:
            self.hint.text = "attack-move: left click a point (Esc cancels)"
            self.hint.draw()
        elif self.placing is not None:
            name = world.content.buildings[self.placing].name or self.placing
            self.hint.text = f"place {name}: left click (shift: keep placing), right click or Esc cancels"
            self.hint.draw()
        self.scene.draw_minimap()
        self._refresh_card()
        self.card.draw()
        mx, _my, mw, _mh = self.scene.minimap_rect()
        if self.notice_timer > 0 and self.notice:
            self.notice_text.text = self.notice
            self.notice_text.x = mx + mw + 14
            self.notice_text.y = self.card.rect[1] + self.card.rect[3] + 8 if self.card.visible else 20
            self.notice_text.draw()
        if self.show_inspector:
            self._draw_inspector()
        elif self.selected:
            self._draw_selection()
        if self.alert_timer > 0:
            self.alert_text.x = (self.width - (INSPECTOR_WIDTH if self.show_inspector else 0)) / 2
            self.alert_text.draw()
        if self.reload_error or self.note_timer > 0:
            self.error_text.text = self.reload_error or self.reload_note
            self.error_text.color = (255, 110, 90) if self.reload_error else (120, 230, 120)
            self.error_text.y = self.height - 70
            arcade.draw_lrbt_rectangle_filled(0, self.width, self.height - 90, self.height - 54, palette.PANEL)
            self.error_text.draw()
        if world.over:
            self._draw_end()
        if self.show_help:
            self._draw_help()
        if self.game_menu is not None:
            self.game_menu.draw()

    def _draw_selection(self) -> None:
        """Bottom right: the selected units by type, how many and their health (a bar per type)."""
        from components import Health, UnitKind, Building
        world = self.world
        kinds: dict[str, list] = {}
        for eid in self.selected:
            if not esper.entity_exists(eid):
                continue
            health = esper.try_component(eid, Health)
            kind = esper.try_component(eid, UnitKind) or esper.try_component(eid, Building)
            if health is None or kind is None:
                continue
            row = kinds.setdefault(kind.kind, [0, 0.0, 0.0])
            row[0] += 1
            row[1] += max(0.0, health.hp)
            row[2] += health.max_hp
        if not kinds:
            return
        rows = sorted(kinds.items(), key=lambda kv: (-kv[1][0], kv[0]))[:8]
        w, line = 260, 20
        h = 26 + line * len(rows)
        left, bottom = self.width - w - 10, 10
        arcade.draw_lrbt_rectangle_filled(left, left + w, bottom, bottom + h, palette.PANEL)
        if not self.panel_texts:
            self.panel_texts = [arcade.Text("", 0, 0, palette.TEXT, 11) for _ in range(9)]
        texts = self.panel_texts
        texts[0].text = f"selected {len(self.selected)}"
        texts[0].x, texts[0].y = left + 8, bottom + h - 18
        texts[0].draw()
        for i, (kind, (n, hp, max_hp)) in enumerate(rows):
            name = (world.content.units.get(kind) or world.content.buildings.get(kind))
            label = getattr(name, "name", "") or kind
            y = bottom + h - 18 - line * (i + 1)
            t = texts[i + 1]
            text = f"{n} x {label}"
            if t.text != text:
                t.text = text
            t.x, t.y = left + 8, y
            t.draw()
            frac = hp / max_hp if max_hp else 0.0
            arcade.draw_lrbt_rectangle_filled(left + 170, left + w - 10, y, y + 8, palette.BAR_BG)
            arcade.draw_lrbt_rectangle_filled(left + 170, left + 170 + (w - 180) * frac, y, y + 8,
                                              palette.HP if frac > 0.35 else palette.HP_LOW)

    def _draw_help(self) -> None:
        """F1: every key, over the match."""
        w, h = self.width, self.height
        box_w, line = 760, 24
        box_h = 60 + line * len(HELP)
        left, top = (w - box_w) / 2, (h + box_h) / 2
        arcade.draw_lrbt_rectangle_filled(left, left + box_w, top - box_h, top, (12, 12, 16, 235))
        if not self.help_texts:
            self.help_texts.append(arcade.Text("Keys (F1 closes)", 0, 0, palette.SELECT, 16, bold=True))
            for keys, what in HELP:
                self.help_texts.append(arcade.Text(keys, 0, 0, palette.SELECT, 13))
                self.help_texts.append(arcade.Text(what, 0, 0, palette.TEXT, 13))
        title, rest = self.help_texts[0], self.help_texts[1:]
        title.x, title.y = left + 20, top - 32
        title.draw()
        for i in range(len(HELP)):
            y = top - 62 - i * line
            keys, what = rest[2 * i], rest[2 * i + 1]
            keys.x, keys.y, what.x, what.y = left + 20, y, left + 220, y
            keys.draw()
            what.draw()

    def _draw_stock(self) -> None:
        """Top right: what you can spend and your population; a spectator sees every team's."""
        world = self.world
        if self.player_team is not None:
            t = self.player_team
            text = (f"resources {economy.available(world, t)}    population "
                    f"{economy.population_used(world, t)}/{economy.population_cap(world, t)}")
        else:
            text = "    ".join(f"{team.name}: resources {economy.available(world, t)}  population "
                               f"{economy.population_used(world, t)}/{economy.population_cap(world, t)}"
                               for t, team in enumerate(world.scenario.teams))
        if self.stock_text.text != text:
            self.stock_text.text = text
        self.stock_text.x = self.width - 12 - (INSPECTOR_WIDTH if self.show_inspector else 0)   # left of the panel
        self.stock_text.draw()

    def _draw_sites(self) -> None:
        """Under the world camera: your build orders not yet placed (outlines) and the placement ghost."""
        world = self.world
        self.scene.camera.use()
        for kind, x, y in orders.pending_sites(world, self.player_team):
            self._ghost(kind, x, y, palette.GHOST_FREE, filled=False)
        if self.placing is None:
            return
        wx, wy = self.to_world(*self.mouse)
        tx, ty = orders.placement(world, self.placing, wx, wy)
        builder = orders.builder_for(world, self.selected, tx, ty) or 0
        state, _why = orders.site_check(world, self.player_team, self.placing, tx, ty, builder)
        colour = {orders.FREE: palette.GHOST_FREE, orders.UNITS: palette.GHOST_UNITS}.get(state, palette.GHOST_BLOCKED)
        self._ghost(self.placing, tx, ty, colour, filled=True)

    def _ghost(self, kind: str, tx: int, ty: int, colour, filled: bool) -> None:
        w, h = self.world.content.buildings[kind].size
        left, top = self.scene.to_screen(tx, ty)
        right, bottom = left + w * TILE, top - h * TILE
        if filled:
            arcade.draw_lrbt_rectangle_filled(left, right, bottom, top, tuple(colour) + (120,))
        arcade.draw_lrbt_rectangle_outline(left, right, bottom, top, colour, 2)

    def _draw_inspector(self) -> None:
        world = self.world
        eid = self.inspected
        commander = None
        notes = None
        if eid is None:
            title = "inspector: click a unit"
            explanation = None
        else:
            team = esper.component_for_entity(eid, Team).team if esper.entity_exists(eid) else None
            record = world.decisions.latest("npc", eid)
            explanation = None if record is None else ex.explain(record, lambda aid: _ledger_state(world, aid))
            title = f"entity {eid}" + ("" if record is not None else " (no brain)")
            if record is None:                       # a worker or a building: what the ledger says it does
                described = entities.explain_entity(world, eid, max(0, world.tick - entities.HISTORY_TICKS))
                notes = entities.entity_lines(described)[1:] if described else None
            if team is not None:
                commander = world.decisions.latest("commander", team)
        self.inspector.draw(title, explanation, commander, notes)

    def _draw_end(self) -> None:
        world = self.world
        w, h = self.width, self.height
        arcade.draw_lrbt_rectangle_filled(w / 2 - 260, w / 2 + 260, h / 2 - 60, h / 2 + 80, palette.PANEL)
        if world.winner is None:
            self.banner.text = "Draw"
        elif self.player_team is None:
            self.banner.text = f"{world.scenario.teams[world.winner].name} wins"
        else:
            self.banner.text = "Victory" if world.winner == self.player_team else "Defeat"
        alive = world.alive_per_team()
        self.sub.text = (f"after {world.tick / world.hz:.0f} s  |  " +
                         ", ".join(f"{t.name} {n} left" for t, n in zip(world.scenario.teams, alive)) +
                         "  |  N: new match  Esc: quit")
        self.banner.draw()
        self.sub.draw()

    # -- input ---------------------------------------------------------------------------------------------------
    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if self.menu is not None:
            self.menu.key(symbol)
            return
        self.keys_down.add(symbol)
        k = arcade.key
        mine = self.player_team is not None
        if self.game_menu is not None:
            self.game_menu.key(symbol)
            return
        if symbol == k.F1:
            self.show_help = not self.show_help
        elif symbol == k.ESCAPE:
            if self.show_help:
                self.show_help = False
            elif self.placing is not None:
                self.placing = None
            elif self.attack_move_armed:
                self.attack_move_armed = False
            else:
                self.game_menu = GameMenu(self)
        elif symbol == k.SPACE:
            self.clock.paused = not self.clock.paused
        elif symbol in (k.PLUS, k.EQUAL, k.NUM_ADD):
            self.clock.speed = min(8.0, self.clock.speed * 2)
        elif symbol in (k.MINUS, k.NUM_SUBTRACT):
            self.clock.speed = max(0.25, self.clock.speed / 2)
        elif symbol == k.I:
            self.show_inspector = not self.show_inspector
            if self.show_inspector and self.inspected is None and self.selected:
                self.inspected = self.selected[0]
        elif symbol == k.N and self.world.over:
            self.start(self.scenario_id, self.player_team, self.difficulty, self.strategy)
        elif symbol in DIGITS:
            n = DIGITS[symbol]
            if modifiers & k.MOD_CTRL:
                self.groups[n] = list(self.selected)
            elif n in self.groups:
                self.selected = list(self.groups[n])
                self.placing = None
                last, when = self.last_group
                if last == n and self.now - when <= DOUBLE_TAP:
                    self.centre_on_selection()
                self.last_group = (n, self.now)
        elif mine and symbol == k.PERIOD:
            self.select_idle_worker()
        elif mine and self.selected and self._card_key(symbol):
            pass
        elif mine and self.selected:
            if symbol == k.A:
                self.attack_move_armed = True
            elif symbol == k.S:
                orders.stop(self.world, self.selected)
                self.sounds.play("ack")
            elif symbol == k.H:
                orders.hold(self.world, self.selected)
                self.sounds.play("ack")
            elif symbol == k.R:
                orders.reload(self.world, self.selected)
                self.sounds.play("ack")
            elif symbol == k.V:
                orders.cycle_stance(self.world, self.selected)
                self.sounds.play("ack")

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        self.keys_down.discard(symbol)

    def centre_on_selection(self) -> None:
        """The view jumps to the middle of the selected units and buildings."""
        from components import Building, Position
        world = self.world
        world.activate()
        spots = []
        for eid in self.selected:
            if not esper.entity_exists(eid):
                continue
            pos = esper.try_component(eid, Position)
            b = esper.try_component(eid, Building)
            if b is not None:
                spots.append((b.tx + b.w / 2, b.ty + b.h / 2))
            elif pos is not None:
                spots.append((pos.x, pos.y))
        if spots:
            self.scene.centre_on(sum(x for x, _ in spots) / len(spots), sum(y for _, y in spots) / len(spots))
            self.clamp_camera()

    def restart(self) -> None:
        self.start(self.scenario_id, self.player_team, self.difficulty, self.strategy)

    def _card_key(self, symbol: int) -> bool:
        """A command card hotkey: a building to place (workers selected) or a unit to train (buildings)."""
        if not (arcade.key.A <= symbol <= arcade.key.Z):
            return False
        self._refresh_card()
        if not self.card.visible:
            return False
        letter = chr(symbol)
        for button in self.card.buttons:
            keys = self.card.build_keys if button.what == "build" else self.card.train_keys
            if button.what in ("build", "train") and keys.get(button.which) == letter:
                self.press(button)
                return True
        return False

    def _refresh_card(self) -> None:
        mx, _my, mw, _mh = self.scene.minimap_rect()
        self.card.update(self.world, self.player_team, self.selected, mx + mw + 14, self.mouse, self.economy)

    def press(self, button) -> None:
        """A command card button, clicked or by its hotkey."""
        world = self.world
        if not button.ok:
            self.say(button.tip)
        elif button.what == "build":
            self.placing = button.which
            self.attack_move_armed = False
        elif button.what == "train":
            action = orders.train(world, self.selected, button.which)
            if action is None:
                self.say(f"no selected building can train {button.which} now")
            self.track(action)
        elif button.what == "queue":
            action = world.ledger.get(button.which)
            if action is not None and action.active:
                orders.cancel(world, action)

    def select_idle_worker(self) -> None:
        """Select the next idle worker (after the one selected) and centre the view on it."""
        world = self.world
        after = self.selected[0] if len(self.selected) == 1 else None
        eid = orders.next_idle_worker(world, self.player_team, after)
        if eid is None:
            self.say("no idle worker")
            return
        self.selected = [eid]
        self.placing = None
        world.activate()
        from components import Position
        pos = esper.component_for_entity(eid, Position)
        self.scene.centre_on(pos.x, pos.y)

    def _place(self, wx: float, wy: float, keep: bool) -> None:
        """Left click while placing: order the build (one selected worker), or say why the ground will not do."""
        world = self.world
        kind = self.placing
        option = next((o for o in orders.build_options(world, self.player_team) if o.id == kind), None)
        if option is None or not option.ok:
            self.say(f"{kind}: {option.problem if option else 'unknown building'}")
            self.placing = None
            return
        tx, ty = orders.placement(world, kind, wx, wy)
        builder = orders.builder_for(world, self.selected, tx, ty) or 0
        state, why = orders.site_check(world, self.player_team, kind, tx, ty, builder)
        if state == orders.BLOCKED:
            self.say(f"cannot place it there: {why}")
            return
        if keep and builder and orders.placing(world, builder):
            self.say("every selected worker already has a building to place: select more workers to place more")
            return
        action = orders.build(world, self.selected, kind, tx, ty)
        if action is None:
            self.say("no selected worker can build")
            self.placing = None
            return
        self.track(action)
        if not keep:
            self.placing = None

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        if self.menu is not None:
            self.menu.click(x, y)
            return
        self.mouse = (x, y)
        if self.game_menu is not None:
            self.game_menu.click(x, y)
            return
        self._refresh_card()
        if self.card.holds(x, y):
            hit = self.card.hit(x, y)
            if hit is not None and button == arcade.MOUSE_BUTTON_LEFT:
                self.press(hit)
            return
        spot = self.scene.minimap_hit(x, y)
        if spot is not None and button == arcade.MOUSE_BUTTON_LEFT:
            self.scene.centre_on(*spot)
            return
        wx, wy = self.to_world(x, y)
        if button == arcade.MOUSE_BUTTON_LEFT:
            if self.placing is not None and self.player_team is not None:
                self._place(wx, wy, keep=bool(modifiers & arcade.key.MOD_SHIFT))
                return
            if self.attack_move_armed and self.player_team is not None and self.selected:
                orders.attack_move(self.world, self.selected, wx, wy)
                self.attack_move_armed = False
                self.scene.effects.mark(wx, wy, attack=True)
                self.sounds.play("attack")
                return
            self.drag_start = (wx, wy)
            self.drag_now = (wx, wy)
        elif button == arcade.MOUSE_BUTTON_RIGHT and self.placing is not None:
            self.placing = None
        elif button == arcade.MOUSE_BUTTON_RIGHT and self.player_team is not None and self.selected:
            actions = orders.order_at(self.world, self.player_team, self.selected, wx, wy)
            self.track(actions)
            attack = any(a is not None and a.kind == "attack" for a in actions)
            if actions:
                self.scene.effects.mark(wx, wy, attack=attack)
                self.sounds.play("attack" if attack else "ack")
        elif button == arcade.MOUSE_BUTTON_MIDDLE:
            self.pan_drag = (x, y)

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        self.mouse = (x, y)
        self.mouse_inside = True
        if self.menu is not None:
            self.menu.hover(x, y)

    def on_mouse_enter(self, x: int, y: int) -> None:
        self.mouse_inside = True

    def on_mouse_leave(self, x: int, y: int) -> None:
        self.mouse_inside = False
        self.show_inspector = False

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int) -> None:
        if self.menu is not None:
            return
        self.mouse = (x, y)
        if self.drag_start is not None:
            self.drag_now = self.to_world(x, y)
        if self.pan_drag is not None:
            cx, cy = self.camera.position
            self.camera.position = (cx - dx / self.camera.zoom, cy - dy / self.camera.zoom)
            self.clamp_camera()

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        if self.menu is not None:
            return
        if button == arcade.MOUSE_BUTTON_MIDDLE:
            self.pan_drag = None
            return
        if button != arcade.MOUSE_BUTTON_LEFT or self.drag_start is None:
            return
        x0, y0 = self.drag_start
        x1, y1 = self.to_world(x, y)
        self.drag_start = self.drag_now = None
        click = abs(x1 - x0) < 0.3 and abs(y1 - y0) < 0.3
        if click and self.show_inspector:
            hit = orders.unit_at(self.world, x1, y1)
            if hit is not None:
                self.inspected = hit
        if self.player_team is None:
            return
        if click:
            hit = orders.entity_at(self.world, x1, y1, team=self.player_team)
            picked = [hit] if hit is not None else []
        else:
            picked = orders.select_box(self.world, self.player_team, x0, y0, x1, y1)
        if modifiers & arcade.key.MOD_SHIFT:
            self.selected = sorted(set(self.selected) | set(picked))
        else:
            self.selected = picked
        self.placing = None
        if self.show_inspector and picked and (self.inspected is None or not click):
            self.inspected = picked[0]

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        if self.menu is not None or self.world is None:
            return
        zoom_to_cursor(self.camera, x, y, scroll_y)
        self.clamp_camera()

    def close(self) -> None:
        """Esc, the window's close button and the end of a scripted run all come here: finish the recording."""
        self._stop_recording()
        if self.world is not None:
            self.world.close()
            self.world = None
        super().close()


def _ledger_state(world, aid: int):
    action = world.ledger.get(aid)
    return None if action is None else [action.state, action.reason]


def clamp_view(position, zoom: float, width: float, height: float, map_w: float, map_h: float):
    """The camera's centre kept so the view stays on the map (centred on it where the map is smaller than the view).

    >>> clamp_view((-500, 100), 1.0, 400, 300, 1000, 800)
    (200.0, 150.0)
    >>> clamp_view((900, 900), 1.0, 400, 300, 1000, 200)
    (800.0, 100.0)
    """
    out = []
    for v, view, size in ((position[0], width / zoom, map_w), (position[1], height / zoom, map_h)):
        half = view / 2
        out.append(size / 2 if view >= size else max(half, min(size - half, float(v))))
    return tuple(out)


class GameMenu:
    """Esc in a match: resume, restart or quit (restart and quit ask first). The match is paused while it shows;
    arrows and Enter or clicks choose, Esc resumes."""
    OPTIONS = ["Resume", "Restart", "Quit"]

    def __init__(self, window: PlayWindow):
        self.window = window
        self.row = 0
        self.confirm: str | None = None            # "Restart" or "Quit" waiting for yes / no
        self.texts = [arcade.Text("", window.width / 2, 0, palette.TEXT, 20, anchor_x="center") for _ in range(5)]

    def items(self) -> list[str]:
        return ["Yes", "No"] if self.confirm else self.OPTIONS

    def rect(self) -> tuple[float, float, float, float]:
        w, h = self.window.width, self.window.height
        return w / 2 - 180, h / 2 - 120, 360, 240

    def item_box(self, i: int) -> tuple[float, float, float, float]:
        left, bottom, width, height = self.rect()
        y = bottom + height - 90 - i * 44
        return left + 40, y - 8, width - 80, 36

    def draw(self) -> None:
        left, bottom, width, height = self.rect()
        arcade.draw_lrbt_rectangle_filled(0, self.window.width, 0, self.window.height, (0, 0, 0, 120))
        arcade.draw_lrbt_rectangle_filled(left, left + width, bottom, bottom + height, (20, 22, 30, 245))
        arcade.draw_lrbt_rectangle_outline(left, left + width, bottom, bottom + height, palette.SELECT, 2)
        title = self.texts[0]
        title.text = f"{self.confirm} the match?" if self.confirm else "Paused"
        title.y = bottom + height - 44
        title.color = palette.SELECT
        title.draw()
        for i, item in enumerate(self.items()):
            bx, by, bw, bh = self.item_box(i)
            arcade.draw_lrbt_rectangle_filled(bx, bx + bw, by, by + bh,
                                              palette.BUTTON_HOT if i == self.row else palette.BUTTON)
            t = self.texts[1 + i]
            t.text, t.y = item, by + 10
            t.color = palette.TEXT
            t.draw()

    def key(self, symbol: int) -> None:
        k = arcade.key
        n = len(self.items())
        if symbol == k.UP:
            self.row = (self.row - 1) % n
        elif symbol == k.DOWN:
            self.row = (self.row + 1) % n
        elif symbol in (k.ENTER, k.RETURN, k.NUM_ENTER, k.SPACE):
            self.choose(self.items()[self.row])
        elif symbol == k.ESCAPE:
            if self.confirm:
                self.confirm, self.row = None, 0
            else:
                self.window.game_menu = None

    def click(self, x: float, y: float) -> None:
        for i, item in enumerate(self.items()):
            bx, by, bw, bh = self.item_box(i)
            if bx <= x <= bx + bw and by <= y <= by + bh:
                self.row = i
                self.choose(item)
                return

    def choose(self, item: str) -> None:
        window = self.window
        if item == "Resume":
            window.game_menu = None
        elif item in ("Restart", "Quit"):
            self.confirm, self.row = item, 1                # "No" first: a slip of Enter does nothing
        elif item == "No":
            self.confirm, self.row = None, 0
        elif item == "Yes":
            window.game_menu = None
            if self.confirm == "Restart":
                window.restart()
            else:
                window.close()


class StartMenu:
    """Pick a scenario, a side and a difficulty with the arrow keys (or clicks); Enter starts. An economy scenario
    also asks for the opponent's strategy profile."""

    def __init__(self, window: PlayWindow, content):
        self.window = window
        self.scenarios = sorted(content.scenarios)
        self.content = content
        self.strategies = sorted(content.strategies)
        self.choice = {"scenario": self.scenarios.index("skirmish") if "skirmish" in self.scenarios else 0,
                       "side": 0, "difficulty": 1, "opponent": 0}
        self._default_opponent()
        self.row = 0
        self.texts = [arcade.Text("", window.width / 2, 0, palette.TEXT, 20, anchor_x="center") for _ in range(10)]

    @property
    def scenario(self):
        return self.content.scenarios[self.scenarios[self.choice["scenario"]]]

    @property
    def rows(self) -> list[str]:
        if is_economy(self.scenario) and self.strategies:
            return ["scenario", "side", "opponent", "difficulty"]
        return ["scenario", "side", "difficulty"]

    def _default_opponent(self) -> None:
        """The opponent row starts at the strategy the scenario gives the other side."""
        named = [t.strategy for t in self.scenario.teams if t.strategy in self.strategies]
        self.choice["opponent"] = self.strategies.index(named[-1]) if named else 0

    def options(self, row: str) -> list[str]:
        if row == "scenario":
            return self.scenarios
        if row == "side":
            return [t.name for t in self.scenario.teams] + ["spectate"]
        if row == "opponent":
            return self.strategies
        return levels(self.content)

    def label(self, row: str) -> str:
        value = self.value(row)
        if row == "opponent":
            profile = self.content.strategies[value]
            return f"{profile.name or value} ({value})"
        if row == "scenario":
            return f"{value}: {self.content.scenarios[value].name}" if self.content.scenarios[value].name else value
        return value

    def value(self, row: str) -> str:
        opts = self.options(row)
        return opts[min(self.choice[row], len(opts) - 1)]

    def draw(self) -> None:
        h = self.window.height
        lines = [("rts", palette.SELECT, 36)]
        for i, row in enumerate(self.rows):
            mark = ">" if i == self.row else " "
            lines.append((f"{mark} {row}: < {self.label(row)} >", palette.TEXT if i == self.row else palette.DIM, 20))
        y = h * 0.7
        for t, (text, color, size) in zip(self.texts, lines):
            t.text, t.color, t.font_size, t.y = text, color, size, y
            t.draw()
            y -= size * 2.2
        bx, by, bw, bh = self.row_box(len(self.rows))
        arcade.draw_lrbt_rectangle_filled(bx, bx + bw, by, by + bh, palette.BUTTON_HOT)
        arcade.draw_lrbt_rectangle_outline(bx, bx + bw, by, by + bh, palette.SELECT, 2)
        start, hint = self.texts[len(lines)], self.texts[len(lines) + 1]
        start.text, start.color, start.font_size, start.y = "Start", palette.SELECT, 20, by + 12
        start.draw()
        hint.text, hint.color, hint.font_size, hint.y = ("arrows or clicks choose (left / right half: back / on), "
                                                         "Enter or Start starts, Esc quits", palette.DIM, 14, by - 36)
        hint.draw()

    def key(self, symbol: int) -> None:
        k = arcade.key
        row = self.rows[self.row]
        if symbol == k.UP:
            self.row = (self.row - 1) % len(self.rows)
        elif symbol == k.DOWN:
            self.row = (self.row + 1) % len(self.rows)
        elif symbol in (k.LEFT, k.RIGHT):
            n = len(self.options(row))
            self.choice[row] = (self.choice[row] + (1 if symbol == k.RIGHT else -1)) % n
            if row == "scenario":
                self._default_opponent()
        elif symbol in (k.ENTER, k.RETURN, k.NUM_ENTER):
            self.launch()
        elif symbol == k.ESCAPE:
            self.window.close()

    def row_box(self, i: int) -> tuple[float, float, float, float]:
        """Screen box (left, bottom, width, height) of row ``i``; ``len(rows)`` is the Start button."""
        w = self.window.width
        y = self.window.height * 0.7 - 36 * 2.2 - i * 20 * 2.2
        if i == len(self.rows):
            return w / 2 - 80, y - 14, 160, 44
        return w / 2 - 330, y - 8, 660, 36

    def hover(self, x: float, y: float) -> None:
        for i in range(len(self.rows)):
            bx, by, bw, bh = self.row_box(i)
            if bx <= x <= bx + bw and by <= y <= by + bh:
                self.row = i

    def click(self, x: float, y: float) -> None:
        """A click on a row picks it; on its left or right half it steps the value back or on; Start starts."""
        bx, by, bw, bh = self.row_box(len(self.rows))
        if bx <= x <= bx + bw and by <= y <= by + bh:
            self.launch()
            return
        for i in range(len(self.rows)):
            bx, by, bw, bh = self.row_box(i)
            if bx <= x <= bx + bw and by <= y <= by + bh:
                self.row = i
                self.key(arcade.key.RIGHT if x >= bx + bw / 2 else arcade.key.LEFT)
                return

    def launch(self) -> None:
        side = self.value("side")
        teams = self.options("side")[:-1]
        player = None if side == "spectate" else teams.index(side)
        if "opponent" in self.rows:
            self.window.start(self.value("scenario"), player, self.value("difficulty"), self.value("opponent"))
        else:
            self.window.start(self.value("scenario"), player, self.value("difficulty"))


def run_play(content, scenario: str | None, seed: int, player_team: int | None, difficulty: str | None = "normal",
             frames: int | None = None, screenshot: str | None = None, record: str | None = None,
             watch: bool = False, mods: list | None = None, strategy: str | None = None, mute: bool = False) -> int:
    window = PlayWindow(content, scenario, seed, player_team, difficulty, record=record, watch=watch, mods=mods,
                        strategy=strategy, mute=mute)
    if frames is None:
        # Ctrl+C or a SIGTERM ends the game as the close button does, at the next frame, between two ticks: the
        # replay so far is saved (not left as a .part file), then the command exits as interrupted. The handler
        # only sets a flag: raising from it could stop a tick, or the recorder's write, halfway. A crash leaves the
        # .part file, as `rts match` does.
        def stop(_signum, _frame):
            window.stop_requested = True

        previous = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(sig) is not signal.SIG_IGN:      # a background job ignores Ctrl+C: leave it so
                previous[sig] = signal.signal(sig, stop)
        try:
            arcade.run()
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old if old is not None else signal.SIG_DFL)
        if window.stop_requested:
            raise KeyboardInterrupt
        return 0
    run_frames(window, frames, screenshot)        # a scripted run: tests and screenshots
    return 0
