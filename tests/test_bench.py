"""The benchmarks stay runnable (quick sizes; speed targets live in the benchmark, not here)."""
from benchmarks import brains


def test_brain_benchmarks_run_and_measure_the_same_tree():
    bt = brains.bench_bt()
    assert bt["nodes"] == 41 and bt["ours_us"] > 0
    assert bt["speedup"] is None or bt["speedup"] > 0
    ut = brains.bench_utility()
    assert ut["candidates"] == 8 and ut["decide_us"] > 0 and ut["bare_loop_us"] > 0
    npc = brains.bench_npcs(units=40, ticks=10)
    assert npc["brain_tps"] > 0 and npc["scripted_tps"] > 0


def test_py_trees_tree_has_the_same_shape_when_installed():
    import pytest
    pytest.importorskip("py_trees")
    root = brains.py_trees_tree()
    root.tick_once()
    tree, ctx = brains.ours_tree()
    tree.tick(ctx)
    assert [n.name for n in root.iterate()][-1] == "root"
    assert tree.running_path(ctx.mem) == ["root", "s9", "act9"]


def test_planning_benchmarks_run_and_agree_with_the_baselines():
    from benchmarks import planning
    g = planning.bench_goap()
    assert g["plan"] == ["reload", "enter_cover"] and g["regression_us"] > 0 and g["forward_us"] > 0
    h = planning.bench_htn()
    assert h["plan"] == ["get_key", "unlock_door", "enter_cover"]
    assert h["same_plan"] in (None, True)
    start, goal, actions = planning.exhausting_domain(8)
    from ai import goap
    assert goap.regress(start, goal, actions, budget=50).status == goap.BUDGET


def test_commander_benchmarks_run():
    from benchmarks import commander
    p = commander.bench_playouts(n=200)
    assert p["batched_per_s"] > 0 and p["plain_per_s"] > 0 and p["regions"] == 20 and p["groups"] == 8
    d = commander.bench_decision(repeat=1)
    assert d["playouts"] == 2000 and d["decision_ms"] > 0


def test_render_benchmark_says_it_needs_a_display_or_measures(monkeypatch):
    import os
    from benchmarks import render
    if not os.environ.get("DISPLAY"):
        assert "skipped" in render.run()
        return
    f = render.bench_frames(units=60, frames=5)
    assert f["units"] == 60 and f["frame_ms"] > 0 and f["empty_frame_ms"] > 0
    fe = render.bench_fog_effects(units=60, frames=5)
    assert fe["tracers"] == 300 and fe["ratio"] > 0 and fe["empty_frame_ms"] > 0
    aw = render.bench_army_window(units=200, warm=30, seconds=1.0)
    assert aw["units"] == 200 and aw["ticks_per_s_windowed"] > 0 and aw["fps"] > 0 and aw["sync_ms"] > 0
    assert aw["headless_ticks_per_s"] > 0


def test_economy_benchmarks_run():
    from benchmarks import economy
    m = economy.bench_match(ticks=300)
    assert m["ticks"] == 300 and m["tps"] > 0 and m["peak_units"] >= 8 and m["meets_target"] is None
    a = economy.bench_match(ticks=300, strategies=economy.AI_STRATEGIES)
    assert a["strategies"] == ["ai_balanced", "ai_rush"] and m["strategies"] != a["strategies"]
    assert a["ticks"] == 300 and a["tps"] > 0
    g = economy.bench_grid()
    assert g["update_ms"] > 0 and g["rebuild_ms"] > 0 and g["areas_ms"] > 0


def test_the_same_plan_check_ignores_steps_that_change_nothing():
    """GTPyhop drops a step that does not change the state; the comparison must not call that a different plan."""
    from ai import htn
    from benchmarks.planning import same_plan, without_noops
    d = htn.Domain([htn.Primitive("wait"), htn.Primitive("shout", {}, {"alerted": True}),
                    htn.Primitive("open", {}, {"door_open": True})])
    assert same_plan(d, {}, ["wait", "open", "shout"], ["open", "shout"])
    assert same_plan(d, {"alerted": True}, ["shout", "open"], ["open"])
    assert not same_plan(d, {}, ["open", "shout"], ["shout", "open"])        # order still matters
    assert not same_plan(d, {}, ["open"], ["open", "fly"])                     # an unknown step is a difference
    assert without_noops(d, {}, ["open", "open", "wait"]) == ["open"]


