"""Colours and the images the views draw from (the map as one picture, the region overlay).

The tiles' own colours are in the tile legend (content/tiles.py), beside everything else a tile means.
"""
from __future__ import annotations

from PIL import Image, ImageDraw

from content.tiles import LEGEND

DOOR = {"open": (150, 110, 60), "closed": (120, 70, 30), "locked": (170, 40, 170)}
PICKUP = {"ammo": (230, 200, 60), "key": (250, 250, 250)}
SELECT = (255, 255, 120)
INSPECT = (255, 60, 220)
PANEL = (12, 12, 16, 220)
BAR_BG = (60, 0, 0)
HP = (60, 220, 60)
HP_LOW = (230, 80, 40)
AMMO = (120, 180, 255)
CENTRE = (255, 255, 255)
TEXT = (235, 235, 235)
DIM = (150, 150, 160)
BACKGROUND = (10, 10, 14)
# the economy
PROGRESS = (240, 200, 60)          # a building's construction
TRAINING = (110, 210, 230)         # a building's production
TRAINING_FILL = (40, 100, 120)     # the running training's slot on the command card, filling up
RESOURCE = (130, 205, 245)         # the stockpile in the HUD
GHOST_FREE = (60, 220, 90)
GHOST_UNITS = (240, 170, 40)       # only units stand on the site: the builder waits for them
GHOST_BLOCKED = (230, 50, 40)
BUTTON = (44, 56, 80)
BUTTON_HOT = (70, 90, 130)
BUTTON_OFF = (30, 30, 34)
LABEL = (20, 20, 24)

# distinct hues for regions (cycled)
REGION_HUES = [(230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48), (145, 30, 180),
               (70, 240, 240), (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128), (220, 190, 255),
               (170, 110, 40), (255, 250, 200), (128, 0, 0), (170, 255, 195), (128, 128, 0), (255, 215, 180),
               (0, 0, 128), (128, 128, 128)]


def map_image(tmap, minimap: bool = False) -> Image.Image:
    """One pixel per tile (drawn scaled up, pixelated). On the minimap a resource field's tile is painted like the
    floor: the field is a sprite there too, which goes when the field is mined out."""
    img = Image.new("RGBA", (tmap.width, tmap.height))
    tiles = [LEGEND[ch] for row in tmap.rows for ch in row]
    floor = LEGEND["."].minimap if "." in LEGEND else (0, 0, 0)
    img.putdata([((floor if t.field is not None else t.minimap) if minimap else t.color) + (255,) for t in tiles])
    return img


def field_color(tmap, tx: int, ty: int) -> tuple[int, int, int]:
    """A resource field's colour: its tile's minimap colour in the legend (its map colour is the floor's)."""
    return LEGEND[tmap.rows[ty][tx]].minimap


def field_start(tmap, tx: int, ty: int, amount: int) -> int:
    """What a field on (tx, ty) held at the start (its tile's legend amount), for drawing how much is left."""
    spec = LEGEND[tmap.rows[ty][tx]].field
    return max(amount, spec.amount if spec is not None else amount, 1)


def field_image(size: int) -> Image.Image:
    """A resource field: a crystal (a diamond with a lit face), white and greys to be tinted with the field's
    colour, so it does not read as a building's square."""
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    m = size - 1
    draw.polygon([(m / 2, 0), (m, m / 2), (m / 2, m), (0, m / 2)], fill=(200, 200, 200, 255),
                 outline=(120, 120, 120, 255))
    draw.polygon([(m / 2, 2), (m - 3, m / 2), (m / 2, m / 2)], fill=(255, 255, 255, 255))
    return img


def building_image(w: int, h: int, done: bool) -> Image.Image:
    """A building's body in white and greys, tinted with its team's colour when drawn: complete, a solid block
    with a darker rim; under construction, diagonal stripes."""
    img = Image.new("RGBA", (w, h))
    px = img.load()
    rim = 2
    for y in range(h):
        for x in range(w):
            edge = x < rim or y < rim or x >= w - rim or y >= h - rim
            if done:
                px[x, y] = (110, 110, 110, 255) if edge else (255, 255, 255, 255)
            else:
                stripe = ((x + y) // 4) % 2 == 0
                px[x, y] = (150, 150, 150, 255) if edge else ((255, 255, 255, 255) if stripe else (70, 70, 70, 150))
    return img


def region_image(regions, alpha: int = 42) -> Image.Image:
    img = Image.new("RGBA", (regions.width, regions.height))
    img.putdata([(0, 0, 0, 0) if lab < 0 else REGION_HUES[lab % len(REGION_HUES)] + (alpha,) for lab in regions.labels])
    return img
# what a fight looks like (game/app/views/scene.py Effects)
TRACER = (255, 226, 140)
MUZZLE = (255, 190, 70)
HIT = (255, 255, 255)
MOVE_MARK = (90, 230, 110)
ATTACK_MARK = (240, 70, 60)
PING = (255, 70, 50)
