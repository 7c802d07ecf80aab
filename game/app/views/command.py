"""The command card: the panel beside the minimap that shows what is selected and what it can do.

- workers selected: a button per building type (its name, cost, build time and hotkey), greyed with the reason
  when it cannot be placed now (prerequisites, resources);
- buildings selected: a button per unit they train, and the first building's production queue: five slots, the
  running one filling with its progress; clicking a slot cancels it (a cancelled training is refunded);
- other units: their orders' keys.

The card only draws what ``game.orders`` computes (options, problems). Its background and buttons are one sprite
list and its text one pyglet batch, both rebuilt only when what the card says changes (a greyed button, the
hovered one, the queue); the running training's bar is the one sprite that moves every frame.
"""
from __future__ import annotations

from dataclasses import dataclass

import arcade
import esper
import pyglet

from components import Building, Health, UnitKind, Worker
from game import orders
from game.app.views import palette

HEIGHT = 118
BUTTON_W, BUTTON_H = 118, 40
SLOT_W, SLOT_H = 84, 24
GAP = 6
#: letters the build and production hotkeys never take: the unit orders (A, S, H, R), the inspector (I), a new
#: match (N)
RESERVED = "ashrin"


@dataclass(frozen=True, slots=True)
class Button:
    """A clickable area of the card: what (``build``, ``train`` or ``queue``), which (a building or unit id, or a
    ledger action id for a queue slot) and the tip shown when hovered."""
    what: str
    which: str | int
    left: float
    bottom: float
    width: float
    height: float
    ok: bool
    tip: str

    def holds(self, x: float, y: float) -> bool:
        return self.left <= x <= self.left + self.width and self.bottom <= y <= self.bottom + self.height


