"""ai.jit, the one home of the optional Numba builds: every compiled module falls back to its plain path with one
warning when Numba cannot be imported, and ``RTS_NO_JIT`` turns each off."""
import importlib
import sys
import warnings

import pytest

from ai import jit

MODULES = ["ai.paths_jit", "ai.tactics_jit", "ai.batch_jit", "systems.perception_jit", "game.fog_jit"]


def build(name):
    """The module's Build, after the module's own first question (ai.pathfinding hands paths_jit its helpers)."""
    if name == "ai.paths_jit":
        from ai.pathfinding import jit_available
        jit_available()
    return importlib.import_module(name)._BUILD

pytestmark = [pytest.mark.skipif(not jit.INSTALLED, reason="numba is not installed (pip install -e '.[fast]')"),
              pytest.mark.skipif(jit.disabled(), reason="RTS_NO_JIT is set: no build runs")]


@pytest.mark.parametrize("name", MODULES)
def test_a_numba_that_cannot_be_imported_falls_back_with_one_warning(monkeypatch, name):
    compiled = build(name)
    monkeypatch.setitem(sys.modules, "numba", None)          # importing it raises ImportError
    monkeypatch.setattr(compiled, "built", None)
    with pytest.warns(RuntimeWarning, match="numba is installed but cannot be used .*import of numba halted"):
        assert compiled.get() is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")                       # decided once: no second warning, no second try
        assert compiled.get() is False and not compiled.available()


@pytest.mark.parametrize("name", MODULES)
def test_rts_no_jit_keeps_the_plain_path(monkeypatch, name):
    compiled = build(name)
    assert compiled.available()
    monkeypatch.setenv("RTS_NO_JIT", "1")
    assert not compiled.available()
