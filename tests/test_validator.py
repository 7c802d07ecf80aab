"""The validator (`rts validate`, content/loader.py) on hostile and mistaken files: line and column for syntax
errors, "did you mean" for unknown keys, every bad map row at once, and a loader that never crashes — deep
nesting, huge numbers, symlink loops and non-regular files each refused in one line with the file and line."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from content.loader import ContentError, load_content
from content.toml_guard import MAX_NESTING
from tests.conftest import GRUNT_UNIT, write_mod

ROOT = Path(__file__).resolve().parents[1]



def problems_of(tmp_path, files) -> list[str]:
    mod = write_mod(tmp_path / "mod", files)
    with pytest.raises(ContentError) as err:
        load_content([mod])
    return [str(p) for p in err.value.problems]


def only(tmp_path, files) -> str:
    found = problems_of(tmp_path, files)
    assert len(found) == 1, found
    assert "\n" not in found[0]
    return found[0]


# -- syntax errors: line and column ----------------------------------------------------------------------------
def test_a_syntax_error_names_line_and_column(tmp_path):
    msg = only(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace("speed = 2.5", "speed = = 2.5")})
    assert msg.endswith("units/grunt.toml:3:9: invalid TOML: Invalid value"), msg


def test_an_unclosed_array_names_where_it_was_opened(tmp_path):
    text = 'id = "grunt"\nhp = 50.0\nspeed = 2.5\ntags = [1, 2,\n\n'
    msg = only(tmp_path, {"units/grunt.toml": text})
    assert "units/grunt.toml:4:8: invalid TOML: " in msg and msg.endswith(
        ": the '[' opened here is never closed with ']'"), msg


# -- did you mean ----------------------------------------------------------------------------------------------
def test_unknown_keys_get_a_suggestion_at_every_level(tmp_path):
    found = problems_of(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace("speed", "sped").replace("range", "rnage")})
    assert any(p.endswith("grunt.toml:6: weapon.rnage: unknown key 'rnage' (did you mean 'range'?)") for p in found)
    assert any(p.endswith("grunt.toml:3: sped: unknown key 'sped' (did you mean 'speed'?)") for p in found)


def test_unknown_key_in_a_behavior_tree_node_suggests_that_node_types_keys(tmp_path):
    from tests.test_brain_content import BRAIN
    brain = BRAIN.replace('nodes.idle = { type = "wait", seconds = 1.0 }', 'nodes.idle = { type = "wait", secods = 1.0 }')
    found = problems_of(tmp_path, {"brains/sentry.toml": brain})
    assert any(p.endswith("trees.look.nodes.idle.secods: unknown key 'secods' (did you mean 'seconds'?)")
               for p in found), found


def test_a_far_off_unknown_key_gets_no_suggestion(tmp_path):
    found = problems_of(tmp_path, {"units/grunt.toml": GRUNT_UNIT + "zzzzqqq = 1\n"})
    assert any(p.endswith("zzzzqqq: unknown key 'zzzzqqq'") for p in found), found


# -- maps: every bad row ---------------------------------------------------------------------------------------
def test_every_bad_row_of_a_map_is_reported_at_once(tmp_path):
    rows = ["......", "..X...", "....", "......", ".Y..Z.", "......."]
    text = 'id = "m"\ntiles = """\n' + "\n".join(rows) + '\n"""\n'
    found = problems_of(tmp_path, {"maps/m.toml": text})
    assert [p.split("maps/m.toml:")[1].split(" (known")[0] for p in found] == [
        "4: tiles[1]: unknown tile 'X' at column 3",
        "5: tiles[2]: row is 4 tiles wide, the first row is 6",
        "7: tiles[4]: unknown tile 'Y' at column 2 and 1 more",
        "8: tiles[5]: row is 7 tiles wide, the first row is 6",
    ]


# -- a loader that never crashes -------------------------------------------------------------------------------
@pytest.mark.parametrize("name, text, where", [
    ("arrays", "id = 'grunt'\nx = " + "[" * 3000 + "]" * 3000, ":2:"),
    ("inline tables", "id = 'grunt'\nx = " + "{a = " * 3000 + "1" + "}" * 3000, ":2:"),
    ("dotted keys", "id = 'grunt'\n" + ".".join(["k"] * 50000) + " = 1", ":2:"),
    ("table header", "id = 'grunt'\n[" + ".".join(["k"] * 50000) + "]\nx = 1", ":2:"),
    ("inline dotted", "id = 'grunt'\nx = {" + ".".join(["k"] * 40) + " = 1}", ":2:"),
])
def test_deep_nesting_is_refused_in_one_line(tmp_path, name, text, where):
    msg = only(tmp_path, {"units/grunt.toml": text})
    assert where in msg and f"content is limited to {MAX_NESTING}" in msg, msg


def test_nesting_within_the_limit_still_parses():
    import tomllib
    from content.toml_guard import scan
    text = 'x = ' + '[' * MAX_NESTING + ']' * MAX_NESTING
    assert scan(text).problem is None and tomllib.loads(text)
    assert scan('x = ' + '[' * (MAX_NESTING + 1) + ']' * (MAX_NESTING + 1)).problem is not None


def test_a_5000_digit_integer_is_refused_in_one_line(tmp_path):
    msg = only(tmp_path, {"units/grunt.toml": GRUNT_UNIT.replace("hp = 50.0", "hp = " + "9" * 5000)})
    assert ":2:6: a number of 5000 digits; content numbers are limited to 100" in msg


def test_digits_inside_strings_are_not_numbers(tmp_path):
    name = '7' * 40 + 3 * chr(39) + 3 * chr(34) + '[[{'            # quotes and brackets inside a string too
    text = '# ' + '7' * 300 + '\n' + 'name = "' + name.replace(chr(34), chr(92) + chr(34)) + '"\n' + GRUNT_UNIT
    mod = write_mod(tmp_path / 'mod', {'units/grunt.toml': text})
    assert load_content([mod]).units['grunt'].name == name


def test_a_symlink_loop_is_refused_in_one_line(tmp_path):
    mod = write_mod(tmp_path / "mod", {"units/grunt.toml": GRUNT_UNIT})
    os.symlink("loop_b.toml", mod / "units/loop_a.toml")
    os.symlink("loop_a.toml", mod / "units/loop_b.toml")
    found = problems_of(tmp_path, {})
    assert len(found) == 2 and all("loop_" in p and "cannot read file" in p for p in found), found


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    mod = write_mod(tmp_path / "mod", {"units/grunt.toml": GRUNT_UNIT})
    os.mkfifo(mod / "units/pipe.toml")
    msg = only(tmp_path, {})
    assert msg.endswith("units/pipe.toml: not a regular file"), msg


def test_rts_validate_prints_one_line_and_exits_2(tmp_path):
    mod = write_mod(tmp_path / "mod", {"units/grunt.toml": "id = 'grunt'\nx = " + "[" * 3000 + "]" * 3000})
    proc = subprocess.run([sys.executable, "-m", "game.app.cli", "validate", "--mod", str(mod)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr + proc.stdout
    assert "units/grunt.toml:2:" in proc.stdout + proc.stderr


# -- warnings: legal, but does nothing -------------------------------------------------------------------------
def sentry(extra_states="", gates='gates = [{ fact = "enemy_visible" }]'):
    from tests.test_brain_content import BRAIN
    return BRAIN.replace('gates = [{ fact = "enemy_visible" }]', gates) + extra_states


def load_warnings(tmp_path, brain) -> list[str]:
    from tests.test_brain_content import BRAIN  # noqa: F401  (the brain named 'sentry' the mod's unit uses)
    mod = write_mod(tmp_path / "mod", {"brains/sentry.toml": brain})
    return [str(w) for w in load_content([mod]).warnings]


def test_a_state_nothing_enters_is_a_warning_with_its_line(tmp_path):
    extra = '\n[states.lost]\ntree = "look"\n'
    found = load_warnings(tmp_path, sentry(extra))
    assert len(found) == 1 and "brains/sentry.toml:" in found[0]
    assert found[0].endswith("states.lost: state 'lost' is unreachable: no candidate runs it, no transition "
                             "leads to it and it is no parent's initial state")
    line = int(found[0].split("sentry.toml:")[1].split(":")[0])
    assert sentry(extra).lstrip("\n").splitlines()[line - 1] == "[states.lost]"


def test_a_state_reached_by_a_transition_is_no_warning(tmp_path):
    extra = '\n[states.lost]\ntree = "look"\n'
    brain = sentry(extra).replace('transitions = [{ to = "shoot", when = [{ fact = "enemy_in_range" }] }]',
                                  'transitions = [{ to = "shoot", when = [{ fact = "enemy_in_range" }] }, '
                                  '{ to = "lost", when = [{ fact = "enemy_visible", value = false }] }]')
    assert load_warnings(tmp_path, brain) == []


@pytest.mark.parametrize("gates, contradiction", [
    ('[{ fact = "enemy_visible" }, { fact = "enemy_visible", value = false }]', True),
    ('[{ fact = "enemy_distance", op = ">", value = 8.0 }, { fact = "enemy_distance", op = "<", value = 3.0 }]', True),
    ('[{ fact = "enemy_distance", op = ">", value = 3.0 }, { fact = "enemy_distance", op = "<", value = 3.5 }]', False),
    ('[{ fact = "enemy_distance", op = ">=", value = 3.0 }, { fact = "enemy_distance", op = "<=", value = 3.0 }]', False),
    ('[{ fact = "enemy_visible" }, { fact = "enemy_in_range" }]', False),
])
def test_a_candidate_whose_gates_contradict_is_a_warning(tmp_path, gates, contradiction):
    found = load_warnings(tmp_path, sentry(gates=f"gates = {gates}"))
    assert bool(found) == contradiction, found
    if contradiction:
        assert "candidates.watch.gates: candidate 'watch' is never chosen: its gates" in found[0]


def test_rts_validate_prints_warnings_and_still_succeeds(tmp_path):
    mod = write_mod(tmp_path / "mod", {"brains/sentry.toml": sentry('\n[states.lost]\ntree = "look"\n')})
    proc = subprocess.run([sys.executable, "-m", "game.app.cli", "validate", "--mod", str(mod)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0 and "warning: " in proc.stdout and "state 'lost' is unreachable" in proc.stdout


# -- depths the runtime recurses over are bounded ----------------------------------------------------------------
def test_a_behavior_tree_deeper_than_the_limit_is_refused(tmp_path):
    from content.brains import MAX_TREE_DEPTH
    from tests.test_brain_content import BRAIN
    chain = "\n".join(f'nodes.n{i} = {{ type = "inverter", child = "n{i + 1}" }}' for i in range(MAX_TREE_DEPTH + 5))
    chain += f'\nnodes.n{MAX_TREE_DEPTH + 5} = {{ type = "wait", seconds = 1.0 }}\n'
    brain = BRAIN.replace('root = "idle"\nnodes.idle = { type = "wait", seconds = 1.0 }', 'root = "n0"\n' + chain)
    found = problems_of(tmp_path, {"brains/sentry.toml": brain})
    assert len(found) == 1 and f"trees are limited to {MAX_TREE_DEPTH} levels" in found[0], found


def test_planning_budgets_are_bounded_by_the_schema(tmp_path):
    """Work per plan is bounded: GOAP expansions at most 20,000, HTN task lists at most 10,000."""
    goap = (ROOT / "content/goap/guard.toml").read_text().replace("budget = 5000", "budget = 1000000")
    found = problems_of(tmp_path, {"goap/guard.toml": goap})
    assert any("budget: Input should be less than or equal to 20000" in p for p in found), found
    htn_file = next((ROOT / "content/htn").glob("*.toml"))
    text = htn_file.read_text()
    text = text.replace("\n[", "\nbudget = 100000\n\n[", 1) if "budget" not in text else text
    found = problems_of(tmp_path / "h", {f"htn/{htn_file.name}": text})
    assert any("budget: Input should be less than or equal to 10000" in p for p in found), found


# -- scenario sanity -------------------------------------------------------------------------------------------
ARENA = ["#########", "#...#...#", "#...#...#", "#########"]          # two rooms of 6 floor tiles each


def scenario_problems(tmp_path, blue, red, blue_name="Blue", red_name="Red"):
    from tests.conftest import arena_mod, two_teams
    teams = two_teams(blue, red).replace('name = "Blue"', f'name = "{blue_name}"').replace(
        'name = "Red"', f'name = "{red_name}"')
    mod = arena_mod(tmp_path / "mod", ARENA, teams)
    try:
        load_content([mod])
    except ContentError as exc:
        return [str(p) for p in exc.problems]
    return []


def test_a_spawn_that_cannot_place_its_count_is_refused_naming_how_many_fit(tmp_path):
    blue = 'spawns = [{ unit = "rifleman", at = [1, 1], count = 4 }, { unit = "rifleman", at = [2, 2], count = 3 }]'
    red = 'spawns = [{ unit = "rifleman", at = [5, 1], count = 6 }]'
    found = scenario_problems(tmp_path, blue, red)
    assert len(found) == 1 and found[0].endswith(
        "teams[0].spawns[1].count: team 'Blue' spawn 1 (3 x 'rifleman') cannot be placed: only 2 fit on the free "
        "floor reachable from (2, 2)"), found


def test_spawns_that_fit_exactly_load(tmp_path):
    blue = 'spawns = [{ unit = "rifleman", at = [1, 1], count = 4 }, { unit = "rifleman", at = [2, 2], count = 2 }]'
    red = 'spawns = [{ unit = "rifleman", at = [5, 1], count = 6 }]'
    assert scenario_problems(tmp_path, blue, red) == []


def test_a_scenario_with_too_many_units_in_all_is_refused(tmp_path):
    from content.loader import MAX_START_UNITS
    text = (ROOT / "content/scenarios/army_10000.toml").read_text().replace("count = 500", "count = 501")
    found = problems_of(tmp_path, {"scenarios/army_10000.toml": text})
    assert any(f"a scenario is limited to {MAX_START_UNITS}" in p and "army_10000.toml" in p for p in found), found


def test_the_army_scenarios_place_every_unit_they_ask_for_and_more_is_refused(tmp_path):
    """rts match --scenario army_10000 starts with its 10,000 units; a room asked to hold more than fits is refused
    (never truncated in silence)."""
    content = load_content()
    for n in (2000, 5000, 10000):
        sdef = content.scenarios[f"army_{n}"]
        assert sum(s.count for t in sdef.teams for s in t.spawns) == n
    from game.world import World
    world = World(content, "army_2000", 1)
    try:
        assert world.alive_per_team() == [1000, 1000]
    finally:
        world.close()
    # the same armies on the small crossroads map: the first room that overflows is refused, naming what fits
    text = (ROOT / "content/scenarios/army_5000.toml").read_text().replace('map = "garrison"', 'map = "crossroads"')
    blue, red = text.split('name = "Red"')
    text = re.sub(r"at = .*", "at = [6, 12]", blue) + 'name = "Red"' + re.sub(r"at = .*", "at = [73, 35]", red)
    found = problems_of(tmp_path, {"scenarios/army_5000.toml": text})
    assert any("cannot be placed: only" in p and "army_5000.toml" in p for p in found), found


def test_team_names_are_unique(tmp_path):
    blue = 'spawns = [{ unit = "rifleman", at = [1, 1], count = 1 }]'
    red = 'spawns = [{ unit = "rifleman", at = [5, 1], count = 1 }]'
    found = scenario_problems(tmp_path, blue, red, "Blue", "blue")
    assert len(found) == 1 and found[0].endswith(
        "teams[1].name: team name 'blue' is already team 0's; team names must be unique (results name teams by "
        "them)"), found


# -- types from the fact catalog: what validates runs ------------------------------------------------------------
def brain_with(tmp_path, **swap):
    from tests.test_brain_content import BRAIN
    text = BRAIN
    for old, new in swap.values():
        assert old in text
        text = text.replace(old, new)
    mod = write_mod(tmp_path / "mod", {"brains/sentry.toml": text})
    try:
        load_content([mod])
    except ContentError as exc:
        return [str(p) for p in exc.problems]
    return []


LOOK = 'nodes.idle = { type = "wait", seconds = 1.0 }'


@pytest.mark.parametrize("x, why", [
    ('"abc"', "move's x must be a number (a literal or a '$fact' that is a number); 'abc' is text"),
    ('"$enemy_visible"', "move's x must be a number (a literal or a '$fact' that is a number); '$enemy_visible' is "
                         "true or false"),
    ('"$intent_kind"', "'$intent_kind' is text"),
    ('true', "true is true or false"),
])
def test_move_coordinates_must_be_numbers(tmp_path, x, why):
    found = brain_with(tmp_path, node=(LOOK, f'nodes.idle = {{ type = "action", action = "move", params = {{ x = {x}, '
                                             f'y = 2.0 }} }}'))
    assert len(found) == 1 and "trees.look.nodes.idle.params.x: move's x must be a number" in found[0], found
    assert found[0].endswith(why), found
    assert "brains/sentry.toml:24:" in found[0]          # the line that holds the bad value, in the mod's file


def test_coordinates_from_facts_and_blackboard_numbers_pass(tmp_path):
    swap = {"node": (LOOK, 'nodes.idle = { type = "action", action = "move", params = { x = "$x", y = "$spot" } }'),
            "hook": ('[states.watch]\ninitial = "look"', '[states.watch]\ninitial = "look"\non_enter = { spot = 4.0 }')}
    assert brain_with(tmp_path, **swap) == []


def test_a_blackboard_key_set_to_text_is_not_a_coordinate(tmp_path):
    swap = {"node": (LOOK, 'nodes.idle = { type = "action", action = "move", params = { x = "$x", y = "$spot" } }'),
            "hook": ('[states.watch]\ninitial = "look"', '[states.watch]\ninitial = "look"\non_enter = { spot = "far" }')}
    found = brain_with(tmp_path, **swap)
    assert len(found) == 1 and "params.y: move's y must be a number" in found[0] and "'$spot' is text" in found[0]


GATE = 'gates = [{ fact = "enemy_visible" }]'


@pytest.mark.parametrize("gate, where, why", [
    ('{ fact = "enemy_distance", op = "<", value = "near" }', "gates[0].value",
     "'enemy_distance' is a number, so it is compared with a number, not 'near'"),
    ('{ fact = "enemy_visible", value = "yes" }', "gates[0].value",
     "'enemy_visible' is true or false, so it is compared with true or false, not 'yes'"),
    ('{ fact = "enemy_visible", op = ">", value = true }', "gates[0].op",
     "'enemy_visible' is true or false: only == and != compare it, not >"),
    ('{ fact = "intent_kind", op = ">", value = "attack" }', "gates[0].op",
     "'intent_kind' is text: only == and != compare it, not >"),
])
def test_comparisons_whose_types_cannot_match_are_refused(tmp_path, gate, where, why):
    found = brain_with(tmp_path, gate=(GATE, f"gates = [{gate}]"))
    assert len(found) == 1 and found[0].endswith(f"candidates.watch.{where}: {why}"), found


def test_a_text_fact_is_no_preference_input(tmp_path):
    found = brain_with(tmp_path, pref=('input = "enemy_distance"', 'input = "intent_kind"'))
    assert len(found) == 1 and found[0].endswith("'intent_kind' is text; a preference reads a number"), found


def test_a_condition_node_is_type_checked_too(tmp_path):
    found = brain_with(tmp_path, node=('nodes.see = { type = "condition", fact = "enemy_in_range" }',
                                       'nodes.see = { type = "condition", fact = "enemy_in_range", value = 1 }'))
    assert len(found) == 1 and "'enemy_in_range' is true or false, so it is compared with true or false, not 1" \
        in found[0], found


def test_a_move_with_a_text_coordinate_is_refused_by_the_ledger_not_a_crash():
    """At run time too (a blackboard value written by a node is not known at validation): refused, no traceback."""
    from systems.actions.enter_cover import EnterCoverExecutor
    from systems.actions.move import MoveExecutor

    class A:
        params = {"x": "abc", "y": 2.0}
    assert MoveExecutor().check_more(None, A()) == "x and y must be numbers"
    assert EnterCoverExecutor().check_more(None, A()) == "x and y must be numbers"
    assert EnterCoverExecutor().reservations(None, A()) == []


def test_a_mods_bad_coordinate_is_reported_at_the_mods_line_in_a_designers_words(tmp_path):
    """Only the mod sets the value: the error names the mod's file and line, and says 'a number'."""
    mod = write_mod(tmp_path / "mod", {"brains/guard.toml": 'id = "guard"\n\n[trees.approach]\n'
                                                           'nodes.walk = { type = "action", action = "move", '
                                                           'params = { x = "abc", y = "$enemy_y" } }\n'})
    with pytest.raises(ContentError) as err:
        load_content([mod])
    msg = str(err.value)
    assert "mod/brains/guard.toml:4: trees.approach.nodes.walk.params.x: move's x must be a number" in msg, msg
    assert "bool" not in msg.split("params.x")[1]


