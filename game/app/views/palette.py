"""Colours and the images the views draw from (the map as one picture, the region overlay).

The tiles' own colours are in the tile legend (content/tiles.py), beside everything else a tile means.
"""
from __future__ import annotations

from PIL import Image

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

# distinct hues for regions (cycled)
REGION_HUES = [(230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48), (145, 30, 180),
               (70, 240, 240), (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128), (220, 190, 255),
               (170, 110, 40), (255, 250, 200), (128, 0, 0), (170, 255, 195), (128, 128, 0), (255, 215, 180),
               (0, 0, 128), (128, 128, 128)]


def map_image(tmap, minimap: bool = False) -> Image.Image:
    """One pixel per tile (drawn scaled up, pixelated)."""
    img = Image.new("RGBA", (tmap.width, tmap.height))
    tiles = [LEGEND[ch] for row in tmap.rows for ch in row]
    img.putdata([(t.minimap if minimap else t.color) + (255,) for t in tiles])
    return img


def region_image(regions, alpha: int = 42) -> Image.Image:
    img = Image.new("RGBA", (regions.width, regions.height))
    img.putdata([(0, 0, 0, 0) if lab < 0 else REGION_HUES[lab % len(REGION_HUES)] + (alpha,) for lab in regions.labels])
    return img
