"""Drawing a match: the map, doors, pickups, resource fields, buildings, units with health and ammo bars, the
minimap and the commander's region overlay. Shared by the play window and the replay viewer; it only reads the
world.

Everything is batched: the map is one texture; fields, buildings, units, the loads workers carry and every bar
are sprite lists (a unit's sprite and bars are updated in a frame only when its place, health, being seen or
being selected changed); building letters are one pyglet batch, rebuilt only when a building appears, is
finished or goes; minimap dots are one block of points per team (``draw_points_array``) and the minimap's
buildings and fields one sprite list.

- a **building** is its footprint in its team's colour: a solid block with a darker rim when complete, stripes
  with a progress bar under construction; its health bar shows when it is hurt or selected, a thin bar inside
  its foot while it trains a unit;
- a **resource field** is a square in its tile's legend colour that shrinks and fades as it is mined;
- a **worker** carrying a load has a small square of the field's colour beside it.
"""
from __future__ import annotations

import weakref

import math
from operator import itemgetter

import arcade
import esper
import numpy as np
import pyglet
from PIL import Image

from components import (Ammo, Building, Door, Health, Pickup, Position, Rally, ResourceField, Selectable, SquadOrder,
                        Team, UnitKind, Worker)
from game.app.views import palette

TILE = 16
_first = itemgetter(0)


class _BuildingLook:
    """The sprites of one building: its body, its bar's background and fill, its production bar, its minimap
    square."""
    __slots__ = ("body", "bg", "bar", "prod", "mini", "done", "kind")

    def __init__(self, body, bg, bar, prod, mini, done, kind):
        self.body, self.bg, self.bar, self.prod, self.mini, self.done, self.kind = body, bg, bar, prod, mini, done, kind

    def sprites(self):
        return self.body, self.bg, self.bar, self.prod, self.mini


#: the fog's shade: what is in sight as it is, explored ground out of sight dimmed, unexplored ground black
FOG_DIM = 0.42


def fogged_image(base: np.ndarray, visible: np.ndarray, explored: np.ndarray) -> Image.Image:
    """The map picture (one RGBA pixel per tile) under a team's fog of war: the map texture is rewritten with it,
    so the fog costs no extra full-screen layer.

    >>> import numpy as np
    >>> base = np.full((1, 3, 4), 200, dtype=np.uint8)
    >>> img = fogged_image(base, np.array([[True, False, False]]), np.array([[True, True, False]]))
    >>> [img.getpixel((x, 0)) for x in range(3)]
    [(200, 200, 200, 255), (84, 84, 84, 255), (0, 0, 0, 255)]
    """
    shade = np.where(visible, 1.0, np.where(explored, FOG_DIM, 0.0))
    out = base.copy()
    out[..., :3] = (base[..., :3] * shade[..., None]).astype(np.uint8)
    out[..., 3] = 255
    return Image.fromarray(out)


def unit_image(shape: str, colour, mark, radius: int) -> Image.Image:
    """A unit type's picture: its ``shape`` in its team's ``colour`` with a dark rim, and a small mark of the type's
    ``mark`` colour in the middle (content: a unit's ``look``).

    >>> img = unit_image("triangle", (60, 120, 230), (255, 225, 80), 6)
    >>> img.size, img.getpixel((6, 7))[:3], img.getpixel((0, 0))[3]
    ((13, 13), (255, 225, 80), 0)
    """
    from PIL import ImageDraw
    n = 2 * radius + 1
    img = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    rim = tuple(max(0, int(c * 0.45)) for c in colour[:3]) + (255,)
    fill = tuple(colour[:3]) + (255,)
    r = radius

    def outline(k: float):
        c = n / 2 - 0.5
        if shape == "square":
            return [(c - k * 0.85, c - k * 0.85), (c + k * 0.85, c - k * 0.85), (c + k * 0.85, c + k * 0.85),
                    (c - k * 0.85, c + k * 0.85)]
        if shape == "triangle":
            return [(c, c - k), (c + k * 0.95, c + k * 0.8), (c - k * 0.95, c + k * 0.8)]
        if shape == "diamond":
            return [(c, c - k), (c + k, c), (c, c + k), (c - k, c)]
        return None

    body = outline(r)
    if body is None:
        d.ellipse((0, 0, n - 1, n - 1), fill=fill, outline=rim)
    else:
        d.polygon(body, fill=fill, outline=rim)
    m = max(1.0, r * 0.35)
    c = n // 2
    d.rectangle((c - m + 0.5, c - m + 0.5, c + m - 0.5, c + m - 0.5), fill=tuple(mark[:3]) + (255,))
    return img


class _Seen:
    """A building as a team remembers it (a complete footprint), drawn like a live one."""
    __slots__ = ("kind", "tx", "ty", "w", "h", "done")

    def __init__(self, kind, tx, ty, w, h):
        self.kind, self.tx, self.ty, self.w, self.h, self.done = kind, tx, ty, w, h, True