def test_army_benchmark_measures_both_brain_paths_alike_and_refuses_what_cannot_be_placed():
    import pytest
    from benchmarks import run
    from content.loader import load_content
    content = load_content()
    scaled, sid = run.army_content(content, 60)
    assert sum(sp.count for t in scaled.scenarios[sid].teams for sp in t.spawns) == 60
    a = run.measure_army(scaled, sid, 4, batched=True)
    b = run.measure_army(scaled, sid, 4, batched=False)
    assert a["units"] == b["units"] == 60 and a["ticks"] == 4 and a["p99_ms"] >= a["mean_ms"] > 0
    assert a["sync_hash"] == b["sync_hash"] and "BrainSystem" in a["systems_ms"]
    big, bid = run.army_content(content, 30_000)          # the garrison map has no room for 30,000
    with pytest.raises(ValueError, match="only .* fit"):
        run.measure_army(big, bid, 1, batched=True)
    assert run.measure_floor(600, 3)["tps"] > 0


def test_the_lockstep_army_measure_keeps_both_paths_in_step():
    from benchmarks import run
    from content.loader import load_content
    scaled, sid = run.army_content(load_content(), 40)
    a, b = run.measure_lockstep(scaled, sid, 3, warmup=2)
    assert a["ticks"] == b["ticks"] == 3 and a["sync_hash"] == b["sync_hash"] and a["units"] == 40
    assert "BrainSystem" in a["systems_ms"] and "BrainSystem" in b["systems_ms"]
    assert a["collector_ms"] >= 0 and "collector" not in a["systems_ms"]
    # the brains' phases: the batched world perceives and scores in batch, the per-NPC one decides without a batch
    assert {"perception", "scoring", "deciding", "records"} <= set(a["brains_ms"])
    assert a["brains_ms"].get("calm test", 0) > 0            # the army scenarios let calm NPCs think less often
    assert "perception" not in b["brains_ms"] and b["brains_ms"]["deciding"] > 0
    assert sum(v for k, v in a["brains_ms"].items() if k != "cover") <= a["systems_ms"]["BrainSystem"] + 0.01
    # where each millisecond goes: the brains' phases and their rest make the brains, the systems and the time
    # between them the tick, every system once
    table = run.breakdown([{"units": 40, "batched": a}])
    rows = dict((label.strip(), v[0]) for label, v in table)
    phases = [v[0] for label, v in table if label.startswith("  ") and not label.startswith("    ")]
    assert abs(sum(phases) - rows["brains"]) < 0.02
    systems = [rows[k.removesuffix("System").lower()] for k in a["systems_ms"] if k not in ("BrainSystem", "BrainInboxSystem",
                                                                                             "ScriptedAISystem")]
    assert len(systems) == len(a["systems_ms"]) - 3 and rows["brain inbox"] == a["systems_ms"]["BrainInboxSystem"]
    assert abs(rows["brains"] + sum(systems) + rows["brain inbox"] + rows["scripted ai"] + rows["between the systems"]
               - rows["the whole tick (mean)"]) < 0.02
    assert rows["decisions a tick"] == a["decisions_per_tick"] > 0


def test_the_lockstep_takes_turns_in_chunks_and_ends_both_worlds_on_the_same_tick(monkeypatch):
    """The worlds take turns in chunks of ``LOCKSTEP_CHUNK`` ticks, which goes first alternating, so after the first
    chunk each runs two chunks at a time (two big worlds stepped tick by tick evicted each other's objects from the
    caches on every tick); a last chunk shorter than the others is run by both."""
    from benchmarks import run
    from content.loader import load_content
    order = []
    real_step = run.World.step
    monkeypatch.setattr(run.World, "step", lambda self: order.append(self.batch_brains) or real_step(self))
    monkeypatch.setattr(run, "LOCKSTEP_CHUNK", 4)
    scaled, sid = run.army_content(load_content(), 40)
    a, b = run.measure_lockstep(scaled, sid, 10, warmup=0)
    assert a["ticks"] == b["ticks"] == 10 and a["sync_hash"] == b["sync_hash"]
    measured = order[-20:]                       # (the first tick of each world, the region cut, came before)
    assert measured == [True] * 4 + [False] * 4 + [False] * 4 + [True] * 4 + [True] * 2 + [False] * 2


