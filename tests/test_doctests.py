"""The examples in the docstrings of every ``ai/`` module run and give what they show.

Modules are found with ``pkgutil``, so a module that gains examples later is covered without editing this file;
a module without examples simply passes.
"""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ai

MODULES = ["ai"] + sorted(f"ai.{info.name}" for info in pkgutil.iter_modules(ai.__path__))


def test_every_ai_module_is_collected():
    assert {"ai.goap", "ai.htn", "ai.tactics", "ai.regions"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples in {name} failed (see above)"