class Scene:
    def __init__(self, window, world, view_team: int | None = None):
        #: False leaves units and their bars out of the frame (the rendering benchmark's empty scene)
        self.draw_units = True
        #: whose view is drawn: a team sees only what its fog of war lets it (None: everything)
        self.view_team = view_team
        self.window = window
        self.camera = arcade.Camera2D()
        self.hud = arcade.Camera2D()
        self.world = None
        self.set_world(world)
        self.camera.position = (world.tilemap.width * TILE / 2, world.tilemap.height * TILE / 2)
        self.overlay_texture = None
        self.overlay_k = None

    # -- world -----------------------------------------------------------------------------------------------
    def set_world(self, world) -> None:
        """Show ``world`` (a new match, or a replay after a seek): every entity sprite is made afresh."""
        self.world = world
        self.team_colors = [tuple(t.color) for t in world.scenario.teams]
        tmap = world.tilemap
        map_image = palette.map_image(tmap)
        mini_image = palette.map_image(tmap, minimap=True)
        self.map_base = np.asarray(map_image).copy()      # the pictures without fog, to shade from
        self.mini_base = np.asarray(mini_image).copy()
        self.map_texture = arcade.Texture(map_image, hash=f"rts-map-{id(self)}-{id(world)}")
        self.map_sprite = arcade.Sprite(self.map_texture, scale=TILE)
        self.map_sprite.position = (tmap.width * TILE / 2, tmap.height * TILE / 2)
        self.map_list = arcade.SpriteList()
        self.map_list.append(self.map_sprite)
        self.minimap_texture = arcade.Texture(mini_image, hash=f"rts-minimap-{id(self)}-{id(world)}")
        self.objects = arcade.SpriteList()
        self.door_sprites: dict[int, arcade.Sprite] = {}
        self.door_drawn: dict[int, str] = {}       # eid -> the state its colour shows
        self.pickup_sprites: dict[int, arcade.Sprite] = {}
        world.activate()
        for eid, door in sorted(esper.get_component(Door)):
            cx, cy = self.to_screen(door.tx + 0.5, door.ty + 0.5)
            sprite = arcade.SpriteSolidColor(TILE, TILE, cx, cy, palette.DOOR[door.state])
            self.door_sprites[eid] = sprite
            self.objects.append(sprite)
        for eid, pick in sorted(esper.get_component(Pickup)):
            cx, cy = self.to_screen(pick.tx + 0.5, pick.ty + 0.5)
            sprite = arcade.SpriteSolidColor(TILE // 2, TILE // 2, cx, cy, palette.PICKUP.get(pick.kind, (200, 200, 200)))
            self.pickup_sprites[eid] = sprite
            self.objects.append(sprite)
        self.units = arcade.SpriteList()
        self.bars = arcade.SpriteList()
        self.unit_sprites: dict[int, arcade.Sprite] = {}
        self.bar_sprites: dict[int, tuple] = {}
        self.drawn: dict[int, tuple] = {}         # eid -> (screen x, y, unseen, health, selected) as last synced
        self.overlay_texture = None
        # the economy: fields, buildings, loads, and their minimap squares
        self.fields = arcade.SpriteList()
        self.field_texture = None
        self.field_sprites: dict[int, tuple] = {}        # eid -> (map sprite, minimap sprite, amount drawn)
        self.buildings = arcade.SpriteList()
        self.building_bars = arcade.SpriteList()
        self.building_looks: dict[int, _BuildingLook] = {}
        self.loads = arcade.SpriteList()
        self.load_sprites: dict[int, arcade.Sprite] = {}
        self.minimap_objects = arcade.SpriteList()
        self.building_textures: dict[tuple, arcade.Texture] = {}
        self.labels = pyglet.graphics.Batch()
        self.label_texts: list = []
        self.labels_key = None
        # the fog of war: the map and minimap textures (one pixel per tile) are shaded in place when it changes
        self.fog_key = "stale"
        self.ghosts: dict[int, tuple] = {}
        self.unit_textures: dict[tuple, arcade.Texture] = {}
        self.sprite_textures: dict[str, arcade.Texture | None] = {}           # a destroyed enemy building as last seen: eid -> sprites
        self.effects = Effects(self)
        self.sync_economy()

    # -- coordinates ---------------------------------------------------------------------------------------
    def to_screen(self, x: float, y: float) -> tuple[float, float]:
        return x * TILE, (self.world.tilemap.height - y) * TILE

    def to_world(self, sx: float, sy: float) -> tuple[float, float]:
        wx, wy, *_ = self.camera.unproject((sx, sy))
        return wx / TILE, self.world.tilemap.height - wy / TILE

    # -- the fog of war ---------------------------------------------------------------------------------------
    @property
    def fogged(self) -> bool:
        """Is a team's view drawn (rather than everything)?"""
        return self.view_team is not None and self.world.fog.enabled

    def hidden(self, team: int, x: float, y: float) -> bool:
        """Is an entity of ``team`` at (x, y) out of the viewing team's sight (an enemy it does not see now)?"""
        if not self.fogged or team == self.view_team or not self.world.enemies(self.view_team, team):
            return False
        return not self.world.fog.sees(self.view_team, x, y)

    def sees_point(self, x: float, y: float) -> bool:
        return not self.fogged or self.world.fog.sees(self.view_team, x, y)

    def sync_fog(self) -> None:
        """Shade the map and minimap textures with the viewing team's fog, only when the fog changed
        (``fog.version``) or another view is asked; objects on unexplored ground (doors, pickups, fields) hide."""
        fog = self.world.fog
        key = (fog.version, self.view_team, id(self.world)) if self.fogged else None
        if key == self.fog_key:
            return
        self.fog_key = key
        if key is None:                                   # everything: the pictures as they are
            visible = explored = np.ones((self.world.tilemap.height, self.world.tilemap.width), dtype=bool)
        else:
            visible, explored = fog.grid(self.view_team), fog.grid(self.view_team, explored=True)
        atlas = self.window.ctx.default_atlas
        for texture, base in ((self.map_texture, self.map_base), (self.minimap_texture, self.mini_base)):
            texture.image.paste(fogged_image(base, visible, explored))
            atlas.add(texture)
            atlas.update_texture_image(texture)
        self.explored_now = explored
        for sprites, comp in ((self.door_sprites, Door), (self.pickup_sprites, Pickup)):
            for eid, sprite in sprites.items():
                c = esper.try_component(eid, comp) if esper.entity_exists(eid) else None
                if c is not None:
                    sprite.visible = bool(explored[c.ty, c.tx])
        for eid, entry in self.field_sprites.items():
            field = esper.try_component(eid, ResourceField) if esper.entity_exists(eid) else None
            if field is not None:
                entry[0].visible = entry[1].visible = bool(explored[field.ty, field.tx])

    def set_view_team(self, team: int | None) -> None:
        """Draw ``team``'s view (None: everything); the replay viewer cycles it."""
        self.view_team = team
        self.fog_key = "stale"
        for eid in list(self.ghosts):
            for sprite in self.ghosts.pop(eid):
                sprite.remove_from_sprite_lists()

    # -- per frame ---------------------------------------------------------------------------------------------
    def sync(self, selected) -> set:
        """Move sprites to where the entities are now; returns the ids of the living units.

        A unit whose place on screen, hit points, being seen and being selected are as last frame is passed over
        (its sprite and bars are as they were: at 2,000 units most stand still in a frame); which enemies the
        viewing team sees is worked out for all of them at once (``Fog.seen_mask``, ``Fog.sees`` for arrays)."""
        world = self.world
        world.activate()
        selected = set(selected)
        self.sync_fog()
        rows = esper.get_components(Position, Team, Selectable, Health, UnitKind)
        alive = set(map(_first, rows))
        n = len(rows)
        unseen_of = self.unseen_mask(np.fromiter((c[1].team for _e, c in rows), np.int64, n),
                                     np.fromiter((c[0].x for _e, c in rows), np.float64, n),
                                     np.fromiter((c[0].y for _e, c in rows), np.float64, n)) if self.fogged else None
        if unseen_of is not None:
            unseen_of = unseen_of.tolist()
        height = world.tilemap.height
        unit_sprites, bar_sprites, drawn = self.unit_sprites, self.bar_sprites, self.drawn
        for i, (eid, (pos, team, sel, health, _k)) in enumerate(rows):
            sprite = unit_sprites.get(eid)
            if sprite is None:
                sprite = self._unit_sprite(_k.kind, team.team, sel.radius)
                unit_sprites[eid] = sprite
                self.units.append(sprite)
                bg = arcade.SpriteSolidColor(16, 3, color=palette.BAR_BG)
                hp = arcade.SpriteSolidColor(16, 3, color=palette.HP)
                ammo = arcade.SpriteSolidColor(16, 2, color=palette.AMMO)
                bar_sprites[eid] = (bg, hp, ammo)
                self.bars.extend((bg, hp, ammo))
            sx, sy = pos.x * TILE, (height - pos.y) * TILE           # (to_screen)
            unseen = unseen_of is not None and unseen_of[i]
            frac = max(0.0, min(1.0, health.hp / health.max_hp))
            chosen = eid in selected
            state = (sx, sy, unseen, frac, chosen)
            before = drawn.get(eid)
            if not chosen and before == state:                     # (a selected unit's ammo bar may change)
                continue
            drawn[eid] = state
            sprite.position = (sx, sy)
            bg, hp, ammo = bar_sprites[eid]
            show = (chosen or frac < 1.0) and not unseen
            if before is None or before[2] != unseen:
                sprite.visible = not unseen
            if before is None or ((before[4] or before[3] < 1.0) and not before[2]) != show:
                bg.visible = hp.visible = show
            top = sy + sprite.height / 2 + 5
            if show:
                bg.position = (sx, top)
                hp.width = max(1.0, 16 * frac)
                hp.position = (sx - 8 + hp.width / 2, top)
                hp.color = palette.HP if frac > 0.35 else palette.HP_LOW
            clip = esper.try_component(eid, Ammo) if chosen and not unseen else None
            if clip is not None or before is None or before[4]:     # (shown only while selected)
                ammo.visible = clip is not None
            if clip is not None:
                afrac = clip.clip / clip.clip_size if clip.clip_size else 0.0
                ammo.width = max(1.0, 16 * afrac)
                ammo.position = (sx - 8 + ammo.width / 2, top - 3)
        for eid in [e for e in self.unit_sprites if e not in alive]:
            self.unit_sprites.pop(eid).remove_from_sprite_lists()
            self.drawn.pop(eid, None)
            for s in self.bar_sprites.pop(eid):
                s.remove_from_sprite_lists()
        for eid, sprite in self.door_sprites.items():
            door = esper.try_component(eid, Door) if esper.entity_exists(eid) else None
            if door is not None and self.door_drawn.get(eid) != door.state:
                sprite.color = palette.DOOR[door.state]
                self.door_drawn[eid] = door.state
        for eid in [e for e in self.pickup_sprites if not esper.entity_exists(e)]:
            self.pickup_sprites.pop(eid).remove_from_sprite_lists()
        alive |= self.sync_economy(selected)
        return alive

    def unseen_mask(self, teams: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray | None:
        """``hidden`` for arrays of teams and points at once: is each an enemy the viewing team does not see now?
        None when nothing is hidden (no team's view, or fog off)."""
        if not self.fogged:
            return None
        world, view = self.world, self.view_team
        enemy = np.array([t != view and world.enemies(view, t) for t in range(len(world.scenario.teams))], dtype=bool)
        out = np.zeros(len(teams), dtype=bool)
        at = np.flatnonzero(enemy[teams]) if len(teams) else teams
        if len(at):
            out[at] = ~world.fog.seen_mask(view, xs[at], ys[at])
        return out

    def _unit_sprite(self, kind: str, team: int, radius: float) -> arcade.Sprite:
        """A unit drawn as its type's look (content), in its team's colour; one texture per (type, team)."""
        udef = self.world.content.units.get(kind)
        look = udef.look if udef is not None else None
        size = look.size if look is not None and look.size > 0 else radius
        px = max(3, int(size * TILE))
        colour = self.team_colors[team]
        if look is not None and look.sprite:
            texture = self._sprite_texture(look.sprite)
            if texture is not None:
                sprite = arcade.Sprite(texture)
                sprite.width = sprite.height = 2 * px
                sprite.color = colour
                return sprite
        shape = look.shape if look is not None else "circle"
        mark = tuple(look.colour) if look is not None else (250, 250, 250)
        key = ("unit", shape, colour, mark, px)
        texture = self.unit_textures.get(key)
        if texture is None:
            texture = arcade.Texture(unit_image(shape, colour, mark, px), hash=f"rts-unit-{key}")
            self.unit_textures[key] = texture
        return arcade.Sprite(texture)

    def _sprite_texture(self, path: str):
        """A content sprite (checked by the loader: a PNG inside its mod, or an Arcade resource), or None when it
        cannot be read (drawn as a shape instead)."""
        if path not in self.sprite_textures:
            try:
                self.sprite_textures[path] = arcade.load_texture(path)
            except Exception as exc:                      # a broken image must not stop the game
                import sys
                print(f"warning: sprite {path}: {exc}; drawing a shape instead", file=sys.stderr)
                self.sprite_textures[path] = None
        return self.sprite_textures[path]

    def sync_economy(self, selected=frozenset()) -> set:
        """Fields, buildings and carried loads as they are now; returns the ids of the living buildings."""
        world = self.world
        tmap = world.tilemap
        s = self.MINIMAP_SCALE
        mx, my, _w, _h = self.minimap_rect()
        seen = set()
        for eid, field in esper.get_component(ResourceField):
            seen.add(eid)
            entry = self.field_sprites.get(eid)
            if entry is None:
                color = palette.field_color(tmap, field.tx, field.ty)
                cx, cy = self.to_screen(field.tx + 0.5, field.ty + 0.5)
                if self.field_texture is None:
                    self.field_texture = arcade.Texture(palette.field_image(TILE))
                sprite = arcade.Sprite(self.field_texture, center_x=cx, center_y=cy)
                sprite.color = color
                mini = arcade.SpriteSolidColor(s, s, mx + (field.tx + 0.5) * s, my + (tmap.height - field.ty - 0.5) * s,
                                               color)
                self.fields.append(sprite)
                self.minimap_objects.append(mini)
                entry = (sprite, mini, None)
            if entry[2] != field.amount:                    # smaller and fainter as it is mined
                frac = max(0.0, min(1.0, field.amount / palette.field_start(tmap, field.tx, field.ty, field.amount)))
                entry[0].scale = 0.35 + 0.65 * math.sqrt(frac)
                entry[0].alpha = int(110 + 145 * frac)
                entry = (entry[0], entry[1], field.amount)
            self.field_sprites[eid] = entry
        for eid in [e for e in self.field_sprites if e not in seen]:
            for sprite in self.field_sprites.pop(eid)[:2]:
                sprite.remove_from_sprite_lists()
        buildings = set()
        ledger = world.ledger
        labels_key = []
        fogged = self.fogged
        known = world.fog.known_buildings(self.view_team) if fogged else {}
        for eid, (b, team, health) in esper.get_components(Building, Team, Health):
            buildings.add(eid)
            look = self.building_looks.get(eid)
            if look is None or look.done != b.done:
                if look is not None:
                    for sprite in look.sprites():
                        sprite.remove_from_sprite_lists()
                look = self._building_look(b, team.team)
                self.building_looks[eid] = look
            unseen = fogged and team.team != self.view_team and world.enemies(self.view_team, team.team) and \
                eid not in known
            for sprite in (look.body, look.mini):
                sprite.visible = not unseen
            if unseen:
                look.bg.visible = look.bar.visible = look.prod.visible = False
                continue
            labels_key.append((eid, b.done))
            left, top = b.tx * TILE, (tmap.height - b.ty) * TILE
            width = b.w * TILE - 4
            cx = left + b.w * TILE / 2
            frac = max(0.0, min(1.0, health.hp / health.max_hp))
            if not b.done:                                  # construction: the progress bar, always
                show, frac, color = True, b.work / max(1, b.work_needed), palette.PROGRESS
            else:
                show, color = eid in selected or frac < 1.0, palette.HP if frac > 0.35 else palette.HP_LOW
            look.bg.visible = look.bar.visible = show
            if show:
                look.bg.width = width
                look.bg.center_x, look.bg.center_y = cx, top + 4
                look.bar.width = max(1.0, width * frac)
                look.bar.center_x, look.bar.center_y = left + 2 + look.bar.width / 2, top + 4
                look.bar.color = color
            training = ledger.current(eid, "production") if b.done else None
            busy = training is not None and training.state == "started" and training.data.get("total")
            look.prod.visible = bool(busy)
            if busy:
                done = 1.0 - training.data["left"] / training.data["total"]
                look.prod.width = max(1.0, width * done)
                look.prod.center_x = left + 2 + look.prod.width / 2
                look.prod.center_y = top - b.h * TILE + 4
        for eid in [e for e in self.building_looks if e not in buildings]:
            for sprite in self.building_looks.pop(eid).sprites():
                sprite.remove_from_sprite_lists()
        self._sync_ghosts(known, buildings)
        if labels_key != self.labels_key:
            self._rebuild_labels([eid for eid, _done in labels_key])
            self.labels_key = labels_key
        carrying = set()
        for eid, (worker, pos, team) in esper.get_components(Worker, Position, Team):
            if worker.carrying <= 0 or (fogged and self.hidden(team.team, pos.x, pos.y)):
                continue                                    # an enemy's load out of sight is not drawn either
            carrying.add(eid)
            sprite = self.load_sprites.get(eid)
            if sprite is None:
                sprite = arcade.SpriteSolidColor(5, 5, color=palette.RESOURCE)
                self.load_sprites[eid] = sprite
                self.loads.append(sprite)
            sx, sy = self.to_screen(pos.x, pos.y)
            sprite.center_x, sprite.center_y = sx + 5, sy - 5
        for eid in [e for e in self.load_sprites if e not in carrying]:
            self.load_sprites.pop(eid).remove_from_sprite_lists()
        return buildings

    def _sync_ghosts(self, known: dict, alive: set) -> None:
        """Enemy buildings the viewing team saw and that are gone since (it has not seen them go): drawn as last
        seen, dimmed, until the team sees the empty ground."""
        for eid, row in known.items():
            if eid in alive or eid in self.ghosts:
                continue
            team, kind, tx, ty, w, h = row[:6]
            b = _Seen(kind, tx, ty, w, h)
            look = self._building_look(b, team)
            look.body.alpha = 170
            self.ghosts[eid] = (look.body, look.mini, look.bg, look.bar, look.prod)
            look.bg.visible = look.bar.visible = False
        for eid in [e for e in self.ghosts if e not in known or e in alive]:
            for sprite in self.ghosts.pop(eid):
                sprite.remove_from_sprite_lists()

    def _building_look(self, b, team: int) -> _BuildingLook:
        key = (b.w, b.h, b.done)
        texture = self.building_textures.get(key)
        if texture is None:
            texture = arcade.Texture(palette.building_image(b.w * TILE, b.h * TILE, b.done))
            self.building_textures[key] = texture
        color = self.team_colors[team]
        cx, cy = self.to_screen(b.tx + b.w / 2, b.ty + b.h / 2)
        bdef = self.world.content.buildings.get(b.kind)
        image = self._sprite_texture(bdef.look.sprite) if bdef is not None and bdef.look.sprite and b.done else None
        body = arcade.Sprite(image or texture, center_x=cx, center_y=cy)
        if image is not None:
            body.width, body.height = b.w * TILE, b.h * TILE
        body.color = color
        self.buildings.append(body)
        bg = arcade.SpriteSolidColor(16, 4, color=palette.BAR_BG)
        bar = arcade.SpriteSolidColor(16, 4, color=palette.HP)
        prod = arcade.SpriteSolidColor(16, 3, color=palette.TRAINING)
        prod.visible = False
        self.building_bars.extend((bg, bar, prod))
        s = self.MINIMAP_SCALE
        mx, my, _w, _h = self.minimap_rect()
        mini = arcade.SpriteSolidColor(b.w * s, b.h * s, mx + (b.tx + b.w / 2) * s,
                                       my + (self.world.tilemap.height - b.ty - b.h / 2) * s, color)
        if not b.done:
            mini.alpha = 150
        self.minimap_objects.append(mini)
        return _BuildingLook(body, bg, bar, prod, mini, b.done, b.kind)

    def _rebuild_labels(self, shown) -> None:
        """Each building's letter (its kind's initial), one batch, made again only when the buildings change."""
        self.labels = pyglet.graphics.Batch()
        self.label_texts = []
        for eid in sorted(shown):
            look = self.building_looks[eid]
            b = esper.component_for_entity(eid, Building)
            cx, cy = self.to_screen(b.tx + b.w / 2, b.ty + b.h / 2)
            size = max(7, min(b.w, b.h) * 6)
            bdef = self.world.content.buildings.get(look.kind)
            ink = tuple(bdef.look.colour) if bdef is not None else palette.LABEL
            self.label_texts.append(arcade.Text(look.kind[:1].upper(), cx, cy, ink if look.done else palette.TEXT, size, anchor_x="center", anchor_y="center", bold=True,
                                                batch=self.labels))

    def draw_world(self, selected=(), inspected=None, overlay=None) -> None:
        """The map and everything on it, under the world camera. ``overlay``: (regions, orders) to draw."""
        self.camera.use()
        self.map_list.draw(pixelated=True)
        if overlay is not None:
            self._draw_overlay(*overlay)
        self.objects.draw()
        self.fields.draw(pixelated=True)
        self.buildings.draw(pixelated=True)
        if self.building_looks:
            self.labels.draw()
        if self.draw_units:
            self.units.draw()
            self.loads.draw()
            self.bars.draw()
        self.building_bars.draw()
        self.effects.draw_world()
        for eid in selected:
            sprite = self.unit_sprites.get(eid)
            if sprite is not None:
                arcade.draw_circle_outline(sprite.center_x, sprite.center_y, sprite.width / 2 + 3, palette.SELECT, 2)
                continue
            look = self.building_looks.get(eid)
            if look is not None:
                body = look.body
                arcade.draw_lrbt_rectangle_outline(body.left - 2, body.right + 2, body.bottom - 2, body.top + 2,
                                                   palette.SELECT, 2)
                rally = esper.try_component(eid, Rally) if esper.entity_exists(eid) else None
                if rally is not None and rally.on:
                    rx, ry = self.to_screen(rally.x, rally.y)
                    arcade.draw_line(body.center_x, body.center_y, rx, ry, palette.SELECT, 1)
                    arcade.draw_circle_outline(rx, ry, 5, palette.SELECT, 2)
        if inspected is not None and inspected in self.unit_sprites:
            sprite = self.unit_sprites[inspected]
            arcade.draw_circle_outline(sprite.center_x, sprite.center_y, sprite.width / 2 + 6, palette.INSPECT, 2)

    def _draw_overlay(self, regions, orders) -> None:
        if self.overlay_texture is None or self.overlay_k != (regions.k, id(regions)):
            self.overlay_texture = arcade.Texture(palette.region_image(regions))
            self.overlay_k = (regions.k, id(regions))
        tmap = self.world.tilemap
        arcade.draw_texture_rect(self.overlay_texture, arcade.XYWH(tmap.width * TILE / 2, tmap.height * TILE / 2,
                                                                   tmap.width * TILE, tmap.height * TILE),
                                 pixelated=True)
        for r, (cx, cy) in enumerate(regions.centres):
            sx, sy = self.to_screen(cx + 0.5, cy + 0.5)
            arcade.draw_point(sx, sy, palette.CENTRE, 4)
        for (fx, fy), (tx, ty), team, kind in orders:
            sx, sy = self.to_screen(fx, fy)
            ex, ey = self.to_screen(tx, ty)
            color = self.team_colors[team]
            arcade.draw_line(sx, sy, ex, ey, color, 3 if kind == "attack" else 2)
            arcade.draw_circle_outline(ex, ey, 7, color, 2 if kind != "hold" else 4)

    # -- minimap ------------------------------------------------------------------------------------------------
    MINIMAP_SCALE = 2

    def minimap_rect(self) -> tuple[float, float, float, float]:
        tmap = self.world.tilemap
        w, h = tmap.width * self.MINIMAP_SCALE, tmap.height * self.MINIMAP_SCALE
        return 10, 10, w, h

    def draw_minimap(self) -> None:
        """Bottom-left, under the HUD camera: the map, units as dots, the camera's view as a frame."""
        x0, y0, w, h = self.minimap_rect()
        s = self.MINIMAP_SCALE
        tmap = self.world.tilemap
        arcade.draw_lrbt_rectangle_filled(x0 - 2, x0 + w + 2, y0 - 2, y0 + h + 2, palette.PANEL)
        arcade.draw_texture_rect(self.minimap_texture, arcade.LBWH(x0, y0, w, h), pixelated=True)
        if len(self.minimap_objects):
            self.minimap_objects.draw()
        world = self.world
        world.activate()
        rows = esper.get_components(Position, Team, Health, UnitKind)
        n = len(rows)
        xs = np.fromiter((c[0].x for _e, c in rows), np.float64, n)
        ys = np.fromiter((c[0].y for _e, c in rows), np.float64, n)
        teams = np.fromiter((c[1].team for _e, c in rows), np.int64, n)
        unseen = self.unseen_mask(teams, xs, ys)
        shown = np.ones(n, dtype=bool) if unseen is None else ~unseen
        points = np.column_stack([x0 + xs * s, y0 + (tmap.height - ys) * s])
        for team in sorted(set(teams[shown].tolist())):
            draw_points_array(points[shown & (teams == team)], self.team_colors[team], 3)
        # the part of the world the camera shows
        (lx, ty_) = self.to_world(0, self.window.height)
        (rx, by) = self.to_world(self.window.width, 0)
        arcade.draw_lrbt_rectangle_outline(x0 + max(0, lx) * s, x0 + min(tmap.width, rx) * s,
                                           y0 + max(0, tmap.height - by) * s, y0 + min(tmap.height, tmap.height - ty_) * s,
                                           palette.SELECT, 1)
        self.effects.draw_minimap(x0, y0, s)

    def minimap_hit(self, x: float, y: float) -> tuple[float, float] | None:
        """World point under a screen click on the minimap, or None."""
        x0, y0, w, h = self.minimap_rect()
        if not (x0 <= x <= x0 + w and y0 <= y <= y0 + h):
            return None
        s = self.MINIMAP_SCALE
        return (x - x0) / s, self.world.tilemap.height - (y - y0) / s

    def centre_on(self, wx: float, wy: float) -> None:
        self.camera.position = self.to_screen(wx, wy)




def draw_points_array(points: np.ndarray, color, size: float = 1.0) -> None:
    """``arcade.draw_points`` for an (n, 2) array of screen points: the same program, buffer and squares, the
    points written to the buffer as one block instead of one by one (the minimap's dots: 2,000 units, 4.7 -> 0.5 ms
    a frame). Falls back to ``arcade.draw_points`` on an Arcade without those."""
    if not len(points):
        return
    ctx = arcade.get_window().ctx
    program = getattr(ctx, "shape_rectangle_filled_unbuffered_program", None)
    geometry = getattr(ctx, "shape_rectangle_filled_unbuffered_geometry", None)
    buffer = getattr(ctx, "shape_rectangle_filled_unbuffered_buffer", None)
    if program is None or geometry is None or buffer is None:       # pragma: no cover - another Arcade
        arcade.draw_points(points.tolist(), color, size)
        return
    data = np.ascontiguousarray(points, dtype=np.float32)
    buffer.orphan(size=data.nbytes)
    ctx.enable(ctx.BLEND)
    program["color"] = arcade.types.Color.from_iterable(color).normalized
    program["shape"] = size, size, 0
    buffer.write(data=data.tobytes())
    geometry.render(program, instances=len(data))
    ctx.disable(ctx.BLEND)


class Effects:
    """What the player sees happen and that is not world state: shot tracers with muzzle flashes, hit flashes,
    bodies that fade, order markers and minimap pings. Fed from ``world.events`` after each tick; timed in real
    seconds (``update``); every list is capped, so a big fight costs a bounded frame.

    Tracers are one ``draw_lines`` call, flashes one ``draw_points`` call per kind.
    """
    TRACER_S = 0.12
    FLASH_S = 0.07
    HIT_S = 0.15
    DEATH_S = 1.5
    MARK_S = 0.7
    PING_S = 2.5
    CAP = 400

    def __init__(self, scene: Scene):
        # (a weak reference: the scene owns its effects, and a cycle between them would keep a replaced scene, and
        # the closed world it shows, alive until a collector pass)
        self.scene = weakref.proxy(scene)
        self.now = 0.0
        self.shots: list[tuple] = []      # (born, sx, sy, ex, ey, hit)
        self.deaths: list[tuple] = []     # (born, x, y, half width, half height, colour); width 0: a unit
        self.marks: list[tuple] = []      # (born, x, y, colour)
        self.pings: list[tuple] = []      # (born, x, y)  world tiles

    def add(self, events) -> None:
        """This tick's ``world.events``; what the viewing team cannot see is left out."""
        scene = self.scene
        for row in events:
            if row[0] == "shot":
                _k, _shooter, _target, fx, fy, tx, ty, hit, _damage = row
                if not (scene.sees_point(fx, fy) or scene.sees_point(tx, ty)):
                    continue
                sx, sy = scene.to_screen(fx, fy)
                ex, ey = scene.to_screen(tx, ty)
                self.shots.append((self.now, sx, sy, ex, ey, hit))
            elif row[0] == "death":
                _k, _eid, team, _kind, x, y, w, h = row
                if not scene.sees_point(x, y):
                    continue
                sx, sy = scene.to_screen(x, y)
                colour = scene.team_colors[team] if 0 <= team < len(scene.team_colors) else palette.HIT
                self.deaths.append((self.now, sx, sy, w * TILE / 2, h * TILE / 2, colour))
        del self.shots[:-self.CAP]
        del self.deaths[:-self.CAP // 4]

    def mark(self, x: float, y: float, attack: bool = False) -> None:
        """An order's marker where it was given (world tiles)."""
        sx, sy = self.scene.to_screen(x, y)
        self.marks.append((self.now, sx, sy, palette.ATTACK_MARK if attack else palette.MOVE_MARK))
        del self.marks[:-16]

    def ping(self, x: float, y: float) -> None:
        """A ring on the minimap (an under-attack alert)."""
        self.pings.append((self.now, x, y))
        del self.pings[:-8]

    def update(self, dt: float) -> None:
        self.now += dt
        now = self.now
        if self.shots and now - self.shots[0][0] > self.TRACER_S:
            self.shots = [e for e in self.shots if now - e[0] <= self.TRACER_S]
        if self.deaths and now - self.deaths[0][0] > self.DEATH_S:
            self.deaths = [e for e in self.deaths if now - e[0] <= self.DEATH_S]
        if self.marks and now - self.marks[0][0] > self.MARK_S:
            self.marks = [e for e in self.marks if now - e[0] <= self.MARK_S]
        if self.pings and now - self.pings[0][0] > self.PING_S:
            self.pings = [e for e in self.pings if now - e[0] <= self.PING_S]

    def draw_world(self) -> None:
        now = self.now
        bodies: dict[tuple, list] = {}                        # bodies fade out, in 4 steps: one call per step
        for born, x, y, hw, hh, colour in self.deaths:
            left = 1.0 - (now - born) / self.DEATH_S
            if left <= 0:
                continue
            alpha = 50 + 50 * min(3, int(left * 4))
            if hw:
                arcade.draw_lrbt_rectangle_filled(x - hw, x + hw, y - hh, y + hh, colour[:3] + (alpha // 2,))
            else:
                bodies.setdefault(colour[:3] + (alpha,), []).append((x, y))
        for colour, points in bodies.items():
            arcade.draw_points(points, colour, 8)
            arcade.draw_points(points, (20, 20, 20, colour[3]), 3)
        if self.shots:
            lines, muzzles, hits = [], [], []
            for born, sx, sy, ex, ey, hit in self.shots:
                lines.extend(((sx, sy), (ex, ey)))
                if now - born <= self.FLASH_S:
                    muzzles.append((sx, sy))
                if hit and now - born <= self.HIT_S:
                    hits.append((ex, ey))
            arcade.draw_lines(lines, palette.TRACER, 2)
            if muzzles:
                arcade.draw_points(muzzles, palette.MUZZLE, 5)
            if hits:
                arcade.draw_points(hits, palette.HIT, 6)
        for born, x, y, colour in self.marks:                  # a ring closing on the ordered point
            f = (now - born) / self.MARK_S
            arcade.draw_circle_outline(x, y, 4 + 12 * (1.0 - f), colour, 2)

    def draw_minimap(self, x0: float, y0: float, s: float) -> None:
        height = self.scene.world.tilemap.height
        for born, x, y in self.pings:
            f = ((self.now - born) % 0.8) / 0.8
            arcade.draw_circle_outline(x0 + x * s, y0 + (height - y) * s, 3 + 14 * f, palette.PING, 2)


def zoom_to_cursor(camera, x: float, y: float, scroll: float, lo: float = 0.4, hi: float = 4.0) -> None:
    """Zoom by the wheel's ``scroll`` keeping the world point under the cursor (x, y) where it is."""
    bx, by, *_ = camera.unproject((x, y))
    camera.zoom = max(lo, min(hi, camera.zoom * (1.1 ** scroll)))
    ax, ay, *_ = camera.unproject((x, y))
    cx, cy = camera.position
    camera.position = (cx + bx - ax, cy + by - ay)


def squad_orders(world) -> list:
    """((from x, y), (to x, y), team, kind) for every squad with an order: the squad's centre to the order's point."""
    world.activate()
    from components import Squad
    centres: dict = {}
    for _eid, (pos, team, squad, _h) in esper.get_components(Position, Team, Squad, Health):
        c = centres.setdefault((team.team, squad.squad), [0.0, 0.0, 0])
        c[0] += pos.x
        c[1] += pos.y
        c[2] += 1
    out = []
    for _eid, order in sorted(esper.get_component(SquadOrder)):
        c = centres.get((order.team, order.squad))
        if order.kind == "none" or c is None:
            continue
        out.append(((c[0] / c[2], c[1] / c[2]), (order.x, order.y), order.team, order.kind))
    return out


def run_frames(window, frames: int, screenshot: str | None = None) -> None:
    """Drive a window for ``frames`` fixed 1/60 s frames (tests, screenshots), then close it."""
    for _ in range(frames):
        window.dispatch_events()
        window.on_update(1 / 60)
        window.on_draw()
        window.flip()
    if screenshot:
        arcade.get_image(0, 0, window.width, window.height).save(screenshot)
    window.close()