def test_the_phase_clock_counts_for_the_world_being_stepped_and_puts_the_methods_back():
    from ai.brain import Brain
    from benchmarks import run
    from content.loader import load_content
    before = Brain.__dict__["think"]
    scaled, sid = run.army_content(load_content(), 40)
    world = run.World(scaled, sid, 1)
    try:
        into: dict = {}
        with run._PhaseClock() as clock:
            assert Brain.__dict__["think"] is not before
            world.run(3)                                   # nobody's clock: counted nowhere
            assert into == {}
            clock.into = into
            world.run(12)
        assert into["deciding"] > 0 and into["perception"] > 0
        world.run(3)
    finally:
        world.close()
    assert Brain.__dict__["think"] is before


def test_the_collector_clock_counts_passes_for_the_world_being_stepped():
    import gc
    from benchmarks import run
    into: dict = {}
    with run._CollectorClock() as clock:
        gc.collect()                                     # nobody stepped yet: counted nowhere
        clock.into = into
        gc.collect()
    assert into["collector"] > 0 and clock not in gc.callbacks
    before = into["collector"]
    gc.collect()
    assert into["collector"] == before                   # the clock is gone: nothing more added


def test_fog_benchmark_runs_rounds_and_keeps_each_chunks_least_time():
    from benchmarks import fog
    out = fog.run(ticks=30, chunk=15, rounds=3)
    assert out["units"] == 400 and out["buildings"] == 40 and out["rounds"] == 3
    assert len(out["round_ratios"]) == 3 and out["round_ratios"] == sorted(out["round_ratios"])
    assert out["rate_ratio"] > 0 and out["tps_with_fog"] > 0 and out["tps_without_fog"] > 0
    # the ratio is that of the two rates, each from the sum of its chunks' least times
    assert abs(out["rate_ratio"] - out["tps_with_fog"] / out["tps_without_fog"]) < 0.01
    assert out["fog_update_ms"] > 0 and out["first_update_ms"] > 0 and out["tick_ms_without_fog"] > 0


def test_the_path_benchmark_finds_the_same_routes_every_way():
    from benchmarks import run
    from content.loader import load_content
    from ai.pathfinding import jit_available
    p = run.measure_paths(load_content(), searches=20)
    assert p["same_paths"] and p["same_routes"] and p["route_ms"] > 0 and p["route_python_loops_ms"] > 0
    assert p["routes_compiled"] == jit_available()        # compiled loops against Python ones when Numba is here


def test_every_bench_report_names_the_interpreter_that_made_it(capsys):
    """Figures from two Python builds are not comparable (the same code runs faster on a CPython built with PGO and
    LTO), so a report says which interpreter made it: in its JSON and on its first line."""
    import json
    import os
    import platform
    import sys
    from types import SimpleNamespace

    from benchmarks import run
    args = SimpleNamespace(suite="planning", json=True, units=[50], ticks=10, warmup=0)
    run.main(args)
    py = json.loads(capsys.readouterr().out)["interpreter"]
    assert py["python"] == platform.python_version() and py["executable"] == os.path.realpath(sys.executable)
    assert py["build"] and py["compiler"] and py["implementation"] == platform.python_implementation()
    assert py["optimizations"] in ("none configured", "PGO", "LTO", "PGO and LTO")
    args.json = False
    run.main(args)
    first = capsys.readouterr().out.splitlines()[0]
    assert platform.python_version() in first and os.path.realpath(sys.executable) in first and "optimizations" in first