def test_a_value_no_scalar_type_fits_is_said_once_in_words(tmp_path):
    mod = write_mod(tmp_path / "mod", {"brains/guard.toml": 'id = "guard"\n\n[trees.approach]\n'
                                                           'nodes.walk = { type = "action", action = "move", '
                                                           'params = { x = [1, 2], y = "$enemy_y" } }\n'})
    with pytest.raises(ContentError) as err:
        load_content([mod])
    found = [str(p) for p in err.value.problems if "params.x" in str(p)]
    assert len(found) == 1 and found[0].endswith(
        "mod/brains/guard.toml:4: trees.approach.nodes.walk.params.x: should be a number, true or false, or text"), found


def test_a_scenarios_tick_limit_is_bounded(tmp_path):
    text = (ROOT / "content/scenarios/skirmish.toml").read_text()
    text = text.replace("max_ticks = 9000", "max_ticks = 4611686018427387904")
    found = problems_of(tmp_path, {"scenarios/skirmish.toml": text})
    assert any("max_ticks: Input should be less than or equal to 1080000" in p for p in found), found


# -- parameter types of build, set_rally and planned steps (issue 19.4): what validates runs ----------------------
@pytest.mark.parametrize("params, key, why", [
    ('building = "depot", x = 2.5, y = 3', "x", "build's x must be a whole number (a literal or a '$fact' that is a "
                                                "whole number); 2.5 is a number with a fraction"),
    ('building = "depot", x = 2, y = "$enemy_x"', "y", "build's y must be a whole number (a literal or a '$fact' "
                                                      "that is a whole number); '$enemy_x' is a number with fractions"),
    ('building = 3, x = 2, y = 3', "building", "build's building must be text (a literal or a '$fact' that is "
                                               "text); 3 is a number"),
    ('building = "depot", x = true, y = 3', "x", "true is true or false"),
])
def test_build_parameters_are_typed(tmp_path, params, key, why):
    found = brain_with(tmp_path, node=(LOOK, f'nodes.idle = {{ type = "action", action = "build", params = {{ {params} '
                                             f'}} }}'))
    assert len(found) == 1 and f"trees.look.nodes.idle.params.{key}: " in found[0], found
    assert found[0].endswith(why), found


