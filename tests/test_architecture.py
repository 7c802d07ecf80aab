"""The floor plan, checked from the source: who may import whom, and no import circles.

- ``ai/`` is engine-free: it never imports the game, the systems, the components, esper or arcade;
- the host core (``game/`` without ``game/app/``, ``systems/``, ``components/``, ``content/``, ``saves/``) never
  imports the front ends in ``game/app/``;
- only the views (``game/app/views/``) import arcade;
- no two modules import each other, directly or through others (imports inside functions count too); importing
  ``a.b`` from outside ``a`` runs ``a/__init__.py`` first, so a package's ``__init__`` is on such a path too.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ai", "benchmarks", "components", "content", "game", "saves", "systems")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports() -> dict[str, set[str]]:
    """module -> every module name it imports (absolute), wherever in the file the import is."""
    out: dict[str, set[str]] = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            name = _module_name(path)
            found: set[str] = set()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    found |= {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found.add(node.module)
                    found |= {f"{node.module}.{alias.name}" for alias in node.names}
            out[name] = found
    return out


IMPORTS = _imports()


def _project(mods: set[str]) -> set[str]:
    """The project modules among imported names (``from pkg import mod`` names the module ``pkg.mod``)."""
    return {m for m in mods if m in IMPORTS}


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_ai_is_engine_free():
    banned = ("game", "systems", "components", "saves", "content", "esper", "arcade", "pyglet")
    bad = {m: sorted(i for i in imps if any(_under(i, b) for b in banned))
           for m, imps in IMPORTS.items() if _under(m, "ai")}
    assert {m: i for m, i in bad.items() if i} == {}


def test_host_core_never_imports_the_front_ends():
    core = [m for m in IMPORTS if any(_under(m, p) for p in ("game", "systems", "components", "content", "saves"))
            and not _under(m, "game.app")]
    assert "game.world" in core and "game.ledger" in core
    bad = {m: sorted(i for i in IMPORTS[m] if _under(i, "game.app")) for m in core}
    assert {m: i for m, i in bad.items() if i} == {}


def test_only_views_import_arcade():
    bad = [m for m, imps in IMPORTS.items()
           if any(_under(i, "arcade") or _under(i, "pyglet") for i in imps) and not _under(m, "game.app.views")]
    assert bad == []


def _packages_run(module: str, imported: str) -> set[str]:
    """The packages whose ``__init__`` importing ``imported`` from ``module`` runs first: each one above it that
    does not also hold ``module`` (a module's own packages are already being initialised when it runs)."""
    parts = imported.split(".")
    return {p for p in (".".join(parts[:i]) for i in range(1, len(parts))) if not _under(module, p)}


def test_no_import_circles():
    graph = {}
    for m, imps in IMPORTS.items():
        deps = _project(set(imps).union(*(_packages_run(m, i) for i in imps)))
        # a package's __init__ importing its own modules, and a module importing from its own package's __init__
        # (which re-exports it), are not circles between concepts
        graph[m] = {d for d in deps if not _under(m, d) and not _under(d, m)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:                  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert circles == []
