"""Brains in TOML: the default ones load and compile; every kind of mistake names file, line and key."""
import pytest

from content.catalog import FACTS
from content.loader import ContentError, load_content
from tests.conftest import write_mod

BRAIN = '''
id = "sentry"
think_every = 3

[candidates.watch]
gates = [{ fact = "enemy_visible" }]
preferences = [
  { input = "enemy_distance", range = [0.0, 10.0], curve = { type = "linear", slope = -1.0, intercept = 1.0 } },
]

[states.watch]
initial = "look"

[states.look]
parent = "watch"
tree = "look"
transitions = [{ to = "shoot", when = [{ fact = "enemy_in_range" }] }]

[states.shoot]
parent = "watch"
tree = "fire"

[trees.look]
root = "idle"
nodes.idle = { type = "wait", seconds = 1.0 }

[trees.fire]
root = "seq"
nodes.seq = { type = "reactive_sequence", children = ["see", "bang"] }
nodes.see = { type = "condition", fact = "enemy_in_range" }
nodes.bang = { type = "action", action = "attack", target = "$nearest_enemy", params = { hold = 1 } }
'''


def line_of(text, needle):
    return next(i for i, line in enumerate(text.strip("\n").splitlines(), 1) if needle in line)


def broken(tmp_path, old, new):
    text = BRAIN.replace(old, new)
    assert text != BRAIN, old
    mod = write_mod(tmp_path / "mod", {"brains/sentry.toml": text})
    with pytest.raises(ContentError) as info:
        load_content([mod])
    return "\n".join(map(str, info.value.problems)), text.strip("\n")


def test_default_brains_compile(content):
    guard = content.brains["guard"]
    assert {c.id for c in guard.selector.candidates} == {"engage", "advance", "search", "retreat", "resupply"}
    assert guard.machine.states["shoot"].parent == "engage"
    assert all(content.units[u].brain == "guard" for u in ("rifleman", "heavy", "scout"))


def test_a_mod_brain_loads(tmp_path):
    content = load_content([write_mod(tmp_path / "mod", {"brains/sentry.toml": BRAIN})])
    assert content.brains["sentry"].think_every == 3


@pytest.mark.parametrize("old,new,line_key,message", [
    ('type = "wait"', 'type = "dance"', ("nodes.idle", "trees.look.nodes.idle.type"), "unknown type 'dance'"),
    ('{ to = "shoot",', '{ to = "shot",', ("transitions", "states.look.transitions[0].to"),
     "transition to missing state 'shot' (did you mean 'shoot'?)"),
    ('slope = -1.0, intercept', 'slope = nan, intercept', ("input = \"enemy_distance\"",
                                                          "candidates.watch.preferences[0].curve.slope"), ""),
    ('type = "linear", slope = -1.0, intercept = 1.0', 'type = "logistic", steepness = 0.0', ("input = \"enemy_distance\"",
     "candidates.watch.preferences[0].curve"), "a logistic curve needs a non-zero steepness"),
    ('range = [0.0, 10.0]', 'range = [10.0, 0.0]', ("input = \"enemy_distance\"", "candidates.watch.preferences[0].range"),
     "range low 10.0 must be below high 0.0"),
    ('gates = [{ fact = "enemy_visible" }]', 'gates = [{ fact = "enemy_visibel" }]', ("gates =", "candidates.watch.gates[0].fact"),
     "unknown fact 'enemy_visibel' (did you mean 'enemy_visible'?)"),
    ('children = ["see", "bang"]', 'children = ["see", "bang", "seq"]', ("nodes.seq", "trees.fire.nodes.seq.children[2]"),
     "cycle: 'seq' is reached again (seq -> seq)"),
    ('children = ["see", "bang"]', 'children = ["see", "boom"]', ("nodes.seq", "trees.fire.nodes.seq.children[1]"),
     "unknown node 'boom'"),
    ('action = "attack"', 'action = "explode"', ("nodes.bang", "trees.fire.nodes.bang.action"), "unknown action 'explode'"),
    ('tree = "fire"', 'tree = "fyre"', ('tree = "fyre"', "states.shoot.tree"), "unknown tree 'fyre' (did you mean 'fire'?)"),
    ('[states.watch]\ninitial = "look"', '[states.watch]', ("[states.watch]", "states.watch"),
     "composite state 'watch' needs 'initial'"),
    ('parent = "watch"\ntree = "fire"', 'parent = "look"\ntree = "fire"', ('tree = "look"', "states.look.tree"),
     "composite state 'look' cannot run a tree"),
    ('target = "$nearest_enemy"', 'target = "$nearest_enmy"', ("nodes.bang", "trees.fire.nodes.bang.target"),
     "unknown fact 'nearest_enmy'"),
    ('seconds = 1.0', 'seconds = -1.0', ("nodes.idle", "trees.look.nodes.idle.seconds"), "greater than 0"),
    ('nodes.idle = { type = "wait", seconds = 1.0 }', 'nodes.idle = { type = "wait", seconds = 1.0 }\nnodes.lost = { type = "succeed" }',
     ("nodes.lost", "trees.look.nodes.lost"), "not reachable from the root"),
])
def test_brain_mistakes_name_file_line_and_key(tmp_path, old, new, line_key, message):
    err, text = broken(tmp_path, old, new)
    needle, key = line_key
    expected_line = line_of(text, needle)
    assert f"sentry.toml:{expected_line}: {key}: " in err, err
    assert message in err, err