class CommandCard:
    def __init__(self, window):
        self.window = window
        self.buttons: list[Button] = []
        self.build_keys: dict[str, str] = {}          # building id -> its hotkey letter
        self.train_keys: dict[str, str] = {}          # unit id -> its hotkey letter
        self.shapes = arcade.SpriteList()
        self.batch = pyglet.graphics.Batch()
        self.texts: list = []
        self.progress = arcade.SpriteSolidColor(4, SLOT_H - 4, color=palette.TRAINING_FILL)
        self.title = arcade.Text("", 0, 0, palette.TEXT, 12)
        self.key = None
        self.running = None                           # (action, slot left) of the training shown filling
        self.visible = False
        self.rect = (0.0, 0.0, 0.0, 0.0)

    # -- what the card says ------------------------------------------------------------------------------------
    def update(self, world, team: int | None, selected: list[int], left: float, mouse: tuple[float, float],
               economy: bool = True) -> None:
        """Work out the card for ``selected`` (the player's ``team``); rebuild its shapes if it changed. Outside an
        economy match a selection of plain units gets no card."""
        self.buttons = []
        self.running = None
        self.visible = False
        if team is None or not selected:
            return
        world.activate()
        live = orders.live(world, selected)
        units = [e for e in live if esper.has_component(e, UnitKind)]
        buildings = [e for e in live if esper.has_component(e, Building)]
        workers = [e for e in units if esper.has_component(e, Worker) and esper.component_for_entity(e, Worker).can_build]
        if not (economy or workers or (buildings and not units)):
            return
        self.visible = True
        bottom = 6.0
        self.rect = (left, bottom, 520.0, HEIGHT)
        lines: list[tuple] = []                      # (text, x, y, colour, size)
        boxes: list[tuple] = []                      # (left, bottom, width, height, colour)
        top = bottom + HEIGHT
        x0 = left + 10
        if units:
            title = _summary(world, units)
            if workers:
                opts = orders.build_options(world, team)
                self.build_keys = orders.hotkeys([o.id for o in opts], [o.name for o in opts], RESERVED)
                self._option_buttons("build", opts, self.build_keys, x0, top - 30 - BUTTON_H, lines, boxes)
                tip = "choose a building, then left click to place it (shift: more), right click or Esc cancels"
            else:
                tip = "right click: move / attack   A: attack-move   S: stop   H: hold   R: reload"
            lines.append((tip, x0, bottom + 10, palette.DIM, 10))
        elif buildings:
            first = buildings[0]
            b = esper.component_for_entity(first, Building)
            bdef = world.content.buildings[b.kind]
            health = esper.component_for_entity(first, Health)
            name = bdef.name or b.kind
            more = f"  (+{len(buildings) - 1})" if len(buildings) > 1 else ""
            if b.done:
                title = f"{name}{more}   {health.hp:.0f}/{health.max_hp:.0f} hp"
            else:
                title = f"{name}{more}   under construction {100 * b.work / max(1, b.work_needed):.0f}%"
            opts = orders.train_options(world, buildings)
            self.train_keys = orders.hotkeys([o.id for o in opts], [o.name for o in opts], "in")
            self._option_buttons("train", opts, self.train_keys, x0, top - 30 - BUTTON_H, lines, boxes)
            queue = world.ledger.queue_of(first, "production")
            if bdef.trains:
                sx = x0
                lines.append(("queue", sx, bottom + 14, palette.DIM, 10))
                sx += 44
                for i in range(orders.queue_size(world)):
                    action = queue[i] if i < len(queue) else None
                    if action is None:
                        boxes.append((sx, bottom + 6, SLOT_W, SLOT_H, palette.BUTTON_OFF))
                    else:
                        unit = world.content.units.get(action.params.get("unit"))
                        label = (unit.name or unit.id) if unit is not None else "?"
                        boxes.append((sx, bottom + 6, SLOT_W, SLOT_H, palette.BUTTON))
                        lines.append((label, sx + 6, bottom + 14, palette.TEXT, 10))
                        tip = f"{label}: click to cancel (refunded)"
                        self.buttons.append(Button("queue", action.id, sx, bottom + 6, SLOT_W, SLOT_H, True, tip))
                        if action.state == "started" and action.data.get("total"):
                            self.running = (action, sx)
                    sx += SLOT_W + 4
            elif not b.done:
                lines.append(("workers: right click the site to help build it", x0, bottom + 10, palette.DIM, 10))
        else:
            self.visible = False
            return
        right = max([b.left + b.width for b in self.buttons] + [left + 500])
        self.rect = (left, bottom, min(right + 10, self.window.width - 10) - left, HEIGHT)
        hover = next((btn for btn in self.buttons if btn.holds(*mouse)), None)
        if hover is not None and hover.what != "queue" and hover.ok:
            boxes = [(bl, bb, bw, bh, palette.BUTTON_HOT if (bl, bb) == (hover.left, hover.bottom) else c)
                     for bl, bb, bw, bh, c in boxes]
        if hover is None:                            # the title, or what the hovered button does or lacks
            self._set_title(title, x0, top - 20, palette.TEXT, 12)
        else:
            self._set_title(hover.tip, x0, top - 20, palette.SELECT if hover.ok else palette.GHOST_BLOCKED, 11)
        key = (self.rect, tuple(lines), tuple(boxes))
        if key != self.key:
            self.key = key
            self._rebuild(lines, boxes)

    def _set_title(self, text: str, x: float, y: float, colour, size: int) -> None:
        t = self.title
        if (t.text, t.x, t.y, t.font_size) != (text, x, y, size):
            t.text, t.x, t.y, t.font_size = text, x, y, size
        if tuple(t.color)[:3] != tuple(colour)[:3]:
            t.color = colour

    def _option_buttons(self, what: str, opts, keys: dict, x: float, y: float, lines: list, boxes: list) -> None:
        for opt in opts:
            letter = keys.get(opt.id, "").upper()
            colour = palette.BUTTON if opt.ok else palette.BUTTON_OFF
            boxes.append((x, y, BUTTON_W, BUTTON_H, colour))
            text = palette.TEXT if opt.ok else palette.DIM
            lines.append((f"[{letter}] {opt.name}" if letter else opt.name, x + 6, y + BUTTON_H - 15, text, 10))
            lines.append((f"{opt.cost}   {opt.seconds:g} s", x + 6, y + 6, palette.RESOURCE if opt.ok else palette.DIM, 9))
            verb = "place" if what == "build" else "train"
            tip = (f"{opt.name}: {opt.problem}" if opt.problem else
                   f"{verb} {opt.name} ({letter}): {opt.cost} resources, {opt.seconds:g} s" +
                   (f"; {opt.note}" if opt.note else ""))
            self.buttons.append(Button(what, opt.id, x, y, BUTTON_W, BUTTON_H, opt.ok, tip))
            x += BUTTON_W + GAP

    def _rebuild(self, lines, boxes) -> None:
        self.shapes = arcade.SpriteList()
        left, bottom, width, height = self.rect
        self.shapes.append(arcade.SpriteSolidColor(int(width), int(height), left + width / 2, bottom + height / 2,
                                                   palette.PANEL))
        for bl, bb, bw, bh, colour in boxes:
            self.shapes.append(arcade.SpriteSolidColor(int(bw), int(bh), bl + bw / 2, bb + bh / 2, colour))
        self.batch = pyglet.graphics.Batch()
        self.texts = [arcade.Text(text, x, y, colour, size, batch=self.batch) for text, x, y, colour, size in lines]

    # -- drawing and clicks ------------------------------------------------------------------------------------
    def draw(self) -> None:
        if not self.visible:
            return
        self.shapes.draw()
        if self.running is not None:
            action, sx = self.running
            done = 1.0 - action.data["left"] / action.data["total"]
            self.progress.width = max(1.0, (SLOT_W - 4) * done)
            self.progress.center_x = sx + 2 + self.progress.width / 2
            self.progress.center_y = self.rect[1] + 6 + SLOT_H / 2
            arcade.draw_sprite(self.progress)
        self.batch.draw()
        self.title.draw()

    def holds(self, x: float, y: float) -> bool:
        left, bottom, width, height = self.rect
        return self.visible and left <= x <= left + width and bottom <= y <= bottom + height

    def hit(self, x: float, y: float) -> Button | None:
        return next((b for b in self.buttons if b.holds(x, y)), None) if self.visible else None


def _summary(world, units: list[int]) -> str:
    """'3 x Worker, 2 x Rifleman': how many of each unit type, most first; one unit with its hit points."""
    counts: dict[str, int] = {}
    for eid in units:
        kind = esper.component_for_entity(eid, UnitKind).kind
        counts[kind] = counts.get(kind, 0) + 1
    defs = world.content.units
    if len(units) == 1:
        eid = units[0]
        h = esper.component_for_entity(eid, Health)
        kind = esper.component_for_entity(eid, UnitKind).kind
        name = defs[kind].name if kind in defs and defs[kind].name else kind
        extra = ""
        w = esper.try_component(eid, Worker)
        if w is not None and w.carrying:
            extra = f"   carrying {w.carrying}"
        return f"{name}   {h.hp:.0f}/{h.max_hp:.0f} hp{extra}"
    parts = []
    for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        name = defs[kind].name if kind in defs and defs[kind].name else kind
        parts.append(f"{n} x {name}")
    return ", ".join(parts)
