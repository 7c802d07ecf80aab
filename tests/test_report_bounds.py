"""`rts report` holds a bounded picture of a match of any length: capped lines that still span the whole match,
capped marks with exact totals beside them, decision records streamed."""
import dataclasses

from content.loader import load_content
from game.app import report
from game.app.report import Marks, Sampler, collect
from game.world import World
from saves.replay import ReplayRecorder, read_replay


def test_a_long_series_stays_within_the_cap_and_spans_first_to_last_tick():
    cap = 64
    s = Sampler(2, cap=cap)
    end = 1_000_003                                   # ~9 game-hours, not a multiple of the sampling interval
    longest = 0
    for tick in range(0, end + 1, 1):
        if s.due(tick, end=tick == end):
            s.add(tick, {"hp": [float(tick), 0.0], "alive": [tick % 7, 1]})
            longest = max(longest, len(s.ticks))
    ticks = list(s.ticks)
    assert longest <= cap and len(ticks) > cap // 2
    assert ticks[0] == 0 and ticks[-1] == end
    assert ticks == sorted(set(ticks))
    gaps = {b - a for a, b in zip(ticks[:-2], ticks[1:-1])}
    assert gaps == {s.step}                           # evenly spaced but for the last (the end) sample
    assert list(s.lines["hp"][0]) == [float(t) for t in ticks]      # each kept value is the one of its tick
    assert list(s.lines["alive"][0]) == [t % 7 for t in ticks]
    assert all(len(line) == len(ticks) for lines in s.lines.values() for line in lines if len(line))


def test_marks_stay_within_the_cap_and_keep_the_first():
    m = Marks(cap=100)
    for tick in range(100_000):
        m.add(tick, tick % 2, "completed")
        assert len(m.marks) <= 100
    items = m.items()
    assert items[0] == (0, 0, "completed") and (1, 1, "completed") in items
    assert max(t for t, *_ in items) > 90_000                      # still spans the match
    assert {(team, what) for _t, team, what in items} == {(0, "completed"), (1, "completed")}


def _record(path, ticks: int) -> None:
    content = load_content()
    sid = "skirmish"
    scenarios = dict(content.scenarios)
    scenarios[sid] = scenarios[sid].model_copy(update={"max_ticks": ticks})
    content = dataclasses.replace(content, scenarios=scenarios)
    world = World(content, sid, 2)
    rec = ReplayRecorder(str(path), world)
    try:
        while not world.over:
            world.step()
            rec.after_tick(world)
        rec.close(world)
    finally:
        world.close()


def test_a_capped_report_keeps_the_values_and_totals_of_the_full_one(tmp_path, monkeypatch):
    path = tmp_path / "m.rtsreplay"
    _record(path, 600)
    content = load_content()
    full = collect(read_replay(str(path)), content)
    assert len(full["series"]["tick"]) == 600 // report.SAMPLE_TICKS + 1
    monkeypatch.setattr(report, "MAX_SAMPLES", 8)
    monkeypatch.setattr(report, "MAX_MARKS", 4)
    small = collect(read_replay(str(path)), content)
    ticks = list(small["series"]["tick"])
    assert len(ticks) <= 8 and ticks[0] == full["series"]["tick"][0] and ticks[-1] == full["series"]["tick"][-1]
    where = {t: i for i, t in enumerate(full["series"]["tick"])}
    for key in ("hp", "alive", "stock", "gathered", "army_value", "building_value", "buildings"):
        for t in range(len(full["teams"])):
            assert list(small["series"][key][t]) == [full["series"][key][t][where[k]] for k in ticks], key
    # the totals are exact whatever was merged; the marks are a subset of the full ones
    for key in ("lost", "built", "destroyed", "decisions"):
        assert small[key] == full[key], key
    assert full["decisions"] == len(read_replay(str(path)).records.all("commander")) > 0
    assert len(small["commanders"]) <= 4 and set(small["commanders"]) <= set(full["commanders"])
    assert set(small["deaths"]) <= set(full["deaths"]) and len(small["deaths"]) <= 4
