"""AI evaluation at scale: backends (local, Ray), resumable results, retries, side bias, A/B content tests,
leagues, `rts verify DIR` and `rts diff`."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from game.app import backends, league
from game.app.cli import main
from game.app.tournament import Setup, TournamentError, check_side_mod, read_results, run, run_many, side_bias

ROOT = Path(__file__).resolve().parent.parent
TICKS = 60                         # games cut short: the tests compare results, not play whole matches


def rts(*args, env=None):
    return subprocess.run([sys.executable, "-m", "game.app.cli", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


@pytest.fixture(scope="module")
def mod_b(tmp_path_factory):
    """A side mod: uct with another exploration constant, uct_small with fewer playouts (a commander change)."""
    d = tmp_path_factory.mktemp("mod_b")
    (d / "commanders").mkdir()
    for name, key, value in (("uct", "exploration", "2.0"), ("uct_small", "playouts", "20")):
        text = (ROOT / f"content/commanders/{name}.toml").read_text(encoding="utf-8")
        lines = [line for line in text.splitlines() if not line.startswith(key)] + [f"{key} = {value}"]
        (d / f"commanders/{name}.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


RAY_PROBE = ("import ray; ray.init(num_cpus=2, include_dashboard=False, logging_level='ERROR', log_to_driver=False);"
             "print(ray.get(ray.remote(lambda: 7).remote(), timeout=90)); ray.shutdown()")


def _ray_runs_here() -> str | None:
    """None when a local Ray instance starts and runs a task here; else why not. Some machines (containers short of
    shared memory or process slots) cannot run Ray at all; there the Ray tests are skipped rather than hung."""
    # its own session, so that on a timeout the probe and the Ray daemons it started go together (never `ray
    # stop`, which would stop every Ray instance on the machine)
    probe = subprocess.Popen([sys.executable, "-c", RAY_PROBE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    try:
        out, err = probe.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        os.killpg(probe.pid, signal.SIGKILL)
        probe.communicate()
        return "a local Ray instance did not run a task within 150 s"
    if probe.returncode or out.strip() != "7":
        tail = (err.strip().splitlines() or ["no output"])[-1]
        return f"a local Ray instance cannot run here: {tail}"
    return None


@pytest.fixture(scope="module")
def ray_local(tmp_path_factory):
    """One local Ray instance (2 CPUs) for the module; a disarmed crash hook its workers inherit."""
    ray = pytest.importorskip("ray")
    why = _ray_runs_here()
    if why:
        pytest.skip(why)
    crash = tmp_path_factory.mktemp("ray_crash") / "armed"
    crash.write_text("")                          # exists: disarmed; a test deletes it to kill one worker
    os.environ["RTS_CRASH_ONCE"] = str(crash)
    try:
        release = backends._init_ray(ray, 2, None, 120)
    finally:
        del os.environ["RTS_CRASH_ONCE"]
    stall = backends.RAY_STALL_S
    backends.RAY_STALL_S = 300.0                  # a test whose Ray workers never start fails instead of hanging
    yield crash
    backends.RAY_STALL_S = stall
    ray.shutdown()
    release.set()


def _by_seed(results):
    return [(g["seed"], g["a_team"], g["winner_team"], g["ticks"], g["sync_hash"]) for g in results]


def test_local_jobs_come_back_once_each_and_a_dead_worker_only_costs_a_retry(tmp_path, monkeypatch):
    monkeypatch.setenv("RTS_CRASH_ONCE", str(tmp_path / "crashed"))
    got = sorted(backends.run_jobs(backends.echo, [(i,) for i in range(6)], backend="local", workers=2))
    assert got == [(i, (i,)) for i in range(6)]
    assert (tmp_path / "crashed").exists()                     # a worker really died


def test_unknown_backend_and_missing_ray_are_one_line_errors(monkeypatch, capsys):
    with pytest.raises(backends.BackendError, match="unknown backend 'spark'"):
        backends.run_jobs(backends.echo, [(1,)], backend="spark")
    monkeypatch.setitem(sys.modules, "ray", None)             # as if Ray were not installed
    with pytest.raises(backends.BackendError, match=r"pip install -e '\.\[cluster\]'"):
        backends.run_jobs(backends.echo, [(1,)], backend="ray")
    assert main(["tournament", "--a", "scripted", "--b", "uct_small", "--backend", "ray", "--games", "1"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: the ray backend needs Ray: pip install -e '.[cluster]'"]


def test_results_stream_to_a_file_and_a_rerun_resumes(tmp_path):
    out = tmp_path / "t.jsonl"
    first = run("scripted", "uct_small", 2, workers=2, out=out, progress=False, ticks=TICKS)
    assert len(out.read_text().splitlines()) == 2
    out.write_text(out.read_text() + '{"match": "cut sh')       # a run stopped mid-write
    again = run("scripted", "uct_small", 3, workers=1, out=out, progress=False, ticks=TICKS)
    lines = out.read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line) for line in lines)   # only game 3 was played, cut line dropped
    assert _by_seed(again.games)[:2] == _by_seed(first.games)
    out.write_text("not json\n" + out.read_text())
    with pytest.raises(TournamentError, match=r"t\.jsonl:1: not a tournament result line"):
        read_results(out, set())


def test_a_game_that_crashes_is_named_and_the_others_are_played_and_saved(tmp_path, monkeypatch):
    # a bug in one game (found on econ_highlands: a team without buildings) used to abort the whole tournament
    from game.world import World
    real_run = World.run

    def run_or_crash(self, ticks):
        if self.seed == 2:
            raise IndexError("list index out of range")
        return real_run(self, ticks)

    def in_process(fn, jobs, **_kw):                 # the games run here, so the patched World applies
        for i, job in enumerate(jobs):
            yield i, fn(job)
    monkeypatch.setattr(World, "run", run_or_crash)
    monkeypatch.setattr(backends, "run_jobs", in_process)
    out = tmp_path / "t.jsonl"
    with pytest.raises(TournamentError) as err:
        run("scripted", "uct_small", 3, out=out, progress=False, ticks=30)
    msg = str(err.value)
    assert msg.startswith("1 of 3 games crashed") and "seed 2 (A as team 1) at tick 0: IndexError: list index out " \
        "of range (tests/test_scale.py:" in msg and "a rerun plays only what is missing" in msg
    assert sorted(json.loads(line)["result"]["seed"] for line in out.read_text().splitlines()) == [1, 3]
    monkeypatch.setattr(World, "run", real_run)
    again = run("scripted", "uct_small", 3, out=out, progress=False, ticks=30)      # the bug fixed: seed 2 only
    assert [g["seed"] for g in again.games] == [1, 2, 3] and len(out.read_text().splitlines()) == 3


def test_side_bias_counts_wins_per_side():
    games = [{"a_team": 0, "winner_team": 0, "result": "win"}, {"a_team": 1, "winner_team": 0, "result": "loss"},
             {"a_team": 0, "winner_team": None, "result": "draw"}, {"a_team": 1, "winner_team": 1, "result": "win"}]
    s = side_bias(games)
    assert (s["team0_wins"], s["team1_wins"], s["draws"]) == (2, 1, 1)
    assert (s["a_wins_as_team0"], s["a_wins_as_team1"]) == (1, 1)


def test_ab_content_changes_only_side_b_and_a_side_mod_may_hold_only_profiles(mod_b):
    plain = run("uct_small", "uct_small", 2, workers=2, progress=False, ticks=TICKS)
    ab = run("uct_small", "uct_small", 2, workers=2, progress=False, ticks=TICKS, mods_b=[str(mod_b)])
    assert [g["sync_hash"] for g in plain.games] != [g["sync_hash"] for g in ab.games]
    same = run("uct_small", "uct_small", 2, workers=2, progress=False, ticks=TICKS, mods_a=[str(mod_b)],
               mods_b=[str(mod_b)])
    mirror = run("uct_small", "uct_small", 2, workers=2, progress=False, ticks=TICKS, mods_a=[str(mod_b)])
    assert _by_seed(same.games) != _by_seed(mirror.games)     # A's side really reads A's content
    d = ab.as_dict()
    assert d["verdict"] == "no significant difference after 2 games" and "sides" in d
    with pytest.raises(TournamentError, match=r"--mod-b .*sniper\.toml: a side's content may change only commanders "
                                              r"and strategies \(this file is in 'brains'\)"):
        check_side_mod(ROOT / "examples/mods/sniper", "--mod-b")


def test_tournament_cli_prints_side_bias_and_a_verdict(mod_b):
    proc = rts("tournament", "--a", "uct_small", "--b", "uct_small", "--mod-b", str(mod_b), "--games", "2",
               "--ticks", str(TICKS), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert "sides: team 0 won" in proc.stdout and "no significant difference after 2 games" in proc.stdout
    bad = rts("tournament", "--a", "uct_small", "--b", "uct_small", "--mod-b", str(ROOT / "examples/mods/sniper"))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_bradley_terry_orders_and_centres_ratings():
    r = league.bradley_terry(3, {(0, 1): [1.0] * 6, (1, 2): [1.0] * 6, (0, 2): [1.0] * 6})
    assert r[0] > r[1] > r[2] and abs(sum(r)) < 1e-6
    even = league.bradley_terry(2, {(0, 1): [1.0, 0.0, 0.5, 0.5]})
    assert abs(even[0] - even[1]) < 1e-6
    ratings, intervals = league.fit(2, {(0, 1): [1.0] * 8 + [0.0] * 2})
    assert intervals[0][0] <= ratings[0] <= intervals[0][1] and intervals[0][1] > intervals[1][1]


def test_league_cli_writes_table_json_and_chart(tmp_path, mod_b):
    js, png = tmp_path / "l.json", tmp_path / "l.png"
    proc = rts("league", "scripted", f"uct_small:{mod_b}", "--games", "2", "--ticks", str(TICKS), "--no-progress",
               "--save-json", str(js), "--chart", str(png))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(js.read_text())
    assert [r["entrant"] for r in data["table"]] and {r["entrant"] for r in data["table"]} == {
        "scripted", f"uct_small:{mod_b}"}
    assert data["pairings"][0]["games"] == 2 and "sides" in data
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "95% interval" in proc.stdout
    bad = rts("league", "scripted", "nope")
    assert bad.returncode == 2 and "unknown commander profile 'nope'" in bad.stderr


@pytest.fixture(scope="module")
def replays(tmp_path_factory, mod_b):
    d = tmp_path_factory.mktemp("replays")
    for name, extra in (("a", []), ("b", ["--mod", str(mod_b)])):
        proc = rts("match", "--seed", "3", "--ticks", str(TICKS), "--record",
                   str(d / f"{name}.rtsreplay"), *extra)
        assert proc.returncode == 0, proc.stderr
    return d


def test_verify_dir_summarises_and_names_the_failures(replays, tmp_path):
    import shutil
    for f in replays.glob("*.rtsreplay"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "junk.rtsreplay").write_bytes(b"junk")
    proc = rts("verify", str(tmp_path), "--no-progress", "--workers", "2")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("2 of 3 replays verified")
    assert "FAILED " + str(tmp_path / "junk.rtsreplay") in proc.stdout
    ok = rts("verify", str(replays), "--json", "--no-progress")
    assert ok.returncode == 0 and json.loads(ok.stdout)["verified"] == 2


def test_diff_finds_the_first_state_and_decision_that_differ(replays):
    same = rts("diff", str(replays / "a.rtsreplay"), str(replays / "a.rtsreplay"), "--json")
    assert same.returncode == 0, same.stderr
    assert json.loads(same.stdout)["state"] is None and json.loads(same.stdout)["decision"] is None
    proc = rts("diff", str(replays / "a.rtsreplay"), str(replays / "b.rtsreplay"), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    dec = out["decision"]
    assert dec["kind"] == "commander" and dec["a"]["profile"] == dec["b"]["profile"] == "uct"
    assert dec["changes"] and dec["a"] != dec["b"]
    assert out["state"] is not None and out["state"]["tick"] >= dec["tick"]
    text = rts("diff", str(replays / "a.rtsreplay"), str(replays / "b.rtsreplay"))
    assert "first different decision" in text.stdout and "| A" in text.stdout


# -- Ray: a local instance, compared with the local backend --------------------------------------------------------
def test_local_workers_are_spawned_not_forked_once_other_threads_run():
    import threading
    assert backends._mp_context().get_start_method() == ("fork" if threading.active_count() == 1 else "spawn")
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait, daemon=True)
    helper.start()
    try:
        assert backends._mp_context().get_start_method() == "spawn"
        got = sorted(backends.run_jobs(backends.echo, [(i,) for i in range(3)], backend="local", workers=2))
        assert got == [(i, (i,)) for i in range(3)]
    finally:
        stop.set()
        helper.join()


def test_ray_backend_gives_the_local_backends_results(ray_local):
    setups = [Setup("scripted", "uct_small", ticks=TICKS), Setup("uct_small", "scripted", ticks=TICKS)]
    local = run_many(setups, 2, workers=2, progress=False)     # Ray's threads run here: workers are spawned
    on_ray = run_many(setups, 2, workers=2, backend="ray", progress=False)
    assert [_by_seed(r) for r in on_ray] == [_by_seed(r) for r in local]


def test_ray_retries_a_game_whose_worker_died(ray_local):
    jobs = [(i,) for i in range(4)]
    ray_local.unlink()                                          # arm: the next job kills its worker
    got = sorted(backends.run_jobs(backends.echo, jobs, backend="ray", workers=2))
    assert got == [(i, (i,)) for i in range(4)] and ray_local.exists()


def test_ray_verifies_replays_like_local(ray_local, replays):
    jobs = [(str(f), None, False) for f in sorted(replays.glob("*.rtsreplay"))]
    local = sorted(backends.run_jobs(backends.verify_one, jobs, backend="local", workers=1))
    on_ray = sorted(backends.run_jobs(backends.verify_one, jobs, backend="ray", workers=2))
    assert on_ray == local and all(r["ok"] for _i, r in local)


def test_a_ray_that_cannot_start_is_a_one_line_error_not_a_hang():
    import threading
    import types
    never = threading.Event()
    hung = types.SimpleNamespace(init=lambda **_kw: never.wait(30))
    with pytest.raises(backends.BackendError, match=r"^Ray did not start within 1 s \(address local\)"):
        backends._init_ray(hung, 2, None, 1)
    never.set()

    def refuse(**_kw):
        raise OSError("object store: /dev/shm too small\nsecond line")
    with pytest.raises(backends.BackendError, match=r"^cannot start or join Ray \(address h:1\): object store: "
                                                    r"/dev/shm too small$"):
        backends._init_ray(types.SimpleNamespace(init=refuse), 2, "h:1", 5)


def test_a_finished_match_leaves_nothing_for_the_collector(content, monkeypatch):
    """A world's parts point back at it (perception, fog); ``World.close`` cuts those links, so a process that plays
    match after match (a tournament worker through ``backends.execute``, the window's restarts and replay seeks)
    frees each finished world by reference counts, with the collector off, instead of holding them all until its
    rare oldest-generation pass (six ``army_2000`` games in one worker went 226 -> 434 MB). Each world is watched
    through a weak reference: gone as soon as its last reference goes, before any collector pass."""
    import gc
    import weakref

    from benchmarks.run import army_content
    from game.app.tournament import play_game
    from game.world import World
    job = ("skirmish", 1, "uct", "uct", 0, "commander", (), (), (), 60)
    backends.execute(play_game, job)              # (a process's first match makes a few one-off cyclic objects)
    army, army_id = army_content(content, 400)
    made = []
    init = World.__init__

    def watched(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(weakref.ref(self))
    monkeypatch.setattr(World, "__init__", watched)
    gc.collect()
    gc.disable()
    try:
        assert backends.execute(play_game, job)["ticks"] == 60
        assert len(made) == 1 and made[0]() is None
        for scenario_content, sid, ticks in ((content, "econ_duel", 300), (content, "uct_vs_eo", 120),
                                             (army, army_id, 40)):
            world = World(scenario_content, sid, 1)
            world.run(ticks)
            world.close()
            assert world.closed and world.hz == 30        # (its own fields stay readable: a report reads them)
            del world
            assert made[-1]() is None, sid
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_tuned_process_collects_young_objects_rarely():
    """``tune_gc`` (the ``rts`` process, its workers, the benchmarks) raises the youngest generation's threshold; a
    test or library process keeps CPython's default."""
    import gc

    from game.app import process
    thresholds = gc.get_threshold()
    try:
        process.tune_gc()
        assert gc.get_threshold() == (process.YOUNG_THRESHOLD, 20, 20) and process.YOUNG_THRESHOLD >= 100_000
    finally:
        gc.set_threshold(*thresholds)
