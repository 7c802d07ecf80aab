"""Action executors: how the host carries out each ledger action kind, one kind per module.

Every module of this package that defines an ``Executor`` subclass with a ``kind`` adds that action kind:
the package finds them itself (``executor_classes``), so adding an action kind is adding one file here (plus
its test). ``build_executors`` gives the ledger one instance per kind; ``content.catalog.ACTIONS`` and the
content reference are derived from the classes' catalog rows.

``ActionSystem`` (system.py) is the processor that advances every started action once per tick.
"""
from __future__ import annotations

import importlib
import pkgutil

from systems.actions.base import Executor
from systems.actions.system import ActionSystem

#: modules of this package that hold shared code, not action kinds
_SHARED = frozenset({"base", "system"})


def discover(package_name: str, path) -> dict[str, type[Executor]]:
    """kind -> executor class for every module of a package (sorted by kind); ValueError on a duplicate kind."""
    found: dict[str, type[Executor]] = {}
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if info.name in _SHARED or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package_name}.{info.name}")
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Executor) and obj.kind and obj.__module__ == module.__name__:
                if obj.kind in found:
                    raise ValueError(f"action kind '{obj.kind}' is defined twice ({found[obj.kind].__module__} and "
                                     f"{module.__name__})")
                found[obj.kind] = obj
    return dict(sorted(found.items()))


_CLASSES: dict[str, type[Executor]] | None = None


def executor_classes() -> dict[str, type[Executor]]:
    """Every action kind of this package and its executor class, by kind name."""
    global _CLASSES
    if _CLASSES is None:
        _CLASSES = discover(__name__, __path__)
    return _CLASSES


def build_executors() -> dict[str, Executor]:
    """One executor instance per action kind, for a ledger."""
    return {kind: cls() for kind, cls in executor_classes().items()}


__all__ = ["Executor", "ActionSystem", "discover", "executor_classes", "build_executors"]
