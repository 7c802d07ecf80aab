"""Property tests: malformed content is refused cleanly, every time.

Whatever is done to a valid mod — a value of the wrong type, a missing key, a reference to something that does
not exist, a cycle in a tree or a state hierarchy, a non-finite number, a file far too big — loading either
succeeds (some edits are harmless) or raises ContentError whose message names the mod's file (and a line when
there is one). Never another exception, and never a half-loaded result: a failed load leaves nothing behind,
the same clean content loads to the same hash afterwards.
"""
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from content.loader import ContentError, load_content
from tests.conftest import GRUNT_UNIT, write_mod
from tests.test_brain_content import BRAIN

UNIT = GRUNT_UNIT.replace('speed = 2.5\n', 'speed = 2.5\nbrain = "sentry"\n')

SCENARIO = '''
id = "proving"
map = "crossroads"

[[teams]]
name = "A"
color = [0, 0, 255]
ai = "brain"
commander = "uct"

[[teams.spawns]]
unit = "grunt"
at = [6, 12]

[[teams]]
name = "B"
color = [255, 0, 0]

[[teams.spawns]]
unit = "rifleman"
at = [73, 35]
'''

FILES = {"brains/sentry.toml": BRAIN, "units/grunt.toml": UNIT, "scenarios/proving.toml": SCENARIO}
ASSIGN = re.compile(r"^(\s*[A-Za-z_][\w.]*\s*=\s*)(.+)$", re.M)
WRONG = ['"text"', "[1, 2]", "true", "{ a = 1 }", "3", "-7.5", "[]", '"$nowhere"', "nan", "inf", '""']

# edits that must always be refused: (file, old, new)
BROKEN = [
    ("brains/sentry.toml", 'tree = "fire"', 'tree = "nope"'),                                  # unknown tree
    ("brains/sentry.toml", 'children = ["see", "bang"]', 'children = ["see", "seq"]'),          # tree cycle
    ("brains/sentry.toml", 'parent = "watch"\ntree = "fire"', 'parent = "shoot"\ntree = "fire"'),  # parent cycle
    ("brains/sentry.toml", '{ to = "shoot",', '{ to = "nowhere",'),                              # transition
    ("brains/sentry.toml", 'fact = "enemy_in_range" }\nnodes.bang', 'fact = "made_up" }\nnodes.bang'),
    ("brains/sentry.toml", "slope = -1.0", "slope = nan"),                                    # non-finite
    ("brains/sentry.toml", 'root = "idle"', 'root = "gone"'),                                 # missing root
    ("brains/sentry.toml", 'type = "wait"', 'type = "teleport"'),                             # unknown node type
    ("units/grunt.toml", 'brain = "sentry"', 'brain = "cortex"'),                             # unknown brain
    ("units/grunt.toml", "hp = 50.0\n", ""),                                                  # missing key
    ("units/grunt.toml", "hp = 50.0", "hp = inf"),                                            # non-finite
    ("units/grunt.toml", "speed = 2.5", 'speed = "fast"'),                                    # wrong type
    ("scenarios/proving.toml", 'map = "crossroads"', 'map = "atlantis"'),                     # unknown map
    ("scenarios/proving.toml", 'commander = "uct"', 'commander = "napoleon"'),                # unknown profile
    ("scenarios/proving.toml", 'unit = "grunt"', 'unit = "ghost"'),                           # unknown unit
    ("scenarios/proving.toml", "at = [6, 12]", "at = [600, 12]"),                             # off the map
]

CLEAN_HASH = None


def clean_hash():
    global CLEAN_HASH
    if CLEAN_HASH is None:
        with tempfile.TemporaryDirectory() as d:
            CLEAN_HASH = load_content([write_mod(Path(d) / "m", FILES)]).content_hash
    return CLEAN_HASH


def load_expecting_clean_outcome(files: dict, must_fail: bool, blamed: set):
    d = Path(tempfile.mkdtemp())
    try:
        mod = d / "mod"
        for rel, text in files.items():
            path = mod / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        try:
            load_content([mod])
        except ContentError as exc:
            msg = str(exc)
            assert "\n" not in msg
            assert any(msg.startswith(str(mod / rel)) for rel in blamed), msg     # names the mod's file...
            assert all(p.path.startswith(str(mod)) for p in exc.problems), [str(p) for p in exc.problems]
            return exc
        assert not must_fail, f"{files} loaded although it is broken"
        return None
    finally:
        shutil.rmtree(d)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(FILES)), st.integers(0, 10_000), st.sampled_from(WRONG))
def test_any_value_of_another_type_loads_or_is_refused_in_one_line(rel, pick, wrong):
    text = FILES[rel]
    spots = list(ASSIGN.finditer(text))
    m = spots[pick % len(spots)]
    broken = text[:m.start(2)] + wrong + text[m.end(2):]
    files = dict(FILES, **{rel: broken})
    exc = load_expecting_clean_outcome(files, must_fail=False, blamed=set(FILES))
    if exc is not None and exc.problems[0].line is not None:
        assert re.match(r".+:\d+: ", str(exc))
    assert load_content([write_mod(Path(tempfile.mkdtemp()) / "m", FILES)]).content_hash == clean_hash()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(FILES)), st.integers(0, 10_000))
def test_any_missing_line_loads_or_is_refused_in_one_line(rel, pick):
    lines = FILES[rel].strip("\n").splitlines()
    i = pick % len(lines)
    broken = "\n".join(lines[:i] + lines[i + 1:]) + "\n"
    load_expecting_clean_outcome(dict(FILES, **{rel: broken}), must_fail=False, blamed=set(FILES))


@pytest.mark.parametrize("rel,old,new", BROKEN)
def test_each_kind_of_mistake_is_refused_naming_the_file_and_line(rel, old, new):
    assert old in FILES[rel]
    exc = load_expecting_clean_outcome(dict(FILES, **{rel: FILES[rel].replace(old, new)}), must_fail=True,
                                       blamed={rel} | ({"scenarios/proving.toml"} if rel == "units/grunt.toml" else set()))
    assert exc.problems[0].line is not None or "file" in exc.problems[0].message


def test_a_huge_file_and_bytes_that_are_not_text_are_refused():
    huge = UNIT + "\n" + "# padding\n" * 200_000
    exc = load_expecting_clean_outcome(dict(FILES, **{"units/grunt.toml": huge}), True, {"units/grunt.toml"})
    assert "limited to" in str(exc)
    exc = load_expecting_clean_outcome(dict(FILES, **{"units/grunt.toml": b"id = \"grunt\"\n\xff\xfe\n"}), True,
                                       {"units/grunt.toml"})
    assert "not valid UTF-8" in str(exc)
    exc = load_expecting_clean_outcome(dict(FILES, **{"units/grunt.toml": 'id = "grunt"\nhp = [1,\n'}), True,
                                       {"units/grunt.toml"})
    assert "invalid TOML" in str(exc)
