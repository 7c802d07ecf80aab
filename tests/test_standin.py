"""The scripted stand-in for a human (game/app/standin.py) that `rts ladder` measures the difficulty levels with:
it plays through the ledger as the player, focuses fire, and in an economy scenario runs a standard build."""
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import esper

from components import Building, Health, Position, Team, Weapon, Worker
from game.app.standin import SOURCE, StandIn
from game.world import World

ROOT = Path(__file__).resolve().parent.parent


def _play(world, player, ticks):
    submitted = []
    orig = world.ledger.submit

    def spy(tick, kind, actor, target=0, params=None, source="", **kw):
        submitted.append((tick, kind, actor, target, source))
        return orig(tick, kind, actor, target, params, source=source, **kw)
    world.ledger.submit = spy
    try:
        for _ in range(ticks):
            player.act()
            world.step()
    finally:
        world.ledger.submit = orig
    return submitted


def test_in_a_firefight_it_orders_its_own_units_as_the_player_and_focuses_fire(content):
    world = World(content, "skirmish", 3, controllers={0: "player"}, commanders={0: ""})
    try:
        player = StandIn(world, 0)
        assert not player.economic
        orders = [o for o in _play(world, player, 900) if o[4] == SOURCE]
        world.activate()
        assert orders, "the stand-in gave no order in 30 s of a firefight"
        for _tick, _kind, actor, _target, _source in orders:
            assert not esper.entity_exists(actor) or esper.component_for_entity(actor, Team).team == 0
    finally:
        world.close()


def test_it_focuses_fire_on_the_weakest_enemy_in_reach_not_the_nearest(content):
    world = World(content, "skirmish", 3, controllers={0: "player"}, commanders={0: ""})
    try:
        world.activate()
        ours = sorted(e for e, (t, _w) in esper.get_components(Team, Weapon) if t.team == 0)
        theirs = sorted(e for e, (t, _w) in esper.get_components(Team, Weapon) if t.team == 1)
        me = ours[0]
        pos = esper.component_for_entity(me, Position)
        reach = esper.component_for_entity(me, Weapon).range
        near, weak = theirs[:2]
        for eid, dist in ((near, 1.0), (weak, min(reach, 3.0) - 0.2)):
            p = esper.component_for_entity(eid, Position)
            p.x, p.y = pos.x + dist, pos.y
        esper.component_for_entity(weak, Health).hp = 1
        world.fog.update()
        orders = [o for o in _play(world, StandIn(world, 0), 1) if o[4] == SOURCE and o[2] == me]
        assert orders and orders[0][1] == "attack" and orders[0][3] == weak, orders
    finally:
        world.close()


def test_in_an_economy_scenario_it_runs_a_standard_build(content):
    world = World(content, "econ_duel", 1, controllers={0: "player"}, commanders={0: ""})
    try:
        player = StandIn(world, 0)
        assert player.economic
        orders = _play(world, player, 2400)
        mine = Counter(kind for _t, kind, actor, _tg, source in orders if source == SOURCE)
        assert mine["gather"] and mine["train"] and mine["build"], mine
        world.activate()
        kinds = Counter(b.kind for _e, (b, t) in esper.get_components(Building, Team) if t.team == 0)
        workers = sum(1 for _e, (w, t) in esper.get_components(Worker, Team) if t.team == 0)
        assert kinds["barracks"] >= 1 and workers > 4, (kinds, workers)
        # nobody else ran the team: the scenario's strategy does not drive a player's team
        assert 0 not in world.strategic_teams
    finally:
        world.close()


def test_ladder_cli_reports_each_level_with_an_interval_and_sides():
    proc = subprocess.run([sys.executable, "-m", "game.app.cli", "ladder", "--games", "2", "--levels", "easy,hard",
                           "--ticks", "150", "--workers", "1", "--json", "--no-progress"], capture_output=True,
                          text=True, timeout=600, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    rows = out["levels"] if isinstance(out, dict) else out
    assert [r["level"] for r in rows] == ["easy", "hard"]
    for r in rows:
        assert r["games"] == 2 and r["standin_wins"] + r["draws"] + r["standin_losses"] == 2
        lo, hi = r["standin_win_rate_ci95"]
        assert 0.0 <= lo <= r["standin_win_rate"] <= hi <= 1.0
        assert sum(n for _w, n in r["standin_wins_per_side"].values()) == 2
