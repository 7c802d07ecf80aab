"""The economy in the debugging tools: `rts replay --to`, `rts explain --entity` and `rts report` on a recorded
econ_duel, checked against the live world at the same tick."""
import json
import subprocess
import sys

import esper
import pytest

from components import Building, Health, ResourceField, Stockpile, Team, UnitKind, Worker
from game.economy import population_cap, population_used
from game.victory import team_scores

TICK = 3000           # the tick the tools are asked about
RECORDED = 3300       # ticks recorded


def rts(*args):
    return subprocess.run([sys.executable, "-m", "game.app.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def econ(tmp_path_factory):
    """(replay path, facts of the live match at TICK): the same match run in this process."""
    from content.loader import load_content
    from game.world import World
    rec = tmp_path_factory.mktemp("econ") / "e.rtsreplay"
    proc = rts("match", "--scenario", "econ_duel", "--seed", "1", "--ticks", str(RECORDED), "--record", str(rec))
    assert proc.returncode == 0, proc.stderr
    world = World(load_content(), "econ_duel", 1)
    try:
        world.run(TICK)
        world.activate()
        facts = {"buildings": {}, "stock": {}, "workers": {}, "actions": {}}
        for eid, (b, team, health) in sorted(esper.get_components(Building, Team, Health)):
            queue = [(a.id, a.params["unit"], a.state, a.data.get("left"), a.data.get("total"))
                     for a in world.ledger.queue_of(eid, "production")]
            facts["buildings"][eid] = {"kind": b.kind, "team": team.team, "tiles": [b.tx, b.ty, b.w, b.h],
                                       "hp": round(health.hp, 1), "done": b.done, "work": b.work,
                                       "work_needed": b.work_needed, "queue": queue}
        for _eid, s in esper.get_component(Stockpile):
            facts["stock"][s.team] = (s.amount, s.gathered, world.ledger.held_amount(("stock", s.team)))
        facts["scores"] = team_scores(world)
        facts["population"] = [(population_used(world, t), population_cap(world, t)) for t in (0, 1)]
        for eid, (w, _k) in sorted(esper.get_components(Worker, UnitKind)):
            action = world.ledger.current(eid)
            facts["workers"][eid] = w.carrying
            if action is not None:
                facts["actions"][eid] = (action.kind, action.id, dict(action.data), action.target)
        facts["done"] = {}
        for a in sorted(world.ledger.actions.values(), key=lambda a: (a.end_tick, a.id)):
            if a.done:
                facts["done"].setdefault(a.actor, []).append([a.id, a.kind, a.state, a.reason, a.end_tick])
        facts["fields"] = sorted(esper.get_component(ResourceField))[0][0]
        facts["hash"] = world.summary()["sync_hash"]
    finally:
        world.close()
    return rec, facts


def test_replay_to_lists_buildings_and_stockpiles_as_the_live_world_has_them(econ):
    rec, facts = econ
    proc = rts("replay", str(rec), "--to", str(TICK), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["sync_hash"] == facts["hash"]
    listed = {b["entity"]: b for b in out["building_list"]}
    assert set(listed) == set(facts["buildings"]) and len(listed) >= 2
    for eid, want in facts["buildings"].items():
        got = listed[eid]
        assert (got["kind"], got["team"], got["tiles"], got["hp"], got["complete"], got["work"]) == \
            (want["kind"], want["team"], want["tiles"], want["hp"], want["done"], want["work"])
        assert got["progress"] == pytest.approx(want["work"] / want["work_needed"], abs=1e-3)
        assert [(e["action"], e["unit"], e["state"], e["ticks_left"]) for e in got["queue"]] == \
            [(aid, unit, state, left) for aid, unit, state, left, _total in want["queue"]]
        for entry, (_aid, _unit, state, left, total) in zip(got["queue"], want["queue"]):
            if state == "started":
                assert entry["status"] == "training" and entry["paid"] == entry["cost"] > 0 and entry["held"] == 0
                assert entry["progress"] == pytest.approx(1 - left / total, abs=1e-3)
            else:
                assert entry["status"] != "training" and entry["held"] == entry["cost"] and entry["progress"] is None
    assert any(b["queue"] for b in out["building_list"]), "the match should be training something at this tick"
    for team in out["teams"]:
        t = team["team"]
        assert (team["stockpile"], team["gathered"], team["held"]) == facts["stock"][t]
        assert team["available"] == facts["stock"][t][0] - facts["stock"][t][2]
        assert (team["population"], team["population_cap"]) == facts["population"][t]
        assert team["score"] == facts["scores"][t]
    carrying = {u["entity"]: u["carrying"] for u in out["units"]}
    for eid, load in facts["workers"].items():
        assert carrying[eid] == load
    assert all(u["carrying"] is None for u in out["units"] if u["entity"] not in facts["workers"])

    text = rts("replay", str(rec), "--to", str(TICK))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    blue = next(line for line in lines if line.split()[:2] == ["0", "Blue"])
    amount, gathered, held = facts["stock"][0]
    assert blue.split()[2:5] == [str(amount), str(held), str(gathered)]
    for eid, want in facts["buildings"].items():
        row = next(line for line in lines if line.split()[:3] == [str(eid), str(want["team"]), want["kind"]])
        assert ("complete" in row) if want["done"] else ("under construction" in row)
    assert "queue: 1. " in text.stdout and " load " in text.stdout


def test_firefight_replay_text_is_unchanged_by_the_economy(tmp_path):
    rec = tmp_path / "m.rtsreplay"
    assert rts("match", "--scenario", "duel", "--ticks", "60", "--record", str(rec)).returncode == 0
    proc = rts("replay", str(rec), "--to", "30")
    assert proc.returncode == 0, proc.stderr
    assert "stock" not in proc.stdout and "building" not in proc.stdout and " load " not in proc.stdout
    out = json.loads(rts("replay", str(rec), "--to", "30", "--json").stdout)
    assert out["building_list"] == [] and [t["stockpile"] for t in out["teams"]] == [0, 0]


def test_explain_a_worker_says_what_it_does_from_the_ledger(econ):
    rec, facts = econ
    gatherer = next(eid for eid, (kind, *_r) in facts["actions"].items() if kind == "gather")
    kind, aid, data, field = facts["actions"][gatherer]
    proc = rts("explain", str(rec), "--tick", str(TICK), "--entity", str(gatherer))
    assert proc.returncode == 0, proc.stderr
    assert "no brain drives it" in proc.stdout and ("Blue worker" in proc.stdout or "Red worker" in proc.stdout)
    assert f"doing: gather#{aid}" in proc.stdout and f"field {field}" in proc.stdout
    assert f"carrying {facts['workers'][gatherer]}/8" in proc.stdout
    assert f"{data['delivered']} load" in proc.stdout and "delivered so far" in proc.stdout
    out = json.loads(rts("explain", str(rec), "--tick", str(TICK), "--entity", str(gatherer), "--json").stdout)
    assert out["basis"] == "ledger" and out["entity"] == gatherer and out["tick"] == TICK and out["what"] == "unit"
    assert out["worker"]["carrying"] == facts["workers"][gatherer]
    (action,) = out["actions"]
    assert (action["kind"], action["id"], action["target"]) == ("gather", aid, field)
    assert action["detail"]["delivered"] == data["delivered"]
    assert action["detail"]["phase"] in ("walking to the field", "mining", "carrying the load to a drop-off")
    builders = [eid for eid, (kind, *_r) in facts["actions"].items() if kind == "build"]
    if builders:
        _kind, aid, data, _target = facts["actions"][builders[0]]
        out = json.loads(rts("explain", str(rec), "--tick", str(TICK), "--entity", str(builders[0]), "--json").stdout)
        detail = out["actions"][0]["detail"]
        if data.get("site"):
            site = facts["buildings"][data["site"]]
            assert detail["site"] == data["site"] and detail["work"] == site["work"]
            assert "built (" in out["actions"][0]["text"]
        else:
            assert detail["paid"] is False and "not placed yet" in out["actions"][0]["text"]


def test_explain_a_building_lists_its_queue_and_construction(econ):
    rec, facts = econ
    busy = next(eid for eid, b in facts["buildings"].items() if b["queue"])
    proc = rts("explain", str(rec), "--tick", str(TICK), "--entity", str(busy))
    assert proc.returncode == 0, proc.stderr
    assert "production queue (at most 5):" in proc.stdout
    from content.loader import load_content
    units = load_content().units
    for i, (aid, unit, state, _left, _total) in enumerate(facts["buildings"][busy]["queue"], 1):
        line = next(line for line in proc.stdout.splitlines() if line.startswith(f"  {i}. "))
        assert unit in line and f"train#{aid}" in line
        cost = units[unit].cost
        assert ("training" in line and f"paid {cost}" in line) if state == "started" else (f"{cost} held" in line)
    out = json.loads(rts("explain", str(rec), "--tick", str(TICK), "--entity", str(busy), "--json").stdout)
    assert out["what"] == "building" and [e["action"] for e in out["building"]["queue"]] == \
        [q[0] for q in facts["buildings"][busy]["queue"]]
    # its last finished actions are the live ledger's since the re-simulation's history starts
    assert out["history_from"] <= TICK - 300
    live = [a for a in facts["done"].get(busy, []) if a[4] >= out["history_from"]][-6:]
    assert [[a["id"], a["kind"], a["state"], a["reason"], a["end_tick"]] for a in out["recent"]] == live
    if live:
        assert "last finished actions" in proc.stdout and f"{live[-1][1]}#{live[-1][0]}" in proc.stdout
    sites = [eid for eid, b in facts["buildings"].items() if not b["done"]]
    if sites:
        proc = rts("explain", str(rec), "--tick", str(TICK), "--entity", str(sites[0]))
        assert proc.returncode == 0 and "under construction" in proc.stdout


def test_explain_of_what_is_no_unit_or_building_is_one_line_exit_2(econ):
    rec, facts = econ
    for entity in (facts["fields"], 99999):
        proc = rts("explain", str(rec), "--tick", str(TICK), "--entity", str(entity))
        assert proc.returncode == 2 and "never made a decision" in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_report_has_an_economy_column(econ, tmp_path):
    from PIL import Image
    from content.loader import load_content
    from game.app.report import collect
    from saves.replay import read_replay
    rec, facts = econ
    data = collect(read_replay(rec), load_content())
    assert data["economy"] is True
    ticks = data["series"]["tick"]
    assert ticks[-1] == RECORDED and TICK in ticks
    i = ticks.index(TICK)
    for key in ("stock", "gathered", "income", "army_value", "building_value", "buildings"):
        assert len(data["series"][key]) == 2 and all(len(s) == len(ticks) for s in data["series"][key]), key
    for t in (0, 1):
        amount, gathered, _held = facts["stock"][t]
        assert data["series"]["stock"][t][i] == amount and data["series"]["gathered"][t][i] == gathered
        assert data["series"]["income"][t][i] > 0
        done = sum(1 for b in facts["buildings"].values() if b["team"] == t and b["done"])
        assert data["series"]["buildings"][t][i] == done
        completed = sum(1 for tick, team, _k, what in data["building_events"]
                        if team == t and what == "completed" and tick <= TICK)
        assert completed == done - 1            # the headquarters stood from the start
        # army + buildings + stockpile is the score
        total = data["series"]["army_value"][t][i] + data["series"]["building_value"][t][i] + amount
        assert total == pytest.approx(facts["scores"][t], abs=0.01)
    out = tmp_path / "r.png"
    proc = rts("report", str(rec), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "economy: gathered Blue " in proc.stdout
    img = Image.open(out)
    assert img.format == "PNG" and img.size == (1500, 1000)


def test_income_is_deliveries_per_minute_over_the_window():
    from game.app.report import income
    assert income([0, 30, 60, 90], [0, 8, 8, 24], 30, window=2.0) == [0.0, 480.0, 240.0, 480.0]
    assert income([0], [0], 30) == [0.0]
    # a steady 8 every second is 480 a minute, whatever the window
    ticks = list(range(0, 3001, 15))
    assert income(ticks, [t // 30 * 8 for t in ticks], 30)[-1] == pytest.approx(480.0, rel=0.01)


def test_entities_read_junk_action_data_and_dead_actors_without_failing(econ):
    """What a doctored replay can put in an action's data (any plain value) gives a '?' or nothing, never an
    exception; an entity gone at the tick is explained by the finished actions the ledger still holds."""
    from content.loader import load_content
    from game.app.entities import economy_state, entity_lines, explain_entity
    from game.ledger import ACTIVE
    from saves.replay import read_replay, seek
    rec, facts = econ
    world = seek(read_replay(rec), load_content(), TICK)
    try:
        world.activate()
        for action in world.ledger.active_sorted():
            action.data.update(left="x", total=[1], paid="y", phase="weird", delivered=None, drop=-5, site="s",
                               waited={}, at=1)
            action.params["unit"] = "nope"
        state = economy_state(world)
        assert {b["entity"] for b in state["building_list"]} == set(facts["buildings"])
        for eid in list(facts["buildings"]) + list(facts["workers"]):
            assert entity_lines(explain_entity(world, eid, 0))
        worker = next(iter(facts["workers"]))
        world.ledger.actor_gone(world, worker)
        esper.delete_entity(worker, immediate=True)
        gone = explain_entity(world, worker, 0)
        assert gone["exists"] is False and gone["actions"] == []
        assert gone["recent"][-1]["reason"] == "actor died" and gone["recent"][-1]["state"] not in ACTIVE
        assert "no unit or building has this id now" in entity_lines(gone)[0]
        assert explain_entity(world, 99999, 0) is None
    finally:
        world.close()
