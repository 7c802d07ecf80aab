"""Sound effects from Arcade's bundled CC0 sounds (Kenney): shots, hits, deaths, order acknowledgements, alerts.

Sound never stops a game: with ``--mute``, with no audio device, or when a sound cannot be loaded or played, the
game goes on silently (the first failure switches sound off and says so once on stderr). Each sound plays at most
once per ``GAP`` seconds, so a tick with 200 shots makes one shot sound, not 200.

>>> s = Sounds(muted=True)
>>> s.play("shot")
False
"""
from __future__ import annotations

import sys

#: event -> (Arcade resource, volume)
SOUNDS = {
    "shot": (":resources:sounds/laser1.wav", 0.12),
    "hit": (":resources:sounds/hit3.wav", 0.15),
    "death": (":resources:sounds/hurt2.wav", 0.3),
    "destroyed": (":resources:sounds/explosion2.wav", 0.4),
    "ack": (":resources:sounds/coin1.wav", 0.25),
    "attack": (":resources:sounds/upgrade1.wav", 0.25),
    "alert": (":resources:sounds/error4.wav", 0.5),
    "error": (":resources:sounds/error1.wav", 0.3),
}
#: the least time between two plays of one sound (seconds)
GAP = {"shot": 0.09, "hit": 0.12, "death": 0.2, "destroyed": 0.3, "ack": 0.15, "attack": 0.15, "alert": 4.0,
       "error": 0.5}


class Sounds:
    """Loads each sound on first use; ``play`` returns whether it played."""

    def __init__(self, muted: bool = False):
        self.on = not muted
        self.loaded: dict = {}
        self.last: dict[str, float] = {}
        self.now = 0.0

    def update(self, dt: float) -> None:
        self.now += dt

    def play(self, name: str) -> bool:
        if not self.on:
            return False
        if self.now - self.last.get(name, -1e9) < GAP.get(name, 0.1):
            return False
        self.last[name] = self.now
        try:
            import arcade
            sound = self.loaded.get(name)
            if sound is None:
                path, _volume = SOUNDS[name]
                sound = self.loaded[name] = arcade.load_sound(path)
            sound.play(volume=SOUNDS[name][1])
            return True
        except Exception as exc:                 # no audio device, no decoder, a broken driver: play on silently
            self.on = False
            print(f"warning: sound is off ({type(exc).__name__}: {exc})", file=sys.stderr)
            return False