def test_the_bench_refuses_what_it_cannot_measure_in_one_line_before_measuring(capsys):
    """A negative warm-up, a warm-up that reaches the match's last tick, or an army its map cannot hold is refused
    before anything runs, as one line and exit status 2; a match that ends in the warm-up (by elimination) is told
    as one line too, not a division by zero."""
    import dataclasses
    import pytest
    from benchmarks import run
    from content.loader import load_content
    from game.app import cli
    content = load_content()
    run.check_request([50, 1000, 2000], 5, 100, content)                    # measurable: nothing said
    run.check_request([1000], 5, 8998, content)                             # the longest warm-up leaves a tick
    for units, ticks, warmup, says in (([1000], 5, -1, "--warmup -1: expected 0 or more"),
                                       ([1000], 5, 8999, "ends at tick 9000, so at most 8998"),
                                       ([2000, 30_000], 5, 0, "--units 30000: .* only .* fit"),
                                       ([1000], 0, 0, "--ticks 0")):
        with pytest.raises(run.BenchError, match=says):
            run.check_request(units, ticks, warmup, content)
    assert cli.main(["bench", "--suite", "sim", "--units", "1000", "--warmup", "8999"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --warmup 8999: the army_1000_scaled match ends at tick 9000") and err.count("\n") == 1
    with pytest.raises(SystemExit) as exc:                                 # (argparse refuses it)
        cli.main(["bench", "--suite", "sim", "--units", "1000", "--warmup", "-3"])
    assert exc.value.code == 2 and "--warmup: expected a whole number from 0" in capsys.readouterr().err
    # a match over before the first measured tick: one line, whichever measure ran it
    scaled, sid = run.army_content(content, 40)
    short = dataclasses.replace(scaled, scenarios={**scaled.scenarios,
                                                   sid: scaled.scenarios[sid].model_copy(update={"max_ticks": 4})})
    with pytest.raises(run.BenchError, match="ended at tick 4, before the first measured tick"):
        run.measure_lockstep(short, sid, 3, warmup=10)
    with pytest.raises(run.BenchError, match="ended at tick 4"):
        run.measure_army(short, sid, 3, batched=True, warmup=10)


def test_the_benchmark_runners_docstring_examples_hold():
    import doctest

    from benchmarks import run
    result = doctest.testmod(run, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0


def test_the_breakdown_puts_each_figure_in_its_row_and_column():
    """``breakdown`` on made-up runs of three sizes given out of order: each label once, each value from its own
    phase, system and size, the other systems largest first in the largest army's column, the collector's row as
    measured, decisions and the brains' microseconds per decision."""
    from benchmarks import run

    def row(units, scale):
        return {"units": units, "batched": {
            "mean_ms": 10.0 * scale, "collector_ms": 0.3 * scale, "decisions_per_tick": 20 * scale,
            "systems_ms": {"BrainSystem": 6.0 * scale, "LedgerSystem": 1.0 * scale, "MovementSystem": 2.0 * scale,
                           "BrainInboxSystem": 0.5 * scale},
            "brains_ms": {"perception": 1.5 * scale, "cover": 0.5 * scale, "deciding": 2.0 * scale,
                          "scoring": 1.0 * scale, "records": 0.25 * scale, "calm test": 0.75 * scale}}}
    rows = [row(2000, 2), row(1000, 1), row(10000, 10)]
    table = run.breakdown(rows)
    labels = [label for label, _v in table]
    assert len(labels) == len(set(labels)) == 16
    got = {label.strip(): values for label, values in table}
    assert got["the whole tick (mean)"] == [20.0, 10.0, 100.0] and got["brains"] == [12.0, 6.0, 60.0]
    assert got["perception (facts of those deciding)"] == [3.0, 1.5, 15.0]
    assert got["of it the cover search"] == [1.0, 0.5, 5.0]
    assert got["deciding (selector, HFSM, tree)"] == [4.0, 2.0, 20.0] and got["scoring"] == [2.0, 1.0, 10.0]
    assert got["records"] == [0.5, 0.25, 2.5] and got["the calm test"] == [1.5, 0.75, 7.5]
    assert got["choosing who decides, the rest"] == [1.0, 0.5, 5.0]         # 6 less 1.5, 2, 1, 0.25, 0.75
    assert labels.index("movement") < labels.index("ledger") < labels.index("brain inbox")
    assert got["movement"] == [4.0, 2.0, 20.0] and got["brain inbox"] == [1.0, 0.5, 5.0]
    assert got["between the systems"] == [1.0, 0.5, 5.0]                   # 10 less 6, 1, 2, 0.5
    assert got["the collector (inside the systems)"] == [0.6, 0.3, 3.0]
    assert got["decisions a tick"] == [40, 20, 200] and got["brains per decision (us)"] == [300.0, 300.0, 300.0]
    # the other systems ordered by the largest army's column, wherever it stands in the rows
    rows[2]["batched"]["systems_ms"]["LedgerSystem"] = 30.0
    labels = [label for label, _v in run.breakdown(rows)]
    assert labels.index("ledger") < labels.index("movement")