@pytest.mark.parametrize("params, key, why", [
    ('x = "far", y = 3.0', "x", "set_rally's x must be a number (a literal or a '$fact' that is a number); 'far' is "
                                "text"),
    ('x = 1.0, y = 3.0, on = "no"', "on", "set_rally's on must be true or false (a literal or a '$fact' that is true "
                                          "or false); 'no' is text"),
    ('x = 1.0, y = 3.0, on = "$clip"', "on", "'$clip' is a number"),
])
def test_set_rally_parameters_are_typed(tmp_path, params, key, why):
    found = brain_with(tmp_path, node=(LOOK, f'nodes.idle = {{ type = "action", action = "set_rally", params = '
                                             f'{{ {params} }} }}'))
    assert len(found) == 1 and f"trees.look.nodes.idle.params.{key}: " in found[0], found
    assert found[0].endswith(why), found


def test_well_typed_build_and_set_rally_parameters_pass(tmp_path):
    assert brain_with(tmp_path, node=(LOOK, 'nodes.idle = { type = "action", action = "build", params = { '
                                            'building = "depot", x = 2, y = "$clip" } }')) == []
    assert brain_with(tmp_path, node=(LOOK, 'nodes.idle = { type = "action", action = "set_rally", params = { '
                                            'x = "$enemy_x", y = 2, on = "$enemy_visible" } }')) == []


