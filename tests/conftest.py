import os
import textwrap
from pathlib import Path

import pytest

from content.loader import load_content


@pytest.fixture(scope="session")
def content():
    return load_content()


#: the smallest valid unit file (a mod test changes one key of it)
GRUNT_UNIT = '''
id = "grunt"
hp = 50.0
speed = 2.5

[weapon]
range = 4.0
damage = 5.0
cooldown = 1.0

[ammo]
clip = 6
'''


def write_mod(root: Path, files: dict[str, str]) -> Path:
    """Write {relative path: TOML text} under root and return root."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def arena_mod(root: Path, rows: list[str], teams: str, extra: dict[str, str] | None = None) -> Path:
    """A mod with one map ('arena') built from rows and one scenario ('arena') with the given [[teams]] TOML."""
    tiles = "\n".join(rows)
    files = {
        "maps/arena.toml": f"id = \"arena\"\ntiles = '''\n{tiles}\n'''\n",
        "scenarios/arena.toml": "id = \"arena\"\nmap = \"arena\"\n" + textwrap.dedent(teams),
    }
    files.update(extra or {})
    return write_mod(root, files)


@pytest.fixture
def make_world(tmp_path):
    """make_world(rows, teams_toml, seed=1) -> a World on a custom arena map (closed after the test)."""
    from game.world import World
    worlds = []

    def _make(rows, teams, seed=1, extra=None, controllers=None):
        mod = arena_mod(tmp_path / f"mod{len(worlds)}", rows, teams, extra)
        world = World(load_content([mod]), "arena", seed, controllers=controllers)
        worlds.append(world)
        return world

    yield _make
    for w in worlds:
        w.close()


def two_teams(blue: str, red: str, blue_ai: str = "idle", red_ai: str = "idle") -> str:
    """Two teams ([[teams]] TOML) with the given spawns text and controllers."""
    return f"""
[[teams]]
name = "Blue"
color = [0, 0, 255]
ai = "{blue_ai}"
{blue}

[[teams]]
name = "Red"
color = [255, 0, 0]
ai = "{red_ai}"
{red}
"""


def idle_teams(blue: str, red: str) -> str:
    return two_teams(blue, red)


def spawn(unit: str, x: int, y: int, count: int = 1) -> str:
    return f"""
[[teams.spawns]]
unit = "{unit}"
at = [{x}, {y}]
count = {count}
"""


def require_display() -> None:
    """At the top of a window test module: skip it without an X display (fail it in CI, where there must be one)."""
    if not os.environ.get("DISPLAY"):
        if os.environ.get("CI"):
            pytest.fail("window tests need a display in CI: run pytest under xvfb-run", pytrace=False)
        pytest.skip("no display (run under xvfb-run)", allow_module_level=True)