def test_a_unit_naming_a_missing_brain_and_a_brain_team_without_brains(tmp_path):
    unit = 'id = "rifleman"\nbrain = "sentinel"\n'
    mod = write_mod(tmp_path / "m1", {"units/rifleman.toml": unit})
    with pytest.raises(ContentError) as info:
        load_content([mod])
    assert "rifleman.toml:2: brain: unknown brain 'sentinel'" in str(info.value)
    mod = write_mod(tmp_path / "m2", {"units/rifleman.toml": 'id = "rifleman"\nbrain = ""\n'})
    with pytest.raises(ContentError) as info:
        load_content([mod])
    assert "unit 'rifleman' has no brain, but team 'Blue' has ai = \"brain\"" in str(info.value)


def test_nothing_is_half_loaded(tmp_path):
    mod = write_mod(tmp_path / "mod", {"brains/sentry.toml": BRAIN.replace('action = "attack"', 'action = "x"'),
                                      "units/rifleman.toml": 'id = "rifleman"\nhp = 5.0\n'})
    with pytest.raises(ContentError):
        load_content([mod])


GOAP = '''
id = "mine"

[actions.reload]
action = "reload"
pre = { has_reserve = true }
effects = { has_ammo = true }

[actions.fetch]
action = "pickup"
target_type = "crate"
effects = { has_reserve = true }

[goals]
armed = { has_ammo = true }
'''

HTN = '''
id = "mine"

[primitives.go]
action = "enter_cover"
params = { x = "$cover_x", y = "$cover_y" }
pre = { cover_known = true }
effects = { in_cover = true }

[compounds.hide]
methods = [{ name = "walk", subtasks = ["go"] }]
'''

PLANNING_BRAIN = BRAIN.replace('think_every = 3', 'think_every = 3\ngoap = "mine"\nhtn = "mine"').replace(
    'nodes.idle = { type = "wait", seconds = 1.0 }',
    'nodes.idle = { type = "sequence", children = ["arm", "hide"] }\n'
    'nodes.arm = { type = "achieve", goal = "armed" }\nnodes.hide = { type = "perform", task = "hide" }')


def test_planning_domains_load_and_brains_use_them(tmp_path):
    mod = write_mod(tmp_path / "mod", {"goap/mine.toml": GOAP, "htn/mine.toml": HTN, "brains/sentry.toml": PLANNING_BRAIN})
    content = load_content([mod])
    planning = content.brains["sentry"].planning
    assert {a.name for a in planning.goap_actions} == {"reload", "fetch"} and "hide" in planning.htn_domain.tasks


@pytest.mark.parametrize("file,old,new,needle,key,message", [
    ("goap/mine.toml", "pre = { has_reserve = true }", "pre = { has_reserv = true }", "pre =",
     "actions.reload.pre.has_reserv", "unknown fact 'has_reserv' (did you mean 'has_reserve'?)"),
    ("goap/mine.toml", 'action = "reload"', 'action = "relaod"', 'action = "relaod"', "actions.reload.action",
     "unknown action 'relaod' (did you mean 'reload'?)"),
    ("goap/mine.toml", 'target_type = "crate"', 'target_type = "gold"', "target_type", "actions.fetch.target_type",
     "unknown target type 'gold'"),
    ("goap/mine.toml", "effects = { has_ammo = true }", "effects = {}", "effects = {}", "actions.reload.effects",
     "at least 1 item"),
    ("htn/mine.toml", 'subtasks = ["go"]', 'subtasks = ["goo"]', "methods =", "compounds.hide.methods[0].subtasks[0]",
     "unknown task 'goo' (did you mean 'go'?)"),
    ("brains/sentry.toml", 'goal = "armed"', 'goal = "armored"', "nodes.arm", "trees.look.nodes.arm.goal",
     "GOAP domain 'mine' has no goal 'armored' (did you mean 'armed'?)"),
    ("brains/sentry.toml", 'task = "hide"', 'task = "seek"', "nodes.hide", "trees.look.nodes.hide.task",
     "HTN domain 'mine' has no task 'seek'"),
    ("brains/sentry.toml", 'goap = "mine"', 'goap = "yours"', 'goap = "yours"', "goap", "unknown GOAP domain 'yours'"),
])
def test_planning_mistakes_name_file_line_and_key(tmp_path, file, old, new, needle, key, message):
    files = {"goap/mine.toml": GOAP, "htn/mine.toml": HTN, "brains/sentry.toml": PLANNING_BRAIN}
    text = files[file].replace(old, new)
    assert text != files[file]
    files[file] = text
    mod = write_mod(tmp_path / "mod", files)
    with pytest.raises(ContentError) as info:
        load_content([mod])
    problems = "\n".join(map(str, info.value.problems))
    expected = line_of(text, needle)
    assert f"{file.split('/')[1]}:{expected}: {key}: " in problems, problems
    assert message in problems, problems
