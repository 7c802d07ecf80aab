"""Decision records (ai/records.py): one typed home, read back exactly, refused in one line when damaged."""
import subprocess
import sys

import pytest

from ai.records import (RECORD_KINDS, CandidateScore, CommanderDecision, DecisionLog, NpcDecision, PlanRecord,
                        RecordError, RecordIndex, from_wire, wire_key)
from ai.status import FAILURE, SUCCESS


def npc(tick=10, entity=7, **kw):
    cand = CandidateScore("engage", True, 0.5, [("enemy_visible", True, True)], [("hp_frac", 1.0, 1.0, 0.9, 1.0)])
    return NpcDecision(tick=tick, entity=entity, time=tick / 30, choice="engage", switch=True, reason="ordinary",
                       detail="engage scores 0.500", candidates=[cand], mode="engage", state=["engage", "shoot"],
                       bt=["root", "fire"], status=SUCCESS, status_reason="target destroyed", events=["fire: x"],
                       plan=PlanRecord("goap", "in_cover", ["reload", "take_cover"], 1, 42, FAILURE, 1,
                                       [[1.5, "step reload: action #40 confirmed"]]), **kw)


def commander(tick=90, team=0):
    return CommanderDecision(tick=tick, team=team, profile="uct", algorithm="uct", playouts=2000, iterations=250,
                             value=0.6, groups=[["0:1", 3, 400.0]], orders=[[1, "attack", 3]],
                             stats=[["attack 3", 900, 0.61]], ms=12.5)


@pytest.mark.parametrize("rec", [npc(), commander()], ids=["npc", "commander"])
def test_every_kind_reads_back_exactly_from_its_wire_form(rec):
    import json

    import msgpack
    wire = rec.to_wire()
    assert wire["kind"] == rec.kind and RECORD_KINDS[rec.kind] is type(rec)
    again = from_wire(msgpack.unpackb(msgpack.packb(wire)))
    assert again == rec and type(again) is type(rec)
    assert json.loads(json.dumps(wire)) == wire                 # plain data for --json too
    assert wire_key(wire) == (rec.kind, rec.key, rec.tick)


def test_every_kind_says_whose_decision_it_is():
    for cls in RECORD_KINDS.values():
        assert cls.key_field in {f for f, _c, _n in cls._SPEC}, cls
    assert npc(entity=31).key == 31 and commander(team=3).key == 3


@pytest.mark.parametrize("change,path,message", [
    (lambda w: w.update(tick="soon"), "tick", "expected a whole number, got str"),
    (lambda w: w.pop("reason"), "reason", "missing"),
    (lambda w: w["candidates"][0].update(score="high"), "candidates[0].score", "expected a number, got str"),
    (lambda w: w["candidates"][0]["gates"].append(["x", True]), "candidates[0].gates[1]", "expected a row of 3"),
    (lambda w: w["plan"].update(status=9), "plan.status", "expected a status (0-3), got 9"),
    (lambda w: w.update(time=float("inf")), "time", "expected a finite number, got inf"),
    (lambda w: w.update(kind="oracle"), "kind", "unknown record kind 'oracle'"),
    (lambda w: w["events"].append(5), "events[1]", "expected a string, got int"),
])
def test_a_damaged_record_names_its_key(change, path, message):
    wire = npc().to_wire()
    change(wire)
    with pytest.raises(RecordError) as info:
        from_wire(wire, "d[0]")
    assert info.value.path == f"d[0].{path}" and message in info.value.message, str(info.value)


def test_the_log_keeps_a_ring_per_decider_and_any_number_of_teams():
    log = DecisionLog(ring=3)
    log.collect = True
    for t in range(5):
        for team in range(4):
            log.add(commander(tick=t, team=team))
        log.add(npc(tick=t, entity=100))
    assert [r.tick for r in log.records("commander", 3)] == [2, 3, 4]
    assert log.latest("npc", 100).tick == 4 and log.latest("npc", 99) is None
    assert len(log.take()) == 25 and log.take() == []
    assert [r.team for r in log.all("commander") if r.tick == 4] == [0, 1, 2, 3]


def test_an_npc_keeps_its_last_two_records_in_memory_and_a_collector_gets_every_one():
    log = DecisionLog(ring=16)
    log.collect = True
    for t in range(10):
        log.add(npc(tick=t, entity=7))
        log.add(commander(tick=t, team=0))
    assert [r.tick for r in log.records("npc", 7)] == [8, 9]            # NpcDecision.keep
    assert len(log.records("commander", 0)) == 10                        # the log's ring (16) for the others
    assert [r.tick for r in log.take() if r.kind == "npc"] == list(range(10))
    small = DecisionLog(ring=1)
    small.add(npc(tick=1, entity=7))
    small.add(npc(tick=2, entity=7))
    assert [r.tick for r in small.records("npc", 7)] == [2]             # never more than the log's ring


def test_the_index_finds_the_last_decision_at_or_before_a_tick_and_decodes_only_what_is_asked():
    wire = [commander(tick=t, team=team).to_wire() for t in (0, 90, 180) for team in (0, 1, 2)]
    wire += [npc(tick=t, entity=12).to_wire() for t in (5, 11)]
    wire[4]["value"] = "not a number"                           # team 1's record at tick 90 is damaged
    index = RecordIndex(wire, "m.rtsreplay: decisions")
    assert index.keys("commander") == [0, 1, 2] and index.keys("npc") == [12]
    assert index.at("commander", 2, 100).tick == 90 and index.at("commander", 0, 179).tick == 90
    assert index.at("npc", 12, 4) is None and index.at("npc", 12, 11).tick == 11
    assert index.first_tick("npc", 12) == 5 and index.ticks("commander") == [0] * 3 + [90] * 3 + [180] * 3
    with pytest.raises(RecordError, match=r"m.rtsreplay: decisions\[4\].value: expected a number"):
        index.at("commander", 1, 100)


def test_explain_refuses_a_damaged_record_in_a_replay_in_one_line(content, tmp_path):
    """A replay whose framing is intact but whose decision record is not: one line, exit status 2."""
    from game.world import World
    from saves.container import frame, read_chunks, read_file
    from saves.replay import REPLAY_MAGIC, ReplayRecorder
    path = tmp_path / "m.rtsreplay"
    world = World(content, "skirmish", 2)
    recorder = ReplayRecorder(path, world)
    for _ in range(60):
        world.step()
        recorder.after_tick(world)
    recorder.close(world)
    world.close()
    out = bytearray(REPLAY_MAGIC)
    damaged = None
    for kind, _pos, body in read_chunks(path, read_file(path), REPLAY_MAGIC):
        if kind == b"D" and damaged is None:
            victim = next(r for r in body if r["kind"] == "npc" and r["candidates"])
            victim["candidates"][0]["eligible"] = "maybe"
            damaged = victim
        out += frame(kind, body)
    bad = tmp_path / "bad.rtsreplay"
    bad.write_bytes(bytes(out))
    proc = subprocess.run([sys.executable, "-m", "game.app.cli", "explain", str(bad), "--tick", str(damaged["tick"]), "--entity",
                           str(damaged["entity"])], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "candidates[0].eligible: expected true or false, got str" in proc.stderr
