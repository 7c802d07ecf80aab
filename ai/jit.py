"""One home for the optional Numba builds (the ``fast`` extra, ``pip install -e '.[fast]'``).

Five modules run a loop compiled where Numba is installed and keep a Python or numpy path that gives the same
answers everywhere else: ``ai.paths_jit`` (a path's walk back and smoothing, line of sight), ``ai.tactics_jit``
(the commander's playouts), ``ai.batch_jit`` (utility scoring for many NPCs), ``systems.perception_jit`` (the cell
index, allies, nearest enemies and the best cover tile) and ``game.fog_jit`` (sight counts, and which units each
team sees). Each holds one ``Build``, which owns what they share: whether Numba is installed (it is imported only
when a build is first needed: about half a second), the ``RTS_NO_JIT=1`` switch that keeps the plain path, the
compile on first use (or Numba's cache loaded) with a warm-up call, so that a failure shows at once, and, when
Numba cannot be imported or compile (a numpy newer than it supports, say), one warning that says what runs
instead, and the plain path from then on.

>>> build = Build("the example runs in Python", lambda njit: njit(lambda x: x + 1))
>>> build.available() == (INSTALLED and not disabled())
True
>>> broken = Build("the example runs in Python", lambda njit: 1 / 0)
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     broken.get(), broken.get()
(False, False)
>>> len(caught) == (1 if INSTALLED else 0)
True
"""
from __future__ import annotations

import importlib.util
import os
import warnings

INSTALLED = importlib.util.find_spec("numba") is not None


def disabled() -> bool:
    """Whether ``RTS_NO_JIT`` is set in the environment: every module keeps its plain path."""
    return bool(os.environ.get("RTS_NO_JIT"))


class Build:
    """A module's compiled functions, made on first use: ``make(njit)`` compiles them, calls each once (so that a
    failure happens here) and returns what the module calls; ``fallback`` says in the warning what runs instead."""

    def __init__(self, fallback: str, make):
        self.fallback = fallback
        self.make = make
        self.built = None          # what make returned; False once Numba failed

    def get(self):
        """What ``make`` returned, or False when Numba is missing or failed (warned once)."""
        if self.built is None:
            try:
                from numba import njit
                self.built = self.make(njit)
            except Exception as exc:                 # any failure of an optional accelerator falls back
                if INSTALLED:
                    warnings.warn(f"numba is installed but cannot be used ({type(exc).__name__}: {exc}); "
                                  f"{self.fallback}", RuntimeWarning, stacklevel=3)
                self.built = False
        return self.built

    def available(self) -> bool:
        """Whether the compiled functions run: Numba installed and usable, ``RTS_NO_JIT`` not set."""
        return INSTALLED and not disabled() and self.get() is not False
