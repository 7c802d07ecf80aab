"""The fixed-step clock that lets a window drive the simulation at its own rate.

The simulation only ever advances in whole ticks of 1/hz seconds. A window
feeds the clock real frame times; the clock answers how many ticks to run now,
so the game runs at the same speed at 20 or 200 frames per second. The
simulation never sees the frame time, only the tick count.
"""
from __future__ import annotations


class FixedStepClock:
    def __init__(self, hz: int = 30, max_steps_per_frame: int = 8):
        self.step = 1.0 / hz
        self.max_steps = max_steps_per_frame
        self.accumulator = 0.0
        self.speed = 1.0
        self.paused = False

    def advance(self, frame_seconds: float) -> int:
        """Ticks to run for a frame that took ``frame_seconds`` of real time."""
        if self.paused or frame_seconds <= 0:
            return 0
        self.accumulator += frame_seconds * self.speed
        steps = int(self.accumulator / self.step)
        if steps > self.max_steps:      # we cannot keep up: drop the backlog instead of spiralling
            steps = self.max_steps
            self.accumulator = 0.0
        else:
            self.accumulator -= steps * self.step
        return steps

    @property
    def alpha(self) -> float:
        """How far between two ticks the current frame is (for interpolating drawings)."""
        return min(1.0, self.accumulator / self.step)