def test_planned_steps_parameters_are_typed(tmp_path):
    goap = (ROOT / "content/goap/guard.toml").read_text()
    htn = (ROOT / "content/htn/guard.toml").read_text()
    good = 'params = { x = "$cover_x", y = "$cover_y" }'
    assert goap.count(good) == 1 and htn.count(good) == 1
    found = problems_of(tmp_path, {"goap/guard.toml": goap.replace(good, 'params = { x = "$intent_kind", y = 2 }'),
                                   "htn/guard.toml": htn.replace(good, 'params = { x = 1.0, y = true }')})
    assert len(found) == 2, found
    assert any("goap/guard.toml" in f and "actions.enter_cover.params.x: enter_cover's x must be a number" in f
               and f.endswith("'$intent_kind' is text") for f in found), found
    assert any("htn/guard.toml" in f and "primitives.enter_cover.params.y: enter_cover's y must be a number" in f
               and f.endswith("true is true or false") for f in found), found


def test_a_set_rally_with_a_non_finite_point_fails_its_action_instead_of_crashing():
    from types import SimpleNamespace
    from systems.actions.set_rally import SetRallyExecutor
    world = SimpleNamespace(nav=SimpleNamespace(in_bounds=lambda x, y: 0 <= x < 10 and 0 <= y < 10))
    check = SetRallyExecutor().check_more
    assert check(world, SimpleNamespace(params={"x": float("nan"), "y": 1.0})) == \
        "the rally point must be a point inside the map"
    assert check(world, SimpleNamespace(params={"x": float("inf"), "y": 1.0})) == \
        "the rally point must be a point inside the map"
    assert check(world, SimpleNamespace(params={"x": 1.0, "y": 1.0, "on": "no"})) == "on must be true or false"
    assert check(world, SimpleNamespace(params={"x": 1.0, "y": 1.0, "on": False})) is None


# -- the largest map (issue 19.2): a side and the tiles in all, so loading one stays within the stated budget ------
def _map(width: int, height: int) -> str:
    rows = "\n".join("." * width for _ in range(height))
    return f"id = \"big\"\ntiles = '''\n{rows}\n'''\n"


@pytest.mark.parametrize("width, height, why", [
    (161, 10, "map must be 2..160 tiles each way, got 161x10"),
    (10, 161, "map must be 2..160 tiles each way, got 10x161"),
    (140, 140, "map must have at most 19200 tiles in all (160 x 120), got 140x140 = 19600"),
])
def test_a_map_over_the_maximum_is_refused(tmp_path, width, height, why):
    msg = only(tmp_path, {"maps/big.toml": _map(width, height)})
    assert "maps/big.toml:2: tiles: " in msg and msg.endswith(why), msg


def test_a_map_at_the_maximum_loads(tmp_path):
    content = load_content([write_mod(tmp_path / "mod", {"maps/big.toml": _map(128, 96)})])
    assert content.maps["big"].width == 128 and content.maps["big"].height == 96
